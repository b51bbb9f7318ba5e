package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"time"
)

// The hand-written numeric flags (those not bound from a configuration's
// tags by package option) check their range as they are parsed, so an
// explicit value out of range, 0 included where the range excludes it, is
// a usage error naming the flag, never the default. A flag whose 0 means
// "the default" or "auto" says so in its help and takes 0 in its range.

// intRange is an int flag within [lo, hi].
type intRange struct {
	p      *int
	lo, hi int
}

func (r intRange) String() string {
	if r.p == nil {
		return ""
	}
	return strconv.Itoa(*r.p)
}

func (r intRange) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("%q is not an integer", s)
	}
	if n < r.lo || n > r.hi {
		return fmt.Errorf("must be in [%d, %d]", r.lo, r.hi)
	}
	*r.p = n
	return nil
}

// TypeName is what the flag takes, for help output (printDefaults).
func (intRange) TypeName() string { return "int" }

// intVar defines an int flag in fs taking values in [lo, hi].
func intVar(fs *flag.FlagSet, p *int, name string, def, lo, hi int, usage string) {
	*p = def
	fs.Var(intRange{p, lo, hi}, name, usage)
}

// positiveFloat is a finite float flag greater than 0.
type positiveFloat struct{ p *float64 }

func (f positiveFloat) String() string {
	if f.p == nil {
		return ""
	}
	return strconv.FormatFloat(*f.p, 'g', -1, 64)
}

func (f positiveFloat) Set(s string) error {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("%q is not a number", s)
	}
	if !(x > 0) || math.IsInf(x, 0) {
		return fmt.Errorf("must be positive and finite")
	}
	*f.p = x
	return nil
}

func (positiveFloat) TypeName() string { return "float" }

// positiveFloatVar defines a float flag in fs taking positive finite values.
func positiveFloatVar(fs *flag.FlagSet, p *float64, name string, def float64, usage string) {
	*p = def
	fs.Var(positiveFloat{p}, name, usage)
}

// positiveDuration is a duration flag greater than 0.
type positiveDuration struct{ p *time.Duration }

func (d positiveDuration) String() string {
	if d.p == nil {
		return ""
	}
	return d.p.String()
}

func (d positiveDuration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (such as 30s or 10m)", s)
	}
	if v <= 0 {
		return fmt.Errorf("must be positive")
	}
	*d.p = v
	return nil
}

func (positiveDuration) TypeName() string { return "duration" }

// positiveDurationVar defines a duration flag in fs taking positive values.
func positiveDurationVar(fs *flag.FlagSet, p *time.Duration, name string, def time.Duration, usage string) {
	*p = def
	fs.Var(positiveDuration{p}, name, usage)
}

// notApplicable is the usage error for the first of flags given on the
// command line (set, from setFlags) that the path the command took does
// not read, saying why (such as "to a graph-classification model"): a flag
// given is either used or refused, never silently ignored.
func notApplicable(set map[string]bool, why string, flags ...string) error {
	for _, f := range flags {
		if set[f] {
			return usagef("--%s does not apply %s", f, why)
		}
	}
	return nil
}

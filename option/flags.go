package option

import (
	"errors"
	"flag"
	"fmt"
	"sort"
)

// Flags binds the options of configuration structs to a flag.FlagSet. Only
// the flags given change a configuration, so the defaults stay those of
// whatever configuration Apply is given.
type Flags struct {
	flags []*value
}

// value is one option on the command line.
type value struct {
	name, text string
	bool, set  bool
}

func (v *value) String() string     { return v.text }
func (v *value) IsBoolFlag() bool   { return v.bool }
func (v *value) Set(s string) error { v.text, v.set = s, true; return nil }

// Bind defines a flag in fs for every option of cfgs, once per name (the
// first configuration's help wins), in name order.
func Bind(fs *flag.FlagSet, cfgs ...any) *Flags {
	seen := map[string]bool{}
	var opts []Option
	for _, c := range cfgs {
		for _, o := range List(c) {
			if !seen[o.Name] {
				seen[o.Name] = true
				opts = append(opts, o)
			}
		}
	}
	sort.SliceStable(opts, func(i, j int) bool { return opts[i].Name < opts[j].Name })
	f := &Flags{}
	for _, o := range opts {
		v := &value{name: o.Name, bool: o.Bool}
		f.flags = append(f.flags, v)
		fs.Var(v, o.Name, o.Usage)
	}
	return f
}

// NotApplicable is Apply's error for a given flag that the configuration
// has no option for; it wraps ErrUnknown.
type NotApplicable struct{ Flag string }

func (e NotApplicable) Error() string { return "--" + e.Flag + " does not apply" }
func (e NotApplicable) Unwrap() error { return ErrUnknown }

// Apply sets the given flags in cfg. A given flag that cfg has no option
// for is a NotApplicable error.
func (f *Flags) Apply(cfg any) error {
	for _, v := range f.flags {
		if !v.set {
			continue
		}
		if err := Set(cfg, v.name, v.text); errors.Is(err, ErrUnknown) {
			return NotApplicable{v.name}
		} else if err != nil {
			return fmt.Errorf("--%s: %w", v.name, err)
		}
	}
	return nil
}

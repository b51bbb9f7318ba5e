package option

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Flags binds the options of configuration structs to a flag.FlagSet. Only
// the flags given change a configuration, so the defaults stay those of
// whatever configuration Apply is given.
type Flags struct {
	flags []*value
}

// value is one option on the command line.
type value struct {
	name, text, typ string
	bool, set       bool
}

// TypeName says what the flag takes (int, float, string, list), for help
// output; the flag package itself calls every such flag's value "value".
func (v *value) TypeName() string { return v.typ }

func (v *value) String() string     { return v.text }
func (v *value) IsBoolFlag() bool   { return v.bool }
func (v *value) Set(s string) error { v.text, v.set = s, true; return nil }

// Bind defines a flag in fs for every option of cfgs, once per name (the
// first non-empty help wins), in name order.
func Bind(fs *flag.FlagSet, cfgs ...any) *Flags {
	srcs := make([]Source, len(cfgs))
	for i, c := range cfgs {
		srcs[i] = Source{Config: c}
	}
	return BindSources(fs, srcs...)
}

// Source is a configuration with the name of what it configures.
type Source struct {
	Name   string
	Config any
}

// BindSources is Bind over named configurations: when sources that share
// an option differ in its default, the help lists each one's.
func BindSources(fs *flag.FlagSet, srcs ...Source) *Flags {
	seen := map[string]int{}
	var opts []Option
	defaults := map[string][]string{}
	differ := map[string]bool{}
	for _, src := range srcs {
		for _, o := range List(src.Config) {
			if d := src.Name + " " + o.Value; src.Name != "" && !slices.Contains(defaults[o.Name], d) {
				defaults[o.Name] = append(defaults[o.Name], d) // a node and a graph model may share a name
			}
			if i, ok := seen[o.Name]; ok {
				differ[o.Name] = differ[o.Name] || opts[i].Value != o.Value
				if opts[i].Usage == "" {
					opts[i].Usage, opts[i].Range = o.Usage, o.Range
				}
				continue
			}
			seen[o.Name] = len(opts)
			opts = append(opts, o)
		}
	}
	for i, o := range opts {
		if differ[o.Name] && len(defaults[o.Name]) > 0 { // one model's "(default …)" would mislead: list them all
			u := o.Usage
			if j := strings.LastIndex(u, " (default"); j >= 0 && strings.HasSuffix(u, ")") {
				u = u[:j]
			}
			opts[i].Usage = u + " (defaults: " + strings.Join(defaults[o.Name], ", ") + ")"
		}
		opts[i].Usage = withRange(opts[i].Usage, o.Range)
	}
	sort.SliceStable(opts, func(i, j int) bool { return opts[i].Name < opts[j].Name })
	f := &Flags{}
	for _, o := range opts {
		v := &value{name: o.Name, bool: o.Bool, typ: o.Type}
		// A help text that speaks of the default (the model's recipe, say)
		// says it better than the zero value of the field would.
		if !differ[o.Name] && !o.Bool && !strings.Contains(o.Usage, "default") {
			v.text = o.Value // -h prints it as the default; Apply reads only given flags
		}
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
// for is a NotApplicable error; one that cfg, as the flags leave it, does
// not read (see Unreader) is an Unread error.
func (f *Flags) Apply(cfg any) error {
	var given []string
	for _, v := range f.flags {
		if !v.set {
			continue
		}
		var re *RangeError
		if err := Set(cfg, v.name, v.text); errors.Is(err, ErrUnknown) {
			return NotApplicable{v.name}
		} else if errors.As(err, &re) {
			return fmt.Errorf("--%s %s: %s", re.Name, re.Value, re.Want())
		} else if err != nil {
			return fmt.Errorf("--%s: %w", v.name, err)
		}
		given = append(given, v.name)
	}
	if u, ok := cfg.(Unreader); ok {
		unread := u.Unread()
		for _, name := range given { // in name order, as the flags are
			if why, ok := unread[name]; ok {
				return Unread{Flag: name, Why: why}
			}
		}
	}
	return nil
}

// Unreader is a configuration whose own settings can leave some of its
// options unread: a model whose routing kind has no perspectives, say,
// ignores its perspectives option. Apply refuses such an option given on
// the command line rather than let it change nothing.
type Unreader interface {
	// Unread maps each option the configuration, as set, does not read
	// to the setting that makes it so, such as "with --routing none (its
	// layers do not read it)".
	Unread() map[string]string
}

// Unread is Apply's error for a given flag that the configuration, as the
// other flags set it, does not read.
type Unread struct{ Flag, Why string }

func (e Unread) Error() string { return "--" + e.Flag + " does not apply " + e.Why }

// withRange adds the range r to the help text u, before a closing
// "(default …)" if u has one: the range tags are the one place a range is
// written, so help tags do not repeat it.
func withRange(u string, r Range) string {
	rs := r.String()
	switch {
	case rs == "":
		return u
	case u == "":
		return rs
	}
	if j := strings.LastIndex(u, " (default"); j >= 0 && strings.HasSuffix(u, ")") {
		return u[:j] + ", " + rs + u[j:]
	}
	return u + ", " + rs
}

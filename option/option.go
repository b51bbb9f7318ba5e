// Package option reads and sets the fields of configuration structs by
// name: the fields tagged `opt:"name" help:"text"` are a configuration's
// options, which command lines expose as flags (Flags). Model and training
// configurations (model.PRCapsConfig, train.Config, ...) tag their fields
// this way, so a new model's options reach the command line with no code
// outside the model's file.
package option

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
)

// Option is a configuration field that a command line can set: a field of
// a configuration struct tagged `opt:"name"`, with its help text in a
// `help` tag.
type Option struct {
	Name  string // flag name, e.g. "hidden"
	Usage string // the help tag
	Bool  bool   // a switch: given alone, it means true
	Value string // the field's value in the configuration Options read
	Type  string // what a value is, for help: int, float, string or list ("" for a switch)
	Range Range  // the field's range tags, which Set enforces and the help prints
}

// List lists the settable fields of cfg, a pointer to a struct, in
// declaration order.
func List(cfg any) []Option {
	v, ok := structOf(cfg)
	if !ok {
		return nil
	}
	var out []Option
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		name := f.Tag.Get("opt")
		if name == "" || !f.IsExported() {
			continue
		}
		out = append(out, Option{Name: name, Usage: f.Tag.Get("help"), Bool: f.Type.Kind() == reflect.Bool,
			Value: fmt.Sprint(v.Field(i).Interface()), Type: typeName(f.Type), Range: rangeTags(f)})
	}
	return out
}

// Set parses value into the field of cfg (a pointer to a struct) tagged
// `opt:"name"`. It checks the syntax, and the range a numeric field
// declares in its tags (a *RangeError): `min` and `max` are inclusive
// bounds, `gt` and `lt` exclusive ones (a float that must be positive has
// gt:"0"). An explicit value is checked against them even where the
// configuration reads a zero field as "the default": on a command line,
// --hidden 0 is a mistake, never a way to ask for the default width. The
// configuration's own validation checks the rest. Fields implementing
// encoding.TextUnmarshaler parse themselves.
func Set(cfg any, name, value string) error {
	v, ok := structOf(cfg)
	if !ok {
		return fmt.Errorf("option: %T is not a pointer to a struct", cfg)
	}
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).Tag.Get("opt") != name {
			continue
		}
		f := v.Field(i)
		if u, ok := f.Addr().Interface().(encoding.TextUnmarshaler); ok {
			if err := u.UnmarshalText([]byte(value)); err != nil {
				return fmt.Errorf("option %s: %w", name, err)
			}
			return nil
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString(value)
		case reflect.Bool:
			b, err := strconv.ParseBool(value)
			if err != nil {
				return fmt.Errorf("option %s: %q is not a boolean", name, value)
			}
			f.SetBool(b)
		case reflect.Uint64:
			n, err := strconv.ParseUint(value, 10, 64)
			if err != nil {
				return fmt.Errorf("option %s: %q is not a non-negative integer", name, value)
			}
			if err := inRange(v.Type().Field(i), name, value, float64(n)); err != nil {
				return err
			}
			f.SetUint(n)
		case reflect.Int:
			n, err := strconv.Atoi(value)
			if err != nil {
				return fmt.Errorf("option %s: %q is not an integer", name, value)
			}
			if err := inRange(v.Type().Field(i), name, value, float64(n)); err != nil {
				return err
			}
			f.SetInt(int64(n))
		case reflect.Float64:
			x, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return fmt.Errorf("option %s: %q is not a number", name, value)
			}
			if err := inRange(v.Type().Field(i), name, value, x); err != nil {
				return err
			}
			f.SetFloat(x)
		default:
			return fmt.Errorf("option %s: unsupported field type %s", name, f.Type())
		}
		return nil
	}
	return fmt.Errorf("%w %q", ErrUnknown, name)
}

// ErrUnknown is wrapped by Set's error when the configuration has no
// option of that name.
var ErrUnknown = errors.New("no option")

func structOf(cfg any) (reflect.Value, bool) {
	v := reflect.ValueOf(cfg)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	return v.Elem(), true
}

// RangeError is Set's error for a value outside its field's range tags
// (min, max, gt, lt).
type RangeError struct {
	Name, Value string
	Range       // the field's bounds
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("option %s %s: %s", e.Name, e.Value, e.Want())
}

// Want says the range.
func (e *RangeError) Want() string {
	switch {
	case e.Max == "" && e.Lt == "" && e.Min != "":
		return "must be at least " + e.Min
	case e.Max == "" && e.Lt == "" && e.Gt == "0":
		return "must be positive"
	case e.Max == "" && e.Lt == "" && e.Gt != "":
		return "must be greater than " + e.Gt
	case e.Min == "" && e.Gt == "" && e.Max != "":
		return "must be at most " + e.Max
	case e.Min == "" && e.Gt == "" && e.Lt != "":
		return "must be less than " + e.Lt
	}
	lo, hi := "["+e.Min, e.Max+"]"
	if e.Gt != "" {
		lo = "(" + e.Gt
	}
	if e.Lt != "" {
		hi = e.Lt + ")"
	}
	return fmt.Sprintf("must be in %s, %s", lo, hi)
}

// Range is the range tags of an option field; Check and Set read them.
type Range struct {
	Min, Max string // inclusive bounds, "" when not given
	Gt, Lt   string // exclusive bounds, "" when not given
}

// RangeOf returns the range tags of the field of cfg (a pointer to a
// struct) tagged `opt:"name"`, and whether there is such a field.
func RangeOf(cfg any, name string) (Range, bool) {
	v, ok := structOf(cfg)
	if !ok {
		return Range{}, false
	}
	for i := 0; i < v.NumField(); i++ {
		if f := v.Type().Field(i); f.Tag.Get("opt") == name {
			return rangeTags(f), true
		}
	}
	return Range{}, false
}

// String says the range as the help prints it: "1 to 64" (both bounds
// inclusive), "in [0, 1)" (one exclusive), "≥ 0", "positive" (gt 0), "> x",
// "≤ x", "< x"; "" without a bound.
func (r Range) String() string {
	lo, hi := r.Min != "" || r.Gt != "", r.Max != "" || r.Lt != ""
	switch {
	case r.Min != "" && r.Max != "":
		return r.Min + " to " + r.Max
	case lo && hi:
		l, h := "["+r.Min, r.Max+"]"
		if r.Gt != "" {
			l = "(" + r.Gt
		}
		if r.Lt != "" {
			h = r.Lt + ")"
		}
		return "in " + l + ", " + h
	case r.Min != "":
		return "≥ " + r.Min
	case r.Gt == "0":
		return "positive"
	case r.Gt != "":
		return "> " + r.Gt
	case r.Max != "":
		return "≤ " + r.Max
	case r.Lt != "":
		return "< " + r.Lt
	}
	return ""
}

// Bounded says whether the range has a bound.
func (r Range) Bounded() bool { return r != Range{} }

// Excludes0 says whether the range leaves out 0.
func (r Range) Excludes0() bool {
	return r.out(0)
}

// out says whether x is outside the range (NaN is outside any bounded
// range).
func (r Range) out(x float64) bool {
	if !r.Bounded() {
		return false
	}
	if math.IsNaN(x) {
		return true
	}
	bad := func(bound string, out func(b float64) bool) bool {
		b, err := strconv.ParseFloat(bound, 64)
		return bound != "" && err == nil && out(b)
	}
	return bad(r.Min, func(b float64) bool { return x < b }) || bad(r.Max, func(b float64) bool { return x > b }) ||
		bad(r.Gt, func(b float64) bool { return x <= b }) || bad(r.Lt, func(b float64) bool { return x >= b })
}

func rangeTags(f reflect.StructField) Range {
	return Range{Min: f.Tag.Get("min"), Max: f.Tag.Get("max"), Gt: f.Tag.Get("gt"), Lt: f.Tag.Get("lt")}
}

// inRange checks x, the value of field f's option name, against the
// field's range tags.
func inRange(f reflect.StructField, name, value string, x float64) error {
	if r := rangeTags(f); r.out(x) {
		return &RangeError{Name: name, Value: value, Range: r}
	}
	return nil
}

// typeName says what a field of type t takes on the command line.
func typeName(t reflect.Type) string {
	if reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
		return "string"
	}
	switch t.Kind() {
	case reflect.Bool:
		return ""
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "int"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Slice:
		return "list"
	}
	return "string"
}

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
			Value: fmt.Sprint(v.Field(i).Interface())})
	}
	return out
}

// Set parses value into the field of cfg (a pointer to a struct) tagged
// `opt:"name"`. It checks the syntax only; the configuration's own
// validation checks the value. Fields implementing
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
		case reflect.Int:
			n, err := strconv.Atoi(value)
			if err != nil {
				return fmt.Errorf("option %s: %q is not an integer", name, value)
			}
			f.SetInt(int64(n))
		case reflect.Float64:
			x, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return fmt.Errorf("option %s: %q is not a number", name, value)
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

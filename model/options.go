package model

import (
	"encoding"
	"fmt"
	"reflect"
	"strconv"
)

// Option is a configuration field that a command line can set: a field of
// a Config struct tagged `opt:"name"`, with its help text in a `help` tag.
type Option struct {
	Name  string // flag name, e.g. "hidden"
	Usage string // the help tag
	Bool  bool   // a switch: given alone, it means true
	Value string // the field's value in the configuration Options read
}

// Options lists the settable fields of cfg in declaration order.
func Options(cfg Config) []Option {
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

// SetOption parses value into the field of cfg tagged `opt:"name"`. It
// checks the syntax only; cfg.Validate checks the value.
func SetOption(cfg Config, name, value string) error {
	v, ok := structOf(cfg)
	if !ok {
		return fmt.Errorf("model: %T is not a pointer to a configuration struct", cfg)
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
	return fmt.Errorf("%w %q", ErrNoOption, name)
}

// ErrNoOption is wrapped by SetOption's error when the configuration has
// no field of that name: the option does not apply to the model.
var ErrNoOption = fmt.Errorf("no option")

func structOf(cfg Config) (reflect.Value, bool) {
	v := reflect.ValueOf(cfg)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	return v.Elem(), true
}

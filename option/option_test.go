package option_test

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"testing"

	"github.com/prcaps/prcaps/option"
)

type level uint8

func (l *level) UnmarshalText(b []byte) error {
	switch string(b) {
	case "low":
		*l = 0
	case "high":
		*l = 1
	default:
		return fmt.Errorf("unknown level %q", b)
	}
	return nil
}

func (l level) String() string { return [...]string{"low", "high"}[l] }

type cfg struct {
	Width int     `opt:"width" help:"the width"`
	Rate  float64 `opt:"rate" help:"the rate"`
	Name  string  `opt:"name" help:"the name"`
	On    bool    `opt:"on" help:"a switch"`
	Level level   `opt:"level" help:"low or high"`
	Plain int     // untagged: not an option
}

func TestListAndSet(t *testing.T) {
	c := cfg{Width: 3}
	opts := option.List(&c)
	if len(opts) != 5 || opts[0].Name != "width" || opts[0].Value != "3" || !opts[3].Bool || opts[4].Value != "low" {
		t.Fatalf("List = %+v", opts)
	}
	for _, kv := range [][2]string{{"width", "8"}, {"rate", "0.5"}, {"name", "x"}, {"on", "true"}, {"level", "high"}} {
		if err := option.Set(&c, kv[0], kv[1]); err != nil {
			t.Fatalf("%s=%s: %v", kv[0], kv[1], err)
		}
	}
	if c.Width != 8 || c.Rate != 0.5 || c.Name != "x" || !c.On || c.Level != 1 {
		t.Errorf("after Set: %+v", c)
	}
	for _, kv := range [][2]string{{"width", "8.5"}, {"rate", "fast"}, {"on", "maybe"}, {"level", "mid"}} {
		if err := option.Set(&c, kv[0], kv[1]); err == nil || errors.Is(err, option.ErrUnknown) {
			t.Errorf("%s=%s: error %v, want a syntax error", kv[0], kv[1], err)
		}
	}
	if err := option.Set(&c, "plain", "1"); !errors.Is(err, option.ErrUnknown) {
		t.Errorf("untagged field: %v", err)
	}
	if err := option.Set(c, "width", "1"); err == nil {
		t.Error("Set on a struct value (not a pointer) succeeded")
	}
}

// Bind makes one flag per option name over several configurations; Apply
// sets only the flags given, and names a flag the configuration lacks.
func TestBindApply(t *testing.T) {
	type other struct {
		Width int `opt:"width" help:"another width"`
		Depth int `opt:"depth" help:"the depth"`
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := option.Bind(fs, &cfg{}, &other{})
	if fs.Lookup("width").Usage != "the width" || fs.Lookup("depth") == nil {
		t.Fatal("flags not bound once per name")
	}
	if err := fs.Parse([]string{"--width", "7", "--on"}); err != nil {
		t.Fatal(err)
	}
	c := cfg{Rate: 2}
	if err := f.Apply(&c); err != nil || c.Width != 7 || !c.On || c.Rate != 2 {
		t.Errorf("Apply: %v, %+v", err, c)
	}
	if err := fs.Parse([]string{"--depth", "2"}); err != nil {
		t.Fatal(err)
	}
	var na option.NotApplicable
	if err := f.Apply(&c); !errors.As(err, &na) || na.Flag != "depth" || !errors.Is(err, option.ErrUnknown) {
		t.Errorf("Apply of --depth to cfg: %v", err)
	}
}

// switched is a configuration whose rate is read only when it is on.
type switched struct {
	On   bool    `opt:"on" help:"a switch"`
	Rate float64 `opt:"rate" help:"the rate, when on"`
}

func (s switched) Unread() map[string]string {
	if s.On {
		return nil
	}
	return map[string]string{"rate": "without --on"}
}

// Apply refuses a given flag that the configuration, as the given flags
// leave it, does not read; the same flag is taken where it is read, and an
// unread option not given is no error.
func TestApplyRefusesUnread(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // "" for no error
	}{
		{[]string{"--rate", "2"}, "--rate does not apply without --on"},
		{[]string{"--rate", "2", "--on"}, ""},
		{[]string{"--on=false", "--rate", "2"}, "--rate does not apply without --on"},
		{[]string{"--on=false"}, ""},
		{nil, ""},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f := option.Bind(fs, &switched{})
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		var s switched
		err := f.Apply(&s)
		var u option.Unread
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.want != "" && (!errors.As(err, &u) || err.Error() != c.want):
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}

// BindSources lists each source's default where they differ.
func TestBindSourcesDefaults(t *testing.T) {
	type a struct {
		Width int `opt:"width"`
	}
	type b struct {
		Width int `opt:"width" help:"the width (default 64)"`
		Depth int `opt:"depth" help:"the depth"`
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	option.BindSources(fs, option.Source{Name: "a", Config: &a{Width: 8}}, option.Source{Name: "b", Config: &b{Width: 64, Depth: 2}})
	if u := fs.Lookup("width").Usage; u != "the width (defaults: a 8, b 64)" {
		t.Errorf("width: %q", u)
	}
	if u := fs.Lookup("depth").Usage; u != "the depth" {
		t.Errorf("depth: %q", u)
	}
}

// min and max tags bound an integer option; Apply names the flag and the
// range; uint64 fields take non-negative integers.
func TestRangesAndUnsigned(t *testing.T) {
	type p struct {
		Seeds int    `opt:"seeds" min:"1" max:"100"`
		Lo    int    `opt:"lo" min:"0"`
		Seed  uint64 `opt:"seed"`
	}
	var c p
	var re *option.RangeError
	if err := option.Set(&c, "seeds", "0"); !errors.As(err, &re) || re.Want() != "must be in [1, 100]" {
		t.Errorf("seeds 0: %v", err)
	}
	if err := option.Set(&c, "lo", "-1"); !errors.As(err, &re) || re.Want() != "must be at least 0" {
		t.Errorf("lo -1: %v", err)
	}
	if err := option.Set(&c, "seeds", "100"); err != nil || c.Seeds != 100 {
		t.Errorf("seeds 100: %v, %d", err, c.Seeds)
	}
	if err := option.Set(&c, "seed", "-1"); err == nil {
		t.Error("a negative uint64 accepted")
	}
	if err := option.Set(&c, "seed", "18446744073709551615"); err != nil || c.Seed != 1<<64-1 {
		t.Errorf("largest uint64: %v", err)
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := option.Bind(fs, &c)
	fs.Parse([]string{"--seeds", "101"})
	if err := f.Apply(&c); err == nil || err.Error() != "--seeds 101: must be in [1, 100]" {
		t.Errorf("Apply --seeds 101: %v", err)
	}
}

// Range tags bound floats and unsigned integers too, gt and lt exclusively,
// and NaN is outside any bounded range: an explicit 0 where the range
// excludes it is an error even though the configuration may read a zero
// field as its default.
func TestFloatRanges(t *testing.T) {
	var c struct {
		Scale float64 `opt:"scale" gt:"0" max:"1e6"`
		Drop  float64 `opt:"drop" min:"0" lt:"1"`
		Beta  float64 `opt:"beta" lt:"-1e-4"`
		Pos   float64 `opt:"pos" gt:"0"`
		Seed  uint64  `opt:"seed" max:"9"`
		Free  float64 `opt:"free"`
	}
	for _, tc := range []struct{ name, value, want string }{
		{"scale", "0", "must be in (0, 1e6]"},
		{"scale", "1e7", "must be in (0, 1e6]"},
		{"scale", "NaN", "must be in (0, 1e6]"},
		{"drop", "1", "must be in [0, 1)"},
		{"drop", "-0.1", "must be in [0, 1)"},
		{"beta", "0", "must be less than -1e-4"},
		{"pos", "0", "must be positive"},
		{"seed", "10", "must be at most 9"},
	} {
		var re *option.RangeError
		if err := option.Set(&c, tc.name, tc.value); !errors.As(err, &re) || re.Want() != tc.want {
			t.Errorf("%s %s: error %v, want %q", tc.name, tc.value, err, tc.want)
		}
	}
	for _, kv := range [][2]string{{"scale", "1e6"}, {"drop", "0"}, {"beta", "-1"}, {"pos", "1e-300"}, {"seed", "9"}, {"free", "0"}} {
		if err := option.Set(&c, kv[0], kv[1]); err != nil {
			t.Errorf("%s %s: %v", kv[0], kv[1], err)
		}
	}
	if r, ok := option.RangeOf(&c, "scale"); !ok || !r.Excludes0() || !r.Bounded() {
		t.Errorf("scale: range %+v %v", r, ok)
	}
	if r, _ := option.RangeOf(&c, "drop"); r.Excludes0() {
		t.Errorf("drop: range %+v excludes 0", r)
	}
	if r, _ := option.RangeOf(&c, "free"); r.Bounded() {
		t.Errorf("free: range %+v", r)
	}
}

// The help prints each option's range from its tags, after the help text
// or before a closing "(default …)", so help tags need not repeat it.
func TestHelpPrintsRanges(t *testing.T) {
	type r struct {
		Hidden  int     `opt:"hidden" min:"1" max:"64" help:"the width"`
		Drop    float64 `opt:"drop" min:"0" lt:"1" help:"the dropout (default: none)"`
		Scale   float64 `opt:"scale" gt:"0" max:"1e6" help:"the scale"`
		LR      float64 `opt:"lr" gt:"0" help:"the rate"`
		Lambda  float64 `opt:"lambda" min:"0" help:"the weight"`
		Beta    float64 `opt:"beta" lt:"-1e-4" help:"the curvature"`
		Plain   int     `opt:"plain" help:"no range"`
		Untold  int     `opt:"untold" max:"8"`
		Between float64 `opt:"between" gt:"-1" lt:"1" help:"the cosine"`
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	option.Bind(fs, &r{})
	for name, want := range map[string]string{
		"hidden":  "the width, 1 to 64",
		"drop":    "the dropout, in [0, 1) (default: none)",
		"scale":   "the scale, in (0, 1e6]",
		"lr":      "the rate, positive",
		"lambda":  "the weight, ≥ 0",
		"beta":    "the curvature, < -1e-4",
		"plain":   "no range",
		"untold":  "≤ 8",
		"between": "the cosine, in (-1, 1)",
	} {
		if u := fs.Lookup(name).Usage; u != want {
			t.Errorf("%s: %q, want %q", name, u, want)
		}
	}
}

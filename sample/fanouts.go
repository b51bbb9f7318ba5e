package sample

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxLayers bounds the number of fan-outs (sampled hops).
const MaxLayers = 16

// Fanouts are the per-hop neighbour counts of a sample, hop 0 (the seeds'
// neighbours) first; −1 takes every neighbour. It reads and writes the
// command-line form "15,10".
type Fanouts []int

// ParseFanouts reads a comma-separated list of fan-outs, each a positive
// integer or −1.
func ParseFanouts(s string) (Fanouts, error) {
	var f Fanouts
	if err := f.UnmarshalText([]byte(s)); err != nil {
		return nil, err
	}
	return f, nil
}

// UnmarshalText implements encoding.TextUnmarshaler (package option).
func (f *Fanouts) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return fmt.Errorf("fan-outs: empty list (want e.g. 15,10; −1 takes every neighbour)")
	}
	parts := strings.Split(s, ",")
	out := make(Fanouts, 0, len(parts))
	for _, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return fmt.Errorf("fan-outs %q: %q is not an integer", s, p)
		}
		out = append(out, n)
	}
	if err := out.Validate(); err != nil {
		return err
	}
	*f = out
	return nil
}

// String is the comma-separated form.
func (f Fanouts) String() string {
	s := make([]string, len(f))
	for i, n := range f {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// MarshalText implements encoding.TextMarshaler.
func (f Fanouts) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// Validate reports an invalid list: empty, longer than MaxLayers, or with
// a fan-out that is neither positive nor −1.
func (f Fanouts) Validate() error {
	if len(f) == 0 || len(f) > MaxLayers {
		return fmt.Errorf("fan-outs %v: need 1 to %d hops", []int(f), MaxLayers)
	}
	for i, n := range f {
		if n < 1 && n != -1 {
			return fmt.Errorf("fan-outs %v: hop %d has fan-out %d; each must be positive, or −1 for every neighbour", []int(f), i, n)
		}
	}
	return nil
}

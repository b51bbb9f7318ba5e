package capsule

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/manifold"
)

// Every kind prints and parses as its command-line name, NewLayer builds
// the layer of each kind with the kind's parameters, and an unknown kind or
// name is an error.
func TestNewLayerKinds(t *testing.T) {
	cfg := DefaultRoutingConfig()
	cfg.Dims = manifold.Dims{S: 2, T: 1}
	for _, tc := range []struct {
		kind Kind
		name string
		curv bool // has curvatures of its own
	}{{ACR, "acr", true}, {PCR, "pcr", false}, {Euclidean, "euclidean", false}, {NoRouting, "none", false}} {
		var parsed Kind
		if err := parsed.UnmarshalText([]byte(tc.name)); err != nil || parsed != tc.kind || tc.kind.String() != tc.name {
			t.Errorf("%v: parsed %v, %v", tc.name, parsed, err)
		}
		c := cfg
		c.Kind = tc.kind
		if tc.kind == PCR {
			c.K = 1
		}
		l, err := NewLayer[float32]("l", c, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatalf("%v: %v", tc.kind, err)
		}
		if l.Kind() != tc.kind || len(l.Params()) == 0 || (len(l.CurvatureParams()) > 0) != tc.curv {
			t.Errorf("%v: a %T of kind %v, %d params, %d curvatures", tc.kind, l, l.Kind(), len(l.Params()), len(l.CurvatureParams()))
		}
		if tc.kind.OnManifold() == (tc.kind == Euclidean) {
			t.Errorf("%v: OnManifold %v", tc.kind, tc.kind.OnManifold())
		}
	}
	var k Kind
	if err := k.UnmarshalText([]byte("caps")); err == nil || !strings.Contains(err.Error(), "want acr, pcr, euclidean or none") {
		t.Errorf("unknown name: %v", err)
	}
	c := cfg
	c.Kind = Kind(9)
	if l, err := NewLayer[float32]("l", c, rand.New(rand.NewPCG(1, 2))); err == nil || l != nil {
		t.Errorf("unknown kind: %v, %v", l, err)
	}
	c.Kind, c.Iters = ACR, -1
	if l, err := NewLayer[float32]("l", c, rand.New(rand.NewPCG(1, 2))); err == nil || l != nil {
		t.Errorf("invalid routing: a non-nil %T with %v", l, err)
	}
	// A zero a kind reads is an error of NewLayer, never a default nor a
	// panic; one it does not read is no error.
	for _, tc := range []struct {
		kind Kind
		zero func(c *RoutingConfig)
		ok   bool
	}{
		{ACR, func(c *RoutingConfig) { c.K = 0 }, false},
		{ACR, func(c *RoutingConfig) { c.AlignDim = 0 }, false},
		{ACR, func(c *RoutingConfig) { c.PerspectiveBetas = nil }, false},
		{PCR, func(c *RoutingConfig) { c.Iters = 0 }, false},
		{PCR, func(c *RoutingConfig) { c.K, c.AlignDim, c.PerspectiveBetas = 0, 0, nil }, true},
		{Euclidean, func(c *RoutingConfig) { c.Iters = 0 }, false},
		{Euclidean, func(c *RoutingConfig) { c.Dims = manifold.Dims{} }, false},
		{NoRouting, func(c *RoutingConfig) { c.Dims.T = 0 }, false},
		{NoRouting, func(c *RoutingConfig) { c.Iters, c.K = 0, 0 }, true},
	} {
		c := cfg
		c.Kind = tc.kind
		tc.zero(&c)
		l, err := NewLayer[float32]("l", c, rand.New(rand.NewPCG(1, 2)))
		if (err == nil) != tc.ok || (l == nil) == tc.ok {
			t.Errorf("%v, %+v: a %T, %v", tc.kind, c, l, err)
		}
	}
	if _, err := Kind(9).MarshalText(); err == nil {
		t.Error("MarshalText of an invalid kind")
	}
}

// Ignores names RoutingConfig fields only, never the dimensions (which
// every kind reads) or the kind itself, and ACR, the full routing, reads
// every field.
func TestKindIgnores(t *testing.T) {
	rt := reflect.TypeOf(RoutingConfig{})
	for _, k := range Kinds() {
		for _, f := range k.Ignores() {
			if _, ok := rt.FieldByName(f); !ok || f == "Dims" || f == "Kind" {
				t.Errorf("%s ignores %q: not a field it may ignore", k, f)
			}
		}
	}
	if ig := ACR.Ignores(); len(ig) != 0 {
		t.Errorf("acr ignores %v", ig)
	}
}

package model

// Tests of the networks' internals. They do not import train (which
// imports model); the tests that train go in the external package
// model_test and reach the helpers below through their exported names.

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/capsule"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/manifold"
)

// LoadEmbeddedCora, LoadEmbeddedMUTAG and EqualWithin are the test helpers
// the external tests share.
var (
	LoadEmbeddedCora  = embeddedCora
	LoadEmbeddedMUTAG = embeddedMUTAG
	EqualWithin       = equalWithin
	GraphNetWithStem  = graphNetWithStem
)

func embeddedCora(t *testing.T) *data.NodeDataset {
	t.Helper()
	ds, err := data.Load("cora", data.Options{Root: t.TempDir()}) // empty root: the embedded copy
	if err != nil {
		t.Fatal(err)
	}
	return ds.Node
}

func embeddedMUTAG(t testing.TB) *data.GraphDataset {
	t.Helper()
	ds, err := data.Load("mutag", data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ds.Graph
}

// equalWithin reports whether a and b agree elementwise within tol.
func equalWithin(a, b []float32, tol float64) bool {
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > tol {
			return false
		}
	}
	return true
}

// graphNetWithStem is the default graph network with the given stem.
func graphNetWithStem(t *testing.T, ds *data.GraphDataset, stem Stem, seed uint64) *PRCapsGraphNet {
	t.Helper()
	cfg := DefaultPRCapsGraphConfig()
	cfg.Stem = stem
	m, err := NewPRCapsGraphNet(cfg, GraphShape(ds), seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The sum stem propagates with A + I: every weight of the batch's operator
// is 1, where GCN's are 1/√(d_u d_v).
func TestPRCapsGraphSumStemOperator(t *testing.T) {
	ds := embeddedMUTAG(t)
	var b data.GraphBatch
	if err := b.Build(ds, []int32{0, 5}); err != nil {
		t.Fatal(err)
	}
	for _, stem := range []Stem{StemGCN, StemSum} {
		m := graphNetWithStem(t, ds, stem, 0)
		m.prepare(&b)
		ones := 0
		for _, w := range m.a.Data {
			if w == 1 {
				ones++
			}
		}
		if want := len(m.a.Data); stem == StemSum && ones != want {
			t.Errorf("sum stem: %d of %d weights are 1", ones, want)
		} else if stem == StemGCN && ones == want {
			t.Errorf("gcn stem: all %d weights are 1", want)
		}
	}
}

// RoutingInit reaches the layers it names: "torch-graph" draws only the
// graph-level layer's prediction weights from U(±1/√fan_in), "torch" the
// node-level layers' too; by default every layer starts near I.
func TestPRCapsGraphRoutingInit(t *testing.T) {
	ds := embeddedMUTAG(t)
	nearI := func(w *autodiff.Var[float32]) bool { // every diagonal entry within 0.05 of 1
		for i := 0; i < w.Value.Rows; i++ {
			if math.Abs(float64(w.Value.Data[i*w.Value.Cols+i])-1) > 0.05 {
				return false
			}
		}
		return true
	}
	for _, tc := range []struct {
		init        RoutingInit
		node, graph bool // near I
	}{{InitIdentity, true, true}, {InitTorch, false, false}, {InitTorchGraph, true, false}} {
		cfg := DefaultPRCapsGraphConfig()
		cfg.RoutingInit = tc.init
		m, err := NewPRCapsGraphNet(cfg, GraphShape(ds), 0)
		if err != nil {
			t.Fatal(err)
		}
		r := m.node[0].(*capsule.Routing[float32])
		if got := nearI(r.Wsph[0]) && nearI(r.Weuc[0]); got != tc.node {
			t.Errorf("%s: node-level weights near I: %v, want %v", tc.init, got, tc.node)
		}
		for c := range m.graph.Wsph {
			if got := nearI(m.graph.Wsph[c][1]) && nearI(m.graph.Weuc[c][1]); got != tc.graph {
				t.Errorf("%s: class %d's weights near I: %v, want %v", tc.init, c, got, tc.graph)
			}
		}
	}
}

// The networks start PRCC at ClassifierScale (default 10).
func TestPRCapsClassifierScale(t *testing.T) {
	ds := embeddedMUTAG(t)
	cfg := DefaultPRCapsGraphConfig()
	for _, want := range []float64{cfg.ClassifierScale, 3} {
		cfg.ClassifierScale = want
		m, err := NewPRCapsGraphNet(cfg, GraphShape(ds), 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := manifold.Softplus(float64(m.prcc.Tau0.Value.Data[0])); math.Abs(got-want) > 1e-5*want {
			t.Errorf("graph network: initial scale %v, want %v", got, want)
		}
	}
}

// The stem reads the batch's sparse features: Â(X·W) + b and ∂W equal the
// dense computation on the densified X, for one-hot labels and for
// arbitrary non-zero values (TU node attributes).
func TestPRCapsGraphSparseStemMatchesDense(t *testing.T) {
	ds := embeddedMUTAG(t)
	cfg := DefaultPRCapsGraphConfig()
	m, err := NewPRCapsGraphNet(cfg, GraphShape(ds), 0)
	if err != nil {
		t.Fatal(err)
	}
	var b data.GraphBatch
	if err := b.Build(ds, []int32{0, 5, 9, 17}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for _, scaled := range []bool{false, true} {
		if scaled {
			for i := range b.X.Data {
				b.X.Data[i] = float32(rng.NormFloat64())
			}
			b.Gen++ // the values changed: rebuild the transposes
		}
		m.prepare(&b)
		dense := make([]float32, b.N*m.feats)
		for v := 0; v < b.N; v++ {
			for p := b.X.Indptr[v]; p < b.X.Indptr[v+1]; p++ {
				dense[v*m.feats+int(b.X.Indices[p])] = b.X.Data[p]
			}
		}
		run := func(sparse bool) (out, grad []float32) {
			var tp autodiff.Tape[float32]
			m.stem.W.ZeroGrad()
			var h *autodiff.Var[float32]
			if sparse {
				h = m.stem.ForwardSparse(&tp, &m.adj, m.x.Apply(0, nil, false))
			} else {
				x := tp.Node(b.N, m.feats)
				copy(x.Value.Data, dense)
				h = m.stem.Forward(&tp, &m.adj, x)
			}
			tp.Backward(autodiff.Sum(&tp, autodiff.Square(&tp, h)))
			return append([]float32(nil), h.Value.Data...), append([]float32(nil), m.stem.W.Grad.Data...)
		}
		so, sg := run(true)
		do, dg := run(false)
		if !equalWithin(so, do, 1e-5) || !equalWithin(sg, dg, 1e-4) {
			t.Errorf("scaled values %v: sparse stem differs from the dense one", scaled)
		}
	}
}

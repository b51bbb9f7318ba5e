package capsule

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// The table tests of the per-link ops (routing_cos.go, routing_inner.go,
// routing_sum.go, routing_align.go, routing_agree.go): one case per op. The
// tests of one op alone are beside it, in its own _test.go file.

// randVar returns an r×c Var of N(0, scale²) entries that requires a
// gradient.
func randVar[T autodiff.Float](rng *rand.Rand, name string, r, c int, scale float64) *autodiff.Var[T] {
	m := tensor.NewDense[T](r, c)
	for i := range m.Data {
		m.Data[i] = T(scale * rng.NormFloat64())
	}
	v := autodiff.NewVar(m, true)
	v.Name = name
	return v
}

func linkOpsGradCheck[T autodiff.Float](t *testing.T, eps, tol float64) {
	for _, mk := range []func() *Links{routingTestGraph, bipartiteTestLinks} {
		l := mk()
		ix, err := newLinkIndex(l)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(11, 11))
		C, P, E := l.Children, l.Parents, l.NumLinks()
		K, d, m := 3, 5, 4
		a := randVar[T](rng, "a", C, d, 1)
		z := randVar[T](rng, "z", P, d, 1)
		x := randVar[T](rng, "x", C, K*d, 1)
		w := randVar[T](rng, "w", E, K, 1)
		p1 := randVar[T](rng, "p1", C, K*m, 0.7)
		p2 := randVar[T](rng, "p2", P, K*m, 0.7)
		aw := randVar[T](rng, "aw", K, m, 1)
		gam := randVar[T](rng, "gamma", E, K, 1)
		c := randVar[T](rng, "c", E, 1, 1)
		b := randVar[T](rng, "b", E, 1, 1)
		h := randVar[T](rng, "h", E, K, 1)
		cases := []struct {
			name   string
			build  func(tp *autodiff.Tape[T]) *autodiff.Var[T]
			inputs []*autodiff.Var[T]
		}{
			{"cos", func(tp *autodiff.Tape[T]) *autodiff.Var[T] { return linkCos(tp, ix, a, z) }, []*autodiff.Var[T]{a, z}},
			{"inner", func(tp *autodiff.Tape[T]) *autodiff.Var[T] { return linkInner(tp, ix, x, z, K, 2) }, []*autodiff.Var[T]{x, z}},
			{"sum", func(tp *autodiff.Tape[T]) *autodiff.Var[T] { return linkSum(tp, ix, w, x, d) }, []*autodiff.Var[T]{w, x}},
			{"align", func(tp *autodiff.Tape[T]) *autodiff.Var[T] { return linkAlign(tp, ix, p1, p2, aw) }, []*autodiff.Var[T]{p1, p2, aw}},
			{"gated sum", func(tp *autodiff.Tape[T]) *autodiff.Var[T] { return linkSumGated(tp, ix, gam, c, x, d) }, []*autodiff.Var[T]{gam, c, x}},
			{"agree", func(tp *autodiff.Tape[T]) *autodiff.Var[T] { return linkAgree(tp, b, gam, h) }, []*autodiff.Var[T]{b, gam, h}},
		}
		for _, tc := range cases {
			rel, err := autodiff.GradCheck(func(tp *autodiff.Tape[T]) (*autodiff.Var[T], error) { return tc.build(tp), nil }, tc.inputs, eps)
			if err != nil {
				t.Fatal(err)
			}
			if rel > tol {
				t.Errorf("%s: relative gradient error %.3g > %g", tc.name, rel, tol)
			}
		}
	}
}

func TestLinkOpsGradients(t *testing.T) {
	t.Run("float64", func(t *testing.T) { linkOpsGradCheck[float64](t, 1e-6, 1e-6) })
	t.Run("float32", func(t *testing.T) { linkOpsGradCheck[float32](t, 1e-2, 1e-3) })
}

// linkOpRun builds one link op on copies of the inputs (converted to T),
// back-propagates a fixed upstream gradient and returns the output and the
// inputs' gradients, all as float64.
func linkOpRun[T autodiff.Float](op string, ix *linkIndex, in map[string]*tensor.Dense[float64], K, d int) (map[string][]float64, error) {
	v := map[string]*autodiff.Var[T]{}
	for name, m := range in {
		c := tensor.NewDense[T](m.Rows, m.Cols)
		for i, x := range m.Data {
			c.Data[i] = T(x)
		}
		v[name] = autodiff.NewVar(c, true)
	}
	var tp autodiff.Tape[T]
	var out *autodiff.Var[T]
	switch op {
	case "cos":
		out = linkCos(&tp, ix, v["a"], v["z"])
	case "inner":
		out = linkInner(&tp, ix, v["x"], v["z"], K, 9)
	case "sum":
		out = linkSum(&tp, ix, v["w"], v["x"], d)
	case "align":
		out = linkAlign(&tp, ix, v["p1"], v["p2"], v["aw"])
	}
	seed := tensor.NewDense[T](out.Value.Rows, out.Value.Cols)
	for i := range seed.Data {
		seed.Data[i] = T(math.Sin(float64(i)))
	}
	if err := tp.BackwardSeeded(out, seed); err != nil {
		return nil, err
	}
	res := map[string][]float64{}
	for name, x := range map[string]*autodiff.Var[T]{"out": out, "a": v["a"], "x": v["x"], "z": v["z"], "w": v["w"], "p1": v["p1"], "p2": v["p2"], "aw": v["aw"]} {
		data := x.Value.Data
		if name != "out" {
			data = x.Grad.Data
		}
		f := make([]float64, len(data))
		for i, y := range data {
			f[i] = float64(y)
		}
		res[name] = f
	}
	return res, nil
}

// The per-link ops at the default routing shapes (d = 18 with t = 9
// negated columns, K = 4, d_align = 16), whose float32 forms run the vector
// kernels (column blocks of 8 and a masked tail), agree with their
// float64 forms (portable loops, gradient-checked above), forward and
// backward, on node links with a self-loop and isolated nodes and on
// bipartite links with a parent without children.
func TestLinkOpsFloat32MatchFloat64(t *testing.T) {
	for _, mk := range []func() *Links{routingTestGraph, bipartiteTestLinks, coraLikeLinks} {
		l := mk()
		ix, err := newLinkIndex(l)
		if err != nil {
			t.Fatal(err)
		}
		ix32, _ := newLinkIndex(l)
		rng := rand.New(rand.NewPCG(7, 8))
		E := l.NumLinks()
		K, d, m := 4, 18, 16
		in := linkOpInputs(rng, l, K, d, m)
		for _, op := range []string{"cos", "inner", "sum", "align"} {
			want, err := linkOpRun[float64](op, ix, in, K, d)
			if err != nil {
				t.Fatal(err)
			}
			got, err := linkOpRun[float32](op, ix32, in, K, d)
			if err != nil {
				t.Fatal(err)
			}
			for name, w := range want {
				g := got[name]
				for i := range w {
					if math.Abs(g[i]-w[i]) > 1e-4*(1+math.Abs(w[i])) {
						t.Fatalf("%d links, %s: %s[%d] = %v in float32, %v in float64", E, op, name, i, g[i], w[i])
					}
				}
			}
		}
	}
}

// linkOpInputs returns random inputs of the link ops on l, under the names
// linkOpRun reads: K perspectives of d columns and alignment blocks of m.
func linkOpInputs(rng *rand.Rand, l *Links, K, d, m int) map[string]*tensor.Dense[float64] {
	in := map[string]*tensor.Dense[float64]{}
	for _, v := range []struct {
		name string
		r, c int
	}{{"a", l.Children, d}, {"x", l.Children, K * d}, {"z", l.Parents, d}, {"w", l.NumLinks(), K},
		{"p1", l.Children, K * m}, {"p2", l.Parents, K * m}, {"aw", K, m}} {
		in[v.name] = &randVar[float64](rng, v.name, v.r, v.c, 0.5).Value
	}
	return in
}

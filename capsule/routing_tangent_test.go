package capsule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/tensor"
)

// tangentRows returns loĝ_o of the points u (float64 reference maps).
func tangentRows(u [][]float64, beta float64, dims manifold.Dims) [][]float64 {
	a := make([][]float64, len(u))
	for i, x := range u {
		a[i] = manifold.LogOVec(x, beta, dims)
	}
	return a
}

// closeRows fails unless got (row-major) is within tol of want, relative to
// 1+|want|.
func closeRows(t *testing.T, name string, got []float64, want [][]float64, tol float64) {
	t.Helper()
	c := len(want[0])
	if len(got) != len(want)*c {
		t.Fatalf("%s: %d values, want %d×%d", name, len(got), len(want), c)
	}
	for j, w := range want {
		for k, x := range w {
			if g := got[j*c+k]; math.Abs(g-x) > tol*(1+math.Abs(x)) {
				t.Fatalf("%s[%d][%d] = %v, want %v", name, j, k, g, x)
			}
		}
	}
}

// ForwardTangent(loĝ_o(u)) is loĝ_o(Forward(u)) of the reference routing,
// including predictions that wrap, and its gradients (into a, β and every
// parameter) match finite differences.
func TestRoutingForwardTangent(t *testing.T) {
	for _, tc := range routingCases() {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.links()
			dims := tc.cfg.Dims
			beta := -1.3
			u := randTangentPoints(rand.New(rand.NewPCG(3, 3)), l.Children, beta, dims, 0.2, 4)
			r := newTestRouting[float64](t, tc.cfg, 1)
			v, _ := refRouting(r, u, beta, l)
			var tp autodiff.Tape[float64]
			a := autodiff.NewVar(denseFromRows[float64](tangentRows(u, beta, dims)), false)
			b := autodiff.NewVar(denseFromRows[float64]([][]float64{{beta}}), false)
			got := r.ForwardTangent(&tp, a, b, l)
			closeRows(t, "loĝ v", got.Value.Data, tangentRows(v, beta, dims), 1e-9)

			a = autodiff.NewVar(denseFromRows[float64](tangentRows(
				randTangentPoints(rand.New(rand.NewPCG(4, 4)), l.Children, beta, dims, 0.3, 1.2), beta, dims)), true)
			b = autodiff.NewVar(denseFromRows[float64]([][]float64{{beta}}), true)
			inputs := append(append(r.Params(), r.CurvatureParams()...), a, b)
			rel, err := autodiff.GradCheck(func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
				return r.ForwardTangent(tp, a, b, l), nil
			}, inputs, 1e-5)
			if err != nil {
				t.Fatal(err)
			}
			if rel > 1e-6 {
				t.Fatalf("relative gradient error %.3g > 1e-6", rel)
			}
		})
	}
}

// GraphRouting.ForwardTangent(loĝ_o(u)) is loĝ_o of the reference's class
// capsules, and PRCC.ForwardPerClassTangent of it gives ForwardPerClass's
// logits.
func TestGraphRoutingForwardTangent(t *testing.T) {
	for _, tc := range graphRoutingCases() {
		t.Run(tc.name, func(t *testing.T) {
			dims := tc.cfg.Dims
			beta := -1.3
			N := int(graphTestSeg[len(graphTestSeg)-1])
			u := randTangentPoints(rand.New(rand.NewPCG(3, 3)), N, beta, dims, 0.2, 4)
			g := newTestGraphRouting[float64](t, tc.cfg, tc.classes, 1)
			want := tangentRows(refGraphRouting(g, u, beta, graphTestSeg), beta, dims)
			l := ClassLinksInto(&Links{}, graphTestSeg, tc.classes)
			var tp autodiff.Tape[float64]
			a := autodiff.NewVar(denseFromRows[float64](tangentRows(u, beta, dims)), false)
			b := autodiff.NewVar(denseFromRows[float64]([][]float64{{beta}}), false)
			z := g.ForwardTangent(&tp, a, b, l)
			closeRows(t, "loĝ v", z.Value.Data, want, 1e-9)

			c := NewPRCC[float64]("c", dims, tc.classes, rand.New(rand.NewPCG(5, 5)))
			v := g.Forward(&tp, autodiff.NewVar(denseFromRows[float64](u), false), b, l)
			logits := c.ForwardPerClass(&tp, v, b)
			rows := make([][]float64, logits.Value.Rows)
			for i := range rows {
				rows[i] = logits.Value.Data[i*tc.classes : (i+1)*tc.classes]
			}
			closeRows(t, "logits", c.ForwardPerClassTangent(&tp, z, b).Value.Data, rows, 1e-9)
		})
	}
}

// The tangent forms check their inputs' shapes: ambient points where
// tangent coordinates belong panic with a message.
func TestForwardTangentShapes(t *testing.T) {
	cfg := smallRoutingConfig()
	r := newTestRouting[float64](t, cfg, 1)
	g := newTestGraphRouting[float64](t, cfg, 2, 1)
	l := routingTestGraph()
	cl := ClassLinksInto(&Links{}, graphTestSeg, 2)
	b := autodiff.NewVar(denseFromRows[float64]([][]float64{{-1}}), false)
	points := func(n int) *autodiff.Var[float64] {
		return autodiff.NewVar(tensor.NewDense[float64](n, cfg.Dims.Ambient()), false)
	}
	for name, f := range map[string]func(tp *autodiff.Tape[float64]){
		"routing": func(tp *autodiff.Tape[float64]) { r.ForwardTangent(tp, points(l.Children), b, l) },
		"graph routing": func(tp *autodiff.Tape[float64]) {
			g.ForwardTangent(tp, points(int(graphTestSeg[len(graphTestSeg)-1])), b, cl)
		},
	} {
		func() {
			defer func() {
				if e := recover(); e == nil {
					t.Errorf("%s: ambient input did not panic", name)
				} else if !strings.Contains(fmt.Sprint(e), "tangent") && !strings.Contains(fmt.Sprint(e), "want N×") {
					t.Errorf("%s: panic %q does not say what was wanted", name, e)
				}
			}()
			var tp autodiff.Tape[float64]
			f(&tp)
		}()
	}
}

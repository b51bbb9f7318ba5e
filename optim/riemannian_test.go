package optim

import (
	"math"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// sphereRun maximises Σ_r ⟨x_r, t_r⟩ over points x_r of the unit sphere
// (loss −Σ⟨x_r, t_r⟩, Euclidean gradient −t_r) for steps steps and checks
// after every step that the points stay on the sphere. It returns the final
// points and the minimisers t_r/‖t_r‖.
func sphereRun[T tensor.Float](t *testing.T, cfg Config, steps int, onTol float64) (got []T, want []float64) {
	t.Helper()
	const rows, cols = 6, 5
	target := randVals(40, rows*cols, 1)
	x := newParamFrom[T]("x", rows, cols, randVals(41, rows*cols, 1))
	unitSphere[T]{}.Proj(&x.Value)
	want = make([]float64, len(target))
	for r := range rows {
		tr := target[r*cols : (r+1)*cols]
		n := math.Sqrt(dotRow(tr, tr))
		for k := range tr {
			want[r*cols+k] = tr[k] / n
		}
	}
	opt, err := NewRiemannianAdam(cfg, Group[T]{Name: "points", Params: []*autodiff.Var[T]{x}, Manifold: unitSphere[T]{}})
	if err != nil {
		t.Fatal(err)
	}
	for s := range steps {
		opt.ZeroGrad()
		for i := range x.Grad.Data {
			x.Grad.Data[i] -= T(target[i])
		}
		if err := opt.Step(); err != nil {
			t.Fatal(err)
		}
		for r := range rows {
			xr := x.Value.Row(r)
			if d := math.Abs(math.Sqrt(dotRow(xr, xr)) - 1); !(d <= onTol) {
				t.Fatalf("step %d row %d: |‖x‖ − 1| = %.3g", s, r, d)
			}
		}
	}
	return x.Value.Data, want
}

// TestRiemannianAdamSphere checks that RiemannianAdam keeps points on the
// unit sphere over 1000 steps and reaches the minimiser of the toy loss.
func TestRiemannianAdamSphere(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"plain", Config{LR: 0.01}},
		{"stabilize", Config{LR: 0.01, Stabilize: 10}},
		{"amsgrad", Config{LR: 0.01, AMSGrad: true}},
	} {
		t.Run(tc.name+"/float64", func(t *testing.T) {
			got, want := sphereRun[float64](t, tc.cfg, 1000, 1e-12)
			assertClose(t, "minimiser", got, want, 1e-4)
		})
		t.Run(tc.name+"/float32", func(t *testing.T) {
			got, want := sphereRun[float32](t, tc.cfg, 1000, 1e-6)
			assertClose(t, "minimiser", got, want, 1e-3)
		})
	}
}

// recorder is a Euclidean test manifold that logs the order of the calls.
type recorder struct {
	euclid[float64]
	log []byte
}

func (r *recorder) Proj(*tensor.Dense[float64])              { r.log = append(r.log, 'P') }
func (r *recorder) EgradToRgrad(_, _ *tensor.Dense[float64]) { r.log = append(r.log, 'E') }
func (r *recorder) Proju(_, _ *tensor.Dense[float64])        { r.log = append(r.log, 'U') }
func (r *recorder) ComponentInner(x, u, dst *tensor.Dense[float64]) {
	r.log = append(r.log, 'C')
	r.euclid.ComponentInner(x, u, dst)
}
func (r *recorder) RetrTransp(x, u, v *tensor.Dense[float64]) {
	r.log = append(r.log, 'R')
	r.euclid.RetrTransp(x, u, v)
}

// TestRiemannianAdamCallOrder checks geoopt's order of operations: project
// the point, Riemannian gradient, component inner, retract and transport,
// and every Stabilize steps project the point and the moment again.
func TestRiemannianAdamCallOrder(t *testing.T) {
	x := newParamFrom[float64]("x", 1, 3, []float64{3, 0, 4})
	man := &recorder{}
	opt, err := NewRiemannianAdam(Config{Stabilize: 2}, Group[float64]{Params: []*autodiff.Var[float64]{x}, Manifold: man})
	if err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if err := opt.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := string(man.log), "PECR"+"PECRPU"+"PECR"+"PECRPU"; got != want {
		t.Fatalf("calls %s, want %s", got, want)
	}
}

// TestRiemannianAdamProjectsFirst checks geoopt's projection of the point
// before each step: an off-manifold start is pulled back onto the sphere.
func TestRiemannianAdamProjectsFirst(t *testing.T) {
	x := newParamFrom[float64]("x", 1, 3, []float64{3, 0, 4})
	opt, err := NewRiemannianAdam(Config{LR: 1e-3}, Group[float64]{Params: []*autodiff.Var[float64]{x}, Manifold: unitSphere[float64]{}})
	if err != nil {
		t.Fatal(err)
	}
	// A zero gradient: the step is zero, only the projections act.
	if err := opt.Step(); err != nil {
		t.Fatal(err)
	}
	assertClose(t, "projected", x.Value.Data, []float64{0.6, 0, 0.8}, 1e-15)
}

// TestRiemannianAdamRowInner checks the fallback second moment: without a
// ComponentInner it is the row inner product broadcast over the row
// (geoopt's default component_inner), so the first step moves each row by
// −lr·r/‖r‖ in the tangent space rather than −lr·sign(r).
func TestRiemannianAdamRowInner(t *testing.T) {
	const lr = 1e-3
	x := newParamFrom[float64]("x", 1, 3, []float64{1, 0, 0})
	copy(x.Grad.Data, []float64{5, -3, 4}) // Riemannian gradient (0, −3, 4), norm 5
	opt, err := NewRiemannianAdam(Config{LR: lr}, Group[float64]{Params: []*autodiff.Var[float64]{x}, Manifold: unitSphere[float64]{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := opt.Step(); err != nil {
		t.Fatal(err)
	}
	u := []float64{1, 3 * lr / 5, -4 * lr / 5} // x + u before the retraction's normalisation
	n := math.Sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2])
	assertClose(t, "first step", x.Value.Data, []float64{u[0] / n, u[1] / n, u[2] / n}, 1e-11)
}

// TestRiemannianAdamRejectsNegativeInner checks that a negative
// second-moment term (an indefinite metric) is an error that leaves the
// moments untouched, rather than a NaN in the weights.
func TestRiemannianAdamRejectsNegativeInner(t *testing.T) {
	x := newParamFrom[float64]("x", 2, 2, []float64{1, 2, 3, 4})
	copy(x.Grad.Data, []float64{1, 1, 1, 1})
	opt, err := NewRiemannianAdam(Config{}, Group[float64]{Name: "pseudo", Params: []*autodiff.Var[float64]{x}, Manifold: indefinite[float64]{}})
	if err != nil {
		t.Fatal(err)
	}
	err = opt.Step()
	if err == nil || !strings.Contains(err.Error(), "negative") || !strings.Contains(err.Error(), `"pseudo"`) {
		t.Fatalf("error %v, want a negative second-moment error naming the group", err)
	}
	assertClose(t, "unchanged", x.Value.Data, []float64{1, 2, 3, 4}, 0)
	if opt.StepCount(x) != 0 {
		t.Fatalf("StepCount = %d after a failed step", opt.StepCount(x))
	}
}

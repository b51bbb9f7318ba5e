package optim_test

import (
	"math"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/optim"
)

// The parameter manifold of package manifold satisfies the optimiser's
// contract, including both optional extensions.
var (
	_ optim.Manifold[float32]         = manifold.SphereEuclidean[float32]{}
	_ optim.ComponentInner[float32]   = manifold.SphereEuclidean[float32]{}
	_ optim.TangentProjector[float32] = manifold.SphereEuclidean[float32]{}
	_ optim.Manifold[float64]         = manifold.SphereEuclidean[float64]{}
)

// TestSphereEuclideanIntegration runs RiemannianAdam on manifold's
// SphereEuclidean rows (û on S^t, v in R^s) pulled towards a fixed target
// by ½‖x − target‖²: the sphere blocks must stay unit and reach the
// normalised target, the Euclidean blocks the target itself, and a warm Step must not allocate.
func TestSphereEuclideanIntegration(t *testing.T) {
	dims := manifold.Dims{S: 3, T: 2}
	D, T1 := dims.Ambient(), dims.T+1
	x := autodiff.NewParam[float32]("points", 4, D)
	target := make([]float32, x.Value.Len())
	for i := range target {
		x.Value.Data[i] = float32(math.Sin(float64(i)*1.3 + 0.2))
		target[i] = float32(math.Cos(float64(i) * 0.7))
	}
	opt, err := optim.NewRiemannianAdam(optim.Config{LR: 0.01, Stabilize: 10},
		optim.Group[float32]{Params: []*autodiff.Var[float32]{x}, Manifold: manifold.SphereEuclidean[float32]{Dims: dims}})
	if err != nil {
		t.Fatal(err)
	}
	step := func() {
		opt.ZeroGrad()
		for i := range x.Grad.Data {
			x.Grad.Data[i] = x.Value.Data[i] - target[i]
		}
		if err := opt.Step(); err != nil {
			t.Fatal(err)
		}
	}
	step()
	if a := testing.AllocsPerRun(20, step); a != 0 {
		t.Errorf("warm Step allocates %v times", a)
	}
	for range 1500 {
		step()
	}
	for r := range x.Value.Rows {
		row := x.Value.Row(r)
		var n float64
		for _, v := range row[:T1] {
			n += float64(v) * float64(v)
		}
		if d := math.Abs(math.Sqrt(n) - 1); d > 1e-5 {
			t.Errorf("row %d: |‖û‖ − 1| = %.3g", r, d)
		}
		// On the sphere the minimiser of ½‖û − t‖² is t/‖t‖.
		tT := target[r*D : r*D+T1]
		var tn float64
		for _, v := range tT {
			tn += float64(v) * float64(v)
		}
		for j := range T1 {
			if d := math.Abs(float64(row[j]) - float64(tT[j])/math.Sqrt(tn)); d > 1e-3 {
				t.Errorf("row %d column %d: %.3g from the minimiser", r, j, d)
			}
		}
		for j := T1; j < D; j++ {
			if d := math.Abs(float64(row[j] - target[r*D+j])); d > 1e-3 {
				t.Errorf("row %d column %d: %.3g from the target", r, j, d)
			}
		}
	}
}

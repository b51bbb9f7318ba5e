package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// composedGATv2Scores is the slow, obvious form of gatv2Scores from generic
// ops, one head at a time.
func composedGATv2Scores(t *autodiff.Tape[float64], wl, wr, a *autodiff.Var[float64], src, dst []int32, heads, out int, slope float64) *autodiff.Var[float64] {
	cols := make([]*autodiff.Var[float64], heads)
	for h := range cols {
		lo, hi := h*out, (h+1)*out
		z := autodiff.Add(t, autodiff.GatherRows(t, autodiff.SliceCols(t, wl, lo, hi), src),
			autodiff.GatherRows(t, autodiff.SliceCols(t, wr, lo, hi), dst))
		cols[h] = autodiff.MatMul(t, autodiff.LeakyReLU(t, z, slope), autodiff.SliceCols(t, a, h, h+1))
	}
	return autodiff.ConcatCols(t, cols...)
}

func TestGATv2ScoresMatchComposed(t *testing.T) {
	n, ptr, src := path4()
	var g GATGraph[float64]
	g.Reset(n, ptr, src)
	heads, out := 3, 2
	rng := rand.New(rand.NewPCG(11, 12))
	param := func(name string, r, c int) *autodiff.Var[float64] {
		v := autodiff.NewParam[float64](name, r, c)
		Uniform(v, -1, 1, rng)
		return v
	}
	wl, wr, a := param("wl", n, heads*out), param("wr", n, heads*out), param("a", out, heads)
	w := autodiff.NewVar(tensor.NewDense[float64](len(g.Src), heads), false)
	for i := range w.Value.Data {
		w.Value.Data[i] = float64(i%5) - 2
	}
	grads := func(fused bool) [][]float64 {
		var tp autodiff.Tape[float64]
		var e *autodiff.Var[float64]
		if fused {
			e = gatv2Scores(&tp, wl, wr, a, g.Src, g.Dst, heads, out, 0.2)
		} else {
			e = composedGATv2Scores(&tp, wl, wr, a, g.Src, g.Dst, heads, out, 0.2)
		}
		tp.Backward(autodiff.Sum(&tp, autodiff.Mul(&tp, e, w)))
		res := [][]float64{append([]float64(nil), e.Value.Data...)}
		for _, p := range []*autodiff.Var[float64]{wl, wr, a} {
			res = append(res, append([]float64(nil), p.Grad.Data...))
			for i := range p.Grad.Data {
				p.Grad.Data[i] = 0
			}
		}
		return res
	}
	got, want := grads(true), grads(false)
	for k, name := range []string{"scores", "∂wl", "∂wr", "∂a"} {
		for i := range want[k] {
			if math.Abs(got[k][i]-want[k][i]) > 1e-12 {
				t.Fatalf("%s[%d] = %v, composed %v", name, i, got[k][i], want[k][i])
			}
		}
	}
	rel, err := autodiff.GradCheck(func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
		return autodiff.Sum(tp, autodiff.Mul(tp, autodiff.Tanh(tp, gatv2Scores(tp, wl, wr, a, g.Src, g.Dst, heads, out, 0.2)), w)), nil
	}, []*autodiff.Var[float64]{wl, wr, a}, 1e-6)
	if err != nil || rel > 1e-6 {
		t.Errorf("gradient check: relative error %.3g, %v", rel, err)
	}
}

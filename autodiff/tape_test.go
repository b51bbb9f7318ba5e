package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

// TestReleaseGrads runs a sequence of backward passes on one tape, turning
// ReleaseGrads on and off and changing the batch size and the number of ops
// between passes (buffers that shrink and grow again, nodes beyond the
// previous pass's length), and checks every parameter gradient, bit for bit,
// against a fresh tape. After each ReleaseGrads pass every node's gradient
// must be zero up to its buffer's capacity.
func TestReleaseGrads(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const f, h = 5, 7
	w := NewParam[float64]("w", f, h)
	b := NewParam[float64]("b", 1, h)
	for _, p := range []*Var[float64]{w, b} {
		for i := range p.Value.Data {
			p.Value.Data[i] = rng.Float64() - 0.5
		}
	}
	pass := func(tp *Tape[float64], x *Var[float64], layers int) {
		tp.Reset()
		y := Tanh(tp, Add(tp, MatMul(tp, x, w), b))
		for range layers {
			y = Tanh(tp, Mul(tp, y, y))
		}
		loss := Sum(tp, Square(tp, y))
		Exp(tp, loss) // a node after the loss, which Backward skips
		w.ZeroGrad()
		b.ZeroGrad()
		if err := tp.Backward(loss); err != nil {
			t.Fatal(err)
		}
	}
	var tp Tape[float64]
	for step, tc := range []struct {
		rows, layers int
		release      bool
	}{
		{9, 2, false}, {4, 1, true}, {9, 3, true}, {12, 0, false}, {3, 3, true}, {12, 2, true}, {6, 1, true},
	} {
		x := NewVar(tensor.NewDense[float64](tc.rows, f), false)
		for i := range x.Value.Data {
			x.Value.Data[i] = rng.Float64()*2 - 1
		}
		var fresh Tape[float64]
		pass(&fresh, x, tc.layers)
		want := [][]float64{append([]float64(nil), w.Grad.Data...), append([]float64(nil), b.Grad.Data...)}
		tp.ReleaseGrads = tc.release
		pass(&tp, x, tc.layers)
		for i, p := range []*Var[float64]{w, b} {
			for j, g := range p.Grad.Data {
				if math.Float64bits(g) != math.Float64bits(want[i][j]) {
					t.Fatalf("step %d (release %v): %s grad[%d] = %v, a fresh tape gives %v", step, tc.release, p.Name, j, g, want[i][j])
				}
			}
		}
		if !tc.release {
			continue
		}
		for i, v := range tp.nodes {
			for j, g := range v.Grad.Data[:cap(v.Grad.Data)] {
				if g != 0 {
					t.Fatalf("step %d: node %d's gradient [%d] = %v after a ReleaseGrads pass", step, i, j, g)
				}
			}
		}
	}
}

// Bytes counts the values of every node and the gradients of those that
// need one; a NoGrad tape holds no gradients.
func TestTapeBytes(t *testing.T) {
	x := NewParam[float32]("x", 3, 4)
	var tp Tape[float32]
	y := Tanh(&tp, x)                                                       // 3×4 value and gradient
	Sum(&tp, MatMul(&tp, y, NewVar(tensor.NewDense[float32](4, 2), false))) // 3×2, then 1×1
	v, g := tp.Bytes()
	if v != 4*(12+6+1) || g != 4*(12+6+1) {
		t.Errorf("tape bytes %d, %d; want %d for values and gradients", v, g, 4*19)
	}
	var ev Tape[float32]
	ev.NoGrad = true
	Tanh(&ev, x)
	if v, g := ev.Bytes(); v != 48 || g != 0 {
		t.Errorf("NoGrad tape bytes %d, %d; want 48, 0", v, g)
	}
}

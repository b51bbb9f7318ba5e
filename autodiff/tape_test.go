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
// against a fresh tape. After each ReleaseGrads pass every pooled gradient
// buffer must be back in the pool and zero up to its capacity.
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
			if v.held {
				t.Fatalf("step %d: node %d still holds a pooled gradient after a ReleaseGrads pass", step, i)
			}
		}
		for _, b := range tp.pool.free {
			for j, g := range b[:cap(b)] {
				if g != 0 {
					t.Fatalf("step %d: a pooled gradient buffer has [%d] = %v", step, j, g)
				}
			}
		}
	}
}

// Bytes counts the values of every node and the gradients that Backward
// allocated: one per node that needs one, or under ReleaseGrads the pool of
// live gradients; a NoGrad tape holds no gradients.
func TestTapeBytes(t *testing.T) {
	x := NewParam[float32]("x", 3, 4)
	w := NewVar(tensor.NewDense[float32](4, 2), false)
	for _, release := range []bool{false, true} {
		tp := Tape[float32]{ReleaseGrads: release}
		y := Tanh(&tp, x)                                // 3×4
		loss := Sum(&tp, Square(&tp, MatMul(&tp, y, w))) // 3×2, 3×2, 1×1
		if v, g := tp.Bytes(); v != 4*(12+6+6+1) || g != 0 {
			t.Errorf("release %v: tape bytes %d, %d before Backward; want %d, 0", release, v, g, 4*25)
		}
		if err := tp.Backward(loss); err != nil {
			t.Fatal(err)
		}
		// Under ReleaseGrads the loss's and the square's buffers are back
		// in the pool when the product's and y's are taken: 1 + 6 are
		// reused for 6, and the 12 of y replace the 1 (too small).
		want := int64(4 * (12 + 6 + 6 + 1))
		if release {
			want = 4 * (6 + 12)
		}
		if _, g := tp.Bytes(); g != want {
			t.Errorf("release %v: gradient bytes %d after Backward, want %d", release, g, want)
		}
	}
	var ev Tape[float32]
	ev.NoGrad = true
	Tanh(&ev, x)
	if v, g := ev.Bytes(); v != 48 || g != 0 {
		t.Errorf("NoGrad tape bytes %d, %d; want 48, 0", v, g)
	}
}

// With Grow, passes whose sizes vary stop allocating once their buffers
// have grown past the sizes seen (a quarter of headroom each time one
// must grow); without it a pass larger than any before allocates.
func TestTapeGrowSettles(t *testing.T) {
	w := NewParam[float32]("w", 8, 3)
	pass := func(tp *Tape[float32], rows int, x *tensor.Dense[float32]) {
		x.Reshape(rows, 8)
		tp.Reset()
		in := NewVar(x, false)
		if err := tp.Backward(Sum(tp, Square(tp, MatMul(tp, Tanh(tp, in), w)))); err != nil {
			t.Fatal(err)
		}
	}
	for _, grow := range []bool{false, true} {
		tp := Tape[float32]{ReleaseGrads: true, Grow: grow}
		var x tensor.Dense[float32]
		x.Reshape(2000, 8)
		pass(&tp, 900, &x)
		pass(&tp, 950, &x)                                              // a larger batch: regrown, with headroom under Grow
		fixed := testing.AllocsPerRun(3, func() { pass(&tp, 950, &x) }) // the pass's own (its input Var)
		rows := 960
		allocs := testing.AllocsPerRun(3, func() {
			pass(&tp, rows, &x) // larger still, within the headroom
			rows += 10
		})
		if grow && allocs != fixed {
			t.Errorf("Grow: %v allocations per pass within the headroom, want %v as at a fixed size", allocs, fixed)
		}
		if !grow && allocs <= fixed {
			t.Error("without Grow, larger passes allocate nothing: the test does not grow the buffers")
		}
	}
}

package autodiff

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

// segInputs returns q, k, v of n rows for the segments.
func segInputs[T Float](seed uint64, n, w int) (q, k, v *Var[T]) {
	q, k, v = attnInputs[T](seed, n, n, w)
	return q, k, v
}

// SegmentAttention gives, bit for bit, the values and gradients of one
// Attention per segment on row slices with the outputs stacked (the
// composition GraphGPS used before), dropout included, empty segments
// included.
func TestSegmentAttentionMatchesPerSegment(t *testing.T) {
	seg := []int32{0, 70, 70, 75, 200, 201, 260}
	const w, heads = 12, 3
	seed := tensor.NewDense[float32](260, w)
	for i := range seed.Data {
		seed.Data[i] = float32(i%11) - 5
	}
	run := func(fused bool, release bool) (out, gq, gk, gv []float32) {
		q, k, v := segInputs[float32](3, 260, w)
		tp := Tape[float32]{ReleaseGrads: release}
		rng := rand.New(rand.NewPCG(5, 6))
		var y *Var[float32]
		if fused {
			y = SegmentAttention(&tp, q, k, v, seg, heads, 0.3, rng, true)
		} else {
			var parts []*Var[float32]
			for s := 0; s+1 < len(seg); s++ {
				lo, hi := int(seg[s]), int(seg[s+1])
				if lo == hi {
					continue
				}
				parts = append(parts, Attention(&tp, SliceRows(&tp, q, lo, hi), SliceRows(&tp, k, lo, hi), SliceRows(&tp, v, lo, hi), heads, 0.3, rng, true))
			}
			y = ConcatRows(&tp, parts...)
		}
		if err := tp.BackwardSeeded(y, seed); err != nil {
			t.Fatal(err)
		}
		return slices.Clone(y.Value.Data), q.Grad.Data, k.Grad.Data, v.Grad.Data
	}
	o0, q0, k0, v0 := run(false, false)
	for _, release := range []bool{false, true} {
		o1, q1, k1, v1 := run(true, release)
		if !slices.Equal(o0, o1) || !slices.Equal(q0, q1) || !slices.Equal(k0, k1) || !slices.Equal(v0, v1) {
			t.Errorf("release %v: SegmentAttention differs from per-segment Attention", release)
		}
	}
}

func TestSegmentAttentionGradients(t *testing.T) {
	seg := []int32{0, 3, 3, 70, 75}
	q, k, v := segInputs[float64](7, 75, 6)
	for _, p := range []float64{0, 0.4} {
		build := func(tp *Tape[float64]) (*Var[float64], error) {
			return SegmentAttention(tp, q, k, v, seg, 2, p, rand.New(rand.NewPCG(8, 9)), true), nil
		}
		rel, err := GradCheck(build, []*Var[float64]{q, k, v}, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if rel > 1e-6 {
			t.Errorf("dropout %v: relative gradient error %.3g", p, rel)
		}
	}
}

// Warm passes allocate nothing, also when the number of segments changes
// between them (fewer, then as many again).
func TestSegmentAttentionAllocatesNothing(t *testing.T) {
	q, k, v := segInputs[float32](5, 120, 16)
	var tp Tape[float32]
	tp.ReleaseGrads = true
	rng := rand.New(rand.NewPCG(1, 1))
	segs := [][]int32{{0, 40, 80, 120}, {0, 60, 120}}
	step := func(seg []int32) {
		tp.Reset()
		y := SegmentAttention(&tp, q, k, v, seg, 2, 0.5, rng, true)
		if err := tp.Backward(Sum(&tp, y)); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range segs {
		step(s)
	}
	i := 0
	if a := testing.AllocsPerRun(6, func() { step(segs[i%2]); i++ }); a != 0 {
		t.Errorf("a warm pass allocates %.1f times", a)
	}
}

func TestSegmentAttentionPanics(t *testing.T) {
	q, k, v := segInputs[float32](5, 10, 4)
	for _, seg := range [][]int32{nil, {1, 10}, {0, 9}, {0, 6, 4, 10}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("segments %v: no panic", seg)
				}
			}()
			var tp Tape[float32]
			SegmentAttention(&tp, q, k, v, seg, 2, 0, nil, false)
		}()
	}
}

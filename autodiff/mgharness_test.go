package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

// mgCase is a gradient-check case for the matrix and graph ops: shapes of
// the inputs (each a leaf requiring a gradient) and the computation.
type mgCase[T Float] struct {
	name   string
	shapes [][2]int
	build  func(t *Tape[T], in []*Var[T]) *Var[T]
}

func mgVar[T Float](rng *rand.Rand, name string, r, c int) *Var[T] {
	m := tensor.NewDense[T](r, c)
	for i := range m.Data {
		m.Data[i] = T(rng.Float64()*2 - 1)
	}
	v := NewVar(m, true)
	v.Name = name
	return v
}

// mgRun gradient-checks each case, then checks that a second backward pass
// accumulates into the input gradients instead of overwriting them.
func mgRun[T Float](t *testing.T, cases []mgCase[T], eps, tol float64) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, uint64(len(tc.name))))
			in := make([]*Var[T], len(tc.shapes))
			for k, s := range tc.shapes {
				in[k] = mgVar[T](rng, fmt.Sprintf("in%d", k), s[0], s[1])
			}
			rel, err := GradCheck(func(tp *Tape[T]) (*Var[T], error) { return tc.build(tp, in), nil }, in, eps)
			if err != nil {
				t.Fatal(err)
			}
			if rel > tol {
				t.Errorf("relative gradient error %.3g > %.3g", rel, tol)
			}
			var tp Tape[T]
			out := tc.build(&tp, in)
			for _, v := range in {
				v.ZeroGrad()
			}
			if err := tp.BackwardSeeded(out, nil); err != nil {
				t.Fatal(err)
			}
			first := make([][]T, len(in))
			for k, v := range in {
				first[k] = append([]T(nil), v.Grad.Data...)
			}
			if err := tp.BackwardSeeded(out, nil); err != nil {
				t.Fatal(err)
			}
			for k, v := range in {
				for i, g := range v.Grad.Data {
					want := 2 * float64(first[k][i])
					if math.Abs(float64(g)-want) > 1e-4*(1+math.Abs(want)) {
						t.Fatalf("input %d element %d: grad %g after two passes, want %g (Backward overwrites?)", k, i, g, want)
					}
				}
			}
		})
	}
}

// mgBoth runs cases in float64 (eps 1e-6, tolerance 1e-6) and float32
// (eps 1e-2, tolerance 1e-3), the thresholds of DESIGN.md §3.
func mgBoth(t *testing.T, mk64 func() []mgCase[float64], mk32 func() []mgCase[float32]) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // exercise the parallel paths
	t.Run("float64", func(t *testing.T) { mgRun(t, mk64(), 1e-6, 1e-6) })
	t.Run("float32", func(t *testing.T) { mgRun(t, mk32(), 1e-2, 1e-3) })
}

// mgCSR returns a random r×c sparse matrix with the given density; rows
// listed in empty have no entries.
func mgCSR[T Float](seed uint64, r, c int, density float64, empty ...int) *tensor.CSR[T] {
	rng := rand.New(rand.NewPCG(seed, 99))
	d := tensor.NewDense[T](r, c)
	for i := range d.Data {
		if rng.Float64() < density {
			d.Data[i] = T(rng.Float64()*2 - 1)
		}
	}
	for _, i := range empty {
		clear(d.Row(i))
	}
	return tensor.CSRFromDense(d)
}

// mgSegPtr builds a segment pointer from segment lengths.
func mgSegPtr(lens ...int) []int32 {
	p := make([]int32, len(lens)+1)
	for i, l := range lens {
		p[i+1] = p[i] + int32(l)
	}
	return p
}

// mgIdx returns n random indices in [0, m): many repeat when n > m.
func mgIdx(seed uint64, n, m int) []int32 {
	rng := rand.New(rand.NewPCG(seed, 5))
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(rng.IntN(m))
	}
	return idx
}

package manifold

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// Squash on AVX-512 and on AVX2 gives the Go loops' bits, forward and
// backward, for rows of 1 to 33 values, row counts across the kernels'
// groups of 8 (4 on AVX2) and calls of 64, a zero row, and rows with an
// infinity or a NaN (which the Go code takes).
func TestSquashAVX512(t *testing.T) {
	if !haveSquashAVX512 {
		t.Skip("no AVX-512")
	}
	checkSquashVec(t, "AVX-512")
}

func TestSquashAVX2(t *testing.T) {
	if !haveSquashVec {
		t.Skip("no AVX2")
	}
	defer func(v bool) { squashAVX2Only = v }(squashAVX2Only)
	squashAVX2Only = true
	checkSquashVec(t, "AVX2")
}

func checkSquashVec(t *testing.T, set string) {
	for _, c := range []int{1, 5, 8, 9, 16, 18, 33} {
		for _, rows := range []int{1, 3, 4, 5, 7, 8, 9, 64, 65, 200} {
			t.Run(fmt.Sprintf("c=%d/rows=%d", c, rows), func(t *testing.T) {
				got, want := squashRun(c, rows, false), squashRun(c, rows, true)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("value %d of %d: %v on %s, %v in Go", i, len(want), got[i], set, want[i])
					}
				}
			})
		}
	}
}

// squashRun returns squash's values and the input's gradient for random
// rows (norms from 0.01 to 30), with the kernels or the Go loops alone.
func squashRun(c, rows int, goOnly bool) []float32 {
	defer func(v bool) { squashVecOff = v }(squashVecOff)
	squashVecOff = goOnly
	rng := rand.New(rand.NewPCG(uint64(c), uint64(rows)))
	x := tensor.NewDense[float32](rows, c)
	for i := 0; i < rows; i++ {
		f := math.Exp(rng.Float64()*8 - 4.6)
		for j := 0; j < c; j++ {
			x.Data[i*c+j] = float32(f * rng.NormFloat64())
		}
	}
	if rows > 3 {
		for j := 0; j < c; j++ {
			x.Data[1*c+j] = 0 // a zero row
		}
		x.Data[2*c] = float32(math.Inf(1))
		x.Data[3*c] = float32(math.NaN())
	}
	xi := autodiff.NewVar(x, true)
	for i := range xi.Grad.Data { // the backward pass adds to what is there
		xi.Grad.Data[i] = float32(rng.NormFloat64())
	}
	var tp autodiff.Tape[float32]
	out := TangentActivation(&tp, xi, ActSquash)
	seed := tensor.NewDense[float32](rows, c)
	for i := range seed.Data {
		seed.Data[i] = float32(rng.NormFloat64())
	}
	if err := tp.BackwardSeeded(out, seed); err != nil {
		panic(err)
	}
	return append(append([]float32(nil), out.Value.Data...), xi.Grad.Data...)
}

// BenchmarkSquash32 is squash forward and backward on 10,000 rows of c
// values (the routing's d = 18, and 8 and 64), with the Go loops, the AVX2
// kernels and, where the machine has them, the AVX-512 ones.
func BenchmarkSquash32(b *testing.B) {
	defer func(off, only bool) { squashVecOff, squashAVX2Only = off, only }(squashVecOff, squashAVX2Only)
	rng := rand.New(rand.NewPCG(11, 12))
	const rows = 10000
	for _, c := range []int{8, 18, 64} {
		x := tensor.NewDense[float32](rows, c)
		seed := tensor.NewDense[float32](rows, c)
		for i := range x.Data {
			x.Data[i], seed.Data[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
		}
		xi := autodiff.NewVar(x, true)
		for _, k := range []struct {
			name      string
			off, avx2 bool
		}{{"go", true, false}, {"avx2", false, true}, {"avx512", false, false}} {
			if (!k.off && !haveSquashVec) || (k.name == "avx512" && !haveSquashAVX512) {
				continue
			}
			squashVecOff, squashAVX2Only = k.off, k.avx2
			b.Run(fmt.Sprintf("c=%d/%s", c, k.name), func(b *testing.B) {
				var tp autodiff.Tape[float32]
				for b.Loop() {
					tp.Reset()
					out := TangentActivation(&tp, xi, ActSquash)
					if err := tp.BackwardSeeded(out, seed); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

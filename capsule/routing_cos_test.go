package capsule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

func TestCosBackArgsLayout(t *testing.T) {
	want := map[string]uintptr{"ptr": 0, "link": 8, "other": 16, "g": 24, "dot": 32, "own": 40, "partner": 48,
		"w": 56, "val": 64, "grad": 72, "d": 80, "lo": 88, "hi": 96, "tail": 104}
	typ := reflect.TypeFor[cosBackArgs]()
	if typ.NumField() != len(want) || typ.Size() != 112 {
		t.Fatalf("cosBackArgs has %d fields and %d bytes, want %d and 112", typ.NumField(), typ.Size(), len(want))
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if off, ok := want[f.Name]; !ok || f.Offset != off {
			t.Errorf("field %s at offset %d, want %d", f.Name, f.Offset, off)
		}
	}
}

// linkCos's backward loops on AVX-512 give the Go loops' bits: ∂a and ∂z
// (after the aggregations that read the per-link weights) for rows of 5 to
// 64 values, on links with children and parents of 0 to 20 links (segments
// of several 8-lane chunks), zero rows (κ̂ = 0), and a gradient with zeros.
func TestLinkCosBackwardAVX512(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512")
	}
	for _, d := range []int{5, 8, 9, 16, 18, 33, 64} {
		t.Run(fmt.Sprintf("d=%d", d), func(t *testing.T) {
			got := linkCosBackRun(d, false)
			want := linkCosBackRun(d, true)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("value %d of %d: %v on AVX-512, %v in Go", i, len(want), got[i], want[i])
				}
			}
		})
	}
}

// linkCosBackRun returns linkCos's output and the gradients of a and z for
// random links of 300 children and 200 parents.
func linkCosBackRun(d int, goOnly bool) []float32 {
	defer func(v bool) { cosVecOff = v }(cosVecOff)
	cosVecOff = goOnly
	rng := rand.New(rand.NewPCG(uint64(d), 3))
	C, P := 300, 200
	l := &Links{Parents: P, Children: C, Ptr: []int32{0}}
	for j := 0; j < P; j++ {
		n := rng.IntN(21)
		if j%10 == 0 {
			n = 0
		}
		seen := map[int32]bool{}
		for len(seen) < n {
			seen[int32(rng.IntN(C))] = true
		}
		for i := int32(0); i < int32(C); i++ {
			if seen[i] {
				l.Child = append(l.Child, i)
			}
		}
		l.Ptr = append(l.Ptr, int32(len(l.Child)))
	}
	ix, err := newLinkIndex(l)
	if err != nil {
		panic(err)
	}
	a := randVar[float32](rng, "a", C, d, 1)
	z := randVar[float32](rng, "z", P, d, 1)
	for m := 0; m < d; m++ { // a zero child and a zero parent
		a.Value.Data[7*d+m], z.Value.Data[3*d+m] = 0, 0
	}
	var tp autodiff.Tape[float32]
	out := linkCos(&tp, ix, a, z)
	seed := tensor.NewDense[float32](out.Value.Rows, 1)
	for i := range seed.Data {
		if i%9 != 0 {
			seed.Data[i] = float32(rng.NormFloat64())
		}
	}
	if err := tp.BackwardSeeded(out, seed); err != nil {
		panic(err)
	}
	res := append([]float32(nil), out.Value.Data...)
	res = append(res, a.Grad.Data...)
	return append(res, z.Grad.Data...)
}

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

// linkCos's backward loops on AVX-512 and on AVX2 give the Go loops' bits:
// ∂a and ∂z (after the aggregations that read the per-link weights) for
// rows of 5 to 64 values, on links with children and parents of 0 to 20
// links (segments of several 8- or 4-lane chunks), zero rows (κ̂ = 0), and
// a gradient with zeros.
func TestLinkCosBackwardAVX512(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512")
	}
	checkLinkCosBackward(t, "AVX-512")
}

func TestLinkCosBackwardAVX2(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2")
	}
	defer func(v bool) { cosAVX2Only = v }(cosAVX2Only)
	cosAVX2Only = true
	checkLinkCosBackward(t, "AVX2")
}

func checkLinkCosBackward(t *testing.T, set string) {
	for _, d := range []int{5, 8, 9, 16, 18, 33, 64} {
		t.Run(fmt.Sprintf("d=%d", d), func(t *testing.T) {
			got := linkCosBackRun(d, false)
			want := linkCosBackRun(d, true)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("value %d of %d: %v on %s, %v in Go", i, len(want), got[i], set, want[i])
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

// BenchmarkLinkCos is linkCos forward and backward on 20,000 random links
// between 4,000 children and 2,000 parents, rows of d = 18 values (the
// routing's capsule width), with the Go loops, the AVX2 kernel and, where
// the machine has it, the AVX-512 one.
func BenchmarkLinkCos(b *testing.B) {
	defer func(off, only bool) { cosVecOff, cosAVX2Only = off, only }(cosVecOff, cosAVX2Only)
	rng := rand.New(rand.NewPCG(9, 9))
	const C, P, E, d = 4000, 2000, 20000, 18
	l := &Links{Parents: P, Children: C, Ptr: []int32{0}}
	for j := 0; j < P; j++ {
		seen := map[int32]bool{}
		for len(seen) < E/P {
			seen[int32(rng.IntN(C))] = true
		}
		for i := int32(0); i < C; i++ {
			if seen[i] {
				l.Child = append(l.Child, i)
			}
		}
		l.Ptr = append(l.Ptr, int32(len(l.Child)))
	}
	ix, err := newLinkIndex(l)
	if err != nil {
		b.Fatal(err)
	}
	a, z := randVar[float32](rng, "a", C, d, 1), randVar[float32](rng, "z", P, d, 1)
	seed := tensor.NewDense[float32](E, 1)
	for i := range seed.Data {
		seed.Data[i] = float32(rng.NormFloat64())
	}
	for _, k := range []struct {
		name      string
		off, avx2 bool
	}{{"go", true, false}, {"avx2", false, true}, {"avx512", false, false}} {
		if (!k.off && !haveAVX2) || (k.name == "avx512" && !haveAVX512) {
			continue
		}
		cosVecOff, cosAVX2Only = k.off, k.avx2
		b.Run(k.name, func(b *testing.B) {
			var tp autodiff.Tape[float32]
			for b.Loop() {
				tp.Reset()
				out := linkCos(&tp, ix, a, z)
				if err := tp.BackwardSeeded(out, seed); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// linkCos is 0 with a finite gradient when a vector is 0.
func TestLinkCosZero(t *testing.T) {
	l := routingTestGraph()
	ix, _ := newLinkIndex(l)
	rng := rand.New(rand.NewPCG(1, 2))
	a := randVar[float64](rng, "a", l.Children, 4, 1)
	z := autodiff.NewVar(tensor.NewDense[float64](l.Parents, 4), true)
	var tp autodiff.Tape[float64]
	k := linkCos(&tp, ix, a, z)
	for _, v := range k.Value.Data {
		if v != 0 {
			t.Fatalf("κ̂ = %v with z = 0", v)
		}
	}
	if err := tp.BackwardSeeded(k, nil); err != nil {
		t.Fatal(err)
	}
	for _, g := range append(a.Grad.Data, z.Grad.Data...) {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			t.Fatal("non-finite gradient at z = 0")
		}
	}
}

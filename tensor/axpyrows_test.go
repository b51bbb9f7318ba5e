package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAggregateRowsAVXMatchesGo compares the assembly row kernels with the
// portable loop over widths around the 8- and 32-column blocks, unit and
// explicit weights, accumulation, and empty rows.
func TestAggregateRowsAVXMatchesGo(t *testing.T) {
	if !haveAVX2FMA {
		t.Skip("no AVX2+FMA on this machine")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const rows = 40
	for _, c := range []int{1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 18, 20, 23, 24, 31, 32, 33, 39, 40, 64, 70} {
		h, ptr, src, w := randomRowTerms(rng, rows, c, 6, true)
		for _, weights := range [][]float32{w, nil} {
			for _, acc := range []bool{false, true} {
				got := make([]float32, rows*c)
				want := make([]float32, rows*c)
				for i := range got {
					got[i], want[i] = float32(i%7), float32(i%7)
				}
				aggregateRowsAVX(got, h, weights, c, ptr, src, acc, 0, rows)
				aggregateRowsBlas(want, h, weights, c, ptr, src, acc, 0, rows, axpyGo[float32])
				for i := range got {
					if math.Abs(float64(got[i]-want[i])) > 1e-5 {
						t.Fatalf("c=%d weighted=%v acc=%v: element %d = %v, want %v", c, weights != nil, acc, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// randomRowTerms returns h (rows × c values in [−1, 1)) and, for each of
// rows output rows, 0 to maxTerms−1 terms: their source rows of h (src,
// by the row pointer ptr) and weights in [−1, 1), a third of them zero
// when zeros is set (as dropout leaves them).
func randomRowTerms(rng *rand.Rand, rows, c, maxTerms int, zeros bool) (h []float32, ptr, src []int32, w []float32) {
	h = make([]float32, rows*c)
	for i := range h {
		h[i] = rng.Float32()*2 - 1
	}
	ptr = []int32{0}
	for v := 0; v < rows; v++ {
		for e := rng.IntN(maxTerms); e > 0; e-- {
			src = append(src, int32(rng.IntN(rows)))
			wt := rng.Float32()*2 - 1
			if zeros && rng.IntN(3) == 0 {
				wt = 0
			}
			w = append(w, wt)
		}
		ptr = append(ptr, int32(len(src)))
	}
	return h, ptr, src, w
}

func TestAggregateRejectsBadSources(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("source index outside h: no panic")
		}
	}()
	h := NewDense[float32](2, 8)
	dst := NewDense[float32](1, 8)
	Aggregate(dst, []int32{0, 1}, []int32{2}, nil, h, false)
}

// maxSource finds the largest index (a negative one counting as the
// largest) at every position of lengths on and off the 16-index vector
// blocks, and checkSources panics exactly when that index is not a row.
func TestCheckSources(t *testing.T) {
	for _, n := range []int{0, 1, 15, 16, 17, 32, 45, 100} {
		for pos := 0; pos < n; pos++ {
			for _, bad := range []int32{-1, 7, 6, math.MaxInt32} {
				src := make([]int32, n)
				for i := range src {
					src[i] = int32(i % 6)
				}
				src[pos] = bad
				want := uint32(bad)
				for _, s := range src {
					want = max(want, uint32(s))
				}
				if got := maxSource(src); got != want {
					t.Fatalf("n=%d, %d at %d: maxSource = %d, want %d", n, bad, pos, got, want)
				}
				panicked := func() (p bool) {
					defer func() { p = recover() != nil }()
					checkSources(src, 7)
					return
				}()
				if wantPanic := bad < 0 || bad >= 7; panicked != wantPanic {
					t.Fatalf("n=%d, %d at %d among 7 rows: panic %v, want %v", n, bad, pos, panicked, wantPanic)
				}
			}
		}
	}
	if maxSource(nil) != 0 {
		t.Fatal("maxSource(nil) != 0")
	}
}

// TestAggregateGroupsMatchesAggregate checks that AggregateGroups gives
// Aggregate's bits on the structure written out row by row: groups of g
// rows with the same sources and their own weights, odd and even g (an odd
// group's last row goes alone), empty groups, the last row of h as a
// source, widths inside and outside the paired kernel's 17-23 columns, and
// the float64 and no-AVX2 paths.
func TestAggregateGroupsMatchesAggregate(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const groups, hRows = 30, 25
	for _, c := range []int{8, 16, 17, 18, 23, 24, 40} {
		h := NewDense[float32](hRows, c)
		for i := range h.Data {
			h.Data[i] = rng.Float32()*2 - 1
		}
		for _, g := range []int{1, 2, 3, 4} {
			gptr, ptr := []int32{0}, []int32{0}
			var gsrc, src []int32
			var w []float32
			for range groups {
				links := make([]int32, rng.IntN(7)) // some groups empty
				for i := range links {
					links[i] = int32(rng.IntN(hRows))
				}
				if len(links) > 0 && rng.IntN(4) == 0 {
					links[0] = hRows - 1
				}
				gsrc = append(gsrc, links...)
				gptr = append(gptr, int32(len(gsrc)))
				for range g {
					for _, s := range links {
						src = append(src, s)
						w = append(w, rng.Float32()*2-1)
					}
					ptr = append(ptr, int32(len(src)))
				}
			}
			for _, acc := range []bool{false, true} {
				start := func(r, c int) *Dense[float32] {
					m := NewDense[float32](r, c)
					for i := range m.Data {
						m.Data[i] = float32(i%5) - 2
					}
					return m
				}
				got, want, grouped := start(groups*g, c), start(groups*g, c), start(groups*g, c)
				AggregateGroups(got, gptr, gsrc, w, h, g, acc)
				Aggregate(want, ptr, src, w, h, acc)
				var gr Groups
				if err := gr.Set(gptr, gsrc, g); err != nil {
					t.Fatal(err)
				}
				AggregateGrouped(grouped, &gr, w, h, acc)
				// The no-AVX2 path and float64 against Aggregate's.
				plain := start(groups*g, c)
				aggregateGroupsBlas(plain.Data, h.Data, w, c, gptr, gsrc, acc, 0, groups, g, axpyGo[float32])
				h64, w64 := NewDense[float64](hRows, c), make([]float64, len(w))
				for i, v := range h.Data {
					h64.Data[i] = float64(v)
				}
				for i, v := range w {
					w64[i] = float64(v)
				}
				got64, want64 := NewDense[float64](groups*g, c), NewDense[float64](groups*g, c)
				AggregateGroups(got64, gptr, gsrc, w64, h64, g, acc)
				Aggregate(want64, ptr, src, w64, h64, acc)
				for i := range got.Data {
					if math.Float32bits(got.Data[i]) != math.Float32bits(want.Data[i]) {
						t.Fatalf("c=%d g=%d acc=%v: element %d = %v, Aggregate gives %v", c, g, acc, i, got.Data[i], want.Data[i])
					}
					if math.Float32bits(grouped.Data[i]) != math.Float32bits(want.Data[i]) {
						t.Fatalf("c=%d g=%d acc=%v: AggregateGrouped element %d = %v, Aggregate gives %v", c, g, acc, i, grouped.Data[i], want.Data[i])
					}
					if d := math.Abs(float64(plain.Data[i] - want.Data[i])); d > 1e-5 {
						t.Fatalf("c=%d g=%d acc=%v: Go path element %d = %v, Aggregate gives %v", c, g, acc, i, plain.Data[i], want.Data[i])
					}
					if math.Float64bits(got64.Data[i]) != math.Float64bits(want64.Data[i]) {
						t.Fatalf("c=%d g=%d acc=%v: float64 element %d = %v, Aggregate gives %v", c, g, acc, i, got64.Data[i], want64.Data[i])
					}
				}
			}
		}
	}
}

// Groups.Set rejects group pointers that do not describe src and groups
// of no rows, AggregateGroups panics on them, and AggregateGrouped checks
// the shapes and that the sources are rows of h on every call.
func TestGroupsRejectsBadInput(t *testing.T) {
	var gr Groups
	for _, tc := range []struct {
		ptr, src []int32
		g        int
	}{
		{[]int32{1, 2}, []int32{0, 0}, 1},          // does not start at 0
		{[]int32{0, 2, 1, 3}, []int32{0, 0, 0}, 2}, // decreasing
		{[]int32{0, 1}, []int32{0, 0}, 1},          // does not end at len(src)
		{[]int32{0, 1}, []int32{0}, 0},             // groups of no rows
		{nil, nil, 1},
	} {
		if err := gr.Set(tc.ptr, tc.src, tc.g); err == nil {
			t.Errorf("ptr %v over %d sources in groups of %d accepted", tc.ptr, len(tc.src), tc.g)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("AggregateGroups: ptr %v over %d sources in groups of %d: no panic", tc.ptr, len(tc.src), tc.g)
				}
			}()
			AggregateGroups(NewDense[float32](2, 8), tc.ptr, tc.src, nil, NewDense[float32](4, 8), tc.g, false)
		}()
	}
	if err := gr.Set([]int32{0, 1, 2}, []int32{3, 3}, 2); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		hRows, dst int
		weights    int
	}{{"a source outside h", 3, 4, 4}, {"wrong dst rows", 4, 3, 4}, {"wrong weight count", 4, 4, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			AggregateGrouped(NewDense[float32](tc.dst, 8), &gr, make([]float32, tc.weights), NewDense[float32](tc.hRows, 8), false)
		})
	}
}

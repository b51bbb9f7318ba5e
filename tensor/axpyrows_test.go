package tensor

import (
	"math"
	"math/rand/v2"
	"slices"
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
		h := make([]float32, rows*c)
		for i := range h {
			h[i] = rng.Float32()*2 - 1
		}
		ptr := []int32{0}
		var src []int32
		var w []float32
		for v := 0; v < rows; v++ {
			for e := rng.IntN(6); e > 0; e-- { // some rows empty
				src = append(src, int32(rng.IntN(rows)))
				wt := rng.Float32()
				if rng.IntN(3) == 0 {
					wt = 0 // dropped by dropout: skipped
				}
				w = append(w, wt)
			}
			ptr = append(ptr, int32(len(src)))
		}
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

// equalInt32s agrees with slices.Equal for a difference at every position
// of lengths on and off the 8-index blocks, and for unequal lengths.
func TestEqualInt32s(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 16, 23, 40} {
		a := make([]int32, n)
		for i := range a {
			a[i] = int32(i * 7)
		}
		if !equalInt32s(a, slices.Clone(a)) {
			t.Fatalf("n=%d: equal slices reported unequal", n)
		}
		for pos := range n {
			b := slices.Clone(a)
			b[pos]++
			if equalInt32s(a, b) {
				t.Fatalf("n=%d: a difference at %d not seen", n, pos)
			}
		}
		if n > 0 && equalInt32s(a, a[:n-1]) {
			t.Fatalf("n=%d: unequal lengths reported equal", n)
		}
	}
}

// TestAggregateGroupsMatchesAggregate checks that AggregateGroups gives
// Aggregate's bits: groups of g rows with the same sources and their own
// weights, odd and even g (an odd group's last row goes alone), empty
// groups, the last row of h as a source, and widths inside and outside the
// paired kernel's 17-23 columns.
func TestAggregateGroupsMatchesAggregate(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const groups, hRows = 30, 25
	for _, c := range []int{8, 16, 17, 18, 23, 24, 40} {
		h := NewDense[float32](hRows, c)
		for i := range h.Data {
			h.Data[i] = rng.Float32()*2 - 1
		}
		for _, g := range []int{1, 2, 3, 4} {
			ptr := []int32{0}
			var src []int32
			var w []float32
			for range groups {
				links := make([]int32, rng.IntN(7)) // some groups empty
				for i := range links {
					links[i] = int32(rng.IntN(hRows))
				}
				if len(links) > 0 && rng.IntN(4) == 0 {
					links[0] = hRows - 1
				}
				for range g {
					for _, s := range links {
						src = append(src, s)
						w = append(w, rng.Float32()*2-1)
					}
					ptr = append(ptr, int32(len(src)))
				}
			}
			for _, acc := range []bool{false, true} {
				got := NewDense[float32](groups*g, c)
				want := NewDense[float32](groups*g, c)
				for i := range got.Data {
					got.Data[i] = float32(i%5) - 2
					want.Data[i] = got.Data[i]
				}
				grouped := NewDense[float32](groups*g, c)
				copy(grouped.Data, got.Data)
				AggregateGroups(got, ptr, src, w, h, g, acc)
				Aggregate(want, ptr, src, w, h, acc)
				var gr Groups
				if err := gr.Set(ptr, src, g); err != nil {
					t.Fatal(err)
				}
				AggregateGrouped(grouped, &gr, w, h, acc)
				for i := range got.Data {
					if math.Float32bits(got.Data[i]) != math.Float32bits(want.Data[i]) {
						t.Fatalf("c=%d g=%d acc=%v: element %d = %v, Aggregate gives %v", c, g, acc, i, got.Data[i], want.Data[i])
					}
					if math.Float32bits(grouped.Data[i]) != math.Float32bits(want.Data[i]) {
						t.Fatalf("c=%d g=%d acc=%v: AggregateGrouped element %d = %v, Aggregate gives %v", c, g, acc, i, grouped.Data[i], want.Data[i])
					}
				}
			}
		}
	}
}

// Groups.Set rejects row pointers that do not describe src, and
// AggregateGrouped checks the shapes and that the sources are rows of h on
// every call.
func TestGroupsRejectsBadInput(t *testing.T) {
	var gr Groups
	for _, tc := range []struct {
		ptr, src []int32
	}{
		{[]int32{1, 2}, []int32{0, 0}},          // does not start at 0
		{[]int32{0, 2, 1, 3}, []int32{0, 0, 0}}, // decreasing
		{[]int32{0, 1}, []int32{0, 0}},          // does not end at len(src)
		{nil, nil},
	} {
		if err := gr.Set(tc.ptr, tc.src, 1); err == nil {
			t.Errorf("ptr %v over %d sources accepted", tc.ptr, len(tc.src))
		}
	}
	if err := gr.Set([]int32{0, 1, 2}, []int32{3, 3}, 2); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		hRows, dst int
	}{{"a source outside h", 3, 2}, {"wrong dst rows", 4, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			AggregateGrouped(NewDense[float32](tc.dst, 8), &gr, []float32{1, 1}, NewDense[float32](tc.hRows, 8), false)
		})
	}
}

// longGroup returns the sources of g rows of n sources each, all 0 or 1
// alike except at position bad, which reads the other row.
func longGroup(g, n, bad int) []int32 {
	src := make([]int32, g*n)
	for i := range src {
		src[i] = int32(i % n % 2)
	}
	src[bad] = 1 - src[bad]
	return src
}

func TestAggregateGroupsRejectsBadGroups(t *testing.T) {
	h := NewDense[float32](2, 18)
	for _, tc := range []struct {
		name     string
		rows     int
		ptr, src []int32
	}{
		{"3 rows in groups of 2", 3, []int32{0, 0, 0, 0}, nil},
		{"other sources", 2, []int32{0, 1, 2}, []int32{0, 1}},
		{"fewer sources", 2, []int32{0, 2, 3}, []int32{0, 1, 0}},
		{"a long row's last source", 4, []int32{0, 10, 20, 30, 40}, longGroup(4, 10, 29)},
		{"a long row's first source", 4, []int32{0, 10, 20, 30, 40}, longGroup(4, 10, 30)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			dst := NewDense[float32](tc.rows, 18)
			g := 2
			if tc.rows == 4 {
				g = 4
			}
			var gr Groups
			if err := gr.Set(tc.ptr, tc.src, g); err == nil {
				t.Error("Groups.Set accepted the structure")
			}
			AggregateGroups(dst, tc.ptr, tc.src, make([]float32, len(tc.src)), h, g, false)
		})
	}
}

package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TransposedSpMM gives SpMM's bits on the formed transpose, for widths
// below, at and across the kernels' blocks of 8, 16-23, 32 and 64 columns,
// with and without accumulation, on one goroutine and four. The sparse
// matrix has dropped entries (zero values, some −0), empty rows and
// columns, and columns of one entry (whose odd chain stays zero: a −0 sum
// becomes +0, as in SpMM's kernels).
func TestTransposedSpMM(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, c := range []int{1, 5, 8, 9, 16, 18, 23, 31, 32, 33, 64, 70, 100} {
		for _, acc := range []bool{true, false} {
			t.Run(fmt.Sprintf("c=%d/acc=%v/float32", c, acc), func(t *testing.T) { checkTransposedSpMM[float32](t, c, acc) })
			t.Run(fmt.Sprintf("c=%d/acc=%v/float64", c, acc), func(t *testing.T) { checkTransposedSpMM[float64](t, c, acc) })
		}
	}
}

func checkTransposedSpMM[T Float](t *testing.T, c int, acc bool) {
	rng := rand.New(rand.NewPCG(uint64(c), 9))
	rows, cols := 900, 300
	a := randCSR[T](rng, rows, cols, 0.02)
	for i := range a.Data {
		switch rng.IntN(10) {
		case 0:
			a.Data[i] = 0
		case 1:
			a.Data[i] = T(math.Copysign(0, -1))
		}
	}
	// Empty rows of a, and columns with a single entry.
	for i := 0; i < rows; i += 7 {
		n := a.Indptr[i+1] - a.Indptr[i]
		a.Indices = append(a.Indices[:a.Indptr[i]], a.Indices[a.Indptr[i+1]:]...)
		a.Data = append(a.Data[:a.Indptr[i]], a.Data[a.Indptr[i+1]:]...)
		for j := i + 1; j <= rows; j++ {
			a.Indptr[j] -= n
		}
	}
	for f := cols - 20; f < cols; f++ { // the last 20 columns: one entry each, −0 terms among them
		for q := range a.Indices {
			if int(a.Indices[q]) == f {
				a.Indices[q] = int32(f - 20)
			}
		}
	}
	for k, i := range []int{3, 10, 500} {
		// A single entry: column cols−1−k in row i (appended: rows keep
		// their columns increasing).
		e := a.Indptr[i+1]
		a.Indices = append(a.Indices[:e], append([]int32{int32(cols - 1 - k)}, a.Indices[e:]...)...)
		a.Data = append(a.Data[:e], append([]T{T(math.Copysign(0, -1))}, a.Data[e:]...)...)
		for j := i + 1; j <= rows; j++ {
			a.Indptr[j]++
		}
	}
	b := randDense[T](rng, rows, c)
	for i := 0; i < len(b.Data); i += 11 {
		b.Data[i] = T(math.Copysign(0, -1))
	}
	start := randDense[T](rng, cols, c)
	for i := 0; i < len(start.Data); i += 5 {
		start.Data[i] = T(math.Copysign(0, -1))
	}
	at, _ := a.Transpose()
	want := start.Clone()
	SpMM(want, at, b, acc)
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		got := start.Clone()
		TransposedSpMM(got, a, b, acc)
		for i, v := range want.Data {
			if !bitsEqual(got.Data[i], v) {
				t.Fatalf("GOMAXPROCS %d: element %d (row %d, column %d): %v, SpMM on the transpose %v", procs, i, i/c, i%c, got.Data[i], v)
			}
		}
	}
}

// TransposedSpMM names a column index outside a's columns.
func TestTransposedSpMMRejects(t *testing.T) {
	a := &CSR[float32]{Rows: 2, Cols: 3, Indptr: []int32{0, 1, 2}, Indices: []int32{0, 3}, Data: []float32{1, 1}}
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a column index of 3 in a 3-column matrix")
		}
	}()
	TransposedSpMM(NewDense[float32](3, 8), a, NewDense[float32](2, 8), true)
}

// BenchmarkTransposedSpMM is the weight gradient of a sparse input layer
// of 64 columns for features shaped as Cora's (2,708 × 1,433, about 18 a
// row), CiteSeer's, the generated graphs' of 10^5 and 10^6 edges (500
// columns, 10 a row) and Coauthor CS's (18,333 × 6,805, about 60 a row):
// TransposedSpMM from the features' rows against SpMM on their kept
// transpose, which a dropout step must also refresh (transpose-values).
func BenchmarkTransposedSpMM(b *testing.B) {
	for _, sh := range []struct {
		name            string
		rows, cols, nnz int
	}{{"cora", 2708, 1433, 18}, {"citeseer", 3327, 3703, 32}, {"sbm1e5", 10000, 500, 10}, {"sbm1e6", 100000, 500, 10}, {"cs", 18333, 6805, 60}} {
		rng := rand.New(rand.NewPCG(1, 2))
		c := 64
		a := &CSR[float32]{Rows: sh.rows, Cols: sh.cols, Indptr: make([]int32, sh.rows+1)}
		for i := 0; i < sh.rows; i++ {
			seen := map[int32]bool{}
			for len(seen) < sh.nnz {
				seen[int32(rng.IntN(sh.cols))] = true
			}
			for f := int32(0); f < int32(sh.cols); f++ {
				if seen[f] {
					a.Indices = append(a.Indices, f)
					a.Data = append(a.Data, 1)
				}
			}
			a.Indptr[i+1] = int32(len(a.Indices))
		}
		g := randDense[float32](rng, sh.rows, c)
		dst := NewDense[float32](sh.cols, c)
		at, perm := a.Transpose()
		b.Run(sh.name+"/rows", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				TransposedSpMM(dst, a, g, true)
			}
		})
		b.Run(sh.name+"/transpose", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				SpMM(dst, at, g, true)
			}
		})
		b.Run(sh.name+"/transpose-values", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				TransposeValues(at, a, perm)
				SpMM(dst, at, g, true)
			}
		})
	}
}

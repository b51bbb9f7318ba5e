package tensor

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// coraX is a random stand-in for Cora's input: 2708×1433 at 1.3% non-zeros.
func coraX[T Float]() *CSR[T] {
	return randCSR[T](rand.New(rand.NewPCG(11, 11)), 2708, 1433, 0.013)
}

// randGraph returns a CSR-by-target graph on n nodes with about deg random
// in-arcs per node (unsorted duplicates allowed in the benchmark).
func randGraph[T Float](n, deg int) *CSR[T] {
	rng := rand.New(rand.NewPCG(12, 12))
	g := &CSR[T]{Rows: n, Cols: n, Indptr: make([]int32, n+1)}
	for v := 0; v < n; v++ {
		d := rng.IntN(2*deg + 1)
		for i := 0; i < d; i++ {
			g.Indices = append(g.Indices, int32(rng.IntN(n)))
			g.Data = append(g.Data, T(rng.Float64()))
		}
		g.Indptr[v+1] = int32(len(g.Indices))
	}
	return g
}

func BenchmarkGemm(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, s := range []struct {
		m, k, n int
		ta, tb  bool
	}{
		{2708, 64, 18, false, false},   // Linear(64→18) at Cora size
		{64, 2708, 18, true, false},    // its weight gradient, Xᵀ∂Y
		{2708, 18, 64, false, true},    // its input gradient, ∂Y Wᵀ
		{2708, 64, 64, false, false},   // hidden 64→64
		{512, 512, 512, false, false},  // square
		{128, 9, 36, false, false},     // routing's predictions in a 128-node micro-batch
		{128, 18, 64, false, false},    // its alignment half a·W1
		{128, 36, 9, false, true},      // the predictions' input gradient ∂X·Wᵀ
		{18, 284, 64, true, false},     // a DD graph's alignment weight gradient aᵀ·∂P1
		{2708, 128, 128, false, false}, // a 128-wide hidden layer (TGNN) at Cora size
		{128, 2708, 128, true, false},  // its weight gradient Hᵀ∂Y
		{2708, 128, 128, false, true},  // its input gradient ∂Y·Wᵀ
	} {
		b.Run(fmt.Sprintf("%dx%dx%d_tA=%v_tB=%v", s.m, s.k, s.n, s.ta, s.tb), func(b *testing.B) {
			ar, ac, br, bc := s.m, s.k, s.k, s.n
			if s.ta {
				ar, ac = ac, ar
			}
			if s.tb {
				br, bc = bc, br
			}
			x, y, c := randDense[float32](rng, ar, ac), randDense[float32](rng, br, bc), NewDense[float32](s.m, s.n)
			b.ReportAllocs()
			b.SetBytes(int64(4 * (x.Len() + y.Len() + c.Len())))
			stop := startCPU(b)
			for b.Loop() {
				Gemm(c, x, y, s.ta, s.tb, 1, 0)
			}
			stop()
			b.ReportMetric(float64(2*s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

func BenchmarkSpMM(b *testing.B) {
	x := coraX[float32]()
	rng := rand.New(rand.NewPCG(2, 2))
	for _, n := range []int{16, 64} {
		w := randDense[float32](rng, 1433, n)
		y := NewDense[float32](2708, n)
		b.Run(fmt.Sprintf("cora_2708x1433_nnz%d_x%d", x.NNZ(), n), func(b *testing.B) {
			b.ReportAllocs()
			stop := startCPU(b)
			for b.Loop() {
				SpMM(y, x, w, false)
			}
			stop()
		})
	}
}

func BenchmarkSpMMT(b *testing.B) {
	x := coraX[float32]()
	rng := rand.New(rand.NewPCG(3, 3))
	dy := randDense[float32](rng, 2708, 64)
	dw := NewDense[float32](1433, 64)
	b.Run("cora_partitioned", func(b *testing.B) {
		b.ReportAllocs()
		stop := startCPU(b)
		for b.Loop() {
			SpMMT(dw, x, dy, true)
		}
		stop()
	})
	// The alternative: a transpose built once, values refreshed per step
	// (as after dropout), then a row-parallel SpMM.
	xt, perm := x.Transpose()
	b.Run("cora_transpose_spmm", func(b *testing.B) {
		b.ReportAllocs()
		stop := startCPU(b)
		for b.Loop() {
			TransposeValues(xt, x, perm)
			SpMM(dw, xt, dy, true)
		}
		stop()
	})
}

func BenchmarkAggregate(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, s := range []struct{ n, deg, c int }{{2708, 5, 64}, {2708, 5, 16}, {100000, 10, 16}, {200000, 5, 64}} {
		g := randGraph[float32](s.n, s.deg)
		h := randDense[float32](rng, s.n, s.c)
		out := NewDense[float32](s.n, s.c)
		b.Run(fmt.Sprintf("n%d_arcs%d_c%d", s.n, g.NNZ(), s.c), func(b *testing.B) {
			b.ReportAllocs()
			stop := startCPU(b)
			for b.Loop() {
				SpMM(out, g, h, false)
			}
			stop()
		})
	}
}

func BenchmarkGatherScatter(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, e := range []int{10000, 100000, 1000000} {
		n := max(e/10, 1)
		h := randDense[float32](rng, n, 16)
		idx := make([]int32, e)
		for i := range idx {
			idx[i] = int32(rng.IntN(n))
		}
		g := NewDense[float32](e, 16)
		b.Run(fmt.Sprintf("GatherRows_%d_x16", e), func(b *testing.B) {
			b.ReportAllocs()
			stop := startCPU(b)
			for b.Loop() {
				GatherRows(g, h, idx, false)
			}
			stop()
		})
		b.Run(fmt.Sprintf("IndexAddRows_%d_x16", e), func(b *testing.B) {
			b.ReportAllocs()
			stop := startCPU(b)
			for b.Loop() {
				IndexAddRows(h, g, idx, true)
			}
			stop()
		})
		seg := randGraph[float32](n, 10).Indptr
		items := NewDense[float32](int(seg[n]), 16)
		sums := NewDense[float32](n, 16)
		b.Run(fmt.Sprintf("ScatterAddRows_%d_x16", seg[n]), func(b *testing.B) {
			b.ReportAllocs()
			stop := startCPU(b)
			for b.Loop() {
				ScatterAddRows(sums, items, seg, false)
			}
			stop()
		})
	}
}

func BenchmarkSegmentSoftmax(b *testing.B) {
	rng := rand.New(rand.NewPCG(6, 6))
	for _, e := range []int{10000, 100000, 1000000} {
		n := e / 5
		seg := randGraph[float32](n, 5).Indptr
		x := randSlice[float32](rng, int(seg[n]))
		y, dx := make([]float32, len(x)), make([]float32, len(x))
		b.Run(fmt.Sprintf("fwd_%d", len(x)), func(b *testing.B) {
			b.ReportAllocs()
			stop := startCPU(b)
			for b.Loop() {
				SegmentSoftmax(y, x, seg)
			}
			stop()
		})
		b.Run(fmt.Sprintf("bwd_%d", len(x)), func(b *testing.B) {
			b.ReportAllocs()
			stop := startCPU(b)
			for b.Loop() {
				SegmentSoftmaxBackward(dx, y, x, seg, true)
			}
			stop()
		})
	}
}

func BenchmarkDropoutCSR(b *testing.B) {
	x := coraX[float32]()
	var dst CSR[float32]
	rng := rand.New(rand.NewPCG(7, 7))
	b.ReportAllocs()
	stop := startCPU(b)
	for b.Loop() {
		DropoutCSR(&dst, x, 0.5, rng)
	}
	stop()
}

// BenchmarkTransposeInto is Gemm's transpose of a weight gradient's narrow
// operand: a DD graph's N×18 and N×9 inputs, and a 128-node micro-batch's.
func BenchmarkTransposeInto(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, s := range [][2]int{{284, 18}, {284, 9}, {128, 18}} {
		b.Run(fmt.Sprintf("%dx%d", s[0], s[1]), func(b *testing.B) {
			m, dst := randDense[float32](rng, s[0], s[1]), NewDense[float32](s[1], s[0])
			for b.Loop() {
				transposeInto(dst, m)
			}
		})
	}
}

// BenchmarkGatherDotLarge times the per-link dot products of routing (rows of
// 18 columns, the tangent dimension d) over random rows of tables from
// cache-sized to memory-sized, where the row fetches dominate.
func BenchmarkGatherDotLarge(b *testing.B) {
	rng := rand.New(rand.NewPCG(6, 6))
	for _, rows := range []int{10_000, 1_000_000, 8_000_000} {
		h := randDense[float32](rng, rows, 18)
		idx := make([]int32, 1<<20)
		for i := range idx {
			idx[i] = int32(rng.IntN(rows))
		}
		q := make([]float32, 18)
		dst := make([]float32, len(idx))
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			for b.Loop() {
				GatherDot(dst, q, h, idx, false)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(idx)), "ns/row")
		})
	}
}

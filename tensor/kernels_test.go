package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

func randDense[T Float](rng *rand.Rand, r, c int) *Dense[T] {
	m := NewDense[T](r, c)
	for i := range m.Data {
		m.Data[i] = T(rng.Float64()*2 - 1)
	}
	return m
}

func randCSR[T Float](rng *rand.Rand, r, c int, density float64) *CSR[T] {
	m := &CSR[T]{Rows: r, Cols: c, Indptr: make([]int32, r+1)}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if rng.Float64() < density {
				m.Indices = append(m.Indices, int32(j))
				m.Data = append(m.Data, T(rng.Float64()*2-1))
			}
		}
		m.Indptr[i+1] = int32(len(m.Indices))
	}
	return m
}

// randSegPtr returns a segment pointer over nseg segments with lengths in
// [0, maxLen]; about a third of the segments are empty.
func randSegPtr(rng *rand.Rand, nseg, maxLen int) []int32 {
	p := make([]int32, nseg+1)
	for s := 0; s < nseg; s++ {
		l := 0
		if rng.IntN(3) != 0 {
			l = rng.IntN(maxLen + 1)
		}
		p[s+1] = p[s] + int32(l)
	}
	return p
}

func randSlice[T Float](rng *rand.Rand, n int) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = T(rng.Float64()*4 - 2)
	}
	return x
}

func tol[T Float]() float64 {
	var z T
	if _, ok := any(z).(float32); ok {
		return 2e-4
	}
	return 1e-11
}

func closeSlices[T Float](t *testing.T, name string, got, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", name, len(got), len(want))
	}
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if math.Abs(g-w) > tol[T]()*(1+math.Abs(w)) || math.IsNaN(g) != math.IsNaN(w) {
			t.Fatalf("%s: element %d = %v, want %v", name, i, g, w)
		}
	}
}

// shapes are the (rows, inner, cols) triples the kernels are tested on;
// the large ones exceed the parallel grain so that several goroutines run.
var shapes = [][3]int{{0, 3, 4}, {1, 1, 1}, {3, 0, 2}, {5, 7, 3}, {17, 9, 65}, {130, 70, 200}, {400, 33, 64},
	{100, 64, 18}, {64, 300, 10}, // these two take Gemm's transposing paths
	{300, 64, 7}, {300, 7, 64}, {40, 1100, 5}, // AVX2 row kernel (float32, α = 1, β ∈ {0, 1}) and beyond its K
	{9, 500, 72}, {18, 300, 64}, // transposed a narrower than b: a's transpose by rows
	{128, 301, 128}} // AVX-512: b in panels, the inner dimension in chunks; aᵀ·b as gemmTZ

func TestGemm(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	testGemm[float32](t)
	testGemm[float64](t)
}

func testGemm[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, s := range shapes {
		m, k, n := s[0], s[1], s[2]
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			for _, ab := range [][2]T{{1, 0}, {1, 1}, {0.5, 1}, {-2, 0.25}, {0, 3}} {
				name := fmt.Sprintf("%T %v trans=%v alpha,beta=%v", T(0), s, tr, ab)
				a := randDense[T](rng, m, k)
				if tr[0] {
					a = randDense[T](rng, k, m)
				}
				b := randDense[T](rng, k, n)
				if tr[1] {
					b = randDense[T](rng, n, k)
				}
				c := randDense[T](rng, m, n)
				want := c.Clone()
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						var sum float64
						for p := 0; p < k; p++ {
							var av, bv T
							if tr[0] {
								av = a.Data[p*a.Cols+i]
							} else {
								av = a.Data[i*a.Cols+p]
							}
							if tr[1] {
								bv = b.Data[j*b.Cols+p]
							} else {
								bv = b.Data[p*b.Cols+j]
							}
							sum += float64(av) * float64(bv)
						}
						want.Data[i*n+j] = T(float64(ab[0])*sum + float64(ab[1])*float64(c.Data[i*n+j]))
					}
				}
				Gemm(c, a, b, tr[0], tr[1], ab[0], ab[1])
				closeSlices(t, name, c.Data, want.Data)
			}
		}
	}
}

// rowIdentity is 0, 1, …: the source rows of a dense product seen as an
// aggregation (row i of a·b sums b's rows weighted by a's row i).
var rowIdentity = func() (id [gemmRowsMaxK]int32) {
	for i := range id {
		id[i] = int32(i)
	}
	return id
}()

// TestGemmRowsBlocks checks that the row kernel of Gemm, which runs
// products 17-23 columns wide and the 32- and 8-column blocks and masked
// tails of other widths for all rows at once (gemmRows16Tail, gemmRows32,
// gemmRows8), or on AVX-512 64-column blocks and a masked remainder of one
// to four vectors, one or two rows per pass (gemmRowsZ), gives the bits of
// the per-row path (axpyRowAVX) for widths around the blocks, odd and even
// inner dimensions and row counts, row sub-ranges and accumulation, with b
// as it is and (on AVX-512) in column panels, with and without chunks of
// the inner dimension. The AVX2 path runs most rows in blocks of three or
// four (gemmRows32x3, gemmRows16Tailx3, gemmRows8x4; gemmRows32x3S in
// chunks).
func TestGemmRowsBlocks(t *testing.T) {
	if !haveAVX2FMA {
		t.Skip("no AVX2+FMA on this machine")
	}
	defer func(z bool) { gemmAVX512 = z }(gemmAVX512)
	for _, z := range []bool{false, haveAVX512} {
		gemmAVX512 = z
		checkGemmRowsBlocks(t)
	}
}

func checkGemmRowsBlocks(t *testing.T) {
	t.Helper()
	rng := rand.New(rand.NewPCG(15, 16))
	for _, m := range []int{7, 13} {
		checkGemmRowsBlocksM(t, rng, m)
	}
}

func checkGemmRowsBlocksM(t *testing.T, rng *rand.Rand, m int) {
	t.Helper()
	for _, n := range []int{1, 5, 8, 9, 12, 16, 17, 18, 23, 24, 32, 33, 36, 40, 48, 50, 63, 64, 72, 100, 128, 130, 192} {
		for _, k := range []int{1, 2, 3, 9, 18, 64, 129, 300} {
			a, b := randDense[float32](rng, m, k), randDense[float32](rng, k, n)
			packed := NewDense[float32](k, n)
			packPanels(packed.Data, b.Data, k, n)
			for _, acc := range []bool{false, true} {
				got, want := randDense[float32](rng, m, n), NewDense[float32](m, n)
				copy(want.Data, got.Data)
				kr := kernel[float32]{kind: kGemmRows, dst: got, a: a, b: b, acc: acc}
				// Ranges of 2 and m−2 rows: the blocked kernels' blocks of
				// three or four rows and every remainder.
				gemmRows(&kr, 0, 2)
				gemmRows(&kr, 2, m)
				if !gemmAVX512 { // the inner dimension in chunks: the same bits
					kc := kernel[float32]{kind: kGemmRows, dst: NewDense[float32](m, n), a: a, b: b, acc: acc, w: randDense[float32](rng, m, n).Data}
					copy(kc.dst.Data, want.Data)
					gemmRows(&kc, 0, 4)
					gemmRows(&kc, 4, m)
					for i, v := range kc.dst.Data {
						if math.Float32bits(v) != math.Float32bits(got.Data[i]) {
							t.Fatalf("AVX2 chunked, m=%d n=%d k=%d acc=%v: element %d = %v, unchunked gives %v", m, n, k, acc, i, v, got.Data[i])
						}
					}
				}
				if gemmAVX512 { // b in column panels, the inner dimension in chunks: the same bits
					for _, chunked := range []bool{false, true} {
						kp := kernel[float32]{kind: kGemmRows, dst: NewDense[float32](m, n), a: a, b: packed, acc: acc, packed: true}
						if chunked {
							kp.w = randDense[float32](rng, m, n).Data
						}
						copy(kp.dst.Data, want.Data)
						gemmRows(&kp, 0, 3)
						gemmRows(&kp, 3, m)
						for i, v := range kp.dst.Data {
							if math.Float32bits(v) != math.Float32bits(got.Data[i]) {
								t.Fatalf("packed b, chunked %v, n=%d k=%d acc=%v: element %d = %v, unpacked gives %v", chunked, n, k, acc, i, v, got.Data[i])
							}
						}
					}
				}
				for i := 0; i < m; i++ {
					axpyRowAVX(want.Data[i*n:(i+1)*n], b.Data, n, &rowIdentity[0], &a.Data[i*k], k, acc, k)
				}
				for i, v := range got.Data {
					if math.Float32bits(v) != math.Float32bits(want.Data[i]) {
						t.Fatalf("AVX-512 %v, m=%d n=%d k=%d acc=%v: element %d = %v, the row path gives %v", gemmAVX512, m, n, k, acc, i, v, want.Data[i])
					}
				}
			}
		}
	}
}

// TestGemmTZBits checks that gemmTZ (aᵀ·b from a's columns, in chunks of
// the inner dimension) gives the bits of the row kernel on a transposed
// copy of a, over one worker's range or two.
func TestGemmTZBits(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512 on this machine")
	}
	rng := rand.New(rand.NewPCG(17, 18))
	for _, s := range [][3]int{{2, 65, 64}, {6, 129, 128}, {128, 300, 64}, {10, 1000, 192}} {
		m, k, n := s[0], s[1], s[2]
		a, b := randDense[float32](rng, k, m), randDense[float32](rng, k, n)
		at := NewDense[float32](m, k)
		transposeInto(at, a)
		for _, acc := range []bool{false, true} {
			want := randDense[float32](rng, m, n)
			got := want.Clone()
			kr := kernel[float32]{kind: kGemmRows, dst: want, a: at, b: b, acc: acc}
			gemmRows(&kr, 0, m)
			kt := kernel[float32]{kind: kGemmTZ, dst: got, a: a, b: b, w: make([]float32, m*n), acc: acc}
			gemmTZ(&kt, 0, 1)
			gemmTZ(&kt, 1, m/2)
			for i, v := range got.Data {
				if math.Float32bits(v) != math.Float32bits(want.Data[i]) {
					t.Fatalf("%v acc=%v: element %d = %v, the row kernel gives %v", s, acc, i, v, want.Data[i])
				}
			}
		}
	}
}

func TestGemmShapePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Gemm accepted mismatched shapes")
		}
	}()
	MatMul(NewDense[float32](2, 2), NewDense[float32](2, 3), NewDense[float32](2, 2))
}

func refAggregate[T Float](ptr, src []int32, w []T, h *Dense[T], init *Dense[T], acc bool) []T {
	out := make([]T, (len(ptr)-1)*h.Cols)
	if acc {
		copy(out, init.Data)
	}
	for v := 0; v+1 < len(ptr); v++ {
		for e := ptr[v]; e < ptr[v+1]; e++ {
			wt := T(1)
			if w != nil {
				wt = w[e]
			}
			for j := 0; j < h.Cols; j++ {
				out[v*h.Cols+j] += wt * h.Data[int(src[e])*h.Cols+j]
			}
		}
	}
	return out
}

func TestSparseKernels(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	testSparse[float32](t)
	testSparse[float64](t)
}

func testSparse[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, s := range shapes {
		r, c, n := s[0], s[1], s[2]
		for _, density := range []float64{0, 0.05, 0.5} {
			for _, acc := range []bool{false, true} {
				name := fmt.Sprintf("%T %v density=%v acc=%v", T(0), s, density, acc)
				a := randCSR[T](rng, r, c, density)
				if err := a.Validate(); err != nil {
					t.Fatal(err)
				}
				b := randDense[T](rng, c, n)
				dst := randDense[T](rng, r, n)
				want := refAggregate(a.Indptr, a.Indices, a.Data, b, dst, acc)
				SpMM(dst, a, b, acc)
				closeSlices(t, "SpMM "+name, dst.Data, want)

				// Aggregate with separate and with unit weights.
				dst = randDense[T](rng, r, n)
				w := randSlice[T](rng, a.NNZ())
				want = refAggregate(a.Indptr, a.Indices, w, b, dst, acc)
				Aggregate(dst, a.Indptr, a.Indices, w, b, acc)
				closeSlices(t, "Aggregate "+name, dst.Data, want)
				dst = randDense[T](rng, r, n)
				want = refAggregate(a.Indptr, a.Indices, nil, b, dst, acc)
				Aggregate(dst, a.Indptr, a.Indices, nil, b, acc)
				closeSlices(t, "Aggregate unit "+name, dst.Data, want)

				// SpMMT against the dense transpose product.
				bt := randDense[T](rng, r, n)
				dt := randDense[T](rng, c, n)
				wantT := dt.Clone()
				ad := a.ToDense()
				for j := 0; j < c; j++ {
					for q := 0; q < n; q++ {
						var sum T
						if acc {
							sum = wantT.Data[j*n+q]
						}
						for i := 0; i < r; i++ {
							sum += ad.Data[i*c+j] * bt.Data[i*n+q]
						}
						wantT.Data[j*n+q] = sum
					}
				}
				SpMMT(dt, a, bt, acc)
				closeSlices(t, "SpMMT "+name, dt.Data, wantT.Data)

				// Transpose, and SpMM with the transpose gives the same.
				at, perm := a.Transpose()
				if err := at.Validate(); err != nil {
					t.Fatalf("Transpose %s: %v", name, err)
				}
				closeSlices(t, "Transpose "+name, at.ToDense().Data, transposeDense(ad).Data)
				for i := range a.Data {
					a.Data[i] *= 2
				}
				TransposeValues(at, a, perm)
				closeSlices(t, "TransposeValues "+name, at.ToDense().Data, transposeDense(a.ToDense()).Data)
				adj := NewAdjacency(a)
				a.Data = append(a.Data[:0:0], a.Data...)
				for i := range a.Data {
					a.Data[i] = -a.Data[i]
				}
				adj.SyncValues()
				closeSlices(t, "Adjacency "+name, adj.AT.ToDense().Data, transposeDense(a.ToDense()).Data)
				// An operator with a's structure and its own values shares
				// adj's transpose structure.
				own := &CSR[T]{Rows: a.Rows, Cols: a.Cols, Indptr: a.Indptr, Indices: a.Indices, Data: make([]T, len(a.Data))}
				for i := range own.Data {
					own.Data[i] = T(i + 1)
				}
				var like Adjacency[T]
				like.ResetLike(own, adj)
				closeSlices(t, "ResetLike "+name, like.AT.ToDense().Data, transposeDense(own.ToDense()).Data)
				closeSlices(t, "Adjacency after ResetLike "+name, adj.AT.ToDense().Data, transposeDense(a.ToDense()).Data)
			}
		}
	}
}

// ResetFixed keeps no transpose for an operator equal to its own (the
// backward products and edge values then read the operator itself, with
// the same results), builds one otherwise, and a later Reset does not write
// into the previous operator.
func TestAdjacencyResetFixed(t *testing.T) {
	sym := CSRFromDense(FromRows([][]float64{{1, 2, 0}, {2, 0, 3}, {0, 3, 4}}))
	asym := CSRFromDense(FromRows([][]float64{{1, 2, 0}, {5, 0, 3}, {0, 3, 4}}))
	var plain, fixed Adjacency[float64]
	plain.Reset(sym)
	fixed.ResetFixed(sym)
	if fixed.AT != sym {
		t.Fatal("a symmetric operator kept a transpose")
	}
	w := []float64{1, 2, 3, 4, 5, 6}
	want, got := make([]float64, len(w)), make([]float64, len(w))
	plain.TransposeEdgeValues(want, w)
	fixed.TransposeEdgeValues(got, w)
	closeSlices(t, "symmetric edge values", got, want)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("SyncValues on the fixed symmetric operator did not panic")
			}
		}()
		fixed.SyncValues()
	}()
	var like Adjacency[float64]
	like.ResetLike(CSRFromDense(FromRows([][]float64{{7, 8, 0}, {9, 0, 1}, {0, 2, 3}})), &fixed)
	closeSlices(t, "ResetLike of a fixed operator", like.AT.ToDense().Data, transposeDense(like.A.ToDense()).Data)
	before := append([]float64(nil), sym.Data...)
	fixed.ResetFixed(asym)
	if fixed.AT == asym {
		t.Fatal("an asymmetric operator is its own transpose")
	}
	closeSlices(t, "asymmetric transpose", fixed.AT.ToDense().Data, transposeDense(asym.ToDense()).Data)
	closeSlices(t, "the previous operator", sym.Data, before)
}

// ResetLike rejects an operator whose shape or number of entries differ.
func TestAdjacencyResetLikeRejectsOtherStructure(t *testing.T) {
	a := CSRFromDense(FromRows([][]float64{{1, 0, 2}, {0, 3, 0}}))
	adj := NewAdjacency(a)
	for name, b := range map[string]*CSR[float64]{
		"other shape":   CSRFromDense(FromRows([][]float64{{1, 0}, {0, 3}})),
		"other entries": CSRFromDense(FromRows([][]float64{{1, 1, 2}, {0, 3, 0}})),
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			var g Adjacency[float64]
			g.ResetLike(b, adj)
		})
	}
}

func transposeDense[T Float](m *Dense[T]) *Dense[T] {
	t := NewDense[T](m.Cols, m.Rows)
	for i := 0; i < m.Rows; i++ {
		for j := 0; j < m.Cols; j++ {
			t.Data[j*m.Rows+i] = m.Data[i*m.Cols+j]
		}
	}
	return t
}

func TestDropoutCSR(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	src := randCSR[float32](rng, 200, 300, 0.1)
	for i := range src.Data {
		src.Data[i] = 1 + float32(i%7) // non-zero values
	}
	var dst CSR[float32]
	for _, p := range []float64{0, 0.3, 0.5, 0.9, 1} {
		DropoutCSR(&dst, src, p, rand.New(rand.NewPCG(7, 7)))
		if &dst.Indices[0] != &src.Indices[0] || dst.Rows != src.Rows || dst.Cols != src.Cols {
			t.Fatalf("p=%v: dst does not share src's structure", p)
		}
		kept := 0
		for i, v := range dst.Data {
			switch {
			case v == 0:
			case math.Abs(float64(v)-float64(src.Data[i])/(1-p)) < 1e-5*float64(v):
				kept++
			default:
				t.Fatalf("p=%v: value %d = %v, neither 0 nor %v/(1−p)", p, i, v, src.Data[i])
			}
		}
		frac := float64(kept) / float64(len(src.Data))
		if math.Abs(frac-(1-p)) > 0.03 {
			t.Errorf("p=%v: kept fraction %.3f, want about %.3f", p, frac, 1-p)
		}
		// Same seed, same mask.
		again := CSR[float32]{}
		DropoutCSR(&again, src, p, rand.New(rand.NewPCG(7, 7)))
		closeSlices(t, "DropoutCSR reproducible", again.Data, dst.Data)
	}
}

// TestDropoutCSRDraws pins DropoutCSR's mask to its definition: value i is
// decided by the low (even i) or high (odd i) half of the (i/2)-th 64-bit
// draw, kept when the half is ≥ p·2³², across the chunks of drawn words
// and with an odd count of values; steady-state calls allocate nothing.
func TestDropoutCSRDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	src := randCSR[float32](rng, 150, 101, 0.2)
	if len(src.Data)%2 == 0 {
		src.Data = src.Data[:len(src.Data)-1] // drop the last stored value
		src.Indices = src.Indices[:len(src.Data)]
		for r, p := range src.Indptr {
			src.Indptr[r] = min(p, int32(len(src.Data)))
		}
	}
	if len(src.Data) < 1200 {
		t.Fatalf("%d values: too few to cross a chunk", len(src.Data))
	}
	for i := range src.Data {
		src.Data[i] = float32(i%9) - 4 // negative, zero and positive values
	}
	p := 0.35
	var dst CSR[float32]
	DropoutCSR(&dst, src, p, rand.New(rand.NewPCG(9, 9)))
	draws := rand.New(rand.NewPCG(9, 9))
	thr := uint64(p * (1 << 32))
	scale := float32(1 / (1 - p))
	var word uint64
	for i, v := range src.Data {
		u := word >> 32
		if i%2 == 0 {
			word = draws.Uint64()
			u = word & (1<<32 - 1)
		}
		var keep float32
		if u >= thr {
			keep = 1
		}
		if want := v * scale * keep; math.Float32bits(dst.Data[i]) != math.Float32bits(want) {
			t.Fatalf("value %d: got %v, want %v", i, dst.Data[i], want)
		}
	}
	seeded := rand.New(rand.NewPCG(1, 1))
	if a := testing.AllocsPerRun(10, func() { DropoutCSR(&dst, src, p, seeded) }); a != 0 {
		t.Fatalf("DropoutCSR allocates %v times a call", a)
	}
}

func TestRowKernels(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	testRows[float32](t)
	testRows[float64](t)
}

func testRows[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, s := range shapes {
		rows, cols, nidx := s[0]+1, s[2], s[1]*5
		for _, acc := range []bool{false, true} {
			name := fmt.Sprintf("%T %v acc=%v", T(0), s, acc)
			src := randDense[T](rng, rows, cols)
			idx := make([]int32, nidx)
			for i := range idx {
				idx[i] = int32(rng.IntN(min(rows, 3))) // many duplicates
			}
			// GatherRows.
			g := randDense[T](rng, nidx, cols)
			want := g.Clone()
			for i, j := range idx {
				for c := 0; c < cols; c++ {
					if acc {
						want.Data[i*cols+c] += src.Data[int(j)*cols+c]
					} else {
						want.Data[i*cols+c] = src.Data[int(j)*cols+c]
					}
				}
			}
			GatherRows(g, src, idx, acc)
			closeSlices(t, "GatherRows "+name, g.Data, want.Data)

			// IndexAddRows.
			up := randDense[T](rng, nidx, cols)
			d := randDense[T](rng, rows, cols)
			want = d.Clone()
			if !acc {
				want.Zero()
			}
			for i, j := range idx {
				for c := 0; c < cols; c++ {
					want.Data[int(j)*cols+c] += up.Data[i*cols+c]
				}
			}
			IndexAddRows(d, up, idx, acc)
			closeSlices(t, "IndexAddRows "+name, d.Data, want.Data)

			// ScatterAddRows and BroadcastSegmentRows over random segments.
			nseg := rows
			seg := randSegPtr(rng, nseg, 4)
			items := randDense[T](rng, int(seg[nseg]), cols)
			sums := randDense[T](rng, nseg, cols)
			want = sums.Clone()
			for sgm := 0; sgm < nseg; sgm++ {
				for c := 0; c < cols; c++ {
					var x T
					if acc {
						x = want.Data[sgm*cols+c]
					}
					for r := seg[sgm]; r < seg[sgm+1]; r++ {
						x += items.Data[int(r)*cols+c]
					}
					want.Data[sgm*cols+c] = x
				}
			}
			ScatterAddRows(sums, items, seg, acc)
			closeSlices(t, "ScatterAddRows "+name, sums.Data, want.Data)

			bc := randDense[T](rng, int(seg[nseg]), cols)
			want = bc.Clone()
			for sgm := 0; sgm < nseg; sgm++ {
				for r := seg[sgm]; r < seg[sgm+1]; r++ {
					for c := 0; c < cols; c++ {
						if acc {
							want.Data[int(r)*cols+c] += sums.Data[sgm*cols+c]
						} else {
							want.Data[int(r)*cols+c] = sums.Data[sgm*cols+c]
						}
					}
				}
			}
			BroadcastSegmentRows(bc, sums, seg, acc)
			closeSlices(t, "BroadcastSegmentRows "+name, bc.Data, want.Data)

			// RowDot, RowNorm, SumRows, AddRowVector.
			a, b := randDense[T](rng, rows, cols), randDense[T](rng, rows, cols)
			dots, norms := make([]T, rows), make([]T, rows)
			wd, wn := make([]T, rows), make([]T, rows)
			for i := 0; i < rows; i++ {
				var sd, sn float64
				for c := 0; c < cols; c++ {
					sd += float64(a.Data[i*cols+c]) * float64(b.Data[i*cols+c])
					sn += float64(a.Data[i*cols+c]) * float64(a.Data[i*cols+c])
				}
				wd[i], wn[i] = T(sd), T(math.Sqrt(sn))
			}
			RowDot(dots, a, b)
			RowNorm(norms, a)
			closeSlices(t, "RowDot "+name, dots, wd)
			closeSlices(t, "RowNorm "+name, norms, wn)

			col := randSlice[T](rng, cols)
			wcol := append([]T(nil), col...)
			for c := range wcol {
				if !acc {
					wcol[c] = 0
				}
				for i := 0; i < rows; i++ {
					wcol[c] += a.Data[i*cols+c]
				}
			}
			SumRows(col, a, acc)
			closeSlices(t, "SumRows "+name, col, wcol)
			want = a.Clone()
			for i := 0; i < rows; i++ {
				for c := 0; c < cols; c++ {
					want.Data[i*cols+c] += col[c]
				}
			}
			AddRowVector(a, col)
			closeSlices(t, "AddRowVector "+name, a.Data, want.Data)
		}
	}
}

func TestSegmentKernels(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	testSegments[float32](t)
	testSegments[float64](t)
}

func testSegments[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, nseg := range []int{0, 1, 5, 300, 20000} {
		for _, maxLen := range []int{0, 1, 6} {
			name := fmt.Sprintf("%T nseg=%d maxLen=%d", T(0), nseg, maxLen)
			seg := randSegPtr(rng, nseg, maxLen)
			x := randSlice[T](rng, int(seg[nseg]))
			if len(x) > 2 {
				x[1] = 50 // a large score must not overflow the softmax
			}
			sum, mx := make([]T, nseg), make([]T, nseg)
			arg := make([]int32, nseg)
			wsum, wmx := make([]T, nseg), make([]T, nseg)
			warg := make([]int32, nseg)
			y, wy := make([]T, len(x)), make([]T, len(x))
			for s := 0; s < nseg; s++ {
				warg[s] = -1
				var tot float64
				for e := seg[s]; e < seg[s+1]; e++ {
					tot += float64(x[e])
					if warg[s] < 0 || x[e] > wmx[s] {
						wmx[s], warg[s] = x[e], e
					}
				}
				wsum[s] = T(tot)
				var z float64
				for e := seg[s]; e < seg[s+1]; e++ {
					z += math.Exp(float64(x[e] - wmx[s]))
				}
				for e := seg[s]; e < seg[s+1]; e++ {
					wy[e] = T(math.Exp(float64(x[e]-wmx[s])) / z)
				}
			}
			SegmentSum(sum, x, seg)
			SegmentMax(mx, x, seg, arg)
			SegmentSoftmax(y, x, seg)
			closeSlices(t, "SegmentSum "+name, sum, wsum)
			closeSlices(t, "SegmentMax "+name, mx, wmx)
			for s := range arg {
				if arg[s] != warg[s] {
					t.Fatalf("SegmentMax %s: argmax[%d] = %d, want %d", name, s, arg[s], warg[s])
				}
			}
			closeSlices(t, "SegmentSoftmax "+name, y, wy)
			SegmentMax(mx, x, seg, nil)

			for _, acc := range []bool{false, true} {
				dy := randSlice[T](rng, len(x))
				dx := randSlice[T](rng, len(x))
				wdx := append([]T(nil), dx...)
				for s := 0; s < nseg; s++ {
					var d float64
					for e := seg[s]; e < seg[s+1]; e++ {
						d += float64(y[e]) * float64(dy[e])
					}
					for e := seg[s]; e < seg[s+1]; e++ {
						g := T(float64(y[e]) * (float64(dy[e]) - d))
						if acc {
							wdx[e] += g
						} else {
							wdx[e] = g
						}
					}
				}
				SegmentSoftmaxBackward(dx, y, dy, seg, acc)
				closeSlices(t, fmt.Sprintf("SegmentSoftmaxBackward acc=%v %s", acc, name), dx, wdx)
			}
		}
	}
}

func TestEdgeDotAndElementwise(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	testEdgeElem[float32](t)
	testEdgeElem[float64](t)
}

func testEdgeElem[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for _, n := range []int{0, 1, 33, 5000, 100000} {
		name := fmt.Sprintf("%T n=%d", T(0), n)
		g := randCSR[T](rng, min(n, 300), min(n, 300), 0.05)
		a, b := randDense[T](rng, g.Rows, 17), randDense[T](rng, g.Cols, 17)
		ed := make([]T, g.NNZ())
		wed := make([]T, g.NNZ())
		for v := 0; v < g.Rows; v++ {
			for e := g.Indptr[v]; e < g.Indptr[v+1]; e++ {
				var s float64
				for c := 0; c < 17; c++ {
					s += float64(a.Data[v*17+c]) * float64(b.Data[int(g.Indices[e])*17+c])
				}
				wed[e] = T(s)
			}
		}
		EdgeDot(ed, g.Indptr, g.Indices, a, b)
		closeSlices(t, "EdgeDot "+name, ed, wed)

		x, y := randSlice[T](rng, n), randSlice[T](rng, n)
		w := make([]T, n)
		for i := range w {
			w[i] = y[i] + 0.5*x[i]
		}
		Axpy(0.5, x, y)
		closeSlices(t, "Axpy "+name, y, w)
		for i := range w {
			w[i] = y[i] * 3
		}
		Scale(3, y)
		closeSlices(t, "Scale "+name, y, w)
		d := make([]T, n)
		for i := range w {
			w[i] = x[i] + y[i]
		}
		Add(d, x, y)
		closeSlices(t, "Add "+name, d, w)
		for i := range w {
			w[i] = x[i] * y[i]
		}
		Mul(d, x, y)
		closeSlices(t, "Mul "+name, d, w)
		for i := range w {
			w[i] = max(x[i], 0)
		}
		Map(d, x, relu[T])
		closeSlices(t, "Map "+name, d, w)
	}
}

func relu[T Float](v T) T { return max(v, 0) }

// TestKernelsNoAllocs checks that every kernel, called repeatedly with the
// same arguments at a size that runs in parallel, allocates nothing.
func TestKernelsNoAllocs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	rng := rand.New(rand.NewPCG(8, 8))
	x := randCSR[float32](rng, 500, 400, 0.05)
	w := randDense[float32](rng, 400, 64)
	y := NewDense[float32](500, 64)
	wt := NewDense[float32](400, 64)
	a, b, c := randDense[float32](rng, 300, 64), randDense[float32](rng, 64, 70), NewDense[float32](300, 70)
	seg := randSegPtr(rng, 5000, 20)
	e := randSlice[float32](rng, int(seg[5000]))
	es, ey := make([]float32, 5000), make([]float32, len(e))
	arg := make([]int32, 5000)
	idx := make([]int32, 2000)
	for i := range idx {
		idx[i] = int32(rng.IntN(500))
	}
	gath := NewDense[float32](2000, 64)
	few := NewDense[float32](20, 64)
	idxFew := make([]int32, 2000)
	for i := range idxFew {
		idxFew[i] = int32(i % 20)
	}
	rows := NewDense[float32](len(e), 8)
	segs := NewDense[float32](5000, 8)
	norms := make([]float32, 500)
	var drop CSR[float32]
	dr := rand.New(rand.NewPCG(1, 1))
	big := randSlice[float32](rng, 1<<17)
	xd := x.ToDense()
	sk, skw := NewDense[float32](300, 18), randDense[float32](rng, 64, 18)
	cases := map[string]func(){
		"Gemm":                   func() { Gemm(c, a, b, false, false, 1, 0) },
		"GemmT":                  func() { Gemm(w, xd, y, true, false, 1, 1) },
		"GemmSkinnyNN":           func() { Gemm(sk, a, skw, false, false, 1, 0) },
		"GemmSkinnyNT":           func() { Gemm(a, sk, skw, false, true, 1, 1) },
		"GemmSkinnyTN":           func() { Gemm(skw, a, sk, true, false, 1, 1) },
		"SpMM":                   func() { SpMM(y, x, w, false) },
		"SpMMT":                  func() { SpMMT(wt, x, y, true) },
		"GatherRows":             func() { GatherRows(gath, y, idx, false) },
		"IndexAddRows":           func() { IndexAddRows(y, gath, idx, true) },
		"IndexAddRowsParts":      func() { IndexAddRows(few, gath, idxFew, false) },
		"ScatterAddRows":         func() { ScatterAddRows(segs, rows, seg, false) },
		"BroadcastSegmentRows":   func() { BroadcastSegmentRows(rows, segs, seg, true) },
		"SegmentSum":             func() { SegmentSum(es, e, seg) },
		"SegmentMax":             func() { SegmentMax(es, e, seg, arg) },
		"SegmentSoftmax":         func() { SegmentSoftmax(ey, e, seg) },
		"SegmentSoftmaxBackward": func() { SegmentSoftmaxBackward(e, ey, ey, seg, true) },
		"RowNorm":                func() { RowNorm(norms, y) },
		"RowDot":                 func() { RowDot(norms, y, y) },
		"DropoutCSR":             func() { DropoutCSR(&drop, x, 0.5, dr) },
		"Axpy":                   func() { Axpy(0.5, big, big) },
		"Map":                    func() { Map(big, big, relu[float32]) },
		"SumRows":                func() { SumRows(norms[:64], y, true) },
	}
	for name, f := range cases {
		f()
		if n := testing.AllocsPerRun(20, f); n != 0 {
			t.Errorf("%s allocates %v times per call", name, n)
		}
	}
}

func TestExpFloat32(t *testing.T) {
	worst := 0.0
	for x := -110.0; x <= 0; x += 0.00731 {
		got, want := expFloat32(x), math.Exp(x)
		if want < 1e-45 {
			if got > 1e-44 {
				t.Fatalf("expFloat32(%v) = %v, want about 0", x, got)
			}
			continue
		}
		worst = math.Max(worst, math.Abs(got-want)/want)
	}
	if worst > 1e-8 {
		t.Errorf("expFloat32 relative error %.3g > 1e-8", worst)
	}
	if got := expFloat32(0); got != 1 {
		t.Errorf("expFloat32(0) = %v", got)
	}
	if got := expFloat32(math.Inf(-1)); got != 0 {
		t.Errorf("expFloat32(-Inf) = %v", got)
	}
	if got := expFloat32(math.NaN()); !math.IsNaN(got) {
		t.Errorf("expFloat32(NaN) = %v", got)
	}
}

// expFloat32Vec gives expFloat32's bits lane by lane, across the range
// the softmax uses and at its edges (−104, NaN, −Inf, zeros of both signs)
// and beyond it.
func TestExpFloat32Vec(t *testing.T) {
	if !haveAVX2FMA {
		t.Skip("no AVX2+FMA on this machine")
	}
	xs := []float64{0, math.Copysign(0, -1), -104, math.Nextafter(-104, 0), math.Nextafter(-104, -200), -105,
		math.NaN(), math.Inf(-1), 1e-300, -1e-300, 0.5, -0.5, 3.7, 80, -745}
	rng := rand.New(rand.NewPCG(31, 7))
	for range 4000 {
		xs = append(xs, -110*rng.Float64(), -rng.ExpFloat64()*0.01)
	}
	for len(xs)%4 != 0 {
		xs = append(xs, -1)
	}
	got := make([]float64, len(xs))
	expFloat32Vec(&got[0], &xs[0], len(xs))
	for i, x := range xs {
		want := expFloat32(x)
		if math.Float64bits(got[i]) != math.Float64bits(want) && !(math.IsNaN(got[i]) && math.IsNaN(want)) {
			t.Fatalf("expFloat32Vec(%v) = %v (%#x), expFloat32 gives %v (%#x)", x, got[i], math.Float64bits(got[i]), want, math.Float64bits(want))
		}
	}
}

// The batched float32 softmax gives the scalar loop's bits: segments of
// every length from empty to longer than its batch, with infinities.
func TestSegmentSoftmax32Batches(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 21))
	ptr := []int32{0}
	var x []float32
	for _, n := range []int{0, 1, 5, 3, 0, 8, 700, 2, 511, 512, 513, 7, 1, 1, 4, 300, 300} {
		for range n {
			x = append(x, float32(rng.NormFloat64()*5))
		}
		ptr = append(ptr, int32(len(x)))
	}
	x[3] = float32(math.Inf(-1))
	got, want := make([]float32, len(x)), make([]float32, len(x))
	SegmentSoftmax(got, x, ptr)
	for s := 0; s+1 < len(ptr); s++ {
		softmaxSegment(want[ptr[s]:ptr[s+1]], x[ptr[s]:ptr[s+1]])
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("element %d: %v, the scalar loop gives %v", i, got[i], want[i])
		}
	}
}

// TestIndexAddRowsPartitioned covers the private-copy path of IndexAddRows:
// many indices into few rows.
func TestIndexAddRowsPartitioned(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	testIndexAddPart[float32](t)
	testIndexAddPart[float64](t)
}

func testIndexAddPart[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, s := range [][3]int{{50, 5000, 24}, {7, 20000, 3}, {300, 40000, 16}} {
		for _, acc := range []bool{false, true} {
			rows, n, cols := s[0], s[1], s[2]
			src := randDense[T](rng, n, cols)
			idx := make([]int32, n)
			for i := range idx {
				idx[i] = int32(rng.IntN(rows))
			}
			dst := randDense[T](rng, rows, cols)
			want := make([]float64, rows*cols)
			if acc {
				for i, v := range dst.Data {
					want[i] = float64(v)
				}
			}
			for i, j := range idx {
				for c := 0; c < cols; c++ {
					want[int(j)*cols+c] += float64(src.Data[i*cols+c])
				}
			}
			IndexAddRows(dst, src, idx, acc)
			wantT := make([]T, len(want))
			for i, v := range want {
				wantT[i] = T(v)
			}
			// Sums of thousands of terms: compare with a looser float32 bound.
			for i := range wantT {
				if d := math.Abs(float64(dst.Data[i]) - want[i]); d > 10*tol[T]()*(1+math.Abs(want[i])) {
					t.Fatalf("%T %v acc=%v: element %d = %v, want %v", T(0), s, acc, i, dst.Data[i], want[i])
				}
			}
		}
	}
}

// TransposeInto equals Transpose when it reuses the storage of a larger
// earlier transpose, and then allocates nothing.
func TestTransposeIntoReuses(t *testing.T) {
	big := &CSR[float32]{Rows: 3, Cols: 4, Indptr: []int32{0, 2, 3, 6}, Indices: []int32{0, 3, 1, 0, 2, 3}, Data: []float32{1, 2, 3, 4, 5, 6}}
	small := &CSR[float32]{Rows: 2, Cols: 3, Indptr: []int32{0, 1, 3}, Indices: []int32{2, 0, 2}, Data: []float32{7, 8, 9}}
	var got CSR[float32]
	var perm []int32
	big.TransposeInto(&got, &perm)
	for _, m := range []*CSR[float32]{small, big} {
		if allocs := testing.AllocsPerRun(10, func() { m.TransposeInto(&got, &perm) }); allocs != 0 {
			t.Errorf("%d×%d: TransposeInto allocates %v times", m.Rows, m.Cols, allocs)
		}
		want, wantPerm := m.Transpose()
		if got.Rows != want.Rows || got.Cols != want.Cols || !slices.Equal(got.Indptr, want.Indptr) ||
			!slices.Equal(got.Indices, want.Indices) || !slices.Equal(got.Data, want.Data) || !slices.Equal(perm, wantPerm) {
			t.Errorf("%d×%d: TransposeInto %+v perm %v, want %+v perm %v", m.Rows, m.Cols, got, perm, *want, wantPerm)
		}
	}
}

// transposeInto's four-row blocks and its row tail give the transpose.
func TestTransposeInto(t *testing.T) {
	for r := 0; r <= 9; r++ {
		for c := 1; c <= 5; c++ {
			m := NewDense[float32](r, c)
			for i := range m.Data {
				m.Data[i] = float32(i + 1)
			}
			dst := NewDense[float32](c, r)
			transposeInto(dst, m)
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					if dst.Data[j*r+i] != m.Data[i*c+j] {
						t.Fatalf("%d×%d: dst[%d][%d] = %v, want %v", r, c, j, i, dst.Data[j*r+i], m.Data[i*c+j])
					}
				}
			}
		}
	}
}

// ResetForward keeps no transpose, and a Reset after it rebuilds the
// transpose in the storage it had before.
func TestAdjacencyResetForward(t *testing.T) {
	a := CSRFromDense(FromRows([][]float64{{1, 2, 0}, {5, 0, 3}, {0, 3, 4}}))
	b := CSRFromDense(FromRows([][]float64{{0, 7, 0}, {1, 0, 0}, {2, 3, 0}}))
	var g Adjacency[float64]
	g.Reset(a)
	kept := g.AT
	g.ResetForward(b)
	if g.A != b || g.AT != nil {
		t.Fatal("ResetForward kept a transpose")
	}
	g.Reset(a)
	if g.AT != kept {
		t.Error("Reset after ResetForward did not reuse the transpose's storage")
	}
	closeSlices(t, "transpose after ResetForward", g.AT.ToDense().Data, transposeDense(a.ToDense()).Data)
	g.ResetFixed(CSRFromDense(FromRows([][]float64{{1, 2}, {2, 1}})))
	g.ResetForward(b)
	g.Reset(b)
	if g.AT == g.A || g.AT == nil {
		t.Fatal("Reset after a fixed operator and ResetForward shares the operator")
	}
	closeSlices(t, "transpose after a fixed operator", g.AT.ToDense().Data, transposeDense(b.ToDense()).Data)
}

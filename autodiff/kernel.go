package autodiff

import (
	"fmt"

	"github.com/prcaps/prcaps/tensor"
)

// Gaussian kernels between rows, k(u, v) = exp(−‖u − v‖²/γ) with a
// learnable bandwidth γ (a 1×1 Var), for models that compare sets of
// vectors by their kernel mean embeddings: the maximum mean discrepancy
// MMD²(P, Q) = E k(p, p') + E k(q, q') − 2 E k(p, q) of GRDL's reference
// distributions.
//
// Distances are expanded as ‖u‖² + ‖v‖² − 2u·v, the inner products by
// matrix products (tensor.Gemm) and the squared norms summed in float64,
// as torch.cdist does for all but tiny inputs, and the gradients are
// matrix products too: Σ_j w_ij (x_i − y_j) = (Σ_j w_ij)·x_i − (W·Y)_i.
// The expansion loses the last bits of the distance of two nearby points
// (about 1e-7 of ‖u‖² + ‖v‖² in float32), far below the 1e-6 that GRDL
// adds under its square root; a negative rounded distance is taken as 0,
// and a point's distance to itself is exactly 0. The distances and
// exponentials of a row run in vector code (tensor.GaussianRow32 for
// float32, tensor.ExpNegAbs for float64). γ must be positive; otherwise
// the values are not finite.

// sqNorms sets dst[i] = ‖row i of x‖², summed in float64.
func sqNorms[T Float](dst []T, x *tensor.Dense[T]) []T {
	d := x.Cols
	dst = growT(dst, x.Rows)
	for i := range dst {
		s := 0.0
		for _, v := range x.Data[i*d : (i+1)*d] {
			s += float64(v) * float64(v)
		}
		dst[i] = T(s)
	}
	return dst
}

// gaussianRow turns one row of inner products g[j] = u·v_j into the
// scaled distances a[j] = max(‖u‖² + ‖v_j‖² − 2g[j], 0)/γ and the kernel
// values k[j] = e^{−a[j]} (k may be g): float32 by tensor.GaussianRow32,
// float64 by its own arithmetic and tensor.ExpNegAbs. self ≥ 0 marks the
// entry of u itself, whose distance is exactly 0.
func gaussianRow[T Float](k, a, g []T, nu T, nv []T, inv float64, self int) {
	if k32, ok := any(k).([]float32); ok {
		a32, _ := any(a).([]float32)
		g32, _ := any(g).([]float32)
		nv32, _ := any(nv).([]float32)
		tensor.GaussianRow32(k32, a32, g32, nv32, float32(nu), float32(inv))
	} else {
		for j, v := range g {
			a[j] = T(max(float64(nu)+float64(nv[j])-2*float64(v), 0) * inv)
		}
		tensor.ExpNegAbs(k, a)
	}
	if self >= 0 {
		a[self], k[self] = 0, 1
	}
}

// kernelCols is the width of the blocks of kernel values computed at
// once: tensor.Gemm's row kernel takes outputs up to 128 wide.
const kernelCols = 128

// gaussianKernelOp is the record of K[i][j] = exp(−‖x_i − y_j‖²/γ).
type gaussianKernelOp[T Float] struct {
	x, y, gamma, out *Var[T]
	dist             []T       // ‖x_i − y_j‖²/γ, row-major like K, for ∂γ
	w, wt            []T       // (2/γ)·∂K ⊙ K and its transpose
	nx, ny           []T       // squared row norms
	sums             []float64 // row or column sums of w
	// Views and a block of inner products, kept here so that passing them
	// to tensor.Gemm allocates nothing.
	yb, g, wv, wtv tensor.Dense[T]
}

// Backward implements Op. With W = (2/γ)·∂K ⊙ K:
// ∂x_i = −Σ_j W_ij (x_i − y_j) = (W·Y)_i − (Σ_j W_ij)·x_i,
// ∂y_j = Σ_i W_ij (x_i − y_j) = (Wᵀ·X)_j − (Σ_i W_ij)·y_j and
// ∂γ = Σ_ij ∂K_ij K_ij ‖x_i − y_j‖²/γ².
func (p *gaussianKernelOp[T]) Backward(out *Var[T]) {
	n, m, d := p.x.Value.Rows, p.y.Value.Rows, p.x.Value.Cols
	inv := 1 / float64(p.gamma.Value.Data[0])
	c := T(2 * inv)
	p.w, p.wt = growT(p.w, n*m), growT(p.wt, n*m)
	W, Wt := p.w, p.wt
	s := 0.0
	for i := range n {
		for j := range m {
			e := i*m + j
			w := out.Grad.Data[e] * out.Value.Data[e]
			s += float64(w) * float64(p.dist[e])
			W[e], Wt[j*n+i] = c*w, c*w
		}
	}
	if p.gamma.requiresGrad {
		p.gamma.Grad.Data[0] += T(s * inv)
	}
	if p.x.requiresGrad {
		p.sums = rowSums(p.sums, W, n, m)
		p.wv = tensor.Dense[T]{Rows: n, Cols: m, Data: W}
		tensor.Gemm(&p.x.Grad, &p.wv, &p.y.Value, false, false, 1, 1)
		subScaledRows(p.x.Grad.Data, p.x.Value.Data, p.sums, 1, d)
	}
	if p.y.requiresGrad {
		p.sums = rowSums(p.sums, Wt, m, n)
		p.wtv = tensor.Dense[T]{Rows: m, Cols: n, Data: Wt}
		tensor.Gemm(&p.y.Grad, &p.wtv, &p.x.Value, false, false, 1, 1)
		subScaledRows(p.y.Grad.Data, p.y.Value.Data, p.sums, 1, d)
	}
}

// rowSums sets dst to the float64 sums of the r rows of the r×c matrix w.
func rowSums[T Float](dst []float64, w []T, r, c int) []float64 {
	dst = growF64(dst, r)
	for i := range r {
		s := 0.0
		for _, v := range w[i*c : (i+1)*c] {
			s += float64(v)
		}
		dst[i] = s
	}
	return dst
}

// subScaledRows subtracts c·r[i]·(row i of x) from row i of dst (width d).
func subScaledRows[T Float](dst, x []T, r []float64, c float64, d int) {
	for i, ri := range r {
		f := T(c * ri)
		if f == 0 {
			continue
		}
		dx := dst[i*d : (i+1)*d]
		for k, v := range x[i*d : (i+1)*d] {
			dx[k] -= f * v
		}
	}
}

// GaussianKernel records the n×m matrix K[i][j] = exp(−‖x_i − y_j‖²/γ) of
// the rows of x (n×d) and y (m×d) with the bandwidth gamma (1×1). It
// panics if the widths differ or gamma is not 1×1.
func GaussianKernel[T Float](t *Tape[T], x, y, gamma *Var[T]) *Var[T] {
	n, m, d := x.Value.Rows, y.Value.Rows, x.Value.Cols
	if y.Value.Cols != d || gamma.Value.Rows != 1 || gamma.Value.Cols != 1 {
		panic(fmt.Sprintf("autodiff: GaussianKernel of %d×%d and %d×%d rows with a %d×%d bandwidth",
			n, d, m, y.Value.Cols, gamma.Value.Rows, gamma.Value.Cols))
	}
	out := t.Node(n, m, x, y, gamma)
	p := OpOf[gaussianKernelOp[T]](out)
	p.x, p.y, p.gamma, p.out = x, y, gamma, out
	p.dist = growT(p.dist, n*m)
	p.nx = sqNorms(p.nx, &x.Value)
	p.ny = sqNorms(p.ny, &y.Value)
	inv := 1 / float64(gamma.Value.Data[0])
	K := out.Value.Data
	// Blocks of up to kernelCols columns: x·y_blockᵀ, then the distances
	// and kernel values of each row's stretch of the block.
	for j0 := 0; j0 < m; j0 += kernelCols {
		j1 := min(j0+kernelCols, m)
		w := j1 - j0
		p.yb = tensor.Dense[T]{Rows: w, Cols: d, Data: y.Value.Data[j0*d : j1*d]}
		p.g.Reshape(n, w)
		tensor.Gemm(&p.g, &x.Value, &p.yb, false, true, 1, 0)
		for i := range n {
			self := -1
			if x == y && i >= j0 && i < j1 {
				self = i - j0
			}
			gaussianRow(K[i*m+j0:i*m+j1], p.dist[i*m+j0:i*m+j1], p.g.Data[i*w:(i+1)*w], p.nx[i], p.ny[j0:j1], inv, self)
		}
	}
	return out
}

// segmentBlock is how many rows of a segment SegmentKernelMean takes at
// once, each against the whole segment.
const segmentBlock = kernelCols

// segmentKernelMeanOp is the record of out[s] = mean over the ordered
// pairs (i, j) of segment s of exp(−‖x_i − x_j‖²/γ). The kernel values
// are not kept (they would take Σ n_s² values): Backward recomputes them
// block by block.
type segmentKernelMeanOp[T Float] struct {
	x, gamma, out *Var[T]
	segPtr        []int32
	nx            []T
	rs            []float64
	a             []T // a block's scaled distances
	// A block of kernel values and views into x and its gradient, kept
	// here so that passing them to tensor.Gemm allocates nothing.
	kt, xb, xs, gs tensor.Dense[T]
}

// block computes, for the rows [i0, i1) of segment [a, b), the kernel
// values of every row of the segment against them: an n×(i1−i0) block
// (kᵀ of those rows; k is symmetric) in p.kt, the scaled distances in
// p.a.
func (p *segmentKernelMeanOp[T]) block(i0, i1, a, b int, inv float64) {
	d, n, r := p.x.Value.Cols, b-a, i1-i0
	xs := p.x.Value.Data
	p.xb = tensor.Dense[T]{Rows: r, Cols: d, Data: xs[i0*d : i1*d]}
	p.xs = tensor.Dense[T]{Rows: n, Cols: d, Data: xs[a*d : b*d]}
	p.kt.Reshape(n, r)
	tensor.Gemm(&p.kt, &p.xs, &p.xb, false, true, 1, 0)
	A := p.a[:n*r]
	for j := range n {
		self := -1
		if v := a + j; v >= i0 && v < i1 {
			self = v - i0
		}
		row := p.kt.Data[j*r : (j+1)*r]
		gaussianRow(row, A[j*r:(j+1)*r], row, p.nx[a+j], p.nx[i0:i1], inv, self)
	}
}

// Backward implements Op. With w = ∂out[s]/n_s² and c = 4w/γ, for the
// ordered pairs of segment s (each pair {i, j} stands for k_ij and k_ji):
// ∂x_j = −c·Σ_i k_ji (x_j − x_i) = c·(K·X)_j − c·(Σ_i k_ji)·x_j, and
// ∂γ = w·Σ_ij k_ij‖x_i − x_j‖²/γ².
func (p *segmentKernelMeanOp[T]) Backward(out *Var[T]) {
	if !p.x.requiresGrad && !p.gamma.requiresGrad {
		return
	}
	d := p.x.Value.Cols
	inv := 1 / float64(p.gamma.Value.Data[0])
	dg := 0.0
	for s := range len(p.segPtr) - 1 {
		a, b := int(p.segPtr[s]), int(p.segPtr[s+1])
		n := b - a
		w := float64(out.Grad.Data[s]) / float64(max(n*n, 1))
		if n < 2 || w == 0 {
			continue
		}
		c := T(4 * w * inv)
		p.rs = growF64(p.rs, n)
		clear(p.rs)
		gsum := 0.0
		for i0 := a; i0 < b; i0 += segmentBlock {
			i1 := min(i0+segmentBlock, b)
			r := i1 - i0
			p.block(i0, i1, a, b, inv)
			for j := range n {
				row, A := p.kt.Data[j*r:(j+1)*r], p.a[j*r:(j+1)*r]
				if v := a + j; v >= i0 && v < i1 {
					row[v-i0] = 0 // x_j − x_j = 0
				}
				rj := 0.0
				for q, k := range row {
					rj += float64(k)
					gsum += float64(k) * float64(A[q])
					row[q] = c * k
				}
				p.rs[j] += rj
			}
			if p.x.requiresGrad {
				p.gs = tensor.Dense[T]{Rows: n, Cols: d, Data: p.x.Grad.Data[a*d : b*d]}
				tensor.Gemm(&p.gs, &p.kt, &p.xb, false, false, 1, 1)
			}
		}
		dg += w * gsum * inv
		if p.x.requiresGrad {
			subScaledRows(p.x.Grad.Data[a*d:b*d], p.x.Value.Data[a*d:b*d], p.rs, float64(c), d)
		}
	}
	if p.gamma.requiresGrad {
		p.gamma.Grad.Data[0] += T(dg)
	}
}

// SegmentKernelMean records, for each segment s of the rows of x (the
// rows segPtr[s] … segPtr[s+1]−1, e.g. the nodes of one graph of a batch),
// the mean of exp(−‖x_i − x_j‖²/γ) over its n_s² ordered pairs, the
// diagonal included: the term E k(p, p') of the empirical MMD² (the
// biased V-statistic). out is S×1; an empty segment gives 0. Only pairs
// within a segment are visited, so the cost is Σ n_s²·d rather than the
// (Σ n_s)²·d of GaussianKernel of x with itself, and at most
// segmentBlock·n_s kernel values are held at a time. segPtr must run from
// 0 to x's rows and not change until Backward has run; gamma is 1×1.
func SegmentKernelMean[T Float](t *Tape[T], x, gamma *Var[T], segPtr []int32) *Var[T] {
	mgCheckSegPtr("SegmentKernelMean", segPtr, x.Value.Rows)
	if gamma.Value.Rows != 1 || gamma.Value.Cols != 1 {
		panic(fmt.Sprintf("autodiff: SegmentKernelMean with a %d×%d bandwidth", gamma.Value.Rows, gamma.Value.Cols))
	}
	S := len(segPtr) - 1
	out := t.Node(S, 1, x, gamma)
	p := OpOf[segmentKernelMeanOp[T]](out)
	p.x, p.gamma, p.out, p.segPtr = x, gamma, out, segPtr
	p.nx = sqNorms(p.nx, &x.Value)
	need := 0
	for s := range S {
		n := int(segPtr[s+1] - segPtr[s])
		need = max(need, min(n, segmentBlock)*n)
	}
	p.a = growT(p.a, need)
	inv := 1 / float64(gamma.Value.Data[0])
	for s := range S {
		a, b := int(segPtr[s]), int(segPtr[s+1])
		n := b - a
		if n == 0 {
			out.Value.Data[s] = 0
			continue
		}
		sum := 0.0
		for i0 := a; i0 < b; i0 += segmentBlock {
			p.block(i0, min(i0+segmentBlock, b), a, b, inv)
			for _, k := range p.kt.Data {
				sum += float64(k)
			}
		}
		out.Value.Data[s] = T(sum / float64(n*n))
	}
	return out
}

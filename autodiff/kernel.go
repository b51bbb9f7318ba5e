package autodiff

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/tensor"
)

// Gaussian kernels between rows, k(u, v) = exp(−‖u − v‖²/γ) with a
// learnable bandwidth γ (a 1×1 Var), for models that compare sets of
// vectors by their kernel mean embeddings: the maximum mean discrepancy
// MMD²(P, Q) = E k(p, p') + E k(q, q') − 2 E k(p, q) of GRDL's reference
// distributions. Distances are summed directly, in float64, rather than
// expanded as ‖u‖² + ‖v‖² − 2u·v, so that the kernel of two nearby points
// keeps full precision, which the small MMDs of similar sets need. γ must
// be positive; otherwise the values are not finite.

// gaussianKernelOp is the record of K[i][j] = exp(−‖x_i − y_j‖²/γ).
type gaussianKernelOp[T Float] struct {
	x, y, gamma, out *Var[T]
	dist             []T // ‖x_i − y_j‖², row-major like K, for ∂γ
	// Method values bound once per record: handing a stored func to
	// ParallelFor allocates nothing, building a closure per pass would.
	fwd, bwdX, bwdY func(lo, hi int)
}

// forwardRows computes rows [lo, hi) of K and of the distances.
func (p *gaussianKernelOp[T]) forwardRows(lo, hi int) {
	m, d := p.y.Value.Rows, p.x.Value.Cols
	inv := 1 / float64(p.gamma.Value.Data[0])
	K, xs, ys := p.out.Value.Data, p.x.Value.Data, p.y.Value.Data
	for i := lo; i < hi; i++ {
		xi := xs[i*d : (i+1)*d]
		for j := 0; j < m; j++ {
			s := 0.0
			for k, v := range ys[j*d : (j+1)*d] {
				e := float64(xi[k]) - float64(v)
				s += e * e
			}
			K[i*m+j] = T(math.Exp(-s * inv))
			p.dist[i*m+j] = T(s)
		}
	}
}

// backwardX adds ∂x_i = −(2/γ)·Σ_j W_ij (x_i − y_j), W = ∂K ⊙ K, for the
// rows [lo, hi) of x.
func (p *gaussianKernelOp[T]) backwardX(lo, hi int) {
	m, d := p.y.Value.Rows, p.x.Value.Cols
	c := 2 / float64(p.gamma.Value.Data[0])
	K, G, xs, ys := p.out.Value.Data, p.out.Grad.Data, p.x.Value.Data, p.y.Value.Data
	for i := lo; i < hi; i++ {
		xi, dx := xs[i*d:(i+1)*d], p.x.Grad.Data[i*d:(i+1)*d]
		for j := 0; j < m; j++ {
			w := c * float64(G[i*m+j]) * float64(K[i*m+j])
			if w == 0 {
				continue
			}
			for k, v := range ys[j*d : (j+1)*d] {
				dx[k] -= T(w * (float64(xi[k]) - float64(v)))
			}
		}
	}
}

// backwardY adds ∂y_j = (2/γ)·Σ_i W_ij (x_i − y_j) for the rows [lo, hi)
// of y.
func (p *gaussianKernelOp[T]) backwardY(lo, hi int) {
	n, m, d := p.x.Value.Rows, p.y.Value.Rows, p.x.Value.Cols
	c := 2 / float64(p.gamma.Value.Data[0])
	K, G, xs, ys := p.out.Value.Data, p.out.Grad.Data, p.x.Value.Data, p.y.Value.Data
	for j := lo; j < hi; j++ {
		yj, dy := ys[j*d:(j+1)*d], p.y.Grad.Data[j*d:(j+1)*d]
		for i := 0; i < n; i++ {
			w := c * float64(G[i*m+j]) * float64(K[i*m+j])
			if w == 0 {
				continue
			}
			for k, v := range xs[i*d : (i+1)*d] {
				dy[k] += T(w * (float64(v) - float64(yj[k])))
			}
		}
	}
}

// Backward implements Op; ∂γ = Σ_ij W_ij‖x_i − y_j‖²/γ².
func (p *gaussianKernelOp[T]) Backward(out *Var[T]) {
	n, m, d := p.x.Value.Rows, p.y.Value.Rows, p.x.Value.Cols
	if p.x.requiresGrad {
		tensor.ParallelFor(n, m*d, p.bwdX)
	}
	if p.y.requiresGrad {
		tensor.ParallelFor(m, n*d, p.bwdY)
	}
	if p.gamma.requiresGrad {
		g := float64(p.gamma.Value.Data[0])
		s := 0.0
		for e, k := range out.Value.Data {
			s += float64(out.Grad.Data[e]) * float64(k) * float64(p.dist[e])
		}
		p.gamma.Grad.Data[0] += T(s / (g * g))
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
	if p.fwd == nil {
		p.fwd, p.bwdX, p.bwdY = p.forwardRows, p.backwardX, p.backwardY
	}
	p.x, p.y, p.gamma, p.out = x, y, gamma, out
	if cap(p.dist) < n*m {
		p.dist = make([]T, n*m)
	}
	p.dist = p.dist[:n*m]
	tensor.ParallelFor(n, m*d, p.fwd)
	return out
}

// segmentKernelMeanOp is the record of out[s] = mean over the ordered
// pairs (i, j) of segment s of exp(−‖x_i − x_j‖²/γ).
type segmentKernelMeanOp[T Float] struct {
	x, gamma, out *Var[T]
	segPtr        []int32
	part          []float64 // per segment, its share of ∂γ
	fwd, bwd      func(lo, hi int)
}

// pairDist is ‖x_i − x_j‖² for rows i and j of x (width d).
func pairDist[T Float](xs []T, i, j, d int) float64 {
	s := 0.0
	xj := xs[j*d : (j+1)*d]
	for k, v := range xs[i*d : (i+1)*d] {
		e := float64(v) - float64(xj[k])
		s += e * e
	}
	return s
}

// forwardSegments computes out[s] for the segments [lo, hi): the diagonal
// gives n_s (k_ii = 1) and each unordered pair counts twice.
func (p *segmentKernelMeanOp[T]) forwardSegments(lo, hi int) {
	d := p.x.Value.Cols
	inv := 1 / float64(p.gamma.Value.Data[0])
	xs := p.x.Value.Data
	for s := lo; s < hi; s++ {
		a, b := int(p.segPtr[s]), int(p.segPtr[s+1])
		n := b - a
		if n == 0 {
			p.out.Value.Data[s] = 0
			continue
		}
		off := 0.0
		for i := a; i < b; i++ {
			for j := i + 1; j < b; j++ {
				off += math.Exp(-pairDist(xs, i, j, d) * inv)
			}
		}
		p.out.Value.Data[s] = T((float64(n) + 2*off) / float64(n*n))
	}
}

// backwardSegments recomputes the pair kernels of the segments [lo, hi)
// (storing them would take Σ n_s² values). Each unordered pair {i, j}
// stands for k_ij and k_ji, so with w = ∂out[s]/n_s²:
// ∂x_i −= (4w/γ)·k_ij (x_i − x_j), ∂x_j += the same, and
// ∂γ += 2w·k_ij‖x_i − x_j‖²/γ². A segment writes only its own rows of ∂x.
func (p *segmentKernelMeanOp[T]) backwardSegments(lo, hi int) {
	d := p.x.Value.Cols
	inv := 1 / float64(p.gamma.Value.Data[0])
	xs := p.x.Value.Data
	gx := p.x.requiresGrad
	for s := lo; s < hi; s++ {
		p.part[s] = 0
		a, b := int(p.segPtr[s]), int(p.segPtr[s+1])
		n := b - a
		w := float64(p.out.Grad.Data[s]) / float64(max(n*n, 1))
		if n < 2 || w == 0 {
			continue
		}
		gs := 0.0
		for i := a; i < b; i++ {
			xi := xs[i*d : (i+1)*d]
			for j := i + 1; j < b; j++ {
				dist := pairDist(xs, i, j, d)
				kij := math.Exp(-dist * inv)
				gs += kij * dist
				if !gx {
					continue
				}
				f := 4 * w * inv * kij
				xj := xs[j*d : (j+1)*d]
				dxi, dxj := p.x.Grad.Data[i*d:(i+1)*d], p.x.Grad.Data[j*d:(j+1)*d]
				for k, v := range xi {
					e := T(f * (float64(v) - float64(xj[k])))
					dxi[k] -= e
					dxj[k] += e
				}
			}
		}
		p.part[s] = 2 * w * gs * inv * inv
	}
}

// Backward implements Op.
func (p *segmentKernelMeanOp[T]) Backward(out *Var[T]) {
	if !p.x.requiresGrad && !p.gamma.requiresGrad {
		return
	}
	S := len(p.segPtr) - 1
	tensor.ParallelFor(S, pairCost(p.segPtr, p.x.Value.Cols), p.bwd)
	if p.gamma.requiresGrad {
		s := 0.0
		for _, v := range p.part[:S] {
			s += v
		}
		p.gamma.Grad.Data[0] += T(s)
	}
}

// pairCost is the work per segment of a pairwise pass, for ParallelFor:
// the mean number of unordered pairs of a segment times the width.
func pairCost(segPtr []int32, d int) int {
	S := len(segPtr) - 1
	if S <= 0 {
		return 1
	}
	pairs := 0
	for s := 0; s < S; s++ {
		n := int(segPtr[s+1] - segPtr[s])
		pairs += n * (n - 1) / 2
	}
	return max(1, pairs/S*d)
}

// SegmentKernelMean records, for each segment s of the rows of x (the
// rows segPtr[s] … segPtr[s+1]−1, e.g. the nodes of one graph of a batch),
// the mean of exp(−‖x_i − x_j‖²/γ) over its n_s² ordered pairs, the
// diagonal included: the term E k(p, p') of the empirical MMD² (the
// biased V-statistic). out is S×1; an empty segment gives 0. Only pairs
// within a segment are visited, so the cost is Σ n_s²·d rather than the
// (Σ n_s)²·d of GaussianKernel of x with itself, and no pair is stored.
// segPtr must run from 0 to x's rows and not change until Backward has
// run; gamma is 1×1.
func SegmentKernelMean[T Float](t *Tape[T], x, gamma *Var[T], segPtr []int32) *Var[T] {
	mgCheckSegPtr("SegmentKernelMean", segPtr, x.Value.Rows)
	if gamma.Value.Rows != 1 || gamma.Value.Cols != 1 {
		panic(fmt.Sprintf("autodiff: SegmentKernelMean with a %d×%d bandwidth", gamma.Value.Rows, gamma.Value.Cols))
	}
	S := len(segPtr) - 1
	out := t.Node(S, 1, x, gamma)
	p := OpOf[segmentKernelMeanOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwd = p.forwardSegments, p.backwardSegments
	}
	p.x, p.gamma, p.out, p.segPtr = x, gamma, out, segPtr
	if cap(p.part) < S {
		p.part = make([]float64, S)
	}
	p.part = p.part[:S]
	tensor.ParallelFor(S, pairCost(segPtr, x.Value.Cols), p.fwd)
	return out
}

package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/prcaps/prcaps/tensor"
)

// attnBlock is the number of query rows one unit of Attention handles at
// once: a unit's score block is keys × attnBlock, so the working memory of
// a unit is O(keys) and every product of the op keeps at most 64 output
// columns, the shape tensor.Gemm runs as its vectorised row kernel.
const attnBlock = 64

// attnGroups is the number of query-row groups of the backward pass per
// head. The key and value gradients are sums over all queries; each group
// adds its queries' share into a buffer of its own and the buffers are
// summed in group order afterwards, so the result is the same whatever the
// number of cores (the decomposition depends on the sizes alone).
const attnGroups = 8

// attentionOp is the record of fused multi-head softmax attention. It keeps
// no keys × queries matrix: the forward pass keeps, per head and query, the
// log-sum-exp L_i = m_i + log Σ_j exp(s_ij − m_i) of the scores s_ij, and
// the backward pass recomputes the scores block by block and gets the
// probabilities as exp(s_ij − L_i).
type attentionOp[T Float] struct {
	q, k, v, out       *Var[T]
	heads, dh, n, m, w int
	scale              float64
	thr                uint32  // dropout: drop when the 32-bit draw < thr (0: no dropout)
	keep               float64 // 1/(1−p)
	seed               uint64
	blocks, groups     int
	// Head-major copies of the inputs: qs = q·scale (n×dh per head), kh and
	// vh (m×dh), and the transposes khT, vhT (dh×m), so that every product
	// below reads contiguous matrices.
	qs, kh, vh, khT, vhT []T
	khD, vhD, khTD, vhTD []tensor.Dense[T] // views of the head slices
	lse                  []float64         // heads×n log-sum-exps
	dkp, dvp             []T               // groups×heads×m×dh partial gradients
	pool                 attnPool[T]
	fwd, bwd, red        func(lo, hi int)
}

// attnScratch is one worker's buffers: the scores block and its gradient
// (m×br), the query block and its transpose, the output-gradient block
// and per-query statistics.
type attnScratch[T Float] struct {
	st, dpt, qbT, obT, dob, dobT tensor.Dense[T]
	qb, dk, dv                   tensor.Dense[T] // views into qs, dkp and dvp
	mx, sum, d                   []float64
}

// attnPool hands scratch to the units that run at once; it allocates only
// while the number of concurrent units grows, so a warm pass allocates
// nothing. Which scratch a unit gets does not change any result.
type attnPool[T Float] struct {
	mu   sync.Mutex
	free []*attnScratch[T]
}

func (p *attnPool[T]) get() *attnScratch[T] {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		return s
	}
	return &attnScratch[T]{mx: make([]float64, attnBlock), sum: make([]float64, attnBlock), d: make([]float64, attnBlock)}
}

func (p *attnPool[T]) put(s *attnScratch[T]) {
	p.mu.Lock()
	p.free = append(p.free, s)
	p.mu.Unlock()
}

// Attention records multi-head scaled dot-product attention (Vaswani et
// al. 2017, eq. 1), the global attention of a GPS layer (Rampášek et al.
// 2022, §3.3) and of torch.nn.MultiheadAttention after its projections:
// for each head h, with q, k, v split into heads column blocks of width
// dh = cols/heads,
//
//	out_h = softmax(q_h k_hᵀ / √dh) v_h,
//
// the softmax over the keys (rows of k) for each query (row of q), and the
// heads side by side. q is n×(heads·dh), k and v are m×(heads·dh).
//
// Memory is O((n+m)·heads·dh) — the inputs by head, a log-sum-exp per
// query and head, and in the backward pass attnGroups partial key and
// value gradients — plus two m×64 blocks per core: the n×m attention
// matrices are never stored, the backward pass recomputes the scores 64
// queries at a time (FlashAttention's recomputation, Dao et al. 2022). Units of work are (head, block of queries) pairs with a fixed
// decomposition, so results do not depend on the number of goroutines.
//
// In training with dropout p > 0 the attention probabilities are dropped
// out (zeroed with probability p, the others scaled by 1/(1−p)) after the
// softmax, as torch's attention dropout does. The mask is not stored: each
// element's keep decision is a hash (SplitMix64) of one seed drawn from
// rng and the element's (head, query, key) index, recomputed in the
// backward pass. It panics on mismatched shapes, no keys, heads not
// dividing the width, p outside [0, 1), or a nil rng when dropout is on.
func Attention[T Float](t *Tape[T], q, k, v *Var[T], heads int, dropout float64, rng *rand.Rand, training bool) *Var[T] {
	checkAttention("Attention", q, k, v, heads, dropout)
	if k.Value.Rows == 0 {
		panic("autodiff: Attention over no keys")
	}
	out := t.Node(q.Value.Rows, q.Value.Cols, q, k, v)
	OpOf[attentionOp[T]](out).forward(q, k, v, out, heads, dropout, rng, training)
	return out
}

// checkAttention panics, naming op, unless heads divides the width of q,
// k and v, k and v have as many rows, and dropout is in [0, 1).
func checkAttention[T Float](op string, q, k, v *Var[T], heads int, dropout float64) {
	n, m, w := q.Value.Rows, k.Value.Rows, q.Value.Cols
	switch {
	case heads < 1 || w%heads != 0:
		panic(fmt.Sprintf("autodiff: %s with %d heads over width %d", op, heads, w))
	case k.Value.Cols != w || v.Value.Cols != w || v.Value.Rows != m:
		panic(fmt.Sprintf("autodiff: %s of queries %d×%d, keys %d×%d, values %d×%d",
			op, n, w, m, k.Value.Cols, v.Value.Rows, v.Value.Cols))
	case !(dropout >= 0 && dropout < 1):
		panic(fmt.Sprintf("autodiff: %s dropout %g outside [0, 1)", op, dropout))
	}
}

// forward sets the record up for q, k, v and out (checked by the caller)
// and computes out's value.
func (p *attentionOp[T]) forward(q, k, v, out *Var[T], heads int, dropout float64, rng *rand.Rand, training bool) {
	n, m, w := q.Value.Rows, k.Value.Rows, q.Value.Cols
	if p.fwd == nil {
		p.fwd, p.bwd, p.red = p.forwardUnits, p.backwardUnits, p.reduceRows
	}
	p.q, p.k, p.v, p.out = q, k, v, out
	p.heads, p.dh, p.n, p.m, p.w = heads, w/heads, n, m, w
	p.scale = 1 / math.Sqrt(float64(p.dh))
	p.thr = 0
	if training && dropout > 0 {
		if rng == nil {
			panic("autodiff: Attention dropout in training needs a random source")
		}
		p.seed = rng.Uint64()
		p.thr = uint32(min(math.Round(dropout*(1<<32)), math.MaxUint32))
		p.keep = 1 / (1 - dropout)
	}
	p.blocks = (n + attnBlock - 1) / attnBlock
	p.groups = min(attnGroups, p.blocks)
	p.split()
	if n > 0 {
		tensor.ParallelFor(heads*p.blocks, m*attnBlock*(2*p.dh+8), p.fwd)
	}
}

// split copies q (scaled), k and v into head-major storage.
func (p *attentionOp[T]) split() {
	n, m, w, dh, heads := p.n, p.m, p.w, p.dh, p.heads
	p.qs = growT(p.qs, n*w)
	p.kh, p.vh = growT(p.kh, m*w), growT(p.vh, m*w)
	p.khT, p.vhT = growT(p.khT, m*w), growT(p.vhT, m*w)
	p.lse = growF64(p.lse, heads*n)
	if len(p.khD) != heads {
		p.khD, p.vhD = make([]tensor.Dense[T], heads), make([]tensor.Dense[T], heads)
		p.khTD, p.vhTD = make([]tensor.Dense[T], heads), make([]tensor.Dense[T], heads)
	}
	sc := T(p.scale)
	for h := 0; h < heads; h++ {
		qs := p.qs[h*n*dh : (h+1)*n*dh]
		for i := 0; i < n; i++ {
			src := p.q.Value.Data[i*w+h*dh : i*w+(h+1)*dh]
			dst := qs[i*dh : (i+1)*dh]
			for d, x := range src {
				dst[d] = x * sc
			}
		}
		kh, vh := p.kh[h*m*dh:(h+1)*m*dh], p.vh[h*m*dh:(h+1)*m*dh]
		khT, vhT := p.khT[h*m*dh:(h+1)*m*dh], p.vhT[h*m*dh:(h+1)*m*dh]
		for j := 0; j < m; j++ {
			copy(kh[j*dh:(j+1)*dh], p.k.Value.Data[j*w+h*dh:j*w+(h+1)*dh])
			copy(vh[j*dh:(j+1)*dh], p.v.Value.Data[j*w+h*dh:j*w+(h+1)*dh])
			for d := 0; d < dh; d++ {
				khT[d*m+j] = kh[j*dh+d]
				vhT[d*m+j] = vh[j*dh+d]
			}
		}
		p.khD[h] = tensor.Dense[T]{Rows: m, Cols: dh, Data: kh}
		p.vhD[h] = tensor.Dense[T]{Rows: m, Cols: dh, Data: vh}
		p.khTD[h] = tensor.Dense[T]{Rows: dh, Cols: m, Data: khT}
		p.vhTD[h] = tensor.Dense[T]{Rows: dh, Cols: m, Data: vhT}
	}
}

// scores sets sc.st (m×br) to the transposed scores of queries
// [i0, i0+br) of head h against every key, s_ij = (q_i·scale)·k_j, and
// sc.qb to those queries' scaled rows.
func (p *attentionOp[T]) scores(sc *attnScratch[T], h, i0, br int) {
	dh, n := p.dh, p.n
	base := h*n*dh + i0*dh
	sc.qb = tensor.Dense[T]{Rows: br, Cols: dh, Data: p.qs[base : base+br*dh]}
	sc.qbT.Reshape(dh, br)
	for c := 0; c < br; c++ {
		for d, x := range sc.qb.Data[c*dh : (c+1)*dh] {
			sc.qbT.Data[d*br+c] = x
		}
	}
	sc.st.Reshape(p.m, br)
	tensor.Gemm(&sc.st, &p.khD[h], &sc.qbT, false, false, 1, 0)
}

// mix is SplitMix64's output for counter x under the op's seed.
func (p *attentionOp[T]) mix(x uint64) uint64 {
	z := p.seed + (x+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// draws returns the 64 random bits of the pair of queries (i, i+1), i
// even, for key j in head h: the high half decides query i, the low half
// query i+1. The mask is thus a function of the seed and the indices
// alone.
func (p *attentionOp[T]) draws(h, i, j int) uint64 {
	return p.mix((uint64(h*p.n+i)>>1)*uint64(p.m) + uint64(j))
}

// keeps reports whether dropout keeps the probability of query i for key j
// in head h.
func (p *attentionOp[T]) keeps(h, i, j int) bool {
	z := p.draws(h, i&^1, j)
	if i&1 == 0 {
		z >>= 32
	}
	return uint32(z) >= p.thr
}

// maskRow applies dropout to the probabilities of queries [i0, i0+len(row))
// (i0 even) for key j: row[c] becomes row[c]/(1−p) or 0.
func (p *attentionOp[T]) maskRow(row []T, h, i0, j int) {
	keep := T(p.keep)
	for c := 0; c < len(row); c += 2 {
		z := p.draws(h, i0+c, j)
		row[c] *= keep * T(attnIndicator(uint32(z>>32) >= p.thr))
		if c+1 < len(row) {
			row[c+1] *= keep * T(attnIndicator(uint32(z) >= p.thr))
		}
	}
}

// expRow sets row[c] = exp(row[c] − shift[c]) and, with sum, adds it to
// sum[c]: for float32 tensor.ExpShifted32 (the exponentials dominate the
// op), for float64 math.Exp.
func (p *attentionOp[T]) expRow(row []T, shift, sum []float64) {
	shift = shift[:len(row)]
	if r32, ok := any(row).([]float32); ok {
		tensor.ExpShifted32(r32, shift, sum)
		return
	}
	for c, s := range row {
		e := math.Exp(float64(s) - shift[c])
		row[c] = T(e)
		if sum != nil {
			sum[c] += e
		}
	}
}

func attnIndicator(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// forwardUnits runs units [lo, hi): unit u is head u/blocks, query block
// u%blocks. The scores are laid out keys × queries, so the softmax
// statistics of the block's queries are updated one key row at a time.
func (p *attentionOp[T]) forwardUnits(lo, hi int) {
	sc := p.pool.get()
	n, m, w, dh := p.n, p.m, p.w, p.dh
	for u := lo; u < hi; u++ {
		h, b := u/p.blocks, u%p.blocks
		i0 := b * attnBlock
		br := min(attnBlock, n-i0)
		p.scores(sc, h, i0, br)
		st := sc.st.Data
		mx, sum := sc.mx[:br], sc.sum[:br]
		for c := range mx {
			mx[c] = math.Inf(-1)
		}
		for j := 0; j < m; j++ {
			for c, s := range st[j*br : (j+1)*br] {
				mx[c] = max(mx[c], float64(s))
			}
		}
		clear(sum)
		for j := 0; j < m; j++ {
			row := st[j*br : (j+1)*br]
			p.expRow(row, mx, sum)
			if p.thr != 0 {
				p.maskRow(row, h, i0, j)
			}
		}
		// out_bᵀ (dh×br) = v_hᵀ (dh×m) · exp-scoresᵀ (m×br), then divided
		// by each query's sum.
		sc.obT.Reshape(dh, br)
		tensor.Gemm(&sc.obT, &p.vhTD[h], &sc.st, false, false, 1, 0)
		lse := p.lse[h*n+i0 : h*n+i0+br]
		for c := 0; c < br; c++ {
			inv := 1 / sum[c]
			lse[c] = mx[c] + math.Log(sum[c])
			row := p.out.Value.Data[(i0+c)*w+h*dh : (i0+c)*w+(h+1)*dh]
			for d := range row {
				row[d] = T(float64(sc.obT.Data[d*br+c]) * inv)
			}
		}
	}
	p.pool.put(sc)
}

// Backward implements Op. With P the probabilities, P̃ = P ⊙ mask/(1−p),
// O = P̃V and D_i = ∂O_i·O_i:
//
//	∂V = P̃ᵀ∂O,  ∂S_ij = P_ij (∂P̃_ij·mask_ij/(1−p) − D_i) with ∂P̃ = ∂O Vᵀ,
//	∂Q = scale·∂S K,  ∂K = ∂Sᵀ (Q·scale).
func (p *attentionOp[T]) Backward(out *Var[T]) {
	if !Any(p.q, p.k, p.v) || p.n == 0 {
		return
	}
	size := p.groups * p.heads * p.m * p.dh
	p.dkp, p.dvp = growT(p.dkp, size), growT(p.dvp, size)
	tensor.ParallelFor(p.heads*p.groups, p.m*p.n/p.groups*(6*p.dh+12), p.bwd)
	if p.k.requiresGrad || p.v.requiresGrad {
		tensor.ParallelFor(p.m, p.w*p.groups*2, p.red)
	}
}

// backwardUnits runs units [lo, hi): unit u is head u/groups and the
// query blocks of group u%groups. Each unit adds into its own rows of
// q.Grad and its own key and value partial sums.
func (p *attentionOp[T]) backwardUnits(lo, hi int) {
	sc := p.pool.get()
	n, m, w, dh, heads := p.n, p.m, p.w, p.dh, p.heads
	for u := lo; u < hi; u++ {
		h, g := u/p.groups, u%p.groups
		off := (g*heads + h) * m * dh
		sc.dk = tensor.Dense[T]{Rows: m, Cols: dh, Data: p.dkp[off : off+m*dh]}
		sc.dv = tensor.Dense[T]{Rows: m, Cols: dh, Data: p.dvp[off : off+m*dh]}
		clear(sc.dk.Data)
		clear(sc.dv.Data)
		for b := g * p.blocks / p.groups; b < (g+1)*p.blocks/p.groups; b++ {
			i0 := b * attnBlock
			br := min(attnBlock, n-i0)
			p.scores(sc, h, i0, br)
			// The output gradient block, row-major and transposed, and D.
			sc.dob.Reshape(br, dh)
			sc.dobT.Reshape(dh, br)
			dd := sc.d[:br]
			for c := 0; c < br; c++ {
				gr := p.out.Grad.Data[(i0+c)*w+h*dh : (i0+c)*w+(h+1)*dh]
				o := p.out.Value.Data[(i0+c)*w+h*dh : (i0+c)*w+(h+1)*dh]
				var s float64
				for d, x := range gr {
					sc.dob.Data[c*dh+d] = x
					sc.dobT.Data[d*br+c] = x
					s += float64(x) * float64(o[d])
				}
				dd[c] = s
			}
			// ∂P̃ᵀ (m×br) = v_h (m×dh) · ∂O_bᵀ (dh×br).
			sc.dpt.Reshape(m, br)
			tensor.Gemm(&sc.dpt, &p.vhD[h], &sc.dobT, false, false, 1, 0)
			lse := p.lse[h*n+i0 : h*n+i0+br]
			st, dpt := sc.st.Data, sc.dpt.Data
			for j := 0; j < m; j++ {
				srow, drow := st[j*br:(j+1)*br], dpt[j*br:(j+1)*br]
				p.expRow(srow, lse, nil) // P
				if p.thr == 0 {
					for c, pr := range srow {
						drow[c] = pr * (drow[c] - T(dd[c])) // ∂S
					}
					continue
				}
				keep := T(p.keep)
				for c := 0; c < br; c += 2 {
					z := p.draws(h, i0+c, j)
					for e := c; e < min(c+2, br); e++ {
						// Without a branch: the outcome is random.
						k := keep * T(attnIndicator(uint32(z>>(32*(1-e+c))) >= p.thr))
						drow[e] = srow[e] * (drow[e]*k - T(dd[e])) // ∂S
						srow[e] *= k                               // P̃
					}
				}
			}
			if p.q.requiresGrad {
				// ∂(q·scale)_bᵀ (dh×br) = k_hᵀ (dh×m) · ∂Sᵀ (m×br).
				sc.obT.Reshape(dh, br)
				tensor.Gemm(&sc.obT, &p.khTD[h], &sc.dpt, false, false, 1, 0)
				for c := 0; c < br; c++ {
					gq := p.q.Grad.Data[(i0+c)*w+h*dh : (i0+c)*w+(h+1)*dh]
					for d := range gq {
						gq[d] += T(p.scale * float64(sc.obT.Data[d*br+c]))
					}
				}
			}
			if p.k.requiresGrad {
				tensor.Gemm(&sc.dk, &sc.dpt, &sc.qb, false, false, 1, 1) // ∂Sᵀ (m×br) · (q·scale)_b
			}
			if p.v.requiresGrad {
				tensor.Gemm(&sc.dv, &sc.st, &sc.dob, false, false, 1, 1) // P̃ᵀ (m×br) · ∂O_b
			}
		}
	}
	p.pool.put(sc)
}

// reduceRows adds the groups' partial key and value gradients of key rows
// [lo, hi) into k.Grad and v.Grad, in group order.
func (p *attentionOp[T]) reduceRows(lo, hi int) {
	m, w, dh, heads := p.m, p.w, p.dh, p.heads
	for _, a := range [2]struct {
		v    *Var[T]
		part []T
	}{{p.k, p.dkp}, {p.v, p.dvp}} {
		if !a.v.requiresGrad {
			continue
		}
		for j := lo; j < hi; j++ {
			for h := 0; h < heads; h++ {
				dst := a.v.Grad.Data[j*w+h*dh : j*w+(h+1)*dh]
				for g := 0; g < p.groups; g++ {
					off := (g*heads+h)*m*dh + j*dh
					for d, x := range a.part[off : off+dh] {
						dst[d] += x
					}
				}
			}
		}
	}
}

func growT[T Float](b []T, n int) []T {
	if cap(b) < n {
		return tensor.Make[T](n)
	}
	return b[:n]
}

func growF64(b []float64, n int) []float64 {
	if cap(b) < n {
		return tensor.Make[float64](n)
	}
	return b[:n]
}

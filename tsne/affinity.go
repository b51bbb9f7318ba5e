package tsne

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Bandwidth search: the bisection on the precision β = 1/(2σ²) stops when
// the entropy is within entropyTol of ln(perplexity), or after
// maxBisection steps.
const (
	entropyTol   = 1e-6
	maxBisection = 200
)

// csr is a sparse n×n matrix in compressed-sparse-row form.
type csr struct {
	n      int
	rowPtr []int
	col    []int32
	val    []float64
}

// knn returns the k nearest neighbours of every row of x (excluding the row
// itself; ties broken by index), found with a vantage-point tree: row i's
// neighbours are idx[i*k : (i+1)*k] in increasing distance, and dist2 holds
// their squared Euclidean distances.
func knn(x [][]float64, k int, rng *rand.Rand, p *pool) (idx []int, dist2 []float64) {
	n := len(x)
	tree := newVPTree(x, rng)
	idx = make([]int, n*k)
	dist2 = make([]float64, n*k)
	heaps := make([]*knnHeap, p.workers)
	for w := range heaps {
		heaps[w] = newKNNHeap(k)
	}
	p.run(n, func(w, lo, hi int) {
		q := heaps[w]
		for i := lo; i < hi; i++ {
			tree.search(i, q)
			for j, c := range q.sorted() {
				idx[i*k+j] = c.idx
				dist2[i*k+j] = c.dist * c.dist
			}
		}
	})
	return idx, dist2
}

// calibrate computes the conditional probabilities p_j ∝ exp(−β·d2_j) of one
// point over its neighbours, whose squared distances are d2, with β chosen
// by bisection so that the entropy −Σ p_j ln p_j equals ln(perplexity). It
// writes the probabilities into p (len(p) == len(d2)) and returns β and the
// entropy reached. If the target cannot be reached (for example when more
// than perplexity neighbours tie at the smallest distance) it returns the
// closest β found in maxBisection steps.
func calibrate(d2 []float64, perplexity float64, p []float64) (beta, entropy float64) {
	target := math.Log(perplexity)
	// Shifting the distances by their minimum leaves the normalised
	// probabilities unchanged and keeps the largest weight at exp(0) = 1,
	// so the sum never underflows.
	dmin := slices.Min(d2)
	var mean float64
	for _, d := range d2 {
		mean += d - dmin
	}
	mean /= float64(len(d2))
	beta = 1
	if mean > 0 {
		beta = 1 / mean
	}
	lo, hi := 0.0, math.Inf(1)
	eval := func(beta float64) float64 {
		var sum, dot float64
		for j, d := range d2 {
			e := d - dmin
			w := math.Exp(-beta * e)
			p[j] = w
			sum += w
			dot += w * e
		}
		for j := range p {
			p[j] /= sum
		}
		return math.Log(sum) + beta*dot/sum
	}
	for range maxBisection {
		entropy = eval(beta)
		diff := entropy - target
		if math.Abs(diff) < entropyTol {
			return beta, entropy
		}
		if diff > 0 { // too flat: sharpen
			lo = beta
			if math.IsInf(hi, 1) {
				beta *= 2
			} else {
				beta = (beta + hi) / 2
			}
		} else {
			hi = beta
			beta = (lo + beta) / 2
		}
	}
	return beta, eval(beta)
}

// conditionalP calibrates every row: cond[i*k : (i+1)*k] is the conditional
// distribution p_{·|i} over row i's neighbours idx[i*k : (i+1)*k].
func conditionalP(dist2 []float64, n, k int, perplexity float64, p *pool) (cond []float64) {
	cond = make([]float64, n*k)
	p.run(n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			calibrate(dist2[i*k:(i+1)*k], perplexity, cond[i*k:(i+1)*k])
		}
	})
	return cond
}

// symmetrize returns P = (C + Cᵀ)/(2n) for the sparse conditional matrix C
// with C[i][idx[i*k+j]] = cond[i*k+j]. Rows are sorted by column.
func symmetrize(idx []int, cond []float64, n, k int) *csr {
	deg := make([]int, n+1)
	for i := range n {
		deg[i] += k
		for _, j := range idx[i*k : (i+1)*k] {
			deg[j]++
		}
	}
	// Unmerged entries: row i holds its own k neighbours and the reverse
	// entries of the points that have i as a neighbour. A pair (i, j)
	// appears at most twice in a row and is merged by one addition, so the
	// result does not depend on the order of the entries.
	start := make([]int, n+1)
	for i := range n {
		start[i+1] = start[i] + deg[i]
	}
	type entry struct {
		col int32
		val float64
	}
	ent := make([]entry, start[n])
	fill := slices.Clone(start[:n])
	for i := range n {
		for j, c := range idx[i*k : (i+1)*k] {
			v := cond[i*k+j]
			ent[fill[i]] = entry{int32(c), v}
			fill[i]++
			ent[fill[c]] = entry{int32(i), v}
			fill[c]++
		}
	}
	m := &csr{n: n, rowPtr: make([]int, n+1)}
	m.col = make([]int32, 0, start[n])
	m.val = make([]float64, 0, start[n])
	scale := 1 / (2 * float64(n))
	for i := range n {
		row := ent[start[i]:start[i+1]]
		slices.SortStableFunc(row, func(a, b entry) int { return int(a.col) - int(b.col) })
		for e := 0; e < len(row); {
			c, v := row[e].col, row[e].val
			e++
			for e < len(row) && row[e].col == c {
				v += row[e].val
				e++
			}
			m.col = append(m.col, c)
			m.val = append(m.val, v*scale)
		}
		m.rowPtr[i+1] = len(m.col)
	}
	return m
}

// affinities computes the sparse symmetric input affinities P of x.
func affinities(x [][]float64, perplexity float64, rng *rand.Rand, p *pool) *csr {
	n, k := len(x), neighbours(perplexity)
	idx, dist2 := knn(x, k, rng, p)
	cond := conditionalP(dist2, n, k, perplexity, p)
	return symmetrize(idx, cond, n, k)
}

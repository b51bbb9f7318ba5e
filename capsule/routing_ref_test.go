package capsule

import (
	"math"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/tensor"
)

// refRouting is the reference implementation of the routing layer (DESIGN
// §5, Algorithm 1): float64, per-link loops over plain slices, built on the
// manifold package's reference functions. It reads r's parameters (of either
// float type) and returns the parent states, one slice per parent, and the
// per-parent total weight Σ_{i,k} c_ij γ_ijk of the last iteration.
func refRouting[T autodiff.Float](r *Routing[T], u [][]float64, beta float64, l *Links) (v [][]float64, mass []float64) {
	cfg := r.Cfg
	dims := cfg.Dims
	tt, s, K := dims.T, dims.S, r.K
	acr := cfg.Kind == ACR
	val := func(p *autodiff.Var[T], i, j int) float64 { return float64(p.Value.Data[i*p.Value.Cols+j]) }

	// Step 1.
	C, E := l.Children, l.NumLinks()
	a := make([][]float64, C)
	xi := make([][][]float64, C) // [i][k][c]
	betaK := make([]float64, K)
	for k := range betaK {
		betaK[k] = beta
		if acr {
			betaK[k] = manifold.BetaFromRho(float64(r.Rho[k].Value.Data[0]))
		}
	}
	for i := 0; i < C; i++ {
		a[i] = manifold.LogOVec(u[i], beta, dims)
		xi[i] = make([][]float64, K)
		for k := 0; k < K; k++ {
			sph := make([]float64, tt)
			for c := 0; c < tt; c++ {
				for m := 0; m < tt; m++ {
					sph[c] += a[i][m] * val(r.Wsph[k], m, c)
				}
			}
			x := append(manifold.WrapVec(sph, math.Sqrt(-betaK[k])), make([]float64, s)...)
			for c := 0; c < s; c++ {
				for m := 0; m < s; m++ {
					x[tt+c] += a[i][tt+m] * val(r.Weuc[k], m, c)
				}
			}
			for c := range x {
				x[c] += val(r.B[k], 0, c)
			}
			xi[i][k] = x
		}
	}
	xiE := make([][][]float64, E)
	for e, i := range l.Child {
		xiE[e] = xi[i]
	}
	return refRoute(r, a, xiE, betaK, beta, l)
}

// refRoute is steps 2-5 of the reference routing, for the children's
// tangent coordinates a and the predictions xiE[e][k] of each link e
// (node-level routing: ξ of the link's child; graph-level: ξ of the child
// under the parent's class weights).
func refRoute[T autodiff.Float](r *Routing[T], a [][]float64, xiE [][][]float64, betaK []float64, beta float64, l *Links) (v [][]float64, mass []float64) {
	cfg := r.Cfg
	dims := cfg.Dims
	d, K := dims.Tangent(), r.K
	acr := cfg.Kind == ACR
	val := func(p *autodiff.Var[T], i, j int) float64 { return float64(p.Value.Data[i*p.Value.Cols+j]) }
	P, E := l.Parents, l.NumLinks()
	parent := make([]int, E)
	for j := 0; j < P; j++ {
		for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
			parent[e] = j
		}
	}

	b := make([]float64, E)
	z := make([][]float64, P)
	for j := range z {
		z[j] = make([]float64, d)
	}
	v = make([][]float64, P)
	for it := 0; it < cfg.Iters; it++ {
		// Step 3: coupling.
		c := make([]float64, E)
		groups := map[int][]int{}
		for e := 0; e < E; e++ {
			key := parent[e]
			if cfg.Coupling == CouplingOverParents {
				key = int(l.Child[e])
			}
			groups[key] = append(groups[key], e)
		}
		for _, es := range groups {
			m := math.Inf(-1)
			for _, e := range es {
				m = math.Max(m, b[e])
			}
			sum := 0.0
			for _, e := range es {
				sum += math.Exp(b[e] - m)
			}
			for _, e := range es {
				c[e] = math.Exp(b[e]-m) / sum
			}
		}
		// Step 2: gates.
		gamma := make([][]float64, E)
		for e := 0; e < E; e++ {
			i, j := int(l.Child[e]), parent[e]
			g := make([]float64, K)
			if !acr {
				g[0] = 1
				gamma[e] = g
				continue
			}
			if cfg.NoC && cfg.NoA && cfg.NoR {
				for k := range g {
					g[k] = 1 / float64(K)
				}
				gamma[e] = g
				continue
			}
			logit := make([]float64, K)
			if !cfg.NoC {
				na := math.Sqrt(dotF(a[i], a[i]) + CosEps)
				nz := math.Sqrt(dotF(z[j], z[j]) + CosEps)
				kap := dotF(a[i], z[j]) / (na * nz)
				for k := range logit {
					logit[k] += val(r.AlphaC, 0, 0) * (-0.5 * (kap - betaK[k]) * (kap - betaK[k]))
				}
			}
			if !cfg.NoA {
				m := cfg.AlignDim
				for k := range logit {
					A := 0.0
					for q := 0; q < m; q++ {
						pre := 0.0
						for cc := 0; cc < d; cc++ {
							pre += a[i][cc]*val(r.AlignA, cc, k*m+q) + z[j][cc]*val(r.AlignZ, cc, k*m+q)
						}
						A += val(r.AlignW, k, q) * math.Tanh(pre)
					}
					logit[k] += val(r.AlphaA, 0, 0) * A
				}
			}
			if !cfg.NoR {
				h := make([]float64, K)
				for k := range h {
					h[k] = manifold.TangentMetric(z[j], xiE[e][k], dims)
				}
				for k := range logit {
					wh := 0.0
					for k2 := range h {
						wh += val(r.WC, k2, k) * h[k2] // (W^C h)_k, WC stored transposed
					}
					logit[k] += val(r.AlphaR, 0, 0) * math.Log(c[e]+1e-9) * wh
				}
			}
			sum := 0.0
			for k := range g {
				g[k] = 1 / (1 + math.Exp(-logit[k]))
				sum += g[k]
			}
			for k := range g {
				g[k] /= sum
			}
			gamma[e] = g
		}
		// Step 4: aggregation, activation, projection.
		S := make([][]float64, P)
		mass = make([]float64, P)
		for j := range S {
			S[j] = make([]float64, d)
		}
		for e := 0; e < E; e++ {
			j := parent[e]
			for k := 0; k < K; k++ {
				w := c[e] * gamma[e][k]
				mass[j] += w
				for cc := range S[j] {
					S[j][cc] += w * xiE[e][k][cc]
				}
			}
		}
		for j := 0; j < P; j++ {
			sj := manifold.ExpOVec(S[j], beta, dims)
			act := manifold.ActivateVec(manifold.LogOVec(sj, beta, dims), cfg.Activation)
			v[j] = manifold.ProjQVec(manifold.ExpOVec(act, beta, dims), beta, dims)
			z[j] = manifold.LogOVec(v[j], beta, dims)
		}
		// Step 5: agreement.
		for e := 0; e < E; e++ {
			j := parent[e]
			for k := 0; k < K; k++ {
				b[e] += gamma[e][k] * manifold.TangentMetric(z[j], xiE[e][k], dims)
			}
		}
	}
	return v, mass
}

func dotF(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// routingTestGraph is a small graph: nodes 0-5 with a hub (0), a chain, a
// node with only its self-loop (5, isolated) and an asymmetric arc.
func routingTestGraph() *Links {
	// In-neighbours (CSR by target, sorted).
	in := [][]int32{{1, 2, 3}, {0, 2}, {0, 1, 4}, {0}, {2, 3}, {}}
	ptr := []int32{0}
	var src []int32
	for _, ns := range in {
		src = append(src, ns...)
		ptr = append(ptr, int32(len(src)))
	}
	return NodeLinks(len(in), ptr, src)
}

// bipartiteTestLinks has 5 children and 4 parents: parent 0 has one child,
// parent 2 none, children shared between parents.
func bipartiteTestLinks() *Links {
	return &Links{Parents: 4, Children: 5, Ptr: []int32{0, 1, 4, 4, 7}, Child: []int32{3, 0, 2, 4, 1, 2, 3}}
}

// randTangentPoints returns n points exp̂_o(ξ) on Q with tangent norms in
// [lo, hi] (time and space blocks drawn independently).
func randTangentPoints(rng *rand.Rand, n int, beta float64, dims manifold.Dims, lo, hi float64) [][]float64 {
	out := make([][]float64, n)
	for i := range out {
		xi := make([]float64, dims.Tangent())
		for c := range xi {
			xi[c] = rng.NormFloat64()
		}
		nrm := math.Sqrt(dotF(xi, xi))
		scale := (lo + (hi-lo)*rng.Float64()) / nrm
		for c := range xi {
			xi[c] *= scale
		}
		out[i] = manifold.ExpOVec(xi, beta, dims)
	}
	return out
}

func denseFromRows[T autodiff.Float](rows [][]float64) *tensor.Dense[T] {
	m := tensor.NewDense[T](len(rows), len(rows[0]))
	for i, r := range rows {
		for j, v := range r {
			m.Data[i*m.Cols+j] = T(v)
		}
	}
	return m
}

// copyRoutingParams copies src's parameter values into dst (same config).
func copyRoutingParams[T, U autodiff.Float](dst *Routing[T], src *Routing[U]) {
	dp := append(dst.Params(), dst.CurvatureParams()...)
	sp := append(src.Params(), src.CurvatureParams()...)
	for n, p := range dp {
		for i, v := range sp[n].Value.Data {
			p.Value.Data[i] = T(v)
		}
	}
}

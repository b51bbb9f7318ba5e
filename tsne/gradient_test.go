package tsne

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// exactGradient is the O(N²) t-SNE gradient, straight from the definition:
//
//	∂C/∂y_i = 4 Σ_j (exag·P_ij − q_ij) (y_i − y_j) / (1 + ‖y_i − y_j‖²),
//	q_ij = w_ij / Σ_{k≠l} w_kl,  w_ij = 1 / (1 + ‖y_i − y_j‖²).
func exactGradient(y []float64, p [][]float64, exag float64) []float64 {
	n := len(p)
	w := func(i, j int) float64 {
		dx, dy := y[2*i]-y[2*j], y[2*i+1]-y[2*j+1]
		return 1 / (1 + dx*dx + dy*dy)
	}
	var z float64
	for i := range n {
		for j := range n {
			if i != j {
				z += w(i, j)
			}
		}
	}
	g := make([]float64, 2*n)
	for i := range n {
		for j := range n {
			if i == j {
				continue
			}
			wij := w(i, j)
			m := 4 * (exag*p[i][j] - wij/z) * wij
			g[2*i] += m * (y[2*i] - y[2*j])
			g[2*i+1] += m * (y[2*i+1] - y[2*j+1])
		}
	}
	return g
}

// randomP returns a random sparse symmetric affinity matrix summing to 1,
// each point linked to about deg others.
func randomP(rng *rand.Rand, n, deg int) [][]float64 {
	p := make([][]float64, n)
	for i := range p {
		p[i] = make([]float64, n)
	}
	var sum float64
	for i := range n {
		for range deg {
			j := rng.IntN(n)
			if j == i {
				continue
			}
			v := rng.Float64()
			p[i][j] += v
			p[j][i] += v
			sum += 2 * v
		}
	}
	for i := range p {
		for j := range p[i] {
			p[i][j] /= sum
		}
	}
	return p
}

// layout returns 2n map coordinates of the named kind.
func layout(rng *rand.Rand, kind string, n int) []float64 {
	y := make([]float64, 2*n)
	switch kind {
	case "spread": // a converged-looking map: std 10
		for c := range y {
			y[c] = 10 * rng.NormFloat64()
		}
	case "initial": // the initial std 1e-4
		for c := range y {
			y[c] = initStd * rng.NormFloat64()
		}
	case "clusters": // tight, far-apart clusters
		for i := range n {
			cx, cy := float64(i%4)*30, float64(i%3)*25
			y[2*i] = cx + rng.NormFloat64()
			y[2*i+1] = cy + 0.5*rng.NormFloat64()
		}
	case "duplicates": // many coincident points, some nearly so
		for i := range n {
			y[2*i] = float64(i % 5)
			y[2*i+1] = float64(i % 3)
			if i%7 == 0 {
				y[2*i] += 1e-13 * float64(i)
			}
		}
	default:
		panic(kind)
	}
	return y
}

func bhGradient(y []float64, p *csr, theta, exag float64, workers int) []float64 {
	pl := newPool(workers)
	defer pl.close()
	o := newOptimizer(p, theta, pl)
	copy(o.y, y)
	o.gradient(exag)
	return o.grad
}

func TestGradient(t *testing.T) {
	for _, tc := range []struct {
		n      int
		kind   string
		exag   float64
		theta  float64
		relTol float64 // on ‖·‖∞ for theta = 0, ‖·‖₂ otherwise
	}{
		{n: 60, kind: "spread", exag: 1, theta: 0, relTol: 1e-10},
		{n: 300, kind: "spread", exag: 12, theta: 0, relTol: 1e-10},
		{n: 300, kind: "initial", exag: 12, theta: 0, relTol: 1e-10},
		{n: 300, kind: "clusters", exag: 1, theta: 0, relTol: 1e-10},
		{n: 200, kind: "duplicates", exag: 1, theta: 0, relTol: 1e-10},
		{n: 500, kind: "spread", exag: 1, theta: 0.5, relTol: 0.03},
		{n: 500, kind: "initial", exag: 12, theta: 0.5, relTol: 0.03},
		{n: 500, kind: "clusters", exag: 1, theta: 0.5, relTol: 0.03},
		{n: 500, kind: "spread", exag: 1, theta: 0.2, relTol: 0.005},
	} {
		t.Run(fmt.Sprintf("n%d_%s_exag%g_theta%g", tc.n, tc.kind, tc.exag, tc.theta), func(t *testing.T) {
			rng := newRNG(uint64(tc.n))
			pd := randomP(rng, tc.n, 10)
			y := layout(rng, tc.kind, tc.n)
			want := exactGradient(y, pd, tc.exag)
			for _, workers := range []int{1, 3} {
				got := bhGradient(y, denseToCSR(pd), tc.theta, tc.exag, workers)
				var e float64
				if tc.theta == 0 {
					e = relErrInf(got, want)
				} else {
					e = relErr2(got, want)
				}
				if !(e <= tc.relTol) {
					t.Errorf("workers=%d: relative error %.3g, want ≤ %g", workers, e, tc.relTol)
				}
				t.Logf("workers=%d: relative error %.3g", workers, e)
			}
		})
	}
}

// TestRepulsionTheta checks the Barnes-Hut repulsive forces and Z alone,
// which the attractive forces could otherwise mask.
func TestRepulsionTheta(t *testing.T) {
	const n = 1000
	for _, kind := range []string{"spread", "clusters"} {
		t.Run(kind, func(t *testing.T) {
			y := layout(newRNG(7), kind, n)
			exact := func(theta float64) ([]float64, float64) {
				q := newQuadtree(n)
				q.build(y)
				f := make([]float64, 2*n)
				var z float64
				for i := range int32(n) {
					fx, fy, zi := q.repulsion(i, y[2*i], y[2*i+1], theta*theta)
					f[2*i], f[2*i+1] = fx, fy
					z += zi
				}
				return f, z
			}
			f0, z0 := exact(0)
			f5, z5 := exact(0.5)
			if e := relErr2(f5, f0); e > 0.03 {
				t.Errorf("repulsive force relative error %.3g at theta 0.5, want ≤ 0.03", e)
			} else {
				t.Logf("repulsive force relative error %.3g", e)
			}
			if e := math.Abs(z5-z0) / z0; e > 0.02 {
				t.Errorf("Z relative error %.3g at theta 0.5, want ≤ 0.02", e)
			}
		})
	}
}

// TestStepNoAlloc checks that an optimiser iteration allocates nothing.
func TestStepNoAlloc(t *testing.T) {
	rng := newRNG(3)
	const n = 400
	p := denseToCSR(randomP(rng, n, 10))
	pl := newPool(2)
	defer pl.close()
	o := newOptimizer(p, 0.5, pl)
	copy(o.y, layout(rng, "spread", n))
	o.step(1, 0.8, 50) // warm up the node slice
	if a := testing.AllocsPerRun(5, func() { o.step(1, 0.8, 50) }); a != 0 {
		t.Errorf("step allocates %v times, want 0", a)
	}
}

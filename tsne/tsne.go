package tsne

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
)

// Streams of the PCG generator seeded with Config.Seed.
const (
	streamInit   = 0x7473_6e65_696e_6974 // initial positions
	streamVPTree = 0x7473_6e65_7670_7472 // vantage-point choices
)

// Point is a point type accepted by the quality measures: a slice of
// coordinates (any dimension) or a 2-D map point as returned by Embed.
type Point interface {
	~[]float64 | ~[2]float64
}

// Embed maps the rows of x (N points of D coordinates each) to the plane
// with Barnes-Hut t-SNE and returns the N map points, centred at the
// origin. x is not modified.
//
// It returns an error, and never panics, for invalid input: no points,
// points with no coordinates, rows of different lengths, NaN or infinite
// coordinates, a Config that fails Validate, or a perplexity too large for
// N (N−1 > 3·Perplexity is required).
//
// The work runs on runtime.GOMAXPROCS(0) goroutines; the result does not
// depend on their number or scheduling.
func Embed(x [][]float64, cfg Config) ([][2]float64, error) {
	return embed(x, cfg, runtime.GOMAXPROCS(0))
}

func embed(x [][]float64, cfg Config, workers int) ([][2]float64, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if _, err := checkPoints("x", x); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	n := len(x)
	if !(float64(n-1) > 3*cfg.Perplexity) {
		return nil, fmt.Errorf("tsne: Config.Perplexity %v is too large for %d points: need N−1 > 3·Perplexity", cfg.Perplexity, n)
	}

	pl := newPool(workers)
	defer pl.close()
	p := affinities(x, cfg.Perplexity, rand.New(rand.NewPCG(cfg.Seed, streamVPTree)), pl)

	o := newOptimizer(p, cfg.Theta, pl)
	rng := rand.New(rand.NewPCG(cfg.Seed, streamInit))
	for c := range o.y {
		o.y[c] = initStd * rng.NormFloat64()
	}
	o.recentre()
	eta := cfg.learningRate(n)
	for it := range cfg.Iterations {
		exag, mom := 1.0, cfg.FinalMomentum
		if it < cfg.ExaggerationIterations {
			exag, mom = cfg.EarlyExaggeration, cfg.InitialMomentum
		}
		o.step(exag, mom, eta)
	}

	out := make([][2]float64, n)
	for i := range out {
		out[i] = [2]float64{o.y[2*i], o.y[2*i+1]}
	}
	return out, nil
}

// optimizer holds the state of the gradient descent; after construction it
// allocates nothing per iteration.
type optimizer struct {
	n      int
	p      *csr
	theta2 float64
	pool   *pool
	tree   *quadtree

	y      []float64 // positions, y[2i], y[2i+1]
	grad   []float64 // gradient of the KL divergence
	update []float64 // momentum term
	gains  []float64 // per-coordinate adaptive gains

	attr []float64 // Σ_j P_ij w_ij (y_i − y_j)
	rep  []float64 // Σ_j w_ij² (y_i − y_j) (Barnes-Hut)
	z    []float64 // Σ_j w_ij (Barnes-Hut)

	forcesBody func(w, lo, hi int) // o.forces, stored once so run does not allocate
}

func newOptimizer(p *csr, theta float64, pl *pool) *optimizer {
	n := p.n
	o := &optimizer{
		n:      n,
		p:      p,
		theta2: theta * theta,
		pool:   pl,
		tree:   newQuadtree(n),
		y:      make([]float64, 2*n),
		grad:   make([]float64, 2*n),
		update: make([]float64, 2*n),
		gains:  make([]float64, 2*n),
		attr:   make([]float64, 2*n),
		rep:    make([]float64, 2*n),
		z:      make([]float64, n),
	}
	for c := range o.gains {
		o.gains[c] = 1
	}
	o.forcesBody = o.forces
	return o
}

// forces computes attr, rep and z for the points at positions [lo, hi) of
// the quadtree order, so that a chunk visits neighbouring cells.
func (o *optimizer) forces(_, lo, hi int) {
	y, p, t := o.y, o.p, o.tree
	for _, i := range t.perm[lo:hi] {
		px, py := y[2*i], y[2*i+1]
		var ax, ay float64
		for e := p.rowPtr[i]; e < p.rowPtr[i+1]; e++ {
			j := p.col[e]
			dx, dy := px-y[2*j], py-y[2*j+1]
			f := p.val[e] / (1 + dx*dx + dy*dy)
			ax += f * dx
			ay += f * dy
		}
		o.attr[2*i], o.attr[2*i+1] = ax, ay
		fx, fy, z := t.repulsion(i, px, py, o.theta2)
		o.rep[2*i], o.rep[2*i+1] = fx, fy
		o.z[i] = z
	}
}

// gradient sets o.grad to the gradient of KL(P‖Q) at o.y with P multiplied
// by exag:
//
//	∂C/∂y_i = 4 Σ_j (exag·P_ij − q_ij) w_ij (y_i − y_j),  q_ij = w_ij / Z,
//
// with the repulsive part and Z = Σ_{k≠l} w_kl from the quadtree.
func (o *optimizer) gradient(exag float64) {
	o.tree.build(o.y)
	o.pool.run(o.n, o.forcesBody)
	var z float64
	for _, v := range o.z { // fixed order: deterministic
		z += v
	}
	for c := range o.grad {
		o.grad[c] = 4 * (exag*o.attr[c] - o.rep[c]/z)
	}
}

// step does one iteration of gradient descent with momentum and
// delta-bar-delta gains, then re-centres the map.
func (o *optimizer) step(exag, momentum, eta float64) {
	o.gradient(exag)
	for c, g := range o.grad {
		u := o.update[c]
		if sign(g) != sign(u) {
			o.gains[c] += gainIncrease
		} else {
			o.gains[c] = math.Max(o.gains[c]*gainDecrease, minGain)
		}
		u = momentum*u - eta*o.gains[c]*g
		o.update[c] = u
		o.y[c] += u
	}
	o.recentre()
}

// recentre subtracts the mean position.
func (o *optimizer) recentre() {
	var mx, my float64
	for i := 0; i < len(o.y); i += 2 {
		mx += o.y[i]
		my += o.y[i+1]
	}
	mx /= float64(o.n)
	my /= float64(o.n)
	for i := 0; i < len(o.y); i += 2 {
		o.y[i] -= mx
		o.y[i+1] -= my
	}
}

func sign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// checkPoints checks that x is a non-empty set of points of one positive
// dimension with finite coordinates, and returns the dimension. name is the
// argument's name in error messages.
func checkPoints[P Point](name string, x []P) (int, error) {
	if len(x) == 0 {
		return 0, fmt.Errorf("tsne: %s has no points", name)
	}
	d := len(x[0])
	if d == 0 {
		return 0, fmt.Errorf("tsne: %s has points with no coordinates", name)
	}
	for i, row := range x {
		if len(row) != d {
			return 0, fmt.Errorf("tsne: %s is ragged: row %d has %d coordinates, row 0 has %d", name, i, len(row), d)
		}
		for j := 0; j < d; j++ {
			if v := row[j]; math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("tsne: %s[%d][%d] is %v, want a finite number", name, i, j, v)
			}
		}
	}
	return d, nil
}

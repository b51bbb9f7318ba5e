package autodiff

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/tensor"
)

// BatchNormEps is PyTorch's default epsilon of nn.BatchNorm1d.
const BatchNormEps = 1e-5

// BatchStats are the statistics BatchNorm normalises with outside training
// (PyTorch's running_mean and running_var buffers): in training mode each
// call moves them towards the batch's statistics by Momentum, with the
// unbiased variance, as PyTorch does.
type BatchStats[T Float] struct {
	Mean, Var []T     // per column; Var starts at 1, Mean at 0
	Momentum  float64 // weight of the new batch, PyTorch's 0.1
}

// batchNormOp is the record of y = γ ⊙ (x − μ)·rstd + β over each column,
// μ and rstd the batch's (training) or the running statistics' (evaluation).
type batchNormOp[T Float] struct {
	x, gamma, beta, out *Var[T]
	batch               bool      // statistics of the batch, so the gradient flows through them
	rstd                []float64 // per column
	xhat                []T       // normalised input
	acc                 []float64 // column sums: mean, ∂β, ∂γ
	coef                []T       // per-column coefficients of the element loops
}

// BatchNorm normalises each column of x (rows are the samples: the nodes of
// a mini-batch) to zero mean and unit variance and applies the learnable
// 1×C scale gamma and shift beta: PyTorch's nn.BatchNorm1d(C). With training
// it uses the batch's statistics (biased variance, eps inside the square
// root) and moves stats towards them; otherwise it uses stats. A one-row
// batch in training mode normalises to beta (zero variance), where PyTorch
// raises an error. It panics on mismatched shapes.
//
// Statistics are computed in float64 with two passes.
func BatchNorm[T Float](t *Tape[T], x, gamma, beta *Var[T], stats *BatchStats[T], eps float64, training bool) *Var[T] {
	R, C := x.Value.Rows, x.Value.Cols
	for _, a := range [2]struct {
		v    *Var[T]
		name string
	}{{gamma, "gamma"}, {beta, "beta"}} {
		if a.v.Value.Rows != 1 || a.v.Value.Cols != C {
			panic(fmt.Sprintf("autodiff: BatchNorm %s is %d×%d, want 1×%d", a.name, a.v.Value.Rows, a.v.Value.Cols, C))
		}
	}
	if len(stats.Mean) != C || len(stats.Var) != C {
		panic(fmt.Sprintf("autodiff: BatchNorm statistics for %d and %d columns, want %d", len(stats.Mean), len(stats.Var), C))
	}
	out := t.Node(R, C, x, gamma, beta)
	p := OpOf[batchNormOp[T]](out)
	p.x, p.gamma, p.beta, p.out, p.batch = x, gamma, beta, out, training
	if cap(p.rstd) < C {
		p.rstd, p.acc = make([]float64, C), make([]float64, 3*C)
	}
	p.rstd, p.acc = p.rstd[:C], p.acc[:3*C]
	if cap(p.xhat) < R*C {
		p.xhat = make([]T, R*C)
	}
	p.xhat = p.xhat[:R*C]
	mu := p.acc[:C]
	xd := x.Value.Data[:R*C]
	if training {
		clear(mu)
		tensor.SumRowsWiden(mu, xd)
		ss := p.rstd // the squared deviations, then rstd in place
		clear(ss)
		for j := range mu {
			mu[j] /= float64(max(R, 1))
		}
		tensor.SumSqDevRowsWiden(ss, mu, xd)
		m := stats.Momentum
		for j := range ss {
			unbiased := ss[j] / float64(max(R-1, 1))
			stats.Mean[j] = T((1-m)*float64(stats.Mean[j]) + m*mu[j])
			stats.Var[j] = T((1-m)*float64(stats.Var[j]) + m*unbiased)
			ss[j] = 1 / math.Sqrt(ss[j]/float64(max(R, 1))+eps)
		}
	} else {
		for j := range mu {
			mu[j] = float64(stats.Mean[j])
			p.rstd[j] = 1 / math.Sqrt(float64(stats.Var[j])+eps)
		}
	}
	// Per-column coefficients in T, so that the per-element loops are plain
	// multiply-adds: x̂ = (x − μ)·rstd, y = γ·x̂ + β.
	if cap(p.coef) < 3*C { // the third block is Backward's
		p.coef = make([]T, 3*C)
	}
	p.coef = p.coef[:3*C]
	mu32, rstd32 := p.coef[:C], p.coef[C:2*C]
	for j := range mu32 {
		mu32[j], rstd32[j] = T(mu[j]), T(p.rstd[j])
	}
	tensor.NormalizeRows(out.Value.Data[:R*C], p.xhat, xd, mu32, rstd32, gamma.Value.Data[:C], beta.Value.Data[:C])
	return out
}

// Backward implements Op. With x̂ the normalised input and g the output
// gradient, ∂β = Σ_rows g, ∂γ = Σ_rows g ⊙ x̂, and for batch statistics
// ∂x = γ·rstd · (g − ∂β/R − x̂ ⊙ ∂γ/R); for fixed statistics ∂x = γ·rstd·g.
func (p *batchNormOp[T]) Backward(out *Var[T]) {
	R, C := out.Value.Rows, out.Value.Cols
	sb, sg := p.acc[C:2*C], p.acc[2*C:3*C]
	clear(sb)
	clear(sg)
	gd := out.Grad.Data[:R*C]
	tensor.SumRowsWiden(sb, gd)
	tensor.SumProdRowsWiden(sg, gd, p.xhat)
	if p.x.requiresGrad {
		// ∂x = c1·(g − c2 − x̂·c3) with per-column c1 = γ·rstd and, for
		// batch statistics, c2 = ∂β/R and c3 = ∂γ/R (zero otherwise).
		inv := 1 / float64(max(R, 1))
		c1, c2, c3 := p.coef[:C], p.coef[C:2*C], p.coef[2*C:3*C]
		gam := p.gamma.Value.Data[:C]
		for j := range c1 {
			c1[j] = T(float64(gam[j]) * p.rstd[j])
			c2[j], c3[j] = 0, 0
			if p.batch {
				c2[j], c3[j] = T(sb[j]*inv), T(sg[j]*inv)
			}
		}
		tensor.NormalizeGradRows(p.x.Grad.Data[:R*C], gd, p.xhat, c1, c2, c3)
	}
	if p.beta.requiresGrad {
		for j, v := range sb {
			p.beta.Grad.Data[j] += T(v)
		}
	}
	if p.gamma.requiresGrad {
		for j, v := range sg {
			p.gamma.Grad.Data[j] += T(v)
		}
	}
}

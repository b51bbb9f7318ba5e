package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/prcaps/prcaps/tensor"
)

// reluDropoutOp is the record of out = ReLU(x) ⊙ mask (see ReLUDropout).
// It keeps neither ReLU's output nor the mask.
type reluDropoutOp[T Float] struct {
	x, out   *Var[T]
	drop     bool   // a training pass with 0 < p < 1
	seed     uint64 // drawn from the caller's source, one per pass
	thr      uint64 // element dropped when its 32-bit uniform < thr
	keep     T      // 1/(1−p)
	fwd, bwd func(lo, hi int)
}

// ReLUDropout is Dropout(ReLU(x), p) in one op, the hidden layer of GCN-style
// stems: the same values, the same random draws from rng and the same
// gradients as the two ops, bit for bit, but only the output is kept. The
// two ops keep ReLU's output and the mask as well, two more tensors of x's
// size. The output is positive exactly where x > 0 and the element is kept,
// which is where the chain's gradient is g/(1−p); elsewhere it is 0, so the
// backward pass needs nothing else. (With a NaN or infinite upstream
// gradient the chain may also pass NaN where an element was dropped; this
// op passes 0 there.)
//
// In evaluation (training false) or with p = 0 it is ReLU, recorded as this
// op at the same tape position as in training, so that an evaluation pass on
// the training tape finds every later op where training left it. It panics
// unless 0 ≤ p ≤ 1, or if rng is nil in training with p > 0.
func ReLUDropout[T Float](t *Tape[T], x *Var[T], p float64, rng *rand.Rand, training bool) *Var[T] {
	if !(p >= 0 && p <= 1) {
		panic(fmt.Sprintf("autodiff: ReLUDropout probability %g outside [0, 1]", p))
	}
	drop := training && p > 0
	if drop && rng == nil {
		panic("autodiff: ReLUDropout in training needs a random source")
	}
	out := t.Node(x.Value.Rows, x.Value.Cols, x)
	op := OpOf[reluDropoutOp[T]](out)
	if op.fwd == nil {
		op.fwd, op.bwd = op.forwardBlocks, op.backwardBlocks
	}
	op.x, op.out, op.drop = x, out, drop
	n := len(x.Value.Data)
	if drop && p == 1 {
		op.keep = 0 // no gradient: the output is 0
		clear(out.Value.Data)
		return out
	}
	op.keep = 1
	if drop {
		op.seed = rng.Uint64()
		op.thr = uint64(math.Round(p * (1 << 32)))
		op.keep = T(1 / (1 - p))
	}
	blocks := (n + dropoutBlock - 1) / dropoutBlock
	tensor.ParallelFor(blocks, 2*dropoutBlock, op.fwd)
	return out
}

// forwardBlocks computes blocks [lo, hi) of the output: ReLU(x) times
// Dropout's mask value, drawn as Dropout draws it (block b from PCG stream
// (seed, b), two elements per 64-bit draw).
func (p *reluDropoutOp[T]) forwardBlocks(lo, hi int) {
	n := len(p.out.Value.Data)
	x, y := p.x.Value.Data[:n], p.out.Value.Data[:n]
	var src rand.PCG
	for b := lo; b < hi; b++ {
		lo, end := b*dropoutBlock, min((b+1)*dropoutBlock, n)
		xb, yb := x[lo:end], y[lo:end]
		tensor.VecReLU(yb, xb) // NaN propagates, as in ReLU
		if !p.drop {
			continue
		}
		src.Seed(p.seed, uint64(b))
		dropoutDraws(yb, &src, p.thr, p.keep, true)
	}
}

// backwardBlocks adds g·keep to ∂x where the output is positive (keep =
// 1/(1−p), or 1 without dropout): Dropout's g·mask followed by ReLU's
// masked addition.
func (p *reluDropoutOp[T]) backwardBlocks(lo, hi int) {
	n := len(p.out.Value.Data)
	lo, hi = lo*dropoutBlock, min(hi*dropoutBlock, n)
	y, g, gx := p.out.Value.Data[lo:hi], p.out.Grad.Data[lo:hi], p.x.Grad.Data[lo:hi]
	g, gx = g[:len(y)], gx[:len(y)]
	if p.keep == 1 {
		tensor.VecReLUGrad(gx, g, y)
		return
	}
	tensor.VecReLUGradScaled(gx, g, y, p.keep)
}

// Backward implements Op.
func (p *reluDropoutOp[T]) Backward(out *Var[T]) {
	if p.x.requiresGrad && p.keep != 0 {
		n := len(out.Value.Data)
		tensor.ParallelFor((n+dropoutBlock-1)/dropoutBlock, dropoutBlock, p.bwd)
	}
}

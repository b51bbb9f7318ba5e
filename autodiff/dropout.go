package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/prcaps/prcaps/tensor"
)

// dropoutBlock is the number of elements whose mask comes from one random
// stream. The streams are independent of how the work is split, so the mask
// depends on the seed alone, not on GOMAXPROCS or scheduling.
const dropoutBlock = 4096

// dropoutOp is the record of out = x ⊙ mask, where each mask element is 0
// (dropped) or 1/(1−p) (kept). The mask lives in the record and is reused.
type dropoutOp[T Float] struct {
	x, out   *Var[T]
	mask     []T
	seed     uint64 // drawn from the caller's source, one per pass
	thr      uint64 // element dropped when its 32-bit uniform < thr
	keep     T      // 1/(1−p)
	fwd, bwd func(lo, hi int)
}

// forwardBlocks draws the mask of blocks [lo, hi) and applies it. Block b
// uses PCG stream (seed, b); each 64-bit draw decides two elements.
func (p *dropoutOp[T]) forwardBlocks(lo, hi int) {
	n := len(p.mask)
	x, y := p.x.Value.Data[:n], p.out.Value.Data[:n]
	var src rand.PCG // a value: seeding it per block allocates nothing
	for b := lo; b < hi; b++ {
		src.Seed(p.seed, uint64(b))
		lo, end := b*dropoutBlock, min((b+1)*dropoutBlock, n)
		mask := p.mask[lo:end]
		dropoutDraws(mask, &src, p.thr, p.keep, false)
		tensor.VecMul(y[lo:end], x[lo:end], mask)
	}
}

func (p *dropoutOp[T]) backwardRange(lo, hi int) {
	tensor.VecMulAdd(p.x.Grad.Data[lo:hi], p.out.Grad.Data[lo:hi], p.mask[lo:hi])
}

// Backward implements Op: the same mask scales the gradient.
func (p *dropoutOp[T]) Backward(out *Var[T]) {
	if p.x.requiresGrad {
		tensor.ParallelFor(len(p.mask), 1, p.bwd)
	}
}

// Dropout is inverted dropout on a dense activation: in training each
// element is zeroed with probability p and the survivors are scaled by
// 1/(1−p), so the expected value is unchanged and evaluation needs no
// rescaling (torch.nn.functional.dropout). With training false or p = 0 it
// returns x itself and records nothing; p = 1 gives zeros. An evaluation pass
// should therefore run on its own Tape (or with NoGrad on a separate one) so
// that the training tape's op positions, and thus its recycled buffers, stay
// the same from step to step.
//
// The randomness comes from rng alone (one draw per call seeds independent
// PCG streams for blocks of elements, so the mask can be drawn in parallel),
// hence a run is reproducible from its seed whatever the core count; rng
// must not be shared with concurrently running goroutines. A kept element
// is decided by 32 random bits, a resolution of 2⁻³² on p.
// It panics unless 0 ≤ p ≤ 1, or if rng is nil in training with p > 0.
func Dropout[T Float](t *Tape[T], x *Var[T], p float64, rng *rand.Rand, training bool) *Var[T] {
	if !(p >= 0 && p <= 1) {
		panic(fmt.Sprintf("autodiff: Dropout probability %g outside [0, 1]", p))
	}
	if p == 0 {
		return x
	}
	if !training {
		// Take the position the training pass records at, so that an
		// evaluation pass on the same tape finds every later op's record
		// and buffers where training left them (see Tape.Skip).
		if t != nil {
			t.Skip()
		}
		return x
	}
	if rng == nil {
		panic("autodiff: Dropout in training needs a random source")
	}
	out := t.Node(x.Value.Rows, x.Value.Cols, x)
	op := OpOf[dropoutOp[T]](out)
	if op.fwd == nil {
		op.fwd, op.bwd = op.forwardBlocks, op.backwardRange
	}
	op.x, op.out = x, out
	n := len(x.Value.Data)
	if cap(op.mask) < n {
		op.mask = make([]T, n)
	}
	op.mask = op.mask[:n]
	if p == 1 {
		clear(op.mask)
		clear(out.Value.Data)
		return out
	}
	op.seed = rng.Uint64()
	op.thr = uint64(math.Round(p * (1 << 32)))
	op.keep = T(1 / (1 - p))
	blocks := (n + dropoutBlock - 1) / dropoutBlock
	tensor.ParallelFor(blocks, 2*dropoutBlock, op.fwd)
	return out
}

// dropoutDraws draws one block's mask values from src, two elements per
// 64-bit draw (the low 32 bits first), and writes them to dst, or with mul
// multiplies dst by them (ReLUDropout's output, in place). The draws come
// first, into a buffer on the stack, and the decisions in one vector pass
// (tensor.DropoutMask): the bits of deciding them draw by draw.
func dropoutDraws[T Float](dst []T, src *rand.PCG, thr uint64, keep T, mul bool) {
	var buf [dropoutBlock / 2]uint64
	words := buf[:(len(dst)+1)/2]
	for i := range words {
		words[i] = src.Uint64()
	}
	var s []T
	if mul {
		s = dst // (dst·1)·m is dst·m
	}
	tensor.DropoutMask(dst, s, words, thr, 1, keep)
}

package capsule

import (
	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// The records of this file have no backward pass: they are constants of
// the tape, through which no gradient flows.

// detach records a copy of x through which no gradient flows (a stop-gradient,
// for DetachB, in every routing layer).
func detach[T autodiff.Float](t *autodiff.Tape[T], x *autodiff.Var[T]) *autodiff.Var[T] {
	out := t.Node(x.Value.Rows, x.Value.Cols)
	copy(out.Value.Data, x.Value.Data)
	return out
}

// constant records an r×c node holding v everywhere, with no gradient.
func constant[T autodiff.Float](t *autodiff.Tape[T], r, c int, v T) *autodiff.Var[T] {
	out := t.Node(r, c)
	for i := range out.Value.Data {
		out.Value.Data[i] = v
	}
	return out
}

// uniformCoupling records the coupling of the first iteration, b = 0, over
// each parent's children: the softmax of zeros, which is 1/n_j as
// SegmentSoftmax rounds it (it is computed by that kernel, in place), with
// no vector of zero logits on the tape. It is a constant: no gradient
// flows from it.
func uniformCoupling[T autodiff.Float](t *autodiff.Tape[T], ix *linkIndex) *autodiff.Var[T] {
	l := ix.links
	c := t.Node(l.NumLinks(), 1)
	clear(c.Value.Data)
	tensor.SegmentSoftmax(c.Value.Data, c.Value.Data, l.Ptr[:l.Parents+1])
	return c
}

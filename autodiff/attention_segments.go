package autodiff

import (
	"fmt"
	"math/rand/v2"

	"github.com/prcaps/prcaps/tensor"
)

// segAttentionOp is the record of SegmentAttention: one attentionOp per
// non-empty segment, reused position by position between passes, each on
// views of the segment's rows.
type segAttentionOp[T Float] struct {
	q, k, v, out *Var[T]
	subs         []*attentionOp[T]
	views        []*segViews[T]
	used         int // segments of this pass
}

// segViews are a segment's rows [lo, hi) of q, k, v and the output, as
// Vars that share the whole matrices' storage: their values from the
// forward pass, their gradients (which the tape hands out only in the
// backward pass) from Backward.
type segViews[T Float] struct {
	lo, hi       int
	q, k, v, out Var[T]
}

// SegmentAttention records Attention within each segment of rows: rows
// [seg[s], seg[s+1]) of q attend to the same rows of k and v, and to no
// others (exact attention within each graph of a batch, GraphGPS's global
// attention). q, k and v are N×(heads·dh) and seg runs from 0 to N, never
// decreasing; empty segments are allowed. Values and gradients are bit for
// bit those of one Attention per segment on row slices of q, k and v with
// the outputs stacked, and so is the use of rng, but the op keeps one tape
// position for all segments: a batch's op sequence no longer depends on
// how many graphs it holds, so the ops' buffers carry over from pass to
// pass.
func SegmentAttention[T Float](t *Tape[T], q, k, v *Var[T], seg []int32, heads int, dropout float64, rng *rand.Rand, training bool) *Var[T] {
	checkAttention("SegmentAttention", q, k, v, heads, dropout)
	n, w := q.Value.Rows, q.Value.Cols
	if k.Value.Rows != n {
		panic(fmt.Sprintf("autodiff: SegmentAttention of %d queries and %d keys", n, k.Value.Rows))
	}
	if len(seg) == 0 || seg[0] != 0 || int(seg[len(seg)-1]) != n {
		panic(fmt.Sprintf("autodiff: SegmentAttention segments must run from 0 to %d rows", n))
	}
	for s := 1; s < len(seg); s++ {
		if seg[s] < seg[s-1] {
			panic(fmt.Sprintf("autodiff: SegmentAttention segment %d ends at row %d before it starts (%d)", s-1, seg[s], seg[s-1]))
		}
	}
	out := t.Node(n, w, q, k, v)
	p := OpOf[segAttentionOp[T]](out)
	p.q, p.k, p.v, p.out, p.used = q, k, v, out, 0
	for s := 0; s+1 < len(seg); s++ {
		lo, hi := int(seg[s]), int(seg[s+1])
		if lo == hi {
			continue
		}
		if p.used == len(p.subs) {
			p.subs = append(p.subs, new(attentionOp[T]))
			p.views = append(p.views, new(segViews[T]))
		}
		sub, vw := p.subs[p.used], p.views[p.used]
		p.used++
		vw.lo, vw.hi = lo, hi
		for _, x := range [4]struct{ view, of *Var[T] }{{&vw.q, q}, {&vw.k, k}, {&vw.v, v}, {&vw.out, out}} {
			x.view.Value = vw.rowsOf(&x.of.Value)
			x.view.Grad = tensor.Dense[T]{}
			x.view.requiresGrad = x.of.requiresGrad
		}
		sub.forward(&vw.q, &vw.k, &vw.v, &vw.out, heads, dropout, rng, training)
	}
	return out
}

// rowsOf is the view of the segment's rows of x.
func (s *segViews[T]) rowsOf(x *tensor.Dense[T]) tensor.Dense[T] {
	return tensor.Dense[T]{Rows: s.hi - s.lo, Cols: x.Cols, Data: x.Data[s.lo*x.Cols : s.hi*x.Cols]}
}

// Backward implements Op: each segment's attention passes its rows'
// gradient on to its rows of q, k and v (disjoint rows, so the segments'
// order does not matter).
func (p *segAttentionOp[T]) Backward(out *Var[T]) {
	for i, sub := range p.subs[:p.used] {
		vw := p.views[i]
		for _, x := range [4]struct{ view, of *Var[T] }{{&vw.q, p.q}, {&vw.k, p.k}, {&vw.v, p.v}, {&vw.out, out}} {
			if x.of.requiresGrad {
				x.view.Grad = vw.rowsOf(&x.of.Grad)
			}
		}
		sub.Backward(&vw.out)
	}
}

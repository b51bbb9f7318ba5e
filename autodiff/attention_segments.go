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
	subs  []*attentionOp[T]
	views []*segViews[T]
	used  int // segments of this pass
}

// segViews are a segment's rows [lo, hi) of q, k, v and the output, as
// Vars that share the whole matrices' storage (values in the forward pass,
// gradients in the backward pass).
type segViews[T Float] struct {
	lo, hi        int
	q, k, v, out  Var[T]
	qs, ks, vs, o *Var[T] // the whole matrices
}

// rows points view at rows [lo, hi) of x's value.
func (s *segViews[T]) rows(view, x *Var[T]) {
	w := x.Value.Cols
	view.Value = tensorRows(&x.Value, s.lo, s.hi, w)
	view.requiresGrad = x.requiresGrad
	view.Grad = tensorRows(&x.Grad, 0, 0, w) // set by grads before Backward
}

// grads points the views' gradients at the whole matrices' gradient rows
// (the tape gives a node its gradient buffer only in the backward pass).
func (s *segViews[T]) grads() {
	for _, p := range [4]struct{ view, x *Var[T] }{{&s.q, s.qs}, {&s.k, s.ks}, {&s.v, s.vs}, {&s.out, s.o}} {
		if p.x.requiresGrad || p.x == s.o {
			p.view.Grad = tensorRows(&p.x.Grad, s.lo, s.hi, p.x.Value.Cols)
		}
	}
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
	n, w := q.Value.Rows, q.Value.Cols
	switch {
	case heads < 1 || w%heads != 0:
		panic(fmt.Sprintf("autodiff: SegmentAttention with %d heads over width %d", heads, w))
	case k.Value.Rows != n || v.Value.Rows != n || k.Value.Cols != w || v.Value.Cols != w:
		panic(fmt.Sprintf("autodiff: SegmentAttention of queries %d×%d, keys %d×%d, values %d×%d",
			n, w, k.Value.Rows, k.Value.Cols, v.Value.Rows, v.Value.Cols))
	case len(seg) == 0 || seg[0] != 0 || int(seg[len(seg)-1]) != n:
		panic(fmt.Sprintf("autodiff: SegmentAttention segments must run from 0 to %d rows", n))
	case !(dropout >= 0 && dropout < 1):
		panic(fmt.Sprintf("autodiff: SegmentAttention dropout %g outside [0, 1)", dropout))
	}
	for s := 1; s < len(seg); s++ {
		if seg[s] < seg[s-1] {
			panic(fmt.Sprintf("autodiff: SegmentAttention segment %d ends at row %d before it starts (%d)", s-1, seg[s], seg[s-1]))
		}
	}
	out := t.Node(n, w, q, k, v)
	p := OpOf[segAttentionOp[T]](out)
	p.used = 0
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
		vw.lo, vw.hi, vw.qs, vw.ks, vw.vs, vw.o = lo, hi, q, k, v, out
		vw.rows(&vw.q, q)
		vw.rows(&vw.k, k)
		vw.rows(&vw.v, v)
		vw.rows(&vw.out, out)
		sub.forward(&vw.q, &vw.k, &vw.v, &vw.out, heads, dropout, rng, training)
	}
	return out
}

// Backward implements Op: each segment's attention passes its rows'
// gradient on to its rows of q, k and v (disjoint rows, so the segments'
// order does not matter).
func (p *segAttentionOp[T]) Backward(out *Var[T]) {
	for i, sub := range p.subs[:p.used] {
		vw := p.views[i]
		vw.grads()
		sub.Backward(&vw.out)
	}
}

// tensorRows is the view of rows [lo, hi) of a matrix with w columns (the
// empty view when x has no storage there).
func tensorRows[T Float](x *tensor.Dense[T], lo, hi, w int) tensor.Dense[T] {
	if hi*w > len(x.Data) {
		return tensor.Dense[T]{Rows: hi - lo, Cols: w}
	}
	return tensor.Dense[T]{Rows: hi - lo, Cols: w, Data: x.Data[lo*w : hi*w]}
}

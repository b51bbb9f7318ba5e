package capsule

import (
	"fmt"

	"github.com/prcaps/prcaps/autodiff"
)

// prccPickOp is the record of out[g][c] = m[g·C+c][c].
type prccPickOp[T autodiff.Float] struct {
	m *autodiff.Var[T]
}

// Backward implements autodiff.Op.
func (p *prccPickOp[T]) Backward(out *autodiff.Var[T]) {
	C := out.Value.Cols
	for i, g := range out.Grad.Data {
		p.m.Grad.Data[i*C+i%C] += g
	}
}

// prccPick records out[g][c] = m[g·C+c][c] for m of (G·C)×C: the entry
// of each class capsule's row in its own class's column.
func prccPick[T autodiff.Float](t *autodiff.Tape[T], m *autodiff.Var[T]) *autodiff.Var[T] {
	C := m.Value.Cols
	if C == 0 || m.Value.Rows%C != 0 {
		panic(fmt.Sprintf("capsule: per-class logits: %d capsule rows for %d classes", m.Value.Rows, C))
	}
	out := t.Node(m.Value.Rows/C, C, m)
	for i := range out.Value.Data {
		out.Value.Data[i] = m.Value.Data[i*C+i%C]
	}
	if out.RequiresGrad() {
		autodiff.OpOf[prccPickOp[T]](out).m = m
	}
	return out
}

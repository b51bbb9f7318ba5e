package autodiff

import "fmt"

// reshapeOp is the record of out = x read as rows × cols in row-major order.
type reshapeOp[T Float] struct {
	x *Var[T]
}

// Backward implements Op: the same elements, laid out as x.
func (p *reshapeOp[T]) Backward(out *Var[T]) {
	if p.x.requiresGrad {
		gx := p.x.Grad.Data
		for i, g := range out.Grad.Data {
			gx[i] += g
		}
	}
}

// Reshape returns x's elements read as a rows × cols matrix in row-major
// order (a copy). It panics if rows·cols differs from x's size.
func Reshape[T Float](t *Tape[T], x *Var[T], rows, cols int) *Var[T] {
	if rows < 0 || cols < 0 || rows*cols != x.Value.Len() {
		panic(fmt.Sprintf("autodiff: Reshape of a %d×%d value to %d×%d", x.Value.Rows, x.Value.Cols, rows, cols))
	}
	out := t.Node(rows, cols, x)
	p := OpOf[reshapeOp[T]](out)
	p.x = x
	copy(out.Value.Data, x.Value.Data)
	return out
}

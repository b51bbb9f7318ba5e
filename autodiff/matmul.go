package autodiff

import (
	"fmt"

	"github.com/prcaps/prcaps/tensor"
)

// matMulOp is the record of out = a·b.
type matMulOp[T Float] struct {
	a, b *Var[T]
}

// Backward implements Op: ∂a += ∂out·bᵀ, ∂b += aᵀ·∂out (gemm with
// transposes, so no transposed copies are made).
func (p *matMulOp[T]) Backward(out *Var[T]) {
	if p.a.requiresGrad {
		tensor.Gemm(&p.a.Grad, &out.Grad, &p.b.Value, false, true, 1, 1)
	}
	if p.b.requiresGrad {
		tensor.Gemm(&p.b.Grad, &p.a.Value, &out.Grad, true, false, 1, 1)
	}
}

// MatMul records out = a·b for a (n×k) and b (k×m). It panics if the inner
// dimensions differ.
func MatMul[T Float](t *Tape[T], a, b *Var[T]) *Var[T] {
	if a.Value.Cols != b.Value.Rows {
		panic(fmt.Sprintf("autodiff: MatMul of %d×%d by %d×%d", a.Value.Rows, a.Value.Cols, b.Value.Rows, b.Value.Cols))
	}
	out := t.Node(a.Value.Rows, b.Value.Cols, a, b)
	tensor.Gemm(&out.Value, &a.Value, &b.Value, false, false, 1, 0)
	if out.requiresGrad {
		p := OpOf[matMulOp[T]](out)
		p.a, p.b = a, b
	}
	return out
}

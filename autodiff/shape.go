package autodiff

import (
	"fmt"

	"github.com/prcaps/prcaps/tensor"
)

// concatColsOp is the record of out = [v₀ | v₁ | …] (side by side).
type concatColsOp[T Float] struct {
	// ins is the op's own copy of the inputs: keeping the caller's variadic
	// slice would make it escape, and allocate, at every call site.
	ins []*Var[T]
}

// Backward implements Op.
func (p *concatColsOp[T]) Backward(out *Var[T]) {
	R, C := out.Value.Rows, out.Value.Cols
	off := 0
	for _, v := range p.ins {
		c := v.Value.Cols
		if v.requiresGrad {
			for i := 0; i < R; i++ {
				gr := out.Grad.Data[i*C+off : i*C+off+c]
				gv := v.Grad.Data[i*c : (i+1)*c]
				for j, g := range gr {
					gv[j] += g
				}
			}
		}
		off += c
	}
}

// ConcatCols places vs side by side: the result has their common row count
// and the sum of their column counts. It panics if vs is empty or the row
// counts differ.
func ConcatCols[T Float](t *Tape[T], vs ...*Var[T]) *Var[T] {
	if len(vs) == 0 {
		panic("autodiff: ConcatCols of no inputs")
	}
	R, C := vs[0].Value.Rows, 0
	for k, v := range vs {
		if v.Value.Rows != R {
			panic(fmt.Sprintf("autodiff: ConcatCols input %d has %d rows, input 0 has %d", k, v.Value.Rows, R))
		}
		C += v.Value.Cols
	}
	out := t.Node(R, C, vs...)
	p := OpOf[concatColsOp[T]](out)
	p.ins = append(p.ins[:0], vs...)
	off := 0
	for _, v := range vs {
		c := v.Value.Cols
		for i := 0; i < R; i++ {
			copy(out.Value.Data[i*C+off:i*C+off+c], v.Value.Data[i*c:(i+1)*c])
		}
		off += c
	}
	return out
}

// concatRowsOp is the record of out = [v₀; v₁; …] (stacked).
type concatRowsOp[T Float] struct {
	ins []*Var[T] // own copy, see concatColsOp
}

// Backward implements Op. Row-major storage makes each input a contiguous
// block of the output.
func (p *concatRowsOp[T]) Backward(out *Var[T]) {
	off := 0
	for _, v := range p.ins {
		n := len(v.Value.Data)
		if v.requiresGrad {
			// One vector call per input (graph-level routing stacks the
			// nodes' rows once per class, N×d values each).
			gv := v.Grad.Data[:n]
			tensor.VecAdd(gv, gv, out.Grad.Data[off:off+n])
		}
		off += n
	}
}

// ConcatRows stacks vs vertically: the result has their common column count
// and the sum of their row counts. It panics if vs is empty or the column
// counts differ.
func ConcatRows[T Float](t *Tape[T], vs ...*Var[T]) *Var[T] {
	if len(vs) == 0 {
		panic("autodiff: ConcatRows of no inputs")
	}
	R, C := 0, vs[0].Value.Cols
	for k, v := range vs {
		if v.Value.Cols != C {
			panic(fmt.Sprintf("autodiff: ConcatRows input %d has %d columns, input 0 has %d", k, v.Value.Cols, C))
		}
		R += v.Value.Rows
	}
	out := t.Node(R, C, vs...)
	p := OpOf[concatRowsOp[T]](out)
	p.ins = append(p.ins[:0], vs...)
	off := 0
	for _, v := range vs {
		off += copy(out.Value.Data[off:], v.Value.Data)
	}
	return out
}

// sliceOp is the record of out = columns [lo, hi) of rows [rlo, rhi) of x.
type sliceOp[T Float] struct {
	x        *Var[T]
	rlo, clo int
}

// Backward implements Op.
func (p *sliceOp[T]) Backward(out *Var[T]) {
	if !p.x.requiresGrad {
		return
	}
	xc, c := p.x.Value.Cols, out.Value.Cols
	for i := 0; i < out.Value.Rows; i++ {
		o := (p.rlo+i)*xc + p.clo
		gx := p.x.Grad.Data[o : o+c]
		for j, g := range out.Grad.Data[i*c : (i+1)*c] {
			gx[j] += g
		}
	}
}

func recordSlice[T Float](t *Tape[T], x *Var[T], rlo, rhi, clo, chi int) *Var[T] {
	R, C := rhi-rlo, chi-clo
	out := t.Node(R, C, x)
	p := OpOf[sliceOp[T]](out)
	p.x, p.rlo, p.clo = x, rlo, clo
	xc := x.Value.Cols
	for i := 0; i < R; i++ {
		o := (rlo+i)*xc + clo
		copy(out.Value.Data[i*C:(i+1)*C], x.Value.Data[o:o+C])
	}
	return out
}

// SliceCols returns columns [lo, hi) of x (a copy; gradients flow back into
// those columns). It panics unless 0 ≤ lo ≤ hi ≤ x's column count.
func SliceCols[T Float](t *Tape[T], x *Var[T], lo, hi int) *Var[T] {
	if lo < 0 || hi < lo || hi > x.Value.Cols {
		panic(fmt.Sprintf("autodiff: SliceCols [%d, %d) of a %d×%d matrix", lo, hi, x.Value.Rows, x.Value.Cols))
	}
	return recordSlice(t, x, 0, x.Value.Rows, lo, hi)
}

// SliceRows returns rows [lo, hi) of x (a copy; gradients flow back into
// those rows). It panics unless 0 ≤ lo ≤ hi ≤ x's row count.
func SliceRows[T Float](t *Tape[T], x *Var[T], lo, hi int) *Var[T] {
	if lo < 0 || hi < lo || hi > x.Value.Rows {
		panic(fmt.Sprintf("autodiff: SliceRows [%d, %d) of a %d×%d matrix", lo, hi, x.Value.Rows, x.Value.Cols))
	}
	return recordSlice(t, x, lo, hi, 0, x.Value.Cols)
}

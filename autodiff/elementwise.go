package autodiff

import (
	"fmt"

	"github.com/prcaps/prcaps/tensor"
)

// binaryKind selects the function of a binaryOp.
type binaryKind uint8

const (
	binaryAdd binaryKind = iota
	binarySub
	binaryMul
	binaryDiv
)

func (k binaryKind) String() string {
	switch k {
	case binaryAdd:
		return "Add"
	case binarySub:
		return "Sub"
	case binaryMul:
		return "Mul"
	case binaryDiv:
		return "Div"
	}
	return fmt.Sprintf("binaryKind(%d)", uint8(k))
}

// bcastDim is numpy's rule for one dimension: equal sizes, or one of them 1
// (which then stretches to the other, including to 0).
func bcastDim(x, y int) (int, bool) {
	switch {
	case x == y:
		return x, true
	case x == 1:
		return y, true
	case y == 1:
		return x, true
	}
	return 0, false
}

// bcastStrides gives the strides that map output element (i, j) to index
// i·rs + j·cs of an operand of shape r×c broadcast to R×C: a stretched
// dimension has stride 0.
func bcastStrides(r, c, R, C int) (rs, cs int) {
	if r == R {
		rs = c
	}
	if c == C {
		cs = 1
	}
	return rs, cs
}

// binaryOp is the record of out = a ∘ b with numpy-style broadcasting of
// either operand: 1×C row vectors stretch over rows (bias add), R×1 column
// vectors over columns (per-row scaling), 1×1 over both.
type binaryOp[T Float] struct {
	a, b, out *Var[T]
	kind      binaryKind
	aRS, aCS  int // strides of a in the output's index space
	bRS, bCS  int
	acc       []float64 // reduction buffer of a broadcast operand's gradient
	part      []T       // partial column sums (sumRowBlocks)
	// Method values bound once per record (see unaryOp).
	fwd, bwdA, bwdB func(lo, hi int)
}

func recordBinary[T Float](t *Tape[T], a, b *Var[T], kind binaryKind) *Var[T] {
	R, okR := bcastDim(a.Value.Rows, b.Value.Rows)
	C, okC := bcastDim(a.Value.Cols, b.Value.Cols)
	if !okR || !okC {
		panic(fmt.Sprintf("autodiff: %v of %d×%d and %d×%d: shapes do not broadcast", kind,
			a.Value.Rows, a.Value.Cols, b.Value.Rows, b.Value.Cols))
	}
	out := t.Node(R, C, a, b)
	p := OpOf[binaryOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwdA, p.bwdB = p.forwardRows, p.backwardRowsA, p.backwardRowsB
	}
	p.a, p.b, p.out, p.kind = a, b, out, kind
	p.aRS, p.aCS = bcastStrides(a.Value.Rows, a.Value.Cols, R, C)
	p.bRS, p.bCS = bcastStrides(b.Value.Rows, b.Value.Cols, R, C)
	tensor.ParallelFor(R, C, p.fwd)
	return out
}

// sameShape reports whether a and b both have the output's shape, so that
// rows [lo, hi) of all three are one contiguous span.
func (p *binaryOp[T]) sameShape() bool {
	C := p.out.Value.Cols
	return p.aRS == C && p.aCS == 1 && p.bRS == C && p.bCS == 1
}

// forwardRows computes output rows [lo, hi).
func (p *binaryOp[T]) forwardRows(lo, hi int) {
	C := p.out.Value.Cols
	ad, bd, od := p.a.Value.Data, p.b.Value.Data, p.out.Value.Data
	if p.sameShape() && (p.kind == binaryAdd || p.kind == binaryMul) {
		// One vector call for the whole span rather than one per row (the
		// routing's E×K matrices have rows of K = 4); elementwise, so the
		// bits are those of the per-row calls.
		y, x, z := od[lo*C:hi*C], ad[lo*C:hi*C], bd[lo*C:hi*C]
		if p.kind == binaryAdd {
			tensor.VecAdd(y, x, z)
		} else {
			tensor.VecMul(y, x, z)
		}
		return
	}
	if p.kind == binaryMul && p.aRS == C && p.aCS == 1 && p.bCS == 0 {
		// Rows scaled by a column vector (or a scalar).
		for i := lo; i < hi; i++ {
			z := bd[i*p.bRS]
			y, x := od[i*C:(i+1)*C], ad[i*C:(i+1)*C]
			for j, v := range x {
				y[j] = v * z
			}
		}
		return
	}
	for i := lo; i < hi; i++ {
		y := od[i*C : (i+1)*C]
		ao, bo := i*p.aRS, i*p.bRS
		if p.aCS == 1 && p.bCS == 1 {
			// Both rows contiguous: the common cases (same shape, bias add).
			x, z := ad[ao:ao+C], bd[bo:bo+C]
			switch p.kind {
			case binaryAdd:
				tensor.VecAdd(y, x, z)
			case binarySub:
				for j := range y {
					y[j] = x[j] - z[j]
				}
			case binaryMul:
				tensor.VecMul(y, x, z)
			case binaryDiv:
				for j := range y {
					y[j] = x[j] / z[j]
				}
			}
			continue
		}
		for j := range y {
			x, z := ad[ao+j*p.aCS], bd[bo+j*p.bCS]
			switch p.kind {
			case binaryAdd:
				y[j] = x + z
			case binarySub:
				y[j] = x - z
			case binaryMul:
				y[j] = x * z
			case binaryDiv:
				y[j] = x / z
			}
		}
	}
}

// backwardRowsA adds the contribution of output rows [lo, hi) to a.Grad
// when a has the output's shape.
func (p *binaryOp[T]) backwardRowsA(lo, hi int) {
	C := p.out.Value.Cols
	g, ga, bd := p.out.Grad.Data, p.a.Grad.Data, p.b.Value.Data
	if p.sameShape() {
		// One pass over the whole span: elementwise adds give the per-row
		// calls' bits at any width; for Mul only rows shorter than 8, where
		// the per-row VecMulAdd below runs these same unfused scalar steps.
		gs, as, bs := g[lo*C:hi*C], ga[lo*C:hi*C], bd[lo*C:hi*C]
		switch {
		case p.kind == binaryAdd || p.kind == binarySub:
			tensor.VecAdd(as, as, gs)
			return
		case p.kind == binaryMul && C < 8:
			for q, v := range gs {
				as[q] += v * bs[q]
			}
			return
		}
	}
	if p.kind == binaryMul && p.aCS == 1 && p.bCS == 0 {
		for i := lo; i < hi; i++ {
			z := bd[i*p.bRS]
			ra := ga[i*p.aRS : i*p.aRS+C]
			for j, v := range g[i*C : (i+1)*C] {
				ra[j] += v * z
			}
		}
		return
	}
	for i := lo; i < hi; i++ {
		gr := g[i*C : (i+1)*C]
		ao, bo := i*p.aRS, i*p.bRS
		if p.aCS == 1 { // contiguous rows: the vector kernels
			ra := ga[ao : ao+C]
			switch {
			case p.kind == binaryMul && p.bCS == 1:
				tensor.VecMulAdd(ra, gr, bd[bo:bo+C])
				continue
			case p.kind == binaryAdd || p.kind == binarySub:
				tensor.VecAdd(ra, ra, gr)
				continue
			}
		}
		switch p.kind {
		case binaryMul:
			for j, v := range gr {
				ga[ao+j*p.aCS] += v * bd[bo+j*p.bCS]
			}
		case binaryDiv:
			for j, v := range gr {
				ga[ao+j*p.aCS] += v / bd[bo+j*p.bCS]
			}
		default:
			for j, v := range gr {
				ga[ao+j*p.aCS] += v
			}
		}
	}
}

// backwardRowsB is backwardRowsA for b.
func (p *binaryOp[T]) backwardRowsB(lo, hi int) {
	C := p.out.Value.Cols
	g, gb, ad, bd := p.out.Grad.Data, p.b.Grad.Data, p.a.Value.Data, p.b.Value.Data
	if p.sameShape() && p.kind == binaryMul {
		gs, bs, as := g[lo*C:hi*C], gb[lo*C:hi*C], ad[lo*C:hi*C]
		for q, v := range gs {
			bs[q] += v * as[q]
		}
		return
	}
	for i := lo; i < hi; i++ {
		gr := g[i*C : (i+1)*C]
		ao, bo := i*p.aRS, i*p.bRS
		switch p.kind {
		case binaryMul:
			for j, v := range gr {
				gb[bo+j*p.bCS] += v * ad[ao+j*p.aCS]
			}
		case binaryDiv: // d(a/b)/db = −(a/b)/b
			for j, v := range gr {
				z := bd[bo+j*p.bCS]
				gb[bo+j*p.bCS] -= v * (ad[ao+j*p.aCS] / z) / z
			}
		case binarySub:
			for j, v := range gr {
				gb[bo+j*p.bCS] -= v
			}
		default:
			for j, v := range gr {
				gb[bo+j*p.bCS] += v
			}
		}
	}
}

// backwardBroadcast adds the gradient of a broadcast operand (a when isA,
// else b). Many output elements land on each of its elements, so the sum runs
// serially and in float64: a bias gradient sums over every node.
func (p *binaryOp[T]) backwardBroadcast(isA bool) {
	R, C := p.out.Value.Rows, p.out.Value.Cols
	v, vRS, vCS := p.b, p.bRS, p.bCS
	o, oRS, oCS := p.a, p.aRS, p.aCS // the other operand
	if isA {
		v, vRS, vCS, o, oRS, oCS = o, oRS, oCS, v, vRS, vCS
	}
	n := len(v.Grad.Data)
	if cap(p.acc) < n {
		p.acc = make([]float64, n)
	}
	acc := p.acc[:n]
	clear(acc)
	if (p.kind == binaryAdd || p.kind == binarySub) && vRS == 0 && vCS == 1 {
		p.sumRowBlocks(acc, p.out.Grad.Data, R, C) // a bias
	} else {
		p.reduceBroadcast(acc, isA, o.Value.Data, vRS, vCS, oRS, oCS)
	}
	gv := v.Grad.Data
	if p.kind == binarySub && !isA {
		for k, x := range acc {
			gv[k] -= T(x)
		}
		return
	}
	for k, x := range acc {
		gv[k] += T(x)
	}
}

// reduceBroadcast adds to acc the gradient of the broadcast operand (with
// strides vRS, vCS; the other operand's values od with strides oRS, oCS).
func (p *binaryOp[T]) reduceBroadcast(acc []float64, isA bool, od []T, vRS, vCS, oRS, oCS int) {
	R, C := p.out.Value.Rows, p.out.Value.Cols
	g, ad, bd := p.out.Grad.Data, p.a.Value.Data, p.b.Value.Data
	for i := 0; i < R; i++ {
		gr := g[i*C : (i+1)*C]
		vo, oo := i*vRS, i*oRS
		ao, bo := i*p.aRS, i*p.bRS
		switch {
		case p.kind == binaryMul && vCS == 0:
			// A broadcast column (routing's c_ij·γ_ijk): the row's terms
			// all go to acc[vo], so sum them in a local, in the same order.
			s := acc[vo]
			for j, x := range gr {
				s += float64(x) * float64(od[oo+j*oCS])
			}
			acc[vo] = s
		case p.kind == binaryMul:
			for j, x := range gr {
				acc[vo+j*vCS] += float64(x) * float64(od[oo+j*oCS])
			}
		case p.kind == binaryDiv && isA:
			for j, x := range gr {
				acc[vo+j*vCS] += float64(x) / float64(bd[bo+j*p.bCS])
			}
		case p.kind == binaryDiv:
			for j, x := range gr {
				z := float64(bd[bo+j*p.bCS])
				acc[vo+j*vCS] -= float64(x) * float64(ad[ao+j*p.aCS]) / (z * z)
			}
		default:
			for j, x := range gr {
				acc[vo+j*vCS] += float64(x)
			}
		}
	}
}

// sumRowBlocks adds the R×C gradient g's column sums to acc (the gradient of
// a broadcast row vector, a bias): blocks of rowBlock rows are summed in T
// with the vector kernels, and the block sums in float64, so the rounding
// error stays that of a rowBlock-term sum.
func (p *binaryOp[T]) sumRowBlocks(acc []float64, g []T, R, C int) {
	p.part = sumRowBlocks(p.part, acc, g, R, C)
}

// sumRowBlocks adds the column sums of the R×C matrix g to acc: blocks of
// 32 rows summed in T into part (grown to C values and returned), each
// block's sums then added to acc in float64.
func sumRowBlocks[T Float](part []T, acc []float64, g []T, R, C int) []T {
	const rowBlock = 32
	if cap(part) < C {
		part = make([]T, C)
	}
	part = part[:C]
	for r0 := 0; r0 < R; r0 += rowBlock {
		copy(part, g[r0*C:(r0+1)*C])
		for i := r0 + 1; i < min(r0+rowBlock, R); i++ {
			tensor.VecAdd(part, part, g[i*C:(i+1)*C])
		}
		for j, x := range part {
			acc[j] += float64(x)
		}
	}
	return part
}

// Backward implements Op. An operand of the output's full shape is updated
// in parallel over rows; a broadcast one is reduced serially.
func (p *binaryOp[T]) Backward(out *Var[T]) {
	R, C := out.Value.Rows, out.Value.Cols
	full := func(v *Var[T]) bool { return v.Value.Rows == R && v.Value.Cols == C }
	if p.a.requiresGrad {
		if full(p.a) {
			tensor.ParallelFor(R, C, p.bwdA)
		} else {
			p.backwardBroadcast(true)
		}
	}
	if p.b.requiresGrad {
		if full(p.b) {
			tensor.ParallelFor(R, C, p.bwdB)
		} else {
			p.backwardBroadcast(false)
		}
	}
}

// Add returns a + b. Either operand may broadcast as in numpy: a 1×C row
// vector is added to every row (bias), an R×1 column vector to every column,
// a 1×1 to every element. Shapes that do not broadcast panic.
func Add[T Float](t *Tape[T], a, b *Var[T]) *Var[T] {
	return recordBinary(t, a, b, binaryAdd)
}

// Sub returns a − b, broadcasting as Add.
func Sub[T Float](t *Tape[T], a, b *Var[T]) *Var[T] {
	return recordBinary(t, a, b, binarySub)
}

// Mul returns the elementwise (Hadamard) product a ⊙ b, broadcasting as Add:
// an R×1 operand scales each row, a 1×C operand each column.
func Mul[T Float](t *Tape[T], a, b *Var[T]) *Var[T] {
	return recordBinary(t, a, b, binaryMul)
}

// Div returns the elementwise quotient a / b, broadcasting as Add (an R×1
// b divides each row by its own value). Division by zero follows IEEE
// arithmetic (±Inf or NaN), as in PyTorch: b must stay away from 0.
func Div[T Float](t *Tape[T], a, b *Var[T]) *Var[T] {
	return recordBinary(t, a, b, binaryDiv)
}

// Scale returns c·x for a constant c.
func Scale[T Float](t *Tape[T], x *Var[T], c float64) *Var[T] {
	return recordUnary(t, x, unaryScale, c, 0)
}

// AddScalar returns x + c for a constant c.
func AddScalar[T Float](t *Tape[T], x *Var[T], c float64) *Var[T] {
	return recordUnary(t, x, unaryAddScalar, c, 0)
}

// mulScalarVarOp is the record of out = s·x with s a 1×1 Var.
type mulScalarVarOp[T Float] struct {
	x, s *Var[T]
}

// Backward implements Op. The gradient of s is a full reduction, summed in
// float64 so that it does not lose precision over large x.
func (p *mulScalarVarOp[T]) Backward(out *Var[T]) {
	g := out.Grad.Data
	if p.s.requiresGrad {
		var acc float64
		for i, v := range p.x.Value.Data {
			acc += float64(v) * float64(g[i])
		}
		p.s.Grad.Data[0] += T(acc)
	}
	if p.x.requiresGrad {
		s := p.s.Value.Data[0]
		gx := p.x.Grad.Data
		for i, v := range g {
			gx[i] += s * v
		}
	}
}

// MulScalarVar returns s·x where s is a 1×1 Var, e.g. a learnable temperature;
// both receive gradients. It panics if s is not 1×1. (Mul with a 1×1 operand
// computes the same; this op skips the broadcasting machinery.)
func MulScalarVar[T Float](t *Tape[T], x, s *Var[T]) *Var[T] {
	if s.Value.Rows != 1 || s.Value.Cols != 1 {
		panic(fmt.Sprintf("autodiff: MulScalarVar needs a 1×1 scalar, got %d×%d", s.Value.Rows, s.Value.Cols))
	}
	out := t.Node(x.Value.Rows, x.Value.Cols, x, s)
	p := OpOf[mulScalarVarOp[T]](out)
	p.x, p.s = x, s
	c := s.Value.Data[0]
	y := out.Value.Data
	for i, v := range x.Value.Data {
		y[i] = c * v
	}
	return out
}

package autodiff

// reduceAxis says which elements a reduceOp sums together.
type reduceAxis uint8

const (
	reduceAll     reduceAxis = iota // everything → 1×1
	reduceOverRow                   // down each column → 1×C
	reducePerRow                    // along each row → R×1
)

// reduceOp is the record of a (scaled) sum: out = scale · Σ over axis.
// Sums accumulate in float64, which keeps float32 losses over many nodes
// accurate at negligible cost.
type reduceOp[T Float] struct {
	x     *Var[T]
	axis  reduceAxis
	scale float64
	acc   []float64 // column accumulators of reduceOverRow, reused
}

// Backward implements Op: every input element receives scale times the
// gradient of the output element it was summed into.
func (p *reduceOp[T]) Backward(out *Var[T]) {
	if !p.x.requiresGrad {
		return
	}
	R, C := p.x.Value.Rows, p.x.Value.Cols
	gx, g := p.x.Grad.Data, out.Grad.Data
	s := T(p.scale)
	switch p.axis {
	case reduceAll:
		v := s * g[0]
		for i := range gx {
			gx[i] += v
		}
	case reduceOverRow:
		for i := 0; i < R; i++ {
			row := gx[i*C : (i+1)*C]
			for j, v := range g[:C] {
				row[j] += s * v
			}
		}
	case reducePerRow:
		for i := 0; i < R; i++ {
			v := s * g[i]
			row := gx[i*C : (i+1)*C]
			for j := range row {
				row[j] += v
			}
		}
	}
}

// meanScale is 1/n, and 0 for an empty reduction: the mean of nothing is
// taken as 0 with a zero gradient rather than PyTorch's NaN, so that an empty
// batch or mask cannot poison a training run.
func meanScale(n int) float64 {
	if n == 0 {
		return 0
	}
	return 1 / float64(n)
}

func recordReduce[T Float](t *Tape[T], x *Var[T], axis reduceAxis, mean bool) *Var[T] {
	R, C := x.Value.Rows, x.Value.Cols
	var out *Var[T]
	n := 0
	switch axis {
	case reduceAll:
		out, n = t.Node(1, 1, x), R*C
	case reduceOverRow:
		out, n = t.Node(1, C, x), R
	case reducePerRow:
		out, n = t.Node(R, 1, x), C
	}
	p := OpOf[reduceOp[T]](out)
	p.x, p.axis, p.scale = x, axis, 1
	if mean {
		p.scale = meanScale(n)
	}
	xd, y := x.Value.Data, out.Value.Data
	switch axis {
	case reduceAll:
		var s float64
		for _, v := range xd {
			s += float64(v)
		}
		y[0] = T(p.scale * s)
	case reduceOverRow:
		if cap(p.acc) < C {
			p.acc = make([]float64, C)
		}
		acc := p.acc[:C]
		clear(acc)
		for i := 0; i < R; i++ {
			for j, v := range xd[i*C : (i+1)*C] {
				acc[j] += float64(v)
			}
		}
		for j, s := range acc {
			y[j] = T(p.scale * s)
		}
	case reducePerRow:
		for i := 0; i < R; i++ {
			var s float64
			for _, v := range xd[i*C : (i+1)*C] {
				s += float64(v)
			}
			y[i] = T(p.scale * s)
		}
	}
	return out
}

// Sum returns the 1×1 sum of all elements of x.
func Sum[T Float](t *Tape[T], x *Var[T]) *Var[T] { return recordReduce(t, x, reduceAll, false) }

// Mean returns the 1×1 mean of all elements of x; 0 (with a zero gradient)
// when x is empty.
func Mean[T Float](t *Tape[T], x *Var[T]) *Var[T] { return recordReduce(t, x, reduceAll, true) }

// SumRows adds the rows of x together: the result is 1×C, the column sums
// (torch.sum(x, dim=0, keepdim=True)).
func SumRows[T Float](t *Tape[T], x *Var[T]) *Var[T] {
	return recordReduce(t, x, reduceOverRow, false)
}

// MeanRows is the mean of the rows of x: 1×C, the column means; zeros when x
// has no rows.
func MeanRows[T Float](t *Tape[T], x *Var[T]) *Var[T] {
	return recordReduce(t, x, reduceOverRow, true)
}

// RowSum returns the sum of each row of x: R×1 (torch.sum(x, dim=1,
// keepdim=True)).
func RowSum[T Float](t *Tape[T], x *Var[T]) *Var[T] {
	return recordReduce(t, x, reducePerRow, false)
}

// RowMean returns the mean of each row of x: R×1; zeros when x has no
// columns.
func RowMean[T Float](t *Tape[T], x *Var[T]) *Var[T] {
	return recordReduce(t, x, reducePerRow, true)
}

package autodiff

import "fmt"

// gatherRowsOrZeroOp is the record of out[i] = h[idx[i]], or 0 for idx[i] < 0.
type gatherRowsOrZeroOp[T Float] struct {
	h   *Var[T]
	idx []int32
}

// Backward implements Op: ∂h[idx[i]] += ∂out[i] for idx[i] ≥ 0.
func (p *gatherRowsOrZeroOp[T]) Backward(out *Var[T]) {
	if !p.h.requiresGrad {
		return
	}
	c := out.Value.Cols
	for i, j := range p.idx {
		if j < 0 {
			continue
		}
		g, dh := out.Grad.Data[i*c:(i+1)*c], p.h.Grad.Data[int(j)*c:(int(j)+1)*c]
		for k, v := range g {
			dh[k] += v
		}
	}
}

// GatherRowsOrZero is GatherRows where a negative index gives a zero row:
// DGCNN's SortPooling, which keeps each graph's k highest-ranked nodes and
// pads a graph of fewer than k nodes with zero rows. idx must not change
// until Backward has run. It panics if an index is beyond h's rows.
func GatherRowsOrZero[T Float](t *Tape[T], h *Var[T], idx []int32) *Var[T] {
	n, c := h.Value.Rows, h.Value.Cols
	for i, j := range idx {
		if int(j) >= n {
			panic(fmt.Sprintf("autodiff: GatherRowsOrZero index %d is %d, beyond %d rows", i, j, n))
		}
	}
	out := t.Node(len(idx), c, h)
	for i, j := range idx {
		row := out.Value.Data[i*c : (i+1)*c]
		if j < 0 {
			clear(row)
		} else {
			copy(row, h.Value.Data[int(j)*c:(int(j)+1)*c])
		}
	}
	if out.requiresGrad {
		p := OpOf[gatherRowsOrZeroOp[T]](out)
		p.h, p.idx = h, idx
	}
	return out
}

// maxPoolRowsOp is the record of a max over windows of rows.
type maxPoolRowsOp[T Float] struct {
	x      *Var[T]
	argmax []int32 // per output element, the input row that won
}

// Backward implements Op: each output element's gradient goes to the row
// that held the maximum.
func (p *maxPoolRowsOp[T]) Backward(out *Var[T]) {
	if !p.x.requiresGrad {
		return
	}
	c := out.Value.Cols
	for e, g := range out.Grad.Data[:len(p.argmax)] {
		p.x.Grad.Data[int(p.argmax[e])*c+e%c] += g
	}
}

// MaxPoolRows is PyTorch's MaxPool1d(window, stride = window) along the
// rows of x, taken separately in consecutive groups of group rows (one
// group per graph): each group of x gives ⌊group/window⌋ rows, the
// elementwise maximum of window consecutive rows; the rows left over at
// the end of a group are dropped, as MaxPool1d drops them. Ties go to the
// first row. It panics unless group ≥ window ≥ 1 and group divides x's rows.
func MaxPoolRows[T Float](t *Tape[T], x *Var[T], group, window int) *Var[T] {
	r, c := x.Value.Rows, x.Value.Cols
	if window < 1 || group < window || r%group != 0 {
		panic(fmt.Sprintf("autodiff: MaxPoolRows of %d rows in groups of %d, window %d", r, group, window))
	}
	per := group / window
	out := t.Node(r/group*per, c, x)
	p := OpOf[maxPoolRowsOp[T]](out)
	p.x = x
	n := out.Value.Rows * c
	if cap(p.argmax) < n {
		p.argmax = make([]int32, n)
	}
	p.argmax = p.argmax[:n]
	for o := 0; o < out.Value.Rows; o++ {
		first := o/per*group + o%per*window
		y, am := out.Value.Data[o*c:(o+1)*c], p.argmax[o*c:(o+1)*c]
		copy(y, x.Value.Data[first*c:(first+1)*c])
		for k := range am {
			am[k] = int32(first)
		}
		for w := first + 1; w < first+window; w++ {
			for k, v := range x.Value.Data[w*c : (w+1)*c] {
				if v > y[k] {
					y[k], am[k] = v, int32(w)
				}
			}
		}
	}
	return out
}

package autodiff

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/tensor"
)

// Labels are class labels validated once against a class count, so that the
// loss and metric functions that take them never meet a bad label and need
// neither an error result nor a panic on user data. Build them with
// NewLabels at load time, or reuse one value with Set (e.g. per mini-batch,
// which then allocates nothing once warm). The zero value holds no labels.
type Labels struct {
	y       []int32 // own copy: the caller cannot invalidate it afterwards
	classes int
}

// NewLabels validates y (each label in [0, classes)) and returns a copy of it
// as Labels.
func NewLabels(y []int32, classes int) (Labels, error) {
	var l Labels
	err := l.Set(y, classes)
	return l, err
}

// Set replaces l's labels by a validated copy of y, reusing l's storage. On
// error l is left empty.
func (l *Labels) Set(y []int32, classes int) error {
	if classes <= 0 {
		l.y, l.classes = l.y[:0], 0
		return fmt.Errorf("autodiff: labels need at least one class, got %d", classes)
	}
	for i, c := range y {
		if c < 0 || int(c) >= classes {
			l.y, l.classes = l.y[:0], 0
			return fmt.Errorf("autodiff: label %d of row %d is outside [0, %d)", c, i, classes)
		}
	}
	l.y = append(l.y[:0], y...)
	l.classes = classes
	return nil
}

// Len is the number of labels (rows).
func (l Labels) Len() int { return len(l.y) }

// Classes is the number of classes the labels were validated against.
func (l Labels) Classes() int { return l.classes }

// At returns the label of row i.
func (l Labels) At(i int) int32 { return l.y[i] }

// checkLabelShape panics if logits and labels disagree in shape: a
// programmer error, as the labels were validated when they were built.
func checkLabelShape(fn string, rows, cols int, labels Labels) {
	if rows != labels.Len() || cols != labels.classes {
		panic(fmt.Sprintf("autodiff: %s of %d×%d logits with %d labels over %d classes", fn, rows, cols, labels.Len(), labels.classes))
	}
}

// softmaxCEOp is the record of the mean softmax cross-entropy over selected
// rows. When a gradient is needed it keeps the softmax probabilities of the
// selected rows: the backward pass then needs no exp, which dominates the
// cost of this op.
type softmaxCEOp[T Float] struct {
	logits *Var[T]
	labels Labels
	rows   []int32   // own copy of the selected rows; all rows when all
	all    bool      // rows == nil: every row counts
	n      int       // number of selected rows
	keep   bool      // store prob for the backward pass
	prob   []T       // n×C softmax of the selected rows, when keep
	loss   []float64 // per selected row, summed serially after the parallel pass
	seen   []bool    // duplicate detection over rows
	dup    bool      // some row is selected twice: backward must run serially
	scale  T         // d loss / d row loss times the incoming gradient, set by Backward
	fwd    func(lo, hi int)
	bwd    func(lo, hi int)
}

// row returns the logits row index of the k-th selected row.
func (p *softmaxCEOp[T]) row(k int) int {
	if p.all {
		return k
	}
	return int(p.rows[k])
}

func (p *softmaxCEOp[T]) forwardRange(lo, hi int) {
	C := p.logits.Value.Cols
	for k := lo; k < hi; k++ {
		r := p.row(k)
		x := p.logits.Value.Data[r*C : (r+1)*C]
		m := math.Inf(-1)
		for _, v := range x {
			if f := float64(v); f > m { // a NaN logit makes the sum, and the result, NaN
				m = f
			}
		}
		var s float64
		if p.keep {
			e := p.prob[k*C : (k+1)*C]
			e = e[:len(x)]
			for j, v := range x {
				ej := math.Exp(float64(v) - m)
				e[j] = T(ej)
				s += ej
			}
			inv := T(1 / s)
			for j := range e {
				e[j] *= inv
			}
		} else {
			for _, v := range x {
				s += math.Exp(float64(v) - m)
			}
		}
		// −log softmax[y] = log s − (x_y − m). Forming the log-sum-exp
		// m + log s first would round log s away when |m| is large
		// (1e30 + log 3 = 1e30).
		p.loss[k] = math.Log(s) - (float64(x[p.labels.y[r]]) - m)
	}
}

func (p *softmaxCEOp[T]) backwardRange(lo, hi int) {
	C := p.logits.Value.Cols
	sc := p.scale
	for k := lo; k < hi; k++ {
		r := p.row(k)
		gx := p.logits.Grad.Data[r*C : (r+1)*C]
		pr := p.prob[k*C : (k+1)*C]
		pr = pr[:len(gx)]
		for j, q := range pr {
			gx[j] += sc * q
		}
		gx[p.labels.y[r]] -= sc
	}
}

// Backward implements Op: d loss / d logit = (softmax − onehot)/n on each
// selected row, 0 on the others.
func (p *softmaxCEOp[T]) Backward(out *Var[T]) {
	if !p.logits.requiresGrad || p.n == 0 {
		return
	}
	p.scale = out.Grad.Data[0] / T(p.n)
	if p.dup {
		p.bwd(0, p.n) // a row selected twice would race with itself
		return
	}
	tensor.ParallelFor(p.n, p.logits.Value.Cols, p.bwd)
}

// SoftmaxCrossEntropy returns the 1×1 mean over the selected rows of
// −log softmax(logits[r])[label[r]], as torch.nn.functional.cross_entropy
// with reduction "mean" on logits[rows]. rows selects which rows count (a
// training mask as indices; a row listed twice counts twice); nil means all
// rows. An empty selection gives a loss of 0 with a zero gradient (PyTorch
// gives NaN). The log-sum-exp is shifted by the row maximum and computed in
// float64, so any finite logits give a finite loss.
//
// labels must have one label per logits row and logits.Cols classes, and
// each row index must lie in [0, logits.Rows); otherwise it panics, as for a
// shape mismatch. Label values need no check here: Labels are valid by
// construction, so bad labels in a dataset surface as an error from
// NewLabels at load time, never as a panic in training. The op keeps a view
// of labels until Backward: do not Set them in between. rows is copied.
//
// To weight classes, smooth labels or use ignore indices, compose
// LogSoftmax with the other ops instead.
func SoftmaxCrossEntropy[T Float](t *Tape[T], logits *Var[T], labels Labels, rows []int32) *Var[T] {
	R, C := logits.Value.Rows, logits.Value.Cols
	checkLabelShape("SoftmaxCrossEntropy", R, C, labels)
	out := t.Node(1, 1, logits)
	p := OpOf[softmaxCEOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwd = p.forwardRange, p.backwardRange
	}
	p.logits, p.labels, p.all, p.dup = logits, labels, rows == nil, false
	p.n = R
	if rows != nil {
		p.n = len(rows)
		p.rows = append(p.rows[:0], rows...)
		if cap(p.seen) < R {
			p.seen = make([]bool, R)
		}
		seen := p.seen[:R]
		clear(seen)
		for k, r := range rows {
			if r < 0 || int(r) >= R {
				panic(fmt.Sprintf("autodiff: SoftmaxCrossEntropy row index %d (position %d) outside [0, %d)", r, k, R))
			}
			p.dup = p.dup || seen[r]
			seen[r] = true
		}
	}
	if cap(p.loss) < p.n {
		p.loss = make([]float64, p.n)
	}
	p.loss = p.loss[:p.n]
	p.keep = out.requiresGrad
	if p.keep {
		if cap(p.prob) < p.n*C {
			p.prob = make([]T, p.n*C)
		}
		p.prob = p.prob[:p.n*C]
	}
	tensor.ParallelFor(p.n, 16*C, p.fwd)
	var s float64
	for _, v := range p.loss {
		s += v
	}
	out.Value.Data[0] = T(s * meanScale(p.n))
	return out
}

// softmaxOp is the record of a row-wise Softmax or LogSoftmax.
type softmaxOp[T Float] struct {
	x, out   *Var[T]
	log      bool
	fwd, bwd func(lo, hi int)
}

func (p *softmaxOp[T]) forwardRows(lo, hi int) {
	C := p.x.Value.Cols
	for i := lo; i < hi; i++ {
		x := p.x.Value.Data[i*C : (i+1)*C]
		y := p.out.Value.Data[i*C : (i+1)*C]
		y = y[:len(x)]
		m := math.Inf(-1)
		for _, v := range x {
			if f := float64(v); f > m { // a NaN logit makes the sum, and the result, NaN
				m = f
			}
		}
		var s float64
		for _, v := range x {
			s += math.Exp(float64(v) - m)
		}
		if p.log {
			ls := math.Log(s)
			for j, v := range x {
				y[j] = T((float64(v) - m) - ls)
			}
			continue
		}
		inv := 1 / s
		for j, v := range x {
			y[j] = T(math.Exp(float64(v)-m) * inv)
		}
	}
}

// backwardRows uses the output only: for y = softmax(x),
// dx = y ⊙ (g − Σ g⊙y); for y = log softmax(x), dx = g − eʸ · Σ g.
func (p *softmaxOp[T]) backwardRows(lo, hi int) {
	C := p.x.Value.Cols
	for i := lo; i < hi; i++ {
		y := p.out.Value.Data[i*C : (i+1)*C]
		g := p.out.Grad.Data[i*C : (i+1)*C]
		gx := p.x.Grad.Data[i*C : (i+1)*C]
		g, gx = g[:len(y)], gx[:len(y)]
		var s float64
		if p.log {
			for _, v := range g {
				s += float64(v)
			}
			for j, v := range y {
				gx[j] += g[j] - T(math.Exp(float64(v))*s)
			}
			continue
		}
		for j, v := range y {
			s += float64(g[j]) * float64(v)
		}
		for j, v := range y {
			gx[j] += T(float64(v) * (float64(g[j]) - s))
		}
	}
}

// Backward implements Op.
func (p *softmaxOp[T]) Backward(out *Var[T]) {
	if p.x.requiresGrad {
		tensor.ParallelFor(out.Value.Rows, 16*out.Value.Cols, p.bwd)
	}
}

func recordSoftmax[T Float](t *Tape[T], x *Var[T], log bool) *Var[T] {
	out := t.Node(x.Value.Rows, x.Value.Cols, x)
	p := OpOf[softmaxOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwd = p.forwardRows, p.backwardRows
	}
	p.x, p.out, p.log = x, out, log
	tensor.ParallelFor(x.Value.Rows, 16*x.Value.Cols, p.fwd)
	return out
}

// Softmax returns the softmax of each row of x (torch.softmax(x, dim=1)),
// shifted by the row maximum so that any finite input is safe. For a
// classification loss use SoftmaxCrossEntropy, which is cheaper and exact
// where probabilities underflow.
func Softmax[T Float](t *Tape[T], x *Var[T]) *Var[T] { return recordSoftmax(t, x, false) }

// LogSoftmax returns log softmax of each row of x (torch.log_softmax(x,
// dim=1)), computed as (x − max) − log Σ exp(x − max): finite for any finite
// input, even where the softmax itself underflows to 0.
func LogSoftmax[T Float](t *Tape[T], x *Var[T]) *Var[T] { return recordSoftmax(t, x, true) }

// Argmax writes the index of the largest element of each row of m into dst,
// reusing its storage, and returns it. Ties go to the first index (as
// torch.argmax); a NaN counts as the largest value; a row with no columns
// gives −1.
func Argmax[T Float](m *tensor.Dense[T], dst []int32) []int32 {
	if cap(dst) < m.Rows {
		dst = make([]int32, m.Rows)
	}
	dst = dst[:m.Rows]
	for i := range dst {
		dst[i] = argmaxRow(m.Row(i))
	}
	return dst
}

func argmaxRow[T Float](x []T) int32 {
	best := int32(-1)
	var bv T
	for j, v := range x {
		if v != v {
			return int32(j)
		}
		if best < 0 || v > bv {
			best, bv = int32(j), v
		}
	}
	return best
}

// Accuracy is the fraction of the selected rows (nil: all) whose argmax
// equals the label; 0 for an empty selection. It is a metric, not an op, and
// allocates nothing. It panics on the same shape errors as
// SoftmaxCrossEntropy.
func Accuracy[T Float](logits *tensor.Dense[T], labels Labels, rows []int32) float64 {
	checkLabelShape("Accuracy", logits.Rows, logits.Cols, labels)
	correct, n := 0, logits.Rows
	if rows == nil {
		for i := 0; i < n; i++ {
			if argmaxRow(logits.Row(i)) == labels.y[i] {
				correct++
			}
		}
	} else {
		n = len(rows)
		for k, r := range rows {
			if r < 0 || int(r) >= logits.Rows {
				panic(fmt.Sprintf("autodiff: Accuracy row index %d (position %d) outside [0, %d)", r, k, logits.Rows))
			}
			if argmaxRow(logits.Row(int(r))) == labels.y[r] {
				correct++
			}
		}
	}
	return float64(correct) * meanScale(n)
}

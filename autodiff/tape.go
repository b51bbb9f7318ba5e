package autodiff

import (
	"fmt"
	"unsafe"

	"github.com/prcaps/prcaps/tensor"
)

// Float is the element type constraint of the engine.
type Float = tensor.Float

// Op is the record of one operation on the tape. Backward reads out.Grad and
// adds the gradient of each input that requires one into that input's Grad.
// It must not assume the input gradients are zero, and must not allocate once
// its workspaces exist.
type Op[T Float] interface {
	Backward(out *Var[T])
}

// Var is a value in the computation and the gradient of the loss with respect
// to it. Grad has Value's shape once the Var takes part in a backward pass.
type Var[T Float] struct {
	Value tensor.Dense[T]
	Grad  tensor.Dense[T]
	Name  string // optional, used in error messages

	requiresGrad bool
	op           Op[T] // producer; nil for leaves
}

// NewVar returns a leaf Var holding value (not copied). A parameter is a leaf
// with requiresGrad set.
func NewVar[T Float](value *tensor.Dense[T], requiresGrad bool) *Var[T] {
	v := &Var[T]{Value: *value, requiresGrad: requiresGrad}
	if requiresGrad {
		v.Grad = *tensor.NewDense[T](value.Rows, value.Cols)
	}
	return v
}

// NewParam returns a named trainable leaf of shape r×c, zero-initialised.
func NewParam[T Float](name string, r, c int) *Var[T] {
	v := NewVar(tensor.NewDense[T](r, c), true)
	v.Name = name
	return v
}

// RequiresGrad reports whether gradient flows into v.
func (v *Var[T]) RequiresGrad() bool { return v.requiresGrad }

// Shape returns the value's shape.
func (v *Var[T]) Shape() (rows, cols int) { return v.Value.Rows, v.Value.Cols }

// ZeroGrad zeroes v's gradient.
func (v *Var[T]) ZeroGrad() { v.Grad.Zero() }

// Tape records the ops of a forward pass and replays them backwards.
// The zero value is ready to use.
type Tape[T Float] struct {
	nodes []*Var[T]
	n     int
	// NoGrad makes the tape record nothing: ops compute values only and
	// their outputs do not require gradients (evaluation mode).
	NoGrad bool
	// ReleaseGrads makes Backward zero each tape node's gradient as soon as
	// the node's op has passed it on to the op's inputs, while it is still
	// in cache, instead of zeroing every node's gradient before the next
	// backward pass (a pass over all of them, from memory). After Backward
	// the tape nodes' gradients then read zero; the gradients of leaves
	// (parameters, inputs) are not affected. Training steps, which only use
	// the parameters' gradients, set it.
	ReleaseGrads bool
	// dirty is whether a node's gradient may be non-zero outside Backward:
	// after a pass without ReleaseGrads, or one that did not finish.
	dirty bool
}

// Reset rewinds the tape for a new forward pass. Vars returned by the
// previous pass are recycled and must not be used afterwards.
func (t *Tape[T]) Reset() { t.n = 0 }

// Len is the number of ops recorded since the last Reset, counting the
// positions taken by Skip.
func (t *Tape[T]) Len() int { return t.n }

// Bytes is the storage the tape's nodes hold for their values and their
// gradients (capacities, over every position of the longest pass so far),
// not counting the ops' own scratch: what memory per node or per link a
// model's tape costs.
func (t *Tape[T]) Bytes() (values, grads int64) {
	var zero T
	size := int64(unsafe.Sizeof(zero))
	for _, v := range t.nodes {
		values += size * int64(cap(v.Value.Data))
		grads += size * int64(cap(v.Grad.Data))
	}
	return values, grads
}

// Skip takes the tape position at which an op would have recorded,
// recording nothing there. An op that records only for some input values
// (manifold.LogExpO returns its input when no row wraps) calls it when it
// records nothing. Otherwise the ops after it would shift by one position
// whenever the data change which way it goes. Each later op would then
// miss the record it left at its position in the previous pass and
// allocate its record and buffers anew, in that pass and in the next.
func (t *Tape[T]) Skip() {
	if t.n == len(t.nodes) {
		t.nodes = append(t.nodes, &Var[T]{})
	}
	// The Var keeps its op record and buffers for a pass in which the op
	// records here again; Backward passes over it.
	t.nodes[t.n].requiresGrad = false
	t.n++
}

// Node returns the tape's next output Var with an r×c value, recycling the
// Var at this position of the previous pass. requiresGrad is whether any
// input of the op requires a gradient; it is forced off under NoGrad. The
// value's contents are unspecified: the op overwrites them.
// Op implementations (in this and other packages) call Node, then SetOp.
func (t *Tape[T]) Node(r, c int, requiresGrad bool) *Var[T] {
	if t.n == len(t.nodes) {
		t.nodes = append(t.nodes, &Var[T]{})
	}
	v := t.nodes[t.n]
	t.n++
	v.Value.Reshape(r, c)
	v.requiresGrad = requiresGrad && !t.NoGrad
	if v.requiresGrad {
		v.Grad.Reshape(r, c)
	}
	v.Name = ""
	return v
}

// OpOf returns out's op record of type *O, reusing the one from the previous
// pass when it has that type, so that steady-state passes allocate nothing.
func OpOf[O any, T Float, P interface {
	*O
	Op[T]
}](out *Var[T]) P {
	if p, ok := out.op.(P); ok {
		return p
	}
	p := P(new(O))
	out.op = p
	return p
}

// Any reports whether any of vs requires a gradient.
func Any[T Float](vs ...*Var[T]) bool {
	for _, v := range vs {
		if v.requiresGrad {
			return true
		}
	}
	return false
}

// Backward computes the gradient of loss, which must be 1×1 and produced on
// this tape, with respect to every Var on the tape and every parameter
// reachable from it. Gradients of tape nodes start from zero (but see
// ReleaseGrads); parameter gradients accumulate.
func (t *Tape[T]) Backward(loss *Var[T]) error {
	if loss.Value.Rows != 1 || loss.Value.Cols != 1 {
		return fmt.Errorf("autodiff: Backward needs a 1×1 loss, got %d×%d", loss.Value.Rows, loss.Value.Cols)
	}
	return t.BackwardSeeded(loss, nil)
}

// BackwardSeeded is Backward for an output of any shape: the gradient that
// flows into out is seed (same shape as out), or all ones when seed is nil.
// It computes the gradient of Σ seed ⊙ out.
func (t *Tape[T]) BackwardSeeded(out *Var[T], seed *tensor.Dense[T]) error {
	if !out.requiresGrad {
		return fmt.Errorf("autodiff: output does not depend on any parameter")
	}
	if seed != nil && !seed.SameShape(&out.Value) {
		return fmt.Errorf("autodiff: seed is %d×%d but the output is %d×%d", seed.Rows, seed.Cols, out.Value.Rows, out.Value.Cols)
	}
	last := -1
	for i := 0; i < t.n; i++ {
		if t.nodes[i] == out {
			last = i
		}
	}
	if last < 0 {
		return fmt.Errorf("autodiff: output was not recorded on this tape since the last Reset")
	}
	t.zeroGrads()
	if seed != nil {
		copy(out.Grad.Data, seed.Data)
	} else {
		for i := range out.Grad.Data {
			out.Grad.Data[i] = 1
		}
	}
	for i := last; i >= 0; i-- {
		v := t.nodes[i]
		if !v.requiresGrad {
			continue
		}
		if v.op != nil {
			v.op.Backward(v)
		}
		if t.ReleaseGrads {
			v.Grad.Zero()
		}
	}
	t.dirty = !t.ReleaseGrads
	return nil
}

// zeroGrads makes every tape node's gradient zero for a backward pass.
//
// Without ReleaseGrads it zeroes the gradients of this pass's nodes. Under
// ReleaseGrads a clean tape needs nothing: each gradient was zeroed once
// used, a node's gradient is only written by the ops that consume the
// node (which come later on the tape, so run earlier in Backward), and
// Dense.Reshape keeps the zeros beyond a buffer's old length when it
// grows. A dirty tape is zeroed in full, every node it holds up to each
// buffer's capacity, so that the invariant holds from then on. The tape
// stays dirty until a ReleaseGrads pass finishes.
func (t *Tape[T]) zeroGrads() {
	switch {
	case !t.ReleaseGrads:
		for _, v := range t.nodes[:t.n] {
			if v.requiresGrad {
				v.Grad.Zero()
			}
		}
	case t.dirty:
		for _, v := range t.nodes {
			clear(v.Grad.Data[:cap(v.Grad.Data)])
		}
	}
	t.dirty = true
}

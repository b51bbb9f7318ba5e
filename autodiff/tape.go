package autodiff

import (
	"errors"
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
// to it. A leaf's Grad has Value's shape from the start when it requires a
// gradient. A tape node's Grad gets Value's shape in a backward pass; under
// ReleaseGrads it exists only while the pass needs it (see Tape).
type Var[T Float] struct {
	Value tensor.Dense[T]
	Grad  tensor.Dense[T]
	Name  string // optional, used in error messages

	requiresGrad bool
	op           Op[T] // producer; nil for leaves
	pos          int   // 1 + position on its tape; 0 for leaves
	held         bool  // ReleaseGrads pass: Grad is a buffer of the tape's pool
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
	// ins holds, for each position, the inputs of its node that are nodes
	// of this tape and require a gradient: ins[inEnd[i-1]:inEnd[i]] for
	// position i (from 0 for position 0). Backward under ReleaseGrads
	// gives them gradient buffers just before the node's op needs them.
	ins   []*Var[T]
	inEnd []int
	// NoGrad makes the tape record nothing: ops compute values only and
	// their outputs do not require gradients (evaluation mode).
	NoGrad bool
	// Grow gives a node's value and a scratch slot that must grow a
	// quarter more capacity than asked (tensor.Regrow): for passes whose
	// sizes vary from step to step, as sampled mini-batches' do, so that a
	// step rarely allocates once warm and the garbage of regrown buffers
	// does not pile up between collections (which, with a large graph in
	// the heap, come rarely). Fixed-size passes leave it off and hold
	// exact sizes.
	Grow bool
	// ReleaseGrads keeps only the live gradients of a backward pass. A tape
	// node's gradient is needed from the backward step of its last consumer
	// (the first to run) to its own: Backward takes a zeroed buffer from the
	// tape's pool for it then, and zeroes it and gives it back as soon as
	// the node's op has passed the gradient on to its inputs, while it is
	// still in cache. The pool thus holds the largest set of gradients live
	// at one time rather than one buffer per node, and nothing needs zeroing
	// before a pass. A node whose gradient no consumer wrote is skipped. The
	// results are bit for bit those without ReleaseGrads, but after Backward
	// the tape nodes' gradients are empty; the gradients of leaves
	// (parameters, inputs) are not affected. Training steps, which only use
	// the parameters' gradients, set it.
	ReleaseGrads bool
	pool         gradPool[T]
	scratch      [ScratchSlots][]T // see Scratch
	// poolDirty is whether a ReleaseGrads pass did not finish, so that
	// nodes may still hold buffers of the pool.
	poolDirty bool
	// Done, when not nil, interrupts a forward pass run under Interruptible
	// once it is closed: the next op to take a tape position stops the
	// pass. A server sets it to its request's context's Done channel, so
	// that a request past its deadline stops computing within one op
	// instead of running to the end for nobody.
	Done <-chan struct{}
}

// ErrInterrupted is Interruptible's error for a pass stopped by Done.
var ErrInterrupted = errors.New("autodiff: pass interrupted")

// interrupt is the panic value with which next stops a pass.
type interrupt struct{}

// Interruptible runs f, a pass that records on t, and returns
// ErrInterrupted if t.Done closed while it ran (the pass stopped at the op
// that saw it; what f had computed is unusable, and t must be Reset before
// the next pass). Other panics propagate.
func (t *Tape[T]) Interruptible(f func()) (err error) {
	defer func() {
		if e := recover(); e != nil {
			if _, ok := e.(interrupt); !ok {
				panic(e)
			}
			err = ErrInterrupted
		}
	}()
	f()
	return nil
}

// Reset rewinds the tape for a new forward pass. Vars returned by the
// previous pass are recycled and must not be used afterwards.
func (t *Tape[T]) Reset() {
	t.n = 0
	t.ins = t.ins[:0]
}

// Len is the number of ops recorded since the last Reset, counting the
// positions taken by Skip.
func (t *Tape[T]) Len() int { return t.n }

// Bytes is the storage the tape's nodes hold for their values and their
// gradients (capacities, over every position of the longest pass so far),
// not counting the ops' own buffers nor the shared Scratch: what memory per
// node or per link a model's tape costs.
//
// Gradients are allocated by Backward: without ReleaseGrads one buffer per
// node that requires a gradient; with it, the pool of live gradients.
func (t *Tape[T]) Bytes() (values, grads int64) {
	var zero T
	size := int64(unsafe.Sizeof(zero))
	for _, v := range t.nodes {
		values += size * int64(cap(v.Value.Data))
		if !v.held {
			grads += size * int64(cap(v.Grad.Data))
		}
	}
	return values, grads + size*t.pool.elems()
}

// Skip takes the tape position at which an op would have recorded,
// recording nothing there. An op that records only for some input values
// (manifold.LogExpO returns its input when no row wraps) calls it when it
// records nothing. Otherwise the ops after it would shift by one position
// whenever the data change which way it goes. Each later op would then
// miss the record it left at its position in the previous pass and
// allocate its record and buffers anew, in that pass and in the next.
func (t *Tape[T]) Skip() {
	v := t.next()
	// The Var keeps its op record and buffers for a pass in which the op
	// records here again; Backward passes over it.
	v.requiresGrad = false
	t.inEnd[t.n-1] = len(t.ins)
}

// next advances the tape by one position and returns its Var, recycled from
// the previous pass or new.
func (t *Tape[T]) next() *Var[T] {
	if t.Done != nil {
		select {
		case <-t.Done:
			panic(interrupt{})
		default:
		}
	}
	if t.n == len(t.nodes) {
		t.nodes = append(t.nodes, &Var[T]{pos: t.n + 1})
		t.inEnd = append(t.inEnd, 0)
	}
	v := t.nodes[t.n]
	t.n++
	return v
}

// Node returns the tape's next output Var with an r×c value, recycling the
// Var at this position of the previous pass. inputs are the op's inputs
// (nil entries are ignored): the output requires a gradient when any of
// them does, unless the tape is NoGrad, and Backward must know every input
// through which the op passes gradients on. An op with no inputs (a
// constant, a detached copy) records a node that requires no gradient. The
// value's contents are unspecified: the op overwrites them.
// Op implementations (in this and other packages) call Node, then OpOf.
func (t *Tape[T]) Node(r, c int, inputs ...*Var[T]) *Var[T] {
	v := t.next()
	if t.Grow {
		v.Value.ReshapeGrow(r, c)
	} else {
		v.Value.Reshape(r, c)
	}
	v.requiresGrad = false
	if !t.NoGrad {
		for _, in := range inputs {
			if in == nil || !in.requiresGrad {
				continue
			}
			v.requiresGrad = true
			if t.owns(in) {
				t.ins = append(t.ins, in)
			}
		}
	}
	t.inEnd[t.n-1] = len(t.ins)
	v.Name = ""
	return v
}

// owns reports whether v is a node of this pass of the tape (not a leaf,
// nor a node of another tape).
func (t *Tape[T]) owns(v *Var[T]) bool {
	return v.pos > 0 && v.pos <= t.n && t.nodes[v.pos-1] == v
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
	if t.ReleaseGrads {
		t.backwardLive(out, last, seed)
		return nil
	}
	t.zeroGrads()
	seedGrad(out, seed)
	for i := last; i >= 0; i-- {
		v := t.nodes[i]
		if v.requiresGrad && v.op != nil {
			v.op.Backward(v)
		}
	}
	return nil
}

// seedGrad sets out's gradient to seed, or to ones when seed is nil.
func seedGrad[T Float](out *Var[T], seed *tensor.Dense[T]) {
	if seed != nil {
		copy(out.Grad.Data, seed.Data)
		return
	}
	for i := range out.Grad.Data {
		out.Grad.Data[i] = 1
	}
}

// zeroGrads gives every node of this pass that requires a gradient a zeroed
// gradient of its value's shape (its own buffer, kept between passes).
func (t *Tape[T]) zeroGrads() {
	t.dropHeld()
	for _, v := range t.nodes[:t.n] {
		if v.requiresGrad {
			v.Grad.Reshape(v.Value.Rows, v.Value.Cols)
			v.Grad.Zero()
		}
	}
}

// backwardLive is the backward pass under ReleaseGrads: gradients of tape
// nodes live in pool buffers from their last consumer's backward step to
// their own (see Tape.ReleaseGrads). Each input's gradient accumulates the
// same terms in the same order as without ReleaseGrads, so the results are
// bit for bit the same.
func (t *Tape[T]) backwardLive(out *Var[T], last int, seed *tensor.Dense[T]) {
	t.dropHeld()
	t.poolDirty = true
	t.hold(out)
	seedGrad(out, seed)
	for i := last; i >= 0; i-- {
		v := t.nodes[i]
		if !v.requiresGrad || !v.held {
			continue // no gradient reached it: it passes on zeros
		}
		from := 0
		if i > 0 {
			from = t.inEnd[i-1]
		}
		for _, in := range t.ins[from:t.inEnd[i]] {
			if !in.held {
				t.hold(in)
			}
		}
		if v.op != nil {
			v.op.Backward(v)
		}
		v.Grad.Zero()
		t.pool.put(v.Grad.Data)
		v.Grad.Data, v.held = nil, false
	}
	t.poolDirty = false
}

// hold gives tape node v a zeroed gradient buffer from the pool.
func (t *Tape[T]) hold(v *Var[T]) {
	v.Grad.Rows, v.Grad.Cols = v.Value.Rows, v.Value.Cols
	v.Grad.Data = t.pool.get(v.Value.Rows*v.Value.Cols, t.Grow)
	v.held = true
}

// dropHeld forgets the pool buffers that nodes still hold after a
// ReleaseGrads pass that did not finish (their contents are unknown) and
// lets those nodes' gradients be allocated anew.
func (t *Tape[T]) dropHeld() {
	if !t.poolDirty {
		return
	}
	for _, v := range t.nodes {
		if v.held {
			t.pool.all -= int64(cap(v.Grad.Data))
			v.Grad.Data, v.held = nil, false
		}
	}
	t.poolDirty = false
}

package autodiff

import (
	"errors"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

// A closed Done stops a pass at its next op: Interruptible returns
// ErrInterrupted, the ops after it do not run, and the tape, Reset, runs
// the next pass to the same values. Other panics are not swallowed.
func TestInterruptible(t *testing.T) {
	x := NewVar(tensor.NewDense[float32](2, 3), false)
	for i := range x.Value.Data {
		x.Value.Data[i] = float32(i)
	}
	var tp Tape[float32]
	tp.NoGrad = true
	ops := 0
	pass := func(stopAfter int, done chan struct{}) (out *Var[float32]) {
		out = x
		for i := range 5 {
			if i == stopAfter {
				close(done)
			}
			out = Add(&tp, out, x)
			ops++
		}
		return out
	}
	want := tp.Interruptible(func() { pass(-1, nil) })
	if want != nil || tp.Len() != 5 {
		t.Fatalf("a pass without Done: %v, %d ops", want, tp.Len())
	}
	done := make(chan struct{})
	tp.Reset()
	tp.Done = done
	ops = 0
	err := tp.Interruptible(func() { pass(2, done) })
	if !errors.Is(err, ErrInterrupted) || ops != 2 || tp.Len() != 2 {
		t.Errorf("closed after two ops: error %v, %d ops counted, %d recorded; want ErrInterrupted after 2", err, ops, tp.Len())
	}
	tp.Done = nil
	tp.Reset()
	var out *Var[float32]
	if err := tp.Interruptible(func() { out = pass(-1, nil) }); err != nil || out.Value.Data[5] != 6*5 {
		t.Errorf("the pass after an interrupt: %v, x[5] = %v, want 30", err, out.Value.Data[5])
	}
	defer func() {
		if e := recover(); e != "other" {
			t.Errorf("recovered %v; want the pass's own panic", e)
		}
	}()
	tp.Interruptible(func() { panic("other") })
	t.Error("a panic of the pass was swallowed")
}

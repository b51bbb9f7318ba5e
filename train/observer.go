package train

import (
	"slices"
	"sync"

	"github.com/prcaps/prcaps/model"
)

// Observer watches training runs, as gonum's optimize.Recorder watches an
// optimisation: the runners call it after every epoch and after every run
// that finishes. run is the run's index in its protocol (seed or fold,
// from 0; 0 for RunNode, RunNodeSampled and RunGraph). A protocol calls its
// observer one call at a time, even with several runs training at once, so
// an Observer needs no lock of its own. Observers(a, b) gives both the
// calls; EpochFunc, RunFunc and ModelFunc turn a function into one.
//
// An Observer may implement ModelObserver, ValidationObserver or
// TestCurveObserver to get more.
type Observer interface {
	// Epoch is called after each epoch of run. e.Curvatures is valid
	// until the call returns.
	Epoch(run int, e Epoch)
	// Run is called once run has finished without error, with its result.
	Run(run int, r Result)
}

// ModelObserver is an Observer that also sees each run's model once the
// run has finished (before Run), holding the parameters of its selected
// epoch, to save it, say. It must not keep m past the call: the run puts
// its last epoch's parameters back after it. Keeping the selected epoch's
// parameters costs a copy of them whenever the selection moves, so a run
// keeps them only for a ModelObserver.
type ModelObserver interface {
	Observer
	Selected(run int, r Result, m model.Model)
}

// ValidationObserver is an Observer that also gets, after each epoch of a
// graph run, the logits of every validation graph, for studying
// epoch-selection rules without test labels (docs/notes/epoch-selection.md).
// v's slices are reused once the call returns.
type ValidationObserver interface {
	Observer
	Validation(fold int, v ValScores)
}

// TestCurveObserver is an Observer that has a graph run score its test
// fold after every epoch and gets each epoch's validation and test
// accuracy. It is a diagnostic for comparing with papers that report the
// epoch of best mean test accuracy over the folds (CurveSelection): the
// protocol's own selection never reads it, and training is the same with
// it as without. Epoch then reports the test accuracy too, which is NaN
// otherwise in a graph run.
type TestCurveObserver interface {
	Observer
	TestCurve(fold int, p CurvePoint)
}

// Observers returns an Observer that passes each call to every one of obs
// in turn, skipping nil ones, and each call of the optional interfaces
// (ModelObserver, ...) to those of obs that implement it; a run does the
// optional work (keeping the selected parameters, recording validation
// logits, scoring the test set every epoch) only when one of them does.
// With no observer left it returns nil.
func Observers(obs ...Observer) Observer {
	var all fanOut
	for _, o := range obs {
		switch o := o.(type) {
		case nil:
		case fanOut:
			all = append(all, o...)
		default:
			all = append(all, o)
		}
	}
	switch len(all) {
	case 0:
		return nil
	case 1:
		return all[0]
	}
	return all
}

// EpochFunc is an Observer that calls itself after every epoch and ignores
// finished runs.
type EpochFunc func(run int, e Epoch)

// Epoch calls f(run, e).
func (f EpochFunc) Epoch(run int, e Epoch) { f(run, e) }

// Run does nothing.
func (f EpochFunc) Run(int, Result) {}

// RunFunc is an Observer that calls itself after every finished run and
// ignores the epochs.
type RunFunc func(run int, r Result)

// Epoch does nothing.
func (f RunFunc) Epoch(int, Epoch) {}

// Run calls f(run, r).
func (f RunFunc) Run(run int, r Result) { f(run, r) }

// ModelFunc is a ModelObserver that calls itself with each finished run's
// model (see ModelObserver) and ignores the epochs and results.
type ModelFunc func(run int, r Result, m model.Model)

// Epoch does nothing.
func (f ModelFunc) Epoch(int, Epoch) {}

// Run does nothing.
func (f ModelFunc) Run(int, Result) {}

// Selected calls f(run, r, m).
func (f ModelFunc) Selected(run int, r Result, m model.Model) { f(run, r, m) }

// fanOut is Observers' result.
type fanOut []Observer

func (f fanOut) Epoch(run int, e Epoch) {
	for _, o := range f {
		o.Epoch(run, e)
	}
}

func (f fanOut) Run(run int, r Result) {
	for _, o := range f {
		o.Run(run, r)
	}
}

func (f fanOut) Selected(run int, r Result, m model.Model) {
	for _, o := range f {
		if o, ok := o.(ModelObserver); ok {
			o.Selected(run, r, m)
		}
	}
}

func (f fanOut) Validation(fold int, v ValScores) {
	for _, o := range f {
		if o, ok := o.(ValidationObserver); ok {
			o.Validation(fold, v)
		}
	}
}

func (f fanOut) TestCurve(fold int, p CurvePoint) {
	for _, o := range f {
		if o, ok := o.(TestCurveObserver); ok {
			o.TestCurve(fold, p)
		}
	}
}

// implements reports whether o, or one of the observers of a fan-out,
// implements T.
func implements[T any](o Observer) bool {
	if f, ok := o.(fanOut); ok {
		return slices.ContainsFunc(f, implements[T])
	}
	_, ok := o.(T)
	return ok
}

// watch is an Observer as one run reports to it: with the run's index,
// under the lock that serialises its protocol's calls, and only for the
// optional interfaces that it implements (the others' fields are nil). A
// nil *watch observes nothing.
type watch struct {
	obs   Observer
	run   int
	mu    *sync.Mutex
	model ModelObserver
	val   ValidationObserver
	test  TestCurveObserver
}

// newWatch returns run's watch of obs under mu, or nil for a nil obs.
func newWatch(obs Observer, run int, mu *sync.Mutex) *watch {
	if obs == nil {
		return nil
	}
	w := &watch{obs: obs, run: run, mu: mu}
	if implements[ModelObserver](obs) {
		w.model = obs.(ModelObserver)
	}
	if implements[ValidationObserver](obs) {
		w.val = obs.(ValidationObserver)
	}
	if implements[TestCurveObserver](obs) {
		w.test = obs.(TestCurveObserver)
	}
	return w
}

// alone is newWatch for a run outside a protocol.
func alone(obs Observer) *watch { return newWatch(obs, 0, new(sync.Mutex)) }

func (w *watch) epoch(e Epoch) {
	if w != nil {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.obs.Epoch(w.run, e)
	}
}

func (w *watch) finished(r Result) {
	if w != nil {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.obs.Run(w.run, r)
	}
}

// wantsModel reports whether the run keeps its selected parameters for a
// ModelObserver.
func (w *watch) wantsModel() bool { return w != nil && w.model != nil }

func (w *watch) selected(r Result, m model.Model) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.model.Selected(w.run, r, m)
}

// validation returns the run's validation hook, or nil.
func (w *watch) validation() func(ValScores) {
	if w == nil || w.val == nil {
		return nil
	}
	return func(v ValScores) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.val.Validation(w.run, v)
	}
}

// testCurve returns the run's test-curve hook, or nil.
func (w *watch) testCurve() func(CurvePoint) {
	if w == nil || w.test == nil {
		return nil
	}
	return func(p CurvePoint) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.test.TestCurve(w.run, p)
	}
}

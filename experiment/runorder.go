package experiment

import (
	"maps"
	"slices"

	"github.com/prcaps/prcaps/train"
)

// InRunOrder returns an onRun function (for a train.RunFunc observer) that
// passes each finished run on to emit in run order (0, 1, 2, …), each as
// soon as every run before it has finished: runs trained at once finish in
// any order. flush passes on, in order, the runs still waiting behind one
// that never finished (a failed run); call it once the protocol returns.
// The protocols call an observer one call at a time, so onRun needs no
// lock.
func InRunOrder(emit func(run int, r train.Result)) (onRun func(int, train.Result), flush func()) {
	next := 0
	pending := map[int]train.Result{}
	onRun = func(run int, r train.Result) {
		pending[run] = r
		for {
			r, ok := pending[next]
			if !ok {
				return
			}
			delete(pending, next)
			emit(next, r)
			next++
		}
	}
	flush = func() {
		for _, run := range slices.Sorted(maps.Keys(pending)) {
			emit(run, pending[run])
		}
		clear(pending)
	}
	return onRun, flush
}

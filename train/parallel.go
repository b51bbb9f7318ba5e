package train

import (
	"fmt"
	"sync"

	"github.com/prcaps/prcaps/tensor"
)

// forEachRun calls run(i) for every i in [0, n) on up to parallel
// goroutines (serially when parallel ≤ 1) and returns each run's error. A
// failing or panicking run does not stop the others: the run boundary
// turns a panic into that run's error. Runs are independent (own seed, own
// model), so results do not depend on parallel; on 2 cores two runs at
// once use the machine better than one run's parallel kernels, whose
// chunks are too short to keep a second core busy. Each goroutine occupies
// a core (tensor.Occupy), so the runs' kernels use pool workers only for
// the cores no run holds.
func forEachRun(n, parallel int, run func(i int) error) []error {
	errs := make([]error, n)
	guarded := func(i int) {
		defer func() {
			if p := recover(); p != nil {
				errs[i] = fmt.Errorf("panic: %v", p)
			}
		}()
		errs[i] = run(i)
	}
	if parallel <= 1 {
		for i := 0; i < n; i++ {
			guarded(i)
		}
		return errs
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(parallel, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer tensor.Occupy()()
			for i := range next {
				guarded(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return errs
}

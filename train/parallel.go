package train

import (
	"sync"

	"github.com/prcaps/prcaps/tensor"
)

// forEachRun calls run(i) for i in [0, n) on up to parallel goroutines
// (serially when parallel ≤ 1) and returns the error of the lowest failing
// index. Runs are independent (own seed, own model), so results do not
// depend on parallel; on 2 cores two runs at once use the machine better
// than one run's parallel kernels, whose chunks are too short to keep a
// second core busy. Each goroutine occupies a core (tensor.Occupy), so the
// runs' kernels use pool workers only for the cores no run holds.
func forEachRun(n, parallel int, run func(i int) error) error {
	errs := make([]error, n)
	if parallel <= 1 {
		for i := 0; i < n; i++ {
			if errs[i] = run(i); errs[i] != nil {
				return errs[i]
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(parallel, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer tensor.Occupy()()
			for i := range next {
				errs[i] = run(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

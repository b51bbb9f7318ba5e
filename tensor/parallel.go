package tensor

import (
	"runtime"
	"sync"
)

// minGrain is the least work (in rows × cost units) worth a goroutine:
// below it a kernel runs on the calling goroutine.
const minGrain = 1 << 14

// ParallelFor calls body(lo, hi) on disjoint chunks covering [0, n), in
// parallel on up to GOMAXPROCS goroutines. cost estimates the work per index
// (e.g. the row length); small problems run serially so that tiny kernels do
// not pay for goroutines. body must be safe to run concurrently on disjoint
// ranges.
func ParallelFor(n, cost int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	workers := runtime.GOMAXPROCS(0)
	if cost < 1 {
		cost = 1
	}
	if w := n * cost / minGrain; w < workers {
		workers = w
	}
	if workers <= 1 {
		body(0, n)
		return
	}
	chunk := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(lo, hi)
		}()
	}
	wg.Wait()
}

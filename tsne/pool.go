package tsne

import (
	"sync"
	"sync/atomic"
)

// chunk is the number of points a worker claims at a time. Every parallel
// loop of this package writes only to per-point slots, and every sum over
// points is taken afterwards in index order, so the way chunks are shared
// among workers affects the speed but never the result.
const chunk = 128

// pool runs loops over [0, n) on a fixed set of goroutines. Starting a loop
// allocates nothing, so the optimiser's iterations run allocation-free.
type pool struct {
	workers int
	start   []chan struct{}
	wg      sync.WaitGroup
	next    atomic.Int64
	n       int
	body    func(w, lo, hi int)
}

// newPool starts workers goroutines (at least 1). close must be called to
// stop them.
func newPool(workers int) *pool {
	if workers < 1 {
		workers = 1
	}
	p := &pool{workers: workers, start: make([]chan struct{}, workers)}
	for w := range workers {
		p.start[w] = make(chan struct{})
		go p.work(w)
	}
	return p
}

func (p *pool) work(w int) {
	for range p.start[w] {
		for {
			lo := int(p.next.Add(chunk)) - chunk
			if lo >= p.n {
				break
			}
			p.body(w, lo, min(lo+chunk, p.n))
		}
		p.wg.Done()
	}
}

// run calls body(w, lo, hi) for consecutive chunks [lo, hi) covering [0, n),
// where w < p.workers identifies the calling worker (for scratch space), and
// returns when all chunks are done. body must be a value that is reused
// between calls (a method value stored once) for run to allocate nothing.
func (p *pool) run(n int, body func(w, lo, hi int)) {
	if n <= chunk || p.workers == 1 {
		for lo := 0; lo < n; lo += chunk {
			body(0, lo, min(lo+chunk, n))
		}
		return
	}
	p.n, p.body = n, body
	p.next.Store(0)
	p.wg.Add(p.workers)
	for _, c := range p.start {
		c <- struct{}{}
	}
	p.wg.Wait()
	p.body = nil
}

// close stops the workers.
func (p *pool) close() {
	for _, c := range p.start {
		close(c)
	}
}

package tensor

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// coverRanger records which indices were visited, and how often.
type coverRanger struct{ hits []int32 }

func (c *coverRanger) Range(lo, hi int) {
	for i := lo; i < hi; i++ {
		atomic.AddInt32(&c.hits[i], 1)
	}
}

func TestParallelRangeCoversOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, n := range []int{0, 1, 7, 100, 1 << 12, 100003} {
		for _, cost := range []int{0, 1, 64, 1 << 16} {
			c := &coverRanger{hits: make([]int32, n)}
			ParallelRange(n, cost, c)
			for i, h := range c.hits {
				if h != 1 {
					t.Fatalf("n=%d cost=%d: index %d visited %d times", n, cost, i, h)
				}
			}
		}
	}
}

func TestParallelForConcurrentAndNested(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var total atomic.Int64
			ParallelFor(64, 1<<14, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					// A nested loop from inside a chunk must not deadlock.
					ParallelFor(256, 1<<10, func(lo, hi int) { total.Add(int64(hi - lo)) })
				}
			})
			if got := total.Load(); got != 64*256 {
				t.Errorf("nested total %d, want %d", got, 64*256)
			}
		}()
	}
	wg.Wait()
}

func TestParallelRangeRepanics(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for trial := 0; trial < 20; trial++ {
		func() {
			defer func() {
				p := recover()
				if p == nil || !strings.Contains(p.(string), "boom") {
					t.Fatalf("recovered %v, want a panic mentioning boom", p)
				}
			}()
			ParallelFor(1000, 1<<14, func(lo, hi int) {
				if lo <= 500 && 500 < hi {
					panic("boom")
				}
			})
		}()
	}
	// The pool still works afterwards.
	c := &coverRanger{hits: make([]int32, 5000)}
	ParallelRange(5000, 1<<14, c)
	for i, h := range c.hits {
		if h != 1 {
			t.Fatalf("after a panic: index %d visited %d times", i, h)
		}
	}
}

func TestParallelRangeNoAllocs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	c := &coverRanger{hits: make([]int32, 1<<16)}
	if n := testing.AllocsPerRun(200, func() { ParallelRange(len(c.hits), 1<<10, c) }); n != 0 {
		t.Errorf("ParallelRange allocates %v times per call", n)
	}
}

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

// chunkRanger records the chunks it is given and the most that ran at once.
type chunkRanger struct {
	mu           sync.Mutex
	chunks       map[[2]int]bool
	active, most atomic.Int32
}

func (c *chunkRanger) Range(lo, hi int) {
	if a := c.active.Add(1); a > c.most.Load() {
		c.most.Store(a)
	}
	c.mu.Lock()
	c.chunks[[2]int{lo, hi}] = true
	c.mu.Unlock()
	for i := 0; i < 20000; i++ { // long enough for a worker to join in
		runtime.Gosched()
		if c.most.Load() > 1 {
			break
		}
	}
	c.active.Add(-1)
}

// With every core occupied (by Occupy, or OccupyAll), ParallelRange runs the
// same chunks as it otherwise would, one at a time on the caller; releasing
// restores workers.
func TestOccupyRunsChunksOnCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	run := func() *chunkRanger {
		c := &chunkRanger{chunks: map[[2]int]bool{}}
		ParallelRange(1000, 1<<12, c)
		return c
	}
	free := run()
	releases := []func(){Occupy(), Occupy()}
	busy := run()
	for _, r := range releases {
		r()
		r() // a second call is harmless
	}
	release := OccupyAll() // one call stands for every core
	all := run()
	release()
	release()
	if all.most.Load() != 1 || len(all.chunks) != len(free.chunks) {
		t.Errorf("under OccupyAll %d of %d chunks ran, at most %d at once; want all, 1", len(all.chunks), len(free.chunks), all.most.Load())
	}
	if busy.most.Load() != 1 {
		t.Errorf("with every core occupied %d chunks ran at once, want 1", busy.most.Load())
	}
	if len(free.chunks) < 2 || len(free.chunks) != len(busy.chunks) {
		t.Fatalf("chunks: %d free, %d occupied", len(free.chunks), len(busy.chunks))
	}
	for ch := range free.chunks {
		if !busy.chunks[ch] {
			t.Errorf("chunk %v not run when occupied", ch)
		}
	}
	if got := occupied.Load(); got != 0 {
		t.Errorf("occupied = %d after release", got)
	}
}

func TestSerial(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	if !Serial(1, 1<<20) || !Serial(10, 1) {
		t.Error("a one-row or tiny problem is not serial")
	}
	if Serial(1000, 1<<12) {
		t.Error("a big problem with a free core is serial")
	}
	releases := []func(){Occupy(), Occupy()}
	if !Serial(1000, 1<<12) {
		t.Error("a big problem with every core occupied is not serial")
	}
	for _, r := range releases {
		r()
	}
	runtime.GOMAXPROCS(1)
	if !Serial(1000, 1<<12) {
		t.Error("GOMAXPROCS=1 is not serial")
	}
}

func TestFreeCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	if got := FreeCores(); got != 3 {
		t.Errorf("idle: %d free cores, want 3", got)
	}
	r1 := Occupy()
	if got := FreeCores(); got != 2 {
		t.Errorf("one occupied: %d free cores, want 2", got)
	}
	r2 := OccupyAll()
	if got := FreeCores(); got != 0 {
		t.Errorf("all occupied: %d free cores, want 0", got)
	}
	r2()
	r1()
	if got := FreeCores(); got != 3 {
		t.Errorf("released: %d free cores, want 3", got)
	}
}

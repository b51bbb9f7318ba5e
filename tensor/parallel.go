package tensor

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// minGrain is the least work (in rows × cost units) worth handing to another
// core: below it a kernel runs on the calling goroutine, because waking a
// worker costs a few microseconds.
const minGrain = 1 << 14

// chunksPerWorker splits a parallel loop into more chunks than workers, so
// that uneven rows (power-law degrees) and cores shared with other processes
// balance out: chunks are claimed dynamically.
const chunksPerWorker = 4

// Ranger is a loop body that ParallelRange runs on disjoint index ranges
// [lo, hi), possibly concurrently. A Ranger that is a pointer to a long-lived
// value (a kernel workspace, an op record) costs no allocation per call,
// unlike a closure, which escapes to the heap as soon as another goroutine
// may run it.
type Ranger interface {
	Range(lo, hi int)
}

// RangeFunc adapts a function to the Ranger interface.
type RangeFunc func(lo, hi int)

// Range calls f(lo, hi).
func (f RangeFunc) Range(lo, hi int) { f(lo, hi) }

// ParallelFor calls body(lo, hi) on disjoint chunks covering [0, n), in
// parallel on up to GOMAXPROCS goroutines. cost estimates the work per index
// (e.g. the row length); small problems run serially so that tiny kernels do
// not pay for goroutines. body must be safe to run concurrently on disjoint
// ranges. A closure that captures variables is allocated once per call; use
// ParallelRange with a long-lived Ranger where that matters.
func ParallelFor(n, cost int, body func(lo, hi int)) {
	ParallelRange(n, cost, RangeFunc(body))
}

// ParallelRange calls r.Range(lo, hi) on disjoint chunks covering [0, n), on
// the calling goroutine and the idle goroutines of a persistent worker pool.
// It returns when every chunk has run. It allocates nothing once the pool is
// warm, and may be called concurrently and from inside a Range (it never
// waits for a worker that has not started on its chunks, so nesting cannot
// deadlock). A panic in a chunk run by a worker is re-raised here.
func ParallelRange(n, cost int, r Ranger) {
	if n <= 0 {
		return
	}
	size, chunks, helpers, procs := split(n, cost)
	if chunks <= 1 {
		r.Range(0, n)
		return
	}
	if helpers <= 0 {
		// Every core runs a goroutine of its own (Occupy): run the same
		// chunks here, in order, so the result is the one a parallel call
		// gives.
		for lo := 0; lo < n; lo += size {
			r.Range(lo, min(lo+size, n))
		}
		return
	}

	thePool.ensure(procs - 1)
	j, _ := jobs.get()
	if j == nil {
		j = &job{done: make(chan struct{}, 1)}
	}
	j.r, j.n, j.size, j.chunks = r, n, size, int64(chunks)
	j.next.Store(0)
	j.finished.Store(0)
	j.refs.Store(1)
	// Offer the job to at most chunks-1 workers. An offer never blocks: with
	// no worker reachable the caller simply does more chunks itself.
	for h := 0; h < helpers; h++ {
		j.refs.Add(1)
		if !thePool.offer(j) {
			j.refs.Add(-1)
			break
		}
	}
	j.run()
	j.wait()
	p := j.panicked
	j.release()
	if p != nil {
		panic(fmt.Sprintf("tensor: parallel worker panicked: %v", p))
	}
}

// occupied counts the goroutines that hold a core of their own (Occupy).
var occupied atomic.Int32

// Occupy declares that the calling goroutine keeps one core busy with work
// of its own, such as one of several training runs going on at once, until
// release is called. ParallelRange then hands chunks to pool workers only
// while fewer goroutines than GOMAXPROCS occupy a core; with every core
// occupied each call runs its chunks on its caller, so concurrent runs do
// not also wake (and keep spinning) workers that can only steal time from
// each other. The chunks, and so the results, are the same either way.
func Occupy() (release func()) {
	occupied.Add(1)
	var once sync.Once
	return func() { once.Do(func() { occupied.Add(-1) }) }
}

// OccupyAll declares that every core is busy until release is called:
// ParallelRange then runs each call's chunks on its caller, in every
// goroutine of the process. A protocol whose kernels are all too small to
// split profitably (graph classification's micro-batches) holds it while
// it runs, using further cores, if at all, for runs of its own (Occupy). The
// chunks, and so the results, are the same as without it.
func OccupyAll() (release func()) {
	n := int32(runtime.GOMAXPROCS(0))
	occupied.Add(n)
	var once sync.Once
	return func() { once.Do(func() { occupied.Add(-n) }) }
}

// Serial reports whether ParallelRange(n, cost, ·) called now would run
// every chunk on the calling goroutine: the problem is too small to split,
// GOMAXPROCS is 1, or every core is occupied (Occupy). A kernel may then
// take a path that is only safe on one goroutine, such as scattering into
// shared rows, provided it gives the bits its parallel path gives.
func Serial(n, cost int) bool {
	return parallelChunks(n, cost) <= 1 || runtime.GOMAXPROCS(0)-max(int(occupied.Load()), 1) <= 0
}

// parallelChunks is the number of chunks ParallelRange splits [0, n) into;
// 1 means the loop runs serially on the caller.
func parallelChunks(n, cost int) int {
	if splitWork(n, cost) <= 1 {
		return 1
	}
	return chunksFor(n, cost, runtime.GOMAXPROCS(0))
}

// splitWork is the work of n indices of the given cost in units of
// minGrain, which bounds the number of chunks worth having: at most 1, the
// loop runs on its caller whatever the cores, and the callers ask the
// runtime for GOMAXPROCS (which takes the scheduler's lock, contended when
// a graph fold's micro-batches run on two goroutines) only above it.
func splitWork(n, cost int) int {
	if n <= 1 {
		return 1
	}
	return n * max(cost, 1) / minGrain
}

// chunksFor is parallelChunks for procs cores.
func chunksFor(n, cost, procs int) int {
	if n <= 1 || procs <= 1 {
		return 1
	}
	chunks := min(n, splitWork(n, cost), procs*chunksPerWorker)
	return max(chunks, 1)
}

// split is how ParallelRange runs [0, n) (n > 0) now: in chunks of size
// indices, the last one shorter, with chunks 1 meaning [0, n) whole on the
// caller; offered to helpers pool workers, none (helpers ≤ 0) when every
// core is occupied, so that the caller runs the chunks in order; procs is
// GOMAXPROCS, which only work worth splitting asks for (splitWork).
func split(n, cost int) (size, chunks, helpers, procs int) {
	if splitWork(n, cost) <= 1 {
		return n, 1, 0, 1
	}
	procs = runtime.GOMAXPROCS(0)
	if chunks = chunksFor(n, cost, procs); chunks <= 1 {
		return n, 1, 0, procs
	}
	size = (n + chunks - 1) / chunks
	chunks = (n + size - 1) / size
	return size, chunks, min(procs-max(int(occupied.Load()), 1), chunks-1), procs
}

// job is the scheduling record of one ParallelRange call. It is shared with
// the workers that accept it, and recycled by whichever participant drops
// the last reference, because a worker may still be looking at it (finding
// no chunk left) after the caller has returned.
type job struct {
	r        Ranger
	n, size  int
	chunks   int64
	next     atomic.Int64 // next chunk to claim
	finished atomic.Int64 // chunks completed
	refs     atomic.Int32 // participants still holding the job
	done     chan struct{}
	panicked any // first panic in a worker; read by the caller after done
	pmu      sync.Mutex
}

// jobs recycles job records (see freeList).
var jobs freeList[*job]

// run claims and runs chunks until none is left. The participant that
// completes the last chunk signals done, so the caller never waits for a
// worker that did not get a chunk.
func (j *job) run() {
	for {
		c := j.next.Add(1) - 1
		if c >= j.chunks {
			return
		}
		lo := int(c) * j.size
		hi := min(lo+j.size, j.n)
		j.r.Range(lo, hi)
		if j.finished.Add(1) == j.chunks {
			j.done <- struct{}{}
		}
	}
}

// wait returns once every chunk has run. The chunks still running belong
// to workers, so they end soon: the caller polls for a while before it
// blocks, because a blocked goroutine on an idle core is expensive to wake
// (a futex call, and on a virtual machine an inter-processor interrupt that
// can cost tens of microseconds, more than many kernels take).
func (j *job) wait() {
	start := nanotime()
	for i := 0; j.finished.Load() < j.chunks; i++ {
		if i%pollBatch == pollBatch-1 {
			if nanotime()-start > spinWindow {
				break
			}
		}
	}
	<-j.done // sent by the participant that finished the last chunk
}

// help is run by a pool worker: it runs chunks, turning a panic into a
// recorded value (and a completed chunk) so that the caller is not left
// waiting and can re-raise it.
func (j *job) help() {
	defer func() {
		if p := recover(); p != nil {
			j.pmu.Lock()
			if j.panicked == nil {
				j.panicked = p
			}
			j.pmu.Unlock()
			if j.finished.Add(1) == j.chunks {
				j.done <- struct{}{}
			}
			// The remaining chunks of this worker are left to the others.
		}
		j.release()
	}()
	j.run()
}

// release drops one reference and recycles the job with the last one.
func (j *job) release() {
	if j.refs.Add(-1) == 0 {
		j.r = nil
		j.panicked = nil
		jobs.put(j)
	}
}

// spinWindow is how long (ns) an idle worker keeps polling for the next
// job, and a caller for its job's last chunks, before blocking. Training
// launches kernels back to back, tens of microseconds apart, so a polling
// worker picks the next one up within a microsecond instead of being woken
// from a parked state; a pool left idle longer than this costs no CPU.
const spinWindow = 100_000

// pollBatch is the number of polls between clock reads.
const pollBatch = 64

// pausesPerPoll is the number of PAUSE instructions between two polls of
// the mailbox: a polling core then issues few loads and leaves the memory
// system (and any sibling hardware thread) to the cores doing the work.
const pausesPerPoll = 16

// workerPool is a set of goroutines. A job is handed to a polling worker
// through the mailbox, and to a parked one through the buffered channel.
// Offers are buffered so that a worker still finishing its previous job
// picks up the next one a moment later instead of the offer failing; an
// offer that arrives after its chunks are gone costs the worker one atomic
// add.
type workerPool struct {
	work     chan *job
	mu       sync.Mutex
	started  atomic.Int32
	spinning atomic.Int32 // workers polling the mailbox
	mailbox  [4]atomic.Pointer[job]
}

// thePool's queue is short on purpose: an offer that sits in the queue
// after its caller finished every chunk itself still holds a job record, so
// a long queue lets stale offers pile up and the set of live records grow
// (one allocation at each new high-water mark) long after warm-up. A short
// queue bounds the live records to a handful, all allocated in the first
// steps; a full queue just means the caller runs more chunks itself.
var thePool = workerPool{work: make(chan *job, 8)}

// offer hands j (holding one reference for its taker) to a worker, and
// reports false if none can take it. A polling worker gets it through the
// mailbox. The store to the mailbox comes before the second look at
// spinning, and a worker stops counting itself as polling before its last
// look at the mailbox, so (atomics being sequentially consistent) either
// the worker sees the job or the caller sees no poller and takes the job
// back: an offer is never stranded in the mailbox.
func (p *workerPool) offer(j *job) bool {
	if p.spinning.Load() > 0 {
		for i := range p.mailbox {
			slot := &p.mailbox[i]
			if !slot.CompareAndSwap(nil, j) {
				continue
			}
			if p.spinning.Load() > 0 || !slot.CompareAndSwap(j, nil) {
				return true // a poller will take it, or already has
			}
			break // every poller has left; use the channel
		}
	}
	select {
	case p.work <- j:
		return true
	default:
		return false
	}
}

// take empties one mailbox slot, or returns nil.
func (p *workerPool) take() *job {
	for i := range p.mailbox {
		slot := &p.mailbox[i]
		if j := slot.Load(); j != nil && slot.CompareAndSwap(j, nil) {
			return j
		}
	}
	return nil
}

// poll waits up to spinWindow for a job from the mailbox or the channel.
func (p *workerPool) poll() *job {
	p.spinning.Add(1)
	start := nanotime()
	for i := 0; ; i++ {
		if j := p.take(); j != nil {
			p.spinning.Add(-1)
			return j
		}
		cpuPause(pausesPerPoll)
		if i%pollBatch == pollBatch-1 {
			select {
			case j := <-p.work:
				p.spinning.Add(-1)
				return j
			default:
			}
			if nanotime()-start > spinWindow {
				break
			}
		}
	}
	p.spinning.Add(-1)
	return p.take() // an offer made before the decrement above
}

// loop is a worker's life: poll for a while, then block on the channel. A
// worker keeps its thread and flushes denormals on it (FlushDenormals), as
// the trainers' goroutines do, so that a chunk computes the same on a
// worker as on its caller.
func (p *workerPool) loop() {
	runtime.LockOSThread()
	setFlushDenormals()
	for {
		j := p.poll()
		if j == nil {
			j = <-p.work
		}
		j.help()
	}
}

// ensure starts workers until there are at least n. GOMAXPROCS may change at
// run time (container limits), so this is checked on every call; the fast
// path is one atomic load.
func (p *workerPool) ensure(n int) {
	if int(p.started.Load()) >= n {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	// Pre-allocate the job records that can be live at once (every queued
	// or mailed offer, one per worker, a few callers), so that a rare burst
	// of stale offers late in training does not allocate.
	extra := n - int(p.started.Load())
	if p.started.Load() == 0 {
		extra += cap(p.work) + len(p.mailbox) + 2
	}
	for range extra {
		jobs.put(&job{done: make(chan struct{}, 1)})
	}
	for int(p.started.Load()) < n {
		p.started.Add(1)
		go p.loop()
	}
}

// nanotime is a monotonic clock in nanoseconds.
func nanotime() int64 { return int64(time.Since(clockBase)) }

var clockBase = time.Now()

// FreeCores is the number of cores that no goroutine holds (Occupy): a
// goroutine that wants two of them for work of its own, two passes side by
// side, checks it first.
func FreeCores() int {
	return max(runtime.GOMAXPROCS(0)-int(occupied.Load()), 0)
}

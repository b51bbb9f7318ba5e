package tensor

import "runtime"

// FlushDenormals runs f on the calling goroutine, locked to its thread,
// with the floating-point unit flushing denormal (subnormal) numbers to
// zero: results too small to be normal become ±0 (flush-to-zero), and
// denormal inputs count as ±0 (denormals-are-zero). The mode is restored,
// and the thread unlocked, when f returns or panics.
//
// Why: on many Intel processors an arithmetic instruction that reads or
// yields a denormal float32 (below 1.2e-38) takes a microcode assist of
// about a hundred cycles, so a kernel over data holding a few of them runs
// tens of times slower (a 120×18 by 18×64 product: 1.9 µs, 160 µs with
// a third of its inputs denormal, on the development VM's Xeon). Training
// makes such numbers: weights that get no gradient decay through them, and
// products of the small values near them underflow. PyTorch leaves the
// mode off by default (torch.set_flush_denormal turns it on); TensorFlow
// turns it on in its compute threads. A denormal is below float32's
// resolution of any normal-sized sum it enters, so flushing it changes a
// model's results only in the last bits of values that were already
// negligible, and only where such numbers occur.
//
// The mode is a property of the thread, so goroutines that f starts do not
// share it: they call FlushDenormals themselves. The kernels' own worker
// goroutines (ParallelFor) run with it always, so that a kernel's chunks
// compute alike on the caller and on a worker. On amd64 it sets MXCSR's FTZ
// and DAZ bits; elsewhere (and with the purego tag) f runs unchanged.
func FlushDenormals(f func()) {
	runtime.LockOSThread()
	old := setFlushDenormals()
	defer func() {
		restoreFPMode(old)
		runtime.UnlockOSThread()
	}()
	f()
}

// FlushingDenormals reports whether the calling thread flushes denormals
// (see FlushDenormals); it is meaningful only on a goroutine locked to its
// thread, such as inside FlushDenormals.
func FlushingDenormals() bool { return flushingDenormals() }

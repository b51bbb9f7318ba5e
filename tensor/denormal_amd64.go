//go:build !purego

package tensor

// mxcsrFlush is MXCSR's flush-to-zero (bit 15) and denormals-are-zero
// (bit 6) bits.
const mxcsrFlush = 1<<15 | 1<<6

// getMXCSR returns the thread's MXCSR register.
func getMXCSR() uint32

// setMXCSR loads v into the thread's MXCSR register.
func setMXCSR(v uint32)

// setFlushDenormals turns FTZ and DAZ on and returns the previous MXCSR.
func setFlushDenormals() uint32 {
	old := getMXCSR()
	setMXCSR(old | mxcsrFlush)
	return old
}

func restoreFPMode(old uint32) { setMXCSR(old) }

func flushingDenormals() bool { return getMXCSR()&mxcsrFlush == mxcsrFlush }

package tensor

// Make returns a zeroed slice of n elements, as make([]E, n) does, for a
// buffer that may be large: the tape's values and gradients, scratch, the
// routing's per-link arrays. On Linux, the whole 2 MiB pages inside a
// buffer of at least hugeMin bytes are marked for transparent huge pages
// (madvise MADV_HUGEPAGE), which the kernel then backs them with as they
// are first written, where its policy is "madvise" (the default of many
// distributions) or "always". Training on a large graph gathers node rows
// at random from buffers of hundreds of megabytes: with 4 KiB pages
// nearly every such read also misses the TLB, and the page-table walk
// misses the cache as well. The advice changes no value: it is a hint,
// and where it is not taken (another system, THP off, memory already
// written) the buffer is an ordinary one.
func Make[E any](n int) []E {
	b := make([]E, n)
	adviseHuge(b)
	return b
}

// Regrow returns a zeroed buffer of length n to replace b, which is too
// short for n. A buffer that already held something (cap(b) > 0) and must
// grow is one whose sizes vary from call to call, as a mini-batch's do: it
// gets a quarter more capacity than asked, so that the next slightly
// larger batch finds room instead of allocating again. A fixed-size
// workload (full batch) allocates each buffer once, at its exact size.
func Regrow[E any](b []E, n int) []E {
	if cap(b) == 0 {
		return Make[E](n)
	}
	return Make[E](n + n/4)[:n]
}

// hugePage is the size of an x86-64 and arm64 transparent huge page; the
// advice covers the whole such pages inside a buffer.
const hugePage = 2 << 20

// hugeMin is the least buffer size advised: a smaller one holds at most
// one whole huge page, and TLB misses matter only for large working sets.
const hugeMin = 4 << 20

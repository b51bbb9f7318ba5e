package autodiff

import (
	"fmt"

	"github.com/prcaps/prcaps/tensor"
)

// ScratchSlots is the number of scratch buffers a tape lends (see Scratch).
const ScratchSlots = 4

// Scratch returns n elements of the tape's scratch buffer number slot
// (0 ≤ slot < ScratchSlots): working memory for an op within one call of
// its forward pass or of its Backward. All ops of the tape share the slots,
// so a per-link buffer that each routing iteration's op would otherwise
// keep for itself is held once. The contents are unspecified, and the next
// op overwrites them: an op must not keep a scratch buffer from one call to
// the next, nor record another op while it uses one. An op that needs
// several buffers at once takes different slots. Scratch allocates only when
// n exceeds the slot's capacity.
func (t *Tape[T]) Scratch(slot, n int) []T {
	if slot < 0 || slot >= ScratchSlots {
		panic(fmt.Sprintf("autodiff: scratch slot %d, want 0 … %d", slot, ScratchSlots-1))
	}
	b := t.scratch[slot]
	if cap(b) < n {
		if t.Grow {
			b = tensor.Regrow(b, n)
		} else {
			b = tensor.Make[T](n)
		}
		t.scratch[slot] = b
	}
	return b[:n]
}

package autodiff

import "github.com/prcaps/prcaps/tensor"

// gradPool holds the zeroed gradient buffers of a tape's ReleaseGrads passes
// between the steps that use them. A pass makes the same requests in the
// same order as the one before whenever the shapes repeat, so after a few
// passes every request finds a buffer and the steady state allocates
// nothing; when the shapes vary (mini-batches of graphs) the buffers grow to
// the largest shapes seen.
type gradPool[T Float] struct {
	free [][]T // zeroed up to their capacity
	all  int64 // elements of capacity over every buffer, free or handed out
}

// get returns a zeroed buffer of length n: the free buffer of the smallest
// capacity that holds n, or, when none does, a new one (replacing the
// largest free buffer, which is too small, so that the pool does not fill
// up with buffers no request fits). With grow, a replacement gets a
// quarter more capacity than asked (tensor.Regrow; Tape.Grow).
func (p *gradPool[T]) get(n int, grow bool) []T {
	best, largest := -1, -1
	for i, b := range p.free {
		c := cap(b)
		if c >= n && (best < 0 || c < cap(p.free[best])) {
			best = i
		}
		if largest < 0 || c > cap(p.free[largest]) {
			largest = i
		}
	}
	if best < 0 {
		var old []T
		if largest >= 0 {
			old = p.free[largest]
			p.all -= int64(cap(old))
			p.remove(largest)
		}
		if !grow { // exact sizes (Tape.Grow off)
			old = nil
		}
		b := tensor.Regrow(old, n)
		p.all += int64(cap(b))
		return b
	}
	b := p.free[best]
	p.remove(best)
	return b[:n]
}

// put takes back a buffer whose first len(b) elements the caller zeroed
// (the rest of its capacity is zero from before).
func (p *gradPool[T]) put(b []T) {
	p.free = append(p.free, b[:cap(b)])
}

// remove drops free buffer i (order does not matter).
func (p *gradPool[T]) remove(i int) {
	last := len(p.free) - 1
	p.free[i] = p.free[last]
	p.free[last] = nil
	p.free = p.free[:last]
}

// elems is the pool's storage in elements, counting the buffers handed out.
func (p *gradPool[T]) elems() int64 { return p.all }

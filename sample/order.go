package sample

import (
	"math/bits"
	"math/rand/v2"
)

// Order is the shuffled order of one epoch's seeds: a permutation of the
// positions [0, n) of the seed list. Up to ShuffleMax positions it is an
// exact uniform shuffle (Fisher–Yates), stored: at most 256 KiB. Beyond,
// it is a keyed pseudo-random permutation computed position by position,
// which takes no memory: a stored order would cost an int32 per training
// node, growing with the graph while a batch's memory does not (23 MiB at
// 10^7 nodes, most of the growth of training's memory from 10^6 to 10^8
// edges; docs/notes/sampling.md).
//
// The computed permutation is a four-round balanced Feistel network on the
// 2h-bit numbers, 4^h the least power of four at least n (at most 4n),
// with round keys drawn from the run's seed and the epoch; a position it
// maps to n or beyond is mapped again until it falls in [0, n) (cycle
// walking, Black and Rogaway 2002), which keeps it a bijection of [0, n).
// Four rounds of a pseudo-random round function make a pseudo-random
// permutation (Luby and Rackoff 1988); beyond ShuffleMax positions each
// half has at least 9 bits, and each epoch sees the seeds in an order
// unrelated to the last (TestOrderUniform).
type Order struct {
	n    uint64
	perm []int32 // the shuffle, when n ≤ ShuffleMax
	half uint    // h: bits of each Feistel half
	mask uint64  // 2^h − 1
	keys [4]uint64
}

// ShuffleMax is the most positions an Order shuffles and stores.
const ShuffleMax = 1 << 16

// Reset sets o to the order of epoch e (0-based) of a run with the given
// seed over n positions, reusing its storage.
func (o *Order) Reset(n int, seed uint64, e int) {
	o.n = uint64(max(n, 0))
	if n <= ShuffleMax {
		o.perm = o.perm[:0]
		for i := range n {
			o.perm = append(o.perm, int32(i))
		}
		p := o.perm
		rand.New(rand.NewPCG(seed, uint64(e)<<1)).Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
		return
	}
	o.perm = nil
	o.resetFeistel(seed, e)
}

func (o *Order) resetFeistel(seed uint64, e int) {
	b := bits.Len64(o.n - 1) // bits of the largest position
	if o.n <= 1 {
		b = 0
	}
	o.half = uint(max((b+1)/2, 1))
	o.mask = 1<<o.half - 1
	k := seed ^ 0x3c6ef372fe94f82b ^ uint64(e)*0x9e3779b97f4a7c15
	for r := range o.keys {
		k = mix64(k + 0x9e3779b97f4a7c15)
		o.keys[r] = k
	}
}

// Len is the number of positions.
func (o *Order) Len() int { return int(o.n) }

// At is the position that comes i-th (0 ≤ i < Len()).
func (o *Order) At(i int) int {
	if o.perm != nil {
		return int(o.perm[i])
	}
	x := uint64(i)
	for {
		x = o.encrypt(x)
		if x < o.n {
			return int(x)
		}
	}
}

// encrypt is the Feistel permutation of [0, 4^h).
func (o *Order) encrypt(x uint64) uint64 {
	l, r := x>>o.half, x&o.mask
	for _, k := range o.keys {
		l, r = r, l^(mix64(r^k)&o.mask)
	}
	return l<<o.half | r
}

// mix64 is SplitMix64's finaliser (Steele et al. 2014): a bijective hash
// whose every output bit depends on every input bit.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

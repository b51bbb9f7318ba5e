package sample

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// newOrder is the order of (seed, epoch) over n positions, shuffled and
// stored or, with feistel, computed whatever n.
func newOrder(n int, seed uint64, e int, feistel bool) *Order {
	var o Order
	if feistel {
		o.n = uint64(n)
		o.resetFeistel(seed, e)
	} else {
		o.Reset(n, seed, e)
	}
	return &o
}

// An Order is a permutation of [0, n) for every n, a different one for
// every epoch and seed, in both of its forms.
func TestOrderIsPermutation(t *testing.T) {
	for _, feistel := range []bool{false, true} {
		for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 100, 1000, 4097, ShuffleMax + 1} {
			for _, key := range [][2]uint64{{0, 0}, {1, 0}, {0, 1}, {12345, 7}} {
				o := newOrder(n, key[0], int(key[1]), feistel)
				if o.Len() != n {
					t.Fatalf("n %d: length %d", n, o.Len())
				}
				if n > ShuffleMax && o.perm != nil {
					t.Fatalf("n %d: %d positions stored", n, len(o.perm))
				}
				seen := make([]bool, n)
				for i := range n {
					p := o.At(i)
					if p < 0 || p >= n || seen[p] {
						t.Fatalf("feistel %v, n %d, seed %d, epoch %d: position %d maps to %d, outside or taken", feistel, n, key[0], key[1], i, p)
					}
					seen[p] = true
				}
			}
		}
		same := func(a, b *Order) bool {
			for i := range a.Len() {
				if a.At(i) != b.At(i) {
					return false
				}
			}
			return true
		}
		base := newOrder(1000, 3, 0, feistel)
		if !same(base, newOrder(1000, 3, 0, feistel)) {
			t.Fatal("the same key gave two orders")
		}
		if same(base, newOrder(1000, 3, 1, feistel)) || same(base, newOrder(1000, 4, 0, feistel)) {
			t.Fatal("another epoch or seed gave the same order")
		}
	}
}

// Up to ShuffleMax positions the order is the Fisher–Yates shuffle of
// the run's generator for the epoch, the order sampled runs have always
// had: their results do not change.
func TestOrderShuffle(t *testing.T) {
	nodes := rand.New(rand.NewPCG(1, 1)).Perm(5000)
	for e := range 3 {
		want := slices.Clone(nodes)
		rng := rand.New(rand.NewPCG(9, uint64(e)<<1))
		rng.Shuffle(len(want), func(i, j int) { want[i], want[j] = want[j], want[i] })
		o := newOrder(len(nodes), 9, e, false)
		for i := range want {
			if nodes[o.At(i)] != want[i] {
				t.Fatalf("epoch %d: position %d holds node %d, the shuffle %d", e, i, nodes[o.At(i)], want[i])
			}
		}
	}
}

// Over many keys the computed permutation puts an element at each
// position about equally often (a chi-squared statistic within 5 standard
// deviations of its mean), and successive positions hold successive
// elements about as often as in a random permutation: as far as training
// can tell, the order of a shuffle. Its halves have at least 9 bits where
// it is used (beyond ShuffleMax); here 4 (n 100) to 7 (n 10,000).
func TestOrderUniform(t *testing.T) {
	for _, n := range []int{100, 3000, 10_000} {
		const keys = 20000
		c := make([]int, 2*n)
		for k := range keys {
			o := newOrder(n, uint64(k), k%7, true)
			c[o.At(0)]++
			c[n+o.At(n/2)]++
		}
		mean := float64(keys) / float64(n)
		chi := 0.0
		for _, v := range c {
			chi += (float64(v) - mean) * (float64(v) - mean) / mean
		}
		dof := float64(2 * (n - 1))
		if math.Abs(chi-dof) > 5*math.Sqrt(2*dof) {
			t.Errorf("n %d: chi-squared %.0f for %.0f degrees of freedom", n, chi, dof)
		}
		runs := 0
		for k := range 200 {
			o := newOrder(n, uint64(k), 0, true)
			for i := 1; i < n; i++ {
				if o.At(i) == o.At(i-1)+1 {
					runs++
				}
			}
		}
		if want := 200.0 * float64(n-1) / float64(n); math.Abs(float64(runs)-want) > 5*math.Sqrt(want) {
			t.Errorf("n %d: %d successive pairs in 200 orders, want about %.0f", n, runs, want)
		}
	}
}

func BenchmarkOrderAt(b *testing.B) {
	o := newOrder(6_000_000, 1, 2, false)
	s := 0
	for i := 0; b.Loop(); i++ {
		s += o.At(i % 6_000_000)
	}
	_ = s
}

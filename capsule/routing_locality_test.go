package capsule

import (
	"slices"
	"strconv"
	"testing"
)

// hotLinks is l with its children remapped into the first k (the same
// parents and degrees, a parent's children kept distinct, a parent with
// more than k children keeping its own count), so that the children's
// rows the routing gathers stay in the first levels of cache.
func hotLinks(l *Links, k int32) *Links {
	h := &Links{Parents: l.Parents, Children: l.Children, Ptr: slices.Clone(l.Ptr), Child: make([]int32, len(l.Child))}
	for j := 0; j < l.Parents; j++ {
		kk := max(k, l.Ptr[j+1]-l.Ptr[j])
		seen := map[int32]bool{}
		for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
			c := l.Child[e] % kk
			for seen[c] {
				c = (c + 1) % kk
			}
			seen[c] = true
			h.Child[e] = c
		}
		slices.Sort(h.Child[l.Ptr[j]:l.Ptr[j+1]])
	}
	h.Changed()
	return h
}

// BenchmarkRoutingLocality is BenchmarkRoutingCora (one forward and
// backward pass of the default layer) on the Cora-like links and on the
// same links with every child remapped into the first k children: the
// same work, with the gathered rows in cache. The difference bounds what
// any reordering or fusion of the link passes can gain from locality
// alone.
func BenchmarkRoutingLocality(b *testing.B) {
	base := coraLikeLinks()
	for _, k := range []int32{0, 256, 64} {
		l, name := base, "cora"
		if k > 0 {
			l, name = hotLinks(base, k), "hot"+strconv.Itoa(int(k))
		}
		b.Run(name, func(b *testing.B) {
			rb := newRoutingBench(b, DefaultRoutingConfig(), l)
			rb.step(b)
			b.ResetTimer()
			for b.Loop() {
				rb.step(b)
			}
		})
	}
}

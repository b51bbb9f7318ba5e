package capsule

import (
	"fmt"
	"testing"
)

// BenchmarkLinkIndexBuild rebuilds the link index of a batch layout, as
// routing does whenever the batch changes: node links of a ring of n
// nodes with chords (degree 4 plus the self-loop), and the class links of
// the same nodes as 16 graphs and 2 classes with their capsule groups, and
// the node links with the pair layout of four perspectives (the layout a
// pair index needs; the direct kernels, K = 4 and d = 18 in float32 on
// AVX2, need only the child-side groups).
func BenchmarkLinkIndexBuild(b *testing.B) {
	for _, n := range []int{256, 4096, 32768} {
		ptr := make([]int32, n+1)
		src := make([]int32, 0, 4*n)
		for v := 0; v < n; v++ {
			for _, d := range []int{-2, -1, 1, 2} {
				src = append(src, int32((v+d+n)%n))
			}
			ptr[v+1] = int32(len(src))
		}
		seg := make([]int32, 17)
		for g := range seg {
			seg[g] = int32(g * n / 16)
		}
		nodes := NodeLinks(n, ptr, src)
		classes := ClassLinksInto(&Links{}, seg, 2)
		b.Run(fmt.Sprintf("node/n=%d", n), func(b *testing.B) {
			var x linkIndex
			for i := 0; i < b.N; i++ {
				if err := x.build(nodes); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("node+pairs/n=%d", n), func(b *testing.B) {
			var x linkIndex
			for i := 0; i < b.N; i++ {
				if err := x.build(nodes); err != nil {
					b.Fatal(err)
				}
				x.pairsFor(4, false)
			}
		})
		b.Run(fmt.Sprintf("class/n=%d", n), func(b *testing.B) {
			var x linkIndex
			for i := 0; i < b.N; i++ {
				if err := x.build(classes); err != nil {
					b.Fatal(err)
				}
				x.capsules()
			}
		})
	}
}

//go:build amd64 && !purego

package tensor

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The AVX-512 row kernel for 64 columns gives the AVX2 kernels' bits: rows
// of 64, 70 and 128 columns (one and two 64-column blocks, and a remainder
// for the 8-column and masked kernels), with and without accumulation,
// rows of 0 to 9 terms, aggregated with and without AVX-512.
func TestAggregateRowsZ64MatchesAVX2(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512 on this machine")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const rows = 60
	for _, c := range []int{64, 70, 128} {
		h, ptr, src, w := randomRowTerms(rng, rows, c, 10, false)
		for _, acc := range []bool{false, true} {
			t.Run(fmt.Sprintf("c=%d/acc=%v", c, acc), func(t *testing.T) {
				got := make([]float32, rows*c)
				want := make([]float32, rows*c)
				for i := range got {
					got[i], want[i] = float32(i%7)-3, float32(i%7)-3
				}
				aggregateRowsAVX(got, h, w, c, ptr, src, acc, 0, rows)
				func() {
					defer func(v bool) { haveAVX512 = v }(haveAVX512)
					haveAVX512 = false
					aggregateRowsAVX(want, h, w, c, ptr, src, acc, 0, rows)
				}()
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("element %d (row %d): %v with AVX-512, %v without", i, i/c, got[i], want[i])
					}
				}
			})
		}
	}
}

package capsule

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

// On one goroutine the float32 alignment adds ∂P1 in its parent pass
// (fuseC); with several it makes a child pass. Both give the same bits.
func TestLinkAlignFusedChildPassBits(t *testing.T) {
	l := randomLinks(600, 2400, 5)
	ix, err := newLinkIndex(l)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	K, m := 4, 16
	in := linkOpInputs(rng, l, K, 18, m)
	run := func(procs int) map[string][]float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		res, err := linkOpRun[float32]("align", ix, in, K, 18)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	serial, parallel := run(1), run(4)
	if ix.links.NumLinks() < 2*alignBlock || tensor.Serial(ix.links.Children, linkCost(ix, 24*K*m)) {
		t.Fatal("the graph is too small to take the parallel path")
	}
	sameAlignBits(t, "one goroutine", serial, "several", parallel)
}

// The float32 alignment gives the same bits whether its backward pass reads
// the τ its forward pass kept or recomputes it (above alignKeepMax), on one
// goroutine and on several.
func TestLinkAlignKeptTauBits(t *testing.T) {
	l := randomLinks(600, 2400, 6)
	ix, err := newLinkIndex(l)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 12))
	K, m := 4, 16
	in := linkOpInputs(rng, l, K, 18, m)
	if l.NumLinks()*K*m > alignKeepMax {
		t.Fatal("the links are too many for the kept path")
	}
	run := func(procs, keepMax int) map[string][]float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		defer func(v int) { alignKeepMax = v }(alignKeepMax)
		alignKeepMax = keepMax
		res, err := linkOpRun[float32]("align", ix, in, K, 18)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, procs := range []int{1, 4} {
		kept, recomputed := run(procs, alignKeepMax), run(procs, 0)
		sameAlignBits(t, fmt.Sprintf("%d goroutines, τ kept", procs), kept, "recomputed", recomputed)
	}
}

// sameAlignBits fails unless two runs of the alignment (linkOpRun) gave the
// same bits in its output and every gradient.
func sameAlignBits(t *testing.T, nameA string, a map[string][]float64, nameB string, b map[string][]float64) {
	t.Helper()
	for _, name := range []string{"out", "p1", "p2", "aw"} {
		for i, v := range a[name] {
			if b[name][i] != v {
				t.Fatalf("%s[%d]: %v (%s), %v (%s)", name, i, v, nameA, b[name][i], nameB)
			}
		}
	}
}

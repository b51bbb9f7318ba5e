package data

import (
	"slices"
	"testing"
)

// splitLabels makes n labels over classes with the given weights, with every
// unlabelledEvery-th item unlabelled (−1) when unlabelledEvery > 0.
func splitLabels(counts []int, unlabelledEvery int) []int32 {
	var y []int32
	for c, n := range counts {
		for range n {
			y = append(y, int32(c))
		}
	}
	// Interleave classes so that index order is not class order.
	out := make([]int32, len(y))
	for i := range y {
		out[(i*7919)%len(y)] = y[i]
	}
	if unlabelledEvery > 0 {
		for i := 0; i < len(out); i += unlabelledEvery {
			out[i] = -1
		}
	}
	return out
}

func splitCheckDisjoint(t *testing.T, s Split, labels []int32, wantCover bool) {
	t.Helper()
	seen := make(map[int32]string)
	for _, part := range []struct {
		name string
		idx  []int32
	}{{"train", s.Train}, {"val", s.Val}, {"test", s.Test}} {
		if !slices.IsSorted(part.idx) {
			t.Errorf("%s not sorted", part.name)
		}
		for _, i := range part.idx {
			if labels[i] < 0 {
				t.Fatalf("unlabelled item %d in %s", i, part.name)
			}
			if prev, ok := seen[i]; ok {
				t.Fatalf("item %d in both %s and %s", i, prev, part.name)
			}
			seen[i] = part.name
		}
	}
	if wantCover {
		for i, y := range labels {
			if _, ok := seen[int32(i)]; (y >= 0) != ok {
				t.Fatalf("item %d (label %d) covered = %v", i, y, ok)
			}
		}
	}
}

func TestRandomSplit(t *testing.T) {
	labels := splitLabels([]int{500, 300, 200}, 10) // 1000 items, 100 unlabelled
	s := RandomSplit(labels, 1, 0.6, 0.2)
	splitCheckDisjoint(t, s, labels, true)
	if len(s.Train) != 540 || len(s.Val) != 180 || len(s.Test) != 180 {
		t.Errorf("sizes %d/%d/%d, want 540/180/180", len(s.Train), len(s.Val), len(s.Test))
	}
	again := RandomSplit(labels, 1, 0.6, 0.2)
	if !slices.Equal(s.Train, again.Train) || !slices.Equal(s.Val, again.Val) || !slices.Equal(s.Test, again.Test) {
		t.Error("same seed gave different splits")
	}
	other := RandomSplit(labels, 2, 0.6, 0.2)
	if slices.Equal(s.Train, other.Train) {
		t.Error("seeds 1 and 2 gave the same train set")
	}
	// Cora-size rounding: 0.6·2708 = 1624.8.
	cora := make([]int32, 2708)
	s = RandomSplit(cora, 0, 0.6, 0.2)
	if len(s.Train) != 1625 || len(s.Val) != 542 || len(s.Test) != 541 {
		t.Errorf("Cora sizes %d/%d/%d, want 1625/542/541", len(s.Train), len(s.Val), len(s.Test))
	}
	// Degenerate fractions are clamped, never panic.
	for _, f := range [][2]float64{{1.5, 0.5}, {-1, 2}, {0.9, 0.9}, {0, 0}} {
		s := RandomSplit(labels, 3, f[0], f[1])
		splitCheckDisjoint(t, s, labels, true)
	}
	if s := RandomSplit(nil, 0, 0.6, 0.2); len(s.Train)+len(s.Val)+len(s.Test) != 0 {
		t.Error("empty labels gave a non-empty split")
	}
}

func TestStratifiedKFold(t *testing.T) {
	counts := []int{63, 125, 7}
	labels := splitLabels(counts, 13)
	perClass := make([]int, len(counts))
	for _, y := range labels {
		if y >= 0 {
			perClass[y]++
		}
	}
	nLab := 0
	for _, c := range perClass {
		nLab += c
	}
	const k = 10
	splits, err := StratifiedKFold(labels, k, 42)
	if err != nil {
		t.Fatal(err)
	}
	if len(splits) != k {
		t.Fatalf("%d splits, want %d", len(splits), k)
	}
	inTest := make(map[int32]int)
	for f, s := range splits {
		splitCheckDisjoint(t, s, labels, true)
		for _, i := range s.Test {
			inTest[i]++
		}
		// Per-class test counts are ⌊n_c/k⌋ or ⌈n_c/k⌉.
		got := make([]int, len(counts))
		for _, i := range s.Test {
			got[labels[i]]++
		}
		for c, n := range got {
			if n != perClass[c]/k && n != (perClass[c]+k-1)/k {
				t.Errorf("fold %d class %d: %d test items of %d", f, c, n, perClass[c])
			}
		}
		if d := len(s.Test) - nLab/k; d < 0 || d > 1 {
			t.Errorf("fold %d: %d test items of %d", f, len(s.Test), nLab)
		}
		// Inner validation: 10% of the rest, stratified.
		rest := len(s.Train) + len(s.Val)
		if want := int(float64(rest)*0.1 + 0.5); len(s.Val) != want {
			t.Errorf("fold %d: %d val items, want %d of %d", f, len(s.Val), want, rest)
		}
		vc := make([]int, len(counts))
		rc := make([]int, len(counts))
		for _, i := range s.Val {
			vc[labels[i]]++
			rc[labels[i]]++
		}
		for _, i := range s.Train {
			rc[labels[i]]++
		}
		for c := range counts {
			exact := float64(len(s.Val)) * float64(rc[c]) / float64(rest)
			if float64(vc[c]) < exact-1 || float64(vc[c]) > exact+1 {
				t.Errorf("fold %d class %d: %d val items, want ≈%.1f", f, c, vc[c], exact)
			}
		}
	}
	if len(inTest) != nLab {
		t.Errorf("%d items tested, want %d", len(inTest), nLab)
	}
	for i, n := range inTest {
		if n != 1 {
			t.Errorf("item %d in %d test folds", i, n)
		}
	}

	again, _ := StratifiedKFold(labels, k, 42)
	other, _ := StratifiedKFold(labels, k, 43)
	sameOther := true
	for f := range splits {
		if !slices.Equal(splits[f].Test, again[f].Test) || !slices.Equal(splits[f].Val, again[f].Val) {
			t.Errorf("fold %d differs between runs with the same seed", f)
		}
		if !slices.Equal(splits[f].Test, other[f].Test) {
			sameOther = false
		}
	}
	if sameOther {
		t.Error("seeds 42 and 43 gave the same folds")
	}
}

func TestStratifiedKFoldErrors(t *testing.T) {
	labels := []int32{0, 1, 0, 1, -1}
	if _, err := StratifiedKFold(labels, 1, 0); err == nil {
		t.Error("k = 1 accepted")
	}
	if _, err := StratifiedKFold(labels, 5, 0); err == nil {
		t.Error("k > labelled items accepted")
	}
	if _, err := StratifiedKFoldVal(labels, 2, 1, 0); err == nil {
		t.Error("valFrac = 1 accepted")
	}
	if _, err := StratifiedKFold(nil, 2, 0); err == nil {
		t.Error("no items accepted")
	}
	// k = number of labelled items: leave-one-out, valid.
	s, err := StratifiedKFoldVal(labels, 4, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range s {
		if len(sp.Test) != 1 || len(sp.Train) != 3 || len(sp.Val) != 0 {
			t.Errorf("leave-one-out split sizes %d/%d/%d", len(sp.Train), len(sp.Val), len(sp.Test))
		}
	}
}

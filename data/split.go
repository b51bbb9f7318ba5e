package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Splits draw from a PCG generator seeded with (seed, splitStream): the same
// seed gives the same split on every platform, and the constant keeps these
// streams apart from other users of a PCG with the same seed.
const splitStream = 0x5052_4341_5053_504c // "PRCAPSPL"

func splitRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, splitStream)) }

// RandomSplit shuffles the labelled items (label ≥ 0; −1 marks an unlabelled
// node, which goes into no set) and cuts the permutation into train, val and
// test: the first round(trainFrac·n) items train, the next round(valFrac·n)
// validate, the rest test. The node protocol uses 0.6, 0.2. Fractions are
// clamped into [0, 1] (NaN counts as 0), and val to what train leaves. Each
// set is returned sorted ascending. The result depends only on labels and
// seed.
func RandomSplit(labels []int32, seed uint64, trainFrac, valFrac float64) Split {
	idx := splitLabelled(labels)
	r := splitRNG(seed)
	r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	n := len(idx)
	nTrain := splitCount(trainFrac, n)
	nVal := min(splitCount(valFrac, n), n-nTrain)
	s := Split{
		Train: slices.Clone(idx[:nTrain]),
		Val:   slices.Clone(idx[nTrain : nTrain+nVal]),
		Test:  slices.Clone(idx[nTrain+nVal:]),
	}
	slices.Sort(s.Train)
	slices.Sort(s.Val)
	slices.Sort(s.Test)
	return s
}

// splitCount is round(frac·n) with frac clamped into [0, 1].
func splitCount(frac float64, n int) int {
	if !(frac > 0) { // also NaN
		return 0
	}
	if frac >= 1 {
		return n
	}
	return min(n, int(math.Round(frac*float64(n))))
}

func splitLabelled(labels []int32) []int32 {
	idx := make([]int32, 0, len(labels))
	for i, y := range labels {
		if y >= 0 {
			idx = append(idx, int32(i))
		}
	}
	return idx
}

// DefaultInnerVal is the fraction of each training fold that StratifiedKFold
// holds out, stratified, for validation (epoch selection), per the graph
// protocol.
const DefaultInnerVal = 0.1

// StratifiedKFold is StratifiedKFoldVal with the protocol's inner validation
// fraction DefaultInnerVal (10%).
func StratifiedKFold(labels []int32, k int, seed uint64) ([]Split, error) {
	return StratifiedKFoldVal(labels, k, DefaultInnerVal, seed)
}

// StratifiedKFoldVal makes k folds over the labelled items (label ≥ 0) in the
// manner of scikit-learn's StratifiedKFold(shuffle=True): each class is
// shuffled and dealt round-robin over the folds, so that in every fold each
// class has ⌊n_c/k⌋ or ⌈n_c/k⌉ test items and fold sizes differ by at most
// one. Split f has fold f as Test; the other folds are divided into Train
// and Val, Val being a stratified valFrac of them: round(valFrac·m) items
// (m = their number) shared among classes by largest remainder, lower class
// first on ties. Every labelled item is in exactly one Test set; Train, Val
// and Test of a split are disjoint and sorted ascending.
//
// It fails if k < 2, if k exceeds the number of labelled items, or if
// valFrac is not in [0, 1). A class with fewer than k items is allowed
// (scikit-learn only warns): it is simply absent from some test folds.
func StratifiedKFoldVal(labels []int32, k int, valFrac float64, seed uint64) ([]Split, error) {
	if k < 2 {
		return nil, fmt.Errorf("stratified k-fold: k = %d, want at least 2", k)
	}
	if !(valFrac >= 0 && valFrac < 1) {
		return nil, fmt.Errorf("stratified k-fold: validation fraction %v outside [0, 1)", valFrac)
	}
	byClass := splitByClass(labels)
	n := 0
	for _, items := range byClass {
		n += len(items)
	}
	if k > n {
		return nil, fmt.Errorf("stratified k-fold: k = %d folds but only %d labelled items", k, n)
	}
	r := splitRNG(seed)
	// Deal the items in class order, each class shuffled, round-robin over
	// the folds: the position in this sequence fixes the fold.
	fold := make([][]int32, k)
	pos := 0
	for _, items := range byClass {
		r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
		for _, it := range items {
			fold[pos%k] = append(fold[pos%k], it)
			pos++
		}
	}
	isTest := make([]int32, len(labels)) // fold+1 of each item, 0 if unlabelled
	for f, items := range fold {
		for _, it := range items {
			isTest[it] = int32(f + 1)
		}
	}
	splits := make([]Split, k)
	for f := range k {
		rest := make([][]int32, len(byClass))
		for c, items := range byClass {
			for _, it := range items {
				if isTest[it] != int32(f+1) {
					rest[c] = append(rest[c], it)
				}
			}
		}
		train, val := splitStratifiedHoldout(rest, valFrac, r)
		test := slices.Clone(fold[f])
		slices.Sort(test)
		splits[f] = Split{Train: train, Val: val, Test: test}
	}
	return splits, nil
}

// splitByClass lists the labelled items of each class, in index order;
// classes with no items are omitted.
func splitByClass(labels []int32) [][]int32 {
	counts := make(map[int32]int)
	for _, y := range labels {
		if y >= 0 {
			counts[y]++
		}
	}
	classes := make([]int32, 0, len(counts))
	for c := range counts {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	slot := make(map[int32]int, len(classes))
	byClass := make([][]int32, len(classes))
	for i, c := range classes {
		slot[c] = i
		byClass[i] = make([]int32, 0, counts[c])
	}
	for i, y := range labels {
		if y >= 0 {
			s := slot[y]
			byClass[s] = append(byClass[s], int32(i))
		}
	}
	return byClass
}

// splitStratifiedHoldout shuffles each class of items and moves a stratified
// frac of them into val (largest-remainder apportionment of round(frac·m)).
func splitStratifiedHoldout(byClass [][]int32, frac float64, r *rand.Rand) (train, val []int32) {
	m := 0
	for _, items := range byClass {
		m += len(items)
	}
	total := splitCount(frac, m)
	take := make([]int, len(byClass))
	type rem struct {
		frac  float64
		class int
	}
	rems := make([]rem, len(byClass))
	given := 0
	for c, items := range byClass {
		exact := float64(total) * float64(len(items)) / float64(max(m, 1))
		take[c] = int(math.Floor(exact))
		given += take[c]
		rems[c] = rem{exact - float64(take[c]), c}
	}
	slices.SortStableFunc(rems, func(a, b rem) int {
		switch {
		case a.frac > b.frac:
			return -1
		case a.frac < b.frac:
			return 1
		}
		return 0
	})
	for i := 0; given < total && i < len(rems); i++ {
		c := rems[i].class
		if take[c] < len(byClass[c]) {
			take[c]++
			given++
		}
	}
	for c, items := range byClass {
		items = slices.Clone(items)
		r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
		val = append(val, items[:take[c]]...)
		train = append(train, items[take[c]:]...)
	}
	slices.Sort(train)
	slices.Sort(val)
	return train, val
}

package main

import (
	"testing"
)

// The split draws round(0.6·N/C) per class (all of a smaller class), then
// round(0.2·N) for validation, and partitions the labelled nodes.
func TestBalancedSplit(t *testing.T) {
	// 3 classes of sizes 10, 4 and 6; N = 20 labelled, one unlabelled.
	var y []int32
	for c, n := range []int{10, 4, 6} {
		for i := 0; i < n; i++ {
			y = append(y, int32(c))
		}
	}
	y = append(y, -1)
	s := balancedSplit(y, 3, 7)
	per := map[int32]int{}
	seen := map[int32]bool{}
	for _, part := range [][]int32{s.Train, s.Val, s.Test} {
		for _, v := range part {
			if seen[v] || y[v] < 0 {
				t.Fatalf("node %d repeated or unlabelled", v)
			}
			seen[v] = true
		}
	}
	for _, v := range s.Train {
		per[y[v]]++
	}
	// round(0.6·20/3) = 4 per class: class 1 (4 nodes) goes entirely.
	if per[0] != 4 || per[1] != 4 || per[2] != 4 || len(s.Val) != 4 || len(seen) != 20 {
		t.Errorf("train per class %v, val %d, covered %d", per, len(s.Val), len(seen))
	}
	for _, v := range s.Test {
		if y[v] == 1 {
			t.Errorf("test holds node %d of the class that training took whole", v)
		}
	}
}

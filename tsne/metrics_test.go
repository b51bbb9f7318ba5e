package tsne

import (
	"math"
	"testing"
)

// line returns 2-D map points on the x-axis.
func line(xs ...float64) [][2]float64 {
	y := make([][2]float64, len(xs))
	for i, v := range xs {
		y[i] = [2]float64{v, 0}
	}
	return y
}

// column returns 1-D points as slices.
func column(xs ...float64) [][]float64 {
	x := make([][]float64, len(xs))
	for i, v := range xs {
		x[i] = []float64{v}
	}
	return x
}

func TestTrustworthiness(t *testing.T) {
	x := column(0, 1, 3, 6, 10, 15)
	for _, tc := range []struct {
		name string
		y    [][2]float64
		k    int
		want float64
	}{
		{"identity", line(0, 1, 3, 6, 10, 15), 2, 1},
		{"scaled", line(0, 2, 6, 12, 20, 30), 2, 1},
		// Ends swapped. k = 1; penalties r(i,j) − k:
		//   point 0 (at 15): map neighbour 4, input rank 4 → 3
		//   point 1 (at 1):  map neighbour 5, input rank 5 → 4
		//   point 5 (at 0):  map neighbour 1, input rank 4 → 3
		//   points 2, 3, 4:  map neighbour is the input nearest → 0
		// T = 1 − 10·2/(6·1·(12−3−1)) = 1 − 5/12.
		{"ends_swapped_k1", line(15, 1, 3, 6, 10, 0), 1, 1 - 5.0/12},
		// Reversed order: distances are preserved, so T = 1.
		{"mirrored", line(0, -1, -3, -6, -10, -15), 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Trustworthiness(x, tc.y, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			if !withinTol(got, tc.want, 1e-14) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTrustworthinessK2(t *testing.T) {
	// Ends swapped with k = 2 (k < N/2 = 3). Map neighbours, input ranks
	// (x = 0, 1, 3, 6, 10, 15) and penalties max(0, r − 2):
	//   0 at 15: map {4 (5), 3 (9)};  ranks from x=0:  4 → 4, 3 → 3: 2 + 1
	//   1 at 1:  map {5 (1), 2 (2)};  ranks from x=1:  5 → 5, 2 → 2: 3
	//   2 at 3:  map {1 (2), 3 (3)} (5 is also at 3; index 3 < 5 wins);
	//            ranks from x=3: 1 → 1, 3 → 3 (0 at 3 and 3 at 3 tie, 0 first): 1
	//   3 at 6:  map {2 (3), 4 (4)};  ranks from x=6:  2 → 1, 4 → 2: 0
	//   4 at 10: map {3 (4), 0 (5)};  ranks from x=10: 3 → 1, 0 → 5: 3
	//   5 at 0:  map {1 (1), 2 (3)};  ranks from x=15: 1 → 4, 2 → 3: 2 + 1
	// Σ = 3 + 3 + 1 + 0 + 3 + 3 = 13; T = 1 − 13·2/(6·2·(12−6−1)) = 1 − 26/60.
	got, err := Trustworthiness(column(0, 1, 3, 6, 10, 15), line(15, 1, 3, 6, 10, 0), 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 - 26.0/60; !withinTol(got, want, 1e-14) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestKNNAccuracy(t *testing.T) {
	// Points on a line at 0, 1, 3, 7, 8, 20.
	y := line(0, 1, 3, 7, 8, 20)
	ab := []int{0, 0, 1, 1, 1, 0}
	for _, tc := range []struct {
		name   string
		labels []int
		k      int
		want   float64
	}{
		// k=1: 0→1 ✓, 1→0 ✓, 2→1 ✗, 3→4 ✓, 4→3 ✓, 5→4 ✗.
		{"k1", ab, 1, 4.0 / 6},
		// k=3: 0:{1,2,3}=0,1,1 ✗; 1:{0,2,3} ✗; 2:{1,0,3}=0,0,1 ✗;
		// 3:{4,2,1}=1,1,0 ✓; 4:{3,2,1} ✓; 5:{4,3,2}=1,1,1 ✗.
		{"k3", ab, 3, 2.0 / 6},
		// k=2, ties go to the smallest label: 0:{1,2} → 0 ✓; 1:{0,2} → 0 ✓;
		// 2:{1,0} → 0 ✗; 3:{4,2} ✓; 4:{3,2} ✓; 5:{4,3} → 1 ✗.
		{"k2_ties", ab, 2, 4.0 / 6},
		// The same with labels 7 (for 0) and −3 (for 1): ties now go to −3,
		// so points 0 and 1 are wrong.
		{"k2_ties_relabelled", []int{7, 7, -3, -3, -3, 7}, 2, 2.0 / 6},
		// k=5, everyone else votes: each point's own class is the minority
		// among the others (2 of 5), so every prediction is wrong.
		{"k5_all", ab, 5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := KNNAccuracy(y, tc.labels, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			if !withinTol(got, tc.want, 1e-15) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSilhouette(t *testing.T) {
	for _, tc := range []struct {
		name   string
		points [][]float64
		labels []int
		want   float64
	}{
		// A = {0, 2}, B = {10, 14}:
		//   0: a=2, b=12 → 10/12;  2: a=2, b=10 → 8/10;
		//   10: a=4, b=9 → 5/9;    14: a=4, b=13 → 9/13.
		{"two_pairs", column(0, 2, 10, 14), []int{1, 1, 2, 2}, (10.0/12 + 8.0/10 + 5.0/9 + 9.0/13) / 4},
		// A singleton scores 0: 0: a=1, b=5 → 4/5; 1: a=1, b=4 → 3/4.
		{"singleton", column(0, 1, 5), []int{0, 0, 1}, (4.0/5 + 3.0/4 + 0) / 3},
		// 2-D, 3-4-5 triangles: A = {(0,0), (3,4)}, B = {(6,8), (6,0)};
		// distances (0,0)–(3,4) = 5, (0,0)–(6,8) = 10, (0,0)–(6,0) = 6,
		// (3,4)–(6,8) = 5, (3,4)–(6,0) = 5, (6,8)–(6,0) = 8.
		//   (0,0): a=5, b=(10+6)/2=8 → 3/8
		//   (3,4): a=5, b=(5+5)/2=5 → 0
		//   (6,8): a=8, b=(10+5)/2=7.5 → −0.5/8
		//   (6,0): a=8, b=(6+5)/2=5.5 → −2.5/8
		{"triangle", [][]float64{{0, 0}, {3, 4}, {6, 8}, {6, 0}}, []int{0, 0, 1, 1}, (3.0/8 + 0 - 0.5/8 - 2.5/8) / 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Silhouette(tc.points, tc.labels)
			if err != nil {
				t.Fatal(err)
			}
			if !withinTol(got, tc.want, 1e-14) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMetricErrors(t *testing.T) {
	x := column(0, 1, 2, 3, 4, 5)
	y := line(0, 1, 2, 3, 4, 5)
	lab := []int{0, 0, 0, 1, 1, 1}
	for _, tc := range []struct {
		name string
		err  error
		subs []string
	}{
		{"trust_length", second(Trustworthiness(x, y[:5], 1)), []string{"6 points", "5"}},
		{"trust_k0", second(Trustworthiness(x, y, 0)), []string{"k is 0"}},
		{"trust_k_half", second(Trustworthiness(x, y, 3)), []string{"k is 3", "N/2"}},
		{"trust_empty", second(Trustworthiness([][]float64{}, y, 1)), []string{"x has no points"}},
		{"trust_ragged", second(Trustworthiness([][]float64{{1}, {1, 2}}, y[:2], 1)), []string{"ragged", "row 1"}},
		{"trust_nan_y", second(Trustworthiness(x, line(0, 1, 2, 3, 4, nan()), 1)), []string{"y[5][0]", "NaN"}},
		{"knn_labels", second(KNNAccuracy(y, lab[:4], 1)), []string{"4 labels for 6 points"}},
		{"knn_k", second(KNNAccuracy(y, lab, 6)), []string{"k is 6"}},
		{"knn_empty", second(KNNAccuracy([][2]float64{}, nil, 1)), []string{"no points"}},
		{"sil_labels", second(Silhouette(y, lab[:5])), []string{"5 labels for 6 points"}},
		{"sil_one_label", second(Silhouette(y, make([]int, 6))), []string{"1 distinct values"}},
		{"sil_all_distinct", second(Silhouette(y, []int{0, 1, 2, 3, 4, 5})), []string{"6 distinct values"}},
		{"sil_inf", second(Silhouette(column(0, inf()), []int{0, 1})), []string{"points[1][0]", "+Inf"}},
	} {
		t.Run(tc.name, func(t *testing.T) { wantErr(t, tc.err, tc.subs...) })
	}
}

func nan() float64 { return math.NaN() }
func inf() float64 { return math.Inf(1) }

func second(_ float64, err error) error { return err }

package train

import (
	"slices"
	"testing"

	"github.com/prcaps/prcaps/data"
)

// Evaluation batches hold up to evalBatch graphs and evalNodes nodes, and
// at least one graph however large.
func TestEvalBatches(t *testing.T) {
	sizes := []int{3000, 1000, 96, 100, 5000, 10, 10, 10}
	ds := &data.GraphDataset{}
	for _, n := range sizes {
		ds.Graphs = append(ds.Graphs, data.GraphSample{Graph: &data.Graph{N: n}})
	}
	set := []int32{0, 1, 2, 3, 4, 5, 6, 7}
	for _, tc := range []struct {
		batch int
		want  []int // batch ends
	}{
		{128, []int{3, 4, 5, 8}}, // 3000+1000+96 = 4096 fits; +100 does not
		{2, []int{2, 4, 5, 7, 8}},
		{1, []int{1, 2, 3, 4, 5, 6, 7, 8}},
	} {
		tr := &graphTrainer{ds: ds, evalBatch: tc.batch}
		var got []int
		for lo, hi := 0, 0; lo < len(set); lo = hi {
			hi = tr.evalEnd(set, lo)
			got = append(got, hi)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("evalBatch %d: batch ends %v, want %v", tc.batch, got, tc.want)
		}
	}
}

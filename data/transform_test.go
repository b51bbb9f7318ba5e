package data

import (
	"math"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

func TestRowNormalize(t *testing.T) {
	dense := tensor.FromRows([][]float32{{1, 3}, {0, 0}, {2, 2}})
	for _, f := range []Features{{Dense: dense}, {Sparse: tensor.CSRFromDense(dense)}} {
		got := RowNormalize(f)
		var d *tensor.Dense[float32]
		if got.Sparse != nil {
			d = got.Sparse.ToDense()
		} else {
			d = got.Dense
		}
		want := [][]float32{{0.25, 0.75}, {0, 0}, {0.5, 0.5}}
		for i, row := range want {
			for j, w := range row {
				if math.Abs(float64(d.At(i, j)-w)) > 1e-7 {
					t.Errorf("(%d,%d) = %v, want %v", i, j, d.At(i, j), w)
				}
			}
		}
	}
	if dense.At(0, 0) != 1 {
		t.Error("RowNormalize modified its input")
	}
}

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

// RowNormalizeInPlace gives RowNormalize's bits, for rows of repeated
// values (bag of words), of distinct values, of zeros and signed zeros.
func TestRowNormalizeInPlace(t *testing.T) {
	rows := [][]float32{
		{1, 1, 0, 1, 1}, {0.3, 0.7, 0.7, 0.1, 3}, {0, 0, 0, 0, 0}, {2, 2, 5, 5, 2},
		{1e-30, 3, 3, 1e-30, 7}, {-1, 2, 0, 0, 4}, {float32(math.Copysign(0, -1)), 1, 1, 0, 2},
	}
	dense := tensor.FromRows(rows)
	want := RowNormalize(Features{Sparse: tensor.CSRFromDense(dense)}).Sparse
	got := tensor.CSRFromDense(dense)
	RowNormalizeInPlace(got)
	for p := range want.Data {
		if math.Float32bits(got.Data[p]) != math.Float32bits(want.Data[p]) {
			t.Fatalf("entry %d: in place %v, RowNormalize %v", p, got.Data[p], want.Data[p])
		}
	}
}

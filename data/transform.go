package data

import (
	"math"

	"github.com/prcaps/prcaps/tensor"
)

// RowNormalize returns a copy of f whose rows sum to 1 (rows summing to 0 are
// left as they are): PyG's NormalizeFeatures and Kipf & Welling's
// preprocess_features, the usual preprocessing of bag-of-words features.
// The input is not modified; sparse features stay sparse.
func RowNormalize(f Features) Features {
	switch {
	case f.Sparse != nil:
		s := f.Sparse
		out := &tensor.CSR[float32]{Rows: s.Rows, Cols: s.Cols, Indptr: s.Indptr, Indices: s.Indices, Data: make([]float32, len(s.Data))}
		for i := 0; i < s.Rows; i++ {
			lo, hi := s.Indptr[i], s.Indptr[i+1]
			sum := 0.0
			for _, v := range s.Data[lo:hi] {
				sum += float64(v)
			}
			for p := lo; p < hi; p++ {
				out.Data[p] = normalized(s.Data[p], sum)
			}
		}
		return Features{Sparse: out}
	case f.Dense != nil:
		d := f.Dense.Clone()
		for i := 0; i < d.Rows; i++ {
			row := d.Row(i)
			sum := 0.0
			for _, v := range row {
				sum += float64(v)
			}
			for j, v := range row {
				row[j] = normalized(v, sum)
			}
		}
		return Features{Dense: d}
	}
	return f
}

func normalized(v float32, sum float64) float32 {
	if sum == 0 {
		return v
	}
	return float32(float64(v) / sum)
}

// RowNormalizeInPlace is RowNormalize on sparse features, dividing the
// values of s in place (the same values): a mini-batch's gathered rows are
// normalised without a copy.
func RowNormalizeInPlace(s *tensor.CSR[float32]) {
	for i := 0; i < s.Rows; i++ {
		lo, hi := s.Indptr[i], s.Indptr[i+1]
		sum := 0.0
		for _, v := range s.Data[lo:hi] {
			sum += float64(v)
		}
		// Bag-of-words rows repeat one value; the division (float64, as
		// RowNormalize's) is done once per run of equal values.
		var last, lastN float32
		for p := lo; p < hi; p++ {
			v := s.Data[p]
			if p == lo || math.Float32bits(v) != math.Float32bits(last) {
				last, lastN = v, normalized(v, sum)
			}
			s.Data[p] = lastN
		}
	}
}

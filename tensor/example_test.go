package tensor_test

import (
	"fmt"

	"github.com/prcaps/prcaps/tensor"
)

// SpMM multiplies sparse input features by a dense weight, the first layer
// of a GCN on bag-of-words features. The output is allocated once by the
// caller and overwritten on every call.
func ExampleSpMM() {
	x := tensor.CSRFromDense(tensor.FromRows([][]float32{
		{1, 0, 0, 2},
		{0, 0, 0, 0}, // a node without features
		{0, 3, 0, 0},
	}))
	w := tensor.FromRows([][]float32{
		{1, 0},
		{0, 1},
		{5, 5},
		{1, 1},
	})
	y := tensor.NewDense[float32](x.Rows, w.Cols)
	tensor.SpMM(y, x, w, false)
	for i := 0; i < y.Rows; i++ {
		fmt.Println(y.Row(i))
	}
	// Output:
	// [3 2]
	// [0 0]
	// [0 3]
}

// SpMMT computes the weight gradient of a sparse-input layer, ∂W = Xᵀ∂Y,
// here accumulated into an existing gradient.
func ExampleSpMMT() {
	x := tensor.CSRFromDense(tensor.FromRows([][]float64{
		{1, 0, 2},
		{0, 1, 0},
	}))
	dy := tensor.FromRows([][]float64{{1, 1}, {2, 3}})
	dw := tensor.NewDense[float64](3, 2)
	tensor.SpMMT(dw, x, dy, true)
	fmt.Println(dw.Data)
	// Output: [1 1 2 3 2 2]
}

// An Adjacency keeps a graph operator and its transpose, so that the
// backward pass of A·H (∂H = Aᵀ·∂out) is a row-parallel SpMM as well.
func ExampleNewAdjacency() {
	// Arcs into node 0 from 1 (weight 0.5) and from 2 (weight 2); node 1
	// has a self-loop; node 2 has no in-arcs.
	a := &tensor.CSR[float32]{Rows: 3, Cols: 3,
		Indptr:  []int32{0, 2, 3, 3},
		Indices: []int32{1, 2, 1},
		Data:    []float32{0.5, 2, 1}}
	adj := tensor.NewAdjacency(a)
	h := tensor.FromRows([][]float32{{1}, {2}, {3}})
	out := tensor.NewDense[float32](3, 1)
	tensor.SpMM(out, adj.A, h, false)
	fmt.Println("A·h  =", out.Data)
	tensor.SpMM(out, adj.AT, h, false)
	fmt.Println("Aᵀ·h =", out.Data)
	// Output:
	// A·h  = [7 2 0]
	// Aᵀ·h = [0 2.5 2]
}

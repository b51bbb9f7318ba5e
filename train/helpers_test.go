package train

import "github.com/prcaps/prcaps/tensor"

func denseRows(rows [][]float32) *tensor.Dense[float32] { return tensor.FromRows(rows) }

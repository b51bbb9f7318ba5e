package tensor

import "fmt"

// CSR is a compressed-sparse-row Rows×Cols matrix. The column indices of row i
// are Indices[Indptr[i]:Indptr[i+1]] with values Data at the same positions.
// Indices within a row are sorted ascending and unique unless a constructor
// says otherwise. int32 indices halve the memory traffic of graph kernels and
// bound a matrix to 2³¹−1 non-zeros.
type CSR[T Float] struct {
	Rows, Cols int
	Indptr     []int32 // len Rows+1, Indptr[0] = 0, non-decreasing
	Indices    []int32 // len NNZ, each in [0, Cols)
	Data       []T     // len NNZ
}

// NNZ is the number of stored entries.
func (m *CSR[T]) NNZ() int { return len(m.Indices) }

// Validate checks the structural invariants of m: array lengths, monotone
// Indptr, column indices in range and strictly increasing within each row.
func (m *CSR[T]) Validate() error {
	if m.Rows < 0 || m.Cols < 0 {
		return fmt.Errorf("tensor: CSR has negative shape %d×%d", m.Rows, m.Cols)
	}
	if len(m.Indptr) != m.Rows+1 {
		return fmt.Errorf("tensor: CSR indptr has length %d, want rows+1 = %d", len(m.Indptr), m.Rows+1)
	}
	if m.Indptr[0] != 0 {
		return fmt.Errorf("tensor: CSR indptr[0] = %d, want 0", m.Indptr[0])
	}
	if int(m.Indptr[m.Rows]) != len(m.Indices) || len(m.Indices) != len(m.Data) {
		return fmt.Errorf("tensor: CSR indptr[rows] = %d, len(indices) = %d, len(data) = %d; want all equal",
			m.Indptr[m.Rows], len(m.Indices), len(m.Data))
	}
	for i := 0; i < m.Rows; i++ {
		lo, hi := m.Indptr[i], m.Indptr[i+1]
		if hi < lo {
			return fmt.Errorf("tensor: CSR indptr decreases at row %d (%d > %d)", i, lo, hi)
		}
		prev := int32(-1)
		for _, j := range m.Indices[lo:hi] {
			if j < 0 || int(j) >= m.Cols {
				return fmt.Errorf("tensor: CSR row %d has column %d outside [0, %d)", i, j, m.Cols)
			}
			if j <= prev {
				return fmt.Errorf("tensor: CSR row %d has unsorted or duplicate column %d", i, j)
			}
			prev = j
		}
	}
	return nil
}

// ToDense expands m into a dense matrix.
func (m *CSR[T]) ToDense() *Dense[T] {
	d := NewDense[T](m.Rows, m.Cols)
	m.DenseInto(d)
	return d
}

// DenseInto sets d to m as a dense matrix, reusing d's storage.
func (m *CSR[T]) DenseInto(d *Dense[T]) {
	d.Reshape(m.Rows, m.Cols)
	clear(d.Data)
	for i := 0; i < m.Rows; i++ {
		for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
			d.Data[i*m.Cols+int(m.Indices[p])] += m.Data[p]
		}
	}
}

// CSRFromDense builds a CSR matrix holding the non-zeros of d.
func CSRFromDense[T Float](d *Dense[T]) *CSR[T] {
	m := &CSR[T]{Rows: d.Rows, Cols: d.Cols, Indptr: make([]int32, d.Rows+1)}
	for i := 0; i < d.Rows; i++ {
		for j, v := range d.Row(i) {
			if v != 0 {
				m.Indices = append(m.Indices, int32(j))
				m.Data = append(m.Data, v)
			}
		}
		m.Indptr[i+1] = int32(len(m.Indices))
	}
	return m
}

// ConvertCSR returns a copy of m with element type U (the index arrays are shared).
func ConvertCSR[U, T Float](m *CSR[T]) *CSR[U] {
	out := &CSR[U]{Rows: m.Rows, Cols: m.Cols, Indptr: m.Indptr, Indices: m.Indices, Data: make([]U, len(m.Data))}
	for i, v := range m.Data {
		out.Data[i] = U(v)
	}
	return out
}

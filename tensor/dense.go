package tensor

import (
	"fmt"
	"math"
)

// Float is the set of element types the engine computes in.
type Float interface {
	~float32 | ~float64
}

// Dense is a row-major Rows×Cols matrix. Element (i, j) is Data[i*Cols+j].
// The zero value is an empty 0×0 matrix.
type Dense[T Float] struct {
	Rows, Cols int
	Data       []T
}

// NewDense returns a zeroed r×c matrix.
func NewDense[T Float](r, c int) *Dense[T] {
	if r < 0 || c < 0 {
		panic(fmt.Sprintf("tensor: negative shape %d×%d", r, c))
	}
	if c > 0 && r > math.MaxInt/c {
		// r·c would wrap, and a matrix of that shape would hold a few
		// values or none: never a silent short buffer.
		panic(fmt.Sprintf("tensor: shape %d×%d overflows", r, c))
	}
	return &Dense[T]{Rows: r, Cols: c, Data: Make[T](r * c)}
}

// FromRows builds a dense matrix from a slice of equal-length rows.
func FromRows[T Float](rows [][]T) *Dense[T] {
	if len(rows) == 0 {
		return &Dense[T]{}
	}
	c := len(rows[0])
	m := NewDense[T](len(rows), c)
	for i, r := range rows {
		if len(r) != c {
			panic(fmt.Sprintf("tensor: row %d has %d columns, want %d", i, len(r), c))
		}
		copy(m.Data[i*c:], r)
	}
	return m
}

// At returns element (i, j).
func (m *Dense[T]) At(i, j int) T { return m.Data[i*m.Cols+j] }

// Set sets element (i, j).
func (m *Dense[T]) Set(i, j int, v T) { m.Data[i*m.Cols+j] = v }

// Row returns row i as a slice aliasing m's storage.
func (m *Dense[T]) Row(i int) []T { return m.Data[i*m.Cols : (i+1)*m.Cols] }

// Len is Rows*Cols.
func (m *Dense[T]) Len() int { return m.Rows * m.Cols }

// SameShape reports whether m and o have the same shape.
func (m *Dense[T]) SameShape(o *Dense[T]) bool { return m.Rows == o.Rows && m.Cols == o.Cols }

// Reshape sets m's shape to r×c, reusing storage when it is large enough.
// Contents are unspecified afterwards (callers zero or overwrite them).
func (m *Dense[T]) Reshape(r, c int) {
	n := r * c
	if cap(m.Data) < n {
		m.Data = Make[T](n)
	}
	m.Data = m.Data[:n]
	m.Rows, m.Cols = r, c
}

// ReshapeGrow is Reshape for a buffer whose sizes vary from call to call
// (a mini-batch's): when it must grow it gets a quarter more capacity
// than asked (Regrow), so that the next slightly larger batch finds room
// instead of allocating again.
func (m *Dense[T]) ReshapeGrow(r, c int) {
	n := r * c
	if cap(m.Data) < n {
		m.Data = Regrow(m.Data, n)
	}
	m.Data = m.Data[:n]
	m.Rows, m.Cols = r, c
}

// Zero sets every element to 0.
func (m *Dense[T]) Zero() { clear(m.Data) }

// Clone returns a deep copy of m.
func (m *Dense[T]) Clone() *Dense[T] {
	c := &Dense[T]{Rows: m.Rows, Cols: m.Cols, Data: make([]T, len(m.Data))}
	copy(c.Data, m.Data)
	return c
}

// CopyFrom copies o into m, reshaping m to o's shape.
func (m *Dense[T]) CopyFrom(o *Dense[T]) {
	m.Reshape(o.Rows, o.Cols)
	copy(m.Data, o.Data)
}

// Convert returns a copy of m with element type U.
func Convert[U, T Float](m *Dense[T]) *Dense[U] {
	out := NewDense[U](m.Rows, m.Cols)
	for i, v := range m.Data {
		out.Data[i] = U(v)
	}
	return out
}

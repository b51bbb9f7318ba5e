package pickle

import "fmt"

// CSR holds the arrays of a pickled scipy.sparse.csr_matrix, unvalidated:
// callers check that Indptr is monotone and the indices are in range.
type CSR struct {
	Rows, Cols int
	Indptr     []int32
	Indices    []int32
	Data       []float32
}

// AsCSR extracts a scipy.sparse.csr_matrix, as pickled by scipy's default
// __reduce__: NEWOBJ of the class, then BUILD with its __dict__ holding
// _shape, indptr, indices and data. It checks the array lengths against the
// shape.
func AsCSR(v Value) (*CSR, error) {
	o, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("got a %s, want a scipy.sparse.csr_matrix", TypeName(v))
	}
	if o.Class.Name != "csr_matrix" {
		return nil, fmt.Errorf("got a %s, want a scipy.sparse.csr_matrix", o.Class)
	}
	st, ok := o.State.(*Dict)
	if !ok {
		return nil, fmt.Errorf("csr_matrix state is a %s, want a dict", TypeName(o.State))
	}
	if f, ok := st.Get("format"); ok {
		if s, ok := f.([]byte); !ok || string(s) != "csr" {
			return nil, fmt.Errorf("csr_matrix format is %v, want 'csr'", f)
		}
	}
	shapeV, ok := st.Get("_shape")
	if !ok {
		return nil, fmt.Errorf("csr_matrix has no _shape")
	}
	shape, ok := shapeV.(Tuple)
	if !ok || len(shape) != 2 {
		return nil, fmt.Errorf("csr_matrix _shape is not a pair")
	}
	var dims [2]int
	for i, s := range shape {
		x, ok := s.(int64)
		if !ok || x < 0 || x >= 1<<31-1 {
			return nil, fmt.Errorf("csr_matrix _shape[%d] = %v, want an int in [0, 2³¹-1)", i, s)
		}
		dims[i] = int(x)
	}
	arr := func(key string) (*Array, error) {
		v, ok := st.Get(key)
		if !ok {
			return nil, fmt.Errorf("csr_matrix has no %s", key)
		}
		a, ok := v.(*Array)
		if !ok {
			return nil, fmt.Errorf("csr_matrix %s is a %s, want a numpy.ndarray", key, TypeName(v))
		}
		if len(a.Shape) != 1 {
			return nil, fmt.Errorf("csr_matrix %s has shape %v, want 1-D", key, a.Shape)
		}
		return a, nil
	}
	m := &CSR{Rows: dims[0], Cols: dims[1]}
	ip, err := arr("indptr")
	if err != nil {
		return nil, err
	}
	if ip.Len() != m.Rows+1 {
		return nil, fmt.Errorf("csr_matrix indptr has %d entries for %d rows, want %d", ip.Len(), m.Rows, m.Rows+1)
	}
	if m.Indptr, err = ip.Int32s(); err != nil {
		return nil, fmt.Errorf("csr_matrix indptr: %w", err)
	}
	ind, err := arr("indices")
	if err != nil {
		return nil, err
	}
	if m.Indices, err = ind.Int32s(); err != nil {
		return nil, fmt.Errorf("csr_matrix indices: %w", err)
	}
	dat, err := arr("data")
	if err != nil {
		return nil, err
	}
	if m.Data, err = dat.Float32s(); err != nil {
		return nil, fmt.Errorf("csr_matrix data: %w", err)
	}
	if len(m.Data) != len(m.Indices) {
		return nil, fmt.Errorf("csr_matrix has %d indices but %d data values", len(m.Indices), len(m.Data))
	}
	return m, nil
}

package data

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/prcaps/prcaps/data/internal/npy"
	"github.com/prcaps/prcaps/tensor"
)

// npzMaxMember caps the uncompressed size of one .npz member, so that a
// small deflated file cannot expand into gigabytes.
const npzMaxMember = 1 << 31

// LoadNPZ loads a gnn-benchmark node-classification graph (Coauthor CS and
// Physics, Amazon Computers and Photo, ...) from the .npz archive file in src;
// name becomes the dataset's Name.
//
// The archive must hold the adjacency as CSR members adj_indices, adj_indptr,
// adj_shape (adj_data, if present, must match in length; its values are not
// used), the features as CSR members attr_data, attr_indices, attr_indptr,
// attr_shape or as a dense attr_matrix, and integer labels. Other members
// (node_names, attr_names, class_names, which may be pickled object arrays)
// are not read. As in PyG, the graph is symmetrised, deduplicated and
// stripped of self-loops; features keep their values, with the column indices
// of each row sorted and duplicates summed. Labels must lie in [0, nodes);
// the class count is the largest label + 1 (as in PyG, a class that no node
// has still counts). There is no public split.
//
// Every error is a *FileError naming the file and, where it applies, the member.
func LoadNPZ(src Source, file, name string) (*NodeDataset, error) {
	b, err := src.ReadFile(file)
	if err != nil {
		return nil, err
	}
	path := src.Path(file)
	ferr := func(format string, args ...any) error { return fileErrorf(path, 0, format, args...) }
	z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, ferr("not a .npz (zip) archive: %w", err)
	}
	members := map[string]*zip.File{}
	for _, f := range z.File {
		members[f.Name] = f
	}
	// get parses member key (stored as key.npy); ok is false if it is absent.
	get := func(key string) (a *npy.Array, ok bool, err error) {
		f := members[key+".npy"]
		if f == nil {
			f = members[key]
		}
		if f == nil {
			return nil, false, nil
		}
		raw, err := npzRead(f, len(b))
		if err != nil {
			return nil, true, ferr("member %s: %w", f.Name, err)
		}
		a, err = npy.Parse(raw)
		if err != nil {
			return nil, true, ferr("member %s: %w", f.Name, err)
		}
		return a, true, nil
	}
	need := func(key string) (*npy.Array, error) {
		a, ok, err := get(key)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &FileError{File: path, Err: fmt.Errorf("member %s.npy: %w", key, errNPZMissingMember)}
		}
		return a, nil
	}
	ints := func(key string, a *npy.Array) ([]int32, error) {
		if len(a.Shape) != 1 {
			return nil, ferr("member %s.npy: shape %v, want 1-D", key, a.Shape)
		}
		v, err := a.Int32s()
		if err != nil {
			return nil, ferr("member %s.npy: %w", key, err)
		}
		return v, nil
	}
	shape2 := func(key string) (int, int, error) {
		a, err := need(key)
		if err != nil {
			return 0, 0, err
		}
		v, err := ints(key, a)
		if err != nil {
			return 0, 0, err
		}
		if len(v) != 2 || v[0] < 0 || v[1] < 0 {
			return 0, 0, ferr("member %s.npy: %v is not a matrix shape (two non-negative ints)", key, v)
		}
		return int(v[0]), int(v[1]), nil
	}
	csr := func(prefix string, rows, cols int, withData bool) (indptr, indices []int32, data []float32, err error) {
		ia, err := need(prefix + "_indptr")
		if err != nil {
			return nil, nil, nil, err
		}
		if indptr, err = ints(prefix+"_indptr", ia); err != nil {
			return nil, nil, nil, err
		}
		if len(indptr) != rows+1 {
			return nil, nil, nil, ferr("member %s_indptr.npy: %d entries for %d rows, want %d", prefix, len(indptr), rows, rows+1)
		}
		xa, err := need(prefix + "_indices")
		if err != nil {
			return nil, nil, nil, err
		}
		if indices, err = ints(prefix+"_indices", xa); err != nil {
			return nil, nil, nil, err
		}
		da, ok, err := get(prefix + "_data")
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok && withData {
			return nil, nil, nil, &FileError{File: path, Err: fmt.Errorf("member %s_data.npy: %w", prefix, errNPZMissingMember)}
		}
		if ok {
			if len(da.Shape) != 1 {
				return nil, nil, nil, ferr("member %s_data.npy: shape %v, want 1-D", prefix, da.Shape)
			}
			if data, err = da.Float32s(); err != nil {
				return nil, nil, nil, ferr("member %s_data.npy: %w", prefix, err)
			}
			if len(data) != len(indices) {
				return nil, nil, nil, ferr("member %s_data.npy: %d values for %d indices", prefix, len(data), len(indices))
			}
		}
		return indptr, indices, data, nil
	}

	// Graph.
	n, n2, err := shape2("adj_shape")
	if err != nil {
		return nil, err
	}
	if n != n2 {
		return nil, ferr("member adj_shape.npy: adjacency is %d×%d, not square", n, n2)
	}
	if n > len(b) {
		// Every node needs at least an indptr entry in the archive.
		return nil, ferr("member adj_shape.npy: %d nodes cannot fit in a %d-byte file", n, len(b))
	}
	ptr, idx, _, err := csr("adj", n, n, false)
	if err != nil {
		return nil, err
	}
	if err := npzCheckIndptr(ptr, len(idx)); err != nil {
		return nil, ferr("member adj_indptr.npy: %w", err)
	}
	srcs := make([]int32, len(idx))
	for r := range n {
		for p := ptr[r]; p < ptr[r+1]; p++ {
			srcs[p] = int32(r)
		}
	}
	for p, c := range idx {
		if c < 0 || int(c) >= n {
			return nil, ferr("member adj_indices.npy: entry %d is column %d, outside [0, %d)", p, c, n)
		}
	}
	g, err := NewGraph(n, srcs, idx, EdgeOptions{Symmetrize: true, RemoveSelfLoops: true})
	if err != nil {
		return nil, ferr("adjacency: %w", err)
	}

	// Features.
	var x *tensor.CSR[float32]
	if dense, ok, err := get("attr_matrix"); err != nil {
		return nil, err
	} else if ok {
		if len(dense.Shape) != 2 || dense.Shape[0] != n {
			return nil, ferr("member attr_matrix.npy: shape %v, want (%d, features)", dense.Shape, n)
		}
		vals, err := dense.Float32s()
		if err != nil {
			return nil, ferr("member attr_matrix.npy: %w", err)
		}
		if x, err = npzDenseCSR(n, dense.Shape[1], vals); err != nil {
			return nil, ferr("member attr_matrix.npy: %w", err)
		}
	} else {
		if _, has := members["attr_shape.npy"]; !has {
			return nil, &FileError{File: path, Err: fmt.Errorf("member attr_shape.npy (or attr_matrix.npy): %w", errNPZMissingMember)}
		}
		rows, cols, err := shape2("attr_shape")
		if err != nil {
			return nil, err
		}
		if rows != n {
			return nil, ferr("member attr_shape.npy: %d feature rows for %d nodes", rows, n)
		}
		fptr, fidx, fdat, err := csr("attr", rows, cols, true)
		if err != nil {
			return nil, err
		}
		if x, err = npzCanonicalCSR(rows, cols, fptr, fidx, fdat); err != nil {
			return nil, ferr("attr: %w", err)
		}
	}

	// Labels.
	la, err := need("labels")
	if err != nil {
		return nil, err
	}
	if len(la.Shape) != 1 || la.Shape[0] != n {
		return nil, ferr("member labels.npy: shape %v, want (%d,); multi-label sets are not supported", la.Shape, n)
	}
	lab, err := la.Int64s()
	if err != nil {
		return nil, ferr("member labels.npy: %w", err)
	}
	y := make([]int32, n)
	classes := 0
	for i, v := range lab {
		if v < 0 || v >= int64(max(n, 1)) {
			return nil, ferr("member labels.npy: node %d has label %d, want one in [0, %d)", i, v, max(n, 1))
		}
		y[i] = int32(v)
		classes = max(classes, int(v)+1)
	}
	return &NodeDataset{Name: name, Graph: g, X: Features{Sparse: x}, Y: y, NumClasses: classes}, nil
}

// errNPZMissingMember is wrapped by errors about absent archive members.
var errNPZMissingMember = errors.New("missing from the archive")

// npzRead returns the uncompressed bytes of a zip member, stored or
// deflated, of an archive of archiveSize bytes.
func npzRead(f *zip.File, archiveSize int) ([]byte, error) {
	if f.UncompressedSize64 > npzMaxMember {
		return nil, fmt.Errorf("%d bytes uncompressed, more than the %d allowed", f.UncompressedSize64, uint64(npzMaxMember))
	}
	if f.CompressedSize64 > uint64(archiveSize) {
		return nil, fmt.Errorf("declares %d compressed bytes in a %d-byte archive", f.CompressedSize64, archiveSize)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	// Trust the declared size only as far as the compressed size can
	// justify it (deflate expands at most ~1032×), so that a lying header
	// cannot force a huge allocation.
	size := f.UncompressedSize64
	if limit := 1100*f.CompressedSize64 + 1024; size > limit {
		return nil, fmt.Errorf("declares %d bytes uncompressed from %d compressed, more than deflate can expand", size, f.CompressedSize64)
	}
	buf := make([]byte, size)
	if _, err := io.ReadFull(rc, buf); err != nil {
		return nil, fmt.Errorf("reading %d bytes: %w", size, err)
	}
	// archive/zip checks the CRC when the reader reaches EOF.
	var one [1]byte
	if n, err := rc.Read(one[:]); n > 0 {
		return nil, fmt.Errorf("member is longer than the %d bytes its header declares", size)
	} else if err != io.EOF {
		if err == nil {
			err = io.ErrNoProgress
		}
		return nil, err
	}
	return buf, nil
}

// npzCheckIndptr checks that a CSR row pointer starts at 0, never decreases
// and ends at nnz.
func npzCheckIndptr(ptr []int32, nnz int) error {
	if len(ptr) == 0 || ptr[0] != 0 {
		return errors.New("row pointer does not start at 0")
	}
	for i := 1; i < len(ptr); i++ {
		if ptr[i] < ptr[i-1] {
			return fmt.Errorf("row pointer decreases at row %d (%d > %d)", i-1, ptr[i-1], ptr[i])
		}
	}
	if int(ptr[len(ptr)-1]) != nnz {
		return fmt.Errorf("row pointer ends at %d but there are %d entries", ptr[len(ptr)-1], nnz)
	}
	return nil
}

// npzCanonicalCSR validates raw CSR arrays (taking ownership of them) and
// returns a matrix with sorted, unique column indices in every row,
// duplicates summed as scipy does. Non-finite values are errors.
func npzCanonicalCSR(rows, cols int, indptr, indices []int32, data []float32) (*tensor.CSR[float32], error) {
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("negative shape %d×%d", rows, cols)
	}
	if len(indptr) != rows+1 {
		return nil, fmt.Errorf("row pointer has %d entries for %d rows", len(indptr), rows)
	}
	if len(data) != len(indices) {
		return nil, fmt.Errorf("%d values for %d column indices", len(data), len(indices))
	}
	if err := npzCheckIndptr(indptr, len(indices)); err != nil {
		return nil, err
	}
	for p, c := range indices {
		if c < 0 || int(c) >= cols {
			return nil, fmt.Errorf("entry %d has column %d, outside [0, %d)", p, c, cols)
		}
		if v := data[p]; math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			row := sort.Search(rows, func(r int) bool { return indptr[r+1] > int32(p) })
			return nil, fmt.Errorf("non-finite value %v at row %d, column %d", v, row, c)
		}
	}
	// Sort rows that need it, merge duplicates, compacting in place: the
	// write position never passes the read position.
	w := int32(0)
	for r := range rows {
		lo, hi := indptr[r], indptr[r+1]
		for p := lo + 1; p < hi; p++ {
			if indices[p] < indices[p-1] {
				sort.Sort(npzRow{indices[lo:hi], data[lo:hi]})
				break
			}
		}
		indptr[r] = w
		for p := lo; p < hi; p++ {
			if p > lo && w > indptr[r] && indices[w-1] == indices[p] {
				data[w-1] += data[p]
				continue
			}
			indices[w], data[w] = indices[p], data[p]
			w++
		}
	}
	indptr[rows] = w
	return &tensor.CSR[float32]{Rows: rows, Cols: cols, Indptr: indptr, Indices: indices[:w], Data: data[:w]}, nil
}

// npzRow sorts one CSR row's (index, value) pairs by index.
type npzRow struct {
	idx []int32
	val []float32
}

func (r npzRow) Len() int           { return len(r.idx) }
func (r npzRow) Less(i, j int) bool { return r.idx[i] < r.idx[j] }
func (r npzRow) Swap(i, j int) {
	r.idx[i], r.idx[j] = r.idx[j], r.idx[i]
	r.val[i], r.val[j] = r.val[j], r.val[i]
}

// npzDenseCSR keeps the non-zeros of a dense rows×cols matrix.
func npzDenseCSR(rows, cols int, vals []float32) (*tensor.CSR[float32], error) {
	m := &tensor.CSR[float32]{Rows: rows, Cols: cols, Indptr: make([]int32, rows+1)}
	nnz := 0
	for i, v := range vals {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("non-finite value %v at row %d, column %d", v, i/cols, i%cols)
		}
		if v != 0 {
			nnz++
		}
	}
	if nnz > math.MaxInt32 {
		return nil, fmt.Errorf("%d non-zeros exceed the int32 index range", nnz)
	}
	m.Indices = make([]int32, 0, nnz)
	m.Data = make([]float32, 0, nnz)
	for r := range rows {
		for c, v := range vals[r*cols : (r+1)*cols] {
			if v != 0 {
				m.Indices = append(m.Indices, int32(c))
				m.Data = append(m.Data, v)
			}
		}
		m.Indptr[r+1] = int32(len(m.Indices))
	}
	return m, nil
}

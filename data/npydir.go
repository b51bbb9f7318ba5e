package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/prcaps/prcaps/data/internal/npy"
	"github.com/prcaps/prcaps/internal/atomicfile"
	"github.com/prcaps/prcaps/internal/fileguard"
	"github.com/prcaps/prcaps/tensor"
)

// The files of the .npy CSR layout (LoadNPYDir), one array each.
const (
	NPYIndptr   = "indptr.npy"   // int32 or int64, nodes+1
	NPYIndices  = "indices.npy"  // int32 or int64, arcs: CSR by target
	NPYFeatures = "features.npy" // float32 (or any number), nodes × features
	NPYLabels   = "labels.npy"   // integers, nodes; −1: no label
	NPYTrain    = "train_mask.npy"
	NPYVal      = "val_mask.npy"
	NPYTest     = "test_mask.npy"
)

// NPYMaxFileBytes bounds each file of the .npy layout: it is meant for
// graphs past the text formats (10^8–10^9 arcs), so the bound is far above
// MaxFileBytes, still refusing a device or a runaway file.
const NPYMaxFileBytes = 1 << 40

// IsNPYDir reports whether dir holds the .npy CSR layout (its indptr.npy).
func IsNPYDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, NPYIndptr))
	return err == nil && st.Mode().IsRegular()
}

// LoadNPYDir loads a node dataset kept as .npy arrays in dir, the layout
// for graphs too large to parse from text: the in-neighbours of node v are
// indices[indptr[v]:indptr[v+1]] (CSR by target, each row sorted and
// without duplicates, as Graph stores them; an undirected graph stores
// both arcs), features.npy the dense node features, labels.npy the
// classes (−1 for none) and, optionally, the boolean masks train_mask.npy,
// val_mask.npy and test_mask.npy of a public split (all three or none).
// The graph is taken as it is: no symmetrisation, no self-loop removal.
//
// With mmap (on unix), each file is memory-mapped instead of read, and
// int32 indices and float32 features are used in place: loading costs no
// parse and no copy, and the operating system pages the arrays in as
// training reads them. Other dtypes are converted into memory.
//
// Every error is a *FileError naming the file.
func LoadNPYDir(dir, name string, mmap bool) (*NodeDataset, error) {
	read := func(file string) (*npy.Array, string, error) {
		p := filepath.Join(dir, file)
		b, err := readNPYFile(p, mmap)
		if err != nil {
			return nil, p, fileError(p, err)
		}
		a, err := npy.Parse(b)
		if err != nil {
			return nil, p, &FileError{File: p, Err: err}
		}
		return a, p, nil
	}
	ints := func(file string, wantLen int) ([]int32, error) {
		a, p, err := read(file)
		if err != nil {
			return nil, err
		}
		if len(a.Shape) != 1 || wantLen >= 0 && a.Shape[0] != wantLen {
			return nil, &FileError{File: p, Err: fmt.Errorf("shape %v, want (%d,)", a.Shape, wantLen)}
		}
		if v, ok := aliasInt32(a); ok {
			return v, nil
		}
		v, err := a.Int32s()
		if err != nil {
			return nil, &FileError{File: p, Err: err}
		}
		return v, nil
	}
	ptr, err := ints(NPYIndptr, -1)
	if err != nil {
		return nil, err
	}
	if len(ptr) < 1 {
		return nil, &FileError{File: filepath.Join(dir, NPYIndptr), Err: errors.New("empty: need nodes+1 entries")}
	}
	n := len(ptr) - 1
	src, err := ints(NPYIndices, int(ptr[n]))
	if err != nil {
		return nil, err
	}
	g := &Graph{N: n, Ptr: ptr, Src: src}
	if err := checkCSR(g); err != nil {
		return nil, &FileError{File: filepath.Join(dir, NPYIndices), Err: err}
	}
	fa, fp, err := read(NPYFeatures)
	if err != nil {
		return nil, err
	}
	if len(fa.Shape) != 2 || fa.Shape[0] != n {
		return nil, &FileError{File: fp, Err: fmt.Errorf("shape %v, want (%d, features)", fa.Shape, n)}
	}
	x, ok := aliasFloat32(fa)
	if !ok {
		if x, err = fa.Float32s(); err != nil {
			return nil, &FileError{File: fp, Err: err}
		}
	}
	y, err := ints(NPYLabels, n)
	if err != nil {
		return nil, err
	}
	ds := &NodeDataset{Name: name, Graph: g, X: Features{Dense: &tensor.Dense[float32]{Rows: n, Cols: fa.Shape[1], Data: x}}, Y: y}
	if ds.NumClasses, err = numClasses(y); err != nil {
		return nil, &FileError{File: filepath.Join(dir, NPYLabels), Err: err}
	}
	masks := [3][]int32{}
	present := 0
	for i, file := range []string{NPYTrain, NPYVal, NPYTest} {
		if _, err := os.Stat(filepath.Join(dir, file)); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		present++
		a, p, err := read(file)
		if err != nil {
			return nil, err
		}
		if len(a.Shape) != 1 || a.Shape[0] != n {
			return nil, &FileError{File: p, Err: fmt.Errorf("shape %v, want (%d,)", a.Shape, n)}
		}
		m, err := a.Int64s()
		if err != nil {
			return nil, &FileError{File: p, Err: err}
		}
		for v, on := range m {
			if on != 0 {
				masks[i] = append(masks[i], int32(v))
			}
		}
	}
	switch present {
	case 0:
	case 3:
		ds.Public = &Split{Train: masks[0], Val: masks[1], Test: masks[2]}
	default:
		return nil, &FileError{File: dir, Err: fmt.Errorf("has %d of the masks %s, %s, %s: give all three or none", present, NPYTrain, NPYVal, NPYTest)}
	}
	return ds, nil
}

// readNPYFile reads, or with mmap maps, the file at p under
// NPYMaxFileBytes. A file that cannot be mapped (a pipe, a platform
// without mmap) is read.
func readNPYFile(p string, mmap bool) ([]byte, error) {
	if mmap && canMap {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		if st.Mode().IsRegular() {
			if st.Size() > NPYMaxFileBytes {
				return nil, &fileguard.Error{Path: p, Err: &fileguard.LimitError{Limit: NPYMaxFileBytes}}
			}
			if b, err := mapFile(f, st.Size()); err == nil {
				return b, nil
			}
		}
	}
	return fileguard.ReadFile(p, NPYMaxFileBytes)
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// aliasInt32 returns a's int32 elements in place, where the dtype is
// little-endian int32 on a little-endian host and the data aligned.
func aliasInt32(a *npy.Array) ([]int32, bool) {
	if a.Kind != 'i' || a.ItemSize != 4 || !littleEndian || len(a.Data) == 0 || uintptr(unsafe.Pointer(&a.Data[0]))%4 != 0 {
		return nil, false
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&a.Data[0])), len(a.Data)/4), true
}

// aliasFloat32 is aliasInt32 for float32 elements.
func aliasFloat32(a *npy.Array) ([]float32, bool) {
	if a.Kind != 'f' || a.ItemSize != 4 || !littleEndian || len(a.Data) == 0 || uintptr(unsafe.Pointer(&a.Data[0]))%4 != 0 {
		return nil, false
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&a.Data[0])), len(a.Data)/4), true
}

// checkCSR checks Graph's invariants on g: a monotone Ptr from 0 to the
// arcs, sources in range, each row strictly increasing.
func checkCSR(g *Graph) error {
	if g.Ptr[0] != 0 {
		return fmt.Errorf("indptr[0] = %d, want 0", g.Ptr[0])
	}
	for v := 0; v < g.N; v++ {
		lo, hi := g.Ptr[v], g.Ptr[v+1]
		if hi < lo || int(hi) > len(g.Src) {
			return fmt.Errorf("indptr decreases or overruns at node %d (%d, %d)", v, lo, hi)
		}
		prev := int32(-1)
		for _, u := range g.Src[lo:hi] {
			if u < 0 || int(u) >= g.N {
				return fmt.Errorf("node %d has in-neighbour %d outside [0, %d)", v, u, g.N)
			}
			if u <= prev {
				return fmt.Errorf("node %d: in-neighbours not sorted and unique (%d after %d)", v, u, prev)
			}
			prev = u
		}
	}
	return nil
}

// numClasses is the largest label + 1; labels below −1 are refused.
func numClasses(y []int32) (int, error) {
	c := int32(-1)
	for v, l := range y {
		if l < -1 {
			return 0, fmt.Errorf("node %d has label %d (−1 marks no label)", v, l)
		}
		c = max(c, l)
	}
	if c < 1 {
		return 0, fmt.Errorf("labels name %d class(es): need at least two", c+1)
	}
	return int(c) + 1, nil
}

// SaveNPYDir writes ds in the .npy CSR layout of LoadNPYDir into dir
// (created if missing): int32 indices, float32 dense features, int32
// labels, and the masks of ds.Public if it has one. Each file is written
// whole or not at all (atomicfile).
func SaveNPYDir(dir string, ds *NodeDataset) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	g := ds.Graph
	n := g.N
	write := func(file, descr string, shape []int, raw []byte) error {
		return atomicfile.WriteFile(filepath.Join(dir, file), append(npyHeader(descr, shape), raw...))
	}
	i32 := func(v []int32) []byte {
		if len(v) == 0 {
			return nil
		}
		return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
	}
	if !littleEndian {
		return errors.New("data: SaveNPYDir writes little-endian arrays from a little-endian host only")
	}
	if err := write(NPYIndptr, "<i4", []int{n + 1}, i32(g.Ptr[:n+1])); err != nil {
		return err
	}
	if err := write(NPYIndices, "<i4", []int{len(g.Src)}, i32(g.Src)); err != nil {
		return err
	}
	var x *tensor.Dense[float32]
	if ds.X.Dense != nil {
		x = ds.X.Dense
	} else {
		x = ds.X.Sparse.ToDense()
	}
	var fb []byte
	if len(x.Data) > 0 {
		fb = unsafe.Slice((*byte)(unsafe.Pointer(&x.Data[0])), 4*len(x.Data))
	}
	if err := write(NPYFeatures, "<f4", []int{x.Rows, x.Cols}, fb); err != nil {
		return err
	}
	if err := write(NPYLabels, "<i4", []int{n}, i32(ds.Y)); err != nil {
		return err
	}
	if ds.Public != nil {
		for i, set := range [][]int32{ds.Public.Train, ds.Public.Val, ds.Public.Test} {
			m := make([]byte, n)
			for _, v := range set {
				m[v] = 1
			}
			if err := write([]string{NPYTrain, NPYVal, NPYTest}[i], "|b1", []int{n}, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// npyHeader is a version 1.0 .npy header for a C-order array, padded so
// the data starts at a multiple of 64 bytes.
func npyHeader(descr string, shape []int) []byte {
	s := "("
	for i, d := range shape {
		s += fmt.Sprint(d)
		if i == 0 || i < len(shape)-1 {
			s += ","
		}
		if i < len(shape)-1 {
			s += " "
		}
	}
	s += ")"
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, s)
	pad := 64 - (10+len(h)+1)%64
	if pad == 64 {
		pad = 0
	}
	for range pad {
		h += " "
	}
	h += "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(h)))
	return append(b, h...)
}

package data

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/prcaps/prcaps/data/internal/pickle"
	"github.com/prcaps/prcaps/tensor"
)

// PlanetoidURL is the canonical location of the Planetoid files; a file
// ind.<name>.<part> is at PlanetoidURL + "ind.<name>.<part>".
const PlanetoidURL = "https://github.com/kimiyoung/planetoid/raw/master/data/"

// planetoidValSize is the size of the public validation set (Kipf & Welling).
const planetoidValSize = 500

// planetoidKnown are the datasets published at PlanetoidURL.
var planetoidKnown = map[string]bool{"cora": true, "citeseer": true, "pubmed": true}

// LoadPlanetoid loads the Planetoid dataset name (cora, citeseer, pubmed, or
// any set in the same format) from the files ind.<name>.{x,y,tx,ty,allx,ally,
// graph,test.index} at the root of src.
//
// The assembly is that of Kipf's load_data and PyG's Planetoid: features are
// allx stacked over tx with tx row k placed at node test.index[k]; labels are
// the one-hot rows of ally and ty placed the same way. Ids in the test range
// that test.index leaves out (15 in CiteSeer) become nodes with no features
// and label -1; they are in no split. The graph is symmetrised, deduplicated
// and stripped of self-loops. Features stay sparse, as float32 CSR with
// sorted, unique column indices. The public split is train = 0..len(y)-1,
// val = the next 500 nodes, test = test.index in ascending order.
//
// Every error is a *FileError naming the offending file; a missing file
// wraps ErrMissing and says where to download it.
func LoadPlanetoid(src Source, name string) (*NodeDataset, error) {
	name = strings.ToLower(name)
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return nil, fmt.Errorf("planetoid: invalid dataset name %q", name)
	}
	file := func(part string) string { return "ind." + name + "." + part }
	read := func(part string) ([]byte, error) {
		b, err := src.ReadFile(file(part))
		if err != nil && errors.Is(err, ErrMissing) && planetoidKnown[name] {
			return nil, &FileError{File: src.Path(file(part)), Err: fmt.Errorf(
				"%w; download it from %s%s or run `prcaps datasets download %s`",
				ErrMissing, PlanetoidURL, file(part), name)}
		}
		return b, err
	}
	ferr := func(part string, err error) error { return &FileError{File: src.Path(file(part)), Err: err} }

	feats := map[string]*tensor.CSR[float32]{}
	labels := map[string][]int32{}
	classes := map[string]int{}
	// Parts in the order that reports a missing PubMed allx after checking
	// the files that are present.
	for _, part := range []string{"x", "y", "tx", "ty", "allx", "ally"} {
		b, err := read(part)
		if err != nil {
			return nil, err
		}
		v, err := pickle.Decode(b)
		if err != nil {
			return nil, ferr(part, err)
		}
		if part == "x" || part == "tx" || part == "allx" {
			m, err := planetoidFeatures(v)
			if err != nil {
				return nil, ferr(part, err)
			}
			feats[part] = m
		} else {
			y, c, err := planetoidOneHot(v)
			if err != nil {
				return nil, ferr(part, err)
			}
			labels[part], classes[part] = y, c
		}
	}
	x, tx, allx := feats["x"], feats["tx"], feats["allx"]
	y, ty, ally := labels["y"], labels["ty"], labels["ally"]

	// Shapes must agree across files.
	if x.Cols != allx.Cols {
		return nil, ferr("x", fmt.Errorf("%d feature columns, but %s has %d", x.Cols, file("allx"), allx.Cols))
	}
	if tx.Cols != allx.Cols {
		return nil, ferr("tx", fmt.Errorf("%d feature columns, but %s has %d", tx.Cols, file("allx"), allx.Cols))
	}
	if classes["y"] != classes["ally"] {
		return nil, ferr("y", fmt.Errorf("%d classes, but %s has %d", classes["y"], file("ally"), classes["ally"]))
	}
	if classes["ty"] != classes["ally"] {
		return nil, ferr("ty", fmt.Errorf("%d classes, but %s has %d", classes["ty"], file("ally"), classes["ally"]))
	}
	if len(y) != x.Rows {
		return nil, ferr("y", fmt.Errorf("%d rows, but %s has %d", len(y), file("x"), x.Rows))
	}
	if len(ally) != allx.Rows {
		return nil, ferr("ally", fmt.Errorf("%d rows, but %s has %d", len(ally), file("allx"), allx.Rows))
	}
	if len(ty) != tx.Rows {
		return nil, ferr("ty", fmt.Errorf("%d rows, but %s has %d", len(ty), file("tx"), tx.Rows))
	}
	na := allx.Rows
	// x/y are the labelled head of allx/ally; the public split takes its
	// training labels from ally, so a disagreement means corrupt files.
	if len(y)+planetoidValSize > na {
		return nil, ferr("allx", fmt.Errorf("%d rows, fewer than the %d training + %d validation nodes of the public split",
			na, len(y), planetoidValSize))
	}
	for i, c := range y {
		if ally[i] != c {
			return nil, ferr("y", fmt.Errorf("row %d has label %d but row %d of %s has label %d", i, c, i, file("ally"), ally[i]))
		}
	}

	b, err := read("test.index")
	if err != nil {
		return nil, err
	}
	test, err := planetoidTestIndex(b)
	if err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			fe.File = src.Path(file("test.index"))
			return nil, fe
		}
		return nil, ferr("test.index", err)
	}
	if len(test) != tx.Rows {
		return nil, ferr("test.index", fmt.Errorf("%d entries, but %s has %d rows", len(test), file("tx"), tx.Rows))
	}
	n := na
	if len(test) > 0 {
		lo, hi := slices.Min(test), slices.Max(test)
		if int(lo) < na {
			return nil, ferr("test.index", fmt.Errorf("test node %d is below %d, the number of rows of %s", lo, na, file("allx")))
		}
		n = max(n, int(hi)+1)
		// Ids in the test range with no tx row (CiteSeer has 15) become empty
		// placeholder nodes; bounding them keeps a corrupt index from
		// allocating gigabytes.
		if gap := n - na - len(test); gap > len(test) {
			return nil, ferr("test.index", fmt.Errorf("test ids span %d..%d but there are only %d test rows: %d ids would have no data",
				na, hi, len(test), gap))
		}
	}

	g, err := planetoidGraph(src, file("graph"), read, n)
	if err != nil {
		return nil, err
	}

	ds := &NodeDataset{Name: name, Graph: g, NumClasses: classes["ally"]}
	ds.X.Sparse = planetoidAssemble(n, allx, tx, test)
	ds.Y = make([]int32, n)
	for i := range ds.Y {
		ds.Y[i] = -1
	}
	copy(ds.Y, ally)
	for k, v := range test {
		ds.Y[v] = ty[k]
	}
	sp := &Split{Train: make([]int32, len(y)), Val: make([]int32, planetoidValSize), Test: slices.Clone(test)}
	for i := range sp.Train {
		sp.Train[i] = int32(i)
	}
	for i := range sp.Val {
		sp.Val[i] = int32(len(y) + i)
	}
	slices.Sort(sp.Test)
	ds.Public = sp
	return ds, nil
}

// planetoidFeatures converts a pickled csr_matrix into canonical CSR.
func planetoidFeatures(v pickle.Value) (*tensor.CSR[float32], error) {
	m, err := pickle.AsCSR(v)
	if err != nil {
		return nil, err
	}
	return npzCanonicalCSR(m.Rows, m.Cols, m.Indptr, m.Indices, m.Data)
}

// planetoidOneHot converts a pickled 2-D one-hot integer array into labels.
func planetoidOneHot(v pickle.Value) ([]int32, int, error) {
	a, ok := v.(*pickle.Array)
	if !ok {
		return nil, 0, fmt.Errorf("got a %s, want a numpy.ndarray of one-hot labels", pickle.TypeName(v))
	}
	if len(a.Shape) != 2 {
		return nil, 0, fmt.Errorf("label array has shape %v, want 2-D (rows × classes)", a.Shape)
	}
	rows, c := a.Shape[0], a.Shape[1]
	if c < 1 && rows > 0 {
		return nil, 0, fmt.Errorf("label array has %d rows but no class columns", rows)
	}
	vals, err := a.Int32s()
	if err != nil {
		return nil, 0, err
	}
	out := make([]int32, rows)
	for r := range rows {
		row := vals[r*c : (r+1)*c]
		label := int32(-1)
		for j, x := range row {
			switch x {
			case 0:
			case 1:
				if label >= 0 {
					return nil, 0, fmt.Errorf("label row %d is not one-hot: classes %d and %d are both set", r, label, j)
				}
				label = int32(j)
			default:
				return nil, 0, fmt.Errorf("label row %d, column %d holds %d; one-hot rows hold only 0 and 1", r, j, x)
			}
		}
		if label < 0 {
			return nil, 0, fmt.Errorf("label row %d is all zeros (no class)", r)
		}
		out[r] = label
	}
	return out, c, nil
}

// planetoidTestIndex parses test.index: one non-negative integer per line.
// Errors with a line number are *FileErrors whose File the caller fills in.
func planetoidTestIndex(b []byte) ([]int32, error) {
	var out []int32
	seen := map[int32]int{}
	line := 0
	for len(b) > 0 {
		line++
		var s []byte
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			s, b = b[:i], b[i+1:]
		} else {
			s, b = b, nil
		}
		t := strings.TrimSpace(string(s))
		v, err := strconv.ParseInt(t, 10, 32)
		if err != nil || v < 0 {
			return nil, &FileError{Line: line, Err: fmt.Errorf("%q is not a node id (a non-negative integer)", tuQuote([]byte(t)))}
		}
		if prev, dup := seen[int32(v)]; dup {
			return nil, &FileError{Line: line, Err: fmt.Errorf("node %d repeats line %d", v, prev)}
		}
		seen[int32(v)] = line
		out = append(out, int32(v))
	}
	return out, nil
}

// planetoidGraph reads the defaultdict adjacency lists into a Graph on n nodes.
func planetoidGraph(src Source, file string, read func(string) ([]byte, error), n int) (*Graph, error) {
	ferr := func(err error) error { return &FileError{File: src.Path(file), Err: err} }
	b, err := read("graph")
	if err != nil {
		return nil, err
	}
	v, err := pickle.Decode(b)
	if err != nil {
		return nil, ferr(err)
	}
	var d *pickle.Dict
	switch v := v.(type) {
	case *pickle.DefaultDict:
		d = v.Dict
	case *pickle.Dict:
		d = v
	default:
		return nil, ferr(fmt.Errorf("got a %s, want a dict of adjacency lists", pickle.TypeName(v)))
	}
	total := 0
	for i, lv := range d.Values {
		l, ok := lv.(*pickle.List)
		if !ok {
			return nil, ferr(fmt.Errorf("adjacency of key %v is a %s, want a list", d.Keys[i], pickle.TypeName(lv)))
		}
		total += len(l.Items)
	}
	src32 := make([]int32, 0, total)
	dst32 := make([]int32, 0, total)
	node := func(x pickle.Value, what string, key pickle.Value) (int32, error) {
		u, ok := x.(int64)
		if !ok {
			return 0, fmt.Errorf("%s of key %v is a %s, want an int", what, key, pickle.TypeName(x))
		}
		if u < 0 || u >= int64(n) {
			return 0, fmt.Errorf("%s %d of key %v is not a node: the dataset has nodes 0..%d", what, u, key, n-1)
		}
		return int32(u), nil
	}
	for i, k := range d.Keys {
		u, err := node(k, "node id", k)
		if err != nil {
			return nil, ferr(err)
		}
		for _, x := range d.Values[i].(*pickle.List).Items {
			w, err := node(x, "neighbour", k)
			if err != nil {
				return nil, ferr(err)
			}
			src32 = append(src32, u)
			dst32 = append(dst32, w)
		}
	}
	g, err := NewGraph(n, src32, dst32, EdgeOptions{Symmetrize: true, RemoveSelfLoops: true})
	if err != nil {
		return nil, ferr(err)
	}
	return g, nil
}

// planetoidAssemble stacks allx and tx into n rows, tx row k going to node
// test[k]; other rows stay empty.
func planetoidAssemble(n int, allx, tx *tensor.CSR[float32], test []int32) *tensor.CSR[float32] {
	out := &tensor.CSR[float32]{Rows: n, Cols: allx.Cols, Indptr: make([]int32, n+1)}
	txRow := make([]int32, n) // node → tx row + 1, 0 if none
	for k, v := range test {
		txRow[v] = int32(k) + 1
	}
	rowOf := func(r int) (*tensor.CSR[float32], int) {
		if r < allx.Rows {
			return allx, r
		}
		if k := txRow[r]; k > 0 {
			return tx, int(k - 1)
		}
		return nil, 0
	}
	for r := range n {
		cnt := int32(0)
		if m, i := rowOf(r); m != nil {
			cnt = m.Indptr[i+1] - m.Indptr[i]
		}
		out.Indptr[r+1] = out.Indptr[r] + cnt
	}
	nnz := out.Indptr[n]
	out.Indices = make([]int32, nnz)
	out.Data = make([]float32, nnz)
	for r := range n {
		if m, i := rowOf(r); m != nil {
			lo, hi := m.Indptr[i], m.Indptr[i+1]
			copy(out.Indices[out.Indptr[r]:], m.Indices[lo:hi])
			copy(out.Data[out.Indptr[r]:], m.Data[lo:hi])
		}
	}
	return out
}

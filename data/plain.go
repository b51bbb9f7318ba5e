package data

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/prcaps/prcaps/tensor"
)

// LoadPlainDataset is LoadPlain as a Dataset of the node task, read from
// the edges file (From): what train and predict take where Load gives a
// named dataset.
func LoadPlainDataset(edges, features, labels string) (*Dataset, error) {
	nd, err := LoadPlain(edges, features, labels)
	if err != nil {
		return nil, err
	}
	return &Dataset{Name: nd.Name, Task: NodeTask, Node: nd, From: edges}, nil
}

// LoadPlain reads a user's own node-classification graph from plain text
// files: an edge list, optional node features and node labels.
//
// All three files: one record per line, LF or CRLF line ends. A line that
// contains a comma is split at commas (spaces around a field are dropped);
// any other line is split at runs of ASCII white space (spaces, tabs) — so CSV and TSV both
// work. '#' starts a comment that runs to the end of the line; blank and
// comment-only lines are skipped. The first record of a file is a header,
// and is skipped, if its first field is not an integer (e.g. "src,dst" or
// "id,label"). Node ids are decimal integers 0..N−1, where N is one more
// than the largest id in any of the files; an id that appears nowhere is an
// isolated, unlabelled node. Ids must be roughly dense: an id more than
// 16×(number of records)+1024 is rejected as a likely typo.
//
// edges (required): "src,dst" per record; further fields (a weight, say) are
// ignored. The graph is undirected: each edge is stored in both directions,
// repeated edges are merged and self-loops dropped (the Planetoid
// convention). An empty edge list is allowed.
//
// features (optional; "" for none): "id,f1,f2,...,fd" per record, the same
// d ≥ 1 on every record, values decimal floating-point numbers, finite in
// float32. Every node 0..N−1 must have exactly one record. They are stored
// dense (X.Dense). Without a features file every node gets one constant
// feature equal to 1, so that a model learns from the structure alone.
//
// labels ("" for none: every node unlabelled, for prediction with a trained
// model): "id,label" per record, at most one record per node;
// nodes without a record are unlabelled (Y = −1) and are left out of every
// split. If every label is an integer, it must be ≥ 0 and is the class
// itself (NumClasses = largest label + 1). Otherwise every label is taken as
// a string and the classes are the distinct strings sorted byte-wise: class
// c is the c-th of them. A labels file must label at least one node.
//
// The dataset's Name is the base name of the edges file without its
// extension. Every error wraps a *FileError naming the file and, where the
// problem is on one line, the line.
func LoadPlain(edges, features, labels string) (*NodeDataset, error) {
	read := func(p string) (plainFile, error) {
		b, err := readPath(p)
		if err != nil {
			return plainFile{}, err
		}
		return plainFile{path: p, data: trimBOM(b)}, nil
	}
	if edges == "" {
		return nil, errors.New("plain dataset: an edges file is required")
	}
	ef, err := read(edges)
	if err != nil {
		return nil, err
	}
	var lf plainFile // none: every node unlabelled (for prediction)
	if labels != "" {
		if lf, err = read(labels); err != nil {
			return nil, err
		}
	}
	var ff *plainFile
	if features != "" {
		f, err := read(features)
		if err != nil {
			return nil, err
		}
		ff = &f
	}
	name := strings.TrimSuffix(filepath.Base(edges), filepath.Ext(edges))
	return plainParse(name, ef, ff, lf)
}

// plainFile is one input file: its display path and contents.
type plainFile struct {
	path string
	data []byte
}

// plainRecord is one non-blank, non-comment line split into fields.
type plainRecord struct {
	line   int
	fields [][]byte
}

// plainRecords splits f into records, dropping comments, blank lines and a
// header. The field slices alias f.data.
func plainRecords(f plainFile) []plainRecord {
	var recs []plainRecord
	lineNo := 0
	data := f.data
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		lineNo++
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = tuTrim(line)
		if len(line) == 0 {
			continue
		}
		var fields [][]byte
		if bytes.IndexByte(line, ',') >= 0 {
			for fld := range bytes.SplitSeq(line, []byte{','}) {
				fields = append(fields, tuTrim(fld))
			}
		} else {
			// ASCII white space only, matching tuTrim: a line that is not
			// blank then always has a first field.
			fields = bytes.FieldsFunc(line, func(r rune) bool { return r < 0x80 && tuIsSpace(byte(r)) })
		}
		if len(fields) == 0 {
			continue
		}
		recs = append(recs, plainRecord{line: lineNo, fields: fields})
	}
	if len(recs) > 0 {
		if _, ok := plainInt(recs[0].fields[0]); !ok {
			recs = recs[1:] // header
		}
	}
	return recs
}

// plainInt parses a decimal integer with an optional sign.
func plainInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	return v, err == nil
}

// plainID parses field i of rec as a node id.
func plainID(f plainFile, rec plainRecord, i int, what string) (int32, error) {
	if i >= len(rec.fields) {
		return 0, fileErrorf(f.path, rec.line, "%d fields, want at least %d", len(rec.fields), i+1)
	}
	v, ok := plainInt(rec.fields[i])
	if !ok {
		return 0, fileErrorf(f.path, rec.line, "%s %q is not an integer node id", what, tuQuote(rec.fields[i]))
	}
	if v < 0 || v >= math.MaxInt32 {
		return 0, fileErrorf(f.path, rec.line, "%s %d is outside 0..%d", what, v, math.MaxInt32-1)
	}
	return int32(v), nil
}

func plainParse(name string, ef plainFile, ff *plainFile, lf plainFile) (*NodeDataset, error) {
	maxID := int32(-1)
	records := 0
	type where struct {
		file plainFile
		line int
	}
	var maxAt where
	note := func(id int32, f plainFile, line int) {
		if id > maxID {
			maxID, maxAt = id, where{f, line}
		}
	}

	erecs := plainRecords(ef)
	records += len(erecs)
	src := make([]int32, len(erecs))
	dst := make([]int32, len(erecs))
	for i, rec := range erecs {
		u, err := plainID(ef, rec, 0, "source")
		if err != nil {
			return nil, err
		}
		v, err := plainID(ef, rec, 1, "target")
		if err != nil {
			return nil, err
		}
		src[i], dst[i] = u, v
		note(max(u, v), ef, rec.line)
	}

	lrecs := plainRecords(lf)
	records += len(lrecs)
	if len(lrecs) == 0 && lf.path != "" {
		return nil, fileErrorf(lf.path, 0, "no labels: at least one node must be labelled")
	}
	lids := make([]int32, len(lrecs))
	for i, rec := range lrecs {
		id, err := plainID(lf, rec, 0, "node id")
		if err != nil {
			return nil, err
		}
		if len(rec.fields) != 2 {
			return nil, fileErrorf(lf.path, rec.line, "%d fields, want 2 (id,label)", len(rec.fields))
		}
		if len(rec.fields[1]) == 0 {
			return nil, fileErrorf(lf.path, rec.line, "empty label")
		}
		lids[i] = id
		note(id, lf, rec.line)
	}

	var frecs []plainRecord
	if ff != nil {
		frecs = plainRecords(*ff)
		records += len(frecs)
		for _, rec := range frecs {
			id, err := plainID(*ff, rec, 0, "node id")
			if err != nil {
				return nil, err
			}
			note(id, *ff, rec.line)
		}
	}

	if maxID < 0 {
		return nil, fileErrorf(ef.path, 0, "no nodes in any file")
	}
	if int64(maxID) > 16*int64(records)+1024 {
		return nil, fileErrorf(maxAt.file.path, maxAt.line,
			"node id %d is far beyond the %d records: ids must be 0..N-1 without large gaps", maxID, records)
	}
	n := int(maxID) + 1

	g, err := NewGraph(n, src, dst, EdgeOptions{Symmetrize: true, RemoveSelfLoops: true})
	if err != nil {
		return nil, fileErrorf(ef.path, 0, "%v", err) // unreachable: ids were checked
	}

	y, numClasses, err := plainLabels(lf, lrecs, lids, n)
	if err != nil {
		return nil, err
	}

	var x *tensor.Dense[float32]
	if ff != nil {
		x, err = plainFeatures(*ff, frecs, n)
		if err != nil {
			return nil, err
		}
	} else {
		x = &tensor.Dense[float32]{Rows: n, Cols: 1, Data: make([]float32, n)}
		for i := range x.Data {
			x.Data[i] = 1
		}
	}
	return &NodeDataset{Name: name, Graph: g, X: Features{Dense: x}, Y: y, NumClasses: numClasses}, nil
}

func plainLabels(f plainFile, recs []plainRecord, ids []int32, n int) ([]int32, int, error) {
	y := make([]int32, n)
	for i := range y {
		y[i] = -1
	}
	seenAt := make(map[int32]int, len(recs))
	allInt := true
	for i, rec := range recs {
		if prev, dup := seenAt[ids[i]]; dup {
			return nil, 0, fileErrorf(f.path, rec.line, "node %d already labelled on line %d", ids[i], prev)
		}
		seenAt[ids[i]] = rec.line
		if _, ok := plainInt(rec.fields[1]); !ok {
			allInt = false
		}
	}
	if allInt {
		maxC := int64(-1)
		for i, rec := range recs {
			c, _ := plainInt(rec.fields[1])
			if c < 0 {
				return nil, 0, fileErrorf(f.path, rec.line,
					"label %d is negative (leave unlabelled nodes out of the file)", c)
			}
			if c >= math.MaxInt32 {
				return nil, 0, fileErrorf(f.path, rec.line, "label %d is too large", c)
			}
			if c > 16*int64(len(recs))+1024 {
				return nil, 0, fileErrorf(f.path, rec.line,
					"label %d is far beyond the %d labelled nodes: classes must be 0..C-1", c, len(recs))
			}
			y[ids[i]] = int32(c)
			maxC = max(maxC, c)
		}
		return y, int(maxC) + 1, nil
	}
	names := make([]string, 0, len(recs))
	for _, rec := range recs {
		names = append(names, string(rec.fields[1]))
	}
	classes := slices.Clone(names)
	slices.Sort(classes)
	classes = slices.Compact(classes)
	for i, s := range names {
		c, _ := slices.BinarySearch(classes, s)
		y[ids[i]] = int32(c)
	}
	return y, len(classes), nil
}

func plainFeatures(f plainFile, recs []plainRecord, n int) (*tensor.Dense[float32], error) {
	if len(recs) == 0 {
		return nil, fileErrorf(f.path, 0, "no feature records")
	}
	d := len(recs[0].fields) - 1
	if d < 1 {
		return nil, fileErrorf(f.path, recs[0].line, "no feature values after the node id")
	}
	if int64(n)*int64(d) > math.MaxInt32*4 {
		return nil, fileErrorf(f.path, 0, "%d nodes × %d features is too large", n, d)
	}
	x := tensor.NewDense[float32](n, d)
	seenAt := make([]int32, n) // line of each node's record, 0 if none yet
	for _, rec := range recs {
		if len(rec.fields)-1 != d {
			return nil, fileErrorf(f.path, rec.line, "%d features, but line %d has %d", len(rec.fields)-1, recs[0].line, d)
		}
		id, _ := plainInt(rec.fields[0]) // checked by plainID already
		if prev := seenAt[id]; prev != 0 {
			return nil, fileErrorf(f.path, rec.line, "node %d already has features on line %d", id, prev)
		}
		seenAt[id] = int32(rec.line)
		row := x.Row(int(id))
		for j, fld := range rec.fields[1:] {
			v, err := strconv.ParseFloat(string(fld), 32)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return nil, fileErrorf(f.path, rec.line, "feature %d: %q is not a number", j+1, tuQuote(fld))
			}
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fileErrorf(f.path, rec.line, "feature %d: %q is not a finite float32", j+1, tuQuote(fld))
			}
			row[j] = float32(v)
		}
	}
	for id, line := range seenAt {
		if line == 0 {
			return nil, fileErrorf(f.path, 0, "node %d has no feature record (every node 0..%d needs one)", id, n-1)
		}
	}
	return x, nil
}

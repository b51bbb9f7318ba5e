package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/prcaps/prcaps/internal/fileguard"
	"github.com/prcaps/prcaps/tensor"
)

// The files of OGB's node-property raw layout (LoadOGB), as the
// datasets' zip archives unpack.
const (
	OGBEdges    = "raw/edge.csv.gz"       // "src,dst" per line
	OGBFeatures = "raw/node-feat.csv.gz"  // one row of floats per node
	OGBLabels   = "raw/node-label.csv.gz" // one class per node ("nan": none)
	OGBNodes    = "raw/num-node-list.csv.gz"
)

// ogbMaxText bounds the decompressed text of one OGB file (ogbn-products'
// features are about 2.5 GB of text; papers100M's far more).
const ogbMaxText = 1 << 37

// IsOGBDir reports whether dir holds OGB's raw layout (its edge file).
func IsOGBDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(OGBEdges)))
	return err == nil && st.Mode().IsRegular()
}

// LoadOGB loads an OGB node-property prediction dataset (ogbn-arxiv,
// ogbn-products, ...) from its raw layout in dir: raw/edge.csv.gz,
// raw/node-feat.csv.gz, raw/node-label.csv.gz, optionally
// raw/num-node-list.csv.gz, and the split split/<split>/{train,valid,
// test}.csv.gz (node ids, one per line), which becomes the dataset's public
// split. split "" takes the only directory under split/. As OGB's own
// GNN examples do (to_symmetric), the graph is symmetrised; duplicates and
// self-loops are dropped as for the npz datasets.
//
// Every error is a *FileError naming the file (and line).
func LoadOGB(dir, name, split string) (*NodeDataset, error) {
	path := func(f string) string { return filepath.Join(dir, filepath.FromSlash(f)) }
	feats, cols, n, err := ogbFloatRows(path(OGBFeatures))
	if err != nil {
		return nil, err
	}
	if p := path(OGBNodes); fileExists(p) {
		v, err := ogbInts(p, 1)
		if err != nil {
			return nil, err
		}
		if len(v) != 1 || int(v[0]) != n {
			return nil, fileErrorf(p, 0, "says %v nodes; %s has %d rows", v, OGBFeatures, n)
		}
	}
	ends, err := ogbInts(path(OGBEdges), 2)
	if err != nil {
		return nil, err
	}
	src, dst := make([]int32, len(ends)/2), make([]int32, len(ends)/2)
	for i := range src {
		src[i], dst[i] = ends[2*i], ends[2*i+1]
	}
	ends = nil
	g, err := NewGraph(n, src, dst, EdgeOptions{Symmetrize: true, RemoveSelfLoops: true})
	if err != nil {
		return nil, &FileError{File: path(OGBEdges), Err: err}
	}
	y, err := ogbInts(path(OGBLabels), 1)
	if err != nil {
		return nil, err
	}
	if len(y) != n {
		return nil, fileErrorf(path(OGBLabels), 0, "%d labels for %d nodes", len(y), n)
	}
	ds := &NodeDataset{Name: name, Graph: g, X: Features{Dense: &tensor.Dense[float32]{Rows: n, Cols: cols, Data: feats}}, Y: y}
	if ds.NumClasses, err = numClasses(y); err != nil {
		return nil, &FileError{File: path(OGBLabels), Err: err}
	}
	if split == "" {
		entries, err := os.ReadDir(path("split"))
		if err != nil {
			return nil, fileError(path("split"), err)
		}
		var dirs []string
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, e.Name())
			}
		}
		if len(dirs) != 1 {
			return nil, fileErrorf(path("split"), 0, "holds the splits %v: need exactly one", dirs)
		}
		split = dirs[0]
	}
	var sets [3][]int32
	for i, f := range []string{"train", "valid", "test"} {
		p := path("split/" + split + "/" + f + ".csv.gz")
		if sets[i], err = ogbInts(p, 1); err != nil {
			return nil, err
		}
		for _, v := range sets[i] {
			if v < 0 || int(v) >= n {
				return nil, fileErrorf(p, 0, "node %d outside [0, %d)", v, n)
			}
		}
	}
	ds.Public = &Split{Train: sets[0], Val: sets[1], Test: sets[2]}
	return ds, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// ogbLines calls row for every line of the gzipped text file p (without
// its line end), numbered from 1, reading at most MaxFileBytes compressed
// and ogbMaxText decompressed bytes.
func ogbLines(p string, row func(line int, b []byte) error) error {
	f, err := fileguard.Open(p, MaxFileBytes)
	if err != nil {
		return fileError(p, err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return &FileError{File: p, Err: fmt.Errorf("not gzip: %w", err)}
	}
	lim := &io.LimitedReader{R: z, N: ogbMaxText + 1}
	r := bufio.NewReaderSize(lim, 1<<20)
	var long []byte
	for line := 1; ; line++ {
		b, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) { // a line longer than the buffer
			long = append(long[:0], b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = r.ReadSlice('\n')
				long = append(long, b...)
			}
			b = long
		}
		if lim.N <= 0 {
			return &FileError{File: p, Err: fmt.Errorf("more than %d bytes of text", int64(ogbMaxText))}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fileError(p, err)
		}
		b = bytes.TrimRight(b, "\r\n")
		if line == 1 {
			b = trimBOM(b)
		}
		if len(b) > 0 {
			if e := row(line, b); e != nil {
				return &FileError{File: p, Line: line, Err: e}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
}

// ogbInts reads a gzipped CSV of integers, width per line; a label file's
// "nan" (no label) reads as −1, and integral floats ("3.0") as integers.
func ogbInts(p string, width int) ([]int32, error) {
	var out []int32
	err := ogbLines(p, func(_ int, b []byte) error {
		k := 0
		for f := range bytes.SplitSeq(b, []byte(",")) {
			if k++; k > width {
				return fmt.Errorf("more than %d values", width)
			}
			s := string(bytes.TrimSpace(f))
			v, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				x, ferr := strconv.ParseFloat(s, 64)
				switch {
				case ferr == nil && math.IsNaN(x):
					v = -1
				case ferr == nil && x == math.Trunc(x) && x >= math.MinInt32 && x <= math.MaxInt32:
					v = int64(x)
				default:
					return fmt.Errorf("%q is not an integer", s)
				}
			}
			out = append(out, int32(v))
		}
		if k != width {
			return fmt.Errorf("%d values, want %d", k, width)
		}
		return nil
	})
	return out, err
}

// ogbFloatRows reads a gzipped CSV of float rows of one width.
func ogbFloatRows(p string) (data []float32, cols, rows int, err error) {
	err = ogbLines(p, func(_ int, b []byte) error {
		k := 0
		for f := range bytes.SplitSeq(b, []byte(",")) {
			x, err := strconv.ParseFloat(string(bytes.TrimSpace(f)), 32)
			if err != nil {
				return fmt.Errorf("%q is not a number", f)
			}
			data = append(data, float32(x))
			k++
		}
		if rows == 0 {
			cols = k
		} else if k != cols {
			return fmt.Errorf("%d values, the first row has %d", k, cols)
		}
		rows++
		return nil
	})
	return data, cols, rows, err
}

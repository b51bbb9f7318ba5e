package data

import (
	"fmt"
	"math"
	"slices"

	"github.com/prcaps/prcaps/tensor"
)

// Node feature encodings of graph datasets (NodeEncoding.Kind).
const (
	EncodeLabels = "labels" // one-hot node labels, one block per label column
	EncodeDegree = "degree" // one-hot in-degree, for sets without node labels
)

// NodeEncoding says how a graph dataset's node features are built from a
// node's raw labels, in-degree and attributes. LoadTU records the one it
// derives from the files; a trained model keeps it, so that the graphs it
// is later asked about get the same columns (TUOptions.Encoding, Encode).
type NodeEncoding struct {
	Kind string `json:"kind"` // EncodeLabels or EncodeDegree
	// Blocks are the one-hot blocks of the label columns, in order.
	Blocks []LabelBlock `json:"blocks,omitempty"`
	// Degrees is the number of in-degree columns (0 … Degrees−1).
	Degrees int `json:"degrees,omitempty"`
	// Attributes is the number of attribute columns appended after the
	// one-hot columns (the features are then dense).
	Attributes int `json:"attributes,omitempty"`
}

// LabelBlock is the one-hot block of one label column: the labels
// Lo … Lo+Width−1 in that order, or, when Values is set (a range too
// wide to spell out), the listed values in that order.
type LabelBlock struct {
	Lo     int64   `json:"lo,omitempty"`
	Width  int     `json:"width"`
	Values []int64 `json:"values,omitempty"`
}

// column is the block's column of label x, or false when x has none.
func (b LabelBlock) column(x int64) (int32, bool) {
	if b.Values != nil {
		i, ok := slices.BinarySearch(b.Values, x)
		return int32(i), ok
	}
	if x < b.Lo || x-b.Lo >= int64(b.Width) {
		return 0, false
	}
	return int32(x - b.Lo), true
}

// Width is the number of feature columns the encoding makes.
func (e NodeEncoding) Width() int {
	w := e.Attributes
	if e.Kind == EncodeDegree {
		return w + e.Degrees
	}
	for _, b := range e.Blocks {
		w += b.Width
	}
	return w
}

// LabelColumns is the number of raw label columns the encoding reads per
// node (0 for the degree encoding).
func (e NodeEncoding) LabelColumns() int {
	if e.Kind == EncodeDegree {
		return 0
	}
	return len(e.Blocks)
}

// Validate reports an encoding that cannot encode anything.
func (e NodeEncoding) Validate() error {
	switch {
	case e.Kind != EncodeLabels && e.Kind != EncodeDegree:
		return fmt.Errorf("node encoding %q: want %s or %s", e.Kind, EncodeLabels, EncodeDegree)
	case e.Kind == EncodeDegree && e.Degrees < 1:
		return fmt.Errorf("degree encoding with %d columns", e.Degrees)
	case e.Kind == EncodeLabels && len(e.Blocks) == 0:
		return fmt.Errorf("label encoding without blocks")
	case e.Attributes < 0:
		return fmt.Errorf("%d attribute columns", e.Attributes)
	}
	for i, b := range e.Blocks {
		if b.Width < 1 || (b.Values != nil && (len(b.Values) != b.Width || !slices.IsSorted(b.Values))) {
			return fmt.Errorf("label block %d: width %d, %d values (sorted: %v)", i, b.Width, len(b.Values), slices.IsSorted(b.Values))
		}
	}
	return nil
}

// deriveBlocks returns the label blocks of n nodes' labels vals (ncol per
// node): per column the values from the smallest to the largest, as PyG's
// read_tu_data does, or the distinct values when that range is over
// 4n+1024 wide.
func deriveBlocks(vals []int64, ncol, n int) []LabelBlock {
	blocks := make([]LabelBlock, ncol)
	for c := range blocks {
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for v := 0; v < n; v++ {
			x := vals[v*ncol+c]
			lo, hi = min(lo, x), max(hi, x)
		}
		if hi-lo >= 0 && hi-lo < int64(4*n+1024) {
			blocks[c] = LabelBlock{Lo: lo, Width: int(hi-lo) + 1}
			continue
		}
		uniq := make([]int64, n)
		for v := 0; v < n; v++ {
			uniq[v] = vals[v*ncol+c]
		}
		slices.Sort(uniq)
		uniq = slices.Compact(uniq)
		blocks[c] = LabelBlock{Width: len(uniq), Values: slices.Clip(uniq)}
	}
	return blocks
}

// labelColumns writes into idx[row(v)*ncol+c] the feature column of node
// v's label in column c; the error names the first label without one, with
// nodes numbered from base.
func (e NodeEncoding) labelColumns(vals []int64, n, base int, row func(int) int, idx []int32) error {
	ncol := len(e.Blocks)
	for c, b := range e.Blocks {
		first := int32(0)
		for _, p := range e.Blocks[:c] {
			first += int32(p.Width)
		}
		for v := 0; v < n; v++ {
			x := vals[v*ncol+c]
			col, ok := b.column(x)
			if !ok {
				return fmt.Errorf("node %d has label %d in column %d, which the encoding does not know (%s)", v+base, x, c+1, b)
			}
			idx[row(v)*ncol+c] = first + col
		}
	}
	return nil
}

func (b LabelBlock) String() string {
	if b.Values != nil {
		return fmt.Sprintf("%d distinct values", len(b.Values))
	}
	return fmt.Sprintf("labels %d..%d", b.Lo, b.Lo+int64(b.Width)-1)
}

// degreeColumns writes each node's in-degree into idx, checking that the
// encoding has a column for it (nodes numbered from base in the error).
func (e NodeEncoding) degreeColumns(g *Graph, base int, idx []int32) error {
	for v := 0; v < g.N; v++ {
		d := g.InDegree(v)
		if d >= e.Degrees {
			return fmt.Errorf("node %d has in-degree %d; the encoding covers 0..%d", v+base, d, e.Degrees-1)
		}
		idx[v] = int32(d)
	}
	return nil
}

// Encode builds the node features of graph g: labels holds each node's raw
// labels (g.N × LabelColumns(), row-major; nil for the degree encoding),
// attrs its attributes (g.N × Attributes; nil when there are none). A
// label or degree the encoding has no column for is an error naming the
// node (0-based).
func (e NodeEncoding) Encode(g *Graph, labels []int64, attrs []float32) (Features, error) {
	if err := e.Validate(); err != nil {
		return Features{}, err
	}
	n, per := g.N, max(e.LabelColumns(), 1)
	switch {
	case len(labels) != n*e.LabelColumns():
		return Features{}, fmt.Errorf("%d node labels for %d nodes with %d label columns", len(labels), n, e.LabelColumns())
	case len(attrs) != n*e.Attributes:
		return Features{}, fmt.Errorf("%d attribute values for %d nodes with %d attribute columns", len(attrs), n, e.Attributes)
	}
	idx := make([]int32, n*per)
	var err error
	if e.Kind == EncodeDegree {
		err = e.degreeColumns(g, 0, idx)
	} else {
		err = e.labelColumns(labels, n, 0, func(v int) int { return v }, idx)
	}
	if err != nil {
		return Features{}, err
	}
	oneHot := e.Width() - e.Attributes
	if e.Attributes > 0 {
		for _, a := range attrs {
			if math.IsNaN(float64(a)) || math.IsInf(float64(a), 0) {
				return Features{}, fmt.Errorf("attribute %v is not finite", a)
			}
		}
		d := tensor.NewDense[float32](n, e.Width())
		for v := 0; v < n; v++ {
			row := d.Data[v*d.Cols : (v+1)*d.Cols]
			for _, c := range idx[v*per : (v+1)*per] {
				row[c] = 1
			}
			copy(row[oneHot:], attrs[v*e.Attributes:(v+1)*e.Attributes])
		}
		return Features{Dense: d}, nil
	}
	x := &tensor.CSR[float32]{Rows: n, Cols: oneHot, Indptr: make([]int32, n+1), Indices: idx, Data: make([]float32, len(idx))}
	for v := 0; v <= n; v++ {
		x.Indptr[v] = int32(v * per)
	}
	for i := range x.Data {
		x.Data[i] = 1
	}
	return Features{Sparse: x}, nil
}

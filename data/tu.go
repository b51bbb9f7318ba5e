package data

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/prcaps/prcaps/tensor"
)

// TUOptions choose how LoadTU builds node features.
type TUOptions struct {
	// NodeAttr appends the columns of <NAME>_node_attributes.txt, when the
	// dataset has that file, to the one-hot features (PyG's use_node_attr).
	// The features are then dense; without it they are a sparse one-hot.
	NodeAttr bool
	// Encoding, if non-nil, builds the node features with this encoding (a
	// trained model's) instead of deriving one from the files: a label or
	// degree it has no column for is an error, and the attribute columns
	// must match its Attributes (which need NodeAttr).
	Encoding *NodeEncoding
}

// LoadTU reads the TU Dortmund graph-kernel dataset name (e.g. "MUTAG") from
// the root of src: the files <name>_A.txt, <name>_graph_indicator.txt and
// <name>_graph_labels.txt are required, <name>_node_labels.txt and
// <name>_node_attributes.txt are used when present, and any other file (edge
// labels, README) is ignored.
//
// Files are lines of comma-separated numbers, with or without spaces, LF or
// CRLF line ends; blank lines are allowed only at the end. Line i of the node
// files describes global node i (1-based); line "u, v" of the A file is the
// arc u→v. Nodes are split into one GraphSample per graph with local ids that
// keep the global order. The nodes of a graph need not be contiguous in the
// indicator file.
//
// Arcs are kept as listed (TU files list both directions of an undirected
// edge), repeated lines are merged, self-loops are kept. Node features are a
// one-hot encoding of the node labels, one block per label column, whose
// columns are the label values from the smallest to the largest, as in PyG
// (so DD, with 82 distinct labels in 1..89, gets 89 columns; a label range
// too wide for that, over 4·nodes+1024 values, falls back to one column per
// distinct value). A dataset without node labels
// gets one-hot in-degree features with max-degree+1 columns, as GIN does.
// With opt.NodeAttr the attribute columns are appended and the features are
// dense. Graph labels are mapped to 0..C-1 in ascending order of their value;
// ClassNames holds the original values (MUTAG: "-1", "1").
//
// Every problem with the input — a missing file, a token that is not a
// number, a node id out of range, an edge between two graphs, a graph without
// nodes, a file with the wrong number of lines, a NaN or infinite attribute —
// is returned as an error wrapping a *FileError that names the file and, when
// the problem is on one line, the line.
func LoadTU(src Source, name string, opt TUOptions) (*GraphDataset, error) {
	if name == "" || strings.ContainsAny(name, "/\\") {
		return nil, fmt.Errorf("TU dataset name %q: want a bare name such as MUTAG", name)
	}
	ds, err := tuLoad(src, name, opt)
	if err != nil {
		return nil, fmt.Errorf("TU dataset %s: %w", name, err)
	}
	return ds, nil
}

// tuFile is one input file: its display path and contents.
type tuFile struct {
	path string
	data []byte
}

func tuRead(src Source, name, suffix string, required bool) (tuFile, bool, error) {
	fname := name + "_" + suffix + ".txt"
	if !required && !src.Exists(fname) {
		return tuFile{}, false, nil
	}
	b, err := src.ReadFile(fname)
	if err != nil {
		return tuFile{}, false, err
	}
	return tuFile{path: src.Path(fname), data: trimBOM(b)}, true, nil
}

func tuLoad(src Source, name string, opt TUOptions) (*GraphDataset, error) {
	// Read every file first, so that a missing required file is reported
	// before any parse error in another.
	aFile, _, err := tuRead(src, name, "A", true)
	if err != nil {
		return nil, err
	}
	indFile, _, err := tuRead(src, name, "graph_indicator", true)
	if err != nil {
		return nil, err
	}
	glFile, _, err := tuRead(src, name, "graph_labels", true)
	if err != nil {
		return nil, err
	}
	nlFile, hasNL, err := tuRead(src, name, "node_labels", false)
	if err != nil {
		return nil, err
	}
	var attrFile tuFile
	hasAttr := false
	if opt.NodeAttr || (opt.Encoding != nil && opt.Encoding.Attributes > 0) {
		attrFile, hasAttr, err = tuRead(src, name, "node_attributes", false)
		if err != nil {
			return nil, err
		}
	}

	// Graph labels: one integer per line; their count defines the graphs.
	glab, _, err := tuReadIntColumns(glFile, 1)
	if err != nil {
		return nil, err
	}
	numGraphs := len(glab)
	if numGraphs == 0 {
		return nil, fileErrorf(glFile.path, 0, "no graphs: the file has no lines")
	}
	if numGraphs > math.MaxInt32 {
		return nil, fileErrorf(glFile.path, 0, "%d graphs is more than this loader supports", numGraphs)
	}

	// Graph indicator: the 1-based graph of each node.
	part, err := tuPartition(indFile, glFile.path, numGraphs)
	if err != nil {
		return nil, err
	}
	n := len(part.graph)

	g, err := tuParseArcs(aFile, part)
	if err != nil {
		return nil, err
	}

	// One-hot block: node labels, or degrees when there are none.
	var enc NodeEncoding
	if opt.Encoding != nil {
		enc = *opt.Encoding
		enc.Blocks = slices.Clone(enc.Blocks)
		if err := enc.Validate(); err != nil {
			return nil, err
		}
	} else if hasNL {
		enc.Kind = EncodeLabels
	} else {
		enc.Kind = EncodeDegree
	}
	var oh tuOneHot
	switch {
	case enc.Kind == EncodeLabels && !hasNL:
		return nil, fileErrorf(nlFile.path, 0, "missing: the encoding is one-hot node labels")
	case enc.Kind == EncodeLabels:
		oh, err = tuLabelOneHot(nlFile, part, &enc)
	default:
		oh, err = tuDegreeOneHot(g, &enc)
		if err != nil {
			err = fileErrorf(aFile.path, 0, "%v", err)
		}
	}
	if err != nil {
		return nil, err
	}

	var attrs []float32
	attrCols := 0
	if hasAttr {
		attrs, attrCols, err = tuReadAttributes(attrFile, n)
		if err != nil {
			return nil, err
		}
	}
	if opt.Encoding != nil && attrCols != enc.Attributes {
		return nil, fileErrorf(name+"_node_attributes.txt", 0, "%d attribute columns; the encoding has %d", attrCols, enc.Attributes)
	}
	enc.Attributes = attrCols

	classes, classOf := tuRemapLabels(glab)
	ds := &GraphDataset{
		Name:        name,
		Graphs:      make([]GraphSample, numGraphs),
		NumClasses:  len(classes),
		NumFeatures: oh.cols + attrCols,
		ClassNames:  make([]string, len(classes)),
		Encoding:    enc,
	}
	for c, v := range classes {
		ds.ClassNames[c] = strconv.FormatInt(v, 10)
	}
	tuAssemble(ds, g, part, oh, attrs, attrCols, classOf)
	return ds, nil
}

// tuParts is the node partition given by the graph indicator. Nodes are
// renumbered so that each graph's nodes are contiguous, in graph order, and
// in global order within a graph; for a sorted indicator (every real TU set)
// the renumbering is the identity.
type tuParts struct {
	path   string  // display path of the indicator file, for messages
	graph  []int32 // 0-based graph of each global node (0-based)
	pos    []int32 // renumbered id of each global node
	start  []int32 // graph g holds renumbered nodes start[g]..start[g+1]-1
	sorted bool    // pos is the identity
}

func tuPartition(f tuFile, labelsPath string, numGraphs int) (*tuParts, error) {
	p := &tuParts{path: f.path, start: make([]int32, numGraphs+1), sorted: true}
	p.graph = make([]int32, 0, bytes.Count(f.data, []byte{'\n'})+1)
	sc := tuScanner{data: f.data}
	var buf [1]int64
	prev := int32(0)
	for {
		line, ok := sc.next()
		if !ok {
			break
		}
		if err := tuParseLine(line, buf[:], 1, f.path, sc.line); err != nil {
			return nil, err
		}
		v := buf[0]
		if v < 1 || v > int64(numGraphs) {
			return nil, fileErrorf(f.path, sc.line, "graph id %d outside 1..%d (%s has %d lines)",
				v, numGraphs, tuBase(labelsPath), numGraphs)
		}
		if len(p.graph) == math.MaxInt32-1 {
			return nil, fileErrorf(f.path, sc.line, "more nodes than this loader supports")
		}
		gi := int32(v - 1)
		if gi < prev {
			p.sorted = false
		}
		prev = gi
		p.graph = append(p.graph, gi)
		p.start[gi+1]++
	}
	for gi := 0; gi < numGraphs; gi++ {
		if p.start[gi+1] == 0 {
			return nil, fileErrorf(labelsPath, gi+1, "graph %d has no nodes (no line of %s names it)",
				gi+1, tuBase(f.path))
		}
		p.start[gi+1] += p.start[gi]
	}
	if !p.sorted {
		// Counting sort by graph, stable in global order.
		next := slices.Clone(p.start[:numGraphs])
		p.pos = make([]int32, len(p.graph))
		for v, gi := range p.graph {
			p.pos[v] = next[gi]
			next[gi]++
		}
	}
	return p, nil
}

// renum returns the renumbered id of global node v.
func (p *tuParts) renum(v int32) int32 {
	if p.sorted {
		return v
	}
	return p.pos[v]
}

// tuParseArcs reads the A file into one block-diagonal Graph over the
// renumbered nodes.
func tuParseArcs(f tuFile, p *tuParts) (*Graph, error) {
	n := len(p.graph)
	lines := bytes.Count(f.data, []byte{'\n'}) + 1
	src := make([]int32, 0, lines)
	dst := make([]int32, 0, lines)
	ptr := make([]int32, n+1)
	sc := tuScanner{data: f.data}
	var buf [2]int64
	for {
		line, ok := sc.next()
		if !ok {
			break
		}
		if err := tuParseLine(line, buf[:], 2, f.path, sc.line); err != nil {
			return nil, err
		}
		u, v := buf[0], buf[1]
		for _, x := range [2]int64{u, v} {
			if x < 1 || x > int64(n) {
				return nil, fileErrorf(f.path, sc.line, "node %d does not exist (the graph indicator has %d nodes)", x, n)
			}
		}
		gu, gv := p.graph[u-1], p.graph[v-1]
		if gu != gv {
			return nil, fileErrorf(f.path, sc.line, "edge %d→%d joins graph %d and graph %d", u, v, gu+1, gv+1)
		}
		if len(src) == math.MaxInt32 {
			return nil, fileErrorf(f.path, sc.line, "more edges than this loader supports")
		}
		s, d := p.renum(int32(u-1)), p.renum(int32(v-1))
		src = append(src, s)
		dst = append(dst, d)
		ptr[d+1]++
	}
	for i := 0; i < n; i++ {
		ptr[i+1] += ptr[i]
	}
	// Bucket the sources by target (counting sort).
	cur := slices.Clone(ptr[:n])
	out := make([]int32, len(src))
	for i, s := range src {
		d := dst[i]
		out[cur[d]] = s
		cur[d]++
	}
	// Sort each target's sources and merge repeats, compacting in place.
	w := int32(0)
	lo := int32(0)
	for v := 0; v < n; v++ {
		hi := ptr[v+1]
		row := out[lo:hi]
		if !slices.IsSorted(row) {
			slices.Sort(row)
		}
		start := w
		for i, s := range row {
			if i > 0 && s == row[i-1] {
				continue
			}
			out[w] = s
			w++
		}
		ptr[v] = start
		lo = hi
	}
	ptr[n] = w
	return &Graph{N: n, Ptr: ptr, Src: out[:w:w]}, nil
}

// tuOneHot is a one-hot block: node v (renumbered) has ones in columns
// idx[v*per : (v+1)*per], ascending.
type tuOneHot struct {
	cols int
	per  int
	idx  []int32
}

func tuLabelOneHot(f tuFile, p *tuParts, enc *NodeEncoding) (tuOneHot, error) {
	vals, ncol, err := tuReadIntColumns(f, 0)
	if err != nil {
		return tuOneHot{}, err
	}
	n := len(p.graph)
	if rows := tuRows(vals, ncol); rows != n {
		return tuOneHot{}, tuCountError(f, rows, n, p.path)
	}
	if enc.Blocks == nil {
		enc.Blocks = deriveBlocks(vals, ncol, n)
	} else if ncol != len(enc.Blocks) {
		return tuOneHot{}, fileErrorf(f.path, 0, "%d label columns; the encoding has %d", ncol, len(enc.Blocks))
	}
	oh := tuOneHot{cols: enc.Width() - enc.Attributes, per: ncol, idx: make([]int32, len(vals))}
	if err := enc.labelColumns(vals, n, 1, func(v int) int { return int(p.renum(int32(v))) }, oh.idx); err != nil {
		return tuOneHot{}, fileErrorf(f.path, 0, "%v", err)
	}
	return oh, nil
}

// tuDegreeOneHot encodes each node's in-degree (distinct in-neighbours, a
// self-loop counting once), the GIN convention for TU sets without labels,
// with enc.Degrees columns (max-degree+1 when it is 0).
func tuDegreeOneHot(g *Graph, enc *NodeEncoding) (tuOneHot, error) {
	if enc.Degrees == 0 {
		for v := 0; v < g.N; v++ {
			enc.Degrees = max(enc.Degrees, g.InDegree(v)+1)
		}
	}
	oh := tuOneHot{per: 1, cols: enc.Degrees, idx: make([]int32, g.N)}
	return oh, enc.degreeColumns(g, 1, oh.idx)
}

// tuReadAttributes reads one row of comma-separated floats per node.
func tuReadAttributes(f tuFile, n int) ([]float32, int, error) {
	out := make([]float32, 0, n)
	ncol := -1
	rows := 0
	sc := tuScanner{data: f.data}
	for {
		line, ok := sc.next()
		if !ok {
			break
		}
		if len(line) == 0 {
			return nil, 0, fileErrorf(f.path, sc.line, "blank line before the end of the file")
		}
		cols := 0
		for field := range bytes.SplitSeq(line, []byte{','}) {
			tok := tuTrim(field)
			x, err := strconv.ParseFloat(string(tok), 32)
			if err != nil {
				if errors.Is(err, strconv.ErrRange) {
					return nil, 0, fileErrorf(f.path, sc.line, "attribute %q overflows float32", tuQuote(tok))
				}
				return nil, 0, fileErrorf(f.path, sc.line, "attribute %q is not a number", tuQuote(tok))
			}
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, 0, fileErrorf(f.path, sc.line, "attribute %q is not finite", tuQuote(tok))
			}
			out = append(out, float32(x))
			cols++
		}
		if ncol < 0 {
			ncol = cols
		} else if cols != ncol {
			return nil, 0, fileErrorf(f.path, sc.line, "%d columns, but line 1 has %d", cols, ncol)
		}
		rows++
	}
	if rows != n {
		return nil, 0, fileErrorf(f.path, 0, "%d lines, want one per node: %d", rows, n)
	}
	return out, ncol, nil
}

// tuRemapLabels returns the sorted distinct labels and the class of each graph.
func tuRemapLabels(glab []int64) ([]int64, []int32) {
	classes := slices.Clone(glab)
	slices.Sort(classes)
	classes = slices.Compact(classes)
	classOf := make([]int32, len(glab))
	for i, v := range glab {
		c, _ := slices.BinarySearch(classes, v)
		classOf[i] = int32(c)
	}
	return classes, classOf
}

// tuAssemble cuts the block-diagonal graph and the features into one
// GraphSample per graph. The per-graph slices share a few large backing
// arrays (fewer allocations for thousands of small graphs); each is capped
// at its own length, so an append to one graph's slice cannot overwrite the
// next graph's data.
func tuAssemble(ds *GraphDataset, g *Graph, p *tuParts, oh tuOneHot, attrs []float32, attrCols int, classOf []int32) {
	numGraphs := len(classOf)
	n := g.N
	// Localise sources: the renumbered id minus the graph's first node.
	for gi := 0; gi < numGraphs; gi++ {
		s, e := p.start[gi], p.start[gi+1]
		for i := g.Ptr[s]; i < g.Ptr[e]; i++ {
			g.Src[i] -= s
		}
	}
	ptrAll := make([]int32, n+numGraphs)
	headers := make([]Graph, numGraphs)
	dense := attrCols > 0
	var (
		xIndptr []int32
		xData   []float32
		csrs    []tensor.CSR[float32]
		denses  []tensor.Dense[float32]
	)
	dcols := oh.cols + attrCols
	if dense {
		xData = make([]float32, n*dcols)
		for v := 0; v < n; v++ {
			row := xData[v*dcols : (v+1)*dcols]
			for _, c := range oh.idx[v*oh.per : (v+1)*oh.per] {
				row[c] = 1
			}
		}
		// attrs rows are in global order; place them at renumbered rows.
		for v := 0; v < n; v++ {
			r := int(p.renum(int32(v)))
			copy(xData[r*dcols+oh.cols:(r+1)*dcols], attrs[v*attrCols:(v+1)*attrCols])
		}
		denses = make([]tensor.Dense[float32], numGraphs)
	} else {
		xIndptr = make([]int32, n+numGraphs)
		xData = make([]float32, len(oh.idx))
		for i := range xData {
			xData[i] = 1
		}
		csrs = make([]tensor.CSR[float32], numGraphs)
	}
	for gi := 0; gi < numGraphs; gi++ {
		s, e := int(p.start[gi]), int(p.start[gi+1])
		ng := e - s
		ptr := ptrAll[s+gi : e+gi+1 : e+gi+1]
		base := g.Ptr[s]
		for i := range ptr {
			ptr[i] = g.Ptr[s+i] - base
		}
		end := g.Ptr[e]
		headers[gi] = Graph{N: ng, Ptr: ptr, Src: g.Src[base:end:end]}
		sample := GraphSample{Graph: &headers[gi], Label: classOf[gi]}
		if dense {
			denses[gi] = tensor.Dense[float32]{Rows: ng, Cols: dcols, Data: xData[s*dcols : e*dcols : e*dcols]}
			sample.X.Dense = &denses[gi]
		} else {
			ip := xIndptr[s+gi : e+gi+1 : e+gi+1]
			for i := range ip {
				ip[i] = int32(i * oh.per)
			}
			lo, hi := s*oh.per, e*oh.per
			csrs[gi] = tensor.CSR[float32]{Rows: ng, Cols: oh.cols, Indptr: ip,
				Indices: oh.idx[lo:hi:hi], Data: xData[lo:hi:hi]}
			sample.X.Sparse = &csrs[gi]
		}
		ds.Graphs[gi] = sample
	}
}

// tuReadIntColumns parses a file of comma-separated integers, every line
// with the same number of columns (want, or any if want is 0), and returns
// the values row by row and the column count.
func tuReadIntColumns(f tuFile, want int) ([]int64, int, error) {
	vals := make([]int64, 0, bytes.Count(f.data, []byte{'\n'})+1)
	sc := tuScanner{data: f.data}
	ncol := want
	var buf [64]int64
	for {
		line, ok := sc.next()
		if !ok {
			break
		}
		if ncol == 0 {
			k, err := tuParseInts(line, buf[:])
			if err != nil {
				return nil, 0, fileErrorf(f.path, sc.line, "%v", err)
			}
			ncol = k
			vals = append(vals, buf[:k]...)
			continue
		}
		if err := tuParseLine(line, buf[:ncol], ncol, f.path, sc.line); err != nil {
			return nil, 0, err
		}
		vals = append(vals, buf[:ncol]...)
	}
	if ncol == 0 {
		ncol = 1
	}
	return vals, ncol, nil
}

func tuRows(vals []int64, ncol int) int { return len(vals) / ncol }

func tuCountError(f tuFile, rows, n int, indicator string) error {
	return fileErrorf(f.path, 0, "%d lines, want one per node: %d (the number of lines of %s)", rows, n, tuBase(indicator))
}

// tuParseLine parses exactly want integers from line into out.
func tuParseLine(line []byte, out []int64, want int, path string, lineNo int) error {
	k, err := tuParseInts(line, out[:want])
	if err != nil {
		return fileErrorf(path, lineNo, "%v", err)
	}
	if k != want {
		return fileErrorf(path, lineNo, "%d values, want %d", k, want)
	}
	return nil
}

var errTUBlank = errors.New("blank line before the end of the file")

// tuParseInts parses comma-separated decimal integers (optional sign, spaces
// or tabs around each) into out and returns how many there were. It is the
// hot loop of the loader (DD: 1.7M lines), hence hand-written.
func tuParseInts(line []byte, out []int64) (int, error) {
	if len(line) == 0 {
		return 0, errTUBlank
	}
	n := 0
	i := 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		start := i
		neg := false
		if i < len(line) && (line[i] == '-' || line[i] == '+') {
			neg = line[i] == '-'
			i++
		}
		digits := i
		var v int64
		for i < len(line) && line[i] >= '0' && line[i] <= '9' {
			if v > (math.MaxInt64-9)/10 {
				return n, fmt.Errorf("%q is too large", tuQuote(tuField(line, start)))
			}
			v = v*10 + int64(line[i]-'0')
			i++
		}
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == digits || (i < len(line) && line[i] != ',') {
			return n, fmt.Errorf("%q is not an integer", tuQuote(tuField(line, start)))
		}
		if n == len(out) {
			return n, fmt.Errorf("more than %d values", len(out))
		}
		if neg {
			v = -v
		}
		out[n] = v
		n++
		if i == len(line) {
			return n, nil
		}
		i++ // the comma
	}
}

// tuField returns the field of line starting at i, up to the next comma.
func tuField(line []byte, i int) []byte {
	j := bytes.IndexByte(line[i:], ',')
	if j < 0 {
		return tuTrim(line[i:])
	}
	return tuTrim(line[i : i+j])
}

// tuQuote shortens a token for an error message.
func tuQuote(b []byte) string {
	const maxLen = 40
	if len(b) > maxLen {
		return string(b[:maxLen]) + "…"
	}
	return string(b)
}

func tuBase(path string) string {
	if i := strings.LastIndexAny(path, "/\\"); i >= 0 {
		return path[i+1:]
	}
	return path
}

func tuIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

func tuTrim(b []byte) []byte {
	for len(b) > 0 && tuIsSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && tuIsSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// tuScanner yields the lines of a text file, trimmed of surrounding white
// space and of a CR before the LF. Blank lines at the end of the file end
// the scan; a blank line followed by more data is returned empty, so that
// the caller reports it (a skipped line would shift every later node id).
type tuScanner struct {
	data []byte
	off  int
	line int // 1-based number of the line last returned
}

func (s *tuScanner) next() ([]byte, bool) {
	if s.off >= len(s.data) {
		return nil, false
	}
	rest := s.data[s.off:]
	var line []byte
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		line = rest[:i]
		s.off += i + 1
	} else {
		line = rest
		s.off = len(s.data)
	}
	s.line++
	line = tuTrim(line)
	if len(line) == 0 && len(tuTrim(s.data[s.off:])) == 0 {
		s.off = len(s.data)
		return nil, false
	}
	return line, true
}

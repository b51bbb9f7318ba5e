package data

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"
)

// A minimal pickle encoder for the tests: it writes the same opcode layout as
// Python 2's cPickle for scipy CSR matrices, numpy arrays and
// defaultdict(list) graphs, so synthetic Planetoid files can be generated in
// code instead of checked in as blobs.
type pkEnc struct {
	b       []byte
	memo    int
	globals map[string]int // memo index of each GLOBAL written
	dtypes  map[string]int // memo index of each numpy.dtype object built
}

// newPkEnc starts a protocol-2 stream; like cPickle, memo indices start at 1.
func newPkEnc() *pkEnc {
	return &pkEnc{b: []byte{0x80, 2}, memo: 1, globals: map[string]int{}, dtypes: map[string]int{}}
}

func (e *pkEnc) op(b ...byte) { e.b = append(e.b, b...) }

// put memoises the top of the stack, as cPickle does after most values.
func (e *pkEnc) put() {
	if e.memo < 256 {
		e.op('q', byte(e.memo))
	} else {
		e.op('r')
		e.b = binary.LittleEndian.AppendUint32(e.b, uint32(e.memo))
	}
	e.memo++
}

func (e *pkEnc) get(i int) {
	if i < 256 {
		e.op('h', byte(i))
	} else {
		e.op('j')
		e.b = binary.LittleEndian.AppendUint32(e.b, uint32(i))
	}
}

func (e *pkEnc) int(v int) {
	switch {
	case v >= 0 && v < 256:
		e.op('K', byte(v))
	case v >= 0 && v < 65536:
		e.op('M')
		e.b = binary.LittleEndian.AppendUint16(e.b, uint16(v))
	default:
		e.op('J')
		e.b = binary.LittleEndian.AppendUint32(e.b, uint32(int32(v)))
	}
}

func (e *pkEnc) str(s []byte) {
	if len(s) < 256 {
		e.op('U', byte(len(s)))
	} else {
		e.op('T')
		e.b = binary.LittleEndian.AppendUint32(e.b, uint32(len(s)))
	}
	e.op(s...)
}

// global pushes module.name, re-using the memo for repeats.
func (e *pkEnc) global(mod, name string) {
	k := mod + "\n" + name + "\n"
	if i, ok := e.globals[k]; ok {
		e.get(i)
		return
	}
	e.op('c')
	e.op([]byte(k)...)
	e.globals[k] = e.memo
	e.put()
}

func (e *pkEnc) tuple(items ...func()) {
	switch len(items) {
	case 0:
		e.op(')')
		return
	case 1, 2, 3:
		for _, f := range items {
			f()
		}
		e.op(0x85 + byte(len(items)-1))
	default:
		e.op('(')
		for _, f := range items {
			f()
		}
		e.op('t')
	}
}

// ndarray writes _reconstruct(ndarray, (0,), 'b') and its BUILD state.
func (e *pkEnc) ndarray(code string, shape []int, raw []byte) {
	e.global("numpy.core.multiarray", "_reconstruct")
	e.global("numpy", "ndarray")
	e.tuple(func() { e.int(0) })
	e.str([]byte("b"))
	e.op(0x87, 'R')
	e.put()
	e.op('(')
	e.int(1)
	dims := make([]func(), len(shape))
	for i, d := range shape {
		dims[i] = func() { e.int(d) }
	}
	e.tuple(dims...)
	if i, ok := e.dtypes[code]; ok {
		e.get(i) // cPickle shares one dtype object between arrays
	} else {
		e.global("numpy", "dtype")
		e.str([]byte(code))
		e.int(0)
		e.int(1)
		e.op(0x87, 'R')
		e.dtypes[code] = e.memo
		e.put()
		e.op('(')
		e.int(3)
		e.str([]byte("<"))
		e.op('N', 'N', 'N')
		e.int(-1)
		e.int(-1)
		e.int(0)
		e.op('t', 'b')
	}
	e.op(0x89)
	e.str(raw)
	e.op('t', 'b')
}

func (e *pkEnc) stop() []byte { return append(e.b, '.') }

func pkI32(v []int32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

func pkF32(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// pkCSR pickles a scipy.sparse.csr_matrix.
func pkCSR(rows, cols int, indptr, indices []int32, data []float32) []byte {
	e := newPkEnc()
	e.global("scipy.sparse.csr", "csr_matrix")
	e.op(')', 0x81)
	e.put()
	e.op('}')
	e.put()
	e.op('(')
	key := func(s string) { e.str([]byte(s)); e.put() }
	key("format")
	e.str([]byte("csr"))
	key("_shape")
	e.int(rows)
	e.int(cols)
	e.op(0x86)
	key("indptr")
	e.ndarray("i4", []int{len(indptr)}, pkI32(indptr))
	key("indices")
	e.ndarray("i4", []int{len(indices)}, pkI32(indices))
	key("maxprint")
	e.int(50)
	key("_cs_matrix__has_sorted_indices")
	e.op(0x88)
	key("data")
	e.ndarray("f4", []int{len(data)}, pkF32(data))
	e.op('u', 'b')
	return e.stop()
}

// pkMatrix pickles a 2-D i4 array given row-major.
func pkMatrix(rows, cols int, vals []int32) []byte {
	e := newPkEnc()
	e.ndarray("i4", []int{rows, cols}, pkI32(vals))
	return e.stop()
}

// pkOneHot pickles labels as a one-hot i4 matrix.
func pkOneHot(labels []int32, classes int) []byte {
	vals := make([]int32, len(labels)*classes)
	for i, c := range labels {
		vals[i*classes+int(c)] = 1
	}
	return pkMatrix(len(labels), classes, vals)
}

// pkGraph pickles adj as defaultdict(list) with keys 0..len(adj)-1, in
// SETITEMS batches of 1000 like cPickle.
func pkGraph(adj [][]int) []byte {
	e := newPkEnc()
	e.global("collections", "defaultdict")
	e.global("__builtin__", "list")
	e.op(0x85, 'R')
	e.put()
	for lo := 0; lo < len(adj); lo += 1000 {
		e.op('(')
		for k := lo; k < min(lo+1000, len(adj)); k++ {
			e.int(k)
			e.op(']')
			e.put()
			switch l := adj[k]; len(l) {
			case 0:
			case 1:
				e.int(l[0])
				e.op('a')
			default:
				e.op('(')
				for _, v := range l {
					e.int(v)
				}
				e.op('e')
			}
		}
		e.op('u')
	}
	return e.stop()
}

// pkSynth describes a synthetic Planetoid set and what loading it must give.
type pkSynth struct {
	files   map[string][]byte // part → contents
	n       int
	classes int
	cols    int
	y       []int32   // expected label per node (-1 for placeholders)
	rows    [][]int32 // expected sorted feature columns per node
	test    []int32   // test.index order
	train   int
	arcs    map[[2]int32]bool // expected symmetric arcs, no self-loops
}

// pkSynthesize builds a Planetoid-format dataset with nTrain training rows,
// nAll allx rows, nTest test rows whose ids span nTest+gap ids (gap ids are
// placeholders), cols features and classes classes. The graph has
// duplicates and self-loops.
func pkSynthesize(seed uint64, nTrain, nAll, nTest, gap, cols, classes int) *pkSynth {
	r := rand.New(rand.NewPCG(seed, 7))
	ids := r.Perm(nTest + gap)
	var test []int32
	n := nAll
	for _, id := range ids[:nTest] {
		test = append(test, int32(nAll+id))
		n = max(n, nAll+id+1) // placeholders past the last test id are not nodes
	}
	s := &pkSynth{files: map[string][]byte{}, n: n, classes: classes, cols: cols, train: nTrain,
		y: make([]int32, n), rows: make([][]int32, n), arcs: map[[2]int32]bool{}, test: test}
	for i := range s.y {
		s.y[i] = -1
	}
	randRows := func(m int) (indptr, indices []int32, data []float32, labels []int32, rows [][]int32) {
		indptr = []int32{0}
		for range m {
			var row []int32
			for c := range cols {
				if r.IntN(4) == 0 {
					row = append(row, int32(c))
					indices = append(indices, int32(c))
					data = append(data, float32(1+r.IntN(3))/2)
				}
			}
			rows = append(rows, row)
			indptr = append(indptr, int32(len(indices)))
			labels = append(labels, int32(r.IntN(classes)))
		}
		return
	}
	ap, ai, ad, al, arows := randRows(nAll)
	tp, ti, td, tl, trows := randRows(nTest)
	for i := range nAll {
		s.y[i], s.rows[i] = al[i], arows[i]
	}
	for k, v := range s.test {
		s.y[v], s.rows[v] = tl[k], trows[k]
	}
	nx := int(ap[nTrain])
	s.files["x"] = pkCSR(nTrain, cols, ap[:nTrain+1], ai[:nx], ad[:nx])
	s.files["y"] = pkOneHot(al[:nTrain], classes)
	s.files["allx"] = pkCSR(nAll, cols, ap, ai, ad)
	s.files["ally"] = pkOneHot(al, classes)
	s.files["tx"] = pkCSR(nTest, cols, tp, ti, td)
	s.files["ty"] = pkOneHot(tl, classes)
	var ti2 strings.Builder
	for _, v := range s.test {
		fmt.Fprintf(&ti2, "%d\n", v)
	}
	s.files["test.index"] = []byte(ti2.String())
	adj := make([][]int, n)
	for range 3 * n {
		u, v := r.IntN(n), r.IntN(n)
		if r.IntN(10) == 0 {
			v = u // self-loop
		}
		adj[u] = append(adj[u], v)
		if r.IntN(3) == 0 {
			adj[u] = append(adj[u], v) // duplicate
		}
		if u != v {
			s.arcs[[2]int32{int32(u), int32(v)}] = true
			s.arcs[[2]int32{int32(v), int32(u)}] = true
		}
	}
	s.files["graph"] = pkGraph(adj)
	return s
}

// fs returns the files as ind.<name>.* in a MapFS.
func (s *pkSynth) fs(name string) fstest.MapFS {
	m := fstest.MapFS{}
	for part, b := range s.files {
		m["ind."+name+"."+part] = &fstest.MapFile{Data: b}
	}
	return m
}

// planetoidReplace copies the files of dataset name from src into a MapFS,
// replacing or (for nil) removing the parts in repl.
func planetoidReplace(t testing.TB, src Source, name string, repl map[string][]byte) Source {
	t.Helper()
	m := fstest.MapFS{}
	for _, part := range []string{"x", "y", "tx", "ty", "allx", "ally", "graph", "test.index"} {
		file := "ind." + name + "." + part
		if b, ok := repl[part]; ok {
			if b != nil {
				m[file] = &fstest.MapFile{Data: b}
			}
			continue
		}
		b, err := fs.ReadFile(src.FS, file)
		if err != nil {
			t.Fatal(err)
		}
		m[file] = &fstest.MapFile{Data: b}
	}
	return Source{FS: m, Root: "mem:"}
}

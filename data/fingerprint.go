package data

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
)

// Fingerprint is the SHA-256 of the dataset's content as loaded: every
// graph's structure, the node features and the labels, in a fixed binary
// layout. Two loads of the same files give the same fingerprint, whatever
// their source (files or the embedded copy); a checkpoint records it to say
// which data the model was trained on.
func (ds *Dataset) Fingerprint() string {
	h := sha256.New()
	if ds.Task == GraphTask && ds.Graph != nil {
		putInts(h, int64(len(ds.Graph.Graphs)), int64(ds.Graph.NumClasses), int64(ds.Graph.NumFeatures))
		for _, s := range ds.Graph.Graphs {
			putGraph(h, s.Graph)
			putFeatures(h, s.X)
			putInts(h, int64(s.Label))
		}
	} else if ds.Node != nil {
		putInts(h, int64(ds.Node.NumClasses))
		putGraph(h, ds.Node.Graph)
		putFeatures(h, ds.Node.X)
		for _, y := range ds.Node.Y {
			putInts(h, int64(y))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func putInts(h hash.Hash, xs ...int64) {
	var b [8]byte
	for _, x := range xs {
		binary.LittleEndian.PutUint64(b[:], uint64(x))
		h.Write(b[:])
	}
}

func putInt32s(h hash.Hash, xs []int32) {
	putInts(h, int64(len(xs)))
	var b [4]byte
	for _, x := range xs {
		binary.LittleEndian.PutUint32(b[:], uint32(x))
		h.Write(b[:])
	}
}

func putFloats(h hash.Hash, xs []float32) {
	putInts(h, int64(len(xs)))
	var b [4]byte
	for _, x := range xs {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
		h.Write(b[:])
	}
}

func putGraph(h hash.Hash, g *Graph) {
	putInts(h, int64(g.N))
	putInt32s(h, g.Ptr)
	putInt32s(h, g.Src)
}

func putFeatures(h hash.Hash, f Features) {
	switch {
	case f.Sparse != nil:
		putInts(h, 1, int64(f.Sparse.Rows), int64(f.Sparse.Cols))
		putInt32s(h, f.Sparse.Indptr)
		putInt32s(h, f.Sparse.Indices)
		putFloats(h, f.Sparse.Data)
	case f.Dense != nil:
		putInts(h, 2, int64(f.Dense.Rows), int64(f.Dense.Cols))
		putFloats(h, f.Dense.Data)
	}
}

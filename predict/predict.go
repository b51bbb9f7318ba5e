package predict

import (
	"fmt"
	"math"
	"sync"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/checkpoint"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/tensor"
)

// Prediction is the model's answer for one node or graph.
type Prediction struct {
	Class int       `json:"class"` // the predicted class, 0-based
	Label string    `json:"label"` // its original label (checkpoint.ClassNames)
	Probs []float64 `json:"probs"` // the softmax of the logits, one per class
}

// Predictor classifies with a checkpoint's model. It is safe for concurrent
// use: each call takes a replica of the model (they cache what they derive
// from their input) from a pool.
type Predictor struct {
	ck   *checkpoint.Checkpoint
	pool sync.Pool
}

// Load reads the checkpoint at path and returns its predictor.
func Load(path string) (*Predictor, error) {
	ck, err := checkpoint.Load(path)
	if err != nil {
		return nil, err
	}
	return New(ck)
}

// New returns the predictor of ck.
func New(ck *checkpoint.Checkpoint) (*Predictor, error) {
	m, err := ck.NewModel()
	if err != nil {
		return nil, err
	}
	p := &Predictor{ck: ck}
	p.pool.New = func() any {
		m, err := ck.NewModel()
		if err != nil { // cannot happen once the first replica built
			return nil
		}
		return &replica{m: m}
	}
	p.pool.Put(&replica{m: m})
	return p, nil
}

// replica is one model with its evaluation tape and batch.
type replica struct {
	m     model.Model
	tape  autodiff.Tape[float32]
	batch data.GraphBatch
}

func (p *Predictor) get() (*replica, error) {
	r, _ := p.pool.Get().(*replica)
	if r == nil {
		return nil, fmt.Errorf("predict: cannot build a replica of %s", p.ck.Model)
	}
	r.tape.NoGrad = true
	return r, nil
}

// Checkpoint is the checkpoint the predictor serves (read only).
func (p *Predictor) Checkpoint() *checkpoint.Checkpoint { return p.ck }

// Nodes classifies the given nodes of graph g with features x (all nodes
// when nodes is nil) with a node model.
func (p *Predictor) Nodes(g *data.Graph, x data.Features, nodes []int32) ([]Prediction, error) {
	if p.ck.Task != data.NodeTask {
		return nil, fmt.Errorf("predict: %s is a graph-classification model", p.ck.Model)
	}
	if x.Cols() != p.ck.Shape.Features || x.Rows() != g.N {
		return nil, fmt.Errorf("predict: %d × %d features for %d nodes; the model takes %d features", x.Rows(), x.Cols(), g.N, p.ck.Shape.Features)
	}
	for _, v := range nodes {
		if v < 0 || int(v) >= g.N {
			return nil, fmt.Errorf("predict: node %d outside [0, %d)", v, g.N)
		}
	}
	r, err := p.get()
	if err != nil {
		return nil, err
	}
	defer p.pool.Put(r)
	r.tape.Reset()
	var out *autodiff.Var[float32]
	// As in training (tensor.FlushDenormals), so that a saved model scores
	// its nodes with the bits its evaluation passes had.
	tensor.FlushDenormals(func() { out = r.m.(model.NodeModel).Forward(&r.tape, g, x, false, nil) })
	if nodes == nil {
		nodes = make([]int32, g.N)
		for i := range nodes {
			nodes[i] = int32(i)
		}
	}
	preds := make([]Prediction, len(nodes))
	for i, v := range nodes {
		preds[i] = p.prediction(out.Value.Data[int(v)*out.Value.Cols : (int(v)+1)*out.Value.Cols])
	}
	return preds, nil
}

// maxBatchNodes bounds the nodes of one forward pass over graphs.
const maxBatchNodes = 4096

// Samples classifies graphs whose node features are built already (with
// the checkpoint's encoding, e.g. by data.Load with Options.Encoding).
func (p *Predictor) Samples(samples []data.GraphSample) ([]Prediction, error) {
	if p.ck.Task != data.GraphTask {
		return nil, fmt.Errorf("predict: %s is a node-classification model", p.ck.Model)
	}
	ds := &data.GraphDataset{Graphs: samples, NumFeatures: p.ck.Shape.Features, NumClasses: p.ck.Shape.Classes}
	for i, s := range samples {
		if s.Graph == nil || s.X.Cols() != p.ck.Shape.Features || s.X.Rows() != s.Graph.N {
			return nil, fmt.Errorf("predict: graph %d: %d × %d features; the model takes %d features per node", i, s.X.Rows(), s.X.Cols(), p.ck.Shape.Features)
		}
	}
	r, err := p.get()
	if err != nil {
		return nil, err
	}
	defer p.pool.Put(r)
	preds := make([]Prediction, 0, len(samples))
	idx := make([]int32, 0, len(samples))
	for lo := 0; lo < len(samples); {
		idx, nodes := idx[:0], 0
		for hi := lo; hi < len(samples) && (len(idx) == 0 || nodes+samples[hi].Graph.N <= maxBatchNodes); hi++ {
			idx = append(idx, int32(hi))
			nodes += samples[hi].Graph.N
		}
		if err := r.batch.Build(ds, idx); err != nil {
			return nil, err
		}
		r.tape.Reset()
		var out *autodiff.Var[float32]
		tensor.FlushDenormals(func() { out = r.m.(model.GraphModel).Forward(&r.tape, &r.batch, false, nil) })
		for g := range idx {
			preds = append(preds, p.prediction(out.Value.Data[g*out.Value.Cols:(g+1)*out.Value.Cols]))
		}
		lo += len(idx)
	}
	return preds, nil
}

// Graphs classifies graphs given as edges and raw node labels or
// attributes, building their node features with the checkpoint's encoding.
func (p *Predictor) Graphs(gs []Graph) ([]Prediction, error) {
	samples := make([]data.GraphSample, len(gs))
	for i, g := range gs {
		s, err := p.Encode(g)
		if err != nil {
			return nil, fmt.Errorf("predict: graph %d: %w", i, err)
		}
		samples[i] = s
	}
	return p.Samples(samples)
}

// prediction turns one row of logits into a Prediction.
func (p *Predictor) prediction(logits []float32) Prediction {
	best, mx := 0, math.Inf(-1)
	for c, z := range logits {
		if float64(z) > mx {
			best, mx = c, float64(z)
		}
	}
	probs := make([]float64, len(logits))
	sum := 0.0
	for c, z := range logits {
		probs[c] = math.Exp(float64(z) - mx)
		sum += probs[c]
	}
	for c := range probs {
		probs[c] /= sum
	}
	return Prediction{Class: best, Label: p.ck.ClassNames[best], Probs: probs}
}

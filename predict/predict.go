package predict

import (
	"context"
	"errors"
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
	// broken marks a replica whose pass panicked: its caches may be
	// inconsistent, so it is not reused.
	broken bool
}

// maxPooledBytes bounds the tape of a replica that goes back to the pool.
// A tape keeps the buffers of its largest pass; a replica that served one
// large request is dropped rather than kept, so that the memory of a
// rare large request is returned instead of held by every replica that
// ever saw one.
const maxPooledBytes = 16 << 20

// put returns r to the pool, unless it is broken or holds more than
// maxPooledBytes.
func (p *Predictor) put(r *replica) {
	if values, grads := r.tape.Bytes(); r.broken || values+grads > maxPooledBytes {
		return
	}
	p.pool.Put(r)
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
	return p.NodesContext(context.Background(), g, x, nodes)
}

// NodesContext is Nodes, stopped (with ctx's error) when ctx is done: the
// forward pass ends at its next op.
func (p *Predictor) NodesContext(ctx context.Context, g *data.Graph, x data.Features, nodes []int32) ([]Prediction, error) {
	if p.ck.Task != data.NodeTask {
		return nil, fmt.Errorf("predict: %s is a graph-classification model", p.ck.Model)
	}
	if g == nil || x.Cols() != p.ck.Shape.Features || x.Rows() != g.N {
		n := 0
		if g != nil {
			n = g.N
		}
		return nil, fmt.Errorf("predict: %d × %d features for %d nodes; the model takes %d features", x.Rows(), x.Cols(), n, p.ck.Shape.Features)
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
	defer p.put(r)
	var out *autodiff.Var[float32]
	if err := p.forward(ctx, r, func() { out = r.m.(model.NodeModel).Forward(&r.tape, g, x, false, nil) }); err != nil {
		return nil, err
	}
	if nodes == nil {
		nodes = make([]int32, g.N)
		for i := range nodes {
			nodes[i] = int32(i)
		}
	}
	preds := make([]Prediction, len(nodes))
	for i, v := range nodes {
		if preds[i], err = p.prediction(out.Value.Data[int(v)*out.Value.Cols : (int(v)+1)*out.Value.Cols]); err != nil {
			return nil, fmt.Errorf("predict: node %d: %w", v, err)
		}
	}
	return preds, nil
}

// forward runs f, a forward pass on r's tape, flushing denormals as in
// training (tensor.FlushDenormals), so that a saved model scores with the
// bits its evaluation passes had. It returns ctx's error when ctx ends the
// pass, and a panic of the model (which a checked checkpoint should never
// cause) as an error rather than across the API.
func (p *Predictor) forward(ctx context.Context, r *replica, f func()) (err error) {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	r.tape.Reset()
	r.tape.Done = ctx.Done()
	// The pass holds a core (tensor.Occupy): alone it still splits its
	// kernels over the free cores, but passes running side by side, as a
	// server's requests do, each keep to their own instead of waking
	// workers that only spin waiting for each other. The bits are the same.
	defer tensor.Occupy()()
	defer func() {
		r.tape.Done = nil
		if e := recover(); e != nil {
			r.broken = true
			err = fmt.Errorf("predict: %s: %w: %v", p.ck.Model, ErrFailed, e)
		}
	}()
	err = r.tape.Interruptible(func() { tensor.FlushDenormals(f) })
	if errors.Is(err, autodiff.ErrInterrupted) {
		return fmt.Errorf("predict: %w", context.Cause(ctx))
	}
	return err
}

// maxBatchNodes bounds the nodes of one forward pass over graphs.
const maxBatchNodes = 4096

// Samples classifies graphs whose node features are built already (with
// the checkpoint's encoding, e.g. by data.Load with Options.Encoding).
func (p *Predictor) Samples(samples []data.GraphSample) ([]Prediction, error) {
	return p.SamplesContext(context.Background(), samples)
}

// SamplesContext is Samples, stopped (with ctx's error) when ctx is done.
func (p *Predictor) SamplesContext(ctx context.Context, samples []data.GraphSample) ([]Prediction, error) {
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
	defer p.put(r)
	preds := make([]Prediction, 0, len(samples))
	idx := make([]int32, 0, len(samples))
	for lo := 0; lo < len(samples); {
		idx = batchAt(idx[:0], lo, len(samples), func(i int) int { return samples[i].Graph.N })
		if err := r.batch.Build(ds, idx); err != nil {
			return nil, err
		}
		var out *autodiff.Var[float32]
		if err := p.forward(ctx, r, func() { out = r.m.(model.GraphModel).Forward(&r.tape, &r.batch, false, nil) }); err != nil {
			return nil, err
		}
		for g := range idx {
			pr, err := p.prediction(out.Value.Data[g*out.Value.Cols : (g+1)*out.Value.Cols])
			if err != nil {
				return nil, fmt.Errorf("predict: graph %d: %w", lo+g, err)
			}
			preds = append(preds, pr)
		}
		lo += len(idx)
	}
	return preds, nil
}

// batchAt appends to idx the graphs of the forward pass that starts at
// graph lo of n, where graph i has nodes(i) nodes: as many as fit
// maxBatchNodes, and at least one.
func batchAt(idx []int32, lo, n int, nodes func(i int) int) []int32 {
	total := 0
	for hi := lo; hi < n && (hi == lo || total+nodes(hi) <= maxBatchNodes); hi++ {
		idx = append(idx, int32(hi))
		total += nodes(hi)
	}
	return idx
}

// Graphs classifies graphs given as edges and raw node labels or
// attributes, building their node features with the checkpoint's encoding.
func (p *Predictor) Graphs(gs []Graph) ([]Prediction, error) {
	return p.GraphsContext(context.Background(), gs)
}

// GraphsContext is Graphs, stopped (with ctx's error) when ctx is done.
func (p *Predictor) GraphsContext(ctx context.Context, gs []Graph) ([]Prediction, error) {
	samples := make([]data.GraphSample, len(gs))
	for i, g := range gs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("predict: %w", err)
		}
		s, err := p.Encode(g)
		if err != nil {
			return nil, fmt.Errorf("predict: graph %d: %w", i, err)
		}
		samples[i] = s
	}
	return p.SamplesContext(ctx, samples)
}

// ErrFailed is wrapped by the error for a forward pass that panicked: a
// fault of the model or of this package, never of the input, which is
// checked before the pass.
var ErrFailed = errors.New("the forward pass failed")

// ErrNonFinite is wrapped by the error for a model output that is NaN or
// infinite: never a prediction, since its probabilities would mean nothing.
var ErrNonFinite = errors.New("the model's output is not finite")

// prediction turns one row of logits into a Prediction.
func (p *Predictor) prediction(logits []float32) (Prediction, error) {
	best, mx := 0, math.Inf(-1)
	for c, z := range logits {
		if math.IsNaN(float64(z)) || math.IsInf(float64(z), 0) {
			return Prediction{}, fmt.Errorf("%w (logit %d is %v)", ErrNonFinite, c, z)
		}
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
	return Prediction{Class: best, Label: p.ck.ClassNames[best], Probs: probs}, nil
}

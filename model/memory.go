package model

import (
	"fmt"
	"math"
	"reflect"
)

// Size is the input of one training step that a memory estimate is for:
// for node classification the whole graph (Graphs 0), for graph
// classification a mini-batch of Graphs graphs, its nodes and arcs summed
// over them.
type Size struct {
	Graphs int // graphs in the mini-batch; 0 for node classification
	Nodes  int // nodes, over all the graphs
	Arcs   int // arcs (an undirected edge counts twice), self-loops not counted
}

// MemoryEstimator is a configuration that can estimate, before any
// allocation, the memory its model needs. Every registered model's
// configuration implements it (Register checks), so that a model built
// from sizes a user or a file gave (a width flag, a checkpoint's
// metadata, a request's graphs) is refused before it allocates what the
// machine does not have; see the functions EstimateBytes and ParamBytes.
//
// Both methods take the configuration as it is (a zero width counts as
// zero) and never panic, overflow or return a negative number: sizes
// and widths as large as 1<<40 give a huge estimate, at most
// math.MaxInt64, and negative ones count as 0. An estimate is coarse
// (within a small factor: each model's test checks that it covers what a
// training step's tape holds and is less than 10 times that) and meant to
// refuse what cannot fit, not to plan.
type MemoryEstimator interface {
	Config
	// ParamBytes is the memory building the model for shape allocates:
	// its parameters and buffers (the values of every group of Groups,
	// each with its gradient, which autodiff.NewParam allocates with it)
	// and the constants it derives from the configuration alone.
	ParamBytes(shape Shape) int64
	// EstimateBytes is the memory one training step of the model on size
	// needs: the parameters with their gradients and the optimiser's two
	// moments (4 copies), the activations the tape keeps with their
	// gradients, the operators built from the graph, and the ops' own
	// large buffers.
	EstimateBytes(shape Shape, size Size) int64
}

// EstimateBytes is cfg's estimate (MemoryEstimator.EstimateBytes) of the
// memory one training step of its model for shape needs on size: what
// the memory checks of training, of every bench cell and of inference
// compare with the machine's or a server's budget. An evaluation pass
// (inference) needs less than a training step on the same size. It is an
// error for a configuration without an estimate, a nil one, or a
// negative shape or size; cfg is not validated (an out-of-range field
// gives a coarse estimate, never a wrapped one).
func EstimateBytes(cfg Config, shape Shape, size Size) (int64, error) {
	est, err := estimator(cfg)
	if err != nil {
		return 0, err
	}
	if err := checkShape(shape); err != nil {
		return 0, err
	}
	if size.Graphs < 0 || size.Nodes < 0 || size.Arcs < 0 {
		return 0, fmt.Errorf("model: memory estimate for %d graphs, %d nodes and %d arcs: sizes must not be negative", size.Graphs, size.Nodes, size.Arcs)
	}
	return est.EstimateBytes(shape, size), nil
}

// ParamBytes is cfg's estimate (MemoryEstimator.ParamBytes) of the memory
// building its model for shape allocates (model.New, and so loading a
// checkpoint), without building it: the parameters, buffers and
// constants, before any graph is seen. A checkpoint reader compares it
// with the memory it may use before it builds the model its metadata
// declares. Errors as for EstimateBytes.
func ParamBytes(cfg Config, shape Shape) (int64, error) {
	est, err := estimator(cfg)
	if err != nil {
		return 0, err
	}
	if err := checkShape(shape); err != nil {
		return 0, err
	}
	return est.ParamBytes(shape), nil
}

// FormatGiB writes bytes as GiB with one decimal, as the memory checks'
// messages do ("would need about 12.5 GiB").
func FormatGiB(bytes int64) string {
	return fmt.Sprintf("%.1f GiB", float64(bytes)/(1<<30))
}

// estimator is cfg as a MemoryEstimator, or an error saying why not.
func estimator(cfg Config) (MemoryEstimator, error) {
	if cfg == nil {
		return nil, fmt.Errorf("model: memory estimate of a nil configuration")
	}
	if v := reflect.ValueOf(cfg); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, fmt.Errorf("model: memory estimate of a nil %T", cfg)
	}
	est, ok := cfg.(MemoryEstimator)
	if !ok {
		return nil, fmt.Errorf("model: a %T has no memory estimate (model.MemoryEstimator)", cfg)
	}
	return est, nil
}

func checkShape(shape Shape) error {
	if shape.Features < 0 || shape.Classes < 0 {
		return fmt.Errorf("model: memory estimate for %d features and %d classes: the shape must not be negative", shape.Features, shape.Classes)
	}
	return nil
}

// floatBytes is the size of a stored value (float32).
const floatBytes = 4

// The estimates count float32 values in float64, which cannot wrap: a
// product of a few sizes up to 2^63 stays far below its range, and a
// value is never negative (nonneg clamps each input at 0). bytesOf turns
// the count into bytes, saturating at math.MaxInt64.

// nonneg is x as a float64 count, negative values counting as 0.
func nonneg(x int) float64 { return float64(max(x, 0)) }

// bytesOf is values float32 values in bytes, in [0, math.MaxInt64].
func bytesOf(values float64) int64 {
	b := values * floatBytes
	switch {
	case !(b < math.MaxInt64): // also NaN, which the estimates never give
		return math.MaxInt64
	case b <= 0:
		return 0
	}
	return int64(b)
}

// trainingValues is what a training step holds besides the activations:
// the parameters with gradients and two optimiser moments.
func trainingValues(params float64) float64 { return 4 * params }

// operatorValues is a graph operator of nodes+arcs stored entries (with
// self-loops) as float32 values: each entry's value and column index, in
// the operator and its transpose.
func operatorValues(s Size) float64 { return 4 * (nonneg(s.Nodes) + nonneg(s.Arcs)) }

// graphsOf is the number of graphs of s, at least 1 (a node task's graph).
func graphsOf(s Size) float64 { return max(nonneg(s.Graphs), 1) }

// ParamBytes implements MemoryEstimator.
func (c PRCapsConfig) ParamBytes(shape Shape) int64 { return bytesOf(2 * c.paramValues(shape, true)) }

// paramValues counts the parameters: the stem, the projection and its
// norm, the routing layers, the graph-level routing (graph) and the
// classifier. The graph network's class routing counts when graph is
// set, or always for ParamBytes, which does not know the task.
func (c PRCapsConfig) paramValues(shape Shape, graph bool) float64 {
	h, d := nonneg(c.Hidden), nonneg(c.S+c.T+1)
	k, layers, f, cl := nonneg(c.K), nonneg(c.Layers), nonneg(shape.Features), nonneg(shape.Classes)
	routing := k * (2*d*d + 4*d)
	p := f*h + 2*h + h*d + 3*d + layers*routing + cl*(d+2)
	if graph {
		p += cl * routing
	}
	return p
}

// EstimateBytes implements MemoryEstimator: parameters × 4 copies (value,
// gradient, two Adam moments), the stem's node × hidden activations (about
// eight tensors of them on the tape), the capsules' node × D tensors, and
// per routing layer, per link, 2(3+T)/15 times K·D values (the tape's
// per-link values, the live gradients under ReleaseGrads and the routing
// ops' own buffers) and per node 4(2+T)/5 times K·D; the graph network
// (Size.Graphs > 0) routes each node to its graph's C class capsules in
// one more layer of n·C links. Evaluation shares the training tape.
// Calibrated on the default network's peak resident memory, the whole
// process, at cff4aa3 (docs/performance.md): generated graphs of 10^6 and
// 10^7 edges take 0.90 and 0.87 of the estimate, 10^5 edges 1.2 (the
// runtime's own tens of MiB weigh there); Coauthor CS 1.4 of it, the rest
// of its 6,805-column features, which the dataset holds, not the step
// (train's TestNodeTapeMemory and TestGraphTapeMemory check that the
// estimate covers the tape).
func (c PRCapsConfig) EstimateBytes(shape Shape, size Size) int64 {
	graph := size.Graphs > 0
	h, d := nonneg(c.Hidden), nonneg(c.S+c.T+1)
	n, links := nonneg(size.Nodes), nonneg(size.Arcs)+nonneg(size.Nodes)
	k, layers, iters := nonneg(c.K), nonneg(c.Layers), nonneg(c.Iters)
	perLink, perNode := k*d*2*(3+iters)/15, k*d*4*(2+iters)/5
	acts := 8*n*h + 16*n*d + layers*(links*perLink+n*perNode)
	if graph {
		// The class routing, and a separate evaluation tape and the
		// routing ops' buffers for the batch's small graphs.
		cl := nonneg(shape.Classes)
		acts = 3*(acts+n*cl*perLink+graphsOf(size)*cl*perNode) + operatorValues(size)
	}
	return bytesOf(trainingValues(c.paramValues(shape, graph)) + acts)
}

// ParamBytes implements MemoryEstimator.
func (c GCNConfig) ParamBytes(shape Shape) int64 { return bytesOf(2 * c.paramValues(shape)) }

func (c GCNConfig) paramValues(shape Shape) float64 {
	h := nonneg(c.Hidden)
	return (nonneg(shape.Features)+1)*h + (h+1)*nonneg(shape.Classes)
}

// EstimateBytes implements MemoryEstimator for the two-layer GCN.
func (c GCNConfig) EstimateBytes(shape Shape, size Size) int64 {
	h, n := nonneg(c.Hidden), nonneg(size.Nodes)
	acts := 6*n*h + 4*n*nonneg(shape.Classes) + nonneg(size.Arcs) + n
	return bytesOf(trainingValues(c.paramValues(shape)) + 2*acts)
}

package model

import (
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/optim"
)

// Shape is what a model is built for: the width of the input node
// features and the number of classes. A model scores any graph whose
// features have this width.
type Shape struct {
	Features int
	Classes  int
}

// Model is what every model has: its parameters, in the groups the
// optimiser treats alike (decayed weights, undecayed or frozen
// curvatures). Every parameter has a dotted name, unique in the model
// ("stem.W", "routing0.beta_k"), which checkpoints key on.
type Model interface {
	Groups() []optim.Group[float32]
}

// NodeModel classifies the nodes of a graph.
type NodeModel interface {
	Model
	// Forward records on t the logits (nodes × classes) of every node of g
	// with features x (x.Cols() must be the model's Shape.Features). In
	// training mode dropout draws from rng. The operators a model derives
	// from g and x (normalised adjacency, links, transposes) are kept
	// between calls for the same g and x, so g and x must not be modified
	// while a model uses them. In evaluation mode rng may be nil. Once a
	// pass on g and x has run, a training pass and an evaluation pass on
	// two tapes may run at once (train.RunNode overlaps them): Forward
	// keeps no per-pass state in the model.
	Forward(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32]
}

// GraphModel classifies the graphs of a mini-batch.
type GraphModel interface {
	Model
	// Forward records on t the logits (graphs × classes) of the graphs of
	// b. In training mode dropout draws from rng. In evaluation mode the
	// output depends on the model only through its parameters (Groups),
	// so a copy of the parameters restores a model's predictions.
	Forward(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32]
}

// WholeBatch is implemented by graph models whose training pass couples
// the graphs of a mini-batch (batch normalisation over its nodes): the
// trainer then runs each mini-batch in one pass, never in the
// micro-batches of GraphProtocol.MicroBatchNodes.
type WholeBatch interface {
	WholeBatch() bool
}

// RowsForwarder is a node model that can skip the work of the nodes a
// pass does not read, such as the nodes outside the training set in a
// training step, whose loss reads the logits of the training nodes only.
type RowsForwarder interface {
	NodeModel
	// ForwardRows records what Forward records, except that only the
	// logits of the nodes rows are meant to be read: theirs are Forward's
	// bit for bit, the gradients a loss on them sends back to the
	// parameters are Forward's up to rounding (sums skip the other rows'
	// exact zeros and may group their terms differently), and the other
	// rows hold finite values of no meaning.
	// rows must not be modified while the model uses it (it is kept
	// between calls, like g and x). Passes with two sets of rows may run
	// at once on two tapes (a training step's and an evaluation's), as may
	// evaluation passes through Forward; a third set must wait until the
	// passes with one of the others are done.
	ForwardRows(t *autodiff.Tape[float32], g *data.Graph, x data.Features, rows []int32, training bool, rng *rand.Rand) *autodiff.Var[float32]
}

// NodeEmbedder is a node model with an embedding output: the
// representation of each node that its classifier reads, in evaluation
// mode (what the paper's t-SNE figure plots).
type NodeEmbedder interface {
	NodeModel
	// Embed records on t the embedding (nodes × width) of every node of g.
	Embed(t *autodiff.Tape[float32], g *data.Graph, x data.Features) *autodiff.Var[float32]
}

// GraphEmbedder is a graph model with an embedding output: one row per
// graph, in evaluation mode.
type GraphEmbedder interface {
	GraphModel
	// Embed records on t the embedding (graphs × width) of the graphs of b.
	Embed(t *autodiff.Tape[float32], b *data.GraphBatch) *autodiff.Var[float32]
}

// Params lists m's parameters in group order, each with its dotted name.
func Params(m Model) []*autodiff.Var[float32] {
	var ps []*autodiff.Var[float32]
	for _, g := range m.Groups() {
		ps = append(ps, g.Params...)
	}
	return ps
}

// CountParams is the number of scalar parameters of m, buffers (groups
// with Buffer set, such as batch-norm running statistics) not counted, as
// PyTorch counts model.parameters().
func CountParams(m Model) int {
	n := 0
	for _, g := range m.Groups() {
		if g.Buffer {
			continue
		}
		for _, p := range g.Params {
			n += p.Value.Len()
		}
	}
	return n
}

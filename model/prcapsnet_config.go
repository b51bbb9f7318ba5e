package model

import (
	"fmt"

	"github.com/prcaps/prcaps/capsule"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/nn"
	"github.com/prcaps/prcaps/tensor"
)

// PRCapsConfig configures both PR-CapsNet networks (DESIGN §5). The node
// network is
//
//	input dropout → GCNConv(F→Hidden) → ReLU → dropout → Linear(Hidden→d) →
//	LayerNorm → exp̂_o → Layers × routing → classifier
//
// and, through Routing, Classifier and the switches below, every ablation
// variant of the paper (Tables 4-5 and its figures). The graph network
// (PRCapsGraphNet) shares the stem and adds graph-level routing to one
// capsule per class.
//
// Start from DefaultPRCapsConfig or DefaultPRCapsGraphConfig: Validate
// (in the constructors, model.New, checkpoints, the command line) takes a
// configuration as it is, so a zero width or count is an error, never a
// default; the dropouts' and the booleans' zeros mean off.
// DefaultPRCapsConfig is the node network's default with its dropout,
// DefaultPRCapsGraphConfig the graph network's.
type PRCapsConfig struct {
	Hidden int  `opt:"hidden" min:"1" max:"65536" help:"hidden width of the GCN stem"`
	Stem   Stem `opt:"stem" help:"the stem's aggregation: gcn (D^-1/2 (A+I) D^-1/2) or sum (A+I, GIN-0's, keeps neighbour counts)"`
	// S and T give the capsule manifold Q_{s,t}: s space-like and t+1
	// time-like dimensions, D = s+t+1 (9 and 9 by default).
	S int `opt:"s" min:"0" max:"512" help:"space-like capsule dimensions s"`
	T int `opt:"t" min:"1" max:"64" help:"time-like capsule dimensions t (the time block has t+1)"`
	// Layers is the number of node-level routing layers L (default 1, as
	// in the authors' code; the paper's text says 3).
	Layers int `opt:"layers" min:"1" max:"16" help:"routing layers L (1 in the authors' code; the paper's text says 3)"`

	Routing    Routing    `opt:"routing" help:"acr, pcr, euclidean (Caps only) or none (PR only)"`
	Classifier Classifier `opt:"classifier" help:"prcc or linear"`
	// ClassifierScale is PRCC's initial logit scale softplus(τ₀); τ =
	// softplus(τ₀)·√|β| is learned from there (default 10; the paper gives
	// no initial τ).
	ClassifierScale float64 `opt:"prcc-scale" gt:"0" max:"1e6" help:"PRCC's initial logit scale softplus(τ₀)"`

	K          int                 `opt:"k" min:"1" max:"64" help:"perspectives K of adaptive curvature routing"`
	Iters      int                 `opt:"iters" min:"1" max:"64" help:"routing iterations T"`
	Activation manifold.Activation `opt:"activation" help:"tangent activation squash, tanh, relu or identity"`
	// Coupling is the normalisation set of the coupling coefficients: the
	// children of each parent (default) or the parents of each child.
	Coupling    capsule.Coupling `opt:"coupling" help:"coupling: children (softmax over the children of each parent) or parents (over the parents of each child, classic CapsNet; in the graph network a class capsule then sums its graph's nodes)"`
	DetachB     bool             `opt:"detach-b" help:"stop gradients through the routing logits (CapsGNN style)"`
	RoutingInit RoutingInit      `opt:"routing-init" help:"initialisation of the routing layers' prediction weights: identity (I + U(±0.05)), torch (U(±1/√fan_in), PyTorch's nn.Linear default) or, in the graph network, torch-graph (torch in the graph-level layer only)"`

	NoC            bool `opt:"no-gate-c" help:"remove the gate's curvature-compatibility term"`
	NoA            bool `opt:"no-gate-a" help:"remove the gate's feature-alignment term"`
	NoR            bool `opt:"no-gate-r" help:"remove the gate's routing-consistency term"`
	FixedCurvature bool `opt:"fixed-curvature" help:"freeze the manifold and perspective curvatures"`

	// Dropout is the dropout probability on the stem's hidden layer.
	Dropout float64 `opt:"dropout" min:"0" lt:"1" help:"dropout probability of the hidden layer, and of GCN's input features"`
	// InputDropout is the dropout probability on the input node features
	// (0.5 in the node network's default, 0 in the graph network's, whose
	// inputs are one-hot node labels).
	InputDropout float64 `opt:"input-dropout" min:"0" lt:"1" help:"dropout probability of the input node features"`
	// NormalizeFeatures divides each node's input features by their sum
	// (GCN's usual preprocessing).
	NormalizeFeatures bool `opt:"normalize-features" help:"divide each node's input features by their sum"`
}

// PRCapsConfig implements MemoryEstimator, checked at compile time.
var _ MemoryEstimator = PRCapsConfig{}

// The ranges of the configuration's sizes: far beyond the paper's (hidden
// 64, s = t = 9, one to three layers, T = 3), and small enough that a
// mistyped value is refused instead of exhausting the memory or running
// for days.
const (
	MaxWidth         = 1 << 16 // hidden widths
	MaxSpaceDims     = 512     // s
	MaxTimeDims      = 64      // t: the routing kernels' limit
	MaxRoutingLayers = 16
	MaxRoutingIters  = 64
)

// DefaultPRCapsConfig is the node network of the authors' code (DESIGN
// §5): hidden 64, s = t = 9, one ACR layer with K = 4 and T = 3, squash,
// PRCC at initial scale 10, dropout 0.5 on the input and the hidden layer.
func DefaultPRCapsConfig() PRCapsConfig {
	r := capsule.DefaultRoutingConfig() // the capsule sizes, K and T of the routing layer
	return PRCapsConfig{
		Hidden: 64, S: r.Dims.S, T: r.Dims.T, Layers: 1, ClassifierScale: 10, K: r.K, Iters: r.Iters,
		Dropout: 0.5, InputDropout: 0.5,
	}
}

// DefaultPRCapsGraphConfig is the graph network's default: the node
// network's, without input dropout (DESIGN §5 "Optimiser").
func DefaultPRCapsGraphConfig() PRCapsConfig {
	c := DefaultPRCapsConfig()
	c.InputDropout = 0
	return c
}

// Dims is the capsule manifold's (s, t).
func (c PRCapsConfig) Dims() manifold.Dims {
	return manifold.Dims{S: c.S, T: c.T}
}

// Validate reports an invalid field.
func (c PRCapsConfig) Validate() error {
	switch {
	case c.Hidden < 1 || c.Hidden > MaxWidth:
		return fmt.Errorf("hidden width %d must be in [1, %d]", c.Hidden, MaxWidth)
	case c.S < 0 || c.T < 1 || c.S > MaxSpaceDims || c.T > MaxTimeDims:
		return fmt.Errorf("capsule dimensions s = %d, t = %d: need 0 ≤ s ≤ %d and 1 ≤ t ≤ %d", c.S, c.T, MaxSpaceDims, MaxTimeDims)
	case c.Layers < 1 || c.Layers > MaxRoutingLayers:
		return fmt.Errorf("%d routing layers: need 1 to %d", c.Layers, MaxRoutingLayers)
	case c.K < 1 || c.K > 64:
		return fmt.Errorf("%d perspectives: need 1 to 64", c.K)
	case c.Iters < 1 || c.Iters > MaxRoutingIters:
		return fmt.Errorf("%d routing iterations: need 1 to %d", c.Iters, MaxRoutingIters)
	case !(c.ClassifierScale > 0) || c.ClassifierScale > 1e6:
		return fmt.Errorf("classifier scale %v must be in (0, 1e6]", c.ClassifierScale)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("dropout %v must be in [0, 1)", c.Dropout)
	case !(c.InputDropout >= 0 && c.InputDropout < 1):
		return fmt.Errorf("input dropout %v must be in [0, 1)", c.InputDropout)
	}
	for _, e := range []interface{ MarshalText() ([]byte, error) }{c.Stem, c.Routing, c.Classifier, c.Activation, c.Coupling, c.RoutingInit} {
		if _, err := e.MarshalText(); err != nil {
			return err
		}
	}
	return nil
}

// routingOptions maps the capsule.RoutingConfig fields that a routing
// kind may leave unread (capsule.Kind.Ignores) to the options that set
// them.
var routingOptions = map[string]string{
	"K": "k", "Iters": "iters", "Activation": "activation", "Coupling": "coupling", "DetachB": "detach-b",
	"Init": "routing-init", "NoC": "no-gate-c", "NoA": "no-gate-a", "NoR": "no-gate-r",
}

// Unread implements option.Unreader: the options that c's routing kind
// does not read (capsule.Kind.Ignores), and PRCC's logit scale under the
// linear classifier.
func (c PRCapsConfig) Unread() map[string]string {
	u := map[string]string{}
	for _, f := range c.Routing.Ignores() {
		u[routingOptions[f]] = "with --routing " + c.Routing.String() + " (its layers do not read it)"
	}
	if c.Classifier != ClassifierPRCC {
		u["prcc-scale"] = "with --classifier " + c.Classifier.String() + " (it is PRCC's)"
	}
	return u
}

// stemOperator builds the stem's propagation operator for g into a (deg
// is scratch).
func (c PRCapsConfig) stemOperator(a *tensor.CSR[float32], g *data.Graph, deg *[]float64) {
	c.stemOperatorInto(a, g.N, g.Ptr, g.Src, deg)
}

// stemOperatorInto builds the stem's propagation operator for the graph on
// n nodes with in-neighbours src[ptr[v]:ptr[v+1]] into a (deg is scratch).
func (c PRCapsConfig) stemOperatorInto(a *tensor.CSR[float32], n int, ptr, src []int32, deg *[]float64) {
	if c.Stem == StemSum {
		nn.SumAggInto(a, n, ptr, src)
		return
	}
	nn.GCNNormInto(a, n, ptr, src, deg)
}

// routingConfig is the capsule layers' configuration for c; graphLevel
// selects the graph-level layer's prediction initialisation.
func (c PRCapsConfig) routingConfig(graphLevel bool) capsule.RoutingConfig {
	rc := capsule.DefaultRoutingConfig()
	rc.Dims, rc.K, rc.Iters, rc.Activation, rc.DetachB = c.Dims(), c.K, c.Iters, c.Activation, c.DetachB
	rc.NoC, rc.NoA, rc.NoR = c.NoC, c.NoA, c.NoR
	rc.Coupling = c.Coupling
	rc.Kind = c.Routing
	if c.Routing == RoutingPCR {
		rc.K = 1
	}
	rc.Init = capsule.InitNearIdentity
	if c.RoutingInit == InitTorch || (graphLevel && c.RoutingInit == InitTorchGraph) {
		rc.Init = capsule.InitTorch
	}
	return rc
}

package model

import (
	"fmt"
	"slices"

	"github.com/prcaps/prcaps/capsule"
)

// The configuration enums of this package are small integers whose zero
// value is the default, named on the command line and in JSON by the
// strings below (they implement encoding.TextMarshaler and
// TextUnmarshaler, as capsule.Coupling and manifold.Activation do).

func enumName[E ~uint8](names []string, e E) string {
	if int(e) < len(names) {
		return names[e]
	}
	return fmt.Sprintf("%d", e)
}

func enumText[E ~uint8](what string, names []string, e E) ([]byte, error) {
	if int(e) >= len(names) {
		return nil, fmt.Errorf("model: invalid %s %d", what, e)
	}
	return []byte(names[e]), nil
}

func enumParse[E ~uint8](what string, names []string, b []byte, e *E) error {
	i := slices.Index(names, string(b))
	if i < 0 {
		return fmt.Errorf("unknown %s %q (want %s)", what, b, orList(names))
	}
	*e = E(i)
	return nil
}

func orList(names []string) string {
	switch len(names) {
	case 1:
		return names[0]
	case 2:
		return names[0] + " or " + names[1]
	}
	s := ""
	for i, n := range names[:len(names)-1] {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s + " or " + names[len(names)-1]
}

// Stem is the neighbourhood aggregation of PR-CapsNet's GCN stem.
type Stem uint8

const (
	// StemGCN is GCN's D^−½(A+I)D^−½ (default; the authors' node code).
	StemGCN Stem = iota
	// StemSum is A + I, GIN-0's sum over a node and its in-neighbours,
	// which keeps neighbour counts.
	StemSum
)

var stemNames = []string{"gcn", "sum"}

func (s Stem) String() string                { return enumName(stemNames, s) }
func (s Stem) MarshalText() ([]byte, error)  { return enumText("stem", stemNames, s) }
func (s *Stem) UnmarshalText(b []byte) error { return enumParse("stem", stemNames, b, s) }

// Routing is what PR-CapsNet's capsule layers do: capsule.Kind, whose
// values and names (acr, pcr, euclidean, none) the command line and the
// checkpoints use.
type Routing = capsule.Kind

// The routing kinds, as PR-CapsNet's configuration names them.
const (
	// RoutingACR is adaptive curvature routing (default; paper Algorithm 1).
	RoutingACR = capsule.ACR
	// RoutingPCR is pseudo-Riemannian routing with one perspective and no
	// gates.
	RoutingPCR = capsule.PCR
	// RoutingEuclidean is classic dynamic routing in R^d, no manifold (the
	// "Caps only" ablation; node network only).
	RoutingEuclidean = capsule.Euclidean
	// RoutingNone replaces routing by a tangent-space GCN layer (the "PR
	// only" ablation; node network only).
	RoutingNone = capsule.NoRouting
)

// Classifier is PR-CapsNet's output layer.
type Classifier uint8

const (
	// ClassifierPRCC is the pseudo-Riemannian capsule classifier (default).
	ClassifierPRCC Classifier = iota
	// ClassifierLinear is a linear layer on loĝ_o(v).
	ClassifierLinear
)

var classifierNames = []string{"prcc", "linear"}

func (c Classifier) String() string               { return enumName(classifierNames, c) }
func (c Classifier) MarshalText() ([]byte, error) { return enumText("classifier", classifierNames, c) }
func (c *Classifier) UnmarshalText(b []byte) error {
	return enumParse("classifier", classifierNames, b, c)
}

// RoutingInit is the initialisation of the routing layers' prediction
// weights (the paper gives none).
type RoutingInit uint8

const (
	// InitIdentity is I + U(±0.05) in every routing layer (default).
	InitIdentity RoutingInit = iota
	// InitTorch is U(±1/√fan_in), PyTorch's nn.Linear default, in every
	// routing layer.
	InitTorch
	// InitTorchGraph is InitTorch in the graph network's graph-level layer
	// only (graph network only).
	InitTorchGraph
)

var routingInitNames = []string{"identity", "torch", "torch-graph"}

func (i RoutingInit) String() string { return enumName(routingInitNames, i) }
func (i RoutingInit) MarshalText() ([]byte, error) {
	return enumText("routing init", routingInitNames, i)
}
func (i *RoutingInit) UnmarshalText(b []byte) error {
	return enumParse("routing init", routingInitNames, b, i)
}

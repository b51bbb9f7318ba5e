package capsule

import (
	"fmt"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
)

// MaxGraphClasses bounds the number of classes of graph-level routing (the
// stack scratch of GraphRouting.Forward).
const MaxGraphClasses = 64

// GraphRouting is the graph-level capsule routing layer of the graph
// classification network (DESIGN §5 "Graph classification network",
// Algorithm 1 with W_{j,k} per parent): the children are the node capsules
// of each graph of a mini-batch, the parents one capsule per class per graph
// (G·C parents), and the prediction weights depend on the parent's class:
//
//	ξ_{j|i,k} = (wrap_{r_k}(a_{i,T}·Wsph[c][k]), a_{i,S}·Weuc[c][k]) + B[c][k],  c = class of j.
//
// Everything else — the ACR gates (shared over classes), the coupling
// softmax over the children of each parent (that is, over the nodes of the
// parent's graph, per class; or, with CouplingOverParents, over the class
// capsules of each node), the aggregation, activation and agreement — is
// the node-level layer's (Routing.route). It is implemented by giving every
// node one virtual child per class, c·N + i, holding ξ of class c: the
// parent (g, c) links to the virtual children c·N + i of the nodes i of
// graph g (ClassLinks), so the per-link kernels of the node layer apply
// unchanged and no E×K×d temporaries are formed.
//
// Class 0's prediction weights are the embedded Routing's Wsph, Weuc and B
// (Wsph[0], Weuc[0], B[0] alias them); the gate parameters and ρ_k are the
// embedded Routing's. Initialisation as in NewRouting (cfg.Init; by default
// I + U(±0.05)) per class and perspective, zero biases.
type GraphRouting[T autodiff.Float] struct {
	*Routing[T]
	Classes int
	// Wsph[c][k], Weuc[c][k], B[c][k]: the prediction weights of class c.
	Wsph, Weuc, B [][]*autodiff.Var[T]

	// The same weights in one class-major list each, for predict's groups.
	allWsph, allWeuc, allB []*autodiff.Var[T]
}

// NewGraphRouting returns a graph-level routing layer to classes parent
// capsules per graph (cfg as for NewRouting). With CouplingOverParents a
// node's coupling is normalised over its graph's class capsules, across its
// virtual children (Links.Copies), as classic CapsNet and CapsGNN do.
func NewGraphRouting[T autodiff.Float](name string, cfg RoutingConfig, classes int, rng *rand.Rand) (*GraphRouting[T], error) {
	if classes < 1 || classes > MaxGraphClasses {
		return nil, fmt.Errorf("capsule: graph routing %s: %d classes, need 1 … %d", name, classes, MaxGraphClasses)
	}
	r, err := NewRouting[T](name, cfg, rng)
	if err != nil {
		return nil, err
	}
	g := &GraphRouting[T]{Routing: r, Classes: classes}
	g.Wsph = append(g.Wsph, r.Wsph)
	g.Weuc = append(g.Weuc, r.Weuc)
	g.B = append(g.B, r.B)
	s, t, d := r.Cfg.Dims.S, r.Cfg.Dims.T, r.Cfg.Dims.Tangent()
	for c := 1; c < classes; c++ {
		var ws, we, bs []*autodiff.Var[T]
		for k := 0; k < r.K; k++ {
			w := autodiff.NewParam[T](fmt.Sprintf("%s.class%d.wsph%d", name, c, k), t, t)
			initPrediction(w, r.Cfg.Init, rng)
			e := autodiff.NewParam[T](fmt.Sprintf("%s.class%d.weuc%d", name, c, k), s, s)
			initPrediction(e, r.Cfg.Init, rng)
			ws, we = append(ws, w), append(we, e)
			bs = append(bs, autodiff.NewParam[T](fmt.Sprintf("%s.class%d.bias%d", name, c, k), 1, d))
		}
		g.Wsph, g.Weuc, g.B = append(g.Wsph, ws), append(g.Weuc, we), append(g.B, bs)
	}
	for c := range g.Wsph {
		g.allWsph = append(g.allWsph, g.Wsph[c]...)
		g.allWeuc = append(g.allWeuc, g.Weuc[c]...)
		g.allB = append(g.allB, g.B[c]...)
	}
	return g, nil
}

// Params lists the weight-decayed parameters: the embedded Routing's (class
// 0's prediction weights and the gate's) and the other classes' prediction
// weights.
func (g *GraphRouting[T]) Params() []*autodiff.Var[T] {
	ps := g.Routing.Params()
	for c := 1; c < g.Classes; c++ {
		for k := 0; k < g.K; k++ {
			ps = append(ps, g.Wsph[c][k], g.Weuc[c][k], g.B[c][k])
		}
	}
	return ps
}

// ClassLinksInto builds into dst (reusing its slices) the links of
// graph-level routing for a mini-batch whose graph g holds the nodes
// seg[g] … seg[g+1]−1 of N = seg[G] nodes: parent g·classes + c has the
// children c·N + i for the nodes i of graph g (see GraphRouting). It calls
// dst.Changed and returns dst.
func ClassLinksInto(dst *Links, seg []int32, classes int) *Links {
	G := len(seg) - 1
	N := int(seg[G])
	dst.Parents, dst.Children, dst.Copies = G*classes, classes*N, classes
	dst.Ptr = grow(dst.Ptr, G*classes+1)
	dst.Child = grow(dst.Child, classes*N)
	dst.Ptr[0] = 0
	e := 0
	for g := 0; g < G; g++ {
		for c := 0; c < classes; c++ {
			for i := seg[g]; i < seg[g+1]; i++ {
				dst.Child[e] = int32(c*N) + i
				e++
			}
			dst.Ptr[g*classes+c+1] = int32(e)
		}
	}
	dst.Changed()
	return dst
}

// Forward routes the node capsules u (N × D points on Q with curvature
// beta) of a mini-batch of graphs to the class capsules of each graph and
// returns them as (G·C) × D, row g·C + c the capsule of class c of graph g
// (the layout PRCC.ForwardPerClass reads). links must come from
// ClassLinksInto for the batch's node segments and g.Classes, so that
// links.Children = C·N. See GraphRouting and Routing.Forward.
func (g *GraphRouting[T]) Forward(t *autodiff.Tape[T], u, beta *autodiff.Var[T], links *Links) *autodiff.Var[T] {
	dims := g.Routing.Cfg.Dims
	g.check(u.Value.Rows, u.Value.Cols, dims.Ambient(), links)
	act := g.forward(t, manifold.LogO(t, u, beta, dims), beta, links)
	return manifold.ProjQ(t, manifold.ExpO(t, act, beta, dims), beta, dims)
}

// ForwardTangent is Forward with the capsules given by their tangent
// coordinates at the pole, as Routing.ForwardTangent: a = loĝ_o(u) (N × d)
// in, the class capsules' loĝ_o(v) ((G·C) × d, the layout of
// PRCC.ForwardPerClassTangent) out.
func (g *GraphRouting[T]) ForwardTangent(t *autodiff.Tape[T], a, beta *autodiff.Var[T], links *Links) *autodiff.Var[T] {
	dims := g.Routing.Cfg.Dims
	g.check(a.Value.Rows, a.Value.Cols, dims.Tangent(), links)
	return manifold.LogExpO(t, g.forward(t, a, beta, links), beta, dims)
}

// ForwardLayer implements Layer: ForwardTangent over g.Links, which must
// be class links (ClassLinksInto), not the node links that the embedded
// Routing's ForwardLayer routes over.
func (g *GraphRouting[T]) ForwardLayer(t *autodiff.Tape[T], a, beta *autodiff.Var[T], gr Graph[T]) *autodiff.Var[T] {
	return g.ForwardTangent(t, a, beta, gr.Links)
}

// check panics unless the capsules (n × cols, want cols columns) and links
// fit together.
func (g *GraphRouting[T]) check(n, cols, want int, links *Links) {
	if cols != want || links.Children != g.Classes*n || links.Parents%g.Classes != 0 {
		panic(fmt.Sprintf("capsule: graph routing: capsules are %d×%d and links have %d children, %d parents; want N×%d with C·N children, C = %d",
			n, cols, links.Children, links.Parents, want, g.Classes))
	}
}

// forward routes from the nodes' tangent coordinates a and returns the
// last iteration's σ(loĝ_o(s_j)) of the class capsules (see route).
func (g *GraphRouting[T]) forward(t *autodiff.Tape[T], a, beta *autodiff.Var[T], links *Links) *autodiff.Var[T] {
	r := g.Routing
	dims := r.Cfg.Dims
	C := g.Classes
	ix := r.cache.get(links)
	var betaBuf [maxGateK]*autodiff.Var[T]
	betas := r.perspectiveBetas(t, beta, &betaBuf)
	// One prediction op for all classes: (C·N) × (K·d), virtual child c·N + i.
	xi := predict(t, a, g.allWsph, g.allWeuc, g.allB, betas, dims.S, dims.T)
	if C == 1 {
		return r.route(t, ix, a, nil, xi, betas, beta)
	}
	var aBuf, pBuf [MaxGraphClasses]*autodiff.Var[T]
	as, ps := aBuf[:C], pBuf[:C]
	p1 := r.alignChildren(t, a)
	for c := range as {
		as[c], ps[c] = a, p1
	}
	at := autodiff.ConcatRows(t, as...) // (C·N) × d
	if p1 != nil {
		p1 = autodiff.ConcatRows(t, ps...) // a·W1 once per node, not per copy
	}
	return r.route(t, ix, at, p1, xi, betas, beta)
}

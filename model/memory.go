package model

// MemoryEstimator is a configuration that can estimate, before any
// allocation, the memory one training step of its model needs on a graph
// (or a mini-batch of graphs) of the given numbers of nodes and arcs: the
// parameters with their gradients and optimiser moments, and the
// activations the tape keeps. The estimate is coarse (within a small
// factor) and meant to refuse sizes that cannot fit, not to plan.
type MemoryEstimator interface {
	EstimateBytes(shape Shape, nodes, arcs int) int64
}

// floatBytes is the size of a stored value (float32).
const floatBytes = 4

// EstimateBytes implements MemoryEstimator: parameters × 4 copies (value,
// gradient, two Adam moments), the stem's node × hidden activations (about
// eight tensors of them on the tape), the capsules' node × D tensors, and
// per routing layer, per link, 2(3+T)/15 times K·D values (the tape's
// per-link values, the live gradients under ReleaseGrads and the routing
// ops' own buffers) and per node 4(2+T)/5 times K·D. Evaluation shares the
// training tape. Calibrated on the default network's peak resident memory,
// the whole process, at cff4aa3 (docs/performance.md): generated graphs of
// 10^6 and 10^7 edges take 0.90 and 0.87 of the estimate, 10^5 edges 1.2
// (the runtime's own tens of MiB weigh there); Coauthor CS 1.4 of it, the
// rest of its 6,805-column features, which the dataset holds, not the step
// (train's TestNodeTapeMemory checks that the estimate covers the tape).
func (c PRCapsConfig) EstimateBytes(shape Shape, nodes, arcs int) int64 {
	c = c.withDefaults()
	h, d := int64(c.Hidden), int64(c.S+c.T+1)
	n, links := int64(nodes), int64(arcs+nodes)
	k, layers, iters := int64(c.K), int64(c.Layers), int64(c.Iters)
	params := int64(shape.Features)*h + h*d + layers*k*(2*d*d+4*d) + int64(shape.Classes)*(d+2)
	acts := 8*n*h + 16*n*d + layers*(links*k*d*2*(3+iters)/15+n*k*d*4*(2+iters)/5)
	return floatBytes * (4*params + acts)
}

// EstimateBytes implements MemoryEstimator for the two-layer GCN.
func (c GCNConfig) EstimateBytes(shape Shape, nodes, arcs int) int64 {
	c = c.withDefaults()
	h, n := int64(c.Hidden), int64(nodes)
	params := int64(shape.Features)*h + h*int64(shape.Classes)
	acts := 6*n*h + 4*n*int64(shape.Classes) + int64(arcs+nodes)
	return floatBytes * (4*params + 2*acts)
}

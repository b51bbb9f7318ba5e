// Package sample draws GraphSAGE-style neighbour samples (Hamilton et al.
// 2017) for mini-batch training of node models on graphs too large for a
// full-batch pass.
//
// A Sampler takes a batch of seed nodes and expands it hop by hop: every
// node first reached at hop k keeps at most Fanouts[k] of its
// in-neighbours (all of them for −1), drawn without replacement. The
// sampled nodes are relabelled compactly in the order they are reached
// (the seeds first), so the nodes within k hops are a prefix of the batch,
// and the layers of a network are Blocks of one CSR: layer l's parents are
// the nodes within L−1−l hops, its children those within L−l hops, each
// parent's children its sampled in-neighbours and itself, sorted — the
// children → parents layout of capsule.Links and of a propagation
// operator's rows. A node is sampled once per batch and keeps its sample
// in every layer that reads it, as PyG's NeighborLoader does.
//
// A sample depends only on the graph, the seeds and the generator it is
// given; a Stream draws the batches of a whole run on one goroutine ahead
// of training, each batch from a generator of its own (the run's seed,
// the batch's number), so the batches are the same whatever the core
// count or the timing. The queue is bounded and Close stops the producer.
package sample

package sample

// Batch is the sampled multi-hop neighbourhood of a batch of seed nodes,
// relabelled compactly: local node i is graph node Nodes[i], and the nodes
// within k hops of the seeds are the first Hops[k] (the seeds are the
// first Hops[0]).
type Batch struct {
	// Nodes maps local ids to graph nodes, in the order they were reached.
	Nodes []int32
	// Hops[k] is the number of nodes within k hops; len(Hops) is the
	// number of sampled hops plus one.
	Hops []int
	// Ptr and Child hold the sampled children of every node within L−1
	// hops (L the number of hops): those of local node j are
	// Child[Ptr[j]:Ptr[j+1]], its sampled in-neighbours and itself, as
	// local ids in increasing order.
	Ptr, Child []int32
	// Deg is the in-degree in the whole graph of every sampled node,
	// counting a self-loop once whether or not the graph stores one: the
	// d̃ of GCN's D̃^−½(A+I)D̃^−½. A node's number of in-neighbours other
	// than itself is Deg−1, of which it sampled len(children)−1.
	Deg []int32
}

// Layers is the number of sampled hops: the message-passing layers the
// batch feeds.
func (b *Batch) Layers() int { return len(b.Hops) - 1 }

// Seeds are the batch's seed nodes (graph ids), whose outputs the last
// layer computes, in the order given to Sample.
func (b *Batch) Seeds() []int32 { return b.Nodes[:b.Hops[0]] }

// Block returns layer l of the batch's computation, l = 0 the input layer
// (reading the features of every sampled node) to Layers()−1, whose
// parents are the seeds.
func (b *Batch) Block(l int) Block {
	L := b.Layers()
	p, c := b.Hops[L-1-l], b.Hops[L-l]
	return Block{Parents: p, Children: c, Ptr: b.Ptr[:p+1], Child: b.Child[:b.Ptr[p]], Nodes: b.Nodes[:c], Deg: b.Deg[:c]}
}

// Block is one message-passing layer over a sample: parent j (local id j
// < Parents) reads the rows Child[Ptr[j]:Ptr[j+1]] (each < Children) of
// the layer's input; the parents are the first Parents children, so a
// parent's own input row is its own id. It is the parent-major layout of
// capsule.Links and of a CSR propagation operator (rows = parents).
type Block struct {
	Parents, Children int
	Ptr, Child        []int32
	// Nodes[i] is the graph node of child i; Deg[i] its in-degree in the
	// whole graph with a self-loop (Batch.Deg).
	Nodes []int32
	Deg   []int32
}

// NumLinks is the number of child → parent links, self-links included.
func (b Block) NumLinks() int { return len(b.Child) }

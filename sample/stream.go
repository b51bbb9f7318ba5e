package sample

import (
	"fmt"
	"math/rand/v2"

	"github.com/prcaps/prcaps/data"
)

// DefaultDepth is the default number of batches a Stream draws ahead.
const DefaultDepth = 4

// Stream draws the mini-batches of a run on a producer goroutine, ahead of
// training: every epoch takes the training nodes in a shuffled order
// (Order: beyond ShuffleMax nodes computed position by position, with no
// shuffled copy of the nodes), cuts them into batches of at most
// BatchNodes seeds, and samples each batch's neighbourhood. Batches come
// out in order through a queue of Depth batches; their storage is
// recycled through Release. The batches depend
// only on the graph, the nodes, the settings and the seed.
type Stream struct {
	out  chan *Batch
	free chan *Batch
	stop chan struct{}
	done chan struct{}
	err  error // set by the producer before it closes out
	// PerEpoch is the number of batches of an epoch.
	PerEpoch int
}

// StreamConfig configures a Stream.
type StreamConfig struct {
	Fanouts    Fanouts
	BatchNodes int    // seeds per batch (the last batch of an epoch may be smaller)
	Epochs     int    // epochs to draw
	Seed       uint64 // the run's seed
	Depth      int    // batches drawn ahead (0: DefaultDepth)
}

// NewStream starts drawing the batches of cfg.Epochs epochs over the seed
// nodes (distinct nodes of g). nodes is read, not copied, until Close
// returns, and must not be modified meanwhile: the stream keeps no copy
// of them, only the batches in flight and, for at most ShuffleMax nodes,
// their shuffled positions. Close must be called when done with it, also
// after an early stop.
func NewStream(g *data.Graph, nodes []int32, cfg StreamConfig) (*Stream, error) {
	if cfg.BatchNodes < 1 {
		return nil, fmt.Errorf("sample: batch of %d nodes: need at least 1", cfg.BatchNodes)
	}
	if cfg.Epochs < 1 {
		return nil, fmt.Errorf("sample: %d epochs: need at least 1", cfg.Epochs)
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("sample: no seed nodes")
	}
	if cfg.Depth <= 0 {
		cfg.Depth = DefaultDepth
	}
	s, err := NewSampler(g, cfg.Fanouts)
	if err != nil {
		return nil, err
	}
	st := &Stream{
		out:      make(chan *Batch, cfg.Depth),
		free:     make(chan *Batch, cfg.Depth+2),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
		PerEpoch: (len(nodes) + cfg.BatchNodes - 1) / cfg.BatchNodes,
	}
	// Depth queued, one being drawn, one in the consumer's hands.
	for range cfg.Depth + 2 {
		st.free <- &Batch{}
	}
	go st.produce(s, nodes, cfg)
	return st, nil
}

// batchRNG is the generator of batch i of epoch e: one per batch, so that
// a batch does not depend on how the others were drawn.
func batchRNG(seed uint64, e, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed^0x6a09e667f3bcc909, uint64(e)<<32|uint64(i)))
}

func (st *Stream) produce(s *Sampler, nodes []int32, cfg StreamConfig) {
	defer close(st.done)
	defer close(st.out)
	seeds := make([]int32, 0, min(cfg.BatchNodes, len(nodes)))
	var order Order
	for e := range cfg.Epochs {
		order.Reset(len(nodes), cfg.Seed, e)
		for i := range st.PerEpoch {
			var b *Batch
			select {
			case b = <-st.free:
			case <-st.stop:
				return
			}
			seeds = seeds[:0]
			for k := i * cfg.BatchNodes; k < min((i+1)*cfg.BatchNodes, len(nodes)); k++ {
				seeds = append(seeds, nodes[order.At(k)])
			}
			if err := s.Sample(b, seeds, batchRNG(cfg.Seed, e, i)); err != nil {
				st.err = fmt.Errorf("epoch %d, batch %d: %w", e+1, i, err)
				return
			}
			select {
			case st.out <- b:
			case <-st.stop:
				return
			}
		}
	}
}

// Next returns the next batch, waiting for it; nil after the last one (or
// after Close), with the producer's error if it failed.
func (st *Stream) Next() (*Batch, error) {
	b, ok := <-st.out
	if !ok {
		<-st.done
		return nil, st.err
	}
	return b, nil
}

// Release gives a batch returned by Next back for reuse; b must no longer
// be read.
func (st *Stream) Release(b *Batch) {
	select {
	case st.free <- b:
	default: // not one of ours, or released twice: drop it
	}
}

// Close stops the producer and waits for it to end. It may be called more
// than once.
func (st *Stream) Close() {
	select {
	case <-st.stop:
	default:
		close(st.stop)
	}
	<-st.done
}

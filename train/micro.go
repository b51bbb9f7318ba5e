package train

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/tensor"
)

// microSeedStream is the PCG stream of a seeded micro-batch's generator.
const microSeedStream = 0xda3e39cb94b95bdb

// How long a goroutine polls a channel before it blocks on it. A blocked
// goroutine's core may sleep, and waking it costs about 100 µs on this
// machine's virtual cores, a sixth of a 128-node micro-batch; a helper
// polls through the trainer's optimiser step between two mini-batches,
// and the trainer polls for the helpers' results, which come about when
// its own pieces are done.
const (
	helperSpin = 200 * time.Microsecond
	resultSpin = 2 * time.Millisecond
)

// microBatches runs a mini-batch's micro-batches as independent pieces
// (GraphProtocol.MicroBatchSeeds "on"): micro-batch k draws its dropout masks
// from a generator seeded with the k-th draw of the fold's generator, its
// gradients are computed from zero and kept aside, and the mini-batch's
// gradient is ((g₀ + g₁) + g₂) + …, in micro-batch order. No piece reads
// another's result, so up to cores() goroutines take the pieces in turn:
// the trainer on its own model and helpers on models of their own, whose
// parameters share their values with the trainer's. The sums, and so the
// results, are the same however many take part.
type microBatches struct {
	cores     func() int                       // how many may take part now (nil: one)
	replicate func() (model.GraphModel, error) // a fresh model like the trainer's (nil: no helpers)
	noHelpers bool                             // the model keeps buffers: every piece runs on the trainer's model

	helpers []*microHelper
	// The mini-batch in hand, written before the helpers start on it and
	// read-only while they work.
	epoch  int
	idx    []int32
	pieces          // the micro-batches, by their ends in idx
	seeds  []uint64 // their generators' seeds
	// Each micro-batch's outcome, written by the goroutine that ran it.
	parts []microPart
	pcg   rand.PCG   // the trainer's model's generator for its pieces
	rng   *rand.Rand // over pcg
}

// microPart is the outcome of one micro-batch: its mean loss, correct
// graphs, error, and the gradients of the trainable parameters, end to end.
type microPart struct {
	loss    float64
	correct int
	err     error
	grads   []float32
}

// microHelper takes micro-batches on a goroutine of its own.
type microHelper struct {
	graphPass
	params []*autodiff.Var[float32] // the trainable parameters, in the trainer's order
	pcg    rand.PCG
	rng    *rand.Rand
	eval   autodiff.Tape[float32] // for evaluation pieces (NoGrad)
	start  chan microWork         // pieces to take
	done   chan error             // a panic, or nil
}

// microWork is a set of pieces that the trainer and its helpers take in
// turn until none is left.
type microWork interface {
	// takeOn runs pieces on h's model and buffers until none is left.
	takeOn(h *microHelper, ds *data.GraphDataset)
}

// run takes pieces of the work it is given until start closes.
func (h *microHelper) run(ds *data.GraphDataset) {
	for {
		w, ok := spinRecv(h.start, helperSpin)
		if !ok {
			return
		}
		h.done <- h.take(ds, w)
	}
}

// take runs pieces of w until none is left; a panic is its error (the
// fold's own guard is on another goroutine).
func (h *microHelper) take(ds *data.GraphDataset, w microWork) (err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("train: micro-batch helper: panic: %v", e)
		}
	}()
	w.takeOn(h, ds)
	return nil
}

func (mb *microBatches) takeOn(h *microHelper, ds *data.GraphDataset) {
	mb.take(ds, &h.graphPass, h.params, &h.pcg, h.rng)
}

// take runs the pieces of the mini-batch in hand on p until none is left:
// it takes the next piece, computes its gradients into params from zero,
// drawing from rng (over pcg) seeded with the piece's seed, and copies
// them into the piece's outcome.
func (mb *microBatches) take(ds *data.GraphDataset, p *graphPass, params []*autodiff.Var[float32], pcg *rand.PCG, rng *rand.Rand) {
	for {
		k, ok := mb.claim()
		if !ok {
			return
		}
		lo, hi := mb.bounds(k)
		share := float64(hi-lo) / float64(len(mb.idx))
		zeroGrads(params)
		pcg.Seed(mb.seeds[k], microSeedStream)
		part := &mb.parts[k]
		part.loss, part.correct, part.err = p.step(ds, mb.epoch, mb.idx[lo:hi], share, rng)
		part.grads = part.grads[:0]
		for _, q := range params {
			part.grads = append(part.grads, q.Grad.Data...)
		}
	}
}

// spinRecv receives from ch, polling it for up to spin before it blocks.
func spinRecv[T any](ch chan T, spin time.Duration) (T, bool) {
	var start time.Time
	for i := 0; ; i++ {
		select {
		case v, ok := <-ch:
			return v, ok
		default:
		}
		if i%64 == 0 {
			if i == 0 {
				start = time.Now()
			} else if time.Since(start) > spin {
				break
			}
		}
	}
	v, ok := <-ch
	return v, ok
}

// newMicroHelper builds a helper whose model shares every parameter value
// with m's (the groups of both must match, parameter for parameter).
func newMicroHelper(m model.GraphModel, replicate func() (model.GraphModel, error), ds *data.GraphDataset) (*microHelper, error) {
	r, err := replicate()
	if err != nil {
		return nil, fmt.Errorf("train: micro-batch helper: %w", err)
	}
	mg, rg := m.Groups(), r.Groups()
	if len(mg) != len(rg) {
		return nil, fmt.Errorf("train: micro-batch helper: %d parameter groups, the model %d", len(rg), len(mg))
	}
	h := &microHelper{graphPass: graphPass{m: r}, start: make(chan microWork, 1), done: make(chan error, 1)}
	h.rng = rand.New(&h.pcg)
	h.tape.ReleaseGrads = true
	h.eval.NoGrad = true
	for g := range mg {
		if len(mg[g].Params) != len(rg[g].Params) {
			return nil, fmt.Errorf("train: micro-batch helper: group %q has %d parameters, the model's %d", rg[g].Name, len(rg[g].Params), len(mg[g].Params))
		}
		for i, p := range mg[g].Params {
			q := rg[g].Params[i]
			if q.Value.Rows != p.Value.Rows || q.Value.Cols != p.Value.Cols {
				return nil, fmt.Errorf("train: micro-batch helper: parameter %q is %d×%d, the model's %d×%d", q.Name, q.Value.Rows, q.Value.Cols, p.Value.Rows, p.Value.Cols)
			}
			q.Value = p.Value // the same backing array: the optimiser's steps reach both
			if !mg[g].Frozen && !mg[g].Buffer {
				h.params = append(h.params, q)
			}
		}
	}
	go tensor.FlushDenormals(func() { h.run(ds) })
	return h, nil
}

// close stops the helpers' goroutines.
func (mb *microBatches) close() {
	for _, h := range mb.helpers {
		close(h.start)
	}
	mb.helpers = nil
}

// zeroGrads sets the gradients of params to zero.
func zeroGrads(params []*autodiff.Var[float32]) {
	for _, p := range params {
		p.ZeroGrad()
	}
}

// helpersFor returns how many helpers take part in a mini-batch of n
// micro-batches: up to cores() goroutines in all, as far as helpers can be
// had.
func (tr *graphTrainer) helpersFor(n int) (int, error) {
	mb := &tr.micro
	if mb.cores == nil || mb.replicate == nil || mb.noHelpers {
		return 0, nil
	}
	w := max(0, min(n, mb.cores())-1)
	for len(mb.helpers) < w {
		h, err := newMicroHelper(tr.m, mb.replicate, tr.ds)
		if err != nil {
			return 0, err
		}
		mb.helpers = append(mb.helpers, h)
	}
	return w, nil
}

// seededGradients is gradients for seeded micro-batches: it sets the
// parameters' gradients to those of the mean loss over the graphs idx as
// the sum of the micro-batches' gradients in their order (see
// microBatches), and returns the mean loss and the number of correctly
// classified graphs.
func (tr *graphTrainer) seededGradients(epoch int, idx []int32) (float64, int, error) {
	mb := &tr.micro
	mb.epoch, mb.idx = epoch, idx
	tr.cut(&mb.pieces, idx, len(idx), tr.sizes.microNodes)
	mb.seeds = mb.seeds[:0]
	for range mb.ends {
		mb.seeds = append(mb.seeds, tr.rng.Uint64())
	}
	for len(mb.parts) < len(mb.ends) {
		mb.parts = append(mb.parts, microPart{})
	}
	if err := tr.share(mb, &mb.pieces, func() { mb.take(tr.ds, &tr.graphPass, tr.params, &mb.pcg, mb.rng) }); err != nil {
		return 0, 0, err
	}
	lv, correct := 0.0, 0
	for k, part := range mb.parts[:len(mb.ends)] {
		if part.err != nil {
			return part.loss, 0, part.err
		}
		off := 0
		for _, p := range tr.params {
			g := part.grads[off : off+len(p.Grad.Data)]
			if k == 0 {
				copy(p.Grad.Data, g)
			} else {
				for i, v := range g {
					p.Grad.Data[i] += v
				}
			}
			off += len(g)
		}
		lo, hi := mb.bounds(k)
		lv += part.loss * (float64(hi-lo) / float64(len(idx))) // the share, as gradients weighs it
		correct += part.correct
	}
	return lv, correct, nil
}

// share has the helpers that can be had (helpersFor) take the pieces ps
// of work while the trainer takes them too (own), and returns once all
// are done, with a failed helper build or a helper's panic as the error.
func (tr *graphTrainer) share(work microWork, ps *pieces, own func()) error {
	w, err := tr.helpersFor(len(ps.ends))
	if err != nil {
		return err
	}
	ps.next.Store(0)
	for _, h := range tr.micro.helpers[:w] {
		h.start <- work
	}
	own()
	for _, h := range tr.micro.helpers[:w] {
		if e, _ := spinRecv(h.done, resultSpin); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// cut sets ps to the consecutive batches of set that batchEnd makes: at
// most maxGraphs graphs and maxNodes nodes each, at least one graph.
func (tr *graphTrainer) cut(ps *pieces, set []int32, maxGraphs, maxNodes int) {
	ps.ends = ps.ends[:0]
	for lo, hi := 0, 0; lo < len(set); lo = hi {
		hi = tr.batchEnd(set, lo, maxGraphs, maxNodes)
		ps.ends = append(ps.ends, hi)
	}
}

// evalPieces are the evaluation batches of a set of graphs as pieces: each
// goroutine scores the batches it takes on its own model and tape, and
// evaluate adds their losses and accuracies up in batch order, so the
// result is the one of scoring them one after another.
type evalPieces struct {
	set    []int32
	pieces      // the batches, by their ends in set
	record bool // keep the logits and labels
	parts  []evalPart
}

// evalPart is the outcome of one evaluation batch.
type evalPart struct {
	loss, acc float64 // mean loss and accuracy over the batch
	err       error
	logits    []float32 // with record
	labels    []int32   // with record
	classes   int
}

func (ev *evalPieces) takeOn(h *microHelper, ds *data.GraphDataset) {
	ev.take(ds, &h.graphPass, &h.eval, h.rng)
}

// take scores the batches of ev on p's model and batch with tape until
// none is left.
func (ev *evalPieces) take(ds *data.GraphDataset, p *graphPass, tape *autodiff.Tape[float32], rng *rand.Rand) {
	for {
		k, ok := ev.claim()
		if !ok {
			return
		}
		lo, hi := ev.bounds(k)
		part := &ev.parts[k]
		if part.err = p.load(ds, ev.set[lo:hi]); part.err != nil {
			continue
		}
		tape.Reset()
		out := p.m.Forward(tape, &p.batch, false, rng)
		l := autodiff.SoftmaxCrossEntropy(tape, out, p.labels, p.rows)
		part.loss = float64(l.Value.Data[0])
		part.acc = autodiff.Accuracy(&out.Value, p.labels, p.rows)
		if ev.record {
			part.labels = append(part.labels[:0], p.batch.Y...)
			part.logits = append(part.logits[:0], out.Value.Data...)
			part.classes = out.Value.Cols
		}
	}
}

// pieces are consecutive parts of a list, given by their ends, that
// several goroutines take in turn.
type pieces struct {
	ends []int
	next atomic.Int32 // the next piece to take
}

// claim takes the next piece; ok is false when none is left.
func (ps *pieces) claim() (k int, ok bool) {
	k = int(ps.next.Add(1)) - 1
	return k, k < len(ps.ends)
}

// bounds returns piece k's range in the list.
func (ps *pieces) bounds(k int) (lo, hi int) {
	if k > 0 {
		lo = ps.ends[k-1]
	}
	return lo, ps.ends[k]
}

package train

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/sample"
	"github.com/prcaps/prcaps/tensor"
)

// Sampling configures neighbour-sampled mini-batch training of node
// models (package sample). The zero value is off: full-batch training.
// NodeProtocol holds it as its Fanout and BatchNodes options.
type Sampling struct {
	// Fanout is the number of in-neighbours kept per node at each hop, the
	// seeds' first; −1 keeps them all. One per message-passing layer of
	// the model.
	Fanout sample.Fanouts
	// BatchNodes is the number of training nodes (seeds) per mini-batch;
	// evaluation runs layer by layer in blocks of as many nodes.
	BatchNodes int
}

// On reports whether sampling is asked for.
func (s Sampling) On() bool { return s.BatchNodes > 0 || len(s.Fanout) > 0 }

// Validate reports a half-given or invalid configuration.
func (s Sampling) Validate() error {
	if !s.On() {
		return nil
	}
	if s.BatchNodes < 1 || s.BatchNodes > 1e9 {
		return fmt.Errorf("sampled training needs batch-nodes in 1 to 1e9, not %d", s.BatchNodes)
	}
	if len(s.Fanout) == 0 {
		return fmt.Errorf("sampled training needs the fan-outs (e.g. fanout 15,10)")
	}
	return s.Fanout.Validate()
}

// CheckSampled returns m as a model.BlockModel, or reports why it cannot
// train on smp's sampled mini-batches: it has no block form, its
// configuration has none, or smp has not one fan-out per message-passing
// layer.
func CheckSampled(m model.NodeModel, smp Sampling) (model.BlockModel, error) {
	bm, ok := m.(model.BlockModel)
	if !ok {
		return nil, fmt.Errorf("the model does not train on sampled neighbourhoods (%s do)", strings.Join(model.BlockModelNames(), ", "))
	}
	if err := bm.CheckBlocks(); err != nil {
		return nil, err
	}
	if len(smp.Fanout) != bm.Depth() {
		return nil, fmt.Errorf("fan-outs %v: the model has %d message-passing layers, so needs %d fan-outs", smp.Fanout, bm.Depth(), bm.Depth())
	}
	return bm, nil
}

// RunNodeSampled trains m on neighbour-sampled mini-batches of split.Train
// (smp) for cfg.Epochs epochs and returns the accuracies at the epoch of
// best validation accuracy, as RunNode does. Each epoch is one pass over
// the training nodes in shuffled batches, one optimiser step per batch; the
// validation and test accuracies are exact, from layer-wise inference with
// every neighbour (model.LayerwiseLogits). obs, if non-nil, observes the
// run (as run 0).
func RunNodeSampled(m model.NodeModel, ds *data.NodeDataset, split data.Split, cfg Config, smp Sampling, seed uint64, obs Observer) (res Result, err error) {
	w := alone(obs)
	tensor.FlushDenormals(func() { res, err = trainNodeSampled(m, ds, split, cfg, smp, seed, w, nil) })
	if err == nil {
		w.finished(res)
	}
	return res, err
}

// blockTrainer is a nodeTrainer's state for mini-batches.
type blockTrainer struct {
	*nodeTrainer
	bm       model.BlockModel
	seedRows []int32 // 0 … batch size − 1
	y        []int32 // the batch's labels
	batchLab autodiff.Labels
	lw       model.Layerwise
	// evalRows are the validation then the test nodes, whose logits
	// layer-wise inference computes (in that order), and valLab and
	// testLab their labels: no per-node copy of the graph's labels. The
	// first evaluation sets them (evalState), so that the training steps
	// hold nothing that grows with the graph's nodes.
	evalRows        []int32
	valLab, testLab autodiff.Labels
	blocks          int
	st              *sample.Stream // the run's batches
	first           float64        // the loss of the run's first step (NaN before it)
}

// trainNodeSampled is the epoch loop with an epoch of sampled mini-batches:
// the run's batches come from a sample.Stream drawing ahead on its own
// goroutine, which is closed on every return.
func trainNodeSampled(m model.NodeModel, ds *data.NodeDataset, split data.Split, cfg Config, smp Sampling, seed uint64, w *watch, stop <-chan struct{}) (Result, error) {
	tr, err := newBlockTrainer(m, ds, split, cfg, smp, seed)
	if err != nil {
		return Result{}, err
	}
	st, err := sample.NewStream(ds.Graph, split.Train, sample.StreamConfig{Fanouts: smp.Fanout, BatchNodes: smp.BatchNodes, Epochs: cfg.Epochs, Seed: seed})
	if err != nil {
		return Result{}, fmt.Errorf("train: %w", err)
	}
	defer st.Close()
	tr.st = st
	k := &epochs{learner: &tr.learner, m: m, rule: selectNode, train: tr.epoch, evaluate: tr.evaluateBlocks}
	return runEpochs(k, cfg, seed, w, stop)
}

// newBlockTrainer checks smp against m and sets up a blockTrainer without
// its batch stream.
func newBlockTrainer(m model.NodeModel, ds *data.NodeDataset, split data.Split, cfg Config, smp Sampling, seed uint64) (*blockTrainer, error) {
	if !smp.On() {
		return nil, fmt.Errorf("train: sampled training needs a sampling configuration (fan-outs and batch nodes)")
	}
	if err := smp.Validate(); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	bm, err := CheckSampled(m, smp)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	nt, err := newTrainer(m, ds, split, cfg, seed, false)
	if err != nil {
		return nil, err
	}
	tr := &blockTrainer{nodeTrainer: nt, bm: bm, blocks: smp.BatchNodes, first: math.NaN()}
	tr.tape.Grow = true // batches vary in size
	return tr, nil
}

// evalState sets the evaluation rows and their labels on first use.
func (tr *blockTrainer) evalState() error {
	if tr.evalRows != nil {
		return nil
	}
	if err := tr.valLab.Set(gatherLabels(tr.ds.Y, tr.split.Val), tr.ds.NumClasses); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if err := tr.testLab.Set(gatherLabels(tr.ds.Y, tr.split.Test), tr.ds.NumClasses); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	tr.evalRows = slices.Concat(tr.split.Val, tr.split.Test)
	return nil
}

// epoch takes an epoch's steps, one per batch of tr.st.
func (tr *blockTrainer) epoch(epoch int) (trained, error) {
	var lossSum float64
	var correct, seen int
	for range tr.st.PerEpoch {
		b, err := tr.st.Next()
		if err == nil && b == nil {
			err = fmt.Errorf("the batch stream ended early")
		}
		if err != nil {
			return trained{}, fmt.Errorf("train: epoch %d: %w", epoch, err)
		}
		lv, ok, err := tr.batchStep(epoch, b)
		tr.st.Release(b)
		if err != nil {
			return trained{}, err
		}
		if math.IsNaN(tr.first) {
			tr.first = lv
		}
		n := len(b.Seeds())
		lossSum += lv * float64(n)
		correct += ok
		seen += n
	}
	return trained{loss: lossSum / float64(seen), first: tr.first, acc: float64(correct) / float64(seen)}, nil
}

// batchStep takes one optimiser step on batch b and returns its training
// loss and the number of its seeds classified right (before the step).
func (tr *blockTrainer) batchStep(epoch int, b *sample.Batch) (float64, int, error) {
	seeds := b.Seeds()
	tr.y = tr.y[:0]
	for _, v := range seeds {
		tr.y = append(tr.y, max(tr.ds.Y[v], 0))
	}
	if err := tr.batchLab.Set(tr.y, tr.ds.NumClasses); err != nil {
		return 0, 0, err
	}
	for len(tr.seedRows) < len(seeds) {
		tr.seedRows = append(tr.seedRows, int32(len(tr.seedRows)))
	}
	rows := tr.seedRows[:len(seeds)]
	t := &tr.tape
	t.Reset()
	logits := model.ForwardBatch(t, tr.bm, b, tr.ds.X, true, tr.rng)
	loss := autodiff.SoftmaxCrossEntropy(t, logits, tr.batchLab, rows)
	ok := int(math.Round(autodiff.Accuracy(&logits.Value, tr.batchLab, rows) * float64(len(rows))))
	lv := float64(loss.Value.Data[0])
	if math.IsNaN(lv) || math.IsInf(lv, 0) {
		return lv, ok, fmt.Errorf("train: epoch %d: training loss is %v: %w", epoch, lv, ErrNonFinite)
	}
	tr.opt.ZeroGrad()
	if err := t.Backward(loss); err != nil {
		return lv, ok, err
	}
	return lv, ok, tr.update(epoch)
}

// evaluateBlocks scores the validation and test nodes by layer-wise
// inference with every neighbour and fills e's accuracies; it returns the
// validation loss.
func (tr *blockTrainer) evaluateBlocks(e *Epoch) (float64, error) {
	t := &tr.tape
	t.NoGrad = true
	defer func() { t.NoGrad = false }()
	if err := tr.evalState(); err != nil {
		return 0, err
	}
	logits, err := model.LayerwiseLogits(t, tr.bm, tr.ds.Graph, tr.ds.X, tr.evalRows, tr.blocks, &tr.lw)
	if err != nil {
		return 0, fmt.Errorf("train: evaluation: %w", err)
	}
	// logits holds the validation rows, then the test rows.
	nv, C := len(tr.split.Val), logits.Cols
	val := tensor.Dense[float32]{Rows: nv, Cols: C, Data: logits.Data[:nv*C]}
	test := tensor.Dense[float32]{Rows: logits.Rows - nv, Cols: C, Data: logits.Data[nv*C:]}
	t.Reset()
	vl := autodiff.SoftmaxCrossEntropy(t, autodiff.NewVar(&val, false), tr.valLab, nil)
	e.ValAcc = autodiff.Accuracy(&val, tr.valLab, nil)
	e.TestAcc = autodiff.Accuracy(&test, tr.testLab, nil)
	return float64(vl.Value.Data[0]), nil
}

// gatherLabels returns y's labels of the nodes rows.
func gatherLabels(y, rows []int32) []int32 {
	out := make([]int32, len(rows))
	for i, r := range rows {
		out[i] = y[r]
	}
	return out
}

// StepRun says what SampledSteps measures.
type StepRun struct {
	// Steps is the number of optimiser steps to take (at least 1).
	Steps int
	// OnStep, if non-nil, is called after each step with its number (from 0).
	OnStep func(int)
	// Evaluate asks for one evaluation after the steps: the layer-wise
	// inference with every neighbour that scores the validation and test
	// nodes at the end of each sampled epoch. BeforeEval, if non-nil, is
	// called just before it.
	Evaluate   bool
	BeforeEval func()
}

// StepTimes is what SampledSteps measured.
type StepTimes struct {
	// Secs is the wall time of each step, the wait for its batch included,
	// and Seeds its number of seed nodes.
	Secs  []float64
	Seeds []int
	// EvalSecs is the evaluation's wall time (0 without StepRun.Evaluate).
	EvalSecs float64
}

// SampledSteps takes run.Steps optimiser steps of m's sampled mini-batch
// training on split.Train (the batches of RunNodeSampled, epoch after
// epoch as needed), without evaluating between them, and then, if asked,
// one evaluation: the scale benchmark's measure, whose cost per seed node
// must not grow with the graph.
func SampledSteps(m model.NodeModel, ds *data.NodeDataset, split data.Split, cfg Config, smp Sampling, seed uint64, run StepRun) (st StepTimes, err error) {
	tensor.FlushDenormals(func() { st, err = sampledSteps(m, ds, split, cfg, smp, seed, run) })
	return st, err
}

func sampledSteps(m model.NodeModel, ds *data.NodeDataset, split data.Split, cfg Config, smp Sampling, seed uint64, run StepRun) (StepTimes, error) {
	var out StepTimes
	if run.Steps < 1 {
		return out, fmt.Errorf("train: %d steps: need at least 1", run.Steps)
	}
	tr, err := newBlockTrainer(m, ds, split, cfg, smp, seed)
	if err != nil {
		return out, err
	}
	per := (len(split.Train) + smp.BatchNodes - 1) / smp.BatchNodes
	st, err := sample.NewStream(ds.Graph, split.Train, sample.StreamConfig{Fanouts: smp.Fanout, BatchNodes: smp.BatchNodes, Epochs: (run.Steps + per - 1) / per, Seed: seed})
	if err != nil {
		return out, fmt.Errorf("train: %w", err)
	}
	defer st.Close()
	tr.opt.SetLR(tr.lr(0))
	out.Secs, out.Seeds = make([]float64, 0, run.Steps), make([]int, 0, run.Steps)
	for i := range run.Steps {
		start := time.Now()
		b, err := st.Next()
		if err == nil && b == nil {
			err = fmt.Errorf("the batch stream ended early")
		}
		if err != nil {
			return out, fmt.Errorf("train: step %d: %w", i+1, err)
		}
		_, _, err = tr.batchStep(1+i/per, b)
		n := len(b.Seeds())
		st.Release(b)
		if err != nil {
			return out, err
		}
		out.Secs, out.Seeds = append(out.Secs, time.Since(start).Seconds()), append(out.Seeds, n)
		if run.OnStep != nil {
			run.OnStep(i)
		}
	}
	if !run.Evaluate {
		return out, nil
	}
	if run.BeforeEval != nil {
		run.BeforeEval()
	}
	start := time.Now()
	var e Epoch
	if _, err := tr.evaluateBlocks(&e); err != nil {
		return out, err
	}
	out.EvalSecs = time.Since(start).Seconds()
	return out, nil
}

package train

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/optim"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/tensor"
)

// Config is the training loop's configuration. The zero value is not
// useful; start from DefaultConfig or Recipe. The opt and help tags name
// the fields for command lines (package option reads them).
type Config struct {
	Epochs      int     `opt:"epochs" min:"1" max:"1e6" help:"training epochs"`
	LR          float64 `opt:"lr" gt:"0" help:"finite learning rate"`
	WeightDecay float64 `opt:"wd" min:"0" help:"weight decay: coupled L2 for adam and radam, decoupled for adamw"`
	Optimizer   string  `opt:"optimizer" help:"adam, adamw or radam (RiemannianAdam)"`
	Clip        float64 `opt:"clip" min:"0" help:"clip the global gradient norm to this value, 0: off"`
	Patience    int     `opt:"patience" min:"0" help:"stop a run after this many epochs without a better validation accuracy (0: never)"`
	// AllowDivergence turns off the divergence rule (see ErrDiverged).
	AllowDivergence bool `opt:"allow-divergence" help:"keep training a run whose loss stays over 100 times its initial value for 3 epochs (by default such a run fails as diverged)"`
	// LRSchedule is the learning rate per epoch: "" or ScheduleConstant,
	// ScheduleCosine, ScheduleStep, ScheduleExponential.
	LRSchedule string `opt:"lr-schedule" help:"learning rate per epoch: constant, cosine (annealed to 0 over the epochs), step (halved every lr-step-every epochs, GIN's TU setting) or exponential (× 0.95 per epoch, GRDL's)"`
	// StepEvery is the period of ScheduleStep, in epochs (unused by the
	// other schedules).
	StepEvery int `opt:"lr-step-every" min:"1" max:"1e6" help:"with lr-schedule step: halve the rate every this many epochs"`
}

// Unread implements option.Unreader: lr-step-every is the step
// schedule's period and read by no other schedule. (An unknown schedule is
// Validate's to report.)
func (c Config) Unread() map[string]string {
	if c.LRSchedule == ScheduleStep || CheckSchedule(c.LRSchedule) != nil {
		return nil
	}
	name := c.LRSchedule
	if name == "" {
		name = ScheduleConstant
	}
	return map[string]string{"lr-step-every": "to the " + name + " learning-rate schedule: it is the period of --lr-schedule step"}
}

// Validate reports an invalid field.
func (c Config) Validate() error {
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) || x < 0 }
	switch {
	case c.Epochs < 1 || c.Epochs > 1_000_000:
		return fmt.Errorf("epochs %d: need 1 to 1,000,000", c.Epochs)
	case bad(c.LR) || c.LR == 0:
		return fmt.Errorf("learning rate %v must be positive and finite", c.LR)
	case bad(c.WeightDecay):
		return fmt.Errorf("weight decay %v must be non-negative and finite", c.WeightDecay)
	case bad(c.Clip):
		return fmt.Errorf("clip %v must be non-negative and finite (0: off)", c.Clip)
	case c.Patience < 0:
		return fmt.Errorf("patience %d must not be negative", c.Patience)
	case c.StepEvery < 0 || c.StepEvery > 1_000_000 || (c.StepEvery == 0 && c.LRSchedule == ScheduleStep):
		return fmt.Errorf("lr-step-every %d: need 1 to 1,000,000 with the step schedule", c.StepEvery)
	}
	switch c.Optimizer {
	case "", "adam", "adamw", "radam", "riemannianadam":
	default:
		return fmt.Errorf("unknown optimizer %q (want adam, adamw or radam)", c.Optimizer)
	}
	return CheckSchedule(c.LRSchedule)
}

// DefaultConfig is the training configuration of a node model with no
// recipe of its own (model.NodeRecipe): a 200-epoch Adam run at lr 0.01
// with weight decay 5e-4, Kipf & Welling's GCN setting.
func DefaultConfig() Config { return fromRecipe(model.NodeRecipe) }

// NewOptimizer builds cfg's optimiser over groups.
func NewOptimizer(cfg Config, groups []optim.Group[float32]) (optim.Optimizer, error) {
	oc := optim.DefaultConfig()
	oc.LR, oc.WeightDecay = cfg.LR, cfg.WeightDecay
	switch cfg.Optimizer {
	case "adam", "":
		return optim.NewAdam(oc, groups...)
	case "adamw":
		return optim.NewAdamW(oc, groups...)
	case "radam", "riemannianadam":
		return optim.NewRiemannianAdam(oc, groups...)
	}
	return nil, fmt.Errorf("train: unknown optimizer %q (want adam, adamw or radam)", cfg.Optimizer)
}

// Epoch is the report of one epoch (Observer).
type Epoch struct {
	Epoch int // 1-based
	Loss  float64
	// TrainAcc is the accuracy on the training examples of the epoch's
	// training passes (dropout on, each before its update): an evaluation
	// pass scores only the validation and test examples. TestAcc is NaN in
	// a graph run, which scores its test set once, after the last epoch
	// (unless a TestCurveObserver has it scored every epoch).
	TrainAcc, ValAcc, TestAcc float64
	Best                      bool    // this epoch is the best so far on validation
	LR                        float64 // the learning rate the epoch trained at
	// Curvatures are the model's learned curvatures after the epoch, for
	// a model.CurvatureReporter (valid until the next epoch's report).
	Curvatures []model.Curvature
}

// Result is the outcome of one training run, in the form the logs keep
// (record.Result).
type Result = record.Result

// improvedBy reports whether an epoch with validation accuracy valAcc and
// loss valLoss beats r, the best so far: higher accuracy, ties broken by
// lower loss (DESIGN §6; test labels never enter the choice).
func improvedBy(r *Result, valAcc, valLoss float64) bool {
	return valAcc > r.ValAcc || (valAcc == r.ValAcc && valLoss < r.ValLoss)
}

// ErrNonFinite is wrapped by the error of a run whose loss or gradients
// became NaN or Inf.
var ErrNonFinite = errors.New("non-finite value")

// NodeLabels validates y for the loss. Nodes without a label (−1) are given
// class 0: they must not be in any split, which RunNode checks.
func NodeLabels(y []int32, classes int) (autodiff.Labels, error) {
	yy := make([]int32, len(y))
	for i, c := range y {
		yy[i] = max(c, 0)
	}
	return autodiff.NewLabels(yy, classes)
}

// nodeTrainer holds one run's state: the model, its optimiser, the tapes
// for training and evaluation, and the labels.
type nodeTrainer struct {
	learner
	m      model.NodeModel
	ds     *data.NodeDataset
	split  data.Split
	labels autodiff.Labels
	// tape records the training passes and, with NoGrad set for the
	// while, the evaluation ones: an evaluation pass records the ops of a
	// training pass at the same positions (dropout takes its position with
	// Tape.Skip), so it reuses their buffers instead of holding a second
	// set.
	tape autodiff.Tape[float32]
	// rows is m when its passes can skip the nodes they do not read
	// (model.RowsForwarder), else nil: a training pass reads the training
	// nodes, an evaluation pass evalRows, the validation and test nodes.
	rows     model.RowsForwarder
	evalRows []int32
	// trainAcc is the accuracy of the last training pass on the training
	// nodes.
	trainAcc float64
}

func newNodeTrainer(m model.NodeModel, ds *data.NodeDataset, split data.Split, cfg Config, seed uint64) (*nodeTrainer, error) {
	return newTrainer(m, ds, split, cfg, seed, true)
}

// newTrainer is newNodeTrainer; without full, for mini-batch training,
// it keeps no per-node state (no label copy of the graph's size, no
// evaluation rows): a sampled run reads the labels of each batch's seeds
// and keeps its own of the evaluation nodes.
func newTrainer(m model.NodeModel, ds *data.NodeDataset, split data.Split, cfg Config, seed uint64, full bool) (*nodeTrainer, error) {
	for _, set := range [][]int32{split.Train, split.Val, split.Test} {
		for _, v := range set {
			if v < 0 || int(v) >= len(ds.Y) || ds.Y[v] < 0 {
				return nil, fmt.Errorf("train: split holds node %d, which has no label", v)
			}
			if int(ds.Y[v]) >= ds.NumClasses {
				return nil, fmt.Errorf("train: node %d has label %d; the dataset has %d classes", v, ds.Y[v], ds.NumClasses)
			}
		}
	}
	if len(split.Train) == 0 || len(split.Val) == 0 || len(split.Test) == 0 {
		return nil, fmt.Errorf("train: %s: the split has %d training, %d validation and %d test nodes: each needs at least one",
			ds.Name, len(split.Train), len(split.Val), len(split.Test))
	}
	var labels autodiff.Labels
	if full {
		var err error
		if labels, err = NodeLabels(ds.Y, ds.NumClasses); err != nil {
			return nil, err
		}
	}
	l, err := newLearner(m.Groups(), cfg, seed)
	if err != nil {
		return nil, err
	}
	tr := &nodeTrainer{learner: l, m: m, ds: ds, split: split, labels: labels}
	tr.tape.ReleaseGrads = true // the step reads only parameter gradients
	if tr.rows, _ = m.(model.RowsForwarder); tr.rows != nil && full {
		tr.evalRows = slices.Concat(split.Val, split.Test)
	}
	return tr, nil
}

// step runs one training step and returns the training loss.
func (tr *nodeTrainer) step(epoch int) (float64, error) {
	lv, err := tr.gradients(epoch)
	if err != nil {
		return lv, err
	}
	return lv, tr.update(epoch)
}

// gradients records the forward pass of a training step and sets the
// parameters' gradients by the backward pass; it returns the training
// loss. It reads the parameters but does not change them, so an
// evaluation pass of the previous epoch may run beside it (overlapEval).
func (tr *nodeTrainer) gradients(epoch int) (float64, error) {
	tr.tape.Reset()
	var logits *autodiff.Var[float32]
	if tr.rows != nil { // the loss reads the training nodes only
		logits = tr.rows.ForwardRows(&tr.tape, tr.ds.Graph, tr.ds.X, tr.split.Train, true, tr.rng)
	} else {
		logits = tr.m.Forward(&tr.tape, tr.ds.Graph, tr.ds.X, true, tr.rng)
	}
	loss := autodiff.SoftmaxCrossEntropy(&tr.tape, logits, tr.labels, tr.split.Train)
	tr.trainAcc = autodiff.Accuracy(&logits.Value, tr.labels, tr.split.Train)
	lv := float64(loss.Value.Data[0])
	if math.IsNaN(lv) || math.IsInf(lv, 0) {
		return lv, fmt.Errorf("train: epoch %d: training loss is %v: %w", epoch, lv, ErrNonFinite)
	}
	tr.opt.ZeroGrad()
	return lv, tr.tape.Backward(loss)
}

// evaluate scores the validation and test nodes in evaluation mode on the
// training tape and fills e's accuracies; it returns the validation loss.
func (tr *nodeTrainer) evaluate(e *Epoch) float64 {
	t := &tr.tape
	t.NoGrad = true
	defer func() { t.NoGrad = false }()
	return tr.evaluateOn(t, e)
}

// evaluateOn is evaluate on the tape t, which has NoGrad set.
func (tr *nodeTrainer) evaluateOn(t *autodiff.Tape[float32], e *Epoch) float64 {
	t.Reset()
	var out *autodiff.Var[float32]
	if tr.rows != nil {
		out = tr.rows.ForwardRows(t, tr.ds.Graph, tr.ds.X, tr.evalRows, false, nil)
	} else {
		out = tr.m.Forward(t, tr.ds.Graph, tr.ds.X, false, nil)
	}
	vl := autodiff.SoftmaxCrossEntropy(t, out, tr.labels, tr.split.Val)
	e.ValAcc = autodiff.Accuracy(&out.Value, tr.labels, tr.split.Val)
	e.TestAcc = autodiff.Accuracy(&out.Value, tr.labels, tr.split.Test)
	return float64(vl.Value.Data[0])
}

// RunNode trains m full-batch on split.Train for cfg.Epochs epochs,
// evaluating every epoch, and returns the accuracies at the epoch of best
// validation accuracy. obs, if non-nil, observes the run (as run 0).
// On a small graph with two cores free, each epoch's evaluation runs beside
// the next epoch's forward and backward passes (see overlapEval); the
// results are the same bits either way, and m's Forward must then allow a
// training and an evaluation pass on two tapes at once, as every
// registered node model does.
func RunNode(m model.NodeModel, ds *data.NodeDataset, split data.Split, cfg Config, seed uint64, obs Observer) (Result, error) {
	w := alone(obs)
	res, err := runNode(m, ds, split, cfg, Sampling{}, seed, w, nil)
	if err == nil {
		w.finished(res)
	}
	return res, err
}

// runNode is RunNode reporting to w, without w.finished; a closed stop
// ends the run at the next epoch with ErrInterrupted. With smp on, the run
// trains on sampled mini-batches (RunNodeSampled). The run flushes
// denormals (tensor.FlushDenormals), as do the goroutines it starts, so
// that results do not depend on where a pass ran.
func runNode(m model.NodeModel, ds *data.NodeDataset, split data.Split, cfg Config, smp Sampling, seed uint64, w *watch, stop <-chan struct{}) (res Result, err error) {
	if smp.On() {
		tensor.FlushDenormals(func() { res, err = trainNodeSampled(m, ds, split, cfg, smp, seed, w, stop) })
		return res, err
	}
	tensor.FlushDenormals(func() { res, err = trainNode(m, ds, split, cfg, seed, w, stop) })
	return res, err
}

// trainNode is runNode on the calling goroutine as it is: the epoch loop
// with one full-batch step an epoch.
func trainNode(m model.NodeModel, ds *data.NodeDataset, split data.Split, cfg Config, seed uint64, w *watch, stop <-chan struct{}) (Result, error) {
	tr, err := newNodeTrainer(m, ds, split, cfg, seed)
	if err != nil {
		return Result{}, err
	}
	k := &epochs{learner: &tr.learner, m: m, rule: selectNode,
		train: func(epoch int) (trained, error) {
			lv, err := tr.gradients(epoch)
			return trained{loss: lv, first: lv, acc: tr.trainAcc}, err // an epoch is one step
		},
		update:   tr.update,
		evaluate: func(e *Epoch) (float64, error) { return tr.evaluate(e), nil },
	}
	if overlapEval(ds) {
		// Every kernel runs on its caller while the two passes share the
		// cores (the same chunks, so the same bits).
		defer tensor.OccupyAll()()
		k.bg = tr.startEvaluator()
		defer k.bg.close()
	} else if tr.rows != nil && len(tr.evalRows) > len(tr.split.Train) {
		// The training passes (the training nodes' rows) and the
		// evaluation passes (the validation and test nodes' rows) share
		// one tape. When the evaluation scores more nodes (a Planetoid
		// split), one evaluation pass first sizes its buffers for both,
		// where a first training pass would leave buffers too small for
		// the first evaluation, replaced then as garbage that raises the
		// peak memory.
		var warm Epoch
		tr.evaluate(&warm)
	}
	return runEpochs(k, cfg, seed, w, stop)
}

// overlapMaxLinks bounds the graphs whose evaluation passes overlap the
// training steps: links (arcs plus nodes) up to it. On small graphs the
// kernels' chunks are too short for a second core to pay off inside a
// pass, while a whole evaluation pass beside the next step keeps it busy;
// larger graphs keep the kernels parallel and their memory for one tape
// (docs/performance.md).
const overlapMaxLinks = 1 << 16

// overlapEval reports whether a run on ds evaluates each epoch beside the
// next epoch's training step: on a small graph (overlapMaxLinks) when two
// cores are free, that is, when no other run holds one (tensor.Occupy).
func overlapEval(ds *data.NodeDataset) bool {
	return tensor.FreeCores() >= 2 && ds.Graph.NumArcs()+ds.Graph.N <= overlapMaxLinks
}

// evaluator runs a trainer's evaluation passes on a goroutine of its own,
// on a tape of its own, one epoch at a time.
type evaluator struct {
	tr   *nodeTrainer
	tape autodiff.Tape[float32]
	req  chan Epoch
	done chan evalResult
}

type evalResult struct {
	ep      Epoch
	valLoss float64
	panic   any
}

func (tr *nodeTrainer) startEvaluator() *evaluator {
	ev := &evaluator{tr: tr, req: make(chan Epoch, 1), done: make(chan evalResult, 1)}
	ev.tape.NoGrad = true
	go tensor.FlushDenormals(ev.loop)
	return ev
}

func (ev *evaluator) loop() {
	for ep := range ev.req {
		ev.done <- ev.run(ep)
	}
}

// run evaluates one epoch, turning a panic into a value for wait to
// re-raise on the run's goroutine (whose boundary reports it).
func (ev *evaluator) run(ep Epoch) (r evalResult) {
	defer func() {
		if p := recover(); p != nil {
			r = evalResult{panic: p}
		}
	}()
	vl := ev.tr.evaluateOn(&ev.tape, &ep)
	return evalResult{ep: ep, valLoss: vl}
}

// start evaluates the model as it is now, as epoch ep.
func (ev *evaluator) start(ep Epoch) { ev.req <- ep }

// wait returns the epoch started last, with its accuracies.
func (ev *evaluator) wait() (Epoch, float64) {
	r := <-ev.done
	if r.panic != nil {
		panic(r.panic)
	}
	return r.ep, r.valLoss
}

// close ends the goroutine; no evaluation may be in flight.
func (ev *evaluator) close() { close(ev.req) }

// swapParams exchanges the values of params with the flat copy kept.
func swapParams(params []*autodiff.Var[float32], kept []float32) {
	off := 0
	for _, p := range params {
		for i, v := range kept[off : off+len(p.Value.Data)] {
			kept[off+i], p.Value.Data[i] = p.Value.Data[i], v
		}
		off += len(p.Value.Data)
	}
}

// StepAllocs warms a run up and returns the median number of heap
// allocations of one steady-state epoch (training step plus evaluation):
// the engine's "no allocation in the training step" contract, measured.
// The count is process-wide, so the runtime's own occasional allocations
// (a GC cycle starting its workers, the scavenger's timers) land in some
// epoch now and then; the median ignores them, while an allocation in the
// step itself shows up in every epoch.
func StepAllocs(m model.NodeModel, ds *data.NodeDataset, split data.Split, cfg Config) (float64, error) {
	tr, err := newNodeTrainer(m, ds, split, cfg, 0)
	if err != nil {
		return 0, err
	}
	const warm, runs = 10, 15
	var e Epoch
	counts := make([]uint64, runs)
	var before, after runtime.MemStats
	for i := 1; i <= warm+runs; i++ {
		runtime.ReadMemStats(&before)
		if _, err := tr.step(i); err != nil {
			return 0, err
		}
		tr.evaluate(&e)
		runtime.ReadMemStats(&after)
		if i > warm {
			counts[i-warm-1] = after.Mallocs - before.Mallocs
		}
	}
	slices.Sort(counts)
	return float64(counts[runs/2]), nil
}

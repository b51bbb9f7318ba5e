package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/tensor"
)

// GraphBuilder makes a fresh graph model for one fold from that fold's seed.
type GraphBuilder func(seed uint64) (model.GraphModel, error)

// DefaultBatchSize is the graph mini-batch size of the paper (DESIGN §5
// "Optimiser": batch 16).
const DefaultBatchSize = model.DefaultBatchSize

// defaultEvalBatch is the mini-batch size of evaluation: in evaluation
// mode a graph's logits do not depend on the other graphs of its batch, so
// it only trades memory for fewer, larger passes.
const defaultEvalBatch = 128

// evalNodes bounds the nodes of an evaluation batch (a batch always holds
// at least one graph): the routing's per-link matrices of 128 DD graphs
// (36k nodes) miss the cache, which made scoring a graph cost more than
// training on one. At 1024 nodes a pass stays in the cache even with a
// fold on each core; MUTAG still takes 128 graphs at once.
const evalNodes = 1024

// DefaultMicroBatchNodes is the default node bound of a training
// micro-batch (GraphProtocol.MicroBatchNodes). A step's tape holds about 7
// KB of values and gradients per node, so a 16-graph DD batch (4,500 nodes
// on average) does not fit the caches, and with a fold on each core the two
// folds evict each other's data. Passes of at most 128 nodes keep a tape
// near 1 MB (docs/notes/graph-speed.md has the measurements).
const DefaultMicroBatchNodes = 128

// GraphProtocol is the graph-classification protocol of DESIGN §6:
// stratified k-fold cross-validation with a fixed fold seed, a stratified
// validation split inside each training fold for epoch selection, and the
// test accuracy of each fold at its best-validation epoch.
type GraphProtocol struct {
	Folds     int     `opt:"folds" min:"2" max:"1048576" help:"graph: stratified cross-validation folds (the paper's protocol: 10)"` // k (default 10)
	FoldSeed  uint64  `opt:"fold-seed" help:"graph: seed of the fold assignment (fixed across models)"`                              // (default 0)
	FirstSeed uint64  `opt:"first-seed" help:"seed of the first run (node) or of fold 0 (graph)"`                                    // fold f trains from seed FirstSeed+f (initialisation, dropout, shuffling)
	ValFrac   float64 // inner validation fraction (default data.DefaultInnerVal = 0.1)
	BatchSize int     `opt:"batch" min:"1" max:"1048576" help:"graph: training mini-batch size, in graphs"` // training mini-batch (0: DefaultBatchSize = 16 here; experiment.Run takes RecipeBatchSize)
	EvalBatch int     // evaluation mini-batch (default 128; does not change results)
	// MicroBatchNodes bounds the nodes of the micro-batches in which a
	// training mini-batch goes through the model (default
	// DefaultMicroBatchNodes; a micro-batch always holds at least one
	// graph). Their gradients add up to the mini-batch's before its one
	// optimiser step, so it is a speed and memory setting: results change
	// only through float rounding and the order of the dropout draws.
	MicroBatchNodes int `opt:"micro-batch-nodes" min:"1" max:"1073741824" help:"graph: a mini-batch goes through the model in parts of at most this many nodes (whole graphs; default 128), whose gradients add up before the step; a speed and memory setting that changes results only through rounding and dropout draws (models with batch norm, such as gin, always take whole mini-batches)"`
	// MicroBatchSeeds "on" makes a mini-batch's micro-batches independent
	// pieces: each draws its dropout masks from a seed of its own (drawn in
	// order from the fold's generator) and the mini-batch's gradient sums
	// theirs in micro-batch order, so that a fold may run several at once,
	// one per core the other folds leave free, with results that do not
	// depend on how many. "off", and "" here, runs them one after another,
	// drawing from the fold's generator in turn and adding into the
	// gradients as they go (the results of commits before a7525e3);
	// experiment.Run takes "" as the model's recipe
	// (RecipeSeededMicroBatches). A model with buffers (batch norm) runs
	// every piece on the fold's own model, so it gains no speed from it,
	// though its dropout masks still come from the pieces' seeds.
	MicroBatchSeeds string `opt:"micro-batch-seeds" help:"graph: on: each micro-batch of a mini-batch draws its dropout masks from a seed of its own and the gradients add up in micro-batch order, so that a fold alone runs its micro-batches on every core with the same results; off: one after another, drawing from the fold's generator in turn (the baselines' published tables, and PR-CapsNet's before a7525e3)"`
	// Parallel is the number of folds trained at once (default: one per
	// core, runtime.GOMAXPROCS, and at most the folds to run; every fold's
	// kernels keep to one core, see RunGraphProtocols, and with seeded
	// micro-batches its micro-batches use the cores no other fold holds).
	// Results do not depend on it: every fold has its own model, seed and
	// buffers.
	Parallel int `opt:"parallel" min:"1" max:"1024" help:"runs (seeds or folds) trained concurrently (default: one per core, as memory allows; runs at once keep to a core each, a run alone uses every core, and a graph fold shares only its micro-batches, not its kernels); results do not depend on it"`
	// ItersPerEpoch, if positive, makes an epoch that many mini-batches of
	// BatchSize graphs, each drawn afresh as GIN-0's reference code draws
	// them (Xu et al.'s main.py, iters_per_epoch 50: the first BatchSize
	// graphs of a fresh random permutation of the training graphs, so
	// distinct within a batch and independent across batches). 0 is a full
	// pass: the training graphs shuffled and cut into near-equal
	// mini-batches, every graph once (the default, and every published
	// table's schedule).
	ItersPerEpoch int `opt:"iters-per-epoch" min:"0" max:"1048576" help:"graph: an epoch is this many mini-batches, each of --batch graphs drawn at random afresh (GIN-0's reference code: 50, its iters_per_epoch); 0: a full pass over the shuffled training graphs, every graph once (the default)"`
	// OnlyFolds, if positive, runs only the first OnlyFolds folds of the
	// k-fold split (quick runs; the protocol then reports fewer runs).
	OnlyFolds int `opt:"only-folds" min:"0" max:"1048576" help:"graph: run only the first N folds (0: all)"`
	// Stop, if non-nil, interrupts the protocol when closed: the folds in
	// training stop at their next epoch and the others do not start, each
	// failing with ErrInterrupted; the finished folds are summarised.
	Stop <-chan struct{}
}

// CurvePoint is one epoch of a fold's accuracy curves (TestCurveObserver).
type CurvePoint struct {
	Epoch           int
	ValAcc, TestAcc float64
}

// graphHooks are what a protocol's fold gives its run for seeded
// micro-batches: how many micro-batches may run at once now, and a fresh
// model like the fold's for the helpers that run them.
type graphHooks struct {
	cores     func() int
	replicate func() (model.GraphModel, error)
}

// ValScores are the validation logits of one epoch of a graph run.
type ValScores struct {
	Epoch   int
	Graphs  []int32   // the validation graphs (dataset indices)
	Labels  []int32   // their classes
	Logits  []float32 // len(Graphs) × Classes, row-major
	Classes int
}

// CheckOnlyFolds reports whether OnlyFolds is in [0, Folds] (0: every
// fold; Folds 0: the default 10).
func (p GraphProtocol) CheckOnlyFolds() error {
	folds := p.withDefaults().Folds
	if p.OnlyFolds < 0 || p.OnlyFolds > folds {
		return fmt.Errorf("only-folds %d: must be in [0, %d] (0: all)", p.OnlyFolds, folds)
	}
	return nil
}

func (p GraphProtocol) withDefaults() GraphProtocol {
	if p.Folds == 0 {
		p.Folds = 10
	}
	if p.ValFrac == 0 {
		p.ValFrac = data.DefaultInnerVal
	}
	if p.BatchSize == 0 {
		p.BatchSize = DefaultBatchSize
	}
	if p.EvalBatch == 0 {
		p.EvalBatch = defaultEvalBatch
	}
	if p.MicroBatchNodes == 0 {
		p.MicroBatchNodes = DefaultMicroBatchNodes
	}
	if p.Parallel < 1 {
		runs := p.Folds
		if p.OnlyFolds > 0 {
			runs = min(runs, p.OnlyFolds)
		}
		p.Parallel = min(runtime.GOMAXPROCS(0), runs)
	}
	return p
}

// FoldsAtOnce is the number of folds trained at once: Parallel, or its
// default, one per core and at most the folds to run.
func (p GraphProtocol) FoldsAtOnce() int { return p.withDefaults().Parallel }

// Name is the protocol as the result records write it, e.g.
// "stratified 10-fold CV".
func (p GraphProtocol) Name() string {
	p = p.withDefaults()
	s := fmt.Sprintf("stratified %d-fold CV", p.Folds)
	if p.OnlyFolds > 0 && p.OnlyFolds < p.Folds {
		s += fmt.Sprintf(" (first %d folds)", p.OnlyFolds)
	}
	if p.ItersPerEpoch > 0 {
		s += fmt.Sprintf(", %d random mini-batches an epoch", p.ItersPerEpoch)
	}
	return s
}

// Runs is the number of folds the protocol trains.
func (p GraphProtocol) Runs() int {
	p = p.withDefaults()
	if p.OnlyFolds > 0 && p.OnlyFolds < p.Folds {
		return p.OnlyFolds
	}
	return p.Folds
}

// graphTrainer holds one fold's state; its batches and tapes are reused
// across steps, so a warm step allocates nothing.
type graphTrainer struct {
	learner
	graphPass         // the model, its training tape and the batch in hand
	firstLoss float64 // the loss of the run's first step
	ds        *data.GraphDataset
	split     data.Split
	sizes     graphBatching
	eval      autodiff.Tape[float32]
	order     []int32
	micro     microBatches     // seeded micro-batches: their seeds and helpers
	evalWork  evalPieces       // evaluation batches, shared with the helpers
	onVal     func(ValScores)  // see ValidationObserver
	onTest    func(CurvePoint) // see TestCurveObserver
	scores    ValScores
}

// graphBatching is how a fold's graphs go through the model: training
// mini-batches of size graphs in micro-batches of at most microNodes nodes,
// and evaluation batches of at most eval graphs (and evalNodes nodes).
type graphBatching struct {
	size, microNodes, eval int
	seeded                 bool // GraphProtocol.MicroBatchSeeds "on"
	iters                  int  // GraphProtocol.ItersPerEpoch: 0, a full pass
}

func newGraphTrainer(m model.GraphModel, ds *data.GraphDataset, split data.Split, cfg Config, sizes graphBatching, seed uint64) (*graphTrainer, error) {
	for _, set := range [][]int32{split.Train, split.Val, split.Test} {
		for _, g := range set {
			if g < 0 || int(g) >= len(ds.Graphs) {
				return nil, fmt.Errorf("train: split holds graph %d of %d", g, len(ds.Graphs))
			}
		}
	}
	if len(split.Train) == 0 || len(split.Val) == 0 {
		return nil, fmt.Errorf("train: empty training or validation set")
	}
	if sizes.size < 1 || sizes.eval < 1 || sizes.microNodes < 1 {
		return nil, fmt.Errorf("train: batch sizes %d, %d and micro-batch bound %d must be positive", sizes.size, sizes.eval, sizes.microNodes)
	}
	groups := m.Groups()
	l, err := newLearner(groups, cfg, seed)
	if err != nil {
		return nil, err
	}
	tr := &graphTrainer{learner: l, graphPass: graphPass{m: m}, ds: ds, split: split, sizes: sizes}
	for _, g := range groups {
		if g.Buffer && len(g.Params) > 0 {
			tr.micro.noHelpers = true // a helper's model would update buffers of its own
		}
	}
	tr.micro.rng = rand.New(&tr.micro.pcg)
	if wb, ok := m.(model.WholeBatch); ok && wb.WholeBatch() {
		tr.sizes.microNodes = math.MaxInt // batch statistics span the mini-batch
	}
	tr.eval.NoGrad = true
	tr.tape.ReleaseGrads = true // the step reads only parameter gradients
	return tr, nil
}

// graphPass is a model with what one micro-batch needs to go through it:
// a training tape and the batch's structures.
type graphPass struct {
	m      model.GraphModel
	tape   autodiff.Tape[float32]
	batch  data.GraphBatch
	labels autodiff.Labels
	rows   []int32
}

// load builds p.batch from the graphs idx of ds and points p.labels and
// p.rows at them.
func (p *graphPass) load(ds *data.GraphDataset, idx []int32) error {
	if err := p.batch.Build(ds, idx); err != nil {
		return err
	}
	if err := p.labels.Set(p.batch.Y, ds.NumClasses); err != nil {
		return err
	}
	p.rows = p.rows[:0]
	for i := range p.batch.Y {
		p.rows = append(p.rows, int32(i))
	}
	return nil
}

// step trains on the graphs idx and returns the mean loss and the number
// of correctly classified graphs (in training mode). The graphs go through
// the model in micro-batches of at most sizes.microNodes nodes, whose
// losses are weighted by their share of the graphs, so that the parameter
// gradients add up to those of the whole mini-batch before the one
// optimiser step.
func (tr *graphTrainer) step(epoch int, idx []int32) (float64, int, error) {
	lv, correct, err := tr.gradients(epoch, idx)
	if err != nil {
		return lv, 0, err
	}
	if err := tr.update(epoch); err != nil {
		return lv, 0, err
	}
	return lv, correct, nil
}

// gradients sets the parameters' gradients to those of the mean loss over
// the graphs idx, one micro-batch at a time, and returns the mean loss and
// the number of correctly classified graphs.
func (tr *graphTrainer) gradients(epoch int, idx []int32) (float64, int, error) {
	if tr.sizes.seeded {
		return tr.seededGradients(epoch, idx)
	}
	tr.opt.ZeroGrad()
	lv, correct := 0.0, 0
	for lo, hi := 0, 0; lo < len(idx); lo = hi {
		hi = tr.batchEnd(idx, lo, len(idx), tr.sizes.microNodes)
		share := float64(hi-lo) / float64(len(idx))
		l, c, err := tr.microStep(epoch, idx[lo:hi], share)
		if err != nil {
			return l, 0, err
		}
		lv += l * share
		correct += c
	}
	return lv, correct, nil
}

// microStep runs forward and backward on the graphs idx, adding the
// gradient of share × their mean loss to the parameters' gradients, and
// returns the mean loss and the number of correctly classified graphs.
func (tr *graphTrainer) microStep(epoch int, idx []int32, share float64) (float64, int, error) {
	return tr.graphPass.step(tr.ds, epoch, idx, share, tr.rng)
}

// step is microStep on p's model, drawing its dropout masks from rng.
func (p *graphPass) step(ds *data.GraphDataset, epoch int, idx []int32, share float64, rng *rand.Rand) (float64, int, error) {
	if err := p.load(ds, idx); err != nil {
		return 0, 0, err
	}
	p.tape.Reset()
	logits := p.m.Forward(&p.tape, &p.batch, true, rng)
	loss := autodiff.SoftmaxCrossEntropy(&p.tape, logits, p.labels, p.rows)
	lv := float64(loss.Value.Data[0])
	if math.IsNaN(lv) || math.IsInf(lv, 0) {
		return lv, 0, fmt.Errorf("train: epoch %d: training loss is %v: %w", epoch, lv, ErrNonFinite)
	}
	correct := int(math.Round(autodiff.Accuracy(&logits.Value, p.labels, p.rows) * float64(len(idx))))
	if share != 1 {
		loss = autodiff.Scale(&p.tape, loss, share)
	}
	if err := p.tape.Backward(loss); err != nil {
		return lv, 0, err
	}
	return lv, correct, nil
}

// epoch shuffles the training graphs and trains on them in mini-batches;
// it returns the mean training loss and the (dropout-mode) training
// accuracy. With sizes.iters, it trains on that many random mini-batches
// instead (randomEpoch).
func (tr *graphTrainer) epoch(epoch int) (float64, float64, error) {
	if tr.sizes.iters > 0 {
		return tr.randomEpoch(epoch)
	}
	tr.order = data.ShuffleInto(tr.order, tr.split.Train, tr.rng)
	n := len(tr.order)
	sum, correct := 0.0, 0
	// ⌈n/size⌉ mini-batches of near-equal size (they differ by at most a
	// graph), not PyTorch DataLoader's full batches and a rest: with our
	// folds the rest is often a single graph (NCI1: 3,329 training graphs,
	// 1 more than 104 × 32, 208 × 16 and 13 × 256), which would take a full
	// optimiser step of its own, and set a batch norm's statistics, just
	// before every evaluation (docs/notes/baselines.md).
	batches := (n + tr.sizes.size - 1) / tr.sizes.size
	for k := range batches {
		lo, hi := k*n/batches, (k+1)*n/batches
		lv, c, err := tr.step(epoch, tr.order[lo:hi])
		if err != nil {
			return 0, 0, err
		}
		if epoch == 1 && lo == 0 {
			tr.firstLoss = lv // before any update: the divergence rule's reference
		}
		sum += lv * float64(hi-lo)
		correct += c
	}
	return sum / float64(n), float64(correct) / float64(n), nil
}

// randomEpoch trains on sizes.iters mini-batches, each the first
// sizes.size graphs (all of them if fewer) of a fresh random permutation of
// the training graphs, as GIN-0's reference code does
// (np.random.permutation(len(train_graphs))[:batch_size] per iteration);
// it returns the mean training loss and the (dropout-mode) training
// accuracy over the graphs drawn.
func (tr *graphTrainer) randomEpoch(epoch int) (float64, float64, error) {
	size := min(tr.sizes.size, len(tr.split.Train))
	sum, correct, drawn := 0.0, 0, 0
	for k := range tr.sizes.iters {
		tr.order = drawBatch(tr.order, tr.split.Train, size, tr.rng)
		lv, c, err := tr.step(epoch, tr.order)
		if err != nil {
			return 0, 0, err
		}
		if epoch == 1 && k == 0 {
			tr.firstLoss = lv
		}
		sum += lv * float64(size)
		correct += c
		drawn += size
	}
	return sum / float64(drawn), float64(correct) / float64(drawn), nil
}

// drawBatch returns in dst (reused) size graphs of set drawn uniformly
// without replacement, in the order drawn: the first size entries of a
// random permutation of set (a partial Fisher-Yates shuffle).
func drawBatch(dst, set []int32, size int, rng *rand.Rand) []int32 {
	dst = append(dst[:0], set...)
	for i := range size {
		j := i + rng.IntN(len(dst)-i)
		dst[i], dst[j] = dst[j], dst[i]
	}
	return dst[:size]
}

// batchEnd returns the end of the batch of set that starts at lo: up to
// maxGraphs graphs and maxNodes nodes in all, and at least one graph
// however large.
func (tr *graphTrainer) batchEnd(set []int32, lo, maxGraphs, maxNodes int) int {
	hi, nodes := lo+1, tr.ds.Graphs[set[lo]].Graph.N
	for hi < len(set) && hi-lo < maxGraphs {
		nodes += tr.ds.Graphs[set[hi]].Graph.N
		if nodes > maxNodes {
			break
		}
		hi++
	}
	return hi
}

// evaluate returns the accuracy and mean loss of the model on set in
// evaluation mode. With record, it also collects the logits in tr.scores.
// The evaluation batches are pieces that helpers may share (evalPieces);
// their losses and accuracies add up in batch order.
func (tr *graphTrainer) evaluate(set []int32, record bool) (acc, loss float64, err error) {
	if len(set) == 0 {
		return 0, 0, nil
	}
	ev := &tr.evalWork
	ev.set, ev.record = set, record
	tr.cut(&ev.pieces, set, tr.sizes.eval, evalNodes)
	for len(ev.parts) < len(ev.ends) {
		ev.parts = append(ev.parts, evalPart{})
	}
	if err := tr.share(ev, &ev.pieces, func() { ev.take(tr.ds, &tr.graphPass, &tr.eval, tr.rng) }); err != nil {
		return 0, 0, err
	}
	tr.scores.Graphs, tr.scores.Labels, tr.scores.Logits = tr.scores.Graphs[:0], tr.scores.Labels[:0], tr.scores.Logits[:0]
	correct := 0.0
	for k, part := range ev.parts[:len(ev.ends)] {
		if part.err != nil {
			return 0, 0, part.err
		}
		lo, hi := ev.bounds(k)
		loss += part.loss * float64(hi-lo)
		correct += part.acc * float64(hi-lo)
		if record {
			tr.scores.Graphs = append(tr.scores.Graphs, set[lo:hi]...)
			tr.scores.Labels = append(tr.scores.Labels, part.labels...)
			tr.scores.Logits = append(tr.scores.Logits, part.logits...)
			tr.scores.Classes = part.classes
		}
	}
	n := float64(len(set))
	return math.Round(correct) / n, loss / n, nil
}

// RunGraph trains m on split.Train for cfg.Epochs epochs of shuffled
// mini-batches of at most batchSize graphs, near-equal in size (each in
// micro-batches of at most DefaultMicroBatchNodes nodes, see
// GraphProtocol), evaluates on split.Val
// after every epoch and returns the test accuracy at the epoch of best
// validation accuracy (ties: the later epoch, see selectsGraphEpoch),
// DESIGN §6. The parameters of the selected epoch are copied aside, and
// the test set is scored once, from them, after the last epoch; m keeps
// the last epoch's parameters. obs, if non-nil, observes the run (as run
// 0); the epochs it gets have TestAcc NaN, as the test set is not scored
// while training, unless obs is a TestCurveObserver.
// Patience counts the epochs since the validation accuracy last rose: a
// tie moves the selection but does not reset it.
func RunGraph(m model.GraphModel, ds *data.GraphDataset, split data.Split, cfg Config, batchSize int, seed uint64, obs Observer) (Result, error) {
	w := alone(obs)
	res, err := runGraph(m, ds, split, cfg, graphBatching{size: batchSize, microNodes: DefaultMicroBatchNodes, eval: defaultEvalBatch}, seed, graphHooks{}, w, nil)
	if err == nil {
		w.finished(res)
	}
	return res, err
}

// runGraph is RunGraph with the protocol's batching and micro-batch hooks,
// reporting to w, without w.finished; a closed stop ends the run at the
// next epoch with ErrInterrupted. The run flushes denormals
// (tensor.FlushDenormals), as do its micro-batch helpers, so that results
// do not depend on which goroutine took a piece.
func runGraph(m model.GraphModel, ds *data.GraphDataset, split data.Split, cfg Config, sizes graphBatching, seed uint64, hooks graphHooks, w *watch, stop <-chan struct{}) (res Result, err error) {
	tensor.FlushDenormals(func() { res, err = trainGraph(m, ds, split, cfg, sizes, seed, hooks, w, stop) })
	return res, err
}

// trainGraph is runGraph on the calling goroutine as it is: the epoch loop
// with an epoch of mini-batches (graphTrainer.epoch).
func trainGraph(m model.GraphModel, ds *data.GraphDataset, split data.Split, cfg Config, sizes graphBatching, seed uint64, hooks graphHooks, w *watch, stop <-chan struct{}) (Result, error) {
	tr, err := newGraphTrainer(m, ds, split, cfg, sizes, seed)
	if err != nil {
		return Result{}, err
	}
	tr.onVal, tr.onTest = w.validation(), w.testCurve()
	tr.micro.cores, tr.micro.replicate = hooks.cores, hooks.replicate
	defer tr.micro.close()
	k := &epochs{learner: &tr.learner, m: m, rule: selectGraph, evaluate: tr.score,
		train: func(epoch int) (trained, error) {
			lv, acc, err := tr.epoch(epoch)
			return trained{loss: lv, first: tr.firstLoss, acc: acc}, err
		},
	}
	if tr.onTest == nil { // else score has scored the test set every epoch
		k.test = func() (float64, error) {
			acc, _, err := tr.evaluate(split.Test, false)
			return acc, err
		}
	}
	return runEpochs(k, cfg, seed, w, stop)
}

// score scores the validation graphs and fills e's ValAcc, passing their
// logits to onVal; with onTest, it scores the test graphs too (e.TestAcc,
// else NaN) and passes both accuracies to it. It returns the validation
// loss.
func (tr *graphTrainer) score(e *Epoch) (float64, error) {
	valAcc, valLoss, err := tr.evaluate(tr.split.Val, tr.onVal != nil)
	if err != nil {
		return 0, err
	}
	e.ValAcc, e.TestAcc = valAcc, math.NaN()
	if tr.onVal != nil {
		tr.scores.Epoch = e.Epoch
		tr.onVal(tr.scores)
	}
	if tr.onTest != nil {
		if e.TestAcc, _, err = tr.evaluate(tr.split.Test, false); err != nil {
			return 0, err
		}
		tr.onTest(CurvePoint{Epoch: e.Epoch, ValAcc: valAcc, TestAcc: e.TestAcc})
	}
	return valLoss, nil
}

// selectsGraphEpoch reports whether an epoch whose validation accuracy is
// valAcc replaces the selected epoch, whose accuracy is best: it does when
// it is at least as accurate, so ties go to the later epoch. Validation
// sets of 17 to 400 graphs tie often, and on split halves of the
// validation graphs this rule picked epochs that scored better on the
// other half than breaking ties by the lower validation loss did
// (docs/notes/epoch-selection.md; no test label is involved).
func selectsGraphEpoch(best, valAcc float64) bool {
	return valAcc >= best
}

// GraphStepAllocs warms a fold up on the fixed mini-batch idx and returns
// the median number of heap allocations of one steady-state training step
// on it (the engine's "no allocation in the training step" contract; the
// median ignores the runtime's own rare allocations, see StepAllocs).
func GraphStepAllocs(m model.GraphModel, ds *data.GraphDataset, idx []int32, cfg Config) (float64, error) {
	split := data.Split{Train: idx, Val: idx}
	tr, err := newGraphTrainer(m, ds, split, cfg, graphBatching{size: len(idx), microNodes: DefaultMicroBatchNodes, eval: len(idx)}, 0)
	if err != nil {
		return 0, err
	}
	const warm, runs = 20, 21
	counts := make([]uint64, runs)
	var before, after runtime.MemStats
	for i := 1; i <= warm+runs; i++ {
		runtime.ReadMemStats(&before)
		if _, _, err := tr.step(i, idx); err != nil {
			return 0, err
		}
		runtime.ReadMemStats(&after)
		if i > warm {
			counts[i-warm-1] = after.Mallocs - before.Mallocs
		}
	}
	slices.Sort(counts)
	return float64(counts[runs/2]), nil
}

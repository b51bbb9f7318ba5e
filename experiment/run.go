package experiment

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/prcaps/prcaps/checkpoint"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/train"
)

// Run is one protocol run of a registered model on a dataset. The zero
// values of its fields mean defaults: model "prcapsnet", the model's
// default configuration, its training recipe (train.Recipe) and the
// protocols' own defaults.
type Run struct {
	Model   string       // registered name; empty: "prcapsnet"
	Config  model.Config // nil: the model's default for the dataset's task
	Train   train.Config // zero: train.Recipe(task, Model)
	Dataset *data.Dataset

	Node  train.NodeProtocol  // used for node datasets
	Graph train.GraphProtocol // used for graph datasets

	// Observer, if non-nil, observes every run (seed or fold), beside the
	// progress reports and the records below.
	Observer train.Observer

	// The records, if non-nil, observe the runs too. Do writes them when
	// every run has finished, and discards them after a failure or an
	// interrupt. ValLogits and TestCurves record a graph run's validation
	// logits and test curves; Curves every run's per-epoch training curves
	// (loss, accuracies, learning rate, curvatures) to a JSON-lines file;
	// Embeddings the node embeddings of the best run of a node protocol
	// (for the t-SNE figure).
	ValLogits  *ValLogits
	TestCurves *TestCurves
	Curves     *Curves
	Embeddings *Embeddings

	// Save, if set, is where the checkpoint of the run with the best
	// validation accuracy (ties: the lowest run index) is written,
	// atomically, once the protocol has finished without error.
	Save string

	// Progress, if non-nil, shows every epoch and a line per finished run,
	// each under Label (e.g. "t3 GCN Cora"; empty: none).
	Progress Progress
	Label    string
	// HideTest leaves the test accuracy out of the progress lines, for
	// runs whose choice must not see it (Tune's trials).
	HideTest bool
}

// Describe is one line saying what the run trains, on what and how.
func (r Run) Describe() string {
	ds, tc := r.Dataset, r.TrainConfig()
	if ds.Task == data.GraphTask {
		return fmt.Sprintf("%s on %s (%d graphs, %d nodes, %d features, %d classes; from %s), %s, %d epochs, batch %d",
			r.ModelName(), ds.Name, len(ds.Graph.Graphs), ds.Stats().TotalNodes, ds.Graph.NumFeatures, ds.Graph.NumClasses, ds.From,
			r.Graph.Name(), tc.Epochs, r.batchSize())
	}
	return fmt.Sprintf("%s on %s (%d nodes, %d features, %d classes; from %s), %s, %d epochs",
		r.ModelName(), ds.Name, ds.Node.Graph.N, ds.Node.X.Cols(), ds.Node.NumClasses, ds.From, r.Node.Name(), tc.Epochs)
}

// batchSize is the graph protocol's mini-batch: Graph.BatchSize, or the
// model's recipe (train.RecipeBatchSize) when it is 0.
func (r Run) batchSize() int {
	if r.Graph.BatchSize > 0 {
		return r.Graph.BatchSize
	}
	return train.RecipeBatchSize(r.ModelName())
}

// observer is r.Observer with the progress reports added.
func (r Run) observer() train.Observer {
	if r.Progress == nil {
		return r.Observer
	}
	unit, runs := r.Unit(), r.Node.Seeds
	if r.Dataset.Task == data.GraphTask {
		runs = r.Graph.Runs()
	}
	if r.Label != "" {
		unit = r.Label + " " + unit
	}
	return train.Observers(progressOf{r, unit, runs, r.TrainConfig().Epochs}, r.Observer)
}

// progressOf is Run's progress reports: a bar per epoch, a line per
// finished run, each under unit.
type progressOf struct {
	r            Run
	unit         string
	runs, epochs int
}

func (p progressOf) Epoch(i int, e train.Epoch) {
	p.r.Progress.Update(fmt.Sprintf("%s %d/%d", p.unit, i+1, p.runs), e.Epoch, p.epochs,
		fmt.Sprintf("loss %.4f train %.3f val %.3f", e.Loss, e.TrainAcc, e.ValAcc))
}

func (p progressOf) Run(i int, res train.Result) {
	if p.r.HideTest {
		p.r.Progress.Line("%s %d/%d (seed %d): val %.4f at best-val epoch %d, %.2f s",
			p.unit, i+1, p.runs, res.Seed, res.ValAcc, res.BestEpoch, res.Seconds)
	} else {
		p.r.Progress.Line("%s %d/%d (seed %d): test %.4f at best-val epoch %d (val %.4f), %.2f s",
			p.unit, i+1, p.runs, res.Seed, res.TestAcc, res.BestEpoch, res.ValAcc, res.Seconds)
	}
}

// Unit is what one run of the protocol is called: "fold" on a graph
// dataset, "run" (a seed) on a node dataset.
func (r Run) Unit() string {
	if r.Dataset != nil && r.Dataset.Task == data.GraphTask {
		return "fold"
	}
	return "run"
}

// SummaryText is sum, the summary of this run's protocol, as one line:
// mean ± std test accuracy in percent, the runs, the parameter count, the
// wall time per run and the failed runs, if any.
func (r Run) SummaryText(sum record.Summary) string {
	unit, failed := r.Unit(), ""
	if len(sum.Failed) > 0 {
		failed = fmt.Sprintf("; %d %s(s) FAILED (see below)", len(sum.Failed), unit)
	}
	return fmt.Sprintf("%s on %s, %s: test accuracy %.2f ± %.2f %% over %d %s(s); %d parameters; %.2f s per %s%s",
		sum.Model, sum.Dataset, sum.Protocol, 100*sum.MeanAcc, 100*sum.StdAcc, sum.Runs, unit, sum.Params, sum.SecondsPerRun, unit, failed)
}

// ModelName is the model the run trains.
func (r Run) ModelName() string {
	if r.Model == "" {
		return "prcapsnet"
	}
	return r.Model
}

// CheckSampling reports, before any run starts, why the run's model as
// configured cannot train on its node protocol's sampled mini-batches
// (train.CheckSampled on a model built once for the check); nil when it
// can, or when the run is full-batch or on a graph dataset.
func (r Run) CheckSampling() error {
	smp := r.Node.Sampling()
	if r.Dataset == nil || r.Dataset.Task != data.NodeTask || !smp.On() {
		return nil
	}
	m, err := model.NewNode(r.ModelName(), r.Config, model.NodeShape(r.Dataset.Node), r.Node.FirstSeed)
	if err != nil {
		return err
	}
	_, err = train.CheckSampled(m, smp)
	return err
}

// protocolName is the name of the protocol the run follows: the graph
// protocol's for a graph dataset, else the node protocol's (as its
// summary's Protocol says).
func (r Run) protocolName() string {
	if r.Dataset != nil && r.Dataset.Task == data.GraphTask {
		return r.Graph.Name()
	}
	return r.Node.Name()
}

// Record is run i's result as a record.RunRecord of this run (train --json's
// lines).
func (r Run) Record(i int, res train.Result) record.RunRecord {
	return record.RunRecord{Dataset: r.Dataset.Name, Task: r.Dataset.Task.String(), Model: r.ModelName(), Protocol: r.protocolName(), Run: i, Result: res}
}

// TrainConfig is the training configuration the run uses.
func (r Run) TrainConfig() train.Config {
	if r.Train == (train.Config{}) {
		return train.Recipe(r.Dataset.Task, r.ModelName())
	}
	return r.Train
}

// withConfig returns r with its model configuration filled in: the
// model's defaults for a nil Config, and for a graph model the settings it
// derives from the dataset's graphs without their labels
// (model.GraphResolver, DGCNN's SortPooling k), resolved in place so that
// a saved checkpoint holds them.
func (r Run) withConfig() (Run, error) {
	if r.Config == nil {
		cfg, err := model.DefaultConfig(r.Dataset.Task, r.ModelName())
		if err != nil {
			return r, err
		}
		r.Config = cfg
	}
	if rc, ok := r.Config.(model.GraphResolver); ok && r.Dataset.Task == data.GraphTask {
		rc.ResolveGraphs(r.Dataset.Graph)
	}
	return r, nil
}

// Do runs the protocol and summarises it. A configuration the model
// rejects is reported before any training.
func (r Run) Do() (record.Summary, error) {
	if r.Dataset == nil {
		return record.Summary{}, fmt.Errorf("experiment: no dataset")
	}
	r, err := r.withConfig()
	if err != nil {
		return record.Summary{}, err
	}
	if r, err = r.checkMemory(machineMemory()); err != nil {
		return record.Summary{}, err
	}
	if r.Embeddings != nil && r.Dataset.Task != data.NodeTask {
		return record.Summary{}, fmt.Errorf("experiment: embeddings are recorded for node classification only")
	}
	recs := r.records()
	obs := []train.Observer{r.Observer}
	var best *bestRun
	if r.Save != "" {
		best = &bestRun{r: r}
		obs = append(obs, best)
	}
	for _, rec := range recs {
		obs = append(obs, rec)
	}
	r.Observer = train.Observers(obs...)
	sum, err := r.do()
	err = closeRecords(recs, err)
	if err == nil && best != nil {
		if best.ck == nil {
			return sum, fmt.Errorf("experiment: no run finished with a selected epoch to save")
		}
		err = best.ck.Save(r.Save)
	}
	return sum, err
}

// recorder is one of a Run's records: an observer that writes its file whole
// once the protocol has finished without error (Close), and leaves an
// existing file as it was otherwise (Abort).
type recorder interface {
	train.Observer
	Close() error
	Abort()
}

// records returns r's records, those set.
func (r Run) records() []recorder {
	var recs []recorder
	if r.ValLogits != nil {
		recs = append(recs, r.ValLogits)
	}
	if r.TestCurves != nil {
		recs = append(recs, r.TestCurves)
	}
	if r.Curves != nil {
		recs = append(recs, r.Curves)
	}
	if r.Embeddings != nil {
		recs = append(recs, embeddingsOf{r.Embeddings, r})
	}
	return recs
}

// closeRecords writes recs after a protocol that succeeded (err nil) and
// discards them otherwise, and returns err joined with any error of the
// writing.
func closeRecords(recs []recorder, err error) error {
	if err != nil {
		for _, rec := range recs {
			rec.Abort()
		}
		return err
	}
	for _, rec := range recs {
		err = errors.Join(err, rec.Close())
	}
	return err
}

// bestRun keeps the checkpoint of r's run of best validation accuracy
// (ties: the lowest run index); the protocols call it one run at a time.
type bestRun struct {
	r   Run
	ck  *checkpoint.Checkpoint
	run int
}

func (b *bestRun) Epoch(int, train.Epoch) {}
func (b *bestRun) Run(int, train.Result)  {}

func (b *bestRun) Selected(run int, res train.Result, m model.Model) {
	if b.ck == nil || res.ValAcc > b.ck.Run.ValAcc || (res.ValAcc == b.ck.Run.ValAcc && run < b.run) {
		r := b.r
		b.ck, b.run = checkpoint.New(m, r.ModelName(), r.Config, r.Dataset, r.TrainConfig(), res), run
	}
}

// do runs the protocol of the dataset's task.
func (r Run) do() (record.Summary, error) {
	if r.Dataset.Task == data.GraphTask {
		job, err := r.GraphJob()
		if err != nil {
			return record.Summary{}, err
		}
		sum, err := train.RunGraphProtocol(job.Dataset, job.Build, job.Protocol, job.Config, job.Observer)
		sum.Model = r.ModelName()
		return sum, err
	}
	ds := r.Dataset.Node
	build := func(seed uint64) (model.NodeModel, error) {
		return model.NewNode(r.ModelName(), r.Config, model.NodeShape(ds), seed)
	}
	if _, err := build(r.Node.FirstSeed); err != nil {
		return record.Summary{}, err
	}
	sum, err := train.RunNodeProtocol(ds, build, r.Node, r.TrainConfig(), r.observer())
	sum.Model = r.ModelName()
	return sum, err
}

// GraphJob is the run as a job of train.RunGraphProtocols, which pools
// the folds of several runs; the dataset must be a graph dataset.
func (r Run) GraphJob() (train.GraphJob, error) {
	if r.Dataset == nil || r.Dataset.Task != data.GraphTask {
		return train.GraphJob{}, fmt.Errorf("experiment: a graph job needs a graph-classification dataset")
	}
	ds := r.Dataset.Graph
	r, err := r.withConfig()
	if err != nil {
		return train.GraphJob{}, err
	}
	if r, err = r.checkMemory(machineMemory()); err != nil {
		return train.GraphJob{}, err
	}
	build := func(seed uint64) (model.GraphModel, error) {
		return model.NewGraph(r.ModelName(), r.Config, model.GraphShape(ds), seed)
	}
	if _, err := build(r.Graph.FirstSeed); err != nil {
		return train.GraphJob{}, err
	}
	p := r.Graph
	p.BatchSize = r.batchSize()
	if err := p.Check(); err != nil {
		return train.GraphJob{}, err
	}
	if p.MicroBatchSeeds == "" {
		p.MicroBatchSeeds = "off"
		if train.RecipeSeededMicroBatches(r.ModelName()) {
			p.MicroBatchSeeds = "on"
		}
	}
	return train.GraphJob{Dataset: ds, Build: build, Protocol: p, Config: r.TrainConfig(), Observer: r.observer()}, nil
}

// fitting is the number of runs at once, at most want and at least 1, whose
// need bytes each stay within checkMemory's 80 % of total.
func fitting(want int, need, total int64) int {
	if need <= 0 {
		return want
	}
	return max(min(want, int(0.8*float64(total)/float64(need))), 1)
}

// machineMemory is the memory checkMemory compares with: the machine's
// (tests replace it).
var machineMemory = totalMemory

// CheckMemory refuses work that would need more than 80 % of this
// machine's memory (the same bound as a training run's), with what says
// what the work is: "classifying Cora with prcapsnet", say. No check when
// the machine's memory is unknown.
func CheckMemory(what string, need int64) error {
	total := machineMemory()
	if total > 0 && float64(need) > 0.8*float64(total) {
		return fmt.Errorf("%s would need about %s; this machine has %s", what, model.FormatGiB(need), model.FormatGiB(total))
	}
	return nil
}

// checkMemory refuses a run whose model's estimate (model.EstimateBytes,
// which every registered model has) for its largest training step, times
// the runs trained at once, exceeds 80 % of total bytes of memory (no
// check when total is 0, an unknown machine size). The largest step of a
// graph run is bounded by a mini-batch of its largest graphs
// (largestBatch). A run whose runs at once were left to the default (one per core)
// gets as many as fit: the returned run has them set.
func (r Run) checkMemory(total int64) (Run, error) {
	cfg := r.Config
	if cfg == nil {
		var err error
		if cfg, err = model.DefaultConfig(r.Dataset.Task, r.ModelName()); err != nil {
			return r, err
		}
	}
	var shape model.Shape
	var size model.Size
	if r.Dataset.Task == data.GraphTask {
		g := r.Dataset.Graph
		shape, size = model.GraphShape(g), largestBatch(g, r.batchSize())
	} else {
		nd := r.Dataset.Node
		shape, size = model.NodeShape(nd), model.Size{Nodes: nd.Graph.N, Arcs: nd.Graph.NumArcs()}
		if smp := r.Node.Sampling(); smp.On() {
			size = sampledSize(size, smp)
		}
	}
	need, err := model.EstimateBytes(cfg, shape, size)
	if err != nil {
		return r, fmt.Errorf("experiment: %s: %w", r.ModelName(), err)
	}
	if total <= 0 {
		return r, nil
	}
	var parallel int
	if r.Dataset.Task == data.GraphTask {
		parallel = r.Graph.FoldsAtOnce()
		if r.Graph.Parallel < 1 {
			parallel = fitting(parallel, need, total)
			r.Graph.Parallel = parallel
		}
	} else {
		parallel = r.Node.RunsAtOnce()
		if r.Node.Parallel < 1 {
			parallel = fitting(parallel, need, total)
			r.Node.Parallel = parallel
		}
	}
	if all := float64(need) * float64(parallel); all > 0.8*float64(total) {
		return r, fmt.Errorf("experiment: %s on %s would need about %s (%d run(s) at once); this machine has %s: use smaller sizes or fewer parallel runs",
			r.ModelName(), r.Dataset.Name, model.FormatGiB(satFloat(all)), parallel, model.FormatGiB(total))
	}
	return r, nil
}

// sampledSize bounds the neighbourhood of one sampled mini-batch on a
// graph of the size full: the nodes are the seeds and each hop's frontier
// times its fan-out, the arcs the sum over hops of the frontier times the
// fan-out plus a self-link per node, at most the whole graph (which a
// fan-out of −1 can reach). Layer-wise evaluation runs in blocks of the
// same size with one hop, within the bound.
func sampledSize(full model.Size, smp train.Sampling) model.Size {
	nodes, frontier, arcs := smp.BatchNodes, smp.BatchNodes, 0
	for _, f := range smp.Fanout {
		if f < 0 || nodes >= full.Nodes {
			return full
		}
		arcs += frontier * f
		frontier *= f
		nodes += frontier
	}
	return model.Size{Nodes: min(nodes, full.Nodes), Arcs: min(arcs+nodes, full.Arcs)}
}

// largestBatch bounds a mini-batch of at most batch graphs of ds: as many
// graphs (all of them if fewer), with the nodes of the largest graphs and
// the arcs of the graphs with most arcs.
func largestBatch(ds *data.GraphDataset, batch int) model.Size {
	nodes, arcs := make([]int, len(ds.Graphs)), make([]int, len(ds.Graphs))
	for i, s := range ds.Graphs {
		nodes[i], arcs[i] = s.Graph.N, s.Graph.NumArcs()
	}
	top := func(v []int, k int) int {
		slices.SortFunc(v, func(a, b int) int { return b - a })
		sum := 0
		for _, x := range v[:k] {
			sum += x
		}
		return sum
	}
	k := min(max(batch, 1), len(ds.Graphs))
	return model.Size{Graphs: k, Nodes: top(nodes, k), Arcs: top(arcs, k)}
}

// satFloat is x as an int64, math.MaxInt64 at most.
func satFloat(x float64) int64 {
	if !(x < math.MaxInt64) {
		return math.MaxInt64
	}
	return int64(x)
}

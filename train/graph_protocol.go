package train

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/prcaps/prcaps/tensor"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/record"
)

// RunGraphProtocol runs the graph protocol p (DESIGN §6) on ds: stratified
// folds from p.FoldSeed, a fresh model per fold from build(FirstSeed+f),
// training per cfg, and the summary of the folds' test accuracies (task
// "graph"). obs, if non-nil, observes the folds; with p.Parallel > 1 it is
// called from several goroutines, one at a time.
func RunGraphProtocol(ds *data.GraphDataset, build GraphBuilder, p GraphProtocol, cfg Config, obs Observer) (record.Summary, error) {
	job := GraphJob{Dataset: ds, Build: build, Protocol: p, Config: cfg, Observer: obs}
	sums, errs := RunGraphProtocols([]GraphJob{job}, p.withDefaults().Parallel)
	return sums[0], errs[0]
}

// GraphJob is one graph-protocol run of RunGraphProtocols: the arguments
// of RunGraphProtocol. Its Protocol.Parallel is ignored there.
type GraphJob struct {
	Dataset  *data.GraphDataset
	Build    GraphBuilder
	Protocol GraphProtocol
	Config   Config
	Observer Observer // nil: none
	// Done holds folds finished earlier (by a run that was interrupted,
	// say) by fold index: they are not trained again, their results enter
	// the summary as they are, and the observer does not see them.
	Done map[int]Result
}

// RunGraphProtocols runs the folds of several graph-protocol runs in one
// pool of up to parallel goroutines, and returns each run's summary and
// error. A failing or panicking fold stops neither its run's other folds
// nor the other runs: a summary is over the folds that finished, lists
// the failed ones, and the run's error reports them. Every fold has its own model, seed and buffers, so the results
// are those of RunGraphProtocol on each job alone, whatever parallel is.
//
// The pool starts the folds of the costliest runs first (nodes × epochs),
// so that the small folds at the end fill the cores while the last large
// ones finish: run one dataset after another, each dataset's last fold
// leaves a core idle (for DD up to a 200-second fold). On the graph suite
// this gained about 1%, since a lone fold's kernels use the idle core too.
//
// The observers of all jobs are called one at a time.
func RunGraphProtocols(jobs []GraphJob, parallel int) ([]record.Summary, []error) {
	sums := make([]record.Summary, len(jobs))
	errs := make([]error, len(jobs))
	runs := make([]*graphRun, len(jobs))
	type task struct{ job, fold int }
	var tasks []task
	for j, job := range jobs {
		runs[j], sums[j], errs[j] = newGraphRun(job)
		if errs[j] != nil {
			continue
		}
		for f := range runs[j].splits {
			if r, ok := job.Done[f]; ok {
				runs[j].results[f] = r
				continue
			}
			tasks = append(tasks, task{j, f})
		}
	}
	slices.SortStableFunc(tasks, func(a, b task) int { return cmp.Compare(runs[b.job].cost, runs[a.job].cost) })
	var mu sync.Mutex // serialises the observers' calls
	// The folds' kernels never fork: on 128-node micro-batches a kernel is
	// too small for a second core to pay for the hand-over (one NCI1 fold
	// 1.8 times slower on 2 cores than on one; docs/performance.md). More
	// cores serve as more folds at once (parallel), and, with seeded
	// micro-batches, a fold's micro-batches take the cores that no other
	// fold in training (running) holds.
	defer tensor.OccupyAll()()
	var running atomic.Int32
	errs2 := forEachRun(len(tasks), parallel, func(i int) error {
		runs[tasks[i].job].fold(tasks[i].fold, &mu, &running)
		return nil
	})
	for i, err := range errs2 { // a panic outside fold's own guard
		if err != nil {
			runs[tasks[i].job].errs[tasks[i].fold] = err
		}
	}
	for j, r := range runs {
		if errs[j] != nil {
			continue
		}
		for f, err := range r.errs {
			if err == nil {
				sums[j].Results = append(sums[j].Results, r.results[f])
			}
		}
		errs[j] = failures(&sums[j], r.errs, r.p.FirstSeed)
		sums[j].Summarise()
	}
	return sums, errs
}

// graphRun is one job of RunGraphProtocols: its folds, the model of fold
// 0 (built first to count the parameters) and the folds' outcomes.
type graphRun struct {
	job     GraphJob
	p       GraphProtocol
	splits  []data.Split
	m0      model.GraphModel
	cost    float64 // nodes × epochs, for ordering the folds of several jobs
	results []Result
	errs    []error // written under the observers' mutex
}

func newGraphRun(job GraphJob) (*graphRun, record.Summary, error) {
	ds, p := job.Dataset, job.Protocol.withDefaults()
	s := record.Summary{Dataset: ds.Name, Task: "graph", Protocol: p.Name(), Epochs: job.Config.Epochs}
	labels := make([]int32, len(ds.Graphs))
	nodes := 0
	for i, g := range ds.Graphs {
		labels[i] = g.Label
		nodes += g.Graph.N
	}
	if err := checkClasses(ds.Name, labels); err != nil {
		return nil, s, err
	}
	splits, err := data.StratifiedKFoldVal(labels, p.Folds, p.ValFrac, p.FoldSeed)
	if err != nil {
		return nil, s, fmt.Errorf("train: %s: %w", ds.Name, err)
	}
	if p.OnlyFolds > 0 && p.OnlyFolds < len(splits) {
		splits = splits[:p.OnlyFolds]
	}
	m0, err := job.Build(p.FirstSeed)
	if err != nil {
		return nil, s, err
	}
	s.Params = model.CountParams(m0)
	r := &graphRun{job: job, p: p, splits: splits, m0: m0, cost: float64(nodes) * float64(job.Config.Epochs),
		results: make([]Result, len(splits)), errs: make([]error, len(splits))}
	return r, s, nil
}

// fold trains fold f; mu serialises the observers' calls; running counts the
// folds in training, whose cores a fold's micro-batches may share
// (MicroBatchSeeds). A panic inside the fold is its error.
func (r *graphRun) fold(f int, mu *sync.Mutex, running *atomic.Int32) {
	p, job := r.p, r.job
	defer func() {
		if e := recover(); e != nil {
			r.fail(f, fmt.Errorf("fold %d (seed %d): panic: %v", f, p.FirstSeed+uint64(f), e), mu)
		}
	}()
	seed := p.FirstSeed + uint64(f)
	if stopped(p.Stop) {
		r.fail(f, fmt.Errorf("fold %d (seed %d): %w before it started", f, seed, ErrInterrupted), mu)
		return
	}
	m := r.m0
	if f != 0 {
		var err error
		if m, err = job.Build(seed); err != nil {
			r.fail(f, fmt.Errorf("fold %d (seed %d): %w", f, seed, err), mu)
			return
		}
	}
	var hooks graphHooks
	seeded := p.MicroBatchSeeds == "on"
	if seeded {
		running.Add(1)
		defer running.Add(-1)
		hooks.cores = func() int { return runtime.GOMAXPROCS(0) / max(int(running.Load()), 1) }
		hooks.replicate = func() (model.GraphModel, error) { return job.Build(seed) }
	}
	w := newWatch(job.Observer, f, mu)
	res, err := runGraph(m, job.Dataset, r.splits[f], job.Config, graphBatching{p.BatchSize, p.MicroBatchNodes, p.EvalBatch, seeded, p.ItersPerEpoch}, seed, hooks, w, p.Stop)
	if err != nil {
		r.fail(f, fmt.Errorf("fold %d (seed %d): %w", f, seed, err), mu)
		return
	}
	r.results[f] = res
	w.finished(res)
}

func (r *graphRun) fail(f int, err error, mu *sync.Mutex) {
	mu.Lock()
	r.errs[f] = err
	mu.Unlock()
}

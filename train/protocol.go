package train

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/sample"
)

// NodeProtocol says how node-classification runs are split and repeated.
type NodeProtocol struct {
	// Split is "random" (a fresh stratification-free 60/20/20 split of the
	// labelled nodes per seed) or "public" (the publisher's split, the same
	// for every seed; only the initialisation changes).
	Split string `opt:"split" help:"node split: random (60/20/20 per seed) or public (Planetoid's 20 per class/500/1000)"`
	// Seeds is the number of runs, with seeds FirstSeed, FirstSeed+1, ...
	Seeds     int    `opt:"seeds" min:"1" max:"1048576" help:"node: number of runs (seeds first-seed, first-seed+1, ...); the paper's protocol uses 10"`
	FirstSeed uint64 `opt:"first-seed" help:"seed of the first run (node) or of fold 0 (graph)"`
	// TrainFrac and ValFrac size the random split (default 0.6 and 0.2).
	TrainFrac, ValFrac float64
	// Parallel is the number of runs trained at once (default: one per
	// core, runtime.GOMAXPROCS, and at most Seeds); results do not depend
	// on it. Runs trained at once keep to a core each (tensor.Occupy); a
	// run alone uses every core for its kernels, or, on a graph of at most
	// 65,536 links (arcs plus nodes), evaluates each epoch on a second core
	// beside the next epoch's training step.
	Parallel int `opt:"parallel" min:"1" max:"1024" help:"runs (seeds or folds) trained concurrently (default: one per core, as memory allows; runs at once keep to a core each, a run alone uses every core, and a graph fold shares only its micro-batches, not its kernels); results do not depend on it"`
	// Fanout and BatchNodes turn on neighbour-sampled mini-batch
	// training (Sampling; both or neither). Off by default: full-batch.
	Fanout     sample.Fanouts `opt:"fanout" help:"node: neighbour-sampled mini-batch training with these per-hop fan-outs, the seeds' hop first, one per message-passing layer (prcapsnet: 1 + routing layers; gcn, gat, gatv2: 2; tgnn: its layers), e.g. 15,10; -1: every neighbour; needs --batch-nodes (default: off, full-batch)"`
	BatchNodes int            `opt:"batch-nodes" min:"1" max:"1000000000" help:"node: training nodes per sampled mini-batch, 1 to 1e9; evaluation then runs layer by layer with every neighbour in blocks of as many nodes; needs --fanout (default: off, full-batch)"`
	// OnModel, if non-nil, is called after each run with the run's model
	// holding the parameters of its selected epoch (to save it, e.g.); it
	// must not keep m past the call. With Parallel > 1 it is called from
	// several goroutines, one at a time.
	OnModel func(run int, r Result, m model.Model)
	// Stop, if non-nil, interrupts the protocol when closed: the runs in
	// training stop at their next epoch and the others do not start, each
	// failing with ErrInterrupted; the finished runs are summarised.
	Stop <-chan struct{}
}

// CheckSplit reports whether s names a node split: random or public.
// (NodeProtocol also takes the empty string, for its default, random.)
func CheckSplit(s string) error {
	if s != "random" && s != "public" {
		return fmt.Errorf("split must be random or public, not %q", s)
	}
	return nil
}

// Sampling is the protocol's mini-batch configuration.
func (p NodeProtocol) Sampling() Sampling {
	return Sampling{Fanout: p.Fanout, BatchNodes: p.BatchNodes}
}

func (p NodeProtocol) withDefaults() NodeProtocol {
	if p.TrainFrac == 0 && p.ValFrac == 0 {
		p.TrainFrac, p.ValFrac = 0.6, 0.2
	}
	return p
}

// RunsAtOnce is the number of runs trained at once: Parallel, or its
// default, one per core and at most Seeds.
func (p NodeProtocol) RunsAtOnce() int {
	if p.Parallel > 0 {
		return p.Parallel
	}
	return max(min(runtime.GOMAXPROCS(0), p.Seeds), 1)
}

// Name is the protocol as the result records write it, e.g. "random 60/20/20 x10".
func (p NodeProtocol) Name() string {
	p = p.withDefaults()
	name := fmt.Sprintf("random %.0f/%.0f/%.0f x%d", 100*p.TrainFrac, 100*p.ValFrac, 100*(1-p.TrainFrac-p.ValFrac), p.Seeds)
	if p.Split == "public" {
		name = fmt.Sprintf("public x%d", p.Seeds)
	}
	if p.Sampling().On() {
		name += fmt.Sprintf(", sampled %v batch %d", p.Fanout, p.BatchNodes)
	}
	return name
}

// Summary is the record of a protocol: mean ± std over runs, parameter
// count and wall time, as the paper's tables report them. Its JSON form is
// the CLI's output contract (DESIGN §8).
type Summary struct {
	Dataset       string  `json:"dataset"`
	Task          string  `json:"task"`
	Model         string  `json:"model"`
	Protocol      string  `json:"protocol"`
	Runs          int     `json:"runs"`
	MeanAcc       float64 `json:"mean_acc"`
	StdAcc        float64 `json:"std_acc"`
	MeanValAcc    float64 `json:"mean_val_acc"` // for choosing between configurations without test labels
	Params        int     `json:"params"`
	TrainSeconds  float64 `json:"train_seconds"`
	SecondsPerRun float64 `json:"seconds_per_run"`
	Epochs        int     `json:"epochs"`
	// Failed are the runs that failed (a run's error, a panic inside it, a
	// divergence); the aggregates above are over the others, and a protocol
	// with failures also returns an error.
	Failed  []RunFailure `json:"failed,omitempty"`
	Results []Result     `json:"-"`
}

// RunFailure is a failed run of a protocol.
type RunFailure struct {
	Run   int    `json:"run"`
	Seed  uint64 `json:"seed"`
	Error string `json:"error"`
}

// failures records the failed runs of errs (seeds first+i) in s and
// returns their errors joined, or nil.
func (s *Summary) failures(errs []error, first uint64) error {
	var failed []error
	for i, err := range errs {
		if err != nil {
			s.Failed = append(s.Failed, RunFailure{Run: i, Seed: first + uint64(i), Error: err.Error()})
			failed = append(failed, err)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("train: %d of %d runs failed: %w", len(failed), len(errs), errors.Join(failed...))
}

// Summarise fills the aggregate fields of s from s.Results.
func (s *Summary) Summarise() {
	accs := make([]float64, len(s.Results))
	vals := make([]float64, len(s.Results))
	s.TrainSeconds = 0
	for i, r := range s.Results {
		accs[i], vals[i] = r.TestAcc, r.ValAcc
		s.TrainSeconds += r.Seconds
	}
	s.Runs = len(s.Results)
	s.MeanAcc, s.StdAcc = MeanStd(accs)
	s.MeanValAcc, _ = MeanStd(vals)
	if s.Runs > 0 {
		s.SecondsPerRun = s.TrainSeconds / float64(s.Runs)
	}
}

// Builder makes a fresh model for one run from that run's seed.
type Builder func(seed uint64) (model.NodeModel, error)

// RunNodeProtocol trains a fresh model per seed under p and summarises the
// runs. onRun, if non-nil, is called after each run; onEpoch after each
// epoch. A run that fails or panics does not stop the others: the summary
// is over the runs that finished, lists the failed ones in Failed, and the
// error reports them.
func RunNodeProtocol(ds *data.NodeDataset, build Builder, p NodeProtocol, cfg Config,
	onEpoch func(run int, e Epoch), onRun func(run int, r Result)) (Summary, error) {
	if p.Seeds < 1 {
		return Summary{}, fmt.Errorf("train: need at least one seed, got %d", p.Seeds)
	}
	p = p.withDefaults()
	s := Summary{Dataset: ds.Name, Task: "node", Protocol: p.Name(), Epochs: cfg.Epochs}
	if err := checkClasses(ds.Name, ds.Y); err != nil {
		return s, err
	}
	if p.Split == "public" && ds.Public == nil {
		return s, fmt.Errorf("train: %s has no public split; use the random split", ds.Name)
	}
	if err := p.Sampling().Validate(); err != nil {
		return s, fmt.Errorf("train: %w", err)
	}
	if p.Split != "" {
		if err := CheckSplit(p.Split); err != nil {
			return s, fmt.Errorf("train: %w", err)
		}
	}
	results := make([]Result, p.Seeds)
	var mu sync.Mutex // serialises the callbacks
	errs := forEachRun(p.Seeds, p.RunsAtOnce(), func(run int) (err error) {
		seed := p.FirstSeed + uint64(run)
		defer func() {
			if e := recover(); e != nil {
				err = fmt.Errorf("run %d (seed %d): panic: %v", run, seed, e)
			}
		}()
		var split data.Split
		if p.Split == "public" {
			split = *ds.Public
		} else {
			split = data.RandomSplit(ds.Y, seed, p.TrainFrac, p.ValFrac)
		}
		if stopped(p.Stop) {
			return fmt.Errorf("run %d (seed %d): %w before it started", run, seed, ErrInterrupted)
		}
		m, err := build(seed)
		if err != nil {
			return fmt.Errorf("run %d (seed %d): %w", run, seed, err)
		}
		if run == 0 {
			s.Params = model.CountParams(m)
		}
		var cb func(Epoch)
		if onEpoch != nil {
			cb = func(e Epoch) { mu.Lock(); onEpoch(run, e); mu.Unlock() }
		}
		var onModel func(Result)
		if p.OnModel != nil {
			onModel = func(r Result) { mu.Lock(); p.OnModel(run, r, m); mu.Unlock() }
		}
		r, err := runNode(m, ds, split, cfg, p.Sampling(), seed, cb, onModel, p.Stop)
		if err != nil {
			return fmt.Errorf("run %d (seed %d): %w", run, seed, err)
		}
		results[run] = r
		if onRun != nil {
			mu.Lock()
			onRun(run, r)
			mu.Unlock()
		}
		return nil
	})
	for i := range errs {
		if errs[i] == nil {
			s.Results = append(s.Results, results[i])
		}
	}
	err := s.failures(errs, p.FirstSeed)
	s.Summarise()
	return s, err
}

// checkClasses refuses labels of fewer than two classes: a classifier
// would score 100 % by answering the only class.
func checkClasses(name string, labels []int32) error {
	seen := map[int32]bool{}
	for _, y := range labels {
		if y >= 0 {
			seen[y] = true
		}
	}
	if len(seen) < 2 {
		return fmt.Errorf("train: %s has %d class(es) among its labels: classification needs at least two", name, len(seen))
	}
	return nil
}

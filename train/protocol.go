package train

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/record"
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
	BatchNodes int            `opt:"batch-nodes" min:"1" max:"1e9" help:"node: training nodes per sampled mini-batch; evaluation then runs layer by layer with every neighbour in blocks of as many nodes; needs --fanout (default: off, full-batch)"`
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

// failures records the failed runs of errs (seeds first+i) in s and
// returns their errors joined, or nil.
func failures(s *record.Summary, errs []error, first uint64) error {
	var failed []error
	for i, err := range errs {
		if err != nil {
			s.Failed = append(s.Failed, record.RunFailure{Run: i, Seed: first + uint64(i), Error: err.Error()})
			failed = append(failed, err)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("train: %d of %d runs failed: %w", len(failed), len(errs), errors.Join(failed...))
}

// Builder makes a fresh model for one run from that run's seed.
type Builder func(seed uint64) (model.NodeModel, error)

// RunNodeProtocol trains a fresh model per seed under p and summarises the
// runs. obs, if non-nil, observes the runs; with p.Parallel > 1 it is
// called from several goroutines, one at a time. A run that fails or
// panics does not stop the others: the summary is over the runs that
// finished, lists the failed ones in Failed, and the error reports them.
func RunNodeProtocol(ds *data.NodeDataset, build Builder, p NodeProtocol, cfg Config, obs Observer) (record.Summary, error) {
	if p.Seeds < 1 {
		return record.Summary{}, fmt.Errorf("train: need at least one seed, got %d", p.Seeds)
	}
	p = p.withDefaults()
	s := record.Summary{Dataset: ds.Name, Task: "node", Protocol: p.Name(), Epochs: cfg.Epochs}
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
	var mu sync.Mutex // serialises the observer's calls
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
		w := newWatch(obs, run, &mu)
		r, err := runNode(m, ds, split, cfg, p.Sampling(), seed, w, p.Stop)
		if err != nil {
			return fmt.Errorf("run %d (seed %d): %w", run, seed, err)
		}
		results[run] = r
		w.finished(r)
		return nil
	})
	for i := range errs {
		if errs[i] == nil {
			s.Results = append(s.Results, results[i])
		}
	}
	err := failures(&s, errs, p.FirstSeed)
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

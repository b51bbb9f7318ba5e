package experiment

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/train"
)

// Options shape a bench: where the data is and how each table cell runs.
// Zero fields take the defaults given with them.
type Options struct {
	Root      string // data directory (data.Options.Root)
	Split     string // node split: "random" (default) or "public"
	Seeds     int    // runs per node table cell (default 10)
	FirstSeed int    // seed of the first run
	Epochs    int    // training epochs; 0: each model's recipe
	Folds     int    // graph tables: cross-validation folds (default 10)
	Parallel  int    // runs (seeds or folds) trained at once (0: one per core, as memory allows)
	Repeat    int    // speed suite: timed runs per variant (default 5)
	Dataset   string // speed suite: the dataset (default cora)
	// MicroBatchSeeds, "on" or "off", overrides every model's recipe for
	// the graph tables' seeded micro-batches (train.GraphProtocol); empty:
	// each model's recipe (on for PR-CapsNet).
	MicroBatchSeeds string
	// ItersPerEpoch, if positive, makes every graph epoch that many random
	// mini-batches (train.GraphProtocol.ItersPerEpoch, GIN-0's reference
	// schedule at 50); 0 is a full pass over the training graphs, as every
	// published table here.
	ItersPerEpoch int
	// Log is a file of finished folds of graph tables, one JSON record per
	// line. Folds found there for the same data, configuration and protocol
	// are not trained again, so a bench interrupted and rerun with the same
	// log resumes; new folds are appended as they finish. Empty: no log.
	Log string
	// LogOnly makes graph tables from Log alone: cells with every fold
	// there are summarised, the others are left empty with a note, and
	// nothing trains. It shows a long bench's progress.
	LogOnly bool
	// Logs, with LogOnly and instead of Log, are several fold logs read
	// as one: the shards' logs of a sharded bench (Shard), merged into
	// the tables the unsharded bench makes. A fold found in two of them,
	// or one table cell's fold under two configurations, is an error
	// naming both files (readFoldLogs).
	Logs []string
	// Shard, if set, makes RunShard train only this shard's part of the
	// tables' folds and seeds (see Shard), appending them to Log.
	Shard Shard
	// Stop, if non-nil, interrupts the bench when closed: the cells in
	// training fail as interrupted and the bench stops after its table.
	Stop <-chan struct{}
	// Sampling, when on, makes the scale suite time neighbour-sampled
	// mini-batch steps (RunScaleSampled) instead of full-batch epochs.
	Sampling train.Sampling
}

func (o Options) withDefaults() Options {
	if o.Split == "" {
		o.Split = "random"
	}
	if o.Seeds == 0 {
		o.Seeds = 10
	}
	if o.Folds == 0 {
		o.Folds = 10
	}
	if o.Repeat == 0 {
		o.Repeat = 5
	}
	if o.Dataset == "" {
		o.Dataset = "cora"
	}
	return o
}

// Validate reports an invalid option.
func (o Options) Validate() error {
	o = o.withDefaults()
	if err := train.CheckSplit(o.Split); err != nil {
		return err
	}
	switch {
	case o.Seeds < 1:
		return fmt.Errorf("seeds must be at least 1")
	case o.Folds < 2:
		return fmt.Errorf("folds must be at least 2")
	case o.Repeat < 1:
		return fmt.Errorf("repeat must be at least 1")
	case o.Epochs < 0:
		return fmt.Errorf("epochs must not be negative")
	case o.FirstSeed < 0:
		return fmt.Errorf("first seed must not be negative")
	case o.LogOnly && o.Log == "" && len(o.Logs) == 0:
		return fmt.Errorf("log-only needs a fold log")
	case len(o.Logs) > 0 && (!o.LogOnly || o.Log != ""):
		return fmt.Errorf("several fold logs are read with log-only alone (a shard appends to one log)")
	case o.Shard.Sharded() && o.Log == "":
		return fmt.Errorf("shard %s needs a fold log of its own, which the merge reads", o.Shard)
	case o.Shard.Sharded() && o.LogOnly:
		return fmt.Errorf("shard and log-only: a shard trains its part; the merge (log-only) reads every shard's log")
	}
	if err := o.Shard.Check(); err != nil {
		return err
	}
	if err := (train.GraphProtocol{MicroBatchSeeds: o.MicroBatchSeeds, ItersPerEpoch: o.ItersPerEpoch}).Check(); err != nil {
		return err
	}
	return o.Sampling.Validate()
}

// Progress receives a bench's progress: lines to show and the state of the
// run in training. A nil Progress shows nothing.
type Progress interface {
	Line(format string, args ...any)
	Update(label string, epoch, epochs int, status string)
}

type noProgress struct{}

func (noProgress) Line(string, ...any)             {}
func (noProgress) Update(string, int, int, string) {}

// Bench runs tables, one cell (variant × dataset) at a time, and keeps
// what they produced. Build it with NewBench.
type Bench struct {
	opt      Options
	progress Progress
	// Record, if non-nil, receives one JSON-ready record per protocol run
	// (and per timed run of the speed suite) as it finishes.
	Record func(v any) error
	// Emit, if non-nil, receives each table as it completes.
	Emit func(t *report.Table) error

	cache   map[string]loadedData
	start   time.Time
	runs    int                // protocol runs (or timed runs for speed)
	memo    map[string]memoRun // results by configuration, dataset and protocol
	failed  []string
	missing []string // Result.Missing
	done    []*report.Table
	// finished counts the cells (rows of the speed and scale tables) of
	// the table being made that have a result; complete is what Complete
	// says of the table last emitted.
	finished int
	complete bool
	logged   map[string]map[int]loggedFold // Options.Log's folds by cell key
	fresh    map[string]bool               // "cell|fold" of the folds logged by this bench (logRuns)
	logErr   error                         // the first failed append to Options.Log
	fromLog  map[string]int                // folds of the current table read from Options.Log, by commit
}

// NewBench returns a bench with options opt (validated) reporting to
// progress (nil: silent).
func NewBench(opt Options, progress Progress) (*Bench, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if progress == nil {
		progress = noProgress{}
	}
	b := &Bench{opt: opt.withDefaults(), progress: progress, cache: map[string]loadedData{},
		memo: map[string]memoRun{}, start: time.Now(), fresh: map[string]bool{}}
	logs := opt.Logs
	if opt.Log != "" {
		logs = []string{opt.Log}
	}
	var err error
	if b.logged, err = readFoldLogs(logs); err != nil {
		return nil, err
	}
	return b, nil
}

// Result is what a bench did: its protocol runs, its failures (each naming
// its table, variant and dataset), its wall time and its tables.
type Result struct {
	ProtocolRuns int             `json:"protocol_runs"`
	Failed       int             `json:"failed"`
	Seconds      float64         `json:"seconds"`
	Tables       []*report.Table `json:"tables"`
	Failures     []string        `json:"-"`
	// Missing are the cells a log-only bench left empty because the
	// log(s) lack some of their folds or seeds, each naming its table,
	// variant, dataset and the missing units.
	Missing []string `json:"missing,omitempty"`
}

// Err reports the runs that failed (nil if none did); the tables say
// which cells they left empty.
func (r Result) Err() error {
	if len(r.Failures) == 0 {
		return nil
	}
	return fmt.Errorf("%d failure(s) (the tables say which):\n  %s", len(r.Failures), strings.Join(r.Failures, "\n  "))
}

// Result summarises the bench so far.
func (b *Bench) Result() Result {
	return Result{ProtocolRuns: b.runs, Failed: len(b.failed), Seconds: time.Since(b.start).Seconds(),
		Tables: b.done, Failures: slices.Clone(b.failed), Missing: slices.Clone(b.missing)}
}

func (b *Bench) record(v any) error {
	if b.Record == nil {
		return nil
	}
	return b.Record(v)
}

// Complete reports whether the table last handed to Emit is a whole
// result: at least one of its cells (rows) finished and the bench was not
// interrupted while it ran. An interrupted table has cells that failed
// only because they were stopped, and a table of failed runs holds no
// result: bench --out writes neither, so that an interrupted or broken
// rerun never replaces the files of an earlier, finished table.
func (b *Bench) Complete() bool { return b.complete }

// emit keeps a finished table and hands it to Emit.
func (b *Bench) emit(tab *report.Table) error {
	b.complete = b.finished > 0 && !b.stopped()
	b.finished = 0
	b.done = append(b.done, tab)
	if b.Emit == nil {
		return nil
	}
	return b.Emit(tab)
}

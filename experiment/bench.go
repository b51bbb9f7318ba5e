package experiment

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
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

// ErrSelection is wrapped by the errors of Select: the selection names no
// table, or one that does not exist.
var ErrSelection = errors.New("bad selection")

// Select returns the tables of suite (of every suite when tables are named
// and suite is empty), narrowed to the named tables, with their datasets
// replaced by datasets when given and their variants narrowed to models.
func Select(suite string, tables, datasets, models []string) ([]Table, error) {
	suites := Suites()
	switch suite { // the paper's names for the suites of one table
	case "table3":
		suite = "node"
	case "table2":
		suite = "graph"
	}
	pool, ok := suites[suite]
	switch {
	case suite == "" && len(tables) > 0:
		pool = append(append(slices.Clone(suites["node"]), suites["ablation"]...), suites["graph"]...)
	case !ok:
		return nil, fmt.Errorf("%w: unknown suite %q (want node or table3, ablation, graph or table2, speed, or scale)", ErrSelection, suite)
	}
	for _, m := range models {
		if !slices.Contains(model.Names(data.NodeTask), m) && !slices.Contains(model.Names(data.GraphTask), m) {
			return nil, fmt.Errorf("%w: unknown model %q", ErrSelection, m)
		}
	}
	sel := pool
	if len(tables) > 0 {
		sel = nil
		for _, n := range tables {
			i := slices.IndexFunc(pool, func(t Table) bool { return t.Name == n })
			if i < 0 {
				return nil, fmt.Errorf("%w: unknown table %q (available: %s)", ErrSelection, n, strings.Join(tableNames(pool), ", "))
			}
			sel = append(sel, pool[i])
		}
	}
	var out []Table
	for _, t := range sel {
		if len(datasets) > 0 {
			t.Datasets = datasets
		}
		if t.Variants = FilterModels(t.Variants, models); len(t.Variants) > 0 {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no table has a variant of the models %q", ErrSelection, models)
	}
	return out, nil
}

func tableNames(ts []Table) []string {
	var names []string
	for _, t := range ts {
		names = append(names, t.Name)
	}
	return names
}

// FilterModels keeps the variants of the given models (all when none).
func FilterModels(vs []Variant, models []string) []Variant {
	if len(models) == 0 {
		return vs
	}
	var out []Variant
	for _, v := range vs {
		if slices.Contains(models, v.Model) {
			out = append(out, v)
		}
	}
	return out
}

// List writes every table of every suite with its datasets and variants.
func List(w io.Writer) error {
	for _, suite := range []string{"node", "ablation", "graph"} {
		fmt.Fprintf(w, "suite %s:\n", suite)
		for _, t := range Suites()[suite] {
			fmt.Fprintf(w, "  %-10s %s\n  %-10s datasets: %s\n", t.Name, t.Title, "", strings.Join(t.Datasets, ", "))
			var labels []string
			for _, v := range t.Variants {
				labels = append(labels, v.Label)
			}
			fmt.Fprintf(w, "  %-10s variants: %s\n", "", strings.Join(labels, "; "))
		}
	}
	var labels []string
	for _, v := range SpeedVariants() {
		labels = append(labels, v.Label)
	}
	_, err := fmt.Fprintf(w, "suite speed:\n  %-10s whole default runs on Cora: %s\n", "speed", strings.Join(labels, "; "))
	return err
}

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

// memoRun is a finished protocol run, reused by a later table that runs
// the identical configuration on the same dataset.
type memoRun struct {
	sum     train.Summary
	err     error
	where   string          // "table/variant" of the first run
	fresh   bool            // run ahead for the table that now reads it: not a reuse
	origins map[string]bool // where its runs' seconds were measured (runOrigin)
}

type loadedData struct {
	ds  *data.Dataset
	err error
}

// benchDataset is a dataset a table runs on: the name it was asked by
// (the key of the paper's numbers) and the loaded node dataset.
type benchDataset struct {
	key string
	ds  *data.Dataset
}

// load reads a dataset once per bench; task is the table's.
func (b *Bench) load(name string, task data.Task) (*data.Dataset, error) {
	if l, ok := b.cache[name]; ok {
		return l.ds, l.err
	}
	ds, err := data.Load(name, data.Options{Root: b.opt.Root})
	if err == nil && ds.Task != task {
		err = fmt.Errorf("%s is a %v-classification dataset; the table is a %v-classification one", ds.Name, ds.Task, task)
	}
	b.cache[name] = loadedData{ds, err}
	return ds, err
}

// tableTask is the task of t's datasets.
func tableTask(t Table) data.Task {
	if t.Graph {
		return data.GraphTask
	}
	return data.NodeTask
}

// datasets loads t's datasets, skipping (with a note) those whose files are missing.
func (b *Bench) datasets(t Table) ([]benchDataset, []string, error) {
	var out []benchDataset
	var notes []string
	for _, name := range t.Datasets {
		ds, err := b.load(name, tableTask(t))
		if errors.Is(err, data.ErrNeedsData) || errors.Is(err, data.ErrMissing) {
			notes = append(notes, fmt.Sprintf("Skipped %s: %v.", displayName(name), err))
			b.progress.Line("%s: skipping %s: %v", t.Name, name, err)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if !t.Graph && b.opt.Split == "public" && ds.Node.Public == nil {
			notes = append(notes, fmt.Sprintf("Skipped %s: it has no public split.", ds.Name))
			b.progress.Line("%s: skipping %s: no public split", t.Name, ds.Name)
			continue
		}
		out = append(out, benchDataset{name, ds})
	}
	return out, notes, nil
}

func displayName(name string) string {
	if in, ok := data.Lookup(name); ok {
		return in.Display
	}
	return name
}

// BenchRecord is the JSON object printed per protocol run: the train.Summary
// contract (DESIGN §8) plus the table and the variant.
type BenchRecord struct {
	Table   string `json:"table"`
	Variant string `json:"variant"`
	train.Summary
	Error string `json:"error,omitempty"`
}

// MarshalJSON writes the record as its fields, except that an aggregate
// that is not a finite number (the mean of a cell none of whose runs
// finished, as when a bench is interrupted) is null: JSON has no NaN, and
// a 0 would read as a result.
func (r BenchRecord) MarshalJSON() ([]byte, error) {
	type plain BenchRecord
	s := r.Summary
	if finite(s.MeanAcc, s.StdAcc, s.MeanValAcc, s.TrainSeconds, s.SecondsPerRun) {
		return json.Marshal(plain(r))
	}
	num := func(x float64) *float64 {
		if !finite(x) {
			return nil
		}
		return &x
	}
	return json.Marshal(struct {
		plain
		MeanAcc       *float64 `json:"mean_acc"`
		StdAcc        *float64 `json:"std_acc"`
		MeanValAcc    *float64 `json:"mean_val_acc"`
		TrainSeconds  *float64 `json:"train_seconds"`
		SecondsPerRun *float64 `json:"seconds_per_run"`
	}{plain(r), num(s.MeanAcc), num(s.StdAcc), num(s.MeanValAcc), num(s.TrainSeconds), num(s.SecondsPerRun)})
}

// finite reports whether every x is neither NaN nor infinite.
func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// cellResult is one variant's protocol run on one dataset.
type cellResult struct {
	sum     train.Summary
	err     error
	skipped bool            // Variant.Skip
	origins map[string]bool // where its runs' seconds were measured (runOrigin)
}

// RunTables runs every table, emitting each as it completes. A failing
// cell is a note in its table and a failure in Result, not an error; the
// error is the first that stops the bench (a dataset that cannot be read,
// or Emit's or Record's).
func (b *Bench) RunTables(tables []Table) error {
	for i, t := range tables {
		b.progress.Line("table %d/%d: %s (%s)", i+1, len(tables), t.Name, t.Title)
		tab, err := b.runTable(t)
		if err == nil && b.logErr != nil {
			err = fmt.Errorf("fold log: %w", b.logErr)
		}
		if err != nil {
			return err
		}
		if err := b.emit(tab); err != nil {
			return err
		}
		select {
		case <-b.opt.Stop:
			return fmt.Errorf("interrupted after table %s: %w", t.Name, train.ErrInterrupted)
		default:
		}
	}
	return nil
}

// stopped reports whether Options.Stop has been closed.
func (b *Bench) stopped() bool {
	select {
	case <-b.opt.Stop:
		return true
	default:
		return false
	}
}

// runTable runs every variant of t on every available dataset.
func (b *Bench) runTable(t Table) (*report.Table, error) {
	dss, notes, err := b.datasets(t)
	if err != nil {
		return nil, err
	}
	b.fromLog = map[string]int{}
	addLogNote := func() {
		if n := len(b.fromLog); n > 0 {
			var by []string
			total := 0
			for _, c := range slices.Sorted(maps.Keys(b.fromLog)) {
				by = append(by, fmt.Sprintf("%d at %s", b.fromLog[c], c))
				total += b.fromLog[c]
			}
			unit := "fold(s)"
			if !t.Graph {
				unit = "run(s)"
			}
			notes = append(notes, fmt.Sprintf("%d %s were read from %s (trained: %s), with the runtimes of the runs that trained them.",
				total, unit, b.logPhrase(), strings.Join(by, ", ")))
		}
	}
	if t.Graph {
		b.runGraphTableCells(t, dss)
		addLogNote()
	}
	res := make([][]cellResult, len(t.Variants))
	for vi, v := range t.Variants {
		res[vi] = make([]cellResult, len(dss))
		for di, d := range dss {
			if why, ok := v.Skip[d.key]; ok {
				res[vi][di] = cellResult{skipped: true}
				notes = append(notes, fmt.Sprintf("%s on %s: not run (%s).", v.Label, d.ds.Name, why))
				continue
			}
			s, origins, reused, err := b.memoVariant(t, v, d)
			if reused != "" {
				notes = append(notes, fmt.Sprintf("%s on %s: the same configuration as %s; its result is reused.", v.Label, d.ds.Name, reused))
			}
			res[vi][di] = cellResult{sum: s, err: err, origins: origins}
			if err == nil {
				b.finished++
			}
			if errors.Is(err, errNotInLog) {
				res[vi][di] = cellResult{skipped: true}
				notes = append(notes, fmt.Sprintf("%s on %s: %v.", v.Label, d.ds.Name, err))
				b.missing = append(b.missing, fmt.Sprintf("%s: %s on %s: %v", t.Name, v.Label, d.ds.Name, err))
				continue
			}
			if err != nil {
				msg := fmt.Sprintf("%s on %s failed: %v", v.Label, d.ds.Name, err)
				notes = append(notes, msg+".")
				b.failed = append(b.failed, t.Name+": "+msg)
				b.progress.Line("%s: %s", t.Name, msg)
			}
		}
	}
	note := b.protocolNote()
	if t.Graph {
		note = b.graphProtocolNote()
	} else {
		addLogNote()
	}
	return renderBench(t, dss, res, note, notes), nil
}

// variantConfig is v's model and training configuration on the dataset
// (a registry name) under the options: the model's default for the
// table's task changed by v.Apply and v.Options[dataset], and the model's
// training recipe changed by v.Options[dataset].
func (b *Bench) variantConfig(t Table, v Variant, dataset string) (model.Config, train.Config, error) {
	task := tableTask(t)
	mc, err := model.DefaultConfig(task, v.Model)
	if err != nil {
		return nil, train.Config{}, err
	}
	tc := train.Recipe(task, v.Model)
	if v.Apply != nil {
		v.Apply(mc)
	}
	if err := applyOptions(mc, &tc, v.Model, v.Options[dataset]); err != nil {
		return nil, tc, fmt.Errorf("%s on %s: %w", v.Label, dataset, err)
	}
	if b.opt.Epochs > 0 {
		tc.Epochs = b.opt.Epochs
	}
	return mc, tc, nil
}

// memoVariant runs v on d unless an earlier table ran the identical
// configuration there, in which case it returns that result and where it
// came from. Either way it prints the JSON record.
func (b *Bench) memoVariant(t Table, v Variant, d benchDataset) (train.Summary, map[string]bool, string, error) {
	mc, tc, err := b.variantConfig(t, v, d.key)
	if err != nil {
		return train.Summary{}, nil, "", err
	}
	key := memoKey(v.Model, mc, tc, d.key, t.Graph)
	from := ""
	m, ok := b.memo[key]
	switch {
	case ok && m.fresh: // run ahead for this cell (runGraphTableCells)
		m.fresh = false
		b.memo[key] = m
	case ok:
		from = m.where
		b.progress.Line("%s: %s on %s: same configuration as %s, reusing its result", t.Name, v.Label, d.ds.Name, from)
	default:
		m.sum, m.origins, m.err = b.runVariant(t, v, mc, tc, d.ds)
		m.where = t.Name + "/" + v.Label
		b.memo[key] = m
	}
	rec := BenchRecord{Table: t.Name, Variant: v.Label, Summary: m.sum}
	if m.err != nil {
		rec.Error = m.err.Error()
	}
	if err := b.record(rec); err != nil {
		return m.sum, m.origins, from, err
	}
	return m.sum, m.origins, from, m.err
}

// memoKey identifies a protocol run: the configuration, the dataset and
// the task. It is also what the fold log's cell keys digest, so it keeps
// the form the committed logs were written in: the step schedule's period
// is written 0 when it is 50 (recipes left it implicit then) and when the
// schedule is another, which never reads it.
func memoKey(name string, mc model.Config, tc train.Config, dataset string, graph bool) string {
	if tc.LRSchedule != train.ScheduleStep || tc.StepEvery == model.DefaultStepEvery {
		tc.StepEvery = 0
	}
	return fmt.Sprintf("%s|%+v|%+v|%s|%v", name, mc, tc, dataset, graph)
}

// runVariant runs the node protocol for v (configured as mc, tc) on ds.
// It also returns where its runs' seconds were measured (runOrigin).
func (b *Bench) runVariant(t Table, v Variant, mc model.Config, tc train.Config, ds *data.Dataset) (train.Summary, map[string]bool, error) {
	if t.Graph { // runTable runs every graph cell ahead, in runGraphTableCells
		return train.Summary{}, nil, fmt.Errorf("bench: %s/%s on %s was not run with its table's graph cells", t.Name, v.Label, ds.Name)
	}
	proto := b.nodeProtocol()
	label := fmt.Sprintf("%s %s %s", t.Name, v.Label, ds.Name)
	run := Run{Model: v.Model, Config: mc, Train: tc, Dataset: ds, Node: proto, Progress: b.progress, Label: label}
	key := nodeCellKey(memoKey(v.Model, mc, tc, ds.Name, false), ds, proto)
	if sum, origins, ok, err := b.nodeFromLog(run, key); ok || err != nil {
		return sum, origins, err
	}
	b.progress.Line("%s: %s on %s, %s, %d epochs", t.Name, v.Label, ds.Name, proto.Name(), tc.Epochs)
	logLabel := fmt.Sprintf("%s: %s on %s", t.Name, v.Label, ds.Name)
	if done := b.logged[key]; len(done) > 0 { // resume: train the runs missing from the log
		var todo []int
		for i := range proto.Seeds {
			if _, ok := done[i]; !ok {
				todo = append(todo, i)
			}
		}
		_, err := b.trainNodeSeeds(run, key, logLabel, todo)
		b.runs++
		if err != nil {
			return train.Summary{}, nil, err
		}
		sum, origins, _, err := b.nodeFromLog(run, key)
		return sum, origins, err
	}
	if b.opt.Log != "" {
		b.logRuns(&run.Observer, key, logLabel, ds.Fingerprint(), 0)
	}
	sum, err := run.Do()
	b.runs++
	if err == nil {
		b.progress.Line("%s: %s on %s: %s, %s params, %.2f s per run", t.Name, v.Label, ds.Name,
			report.MeanStd(sum.MeanAcc, sum.StdAcc), report.Params(sum.Params), sum.SecondsPerRun)
	}
	return sum, map[string]bool{hereOrigin(): true}, err
}

// nodeProtocol is the node protocol of the bench's node tables.
func (b *Bench) nodeProtocol() train.NodeProtocol {
	return train.NodeProtocol{Split: b.opt.Split, Seeds: b.opt.Seeds, FirstSeed: uint64(b.opt.FirstSeed), Parallel: b.opt.Parallel, Stop: b.opt.Stop}
}

func (b *Bench) protocolNote() string {
	p := train.NodeProtocol{Split: b.opt.Split, Seeds: b.opt.Seeds}
	ep := "each model's default epochs"
	if b.opt.Epochs > 0 {
		ep = fmt.Sprintf("%d epoch(s)", b.opt.Epochs)
	}
	seeds := fmt.Sprintf("seed %d", b.opt.FirstSeed)
	if b.opt.Seeds > 1 {
		seeds = fmt.Sprintf("seeds %d-%d", b.opt.FirstSeed, b.opt.FirstSeed+b.opt.Seeds-1)
	}
	p.Parallel = b.opt.Parallel
	atOnce := "one run at a time, its kernels on every core"
	if n := p.RunsAtOnce(); n > 1 {
		atOnce = fmt.Sprintf("%d runs at once, each on one core", n)
		if b.opt.Parallel < 1 {
			atOnce += " (at most; fewer where memory is short)"
		}
	}
	return fmt.Sprintf("ACC: test accuracy at the best-validation epoch, mean ± std (population) over the runs of protocol %q, %s, %s. "+
		"Param: trainable parameters. Runtime: training wall time per run in seconds (evaluation every epoch; %s, GOMAXPROCS %d).",
		p.Name(), seeds, ep, atOnce, runtime.GOMAXPROCS(0))
}

// renderBench lays out a table: the key columns, then per dataset Param,
// Runtime, ACC and (where the paper has numbers) the paper's ACC.
func renderBench(t Table, dss []benchDataset, res [][]cellResult, protoNote string, notes []string) *report.Table {
	names := make([]string, len(dss))
	for i, d := range dss {
		names[i] = d.ds.Name
	}
	tab := &report.Table{Name: t.Name, Title: t.Title}
	if len(names) > 0 {
		tab.Title += " — " + strings.Join(names, ", ")
	}
	tab.Columns = slices.Clone(t.KeyCols)
	if tab.Columns == nil {
		tab.Columns = []string{"Model"}
	}
	paperCol := make([]bool, len(dss))
	for i, d := range dss {
		prefix := ""
		if len(dss) > 1 {
			prefix = d.ds.Name + " "
		}
		tab.Columns = append(tab.Columns, prefix+"Param", prefix+"Runtime (s)", prefix+"ACC")
		paperCol[i] = slices.ContainsFunc(t.Variants, func(v Variant) bool { return v.Paper[d.key] != "" })
		if paperCol[i] {
			tab.Columns = append(tab.Columns, prefix+"paper ACC")
		}
	}
	cellStats, statNotes := columnStats(t, dss, res)
	dropTime, timeNotes := runtimeOrigins(dss, res)
	for vi, v := range t.Variants {
		row := slices.Clone(v.keys())
		for di, d := range dss {
			cells := resultCells(res[vi][di])
			if dropTime[di] && cells[1] != report.Missing {
				cells[1] = report.Missing
			}
			if cs := cellStats[vi][di]; cs != nil {
				cs.Row, cs.Column = len(tab.Rows), tab.Columns[len(row)+2]
				if cs.TiedBest {
					cells[2] = report.Bold(cells[2])
				}
			}
			row = append(row, cells...)
			if paperCol[di] {
				row = append(row, orMissing(v.Paper[d.key]))
			}
		}
		tab.AddRow(row...)
	}
	for _, p := range t.Paper {
		row := slices.Clone(p.Keys)
		for di, d := range dss {
			c, ok := p.Cells[d.key]
			if !ok {
				c = PaperCell{report.Missing, report.Missing, report.Missing}
			}
			row = append(row, c.Params, c.Runtime, c.Acc)
			if paperCol[di] {
				row = append(row, report.Missing)
			}
		}
		tab.AddRow(row...)
	}
	tab.Notes = append(append(append([]string{protoNote}, timeNotes...), t.Notes...), notes...)
	tab.Notes = append(tab.Notes, beatsReference(t, dss, res)...)
	tab.Notes = append(tab.Notes, bestPerDataset(t, dss, res)...)
	tab.Notes = append(tab.Notes, statNotes...)
	for di := range dss {
		for vi := range t.Variants {
			if cs := cellStats[vi][di]; cs != nil {
				tab.Stats = append(tab.Stats, *cs)
			}
		}
	}
	return tab
}

// runtimeOrigins says, per dataset column, whether our rows' runtimes
// must be left out because their runs' seconds were measured at more than
// one commit or machine, or on a machine the fold log did not record
// (runOrigin), and the notes that say where each column's seconds come
// from: a time column compares like with like or is not shown.
func runtimeOrigins(dss []benchDataset, res [][]cellResult) ([]bool, []string) {
	drop := make([]bool, len(dss))
	byOrigin := map[string][]string{} // one origin: its columns
	var mixed []string
	mixedOrigins := map[string]bool{}
	for di, d := range dss {
		origins := map[string]bool{}
		for vi := range res {
			if r := res[vi][di]; !r.skipped && r.err == nil {
				for o := range r.origins {
					origins[o] = true
				}
			}
		}
		if len(origins) == 0 {
			continue
		}
		if len(origins) == 1 {
			o := slices.Collect(maps.Keys(origins))[0]
			if !strings.HasSuffix(o, " on "+unrecordedCPU) {
				byOrigin[o] = append(byOrigin[o], d.ds.Name)
				continue
			}
		}
		drop[di] = true
		mixed = append(mixed, d.ds.Name)
		for o := range origins {
			mixedOrigins[o] = true
		}
	}
	var notes []string
	for _, o := range slices.Sorted(maps.Keys(byOrigin)) {
		notes = append(notes, fmt.Sprintf("Runtime (s) of %s: every run of the column measured at %s; the machine's other load is not recorded.",
			strings.Join(byOrigin[o], ", "), o))
	}
	if len(mixed) > 0 {
		notes = append(notes, fmt.Sprintf("Runtime (s) is left out of %s: the column's runs were measured at %s "+
			"(more than one commit or machine, or a machine the fold log does not record: records written before they named their CPU), "+
			"so their seconds do not compare like with like; docs/performance.md compares speeds on one machine and commit.",
			strings.Join(mixed, ", "), strings.Join(slices.Sorted(maps.Keys(mixedOrigins)), "; ")))
	}
	return drop, notes
}

// bestPerDataset says, per dataset with two or more results, which variant
// has the highest mean accuracy, by how many points it leads the next, and
// where the reference variant ranks.
func bestPerDataset(t Table, dss []benchDataset, res [][]cellResult) []string {
	var notes []string
	for di, d := range dss {
		var ranked []int // variants with a result, best first
		for vi := range t.Variants {
			if c := res[vi][di]; c.err == nil && !c.skipped {
				ranked = append(ranked, vi)
			}
		}
		if len(ranked) < 2 {
			continue
		}
		acc := func(vi int) float64 { return res[vi][di].sum.MeanAcc }
		slices.SortStableFunc(ranked, func(a, b int) int { return cmp.Compare(acc(b), acc(a)) })
		best, next := ranked[0], ranked[1]
		ab, an := accPair(acc(best), acc(next))
		note := fmt.Sprintf("Best on %s: %s (%s), %s points above the next (%s, %s).", d.ds.Name,
			t.Variants[best].Label, ab, pointsApart(acc(best), acc(next)), t.Variants[next].Label, an)
		if ref := slices.IndexFunc(ranked, func(vi int) bool { return t.Variants[vi].Label == t.Reference }); ref > 0 {
			note += fmt.Sprintf(" %s ranks %d of %d, %s points below it.", t.Reference, ref+1, len(ranked), pointsApart(acc(best), acc(ranked[ref])))
		}
		notes = append(notes, note)
	}
	return notes
}

// accPair formats two mean accuracies with accDecimals(a, b) decimals.
func accPair(a, b float64) (string, string) {
	n := accDecimals(a, b)
	return fmt.Sprintf("%.*f", n, a), fmt.Sprintf("%.*f", n, b)
}

// accDecimals is 3, or 4 when three would show two different accuracies as
// a tie (0.761 above 0.761).
func accDecimals(a, b float64) int {
	if a != b && fmt.Sprintf("%.3f", a) == fmt.Sprintf("%.3f", b) {
		return 4
	}
	return 3
}

// pointsApart is a−b in percentage points, with one decimal, or two when
// one would show a difference as 0.0.
func pointsApart(a, b float64) string {
	d := 100 * (a - b)
	if s := fmt.Sprintf("%.1f", d); s != "0.0" || d == 0 {
		return s
	}
	return fmt.Sprintf("%.2f", d)
}

// beatsReference says, per dataset, which variants score a higher mean
// accuracy than the table's reference variant (with four decimals where
// three would show one of them level with the reference).
func beatsReference(t Table, dss []benchDataset, res [][]cellResult) []string {
	ref := slices.IndexFunc(t.Variants, func(v Variant) bool { return v.Label == t.Reference })
	if t.Reference == "" || ref < 0 {
		return nil
	}
	var notes []string
	for di, d := range dss {
		r := res[ref][di]
		if r.err != nil || r.skipped {
			continue
		}
		var better []int
		digits := 3
		for vi := range t.Variants {
			c := res[vi][di]
			if vi != ref && c.err == nil && !c.skipped && c.sum.MeanAcc > r.sum.MeanAcc {
				better = append(better, vi)
				digits = max(digits, accDecimals(c.sum.MeanAcc, r.sum.MeanAcc))
			}
		}
		if len(better) == 0 {
			notes = append(notes, fmt.Sprintf("On %s no other model scores above %s (%.3f).", d.ds.Name, t.Reference, r.sum.MeanAcc))
			continue
		}
		names := make([]string, len(better))
		for i, vi := range better {
			names[i] = fmt.Sprintf("%s (%.*f)", t.Variants[vi].Label, digits, res[vi][di].sum.MeanAcc)
		}
		verb := "score"
		if len(better) == 1 {
			verb = "scores"
		}
		notes = append(notes, fmt.Sprintf("On %s, %s %s above %s (%.*f).", d.ds.Name, strings.Join(names, ", "), verb, t.Reference, digits, r.sum.MeanAcc))
	}
	return notes
}

func resultCells(r cellResult) []string {
	if r.skipped {
		return []string{report.Missing, report.Missing, report.Missing}
	}
	if r.err != nil {
		return []string{report.Missing, report.Missing, report.Failed}
	}
	s := r.sum
	return []string{report.Params(s.Params), report.Seconds(s.SecondsPerRun), report.MeanStd(s.MeanAcc, s.StdAcc)}
}

func orMissing(s string) string {
	if s == "" {
		return report.Missing
	}
	return s
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

// ReadBenchRecords parses the JSON lines `prcaps bench --json` prints
// (or a file of them): one BenchRecord per protocol run, the last line's
// suite summary skipped. name prefixes the errors.
func ReadBenchRecords(b []byte, name string) ([]BenchRecord, error) {
	var recs []BenchRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	for line := 1; dec.More(); line++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%s: record %d: %w", name, line, err)
		}
		var head struct {
			Table string `json:"table"`
		}
		if err := json.Unmarshal(raw, &head); err != nil || head.Table == "" {
			continue // the suite summary (its "tables"), or not a record
		}
		var r BenchRecord
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("%s: record %d: %w", name, line, err)
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no bench records (prcaps bench --json output)", name)
	}
	return recs, nil
}

package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/train"
)

// benchFlags are the flags of `prcaps bench`.
type benchFlags struct {
	suite, tables, datasets, models string
	root, split, out, cpuProfile    string
	seeds, firstSeed, epochs        int
	repeat, folds, parallel         int
	asJSON, quiet, speed, list      bool
	suiteSet                        bool // --suite was given
}

func runBench(args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchFlags(args, stderr)
	if err != nil {
		return err
	}
	if f.list {
		return listSuites(stdout)
	}
	if f.cpuProfile != "" {
		stop, err := startCPUProfile(f.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	b := newBencher(f, stdout, stderr)
	if f.suite == "speed" {
		return b.runSpeed(filterModels(speedVariants(), f.models))
	}
	tables, err := selectTables(f)
	if err != nil {
		return err
	}
	return b.runTables(tables)
}

func parseBenchFlags(args []string, stderr io.Writer) (benchFlags, error) {
	fs := newFlagSet("bench", "Regenerates the paper's tables side by side with our baselines, under the node protocol\n"+
		"(10 random 60/20/20 splits by default; test accuracy at the best-validation epoch), and prints\n"+
		"them as Markdown.\n\n"+
		"Suites: node (Table 3: PR-CapsNet and GCN on cora citeseer pubmed cs), ablation (tables t4 t5\n"+
		"curvature iters dims k gates layers), speed (median wall time of whole 200-epoch Cora runs).\n"+
		"Datasets whose files are missing are skipped with a note.", stderr)
	var f benchFlags
	fs.StringVar(&f.suite, "suite", "node", "node, ablation, graph (Table 2 under the graph protocol) or speed")
	fs.IntVar(&f.folds, "folds", 10, "graph tables: stratified cross-validation folds")
	fs.BoolVar(&f.speed, "speed", false, "same as --suite speed")
	fs.StringVar(&f.tables, "tables", "", "comma-separated tables to run (t3 t4 t5 curvature iters dims k gates layers; see --list); without --suite, from any suite")
	fs.StringVar(&f.datasets, "dataset", "", "comma-separated datasets replacing every selected table's datasets (speed: the first one)")
	fs.StringVar(&f.models, "models", "", "comma-separated models to keep (prcapsnet, gcn); empty: all")
	fs.StringVar(&f.root, "data", data.DefaultRoot(), "data directory; default $PRCAPS_DATA, then the user cache; Cora is embedded")
	fs.StringVar(&f.split, "split", "random", "node split: random (60/20/20 per seed) or public (Planetoid's 20 per class/500/1000)")
	fs.IntVar(&f.seeds, "seeds", 10, "runs per table cell (seeds first-seed, first-seed+1, ...)")
	fs.IntVar(&f.firstSeed, "first-seed", 0, "seed of the first run")
	fs.IntVar(&f.epochs, "epochs", 0, "training epochs (0: each model's default, 200); small values make quick smoke runs")
	fs.IntVar(&f.parallel, "parallel", 1, "runs (seeds or folds) of a table cell trained concurrently; results do not depend on it")
	fs.IntVar(&f.repeat, "repeat", 5, "speed suite: timed runs per model (the median is reported)")
	fs.StringVar(&f.out, "out", "", "also write each table as DIR/<table>.md and DIR/<table>.csv")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object per protocol run and a summary object (with the tables) on the last line")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output on stderr (a bar on a terminal, plain lines otherwise); results still go to stdout")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole command to `file` (read it with go tool pprof)")
	fs.BoolVar(&f.list, "list", false, "list the suites' tables, datasets and variants, and run nothing")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	fs.Visit(func(fl *flag.Flag) { f.suiteSet = f.suiteSet || fl.Name == "suite" || fl.Name == "speed" })
	if f.speed {
		f.suite = "speed"
	}
	switch {
	case f.suite != "node" && f.suite != "ablation" && f.suite != "graph" && f.suite != "speed":
		return f, usagef("--suite must be node, ablation, graph or speed, not %q", f.suite)
	case f.folds < 2:
		return f, usagef("--folds must be at least 2")
	case f.seeds < 1:
		return f, usagef("--seeds must be at least 1")
	case f.repeat < 1:
		return f, usagef("--repeat must be at least 1")
	case f.epochs < 0:
		return f, usagef("--epochs must not be negative")
	case f.split != "random" && f.split != "public":
		return f, usagef("--split must be random or public, not %q", f.split)
	}
	for _, m := range splitList(f.models) {
		if !slices.Contains(model.NodeModels(), m) {
			return f, usagef("unknown model %q in --models (available: %s)", m, strings.Join(model.NodeModels(), ", "))
		}
	}
	return f, nil
}

// splitList splits a comma-separated flag value into lower-case items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, strings.ToLower(p))
		}
	}
	return out
}

// selectTables returns the tables of f's suite (of every suite when
// --tables is given without --suite), narrowed by --tables, --dataset and
// --models.
func selectTables(f benchFlags) ([]benchTable, error) {
	suites := benchSuites()
	pool := suites[f.suite]
	if f.tables != "" && !f.suiteSet {
		pool = append(append(slices.Clone(suites["node"]), suites["ablation"]...), suites["graph"]...)
	}
	tables := pool
	if names := splitList(f.tables); len(names) > 0 {
		tables = nil
		for _, n := range names {
			i := slices.IndexFunc(pool, func(t benchTable) bool { return t.Name == n })
			if i < 0 {
				return nil, usagef("unknown table %q (available: %s)", n, strings.Join(tableNames(pool), ", "))
			}
			tables = append(tables, pool[i])
		}
	}
	var out []benchTable
	for _, t := range tables {
		if ds := splitList(f.datasets); len(ds) > 0 {
			t.Datasets = ds
		}
		if t.Variants = filterModels(t.Variants, f.models); len(t.Variants) > 0 {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, usagef("no table has a variant of the models %q", f.models)
	}
	return out, nil
}

func tableNames(ts []benchTable) []string {
	var names []string
	for _, t := range ts {
		names = append(names, t.Name)
	}
	return names
}

// filterModels keeps the variants of the comma-separated models (all if empty).
func filterModels(vs []benchVariant, models string) []benchVariant {
	keep := splitList(models)
	if len(keep) == 0 {
		return vs
	}
	var out []benchVariant
	for _, v := range vs {
		if slices.Contains(keep, v.Model) {
			out = append(out, v)
		}
	}
	return out
}

// listSuites prints every table of every suite with its datasets and variants.
func listSuites(w io.Writer) error {
	for _, suite := range []string{"node", "ablation", "graph"} {
		fmt.Fprintf(w, "suite %s:\n", suite)
		for _, t := range benchSuites()[suite] {
			fmt.Fprintf(w, "  %-10s %s\n  %-10s datasets: %s\n", t.Name, t.Title, "", strings.Join(t.Datasets, ", "))
			var labels []string
			for _, v := range t.Variants {
				labels = append(labels, v.Label)
			}
			fmt.Fprintf(w, "  %-10s variants: %s\n", "", strings.Join(labels, "; "))
		}
	}
	var labels []string
	for _, v := range speedVariants() {
		labels = append(labels, v.Label)
	}
	_, err := fmt.Fprintf(w, "suite speed:\n  %-10s whole default runs on Cora: %s\n", "speed", strings.Join(labels, "; "))
	return err
}

// bencher runs tables and prints their results.
type bencher struct {
	f      benchFlags
	stdout io.Writer
	prog   *progress
	enc    *json.Encoder
	cache  map[string]loadedData
	start  time.Time
	runs   int                // protocol runs (or timed runs for speed)
	memo   map[string]memoRun // results by configuration, dataset and protocol
	failed []string
	done   []*report.Table
}

// memoRun is a finished protocol run, reused by a later table that runs
// the identical configuration on the same dataset.
type memoRun struct {
	sum   train.Summary
	err   error
	where string // "table/variant" of the first run
	fresh bool   // run ahead for the table that now reads it: not a reuse
}

type loadedData struct {
	ds  *data.Dataset
	err error
}

func newBencher(f benchFlags, stdout, stderr io.Writer) *bencher {
	return &bencher{f: f, stdout: stdout, enc: json.NewEncoder(stdout), cache: map[string]loadedData{},
		memo: map[string]memoRun{}, start: time.Now(),
		prog: newProgress(stderr, f.quiet)}
}

// benchDataset is a dataset a table runs on: the name it was asked by
// (the key of the paper's numbers) and the loaded node dataset.
type benchDataset struct {
	key string
	ds  *data.Dataset
}

// load reads a dataset once per bench; task is the table's.
func (b *bencher) load(name string, task data.Task) (*data.Dataset, error) {
	if l, ok := b.cache[name]; ok {
		return l.ds, l.err
	}
	ds, err := data.Load(name, data.Options{Root: b.f.root})
	if err == nil && ds.Task != task {
		err = fmt.Errorf("%s is a %v-classification dataset; the table is a %v-classification one", ds.Name, ds.Task, task)
	}
	b.cache[name] = loadedData{ds, err}
	return ds, err
}

// tableTask is the task of t's datasets.
func tableTask(t benchTable) data.Task {
	if t.Graph {
		return data.GraphTask
	}
	return data.NodeTask
}

// datasets loads t's datasets, skipping (with a note) those whose files are missing.
func (b *bencher) datasets(t benchTable) ([]benchDataset, []string, error) {
	var out []benchDataset
	var notes []string
	for _, name := range t.Datasets {
		ds, err := b.load(name, tableTask(t))
		if errors.Is(err, data.ErrNeedsData) || errors.Is(err, data.ErrMissing) {
			notes = append(notes, fmt.Sprintf("Skipped %s: %v.", displayName(name), err))
			b.prog.line("%s: skipping %s: %v", t.Name, name, err)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if !t.Graph && b.f.split == "public" && ds.Node.Public == nil {
			notes = append(notes, fmt.Sprintf("Skipped %s: it has no public split.", ds.Name))
			b.prog.line("%s: skipping %s: no public split", t.Name, ds.Name)
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

// benchRecord is the JSON object printed per protocol run: the train.Summary
// contract (DESIGN §8) plus the table and the variant.
type benchRecord struct {
	Table   string `json:"table"`
	Variant string `json:"variant"`
	train.Summary
	Error string `json:"error,omitempty"`
}

// benchSummary is the last JSON line of a bench.
type benchSummary struct {
	Suite        string          `json:"suite"`
	ProtocolRuns int             `json:"protocol_runs"`
	Failed       int             `json:"failed"`
	Seconds      float64         `json:"seconds"`
	Tables       []*report.Table `json:"tables"`
}

// cellResult is one variant's protocol run on one dataset.
type cellResult struct {
	sum train.Summary
	err error
}

// runTables runs every table, printing each as it completes.
func (b *bencher) runTables(tables []benchTable) error {
	for i, t := range tables {
		b.prog.line("table %d/%d: %s (%s)", i+1, len(tables), t.Name, t.Title)
		tab, err := b.runTable(t)
		if err != nil {
			return err
		}
		if err := b.emit(tab); err != nil {
			return err
		}
	}
	return b.finish()
}

// runTable runs every variant of t on every available dataset.
func (b *bencher) runTable(t benchTable) (*report.Table, error) {
	dss, notes, err := b.datasets(t)
	if err != nil {
		return nil, err
	}
	if t.Graph {
		b.runGraphTableCells(t, dss)
	}
	res := make([][]cellResult, len(t.Variants))
	for vi, v := range t.Variants {
		res[vi] = make([]cellResult, len(dss))
		for di, d := range dss {
			s, reused, err := b.memoVariant(t, v, d)
			if reused != "" {
				notes = append(notes, fmt.Sprintf("%s on %s: the same configuration as %s; its result is reused.", v.Label, d.ds.Name, reused))
			}
			res[vi][di] = cellResult{s, err}
			if err != nil {
				msg := fmt.Sprintf("%s on %s failed: %v", v.Label, d.ds.Name, err)
				notes = append(notes, msg+".")
				b.failed = append(b.failed, t.Name+": "+msg)
				b.prog.line("%s: %s", t.Name, msg)
			}
		}
	}
	note := b.protocolNote()
	if t.Graph {
		note = b.graphProtocolNote()
	}
	return renderBench(t, dss, res, note, notes), nil
}

// variantConfig is v's model and training configuration under the flags.
func (b *bencher) variantConfig(t benchTable, v benchVariant) (model.NodeConfig, train.Config, error) {
	mc, tc, err := model.DefaultNodeConfig(v.Model)
	if err != nil {
		return mc, tc, err
	}
	if t.Graph {
		if mc.PRCaps, tc, err = model.DefaultGraphConfig(v.Model); err != nil {
			return mc, tc, err
		}
	}
	if v.Apply != nil {
		v.Apply(&mc)
	}
	if b.f.epochs > 0 {
		tc.Epochs = b.f.epochs
	}
	return mc, tc, nil
}

// memoVariant runs v on d unless an earlier table ran the identical
// configuration there, in which case it returns that result and where it
// came from. Either way it prints the JSON record.
func (b *bencher) memoVariant(t benchTable, v benchVariant, d benchDataset) (train.Summary, string, error) {
	mc, tc, err := b.variantConfig(t, v)
	if err != nil {
		return train.Summary{}, "", err
	}
	key := memoKey(mc, tc, d.key, t.Graph)
	from := ""
	m, ok := b.memo[key]
	switch {
	case ok && m.fresh: // run ahead for this cell (runGraphTableCells)
		m.fresh = false
		b.memo[key] = m
	case ok:
		from = m.where
		b.prog.line("%s: %s on %s: same configuration as %s, reusing its result", t.Name, v.Label, d.ds.Name, from)
	default:
		m.sum, m.err = b.runVariant(t, v, mc, tc, d.ds)
		m.where = t.Name + "/" + v.Label
		b.memo[key] = m
	}
	if b.f.asJSON {
		rec := benchRecord{Table: t.Name, Variant: v.Label, Summary: m.sum}
		if m.err != nil {
			rec.Error = m.err.Error()
		}
		if err := b.enc.Encode(rec); err != nil {
			return m.sum, from, err
		}
	}
	return m.sum, from, m.err
}

// memoKey identifies a protocol run: the configuration, the dataset and
// the task.
func memoKey(mc model.NodeConfig, tc train.Config, dataset string, graph bool) string {
	return fmt.Sprintf("%+v|%+v|%s|%v", mc, tc, dataset, graph)
}

// runVariant runs the node protocol for v (configured as mc, tc) on ds.
func (b *bencher) runVariant(t benchTable, v benchVariant, mc model.NodeConfig, tc train.Config, ds *data.Dataset) (train.Summary, error) {
	if t.Graph { // runTable runs every graph cell ahead, in runGraphTableCells
		return train.Summary{}, fmt.Errorf("bench: %s/%s on %s was not run with its table's graph cells", t.Name, v.Label, ds.Name)
	}
	proto := train.NodeProtocol{Split: b.f.split, Seeds: b.f.seeds, FirstSeed: uint64(b.f.firstSeed), Parallel: b.f.parallel}
	b.prog.line("%s: %s on %s, %s, %d epochs", t.Name, v.Label, ds.Name, proto.Name(), tc.Epochs)
	label := fmt.Sprintf("%s %s %s", t.Name, v.Label, ds.Name)
	build := func(seed uint64) (train.NodeModel, error) { return model.NewNodeModel(ds.Node, mc, seed) }
	sum, err := train.RunNodeProtocol(ds.Node, build, proto, tc,
		func(run int, e train.Epoch) {
			b.prog.update(fmt.Sprintf("%s run %d/%d", label, run+1, proto.Seeds), e.Epoch, tc.Epochs,
				fmt.Sprintf("loss %.4f val %.3f", e.Loss, e.ValAcc))
		}, nil)
	sum.Model = mc.Model
	b.runs++
	if err == nil {
		b.prog.line("%s: %s on %s: %s, %s params, %.2f s per run", t.Name, v.Label, ds.Name,
			report.MeanStd(sum.MeanAcc, sum.StdAcc), report.Params(sum.Params), sum.SecondsPerRun)
	}
	return sum, err
}

func (b *bencher) protocolNote() string {
	p := train.NodeProtocol{Split: b.f.split, Seeds: b.f.seeds}
	ep := "each model's default epochs"
	if b.f.epochs > 0 {
		ep = fmt.Sprintf("%d epoch(s)", b.f.epochs)
	}
	seeds := fmt.Sprintf("seed %d", b.f.firstSeed)
	if b.f.seeds > 1 {
		seeds = fmt.Sprintf("seeds %d-%d", b.f.firstSeed, b.f.firstSeed+b.f.seeds-1)
	}
	return fmt.Sprintf("ACC: test accuracy at the best-validation epoch, mean ± std (population) over the runs of protocol %q, %s, %s. "+
		"Param: trainable parameters. Runtime: training wall time per run in seconds (evaluation every epoch, GOMAXPROCS %d).",
		p.Name(), seeds, ep, runtime.GOMAXPROCS(0))
}

// renderBench lays out a table: the key columns, then per dataset Param,
// Runtime, ACC and (where the paper has numbers) the paper's ACC.
func renderBench(t benchTable, dss []benchDataset, res [][]cellResult, protoNote string, notes []string) *report.Table {
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
		paperCol[i] = slices.ContainsFunc(t.Variants, func(v benchVariant) bool { return v.Paper[d.key] != "" })
		if paperCol[i] {
			tab.Columns = append(tab.Columns, prefix+"paper ACC")
		}
	}
	for vi, v := range t.Variants {
		row := slices.Clone(v.keys())
		for di, d := range dss {
			row = append(row, resultCells(res[vi][di])...)
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
				c = paperCell{report.Missing, report.Missing, report.Missing}
			}
			row = append(row, c.Params, c.Runtime, c.Acc)
			if paperCol[di] {
				row = append(row, report.Missing)
			}
		}
		tab.AddRow(row...)
	}
	tab.Notes = append(append([]string{protoNote}, t.Notes...), notes...)
	return tab
}

func resultCells(r cellResult) []string {
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

// emit prints a finished table (Markdown on stdout unless --json) and
// writes it under --out.
func (b *bencher) emit(tab *report.Table) error {
	b.done = append(b.done, tab)
	if !b.f.asJSON {
		if _, err := fmt.Fprintln(b.stdout, tab.Markdown()); err != nil {
			return err
		}
	}
	if b.f.out == "" {
		return nil
	}
	if err := os.MkdirAll(b.f.out, 0o755); err != nil {
		return err
	}
	base := filepath.Join(b.f.out, tab.Name)
	if err := os.WriteFile(base+".md", []byte(tab.Markdown()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(base+".csv", []byte(tab.CSV()), 0o644); err != nil {
		return err
	}
	b.prog.line("wrote %s.md and %s.csv", base, base)
	return nil
}

// finish prints the JSON summary line and fails if any run failed.
func (b *bencher) finish() error {
	if b.f.asJSON {
		err := b.enc.Encode(benchSummary{Suite: b.f.suite, ProtocolRuns: b.runs, Failed: len(b.failed),
			Seconds: time.Since(b.start).Seconds(), Tables: b.done})
		if err != nil {
			return err
		}
	}
	if len(b.failed) > 0 {
		return fmt.Errorf("%d failure(s) (the tables say which):\n  %s", len(b.failed), strings.Join(b.failed, "\n  "))
	}
	return nil
}

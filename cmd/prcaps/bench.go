package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/experiment"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/sample"
)

// benchFlags are the flags of `prcaps bench`.
type benchFlags struct {
	opt                             experiment.Options
	suite, tables, datasets, models string
	out, cpuProfile, edges          string
	shard                           string
	selects                         string                  // --select: grid files
	grids                           []experiment.SelectGrid // read from them
	slurm                           int                     // --slurm N: write the array job of N shards
	slurmDir                        string                  // its scripts, outputs and logs
	submit                          bool                    // submit them with sbatch
	sbatch                          listFlag                // more sbatch options
	jobArgs                         []string                // the flags the jobs run again (givenArgs)
	fanout                          string
	asJSON, quiet, speed, list      bool
	scale                           bool
	scaleEdges                      []int
	set                             map[string]bool // the flags given
}

func runBench(args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchFlags(args, stderr)
	if err != nil {
		return err
	}
	if f.list {
		return experiment.List(stdout)
	}
	// --log is read and appended (an input of itself); the others are
	// replaced, so none may be another or a dataset file. A merge's logs
	// are only read.
	inputs := datasetInputs("", f.opt.Root)
	for _, g := range f.grids {
		inputs = append(inputs, pathArg{Flag: "--select", Path: g.File})
	}
	for _, l := range f.opt.Logs {
		inputs = append(inputs, pathArg{Flag: "--log", Path: l})
	}
	outputs := []pathArg{{Flag: "--log", Path: f.opt.Log}, {Flag: "--cpuprofile", Path: f.cpuProfile}, {Flag: "--out", Path: f.out, Dir: true}}
	if f.slurm > 0 {
		outputs = append(outputs, pathArg{Flag: "--slurm-dir", Path: f.slurmDir, Dir: true})
	}
	if err := checkPaths(inputs, outputs); err != nil {
		return err
	}
	if f.cpuProfile != "" {
		stop, err := startCPUProfile(f.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if f.out != "" { // fail now, not after the first table has trained
		if err := report.PrepareDir(f.out); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	ctx, stop := stopContext() // Ctrl-C: finish with the tables done
	defer stop()
	f.opt.Stop = ctx.Done()
	b, err := experiment.NewBench(f.opt, report.NewProgress(stderr, f.quiet))
	if err != nil { // the options were validated with the flags: the fold log cannot be read
		return fmt.Errorf("--log: %w", err)
	}
	enc := json.NewEncoder(stdout)
	if f.asJSON {
		b.Record = func(v any) error { return enc.Encode(v) }
	}
	b.Emit = func(tab *report.Table) error { return emitTable(tab, b.Complete(), f, stdout, stderr) }
	switch f.suite {
	case "speed":
		err = b.RunSpeed(experiment.FilterModels(experiment.SpeedVariants(), splitList(f.models)))
	case "scale":
		err = b.RunScale(f.scaleEdges)
	case "selection":
		sel := experiment.SelectedTable(splitList(f.datasets), f.grids)
		switch {
		case f.opt.Shard.Sharded():
			p, err := b.RunSelectionShard(sel)
			return printShardPlan(p, err, f.asJSON, stdout)
		case f.slurm > 0:
			return runSlurm(f, func(b *experiment.Bench, n int) (int64, error) { return b.SelectionMemory(sel, n) }, stdout, stderr)
		}
		err = b.RunSelection(sel)
	default:
		var tables []experiment.Table
		tables, err = experiment.Select(f.suite, splitList(f.tables), splitList(f.datasets), splitList(f.models))
		if err == nil {
			if err := checkTablesRead(tables, f.set); err != nil {
				return err
			}
			if f.opt.Shard.Sharded() {
				return printShard(b, tables, f.asJSON, stdout)
			}
			if f.slurm > 0 {
				return runSlurm(f, func(b *experiment.Bench, n int) (int64, error) { return b.ShardMemory(tables, n) }, stdout, stderr)
			}
			err = b.RunTables(tables)
		}
	}
	if errors.Is(err, experiment.ErrSelection) {
		return usageError{err.Error()}
	}
	res := b.Result() // printed after an interrupt too: the tables done so far
	if f.asJSON {
		if jerr := enc.Encode(struct {
			Suite string `json:"suite"`
			experiment.Result
		}{f.suite, res}); jerr != nil {
			return jerr
		}
	}
	if err != nil {
		return err
	}
	if len(res.Missing) > 0 {
		fmt.Fprintf(stderr, "%d cell(s) left empty, their units not all in the log(s):\n  %s\n", len(res.Missing), strings.Join(res.Missing, "\n  "))
	}
	return res.Err()
}

// printShard runs the shard of the tables and prints what it did: a line,
// or with --json one object (experiment.ShardPlan).
func printShard(b *experiment.Bench, tables []experiment.Table, asJSON bool, stdout io.Writer) error {
	p, err := b.RunShard(tables)
	return printShardPlan(p, err, asJSON, stdout)
}

// printShardPlan prints what a shard did (see printShard) and its error.
func printShardPlan(p experiment.ShardPlan, err error, asJSON bool, stdout io.Writer) error {
	if asJSON {
		if jerr := json.NewEncoder(stdout).Encode(p); jerr != nil {
			return jerr
		}
	} else if _, werr := fmt.Fprintln(stdout, p.Text()); werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	return p.Err()
}

// emitTable prints a finished table (Markdown on stdout unless --json) and
// writes it under --out when it is complete (experiment.Bench.Complete):
// a table cut short by an interrupt, or one whose every run failed, is
// printed but leaves the files of an earlier run of that table as they
// were, and stderr says so.
func emitTable(tab *report.Table, complete bool, f benchFlags, stdout, stderr io.Writer) error {
	if !f.asJSON {
		if _, err := fmt.Fprintln(stdout, tab.Markdown()); err != nil {
			return err
		}
	}
	if f.out == "" {
		return nil
	}
	if !complete {
		fmt.Fprintf(stderr, "not writing %s.md and .csv: table %s was interrupted or none of its runs finished; the files there, if any, are kept\n",
			filepath.Join(f.out, tab.Name), tab.Name)
		return nil
	}
	base, err := tab.WriteFiles(f.out)
	if err != nil {
		return err
	}
	if !f.quiet {
		fmt.Fprintf(stderr, "wrote %s.md and %s.csv\n", base, base)
	}
	return nil
}

func parseBenchFlags(args []string, stderr io.Writer) (benchFlags, error) {
	fs := newFlagSet("bench", "Regenerates the paper's tables side by side with our baselines, under the node protocol\n"+
		"(10 random 60/20/20 splits by default; test accuracy at the best-validation epoch) or the graph\n"+
		"protocol (stratified 10-fold CV), and prints them as Markdown.\n\n"+
		"Suites: node (Table 3: PR-CapsNet and GCN on cora citeseer pubmed cs), ablation (tables t4 t5\n"+
		"curvature iters dims k gates layers), graph (Table 2), speed (median wall time of whole 200-epoch\n"+
		"Cora runs), scale (node PR-CapsNet on generated stochastic block model graphs of 10^5 to 10^7\n"+
		"edges: time and peak memory per link). Datasets whose files are missing are skipped with a note.", stderr)
	var f benchFlags
	o := &f.opt
	fs.StringVar(&f.suite, "suite", "node", "node (also table3: Table 3 with the baselines), ablation, graph (also table2: Table 2 under the graph protocol), speed or scale")
	intVar(fs, &o.Folds, "folds", 10, 2, 1<<20, "graph tables: stratified cross-validation folds, 2 to 1048576")
	fs.BoolVar(&f.speed, "speed", false, "same as --suite speed")
	fs.BoolVar(&f.scale, "scale", false, "same as --suite scale")
	fs.StringVar(&f.edges, "edges", "", "scale suite: comma-separated undirected edge counts of the generated graphs, such as 1e5,1e6 (default 1e5,1e6,1e7)")
	fs.StringVar(&f.fanout, "fanout", "", "scale suite: time neighbour-sampled mini-batch steps with these per-hop fan-outs (e.g. 15,10; -1: every neighbour) instead of full-batch epochs: time per seed node and the memory beside the graph's; needs --batch-nodes")
	intVar(fs, &o.Sampling.BatchNodes, "batch-nodes", 0, 1, 1_000_000_000, "scale suite with --fanout: seed nodes per mini-batch, 1 to 1e9")
	fs.StringVar(&f.tables, "tables", "", "comma-separated tables to run (t2 t3 t4 t5 curvature iters dims k gates layers; see --list); without --suite, from any suite")
	fs.StringVar(&f.datasets, "dataset", "", "comma-separated datasets replacing every selected table's datasets (speed: the first one)")
	fs.StringVar(&f.models, "models", "", "comma-separated models to keep (prcapsnet, gcn); empty: all")
	fs.StringVar(&o.Root, "data", data.DefaultRoot(), "data directory; default $PRCAPS_DATA, then the user cache; Cora and MUTAG are embedded")
	fs.StringVar(&o.Split, "split", "random", "node split: random (60/20/20 per seed) or public (Planetoid's 20 per class/500/1000)")
	fs.IntVar(&o.Seeds, "seeds", 10, "runs per table cell (seeds first-seed, first-seed+1, ...)")
	fs.IntVar(&o.FirstSeed, "first-seed", 0, "seed of the first run")
	intVar(fs, &o.Epochs, "epochs", 0, 0, 1_000_000, "training epochs, 1 to 1e6 (0: each model's recipe, 200 node, 100 graph); small values make quick smoke runs")
	fs.IntVar(&o.Parallel, "parallel", 0, "runs (seeds or folds) trained concurrently, 0 to 1024 (0, the default: one per core, as memory allows; runs at once keep to a core each, a run alone uses every core, and a graph fold shares only its micro-batches, not its kernels); results do not depend on it")
	fs.StringVar(&o.MicroBatchSeeds, "micro-batch-seeds", "", "graph tables: on or off overrides every model's recipe (on for PR-CapsNet, off for the baselines; off reproduces PR-CapsNet's graph results from before a7525e3); empty: the recipes")
	intVar(fs, &o.ItersPerEpoch, "iters-per-epoch", 0, 0, 1<<20, "graph tables: an epoch is this many mini-batches, each drawn at random afresh (GIN-0's reference code: 50, its iters_per_epoch); 0, the default: a full pass over the shuffled training graphs, every graph once (the published tables' schedule)")
	fs.IntVar(&o.Repeat, "repeat", 5, "speed suite: timed runs per model (the median is reported)")
	fs.StringVar(&o.Log, "log", "", "`file` of finished folds and seeds (JSON lines, one record per fold or run with its test accuracy, the paired tests' input); rerun the same command with it to resume an interrupted bench: its folds are not trained again, new ones are appended")
	fs.BoolVar(&o.LogOnly, "log-only", false, "make the tables from --log alone, training nothing (cells whose folds are not all there stay empty, with the missing folds named): a long bench's progress, or the merge of a sharded bench, whose --log is then several logs: a comma-separated list of files, directories (their *.jsonl) or globs such as 'logs/shard-*.jsonl'; a fold found in two of them is an error")
	fs.StringVar(&f.selects, "select", "", "with --suite graph: run the fair model selection protocol instead of the fixed configurations, over the comma-separated grid `files` (one per model, as docs/tune/*-graph.json): every outer fold chooses a grid point on its inner validation split alone (best-epoch validation accuracy; ties: the first point), retrains it 3 times from other seeds and tests it; the table t2-selected gives mean ± std over the folds and each fold's choice; works with --log, --log-only, --shard and --slurm (docs/cluster.md)")
	fs.StringVar(&f.shard, "shard", "", "train only the `I/N`-th part: the I-th of N (1 ≤ I ≤ N, as $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT of an --array=1-N job) of the node and graph tables' folds and seeds, balanced by estimated cost, appending them to --log (required, one per shard); rerun to resume; merge the shards' logs with --log-only (docs/cluster.md)")
	intVar(fs, &f.slurm, "slurm", 0, 1, experiment.MaxShards, "write a Slurm array job of this many tasks (N), task I running this bench with --shard I/N into DIR/logs/shard-I.jsonl, and a merge job (--dependency=afterok on the array) making the tables with --log-only (and --out, if given) into DIR/merge.out; each task asks for --parallel CPUs (1 without it) and the memory the bench estimates; see docs/cluster.md")
	fs.StringVar(&f.slurmDir, "slurm-dir", "prcaps-slurm", "with --slurm: `DIR` of the job scripts (shards.sbatch, merge.sbatch), the jobs' output and the shards' logs")
	fs.BoolVar(&f.submit, "submit", false, "with --slurm: also submit the jobs with sbatch (--parsable) and print their ids")
	fs.Var(&f.sbatch, "sbatch", "with --slurm: one more sbatch `option` for both jobs, such as --partition=short or --time=4:00:00 (repeat the flag for more; one given here replaces --cpus-per-task and --mem)")
	fs.StringVar(&f.out, "out", "", "also write each table as DIR/<table>.md and DIR/<table>.csv")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object per protocol run and a summary object (with the tables) on the last line")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output on stderr (a bar on a terminal, plain lines otherwise); results still go to stdout")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole command to `file` (read it with go tool pprof)")
	fs.BoolVar(&f.list, "list", false, "list the suites' tables, datasets and variants, and run nothing")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	set := setFlags(fs)
	f.set = set
	suiteSet := set["suite"] || set["speed"] || set["scale"]
	if err := checkRoot(o.Root, set["data"]); err != nil {
		return f, err
	}
	switch {
	case f.speed && f.scale:
		return f, usagef("--speed and --scale are two suites: give one")
	case f.speed:
		f.suite = "speed"
	case f.scale:
		f.suite = "scale"
	case f.tables != "" && !suiteSet:
		f.suite = "" // tables from any suite
	}
	if ds := splitList(f.datasets); len(ds) > 0 {
		o.Dataset = ds[0]
	}
	for _, name := range splitList(f.datasets) { // a name that is nowhere would leave an empty table
		if err := data.Find(name, o.Root); err != nil {
			return f, usagef("--dataset: %v", err)
		}
	}
	if f.suite != "speed" {
		if err := notApplicable(set, "outside the speed suite (its timed runs per model)", "repeat"); err != nil {
			return f, err
		}
	}
	if f.suite == "speed" || f.suite == "scale" {
		if err := notApplicable(set, "to the "+f.suite+" suite (graph tables only)", "folds", "micro-batch-seeds", "iters-per-epoch", "log", "log-only", "tables"); err != nil {
			return f, err
		}
		if err := notApplicable(set, "to the "+f.suite+" suite (the node and graph tables only)", "shard"); err != nil {
			return f, err
		}
	}
	if set["slurm"] {
		if err := notApplicable(set, "with --slurm (the jobs set it: each task its --shard and its log, the merge --log-only)", "shard", "log", "log-only", "cpuprofile"); err != nil {
			return f, err
		}
		if f.suite == "speed" || f.suite == "scale" {
			return f, usagef("--slurm does not apply to the %s suite (the node and graph tables only)", f.suite)
		}
		f.jobArgs = givenArgs(fs, slurmFlags)
		if !set["data"] { // the jobs read the data this command found, whatever their environment says
			root, err := filepath.Abs(o.Root)
			if o.Root == "" || err != nil {
				root = o.Root
			}
			f.jobArgs = append(f.jobArgs, "--data="+root)
		}
	} else {
		for _, name := range []string{"slurm-dir", "submit", "sbatch"} {
			if set[name] {
				return f, usagef("--%s goes with --slurm N", name)
			}
		}
	}
	if set["select"] {
		if f.suite != "graph" && f.suite != "table2" {
			return f, usagef("--select goes with --suite graph (the graph protocol's outer folds)")
		}
		if err := notApplicable(set, "with --select (the grids name the models; the table is t2-selected)", "tables", "models"); err != nil {
			return f, err
		}
		if err := notApplicable(set, "to graph-classification tables, which run stratified k-fold CV (the node protocol's)", "split", "seeds"); err != nil {
			return f, err
		}
		grids, err := experiment.ReadSelectGrids(splitPaths(f.selects))
		if err != nil {
			return f, usagef("--select: %v", err)
		}
		f.grids = grids
		f.suite = "selection"
	}
	if set["shard"] {
		sh, err := experiment.ParseShard(f.shard)
		if err != nil {
			return f, usagef("--%v", err)
		}
		o.Shard = sh
		if err := notApplicable(set, "with --shard (a shard writes its log; the merge, --log-only over every shard's log, writes the tables)", "out", "log-only"); err != nil {
			return f, err
		}
	}
	if o.LogOnly && o.Log != "" {
		logs, many, err := experiment.ExpandLogs(o.Log)
		if err != nil {
			return f, usagef("--log %s: %v", o.Log, err)
		}
		if many {
			o.Log, o.Logs = "", logs
		}
	}
	if f.suite == "scale" {
		if err := notApplicable(set, "to the scale suite (PR-CapsNet on generated graphs of --edges sizes, one run each from --first-seed)", "dataset", "split", "seeds", "models"); err != nil {
			return f, err
		}
	}
	switch { // zero means a default in experiment.Options; on the command line it is a mistake
	case o.Seeds < 1:
		return f, usagef("--seeds must be at least 1")
	case o.Repeat < 1:
		return f, usagef("--repeat must be at least 1")
	case o.Parallel < 0 || o.Parallel > 1024:
		return f, usagef("--parallel %d: must be in [0, 1024] (0: the default)", o.Parallel)
	case o.FirstSeed < 0:
		return f, usagef("--first-seed %d: must be at least 0", o.FirstSeed)
	}
	if set["fanout"] || set["batch-nodes"] {
		if f.suite != "scale" && !f.scale {
			return f, usagef("--fanout and --batch-nodes go with --scale")
		}
		if !set["fanout"] || !set["batch-nodes"] {
			return f, usagef("the sampled scale suite needs both --fanout and --batch-nodes")
		}
		fan, err := sample.ParseFanouts(f.fanout)
		if err != nil {
			return f, usagef("--fanout: %v", err)
		}
		o.Sampling.Fanout = fan
	}
	if err := o.Validate(); err != nil {
		return f, usagef("--%v", err)
	}
	edges, err := experiment.ParseEdges(f.edges)
	if err != nil {
		return f, usagef("--edges: %v", err)
	}
	f.scaleEdges = edges
	if f.edges != "" && f.suite != "scale" {
		return f, usagef("--edges goes with --scale")
	}
	return f, nil
}

// splitPaths splits a comma-separated list of files, keeping their case.
func splitPaths(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// splitList splits a comma-separated flag value into lower-case items.
func splitList(s string) []string {
	return splitPaths(strings.ToLower(s))
}

// checkTablesRead refuses the flags given (set) that no selected table
// reads: the graph protocol's with node tables only, the node protocol's
// with graph tables only.
func checkTablesRead(tables []experiment.Table, set map[string]bool) error {
	graph, node := false, false
	for _, t := range tables {
		graph, node = graph || t.Graph, node || !t.Graph
	}
	if !graph {
		if err := notApplicable(set, "to node-classification tables (the graph protocol's)", "folds", "micro-batch-seeds", "iters-per-epoch"); err != nil {
			return err
		}
	}
	if !node {
		return notApplicable(set, "to graph-classification tables, which run stratified k-fold CV (the node protocol's)", "split", "seeds")
	}
	return nil
}

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
	"github.com/prcaps/prcaps/option"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/train"
)

// tuneFlags are the flags of `prcaps tune`.
type tuneFlags struct {
	grid, dataset, root, log string
	shard                    string
	node                     train.NodeProtocol
	asJSON, quiet            bool
}

func runTune(args []string, stdout, stderr io.Writer) error {
	f := tuneFlags{node: train.NodeProtocol{Seeds: 10}}
	fs := newFlagSet("tune", "Grid search of a node model's options on validation accuracy only: every configuration of the grid\n"+
		"file trains under the protocol, the best mean validation accuracy wins (ties: the first in grid order), and\n"+
		"only then is the winner scored on the test nodes, once. Finished configurations go to --log as they end,\n"+
		"so an interrupted search resumes where it stopped. Grid file (JSON):\n"+
		`  {"model": "tgnn", "options": {"layers": [2, 3], "hidden": [64, 256], "norm": ["none", "layer"], "lr": [0.01, 0.001]}}`+"\n"+
		"Options are the model's and the training options (lr, wd, epochs, optimizer, ...), named as train's flags.", stderr)
	fs.StringVar(&f.grid, "grid", "", "grid file (JSON, required)")
	fs.StringVar(&f.dataset, "dataset", "cora", "node dataset name (case-insensitive) or path to a .npz file")
	fs.StringVar(&f.root, "data", data.DefaultRoot(), "data directory; default $PRCAPS_DATA, then the user cache; Cora is embedded")
	fs.StringVar(&f.log, "log", "", "trial log (JSON lines) to resume from and append to (default: <grid>-<dataset>.jsonl beside the grid file, <grid>-<dataset>-shard-I-of-N.jsonl with --shard); or, to merge a sharded search, the shards' logs: a comma-separated list of files, directories (their *.jsonl) or globs, read only, which must hold every trial")
	fs.StringVar(&f.shard, "shard", "", "train only the `I/N`-th part of the grid, the I-th of N (1 ≤ I ≤ N, as $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT), balanced by estimated cost, into this shard's --log; choose nothing (the merge, tune --log over every shard's log, chooses and scores)")
	fs.BoolVar(&f.asJSON, "json", false, "print every trial and the chosen configuration's summary as JSON lines")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
	proto := option.Bind(fs, &f.node)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := proto.Apply(&f.node); err != nil {
		return usageError{err.Error()}
	}
	if f.grid == "" {
		return usagef("--grid FILE is required (see prcaps tune -h)")
	}
	grid, err := experiment.ReadGrid(f.grid)
	if err != nil {
		return usageError{"--grid " + err.Error()}
	}
	if err := checkRoot(f.root, setFlags(fs)["data"]); err != nil {
		return err
	}
	var shard experiment.Shard
	if setFlags(fs)["shard"] {
		if shard, err = experiment.ParseShard(f.shard); err != nil {
			return usagef("--%v", err)
		}
	}
	ds, err := data.Load(f.dataset, data.Options{Root: f.root})
	if err != nil {
		return err
	}
	if ds.Task != data.NodeTask {
		return usagef("--dataset %s: tune searches node-classification models; %s is a graph dataset", f.dataset, ds.Name)
	}
	if f.log == "" {
		base := strings.TrimSuffix(f.grid, filepath.Ext(f.grid))
		f.log = fmt.Sprintf("%s-%s.jsonl", base, strings.ToLower(ds.Name))
		if shard.Sharded() {
			f.log = fmt.Sprintf("%s-%s-shard-%d-of-%d.jsonl", base, strings.ToLower(ds.Name), shard.I, shard.N)
		}
	}
	var merge []string
	if !shard.Sharded() {
		logs, many, err := experiment.ExpandLogs(f.log)
		if err != nil {
			return usagef("--log %s: %v", f.log, err)
		}
		if many {
			merge, f.log = logs, ""
		}
	}
	// The log is read and appended: an input of itself, but never the grid,
	// a dataset file or something other than a regular file. A merge's
	// logs are only read.
	inputs := append([]pathArg{{Flag: "--grid", Path: f.grid}}, datasetInputs(f.dataset, f.root)...)
	for _, l := range merge {
		inputs = append(inputs, pathArg{Flag: "--log", Path: l})
	}
	if err := checkPaths(inputs, []pathArg{{Flag: "--log", Path: f.log}}); err != nil {
		return err
	}
	ctx, stop := stopContext()
	defer stop()
	f.node.Stop = ctx.Done()
	search := experiment.Tune{Grid: grid, Dataset: ds, Node: f.node, Log: f.log, Logs: merge, Shard: shard,
		Progress: report.NewProgress(stderr, f.quiet)}
	if shard.Sharded() {
		return printTuneShard(search, f.asJSON, stdout)
	}
	res, err := search.Do()
	if errors.Is(err, experiment.ErrGrid) {
		return usageError{"--grid " + f.grid + ": " + err.Error()}
	}
	if err != nil {
		return err
	}
	best := res.Trials[res.Best]
	if f.asJSON {
		enc := json.NewEncoder(stdout)
		for i, tr := range res.Trials {
			if err := enc.Encode(struct {
				record.Trial
				experiment.TrialStats
			}{tr, res.Stats[i]}); err != nil {
				return err
			}
		}
		return enc.Encode(struct {
			Chosen map[string]string `json:"chosen"`
			record.Summary
		}{best.Options, res.Final})
	}
	from := f.log
	if len(merge) > 0 {
		from = fmt.Sprintf("the %d logs %s", len(merge), strings.Join(merge, ", "))
	}
	fmt.Fprintf(stdout, "%s on %s, %s: %d configurations (%d from %s)\n", grid.Model, ds.Name, f.node.Name(), len(res.Trials), res.Reused, from)
	fmt.Fprintf(stdout, "chosen on validation: %s (val %.4f ± %.4f)\n", experiment.FlagsText(best.Options), best.ValMean, best.ValStd)
	fmt.Fprintln(stdout, res.TiedText())
	fmt.Fprintf(stdout, "test: %.4f ± %.4f over %d runs, %d parameters, %.2f s per run\n",
		res.Final.MeanAcc, res.Final.StdAcc, res.Final.Runs, res.Final.Params, res.Final.SecondsPerRun)
	return nil
}

// printTuneShard runs a shard of the search and prints what it did: a
// line, or with --json one object (experiment.ShardPlan).
func printTuneShard(search experiment.Tune, asJSON bool, stdout io.Writer) error {
	p, err := search.DoShard()
	if errors.Is(err, experiment.ErrGrid) {
		return usageError{"--grid: " + err.Error()}
	}
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
	if len(p.Failures) > 0 {
		return fmt.Errorf("shard %s: %d trial(s) failed; rerun the same command to retry them:\n  %s", p.Shard, len(p.Failures), strings.Join(p.Failures, "\n  "))
	}
	return nil
}

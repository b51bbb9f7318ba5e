package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// graphFlags are the graph-classification flags of `prcaps train` (DESIGN
// §6 graph protocol).
type graphFlags struct {
	task                                    string
	folds, foldSeed, batch, parallel, first int
	microNodes                              int
	valLogits, testCurve                    string
	modelSet                                bool
}

func (g *graphFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.task, "task", "", "node or graph; empty: the dataset's task (graph for mutag nci1 nci109 dd proteins)")
	fs.IntVar(&g.folds, "folds", 10, "graph: stratified cross-validation folds (the paper's protocol: 10)")
	fs.IntVar(&g.foldSeed, "fold-seed", 0, "graph: seed of the fold assignment (fixed across models)")
	fs.IntVar(&g.first, "only-folds", 0, "graph: run only the first N folds (0: all)")
	fs.IntVar(&g.batch, "batch", train.DefaultBatchSize, "graph: training mini-batch size (graphs)")
	fs.IntVar(&g.microNodes, "micro-batch-nodes", train.DefaultMicroBatchNodes,
		"graph: a mini-batch goes through the model in parts of at most this many nodes (whole graphs), whose gradients add up before the step; "+
			"a speed and memory setting that changes results only through rounding and dropout draws")
	fs.IntVar(&g.parallel, "parallel", 1, "runs (seeds or folds) trained concurrently, e.g. 2 on 2 cores; results do not depend on it")
	fs.StringVar(&g.valLogits, "val-logits", "",
		"graph: write every epoch's validation logits to `dir`/<dataset>-foldNN.tsv (epoch, graph, label, logits), "+
			"for comparing epoch-selection rules with go run ./tools/selection dir; no test label is written")
	fs.StringVar(&g.testCurve, "test-curve", "",
		"graph: also score the test fold after every epoch, write each fold's validation and test accuracy per epoch to `file` (TSV), "+
			"and print the accuracy at the one epoch of best mean test accuracy over the folds (Xu et al. 2019's reporting, which selects on "+
			"test labels: for comparing with papers that use it, never a result of this protocol, whose selection and training it leaves as they are)")
}

// graphTask reports whether the parsed flags ask for graph classification:
// --task graph, or no --task and a registry dataset of the graph task. With
// --task graph and no --dataset the dataset is MUTAG (embedded).
func graphTask(fs *flag.FlagSet, f *trainFlags) bool {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	f.graph.modelSet = set["model"]
	switch strings.ToLower(f.graph.task) {
	case "graph":
		if !set["dataset"] {
			f.dataset = "mutag"
		}
		return true
	case "node":
		return false
	}
	if f.edges != "" {
		return false
	}
	in, ok := data.Lookup(f.dataset)
	return ok && in.Task == data.GraphTask
}

// runTrainGraph trains a graph-classification model under the graph
// protocol (stratified k-fold CV with an inner 10% validation split).
func runTrainGraph(f trainFlags, stdout, stderr io.Writer) error {
	switch t := strings.ToLower(f.graph.task); t {
	case "", "graph", "node":
	default:
		return usagef("--task must be node or graph, not %q", t)
	}
	if f.edges != "" {
		return usagef("--edges gives a node-classification dataset; graph classification reads TU datasets")
	}
	if f.graph.testCurve != "" && f.patience > 0 {
		return usagef("--test-curve compares whole curves: it needs every fold to run all epochs, so no --patience")
	}
	if f.graph.folds < 2 || f.graph.batch < 1 || f.graph.microNodes < 1 {
		return usagef("--folds must be at least 2, --batch and --micro-batch-nodes at least 1")
	}
	name := f.model
	if !f.graph.modelSet {
		name = "prcapsnet"
	}
	caps, tc, err := model.DefaultGraphConfig(name)
	if err != nil {
		return usageError{err.Error()}
	}
	override(&tc, f)
	caps = f.capsConfig(caps)
	prog := newProgress(stderr, f.quiet)
	ds0, err := data.Load(f.dataset, data.Options{Root: f.root, NodeAttr: f.nodeAttr})
	if err != nil {
		return err
	}
	if ds0.Task != data.GraphTask {
		return usagef("%s is a node-classification dataset: run it without --task graph", ds0.Name)
	}
	ds := ds0.Graph
	build := func(seed uint64) (train.GraphModel, error) { return model.NewGraphModel(ds, name, caps, seed) }
	if _, err := build(uint64(f.firstSeed)); err != nil {
		return err
	}
	proto := train.GraphProtocol{Folds: f.graph.folds, FoldSeed: uint64(f.graph.foldSeed), FirstSeed: uint64(f.firstSeed),
		BatchSize: f.graph.batch, MicroBatchNodes: f.graph.microNodes, Parallel: f.graph.parallel, OnlyFolds: f.graph.first}
	nodes := 0
	for _, g := range ds.Graphs {
		nodes += g.Graph.N
	}
	runs := f.graph.folds
	if f.graph.first > 0 && f.graph.first < runs {
		runs = f.graph.first
	}
	prog.line("%s on %s (%d graphs, %d nodes, %d features, %d classes; from %s), %s, %d epochs, batch %d",
		name, ds.Name, len(ds.Graphs), nodes, ds.NumFeatures, ds.NumClasses, ds0.From, proto.Name(), tc.Epochs, f.graph.batch)
	var logits *valLogits
	if f.graph.valLogits != "" {
		if logits, err = newValLogits(f.graph.valLogits, ds.Name); err != nil {
			return err
		}
		proto.OnValidation = logits.record
	}
	var curves *testCurves
	if f.graph.testCurve != "" {
		if curves, err = newTestCurves(f.graph.testCurve); err != nil {
			return err
		}
		proto.OnTestCurve = curves.record
	}
	enc := json.NewEncoder(stdout)
	sum, err := train.RunGraphProtocol(ds, build, proto, tc,
		func(fold int, e train.Epoch) {
			prog.update(fmt.Sprintf("fold %d/%d", fold+1, runs), e.Epoch, tc.Epochs,
				fmt.Sprintf("loss %.4f train %.3f val %.3f", e.Loss, e.TrainAcc, e.ValAcc))
		},
		func(fold int, r train.Result) {
			if f.asJSON {
				enc.Encode(runRecord{ds.Name, "graph", name, proto.Name(), fold, r})
			}
			prog.line("fold %d/%d (seed %d): test %.4f at best-val epoch %d (val %.4f), %.2fs",
				fold+1, runs, r.Seed, r.TestAcc, r.BestEpoch, r.ValAcc, r.Seconds)
		})
	if logits != nil {
		if cerr := logits.close(); err == nil {
			err = cerr
		}
	}
	var sel train.CurveSelection
	if curves != nil {
		s, cerr := curves.close()
		if err == nil {
			sel, err = s, cerr
		}
	}
	if err != nil {
		return err
	}
	sum.Model = name
	if f.asJSON {
		// The test-curve line never goes into the JSON records: it is not
		// a result of the protocol.
		if curves != nil {
			fmt.Fprintln(stderr, curveLine(sel, f.graph.testCurve))
		}
		return enc.Encode(sum)
	}
	fmt.Fprintf(stdout, "%s on %s, %s: test accuracy %.2f ± %.2f %% over %d fold(s); %d parameters; %.2f s per fold\n",
		sum.Model, sum.Dataset, sum.Protocol, 100*sum.MeanAcc, 100*sum.StdAcc, sum.Runs, sum.Params, sum.SecondsPerRun)
	if curves != nil {
		fmt.Fprintln(stdout, curveLine(sel, f.graph.testCurve))
	}
	return nil
}

// curveLine describes the --test-curve selection for the reader.
func curveLine(sel train.CurveSelection, path string) string {
	return fmt.Sprintf("test-curve reporting (selects on test labels; for comparison with papers only): %.2f ± %.2f %% at epoch %d, "+
		"the best mean test accuracy over %d fold(s); curves in %s", 100*sel.MeanAcc, 100*sel.StdAcc, sel.Epoch, sel.FoldCount, path)
}

package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"

	"github.com/prcaps/prcaps/internal/atomicfile"
	"github.com/prcaps/prcaps/internal/kernels"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/experiment"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/option"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/train"
)

// trainFlags are the flags of `prcaps train`. The models' options (--hidden,
// --k, ...), the training configuration's (--lr, ...) and the protocols'
// (--seeds, --folds, ...) are bound from their structs' tags (package
// option) and change the model's defaults, its recipe (train.Recipe) and
// the protocol only when given.
type trainFlags struct {
	model, dataset, root, task          string
	edges, features, labels, cpuProfile string
	save                                string
	valLogits, testCurve, curves, embed string
	asJSON, quiet, nodeAttr             bool
	set                                 map[string]bool // the flags given
	opts, recipe, protocol              *option.Flags
	node                                train.NodeProtocol
	graph                               train.GraphProtocol
}

func runTrain(args []string, stdout, stderr io.Writer) error {
	// A first pass over the arguments, with every model's options known,
	// finds --model; the command line proper then binds that model's
	// options alone, with its defaults and its recipe's, so that -h shows
	// what this model takes.
	var scan trainFlags
	_ = newTrainFlagSet(&scan, model.Specs(), io.Discard).Parse(args)
	specs := specsNamed(scan.model)
	if len(specs) == 0 {
		return usagef("--model %q: no such model (available: %s)", scan.model, strings.Join(model.AllNames(), ", "))
	}
	var f trainFlags
	fs := newTrainFlagSet(&f, specs, stderr)
	if err := parseFlags(fs, args); err != nil {
		return otherModelsOption(err, specs[0].Name)
	}
	f.set = setFlags(fs)
	if err := f.checkPaths(); err != nil {
		return err
	}
	if f.cpuProfile != "" {
		stop, err := startCPUProfile(f.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	ds, err := f.loadData()
	if err != nil {
		return err
	}
	if err := f.check(ds); err != nil {
		return err
	}
	for _, w := range ds.Warnings() {
		fmt.Fprintln(stderr, "warning:", w)
	}
	cfg, err := model.DefaultConfig(ds.Task, f.model)
	if err != nil {
		return usageError{err.Error()}
	}
	if err := apply(f.opts, cfg, fmt.Sprintf("the %s model %s", ds.Task, strings.ToLower(f.model))); err != nil {
		return err
	}
	run := experiment.Run{Model: strings.ToLower(f.model), Config: cfg, Dataset: ds, Node: f.node, Graph: f.graph}
	if err := run.CheckSampling(); err != nil {
		return usagef("--fanout %v --batch-nodes %d: %v", f.node.Fanout, f.node.BatchNodes, err)
	}
	run.Train = run.TrainConfig()
	if err := apply(f.recipe, &run.Train, "the training configuration"); err != nil {
		return err
	}
	if f.save != "" {
		if st, err := os.Stat(filepath.Dir(f.save)); err != nil || !st.IsDir() {
			return usagef("--save %s: no such directory %s", f.save, filepath.Dir(f.save))
		}
		run.Save = f.save
	}
	if f.testCurve != "" && run.Train.Patience > 0 {
		return usagef("--test-curve compares whole curves: it needs every fold to run all epochs, so no --patience")
	}
	return f.run(run, stdout, stderr)
}

// checkPaths checks the output flags against the inputs, before the
// profile starts or any data is read (see checkPaths).
func (f *trainFlags) checkPaths() error {
	inputs := []pathArg{{Flag: "--edges", Path: f.edges}, {Flag: "--features", Path: f.features}, {Flag: "--labels", Path: f.labels}}
	if f.edges == "" {
		inputs = append(inputs, datasetInputs(f.dataset, f.root)...)
	}
	return checkPaths(inputs, []pathArg{{Flag: "--save", Path: f.save}, {Flag: "--curves", Path: f.curves},
		{Flag: "--embeddings", Path: f.embed}, {Flag: "--test-curve", Path: f.testCurve}, {Flag: "--cpuprofile", Path: f.cpuProfile},
		{Flag: "--val-logits", Path: f.valLogits, Dir: true}})
}

// check applies the protocol flags to the protocol of the dataset's task,
// within their ranges (tags of train.NodeProtocol and GraphProtocol), and
// rejects those of the other task.
func (f *trainFlags) check(ds *data.Dataset) error {
	owner := ds.Task.String() + " classification"
	var proto any = &f.node
	if ds.Task == data.GraphTask {
		proto = &f.graph
	} else if f.set["val-logits"] || f.set["test-curve"] {
		return usagef("--val-logits and --test-curve do not apply to %s", owner)
	}
	var na option.NotApplicable
	if err := f.protocol.Apply(proto); errors.As(err, &na) {
		return usagef("--%s does not apply to %s", na.Flag, owner)
	} else if err != nil {
		return usageError{err.Error()}
	}
	if err := train.CheckSplit(f.node.Split); err != nil {
		return usagef("--%v", err)
	}
	if f.set["fanout"] != f.set["batch-nodes"] {
		return usagef("--fanout and --batch-nodes go together: sampled training needs both")
	}
	if err := f.graph.Check(); err != nil {
		return usagef("--%v", err)
	}
	return nil
}

// loadData loads --dataset for --task, or the user's files given with --edges.
func (f *trainFlags) loadData() (*data.Dataset, error) {
	t := strings.ToLower(f.task)
	if _, err := data.ParseTask(t); err != nil && t != "" {
		return nil, usagef("--task must be node or graph, not %q", f.task)
	}
	f.task = t
	if f.edges != "" {
		if err := notApplicable(f.set, "with --edges (your own graph replaces the dataset)", "dataset", "data", "node-attr"); err != nil {
			return nil, err
		}
		if f.task == "graph" {
			return nil, usagef("--edges gives a node-classification dataset; graph classification reads TU datasets")
		}
		if f.labels == "" {
			return nil, usagef("--edges needs --labels")
		}
		return data.LoadPlainDataset(f.edges, f.features, f.labels)
	}
	if f.features != "" || f.labels != "" {
		return nil, usagef("--features and --labels go with --edges")
	}
	if f.task == "graph" && !f.set["dataset"] {
		f.dataset = "mutag"
	}
	if err := checkRoot(f.root, f.set["data"]); err != nil {
		return nil, err
	}
	ds, err := data.Load(f.dataset, data.Options{Root: f.root, NodeAttr: f.nodeAttr})
	if err != nil {
		return nil, err
	}
	if f.task != "" && f.task != ds.Task.String() {
		return nil, usagef("%s is a %s-classification dataset, not a %s one", ds.Name, ds.Task, f.task)
	}
	if ds.Task != data.GraphTask {
		if err := notApplicable(f.set, fmt.Sprintf("to %s: node attributes are a TU graph dataset's", ds.Name), "node-attr"); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// run trains and prints: progress on stderr, results on stdout.
func (f *trainFlags) run(run experiment.Run, stdout, stderr io.Writer) error {
	prog := report.NewProgress(stderr, f.quiet)
	ds, unit := run.Dataset, run.Unit()
	prog.Line("%s", run.Describe())
	prog.Line("%s", machineLine())
	if f.embed != "" && ds.Task != data.NodeTask {
		return usagef("--embeddings applies to node classification")
	}
	var err error
	if f.valLogits != "" {
		if run.ValLogits, err = experiment.NewValLogits(f.valLogits, ds.Name); err != nil {
			return fmt.Errorf("--val-logits: %w", err)
		}
	}
	if f.testCurve != "" {
		if run.TestCurves, err = experiment.NewTestCurves(f.testCurve); err != nil {
			return fmt.Errorf("--test-curve: %w", err)
		}
	}
	if f.curves != "" {
		if run.Curves, err = experiment.NewCurves(f.curves, ds.Name, run.ModelName()); err != nil {
			return fmt.Errorf("--curves: %w", err)
		}
	}
	if f.embed != "" {
		if run.Embeddings, err = experiment.NewEmbeddings(f.embed); err != nil {
			return fmt.Errorf("--embeddings: %w", err)
		}
	}
	enc := json.NewEncoder(stdout)
	flush := func() {}
	run.Progress = prog
	if f.asJSON {
		var onRun func(int, train.Result)
		onRun, flush = experiment.InRunOrder(func(i int, r train.Result) {
			enc.Encode(struct {
				record.RunRecord
				machine
			}{run.Record(i, r), thisMachine()})
		})
		run.Observer = train.RunFunc(onRun)
	}
	ctx, stop := stopContext() // Ctrl-C: the finished runs are summarised
	defer stop()
	run.Node.Stop, run.Graph.Stop = ctx.Done(), ctx.Done()
	sum, err := run.Do()
	flush() // the records behind a failed run, before the summary
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "interrupted: %d %s(s) had finished\n", sum.Runs, unit)
	}
	if err != nil && sum.Runs == 0 {
		return err
	}
	if run.Save != "" && err == nil {
		prog.Line("saved the run of best validation accuracy to %s", run.Save)
	}
	curve := ""
	if run.TestCurves != nil && err == nil {
		curve = run.TestCurves.SelectionText(f.testCurve)
	}
	if f.asJSON {
		if curve != "" { // not a result of the protocol: never in the JSON records
			fmt.Fprintln(stderr, curve)
		}
		if jerr := enc.Encode(struct {
			record.Summary
			machine
		}{sum, thisMachine()}); jerr != nil {
			return jerr
		}
		return err
	}
	fmt.Fprintln(stdout, run.SummaryText(sum))
	if curve != "" {
		fmt.Fprintln(stdout, curve)
	}
	return err
}

// apply sets the given option flags in cfg of owner and validates it.
func apply(f *option.Flags, cfg model.Config, owner string) error {
	var na option.NotApplicable
	if err := f.Apply(cfg); errors.As(err, &na) {
		return usagef("--%s does not apply to %s", na.Flag, owner)
	} else if err != nil {
		return usageError{err.Error()}
	}
	if err := cfg.Validate(); err != nil {
		return usagef("%s: %v", owner, err)
	}
	return nil
}

// startCPUProfile starts a pprof CPU profile into path and returns the
// function that stops it and puts the file in place (whole, atomically).
func startCPUProfile(path string) (stop func(), err error) {
	out, err := atomicfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Abort()
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		out.Commit()
	}, nil
}

// checkRoot refuses a data directory given on the command line (or by
// $PRCAPS_DATA) that does not exist (data.CheckRoot), instead of falling
// back to the embedded datasets, naming where it came from.
func checkRoot(root string, given bool) error {
	if data.CheckRoot(root) == nil {
		return nil
	}
	if given {
		return usagef("--data %s: no such directory", root)
	}
	return usagef("%s=%s: no such directory (unset it or pass --data DIR)", data.EnvVar, root)
}

// machine names what a timing ran on, in train's JSON records and summary:
// the CPU's model and the kernel set (internal/kernels, PRCAPS_KERNELS).
type machine struct {
	CPU     string `json:"cpu"`
	Kernels string `json:"kernels"`
}

func thisMachine() machine { return machine{kernels.CPU(), kernels.Name()} }

// machineLine is the progress line that names the CPU and the kernel set.
func machineLine() string {
	return fmt.Sprintf("cpu %s, kernels %s (%s caps them: avx512, avx2, neon or go)", kernels.CPU(), kernels.Name(), kernels.EnvVar)
}

// newTrainFlagSet is the flag set of `prcaps train` for the models specs
// (one model name, for one task or both): the command's flags, the
// protocols', the training configuration's with the defaults of the
// model's recipe, and the model's options with its defaults.
func newTrainFlagSet(f *trainFlags, specs []model.Spec, stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet("train", "Trains a model under a paper protocol and prints mean ± std test accuracy at the\n"+
		"best-validation epoch, the parameter count and the wall time.\n\n"+
		"With no flags: PR-CapsNet on the embedded Cora, one random 60/20/20 split.\n"+
		"Node datasets: cora citeseer pubmed cs (or any npz under --data, or your own files with --edges).\n"+
		"Graph datasets (stratified k-fold CV): mutag nci1 nci109 dd proteins, or any TU set under --data with --task graph.\n"+
		"Node models: "+strings.Join(model.Names(data.NodeTask), ", ")+"; graph models: "+strings.Join(model.Names(data.GraphTask), ", ")+".\n"+
		"The model options and training defaults below are "+modelsTitle(specs)+"'s; prcaps train --model NAME -h shows another's.", stderr)
	fs.StringVar(&f.model, "model", "prcapsnet", "model: "+strings.Join(model.AllNames(), ", "))
	fs.StringVar(&f.dataset, "dataset", "cora", "dataset name (case-insensitive) or path to a .npz file; with --task graph and no --dataset: mutag")
	fs.StringVar(&f.root, "data", data.DefaultRoot(), "data directory; default $PRCAPS_DATA, then the user cache; Cora and MUTAG are embedded")
	fs.StringVar(&f.task, "task", "", "node or graph; empty: the dataset's task (graph for mutag nci1 nci109 dd proteins)")
	fs.StringVar(&f.valLogits, "val-logits", "",
		"graph: write every epoch's validation logits to `dir`/<dataset>-foldNN.tsv (epoch, graph, label, logits), "+
			"for comparing epoch-selection rules with go run ./tools/selection dir; no test label is written")
	fs.StringVar(&f.curves, "curves", "", "write every run's per-epoch training curves (loss, train and validation accuracy, learning rate, "+
		"the learned curvatures of prcapsnet) to `file` as JSON lines, for prcaps plot")
	fs.StringVar(&f.embed, "embeddings", "", "node classification: write the node embeddings of the run of best validation accuracy "+
		"(at its selected epoch; the representation its classifier reads) with the node classes to `file` (JSON), for prcaps plot's t-SNE panels")
	fs.StringVar(&f.testCurve, "test-curve", "",
		"graph: also score the test fold after every epoch, write each fold's validation and test accuracy per epoch to `file` (TSV), "+
			"and print the accuracy at the one epoch of best mean test accuracy over the folds (Xu et al. 2019's reporting, which selects on "+
			"test labels: for comparing with papers that use it, never a result of this protocol, whose selection and training it leaves as they are)")
	fs.StringVar(&f.edges, "edges", "", "your own graph: edge list file (CSV/TSV \"src,dst\" per line; see README); replaces --dataset")
	fs.StringVar(&f.features, "features", "", "with --edges: node features file (\"id,f1,...,fd\" per line); empty: one constant feature")
	fs.StringVar(&f.labels, "labels", "", "with --edges: node labels file (\"id,label\" per line)")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object per run and a summary object on the last line")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output on stderr (a bar on a terminal, plain lines otherwise); results still go to stdout")
	fs.BoolVar(&f.nodeAttr, "node-attr", false, "append TU node attributes to the node features")
	fs.StringVar(&f.save, "save", "", "write the trained model to `file` (a safetensors checkpoint for prcaps predict and serve); "+
		"with several seeds or folds, the run of best validation accuracy (ties: the first)")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole command to `file` (read it with go tool pprof)")
	f.node = train.NodeProtocol{Split: "random", Seeds: 1} // Parallel 0: one run per core
	f.graph = train.GraphProtocol{Folds: 10, MicroBatchNodes: train.DefaultMicroBatchNodes}
	// The help shows the protocols' defaults as this model runs them (its
	// recipe's mini-batch); check applies the flags given to f's.
	node, graph := f.node, f.graph
	for _, s := range specs {
		if s.Task == data.GraphTask {
			graph.BatchSize, graph.MicroBatchSeeds = train.RecipeBatchSize(s.Name), "off"
			if train.RecipeSeededMicroBatches(s.Name) {
				graph.MicroBatchSeeds = "on"
			}
		}
	}
	f.protocol = option.Bind(fs, &node, &graph)
	var recipes, defaults []option.Source
	for _, s := range specs {
		name := s.Name
		if len(specs) > 1 && specs[0].Name == specs[1].Name { // one name, two tasks: the help tells their defaults apart by task
			name = s.Task.String()
		}
		tc := train.Recipe(s.Task, s.Name)
		if tc.LRSchedule == "" {
			tc.LRSchedule = train.ScheduleConstant // as the help names it
		}
		recipes = append(recipes, option.Source{Name: name, Config: &tc})
		defaults = append(defaults, option.Source{Name: name, Config: s.Default()})
	}
	f.recipe = option.BindSources(fs, recipes...)
	f.opts = option.BindSources(fs, defaults...)
	return fs
}

// specsNamed is the registered models called name, of either task (a name
// such as prcapsnet has a node and a graph network).
func specsNamed(name string) []model.Spec {
	var out []model.Spec
	for _, s := range model.Specs() {
		if s.Name == strings.ToLower(name) {
			out = append(out, s)
		}
	}
	return out
}

// modelsTitle names the model of specs for the help text.
func modelsTitle(specs []model.Spec) string {
	if len(specs) == 1 || specs[0].Name == specs[1].Name {
		return specs[0].Name
	}
	return "every model"
}

// otherModelsOption turns the flag package's error for a flag the command
// line does not define into a usage error that names the models it is an
// option of, when it is another model's.
func otherModelsOption(err error, chosen string) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return err
	}
	var owners []string
	for _, s := range model.Specs() {
		if _, has := option.RangeOf(s.Default(), name); has && !slices.Contains(owners, s.Name) {
			owners = append(owners, s.Name)
		}
	}
	if len(owners) == 0 {
		return err
	}
	return usagef("--%s does not apply to %s: it is an option of %s (see prcaps train --model %s -h)", name, chosen, strings.Join(owners, ", "), owners[0])
}

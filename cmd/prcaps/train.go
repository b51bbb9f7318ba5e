package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// defaultModel is what `prcaps train` trains without --model.
const defaultModel = "prcapsnet"

// trainFlags are the flags of `prcaps train`; zero numeric values mean "the
// model's default".
type trainFlags struct {
	model, dataset, root, split, optimizer string
	edges, features, labels                string
	cpuProfile                             string
	seeds, firstSeed, epochs, hidden       int
	patience                               int
	lrSchedule                             string
	lr, wd, dropout, inputDropout, clip    float64
	asJSON, quiet, nodeAttr                bool

	// PR-CapsNet options (DESIGN §5); the defaults are the model's.
	caps model.PRCapsConfig

	// Graph classification (train_graph.go).
	graph graphFlags
}

func runTrain(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("train", "Trains a model under a paper protocol and prints mean ± std test accuracy at the\n"+
		"best-validation epoch, the parameter count and the wall time.\n\n"+
		"With no flags: "+defaultModel+" on the embedded Cora, one random 60/20/20 split.\n"+
		"Node datasets: cora citeseer pubmed cs (or any npz under --data, or your own files with --edges).\n"+
		"Graph datasets (stratified k-fold CV): mutag nci1 nci109 dd proteins, or any TU set under --data with --task graph.", stderr)
	var f trainFlags
	fs.StringVar(&f.model, "model", defaultModel, "model: "+strings.Join(model.NodeModels(), ", "))
	fs.StringVar(&f.dataset, "dataset", "cora", "dataset name (case-insensitive) or path to a .npz file")
	fs.StringVar(&f.root, "data", data.DefaultRoot(), "data directory; default $PRCAPS_DATA, then the user cache; Cora is embedded")
	fs.StringVar(&f.split, "split", "random", "node split: random (60/20/20 per seed) or public (Planetoid's 20 per class/500/1000)")
	fs.IntVar(&f.seeds, "seeds", 1, "number of runs (seeds first-seed, first-seed+1, ...); the paper's protocol uses 10")
	fs.IntVar(&f.firstSeed, "first-seed", 0, "seed of the first run")
	fs.IntVar(&f.epochs, "epochs", 0, "training epochs (0: the model's default: 200 node, 100 graph)")
	fs.IntVar(&f.hidden, "hidden", 0, "hidden width of GCN / of PR-CapsNet's GCN stem (0: the model's default, 64)")
	fs.IntVar(&f.patience, "patience", 0, "stop a run after this many epochs without a better validation accuracy (0: never)")
	fs.Float64Var(&f.lr, "lr", 0, "learning rate (0: the model's default: 0.005 prcapsnet (node and graph), 0.01 gcn)")
	fs.StringVar(&f.lrSchedule, "lr-schedule", "", "learning rate per epoch: constant, cosine (annealed to 0 over the epochs) or step (halved every 50 epochs, GIN's TU setting); empty: the model's default, step for the graph network, constant otherwise")
	fs.Float64Var(&f.wd, "wd", -1, "weight decay (-1: the model's default: 5e-4 node, 1e-4 graph)")
	fs.Float64Var(&f.dropout, "dropout", -1, "dropout probability of the hidden layer, and of GCN's input features (-1: the model's default, 0.5)")
	fs.Float64Var(&f.inputDropout, "input-dropout", -1, "prcapsnet: dropout probability of the input node features (-1: the model's default, 0.5 node, 0 graph)")
	fs.Float64Var(&f.clip, "clip", -1, "clip the global gradient norm to this value (0: off; -1: the model's default, 1 for prcapsnet)")
	def := model.DefaultPRCapsConfig()
	f.caps = def
	fs.StringVar(&f.caps.Stem, "stem", "", "prcapsnet: the stem's aggregation: gcn (D^-1/2 (A+I) D^-1/2) or sum (A+I, GIN-0's, keeps neighbour counts); empty: the model's default, gcn")
	fs.IntVar(&f.caps.S, "s", def.S, "prcapsnet: space-like capsule dimensions s")
	fs.IntVar(&f.caps.T, "t", def.T, "prcapsnet: time-like capsule dimensions t (the time block has t+1)")
	fs.IntVar(&f.caps.Layers, "layers", def.Layers, "prcapsnet: routing layers L (the authors' code uses 1, the paper's text 3)")
	fs.IntVar(&f.caps.K, "k", def.K, "prcapsnet: perspectives K of adaptive curvature routing")
	fs.IntVar(&f.caps.Iters, "iters", def.Iters, "prcapsnet: routing iterations T")
	fs.StringVar(&f.caps.Routing, "routing", def.Routing, "prcapsnet: acr, pcr, euclidean (Caps only) or none (PR only)")
	fs.StringVar(&f.caps.Classifier, "classifier", def.Classifier, "prcapsnet: prcc or linear")
	fs.Float64Var(&f.caps.ClassifierScale, "prcc-scale", def.ClassifierScale, "prcapsnet: PRCC's initial logit scale softplus(τ₀)")
	fs.StringVar(&f.caps.Activation, "activation", def.Activation, "prcapsnet: tangent activation squash, tanh, relu or identity")
	fs.StringVar(&f.caps.RoutingInit, "routing-init", def.RoutingInit, "prcapsnet: initialisation of the routing layers' prediction weights: identity (I + U(±0.05)), torch (U(±1/√fan_in), PyTorch's nn.Linear default) or, in the graph network, torch-graph (torch in the graph-level layer only)")
	fs.StringVar(&f.caps.Coupling, "coupling", def.Coupling, "prcapsnet: coupling: children (softmax over the children of each parent) or parents (over the parents of each child, classic CapsNet; in the graph network a class capsule then sums its graph's nodes)")
	fs.BoolVar(&f.caps.DetachB, "detach-b", false, "prcapsnet: stop gradients through the routing logits (CapsGNN style)")
	fs.BoolVar(&f.caps.NoC, "no-gate-c", false, "prcapsnet: remove the gate's curvature-compatibility term")
	fs.BoolVar(&f.caps.NoA, "no-gate-a", false, "prcapsnet: remove the gate's feature-alignment term")
	fs.BoolVar(&f.caps.NoR, "no-gate-r", false, "prcapsnet: remove the gate's routing-consistency term")
	fs.BoolVar(&f.caps.FixedCurvature, "fixed-curvature", false, "prcapsnet: freeze the manifold and perspective curvatures")
	fs.BoolVar(&f.caps.NormalizeFeatures, "normalize-features", false, "prcapsnet: divide each node's features by their sum (GCN always does)")
	fs.StringVar(&f.optimizer, "optimizer", "", "adam, adamw or radam (RiemannianAdam); empty: the model's default")
	fs.StringVar(&f.edges, "edges", "", "your own graph: edge list file (CSV/TSV \"src,dst\" per line; see README); replaces --dataset")
	fs.StringVar(&f.features, "features", "", "with --edges: node features file (\"id,f1,...,fd\" per line); empty: one constant feature")
	fs.StringVar(&f.labels, "labels", "", "with --edges: node labels file (\"id,label\" per line)")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object per run and a summary object on the last line")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output on stderr (a bar on a terminal, plain lines otherwise); results still go to stdout")
	fs.BoolVar(&f.nodeAttr, "node-attr", false, "append TU node attributes to the node features")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole command to `file` (read it with go tool pprof)")
	f.graph.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.cpuProfile != "" {
		stop, err := startCPUProfile(f.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if err := train.CheckSchedule(f.lrSchedule); err != nil {
		return usagef("--lr-schedule: %v", err)
	}
	if graphTask(fs, &f) {
		return runTrainGraph(f, stdout, stderr)
	}
	if f.seeds < 1 {
		return usagef("--seeds must be at least 1")
	}
	if f.split != "random" && f.split != "public" {
		return usagef("--split must be random or public, not %q", f.split)
	}
	prog := newProgress(stderr, f.quiet)
	ds, err := loadTrainData(f)
	if err != nil {
		return err
	}
	if ds.Task != data.NodeTask {
		return usagef("%s is a graph-classification dataset: run it with --task graph", ds.Name)
	}
	cfg, build, err := nodeModel(f, ds.Node)
	if err != nil {
		return err
	}
	proto := train.NodeProtocol{Split: f.split, Seeds: f.seeds, FirstSeed: uint64(f.firstSeed), Parallel: f.graph.parallel}
	prog.line("%s on %s (%d nodes, %d features, %d classes; from %s), %s, %d epochs",
		f.model, ds.Name, ds.Node.Graph.N, ds.Node.X.Cols(), ds.Node.NumClasses, ds.From, proto.Name(), cfg.Epochs)
	enc := json.NewEncoder(stdout)
	sum, err := train.RunNodeProtocol(ds.Node, build, proto, cfg,
		func(run int, e train.Epoch) {
			prog.update(fmt.Sprintf("run %d/%d", run+1, f.seeds), e.Epoch, cfg.Epochs,
				fmt.Sprintf("loss %.4f train %.3f val %.3f", e.Loss, e.TrainAcc, e.ValAcc))
		},
		func(run int, r train.Result) {
			if f.asJSON {
				enc.Encode(runRecord{ds.Name, "node", f.model, proto.Name(), run, r})
			}
			prog.line("run %d/%d (seed %d): test %.4f at best-val epoch %d (val %.4f), %.2fs",
				run+1, f.seeds, r.Seed, r.TestAcc, r.BestEpoch, r.ValAcc, r.Seconds)
		})
	if err != nil {
		return err
	}
	sum.Model = f.model
	if f.asJSON {
		return enc.Encode(sum)
	}
	fmt.Fprintf(stdout, "%s on %s, %s: test accuracy %.2f ± %.2f %% over %d run(s); %d parameters; %.2f s per run\n",
		sum.Model, sum.Dataset, sum.Protocol, 100*sum.MeanAcc, 100*sum.StdAcc, sum.Runs, sum.Params, sum.SecondsPerRun)
	return nil
}

// runRecord is the JSON object printed per run.
type runRecord struct {
	Dataset  string `json:"dataset"`
	Task     string `json:"task"`
	Model    string `json:"model"`
	Protocol string `json:"protocol"`
	Run      int    `json:"run"`
	train.Result
}

// nodeModel maps the flags onto a model config and a training config.
func nodeModel(f trainFlags, ds *data.NodeDataset) (train.Config, train.Builder, error) {
	mc, tc, err := model.DefaultNodeConfig(f.model)
	if err != nil {
		return tc, nil, usageError{err.Error()}
	}
	override(&tc, f)
	mc.PRCaps = f.capsConfig(mc.PRCaps)
	if f.hidden > 0 {
		mc.GCN.Hidden = f.hidden
	}
	if f.dropout >= 0 {
		mc.GCN.Dropout = f.dropout
	}
	// Build one model now so that a bad configuration is reported before
	// any training starts.
	if _, err := model.NewNodeModel(ds, mc, uint64(f.firstSeed)); err != nil {
		return tc, nil, err
	}
	return tc, func(seed uint64) (train.NodeModel, error) { return model.NewNodeModel(ds, mc, seed) }, nil
}

// capsConfig maps the PR-CapsNet flags onto base, the task's default
// configuration: the architecture flags (registered with the model's
// defaults) replace base's fields, while the stem, hidden and the two
// dropouts, whose flags mean "the task's default" until given, replace
// them only when given.
func (f trainFlags) capsConfig(base model.PRCapsConfig) model.PRCapsConfig {
	c := f.caps
	c.Hidden, c.Dropout, c.InputDropout = base.Hidden, base.Dropout, base.InputDropout
	if c.Stem == "" {
		c.Stem = base.Stem
	}
	if f.hidden > 0 {
		c.Hidden = f.hidden
	}
	if f.dropout >= 0 {
		c.Dropout = f.dropout
	}
	if f.inputDropout >= 0 {
		c.InputDropout = f.inputDropout
	}
	return c
}

// startCPUProfile starts a pprof CPU profile into path and returns the
// function that stops it and closes the file.
func startCPUProfile(path string) (stop func(), err error) {
	out, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		out.Close()
	}, nil
}

func override(cfg *train.Config, f trainFlags) {
	if f.epochs > 0 {
		cfg.Epochs = f.epochs
	}
	if f.lr > 0 {
		cfg.LR = f.lr
	}
	if f.lrSchedule != "" {
		cfg.LRSchedule = f.lrSchedule
	}
	if f.wd >= 0 {
		cfg.WeightDecay = f.wd
	}
	if f.optimizer != "" {
		cfg.Optimizer = f.optimizer
	}
	if f.clip >= 0 {
		cfg.Clip = f.clip
	}
	cfg.Patience = f.patience
}

// loadTrainData loads --dataset, or the user's files given with --edges.
func loadTrainData(f trainFlags) (*data.Dataset, error) {
	if f.edges == "" {
		if f.features != "" || f.labels != "" {
			return nil, usagef("--features and --labels go with --edges")
		}
		return data.Load(f.dataset, data.Options{Root: f.root, NodeAttr: f.nodeAttr})
	}
	if f.labels == "" {
		return nil, usagef("--edges needs --labels")
	}
	nd, err := data.LoadPlain(f.edges, f.features, f.labels)
	if err != nil {
		return nil, err
	}
	return &data.Dataset{Name: nd.Name, Task: data.NodeTask, Node: nd, From: f.edges}, nil
}

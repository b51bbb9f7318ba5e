package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/option"
	"github.com/prcaps/prcaps/train"
)

// zeroClass says what an explicit 0 is for a flag.
type zeroClass int

const (
	notNumber zeroClass = iota // strings, files, switches: 0 is no number
	zeroBad                    // the documented range excludes 0: a usage error
	zeroOK                     // 0 is in the documented range (its help says what it means)
)

// flagZero classifies every flag of every command. A flag not listed (a
// new one) fails TestHostileZeroIsNotDefault until it is classified.
var flagZero = map[string]map[string]zeroClass{
	"train": {
		// the command's own
		"cpuprofile": notNumber, "curves": notNumber, "data": notNumber, "dataset": notNumber, "edges": notNumber,
		"embeddings": notNumber, "features": notNumber, "json": notNumber, "labels": notNumber, "model": notNumber,
		"node-attr": notNumber, "quiet": notNumber, "save": notNumber, "task": notNumber, "test-curve": notNumber,
		"val-logits": notNumber,
		// protocols (train.NodeProtocol, train.GraphProtocol)
		"seeds": zeroBad, "parallel": zeroBad, "split": notNumber, "folds": zeroBad, "batch": zeroBad,
		"fanout": notNumber, "batch-nodes": zeroBad,
		"micro-batch-nodes": zeroBad, "micro-batch-seeds": notNumber,
		"first-seed": zeroOK, "fold-seed": zeroOK, // seeds
		"only-folds":      zeroOK, // 0: all folds
		"iters-per-epoch": zeroOK, // 0: a full pass
		// training (train.Config)
		"epochs": zeroBad, "lr": zeroBad, "lr-step-every": zeroBad,
		"wd": zeroOK, "clip": zeroOK, "patience": zeroOK, // 0: none, off, never
		"optimizer": notNumber, "lr-schedule": notNumber, "allow-divergence": notNumber,
		// the models' options
		"hidden": zeroBad, "layers": zeroBad, "t": zeroBad, "k": zeroBad, "iters": zeroBad, "prcc-scale": zeroBad,
		"heads": zeroBad, "out-heads": zeroBad, "hops": zeroBad, "dense": zeroBad, "conv1": zeroBad, "conv2": zeroBad,
		"sort-k": zeroBad, "beta": zeroBad, "time-dim": zeroBad, "bandwidth": zeroBad, "bandwidth-lr-scale": zeroBad,
		"points": zeroBad, "gmm-components": zeroBad, "aug-per-graph": zeroBad, "pretrain-epochs": zeroBad,
		"rwse-steps": zeroBad, "pe-dim": zeroBad, "head-layers": zeroBad,
		"mlp-width": zeroBad,                                                                        // the test models' (toymodel_test.go)
		"s":         zeroOK,                                                                         // 0 to 512: no space-like dimension
		"dropout":   zeroOK, "input-dropout": zeroOK, "attn-dropout": zeroOK, "aug-dropout": zeroOK, // no dropout
		"alpha": zeroOK, "lambda": zeroOK, // in [0, 1], ≥ 0
		"activation": notNumber, "attention": notNumber, "backbone": notNumber, "classifier": notNumber, "conv": notNumber,
		"coupling": notNumber, "decay-all": notNumber, "detach-b": notNumber, "fixed-curvature": notNumber, "jk": notNumber,
		"learn-curvature": notNumber, "no-gate-a": notNumber, "no-gate-c": notNumber, "no-gate-r": notNumber,
		"norm": notNumber, "normalize-features": notNumber, "output-relu": notNumber, "readout": notNumber,
		"residual": notNumber, "routing": notNumber, "routing-init": notNumber, "stem": notNumber,
	},
	"tune": {
		"data": notNumber, "dataset": notNumber, "grid": notNumber, "json": notNumber, "log": notNumber, "quiet": notNumber,
		"split": notNumber, "shard": notNumber, "seeds": zeroBad, "parallel": zeroBad, "first-seed": zeroOK,
		"fanout": notNumber, "batch-nodes": zeroBad,
	},
	"bench": {
		"cpuprofile": notNumber, "data": notNumber, "dataset": notNumber, "edges": notNumber, "json": notNumber,
		"list": notNumber, "log": notNumber, "log-only": notNumber, "micro-batch-seeds": notNumber, "models": notNumber,
		"out": notNumber, "quiet": notNumber, "scale": notNumber, "speed": notNumber, "split": notNumber,
		"suite": notNumber, "tables": notNumber, "shard": notNumber, "fanout": notNumber, "select": notNumber,
		"slurm-dir": notNumber, "submit": notNumber, "sbatch": notNumber, "slurm": zeroBad,
		"folds": zeroBad, "repeat": zeroBad, "seeds": zeroBad, "batch-nodes": zeroBad,
		"epochs": zeroOK, "parallel": zeroOK, // 0: the recipe's, one per core (their help says so)
		"first-seed": zeroOK, "iters-per-epoch": zeroOK, // 0: a full pass (its help says so)
	},
	"plot": {
		"out": notNumber, "title": notNumber, "cols": zeroBad, "iterations": zeroBad, "perplexity": zeroBad,
		"seed": zeroOK,
	},
	"predict": {
		"data": notNumber, "dataset": notNumber, "edges": notNumber, "features": notNumber, "json": notNumber,
		"labels": notNumber, "model": notNumber, "nodes": notNumber,
	},
	"serve": {
		"addr": notNumber, "model": notNumber,
		"max-body": zeroBad, "max-edges": zeroBad, "max-graphs": zeroBad, "max-nodes": zeroBad, "timeout": zeroBad,
		"max-memory": zeroBad, "max-in-flight": zeroBad, "queue-wait": zeroBad,
	},
	"datasets":          {"data": notNumber, "dataset": notNumber, "json": notNumber, "node-attr": notNumber},
	"datasets download": {"data": notNumber, "timeout": zeroBad},
	"datasets verify":   {"data": notNumber, "timeout": zeroBad},
}

// helpFlags lists the flags of a command from its -h output (every flag
// of its FlagSet), with what each takes ("" for a switch).
func helpFlags(t *testing.T, command string) map[string]string {
	t.Helper()
	code, out, errOut := runCLI(append(strings.Fields(command), "-h")...)
	if code != 0 {
		t.Fatalf("prcaps %s -h: exit %d", command, code)
	}
	flags := map[string]string{}
	for _, line := range strings.Split(out+errOut, "\n") {
		if !strings.HasPrefix(line, "  -") || strings.HasPrefix(line, "  - ") {
			continue
		}
		f := strings.Fields(line)
		typ := ""
		if len(f) > 1 {
			typ = f[1]
		}
		flags[strings.TrimPrefix(f[0], "-")] = typ
	}
	if len(flags) == 0 {
		t.Fatalf("prcaps %s -h lists no flags", command)
	}
	return flags
}

// zeroArgs is a command line of command that sets flag to 0 and would
// otherwise get past the flag's check.
func zeroArgs(t *testing.T, command, flag string) []string {
	args := strings.Fields(command)
	switch command {
	case "train":
		args = append(args, "--data", "")
		if s, ok := specWithZeroBad(flag); ok {
			args = append(args, "--task", s.Task.String(), "--model", s.Name)
		} else if _, ok := option.RangeOf(&train.GraphProtocol{}, flag); ok {
			if _, node := option.RangeOf(&train.NodeProtocol{}, flag); !node {
				args = append(args, "--task", "graph")
			}
		}
	case "tune":
		args = append(args, "--data", "", "--grid", filepath.Join(t.TempDir(), "grid.json"))
	case "plot":
		args = append(args, "--out", t.TempDir(), "nosuch.jsonl")
	case "serve":
		args = append(args, "--model", filepath.Join(t.TempDir(), "m.safetensors"))
	case "bench":
		args = append(args, "--data", "", "--list")
	}
	return append(args, "--"+flag, "0")
}

// specWithZeroBad is a model with the option name whose range excludes 0.
func specWithZeroBad(name string) (model.Spec, bool) {
	for _, s := range model.Specs() {
		if r, ok := option.RangeOf(s.Default(), name); ok && r.Excludes0() {
			return s, true
		}
	}
	return model.Spec{}, false
}

// Every flag of every command is classified; a numeric flag whose
// documented range excludes 0 is a usage error (exit 2, naming the flag)
// when given 0, never the default; the classes of the options bound from
// configurations agree with their range tags.
func TestHostileZeroIsNotDefault(t *testing.T) {
	cfgs := []any{&train.Config{}, &train.NodeProtocol{}, &train.GraphProtocol{}}
	for _, s := range model.Specs() {
		cfgs = append(cfgs, s.Default())
	}
	for command, table := range flagZero {
		flags := helpFlags(t, command)
		if command == "train" { // each model's command line binds its own options
			for _, name := range model.AllNames() {
				for f, typ := range helpFlags(t, "train --model "+name) {
					flags[f] = typ
				}
			}
		}
		for name, typ := range flags {
			class, ok := table[name]
			if !ok {
				t.Errorf("prcaps %s --%s (%s): not classified in flagZero", command, name, typ)
				continue
			}
			numeric := slices.Contains([]string{"int", "uint", "float", "duration", "size"}, typ)
			if numeric != (class != notNumber) {
				t.Errorf("prcaps %s --%s takes %q, classified %d", command, name, typ, class)
			}
			if command == "train" || command == "tune" {
				for _, c := range cfgs {
					if r, ok := option.RangeOf(c, name); ok && numeric && r.Excludes0() != (class == zeroBad) {
						t.Errorf("prcaps %s --%s: %T's range %+v disagrees with the class %d", command, name, c, r, class)
					}
				}
			}
			if class != zeroBad {
				continue
			}
			args := zeroArgs(t, command, name)
			code, out, errOut := runCLI(args...)
			if code != 2 || !strings.Contains(out+errOut, "-"+name) {
				t.Errorf("prcaps %q: exit %d, output %.300q; want exit 2 naming --%s", args, code, out+errOut, name)
			}
		}
		for name := range table {
			if _, ok := flags[name]; !ok {
				t.Errorf("prcaps %s: flagZero lists --%s, which the command does not have", command, name)
			}
		}
	}
	if testing.Short() {
		return
	}
	// Every model's every option whose range excludes 0, on its model.
	for _, s := range model.Specs() {
		for _, o := range option.List(s.Default()) {
			if r, _ := option.RangeOf(s.Default(), o.Name); !r.Excludes0() {
				continue
			}
			args := []string{"train", "--data", "", "--task", s.Task.String(), "--model", s.Name, "--" + o.Name, "0"}
			if code, out, errOut := runCLI(args...); code != 2 || !strings.Contains(errOut, "--"+o.Name+" 0") {
				t.Errorf("prcaps %q: exit %d, output %.300q; want exit 2 naming --%s", args, code, out+errOut, o.Name)
			}
		}
	}
}

// A checkpoint is a configuration read from outside: a field set to 0
// whose range excludes 0 (Iters) is an error at load, never the default.
func TestHostileCheckpointZeroIsNotDefault(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "m.safetensors")
	if code, _, errOut := runCLI("train", "--data", "", "--epochs", "1", "--quiet", "--save", ck); code != 0 {
		t.Fatalf("train --save: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(ck)
	if err != nil {
		t.Fatal(err)
	}
	from, to := []byte(`\"Iters\":3`), []byte(`\"Iters\":0`)
	if bytes.Count(b, from) != 1 {
		t.Fatalf("the checkpoint's metadata holds %d %s", bytes.Count(b, from), from)
	}
	bad := filepath.Join(dir, "iters0.safetensors")
	if err := os.WriteFile(bad, bytes.Replace(b, from, to, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	runHostile(t, "checkpoint zero", []hostileCase{
		{[]string{"predict", "--model", ck, "--data", "", "--nodes", "0,1"}, 0, "accuracy"},
		{[]string{"predict", "--model", bad, "--data", ""}, 1, "0 routing iterations: need 1 to 64"},
	})
}

// A flag given that the path the command takes does not read is a usage
// error naming it, never silently ignored; so is a dataset that is nowhere
// (an empty table with exit 0 before) and a grid file with data after its
// JSON object.
func TestHostileFlagsThatDoNotApply(t *testing.T) {
	dir := t.TempDir()
	graphModel := filepath.Join(dir, "mutag.safetensors")
	if code, _, errOut := runCLI("train", "--task", "graph", "--data", "", "--epochs", "1", "--only-folds", "2", "--quiet", "--save", graphModel); code != 0 {
		t.Fatalf("train --save: exit %d: %s", code, errOut)
	}
	grid := filepath.Join(dir, "grid.json")
	if err := os.WriteFile(grid, []byte(`{"model": "gcn", "options": {"hidden": [8]}} trailing`), 0o644); err != nil {
		t.Fatal(err)
	}
	edges := filepath.Join(dir, "e.csv")
	if err := os.WriteFile(edges, []byte("0,1\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runHostile(t, "does not apply", []hostileCase{
		{[]string{"predict", "--model", graphModel, "--data", "", "--nodes", "0,1"}, 2, "--nodes does not apply to prcapsnet, a graph-classification model"},
		{[]string{"predict", "--model", graphModel, "--edges", edges, "--dataset", "cora"}, 2, "--dataset does not apply with --edges"},
		{[]string{"train", "--data", "", "--node-attr"}, 2, "--node-attr does not apply to Cora"},
		{[]string{"train", "--edges", edges, "--labels", edges, "--dataset", "citeseer"}, 2, "--dataset does not apply with --edges"},
		{[]string{"train", "--edges", edges, "--labels", edges, "--data", "/tmp"}, 2, "--data does not apply with --edges"},
		{[]string{"bench", "--suite", "scale", "--data", "", "--dataset", "cora", "--list"}, 2, "--dataset does not apply to the scale suite"},
		{[]string{"train", "--data", "", "--lr-step-every", "10"}, 2, "--lr-step-every does not apply to the constant learning-rate schedule"},
		{[]string{"train", "--data", "", "--lr-schedule", "cosine", "--lr-step-every", "10"}, 2, "--lr-step-every does not apply to the cosine"},
		{[]string{"bench", "--data", "", "--suite", "graph", "--split", "public"}, 2, "--split does not apply to graph-classification tables"},
		{[]string{"bench", "--data", "", "--tables", "t2", "--seeds", "3"}, 2, "--seeds does not apply to graph-classification tables"},
		{[]string{"bench", "--data", "", "--folds", "3"}, 2, "--folds does not apply to node-classification tables"},
		{[]string{"bench", "--data", "", "--iters-per-epoch", "50"}, 2, "--iters-per-epoch does not apply to node-classification tables"},
		{[]string{"bench", "--data", "", "--repeat", "3"}, 2, "--repeat does not apply outside the speed suite"},
		{[]string{"bench", "--data", "", "--speed", "--folds", "3"}, 2, "--folds does not apply to the speed suite"},
		{[]string{"bench", "--data", "", "--dataset", "nosuch"}, 2, "--dataset: dataset nosuch"},
		{[]string{"bench", "--data", dir, "--dataset", "nosuch"}, 2, filepath.Join(dir, "npz", "nosuch.npz")},
		{[]string{"tune", "--data", "", "--grid", grid}, 2, grid + ": data after the grid's JSON object"},
		{[]string{"train", "--data", "", "--fanout", "10,10"}, 2, "--fanout and --batch-nodes go together"},
		{[]string{"train", "--data", "", "--batch-nodes", "64"}, 2, "--fanout and --batch-nodes go together"},
		{[]string{"train", "--data", "", "--model", "sgc", "--fanout", "5", "--batch-nodes", "4"}, 2, "does not train on sampled neighbourhoods (gat, gatv2, gcn, prcapsnet, tgnn do)"},
		{[]string{"train", "--data", "", "--model", "gat", "--fanout", "5", "--batch-nodes", "4"}, 2, "needs 2 fan-outs"},
		{[]string{"train", "--data", "", "--routing", "none", "--fanout", "5,5", "--batch-nodes", "4"}, 2, "sampled training needs a routing over the links (acr or pcr), not none"},
		{[]string{"train", "--data", "", "--task", "graph", "--fanout", "5", "--batch-nodes", "4"}, 2, "--batch-nodes does not apply to graph classification"},
		{[]string{"bench", "--data", "", "--fanout", "5,5", "--batch-nodes", "4"}, 2, "--fanout and --batch-nodes go with --scale"},
		{[]string{"bench", "--data", "", "--scale", "--fanout", "5,5"}, 2, "needs both --fanout and --batch-nodes"},
		{[]string{"bench", "--data", "", "--scale", "--fanout", "5,0", "--batch-nodes", "4"}, 2, "--fanout: fan-outs [5 0]"},
		{[]string{"train", "--data", "", "--routing", "none", "--k", "2"}, 2, "--k does not apply with --routing none (its layers do not read it)"},
		{[]string{"train", "--data", "", "--routing", "pcr", "--no-gate-a"}, 2, "--no-gate-a does not apply with --routing pcr"},
		{[]string{"train", "--data", "", "--routing", "euclidean", "--activation", "tanh"}, 2, "--activation does not apply with --routing euclidean"},
		{[]string{"train", "--data", "", "--classifier", "linear", "--prcc-scale", "3"}, 2, "--prcc-scale does not apply with --classifier linear"},
		{[]string{"train", "--data", "", "--task", "graph", "--routing", "pcr", "--k", "2"}, 2, "--k does not apply with --routing pcr"},
		{[]string{"train", "--data", "", "--model", "tgnn", "--conv", "sage", "--heads", "2"}, 2, "--heads does not apply with --conv sage (heads are GAT's)"},
	})
}

package main

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/option"
)

// `prcaps train --task graph` on the embedded MUTAG: one JSON object per
// fold and the summary (task "graph") last.
func TestTrainGraphJSON(t *testing.T) {
	code, out, errOut := runCLI("train", "--task", "graph", "--data", "", "--epochs", "1", "--only-folds", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines: %q", len(lines), out)
	}
	var sum struct {
		Dataset, Task, Model, Protocol string
		Runs, Params                   int
		MeanAcc                        float64 `json:"mean_acc"`
	}
	if err := json.Unmarshal([]byte(lines[2]), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Dataset != "MUTAG" || sum.Task != "graph" || sum.Model != "prcapsnet" || sum.Runs != 2 || sum.Params == 0 ||
		!strings.Contains(sum.Protocol, "10-fold") {
		t.Fatalf("summary %+v", sum)
	}
	if !strings.Contains(errOut, "fold 2/2 (seed 1): test") {
		t.Errorf("stderr should have a plain progress line per fold:\n%s", errOut)
	}
}

func TestTrainGraphUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"train", "--task", "node", "--dataset", "mutag", "--data", ""}, 2, "a graph-classification dataset"},
		{[]string{"train", "--task", "graph", "--dataset", "cora", "--data", ""}, 2, "node-classification dataset"},
		{[]string{"train", "--task", "graph", "--folds", "1"}, 2, "--folds 1: must be in [2, "},
		{[]string{"train", "--task", "graph", "--micro-batch-nodes", "0"}, 2, "--micro-batch-nodes 0: must be in [1, "},
		{[]string{"train", "--task", "graph", "--model", "gcn"}, 2, "unknown graph-classification model"},
		{[]string{"train", "--task", "graph", "--routing", "euclidean", "--epochs", "1"}, 1, "supports acr and pcr"},
		{[]string{"train", "--task", "graph", "--input-dropout", "1", "--epochs", "1"}, 2, "--input-dropout 1: must be in [0, 1)"},
		{[]string{"train", "--input-dropout", "1", "--epochs", "1"}, 2, "--input-dropout 1: must be in [0, 1)"},
		{[]string{"train", "--task", "graph", "--lr-schedule", "linear"}, 2, `unknown learning-rate schedule "linear" (want constant, cosine, step, exponential)`},
		{[]string{"train", "--task", "graph", "--test-curve", "c.tsv", "--patience", "5"}, 2, "no --patience"},
	} {
		code, out, errOut := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("prcaps %v: exit %d, output %q; want exit %d and %q", tc.args, code, out+errOut, tc.code, tc.want)
		}
	}
}

// The model option flags change only what is given: the graph network
// keeps its own defaults (no input dropout) unless its flag is given, an
// option of another model is a usage error, and a bad value is refused.
func TestModelOptionFlags(t *testing.T) {
	parse := func(args ...string) (*option.Flags, error) {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var defaults []any
		for _, s := range model.Specs() {
			defaults = append(defaults, s.Default())
		}
		m := option.Bind(fs, defaults...)
		return m, fs.Parse(args)
	}
	config := func(m *option.Flags, task data.Task, name string) (model.Config, error) {
		cfg, err := model.DefaultConfig(task, name)
		if err != nil {
			return nil, err
		}
		return cfg, apply(m, cfg, name)
	}
	m, err := parse("--k", "2", "--stem", "sum")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config(m, data.GraphTask, "prcapsnet")
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.(*model.PRCapsConfig)
	if got.InputDropout != 0 || got.Dropout != 0.5 || got.Hidden != 64 || got.K != 2 || got.Stem != model.StemSum {
		t.Errorf("graph config %+v: want input dropout 0, dropout 0.5, hidden 64, K 2, stem sum", *got)
	}
	m, _ = parse("--input-dropout", "0.3", "--hidden", "32", "--fixed-curvature")
	cfg, err = config(m, data.GraphTask, "prcapsnet")
	if got := cfg.(*model.PRCapsConfig); err != nil || got.InputDropout != 0.3 || got.Hidden != 32 || !got.FixedCurvature {
		t.Errorf("given: %+v, %v", got, err)
	}
	for _, args := range [][]string{{"--k", "3"}, {"--routing", "magic"}, {"--hidden", "-4"}} {
		m, _ := parse(args...)
		name := "gcn"
		if args[0] != "--k" {
			name = "prcapsnet"
		}
		if _, err := config(m, data.NodeTask, name); !errors.As(err, new(usageError)) {
			t.Errorf("%v for %s: error %v, want a usage error", args, name, err)
		}
	}
}

// --cpuprofile writes a pprof profile of the run; an unwritable path is an
// error before any training.
func TestTrainCPUProfile(t *testing.T) {
	checkCPUProfile(t, "train", "--task", "graph", "--data", "", "--epochs", "1", "--only-folds", "2", "--quiet")
}

// checkCPUProfile runs the command args with --cpuprofile: the profile file
// is written and not empty, and an unwritable path is an error that names
// the flag.
func checkCPUProfile(t *testing.T, args ...string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	code, _, errOut := runCLI(append(args[:len(args):len(args)], "--cpuprofile", path)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if st, err := os.Stat(path); err != nil {
		t.Error(err)
	} else if st.Size() == 0 {
		t.Errorf("profile %s is empty", path)
	}
	code, _, errOut = runCLI(append(args[:len(args):len(args)], "--cpuprofile", filepath.Join(t.TempDir(), "missing", "cpu.pprof"))...)
	if code == 0 || !strings.Contains(errOut, "--cpuprofile") {
		t.Errorf("unwritable profile path: exit %d, %q", code, errOut)
	}
}

// --val-logits writes one file per fold with a line per validation graph
// and epoch: epoch, graph, label and one logit per class.
func TestTrainGraphValLogits(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runCLI("train", "--task", "graph", "--data", "", "--epochs", "2", "--only-folds", "2", "--val-logits", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, name := range []string{"MUTAG-fold00.tsv", "MUTAG-fold01.tsv"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 2*17 { // 17 validation graphs, 2 epochs
			t.Fatalf("%s: %d lines, want 34", name, len(lines))
		}
		if f := strings.Split(lines[len(lines)-1], "\t"); len(f) != 5 || f[0] != "2" || (f[2] != "0" && f[2] != "1") {
			t.Errorf("%s: last line %q, want epoch 2, graph, label in {0,1}, two logits", name, lines[len(lines)-1])
		}
	}
	file := filepath.Join(dir, "MUTAG-fold00.tsv")
	if code, _, errOut := runCLI("train", "--task", "graph", "--data", "", "--epochs", "1", "--only-folds", "1", "--val-logits", file); code == 0 || !strings.Contains(errOut, "--val-logits") {
		t.Errorf("--val-logits under a file: exit %d, stderr %q; want an error naming the flag", code, errOut)
	}
}

// --test-curve writes a line per fold and epoch and prints the test-curve
// selection beside, never inside, the JSON records; the records are those
// of the same run without it.
func TestTrainGraphTestCurve(t *testing.T) {
	file := filepath.Join(t.TempDir(), "curve.tsv")
	args := []string{"train", "--task", "graph", "--data", "", "--epochs", "3", "--only-folds", "2", "--json", "--quiet"}
	code, plain, errOut := runCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLI(append(args, "--test-curve", file)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	seconds := regexp.MustCompile(`"(train_)?seconds(_per_run)?":[0-9.e+-]+`)
	if seconds.ReplaceAllString(out, "") != seconds.ReplaceAllString(plain, "") {
		t.Errorf("JSON with --test-curve:\n%s\nwithout:\n%s", out, plain)
	}
	if !strings.Contains(errOut, "test-curve reporting (selects on test labels") || !strings.Contains(errOut, "over 2 fold(s)") {
		t.Errorf("stderr %q: want the test-curve line", errOut)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1+2*3 || lines[0] != "fold\tepoch\tval_acc\ttest_acc" {
		t.Fatalf("%s: %d lines, header %q; want a header and 6 lines", file, len(lines), lines[0])
	}
	if f := strings.Split(lines[6], "\t"); len(f) != 4 || f[0] != "1" || f[1] != "3" {
		t.Errorf("last line %q, want fold 1, epoch 3 and two accuracies", lines[6])
	}
	bad := filepath.Join(t.TempDir(), "missing", "curve.tsv")
	if code, _, errOut := runCLI("train", "--task", "graph", "--data", "", "--epochs", "1", "--only-folds", "1", "--test-curve", bad); code == 0 || !strings.Contains(errOut, "--test-curve") {
		t.Errorf("--test-curve in a missing directory: exit %d, stderr %q; want an error naming the flag", code, errOut)
	}
}

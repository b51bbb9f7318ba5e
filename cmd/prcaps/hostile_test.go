package main

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
)

// The hostile-input suite: the command lines that once panicked, hung,
// reported a diverged run as a success, silently replaced a bad value by
// a default, lost a result file or trained on degenerate data. Each must
// now end with the right exit status and a message that says what is
// wrong, never a panic and never exit 0 with a misleading number.

type hostileCase struct {
	args []string
	code int
	want string // in stdout or stderr
}

func runHostile(t *testing.T, class string, cases []hostileCase) {
	t.Helper()
	for _, tc := range cases {
		code, out, errOut := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%s: prcaps %s: exit %d, output %.300q; want exit %d and %q", class, strings.Join(tc.args, " "), code, out+errOut, tc.code, tc.want)
		}
		if len(out)+len(errOut) > 64<<10 {
			t.Errorf("%s: prcaps %s: %d bytes of output", class, strings.Join(tc.args, " "), len(out)+len(errOut))
		}
	}
}

func TestHostilePanicsAndSizes(t *testing.T) {
	runHostile(t, "panics", []hostileCase{
		{[]string{"train", "--task", "graph", "--data", "", "--lr", "100", "--clip", "0", "--epochs", "10", "--only-folds", "2", "--quiet"}, 1, "non-finite"},
		{[]string{"train", "--task", "graph", "--data", "", "--lr", "100", "--clip", "0", "--epochs", "10", "--only-folds", "2", "--parallel", "2", "--json", "--quiet"}, 1, "fold 1 (seed 1)"},
		{[]string{"train", "--data", "", "--s", "100000"}, 2, "--s 100000: must be in [0, 512]"},
		{[]string{"train", "--data", "", "--hidden", "100000000"}, 2, "--hidden 100000000: must be in [1, 65536]"},
		{[]string{"train", "--data", "", "--layers", "100000"}, 2, "--layers 100000: must be in [1, 16]"},
		{[]string{"train", "--data", "", "--model", "gcn", "--hidden", "100000000"}, 2, "must be in [1, 65536]"},
	})
}

func init() {
	// test-panics is the toy MLP of toymodel_test.go, whose forward pass
	// panics in the run of seed 1.
	model.Register(model.Spec{
		Name: "test-panics", Task: data.NodeTask, Summary: "test: panics for seed 1", Recipe: model.NodeRecipe,
		Default: func() model.Config { return &toyConfig{Width: 8} },
		Build: func(cfg model.Config, shape model.Shape, seed uint64) (model.Model, error) {
			m, err := model.New(data.NodeTask, "test-mlp", cfg, shape, seed)
			if err != nil {
				return nil, err
			}
			return panicsFor{m.(*toyMLP), seed == 1}, nil
		},
	})
}

type panicsFor struct {
	*toyMLP
	panics bool
}

func (m panicsFor) Forward(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	if m.panics {
		panic("test-panics")
	}
	return m.toyMLP.Forward(t, g, x, training, rng)
}

func TestHostileDivergence(t *testing.T) {
	runHostile(t, "divergence", []hostileCase{
		{[]string{"train", "--data", "", "--model", "gcn", "--lr", "1e6", "--epochs", "5", "--quiet"}, 1, "diverged"},
		{[]string{"train", "--dataset", "mutag", "--data", "", "--lr", "1e10", "--clip", "0", "--epochs", "10", "--only-folds", "2", "--quiet"}, 1, "runs failed"},
		// A run that panics is that run's error: the others are
		// summarised and marked (test-panics panics for seed 1).
		{[]string{"train", "--model", "test-panics", "--data", "", "--seeds", "3", "--epochs", "3", "--parallel", "2", "--quiet"}, 1, "1 run(s) FAILED"},
		{[]string{"train", "--model", "test-panics", "--data", "", "--seeds", "3", "--epochs", "3", "--quiet"}, 1, "run 1 (seed 1): panic: test-panics"},
	})
	// --allow-divergence lets the GCN run finish, with finite values.
	code, _, errOut := runCLI("train", "--data", "", "--model", "gcn", "--lr", "1e6", "--epochs", "5", "--quiet", "--allow-divergence")
	if code == 0 == strings.Contains(errOut, "diverged") {
		t.Errorf("--allow-divergence: exit %d, %q", code, errOut)
	}
}

func TestHostileInvalidValues(t *testing.T) {
	var cases []hostileCase
	for _, c := range []struct{ flag, value, want string }{
		{"lr", "NaN", "--lr NaN: must be positive"}, {"lr", "-1", "--lr -1: must be positive"}, {"wd", "NaN", "--wd NaN: must be at least 0"},
		{"clip", "NaN", "clip NaN"}, {"clip", "-5", "clip -5"}, {"dropout", "NaN", "dropout NaN"},
		{"dropout", "-0.5", "dropout -0.5"}, {"hidden", "-5", "--hidden -5: must be in [1, 65536]"}, {"parallel", "-3", "--parallel -3"},
		{"epochs", "-1", "epochs -1"}, {"epochs", "0", "epochs 0"}, {"seeds", "0", "--seeds 0"},
		{"task", "foo", "--task must be node or graph"}, {"data", "/nonexistent/prcaps", "no such directory"},
		{"k", "x", "not an integer"}, {"routing", "magic", "unknown routing"}, {"lr-schedule", "linear", "unknown learning-rate schedule"},
	} {
		cases = append(cases, hostileCase{[]string{"train", "--data", "", "--" + c.flag, c.value}, 2, c.want})
	}
	for _, c := range []struct{ value, want string }{{"-1", "--only-folds -1"}, {"50", "--only-folds 50"}} {
		cases = append(cases, hostileCase{[]string{"train", "--task", "graph", "--data", "", "--only-folds", c.value}, 2, c.want})
	}
	cases = append(cases,
		hostileCase{[]string{"train", "--task", "graph", "--data", "", "--micro-batch-seeds", "maybe"}, 2, `--micro-batch-seeds "maybe": want on or off`},
		hostileCase{[]string{"train", "--data", "", "--micro-batch-seeds", "on"}, 2, "--micro-batch-seeds does not apply to node classification"},
		hostileCase{[]string{"train", "--data", "", "--folds", "5"}, 2, "--folds does not apply to node classification"},
		hostileCase{[]string{"train", "--data", "", "--model", "gcn", "--k", "3"}, 2, "--k does not apply"},
		hostileCase{[]string{"bench", "--seeds", "0"}, 2, "--seeds must be at least 1"},
		hostileCase{[]string{"bench", "--suite", "graph", "--micro-batch-seeds", "yes"}, 2, `--micro-batch-seeds "yes": want on or off`},
		hostileCase{[]string{"bench", "--data", "/nonexistent/prcaps"}, 2, "no such directory"},
	)
	runHostile(t, "invalid values", cases)
}

// Result files survive an interrupt: an existing --test-curve file and
// --val-logits files keep their content when the run is stopped, and
// bench --out fails before training when it cannot write.
func TestHostileResultsKept(t *testing.T) {
	dir := t.TempDir()
	curve := filepath.Join(dir, "curve.tsv")
	logits := filepath.Join(dir, "logits")
	os.MkdirAll(logits, 0o755)
	old := filepath.Join(logits, "MUTAG-fold00.tsv")
	os.WriteFile(curve, []byte("old curve\n"), 0o644)
	os.WriteFile(old, []byte("old logits\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // interrupted at once
	saved := stopContext
	stopContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { stopContext = saved }()
	code, _, errOut := runCLI("train", "--dataset", "mutag", "--data", "", "--epochs", "3", "--only-folds", "2",
		"--test-curve", curve, "--val-logits", logits, "--quiet")
	if code != 1 || !strings.Contains(errOut, "interrupted") {
		t.Errorf("interrupted run: exit %d, %q", code, errOut)
	}
	if b, _ := os.ReadFile(curve); string(b) != "old curve\n" {
		t.Errorf("--test-curve file after the interrupt: %q", b)
	}
	if b, _ := os.ReadFile(old); string(b) != "old logits\n" {
		t.Errorf("--val-logits file after the interrupt: %q", b)
	}
	stopContext = saved
	ro := filepath.Join(dir, "ro")
	os.MkdirAll(ro, 0o555)
	if os.Getuid() != 0 { // root writes anywhere
		code, _, errOut = runCLI("bench", "--data", "", "--models", "gcn", "--tables", "t3", "--dataset", "cora", "--epochs", "1", "--seeds", "1", "--out", ro)
		if code != 1 || !strings.Contains(errOut, "cannot write there") {
			t.Errorf("bench --out into a read-only directory: exit %d, %q", code, errOut)
		}
	}
	// Interrupted at once, bench still prints its (empty) JSON summary.
	stopContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	code, out, _ := runCLI("bench", "--data", "", "--models", "gcn", "--tables", "t3", "--dataset", "cora", "--epochs", "1", "--seeds", "1", "--json", "--quiet")
	var sum struct {
		Failed int `json:"failed"`
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || json.Unmarshal([]byte(lines[len(lines)-1]), &sum) != nil || sum.Failed != 1 {
		t.Errorf("interrupted bench: exit %d, output %q", code, out)
	}
}

// writeIn returns a function that writes a file of dir and returns its
// path.
func writeIn(dir string) func(name, content string) string {
	return func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
}

func TestHostileData(t *testing.T) {
	dir := t.TempDir()
	write := writeIn(dir)
	edges := write("e.csv", "0,1\n1,2\n2,3\n3,0\n")
	oneClass := write("one.csv", "0,0\n1,0\n2,0\n3,0\n")
	three := write("three.csv", "0,0\n1,1\n2,1\n")
	long := write("long.csv", strings.Repeat("\x00", 1<<20)+",1\n")
	tu := filepath.Join(dir, "tu", "E")
	os.MkdirAll(tu, 0o755)
	os.WriteFile(filepath.Join(tu, "E_A.txt"), nil, 0o644)
	os.WriteFile(filepath.Join(tu, "E_graph_indicator.txt"), []byte("1\n1\n2\n2\n3\n3\n4\n4\n"), 0o644)
	os.WriteFile(filepath.Join(tu, "E_graph_labels.txt"), []byte("1\n-1\n1\n-1\n"), 0o644)
	runHostile(t, "data", []hostileCase{
		{[]string{"train", "--edges", edges, "--labels", oneClass, "--epochs", "2", "--quiet"}, 1, "1 class(es)"},
		{[]string{"train", "--edges", edges, "--labels", three, "--epochs", "2", "--quiet"}, 1, "0 test nodes"},
		{[]string{"train", "--task", "graph", "--dataset", tu, "--epochs", "1", "--folds", "2", "--quiet"}, 1, "none of the 4 graphs of E has an edge"},
		// A 1 MB line of NUL bytes (taken as a header) is not echoed whole.
		{[]string{"train", "--edges", edges, "--labels", long, "--epochs", "1", "--quiet"}, 1, "no labels"},
	})
}

// Class "unbounded reads": every input is read under a bound, so a device
// (which reports size 0 and never ends) or a file past the bound is an
// error naming it at once, never a read until the process dies.
func TestHostileUnboundedReads(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	write := writeIn(dir)
	edges := write("e.csv", "0,1\n1,2\n2,3\n3,0\n")
	labels := write("y.csv", "0,0\n1,1\n2,0\n3,1\n")
	huge := filepath.Join(dir, "huge.csv")
	f, _ := os.Create(huge)
	f.Truncate(data.MaxFileBytes + 1) // sparse: never written, never read
	f.Close()
	zero := "/dev/zero: is a character device"
	runHostile(t, "unbounded reads", []hostileCase{
		{[]string{"train", "--edges", "/dev/zero", "--labels", labels, "--quiet"}, 1, zero},
		{[]string{"train", "--edges", edges, "--labels", "/dev/zero", "--quiet"}, 1, zero},
		{[]string{"train", "--edges", edges, "--labels", labels, "--features", "/dev/zero", "--quiet"}, 1, zero},
		{[]string{"train", "--edges", huge, "--labels", labels, "--quiet"}, 1, huge + ": more than 2147483648 bytes"},
		{[]string{"predict", "--model", "/dev/zero", "--data", ""}, 1, zero},
		{[]string{"serve", "--model", "/dev/zero"}, 1, zero},
		{[]string{"plot", "--out", dir, "/dev/zero"}, 1, zero},
		{[]string{"tune", "--grid", "/dev/zero", "--data", ""}, 2, "--grid " + zero},
	})
}

// Class "outputs destroy inputs or special files": an output flag aimed at
// an input of the same command, at another output, at a file inside an
// input directory, or at something that is not a regular file is a usage
// error naming both, before anything is read or written; the input and the
// special file are untouched.
func TestHostileOutputs(t *testing.T) {
	dir := t.TempDir()
	write := writeIn(dir)
	edges := write("e.csv", "0,1\n1,2\n2,3\n3,0\n")
	labels := write("y.csv", "0,0\n1,1\n2,0\n3,1\n")
	grid := write("g.json", `{"model": "gcn", "options": {"hidden": [8]}}`)
	link := filepath.Join(dir, "link")
	os.Symlink(filepath.Join(dir, "target"), link)
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	tu := filepath.Join(dir, "tu", "E")
	os.MkdirAll(tu, 0o755)
	tuA := filepath.Join(tu, "E_A.txt")
	os.WriteFile(tuA, []byte("1, 2\n"), 0o644)
	root := filepath.Join(dir, "root")
	os.MkdirAll(filepath.Join(root, "planetoid"), 0o755)
	rootFile := filepath.Join(root, "planetoid", "ind.cora.x")
	os.WriteFile(rootFile, []byte("x"), 0o644)
	// The same file by another name: a hard link, and a path through a
	// linked directory.
	hard := filepath.Join(dir, "hard.csv")
	os.Link(labels, hard)
	linkDir := filepath.Join(dir, "linkdir")
	os.Symlink(dir, linkDir)
	notDir := write("notdir", "")
	train := []string{"train", "--edges", edges, "--labels", labels, "--epochs", "1", "--quiet"}
	with := func(args ...string) []string { return append(slices.Clone(train), args...) }
	runHostile(t, "outputs", []hostileCase{
		{with("--save", labels), 2, "--save " + labels + " is the --labels input file"},
		{with("--curves", edges), 2, "--curves " + edges + " is the --edges input file"},
		{with("--embeddings", hard), 2, "is the --labels input file"},
		{with("--cpuprofile", filepath.Join(linkDir, "e.csv")), 2, "is the --edges input file"},
		{with("--save", "/dev/null"), 2, "--save /dev/null: is a character device"},
		{with("--curves", fifo), 2, "--curves " + fifo + ": is a named pipe (FIFO)"},
		{with("--save", link), 2, "is a symbolic link"},
		{with("--save", dir), 2, "is a directory"},
		{with("--save", filepath.Join(dir, "m.st"), "--curves", filepath.Join(dir, ".", "m.st")), 2, "--save and --curves name the same file"},
		{[]string{"train", "--task", "graph", "--dataset", tu, "--test-curve", tuA, "--quiet"}, 2, "inside --dataset " + tu},
		{[]string{"train", "--data", root, "--save", rootFile, "--quiet"}, 2, "inside --data " + filepath.Join(root, "planetoid")},
		{[]string{"tune", "--grid", grid, "--data", "", "--log", grid}, 2, "--log " + grid + " is the --grid input file"},
		{[]string{"tune", "--grid", grid, "--data", "", "--log", fifo}, 2, "is a named pipe"},
		{[]string{"bench", "--data", "", "--log", "/dev/null"}, 2, "--log /dev/null: is a character device"},
		{[]string{"bench", "--data", "", "--log", filepath.Join(dir, "l"), "--cpuprofile", filepath.Join(dir, "l")}, 2, "--log and --cpuprofile name the same file"},
		{[]string{"bench", "--data", "", "--out", notDir}, 2, "--out " + notDir + ": is a regular file, not a directory"},
		{[]string{"plot", "--out", notDir, edges}, 2, "is a regular file, not a directory"},
	})
	for p, want := range map[string]string{labels: "0,0\n1,1\n2,0\n3,1\n", edges: "0,1\n1,2\n2,3\n3,0\n", tuA: "1, 2\n", rootFile: "x"} {
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("%s now reads %q", p, b)
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v, %v", st.Mode(), err)
	}
	// A new path, and an existing regular file that is no input, are fine.
	saved := filepath.Join(dir, "new", "..", "m.st")
	if code, _, errOut := runCLI(with("--save", saved, "--curves", write("old.jsonl", "old"))...); code != 0 {
		t.Errorf("--save to a new path: exit %d, %s", code, errOut)
	}
}

// An interrupted bench --out keeps the earlier table files: the table it
// prints holds only interrupted cells, and writing it would replace a
// finished result with a table of failures.
func TestHostileBenchOutKept(t *testing.T) {
	out := t.TempDir()
	md, csv := filepath.Join(out, "t3.md"), filepath.Join(out, "t3.csv")
	os.WriteFile(md, []byte("old table\n"), 0o644)
	os.WriteFile(csv, []byte("old,csv\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // interrupted at once
	saved := stopContext
	stopContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { stopContext = saved }()
	code, _, errOut := runCLI("bench", "--data", "", "--models", "gcn", "--tables", "t3", "--dataset", "cora", "--epochs", "1", "--seeds", "1", "--out", out)
	if code != 1 || !strings.Contains(errOut, "not writing "+filepath.Join(out, "t3")+".md and .csv") {
		t.Errorf("interrupted bench --out: exit %d, %q", code, errOut)
	}
	for p, want := range map[string]string{md: "old table\n", csv: "old,csv\n"} {
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("%s after the interrupted bench: %q", p, b)
		}
	}
	stopContext = saved // uninterrupted, the table replaces them
	if code, _, errOut := runCLI("bench", "--data", "", "--models", "gcn", "--tables", "t3", "--dataset", "cora", "--epochs", "1", "--seeds", "1", "--out", out, "--quiet"); code != 0 {
		t.Fatalf("bench --out: exit %d, %s", code, errOut)
	}
	if b, _ := os.ReadFile(md); !strings.Contains(string(b), "Cora") {
		t.Errorf("%s after a finished bench: %q", md, b)
	}
}

// failingWriter fails every write, as /dev/full does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// Output lost to a failing stdout (`prcaps train > /dev/full`) is exit 1
// with a message, whether or not the command checked its writes.
func TestHostileStdoutErrors(t *testing.T) {
	for _, args := range [][]string{
		{"train", "--data", "", "--model", "gcn", "--epochs", "1", "--quiet"},
		{"train", "--data", "", "--model", "gcn", "--epochs", "1", "--quiet", "--json"},
		{"datasets", "--data", ""},
	} {
		var errOut strings.Builder
		code := run(args, failingWriter{}, &errOut)
		if code != 1 || !strings.Contains(errOut.String(), "writing the output: no space left on device") {
			t.Errorf("prcaps %s > /dev/full: exit %d, %q", strings.Join(args, " "), code, errOut.String())
		}
	}
}

// plot of a curves file whose losses overflow an axis (1e308 then -1e308)
// once hung; it is an error naming the file.
func TestHostilePlotOverflow(t *testing.T) {
	dir := t.TempDir()
	curves := filepath.Join(dir, "c.jsonl")
	os.WriteFile(curves, []byte(`{"dataset":"d","model":"m","run":0,"epoch":1,"loss":1e308,"train_acc":0.5,"val_acc":0.5,"lr":0.01}
{"dataset":"d","model":"m","run":0,"epoch":2,"loss":-1e308,"train_acc":0.5,"val_acc":0.5,"lr":0.01}
`), 0o644)
	runHostile(t, "plot overflow", []hostileCase{
		{[]string{"plot", "--out", dir, curves}, 1, curves + ": training loss at epoch 1: 1e+308"},
	})
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestUsageAndExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string // in stdout+stderr
	}{
		{nil, 2, "Commands:"},
		{[]string{"help"}, 0, "prcaps <command>"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"train", "-h"}, 0, "-seeds"},
		{[]string{"train", "--split", "weird"}, 2, "--split must be random or public"},
		{[]string{"train", "--seeds", "0"}, 2, "--seeds 0: must be in [1, "},
		{[]string{"train", "--model", "nope", "--epochs", "1"}, 2, `--model "nope": no such model (available: dgcnn, gat`},
		{[]string{"train", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"train", "--dataset", "citeseer", "--data", ""}, 1, "pass --data DIR"},
		{[]string{"datasets", "--data", "", "--dataset", "nosuchset"}, 1, "nosuchset"},
		{[]string{"train", "--labels", "y.csv"}, 2, "--features and --labels go with --edges"},
		{[]string{"train", "--edges", "e.csv"}, 2, "--edges needs --labels"},
		{[]string{"train", "--edges", "/nonexistent/e.csv", "--labels", "y.csv"}, 1, "/nonexistent/e.csv"},
	} {
		code, out, errOut := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("prcaps %v: exit %d, output %q; want exit %d and %q", tc.args, code, out+errOut, tc.code, tc.want)
		}
	}
}

func TestDatasetsEmbedded(t *testing.T) {
	code, out, errOut := runCLI("datasets", "--data", "", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want Cora and MUTAG, got %q", out)
	}
	var cora struct {
		Dataset         string
		Nodes           int
		UndirectedEdges int `json:"undirected_edges"`
		Features        int
		Classes         int
	}
	if err := json.Unmarshal([]byte(lines[0]), &cora); err != nil {
		t.Fatal(err)
	}
	if cora.Dataset != "Cora" || cora.Nodes != 2708 || cora.UndirectedEdges != 5278 || cora.Features != 1433 || cora.Classes != 7 {
		t.Errorf("Cora stats %+v", cora)
	}
	if !strings.Contains(errOut, "citeseer") {
		t.Errorf("stderr should list the datasets that need --data: %q", errOut)
	}
}

func TestTrainJSONContract(t *testing.T) {
	code, out, errOut := runCLI("train", "--data", "", "--epochs", "3", "--seeds", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 2 run objects and a summary, got %d lines: %q", len(lines), out)
	}
	var summary map[string]any
	if err := json.Unmarshal([]byte(lines[2]), &summary); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"dataset", "task", "model", "protocol", "runs", "mean_acc", "std_acc", "params", "train_seconds", "seconds_per_run", "epochs"} {
		if _, ok := summary[k]; !ok {
			t.Errorf("summary lacks %q: %s", k, lines[2])
		}
	}
	if summary["runs"] != 2.0 || summary["epochs"] != 3.0 || summary["dataset"] != "Cora" {
		t.Errorf("summary %s", lines[2])
	}
	var run map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &run); err != nil {
		t.Fatal(err)
	}
	if run["seed"] != 0.0 || run["run"] != 0.0 {
		t.Errorf("first run object %s", lines[0])
	}
	// Progress goes to stderr as plain lines (not a terminal) even with
	// --json, one per finished run, and never into stdout's JSON.
	if !strings.Contains(errOut, "run 1/2 (seed 0): test") || !strings.Contains(errOut, "run 2/2 (seed 1): test") || strings.Contains(errOut, "\r") {
		t.Errorf("stderr should have plain progress lines:\n%s", errOut)
	}
	if _, _, quiet := runCLI("train", "--data", "", "--epochs", "1", "--json", "--quiet"); quiet != "" {
		t.Errorf("--quiet printed %q", quiet)
	}
}

func TestTrainOnPlainFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Two triangles joined by one edge; the label is the triangle.
	edges := write("edges.csv", "src,dst\n0,1\n1,2\n2,0\n3,4\n4,5\n5,3\n2,3\n")
	labels := write("labels.csv", "id,label\n0,a\n1,a\n2,a\n3,b\n4,b\n5,b\n")
	code, out, errOut := runCLI("train", "--edges", edges, "--labels", labels, "--epochs", "5", "--hidden", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"dataset":"edges"`) {
		t.Errorf("output %q", out)
	}
}

// Every command's help names what each flag takes and shows no zero
// default where the text says what the default is.
func TestHelpNamesFlagTypes(t *testing.T) {
	for _, cmd := range []string{"train", "bench", "tune", "predict", "serve", "plot", "datasets"} {
		code, _, help := runCLI(cmd, "-h")
		if code != 0 {
			t.Fatalf("prcaps %s -h: exit %d", cmd, code)
		}
		for _, line := range strings.Split(help, "\n") {
			if strings.HasPrefix(line, "  -") && strings.HasSuffix(line, " value") {
				t.Errorf("prcaps %s -h: %q does not say what the flag takes", cmd, line)
			}
			if strings.Count(line, "default") > 1 && strings.HasSuffix(line, "(default 0)") {
				t.Errorf("prcaps %s -h: %q", cmd, line)
			}
		}
	}
	// train's help is the chosen model's: its options, its defaults and its
	// recipe's, and each option's range from its tags; prcapsnet's two
	// networks show theirs by task.
	for _, tc := range []struct {
		args        []string
		want, wrong []string
	}{
		{[]string{"train", "-h"},
			[]string{"  -hidden int\n", "  -lr float\n", "  -activation string\n", "training epochs, 1 to 1e6 (defaults: node 200, graph 100)",
				"graph: training mini-batch size, in graphs, 1 to 1048576 (default 16)", "The model options and training defaults below are prcapsnet's"},
			[]string{"-heads", "-hops", "-alpha"}},
		{[]string{"train", "--model", "gin", "-h"},
			[]string{"training epochs, 1 to 1e6 (default 350)", "mini-batch size, in graphs, 1 to 1048576 (default 32)", "(default 50)",
				"layers counting the input, so layers−1 GIN layers, 2 to 64 (default 5)"},
			[]string{"-activation", "-k int", "routing layers L"}},
		{[]string{"train", "--model", "ssgc", "-h"}, []string{"averaged propagation, 0 to 1 (default 0.05)", "1 to 1e6 (default 100)", "(defaults: node 0.2, graph 0.01)"}, []string{"-routing"}},
	} {
		_, _, help := runCLI(tc.args...)
		for _, want := range tc.want {
			if !strings.Contains(help, want) {
				t.Errorf("prcaps %s lacks %q", strings.Join(tc.args, " "), want)
			}
		}
		for _, wrong := range tc.wrong {
			if strings.Contains(help, wrong) {
				t.Errorf("prcaps %s shows %q", strings.Join(tc.args, " "), wrong)
			}
		}
	}
}

package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/experiment"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/report"
)

// TestBenchCLIJSON runs `prcaps bench` on the embedded Cora with GCN only:
// one object per protocol run, then the summary with the tables.
func TestBenchCLIJSON(t *testing.T) {
	code, out, errOut := runCLI("bench", "--data", "", "--models", "gcn", "--tables", "t3,t4", "--dataset", "cora", "--epochs", "2", "--seeds", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 2 run objects and a summary, got %q", out)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"table", "variant", "dataset", "task", "model", "protocol", "runs", "mean_acc", "std_acc", "params", "train_seconds", "seconds_per_run", "epochs"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("record lacks %q: %s", k, lines[0])
		}
	}
	if rec["table"] != "t3" || rec["model"] != "gcn" || rec["runs"] != 2.0 || rec["epochs"] != 2.0 {
		t.Errorf("record %s", lines[0])
	}
	var sum struct {
		ProtocolRuns int             `json:"protocol_runs"`
		Failed       int             `json:"failed"`
		Tables       []*report.Table `json:"tables"`
	}
	if err := json.Unmarshal([]byte(lines[2]), &sum); err != nil {
		t.Fatal(err)
	}
	// t4's GCN row is t3's GCN run: it is run once and reused, with a note.
	if sum.ProtocolRuns != 1 || sum.Failed != 0 || len(sum.Tables) != 2 || sum.Tables[1].Name != "t4" || len(sum.Tables[1].Rows) != 1 ||
		!strings.Contains(strings.Join(sum.Tables[1].Notes, " "), "same configuration as t3/GCN") {
		t.Errorf("summary %s", lines[2])
	}
	var rec2 map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &rec2); err != nil || rec2["table"] != "t4" || rec2["mean_acc"] != rec["mean_acc"] {
		t.Errorf("t4 record %s (%v)", lines[1], err)
	}
}

func TestBenchSpeed(t *testing.T) {
	code, out, errOut := runCLI("bench", "--speed", "--data", "", "--models", "gcn", "--epochs", "2", "--repeat", "3", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "median of 3") || !regexp.MustCompile(`\| GCN +\| +2 \|`).MatchString(out) {
		t.Errorf("speed table:\n%s", out)
	}
}

func TestBenchScale(t *testing.T) {
	code, out, errOut := runCLI("bench", "--scale", "--edges", "3e3", "--epochs", "2", "--json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"table":"scale"`) || !strings.Contains(out, `"ns_per_link"`) {
		t.Errorf("scale records:\n%s", out)
	}
}

func TestBenchUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--suite", "bogus"}, `unknown suite "bogus"`},
		{[]string{"--tables", "t9"}, `unknown table "t9"`},
		{[]string{"--suite", "node", "--tables", "t4"}, `unknown table "t4"`},
		{[]string{"--seeds", "0"}, "--seeds must be at least 1"},
		{[]string{"--models", "nope"}, `unknown model "nope"`},
		{[]string{"--split", "x"}, "--split must be"},
		{[]string{"--edges", "1e5"}, "--edges goes with --scale"},
		{[]string{"--scale", "--edges", "1.5"}, `--edges: "1.5" is not a whole number`},
		{[]string{"--scale", "--speed"}, "two suites"},
	} {
		code, out, errOut := runCLI(append([]string{"bench"}, tc.args...)...)
		if code != 2 || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("bench %v: exit %d, %q; want exit 2 and %q", tc.args, code, out+errOut, tc.want)
		}
	}
}

func TestBenchList(t *testing.T) {
	code, out, errOut := runCLI("bench", "--list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, name := range []string{"t2", "t3", "t4", "t5", "curvature", "iters", "dims", "k", "gates", "layers"} {
		if !strings.Contains(out, "  "+name+" ") {
			t.Errorf("--list lacks table %q:\n%s", name, out)
		}
	}
}

// bench --cpuprofile writes a pprof profile, as train's does.
func TestBenchCPUProfile(t *testing.T) {
	checkCPUProfile(t, "bench", "--data", "", "--models", "gcn", "--tables", "t3", "--dataset", "cora", "--epochs", "2",
		"--seeds", "1", "--quiet")
}

// The graph suite runs its cells in one pool of folds; its record of a
// dataset is the summary `prcaps train` gives under the same protocol.
func TestBenchGraphMatchesTrain(t *testing.T) {
	proto := []string{"--data", "", "--folds", "3", "--epochs", "2", "--parallel", "2", "--json", "--quiet"}
	code, out, errOut := runCLI(append([]string{"bench", "--suite", "graph", "--models", "prcapsnet", "--dataset", "mutag"}, proto...)...)
	if code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var rec struct {
		Table string `json:"table"`
		record.Summary
	}
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil || rec.Table != "t2" || rec.Dataset != "MUTAG" || rec.Runs != 3 {
		t.Fatalf("first line %q (%v): want t2's MUTAG record over 3 folds", lines[0], err)
	}
	var bs experiment.Result
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &bs); err != nil || bs.ProtocolRuns != 1 || bs.Failed != 0 {
		t.Errorf("last line %q (%v): want one protocol run, none failed", lines[len(lines)-1], err)
	}
	code, out, errOut = runCLI(append([]string{"train", "--dataset", "mutag"}, proto...)...)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errOut)
	}
	lines = strings.Split(strings.TrimSpace(out), "\n")
	var sum struct{ record.Summary }
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(err)
	}
	if rec.MeanAcc != sum.MeanAcc || rec.StdAcc != sum.StdAcc || rec.MeanValAcc != sum.MeanValAcc || rec.Params != sum.Params || rec.Model != sum.Model {
		t.Errorf("bench record %+v, train summary %+v", rec.Summary, sum.Summary)
	}
}

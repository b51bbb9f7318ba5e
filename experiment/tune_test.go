package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/stats"
	"github.com/prcaps/prcaps/train"
)

func writeGrid(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "grid.json")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGridAssignmentsOrder(t *testing.T) {
	g, err := ReadGrid(writeGrid(t, `{"model": "gcn", "options": {"lr": [0.1, 0.01], "hidden": [8, 16, 32], "decay-all": [true]}}`))
	if err != nil {
		t.Fatal(err)
	}
	as := g.Assignments()
	if len(as) != 6 {
		t.Fatalf("%d assignments, want 6", len(as))
	}
	// decay-all, hidden, lr: the first varies slowest.
	want := []string{"decay-all=true hidden=8 lr=0.1", "decay-all=true hidden=8 lr=0.01", "decay-all=true hidden=16 lr=0.1"}
	for i, w := range want {
		if got := assignmentText(as[i]); got != w {
			t.Errorf("assignment %d = %q, want %q", i, got, w)
		}
	}
}

func TestReadGridRejects(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`{"model": "gcn"}`, "no \"options\""},
		{`{"options": {"hidden": [8]}}`, "no \"model\""},
		{`{"model": "gcn", "options": {"hidden": []}}`, "no values"},
		{`{"model": "gcn", "options": {"hidden": [[8]]}}`, "not a number"},
		{`{"model": "gcn", "options": {"hidden": [8, 8]}}`, "twice"},
		{`{"model": "gcn", "options": {"hidden": [8]}, "seeds": 3}`, "unknown field"},
		{`{"model": "gcn", "options": `, "unexpected EOF"},
		{`{"model": "gcn", "options": {"hidden": [8]}} garbage`, "data after the grid's JSON object"},
		{`{"model": "gcn", "options": {"hidden": [8]}}{"model": "gat"}`, "data after the grid's JSON object"},
	} {
		p := writeGrid(t, tc.text)
		_, err := ReadGrid(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming the file and %q", tc.text, err, tc.want)
		}
	}
}

// An unknown option or an invalid value fails before any training.
func TestTuneChecksEveryAssignmentFirst(t *testing.T) {
	for _, opts := range []map[string][]string{
		{"hidden": {"8"}, "hiden": {"8"}},
		{"hidden": {"8", "-3"}},
		{"lr": {"0.01", "-1"}},
	} {
		trained := false
		_, err := Tune{Grid: Grid{Model: "gcn", Options: opts}, Dataset: embedded(t, "cora"),
			Node: train.NodeProtocol{Seeds: 1}, Progress: epochProgress{&trained}}.Do()
		if err == nil || trained {
			t.Errorf("%v: error %v, trained %v", opts, err, trained)
		}
	}
}

// The search picks the best mean validation accuracy, logs every trial
// without test scores, and a second search over the log trains only the
// chosen configuration, with the same result; a log whose last line was
// cut short resumes after its last whole record.
func TestTuneChoosesOnValidationAndResumes(t *testing.T) {
	ds := embedded(t, "cora")
	log := filepath.Join(t.TempDir(), "trials.jsonl")
	tune := Tune{
		Grid:    Grid{Model: "gcn", Options: map[string][]string{"hidden": {"4", "16"}, "epochs": {"3", "6"}}},
		Dataset: ds, Node: train.NodeProtocol{Seeds: 2}, Log: log,
	}
	var lines []string
	tune.Progress = linesProgress{&lines}
	res, err := tune.Do()
	if err != nil {
		t.Fatal(err)
	}
	tune.Progress = nil
	for i, l := range lines { // the search's progress shows no test score
		if strings.HasPrefix(l, "chosen") {
			break
		}
		if strings.Contains(l, "test") {
			t.Errorf("progress line %d shows a test score: %s", i, l)
		}
	}
	if len(res.Trials) != 4 || res.Reused != 0 {
		t.Fatalf("%d trials, %d reused", len(res.Trials), res.Reused)
	}
	for i, tr := range res.Trials {
		if tr.ValMean > res.Trials[res.Best].ValMean || (tr.ValMean == res.Trials[res.Best].ValMean && i < res.Best) {
			t.Errorf("trial %d (val %v) beats the chosen %d (val %v)", i, tr.ValMean, res.Best, res.Trials[res.Best].ValMean)
		}
	}
	if len(res.Stats) != len(res.Trials) || !res.Stats[res.Best].TiedBest {
		t.Errorf("stats %+v for %d trials, best %d", res.Stats, len(res.Trials), res.Best)
	}
	for i, tr := range res.Trials {
		if len(tr.ValAccs) != 2 || !res.Stats[i].Paired {
			t.Errorf("trial %d: per-seed validation accuracies %v, stats %+v", i, tr.ValAccs, res.Stats[i])
		}
	}
	if res.Final.Runs != 2 || res.Final.MeanValAcc != res.Trials[res.Best].ValMean {
		t.Errorf("final run %+v, chosen trial %+v", res.Final, res.Trials[res.Best])
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 4 || strings.Contains(string(b), "test") {
		t.Errorf("log has %d lines (want 4) or mentions a test score:\n%s", n, b)
	}
	// Cut the last record short, as a crash during its write would.
	if err := os.WriteFile(log, b[:len(b)-20], 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := tune.Do()
	if err != nil {
		t.Fatal(err)
	}
	noTime := func(ts []record.Trial) []record.Trial { // the retrained trial's time differs
		out := slices.Clone(ts)
		for i := range out {
			out[i].Seconds = 0
		}
		return out
	}
	if again.Reused != 3 || again.Best != res.Best || !reflect.DeepEqual(noTime(again.Trials), noTime(res.Trials)) ||
		again.Final.MeanAcc != res.Final.MeanAcc {
		t.Errorf("resumed search: %d reused (want 3), best %d (want %d), final %v (want %v)",
			again.Reused, again.Best, res.Best, again.Final.MeanAcc, res.Final.MeanAcc)
	}
	if b2, _ := os.ReadFile(log); strings.Count(string(b2), "\n") != 4 {
		t.Errorf("log after resuming:\n%s", b2)
	}
	// A damaged line that is not the last is an error naming the file.
	if err := os.WriteFile(log, append([]byte("garbage\n"), b...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := tune.Do(); err == nil || !strings.Contains(err.Error(), log+":1") {
		t.Errorf("damaged log: %v", err)
	}
}

func TestTuneNeedsNodeDataset(t *testing.T) {
	_, err := Tune{Grid: Grid{Model: "gcn", Options: map[string][]string{"hidden": {"8"}}}, Dataset: embedded(t, "mutag")}.Do()
	if err == nil || err.Error() != "experiment: tune needs a node-classification dataset" {
		t.Errorf("graph dataset: %v", err)
	}
}

type linesProgress struct{ lines *[]string }

func (p linesProgress) Line(format string, args ...any) {
	*p.lines = append(*p.lines, fmt.Sprintf(format, args...))
}
func (p linesProgress) Update(string, int, int, string) {}

// Trials are compared with the chosen one as the bench compares cells:
// paired by seed on their validation accuracies, Wilcoxon and t-test,
// Holm over the compared trials; a trial from a log without per-seed
// accuracies, or with other seeds, is not compared.
func TestCompareTrials(t *testing.T) {
	best := []float64{.90, .85, .88, .92, .87, .89, .91, .86, .90, .88}
	worse, level := make([]float64, 10), make([]float64, 10)
	for i, a := range best {
		worse[i] = a - 0.05 - 0.001*float64(i)
		level[i] = a + 0.01*float64(i%3-1)
	}
	trials := []record.Trial{{ValAccs: worse}, {ValAccs: best}, {ValAccs: level}, {ValMean: 0.5}, {ValAccs: level, FirstSeed: 10}}
	st := compareTrials(trials, 1)
	w, _ := stats.Wilcoxon(best, worse)
	tt, _ := stats.PairedT(best, worse)
	lw, _ := stats.Wilcoxon(best, level)
	holm := stats.Holm([]float64{w.P, lw.P})
	if !st[1].Paired || !st[1].TiedBest || st[1].PVsBest != nil {
		t.Errorf("chosen trial %+v", st[1])
	}
	if a := st[0]; !a.Paired || a.TiedBest || *a.PVsBest != w.P || *a.PTVsBest != tt.P || *a.PHolm != holm[0] {
		t.Errorf("worse trial %+v, want Wilcoxon %v, t %v, Holm %v, not tied", a, w.P, tt.P, holm[0])
	}
	if c := st[2]; !c.Paired || !c.TiedBest || *c.PHolm != holm[1] {
		t.Errorf("level trial %+v, want tied at Holm %v", c, holm[1])
	}
	for _, i := range []int{3, 4} {
		if st[i].Paired || st[i].TiedBest || st[i].PVsBest != nil {
			t.Errorf("trial %d (no per-seed accuracies, or other seeds) compared: %+v", i, st[i])
		}
	}
}

// epochProgress notes that an epoch was trained.
type epochProgress struct{ trained *bool }

func (p epochProgress) Line(string, ...any)             {}
func (p epochProgress) Update(string, int, int, string) { *p.trained = true }

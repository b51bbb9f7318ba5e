package main

import (
	"encoding/json"
	"strings"
	"testing"
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
}

func TestTrainGraphUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"train", "--task", "node", "--dataset", "mutag", "--data", ""}, 2, "--task graph"},
		{[]string{"train", "--task", "graph", "--dataset", "cora", "--data", ""}, 2, "node-classification dataset"},
		{[]string{"train", "--task", "graph", "--folds", "1"}, 2, "--folds must be at least 2"},
		{[]string{"train", "--task", "graph", "--model", "gcn"}, 2, "unknown graph model"},
		{[]string{"train", "--task", "graph", "--routing", "euclidean", "--epochs", "1"}, 1, "supports acr and pcr"},
		{[]string{"train", "--task", "graph", "--input-dropout", "1", "--epochs", "1"}, 1, "input dropout 1"},
		{[]string{"train", "--input-dropout", "1", "--epochs", "1"}, 1, "input dropout 1"},
	} {
		code, out, errOut := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("prcaps %v: exit %d, output %q; want exit %d and %q", tc.args, code, out+errOut, tc.code, tc.want)
		}
	}
}

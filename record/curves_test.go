package record

import (
	"bytes"
	"strings"
	"testing"
)

// WriteCurves orders the epochs by run then epoch, and ReadCurves reads
// them back; a record that is not a training epoch, an unknown field or
// an empty file is an error naming the file.
func TestCurvesRoundTrip(t *testing.T) {
	recs := []EpochRecord{
		{Dataset: "Cora", Model: "prcapsnet", Run: 1, Epoch: 1, Loss: 2, Best: true},
		{Dataset: "Cora", Model: "prcapsnet", Run: 0, Epoch: 2, Loss: 1, LR: 0.005, Curvatures: []Curvature{{Name: "beta", Beta: -1.5}}},
		{Dataset: "Cora", Model: "prcapsnet", Run: 0, Epoch: 1, Loss: 3, TrainAcc: 0.5, ValAcc: 0.25, Best: true},
	}
	var buf bytes.Buffer
	if err := WriteCurves(&buf, recs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want0 := `{"dataset":"Cora","model":"prcapsnet","run":0,"epoch":1,"loss":3,"train_acc":0.5,"val_acc":0.25,"lr":0,"best":true}`
	if len(lines) != 3 || lines[0] != want0 || !strings.Contains(lines[1], `"curvatures":[{"name":"beta","beta":-1.5}]`) {
		t.Fatalf("written:\n%s", buf.String())
	}
	back, err := ReadCurves(buf.Bytes(), "c.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 3 || back[0].Run != 0 || back[0].Epoch != 1 || back[1].Epoch != 2 || back[2].Run != 1 || back[1].Curvatures[0].Beta != -1.5 {
		t.Errorf("read back %+v", back)
	}
	for _, bad := range []string{`{"run":0,"epoch":0}`, `{"run":-1,"epoch":1}`, `{"run":0,"epoch":1,"surprise":1}`, ``, `{"run":0,"epoch":1`} {
		if _, err := ReadCurves([]byte(bad), "x.jsonl"); err == nil || !strings.Contains(err.Error(), "x.jsonl") {
			t.Errorf("ReadCurves(%q): %v, want an error naming x.jsonl", bad, err)
		}
	}
}

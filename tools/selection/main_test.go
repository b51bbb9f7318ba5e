package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBestBreaksTies(t *testing.T) {
	acc := []float64{0.5, 0.7, 0.6, 0.7, 0.7}
	loss := []float64{1, 0.9, 0.8, 0.6, 0.7}
	for _, tc := range []struct {
		name string
		got  int
		want int
	}{
		{"tie by loss", best(acc, true, loss, false), 3},
		{"tie to the later", best(acc, true, nil, true), 4},
		{"tie to the earlier", best(acc, true, nil, false), 1},
		{"lowest loss", best(loss, false, nil, false), 3},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: epoch index %d, want %d", tc.name, tc.got, tc.want)
		}
	}
	if s := smooth([]float64{0, 3, 6}, 3); s[0] != 1.5 || s[1] != 3 || s[2] != 4.5 {
		t.Errorf("smooth = %v, want [1.5 3 4.5]", s)
	}
}

func TestReadRunRejectsBadFiles(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"fields", "1\t4\t0\t0.5\n", "fields"},
		{"label", "1\t4\t2\t0.5\t0.1\n", "out of range"},
		{"logit", "1\t4\t0\tNaN\t0.1\n", "finite"},
		{"epoch order", "1\t4\t0\t0.5\t0.1\n3\t4\t0\t0.5\t0.1\n", "epoch 3 after epoch 1"},
		{"graph order", "1\t4\t0\t0.5\t0.1\n1\t5\t1\t0.5\t0.1\n2\t5\t1\t0.5\t0.1\n", "not the next"},
		{"short epoch", "1\t4\t0\t0.5\t0.1\n1\t5\t1\t0.5\t0.1\n2\t4\t0\t0.5\t0.1\n", "epoch 2 has 1 graphs"},
		{"empty", "", "no epochs"},
	} {
		p := filepath.Join(t.TempDir(), "X-fold00.tsv")
		if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readRun(p); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming %s and %q", tc.name, err, p, tc.want)
		}
	}
}

// Two folds whose validation accuracy ties at the top: choosing the later
// of the tied epochs, which is also the one that stays right on the other
// half, beats the lower-loss tie-break.
func TestRunScoresRules(t *testing.T) {
	dir := t.TempDir()
	// Four graphs (two per class). Epoch 1: graphs 0 and 2 right, low loss;
	// epoch 2: all four right but with little margin; epoch 3: the same.
	lines := []string{
		"1\t0\t0\t3\t0", "1\t1\t0\t0\t3", "1\t2\t1\t0\t3", "1\t3\t1\t3\t0",
		"2\t0\t0\t0.1\t0", "2\t1\t0\t0.1\t0", "2\t2\t1\t0\t0.1", "2\t3\t1\t0\t0.1",
		"3\t0\t0\t0.1\t0", "3\t1\t0\t0.1\t0", "3\t2\t1\t0\t0.1", "3\t3\t1\t0\t0.1",
	}
	for _, f := range []string{"T-fold00.tsv", "T-fold01.tsv"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	if err := run(dir, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "T (2 folds)") || !strings.Contains(out.String(), "R2 max acc, tie latest                   B acc 1.0000") {
		t.Errorf("output:\n%s", out.String())
	}
	if err := run(t.TempDir(), &out); err == nil {
		t.Error("an empty directory gave no error")
	}
}

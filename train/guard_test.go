package train

import (
	"errors"
	"math"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
)

func TestDivergenceRule(t *testing.T) {
	for _, tc := range []struct {
		losses []float64
		fail   int // the epoch it fails at (1-based), 0: never
		off    bool
	}{
		{[]float64{2, 1.5, 1, 0.8}, 0, false},
		{[]float64{2, 300, 1, 300, 300}, 0, false},     // never three epochs in a row
		{[]float64{2, 201, 500, 1e4}, 4, false},        // over 100 × 2 at epochs 2, 3, 4
		{[]float64{0.01, 101, 101, 101}, 4, false},     // the reference is at least 1
		{[]float64{2, 1e9, 1e9, 1e9, 1e9}, 0, true},    // AllowDivergence
		{[]float64{500, 500, 500, 500, 500}, 0, false}, // high from the start, not running away
	} {
		d := divergence{off: tc.off}
		failed := 0
		for i, l := range tc.losses {
			if err := d.check(i+1, l, tc.losses[0]); err != nil {
				if !errors.Is(err, ErrDiverged) {
					t.Fatalf("error %v does not wrap ErrDiverged", err)
				}
				failed = i + 1
				break
			}
		}
		if failed != tc.fail {
			t.Errorf("losses %v (off %v): failed at epoch %d, want %d", tc.losses, tc.off, failed, tc.fail)
		}
	}
}

func TestCheckFinite(t *testing.T) {
	p := autodiff.NewParam[float32]("w", 1, 3)
	if err := checkFinite(1, []*autodiff.Var[float32]{p}); err != nil {
		t.Fatal(err)
	}
	p.Value.Data[2] = float32(math.Inf(-1))
	if err := checkFinite(4, []*autodiff.Var[float32]{p}); !errors.Is(err, ErrNonFinite) {
		t.Errorf("an infinite parameter: %v", err)
	}
}

// A learning rate far too large fails the run instead of reporting an
// accuracy.
func TestRunNodeStopsDivergence(t *testing.T) {
	ds := blobs(200)
	split := data.RandomSplit(ds.Y, 0, 0.6, 0.2)
	cfg := DefaultConfig()
	cfg.LR, cfg.Epochs, cfg.WeightDecay, cfg.Optimizer = 1e9, 20, 0, "adam"
	_, err := RunNode(newLinear(ds), ds, split, cfg, 0, nil)
	if !errors.Is(err, ErrDiverged) && !errors.Is(err, ErrNonFinite) {
		t.Errorf("lr 1e9: error %v, want a divergence", err)
	}
}

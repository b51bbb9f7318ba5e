package train

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
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
	for _, bad := range []float64{math.Inf(-1), math.Inf(1), math.NaN()} {
		p.Value.Data[2] = float32(bad)
		if err := checkFinite(4, []*autodiff.Var[float32]{p}); !errors.Is(err, ErrNonFinite) {
			t.Errorf("a parameter %v: %v", bad, err)
		}
	}
	p.Value.Data[2] = math.MaxFloat32 // large but finite
	if err := checkFinite(4, []*autodiff.Var[float32]{p}); err != nil {
		t.Errorf("a finite parameter: %v", err)
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

// panicky panics in its forward pass.
type panicky struct{ *linearModel }

func (m panicky) Forward(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	panic("boom")
}

// A run that panics or fails is that run's error: the other runs finish,
// the summary is over them and lists the failed ones, and the protocol
// returns an error naming them.
func TestRunNodeProtocolRunBoundary(t *testing.T) {
	ds := blobs(200)
	for _, parallel := range []int{1, 2} {
		build := func(seed uint64) (model.NodeModel, error) {
			switch seed {
			case 1:
				return panicky{newLinear(ds)}, nil
			case 3:
				return nil, errors.New("no model")
			}
			return newLinear(ds), nil
		}
		var finished []int
		s, err := RunNodeProtocol(ds, build, NodeProtocol{Seeds: 4, Parallel: parallel}, Config{Epochs: 3, LR: 0.05, Optimizer: "adam"},
			RunFunc(func(run int, _ Result) { finished = append(finished, run) }))
		if err == nil || !strings.Contains(err.Error(), "2 of 4 runs failed") || !strings.Contains(err.Error(), "run 1 (seed 1): panic: boom") {
			t.Errorf("parallel %d: error %v", parallel, err)
		}
		slices.Sort(finished)
		if s.Runs != 2 || len(s.Failed) != 2 || s.Failed[0].Run != 1 || s.Failed[1].Seed != 3 || !slices.Equal(finished, []int{0, 2}) {
			t.Errorf("parallel %d: %d runs summarised, failed %+v, finished %v", parallel, s.Runs, s.Failed, finished)
		}
	}
}

// A closed Stop ends the runs in training at their next epoch and starts
// no others; what finished before is summarised.
func TestStop(t *testing.T) {
	ds := blobs(200)
	stop := make(chan struct{})
	build := func(uint64) (model.NodeModel, error) { return newLinear(ds), nil }
	s, err := RunNodeProtocol(ds, build, NodeProtocol{Seeds: 3, Parallel: 1, Stop: stop}, Config{Epochs: 5, LR: 0.05, Optimizer: "adam"},
		EpochFunc(func(run int, e Epoch) {
			if run == 1 && e.Epoch == 2 {
				close(stop)
			}
		}))
	if !errors.Is(err, ErrInterrupted) || s.Runs != 1 || len(s.Failed) != 2 || !strings.Contains(s.Failed[1].Error, "before it started") {
		t.Errorf("node: %v; %d runs, failed %+v", err, s.Runs, s.Failed)
	}
	gds, _ := mutagFold(t)
	closed := make(chan struct{})
	close(closed)
	gs, err := RunGraphProtocol(gds, func(uint64) (model.GraphModel, error) { return newPoolNet(gds.NumFeatures, gds.NumClasses), nil },
		GraphProtocol{OnlyFolds: 2, Stop: closed}, Config{Epochs: 2, LR: 0.05, Optimizer: "adam"}, nil)
	if !errors.Is(err, ErrInterrupted) || gs.Runs != 0 || len(gs.Failed) != 2 {
		t.Errorf("graph: %v; %d runs, failed %+v", err, gs.Runs, gs.Failed)
	}
}

package train

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/optim"
)

// blobs is a node dataset without edges whose two classes are separated
// along the first feature: a linear model must learn it.
func blobs(n int) *data.NodeDataset {
	g, _ := data.NewGraph(n, nil, nil, data.EdgeOptions{})
	rng := rand.New(rand.NewPCG(7, 7))
	ds := &data.NodeDataset{Name: "blobs", Graph: g, NumClasses: 2, Y: make([]int32, n)}
	x := make([][]float32, n)
	for i := range x {
		ds.Y[i] = int32(i % 2)
		x[i] = []float32{float32(2*ds.Y[i]-1) + float32(rng.NormFloat64()*0.3), float32(rng.NormFloat64())}
	}
	ds.X.Dense = denseRows(x)
	return ds
}

// linearModel is logits = x·W + b.
type linearModel struct {
	x      *autodiff.Var[float32]
	w, b   *autodiff.Var[float32]
	nan    bool // poison the output, to test the non-finite guard
	frozen bool // never update: validation accuracy never improves
}

func newLinear(ds *data.NodeDataset) *linearModel {
	m := &linearModel{
		x: autodiff.NewVar(ds.X.Dense, false),
		w: autodiff.NewParam[float32]("w", ds.X.Cols(), ds.NumClasses),
		b: autodiff.NewParam[float32]("b", 1, ds.NumClasses),
	}
	return m
}

func (m *linearModel) Forward(t *autodiff.Tape[float32], _ *data.Graph, _ data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	out := autodiff.Add(t, autodiff.MatMul(t, m.x, m.w), m.b)
	if m.nan {
		out = autodiff.Log(t, autodiff.Scale(t, out, -1e30))
	}
	return out
}

func (m *linearModel) Groups() []optim.Group[float32] {
	return []optim.Group[float32]{{Params: []*autodiff.Var[float32]{m.w, m.b}, Frozen: m.frozen}}
}

func TestRunNodeLearnsAndSelectsOnValidation(t *testing.T) {
	ds := blobs(200)
	split := data.RandomSplit(ds.Y, 0, 0.6, 0.2)
	cfg := DefaultConfig()
	cfg.Epochs = 100
	cfg.LR = 0.05
	var epochs []Epoch
	r, err := RunNode(newLinear(ds), ds, split, cfg, 1, EpochFunc(func(_ int, e Epoch) { epochs = append(epochs, e) }))
	if err != nil {
		t.Fatal(err)
	}
	if r.TestAcc < 0.9 {
		t.Errorf("test accuracy %.3f < 0.9 on separable blobs", r.TestAcc)
	}
	if len(epochs) != cfg.Epochs || r.Epochs != cfg.Epochs {
		t.Fatalf("got %d epoch reports, result says %d; want %d", len(epochs), r.Epochs, cfg.Epochs)
	}
	// The reported test accuracy is the one at the best-validation epoch.
	best := epochs[r.BestEpoch-1]
	if !best.Best || best.ValAcc != r.ValAcc || best.TestAcc != r.TestAcc {
		t.Errorf("result %+v does not match its best epoch %+v", r, best)
	}
	for _, e := range epochs {
		if e.ValAcc > r.ValAcc {
			t.Errorf("epoch %d has validation accuracy %.3f above the selected %.3f", e.Epoch, e.ValAcc, r.ValAcc)
		}
	}
}

func TestRunNodePatienceStopsEarly(t *testing.T) {
	ds := blobs(100)
	cfg := DefaultConfig()
	cfg.Epochs, cfg.Patience = 500, 5
	m := newLinear(ds)
	m.frozen = true
	r, err := RunNode(m, ds, data.RandomSplit(ds.Y, 0, 0.6, 0.2), cfg, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.BestEpoch != 1 || r.Epochs != 6 {
		t.Errorf("ran %d epochs with best %d; want a stop 5 epochs after the best", r.Epochs, r.BestEpoch)
	}
}

func TestRunNodeFailsLoudlyOnNaN(t *testing.T) {
	ds := blobs(50)
	m := newLinear(ds)
	m.nan = true
	_, err := RunNode(m, ds, data.RandomSplit(ds.Y, 0, 0.6, 0.2), DefaultConfig(), 1, nil)
	if !errors.Is(err, ErrNonFinite) {
		t.Fatalf("err = %v, want ErrNonFinite", err)
	}
}

func TestRunNodeRejectsBadSplits(t *testing.T) {
	ds := blobs(20)
	ds.Y[3] = -1
	for _, split := range []data.Split{
		{Train: []int32{0, 1}, Val: []int32{3}},  // unlabelled node
		{Train: []int32{0, 1}, Val: []int32{20}}, // out of range
		{Train: nil, Val: []int32{1}},            // empty train
		{Train: []int32{0}, Val: nil},            // empty validation
		{Train: []int32{0}, Val: []int32{-1}},    // negative
	} {
		if _, err := RunNode(newLinear(ds), ds, split, DefaultConfig(), 1, nil); err == nil {
			t.Errorf("split %+v: no error", split)
		}
	}
}

func TestRunNodeProtocolIsDeterministic(t *testing.T) {
	ds := blobs(120)
	cfg := DefaultConfig()
	cfg.Epochs = 20
	build := func(seed uint64) (model.NodeModel, error) { return newLinear(ds), nil }
	p := NodeProtocol{Split: "random", Seeds: 3}
	a, err := RunNodeProtocol(ds, build, p, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := RunNodeProtocol(ds, build, p, cfg, nil)
	if a.Runs != 3 || a.MeanAcc != b.MeanAcc || a.StdAcc != b.StdAcc {
		t.Errorf("two identical protocols differ: %+v vs %+v", a, b)
	}
	if a.Params != 2*2+2 || a.Protocol != "random 60/20/20 x3" {
		t.Errorf("params %d, protocol %q", a.Params, a.Protocol)
	}
	if _, err := RunNodeProtocol(ds, build, NodeProtocol{Split: "public", Seeds: 1}, cfg, nil); err == nil {
		t.Error("public split on a dataset without one: no error")
	}
}

func TestRunNodeProtocolParallelMatchesSerial(t *testing.T) {
	ds := blobs(120)
	cfg := DefaultConfig()
	cfg.Epochs = 15
	build := func(seed uint64) (model.NodeModel, error) { return newLinear(ds), nil }
	serial, err := RunNodeProtocol(ds, build, NodeProtocol{Split: "random", Seeds: 4}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var runs []int
	par, err := RunNodeProtocol(ds, build, NodeProtocol{Split: "random", Seeds: 4, Parallel: 3}, cfg,
		RunFunc(func(run int, r Result) { runs = append(runs, run) }))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 4 {
		t.Fatalf("onRun called for %v", runs)
	}
	for i := range serial.Results {
		a, b := serial.Results[i], par.Results[i]
		if a.TestAcc != b.TestAcc || a.BestEpoch != b.BestEpoch || a.Seed != b.Seed {
			t.Errorf("run %d: serial %+v, parallel %+v", i, a, b)
		}
	}
}

// The node loop follows the schedule too.
func TestRunNodeLRSchedule(t *testing.T) {
	ds := blobs(60)
	cfg := DefaultConfig()
	cfg.Epochs, cfg.LRSchedule = 60, ScheduleStep
	var lr []float64
	if _, err := RunNode(newLinear(ds), ds, data.RandomSplit(ds.Y, 0, 0.6, 0.2), cfg, 1, EpochFunc(func(_ int, e Epoch) { lr = append(lr, e.LR) })); err != nil {
		t.Fatal(err)
	}
	if lr[49] != cfg.LR || lr[50] != cfg.LR/2 {
		t.Errorf("epochs 50 and 51 at lr %v and %v, want %v and %v", lr[49], lr[50], cfg.LR, cfg.LR/2)
	}
}

package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/optim"
)

// Evaluation batches and training micro-batches hold up to a number of
// graphs and of nodes, and at least one graph however large.
func TestBatchEnds(t *testing.T) {
	for _, tc := range []struct {
		sizes               []int
		maxGraphs, maxNodes int
		want                []int // batch ends
	}{
		{[]int{700, 300, 24, 100, 5000, 10, 10, 10}, 128, 1024, []int{3, 4, 5, 8}}, // 700+300+24 = 1024 fits; +100 does not
		{[]int{700, 300, 24, 100, 5000, 10, 10, 10}, 2, 1024, []int{2, 4, 5, 7, 8}},
		{[]int{700, 300, 24, 100, 5000, 10, 10, 10}, 1, 1024, []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{[]int{60, 60, 8, 200, 10, 10, 100, 30}, 16, 128, []int{3, 4, 7, 8}},
		{[]int{60, 60, 8, 200, 10, 10, 100, 30}, 16, 1, []int{1, 2, 3, 4, 5, 6, 7, 8}},
	} {
		ds := &data.GraphDataset{}
		var set []int32
		for i, n := range tc.sizes {
			ds.Graphs = append(ds.Graphs, data.GraphSample{Graph: &data.Graph{N: n}})
			set = append(set, int32(i))
		}
		tr := &graphTrainer{ds: ds}
		var got []int
		for lo, hi := 0, 0; lo < len(set); lo = hi {
			hi = tr.batchEnd(set, lo, tc.maxGraphs, tc.maxNodes)
			got = append(got, hi)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v, %d graphs, %d nodes: batch ends %v, want %v", tc.sizes, tc.maxGraphs, tc.maxNodes, got, tc.want)
		}
	}
}

// poolNet is a small graph model for the trainer's tests: logits = the sum
// over a graph's nodes of tanh(x·W), plus a bias.
type poolNet struct {
	w, b   *autodiff.Var[float32]
	frozen bool // never update: every epoch ties with the first
}

func newPoolNet(features, classes int) *poolNet {
	rng := rand.New(rand.NewPCG(1, 2))
	m := &poolNet{w: autodiff.NewParam[float32]("w", features, classes), b: autodiff.NewParam[float32]("b", 1, classes)}
	for i := range m.w.Value.Data {
		m.w.Value.Data[i] = float32(rng.NormFloat64())
	}
	return m
}

func (m *poolNet) Forward(t *autodiff.Tape[float32], b *data.GraphBatch, _ bool, _ *rand.Rand) *autodiff.Var[float32] {
	h := autodiff.Tanh(t, autodiff.SpMM(t, &b.X, m.w))
	return autodiff.Add(t, autodiff.ScatterAddRows(t, h, b.Seg), m.b)
}

func (m *poolNet) Groups() []optim.Group[float32] {
	return []optim.Group[float32]{{Params: []*autodiff.Var[float32]{m.w, m.b}, Frozen: m.frozen}}
}

// mutagFold returns the embedded MUTAG and the first split of its
// stratified 10-fold protocol.
func mutagFold(t *testing.T) (*data.GraphDataset, data.Split) {
	t.Helper()
	d, err := data.Load("mutag", data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	labels := make([]int32, len(d.Graph.Graphs))
	for i, g := range d.Graph.Graphs {
		labels[i] = g.Label
	}
	splits, err := data.StratifiedKFold(labels, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	return d.Graph, splits[0]
}

// The selected epoch has the best validation accuracy, and of the epochs
// that reach it the last; its test accuracy is the one reported.
func TestRunGraphSelectsTheLastBestEpoch(t *testing.T) {
	ds, split := mutagFold(t)
	cfg := Config{Epochs: 30, LR: 0.05, Optimizer: "adam"}
	var epochs []Epoch
	r, err := RunGraph(newPoolNet(ds.NumFeatures, ds.NumClasses), ds, split, cfg, 16, 0, EpochFunc(func(_ int, e Epoch) { epochs = append(epochs, e) }))
	if err != nil {
		t.Fatal(err)
	}
	if len(epochs) != cfg.Epochs || r.Epochs != cfg.Epochs {
		t.Fatalf("got %d epoch reports, result says %d; want %d", len(epochs), r.Epochs, cfg.Epochs)
	}
	best, last, ties := -1.0, 0, 0
	for _, e := range epochs {
		switch {
		case e.ValAcc > best:
			best, last, ties = e.ValAcc, e.Epoch, 1
		case e.ValAcc == best:
			last, ties = e.Epoch, ties+1
		}
	}
	if r.ValAcc != best || r.BestEpoch != last {
		t.Errorf("selected epoch %d (val %.3f), want %d (val %.3f)", r.BestEpoch, r.ValAcc, last, best)
	}
	if e := epochs[r.BestEpoch-1]; !e.Best || !math.IsNaN(e.TestAcc) {
		t.Errorf("result %+v does not match its epoch %+v (TestAcc NaN while training)", r, e)
	}
	if ties < 2 {
		t.Logf("no tie at the best validation accuracy %.3f: the tie rule went untested here", best)
	}
}

// The test set is scored after the last epoch, from the parameters of the
// selected epoch: the accuracy is the one that scoring at that epoch gives
// (the test curve scores every epoch), and the model ends with its last
// epoch's parameters.
func TestRunGraphScoresTheKeptParameters(t *testing.T) {
	ds, split := mutagFold(t)
	for _, lr := range []float64{0.5, 0.2, 0.05} {
		cfg := Config{Epochs: 30, LR: lr, Optimizer: "adam"}
		m := newPoolNet(ds.NumFeatures, ds.NumClasses)
		r, err := RunGraph(m, ds, split, cfg, 16, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.BestEpoch == cfg.Epochs {
			continue // the last epoch's parameters: nothing kept to test
		}
		mc := newPoolNet(ds.NumFeatures, ds.NumClasses)
		var curve []CurvePoint
		rc, err := RunGraph(mc, ds, split, cfg, 16, 0, curveWatcher{func(int, Epoch) {}, func(_ int, c CurvePoint) { curve = append(curve, c) }})
		if err != nil {
			t.Fatal(err)
		}
		if c := curve[r.BestEpoch-1]; c.TestAcc != r.TestAcc || rc.TestAcc != r.TestAcc {
			t.Errorf("lr %v: test accuracy %v from the kept parameters of epoch %d, %v scored then, %v with the curve", lr, r.TestAcc, r.BestEpoch, c.TestAcc, rc.TestAcc)
		}
		for i, g := range m.Groups() {
			for j, p := range g.Params {
				if !slices.Equal(p.Value.Data, mc.Groups()[i].Params[j].Value.Data) {
					t.Errorf("lr %v: parameter %s after the run is not the last epoch's", lr, p.Name)
				}
			}
		}
		return
	}
	t.Fatal("every run selected its last epoch: the kept parameters went untested")
}

// A model that never learns ties on every epoch: the selection moves to
// the latest, but patience counts from the last rise, the first epoch.
func TestRunGraphTiesMoveSelectionNotPatience(t *testing.T) {
	ds, split := mutagFold(t)
	for _, tc := range []struct{ epochs, patience, wantEpochs int }{
		{6, 0, 6},
		{20, 3, 4},
	} {
		m := newPoolNet(ds.NumFeatures, ds.NumClasses)
		m.frozen = true
		cfg := Config{Epochs: tc.epochs, Patience: tc.patience, LR: 0.05, Optimizer: "adam"}
		r, err := RunGraph(m, ds, split, cfg, 16, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Epochs != tc.wantEpochs || r.BestEpoch != tc.wantEpochs {
			t.Errorf("%d epochs, patience %d: ran %d with epoch %d selected, want %d and %d",
				tc.epochs, tc.patience, r.Epochs, r.BestEpoch, tc.wantEpochs, tc.wantEpochs)
		}
	}
}

func TestSelectsGraphEpoch(t *testing.T) {
	for _, tc := range []struct {
		best, val float64
		want      bool
	}{
		{-1, 0, true}, // the first epoch, even at accuracy 0
		{0.5, 0.6, true},
		{0.5, 0.5, true}, // a tie: the later epoch
		{0.5, 0.4, false},
	} {
		if got := selectsGraphEpoch(tc.best, tc.val); got != tc.want {
			t.Errorf("selectsGraphEpoch(%v, %v) = %v, want %v", tc.best, tc.val, got, tc.want)
		}
	}
}

// A mini-batch's gradient does not depend on its micro-batches: each one's
// loss counts by its share of the graphs. One graph per micro-batch and
// one micro-batch for all 16 graphs give the same loss, accuracy and
// parameter gradients (up to float32 rounding).
func TestMicroBatchesAddUpToTheBatch(t *testing.T) {
	d, err := data.Load("mutag", data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds := d.Graph
	idx := make([]int32, 16)
	for i := range idx {
		idx[i] = int32(11 * i)
	}
	cfg := Config{Epochs: 1, LR: 0.01, Optimizer: "adam"}
	type run struct {
		loss    float64
		correct int
		grads   [][]float32
	}
	gradsFor := func(microNodes int) run {
		m := newPoolNet(ds.NumFeatures, ds.NumClasses)
		tr, err := newGraphTrainer(m, ds, data.Split{Train: idx, Val: idx}, cfg, graphBatching{size: 16, microNodes: microNodes, eval: 16}, 0)
		if err != nil {
			t.Fatal(err)
		}
		r := run{}
		if r.loss, r.correct, err = tr.gradients(1, idx); err != nil {
			t.Fatal(err)
		}
		for _, p := range []*autodiff.Var[float32]{m.w, m.b} {
			r.grads = append(r.grads, slices.Clone(p.Grad.Data))
		}
		return r
	}
	whole, single := gradsFor(1<<20), gradsFor(1)
	if math.Abs(whole.loss-single.loss) > 1e-6*whole.loss || whole.correct != single.correct {
		t.Fatalf("loss %v and %d correct in one batch, %v and %d graph by graph", whole.loss, whole.correct, single.loss, single.correct)
	}
	for i := range whole.grads {
		scale := 0.0
		for _, g := range whole.grads[i] {
			scale = max(scale, math.Abs(float64(g)))
		}
		for j, g := range whole.grads[i] {
			if d := math.Abs(float64(g - single.grads[i][j])); d > 1e-5*scale {
				t.Fatalf("param %d grad[%d] = %v in one batch, %v graph by graph", i, j, g, single.grads[i][j])
			}
		}
	}
}

// valWatcher is a ValidationObserver of functions.
type valWatcher struct {
	EpochFunc
	f func(int, ValScores)
}

func (w valWatcher) Validation(fold int, v ValScores) { w.f(fold, v) }

// curveWatcher is a TestCurveObserver of functions.
type curveWatcher struct {
	EpochFunc
	f func(int, CurvePoint)
}

func (w curveWatcher) TestCurve(fold int, p CurvePoint) { w.f(fold, p) }

// A ValidationObserver sees every validation graph of every fold and
// epoch, with logits whose accuracy is the epoch's validation accuracy.
func TestValidationObserverMatchesValAcc(t *testing.T) {
	ds, _ := mutagFold(t)
	type key struct{ fold, epoch int }
	valAcc := map[key]float64{}
	fromLogits := map[key]float64{}
	seen := map[key]int{}
	p := GraphProtocol{OnlyFolds: 2, Parallel: 2}
	onVal := func(fold int, v ValScores) {
		if len(v.Labels) != len(v.Graphs) || len(v.Logits) != len(v.Graphs)*v.Classes || v.Classes != ds.NumClasses {
			t.Errorf("fold %d epoch %d: %d graphs, %d labels, %d logits of %d classes", fold, v.Epoch, len(v.Graphs), len(v.Labels), len(v.Logits), v.Classes)
			return
		}
		correct := 0
		for i, g := range v.Graphs {
			if v.Labels[i] != ds.Graphs[g].Label {
				t.Errorf("graph %d has label %d, want %d", g, v.Labels[i], ds.Graphs[g].Label)
			}
			row := v.Logits[i*v.Classes : (i+1)*v.Classes]
			if slices.Index(row, slices.Max(row)) == int(v.Labels[i]) {
				correct++
			}
		}
		k := key{fold, v.Epoch}
		fromLogits[k] = float64(correct) / float64(len(v.Graphs))
		seen[k] = len(v.Graphs)
	}
	cfg := Config{Epochs: 3, LR: 0.05, Optimizer: "adam"}
	build := func(uint64) (model.GraphModel, error) { return newPoolNet(ds.NumFeatures, ds.NumClasses), nil }
	_, err := RunGraphProtocol(ds, build, p, cfg, valWatcher{func(fold int, e Epoch) { valAcc[key{fold, e.Epoch}] = e.ValAcc }, onVal})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 6 {
		t.Fatalf("the observer saw %d (fold, epoch) pairs, want 6", len(seen))
	}
	for k, acc := range valAcc {
		if n := seen[k]; n != 17 || math.Abs(fromLogits[k]-acc) > 1e-12 {
			t.Errorf("fold %d epoch %d: %d graphs with accuracy %v from the logits, validation accuracy %v", k.fold, k.epoch, n, fromLogits[k], acc)
		}
	}
}

// Each epoch trains at its schedule's learning rate, and an unknown
// schedule is an error.
func TestRunGraphLRSchedule(t *testing.T) {
	ds, split := mutagFold(t)
	for _, tc := range []struct {
		schedule string
		want     []float64 // epochs 1, 50, 51 and 100
	}{
		{"", []float64{0.01, 0.01, 0.01, 0.01}},
		{ScheduleStep, []float64{0.01, 0.01, 0.005, 0.005}},
		{ScheduleCosine, []float64{0.01, 0.005 * (1 + math.Cos(math.Pi*49/100)), 0.005, 0.005 * (1 + math.Cos(math.Pi*99/100))}},
	} {
		cfg := Config{Epochs: 100, LR: 0.01, Optimizer: "adam", LRSchedule: tc.schedule, StepEvery: 50}
		var lr []float64
		if _, err := RunGraph(newPoolNet(ds.NumFeatures, ds.NumClasses), ds, split, cfg, 64, 0, EpochFunc(func(_ int, e Epoch) { lr = append(lr, e.LR) })); err != nil {
			t.Fatal(err)
		}
		for i, e := range []int{1, 50, 51, 100} {
			if math.Abs(lr[e-1]-tc.want[i]) > 1e-12 {
				t.Errorf("schedule %q: epoch %d at lr %v, want %v", tc.schedule, e, lr[e-1], tc.want[i])
			}
		}
	}
	cfg := Config{Epochs: 1, LR: 0.01, Optimizer: "adam", LRSchedule: "linear"}
	if _, err := RunGraph(newPoolNet(ds.NumFeatures, ds.NumClasses), ds, split, cfg, 16, 0, nil); err == nil || !strings.Contains(err.Error(), `"linear"`) {
		t.Errorf("unknown schedule: error %v", err)
	}
}

// A TestCurveObserver sees every epoch of every fold; at the selected
// epoch its test accuracy is the fold's result, and the runs' results are
// those of the same protocol without it. The epochs report the test
// accuracy then, and NaN without it.
func TestTestCurveObserverMatchesSelection(t *testing.T) {
	ds, _ := mutagFold(t)
	cfg := Config{Epochs: 4, LR: 0.05, Optimizer: "adam"}
	build := func(uint64) (model.GraphModel, error) { return newPoolNet(ds.NumFeatures, ds.NumClasses), nil }
	var plainTest []float64
	plain, err := RunGraphProtocol(ds, build, GraphProtocol{OnlyFolds: 3, Parallel: 2}, cfg, EpochFunc(func(_ int, e Epoch) { plainTest = append(plainTest, e.TestAcc) }))
	if err != nil {
		t.Fatal(err)
	}
	curves := make([][]CurvePoint, 3)
	epochTest := make([][]float64, 3)
	obs := curveWatcher{func(fold int, e Epoch) { epochTest[fold] = append(epochTest[fold], e.TestAcc) },
		func(fold int, c CurvePoint) { curves[fold] = append(curves[fold], c) }}
	withCurve, err := RunGraphProtocol(ds, build, GraphProtocol{OnlyFolds: 3, Parallel: 2}, cfg, obs)
	if err != nil {
		t.Fatal(err)
	}
	for f, r := range withCurve.Results {
		want := plain.Results[f]
		r.Seconds, want.Seconds = 0, 0
		if r != want {
			t.Errorf("fold %d: %+v with the test curve, %+v without", f, r, want)
		}
		if len(curves[f]) != cfg.Epochs {
			t.Fatalf("fold %d: %d curve points, want %d", f, len(curves[f]), cfg.Epochs)
		}
		for e, c := range curves[f] {
			if c.Epoch != e+1 || c.TestAcc < 0 || c.TestAcc > 1 {
				t.Errorf("fold %d point %d: %+v", f, e, c)
			}
		}
		if c := curves[f][r.BestEpoch-1]; c.TestAcc != r.TestAcc || c.ValAcc != r.ValAcc {
			t.Errorf("fold %d: curve at the selected epoch %d is %+v, result val %v test %v", f, r.BestEpoch, c, r.ValAcc, r.TestAcc)
		}
		for e, c := range curves[f] {
			if epochTest[f][e] != c.TestAcc {
				t.Errorf("fold %d epoch %d: test accuracy %v in the epoch report, %v in the curve", f, e+1, epochTest[f][e], c.TestAcc)
			}
		}
	}
	if len(plainTest) != 3*cfg.Epochs || slices.ContainsFunc(plainTest, func(a float64) bool { return !math.IsNaN(a) }) {
		t.Errorf("without a test curve the epochs report test accuracies %v, want %d NaNs", plainTest, 3*cfg.Epochs)
	}
}

func TestSelectOnCurves(t *testing.T) {
	for _, tc := range []struct {
		curves [][]float64
		want   CurveSelection
	}{
		{[][]float64{{0.5, 0.7, 0.6}, {0.5, 0.5, 0.8}}, CurveSelection{Epoch: 3, MeanAcc: 0.7, StdAcc: 0.1, FoldCount: 2}},
		{[][]float64{{0.6, 0.4}, {0.6, 0.8}}, CurveSelection{Epoch: 1, MeanAcc: 0.6, StdAcc: 0, FoldCount: 2}}, // tie: the earlier epoch
		{[][]float64{{0.9}}, CurveSelection{Epoch: 1, MeanAcc: 0.9, StdAcc: 0, FoldCount: 1}},
	} {
		got, err := SelectOnCurves(tc.curves)
		if err != nil {
			t.Fatal(err)
		}
		if got.Epoch != tc.want.Epoch || got.FoldCount != tc.want.FoldCount ||
			math.Abs(got.MeanAcc-tc.want.MeanAcc) > 1e-12 || math.Abs(got.StdAcc-tc.want.StdAcc) > 1e-12 {
			t.Errorf("SelectOnCurves(%v) = %+v, want %+v", tc.curves, got, tc.want)
		}
	}
	for _, bad := range [][][]float64{nil, {{}}, {{0.5, 0.6}, {0.5}}} {
		if _, err := SelectOnCurves(bad); err == nil {
			t.Errorf("SelectOnCurves(%v): no error", bad)
		}
	}
}

// Several protocol runs in one pool give each run's results alone, and a
// run whose fold fails reports that fold's error without stopping the
// others.
func TestRunGraphProtocolsMatchesAlone(t *testing.T) {
	ds, _ := mutagFold(t)
	build := func(uint64) (model.GraphModel, error) { return newPoolNet(ds.NumFeatures, ds.NumClasses), nil }
	failing := func(seed uint64) (model.GraphModel, error) {
		if seed == 2 {
			return nil, fmt.Errorf("no model for seed 2")
		}
		return build(seed)
	}
	jobs := []GraphJob{
		{Dataset: ds, Build: build, Protocol: GraphProtocol{OnlyFolds: 3}, Config: Config{Epochs: 2, LR: 0.05, Optimizer: "adam"}},
		{Dataset: ds, Build: failing, Protocol: GraphProtocol{OnlyFolds: 3}, Config: Config{Epochs: 2, LR: 0.05, Optimizer: "adam"}},
		{Dataset: ds, Build: build, Protocol: GraphProtocol{OnlyFolds: 4, FirstSeed: 5}, Config: Config{Epochs: 4, LR: 0.01, Optimizer: "adam"}},
	}
	sums, errs := RunGraphProtocols(jobs, 2)
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "seed 2") {
		t.Errorf("job 1: error %v, want the failing fold's", errs[1])
	}
	// The failing job's other folds finish and are summarised.
	if f := sums[1].Failed; sums[1].Runs != 2 || len(f) != 1 || f[0].Run != 2 || f[0].Seed != 2 {
		t.Errorf("job 1: %d folds summarised, failed %+v; want 2 and fold 2", sums[1].Runs, f)
	}
	for _, j := range []int{0, 2} {
		alone, err := RunGraphProtocol(ds, jobs[j].Build, jobs[j].Protocol, jobs[j].Config, nil)
		if err != nil || errs[j] != nil {
			t.Fatalf("job %d: %v alone, %v pooled", j, err, errs[j])
		}
		if len(sums[j].Results) != len(alone.Results) || sums[j].MeanAcc != alone.MeanAcc || sums[j].Params != alone.Params {
			t.Fatalf("job %d: pooled %+v, alone %+v", j, sums[j], alone)
		}
		for f, r := range sums[j].Results {
			want := alone.Results[f]
			r.Seconds, want.Seconds = 0, 0
			if r != want {
				t.Errorf("job %d fold %d: pooled %+v, alone %+v", j, f, r, want)
			}
		}
	}
}

// sizeNet is poolNet recording the graphs of each training batch; whole
// makes it a batch-norm-like model (model.WholeBatch).
type sizeNet struct {
	*poolNet
	whole bool
	sizes []int
}

func (m *sizeNet) WholeBatch() bool { return m.whole }

func (m *sizeNet) Forward(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	if training {
		m.sizes = append(m.sizes, b.G())
	}
	return m.poolNet.Forward(t, b, training, rng)
}

// An epoch's mini-batches differ in size by at most a graph (a whole-batch
// model sees them whole; others in micro-batches of the same graphs).
func TestRunGraphEvenBatches(t *testing.T) {
	ds, split := mutagFold(t) // 152 training graphs: 9 batches of 16 and 8
	cfg := Config{Epochs: 1, LR: 0.01, Optimizer: "adam"}
	for _, whole := range []bool{false, true} {
		m := &sizeNet{poolNet: newPoolNet(ds.NumFeatures, ds.NumClasses), whole: whole}
		if _, err := RunGraph(m, ds, split, cfg, 16, 0, nil); err != nil {
			t.Fatal(err)
		}
		total, lo, hi := 0, math.MaxInt, 0
		for _, s := range m.sizes {
			total, lo, hi = total+s, min(lo, s), max(hi, s)
		}
		if total != len(split.Train) {
			t.Fatalf("whole %v: %d graphs trained, want %d", whole, total, len(split.Train))
		}
		if whole && (len(m.sizes) != (len(split.Train)+15)/16 || hi-lo > 1) {
			t.Errorf("whole-batch model: batch sizes %v, want %d differing by at most one", m.sizes, (len(split.Train)+15)/16)
		}
		if !whole && hi > 16 {
			t.Errorf("micro-batched model: micro-batch sizes %v, want at most 16 graphs", m.sizes)
		}
	}
}

// drawNet is poolNet recording the graphs of each training batch; it is a
// whole-batch model, as GIN is.
type drawNet struct {
	*poolNet
	batches [][]int32
}

func (m *drawNet) WholeBatch() bool { return true }

func (m *drawNet) Forward(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	if training {
		m.batches = append(m.batches, slices.Clone(b.Graphs))
	}
	return m.poolNet.Forward(t, b, training, rng)
}

// With ItersPerEpoch, an epoch is exactly that many mini-batches, each of
// BatchSize distinct training graphs (all of them when there are fewer),
// drawn afresh for every batch as GIN-0's reference code draws them; the
// protocol passes the setting to every fold and names it.
func TestItersPerEpochDrawsAsReference(t *testing.T) {
	ds, split := mutagFold(t) // 152 training graphs (after the inner validation split)
	train := map[int32]bool{}
	for _, g := range split.Train {
		train[g] = true
	}
	cfg := Config{Epochs: 3, LR: 0.01, Optimizer: "adam"}
	for _, tc := range []struct{ batch, iters, want int }{{16, 7, 16}, {32, 50, 32}, {500, 2, len(split.Train)}} {
		m := &drawNet{poolNet: newPoolNet(ds.NumFeatures, ds.NumClasses)}
		sizes := graphBatching{size: tc.batch, microNodes: DefaultMicroBatchNodes, eval: defaultEvalBatch, iters: tc.iters}
		if _, err := runGraph(m, ds, split, cfg, sizes, 0, graphHooks{}, nil, nil); err != nil {
			t.Fatal(err)
		}
		if len(m.batches) != cfg.Epochs*tc.iters {
			t.Fatalf("batch %d, %d iterations: %d training batches in %d epochs, want %d", tc.batch, tc.iters, len(m.batches), cfg.Epochs, cfg.Epochs*tc.iters)
		}
		seen := map[int32]int{}
		for k, b := range m.batches {
			if len(b) != tc.want {
				t.Fatalf("batch %d of size %d: %d graphs, want %d", k, tc.batch, len(b), tc.want)
			}
			distinct := map[int32]bool{}
			for _, g := range b {
				if !train[g] || distinct[g] {
					t.Fatalf("batch %d: graph %d is not a training graph or is drawn twice: %v", k, g, b)
				}
				distinct[g] = true
				seen[g]++
			}
		}
		if tc.want < len(split.Train) && slices.Equal(m.batches[0], m.batches[1]) {
			t.Errorf("batch %d: the first two batches are the same graphs: %v", tc.batch, m.batches[0])
		}
		// 50 × 32 graphs drawn per epoch from 152: a full pass would see each
		// graph once an epoch; random batches see some several times.
		if tc.iters == 50 && len(seen) < len(split.Train)*9/10 {
			t.Errorf("50 batches of 32 reached %d of %d training graphs", len(seen), len(split.Train))
		}
	}

	// Through the protocol: every fold trains ItersPerEpoch batches an epoch.
	var mu sync.Mutex
	nets := map[uint64]*drawNet{}
	build := func(seed uint64) (model.GraphModel, error) {
		m := &drawNet{poolNet: newPoolNet(ds.NumFeatures, ds.NumClasses)}
		mu.Lock()
		nets[seed] = m
		mu.Unlock()
		return m, nil
	}
	p := GraphProtocol{Folds: 10, OnlyFolds: 2, BatchSize: 32, ItersPerEpoch: 5, Parallel: 1}
	sum, err := RunGraphProtocol(ds, build, p, Config{Epochs: 2, LR: 0.01, Optimizer: "adam"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum.Protocol, "5 random mini-batches an epoch") {
		t.Errorf("protocol %q does not name its random mini-batches", sum.Protocol)
	}
	for seed := range uint64(2) {
		if m := nets[seed]; m == nil || len(m.batches) != 10 {
			t.Errorf("fold %d: %v training batches, want 2 epochs × 5", seed, m)
		}
	}
	if err := (GraphProtocol{ItersPerEpoch: -1}).Check(); err == nil {
		t.Error("ItersPerEpoch -1 passes Check")
	}
}

// drawBatch draws its graphs uniformly without replacement: every graph,
// and every pair, is in a batch as often as in a random permutation's
// first size entries (size/n, and size(size−1)/(n(n−1))).
func TestDrawBatchUniform(t *testing.T) {
	const n, size, draws = 40, 16, 20000
	set := make([]int32, n)
	for i := range set {
		set[i] = int32(100 + i)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var dst []int32
	count := make([]int, n)
	pair, first := 0, make([]int, n)
	for range draws {
		dst = drawBatch(dst, set, size, rng)
		if len(dst) != size {
			t.Fatalf("drew %d graphs, want %d", len(dst), size)
		}
		first[dst[0]-100]++
		in0, in1 := false, false
		for _, g := range dst {
			count[g-100]++
			in0, in1 = in0 || g == 100, in1 || g == 101
		}
		if in0 && in1 {
			pair++
		}
	}
	check := func(what string, got int, p float64) {
		mean := draws * p
		if sd := math.Sqrt(mean * (1 - p)); math.Abs(float64(got)-mean) > 5*sd {
			t.Errorf("%s: %d of %d draws, want %.0f ± %.0f", what, got, draws, mean, 5*sd)
		}
	}
	for i := range n {
		check(fmt.Sprintf("graph %d in a batch", 100+i), count[i], float64(size)/n)
		check(fmt.Sprintf("graph %d first", 100+i), first[i], 1.0/n)
	}
	check("graphs 100 and 101 together", pair, float64(size*(size-1))/(n*(n-1)))
	if !slices.Equal(set[:3], []int32{100, 101, 102}) {
		t.Error("drawBatch changed its set")
	}
}

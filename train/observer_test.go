package train

import (
	"fmt"
	"slices"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
)

// Observers flattens, drops nils, and passes each optional call only to
// the observers that implement it; a run sees an optional interface only
// when one of them does.
func TestObservers(t *testing.T) {
	var log []string
	epochs := EpochFunc(func(run int, e Epoch) { log = append(log, fmt.Sprintf("epoch %d.%d", run, e.Epoch)) })
	runs := RunFunc(func(run int, r Result) { log = append(log, fmt.Sprintf("run %d", run)) })
	models := ModelFunc(func(run int, r Result, m model.Model) { log = append(log, fmt.Sprintf("model %d", run)) })
	if Observers() != nil || Observers(nil, nil) != nil {
		t.Error("Observers of no observer is not nil")
	}
	if o, ok := Observers(nil, runs, nil).(RunFunc); !ok || o == nil {
		t.Errorf("Observers of one observer is %T, want it", o)
	}
	all := Observers(epochs, Observers(runs, nil, models))
	if f, ok := all.(fanOut); !ok || len(f) != 3 {
		t.Fatalf("Observers(a, Observers(b, c)) is %#v, want a fan-out of three", all)
	}
	all.Epoch(1, Epoch{Epoch: 2})
	all.Run(1, Result{})
	all.(ModelObserver).Selected(1, Result{}, nil)
	all.(ValidationObserver).Validation(1, ValScores{})
	if want := []string{"epoch 1.2", "run 1", "model 1"}; !slices.Equal(log, want) {
		t.Errorf("calls %q, want %q", log, want)
	}
	for _, tc := range []struct {
		obs               Observer
		model, val, curve bool
	}{
		{epochs, false, false, false},
		{models, true, false, false},
		{all, true, false, false},
		{Observers(runs, valWatcher{epochs, nil}), false, true, false},
		{Observers(curveWatcher{epochs, nil}, epochs), false, false, true},
	} {
		w := alone(tc.obs)
		if (w.model != nil) != tc.model || (w.val != nil) != tc.val || (w.test != nil) != tc.curve {
			t.Errorf("%#v: ModelObserver %v, ValidationObserver %v, TestCurveObserver %v; want %v, %v, %v",
				tc.obs, w.model != nil, w.val != nil, w.test != nil, tc.model, tc.val, tc.curve)
		}
	}
	if w := alone(nil); w != nil || w.wantsModel() || w.validation() != nil || w.testCurve() != nil {
		t.Error("a nil observer's watch observes")
	}
}

// A ModelObserver gets, once, before Run, the model holding the
// parameters of the selected epoch (those with which a run of that many
// epochs ends), and the run ends with its last epoch's parameters as it
// does without the observer.
func TestModelObserverGetsTheSelectedParameters(t *testing.T) {
	params := func(m model.Model) []float32 {
		var all []float32
		for _, g := range m.Groups() {
			for _, p := range g.Params {
				all = append(all, p.Value.Data...)
			}
		}
		return all
	}
	nodes := blobs(80)
	nodeSplit := data.RandomSplit(nodes.Y, 0, 0.6, 0.2)
	graphs, graphSplit := mutagFold(t)
	for _, tc := range []struct {
		name string
		new  func() model.Model
		run  func(m model.Model, cfg Config, obs Observer) (Result, error)
	}{
		{"node", func() model.Model { return newLinear(nodes) }, func(m model.Model, cfg Config, obs Observer) (Result, error) {
			return RunNode(m.(model.NodeModel), nodes, nodeSplit, cfg, 1, obs)
		}},
		{"graph", func() model.Model { return newPoolNet(graphs.NumFeatures, graphs.NumClasses) }, func(m model.Model, cfg Config, obs Observer) (Result, error) {
			return RunGraph(m.(model.GraphModel), graphs, graphSplit, cfg, 16, 0, obs)
		}},
	} {
		// The first rate whose run selects an earlier epoch than its last.
		cfg := Config{Epochs: 30, Optimizer: "adam", AllowDivergence: true}
		var plain model.Model
		var want Result
		for _, cfg.LR = range []float64{0.5, 5, 50} {
			plain = tc.new()
			var err error
			if want, err = tc.run(plain, cfg, nil); err != nil {
				t.Fatal(err)
			}
			if want.BestEpoch < cfg.Epochs {
				break
			}
		}
		if want.BestEpoch == cfg.Epochs {
			t.Fatalf("%s: every run selected its last epoch: the kept parameters go untested", tc.name)
		}
		var calls []string
		var selected []float32
		obs := Observers(
			ModelFunc(func(run int, r Result, m model.Model) {
				calls = append(calls, fmt.Sprintf("selected %d at %d", run, r.BestEpoch))
				selected = params(m)
			}),
			RunFunc(func(run int, r Result) { calls = append(calls, fmt.Sprintf("run %d at %d", run, r.BestEpoch)) }))
		m := tc.new()
		got, err := tc.run(m, cfg, obs)
		if err != nil {
			t.Fatal(err)
		}
		got.Seconds, want.Seconds = 0, 0
		if got != want {
			t.Errorf("%s: %+v with the observer, %+v without", tc.name, got, want)
		}
		if w := []string{fmt.Sprintf("selected 0 at %d", want.BestEpoch), fmt.Sprintf("run 0 at %d", want.BestEpoch)}; !slices.Equal(calls, w) {
			t.Errorf("%s: calls %q, want %q", tc.name, calls, w)
		}
		if !slices.Equal(params(m), params(plain)) {
			t.Errorf("%s: the run did not end with its last epoch's parameters", tc.name)
		}
		short := tc.new()
		cfg.Epochs = want.BestEpoch
		if _, err := tc.run(short, cfg, nil); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(selected, params(short)) {
			t.Errorf("%s: the observer's model does not hold epoch %d's parameters", tc.name, want.BestEpoch)
		}
	}
}

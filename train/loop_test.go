package train

import (
	"errors"
	"math"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/optim"
)

// scalarModel is a model of one parameter, which the scripted runs of
// TestRunEpochs set to the epoch number, so that a snapshot tells the
// epoch it was taken at.
type scalarModel struct{ p *autodiff.Var[float32] }

func (m scalarModel) Groups() []optim.Group[float32] {
	return []optim.Group[float32]{{Params: []*autodiff.Var[float32]{m.p}}}
}

// The epoch loop on scripted epochs: each rule's selection and patience,
// the test accuracy of the selected epoch (scored every epoch, or once from
// the kept parameters), the model a ModelObserver gets, the parameters the
// run ends with, the divergence rule and the stop channel.
func TestRunEpochs(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name         string
		rule         selectRule
		val, valLoss []float64 // per epoch; the run trains len(val) epochs
		loss         float64   // every epoch's training loss (the first step's: 1)
		patience     int
		allowDiverge bool
		stopped      bool
		wantBest     int
		wantEpochs   int
		wantErr      error
	}{
		{name: "node: higher accuracy", rule: selectNode, val: []float64{0.5, 0.7, 0.6, 0.7}, valLoss: []float64{1, 1, 1, 1}, wantBest: 2, wantEpochs: 4},
		{name: "node: a tie by lower loss", rule: selectNode, val: []float64{0.5, 0.7, 0.7}, valLoss: []float64{1, 0.9, 0.8}, wantBest: 3, wantEpochs: 3},
		{name: "node: patience", rule: selectNode, val: []float64{0.5, 0.7, 0.6, 0.6, 0.9}, valLoss: []float64{1, 1, 1, 1, 1}, patience: 2, wantBest: 2, wantEpochs: 4},
		{name: "graph: a tie goes later", rule: selectGraph, val: []float64{0.5, 0.7, 0.6, 0.7, 0.4}, valLoss: []float64{1, 1, 1, 2, 1}, wantBest: 4, wantEpochs: 5},
		{name: "graph: a tie does not reset patience", rule: selectGraph, val: []float64{0.5, 0.7, 0.7, 0.7, 0.9}, valLoss: []float64{1, 1, 1, 1, 1}, patience: 2, wantBest: 4, wantEpochs: 4},
		{name: "diverged", rule: selectNode, val: []float64{0.5, 0.6, 0.7, 0.8}, valLoss: []float64{1, 1, 1, 1}, loss: 1e3, wantErr: ErrDiverged},
		{name: "divergence allowed", rule: selectNode, val: []float64{0.5, 0.6, 0.7, 0.8}, valLoss: []float64{1, 1, 1, 1}, loss: 1e3, allowDiverge: true, wantBest: 4, wantEpochs: 4},
		{name: "stopped", rule: selectGraph, val: []float64{0.5}, valLoss: []float64{1}, stopped: true, wantErr: ErrInterrupted},
	} {
		m := scalarModel{autodiff.NewParam[float32]("p", 1, 1)}
		cfg := Config{Epochs: len(tc.val), LR: 0.01, Optimizer: "adam", Patience: tc.patience, AllowDivergence: tc.allowDiverge}
		l, err := newLearner(m.Groups(), cfg, 0)
		if err != nil {
			t.Fatal(err)
		}
		k := &epochs{learner: &l, m: m, rule: tc.rule,
			train: func(epoch int) (trained, error) {
				m.p.Value.Data[0] = float32(epoch)
				loss := tc.loss
				if loss == 0 || epoch == 1 {
					loss = 1
				}
				return trained{loss: loss, first: 1, acc: 1}, nil
			},
			evaluate: func(e *Epoch) (float64, error) {
				e.ValAcc, e.TestAcc = tc.val[e.Epoch-1], float64(m.p.Value.Data[0])
				if tc.rule == selectGraph {
					e.TestAcc = nan
				}
				return tc.valLoss[e.Epoch-1], nil
			},
		}
		if tc.rule == selectGraph {
			k.test = func() (float64, error) { return float64(m.p.Value.Data[0]), nil }
		}
		stop := make(chan struct{})
		if tc.stopped {
			close(stop)
		}
		var selected float32
		var reported []Epoch
		obs := Observers(EpochFunc(func(_ int, e Epoch) { reported = append(reported, e) }),
			ModelFunc(func(_ int, _ Result, mm model.Model) { selected = mm.Groups()[0].Params[0].Value.Data[0] }))
		res, err := runEpochs(k, cfg, 0, alone(obs), stop)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("%s: error %v, want %v", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.BestEpoch != tc.wantBest || res.Epochs != tc.wantEpochs || res.ValAcc != tc.val[tc.wantBest-1] || res.ValLoss != tc.valLoss[tc.wantBest-1] {
			t.Errorf("%s: %+v, want epoch %d selected of %d", tc.name, res, tc.wantBest, tc.wantEpochs)
		}
		if res.TestAcc != float64(tc.wantBest) || selected != float32(tc.wantBest) {
			t.Errorf("%s: test accuracy %v and observed model %v, want both from epoch %d", tc.name, res.TestAcc, selected, tc.wantBest)
		}
		if m.p.Value.Data[0] != float32(tc.wantEpochs) {
			t.Errorf("%s: the run ends with epoch %v's parameters, want its last, %d", tc.name, m.p.Value.Data[0], tc.wantEpochs)
		}
		if len(reported) != tc.wantEpochs || !reported[tc.wantBest-1].Best {
			t.Errorf("%s: reported %+v", tc.name, reported)
		}
	}
}

package model_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
)

// A training pass that reads only some rows (ForwardRows) gives those rows'
// logits, and so the loss on them, bit for bit as the whole pass does,
// every parameter gradient up to rounding (the last layer has only the
// rows' parents, so sums over parents skip the others' zero terms and group
// the rest in other blocks), and finite values elsewhere, in every variant
// of the node network.
func TestPRCapsNetForwardRowsMatchesForward(t *testing.T) {
	sbm, err := data.GenerateSBM(data.SBMConfig{Edges: 900, Nodes: 120, Features: 30, NNZ: 4, Classes: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	ds := sbm.Node
	labels, err := autodiff.NewLabels(ds.Y, ds.NumClasses)
	if err != nil {
		t.Fatal(err)
	}
	rows := data.RandomSplit(ds.Y, 2, 0.3, 0.2).Train
	for name, edit := range prcapsVariants() {
		cfg := model.DefaultPRCapsConfig()
		edit(&cfg)
		pass := func(useRows bool) (logits []float32, grads [][]float32) {
			m, err := model.NewPRCapsNet(cfg, model.NodeShape(ds), 3)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var tape autodiff.Tape[float32]
			rng := rand.New(rand.NewPCG(5, 6))
			var out *autodiff.Var[float32]
			for range 2 { // the second pass reuses the first one's buffers and index
				tape.Reset()
				for _, p := range model.Params(m) {
					p.ZeroGrad()
				}
				if useRows {
					out = m.ForwardRows(&tape, ds.Graph, ds.X, rows, true, rng)
				} else {
					out = m.Forward(&tape, ds.Graph, ds.X, true, rng)
				}
				if err := tape.Backward(autodiff.SoftmaxCrossEntropy(&tape, out, labels, rows)); err != nil {
					t.Fatal(err)
				}
			}
			for _, v := range out.Value.Data {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("%s, rows %v: non-finite logit %v", name, useRows, v)
				}
			}
			c := out.Value.Cols
			for _, r := range rows {
				logits = append(logits, out.Value.Data[int(r)*c:int(r+1)*c]...)
			}
			for _, p := range model.Params(m) {
				grads = append(grads, append([]float32(nil), p.Grad.Data...))
			}
			return logits, grads
		}
		la, ga := pass(false)
		lb, gb := pass(true)
		for i := range la {
			if math.Float32bits(la[i]) != math.Float32bits(lb[i]) {
				t.Fatalf("%s: logit %d of the rows is %v, the whole pass gives %v", name, i, lb[i], la[i])
			}
		}
		for i, g := range ga {
			scale := 0.0
			for _, v := range g {
				scale = max(scale, math.Abs(float64(v)))
			}
			for q, v := range g {
				if d := math.Abs(float64(v) - float64(gb[i][q])); d > 1e-5*scale {
					t.Fatalf("%s: parameter %d, gradient element %d: %v with rows, %v without (largest |g| %v)", name, i, q, gb[i][q], v, scale)
				}
			}
		}
	}
}

// An evaluation pass that reads the validation and test rows gives their
// logits bit for bit as Forward does, while training passes on the
// training rows run beside it on another tape (the two sets of rows a run
// uses: run with -race, this also checks that they share nothing they
// write), in every variant of the node network.
func TestPRCapsNetForwardRowsTwoSetsAtOnce(t *testing.T) {
	sbm, err := data.GenerateSBM(data.SBMConfig{Edges: 900, Nodes: 120, Features: 30, NNZ: 4, Classes: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	ds := sbm.Node
	split := data.RandomSplit(ds.Y, 2, 0.6, 0.2)
	evalRows := append(append([]int32(nil), split.Val...), split.Test...)
	for name, edit := range prcapsVariants() {
		cfg := model.DefaultPRCapsConfig()
		edit(&cfg)
		m, err := model.NewPRCapsNet(cfg, model.NodeShape(ds), 3)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var whole, part autodiff.Tape[float32]
		whole.NoGrad, part.NoGrad = true, true
		want := m.Forward(&whole, ds.Graph, ds.X, false, nil)
		for round := range 3 {
			done := make(chan struct{})
			go func() { // a training pass on the training rows, beside the evaluation
				defer close(done)
				var tape autodiff.Tape[float32]
				rng := rand.New(rand.NewPCG(5, uint64(round)))
				m.ForwardRows(&tape, ds.Graph, ds.X, split.Train, true, rng)
			}()
			part.Reset()
			got := m.ForwardRows(&part, ds.Graph, ds.X, evalRows, false, nil)
			<-done
			c := got.Value.Cols
			for _, r := range evalRows {
				for q := int(r) * c; q < int(r+1)*c; q++ {
					if math.Float32bits(got.Value.Data[q]) != math.Float32bits(want.Value.Data[q]) {
						t.Fatalf("%s, round %d: row %d logit %v, Forward gives %v", name, round, r, got.Value.Data[q], want.Value.Data[q])
					}
				}
			}
		}
	}
}

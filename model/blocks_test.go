package model_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/capsule"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/sample"
)

// blockModels are the BlockModels under test, built fresh from a seed.
func blockModels(ds *data.NodeDataset) map[string]func() model.BlockModel {
	shape := model.NodeShape(ds)
	must := func(m model.BlockModel, err error) model.BlockModel {
		if err != nil {
			panic(err)
		}
		return m
	}
	return map[string]func() model.BlockModel{
		"prcapsnet": func() model.BlockModel { return must(model.NewPRCapsNet(model.DefaultPRCapsConfig(), shape, 3)) },
		"prcapsnet-2layers-pcr-sum": func() model.BlockModel {
			c := model.DefaultPRCapsConfig()
			c.Layers, c.Routing, c.Stem = 2, model.RoutingPCR, model.StemSum
			return must(model.NewPRCapsNet(c, shape, 3))
		},
		"gcn": func() model.BlockModel { return must(model.NewGCN(model.DefaultGCNConfig(), shape, 3)) },
		"gat": func() model.BlockModel { return must(model.NewGAT(model.DefaultGATConfig(), shape, 3)) },
		"tgnn": func() model.BlockModel {
			c := model.DefaultTGNNConfig()
			c.Hidden = 16
			return must(model.NewTGNN(c, shape, 3))
		},
		"tgnn-sage-residual-layernorm": func() model.BlockModel {
			c := model.DefaultTGNNConfig()
			c.Conv, c.Hidden, c.Residual, c.Norm, c.Layers = model.ConvSAGE, 16, true, model.NormLayer, 2
			return must(model.NewTGNN(c, shape, 3))
		},
		"tgnn-gat-2heads-residual": func() model.BlockModel {
			c := model.DefaultTGNNConfig()
			c.Conv, c.Hidden, c.Heads, c.Residual = model.ConvGAT, 16, 2, true
			return must(model.NewTGNN(c, shape, 3))
		},
		"gatv2-2heads-out2": func() model.BlockModel {
			c := model.DefaultGATConfig()
			c.V2, c.Heads, c.OutHeads = true, 2, 2
			return must(model.NewGAT(c, shape, 3))
		},
	}
}

func closeTo(a, b []float32, tol float64) (int, bool) {
	scale := 0.0
	for _, v := range a {
		scale = max(scale, math.Abs(float64(v)))
	}
	for i := range a {
		if math.Abs(float64(a[i])-float64(b[i])) > tol*(1+scale) || math.IsNaN(float64(b[i])) {
			return i, false
		}
	}
	return 0, true
}

// With every fan-out −1 and one batch holding every training node, the
// sampled pass gives the training nodes' logits of the full-batch pass, and
// the same parameter gradients of the loss on them (up to rounding: the
// sums run over children in another order); layer-wise inference gives
// every node's logits.
func TestBlocksMatchFullBatch(t *testing.T) {
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
	for name, build := range blockModels(ds) {
		t.Run(name, func(t *testing.T) {
			full := build()
			if err := full.CheckBlocks(); err != nil {
				t.Fatal(err)
			}
			var tape autodiff.Tape[float32]
			out := full.Forward(&tape, ds.Graph, ds.X, false, nil)
			if err := tape.Backward(autodiff.SoftmaxCrossEntropy(&tape, out, labels, rows)); err != nil {
				t.Fatal(err)
			}
			var want []float32
			C := out.Value.Cols
			for _, r := range rows {
				want = append(want, out.Value.Row(int(r))...)
			}
			wantAll := append([]float32(nil), out.Value.Data...)
			var wantGrads [][]float32
			for _, p := range model.Params(full) {
				wantGrads = append(wantGrads, append([]float32(nil), p.Grad.Data...))
			}

			m := build()
			fan := make(sample.Fanouts, m.Depth())
			for i := range fan {
				fan[i] = -1
			}
			s, err := sample.NewSampler(ds.Graph, fan)
			if err != nil {
				t.Fatal(err)
			}
			var b sample.Batch
			if err := s.Sample(&b, rows, rand.New(rand.NewPCG(1, 1))); err != nil {
				t.Fatal(err)
			}
			var bt autodiff.Tape[float32]
			for range 2 { // the second pass reuses the first one's operators
				bt.Reset()
				for _, p := range model.Params(m) {
					p.ZeroGrad()
				}
				got := model.ForwardBatch(&bt, m, &b, ds.X, false, nil)
				seedRows := make([]int32, len(rows))
				for i := range seedRows {
					seedRows[i] = int32(i)
				}
				bl, err := autodiff.NewLabels(gatherLabels(ds.Y, rows), ds.NumClasses)
				if err != nil {
					t.Fatal(err)
				}
				if err := bt.Backward(autodiff.SoftmaxCrossEntropy(&bt, got, bl, seedRows)); err != nil {
					t.Fatal(err)
				}
				if got.Value.Rows != len(rows) || got.Value.Cols != C {
					t.Fatalf("batch logits %d×%d, want %d×%d", got.Value.Rows, got.Value.Cols, len(rows), C)
				}
				if i, ok := closeTo(want, got.Value.Data, 1e-5); !ok {
					t.Fatalf("logit %d: sampled %v, full batch %v", i, got.Value.Data[i], want[i])
				}
				for k, p := range model.Params(m) {
					if i, ok := closeTo(wantGrads[k], p.Grad.Data, 1e-4); !ok {
						t.Fatalf("%s: gradient %d: sampled %v, full batch %v", p.Name, i, p.Grad.Data[i], wantGrads[k][i])
					}
				}
			}
			all := make([]int32, ds.Graph.N)
			for i := range all {
				all[i] = int32(i)
			}
			for _, block := range []int{1, 17, 1000} {
				var lw model.Layerwise
				var et autodiff.Tape[float32]
				et.NoGrad = true
				logits, err := model.LayerwiseLogits(&et, m, ds.Graph, ds.X, all, block, &lw)
				if err != nil {
					t.Fatal(err)
				}
				if i, ok := closeTo(wantAll, logits.Data, 1e-5); !ok {
					t.Fatalf("blocks of %d: layer-wise logit %d is %v, full batch %v", block, i, logits.Data[i], wantAll[i])
				}
				// A subset of the nodes, out of order: its rows only, in its order.
				some := rand.New(rand.NewPCG(uint64(block), 3)).Perm(ds.Graph.N)[:ds.Graph.N/3]
				rows := make([]int32, len(some))
				var want []float32
				for i, v := range some {
					rows[i] = int32(v)
					want = append(want, wantAll[v*C:(v+1)*C]...)
				}
				logits, err = model.LayerwiseLogits(&et, m, ds.Graph, ds.X, rows, block, &lw)
				if err != nil {
					t.Fatal(err)
				}
				if logits.Rows != len(rows) {
					t.Fatalf("blocks of %d: %d rows of logits for %d nodes", block, logits.Rows, len(rows))
				}
				if i, ok := closeTo(want, logits.Data, 1e-5); !ok {
					t.Fatalf("blocks of %d, some nodes: layer-wise logit %d is %v, full batch %v", block, i, logits.Data[i], want[i])
				}
			}
		})
	}
}

func gatherLabels(y, rows []int32) []int32 {
	out := make([]int32, len(rows))
	for i, r := range rows {
		out[i] = y[r]
	}
	return out
}

// A sampled pass with small fan-outs keeps every logit finite and touches
// only the sampled nodes.
func TestBlocksSampledFinite(t *testing.T) {
	sbm, err := data.GenerateSBM(data.SBMConfig{Edges: 2000, Nodes: 300, Features: 20, NNZ: 4, Classes: 3, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	ds := sbm.Node
	for name, build := range blockModels(ds) {
		m := build()
		fan := make(sample.Fanouts, m.Depth())
		for i := range fan {
			fan[i] = 2 + i
		}
		s, err := sample.NewSampler(ds.Graph, fan)
		if err != nil {
			t.Fatal(err)
		}
		var b sample.Batch
		var tape autodiff.Tape[float32]
		rng := rand.New(rand.NewPCG(1, 2))
		for k := range 3 {
			if err := s.Sample(&b, []int32{int32(k), 10, 50, 299}, rng); err != nil {
				t.Fatal(err)
			}
			tape.Reset()
			out := model.ForwardBatch(&tape, m, &b, ds.X, true, rng)
			if out.Value.Rows != 4 {
				t.Fatalf("%s: %d rows for 4 seeds", name, out.Value.Rows)
			}
			for _, v := range out.Value.Data {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("%s: non-finite logit", name)
				}
			}
		}
	}
}

func TestBlocksRejects(t *testing.T) {
	sbm, err := data.GenerateSBM(data.SBMConfig{Edges: 200, Nodes: 50, Features: 5, NNZ: 2, Classes: 2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, edit := range []func(*model.PRCapsConfig){
		func(c *model.PRCapsConfig) { c.Routing = model.RoutingNone },
		func(c *model.PRCapsConfig) { c.Coupling = capsule.CouplingOverParents },
	} {
		c := model.DefaultPRCapsConfig()
		edit(&c)
		m, err := model.NewPRCapsNet(c, model.NodeShape(sbm.Node), 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.CheckBlocks(); err == nil {
			t.Errorf("%s accepted for sampling", fmt.Sprint(c.Routing, c.Coupling))
		}
	}
	c := model.DefaultTGNNConfig()
	c.JK = true
	m, err := model.NewTGNN(c, model.NodeShape(sbm.Node), 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CheckBlocks(); err == nil {
		t.Error("tgnn with jk accepted for sampling")
	}
}

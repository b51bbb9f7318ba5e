package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/nn"
	"github.com/prcaps/prcaps/optim"
	"github.com/prcaps/prcaps/tensor"
)

// This file is the whole of a new model: a two-layer MLP that ignores the
// graph, registered under a test name. Nothing outside this file knows it,
// yet `prcaps train` trains it, with its option as a flag, under the same
// protocol as every other model (TestToyModelThroughCLI).

func init() {
	model.Register(model.Spec{
		Name: "test-mlp", Task: data.NodeTask, Summary: "test: a graph-agnostic two-layer MLP",
		// Its training recipe: Adam at lr 0.01, weight decay 5e-4, 100 epochs.
		Recipe:  model.Recipe{Epochs: 100, LR: 0.01, WeightDecay: 5e-4, Optimizer: "adam", StepEvery: model.DefaultStepEvery},
		Default: func() model.Config { return &toyConfig{Width: 32} },
		Build: func(cfg model.Config, shape model.Shape, seed uint64) (model.Model, error) {
			c := cfg.(*toyConfig)
			rng := rand.New(rand.NewPCG(seed, 9))
			return &toyMLP{
				l1: nn.NewLinear[float32]("l1", shape.Features, c.Width, true, rng),
				l2: nn.NewLinear[float32]("l2", c.Width, shape.Classes, true, rng),
			}, nil
		},
	})
}

type toyConfig struct {
	Width int `opt:"mlp-width" min:"1" help:"test-mlp: hidden width"`
}

func (c toyConfig) Validate() error {
	if c.Width < 1 {
		return fmt.Errorf("width %d must be positive", c.Width)
	}
	return nil
}

// ParamBytes and EstimateBytes are the memory estimate every model has
// (model.MemoryEstimator): the two layers' weights, and in a training step
// those four times (value, gradient, two moments) and the nodes' hidden
// and output rows with their gradients.
func (c toyConfig) ParamBytes(shape model.Shape) int64 {
	return 4 * int64((shape.Features+1)*c.Width+(c.Width+1)*shape.Classes)
}

func (c toyConfig) EstimateBytes(shape model.Shape, size model.Size) int64 {
	return 4*c.ParamBytes(shape) + 4*2*int64(size.Nodes)*int64(2*c.Width+shape.Classes)
}

type toyMLP struct {
	l1, l2 *nn.Linear[float32]
	x      nn.SparseInput[float32]
	src    *tensor.CSR[float32]
}

func (m *toyMLP) Forward(t *autodiff.Tape[float32], _ *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	if x.Sparse != m.src {
		m.x.Reset(x.Sparse)
		m.src = x.Sparse
	}
	h := autodiff.ReLU(t, m.l1.ForwardSparse(t, m.x.Apply(0, rng, training)))
	return m.l2.Forward(t, autodiff.Dropout(t, h, 0.5, rng, training))
}

func (m *toyMLP) Groups() []optim.Group[float32] {
	return []optim.Group[float32]{{Name: "weights", Params: append(m.l1.Params(), m.l2.Params()...)}}
}

func TestToyModelThroughCLI(t *testing.T) {
	code, out, errOut := runCLI("train", "--model", "test-mlp", "--mlp-width", "16", "--epochs", "40", "--seeds", "2", "--data", "", "--json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var sum struct {
		Model   string  `json:"model"`
		Runs    int     `json:"runs"`
		MeanAcc float64 `json:"mean_acc"`
		Params  int     `json:"params"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(err)
	}
	// Cora's largest class is 30% of the nodes; a feature-only MLP reaches
	// about 0.7 with 60% of the labels.
	if sum.Model != "test-mlp" || sum.Runs != 2 || sum.MeanAcc < 0.55 || sum.Params != 1433*16+16+16*7+7 {
		t.Errorf("summary %s: want test-mlp over 2 runs above 0.55 with %d parameters", lines[len(lines)-1], 1433*16+16+16*7+7)
	}
	// Its option is a flag of every model's command line, refused where
	// it does not apply and checked by the model's Validate.
	if code, _, errOut := runCLI("train", "--mlp-width", "8", "--epochs", "1"); code != 2 || !strings.Contains(errOut, "--mlp-width does not apply") {
		t.Errorf("--mlp-width for prcapsnet: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCLI("train", "--model", "test-mlp", "--mlp-width", "0", "--epochs", "1"); code != 2 || !strings.Contains(errOut, "width 0") {
		t.Errorf("--mlp-width 0: exit %d, %q", code, errOut)
	}
}

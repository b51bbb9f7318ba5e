package experiment

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/internal/kernels"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/train"
)

// speedEpochs is the length of every timed run unless Options.Epochs says
// otherwise: the 200 epochs of PR-CapsNet's and GCN's node recipes.
const speedEpochs = 200

// speedRecord is the JSON object printed per timed run of the speed suite.
type speedRecord struct {
	Table   string  `json:"table"`
	Variant string  `json:"variant"`
	Model   string  `json:"model"`
	Dataset string  `json:"dataset"`
	Epochs  int     `json:"epochs"`
	Params  int     `json:"params"`
	Repeat  int     `json:"repeat"`
	Seconds float64 `json:"seconds"`
	TestAcc float64 `json:"test_acc"`
	Error   string  `json:"error,omitempty"`
	CPU     string  `json:"cpu"`     // the processor's model name
	Kernels string  `json:"kernels"` // the kernel set (PRCAPS_KERNELS)
}

// RunSpeed times whole runs (model construction and every epoch with its
// evaluation) of each variant on Options.Dataset and emits a table of
// their median, min and max.
func (b *Bench) RunSpeed(vs []Variant) error {
	if len(vs) == 0 {
		return fmt.Errorf("%w: no speed variant", ErrSelection)
	}
	ds, err := b.load(b.opt.Dataset, data.NodeTask)
	if err != nil {
		return err
	}
	tab := &report.Table{Name: "speed", Title: fmt.Sprintf("Speed: whole training runs on %s, %s split, median of %d", ds.Name, b.opt.Split, b.opt.Repeat),
		Columns: []string{"Model", "Epochs", "Median (s)", "Min (s)", "Max (s)", "ms/epoch", "Params", "× first"}}
	first := 0.0 // the first variant's median
	for i, v := range vs {
		row, med, err := b.timeVariant(v, ds)
		if err == nil {
			b.finished++
			if i == 0 {
				first = med
			}
			ratio := report.Missing
			if first > 0 {
				ratio = fmt.Sprintf("%.2f", med/first)
			}
			row = append(row, ratio)
		}
		if err != nil {
			if err := b.record(speedRecord{Table: "speed", Variant: v.Label, Model: v.Model, Dataset: ds.Name, Error: err.Error(), CPU: kernels.CPU(), Kernels: kernels.Name()}); err != nil {
				return err
			}
			msg := fmt.Sprintf("%s failed: %v", v.Label, err)
			b.failed = append(b.failed, "speed: "+msg)
			tab.AddNote("%s.", msg)
			b.progress.Line("speed: %s", msg)
			row = []string{v.Label, report.Missing, report.Failed, report.Missing, report.Missing, report.Missing, report.Missing, report.Missing}
		}
		tab.AddRow(row...)
	}
	tab.AddNote("Wall time of a whole run: model construction plus every epoch (training step and evaluation of all nodes), seed %d, GOMAXPROCS %d, CPU %s, kernel set %s (%s); every model trains the same number of epochs, with no early stopping. \"× first\": median over the first row's median. DESIGN §9's target for the default PR-CapsNet 200-epoch Cora run is 1 s or less.",
		b.opt.FirstSeed, runtime.GOMAXPROCS(0), kernels.CPU(), kernels.Name(), kernels.EnvVar)
	return b.emit(tab)
}

// timeVariant runs v --repeat times on ds and returns its table row and
// median seconds.
func (b *Bench) timeVariant(v Variant, ds *data.Dataset) ([]string, float64, error) {
	mc, tc, err := b.variantConfig(Table{}, v, strings.ToLower(b.opt.Dataset))
	if err != nil {
		return nil, 0, err
	}
	// One run at a time, refused like any run if it cannot fit.
	if _, err := (Run{Model: v.Model, Config: mc, Dataset: ds, Node: train.NodeProtocol{Seeds: 1, Parallel: 1}}).checkMemory(machineMemory()); err != nil {
		return nil, 0, err
	}
	// Every model trains the same fixed number of epochs, whatever its
	// recipe's length or patience, so the times compare.
	if b.opt.Epochs == 0 {
		tc.Epochs = speedEpochs
	}
	tc.Patience = 0
	split, err := b.speedSplit(ds.Node)
	if err != nil {
		return nil, 0, err
	}
	seed := uint64(b.opt.FirstSeed)
	var secs []float64
	params := 0
	for i := range b.opt.Repeat {
		t0 := time.Now()
		m, err := model.NewNode(v.Model, mc, model.NodeShape(ds.Node), seed)
		if err != nil {
			return nil, 0, err
		}
		params = model.CountParams(m)
		r, err := train.RunNode(m, ds.Node, split, tc, seed, nil)
		if err != nil {
			return nil, 0, err
		}
		s := time.Since(t0).Seconds()
		secs = append(secs, s)
		b.runs++
		b.progress.Line("speed: %s run %d/%d: %.3f s (test %.3f)", v.Label, i+1, b.opt.Repeat, s, r.TestAcc)
		rec := speedRecord{"speed", v.Label, v.Model, ds.Name, tc.Epochs, params, i, s, r.TestAcc, "", kernels.CPU(), kernels.Name()}
		if err := b.record(rec); err != nil {
			return nil, 0, err
		}
	}
	sort.Float64s(secs)
	med := median(secs)
	return []string{v.Label, fmt.Sprint(tc.Epochs), fmt.Sprintf("%.3f", med), fmt.Sprintf("%.3f", secs[0]),
		fmt.Sprintf("%.3f", secs[len(secs)-1]), fmt.Sprintf("%.2f", 1000*med/float64(tc.Epochs)), report.Params(params)}, med, nil
}

func (b *Bench) speedSplit(nd *data.NodeDataset) (data.Split, error) {
	if b.opt.Split == "public" {
		if nd.Public == nil {
			return data.Split{}, fmt.Errorf("%s has no public split; use the random split", nd.Name)
		}
		return *nd.Public, nil
	}
	return data.RandomSplit(nd.Y, uint64(b.opt.FirstSeed), 0.6, 0.2), nil
}

// median of sorted xs.
func median(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

package experiment

import (
	"fmt"
	"runtime"
	"sort"
	"time"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/train"
)

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
		Columns: []string{"Model", "Epochs", "Median (s)", "Min (s)", "Max (s)", "ms/epoch", "Params"}}
	for _, v := range vs {
		row, err := b.timeVariant(v, ds)
		if err != nil {
			if err := b.record(speedRecord{Table: "speed", Variant: v.Label, Model: v.Model, Dataset: ds.Name, Error: err.Error()}); err != nil {
				return err
			}
			msg := fmt.Sprintf("%s failed: %v", v.Label, err)
			b.failed = append(b.failed, "speed: "+msg)
			tab.AddNote("%s.", msg)
			b.progress.Line("speed: %s", msg)
			row = []string{v.Label, report.Missing, report.Failed, report.Missing, report.Missing, report.Missing, report.Missing}
		}
		tab.AddRow(row...)
	}
	tab.AddNote("Wall time of a whole run: model construction plus every epoch (training step and evaluation of all nodes), seed %d, GOMAXPROCS %d. DESIGN §9's target for the default PR-CapsNet 200-epoch Cora run is 1 s or less.",
		b.opt.FirstSeed, runtime.GOMAXPROCS(0))
	return b.emit(tab)
}

// timeVariant runs v --repeat times on ds and returns its table row.
func (b *Bench) timeVariant(v Variant, ds *data.Dataset) ([]string, error) {
	mc, tc, err := b.variantConfig(Table{}, v, "")
	if err != nil {
		return nil, err
	}
	split, err := b.speedSplit(ds.Node)
	if err != nil {
		return nil, err
	}
	seed := uint64(b.opt.FirstSeed)
	var secs []float64
	params := 0
	for i := range b.opt.Repeat {
		t0 := time.Now()
		m, err := model.NewNode(v.Model, mc, model.NodeShape(ds.Node), seed)
		if err != nil {
			return nil, err
		}
		params = model.CountParams(m)
		r, err := train.RunNode(m, ds.Node, split, tc, seed, nil)
		if err != nil {
			return nil, err
		}
		s := time.Since(t0).Seconds()
		secs = append(secs, s)
		b.runs++
		b.progress.Line("speed: %s run %d/%d: %.3f s (test %.3f)", v.Label, i+1, b.opt.Repeat, s, r.TestAcc)
		rec := speedRecord{"speed", v.Label, v.Model, ds.Name, tc.Epochs, params, i, s, r.TestAcc, ""}
		if err := b.record(rec); err != nil {
			return nil, err
		}
	}
	sort.Float64s(secs)
	med := median(secs)
	return []string{v.Label, fmt.Sprint(tc.Epochs), fmt.Sprintf("%.3f", med), fmt.Sprintf("%.3f", secs[0]),
		fmt.Sprintf("%.3f", secs[len(secs)-1]), fmt.Sprintf("%.2f", 1000*med/float64(tc.Epochs)), report.Params(params)}, nil
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

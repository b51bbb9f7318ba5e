package experiment

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/train"
)

// scaleSampledSteps are the steps timed at each size of the sampled scale
// suite, after scaleSampledWarm untimed ones.
const (
	scaleSampledSteps = 30
	scaleSampledWarm  = 3
)

// scaleSampledRecord is the JSON object printed per size of the sampled
// scale suite.
type scaleSampledRecord struct {
	Table      string  `json:"table"`
	Model      string  `json:"model"`
	Fanout     string  `json:"fanout"`
	BatchNodes int     `json:"batch_nodes"`
	Edges      int     `json:"edges"`
	Nodes      int     `json:"nodes"`
	Links      int     `json:"links"`
	Steps      int     `json:"steps"`
	StepSecs   float64 `json:"step_seconds"` // median
	NsPerSeed  float64 `json:"ns_per_seed"`  // median step / seeds per step
	// CPUNsPerSeed is the process's CPU time (all goroutines, the
	// sampler's and the collector's included) over the timed steps per
	// seed node: steadier than wall time on a shared machine. 0 if unknown.
	CPUNsPerSeed float64 `json:"cpu_ns_per_seed"`
	PeakBytes    int64   `json:"peak_bytes"`  // the process's peak resident set, dataset included; 0 if unknown
	GraphBytes   int64   `json:"graph_bytes"` // the arrays of the graph, features and labels
	BaseBytes    int64   `json:"base_bytes"`  // the resident set before training (dataset loaded)
	TrainBytes   int64   `json:"train_bytes"` // peak − base: what training adds
	// EvalSecs is the wall time of one evaluation after the steps (the
	// layer-wise inference with every neighbour that ends each sampled
	// epoch), and EvalBytes the process's peak resident set during it
	// minus BaseBytes: the nodes × width matrix it holds grows with the
	// graph's nodes, as PyG's layer-wise inference does.
	EvalSecs  float64 `json:"eval_seconds"`
	EvalBytes int64   `json:"eval_bytes"`
	Error     string  `json:"error,omitempty"`
}

// RunScaleSampled is the scale suite in its sampled mode (Options.Sampling):
// on each generated graph it times scaleSampledSteps mini-batch steps of
// node PR-CapsNet (the sampling on its own goroutine, the step's wait for
// its batch included) and reports the time per seed node and the peak
// memory, split into the graph's own storage and what training adds. At a
// fixed batch and fan-outs, neither should grow with the graph. One
// evaluation follows the steps, timed and measured apart.
func (b *Bench) RunScaleSampled(edges []int) error {
	smp := b.opt.Sampling
	tab := &report.Table{Name: "scale-sampled", Title: fmt.Sprintf("Scale: node PR-CapsNet, sampled mini-batches (fan-outs %v, %d seeds per batch), on stochastic block model graphs", smp.Fanout, smp.BatchNodes),
		Columns: []string{"Edges", "Nodes", "s/step", "µs/seed node", "CPU µs/seed node", "Peak MiB", "Graph MiB", "Training MiB", "Eval s", "Eval MiB"}}
	var perSeed []float64
	var train []int64
	for _, e := range edges {
		rec, err := b.scaleSampledPoint(e)
		if err != nil {
			rec.Error = err.Error()
			msg := fmt.Sprintf("%s edges: %v", report.Params(e), err)
			tab.AddNote("Not run at %s.", msg)
			b.progress.Line("scale: %s", msg)
			tab.AddRow(report.Params(e), report.Missing, report.Missing, report.Missing, report.Missing, report.Missing, report.Missing, report.Missing, report.Missing, report.Failed)
			b.failed = append(b.failed, "scale: "+msg)
		} else {
			b.finished++
			perSeed = append(perSeed, rec.NsPerSeed)
			peak, tr, ev := report.Missing, report.Missing, report.Missing
			if rec.PeakBytes > 0 {
				peak, tr = fmt.Sprintf("%.0f", float64(max(rec.PeakBytes, rec.BaseBytes+rec.EvalBytes))/(1<<20)), fmt.Sprintf("%.0f", float64(rec.TrainBytes)/(1<<20))
				ev = fmt.Sprintf("%.0f", float64(rec.EvalBytes)/(1<<20))
				train = append(train, rec.TrainBytes)
			}
			tab.AddRow(report.Params(rec.Edges), report.Params(rec.Nodes), fmt.Sprintf("%.3f", rec.StepSecs), fmt.Sprintf("%.1f", rec.NsPerSeed/1e3),
				fmt.Sprintf("%.1f", rec.CPUNsPerSeed/1e3), peak, fmt.Sprintf("%.1f", float64(rec.GraphBytes)/(1<<20)), tr, fmt.Sprintf("%.1f", rec.EvalSecs), ev)
		}
		if err := b.record(rec); err != nil {
			return err
		}
	}
	tab.AddNote("Each size: data.GenerateSBM (as the full-batch scale table; seed %d), one random 60/20/20 split, the default node PR-CapsNet and its recipe; "+
		"%d mini-batch steps timed after %d, each from a sample.Stream drawing ahead on its own goroutine (the step's wait included); s/step is the median, "+
		"µs/seed node the median step over its seeds, CPU µs/seed node the process's CPU time over the timed steps (every goroutine) per seed node. Peak: the process's resident-set high-water mark over the steps and one evaluation after them; Graph: the arrays of the graph, features and labels; "+
		"Training: the high-water mark during the steps minus the resident set before them (dataset loaded, garbage collected). "+
		"Eval: one evaluation after the steps, the layer-wise inference with every neighbour over the validation and test nodes that ends each sampled epoch, its wall time and its high-water mark minus the same base "+
		"(it holds a nodes × width matrix, so it grows with the graph's nodes, as PyG's layer-wise inference does). GOMAXPROCS %d.",
		b.opt.FirstSeed, scaleSampledSteps, scaleSampledWarm, runtime.GOMAXPROCS(0))
	if len(perSeed) > 1 {
		tab.AddNote("Time per seed node varies by %.2f× from the cheapest size to the dearest.", slices.Max(perSeed)/slices.Min(perSeed))
	}
	if len(train) > 1 {
		tab.AddNote("Training memory varies by %.2f× from the smallest to the largest.", float64(slices.Max(train))/float64(max(slices.Min(train), 1)))
	}
	return b.emit(tab)
}

// graphBytes is the storage of nd's graph, features and labels.
func graphBytes(nd *data.NodeDataset) int64 {
	g := nd.Graph
	n := int64(4*len(g.Ptr) + 4*len(g.Src) + 4*len(nd.Y))
	if x := nd.X.Sparse; x != nil {
		n += int64(4*len(x.Indptr) + 4*len(x.Indices) + 4*len(x.Data))
	}
	if x := nd.X.Dense; x != nil {
		n += int64(4 * len(x.Data))
	}
	return n
}

func (b *Bench) scaleSampledPoint(e int) (rec scaleSampledRecord, err error) {
	smp := b.opt.Sampling
	rec = scaleSampledRecord{Table: "scale-sampled", Model: "prcapsnet", Fanout: smp.Fanout.String(), BatchNodes: smp.BatchNodes, Edges: e, Steps: scaleSampledSteps}
	b.progress.Line("scale: generating a stochastic block model graph of %s edges", report.Params(e))
	ds, err := data.GenerateSBM(data.SBMConfig{Edges: e, Seed: uint64(b.opt.FirstSeed)})
	if err != nil {
		return rec, err
	}
	nd := ds.Node
	rec.Edges, rec.Nodes, rec.Links = nd.Graph.NumArcs()/2, nd.Graph.N, nd.Graph.NumArcs()+nd.Graph.N
	rec.GraphBytes = graphBytes(nd)
	mc, err := model.DefaultConfig(data.NodeTask, "prcapsnet")
	if err != nil {
		return rec, err
	}
	tc := train.Recipe(data.NodeTask, "prcapsnet")
	seed := uint64(b.opt.FirstSeed)
	m, err := model.NewNode("prcapsnet", mc, model.NodeShape(nd), seed)
	if err != nil {
		return rec, err
	}
	split := data.RandomSplit(nd.Y, seed, 0.6, 0.2)
	runtime.GC()
	debug.FreeOSMemory() // the generator's garbage must not count as the run's
	rec.BaseBytes = currentRSS()
	measured := resetPeakRSS()
	var cpu0, cpu1 float64
	res, err := train.SampledSteps(m, nd, split, tc, smp, seed, train.StepRun{
		Steps: scaleSampledWarm + scaleSampledSteps,
		OnStep: func(i int) {
			switch i {
			case scaleSampledWarm - 1:
				cpu0 = cpuSeconds()
			case scaleSampledWarm + scaleSampledSteps - 1:
				cpu1 = cpuSeconds()
			}
		},
		Evaluate: true,
		BeforeEval: func() {
			if measured {
				rec.PeakBytes = peakRSS()
				rec.TrainBytes = rec.PeakBytes - rec.BaseBytes
				measured = resetPeakRSS()
			}
		},
	})
	if err != nil {
		return rec, err
	}
	secs, seeds := res.Secs, res.Seeds
	rec.EvalSecs = res.EvalSecs
	timedSeeds := 0
	for _, n := range seeds[scaleSampledWarm:] {
		timedSeeds += n
	}
	if cpu1 > 0 {
		rec.CPUNsPerSeed = 1e9 * (cpu1 - cpu0) / float64(timedSeeds)
	}
	b.runs++
	per := make([]float64, 0, scaleSampledSteps)
	for i := scaleSampledWarm; i < len(secs); i++ {
		per = append(per, secs[i]/float64(seeds[i]))
	}
	timed := slices.Clone(secs[scaleSampledWarm:])
	slices.Sort(timed)
	slices.Sort(per)
	rec.StepSecs, rec.NsPerSeed = median(timed), 1e9*median(per)
	if measured && rec.PeakBytes > 0 {
		rec.EvalBytes = peakRSS() - rec.BaseBytes
	}
	runtime.KeepAlive(nd)
	b.progress.Line("scale: %s edges, sampled: %.3f s/step, %.1f µs per seed node, peak %.0f MiB (graph %.0f, training %.0f); evaluation %.1f s, %.0f MiB beside the graph",
		report.Params(rec.Edges), rec.StepSecs, rec.NsPerSeed/1e3, float64(rec.PeakBytes)/(1<<20), float64(rec.GraphBytes)/(1<<20), float64(rec.TrainBytes)/(1<<20),
		rec.EvalSecs, float64(rec.EvalBytes)/(1<<20))
	return rec, nil
}

package experiment

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/train"
)

// DefaultScaleEdges are the graph sizes of the scale suite: 10^5 to 10^7
// undirected edges.
var DefaultScaleEdges = []int{100_000, 1_000_000, 10_000_000}

// MaxScaleEdges bounds the edge counts of the scale suite (ParseEdges).
const MaxScaleEdges = 1 << 29

// ParseEdges reads the scale suite's edge counts from a comma-separated
// list of whole numbers, such as "1e5,1e6" or "250000", each in
// [1, MaxScaleEdges]. An empty list gives none (the suite's default).
func ParseEdges(list string) ([]int, error) {
	var edges []int
	for _, e := range strings.Split(list, ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		x, err := strconv.ParseFloat(e, 64)
		if err != nil || x != math.Trunc(x) || x < 1 || x > MaxScaleEdges {
			return nil, fmt.Errorf("%q is not a whole number of edges in [1, %d]", e, MaxScaleEdges)
		}
		edges = append(edges, int(x))
	}
	return edges, nil
}

// scaleEpochs is the length of each scale run unless Options.Epochs says
// otherwise: the first epoch allocates, the rest give the steady state.
const scaleEpochs = 5

// scaleRecord is the JSON object printed per size of the scale suite.
type scaleRecord struct {
	Table        string  `json:"table"`
	Model        string  `json:"model"`
	Edges        int     `json:"edges"` // undirected, after merging duplicates
	Nodes        int     `json:"nodes"`
	Links        int     `json:"links"` // arcs plus self-loops: the routing's child-parent pairs
	Params       int     `json:"params"`
	Epochs       int     `json:"epochs"`
	EpochSeconds float64 `json:"epoch_seconds"` // median over the epochs after the first
	NsPerLink    float64 `json:"ns_per_link"`   // per epoch
	PeakBytes    int64   `json:"peak_bytes"`    // the process's peak resident set during the run, 0 if unknown
	BytesPerLink float64 `json:"bytes_per_link"`
	TestAcc      float64 `json:"test_acc"`
	Error        string  `json:"error,omitempty"`
}

// RunScale trains node PR-CapsNet (its default configuration and recipe)
// for a few epochs on stochastic block model graphs of the given numbers
// of undirected edges (data.GenerateSBM: mean degree 20, 5 classes, 500
// sparse features), smallest first, and emits a table of the time per
// epoch and per link and the peak memory per link. A size whose estimated
// memory does not fit the machine is skipped with a note.
func (b *Bench) RunScale(edges []int) error {
	if len(edges) == 0 {
		edges = DefaultScaleEdges
	}
	edges = slices.Sorted(slices.Values(edges)) // the peak of a smaller size must not hide in a larger one's
	if b.opt.Sampling.On() {
		return b.RunScaleSampled(edges)
	}
	epochs := b.opt.Epochs
	if epochs == 0 {
		epochs = scaleEpochs
	}
	if epochs < 2 {
		return fmt.Errorf("scale: need at least 2 epochs (the first is not timed), got %d", epochs)
	}
	tab := &report.Table{Name: "scale", Title: "Scale: node PR-CapsNet on stochastic block model graphs",
		Columns: []string{"Edges", "Nodes", "Links", "s/epoch", "ns/link/epoch", "Peak MiB", "KiB/link", "Test ACC"}}
	var perLink []float64
	for _, e := range edges {
		rec, skip, err := b.scalePoint(e, epochs)
		if skip != nil {
			rec.Error = skip.Error()
			tab.AddNote("Not run at %s edges: %v.", report.Params(e), skip)
			b.progress.Line("scale: skipping %s edges: %v", report.Params(e), skip)
			tab.AddRow(report.Params(e), report.Missing, report.Missing, report.Missing, report.Missing, report.Missing, report.Missing, report.Missing)
		} else if err != nil {
			rec.Error = err.Error()
			msg := fmt.Sprintf("%s edges: %v", report.Params(e), err)
			tab.AddNote("Not run at %s.", msg)
			b.progress.Line("scale: %s", msg)
			tab.AddRow(report.Params(e), report.Missing, report.Missing, report.Missing, report.Missing, report.Missing, report.Missing, report.Failed)
			b.failed = append(b.failed, "scale: "+msg)
		} else {
			b.finished++
			perLink = append(perLink, rec.NsPerLink)
			peak, kib := report.Missing, report.Missing
			if rec.PeakBytes > 0 {
				peak, kib = fmt.Sprintf("%.0f", float64(rec.PeakBytes)/(1<<20)), fmt.Sprintf("%.2f", rec.BytesPerLink/1024)
			}
			tab.AddRow(report.Params(rec.Edges), report.Params(rec.Nodes), report.Params(rec.Links), fmt.Sprintf("%.3f", rec.EpochSeconds),
				fmt.Sprintf("%.0f", rec.NsPerLink), peak, kib, fmt.Sprintf("%.3f", rec.TestAcc))
		}
		if err := b.record(rec); err != nil {
			return err
		}
	}
	tab.AddNote("Each size: data.GenerateSBM (mean degree 20, 5 classes, homophily 0.8, 500 binary features, 10 per node, half of them from the class's block; seed %d), "+
		"one random 60/20/20 split, %d epochs of the default node PR-CapsNet and its recipe; s/epoch is the median wall time of the epochs after the first "+
		"(training step and evaluation), GOMAXPROCS %d. Peak: the process's resident-set high-water mark during the run (dataset included); "+
		"links are arcs plus one self-loop per node.", b.opt.FirstSeed, epochs, runtime.GOMAXPROCS(0))
	if len(perLink) > 1 {
		tab.AddNote("Time per link varies by %.2f× from the cheapest size to the dearest.", slices.Max(perLink)/slices.Min(perLink))
	}
	return b.emit(tab)
}

// scalePoint generates the graph of e edges and times a run on it. skip
// is why a size that cannot fit the machine's memory was not run.
func (b *Bench) scalePoint(e, epochs int) (rec scaleRecord, skip, err error) {
	rec = scaleRecord{Table: "scale", Model: "prcapsnet", Edges: e, Epochs: epochs}
	b.progress.Line("scale: generating a stochastic block model graph of %s edges", report.Params(e))
	ds, err := data.GenerateSBM(data.SBMConfig{Edges: e, Seed: uint64(b.opt.FirstSeed)})
	if err != nil {
		return rec, nil, err
	}
	nd := ds.Node
	rec.Edges, rec.Nodes, rec.Links = nd.Graph.NumArcs()/2, nd.Graph.N, nd.Graph.NumArcs()+nd.Graph.N
	run := Run{Model: "prcapsnet", Dataset: ds, Node: train.NodeProtocol{Seeds: 1}}
	if _, err := run.checkMemory(machineMemory()); err != nil {
		return rec, err, nil
	}
	mc, err := model.DefaultConfig(data.NodeTask, "prcapsnet")
	if err != nil {
		return rec, nil, err
	}
	tc := train.Recipe(data.NodeTask, "prcapsnet")
	tc.Epochs, tc.Patience = epochs, 0
	seed := uint64(b.opt.FirstSeed)
	m, err := model.NewNode("prcapsnet", mc, model.NodeShape(nd), seed)
	if err != nil {
		return rec, nil, err
	}
	rec.Params = model.CountParams(m)
	split := data.RandomSplit(nd.Y, seed, 0.6, 0.2)
	runtime.GC()
	debug.FreeOSMemory() // the generator's garbage must not count as the run's
	measured := resetPeakRSS()
	var stamps []time.Time
	stamps = append(stamps, time.Now())
	r, err := train.RunNode(m, nd, split, tc, seed, train.EpochFunc(func(_ int, ep train.Epoch) {
		stamps = append(stamps, time.Now())
		b.progress.Update(fmt.Sprintf("scale %s edges", report.Params(rec.Edges)), ep.Epoch, epochs, fmt.Sprintf("loss %.4f", ep.Loss))
	}))
	if err != nil {
		return rec, nil, err
	}
	b.runs++
	var secs []float64
	for i := 2; i < len(stamps); i++ { // epochs 2, 3, ...
		secs = append(secs, stamps[i].Sub(stamps[i-1]).Seconds())
	}
	slices.Sort(secs)
	rec.EpochSeconds = median(secs)
	rec.NsPerLink = 1e9 * rec.EpochSeconds / float64(rec.Links)
	if measured {
		rec.PeakBytes = peakRSS()
		rec.BytesPerLink = float64(rec.PeakBytes) / float64(rec.Links)
	}
	rec.TestAcc = r.TestAcc
	b.progress.Line("scale: %s edges: %.3f s/epoch, %.0f ns per link, peak %.0f MiB, test %.3f",
		report.Params(rec.Edges), rec.EpochSeconds, rec.NsPerLink, float64(rec.PeakBytes)/(1<<20), rec.TestAcc)
	return rec, nil, nil
}

package train

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
)

// TestNodeTapeMemory reports what node PR-CapsNet's tape holds per link
// (arcs plus self-loops) after two steps and evaluations, and checks that
// the model's memory estimate (model.MemoryEstimator, which the memory
// check of experiment.Run trusts) covers them. Coauthor CS too when
// $PRCAPS_DATA has it:
//
//	PRCAPS_DATA=../shared/data go test ./train -run NodeTapeMemory -v
func TestNodeTapeMemory(t *testing.T) {
	names := []string{"cora"}
	root := os.Getenv(data.EnvVar)
	if root != "" {
		if _, err := os.Stat(filepath.Join(root, "coauthor")); err == nil {
			names = append(names, "cs")
		}
	}
	for _, name := range names {
		ds, err := data.Load(name, data.Options{Root: root})
		if err != nil {
			t.Fatal(err)
		}
		nd := ds.Node
		cfg := model.DefaultPRCapsConfig()
		m, err := model.NewNode("prcapsnet", &cfg, model.NodeShape(nd), 0)
		if err != nil {
			t.Fatal(err)
		}
		tc := Recipe(data.NodeTask, "prcapsnet")
		tr, err := newNodeTrainer(m, nd, data.RandomSplit(nd.Y, 0, 0.6, 0.2), tc, 0)
		if err != nil {
			t.Fatal(err)
		}
		for e := 1; e <= 2; e++ {
			if _, err := tr.step(e); err != nil {
				t.Fatal(err)
			}
			var ep Epoch
			tr.evaluate(&ep)
		}
		tv, tg := tr.tape.Bytes()
		links := float64(nd.Graph.NumArcs() + nd.Graph.N)
		est := cfg.EstimateBytes(model.NodeShape(nd), nd.Graph.N, nd.Graph.NumArcs())
		t.Logf("%s: %.0f links; bytes per link: tape values %.0f, gradients %.0f (evaluation shares the tape); estimate %.0f",
			nd.Name, links, float64(tv)/links, float64(tg)/links, float64(est)/links)
		if total := tv + tg; est < total {
			t.Errorf("%s: the memory estimate %d is below the tapes' %d bytes", nd.Name, est, total)
		}
	}
}

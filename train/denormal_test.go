package train

import (
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/tensor"
)

// Node and graph training runs compute with denormals flushed to zero
// (tensor.FlushDenormals): their progress callbacks, which run on the
// run's goroutine, see the mode on.
func TestRunsFlushDenormals(t *testing.T) {
	var supported bool
	tensor.FlushDenormals(func() { supported = tensor.FlushingDenormals() })
	if !supported {
		t.Skip("this platform does not flush denormals")
	}
	check := func(what string) EpochFunc {
		return func(_ int, e Epoch) {
			if !tensor.FlushingDenormals() {
				t.Errorf("%s: epoch %d ran without flushing denormals", what, e.Epoch)
			}
		}
	}
	ds := blobs(60)
	cfg := DefaultConfig()
	cfg.Epochs = 2
	if _, err := RunNode(newLinear(ds), ds, data.RandomSplit(ds.Y, 0, 0.6, 0.2), cfg, 1, check("RunNode")); err != nil {
		t.Fatal(err)
	}
	gds, split := mutagFold(t)
	gcfg := Config{Epochs: 2, LR: 0.05, Optimizer: "adam"}
	if _, err := RunGraph(newPoolNet(gds.NumFeatures, gds.NumClasses), gds, split, gcfg, 16, 0, check("RunGraph")); err != nil {
		t.Fatal(err)
	}
}

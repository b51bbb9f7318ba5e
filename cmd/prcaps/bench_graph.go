package main

import (
	"fmt"
	"runtime"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/train"
)

// graphProtocol is the graph protocol of the bench's graph tables (DESIGN
// §6): stratified --folds-fold CV, fold seed 0, --first-seed for fold 0.
func (b *bencher) graphProtocol() train.GraphProtocol {
	return train.GraphProtocol{Folds: b.f.folds, FirstSeed: uint64(b.f.firstSeed), Parallel: b.f.parallel}
}

// runGraphVariant runs the graph protocol for v (configured as mc.PRCaps,
// tc) on ds.
func (b *bencher) runGraphVariant(t benchTable, v benchVariant, mc model.NodeConfig, tc train.Config, ds *data.Dataset) (train.Summary, error) {
	proto := b.graphProtocol()
	b.prog.line("%s: %s on %s, %s, %d epochs", t.Name, v.Label, ds.Name, proto.Name(), tc.Epochs)
	label := fmt.Sprintf("%s %s %s", t.Name, v.Label, ds.Name)
	build := func(seed uint64) (train.GraphModel, error) {
		return model.NewGraphModel(ds.Graph, mc.Model, mc.PRCaps, seed)
	}
	sum, err := train.RunGraphProtocol(ds.Graph, build, proto, tc,
		func(fold int, e train.Epoch) {
			b.prog.update(fmt.Sprintf("%s fold %d/%d", label, fold+1, b.f.folds), e.Epoch, tc.Epochs,
				fmt.Sprintf("loss %.4f val %.3f", e.Loss, e.ValAcc))
		}, nil)
	sum.Model = mc.Model
	b.runs++
	if err == nil {
		b.prog.line("%s: %s on %s: %s, %s params, %.2f s per fold", t.Name, v.Label, ds.Name,
			report.MeanStd(sum.MeanAcc, sum.StdAcc), report.Params(sum.Params), sum.SecondsPerRun)
	}
	return sum, err
}

func (b *bencher) graphProtocolNote() string {
	ep := "the model's default epochs (100)"
	if b.f.epochs > 0 {
		ep = fmt.Sprintf("%d epoch(s)", b.f.epochs)
	}
	return fmt.Sprintf("ACC: test accuracy at the best-validation epoch (stratified 10%% validation split inside each training fold; ties: the later epoch), "+
		"mean ± std (population) over the folds of protocol %q, fold seed 0, model seeds %d-%d, %s, batch %d "+
		"(in micro-batches of at most %d nodes). "+
		"Param: trainable parameters. Runtime: training wall time per fold in seconds (evaluation every epoch, GOMAXPROCS %d).",
		b.graphProtocol().Name(), b.f.firstSeed, b.f.firstSeed+b.f.folds-1, ep, train.DefaultBatchSize,
		train.DefaultMicroBatchNodes, runtime.GOMAXPROCS(0))
}

package record

import (
	"math"

	"github.com/prcaps/prcaps/stats"
)

// Result is the outcome of one training run (a seed or a fold): the epoch
// the protocol selected on validation and the accuracies there.
type Result struct {
	Seed      uint64  `json:"seed"`
	BestEpoch int     `json:"best_epoch"`
	Epochs    int     `json:"epochs"`
	TrainAcc  float64 `json:"train_acc"` // the best epoch's training-pass accuracy
	ValAcc    float64 `json:"val_acc"`
	TestAcc   float64 `json:"test_acc"`
	ValLoss   float64 `json:"val_loss"`
	Seconds   float64 `json:"seconds"`
}

// Summary is the record of a protocol: mean ± std over runs, parameter
// count and wall time, as the paper's tables report them. Its JSON form is
// the CLI's output contract (DESIGN §8).
type Summary struct {
	Dataset       string  `json:"dataset"`
	Task          string  `json:"task"`
	Model         string  `json:"model"`
	Protocol      string  `json:"protocol"`
	Runs          int     `json:"runs"`
	MeanAcc       float64 `json:"mean_acc"`
	StdAcc        float64 `json:"std_acc"`
	MeanValAcc    float64 `json:"mean_val_acc"` // for choosing between configurations without test labels
	Params        int     `json:"params"`
	TrainSeconds  float64 `json:"train_seconds"`
	SecondsPerRun float64 `json:"seconds_per_run"`
	Epochs        int     `json:"epochs"`
	// Failed are the runs that failed (a run's error, a panic inside it, a
	// divergence); the aggregates above are over the others, and a protocol
	// with failures also returns an error.
	Failed  []RunFailure `json:"failed,omitempty"`
	Results []Result     `json:"-"`
}

// RunFailure is a failed run of a protocol.
type RunFailure struct {
	Run   int    `json:"run"`
	Seed  uint64 `json:"seed"`
	Error string `json:"error"`
}

// Summarise fills the aggregate fields of s from s.Results: the mean and
// population standard deviation of the test accuracies (stats.MeanStd),
// the mean validation accuracy and the training seconds. With no results
// the means are NaN.
func (s *Summary) Summarise() {
	accs := make([]float64, len(s.Results))
	vals := make([]float64, len(s.Results))
	s.TrainSeconds = 0
	for i, r := range s.Results {
		accs[i], vals[i] = r.TestAcc, r.ValAcc
		s.TrainSeconds += r.Seconds
	}
	s.Runs = len(s.Results)
	s.MeanAcc, s.StdAcc = stats.MeanStd(accs)
	s.MeanValAcc, _ = stats.MeanStd(vals)
	if s.Runs > 0 {
		s.SecondsPerRun = s.TrainSeconds / float64(s.Runs)
	}
}

// RunRecord is the JSON record of one finished run (seed or fold), as
// `prcaps train --json` prints it before the summary.
type RunRecord struct {
	Dataset  string `json:"dataset"`
	Task     string `json:"task"`
	Model    string `json:"model"`
	Protocol string `json:"protocol"`
	Run      int    `json:"run"`
	Result
}

// finite reports whether every x is neither NaN nor infinite.
func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

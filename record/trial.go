package record

// Trial is one configuration of a grid search and its validation score:
// the mean and standard deviation of the best-epoch validation accuracy
// over the protocol's runs. It holds no test accuracy: the search never
// sees one.
type Trial struct {
	Dataset     string            `json:"dataset"`
	Fingerprint string            `json:"fingerprint"`
	Model       string            `json:"model"`
	Protocol    string            `json:"protocol"`
	FirstSeed   uint64            `json:"first_seed"`
	Options     map[string]string `json:"options"`
	ValMean     float64           `json:"val_mean"`
	ValStd      float64           `json:"val_std"`
	// ValAccs are the runs' best-epoch validation accuracies, in seed
	// order (FirstSeed, FirstSeed+1, ...), which pair one trial with
	// another; absent from logs written before they were recorded, whose
	// trials are not compared (experiment.TuneResult.Stats).
	ValAccs []float64 `json:"val_accs,omitempty"`
	Params  int       `json:"params"`
	Seconds float64   `json:"seconds_per_run"`
}

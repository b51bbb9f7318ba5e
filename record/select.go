package record

// SelectFold is the outcome of one outer fold of a model under the
// selection protocol (prcaps bench --select).
type SelectFold struct {
	Fold     int       `json:"fold"`
	Chosen   int       `json:"chosen"`  // grid point, from 1 in grid order
	Options  string    `json:"options"` // the chosen point, "a=1 b=x"
	ValAcc   float64   `json:"val_acc"` // its inner validation score
	ValAccs  []float64 `json:"val_accs"`
	TestAccs []float64 `json:"test_accs"` // the retrains'
	TestAcc  float64   `json:"test_acc"`  // their mean, the fold's result
	Seconds  float64   `json:"seconds"`   // the fold's trials and retrains
}

// SelectRecord is the JSON record of one model on one dataset under the
// selection protocol: the grid, every fold's choice and result, and the
// mean ± std over the folds.
type SelectRecord struct {
	Table    string       `json:"table"`
	Model    string       `json:"model"`
	Grid     string       `json:"grid"`
	Dataset  string       `json:"dataset"`
	Protocol string       `json:"protocol"`
	Points   []string     `json:"points"`
	Folds    []SelectFold `json:"folds"`
	// MeanAcc and StdAcc are over the folds' results; absent while
	// some fold's trials or retrains are (Missing): a 0 would read as a
	// result.
	MeanAcc *float64 `json:"mean_acc,omitempty"`
	StdAcc  *float64 `json:"std_acc,omitempty"`
	Seconds float64  `json:"seconds"` // every trial and retrain, the cost
	Missing []string `json:"missing,omitempty"`
	Error   string   `json:"error,omitempty"`
}

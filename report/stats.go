package report

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
)

// CellStats is one result cell of a table that compares models over the
// same seeds or folds, and its paired comparison with the cell of the
// highest mean in its column (see package stats). The Markdown shows it
// as bold (TiedBest) and notes; the JSON and the stats CSV carry it.
type CellStats struct {
	Row     int     `json:"row"`    // index into Table.Rows
	Column  string  `json:"column"` // the header of the cell's ACC column
	Model   string  `json:"model"`  // the row's label
	Dataset string  `json:"dataset"`
	Mean    float64 `json:"mean"`
	Std     float64 `json:"std"` // population, as the table shows it
	N       int     `json:"n"`   // runs (seeds or folds)
	// Best marks the cell of the highest mean in its column.
	Best bool `json:"best"`
	// Paired is false for a cell that could not be compared with the best
	// (not the same seeds or folds); it then has no p-values and is not
	// tied. The best cell is paired with itself.
	Paired bool `json:"paired"`
	// PVsBest is the two-sided Wilcoxon signed-rank p-value against the
	// best cell, PTVsBest the paired t-test's, PHolm PVsBest after Holm's
	// correction over the column's comparisons. NaN (JSON null) for the
	// best cell itself and for unpaired cells.
	PVsBest  float64 `json:"p_vs_best"`
	PTVsBest float64 `json:"p_t_vs_best"`
	PHolm    float64 `json:"p_holm_vs_best"`
	// TiedBest: the best cell, or one whose Holm-adjusted Wilcoxon p is at
	// least the level (not significantly below the best).
	TiedBest bool `json:"tied_best"`
}

// MarshalJSON writes NaN p-values as null.
func (c CellStats) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteString(`{"row":` + strconv.Itoa(c.Row))
	b.WriteString(`,"column":` + strconv.Quote(c.Column))
	b.WriteString(`,"model":` + strconv.Quote(c.Model))
	b.WriteString(`,"dataset":` + strconv.Quote(c.Dataset))
	b.WriteString(`,"mean":` + jsonNum(c.Mean) + `,"std":` + jsonNum(c.Std) + `,"n":` + strconv.Itoa(c.N))
	b.WriteString(`,"best":` + strconv.FormatBool(c.Best) + `,"paired":` + strconv.FormatBool(c.Paired))
	b.WriteString(`,"p_vs_best":` + jsonNum(c.PVsBest) + `,"p_t_vs_best":` + jsonNum(c.PTVsBest) + `,"p_holm_vs_best":` + jsonNum(c.PHolm))
	b.WriteString(`,"tied_best":` + strconv.FormatBool(c.TiedBest) + "}")
	return []byte(b.String()), nil
}

// UnmarshalJSON reads what MarshalJSON writes (null p-values as NaN).
func (c *CellStats) UnmarshalJSON(b []byte) error {
	type plain struct {
		Row      int      `json:"row"`
		Column   string   `json:"column"`
		Model    string   `json:"model"`
		Dataset  string   `json:"dataset"`
		Mean     *float64 `json:"mean"`
		Std      *float64 `json:"std"`
		N        int      `json:"n"`
		Best     bool     `json:"best"`
		Paired   bool     `json:"paired"`
		PVsBest  *float64 `json:"p_vs_best"`
		PTVsBest *float64 `json:"p_t_vs_best"`
		PHolm    *float64 `json:"p_holm_vs_best"`
		TiedBest bool     `json:"tied_best"`
	}
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	num := func(x *float64) float64 {
		if x == nil {
			return math.NaN()
		}
		return *x
	}
	*c = CellStats{Row: p.Row, Column: p.Column, Model: p.Model, Dataset: p.Dataset, Mean: num(p.Mean), Std: num(p.Std),
		N: p.N, Best: p.Best, Paired: p.Paired, PVsBest: num(p.PVsBest), PTVsBest: num(p.PTVsBest), PHolm: num(p.PHolm), TiedBest: p.TiedBest}
	return nil
}

func jsonNum(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "null"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

func csvNum(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// StatsColumns is the header of WriteStatsCSV.
var StatsColumns = []string{"table", "dataset", "model", "mean", "std", "n", "best", "paired", "p_vs_best", "p_t_vs_best", "p_holm_vs_best", "tied_best"}

// WriteStatsCSV writes t.Stats as CSV, one record per cell under
// StatsColumns; p-values that do not exist are empty.
func (t *Table) WriteStatsCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(StatsColumns); err != nil {
		return err
	}
	for _, c := range t.Stats {
		rec := []string{t.Name, c.Dataset, c.Model, csvNum(c.Mean), csvNum(c.Std), strconv.Itoa(c.N), strconv.FormatBool(c.Best),
			strconv.FormatBool(c.Paired), csvNum(c.PVsBest), csvNum(c.PTVsBest), csvNum(c.PHolm), strconv.FormatBool(c.TiedBest)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// StatsCSV returns the stats CSV of t (see WriteStatsCSV).
func (t *Table) StatsCSV() string {
	var b strings.Builder
	t.WriteStatsCSV(&b) // a strings.Builder never fails
	return b.String()
}

// Bold marks a cell's text as bold in Markdown ("**0.878 ± 0.016**"); the
// column stays numeric for alignment.
func Bold(s string) string {
	if s == "" || s == Missing || s == Failed {
		return s
	}
	return "**" + s + "**"
}

// PValue formats a p-value with three decimals, "<0.001" below that and
// "-" for NaN.
func PValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return Missing
	case p < 0.001:
		return "<0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

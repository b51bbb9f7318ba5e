package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Missing is the cell text for a value that does not exist (as the paper's
// tables write it).
const Missing = "-"

// Failed is the cell text for a result that could not be computed (a run
// that failed). Like Missing, it does not affect a column's alignment.
const Failed = "failed"

// Table is a titled grid of text cells with optional notes (a caption).
type Table struct {
	// Name is a short identifier, e.g. "t4"; callers use it for file names.
	Name string `json:"name,omitempty"`
	// Title is the caption line printed above the table.
	Title string `json:"title,omitempty"`
	// Columns are the column headers.
	Columns []string `json:"columns"`
	// Rows are the body rows; a short row is padded with empty cells.
	Rows [][]string `json:"rows"`
	// Notes are printed below the table, one paragraph each.
	Notes []string `json:"notes,omitempty"`
	// Stats are the paired comparisons of the table's result cells, for
	// tables that compare models over the same seeds or folds (the JSON
	// form and WriteStatsCSV carry them; the Markdown shows them through
	// the cells' text and the notes).
	Stats []CellStats `json:"stats,omitempty"`
}

// AddRow appends a body row.
func (t *Table) AddRow(cells ...string) { t.Rows = append(t.Rows, cells) }

// AddNote appends a note formatted with fmt.Sprintf.
func (t *Table) AddNote(format string, args ...any) {
	t.Notes = append(t.Notes, fmt.Sprintf(format, args...))
}

// cell returns row r's cell c ("" past the end of a short row).
func cell(row []string, c int) string {
	if c < len(row) {
		return row[c]
	}
	return ""
}

// Markdown renders t as a GitHub-flavoured Markdown table with padded,
// aligned pipes: the title as a bold line above, notes as paragraphs below.
// Columns whose body cells are all numbers (including "0.876 ± 0.012" and
// "93,650"; empty, Missing and Failed cells do not count) are right-aligned.
func (t *Table) Markdown() string {
	var b strings.Builder
	if t.Title != "" {
		fmt.Fprintf(&b, "**%s**\n\n", t.Title)
	}
	cols := len(t.Columns)
	for _, r := range t.Rows {
		cols = max(cols, len(r))
	}
	grid := make([][]string, 0, len(t.Rows)+1)
	grid = append(grid, escapeRow(t.Columns, cols))
	for _, r := range t.Rows {
		grid = append(grid, escapeRow(r, cols))
	}
	width := make([]int, cols)
	right := make([]bool, cols)
	for c := range cols {
		width[c] = 3
		right[c] = numericColumn(t.Rows, c)
		for _, r := range grid {
			width[c] = max(width[c], utf8.RuneCountInString(r[c]))
		}
	}
	writeMarkdownRow(&b, grid[0], width, right)
	b.WriteString("|")
	for c := range cols {
		dashes := strings.Repeat("-", width[c])
		if right[c] {
			dashes = dashes[1:] + ":"
		}
		fmt.Fprintf(&b, " %s |", dashes)
	}
	b.WriteString("\n")
	for _, r := range grid[1:] {
		writeMarkdownRow(&b, r, width, right)
	}
	for _, n := range t.Notes {
		fmt.Fprintf(&b, "\n%s\n", n)
	}
	return b.String()
}

func escapeRow(row []string, cols int) []string {
	out := make([]string, cols)
	for c := range cols {
		s := strings.ReplaceAll(cell(row, c), "|", `\|`)
		out[c] = strings.ReplaceAll(s, "\n", " ")
	}
	return out
}

func writeMarkdownRow(b *strings.Builder, row []string, width []int, right []bool) {
	b.WriteString("|")
	for c, s := range row {
		pad := strings.Repeat(" ", width[c]-utf8.RuneCountInString(s))
		if right[c] {
			fmt.Fprintf(b, " %s%s |", pad, s)
		} else {
			fmt.Fprintf(b, " %s%s |", s, pad)
		}
	}
	b.WriteString("\n")
}

// numericColumn reports whether column c has at least one body cell and
// every non-empty one is a number.
func numericColumn(rows [][]string, c int) bool {
	seen := false
	for _, r := range rows {
		s := strings.TrimSpace(cell(r, c))
		if s == "" || s == Missing || s == Failed {
			continue
		}
		if !isNumeric(s) {
			return false
		}
		seen = true
	}
	return seen
}

// isNumeric accepts "93,650", "8.34", "-1", "0.876 ± 0.012" and "85.1%",
// also in bold ("**0.876 ± 0.012**").
func isNumeric(s string) bool {
	if b, ok := strings.CutPrefix(s, "**"); ok {
		if b, ok = strings.CutSuffix(b, "**"); ok && b != "" {
			s = b
		}
	}
	for _, part := range strings.Split(s, "±") {
		part = strings.TrimSuffix(strings.ReplaceAll(strings.TrimSpace(part), ",", ""), "%")
		if _, err := strconv.ParseFloat(part, 64); err != nil {
			return false
		}
	}
	return true
}

// WriteMarkdown writes t.Markdown() to w.
func (t *Table) WriteMarkdown(w io.Writer) error {
	_, err := io.WriteString(w, t.Markdown())
	return err
}

// WriteCSV writes the header and the body rows as RFC 4180 CSV (the title
// and the notes are not part of the CSV); short rows are padded.
func (t *Table) WriteCSV(w io.Writer) error {
	cols := len(t.Columns)
	for _, r := range t.Rows {
		cols = max(cols, len(r))
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(padRow(t.Columns, cols)); err != nil {
		return err
	}
	for _, r := range t.Rows {
		if err := cw.Write(padRow(r, cols)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func padRow(row []string, cols int) []string {
	out := make([]string, cols)
	copy(out, row)
	return out
}

// CSV returns the CSV form of t (see WriteCSV).
func (t *Table) CSV() string {
	var b strings.Builder
	t.WriteCSV(&b) // a strings.Builder never fails
	return b.String()
}

// WriteJSON writes t as one JSON object followed by a newline:
// {"name","title","columns","rows","notes"}.
func (t *Table) WriteJSON(w io.Writer) error {
	return json.NewEncoder(w).Encode(t)
}

// MeanStd formats a mean and a standard deviation as the paper does:
// "0.876 ± 0.012" (three decimals). A NaN mean gives Missing.
func MeanStd(mean, std float64) string {
	if math.IsNaN(mean) {
		return Missing
	}
	return fmt.Sprintf("%.3f ± %.3f", mean, std)
}

// Params formats a count with thousands separators: 93650 → "93,650".
func Params(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, d := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}

// Seconds formats a duration in seconds with two decimals like the paper's
// Runtime columns ("8.34"); durations under 0.01 s keep two significant
// digits ("0.0042"); NaN or a negative value gives Missing.
func Seconds(s float64) string {
	switch {
	case math.IsNaN(s) || s < 0:
		return Missing
	case s > 0 && s < 0.01:
		return fmt.Sprintf("%.2g", s)
	}
	return fmt.Sprintf("%.2f", s)
}

package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestMeanStd(t *testing.T) {
	for _, tc := range []struct {
		mean, std float64
		want      string
	}{
		{0.876, 0.012, "0.876 ± 0.012"},
		{0.87551, 0.0194, "0.876 ± 0.019"},
		{1, 0, "1.000 ± 0.000"},
		{math.NaN(), math.NaN(), "-"},
	} {
		if got := MeanStd(tc.mean, tc.std); got != tc.want {
			t.Errorf("MeanStd(%v, %v) = %q, want %q", tc.mean, tc.std, got, tc.want)
		}
	}
}

func TestParams(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {93650, "93,650"},
		{238910, "238,910"}, {1899783, "1,899,783"}, {-1234567, "-1,234,567"},
	} {
		if got := Params(tc.n); got != tc.want {
			t.Errorf("Params(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestSeconds(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want string
	}{
		{8.34, "8.34"}, {138.123, "138.12"}, {0, "0.00"}, {0.0042, "0.0042"},
		{0.012, "0.01"}, {math.NaN(), "-"}, {-1, "-"},
	} {
		if got := Seconds(tc.s); got != tc.want {
			t.Errorf("Seconds(%v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

func sample() *Table {
	t := &Table{
		Name:    "t4",
		Title:   "Table 4: ablation",
		Columns: []string{"Variant", "Params", "Cora ACC", "note"},
	}
	t.AddRow("PR+Caps (full)", Params(93650), MeanStd(0.838, 0.006), "a|b")
	t.AddRow("GCN", Params(92231), Missing, "plain")
	t.AddRow("short", "", Failed)
	t.AddNote("Mean ± std over %d runs.", 10)
	return t
}

func TestMarkdownGolden(t *testing.T) {
	want := `**Table 4: ablation**

| Variant        | Params |      Cora ACC | note  |
| -------------- | -----: | ------------: | ----- |
| PR+Caps (full) | 93,650 | 0.838 ± 0.006 | a\|b  |
| GCN            | 92,231 |             - | plain |
| short          |        |        failed |       |

Mean ± std over 10 runs.
`
	if got := sample().Markdown(); got != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", got, want)
	}
}

func TestMarkdownMinimal(t *testing.T) {
	tab := &Table{Columns: []string{"a", "b"}}
	want := "| a   | b   |\n| --- | --- |\n"
	if got := tab.Markdown(); got != want {
		t.Errorf("empty table:\n%q\nwant\n%q", got, want)
	}
}

func TestCSVGolden(t *testing.T) {
	want := "Variant,Params,Cora ACC,note\n" +
		"PR+Caps (full),\"93,650\",0.838 ± 0.006,a|b\n" +
		"GCN,\"92,231\",-,plain\n" +
		"short,,failed,\n"
	tab := sample()
	got := tab.CSV()
	if got != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", got, want)
	}
	recs, err := csv.NewReader(strings.NewReader(got)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || recs[1][1] != "93,650" {
		t.Errorf("CSV does not round-trip: %q", recs)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	tab := sample()
	if err := tab.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	want := `{"name":"t4","title":"Table 4: ablation","columns":["Variant","Params","Cora ACC","note"],` +
		`"rows":[["PR+Caps (full)","93,650","0.838 ± 0.006","a|b"],["GCN","92,231","-","plain"],["short","","failed"]],` +
		`"notes":["Mean ± std over 10 runs."]}` + "\n"
	if buf.String() != want {
		t.Errorf("JSON:\n%s\nwant:\n%s", buf.String(), want)
	}
	var back Table
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, tab) {
		t.Errorf("round trip: %+v, want %+v", back, *tab)
	}
}

func TestIsNumeric(t *testing.T) {
	for s, want := range map[string]bool{
		"93,650": true, "8.34": true, "-1": true, "0.876 ± 0.012": true, "85.1%": true, "**0.876 ± 0.012**": true, "**": false, "**GCN**": false,
		"GCN": false, "s=3": false, "0.8 ± x": false, "": false,
	} {
		if got := isNumeric(s); got != want {
			t.Errorf("isNumeric(%q) = %v, want %v", s, got, want)
		}
	}
}

func statsSample() *Table {
	tab := sample()
	tab.Rows[0][2] = Bold(tab.Rows[0][2])
	tab.Stats = []CellStats{
		{Row: 0, Column: "Cora ACC", Model: "PR+Caps (full)", Dataset: "Cora", Mean: 0.838, Std: 0.006, N: 10, Best: true, Paired: true,
			PVsBest: math.NaN(), PTVsBest: math.NaN(), PHolm: math.NaN(), TiedBest: true},
		{Row: 1, Column: "Cora ACC", Model: "GCN", Dataset: "Cora", Mean: 0.8, Std: 0.01, N: 10, Paired: true,
			PVsBest: 0.001953125, PTVsBest: 0.0004, PHolm: 0.00390625},
		{Row: 2, Column: "Cora ACC", Model: "short", Dataset: "Cora", Mean: 0.81, Std: 0.02, N: 5,
			PVsBest: math.NaN(), PTVsBest: math.NaN(), PHolm: math.NaN()},
	}
	return tab
}

// TestStatsFormats: a bold cell keeps its column right-aligned, the stats
// CSV has one record per cell with empty p-values where none exist, and
// the JSON writes them as null and reads them back as NaN.
func TestStatsFormats(t *testing.T) {
	tab := statsSample()
	if md := tab.Markdown(); !strings.Contains(md, "| PR+Caps (full) | 93,650 | **0.838 ± 0.006** |") || !strings.Contains(md, "------: |") {
		t.Errorf("Markdown with a bold cell:\n%s", md)
	}
	wantCSV := strings.Join(StatsColumns, ",") + "\n" +
		"t4,Cora,PR+Caps (full),0.838,0.006,10,true,true,,,,true\n" +
		"t4,Cora,GCN,0.8,0.01,10,false,true,0.001953125,0.0004,0.00390625,false\n" +
		"t4,Cora,short,0.81,0.02,5,false,false,,,,false\n"
	if got := tab.StatsCSV(); got != wantCSV {
		t.Errorf("stats CSV:\n%s\nwant\n%s", got, wantCSV)
	}
	var buf bytes.Buffer
	if err := tab.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `{"row":1,"column":"Cora ACC","model":"GCN","dataset":"Cora","mean":0.8,"std":0.01,"n":10,"best":false,"paired":true,"p_vs_best":0.001953125,"p_t_vs_best":0.0004,"p_holm_vs_best":0.00390625,"tied_best":false}`) ||
		!strings.Contains(buf.String(), `"p_vs_best":null`) {
		t.Errorf("JSON stats:\n%s", buf.String())
	}
	var back Table
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Stats) != 3 || !math.IsNaN(back.Stats[0].PVsBest) || back.Stats[1].PHolm != 0.00390625 || !back.Stats[0].TiedBest {
		t.Errorf("stats read back: %+v", back.Stats)
	}
}

func TestPValue(t *testing.T) {
	for p, want := range map[float64]string{0.5: "0.500", 0.0412598: "0.041", 0.0009: "<0.001", math.NaN(): "-", 1: "1.000"} {
		if got := PValue(p); got != want {
			t.Errorf("PValue(%v) = %q, want %q", p, got, want)
		}
	}
}

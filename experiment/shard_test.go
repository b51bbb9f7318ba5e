package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/report"
)

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
		err  string
	}{
		{"1/1", Shard{1, 1}, ""},
		{"2/8", Shard{2, 8}, ""},
		{" 3 / 3 ", Shard{3, 3}, ""},
		{"0/3", Shard{}, "I must be in [1, 3]"},
		{"4/3", Shard{}, "I must be in [1, 3]"},
		{"1/0", Shard{}, "N must be in [1, 65536]"},
		{"-1/3", Shard{}, "I must be in"},
		{"1/65537", Shard{}, "N must be in"},
		{"3", Shard{}, "want I/N"},
		{"a/3", Shard{}, "must be integers"},
		{"", Shard{}, "want I/N"},
	} {
		got, err := ParseShard(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseShard(%q) = %v, %v; want an error containing %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// AssignShards gives every unit one shard in 1..n, the same on every
// call, and balances cost, not count: one unit as costly as the rest
// together has a shard of its own.
func TestAssignShards(t *testing.T) {
	costs := []float64{10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	a := AssignShards(costs, 2)
	if !slices.Equal(a, AssignShards(costs, 2)) {
		t.Fatal("not deterministic")
	}
	load := map[int]float64{}
	for u, s := range a {
		if s < 1 || s > 2 {
			t.Fatalf("unit %d on shard %d", u, s)
		}
		load[s] += costs[u]
	}
	if a[0] != 1 || load[1] != 10 || load[2] != 10 {
		t.Errorf("assignment %v, loads %v; want the costly unit alone on shard 1 and 10 against 10", a, load)
	}
	// Equal costs: round robin in the given order.
	if got := AssignShards([]float64{1, 1, 1, 1, 1}, 3); !slices.Equal(got, []int{1, 2, 3, 1, 2}) {
		t.Errorf("equal costs: %v", got)
	}
	// More shards than units: the extra ones are empty.
	if got := AssignShards([]float64{5, 7}, 4); !slices.Equal(got, []int{2, 1}) {
		t.Errorf("two units on four shards: %v", got)
	}
	// LPT's bound: the largest shard within 4/3 of the mean plus one unit.
	var many []float64
	for i := range 200 {
		many = append(many, float64(1+(i*37)%23))
	}
	for _, n := range []int{2, 3, 7} {
		p := plan(Shard{1, n}, many)
		if p.Largest > p.Cost/float64(n)+23 {
			t.Errorf("%d shards: largest %v, mean %v", n, p.Largest, p.Cost/float64(n))
		}
	}
}

// shardBench is one small bench of the shard tests: a graph bench (Table
// 2, GIN-0 and the MLP on MUTAG, 3 folds of 2 epochs) or a node one
// (Table 3, GCN and SGC on Cora, 3 seeds of 2 epochs).
type shardBench struct {
	name                 string
	suite                string
	tables, data, models []string
	opt                  Options
}

var shardBenches = []shardBench{
	{"graph", "graph", []string{"t2"}, []string{"mutag"}, []string{"gin", "mlp"}, Options{Folds: 3, Epochs: 2, Parallel: 2}},
	{"node", "node", []string{"t3"}, []string{"cora"}, []string{"gcn", "sgc"}, Options{Seeds: 3, Epochs: 2, Parallel: 2}},
}

// run runs the bench with log (and shard, or the merge of logs with
// LogOnly) and returns its table (nil for a shard) and plan.
func (sb shardBench) run(t *testing.T, log string, shard Shard, merge []string) (*report.Table, ShardPlan) {
	t.Helper()
	tables, err := Select(sb.suite, sb.tables, sb.data, sb.models)
	if err != nil {
		t.Fatal(err)
	}
	opt := sb.opt
	opt.Log, opt.Shard, opt.Logs = log, shard, merge
	opt.LogOnly = len(merge) > 0
	b, err := NewBench(opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if shard.Sharded() {
		p, err := b.RunShard(tables)
		if err != nil {
			t.Fatal(err)
		}
		return nil, p
	}
	var tab *report.Table
	b.Emit = func(x *report.Table) error { tab = x; return nil }
	if err := b.RunTables(tables); err != nil {
		t.Fatal(err)
	}
	return tab, ShardPlan{}
}

// withoutRuntimes is the table's Markdown with what a rerun cannot
// reproduce taken out: the Runtime (s) cells (wall time), the notes that
// say where the runtimes were measured and the one naming the log files.
func withoutRuntimes(tab *report.Table) string {
	c := *tab
	c.Rows = nil
	for _, r := range tab.Rows {
		r = slices.Clone(r)
		for i, col := range c.Columns {
			if strings.Contains(col, "Runtime (s)") {
				r[i] = "-"
			}
		}
		c.Rows = append(c.Rows, r)
	}
	c.Notes = nil
	for _, n := range tab.Notes {
		if !strings.HasPrefix(n, "Runtime (s)") && !strings.Contains(n, " were read from the ") {
			c.Notes = append(c.Notes, n)
		}
	}
	return c.Markdown()
}

// TestShardsMergeToUnsharded runs each small bench unsharded and as three
// shards: every unit trains in exactly one shard, a shard rerun trains
// nothing, and the merge of the three logs renders the unsharded table
// byte for byte but for the measured runtimes; the merge of the logs in
// three files is byte for byte the table of the same records in one file
// but for the note naming the files; a merge missing a shard says which
// units are missing.
func TestShardsMergeToUnsharded(t *testing.T) {
	for _, sb := range shardBenches {
		t.Run(sb.name, func(t *testing.T) {
			dir := t.TempDir()
			want, _ := sb.run(t, filepath.Join(dir, "all.jsonl"), Shard{}, nil)
			units := logLines(t, filepath.Join(dir, "all.jsonl"))
			var logs []string
			total := 0
			for i := 1; i <= 3; i++ {
				log := filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", i))
				_, p := sb.run(t, log, Shard{i, 3}, nil)
				if p.Trained != p.Mine || p.FromLog != 0 || p.Units != units || logLines(t, log) != p.Mine {
					t.Errorf("shard %d: %+v, %d lines; want all of its units trained and logged, %d units in all", i, p, logLines(t, log), units)
				}
				if _, again := sb.run(t, log, Shard{i, 3}, nil); again.Trained != 0 || again.FromLog != p.Mine {
					t.Errorf("shard %d rerun: trained %d, from log %d; want 0 and %d", i, again.Trained, again.FromLog, p.Mine)
				}
				total += p.Mine
				logs = append(logs, log)
			}
			if total != units {
				t.Fatalf("the shards hold %d units, the unsharded bench %d", total, units)
			}
			merged, _ := sb.run(t, "", Shard{}, logs)
			if md := merged.Markdown(); strings.Contains(md, "not run (--log-only)") || len(merged.Stats) != 2 {
				t.Errorf("merged table is not whole (%d cells with statistics):\n%s", len(merged.Stats), md)
			}
			if got, w := withoutRuntimes(merged), withoutRuntimes(want); got != w {
				t.Errorf("merged table differs from the unsharded one:\n%s\nwant\n%s", got, w)
			}
			// The same records in one file: byte for byte, runtimes included.
			var all []byte
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				all = append(all, b...)
			}
			one := filepath.Join(dir, "one.jsonl")
			os.WriteFile(one, all, 0o644)
			single, _ := sb.run(t, "", Shard{}, []string{one})
			if got, w := dropLogNote(merged), dropLogNote(single); got != w {
				t.Errorf("merge of three files differs from the merge of their records in one:\n%s\nwant\n%s", got, w)
			}
			if !strings.Contains(merged.Markdown(), "were read from the 3 fold logs") {
				t.Errorf("merged table does not name its logs:\n%s", merged.Markdown())
			}
			part, _ := sb.run(t, "", Shard{}, logs[:2])
			if !strings.Contains(part.Markdown(), "; missing: ") {
				t.Errorf("merge without shard 3 does not say what is missing:\n%s", part.Markdown())
			}
		})
	}
}

func dropLogNote(tab *report.Table) string {
	c := *tab
	c.Notes = slices.DeleteFunc(slices.Clone(tab.Notes), func(n string) bool { return strings.Contains(n, " were read from the ") })
	return c.Markdown()
}

// A merge refuses logs that are not the shards of one bench: one unit in
// two files, or one cell's fold under two configurations; the error names
// both files.
func TestMergeRefusesConflicts(t *testing.T) {
	sb := shardBenches[0]
	sb.models = []string{"mlp"}
	dir := t.TempDir()
	a, c := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "c.jsonl")
	sb.run(t, a, Shard{1, 2}, nil)
	raw, _ := os.ReadFile(a)
	dup := filepath.Join(dir, "dup.jsonl")
	os.WriteFile(dup, raw, 0o644)
	other := sb
	other.opt.Epochs = 1
	other.run(t, c, Shard{1, 2}, nil)
	for _, logs := range [][]string{{a, dup}, {a, c}} {
		_, err := NewBench(Options{Folds: 3, Epochs: 2, LogOnly: true, Logs: logs}, nil)
		if err == nil || !strings.Contains(err.Error(), logs[0]) || !strings.Contains(err.Error(), logs[1]) {
			t.Errorf("merge of %v: %v; want an error naming both files", logs, err)
		}
	}
	// One file may hold a fold twice (a cell retrained): the later wins.
	twice := filepath.Join(dir, "twice.jsonl")
	os.WriteFile(twice, append(raw, raw...), 0o644)
	if _, err := NewBench(Options{Folds: 3, Epochs: 2, LogOnly: true, Logs: []string{twice}}, nil); err != nil {
		t.Errorf("one log with a fold twice: %v", err)
	}
}

// A node cell resumes run by run: a log missing one run trains only that
// run, and the table equals the full run's.
func TestNodeLogResumesPerRun(t *testing.T) {
	sb := shardBenches[1]
	dir := t.TempDir()
	log := filepath.Join(dir, "node.jsonl")
	want, _ := sb.run(t, log, Shard{}, nil)
	raw, _ := os.ReadFile(log)
	lines := strings.SplitAfter(string(raw), "\n")
	os.WriteFile(log, []byte(lines[0]+lines[2]+lines[3]+lines[4]+lines[5]), 0o644) // GCN's run 1 missing
	got, _ := sb.run(t, log, Shard{}, nil)
	if n := logLines(t, log); n != 6 {
		t.Errorf("resumed log has %d lines, want 6 (one run trained)", n)
	}
	if withoutRuntimes(got) != withoutRuntimes(want) {
		t.Errorf("resumed node table:\n%s\nwant\n%s", withoutRuntimes(got), withoutRuntimes(want))
	}
}

func TestShardOptions(t *testing.T) {
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Shard: Shard{1, 2}}, "needs a fold log"},
		{Options{Shard: Shard{3, 2}, Log: "x"}, "I must be in"},
		{Options{Shard: Shard{1, 2}, Log: "x", LogOnly: true}, "shard and log-only"},
		{Options{Logs: []string{"a", "b"}}, "with log-only alone"},
		{Options{Logs: []string{"a", "b"}, LogOnly: true, Log: "c"}, "with log-only alone"},
	} {
		if err := c.opt.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opt, err, c.want)
		}
	}
}

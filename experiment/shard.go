package experiment

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/prcaps/prcaps/model"
)

// Shard is one of N parts of a bench's or a tune's work, I in 1..N: the
// numbering of a Slurm array submitted with --array=1-N
// ($SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT). The zero Shard is the
// whole work, unsharded.
//
// The work is cut into units, each trained by exactly one shard: one fold
// of a graph-table cell, one seed of a node-table cell, one configuration
// of a tune grid. Every shard lists all the units in the same order and
// assigns them the same way (AssignShards), so N processes given the same
// command, data and shard numbers 1..N train every unit once, and nothing
// but the shard number tells them apart.
type Shard struct{ I, N int }

// MaxShards bounds N: more shards than units leave the extra ones idle,
// and a bench has at most some thousands of units.
const MaxShards = 1 << 16

// ParseShard reads "I/N" (1 ≤ I ≤ N ≤ MaxShards).
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want I/N, such as 2/8 (the second of 8 parts, numbered from 1)", s)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: I and N must be integers (want I/N, such as 2/8)", s)
	}
	sh := Shard{I: i, N: n}
	return sh, sh.Check()
}

// Check reports a shard out of range; the zero Shard (unsharded) is valid.
func (s Shard) Check() error {
	if s == (Shard{}) {
		return nil
	}
	switch {
	case s.N < 1 || s.N > MaxShards:
		return fmt.Errorf("shard %d/%d: N must be in [1, %d]", s.I, s.N, MaxShards)
	case s.I < 1 || s.I > s.N:
		return fmt.Errorf("shard %d/%d: I must be in [1, %d] (shards are numbered from 1, as a Slurm array submitted with --array=1-N)", s.I, s.N, s.N)
	}
	return nil
}

// Sharded reports whether s is a part of the work, not the whole.
func (s Shard) Sharded() bool { return s.N > 0 }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// AssignShards assigns units of the given costs to n shards, returning
// each unit's shard (1..n). It is the longest-processing-time rule: the
// units, costliest first (ties: in the given order), each go to the
// shard with the least cost so far (ties: the lowest-numbered), which
// keeps the largest shard within 4/3 of the best possible split. It is a
// pure function of costs and n, so every shard computes the same
// assignment.
func AssignShards(costs []float64, n int) []int {
	order := make([]int, len(costs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(costs[b], costs[a]) })
	load := make([]float64, n)
	out := make([]int, len(costs))
	for _, u := range order {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		load[best] += costs[u]
		out[u] = best + 1
	}
	return out
}

// unitCost is the cost model that balances the shards: the bytes
// model.EstimateBytes gives for one training step over the whole dataset
// (size), times the epochs. A step's activations are written once and
// read about twice in the backward pass, so the bytes a model's step
// touches grow with its work (widths, layers, routing iterations, nodes,
// arcs) and compare across models well enough to balance shards; it is an
// estimate, not a measurement, and the same on every machine, so that
// every shard computes the same plan. A unit whose estimate fails costs
// one byte per epoch: it still goes to exactly one shard.
func unitCost(cfg model.Config, shape model.Shape, size model.Size, epochs int) float64 {
	need, err := model.EstimateBytes(cfg, shape, size)
	if err != nil || need <= 0 {
		need = 1
	}
	return float64(need) * float64(max(epochs, 1))
}

// ShardPlan says what a shard trains: its units and their estimated cost
// against the whole work's.
type ShardPlan struct {
	Shard     Shard    `json:"shard"`
	Units     int      `json:"units"`     // the whole work's
	Mine      int      `json:"mine"`      // this shard's
	Cost      float64  `json:"cost"`      // the whole work's estimated cost (unitCost)
	MineCost  float64  `json:"mine_cost"` // this shard's
	Trained   int      `json:"trained"`   // units of this shard trained by this run
	FromLog   int      `json:"from_log"`  // units of this shard found in its log
	Failed    int      `json:"failed"`    // units of this shard that failed
	Log       string   `json:"log"`       // the shard's log
	Seconds   float64  `json:"seconds"`   // wall time of this run
	Largest   float64  `json:"largest"`   // the costliest shard's estimated cost
	Smallest  float64  `json:"smallest"`  // the cheapest shard's
	UnitsOfMe []int    `json:"-"`         // indices of this shard's units
	Failures  []string `json:"failures,omitempty"`
}

// plan assigns units of costs to shards and fills the plan of shard s.
func plan(s Shard, costs []float64) ShardPlan {
	p := ShardPlan{Shard: s, Units: len(costs)}
	assign := AssignShards(costs, s.N)
	loads := make([]float64, s.N)
	for u, sh := range assign {
		loads[sh-1] += costs[u]
		p.Cost += costs[u]
		if sh == s.I {
			p.Mine++
			p.MineCost += costs[u]
			p.UnitsOfMe = append(p.UnitsOfMe, u)
		}
	}
	p.Largest, p.Smallest = slices.Max(loads), slices.Min(loads)
	return p
}

// Err reports the units of the shard that failed, with how to retry them
// (nil if none did).
func (p ShardPlan) Err() error {
	if len(p.Failures) == 0 {
		return nil
	}
	return fmt.Errorf("shard %s: %d failure(s); rerun the same command to retry them (finished units are kept in %s):\n  %s",
		p.Shard, len(p.Failures), p.Log, strings.Join(p.Failures, "\n  "))
}

// Text is the plan as one line for people.
func (p ShardPlan) Text() string {
	share := 0.0
	if p.Cost > 0 {
		share = 100 * p.MineCost / p.Cost
	}
	balance := 1.0
	if p.Smallest > 0 {
		balance = p.Largest / p.Smallest
	}
	s := fmt.Sprintf("shard %s: %d of %d units (%.1f%% of the estimated cost; costliest shard / cheapest %.2f); %d trained now, %d from %s",
		p.Shard, p.Mine, p.Units, share, balance, p.Trained, p.FromLog, p.Log)
	if p.Failed > 0 {
		s += fmt.Sprintf("; %d FAILED", p.Failed)
	}
	return s
}

// ExpandLogs turns a --log value of a merge into its files: a
// comma-separated list whose items are files, directories (their *.jsonl
// files) or globs (such as logs/shard-*.jsonl), each sorted by name.
// Every item must name at least one file, and a file is listed once.
// many reports whether the value named more than one file or anything
// but one plain file, the form a single log has always had.
func ExpandLogs(spec string) (files []string, many bool, err error) {
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	items := strings.Split(spec, ",")
	for _, item := range items {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if st, err := os.Stat(item); err == nil && st.IsDir() {
			m, err := filepath.Glob(filepath.Join(item, "*.jsonl"))
			if err != nil {
				return nil, false, err
			}
			if len(m) == 0 {
				return nil, false, fmt.Errorf("%s: a directory without *.jsonl fold logs", item)
			}
			slices.Sort(m)
			for _, f := range m {
				add(f)
			}
			many = true
			continue
		}
		if strings.ContainsAny(item, "*?[") {
			m, err := filepath.Glob(item)
			if err != nil {
				return nil, false, fmt.Errorf("%s: %w", item, err)
			}
			if len(m) == 0 {
				return nil, false, fmt.Errorf("%s: no file matches", item)
			}
			slices.Sort(m)
			for _, f := range m {
				add(f)
			}
			many = true
			continue
		}
		add(item)
	}
	if len(files) == 0 {
		return nil, false, fmt.Errorf("no fold log named")
	}
	return files, many || len(files) > 1, nil
}

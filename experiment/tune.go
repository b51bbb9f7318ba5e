package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/internal/fileguard"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/option"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/stats"
	"github.com/prcaps/prcaps/train"
)

// Grid is a hyperparameter search space for a node model: every
// combination of the listed values of its options, which are the model's
// options and the training options (lr, wd, epochs, ...) by their flag
// names. In JSON:
//
//	{"model": "tgnn", "options": {"layers": [2, 3], "norm": ["none", "layer"], "lr": [0.01, 0.001]}}
//
// Options not listed keep the model's defaults and its training recipe.
// An optional "source" (text) says where the ranges come from (a paper's
// search space, a reference script); the search never reads it, so a
// grid's points, cells and logs do not depend on it.
type Grid struct {
	Model   string
	Options map[string][]string // values as on the command line
	Source  string
}

// MaxGridBytes bounds a grid file: a grid is a few lines of JSON, and a
// search over a MiB of values would never finish anyway.
const MaxGridBytes = 1 << 20

// ReadGrid parses a grid file. It names the file and the problem for
// malformed JSON, unknown fields, an empty or non-scalar value list or a
// grid without options; Tune.Do checks the names and values themselves.
func ReadGrid(path string) (Grid, error) {
	b, err := fileguard.ReadFile(path, MaxGridBytes)
	if err != nil {
		return Grid{}, err
	}
	var raw struct {
		Model   string                       `json:"model"`
		Options map[string][]json.RawMessage `json:"options"`
		Source  string                       `json:"source"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return Grid{}, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := dec.Token(); err != io.EOF { // one object, then nothing but space
		return Grid{}, fmt.Errorf("%s: data after the grid's JSON object (offset %d)", path, dec.InputOffset())
	}
	if raw.Model == "" {
		return Grid{}, fmt.Errorf("%s: no \"model\"", path)
	}
	if len(raw.Options) == 0 {
		return Grid{}, fmt.Errorf("%s: no \"options\" to search", path)
	}
	g := Grid{Model: raw.Model, Options: map[string][]string{}, Source: raw.Source}
	for name, vals := range raw.Options {
		if len(vals) == 0 {
			return Grid{}, fmt.Errorf("%s: option %q has no values", path, name)
		}
		for _, v := range vals {
			s, err := scalarText(v)
			if err != nil {
				return Grid{}, fmt.Errorf("%s: option %q: %w", path, name, err)
			}
			if slices.Contains(g.Options[name], s) {
				return Grid{}, fmt.Errorf("%s: option %q lists %s twice", path, name, s)
			}
			g.Options[name] = append(g.Options[name], s)
		}
	}
	return g, nil
}

// scalarText is a JSON number, string or boolean as command-line text.
func scalarText(v json.RawMessage) (string, error) {
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return "", err
	}
	switch x := x.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case float64:
		return string(bytes.TrimSpace(v)), nil
	}
	return "", fmt.Errorf("value %s is not a number, string or boolean", v)
}

// names returns the grid's option names, sorted.
func (g Grid) names() []string {
	names := make([]string, 0, len(g.Options))
	for n := range g.Options {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Assignments lists every combination, in a fixed order: option names
// sorted, the first name varying slowest, each name's values in the
// grid's order.
func (g Grid) Assignments() []map[string]string {
	names := g.names()
	out := []map[string]string{{}}
	for _, n := range names {
		var next []map[string]string
		for _, a := range out {
			for _, v := range g.Options[n] {
				b := make(map[string]string, len(a)+1)
				for k, x := range a {
					b[k] = x
				}
				b[n] = v
				next = append(next, b)
			}
		}
		out = next
	}
	return out
}

// assignmentText is a canonical one-line form, "a=1 b=x".
func assignmentText(a map[string]string) string {
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + a[k]
	}
	return strings.Join(parts, " ")
}

// Configs applies an assignment to the model's default configuration and
// its training recipe for task. A name that is neither a model option nor
// a training option, and a value either rejects, is an error.
func Configs(task data.Task, name string, a map[string]string) (model.Config, train.Config, error) {
	mc, err := model.DefaultConfig(task, name)
	if err != nil {
		return nil, train.Config{}, err
	}
	tc := train.Recipe(task, name)
	if err := applyOptions(mc, &tc, name, a); err != nil {
		return nil, tc, err
	}
	if err := mc.Validate(); err != nil {
		return nil, tc, fmt.Errorf("%s: %w", assignmentText(a), err)
	}
	if err := tc.Validate(); err != nil {
		return nil, tc, fmt.Errorf("%s: %w", assignmentText(a), err)
	}
	return mc, tc, nil
}

// ErrGrid is wrapped by Tune.Do's error for a grid it cannot run: an
// unknown model or option, or a value a configuration rejects.
var ErrGrid = errors.New("bad grid")

// trialKey identifies a trial in a log: its data, model, protocol, seeds and
// options.
func trialKey(t record.Trial) string {
	return strings.Join([]string{t.Fingerprint, t.Model, t.Protocol, strconv.FormatUint(t.FirstSeed, 10), assignmentText(t.Options)}, "\x00")
}

// Tune is a grid search on validation accuracy for a node model, the
// selection Luo et al. (2024) make for their tuned classic GNNs: every
// configuration trains under the protocol, the one of highest mean
// validation accuracy (ties: the first in grid order) is chosen, and only
// then is it scored on the test nodes, once.
type Tune struct {
	Grid    Grid
	Dataset *data.Dataset // a node dataset
	Node    train.NodeProtocol
	// Log is a file of finished trials, one JSON Trial per line. Trials
	// found there for the same data, model, protocol and options are not
	// trained again, so an interrupted search resumes; new ones are
	// appended as they finish. Empty: no log.
	Log      string
	Progress Progress
	// Shard, if set, makes DoShard train only this shard's trials (see
	// Shard), appending them to Log.
	Shard Shard
	// Logs, instead of Log, are the trial logs of the shards of this
	// search, read and never appended: Do takes every trial from them
	// (one missing is an error, as is a trial in two files or one
	// configuration under other data, protocol or seeds in two files)
	// and only scores the chosen configuration on the test nodes.
	Logs []string
}

// TuneResult is a finished search.
type TuneResult struct {
	Trials []record.Trial // in grid order
	Best   int            // index of the chosen trial
	// Reused counts the trials read from the log instead of trained.
	Reused int
	// Final is the chosen configuration's protocol run, with its test
	// accuracy.
	Final record.Summary
	// Stats compares every trial with the chosen one on validation, by
	// index of Trials (compareTrials).
	Stats []TrialStats
}

// TrialStats is a trial against the chosen one: the two-sided Wilcoxon
// signed-rank and paired t-test p-values of their validation accuracies
// paired by seed, the Wilcoxon p Holm-corrected over the compared trials,
// and whether the trial is statistically tied with the chosen one at
// TiedLevel (the chosen trial is). A trial without ValAccs, or with other
// seeds, is not compared (Paired false, no p-values).
type TrialStats struct {
	Paired   bool     `json:"paired"`
	PVsBest  *float64 `json:"p_vs_best,omitempty"`
	PTVsBest *float64 `json:"p_t_vs_best,omitempty"`
	PHolm    *float64 `json:"p_holm,omitempty"`
	TiedBest bool     `json:"tied_best"`
}

// Do runs the search. Every assignment is checked before any training.
func (t Tune) Do() (TuneResult, error) {
	ds := t.Dataset
	if ds == nil || ds.Task != data.NodeTask {
		return TuneResult{}, fmt.Errorf("experiment: tune needs a node-classification dataset")
	}
	if _, err := model.Lookup(data.NodeTask, t.Grid.Model); err != nil {
		return TuneResult{}, fmt.Errorf("%w: %w", ErrGrid, err)
	}
	progress := t.Progress
	if progress == nil {
		progress = noProgress{}
	}
	assigns := t.Grid.Assignments()
	type cfgs struct {
		mc model.Config
		tc train.Config
	}
	all := make([]cfgs, len(assigns))
	for i, a := range assigns {
		mc, tc, err := Configs(data.NodeTask, t.Grid.Model, a)
		if err != nil {
			return TuneResult{}, fmt.Errorf("%w: %w", ErrGrid, err)
		}
		all[i] = cfgs{mc, tc}
	}
	base := record.Trial{Dataset: ds.Name, Fingerprint: ds.Fingerprint(), Model: t.Grid.Model,
		Protocol: t.Node.Name(), FirstSeed: t.Node.FirstSeed}
	if t.Shard.Sharded() {
		return TuneResult{}, fmt.Errorf("experiment: a sharded search runs with DoShard")
	}
	done, err := t.readDone()
	if err != nil {
		return TuneResult{}, err
	}
	if len(t.Logs) > 0 {
		var missing []string
		for _, a := range assigns {
			tr := base
			tr.Options = a
			if _, ok := done[trialKey(tr)]; !ok {
				missing = append(missing, assignmentText(a))
			}
		}
		if len(missing) > 0 {
			return TuneResult{}, fmt.Errorf("the trial logs %s lack %d of the %d trials (%s): run the shards that hold them, or this search without the merge",
				strings.Join(t.Logs, ", "), len(missing), len(assigns), strings.Join(missing[:min(len(missing), 5)], "; "))
		}
	}
	res := TuneResult{Best: -1}
	for i, a := range assigns {
		tr := base
		tr.Options = a
		label := fmt.Sprintf("trial %d/%d", i+1, len(assigns))
		if old, ok := done[trialKey(tr)]; ok {
			tr = old
			res.Reused++
			progress.Line("%s %s: val %.4f ± %.4f (from %s)", label, assignmentText(a), tr.ValMean, tr.ValStd, t.Log)
		} else {
			sum, err := t.run(all[i].mc, all[i].tc, label, true)
			if err != nil {
				return res, fmt.Errorf("%s (%s): %w", label, assignmentText(a), err)
			}
			tr.ValMean, tr.ValStd = valStats(sum)
			for _, r := range sum.Results {
				tr.ValAccs = append(tr.ValAccs, r.ValAcc)
			}
			tr.Params, tr.Seconds = sum.Params, sum.SecondsPerRun
			if err := record.AppendLog(t.Log, tr); err != nil {
				return res, err
			}
			progress.Line("%s %s: val %.4f ± %.4f, %.2f s per run", label, assignmentText(a), tr.ValMean, tr.ValStd, tr.Seconds)
		}
		res.Trials = append(res.Trials, tr)
		if res.Best < 0 || tr.ValMean > res.Trials[res.Best].ValMean {
			res.Best = i
		}
	}
	res.Stats = compareTrials(res.Trials, res.Best)
	best := res.Trials[res.Best]
	progress.Line("chosen on validation: %s (val %.4f ± %.4f); now its test score", assignmentText(best.Options), best.ValMean, best.ValStd)
	res.Final, err = t.run(all[res.Best].mc, all[res.Best].tc, "chosen", false)
	if err != nil {
		return res, err
	}
	if v, _ := valStats(res.Final); v != best.ValMean {
		return res, fmt.Errorf("experiment: the chosen configuration scored val %.6f in the search and %.6f when rerun; the runs are not reproducible",
			best.ValMean, v)
	}
	return res, nil
}

// run trains one configuration under the protocol; a trial's progress
// (hideTest) shows no test accuracy.
func (t Tune) run(mc model.Config, tc train.Config, label string, hideTest bool) (record.Summary, error) {
	return Run{Model: t.Grid.Model, Config: mc, Train: tc, Dataset: t.Dataset, Node: t.Node,
		Progress: t.Progress, Label: label, HideTest: hideTest}.Do()
}

// compareTrials compares every trial with trials[best] on validation
// accuracy paired by seed, as the bench tables compare cells with the
// highest mean (columnStats): Wilcoxon and t-test p-values, Holm over the
// compared trials, tied at TiedLevel by the Holm-adjusted Wilcoxon p.
func compareTrials(trials []record.Trial, best int) []TrialStats {
	out := make([]TrialStats, len(trials))
	if best < 0 || best >= len(trials) {
		return out
	}
	out[best] = TrialStats{Paired: true, TiedBest: true}
	b := trials[best].ValAccs
	if len(b) == 0 {
		return out
	}
	var family []int
	var pw []float64
	for i, tr := range trials {
		if i == best || len(tr.ValAccs) != len(b) || tr.FirstSeed != trials[best].FirstSeed {
			continue
		}
		w, err1 := stats.Wilcoxon(b, tr.ValAccs)
		tt, err2 := stats.PairedT(b, tr.ValAccs)
		if err1 != nil || err2 != nil {
			continue
		}
		pW, pT := w.P, tt.P
		out[i] = TrialStats{Paired: true, PVsBest: &pW}
		if !math.IsNaN(pT) {
			out[i].PTVsBest = &pT
		}
		family = append(family, i)
		pw = append(pw, w.P)
	}
	for k, h := range stats.Holm(pw) {
		out[family[k]].PHolm = &h
		out[family[k]].TiedBest = h >= TiedLevel
	}
	return out
}

// valStats is the mean and (population) standard deviation of the runs'
// validation accuracies, as Summary reports the test accuracy's.
func valStats(s record.Summary) (mean, std float64) {
	if len(s.Results) == 0 {
		return s.MeanValAcc, 0
	}
	for _, r := range s.Results {
		mean += r.ValAcc
	}
	mean /= float64(len(s.Results))
	for _, r := range s.Results {
		std += (r.ValAcc - mean) * (r.ValAcc - mean)
	}
	return mean, math.Sqrt(std / float64(len(s.Results)))
}

// readTrials loads a trial log by key (see record.ReadLog).
func readTrials(path string) (map[string]record.Trial, error) {
	return readTrialLogs([]string{path})
}

// readTrialLogs loads several trial logs, the shards' of one search, by
// key. Inside one file a later trial replaces an earlier one; across
// files a trial found twice, or one configuration of one model on one
// dataset under two data fingerprints, protocols or first seeds, is an
// error naming both files: those are not the shards of one search.
func readTrialLogs(paths []string) (map[string]record.Trial, error) {
	done := map[string]record.Trial{}
	byKey, byConfig := map[string]string{}, map[string]string{} // → file
	configKey := map[string]string{}
	for _, path := range paths {
		recs, err := record.ReadLog(path, "trial", func(tr record.Trial) bool { return tr.Options != nil })
		if err != nil {
			return nil, err
		}
		for _, tr := range recs {
			k, c := trialKey(tr), tr.Dataset+"\x00"+tr.Model+"\x00"+assignmentText(tr.Options)
			if f, ok := byKey[k]; ok && f != path {
				return nil, fmt.Errorf("trial logs %s and %s both hold %s trial %s: each trial belongs to one shard's log", f, path, tr.Model, assignmentText(tr.Options))
			}
			if f, ok := byConfig[c]; ok && f != path && configKey[c] != k {
				return nil, fmt.Errorf("trial logs %s and %s hold %s trial %s on %s under different data, protocols or seeds: the shards were not run with the same flags and data",
					f, path, tr.Model, assignmentText(tr.Options), tr.Dataset)
			}
			byKey[k], byConfig[c], configKey[c] = path, path, k
			done[k] = tr
		}
	}
	return done, nil
}

// readDone reads the search's finished trials: Logs', or Log's.
func (t Tune) readDone() (map[string]record.Trial, error) {
	if len(t.Logs) > 0 {
		if t.Log != "" {
			return nil, fmt.Errorf("experiment: a search reads the shards' trial logs (Logs) or appends to one (Log), not both")
		}
		return readTrialLogs(t.Logs)
	}
	return readTrials(t.Log)
}

// DoShard trains this search's shard (Shard) of the grid: the
// configurations AssignShards gives it, by the estimated cost of their
// protocol runs (unitCost over the dataset), each appended to Log as it
// finishes and skipped when Log holds it already, so a shard rerun with
// the same command resumes. It chooses nothing and sees no test
// accuracy: Do over every shard's log (Logs) chooses and scores.
func (t Tune) DoShard() (ShardPlan, error) {
	ds := t.Dataset
	if ds == nil || ds.Task != data.NodeTask {
		return ShardPlan{}, fmt.Errorf("experiment: tune needs a node-classification dataset")
	}
	if !t.Shard.Sharded() || t.Log == "" || len(t.Logs) > 0 {
		return ShardPlan{}, fmt.Errorf("experiment: a shard of a search needs Shard and a log of its own (Log)")
	}
	if _, err := model.Lookup(data.NodeTask, t.Grid.Model); err != nil {
		return ShardPlan{}, fmt.Errorf("%w: %w", ErrGrid, err)
	}
	progress := t.Progress
	if progress == nil {
		progress = noProgress{}
	}
	assigns := t.Grid.Assignments()
	costs := make([]float64, len(assigns))
	type cfgs struct {
		mc model.Config
		tc train.Config
	}
	all := make([]cfgs, len(assigns))
	nd := ds.Node
	for i, a := range assigns {
		mc, tc, err := Configs(data.NodeTask, t.Grid.Model, a)
		if err != nil {
			return ShardPlan{}, fmt.Errorf("%w: %w", ErrGrid, err)
		}
		all[i] = cfgs{mc, tc}
		costs[i] = unitCost(mc, model.NodeShape(nd), model.Size{Nodes: nd.Graph.N, Arcs: nd.Graph.NumArcs()}, tc.Epochs)
	}
	done, err := readTrials(t.Log)
	if err != nil {
		return ShardPlan{}, err
	}
	start := time.Now()
	p := plan(t.Shard, costs)
	p.Log = t.Log

	base := record.Trial{Dataset: ds.Name, Fingerprint: ds.Fingerprint(), Model: t.Grid.Model,
		Protocol: t.Node.Name(), FirstSeed: t.Node.FirstSeed}
	for k, i := range p.UnitsOfMe {
		tr := base
		tr.Options = assigns[i]
		if _, ok := done[trialKey(tr)]; ok {
			p.FromLog++
			continue
		}
		label := fmt.Sprintf("shard %s trial %d/%d (grid %d)", t.Shard, k+1, len(p.UnitsOfMe), i+1)
		sum, err := t.run(all[i].mc, all[i].tc, label, true)
		if err != nil {
			p.Failed++
			p.Failures = append(p.Failures, fmt.Sprintf("%s (%s): %v", label, assignmentText(tr.Options), err))
			if errors.Is(err, train.ErrInterrupted) {
				p.Seconds = time.Since(start).Seconds()
				return p, err
			}
			continue
		}
		tr.ValMean, tr.ValStd = valStats(sum)
		for _, r := range sum.Results {
			tr.ValAccs = append(tr.ValAccs, r.ValAcc)
		}
		tr.Params, tr.Seconds = sum.Params, sum.SecondsPerRun
		if err := record.AppendLog(t.Log, tr); err != nil {
			p.Seconds = time.Since(start).Seconds()
			return p, err
		}
		p.Trained++
		progress.Line("%s %s: val %.4f ± %.4f, %.2f s per run", label, assignmentText(tr.Options), tr.ValMean, tr.ValStd, tr.Seconds)
	}
	p.Seconds = time.Since(start).Seconds()
	return p, nil
}

// applyOptions sets each option of a (name → value) on the model
// configuration mc of model name, or, if it has none of that name, on the
// training configuration tc.
func applyOptions(mc model.Config, tc *train.Config, name string, a map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(a)) {
		err := option.Set(mc, k, a[k])
		if errors.Is(err, option.ErrUnknown) {
			err = option.Set(tc, k, a[k])
			if errors.Is(err, option.ErrUnknown) {
				return fmt.Errorf("option %q is neither a %s option nor a training option", k, name)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/train"
)

// errNotInLog is the error of a cell that Options.LogOnly leaves empty.
var errNotInLog = errors.New("not run (--log-only), its folds are not all in the fold log")

// buildCommit is the binary's VCS revision for record.FoldRecord.Commit.
var buildCommit = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(len(s.Value), 12)]
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "+dirty"
	}
	return rev
})

// readFoldLogs reads fold logs (see record.ReadLog), one or the shards' of one
// bench, into one map by cell and fold. Inside one file a later record of a fold
// replaces an earlier one (a cell retrained after a change of code, say),
// as a single log always did; across files the logs must not overlap: a
// fold found in two files is a duplicate, and one fold of one table cell
// (its label) found in two files under two cell keys means that the
// shards ran different configurations, data or protocols. Either is an
// error naming both files, since the merged table would silently depend
// on which file was read last.
func readFoldLogs(paths []string) (map[string]map[int]loggedFold, error) {
	done := map[string]map[int]loggedFold{}
	type seen struct {
		file, cell, commit, data string
	}
	byCell := map[string]seen{}  // cell + fold
	byLabel := map[string]seen{} // label + fold
	for _, path := range paths {
		recs, err := record.ReadLog(path, "bench fold", record.ValidFold)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			unit := fmt.Sprintf("%s fold %d", r.Label, r.Fold)
			ck, lk := r.Cell+"|"+strconv.Itoa(r.Fold), r.Label+"|"+strconv.Itoa(r.Fold)
			if o, ok := byCell[ck]; ok && o.file != path {
				what := "the same record twice"
				if o.commit != r.Commit {
					what = fmt.Sprintf("records trained at different commits (%s, %s)", orUnknown(o.commit), orUnknown(r.Commit))
				}
				return nil, fmt.Errorf("fold logs %s and %s both hold %s (cell %s): %s; each unit belongs to one shard's log, so these logs are not the shards of one bench", o.file, path, unit, r.Cell, what)
			}
			if o, ok := byLabel[lk]; ok && r.Label != "" && o.file != path && o.cell != r.Cell {
				what := "different configurations or protocols"
				if o.data != "" && r.Data != "" && o.data != r.Data {
					what = fmt.Sprintf("different data (fingerprints %s, %s)", o.data, r.Data)
				}
				return nil, fmt.Errorf("fold logs %s and %s hold %s for %s (cells %s, %s): the shards were not run with the same flags and data", o.file, path, unit, what, o.cell, r.Cell)
			}
			s := seen{path, r.Cell, r.Commit, r.Data}
			byCell[ck], byLabel[lk] = s, s
			if done[r.Cell] == nil {
				done[r.Cell] = map[int]loggedFold{}
			}
			done[r.Cell][r.Fold] = loggedFold{r.Result, r.Commit, r.CPU}
		}
	}
	return done, nil
}

func orUnknown(commit string) string {
	if commit == "" {
		return "unknown"
	}
	return commit
}

// loggedFold is a fold read from the fold log and the commit that trained it.
type loggedFold struct {
	result      train.Result
	commit, cpu string
}

// cellKey identifies a graph cell's folds across processes: a digest of
// the configuration (memo key), the dataset's contents and every protocol
// setting that changes a fold's result.
func cellKey(memo string, ds *data.Dataset, p train.GraphProtocol) string {
	text := fmt.Sprintf("%s|%s|%s|folds %d|first seed %d|fold seed %d|val %v|batch %d|micro %d|eval %d",
		memo, ds.Fingerprint(), p.Name(), p.Folds, p.FirstSeed, p.FoldSeed, p.ValFrac, p.BatchSize, p.MicroBatchNodes, p.EvalBatch)
	if p.MicroBatchSeeds == "on" {
		text += "|seeded micro-batches"
	}
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:16])
}

// resume gives job the folds of its cell (key, see cellKey) found in the fold log and has
// each fold it trains appended there.
//
// It returns where the logged folds' seconds were measured (runOrigin).
func (b *Bench) resume(job *train.GraphJob, key, label, data string) map[string]bool {
	origins := map[string]bool{}
	if !b.hasLog() {
		return origins
	}
	if done := b.logged[key]; len(done) > 0 {
		job.Done = map[int]train.Result{}
		for f, l := range done {
			job.Done[f] = l.result
			origins[runOrigin(l.commit, l.cpu)] = true
			c := l.commit
			if c == "" {
				c = "unknown"
			}
			b.fromLog[c]++
		}
		b.progress.Line("%s: %d fold(s) read from %s", label, len(done), b.logName())
	}
	b.logRuns(&job.Observer, key, label, data, 0)
	return origins
}

// logRuns has the observer obs (called one run at a time) also append
// each finished run to the fold log as run first+i of the cell (key,
// label), and keep it in the bench's map of logged folds.
func (b *Bench) logRuns(obs *train.Observer, key, label, data string, first int) {
	*obs = train.Observers(*obs, train.RunFunc(func(i int, r train.Result) {
		rec := record.FoldRecord{Cell: key, Label: label, Fold: first + i, Result: r, Commit: buildCommit(), CPU: machineCPU(), Data: data}
		if err := record.AppendLog(b.opt.Log, rec); err != nil && b.logErr == nil {
			b.logErr = err
		}
		if b.logged[key] == nil {
			b.logged[key] = map[int]loggedFold{}
		}
		b.logged[key][first+i] = loggedFold{r, rec.Commit, rec.CPU}
		b.fresh[key+"|"+strconv.Itoa(first+i)] = true
	}))
}

// nodeCellKey identifies a node-table cell's runs in the fold log: a
// digest of the configuration (memo key), the dataset's contents and the
// protocol settings that change a run's result.
func nodeCellKey(memo string, ds *data.Dataset, p train.NodeProtocol) string {
	text := fmt.Sprintf("%s|%s|node %s|first seed %d", memo, ds.Fingerprint(), p.Name(), p.FirstSeed)
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:16])
}

// nodeFromLog returns the summary of a node cell (key, see nodeCellKey)
// whose runs are all in the fold log (ok), with the parameter count of a
// freshly built model; nothing trains. With Options.LogOnly a cell with
// runs missing is errNotInLog; otherwise (not ok) the caller trains the
// missing runs. Runs trained by this bench (logRuns) are not counted as
// read from the log.
func (b *Bench) nodeFromLog(run Run, key string) (record.Summary, map[string]bool, bool, error) {
	if !b.hasLog() {
		return record.Summary{}, nil, false, nil
	}
	done := b.logged[key]
	if len(done) < run.Node.Seeds {
		if b.opt.LogOnly {
			return record.Summary{}, nil, false, fmt.Errorf("%w: %d of %d runs there%s", errNotInLog, len(done), run.Node.Seeds, missingText(done, run.Node.Seeds, "run"))
		}
		return record.Summary{}, nil, false, nil
	}
	ds := run.Dataset.Node
	m, err := model.NewNode(run.ModelName(), run.Config, model.NodeShape(ds), run.Node.FirstSeed)
	if err != nil {
		return record.Summary{}, nil, false, err
	}
	origins := map[string]bool{}
	s := record.Summary{Dataset: ds.Name, Task: "node", Model: run.ModelName(), Protocol: run.Node.Name(),
		Epochs: run.TrainConfig().Epochs, Params: model.CountParams(m)}
	read := 0
	for i := range run.Node.Seeds {
		l, ok := done[i]
		if !ok {
			return record.Summary{}, nil, false, fmt.Errorf("fold log %s: run %d of %s missing", b.logName(), i, run.Label)
		}
		s.Results = append(s.Results, l.result)
		origins[runOrigin(l.commit, l.cpu)] = true
		if b.fresh[key+"|"+strconv.Itoa(i)] {
			continue
		}
		read++
		b.fromLog[orUnknown(l.commit)]++
	}
	s.Summarise()
	if read > 0 {
		b.progress.Line("%s: %d run(s) read from %s", run.Label, read, b.logName())
	}
	return s, origins, true, nil
}

// missingText lists the runs 0..n-1 (unit "fold" or "run") absent from
// done, as "; missing: folds 3, 7", or "" when none is.
func missingText(done map[int]loggedFold, n int, unit string) string {
	var miss []string
	for i := range n {
		if _, ok := done[i]; !ok {
			miss = append(miss, strconv.Itoa(i))
		}
	}
	if len(miss) == 0 {
		return ""
	}
	if len(miss) > 1 {
		unit += "s"
	}
	return fmt.Sprintf("; missing: %s %s", unit, strings.Join(miss, ", "))
}

// hasLog reports whether the bench reads a fold log: Options.Log, or the
// logs of Options.Logs.
func (b *Bench) hasLog() bool { return b.opt.Log != "" || len(b.opt.Logs) > 0 }

// logPhrase is "the fold log X" or "the N fold logs X, Y, Z" (logName).
func (b *Bench) logPhrase() string {
	if len(b.opt.Logs) > 1 {
		return "the " + b.logName()
	}
	return "the fold log " + b.logName()
}

// logName names the fold log(s) the bench reads, for notes and progress.
func (b *Bench) logName() string {
	logs := b.opt.Logs
	switch {
	case len(logs) == 0:
		return b.opt.Log
	case len(logs) == 1:
		return logs[0]
	case len(logs) <= 3:
		return fmt.Sprintf("%d fold logs %s", len(logs), strings.Join(logs, ", "))
	}
	return fmt.Sprintf("%d fold logs %s, …, %s", len(logs), logs[0], logs[len(logs)-1])
}

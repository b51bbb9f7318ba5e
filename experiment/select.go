package experiment

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/train"
)

// Retrains is how many times the fair selection protocol retrains the
// configuration an outer fold chose, each from other seeds, before
// testing it: Errica et al. (ICLR 2020) average three such runs, so that
// one lucky initialisation does not decide a fold.
const Retrains = 3

// SelectGrid is one model's grid for the selection protocol (Selection)
// and the file it was read from, which the errors name.
type SelectGrid struct {
	File string
	Grid Grid
}

// ReadSelectGrid reads a grid file (ReadGrid) for the selection protocol
// on graph tables and checks every one of its points against the model's
// graph configuration and training recipe, naming the file.
func ReadSelectGrid(path string) (SelectGrid, error) {
	g, err := ReadGrid(path)
	if err != nil {
		return SelectGrid{}, err
	}
	if _, err := model.Lookup(data.GraphTask, g.Model); err != nil {
		return SelectGrid{}, fmt.Errorf("%s: %w: %w", path, ErrGrid, err)
	}
	for _, a := range g.Assignments() {
		if _, _, err := Configs(data.GraphTask, g.Model, a); err != nil {
			return SelectGrid{}, fmt.Errorf("%s: %w: %w", path, ErrGrid, err)
		}
	}
	return SelectGrid{File: path, Grid: g}, nil
}

// ReadSelectGrids reads the grid files of one selection run (ReadSelectGrid
// each), one grid per model: two grids of one model are an error naming
// both files, as is an empty list.
func ReadSelectGrids(paths []string) ([]SelectGrid, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no grid file named")
	}
	var grids []SelectGrid
	for _, path := range paths {
		g, err := ReadSelectGrid(path)
		if err != nil {
			return nil, err
		}
		for _, o := range grids {
			if o.Grid.Model == g.Grid.Model {
				return nil, fmt.Errorf("%s and %s are both grids of %s: give one grid per model", o.File, path, g.Grid.Model)
			}
		}
		grids = append(grids, g)
	}
	return grids, nil
}

// Selection is the fair model selection protocol of the graph tables
// (Errica et al., ICLR 2020) as a table: for every model (a grid) and
// dataset, every outer fold f of the graph protocol trains each grid
// point on its training part, with the protocol's inner validation split
// (the same 10% the fixed-configuration tables stop on), and chooses the
// point of the highest best-epoch validation accuracy (ties: the first in
// grid order); test accuracies are never read for the choice. The chosen
// point is retrained Retrains times from other seeds and tested once
// each; the fold's result is the mean of those test accuracies, and the
// table's cell the mean ± std (population) over the folds.
//
// Grid point k's inner trial on fold f is fold f of the graph cell "the
// model configured as point k", so it is logged, resumed and merged as
// any graph cell's fold; retrain r (1..Retrains) of fold f is fold f of
// the chosen point's cell with its first seed moved by r·Folds, a cell of
// its own (the first seed is part of the cell key), so that retrains
// never collide with trials or with each other's seeds.
type Selection struct {
	Name     string   // table name, "t2-selected"
	Title    string   // caption; the datasets are appended
	Datasets []string // registry names, those missing skipped with a note
	Grids    []SelectGrid
	// Labels name the rows by model (Table 2's labels); a model without
	// one is named by its registry name.
	Labels map[string]string
	// Skip holds, by model and then dataset, the reason a model is not
	// run there (Table 2's: GraphGPS's exact attention on DD), so that the
	// selected table leaves out what the fixed one leaves out.
	Skip map[string]map[string]string
}

// SelectedTable is the selection protocol beside Table 2 (t2): its
// datasets (or datasets, when given) and its models' labels.
func SelectedTable(datasets []string, grids []SelectGrid) Selection {
	t2 := Suites()["graph"][0]
	s := Selection{Name: "t2-selected", Title: "Table 2, selected per fold: graph classification, a configuration chosen per outer fold on validation",
		Datasets: t2.Datasets, Grids: grids, Labels: map[string]string{}, Skip: map[string]map[string]string{}}
	if len(datasets) > 0 {
		s.Datasets = datasets
	}
	for _, v := range t2.Variants {
		if v.Apply == nil {
			s.Labels[v.Model] = v.Label
		}
		if len(v.Skip) > 0 {
			s.Skip[v.Model] = v.Skip
		}
	}
	return s
}

// selCell is one graph cell of the protocol: a grid point's trials
// (offset 0) or one of its retrains (offset r).
type selCell struct {
	label string // the fold log's label, unique per cell
	key   string // cellKey
	job   train.GraphJob
	cost  float64 // one fold's (unitCost)
	need  int64   // one fold's training-step memory
	data  string  // the dataset's fingerprint, for the fold log
}

// selTask is one grid on one dataset: its points' cells.
type selTask struct {
	g       SelectGrid
	d       benchDataset
	row     string // the row's label
	points  []map[string]string
	trials  []*selCell   // by point
	retrain [][]*selCell // by point, then r-1
	err     error        // a point that cannot run on the dataset
}

// chooseFold returns the grid point (index into vals, the points'
// best-epoch validation accuracies on one outer fold) with the highest
// validation accuracy, the first in grid order among ties. It reads
// nothing but validation accuracies: a test label never enters the choice.
func chooseFold(vals []float64) int {
	best := 0
	for k, v := range vals {
		if v > vals[best] {
			best = k
		}
	}
	return best
}

// selectionTasks builds the cells of every grid on every dataset of s.
func (b *Bench) selectionTasks(s Selection) ([]*selTask, []string, error) {
	dss, notes, err := b.datasets(Table{Name: s.Name, Datasets: s.Datasets, Graph: true})
	if err != nil {
		return nil, nil, err
	}
	var tasks []*selTask
	for _, g := range s.Grids {
		row := s.Labels[g.Grid.Model]
		if row == "" {
			row = g.Grid.Model
		}
		for _, d := range dss {
			if why, ok := s.Skip[g.Grid.Model][d.key]; ok {
				notes = append(notes, fmt.Sprintf("%s on %s: not run (%s).", row, d.ds.Name, why))
				continue
			}
			t := &selTask{g: g, d: d, row: row, points: g.Grid.Assignments()}
			for k, a := range t.points {
				trial, err := b.selCell(s, t, k, a, 0)
				if err != nil {
					t.err = err
					break
				}
				t.trials = append(t.trials, trial)
				var rs []*selCell
				for r := 1; r <= Retrains; r++ {
					c, err := b.selCell(s, t, k, a, r)
					if err != nil {
						t.err = err
						break
					}
					rs = append(rs, c)
				}
				t.retrain = append(t.retrain, rs)
			}
			tasks = append(tasks, t)
		}
	}
	return tasks, notes, nil
}

// selCell is point k (assignment a) of task t, its trials (r 0) or its
// retrain r: the graph protocol of the bench with the first seed moved
// by r·Folds.
func (b *Bench) selCell(s Selection, t *selTask, k int, a map[string]string, r int) (*selCell, error) {
	mc, tc, err := Configs(data.GraphTask, t.g.Grid.Model, a)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.g.File, err)
	}
	if b.opt.Epochs > 0 {
		tc.Epochs = b.opt.Epochs
	}
	p := b.graphProtocol()
	p.FirstSeed += uint64(r * b.opt.Folds)
	what := fmt.Sprintf("point %d (%s)", k+1, assignmentText(a))
	if r > 0 {
		what += fmt.Sprintf(" retrain %d", r)
	}
	label := fmt.Sprintf("%s: %s %s on %s", s.Name, t.row, what, t.d.ds.Name)
	run := Run{Model: t.g.Grid.Model, Config: mc, Train: tc, Dataset: t.d.ds, Graph: p, Progress: b.progress, Label: label}
	job, err := run.GraphJob()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	g := t.d.ds.Graph
	size := model.Size{Graphs: len(g.Graphs)}
	for _, x := range g.Graphs {
		size.Nodes += x.Graph.N
		size.Arcs += x.Graph.NumArcs()
	}
	c := &selCell{label: label, job: job, data: t.d.ds.Fingerprint(), key: cellKey(memoKey(t.g.Grid.Model, mc, tc, t.d.key, true), t.d.ds, job.Protocol)}
	c.cost = unitCost(mc, model.GraphShape(g), size, tc.Epochs)
	c.need, _ = model.EstimateBytes(mc, model.GraphShape(g), largestBatch(g, job.Protocol.BatchSize))
	return c, nil
}

// selResults holds the folds known to a selection run: read from the
// fold log(s) or trained now, by cell key and fold.
type selResults map[string]map[int]train.Result

func (r selResults) get(c *selCell, f int) (train.Result, bool) {
	x, ok := r[c.key][f]
	return x, ok
}

func (r selResults) put(key string, f int, x train.Result) {
	if r[key] == nil {
		r[key] = map[int]train.Result{}
	}
	r[key][f] = x
}

// choice is the chosen point of task t on fold f, and whether every
// trial of the fold is known.
func (t *selTask) choice(res selResults, f int) (int, []float64, bool) {
	vals := make([]float64, len(t.trials))
	for k, c := range t.trials {
		x, ok := res.get(c, f)
		if !ok {
			return 0, nil, false
		}
		vals[k] = x.ValAcc
	}
	return chooseFold(vals), vals, true
}

// selUnit is the selection protocol's unit of work, for sharding: one
// outer fold of one task, its trials and its retrains. The retrains need
// every trial of their fold, so the fold's work stays on one shard, which
// chooses and retrains as soon as its trials finish, reading its own log
// only.
type selUnit struct {
	t    *selTask
	fold int
}

// runSelection trains (unless Options.LogOnly) the units owned (all when
// owned is nil): first every trial not known, in one pool, then the
// retrains of every fold whose trials are all known. It returns how many
// runs it trained and the failures.
func (b *Bench) runSelection(units []selUnit, res selResults) (int, []string) {
	trained := 0
	var failures []string
	run := func(want func(u selUnit) []*selCell) {
		type pending struct {
			c     *selCell
			folds map[int]bool
		}
		var order []*pending
		byKey := map[string]*pending{}
		for _, u := range units {
			for _, c := range want(u) {
				if _, ok := res.get(c, u.fold); ok {
					continue
				}
				p := byKey[c.key]
				if p == nil {
					p = &pending{c: c, folds: map[int]bool{}}
					byKey[c.key] = p
					order = append(order, p)
				}
				p.folds[u.fold] = true
			}
		}
		if len(order) == 0 || b.opt.LogOnly {
			return
		}
		jobs := make([]train.GraphJob, len(order))
		for i, p := range order {
			job := p.c.job
			job.Done = map[int]train.Result{}
			for f := range job.Protocol.Runs() {
				if !p.folds[f] {
					job.Done[f] = train.Result{} // another unit's, or known: not trained here
				}
			}
			if b.opt.Log != "" {
				b.logRuns(&job.Observer, p.c.key, p.c.label, p.c.data, 0)
			}
			key := p.c.key
			job.Observer = train.Observers(job.Observer, train.RunFunc(func(f int, r train.Result) {
				res.put(key, f, r)
				trained++
			}))
			jobs[i] = job
			b.progress.Line("%s: %d fold(s) to train", p.c.label, len(p.folds))
		}
		_, errs := train.RunGraphProtocols(jobs, b.foldsAtOnce(jobs))
		for i, err := range errs {
			if err != nil {
				failures = append(failures, fmt.Sprintf("%s: %v", order[i].c.label, err))
			}
		}
	}
	run(func(u selUnit) []*selCell { return u.t.trials })
	run(func(u selUnit) []*selCell {
		k, vals, ok := u.t.choice(res, u.fold)
		if !ok {
			return nil
		}
		b.progress.Line("%s on %s fold %d: point %d (%s) chosen, validation %s", u.t.row, u.t.d.ds.Name, u.fold, k+1,
			assignmentText(u.t.points[k]), formatVals(vals))
		return u.t.retrain[k]
	})
	return trained, failures
}

func formatVals(vals []float64) string {
	s := make([]string, len(vals))
	for i, v := range vals {
		s[i] = strconv.FormatFloat(v, 'f', 4, 64)
	}
	return strings.Join(s, " ")
}

// knownResults are the folds of the bench's fold log(s).
func (b *Bench) knownResults() selResults {
	res := selResults{}
	for key, folds := range b.logged {
		for f, l := range folds {
			res.put(key, f, l.result)
		}
	}
	return res
}

// selUnits lists every unit of tasks (those without an error), in task
// then fold order, with each unit's estimated cost: its trials, and
// Retrains runs of its costliest point (the one retrained is not known
// before the trials).
func (b *Bench) selUnits(tasks []*selTask) ([]selUnit, []float64) {
	var units []selUnit
	var costs []float64
	for _, t := range tasks {
		if t.err != nil {
			continue
		}
		cost, top := 0.0, 0.0
		for _, c := range t.trials {
			cost += c.cost
			top = max(top, c.cost)
		}
		for f := range t.trials[0].job.Protocol.Runs() {
			units = append(units, selUnit{t, f})
			costs = append(costs, cost+Retrains*top)
		}
	}
	return units, costs
}

// RunSelection runs the selection protocol s (the whole of it, or with
// Options.LogOnly none of it: its tables are made from the fold logs) and
// emits its table. Every trial and retrain is appended to Options.Log as
// it finishes, so a rerun with the same log resumes.
func (b *Bench) RunSelection(s Selection) error {
	b.progress.Line("table: %s (%s)", s.Name, s.Title)
	tasks, notes, err := b.selectionTasks(s)
	if err != nil {
		return err
	}
	units, _ := b.selUnits(tasks)
	res := b.knownResults()
	read := 0
	for _, folds := range res {
		read += len(folds)
	}
	trained, failures := b.runSelection(units, res)
	b.runs += trained
	if b.logErr != nil {
		return fmt.Errorf("fold log: %w", b.logErr)
	}
	b.failed = append(b.failed, failures...)
	if read > 0 {
		notes = append(notes, fmt.Sprintf("%d fold(s) of trials and retrains were read from %s.", read, b.logPhrase()))
	}
	tab, err := b.renderSelection(s, tasks, res, notes)
	if err != nil {
		return err
	}
	if err := b.emit(tab); err != nil {
		return err
	}
	if b.stopped() {
		return fmt.Errorf("interrupted in table %s: %w", s.Name, train.ErrInterrupted)
	}
	return nil
}

// RunSelectionShard trains this bench's shard (Options.Shard) of the
// selection protocol: the outer folds (units: one model's trials and
// retrains on one fold of one dataset) that AssignShards gives it,
// balanced by estimated cost, appending every run to the fold log and
// skipping those it holds. As RunShard, it renders no table: the merge
// (--log-only over every shard's log) does.
func (b *Bench) RunSelectionShard(s Selection) (ShardPlan, error) {
	if !b.opt.Shard.Sharded() {
		return ShardPlan{}, fmt.Errorf("experiment: RunSelectionShard without a shard")
	}
	tasks, _, err := b.selectionTasks(s)
	if err != nil {
		return ShardPlan{}, err
	}
	units, costs := b.selUnits(tasks)
	p := plan(b.opt.Shard, costs)
	p.Log = b.opt.Log
	for _, t := range tasks {
		if t.err != nil {
			p.Failures = append(p.Failures, t.err.Error())
		}
	}
	var mine []selUnit
	for _, u := range p.UnitsOfMe {
		mine = append(mine, units[u])
	}
	b.progress.Line("shard %s: %d of %d units (outer folds), %.1f%% of the estimated cost", p.Shard, p.Mine, p.Units, 100*p.MineCost/max(p.Cost, 1))
	res := b.knownResults()
	for _, u := range mine {
		for _, c := range u.t.trials {
			if _, ok := res.get(c, u.fold); ok {
				p.FromLog++
			}
		}
		if k, _, ok := u.t.choice(res, u.fold); ok {
			for _, c := range u.t.retrain[k] {
				if _, ok := res.get(c, u.fold); ok {
					p.FromLog++
				}
			}
		}
	}
	trained, failures := b.runSelection(mine, res)
	p.Trained = trained
	p.Failed = len(failures)
	p.Failures = append(p.Failures, failures...)
	p.Seconds = time.Since(b.start).Seconds()
	if b.logErr != nil {
		return p, fmt.Errorf("fold log: %w", b.logErr)
	}
	if b.stopped() {
		return p, fmt.Errorf("shard %s interrupted: %w", p.Shard, train.ErrInterrupted)
	}
	return p, nil
}

// SelectionMemory is ShardMemory for the selection protocol: the largest
// grid point's training-step estimate, runsAtOnce times, plus
// ProcessBytes.
func (b *Bench) SelectionMemory(s Selection, runsAtOnce int) (int64, error) {
	tasks, _, err := b.selectionTasks(s)
	if err != nil {
		return 0, err
	}
	var need int64
	for _, t := range tasks {
		for _, c := range t.trials {
			need = max(need, c.need)
		}
	}
	return ProcessBytes + satFloat(float64(need)*float64(runsAtOnce)), nil
}

// selectionRecord summarises task t from the known folds: every fold's
// choice and retrains, or the units missing.
func (b *Bench) selectionRecord(s Selection, t *selTask, res selResults) (record.SelectRecord, []string) {
	rec := record.SelectRecord{Table: s.Name, Model: t.g.Grid.Model, Grid: t.g.File, Dataset: t.d.ds.Name, Protocol: b.graphProtocol().Name()}
	for _, a := range t.points {
		rec.Points = append(rec.Points, assignmentText(a))
	}
	if t.err != nil {
		rec.Error = t.err.Error()
		return rec, nil
	}
	var missing []string
	var accs []float64
	for f := range t.trials[0].job.Protocol.Runs() {
		k, vals, ok := t.choice(res, f)
		if !ok {
			missing = append(missing, fmt.Sprintf("fold %d: trials", f))
			continue
		}
		sf := record.SelectFold{Fold: f, Chosen: k + 1, Options: rec.Points[k], ValAcc: vals[k], ValAccs: vals}
		for _, c := range t.trials {
			x, _ := res.get(c, f)
			sf.Seconds += x.Seconds
		}
		for r, c := range t.retrain[k] {
			x, ok := res.get(c, f)
			if !ok {
				missing = append(missing, fmt.Sprintf("fold %d: retrain %d", f, r+1))
				continue
			}
			sf.TestAccs = append(sf.TestAccs, x.TestAcc)
			sf.Seconds += x.Seconds
		}
		if len(sf.TestAccs) < Retrains {
			continue
		}
		sf.TestAcc = mean(sf.TestAccs)
		accs = append(accs, sf.TestAcc)
		rec.Seconds += sf.Seconds
		rec.Folds = append(rec.Folds, sf)
	}
	if len(missing) > 0 {
		rec.Missing = missing
		return rec, missing
	}
	m, v := mean(accs), 0.0
	for _, a := range accs {
		v += (a - m) * (a - m)
	}
	sd := math.Sqrt(v / float64(len(accs)))
	rec.MeanAcc, rec.StdAcc = &m, &sd
	return rec, nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// renderSelection lays out the selection table: per dataset the grid's
// size, the ACC over the folds and the cost of the whole protocol in
// fold-seconds; the notes give every fold's choice.
func (b *Bench) renderSelection(s Selection, tasks []*selTask, res selResults, notes []string) (*report.Table, error) {
	var dsNames []string
	var dsKeys []string
	for _, t := range tasks {
		if !slices.Contains(dsKeys, t.d.key) {
			dsKeys = append(dsKeys, t.d.key)
			dsNames = append(dsNames, t.d.ds.Name)
		}
	}
	tab := &report.Table{Name: s.Name, Title: s.Title, Columns: []string{"Model"}}
	if len(dsNames) > 0 {
		tab.Title += " — " + strings.Join(dsNames, ", ")
	}
	for _, n := range dsNames {
		prefix := ""
		if len(dsNames) > 1 {
			prefix = n + " "
		}
		tab.Columns = append(tab.Columns, prefix+"Points", prefix+"Cost (fold-s)", prefix+"ACC")
	}
	proto := b.graphProtocol().Name()
	tab.Notes = append(tab.Notes, fmt.Sprintf("ACC: for every outer fold of protocol %q (fold seed 0), each grid point trains on the fold's training part "+
		"with its stratified 10%% validation split (model seed first-seed+fold) and the point of the highest best-epoch validation accuracy is chosen "+
		"(ties: the first in grid order; no test label is read); it is retrained %d times (model seeds first-seed+r·folds+fold, r = 1..%d) and tested once each, "+
		"the fold's result being the mean of the %d test accuracies; mean ± std (population) over the folds. Points: the grid's configurations. "+
		"Cost: the training wall time of every trial and retrain, in fold-seconds (each fold on one core; %s).",
		proto, Retrains, Retrains, Retrains, b.epochsNote()))
	rows := []string{}
	cells := map[string]map[string][]string{}
	for _, t := range tasks {
		if !slices.Contains(rows, t.row) {
			rows = append(rows, t.row)
			cells[t.row] = map[string][]string{}
		}
		rec, missing := b.selectionRecord(s, t, res)
		label := fmt.Sprintf("%s: %s on %s", s.Name, t.row, t.d.ds.Name)
		tab.Notes = append(tab.Notes, fmt.Sprintf("%s on %s, grid %s: %s.", t.row, t.d.ds.Name, t.g.File, pointsText(rec.Points)))
		switch {
		case t.err != nil:
			cells[t.row][t.d.key] = []string{strconv.Itoa(len(t.points)), report.Missing, report.Failed}
			b.failed = append(b.failed, fmt.Sprintf("%s: %v", label, t.err))
			tab.Notes = append(tab.Notes, fmt.Sprintf("%s on %s failed: %v.", t.row, t.d.ds.Name, t.err))
		case len(missing) > 0:
			cells[t.row][t.d.key] = []string{strconv.Itoa(len(t.points)), report.Missing, report.Missing}
			what := fmt.Sprintf("not all in the fold log(s) or failed; missing: %s", strings.Join(missing, ", "))
			tab.Notes = append(tab.Notes, fmt.Sprintf("%s on %s: %s.", t.row, t.d.ds.Name, what))
			if b.opt.LogOnly {
				b.missing = append(b.missing, label+": "+what)
			} else {
				b.failed = append(b.failed, label+": "+what)
			}
		default:
			b.finished++
			cells[t.row][t.d.key] = []string{strconv.Itoa(len(t.points)), report.Seconds(rec.Seconds), report.MeanStd(*rec.MeanAcc, *rec.StdAcc)}
			var chosen []string
			for _, f := range rec.Folds {
				chosen = append(chosen, strconv.Itoa(f.Chosen))
			}
			tab.Notes = append(tab.Notes, fmt.Sprintf("%s on %s: point chosen per fold (folds 0-%d): %s.", t.row, t.d.ds.Name, len(rec.Folds)-1, strings.Join(chosen, " ")))
		}
		if err := b.record(rec); err != nil {
			return nil, err
		}
	}
	for _, r := range rows {
		row := []string{r}
		for _, k := range dsKeys {
			c, ok := cells[r][k]
			if !ok {
				c = []string{report.Missing, report.Missing, report.Missing}
			}
			row = append(row, c...)
		}
		tab.AddRow(row...)
	}
	tab.Notes = append(tab.Notes, notes...)
	return tab, nil
}

// pointsText numbers a grid's points: "1: a=1 b=x; 2: a=2 b=x".
func pointsText(points []string) string {
	s := make([]string, len(points))
	for i, p := range points {
		s[i] = fmt.Sprintf("%d: %s", i+1, p)
	}
	return "points " + strings.Join(s, "; ")
}

// epochsNote says how many epochs the runs trained.
func (b *Bench) epochsNote() string {
	if b.opt.Epochs > 0 {
		return fmt.Sprintf("%d epoch(s) for every model", b.opt.Epochs)
	}
	return "each model's recipe of epochs and mini-batch, unless the grid sets them"
}

package experiment

import (
	"fmt"
	"runtime"
	"time"

	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// benchCell is a table cell (variant × dataset) of a sharded bench: its
// configuration, its key in the fold log and the cost of one of its units
// (folds or seeds).
type benchCell struct {
	t      Table
	v      Variant
	d      benchDataset
	label  string // "t2: GIN-0 on MUTAG", the log records' label
	key    string // cellKey or nodeCellKey
	runs   int    // folds or seeds
	cost   float64
	need   int64          // one run's training-step memory (as Run.checkMemory estimates it)
	job    train.GraphJob // graph cells
	failed error          // a configuration that cannot run: no units
}

// shardCells lists the cells of tables in table order, each
// configuration once (a cell that an earlier table has, as the bench's
// memo would reuse it, is not listed again), with the cost of one unit
// (unitCost over the whole dataset).
func (b *Bench) shardCells(tables []Table) ([]*benchCell, error) {
	var cells []*benchCell
	seen := map[string]bool{}
	for _, t := range tables {
		dss, _, err := b.datasets(t)
		if err != nil {
			return nil, err
		}
		for _, v := range t.Variants {
			for _, d := range dss {
				if _, skip := v.Skip[d.key]; skip {
					continue
				}
				c := &benchCell{t: t, v: v, d: d, label: fmt.Sprintf("%s: %s on %s", t.Name, v.Label, d.ds.Name)}
				mc, tc, err := b.variantConfig(t, v, d.key)
				if err != nil {
					c.failed = err
					cells = append(cells, c)
					continue
				}
				if t.Graph {
					memo := memoKey(v.Model, mc, tc, d.key, true)
					job, err := b.graphJob(fmt.Sprintf("%s %s %s", t.Name, v.Label, d.ds.Name), v.Model, mc, tc, d.ds)
					if err != nil {
						c.failed = fmt.Errorf("%s: %w", c.label, err)
						cells = append(cells, c)
						continue
					}
					c.job, c.key, c.runs = job, cellKey(memo, d.ds, job.Protocol), job.Protocol.Runs()
					g := d.ds.Graph
					size := model.Size{Graphs: len(g.Graphs)}
					for _, s := range g.Graphs {
						size.Nodes += s.Graph.N
						size.Arcs += s.Graph.NumArcs()
					}
					c.cost = unitCost(mc, model.GraphShape(g), size, tc.Epochs)
					c.need, _ = model.EstimateBytes(mc, model.GraphShape(g), largestBatch(g, job.Protocol.BatchSize))
				} else {
					nd := d.ds.Node
					c.key = nodeCellKey(memoKey(v.Model, mc, tc, d.ds.Name, false), d.ds, b.nodeProtocol())
					c.runs = b.opt.Seeds
					size := model.Size{Nodes: nd.Graph.N, Arcs: nd.Graph.NumArcs()}
					c.cost = unitCost(mc, model.NodeShape(nd), size, tc.Epochs)
					c.need, _ = model.EstimateBytes(mc, model.NodeShape(nd), size)
				}
				if seen[c.key] {
					continue
				}
				seen[c.key] = true
				cells = append(cells, c)
			}
		}
	}
	return cells, nil
}

// RunShard trains this bench's shard (Options.Shard) of the tables: of
// every unit (a graph cell's fold, a node cell's seed) the ones that
// AssignShards gives it, appending each to the fold log as it finishes
// and skipping those the log already holds, so that a shard rerun with
// the same command resumes. It renders no table: the merge does, with
// LogOnly over every shard's log, and its tables equal the unsharded
// bench's (a fold's or a seed's result depends only on its seed, never on
// the other runs trained with it).
func (b *Bench) RunShard(tables []Table) (ShardPlan, error) {
	if !b.opt.Shard.Sharded() {
		return ShardPlan{}, fmt.Errorf("experiment: RunShard without a shard")
	}
	cells, err := b.shardCells(tables)
	if err != nil {
		return ShardPlan{}, err
	}
	type unit struct {
		c     *benchCell
		index int
	}
	var units []unit
	var costs []float64
	for _, c := range cells {
		for i := range c.runs {
			units = append(units, unit{c, i})
			costs = append(costs, c.cost)
		}
	}
	p := plan(b.opt.Shard, costs)
	p.Log = b.opt.Log
	mine := map[*benchCell]map[int]bool{}
	for _, u := range p.UnitsOfMe {
		c := units[u].c
		if mine[c] == nil {
			mine[c] = map[int]bool{}
		}
		mine[c][units[u].index] = true
	}
	for _, c := range cells {
		if c.failed != nil {
			p.Failures = append(p.Failures, c.failed.Error())
		}
	}
	b.progress.Line("shard %s: %d of %d units, %.1f%% of the estimated cost", p.Shard, p.Mine, p.Units, 100*p.MineCost/max(p.Cost, 1))

	// The graph cells' folds of this shard, in one pool (as an unsharded
	// graph table's): the folds of other shards and those in the log are
	// marked done, so only this shard's missing folds train. The
	// summaries are not used: the merge makes the tables from the logs.
	var jobs []train.GraphJob
	var jobCells []*benchCell
	for _, c := range cells {
		if c.failed != nil || !c.t.Graph || len(mine[c]) == 0 {
			continue
		}
		job := c.job
		job.Done = map[int]train.Result{}
		todo := 0
		for f := range c.runs {
			l, logged := b.logged[c.key][f]
			switch {
			case !mine[c][f]:
				job.Done[f] = train.Result{}
			case logged:
				job.Done[f] = l.result
				p.FromLog++
			default:
				todo++
			}
		}
		if todo == 0 {
			continue
		}
		b.logRuns(&job.Observer, c.key, c.label, c.d.ds.Fingerprint(), 0)
		job.Observer = train.Observers(job.Observer, train.RunFunc(func(int, train.Result) { p.Trained++ }))
		jobs = append(jobs, job)
		jobCells = append(jobCells, c)
		b.progress.Line("%s: %d fold(s) of this shard to train", c.label, todo)
	}
	if len(jobs) > 0 {
		sums, errs := train.RunGraphProtocols(jobs, b.foldsAtOnce(jobs))
		for i, c := range jobCells {
			p.Failed += len(sums[i].Failed)
			if errs[i] != nil {
				p.Failures = append(p.Failures, fmt.Sprintf("%s: %v", c.label, errs[i]))
			}
		}
	}

	// The node cells' seeds of this shard, cell after cell.
	for _, c := range cells {
		if c.failed != nil || c.t.Graph || len(mine[c]) == 0 {
			continue
		}
		var todo []int
		for i := range c.runs {
			if !mine[c][i] {
				continue
			}
			if _, ok := b.logged[c.key][i]; ok {
				p.FromLog++
				continue
			}
			todo = append(todo, i)
		}
		if len(todo) == 0 {
			continue
		}
		mc, tc, _ := b.variantConfig(c.t, c.v, c.d.key) // checked by shardCells
		run := Run{Model: c.v.Model, Config: mc, Train: tc, Dataset: c.d.ds, Node: b.nodeProtocol(), Progress: b.progress,
			Label: fmt.Sprintf("%s %s %s", c.t.Name, c.v.Label, c.d.ds.Name)}
		n, err := b.trainNodeSeeds(run, c.key, c.label, todo)
		p.Trained += n
		if err != nil {
			p.Failed += len(todo) - n
			p.Failures = append(p.Failures, fmt.Sprintf("%s: %v", c.label, err))
		}
	}
	p.Seconds = time.Since(b.start).Seconds()
	if b.logErr != nil {
		return p, fmt.Errorf("fold log: %w", b.logErr)
	}
	if b.stopped() {
		return p, fmt.Errorf("shard %s interrupted: %w", p.Shard, train.ErrInterrupted)
	}
	return p, nil
}

// foldsAtOnce is the pool size for jobs: Options.Parallel, or one fold
// per core as every job's memory check allows.
func (b *Bench) foldsAtOnce(jobs []train.GraphJob) int {
	if b.opt.Parallel > 0 {
		return b.opt.Parallel
	}
	parallel := runtime.GOMAXPROCS(0)
	for _, j := range jobs {
		parallel = min(parallel, j.Protocol.FoldsAtOnce())
	}
	return parallel
}

// trainNodeSeeds trains the runs seeds (ascending indices into the node
// protocol of run) of the node cell key, appending each to the fold log
// under label. A run's result depends on its seed alone, so the runs
// train as node protocols over the consecutive stretches of seeds (run i
// has seed FirstSeed+i) and give what the whole protocol gives them. It
// returns the runs that finished.
func (b *Bench) trainNodeSeeds(run Run, key, label string, seeds []int) (int, error) {
	trained := 0
	first := run.Node.FirstSeed
	for lo := 0; lo < len(seeds); {
		hi := lo + 1
		for hi < len(seeds) && seeds[hi] == seeds[hi-1]+1 {
			hi++
		}
		r := run
		r.Node.FirstSeed, r.Node.Seeds = first+uint64(seeds[lo]), hi-lo
		r.Label = fmt.Sprintf("%s (runs %d-%d)", run.Label, seeds[lo], seeds[hi-1])
		b.logRuns(&r.Observer, key, label, run.Dataset.Fingerprint(), seeds[lo])
		r.Observer = train.Observers(r.Observer, train.RunFunc(func(int, train.Result) { trained++ }))
		if _, err := r.Do(); err != nil {
			return trained, err
		}
		lo = hi
	}
	return trained, nil
}

// ProcessBytes is what ShardMemory adds for the process itself: the Go
// runtime, the binary, the datasets loaded and the garbage between two
// collections. Table 2's largest dataset (DD) holds under 100 MB.
const ProcessBytes = 512 << 20

// ShardMemory estimates the memory a shard of tables needs when it
// trains runsAtOnce folds or seeds at once (a Slurm task's --mem): the
// largest cell's training-step estimate (model.EstimateBytes on the
// largest mini-batch, as Run.checkMemory bounds a run), runsAtOnce times,
// plus ProcessBytes. Every shard may draw the largest cell, so it is the
// same for all of them. runsAtOnce 0 is the estimate of a merge, which
// trains nothing.
func (b *Bench) ShardMemory(tables []Table, runsAtOnce int) (int64, error) {
	cells, err := b.shardCells(tables)
	if err != nil {
		return 0, err
	}
	var need int64
	for _, c := range cells {
		need = max(need, c.need)
	}
	return ProcessBytes + satFloat(float64(need)*float64(runsAtOnce)), nil
}

package experiment

import (
	"errors"
	"fmt"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/train"
)

// memoRun is a finished protocol run, reused by a later table that runs
// the identical configuration on the same dataset.
type memoRun struct {
	sum     record.Summary
	err     error
	where   string          // "table/variant" of the first run
	fresh   bool            // run ahead for the table that now reads it: not a reuse
	origins map[string]bool // where its runs' seconds were measured (runOrigin)
}

type loadedData struct {
	ds  *data.Dataset
	err error
}

// benchDataset is a dataset a table runs on: the name it was asked by
// (the key of the paper's numbers) and the loaded node dataset.
type benchDataset struct {
	key string
	ds  *data.Dataset
}

// load reads a dataset once per bench; task is the table's.
func (b *Bench) load(name string, task data.Task) (*data.Dataset, error) {
	if l, ok := b.cache[name]; ok {
		return l.ds, l.err
	}
	ds, err := data.Load(name, data.Options{Root: b.opt.Root})
	if err == nil && ds.Task != task {
		err = fmt.Errorf("%s is a %v-classification dataset; the table is a %v-classification one", ds.Name, ds.Task, task)
	}
	b.cache[name] = loadedData{ds, err}
	return ds, err
}

// tableTask is the task of t's datasets.
func tableTask(t Table) data.Task {
	if t.Graph {
		return data.GraphTask
	}
	return data.NodeTask
}

// datasets loads t's datasets, skipping (with a note) those whose files are missing.
func (b *Bench) datasets(t Table) ([]benchDataset, []string, error) {
	var out []benchDataset
	var notes []string
	for _, name := range t.Datasets {
		ds, err := b.load(name, tableTask(t))
		if errors.Is(err, data.ErrNeedsData) || errors.Is(err, data.ErrMissing) {
			notes = append(notes, fmt.Sprintf("Skipped %s: %v.", displayName(name), err))
			b.progress.Line("%s: skipping %s: %v", t.Name, name, err)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if !t.Graph && b.opt.Split == "public" && ds.Node.Public == nil {
			notes = append(notes, fmt.Sprintf("Skipped %s: it has no public split.", ds.Name))
			b.progress.Line("%s: skipping %s: no public split", t.Name, ds.Name)
			continue
		}
		out = append(out, benchDataset{name, ds})
	}
	return out, notes, nil
}

func displayName(name string) string {
	if in, ok := data.Lookup(name); ok {
		return in.Display
	}
	return name
}

// cellResult is one variant's protocol run on one dataset.
type cellResult struct {
	sum     record.Summary
	err     error
	skipped bool            // Variant.Skip
	origins map[string]bool // where its runs' seconds were measured (runOrigin)
}

// variantConfig is v's model and training configuration on the dataset
// (a registry name) under the options: the model's default for the
// table's task changed by v.Apply and v.Options[dataset], and the model's
// training recipe changed by v.Options[dataset].
func (b *Bench) variantConfig(t Table, v Variant, dataset string) (model.Config, train.Config, error) {
	task := tableTask(t)
	mc, err := model.DefaultConfig(task, v.Model)
	if err != nil {
		return nil, train.Config{}, err
	}
	tc := train.Recipe(task, v.Model)
	if v.Apply != nil {
		v.Apply(mc)
	}
	if err := applyOptions(mc, &tc, v.Model, v.Options[dataset]); err != nil {
		return nil, tc, fmt.Errorf("%s on %s: %w", v.Label, dataset, err)
	}
	if b.opt.Epochs > 0 {
		tc.Epochs = b.opt.Epochs
	}
	return mc, tc, nil
}

// memoKey identifies a protocol run: the configuration, the dataset and
// the task. It is also what the fold log's cell keys digest, so it keeps
// the form the committed logs were written in: the step schedule's period
// is written 0 when it is 50 (recipes left it implicit then) and when the
// schedule is another, which never reads it.
func memoKey(name string, mc model.Config, tc train.Config, dataset string, graph bool) string {
	if tc.LRSchedule != train.ScheduleStep || tc.StepEvery == model.DefaultStepEvery {
		tc.StepEvery = 0
	}
	return fmt.Sprintf("%s|%+v|%+v|%s|%v", name, mc, tc, dataset, graph)
}

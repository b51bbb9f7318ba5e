package model

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/prcaps/prcaps/data"
)

// Config is a model's configuration: a pointer to a plain struct whose
// fields are documented with their defaults (see SetOption for the fields
// a command line can set). Validate reports the first invalid field.
type Config interface {
	Validate() error
}

// Spec registers a model under a name for one task. A model's file
// registers it from an init function; nothing else needs to know it.
type Spec struct {
	Name    string    // command-line name, lower case, e.g. "prcapsnet"
	Task    data.Task // node or graph classification
	Summary string    // one line for listings
	// Default returns a fresh pointer to the model's default configuration,
	// which must implement MemoryEstimator (Register checks it): every
	// model's memory is estimated before it is built.
	Default func() Config
	// Build makes the model for shape from cfg (the type Default returns,
	// already validated), drawing its initial weights from seed.
	Build func(cfg Config, shape Shape, seed uint64) (Model, error)
	// Recipe is how the model trains by default (its published optimiser
	// and schedule; NodeRecipe or GraphRecipe where it has none).
	Recipe Recipe
}

var registry struct {
	sync.RWMutex
	specs []Spec
}

// Register adds s to the registry. It panics if s is incomplete, its
// recipe could not train, its default configuration has no memory
// estimate (MemoryEstimator) or its name is taken for its task:
// registration happens at init, where a mistake is a programming error.
func Register(s Spec) {
	if s.Name == "" || s.Name != strings.ToLower(s.Name) || s.Default == nil || s.Build == nil {
		panic(fmt.Sprintf("model: Register: incomplete or non-lower-case spec %q", s.Name))
	}
	if err := s.Recipe.check(s.Task == data.GraphTask); err != nil {
		panic(fmt.Sprintf("model: Register: %s model %q: %v", s.Task, s.Name, err))
	}
	if _, err := estimator(s.Default()); err != nil {
		panic(fmt.Sprintf("model: Register: %s model %q: %v: implement ParamBytes and EstimateBytes on its configuration", s.Task, s.Name, err))
	}
	registry.Lock()
	defer registry.Unlock()
	if slices.ContainsFunc(registry.specs, func(o Spec) bool { return o.Name == s.Name && o.Task == s.Task }) {
		panic(fmt.Sprintf("model: Register: %s model %q registered twice", s.Task, s.Name))
	}
	registry.specs = append(registry.specs, s)
}

// Lookup returns the spec of the task's model name (case-insensitive).
func Lookup(task data.Task, name string) (Spec, error) {
	registry.RLock()
	defer registry.RUnlock()
	name = strings.ToLower(name)
	for _, s := range registry.specs {
		if s.Name == name && s.Task == task {
			return s, nil
		}
	}
	return Spec{}, fmt.Errorf("model: unknown %s-classification model %q (available: %s)", task, name, strings.Join(namesLocked(task), ", "))
}

// Names lists the task's models in registration order.
func Names(task data.Task) []string {
	registry.RLock()
	defer registry.RUnlock()
	return namesLocked(task)
}

func namesLocked(task data.Task) []string {
	var names []string
	for _, s := range registry.specs {
		if s.Task == task {
			names = append(names, s.Name)
		}
	}
	return names
}

// AllNames lists the registered models of both tasks, each name once.
func AllNames() []string {
	var names []string
	for _, s := range Specs() {
		if !slices.Contains(names, s.Name) {
			names = append(names, s.Name)
		}
	}
	return names
}

// Specs lists every registered model, node models first.
func Specs() []Spec {
	registry.RLock()
	defer registry.RUnlock()
	out := slices.Clone(registry.specs)
	slices.SortStableFunc(out, func(a, b Spec) int { return int(a.Task) - int(b.Task) })
	return out
}

// DefaultConfig returns a fresh copy of the default configuration of the
// task's model name.
func DefaultConfig(task data.Task, name string) (Config, error) {
	s, err := Lookup(task, name)
	if err != nil {
		return nil, err
	}
	return s.Default(), nil
}

// New builds the task's model name for shape from cfg (nil: the model's
// defaults), with initial weights drawn from seed.
func New(task data.Task, name string, cfg Config, shape Shape, seed uint64) (Model, error) {
	s, err := Lookup(task, name)
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		cfg = s.Default()
	}
	if want := s.Default(); fmt.Sprintf("%T", cfg) != fmt.Sprintf("%T", want) {
		return nil, fmt.Errorf("model: %s: configuration is a %T, want a %T", s.Name, cfg, want)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("model: %s: %w", s.Name, err)
	}
	if shape.Features < 1 || shape.Classes < 1 {
		return nil, fmt.Errorf("model: %s: need at least one feature and one class, got %d and %d", s.Name, shape.Features, shape.Classes)
	}
	m, err := s.Build(cfg, shape, seed)
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", s.Name, err)
	}
	return m, nil
}

// NewNode builds a node-classification model (see New).
func NewNode(name string, cfg Config, shape Shape, seed uint64) (NodeModel, error) {
	return newAs[NodeModel](data.NodeTask, name, cfg, shape, seed)
}

// NewGraph builds a graph-classification model (see New).
func NewGraph(name string, cfg Config, shape Shape, seed uint64) (GraphModel, error) {
	return newAs[GraphModel](data.GraphTask, name, cfg, shape, seed)
}

// newAs is New, checking that the model is an M.
func newAs[M Model](task data.Task, name string, cfg Config, shape Shape, seed uint64) (M, error) {
	var zero M
	m, err := New(task, name, cfg, shape, seed)
	if err != nil {
		return zero, err
	}
	mm, ok := m.(M)
	if !ok {
		return zero, fmt.Errorf("model: %s is registered for %s classification but is a %T", name, task, m)
	}
	return mm, nil
}

// DatasetShape is the shape of a model for ds, of either task.
func DatasetShape(ds *data.Dataset) Shape {
	if ds.Task == data.GraphTask {
		return GraphShape(ds.Graph)
	}
	return NodeShape(ds.Node)
}

// NodeShape is the shape of a node model for ds.
func NodeShape(ds *data.NodeDataset) Shape {
	return Shape{Features: ds.X.Cols(), Classes: ds.NumClasses}
}

// GraphShape is the shape of a graph model for ds.
func GraphShape(ds *data.GraphDataset) Shape {
	return Shape{Features: ds.NumFeatures, Classes: ds.NumClasses}
}

package checkpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/prcaps/prcaps/internal/atomicfile"
	"github.com/prcaps/prcaps/internal/fileguard"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/tensor"
	"github.com/prcaps/prcaps/train"
)

// Version is the checkpoint format this package writes and reads.
const Version = 1

// maxFile bounds the size of a checkpoint Load reads.
const maxFile = 1 << 30

// Checkpoint is a trained model with what using it needs.
type Checkpoint struct {
	Task   data.Task
	Model  string       // registered model name
	Config model.Config // the model's configuration
	Shape  model.Shape
	// Encoding says how a graph model's node features are built from raw
	// node labels, degrees and attributes; nil for node models, whose
	// features are given.
	Encoding   *data.NodeEncoding
	ClassNames []string // the original label of class c
	Dataset    string   // the training dataset's name
	// DatasetSHA256 is the training dataset's data.Dataset.Fingerprint.
	DatasetSHA256 string
	Train         train.Config // how the model was trained
	Run           train.Result // the run it comes from (seed, selected epoch, accuracies)
	// Params are the model's parameters by dotted name, in model order.
	Params []Param
}

// Param is one named parameter value.
type Param struct {
	Name  string
	Value *tensor.Dense[float32]
}

// New makes the checkpoint of m, trained as r under tc on ds with
// configuration cfg (nil: the model's default), copying its parameters.
func New(m model.Model, name string, cfg model.Config, ds *data.Dataset, tc train.Config, r train.Result) *Checkpoint {
	if cfg == nil {
		cfg, _ = model.DefaultConfig(ds.Task, name) // nil for an unknown name, which Marshal then writes as null
	}
	c := &Checkpoint{Task: ds.Task, Model: name, Config: cfg, Dataset: ds.Name, DatasetSHA256: ds.Fingerprint(), Train: tc, Run: r}
	c.Shape = model.DatasetShape(ds)
	if ds.Task == data.GraphTask {
		enc := ds.Graph.Encoding
		enc.Blocks = slices.Clone(enc.Blocks)
		c.Encoding = &enc
		c.ClassNames = slices.Clone(ds.Graph.ClassNames)
	} else {
		for k := range ds.Node.NumClasses {
			c.ClassNames = append(c.ClassNames, strconv.Itoa(k))
		}
	}
	for _, p := range model.Params(m) {
		v := p.Value
		c.Params = append(c.Params, Param{p.Name, &tensor.Dense[float32]{Rows: v.Rows, Cols: v.Cols, Data: slices.Clone(v.Data)}})
	}
	return c
}

// metadata keys of the safetensors header.
const (
	keyFormat   = "format"
	keyVersion  = "prcaps.version"
	keyTask     = "prcaps.task"
	keyModel    = "prcaps.model"
	keyConfig   = "prcaps.config"
	keyShape    = "prcaps.shape"
	keyEncoding = "prcaps.encoding"
	keyClasses  = "prcaps.classes"
	keyDataset  = "prcaps.dataset"
	keySHA      = "prcaps.dataset_sha256"
	keyTrain    = "prcaps.train"
	keyRun      = "prcaps.run"
)

// Marshal encodes c as a safetensors file.
func (c *Checkpoint) Marshal() ([]byte, error) {
	meta := map[string]string{keyFormat: "prcaps", keyVersion: strconv.Itoa(Version), keyTask: c.Task.String(),
		keyModel: c.Model, keyDataset: c.Dataset, keySHA: c.DatasetSHA256}
	for key, v := range map[string]any{keyConfig: c.Config, keyShape: c.Shape, keyClasses: c.ClassNames, keyTrain: c.Train, keyRun: c.Run} {
		js, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("checkpoint: %s: %w", key, err)
		}
		meta[key] = string(js)
	}
	if c.Encoding != nil {
		js, err := json.Marshal(c.Encoding)
		if err != nil {
			return nil, err
		}
		meta[keyEncoding] = string(js)
	}
	ts := make([]stTensor, len(c.Params))
	for i, p := range c.Params {
		ts[i] = stTensor{name: p.Name, shape: []int{p.Value.Rows, p.Value.Cols}, data: p.Value.Data}
	}
	return encode(meta, ts)
}

// Save writes c to path atomically: to a temporary file in the same
// directory, synced, then renamed over path, so that path holds either the
// old file or the whole new one.
func (c *Checkpoint) Save(path string) error {
	b, err := c.Marshal()
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, b)
}

// Load reads the checkpoint at path.
func Load(path string) (*Checkpoint, error) {
	// Bounded while reading, not by a Stat before: a character device
	// such as /dev/zero reports size 0 and never ends.
	b, err := fileguard.ReadFile(path, maxFile)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	c, err := Unmarshal(b)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return c, nil
}

// Unmarshal decodes a checkpoint and checks it against the model it names:
// the version, the configuration (no unknown field, valid), and exactly the
// model's parameters with their shapes.
func Unmarshal(b []byte) (*Checkpoint, error) {
	meta, ts, err := decode(b)
	if err != nil {
		return nil, err
	}
	if meta[keyFormat] != "prcaps" {
		return nil, fmt.Errorf("a safetensors file, but not a prcaps checkpoint (format %q)", meta[keyFormat])
	}
	if v := meta[keyVersion]; v != strconv.Itoa(Version) {
		return nil, fmt.Errorf("checkpoint format version %q; this prcaps reads version %d", v, Version)
	}
	c := &Checkpoint{Model: meta[keyModel], Dataset: meta[keyDataset], DatasetSHA256: meta[keySHA]}
	if c.Task, err = data.ParseTask(meta[keyTask]); err != nil {
		return nil, err
	}
	if c.Config, err = model.DefaultConfig(c.Task, c.Model); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		key      string
		v        any
		required bool
	}{{keyConfig, c.Config, true}, {keyShape, &c.Shape, true}, {keyClasses, &c.ClassNames, true},
		{keyTrain, &c.Train, false}, {keyRun, &c.Run, false}, {keyEncoding, &c.Encoding, false}} {
		s, ok := meta[f.key]
		if !ok {
			if f.required {
				return nil, fmt.Errorf("metadata lacks %s", f.key)
			}
			continue
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(s)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(f.v); err != nil {
			return nil, fmt.Errorf("metadata %s: %w", f.key, err)
		}
	}
	if err := c.Config.Validate(); err != nil {
		return nil, fmt.Errorf("model %s: %w", c.Model, err)
	}
	if len(c.ClassNames) != c.Shape.Classes {
		return nil, fmt.Errorf("%d class names for %d classes", len(c.ClassNames), c.Shape.Classes)
	}
	if c.Encoding != nil {
		if err := c.Encoding.Validate(); err != nil {
			return nil, err
		}
		if c.Encoding.Width() != c.Shape.Features {
			return nil, fmt.Errorf("the node encoding makes %d features; the model takes %d", c.Encoding.Width(), c.Shape.Features)
		}
	} else if c.Task == data.GraphTask {
		return nil, fmt.Errorf("a graph model without its node encoding")
	}
	if err := c.checkSize(ts); err != nil {
		return nil, err
	}
	byName := map[string]stTensor{}
	for _, t := range ts {
		if err := checkValues(t); err != nil {
			return nil, err
		}
		byName[t.name] = t
	}
	m, err := c.build()
	if err != nil {
		return nil, err
	}
	for _, p := range model.Params(m) {
		t, ok := byName[p.Name]
		if !ok {
			return nil, fmt.Errorf("no tensor %q, a parameter of %s with this configuration", p.Name, c.Model)
		}
		if len(t.shape) != 2 || t.shape[0] != p.Value.Rows || t.shape[1] != p.Value.Cols {
			return nil, fmt.Errorf("tensor %q has shape %v; %s's parameter is %d×%d", p.Name, t.shape, c.Model, p.Value.Rows, p.Value.Cols)
		}
		c.Params = append(c.Params, Param{p.Name, &tensor.Dense[float32]{Rows: p.Value.Rows, Cols: p.Value.Cols, Data: t.data}})
		delete(byName, p.Name)
	}
	for name := range byName {
		return nil, fmt.Errorf("tensor %q is not a parameter of %s with this configuration", name, c.Model)
	}
	return c, nil
}

// maxParam bounds the magnitude of a parameter value a checkpoint may
// hold. Trained with weight decay and gradient clipping, prcaps models
// keep their parameters within a few units; 1e8 is far past any of them
// and leaves float32 room for the products of a forward pass, where
// values near its largest (3.4e38) overflow into infinities and NaNs.
const maxParam = 1e8

// checkValues refuses a tensor with a NaN, an infinity or a value beyond
// maxParam: a model of such parameters computes nothing meaningful, and a
// non-finite curvature would stop the geometry's ops.
func checkValues(t stTensor) error {
	for i, x := range t.data {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) || math.Abs(float64(x)) > maxParam {
			return fmt.Errorf("tensor %q: value %d is %v; a parameter must be finite and within ±%g", t.name, i, x, maxParam)
		}
	}
	return nil
}

// checkSize refuses metadata that declares a model far larger than the
// tensors the file holds (Features = 1e9, say), before the model is built:
// what building it allocates, by the model's own estimate
// (model.ParamBytes: parameters and buffers with their gradients), must
// fit a few times the file's tensor bytes.
func (c *Checkpoint) checkSize(ts []stTensor) error {
	if c.Shape.Features < 1 || c.Shape.Features > math.MaxInt32 || c.Shape.Classes < 2 || c.Shape.Classes > math.MaxInt32 {
		return fmt.Errorf("the metadata declares %d features and %d classes; a model has 1 to %d features and 2 to %d classes",
			c.Shape.Features, c.Shape.Classes, math.MaxInt32, math.MaxInt32)
	}
	params, err := model.ParamBytes(c.Config, c.Shape)
	if err != nil {
		return err
	}
	var have int64
	for _, t := range ts {
		have += 4 * int64(len(t.data))
	}
	if params > 4*have+16<<20 {
		return fmt.Errorf("the metadata declares a %s of %d features and %d classes, about %.1f MiB of parameters, but the file holds %.1f MiB of tensors",
			c.Model, c.Shape.Features, c.Shape.Classes, float64(params)/(1<<20), float64(have)/(1<<20))
	}
	return nil
}

// build makes a fresh model of c's name, configuration and shape.
func (c *Checkpoint) build() (model.Model, error) {
	return model.New(c.Task, c.Model, c.Config, c.Shape, 0)
}

// NewModel builds the checkpoint's model with its trained parameters.
func (c *Checkpoint) NewModel() (model.Model, error) {
	m, err := c.build()
	if err != nil {
		return nil, err
	}
	ps := model.Params(m)
	if len(ps) != len(c.Params) {
		return nil, fmt.Errorf("checkpoint: %d parameters for a model of %d", len(c.Params), len(ps))
	}
	for i, p := range ps {
		q := c.Params[i]
		if q.Name != p.Name || q.Value.Rows != p.Value.Rows || q.Value.Cols != p.Value.Cols {
			return nil, fmt.Errorf("checkpoint: parameter %d is %s %d×%d; the model's is %s %d×%d",
				i, q.Name, q.Value.Rows, q.Value.Cols, p.Name, p.Value.Rows, p.Value.Cols)
		}
		copy(p.Value.Data, q.Value.Data)
	}
	return m, nil
}

package checkpoint_test

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/checkpoint"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

func load(t testing.TB, name string) *data.Dataset {
	t.Helper()
	ds, err := data.Load(name, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// nodeLogits scores every node of ds with m in evaluation mode.
func nodeLogits(m model.Model, ds *data.Dataset) []float32 {
	var tp autodiff.Tape[float32]
	tp.NoGrad = true
	return slices.Clone(m.(model.NodeModel).Forward(&tp, ds.Node.Graph, ds.Node.X, false, nil).Value.Data)
}

// graphLogits scores the first 20 graphs of ds with m in evaluation mode.
func graphLogits(t testing.TB, m model.Model, ds *data.Dataset) []float32 {
	var b data.GraphBatch
	idx := make([]int32, 20)
	for i := range idx {
		idx[i] = int32(i)
	}
	if err := b.Build(ds.Graph, idx); err != nil {
		t.Fatal(err)
	}
	var tp autodiff.Tape[float32]
	tp.NoGrad = true
	return slices.Clone(m.(model.GraphModel).Forward(&tp, &b, false, nil).Value.Data)
}

// trainOne trains one short run of the task's prcapsnet on ds and returns
// its checkpoint and the logits of the trained model at its selected
// epoch, computed in process.
func trainOne(t *testing.T, ds *data.Dataset) (*checkpoint.Checkpoint, []float32) {
	return trainModel(t, ds, "prcapsnet")
}

// trainModel is trainOne for the task's model name.
func trainModel(t *testing.T, ds *data.Dataset, name string) (*checkpoint.Checkpoint, []float32) {
	t.Helper()
	cfg, err := model.DefaultConfig(ds.Task, name)
	if err != nil {
		t.Fatal(err)
	}
	tc := train.Recipe(ds.Task, name)
	tc.Epochs = 4
	var ck *checkpoint.Checkpoint
	var want []float32
	onModel := train.ModelFunc(func(_ int, r train.Result, m model.Model) {
		ck = checkpoint.New(m, name, cfg, ds, tc, r)
		if ds.Task == data.GraphTask {
			want = graphLogits(t, m, ds)
		} else {
			want = nodeLogits(m, ds)
		}
	})
	if ds.Task == data.GraphTask {
		build := func(seed uint64) (model.GraphModel, error) {
			return model.NewGraph(name, cfg, model.GraphShape(ds.Graph), seed)
		}
		_, err = train.RunGraphProtocol(ds.Graph, build, train.GraphProtocol{Folds: 10, OnlyFolds: 1}, tc, onModel)
	} else {
		build := func(seed uint64) (model.NodeModel, error) {
			return model.NewNode(name, cfg, model.NodeShape(ds.Node), seed)
		}
		_, err = train.RunNodeProtocol(ds.Node, build, train.NodeProtocol{Seeds: 1}, tc, onModel)
	}
	if err != nil || ck == nil {
		t.Fatalf("training: %v (checkpoint %v)", err, ck != nil)
	}
	return ck, want
}

// Train → save → load → predict gives the in-process model's logits bit
// for bit, for the node and the graph network, across two loads.
func TestRoundTrip(t *testing.T) {
	for _, name := range []string{"cora", "mutag"} {
		ds := load(t, name)
		ck, want := trainOne(t, ds)
		path := filepath.Join(t.TempDir(), name+".safetensors")
		if err := ck.Save(path); err != nil {
			t.Fatal(err)
		}
		for load := 0; load < 2; load++ {
			got, err := checkpoint.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := got.NewModel()
			if err != nil {
				t.Fatal(err)
			}
			var logits []float32
			if ds.Task == data.GraphTask {
				logits = graphLogits(t, m, ds)
			} else {
				logits = nodeLogits(m, ds)
			}
			if !slices.Equal(logits, want) {
				t.Fatalf("%s, load %d: logits differ from the in-process model's", name, load)
			}
			if got.Dataset != ds.Name || got.DatasetSHA256 != ds.Fingerprint() || got.Run.BestEpoch != ck.Run.BestEpoch ||
				got.Train != ck.Train || !slices.Equal(got.ClassNames, ck.ClassNames) || got.Shape != ck.Shape {
				t.Errorf("%s: metadata %+v, want %+v", name, got, ck)
			}
		}
		if name == "mutag" {
			got, _ := checkpoint.Load(path)
			if got.Encoding == nil || got.Encoding.Width() != ds.Graph.NumFeatures || !slices.Equal(got.ClassNames, []string{"-1", "1"}) {
				t.Errorf("graph metadata: encoding %+v, classes %v", got.Encoding, got.ClassNames)
			}
		}
	}
}

// A model with buffers (GIN's batch-norm running statistics) saves and
// loads them with its parameters: the loaded model's logits are the
// in-process model's.
func TestRoundTripBuffers(t *testing.T) {
	ds := load(t, "mutag")
	ck, want := trainModel(t, ds, "gin")
	path := filepath.Join(t.TempDir(), "gin.safetensors")
	if err := ck.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := checkpoint.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := got.NewModel()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(graphLogits(t, m, ds), want) {
		t.Fatal("logits differ from the in-process model's")
	}
}

// The file is the safetensors layout: an 8-byte little-endian header
// length, a JSON header whose tensors have dtype F32, a shape and offsets
// that tile the buffer in order, and the float32 values little-endian.
func TestSafetensorsLayout(t *testing.T) {
	ck, _ := trainOne(t, load(t, "mutag"))
	b, err := ck.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(b)
	if (8+n)%8 != 0 {
		t.Errorf("the buffer starts at byte %d, not 8-byte aligned", 8+n)
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &header); err != nil {
		t.Fatal(err)
	}
	var meta map[string]string
	if err := json.Unmarshal(header["__metadata__"], &meta); err != nil || meta["format"] != "prcaps" || meta["prcaps.model"] != "prcapsnet" {
		t.Fatalf("metadata %v (%v)", meta, err)
	}
	buf := b[8+n:]
	var end int64
	for _, p := range ck.Params {
		var info struct {
			DType       string   `json:"dtype"`
			Shape       []int    `json:"shape"`
			DataOffsets [2]int64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(header[p.Name], &info); err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if info.DType != "F32" || !slices.Equal(info.Shape, []int{p.Value.Rows, p.Value.Cols}) || info.DataOffsets[0] != end {
			t.Fatalf("%s: %+v, want F32 %d×%d from %d", p.Name, info, p.Value.Rows, p.Value.Cols, end)
		}
		for i, v := range p.Value.Data {
			if got := binary.LittleEndian.Uint32(buf[info.DataOffsets[0]+4*int64(i):]); got != mathBits(v) {
				t.Fatalf("%s[%d]: bytes %08x, want %08x", p.Name, i, got, mathBits(v))
			}
		}
		end = info.DataOffsets[1]
	}
	if end != int64(len(buf)) || len(header) != len(ck.Params)+1 {
		t.Errorf("the tensors end at %d of %d bytes; %d header entries for %d tensors", end, len(buf), len(header), len(ck.Params))
	}
}

// Truncated, corrupt, wrong-version and wrong-model files are errors that
// say what is wrong, never a panic.
func TestLoadRejects(t *testing.T) {
	ck, _ := trainOne(t, load(t, "mutag"))
	good, err := ck.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	n := int(binary.LittleEndian.Uint64(good))
	edit := func(f func(meta map[string]string, header map[string]json.RawMessage)) []byte {
		var header map[string]json.RawMessage
		json.Unmarshal(good[8:8+n], &header)
		var meta map[string]string
		json.Unmarshal(header["__metadata__"], &meta)
		f(meta, header)
		header["__metadata__"], _ = json.Marshal(meta)
		js, _ := json.Marshal(header)
		out := binary.LittleEndian.AppendUint64(nil, uint64(len(js)))
		return append(append(out, js...), good[8+n:]...)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "shorter than the 8-byte header length"},
		{"truncated header", good[:100], "header length"},
		{"truncated data", good[:len(good)-4], "do not fit"},
		{"not JSON", append(binary.LittleEndian.AppendUint64(nil, 4), "{x}!"...), "header"},
		{"extra byte", append(slices.Clone(good), 0), "end at byte"},
		{"wrong version", edit(func(m map[string]string, _ map[string]json.RawMessage) { m["prcaps.version"] = "99" }), "version \"99\""},
		{"not prcaps", edit(func(m map[string]string, _ map[string]json.RawMessage) { delete(m, "format") }), "not a prcaps checkpoint"},
		{"unknown model", edit(func(m map[string]string, _ map[string]json.RawMessage) { m["prcaps.model"] = "nosuchmodel" }), "unknown graph-classification model \"nosuchmodel\""},
		{"wrong model", edit(func(m map[string]string, _ map[string]json.RawMessage) {
			m["prcaps.task"], m["prcaps.model"], m["prcaps.config"] = "node", "gcn", `{"Hidden":16}`
		}), "no tensor \"conv1.weight\""},
		{"other configuration", edit(func(m map[string]string, _ map[string]json.RawMessage) {
			m["prcaps.config"] = strings.Replace(m["prcaps.config"], `"Layers":1`, `"Layers":2`, 1)
		}), "no tensor \"routing1"},
		{"unknown config field", edit(func(m map[string]string, _ map[string]json.RawMessage) { m["prcaps.config"] = `{"Depth":3}` }), "unknown field \"Depth\""},
		{"invalid config", edit(func(m map[string]string, _ map[string]json.RawMessage) { m["prcaps.config"] = `{"K":-1}` }), "perspectives"},
		{"wrong shape", edit(func(m map[string]string, _ map[string]json.RawMessage) {
			m["prcaps.shape"] = `{"Features":8,"Classes":2}`
		}), "makes 7 features"},
		{"float64 tensor", edit(func(_ map[string]string, h map[string]json.RawMessage) {
			h["stem.weight"] = json.RawMessage(strings.Replace(string(h["stem.weight"]), "F32", "F64", 1))
		}), "dtype \"F64\""},
		{"extra tensor", edit(func(_ map[string]string, h map[string]json.RawMessage) {
			h["extra"] = json.RawMessage(`{"dtype":"F32","shape":[0],"data_offsets":[0,0]}`)
		}), "\"extra\" is not a parameter"},
	} {
		path := filepath.Join(t.TempDir(), "ck.safetensors")
		os.WriteFile(path, tc.b, 0o644)
		_, err := checkpoint.Load(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v; want it to name the file and say %q", tc.name, err, tc.want)
		}
	}
	if _, err := checkpoint.Load(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing file loaded")
	}
}

// Save replaces a file atomically and leaves no temporary file behind.
func TestSaveAtomic(t *testing.T) {
	ck, _ := trainOne(t, load(t, "mutag"))
	dir := t.TempDir()
	path := filepath.Join(dir, "ck.safetensors")
	os.WriteFile(path, []byte("old"), 0o644)
	if err := ck.Save(path); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries after Save, want 1", len(entries))
	}
	if _, err := checkpoint.Load(path); err != nil {
		t.Fatal(err)
	}
	if err := ck.Save(filepath.Join(dir, "no", "such", "dir", "ck")); err == nil {
		t.Error("Save into a missing directory succeeded")
	}
}

func FuzzUnmarshal(f *testing.F) {
	ds, _ := data.Load("mutag", data.Options{})
	m, _ := model.NewGraph("prcapsnet", nil, model.GraphShape(ds.Graph), 0)
	cfg, _ := model.DefaultConfig(data.GraphTask, "prcapsnet")
	good, _ := checkpoint.New(m, "prcapsnet", cfg, ds, train.Config{}, train.Result{}).Marshal()
	f.Add(good)
	f.Add(good[:64])
	f.Add([]byte{8, 0, 0, 0, 0, 0, 0, 0, '{', '}', ' ', ' ', ' ', ' ', ' ', ' '})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := checkpoint.Unmarshal(b)
		if err != nil {
			return
		}
		if _, err := c.NewModel(); err != nil {
			t.Fatalf("Unmarshal accepted a checkpoint whose model cannot be built: %v", err)
		}
	})
}

// A checkpoint's values and declared sizes are checked before a model is
// built from them: a NaN curvature (which stopped the geometry's ops with a
// panic), weights near float32's largest (which made every prediction NaN)
// and metadata declaring a billion features (which tried to allocate
// hundreds of GiB) are errors that say so.
func TestLoadRejectsValues(t *testing.T) {
	ds := load(t, "cora")
	m, err := model.New(ds.Task, "prcapsnet", nil, model.DatasetShape(ds), 1)
	if err != nil {
		t.Fatal(err)
	}
	fresh := func() *checkpoint.Checkpoint {
		return checkpoint.New(m, "prcapsnet", nil, ds, train.Config{}, train.Result{})
	}
	for _, tc := range []struct {
		name string
		edit func(c *checkpoint.Checkpoint)
		want string
	}{
		{"NaN curvature", func(c *checkpoint.Checkpoint) {
			for _, p := range c.Params {
				if p.Name == "beta" {
					p.Value.Data[0] = float32(math.NaN())
				}
			}
		}, `tensor "beta": value 0 is NaN`},
		{"infinite weight", func(c *checkpoint.Checkpoint) { c.Params[0].Value.Data[7] = float32(math.Inf(-1)) }, "value 7 is -Inf"},
		{"huge weights", func(c *checkpoint.Checkpoint) {
			for _, p := range c.Params {
				for i := range p.Value.Data {
					p.Value.Data[i] = 3e38
				}
			}
		}, "must be finite and within ±1e+08"},
		{"a billion features", func(c *checkpoint.Checkpoint) { c.Shape.Features = 1e9 }, "the metadata declares a prcapsnet of 1000000000 features"},
		{"huge features", func(c *checkpoint.Checkpoint) { c.Shape.Features = 1 << 62 }, "features"},
	} {
		c := fresh()
		tc.edit(c)
		b, err := c.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = checkpoint.Unmarshal(b)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v; want %q", tc.name, err, tc.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%s: rejecting it allocated %d MiB", tc.name, grew>>20)
		}
	}
	if _, err := checkpoint.Unmarshal(must(fresh().Marshal())); err != nil {
		t.Errorf("the unedited checkpoint: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

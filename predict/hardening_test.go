package predict_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prcaps/prcaps/checkpoint"
	"github.com/prcaps/prcaps/predict"
	"github.com/prcaps/prcaps/train"
)

// chain is a path of n carbon atoms (MUTAG label 0).
func chain(n int) predict.Graph {
	g := predict.Graph{Nodes: n, Labels: make([]int64, n), Edges: make([]predict.Edge, n-1)}
	for i := range g.Edges {
		g.Edges[i] = predict.Edge{i, i + 1}
	}
	return g
}

// An edge is exactly two integers: [0] and [0, 1, 2] are errors, never
// the edges (0, 0) and (0, 1).
func TestEdgeJSON(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want predict.Edge
		err  string
	}{
		{"[0,1]", predict.Edge{0, 1}, ""},
		{" [ 3 , -4 ] ", predict.Edge{3, -4}, ""},
		{"[0]", predict.Edge{}, "want two"},
		{"[0,1,2]", predict.Edge{}, "want two"},
		{"[]", predict.Edge{}, "want two"},
		{"[0.5,1]", predict.Edge{}, "want two"},
		{"[1e3,1]", predict.Edge{}, "want two"},
		{`["0",1]`, predict.Edge{}, "want two"},
		{"[99999999999999999999,1]", predict.Edge{}, "want two"},
		{"{}", predict.Edge{}, "want [u, v]"},
		{"null", predict.Edge{}, "want [u, v]"},
	} {
		var e predict.Edge
		err := json.Unmarshal([]byte(tc.in), &e)
		if tc.err == "" && (err != nil || e != tc.want) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, %v; want %v %q", tc.in, e, err, tc.want, tc.err)
		}
	}
	var e predict.Edge
	if n := testing.AllocsPerRun(100, func() { e.UnmarshalJSON([]byte("[12, 34]")) }); n != 0 {
		t.Errorf("UnmarshalJSON allocates %v times", n)
	}
}

// A model whose output is not finite gives an error, never a prediction
// of NaN probabilities.
func TestNonFiniteOutput(t *testing.T) {
	_, m, ds := newPredictor(t, "mutag")
	ck := checkpoint.New(m, "prcapsnet", nil, ds, train.Config{}, train.Result{})
	for _, p := range ck.Params { // past what Load accepts, built directly
		for i := range p.Value.Data {
			p.Value.Data[i] = 3e38
		}
	}
	p, err := predict.New(ck)
	if err != nil {
		t.Fatal(err)
	}
	preds, err := p.Graphs([]predict.Graph{chain(6)})
	if !errors.Is(err, predict.ErrNonFinite) && !errors.Is(err, predict.ErrFailed) || preds != nil {
		t.Errorf("predictions %v, error %v; want ErrNonFinite", preds, err)
	}
}

// A done context stops a forward pass at its next op: at once when it is
// done before, and long before the pass would end when it is cancelled
// during it.
func TestContextStopsForward(t *testing.T) {
	p, _, _ := newPredictor(t, "mutag")
	big := []predict.Graph{chain(40_000)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.GraphsContext(ctx, big); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
	start := time.Now()
	if _, err := p.Graphs(big); err != nil {
		t.Fatal(err)
	}
	whole := time.Since(start)
	ctx, cancel = context.WithTimeout(context.Background(), whole/10)
	defer cancel()
	start = time.Now()
	_, err := p.GraphsContext(ctx, big)
	if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || took > whole/2 {
		t.Errorf("a deadline at a tenth of the pass (%v): error %v after %v", whole, err, took)
	}
	// The predictor works as before afterwards.
	if preds, err := p.Graphs([]predict.Graph{chain(6)}); err != nil || len(preds) != 1 {
		t.Errorf("after the interrupt: %v, %v", preds, err)
	}
}

// heapPeak runs f and returns the growth of the heap's peak over its
// start, sampled every millisecond.
func heapPeak(t *testing.T, f func() error) int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	err := f()
	close(done)
	<-sampled
	if err != nil {
		t.Fatal(err)
	}
	return int64(peak - base)
}

// GraphsBytes, the cost a server admits a request by, covers what
// classifying the graphs takes: the peak of the heap during the call,
// sampled, stays under it.
func TestGraphsBytesCovers(t *testing.T) {
	p, _, _ := newPredictor(t, "mutag")
	for _, n := range []int{3_000, 30_000} {
		for _, graphs := range [][]predict.Graph{{chain(n)}, repeat(chain(30), n/30)} {
			nodes, edges := make([]int, len(graphs)), make([]int, len(graphs))
			for i, g := range graphs {
				nodes[i], edges[i] = g.Nodes, len(g.Edges)
			}
			est := p.GraphsBytes(nodes, edges)
			used := heapPeak(t, func() error { _, err := p.Graphs(graphs); return err })
			t.Logf("%d graph(s) of %d nodes: estimate %.1f MiB, heap peak %.1f MiB", len(graphs), n, mb(est), mb(used))
			if used > est {
				t.Errorf("%d graph(s) of %d nodes: the heap grew %.1f MiB, over the estimate of %.1f MiB", len(graphs), n, mb(used), mb(est))
			}
		}
	}
}

// NodesBytes covers what classifying a node graph takes (Cora's, whole).
func TestNodesBytesCovers(t *testing.T) {
	p, _, ds := newPredictor(t, "cora")
	g := ds.Node.Graph
	est := p.NodesBytes(g.N, g.NumArcs()/2, g.N)
	if d := p.DatasetBytes(ds, nil); d != est {
		t.Errorf("DatasetBytes %d, NodesBytes %d", d, est)
	}
	used := heapPeak(t, func() error { _, err := p.Nodes(g, ds.Node.X, nil); return err })
	t.Logf("Cora: estimate %.1f MiB, heap peak %.1f MiB", mb(est), mb(used))
	if used > est {
		t.Errorf("Cora: the heap grew %.1f MiB, over the estimate of %.1f MiB", mb(used), mb(est))
	}
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

func repeat(g predict.Graph, k int) []predict.Graph {
	out := make([]predict.Graph, k)
	for i := range out {
		out[i] = g
	}
	return out
}

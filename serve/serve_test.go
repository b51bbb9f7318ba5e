package serve_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prcaps/prcaps/internal/fixture"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/predict"
	"github.com/prcaps/prcaps/serve"
)

// predictor is an untrained (seed 5) predictor for an embedded dataset.
func predictor(t testing.TB, name string) (*predict.Predictor, *data.Dataset) {
	p, _, ds := fixture.Predictor(t, name, 5)
	return p, ds
}

// newServer starts a loopback server of p under limits.
func newServer(tb testing.TB, p *predict.Predictor, limits serve.Limits) *httptest.Server {
	tb.Helper()
	h, err := serve.New(p, limits)
	if err != nil {
		tb.Fatal(err)
	}
	return newHTTPServer(h)
}

// newHTTPServer starts a loopback server of h.
func newHTTPServer(h http.Handler) *httptest.Server { return httptest.NewServer(h) }

// mutagGraphs is MUTAG's graphs as requests give them.
func mutagGraphs(ds *data.Dataset) []predict.Graph {
	g := ds.Graph
	out := make([]predict.Graph, len(g.Graphs))
	for i, s := range g.Graphs {
		rg := predict.Graph{Nodes: s.Graph.N}
		for v := 0; v < s.Graph.N; v++ {
			for _, u := range s.Graph.InNeighbors(v) {
				if int(u) < v {
					rg.Edges = append(rg.Edges, [2]int{int(u), v})
				}
			}
			rg.Labels = append(rg.Labels, g.Encoding.Blocks[0].Lo+int64(s.X.Sparse.Indices[s.X.Sparse.Indptr[v]]))
		}
		out[i] = rg
	}
	return out
}

func post(t testing.TB, c *http.Client, url string, body any) (int, []byte) {
	t.Helper()
	var b []byte
	switch v := body.(type) {
	case []byte:
		b = v
	default:
		b, _ = json.Marshal(v)
	}
	resp, err := c.Post(url+"/predict", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func TestServeGraphs(t *testing.T) {
	p, ds := predictor(t, "mutag")
	srv := newServer(t, p, serve.Limits{MaxBodyBytes: 64 << 10, MaxGraphs: 20})
	defer srv.Close()
	c := srv.Client()
	graphs := mutagGraphs(ds)
	want, err := p.Samples(ds.Graph.Graphs[:10])
	if err != nil {
		t.Fatal(err)
	}
	code, body := post(t, c, srv.URL, serve.GraphRequest{Graphs: graphs[:10]})
	var resp serve.Response
	if err := json.Unmarshal(body, &resp); code != 200 || err != nil || len(resp.Predictions) != 10 {
		t.Fatalf("status %d, %s (%v)", code, body, err)
	}
	for i := range want {
		if resp.Predictions[i].Class != want[i].Class || !slices.Equal(resp.Predictions[i].Probs, want[i].Probs) {
			t.Errorf("graph %d: served %+v, predictor %+v", i, resp.Predictions[i], want[i])
		}
	}
	for _, tc := range []struct {
		name string
		body any
		code int
		want string
	}{
		{"not JSON", []byte("{"), 400, "request body"},
		{"unknown field", []byte(`{"graphs":[],"x":1}`), 400, "unknown field"},
		{"no graphs", serve.GraphRequest{}, 400, "0 graphs"},
		{"too many graphs", serve.GraphRequest{Graphs: graphs[:21]}, 400, "a request holds 1 to 20"},
		{"bad label", serve.GraphRequest{Graphs: []predict.Graph{{Nodes: 1, Labels: []int64{99}}}}, 400, "label 99"},
		{"bad edge", serve.GraphRequest{Graphs: []predict.Graph{{Nodes: 1, Edges: []predict.Edge{{0, 1}}, Labels: []int64{0}}}}, 400, "outside"},
		{"too large", []byte(`{"graphs":[` + strings.Repeat(" ", 70<<10) + `]}`), 413, "over 65536 bytes"},
	} {
		code, body := post(t, c, srv.URL, tc.body)
		var e struct{ Error string }
		if json.Unmarshal(body, &e); code != tc.code || !strings.Contains(e.Error, tc.want) {
			t.Errorf("%s: status %d, %s; want %d and %q", tc.name, code, body, tc.code, tc.want)
		}
	}
	for path, want := range map[string]string{"/healthz": `"status":"ok"`, "/model": `"model":"prcapsnet"`, "/nope": "no endpoint"} {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), want) || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, b)
		}
	}
	if resp, _ := c.Get(srv.URL + "/predict"); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /predict: status %d", resp.StatusCode)
	}
}

func TestServeNodes(t *testing.T) {
	p, ds := predictor(t, "cora")
	srv := newServer(t, p, serve.Limits{})
	defer srv.Close()
	// A 3-node path with the features of Cora's nodes 0-2.
	var req serve.NodeRequest
	req.Graph.Nodes, req.Graph.Edges = 3, []predict.Edge{{0, 1}, {1, 2}}
	for v := 0; v < 3; v++ {
		row := make([]float32, ds.Node.X.Cols())
		x := ds.Node.X.Sparse
		for k := x.Indptr[v]; k < x.Indptr[v+1]; k++ {
			row[x.Indices[k]] = x.Data[k]
		}
		req.Graph.Features = append(req.Graph.Features, row)
	}
	req.Nodes = []int32{2, 0}
	code, body := post(t, srv.Client(), srv.URL, req)
	var resp serve.Response
	if json.Unmarshal(body, &resp); code != 200 || len(resp.Predictions) != 2 || len(resp.Predictions[0].Probs) != 7 {
		t.Fatalf("status %d: %s", code, body)
	}
	req.Graph.Features[1] = req.Graph.Features[1][:5]
	if code, body := post(t, srv.Client(), srv.URL, req); code != 400 || !strings.Contains(string(body), "node 1 has 5 features") {
		t.Errorf("short feature row: %d %s", code, body)
	}
}

// Eight clients send MUTAG's graphs in requests of ten, each many times:
// every answer is the predictor's, with no error (run it with -race too).
func TestServeLoad(t *testing.T) {
	p, ds := predictor(t, "mutag")
	srv := newServer(t, p, serve.Limits{})
	defer srv.Close()
	graphs := mutagGraphs(ds)
	want, err := p.Samples(ds.Graph.Graphs)
	if err != nil {
		t.Fatal(err)
	}
	rounds := 3
	if testing.Short() {
		rounds = 1
	}
	const clients, per = 8, 10
	start := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := srv.Client()
			for round := 0; round < rounds; round++ {
				for lo := (c * per) % len(graphs); lo+per <= len(graphs); lo += per {
					code, body := post(t, client, srv.URL, serve.GraphRequest{Graphs: graphs[lo : lo+per]})
					var resp serve.Response
					if err := json.Unmarshal(body, &resp); code != 200 || err != nil || len(resp.Predictions) != per {
						t.Errorf("status %d: %s", code, body)
						return
					}
					for i, pr := range resp.Predictions {
						if pr.Class != want[lo+i].Class || !slices.Equal(pr.Probs, want[lo+i].Probs) {
							t.Errorf("graph %d: %+v, want %+v", lo+i, pr, want[lo+i])
							return
						}
					}
					mu.Lock()
					total += per
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	t.Logf("%d graphs from %d clients in %.2f s: %.0f graphs/s", total, clients, secs, float64(total)/secs)
	if total < 1000*rounds/3 {
		t.Errorf("only %d graphs served", total)
	}
}

package serve_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prcaps/prcaps/checkpoint"
	"github.com/prcaps/prcaps/internal/fixture"
	"github.com/prcaps/prcaps/predict"
	"github.com/prcaps/prcaps/serve"
	"github.com/prcaps/prcaps/train"
)

// The overflow and amplification suite: requests that declare sizes they
// do not hold, sizes whose sum overflows, or small bodies that would make
// large allocations. Each is refused with a 4xx naming the problem, after
// allocating little, and the server keeps answering.
func TestServeOverflowAndAmplification(t *testing.T) {
	pg, _ := predictor(t, "mutag")
	pn, ds := predictor(t, "cora")
	graphSrv := newServer(t, pg, serve.Limits{})
	defer graphSrv.Close()
	nodeSrv := newServer(t, pn, serve.Limits{})
	defer nodeSrv.Close()
	width := ds.Node.X.Cols()
	row := "[" + strings.TrimSuffix(strings.Repeat("0,", width), ",") + "]"
	emptyRows := strings.TrimSuffix(strings.Repeat("[],", 200_000), ",")
	ids := strings.TrimSuffix(strings.Repeat("0,", 1000), ",")
	for _, tc := range []struct {
		name string
		srv  string
		body string
		code int
		want string
	}{
		{"node counts whose sum overflows", "graph", `{"graphs":[{"nodes":3000000000},{"nodes":9223372036854775807},{"nodes":9223372033854775810}]}`, 400, "nodes"},
		{"two graphs of 2^62 nodes", "graph", `{"graphs":[{"nodes":4611686018427387904},{"nodes":4611686018427387904}]}`, 400, "declares 4611686018427387904 nodes"},
		{"a graph over the node limit", "graph", `{"graphs":[{"nodes":200001}]}`, 400, "at most 200000"},
		{"negative nodes", "graph", `{"graphs":[{"nodes":-5}]}`, 400, "declares -5 nodes"},
		{"nodes past int64", "graph", `{"graphs":[{"nodes":1e30}]}`, 400, "request body"},
		{"an edge of one id", "graph", `{"graphs":[{"nodes":2,"edges":[[0]],"node_labels":[0,0]}]}`, 400, "edge [0]: want two"},
		{"an edge of three ids", "graph", `{"graphs":[{"nodes":3,"edges":[[0,1,2]],"node_labels":[0,0,0]}]}`, 400, "want two"},
		{"an edge id past int64", "graph", `{"graphs":[{"nodes":2,"edges":[[0,99999999999999999999]],"node_labels":[0,0]}]}`, 400, "want two"},
		{"an edge outside the graph", "graph", `{"graphs":[{"nodes":2,"edges":[[0,9223372036854775807]],"node_labels":[0,0]}]}`, 400, "outside [0, 2)"},
		{"labels for other nodes", "graph", `{"graphs":[{"nodes":100000,"node_labels":[0]}]}`, 400, "1 node labels for 100000 nodes"},
		{"empty feature rows", "node", `{"graph":{"nodes":200000,"features":[` + emptyRows + `]}}`, 400, "node 0 has 0 features"},
		{"fewer rows than nodes", "node", `{"graph":{"nodes":200000,"features":[` + row + `]}}`, 400, "1 feature rows for 200000 nodes"},
		{"node counts past the limit", "node", `{"graph":{"nodes":9223372036854775807,"features":[]}}`, 400, "a request holds 1 to 200000"},
		{"more ids than nodes", "node", `{"graph":{"nodes":1,"features":[` + row + `]},"nodes":[` + ids + `]}`, 400, "1000 nodes to classify in a graph of 1"},
		{"an id outside", "node", `{"graph":{"nodes":1,"features":[` + row + `]},"nodes":[5]}`, 400, "node 5 outside"},
		{"an edge of one id (node model)", "node", `{"graph":{"nodes":1,"edges":[[0]],"features":[` + row + `]}}`, 400, "want two"},
	} {
		url := graphSrv.URL
		if tc.srv == "node" {
			url = nodeSrv.URL
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		code, body := post(t, http.DefaultClient, url, []byte(tc.body))
		runtime.ReadMemStats(&after)
		var e struct{ Error string }
		if json.Unmarshal(body, &e); code != tc.code || !strings.Contains(e.Error, tc.want) {
			t.Errorf("%s: status %d, %.300s; want %d and %q", tc.name, code, body, tc.code, tc.want)
		}
		// The client's and the server's allocations together: a few times
		// the body, never what the declared sizes would take.
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20+20*uint64(len(tc.body)) {
			t.Errorf("%s: a %d-byte request allocated %d MiB", tc.name, len(tc.body), grew>>20)
		}
	}
	for _, url := range []string{graphSrv.URL, nodeSrv.URL} {
		if resp, err := http.Get(url + "/healthz"); err != nil || resp.StatusCode != 200 {
			t.Fatalf("healthz after the suite: %v %v", resp, err)
		}
	}
}

// A request whose cost alone is over the budget gets 413 with what it
// would need; a body declared over the limit gets 413 before it is read.
func TestServeOverBudget(t *testing.T) {
	p, _ := predictor(t, "mutag")
	srv := newServer(t, p, serve.Limits{MaxMemory: 64 << 20})
	defer srv.Close()
	big, err := json.Marshal(serve.GraphRequest{Graphs: []predict.Graph{chain(20_000)}})
	if err != nil {
		t.Fatal(err)
	}
	code, body := post(t, http.DefaultClient, srv.URL, big)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "would need about") {
		t.Errorf("a request over the budget: %d %s", code, body)
	}
	// A raw request, since a client would send what it declares.
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", int64(1)<<40)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body declared at 1 TiB: %d", resp.StatusCode)
	}
	if _, err := serve.New(p, serve.Limits{MaxMemory: -1}); err == nil || !strings.Contains(err.Error(), "MaxMemory") {
		t.Errorf("a negative budget: %v", err)
	}
}

// A request past its timeout is answered 503 with Retry-After, and its
// forward pass stops: its slot and its memory are free again at once.
func TestServeTimeoutStopsWork(t *testing.T) {
	p, _ := predictor(t, "mutag")
	h, err := serve.New(p, serve.Limits{Timeout: 200 * time.Millisecond, QueueWait: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(h)
	defer srv.Close()
	big, _ := json.Marshal(serve.GraphRequest{Graphs: []predict.Graph{chain(100_000)}}) // about 1 s of work
	start := time.Now()
	resp, err := http.Post(srv.URL+"/predict", "application/json", bytes.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "longer than 200ms") {
		t.Errorf("a request past its timeout: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	var health struct {
		InFlight int   `json:"in_flight"`
		Reserved int64 `json:"memory_reserved"`
	}
	resp, err = http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&health)
	resp.Body.Close()
	if health.InFlight != 0 || health.Reserved != 0 || took > 800*time.Millisecond {
		t.Errorf("after the timeout (answered in %v): %d in flight, %d bytes reserved", took, health.InFlight, health.Reserved)
	}
}

// A checkpoint whose model computes non-finite outputs gets 500 with an
// error, never 200 with NaN probabilities or an empty body.
func TestServeNonFinite(t *testing.T) {
	_, m, ds := fixture.Predictor(t, "mutag", 5)
	ck := checkpoint.New(m, "prcapsnet", nil, ds, train.Config{}, train.Result{})
	for _, q := range ck.Params {
		for i := range q.Value.Data {
			q.Value.Data[i] = 3e38
		}
	}
	p, err := predict.New(ck)
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, p, serve.Limits{})
	defer srv.Close()
	code, body := post(t, http.DefaultClient, srv.URL, serve.GraphRequest{Graphs: []predict.Graph{chain(5)}})
	if code != http.StatusInternalServerError || !strings.Contains(string(body), "not finite") && !strings.Contains(string(body), "failed") {
		t.Errorf("non-finite model: %d %s", code, body)
	}
}

// Concurrent heavy requests that each respect every limit are admitted
// within the memory budget: the rest wait, then get 503 with Retry-After;
// none fails otherwise, and /healthz answers throughout.
func TestServeBudgetUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test")
	}
	p, _ := predictor(t, "mutag")
	const budget = 160 << 20
	h, err := serve.New(p, serve.Limits{MaxMemory: budget, QueueWait: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(h)
	defer srv.Close()
	heavy, _ := json.Marshal(serve.GraphRequest{Graphs: []predict.Graph{chain(12_000)}})
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	deadline := time.Now().Add(4 * time.Second)
	for c := 0; c < 12; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 6 && time.Now().Before(deadline); i++ {
				resp, err := http.Post(srv.URL+"/predict", "application/json", bytes.NewReader(heavy))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 503 && resp.Header.Get("Retry-After") == "" {
					t.Error("503 without Retry-After")
				}
				mu.Lock()
				codes[resp.StatusCode]++
				mu.Unlock()
			}
		}()
	}
	stop := make(chan struct{})
	var slowest time.Duration
	var maxReserved int64
	healthDone := make(chan struct{})
	go func() {
		defer close(healthDone)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			start := time.Now()
			resp, err := http.Get(srv.URL + "/healthz")
			if err != nil {
				t.Error(err)
				return
			}
			var health struct {
				Reserved int64 `json:"memory_reserved"`
			}
			json.NewDecoder(resp.Body).Decode(&health)
			resp.Body.Close()
			slowest = max(slowest, time.Since(start))
			maxReserved = max(maxReserved, health.Reserved)
			if resp.StatusCode != 200 {
				t.Errorf("healthz: %d", resp.StatusCode)
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-healthDone
	t.Logf("answers %v; healthz slowest %v; at most %d MiB of %d reserved", codes, slowest, maxReserved>>20, budget>>20)
	if codes[200] == 0 || codes[200]+codes[503] != sumCounts(codes) {
		t.Errorf("answers %v: want 200s and 503s only", codes)
	}
	if maxReserved > budget || slowest > time.Second {
		t.Errorf("reserved up to %d bytes of a %d budget; healthz took up to %v", maxReserved, budget, slowest)
	}
}

func sumCounts(m map[int]int) (n int) {
	for _, v := range m {
		n += v
	}
	return n
}

// chain is a path of n carbon atoms (MUTAG label 0).
func chain(n int) predict.Graph {
	g := predict.Graph{Nodes: n, Labels: make([]int64, n), Edges: make([]predict.Edge, n-1)}
	for i := range g.Edges {
		g.Edges[i] = predict.Edge{i, i + 1}
	}
	return g
}

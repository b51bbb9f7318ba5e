package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/prcaps/prcaps/checkpoint"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/predict"
	"github.com/prcaps/prcaps/tensor"
)

// Limits bound what one request may ask and what the server takes on at
// once. Zero fields take the defaults given with them; negative ones are
// an error (New).
type Limits struct {
	MaxBodyBytes int64 // request body (default 8 MiB)
	MaxGraphs    int   // graphs per request (default 1,024)
	MaxNodes     int   // nodes per request, all graphs together (default 200,000)
	MaxEdges     int   // edges per request, all graphs together (default 2,000,000)
	// Timeout bounds a request from its arrival to its answer, its wait
	// for room included (default 30 s). A request past it is answered 503
	// and its forward pass stops at its next op.
	Timeout time.Duration
	// MaxMemory is the server-wide memory budget in bytes (default 2 GiB):
	// the requests being decoded or computed hold together at most this
	// much of their estimated cost (the body, what decoding makes of it,
	// and predict's estimate of the inputs and forward pass from the sizes
	// the request declares, taken before anything is built from them).
	// A request that alone would need more is answered 413.
	MaxMemory int64
	// MaxInFlight bounds the forward passes computed at once (default four
	// per core Go uses): a pass waits at times for its parallel kernels'
	// workers, and a few passes a core keep the cores busy then (one a
	// core served BenchmarkServeMUTAG about 12% slower); many more would
	// only share the cores.
	MaxInFlight int
	// QueueWait is how long a request waits for room in the budget for its
	// body, and again for room for its work and a forward-pass slot,
	// before it is answered 503 with Retry-After (default 2 s).
	QueueWait time.Duration
}

// DefaultLimits are the limits of a zero Limits.
func DefaultLimits() Limits {
	return Limits{MaxBodyBytes: 8 << 20, MaxGraphs: 1024, MaxNodes: 200_000, MaxEdges: 2_000_000,
		Timeout: 30 * time.Second, MaxMemory: 2 << 30, MaxInFlight: 4 * runtime.GOMAXPROCS(0), QueueWait: 2 * time.Second}
}

// withDefaults fills the zero fields.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxBodyBytes == 0 {
		l.MaxBodyBytes = d.MaxBodyBytes
	}
	if l.MaxGraphs == 0 {
		l.MaxGraphs = d.MaxGraphs
	}
	if l.MaxNodes == 0 {
		l.MaxNodes = d.MaxNodes
	}
	if l.MaxEdges == 0 {
		l.MaxEdges = d.MaxEdges
	}
	if l.Timeout == 0 {
		l.Timeout = d.Timeout
	}
	if l.MaxMemory == 0 {
		l.MaxMemory = d.MaxMemory
	}
	if l.MaxInFlight == 0 {
		l.MaxInFlight = d.MaxInFlight
	}
	if l.QueueWait == 0 {
		l.QueueWait = d.QueueWait
	}
	return l
}

// Validate reports a negative limit.
func (l Limits) Validate() error {
	for _, f := range []struct {
		name string
		v    int64
	}{{"MaxBodyBytes", l.MaxBodyBytes}, {"MaxGraphs", int64(l.MaxGraphs)}, {"MaxNodes", int64(l.MaxNodes)},
		{"MaxEdges", int64(l.MaxEdges)}, {"Timeout", int64(l.Timeout)}, {"MaxMemory", l.MaxMemory},
		{"MaxInFlight", int64(l.MaxInFlight)}, {"QueueWait", int64(l.QueueWait)}} {
		if f.v < 0 {
			return fmt.Errorf("serve: limit %s is %d; want 0 (the default) or more", f.name, f.v)
		}
	}
	return nil
}

// GraphRequest is the body of POST /predict for a graph model.
type GraphRequest struct {
	Graphs []predict.Graph `json:"graphs"`
}

// NodeRequest is the body of POST /predict for a node model: one graph,
// each node's features (as wide as the model's input), and the nodes to
// classify (all when empty).
type NodeRequest struct {
	Graph struct {
		Nodes    int            `json:"nodes"`
		Edges    []predict.Edge `json:"edges"`
		Features [][]float32    `json:"features"`
	} `json:"graph"`
	Nodes []int32 `json:"nodes,omitempty"`
}

// Response is the body of a successful POST /predict: one prediction per
// graph, or per requested node, in request order.
type Response struct {
	Predictions []predict.Prediction `json:"predictions"`
}

// ModelInfo is the body of GET /model.
type ModelInfo struct {
	Model         string             `json:"model"`
	Task          string             `json:"task"`
	Config        model.Config       `json:"config"`
	Classes       []string           `json:"classes"`
	Features      int                `json:"features"`
	Params        int                `json:"params"`
	Encoding      *data.NodeEncoding `json:"encoding,omitempty"`
	Dataset       string             `json:"dataset"`
	DatasetSHA256 string             `json:"dataset_sha256"`
	Version       int                `json:"checkpoint_version"`
}

// Server serves one predictor's model under limits. It is an
// http.Handler: POST /predict, GET /model, GET /healthz.
type Server struct {
	p        *predict.Predictor
	l        Limits
	info     ModelInfo
	mux      *http.ServeMux
	mem      *semaphore.Weighted // bytes of the budget
	inFlight chan struct{}       // forward-pass slots
	reserved atomic.Int64        // bytes held now, for /healthz
	// large is set by a finished large request and cleared when the
	// memory is returned; freeing while a goroutine returns it.
	large   atomic.Bool
	freeing atomic.Bool
}

// New returns the server of p's model under limits.
func New(p *predict.Predictor, limits Limits) (*Server, error) {
	if err := limits.Validate(); err != nil {
		return nil, err
	}
	l := limits.withDefaults()
	ck := p.Checkpoint()
	params := 0
	for _, q := range ck.Params {
		params += len(q.Value.Data)
	}
	s := &Server{p: p, l: l, mux: http.NewServeMux(), mem: semaphore.NewWeighted(l.MaxMemory),
		inFlight: make(chan struct{}, l.MaxInFlight)}
	s.info = ModelInfo{Model: ck.Model, Task: ck.Task.String(), Config: ck.Config, Classes: ck.ClassNames,
		Features: ck.Shape.Features, Params: params, Encoding: ck.Encoding, Dataset: ck.Dataset,
		DatasetSHA256: ck.DatasetSHA256, Version: checkpoint.Version}
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "in_flight": len(s.inFlight),
			"memory_reserved": s.reserved.Load(), "memory_budget": s.l.MaxMemory})
	})
	s.mux.HandleFunc("GET /model", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, s.info) })
	s.mux.HandleFunc("POST /predict", s.predict)
	allow := map[string]string{"/predict": "POST", "/model": "GET", "/healthz": "GET"}
	for path, method := range allow {
		s.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", method)
			writeError(w, http.StatusMethodNotAllowed, fmt.Errorf("%s %s: use %s", r.Method, path, method))
		})
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Errorf("no endpoint %s %s (POST /predict, GET /model, GET /healthz)", r.Method, r.URL.Path))
	})
	return s, nil
}

// Limits returns the server's limits, defaults filled in.
func (s *Server) Limits() Limits { return s.l }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// decodeFactor bounds the memory that decoding a JSON body makes of each
// of its bytes: an empty feature row `[],` (3 bytes) becomes a 24-byte
// slice header, a graph `{"nodes":1},` (12 bytes) an 80-byte
// predict.Graph, and the decoder's slices grow by doubling
// (TestDecodeFactor measures the worst bodies against it).
const decodeFactor = 16

// largeRequest is the reserved size above which a finished request has
// the runtime return freed memory to the system once the server is idle,
// so that a rare large request does not leave the process holding its
// peak.
const largeRequest = 64 << 20

// status is an error with the HTTP status it answers.
type status struct {
	code  int
	err   error
	retry bool // add Retry-After
}

func (e *status) Error() string { return e.err.Error() }

func fail(code int, format string, args ...any) *status {
	return &status{code: code, err: fmt.Errorf(format, args...)}
}

// busy is the answer when the server has no room in time, unless the
// request's own time is up (or its client gone), which then says so.
func (s *Server) busy(ctx context.Context, what string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return &status{code: http.StatusServiceUnavailable, retry: true,
		err: fmt.Errorf("the server is busy (%s); retry later", what)}
}

// reservation is the part of the budget one request holds.
type reservation struct {
	s *Server
	n int64
}

// grow takes n more bytes of the budget, waiting while ctx allows.
func (rv *reservation) grow(ctx context.Context, n int64) error {
	if n <= 0 {
		return nil
	}
	if err := rv.s.mem.Acquire(ctx, n); err != nil {
		return err
	}
	rv.n += n
	rv.s.reserved.Add(n)
	return nil
}

// shrink gives back what exceeds n bytes.
func (rv *reservation) shrink(n int64) {
	if d := rv.n - n; d > 0 {
		rv.s.mem.Release(d)
		rv.s.reserved.Add(-d)
		rv.n = n
	}
}

func (s *Server) predict(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), s.l.Timeout)
	defer cancel()
	rv := &reservation{s: s}
	defer func() {
		if rv.n > largeRequest {
			s.large.Store(true)
		}
		rv.shrink(0)
		if s.reserved.Load() == 0 && s.large.Load() {
			s.returnMemory()
		}
	}()
	preds, err := s.answer(ctx, w, r, rv)
	var st *status
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, Response{Predictions: preds})
		return
	case errors.As(err, &st):
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		st = &status{code: http.StatusServiceUnavailable, retry: true,
			err: fmt.Errorf("the request took longer than %v; its work was stopped", s.l.Timeout)}
	case r.Context().Err() != nil: // the client is gone
		return
	case errors.Is(err, predict.ErrNonFinite) || errors.Is(err, predict.ErrFailed):
		st = &status{code: http.StatusInternalServerError, err: err}
	default:
		st = &status{code: http.StatusBadRequest, err: err}
	}
	if st.retry {
		w.Header().Set("Retry-After", "1")
	}
	writeError(w, st.code, st.err)
}

// answer admits, decodes, checks and classifies one request.
func (s *Server) answer(ctx context.Context, w http.ResponseWriter, r *http.Request, rv *reservation) ([]predict.Prediction, error) {
	if r.ContentLength > s.l.MaxBodyBytes {
		return nil, fail(http.StatusRequestEntityTooLarge, "request body of %d bytes, over %d bytes", r.ContentLength, s.l.MaxBodyBytes)
	}
	size := s.l.MaxBodyBytes
	if r.ContentLength >= 0 {
		size = r.ContentLength
	}
	// The body and what decoding makes of it, before reading it.
	if need := (decodeFactor + 1) * size; need > s.l.MaxMemory {
		return nil, fail(http.StatusRequestEntityTooLarge, "a request body of %d bytes would need about %s to decode; the server admits at most %s at once",
			size, mib(need), mib(s.l.MaxMemory))
	}
	queue, stop := context.WithTimeout(ctx, s.l.QueueWait)
	defer stop()
	if err := rv.grow(queue, (decodeFactor+1)*size); err != nil {
		return nil, s.busy(ctx, "no memory for the request body")
	}
	body, err := readBody(w, r, s.l.MaxBodyBytes, size)
	if err != nil {
		return nil, err
	}
	rv.shrink((decodeFactor + 1) * int64(len(body)))
	// The request's declared sizes, checked and costed before anything is
	// built from them.
	var run func(context.Context) ([]predict.Prediction, error)
	var cost int64
	if s.p.Checkpoint().Task == data.GraphTask {
		run, cost, err = s.graphs(body)
	} else {
		run, cost, err = s.nodes(body)
	}
	if err != nil {
		return nil, err
	}
	if need := satAdd(rv.n, cost); need > s.l.MaxMemory {
		return nil, fail(http.StatusRequestEntityTooLarge, "the request would need about %s; the server admits at most %s at once: send fewer or smaller graphs",
			mib(need), mib(s.l.MaxMemory))
	}
	// A second wait, as long, for room for the work: reading and decoding
	// the body did not count as waiting.
	queue, stop = context.WithTimeout(ctx, s.l.QueueWait)
	defer stop()
	if err := rv.grow(queue, cost); err != nil {
		return nil, s.busy(ctx, "no memory for the request")
	}
	select {
	case s.inFlight <- struct{}{}:
	case <-queue.Done():
		return nil, s.busy(ctx, "every forward-pass slot is taken")
	}
	defer func() { <-s.inFlight }()
	return run(ctx)
}

// readBody reads the body, at most limit bytes, into a buffer of the
// declared size when there is one.
func readBody(w http.ResponseWriter, r *http.Request, limit, size int64) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, limit)
	var b []byte
	var err error
	if r.ContentLength >= 0 {
		b = make([]byte, size)
		_, err = io.ReadFull(body, b)
		if err == nil { // nothing may follow the declared length
			var one [1]byte
			if n, _ := body.Read(one[:]); n > 0 {
				err = errors.New("more bytes than the Content-Length")
			}
		}
	} else {
		var buf bytes.Buffer
		_, err = buf.ReadFrom(body)
		b = buf.Bytes()
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, fail(http.StatusRequestEntityTooLarge, "request body over %d bytes", tooLarge.Limit)
	case err != nil:
		return nil, fail(http.StatusBadRequest, "request body: %v", err)
	}
	return b, nil
}

// decode reads one JSON value from body, refusing unknown fields and
// trailing data.
func decode(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	if dec.More() {
		return errors.New("request body: more than one JSON value")
	}
	return nil
}

// graphs decodes and checks a graph request, and returns its work and
// its cost.
func (s *Server) graphs(body []byte) (func(context.Context) ([]predict.Prediction, error), int64, error) {
	var req GraphRequest
	if err := decode(body, &req); err != nil {
		return nil, 0, err
	}
	l := s.l
	if len(req.Graphs) == 0 || len(req.Graphs) > l.MaxGraphs {
		return nil, 0, fmt.Errorf("%d graphs: a request holds 1 to %d", len(req.Graphs), l.MaxGraphs)
	}
	// Each count is checked against the limit before it is added, so the
	// sums cannot overflow.
	nodes, edges := make([]int, len(req.Graphs)), make([]int, len(req.Graphs))
	totalNodes, totalEdges := 0, 0
	for i, g := range req.Graphs {
		if g.Nodes < 1 || g.Nodes > l.MaxNodes-totalNodes {
			return nil, 0, fmt.Errorf("graph %d declares %d nodes: a graph has at least one, and a request at most %d in all", i, g.Nodes, l.MaxNodes)
		}
		if len(g.Edges) > l.MaxEdges-totalEdges {
			return nil, 0, fmt.Errorf("more than %d edges: a request holds at most %d in all", l.MaxEdges, l.MaxEdges)
		}
		totalNodes += g.Nodes
		totalEdges += len(g.Edges)
		nodes[i], edges[i] = g.Nodes, len(g.Edges)
	}
	cost := s.p.GraphsBytes(nodes, edges)
	return func(ctx context.Context) ([]predict.Prediction, error) { return s.p.GraphsContext(ctx, req.Graphs) }, cost, nil
}

// nodes decodes and checks a node request, and returns its work and its
// cost.
func (s *Server) nodes(body []byte) (func(context.Context) ([]predict.Prediction, error), int64, error) {
	var req NodeRequest
	if err := decode(body, &req); err != nil {
		return nil, 0, err
	}
	l, g := s.l, req.Graph
	width := s.p.Checkpoint().Shape.Features
	switch {
	case g.Nodes < 1 || g.Nodes > l.MaxNodes:
		return nil, 0, fmt.Errorf("%d nodes: a request holds 1 to %d", g.Nodes, l.MaxNodes)
	case len(g.Edges) > l.MaxEdges:
		return nil, 0, fmt.Errorf("%d edges: a request holds at most %d", len(g.Edges), l.MaxEdges)
	case len(g.Features) != g.Nodes:
		return nil, 0, fmt.Errorf("%d feature rows for %d nodes", len(g.Features), g.Nodes)
	case len(req.Nodes) > g.Nodes:
		return nil, 0, fmt.Errorf("%d nodes to classify in a graph of %d", len(req.Nodes), g.Nodes)
	}
	// The rows are checked before the feature matrix is made, so its size
	// is what the body holds.
	for v, row := range g.Features {
		if len(row) != width {
			return nil, 0, fmt.Errorf("node %d has %d features; the model takes %d", v, len(row), width)
		}
		for _, f := range row {
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return nil, 0, fmt.Errorf("node %d has a non-finite feature", v)
			}
		}
	}
	for i, e := range g.Edges {
		if e[0] < 0 || e[0] >= g.Nodes || e[1] < 0 || e[1] >= g.Nodes {
			return nil, 0, fmt.Errorf("edge %d (%d, %d) has an endpoint outside [0, %d)", i, e[0], e[1], g.Nodes)
		}
	}
	for _, v := range req.Nodes {
		if v < 0 || int(v) >= g.Nodes {
			return nil, 0, fmt.Errorf("node %d outside [0, %d)", v, g.Nodes)
		}
	}
	classified := len(req.Nodes)
	if classified == 0 {
		classified = g.Nodes
	}
	cost := s.p.NodesBytes(g.Nodes, len(g.Edges), classified)
	return func(ctx context.Context) ([]predict.Prediction, error) {
		src, dst := make([]int32, len(g.Edges)), make([]int32, len(g.Edges))
		for i, e := range g.Edges {
			src[i], dst[i] = int32(e[0]), int32(e[1])
		}
		// As the node datasets are: undirected, no self-loops.
		gr, err := data.NewGraph(g.Nodes, src, dst, data.EdgeOptions{Symmetrize: true, RemoveSelfLoops: true})
		if err != nil {
			return nil, err
		}
		x := tensor.NewDense[float32](g.Nodes, width)
		for v, row := range g.Features {
			copy(x.Data[v*width:], row)
		}
		var nodes []int32
		if len(req.Nodes) > 0 {
			nodes = req.Nodes
		}
		return s.p.NodesContext(ctx, gr, data.Features{Dense: x}, nodes)
	}, cost, nil
}

// returnMemory has the runtime return freed memory to the system, in the
// background and never twice at once. The server calls it when it falls
// idle after a large request: under load the memory stays within the
// budget and is reused; once the load is over it goes back.
func (s *Server) returnMemory() {
	if !s.freeing.CompareAndSwap(false, true) {
		return
	}
	s.large.Store(false)
	go func() {
		defer s.freeing.Store(false)
		debug.FreeOSMemory()
	}()
}

// writeJSON encodes v before writing the status, so that a value JSON
// cannot encode is a 500 with an error, never a 200 with an empty or cut
// body.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		b, _ = json.Marshal(map[string]string{"error": fmt.Sprintf("encoding the answer: %v", err)})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

func satAdd(a, b int64) int64 {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}

// mib formats bytes for a message.
func mib(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

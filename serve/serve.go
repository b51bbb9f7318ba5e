package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/prcaps/prcaps/checkpoint"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/predict"
	"github.com/prcaps/prcaps/tensor"
)

// Limits bound what one request may ask. Zero fields take the defaults
// given with them.
type Limits struct {
	MaxBodyBytes int64         // request body (default 8 MiB)
	MaxGraphs    int           // graphs per request (default 1,024)
	MaxNodes     int           // nodes per request, all graphs together (default 200,000)
	MaxEdges     int           // edges per request, all graphs together (default 2,000,000)
	Timeout      time.Duration // to answer a request (default 30 s)
}

func (l Limits) withDefaults() Limits {
	if l.MaxBodyBytes == 0 {
		l.MaxBodyBytes = 8 << 20
	}
	if l.MaxGraphs == 0 {
		l.MaxGraphs = 1024
	}
	if l.MaxNodes == 0 {
		l.MaxNodes = 200_000
	}
	if l.MaxEdges == 0 {
		l.MaxEdges = 2_000_000
	}
	if l.Timeout == 0 {
		l.Timeout = 30 * time.Second
	}
	return l
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
		Nodes    int         `json:"nodes"`
		Edges    [][2]int    `json:"edges"`
		Features [][]float32 `json:"features"`
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

// Handler serves p's model under limits.
func Handler(p *predict.Predictor, limits Limits) http.Handler {
	l := limits.withDefaults()
	ck := p.Checkpoint()
	params := 0
	for _, q := range ck.Params {
		params += len(q.Value.Data)
	}
	info := ModelInfo{Model: ck.Model, Task: ck.Task.String(), Config: ck.Config, Classes: ck.ClassNames,
		Features: ck.Shape.Features, Params: params, Encoding: ck.Encoding, Dataset: ck.Dataset,
		DatasetSHA256: ck.DatasetSHA256, Version: checkpoint.Version}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /model", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, info) })
	mux.HandleFunc("POST /predict", func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, l.MaxBodyBytes)
		var preds []predict.Prediction
		var err error
		if ck.Task == data.GraphTask {
			preds, err = predictGraphs(p, r, l)
		} else {
			preds, err = predictNodes(p, r, l)
		}
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Errorf("request body over %d bytes", tooLarge.Limit))
		case err != nil:
			writeError(w, http.StatusBadRequest, err)
		default:
			writeJSON(w, http.StatusOK, Response{Predictions: preds})
		}
	})
	for _, path := range []string{"/predict", "/model", "/healthz"} {
		allow := map[string]string{"/predict": "POST", "/model": "GET", "/healthz": "GET"}[path]
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			writeError(w, http.StatusMethodNotAllowed, fmt.Errorf("%s %s: use %s", r.Method, path, allow))
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Errorf("no endpoint %s %s (POST /predict, GET /model, GET /healthz)", r.Method, r.URL.Path))
	})
	return http.TimeoutHandler(mux, l.Timeout, `{"error":"the request took too long"}`)
}

// decode reads one JSON value from the request body, refusing unknown
// fields and trailing data.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return err
		}
		return fmt.Errorf("request body: %w", err)
	}
	if dec.More() {
		return errors.New("request body: more than one JSON value")
	}
	return nil
}

func predictGraphs(p *predict.Predictor, r *http.Request, l Limits) ([]predict.Prediction, error) {
	var req GraphRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	if len(req.Graphs) == 0 || len(req.Graphs) > l.MaxGraphs {
		return nil, fmt.Errorf("%d graphs: a request holds 1 to %d", len(req.Graphs), l.MaxGraphs)
	}
	nodes, edges := 0, 0
	for _, g := range req.Graphs {
		nodes += max(g.Nodes, 0)
		edges += len(g.Edges)
	}
	if nodes > l.MaxNodes || edges > l.MaxEdges {
		return nil, fmt.Errorf("%d nodes and %d edges: a request holds at most %d and %d", nodes, edges, l.MaxNodes, l.MaxEdges)
	}
	return p.Graphs(req.Graphs)
}

func predictNodes(p *predict.Predictor, r *http.Request, l Limits) ([]predict.Prediction, error) {
	var req NodeRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	g := req.Graph
	switch {
	case g.Nodes < 1 || g.Nodes > l.MaxNodes:
		return nil, fmt.Errorf("%d nodes: a request holds 1 to %d", g.Nodes, l.MaxNodes)
	case len(g.Edges) > l.MaxEdges:
		return nil, fmt.Errorf("%d edges: a request holds at most %d", len(g.Edges), l.MaxEdges)
	case len(g.Features) != g.Nodes:
		return nil, fmt.Errorf("%d feature rows for %d nodes", len(g.Features), g.Nodes)
	}
	src, dst := make([]int32, len(g.Edges)), make([]int32, len(g.Edges))
	for i, e := range g.Edges {
		if e[0] < 0 || e[0] >= g.Nodes || e[1] < 0 || e[1] >= g.Nodes {
			return nil, fmt.Errorf("edge %d (%d, %d) has an endpoint outside [0, %d)", i, e[0], e[1], g.Nodes)
		}
		src[i], dst[i] = int32(e[0]), int32(e[1])
	}
	// As the node datasets are: undirected, no self-loops.
	gr, err := data.NewGraph(g.Nodes, src, dst, data.EdgeOptions{Symmetrize: true, RemoveSelfLoops: true})
	if err != nil {
		return nil, err
	}
	width := p.Checkpoint().Shape.Features
	x := tensor.NewDense[float32](g.Nodes, width)
	for v, row := range g.Features {
		if len(row) != width {
			return nil, fmt.Errorf("node %d has %d features; the model takes %d", v, len(row), width)
		}
		for _, f := range row {
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return nil, fmt.Errorf("node %d has a non-finite feature", v)
			}
		}
		copy(x.Data[v*width:], row)
	}
	nodes := req.Nodes
	if len(nodes) == 0 {
		nodes = nil
	}
	return p.Nodes(gr, data.Features{Dense: x}, nodes)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

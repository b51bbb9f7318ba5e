// Package serve answers classification requests over HTTP with a
// predictor's model: POST /predict takes graphs (graph models) or one graph
// with node features (node models) as JSON and returns each prediction's
// class, label and probabilities; GET /model describes the model; GET
// /healthz says the server is up. Requests are limited in size, graphs in
// count and in nodes and edges; a bad request gets status 400 (413 when too
// large) with a JSON error; requests are served concurrently from one
// loaded model (predict.Predictor keeps replicas).
package serve

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/prcaps/prcaps/predict"
	"github.com/prcaps/prcaps/serve"
)

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", "Serves a model saved by prcaps train --save over HTTP: POST /predict (JSON graphs for a graph\n"+
		"model, one graph with node features for a node model; see docs/cli.md), GET /model, GET /healthz.\n"+
		"Stops gracefully on SIGINT or SIGTERM, finishing the requests in flight.", stderr)
	ckPath := fs.String("model", "", "the checkpoint `file` (required)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (port 0: any free port)")
	var l serve.Limits
	fs.Int64Var(&l.MaxBodyBytes, "max-body", 8<<20, "largest request body in bytes")
	fs.IntVar(&l.MaxGraphs, "max-graphs", 1024, "most graphs in one request")
	fs.IntVar(&l.MaxNodes, "max-nodes", 200_000, "most nodes in one request")
	fs.IntVar(&l.MaxEdges, "max-edges", 2_000_000, "most edges in one request")
	fs.DurationVar(&l.Timeout, "timeout", 30*time.Second, "longest time to answer a request")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *ckPath == "":
		return usagef("--model FILE is required")
	case l.MaxBodyBytes < 1 || l.MaxGraphs < 1 || l.MaxNodes < 1 || l.MaxEdges < 1 || l.Timeout <= 0:
		return usagef("--max-body, --max-graphs, --max-nodes, --max-edges and --timeout must be positive")
	}
	p, err := predict.Load(*ckPath)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	srv := &http.Server{Handler: serve.Handler(p, l), ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: l.Timeout, WriteTimeout: l.Timeout + 5*time.Second, IdleTimeout: 2 * time.Minute}
	ctx, stop := stopContext()
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	ck := p.Checkpoint()
	fmt.Fprintf(stderr, "serving %s (%s classification, trained on %s) on http://%s\n", ck.Model, ck.Task, ck.Dataset, ln.Addr())
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(stderr, "stopping: finishing the requests in flight")
	shut, cancel := context.WithTimeout(context.Background(), l.Timeout+5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

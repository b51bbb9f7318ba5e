package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
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
	l := serve.DefaultLimits()
	fs.Int64Var(&l.MaxBodyBytes, "max-body", l.MaxBodyBytes, "largest request body in bytes")
	fs.IntVar(&l.MaxGraphs, "max-graphs", l.MaxGraphs, "most graphs in one request")
	fs.IntVar(&l.MaxNodes, "max-nodes", l.MaxNodes, "most nodes in one request")
	fs.IntVar(&l.MaxEdges, "max-edges", l.MaxEdges, "most edges in one request")
	fs.DurationVar(&l.Timeout, "timeout", l.Timeout, "longest time to answer a request, waiting for room included; past it: 503")
	memory := byteSize(l.MaxMemory)
	fs.Var(&memory, "max-memory", "memory budget of all requests at once, a `size` in bytes or with KiB, MiB, GiB; over it a request\n"+
		"waits up to --queue-wait, then gets 503 with Retry-After; a request that alone needs more gets 413")
	fs.IntVar(&l.MaxInFlight, "max-in-flight", l.MaxInFlight, "most forward passes computed at once, by default four per core Go uses")
	fs.DurationVar(&l.QueueWait, "queue-wait", l.QueueWait, "longest wait of a request for room in the budget or a forward-pass slot")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	l.MaxMemory = int64(memory)
	switch {
	case *ckPath == "":
		return usagef("--model FILE is required")
	case l.MaxBodyBytes < 1 || l.MaxGraphs < 1 || l.MaxNodes < 1 || l.MaxEdges < 1 || l.Timeout <= 0 ||
		l.MaxMemory < 1 || l.MaxInFlight < 1 || l.QueueWait <= 0:
		return usagef("--max-body, --max-graphs, --max-nodes, --max-edges, --timeout, --max-memory, --max-in-flight and --queue-wait must be positive")
	case l.QueueWait > l.Timeout:
		return usagef("--queue-wait %v is longer than --timeout %v", l.QueueWait, l.Timeout)
	}
	p, err := predict.Load(*ckPath)
	if err != nil {
		return err
	}
	h, err := serve.New(p, l)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	// The budget covers the requests; the soft limit, with room for the
	// model and the runtime, has the collector work harder, and return
	// memory sooner, as the process nears it.
	debug.SetMemoryLimit(l.MaxMemory + 256<<20)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: l.Timeout, WriteTimeout: l.Timeout + 5*time.Second, IdleTimeout: 2 * time.Minute}
	ctx, stop := stopContext()
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	ck := p.Checkpoint()
	fmt.Fprintf(stderr, "serving %s (%s classification, trained on %s) on http://%s; memory budget %s, %d forward passes at once\n",
		ck.Model, ck.Task, ck.Dataset, ln.Addr(), memory, l.MaxInFlight)
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

// byteSize is a flag of a size in bytes, given as a number of bytes or
// with a binary unit (KiB, MiB, GiB, TiB; K, M, G, T mean the same).
type byteSize int64

func (b *byteSize) Set(s string) error {
	num, mult := strings.TrimSpace(s), int64(1)
	for i, unit := range []string{"KiB", "MiB", "GiB", "TiB"} {
		for _, suffix := range []string{unit, unit[:1]} {
			if strings.HasSuffix(num, suffix) {
				num, mult = strings.TrimSpace(strings.TrimSuffix(num, suffix)), 1<<(10*(i+1))
				break
			}
		}
		if mult > 1 {
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 1 || n > (1<<62)/mult {
		return fmt.Errorf("%q is not a size: want a positive number of bytes, or with KiB, MiB or GiB", s)
	}
	*b = byteSize(n * mult)
	return nil
}

func (b byteSize) String() string {
	for _, u := range []struct {
		name  string
		shift uint
	}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if b >= 1<<u.shift && b%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", b>>u.shift, u.name)
		}
	}
	return strconv.FormatInt(int64(b), 10)
}

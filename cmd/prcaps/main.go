// Command prcaps trains, evaluates and benchmarks PR-CapsNet and its
// baselines on node- and graph-classification benchmarks.
//
//	prcaps train      train a model with a paper protocol (default: PR-CapsNet on embedded Cora)
//	prcaps bench      regenerate the paper's tables side by side with baselines
//	prcaps predict    classify nodes or graphs with a model saved by train --save
//	prcaps serve      serve a saved model over HTTP
//	prcaps datasets   list, verify and download datasets
//
// Run `prcaps <command> -h` for the flags of a command.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"train", "train a model with a paper protocol (default: PR-CapsNet on embedded Cora)", runTrain},
		{"tune", "grid-search a node model's options on validation accuracy, then score the choice once", runTune},
		{"bench", "regenerate the paper's tables side by side with baselines", runBench},
		{"plot", "draw figures (training curves, learned curvatures) from saved results", runPlot},
		{"predict", "classify nodes or graphs with a model saved by train --save", runPredict},
		{"serve", "serve a saved model over HTTP (POST /predict, GET /model, GET /healthz)", runServe},
		{"datasets", "list, verify and download the benchmark datasets", runDatasets},
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "prcaps: PR-CapsNet (pseudo-Riemannian capsule networks) for node and graph classification.")
	fmt.Fprintln(w, "\nUsage:\n  prcaps <command> [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'prcaps <command> -h' for a command's flags.")
}

// run executes the CLI and returns the exit status: 0 success, 1 failure,
// 2 bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			out := &errWriter{w: stdout}
			err := c.run(args[1:], out, stderr)
			if out.err != nil { // results lost (a full disk, a closed pipe): never exit 0
				if err != nil && !errors.Is(err, flag.ErrHelp) {
					fmt.Fprintf(stderr, "prcaps %s: %v\n", c.name, err)
				}
				fmt.Fprintf(stderr, "prcaps %s: writing the output: %v\n", c.name, out.err)
				return 1
			}
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.As(err, new(usageError)):
				fmt.Fprintf(stderr, "prcaps %s: %v\n", c.name, err)
				return 2
			default:
				fmt.Fprintf(stderr, "prcaps %s: %v\n", c.name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "prcaps: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

// errWriter is the commands' stdout: it keeps the first write error, and
// fails every write after it, so that run can turn output lost to a full
// disk or a closed pipe into exit status 1 however the command printed it
// (fmt.Fprintln's error is rarely checked).
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		e.err = err
	}
	return n, err
}

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// newFlagSet returns a FlagSet that reports errors instead of exiting and
// prints its usage with a one-line description of the command.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("prcaps "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: prcaps %s [flags]\n\n%s\n\nFlags:\n", name, synopsis)
		printDefaults(fs, stderr)
	}
	return fs
}

// printDefaults is flag.PrintDefaults, except that a flag bound from a
// configuration struct (package option) is shown with what it takes (int,
// float, string, list) where the flag package would say "value".
func printDefaults(fs *flag.FlagSet, w io.Writer) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		if t, ok := f.Value.(interface{ TypeName() string }); ok && name == "value" {
			name = t.TypeName()
		}
		line := "  -" + f.Name
		if name != "" {
			line += " " + name
		}
		usage = strings.ReplaceAll(usage, "\n", "\n    \t")
		switch d := f.DefValue; {
		case d == "" || d == "0" || d == "false":
		case name == "string":
			usage += fmt.Sprintf(" (default %q)", d)
		default:
			usage += fmt.Sprintf(" (default %v)", d)
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, usage)
	})
}

// setFlags reports the flags given on the command line (after parseFlags),
// by name: what tells a flag left at its default from one set to it.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// parseFlags parses args, turning flag errors into usage errors and
// rejecting positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// stopContext is cancelled on the first SIGINT or SIGTERM, after which the
// signals have their default effect again, so a second one ends the
// process (tests replace it).
var stopContext = func() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	return ctx, stop
}

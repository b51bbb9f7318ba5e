package main

import (
	"errors"
	"flag"
	"io"
	"os"

	"github.com/prcaps/prcaps/figure"
	"github.com/prcaps/prcaps/tsne"
)

func runPlot(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot RESULTS...", "Draws figures from saved results, without training:\n"+
		"  - a curves file (`prcaps train --curves FILE`): the training loss and the training and validation\n"+
		"    accuracies per epoch (mean ± std over the runs, the mean selected epoch dashed) and, for PR-CapsNet,\n"+
		"    its learned curvatures β and β_k per epoch: DIR/<input>-curves and DIR/<input>-curvature;\n"+
		"  - embeddings files (`prcaps train --embeddings FILE`): one t-SNE panel per file, coloured by class,\n"+
		"    with the embedding's silhouette and the 10-NN accuracy in the map; one figure per dataset,\n"+
		"    DIR/tsne-<dataset>;\n"+
		"  - bench output (`prcaps bench --json` lines): one figure per table, the accuracy of each variant\n"+
		"    (mean ± std error bars; a line over T=1..6 or K=1..8, a heat map over the (s, t) grid, categories\n"+
		"    otherwise): DIR/<input>-<table>.\nEach figure is written as .png and .svg.", stderr)
	out := fs.String("out", ".", "directory to write the figures into (must exist)")
	title := fs.String("title", "", "curves: title prefix of the panels (default: \"<model> on <dataset>\" from the file)")
	seed := fs.Uint64("seed", 0, "t-SNE: seed of the initial map (the figure is deterministic for a seed)")
	var perplexity float64
	positiveFloatVar(fs, &perplexity, "perplexity", tsne.DefaultPerplexity, "t-SNE: perplexity, at least 1")
	cols := fs.Int("cols", 3, "t-SNE: panels per row, 1 to 16")
	var iters int
	intVar(fs, &iters, "iterations", tsne.DefaultIterations, 251, 1_000_000, "t-SNE: optimisation iterations (the first 250 exaggerated), 251 to 1e6")
	// Flags and file names may interleave: parse up to each file name.
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return usageError{err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		files, args = append(files, fs.Arg(0)), fs.Args()[1:]
	}
	if len(files) == 0 {
		return usagef("no results to plot: give curves, embeddings or bench files (prcaps train --curves FILE, --embeddings FILE; prcaps bench --json)")
	}
	if err := checkPaths(nil, []pathArg{{Flag: "--out", Path: *out, Dir: true}}); err != nil {
		return err
	}
	if st, err := os.Stat(*out); err != nil || !st.IsDir() {
		return usagef("--out %s: no such directory", *out)
	}
	if *cols < 1 || *cols > 16 {
		return usagef("--cols %d: need 1 to 16", *cols)
	}
	cfg := tsne.Config{Perplexity: perplexity, Seed: *seed, Iterations: iters}
	if err := cfg.Validate(); err != nil {
		return usagef("t-SNE settings: %v", err)
	}
	return figure.Files(files, figure.Options{Out: *out, Title: *title, TSNE: cfg, Cols: *cols}, stdout)
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/prcaps/prcaps/experiment"
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
	perplexity := fs.Float64("perplexity", tsne.DefaultPerplexity, "t-SNE: perplexity, positive")
	cols := fs.Int("cols", 3, "t-SNE: panels per row, 1 to 16")
	iters := fs.Int("iterations", tsne.DefaultIterations, "t-SNE: optimisation iterations (the first 250 exaggerated), more than 250")
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
	if st, err := os.Stat(*out); err != nil || !st.IsDir() {
		return usagef("--out %s: no such directory", *out)
	}
	if *cols < 1 || *cols > 16 {
		return usagef("--cols %d: need 1 to 16", *cols)
	}
	cfg := tsne.Config{Perplexity: *perplexity, Seed: *seed, Iterations: *iters}
	if err := cfg.Validate(); err != nil {
		return usagef("t-SNE settings: %v", err)
	}
	var embeddings []*experiment.EmbeddingFile
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if e, eerr := experiment.ReadEmbeddings(b, path); eerr == nil {
			embeddings = append(embeddings, e)
			continue
		}
		recs, err := experiment.ReadCurves(b, path)
		if err != nil {
			bench, berr := experiment.ReadBenchRecords(b, path)
			if berr != nil {
				return fmt.Errorf("%s: neither a curves, an embeddings nor a bench file (%v)", path, err)
			}
			if err := plotTables(bench, path, *out, stdout); err != nil {
				return err
			}
			continue
		}
		t := *title
		if t == "" {
			t = fmt.Sprintf("%s on %s", recs[0].Model, recs[0].Dataset)
		}
		loss, acc, err := figure.TrainingPlots(recs, t)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		written, err := figure.Save(figure.Base(*out, path, "curves"), [][]*plot.Plot{{loss, acc}}, 12*vg.Centimeter, 9*vg.Centimeter)
		for _, w := range written {
			fmt.Fprintln(stdout, w)
		}
		if err != nil {
			return err
		}
		curv, err := figure.CurvaturePlot(recs, t)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if curv == nil {
			continue
		}
		written, err = figure.Save(figure.Base(*out, path, "curvature"), [][]*plot.Plot{{curv}}, 14*vg.Centimeter, 9*vg.Centimeter)
		for _, w := range written {
			fmt.Fprintln(stdout, w)
		}
		if err != nil {
			return err
		}
	}
	return plotTSNE(embeddings, cfg, *cols, *out, stdout)
}

// plotTables draws each table of a bench output as its sweep figure:
// DIR/<input>-<table>.
func plotTables(recs []experiment.BenchRecord, path, out string, stdout io.Writer) error {
	var tables []string
	for _, r := range recs {
		if !slices.Contains(tables, r.Table) {
			tables = append(tables, r.Table)
		}
	}
	for _, t := range tables {
		var rs []experiment.BenchRecord
		for _, r := range recs {
			if r.Table == t {
				rs = append(rs, r)
			}
		}
		p, err := figure.SweepPlot("table "+t, rs)
		if err != nil {
			return fmt.Errorf("%s, table %s: %w", path, t, err)
		}
		written, err := figure.Save(figure.Base(out, path, t), [][]*plot.Plot{{p}}, 14*vg.Centimeter, 10*vg.Centimeter)
		for _, w := range written {
			fmt.Fprintln(stdout, w)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// plotTSNE draws one figure of t-SNE panels per dataset of embeddings, in
// the order given.
func plotTSNE(embeddings []*experiment.EmbeddingFile, cfg tsne.Config, cols int, out string, stdout io.Writer) error {
	var datasets []string
	for _, e := range embeddings {
		if !slices.Contains(datasets, e.Dataset) {
			datasets = append(datasets, e.Dataset)
		}
	}
	for _, d := range datasets {
		var panels []*plot.Plot
		for _, e := range embeddings {
			if e.Dataset != d {
				continue
			}
			p, s, err := figure.TSNEPanel(e, cfg)
			if err != nil {
				return fmt.Errorf("t-SNE of %s on %s: %w", e.Model, e.Dataset, err)
			}
			fmt.Fprintf(stdout, "%s on %s: silhouette %.4f, 10-NN accuracy in the map %.4f\n", e.Model, e.Dataset, s.Silhouette, s.KNNAccuracy)
			panels = append(panels, p)
		}
		base := filepath.Join(out, "tsne-"+strings.ToLower(strings.ReplaceAll(d, " ", "-")))
		written, err := figure.Save(base, figure.Grid(panels, cols), 7.5*vg.Centimeter, 7.5*vg.Centimeter)
		for _, w := range written {
			fmt.Fprintln(stdout, w)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/prcaps/prcaps/experiment"
	"github.com/prcaps/prcaps/figure"
)

func runPlot(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot RESULTS...", "Draws figures from saved results, without training: for a curves file written by\n"+
		"`prcaps train --curves FILE`, the training loss and the training and validation accuracies per epoch\n"+
		"(mean ± std over the runs, the mean selected epoch dashed) and, for PR-CapsNet, its learned curvatures\n"+
		"β and β_k per epoch. Each figure is written as DIR/<input>-<figure>.png and .svg.", stderr)
	out := fs.String("out", ".", "directory to write the figures into (must exist)")
	title := fs.String("title", "", "title prefix of the panels (default: \"<model> on <dataset>\" from the file)")
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
		return usagef("no results to plot: give one or more curves files (prcaps train --curves FILE)")
	}
	if st, err := os.Stat(*out); err != nil || !st.IsDir() {
		return usagef("--out %s: no such directory", *out)
	}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		recs, err := experiment.ReadCurves(b, path)
		if err != nil {
			return err
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
	return nil
}

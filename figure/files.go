package figure

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/prcaps/prcaps/internal/fileguard"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/tsne"
)

// Options are the settings of Files.
type Options struct {
	Out   string      // directory the figures go to (must exist)
	Title string      // curves: title prefix ("" = "<model> on <dataset>")
	TSNE  tsne.Config // the t-SNE panels' map
	Cols  int         // t-SNE panels per row
}

// MaxResultBytes bounds each results file Files reads (whole): a curves
// file of a thousand runs of a thousand epochs is a few hundred MB, and a
// device or a stray huge file is an error naming it, not a read that
// fills memory.
const MaxResultBytes = 1 << 30

// Files draws the figures of saved results, each file recognised by its
// content: a curves file (record.ReadCurves) gives Out/<file>-curves
// and, with curvatures, Out/<file>-curvature; bench output
// (record.ReadBenchRecords) one Out/<file>-<table> per table;
// embeddings files (record.ReadEmbeddings) one t-SNE panel each, in
// one Out/tsne-<dataset> figure per dataset. Every path written, and a
// line of scores per t-SNE panel, goes to w.
func Files(files []string, opt Options, w io.Writer) error {
	var embeddings []*record.EmbeddingFile
	for _, path := range files {
		b, err := fileguard.ReadFile(path, MaxResultBytes)
		if err != nil {
			return err
		}
		if e, eerr := record.ReadEmbeddings(b, path); eerr == nil {
			embeddings = append(embeddings, e)
			continue
		}
		recs, err := record.ReadCurves(b, path)
		if err != nil {
			bench, berr := record.ReadBenchRecords(b, path)
			if berr != nil {
				return fmt.Errorf("%s: neither a curves, an embeddings nor a bench file (%v)", path, err)
			}
			if err := tables(bench, path, opt.Out, w); err != nil {
				return err
			}
			continue
		}
		if err := curves(recs, path, opt, w); err != nil {
			return err
		}
	}
	return tsnePanels(embeddings, opt, w)
}

// save writes panels to base.png and .svg and lists the paths on w.
func save(base string, panels [][]*plot.Plot, cellW, cellH vg.Length, w io.Writer) error {
	written, err := Save(base, panels, cellW, cellH)
	for _, p := range written {
		fmt.Fprintln(w, p)
	}
	return err
}

// curves draws a curves file's training curves and learned curvatures.
func curves(recs []record.EpochRecord, path string, opt Options, w io.Writer) error {
	t := opt.Title
	if t == "" {
		t = fmt.Sprintf("%s on %s", recs[0].Model, recs[0].Dataset)
	}
	loss, acc, err := TrainingPlots(recs, t)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := save(Base(opt.Out, path, "curves"), [][]*plot.Plot{{loss, acc}}, 12*vg.Centimeter, 9*vg.Centimeter, w); err != nil {
		return err
	}
	curv, err := CurvaturePlot(recs, t)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if curv == nil {
		return nil
	}
	return save(Base(opt.Out, path, "curvature"), [][]*plot.Plot{{curv}}, 14*vg.Centimeter, 9*vg.Centimeter, w)
}

// tables draws each table of a bench output as its sweep figure.
func tables(recs []record.BenchRecord, path, out string, w io.Writer) error {
	var names []string
	for _, r := range recs {
		if !slices.Contains(names, r.Table) {
			names = append(names, r.Table)
		}
	}
	for _, t := range names {
		var rs []record.BenchRecord
		for _, r := range recs {
			if r.Table == t {
				rs = append(rs, r)
			}
		}
		p, err := SweepPlot("table "+t, rs)
		if err != nil {
			return fmt.Errorf("%s, table %s: %w", path, t, err)
		}
		if err := save(Base(out, path, t), [][]*plot.Plot{{p}}, 14*vg.Centimeter, 10*vg.Centimeter, w); err != nil {
			return err
		}
	}
	return nil
}

// tsnePanels draws one figure of t-SNE panels per dataset of embeddings,
// in the order given.
func tsnePanels(embeddings []*record.EmbeddingFile, opt Options, w io.Writer) error {
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
			p, s, err := TSNEPanel(e, opt.TSNE)
			if err != nil {
				return fmt.Errorf("t-SNE of %s on %s: %w", e.Model, e.Dataset, err)
			}
			fmt.Fprintf(w, "%s on %s: silhouette %.4f, 10-NN accuracy in the map %.4f\n", e.Model, e.Dataset, s.Silhouette, s.KNNAccuracy)
			panels = append(panels, p)
		}
		base := filepath.Join(opt.Out, "tsne-"+strings.ToLower(strings.ReplaceAll(d, " ", "-")))
		if err := save(base, Grid(panels, opt.Cols), 7.5*vg.Centimeter, 7.5*vg.Centimeter, w); err != nil {
			return err
		}
	}
	return nil
}

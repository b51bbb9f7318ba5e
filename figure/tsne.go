package figure

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/tsne"
)

// MapScores are the numbers printed beside a t-SNE panel, which do not
// depend on the picture: the silhouette of the embedding itself (its own
// space, the classes as clusters) and the leave-one-out kNN accuracy of
// the classes in the 2-D map (k = 10).
type MapScores struct {
	Silhouette, KNNAccuracy float64
}

// mapK is the neighbourhood of MapScores.KNNAccuracy.
const mapK = 10

// TSNEPanel maps the labelled nodes of an embedding to 2-D with t-SNE
// (cfg, deterministic for its seed) and draws them coloured by class.
func TSNEPanel(e *record.EmbeddingFile, cfg tsne.Config) (*plot.Plot, MapScores, error) {
	var x [][]float64
	var labels []int
	for i := 0; i < e.Rows; i++ {
		if e.Labels[i] < 0 {
			continue
		}
		row := make([]float64, e.Cols)
		for j, v := range e.Data[i*e.Cols : (i+1)*e.Cols] {
			row[j] = float64(v)
		}
		x, labels = append(x, row), append(labels, int(e.Labels[i]))
	}
	var s MapScores
	y, err := tsne.Embed(x, cfg)
	if err != nil {
		return nil, s, err
	}
	if s.Silhouette, err = tsne.Silhouette(x, labels); err != nil {
		return nil, s, err
	}
	if s.KNNAccuracy, err = tsne.KNNAccuracy(y, labels, mapK); err != nil {
		return nil, s, err
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s on %s\nsilhouette %.3f, %d-NN acc. in map %.3f", e.Model, e.Dataset, s.Silhouette, mapK, s.KNNAccuracy)
	p.HideAxes()
	classes := 0
	for _, l := range labels {
		classes = max(classes, l+1)
	}
	for c := 0; c < classes; c++ {
		var pts plotter.XYs
		for i, l := range labels {
			if l == c {
				pts = append(pts, plotter.XY{X: y[i][0], Y: y[i][1]})
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, s, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: colour(c), Radius: vg.Points(1.1), Shape: draw.CircleGlyph{}}
		p.Add(sc)
	}
	return p, s, nil
}

// Grid lays panels out in rows of at most cols.
func Grid(panels []*plot.Plot, cols int) [][]*plot.Plot {
	var rows [][]*plot.Plot
	for i := 0; i < len(panels); i += cols {
		rows = append(rows, panels[i:min(i+cols, len(panels))])
	}
	return rows
}

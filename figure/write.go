package figure

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/prcaps/prcaps/internal/atomicfile"
)

// Formats are the image formats a figure is written in.
var Formats = []string{"png", "svg"}

// Write draws the panels (rows of plots side by side; a nil plot leaves
// its cell empty), each cell cellW × cellH, to w as format "png" or "svg".
func Write(w io.Writer, format string, panels [][]*plot.Plot, cellW, cellH vg.Length) error {
	cols := 0
	for _, row := range panels {
		cols = max(cols, len(row))
	}
	if len(panels) == 0 || cols == 0 {
		return fmt.Errorf("figure: no panels")
	}
	// Every figure passes here: an axis whose range is not finite and
	// within ±maxDrawable (values from a hand-written or corrupt file) is
	// an error before drawing, whose tick loop would never end on it.
	for _, row := range panels {
		for _, p := range row {
			if p == nil {
				continue
			}
			for _, ax := range []struct {
				name   string
				lo, hi float64
			}{{"x", p.X.Min, p.X.Max}, {"y", p.Y.Min, p.Y.Max}} {
				if ax.lo > ax.hi { // no data: the plot draws [0, 1]
					continue
				}
				if !(math.Abs(ax.lo) <= maxDrawable && math.Abs(ax.hi) <= maxDrawable && ax.hi-ax.lo <= maxDrawable) {
					return fmt.Errorf("figure %q: its %s axis runs from %g to %g; values must lie within ±%g to be drawn",
						p.Title.Text, ax.name, ax.lo, ax.hi, maxDrawable)
				}
			}
		}
	}
	width, height := cellW*vg.Length(cols), cellH*vg.Length(len(panels))
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(96))}
	case "svg":
		c = vgsvg.New(width, height)
	default:
		return fmt.Errorf("figure: unknown format %q (want png or svg)", format)
	}
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: len(panels), Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	grid := make([][]*plot.Plot, len(panels))
	for i, row := range panels {
		grid[i] = make([]*plot.Plot, cols)
		copy(grid[i], row)
	}
	canvases := plot.Align(grid, tiles, dc)
	for i, row := range grid {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	_, err := c.WriteTo(w)
	return err
}

// Save writes the panels to base.png and base.svg (Formats), each file
// whole or not at all, and returns the paths written.
func Save(base string, panels [][]*plot.Plot, cellW, cellH vg.Length) ([]string, error) {
	var paths []string
	for _, format := range Formats {
		path := base + "." + format
		f, err := atomicfile.Create(path)
		if err != nil {
			return paths, fmt.Errorf("figure: %w", err)
		}
		if err := Write(f, format, panels, cellW, cellH); err != nil {
			f.Abort()
			return paths, fmt.Errorf("figure %s: %w", path, err)
		}
		if err := f.Commit(); err != nil {
			return paths, fmt.Errorf("figure %s: %w", path, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// Base is the output base name for an input file in dir with a suffix:
// dir/<input name without extension>-suffix.
func Base(dir, input, suffix string) string {
	name := strings.TrimSuffix(filepath.Base(input), filepath.Ext(input))
	return filepath.Join(dir, name+"-"+suffix)
}

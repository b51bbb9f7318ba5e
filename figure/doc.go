// Package figure draws the project's figures from saved results, never by
// training: training curves and learned curvatures from the JSON lines of
// `prcaps train --curves`, with mean ± std bands over the runs and the
// selected epoch marked. Figures are written as PNG and SVG with
// gonum/plot, each file whole or not at all. Files is `prcaps plot`: it
// recognises each results file by its content and draws its figures.
package figure

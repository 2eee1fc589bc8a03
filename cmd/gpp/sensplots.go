package main

// gpp sensitivity --plots: priorsense's powerscale_plot_dens, the density
// of the most sensitive elements' draws and of the draws power-scaled by
// the plot's α in the prior and in the likelihood.

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/gpplang/gpp/infer/sgvb"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// sensPlotFile is the figure --plots writes.
const sensPlotFile = "sensitivity.png"

// sensPlotElems is how many elements the figure shows at most.
const sensPlotElems = 6

// sensPlotAlphas are the powers of the figure's curves, priorsense's plot
// defaults: far enough from 1 for the change to be seen.
var sensPlotAlphas = [2]float64{0.8, 1.25}

// sensPlotGrid is the number of points each density is drawn at.
const sensPlotGrid = 200

// sensPlotChoice returns the indices of the rows to draw: the
// sensPlotElems of largest max(prior, likelihood) sensitivity, ties in
// table order; a row whose sensitivities are NaN (a non-finite draw) is
// left out.
func sensPlotChoice(rows []sensRow) []int {
	var idx []int
	for i, r := range rows {
		if !math.IsNaN(r.prior) && !math.IsNaN(r.lik) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ma, mb := max(rows[a].prior, rows[a].lik), max(rows[b].prior, rows[b].lik)
		switch {
		case ma > mb:
			return -1
		case ma < mb:
			return 1
		}
		return 0
	})
	return idx[:min(len(idx), sensPlotElems)]
}

// sensCurve is one power-scaled reweighting of the draws: its weights
// (with the base's), the Pareto k̂ of their smoothing and its legend.
type sensCurve struct {
	w     []float64
	k     float64
	alpha float64
}

// writeSensitivityPlots writes dir/sensitivity.png, atomically: a column
// per chosen element (sensPlotChoice), the prior power-scaled in the top
// row, the likelihood in the bottom one.
func writeSensitivityPlots(dir string, b *sensBase, rows []sensRow) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cols := sensElemCols(b)
	return writeAtomic(filepath.Join(dir, sensPlotFile), func(w io.Writer) error {
		return plotSensitivity(w, b, rows, cols)
	})
}

// sensElemCols are the draws of every element, in the table's order.
func sensElemCols(b *sensBase) [][]float64 {
	var cols [][]float64
	for _, v := range b.ds.vars {
		for j := range v.elems {
			cols = append(cols, b.ds.cols[v.first+j])
		}
	}
	return cols
}

// sensPlotCurves are the weights of the figure's curves: for the prior and
// then the likelihood, one per sensPlotAlphas, from powerScaleWeights as
// the table's.
func sensPlotCurves(b *sensBase) [2][2]sensCurve {
	var out [2][2]sensCurve
	for p, comp := range [][]float64{b.lprior, b.llik} {
		for j, alpha := range sensPlotAlphas {
			w, k := powerScaleWeights(comp, alpha, b.lwBase)
			out[p][j] = sensCurve{w: w, k: k, alpha: alpha}
		}
	}
	return out
}

// plotSensitivity draws the figure to w (sensPanels).
func plotSensitivity(w io.Writer, b *sensBase, rows []sensRow, cols [][]float64) error {
	plots, head, err := sensPanels(b, rows, cols)
	if err != nil {
		return err
	}
	n := 1
	if len(plots) > 0 {
		n = len(plots[0])
	}
	return writeTiles(w, plots, vg.Length(n)*7*vg.Centimeter, 2*7*vg.Centimeter+vg.Centimeter, head)
}

// sensPanels are the figure's panels, the prior's row then the
// likelihood's, a column per element of sensPlotChoice, and its title: in
// each panel the density of the base draws and of the draws power-scaled
// by each of sensPlotAlphas. A curve whose k̂ is above the threshold for
// the draws (or NaN) is dashed: its weights are unreliable.
func sensPanels(b *sensBase, rows []sensRow, cols [][]float64) ([][]*plot.Plot, string, error) {
	choice := sensPlotChoice(rows)
	kt := sgvb.PowerScaleKThreshold(len(b.lprior))
	if len(choice) == 0 {
		return nil, "power-scaling sensitivity: no element has finite draws to draw", nil
	}
	curves := sensPlotCurves(b)
	base := baseWeights(b)
	plots := [][]*plot.Plot{make([]*plot.Plot, len(choice)), make([]*plot.Plot, len(choice))}
	part := [2]string{"prior", "likelihood"}
	colours := [2]color.Color{color.RGBA{R: 0xd9, G: 0x5f, B: 0x02, A: 0xff}, color.RGBA{R: 0x1b, G: 0x9e, B: 0x77, A: 0xff}}
	for c, i := range choice {
		x := cols[i]
		lo, hi, h := sensPlotRange(x)
		for p := range 2 {
			pl := plot.New()
			pl.Title.Text = fmt.Sprintf("%s: %s %s", rows[i].name, part[p], sensNum([2]float64{rows[i].prior, rows[i].lik}[p]))
			pl.X.Label.Text = rows[i].name
			if c == 0 {
				pl.Y.Label.Text = "density, " + part[p] + " power-scaled"
			}
			pl.Add(plotter.NewGrid())
			if err := addDensity(pl, x, base, lo, hi, h, color.Black, false, "base"); err != nil {
				return nil, "", err
			}
			for j, cv := range curves[p] {
				unreliable := !(cv.k <= kt)
				label := fmt.Sprintf("α = %g (k̂ %s)", cv.alpha, kText(cv.k))
				if unreliable {
					label += ", unreliable"
				}
				if err := addDensity(pl, x, cv.w, lo, hi, h, colours[j], unreliable, label); err != nil {
					return nil, "", err
				}
			}
			pl.Legend.Top = true
			pl.Legend.TextStyle.Font.Size = vg.Points(7)
			plots[p][c] = pl
		}
	}
	head := fmt.Sprintf("power-scaling sensitivity: %d most sensitive elements, power-scaled by α = %g and %g (dashed: Pareto k̂ above %s)",
		len(choice), sensPlotAlphas[0], sensPlotAlphas[1], num3(kt))
	return plots, head, nil
}

// sensPlotRange is the x range of an element's densities and their
// bandwidth: its draws' range widened by three bandwidths; an element
// whose draws are all equal gets a unit-wide (or |x|-wide) range.
func sensPlotRange(x []float64) (lo, hi, h float64) {
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	h = silverman(sorted)
	lo, hi = sorted[0]-3*h, sorted[len(sorted)-1]+3*h
	if !(hi > lo) {
		lo, hi = lo-0.5, hi+0.5
	}
	return lo, hi, h
}

// addDensity adds the density of the draws x under weights w (nil:
// equal) on [lo, hi] with bandwidth h as a line, dashed if dashed, to p
// and its legend; weights with no positive finite one add no line.
func addDensity(p *plot.Plot, x, w []float64, lo, hi, h float64, c color.Color, dashed bool, label string) error {
	dens := make([]float64, sensPlotGrid)
	weightedKDE(dens, lo, hi, x, w, h)
	xy := make(plotter.XYs, sensPlotGrid)
	any := false
	for i, d := range dens {
		xy[i].X = lo + float64(i)*(hi-lo)/float64(sensPlotGrid-1)
		xy[i].Y = d
		any = any || d > 0
	}
	if !any {
		return nil
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		return err
	}
	l.Color = c
	l.Width = vg.Points(1.2)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(l)
	p.Legend.Add(label, l)
	return nil
}

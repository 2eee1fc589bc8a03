package main

// gpp compare --plot FILE: the comparison as ArviZ's plot_compare draws
// it. A row per fit, best at the top: elpd_loo with its standard error
// (a filled circle and a bar), the in-sample lpd = elpd_loo + p_loo (an
// open circle: how much the fit's own data flatter it), and for each fit
// below the best its elpd_loo again with the standard error of its
// difference from the best (a triangle and a grey bar, just under the
// row), beside a dashed line at the best's elpd_loo: a fit whose grey bar
// reaches the line is not clearly worse.

import (
	"image/color"
	"io"
	"math"

	"github.com/gpplang/gpp/internal/figure"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Layout of the comparison plot: a row's height and the room for the
// axis, title and legend.
const (
	compareRowHt  = 1.2 * vg.Centimeter
	compareBaseHt = 3.5 * vg.Centimeter
)

// writeComparisonPlot writes the plot of the ranked fits to path (a PNG),
// atomically.
func writeComparisonPlot(path string, ranks []looRank) error {
	return writeAtomic(path, func(w io.Writer) error { return plotComparison(w, ranks) })
}

// plotComparison draws the ranked fits (compareplot.go's header).
func plotComparison(w io.Writer, ranks []looRank) error {
	p := plot.New()
	title, elpdName, _ := comparedEstimate(ranks)
	p.Title.Text = title + " comparison: " + elpdName + " ± se, best at the top"
	p.X.Label.Text = "elpd (log score; higher is better)"
	n := len(ranks)
	var ticks []plot.Tick
	var points, lpds, diffs plotter.XYs
	bars := func(xy plotter.XYs, lo, hi []float64, c color.Color, width vg.Length) error {
		for i := range xy {
			if math.IsNaN(lo[i]) || math.IsNaN(hi[i]) {
				continue
			}
			l, err := plotter.NewLine(plotter.XYs{{X: lo[i], Y: xy[i].Y}, {X: hi[i], Y: xy[i].Y}})
			if err != nil {
				return err
			}
			l.Color, l.Width = c, width
			p.Add(l)
		}
		return nil
	}
	var seLo, seHi, dLo, dHi []float64
	for i, r := range ranks {
		y := float64(n - 1 - i)
		ticks = append(ticks, plot.Tick{Value: y, Label: r.fit.label})
		if !isFinite(r.elpd) {
			continue
		}
		points = append(points, plotter.XY{X: r.elpd, Y: y})
		seLo, seHi = append(seLo, r.elpd-r.se), append(seHi, r.elpd+r.se)
		if isFinite(r.p) {
			lpds = append(lpds, plotter.XY{X: r.elpd + r.p, Y: y})
		}
		if i > 0 && isFinite(r.seDiff) { // NaN: another task's (unrankTasks)
			diffs = append(diffs, plotter.XY{X: r.elpd, Y: y - 0.25})
			dLo, dHi = append(dLo, r.elpd-r.seDiff), append(dHi, r.elpd+r.seDiff)
		}
	}
	grey := color.Gray{Y: 0x80}
	if err := bars(points, seLo, seHi, color.Black, vg.Points(1.5)); err != nil {
		return err
	}
	if err := bars(diffs, dLo, dHi, grey, vg.Points(1.5)); err != nil {
		return err
	}
	if isFinite(ranks[0].elpd) {
		best, err := plotter.NewLine(plotter.XYs{{X: ranks[0].elpd, Y: -0.6}, {X: ranks[0].elpd, Y: float64(n) - 0.4}})
		if err != nil {
			return err
		}
		best.Color, best.Dashes = grey, []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(best)
	}
	for _, s := range []struct {
		xy    plotter.XYs
		shape draw.GlyphDrawer
		c     color.Color
		label string
	}{
		{points, draw.CircleGlyph{}, color.Black, elpdName + " ± se"},
		{lpds, draw.RingGlyph{}, color.Black, "in-sample lpd"},
		{diffs, draw.TriangleGlyph{}, grey, "elpd_diff ± se_diff"},
	} {
		if len(s.xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.xy)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Shape: s.shape, Color: s.c, Radius: vg.Points(4)}
		p.Add(sc)
		p.Legend.Add(s.label, sc)
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	height := compareBaseHt + vg.Length(n)*compareRowHt
	cv := figure.LegendRight(p, plotWidth, height, 4.2*vg.Centimeter, plotDPI, 2*vg.Millimeter)
	_, err := vgimg.PngCanvas{Canvas: cv}.WriteTo(w)
	return err
}

// isFinite reports whether v is a number and not infinite.
func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

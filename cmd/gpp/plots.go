package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/figure"
	"github.com/gpplang/gpp/internal/textenc"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// outputFile is one output file, rendered on demand into an atomic file.
type outputFile struct {
	name   string
	render func(w io.Writer) error
}

// Plot sizes.
const (
	plotWidth  = 16 * vg.Centimeter
	plotHeight = 11 * vg.Centimeter
	plotDPI    = 120
)

// plotFiles lists the plots of a fit: elbo.png, intervals.png (the forest
// plot of the params' draws, intervals.go), NAME_mean.png for every
// matrix latent (with restarts: the traces of all, and the mixture's means),
// and the predictive checks ppc_y.png and ppc_stat_y.png of every data y
// that a replicate mirrors (ppc.go), with the LOO-PIT check loo_pit_y.png of
// those that log_lik has a term per element of (loopit.go). Prior draws and
// predictions have the checks alone.
func plotFiles(h drawsHeader, ds *drawSet) []outputFile {
	switch {
	case h.cfg.prior:
		return append([]outputFile{priorIntervalsFile(ds)}, ppcFiles(h.cfg.ppc, ds, "prior predictive check")...)
	case h.cfg.predict != "":
		return ppcFiles(h.cfg.ppc, ds, "posterior predictive check on new data")
	}
	r := h.r
	batch := ""
	if h.cfg.settings.Minibatch != nil {
		batch = fmt.Sprintf("minibatches of %d of %d rows", h.cfg.batchRows, h.cfg.batchN)
	}
	out := []outputFile{{elboPlot, func(w io.Writer) error { return plotELBO(w, r, batch) }}, fitIntervalsFile(h, ds)}
	var means []float64
	if h.mix != nil {
		out[0].render = func(w io.Writer) error { return plotELBOs(w, h.mix) }
		means = h.mix.Mean()
	}
	for _, v := range ds.vars {
		if v.output || len(v.shape) != 2 || v.corrK > 0 { // a factor's (or correlation matrix's) coordinates are no matrix
			continue
		}
		f := r.Factors[v.index]
		mean, what := f.Mean(), f.Family.String()
		if means != nil {
			mean, what = means[f.Offset:f.Offset+f.Size], fmt.Sprintf("mixture of %d %s restarts", len(h.mix.Components), f.Family)
		}
		var rowLabels, colLabels []string // the axes' labels, as the tables name the elements
		if v.axes != nil {
			rowLabels, colLabels = v.axes[0], v.axes[1]
		}
		out = append(out, outputFile{meanPlotName(v.name), func(w io.Writer) error {
			return plotHeatmap(w, fmt.Sprintf("posterior mean of %s (%s)", f.Name, what), indexTicks{n: f.Shape[0], labels: rowLabels}, indexTicks{n: f.Shape[1], labels: colLabels}, mean)
		}})
	}
	out = append(out, ppcFiles(h.cfg.ppc, ds, "posterior predictive check")...)
	return append(out, pitFiles(h.cfg.ppc, ds, h.cfg.settings.Seed, "SGVB")...)
}

// meanPlotName names the heatmap of a matrix latent's posterior mean.
func meanPlotName(latent string) string { return latent + "_mean.png" }

// plotELBOs draws the ELBO traces of restarts, one line each, with the
// legend in a strip to the right. The y axis starts at the lowest ELBO
// after the first tenth of the iterations, where the restarts differ.
func plotELBOs(w io.Writer, m *sgvb.Mixture) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("ELBO of %d restarts (their mixture: %.6g)", len(m.Components), m.ELBO)
	p.Y.Label.Text = "ELBO"
	p.X.Label.Text = "iteration"
	p.Add(plotter.NewGrid())
	cols := palette.Rainbow(len(m.Components), palette.Red, palette.Magenta, 0.8, 0.75, 1).Colors()
	last, ymin, ymax := 0, math.Inf(1), math.Inf(-1)
	for _, c := range m.Components {
		last = max(last, c.Iterations)
	}
	for i, c := range m.Components {
		var line plotter.XYs
		for _, t := range c.Trace {
			if math.IsNaN(t.ELBO) || math.IsInf(t.ELBO, 0) {
				continue
			}
			line = append(line, plotter.XY{X: float64(t.Iter), Y: t.ELBO})
			if 10*t.Iter >= last {
				ymin, ymax = math.Min(ymin, t.ELBO), math.Max(ymax, t.ELBO)
			}
		}
		if len(line) == 0 {
			continue
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return err
		}
		l.Color = cols[i]
		l.Width = vg.Points(1)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("restart %d", i), l)
	}
	if ymin < ymax {
		pad := 0.05 * (ymax - ymin)
		p.Y.Min, p.Y.Max = ymin-pad, ymax+pad
	}
	c := figure.LegendRight(p, plotWidth, plotHeight, 2.6*vg.Centimeter, plotDPI, 2*vg.Millimeter)
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// plotELBO draws the ELBO trace with a band of ±2 standard errors (for
// MAP: the log joint per L-BFGS iteration). For a minibatch fit (batch
// says of what) the trace is of the batches' estimates, and the final
// full-data ELBO is drawn across as a dashed line.
func plotELBO(w io.Writer, r *sgvb.Result, batch string) error {
	p := plot.New()
	p.Title.Text = "ELBO"
	p.Y.Label.Text = "ELBO (± 2 SE)"
	if batch != "" {
		p.Title.Text = fmt.Sprintf("ELBO on %s; dashed: full-data ELBO %.6g", batch, r.ELBO)
		p.Y.Label.Text = "batch ELBO estimate (± 2 SE)"
	}
	if r.Method == sgvb.MAP {
		p.Title.Text = "log joint (MAP)"
		p.Y.Label.Text = "log joint"
	}
	if r.Method == sgvb.Pathfinder {
		p.Title.Text = "ELBO estimate of each iterate's normal (Pathfinder)"
		p.Y.Label.Text = "ELBO estimate (± 2 SE)"
	}
	if r.Method == sgvb.Laplace {
		p.Title.Text = "log density (Laplace's mode search)"
		p.Y.Label.Text = "log density (unconstrained, with the Jacobian)"
	}
	p.X.Label.Text = "iteration"
	p.Add(plotter.NewGrid())
	var line, upper, lower plotter.XYs
	for _, t := range r.Trace {
		if math.IsNaN(t.ELBO) || math.IsInf(t.ELBO, 0) {
			continue
		}
		se := t.SE
		if math.IsNaN(se) || math.IsInf(se, 0) {
			se = 0
		}
		x := float64(t.Iter)
		line = append(line, plotter.XY{X: x, Y: t.ELBO})
		upper = append(upper, plotter.XY{X: x, Y: t.ELBO + 2*se})
		lower = append(lower, plotter.XY{X: x, Y: t.ELBO - 2*se})
	}
	if len(line) > 0 {
		poly, err := bandPolygon(upper, lower, color.RGBA{R: 160, G: 190, B: 230, A: 255})
		if err != nil {
			return err
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return err
		}
		l.Color = color.RGBA{R: 20, G: 60, B: 160, A: 255}
		l.Width = vg.Points(1.2)
		p.Add(poly, l)
		if batch != "" && !math.IsNaN(r.ELBO) && !math.IsInf(r.ELBO, 0) {
			full, err := plotter.NewLine(plotter.XYs{{X: line[0].X, Y: r.ELBO}, {X: line[len(line)-1].X, Y: r.ELBO}})
			if err != nil {
				return err
			}
			full.Color, full.Width, full.Dashes = color.RGBA{R: 200, G: 60, B: 20, A: 255}, vg.Points(1), []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(full)
		}
	}
	c := vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(plotDPI))
	p.Draw(draw.New(c))
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// matrixGrid is a row-major matrix as a heat map grid: column c at x = c+1
// and row r at y = r+1, the y axis inverted so that row 0 is at the top.
type matrixGrid struct {
	rows, cols int
	v          []float64
}

func (g matrixGrid) Dims() (c, r int)   { return g.cols, g.rows }
func (g matrixGrid) Z(c, r int) float64 { return g.v[r*g.cols+c] }
func (g matrixGrid) X(c int) float64    { return float64(c + 1) }
func (g matrixGrid) Y(r int) float64    { return float64(r + 1) }

// indexTicks marks the n rows or columns of a matrixGrid (at positions 1
// to n) by the language's 0-based indices, as the tables name the
// elements, or by labels where the axis has them (n of them, elemName's),
// thinned to about ten marks.
type indexTicks struct {
	n      int
	labels []string
}

func (t indexTicks) Ticks(min, max float64) []plot.Tick {
	step := 1
	for t.n/step > 10 {
		switch {
		case step%10 == 1 || step == 1:
			step *= 2
		case step%10 == 2 || step == 2:
			step = step / 2 * 5
		default:
			step *= 2
		}
	}
	var ticks []plot.Tick
	for i := range t.n {
		label := ""
		if i%step == 0 {
			label = t.label(i)
		}
		ticks = append(ticks, plot.Tick{Value: float64(i + 1), Label: label})
	}
	return ticks
}

// label names index i of the axis: its label, or i.
func (t indexTicks) label(i int) string {
	if len(t.labels) == t.n {
		return textenc.QuoteLabel(t.labels[i])
	}
	return strconv.Itoa(i)
}

// plotHeatmap draws a rows×cols row-major matrix (rowTicks.n by
// colTicks.n, which mark them) as a heat map with a colour bar: a
// sequential palette for non-negative values, a diverging one centred on 0
// otherwise.
func plotHeatmap(w io.Writer, title string, rowTicks, colTicks indexTicks, v []float64) error {
	rows, cols := rowTicks.n, colTicks.n
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	if lo > hi {
		lo, hi = 0, 1
	}
	var cm palette.ColorMap
	if lo >= 0 {
		cm = sequentialBlues()
		lo = 0
	} else {
		cm = moreland.SmoothBlueRed()
		m := math.Max(-lo, hi)
		lo, hi = -m, m
	}
	if hi <= lo {
		hi = lo + 1
	}
	cm.SetMin(lo)
	cm.SetMax(hi)
	hm := plotter.NewHeatMap(matrixGrid{rows, cols, v}, cm.Palette(255))
	hm.Min, hm.Max = lo, hi
	hm.NaN = color.RGBA{R: 128, G: 128, B: 128, A: 255}

	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "column"
	p.Y.Label.Text = "row"
	p.Y.Scale = plot.InvertedScale{Normalizer: plot.LinearScale{}}
	p.X.Tick.Marker = colTicks
	p.Y.Tick.Marker = rowTicks
	p.X.Padding, p.Y.Padding = 0, 0
	p.Add(hm)
	p.X.Min, p.X.Max = 0.5, float64(cols)+0.5
	p.Y.Min, p.Y.Max = 0.5, float64(rows)+0.5

	bar := plot.New()
	bar.HideX()
	bar.Y.Padding = 0
	bar.Title.Text = " "
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})

	c := vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(plotDPI))
	dc := draw.New(c)
	barWidth := 2.2 * vg.Centimeter
	p.Draw(draw.Crop(dc, 0, -barWidth-0.4*vg.Centimeter, 0, 0))
	bar.Draw(draw.Crop(dc, plotWidth-barWidth, 0, 0, 0))
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// sequentialBlues is a white-to-navy colour map of monotone luminance (the
// colours of ColorBrewer's Blues), zero drawn white as loadings pictures
// usually are.
func sequentialBlues() palette.ColorMap {
	cm, err := moreland.NewLuminance([]color.Color{
		color.NRGBA{R: 8, G: 48, B: 107, A: 255},
		color.NRGBA{R: 33, G: 113, B: 181, A: 255},
		color.NRGBA{R: 107, G: 174, B: 214, A: 255},
		color.NRGBA{R: 198, G: 219, B: 239, A: 255},
		color.NRGBA{R: 255, G: 255, B: 255, A: 255},
	})
	if err != nil {
		panic("gpp: bad colour map: " + err.Error()) // the controls are constants
	}
	return palette.Reverse(cm)
}

// bandPolygon returns the filled region between the curves upper and
// lower (the same x's, left to right) in colour c, without an outline: a
// band around a line or a histogram.
func bandPolygon(upper, lower plotter.XYs, c color.Color) (*plotter.Polygon, error) {
	band := append(plotter.XYs{}, upper...)
	for i := len(lower) - 1; i >= 0; i-- {
		band = append(band, lower[i])
	}
	poly, err := plotter.NewPolygon(band)
	if err != nil {
		return nil, err
	}
	poly.Color = c
	poly.LineStyle.Width = 0
	return poly, nil
}

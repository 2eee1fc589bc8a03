package epm

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"github.com/gpplang/gpp/internal/figure"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Plot geometry.
const (
	plotWidth  = 16 * vg.Centimeter
	plotHeight = 11 * vg.Centimeter
	plotDPI    = 120
)

// methodColors are the line colours of the methods (Okabe–Ito).
var methodColors = []color.RGBA{
	{0, 114, 178, 255},   // blue
	{213, 94, 0, 255},    // vermillion
	{0, 158, 115, 255},   // green
	{204, 121, 167, 255}, // purple
	{86, 180, 233, 255},  // sky blue
	{230, 159, 0, 255},   // orange
	{0, 0, 0, 255},       // black
}

func savePNG(p *plot.Plot, path string) error {
	c := vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(plotDPI))
	p.Draw(draw.New(c))
	return figure.WritePNG(c, path)
}

// legendWidth is the strip right of the axes that savePNGLegendRight
// gives the legend.
const legendWidth = 4.5 * vg.Centimeter

// savePNGLegendRight is savePNG with the legend in a strip right of the
// axes instead of inside them, where it would hide the lines.
func savePNGLegendRight(p *plot.Plot, path string) error {
	return figure.WritePNG(figure.LegendRight(p, plotWidth, plotHeight, legendWidth, plotDPI, 3*vg.Millimeter), path)
}

// errPoints are points with symmetric y errors.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// plotMetricVsK draws a metric's mean ± sd over splits against K, one line
// per method, Katz (no K) as a horizontal line with a ±sd band.
func plotMetricVsK(path, title, ylabel string, sum []Summary, metric func(Summary) (float64, float64)) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "K (truncation level)"
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	var ks []int
	seen := map[int]bool{}
	var methods []Method
	seenM := map[Method]bool{}
	for _, s := range sum {
		if s.K > 0 && !seen[s.K] {
			seen[s.K] = true
			ks = append(ks, s.K)
		}
		if !seenM[s.Method] {
			seenM[s.Method] = true
			methods = append(methods, s.Method)
		}
	}
	sort.Ints(ks)
	if len(ks) == 0 {
		ks = []int{1}
	}
	xmin, xmax := float64(ks[0])-2, float64(ks[len(ks)-1])+2
	for mi, m := range methods {
		col := methodColors[mi%len(methodColors)]
		if m == KatzIndex {
			for _, s := range sum {
				if s.Method != m {
					continue
				}
				mean, sd := metric(s)
				if math.IsNaN(mean) {
					continue
				}
				if math.IsNaN(sd) {
					sd = 0
				}
				band, err := plotter.NewPolygon(plotter.XYs{{X: xmin, Y: mean - sd}, {X: xmax, Y: mean - sd}, {X: xmax, Y: mean + sd}, {X: xmin, Y: mean + sd}})
				if err != nil {
					return err
				}
				band.Color = color.NRGBA{200, 200, 200, 120} // not RGBA: its channels are premultiplied
				band.LineStyle.Width = 0
				l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: mean}, {X: xmax, Y: mean}})
				if err != nil {
					return err
				}
				l.Color = color.Black
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
				p.Add(band, l)
				p.Legend.Add(fmt.Sprintf("%s (no K)", m), l)
			}
			continue
		}
		var pts errPoints
		off := (float64(mi) - float64(len(methods)-1)/2) * 0.35 // dodge overlapping bars
		for _, s := range sum {
			if s.Method != m {
				continue
			}
			mean, sd := metric(s)
			if math.IsNaN(mean) {
				continue
			}
			if math.IsNaN(sd) {
				sd = 0
			}
			pts.XYs = append(pts.XYs, plotter.XY{X: float64(s.K) + off, Y: mean})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{sd, sd})
		}
		if len(pts.XYs) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts.XYs)
		if err != nil {
			return err
		}
		l.Color, sc.Color = col, col
		l.Width = vg.Points(1.3)
		sc.Shape = draw.CircleGlyph{}
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return err
		}
		eb.Color = col
		p.Add(l, sc, eb)
		p.Legend.Add(string(m), l, sc)
	}
	p.X.Min, p.X.Max = xmin, xmax
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, s := range sum {
		mean, sd := metric(s)
		if math.IsNaN(mean) {
			continue
		}
		if math.IsNaN(sd) {
			sd = 0
		}
		ylo, yhi = math.Min(ylo, mean-sd), math.Max(yhi, mean+sd)
	}
	if yhi > ylo {
		pad := 0.05 * (yhi - ylo)
		p.Y.Min, p.Y.Max = math.Max(0, ylo-pad), math.Min(1, yhi+pad)
	}
	ticks := make([]plot.Tick, len(ks))
	for i, k := range ks {
		ticks[i] = plot.Tick{Value: float64(k), Label: fmt.Sprint(k)}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	return savePNGLegendRight(p, path)
}

// traceLine is one ELBO trace for plotTraces.
type traceLine struct {
	name string
	xy   plotter.XYs
}

// plotTraces draws ELBO traces against the iteration; the y axis starts at
// floorQ, the given quantile of all trace values, so that a diverging
// optimizer does not squash the others.
func plotTraces(path, title string, lines []traceLine, lowQuantile float64) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "iteration"
	p.Y.Label.Text = "ELBO (mean over seeds)"
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YPosition = draw.PosBottom
	var all []float64
	for i, tl := range lines {
		var xy plotter.XYs
		for _, v := range tl.xy {
			if !math.IsNaN(v.Y) && !math.IsInf(v.Y, 0) {
				xy = append(xy, v)
				all = append(all, v.Y)
			}
		}
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		l.Color = methodColors[i%len(methodColors)]
		l.Width = vg.Points(1.3)
		if i >= len(methodColors) {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l)
		p.Legend.Add(tl.name, l)
	}
	if len(all) > 0 {
		sort.Float64s(all)
		lo := all[int(lowQuantile*float64(len(all)-1))]
		hi := all[len(all)-1]
		p.Y.Min, p.Y.Max = lo, hi+0.02*(hi-lo)
	}
	return savePNG(p, path)
}

// gridXYZ is a heat-map grid: z[r][c] at column c, row r.
type gridXYZ struct {
	z [][]float64
}

func (g gridXYZ) Dims() (c, r int)   { return len(g.z[0]), len(g.z) }
func (g gridXYZ) Z(c, r int) float64 { return g.z[r][c] }
func (g gridXYZ) X(c int) float64    { return float64(c) }
func (g gridXYZ) Y(r int) float64    { return float64(r) }

// plotHeat draws a labelled heat map of z (rows × columns) with the value
// printed in each cell.
func plotHeat(path, title, xlabel, ylabel string, xticks, yticks []string, z [][]float64) error {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range z {
		for _, v := range row {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if !(hi > lo) {
		lo, hi = lo-1, lo+1
	}
	cm := moreland.ExtendedKindlmann()
	cm.SetMin(lo)
	cm.SetMax(hi)
	hm := plotter.NewHeatMap(gridXYZ{z}, cm.Palette(255))
	hm.Min, hm.Max = lo, hi
	hm.NaN = color.RGBA{128, 128, 128, 255}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(hm)
	var labels plotter.XYLabels
	for r, row := range z {
		for c, v := range row {
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(c), Y: float64(r)})
			labels.Labels = append(labels.Labels, fmt.Sprintf("%.0f", v))
		}
	}
	lb, err := plotter.NewLabels(labels)
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Color = color.White
		lb.TextStyle[i].XAlign = draw.XCenter
		lb.TextStyle[i].YAlign = draw.YCenter
		r, c := i/len(z[0]), i%len(z[0])
		if v := z[r][c]; !math.IsNaN(v) && (v-lo)/(hi-lo) > 0.6 {
			lb.TextStyle[i].Color = color.Black
		}
	}
	p.Add(lb)
	tick := func(names []string) plot.ConstantTicks {
		t := make([]plot.Tick, len(names))
		for i, n := range names {
			t[i] = plot.Tick{Value: float64(i), Label: n}
		}
		return t
	}
	p.X.Tick.Marker = tick(xticks)
	p.Y.Tick.Marker = tick(yticks)
	p.X.Min, p.X.Max = -0.5, float64(len(xticks))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(yticks))-0.5
	return savePNG(p, path)
}

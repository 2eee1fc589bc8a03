package main

// gpp sbc --plots: a rank histogram per param, a panel per element, with
// the band that 99 % of a uniform bin's counts fall in (Talts et al. 2018,
// figure 2's grey band).

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// maxRankPanels bounds the panels of one param's rank plot: the first
// elements, the others in summary.csv.
const maxRankPanels = 16

// sbcPlotFiles lists the rank histograms, one per param and ranked output.
func sbcPlotFiles(su *sbcSetup, res []simResult, L int) []outputFile {
	var files []outputFile
	names := sbcNames(su)
	for _, v := range su.vars {
		var elems []string
		var ranks [][]int
		for j := range v.elems {
			if j == maxRankPanels {
				break
			}
			c := v.first + j
			elems = append(elems, names[c])
			var rs []int
			for _, r := range res {
				if r.err == nil && r.ranks[c] >= 0 { // an output ranked where finite only
					rs = append(rs, r.ranks[c])
				}
			}
			ranks = append(ranks, rs)
		}
		if !slices.ContainsFunc(ranks, func(rs []int) bool { return len(rs) > 0 }) {
			continue // an output never finite: nothing to draw
		}
		title := v.name
		if len(v.elems) > maxRankPanels {
			title = fmt.Sprintf("%s (the first %d of %d elements)", v.name, maxRankPanels, len(v.elems))
		}
		files = append(files, outputFile{sbcPlotName(v.name), func(w io.Writer) error { return plotRanks(w, title, elems, ranks, L) }})
	}
	return files
}

// uniformBand returns the counts between which a bin of n uniform ranks
// holding the fraction f of the rank values falls with probability 99 %:
// the 0.5 % and 99.5 % points of Binomial(n, f).
func uniformBand(n int, f float64) (lo, hi float64) {
	b := distuv.Binomial{N: float64(n), P: f}
	lo, hi = math.NaN(), math.NaN()
	for k := 0; k <= n; k++ {
		c := b.CDF(float64(k))
		if math.IsNaN(lo) && c >= 0.005 {
			lo = float64(k)
		}
		if c >= 0.995 {
			hi = float64(k)
			break
		}
	}
	return lo, hi
}

// plotRanks draws the rank histograms of the elements named, a panel each
// on a grid, with the uniform's 99 % band per bin behind the bars.
func plotRanks(w io.Writer, title string, names []string, ranks [][]int, L int) error {
	n := len(names)
	cols := int(math.Ceil(math.Sqrt(float64(n))))
	rows := (n + cols - 1) / cols
	plots := make([][]*plot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, cols)
	}
	for e, name := range names {
		rs := ranks[e]
		b := sbcBins(len(rs), L)
		width := make([]int, b)
		for r := 0; r <= L; r++ {
			width[rankBin(r, L, b)]++
		}
		count := make([]float64, b)
		for _, r := range rs {
			count[rankBin(r, L, b)]++
		}
		p := plot.New()
		p.Title.Text = name
		if n == 1 {
			p.Title.Text = fmt.Sprintf("%s: ranks of %d simulations, 99 %% band of uniform ranks", title, len(rs))
		}
		p.X.Label.Text = "rank"
		p.Y.Label.Text = "simulations"
		var upper, lower plotter.XYs
		bins := make([]plotter.HistogramBin, b)
		lo := 0
		ymax := 0.0
		for i := range b {
			hiRank := lo + width[i] // the bin holds ranks lo..hiRank−1
			bins[i] = plotter.HistogramBin{Min: float64(lo) - 0.5, Max: float64(hiRank) - 0.5, Weight: count[i]}
			l, h := uniformBand(len(rs), float64(width[i])/float64(L+1))
			upper = append(upper, plotter.XY{X: bins[i].Min, Y: h}, plotter.XY{X: bins[i].Max, Y: h})
			lower = append(lower, plotter.XY{X: bins[i].Min, Y: l}, plotter.XY{X: bins[i].Max, Y: l})
			ymax = math.Max(ymax, math.Max(h, count[i]))
			lo = hiRank
		}
		poly, err := bandPolygon(upper, lower, color.RGBA{R: 215, G: 215, B: 215, A: 255})
		if err != nil {
			return err
		}
		h := &plotter.Histogram{Bins: bins, Width: bins[0].Max - bins[0].Min, FillColor: color.RGBA{R: 90, G: 130, B: 200, A: 200}}
		h.LineStyle = draw.LineStyle{Color: color.RGBA{R: 20, G: 60, B: 160, A: 255}, Width: vg.Points(0.5)}
		p.Add(poly, h)
		for _, edge := range []plotter.XYs{upper, lower} { // the band's edges, over the bars
			l, err := plotter.NewLine(edge)
			if err != nil {
				return err
			}
			l.Color = color.RGBA{R: 90, G: 90, B: 90, A: 255}
			l.Width = vg.Points(0.8)
			l.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
			p.Add(l)
		}
		p.X.Min, p.X.Max = -0.5, float64(L)+0.5
		p.Y.Min, p.Y.Max = 0, 1.05*ymax
		plots[e/cols][e%cols] = p
	}
	wd, ht, head := plotWidth, plotHeight, ""
	if n > 1 {
		wd, ht = vg.Length(cols)*7*vg.Centimeter, vg.Length(rows)*5*vg.Centimeter+vg.Centimeter
		head = fmt.Sprintf("%s: ranks of %d simulations, 99 %% band of uniform ranks", title, len(ranks[0]))
	}
	return writeTiles(w, plots, wd, ht, head)
}

// writeTiles draws plots, rows of equal length, as a grid of aligned
// panels (a nil one left blank) on a wd × ht canvas, under the title
// head in its top centimetre unless head is "", and writes the PNG to w.
func writeTiles(w io.Writer, plots [][]*plot.Plot, wd, ht vg.Length, head string) error {
	c := vgimg.NewWith(vgimg.UseWH(wd, ht), vgimg.UseDPI(plotDPI))
	dc := draw.New(c)
	if head != "" {
		hp := plot.New()
		hp.Title.Text = head
		hp.HideAxes()
		hp.Draw(draw.Crop(dc, 0, 0, ht-vg.Centimeter, 0))
		dc = draw.Crop(dc, 0, 0, 0, -vg.Centimeter)
	}
	if len(plots) > 0 && len(plots[0]) > 0 {
		tiles := draw.Tiles{Rows: len(plots), Cols: len(plots[0]), PadX: vg.Millimeter, PadY: vg.Millimeter}
		canvases := plot.Align(plots, tiles, dc)
		for i := range plots {
			for j, p := range plots[i] {
				if p != nil {
					p.Draw(canvases[i][j])
				}
			}
		}
	}
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

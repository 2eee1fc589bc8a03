package main

// gpp sample --plots: trace plots of the first params' elements, chain by
// chain, and fit's predictive checks (ppc.go) of the draws.

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// tracePlot is the file of the trace plots, and traceElems the most
// elements it shows (the params' first, in summary order).
const (
	tracePlot  = "trace.png"
	traceElems = 4
)

// chainColors colour the chains of a trace plot, named in its title (a
// legend would hide the traces; more chains reuse the colours).
var chainColors = []struct {
	name string
	c    color.RGBA
}{
	{"blue", color.RGBA{R: 31, G: 119, B: 180, A: 255}}, {"orange", color.RGBA{R: 255, G: 127, B: 14, A: 255}},
	{"green", color.RGBA{R: 44, G: 160, B: 44, A: 255}}, {"red", color.RGBA{R: 214, G: 39, B: 40, A: 255}},
	{"purple", color.RGBA{R: 148, G: 103, B: 189, A: 255}}, {"brown", color.RGBA{R: 140, G: 86, B: 75, A: 255}},
	{"pink", color.RGBA{R: 227, G: 119, B: 194, A: 255}}, {"grey", color.RGBA{R: 127, G: 127, B: 127, A: 255}},
}

// samplePlotFiles lists the plots of gpp sample --plots: trace.png and the
// predictive checks of every data y that a replicate mirrors.
func samplePlotFiles(cfg *fitConfig, sd *sampleDraws) []outputFile {
	out := []outputFile{{tracePlot, func(w io.Writer) error { return plotTrace(w, sd) }}}
	return append(out, ppcFiles(cfg.ppc, sd.ds, "posterior predictive check (NUTS)")...)
}

// traceElem is an element shown in the trace plot: its name and column.
type traceElem struct {
	name string
	col  int
}

// traceElements returns the first traceElems elements of the params.
func traceElements(sd *sampleDraws) []traceElem {
	var out []traceElem
	for _, v := range sd.ds.vars {
		if v.output {
			continue
		}
		for j, k := range v.elems {
			if len(out) == traceElems {
				return out
			}
			out = append(out, traceElem{elemName(v.name, v.shape, k), v.first + j})
		}
	}
	return out
}

// plotTrace draws trace.png: a panel per element (traceElements), each
// chain's draws against their number in its colour; a non-finite draw is
// left out of its line.
func plotTrace(w io.Writer, sd *sampleDraws) error {
	elems := traceElements(sd)
	plots := make([][]*plot.Plot, len(elems))
	for i, e := range elems {
		p := plot.New()
		p.Y.Label.Text = e.name
		if i == 0 {
			var names []string
			for c := range min(sd.chains, len(chainColors)) {
				names = append(names, chainColors[c].name)
			}
			p.Title.Text = fmt.Sprintf("traces of %d chain%s × %d draws after warm-up (chains %s)", sd.chains, plural(sd.chains), sd.n, strings.Join(names, ", "))
		}
		if i == len(elems)-1 {
			p.X.Label.Text = "draw"
		}
		p.Add(plotter.NewGrid())
		for c, ch := range sd.byChain(sd.ds.cols[e.col]) {
			xy := make(plotter.XYs, 0, len(ch))
			for d, v := range ch {
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					xy = append(xy, plotter.XY{X: float64(d + 1), Y: v})
				}
			}
			if len(xy) == 0 {
				continue
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return err
			}
			l.Color = chainColors[c%len(chainColors)].c
			l.Width = vg.Points(0.6)
			p.Add(l)
		}
		p.X.Min, p.X.Max = 1, float64(sd.n)
		plots[i] = []*plot.Plot{p}
	}
	ht := max(vg.Length(len(elems))*4*vg.Centimeter, 6*vg.Centimeter)
	c := vgimg.NewWith(vgimg.UseWH(plotWidth, ht), vgimg.UseDPI(plotDPI))
	dc := draw.New(c)
	if len(plots) > 0 {
		canvases := plot.Align(plots, draw.Tiles{Rows: len(plots), Cols: 1, PadX: vg.Millimeter, PadY: vg.Millimeter}, dc)
		for i := range plots {
			plots[i][0].Draw(canvases[i][0])
		}
	}
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// samplePlotName matches the plots gpp sample writes: trace.png and the
// predictive checks.
var samplePlotName = regexp.MustCompile(`^(` + regexp.QuoteMeta(tracePlot) + `|ppc_[A-Za-z_][A-Za-z0-9_]*\.png)$`)

// stalePlots returns the plots of an earlier sample in dir that names does
// not hold.
func stalePlots(dir string, names []string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); samplePlotName.MatchString(n) && !e.IsDir() && !slices.Contains(names, n) {
			out = append(out, n)
		}
	}
	return out
}

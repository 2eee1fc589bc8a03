package main

// gpp sample --plots: pairs.png, the scatter matrix of a few params'
// elements with the divergent transitions marked (bayesplot's mcmc_pairs,
// ArviZ's plot_pair with divergences=True). On a centred hierarchy the
// divergences pile up in the funnel's neck, at small values of the scale:
// the plot shows where the geometry defeats the sampler.

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// pairsPlot is the file of the pairs plot. It shows traceElems elements
// at most, pairsDivElems of them chosen by the divergent draws
// (pairsElements), and pairsMaxDraws draws at most (pairsDraws: all of a
// default run's 4 chains × 1000, and every divergent one).
const (
	pairsPlot     = "pairs.png"
	pairsDivElems = 2
	pairsMaxDraws = 4000
	pairsBins     = 20
)

// pairsDrawColor and pairsDivColor colour the plot's draws: the kept ones
// in a translucent blue, the divergent ones, drawn on top, in red.
var (
	pairsDrawColor = color.NRGBA{R: 31, G: 119, B: 180, A: 110}
	pairsDivColor  = chainColors[3].c // red
)

// pairsValues returns the draws of e as the pairs plot shows them: the log
// of a positive param's (the coordinate NUTS moves on, but for a
// positive_ordered's later elements), where a funnel's neck is as wide as
// its mouth; else the values.
func pairsValues(sd *sampleDraws, e traceElem) []float64 {
	col := sd.ds.cols[e.col]
	if !e.log {
		return col
	}
	out := make([]float64, len(col))
	for d, v := range col {
		out[d] = math.Log(v)
	}
	return out
}

// pairsLabel names e on the pairs plot's axes.
func pairsLabel(e traceElem) string {
	if e.log {
		return "log " + e.name
	}
	return e.name
}

// divergenceShift returns how far the divergent draws of x sit from all
// of them, |mean of the divergent − mean of all| / sd of all, over the
// finite draws; 0 when no divergent draw is finite or x does not vary.
func divergenceShift(x []float64, divergent []bool) float64 {
	var n, nd int
	var sum, sumd float64
	for d, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		n++
		sum += v
		if divergent[d] {
			nd++
			sumd += v
		}
	}
	if nd == 0 || n < 2 {
		return 0
	}
	mean := sum / float64(n)
	ss := 0.0
	for _, v := range x {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			ss += (v - mean) * (v - mean)
		}
	}
	sd := math.Sqrt(ss / float64(n-1))
	if !(sd > 0) {
		return 0
	}
	return math.Abs(sumd/float64(nd)-mean) / sd
}

// pairsElements returns the elements of the pairs plot, in summary order:
// those of the trace plot (traceElements), except that when some but not
// all draws diverged, the pairsDivElems params' elements whose divergent
// draws sit farthest from all draws (divergenceShift, on the plotted
// scale; the first in summary order on a tie) come first and the trace's
// fill the rest. A centred hierarchy's scale, whose small values the
// divergences crowd, is so shown however many elements come before it.
// A shift counts only above √(2 ln 2E)/√ndiv, E the elements: the mean of
// ndiv draws taken at random sits about 1/√ndiv sds from all draws', and
// the largest of E such |z| about √(2 ln 2E), so that 2 divergences among
// 1000 elements choose none by chance.
func pairsElements(sd *sampleDraws) []traceElem {
	first := traceElements(sd)
	ndiv := 0
	for _, d := range sd.divergent {
		if d {
			ndiv++
		}
	}
	if ndiv == 0 || ndiv == len(sd.divergent) {
		return first
	}
	type scored struct {
		e     traceElem
		shift float64
	}
	elems := paramElements(sd)
	floor := math.Sqrt(2*math.Log(2*float64(len(elems)))) / math.Sqrt(float64(ndiv))
	var all []scored
	for _, e := range elems {
		if s := divergenceShift(pairsValues(sd, e), sd.divergent); s > floor {
			all = append(all, scored{e, s})
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return cmp.Compare(b.shift, a.shift) })
	var out []traceElem
	for _, s := range all[:min(len(all), pairsDivElems)] {
		out = append(out, s.e)
	}
	for _, e := range first {
		if len(out) == traceElems {
			break
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b traceElem) int { return cmp.Compare(a.col, b.col) })
	return out
}

// pairsDraws returns the draws the pairs plot shows, in order: all of
// them up to limit, else limit evenly spaced ones and every divergent one.
func pairsDraws(divergent []bool, limit int) []int {
	n := len(divergent)
	keep := make([]bool, n)
	m := min(n, limit)
	for i := range m {
		keep[i*n/m] = true
	}
	var out []int
	for d := range n {
		if keep[d] || divergent[d] {
			out = append(out, d)
		}
	}
	return out
}

// finiteRange returns the least and greatest finite value of x at the
// draws ds, padded by 4 % of the span (or 0.5 when there is none), and
// whether there is any.
func finiteRange(x []float64, ds []int) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, d := range ds {
		if v := x[d]; !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if lo > hi {
		return 0, 0, false
	}
	pad := 0.04 * (hi - lo)
	if pad == 0 {
		pad = 0.5
	}
	return lo - pad, hi + pad, true
}

// plotPairs draws pairs.png: for the elements of pairsElements, a
// histogram of each on the diagonal (its name above) and the scatter of
// every pair below it, the draws of pairsDraws in blue and the divergent
// ones on top in red, larger (none marked when sd.divergent is nil: draws
// read from a file without divergent__). The upper triangle would mirror the lower
// one and is left empty: the points are drawn once, and the panels are
// larger.
func plotPairs(w io.Writer, sd *sampleDraws) error {
	elems := pairsElements(sd)
	k := len(elems)
	divergent := sd.divergent
	if divergent == nil { // saved draws without divergent__ (gpp summary)
		divergent = make([]bool, sd.chains*sd.n)
	}
	ds := pairsDraws(divergent, pairsMaxDraws)
	vals := make([][]float64, k)
	lo, hi := make([]float64, k), make([]float64, k)
	ok := make([]bool, k)
	for i, e := range elems {
		vals[i] = pairsValues(sd, e)
		lo[i], hi[i], ok[i] = finiteRange(vals[i], ds)
	}
	ndiv := 0
	for _, d := range ds {
		if divergent[d] {
			ndiv++
		}
	}
	total := len(divergent)
	shown := fmt.Sprintf("all %d draws", total)
	if len(ds) < total {
		shown = fmt.Sprintf("%d of %d draws (thinned evenly, all divergent kept)", len(ds), total)
	}
	divs := "no divergent transitions"
	if ndiv > 0 {
		divs = fmt.Sprintf("red: the %d divergent transition%s", ndiv, plural(ndiv))
	}
	if sd.divergent == nil {
		divs = "divergent transitions not recorded"
	}
	title := fmt.Sprintf("pairs: %s; %s", shown, divs)

	plots := make([][]*plot.Plot, k)
	for i := range k {
		plots[i] = make([]*plot.Plot, k)
		for j := 0; j <= i; j++ {
			p := plot.New()
			p.Add(plotter.NewGrid())
			if i == k-1 {
				p.X.Label.Text = pairsLabel(elems[j])
			}
			if ok[j] {
				p.X.Min, p.X.Max = lo[j], hi[j]
			}
			var err error
			if i == j {
				p.Title.Text = pairsLabel(elems[i])
				p.Y.Tick.Marker = plot.ConstantTicks{}
				err = addPairsHist(p, vals[i], ds)
			} else {
				if j == 0 {
					p.Y.Label.Text = pairsLabel(elems[i])
				}
				if ok[i] {
					p.Y.Min, p.Y.Max = lo[i], hi[i]
				}
				err = addPairsScatter(p, vals[j], vals[i], ds, divergent)
			}
			if err != nil {
				return err
			}
			plots[i][j] = p
		}
	}
	side := max(plotWidth, vg.Length(k)*4*vg.Centimeter)
	return writeTiles(w, plots, side, side+vg.Centimeter, title)
}

// addPairsHist adds the histogram of the finite values of x at the draws
// ds to p.
func addPairsHist(p *plot.Plot, x []float64, ds []int) error {
	var v plotter.Values
	for _, d := range ds {
		if !math.IsNaN(x[d]) && !math.IsInf(x[d], 0) {
			v = append(v, x[d])
		}
	}
	if len(v) == 0 {
		return nil
	}
	h, err := plotter.NewHist(v, pairsBins)
	if err != nil {
		return err
	}
	h.FillColor = color.RGBA{R: 160, G: 180, B: 205, A: 255}
	h.LineStyle.Width = vg.Points(0.5)
	p.Add(h)
	p.Y.Min = 0
	return nil
}

// addPairsScatter adds to p the points (x, y) of the draws ds where both
// are finite: the divergent ones after the others, red and larger.
func addPairsScatter(p *plot.Plot, x, y []float64, ds []int, divergent []bool) error {
	var kept, div plotter.XYs
	for _, d := range ds {
		if math.IsNaN(x[d]) || math.IsInf(x[d], 0) || math.IsNaN(y[d]) || math.IsInf(y[d], 0) {
			continue
		}
		if divergent[d] {
			div = append(div, plotter.XY{X: x[d], Y: y[d]})
		} else {
			kept = append(kept, plotter.XY{X: x[d], Y: y[d]})
		}
	}
	for _, set := range []struct {
		xy     plotter.XYs
		c      color.Color
		radius vg.Length
	}{{kept, pairsDrawColor, vg.Points(1)}, {div, pairsDivColor, vg.Points(2)}} {
		if len(set.xy) == 0 {
			continue
		}
		s, err := plotter.NewScatter(set.xy)
		if err != nil {
			return err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: set.c, Radius: set.radius, Shape: draw.CircleGlyph{}}
		p.Add(s)
	}
	return nil
}

package main

// Graphical predictive checks (gpp fit --plots): each replicate output
// that mirrors observed data y is drawn against y in ppc_y.png, as
// bayesplot's ppc_dens_overlay (continuous data) and ppc_bars (int data)
// and ArviZ's plot_ppc do, and the replicates' means and sds against y's in
// ppc_stat_y.png (bayesplot's ppc_stat). With --prior the replicates are
// prior draws: a prior predictive check.

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/internal/figure"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// ppcMatch is a replicate output that mirrors observed data (findReplicates).
type ppcMatch struct {
	data    string    // the observed data's name
	output  string    // the replicate's name
	obs     []float64 // the observed values, row-major, missing cells left out
	values  []float64 // all of y's cells, row-major, NaN at the missing ones
	missing int       // missing cells left out of obs (fitted as NAME_missing)
	count   bool      // int data and an int replicate: counts per value
	intRep  bool      // an int replicate: its LOO-PIT is randomised
}

// ppcPlotName and ppcStatName name the files of data y's check.
func ppcPlotName(y string) string { return "ppc_" + y + ".png" }
func ppcStatName(y string) string { return "ppc_stat_" + y + ".png" }

// ppcMinValues is the fewest observed values a check is drawn for: one
// value has no density to estimate.
const ppcMinValues = 2

// findReplicates returns the replicate outputs of l that mirror observed
// data, at most one per data declaration, in the order of the outputs. A
// replicate `output NAME ~ D(args)` is drawn against data y that it
// mirrors (check.Mirrors: `y ~ D(args)` at the top level, or NAME y_rep,
// y_pred or y_sim) and whose shape it has, of at least ppcMinValues
// elements; the checker warns of one whose shape differs. Of several
// replicates of one y the first counts. Int data with an int replicate (a
// discrete family) are counts; missing cells of y are left out of the
// observed values, since they are imputed, not observed.
func findReplicates(l *pipeline.Loaded) []ppcMatch {
	shapes := map[string][]int{}
	for _, o := range l.Model.Outputs {
		shapes[o.Name] = o.Shape
	}
	mirrors := check.Mirrors(l.File, l.Info)
	var out []ppcMatch
	taken := map[string]bool{}
	for _, o := range l.Info.Outputs {
		shape, ok := shapes[o.Name]
		if !ok || compile.ShapeLen(shape) < ppcMinValues {
			continue
		}
		var best *check.DataVar
		for _, m := range mirrors[o] {
			d := m.Data
			a := l.Data[d.Name]
			if a == nil || taken[d.Name] || !sameShape(a.Shape, shape) {
				continue
			}
			if m.Named || best == nil {
				best = d
			}
			if m.Named {
				break
			}
		}
		if best == nil {
			continue
		}
		intRep := o.Type.Elem == check.Int
		m := ppcMatch{data: best.Name, output: o.Name, count: best.Kind == ast.Int && intRep, intRep: intRep}
		a := l.Data[best.Name]
		miss := a.Missing // increasing
		m.values = slices.Clone(a.Values)
		for i, v := range a.Values {
			if len(miss) > 0 && miss[0] == i {
				miss = miss[1:]
				m.missing++
				m.values[i] = math.NaN()
				continue
			}
			if math.IsNaN(v) {
				m.missing++
				continue
			}
			m.obs = append(m.obs, v)
		}
		if len(m.obs) < ppcMinValues {
			continue
		}
		taken[best.Name] = true
		out = append(out, m)
	}
	return out
}

// sameShape reports whether two shapes are equal, nil and [] both a scalar's.
func sameShape(a, b []int) bool {
	return len(a) == len(b) && (len(a) == 0 || slices.Equal(a, b))
}

// ppcNames lists the files of the checks of ms, as ppcFiles names them.
func ppcNames(ms []ppcMatch) []string {
	var names []string
	for _, f := range ppcFiles(ms, nil, "") {
		names = append(names, f.name)
	}
	return names
}

// ppcFiles renders the checks of ms from the draws of ds; kind names the
// check in the titles: a posterior, a prior (gpp fit --prior) predictive
// check, or one on new data (gpp predict). A name that two checks would both take (the
// ppc_stat_y.png of y and the ppc_y.png of data stat_y) goes to the first.
func ppcFiles(ms []ppcMatch, ds *drawSet, kind string) []outputFile {
	var out []outputFile
	seen := map[string]bool{}
	add := func(name string, render func(io.Writer) error) {
		if !seen[name] {
			seen[name] = true
			out = append(out, outputFile{name, render})
		}
	}
	for _, m := range ms {
		add(ppcPlotName(m.data), func(w io.Writer) error { return plotPPC(w, m, replicateDraws(ds, m.output), kind) })
		add(ppcStatName(m.data), func(w io.Writer) error { return plotPPCStat(w, m, replicateDraws(ds, m.output), kind) })
	}
	return out
}

// replicates are the draws of a replicate output, read in place from its
// columns of the draws (a copy of every draw of a large replicate would
// double the draws' memory): cols[j][d] is its element j at draw d.
type replicates struct {
	cols [][]float64
	n    int // draws
}

// replicateDraws returns the draws of output name in ds.
func replicateDraws(ds *drawSet, name string) replicates {
	v, ok := ds.outputVar(name)
	if !ok {
		return replicates{}
	}
	return replicates{cols: ds.cols[v.first : v.first+len(v.elems)], n: len(ds.logp)}
}

// draw returns the finite values of draw d, in buf's storage.
func (r replicates) draw(d int, buf []float64) []float64 {
	buf = buf[:0]
	for _, c := range r.cols {
		if x := c[d]; !math.IsNaN(x) && !math.IsInf(x, 0) {
			buf = append(buf, x)
		}
	}
	return buf
}

// ppcOverlayDraws is how many replicate draws the overlay draws: the first
// ones of draws.csv.
const ppcOverlayDraws = 50

// Colours of the checks, bayesplot's: the data dark, the replicates light,
// and the fill of the replicates' bars and histograms and of the LOO-PIT's
// band.
var (
	ppcDark  = color.RGBA{R: 1, G: 31, B: 75, A: 255}
	ppcLight = color.RGBA{R: 122, G: 162, B: 204, A: 255}
	ppcFill  = color.RGBA{R: 179, G: 205, B: 224, A: 255}
)

// A check's picture is plotWidth + ppcLegend wide (and plotHeight high):
// room for the axes and a legend strip right of them, as wide as its
// labels need (at most half the picture).
const ppcLegend = 4.6 * vg.Centimeter

// finite returns the finite values of xs.
func finite(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}

// observedLabel is the legend's label of the observed values: how many,
// and how many missing cells are left out.
func observedLabel(m ppcMatch) string {
	if m.missing > 0 {
		return fmt.Sprintf("%s (%d values, %d missing)", m.data, len(m.obs), m.missing)
	}
	return fmt.Sprintf("%s (%d values)", m.data, len(m.obs))
}

// checkTitle is the title of a check: what it sets against how many
// draws of what.
func checkTitle(m ppcMatch, draws int, kind string) string {
	return fmt.Sprintf("%s: %s against %d draws of %s", kind, m.data, draws, m.output)
}

// legendWidth is the width of a legend strip (figure.LegendRight, inset
// inset) that holds p's legend entries labelled labels.
func legendWidth(p *plot.Plot, labels []string, inset vg.Length) vg.Length {
	w := vg.Length(0)
	for _, l := range labels {
		w = max(w, p.Legend.TextStyle.Width(l))
	}
	return inset + p.Legend.ThumbnailWidth + p.Legend.TextStyle.Width(" ") + w + 3*vg.Millimeter
}

// plotPPC draws data y against its replicates: counts per value for int
// data (ppcBars), densities otherwise (ppcDensities).
func plotPPC(w io.Writer, m ppcMatch, rep replicates, kind string) error {
	p := plot.New()
	p.X.Label.Text = m.data
	p.Add(plotter.NewGrid())
	var (
		labels []string
		draws  int
		err    error
	)
	if lo, hi, ok := countRange(m, rep); ok {
		labels, draws, err = ppcBars(p, m, rep, lo, hi)
	} else {
		labels, draws, err = ppcDensities(p, m, rep)
	}
	if err != nil {
		return err
	}
	p.Title.Text = checkTitle(m, draws, kind)
	inset := 2 * vg.Millimeter
	lw := min(legendWidth(p, labels, inset), (plotWidth+ppcLegend)/2)
	c := figure.LegendRight(p, plotWidth+ppcLegend-lw, plotHeight, lw, plotDPI, inset)
	_, err = vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// ppcGrid is the number of points each density is evaluated at.
const ppcGrid = 512

// ppcDensities draws the density of the observed values (dark) over those
// of the first ppcOverlayDraws replicate draws (thin, light): Gaussian
// kernel density estimates, each with its own bandwidth by Silverman's
// rule, on one grid spanning the data and the middle 99 % of the drawn
// replicates' values, 3 bandwidths of the data beyond.
// It returns the legend's labels and the number of draws drawn.
func ppcDensities(p *plot.Plot, m ppcMatch, rep replicates) ([]string, int, error) {
	obs := finite(m.obs)
	slices.Sort(obs)
	if len(obs) == 0 {
		return nil, 0, nil
	}
	h := silverman(obs)
	var pooled []float64
	var draws [][]float64
	for d := 0; d < rep.n && len(draws) < ppcOverlayDraws; d++ {
		if f := rep.draw(d, nil); len(f) >= ppcMinValues {
			slices.Sort(f)
			draws = append(draws, f)
			pooled = append(pooled, f...)
		}
	}
	lo, hi := obs[0], obs[len(obs)-1]
	if len(pooled) > 0 {
		slices.Sort(pooled)
		lo, hi = min(lo, nuts.Quantile(pooled, 0.005)), max(hi, nuts.Quantile(pooled, 0.995))
	}
	lo, hi = lo-3*h, hi+3*h
	grid := make([]float64, ppcGrid)
	curve := func(values []float64, col color.Color, width vg.Length) (*plotter.Line, error) {
		kde(grid, lo, hi, values, silverman(values))
		xy := make(plotter.XYs, ppcGrid)
		for i, y := range grid {
			xy[i] = plotter.XY{X: lo + (hi-lo)*float64(i)/(ppcGrid-1), Y: y}
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = col, width
		return l, nil
	}
	var first *plotter.Line
	for _, d := range draws {
		l, err := curve(d, ppcLight, vg.Points(0.5))
		if err != nil {
			return nil, 0, err
		}
		p.Add(l)
		if first == nil {
			first = l
		}
	}
	l, err := curve(obs, ppcDark, vg.Points(2))
	if err != nil {
		return nil, 0, err
	}
	p.Add(l)
	p.Y.Label.Text = "density (Gaussian kernels, Silverman's rule)"
	p.Legend.Padding = vg.Points(4)
	p.Y.Min = 0
	labels := []string{observedLabel(m), fmt.Sprintf("bandwidth %.3g", h)}
	p.Legend.Add(labels[0], l)
	p.Legend.Add(labels[1])
	if first != nil {
		labels = append(labels, fmt.Sprintf("%s (a draw each)", m.output))
		p.Legend.Add(labels[2], first)
	}
	p.X.Min, p.X.Max = lo, hi
	return labels, len(draws), nil
}

// ppcMaxBars is the most values a count check draws a bar for; counts
// spread wider get densities.
const ppcMaxBars = 60

// countRange returns the values lo..hi of a count check: from the
// smallest to the largest of the observed values and the middle 99 % of
// the values of the first ppcOverlayDraws draws of the replicate. ok is false for data that are no counts or
// spread over more than ppcMaxBars values.
func countRange(m ppcMatch, rep replicates) (lo, hi int, ok bool) {
	if !m.count {
		return 0, 0, false
	}
	obs := finite(m.obs)
	if len(obs) == 0 {
		return 0, 0, false
	}
	a, b := slices.Min(obs), slices.Max(obs)
	var pooled, buf []float64 // the values of the draws an overlay would draw
	for d := range min(rep.n, ppcOverlayDraws) {
		buf = rep.draw(d, buf)
		pooled = append(pooled, buf...)
	}
	if len(pooled) > 0 {
		slices.Sort(pooled)
		a, b = min(a, nuts.Quantile(pooled, 0.005)), max(b, nuts.Quantile(pooled, 0.995))
	}
	a, b = math.Floor(a), math.Ceil(b)
	if b-a+1 > ppcMaxBars {
		return 0, 0, false
	}
	return int(a), int(b), true
}

// countValues returns how many of values are each integer lo..hi; other
// values (outside, not whole, NaN) are not counted.
func countValues(values []float64, lo, hi int) []float64 {
	n := make([]float64, hi-lo+1)
	for _, v := range values {
		if v == math.Trunc(v) && v >= float64(lo) && v <= float64(hi) {
			n[int(v)-lo]++
		}
	}
	return n
}

// countBands returns, for each value lo..hi, the median and the 5 % and
// 95 % quantiles over the draws of rep of how many of its values are that
// value, and the number of draws (those with no finite value left out).
func countBands(rep replicates, lo, hi int) (med, q5, q95 []float64, draws int) {
	per := make([][]float64, hi-lo+1)
	var buf []float64
	for d := range rep.n {
		buf = rep.draw(d, buf)
		if len(buf) == 0 {
			continue
		}
		draws++
		for k, c := range countValues(buf, lo, hi) {
			per[k] = append(per[k], c)
		}
	}
	med, q5, q95 = make([]float64, len(per)), make([]float64, len(per)), make([]float64, len(per))
	for k, cs := range per {
		if len(cs) == 0 {
			med[k], q5[k], q95[k] = math.NaN(), math.NaN(), math.NaN()
			continue
		}
		slices.Sort(cs)
		med[k], q5[k], q95[k] = nuts.Quantile(cs, 0.5), nuts.Quantile(cs, 0.05), nuts.Quantile(cs, 0.95)
	}
	return med, q5, q95, draws
}

// ppcBars draws the observed count of each value lo..hi as a bar and the
// replicates' median count (a point) with its 5–95 % interval over all
// the draws, as bayesplot's ppc_bars. It returns the legend's labels and
// the number of draws.
func ppcBars(p *plot.Plot, m ppcMatch, rep replicates, lo, hi int) ([]string, int, error) {
	obs := countValues(m.obs, lo, hi)
	med, q5, q95, nd := countBands(rep, lo, hi)
	var bars []plotter.XYer
	for k, c := range obs {
		x := float64(lo + k)
		bars = append(bars, plotter.XYs{{X: x - 0.4, Y: 0}, {X: x + 0.4, Y: 0}, {X: x + 0.4, Y: c}, {X: x - 0.4, Y: c}})
	}
	poly, err := plotter.NewPolygon(bars...)
	if err != nil {
		return nil, 0, err
	}
	poly.Color = ppcFill
	poly.LineStyle.Color, poly.LineStyle.Width = ppcDark, vg.Points(0.5)
	p.Add(poly)
	var pts plotter.XYs
	for k := range med {
		if math.IsNaN(med[k]) {
			continue
		}
		x := float64(lo + k)
		seg, err := plotter.NewLine(plotter.XYs{{X: x, Y: q5[k]}, {X: x, Y: q95[k]}})
		if err != nil {
			return nil, 0, err
		}
		seg.Color, seg.Width = ppcDark, vg.Points(1.5)
		p.Add(seg)
		pts = append(pts, plotter.XY{X: x, Y: med[k]})
	}

	labels := []string{observedLabel(m)}
	p.Legend.Add(labels[0], poly)
	if len(pts) > 0 {
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, 0, err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Radius, sc.GlyphStyle.Shape = ppcDark, vg.Points(3), draw.CircleGlyph{}
		p.Add(sc)
		labels = append(labels, m.output+": median", "5–95 % of its draws")
		p.Legend.Add(labels[1], sc)
		band, err := plotter.NewLine(plotter.XYs{{}, {}})
		if err != nil {
			return nil, 0, err
		}
		band.Color, band.Width = ppcDark, vg.Points(1.5)
		p.Legend.Add(labels[2], band)
	}
	p.Y.Label.Text = "count"
	top := slices.Max(obs)
	for _, q := range q95 {
		if !math.IsNaN(q) {
			top = max(top, q)
		}
	}
	p.Y.Min, p.Y.Max = 0, 1.05*max(top, 1)
	p.X.Min, p.X.Max = float64(lo)-0.6, float64(hi)+0.6
	p.X.Tick.Marker, p.Y.Tick.Marker = integerTicks{}, integerTicks{}
	p.Legend.Padding = vg.Points(4)
	return labels, nd, nil
}

// integerTicks are the default ticks at whole values only, labelled
// without decimals.
type integerTicks struct{}

func (integerTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(min, max) {
		if t.Value == math.Trunc(t.Value) {
			if t.Label != "" {
				t.Label = strconv.FormatFloat(t.Value+0, 'f', -1, 64) // +0: no "-0"
			}
			out = append(out, t)
		}
	}
	if len(out) < 2 { // a short range: every value
		out = nil
		for v := math.Ceil(min); v <= max; v++ {
			out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v+0, 'f', -1, 64)})
		}
	}
	return out
}

// silverman returns Silverman's rule-of-thumb bandwidth for sorted finite
// values, 0.9·min(sd, IQR/1.34)·n^(−1/5) (R's bw.nrd0, the default of R's
// density and so of bayesplot's ppc_dens_overlay): when the IQR is 0 the
// sd alone, when both are 0 the value's magnitude, when that is 0 too, 1.
func silverman(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 1
	}
	mean := 0.0
	for _, x := range sorted {
		mean += x
	}
	mean /= float64(n)
	ss := 0.0
	for _, x := range sorted {
		ss += (x - mean) * (x - mean)
	}
	sd := 0.0
	if n > 1 {
		sd = math.Sqrt(ss / float64(n-1))
	}
	s := min(sd, (nuts.Quantile(sorted, 0.75)-nuts.Quantile(sorted, 0.25))/1.34)
	switch {
	case s > 0:
	case sd > 0:
		s = sd
	case sorted[0] != 0:
		s = math.Abs(sorted[0])
	default:
		s = 1
	}
	return 0.9 * s * math.Pow(float64(n), -0.2)
}

// kdeCutoff is how many bandwidths out the Gaussian kernel is summed:
// beyond, its density is below 4·10⁻⁶ of its peak.
const kdeCutoff = 5

// kde sets dst[i] to the Gaussian kernel density estimate of values with
// bandwidth h at lo + i·(hi − lo)/(len(dst) − 1). The values are first
// binned linearly onto those points (each split between its two
// neighbours in proportion to its distance), as R's density does, so the
// cost is O(len(values) + len(dst)·h/step); a value outside [lo, hi] adds
// nothing, its share of the density being off the grid. h below the grid
// step is taken as the step, which binning cannot resolve.
func kde(dst []float64, lo, hi float64, values []float64, h float64) {
	weightedKDE(dst, lo, hi, values, nil, h)
}

// weightedKDE is kde with value i weighing w[i] (nil: 1 each; a weight
// that is not positive or not finite counts as 0), the density normalised
// by the total weight.
func weightedKDE(dst []float64, lo, hi float64, values, w []float64, h float64) {
	g := len(dst)
	clear(dst)
	if g < 2 || len(values) == 0 || !(hi > lo) {
		return
	}
	step := (hi - lo) / float64(g-1)
	h = max(h, step)
	weight := make([]float64, g)
	total := float64(len(values))
	if w != nil {
		total = 0
		for _, wi := range w {
			if wi > 0 && !math.IsInf(wi, 1) {
				total += wi
			}
		}
		if !(total > 0) {
			return
		}
	}
	for k, v := range values {
		wk := 1.0
		if w != nil {
			if wk = w[k]; !(wk > 0) || math.IsInf(wk, 1) {
				continue
			}
		}
		if !(v >= lo && v <= hi) {
			continue
		}
		t := (v - lo) / step
		i := min(int(t), g-2)
		f := t - float64(i)
		weight[i] += wk * (1 - f)
		weight[i+1] += wk * f
	}
	reach := min(int(math.Ceil(kdeCutoff*h/step)), g-1)
	kern := make([]float64, reach+1)
	for j := range kern {
		u := float64(j) * step / h
		kern[j] = math.Exp(-u*u/2) / (math.Sqrt(2*math.Pi) * h * total)
	}
	for i, wt := range weight {
		if wt == 0 {
			continue
		}
		for j := max(0, i-reach); j <= min(g-1, i+reach); j++ {
			d := j - i
			if d < 0 {
				d = -d
			}
			dst[j] += wt * kern[d]
		}
	}
}

// ppcStats returns the mean and the sd (n − 1) of each draw's finite
// replicate values; draws with fewer than two are left out.
func ppcStats(rep replicates) (means, sds []float64) {
	var f []float64
	for d := range rep.n {
		f = rep.draw(d, f)
		if len(f) < 2 {
			continue
		}
		m, s := sampleMeanSD(f)
		means, sds = append(means, m), append(sds, s)
	}
	return means, sds
}

// sampleMeanSD returns the mean and the sd (n − 1) of xs.
func sampleMeanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// tailShare returns the share of ts at least t: the posterior (or prior)
// predictive p-value P(T(y_rep) ≥ T(y)).
func tailShare(ts []float64, t float64) float64 {
	n := 0
	for _, x := range ts {
		if x >= t {
			n++
		}
	}
	return float64(n) / float64(len(ts))
}

// plotPPCStat draws histograms of the replicates' mean and sd over all
// the draws, each with the observed value as a dark line and the share of
// draws at or above it in the panel's title (bayesplot's ppc_stat).
func plotPPCStat(w io.Writer, m ppcMatch, rep replicates, kind string) error {
	obs := finite(m.obs)
	om, osd := sampleMeanSD(obs)
	means, sds := ppcStats(rep)
	c := vgimg.NewWith(vgimg.UseWH(plotWidth+ppcLegend, plotHeight), vgimg.UseDPI(plotDPI))
	dc := draw.New(c)
	title := plot.New()
	title.HideAxes()
	title.Title.Text = checkTitle(m, len(means), kind)
	title.Draw(dc)
	half := (plotWidth + ppcLegend) / 2
	for i, panel := range []struct {
		name string
		ts   []float64
		t    float64
	}{{"mean", means, om}, {"sd", sds, osd}} {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s: P(%s(%s) ≥ %s(%s)) = %.2f", panel.name, panel.name, m.output, panel.name, m.data, tailShare(panel.ts, panel.t))
		p.X.Label.Text = fmt.Sprintf("%s of %s (line: of %s, %.3g)", panel.name, m.output, m.data, panel.t)
		p.Y.Label.Text = "draws"
		p.Add(plotter.NewGrid())
		if ts := finite(panel.ts); len(ts) > 0 {
			hist, err := plotter.NewHist(plotter.Values(ts), 30)
			if err != nil {
				return err
			}
			hist.FillColor = ppcFill
			hist.LineStyle.Color, hist.LineStyle.Width = ppcLight, vg.Points(0.5)
			p.Add(hist)
			lo, hi := min(slices.Min(ts), panel.t), max(slices.Max(ts), panel.t)
			pad := 0.04 * (hi - lo)
			p.X.Min, p.X.Max = lo-pad, hi+pad
		}
		p.Y.Min = 0
		p.Title.TextStyle.Font.Size = vg.Points(10)
		// The observed value: a vertical line over the whole panel.
		v := verticalLine{x: panel.t, style: draw.LineStyle{Color: ppcDark, Width: vg.Points(2.5)}}
		p.Add(v)
		left := vg.Length(i) * half
		p.Draw(draw.Crop(dc, left, left-(plotWidth+ppcLegend)+half, 0, -0.8*vg.Centimeter))
	}
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// verticalLine is a plotter of a vertical line at x across the axes.
type verticalLine struct {
	x     float64
	style draw.LineStyle
}

func (l verticalLine) Plot(c draw.Canvas, p *plot.Plot) {
	x := p.X.Norm(l.x)
	if x < 0 || x > 1 {
		return
	}
	px := c.Min.X + vg.Length(x)*(c.Max.X-c.Min.X)
	c.StrokeLine2(l.style, px, c.Min.Y, px, c.Max.Y)
}

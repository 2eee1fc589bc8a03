package main

// intervals.png, the forest plot (bayesplot's mcmc_intervals, ArviZ's
// plot_forest) of gpp fit --plots and gpp sample --plots: a row per
// element of the params, in declaration order, with the median as a
// point, the central 50 % interval as a thick line and the 90 % one as a
// thin line. Each param has its own panel and x axis, so that params on
// different scales (a hierarchy's scale beside its effects, a loading
// beside a noise precision) do not hide each other. With gpp sample
// --against FIT each row holds two sets of intervals, q's and NUTS's.

import (
	"bufio"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// intervalsPlot is the forest plot's file. It shows intervalMaxRows
// elements and intervalMaxPanels params at most (intervalGroups), so that a
// model with a matrix of thousands of elements still gives a readable
// figure (summary.csv has every element).
const (
	intervalsPlot     = "intervals.png"
	intervalMaxRows   = 60
	intervalMaxPanels = 24
)

// Layout of intervals.png: the height of a row (of a pair of rows with
// --against), of a panel's axis and label, and of the heading.
const (
	intervalRowHt     = 0.5 * vg.Centimeter
	intervalPairRowHt = 0.7 * vg.Centimeter
	intervalPanelHt   = 1.6 * vg.Centimeter
	intervalHeadHt    = 1.6 * vg.Centimeter
	intervalLegendHt  = 1.1 * vg.Centimeter
	intervalWidth     = 18 * vg.Centimeter
	intervalMargin    = 2 * vg.Millimeter
)

// interval is the summary of one element's draws that a row draws: the
// 5, 25, 50, 75 and 95 % quantiles (R's type 7, as summary.csv's) of its
// n finite draws; dropped counts the NaN and infinite draws left out.
// With no finite draw the quantiles are NaN.
type interval struct {
	q5, q25, q50, q75, q95 float64
	n, dropped             int
}

// note says, for a row's label, what of its draws was left out: "" when
// none, "no finite draws", or "k non-finite left out", after "who: "
// when who (the series) is not "".
func (iv interval) note(who string) string {
	var n string
	switch {
	case iv.n == 0:
		n = "no finite draws"
	case iv.dropped > 0:
		n = fmt.Sprintf("%d non-finite left out", iv.dropped)
	default:
		return ""
	}
	if who != "" {
		n = who + ": " + n
	}
	return n
}

// intervalOf summarises xs for a row of the forest plot.
func intervalOf(xs []float64) interval {
	v := finite(xs) // a copy, sorted and scaled below
	iv := interval{n: len(v), dropped: len(xs) - len(v)}
	if len(v) == 0 {
		nan := math.NaN()
		iv.q5, iv.q25, iv.q50, iv.q75, iv.q95 = nan, nan, nan, nan, nan
		return iv
	}
	slices.Sort(v)
	scale := 1.0
	if math.IsInf(v[len(v)-1]-v[0], 0) { // draws near ±1e308, whose differences overflow
		scale = max(-v[0], v[len(v)-1])
		for i := range v {
			v[i] /= scale
		}
	}
	iv.q5, iv.q25, iv.q50 = scale*nuts.Quantile(v, 0.05), scale*nuts.Quantile(v, 0.25), scale*nuts.Quantile(v, 0.5)
	iv.q75, iv.q95 = scale*nuts.Quantile(v, 0.75), scale*nuts.Quantile(v, 0.95)
	return iv
}

// intervalElem is a row of the plot: an element's summary.csv name and
// its column among the draws.
type intervalElem struct {
	name string
	col  int
	// v and k are the element's variable and row-major index, by which
	// the fit's draws.csv names it (--against)
	v *variable
	k int
}

// intervalGroup is a panel: the first elements of a param or output
// (all of them unless it has more than its share of rows) and its number
// of elements (of those chosen, with --plot-params).
type intervalGroup struct {
	param string
	elems []intervalElem
	total int
}

// intervalPanel is a panel the plot may show: a variable and the
// elements of it to show (indices into v.elems, in order), in block 0
// (the params, or every panel of a chosen list) or 1 (the outputs).
type intervalPanel struct {
	v     *variable
	js    []int
	block int
}

// intervalPanels lists the panels of intervals.png by default: every
// param in declaration order, then the outputs with withOutputs, but for
// those named log_lik (its elements are the observations', read by
// PSIS-LOO, not a summary) and those omit names (the replicates drawn by
// `output NAME ~ D(args)`, which the predictive checks show).
func intervalPanels(vars []variable, withOutputs bool, omit map[string]bool) []intervalPanel {
	var ps []intervalPanel
	for pass := range 2 {
		for i := range vars {
			v := &vars[i]
			if pass == 0 && v.output || pass == 1 && (!v.output || !withOutputs || v.name == looOutput || omit[v.name]) {
				continue
			}
			ps = append(ps, intervalPanel{v, allIndices(len(v.elems)), pass})
		}
	}
	return ps
}

// allIndices is 0, 1, …, n-1.
func allIndices(n int) []int {
	js := make([]int, n)
	for j := range js {
		js[j] = j
	}
	return js
}

// chosenIntervalPanels lists the panels of the elements that specs name
// (--plot-params: a variable for all its elements, or one element, spelt
// as gpp summary --params takes them), in their order, each element once;
// the elements of one variable named one after another share a panel.
func chosenIntervalPanels(vars []variable, specs []string) ([]intervalPanel, error) {
	var ps []intervalPanel
	type elem struct {
		v *variable
		j int
	}
	seen := map[elem]bool{}
	for _, s := range specs {
		v, ks, err := lookupElems(vars, s)
		if err != nil {
			return nil, fmt.Errorf("--plot-params: %v", err)
		}
		for _, k := range ks {
			j := slices.Index(v.elems, k)
			if j < 0 || seen[elem{v, j}] {
				continue
			}
			seen[elem{v, j}] = true
			if n := len(ps); n > 0 && ps[n-1].v == v {
				ps[n-1].js = append(ps[n-1].js, j)
			} else {
				ps = append(ps, intervalPanel{v: v, js: []int{j}})
			}
		}
	}
	return ps, nil
}

// waterFill shares budget among vessels of the given sizes as water fills
// them: a vessel smaller than an even share gets all it holds, and the
// rest is shared evenly among the larger ones, each at least one.
func waterFill(sizes []int, budget int) []int {
	share := make([]int, len(sizes))
	order := allIndices(len(sizes))
	slices.SortStableFunc(order, func(a, b int) int { return sizes[a] - sizes[b] })
	rem := budget
	for left, i := range order {
		share[i] = min(sizes[i], max(rem/(len(sizes)-left), 1))
		rem -= share[i]
	}
	return share
}

// intervalGroups chooses the rows of the plot from panels (intervalPanels
// or chosenIntervalPanels): at most maxPanels panels and maxRows rows.
// Both are shared first between the blocks (the params and the outputs)
// and then among a block's panels by waterFill, so that the outputs, the
// quantities a model reports, get half of the rows when both blocks need
// more than half, and a block that needs less leaves the rest to the
// other; a panel keeps its first elements.
func intervalGroups(panels []intervalPanel, maxRows, maxPanels int) (groups []intervalGroup, n intervalCount) {
	var blocks [2][]intervalPanel
	for _, p := range panels {
		blocks[p.block] = append(blocks[p.block], p)
		n.avail[p.block]++
	}
	var present []int // the blocks with panels
	for b := range blocks {
		if len(blocks[b]) > 0 {
			present = append(present, b)
		}
	}
	counts := make([]int, len(present))
	for i, b := range present {
		counts[i] = len(blocks[b])
	}
	npanels := waterFill(counts, maxPanels)
	sizes := make([]int, len(present))
	for i, b := range present {
		blocks[b] = blocks[b][:npanels[i]]
		n.shown[b] = npanels[i]
		for _, p := range blocks[b] {
			sizes[i] += len(p.js)
		}
	}
	rows := waterFill(sizes, maxRows)
	for i, b := range present {
		ns := make([]int, len(blocks[b]))
		for k, p := range blocks[b] {
			ns[k] = len(p.js)
		}
		for k, n := range waterFill(ns, rows[i]) {
			p := blocks[b][k]
			g := intervalGroup{param: p.v.name, total: len(p.js)}
			for _, j := range p.js[:n] {
				g.elems = append(g.elems, intervalElem{p.v.elemName(p.v.elems[j]), p.v.first + j, p.v, p.v.elems[j]})
			}
			groups = append(groups, g)
		}
	}
	return groups, n
}

// intervalCount counts the panels of each block of intervals.png
// (intervalGroups) that it shows and that there were; chosen marks those
// of --plot-params, all in block 0.
type intervalCount struct {
	shown, avail [2]int
	chosen       bool
}

// intervalSeries is one set of intervals: its legend label, colour and
// the draws of an element (nil: it has none of that element).
type intervalSeries struct {
	label string
	color color.Color
	draws func(e intervalElem) []float64
}

// Colours of the series: the plot's own draws blue, with --against q's
// orange (the trace plot's first two chain colours).
var (
	intervalColor  = chainColors[0].c
	intervalQColor = chainColors[1].c
)

// intervalTitle is the plot's heading: what the draws are, and how many
// of the params, outputs and elements the plot shows.
func intervalTitle(what string, groups []intervalGroup, n intervalCount) string {
	shown, total := 0, 0
	for _, g := range groups {
		shown += len(g.elems)
		total += g.total
	}
	s := what + "\npoint: median, thick: 50 % interval, thin: 90 %"
	for b, noun := range [2]string{"params", "outputs"} {
		if b == 0 && n.chosen {
			noun = "chosen"
		}
		if n.shown[b] < n.avail[b] {
			s += fmt.Sprintf("; the first %d of %d %s", n.shown[b], n.avail[b], noun)
		}
	}
	if shown < total {
		s += fmt.Sprintf("; %d of their %d elements (all in %s)", shown, total, summaryFile)
	}
	return s
}

// panelLabel is a panel's x label: the param, and which of its elements
// the panel shows when not all.
func panelLabel(g intervalGroup) string {
	if len(g.elems) < g.total {
		return fmt.Sprintf("%s: first %d of %d elements", g.param, len(g.elems), g.total)
	}
	return g.param
}

// plotIntervals draws intervals.png: a panel per group, a row per element
// (the first at the top) holding each series' intervals (intervalOf),
// offset from each other, with a legend in the heading when there are
// several. An element's non-finite draws are left out and its row's label
// says so; a row with no finite draw is left empty. An interval of zero
// width shows as its point.
func plotIntervals(w io.Writer, title string, groups []intervalGroup, series []intervalSeries) error {
	rowHt := intervalRowHt
	offsets := []float64{0}
	if len(series) > 1 {
		rowHt = intervalPairRowHt
		offsets = make([]float64, len(series))
		for s := range offsets {
			offsets[s] = 0.2 - 0.4*float64(s)/float64(len(series)-1)
		}
	}
	plots := make([]*plot.Plot, len(groups))
	heights := make([]vg.Length, len(groups))
	for i, g := range groups {
		p := plot.New()
		p.X.Label.Text = panelLabel(g)
		grid := plotter.NewGrid()
		grid.Horizontal.Width = 0
		p.Add(grid)
		n := len(g.elems)
		ticks := make([]plot.Tick, n)
		lo, hi := math.Inf(1), math.Inf(-1)
		for r, e := range g.elems {
			y := float64(n - 1 - r)
			var notes []string
			for s, ser := range series {
				xs := ser.draws(e)
				if xs == nil {
					continue
				}
				iv := intervalOf(xs)
				who := "" // which series a note is about, when there are two
				if len(series) > 1 {
					who = ser.label
				}
				if note := iv.note(who); note != "" {
					notes = append(notes, note)
				}
				if iv.n == 0 {
					continue
				}
				if err := addInterval(p, iv, y+offsets[s], ser.color); err != nil {
					return err
				}
				lo, hi = math.Min(lo, iv.q5), math.Max(hi, iv.q95)
			}
			label := e.name
			if len(notes) > 0 {
				label += " (" + strings.Join(notes, "; ") + ")"
			}
			ticks[r] = plot.Tick{Value: y, Label: label}
		}
		p.Y.Tick.Marker = plot.ConstantTicks(ticks)
		p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
		p.Y.Padding = 0
		p.X.Min, p.X.Max = intervalRange(lo, hi)
		plots[i] = p
		heights[i] = vg.Length(n)*rowHt + intervalPanelHt
	}
	headHt := intervalHeadHt
	if len(series) > 1 {
		headHt += intervalLegendHt
	}
	ht := headHt
	for _, h := range heights {
		ht += h
	}
	c := vgimg.NewWith(vgimg.UseWH(intervalWidth, ht), vgimg.UseDPI(plotDPI))
	dc := draw.New(c)
	head := plot.New()
	head.Title.Text = title
	head.HideAxes()
	head.Draw(draw.Crop(dc, 0, 0, ht-intervalHeadHt, 0))
	if len(series) > 1 { // the legend below the heading, at the right
		leg := plot.NewLegend()
		for _, ser := range series {
			l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
			if err != nil {
				return err
			}
			l.Color, l.Width = ser.color, vg.Points(4)
			leg.Add(ser.label, l)
		}
		leg.Top = true
		leg.Draw(draw.Crop(dc, 0, -4*vg.Millimeter, ht-headHt, -intervalHeadHt))
	}
	stackPanels(draw.Crop(dc, 0, 0, 0, -headHt), plots, heights)
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// addInterval adds an interval's marks to p at height y in colour c: the
// 90 % line, the 50 % line over it and the median as a white point ringed
// in c, seen on the thick line.
func addInterval(p *plot.Plot, iv interval, y float64, c color.Color) error {
	for _, seg := range intervalSegments(iv) {
		l, err := plotter.NewLine(plotter.XYs{{X: seg.a, Y: y}, {X: seg.b, Y: y}})
		if err != nil {
			return err
		}
		l.Color, l.Width = c, seg.width
		p.Add(l)
	}
	pt, err := plotter.NewScatter(plotter.XYs{{X: iv.q50, Y: y}})
	if err != nil {
		return err
	}
	pt.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(3.4), Shape: draw.CircleGlyph{}}
	hole, err := plotter.NewScatter(plotter.XYs{{X: iv.q50, Y: y}})
	if err != nil {
		return err
	}
	hole.GlyphStyle = draw.GlyphStyle{Color: color.White, Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}
	p.Add(pt, hole)
	return nil
}

// intervalSeg is a line of a row: from a to b, width wide.
type intervalSeg struct {
	a, b  float64
	width vg.Length
}

// intervalSegments are the lines of an interval's row, in drawing order:
// the thin 90 % line (q5 … q95), then the thick 50 % one (q25 … q75) over it.
func intervalSegments(iv interval) [2]intervalSeg {
	return [2]intervalSeg{{iv.q5, iv.q95, vg.Points(1)}, {iv.q25, iv.q75, vg.Points(4)}}
}

// intervalRange is a panel's x range for intervals spanning lo … hi,
// padded by 5 %; a point gets a range around it, and no interval at all
// the range 0 … 1. The range stays within ±MaxFloat64/2, so that its
// width is finite for values near ±1e308: gonum's ticks loop for ever on
// an infinite width (the marks beyond are clipped).
func intervalRange(lo, hi float64) (float64, float64) {
	var d float64
	switch {
	case lo > hi:
		return 0, 1
	case lo == hi:
		d = math.Abs(lo) * 0.1
		if d == 0 {
			d = 1
		}
	default:
		d = 0.05*hi - 0.05*lo
	}
	const most = math.MaxFloat64 / 2
	lo, hi = max(lo-d, -most), min(hi+d, most)
	if lo >= hi { // both clamped to one end
		if lo > 0 {
			return most / 2, most
		}
		return -most, -most / 2
	}
	return lo, hi
}

// stackPanels draws plots one above the other in dc, the first at the top,
// each of its height (scaled to fill dc), with their axes' left and right
// edges aligned as plot.Align aligns tiles, inside margins of
// intervalMargin at the sides: gonum sizes the y axis to its labels'
// advance widths, and the longest label (logsigma[10], z_e[Some college])
// otherwise starts at the image's edge, whose first pixels cut its first
// glyph's ink.
func stackPanels(dc draw.Canvas, plots []*plot.Plot, heights []vg.Length) {
	var sum vg.Length
	for _, h := range heights {
		sum += h
	}
	if sum <= 0 {
		return
	}
	scale := (dc.Max.Y - dc.Min.Y) / sum
	canvases := make([]draw.Canvas, len(plots))
	var left, right vg.Length
	top := dc.Max.Y
	for i, p := range plots {
		c := dc
		c.Max.Y, c.Min.Y = top, top-heights[i]*scale
		top = c.Min.Y
		canvases[i] = draw.Crop(c, intervalMargin, -intervalMargin, vg.Millimeter, -vg.Millimeter)
		d := p.DataCanvas(canvases[i])
		left = max(left, d.Min.X-canvases[i].Min.X)
		right = max(right, canvases[i].Max.X-d.Max.X)
	}
	for i, p := range plots {
		c := canvases[i]
		d := p.DataCanvas(c)
		p.Draw(draw.Crop(c, left-(d.Min.X-c.Min.X), -(right - (c.Max.X - d.Max.X)), 0, 0))
	}
}

// fitIntervalsWhat says what a fit's draws are, for intervals.png's
// heading.
func fitIntervalsWhat(h drawsHeader, ds *drawSet) string {
	n := len(ds.logp)
	q := "q (" + map[string]string{"sgvb": "SGVB", "laplace": "Laplace", "pathfinder": "Pathfinder", "map": "MAP: a point"}[h.r.Method.String()] + ")"
	if h.mix != nil {
		q = fmt.Sprintf("the mixture of %d restarts' q", len(h.mix.Components))
	}
	what := fmt.Sprintf("intervals of %d draw%s of %s", n, plural(n), q)
	if h.resample != nil && h.resample.used {
		what = fmt.Sprintf("intervals of %d draw%s of %s, importance-resampled (--psis-resample)", n, plural(n), q)
	}
	return what
}

// priorIntervalsFile is gpp fit --prior's intervals.png: the params'
// intervals under their priors, of the prior draws (PyMC's plot of a
// prior predictive sample's parameters), to see the scales the priors
// allow before the data.
func priorIntervalsFile(ds *drawSet) outputFile {
	return outputFile{intervalsPlot, func(w io.Writer) error {
		groups, count := intervalGroups(intervalPanels(ds.vars, false, nil), intervalMaxRows, intervalMaxPanels)
		n := 0
		if len(ds.cols) > 0 {
			n = len(ds.cols[0])
		}
		ser := intervalSeries{"prior", intervalColor, func(e intervalElem) []float64 { return ds.cols[e.col] }}
		what := fmt.Sprintf("intervals of %d prior draw%s", n, plural(n))
		return plotIntervals(w, intervalTitle(what, groups, count), groups, []intervalSeries{ser})
	}}
}

// chosenIntervals returns the rows of the intervals.png of gpp fit or gpp
// sample (cfg's): those of --plot-params, else the params' and then the
// outputs' (intervalPanels, leaving out cfg.intervalOmit).
func chosenIntervals(cfg *fitConfig, vars []variable) ([]intervalGroup, intervalCount, error) {
	if len(cfg.plotParams) == 0 {
		groups, n := intervalGroups(intervalPanels(vars, true, cfg.intervalOmit), intervalMaxRows, intervalMaxPanels)
		return groups, n, nil
	}
	ps, err := chosenIntervalPanels(vars, cfg.plotParams)
	if err != nil {
		return nil, intervalCount{}, err
	}
	groups, n := intervalGroups(ps, intervalMaxRows, intervalMaxPanels)
	n.chosen = true
	return groups, n, nil
}

// plotParamsUsage is --plot-params's help, gpp fit's and gpp sample's.
const plotParamsUsage = "with --plots: what intervals.png shows, as gpp summary --params chooses rows:\n" +
	"comma-separated `NAMES`, a param or output for all its elements or one element\n" +
	"as the summary names it (theta,a0,rl100[39],z[AITKIN]); default every param\n" +
	"and then every output but log_lik and the replicates drawn by output NAME ~ D"

// plotParamsFlag is --plot-params (and --draws-params): names split as gpp
// summary --params's (splitParams), the flag repeatable.
type plotParamsFlag struct{ names *[]string }

func (f plotParamsFlag) String() string {
	if f.names == nil {
		return ""
	}
	return strings.Join(*f.names, ",")
}

func (f plotParamsFlag) Set(v string) error {
	for _, n := range splitParams(v) {
		n = strings.TrimSpace(n)
		if n == "" {
			return fmt.Errorf("an empty name in %q", v)
		}
		*f.names = append(*f.names, n)
	}
	return nil
}

// plotParamsRefusal is the usage error of --plot-params without --plots
// (or with --prior, whose intervals.png shows the params alone), "" when none.
func plotParamsRefusal(cfg *fitConfig) string {
	switch {
	case len(cfg.plotParams) == 0:
		return ""
	case !cfg.plots:
		return "--plot-params chooses what intervals.png shows: add --plots"
	case cfg.prior:
		return "--plot-params is not for --prior, whose intervals.png shows the params' prior draws"
	}
	return ""
}

// intervalOmitted names the outputs of l's model that intervals.png
// leaves out by default: the replicates drawn by output NAME ~ D(args),
// whose draws are data-like and which the predictive checks show.
func intervalOmitted(l *pipeline.Loaded) map[string]bool {
	omit := map[string]bool{}
	for _, o := range l.Info.Outputs {
		if o.Stmt != nil && o.Stmt.Dist != nil {
			omit[o.Name] = true
		}
	}
	return omit
}

// preparePlots readies the --plots of gpp fit or gpp sample of l: the
// replicates that the predictive checks draw, the outputs that
// intervals.png leaves out, and a check of --plot-params's names against
// the model's params and outputs, before the run.
func preparePlots(cfg *fitConfig, l *pipeline.Loaded) error {
	cfg.ppc = findReplicates(l)
	cfg.intervalOmit = intervalOmitted(l)
	if len(cfg.plotParams) == 0 {
		return nil
	}
	vars := modelDrawSet(l.Model, "", 0).vars // the names alone: no draws
	nameByLabels(vars, l)
	_, err := chosenIntervalPanels(vars, cfg.plotParams)
	return err
}

// fitIntervalsFile is a fit's intervals.png, of the draws its summary.csv
// summarises.
func fitIntervalsFile(h drawsHeader, ds *drawSet) outputFile {
	return outputFile{intervalsPlot, func(w io.Writer) error {
		groups, n, err := chosenIntervals(h.cfg, ds.vars)
		if err != nil {
			return err
		}
		ser := intervalSeries{"q", intervalColor, func(e intervalElem) []float64 { return ds.cols[e.col] }}
		return plotIntervals(w, intervalTitle(fitIntervalsWhat(h, ds), groups, n), groups, []intervalSeries{ser})
	}}
}

// sampleIntervalsFile is a sample's intervals.png, of its chains' draws
// pooled, of the rows cfg chooses (chosenIntervals); with --against (af not nil) q's intervals of the fit's draws
// beside NUTS's.
func sampleIntervalsFile(cfg *fitConfig, sd *sampleDraws, af *againstFit) outputFile {
	return outputFile{intervalsPlot, func(w io.Writer) error {
		groups, n, err := chosenIntervals(cfg, sd.ds.vars)
		if err != nil {
			return err
		}
		what, series := sampleIntervalSeries(sd, af, groups)
		return plotIntervals(w, intervalTitle(what, groups, n), groups, series)
	}}
}

// sampleIntervalSeries returns the series of a sample's intervals.png and
// what they are: NUTS's draws, after q's of the rows' elements when af is
// not nil. The fit's draws unreadable (its draws.csv removed since), the
// plot shows NUTS's alone and its heading says why.
func sampleIntervalSeries(sd *sampleDraws, af *againstFit, groups []intervalGroup) (string, []intervalSeries) {
	what := fmt.Sprintf("intervals of NUTS's %d chain%s × %d draws", sd.chains, plural(sd.chains), sd.n)
	nuts := intervalSeries{"NUTS", intervalColor, func(e intervalElem) []float64 { return sd.ds.cols[e.col] }}
	if af == nil || af.qDraws == nil {
		return what, []intervalSeries{nuts}
	}
	var elems []intervalElem
	for _, g := range groups {
		elems = append(elems, g.elems...)
	}
	q, err := af.qDraws(elems)
	if err != nil {
		return what + fmt.Sprintf(" (q's left out: %v)", err), []intervalSeries{nuts}
	}
	label := af.qLabel()
	return fmt.Sprintf("%s against NUTS's %d chain%s × %d draws", label, sd.chains, plural(sd.chains), sd.n),
		[]intervalSeries{{label, intervalQColor, func(e intervalElem) []float64 { return q[e.name] }}, nuts}
}

// qLabel names the fit's q in the plot's legend: "SGVB q", or "Laplace q"
// for a --family laplace fit, "Pathfinder q" for a --family pathfinder one (a fit.json's, or the REPL's last fit's).
func (af *againstFit) qLabel() string {
	if af.ff != nil && af.ff.Method == sgvb.Laplace.String() {
		return "Laplace q"
	}
	if af.ff != nil && af.ff.Method == sgvb.Pathfinder.String() {
		return "Pathfinder q"
	}
	return "SGVB q"
}

// readDrawsColumns reads the draws of elems from a fit's draws.csv (its
// rows after the mean row), keyed by their summary names. An element the
// file lacks has none.
func readDrawsColumns(path string, elems []intervalElem) (map[string][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	want := map[string]string{} // CSV column → summary name
	for _, e := range elems {
		want[compile.CSVName(e.v.name, e.v.shape, e.k)] = e.name
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<30)
	var cols []int
	var names []string
	out := map[string][]float64{}
	rows := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Split(line, ",")
		if names == nil {
			names = []string{}
			for i, h := range fields {
				if n, ok := want[h]; ok {
					cols = append(cols, i)
					names = append(names, n)
				}
			}
			continue
		}
		rows++
		if rows == 1 {
			continue // the mean row
		}
		for j, i := range cols {
			if i >= len(fields) {
				return nil, fmt.Errorf("%s: row %d has %d fields", path, rows, len(fields))
			}
			x, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %s is not a number", path, fields[i])
			}
			out[names[j]] = append(out[names[j]], x)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if names == nil {
		return nil, fmt.Errorf("%s: no header", path)
	}
	return out, nil
}

package main

// gpp sample --plots: trace plots and rank histograms (Vehtari et al.
// 2021, ArviZ's plot_rank) of the first params' elements, chain by chain,
// a pairs plot with the divergent transitions marked (samplepairs.go),
// and fit's predictive checks (ppc.go) of the draws.

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// tracePlot is the file of the trace plots, rankPlot that of the rank
// histograms, and traceElems the most elements they show (the params'
// first, in summary order). rankBins is the most bins of a rank
// histogram: ArviZ's default for 4 chains of 1000 draws is 20 (Sturges'
// rule, doubled), and a bin then holds 50 of a chain's draws on average,
// so that a chain's excess of a few tens in some bins is plain.
const (
	tracePlot  = "trace.png"
	rankPlot   = "rank.png"
	traceElems = 4
	rankBins   = 20
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

// samplePlotFiles lists the plots of gpp sample --plots: trace.png,
// rank.png, pairs.png (samplepairs.go), intervals.png (intervals.go; with
// --against, af not nil, q's intervals beside NUTS's), energy.png
// (energyplot.go; left out when energyProblem says it cannot be drawn)
// and the predictive checks of every data y that a replicate mirrors,
// with their LOO-PIT checks (loopit.go).
func samplePlotFiles(cfg *fitConfig, sd *sampleDraws, af *againstFit) []outputFile {
	out := []outputFile{
		{tracePlot, func(w io.Writer) error { return plotTrace(w, sd) }},
		{rankPlot, func(w io.Writer) error { return plotChainRanks(w, sd) }},
		{pairsPlot, func(w io.Writer) error { return plotPairs(w, sd) }},
		sampleIntervalsFile(cfg, sd, af),
	}
	if energyProblem(sd) == "" {
		out = append(out, outputFile{energyPlot, func(w io.Writer) error { return plotEnergy(w, sd) }})
	}
	out = append(out, ppcFiles(cfg.ppc, sd.ds, "posterior predictive check (NUTS)")...)
	return append(out, pitFiles(cfg.ppc, sd.ds, cfg.settings.Seed, "NUTS")...)
}

// traceElem is an element shown in the trace plot: its name and column,
// and whether the pairs plot shows its log (its param's logScale).
type traceElem struct {
	name string
	col  int
	log  bool
}

// paramElements returns the elements of the params, in summary order.
func paramElements(sd *sampleDraws) []traceElem {
	var out []traceElem
	for _, v := range sd.ds.vars {
		if v.output {
			continue
		}
		for j, k := range v.elems {
			out = append(out, traceElem{v.elemName(k), v.first + j, v.logScale})
		}
	}
	return out
}

// traceElements returns the first traceElems elements of the params.
func traceElements(sd *sampleDraws) []traceElem {
	e := paramElements(sd)
	return e[:min(len(e), traceElems)]
}

// elemPanel is panel i of n of a stacked figure, one element's (its name
// the y label): the title on the first, the x label on the last, a grid.
func elemPanel(name string, i, n int, title, xLabel string) *plot.Plot {
	p := plot.New()
	p.Y.Label.Text = name
	if i == 0 {
		p.Title.Text = title
	}
	if i == n-1 {
		p.X.Label.Text = xLabel
	}
	p.Add(plotter.NewGrid())
	return p
}

// plotTrace draws trace.png: a panel per element (traceElements), each
// chain's draws against their number in its colour; a non-finite draw is
// left out of its line.
func plotTrace(w io.Writer, sd *sampleDraws) error {
	elems := traceElements(sd)
	plots := make([][]*plot.Plot, len(elems))
	for i, e := range elems {
		p := elemPanel(e.name, i, len(elems), fmt.Sprintf("traces of %d chain%s × %d draws after warm-up (chains %s)", sd.chains, plural(sd.chains), sd.n, chainNames(sd.chains)), "draw")
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
			if err := addChainLine(p, xy, c, vg.Points(0.6)); err != nil {
				return err
			}
		}
		p.X.Min, p.X.Max = 1, float64(sd.n)
		plots[i] = []*plot.Plot{p}
	}
	return writePanels(w, plots)
}

// addChainLine adds to p the line through xy of width wd in chain c's
// colour.
func addChainLine(p *plot.Plot, xy plotter.XYs, c int, wd vg.Length) error {
	l, err := plotter.NewLine(xy)
	if err != nil {
		return err
	}
	l.Color = chainColors[c%len(chainColors)].c
	l.Width = wd
	p.Add(l)
	return nil
}

// chainNames names the chains' colours, for a plot's title.
func chainNames(chains int) string {
	var names []string
	for c := range min(chains, len(chainColors)) {
		names = append(names, chainColors[c].name)
	}
	return strings.Join(names, ", ")
}

// writePanels draws plots as one column of panels, 4 cm each, and writes
// the PNG to w.
func writePanels(w io.Writer, plots [][]*plot.Plot) error {
	ht := max(vg.Length(len(plots))*4*vg.Centimeter, 6*vg.Centimeter)
	return writeTiles(w, plots, plotWidth, ht, "")
}

// pooledRanks returns the rank of every draw of chains among all the
// chains' draws pooled, 1 to S (S draws in all), ties given their average
// rank (as scipy's rankdata, which ArviZ uses); a NaN ranks below every
// number.
func pooledRanks(chains [][]float64) [][]float64 {
	type draw struct{ c, i int }
	var all []draw
	for c, ch := range chains {
		for i := range ch {
			all = append(all, draw{c, i})
		}
	}
	val := func(d draw) float64 { return chains[d.c][d.i] }
	slices.SortStableFunc(all, func(a, b draw) int { return cmp.Compare(val(a), val(b)) })
	ranks := make([][]float64, len(chains))
	for c, ch := range chains {
		ranks[c] = make([]float64, len(ch))
	}
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && cmp.Compare(val(all[j]), val(all[i])) == 0 {
			j++
		}
		r := float64(i+j+1) / 2 // the average of ranks i+1 … j
		for _, d := range all[i:j] {
			ranks[d.c][d.i] = r
		}
		i = j
	}
	return ranks
}

// rankCounts returns the rank histogram of each chain: the counts of its
// draws whose pooled rank (pooledRanks) falls in each of bins equal
// ranges of 1 … S. Where the chains sample one distribution, every
// chain's ranks are uniform and each bin holds about n/bins of its n
// draws; a chain above or below the others piles its draws at one end.
func rankCounts(chains [][]float64, bins int) [][]int {
	S := 0
	for _, ch := range chains {
		S += len(ch)
	}
	out := make([][]int, len(chains))
	for c, rs := range pooledRanks(chains) {
		out[c] = make([]int, bins)
		for _, r := range rs {
			out[c][min(int((r-1)*float64(bins)/float64(S)), bins-1)]++
		}
	}
	return out
}

// plotChainRanks draws rank.png: a panel per element (traceElements), each
// chain's rank histogram (rankCounts, at most rankBins bins) as a step
// line in its colour, against the pooled rank, and the count a bin holds
// when the chains mix (n/bins) dashed.
func plotChainRanks(w io.Writer, sd *sampleDraws) error {
	elems := traceElements(sd)
	bins := min(rankBins, sd.n)
	S := float64(sd.chains * sd.n)
	plots := make([][]*plot.Plot, len(elems))
	for i, e := range elems {
		p := elemPanel(e.name, i, len(elems), fmt.Sprintf("rank histograms, %d chain%s × %d draws (%s); dashed: uniform", sd.chains, plural(sd.chains), sd.n, chainNames(sd.chains)), "rank of the draw among all chains' draws")
		even, err := plotter.NewLine(plotter.XYs{{X: 0, Y: float64(sd.n) / float64(bins)}, {X: S, Y: float64(sd.n) / float64(bins)}})
		if err != nil {
			return err
		}
		even.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		p.Add(even)
		for c, counts := range rankCounts(sd.byChain(sd.ds.cols[e.col]), bins) {
			xy := make(plotter.XYs, 0, 2*bins)
			for b, k := range counts {
				xy = append(xy, plotter.XY{X: float64(b) * S / float64(bins), Y: float64(k)}, plotter.XY{X: float64(b+1) * S / float64(bins), Y: float64(k)})
			}
			if err := addChainLine(p, xy, c, vg.Points(0.8)); err != nil {
				return err
			}
		}
		p.X.Min, p.X.Max, p.Y.Min = 0, S, 0
		plots[i] = []*plot.Plot{p}
	}
	return writePanels(w, plots)
}

// samplePlotName matches the plots gpp sample writes: trace.png, rank.png,
// pairs.png, intervals.png, energy.png, the predictive checks and the
// LOO-PIT checks.
var samplePlotName = regexp.MustCompile(`^(` + regexp.QuoteMeta(tracePlot) + `|` + regexp.QuoteMeta(rankPlot) + `|` + regexp.QuoteMeta(pairsPlot) + `|` + regexp.QuoteMeta(intervalsPlot) + `|` + regexp.QuoteMeta(energyPlot) + `|ppc_[A-Za-z_][A-Za-z0-9_]*\.png|loo_pit_[A-Za-z_][A-Za-z0-9_]*\.png)$`)

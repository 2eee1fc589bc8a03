package main

// energy.png, ArviZ's plot_energy (Betancourt 2016, "Diagnosing
// suboptimal cotangent disintegrations in Hamiltonian Monte Carlo"): the
// distribution of the energy__ of the draws about its mean (the marginal
// energy) beside that of its changes from one draw to the next (the
// energy transitions). A transition distribution much narrower than the
// marginal one means a low E-BFMI: each trajectory's momentum resampling
// moves the chain across only a small part of the energy levels, and the
// chain explores the posterior's tails slowly.

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"github.com/gpplang/gpp/infer/nuts"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// energyPlot is the file of the energy plot; energyBins the most bins of
// its histograms, energyLegendChains the most chains whose E-BFMI its
// legend names one by one (more are given as their range).
const (
	energyPlot         = "energy.png"
	energyBins         = 40
	energyLegendChains = 8
)

// energyMarginalColor and energyTransitionColor fill the two histograms,
// translucent so that either shows through the other.
var (
	energyMarginalColor   = color.NRGBA{R: 31, G: 119, B: 180, A: 120}
	energyTransitionColor = color.NRGBA{R: 255, G: 127, B: 14, A: 120}
)

// energyDist is what energy.png shows of the chains' energy__.
type energyDist struct {
	// marginal holds every finite energy minus its chain's mean (over
	// the chain's finite energies), the chains pooled; transition every
	// change E_n − E_{n−1} between finite successive energies of a chain.
	marginal, transition []float64
	// ebfmi is each chain's E-BFMI (nuts.EBFMI; NaN for a chain with a
	// non-finite or constant energy).
	ebfmi []float64
}

// energyDists returns the energy plot's data of energy, chains chains of
// n draws each, one after another.
func energyDists(energy []float64, chains, n int) energyDist {
	var e energyDist
	for c := range chains {
		ch := energy[c*n : (c+1)*n]
		e.ebfmi = append(e.ebfmi, nuts.EBFMI(ch))
		mean, k := 0.0, 0
		for _, v := range ch {
			if isFinite(v) {
				mean += v
				k++
			}
		}
		mean /= float64(k)
		for i, v := range ch {
			if !isFinite(v) {
				continue
			}
			e.marginal = append(e.marginal, v-mean)
			if i > 0 && isFinite(ch[i-1]) {
				e.transition = append(e.transition, v-ch[i-1])
			}
		}
	}
	return e
}

// energyProblem says why the energy plot of sd cannot be drawn
// (energyOf), or "" when it can.
func energyProblem(sd *sampleDraws) string {
	_, why := energyOf(sd)
	return why
}

// energyOf returns the energy plot's data of sd (energyDists), or why it
// cannot be drawn: no energy__, no two finite successive energies in a
// chain, energies that do not vary, or energies so far apart (near
// ±MaxFloat64) that their differences overflow and cannot be binned.
func energyOf(sd *sampleDraws) (energyDist, string) {
	if sd.energy == nil {
		return energyDist{}, "the draws have no energy__ column"
	}
	e := energyDists(sd.energy, sd.chains, sd.n)
	if len(e.transition) == 0 {
		return e, "no chain has two successive finite energies"
	}
	lo1, hi1 := span(e.marginal)
	lo2, hi2 := span(e.transition)
	if !(hi1 > lo1) {
		return e, "the energy does not vary"
	}
	if !isFinite(max(hi1, hi2) - min(lo1, lo2)) {
		return e, "the energies' differences overflow: no bins span them"
	}
	return e, ""
}

// span returns the least and greatest of x, which is not empty.
func span(x []float64) (lo, hi float64) {
	lo, hi = x[0], x[0]
	for _, v := range x[1:] {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}

// ebfmiLabels are the lines of the energy plot's legend that give the
// chains' E-BFMI: one per chain ("chain 2: E-BFMI 0.21 < 0.3" when below
// Stan's threshold ebfmiWarn), or with more than energyLegendChains chains
// their least and greatest.
func ebfmiLabels(ebfmi []float64) []string {
	low := func(v float64) string {
		if v < ebfmiWarn {
			return fmt.Sprintf(" < %s", formatNum(ebfmiWarn))
		}
		return ""
	}
	if len(ebfmi) > energyLegendChains {
		lo, hi, at := math.Inf(1), math.Inf(-1), 0
		for c, v := range ebfmi {
			if v < lo {
				lo, at = v, c
			}
			hi = math.Max(hi, v)
		}
		return []string{fmt.Sprintf("E-BFMI %.3g (chain %d%s) to %.3g", lo, at+1, low(lo), hi)}
	}
	out := make([]string, len(ebfmi))
	for c, v := range ebfmi {
		out[c] = fmt.Sprintf("chain %d: E-BFMI %.3g%s", c+1, v, low(v))
	}
	return out
}

// energyHist returns the histogram of x over bins equal bins from lo to
// hi, as a density (its area 1), filled with fill.
func energyHist(x []float64, lo, hi float64, bins int, fill color.Color) *plotter.Histogram {
	w := (hi - lo) / float64(bins)
	h := &plotter.Histogram{Bins: make([]plotter.HistogramBin, bins), Width: w, FillColor: fill}
	for b := range h.Bins {
		h.Bins[b].Min, h.Bins[b].Max = lo+float64(b)*w, lo+float64(b+1)*w
	}
	for _, v := range x {
		h.Bins[min(int((v-lo)/w), bins-1)].Weight++
	}
	for b := range h.Bins {
		h.Bins[b].Weight /= float64(len(x)) * w
	}
	h.LineStyle = draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(0.4)}
	return h
}

// plotEnergy draws energy.png: the densities of energyDists' marginal
// energies and energy transitions of sd's chains, pooled, as histograms
// over one set of bins, and the chains' E-BFMI in the legend.
func plotEnergy(w io.Writer, sd *sampleDraws) error {
	e, why := energyOf(sd)
	if why != "" {
		return fmt.Errorf("no energy plot: %s", why)
	}
	lo1, hi1 := span(e.marginal)
	lo2, hi2 := span(e.transition)
	lo, hi := math.Min(lo1, lo2), math.Max(hi1, hi2)
	bins := min(energyBins, max(5, int(math.Sqrt(float64(len(e.marginal))))))
	p := plot.New()
	p.Title.Text = fmt.Sprintf("energy of %d chain%s × %d draws: marginal E − mean E and transitions ΔE", sd.chains, plural(sd.chains), sd.n)
	p.X.Label.Text = "energy about its chain's mean (E − mean E), or its change between draws (ΔE)"
	p.Y.Label.Text = "density"
	p.Add(plotter.NewGrid())
	m := energyHist(e.marginal, lo, hi, bins, energyMarginalColor)
	t := energyHist(e.transition, lo, hi, bins, energyTransitionColor)
	p.Add(m, t)
	p.Legend.Add("marginal energy E − mean E", m)
	p.Legend.Add("energy transition ΔE", t)
	for _, l := range ebfmiLabels(e.ebfmi) {
		p.Legend.Add(l)
	}
	p.Legend.Add("ΔE much narrower: low E-BFMI")
	p.Legend.Top = true
	p.Y.Min = 0
	c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(plotDPI))}
	p.Draw(draw.New(c.Canvas))
	_, err := c.WriteTo(w)
	return err
}

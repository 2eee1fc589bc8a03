package main

// The LOO probability integral transform (gpp fit/sample --plots): for
// each observation i of data y that a replicate mirrors (ppc.go) and that
// log_lik has a term of, PIT_i = P(ỹ_i ≤ y_i | y_−i) ≈ Σ_s w̃_is·I(ỹ_is ≤
// y_i), with w̃_is the PSIS-smoothed LOO weights of i that loo.csv's
// elpd_loo uses (sgvb.LOOLogWeights). If the model's predictive
// distributions are calibrated the PIT values are uniform;
// loo_pit_y.png draws their ECDF less u with a 95 % simultaneous band
// for n uniform values, as bayesplot's ppc_loo_pit_ecdf(plot_diff = TRUE).

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/lang/compile"
	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// pitStream is the random stream of the LOO-PIT: the randomisation of
// discrete data's PIT values, then the band's simulations.
const pitStream = 0x6c6f6f2d70697421

// pitPlotName names the LOO-PIT check of data y.
func pitPlotName(y string) string { return "loo_pit_" + y + ".png" }

// looDraws are the draws a LOO estimate weighted, for the LOO-PIT.
type looDraws struct {
	lr   []float64   // log p − log proposal per draw (nil: 0, draws of the posterior)
	ll   [][]float64 // ll[i]: observation i's (drawSet.looObs[i]) log likelihood per draw
	reff []float64   // the draws' relative efficiency per observation (nil: 1)
	// xs holds a fit's LOO draws' coordinates for --moment-match (nil:
	// not kept), and marginal says that the draws' missing values were
	// redrawn from their model (looWeights.miss), which moment matching
	// does not follow.
	xs       []float64
	marginal bool
	// rep holds the replicates' values at the draws by output name; an
	// output absent has the drawSet's own columns.
	rep map[string]pitRep
}

// pitRep is a replicate's values at the LOO draws, element j's (log_lik's
// order) being own[j] then extra[j] (own nil: extra[j] alone). own shares
// the output draws' columns, so that the LOO-PIT copies no more than one
// element's draws at a time.
type pitRep struct {
	own, extra [][]float64
}

// draws returns how many LOO draws element j has values at.
func (r pitRep) draws(j int) int {
	if r.own == nil {
		return len(r.extra[j])
	}
	return len(r.own[j]) + len(r.extra[j])
}

// column returns element j's values at the LOO draws, in buf's storage.
func (r pitRep) column(j int, buf []float64) []float64 {
	if r.own == nil {
		return r.extra[j]
	}
	return append(append(buf[:0], r.own[j]...), r.extra[j]...)
}

// pitCheck is the LOO-PIT check of one replicate's data.
type pitCheck struct {
	m        ppcMatch
	note     string    // why there is no check ("" when there is one)
	pit      []float64 // the PIT values, sorted
	band     pitBand
	counts   []int  // how many PIT values are ≤ band.z[k]
	outside  bool   // the ECDF leaves the band somewhere
	shape    string // what its leaving says (pitShape), "" inside
	discrete bool
	// flagged counts the PIT values whose observation's Pareto k̂ is above
	// 0.7 (or not estimated), and qk is the k̂ of the draws' own weights
	// p/q (NaN: draws of the posterior): their PIT values rest on
	// unreliable weights (pitNote).
	flagged int
	qk      float64
}

// pitNames lists the LOO-PIT checks' files that a fit of m with the
// replicates ms writes: one per data y whose replicate has log_lik's
// shape (log_lik a term per element of y).
func pitNames(ms []ppcMatch, m *compile.Model) []string {
	if !hasLOOOutput(m) {
		return nil
	}
	shapes := map[string][]int{}
	for _, o := range m.Outputs {
		shapes[o.Name] = o.Shape
	}
	var names []string
	for _, p := range ms {
		if sameShape(shapes[p.output], shapes[looOutput]) {
			names = append(names, pitPlotName(p.data))
		}
	}
	return names
}

// pitChecks returns the LOO-PIT checks of ds for the replicates ms (made
// once, then kept in ds), with a note for each replicate whose data
// log_lik has no term per element of. None without LOO draws.
func pitChecks(ms []ppcMatch, ds *drawSet, seed uint64) []pitCheck {
	if ds.pits != nil || ds.pitDraws == nil || ds.loo == nil {
		return ds.pits
	}
	v, _ := ds.looVar()
	rng := rand.New(rand.NewPCG(seed, pitStream))
	ds.pits = []pitCheck{}
	for _, m := range ms {
		u, _ := ds.outputVar(m.output)
		c := pitCheck{m: m, discrete: m.intRep, qk: ds.loo.QK}
		if !sameShape(u.shape, v.shape) {
			c.note = fmt.Sprintf("no LOO-PIT of %s: log_lik has %d element%s of shape %s, %s %d of shape %s; give log_lik a term per element of %s",
				m.data, len(v.elems), plural(len(v.elems)), fitfile.ShapeText(v.shape), m.data, len(u.elems), fitfile.ShapeText(u.shape), m.data)
			ds.pits = append(ds.pits, c)
			continue
		}
		rep, ok := ds.pitDraws.rep[m.output]
		if !ok {
			rep = pitRep{extra: replicateDraws(ds, m.output).cols}
		}
		if len(rep.extra) != len(v.elems) || rep.own != nil && len(rep.own) != len(v.elems) ||
			len(ds.looObs) > 0 && rep.draws(0) != len(ds.pitDraws.ll[0]) {
			// a replicate not recorded at every LOO draw (a fit's defensive draws)
			c.note = fmt.Sprintf("no LOO-PIT of %s: %s is not known at the LOO draws", m.data, m.output)
			ds.pits = append(ds.pits, c)
			continue
		}
		var buf []float64
		for i, j := range ds.looObs {
			y := m.values[v.elems[j]]
			if math.IsNaN(y) {
				continue
			}
			reff := 1.0
			if ds.pitDraws.reff != nil {
				reff = ds.pitDraws.reff[i]
			}
			lw := sgvb.LOOLogWeights(ds.pitDraws.lr, ds.pitDraws.ll[i], reff)
			buf = rep.column(j, buf)
			if p := looPIT(lw, buf, y, c.discrete, rng.Float64()); !math.IsNaN(p) {
				c.pit = append(c.pit, p)
				if i < len(ds.loo.Points) && !(ds.loo.Points[i].K <= 0.7) {
					c.flagged++
				}
			}
		}
		if len(c.pit) < ppcMinValues {
			c.note = fmt.Sprintf("no LOO-PIT of %s: fewer than %d observations with finite weights", m.data, ppcMinValues)
			ds.pits = append(ds.pits, c)
			continue
		}
		slices.Sort(c.pit)
		c.band = newPITBand(len(c.pit), pitBandSims, rng)
		c.counts = c.band.counts(c.pit)
		c.outside = !c.band.inside(c.counts)
		if c.outside {
			c.shape = pitShape(c.pit)
		}
		ds.pits = append(ds.pits, c)
	}
	return ds.pits
}

// looPIT returns the LOO-PIT of the observed value y from the draws rep of
// its replicate weighted by the normalised log weights lw: Σ_s w_s·I(rep_s
// ≤ y). For discrete data it is randomised, P(ỹ < y) + u·P(ỹ = y) with u
// uniform on (0, 1), so that it is uniform for a calibrated model
// (pitChecks: for an int replicate, whatever y's type).
// Draws whose replicate is not finite are left out and the weights of the
// others renormalised; NaN when none has weight.
func looPIT(lw, rep []float64, y float64, discrete bool, u float64) float64 {
	var below, at, total float64
	for s, x := range rep {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		w := math.Exp(lw[s])
		total += w
		switch {
		case x < y:
			below += w
		case x == y:
			at += w
		}
	}
	if !(total > 0) {
		return math.NaN()
	}
	p := below + at
	if discrete {
		p = below + u*at
	}
	return min(max(p/total, 0), 1)
}

// The band: pitBandSims seeded samples of n uniform values, the ECDF of
// each evaluated on a grid of at most pitMaxGrid points, give the band
// at level 1 − pitAlpha.
const (
	pitBandSims = 1000
	pitMaxGrid  = 100
	pitAlpha    = 0.05
)

// pitBand is a simultaneous band for the ECDF of n uniform values at the
// points z: a uniform sample's count of values ≤ z[k] lies in lo[k]..hi[k]
// at every k together with probability 1 − pitAlpha.
//
// It is Säilynoja, Bürkner and Vehtari's ("Graphical test for discrete
// uniformity and its applications in goodness-of-fit evaluation and
// multiple sample comparison", Stat. Comput. 2022) simulation method:
// the count at z[k] is Binomial(n, z[k]); the pointwise intervals
// [F⁻¹(γ/2), F⁻¹(1 − γ/2)] of those binomials (the counts both of whose
// tail probabilities are at least γ/2) hold all at once with
// probability 1 − α for the γ/2 that is the α-quantile, over simulated
// uniform samples, of each sample's smallest tail probability min_k
// min(F_k(c_k), 1 − F_k(c_k − 1)). With 1000 samples the band's coverage
// is 95 % up to a Monte Carlo error of about √(0.05·0.95/1000) ≈ 0.7 %.
type pitBand struct {
	n      int
	z      []float64
	lo, hi []int
}

// pitGrid returns the points the ECDF of n values is checked at: k/K for
// k = 1…K−1, K = min(n, pitMaxGrid) but at least 2 (at 0 and 1 the ECDF
// is 0 and 1 for any sample).
func pitGrid(n int) []float64 {
	K := max(min(n, pitMaxGrid), 2)
	z := make([]float64, K-1)
	for k := range z {
		z[k] = float64(k+1) / float64(K)
	}
	return z
}

// newPITBand returns the band for n values from sims uniform samples drawn
// with rng.
func newPITBand(n, sims int, rng *rand.Rand) pitBand {
	b := pitBand{n: n, z: pitGrid(n)}
	bins := make([]distuv.Binomial, len(b.z))
	for k, z := range b.z {
		bins[k] = distuv.Binomial{N: float64(n), P: z}
	}
	tails := make([]float64, sims)
	x := make([]float64, n)
	for s := range tails {
		for i := range x {
			x[i] = rng.Float64()
		}
		slices.Sort(x)
		t := 1.0
		for k, c := range b.counts(x) {
			t = min(t, bins[k].CDF(float64(c)), 1-bins[k].CDF(float64(c-1)))
		}
		tails[s] = t
	}
	slices.Sort(tails)
	g := tails[int(pitAlpha*float64(sims))]
	b.lo, b.hi = make([]int, len(b.z)), make([]int, len(b.z))
	// lo..hi are the counts whose tail probabilities, computed as above,
	// are both at least γ: a simulated sample is inside exactly when its
	// smallest is, ties at γ included on either side (with few values
	// they are common, and an upper bound by 1 − γ would drop them)
	for k := range b.z {
		d := bins[k]
		b.lo[k] = firstCount(n, func(c int) bool { return d.CDF(float64(c)) >= g })
		b.hi[k] = firstCount(n, func(c int) bool { return 1-d.CDF(float64(c)) < g }) // 1 − F(c) the tail of c + 1
	}
	return b
}

// firstCount is the smallest c in 0…n for which ok holds, ok false then
// true as c grows (n when it holds nowhere below n).
func firstCount(n int, ok func(c int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		c := (lo + hi) / 2
		if ok(c) {
			hi = c
		} else {
			lo = c + 1
		}
	}
	return lo
}

// counts returns how many of the sorted values are ≤ each b.z[k].
func (b pitBand) counts(sorted []float64) []int {
	c := make([]int, len(b.z))
	i := 0
	for k, z := range b.z {
		for i < len(sorted) && sorted[i] <= z {
			i++
		}
		c[k] = i
	}
	return c
}

// inside reports whether the counts stay in the band at every point.
func (b pitBand) inside(counts []int) bool {
	for k, c := range counts {
		if c < b.lo[k] || c > b.hi[k] {
			return false
		}
	}
	return true
}

// pitShape says what PIT values whose ECDF leaves the band tell of the
// predictive distributions, from the ECDF less u at ¼ and ¾: above at ¼
// and below at ¾, the values pile up at 0 and 1 (the observations fall in
// the predictions' tails: too narrow); the other way round they pile up
// in the middle (too wide); both above, they pile up near 0 (the
// observations below the predictions: biased high); both below, near 1.
func pitShape(sorted []float64) string {
	frac := func(z float64) float64 {
		i, _ := slices.BinarySearch(sorted, math.Nextafter(z, 2))
		return float64(i)/float64(len(sorted)) - z
	}
	a, b := frac(0.25), frac(0.75)
	switch {
	case a > 0 && b < 0:
		return "the predictive distributions are too narrow (PIT values pile up at 0 and 1)"
	case a < 0 && b > 0:
		return "the predictive distributions are too wide (PIT values pile up in the middle)"
	case a+b > 0:
		return "the predictive distributions are biased: too high (PIT values pile up near 0)"
	case a+b < 0:
		return "the predictive distributions are biased: too low (PIT values pile up near 1)"
	default:
		return "the PIT values are not uniform, with no simple shape at their quartiles (see the plot)"
	}
}

// pitNote is the console line of a check: a reason there is none, or what
// its leaving the band says ("" inside). PIT values from PSIS weights
// whose k̂ is above 0.7 are unreliable: with more than looUnreliableShare
// of them flagged, or q's own weights p/q heavy-tailed, the shape is no
// verdict on the model (a trial's correctly specified horseshoe, 100 of
// 100 flagged, read "too narrow"); with fewer, the note counts them.
func pitNote(c pitCheck) string {
	switch {
	case c.note != "":
		return c.note
	case !c.outside:
		return ""
	case c.qk > 0.7 || looUnreliable(c.flagged, len(c.pit)):
		qk := ""
		if c.qk > 0.7 {
			qk = fmt.Sprintf(", and the draws' own weights p/q have k̂ %s", num3(c.qk))
		}
		return fmt.Sprintf("LOO-PIT of %s leaves the 95 %% band, but Pareto k̂ is above 0.7 for %d of its %d observations%s: the PSIS weights its values rest on are unreliable, so its reading, that %s, is no verdict on the model (draws far from the posterior give it as well); read it again once k̂ is below 0.7 for most observations (the LOO warning says how)",
			c.m.data, c.flagged, len(c.pit), qk, c.shape)
	case c.flagged > 0:
		return fmt.Sprintf("LOO-PIT of %s leaves the 95 %% band: %s (Pareto k̂ above 0.7 for %d of its %d observations, whose PIT values are less sure)", c.m.data, c.shape, c.flagged, len(c.pit))
	}
	return fmt.Sprintf("LOO-PIT of %s leaves the 95 %% band: %s", c.m.data, c.shape)
}

// printPITNotes prints the notes of the checks of ds (pitChecks).
func printPITNotes(w io.Writer, ds *drawSet) {
	for _, c := range ds.pits {
		if n := pitNote(c); n != "" {
			fmt.Fprintln(w, n)
		}
	}
}

// pitFiles renders the LOO-PIT checks of ds for the replicates ms (the
// draws' pitChecks with seed), one loo_pit_y.png each; kind names the
// draws in the titles.
func pitFiles(ms []ppcMatch, ds *drawSet, seed uint64, kind string) []outputFile {
	var out []outputFile
	for _, c := range pitChecks(ms, ds, seed) {
		if c.note != "" {
			continue
		}
		out = append(out, outputFile{pitPlotName(c.m.data), func(w io.Writer) error { return plotPIT(w, c, kind) }})
	}
	return out
}

// plotPIT draws the ECDF of c's PIT values less u, over the band less u
// (light) and the line 0.
func plotPIT(w io.Writer, c pitCheck, kind string) error {
	p := plot.New()
	verdict := "inside the 95 % simultaneous band"
	if c.outside {
		verdict = "leaves the 95 % simultaneous band"
	}
	p.Title.Text = fmt.Sprintf("LOO-PIT of %s (%s, %d values): %s", c.m.data, kind, len(c.pit), verdict)
	p.X.Label.Text = "u"
	p.Y.Label.Text = "ECDF(u) − u of the LOO-PIT values"
	p.Add(plotter.NewGrid())
	n := float64(c.band.n)
	pts := func(f func(k int) float64) plotter.XYs {
		xy := plotter.XYs{{X: 0, Y: 0}}
		for k, z := range c.band.z {
			xy = append(xy, plotter.XY{X: z, Y: f(k) - z})
		}
		return append(xy, plotter.XY{X: 1, Y: 0})
	}
	hi := pts(func(k int) float64 { return float64(c.band.hi[k]) / n })
	lo := pts(func(k int) float64 { return float64(c.band.lo[k]) / n })
	poly, err := bandPolygon(hi, lo, ppcFill)
	if err != nil {
		return err
	}
	p.Add(poly)
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
	if err != nil {
		return err
	}
	zero.Color, zero.Dashes = ppcLight, []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(zero)
	// the ECDF itself, a step at every PIT value
	ecdf := plotter.XYs{{X: 0, Y: 0}}
	for i, x := range c.pit {
		ecdf = append(ecdf, plotter.XY{X: x, Y: float64(i)/n - x}, plotter.XY{X: x, Y: float64(i+1)/n - x})
	}
	ecdf = append(ecdf, plotter.XY{X: 1, Y: 0})
	l, err := plotter.NewLine(ecdf)
	if err != nil {
		return err
	}
	l.Color, l.Width = ppcDark, vg.Points(1.5)
	p.Add(l)
	p.Legend.Add("ECDF − u", l)
	p.Legend.Add("95 % band (n uniform)", poly)
	p.Legend.Top = true
	p.X.Min, p.X.Max = 0, 1
	c2 := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(plotWidth+ppcLegend, plotHeight), vgimg.UseDPI(plotDPI))}
	p.Draw(draw.New(c2.Canvas))
	_, err = c2.WriteTo(w)
	return err
}

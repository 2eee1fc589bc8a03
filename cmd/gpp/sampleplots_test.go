package main

import (
	"bytes"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/pipeline"
)

// TestSamplePlots: --plots writes trace.png, rank.png, pairs.png, intervals.png and energy.png, a panel per element of the
// first params (4 at most, no outputs), and fit's predictive checks of
// the data a replicate mirrors; a later sample without --plots into the
// same directory removes them. Holds for any sampler.
func TestSamplePlots(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s")
	args := []string{"sample", "testdata/fit_predictive.gpp", "testdata/fit_predictive.csv", "--quiet", "--chains", "2", "--warmup", "50", "--draws", "40", "--out", out}
	code, stdout, stderr := runGpp(append(args, "--plots")...)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "trace.png rank.png pairs.png intervals.png energy.png ppc_y.png ppc_stat_y.png") {
		t.Errorf("written line:\n%s", stdout)
	}
	for _, name := range []string{tracePlot, rankPlot, pairsPlot, intervalsPlot, energyPlot, "ppc_y.png", "ppc_stat_y.png"} {
		img := decodePNG(t, filepath.Join(out, name))
		minHt := 200
		if name == intervalsPlot {
			_, minHt = intervalsPNGSize([]int{1}, false) // one param's row: TestPlotIntervalsEdges checks the sizes
		}
		if b := img.Bounds(); b.Dx() < 500 || b.Dy() < minHt {
			t.Errorf("%s: %v", name, b)
		}
	}
	// rank.png and pairs.png are among the files --out would be written, which an input
	// there must not be
	l, err := pipeline.Load("testdata/fit_predictive.gpp", []string{"testdata/fit_predictive.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &fitConfig{out: out, sample: true, plots: true}
	for _, name := range []string{rankPlot, pairsPlot} {
		if err := outputClash(cfg, l.Model, []inputFile{{"the data file", filepath.Join(out, name)}}); err == nil || !strings.Contains(err.Error(), "overwritten by the output "+name) {
			t.Errorf("an input at %s: %v", filepath.Join(out, name), err)
		}
	}
	// gpp predict over the sample draws the same checks
	pred := filepath.Join(dir, "p")
	if code, _, stderr := runGpp("predict", out, "testdata/fit_predictive.gpp", "testdata/fit_predictive.csv", "--plots", "--quiet", "--out", pred); code != exitOK {
		t.Fatalf("predict --plots: exit %d:\n%s", code, stderr)
	}
	if got := strings.Join(dirEntries(t, pred), " "); got != "draws.csv ppc_stat_y.png ppc_y.png summary.csv" {
		t.Errorf("predict --plots wrote %s", got)
	}
	if code, _, stderr := runGpp(args...); code != exitOK {
		t.Fatalf("without --plots: exit %d:\n%s", code, stderr)
	}
	for _, name := range []string{tracePlot, rankPlot, pairsPlot, intervalsPlot, energyPlot, "ppc_y.png", "ppc_stat_y.png"} {
		if _, err := os.Stat(filepath.Join(out, name)); err == nil {
			t.Errorf("%s of the earlier sample left in %s", name, out)
		}
	}
}

// TestTraceElements: the trace plot shows the first 4 elements of the
// params, in summary order, and no output.
func TestTraceElements(t *testing.T) {
	sd := &sampleDraws{ds: &drawSet{vars: []variable{
		{name: "a", first: 0, elems: []int{0}},
		{name: "b", shape: []int{5}, first: 1, elems: []int{0, 1, 2, 3, 4}},
		{name: "o", output: true, first: 6, elems: []int{0}},
	}}}
	var got []string
	for _, e := range traceElements(sd) {
		got = append(got, e.name+":"+string(rune('0'+e.col)))
	}
	if want := "a:0 b[0]:1 b[1]:2 b[2]:3"; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
	sd.ds.vars = sd.ds.vars[2:]
	if e := traceElements(sd); len(e) != 0 {
		t.Errorf("outputs alone: %v, want none", e)
	}
}

// TestPooledRanks: ranks among all chains' draws, 1 to S, ties at their
// average rank and a NaN below every number.
func TestPooledRanks(t *testing.T) {
	got := pooledRanks([][]float64{{3, 1, 2}, {2, 5, math.NaN()}})
	want := [][]float64{{5, 2, 3.5}, {3.5, 6, 1}}
	for c := range want {
		if !slices.Equal(got[c], want[c]) {
			t.Errorf("chain %d: ranks %v, want %v", c+1, got[c], want[c])
		}
	}
}

// TestRankCounts: each chain's rank histogram counts all its draws; chains
// of one distribution fill every bin about evenly (within 5 binomial sds
// of n/bins), while a chain shifted up by 2 sds piles its draws in the top
// bins and leaves the bottom ones to the others.
func TestRankCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const n, bins = 1000, 20
	chains := make([][]float64, 4)
	for c := range chains {
		chains[c] = make([]float64, n)
		for i := range n {
			chains[c][i] = rng.NormFloat64()
		}
	}
	even := float64(n) / bins
	sd := math.Sqrt(n * (1.0 / bins) * (1 - 1.0/bins))
	for c, counts := range rankCounts(chains, bins) {
		total := 0
		for b, k := range counts {
			total += k
			if math.Abs(float64(k)-even) > 5*sd {
				t.Errorf("mixed chain %d, bin %d: %d draws, want about %v", c+1, b, k, even)
			}
		}
		if total != n {
			t.Errorf("chain %d: %d draws counted, want %d", c+1, total, n)
		}
	}
	for i := range chains[3] {
		chains[3][i] += 2
	}
	counts := rankCounts(chains, bins)
	top, bottom := 0, 0
	for b := range 5 {
		bottom += counts[3][b]
		top += counts[3][bins-1-b]
	}
	if total := func(ks []int) (s int) {
		for _, k := range ks {
			s += k
		}
		return s
	}(counts[3]); total != n || !(top > n/2) || !(bottom < n/50) {
		t.Errorf("shifted chain: %d draws counted, %d in the top 5 bins, %d in the bottom 5: %v", total, top, bottom, counts[3])
	}
}

// funnelDraws returns n draws of a, b[3] and a positive tau (columns 0 to
// 4) and an output, divergent where log tau < -1.5: a hierarchy's
// divergences in the funnel's neck, at tau's small values.
func funnelDraws(n int) *sampleDraws {
	rng := rand.New(rand.NewPCG(41, 42))
	sd := &sampleDraws{n: n, chains: 1, divergent: make([]bool, n), ds: &drawSet{vars: []variable{
		{name: "a", first: 0, elems: []int{0}},
		{name: "b", shape: []int{3}, first: 1, elems: []int{0, 1, 2}},
		{name: "tau", first: 4, elems: []int{0}, logScale: true},
		{name: "o", output: true, first: 5, elems: []int{0}},
	}}}
	sd.ds.cols = make([][]float64, 6)
	for c := range sd.ds.cols {
		sd.ds.cols[c] = make([]float64, n)
	}
	for d := range n {
		for c := range 4 {
			sd.ds.cols[c][d] = rng.NormFloat64()
		}
		lt := rng.NormFloat64()
		sd.ds.cols[4][d], sd.ds.cols[5][d] = math.Exp(lt), 100*lt
		sd.divergent[d] = lt < -1.5
	}
	return sd
}

// TestPairsElements: with divergences at tau's small values the pairs plot
// shows tau (on the log scale), which the trace's first 4 elements leave
// out, with 3 of those, in summary order, and never the output; with 2
// divergences whose shift is below the noise floor, without divergences,
// or with every draw divergent, it shows the trace's.
func TestPairsElements(t *testing.T) {
	sd := funnelDraws(2000)
	names := func(es []traceElem) string {
		var out []string
		for _, e := range es {
			out = append(out, pairsLabel(e))
		}
		return strings.Join(out, " ")
	}
	got := pairsElements(sd)
	if len(got) != traceElems || got[len(got)-1].name != "tau" || pairsLabel(got[len(got)-1]) != "log tau" ||
		!slices.IsSortedFunc(got, func(a, b traceElem) int { return a.col - b.col }) {
		t.Errorf("with divergences at small tau: %s", names(got))
	}
	if s := divergenceShift(pairsValues(sd, got[len(got)-1]), sd.divergent); !(s > 1) {
		t.Errorf("tau's shift %v, want > 1 sd", s)
	}
	// 2 divergent draws near every element's mean but for log tau = 0.3,
	// a shift below the noise floor: the trace's
	for d := range sd.divergent {
		sd.divergent[d] = d < 2
		if d < 2 {
			for c := range 4 {
				sd.ds.cols[c][d] = 0
			}
			sd.ds.cols[4][d] = math.Exp(0.3)
		}
	}
	if got, want := names(pairsElements(sd)), names(traceElements(sd)); got != want {
		t.Errorf("2 divergences near the means: %s, want %s", got, want)
	}
	for _, all := range []bool{false, true} {
		for d := range sd.divergent {
			sd.divergent[d] = all
		}
		if got, want := names(pairsElements(sd)), names(traceElements(sd)); got != want || want != "a b[0] b[1] b[2]" {
			t.Errorf("divergent %v everywhere: %s, want %s", all, got, want)
		}
	}
}

// TestPairsDraws: up to the limit every draw is shown; beyond it the
// non-divergent ones are thinned evenly (a gap of n/limit) and every
// divergent one is kept, in order.
func TestPairsDraws(t *testing.T) {
	div := make([]bool, 10000)
	ndiv := 0
	for d := range div {
		if d%37 == 5 || d >= 5000 && d < 5020 {
			div[d] = true
			ndiv++
		}
	}
	if got := pairsDraws(div[:800], 1000); len(got) != 800 || got[799] != 799 {
		t.Errorf("800 draws, limit 1000: %d shown", len(got))
	}
	got := pairsDraws(div, 1000)
	if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) || len(got) > 1000+ndiv {
		t.Fatalf("%d draws shown, not sorted and distinct, or more than 1000 + %d divergent", len(got), ndiv)
	}
	kept := 0
	for _, d := range got {
		if div[d] {
			kept++
		}
	}
	for d := range div {
		if want := div[d] || d%10 == 0; slices.Contains(got, d) != want {
			t.Fatalf("draw %d (divergent %v) shown %v", d, div[d], !want)
		}
	}
	if kept != ndiv {
		t.Errorf("%d of %d divergent draws kept", kept, ndiv)
	}
}

// TestLogScale: the pairs plot takes the log of a positive param, a
// real<lower=0> and a positive_ordered, not of a real, a shifted lower
// bound or a simplex.
func TestLogScale(t *testing.T) {
	src := "data y: real[1]\nparam a: positive ~ Gamma(2, 2)\nparam b: real<lower=0> ~ Normal(0, 1)\nparam c: positive_ordered[2] ~ Gamma(2, 2)\nparam r: real ~ Normal(0, 1)\nparam l: real<lower=1> ~ Normal(0, 1)\nparam s: simplex[3] ~ Dirichlet(rep(1, 3))\ny ~ Normal(a + b + c[1] + r + l + s[1], 1)\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "m.gpp"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte("y\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := pipeline.Load(filepath.Join(dir, "m.gpp"), []string{filepath.Join(dir, "d.csv")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range modelDrawSet(l.Model, "nuts", 1).vars {
		if v.logScale {
			got = append(got, v.name)
		}
	}
	if strings.Join(got, " ") != "a b c" {
		t.Errorf("log scale: %v, want a b c", got)
	}
}

// TestSampleDivergencePairsNote: with --plots, the divergence warning of
// a centred eight schools (which diverges in its funnel's neck) points to
// pairs.png; without, it does not name a file it did not write.
func TestSampleDivergencePairsNote(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "centred.gpp")
	src := "data J: int\ndata y: real[J]\ndata sigma: positive[J]\nparam mu: real ~ Normal(0, 5)\nparam tau: positive ~ Cauchy(0, 5)\nparam theta: real[J] ~ Normal(mu, tau)\ny ~ Normal(theta, sigma)\n"
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, plots := range []bool{true, false} {
		out := filepath.Join(dir, strconv.FormatBool(plots))
		args := []string{"sample", model, "testdata/laplace_eight_schools.json", "--quiet", "--seed", "1", "--warmup", "200", "--draws", "200", "--out", out}
		if plots {
			args = append(args, "--plots")
		}
		code, _, stderr := runGpp(args...)
		if code != exitOK {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
		if !strings.Contains(stderr, "ended with a divergence") {
			t.Fatalf("no divergence warning (the test needs one):\n%s", stderr)
		}
		note := filepath.Join(out, pairsPlot) + " shows where the divergent draws lie"
		if got := strings.Contains(stderr, note); got != plots {
			t.Errorf("--plots %v: the note %q present %v:\n%s", plots, note, got, stderr)
		}
	}
}

// TestPlotPairsEdges: pairs.png is drawn, a decodable PNG, from draws a
// run can give: a real<lower=0> whose draws include exact zeros (log 0 =
// −Inf) or are all zero, NaN draws, a constant element, one element, one
// draw, none, no params, every draw divergent; the axes span only the
// finite values (an infinite one hangs the ticks).
func TestPlotPairsEdges(t *testing.T) {
	const n = 50
	zeros, nan, cst, lin := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	div, alldiv := make([]bool, n), make([]bool, n)
	for i := range n {
		nan[i], cst[i], lin[i] = math.NaN(), 3, float64(i)
		if i%2 == 1 {
			zeros[i] = float64(i)
		}
		div[i], alldiv[i] = i < 5, true
	}
	two := func(a variable, ca, cb []float64, div []bool) *sampleDraws {
		b := variable{name: "b", first: 1, elems: []int{0}}
		return &sampleDraws{n: len(div), chains: 1, divergent: div, ds: &drawSet{vars: []variable{a, b}, cols: [][]float64{ca, cb}}}
	}
	a := variable{name: "a", elems: []int{0}}
	pos := variable{name: "a", elems: []int{0}, logScale: true}
	cases := map[string]*sampleDraws{
		"zeros":         two(pos, zeros, lin, div),
		"all zero":      two(pos, make([]float64, n), lin, div),
		"NaN":           two(a, nan, lin, div),
		"constant":      two(a, cst, lin, div),
		"all divergent": two(a, cst, lin, alldiv),
		"one draw":      two(a, []float64{1}, []float64{2}, []bool{true}),
		"no draws":      two(a, nil, nil, nil),
		"one element":   {n: n, chains: 1, divergent: div, ds: &drawSet{vars: []variable{a}, cols: [][]float64{lin}}},
		"no params":     {n: n, chains: 1, divergent: div, ds: &drawSet{}},
	}
	for name, sd := range cases {
		for _, e := range pairsElements(sd) {
			if lo, hi, ok := finiteRange(pairsValues(sd, e), pairsDraws(sd.divergent, pairsMaxDraws)); ok && (math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(lo < hi)) {
				t.Errorf("%s: %s's axis [%g, %g]", name, e.name, lo, hi)
			}
		}
	}
	if t.Failed() {
		t.FailNow() // an infinite axis would hang plotPairs
	}
	for name, sd := range cases {
		var b bytes.Buffer
		if err := plotPairs(&b, sd); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if _, err := png.Decode(&b); err != nil {
			t.Errorf("%s: pairs.png does not decode: %v", name, err)
		}
	}
}

package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/reftest"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestAgainstReadings: the reading of an element takes both the practical
// tolerance and the Monte Carlo errors into account, whatever sampler
// gave the numbers: an sd ratio of 0.8 is "q too narrow" with 2000
// effective draws and not with 20 (its relative error then ~0.16), a mean
// 0.5 sd off is "q shifted" when its error is small, and a difference
// below the tolerance is "agrees" however precise the draws.
func TestAgainstReadings(t *testing.T) {
	precise := mcmcStats{mcse: 0.01, essBulk: 2000, essTail: 2000, mcseSD: 1 / math.Sqrt(4000)}
	noisy := mcmcStats{mcse: 0.3, essBulk: 20, essTail: 20, mcseSD: 1 / math.Sqrt(40)}
	for _, c := range []struct {
		name           string
		qm, qs, qDraws float64
		mc             mcmcStats
		want           string
		flagged        bool
	}{
		{"narrow", 0, 0.8, 4000, precise, "q too narrow", true},
		{"narrow noisy", 0, 0.8, 4000, noisy, "within Monte Carlo error", false},
		{"narrow, few q draws", 0, 0.8, 20, precise, "within Monte Carlo error", false},
		{"wide", 0, 1.3, 4000, precise, "q too wide", true},
		{"shifted", 0.5, 1, 4000, precise, "q shifted above", true},
		{"shifted below and narrow", -0.5, 0.5, 4000, precise, "q shifted below, q too narrow", true},
		{"shifted noisy", 0.5, 1, 4000, noisy, "within Monte Carlo error", false},
		{"agrees", 0.05, 1.05, 4000, precise, "agrees", false},
		{"agrees noisy", 0.05, 1.05, 4000, noisy, "agrees", false},
		{"constant", 0, 1, 4000, precise, "not compared", false},
	} {
		s := 1.0
		if c.name == "constant" {
			s = 0
		}
		r := againstElem("x", c.qm, c.qs, c.qDraws, 0, s, c.mc, againstShape{})
		if !strings.HasPrefix(r.reading, c.want) || r.flagged != c.flagged {
			t.Errorf("%s: reading %q (flagged %v), want %q (flagged %v)", c.name, r.reading, r.flagged, c.want, c.flagged)
		}
	}
	// z's error: the two means' errors over NUTS's sd
	r := againstElem("x", 1, 2, 100, 0, 4, mcmcStats{mcse: 0.3, essBulk: 50, essTail: 80, mcseSD: 0.6}, againstShape{})
	if want := math.Sqrt(0.09+4.0/100) / 4; math.Abs(r.seZ-want) > 1e-15 || r.z != 0.25 || r.ratio != 0.5 {
		t.Errorf("z %v ± %v, ratio %v; want 0.25 ± %v, 0.5", r.z, r.seZ, r.ratio, want)
	}
	if want := 0.5 * math.Sqrt(0.15*0.15+1.0/200); math.Abs(r.seRatio-want) > 1e-15 {
		t.Errorf("the sd ratio's error %v, want %v (NUTS's mcse_sd/sd 0.15, q's 1/√200)", r.seRatio, want)
	}
	// without an mcse_sd, NUTS's side is normal's, from the smaller ESS
	r = againstElem("x", 1, 2, 100, 0, 4, mcmcStats{mcse: 0.3, essBulk: 50, essTail: 80, mcseSD: math.NaN()}, againstShape{})
	if want := 0.5 * math.Sqrt(1.0/100+1.0/200); math.Abs(r.seRatio-want) > 1e-15 {
		t.Errorf("the sd ratio's error %v, want %v (from the smaller ESS, 50)", r.seRatio, want)
	}
	// the draws' kurtosis k, the larger of q's and NUTS's: q's side
	// √((k − 1)/(4S)), NUTS's mcse_sd scaled by √((k − 1)/(kurt − 1)) when
	// q's is the larger, and √((k − 1)/(4n)) without an mcse_sd
	for _, c := range []struct {
		sh     againstShape
		mcseSD float64
		want   float64
	}{
		{againstShape{qKurt: 9, kurt: 5}, 0.6, 0.5 * math.Sqrt(0.15*0.15*8/4+8.0/400)},
		{againstShape{qKurt: 5, kurt: 9}, 0.6, 0.5 * math.Sqrt(0.15*0.15+8.0/400)},
		{againstShape{qKurt: 9, kurt: 5}, math.NaN(), 0.5 * math.Sqrt(8.0/200+8.0/400)},
	} {
		r = againstElem("x", 1, 2, 100, 0, 4, mcmcStats{mcse: 0.3, essBulk: 50, essTail: 80, mcseSD: c.mcseSD}, c.sh)
		if math.Abs(r.seRatio-c.want) > 1e-15 {
			t.Errorf("kurtosis %+v, mcse_sd %v: the sd ratio's error %v, want %v", c.sh, c.mcseSD, r.seRatio, c.want)
		}
	}
}

// Coverage bounds of TestAgainstHeavyTails: of ±2 standard errors, 0.954
// for a right error; 400 replicates give the coverage a binomial sd of
// about 0.011, and the normal formula's for t₅ draws is 0.72–0.80 (seeds
// 1–3).
const (
	againstCoverLo    = 0.91
	againstCoverHi    = 0.99
	againstCoverOldHi = 0.85
)

// TestAgainstHeavyTails: the sd ratio's error has NUTS's sd's from
// mcse_sd, which sees the tails. 400 replicates of 4 chains of 100 iid
// draws play NUTS's, a q with the exact sd (and exact: no q draws) the
// fit's. For Student-t ν = 5 draws (kurtosis 9) the sd's error is about
// twice the normal 1/√(2n): ±2 of the normal formula's errors cover the
// ratio 1 in under 85 % of the replicates, ±2 of mcse_sd's in about 95 %;
// for normal draws both are right.
func TestAgainstHeavyTails(t *testing.T) {
	const reps, chains, n = 400, 4, 100
	for _, c := range []struct {
		name  string
		draw  func() float64
		sigma float64
		heavy bool
	}{
		{"t5", distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 5, Src: rand.New(rand.NewPCG(1, 9))}.Rand, math.Sqrt(5.0 / 3), true},
		{"normal", distuv.Normal{Mu: 0, Sigma: 1, Src: rand.New(rand.NewPCG(1, 9))}.Rand, 1, false},
	} {
		cover, coverOld := 0, 0
		for range reps {
			x, all := iidChains(c.draw, chains, n)
			s := summarise(all, 0)
			N := float64(len(all))
			mc := mcmcStats{mcse: s.sd / math.Sqrt(N), essBulk: N, essTail: N, mcseSD: nuts.MCSESD(x)}
			if r := againstElem("x", 0, c.sigma, 0, s.mean, s.sd, mc, againstShape{}); math.Abs(r.ratio-1) <= 2*r.seRatio {
				cover++
			}
			mc.mcseSD = math.NaN() // the normal formula, 1/√(2n)
			if r := againstElem("x", 0, c.sigma, 0, s.mean, s.sd, mc, againstShape{}); math.Abs(r.ratio-1) <= 2*r.seRatio {
				coverOld++
			}
		}
		got, old := float64(cover)/reps, float64(coverOld)/reps
		t.Logf("%s: ±2 se cover the sd ratio 1 in %.3f of the replicates (normal formula %.3f)", c.name, got, old)
		if got < againstCoverLo || got > againstCoverHi {
			t.Errorf("%s: mcse_sd's ±2 se cover the ratio in %.3f of the replicates, want about 0.95", c.name, got)
		}
		if c.heavy && old > againstCoverOldHi {
			t.Errorf("%s: the normal formula's ±2 se cover the ratio in %.3f, want it too tight (below %.2f)", c.name, old, againstCoverOldHi)
		}
		if !c.heavy && (old < againstCoverLo || old > againstCoverHi) {
			t.Errorf("%s: the normal formula's ±2 se cover the ratio in %.3f, want about 0.95 for normal draws", c.name, old)
		}
	}
}

// TestAgainstDraws: the fit's summary counts its output draws, and fewer
// when they were resampled from weighted candidates (--psis-resample).
func TestAgainstDraws(t *testing.T) {
	ff := &fitfile.File{}
	ff.Settings.OutputDraws = 1000
	if got := againstDraws(ff); got != 1000 {
		t.Errorf("%v draws, want the 1000 output draws", got)
	}
	ff.Resample = &fitfile.Resample{ESS: 250}
	if got := againstDraws(ff); got != 1000 {
		t.Errorf("%v draws with draws not resampled, want 1000", got)
	}
	ff.Resample.Resampled = true
	if got := againstDraws(ff); got != 200 {
		t.Errorf("%v draws resampled from candidates of ESS 250, want 1/(1/1000 + 1/250) = 200", got)
	}
}

// TestAgainstSummary: the summary line counts the elements within 0.1 sd,
// takes the median sd ratio and names the worst flagged elements first.
func TestAgainstSummary(t *testing.T) {
	rows := []againstRow{
		{name: "a", z: 0.05, ratio: 0.5, flagged: true},
		{name: "b", z: 0.02, ratio: 0.9},
		{name: "c", z: 1.5, ratio: 1, flagged: true},
		{name: "d", z: -0.2, ratio: 1.2},
	}
	got := againstSummary(rows)
	want := "2 of 4 elements within 0.1 sd of NUTS's mean, median sd ratio 0.95; 2 differ in mean or sd beyond tolerance and Monte Carlo error, the worst: c (z 1.5, sd ratio 1), a (z 0.05, sd ratio 0.5)"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	// Elements whose chains disagree are counted apart and read nowhere:
	// not in the within count, the median ratio or the worst.
	mc := mcmcStats{mcse: 0.01, essBulk: 2000, essTail: 2000, mcseSD: 0.01, rhat: 1.8}
	e := againstElem("e", 3, 0.2, 4000, 0, 1, mc, againstShape{})
	if e.flagged || !e.unmixed || e.reading != "not compared: NUTS's chains disagree (R̂ 1.800, above 1.05), no reference" {
		t.Errorf("an element of R̂ 1.8 reads %q (flagged %v)", e.reading, e.flagged)
	}
	// just above the rule, it does not read as the rule itself ("R̂ 1.05")
	mc.rhat = 1.0504
	if e := againstElem("e", 3, 0.2, 4000, 0, 1, mc, againstShape{}); e.reading != "not compared: NUTS's chains disagree (R̂ 1.050, above 1.05), no reference" {
		t.Errorf("an element of R̂ 1.0504 reads %q", e.reading)
	}
	// between gpp sample's warning and the rule it is compared, roughly:
	// a q sd 0.087 of NUTS's at R̂ 1.02 is among the worst
	mc.rhat = 1.02
	if e := againstElem("e", 3, 0.087, 4000, 3, 1, mc, againstShape{}); !e.flagged || e.unmixed || e.reading != "q too narrow; NUTS's R̂ 1.020 (above 1.01): a rough reference" {
		t.Errorf("an element of R̂ 1.02 reads %q (flagged %v)", e.reading, e.flagged)
	}
	mc.rhat = 1.8
	got = againstSummary(append(rows, e))
	if want := "1 of 5 elements not compared, as NUTS's chains disagree there (R̂ above 1.05: not mixed, or a mixture's or factor model's labels switched between chains), so its draws are no reference; of the others, " + want; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := againstSummary([]againstRow{e}); !strings.HasPrefix(got, "none of 1 element compared: NUTS's chains disagree for every one") {
		t.Errorf("all unmixed: %s", got)
	}

	// Outputs' elements (a log_lik of many rows, all agreeing) are summed
	// up after the params', not with them.
	mixed := slices.Clone(rows)
	for i := range 40 {
		mixed = append(mixed, againstRow{name: fmt.Sprintf("log_lik[%d]", i), z: 0.01, ratio: 1, output: true})
	}
	got = againstSummary(mixed)
	if want := "params: " + want + "; outputs: 40 of 40 elements within 0.1 sd of NUTS's mean, median sd ratio 1; no element's q differs beyond tolerance and Monte Carlo error"; got != want {
		t.Errorf("params and outputs:\ngot  %s\nwant %s", got, want)
	}

	// Elements of negligible sd beside their variable's largest (a
	// changepoint's far years, 1e-17 beside 0.3) leave the median ratio,
	// though they are still counted; another variable's scale is its own.
	var cp []againstRow
	for i := range 9 {
		cp = append(cp, againstRow{name: fmt.Sprintf("p_s[%d]", i), sd: 1e-17, ratio: 5, output: true})
	}
	// An element whose sd is NaN leaves its variable's scale alone.
	cp = append(cp, againstRow{name: "p_s[9]", sd: 0.3, ratio: 1.05, output: true}, againstRow{name: "p_s[10]", sd: math.NaN(), ratio: math.NaN(), output: true},
		againstRow{name: "q", sd: 1e-9, ratio: 0.9, output: true})
	if got := againstSummary(cp); !strings.HasPrefix(got, "12 of 12 elements within 0.1 sd of NUTS's mean, median sd ratio 0.975;") {
		t.Errorf("negligible sds: %s", got)
	}
}

// TestAgainstSummaryByVar: where the elements' median sd ratio pools
// variables of many elements and few, the line names each variable's
// median, so that 2400 z elements at 1.01 do not hide mu and tau at
// 0.675 and 0.34 (a hierarchical logit's trial); past 6 variables, the 6
// farthest from 1 in either direction (the first on a tie), in the rows'
// order, and the rest counted.
func TestAgainstSummaryByVar(t *testing.T) {
	var rows []againstRow
	add := func(name string, n int, ratio func(i int) float64) {
		for i := range n {
			rows = append(rows, againstRow{name: fmt.Sprintf("%s[%d]", name, i), sd: 1, ratio: ratio(i)})
		}
	}
	add("mu", 8, func(i int) float64 { return 0.5 + 0.05*float64(i) })  // median 0.675
	add("tau", 8, func(i int) float64 { return 0.2 + 0.04*float64(i) }) // median 0.34
	add("z", 2400, func(i int) float64 { return 1.01 + 0.001*float64(i%3-1) })
	rows = append(rows, againstRow{name: "sigma", sd: 1, ratio: 0.9})
	got := againstSummary(rows)
	if want := "2417 of 2417 elements within 0.1 sd of NUTS's mean, median sd ratio 1.01 (by param: mu 0.675, tau 0.34, z 1.01, sigma 0.9); no element's"; !strings.HasPrefix(got, want) {
		t.Errorf("got  %s\nwant %s…", got, want)
	}
	for _, v := range []string{"a", "b", "c", "d", "e"} {
		rows = append(rows, againstRow{name: v, sd: 1, ratio: 1.05})
	}
	rows = append(rows, againstRow{name: "w", sd: 1, ratio: 3})
	if want := "(by param: mu 0.675, tau 0.34, sigma 0.9, a 1.05, b 1.05, w 3; 4 more params, none farther from 1)"; !strings.Contains(againstSummary(rows), want) {
		t.Errorf("got  %s\nwant %s", againstSummary(rows), want)
	}
	// outputs are named as such, in their own clause
	for i := range rows {
		rows[i].output = true
	}
	if got := againstSummary(rows); !strings.Contains(got, "(by output: mu 0.675,") {
		t.Errorf("outputs: %s", got)
	}
}

// TestSampleAgainstCorrelated compares mean-field and full-rank fits of a
// regression on an uncentred x (intercept and slope correlated -0.976 a
// posteriori: exact sds 1.328 and 0.0836) with NUTS. A mean-field q's
// marginal sds are about √(1 − ρ²) ≈ 0.22 of the posterior's: both
// coefficients read "q too narrow"; a full-rank q's are the posterior's (the
// fit's sds are within 2 % of the exact ones): neither is too narrow or
// too wide. Needs a correct infer/nuts (the sds of the draws).
func TestSampleAgainstCorrelated(t *testing.T) {
	dir := t.TempDir()
	model, data := "testdata/against_reg.gpp", "testdata/against_reg.csv"
	for _, f := range []struct{ out, flag string }{{"mf", ""}, {"fr", "all"}} {
		args := []string{"fit", model, data, "--quiet", "--out", filepath.Join(dir, f.out)}
		if f.flag != "" {
			args = append(args, "--fullrank", f.flag)
		}
		if code, _, stderr := runGpp(args...); code != exitOK {
			t.Fatalf("fit %s: exit %d:\n%s", f.out, code, stderr)
		}
	}
	for _, c := range []struct {
		fit, against string
		lo, hi       float64
	}{{"mf", "mf", 0, 0.5}, {"fr", "fr/summary.csv", 0.8, 1.25}} {
		out := filepath.Join(dir, "s-"+c.fit)
		code, stdout, stderr := runGpp("sample", model, data, "--quiet", "--seed", "2", "--out", out, "--against", filepath.Join(dir, c.against))
		if code != exitOK {
			t.Fatalf("sample --against %s: exit %d:\n%s", c.against, code, stderr)
		}
		if !strings.Contains(stdout, "against      ") {
			t.Errorf("sample --against %s printed no summary line:\n%s", c.against, stdout)
		}
		rows := reftest.ReadCSVMaps(t, filepath.Join(out, againstFile))
		if len(rows) != 2 {
			t.Fatalf("%s: against.csv has %d rows, want 2 (a, b)", c.fit, len(rows))
		}
		for _, r := range rows {
			ratio := parseNum(t, r["sd_ratio"])
			t.Logf("%s %s: z %s, sd ratio %s, %s", c.fit, r["name"], r["z"], r["sd_ratio"], r["reading"])
			if !(ratio > c.lo && ratio < c.hi) {
				t.Errorf("%s %s: sd ratio %v, want in (%v, %v)", c.fit, r["name"], ratio, c.lo, c.hi)
			}
			narrow := strings.Contains(r["reading"], "too narrow")
			if want := c.fit == "mf"; narrow != want || strings.Contains(r["reading"], "too wide") {
				t.Errorf("%s %s: reading %q, want too narrow: %v", c.fit, r["name"], r["reading"], want)
			}
		}
	}
}

// TestSampleAgainstStale: a sample without --against into a directory that
// a sample with it wrote removes the earlier against.csv, which would be
// read as the new draws' comparison.
func TestSampleAgainstStale(t *testing.T) {
	dir := t.TempDir()
	fit, out := filepath.Join(dir, "fit"), filepath.Join(dir, "s")
	if code, _, stderr := runGpp("fit", poissonModel, poissonData, "--quiet", "--out", fit); code != exitOK {
		t.Fatalf("fit: exit %d:\n%s", code, stderr)
	}
	short := []string{"sample", poissonModel, poissonData, "--quiet", "--chains", "2", "--warmup", "50", "--draws", "50", "--out", out}
	if code, _, stderr := runGpp(append(short, "--against", fit)...); code != exitOK {
		t.Fatalf("sample --against: exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, againstFile)); err != nil {
		t.Fatalf("no against.csv: %v", err)
	}
	if code, _, stderr := runGpp(short...); code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, againstFile)); err == nil {
		t.Errorf("the earlier against.csv was left in %s", out)
	}
	// --out may not be the fit's own directory
	if code, _, stderr := runGpp(append(short[:len(short)-1], fit, "--against", fit)...); code != exitError || !strings.Contains(stderr, "the fit's own directory") {
		t.Errorf("--out the fit's directory: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestSampleAgainstOtherData: --against a fit of data of other contents
// warns that its q approximates another posterior; the same contents under
// another path (the data's sha256 in fit.json) do not.
func TestSampleAgainstOtherData(t *testing.T) {
	dir := t.TempDir()
	fit := filepath.Join(dir, "fit")
	if code, _, stderr := runGpp("fit", poissonModel, poissonData, "--quiet", "--out", fit); code != exitOK {
		t.Fatalf("fit: exit %d:\n%s", code, stderr)
	}
	src, err := os.ReadFile(poissonData)
	if err != nil {
		t.Fatal(err)
	}
	same, other := filepath.Join(dir, "same.csv"), filepath.Join(dir, "other.csv")
	if os.WriteFile(same, src, 0o644) != nil || os.WriteFile(other, append(src, "7\n"...), 0o644) != nil {
		t.Fatal("cannot write the data")
	}
	const warn = "read other data"
	for _, c := range []struct {
		data string
		warn bool
	}{{same, false}, {other, true}} {
		code, _, stderr := runGpp("sample", poissonModel, c.data, "--quiet", "--chains", "1", "--warmup", "50", "--draws", "50", "--out", filepath.Join(dir, "s"), "--against", fit)
		if code != exitOK || strings.Contains(stderr, warn) != c.warn {
			t.Errorf("sample %s --against: exit %d, want a warning %q: %v; stderr:\n%s", c.data, code, warn, c.warn, stderr)
		}
	}
}

// parseNum parses a number as formatNum writes it.
func parseNum(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// TestSampleAgainstMoreElements: the comparison table's note for a
// variable cut at maxTableRows counts the elements left out, as the
// summary's note does, and names the against.csv that has them.
func TestSampleAgainstMoreElements(t *testing.T) {
	dir := t.TempDir()
	model, data := "../../examples/regression.gpp", "../../examples/wine_std.csv"
	fit, out := filepath.Join(dir, "fit"), filepath.Join(dir, "sample")
	if code, _, stderr := runGpp("fit", model, data, "--quiet", "--out", fit); code != exitOK {
		t.Fatalf("fit: exit %d:\n%s", code, stderr)
	}
	code, stdout, stderr := runGpp("sample", model, data, "--quiet", "--chains", "2", "--warmup", "150", "--draws", "150", "--out", out, "--against", fit)
	if code != exitOK {
		t.Fatalf("sample --against: exit %d:\n%s", code, stderr)
	}
	_, vs, _ := strings.Cut(stdout, "\nq of the fit at ")
	if want := "\n... 158 more elements of proline_rep (all in " + filepath.Join(out, againstFile) + ")\n"; !strings.Contains(vs, want) {
		t.Errorf("no %q in\n%s", want, vs)
	}
}

// TestSampleAgainstMAP: a MAP fit is refused at fit.json's "method", with
// the fits that --against takes.
func TestSampleAgainstMAP(t *testing.T) {
	dir := t.TempDir()
	model, data := "../../examples/regression.gpp", "../../examples/wine_std.csv"
	fit := filepath.Join(dir, "map")
	if code, _, stderr := runGpp("fit", model, data, "--quiet", "--family", "map", "--out", fit); code != exitOK {
		t.Fatalf("fit: exit %d:\n%s", code, stderr)
	}
	code, _, stderr := runGpp("sample", model, data, "--quiet", "--out", filepath.Join(dir, "s"), "--against", fit)
	want := filepath.Join(fit, "fit.json") + ":"
	if code != exitError || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "a MAP estimate has no q to compare with the posterior (its sd is not one); give an SGVB, --family laplace or --family pathfinder fit") {
		t.Errorf("exit %d, want %d and an error at %s:\n%s", code, exitError, want, stderr)
	}
}

// iidChains draws chains of n draws each from draw, in order, and returns
// them by chain and pooled.
func iidChains(draw func() float64, chains, n int) (x [][]float64, all []float64) {
	x = make([][]float64, chains)
	for k := range x {
		x[k] = make([]float64, n)
		for i := range x[k] {
			x[k][i] = draw()
		}
		all = append(all, x[k]...)
	}
	return x, all
}

// TestAgainstHeavyTailsQ: q's side of the sd ratio's error counts the
// kurtosis of the draws. 400 replicates draw q's 1000 and NUTS's 4 × 250
// from one LogNormal hurdle (0 with probability 0.8, else LogNormal(3,
// 0.78): the trial's predictive spend_rep), so that q agrees with the
// posterior: read with the draws' kurtosis at most 1.5 % of them differ
// beyond tolerance and 3 errors (0.5 % at this seed), with a normal's on
// q's side and NUTS's mcse_sd on its own (the comparison before) 6.2 %.
func TestAgainstHeavyTailsQ(t *testing.T) {
	const reps, chains, n, S = 400, 4, 250, 1000
	src := rand.New(rand.NewPCG(3, 5))
	ln := distuv.LogNormal{Mu: 3, Sigma: 0.78, Src: src}
	draw := func() float64 { // a LogNormal hurdle's predictive draw, as the trial's
		if src.Float64() < 0.8 {
			return 0
		}
		return ln.Rand()
	}
	flagged, flaggedNormal := 0, 0
	for range reps {
		x, all := iidChains(draw, chains, n)
		q := make([]float64, S)
		for i := range q {
			q[i] = draw()
		}
		s, qs := summarise(all, 0), summarise(q, 0)
		N := float64(len(all))
		mc := mcmcStats{mcse: s.sd / math.Sqrt(N), essBulk: N, essTail: N, mcseSD: nuts.MCSESD(x)}
		sh := againstShape{qKurt: kurtosis(q), kurt: kurtosis(all), q: q, nuts: all}
		if againstElem("x", qs.mean, qs.sd, S, s.mean, s.sd, mc, sh).flagged {
			flagged++
		}
		sh = againstShape{}
		if againstElem("x", qs.mean, qs.sd, S, s.mean, s.sd, mc, sh).flagged {
			flaggedNormal++
		}
	}
	got, old := float64(flagged)/reps, float64(flaggedNormal)/reps
	t.Logf("q agreeing with NUTS read as differing in %.3f of the replicates (q's sd error normal: %.3f)", got, old)
	if got > 0.015 {
		t.Errorf("with the draws' kurtosis %.3f of agreeing replicates flagged, want at most 0.015", got)
	}
	if old < 0.05 {
		t.Errorf("with a normal's sd error on q's side %.3f flagged, want the heavy tail to show (above 0.05)", old)
	}
}

// TestAgainstBinary: a 0/1 quantity (prob_best = p == max(p)) is read by
// its mean alone, its sd being √(p(1 − p)) of it: the A/B trial's
// prob_best[0], q 0.035 ± 0.184 against NUTS's 0.0205 ± 0.142 (sd ratio
// 1.3, read "q too wide" before), is within Monte Carlo error of its mean;
// means 0.3 against 0.1 read "q shifted above", not "too wide"; the
// summary line leaves 0/1 elements out of the median sd ratio.
func TestAgainstBinary(t *testing.T) {
	mc := mcmcStats{mcse: 0.00239, essBulk: 3500, essTail: 3000, mcseSD: 0.004}
	r := againstElem("prob_best[0]", 0.035, 0.184, 1000, 0.0205, 0.142, mc, againstShape{binary: true})
	if r.flagged || r.reading != "0/1, by the mean alone: within Monte Carlo error (longer chains or more --output-draws would tell)" {
		t.Errorf("prob_best[0] reads %q (flagged %v)", r.reading, r.flagged)
	}
	if want := math.Sqrt(0.00239*0.00239+0.035*0.965/1000) / 0.142; math.Abs(r.seZ-want) > 1e-15 {
		t.Errorf("z's error %v, want the binomial %v", r.seZ, want)
	}
	if r := againstElem("prob_best[0]", 0.035, 0.184, 1000, 0.0205, 0.142, mc, againstShape{}); r.reading != "q too wide" {
		t.Errorf("read by its sd, prob_best[0] reads %q, want the old q too wide (the test's premise)", r.reading)
	}
	mc = mcmcStats{mcse: 0.002, essBulk: 4000, essTail: 4000, mcseSD: 0.002}
	r = againstElem("b", 0.3, math.Sqrt(0.21), 4000, 0.1, 0.3, mc, againstShape{binary: true})
	if !r.flagged || r.reading != "0/1, by the mean alone: q shifted above" {
		t.Errorf("means 0.3 and 0.1 read %q (flagged %v)", r.reading, r.flagged)
	}
	if got := againstSummary([]againstRow{r, {name: "a", ratio: 1.2}}); !strings.Contains(got, "median sd ratio 1.2;") || !strings.Contains(got, "b (z 0.667, 0/1: by the mean)") {
		t.Errorf("summary %s", got)
	}
	for _, c := range []struct {
		x    []float64
		want bool
	}{{[]float64{0, 1, 1}, true}, {[]float64{0, 0}, false}, {[]float64{0, 1, 0.5}, false}, {[]float64{1, 2}, false}} {
		if got := zeroOne(c.x); got != c.want {
			t.Errorf("zeroOne(%v) = %v", c.x, got)
		}
	}
}

// TestKurtosis: m₄/m₂² of draws, 3 for normal ones, 1 for ±1.
func TestKurtosis(t *testing.T) {
	nd := distuv.Normal{Mu: 2, Sigma: 3, Src: rand.New(rand.NewPCG(1, 2))}
	x := make([]float64, 100000)
	for i := range x {
		x[i] = nd.Rand()
	}
	if k := kurtosis(x); math.Abs(k-3) > 0.1 {
		t.Errorf("normal draws' kurtosis %v, want 3", k)
	}
	if k := kurtosis([]float64{-1, 1, math.NaN(), -1, 1}); k != 1 {
		t.Errorf("±1's kurtosis %v, want 1", k)
	}
	if k := kurtosis([]float64{2, 2}); k != 0 {
		t.Errorf("constant draws' kurtosis %v, want 0 (unknown)", k)
	}
}

// TestAgainstBinaryNeverSeen: an indicator whose NUTS draws are all 0 (an
// A/B trial's best[0]: q 0.032 of 1000 draws, NUTS none of 4000) is read
// by the means on q's binomial scale, "q shifted above", not "not
// compared"; q's 0.001 (z 0.03 on its own scale) agrees; indicatorDraws
// tells such an element from a fixed one (a Cholesky factor's constant 1
// in both draws), which is no indicator.
func TestAgainstBinaryNeverSeen(t *testing.T) {
	mc := mcmcStats{mcse: math.NaN(), essBulk: math.NaN(), essTail: math.NaN(), mcseSD: math.NaN(), rhat: math.NaN()}
	bin := againstShape{binary: true}
	for _, c := range []struct {
		qm, m   float64
		reading string
		flagged bool
	}{
		{0.032, 0, "0/1, by the mean alone: q shifted above", true},
		{0.968, 1, "0/1, by the mean alone: q shifted below", true},
		{0.001, 0, "0/1, by the mean alone: agrees", false},
	} {
		r := againstElem("best[0]", c.qm, math.Sqrt(c.qm*(1-c.qm)), 1000, c.m, 0, mc, bin)
		if r.reading != c.reading || r.flagged != c.flagged {
			t.Errorf("q %v against NUTS's %v: %q (flagged %v), want %q", c.qm, c.m, r.reading, r.flagged, c.reading)
		}
	}
	if r := againstElem("best[0]", 0.032, 0.176, 1000, 0, 0, mc, againstShape{}); r.reading != "not compared (an sd is 0 or a value not finite)" {
		t.Errorf("not an indicator: %q, want not compared", r.reading)
	}
	for _, c := range []struct {
		nuts, q []float64
		want    bool
	}{
		{[]float64{0, 1, 0}, nil, true},          // NUTS saw both
		{[]float64{0, 0}, []float64{0, 1}, true}, // never seen by NUTS, by q
		{[]float64{1, 1}, []float64{1, 0}, true},
		{[]float64{1, 1}, []float64{1, 1}, false}, // fixed: L[0, 0]
		{[]float64{0, 0}, []float64{0, 0}, false}, // fixed: L[0, 1]
		{[]float64{0, 0}, nil, false},             // q's draws unread
		{[]float64{0, 0.5}, []float64{0, 1}, false},
	} {
		if got := indicatorDraws(c.nuts, c.q); got != c.want {
			t.Errorf("indicatorDraws(%v, %v) = %v", c.nuts, c.q, got)
		}
	}
}

// againstDrawsRead reads q's draws q against NUTS's iid chains x (all
// pooled) as compareAgainst does, with each side's draws at hand.
func againstDrawsRead(name string, q []float64, x [][]float64, all []float64) againstRow {
	s, qs := summarise(all, 0), summarise(q, 0)
	N := float64(len(all))
	mc := mcmcStats{mcse: s.sd / math.Sqrt(N), essBulk: N, essTail: N, mcseSD: nuts.MCSESD(x)}
	sh := againstShape{qKurt: kurtosis(q), kurt: kurtosis(all), q: q, nuts: all}
	return againstElem(name, qs.mean, qs.sd, float64(len(q)), s.mean, s.sd, mc, sh)
}

// TestAgainstRobust: where q's mean or sd differ beyond tolerance but a few
// far draws of q make their Monte Carlo errors swallow the difference, the
// draws' quantiles and a distribution-free bound on q's sd read it (a GEV
// fit's return level, one q draw of 1000 at 4·10¹¹ beside NUTS's 211 ± 24,
// read "within Monte Carlo error"): a bulk like NUTS's with one far draw
// is "q too wide", by its tail, however far that draw (z 10⁶ and more); a
// narrower bulk with a few far draws "q too narrow" by its 5%–95%
// interval, whatever its sd ratio; a median far below "q shifted below".
// Without q's draws (an older fit's draws.csv removed) the reading is the
// moments' alone. The summary line names them among the worst.
func TestAgainstRobust(t *testing.T) {
	src := rand.New(rand.NewPCG(7, 11))
	normal := func() float64 { return src.NormFloat64() }
	x, all := iidChains(normal, 4, 500)
	bulk := func(scale, shift float64, far ...float64) []float64 {
		q := make([]float64, 1000)
		for i := range q {
			q[i] = shift + scale*src.NormFloat64()
		}
		copy(q, far)
		return q
	}
	for _, c := range []struct {
		name string
		q    []float64
		want string
	}{
		{"one far draw", bulk(1, 0, 4e11), "q too wide (draws far in its tail: its sd at least "},
		{"one far draw, nearer", bulk(1, 0, 3e3), "q too wide (draws far in its tail: its sd at least "},
		{"a narrow bulk", bulk(0.6, 0, 50, -40, 45), "q too narrow (its 5%–95% interval 0.5"},
		{"a narrow bulk, one far draw", bulk(0.6, 0, 4e11), "q too narrow (its 5%–95% interval 0.5"},
		{"a median below", bulk(0.3, -1, 300, 300), "q shifted below (its median, z -1"},
	} {
		r := againstDrawsRead("x", c.q, x, all)
		if c.name == "a narrow bulk, one far draw" && !strings.Contains(r.reading, ", too wide in its tail (draws far in its tail: its sd at least ") {
			t.Errorf("%s: reading %q, want its tail too", c.name, r.reading)
		}
		if !strings.HasPrefix(r.reading, c.want) && !strings.Contains(r.reading, ", "+c.want) || !r.flagged || !r.robust {
			t.Errorf("%s: reading %q (flagged %v, z %.3g ± %.3g, ratio %.3g ± %.3g), want %q", c.name, r.reading, r.flagged, r.z, r.seZ, r.ratio, r.seRatio, c.want)
		}
		// the moments alone cannot tell
		s, qs := summarise(all, 0), summarise(c.q, 0)
		mc := mcmcStats{mcse: s.sd / math.Sqrt(2000), essBulk: 2000, essTail: 2000, mcseSD: nuts.MCSESD(x)}
		if m := againstElem("x", qs.mean, qs.sd, 1000, s.mean, s.sd, mc, againstShape{qKurt: kurtosis(c.q), kurt: kurtosis(all)}); m.flagged {
			t.Errorf("%s: without the draws, reading %q: want the moments' errors to swallow the difference", c.name, m.reading)
		}
		rows := []againstRow{{name: "a", z: 0.2, ratio: 0.5, flagged: true}, {name: "b", z: 0.3, ratio: 0.6, flagged: true}, {name: "c", z: 0.4, ratio: 0.7, flagged: true}, r}
		if c.name == "one far draw" && !strings.Contains(againstSummary(rows), "the worst: x (z ") {
			t.Errorf("%s: the summary leaves it out of the worst: %s", c.name, againstSummary(rows))
		}
	}
}

// TestAgainstRobustKeepsAgrees: an element whose mean and sd agree within
// both tolerances is "agrees" though its quantiles differ (q a mixture of
// 95 % N(0, 0.7²) and 5 % N(0, 3²), sd 0.96, whose 5%–95% interval is
// 0.77 of a normal's): the quantiles read only what the moments leave open.
func TestAgainstRobustKeepsAgrees(t *testing.T) {
	src := rand.New(rand.NewPCG(2, 8))
	x, all := iidChains(src.NormFloat64, 4, 500)
	q := make([]float64, 1000)
	for i := range q {
		sd := 0.7
		if i%20 == 0 {
			sd = 3
		}
		q[i] = sd * src.NormFloat64()
	}
	if r := againstDrawsRead("x", q, x, all); r.reading != "agrees" || math.Abs(r.ratio-1) > againstSD {
		t.Errorf("reading %q (z %.3g, sd ratio %.3g), want agrees", r.reading, r.z, r.ratio)
	}
}

// TestAgainstRobustAgrees: q's draws of NUTS's own distribution are not
// read as differing by the quantiles or the tail bound more often than
// the moments' 3 errors would: heavy tails (Student-t ν = 2.5, a LogNormal
// of σ 1.5), 1000 q draws against 4 chains of 250.
func TestAgainstRobustAgrees(t *testing.T) {
	const reps = 300
	src := rand.New(rand.NewPCG(5, 3))
	for _, c := range []struct {
		name string
		draw func() float64
	}{
		{"t2.5", distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 2.5, Src: src}.Rand},
		{"lognormal", distuv.LogNormal{Mu: 0, Sigma: 1.5, Src: src}.Rand},
		{"normal", src.NormFloat64},
	} {
		flagged := 0
		for range reps {
			x, all := iidChains(c.draw, 4, 250)
			q := make([]float64, 1000)
			for i := range q {
				q[i] = c.draw()
			}
			if r := againstDrawsRead("x", q, x, all); r.robust {
				flagged++
			}
		}
		t.Logf("%s: %d of %d agreeing replicates flagged by the quantiles or the tail", c.name, flagged, reps)
		if float64(flagged)/reps > 0.015 {
			t.Errorf("%s: %d of %d agreeing replicates flagged by the quantiles or the tail, want at most 1.5 %%", c.name, flagged, reps)
		}
	}
}

// TestChebyshevSD: the tail bound is Chebyshev's, d·c/(1 + c) with c =
// √(jα/n) of the j-th farthest draw from the median, α shared by the j
// tried (1, 2, 4, … up to n: 10 of them for n = 1000): one draw 1000 from
// 999 at 0 bounds the sd by j = 1, two such draws by j = 2.
func TestChebyshevSD(t *testing.T) {
	for _, far := range []int{1, 2} {
		x := make([]float64, 1000)
		for i := range far {
			x[999-i] = 1000
		}
		c := math.Sqrt(float64(far) * againstTailAlpha / 10 / 1000)
		if got, want := chebyshevSD(x, 1000), 1000*c/(1+c); math.Abs(got-want) > 1e-12*want {
			t.Errorf("%d far draws: bound %v, want %v", far, got, want)
		}
	}
}

// TestAgainstRoundingConstant: an element constant to rounding in NUTS's
// draws is not compared, as one exactly constant is: the trial's cafés
// Rho[1,1] (a correlation matrix's diagonal, NUTS sd 1.21e-16 and mcse
// 2.07e-18 at mean 1, q's sd 1.07e-16) read "q too narrow" with sd ratio
// 0.882 beside Rho[0,0]'s "not compared". An sd of 1e-9 at mean 1 is
// compared.
func TestAgainstRoundingConstant(t *testing.T) {
	mc := mcmcStats{mcse: 2.07e-18, essBulk: 3912, essTail: 4032, rhat: 1.00017, mcseSD: 1.59e-18}
	r := againstElem("Rho[1, 1]", 1, 1.0712e-16, 1000, 1, 1.21482e-16, mc, againstShape{})
	if r.reading != "not compared (an sd is 0 to rounding)" || r.flagged || !math.IsNaN(r.z) || !math.IsNaN(r.ratio) {
		t.Errorf("Rho[1, 1]: reading %q (flagged %v), z %v, ratio %v", r.reading, r.flagged, r.z, r.ratio)
	}
	if r := againstElem("x", 1, 0.5e-9, 1000, 1, 1e-9, mcmcStats{mcse: 1e-11, essBulk: 3912, essTail: 4032, rhat: 1, mcseSD: 1e-11}, againstShape{}); r.reading != "q too narrow" {
		t.Errorf("sd 1e-9 at mean 1, q's half of it: reading %q", r.reading)
	}
}

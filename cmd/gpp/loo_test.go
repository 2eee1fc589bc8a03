package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/reftest"
	"github.com/gpplang/gpp/lang/compile"
)

// looModel is a normal mean with a known sd: its q is the exact posterior
// up to the fit, and its leave-one-out predictive densities are exact:
// Normal(y_i | m_−i, √(1 + v_−i)).
// looY are the 12 observations looFixture writes.
var looY = []float64{1.2, 0.4, 2.9, 1.7, -0.3, 1.1, 2.2, 0.8, 1.9, 3.4, 0.1, 1.5}

const looModel = `data y: real[N]
param mu: real ~ Normal(0, 10)
y ~ Normal(mu, 1)
output log_lik = logpdf(y, Normal(mu, 1))
`

// TestFitLOO: a fit of a model with an output log_lik writes loo.csv, whose
// elpd_loo is within 0.1 of the exact value (−18.808 for these 12
// observations; measured −18.839), whose rows sum to its total, and whose
// k̂ are all below 0.5; the console prints the total. A MAP fit writes no
// loo.csv, and a refit of a model without log_lik into the same directory
// removes the stale one.
func TestFitLOO(t *testing.T) {
	dir := t.TempDir()
	model, csvPath := looFixture(t, dir)
	y := looY
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runSafe(t, "fit", model, csvPath, "--out", out, "--output-draws", "4000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	exact := 0.0
	for i, yi := range y {
		prec, s := 1/100.0, 0.0
		for j, yj := range y {
			if j != i {
				prec++
				s += yj
			}
		}
		sd := math.Sqrt(1 + 1/prec)
		z := (yi - s/prec) / sd
		exact += -0.5*z*z - math.Log(sd) - 0.5*math.Log(2*math.Pi)
	}
	all := reftest.ReadCSV(t, filepath.Join(out, "loo.csv"))
	if !strings.HasPrefix(all[0][0], "# elpd_loo = ") {
		t.Fatalf("loo.csv starts %q", all[0])
	}
	total, _ := strconv.ParseFloat(strings.TrimPrefix(all[0][0], "# elpd_loo = "), 64)
	rows := all[1:]
	if h := strings.Join(rows[0], ","); h != "name,elpd_loo,p_loo,pareto_k,elpd_waic,p_waic" || len(rows) != len(y)+1 {
		t.Fatalf("loo.csv: header %q, %d rows", h, len(rows)-1)
	}
	sum := 0.0
	for i, r := range rows[1:] {
		if r[0] != "log_lik["+strconv.Itoa(i)+"]" {
			t.Errorf("row %d named %q", i+1, r[0])
		}
		v, _ := strconv.ParseFloat(r[1], 64)
		k, _ := strconv.ParseFloat(r[3], 64)
		sum += v
		if !(k < 0.5) {
			t.Errorf("%s: k̂ %s", r[0], r[3])
		}
	}
	t.Logf("elpd_loo %.4f, exact %.4f", sum, exact)
	if math.Abs(sum-total) > 1e-4 {
		t.Errorf("rows sum to %.6f, the comment says %.6f", sum, total)
	}
	if math.Abs(sum-exact) > 0.1 {
		t.Errorf("elpd_loo %.4f, exact %.4f", sum, exact)
	}
	if !strings.Contains(stdout, "LOO          elpd_loo "+strconv.FormatFloat(sum, 'g', 6, 64)[:6]) {
		t.Errorf("console lacks the LOO line of %.4f:\n%s", sum, stdout)
	}

	mapOut := filepath.Join(dir, "map")
	if code, _, stderr := runSafe(t, "fit", model, csvPath, "--family", "map", "--quiet", "--out", mapOut); code != 0 {
		t.Fatalf("MAP: exit %d: %s", code, stderr)
	}
	if e := dirEntries(t, mapOut); strings.Contains(strings.Join(e, " "), "loo.csv") {
		t.Errorf("a MAP fit wrote loo.csv: %v", e)
	}

	plain := writeFile(t, dir, "plain.gpp", strings.Replace(looModel, "output log_lik", "output ll", 1))
	if code, _, stderr := runSafe(t, "fit", plain, csvPath, "--quiet", "--out", out); code != 0 {
		t.Fatalf("refit: exit %d: %s", code, stderr)
	}
	if e := dirEntries(t, out); strings.Contains(strings.Join(e, " "), "loo.csv") {
		t.Errorf("a refit without log_lik left loo.csv: %v", e)
	}
}

// TestFitLOODefensive: on a normal mean and scale from the 178 wines'
// proline, where q matches the posterior's sds to 1 % but its gamma factor
// for the scale has a lighter right tail than the posterior, the weights
// p/q of q's own draws had k̂ 0.72–1.12 and 66–122 observations were
// flagged (seeds 1–3); with the defensive mixture of q and a heavy-tailed
// companion (sgvb.Defensive) none is, and elpd_loo is within 0.1 of the
// exact value from quadrature on a 300 × 300 grid (−254.013; measured
// −254.055 and −254.034).
func TestFitLOODefensive(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "normal.gpp", `data proline: real[N]
param mu: real ~ Normal(0, 2)
param sigma: positive ~ Gamma(2, 2)
proline ~ Normal(mu, sigma)
output log_lik = logpdf(proline, Normal(mu, sigma))
`)
	wine := filepath.Join("..", "..", "examples", "wine_std.csv")
	var y []float64
	for _, r := range reftest.ReadCSV(t, wine)[1:] {
		v, err := strconv.ParseFloat(r[12], 64)
		if err != nil {
			t.Fatal(err)
		}
		y = append(y, v)
	}
	if h := reftest.ReadCSV(t, wine)[0][12]; h != "proline" || len(y) != 178 {
		t.Fatalf("column 12 is %q, %d rows", h, len(y))
	}
	exact := exactNormalLOO(y)
	for _, seed := range []string{"1", "2"} {
		out := filepath.Join(dir, "out"+seed)
		code, _, stderr := runSafe(t, "fit", model, wine, "--seed", seed, "--quiet", "--out", out)
		if code != 0 {
			t.Fatalf("seed %s: exit %d: %s", seed, code, stderr)
		}
		all := reftest.ReadCSV(t, filepath.Join(out, "loo.csv"))
		sum, bad := 0.0, 0
		for _, r := range all[2:] {
			v, _ := strconv.ParseFloat(r[1], 64)
			k, _ := strconv.ParseFloat(r[3], 64)
			sum += v
			if !(k <= 0.7) {
				bad++
			}
		}
		t.Logf("seed %s: elpd_loo %.4f, exact %.4f, %d of %d flagged", seed, sum, exact, bad, len(y))
		if bad > 0 || strings.Contains(stderr, "LOO:") {
			t.Errorf("seed %s: %d observations with k̂ above 0.7; stderr:\n%s", seed, bad, stderr)
		}
		if math.Abs(sum-exact) > 0.1 {
			t.Errorf("seed %s: elpd_loo %.4f, exact %.4f", seed, sum, exact)
		}
	}
}

// exactNormalLOO is elpd_loo of y under y_i ~ Normal(mu, sigma), mu ~
// Normal(0, 2), sigma ~ Gamma(2, 2), by quadrature on a grid of mu and log
// sigma 8 posterior sds either side of the estimates: elpd_i = log Z −
// log Σ p(θ, y)/p(y_i | θ) over the grid.
func exactNormalLOO(y []float64) float64 {
	n := float64(len(y))
	var s1, s2 float64
	for _, v := range y {
		s1 += v
		s2 += v * v
	}
	m := s1 / n
	sd := math.Sqrt(s2/n - m*m)
	const G = 300
	type point struct{ mu, sigma, lj float64 }
	pts := make([]point, 0, G*G)
	mx := math.Inf(-1)
	for i := range G {
		mu := m + 8*sd/math.Sqrt(n)*(2*float64(i)/(G-1)-1)
		for j := range G {
			ls := math.Log(sd) + 8/math.Sqrt(2*n)*(2*float64(j)/(G-1)-1)
			sg := math.Exp(ls)
			lj := -0.5*(mu/2)*(mu/2) + math.Log(sg) - 2*sg + ls - // priors, and the grid's d sigma = sigma d log sigma
				n*ls - 0.5*(s2-2*mu*s1+n*mu*mu)/(sg*sg)
			pts = append(pts, point{mu, sg, lj})
			mx = math.Max(mx, lj)
		}
	}
	z := 0.0
	for _, p := range pts {
		z += math.Exp(p.lj - mx)
	}
	elpd := 0.0
	for _, v := range y {
		acc := 0.0
		for _, p := range pts {
			e := (v - p.mu) / p.sigma
			acc += math.Exp(p.lj - mx + 0.5*math.Log(2*math.Pi) + math.Log(p.sigma) + 0.5*e*e)
		}
		elpd += math.Log(z) - math.Log(acc)
	}
	return elpd
}

// TestFitLOOFewDraws: with 10 output draws (and 10 from the defensive
// companion) 20 draws are left, one short of the 21 whose fifth is a tail
// of 5: no Pareto k̂ can be fitted (NaN). The console line and the warning
// both say that k̂ was not estimated, for all 5 observations, rather than
// count them as above 0.7 (or blame q's tails with "k̂ NaN"), and the
// warning names the flag that gives more draws: --output-draws for gpp
// fit, --draws for gpp sample; --moment-match, which needs a k̂, is not
// suggested. With 11 output draws k̂ is estimated.
func TestFitLOOFewDraws(t *testing.T) {
	dir := t.TempDir()
	csvPath := writeFile(t, dir, "y.csv", "y\n1.2\n0.4\n2.9\n1.7\n-0.3\n")
	model := writeFile(t, dir, "loo.gpp", looModel)
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"fit", "--output-draws", "10"}, "--output-draws"},
		{[]string{"sample", "--draws", "5", "--chains", "2", "--warmup", "50"}, "--draws"},
	} {
		args := append([]string{c.args[0], model, csvPath, "--out", filepath.Join(dir, c.args[0]), "--quiet"}, c.args[1:]...)
		code, stdout, stderr := runSafe(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		line := "; Pareto k̂ not estimated for any of the 5 observations (fewer than 21 draws with a finite weight): elpd_loo unreliable (100% of the observations flagged), not for ranking models"
		warn := "gpp: warning: LOO: Pareto k̂ not estimated for 5 of 5 observations: fewer than 21 draws with a finite weight, too few to fit the weights' tail, so elpd_loo is plain importance sampling and unreliable; use more " + c.flag + " (Stan's loo wants hundreds)\n"
		if !strings.Contains(stdout, line) || strings.Contains(stdout, "above 0.7") {
			t.Errorf("%v: stdout:\n%s\nwant %q", c.args, stdout, line)
		}
		if !strings.Contains(stderr, warn) || strings.Contains(stderr, "NaN") || strings.Contains(stderr, "--moment-match") {
			t.Errorf("%v: stderr:\n%s\nwant %q, and no NaN nor --moment-match", c.args, stderr, warn)
		}
	}
	code, stdout, stderr := runSafe(t, "fit", model, csvPath, "--out", filepath.Join(dir, "11"), "--output-draws", "11", "--quiet")
	if code != 0 || !strings.Contains(stdout, "; Pareto k̂ above 0.7 for ") || strings.Contains(stdout+stderr, "not estimated") {
		t.Errorf("--output-draws 11: exit %d:\n%s%s\nwant k̂ estimated", code, stdout, stderr)
	}
}

// TestLOOLineUnestimated: observations without a k̂ are counted apart from
// those above 0.7, on the console line and in the warning alike.
func TestLOOLineUnestimated(t *testing.T) {
	lo := &sgvb.LOO{QK: 0.3, Points: []sgvb.LOOPoint{{K: 0.2}, {K: 0.9}, {K: math.NaN()}, {K: 1.4}}}
	var b strings.Builder
	printLOO(&b, lo)
	if want := "; Pareto k̂ above 0.7 for 2 of 4 observations, not estimated for 1 (fewer than 21 draws with a finite weight): elpd_loo unreliable (75% of the observations flagged), not for ranking models (the warning says what would make it reliable)\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("console line %q, want it to end %q", b.String(), want)
	}
	w := looWarning(lo, 0.3, 0.9, true, false, "--output-draws", "--fullrank all")
	if want := "LOO: Pareto k̂ above 0.7 for 2 of 4 observations and not estimated for 1 (fewer than 21 draws with a finite weight; the largest 1.4;"; !strings.HasPrefix(w, want) {
		t.Errorf("warning %q, want it to start %q", w, want)
	}
}

// TestFitLOOScalar: a log_lik summed to a scalar is one "observation";
// the check warns at the output what log_lik should be, and the fit does
// not say it again.
func TestFitLOOScalar(t *testing.T) {
	dir := t.TempDir()
	csvPath := writeFile(t, dir, "y.csv", "y\n1.2\n0.4\n2.9\n")
	model := writeFile(t, dir, "s.gpp", strings.Replace(looModel, "output log_lik = logpdf(y, Normal(mu, 1))", "output log_lik = sum(logpdf(y, Normal(mu, 1)))", 1))
	code, _, stderr := runSafe(t, "fit", model, csvPath, "--out", filepath.Join(dir, "out"), "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "s.gpp:4:8: warning: output `log_lik` is a scalar, but PSIS-LOO takes each element of log_lik as one observation's log likelihood"
	if !strings.Contains(stderr, want) || strings.Contains(stderr, "LOO: log_lik has one element") {
		t.Errorf("want the check's warning at the output, once:\n%s", stderr)
	}
}

// TestFitLOOMatrix: a matrix log_lik [N, K] has an observation per element,
// as ArviZ flattens the observation dims: loo.csv lists the N·K elements in
// column-major order with 1-based names (draws.csv's, CmdStan's), and the normal mean's 12 observations laid out as a
// [6, 2] matrix give TestFitLOO's exact elpd_loo (−18.808) to 0.1.
func TestFitLOOMatrix(t *testing.T) {
	dir := t.TempDir()
	y := []float64{1.2, 0.4, 2.9, 1.7, -0.3, 1.1, 2.2, 0.8, 1.9, 3.4, 0.1, 1.5}
	var rows []string
	for i := 0; i < len(y); i += 2 {
		rows = append(rows, fmt.Sprintf("[%g, %g]", y[i], y[i+1]))
	}
	jsonPath := writeFile(t, dir, "Y.json", `{"Y": [`+strings.Join(rows, ", ")+`]}`)
	model := writeFile(t, dir, "m.gpp", `data Y: real[N, K]
param mu: real ~ Normal(0, 10)
Y ~ Normal(mu, 1)
output log_lik = logpdf(Y, Normal(mu, 1))
`)
	out := filepath.Join(dir, "out")
	code, _, stderr := runSafe(t, "fit", model, jsonPath, "--out", out, "--output-draws", "4000", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "log_lik") {
		t.Errorf("a warning about a matrix log_lik:\n%s", stderr)
	}
	all := reftest.ReadCSV(t, filepath.Join(out, "loo.csv"))[2:]
	if len(all) != len(y) {
		t.Fatalf("loo.csv has %d observations, want %d", len(all), len(y))
	}
	sum := 0.0
	for i, r := range all {
		if want := fmt.Sprintf("log_lik[%d, %d]", i%6, i/6); r[0] != want {
			t.Errorf("row %d named %q, want %q", i+1, r[0], want)
		}
		v, _ := strconv.ParseFloat(r[1], 64)
		sum += v
	}
	if math.Abs(sum-(-18.808)) > 0.1 {
		t.Errorf("elpd_loo %.4f, exact −18.808", sum)
	}
}

// TestLOOWarningJoint: where q's own weights are heavy-tailed the warning
// blames q, and suggests --fullrank all only for a q without joint
// factors: a fit that already has them (--fullrank all, --rank R) is told
// to check the estimate across draws and seeds instead.
func TestLOOWarningJoint(t *testing.T) {
	lo := &sgvb.LOO{QK: 1.3, Points: []sgvb.LOOPoint{{K: 1.1}, {K: 0.9}, {K: 0.2}}}
	mf := looWarning(lo, 1.2, 0.5, true, false, "--output-draws", "--fullrank all")
	if !strings.Contains(mf, "2 of 3 observations") || !strings.Contains(mf, "refit with --fullrank all (or gpp sample)") || !strings.Contains(mf, "more --output-draws does not fix") {
		t.Errorf("mean-field q: %q", mf)
	}
	joint := looWarning(lo, 1.2, 0.5, true, true, "--output-draws", "--fullrank all")
	if !strings.Contains(joint, "2 of 3 observations") || strings.Contains(joint, "--fullrank") || !strings.Contains(joint, "although it has joint factors") || !strings.Contains(joint, "--seed") {
		t.Errorf("q with joint factors: %q", joint)
	}
	// observations flagged while q's own weights are fine: the advice does
	// not depend on q's family
	lo.QK = 0.3
	if a, b := looWarning(lo, 0.4, 0.9, true, false, "--output-draws", "--fullrank all"), looWarning(lo, 0.4, 0.9, true, true, "--output-draws", "--fullrank all"); a != b || !strings.Contains(a, "K-fold") {
		t.Errorf("influential observations: %q, %q", a, b)
	}
	// q's k̂ above 0.7 blames q, unless its weights are near-uniform
	// (relative ESS 0.998, cv 0.045: sgvb.TailNegligible)
	if w := looWarning(lo, 1.2, 0.5, true, false, "--output-draws", "--fullrank all"); !strings.Contains(w, "refit with --fullrank all (or gpp sample)") {
		t.Errorf("q's k̂ 1.2, relative ESS 0.5: %q", w)
	}
	if w := looWarning(lo, 1.2, 0.998, true, false, "--output-draws", "--fullrank all"); strings.Contains(w, "--fullrank") || !strings.Contains(w, "K-fold") {
		t.Errorf("q's k̂ 1.2 of near-uniform weights: %q", w)
	}
}

// TestLOOWarningQTail: a q whose own weights have k̂ between 0.5 and 0.7
// and flags more than 10 % of the observations is blamed, not the
// observations; a few flagged under a good q are called influential. The
// numbers are measured: a trial's chimpanzees (chimp_c.gpp, --fullrank all,
// seed 1) had the draws' own k̂ 0.682, the fit's 0.458 (relative ESS
// 0.224), 88 of 504 above 0.7 (the largest 0.905, median 0.673), where NUTS
// flags none; a regression of 50 points with one gross outlier (--fullrank
// all, seed 2) own k̂ −0.421, the fit's 0.384 (0.954), 1 of 50 (k̂ 1.65, the
// others near −0.41), as NUTS flags it.
func TestLOOWarningQTail(t *testing.T) {
	points := func(n, bad int, badK, goodK float64) []sgvb.LOOPoint {
		ps := make([]sgvb.LOOPoint, n)
		for i := range ps {
			ps[i].K = goodK
			if i < bad {
				ps[i].K = badK
			}
		}
		return ps
	}
	chimp := &sgvb.LOO{QK: 0.682, Points: points(504, 88, 0.905, 0.673)}
	joint := looWarning(chimp, 0.458, 0.224, true, true, "--output-draws", "--fullrank all")
	for _, want := range []string{"88 of 504 observations", "own weights have k̂ 0.682 (q's on the fit's final draws 0.458), above 0.5", "the flags on 17% of the observations are q's tail, not a few influential observations", "although it has joint factors", "gpp sample's NUTS draws give a reliable elpd_loo"} {
		if !strings.Contains(joint, want) {
			t.Errorf("chimpanzees, --fullrank all: %q\nwant it to contain %q", joint, want)
		}
	}
	if strings.Contains(joint, "K-fold") || strings.Contains(joint, "--fullrank") {
		t.Errorf("chimpanzees, --fullrank all: %q", joint)
	}
	if mf := looWarning(chimp, 0.458, 0.224, true, false, "--output-draws", "--fullrank all"); !strings.Contains(mf, "q's tail") || !strings.Contains(mf, "refit with --fullrank all (or gpp sample)") {
		t.Errorf("chimpanzees, mean-field: %q", mf)
	}
	outlier := &sgvb.LOO{QK: -0.421, Points: points(50, 1, 1.65, -0.41)}
	for _, j := range []bool{false, true} {
		if w := looWarning(outlier, 0.384, 0.954, true, j, "--output-draws", "--fullrank all"); !strings.Contains(w, "1 of 50 observations") || !strings.Contains(w, "influential, and K-fold") || strings.Contains(w, "q's tail") {
			t.Errorf("gross outlier, joint %v: %q", j, w)
		}
	}
	// each half of the rule alone is not enough: q's tail at 0.682 with
	// 1 of 50 flagged (2 %), or 88 of 504 flagged with q's k̂ 0.45
	for _, lo := range []*sgvb.LOO{
		{QK: 0.682, Points: points(50, 1, 1.65, 0.6)},
		{QK: 0.45, Points: chimp.Points},
	} {
		if w := looWarning(lo, 0.458, 0.224, true, true, "--output-draws", "--fullrank all"); !strings.Contains(w, "K-fold") || strings.Contains(w, "q's tail") {
			t.Errorf("q's k̂ %g, %d of %d flagged: %q", lo.QK, lo.BadK(), len(lo.Points), w)
		}
	}
}

// TestFitLOOQTail: the trial's chimpanzees fitted with --fullrank all
// (seed 1: 88 of 504 flagged, the draws' own k̂ 0.682, NUTS none) are not
// told that the observations are influential and that K-fold settles it,
// but that q's tail flags them and NUTS gives a reliable elpd_loo.
func TestFitLOOQTail(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runSafe(t, "fit", filepath.Join("testdata", "loo_chimp.gpp"), filepath.Join("testdata", "loo_chimp.csv"),
		"--fullrank", "all", "--seed", "1", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "LOO: Pareto k̂ above 0.7") || strings.Contains(stderr, "influential, and K-fold") || !strings.Contains(stderr, "gpp sample's NUTS draws give a reliable") {
		t.Errorf("LOO warning of a q whose tail flags the observations:\n%s", stderr)
	}
}

// TestLOOWarningLowRank: past sgvb.MaxFullRank elements (a BNN's 142 in a
// user trial) the LOO warning advises the low-rank factor that --fullrank
// auto and the curvature hint name, not --fullrank all, which a fit
// refuses there; at or below the limit, --fullrank all.
func TestLOOWarningLowRank(t *testing.T) {
	lo := &sgvb.LOO{QK: 1.3, Points: []sgvb.LOOPoint{{K: 1.1}, {K: 0.2}}}
	for _, c := range []struct {
		size int
		want string
	}{{sgvb.MaxFullRank, "refit with --fullrank all (or gpp sample)"}, {sgvb.MaxFullRank + 1, "refit with --fullrank " + lowRankFlag + " ("}} {
		m := &compile.Model{Latents: []compile.Latent{{Name: "w", Support: dist.Real, Size: c.size}}}
		w := looWarning(lo, 1.2, 0.5, true, false, "--output-draws", jointAllFlag(sgvb.Settings{}, m)) + ";"
		if !strings.Contains(w, c.want) {
			t.Errorf("%d elements: %q, want it to contain %q", c.size, w, c.want)
		}
	}
}

package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/reftest"
)

const (
	resampleRegModel  = "testdata/resample_reg.gpp"
	resampleRegData   = "testdata/resample_reg.csv"           // predictors of sample correlation 0.56
	resampleCollinear = "testdata/resample_reg_collinear.csv" // 0.99
	resamplePoisson   = "testdata/resample_poisson.gpp"
	resampleCounts    = "testdata/resample_counts.csv"
)

// fitDraws runs gpp fit with args into a new directory under d and
// returns the draws' columns by name (the mean row left out), the comment
// lines of draws.csv, stderr and the directory.
func fitDraws(t *testing.T, d, name string, args ...string) (cols map[string][]float64, comments []string, stderr, out string) {
	t.Helper()
	out = filepath.Join(d, name)
	code, _, stderr := runSafe(t, append(append([]string{"fit"}, args...), "--quiet", "--out", out)...)
	if code != 0 {
		t.Fatalf("gpp fit %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	comments, header, rows := readStanCSV(t, filepath.Join(out, drawsFile))
	cols = map[string][]float64{}
	for c, h := range header {
		for _, row := range rows[1:] {
			cols[h] = append(cols[h], row[c])
		}
	}
	return cols, comments, stderr, out
}

func meanSD(v []float64) (m, sd float64) {
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	for _, x := range v {
		sd += (x - m) * (x - m)
	}
	return m, math.Sqrt(sd / float64(len(v)-1))
}

func corr(a, b []float64) float64 {
	ma, sa := meanSD(a)
	mb, sb := meanSD(b)
	c := 0.0
	for i := range a {
		c += (a[i] - ma) * (b[i] - mb)
	}
	return c / float64(len(a)-1) / (sa * sb)
}

// exactRegression returns the exact posterior sds of beta and their
// correlation for resample_reg.gpp on the data file: precision XᵀX + I/100
// (noise sd 1, priors Normal(0, 10)).
func exactRegression(t *testing.T, path string) (sd [2]float64, rho float64) {
	t.Helper()
	recs := reftest.ReadCSV(t, path)
	var a11, a12, a22 float64
	for _, r := range recs[1:] {
		x1, _ := strconv.ParseFloat(r[0], 64)
		x2, _ := strconv.ParseFloat(r[1], 64)
		a11 += x1 * x1
		a12 += x1 * x2
		a22 += x2 * x2
	}
	a11 += 0.01
	a22 += 0.01
	det := a11*a22 - a12*a12
	s11, s22, s12 := a22/det, a11/det, -a12/det
	return [2]float64{math.Sqrt(s11), math.Sqrt(s22)}, s12 / math.Sqrt(s11*s22)
}

// TestPSISResampleCorrelated: a mean-field q of a correlated normal
// posterior is too narrow (sd 0.81 of the exact, on these data) and has no
// correlation; the resampled draws of seeds 1–5 have sds within 8 % of the
// exact ones and the correlation's sign and most of its size. (With the
// resampling's streams before 2026-11-30 seed 3's weights had k̂ 0.71, the
// fit warned, and its sds were 1.10 and 1.07 of the exact: a seed whose
// weights warn may miss by more.) The tolerance: the sd of 1000 resampled
// draws (about 900 distinct, of weights of ESS 3000–5000) has a Monte
// Carlo error near 2.5 %, and the Pareto smoothing's truncation of the
// largest weights can pull the draws towards q by a few per cent
// (measured: 0.96 of the exact sd on average with the earlier streams, 0.99
// with these), so 8 % is that bias and two standard errors; q's 19 % is
// far outside.
// The outputs are evaluated at the resampled draws (lin = beta[1] +
// 2·beta[2] row by row) and LOO is q's draws' (loo.csv as without the
// flag).
func TestPSISResampleCorrelated(t *testing.T) {
	d := t.TempDir()
	sd, rho := exactRegression(t, resampleRegData)
	for _, seed := range []string{"1", "2", "3", "4", "5"} {
		q, _, _, qout := fitDraws(t, d, "q"+seed, resampleRegModel, resampleRegData, "--seed", seed)
		r, comments, stderr, rout := fitDraws(t, d, "r"+seed, resampleRegModel, resampleRegData, "--seed", seed, "--psis-resample")
		for j, name := range []string{"beta.1", "beta.2"} {
			_, qsd := meanSD(q[name])
			_, rsd := meanSD(r[name])
			t.Logf("seed %s %s: exact sd %.4f, q %.4f (%.3f), resampled %.4f (%.3f)", seed, name, sd[j], qsd, qsd/sd[j], rsd, rsd/sd[j])
			if math.Abs(qsd/sd[j]-1) < 0.12 {
				t.Errorf("seed %s %s: q's sd %.4f is within 12 %% of the exact %.4f: the test's premise fails", seed, name, qsd, sd[j])
			}
			if math.Abs(rsd/sd[j]-1) > 0.08 {
				t.Errorf("seed %s %s: resampled sd %.4f, exact %.4f: more than 8 %% off", seed, name, rsd, sd[j])
			}
		}
		qrho, rrho := corr(q["beta.1"], q["beta.2"]), corr(r["beta.1"], r["beta.2"])
		t.Logf("seed %s: correlation exact %.3f, q %.3f, resampled %.3f", seed, rho, qrho, rrho)
		if math.Abs(qrho) > 0.1 || rrho > 0.75*rho || rrho < 1.15*rho {
			t.Errorf("seed %s: correlation of q's draws %.3f, of the resampled %.3f; want about 0 and %.3f (within 25 %%)", seed, qrho, rrho, rho)
		}
		for i, b1 := range r["beta.1"] {
			want := b1 + 2*r["beta.2"][i]
			if got := r["lin"][i]; math.Abs(got-want) > 2e-5*(1+math.Abs(want)) {
				t.Fatalf("seed %s draw %d: lin = %v, beta[0] + 2 beta[1] = %v: the outputs are not at the resampled draws", seed, i, got, want)
			}
		}
		if !containsLine(comments, "#     psis_resample = 1") || !strings.Contains(strings.Join(comments, "\n"), "# psis_resample: candidates = 10000,") {
			t.Errorf("seed %s: draws.csv does not record the resampling: %q", seed, comments)
		}
		ff := readFit(t, filepath.Join(rout, fitFileName))
		if ff.Resample == nil || !ff.Resample.Resampled || ff.Resample.Candidates != 10000 || !ff.Settings.PSISResample || len(ff.Factors) != 1 {
			t.Errorf("seed %s: fit.json's resampling %+v, settings %+v, factors %d", seed, ff.Resample, ff.Settings, len(ff.Factors))
		}
		if strings.Contains(stderr, "--psis-resample") {
			t.Errorf("seed %s: a warning for weights of k̂ %v: %s", seed, ff.Resample.ParetoK, stderr)
		}
		ql, _ := os.ReadFile(filepath.Join(qout, looFile))
		rl, _ := os.ReadFile(filepath.Join(rout, looFile))
		if len(ql) == 0 || !bytes.Equal(ql, rl) {
			t.Errorf("seed %s: loo.csv differs with --psis-resample (LOO is from q's draws):\n%s\n%s", seed, ql, rl)
		}
	}
}

// TestPSISResampleSkewed: a Poisson rate from the counts 0, 1, 0 under a
// Gamma(1, 1) prior has the posterior Gamma(2, 4): mean 0.5, sd 0.354,
// median 0.420. A lognormal q puts the median too low (0.36–0.38 over
// eight seeds) and the mean a little low (0.47–0.50), the sd a little
// high. Over seeds 1–8 the median across seeds of the resampled draws'
// median, mean and sd are nearer the exact ones than q's: each seed's
// statistic has a Monte Carlo error near 0.011 (0.35/√1000), their median
// across eight seeds near 0.005, so the bounds are about four of those.
// The median across seeds, not the mean: the weights p/q are genuinely
// heavy-tailed here (q's left tail in log λ is a normal's, the
// posterior's an exponential's, so k = 1 asymptotically): every seed has
// k̂ above 0.7, and a seed whose candidates reach far into that tail
// keeps q's draws where their ESS falls below the 1000 draws (with the
// resampling's streams before 2026-11-30, seed 1's was 406 of 10000, and
// resampled its median was 0.29; now it is 2558 and every seed resamples).
func TestPSISResampleSkewed(t *testing.T) {
	d := t.TempDir()
	const exactMean, exactSD, exactMedian = 0.5, 0.35355339059327373, 0.41958674750416510
	var qm, qs, q50, rm, rs, r50 []float64
	for seed := 1; seed <= 8; seed++ {
		s := strconv.Itoa(seed)
		q, _, _, _ := fitDraws(t, d, "q"+s, resamplePoisson, resampleCounts, "--family", "lognormal", "--seed", s)
		r, _, _, _ := fitDraws(t, d, "r"+s, resamplePoisson, resampleCounts, "--family", "lognormal", "--seed", s, "--psis-resample")
		m, sd := meanSD(q["lam"])
		qm, qs, q50 = append(qm, m), append(qs, sd), append(q50, summarise(q["lam"], 0).q50)
		m, sd = meanSD(r["lam"])
		rm, rs, r50 = append(rm, m), append(rs, sd), append(r50, summarise(r["lam"], 0).q50)
	}
	med := func(v []float64) float64 { return summarise(v, 0).q50 }
	t.Logf("mean: exact %.4f, q %.4f, resampled %.4f", exactMean, med(qm), med(rm))
	t.Logf("sd: exact %.4f, q %.4f, resampled %.4f", exactSD, med(qs), med(rs))
	t.Logf("median: exact %.4f, q %.4f, resampled %.4f", exactMedian, med(q50), med(r50))
	if e := med(q50) - exactMedian; e > -0.03 {
		t.Errorf("q's median %.4f is within 0.03 of the exact %.4f: the test's premise fails", med(q50), exactMedian)
	}
	if e := math.Abs(med(r50) - exactMedian); e > 0.02 {
		t.Errorf("resampled median %.4f, exact %.4f", med(r50), exactMedian)
	}
	if e := math.Abs(med(rm) - exactMean); e > 0.02 || e > math.Abs(med(qm)-exactMean) {
		t.Errorf("resampled mean %.4f, q's %.4f, exact %.4f", med(rm), med(qm), exactMean)
	}
	if e := math.Abs(med(rs) - exactSD); e > 0.02 || e > math.Abs(med(qs)-exactSD) {
		t.Errorf("resampled sd %.4f, q's %.4f, exact %.4f", med(rs), med(qs), exactSD)
	}
}

// TestPSISResampleWarns: with predictors of correlation 0.99 the mean-field
// q is 6 times too narrow and the weights have k̂ above 0.7 and an ESS
// below the 1000 draws: the fit warns and keeps q's draws (fit.json and
// draws.csv say so). The Poisson rate's lognormal q of seed 2 is close
// to its posterior, and its weights have k̂ above 0.7 (4.26, a tail fit of
// a pre-asymptotic shape) at an ESS of 7344: the fit resamples, and warns
// that the draws are not reliable either.
func TestPSISResampleWarns(t *testing.T) {
	d := t.TempDir()
	q, _, _, _ := fitDraws(t, d, "q", resampleRegModel, resampleCollinear, "--seed", "1")
	r, comments, stderr, out := fitDraws(t, d, "r", resampleRegModel, resampleCollinear, "--seed", "1", "--psis-resample")
	ff := readFit(t, filepath.Join(out, fitFileName))
	if ff.Resample == nil || !(ff.Resample.ParetoK > 0.7) || !(ff.Resample.ESS < 1000) || ff.Resample.Resampled {
		t.Fatalf("fit.json's resampling %+v: want k̂ above 0.7, ESS below 1000, not resampled", ff.Resample)
	}
	if !slices.Equal(q["beta.1"], r["beta.1"]) || !strings.Contains(strings.Join(comments, "\n"), "resampled = 0") {
		t.Error("the draws are not q's, or draws.csv does not say they are")
	}
	for _, want := range []string{"warning: --psis-resample: Pareto k̂ = ", "draws.csv and the summary hold q's own draws, not resampled"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}

	_, _, stderr, out = fitDraws(t, d, "p", resamplePoisson, resampleCounts, "--family", "lognormal", "--seed", "2", "--psis-resample")
	ff = readFit(t, filepath.Join(out, fitFileName))
	if ff.Resample == nil || !(ff.Resample.ParetoK > 0.7) || !(ff.Resample.ESS >= 1000) || !ff.Resample.Resampled {
		t.Fatalf("fit.json's resampling %+v: want k̂ above 0.7, ESS 1000 or more, resampled", ff.Resample)
	}
	if want := "are not reliable either, although they are resampled"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// TestPSISResampleReproducible: the same seed gives the same draws.csv,
// whatever --workers; another seed other draws; and a fit without the
// flag is the fit of before (its draws are q's, as the same fit's draws
// are the same with or without an unrelated setting).
func TestPSISResampleReproducible(t *testing.T) {
	d := t.TempDir()
	read := func(dir string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, drawsFile))
		if err != nil {
			t.Fatal(err)
		}
		var keep []string // less the line that names the file
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "#   file = "+dir) {
				keep = append(keep, l)
			}
		}
		return []byte(strings.Join(keep, "\n"))
	}
	_, _, _, a := fitDraws(t, d, "a", resampleRegModel, resampleRegData, "--seed", "7", "--psis-resample", "--workers", "1", "--output-draws", "300")
	_, _, _, b := fitDraws(t, d, "b", resampleRegModel, resampleRegData, "--seed", "7", "--psis-resample", "--workers", "2", "--output-draws", "300")
	_, _, _, c := fitDraws(t, d, "c", resampleRegModel, resampleRegData, "--seed", "8", "--psis-resample", "--workers", "1", "--output-draws", "300")
	if !bytes.Equal(read(a), read(b)) {
		t.Error("draws.csv differs between --workers 1 and 2 for one seed")
	}
	if bytes.Equal(read(a), read(c)) {
		t.Error("draws.csv is the same for seeds 7 and 8")
	}
	ff := readFit(t, filepath.Join(a, fitFileName))
	if ff.Resample == nil || ff.Resample.Candidates != 3000 {
		t.Errorf("candidates for 300 draws: %+v, want 3000", ff.Resample)
	}
}

// TestPSISResampleRestarts: a mixture of restarts is resampled with its
// own density (the mixture's): the draws keep the restart__ column, R̂
// still compares the restarts, and the console says what was resampled.
func TestPSISResampleRestarts(t *testing.T) {
	d := t.TempDir()
	out := filepath.Join(d, "mix")
	code, stdout, stderr := runSafe(t, "fit", resampleRegModel, resampleRegData, "--seed", "3", "--restarts", "2", "--psis-resample", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"resampled    1000 of 10000 draws of q", "R̂            "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	_, header, rows := readStanCSV(t, filepath.Join(out, drawsFile))
	rc := slices.Index(header, "restart__")
	if rc < 0 {
		t.Fatalf("no restart__ column: %v", header)
	}
	seen := map[float64]int{}
	for _, row := range rows[1:] {
		seen[row[rc]]++
	}
	if len(seen) != 2 {
		t.Errorf("draws from restarts %v, want both", seen)
	}
	ff := readFit(t, filepath.Join(out, fitFileName))
	if ff.Resample == nil || len(ff.Restarts) != 2 {
		t.Errorf("fit.json: resampling %+v, %d restarts", ff.Resample, len(ff.Restarts))
	}
}

// TestPSISResampleRefused: --psis-resample with --family map (no q) or
// --prior (no fit) is a usage error, and the REPL's :fit refuses it.
func TestPSISResampleRefused(t *testing.T) {
	d := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--family", "map"}, "--psis-resample needs SGVB"},
		{[]string{"--prior"}, "--psis-resample: not with --prior"},
	} {
		out := filepath.Join(d, "x")
		args := append([]string{"fit", resampleRegModel, resampleRegData, "--psis-resample", "--out", out}, c.args...)
		code, _, stderr := runSafe(t, args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	r, _, errb := newTestRepl()
	typeIn(r, "param x: positive ~ Gamma(1, 1)", ":fit --psis-resample")
	if e := errb.String(); !strings.Contains(e, "resample them with gpp fit --psis-resample") || r.fit != nil {
		t.Errorf(":fit --psis-resample: %q", e)
	}
}

// TestPSISResamplePredict: a resampled fit's fit.json still holds q:
// --init warm-starts from it and gpp predict draws from q, saying that
// they are not resampled.
func TestPSISResamplePredict(t *testing.T) {
	d := t.TempDir()
	_, _, _, out := fitDraws(t, d, "r", resampleRegModel, resampleRegData, "--seed", "1", "--psis-resample")
	fit := filepath.Join(out, fitFileName)
	if _, _, stderr, _ := fitDraws(t, d, "init", resampleRegModel, resampleRegData, "--init", fit); strings.Contains(stderr, "error") {
		t.Errorf("--init from a resampled fit: %s", stderr)
	}
	code, _, stderr := runSafe(t, "predict", out, resampleRegModel, resampleRegData, "--quiet", "--out", filepath.Join(d, "pred"))
	if code != 0 || !strings.Contains(stderr, "these are draws of q itself, not resampled") {
		t.Errorf("predict: exit %d, %q", code, stderr)
	}
}

// TestPSISResampleMissing: the missing values are params of q, drawn and
// weighted with the rest: the resampled draws' y_missing are candidates'
// values, each row's output ybar the mean of y with them filled in, as
// the draws' own a, b and s are.
func TestPSISResampleMissing(t *testing.T) {
	d := t.TempDir()
	q, _, _, _ := fitDraws(t, d, "q", missingModel, missingData)
	r, _, _, out := fitDraws(t, d, "r", missingModel, missingData, "--psis-resample")
	if ff := readFit(t, filepath.Join(out, fitFileName)); ff.Resample == nil || !ff.Resample.Resampled {
		t.Fatalf("not resampled: %+v", ff.Resample)
	}
	if len(r["y_missing.1"]) != 1000 || slices.Equal(q["y_missing.1"], r["y_missing.1"]) {
		t.Fatal("y_missing is missing from the resampled draws, or is q's draws")
	}
	recs := reftest.ReadCSV(t, missingData)
	var sum float64
	n := 0
	for _, rec := range recs[1:] {
		if v, err := strconv.ParseFloat(rec[1], 64); err == nil && !math.IsNaN(v) {
			sum += v
		}
		n++
	}
	for i := range r["ybar"] {
		want := (sum + r["y_missing.1"][i] + r["y_missing.2"][i]) / float64(n)
		if got := r["ybar"][i]; math.Abs(got-want) > 1e-5 {
			t.Fatalf("draw %d: ybar = %v, want %v from its y_missing", i, got, want)
		}
	}
}

// TestResampleWarningFullRank: a resampling refused for heavy-tailed
// weights tells a mean-field fit to try --fullrank, and a fit already of
// one joint normal (--fullrank all, --family laplace or pathfinder, which
// refuse --fullrank) not to (the BUGS Dyes model, whose between-batch sd
// of six batches no joint normal follows, was told to try it).
func TestResampleWarningFullRank(t *testing.T) {
	o := resampleOutcome{rs: &sgvb.Resampling{K: 0.82, ESS: 279, Candidates: 10000}}
	warning := func(fullRank string, method sgvb.Method) string {
		return resampleWarning(o, jointFlag(&fitConfig{fullRank: fullRank, settings: sgvb.Settings{Method: method}}))
	}
	if w := warning("", sgvb.SGVB); !strings.Contains(w, "try --fullrank") {
		t.Errorf("mean-field: %q lacks the --fullrank hint", w)
	}
	w := warning("all", sgvb.SGVB)
	if strings.Contains(w, "try --fullrank") || !strings.Contains(w, "even as one joint normal (--fullrank all)") {
		t.Errorf("--fullrank all: %q", w)
	}
	for _, m := range []sgvb.Method{sgvb.Laplace, sgvb.Pathfinder} {
		if w := warning("", m); strings.Contains(w, "try --fullrank") || !strings.Contains(w, "even as one joint normal (--family "+m.String()+")") {
			t.Errorf("--family %s: %q", m, w)
		}
	}
	if w := warning("alpha+beta", sgvb.SGVB); !strings.Contains(w, "try --fullrank") {
		t.Errorf("--fullrank of a group: %q lacks the hint (all may join more)", w)
	}
}

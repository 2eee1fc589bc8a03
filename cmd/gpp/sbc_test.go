package main

import (
	"bytes"
	"context"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gpplang/gpp/internal/reftest"
)

// TestRankStats checks the rank statistics against values worked by hand.
func TestRankStats(t *testing.T) {
	// Each of 0..99 once: uniform exactly.
	var flat []int
	for r := range 100 {
		flat = append(flat, r)
	}
	s := rankStats(flat, 99)
	if s.bins != 20 || s.chi2 != 0 || s.p != 1 || s.zMean != 0 || s.outer != 0.1 || s.outerWant != 0.1 || s.zOuter != 0 || s.reading != "calibrated" {
		t.Errorf("uniform ranks: %+v", s)
	}

	// L = 9, ten ranks: 2 bins (0–4, 5–9) of 5 expected each; counts 9
	// and 1 give χ² = 16/5 + 16/5 = 6.4 on 1 degree of freedom. The mean
	// rank 0.9 against 4.5, with variance (10² − 1)/12 = 8.25 per rank,
	// is z = −3.6/√0.825. The outer 10 % of 0..9 are the ranks 0 and 9
	// (midpoints 0.05 and 0.95), 2 of 10 values: all ten ranks are there.
	ranks := []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 9}
	s = rankStats(ranks, 9)
	wantP := distuv.ChiSquared{K: 1}.Survival(6.4)
	wantZ := -3.6 / math.Sqrt(0.825)
	wantZOuter := (10 - 10*0.2) / math.Sqrt(10*0.2*0.8)
	if s.bins != 2 || math.Abs(s.chi2-6.4) > 1e-12 || math.Abs(s.p-wantP) > 1e-12 || math.Abs(s.zMean-wantZ) > 1e-12 ||
		s.outer != 1 || s.outerWant != 0.2 || math.Abs(s.zOuter-wantZOuter) > 1e-12 {
		t.Errorf("ranks %v: %+v; want χ² 6.4, p %g, z %g, outer 1 of 0.2, outer z %g", ranks, s, wantP, wantZ, wantZOuter)
	}
	if s.reading != "q too narrow, q shifted high" {
		t.Errorf("ranks %v read %q, want q too narrow, q shifted high", ranks, s.reading)
	}

	// Ranks in the middle: too few in the outer bins, q too wide.
	var mid []int
	for i := range 200 {
		mid = append(mid, 40+i%20)
	}
	if s := rankStats(mid, 99); s.reading != "q too wide" || s.outer != 0 {
		t.Errorf("middle ranks: %+v, want q too wide", s)
	}
	// High ranks: the truth above q's draws, q shifted low.
	var high []int
	for i := range 200 {
		high = append(high, 20+i%80) // 20..99: a fifth too few low ranks
	}
	if s := rankStats(high, 99); s.reading != "q shifted low" {
		t.Errorf("high ranks: %+v, want q shifted low", s)
	}

	for _, c := range []struct{ r, L int }{{0, 99}, {4, 99}, {95, 99}, {99, 99}, {0, 19}, {19, 19}} {
		if !rankOuter(c.r, c.L) {
			t.Errorf("rank %d of 0..%d is not outer", c.r, c.L)
		}
	}
	for _, c := range []struct{ r, L int }{{5, 99}, {94, 99}, {1, 19}, {18, 19}} {
		if rankOuter(c.r, c.L) {
			t.Errorf("rank %d of 0..%d is outer", c.r, c.L)
		}
	}
}

// TestSBCRankTies checks that a true value tied with draws takes each
// rank from less to less+ties alike, and without ties the number below.
func TestSBCRankTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	if r := sbcRank(7, 0, rng); r != 7 {
		t.Errorf("no ties: rank %d, want 7", r)
	}
	count := map[int]int{}
	const n = 30000
	for range n {
		count[sbcRank(3, 2, rng)]++
	}
	for r := 3; r <= 5; r++ {
		if f := float64(count[r]) / n; math.Abs(f-1.0/3) > 0.015 {
			t.Errorf("rank %d in %.3f of the draws, want 1/3", r, f)
		}
	}
	if len(count) != 3 {
		t.Errorf("ranks %v, want 3, 4 and 5 only", count)
	}
}

// sbcSummary reads an sbc summary.csv into rows by name.
func sbcSummary(t *testing.T, dir string) map[string]map[string]string {
	t.Helper()
	recs := reftest.ReadCSV(t, filepath.Join(dir, "summary.csv"))
	out := map[string]map[string]string{}
	for _, r := range recs[1:] {
		row := map[string]string{}
		for i, h := range recs[0] {
			row[h] = r[i]
		}
		out[r[0]] = row
	}
	return out
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// writeSBCModel writes a model into dir and returns its path.
func writeSBCModel(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const sbcNormalModel = `data y: real[N]
param mu: real ~ Normal(0, 2)
y ~ Normal(mu, 1)
`

// TestSBCNormalCalibrated runs SBC on a conjugate normal mean, where the
// posterior is normal and a normal q is exact: the ranks must be uniform
// (measured at seed 1: p 0.68, mean-rank z +0.61, outer 10 %).
func TestSBCNormalCalibrated(t *testing.T) {
	dir := t.TempDir()
	model := writeSBCModel(t, dir, "normal.gpp", sbcNormalModel)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runSafe(t, "sbc", model, "--set", "N=10", "--sims", "100", "--output-draws", "19", "--iter", "2000", "--seed", "1", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	row := sbcSummary(t, out)["mu"]
	if row == nil {
		t.Fatalf("no row for mu in summary.csv; stdout:\n%s", stdout)
	}
	if p := num(t, row["p_uniform"]); p < 0.01 {
		t.Errorf("p(uniform) %g for an exact q", p)
	}
	if z := num(t, row["mean_rank_z"]); math.Abs(z) > sbcZ {
		t.Errorf("mean-rank z %g for an exact q", z)
	}
	if z := num(t, row["outer_z"]); math.Abs(z) > sbcZ {
		t.Errorf("outer z %g for an exact q", z)
	}
	if row["reading"] != "calibrated" || !strings.Contains(stdout, "calibrated") {
		t.Errorf("reading %q, want calibrated; stdout:\n%s", row["reading"], stdout)
	}
	// The ranks in ranks.csv are what the summary summarises.
	recs := reftest.ReadCSV(t, filepath.Join(out, "ranks.csv"))
	if len(recs) != 101 || strings.Join(recs[0], ",") != "sim,name,rank,draws,elbo,pareto_k,converged" {
		t.Fatalf("ranks.csv has %d rows, header %v", len(recs), recs[0])
	}
	var ranks []int
	for _, r := range recs[1:] {
		k, err := strconv.Atoi(r[2])
		if err != nil || k < 0 || k > 19 {
			t.Fatalf("rank %q not in 0..19", r[2])
		}
		ranks = append(ranks, k)
	}
	if s := rankStats(ranks, 19); math.Abs(s.p-num(t, row["p_uniform"])) > 1e-5*s.p {
		t.Errorf("summary p %s, ranks.csv's ranks give %g", row["p_uniform"], s.p)
	}
}

// sbcCollinear writes a regression on two covariates of correlation 0.94
// and its design: the posterior of beta is strongly correlated, which a
// mean-field q cannot follow, and its marginals are then too narrow.
func sbcCollinear(t *testing.T, dir string) (model, design string) {
	var b strings.Builder
	b.WriteString("x1,x2\n")
	for i := range 20 {
		x1 := -1 + 2*float64(i)/19
		b.WriteString(strconv.FormatFloat(x1, 'f', 4, 64) + "," + strconv.FormatFloat(x1+0.3*math.Sin(float64(7*i+1)), 'f', 4, 64) + "\n")
	}
	design = filepath.Join(dir, "design.csv")
	if err := os.WriteFile(design, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	model = writeSBCModel(t, dir, "collinear.gpp", `data x1: real[N]
data x2: real[N]
data y: real[N]
param beta: real[2] ~ Normal(0, 1)
y ~ Normal(beta[0] * x1 + beta[1] * x2, 1)
`)
	return model, design
}

// TestSBCMeanFieldTooNarrow runs SBC on the collinear regression: mean
// field puts far more than 10 % of the ranks in the outer 10 % (measured
// at seeds 1–3 with 60 simulations: 23–38 %, outer z +3.4 to +7.3), and a
// full-rank q is calibrated (5–12.5 %).
func TestSBCMeanFieldTooNarrow(t *testing.T) {
	dir := t.TempDir()
	model, design := sbcCollinear(t, dir)
	common := []string{"sbc", model, design, "--sims", "60", "--output-draws", "19", "--iter", "2000", "--seed", "1", "--quiet"}
	mf := filepath.Join(dir, "mf")
	if code, _, stderr := runSafe(t, append(common, "--out", mf)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := sbcSummary(t, mf)
	outer := (num(t, rows["beta[0]"]["outer_frac"]) + num(t, rows["beta[1]"]["outer_frac"])) / 2
	if outer < 0.22 {
		t.Errorf("mean field: %.3f of the ranks in the outer 10 %%, want well above 0.1", outer)
	}
	if !strings.Contains(rows["beta[0]"]["reading"], "q too narrow") {
		t.Errorf("mean field: beta[0] read %q, want q too narrow", rows["beta[0]"]["reading"])
	}
	fr := filepath.Join(dir, "fr")
	if code, _, stderr := runSafe(t, append(common, "--out", fr, "--fullrank", "beta", "--sims", "40")...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows = sbcSummary(t, fr)
	for _, name := range []string{"beta[0]", "beta[1]"} {
		if z := num(t, rows[name]["outer_z"]); math.Abs(z) > sbcZ || rows[name]["reading"] != "calibrated" {
			t.Errorf("full rank: %s outer z %g, read %q, want calibrated", name, z, rows[name]["reading"])
		}
	}
}

// TestSBCReproducible checks that a seed gives the same ranks whatever
// the number of workers, and another seed other ranks.
func TestSBCReproducible(t *testing.T) {
	dir := t.TempDir()
	model := writeSBCModel(t, dir, "normal.gpp", sbcNormalModel)
	ranks := func(out string, args ...string) string {
		t.Helper()
		args = append([]string{"sbc", model, "--set", "N=5", "--sims", "8", "--output-draws", "9", "--iter", "500", "--quiet", "--out", filepath.Join(dir, out)}, args...)
		if code, _, stderr := runSafe(t, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(dir, out, "ranks.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	one := ranks("w1", "--workers", "1", "--seed", "4")
	three := ranks("w3", "--workers", "3", "--seed", "4")
	if one != three {
		t.Errorf("--workers 1 and 3 differ:\n%s\n%s", one, three)
	}
	if other := ranks("s5", "--workers", "2", "--seed", "5"); other == one {
		t.Errorf("seeds 4 and 5 give the same ranks")
	}
}

// TestSBCFailedFits checks that simulations whose data or fit fail are
// counted, listed in failed.csv and left out of the ranks: y ~ Normal(0,
// exp(mu)) with mu ~ Normal(0, 1000) draws a y that overflows, or too
// large for the density, in about half of them.
func TestSBCFailedFits(t *testing.T) {
	dir := t.TempDir()
	model := writeSBCModel(t, dir, "wide.gpp", `data y: real[N]
param mu: real ~ Normal(0, 1000)
y ~ Normal(0, exp(mu))
`)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runSafe(t, "sbc", model, "--set", "N=3", "--sims", "12", "--output-draws", "9", "--iter", "300", "--seed", "1", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	failed := reftest.ReadCSV(t, filepath.Join(out, "failed.csv"))[1:]
	ranked := reftest.ReadCSV(t, filepath.Join(out, "ranks.csv"))[1:]
	if len(failed) == 0 || len(failed)+len(ranked) != 12 {
		t.Fatalf("%d failed and %d ranked, want some failed and 12 in all", len(failed), len(ranked))
	}
	for _, f := range failed {
		for _, r := range ranked {
			if r[0] == f[0] {
				t.Errorf("simulation %s failed (%s) but is ranked", f[0], f[1])
			}
		}
	}
	if n := sbcSummary(t, out)["mu"]["sims"]; n != strconv.Itoa(len(ranked)) {
		t.Errorf("summary.csv counts %s simulations, want %d", n, len(ranked))
	}
	if want := "failed       " + strconv.Itoa(len(failed)) + " of the simulations"; !strings.Contains(stdout, want) {
		t.Errorf("stdout does not say %q:\n%s", want, stdout)
	}
}

// TestUniformBand checks the 99 % band of a bin's count: the 0.5 % and
// 99.5 % points of Binomial(n, f) by their definition.
func TestUniformBand(t *testing.T) {
	for _, c := range []struct {
		n int
		f float64
	}{{100, 0.05}, {1000, 0.05}, {40, 0.25}} {
		lo, hi := uniformBand(c.n, c.f)
		b := distuv.Binomial{N: float64(c.n), P: c.f}
		if !(b.CDF(lo) >= 0.005 && (lo == 0 || b.CDF(lo-1) < 0.005)) || !(b.CDF(hi) >= 0.995 && b.CDF(hi-1) < 0.995) {
			t.Errorf("n %d, f %g: band [%g, %g]; CDF at lo−1, lo: %g, %g; at hi−1, hi: %g, %g",
				c.n, c.f, lo, hi, b.CDF(lo-1), b.CDF(lo), b.CDF(hi-1), b.CDF(hi))
		}
	}
}

// TestSBCPlots checks that --plots writes a rank histogram per param, a
// PNG image, and a later run without --plots removes them.
func TestSBCPlots(t *testing.T) {
	dir := t.TempDir()
	model, design := sbcCollinear(t, dir)
	out := filepath.Join(dir, "out")
	args := []string{"sbc", model, design, "--sims", "6", "--output-draws", "9", "--iter", "300", "--quiet", "--out", out}
	if code, stdout, stderr := runSafe(t, append(args, "--plots")...); code != 0 || !strings.Contains(stdout, "beta_ranks.png") {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	f, err := os.Open(filepath.Join(out, "beta_ranks.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatalf("beta_ranks.png: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 200 || b.Dy() < 100 {
		t.Errorf("beta_ranks.png is %v", b)
	}
	if code, _, stderr := runSafe(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "beta_ranks.png")); err == nil {
		t.Errorf("a run without --plots left the earlier run's beta_ranks.png")
	}
}

// TestSBCBand checks that gpp sbc takes fit's --band and that it reaches
// the fits: the banded factor's ranks are not the mean-field ones.
func TestSBCBand(t *testing.T) {
	dir := t.TempDir()
	model := writeSBCModel(t, dir, "chain.gpp", "data y: real[T]\nparam h: real[T] ~ Normal(0, 1)\ny ~ Normal(h, 0.5)\n")
	ranks := func(out string, args ...string) string {
		t.Helper()
		args = append([]string{"sbc", model, "--set", "T=6", "--sims", "4", "--output-draws", "9", "--iter", "300", "--quiet", "--workers", "1", "--out", filepath.Join(dir, out)}, args...)
		if code, _, stderr := runSafe(t, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(dir, out, "ranks.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if ranks("mf") == ranks("band", "--fullrank", "h", "--band", "1") {
		t.Errorf("--fullrank h --band 1 gave the mean-field fits' ranks")
	}
}

// TestSBCGivenDataNote checks that observed data given in the design get one
// note, which says that sbc draws them and does not use their values, and
// not also predict's "y is not in the data", which contradicts the file;
// data left out get that note.
func TestSBCGivenDataNote(t *testing.T) {
	dir := t.TempDir()
	model := writeSBCModel(t, dir, "normal.gpp", sbcNormalModel)
	design := filepath.Join(dir, "y.csv")
	if err := os.WriteFile(design, []byte("y\n0.5\n-1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	common := []string{"sbc", model, "--sims", "2", "--output-draws", "9", "--iter", "200", "--seed", "1"}
	code, _, stderr := runSafe(t, append(common, design, "--out", filepath.Join(dir, "given"))...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "note: y is in the data given, but its values are not used: drawn from its likelihood in each simulation, given the params drawn from the priors (" + model + ":3:1)"
	if !strings.Contains(stderr, want) || strings.Contains(stderr, "not in the data") || strings.Count(stderr, "note: y ") != 1 {
		t.Errorf("y given: stderr\n%s\nwant the one note %q", stderr, want)
	}
	code, _, stderr = runSafe(t, append(common, "--set", "N=3", "--out", filepath.Join(dir, "left"))...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "note: y is not in the data: drawn from its likelihood in each simulation"; !strings.Contains(stderr, want) || strings.Count(stderr, "note: y ") != 1 {
		t.Errorf("y left out: stderr\n%s\nwant the one note %q", stderr, want)
	}
}

// TestSBCInterrupted: an interrupt during the simulations writes nothing
// and exits 130, and the fits it stopped are not reported as failed
// simulations ("simulation 3 failed: context canceled"). The interrupt
// comes when the first simulation is reported done, while the other
// worker fits.
func TestSBCInterrupted(t *testing.T) {
	dir := t.TempDir()
	model := writeSBCModel(t, dir, "n.gpp", "data y: real[N]\nparam mu: real ~ Normal(0, 1)\ny ~ Normal(mu, 1)\n")
	out := filepath.Join(dir, "out")
	var stdout bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOnWrite{match: "1 of 8 simulations done", cancel: cancel}
	sc, code, ok := parseSBCArgs([]string{model, "--set", "N=3", "--sims", "8", "--workers", "2", "--iter", "20000", "--tol", "1e-12", "--out", out}, &stdout, stderr)
	if !ok {
		t.Fatalf("flags: exit %d: %s", code, &stderr.buf)
	}
	sc.fit.temps = &tempFiles{}
	checkInterrupted(t, runSBC(ctx, sc, &stdout, newConsole(stderr, false, false, false)), &stdout, stderr, out)
}

// checkInterrupted checks a run that stderr's cancel interrupted: exit
// exitInterrupted, the console saying that no output was written and
// nothing failed, no output directory out and nothing on stdout.
func checkInterrupted(t *testing.T, code int, stdout *bytes.Buffer, stderr *cancelOnWrite, out string) {
	t.Helper()
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, &stderr.buf)
	}
	if msg := stderr.buf.String(); !strings.Contains(msg, "interrupted: no output written") || strings.Contains(msg, "failed") {
		t.Errorf("stderr:\n%s\nwant the interrupt and nothing failed", msg)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the output directory %s exists (%v)", out, err)
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout:\n%s", stdout)
	}
}

// cancelOnWrite keeps what is written and calls cancel when it first holds
// match.
type cancelOnWrite struct {
	buf    bytes.Buffer
	match  string
	cancel func()
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	n, err := w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.match) {
		w.cancel()
	}
	return n, err
}

// TestSBCOutChecked: an --out that cannot take the outputs, a regular
// file, fails before the first simulation, as gpp fit's does before the
// fit, not after the simulations have all run.
func TestSBCOutChecked(t *testing.T) {
	dir := t.TempDir()
	model := writeSBCModel(t, dir, "n.gpp", "data y: real[N]\nparam mu: real ~ Normal(0, 1)\ny ~ Normal(mu, 1)\n")
	file := filepath.Join(dir, "taken")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runSafe(t, "sbc", model, "--set", "N=3", "--sims", "4", "--iter", "200", "--out", file)
	if code != exitError || !strings.Contains(stderr, "--out "+file+" is a file, not a directory") {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit 1 and the --out error", code, stderr)
	}
	if strings.Contains(stderr, "simulations done") || strings.Contains(stderr, "sbc of") {
		t.Errorf("the simulations ran before the --out error:\n%s", stderr)
	}
}

// TestSBCUserDensity: data observed by a user density cannot be simulated,
// and the error says that SBC needs a built-in ~, not predict's remedy of
// a replicate output, which sbc cannot use (a climate scientist's GEV
// trial was told to "write output y_rep ~ D(...)").
func TestSBCUserDensity(t *testing.T) {
	dir := t.TempDir()
	model := writeSBCModel(t, dir, "gev.gpp", kfoldGEV)
	code, _, stderr := runSafe(t, "sbc", model, "--set", "N=5", "--sims", "2", "--out", filepath.Join(dir, "out"))
	want := model + ":5:6: sbc simulates y, but it cannot be drawn: its ~ at " + model + ":9:1 is the user density gev, which has no sampler, and sbc draws the data it fits from the observed ~ statements themselves: SBC needs y observed by a built-in distribution (y ~ D(...))"
	if code != exitError || !strings.Contains(stderr, want) || strings.Contains(stderr, "y_rep") {
		t.Errorf("exit %d: %s\nwant %q", code, stderr, want)
	}
}

package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/reftest"
)

// TestRelativeEff: the plain ESS of the loo package's relative_eff, on
// chains whose ESS is known: independent draws have relative efficiency
// about 1, AR(1) chains with coefficient φ about (1 − φ)/(1 + φ) (1/3 for
// φ = 0.5, 0.1 for φ = 9/11), chains at different levels far less than
// their within-chain correlation says, and a constant none (NaN).
func TestRelativeEff(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ar := func(phi, shift float64) [][]float64 {
		ch := make([][]float64, 4)
		for c := range ch {
			ch[c] = make([]float64, 5000)
			x := rng.NormFloat64() / math.Sqrt(1-phi*phi)
			for i := range ch[c] {
				x = phi*x + rng.NormFloat64()
				ch[c][i] = x + shift*float64(c)
			}
		}
		return ch
	}
	for _, c := range []struct {
		phi, want float64
	}{{0, 1}, {0.5, 1.0 / 3}, {9.0 / 11, 0.1}} {
		if got := relativeEff(ar(c.phi, 0)); math.Abs(got/c.want-1) > 0.1 {
			t.Errorf("AR(1) φ %.3g: relative efficiency %.4g, want %.4g within 10 %%", c.phi, got, c.want)
		}
	}
	if got := relativeEff(ar(0, 1)); !(got < 0.01) {
		t.Errorf("independent draws in chains 1 sd apart: relative efficiency %v, want below 0.01", got)
	}
	if got := relativeEff([][]float64{{2, 2, 2, 2, 2}, {2, 2, 2, 2, 2}}); !math.IsNaN(got) {
		t.Errorf("constant: %v, want NaN", got)
	}
}

// looRegression is a well-specified regression with each observation's
// log likelihood.
const looRegression = `data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 10)
param b: real ~ Normal(0, 10)
param sigma: real<lower=0> ~ Exponential(1)
y ~ Normal(a + b * x, sigma)
output log_lik = logpdf(y, Normal(a + b * x, sigma))
`

// lineCSV returns n rows x,y of y = 1 + 0.5x + N(0, noise²), x ~
// N(x0, 1), from r.
func lineCSV(r *rand.Rand, n int, x0, noise float64) string {
	var data strings.Builder
	data.WriteString("x,y\n")
	for range n {
		x := x0 + r.NormFloat64()
		fmt.Fprintf(&data, "%.5f,%.5f\n", x, 1+0.5*x+noise*r.NormFloat64())
	}
	return data.String()
}

// TestSampleLOO: on a well-specified regression, gpp sample's PSIS-LOO
// (from the draws of the posterior) is within 0.5 nats of a full-rank
// fit's (importance weighting q's draws), observation by observation
// within 0.1, every k̂ below 0.7; gpp compare ranks the sample and the fit
// side by side, naming the sample's model "(NUTS)". Needs a correct
// infer/nuts.
func TestSampleLOO(t *testing.T) {
	dir := t.TempDir()
	csvPath := writeFile(t, dir, "xy.csv", lineCSV(rand.New(rand.NewPCG(11, 12)), 40, 0, 0.7))
	model := writeFile(t, dir, "reg.gpp", looRegression)
	fit, sample := filepath.Join(dir, "fit"), filepath.Join(dir, "sample")
	if code, _, stderr := runGpp("fit", model, csvPath, "--fullrank", "all", "--quiet", "--out", fit); code != exitOK {
		t.Fatalf("fit: exit %d:\n%s", code, stderr)
	}
	code, stdout, stderr := runGpp("sample", model, csvPath, "--quiet", "--out", sample)
	if code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "LOO          elpd_loo ") || !strings.Contains(stdout, "loo.csv") {
		t.Errorf("sample printed no LOO line or did not list loo.csv:\n%s", stdout)
	}
	f, s := reftest.ReadCSV(t, filepath.Join(fit, looFile)), reftest.ReadCSV(t, filepath.Join(sample, looFile))
	if len(f) != len(s) || len(s) != 2+40 {
		t.Fatalf("loo.csv: the fit's %d lines, the sample's %d; want 42", len(f), len(s))
	}
	total := func(rows [][]string) float64 {
		return parseNum(t, strings.TrimPrefix(rows[0][0], "# elpd_loo = "))
	}
	if ft, st := total(f), total(s); math.Abs(ft-st) > 0.5 {
		t.Errorf("elpd_loo: the fit's %v, the sample's %v: want within 0.5", ft, st)
	}
	for i := 2; i < len(s); i++ {
		if f[i][0] != s[i][0] {
			t.Fatalf("row %d: observation %s, the fit's %s", i, s[i][0], f[i][0])
		}
		fe, se, k := parseNum(t, f[i][1]), parseNum(t, s[i][1]), parseNum(t, s[i][3])
		if math.Abs(fe-se) > 0.1 || !(k < 0.7) {
			t.Errorf("%s: elpd %v (the fit's %v), k̂ %v", s[i][0], se, fe, k)
		}
	}
	code, stdout, stderr = runGpp("compare", fit, sample)
	if code != exitOK {
		t.Fatalf("compare: exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "reg.gpp (NUTS)") || !strings.Contains(stdout, fit+" ") || strings.Contains(stderr, "warning") {
		t.Errorf("compare:\n%s%s", stdout, stderr)
	}
}

// TestRunHeaderData: draws.csv's data line reads back argument by
// argument, a space or a quote in a path included; plain paths are
// written as they are (CmdStan's line, and the lines written before the
// escaping, read alike).
func TestRunHeaderData(t *testing.T) {
	line := func(data []string) string {
		var b strings.Builder
		writeRunHeader(func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) },
			drawsHeader{data: data, cfg: &fitConfig{sets: setFlags{}}})
		for _, l := range strings.Split(b.String(), "\n") {
			if v, ok := strings.CutPrefix(l, "#   file = "); ok {
				return v
			}
		}
		t.Fatalf("no data line in\n%s", b.String())
		return ""
	}
	for _, data := range [][]string{
		{},
		{"data.csv"},
		{`C:\data\x.csv`, "y=b.csv"},
		{"my data/x.csv", "y=other dir/b.csv:2,3"},
		{`"quoted".csv`, "it's.csv", `back\ slash`},
	} {
		l := line(data)
		got, err := splitArgs(l)
		if err != nil || !slices.Equal(got, data) {
			t.Errorf("%q: wrote %q, read back %q (%v)", data, l, got, err)
		}
	}
	if got := line([]string{"a.csv", `C:\b.csv`}); got != `a.csv C:\b.csv` {
		t.Errorf("plain paths written as %q", got)
	}
}

// twoRegressionData returns two data files' contents for looRegression,
// 30 rows each of y = 1 + 0.5x + N(0, 0.7²) at the same x, from seed (s1,
// s2).
func twoRegressionData(s1, s2 uint64) (string, string) {
	r := rand.New(rand.NewPCG(s1, s2))
	var a, b strings.Builder
	a.WriteString("x,y\n")
	b.WriteString("x,y\n")
	for range 30 {
		x := r.NormFloat64()
		fmt.Fprintf(&a, "%.5f,%.5f\n", x, 1+0.5*x+0.7*r.NormFloat64())
		fmt.Fprintf(&b, "%.5f,%.5f\n", x, 1+0.5*x+0.7*r.NormFloat64())
	}
	return a.String(), b.String()
}

// TestCompareSampleDataWithSpace: a sample of data in a directory whose
// name has a space records its data as one argument, so gpp compare finds
// that a fit of the same file read the same data (no warning) and names
// another file whole when a second sample read it; gpp predict of such a
// sample reads its --set values and seed.
func TestCompareSampleDataWithSpace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	a, b := twoRegressionData(13, 14)
	dataA, dataB := writeFile(t, dir, "a b.csv", a), writeFile(t, dir, "other.csv", b)
	model := writeFile(t, dir, "reg.gpp", looRegression)
	fit, s1, s2 := filepath.Join(dir, "fit out"), filepath.Join(dir, "sample 1"), filepath.Join(dir, "sample 2")
	if code, _, stderr := runGpp("fit", model, dataA, "--quiet", "--out", fit); code != exitOK {
		t.Fatalf("fit: exit %d:\n%s", code, stderr)
	}
	for _, c := range []struct{ data, out string }{{dataA, s1}, {dataB, s2}} {
		if code, _, stderr := runGpp("sample", model, c.data, "--chains", "2", "--warmup", "150", "--draws", "100", "--quiet", "--out", c.out); code != exitOK {
			t.Fatalf("sample: exit %d:\n%s", code, stderr)
		}
	}
	// headers without the observed data's sha256 (before gpp wrote them):
	// the files decide, and the warning names them
	for _, s := range []string{s1, s2} {
		dropHeaderLines(t, s, "#   observed_sha256 ")
	}
	if meta := readSampleMeta(filepath.Join(s1, drawsFile), sources{}); meta == nil || !slices.Equal(meta.Data, []string{dataA}) {
		t.Errorf("the sample's data read back as %v, want [%s]", meta, dataA)
	}
	code, stdout, stderr := runGpp("compare", fit, s1)
	if code != exitOK || strings.Contains(stderr, "LOO compares fits of the same data") {
		t.Errorf("compare of a fit and a sample of one file: exit %d:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runGpp("compare", s1, s2)
	if want := fmt.Sprintf("%s read %s, %s read %s", s1, dataA, s2, dataB); code != exitOK || !strings.Contains(stderr, want) {
		t.Errorf("compare of samples of two files: exit %d, want a warning %q:\n%s%s", code, want, stdout, stderr)
	}
	code, _, stderr = runGpp("predict", s1, model, dataA, "--quiet", "--out", filepath.Join(dir, "pred out"))
	if code != exitOK {
		t.Errorf("predict of the sample: exit %d:\n%s", code, stderr)
	}
}

// TestCompareSampleDataByHash: a sample's draws.csv records each data
// file's sha256 as fit.json does, and gpp compare reads them: samples of
// one file's contents under two paths compare without a warning, a sample
// of other contents with one, as fits do; a header written before the
// lines (none) compares the paths, silent for the same path.
func TestCompareSampleDataByHash(t *testing.T) {
	dir := t.TempDir()
	a, b := twoRegressionData(15, 16)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	dataA, copyA, dataB := writeFile(t, dir, "a.csv", a), writeFile(t, filepath.Join(dir, "sub"), "copy.csv", a), writeFile(t, dir, "b.csv", b)
	model := writeFile(t, dir, "reg.gpp", looRegression)
	out := map[string]string{}
	for i, data := range []string{dataA, copyA, dataB} {
		out[data] = filepath.Join(dir, fmt.Sprint("sample", i))
		if code, _, stderr := runGpp("sample", model, data, "--chains", "1", "--warmup", "100", "--draws", "100", "--quiet", "--out", out[data]); code != exitOK {
			t.Fatalf("sample: exit %d:\n%s", code, stderr)
		}
	}
	if meta := readSampleMeta(filepath.Join(out[dataA], drawsFile), sources{}); meta == nil || !slices.Equal(meta.DataSHA256, []string{fitfile.ModelHash([]byte(a))}) {
		t.Errorf("the sample's data_sha256 read back as %v, want the sha256 of %s", meta, dataA)
	}
	// headers without the observed data's sha256 (before gpp wrote them,
	// TestCompareObservedByHash): the files' sha256 decide
	for _, o := range out {
		dropHeaderLines(t, o, "#   observed_sha256 ")
	}
	warns := func(x, y string) bool {
		code, stdout, stderr := runGpp("compare", x, y)
		if code != exitOK {
			t.Fatalf("compare %s %s: exit %d:\n%s%s", x, y, code, stdout, stderr)
		}
		return strings.Contains(stderr, "LOO compares fits of the same data")
	}
	if warns(out[dataA], out[copyA]) {
		t.Errorf("samples of one file's contents under two paths: a warning")
	}
	if !warns(out[dataA], out[dataB]) {
		t.Errorf("samples of other contents: no warning")
	}
	// an older header: the same path, no file_sha256 lines
	old := filepath.Join(dir, "old")
	if err := os.CopyFS(old, os.DirFS(out[dataA])); err != nil {
		t.Fatal(err)
	}
	dropHeaderLines(t, old, "#   file_sha256 = ")
	if meta := readSampleMeta(filepath.Join(old, drawsFile), sources{}); meta == nil || meta.DataSHA256 != nil {
		t.Fatalf("the older header read as %v, want no sha256", meta)
	}
	if warns(out[dataA], old) {
		t.Errorf("an older header of the same path: a warning")
	}
}

// dropHeaderLines removes the lines that begin with prefix from the
// draws.csv in dir, as a header written before gpp wrote them reads.
func dropHeaderLines(t *testing.T, dir, prefix string) {
	t.Helper()
	draws, err := os.ReadFile(filepath.Join(dir, drawsFile))
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(string(draws), "\n") {
		if !strings.HasPrefix(l, prefix) {
			keep = append(keep, l)
		}
	}
	writeFile(t, dir, drawsFile, strings.Join(keep, "\n"))
}

// mmOutlier is a normal model whose last observation is an outlier: its
// PSIS-LOO weights have k̂ well above 0.7.
const mmOutlier = `data N: int
data y: real[N]
param mu: real ~ Normal(0, 10)
param sigma: positive ~ Gamma(2, 1)
y ~ Normal(mu, sigma)
output log_lik = logpdf(y, Normal(mu, sigma))
`

var mmOutlierY = []float64{0.3, -0.5, 0.1, 0.9, -0.2, 0.4, -0.7, 0.2, 12}

// writeOutlier writes mmOutlier and its data into dir.
func writeOutlier(t *testing.T, dir string) (csvPath, model string) {
	t.Helper()
	var data strings.Builder
	data.WriteString("y\n")
	for _, v := range mmOutlierY {
		fmt.Fprintf(&data, "%g\n", v)
	}
	return writeFile(t, dir, "y.csv", data.String()), writeFile(t, dir, "out.gpp", mmOutlier)
}

// mmOutlierExact is log p(y_9 | y_−9) of mmOutlier: μ integrated out
// analytically, σ by mpmath's quadrature at 30 digits (as sgvb's
// TestMomentMatchLOODefensive).
const mmOutlierExact = -16.9709012533570

// TestMomentMatch: gpp sample --moment-match and gpp fit --moment-match
// re-estimate the outlier's elpd_loo, which PSIS-LOO alone gets wrong by
// several nats (k̂ above 1), to within 0.5 of the exact value, bring its
// k̂ down, and leave the other observations' rows as they were; the result
// does not depend on --workers, the LOO warning without the flag names it,
// and a model without log_lik is refused before sampling or fitting.
func TestMomentMatch(t *testing.T) {
	dir := t.TempDir()
	csvPath, model := writeOutlier(t, dir)
	noLL := writeFile(t, dir, "nol.gpp", strings.Replace(mmOutlier, "output log_lik", "output ll", 1))
	for _, cmd := range []string{"sample", "fit"} {
		run := func(out string, args ...string) ([][]string, string, string) {
			t.Helper()
			code, stdout, stderr := runGpp(append([]string{cmd, model, csvPath, "--quiet", "--out", filepath.Join(dir, cmd+out)}, args...)...)
			if code != exitOK {
				t.Fatalf("%s %v: exit %d:\n%s", cmd, args, code, stderr)
			}
			return reftest.ReadCSV(t, filepath.Join(dir, cmd+out, looFile)), stdout, stderr
		}
		plain, _, stderr := run("plain")
		if !strings.Contains(stderr, "--moment-match moves the draws") {
			t.Errorf("%s: no advice to use --moment-match in the LOO warning:\n%s", cmd, stderr)
		}
		mm1, stdout, stderr := run("mm1", "--moment-match", "--workers", "1")
		mm2, _, _ := run("mm2", "--moment-match", "--workers", "2")
		if !slices.EqualFunc(mm1, mm2, slices.Equal) {
			t.Errorf("%s: loo.csv differs between --workers 1 and 2:\n%v\n%v", cmd, mm1, mm2)
		}
		if !strings.Contains(stdout, "moment match 1 observation with k̂ above 0.7") || strings.Contains(stderr, "--moment-match moves") {
			t.Errorf("%s: stdout:\n%s\nstderr:\n%s", cmd, stdout, stderr)
		}
		last := len(plain) - 1
		pe, pk := parseNum(t, plain[last][1]), parseNum(t, plain[last][3])
		me, mk := parseNum(t, mm1[last][1]), parseNum(t, mm1[last][3])
		t.Logf("%s: the outlier's exact elpd %.4f; PSIS %.4f (k̂ %.2f); moment matched %.4f (k̂ %.2f)", cmd, mmOutlierExact, pe, pk, me, mk)
		if !(pk > 1) || !(math.Abs(pe-mmOutlierExact) > 1.5) {
			t.Fatalf("%s: PSIS-LOO's outlier: elpd %v (exact %v), k̂ %v: the test wants a bad one", cmd, pe, mmOutlierExact, pk)
		}
		if math.Abs(me-mmOutlierExact) > 0.5 || !(mk < pk-0.3) {
			t.Errorf("%s: moment matched: elpd %v (exact %v), k̂ %v (PSIS's %v)", cmd, me, mmOutlierExact, mk, pk)
		}
		sum := 0.0
		for i := 2; i < len(mm1); i++ {
			sum += parseNum(t, mm1[i][1])
			if i < last && !slices.Equal(mm1[i], plain[i]) {
				t.Errorf("%s: row %d changed: %v, was %v", cmd, i, mm1[i], plain[i])
			}
		}
		if total := parseNum(t, strings.TrimPrefix(mm1[0][0], "# elpd_loo = ")); math.Abs(total-sum) > 1e-3 { // the header rounds to 6 digits
			t.Errorf("%s: loo.csv's elpd_loo %v, its rows sum to %v", cmd, total, sum)
		}
		if head := strings.Join(mm1[0], ","); !strings.HasSuffix(mm1[0][3], " (moment matched: 1)") { // pareto_k's field; WAIC's follow
			t.Errorf("%s: loo.csv's first line %q does not count the observation moment matched", cmd, head)
		}
		// gpp compare reads the count: a fit not matched gets the advice,
		// one matched whose k̂ stays high is said to have been.
		code, _, stderr := runGpp("compare", filepath.Join(dir, cmd+"plain"), filepath.Join(dir, cmd+"mm1"))
		if code != exitOK || !strings.Contains(stderr, cmd+"plain: Pareto k̂ above 0.7 for 1 of 9 observations") ||
			!strings.Contains(stderr, "--moment-match may bring them down") ||
			strings.Contains(stderr, "mm1: Pareto") != (mk > 0.7) ||
			strings.Contains(stderr, "moment matching already ran on 1 observation)") != (mk > 0.7) {
			t.Errorf("%s: compare: exit %d:\n%s", cmd, code, stderr)
		}
		code, _, stderr = runGpp(cmd, noLL, csvPath, "--moment-match", "--out", filepath.Join(dir, cmd+"nol"))
		if code != exitError || !strings.Contains(stderr, "--moment-match needs an output log_lik") {
			t.Errorf("%s: a model without log_lik: exit %d:\n%s", cmd, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, cmd+"nol")); err == nil {
			t.Errorf("%s: a refused --moment-match left an output directory", cmd)
		}
	}
	if code, _, stderr := runGpp("fit", model, csvPath, "--family", "map", "--moment-match", "--out", filepath.Join(dir, "map")); code != exitUsage || !strings.Contains(stderr, "--moment-match needs SGVB") {
		t.Errorf("fit --family map --moment-match: exit %d:\n%s", code, stderr)
	}
}

// TestFitMomentMatchBadQ: a mean-field fit of a regression on x far from
// 0 misses the correlation of intercept and slope, so the LOO draws' own
// weights p/q are heavy-tailed and every observation's k̂ is above 0.7;
// --moment-match then says why it does nothing (naming --fullrank all)
// and leaves loo.csv as it was; without it the LOO warning names gpp
// sample's matching, not the fit's, which would refuse.
func TestFitMomentMatchBadQ(t *testing.T) {
	dir := t.TempDir()
	csvPath := writeFile(t, dir, "xy.csv", lineCSV(rand.New(rand.NewPCG(3, 4)), 30, 10, 0.5))
	model := writeFile(t, dir, "reg.gpp", looRegression)
	var loo [2][][]string
	for i, args := range [][]string{nil, {"--moment-match"}} {
		out := filepath.Join(dir, fmt.Sprint("fit", i))
		code, stdout, stderr := runGpp(append([]string{"fit", model, csvPath, "--quiet", "--out", out}, args...)...)
		if code != exitOK {
			t.Fatalf("fit %v: exit %d:\n%s", args, code, stderr)
		}
		loo[i] = reftest.ReadCSV(t, filepath.Join(out, looFile))
		if i == 1 && (!strings.Contains(stdout, "moment match not done: the LOO draws' own weights p/q have k̂") ||
			!strings.Contains(stdout, "a q closer to the posterior (--fullrank all) or gpp sample --moment-match does")) {
			t.Errorf("fit --moment-match on a q that misses the posterior:\n%s", stdout)
		}
		// the LOO warning names the matching that can run: gpp sample's
		if i == 0 && (strings.Contains(stderr, "; --moment-match moves") || !strings.Contains(stderr, "gpp sample --moment-match can bring them down")) {
			t.Errorf("fit on a q that misses the posterior: warnings\n%s", stderr)
		}
	}
	if !slices.EqualFunc(loo[0], loo[1], slices.Equal) {
		t.Errorf("loo.csv changed:\n%v\n%v", loo[0], loo[1])
	}
}

// TestFitMomentMatchLine: gpp fit --moment-match prints what it did (the
// "moment match" line) with --psis-resample, whose output draws are
// resampled but whose LOO is q's draws' (and moment matched), and with
// --restarts, whose status lines are the mixture's.
func TestFitMomentMatchLine(t *testing.T) {
	dir := t.TempDir()
	csvPath, model := writeOutlier(t, dir)
	for i, args := range [][]string{{"--psis-resample"}, {"--restarts", "2"}} {
		code, stdout, stderr := runGpp(append([]string{"fit", model, csvPath, "--quiet", "--moment-match", "--out", filepath.Join(dir, fmt.Sprint(i))}, args...)...)
		if code != exitOK {
			t.Fatalf("fit %v: exit %d:\n%s", args, code, stderr)
		}
		if !strings.Contains(stdout, "\nmoment match ") {
			t.Errorf("fit --moment-match %v: no moment match line:\n%s", args, stdout)
		}
	}
}

// TestMomentMatchInterrupted: after Ctrl-C (a cancelled context) moment
// matching matches no more observations; those left keep their PSIS
// estimates, and the console line says how many (and, below 10 draws,
// why nothing was matched).
func TestMomentMatchInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep := &mmReport{thr: 0.7}
	e := &mmEvaluator{rep: rep}
	pts := []sgvb.LOOPoint{{ELPD: -1, P: 0.1, K: 0.9}, {ELPD: -2, P: 0.2, K: 1.1}}
	lo := &sgvb.LOO{Points: slices.Clone(pts)}
	e.matchLOO(ctx, lo, nil, sgvb.MMDraws{}, nil, nil, []int{0, 1})
	if rep.matched != 0 || rep.left != 2 || !slices.Equal(lo.Points, pts) {
		t.Errorf("matched %d, left %d, points %v: want 0, 2 and the points as they were", rep.matched, rep.left, lo.Points)
	}
	var b strings.Builder
	printMomentMatch(&b, rep)
	if want := "moment match interrupted before its first observation: the 2 with k̂ above 0.7 keep their PSIS estimates\n"; b.String() != want {
		t.Errorf("console line %q, want %q", b.String(), want)
	}
	rep.matched, rep.left, rep.worst = 3, 2, 0.5
	b.Reset()
	printMomentMatch(&b, rep)
	if !strings.Contains(b.String(), "; interrupted: 2 more keep their PSIS estimates\n") {
		t.Errorf("console line %q", b.String())
	}
	// Nine draws: loo's threshold is −0.048, and no k̂ exists.
	b.Reset()
	printMomentMatch(&b, &mmReport{thr: sgvb.MMThreshold(9)})
	if want := "moment match none: under 10 draws no Pareto k̂ can be estimated\n"; b.String() != want {
		t.Errorf("console line %q, want %q", b.String(), want)
	}
}

// TestReplFitMomentMatch: the session's :fit --moment-match refuses a
// model without log_lik, as gpp fit does, keeping no fit, and on one with
// it prints what moment matching did.
func TestReplFitMomentMatch(t *testing.T) {
	r, out, errb := newTestRepl()
	typeIn(r, "param mu: real ~ Normal(0, 10)", ":fit --quiet --seed 1 --moment-match")
	if r.fit != nil || !r.failed || !strings.Contains(errb.String(), "--moment-match needs an output log_lik") {
		t.Errorf(":fit --moment-match without log_lik: fit kept %v; errors:\n%s", r.fit != nil, errb.String())
	}
	errb.Reset()
	typeIn(r, "let y = [0.3, -0.5, 0.1, 0.9, -0.2, 12]", "y ~ Normal(mu, 1)", "output log_lik = logpdf(y, Normal(mu, 1))",
		":fit --quiet --seed 1 --moment-match")
	if r.fit == nil || !strings.Contains(out.String(), "\nmoment match ") {
		t.Errorf(":fit --moment-match: output:\n%s\nerrors:\n%s", out.String(), errb.String())
	}
}

// poissonOutlier is a Poisson regression; poissonOutlierData gives it 40
// points of y ~ Poisson(e^(1 + 0.5x)), x ~ N(0, 1), and a 41st at x = 3.5
// with y = 0 where about 16 is expected.
const poissonOutlier = `data x: real[N]
data y: int[N]
param a: real ~ Normal(0, 5)
param b: real ~ Normal(0, 5)
y ~ Poisson(exp(a + b * x))
output log_lik = logpdf(y, Poisson(exp(a + b * x)))
`

func poissonOutlierData() (xs []float64, ys []int) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 40 {
		x := r.NormFloat64()
		lam, k := math.Exp(1+0.5*x), 0
		for p := r.Float64(); p > math.Exp(-lam); p *= r.Float64() {
			k++
		}
		xs, ys = append(xs, x), append(ys, k)
	}
	return append(xs, 3.5), append(ys, 0)
}

// poissonOutlierExact is log p(y_41 | y_−41) by the midpoint rule on a
// 300 × 300 grid of (a, b), ±1.2 about the posterior mode of the other 40
// (their posterior sds are about 0.1).
func poissonOutlierExact(xs []float64, ys []int) float64 {
	n := len(xs) - 1
	lp := func(a, b float64) float64 {
		s := -(a*a + b*b) / 50
		for i := range n {
			e := a + b*xs[i]
			lg, _ := math.Lgamma(float64(ys[i]) + 1)
			s += float64(ys[i])*e - math.Exp(e) - lg
		}
		return s
	}
	ma, mb, best := 0.0, 0.0, math.Inf(-1)
	for i := range 61 {
		for j := range 61 {
			a, b := -1+3*float64(i)/60, -1+3*float64(j)/60
			if v := lp(a, b); v > best {
				ma, mb, best = a, b, v
			}
		}
	}
	const m, h = 300, 1.2
	var post, tilted []float64
	for i := range m {
		a := ma - h + 2*h*(float64(i)+0.5)/m
		for j := range m {
			b := mb - h + 2*h*(float64(j)+0.5)/m
			v := lp(a, b)
			post = append(post, v)
			tilted = append(tilted, v-math.Exp(a+b*xs[n])) // log Poisson(0 | λ) = −λ
		}
	}
	return floats.LogSumExp(tilted) - floats.LogSumExp(post)
}

// TestSampleMomentMatchPoisson: on counts, the case LOO users meet most,
// gpp sample --moment-match brings the outlier's elpd_loo to within 0.1 of
// the exact value and its k̂ below 0.7, where PSIS alone is off by more.
func TestSampleMomentMatchPoisson(t *testing.T) {
	dir := t.TempDir()
	xs, ys := poissonOutlierData()
	var data strings.Builder
	data.WriteString("x,y\n")
	for i := range xs {
		fmt.Fprintf(&data, "%.6f,%d\n", xs[i], ys[i])
	}
	csvPath := writeFile(t, dir, "xy.csv", data.String())
	model := writeFile(t, dir, "pois.gpp", poissonOutlier)
	exact := poissonOutlierExact(xs, ys)
	var elpd, k [2]float64
	for i, args := range [][]string{nil, {"--moment-match"}} {
		out := filepath.Join(dir, fmt.Sprint(i))
		if code, _, stderr := runGpp(append([]string{"sample", model, csvPath, "--quiet", "--out", out}, args...)...); code != exitOK {
			t.Fatalf("sample %v: exit %d:\n%s", args, code, stderr)
		}
		rows := reftest.ReadCSV(t, filepath.Join(out, looFile))
		last := rows[len(rows)-1]
		elpd[i], k[i] = parseNum(t, last[1]), parseNum(t, last[3])
	}
	t.Logf("exact %.4f; PSIS %.4f (k̂ %.2f); moment matched %.4f (k̂ %.2f)", exact, elpd[0], k[0], elpd[1], k[1])
	if !(k[0] > 0.7) || !(math.Abs(elpd[0]-exact) > 0.1) {
		t.Fatalf("PSIS: elpd %v (exact %v), k̂ %v: the test wants a bad one", elpd[0], exact, k[0])
	}
	if math.Abs(elpd[1]-exact) > 0.1 || !(k[1] < 0.7) {
		t.Errorf("moment matched: elpd %v (exact %v), k̂ %v", elpd[1], exact, k[1])
	}
}

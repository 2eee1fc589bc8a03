package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/reftest"
)

// evidenceRegression writes a linear regression with known noise, a, b ~
// Normal(0, 10), and n rows of x ~ N(xMean, 1), y = 1 + 2x + N(0, 1) into
// dir, and returns the model's path, the data's and the exact log evidence
// log N(y; 0, I + X·100·Xᵀ). Far from 0, xMean correlates a and b.
func evidenceRegression(t *testing.T, dir string, n int, xMean float64) (model, data string, logZ float64) {
	t.Helper()
	model = writeFile(t, dir, "lin.gpp", "data N: int\ndata x: real[N]\ndata y: real[N]\nparam a: real ~ Normal(0, 10)\nparam b: real ~ Normal(0, 10)\ny ~ Normal(a + b * x, 1)\n")
	rng := rand.New(rand.NewPCG(3, 1))
	var sb strings.Builder
	sb.WriteString("x,y\n")
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range n {
		x := xMean + rng.NormFloat64()
		y := 1 + 2*x + rng.NormFloat64()
		fmt.Fprintf(&sb, "%.6f,%.6f\n", x, y)
		fmt.Sscanf(fmt.Sprintf("%.6f %.6f", x, y), "%g %g", &xs[i], &ys[i])
	}
	data = writeFile(t, dir, "lin.csv", sb.String())
	c := mat.NewSymDense(n, nil)
	for i := range n {
		for j := range n {
			v := 100 * (1 + xs[i]*xs[j])
			if i == j {
				v++
			}
			c.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(c) {
		t.Fatal("covariance not positive definite")
	}
	yv := mat.NewVecDense(n, ys)
	var sol mat.VecDense
	if err := ch.SolveVecTo(&sol, yv); err != nil {
		t.Fatal(err)
	}
	logZ = -0.5*float64(n)*math.Log(2*math.Pi) - 0.5*ch.LogDet() - 0.5*mat.Dot(yv, &sol)
	return model, data, logZ
}

// evidencePoisson writes a Poisson rate with a Gamma(2, 0.5) prior and 5
// counts into dir (the posterior Gamma(8, 5.5), skewed on the log scale
// too), and returns the model's path, the data's and the exact log
// evidence.
func evidencePoisson(t *testing.T, dir string) (model, data string, logZ float64) {
	t.Helper()
	ys := []float64{0, 2, 1, 0, 3}
	model = writeFile(t, dir, "pois.gpp", "data y: int[5]\nparam lambda: positive ~ Gamma(2, 0.5)\ny ~ Poisson(lambda)\n")
	data = writeFile(t, dir, "y.csv", "y\n0\n2\n1\n0\n3\n")
	a0, b0, sum, lf := 2.0, 0.5, 0.0, 0.0
	for _, y := range ys {
		sum += y
		l, _ := math.Lgamma(y + 1)
		lf += l
	}
	la, _ := math.Lgamma(a0)
	lb, _ := math.Lgamma(a0 + sum)
	return model, data, a0*math.Log(b0) - la + lb - (a0+sum)*math.Log(b0+float64(len(ys))) - lf
}

func readEvidenceJSON(t *testing.T, path string) evidenceJSON {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f evidenceJSON
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFitEvidence: gpp fit --evidence estimates the exact log evidence of
// a conjugate regression within 4 standard errors from a full-rank q (k̂
// below 0.5), writes it to evidence.json and prints it; the mean-field
// fit of the same posterior (correlation about −0.95) is flagged by its
// k̂ or lies within its se. gpp compare --evidence ranks a model without
// the slope below, with log Bayes factors and probabilities summing to 1.
func TestFitEvidence(t *testing.T) {
	if testing.Short() {
		t.Skip("fits")
	}
	dir := t.TempDir()
	model, data, logZ := evidenceRegression(t, dir, 40, 3)
	out := filepath.Join(dir, "full")
	code, stdout, stderr := runGpp("fit", model, data, "--quiet", "--evidence", "--fullrank", "all", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	f := readEvidenceJSON(t, filepath.Join(out, evidenceFile))
	t.Logf("full rank: %.4f ± %.4f (k̂ %.2f), exact %.4f", f.LogEvidence, f.SE, f.ParetoK, logZ)
	if !(math.Abs(float64(f.LogEvidence)-logZ) < 4*float64(f.SE)) || !(f.SE < 0.05) || !(f.ParetoK < 0.5) || f.Draws != 10000 || f.Method != "importance sampling" {
		t.Errorf("evidence.json: %+v, exact %.4f", f, logZ)
	}
	if !strings.Contains(stdout, "log evidence "+fmt.Sprintf("%.6g", float64(f.LogEvidence))) || !strings.Contains(stdout, "evidence.json") {
		t.Errorf("stdout:\n%s", stdout)
	}
	mf := filepath.Join(dir, "mf")
	if code, _, stderr = runGpp("fit", model, data, "--quiet", "--evidence", "--out", mf); code != exitOK {
		t.Fatalf("mean field: exit %d:\n%s", code, stderr)
	}
	g := readEvidenceJSON(t, filepath.Join(mf, evidenceFile))
	t.Logf("mean field: %.4f ± %.4f (k̂ %.2f)", g.LogEvidence, g.SE, g.ParetoK)
	if flagged := g.ParetoK > 0.7 && strings.Contains(stderr, "--evidence: the importance weights' k̂"); !flagged && !(math.Abs(float64(g.LogEvidence)-logZ) < 4*float64(g.SE)) {
		t.Errorf("mean field: %.4f ± %.4f (k̂ %.2f) unflagged, exact %.4f:\n%s", g.LogEvidence, g.SE, g.ParetoK, logZ, stderr)
	}

	// a model without the slope, compared
	flat := writeFile(t, dir, "flat.gpp", "data N: int\ndata x: real[N]\ndata y: real[N]\nparam a: real ~ Normal(0, 10)\ny ~ Normal(a, 1)\n")
	fo := filepath.Join(dir, "flat")
	if code, _, stderr = runGpp("fit", flat, data, "--quiet", "--evidence", "--out", fo); code != exitOK {
		t.Fatalf("flat: exit %d:\n%s", code, stderr)
	}
	h := readEvidenceJSON(t, filepath.Join(fo, evidenceFile))
	csvPath := filepath.Join(dir, "ev.csv")
	code, stdout, stderr = runGpp("compare", "--evidence", fo, out, "--csv", csvPath)
	if code != exitOK {
		t.Fatalf("compare: exit %d:\n%s", code, stderr)
	}
	rows := reftest.ReadCSV(t, csvPath)
	if len(rows) != 3 || rows[1][0] != out || rows[2][0] != fo {
		t.Fatalf("compare's CSV: %v\nstdout:\n%s", rows, stdout)
	}
	lbf, p0, p1 := parseNum(t, rows[2][4]), parseNum(t, rows[1][6]), parseNum(t, rows[2][6])
	want := float64(h.LogEvidence - f.LogEvidence)
	if math.Abs(lbf-want) > 1e-4*math.Abs(want) || math.Abs(p0+p1-1) > 1e-9 || math.Abs(math.Log(p1/p0)-want) > 1e-4*math.Abs(want) || parseNum(t, rows[1][4]) != 0 {
		t.Errorf("log BF %v (want %v), probabilities %v and %v", lbf, want, p0, p1)
	}
	// the table shows log p(y) and log BF to 0.01 nats, their se being ~0.01
	if !strings.Contains(stdout, "Evidence comparison of 2 fits") || !strings.Contains(stdout, strconv.FormatFloat(float64(h.LogEvidence), 'f', 2, 64)) ||
		!strings.Contains(stdout, strconv.FormatFloat(want, 'f', 2, 64)) {
		t.Errorf("stdout (want log p(y) %.2f and log BF %.2f):\n%s", float64(h.LogEvidence), want, stdout)
	}
	// prior probabilities 1:3 in the order given (fo, out): the posterior
	// odds are the Bayes factor times 3
	if code, stdout, stderr = runGpp("compare", "--evidence", fo, out, "--prior-prob", "1,3", "--csv", csvPath); code != exitOK || !strings.Contains(stdout, "prior") {
		t.Fatalf("compare --prior-prob: exit %d:\n%s\n%s", code, stdout, stderr)
	}
	rows = reftest.ReadCSV(t, csvPath)
	p0, p1 = parseNum(t, rows[1][6]), parseNum(t, rows[2][6])
	if math.Abs(p0+p1-1) > 1e-9 || math.Abs(math.Log(p1/p0)-(want-math.Log(3))) > 1e-4*math.Abs(want) || parseNum(t, rows[1][9]) != 0.75 {
		t.Errorf("--prior-prob 1,3: probabilities %v and %v (log odds %v, want %v), prior %s", p0, p1, math.Log(p1/p0), want-math.Log(3), rows[1][9])
	}
	for _, bad := range [][]string{{"--evidence", "--prior-prob", "1"}, {"--evidence", "--prior-prob", "1,-2"}, {"--prior-prob", "1,1"}} {
		if code, _, stderr = runGpp(append([]string{"compare", fo, out}, bad...)...); code != exitUsage || !strings.Contains(stderr, "--prior-prob") {
			t.Errorf("compare %v: exit %d:\n%s", bad, code, stderr)
		}
	}
	if code, _, stderr = runGpp("compare", "--evidence", out, mf); code != exitOK || !strings.Contains(stderr, "are of the same model") {
		t.Errorf("compare of two fits of one model: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestEvidenceCorrelated: on the regression with 60 rows of x ~ N(11, 1),
// a and b correlated about −0.997, a full-rank q, the Laplace
// approximation and NUTS's bridge sampling estimate the exact log
// evidence within 4 standard errors; a mean-field q, too narrow across
// the correlation, is flagged by its k̂ or lies within its se
// (docs/inference.md's table, from the logs of go test -v).
func TestEvidenceCorrelated(t *testing.T) {
	if testing.Short() {
		t.Skip("fits")
	}
	dir := t.TempDir()
	model, data, logZ := evidenceRegression(t, dir, 60, 11)
	for _, c := range []struct {
		name    string
		args    []string
		flagged bool // a mean-field q: flagged or within its se
	}{
		{"full rank", []string{"fit", "--fullrank", "all"}, false},
		{"laplace", []string{"fit", "--family", "laplace"}, false},
		{"mean field", []string{"fit"}, true},
		{"sample", []string{"sample"}, false},
	} {
		out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
		args := append([]string{c.args[0], model, data, "--quiet", "--evidence", "--out", out}, c.args[1:]...)
		code, _, stderr := runGpp(args...)
		if code != exitOK {
			t.Fatalf("%s: exit %d:\n%s", c.name, code, stderr)
		}
		f := readEvidenceJSON(t, filepath.Join(out, evidenceFile))
		t.Logf("%s: %.4f ± %.2g (k̂ %.2f), exact %.4f", c.name, f.LogEvidence, f.SE, f.ParetoK, logZ)
		ok := math.Abs(float64(f.LogEvidence)-logZ) < 4*float64(f.SE)
		if c.flagged {
			ok = ok || f.ParetoK > 0.7 && strings.Contains(stderr, "--evidence: the importance weights' k̂")
		} else {
			// bridge sampling has no k̂ (NaN)
			ok = ok && f.SE < 0.05 && (f.ParetoK < 0.5 || c.args[0] == "sample")
		}
		if !ok {
			t.Errorf("%s: %.4f ± %.2g (k̂ %.2f), exact %.4f:\n%s", c.name, f.LogEvidence, f.SE, f.ParetoK, logZ, stderr)
		}
	}
}

// TestEvidenceRefusals: a param with no prior on an unbounded support
// makes p(y) undefined, an error at its declaration before fitting; a flat
// prior on bounds other than (0, 1) and a target += that is not a log
// density are warnings at their place, in evidence.json's caveats too; a
// target += of logpdf terms is not; MAP, the REPL's :fit and compare's
// LOO flags are refused, and a fit without evidence.json named.
func TestEvidenceRefusals(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "y.csv", "y\n0.3\n-0.2\n1.1\n0.5\n")
	fit := func(src string, args ...string) (int, string, string) {
		model := writeFile(t, dir, "m.gpp", src)
		return runGpp(append([]string{"fit", model, data, "--quiet", "--evidence", "--iter", "300", "--out", filepath.Join(dir, "out")}, args...)...)
	}
	code, _, stderr := fit("data y: real[4]\nparam mu: real\ny ~ Normal(mu, 1)\n")
	if code != exitError || !strings.Contains(stderr, "m.gpp:2:7: param `mu` has no prior: a flat prior on the real line, improper, so p(y) is not defined") {
		t.Errorf("improper: exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("the refused fit wrote its output directory")
	}
	code, _, stderr = fit("data y: real[4]\nparam mu: real<lower=-5, upper=5>\ny ~ Normal(mu, 1)\n")
	if code != exitOK || !strings.Contains(stderr, "m.gpp:2:7: warning: --evidence: param `mu` has no prior: its flat density enters p(y) as 1 on (-5, 5), not normalised; `~ Uniform(-5, 5)` is the normalised one") {
		t.Errorf("bounded flat: exit %d:\n%s", code, stderr)
	}
	f := readEvidenceJSON(t, filepath.Join(dir, "out", evidenceFile))
	if len(f.Caveats) != 1 || !strings.Contains(f.Caveats[0], "m.gpp:2:7: param `mu` has no prior") {
		t.Errorf("caveats %q", f.Caveats)
	}
	code, _, stderr = fit("data y: real[4]\nparam mu: real\ntarget += -0.5 * mu * mu\ny ~ Normal(mu, 1)\n")
	if code != exitOK || !strings.Contains(stderr, "m.gpp:3:1: warning: --evidence: target += -0.5 * mu * mu enters p(y) as written") {
		t.Errorf("target +=: exit %d:\n%s", code, stderr)
	}
	code, _, stderr = fit("data y: real[4]\nparam mu: real\ntarget += logpdf(mu, Normal(0, 1)) + sum(logpdf(y, Normal(mu, 1)))\n")
	if code != exitOK || strings.Contains(stderr, "--evidence") {
		t.Errorf("target += of log densities: exit %d:\n%s", code, stderr)
	}
	if code, _, stderr = fit("data y: real[4]\nparam mu: real ~ Normal(0, 1)\ny ~ Normal(mu, 1)\n", "--family", "map"); code != exitUsage || !strings.Contains(stderr, "--evidence needs SGVB") {
		t.Errorf("map: exit %d:\n%s", code, stderr)
	}
	if code, _, stderr = runGpp("compare", "--evidence", "--weights", "pseudo-bma", dir, dir); code != exitUsage || !strings.Contains(stderr, "--weights: not with --evidence") {
		t.Errorf("compare --evidence --weights: exit %d:\n%s", code, stderr)
	}
	for _, c := range []struct{ body, want string }{
		{`, "log_evidence": -3, "se": -1}`, ":1:68: se is -1: want a number at least 0"},
		{`, "log_evidence": -3, "se": 0.1, "draws": -5}`, ":1:79: draws is -5: want at least 0"},
		{`, "log_evidence": "x"}`, `:1:64: malformed evidence file: expected a number, got "x"`},
		{`, "draws": 1.5}`, ":1:59: malformed evidence file: draws must be int, not a JSON number"},
		{`, oops}`, ":1:48: malformed evidence file: invalid character"},
	} {
		f := writeFile(t, dir, evidenceFile, `{"format": "`+evidenceFormat+`", "model": "m.gpp"`+c.body)
		if code, _, stderr = runGpp("compare", "--evidence", f, filepath.Join(dir, "out")); code != exitError || !strings.Contains(stderr, f+c.want) {
			t.Errorf("compare of %s: exit %d:\n%s", c.body, code, stderr)
		}
	}
	bad := writeFile(t, dir, evidenceFile, `{"format": "`+evidenceFormat+`", "model": "m.gpp"}`)
	if code, _, stderr = runGpp("compare", "--evidence", bad, filepath.Join(dir, "out")); code != exitError || !strings.Contains(stderr, bad+":1:1: no log_evidence") {
		t.Errorf("compare of an evidence.json without its estimate: exit %d:\n%s", code, stderr)
	}
	os.Remove(bad)
	if code, _, stderr = runGpp("compare", "--evidence", filepath.Join(dir, "out"), dir); code != exitError || !strings.Contains(stderr, "has no evidence.json: run gpp fit or gpp sample with --evidence") {
		t.Errorf("compare without evidence.json: exit %d:\n%s", code, stderr)
	}
}

// TestSampleEvidence: gpp sample --evidence estimates the log evidence of
// a Poisson rate under a Gamma(2, 0.5) prior, whose posterior is skewed on
// the log scale too, by bridge sampling within 4 standard errors of the
// closed form, as gpp fit --evidence does by importance sampling; gpp
// compare --evidence reads both, the sample's marked (NUTS), and the
// REPL's :sample refuses the flag.
func TestSampleEvidence(t *testing.T) {
	if testing.Short() {
		t.Skip("samples")
	}
	dir := t.TempDir()
	model, data, logZ := evidencePoisson(t, dir)
	so := filepath.Join(dir, "s")
	code, stdout, stderr := runGpp("sample", model, data, "--quiet", "--evidence", "--out", so)
	if code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	s := readEvidenceJSON(t, filepath.Join(so, evidenceFile))
	fo := filepath.Join(dir, "f")
	if code, _, stderr = runGpp("fit", model, data, "--quiet", "--evidence", "--out", fo); code != exitOK {
		t.Fatalf("fit: exit %d:\n%s", code, stderr)
	}
	f := readEvidenceJSON(t, filepath.Join(fo, evidenceFile))
	t.Logf("exact %.5f; bridge %.5f ± %.2g (%d iterations); importance sampling %.5f ± %.2g (k̂ %.2f)", logZ, s.LogEvidence, s.SE, s.Iterations, f.LogEvidence, f.SE, f.ParetoK)
	if !(math.Abs(float64(s.LogEvidence)-logZ) < 4*float64(s.SE)) || !(s.SE < 0.02) || s.Method != "bridge sampling" || s.PosteriorDraws != 2000 || !math.IsNaN(float64(s.ParetoK)) {
		t.Errorf("sample: %+v, exact %.5f", s, logZ)
	}
	if !(math.Abs(float64(f.LogEvidence)-logZ) < 4*float64(f.SE)) || !(f.SE < 0.02) {
		t.Errorf("fit: %+v, exact %.5f", f, logZ)
	}
	if !strings.Contains(stdout, "log evidence ") || !strings.Contains(stdout, "bridge sampling: 2000 posterior draws") {
		t.Errorf("stdout:\n%s", stdout)
	}
	code, stdout, stderr = runGpp("compare", "--evidence", so, fo)
	if code != exitOK || !strings.Contains(stdout, "pois.gpp (NUTS)") || !strings.Contains(stderr, "are of the same model") {
		t.Errorf("compare: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// A run into the same directory without --evidence removes the
	// earlier evidence.json, which gpp compare --evidence would otherwise
	// read as this run's.
	for _, run := range []struct{ cmd, out string }{{"sample", so}, {"fit", fo}} {
		if code, _, stderr = runGpp(run.cmd, model, data, "--quiet", "--out", run.out); code != exitOK {
			t.Fatalf("%s again: exit %d:\n%s", run.cmd, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(run.out, evidenceFile)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("gpp %s without --evidence left the earlier %s in %s (%v)", run.cmd, evidenceFile, run.out, err)
		}
	}
}

// TestEvidenceWarnings: the warnings of an estimate by its method and
// numbers: importance weights' k̂ above 0.5 and 0.7, zero weights, an
// estimate of −∞; bridge sampling's se above bridgeSEWarn and failed
// evaluations; none for a good estimate of either.
func TestEvidenceWarnings(t *testing.T) {
	is := func(k float64, zero int, logZ float64) *evidenceOutcome {
		return &evidenceOutcome{file: evidenceJSON{Method: "importance sampling", ParetoK: fitfile.Float(k), ZeroWeights: zero, Draws: 10000, LogEvidence: fitfile.Float(logZ)}}
	}
	br := func(se float64, failed int) *evidenceOutcome {
		return &evidenceOutcome{file: evidenceJSON{Method: "bridge sampling", ParetoK: fitfile.Float(math.NaN()), SE: fitfile.Float(se), Draws: 2000}, failed: failed, evals: 2001}
	}
	for _, c := range []struct {
		o    *evidenceOutcome
		want []string
	}{
		{is(0.3, 0, -5), nil},
		{is(0.6, 0, -5), []string{"k̂ is 0.6 (above 0.5): their variance may be infinite"}},
		{is(0.9, 3, -5), []string{"k̂ is 0.9 (above 0.7)", "3 of 10000 draws had a non-finite log joint"}},
		{is(math.NaN(), 10000, math.Inf(-1)), []string{"no draw of 10000 had a finite log joint"}},
		{br(0.01, 0), nil},
		{br(0.7, 0), []string{"se is 0.7 nats: the proposal fits the posterior poorly"}},
		{br(0.01, 4), []string{"failed or was not a number at 4 of its 2001 evaluations"}},
	} {
		got := evidenceWarnings(c.o)
		ok := len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.Contains(got[i], c.want[i])
		}
		if !ok {
			t.Errorf("%+v (failed %d): warnings %q, want %q", c.o.file, c.o.failed, got, c.want)
		}
	}
}

// TestCompareEvidenceData: gpp compare --evidence warns when two fits
// observe other data, told by the sha256 of the observed values where
// both record them (other covariate files are the same observations),
// else when they read other data, told by the files' sha256 (one data
// file named by two paths is the same), and reads a fit's evidence.json
// named directly as its directory.
func TestCompareEvidenceData(t *testing.T) {
	dir := t.TempDir()
	var observed map[string]string // the next write's
	write := func(name, model, data, hash string, logZ float64) string {
		t.Helper()
		d := filepath.Join(dir, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		f := evidenceJSON{Head: fitfile.Head{Format: evidenceFormat, Model: model, ModelSHA256: model, Data: []string{data}, DataSHA256: []string{hash}, ObservedSHA256: observed},
			Method: "importance sampling", LogEvidence: fitfile.Float(logZ), SE: 0.01, ParetoK: 0.1, Draws: 10000}
		var b strings.Builder
		if err := writeEvidenceJSON(&b, &f); err != nil {
			t.Fatal(err)
		}
		writeFile(t, d, evidenceFile, b.String())
		return d
	}
	a := write("a", "m1.gpp", "y.csv", "h1", -10)
	b := write("b", "m2.gpp", "../y.csv", "h1", -11)
	c := write("c", "m3.gpp", "y.csv", "h2", -12)
	const warn = "Bayes factors compare models of the same data"
	code, stdout, stderr := runGpp("compare", "--evidence", filepath.Join(a, evidenceFile), b)
	if code != exitOK || strings.Contains(stderr, warn) || !strings.Contains(stdout, a+" ") || strings.Contains(stdout, evidenceFile) {
		t.Errorf("same data by two paths: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, _, stderr = runGpp("compare", "--evidence", a, c); code != exitOK || !strings.Contains(stderr, warn) {
		t.Errorf("other data: exit %d\n%s", code, stderr)
	}
	observed = map[string]string{"y": "o1"}
	d := write("d", "m4.gpp", "y.csv", "h1", -10)
	e := write("e", "m5.gpp", "yx.csv", "h3", -11) // the same y beside a covariate
	observed = map[string]string{"y": "o2"}
	f := write("f", "m6.gpp", "y.csv", "h1", -12)
	if code, _, stderr = runGpp("compare", "--evidence", d, e); code != exitOK || strings.Contains(stderr, "warning") {
		t.Errorf("the same observations in other files: exit %d\n%s", code, stderr)
	}
	_, _, stderr = runGpp("compare", "--evidence", d, f)
	if w := "warning: " + d + " and " + f + " observe other values of y: Bayes factors compare models of the same observations"; !strings.Contains(stderr, w) {
		t.Errorf("other observations, from the same file: want %q\n%s", w, stderr)
	}
}

// TestReplEvidence: the REPL's :fit --evidence and :sample --evidence print
// the estimate's line as gpp fit and gpp sample do (the Poisson rate's
// exact −8.98402 within 4 se of each), and refuse a model with an improper
// flat prior at its declaration, marking the session failed.
func TestReplEvidence(t *testing.T) {
	if testing.Short() {
		t.Skip("fits and samples")
	}
	data := writeFile(t, t.TempDir(), "y.csv", "y\n0\n2\n1\n0\n3\n")
	r, out, rerr := newTestRepl()
	typeIn(r, ":data "+data, "data y: int[5]", "param lambda: positive ~ Gamma(2, 0.5)", "y ~ Poisson(lambda)")
	for _, line := range []string{":fit --evidence --quiet", ":sample --evidence --quiet"} {
		out.Reset()
		typeIn(r, line)
		var z, se float64
		i := strings.Index(out.String(), "log evidence ")
		if i < 0 || r.failed {
			t.Fatalf("%s: no evidence line\n%s\n%s", line, out, rerr)
		}
		fmt.Sscanf(out.String()[i:], "log evidence %g ± %g", &z, &se)
		if !(math.Abs(z-(-8.98402)) < 4*se) {
			t.Errorf("%s: %g ± %g, exact −8.98402", line, z, se)
		}
	}
	r, _, rerr = newTestRepl()
	typeIn(r, ":data "+data, "data y: int[5]", "param lambda: positive", "y ~ Poisson(lambda)", ":fit --evidence --quiet")
	if !r.failed || !strings.Contains(rerr.String(), "<repl>:2:7: param `lambda` has no prior") {
		t.Errorf("improper prior: failed %v:\n%s", r.failed, rerr)
	}
}

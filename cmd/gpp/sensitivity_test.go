package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// sensModel is the conjugate normal model of gpp sensitivity's tests:
// y_i ~ Normal(mu, 1), mu ~ Normal(m0, s0), m0 and s0 set per case.
const sensModel = "testdata/sensitivity/normal.gpp"

// sensCases are the three readings of the conjugate normal model: a weak
// prior and 100 observations (the likelihood alone sensitive), a tight
// prior far from those data (both: a prior-data conflict), a tight prior
// at 2 observations' mean (the prior alone).
var sensCases = []struct {
	name      string
	args      []string
	diagnosis string
	prior     bool // the prior sensitivity at or above 0.05
	lik       bool // the likelihood's
}{
	{"weak prior", []string{"testdata/sensitivity/y100.csv"}, "-", false, true},
	{"conflict", []string{"testdata/sensitivity/y100.csv", "--set", "m0=6", "--set", "s0=0.3"}, "potential prior-data conflict", true, true},
	{"strong prior", []string{"testdata/sensitivity/y2.csv", "--set", "m0=1", "--set", "s0=0.1"}, "potential strong prior / weak likelihood", true, false},
}

// sensRowOf returns the prior and likelihood sensitivities and the
// diagnosis of the table row of variable name in gpp sensitivity's stdout.
func sensRowOf(t *testing.T, out, name string) (prior, lik float64, diagnosis string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(line, name+" ") // a name may hold spaces: Omega[1, 0]
		f := append([]string{name}, strings.Fields(rest)...)
		if !ok || len(f) < 4 {
			continue
		}
		p, err1 := strconv.ParseFloat(f[1], 64)
		l, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("row %q: not numbers", line)
		}
		return p, l, strings.Join(f[3:], " ")
	}
	t.Fatalf("no row %s in:\n%s", name, out)
	return 0, 0, ""
}

// TestSensitivityConjugate: on draws of a gpp sample and of a gpp fit,
// each case of the conjugate normal model gets its reading, its
// sensitivities on the side of 0.05 that makes it, and --csv the rows of
// the table.
func TestSensitivityConjugate(t *testing.T) {
	for _, c := range sensCases {
		for _, kind := range []string{"sample", "fit"} {
			t.Run(c.name+"/"+kind, func(t *testing.T) {
				dir := t.TempDir()
				out := filepath.Join(dir, kind)
				args := append([]string{kind, sensModel}, c.args...)
				args = append(args, "--seed", "3", "--out", out, "--quiet")
				if kind == "sample" {
					args = append(args, "--chains", "2", "--draws", "500", "--warmup", "500")
				}
				if code, _, stderr := runGpp(args...); code != 0 {
					t.Fatalf("gpp %s: exit %d: %s", kind, code, stderr)
				}
				csv := filepath.Join(dir, "sens.csv")
				code, stdout, stderr := runGpp("sensitivity", out, "--csv", csv)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				prior, lik, diag := sensRowOf(t, stdout, "mu")
				if diag != c.diagnosis {
					t.Errorf("diagnosis %q, want %q (prior %g, likelihood %g)", diag, c.diagnosis, prior, lik)
				}
				if (prior >= 0.05) != c.prior || (lik >= 0.05) != c.lik {
					t.Errorf("prior %g, likelihood %g: want the prior above 0.05 %v, the likelihood %v", prior, lik, c.prior, c.lik)
				}
				b, err := os.ReadFile(csv)
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(strings.TrimSpace(string(b)), "\n")
				if len(lines) != 2 || lines[0] != "variable,prior,likelihood,diagnosis" {
					t.Fatalf("--csv:\n%s", b)
				}
				f := strings.Split(lines[1], ",")
				p, _ := strconv.ParseFloat(f[1], 64)
				l, _ := strconv.ParseFloat(f[2], 64)
				if f[0] != "mu" || strconv.FormatFloat(p, 'f', 3, 64) != strconv.FormatFloat(prior, 'f', 3, 64) ||
					strconv.FormatFloat(l, 'f', 3, 64) != strconv.FormatFloat(lik, 'f', 3, 64) || f[3] != diag {
					t.Errorf("--csv row %q, table mu %g %g %s", lines[1], prior, lik, diag)
				}
			})
		}
	}
}

// TestSensitivityErrors: what gpp sensitivity refuses, each error with
// its exit code and its text (testdata/sensitivity/*.stderr, $TMP for the
// temporary directory; -update rewrites them).
func TestSensitivityErrors(t *testing.T) {
	tmp := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		if code, _, stderr := runGpp(args...); code != 0 {
			t.Fatalf("gpp %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	sample, fit, mapFit := filepath.Join(tmp, "s"), filepath.Join(tmp, "f"), filepath.Join(tmp, "map")
	y := "testdata/sensitivity/y100.csv"
	run("sample", sensModel, y, "--chains", "2", "--draws", "100", "--warmup", "100", "--seed", "1", "--out", sample, "--quiet")
	run("fit", sensModel, y, "--seed", "1", "--out", fit, "--quiet")
	run("fit", sensModel, y, "--family", "map", "--out", mapFit, "--quiet")
	other := writeFile(t, tmp, "other.gpp", "data y: real[N]\nparam m: real ~ Normal(0, 1)\ny ~ Normal(m, 1)\n")
	edited := writeFile(t, tmp, "edited.gpp", "data y: real[N]\nparam mu: real ~ Normal(0, 1)\ny ~ Normal(mu, 1)\n")
	y2 := "testdata/sensitivity/y2.csv"
	yCopy := writeFile(t, tmp, "y100.csv", string(mustRead(y))) // the sampled data, which a --csv must not replace
	for _, c := range []struct {
		name string
		args []string
		exit int
	}{
		{"not_fit", []string{"testdata/sensitivity"}, 1},
		{"missing", []string{filepath.Join(tmp, "none")}, 1},
		{"map", []string{mapFit}, 1},
		{"params_sample", []string{sample, other, y}, 1},
		{"params_fit", []string{fit, other, y}, 1},
		{"edited_sample", []string{sample, edited, y}, 1},
		{"edited_fit", []string{fit, edited, y}, 1},
		{"data_sample", []string{sample, sensModel, y2}, 1},
		{"prior_name", []string{sample, "--prior", "nosuch"}, 1},
		{"empty_name", []string{sample, "--likelihood", "y,"}, 2},
		{"sets_sample", []string{sample, "--set", "m0=6"}, 1}, // by its lp__
		{"data_fit", []string{fit, sensModel, y2}, 1},
		{"sample_seed", []string{sample, "--seed", "2"}, 1},
		{"threshold", []string{sample, "--threshold", "-1"}, 2},
		{"few_draws", []string{fit, "--draws", "9"}, 2},
		{"model_first", []string{sensModel, sample}, 2},
		{"bad_flag", []string{sample, "--alpha", "0.9"}, 2},
		{"csv_data", []string{sample, sensModel, yCopy, "--csv", yCopy}, 1},
		{"csv_summary", []string{fit, "--csv", filepath.Join(fit, summaryFile)}, 1},
		{"csv_nodir", []string{sample, "--csv", filepath.Join(tmp, "none", "s.csv")}, 1}, // before the table
		{"plots_file", []string{sample, "--plots", yCopy}, 1},                            // before the table
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runGpp(append([]string{"sensitivity"}, c.args...)...)
			if code != c.exit {
				t.Errorf("exit %d, want %d: %s", code, c.exit, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			got := strings.ReplaceAll(stderr, tmp, "$TMP")
			path := filepath.Join("testdata/sensitivity", c.name+".stderr")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestSensitivitySelection: on eight schools (non-centred), power-scaling
// every prior (--prior all) moves the standardised school effects
// theta_trans (their N(0, 1) is a prior too) past 0.05; --prior mu,tau,
// brms's lprior, leaves their population distribution alone, and their
// prior sensitivities fall below 0.05 while tau's stays above; the
// default is that selection, its table row for row, and says what it
// left out; the table's note names the selection, and --likelihood y is
// the whole likelihood here.
func TestSensitivitySelection(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "eight.json", `{"J": 8, "y": [28, 8, -3, 7, -1, 1, 18, 12], "sigma": [15, 10, 16, 11, 9, 11, 10, 18]}`)
	out := filepath.Join(dir, "s")
	if code, _, stderr := runGpp("sample", "../../examples/posteriordb/eight_schools_noncentered.gpp", data, "--chains", "2", "--draws", "1000",
		"--seed", "1", "--out", out, "--quiet"); code != 0 {
		t.Fatalf("gpp sample: exit %d: %s", code, stderr)
	}
	run := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runGpp(append([]string{"sensitivity", out}, args...)...)
		if code != 0 {
			t.Fatalf("gpp sensitivity %v: exit %d: %s", args, code, stderr)
		}
		return stdout
	}
	all, sel, def := run("--prior", "all"), run("--prior", "mu,tau", "--likelihood", "y"), run()
	maxTrans := func(out string) float64 {
		m := 0.0
		for j := range 8 {
			p, _, _ := sensRowOf(t, out, "theta_trans["+strconv.Itoa(j)+"]")
			m = max(m, p)
		}
		return m
	}
	if m := maxTrans(all); !(m >= 0.05) {
		t.Errorf("every prior: theta_trans's largest prior sensitivity %g, want at least 0.05", m)
	}
	if m := maxTrans(sel); !(m < 0.05) {
		t.Errorf("--prior mu,tau: theta_trans's largest prior sensitivity %g, want below 0.05", m)
	}
	if p, _, _ := sensRowOf(t, sel, "tau"); !(p >= 0.05) {
		t.Errorf("--prior mu,tau: tau's prior sensitivity %g, want at least 0.05", p)
	}
	_, lAll, _ := sensRowOf(t, all, "mu")
	_, lSel, _ := sensRowOf(t, sel, "mu")
	if lAll != lSel {
		t.Errorf("--likelihood y: mu's likelihood sensitivity %g, every term's %g", lSel, lAll)
	}
	if !strings.Contains(sel, "power-scaled the prior of mu, tau and the likelihood of y by") {
		t.Errorf("the note does not name the selection:\n%s", sel)
	}
	table := func(out string) string { return out[:strings.Index(out, "\n\n")] }
	if table(def) != table(sel) {
		t.Errorf("the default table differs from --prior mu,tau's:\n%s\nwant:\n%s", def, sel)
	}
	if !strings.Contains(def, "power-scaled the prior of mu, tau and the likelihood by") ||
		!strings.Contains(def, "left out     the prior of theta_trans (Normal(0, 1), a non-centred innovation, scaled by tau at 13:18)") ||
		!strings.Contains(def, "--prior all power-scales every prior") {
		t.Errorf("the default does not say what it power-scaled and left out:\n%s", def)
	}
	if strings.Contains(all, "left out") || strings.Contains(sel, "left out") {
		t.Errorf("an explicit --prior says it left priors out:\n%s\n%s", all, sel)
	}
}

// TestSensitivityDefaultPumps: on the BUGS pumps model, theta ~
// Gamma(alpha, beta), the default power-scales alpha's and beta's priors
// only (as --prior alpha,beta, row for row), says it left out theta's
// population distribution, and lowers theta's prior sensitivities from
// --prior all's, which is the old default; a model without hierarchy
// (the conjugate normal) gives the same table either way and leaves
// nothing out.
func TestSensitivityDefaultPumps(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "pumps.gpp", `data t: positive[N]
data x: int[N]
param alpha: positive ~ Exponential(1)
param beta: positive ~ Gamma(0.1, 1)
param theta: positive[N]
for i in 0:N {
  theta[i] ~ Gamma(alpha, beta)
}
x ~ Poisson(theta .* t)
`)
	data := writeFile(t, dir, "pumps.csv", "t,x\n94.3,5\n15.7,1\n62.9,5\n126,14\n5.24,3\n31.4,19\n1.05,1\n1.05,1\n2.1,4\n10.5,22\n")
	out := filepath.Join(dir, "s")
	if code, _, stderr := runGpp("sample", model, data, "--chains", "2", "--draws", "1000", "--seed", "1", "--out", out, "--quiet"); code != 0 {
		t.Fatalf("gpp sample: exit %d: %s", code, stderr)
	}
	run := func(fit string, args ...string) string {
		t.Helper()
		code, stdout, stderr := runGpp(append([]string{"sensitivity", fit}, args...)...)
		if code != 0 {
			t.Fatalf("gpp sensitivity %v: exit %d: %s", args, code, stderr)
		}
		return stdout
	}
	table := func(out string) string { return out[:strings.Index(out, "\n\n")] }
	def, top, all := run(out), run(out, "--prior", "alpha,beta"), run(out, "--prior", "all")
	if table(def) != table(top) {
		t.Errorf("the default table differs from --prior alpha,beta's:\n%s\nwant:\n%s", def, top)
	}
	if !strings.Contains(def, "power-scaled the prior of alpha, beta and the likelihood by") ||
		!strings.Contains(def, "left out     the prior of theta (Gamma(alpha, beta) reads params, a population distribution)") {
		t.Errorf("the default does not say what it power-scaled and left out:\n%s", def)
	}
	if !strings.Contains(all, "power-scaled the prior and the likelihood by") || table(all) == table(def) {
		t.Errorf("--prior all is not every prior:\n%s", all)
	}
	// theta's prior sensitivities: every element's falls without its own
	// population prior in the power-scaled part
	var sumDef, sumAll float64
	for _, line := range strings.Split(table(def), "\n") {
		if name, _, ok := strings.Cut(line, " "); ok && strings.HasPrefix(name, "theta[") {
			pd, _, _ := sensRowOf(t, def, name)
			pa, _, _ := sensRowOf(t, all, name)
			sumDef, sumAll = sumDef+pd, sumAll+pa
		}
	}
	if !(sumDef > 0 && sumDef < sumAll/1.5) {
		t.Errorf("theta's summed prior sensitivity %g by default, %g with every prior: want it well below", sumDef, sumAll)
	}

	flat := filepath.Join(dir, "flat")
	if code, _, stderr := runGpp("sample", sensModel, "testdata/sensitivity/y100.csv", "--chains", "2", "--draws", "300", "--seed", "1", "--out", flat, "--quiet"); code != 0 {
		t.Fatalf("gpp sample: exit %d: %s", code, stderr)
	}
	if d, a := run(flat), run(flat, "--prior", "all"); d != a || strings.Contains(d, "left out") {
		t.Errorf("a model without hierarchy: the default\n%s\ndiffers from --prior all\n%s", d, a)
	}
}

// TestSensitivityCSVQuotes checks that --csv quotes an element name with
// a comma (W[0, 1]), so that a CSV reader gets the rows' four fields back.
func TestSensitivityCSVQuotes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.csv")
	rows := []sensRow{{"W[0, 1]", 0.25, 0.5, "-"}, {"mu", 0.125, 1, "potential prior-data conflict"}}
	if err := writeSensitivityCSV(path, rows); err != nil {
		t.Fatal(err)
	}
	recs := reftest.ReadCSV(t, path)
	want := [][]string{{"variable", "prior", "likelihood", "diagnosis"}, {"W[0, 1]", "0.25", "0.5", "-"}, {"mu", "0.125", "1", "potential prior-data conflict"}}
	if !slices.EqualFunc(recs, want, slices.Equal) {
		t.Errorf("read back %q, want %q", recs, want)
	}
}

// TestSensHierarchyMatrixInnovation: the default prior selection leaves
// out a standard normal param multiplied by a matrix of params into its
// own shape (varying slopes' z * (diag(tau) * L)', a Cholesky factor's
// L * z), the multivariate non-centred innovation, as brms's lprior does;
// a factor model's W * Z' (another shape) and a regression's X * beta (X
// data) keep their priors. The reason says multiplied, not scaled.
func TestSensHierarchyMatrixInnovation(t *testing.T) {
	head := `data J: int
data K: int
data X: real[J, 2]
data y: real[J]
param tau: positive[2] ~ HalfNormal(1)
param L: cholesky_factor_corr[2] ~ LKJCorrCholesky(2)
`
	for _, c := range []struct {
		name, src string
		out       []string
		why       string
	}{
		{"varying slopes", "param z: real[J, 2] ~ Normal(0, 1)\nlet b = z * (diag(tau) * L)'\ny ~ Normal(rowsum(b), 1)\n", []string{"z"}, "Normal(0, 1), a non-centred innovation, multiplied by (diag(tau) * L)' at 8:9"},
		{"cholesky", "param z: real[2] ~ Normal(0, 1)\nlet b = L * z\ny ~ Normal(X * b, 1)\n", []string{"z"}, "Normal(0, 1), a non-centred innovation, multiplied by L at 8:9"},
		{"factor model", "param W: real[J, K] ~ Normal(0, 1)\nparam Z: real[2, K] ~ Normal(0, 1)\nlet m = W * Z'\ny ~ Normal(m[, 0], 1)\n", nil, ""},
		{"regression", "param beta: real[2] ~ Normal(0, 1)\ny ~ Normal(X * beta, 1)\n", nil, ""},
	} {
		file, info := checkedSrc(t, head+c.src)
		var got []string
		why := ""
		for _, o := range sensHierarchy(file, info) {
			got, why = append(got, o.name), o.why
		}
		if !slices.Equal(got, c.out) || why != c.why {
			t.Errorf("%s: left out %v (%q), want %v (%q)", c.name, got, why, c.out, c.why)
		}
	}
}

// TestSensitivityRoundingConstant: a correlation matrix's unit diagonal,
// 1 but for the last bits of L L', reads as the constant it is (0 and
// "-"), not as a distribution whose power-scaled rounding noise moves
// (workflow trial of 2026-11-30: Omega[1, 1], sd 1.5e-16, read "potential
// prior-data conflict"); the off-diagonal is read as before.
func TestSensitivityRoundingConstant(t *testing.T) {
	if !roundingConstant([]float64{1, 1 + 2e-16, 1 - 1e-16}) || roundingConstant([]float64{1, 1 + 1e-9}) || !roundingConstant([]float64{0, 0}) {
		t.Fatal("roundingConstant: want 1 ± 2e-16 and 0, 0 constant, 1 and 1 + 1e-9 not")
	}
	dir := t.TempDir()
	model := writeFile(t, dir, "m.gpp", `data Y: real[N, 2]
param L: cholesky_factor_corr[2] ~ LKJCorrCholesky(2)
Y ~ MvNormalCholesky(rep(0, 2), L)
output Omega = L * L'
`)
	var b strings.Builder
	b.WriteString("a,b\n")
	for i := range 20 {
		x := math.Sin(float64(i) * 1.3)
		fmt.Fprintf(&b, "%.4f,%.4f\n", x, 0.6*x+0.5*math.Cos(float64(i)*2.1))
	}
	dat := writeFile(t, dir, "d.csv", b.String())
	out := filepath.Join(dir, "s")
	if code, _, stderr := runGpp("sample", model, "Y="+dat, "--chains", "2", "--draws", "300", "--warmup", "300", "--seed", "2", "--out", out, "--quiet"); code != 0 {
		t.Fatalf("gpp sample: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runGpp("sensitivity", out, model, "Y="+dat)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, name := range []string{"Omega[0, 0]", "Omega[1, 1]"} {
		if prior, lik, diag := sensRowOf(t, stdout, name); prior != 0 || lik != 0 || diag != "-" {
			t.Errorf("%s: prior %g, likelihood %g, %q: want the constant's 0, 0, -", name, prior, lik, diag)
		}
	}
	if prior, lik, _ := sensRowOf(t, stdout, "Omega[1, 0]"); !(prior > 0) || !(lik > 0) {
		t.Errorf("Omega[1, 0]: prior %g, likelihood %g, want both above 0", prior, lik)
	}
}

// TestSensitivityNoPriorChoice: where every prior is a population's (the
// top-level params flat), the default leaves none out and says so on a
// line that does not claim to have left one out.
func TestSensitivityNoPriorChoice(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "flat.gpp", `data y: real[N]
param mu: real
param tau: positive
param a: real ~ Normal(mu, tau)
y ~ Normal(a, 1)
`)
	data := writeFile(t, dir, "flat.csv", "y\n1\n2\n1.5\n")
	out := filepath.Join(dir, "f")
	if code, _, stderr := runGpp("fit", model, data, "--seed", "1", "--out", out, "--quiet"); code != 0 {
		t.Fatalf("gpp fit: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runGpp("sensitivity", out)
	if code != 0 {
		t.Fatalf("gpp sensitivity: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "power-scaled the prior and the likelihood by") ||
		!strings.Contains(stdout, "\nprior        every prior reads params or is a non-centred innovation (the top-level params are flat), so none is left out") ||
		strings.Contains(stdout, "left out     ") {
		t.Errorf("the default with no prior choice does not say it scaled every prior:\n%s", stdout)
	}
}

// TestSensitivityPriorNamedAll: in a model with a param named all,
// --prior all is that param's prior (as --fullrank all is that param's
// factor there), not every prior.
func TestSensitivityPriorNamedAll(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "all.gpp", `data y: real[N]
param all: real ~ Normal(0, 2)
param b: positive ~ Gamma(2, 2)
y ~ Normal(all, b)
`)
	data := writeFile(t, dir, "all.csv", "y\n1\n2\n1.5\n0.7\n")
	out := filepath.Join(dir, "f")
	if code, _, stderr := runGpp("fit", model, data, "--seed", "1", "--out", out, "--quiet"); code != 0 {
		t.Fatalf("gpp fit: exit %d: %s", code, stderr)
	}
	run := func(args ...string) string {
		code, stdout, stderr := runGpp(append([]string{"sensitivity", out}, args...)...)
		if code != 0 {
			t.Fatalf("gpp sensitivity %v: exit %d: %s", args, code, stderr)
		}
		return stdout
	}
	if named := run("--prior", "all"); !strings.Contains(named, "power-scaled the prior of all and the likelihood") {
		t.Errorf("--prior all does not scale the param all's prior alone:\n%s", named)
	}
}

// TestSensitivityTooFewToTell: a 0/1 output true at a few draws of 4000
// (mu beyond 2.9 posterior sds) is too few draws off its usual value for
// its sensitivities to be told from Monte Carlo error, and says so
// (NaN, not a "prior-data conflict" read from the handful of draws'
// weights), while an even one (mu above its mean) gets its numbers.
func TestSensitivityTooFewToTell(t *testing.T) {
	dir := t.TempDir()
	const n = 100
	var b strings.Builder
	b.WriteString("y\n")
	sum := 0.0
	for i := range n {
		y := 0.3 + math.Sin(float64(i)*1.7)
		sum += y
		fmt.Fprintf(&b, "%.6f\n", y)
	}
	mean := sum / n // the posterior mean under the flat-ish prior, sd 1/√n
	model := writeFile(t, dir, "m.gpp", fmt.Sprintf(`data y: real[N]
param mu: real ~ Normal(0, 10)
y ~ Normal(mu, 1)
output p_far = mu > %.6f
output p_half = mu > %.6f
`, mean+2.9/math.Sqrt(n), mean))
	dat := writeFile(t, dir, "d.csv", b.String())
	out := filepath.Join(dir, "s")
	if code, _, stderr := runGpp("sample", model, dat, "--seed", "3", "--out", out, "--quiet"); code != 0 {
		t.Fatalf("gpp sample: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runGpp("sensitivity", out, model, dat)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	prior, lik, diag := sensRowOf(t, stdout, "p_far")
	if !math.IsNaN(prior) || !math.IsNaN(lik) || !strings.HasPrefix(diag, "too few draws with p_far = 1 to tell (") || !strings.HasSuffix(diag, " of 4000)") {
		t.Errorf("p_far: prior %g, likelihood %g, %q: want NaN, NaN, too few draws with p_far = 1 to tell", prior, lik, diag)
	}
	if prior, lik, diag := sensRowOf(t, stdout, "p_half"); math.IsNaN(prior) || math.IsNaN(lik) || strings.HasPrefix(diag, "too few") {
		t.Errorf("p_half: prior %g, likelihood %g, %q: want its sensitivities", prior, lik, diag)
	}
}

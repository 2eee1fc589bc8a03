package main

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// glmmModel is the user trial's Poisson GLMM (a non-centred site
// intercept u = sigma_u·z), with the outputs the tests read: u itself and
// mu, a function of the params alone (no replicate draws).
const glmmModel = `data J: int
data site: int<lower=0, upper=J-1>[N]
data x: real[N]
data log_effort: real[N]
data y: int<lower=0>[N]
param b0: real ~ Normal(0, 2)
param b1: real ~ Normal(0, 1)
param sigma_u: positive ~ HalfNormal(1)
param z: real[J] ~ Normal(0, 1)
let u = sigma_u * z
let eta = log_effort + b0 + b1 * x + u[site]
y ~ PoissonLog(eta)
output u_out = u
output mu = exp(eta)
output y_rep ~ PoissonLog(eta)
`

// glmmSigmaU is the simulated data's sd of the site intercepts.
const glmmSigmaU = 0.8

// simGLMM writes 30 sites × 10 rows of the GLMM (b0 = 0.2, b1 = 0.5,
// sigma_u = glmmSigmaU), sites named by label (s00 ... s29) or by code,
// and returns the file.
func simGLMM(t *testing.T, dir string, labels bool) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	var b strings.Builder
	b.WriteString("site,x,log_effort,y\n")
	for j := range 30 {
		u := glmmSigmaU * rng.NormFloat64()
		for range 10 {
			x, le := rng.NormFloat64(), rng.Float64()
			lambda := math.Exp(le + 0.2 + 0.5*x + u)
			// Knuth's Poisson draw: lambda is small here
			y, p, l := 0, rng.Float64(), math.Exp(-lambda)
			for p > l {
				y++
				p *= rng.Float64()
			}
			site := strconv.Itoa(j)
			if labels {
				site = fmt.Sprintf("s%02d", j)
			}
			fmt.Fprintf(&b, "%s,%.4f,%.4f,%d\n", site, x, le, y)
		}
	}
	return writeFile(t, dir, "glmm.csv", b.String())
}

// printTol is the relative error of a product of two values that
// draws.csv writes to 6 significant digits.
const printTol = 2e-5

// drawRows returns the header and draw rows of a draws.csv: a fit's or
// prediction's first row, the mean row (log_p__ 0), left out.
func drawRows(t *testing.T, path string) ([]string, []string) {
	t.Helper()
	head, rows := drawLines(t, path)
	if slices.Contains(head, "log_p__") && len(rows) > 0 {
		rows = rows[1:]
	}
	return head, rows
}

// drawCols reads the draws of a draws.csv into columns by name.
func drawCols(t *testing.T, path string) map[string][]float64 {
	t.Helper()
	cols := map[string][]float64{}
	for name, cells := range drawText(t, path) {
		for _, f := range cells {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("%s: %q is not a number", path, f)
			}
			cols[name] = append(cols[name], v)
		}
	}
	return cols
}

// drawText reads the draws of a draws.csv into its cells' text by column
// name.
func drawText(t *testing.T, path string) map[string][]string {
	t.Helper()
	head, rows := drawRows(t, path)
	cols := map[string][]string{}
	for _, r := range rows {
		for c, f := range strings.Split(r, ",") {
			cols[head[c]] = append(cols[head[c]], f)
		}
	}
	return cols
}

// standardNormal checks that xs, n independent draws, have mean 0 within
// predictSE standard errors (1/√n) and mean square 1 within predictSE·√(2/n).
func standardNormal(t *testing.T, what string, xs []float64) {
	t.Helper()
	n := float64(len(xs))
	ms := 0.0
	for _, x := range xs {
		ms += x * x / n
	}
	if m := mean(xs); math.Abs(m) > predictSE/math.Sqrt(n) {
		t.Errorf("%s: mean %.4f over %d draws, want 0 within %.4f", what, m, len(xs), predictSE/math.Sqrt(n))
	}
	if math.Abs(ms-1) > predictSE*math.Sqrt(2/n) {
		t.Errorf("%s: mean square %.4f over %d draws, want 1 within %.4f", what, ms, len(xs), predictSE*math.Sqrt(2/n))
	}
}

// TestPredictNewLevels: the user trial's GLMM, fitted on 30 simulated sites
// (sigma_u = 0.8), predicted at a site 30 that the fit did not see:
//
//   - without --new-levels, z of 31 elements is the shape error, which
//     names the flag;
//   - with it, z[30] (z.31) is drawn from its prior Normal(0, 1) at each
//     draw: mean 0, mean square 1 (4000 draws), the note naming the prior
//     at its line and column; u[30] is sigma_u·z[30] draw by draw, so
//     u[30]/sigma_u is standard normal, and var(u[30]) = E[sigma_u²];
//   - the params the fit saw and mu of the old rows are bit for bit those
//     of a prediction of the old rows alone (J = 30): the new rows change
//     nothing else (the replicates y_rep share one stream over the rows,
//     so their draws after a new row's are not compared here);
//   - J = 31 with only the old rows: every column but z.31 and u_out.31,
//     y_rep's replicates included, is bit for bit that of J = 30 (the new
//     element's draws come from a stream of their own);
//   - --new-levels with nothing new changes nothing, bit for bit.
func TestPredictNewLevels(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "glmm.gpp", glmmModel)
	data := simGLMM(t, dir, false)
	fit := fitInto(t, dir, "fit", model, data, "--set", "J=30")
	oldRows := writeFile(t, dir, "old.csv", "site,x,log_effort\n0,0.5,0.2\n7,-1,0.9\n29,0.1,0.5\n")
	newRows := writeFile(t, dir, "new.csv", "site,x,log_effort\n0,0.5,0.2\n7,-1,0.9\n29,0.1,0.5\n30,0.3,0.4\n30,-0.2,0.1\n")
	predict := func(name string, args ...string) (string, string) {
		t.Helper()
		out := filepath.Join(dir, name)
		args = append([]string{"predict", fit, model}, args...)
		code, _, stderr := runSafe(t, append(args, "--seed", "3", "--output-draws", "4000", "--out", out)...)
		if code != 0 {
			t.Fatalf("predict %s: exit %d: %s", name, code, stderr)
		}
		return filepath.Join(out, "draws.csv"), stderr
	}

	code, _, stderr := runSafe(t, "predict", fit, model, newRows, "--set", "J=31", "--quiet", "--out", filepath.Join(dir, "no"))
	if code != exitError || !strings.Contains(stderr, "param z is real[31] here, but the fit at") || !strings.Contains(stderr, "gpp predict --new-levels draws the new elements") {
		t.Errorf("J=31 without --new-levels: exit %d, stderr %q; want the shape error naming --new-levels", code, stderr)
	}

	grown, stderr := predict("grown", newRows, "--set", "J=31", "--new-levels")
	if !strings.Contains(stderr, "--new-levels: z is [31] here, [30] in the fit: its 1 new element drawn at each draw from its prior Normal(0, 1) ("+model+":9:20)") {
		t.Errorf("stderr %q; want the note naming z's prior at 9:20", stderr)
	}
	g := drawCols(t, grown)
	z, s, u := g["z.31"], g["sigma_u"], g["u_out.31"]
	if len(z) != 4000 || len(u) != 4000 {
		t.Fatalf("%d draws of z.31 and %d of u_out.31, want 4000", len(z), len(u))
	}
	standardNormal(t, "z[30]", z)
	ratio := make([]float64, len(z))
	s2 := make([]float64, len(z))
	for d := range z {
		if math.Abs(u[d]-s[d]*z[d]) > printTol*math.Abs(u[d]) {
			t.Fatalf("draw %d: u[30] = %g, sigma_u·z[30] = %g", d, u[d], s[d]*z[d])
		}
		ratio[d], s2[d] = u[d]/s[d], s[d]*s[d]
	}
	standardNormal(t, "u[30]/sigma_u", ratio)
	// u² − sigma_u² = sigma_u²(z² − 1) has mean 0 draw by draw
	diff := make([]float64, len(u))
	for d := range u {
		diff[d] = u[d]*u[d] - s2[d]
	}
	if m, se := mean(diff), math.Sqrt(variance(diff)/float64(len(diff))); math.Abs(m) > predictSE*se {
		t.Errorf("E[u[30]²] − E[sigma_u²] = %.4f, want 0 within %.4f", m, predictSE*se)
	}
	if e := mean(s); e < glmmSigmaU/2 || e > 2*glmmSigmaU {
		t.Errorf("E[sigma_u] %.3f, the simulation's %.1f: the fit is not of these data", e, glmmSigmaU)
	}

	old, _ := predict("old", oldRows, "--set", "J=30")
	gt, ot := drawText(t, grown), drawText(t, old)
	for _, c := range []string{"b0", "b1", "sigma_u", "z.1", "z.30", "u_out.30", "mu.1", "mu.2", "mu.3"} {
		if !slices.Equal(gt[c], ot[c]) || len(gt[c]) != 4000 {
			t.Errorf("column %s differs with the new site in the data", c)
		}
	}

	same, _ := predict("same", oldRows, "--set", "J=31", "--new-levels")
	st := drawText(t, same)
	for c, v := range ot {
		if !slices.Equal(st[c], v) {
			t.Errorf("column %s differs with J=31 and no new row", c)
		}
	}
	if len(st) != len(ot)+2 || st["z.31"] == nil || st["u_out.31"] == nil {
		t.Errorf("J=31: %d columns, J=30: %d; want z.31 and u_out.31 more", len(st), len(ot))
	}

	flag, stderr := predict("flag", oldRows, "--set", "J=30", "--new-levels")
	if !strings.Contains(stderr, "--new-levels: no param") {
		t.Errorf("stderr %q; want the note that nothing is new", stderr)
	}
	_, orows := drawLines(t, old)
	_, frows := drawLines(t, flag)
	if !slices.Equal(orows, frows) || readText(t, filepath.Join(filepath.Dir(old), "summary.csv")) != readText(t, filepath.Join(filepath.Dir(flag), "summary.csv")) {
		t.Error("--new-levels with nothing new changed the draws or the summary")
	}
}

// The centred form, u: real[J] ~ Normal(0, sigma_u): a new u[30] is drawn
// from Normal(0, sigma_u) at each draw's sigma_u, so u[30]/sigma_u is
// standard normal.
func TestPredictNewLevelsCentred(t *testing.T) {
	dir := t.TempDir()
	src := strings.Replace(glmmModel, "param z: real[J] ~ Normal(0, 1)\nlet u = sigma_u * z\n", "param u: real[J] ~ Normal(0, sigma_u)\n", 1)
	model := writeFile(t, dir, "centred.gpp", src)
	fit := fitInto(t, dir, "fit", model, simGLMM(t, dir, false), "--set", "J=30")
	newRows := writeFile(t, dir, "new.csv", "site,x,log_effort\n30,0.3,0.4\n")
	out := filepath.Join(dir, "p")
	code, _, stderr := runSafe(t, "predict", fit, model, newRows, "--set", "J=31", "--new-levels", "--seed", "5", "--output-draws", "4000", "--out", out)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "its prior Normal(0, sigma_u) ("+model+":9:20)") {
		t.Errorf("stderr %q; want the note naming u's prior", stderr)
	}
	g := drawCols(t, filepath.Join(out, "draws.csv"))
	u, s := g["u.31"], g["sigma_u"]
	if len(u) != 4000 {
		t.Fatalf("%d draws of u.31, want 4000", len(u))
	}
	ratio := make([]float64, len(u))
	for d := range u {
		ratio[d] = u[d] / s[d]
	}
	standardNormal(t, "u[30]/sigma_u", ratio)
}

// Sites named by labels: a label that the fit did not see is an error
// naming --new-levels without it; with it, the label is coded after the
// fit's 30 (J = 31 from the labels, the coding's note saying so), its z
// drawn from the prior and named by its label in the summary.
func TestPredictNewLevelsLabels(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "glmm.gpp", glmmModel)
	fit := fitInto(t, dir, "fit", model, simGLMM(t, dir, true))
	newRows := writeFile(t, dir, "new.csv", "site,x,log_effort\ns03,0.5,0.2\nnorth,0.3,0.4\ns03,0.1,0.1\n")
	out := filepath.Join(dir, "p")
	code, _, stderr := runSafe(t, "predict", fit, model, newRows, "--quiet", "--out", out)
	if code != exitError || !strings.Contains(stderr, `label "north" is not one the fit coded`) || !strings.Contains(stderr, "--new-levels") {
		t.Errorf("without --new-levels: exit %d, stderr %q; want the label error naming --new-levels", code, stderr)
	}
	code, stdout, stderr := runSafe(t, "predict", fit, model, newRows, "--new-levels", "--verbose", "--output-draws", "4000", "--out", out)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	if i, j := strings.Index(stdout, "z[s29]"), strings.Index(stdout, "z[north]"); i < 0 || j < i || !strings.Contains(stderr, "z is [31] here, [30] in the fit") ||
		!strings.Contains(stderr, `column "site": 2 labels coded as the fit coded its 30, 1 new after them (s03 3, north 30); J = 31`) {
		t.Errorf("stdout\n%s\nstderr %q; want z[north] after z[s29] and the note", stdout, stderr)
	}
	priorFamilies(t, filepath.Join(out, summaryFile), "z[north]", "z[s29]", "normal")
	if !regexp.MustCompile(`(?m)^z\[north\] +prior `).MatchString(stdout) {
		t.Errorf("stdout\n%s\nwant z[north]'s family prior", stdout)
	}
	g := drawCols(t, filepath.Join(out, "draws.csv"))
	standardNormal(t, "z[north]", g["z.31"])
}

// priorFamilies checks that summary.csv at path gives the new element
// drawn from its prior the family prior, and an old one the fit's or
// sample's family old.
func priorFamilies(t *testing.T, path, fresh, seen, old string) {
	t.Helper()
	text := readText(t, path)
	if !strings.Contains(text, "\n"+fresh+",prior,") || !strings.Contains(text, "\n"+seen+","+old+",") {
		t.Errorf("%s:\n%s\nwant %s's family prior and %s's %s", path, text, fresh, seen, old)
	}
}

// Params whose new elements are not independent of the old ones given the
// other params are refused at their declarations, saying why: a
// multivariate prior over the groups, a sum_to_zero_vector (named by its
// values' shape, not its coordinates'); and so are a param with no prior
// and one given its prior element by element in a loop.
func TestPredictNewLevelsRefused(t *testing.T) {
	dir := t.TempDir()
	data := simGLMM(t, dir, false)
	newRows := writeFile(t, dir, "new.csv", "site,x,log_effort\n30,0.3,0.4\n")
	for _, tc := range []struct{ name, decl, want string }{
		{"mvnormal", "param z: real[J] ~ MvNormal(0, I(J))", "9:7: --new-levels: param `z` ([30] in the fit, [31] here) cannot have new elements drawn: its prior MvNormal(0, I(J)) at "},
		{"sumtozero", "param z: sum_to_zero_vector[J] ~ Normal(0, 1)", "9:7: --new-levels: param `z` ([30] in the fit, [31] here) cannot have new elements drawn: a sum_to_zero_vector's elements sum to zero"},
		{"noprior", "param z: real[J]", "9:7: --new-levels: param `z` cannot be drawn from its prior: it has none"},
		{"loop", "param z: real[J]\nfor j in 0:J {\n  z[j] ~ Normal(0, 1)\n}", "9:7: --new-levels: param `z` cannot be drawn from its prior: the ~ at "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := writeFile(t, dir, tc.name+".gpp", strings.Replace(glmmModel, "param z: real[J] ~ Normal(0, 1)", tc.decl, 1))
			fit := fitInto(t, dir, "fit-"+tc.name, model, data, "--set", "J=30", "--iter", "300", "--output-draws", "20")
			code, _, stderr := runSafe(t, "predict", fit, model, newRows, "--set", "J=31", "--new-levels", "--quiet", "--out", filepath.Join(dir, "p-"+tc.name))
			if code != exitError || !strings.Contains(stderr, model+":"+tc.want) {
				t.Errorf("exit %d, stderr %q; want %q", code, stderr, tc.want)
			}
			if tc.name != "sumtozero" {
				return
			}
			// without the flag, the shape error does not offer what the flag refuses
			code, _, stderr = runSafe(t, "predict", fit, model, newRows, "--set", "J=31", "--quiet", "--out", filepath.Join(dir, "n-"+tc.name))
			if code != exitError || strings.Contains(stderr, "--new-levels") {
				t.Errorf("without the flag: exit %d, stderr %q; want an error without --new-levels", code, stderr)
			}
		})
	}
}

// From a gpp sample's directory: the sampled draws of the old sites, the
// new site's z drawn from its prior at each draw; without the flag, the
// error names it.
func TestPredictNewLevelsSample(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "glmm.gpp", glmmModel)
	data := simGLMM(t, dir, false)
	s := filepath.Join(dir, "s")
	if code, _, stderr := runGpp("sample", model, data, "--set", "J=30", "--quiet", "--chains", "2", "--warmup", "150", "--draws", "500", "--out", s); code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	oldRows := writeFile(t, dir, "old.csv", "site,x,log_effort\n0,0.5,0.2\n29,0.1,0.5\n")
	newRows := writeFile(t, dir, "new.csv", "site,x,log_effort\n0,0.5,0.2\n29,0.1,0.5\n30,0.3,0.4\n")
	code, _, stderr := runGpp("predict", s, model, newRows, "--set", "J=31", "--quiet", "--out", filepath.Join(dir, "no"))
	if code != exitError || !strings.Contains(stderr, "--new-levels") {
		t.Errorf("without --new-levels: exit %d, stderr %q; want the error naming the flag", code, stderr)
	}
	p, q := filepath.Join(dir, "p"), filepath.Join(dir, "q")
	if code, _, stderr := runGpp("predict", s, model, newRows, "--set", "J=31", "--new-levels", "--quiet", "--out", p); code != exitOK {
		t.Fatalf("predict: exit %d:\n%s", code, stderr)
	}
	if code, _, stderr := runGpp("predict", s, model, oldRows, "--set", "J=30", "--quiet", "--out", q); code != exitOK {
		t.Fatalf("predict J=30: exit %d:\n%s", code, stderr)
	}
	pt, qt := drawText(t, filepath.Join(p, drawsFile)), drawText(t, filepath.Join(q, drawsFile))
	for _, c := range []string{"b0", "sigma_u", "z.1", "z.30", "mu.1", "mu.2"} {
		if !slices.Equal(pt[c], qt[c]) || len(pt[c]) != 1000 {
			t.Errorf("column %s differs from the sample's with the new site", c)
		}
	}
	priorFamilies(t, filepath.Join(p, summaryFile), "z[30]", "z[29]", "nuts")
	g := drawCols(t, filepath.Join(p, drawsFile))
	standardNormal(t, "z[30]", g["z.31"])
	for d, u := range g["u_out.31"] {
		if math.Abs(u-g["sigma_u"][d]*g["z.31"][d]) > printTol*math.Abs(u) {
			t.Fatalf("draw %d: u[30] = %g, not sigma_u·z[30]", d, u)
		}
	}
}

// Varying intercepts and slopes with independent multivariate normal rows,
// b: real[J, 2] ~ MvNormalCholesky(0, diag_pre_multiply(tau, L)): a new
// group's row is drawn whole at each draw, so its whitening by that
// draw's factor diag(tau)·L gives two independent standard normals.
func TestPredictNewLevelsMvRows(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "mvc.gpp", `data x: real[N]
data g: int[N]
data y: real[N]
data J: int
param alpha: real ~ Normal(0, 5)
param sigma: positive ~ HalfNormal(2)
param tau: positive[2] ~ HalfNormal(2)
param L: cholesky_factor_corr[2] ~ LKJCorrCholesky(2)
param b: real[J, 2] ~ MvNormalCholesky(0, diag_pre_multiply(tau, L))
y ~ Normal(alpha + b[g, 0] + b[g, 1] .* x, sigma)
`)
	fit := fitInto(t, dir, "fit", model, "../../examples/varying.csv", "--set", "J=40")
	newRows := writeFile(t, dir, "new.csv", "g,x\n40,0.5\n")
	out := filepath.Join(dir, "p")
	code, _, stderr := runSafe(t, "predict", fit, model, newRows, "--set", "J=41", "--new-levels", "--seed", "9", "--output-draws", "4000", "--out", out)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "b is [41, 2] here, [40, 2] in the fit: its 2 new elements") {
		t.Errorf("stderr %q; want the note on b", stderr)
	}
	c := drawCols(t, filepath.Join(out, "draws.csv"))
	b0, b1 := c["b.41.1"], c["b.41.2"]
	if len(b0) != 4000 {
		t.Fatalf("%d draws of b.41.1, want 4000", len(b0))
	}
	w0, w1, prod := make([]float64, len(b0)), make([]float64, len(b0)), make([]float64, len(b0))
	for d := range b0 {
		// diag(tau)·L = [[tau0, 0], [tau1·L10, tau1·L11]]
		w0[d] = b0[d] / c["tau.1"][d]
		w1[d] = (b1[d] - c["tau.2"][d]*c["L.2.1"][d]*w0[d]) / (c["tau.2"][d] * c["L.2.2"][d])
		prod[d] = w0[d] * w1[d]
	}
	standardNormal(t, "w0", w0)
	standardNormal(t, "w1", w1)
	if m := mean(prod); math.Abs(m) > predictSE/math.Sqrt(float64(len(prod))) {
		t.Errorf("E[w0·w1] = %.4f, want 0 within %.4f", m, predictSE/math.Sqrt(float64(len(prod))))
	}
}

// TestReplPredictNewLevels: the REPL's :predict on rows of a label the
// fit did not see is the label error naming :predict --new-levels; with
// the flag its table is gpp predict --new-levels' on the same fit (the
// REPL's fit and gpp fit's at one seed are one fit, and :predict uses its
// seed and draws), the new site's rows included; a param made longer by
// :set is an error naming the flag, not a change of the model.
func TestReplPredictNewLevels(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "glmm.gpp", glmmModel)
	data := simGLMM(t, dir, true)
	newRows := writeFile(t, dir, "new.csv", "site,x,log_effort\ns03,0.5,0.2\nnorth,0.3,0.4\n")
	fit := fitInto(t, dir, "fit", model, data, "--seed", "3")
	code, stdout, stderr := runSafe(t, "predict", fit, model, newRows, "--new-levels", "--out", filepath.Join(dir, "p"))
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	rowsOf := func(text string) map[string]string {
		rows := map[string]string{}
		for _, line := range strings.Split(text, "\n") {
			f := strings.Fields(strings.TrimPrefix(line, ">>> "))
			if len(f) > 0 && (strings.HasPrefix(f[0], "mu[") || strings.HasPrefix(f[0], "y_rep[")) {
				rows[f[0]] = strings.Join(slices.DeleteFunc(f, func(s string) bool { return s == "output" }), " ")
			}
		}
		return rows
	}
	want := rowsOf(stdout)
	if len(want) != 4 {
		t.Fatalf("gpp predict's table has %d rows of mu and y_rep, want 4:\n%s", len(want), stdout)
	}

	script := fmt.Sprintf(":load %s\n:data %s\n:fit --quiet --seed 3\n:predict %s\n:predict --new-levels %s\n:set J=31\n:predict %s\n", model, data, newRows, newRows, data)
	var out bytes.Buffer
	run([]string{"repl", "--history", "-"}, strings.NewReader(script), &out, &out)
	text := out.String()
	parts := strings.Split(text, ">>> :predict")
	if len(parts) != 4 {
		t.Fatalf("want three :predict answers:\n%s", text)
	}
	if !strings.Contains(parts[1], `label "north" is not one the fit coded`) || !strings.Contains(parts[1], ":predict --new-levels codes it after them") {
		t.Errorf(":predict without the flag:\n%s\nwant the label error naming :predict --new-levels", parts[1])
	}
	if got := rowsOf(parts[2]); !maps.Equal(got, want) {
		t.Errorf(":predict --new-levels rows %v, gpp predict --new-levels' %v", got, want)
	}
	if !strings.Contains(parts[2], "--new-levels: z is [31] here, [30] in the fit") || !strings.Contains(parts[2], "\nu_out[s00] ") {
		t.Errorf(":predict --new-levels:\n%s\nwant the note of z's new element and u_out named by the labels", parts[2])
	}
	if !strings.Contains(parts[3], "param z is real[31] with the new data, real[30] in the fit") || !strings.Contains(parts[3], ":predict --new-levels draws the new elements") || strings.Contains(parts[3], "changed since the last :fit") {
		t.Errorf(":set J=31, :predict:\n%s\nwant the shape error naming --new-levels", parts[3])
	}
}

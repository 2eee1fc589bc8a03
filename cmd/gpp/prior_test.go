package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFitPriorRegression draws examples/regression.gpp's params from their
// priors: alpha ~ Normal(0, 2), sigma ~ HalfNormal(1) (all positive, mean
// √(2/π)), the replicate proline_rep a prior predictive draw; draws.csv
// says they are prior draws, its first row holds their means, and log_p__
// − log_g__ is the log likelihood (not 0). Written into the directory of an
// earlier fit, they replace its files: elbo.csv and fit.json, which a prior
// run does not write, are removed, and a file of the user's is kept.
func TestFitPriorRegression(t *testing.T) {
	out := t.TempDir()
	for name, text := range map[string]string{
		"elbo.csv": "iter,elbo\n", "notes.txt": "mine\n",
		"fit.json": `{"format": "gpp-fit/1", "files": ["summary.csv", "draws.csv", "elbo.csv", "fit.json"]}`,
	} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runSafe(t, "fit", "--prior", "../../examples/regression.gpp", "../../examples/wine_std.csv", "--quiet", "--seed", "3",
		"--output-draws", "4000", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr %q, want nothing", stderr)
	}
	if !strings.Contains(stdout, "prior draws  4000 (seed 3)") || !strings.Contains(stdout, "summary.csv draws.csv\n") {
		t.Errorf("stdout:\n%s", stdout)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"draws.csv", "notes.txt", "summary.csv"}) {
		t.Errorf("the directory holds %v, want draws.csv notes.txt summary.csv", names)
	}
	comments, header, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	if !strings.Contains(strings.Join(comments, "\n"), "# PRIOR DRAWS:") {
		t.Errorf("draws.csv does not say it holds prior draws:\n%s", strings.Join(comments, "\n"))
	}
	col := columns(header)
	mean, draws := rows[0], rows[1:]
	if len(draws) != 4000 {
		t.Fatalf("%d draws, want 4000", len(draws))
	}
	moments := func(name string) (m, sd float64) {
		c := col[name]
		for _, r := range draws {
			m += r[c] / float64(len(draws))
		}
		for _, r := range draws {
			sd += (r[c] - m) * (r[c] - m) / float64(len(draws)-1)
		}
		if math.Abs(mean[c]-m) > 1e-5*math.Max(1, math.Abs(m)) {
			t.Errorf("%s: the mean row has %v, the draws' mean is %v", name, mean[c], m)
		}
		return m, math.Sqrt(sd)
	}
	n := float64(len(draws))
	if m, sd := moments("alpha"); math.Abs(m) > 4.5*2/math.Sqrt(n) || math.Abs(sd-2) > 4.5*2/math.Sqrt(2*n) {
		t.Errorf("alpha: mean %v, sd %v; want 0, 2", m, sd)
	}
	hs := math.Sqrt(1 - 2/math.Pi)
	if m, _ := moments("sigma"); math.Abs(m-math.Sqrt(2/math.Pi)) > 4.5*hs/math.Sqrt(n) {
		t.Errorf("sigma: mean %v, want %v", m, math.Sqrt(2/math.Pi))
	}
	for i, r := range draws {
		if !(r[col["sigma"]] > 0) {
			t.Fatalf("draw %d: sigma = %v", i, r[col["sigma"]])
		}
		if ll := r[col["log_p__"]] - r[col["log_g__"]]; !(ll < 0) {
			t.Fatalf("draw %d: log likelihood %v", i, ll)
		}
	}
	// a replicate's prior predictive sd is at least alpha's
	if _, sd := moments("proline_rep.1"); !(sd > 2) {
		t.Errorf("proline_rep.1: sd %v, want more than alpha's 2", sd)
	}
}

// TestFitPriorDeterministic: the same seed gives the same draws.csv (but
// for the line naming it), another seed other draws.
func TestFitPriorDeterministic(t *testing.T) {
	read := func(seed string) string {
		out := t.TempDir()
		code, _, stderr := runSafe(t, "fit", "--prior", "testdata/fit_prior.gpp", "--quiet", "--seed", seed, "--output-draws", "50", "--out", out)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "draws.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(string(b), out, "OUT")
	}
	a, b, c := read("4"), read("4"), read("5")
	if a != b {
		t.Error("two runs with --seed 4 differ")
	}
	if a == c {
		t.Error("--seed 5 gives the draws of --seed 4")
	}
}

// TestFitPriorLKJ draws examples/varying.gpp's params from their priors:
// its cholesky_factor_corr[2] L ~ LKJCorrCholesky(2) is written as its
// 2×2 values, L[2,1] is the correlation that the output rho reads, and
// under LKJ(2) it is 2·Beta(2, 2) − 1, of mean 0 and variance 1/5.
func TestFitPriorLKJ(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := runSafe(t, "fit", "--prior", "../../examples/varying.gpp", "../../examples/varying.csv", "--quiet",
		"--output-draws", "4000", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, header, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	col := columns(header)
	var rho []float64
	for i, r := range rows[1:] {
		if r[col["L.1.1"]] != 1 || r[col["L.1.2"]] != 0 || math.Abs(r[col["L.2.1"]]-r[col["rho"]]) > 1e-5 {
			t.Fatalf("draw %d: L = [%v %v; %v %v], rho %v", i, r[col["L.1.1"]], r[col["L.1.2"]], r[col["L.2.1"]], r[col["L.2.2"]], r[col["rho"]])
		}
		rho = append(rho, r[col["rho"]])
	}
	m, v := 0.0, 0.0
	for _, x := range rho {
		m += x / float64(len(rho))
	}
	for _, x := range rho {
		v += (x - m) * (x - m) / float64(len(rho)-1)
	}
	n := float64(len(rho))
	// the fourth moment of 2·Beta(2, 2) − 1 is 3/35: var(v) ≈ (3/35 − 1/25)/n
	if math.Abs(m) > 4.5*math.Sqrt(0.2/n) || math.Abs(v-0.2) > 4.5*math.Sqrt((3.0/35-0.04)/n) {
		t.Errorf("rho: mean %v, variance %v; want 0, 0.2", m, v)
	}
}

// TestFitPriorExamples: every bundled example with its data draws from its
// priors (GPFA's tiny gamma shapes in log space, the EPM's hierarchy,
// varying's LKJ, ordinal's cutpoints, the mixture's simplex, survival's
// frailties); the posteriordb models, which need data from ../shared, are
// left out.
func TestFitPriorExamples(t *testing.T) {
	ex := "../../examples/"
	for _, c := range [][]string{
		{"regression.gpp", ex + "wine_std.csv"},
		{"gpfa.gpp", ex + "wine_std.csv", "--set", "K=6"},
		{"gpfa_diag.gpp", ex + "wine_std.csv", "--set", "K=6"},
		{"fa.gpp", ex + "wine_std.csv"},
		{"mixture.gpp", ex + "wine_std.csv"},
		{"cultivar.gpp", ex + "wine_std.csv", "cultivar=" + ex + "wine_cultivar.csv"},
		{"ordinal.gpp", ex + "ordinal.csv"},
		{"varying.gpp", ex + "varying.csv"},
		{"seeds.gpp", ex + "seeds.csv"},
		{"survival.gpp", ex + "survival.csv"},
		{"epm.gpp", "links=" + ex + "football_train.csv", "unknown=" + ex + "football_heldout.csv", "--set", "N=115"},
		{"pmf.gpp", ex + "digits300.csv", "train=" + ex + "digits300_train.csv"},
	} {
		t.Run(c[0], func(t *testing.T) {
			args := append([]string{"fit", "--prior", ex + c[0]}, c[1:]...)
			args = append(args, "--quiet", "--output-draws", "20", "--out", t.TempDir())
			code, stdout, stderr := runSafe(t, args...)
			if code != 0 || !strings.Contains(stdout, "prior draws  20") {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}
}

// TestFitPriorTargetWarning: a target += that depends on params and reads
// no data, directly or through lets, may be part of the prior, which the
// draws leave out: a warning at each such statement; a likelihood written
// as target += (it reads data) gets none.
func TestFitPriorTargetWarning(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "pt.gpp", `data y: real[N]
param mu: real ~ Normal(0, 5)
param s: positive ~ HalfNormal(1)
let pen = -0.5 * square(mu - 1)
target += pen
let ll = logpdf(y, Normal(mu, s))
target += sum(ll)
for i in 0:2 {
  target += -square(s)
}
`)
	csvPath := writeFile(t, dir, "y.csv", "y\n0.5\n1.2\n")
	code, _, stderr := runSafe(t, "fit", "--prior", model, csvPath, "--out", filepath.Join(dir, "out"), "--output-draws", "10", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var at []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "this target += depends on params and reads no data") {
			at = append(at, strings.TrimPrefix(strings.SplitN(line, ": this", 2)[0], "gpp: warning: "+model+":"))
		}
	}
	if strings.Join(at, " ") != "5:1 9:3" {
		t.Errorf("warnings at %v, want 5:1 and 9:3:\n%s", at, stderr)
	}
}

// TestFitPriorWishart draws a cov_matrix[2] param from its inverse
// Wishart prior, InvWishart(12, S) with S = I + 0.5 (mean S/(12 − 2 − 1)),
// written as its 2×2 values, and the replicate y_rep ~ MvNormal(0, Sigma)
// at each draw, a prior predictive draw whose covariance is E[Sigma]: the
// means of Sigma's entries and the variance of y_rep.1 are within 4.5
// standard errors of 4000 draws, and Sigma is symmetric with a positive
// diagonal in every row.
func TestFitPriorWishart(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "iw.gpp", `const K = 2
param Sigma: cov_matrix[K] ~ InvWishart(12, I(K) + 0.5)
output y_rep ~ MvNormal(rep(0, K), Sigma)
`)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runSafe(t, "fit", "--prior", model, "--quiet", "--seed", "8", "--output-draws", "4000", "--out", out)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "prior draws  4000 (seed 8)") {
		t.Errorf("stdout:\n%s", stdout)
	}
	_, header, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	col := columns(header)
	draws := rows[1:]
	n := float64(len(draws))
	moments := func(name string) (m, v, m4 float64) {
		c, ok := col[name]
		if !ok {
			t.Fatalf("no column %s in %v", name, header)
		}
		for _, r := range draws {
			m += r[c] / n
		}
		for _, r := range draws {
			d := (r[c] - m) * (r[c] - m)
			v += d / (n - 1)
			m4 += d * d / n
		}
		return m, v, m4
	}
	for i, r := range draws {
		if r[col["Sigma.1.2"]] != r[col["Sigma.2.1"]] || !(r[col["Sigma.1.1"]] > 0) || !(r[col["Sigma.2.2"]] > 0) {
			t.Fatalf("draw %d: Sigma = [%v %v; %v %v]", i, r[col["Sigma.1.1"]], r[col["Sigma.1.2"]], r[col["Sigma.2.1"]], r[col["Sigma.2.2"]])
		}
	}
	for name, want := range map[string]float64{"Sigma.1.1": 1.5 / 9, "Sigma.2.1": 0.5 / 9, "Sigma.2.2": 1.5 / 9} {
		if m, v, _ := moments(name); math.Abs(m-want) > 4.5*math.Sqrt(v/n) {
			t.Errorf("%s: mean %v, want %v (SE %.3g)", name, m, want, math.Sqrt(v/n))
		}
	}
	if m, v, m4 := moments("y_rep.1"); math.Abs(m) > 4.5*math.Sqrt(v/n) || math.Abs(v-1.5/9) > 4.5*math.Sqrt((m4-v*v)/n) {
		t.Errorf("y_rep.1: mean %v, variance %v; want 0, %v", m, v, 1.5/9)
	}
}

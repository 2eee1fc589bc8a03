package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// hurdleGammaModel is a hurdle gamma (amounts with exact zeros) with a
// replicate and log_lik.
const hurdleGammaModel = `data y: real<lower=0>[N]
param psi: unit ~ Beta(1, 1)
param alpha: positive ~ Gamma(2, 0.5)
param beta: positive ~ Gamma(2, 0.5)
y ~ HurdleGamma(psi, alpha, beta)
output y_rep ~ HurdleGamma(rep(psi, N), alpha, beta)
output log_lik = logpdf(y, HurdleGamma(psi, alpha, beta))
`

// hurdleGammaIfModel is the same log joint with each case in an if: a zero
// has log(1 − psi), a positive value log psi + its Gamma log density.
const hurdleGammaIfModel = `data y: real<lower=0>[N]
param psi: unit ~ Beta(1, 1)
param alpha: positive ~ Gamma(2, 0.5)
param beta: positive ~ Gamma(2, 0.5)
for i in 0:N {
  if y[i] == 0 {
    target += log1m(psi)
  } else {
    target += log(psi) + logpdf(y[i], Gamma(alpha, beta))
  }
}
`

// TestHurdleGammaCLI: on 400 amounts simulated (seeded) from
// HurdleGamma(0.7, 2, 1), about 120 of them exact zeros, the family's log
// joint and gradient (gpp logprob) are the if formulation's at points from
// the middle to the extremes; a fit recovers psi and alpha within
// zipFitSDs of its own posterior sds (each below a bound that a fit
// ignoring the data would exceed); y_rep's draws have the share of zeros
// and the mean of positive values that each draw's parameters give; and
// gpp predict draws them again from the saved fit.
func TestHurdleGammaCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const n, psi, alpha, beta = 400, 0.7, 2.0, 1.0
	rng := rand.New(rand.NewPCG(2026, 30))
	var b strings.Builder
	b.WriteString("y\n")
	for range n {
		fmt.Fprintf(&b, "%.17g\n", dist.HurdleGamma{Psi: psi, Shape: alpha, Rate: beta}.Rand(rng))
	}
	dir := t.TempDir()
	data := writeFile(t, dir, "y.csv", b.String())
	hg := writeFile(t, dir, "hg.gpp", hurdleGammaModel)
	hgIf := writeFile(t, dir, "hgif.gpp", hurdleGammaIfModel)
	pts := writeFile(t, dir, "pts.csv", "psi,alpha,beta\n0.7,2,1\n0.999,0.05,30\n0.01,300,200\n0.5,1e-3,1e-3\n")
	checkLogprobAgree(t, hg, hgIf, data, pts, 4, zipLogprobTol)

	out := filepath.Join(dir, "out")
	if code, _, stderr := runSafe(t, "fit", hg, data, "--seed", "1", "--out", out); code != 0 {
		t.Fatalf("fit: exit %d\n%s", code, stderr)
	}
	rows := summaryRows(t, out)
	// a fit without the data: psi ~ Beta(1, 1) has sd 0.29, alpha ~
	// Gamma(2, 0.5) sd 2.8
	checkRecovers(t, rows, "psi", psi, 0.05, zipFitSDs)
	checkRecovers(t, rows, "alpha", alpha, 0.3, zipFitSDs)
	checkHurdleGammaReps(t, readDrawsCSV(t, filepath.Join(out, "draws.csv"))[1:], n) // q's mean first
	pred := filepath.Join(dir, "pred")
	if code, _, stderr := runSafe(t, "predict", out, hg, data, "--quiet", "--out", pred); code != 0 {
		t.Fatalf("predict: exit %d\n%s", code, stderr)
	}
	checkHurdleGammaReps(t, readDrawsCSV(t, filepath.Join(pred, "draws.csv")), n)
}

// checkLogprobAgree checks that gpp logprob gives the same log joint and
// gradient for model and same, one of the same family written another way,
// at each of the rows points in pts (a CSV of param values): within tol,
// relative to max(1, |value|).
func checkLogprobAgree(t *testing.T, model, same, data, pts string, rows int, tol float64) {
	t.Helper()
	got := runLogprob(t, model, data, "--params", pts)
	want := runLogprob(t, same, data, "--params", pts)
	if len(got) != rows || len(want) != rows {
		t.Fatalf("%d and %d rows, want %d", len(got), len(want), rows)
	}
	for i := range got {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("point %d: %d and %d columns", i, len(got[i]), len(want[i]))
		}
		for j := range got[i] {
			if e := math.Abs(got[i][j]-want[i][j]) / math.Max(1, math.Abs(want[i][j])); !(e <= tol) {
				t.Errorf("point %d, column %d: %s %.17g, %s %.17g", i, j,
					filepath.Base(model), got[i][j], filepath.Base(same), want[i][j])
			}
		}
	}
}

// checkRecovers checks a fit's summary row of the scalar name: q's sd is
// positive and below maxS (a bound a fit ignoring the data would exceed),
// and q's mean lies within sds of those sds from truth, the simulating
// value. It returns q's mean and sd.
func checkRecovers(t *testing.T, rows map[string][2]float64, name string, truth, maxS, sds float64) (m, s float64) {
	t.Helper()
	r, ok := rows[name]
	if !ok {
		t.Fatalf("no summary row %s", name)
	}
	m, s = r[0], r[1]
	t.Logf("%s: q mean %.4g sd %.3g, simulated from %g", name, m, s, truth)
	if !(s > 0 && s < maxS) || !(math.Abs(m-truth) <= sds*s) {
		t.Errorf("%s: q mean %.4g sd %.3g, simulated from %g", name, m, s, truth)
	}
	return m, s
}

// checkHurdleGammaReps checks y_rep in draws: per draw d, n values from
// HurdleGamma(psi_d, alpha_d, beta_d); the zeros and the sum of the
// positive values against their expectations, in standard deviations of
// the sums over draws (5: a 6e-7 test).
func checkHurdleGammaReps(t *testing.T, draws []map[string]float64, n int) {
	t.Helper()
	var zeros, ez, vz, sum, es, vs float64
	for _, d := range draws {
		hd := dist.HurdleGamma{Psi: d["psi"], Shape: d["alpha"], Rate: d["beta"]}
		p0 := 1 - hd.Psi
		ez += float64(n) * p0
		vz += float64(n) * p0 * (1 - p0)
		es += float64(n) * hd.Mean()
		vs += float64(n) * hd.Variance()
		for i := 1; i <= n; i++ {
			v, ok := d[fmt.Sprintf("y_rep.%d", i)]
			if !ok || !(v >= 0) {
				t.Fatalf("y_rep.%d = %v (present %v)", i, v, ok)
			}
			if v == 0 {
				zeros++
			}
			sum += v
		}
	}
	if len(draws) == 0 {
		t.Fatal("no draws")
	}
	if z := (zeros - ez) / math.Sqrt(vz); math.Abs(z) > 5 {
		t.Errorf("y_rep: %g zeros, expected %.1f (z = %.1f)", zeros, ez, z)
	}
	if z := (sum - es) / math.Sqrt(vs); math.Abs(z) > 5 {
		t.Errorf("y_rep: sum %g, expected %.1f (z = %.1f)", sum, es, z)
	}
}

// ziCensModel is a zero-inflated Poisson whose counts of 6 or more are
// reported only as such (censored): n_cens of them, each P(Y > 5).
const ziCensModel = `data y: int<lower=0>[N]
data n_cens: int
param psi: unit ~ Beta(1, 1)
param lambda: positive ~ Gamma(2, 0.5)
y ~ ZeroInflatedPoisson(psi, lambda)
target += n_cens * logccdf(5, ZeroInflatedPoisson(psi, lambda))
`

// ziCensPoissonModel writes the censored term from Poisson's logccdf:
// P(Y > 5) = psi P(Poisson > 5).
const ziCensPoissonModel = `data y: int<lower=0>[N]
data n_cens: int
param psi: unit ~ Beta(1, 1)
param lambda: positive ~ Gamma(2, 0.5)
y ~ ZeroInflatedPoisson(psi, lambda)
target += n_cens * (log(psi) + logccdf(5, Poisson(lambda)))
`

// TestZeroInflatedCensoredCLI: 500 counts simulated (seeded) from
// ZeroInflatedPoisson(0.6, 4), those of 6 or more censored (about 130):
// the log joint and gradient with ZeroInflatedPoisson's logccdf are those
// with Poisson's, and a fit recovers psi and lambda within zipFitSDs of
// its posterior sds, where dropping the censored counts would put lambda
// near 3 (the mean of a Poisson(4) below 6 is 2.9).
func TestZeroInflatedCensoredCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const n, psi, lambda = 500, 0.6, 4.0
	rng := rand.New(rand.NewPCG(2026, 31))
	var ys []string
	nCens := 0
	for range n {
		if k := (dist.ZeroInflatedPoisson{Psi: psi, Rate: lambda}).Rand(rng); k > 5 {
			nCens++
		} else {
			ys = append(ys, fmt.Sprint(k))
		}
	}
	dir := t.TempDir()
	data := writeFile(t, dir, "d.json", fmt.Sprintf(`{"y": [%s], "n_cens": %d}`, strings.Join(ys, ", "), nCens))
	zc := writeFile(t, dir, "zc.gpp", ziCensModel)
	zcP := writeFile(t, dir, "zcp.gpp", ziCensPoissonModel)
	pts := writeFile(t, dir, "pts.csv", "psi,lambda\n0.6,4\n0.999,0.01\n0.01,60\n")
	checkLogprobAgree(t, zc, zcP, data, pts, 3, zipLogprobTol)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runSafe(t, "fit", zc, data, "--seed", "1", "--out", out); code != 0 {
		t.Fatalf("fit: exit %d\n%s", code, stderr)
	}
	rows := summaryRows(t, out)
	checkRecovers(t, rows, "psi", psi, 0.05, zipFitSDs)
	checkRecovers(t, rows, "lambda", lambda, 0.25, zipFitSDs)
}

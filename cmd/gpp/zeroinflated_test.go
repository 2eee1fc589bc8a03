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

// zipLogprobTol bounds the difference of ZeroInflatedPoisson's log joint and
// gradient from the same model written with an if on the data
// (docs/language.md), relative to max(1, |value|): the two sum the same
// terms in other orders.
const zipLogprobTol = 1e-12

// zipFitSDs is how many of the fit's own posterior sds q's mean may lie from
// the simulating psi and lambda: the posterior mean is itself within about
// 2 sds of the truth for most data sets (seeded here, so one fixed draw),
// and SGVB's mean-field q adds a little.
const zipFitSDs = 4

// zipModel is a zero-inflated Poisson with a replicate and log_lik.
const zipModel = `data y: int<lower=0>[N]
param psi: unit ~ Beta(1, 1)
param lambda: positive ~ Gamma(2, 0.5)
y ~ ZeroInflatedPoisson(psi, lambda)
output y_rep ~ ZeroInflatedPoisson(rep(psi, N), lambda)
output log_lik = logpdf(y, ZeroInflatedPoisson(psi, lambda))
`

// zipIfModel is the same model with each case's log mass in an if
// (docs/language.md §3, Conditions): a zero is structural with
// probability 1 − psi (exact where psi ≥ 1/2, and within an ulp below).
const zipIfModel = `data y: int<lower=0>[N]
param psi: unit ~ Beta(1, 1)
param lambda: positive ~ Gamma(2, 0.5)
for i in 0:N {
  if y[i] == 0 {
    target += log_mix(1 - psi, 0, logpdf(0, Poisson(lambda)))
  } else {
    target += log(psi) + logpdf(y[i], Poisson(lambda))
  }
}
`

// TestZeroInflatedPoissonCLI: on 500 counts simulated (seeded) from
// ZeroInflatedPoisson(0.7, 3), the family's log joint and gradient (gpp
// logprob) are the if formulation's at points from the middle to the
// extremes; a fit recovers psi and lambda within zipFitSDs of its own
// posterior sds (each below a bound that a fit ignoring the data would
// exceed); and y_rep's draws have the share of zeros and the mean that
// each draw's psi and lambda give.
func TestZeroInflatedPoissonCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const n, psi, lambda = 500, 0.7, 3.0
	rng := rand.New(rand.NewPCG(2026, 11))
	var b strings.Builder
	b.WriteString("y\n")
	for range n {
		fmt.Fprintf(&b, "%g\n", dist.ZeroInflatedPoisson{Psi: psi, Rate: lambda}.Rand(rng))
	}
	dir := t.TempDir()
	data := writeFile(t, dir, "y.csv", b.String())
	zip := writeFile(t, dir, "zip.gpp", zipModel)
	zipIf := writeFile(t, dir, "zipif.gpp", zipIfModel)
	pts := writeFile(t, dir, "pts.csv", "psi,lambda\n0.7,3\n0.99,0.2\n0.05,40\n0.5,1e-6\n0.999999999,700\n")
	got := runLogprob(t, zip, data, "--params", pts)
	want := runLogprob(t, zipIf, data, "--params", pts)
	if len(got) != 5 || len(want) != 5 {
		t.Fatalf("%d and %d rows, want 5", len(got), len(want))
	}
	for i := range got {
		for j := range got[i] {
			if e := math.Abs(got[i][j]-want[i][j]) / math.Max(1, math.Abs(want[i][j])); !(e <= zipLogprobTol) {
				t.Errorf("point %d, column %d: ZeroInflatedPoisson %.17g, the if %.17g", i, j, got[i][j], want[i][j])
			}
		}
	}

	out := filepath.Join(dir, "out")
	if code, _, stderr := runSafe(t, "fit", zip, data, "--seed", "1", "--out", out); code != 0 {
		t.Fatalf("fit: exit %d\n%s", code, stderr)
	}
	rows := summaryRows(t, out)
	for _, c := range []struct {
		name        string
		truth, maxS float64
	}{{"psi", psi, 0.05}, {"lambda", lambda, 0.25}} {
		m, s := rows[c.name][0], rows[c.name][1]
		if !(s > 0 && s < c.maxS) || math.Abs(m-c.truth) > zipFitSDs*s {
			t.Errorf("%s: q mean %.4g sd %.3g, simulated from %g", c.name, m, s, c.truth)
		}
	}
	// y_rep: per draw d, n counts from ZeroInflatedPoisson(psi_d,
	// lambda_d); the zeros and the sum against their expectations, in
	// standard deviations of the sum over draws.
	draws := readDrawsCSV(t, filepath.Join(out, "draws.csv"))[1:] // q's mean first
	var zeros, ez, vz, sum, es, vs float64
	for _, d := range draws {
		ps, lam := d["psi"], d["lambda"]
		p0 := (1 - ps) + ps*math.Exp(-lam)
		zd := dist.ZeroInflatedPoisson{Psi: ps, Rate: lam}
		ez += n * p0
		vz += n * p0 * (1 - p0)
		es += n * zd.Mean()
		vs += n * zd.Variance()
		for i := 1; i <= n; i++ {
			v, ok := d[fmt.Sprintf("y_rep.%d", i)]
			if !ok || v < 0 || v != math.Trunc(v) {
				t.Fatalf("y_rep.%d = %v (present %v)", i, v, ok)
			}
			if v == 0 {
				zeros++
			}
			sum += v
		}
	}
	if z := (zeros - ez) / math.Sqrt(vz); math.Abs(z) > 5 {
		t.Errorf("y_rep: %g zeros, expected %.1f (z = %.1f)", zeros, ez, z)
	}
	if z := (sum - es) / math.Sqrt(vs); math.Abs(z) > 5 {
		t.Errorf("y_rep: sum %g, expected %.1f (z = %.1f)", sum, es, z)
	}
}

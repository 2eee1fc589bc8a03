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

// waldFitSDs is how many of the fit's own posterior sds q's mean may lie
// from the simulating mu and lambda: the posterior mean of a seeded data
// set is within about 2 sds of the truth, and SGVB's mean-field q adds a
// little (as zipFitSDs).
const waldFitSDs = 4

// waldMLESDs is how far q's mean may lie from the maximum-likelihood
// estimate, in posterior sds: with 400 points the priors move the
// posterior by a few percent of an sd, and the posterior mean of lambda
// lies above its mode by about 2/n relative, 0.05 sd.
const waldMLESDs = 0.5

// waldCSVTol bounds log_lik against the density recomputed from a draw's
// mu and lambda, relative to max(1, |value|): draws.csv holds 6
// significant digits of each.
const waldCSVTol = 1e-4

// waldModel is a Wald (inverse Gaussian) likelihood of reaction times, as
// PyMC's pm.Wald(mu, lam), with a replicate and log_lik.
const waldModel = `data rt: positive[N]
param mu: positive ~ LogNormal(0, 1)
param lambda: positive ~ LogNormal(1, 1)
rt ~ Wald(mu, lambda)
output rt_rep ~ Wald(rep(mu, N), lambda)
output log_lik = logpdf(rt, Wald(mu, lambda))
`

// TestWaldCLI: on 400 reaction times simulated (seeded) from Wald(0.8,
// 2.5), gpp fit recovers mu and lambda within waldFitSDs of its own
// posterior sds and within waldMLESDs of the closed-form maximum-likelihood
// estimates, each sd below a bound that a fit ignoring the data would
// exceed (the asymptotic sds are √(μ³/(λn)) = 0.023 and λ√(2/n) = 0.18);
// rt_rep's draws are positive with the sum and spread that each draw's mu
// and lambda give (mean μ, variance μ³/λ); log_lik is the density's log at
// each point; and gpp fit --prior draws the replicate from the prior.
func TestWaldCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const n, mu, lambda = 400, 0.8, 2.5
	rng := rand.New(rand.NewPCG(2026, 30))
	var b strings.Builder
	b.WriteString("rt\n")
	rt := make([]float64, n)
	for i := range rt {
		rt[i] = dist.Wald{Mu: mu, Lambda: lambda}.Rand(rng)
		fmt.Fprintf(&b, "%.17g\n", rt[i])
	}
	dir := t.TempDir()
	data := writeFile(t, dir, "rt.csv", b.String())
	model := writeFile(t, dir, "wald.gpp", waldModel)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runSafe(t, "fit", model, data, "--seed", "1", "--out", out); code != 0 {
		t.Fatalf("fit: exit %d\n%s", code, stderr)
	}
	// The maximum-likelihood estimates in closed form: μ̂ = mean(rt),
	// λ̂ = n/Σ(1/rt − 1/μ̂).
	var s1, si float64
	for _, v := range rt {
		s1 += v
		si += 1 / v
	}
	muHat := s1 / n
	lamHat := n / (si - n/muHat)
	rows := summaryRows(t, out)
	for _, c := range []struct {
		name             string
		truth, mle, maxS float64
	}{{"mu", mu, muHat, 0.05}, {"lambda", lambda, lamHat, 0.4}} {
		if m, s := checkRecovers(t, rows, c.name, c.truth, c.maxS, waldFitSDs); !(math.Abs(m-c.mle) <= waldMLESDs*s) {
			t.Errorf("%s: q mean %.4g sd %.3g, MLE %.4g", c.name, m, s, c.mle)
		}
	}
	draws := readDrawsCSV(t, filepath.Join(out, "draws.csv"))[1:] // q's mean first
	var sum, es, vs float64
	for _, d := range draws {
		m, l := d["mu"], d["lambda"]
		es += n * m
		vs += n * m * m * m / l
		for i := 1; i <= n; i++ {
			v, ok := d[fmt.Sprintf("rt_rep.%d", i)]
			if !ok || !(v > 0) || math.IsInf(v, 0) {
				t.Fatalf("rt_rep.%d = %v (present %v)", i, v, ok)
			}
			sum += v
			ll := d[fmt.Sprintf("log_lik.%d", i)]
			if want := (dist.Wald{Mu: m, Lambda: l}).LogProb(rt[i-1]); math.Abs(ll-want) > waldCSVTol*math.Max(1, math.Abs(want)) {
				t.Fatalf("log_lik.%d = %.12g, Wald(%g, %g) at %g is %.12g", i, ll, m, l, rt[i-1], want)
			}
		}
	}
	if len(draws) == 0 {
		t.Fatal("no draws")
	}
	if z := (sum - es) / math.Sqrt(vs); math.Abs(z) > 5 {
		t.Errorf("rt_rep: sum %g, expected %.1f (z = %.1f)", sum, es, z)
	}

	prior := filepath.Join(dir, "prior")
	if code, _, stderr := runSafe(t, "fit", "--prior", model, data, "--seed", "2", "--quiet", "--output-draws", "50", "--out", prior); code != 0 {
		t.Fatalf("fit --prior: exit %d\n%s", code, stderr)
	}
	for _, d := range readDrawsCSV(t, filepath.Join(prior, "draws.csv")) {
		if v := d["rt_rep.1"]; !(v > 0) {
			t.Fatalf("prior rt_rep.1 = %v", v)
		}
	}
}

package pipeline_test

import (
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// dirmultPosterior is the posterior mean and sd of p and kappa in
// testdata/dirmult.gpp, the hierarchical Dirichlet-multinomial, from
// TestDirMultReference (-dirmult-reference): random-walk Metropolis on the
// model with theta integrated out, an independent computation.
var dirmultPosterior = map[string]refRow{
	"p[1]": {0.4797, 0.0297}, "p[2]": {0.3071, 0.0272}, "p[3]": {0.2132, 0.0240}, "kappa": {14.4672, 3.8817},
}

// TestDirMult fits the hierarchy, theta: simplex[J, K] ~ Dirichlet(kappa * p)
// with a simplex param p (which the checker accepts because p's entries are
// positive), with its default mean-field factors, and compares p and kappa
// with the posterior: p's means within 0.2 posterior sd and sds within
// 25 %; kappa's mean within 0.5 sd and its sd at least half the
// posterior's (a mean-field q, with theta's factors apart from kappa's,
// is too narrow in the concentration: 0.64 of the posterior sd here).
// A wrong alpha (p's entries or kappa misplaced) moves p or kappa by
// several sds.
func TestDirMult(t *testing.T) {
	got := fitSummary(t, "testdata/dirmult.gpp", []string{"testdata/dirmult.json"}, sgvb.Settings{Seed: 1})
	for _, p := range []string{"p[1]", "p[2]", "p[3]", "kappa"} {
		q, r := got[p], dirmultPosterior[p]
		t.Logf("%s: q %.4f ± %.4f, posterior %.4f ± %.4f", p, q.mean, q.sd, r.mean, r.sd)
		meanTol, sdLo, sdHi := 0.2, 0.75, 1.25
		if p == "kappa" {
			meanTol, sdLo, sdHi = 0.5, 0.5, 1.1
		}
		if math.Abs(q.mean-r.mean) > meanTol*r.sd {
			t.Errorf("%s: q mean %.4f, posterior %.4f ± %.4f", p, q.mean, r.mean, r.sd)
		}
		if q.sd < sdLo*r.sd || q.sd > sdHi*r.sd {
			t.Errorf("%s: q sd %.4f, posterior sd %.4f", p, q.sd, r.sd)
		}
	}
}

var dirmultReference = flag.Bool("dirmult-reference", false, "compute dirmultPosterior (a few seconds)")

// dirmultCounts reads testdata/dirmult.json's counts y [J, K].
func dirmultCounts(t *testing.T) [][]float64 {
	t.Helper()
	b, err := os.ReadFile("testdata/dirmult.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct{ Y [][]float64 }
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d.Y
}

// TestDirMultReference prints dirmultPosterior: componentwise random-walk
// Metropolis, 200 000 sweeps after 20 000 of burn-in, on the log posterior
// of (p, kappa) with each group's theta integrated out (the
// Dirichlet-multinomial likelihood Γ(κ)/Γ(κ+n_j) Π_k Γ(κp_k+y_jk)/Γ(κp_k)),
// p from its additive log-ratios u (p = softmax(0, u), Jacobian Π_k p_k;
// the flat Dirichlet(1) prior is a constant) and kappa on the log scale
// (Gamma(2, 0.1) and the Jacobian: 2 log κ − 0.1 κ).
func TestDirMultReference(t *testing.T) {
	if !*dirmultReference {
		t.Skip("-dirmult-reference computes the reference posterior")
	}
	y := dirmultCounts(t)
	k := len(y[0])
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	probs := func(x []float64, p []float64) {
		p[0] = 1
		s := 1.0
		for i := 1; i < k; i++ {
			p[i] = math.Exp(x[i-1])
			s += p[i]
		}
		for i := range p {
			p[i] /= s
		}
	}
	p := make([]float64, k)
	lpost := func(x []float64) float64 {
		probs(x, p)
		lk := x[k-1]
		kappa := math.Exp(lk)
		lp := 2*lk - 0.1*kappa
		for _, pi := range p {
			lp += math.Log(pi)
		}
		for _, row := range y {
			n := 0.0
			for i, c := range row {
				a := kappa * p[i]
				lp += lg(a+c) - lg(a)
				n += c
			}
			lp += lg(kappa) - lg(kappa+n)
		}
		return lp
	}
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, k) // u_1..u_{K-1}, log kappa
	x[k-1] = math.Log(10)
	step := []float64{0.15, 0.15, 0.4}
	lp := lpost(x)
	sum, sum2 := make([]float64, k+1), make([]float64, k+1)
	const burn, sweeps = 20000, 200000
	for it := 0; it < burn+sweeps; it++ {
		for j := range x {
			old := x[j]
			x[j] += step[j] * rng.NormFloat64()
			if l := lpost(x); math.Log(rng.Float64()) < l-lp {
				lp = l
			} else {
				x[j] = old
			}
		}
		if it >= burn {
			probs(x, p)
			for i, v := range append(p[:k:k], math.Exp(x[k-1])) {
				sum[i] += v
				sum2[i] += v * v
			}
		}
	}
	for i, name := range []string{"p[1]", "p[2]", "p[3]", "kappa"} {
		m := sum[i] / sweeps
		t.Logf("%q: {%.4f, %.4f},", name, m, math.Sqrt(sum2[i]/sweeps-m*m))
	}
}

package pipeline_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// horseshoeModel is the regularised horseshoe of Piironen and Vehtari
// (2017), non-centred, for a sparse linear regression: global scale tau
// with the paper's prior scale p0/(P − p0)·sigma/√N (a scale from the data
// times a param: the compiler checks tau0 > 0), local scales lambda, and a
// slab of width about slab_scale that regularises the large coefficients.
const horseshoeModel = `data y: real[N]
data X: real[N, P]
const p0 = 2
const slab_scale = 2
const slab_df = 4
let tau0 = p0 / (P - p0) / sqrt(N)
param alpha: real ~ Normal(0, 5)
param sigma: positive ~ HalfNormal(2)
param z: real[P] ~ Normal(0, 1)
param lambda: positive[P] ~ HalfCauchy(1)
param tau: positive ~ HalfCauchy(tau0 * sigma)
param c2: positive ~ InvGamma(0.5 * slab_df, 0.5 * slab_df * slab_scale ^ 2)
let lambda_t = sqrt(c2 * square(lambda) / (c2 + square(tau) * square(lambda)))
let beta = tau * lambda_t .* z
y ~ Normal(alpha + X * beta, sigma)
output beta
`

// horseshoeData simulates N = 50 rows of P = 10 standard-normal
// predictors, two of whose coefficients are not zero (3 and −2), with
// intercept 0.5 and noise sd 1, from one PCG stream.
func horseshoeData() ([]byte, [][]float64, []float64) {
	const n, p = 50, 10
	rng := rand.New(rand.NewPCG(2026, 17))
	var buf bytes.Buffer
	buf.WriteString("y")
	for j := range p {
		fmt.Fprintf(&buf, ",X.%d", j+1)
	}
	buf.WriteString("\n")
	xs, ys := make([][]float64, n), make([]float64, n)
	for i := range n {
		x := make([]float64, p)
		for j := range x {
			x[j] = math.Round(rng.NormFloat64()*1e5) / 1e5
		}
		ys[i] = math.Round((0.5+3*x[0]-2*x[1]+rng.NormFloat64())*1e5) / 1e5
		xs[i] = x
		fmt.Fprintf(&buf, "%.5f", ys[i])
		for _, v := range x {
			fmt.Fprintf(&buf, ",%.5f", v)
		}
		buf.WriteString("\n")
	}
	return buf.Bytes(), xs, ys
}

// TestHorseshoeReference fits horseshoeModel mean-field and with
// --fullrank all, and compares both with the posterior by adaptive
// Metropolis in the fit's coordinates (alpha, log sigma, z, log lambda,
// log tau, log c2; 1.2 million steps). The posterior is a funnel: tau and
// the lambdas scale the z's, and each coefficient is a product tau ·
// lambda_t · z, whose curved ridge no normal q in these coordinates
// follows. Measured (docs/inference.md, Sparse regression): both fits
// find the two large coefficients' means (within 0.15 posterior sd) but
// report sds a third too large (1.3–1.4 times the posterior's); the null
// coefficients' means are within 0.6 sd (over-shrunk), their sds right on
// average under mean-field (1.02) and 40 % too wide under full rank; tau,
// whose posterior is 0.18 ± 0.17 (a long right tail), is 0.09 ± 0.02
// under mean-field and 0.09 ± 0.06 under full rank. The test requires
// those means, the large coefficients' sds within [0.8, 1.6] of the
// posterior's and tau's full-rank sd at least twice the mean-field one.
func TestHorseshoeReference(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model twice and runs a long Metropolis reference")
	}
	const n, p = 50, 10
	dat, xs, ys := horseshoeData()
	tau0 := 2.0 / 8 / math.Sqrt(n)
	// coordinates: 0 alpha, 1 log sigma, 2..11 z, 12..21 log lambda,
	// 22 log tau, 23 log c2
	beta := func(u []float64, b []float64) {
		tau, c2 := math.Exp(u[22]), math.Exp(u[23])
		for j := range p {
			l := math.Exp(u[12+j])
			lt := math.Sqrt(c2 * l * l / (c2 + tau*tau*l*l))
			b[j] = tau * lt * u[2+j]
		}
	}
	b := make([]float64, p)
	logp := func(u []float64) float64 {
		sigma, tau, c2 := math.Exp(u[1]), math.Exp(u[22]), math.Exp(u[23])
		l := -u[0]*u[0]/50 - sigma*sigma/8 + u[1] // Normal(0, 5); HalfNormal(2) and its Jacobian
		for j := range p {
			lam := math.Exp(u[12+j])
			l += -u[2+j]*u[2+j]/2 - math.Log1p(lam*lam) + u[12+j] // Normal(0, 1); HalfCauchy(1), Jacobian
		}
		s := tau0 * sigma // HalfCauchy(tau0 sigma): its scale depends on sigma
		l += -math.Log(s) - math.Log1p(tau*tau/(s*s)) + u[22]
		l += -3*u[23] - 4/c2 + u[23] // InvGamma(2, 4): c2^(−3) e^(−4/c2), Jacobian
		beta(u, b)
		ss := 0.0
		for i, x := range xs {
			r := ys[i] - u[0]
			for j, v := range x {
				r -= v * b[j]
			}
			ss += r * r
		}
		return l - float64(n)*u[1] - ss/(2*sigma*sigma)
	}
	f := func(u []float64) []float64 {
		beta(u, b)
		return append([]float64{u[0], math.Exp(u[1]), math.Exp(u[22])}, b...)
	}
	x0 := make([]float64, 24)
	x0[2], x0[3], x0[22] = 10, -7, math.Log(0.1)
	mean, sd := adaptiveMetropolis(logp, x0, f, 1200000, 3)
	names := []string{"alpha", "sigma", "tau"}
	for j := range p {
		names = append(names, fmt.Sprintf("beta[%d]", j+1))
	}
	mf := fitSource(t, horseshoeModel, "hs.csv", dat, sgvb.Settings{Seed: 1})
	fr := fitSource(t, horseshoeModel, "hs.csv", dat, sgvb.Settings{Seed: 1, FullRankGroups: [][]string{{"alpha", "c2", "lambda", "sigma", "tau", "z"}}})
	for i, name := range names {
		t.Logf("%-8s posterior %8.4f ± %.4f   mean-field %8.4f ± %.4f   full-rank %8.4f ± %.4f", name, mean[i], sd[i], mf[name].mean, mf[name].sd, fr[name].mean, fr[name].sd)
	}
	for _, q := range []struct {
		label string
		fit   map[string]refRow
	}{{"mean-field", mf}, {"full-rank", fr}} {
		// the two large coefficients: means right, sds a third too wide
		compareRef(t, q.label, q.fit, names[3:5], mean[3:5], sd[3:5], 0.3, 0.8, 1.6)
		// the null ones: means within 0.6 sd (they are shrunk towards 0)
		compareRef(t, q.label, q.fit, names[5:], mean[5:], sd[5:], 0.6, 0, math.Inf(1))
	}
	var rm, rf float64
	for i := 5; i < len(names); i++ {
		rm += mf[names[i]].sd / sd[i] / 8
		rf += fr[names[i]].sd / sd[i] / 8
	}
	t.Logf("null coefficients' sds against the posterior's, on average: mean-field %.2f, full-rank %.2f", rm, rf)
	if !(fr["tau"].sd >= 2*mf["tau"].sd) {
		t.Errorf("tau: full-rank sd %.4f, mean-field %.4f: want at least twice", fr["tau"].sd, mf["tau"].sd)
	}
}

package compile

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/autodiff"
)

// logpdf(value, D(args)) is the elementwise log density that value ~
// D(args) sums: the same log joint and gradient, whether the value is data
// (real, int, positive) or a latent, and whatever broadcasts.
func TestLogPDFSumIsTilde(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 1))
	y := &data.Array{Name: "y", Shape: []int{7}}
	counts := &data.Array{Name: "counts", Shape: []int{7}, Int: true}
	for i := 0; i < 7; i++ {
		y.Values = append(y.Values, 0.2+2*rng.Float64())
		counts.Values = append(counts.Values, float64(rng.IntN(6)))
	}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{"y": y, "counts": counts}}
	const decls = "data y: real[N]\ndata counts: int[N]\nparam mu: real[N]\nparam s: positive\nparam r: positive[3]\nparam z: real[2, 3]\n"
	for _, c := range []struct{ name, tilde, logpdf string }{
		{"normal/data", "y ~ Normal(mu, s)", "target += sum(logpdf(y, Normal(mu, s)))"},
		{"gamma/data", "y ~ Gamma(s, 2)", "target += sum(logpdf(y, Gamma(s, 2)))"},
		{"poisson/int data", "counts ~ Poisson(s)", "target += sum(logpdf(counts, Poisson(s)))"},
		{"studentt/latent value", "mu ~ StudentT(3, 0, s)", "target += sum(logpdf(mu, StudentT(3, 0, s)))"},
		{"laplace/data", "y ~ Laplace(mu, s)", "target += sum(logpdf(y, Laplace(mu, s)))"},
		{"laplace/latent value", "mu ~ Laplace(0, s)", "target += sum(logpdf(mu, Laplace(0, s)))"},
		{"weibull/data", "y ~ Weibull(s, r[0])", "target += sum(logpdf(y, Weibull(s, r[0])))"},
		{"normal/matrix latent, row args", "z ~ Normal(r', s)", "target += sum(logpdf(z, Normal(r', s)))"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := compileSrc(t, "a.gpp", decls+c.tilde+"\n", nil, in)
			b := compileSrc(t, "b.gpp", decls+c.logpdf+"\n", nil, in)
			x := make([]float64, a.Dim)
			ga, gb := make([]float64, a.Dim), make([]float64, b.Dim)
			for trial := 0; trial < 3; trial++ {
				for i := range x {
					x[i] = 0.5 * rng.NormFloat64()
				}
				la, err := a.LogJoint(x, ga)
				if err != nil {
					t.Fatal(err)
				}
				lb, err := b.LogJoint(x, gb)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(la-lb) > 1e-12*math.Max(1, math.Abs(la)) {
					t.Errorf("log joint %.17g with logpdf, %.17g with ~", lb, la)
				}
				for i := range ga {
					if math.Abs(ga[i]-gb[i]) > 1e-12*math.Max(1, math.Abs(ga[i])) {
						t.Errorf("d/dx[%d] (%s) = %.17g with logpdf, %.17g with ~", i, a.LatentOf(i), gb[i], ga[i])
					}
				}
			}
		})
	}
}

// A mixture's log-likelihood, rowlogsumexp(log w' + logpdf(y, Normal(mu',
// sigma'))), against Σ_i log Σ_k w_k N(y_i | mu_k, sigma_k) written out, and
// its gradient (with a Dirichlet-distributed simplex w) against finite
// differences.
func TestMixtureLogLikelihood(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	const n, k = 9, 3
	y := &data.Array{Name: "y", Shape: []int{n}}
	for i := 0; i < n; i++ {
		y.Values = append(y.Values, 3*rng.NormFloat64())
	}
	w := &data.Array{Name: "w", Shape: []int{k}, Values: []float64{0.5, 0.3, 0.2}}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{"y": y, "w": w}}
	m := compileSrc(t, "mix.gpp", `data y: real[N]
data w: real[K]
param mu: real[K]
param sigma: positive[K]
target += sum(rowlogsumexp(log(w)' + logpdf(y, Normal(mu', sigma'))))
`, nil, in)
	x := make([]float64, m.Dim)
	fillNormal(x, rng, 0, 1)
	got, err := m.LogJoint(x, make([]float64, m.Dim))
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for _, v := range y.Values {
		p := 0.0
		for j := 0; j < k; j++ {
			mu, sigma := x[j], math.Exp(x[k+j]) // sigma's coordinate is log sigma
			z := (v - mu) / sigma
			p += w.Values[j] * math.Exp(-z*z/2) / (sigma * math.Sqrt(2*math.Pi))
		}
		want += math.Log(p)
	}
	if math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("mixture log-likelihood %.17g, written out %.17g", got, want)
	}

	prior := compileSrc(t, "mixprior.gpp", `data y: real[N]
const K = 3
param w: simplex[K] ~ Dirichlet(2)
param mu: real[K] ~ Normal(0, 5)
param sigma: positive[K] ~ Gamma(2, 1)
target += sum(rowlogsumexp(log(w)' + logpdf(y, Normal(mu', sigma'))))
`, nil, data.Input{File: "d.json", JSON: map[string]*data.Array{"y": y}})
	checkGradient(t, prior, 13, 0.5)
}

// A value outside the support stops the evaluation at the logpdf with the
// element and the reason, as it does at a ~.
func TestLogPDFOutsideSupport(t *testing.T) {
	y := &data.Array{Name: "y", Shape: []int{3}, Values: []float64{1.5, -0.5, 2}}
	m := compileSrc(t, "m.gpp", "data y: real[N]\nparam s: positive\ntarget += sum(logpdf(y, Gamma(2, s)))\n", nil,
		data.Input{File: "d.json", JSON: map[string]*data.Array{"y": y}})
	_, err := m.LogJoint([]float64{0}, make([]float64, 1))
	want := "m.gpp:3:15: log density is -Inf: value -0.5 outside the support of Gamma (element [1]); " + autodiff.DataValueNote // for any s
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

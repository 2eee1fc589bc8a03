package pipeline_test

import (
	"context"
	"flag"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// svModel is the stochastic-volatility model of Stan's User's Guide
// (section "Stochastic volatility models"), non-centred, its AR(1) log
// volatility h from ar_filter: h[0] − mu has the stationary sd
// sigma / sqrt(1 − phi²), then h[t] − mu = phi (h[t−1] − mu) + sigma z[t].
const svModel = `data y: real[T]
param mu: real ~ Normal(0, 10)
param phi: real<lower=-1, upper=1> ~ Uniform(-1, 1)
param sigma: positive ~ HalfNormal(1)
param z: real[T] ~ Normal(0, 1)
let h = mu + ar_filter(phi, sigma * append_row(z[0] / sqrt(1 - phi * phi), z[1:]))
y ~ Normal(0, exp(h / 2))
`

// The series of TestStochasticVolatility: svSim(svN, svMu, svPhi, svSigma, 1).
const svN, svMu, svPhi, svSigma = 300, -1.0, 0.95, 0.25

// svSim simulates n observations of svModel's process from one PCG
// stream seeded (seed, 13).
func svSim(n int, mu, phi, sigma float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 13))
	y := make([]float64, n)
	h := mu + sigma/math.Sqrt(1-phi*phi)*rng.NormFloat64()
	for t := range y {
		if t > 0 {
			h = mu + phi*(h-mu) + sigma*rng.NormFloat64()
		}
		y[t] = math.Exp(h/2) * rng.NormFloat64()
	}
	return y
}

// svPosterior is the posterior mean and sd of mu, phi and sigma given
// svSim's series, from TestSVReference (-sv-reference): an independent
// computation, by random-walk Metropolis over the three with h integrated
// out by a grid filter.
var svPosterior = [3]struct{ mean, sd float64 }{{-1.112, 0.301}, {0.905, 0.044}, {0.401, 0.091}}

// TestStochasticVolatility fits svModel to the 300 observations of svSim
// (mu = −1, phi = 0.95, sigma = 0.25) by mean-field SGVB and compares q
// with the posterior (svPosterior). Mean-field q is narrower than the
// posterior (it drops the strong correlations of phi, sigma and the z's),
// and here it puts phi about 2 posterior sds low, sigma a little low;
// so each q mean must be within 2.5 posterior sds of the posterior mean.
// That rules out the fits a wrong gradient or a stuck optimiser give (phi
// near 0 with a flat h, sigma at its floor); the truth is within 2 sds of
// the posterior mean too.
func TestStochasticVolatility(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	l, err := pipeline.ParseSource("sv.gpp", []byte(svModel), nil)
	if err != nil {
		t.Fatal(err)
	}
	y := svSim(svN, svMu, svPhi, svSigma, 1)
	in := data.Input{File: "sv.json", JSON: map[string]*data.Array{"y": {Name: "y", Shape: []int{svN}, Values: y}}}
	if err := l.Bind([]data.Input{in}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), sgvb.Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d iterations, converged %v, ELBO %.3f ± %.3f", res.Iterations, res.Converged, res.ELBO, res.ELBOSE)
	if !res.Converged {
		t.Errorf("not converged in %d iterations", res.Iterations)
	}
	for i, c := range []struct {
		name  string
		truth float64
	}{{"mu", svMu}, {"phi", svPhi}, {"sigma", svSigma}} {
		f, post := res.Factor(c.name), svPosterior[i]
		m, s := f.Mean()[0], f.SD()[0]
		t.Logf("%s: q mean %.4f sd %.4f; posterior %.3f sd %.3f; truth %g", c.name, m, s, post.mean, post.sd, c.truth)
		if !(math.Abs(m-post.mean) <= 2.5*post.sd) {
			t.Errorf("%s: q mean %.4f sd %.4f, posterior mean %.3f sd %.3f", c.name, m, s, post.mean, post.sd)
		}
		if !(math.Abs(c.truth-post.mean) <= 2*post.sd) {
			t.Errorf("%s: the truth %g is not within 2 sds of the posterior mean %.3f (sd %.3f)", c.name, c.truth, post.mean, post.sd)
		}
	}
}

var svReference = flag.Bool("sv-reference", false, "compute svPosterior (minutes: 390 s on a loaded machine)")

// TestSVReference computes svPosterior with -sv-reference: random-walk
// Metropolis on (mu, atanh(phi), log sigma) with svModel's priors and the
// likelihood of y with h integrated out by a forward filter on a grid of
// h values (svGrid points over mu ± 6 stationary sds, the transition
// density's rows normalised on the grid), 2000 steps of burn-in and 20000
// kept. It logs the posterior means and sds to copy into svPosterior.
func TestSVReference(t *testing.T) {
	if !*svReference {
		t.Skip("-sv-reference computes the reference posterior")
	}
	y := svSim(svN, svMu, svPhi, svSigma, 1)
	logPost := func(th [3]float64) float64 {
		mu, phi, sigma := th[0], math.Tanh(th[1]), math.Exp(th[2])
		lp := -0.5 * mu * mu / 100     // Normal(0, 10)
		lp += math.Log(1 - phi*phi)    // Uniform(−1, 1), times dphi/du
		lp += -0.5*sigma*sigma + th[2] // HalfNormal(1), times dsigma/dv
		return lp + svGridLogLik(y, mu, phi, sigma)
	}
	rng := rand.New(rand.NewPCG(99, 1))
	th := [3]float64{svMu, math.Atanh(0.9), math.Log(svSigma)}
	lp := logPost(th)
	step := [3]float64{0.15, 0.25, 0.2}
	var sum, sum2 [3]float64
	const burn, keep = 2000, 20000
	acc := 0
	for it := 0; it < burn+keep; it++ {
		p := th
		for k := range p {
			p[k] += step[k] * rng.NormFloat64()
		}
		if lq := logPost(p); math.Log(rng.Float64()) < lq-lp {
			th, lp = p, lq
			acc++
		}
		if it >= burn {
			v := [3]float64{th[0], math.Tanh(th[1]), math.Exp(th[2])}
			for k := range v {
				sum[k] += v[k]
				sum2[k] += v[k] * v[k]
			}
		}
	}
	for k, name := range []string{"mu", "phi", "sigma"} {
		m := sum[k] / keep
		t.Logf("%s: posterior mean %.3f sd %.3f", name, m, math.Sqrt(sum2[k]/keep-m*m))
	}
	t.Logf("acceptance %.2f", float64(acc)/(burn+keep))
}

const svGrid = 150

// svGridLogLik is log p(y | mu, phi, sigma) of the SV model with h
// integrated out by a forward filter on a grid of svGrid values of h.
func svGridLogLik(y []float64, mu, phi, sigma float64) float64 {
	sd := sigma / math.Sqrt(1-phi*phi)
	lo, dh := mu-6*sd, 12*sd/(svGrid-1)
	hs := make([]float64, svGrid)
	for i := range hs {
		hs[i] = lo + float64(i)*dh
	}
	k := make([]float64, svGrid*svGrid) // transition probabilities, rows normalised
	for i, hi := range hs {
		row, m, s := k[i*svGrid:(i+1)*svGrid], mu+phi*(hi-mu), 0.0
		for j, hj := range hs {
			d := (hj - m) / sigma
			row[j] = math.Exp(-d * d / 2)
			s += row[j]
		}
		for j := range row {
			row[j] /= s
		}
	}
	a, b := make([]float64, svGrid), make([]float64, svGrid)
	for i, hi := range hs { // the stationary distribution of h[0]
		d := (hi - mu) / sd
		a[i] = math.Exp(-d * d / 2)
	}
	norm := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x
		}
		for i := range v {
			v[i] /= s
		}
		return s
	}
	norm(a)
	ll := 0.0
	for t, yt := range y {
		if t > 0 {
			clear(b)
			for i, ai := range a {
				for j, kij := range k[i*svGrid : (i+1)*svGrid] {
					b[j] += ai * kij
				}
			}
			a, b = b, a
		}
		for i, hi := range hs { // times N(y_t | 0, exp(h/2)), less its 1/√(2π)
			a[i] *= math.Exp(-hi/2 - yt*yt*math.Exp(-hi)/2)
		}
		ll += math.Log(norm(a)) - 0.5*math.Log(2*math.Pi)
	}
	return ll
}

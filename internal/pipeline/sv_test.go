package pipeline_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
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
	y, _ := svSimH(n, mu, phi, sigma, seed)
	return y
}

// svSimH is svSim, and returns the simulated log variances h too.
func svSimH(n int, mu, phi, sigma float64, seed uint64) (y, hs []float64) {
	rng := rand.New(rand.NewPCG(seed, 13))
	y, hs = make([]float64, n), make([]float64, n)
	h := mu + sigma/math.Sqrt(1-phi*phi)*rng.NormFloat64()
	for t := range y {
		if t > 0 {
			h = mu + phi*(h-mu) + sigma*rng.NormFloat64()
		}
		hs[t] = h
		y[t] = math.Exp(h/2) * rng.NormFloat64()
	}
	return y, hs
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

var (
	svReference       = flag.Bool("sv-reference", false, "compute svPosterior (minutes: 390 s on a loaded machine)")
	svReferenceSeries = flag.String("sv-reference-series", "A", "with -sv-reference: the series of svSweepSeries (A: svSim's, whose posterior is svPosterior)")
)

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
	ser := svSeries(t, *svReferenceSeries)
	y := svSim(ser.n, ser.mu, ser.phi, ser.sigma, ser.seed)
	logPost := func(th [3]float64) float64 {
		mu, phi, sigma := th[0], math.Tanh(th[1]), math.Exp(th[2])
		lp := -0.5 * mu * mu / 100     // Normal(0, 10)
		lp += math.Log(1 - phi*phi)    // Uniform(−1, 1), times dphi/du
		lp += -0.5*sigma*sigma + th[2] // HalfNormal(1), times dsigma/dv
		return lp + svGridLogLik(y, mu, phi, sigma)
	}
	rng := rand.New(rand.NewPCG(99, 1))
	th := [3]float64{ser.mu, math.Atanh(0.9), math.Log(ser.sigma)}
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

var updateSV = flag.Bool("update-sv", false, "rewrite examples/sv.csv from its generator")

const svCSV = "../../examples/sv.csv"

// svCSVData is examples/sv.csv: svSim's series (T = 300, mu = −1, phi =
// 0.95, sigma = 0.25, seed 1), y with 5 decimals.
func svCSVData() []byte {
	var b bytes.Buffer
	b.WriteString("y\n")
	for _, v := range svSim(svN, svMu, svPhi, svSigma, 1) {
		fmt.Fprintf(&b, "%.5f\n", v)
	}
	return b.Bytes()
}

// TestSVData checks that examples/sv.csv is what its generator writes
// (go test ./internal/pipeline -run SVData -update-sv rewrites it).
func TestSVData(t *testing.T) {
	checkGenerated(t, svCSV, svCSVData(), *updateSV, "update-sv")
}

// TestSVExample fits examples/sv.gpp to examples/sv.csv as
// examples/README.md does (--fullrank all --rank 2: mu, a, sigma and z in
// one low-rank-plus-diagonal factor, seed 1) and compares q with the
// posterior (svPosterior). The rank-2 factor's means are as biased as
// mean-field's (phi about 2 posterior sds low: TestSVSweep's table in
// docs/inference.md), so each mean must be within 2.5 posterior sds of
// the posterior mean, as in TestStochasticVolatility; what the joint
// factor adds is width, so the sds of phi and sigma must be at least 0.6
// of the posterior's (rank 2 gave 1.1–1.3 and 0.7–0.85 of them over seeds
// 1–5, the tanh form's mean-field fits 0.43–0.52 and 0.33–0.35). The log
// variances h must track the simulated ones about as well as the exact
// smoother that knows the parameters (svGridSmooth).
func TestSVExample(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	s := sgvb.Settings{Seed: 1, FullRankGroups: [][]string{{"mu", "a", "sigma", "z"}}, Rank: 2}
	got := fitSummary(t, "../../examples/sv.gpp", []string{svCSV}, s)
	for i, name := range []string{"mu", "phi", "sigma"} {
		r, post := got[name], svPosterior[i]
		t.Logf("%s: q mean %.3f sd %.3f; posterior %.3f sd %.3f", name, r.mean, r.sd, post.mean, post.sd)
		if !(math.Abs(r.mean-post.mean) <= 2.5*post.sd) {
			t.Errorf("%s: q mean %.3f, posterior mean %.3f sd %.3f", name, r.mean, post.mean, post.sd)
		}
		if name != "mu" && !(r.sd >= 0.6*post.sd) {
			t.Errorf("%s: q sd %.3f, below 0.6 of the posterior sd %.3f", name, r.sd, post.sd)
		}
	}
	// h against the simulated h and against the exact smoother's mean at
	// the true parameters (svGridSmooth), the best an estimate can do:
	// q's mean must be within 1.25 times the smoother's rms distance from
	// the simulated h (seed 1: 0.99 times), and within the smoother's rms
	// sd of h of its mean (seed 1: 0.48 of it)
	y, h := svSimH(svN, svMu, svPhi, svSigma, 1)
	sm, ssd := svGridSmooth(y, svMu, svPhi, svSigma)
	var fit, best, gap, width float64
	for i, hi := range h {
		m := got[fmt.Sprintf("h[%d]", i+1)].mean
		fit += (m - hi) * (m - hi)
		best += (sm[i] - hi) * (sm[i] - hi)
		gap += (m - sm[i]) * (m - sm[i])
		width += ssd[i] * ssd[i]
	}
	fit, best, gap, width = math.Sqrt(fit/svN), math.Sqrt(best/svN), math.Sqrt(gap/svN), math.Sqrt(width/svN)
	t.Logf("h: rms distance from the simulated h %.3f (the smoother's %.3f), from the smoother's mean %.3f (its rms sd %.3f)", fit, best, gap, width)
	if !(fit <= 1.25*best) {
		t.Errorf("h: rms distance %.3f from the simulated h, above 1.25 times the exact smoother's %.3f", fit, best)
	}
	if !(gap <= width) {
		t.Errorf("h: rms distance %.3f from the exact smoother's mean, above its rms sd %.3f", gap, width)
	}
}

// svGridSmooth returns the mean and sd of each h[t] given y under svModel
// with mu, phi and sigma known, by the grid of svGridLogLik: its forward
// filter, a backward pass over the same transition matrix, and their
// product normalised per t.
func svGridSmooth(y []float64, mu, phi, sigma float64) (mean, sd []float64) {
	n := len(y)
	s := sigma / math.Sqrt(1-phi*phi)
	lo, dh := mu-6*s, 12*s/(svGrid-1)
	hs := make([]float64, svGrid)
	for i := range hs {
		hs[i] = lo + float64(i)*dh
	}
	k := make([]float64, svGrid*svGrid)
	for i, hi := range hs {
		row, m, sum := k[i*svGrid:(i+1)*svGrid], mu+phi*(hi-mu), 0.0
		for j, hj := range hs {
			d := (hj - m) / sigma
			row[j] = math.Exp(-d * d / 2)
			sum += row[j]
		}
		for j := range row {
			row[j] /= sum
		}
	}
	norm := func(v []float64) {
		sum := 0.0
		for _, x := range v {
			sum += x
		}
		for i := range v {
			v[i] /= sum
		}
	}
	lik := func(t int, v []float64) {
		for i, hi := range hs {
			v[i] *= math.Exp(-hi/2 - y[t]*y[t]*math.Exp(-hi)/2)
		}
	}
	fwd := make([][]float64, n) // p(h[t] | y[0..t])
	for t := range n {
		a := make([]float64, svGrid)
		if t == 0 {
			for i, hi := range hs {
				d := (hi - mu) / s
				a[i] = math.Exp(-d * d / 2)
			}
		} else {
			for i, p := range fwd[t-1] {
				for j, kij := range k[i*svGrid : (i+1)*svGrid] {
					a[j] += p * kij
				}
			}
		}
		lik(t, a)
		norm(a)
		fwd[t] = a
	}
	mean, sd = make([]float64, n), make([]float64, n)
	beta := make([]float64, svGrid) // p(y[t+1..] | h[t]), up to a constant
	for i := range beta {
		beta[i] = 1
	}
	nb := make([]float64, svGrid)
	for t := n - 1; t >= 0; t-- {
		if t < n-1 {
			lb := append([]float64(nil), beta...)
			lik(t+1, lb)
			for i := range nb {
				nb[i] = 0
				for j, kij := range k[i*svGrid : (i+1)*svGrid] {
					nb[i] += kij * lb[j]
				}
			}
			copy(beta, nb)
			norm(beta)
		}
		p := make([]float64, svGrid)
		for i := range p {
			p[i] = fwd[t][i] * beta[i]
		}
		norm(p)
		m, m2 := 0.0, 0.0
		for i, hi := range hs {
			m += p[i] * hi
			m2 += p[i] * hi * hi
		}
		mean[t], sd[t] = m, math.Sqrt(max(m2-m*m, 0))
	}
	return mean, sd
}

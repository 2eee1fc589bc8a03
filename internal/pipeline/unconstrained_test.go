package pipeline_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"gonum.org/v1/gonum/diff/fd"
)

// everySupport has a param of every support sgvb.NewUnconstrained maps:
// real, positive, unit, the three kinds of bounds (and bounds per
// element), simplexes, ordered, positive_ordered, the four matrix
// supports and the two zero-sum ones, tied to each other by a likelihood
// so that no gradient is that of the prior alone.
const everySupport = `param mu: real ~ Normal(0, 1)
param s: positive ~ Gamma(2, 2)
param w: unit ~ Beta(2, 3)
param b2: real<lower=-1, upper=2> ~ Normal(0, 1)
param lo: real<lower=1> ~ Normal(1, 2)
param hi: real<upper=3> ~ Normal(2, 2)
param bv: real<lower=-5, upper=rep(5, 2)>[2] ~ Normal(0, 3)
param p: simplex[3] ~ Dirichlet([2, 3, 4])
param c: ordered[3] ~ Normal(0, 2)
param d: positive_ordered[2] ~ Gamma(2, 1)
param L: cholesky_factor_corr[3] ~ LKJCorrCholesky(2)
param Om: corr_matrix[2] ~ LKJCorr(1.5)
param C: cholesky_factor_cov[2] ~ WishartCholesky(4, diag([1, 1]))
param S: cov_matrix[2] ~ InvWishart(4, diag([1, 2]))
param z: sum_to_zero_vector[3] ~ Normal(0, 1)
let y = [0.3, -0.2, 1.1]
y ~ Normal(mu + s * w * b2 + lo - hi + bv[0] * p[0] + c[1] * d[0] + L[1, 0] + Om[0, 1] * C[1, 1] + S[0, 1] + z[0], 1 + s)
output r = L[2, 1]
`

// gradTol is the tolerance of a gradient against central differences,
// relative to 1 + |value|.
const gradTol = 1e-5

// unconstrained parses and binds the model src (which reads no data) and
// returns it with its unconstrained density.
func unconstrained(t *testing.T, name, src string) (*pipeline.Loaded, *sgvb.Unconstrained) {
	t.Helper()
	l, err := pipeline.ParseSource(name, []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Bind(nil, nil); err != nil {
		t.Fatal(err)
	}
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: l.Model}, pipeline.Latents(l.Model))
	if err != nil {
		t.Fatal(err)
	}
	return l, u
}

// TestUnconstrainedGradient checks the unconstrained density of a model
// with every support, Jacobians included, against finite differences at
// random points, that LogDensityAt gives its value bit for bit from the
// Target's log joint, and that neither allocates.
func TestUnconstrainedGradient(t *testing.T) {
	l, u := unconstrained(t, "every.gpp", everySupport)
	// p has 3 coordinates for the Target (log p) and 2 here
	if u.Dim() != l.Model.Dim-1 || u.TargetDim() != l.Model.Dim {
		t.Fatalf("Dim %d, TargetDim %d; want %d and %d", u.Dim(), u.TargetDim(), l.Model.Dim-1, l.Model.Dim)
	}
	f := func(x []float64) float64 {
		g := make([]float64, len(x))
		lp, err := u.LogDensity(x, g)
		if err != nil {
			t.Fatal(err)
		}
		return lp
	}
	rng := rand.New(rand.NewPCG(3, 3))
	x, g := make([]float64, u.Dim()), make([]float64, u.Dim())
	for range 5 {
		if err := u.Init(rng, x); err != nil {
			t.Fatal(err)
		}
		want := fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: 1e-5})
		lp, err := u.LogDensity(x, g)
		if err != nil {
			t.Fatal(err)
		}
		tx, tg := make([]float64, u.TargetDim()), make([]float64, u.TargetDim())
		u.Coords(x, tx)
		lj, err := pipeline.Target{M: l.Model}.LogJoint(tx, tg)
		if v := u.LogDensityAt(x, lj); v != lp || err != nil {
			t.Errorf("u = %v: LogDensityAt %v (log joint's error %v), LogDensity %v", x, v, err, lp)
		}
		for i := range want {
			if math.Abs(g[i]-want[i]) > gradTol*(1+math.Abs(want[i])) {
				t.Errorf("u = %v: ∂/∂u_%d = %.9g, finite differences %.9g", x, i, g[i], want[i])
			}
		}
	}
	if n := testing.AllocsPerRun(20, func() { u.LogDensity(x, g) }); n != 0 {
		t.Errorf("LogDensity: %v allocations per call, want 0", n)
	}
	if n := testing.AllocsPerRun(20, func() { u.LogDensityAt(x, 0) }); n != 0 {
		t.Errorf("LogDensityAt: %v allocations per call, want 0", n)
	}
	// a clone gives the same value from its own buffers
	c := u.Clone()
	g2 := make([]float64, len(g))
	a, _ := u.LogDensity(x, g)
	b, _ := c.LogDensity(x, g2)
	if a != b {
		t.Errorf("clone: log density %v, original %v", b, a)
	}
}

// TestUnconstrainedValues checks that Values of Coords puts every value
// inside its support and bounds, and that the seeded Init repeats.
func TestUnconstrainedValues(t *testing.T) {
	l, u := unconstrained(t, "every.gpp", everySupport)
	a, b := make([]float64, u.Dim()), make([]float64, u.Dim())
	u.Init(rand.New(rand.NewPCG(9, 1)), a)
	u.Init(rand.New(rand.NewPCG(9, 1)), b)
	for i := range a {
		if a[i] != b[i] || a[i] <= -2 || a[i] >= 2 {
			t.Fatalf("Init: %v then %v, want the same, each in (-2, 2)", a, b)
		}
	}
	x, z := make([]float64, u.TargetDim()), make([]float64, u.TargetDim())
	for i := range a {
		a[i] = 3 * float64(i%5-2) // far out on every coordinate
	}
	u.Coords(a, x)
	u.Values(z, x)
	at := func(name string) []float64 {
		for _, lat := range l.Model.Latents {
			if lat.Name == name {
				return z[lat.Offset : lat.Offset+lat.Size]
			}
		}
		t.Fatalf("no latent %s", name)
		return nil
	}
	check := func(name string, ok func(v []float64) bool) {
		if v := at(name); !ok(v) {
			t.Errorf("%s = %v: outside its support", name, v)
		}
	}
	check("s", func(v []float64) bool { return v[0] > 0 })
	check("w", func(v []float64) bool { return v[0] > 0 && v[0] < 1 })
	check("b2", func(v []float64) bool { return v[0] > -1 && v[0] < 2 })
	check("lo", func(v []float64) bool { return v[0] > 1 })
	check("hi", func(v []float64) bool { return v[0] < 3 })
	check("bv", func(v []float64) bool { return v[0] > -5 && v[0] < 5 && v[1] > -5 && v[1] < 5 })
	check("p", func(v []float64) bool { return math.Abs(v[0]+v[1]+v[2]-1) < 1e-12 && v[0] > 0 && v[1] > 0 && v[2] > 0 })
	check("c", func(v []float64) bool { return v[0] < v[1] && v[1] < v[2] })
	check("d", func(v []float64) bool { return 0 < v[0] && v[0] < v[1] })
}

// A check of one quantity of a model's posterior: its exact mean and
// variance (NaN: not checked).
type exactMoment struct {
	name      string
	f         func(z []float64, outs [][]float64) float64
	mean, vr  float64
	latent    string // the latent whose element el f reads (when f is nil)
	el        int
	outputIdx int // f reads output 0 when latent is ""
}

// mcseSigmas is how many Monte Carlo standard errors an estimate may be
// from the exact value: with some 20 estimates checked over all the
// conjugate tests, the chance that a correct sampler fails one is about
// 20 · 6e-5 ≈ 1e-3.
const mcseSigmas = 4

// sampleMoments runs NUTS (4 chains of 1000 draws after 1000 warm-up
// iterations) on model src and checks each quantity's mean, and its
// variance as the mean of (q − exact mean)², within mcseSigmas MCSE
// (nuts.MCSEMean of the draws and of the squared deviations).
func sampleMoments(t *testing.T, src string, checks []exactMoment) {
	t.Helper()
	l, u := unconstrained(t, "m.gpp", src)
	const chains = 4
	dens := make([]nuts.Density, chains)
	inits := make([][]float64, chains)
	for c := range chains {
		d := u.Clone()
		dens[c], inits[c] = d, make([]float64, u.Dim())
		if err := d.Init(rand.New(rand.NewPCG(11, uint64(c))), inits[c]); err != nil {
			t.Fatal(err)
		}
	}
	res, err := nuts.Sample(context.Background(), dens, inits, nuts.Settings{Chains: chains, Warmup: 1000, Draws: 1000, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := l.Model.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	x, z := make([]float64, u.TargetDim()), make([]float64, u.TargetDim())
	vals := make([][][]float64, len(checks)) // [check][chain][draw]
	for i := range vals {
		vals[i] = make([][]float64, chains)
	}
	for c, ch := range res.Chains {
		for d := range len(ch.LogP) {
			u.Coords(ch.Draws[d*res.Dim:(d+1)*res.Dim], x)
			u.Values(z, x)
			_, outs, _ := ev.Eval(x)
			for i, q := range checks {
				var v float64
				switch {
				case q.f != nil:
					v = q.f(z, outs)
				case q.latent != "":
					v = z[latentOffset(t, l, q.latent)+q.el]
				default:
					v = outs[q.outputIdx][q.el]
				}
				vals[i][c] = append(vals[i][c], v)
			}
		}
	}
	for i, q := range checks {
		m, se := pooledMean(vals[i]), nuts.MCSEMean(vals[i])
		t.Logf("%s: mean %.4f ± %.4f (exact %.4f)", q.name, m, se, q.mean)
		if !(math.Abs(m-q.mean) <= mcseSigmas*se) {
			t.Errorf("%s: posterior mean %.4f, exact %.4f: %.1f MCSE (%.4f) off, want at most %d", q.name, m, q.mean, math.Abs(m-q.mean)/se, se, mcseSigmas)
		}
		if math.IsNaN(q.vr) {
			continue
		}
		sq := make([][]float64, chains)
		for c, vs := range vals[i] {
			for _, v := range vs {
				sq[c] = append(sq[c], (v-q.mean)*(v-q.mean))
			}
		}
		vm, vse := pooledMean(sq), nuts.MCSEMean(sq)
		t.Logf("%s: variance %.4f ± %.4f (exact %.4f)", q.name, vm, vse, q.vr)
		if !(math.Abs(vm-q.vr) <= mcseSigmas*vse) {
			t.Errorf("%s: posterior variance %.4f, exact %.4f: %.1f MCSE (%.4f) off, want at most %d", q.name, vm, q.vr, math.Abs(vm-q.vr)/vse, vse, mcseSigmas)
		}
	}
}

func latentOffset(t *testing.T, l *pipeline.Loaded, name string) int {
	for _, lat := range l.Model.Latents {
		if lat.Name == name {
			return lat.Offset
		}
	}
	t.Fatalf("no latent %s", name)
	return 0
}

func pooledMean(chains [][]float64) float64 {
	s, n := 0.0, 0
	for _, c := range chains {
		for _, v := range c {
			s += v
			n++
		}
	}
	return s / float64(n)
}

// The conjugate tests need the real infer/nuts: they sample each support's
// transform and compare the posterior with its closed form, so that a
// missing or wrong Jacobian moves a mean or a variance by many MCSE.

// TestNUTSPositiveGammaPoisson: λ ~ Gamma(3, 2), 5 Poisson counts of sum 15:
// λ | y ~ Gamma(18, 7).
func TestNUTSPositiveGammaPoisson(t *testing.T) {
	sampleMoments(t, "param lam: positive ~ Gamma(3, 2)\nlet y = [2, 4, 1, 3, 5]\ny ~ Poisson(lam)\n",
		[]exactMoment{{name: "lam", latent: "lam", mean: 18.0 / 7, vr: 18.0 / 49}})
}

// TestNUTSUnitBetaBinomial: p ~ Beta(2, 3), 7 of 10: p | k ~ Beta(9, 6).
func TestNUTSUnitBetaBinomial(t *testing.T) {
	a, b := 9.0, 6.0
	sampleMoments(t, "param p: unit ~ Beta(2, 3)\nlet k = 7\nk ~ Binomial(10, p)\n",
		[]exactMoment{{name: "p", latent: "p", mean: a / (a + b), vr: a * b / ((a + b) * (a + b) * (a + b + 1))}})
}

// TestNUTSSimplexDirichletMultinomial: p ~ Dirichlet(1, 1, 1, 1) and 12
// categorical draws of counts (2, 6, 1, 3): p | y ~ Dirichlet(3, 7, 2, 4).
func TestNUTSSimplexDirichletMultinomial(t *testing.T) {
	alpha, a0 := []float64{3, 7, 2, 4}, 16.0
	var checks []exactMoment
	for i, a := range alpha {
		checks = append(checks, exactMoment{name: "p[" + string(rune('1'+i)) + "]", latent: "p", el: i,
			mean: a / a0, vr: a * (a0 - a) / (a0 * a0 * (a0 + 1))})
	}
	sampleMoments(t, categoricalModel, checks)
}

// TestNUTSOrdered: c: ordered[3] ~ Normal(0, 1) with no data is the order
// statistics of 3 standard normals: means ∓3/(2√π) and 0, E[c_3²] =
// 1 + √3/(2π), E[c_2²] = 1 − √3/π.
func TestNUTSOrdered(t *testing.T) {
	m3 := 3 / (2 * math.Sqrt(math.Pi))
	v3 := 1 + math.Sqrt(3)/(2*math.Pi) - m3*m3
	sampleMoments(t, "param c: ordered[3] ~ Normal(0, 1)\n", []exactMoment{
		{name: "c[0]", latent: "c", el: 0, mean: -m3, vr: v3},
		{name: "c[1]", latent: "c", el: 1, mean: 0, vr: 1 - math.Sqrt(3)/math.Pi},
		{name: "c[2]", latent: "c", el: 2, mean: m3, vr: v3},
	})
}

// TestNUTSPositiveOrdered: d: positive_ordered[2] ~ Exponential(1) is the
// order statistics of 2 standard exponentials: the minimum Exp(2) (mean
// 1/2, variance 1/4), the maximum of mean 3/2 and variance 5/4.
func TestNUTSPositiveOrdered(t *testing.T) {
	sampleMoments(t, "param d: positive_ordered[2] ~ Exponential(1)\n", []exactMoment{
		{name: "d[0]", latent: "d", el: 0, mean: 0.5, vr: 0.25},
		{name: "d[1]", latent: "d", el: 1, mean: 1.5, vr: 1.25},
	})
}

// TestNUTSBounded: normals truncated to (−1, 2), to (1, ∞) and to
// (−∞, 0.5) by the params' bounds (two bounds: a unit b scaled; one
// bound: a positive b shifted, or flipped), and per-element bounds.
func TestNUTSBounded(t *testing.T) {
	tn := func(a, b float64) (mean, vr float64) { // N(0, 1) truncated to (a, b)
		phi := func(x float64) float64 {
			if math.IsInf(x, 0) {
				return 0
			}
			return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
		}
		cdf := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
		xphi := func(x float64) float64 {
			if math.IsInf(x, 0) {
				return 0
			}
			return x * phi(x)
		}
		z := cdf(b) - cdf(a)
		mean = (phi(a) - phi(b)) / z
		return mean, 1 + (xphi(a)-xphi(b))/z - mean*mean
	}
	m1, v1 := tn(-1, 2)
	m2, v2 := tn(1, math.Inf(1))
	m3, v3 := tn(math.Inf(-1), 0.5)
	m4, v4 := tn(-0.5, 0.5)
	sampleMoments(t, "param a: real<lower=-1, upper=2> ~ Normal(0, 1)\nparam b: real<lower=1> ~ Normal(0, 1)\n"+
		"param c: real<upper=0.5> ~ Normal(0, 1)\nparam e: real<lower=[-1, -0.5], upper=[2, 0.5]>[2] ~ Normal(0, 1)\n", []exactMoment{
		{name: "a", latent: "a", mean: m1, vr: v1},
		{name: "b", latent: "b", mean: m2, vr: v2},
		{name: "c", latent: "c", mean: m3, vr: v3},
		{name: "e[0]", latent: "e", el: 0, mean: m1, vr: v1},
		{name: "e[1]", latent: "e", el: 1, mean: m4, vr: v4},
	})
}

// TestNUTSLKJ: with no data, the correlations of an LKJ(η) matrix of
// dimension d have (r + 1)/2 ~ Beta(η − 1 + d/2, η − 1 + d/2): for d = 3,
// η = 2, mean 0 and variance 4·ab/((a+b)²(a+b+1)) = 1/6 with a = b = 5/2.
// Both matrix supports whose Jacobian the compiled log joint holds.
func TestNUTSLKJ(t *testing.T) {
	for _, src := range []string{
		"param L: cholesky_factor_corr[3] ~ LKJCorrCholesky(2)\noutput r = (L * L')[2, 0]\n",
		"param O: corr_matrix[3] ~ LKJCorr(2)\noutput r = O[2, 0]\n",
	} {
		sampleMoments(t, src, []exactMoment{{name: "r", mean: 0, vr: 1.0 / 6}})
	}
}

// TestUnconstrainedNormalised checks that the unconstrained density of a
// prior alone integrates to 1 over u (Simpson's rule on a grid), for params
// of each kind of bound: bridge sampling's evidence is its integral, so a
// constant too many (a bounded latent's log |U − L| added twice: the
// Target's log joint already holds it) is an error in log p(y).
func TestUnconstrainedNormalised(t *testing.T) {
	const tol = 1e-6
	for _, src := range []string{
		"param b: real<lower=-1, upper=3> ~ Normal(0, 1)\n",
		"param b: real<lower=-2, upper=3> ~ Uniform(-2, 3)\n",
		"param b: real<lower=1> ~ Normal(0, 2)\n",
		"param b: real<upper=0.5> ~ Normal(0, 1)\n",
		"param b: real<lower=[-1, -0.5], upper=[2, 0.5]>[2] ~ Normal(0, 1)\n",
	} {
		_, u := unconstrained(t, "prior.gpp", src)
		grad := make([]float64, u.Dim())
		f := func(x []float64) float64 {
			lp, err := u.LogDensity(x, grad)
			if err != nil {
				t.Fatal(err)
			}
			return math.Exp(lp)
		}
		const lo, hi, n = -40.0, 40.0, 2000 // n even
		h := (hi - lo) / n
		w := func(i int) float64 { // Simpson's weights
			switch {
			case i == 0 || i == n:
				return h / 3
			case i%2 == 1:
				return 4 * h / 3
			}
			return 2 * h / 3
		}
		total := 0.0
		switch u.Dim() {
		case 1:
			for i := 0; i <= n; i++ {
				total += w(i) * f([]float64{lo + float64(i)*h})
			}
		case 2:
			for i := 0; i <= n; i++ {
				for j := 0; j <= n; j++ {
					total += w(i) * w(j) * f([]float64{lo + float64(i)*h, lo + float64(j)*h})
				}
			}
		default:
			t.Fatalf("%q: %d coordinates", src, u.Dim())
		}
		if math.Abs(total-1) > tol {
			t.Errorf("%q: the unconstrained density integrates to %.9g (log %.6g), want 1", src, total, math.Log(total))
		}
	}
}

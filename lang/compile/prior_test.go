package compile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// priorSE is how many standard errors a Monte Carlo moment of the prior
// draws may be from its exact value.
const priorSE = 4.5

// priorDraws draws n sets of params (values, row per draw) and the outputs
// at each, with the seed given.
func priorDraws(t *testing.T, m *Model, n int, seed uint64) (z, outs [][]float64) {
	t.Helper()
	ps, err := m.NewPriorSampler()
	if err != nil {
		t.Fatal(err)
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	ev.SetRand(rand.New(rand.NewPCG(seed, 2)))
	x := make([]float64, m.Dim)
	for range n {
		zs := make([]float64, m.Dim)
		if _, err := ps.Draw(rng, x, zs); err != nil {
			t.Fatal(err)
		}
		_, o, _ := ev.Eval(x)
		var row []float64
		for _, v := range o {
			row = append(row, v...)
		}
		z, outs = append(z, zs), append(outs, row)
	}
	return z, outs
}

// column returns column c of rows.
func column(rows [][]float64, c int) []float64 {
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = r[c]
	}
	return out
}

// checkMoments checks the mean and variance of xs against exact values,
// each within priorSE standard errors (the variance's from the sample's
// fourth central moment).
func checkMoments(t *testing.T, what string, xs []float64, mean, variance float64) {
	t.Helper()
	n := float64(len(xs))
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= n
	v, m4 := 0.0, 0.0
	for _, x := range xs {
		d := (x - m) * (x - m)
		v += d
		m4 += d * d
	}
	v /= n - 1
	m4 /= n
	if se := math.Sqrt(variance / n); math.Abs(m-mean) > priorSE*se {
		t.Errorf("%s: mean %.5g, want %.5g (SE %.3g)", what, m, mean, se)
	}
	if se := math.Sqrt((m4 - v*v) / n); math.Abs(v-variance) > priorSE*se {
		t.Errorf("%s: variance %.5g, want %.5g (SE %.3g)", what, v, variance, se)
	}
}

// The params come from their priors: a ~ on the whole param counts as its
// prior, a half-normal scale is positive with E[tau] = √(2/π), a Normal
// prior on a positive param is the half-normal (truncated, not folded
// onto the wrong mean), and the replicate y_rep ~ Normal(mu, tau) is a
// prior predictive draw with mean 1 and variance 4 + E[tau²] = 5. The
// likelihood (y ~ ...) is ignored and the log prior is the priors' sum.
func TestPriorDrawsMoments(t *testing.T) {
	y := &data.Array{Name: "y", Shape: []int{3}, Values: []float64{100, 101, 102}}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{"y": y}}
	src := `data y: real[N]
param mu: real
param tau: positive ~ HalfNormal(1)
param s: positive ~ Normal(0, 1)
mu ~ Normal(1, 2)
y ~ Normal(mu, tau)
output y_rep ~ Normal(mu, tau)
`
	m := compileSrc(t, "p.gpp", src, nil, in)
	const n = 20000
	z, outs := priorDraws(t, m, n, 7)
	checkMoments(t, "mu", column(z, 0), 1, 4)
	half := math.Sqrt(2 / math.Pi)
	for _, c := range []struct {
		name string
		col  int
	}{{"tau", 1}, {"s", 2}} {
		xs := column(z, c.col)
		for _, v := range xs {
			if !(v > 0) {
				t.Fatalf("%s = %g, not positive", c.name, v)
			}
		}
		checkMoments(t, c.name, xs, half, 1-2/math.Pi)
	}
	checkMoments(t, "y_rep", column(outs, 0), 1, 5)

	// the log prior at a draw: the densities of mu, tau and s (s's
	// normalised by its mass 1/2 on (0, ∞))
	ps, _ := m.NewPriorSampler()
	x, zs := make([]float64, m.Dim), make([]float64, m.Dim)
	lp, err := ps.Draw(rand.New(rand.NewPCG(1, 1)), x, zs)
	if err != nil {
		t.Fatal(err)
	}
	want := dist.Normal{Mu: 1, Sigma: 2}.LogProb(zs[0]) + dist.HalfNormal{Sigma: 1}.LogProb(zs[1]) +
		dist.Normal{Mu: 0, Sigma: 1}.LogProb(zs[2]) + math.Ln2
	if math.Abs(lp-want) > 1e-9 {
		t.Errorf("log prior %.12g, want %.12g", lp, want)
	}
	if math.Abs(math.Exp(x[1])-zs[1]) > 1e-12*zs[1] || x[0] != zs[0] {
		t.Errorf("coordinates %v do not match the values %v", x, zs)
	}
}

// truncNormalMoments returns the mean and variance of Normal(mu, sigma)
// truncated to (a, b).
func truncNormalMoments(mu, sigma, a, b float64) (mean, variance float64) {
	phi := func(x float64) float64 {
		if math.IsInf(x, 0) {
			return 0
		}
		return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
	}
	Phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	al, be := (a-mu)/sigma, (b-mu)/sigma
	z := Phi(be) - Phi(al)
	r := (phi(al) - phi(be)) / z
	tail := func(x float64) float64 {
		if math.IsInf(x, 0) {
			return 0
		}
		return x * phi(x)
	}
	return mu + sigma*r, sigma * sigma * (1 + (tail(al)-tail(be))/z - r*r)
}

// Bounded params are drawn from their priors truncated to the bounds, by
// rejection: inside the bounds, with the truncated normal's mean and
// variance, also where the bounds hold 2 % of the mass.
func TestPriorDrawsTruncated(t *testing.T) {
	src := `param p: real<lower=0, upper=1> ~ Normal(0.8, 0.5)
param q: real<lower=2> ~ Normal(0, 1)
param r: real<upper=-1> ~ Normal(0, 1)
`
	m := compileSrc(t, "t.gpp", src, nil)
	z, _ := priorDraws(t, m, 20000, 3)
	for _, c := range []struct {
		name   string
		col    int
		lo, hi float64
		mu     float64
	}{{"p", 0, 0, 1, 0.8}, {"q", 1, 2, math.Inf(1), 0}, {"r", 2, math.Inf(-1), -1, 0}} {
		xs := column(z, c.col)
		for _, v := range xs {
			if !(v > c.lo && v < c.hi) {
				t.Fatalf("%s = %g, outside (%g, %g)", c.name, v, c.lo, c.hi)
			}
		}
		mean, variance := truncNormalMoments(c.mu, 1, c.lo, c.hi)
		if c.name == "p" {
			mean, variance = truncNormalMoments(0.8, 0.5, 0, 1)
		}
		checkMoments(t, c.name, xs, mean, variance)
	}
	// the mean of Normal(0.8, 0.5) on (0, 1), well below 0.8, as a
	// midpoint rule of 200 000 cells gives it
	if mean, _ := truncNormalMoments(0.8, 0.5, 0, 1); math.Abs(mean-0.58576449676) > 1e-9 {
		t.Fatalf("truncated mean %.12g, want 0.585764496762", mean)
	}
}

// A hierarchical prior is drawn ancestrally: b's prior reads mu and tau
// (through a let), drawn first, so (b_j − mu)/tau is a standard normal
// independent of tau, and b_j has variance 25 + E[tau²] = 26. A ~ on a
// param declared before the params it reads is drawn after them.
func TestPriorDrawsHierarchical(t *testing.T) {
	src := `const J = 4
param b: real[J]
param mu: real ~ Normal(0, 5)
param tau: positive ~ HalfNormal(1)
let scale = tau
b ~ Normal(mu, scale)
param w: simplex[3] ~ Dirichlet([1, 2, 3])
param c: ordered[3] ~ Normal(0, 1)
param d: positive_ordered[2] ~ Normal(0, 1)
`
	m := compileSrc(t, "h.gpp", src, nil)
	z, _ := priorDraws(t, m, 20000, 11)
	for j := range 4 {
		std := make([]float64, len(z))
		for i, r := range z {
			std[i] = (r[j] - r[4]) / r[5]
		}
		checkMoments(t, "(b - mu)/tau", std, 0, 1)
		checkMoments(t, "b", column(z, j), 0, 26)
	}
	// the Dirichlet's means 1/6, 2/6, 3/6, variances a_k(a0 − a_k)/(a0²(a0 + 1))
	for k, a := range []float64{1, 2, 3} {
		checkMoments(t, "w", column(z, 6+k), a/6, a*(6-a)/(36*7))
	}
	// the smallest of 3 standard normals has mean −3/(2√π); every draw is increasing
	for i, r := range z {
		if !(r[9] < r[10] && r[10] < r[11]) || !(0 < r[12] && r[12] < r[13]) {
			t.Fatalf("draw %d: ordered %v, positive_ordered %v", i, r[9:12], r[12:14])
		}
	}
	xs := column(z, 9)
	mean := 0.0
	for _, v := range xs {
		mean += v / float64(len(xs))
	}
	if want := -3 / (2 * math.Sqrt(math.Pi)); math.Abs(mean-want) > 0.02 {
		t.Errorf("mean of the smallest of c: %g, want %g", mean, want)
	}
}

// A simplex[N, K] is drawn row by row: with alpha [K] every row is
// Dirichlet(alpha) (even where N = K, which a per-row argument would also
// fit), with a scalar Dirichlet(a, ..., a), with [N, K] its own row's,
// and every row sums to 1.
func TestPriorDrawsSimplexRows(t *testing.T) {
	src := `param th: simplex[3, 3] ~ Dirichlet([1, 2, 3])
param ph: simplex[2, 4] ~ Dirichlet(0.5)
param ps: simplex[2, 2] ~ Dirichlet(append_row([1, 1]', [4, 2]'))
`
	m := compileSrc(t, "s.gpp", src, nil)
	z, _ := priorDraws(t, m, 20000, 3)
	for r := range 3 {
		for k, a := range []float64{1, 2, 3} {
			checkMoments(t, "th", column(z, 3*r+k), a/6, a*(6-a)/(36*7))
		}
	}
	for k := range 8 { // Dirichlet(0.5 × 4): mean 1/4, variance 0.5·1.5/(2²·3)
		checkMoments(t, "ph", column(z, 9+k), 0.25, 0.5*1.5/(4*3))
	}
	checkMoments(t, "ps row 0", column(z, 17), 0.5, 1.0/12)
	checkMoments(t, "ps row 1", column(z, 19), 4.0/6, 4*2/(36*7.0))
	for i, r := range z {
		for _, row := range [][2]int{{0, 3}, {3, 6}, {6, 9}, {9, 13}, {13, 17}, {17, 19}, {19, 21}} {
			s := 0.0
			for _, v := range r[row[0]:row[1]] {
				s += v
			}
			if math.Abs(s-1) > 1e-12 {
				t.Fatalf("draw %d: row %v sums to %v", i, r[row[0]:row[1]], s)
			}
		}
	}
}

// Draws repeat for a seed and differ for another.
func TestPriorDrawsDeterministic(t *testing.T) {
	src := `param mu: real ~ Normal(0, 1)
param s: positive ~ Cauchy(0, 1)
output y ~ Normal(mu, s)
`
	m := compileSrc(t, "d.gpp", src, nil)
	a, ao := priorDraws(t, m, 50, 5)
	b, bo := priorDraws(t, m, 50, 5)
	c, _ := priorDraws(t, m, 50, 6)
	for i := range a {
		for k := range a[i] {
			if a[i][k] != b[i][k] || ao[i][0] != bo[i][0] {
				t.Fatalf("draw %d differs for the same seed", i)
			}
		}
	}
	if a[0][0] == c[0][0] {
		t.Error("another seed gives the same draw")
	}
}

// A param that cannot be drawn is an error at its declaration.
func TestPriorDrawsErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"param mu: real\ntarget += -mu * mu\n", "e.gpp:1:7: param `mu` cannot be drawn from its prior: it has none (a flat prior on the real line, improper"},
		{"param x: real[2]\nx[0] ~ Normal(0, 1)\nx[1] ~ Normal(0, 1)\n", "e.gpp:1:7: param `x` cannot be drawn from its prior: the ~ at e.gpp:2:1 has it on its left side in `x[0]`, not as the whole param"},
		{"param x: real ~ Normal(0, 1)\nx ~ Normal(1, 1)\n", "e.gpp:1:7: param `x` cannot be drawn from its prior: besides its declared prior, the ~ at e.gpp:2:1"},
		{"param p: real<lower=0, upper=1>\n", "e.gpp:1:7: param `p` cannot be drawn from its prior: it has none (a flat prior on (0, 1), uniform, which gpp draws only when it is stated); give it one, as in `param p: real<lower=0, upper=1> ~ Uniform(0, 1)`"},
		// A flat prior's suggestion is a prior the support takes: not
		// Normal(0, 1) on a simplex or a correlation matrix.
		{"param u: unit\n", "as in `param u: unit ~ Uniform(0, 1)`"},
		{"param m: real<lower=-5, upper=5>\n", "as in `param m: real<lower=-5, upper=5> ~ Uniform(-5, 5)`"},
		{"param s: simplex[3]\n", "it has none (a flat prior on the simplex values, uniform, which gpp draws only when it is stated); give it one, as in `param s: simplex[3] ~ Dirichlet(1)`"},
		{"param L: cholesky_factor_corr[3]\n", "it has none (a flat prior on the cholesky_factor_corr values, uniform, which gpp draws only when it is stated); give it one, as in `param L: cholesky_factor_corr[3] ~ LKJCorrCholesky(1)`"},
		{"param O: corr_matrix[3]\n", "as in `param O: corr_matrix[3] ~ LKJCorr(1)`"},
		// a covariance matrix without a prior: the error names one it takes
		{"param S: cov_matrix[2]\n", "e.gpp:1:7: param `S` cannot be drawn from its prior: it has none (a flat prior on the cov_matrix values, improper, which has no distribution to draw from); give it one, as in `param S: cov_matrix[2] ~ InvWishart(4, I(2))`"},
		{"const K = 3\nparam L: cholesky_factor_cov[K]\n", "e.gpp:2:7: param `L` cannot be drawn from its prior: it has none (a flat prior on the cholesky_factor_cov values, improper, which has no distribution to draw from); give it one, as in `param L: cholesky_factor_cov[K] ~ InvWishartCholesky(K + 2, I(K))`"},
		// a user density has no sampler, declared or in a ~
		{"fn n2_lpdf(y, m) = -(y - m) ^ 2\nparam mu: real ~ n2(0)\n", "e.gpp:2:7: param `mu` cannot be drawn from its prior: its prior n2(0) is a user density (the function n2_lpdf), which has no sampler"},
		{"fn n2_lpdf(y, m) = -(y - m) ^ 2\nparam mu: real\nmu ~ n2(1)\n", "e.gpp:2:7: param `mu` cannot be drawn from its prior: its prior n2(1) is a user density (the function n2_lpdf), which has no sampler"},
		{"param s: positive\n", "it has none (a flat prior on (0, ∞), improper, which has no distribution to draw from); give it one, as in `param s: positive ~ Normal(0, 1)`"},
	} {
		m := compileSrc(t, "e.gpp", c.src, nil)
		_, err := m.NewPriorSampler()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.src, err, c.want)
		}
	}
}

// TestPriorDrawsFarTruncation: a prior with too little mass on its param's
// values for rejection (Normal(0, 1) on x > 10, mass 7.6e−24) is drawn by
// inverting its log CDF, as truncated replicates are: every draw above 10,
// and its distribution that of the truncated Normal (KS).
func TestPriorDrawsFarTruncation(t *testing.T) {
	m := compileSrc(t, "e.gpp", "param x: real<lower=10> ~ Normal(0, 1)\n", nil)
	const n = 3000
	z, _ := priorDraws(t, m, n, 5)
	xs := column(z, 0)
	for _, v := range xs {
		if !(v > 10) {
			t.Fatalf("draw %g not above 10", v)
		}
	}
	if d := normalTruncKS(xs, 0, 1, 10, math.Inf(1)); d > truncRepKS(n) {
		t.Errorf("KS %.4f > %.4f", d, truncRepKS(n))
	}
}

// LKJ priors: under LKJ(eta) on a 3×3 correlation matrix every
// correlation is 2·Beta(eta + 1/2, eta + 1/2) − 1, mean 0 and variance
// 1/(2·eta + 2), whether it is an entry of L (Ω[1,0] = L[1,0]) or a
// product of L's rows (Ω[2,1]), which checks the partial correlations'
// shapes per column; a factor's rows have unit norm.
func TestPriorDrawsLKJ(t *testing.T) {
	src := `param L: cholesky_factor_corr[3] ~ LKJCorrCholesky(2)
param O: corr_matrix[3] ~ LKJCorr(0.5)
`
	m := compileSrc(t, "l.gpp", src, nil)
	z, _ := priorDraws(t, m, 20000, 9)
	var om [3][]float64 // L's Ω[1,0], Ω[2,0], Ω[2,1]
	var o21 []float64
	Lv, Ov := make([]float64, 9), make([]float64, 9)
	scratch := make([]float64, 9)
	for _, r := range z {
		dist.MatrixValues(dist.CholCorr, Lv, nil, r[0:3], 3)
		dist.MatrixValues(dist.CorrMatrix, Ov, scratch, r[3:6], 3)
		for i := range 3 {
			norm := 0.0
			for j := range 3 {
				norm += Lv[3*i+j] * Lv[3*i+j]
			}
			if math.Abs(norm-1) > 1e-12 {
				t.Fatalf("row %d of L has norm² %v", i, norm)
			}
		}
		om[0] = append(om[0], Lv[3])
		om[1] = append(om[1], Lv[6])
		om[2] = append(om[2], Lv[6]*Lv[3]+Lv[7]*Lv[4])
		o21 = append(o21, Ov[7])
	}
	for _, c := range om {
		checkMoments(t, "L's correlation", c, 0, 1/(2*2.0+2))
	}
	checkMoments(t, "O[2,1]", o21, 0, 1/(2*0.5+2))
}

// A Gamma prior of a tiny shape, such as GPFA's loadings W ~ Gamma(g·r',
// g) with r ~ Gamma(g0/K, c0), draws mostly below the smallest double: the
// coordinate log W is drawn in log space and stays finite, with
// E[log W] = ψ(a) − log b; InvGamma and LogNormal likewise.
func TestPriorDrawsLogScale(t *testing.T) {
	src := `param w: positive ~ Gamma(1e-3, 2)
param v: positive ~ InvGamma(6, 2)
param u: positive ~ LogNormal(1, 0.5)
`
	m := compileSrc(t, "g.gpp", src, nil)
	ps, err := m.NewPriorSampler()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	const n = 20000
	var lw, v, lu []float64
	x, z := make([]float64, 3), make([]float64, 3)
	zeros := 0
	for range n {
		if _, err := ps.Draw(rng, x, z); err != nil {
			t.Fatal(err)
		}
		if math.IsInf(x[0], 0) || math.IsNaN(x[0]) {
			t.Fatalf("log w = %v", x[0])
		}
		if z[0] == 0 {
			zeros++
		}
		lw, v, lu = append(lw, x[0]), append(v, z[1]), append(lu, x[2])
	}
	if zeros < n/4 {
		t.Errorf("%d of %d draws of w underflow, want about half (the test needs them)", zeros, n)
	}
	// log of Gamma(a, b): mean ψ(a) − log b, variance ψ'(a) ≈ 1/a² + π²/6 for small a
	a := 1e-3
	checkMoments(t, "log w", lw, digamma(a)-math.Log(2), 1/(a*a)+math.Pi*math.Pi/6)
	checkMoments(t, "v", v, 2.0/5, 4.0/(25*4)) // mean b/(a − 1), variance b²/((a − 1)²(a − 2))
	checkMoments(t, "log u", lu, 1, 0.25)
}

// digamma is ψ(x) for small x > 0 by the recurrence and the asymptotic series.
func digamma(x float64) float64 {
	r := 0.0
	for x < 6 {
		r -= 1 / x
		x++
	}
	f := 1 / (x * x)
	return r + math.Log(x) - 0.5/x - f*(1.0/12-f*(1.0/120-f*(1.0/252-f/240)))
}

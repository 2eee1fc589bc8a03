package autodiff

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// hmmPathProbs returns the posterior probability of every state path of
// a small HMM by enumeration, rho[s0]·ω_0[s0]·Π Γ[s_{t−1}, s_t]·ω_t[s_t]
// normalised, paths numbered with s_0 the most significant digit.
func hmmPathProbs(lo, gamma, rho []float64, n, k int) []float64 {
	paths := 1
	for range n {
		paths *= k
	}
	p := make([]float64, paths) // log probabilities, then probabilities
	s := make([]int, n)
	for id := range p {
		r := id
		for t := n - 1; t >= 0; t-- {
			s[t], r = r%k, r/k
		}
		lp := math.Log(rho[s[0]]) + lo[s[0]]
		for t := 1; t < n; t++ {
			lp += math.Log(gamma[s[t-1]*k+s[t]]) + lo[t*k+s[t]]
		}
		p[id] = lp
	}
	m := math.Inf(-1)
	for _, lp := range p {
		m = max(m, lp)
	}
	tot := 0.0
	for i, lp := range p {
		p[i] = math.Exp(lp - m) // the emissions of −1000 would underflow
		tot += p[i]
	}
	for i := range p {
		p[i] /= tot
	}
	return p
}

// Forward filtering, backward sampling draws whole paths with their
// posterior probabilities: the frequencies of all 81 paths of a 3-state
// chain over 4 observations, against enumeration, by Pearson's chi-square
// at emissions of −1000 (where unscaled probabilities underflow) and a
// transition of probability 0; a Forward that draws makes no allocation.
func TestRandHMMLatentPaths(t *testing.T) {
	const n, k = 4, 3
	lo := []float64{
		-1.2, -0.3, -2.0,
		-1000.5, -1000, -1001,
		-0.1, -3, -0.7,
		-2, -0.4, -0.4,
	}
	gamma := []float64{
		0.7, 0.2, 0.1,
		0.3, 0.5, 0.2,
		0, 0.4, 0.6,
	}
	rho := []float64{0.5, 0.3, 0.2}
	b := NewBuilder()
	x := b.Input("x", Scalar(), testPos)
	z := b.RandHMMLatent(b.Const(lo, Matrix(n, k), testPos), b.Const(gamma, Matrix(k, k), testPos), b.Const(rho, Vector(k), testPos), testPos)
	p, err := b.Finish(b.Mul(x, x, testPos), z)
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Shape(z); s != Vector(n) {
		t.Fatalf("shape %v, want [%d]", s, n)
	}
	p.SetRand(rand.New(rand.NewPCG(3, 5)))
	want := hmmPathProbs(lo, gamma, rho, n, k)
	counts := make([]float64, len(want))
	const draws = 100000
	for range draws {
		if _, err := p.Forward([]float64{0}); err != nil {
			t.Fatal(err)
		}
		if err := p.OutputErr(); err != nil {
			t.Fatal(err)
		}
		id := 0
		for _, v := range p.Value(z) {
			if v != math.Trunc(v) || v < 0 || v >= k {
				t.Fatalf("state %v is not one of 0..%d", v, k-1)
			}
			id = id*k + int(v)
		}
		counts[id]++
	}
	// Pearson's chi-square, paths of expected count below 5 pooled into
	// one cell; the 0.999 quantile by Wilson and Hilferty's approximation.
	chi2, df := 0.0, -1
	var poolE, poolC float64
	for i, pi := range want {
		e := draws * pi
		switch {
		case pi == 0 && counts[i] != 0:
			t.Errorf("path %d of probability 0 drawn %g times", i, counts[i])
		case pi == 0:
		case e < 5:
			poolE += e
			poolC += counts[i]
		default:
			chi2 += (counts[i] - e) * (counts[i] - e) / e
			df++
		}
	}
	if poolE > 0 {
		chi2 += (poolC - poolE) * (poolC - poolE) / poolE
		df++
	}
	if math.IsNaN(chi2) || df < 40 {
		t.Fatalf("chi-square %v on %d degrees of freedom: the reference is broken or the test's chain too sparse", chi2, df)
	}
	v := 2 / (9 * float64(df))
	if crit := float64(df) * math.Pow(1-v+3.09*math.Sqrt(v), 3); chi2 > crit {
		t.Errorf("path frequencies against enumeration: chi-square %.1f on %d df > %.2f", chi2, df, crit)
	}
	x0 := []float64{0}
	if a := testing.AllocsPerRun(100, func() {
		if _, err := p.Forward(x0); err != nil {
			panic(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per Forward, want 0", a)
	}
}

// A transition matrix whose row does not sum to 1, or observations
// impossible under every path, give NaN states and an error that says
// which; shapes are checked as hmm_marginal's.
func TestRandHMMLatentInvalid(t *testing.T) {
	for _, tt := range []struct {
		lo, gamma, rho []float64
		want           string
	}{
		{[]float64{0, 0, 0, 0}, []float64{0.5, 0.6, 0.5, 0.5}, []float64{0.5, 0.5}, "row 0 of Gamma sums to 1.1000000000000001, not 1"},
		{[]float64{0, 0, 0, 0}, []float64{0.5, 0.5, 0.5, 0.5}, []float64{0.2, 0.5}, "rho sums to 0.69999999999999996, not 1"},
		// state 0 at t = 0, stuck there, and impossible at t = 1
		{[]float64{0, -1e300, -1e300, 0}, []float64{1, 0, 0, 1}, []float64{1, 0}, "probability 0"},
	} {
		b := NewBuilder()
		x := b.Input("x", Scalar(), testPos)
		lo := b.Const(tt.lo, Matrix(2, 2), testPos)
		z := b.RandHMMLatent(lo, b.Const(tt.gamma, Matrix(2, 2), testPos), b.Const(tt.rho, Vector(2), testPos), testPos)
		p, err := b.Finish(b.Mul(x, x, testPos), z)
		if err != nil {
			t.Fatal(err)
		}
		p.SetRand(rand.New(rand.NewPCG(1, 2)))
		if _, err := p.Forward([]float64{0}); err != nil {
			t.Fatal(err)
		}
		for _, v := range p.Value(z) {
			if !math.IsNaN(v) {
				t.Errorf("%s: state %v, want NaN", tt.want, v)
			}
		}
		if err := p.OutputErr(); err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "hmm_latent_rng") {
			t.Errorf("error %v, want one containing %q", err, tt.want)
		}
	}
	b := NewBuilder()
	b.RandHMMLatent(b.Const(make([]float64, 8), Matrix(4, 2), testPos), b.Const(make([]float64, 9), Matrix(3, 3), testPos), b.Const(make([]float64, 2), Vector(2), testPos), testPos)
	if _, err := b.Finish(b.Scalar(0, testPos)); err == nil || !strings.Contains(err.Error(), "hmm_latent_rng: Gamma must be [2, 2]") {
		t.Errorf("shape error %v", err)
	}
}

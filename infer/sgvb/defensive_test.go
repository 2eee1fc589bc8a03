package sgvb

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// defensiveResult is a q of every family Defensive replaces: a normal, a
// gamma, a beta, a Dirichlet of 3 and a full-rank factor of a positive
// latent of 2 elements, and a low-rank factor of rank 1 of a real latent of
// 2, on 10 coordinates.
func defensiveResult() *Result {
	return &Result{Method: SGVB, Dim: 10, Factors: []Factor{
		{Name: "m", Family: FamilyNormal, Support: dist.Real, Offset: 0, Size: 1, Params: [][]float64{{0.3}, {0.2}}},
		{Name: "s", Family: FamilyGamma, Support: dist.Positive, Offset: 1, Size: 1, Params: [][]float64{{7}, {3}}},
		{Name: "p", Family: FamilyBeta, Support: dist.Unit, Offset: 2, Size: 1, Params: [][]float64{{4}, {9}}},
		{Name: "w", Family: FamilyDirichlet, Support: dist.Simplex, Offset: 3, Size: 3, Shape: []int{3}, Params: [][]float64{{20, 12, 6}}},
		{Name: "v", Family: FamilyFullRank, Support: dist.Positive, Offset: 6, Size: 2,
			Params: [][]float64{{0.5, -1}, {0.3, 0.2}, {0, 0.4}}}, // mean; L columns: L = [0.3 0; 0.2 0.4]
		{Name: "u", Family: FamilyLowRank, Support: dist.Real, Offset: 8, Size: 2,
			Params: [][]float64{{0.1, 0.2}, {0.5, 0.3}, {0.4, -0.2}}}, // mean, d, B: Σ = BBᵀ + diag(d²)
	}}
}

// TestDefensiveDensity: the mixture's log density is ½q + ½g with g's
// factors written out by hand: Student-t₃ on the coordinates (log of a
// positive value, logit of a unit one) at q's coordinate mean and twice its
// sd (a full-rank or low-rank factor's marginal sd), changed to the natural
// scale by the same Jacobian as q; the Dirichlet's concentrations divided
// by 4.
func TestDefensiveDensity(t *testing.T) {
	r := defensiveResult()
	d := r.Defensive()
	rng := rand.New(rand.NewPCG(1, 2))
	lt := func(x, m, s float64) float64 { // log t₃ density
		z := (x - m) / s
		return math.Log(2/(math.Pi*math.Sqrt(3))) - math.Log(s) - 2*math.Log1p(z*z/3)
	}
	lnorm := func(x, m, s float64) float64 {
		z := (x - m) / s
		return -0.5*math.Log(2*math.Pi) - math.Log(s) - 0.5*z*z
	}
	ldir := func(lw []float64, a []float64) float64 {
		s, a0 := 0.0, 0.0
		for j := range a {
			lg, _ := math.Lgamma(a[j])
			s += (a[j]-1)*lw[j] - lg
			a0 += a[j]
		}
		lg0, _ := math.Lgamma(a0)
		return s + lg0
	}
	x := make([]float64, 10)
	for trial := range 200 {
		if trial%2 == 0 {
			r.SampleCoords(rng, x)
		} else {
			d.SampleCoords(rng, x)
		}
		// q and g on the coordinates of each factor
		var lq, lg float64
		lq += lnorm(x[0], 0.3, 0.2)
		lg += lt(x[0], 0.3, 0.4)
		a, b := 7.0, 3.0
		lga, _ := math.Lgamma(a)
		lq += a*math.Log(b) - lga + a*x[1] - b*math.Exp(x[1]) // log-gamma density of log s
		lg += lt(x[1], dist.Digamma(a)-math.Log(b), 2*math.Sqrt(dist.Trigamma(a)))
		al, be := 4.0, 9.0
		lz, l1z := -math.Log1p(math.Exp(-x[2])), -math.Log1p(math.Exp(x[2]))
		lq += al*lz + be*l1z - dist.LogBeta(al, be) // density of logit p
		lg += lt(x[2], dist.Digamma(al)-dist.Digamma(be), 2*math.Sqrt(dist.Trigamma(al)+dist.Trigamma(be)))
		lq += ldir(x[3:6], []float64{20, 12, 6})
		lg += ldir(x[3:6], []float64{5, 3, 1.5})
		e0 := (x[6] - 0.5) / 0.3
		e1 := (x[7] + 1 - 0.2*e0) / 0.4
		lq += -math.Log(2*math.Pi) - math.Log(0.3*0.4) - 0.5*(e0*e0+e1*e1)
		lg += lt(x[6], 0.5, 0.6) + lt(x[7], -1, 2*math.Hypot(0.2, 0.4))
		// Σ = [0.25+0.16, −0.08; −0.08, 0.09+0.04]
		s11, s12, s22 := 0.41, -0.08, 0.13
		det := s11*s22 - s12*s12
		u0, u1 := x[8]-0.1, x[9]-0.2
		lq += -math.Log(2*math.Pi) - 0.5*math.Log(det) - 0.5*(s22*u0*u0-2*s12*u0*u1+s11*u1*u1)/det
		lg += lt(x[8], 0.1, 2*math.Sqrt(s11)) + lt(x[9], 0.2, 2*math.Sqrt(s22))
		// the natural scale: less the logs of the positive values, and log z(1 − z) of p
		jac := x[1] + lz + l1z + x[6] + x[7]
		want := math.Log(0.5*math.Exp(lq)+0.5*math.Exp(lg)) - jac
		if got := d.LogDensity(x); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Fatalf("draw %d at %v: log density %.15g, want %.15g", trial, x, got, want)
		}
		if got, want := r.LogQCoords(x), lq-jac; math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Fatalf("draw %d: log q %.15g, want %.15g (the test's q is not the Result's)", trial, got, want)
		}
	}
}

// TestDefensiveSample: g's draws follow its factors: the t₃ coordinates
// fall within their quartiles (m ± 0.7649·scale) half the time, beyond
// 5.841 scales (t₃'s 0.995 quantile) 1 % of the time; the Dirichlet's
// components have the same means as q's and 4·(α₀+1)/(α₀+4) times their
// variance; the full-rank factor's coordinates are independent under g.
func TestDefensiveSample(t *testing.T) {
	r := defensiveResult()
	d := r.Defensive()
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 40000
	x := make([]float64, 10)
	type coord struct {
		i     int
		m, s  float64
		inQ   int
		tails int
	}
	cs := []*coord{{i: 0, m: 0.3, s: 0.4}, {i: 1, m: dist.Digamma(7) - math.Log(3), s: 2 * math.Sqrt(dist.Trigamma(7))},
		{i: 6, m: 0.5, s: 0.6}, {i: 7, m: -1, s: 2 * math.Hypot(0.2, 0.4)}, {i: 9, m: 0.2, s: 2 * math.Sqrt(0.13)}}
	var w0, w0sq, c67 float64
	for range n {
		d.SampleCoords(rng, x)
		for _, c := range cs {
			z := math.Abs(x[c.i]-c.m) / c.s
			if z < 0.7649 {
				c.inQ++
			}
			if z > 5.841 {
				c.tails++
			}
		}
		w := math.Exp(x[3])
		w0 += w
		w0sq += w * w
		c67 += (x[6] - 0.5) * (x[7] + 1)
	}
	se := math.Sqrt(0.25 / n)
	for _, c := range cs {
		if f := float64(c.inQ) / n; math.Abs(f-0.5) > 4*se {
			t.Errorf("coordinate %d: %.4f of draws within the quartiles, want 0.5 ± %.4f", c.i, f, 4*se)
		}
		if f := float64(c.tails) / n; math.Abs(f-0.01) > 4*math.Sqrt(0.01*0.99/n) {
			t.Errorf("coordinate %d: %.4f of draws beyond the 0.995 quantile, want 0.01", c.i, f)
		}
	}
	// w₀ ~ Beta(5, 4.5) under g: mean 20/38, variance m(1 − m)/(α₀' + 1), α₀' = 9.5
	m := 20.0 / 38
	v := m * (1 - m) / 10.5
	mean, vr := w0/n, w0sq/n-(w0/n)*(w0/n)
	if math.Abs(mean-m) > 4*math.Sqrt(v/n) || math.Abs(vr-v) > 0.05*v {
		t.Errorf("w[0] under g: mean %.5f variance %.6f, want %.5f and %.6f", mean, vr, m, v)
	}
	// independent t₃ coordinates: the covariance is 0 (its sd: 3·0.6·0.89 / √n)
	if cov := c67 / n; math.Abs(cov) > 4*3*0.6*2*math.Hypot(0.2, 0.4)/math.Sqrt(n) {
		t.Errorf("covariance of the full-rank factor's coordinates under g: %.4f, want 0", cov)
	}
}

// TestMarginalDensity: leaving out whole blocks (the normal m and the
// gamma s, as LOO leaves out the factors of missing values), q's and the
// defensive mixture's log densities are those of the q of the other
// factors alone; a mark on one coordinate of the full-rank factor does
// not separate it.
func TestMarginalDensity(t *testing.T) {
	r := defensiveResult()
	rest := defensiveResult()
	rest.Factors = rest.Factors[2:]
	drop := make([]bool, 10)
	drop[0], drop[1] = true, true
	if !r.Separates(drop) {
		t.Fatal("m and s do not separate")
	}
	d, dr := r.Defensive(), rest.Defensive()
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 10)
	for trial := range 100 {
		d.SampleCoords(rng, x)
		if got, want := r.MarginalLogQCoords(x, drop), rest.LogQCoords(x); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Fatalf("draw %d: marginal log q %.15g, want %.15g", trial, got, want)
		}
		if got, want := d.MarginalLogDensity(x, drop), dr.LogDensity(x); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Fatalf("draw %d: marginal mixture density %.15g, want %.15g", trial, got, want)
		}
		if got, want := r.MarginalLogQCoords(x, nil), r.LogQCoords(x); got != want {
			t.Fatalf("draw %d: log q with nothing left out %v, want %v", trial, got, want)
		}
	}
	one := make([]bool, 10)
	one[6] = true
	if r.Separates(one) {
		t.Error("one coordinate of the full-rank factor separates")
	}
}

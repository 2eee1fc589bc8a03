package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// quantileCases are points of every family of Quantile: near the middle
// and far out in both tails.
var quantileCases = []struct {
	name string
	p    float64
	q    []float64
}{
	{"Normal", 0.3, []float64{1, 2}}, {"Normal", 0.99865, []float64{10, 0.5}}, {"Normal", 1e-12, []float64{0, 1}}, {"Normal", 1 - 1e-9, []float64{-3, 0.1}},
	{"LogNormal", 0.5, []float64{0.5, 0.8}}, {"LogNormal", 0.00135, []float64{2, 0.3}}, {"LogNormal", 0.999, []float64{0, 1.5}},
	{"Exponential", 0.7, []float64{2}}, {"Exponential", 1e-10, []float64{1}}, {"Exponential", 1 - 1e-8, []float64{0.5}},
	{"Gamma", 0.5, []float64{2, 3}}, {"Gamma", 0.01, []float64{0.3, 1}}, {"Gamma", 0.99, []float64{5, 0.5}}, {"Gamma", 0.8, []float64{1000, 2}}, {"Gamma", 1e-6, []float64{3, 1}}, {"Gamma", 1 - 1e-10, []float64{2, 1}},
	{"Weibull", 0.4, []float64{2, 1.2}}, {"Weibull", 1e-6, []float64{0.5, 2}}, {"Weibull", 0.9999, []float64{1.5, 1}},
	{"Uniform", 0.25, []float64{-1, 3}}, {"Uniform", 0.9, []float64{2, 2.5}},
	{"Logistic", 0.2, []float64{1, 2}}, {"Logistic", 1e-9, []float64{0, 1}}, {"Logistic", 0.999, []float64{3, 0.5}},
	{"Cauchy", 0.6, []float64{1, 2}}, {"Cauchy", 1e-7, []float64{0, 1}}, {"Cauchy", 0.9999, []float64{-2, 0.5}},
	{"StudentT", 0.3, []float64{3, 1, 2}}, {"StudentT", 0.99865, []float64{4, 10, 0.5}}, {"StudentT", 1e-8, []float64{1.5, 0, 1}},
	{"StudentT", 0.49, []float64{1e6, 0, 1}}, {"StudentT", 0.9, []float64{0.7, -1, 2}}, {"StudentT", 0.5, []float64{3, 1, 2}},
	{"Gumbel", 0.5, []float64{1, 2}}, {"Gumbel", 1e-8, []float64{0, 1}}, {"Gumbel", 1 - 1e-8, []float64{2, 0.5}},
}

// TestQuantileInvertsLogCDF: the family's own log CDF (logccdf above the
// median, where 1 − p keeps the digits) at the quantile is log p.
func TestQuantileInvertsLogCDF(t *testing.T) {
	for _, c := range quantileCases {
		u, ok := Quantile(c.name)
		if !ok {
			t.Fatalf("no quantile for %s", c.name)
		}
		x, _ := u.Kernel(c.p, c.q, make([]float64, len(c.q)))
		upper := c.p > 0.5
		k, _ := LogCDF(c.name, upper)
		lp, _ := k(x, c.q, make([]float64, len(c.q)))
		want := math.Log(c.p)
		if upper {
			want = math.Log1p(-c.p)
		}
		if !(math.Abs(lp-want) <= 1e-11*math.Max(1, math.Abs(want))) {
			t.Errorf("%s%v at p = %g: x = %.17g, log CDF there %.17g, want %.17g", c.name, c.q, c.p, x, lp, want)
		}
	}
}

// TestQuantileValues checks closed forms at a few points: the median of a
// symmetric family is its location, an exponential's is log 2 / rate.
func TestQuantileValues(t *testing.T) {
	for _, c := range []struct {
		name string
		p    float64
		q    []float64
		want float64
	}{
		{"Normal", 0.5, []float64{3, 2}, 3},
		{"Normal", 0.975, []float64{0, 1}, 1.959963984540054},
		{"LogNormal", 0.5, []float64{1, 2}, math.E},
		{"Exponential", 0.5, []float64{2}, math.Ln2 / 2},
		{"Gamma", 0.5, []float64{1, 2}, math.Ln2 / 2}, // Gamma(1, b) is Exponential(b)
		{"Weibull", 1 - math.Exp(-1), []float64{3, 2}, 2},
		{"Uniform", 0.25, []float64{-1, 3}, 0},
		{"Logistic", 0.75, []float64{1, 2}, 1 + 2*math.Log(3)},
		{"Cauchy", 0.75, []float64{1, 2}, 3},
		{"Cauchy", 0.1, []float64{0, 1}, -1 / math.Tan(math.Pi*0.1)},
		{"Gumbel", math.Exp(-1), []float64{1, 2}, 1},
		{"StudentT", 0.5, []float64{3, 2, 5}, 2},
		{"StudentT", 0.75, []float64{1, 0, 1}, 1},                  // Cauchy
		{"StudentT", 0.975, []float64{2, 0, 1}, 4.302652729749464}, // t(2): (2p − 1)√(2/(1 − (2p − 1)²))
	} {
		u, _ := Quantile(c.name)
		got, _ := u.Kernel(c.p, c.q, make([]float64, len(c.q)))
		if !(math.Abs(got-c.want) <= 1e-14*math.Max(1, math.Abs(c.want))) {
			t.Errorf("%s%v at p = %g: %.17g, want %.17g", c.name, c.q, c.p, got, c.want)
		}
	}
}

// TestQuantileGradients checks the partial in p and in every argument
// against central differences (gonum/diff/fd).
func TestQuantileGradients(t *testing.T) {
	for _, c := range quantileCases {
		u, _ := Quantile(c.name)
		k := u.Kernel
		dq := make([]float64, len(c.q))
		_, dx := k(c.p, c.q, dq)
		check := func(what string, got float64, f func(float64) float64, at, step float64) {
			want := fd.Derivative(f, at, &fd.Settings{Formula: fd.Central, Step: step})
			if !(math.Abs(got-want) <= 1e-6*math.Max(math.Abs(want), 1e-8)) {
				t.Errorf("%s%v at p = %g: d/d%s %.10g, central difference %.10g", c.name, c.q, c.p, what, got, want)
			}
		}
		x, _ := k(c.p, c.q, make([]float64, len(c.q)))
		// a power of two below the nearer distance to 0 or 1, so that
		// p ± step are exact near 1 too
		step := math.Ldexp(1, math.Ilogb(math.Min(c.p, 1-c.p))-16)
		check("p", dx, func(p float64) float64 { x, _ := k(p, c.q, make([]float64, len(c.q))); return x }, c.p, step)
		for i := range c.q {
			check(u.Params[i].Name, dq[i], func(v float64) float64 {
				q := append([]float64(nil), c.q...)
				q[i] = v
				x, _ := k(c.p, q, make([]float64, len(q)))
				return x
			}, c.q[i], fdStep(c.q[i])+1e-6*math.Abs(x)*b2f(c.q[i] == 0))
		}
	}
}

// TestQuantileDomain: p outside [0, 1] is outside the domain (−Inf, the
// tape's error with Explain's words), NaN p or an argument outside its
// support NaN, and the ends of the support at p = 0 and 1.
func TestQuantileDomain(t *testing.T) {
	u, _ := Quantile("Normal")
	for _, p := range []float64{-0.1, 1.5} {
		if x, _ := u.Kernel(p, []float64{0, 1}, make([]float64, 2)); !math.IsInf(x, -1) {
			t.Errorf("icdf(%g, Normal(0, 1)) = %g, want -Inf (outside)", p, x)
		}
		if why, _ := u.Explain(p, []float64{0, 1}, math.Inf(-1)); why == "" {
			t.Errorf("no explanation for p = %g", p)
		}
	}
	for _, c := range []struct {
		name string
		p    float64
		q    []float64
	}{{"Normal", math.NaN(), []float64{0, 1}}, {"Normal", 0.5, []float64{0, -1}}, {"Uniform", 0.5, []float64{2, 1}}, {"Gamma", 0.5, []float64{0, 1}}} {
		v, _ := Quantile(c.name)
		if x, _ := v.Kernel(c.p, c.q, make([]float64, len(c.q))); !math.IsNaN(x) {
			t.Errorf("icdf(%g, %s%v) = %g, want NaN", c.p, c.name, c.q, x)
		}
	}
	for _, c := range []struct {
		name   string
		q      []float64
		lo, hi float64
	}{
		{"Normal", []float64{0, 1}, math.Inf(-1), math.Inf(1)},
		{"Exponential", []float64{2}, 0, math.Inf(1)},
		{"Weibull", []float64{2, 1}, 0, math.Inf(1)},
		{"Gamma", []float64{2, 1}, 0, math.Inf(1)},
		{"Uniform", []float64{-1, 3}, -1, 3},
		{"Cauchy", []float64{0, 1}, math.Inf(-1), math.Inf(1)},
	} {
		v, _ := Quantile(c.name)
		lo, _ := v.Kernel(0, c.q, make([]float64, len(c.q)))
		hi, _ := v.Kernel(1, c.q, make([]float64, len(c.q)))
		if lo != c.lo || hi != c.hi {
			t.Errorf("%s%v: quantiles at 0 and 1 are %g, %g, want %g, %g", c.name, c.q, lo, hi, c.lo, c.hi)
		}
	}
	if _, ok := Quantile("SkewNormal"); ok {
		t.Error("a quantile for SkewNormal")
	}
	for _, n := range QuantileNames() {
		if _, ok := Quantile(n); !ok {
			t.Errorf("QuantileNames lists %s, which has no quantile", n)
		}
	}
}

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// BenchmarkQuantile times a quantile with its partials: closed forms,
// Gamma's Newton solve and StudentT's inverse incomplete beta.
func BenchmarkQuantile(b *testing.B) {
	for _, c := range []struct {
		name string
		q    []float64
	}{{"LogNormal", []float64{0.5, 0.3}}, {"Gamma", []float64{2.5, 1}}, {"StudentT", []float64{4, 0, 1}}} {
		u, _ := Quantile(c.name)
		dq := make([]float64, len(c.q))
		b.Run(c.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				u.Kernel(0.99865-0.001*float64(i%100), c.q, dq)
			}
		})
	}
}

package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// TestWrappedCauchy checks the wrapped Cauchy's log density against the
// textbook form (1 − ρ²) / (2π (1 + ρ² − 2ρ cos δ)), written apart, its
// 2π-periodicity, its integral over the circle (Simpson, 1), its partials
// in the value, mu and rho against central differences (gonum's fd) and
// the registry's kernel, and NaN for rho outside [0, 1).
func TestWrappedCauchy(t *testing.T) {
	ps := [][2]float64{{0, 0}, {0.7, 0.3}, {-2, 0.9}, {3, 0.99}, {1, 1e-9}}
	xs := []float64{-3.1, -1, -0.01, 0, 0.3, 2, 3.1, 7.5}
	u, ok := LookupUnivariate("WrappedCauchy")
	if !ok {
		t.Fatal("WrappedCauchy is not registered")
	}
	for _, p := range ps {
		d := WrappedCauchy{p[0], p[1]}
		for _, x := range xs {
			want := math.Log((1 - p[1]*p[1]) / (2 * math.Pi * (1 + p[1]*p[1] - 2*p[1]*math.Cos(x-p[0]))))
			got := d.LogProb(x)
			if math.Abs(got-want) > 1e-13*max(1, math.Abs(want)) {
				t.Errorf("WrappedCauchy(%g, %g) at %g: log density %.17g, want %.17g", p[0], p[1], x, got, want)
			}
			if per := d.LogProb(x + 2*math.Pi); math.Abs(per-got) > 1e-12 {
				t.Errorf("WrappedCauchy(%g, %g): %g at %g + 2π, %g at %g", p[0], p[1], per, x, got, x)
			}
			score := d.Score(nil, x)
			dx := d.ScoreInput(x)
			wantDx := fd.Derivative(func(v float64) float64 { return d.LogProb(v) }, x, &fd.Settings{Formula: fd.Central})
			wantMu := fd.Derivative(func(v float64) float64 { return WrappedCauchy{v, p[1]}.LogProb(x) }, p[0], &fd.Settings{Formula: fd.Central})
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"d/dx", dx, wantDx}, {"d/dmu", score[0], wantMu}} {
				if math.Abs(c.got-c.want) > 1e-6*max(1, math.Abs(c.want)) {
					t.Errorf("WrappedCauchy(%g, %g) at %g: %s %.12g, fd %.12g", p[0], p[1], x, c.what, c.got, c.want)
				}
			}
			if p[1] > 1e-6 && p[1] < 0.995 { // rho's difference stays inside [0, 1)
				wantRho := fd.Derivative(func(v float64) float64 { return WrappedCauchy{p[0], v}.LogProb(x) }, p[1], &fd.Settings{Formula: fd.Central, Step: 1e-7})
				if math.Abs(score[1]-wantRho) > 1e-5*max(1, math.Abs(wantRho)) {
					t.Errorf("WrappedCauchy(%g, %g) at %g: d/drho %.12g, fd %.12g", p[0], p[1], x, score[1], wantRho)
				}
			}
			dp := make([]float64, 2)
			if lp, kx := u.Kernel(x, p[:], dp); lp != got || kx != dx || dp[0] != score[0] || dp[1] != score[1] {
				t.Errorf("WrappedCauchy(%g, %g) at %g: the registry's kernel differs", p[0], p[1], x)
			}
		}
		if p[1] <= 0.9 {
			const m = 20000 // Simpson over one period
			h, s := 2*math.Pi/m, 0.0
			for i := 0; i <= m; i++ {
				w := 2.0 + 2*float64(i%2)
				if i == 0 || i == m {
					w = 1
				}
				s += w * math.Exp(d.LogProb(-math.Pi+float64(i)*h))
			}
			if s *= h / 3; math.Abs(s-1) > 1e-9 {
				t.Errorf("WrappedCauchy(%g, %g) integrates to %.12g over the circle", p[0], p[1], s)
			}
		}
	}
	for _, r := range []float64{-0.1, 1, 1.5, math.NaN()} {
		if lp := (WrappedCauchy{0, r}).LogProb(0.5); !math.IsNaN(lp) {
			t.Errorf("rho %g: log density %v, want NaN", r, lp)
		}
	}
}

// TestWrappedCauchyRand checks the draws' circular moments, E cos(x − μ)
// = ρ and E sin(x − μ) = 0, within 5 standard errors, and that they lie
// in (μ − π, μ + π).
func TestWrappedCauchyRand(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 5))
	const n = 100000
	for _, r := range []float64{0, 0.3, 0.8, 0.98} {
		d := WrappedCauchy{0.7, r}
		var c, s, c2 float64
		for range n {
			x := d.Rand(rng)
			if !(x > d.Mu-math.Pi && x < d.Mu+math.Pi) {
				t.Fatalf("WrappedCauchy(0.7, %g) drew %v", r, x)
			}
			c += math.Cos(x - d.Mu)
			c2 += math.Cos(2 * (x - d.Mu))
			s += math.Sin(x - d.Mu)
		}
		c, s, c2 = c/n, s/n, c2/n
		// Var cos = (1 + E cos 2δ)/2 − ρ², E cos 2δ = ρ²; Var sin = (1 − ρ²)/2
		seC, seS := math.Sqrt(((1+r*r)/2-r*r)/n), math.Sqrt((1-r*r)/2/n)
		if math.Abs(c-r) > 5*seC || math.Abs(s) > 5*seS+1e-12 || math.Abs(c2-r*r) > 5*math.Sqrt(0.5/n)+1e-12 {
			t.Errorf("WrappedCauchy(0.7, %g): E cos %.5f (want %g ± %.5f), E sin %.5f (± %.5f), E cos 2δ %.5f (want %g)", r, c, r, seC, s, seS, c2, r*r)
		}
	}
}

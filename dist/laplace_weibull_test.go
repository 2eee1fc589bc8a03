package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// Tolerances of the Laplace and Weibull tests.
const (
	// laplaceWeibullRefUlps bounds the error against mpmath, in units of
	// eps times the scale of the quantity: the sum of the magnitudes of
	// the terms of its textbook formula, plus what an ulp of error in
	// u = log(x/σ) moves it by (α·w for each w = (x/σ)^α in it). For the
	// log-scale kernel that error is |log x| + |log σ| ulps of 1 rather
	// than one, since its input is the rounded log x.
	laplaceWeibullRefUlps = 8
	// momentRelTol bounds Weibull's Mean and Variance against mpmath.
	momentRelTol = 1e-14
	// shapeOneTol bounds Weibull(1, σ) against Exponential(1/σ), whose
	// formulas differ by a rounding or two.
	shapeOneTol = 1e-15
	// kinkSteps is how many finite-difference steps away from Laplace's
	// kink the near-kink partials are taken.
	kinkSteps = 10
)

// TestLaplaceWeibullReference checks the log densities and every partial of
// Laplace and Weibull (and of Weibull's log-scale kernel) against
// testdata/laplace_weibull.csv: mpmath at 700 digits, partials by
// high-precision central differences of the textbook log density (see
// laplace_weibull.py), from Laplace scales 1e-300 to 1e8 and values to
// 1e300, and Weibull shapes 1e-3 to 1e3 with values from 1e-300 to 1e100.
func TestLaplaceWeibullReference(t *testing.T) {
	worst := 0.0
	check := func(what string, p []float64, x float64, k int, got, want, scale float64) {
		t.Helper()
		e := math.Abs(got-want) / (eps * scale)
		worst = math.Max(worst, e)
		if !(e <= laplaceWeibullRefUlps) {
			t.Errorf("%s%v at %v: quantity %d = %.17g, mpmath %.17g (%.3g eps·scale, scale %.3g)", what, p, x, k, got, want, e, scale)
		}
	}
	rows := readRefCSV(t, "testdata/laplace_weibull.csv", 8)
	if len(rows) < 30 {
		t.Fatalf("%d reference rows, want at least 30", len(rows))
	}
	for _, r := range rows {
		p, x, want := []float64{r[1], r[2]}, r[3], r[4:8]
		dp := make([]float64, 2)
		switch r[0] {
		case 0:
			mu, sigma := p[0], p[1]
			lp, dx := Univariates[laplaceIndex(t)].Kernel(x, p, dp)
			az := math.Abs(x-mu) / sigma
			scales := []float64{math.Ln2 + math.Abs(math.Log(sigma)) + az, 1 / sigma, 1 / sigma, (az + 1) / sigma}
			for k, got := range []float64{lp, dx, dp[0], dp[1]} {
				check("Laplace", p, x, k, got, want[k], scales[k])
			}
		case 1:
			u, _ := LookupUnivariate("Weibull")
			lp, dx := u.Kernel(x, p, dp)
			for k, got := range []float64{lp, dx, dp[0], dp[1]} {
				check("Weibull", p, x, k, got, want[k], weibullScale(p[0], p[1], x, 1)[k])
			}
			l := math.Log(x)
			lp, dl := LogScale(u).Kernel(l, p, dp)
			du := 1 + math.Abs(l) + math.Abs(math.Log(p[1]))
			for k, got := range []float64{lp, dl / x, dp[0], dp[1]} {
				check("LogScale(Weibull)", p, x, k, got, want[k], weibullScale(p[0], p[1], x, du)[k])
			}
		default:
			t.Fatalf("bad family %v", r[0])
		}
	}
	t.Logf("worst error / (eps·scale): %.3g", worst)
}

// weibullScale returns the scales of Weibull's log density and of its
// partials in x, α and σ at x, for an error of du ulps of 1 in u = log(x/σ).
func weibullScale(alpha, sigma, x, du float64) [4]float64 {
	u := math.Log(x / sigma)
	w := math.Exp(alpha * u)
	aw := math.Abs(math.Expm1(alpha * u)) // |w − 1|
	return [4]float64{
		math.Abs(math.Log(alpha)) + math.Abs(math.Log(sigma)) + math.Abs(alpha-1)*(math.Abs(u)+du) + w + alpha*w*du,
		(1 + alpha*aw + alpha*alpha*w*du) / x,
		1/alpha + math.Abs(u)*aw + du*(aw+math.Abs(u)*alpha*w),
		alpha * (aw + alpha*w*du) / sigma,
	}
}

func laplaceIndex(t *testing.T) int {
	t.Helper()
	for i, u := range Univariates {
		if u.Name == "Laplace" {
			return i
		}
	}
	t.Fatal("no Laplace in the registry")
	return -1
}

// TestLaplaceWeibullPartials checks every partial of both families against
// central finite differences at fixed points: Laplace on either side of
// its kink (a few steps away, so that the difference does not straddle
// it) and far from it, Weibull at shapes below 1, at 1 (the exponential)
// and above, from deep in the left tail to the right tail.
func TestLaplaceWeibullPartials(t *testing.T) {
	type point struct {
		name string
		p    []float64
		x    float64
	}
	var pts []point
	for _, p := range [][]float64{{0, 1}, {1.5, 0.3}, {-2, 4}, {30, 0.05}} {
		mu, sigma := p[0], p[1]
		// The μ step of the finite differences below (no smaller than
		// their x step), so that kinkSteps of them keep both on one side
		// of the kink.
		h := fdRelStep * math.Max(1, math.Abs(mu))
		for _, x := range []float64{mu + kinkSteps*h, mu - kinkSteps*h, mu + 0.01*sigma, mu - 0.3*sigma, mu + 2*sigma, mu - 7*sigma} {
			pts = append(pts, point{"Laplace", p, x})
		}
	}
	for _, alpha := range []float64{0.3, 0.7, 1, 1.6, 4, 25} {
		for _, sigma := range []float64{0.5, 3} {
			for _, r := range []float64{1e-3, 0.2, 0.97, 1.03, 2} {
				pts = append(pts, point{"Weibull", []float64{alpha, sigma}, r * sigma})
			}
		}
	}
	for _, c := range pts {
		u, _ := LookupUnivariate(c.name)
		dp := make([]float64, 2)
		lp, dx := u.Kernel(c.x, c.p, dp)
		if math.IsNaN(lp) || math.IsInf(lp, 0) {
			t.Fatalf("%s%v at %v: log density %v", c.name, c.p, c.x, lp)
		}
		logp := func(x float64, p []float64) float64 { v, _ := u.Kernel(x, p, nil); return v }
		for j := range c.p {
			f := func(v float64) float64 {
				q := append([]float64(nil), c.p...)
				q[j] = v
				return logp(c.x, q)
			}
			want := fd.Derivative(f, c.p[j], &fd.Settings{Formula: fd.Central, Step: fdRelStep * math.Max(1, math.Abs(c.p[j]))})
			if e := math.Abs(dp[j]-want) / math.Max(1, math.Abs(dp[j])); !(e <= partialTol) {
				t.Errorf("%s%v at x=%v: ∂/∂p[%d] = %.10g, finite difference %.10g", c.name, c.p, c.x, j, dp[j], want)
			}
		}
		step := fdRelStep * math.Max(1e-3, math.Min(1, math.Abs(c.x)))
		want := fd.Derivative(func(x float64) float64 { return logp(x, c.p) }, c.x, &fd.Settings{Formula: fd.Central, Step: step})
		if e := math.Abs(dx-want) / math.Max(1, math.Abs(dx)); !(e <= partialTol) {
			t.Errorf("%s%v: ∂/∂x at %v = %.10g, finite difference %.10g", c.name, c.p, c.x, dx, want)
		}
	}
}

// TestLaplaceKink: at x = μ the partials in x and μ are the subgradient 0
// (the density has a kink there), the partial in σ is the ordinary −1/σ
// (the density is smooth in σ there), and just off the kink the partials
// are ∓1/σ.
func TestLaplaceKink(t *testing.T) {
	for _, p := range [][]float64{{0, 1}, {1.5, 0.3}, {-2, 4}} {
		mu, sigma := p[0], p[1]
		d := Laplace{mu, sigma}
		if lp, want := d.LogProb(mu), -math.Log(2*sigma); math.Abs(lp-want) > 1e-15*math.Max(1, math.Abs(want)) {
			t.Errorf("Laplace%v at μ: log density %v, want %v", p, lp, want)
		}
		s := d.Score(nil, mu)
		if dx := d.ScoreInput(mu); dx != 0 || s[0] != 0 {
			t.Errorf("Laplace%v at μ: ∂/∂x = %v, ∂/∂μ = %v, want the subgradient 0", p, dx, s[0])
		}
		f := func(v float64) float64 { return Laplace{mu, v}.LogProb(mu) }
		want := fd.Derivative(f, sigma, &fd.Settings{Formula: fd.Central, Step: fdRelStep * sigma})
		if math.Abs(s[1]-want) > partialTol*math.Max(1, math.Abs(want)) || s[1] != -1/sigma {
			t.Errorf("Laplace%v at μ: ∂/∂σ = %v, finite difference %v, want −1/σ", p, s[1], want)
		}
		above, below := math.Nextafter(mu, math.Inf(1)), math.Nextafter(mu, math.Inf(-1))
		if d.ScoreInput(above) != -1/sigma || d.ScoreInput(below) != 1/sigma ||
			d.Score(nil, above)[0] != 1/sigma || d.Score(nil, below)[0] != -1/sigma {
			t.Errorf("Laplace%v one ulp off μ: ∂/∂x %v, %v; ∂/∂μ %v, %v", p, d.ScoreInput(above), d.ScoreInput(below),
				d.Score(nil, above)[0], d.Score(nil, below)[0])
		}
	}
}

// TestWeibullShapeOne: Weibull(1, σ) is Exponential(1/σ), density and x
// partial; its scale partial is the rate partial times d rate/dσ = −1/σ².
func TestWeibullShapeOne(t *testing.T) {
	for _, sigma := range []float64{0.01, 0.7, 1, 4, 1e6} {
		w, e := Weibull{1, sigma}, Exponential{1 / sigma}
		for _, r := range []float64{1e-5, 0.3, 1, 2.5, 40} {
			x := r * sigma
			near := func(what string, got, want float64) {
				if math.Abs(got-want) > shapeOneTol*math.Max(1, math.Abs(want))*(1+math.Abs(math.Log(sigma))) {
					t.Errorf("Weibull(1, %v) at %v: %s %.17g, exponential %.17g", sigma, x, what, got, want)
				}
			}
			near("log density", w.LogProb(x), e.LogProb(x))
			near("∂/∂x", w.ScoreInput(x), e.ScoreInput(x))
			near("∂/∂σ", w.Score(nil, x)[1], -e.Score(nil, x)[0]/(sigma*sigma))
		}
		if w.Mean() != sigma || math.Abs(w.Variance()-sigma*sigma) > momentRelTol*sigma*sigma {
			t.Errorf("Weibull(1, %v): mean %v, variance %v; want %v and %v", sigma, w.Mean(), w.Variance(), sigma, sigma*sigma)
		}
	}
}

// TestWeibullMoments checks Mean and Variance against mpmath (40 digits),
// among them large shapes, where Γ(1 + 2/α) − Γ(1 + 1/α)² ≈ (π²/6)/α² is a
// difference of two numbers near 1.
func TestWeibullMoments(t *testing.T) {
	for _, c := range []struct{ alpha, mean, variance float64 }{
		{0.5, 2, 20},
		{1, 1, 1},
		{3.5, 0.8997471765028390259915, 0.081072751462297612667},
		{3.99, 0.9062735234910970, 0.064936401567531276149},
		{4, 0.9064024770554770, 0.064661475040453362846},
		{4.01, 0.9065312286071601, 0.064388379947167974392},
		{10, 0.9513507698668731836, 0.013100455073468309147},
		{1e4, 0.9999422883231624190806, 1.6445038762822376407e-8},
		{1e8, 0.9999999942278434498903, 1.6449340238174553228e-16},
	} {
		for _, sigma := range []float64{1, 3} {
			d := Weibull{c.alpha, sigma}
			m, v := c.mean*sigma, c.variance*sigma*sigma
			if math.Abs(d.Mean()-m) > momentRelTol*m || math.Abs(d.Variance()-v) > momentRelTol*v {
				t.Errorf("Weibull(%v, %v): mean %.17g, variance %.17g; mpmath %.17g, %.17g", c.alpha, sigma, d.Mean(), d.Variance(), m, v)
			}
		}
	}
	if d := (Laplace{-1, 1.5}); d.Mean() != -1 || d.Variance() != 4.5 {
		t.Errorf("Laplace(-1, 1.5): mean %v, variance %v", d.Mean(), d.Variance())
	}
}

// TestLaplaceWeibullQuantiles checks the samplers' probabilities of a few
// intervals within mcSE standard errors, where the moment test cannot
// look: Laplace's two halves and tails, and Weibull at a shape so small
// (1e-3) that E^(1/α) overflows for E > 2.03 and the draw σ·E^(1/α) comes
// from Rand's log-space fallback (σ = 1e-300 keeps it finite below E = 2.2).
func TestLaplaceWeibullQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	ind := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	lo, mid, hi := make([]float64, momentDraws), make([]float64, momentDraws), make([]float64, momentDraws)
	for j := range lo {
		v := Laplace{1, 2}.Rand(rng)
		lo[j], mid[j], hi[j] = ind(v <= 1-2*math.Ln2), ind(v <= 1), ind(v > 1+6)
	}
	checkMean(t, "Laplace(1, 2) P(X ≤ μ − σ log 2)", lo, 0.25)
	checkMean(t, "Laplace(1, 2) P(X ≤ μ)", mid, 0.5)
	checkMean(t, "Laplace(1, 2) P(X > μ + 3σ)", hi, 0.5*math.Exp(-3))

	const sigma, alpha = 1e-300, 1e-3
	q := math.Exp(math.Log(sigma) + math.Log(2.2)/alpha) // σ·2.2^1000 ≈ 2.5e42
	below, fallback := make([]float64, momentDraws), make([]float64, momentDraws)
	for j := range below {
		v := Weibull{alpha, sigma}.Rand(rng)
		below[j] = ind(v <= q)
		// E^(1/α) beyond MaxFloat64 (E > 2.03) but the draw below q
		fallback[j] = ind(v > sigma*math.MaxFloat64 && v <= q)
	}
	checkMean(t, "Weibull(1e-3, 1e-300) P(X ≤ σ·2.2^1000)", below, -math.Expm1(-2.2))
	checkMean(t, "Weibull(1e-3, 1e-300) P(σ·MaxFloat64 < X ≤ σ·2.2^1000)", fallback,
		math.Exp(-math.Pow(math.MaxFloat64, alpha))-math.Exp(-2.2))
}

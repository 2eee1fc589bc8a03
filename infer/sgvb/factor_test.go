package sgvb

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// softplusSigmoid agrees with softplus and sigmoid computed apart.
func TestSoftplusSigmoid(t *testing.T) {
	for _, r := range []float64{-700, -40, -18.5, -3, -1e-9, 0, 1e-9, 0.7, 5, 20, 34.9, 35, 35.1, 80, 1e6} {
		sp, sg := softplusSigmoid(r)
		wsp, wsg := softplus(r), sigmoid(r)
		if math.Abs(sp-wsp) > 4e-16*wsp || math.Abs(sg-wsg) > 4e-16*wsg {
			t.Errorf("r = %g: (%.17g, %.17g), want (%.17g, %.17g)", r, sp, sg, wsp, wsg)
		}
	}
}

// jitter moves each element's location by u ~ U(−h, h) on its support's
// unconstrained scale and keeps the spread, for every family.
func TestJitter(t *testing.T) {
	const n, h = 3000, 0.7
	logit := func(a, b float64) float64 { return math.Log(a) - math.Log(b) }
	cases := []struct {
		name string
		b    block
		// loc and spread of element i from the natural parameters
		loc, spread func(p [][]float64, i int) float64
	}{
		{"gamma softplus", block{fam: FamilyGamma, n: n},
			func(p [][]float64, i int) float64 { return math.Log(p[0][i] / p[1][i]) },
			func(p [][]float64, i int) float64 { return p[0][i] }},
		{"gamma log-mean-shape", block{fam: FamilyGamma, n: n, logMS: true},
			func(p [][]float64, i int) float64 { return math.Log(p[0][i] / p[1][i]) },
			func(p [][]float64, i int) float64 { return p[0][i] }},
		{"lognormal", block{fam: FamilyLognormal, n: n},
			func(p [][]float64, i int) float64 { return p[0][i] },
			func(p [][]float64, i int) float64 { return p[1][i] }},
		{"normal", block{fam: FamilyNormal, n: n},
			func(p [][]float64, i int) float64 { return p[0][i] },
			func(p [][]float64, i int) float64 { return p[1][i] }},
		{"beta", block{fam: FamilyBeta, n: n},
			func(p [][]float64, i int) float64 { return logit(p[0][i], p[1][i]) },
			func(p [][]float64, i int) float64 { return p[0][i] + p[1][i] }},
		{"dirichlet", block{fam: FamilyDirichlet, n: n, k: 3},
			func(p [][]float64, i int) float64 { return math.Log(p[0][i]) },
			func(p [][]float64, i int) float64 { return 1 }},
		{"point", block{fam: FamilyPoint, n: n, support: dist.Real},
			func(p [][]float64, i int) float64 { return p[0][i] },
			func(p [][]float64, i int) float64 { return 1 }},
	}
	for _, c := range cases {
		th := make([]float64, c.b.np())
		init := make([]float64, n) // starts of various sizes
		for i := range init {
			init[i] = 0.3 + 0.01*float64(i%50)
		}
		c.b.initTheta(&Latent{Init: init}, th)
		before := c.b.params(th)
		c.b.jitter(th, rand.New(rand.NewPCG(1, 2)), h)
		after := c.b.params(th)
		lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
		for i := range n {
			u := c.loc(after, i) - c.loc(before, i)
			if !(math.Abs(u) <= h*(1+1e-12)) {
				t.Fatalf("%s: element %d moved by %v, want within ±%v", c.name, i, u, h)
			}
			if s0, s1 := c.spread(before, i), c.spread(after, i); math.Abs(s1-s0) > 1e-12*s0 {
				t.Fatalf("%s: element %d's spread %v became %v", c.name, i, s0, s1)
			}
			lo, hi, sum = min(lo, u), max(hi, u), sum+u
		}
		// U(−h, h): the extremes near ±h, the mean near 0 (sd h/√(3n) = 0.007)
		if lo > -0.99*h || hi < 0.99*h || math.Abs(sum/n) > 0.03 {
			t.Errorf("%s: moves in [%.3f, %.3f] with mean %.4f, want U(−%v, %v)", c.name, lo, hi, sum/n, h, h)
		}
	}
}

// A factor of a bounded param reports the param's values: its moments and
// Natural map b to Loc + Scale·b, and Coords inverts Natural.
func TestFactorAffine(t *testing.T) {
	r := &Result{Dim: 2, Factors: []Factor{
		{Name: "p", Family: FamilyBeta, Support: dist.Unit, Offset: 0, Size: 1, Params: [][]float64{{3}, {1}}, Loc: -1, Scale: 2},
		{Name: "d", Family: FamilyGamma, Support: dist.Positive, Offset: 1, Size: 1, Params: [][]float64{{4}, {2}}, Loc: 5, Scale: -1},
	}}
	// Beta(3, 1) has mean 3/4 and sd √(3/80); Gamma(4, 2) mean 2, sd 1.
	if m, s := r.Factors[0].Mean()[0], r.Factors[0].SD()[0]; math.Abs(m-0.5) > 1e-15 || math.Abs(s-2*math.Sqrt(3.0/80)) > 1e-15 {
		t.Errorf("p: mean %v sd %v, want 0.5 and %v", m, s, 2*math.Sqrt(3.0/80))
	}
	if m, s := r.Factors[1].Mean()[0], r.Factors[1].SD()[0]; m != 3 || s != 1 {
		t.Errorf("d: mean %v sd %v, want 3 and 1", m, s)
	}
	x := []float64{0.4, -0.3} // logit b, log b
	z := make([]float64, 2)
	r.Natural(z, x)
	b0, b1 := 1/(1+math.Exp(-0.4)), math.Exp(-0.3)
	if math.Abs(z[0]-(-1+2*b0)) > 1e-15 || math.Abs(z[1]-(5-b1)) > 1e-15 {
		t.Errorf("Natural: %v, want [%v %v]", z, -1+2*b0, 5-b1)
	}
	back := make([]float64, 2)
	r.Coords(back, z)
	for i := range x {
		if math.Abs(back[i]-x[i]) > 1e-14 {
			t.Errorf("Coords(Natural(x)) = %v, want %v", back, x)
		}
	}
	// Draws whose map rounds onto a bound are kept inside, as the model
	// keeps its values: inv_logit(40) is 1, and −1 + 2·inv_logit(−40) and
	// 5 − e^(−40) round to the bounds.
	for _, c := range []struct{ x, z []float64 }{
		{[]float64{40, -40}, []float64{-1 + 2*math.Nextafter(1, 0), math.Nextafter(5, 0)}},
		{[]float64{-40, -800}, []float64{math.Nextafter(-1, 0), math.Nextafter(5, 0)}},
	} {
		r.Natural(z, c.x)
		if z[0] != c.z[0] || z[1] != c.z[1] || !(z[0] > -1 && z[0] < 1 && z[1] < 5) {
			t.Errorf("Natural(%v) = %v, want %v", c.x, z, c.z)
		}
	}
}

// TestStartPoint: the centre of the default start, coordinate by
// coordinate, is the valid Init element or the support's default; MAP
// starts there too.
func TestStartPoint(t *testing.T) {
	lats := []Latent{
		{Name: "m", Offset: 0, Size: 2, Shape: []int{2}, Support: dist.Real, Init: []float64{2, math.NaN()}},
		{Name: "s", Offset: 2, Size: 2, Shape: []int{2}, Support: dist.Positive, Init: []float64{4, -1}},
		{Name: "p", Offset: 4, Size: 1, Support: dist.Unit, Init: []float64{0.25}},
		{Name: "u", Offset: 5, Size: 1, Support: dist.Unit},
		{Name: "w", Offset: 6, Size: 6, Shape: []int{2, 3}, Support: dist.Simplex},
	}
	third := math.Log(1.0 / 3)
	want := []float64{2, 0, math.Log(4), 0, math.Log(0.25) - math.Log(0.75), 0, third, third, third, third, third, third}
	got := StartPoint(lats, 12)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("coordinate %d = %v, want %v", i, got[i], want[i])
		}
	}
	// MAP's start is the same point.
	for _, l := range lats {
		b := block{fam: FamilyPoint, support: l.Support, n: l.Size, k: 1}
		if l.Support == dist.Simplex {
			b.k = 3
		}
		th := make([]float64, l.Size)
		b.initTheta(&l, th)
		for j, v := range th {
			if v != got[l.Offset+j] {
				t.Errorf("%s[%d]: MAP starts at %v, StartPoint %v", l.Name, j, v, got[l.Offset+j])
			}
		}
	}
}

// TestResultSampleSmallRate: a result's draws follow its factors whatever
// their scale. A gamma factor of mean 10¹³ has a rate far below minParam
// (the floor of rates behind a softplus), and its draws were made with the
// floor instead: shape/10⁻⁸ = 3·10¹⁰, not 10¹³. The log joint the fit saw
// was right; the draws, the summary and the outputs were not.
func TestResultSampleSmallRate(t *testing.T) {
	for _, rate := range []float64{3e-11, 3e-200, 30} {
		r := &Result{Dim: 1, Factors: []Factor{
			{Name: "s", Family: FamilyGamma, Support: dist.Positive, Offset: 0, Size: 1, Params: [][]float64{{300}, {rate}}},
		}}
		rng := rand.New(rand.NewPCG(1, 2))
		const n = 4000
		x := make([]float64, 1)
		sum, sumLogQ := 0.0, 0.0
		for range n {
			sumLogQ += r.Sample(rng, x)
			sum += x[0]
		}
		// mean 300/rate, sd of the sample mean 300/rate/√(300·4000) ≈ 0.1 %
		if m := sum / n * rate / 300; math.Abs(m-1) > 0.005 {
			t.Errorf("rate %g: draws' mean is %g times the factor's", rate, m)
		}
		// log q at the draws: its mean is minus the entropy, log(rate) −
		// 4.2697 for Gamma(300, rate) (sd of the estimate 0.7/√4000 = 0.011)
		if lq := sumLogQ/n - math.Log(rate); math.Abs(lq-(-4.2697)) > 0.05 {
			t.Errorf("rate %g: mean log q − log rate = %g, want −4.2697", rate, lq)
		}
	}
}

// stepClamped adds the step and clamps each slot bit for bit as the
// per-slot rule (clampRef, the rule written out) does, whole blocks and
// ranges within and across their halves, on values inside, outside and at
// the bounds, NaN, ±Inf and −0.
func TestStepClamped(t *testing.T) {
	clampRef := func(b *block, j int, v float64) float64 {
		shape := b.fam == FamilyGamma && j < b.n
		switch {
		case b.logMS && shape, b.logConc():
			return min(max(v, logMinParam), logMaxShape)
		case b.fam == FamilyBeta && j < b.n: // the mean's logit
			return min(max(v, logMinParam-logMaxShape), logMaxShape-logMinParam)
		case b.fam == FamilyBeta: // log concentration
			return min(max(v, logMinParam), logMaxShape)
		case b.fam == FamilyBanded && j >= b.n && j < 2*b.n:
			return min(max(v, logMinParam), -logMinParam)
		case shape:
			return min(max(v, minRaw), maxShape)
		case b.positive(j):
			return max(v, minRaw)
		}
		return v
	}
	const n, poff = 6, 5
	special := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -1e300,
		logMinParam, logMaxShape, minRaw, maxShape, -40, 40, 3.5, -0.25}
	for _, b := range []block{
		{fam: FamilyGamma, n: n}, {fam: FamilyGamma, n: n, logMS: true}, {fam: FamilyLognormal, n: n},
		{fam: FamilyNormal, n: n}, {fam: FamilyBeta, n: n}, {fam: FamilyDirichlet, n: n, k: 3},
		{fam: FamilyPoint, n: n, support: dist.Real}, {fam: FamilyFullRank, n: n}, {fam: FamilyLowRank, n: n, rank: 2},
	} {
		b.poff = poff
		np := b.np()
		rng := rand.New(rand.NewPCG(3, uint64(b.fam)))
		for _, r := range [][2]int{{0, np}, {0, min(n, np)}, {min(n, np), np}, {1, np - 1}, {n - 2, min(n+2, np)}} {
			th := make([]float64, poff+np+3)
			delta := make([]float64, len(th))
			for i := range th {
				th[i] = special[rng.IntN(len(special))]
				delta[i] = special[rng.IntN(len(special))]
			}
			want := append([]float64(nil), th...)
			lo, hi := poff+r[0], poff+r[1]
			for i := lo; i < hi; i++ {
				want[i] = clampRef(&b, i-poff, th[i]+delta[i])
			}
			b.stepClamped(th, delta, lo, hi)
			for i := range th {
				if math.Float64bits(th[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%v logMS=%v range %v: slot %d = %v, want %v", b.fam, b.logMS, r, i-poff, th[i], want[i])
				}
			}
		}
	}
}

package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// gevRefs are log p, log P(Y ≤ y), log P(Y > y) and ∂log p/∂ξ of GEV and
// GeneralizedPareto from their closed forms in 50-digit mpmath (log1p(ξz)/ξ,
// z at ξ = 0; ∂/∂ξ by mpmath.diff), the same forms scipy's genextreme
// (c = −ξ) and genpareto (c = ξ) use.
var gevRefs = []struct {
	name                 string
	p                    []float64
	y                    float64
	lp, lcdf, lccdf, dxi float64
}{
	{"GEV", []float64{100, 25, 0.15}, 120, -4.5574932054113174666, -0.46976412652275904682, -0.98122855173092272376, -0.56851024762811033029},
	{"GEV", []float64{100, 25, 0.15}, 80, -4.5836724217547440257, -2.3448524451289941365, -0.10077255191706002418, 0.39922657370577205879},
	{"GEV", []float64{100, 25, 0.15}, 400, -11.113669281351886495, -0.0010445914281391682583, -6.8646516981229895365, 12.885764192842555077},
	{"GEV", []float64{0, 1, -0.3}, 1.5, -1.5312675781592968369, -0.1363145763961824519, -2.0601731745806647352, -0.61273264974326696891},
	{"GEV", []float64{0, 1, -0.3}, -4, -12.0089638852236054, -13.848697726073569178, -9.6735795206301678512e-7, -32.873703908041031192},
	{"GEV", []float64{0.2, 1.3, 1e-10}, 0.7, -1.3276920474423610255, -0.68071239832842029097, -0.70573853559217341248, -0.36099943773260305857},
	{"GEV", []float64{0.2, 1.3, -1e-10}, 0.7, -1.3276920473701611379, -0.68071239831835058094, -0.7057385356024983083, -0.36099943775902190795},
	{"GEV", []float64{0.2, 1.3, 0}, 0.7, -1.3276920474062610817, -0.68071239832338543595, -0.70573853559733586039, -0.36099943774581248326},
	{"GEV", []float64{0, 1, 1e-10}, -2, -5.3890561000084614473, -7.3890561004084614474, -0.00061817001613769918868, -10.778112203824419482},
	{"GEV", []float64{0, 1, -1e-10}, 30, -30.000000042000093662, -9.3576225477471496395e-14, -30.000000045000046878, 420.0000017099578965},
	{"GEV", []float64{1, 0.5, 0.8}, 2, -1.7596424407941972657, -0.30288887004241075132, -1.3420140899814903678, -0.39875233401014517091},
	{"GeneralizedPareto", []float64{0, 1, 0.3}, 1.5, -1.610108744540759809, -0.34221643649094937778, -1.2385451881082767867, -0.35427466032873257635},
	{"GeneralizedPareto", []float64{0, 1, 0.3}, 50, -12.014551129705718888, -0.000096891965113144336272, -9.2419624074659376853, 17.264874691553125902},
	{"GeneralizedPareto", []float64{0, 1, -0.4}, 0.5, -0.3347153269713146235, -0.84964521850438178143, -0.55785887828552439314, -0.45714719571381097916},
	{"GeneralizedPareto", []float64{0, 1, -0.4}, 2.4, -4.8283137373023013432, -0.00032005121092528856554, -8.0471895621705025365, 69.882026094573773086},
	{"GeneralizedPareto", []float64{1, 2, 1e-10}, 3, -1.6931471806099453094, -0.45867514541618072636, -0.99999999995, -0.49999999996666666667},
	{"GeneralizedPareto", []float64{1, 2, -1e-10}, 3, -1.6931471805099453094, -0.45867514535798305568, -1.00000000005, -0.50000000003333333334},
	{"GeneralizedPareto", []float64{1, 2, 0}, 3, -1.6931471805599453094, -0.45867514538708189102, -1.0, -0.5},
	{"GeneralizedPareto", []float64{1, 2, 1e-10}, 40, -20.193147163497445332, -3.3982678898787509926e-9, -19.499999980987500025, 170.62499954370000101},
	{"GeneralizedPareto", []float64{0, 1, -1.5}, 0.01, 0.0050378792700160569968, -4.6026565338859491487, -0.010075758540032113994, -0.010101267114674539688},
}

// gevRefTol is the agreement with the 50-digit references, relative to
// max(1, |ref|): a few ulps of the logs and of L.
const gevRefTol = 1e-13

func TestGEVReference(t *testing.T) {
	for _, c := range gevRefs {
		u, _ := LookupUnivariate(c.name)
		lo, _ := LogCDF(c.name, false)
		up, _ := LogCDF(c.name, true)
		dp := make([]float64, 3)
		lp, _ := u.Kernel(c.y, c.p, dp)
		lc, _ := lo(c.y, c.p, make([]float64, 3))
		lcc, _ := up(c.y, c.p, make([]float64, 3))
		for _, v := range []struct {
			what      string
			got, want float64
		}{{"log p", lp, c.lp}, {"log CDF", lc, c.lcdf}, {"log CCDF", lcc, c.lccdf}, {"∂log p/∂ξ", dp[2], c.dxi}} {
			if !(math.Abs(v.got-v.want) <= gevRefTol*math.Max(1, math.Abs(v.want))) {
				t.Errorf("%s%v at %g: %s %.17g, want %.17g", c.name, c.p, c.y, v.what, v.got, v.want)
			}
		}
	}
}

// gevXis are the shapes the partials are checked at: both signs, 0 itself
// and either side of it within 1e-10, where (1 + 1/ξ)·log t is 0/0.
var gevXis = []float64{-0.3, -1e-10, 0, 1e-10, 0.3}

// gevFDPoints returns values inside the support of name(μ, σ, ξ).
func gevFDPoints(name string, mu, s, xi float64) []float64 {
	var ls []float64 // values of L = log1p(ξz)/ξ
	if name == "GEV" {
		ls = []float64{-1.5, -0.2, 0.7, 3}
	} else {
		ls = []float64{0.05, 0.7, 3}
	}
	ys := make([]float64, len(ls))
	for i, l := range ls {
		ys[i] = mu + s*expm1Over(l, xi)
	}
	return ys
}

// TestGEVPartials checks every partial of the densities and of both log
// CDFs against gonum's central differences at shapes on both sides of 0.
func TestGEVPartials(t *testing.T) {
	for _, name := range []string{"GEV", "GeneralizedPareto"} {
		u, _ := LookupUnivariate(name)
		lo, _ := LogCDF(name, false)
		up, _ := LogCDF(name, true)
		for _, k := range []struct {
			what string
			k    Kernel
		}{{"log p", u.Kernel}, {"log CDF", lo}, {"log CCDF", up}} {
			for _, xi := range gevXis {
				p := []float64{1.5, 2.5, xi}
				for _, y := range gevFDPoints(name, p[0], p[1], xi) {
					dp := make([]float64, 3)
					_, dy := k.k(y, p, dp)
					check := func(arg string, got float64, f func(float64) float64, at float64) {
						step := fdRelStep * math.Max(1, math.Abs(at))
						want := fd.Derivative(f, at, &fd.Settings{Formula: fd.Central, Step: step})
						if !(math.Abs(got-want) <= partialTol*math.Max(1, math.Abs(want))) {
							t.Errorf("%s %s%v at %g: ∂/∂%s %.12g, central difference %.12g", name, k.what, p, y, arg, got, want)
						}
					}
					check("y", dy, func(v float64) float64 { lp, _ := k.k(v, p, nil3()); return lp }, y)
					for i, arg := range []string{"mu", "sigma", "xi"} {
						check(arg, dp[i], func(v float64) float64 {
							q := append([]float64(nil), p...)
							q[i] = v
							lp, _ := k.k(y, q, nil3())
							return lp
						}, p[i])
					}
				}
			}
		}
	}
}

func nil3() []float64 { return make([]float64, 3) }

// TestGEVAtZero: at ξ = 0 GEV is Gumbel(μ, σ) and GeneralizedPareto is
// μ + Exponential(1/σ), value and partials, also at a subnormal ξ; ξ =
// ±1e-10 is within 1e-9 of them.
func TestGEVAtZero(t *testing.T) {
	gu, _ := LookupUnivariate("Gumbel")
	ex, _ := LookupUnivariate("Exponential")
	for _, y := range []float64{-3, 0.4, 2, 9} {
		mu, s := 0.4, 1.7
		wantG := make([]float64, 2)
		lpG, dyG := gu.Kernel(y, []float64{mu, s}, wantG)
		for _, xi := range []float64{0, 1e-10, -1e-10, 1e-310, -5e-324} { // and subnormal
			tol := 1e-15
			if math.Abs(xi) > 1e-300 {
				tol = 1e-9
			}
			near := func(what string, got, want float64) {
				if !(math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))) {
					t.Errorf("ξ = %g at %g: %s %.17g, the ξ = 0 family's %.17g", xi, y, what, got, want)
				}
			}
			dp := nil3()
			lp, dy := GEV{mu, s, xi}.eval(y, dp)
			near("GEV log p", lp, lpG)
			near("GEV ∂/∂y", dy, dyG)
			near("GEV ∂/∂μ", dp[0], wantG[0])
			near("GEV ∂/∂σ", dp[1], wantG[1])
			for _, upper := range []bool{false, true} {
				gk, _ := LogCDF("Gumbel", upper)
				k, _ := LogCDF("GEV", upper)
				lw, _ := gk(y, []float64{mu, s}, make([]float64, 2))
				lg, _ := k(y, []float64{mu, s, xi}, nil3())
				near("GEV log CDF", lg, lw)
			}
			if y <= mu {
				continue
			}
			wantE := make([]float64, 1)
			lpE, dyE := ex.Kernel(y-mu, []float64{1 / s}, wantE)
			lp, dy = GeneralizedPareto{mu, s, xi}.eval(y, dp)
			near("GeneralizedPareto log p", lp, lpE)
			near("GeneralizedPareto ∂/∂y", dy, dyE)
			near("GeneralizedPareto ∂/∂σ", dp[1], -wantE[0]/(s*s)) // rate 1/σ
		}
	}
}

// TestGEVSupport: a value outside 1 + ξz > 0 (either end, by ξ's sign) or
// below GeneralizedPareto's μ is log 0 with zero partials, and Outside
// says so, from the ends EndsOf reads off all three arguments; a bad
// argument is NaN.
func TestGEVSupport(t *testing.T) {
	for _, c := range []struct {
		name string
		p    []float64
		y    float64
	}{
		{"GEV", []float64{0, 1, 0.5}, -2.5}, {"GEV", []float64{0, 1, -0.5}, 2.5}, {"GEV", []float64{0, 1, 0.5}, -2},
		{"GeneralizedPareto", []float64{1, 2, 0.3}, 0.5}, {"GeneralizedPareto", []float64{1, 2, -0.5}, 5.5},
	} {
		u, _ := LookupUnivariate(c.name)
		dp := []float64{7, 7, 7}
		lp, dy := u.Kernel(c.y, c.p, dp)
		if !math.IsInf(lp, -1) || dy != 0 || dp[0] != 0 || dp[1] != 0 || dp[2] != 0 {
			t.Errorf("%s%v at %g: %g, partials %v %g; want −Inf and zeros", c.name, c.p, c.y, lp, dp, dy)
		}
		if !u.Outside(c.y, c.p, lp) {
			t.Errorf("%s%v at %g: Outside false", c.name, c.p, c.y)
		}
		inside := c.p[0] + c.p[1]*expm1Over(0.3, c.p[2])
		if lp, _ := u.Kernel(inside, c.p, nil); math.IsInf(lp, 0) || math.IsNaN(lp) || u.Outside(inside, c.p, math.Inf(-1)) {
			t.Errorf("%s%v at %g inside: %g, Outside %v", c.name, c.p, inside, lp, u.Outside(inside, c.p, math.Inf(-1)))
		}
		for _, bad := range [][]float64{{0, -1, 0.1}, {0, 1, math.NaN()}, {math.Inf(1), 1, 0.1}} {
			if lp, _ := u.Kernel(1, bad, nil); !math.IsNaN(lp) {
				t.Errorf("%s%v: %g, want NaN", c.name, bad, lp)
			}
		}
	}
}

// TestGEVMoments: GEV's mean and variance against (Γ(1 − ξ) − 1)/ξ and
// (Γ(1 − 2ξ) − Γ(1 − ξ)²)/ξ² in 50-digit mpmath, in the series' range
// near 0 and out of it (at ξ = −1.01e-4 a log Γ(1 − 2ξ) of 1 − 2ξ
// rounded, less 2 log Γ(1 − ξ), was 7.6e-9 off).
func TestGEVMoments(t *testing.T) {
	for _, c := range []struct{ xi, g1, v float64 }{
		{5e-5, 0.57726511997011967159, 1.645149250008818625},
		{-5e-5, 0.57716621437034144231, 1.644718942279330855},
		{1e-3, 0.5782056293586479901, 1.649248889005168958},
		{0.2, 0.82114856862651686818, 3.3440355622978813954},
		{-0.3, 0.34176434564574270502, 0.97846331732462491433},
		{1.01e-4, 0.57731556881526661856, 1.6453687972144291984},
		{-1.01e-4, 0.57711577950218741722, 1.6444995755595915718},
		{-2e-3, 0.57524117498903674827, 1.6363745744154572702},
		{0.3, 0.99351777549185926376, 5.9245766349214031626},
		{0.45, 1.369165041630167, 34.082222452736299355},
		{-0.45, 0.25408582161983982183, 0.87590000693198458255},
		{0, eulerGamma, math.Pi * math.Pi / 6},
		{-5e-324, eulerGamma, math.Pi * math.Pi / 6}, // subnormal: 0
	} {
		d := GEV{2, 3, c.xi}
		if got, want := d.Mean(), 2+3*c.g1; !(math.Abs(got-want) <= 1e-12*math.Abs(want)) {
			t.Errorf("GEV(2, 3, %g): mean %.17g, want %.17g", c.xi, got, want)
		}
		if got, want := d.Variance(), 9*c.v; !(math.Abs(got-want) <= 1e-11*math.Abs(want)) {
			t.Errorf("GEV(2, 3, %g): variance %.17g, want %.17g", c.xi, got, want)
		}
	}
}

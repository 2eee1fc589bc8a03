package sgvb

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// normalMM is a conjugate model for moment matching: y_i ~ N(μ, 1),
// μ ~ N(0, 10²), and a second coordinate ν ~ N(0, 1) that no observation
// informs; draws are exact posterior draws of (μ, ν).
type normalMM struct{ y []float64 }

const mmTau = 10.0

func (m normalMM) logJoint(mu, nu float64) float64 {
	lp := -0.5*mu*mu/(mmTau*mmTau) - 0.5*nu*nu
	for _, y := range m.y {
		lp += -0.5 * (y - mu) * (y - mu)
	}
	return lp
}

// posterior returns the mean and sd of μ given the observations but skip
// (−1: none).
func (m normalMM) posterior(skip int) (mean, sd float64) {
	prec, sum := 1/(mmTau*mmTau), 0.0
	for i, y := range m.y {
		if i != skip {
			prec++
			sum += y
		}
	}
	return sum / prec, 1 / math.Sqrt(prec)
}

// exactELPD is log p(y_i | y_−i): N(y_i | m_−i, s²_−i + 1).
func (m normalMM) exactELPD(i int) float64 {
	mean, sd := m.posterior(i)
	return normLogPDF(m.y[i], mean, math.Sqrt(sd*sd+1))
}

func (m normalMM) draws(S int, seed uint64) (MMDraws, func(i int) []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	mean, sd := m.posterior(-1)
	d := MMDraws{Dim: 2, X: make([]float64, 2*S), LogP: make([]float64, S), Reff: 1}
	for s := range S {
		mu, nu := mean+sd*rng.NormFloat64(), rng.NormFloat64()
		d.X[2*s], d.X[2*s+1] = mu, nu
		d.LogP[s] = m.logJoint(mu, nu)
	}
	ll := func(i int) []float64 {
		out := make([]float64, S)
		for s := range S {
			out[s] = normLogPDF(m.y[i], d.X[2*s], 1)
		}
		return out
	}
	return d, ll
}

func (m normalMM) eval(i int) MMEval {
	return func(xs, lp, ll, _ []float64) {
		for r := range lp {
			mu, nu := xs[2*r], xs[2*r+1]
			lp[r], ll[r] = m.logJoint(mu, nu), normLogPDF(m.y[i], mu, 1)
		}
	}
}

func TestMomentMatchLOOOutlier(t *testing.T) {
	m := normalMM{y: []float64{-0.4, 0.3, 0.1, -0.2, 0.5, 0, -0.1, 0.2, 9}}
	i := len(m.y) - 1
	exact := m.exactELPD(i)
	var errMM, errPSIS float64
	const seeds = 5
	for seed := uint64(1); seed <= seeds; seed++ {
		d, ll := m.draws(4000, seed)
		plain := PSISLOOMCMC([][]float64{ll(i)}, []float64{1}).Points[0]
		r := MomentMatchLOO(d, ll(i), m.eval(i))
		t.Logf("seed %d: exact %.4f; PSIS %.4f (k̂ %.2f); moment matched %.4f (k̂ %.2f → %.2f, %d shifts, %d scales, %d evaluations)",
			seed, exact, plain.ELPD, plain.K, r.Point.ELPD, r.K0, r.Point.K, r.Shifts, r.Scales, r.Evals)
		if r.K0 != plain.K {
			t.Errorf("seed %d: k̂ before moment matching %v, PSISLOOMCMC's %v", seed, r.K0, plain.K)
		}
		if !(plain.K > 0.7) {
			t.Fatalf("seed %d: the outlier's k̂ is %v: the test wants one above 0.7", seed, plain.K)
		}
		if !(r.Point.K < 0.5) || r.Shifts+r.Scales == 0 {
			t.Errorf("seed %d: k̂ after moment matching %v with %d moves, want below 0.5", seed, r.Point.K, r.Shifts+r.Scales)
		}
		errMM += math.Abs(r.Point.ELPD-exact) / seeds
		errPSIS += math.Abs(plain.ELPD-exact) / seeds
		lpd := plain.ELPD + plain.P
		if math.Abs(r.Point.ELPD+r.Point.P-lpd) > 1e-12 {
			t.Errorf("seed %d: lpd_i %v, want the unmoved draws' %v", seed, r.Point.ELPD+r.Point.P, lpd)
		}
	}
	// The outlier's likelihood varies by e^(8.9 δμ) over the posterior, so
	// even well-matched draws leave a Monte Carlo error of a few hundredths.
	t.Logf("mean absolute error: moment matched %.4f, PSIS %.4f", errMM, errPSIS)
	if !(errMM < 0.05 && errMM < errPSIS/2) {
		t.Errorf("mean absolute error of elpd_i over %d seeds: moment matched %.4f, PSIS %.4f; want under 0.05 and half PSIS's", seeds, errMM, errPSIS)
	}
}

func TestMomentMatchLOOGoodKUnchanged(t *testing.T) {
	m := normalMM{y: []float64{-0.4, 0.3, 0.1, -0.2, 0.5, 0, -0.1, 0.2, 0.6}}
	d, ll := m.draws(2000, 3)
	for i := range m.y {
		plain := PSISLOOMCMC([][]float64{ll(i)}, []float64{1}).Points[0]
		r := MomentMatchLOO(d, ll(i), func(xs, lp, ll, _ []float64) { t.Fatal("evaluated moved draws where k̂ is low") })
		if r.Point != plain || r.Evals != 0 {
			t.Errorf("observation %d: %+v with %d evaluations, want PSISLOOMCMC's %+v", i, r.Point, r.Evals, plain)
		}
	}
}

// TestMomentMatchLOOScale leaves out the one observation z = 0 ~ N(ν, σ²)
// of ν ~ N(0, 3²): the LOO posterior is the prior, 6–15 times wider than
// the posterior (σ = 0.5, 0.2), so only moves that match the variance as
// well as the mean bring k̂ down. log p(z | no data) = log N(0 | 0, 9 + σ²).
func TestMomentMatchLOOScale(t *testing.T) {
	const tau, S = 3.0, 4000
	for _, sdz := range []float64{0.5, 0.2} {
		post := 1 / math.Sqrt(1/(tau*tau)+1/(sdz*sdz))
		exact := normLogPDF(0, 0, math.Sqrt(tau*tau+sdz*sdz))
		joint := func(nu float64) (lp, ll float64) {
			ll = normLogPDF(0, nu, sdz)
			return normLogPDF(nu, 0, tau) + ll, ll
		}
		eval := func(xs, lp, ll, _ []float64) {
			for r, x := range xs {
				lp[r], ll[r] = joint(x)
			}
		}
		for seed := uint64(1); seed <= 3; seed++ {
			rng := rand.New(rand.NewPCG(seed, 9))
			d := MMDraws{Dim: 1, X: make([]float64, S), LogP: make([]float64, S), Reff: 1}
			ll := make([]float64, S)
			for s := range S {
				d.X[s] = post * rng.NormFloat64()
				d.LogP[s], ll[s] = joint(d.X[s])
			}
			plain := PSISLOOMCMC([][]float64{ll}, []float64{1}).Points[0]
			r := MomentMatchLOO(d, ll, eval)
			t.Logf("σ %v seed %d: exact %.4f; PSIS %.4f (k̂ %.2f); moment matched %.4f (k̂ %.2f → %.2f, %d shifts, %d scales)",
				sdz, seed, exact, plain.ELPD, plain.K, r.Point.ELPD, r.K0, r.Point.K, r.Shifts, r.Scales)
			if r.Scales == 0 || !(r.Point.K < 0.7) {
				t.Errorf("σ %v seed %d: %d variance-matching moves, k̂ %v after: want at least one and k̂ below 0.7", sdz, seed, r.Scales, r.Point.K)
			}
			if e := math.Abs(r.Point.ELPD - exact); !(e < 0.1) {
				t.Errorf("σ %v seed %d: moment-matched elpd_i %v, exact %v: off by %.3g (PSIS by %.3g)", sdz, seed, r.Point.ELPD, exact, e, math.Abs(plain.ELPD-exact))
			}
		}
	}
}

// TestMomentMatchLOOCovariance leaves out a point of high leverage and
// large residual from a linear regression y = α + βx + N(0, 1), α, β ~
// N(0, 10²): without it the posterior of (α, β) moves, widens and turns
// (the slope is then known from x in ±0.3 only), so the moves that match
// the covariance come into play. The exact log p(y_i | y_−i) is normal with
// variance 1 + x_iᵀV_−i x_i.
func TestMomentMatchLOOCovariance(t *testing.T) {
	xs := []float64{-0.3, -0.1, 0, 0.1, 0.2, 0.3, -0.2, 0.05, 4}
	ys := []float64{0.1, -0.2, 0.3, 0.0, 0.2, 0.1, -0.1, 0.2, 9}
	post := func(skip int) (m [2]float64, L [2][2]float64, V [2][2]float64) {
		var P [2][2]float64
		P[0][0], P[1][1] = 0.01, 0.01
		var b [2]float64
		for i := range xs {
			if i == skip {
				continue
			}
			P[0][0]++
			P[0][1] += xs[i]
			P[1][1] += xs[i] * xs[i]
			b[0] += ys[i]
			b[1] += xs[i] * ys[i]
		}
		P[1][0] = P[0][1]
		det := P[0][0]*P[1][1] - P[0][1]*P[1][0]
		V = [2][2]float64{{P[1][1] / det, -P[0][1] / det}, {-P[1][0] / det, P[0][0] / det}}
		m = [2]float64{V[0][0]*b[0] + V[0][1]*b[1], V[1][0]*b[0] + V[1][1]*b[1]}
		L[0][0] = math.Sqrt(V[0][0])
		L[1][0] = V[1][0] / L[0][0]
		L[1][1] = math.Sqrt(V[1][1] - L[1][0]*L[1][0])
		return
	}
	joint := func(a, b float64, i int) (float64, float64) {
		lp := -0.5 * (a*a + b*b) / 100
		var l float64
		for j := range xs {
			r := ys[j] - a - b*xs[j]
			lj := -0.5*r*r - 0.5*math.Log(2*math.Pi)
			lp += lj
			if j == i {
				l = lj
			}
		}
		return lp, l
	}
	i := len(xs) - 1
	mi, _, Vi := post(i)
	exact := normLogPDF(ys[i], mi[0]+mi[1]*xs[i], math.Sqrt(1+Vi[0][0]+2*xs[i]*Vi[0][1]+xs[i]*xs[i]*Vi[1][1]))
	m, L, _ := post(-1)
	const seeds = 5
	var errMM, errPSIS float64
	covs := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		S := 4000
		d := MMDraws{Dim: 2, X: make([]float64, 2*S), LogP: make([]float64, S), Reff: 1}
		ll := make([]float64, S)
		for s := range S {
			z1, z2 := rng.NormFloat64(), rng.NormFloat64()
			a := m[0] + L[0][0]*z1
			b := m[1] + L[1][0]*z1 + L[1][1]*z2
			d.X[2*s], d.X[2*s+1] = a, b
			d.LogP[s], ll[s] = joint(a, b, i)
		}
		plain := PSISLOOMCMC([][]float64{ll}, []float64{1}).Points[0]
		r := MomentMatchLOO(d, ll, func(x, lp, l, _ []float64) {
			for q := range lp {
				lp[q], l[q] = joint(x[2*q], x[2*q+1], i)
			}
		})
		t.Logf("seed %d: exact %.4f; PSIS %.4f (k̂ %.2f); moment matched %.4f (k̂ %.2f → %.2f, %d shifts, %d scales, %d covariances)",
			seed, exact, plain.ELPD, plain.K, r.Point.ELPD, r.K0, r.Point.K, r.Shifts, r.Scales, r.Covs)
		errMM += math.Abs(r.Point.ELPD-exact) / seeds
		errPSIS += math.Abs(plain.ELPD-exact) / seeds
		covs += r.Covs
	}
	// One seed in five keeps every move out (its weights rest on a few
	// draws, and no move lowers k̂), as loo's algorithm does too.
	if covs == 0 || !(errMM < errPSIS/3) {
		t.Errorf("%d covariance-matching moves over %d seeds; mean absolute error of elpd_i %.3g moment matched, %.3g PSIS: want some moves and a third of PSIS's error",
			covs, seeds, errMM, errPSIS)
	}
}

// TestAffineInverse: T⁻¹ undoes T, diagonal or dense, with log |det T|.
func TestAffineInverse(t *testing.T) {
	x := []float64{0.3, -1.2, 2.5, 0.7, -0.4, 1.1}
	for _, tr := range []affine{
		{a: []float64{2, 0.5, -3}, c: []float64{1, -2, 0.25}},
		{A: mat.NewDense(3, 3, []float64{2, 0.3, 0, -0.4, 0.5, 0.1, 0.2, 0, -3}), c: []float64{1, -2, 0.25}},
	} {
		y := make([]float64, len(x))
		for r := range 2 {
			for j := range 3 {
				if tr.A == nil {
					y[3*r+j] = tr.a[j]*x[3*r+j] + tr.c[j]
					continue
				}
				y[3*r+j] = tr.c[j]
				for l := range 3 {
					y[3*r+j] += tr.A.At(j, l) * x[3*r+l]
				}
			}
		}
		back := make([]float64, len(x))
		logDet, ok := tr.inverse(back, y)
		want := math.Log(3) // |2 · 0.5 · −3|
		if tr.A != nil {
			want = math.Log(math.Abs(mat.Det(tr.A)))
		}
		if !ok || math.Abs(logDet-want) > 1e-14 {
			t.Errorf("log |det T| %v (ok %v), want %v", logDet, ok, want)
		}
		for i := range x {
			if math.Abs(back[i]-x[i]) > 1e-14 {
				t.Errorf("T⁻¹(T(x))[%d] = %v, want %v", i, back[i], x[i])
			}
		}
	}
}

// TestMomentMatchLOOProposal: draws of an approximation q of the posterior
// (its mean 0.2 sd too high, its sd 1.3 times too wide), weighted by p/q as
// PSISLOO weights a fit's, are moment matched for the outlier with q's
// density as the proposal: k̂ falls below 0.7 (on the seed where it is
// already at 0.698 nothing moves and the estimate is PSISLOO's), and
// elpd_i is within 0.05 of the exact value on average, half PSISLOO's
// error or less.
func TestMomentMatchLOOProposal(t *testing.T) {
	m := normalMM{y: []float64{-0.4, 0.3, 0.1, -0.2, 0.5, 0, -0.1, 0.2, 9}}
	i := len(m.y) - 1
	exact := m.exactELPD(i)
	pm, psd := m.posterior(-1)
	qm, qsd := pm+0.2*psd, 1.3*psd
	logQ := func(mu, nu float64) float64 { return normLogPDF(mu, qm, qsd) + normLogPDF(nu, 0, 1.3) }
	const S, seeds = 4000, 5
	var errMM, errPSIS float64
	for seed := uint64(1); seed <= seeds; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		d := MMDraws{Dim: 2, X: make([]float64, 2*S), LogP: make([]float64, S), LogG: make([]float64, S), Reff: 1}
		ll, lr := make([]float64, S), make([]float64, S)
		for s := range S {
			mu, nu := qm+qsd*rng.NormFloat64(), 1.3*rng.NormFloat64()
			d.X[2*s], d.X[2*s+1] = mu, nu
			d.LogP[s], d.LogG[s] = m.logJoint(mu, nu), logQ(mu, nu)
			ll[s], lr[s] = normLogPDF(m.y[i], mu, 1), d.LogP[s]-d.LogG[s]
		}
		plain := PSISLOO(lr, [][]float64{ll}).Points[0]
		r := MomentMatchLOO(d, ll, func(xs, lp, l, lg []float64) {
			for q := range lp {
				mu, nu := xs[2*q], xs[2*q+1]
				lp[q], l[q], lg[q] = m.logJoint(mu, nu), normLogPDF(m.y[i], mu, 1), logQ(mu, nu)
			}
		})
		t.Logf("seed %d: exact %.4f; PSISLOO %.4f (k̂ %.2f); moment matched %.4f (k̂ %.2f → %.2f, %d shifts, %d scales, %d covariances)",
			seed, exact, plain.ELPD, plain.K, r.Point.ELPD, r.K0, r.Point.K, r.Shifts, r.Scales, r.Covs)
		if math.Abs(r.K0-plain.K) > 1e-9 || math.Abs(r.Point.ELPD+r.Point.P-(plain.ELPD+plain.P)) > 1e-9 {
			t.Errorf("seed %d: k̂ before %v and lpd_i %v; PSISLOO's %v and %v", seed, r.K0, r.Point.ELPD+r.Point.P, plain.K, plain.ELPD+plain.P)
		}
		switch {
		case !(plain.K > MMThreshold(S)):
			if r.Evals != 0 || math.Abs(r.Point.ELPD-plain.ELPD) > 1e-9 {
				t.Errorf("seed %d: k̂ %v needs no matching, but %d points were evaluated and elpd_i is %v, PSISLOO's %v", seed, plain.K, r.Evals, r.Point.ELPD, plain.ELPD)
			}
		case !(r.Point.K < 0.7):
			t.Errorf("seed %d: k̂ %v → %v: want below 0.7 after", seed, plain.K, r.Point.K)
		}
		errMM += math.Abs(r.Point.ELPD-exact) / seeds
		errPSIS += math.Abs(plain.ELPD-exact) / seeds
	}
	t.Logf("mean absolute error: moment matched %.4f, PSISLOO %.4f", errMM, errPSIS)
	if !(errMM < 0.05 && errMM < errPSIS/2) {
		t.Errorf("mean absolute error of elpd_i: moment matched %.4f, PSISLOO %.4f: want under 0.05 and half PSISLOO's", errMM, errPSIS)
	}
}

// TestMomentMatchLOODefensive mimics a fit's LOO draws: the outlier model
// y_i ~ N(μ, σ), μ ~ N(0, 10²), σ ~ Gamma(2, 1), on (μ, log σ), with a
// proposal ½q + ½g (q normal on both coordinates, roughly gpp fit's q of
// the nine points; g independent t₃'s twice as wide) whose draws come in
// two blocks, q's then g's. The exact log p(y_9 | y_−9) = −16.9709 is by
// quadrature over σ with μ integrated out (mpmath, 30 digits). Splitting
// the draws into a first and a second half, not alternate ones, put q's
// draws alone in the moved half and biased elpd_i by −0.7 to −1.1 nats
// with k̂ below 0.5. The split can leave k̂ above 0.7 where the moves had
// brought it below (one seed of five here, 0.81), as loo's can. The same
// draws alternating q, g, q, g (as a fit of --restarts 2 draws from its
// restarts in turn) need MMDraws.Period 2: the split on alternate draws
// alone moved q's and kept g's, biasing elpd_i by −0.65 nats on average
// with k̂ below 0.6.
func TestMomentMatchLOODefensive(t *testing.T) {
	for _, cycles := range []bool{false, true} {
		t.Run(map[bool]string{false: "blocks", true: "cycles"}[cycles], func(t *testing.T) { momentMatchDefensive(t, cycles) })
	}
}

func momentMatchDefensive(t *testing.T, cycles bool) {
	const exact = -16.9709012533570
	y := []float64{0.3, -0.5, 0.1, 0.9, -0.2, 0.4, -0.7, 0.2, 12}
	i := len(y) - 1
	joint := func(mu, lsd float64) (lp, ll float64) {
		s := math.Exp(lsd)
		lp = normLogPDF(mu, 0, 10) + math.Log(s) - s + lsd // Gamma(2, 1) on σ, and the Jacobian
		for j, v := range y {
			l := normLogPDF(v, mu, s)
			lp += l
			if j == i {
				ll = l
			}
		}
		return lp, ll
	}
	loc, sd := [2]float64{1.3, 1.33}, [2]float64{1.2, 0.2}
	logT3 := func(x, m, s float64) float64 {
		z := (x - m) / s
		return math.Log(2/math.Sqrt(3)) - math.Log(math.Pi*s) - 2*math.Log1p(z*z/3)
	}
	logG := func(x []float64) float64 {
		q, g := 0.0, 0.0
		for j := range 2 {
			q += normLogPDF(x[j], loc[j], sd[j])
			g += logT3(x[j], loc[j], 2*sd[j])
		}
		return math.Log(0.5*math.Exp(q) + 0.5*math.Exp(g))
	}
	const S, seeds = 2000, 5
	var errMM, errPSIS float64
	good := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		d := MMDraws{Dim: 2, X: make([]float64, 2*S), LogP: make([]float64, S), LogG: make([]float64, S), Reff: 1}
		fromG := func(s int) bool { return s >= S/2 }
		if cycles {
			d.Period = 2
			fromG = func(s int) bool { return s%2 == 1 }
		}
		ll, lr := make([]float64, S), make([]float64, S)
		for s := range S {
			x := d.X[2*s : 2*s+2]
			for j := range 2 {
				z := rng.NormFloat64()
				if fromG(s) { // a t₃: z/√(χ²₃/3)
					c := 0.0
					for range 3 {
						e := rng.NormFloat64()
						c += e * e
					}
					z *= 2 / math.Sqrt(c/3)
				}
				x[j] = loc[j] + sd[j]*z
			}
			d.LogP[s], ll[s] = joint(x[0], x[1])
			d.LogG[s] = logG(x)
			lr[s] = d.LogP[s] - d.LogG[s]
		}
		plain := PSISLOO(lr, [][]float64{ll}).Points[0]
		r := MomentMatchLOO(d, ll, func(xs, lp, l, lg []float64) {
			for q := range lp {
				lp[q], l[q] = joint(xs[2*q], xs[2*q+1])
				lg[q] = logG(xs[2*q : 2*q+2])
			}
		})
		t.Logf("seed %d: PSISLOO %.4f (k̂ %.2f); moment matched %.4f (k̂ %.2f, %d shifts, %d scales, %d covariances)",
			seed, plain.ELPD, plain.K, r.Point.ELPD, r.Point.K, r.Shifts, r.Scales, r.Covs)
		if !(plain.K > 0.7) || !(r.Point.K < plain.K) {
			t.Errorf("seed %d: k̂ %v → %v: want above 0.7 before and lower after", seed, plain.K, r.Point.K)
		}
		if r.Point.K < 0.7 {
			good++
		}
		errMM += math.Abs(r.Point.ELPD-exact) / seeds
		errPSIS += math.Abs(plain.ELPD-exact) / seeds
	}
	t.Logf("mean absolute error: moment matched %.3f, PSISLOO %.3f", errMM, errPSIS)
	if !(errMM < 0.2) || good < seeds-1 {
		t.Errorf("mean absolute error of elpd_i %.3f (PSISLOO's %.3f), k̂ below 0.7 after on %d of %d seeds: want under 0.2, and all but one", errMM, errPSIS, good, seeds)
	}
}

// TestMomentMatchAffine: the map T that the moves accumulate (diagonal,
// then dense after a covariance move) sends each draw θ_s to the moved
// draw φ_s, its inverse sends φ_s back, and its log determinant is
// log |det A|, after a run of moves forced to be kept (k̂ set to +Inf
// before each), with scale moves after covariance moves too.
func TestMomentMatchAffine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const S, n = 200, 3
	f := func(x []float64) (lp, ll float64) {
		for j := range x {
			lp -= 0.5 * x[j] * x[j] * float64(j+1)
		}
		return lp, -0.5 * (x[0] + x[1] - 1) * (x[0] + x[1] - 1)
	}
	d := MMDraws{Dim: n, X: make([]float64, S*n), LogP: make([]float64, S)}
	ll := make([]float64, S)
	for s := range S {
		for j := range n {
			d.X[s*n+j] = rng.NormFloat64() / math.Sqrt(float64(j+1))
		}
		d.LogP[s], ll[s] = f(d.X[s*n : (s+1)*n])
	}
	eval := func(xs, lp, ll, _ []float64) {
		for s := range lp {
			lp[s], ll[s] = f(xs[s*n : (s+1)*n])
		}
	}
	m := newMMState(d, ll, eval)
	check := func(when string) {
		t.Helper()
		A := m.t.A
		if A == nil {
			A = mat.NewDense(n, n, nil)
			for j, v := range m.t.a {
				A.Set(j, j, v)
			}
		}
		inv := make([]float64, S*n)
		logDet, ok := m.t.inverse(inv, m.phi)
		if !ok {
			t.Fatalf("%s: T not inverted", when)
		}
		if want := math.Log(math.Abs(mat.Det(A))); math.Abs(logDet-want) > 1e-10 {
			t.Errorf("%s: log |det T| %v, want %v", when, logDet, want)
		}
		worst := 0.0
		for s := range S {
			for j := range n {
				v := m.t.c[j]
				for l := range n {
					v += A.At(j, l) * d.X[s*n+l]
				}
				worst = math.Max(worst, math.Max(math.Abs(v-m.phi[s*n+j]), math.Abs(inv[s*n+j]-d.X[s*n+j])))
			}
		}
		if worst > 1e-10 {
			t.Errorf("%s: T(θ) − φ or T⁻¹(φ) − θ up to %g", when, worst)
		}
	}
	moves := []struct {
		name string
		move func() bool
	}{{"scale", m.scale}, {"shift", m.shift}, {"scale", m.scale}, {"covariance", m.covariance},
		{"scale", m.scale}, {"covariance", m.covariance}, {"shift", m.shift}}
	for i, mv := range moves {
		m.k = math.Inf(1)
		if !mv.move() {
			t.Fatalf("move %d (%s) not kept", i, mv.name)
		}
		check(fmt.Sprintf("after move %d (%s)", i, mv.name))
	}
}

// TestLOOReffDefault: a relative efficiency that is not a positive finite
// number counts as 1, in PSISLOOMCMC, LOOLogWeights and MomentMatchLOO
// alike (relEff).
func TestLOOReffDefault(t *testing.T) {
	m := normalMM{y: []float64{-0.4, 0.3, 0.1, -0.2, 0.5, 0, -0.1, 0.2, 9}}
	i := len(m.y) - 1
	d, ll := m.draws(1000, 2)
	l := ll(i)
	d.Reff = 1
	want, wantMM := PSISLOOMCMC([][]float64{l}, []float64{1}).Points[0], MomentMatchLOO(d, l, m.eval(i))
	wantW := LOOLogWeights(nil, l, 1)
	for _, r := range []float64{0, -2, math.NaN(), math.Inf(1)} {
		if got := PSISLOOMCMC([][]float64{l}, []float64{r}).Points[0]; got != want {
			t.Errorf("reff %v: PSISLOOMCMC %+v, want reff 1's %+v", r, got, want)
		}
		if got := LOOLogWeights(nil, l, r); !slices.Equal(got, wantW) {
			t.Errorf("reff %v: LOOLogWeights differ from reff 1's", r)
		}
		d.Reff = r
		if got := MomentMatchLOO(d, l, m.eval(i)); got != wantMM {
			t.Errorf("reff %v: MomentMatchLOO %+v, want reff 1's %+v", r, got, wantMM)
		}
	}
}

package dist

import (
	"math"
	"math/rand/v2"
)

// BetaProportion is the beta distribution in its mean and precision (Stan's
// beta_proportion): Beta(Mu·Kappa, (1−Mu)·Kappa) on (0, 1), with the mean Mu
// in (0, 1) and the precision Kappa > 0, the likelihood of a beta
// regression (a mean per observation, one precision).
//
// Its log density is Beta's, Loader's form for shapes above 2 and the plain
// sum below, with the sum of the shapes taken as Kappa itself, so that
// what depends on Kappa alone (log Γ(κ), ψ(κ), the Stirling correction of
// κ − 2) can be hoisted out of a regression's loop. The partials come
// through ψ(z) − log z rather than the digamma differences of Beta's
// kernel: with a = μκ, b = (1−μ)κ,
//
//	∂/∂μ = κ·[log(x/μ) − log((1−x)/(1−μ)) − r(a) + r(b)]
//	∂/∂κ = μ·log(x/μ) + (1−μ)·log((1−x)/(1−μ)) + r(κ) − μ·r(a) − (1−μ)·r(b)
//
// for r(z) = ψ(z) − log z, in which the logarithms of the shapes, of order
// log κ, have cancelled exactly: at κ = 10⁶, μ = 0.3, x = 0.3005 the
// partial in κ is −9.486e−8, within 1.3e−12 of mpmath, where μ·∂/∂a +
// (1−μ)·∂/∂b from Beta's partials, a difference of terms of order 1, is
// 2e−10 off.
//
// A shape that underflows to 0 (μκ below the smallest float64) gives the
// log density −Inf, as a value outside the support.
type BetaProportion struct {
	Mu, Kappa float64
}

// LogProb returns the log density at x.
func (d BetaProportion) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Mu, Kappa) into
// dst (allocated if nil) and returns it.
func (d BetaProportion) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d BetaProportion) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw, Beta's with the shapes Mu·Kappa and (1−Mu)·Kappa.
func (d BetaProportion) Rand(rng *rand.Rand) float64 {
	return Beta{d.Mu * d.Kappa, (1 - d.Mu) * d.Kappa}.Rand(rng)
}

// Mean returns Mu.
func (d BetaProportion) Mean() float64 { return d.Mu }

// Variance returns Mu·(1−Mu)/(1+Kappa).
func (d BetaProportion) Variance() float64 { return d.Mu * (1 - d.Mu) / (1 + d.Kappa) }

func (d BetaProportion) eval(x float64, dp []float64) (float64, float64) {
	mu, kappa := d.Mu, d.Kappa
	if !(mu > 0 && mu < 1) || !positive(kappa) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0 && x < 1) {
		return outside(dp)
	}
	a, b := mu*kappa, (1-mu)*kappa
	if a == 0 || b == 0 {
		return outside(dp) // a shape below the smallest float64
	}
	lp, ok := 0.0, false
	if a > 2 && b > 2 {
		n := kappa - 2
		lp, ok = betaPropLoader(a, b, x, n, logx(kappa-1), stirlerr(n), logx(n))
	}
	if !ok { // the parts of κ that betaPropPlain's branch reads
		if max(a, b) >= stirlingMin {
			lp = betaPropPlain(a, b, x, kappa, stirlerr(kappa), logx(kappa), 0)
		} else {
			lg, _ := math.Lgamma(kappa)
			lp = betaPropPlain(a, b, x, kappa, 0, 0, lg)
		}
	}
	if dp != nil {
		betaPropPartials(x, mu, kappa, a, b, digammaRem(kappa), dp)
	}
	return lp, (a-1)/x - (b-1)/(1-x)
}

// digammaRem returns r(z) = ψ(z) − log z for z > 0: digammaAsymp from
// polygammaShift on, below it Digamma's shift to x = z + m ≥ polygammaShift
// with log(x/z) for log x − log z, one logarithm where Digamma(z) − log z
// takes two (r < −1/(2z) has no root, near which Digamma needs its two-sum).
func digammaRem(z float64) float64 {
	if z >= polygammaShift {
		return digammaAsymp(z)
	}
	var shift, comp float64
	x := z
	for x < polygammaShift {
		var e float64
		shift, e = twoSum(shift, 1/x)
		comp += e
		x++
	}
	l := logQuot(x, z)
	hi, lo := twoSum(l, -shift)
	return hi + (lo - comp + digammaAsymp(x))
}

// logQuot returns log(x/m) for x, m > 0: through log1p of the relative
// difference where x is within a factor 1.5 of m (x − m is then exact),
// else one logarithm of the quotient, two where it leaves the normal
// float64s.
func logQuot(x, m float64) float64 {
	d := x - m
	if math.Abs(d) < 0.5*m {
		return math.Log1p(d / m)
	}
	if q := x / m; q >= 0x1p-1022 && q < math.Inf(1) {
		return math.Log(q)
	}
	return logx(x) - logx(m)
}

// betaPropPartials writes BetaProportion's partials in μ and κ at x into
// dp (the type's comment), for the shapes a = μκ, b = (1−μ)κ and rk = r(κ).
func betaPropPartials(x, mu, kappa, a, b, rk float64, dp []float64) {
	u := logQuot(x, mu) // log(x/μ)
	// log((1−x)/(1−μ)) = log1p((μ−x)/(1−μ)), with μ − x exact near μ;
	// elsewhere the log of the quotient, whose terms are exact or within
	// half an ulp (1 − x and 1 − μ of values in (0, 1)).
	var v float64
	t := 1 - mu
	if d := mu - x; math.Abs(d) < 0.5*t {
		v = math.Log1p(d / t)
	} else {
		v = math.Log((1 - x) / t)
	}
	ra, rb := digammaRem(a), digammaRem(b)
	dp[0] = kappa * (u - v + (rb - ra))
	dp[1] = mu*u + t*v + (rk - mu*ra - t*rb)
}

// betaPropLoader is betaLogDensity's Loader form (a, b > 2) with n = κ − 2
// in place of (a−1) + (b−1), given l1 = log(κ−1), stn = stirlerr(n) and
// ln = log n; ok is false where (a−1)/(n·x) or (b−1)/(n·(1−x)) overflows,
// for betaPropPlain's sum, as betaLogDensity falls back. Loader's form does not depend on n to first order (its derivative in n
// is 1 − (k+j)/n + 1/(2n)), so κ − 2 for the rounded sum of the shapes
// moves it by rounding errors only.
func betaPropLoader(a, b, x, n, l1, stn, ln float64) (lp float64, ok bool) {
	k, j := a-1, b-1
	t := 1 - x
	mx, mxlo := twoProd(n, x)
	my, mylo := twoProd(n, t)
	mylo += n * ((1 - t) - x) // 1 − x = t + ((1 − t) − x), both exact for 0 < x < 1
	rx, ry := k/mx, j/my
	if math.IsInf(rx, 1) || math.IsInf(ry, 1) {
		return 0, false
	}
	lk, lj := logx(k), logx(j)
	lc := stn - stirlerrLog(k, lk) - stirlerrLog(j, lj) - bd0(k, mx) - bd0(j, my)
	return l1 + (lc - 0.5*(ln2Pi+lk+lj-ln)) - mxlo*(1-rx) - mylo*(1-ry), true
}

// stirlerrLog is stirlerr(n) given ln = log n, bit for bit.
func stirlerrLog(n, ln float64) float64 {
	if n >= stirlingMin {
		return stirlingCorr(n)
	}
	return lgamma1p(n) - (n+0.5)*ln + n - lnSqrt2Pi
}

// betaPropPlain is (a−1)·log x + (b−1)·log(1−x) − log B(a, b), with
// LogBeta's grouping and κ for the sum of the shapes, from sts =
// stirlerr(κ) and ls = log κ where max(a, b) ≥ stirlingMin, else from
// lg = log Γ(κ). LogBeta's Stirling forms barely depend on the sum either
// (the derivative in it of q·log1p(−p/s) − p·log s cancels to O(p/s²)).
func betaPropPlain(a, b, x, s, sts, ls, lg float64) float64 {
	lx, l1x := logx(x), math.Log1p(-x)
	p, q := min(a, b), max(a, b)
	var lb float64
	switch {
	case p >= stirlingMin:
		corr := stirlerr(p) + stirlerr(q) - sts
		lb = lnSqrt2Pi - 0.5*logx(q) + corr + (p-0.5)*logx(p/s) + q*math.Log1p(-p/s)
	case q >= stirlingMin:
		lp, _ := math.Lgamma(p)
		corr := stirlerr(q) - sts
		lb = lp + corr + p - p*ls + (q-0.5)*math.Log1p(-p/s)
	default:
		lp, _ := math.Lgamma(p)
		lq, _ := math.Lgamma(q)
		lb = lp + lq - lg
	}
	return (a-1)*lx + (b-1)*l1x - lb
}

// BetaProportion state: [ok, r(κ), log(κ−1), stirlerr(κ−2), log(κ−2)
// (for κ > 2: Loader's form), stirlerr(κ), log κ, log Γ(κ)].
const betaPropState = 8

// betaPropHoisted is BetaProportion's kernel with the work in κ hoisted: a
// beta regression, y ~ BetaProportion(inv_logit(X * b), kappa).
type betaPropHoisted struct{}

func (betaPropHoisted) HoistArgs() uint { return 1 << 1 }
func (betaPropHoisted) StateLen() int   { return betaPropState }

func (betaPropHoisted) Prepare(p, s []float64) {
	kappa := p[1]
	if !positive(kappa) {
		s[0] = 0
		return
	}
	lg, _ := math.Lgamma(kappa)
	s[0], s[1], s[5], s[6], s[7] = 1, digammaRem(kappa), stirlerr(kappa), logx(kappa), lg
	if kappa > 2 {
		n := kappa - 2
		s[2], s[3], s[4] = logx(kappa-1), stirlerr(n), logx(n)
	}
}

func (betaPropHoisted) Eval(x float64, p, s, dp []float64) (float64, float64) {
	mu, kappa := p[0], p[1]
	if s[0] == 0 || !(mu > 0 && mu < 1) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0 && x < 1) {
		return outside(dp)
	}
	a, b := mu*kappa, (1-mu)*kappa
	if a == 0 || b == 0 {
		return outside(dp)
	}
	lp, ok := 0.0, false
	if a > 2 && b > 2 {
		lp, ok = betaPropLoader(a, b, x, kappa-2, s[2], s[3], s[4])
	}
	if !ok {
		lp = betaPropPlain(a, b, x, kappa, s[5], s[6], s[7])
	}
	if dp != nil {
		betaPropPartials(x, mu, kappa, a, b, s[1], dp)
	}
	return lp, (a-1)/x - (b-1)/(1-x)
}

// betaPropLogCDF is BetaProportion(mu, kappa): Beta's log CDF at the shapes
// μκ and (1−μ)κ, the partials by the chain rule. A shape that underflows to
// 0 leaves the mass at its end: all of it at 0 for μκ, at 1 for (1−μ)κ.
func betaPropLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	mu, kappa := p[0], p[1]
	var q, dq [2]float64
	q[0], q[1] = mu*kappa, (1-mu)*kappa
	switch {
	case q[0] == 0 && q[1] == 0:
		return invalid(dp)
	case q[0] == 0 && x > 0:
		return aboveSupport(dp, upper)
	case q[1] == 0 && x < 1:
		return belowSupport(dp, upper)
	}
	lp, dx := betaLogCDF(x, q[:], dq[:], upper)
	dp[0] = kappa * (dq[0] - dq[1])
	dp[1] = mu*dq[0] + (1-mu)*dq[1]
	return lp, dx
}

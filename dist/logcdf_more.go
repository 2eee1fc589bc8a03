package dist

import "math"

// The log CDFs of the half, Student t, inverse gamma, beta and uniform
// families and of the discrete families past Poisson. The Student t, beta,
// binomial and negative binomial ones are incomplete beta functions, whose
// shape partials come from the differentiated continued fraction
// (incbeta.go); the inverse gamma's is the Gamma's on 1/x.

func halfNormalLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x <= 0 {
		return belowSupport(dp, upper)
	}
	s := p[0]
	w := x / s
	lq, h := normalTail(w) // P(X > x) = 2·P(Z > w)
	var lp, g float64
	// P(X ≤ x) = erf(w/√2): erf itself keeps the digits of a small w,
	// 1 − 2·P(Z > w) those of a large one; P(X > x) is 1 − erf(w/√2)
	// through log1p for a small w.
	switch {
	case upper && w < 1:
		lp, g = math.Log1p(-math.Erf(w/math.Sqrt2)), -h
	case upper:
		lp, g = math.Ln2+lq, -h
	default:
		if w < 1 {
			lp = logx(math.Erf(w / math.Sqrt2))
		} else {
			lp = math.Log1p(-2 * math.Exp(lq))
		}
		g = math.Exp(math.Ln2 - 0.5*w*w - lnSqrt2Pi - lp)
	}
	dp[0] = -g * w / s
	return lp, g / s
}

func halfCauchyLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x <= 0 {
		return belowSupport(dp, upper)
	}
	s := p[0]
	w := x / s
	// P(X ≤ x) = 2·atan(w)/π and P(X > x) = 2·atan2(1, w)/π, each exact in
	// relative terms where it is small, and the log of the one above ½
	// through log1p of the other.
	t, c := math.Atan(w), math.Atan2(1, w)
	if upper {
		t, c = c, t
	}
	lp := logx(2 * t / math.Pi)
	if t > c {
		lp = math.Log1p(-2 * c / math.Pi)
	}
	g := 1 / ((1 + w*w) * t)
	if upper {
		g = -g
	}
	dp[0] = -g * w / s
	return lp, g / s
}

// studentTLogCDF is StudentT(nu, mu, sigma) through the standard t tail.
func studentTLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	sgn := sign(upper)
	w := sgn * (x - p[1]) / p[2]
	switch { // x − mu overflowed
	case math.IsInf(w, 1):
		return outside(dp)
	case math.IsInf(w, -1):
		clear(dp)
		return 0, 0
	}
	lp, g, gnu := studentTTail(p[0], w)
	dp[0] = gnu
	return locScale(w, sgn, p[2], 1, dp[1:], lp, g)
}

// studentTTail returns log P(T > w) for T ~ t(nu) and its partials in w and
// nu. For w > 0 it is ½·I_x(ν/2, ½) with x = ν/(ν+w²), below ½ so kept to
// full relative accuracy by the incomplete beta function; for w < 0 it is
// 1 − ½·I_x, which is above ½.
func studentTTail(nu, w float64) (lp, gw, gnu float64) {
	u := math.Abs(w)
	a := 0.5 * nu
	var l, lu, lnu float64 // log I_x(ν/2, ½) and its partials in u and ν
	r := nu / u / u
	switch {
	case u == 0 || r == math.Inf(1):
		// P(T > u) = ½ − f(0)·u, ½ to double precision.
		return -math.Ln2, -2 * math.Exp(studentTConst(nu)), 0
	case r < 1e-100:
		// x = ν/(ν+u²) may underflow; I_x = x^a/(a·B(a, ½))·(1 + O(x)).
		lnx := logx(nu) - 2*logx(u)
		l = a*lnx - LogBeta(a, 0.5) - logx(a)
		lu = -2 * a / u
		lnu = 0.5*(lnx-(1/a-digammaDiff(a, 0.5))) + a/nu
	default:
		// x and y = 1 − x without cancelling either.
		var xb, yb float64
		if r > 1 {
			q := 1 / r
			xb, yb = 1/(1+q), q/(1+q)
		} else {
			xb, yb = r/(1+r), 1/(1+r)
		}
		var la, lx float64
		l, la, _, lx = logIncBetaD(a, 0.5, xb, yb)
		c := lx * xb * yb // ∂x/∂u = −2xy/u, ∂x/∂ν = xy/ν
		lu = -2 * c / u
		lnu = 0.5*la + c/nu
	}
	if w > 0 {
		return l - math.Ln2, lu, lnu
	}
	s := math.Exp(l - math.Ln2)
	f := -s / (1 - s) // d log(1 − s) = f · d log s
	return math.Log1p(-s), -f * lu, f * lnu
}

// invGammaLogCDF is InvGamma(shape a, scale b): X = b/G with G ~ Gamma(a,
// 1), so P(X ≤ x) = Q(a, b/x) and P(X > x) = P(a, b/x), the Gamma's.
func invGammaLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x <= 0 {
		return belowSupport(dp, upper)
	}
	b := p[1]
	y := b / x
	var q, dq [2]float64
	q[0], q[1] = p[0], 1
	lp, gy := gammaLogCDFKernel(y, q[:], dq[:], !upper)
	dp[0] = dq[0]
	dp[1] = gy / x
	return lp, -gy * y / x
}

// betaLogCDF is Beta(a, b): log I_x(a, b), or log I_{1−x}(b, a) above.
func betaLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	switch {
	case x <= 0:
		return belowSupport(dp, upper)
	case x >= 1:
		return aboveSupport(dp, upper)
	}
	a, b := p[0], p[1]
	if upper {
		l, lb, la, ly := logIncBetaD(b, a, 1-x, x)
		dp[0], dp[1] = la, lb
		return l, -ly
	}
	l, la, lb, lx := logIncBetaD(a, b, x, 1-x)
	dp[0], dp[1] = la, lb
	return l, lx
}

func uniformLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	lo, hi := p[0], p[1]
	switch {
	case !(lo < hi):
		return invalid(dp)
	case x <= lo:
		return belowSupport(dp, upper)
	case x >= hi:
		return aboveSupport(dp, upper)
	}
	// P(X > x) = e/w and P(X ≤ x) = d/w, the log of the one above ½
	// through log1p of the other; the partials 1/w − 1/d = −e/(wd) and
	// 1/e − 1/w = d/(we) without cancelling.
	w, d, e := hi-lo, x-lo, hi-x
	if upper {
		dp[0], dp[1] = 1/w, d/(w*e)
		return logRatio(e, d, w), -1 / e
	}
	dp[0], dp[1] = -e/(w*d), -1/w
	return logRatio(d, e, w), 1 / d
}

// logRatio returns log(d/w) for d + e = w, through log1p(−e/w) where d is
// the larger part.
func logRatio(d, e, w float64) float64 {
	if d > e {
		return math.Log1p(-e / w)
	}
	return logx(d / w)
}

// poissonLogLogCDF is PoissonLog(eta), Poisson with rate e^eta.
func poissonLogLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	var q [1]float64
	q[0] = math.Exp(p[0])
	lp, _ := poissonLogCDF(x, q[:], dp, upper)
	dp[0] *= q[0]
	return lp, 0
}

func bernoulliLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	switch {
	case x < 0:
		return belowSupport(dp, upper)
	case x >= 1:
		return aboveSupport(dp, upper)
	}
	q := p[0] // P(Y > 0) = q, P(Y ≤ 0) = 1 − q
	if upper {
		dp[0] = 1 / q
		return logx(q), 0
	}
	dp[0] = -1 / (1 - q)
	return math.Log1p(-q), 0
}

func bernoulliLogitLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	switch {
	case x < 0:
		return belowSupport(dp, upper)
	case x >= 1:
		return aboveSupport(dp, upper)
	}
	eta := p[0]
	if upper { // log inv_logit(η)
		dp[0] = InvLogit(-eta)
		return -Softplus(-eta), 0
	}
	dp[0] = -InvLogit(eta)
	return -Softplus(eta), 0
}

// binomialLogCDF is Binomial(n, p): P(Y ≤ k) = I_{1−p}(n−k, k+1) and
// P(Y > k) = I_p(k+1, n−k) for the count k = ⌊x⌋ below n. n is a count, its
// partial 0 as in the mass function.
func binomialLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	return binomialTail(x, p[0], p[1], 1-p[1], 1, dp, upper)
}

// binomialLogitLogCDF is BinomialLogit(n, eta), Binomial with p =
// inv_logit(eta), dp/deta = p(1−p).
func binomialLogitLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	pr, q := InvLogit(p[1]), InvLogit(-p[1])
	return binomialTail(x, p[0], pr, q, pr*q, dp, upper)
}

// binomialTail is the binomial log CDF at x for n trials, success
// probability pr = 1 − q, and dpr the derivative of pr in dp[1]'s
// parameter.
func binomialTail(x, n, pr, q, dpr float64, dp []float64, upper bool) (float64, float64) {
	switch {
	case x < 0:
		return belowSupport(dp, upper)
	case x >= n:
		return aboveSupport(dp, upper)
	}
	k := math.Floor(x)
	dp[0] = 0
	if upper {
		l, _, _, lx := logIncBetaD(k+1, n-k, pr, q)
		dp[1] = lx * dpr
		return l, 0
	}
	l, _, _, lx := logIncBetaD(n-k, k+1, q, pr)
	dp[1] = -lx * dpr
	return l, 0
}

// negBinomialLogCDF is NegBinomial(mu, phi) (Stan's neg_binomial_2): with
// x = φ/(μ+φ), P(Y ≤ k) = I_x(φ, k+1) and P(Y > k) = I_{1−x}(k+1, φ).
func negBinomialLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x < 0 {
		return belowSupport(dp, upper)
	}
	mu, phi := p[0], p[1]
	if mu == 0 { // all mass at 0, as Poisson's rate 0 (poissonLogCDF)
		if upper {
			return outside(dp)
		}
		dp[0], dp[1] = 0, 0
		if x < 1 {
			dp[0] = -1
		}
		return 0, 0
	}
	l, c := negBinomialTail(math.Floor(x), mu, phi, phi/(mu+phi), mu/(mu+phi), dp, upper)
	dp[0] = c / mu
	return l, 0
}

// negBinomialLogLogCDF is NegBinomialLog(eta, phi), NegBinomial with mean
// μ = e^η: x = φ/(μ+φ) = σ(log φ − η) and 1 − x = σ(η − log φ) from the
// log of the mean, so that a mean that overflows or underflows keeps both.
func negBinomialLogLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x < 0 {
		return belowSupport(dp, upper)
	}
	eta, phi := p[0], p[1]
	k, lphi := math.Floor(x), math.Log(phi)
	xr, yr := InvLogit(lphi-eta), InvLogit(eta-lphi)
	if min(xr, yr)*(k+1+phi) < nbLeadingMax {
		return negBinomialLeading(k, eta, phi, lphi, xr, yr, dp, upper), 0
	}
	l, c := negBinomialTail(k, math.Exp(eta), phi, xr, yr, dp, upper)
	dp[0] = c
	return l, 0
}

// nbLeadingMax is the bound on min(x, 1−x)·(k+1+φ) below which
// negBinomialLeading takes the incomplete beta function's leading term:
// the next is smaller by about that factor.
const nbLeadingMax = 1e-20

// negBinomialLeading is NegBinomialLog's log tail where x = φ/(μ+φ) or
// y = 1 − x is so small (μ far below or above φ and k) that I_y(k+1, φ) or
// I_x(φ, k+1) is its leading term, the prefix x^φ·y^(k+1)/(a·B(φ, k+1)),
// a the first shape, in logs from log x = −softplus(η − log φ) and
// log y = −softplus(log φ − η): neither x nor y need be representable
// (e^η at η = ±800). The other tail is log(1 − e^l).
func negBinomialLeading(k, eta, phi, lphi, xr, yr float64, dp []float64, upper bool) float64 {
	lx, ly := -Softplus(eta-lphi), -Softplus(lphi-eta)
	pre := phi*lx + (k+1)*ly - LogBeta(phi, k+1)
	deta := (k+1)*xr - phi*yr
	dphi := lx + yr - (k+1)*xr/phi + digammaDiff(phi, k+1)
	ySmall := yr < xr // the upper tail is the small one
	l := pre
	if ySmall {
		l -= math.Log(k + 1)
	} else {
		l -= lphi
		dphi -= 1 / phi
	}
	if ySmall == upper {
		dp[0], dp[1] = deta, dphi
		return l
	}
	o := Log1mexp(-l)
	r := -math.Exp(l - o)
	dp[0], dp[1] = r*deta, r*dphi
	return o
}

// negBinomialTail returns the log tail of NegBinomial(mu, phi) at the count
// k given xr = φ/(μ+φ) and yr = μ/(μ+φ), its partial in φ in dp[1], and c =
// μ·∂/∂μ, the partial in log μ.
func negBinomialTail(k, mu, phi, xr, yr float64, dp []float64, upper bool) (l, c float64) {
	if upper {
		// ∂(1−x)/∂μ = x(1−x)/μ, ∂(1−x)/∂φ = −x(1−x)/φ.
		var lb, ly float64
		l, _, lb, ly = logIncBetaD(k+1, phi, yr, xr)
		c = ly * xr * yr
		dp[1] = lb - c/phi
	} else {
		var la, lx float64
		l, la, _, lx = logIncBetaD(phi, k+1, xr, yr)
		c = -lx * xr * yr
		dp[1] = la - c/phi
	}
	if phi > 8*(mu+k+1) && k <= nbSumMax && mu <= nbSumMax && mu >= 0x1p-1022 {
		dp[1] = negBinomialDPhi(k, mu, phi, l, upper)
	}
	return l, c
}

// nbSumMax bounds the count and the mean for which negBinomialDPhi sums
// the mass function.
const nbSumMax = 2000

// negBinomialDPhi returns ∂ log P/∂φ of the negative binomial tail P = P(Y ≤
// k) or P(Y > k) of log lp, for φ ≫ μ, k. Near the Poisson limit it is of
// order 1/φ² while the incomplete beta function's partials are sums of
// terms of order 1/φ, which would lose the ratio's digits (5 of them at
// φ = 10⁴, μ = k = 10). Here it is Σ_j p_j·D_j/P over the counts j of the
// less likely side (the other side's sum is minus it), p_j the mass and
// D_j = ∂ log p_j/∂φ = Σ_{i<j} (μ−i)/((φ+i)(μ+φ)) − [log(1+u) − u/(1+u)],
// u = μ/φ, in which every term is itself of order 1/φ².
func negBinomialDPhi(k, mu, phi, lp float64, upper bool) float64 {
	u := mu / phi
	var g float64 // log(1+u) − u/(1+u) = Σ_{n≥2} (−1)ⁿ (n−1)/n·uⁿ
	if u < 0.125 {
		t := -u
		for n := 2.0; n < 40; n++ {
			t *= -u
			g += (n - 1) / n * t
			if math.Abs(t) < 1e-17*g {
				break
			}
		}
	} else {
		g = math.Log1p(u) - u/(1+u)
	}
	// The side to sum: the requested tail if it is the less likely one.
	small := lp < -math.Ln2
	below := small != upper // sum j ≤ k
	sgn := 1.0
	if !small {
		sgn = -1
	}
	// r_j = p_j/p_0·e^(−shift) by p_{j+1}/p_j = (φ+j)/(j+1)·μ/(μ+φ), with
	// s = Σ_{i<j} (μ−i)/(φ+i) carried along.
	// Up to the first term of an upper sum r is carried in its log, in
	// shift, so that it does not underflow before the sum begins (μ ≪ 1,
	// k ≫ μ).
	q := mu / (mu + phi)
	lq := math.Log(q)
	r, shift, s, sum := 1.0, 0.0, 0.0, 0.0
	for j := 0.0; ; j++ {
		if below || j > k {
			term := r * (s/(mu+phi) - g)
			sum += term
			if below && j == k {
				break
			}
			// Past k and the mode, r falls faster than geometrically.
			if !below && j > mu && math.Abs(term) <= 1e-17*math.Abs(sum) || j > k+1e6 {
				break
			}
		}
		s += (mu - j) / (phi + j)
		if !below && j <= k {
			shift += math.Log((phi+j)/(j+1)) + lq
			continue
		}
		r *= (phi + j) / (j + 1) * q
		if r > 1e280 {
			r, sum, shift = r*1e-280, sum*1e-280, shift+280*math.Ln10
		}
	}
	// p_0 = (1+u)^(−φ).
	return sgn * sum * math.Exp(shift-phi*math.Log1p(u)-lp)
}

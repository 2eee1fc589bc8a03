package dist

import "math"

// The log CDF of BetaNegBinomial. Its upper tail decays like k^−(A+1), so
// summing it mass by mass needs about ε^(−1/A) terms (1e32 at A = 0.5),
// and 1 − P(Y ≤ k) from the lower sum loses the digits of a small upper
// tail. The upper tail is instead a few masses summed directly, up to a
// count m, and the rest in closed form by a Thomae transformation of the
// ₃F₂ at unit argument that the tail is (Stan's form, whose series has
// the same polynomial decay):
//
//	P(Y > m) = p_(m+1) · ₃F₂(1, m+1+R, m+1+B; m+2, m+1+A+B+R; 1)
//	         = p_(m+1) · (m+A+B+R)/A · ₃F₂(1, 1−R, 1−B; m+2, A+1; 1),
//
// the second series with parameter excess m + A + B + R, so that its terms
// fall like j^−(m+A+B+R+1): with m ≥ 30 a few dozen terms reach full
// precision whatever A. m ≥ 4·max(R, B) keeps the series free of
// cancellation (see bnbThomae).

// bnbMinSplit is the least m at which the upper tail switches from direct
// summation to the transformed series.
const bnbMinSplit = 30

// bnbMaxTerms bounds the series' terms; with m ≥ bnbMinSplit it converges
// in far fewer.
const bnbMaxTerms = 100000

// bnbSplit returns the count m ≥ k from which bnbUpper sums the transformed
// series: at least bnbMinSplit and 4·max(R, B), where its terms shrink by
// a factor 4 or more once their sign alternates.
func bnbSplit(k, r, b float64) float64 {
	return math.Max(k, math.Ceil(math.Max(bnbMinSplit, 4*math.Max(r, b))))
}

// logSum accumulates Σ e^(l_i) and Σ e^(l_i)·g_i for up to three partials g_i,
// relative to the largest l_i so far.
type logSum struct {
	m, s float64
	g    [3]float64
}

func newLogSum() logSum { return logSum{m: math.Inf(-1)} }

func (a *logSum) add(l float64, g [3]float64) {
	if l > a.m {
		r := math.Exp(a.m - l)
		a.m, a.s = l, a.s*r
		for i := range a.g {
			a.g[i] *= r
		}
	}
	w := math.Exp(l - a.m)
	a.s += w
	for i := range a.g {
		a.g[i] += w * g[i]
	}
}

// result returns the log of the sum, at most 0 (a sum of nearly all the
// mass may round above 1), and the partials of the log.
func (a *logSum) result() (float64, [3]float64) {
	var g [3]float64
	for i := range g {
		g[i] = a.g[i] / a.s
	}
	return min(a.m+math.Log(a.s), 0), g
}

// bnbStart returns the log mass at k and its partials in g. The mass is
// T(k, r) (lbetaRatio) plus log Γ(a+r) − log Γ(a) + log Γ(b+k) − log Γ(b)
// − log Γ(a+b+r+k) + log Γ(a+b), three rising factorials in one of three
// groupings, whichever has the smallest rounding (lrisingErr):
//
//	E: (a)_r · (b)_k / (a+b)_(r+k)      eval's
//	B: (a)_r · (b)_a / (b+k)_(a+r)      k large, b small
//	C: (a)_b · (b)_k / (a+r)_(b+k)      r large, a small
//
// At k = 1e6, a = 4, b = 1, E's (b)_k and (a+b)_(r+k) are log-gammas of
// 1.3e7 that round 3e-9 apart, where B's (b+k)_(a+r) takes Stirling's form.
func bnbStart(k, r, a, b float64, g []float64) float64 {
	lp, _ := BetaNegBinomial{r, a, b}.eval(k, g)
	e := lrisingErr(a, r) + lrisingErr(b, k) + lrisingErr(a+b, r+k)
	eb := lrisingErr(a, r) + lrisingErr(b, a) + lrisingErr(b+k, a+r)
	ec := lrisingErr(a, b) + lrisingErr(b, k) + lrisingErr(a+r, b+k)
	switch {
	case eb < e && eb <= ec:
		return lbetaRatio(k, r) + lrising(a, r) + lrising(b, a) - lrising(b+k, a+r)
	case ec < e:
		return lbetaRatio(k, r) + lrising(a, b) + lrising(b, k) - lrising(a+r, b+k)
	}
	return lp
}

// lrisingErr is the size of the terms lrising(x, m) rounds: about m·log(x+m)
// in Stirling's form (x ≥ stirlingMin), (x+m)·log(x+m) from two log-gammas.
func lrisingErr(x, m float64) float64 {
	if x >= stirlingMin {
		return m * math.Log(2+x+m)
	}
	return (x + m) * math.Log(2+x+m)
}

// bnbLower returns log P(Y ≤ k) of BetaNegBinomial(r, a, b) and its
// partials in (r, a, b): the k + 1 masses from the one at k down, each
// from the one above by p_(j−1)/p_j = j(a+b+r+j−1)/((j−1+r)(b+j−1)),
// their partials carried along.
func bnbLower(k, r, a, b float64) (float64, [3]float64) {
	var g [3]float64
	lp := bnbStart(k, r, a, b, g[:])
	acc := newLogSum()
	for j := k; ; j-- {
		acc.add(lp, g)
		if j == 0 {
			break
		}
		s := a + b + r + j - 1
		lp += math.Log(j*s) - math.Log((j-1+r)*(b+j-1))
		g[0] -= 1/(j-1+r) - 1/s
		g[1] += 1 / s
		g[2] -= 1/(b+j-1) - 1/s
	}
	return acc.result()
}

// bnbUpper returns log P(Y > k) of BetaNegBinomial(r, a, b) and its
// partials: the masses k+1..m (m from bnbSplit) by the ratio p_(j+1)/p_j
// = (j+r)(b+j)/((j+1)(a+b+r+j)), then p_(m+1)·(m+a+b+r)/a·T with T the
// transformed series of bnbThomae.
func bnbUpper(k, r, a, b float64) (float64, [3]float64) {
	m := bnbSplit(k, r, b)
	var g [3]float64
	lp := bnbStart(k+1, r, a, b, g[:])
	acc := newLogSum()
	// Counted, not j ≤ m: past 2^53 k + 1 rounds to k and j++ to j.
	for i := 0.0; i < m-k; i++ {
		j := k + 1 + i
		acc.add(lp, g)
		s := a + b + r + j
		lp += math.Log((j+r)*(b+j)) - math.Log((j+1)*s)
		g[0] += 1/(j+r) - 1/s
		g[1] -= 1 / s
		g[2] += 1/(b+j) - 1/s
	}
	// lp, g are now those of p_(m+1).
	e := m + a + b + r
	lt, gt := bnbThomae(m, r, a, b)
	acc.add(lp+math.Log(e/a)+lt, [3]float64{g[0] + 1/e + gt[0], g[1] + 1/e - 1/a + gt[1], g[2] + 1/e + gt[2]})
	return acc.result()
}

// bnbThomae returns log T and its partials in (r, a, b) for T = ₃F₂(1,
// 1−r, 1−b; m+2, a+1; 1) = Σ t_j, t_0 = 1, t_(j+1) = t_j·ρ_j with ρ_j =
// (u−r)(u−b)/((m+1+u)(a+u)), u = j+1; the partials of t_j are carried by
// the product rule, which stays finite where a factor u − r is 0.
//
// With m + 2 ≥ 4·max(r, b): while u < r and u < b, ρ_j is positive and
// decreasing; where one of u − r, u − b is negative |ρ_j| ≤ max(r, b)/(m+2)
// ≤ ¼, so the alternating terms cancel at most a third of the sum; from u
// ≥ max(r, b) on, 0 ≤ ρ_j ≤ 1 − E/(m+1+u), E = m+1+r, and the rest of the
// sum after t_j is at most t_j·(m+1+u)/(E−1), the bound that stops it
// (the partials' terms, dt_(j+1) = dt_j·ρ_j + t_j·∂ρ_j, are held to it too).
// Terms that grow (r and b both large) are rescaled, their scale kept in
// log.
func bnbThomae(m, r, a, b float64) (float64, [3]float64) {
	const tol = 1e-18
	t, dt := 1.0, [3]float64{}
	s, ds := 1.0, [3]float64{}
	lscale := 0.0
	hi := math.Max(r, b)
	for j := 0; j < bnbMaxTerms; j++ {
		u := float64(j + 1)
		den := (m + 1 + u) * (a + u)
		rho := (u - r) * (u - b) / den
		drho := [3]float64{-(u - b) / den, -rho / (a + u), -(u - r) / den}
		for i := range dt {
			dt[i] = dt[i]*rho + t*drho[i]
		}
		t *= rho
		s += t
		for i := range ds {
			ds[i] += dt[i]
		}
		if math.Abs(s) > 1e200 {
			t, s = t*1e-200, s*1e-200
			for i := range dt {
				dt[i], ds[i] = dt[i]*1e-200, ds[i]*1e-200
			}
			lscale += 200 * math.Ln10
		}
		var f float64 // the rest after t_j is at most f·|t_j|
		switch {
		case u >= hi:
			f = (m + 1 + u) / (m + r)
		case math.Abs(rho) <= 0.25:
			f = 1
		default:
			continue
		}
		// The partials' terms follow the same ratios from here (t_j = 0 at
		// an integer r or b ends T's series but not theirs).
		if f*math.Abs(t) <= tol*math.Abs(s) && f*math.Abs(dt[0]) <= tol*math.Max(math.Abs(ds[0]), math.Abs(s)) &&
			f*math.Abs(dt[1]) <= tol*math.Max(math.Abs(ds[1]), math.Abs(s)) && f*math.Abs(dt[2]) <= tol*math.Max(math.Abs(ds[2]), math.Abs(s)) {
			break
		}
	}
	return math.Log(s) + lscale, [3]float64{ds[0] / s, ds[1] / s, ds[2] / s}
}

// betaNegBinomialLogCDF is BetaNegBinomial(r, a, b): log P(Y ≤ k) or
// log P(Y > k), k = ⌊x⌋. Each tail is summed with all terms positive (the
// lower by bnbLower, the upper by bnbUpper), so either holds its relative
// digits; the cheaper is computed first, and its complement taken, log(1 −
// P), if it is at most ½, where the complement keeps its digits; if it is
// above ½ the other tail is computed after all, unless that would take
// over bnbMaxDirect masses. The cost is about min(k, m − k) masses plus a
// few dozen series terms, m from bnbSplit.
func betaNegBinomialLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	r, a, b := p[0], p[1], p[2]
	if x < 0 {
		return belowSupport(dp, upper)
	}
	k := math.Floor(x)
	costLower, costUpper := k+1, bnbSplit(k, r, b)-k
	lowerFirst := costLower <= costUpper
	l, g := bnbTail(k, r, a, b, !lowerFirst)
	if l > -math.Ln2 && math.Min(costLower, costUpper)+math.Max(costLower, costUpper) <= bnbMaxDirect {
		lowerFirst = !lowerFirst
		l, g = bnbTail(k, r, a, b, !lowerFirst)
	}
	if lowerFirst == upper { // l is the other tail: log(1 − e^l)
		o := Log1mexp(-l)
		if math.IsInf(o, -1) { // the other tail rounds to 1
			return outside(dp)
		}
		w := -math.Exp(l - o)
		for i := range g {
			g[i] *= w
		}
		l = o
	}
	copy(dp, g[:])
	return l, 0
}

// bnbMaxDirect bounds the masses summed to reach the smaller tail.
const bnbMaxDirect = 1e7

func bnbTail(k, r, a, b float64, upper bool) (float64, [3]float64) {
	if upper {
		return bnbUpper(k, r, a, b)
	}
	return bnbLower(k, r, a, b)
}

package dist

import "math"

// Wiener is the first-passage time of a Wiener diffusion to its upper
// boundary (Stan's wiener, the drift-diffusion model of reaction times):
// boundary separation Alpha > 0, non-decision time Tau ≥ 0, a-priori bias
// Beta in (0, 1) (the start at Beta·Alpha) and drift Delta. With
// t = (y − τ)/α² and w = 1 − β,
//
//	p(y) = α⁻² · exp(δαw − δ²(y − τ)/2) · g(t, w),
//
// g the standardised density of a driftless unit-width diffusion started
// at w hitting 0 (Navarro & Fuss 2009, their lower boundary, reflected:
// the upper boundary's density is theirs with v → −δ, w → 1 − β). Like
// Stan's it is a density of the upper responses only, integrating to
// P(upper) = (1 − e^(−2δαβ))/(1 − e^(−2δα)); a lower response y is
// Wiener(α, τ, 1 − β, −δ). The value must exceed τ (−Inf at or below it).
type Wiener struct {
	Alpha, Tau, Beta, Delta float64
}

// LogProb returns the log density at y.
func (d Wiener) LogProb(y float64) float64 {
	lp, _ := d.eval(y, nil)
	return lp
}

// Score writes the partials of LogProb(y) with respect to (Alpha, Tau,
// Beta, Delta) into dst (allocated if nil) and returns it.
func (d Wiener) Score(dst []float64, y float64) []float64 {
	dst = scoreDst(dst, 4)
	d.eval(y, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to y.
func (d Wiener) ScoreInput(y float64) float64 {
	_, dy := d.eval(y, nil)
	return dy
}

func (d Wiener) eval(y float64, dp []float64) (float64, float64) {
	a, tau, b, v := d.Alpha, d.Tau, d.Beta, d.Delta
	if !positive(a) || !(tau >= 0 && tau < math.Inf(1)) || !(b > 0 && b < 1) || !finite(v) || math.IsNaN(y) {
		return invalid(dp)
	}
	if !(y > tau) || math.IsInf(y, 1) {
		return outside(dp)
	}
	s := y - tau
	t := s / (a * a)
	w := 1 - b
	lg, gt, gw := wienerLogG(t, w, b)
	lp := lg - 2*math.Log(a) + v*a*w - v*v*s/2
	dy := gt/(a*a) - v*v/2
	if dp != nil {
		dp[0] = -2/a + v*w - 2*t/a*gt
		dp[1] = -dy
		dp[2] = -v*a - gw
		dp[3] = a*w - v*s
	}
	return densityOrOutside(lp, dy, dp)
}

// wienerSmall is the largest standardised time t at which wienerLogG sums
// the small-time (images) series; above it, the large-time (Fourier)
// series. At t = ½ the first correction of either is at most about 0.4 of
// its leading term (small time: 3e^(−1/t); large time: 4e^(−3π²t/2), 2.4e-3),
// so neither sum cancels more than half a digit.
const wienerSmall = 0.5

// wienerTail is the relative size below which a term ends a series: far
// below the 1e-16 of a float64, the series' terms falling faster than
// geometrically by then.
const wienerTail = 1e-20

// wienerLogG returns log g(t, w), the standardised first-passage density
// of a driftless diffusion on (0, 1) started at w hitting 0 by time t,
// and its partials ∂/∂t and ∂/∂w of log g. b = 1 − w, passed as given so
// that a w near 1 keeps its digits.
//
// Small time (method of images): √(2πt³)·g = Σ_k x_k e^(−x_k²/2t), x_k =
// w + 2k. Its terms are summed in pairs that cancel without losing
// digits, relative to the k = 0 term w·e^(−w²/2t): for w ≤ ½, each
// x = 2j + w with x = 2j − w, their sum (2j − w)e^(−(2j−w)²/2t)·
// expm1(log1p(2w/(2j − w)) − 4jw/t); for w > ½, each x = w + 2j with
// x = −(2j + 2 − w) (distance 2b), so a start near the far boundary
// (w → 1, g → 0) keeps relative digits. Large time: g = π Σ_{k≥1} k
// e^(−k²π²t/2) sin(kπw), the sines taken of the smaller of w and b.
// The partials are the series' own, the small-time ones summed in the
// same pairs.
func wienerLogG(t, w, b float64) (lg, gt, gw float64) {
	if t > wienerSmall {
		// m is the smaller of w and b; sin(kπw) = ±sin(kπm), cos likewise.
		m, flip := w, false
		if b < w {
			m, flip = b, true
		}
		e := math.Pi * math.Pi * t / 2
		var p, pt, pw float64 // Σ k ρ_k s_k, Σ k ρ_k s_k (k²−1), Σ k² ρ_k c_k
		for k := 1; k < 200; k++ {
			fk := float64(k)
			rho := math.Exp(-(fk*fk - 1) * e) // e^(−(k²−1)π²t/2)
			sk, ck := math.Sincos(fk * math.Pi * m)
			if flip { // sin(kπ(1 − m)) = (−1)^(k+1) sin(kπm), cos = (−1)^k cos(kπm)
				if k%2 == 0 {
					sk = -sk
				} else {
					ck = -ck
				}
			}
			p += fk * rho * sk
			pt += fk * rho * sk * (fk*fk - 1)
			pw += fk * fk * rho * ck
			if k > 1 && fk*fk*(1+fk*fk*math.Pi*math.Pi)*rho < wienerTail {
				break
			}
		}
		lg = math.Log(math.Pi) - e + math.Log(p)
		gt = -math.Pi*math.Pi/2 - pt*math.Pi*math.Pi/2/p
		gw = math.Pi * pw / p
		return lg, gt, gw
	}
	// With S_n = Σ_k x_k^n e^(−x_k²/2t), √(2πt³)·g = S_1, ∂S_1/∂t = S_3/2t²
	// and ∂S_1/∂w = S_0 − S_2/t. p, p3 and pD are S_1, S_3 and w(S_0 −
	// S_2/t), each relative to the k = 0 term w e^(−w²/2t) and summed by
	// the same pairs: the odd S_1 and S_3 as differences through expm1, the
	// even S_0 and S_2 as sums, so no partial cancels either (β near 0 or 1
	// included).
	var p, p3, pD float64
	if w <= 0.5 {
		p, p3, pD = 1, w*w, 1-w*w/t
		for j := 1; j < 100; j++ {
			fj := float64(j)
			a, c := 2*fj-w, 2*fj+w
			em, ep := math.Exp(-2*fj*(fj-w)/t), math.Exp(-2*fj*(fj+w)/t)
			l, q := math.Log1p(2*w/a), 4*fj*w/t
			r := a / w * em * math.Expm1(l-q)
			r3 := a * a * a / w * em * math.Expm1(3*l-q)
			rD := em*(1-a*a/t) + ep*(1-c*c/t)
			p, p3, pD = p+r, p3+r3, pD+rD
			if wienerDone(r, r3, rD, p, p3, pD, t) && 2*fj*(fj-w) > 2*t {
				break
			}
		}
	} else {
		// pairs j ≥ 0: x = w + 2j and x = −(2j + 2 − w), at distance 2b.
		for j := 0; j < 100; j++ {
			fj := float64(j)
			a := w + 2*fj
			c := a + 2*b
			ea, ec := math.Exp(-2*fj*(fj+w)/t), math.Exp(-2*(fj+1)*(fj+b)/t)
			l, q := math.Log1p(2*b/a), 2*b*(2*fj+1)/t
			r := -a / w * ea * math.Expm1(l-q)
			r3 := -a * a * a / w * ea * math.Expm1(3*l-q)
			rD := ea*(1-a*a/t) + ec*(1-c*c/t)
			p, p3, pD = p+r, p3+r3, pD+rD
			if j > 0 && wienerDone(r, r3, rD, p, p3, pD, t) && 2*fj*(fj+w) > 2*t {
				break
			}
		}
	}
	lg = -0.5*(ln2Pi+3*math.Log(t)) + math.Log(w) - w*w/(2*t) + math.Log(p)
	gt = -1.5/t + p3/(2*t*t*p)
	gw = pD / (w * p)
	return lg, gt, gw
}

// wienerDone reports whether the latest pair terms (r, r3, rD) of the
// small-time sums (p, p3, pD) are below wienerTail of what they add to:
// p3 enters ∂/∂t beside −3/2t, so its scale is at least t·p; pD enters
// ∂/∂w beside 1/w, so its scale is at least p.
func wienerDone(r, r3, rD, p, p3, pD, t float64) bool {
	return math.Abs(r) < wienerTail*math.Abs(p) &&
		math.Abs(r3) < wienerTail*(math.Abs(p3)+t*math.Abs(p)) &&
		math.Abs(rD) < wienerTail*(math.Abs(pD)+math.Abs(p))
}

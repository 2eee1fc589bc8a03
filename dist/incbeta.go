package dist

import "math"

// The regularised incomplete beta function I_x(a, b) in logs, with its
// partials in a, b and x, for the log CDFs of the Student t, beta,
// binomial and negative binomial families.
//
// Below the split x ≤ (a+1)/(a+b+2) it is DLMF 8.17.22,
//
//	I_x(a, b) = x^a (1−x)^b / (a·B(a, b)) · K,
//	K = 1/(1 + d₁/(1 + d₂/(1 + …))),
//	d₂ₘ₊₁ = −(a+m)(a+b+m)x / ((a+2m)(a+2m+1)),
//	d₂ₘ = m(b−m)x / ((a+2m−1)(a+2m)),
//
// and above it 1 − I_{1−x}(b, a). The shape partials differentiate the
// convergents A_n/B_n of K forward in a and b (Boik and Robison-Cox 1998):
// A_n = A_{n−1} + d_n·A_{n−2} gives A′_n = A′_{n−1} + d_n·A′_{n−2} + d′_n·A_{n−2},
// the same for B_n, so ∂K/∂a is exact up to the fraction's truncation and
// rounding, as for the Gamma's shape partial (gamma_grad.go). The prefix's
// partials are log x − (ψ(a) − ψ(a+b)) − 1/a and log(1−x) − (ψ(b) − ψ(a+b)).

// incBetaTol stops the fraction: a convergent, and each of its two
// partials, changed by about one unit in the last place.
const incBetaTol = 3e-16

// incBetaMaxIter returns the iteration cap of the fraction. Below the split
// it needs about √max(a, b) terms; shapes past about 1e12 hit the cap and
// give NaN.
func incBetaMaxIter(a, b float64) int {
	return 2000 + int(50*math.Sqrt(math.Min(math.Max(a, b), 1e12)))
}

// logIncBetaD returns l = log I_x(a, b) for a, b > 0 and 0 < x < 1, given
// y = 1 − x apart so that it keeps its digits near x = 1, with the partials
// la = ∂l/∂a, lb = ∂l/∂b and lx = ∂l/∂x. Whichever of I_x(a, b) and
// I_y(b, a) = 1 − I_x(a, b) the fraction computes directly keeps its
// relative accuracy however small it is; the other is log(1 − e^l) of it.
// Where a tiny shape puts the mass at one end, the side computed may be near
// 1 and the other small: over 400 such cases with shapes in [1e-3, 1e4]
// (mpmath) the other kept 4e-13 relative or better, while the fraction for
// it beyond its split converged in only two thirds of them, to 2e-12.
func logIncBetaD(a, b, x, y float64) (l, la, lb, lx float64) {
	if x > (a+1)/(a+b+2) {
		j, jb, ja, jy := logIncBetaSide(b, a, y, x)
		l = Log1mexp(-j)
		r := -math.Exp(j - l) // d log(1 − J) = −J/(1 − J) · d log J
		return l, r * ja, r * jb, -r * jy
	}
	return logIncBetaSide(a, b, x, y)
}

// logIncBetaSide is logIncBetaD from the fraction, for x at most about the
// split; the result is NaN if the fraction does not converge.
func logIncBetaSide(a, b, x, y float64) (l, la, lb, lx float64) {
	// Each of x and y keeps its relative digits; the log of the one near 1
	// is log1p of the other, so that a·log x keeps them for large a.
	lnx, lny := logx(x), logx(y)
	if x > 0.5 {
		lnx = math.Log1p(-y)
	} else {
		lny = math.Log1p(-x)
	}
	k, ka, kb, ok := incBetaCF(a, b, x, y, lnx)
	if !ok {
		return math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	pre := logIncBetaPrefix(a, b, x, y, lnx, lny)
	l = pre + logx(k)
	la = lnx - (1/a - digammaDiff(a, b)) + ka/k
	lb = lny + digammaDiff(b, a) + kb/k
	lx = math.Exp(pre + logx(a) - lnx - lny - l) // x^(a−1) y^(b−1)/B(a, b)/I
	return l, la, lb, lx
}

// logIncBetaPrefix returns log[x^a y^b/(a·B(a, b))], y = 1 − x, given
// lnx = log x and lny = log y. For large shapes a·log x, b·log y and
// log B(a, b) are each far larger than their sum (about ±1386 at
// a = b = 1000, x = ½, for a sum near −4), so there it is Loader's
// binomial form: Γ(a+b)/(Γ(a)Γ(b))·x^a y^b/a is
// Γ(a+b+1)/(Γ(a+1)Γ(b+1))·x^a y^b · b/(a+b), whose log is logBinomRaw's
// deviances and Stirling corrections.
func logIncBetaPrefix(a, b, x, y, lnx, lny float64) float64 {
	if max(a, b) < 10 || min(a, b) == 0 {
		return a*lnx + b*lny - LogBeta(a, b) - logx(a)
	}
	n := a + b
	return logBinomRaw(a, b, n*x, n*y) + logx(b/n)
}

// incBetaCF returns K of the fraction and its partials ka = ∂K/∂a and
// kb = ∂K/∂b for x = 1 − y; lnx = log x only scales the stopping test of
// ka, whose result adds to log x.
//
// Near x = 1 with a large (a Student t with many degrees of freedom, a
// negative binomial near its Poisson limit) the odd terms are
// d₂ₘ₊₁ ≈ −1, and X_{i+1} = X_i + d_i·X_{i−1} (X for A and B) would cancel
// to a result of the size of y, losing the digits of 1 − x at every odd
// step. There the step is written X_{i+1} = d_{i−1}·X_{i−2} + e_i·X_{i−1},
// with X_i − X_{i−1} = d_{i−1}·X_{i−2} from the step before and
// e_i = 1 + d_i = [a(2m+1−b) + m(3m+2−b) + (a+m)(a+b+m)·y]/((a+2m)(a+2m+1))
// formed from y.
func incBetaCF(a, b, x, y, lnx float64) (k, ka, kb float64, ok bool) {
	// The convergents A_n/B_n of 1/(1 + d₁/(1 + …)) from A₋₁ = 1, B₋₁ = 0,
	// A₀ = 0, B₀ = 1, A₁ = B₁ = 1, rescaled every step so that B_n = 1;
	// x3, x2, x1 are the levels i−2, i−1 and i, with their partials.
	x3 := cfLevel{A: 1}
	x2 := cfLevel{B: 1}
	x1 := cfLevel{A: 1, B: 1}
	dPrev, dPrevA, dPrevB := 1.0, 0.0, 0.0 // d₀ = 1, the fraction's first numerator
	fromY := x > 0.5
	k = 1
	n := incBetaMaxIter(a, b)
	scale := 1 + math.Abs(lnx)
	for i := 1; i <= 2*n; i++ {
		// d_i and its partials: odd i = 2m+1, even i = 2m.
		var d, da, db float64
		var next cfLevel
		m := float64(i / 2)
		if i%2 == 1 {
			u, v := a+2*m, a+2*m+1
			d = -(a + m) * (a + b + m) * x / (u * v)
			da = d * (1/(a+m) + 1/(a+b+m) - 1/u - 1/v)
			db = d / (a + b + m)
			if fromY {
				e := (a*(2*m+1-b) + m*(3*m+2-b) + (a+m)*(a+b+m)*y) / (u * v)
				next = combine(x3, dPrev, dPrevA, dPrevB, x2, e, da, db)
			}
		} else {
			u, v := a+2*m-1, a+2*m
			d = m * (b - m) * x / (u * v)
			da = -d * (1/u + 1/v)
			db = m * x / (u * v)
		}
		if !fromY || i%2 == 0 {
			next = combine(x1, 1, 0, 0, x2, d, da, db)
		}
		s := 1 / next.B
		x3, x2, x1 = x2.scaled(s), x1.scaled(s), next.scaled(s)
		x1.B = 1
		dPrev, dPrevA, dPrevB = d, da, db
		kOld, kaOld, kbOld := k, ka, kb
		k = x1.A
		ka = x1.Aa - x1.A*x1.Ba // (A′B − AB′)/B² with B = 1
		kb = x1.Ab - x1.A*x1.Bb
		if i > 2 && math.Abs(k-kOld) <= incBetaTol*math.Abs(k) &&
			math.Abs(ka-kaOld) <= incBetaTol*(math.Abs(ka)+scale*math.Abs(k)) &&
			math.Abs(kb-kbOld) <= incBetaTol*(math.Abs(kb)+scale*math.Abs(k)) {
			return k, ka, kb, true
		}
	}
	return k, ka, kb, false
}

// cfLevel is a convergent's numerator A and denominator B with their
// partials in a (Aa, Ba) and b (Ab, Bb).
type cfLevel struct{ A, B, Aa, Ba, Ab, Bb float64 }

// combine returns c·X + e·Y and its partials, given those of c (ca, cb)
// and of e (ea, eb).
func combine(x cfLevel, c, ca, cb float64, y cfLevel, e, ea, eb float64) cfLevel {
	return cfLevel{
		A:  c*x.A + e*y.A,
		B:  c*x.B + e*y.B,
		Aa: c*x.Aa + ca*x.A + e*y.Aa + ea*y.A,
		Ba: c*x.Ba + ca*x.B + e*y.Ba + ea*y.B,
		Ab: c*x.Ab + cb*x.A + e*y.Ab + eb*y.A,
		Bb: c*x.Bb + cb*x.B + e*y.Bb + eb*y.B,
	}
}

func (l cfLevel) scaled(s float64) cfLevel {
	return cfLevel{l.A * s, l.B * s, l.Aa * s, l.Ba * s, l.Ab * s, l.Bb * s}
}

package dist

import "math"

// Stan's rising and falling factorials: log Γ(x+n) − log Γ(x), and the
// products x(x+1)…(x+n−1) and x(x−1)…(x−n+1) of an integer n ≥ 0.

// LogRisingFactorial returns log(x (x + 1) … (x + n − 1)) =
// lgamma(x + n) − lgamma(x) for real x > 0 and x + n > 0 (NaN elsewhere),
// as LogFallingFactorial does: x and x + n shifted up to stirlingMin
// together by lgamma(w + 1) = lgamma(w) + log w (each step −log1p(n/w)),
// then Stirling's series in w − 1 and n apart, so that a small n keeps its
// relative digits and a tiny x its own (w − 1 is formed only at w ≥ 11,
// where it is exact).
func LogRisingFactorial(x, n float64) float64 {
	switch {
	case !(x > 0 && x+n > 0) || math.IsInf(x, 1) || math.IsInf(n, 1):
		return math.NaN()
	case n == 0:
		return 0
	}
	w, s := x, 0.0
	for min(w, w+n) < stirlingMin+1 {
		s -= math.Log1p(n / w)
		w++
	}
	v := w - 1
	u := v + n
	return s + (stirlerr(u) - stirlerr(v)) + (v+0.5)*math.Log1p(n/v) - n + n*math.Log(u)
}

// LogRisingFactorialGrad returns the partials of LogRisingFactorial,
// ψ(x + n) − ψ(x) (shifted up by ψ(w + 1) = ψ(w) + 1/w, each step
// n/(w(w + n)), then log1p(n/w) plus the difference of the asymptotic
// series) and ψ(x + n).
func LogRisingFactorialGrad(x, n float64) (dx, dn float64) {
	if !(x > 0 && x+n > 0) {
		return math.NaN(), math.NaN()
	}
	dn = Digamma(x + n)
	w, s := x, 0.0
	for min(w, w+n) < polygammaShift {
		s += n / (w * (w + n))
		w++
	}
	return s + math.Log1p(n/w) + digammaAsympDiff(w, n), dn
}

// factorialDirect is the largest n whose rising or falling factorial is
// the product itself (at most n roundings); above it, where x allows, the
// exponential of the log's Stirling form.
const factorialDirect = 30

// RisingFactorial returns x (x + 1) … (x + n − 1) for real x and an integer
// n ≥ 0 (a float64 holding one; NaN otherwise): the product for n ≤ 30 or
// x ≤ 0 (NaN past n = 1e7 there), else exp(LogRisingFactorial(x, n)).
func RisingFactorial(x, n float64) float64 {
	p, _ := factorial(x, n, 1, false)
	return p
}

// RisingFactorialGrad returns ∂/∂x of RisingFactorial: the product times
// Σ 1/(x + k), or where a factor is 0 the product of the others.
func RisingFactorialGrad(x, n float64) float64 {
	_, d := factorial(x, n, 1, true)
	return d
}

// FallingFactorial returns x (x − 1) … (x − n + 1) for real x and an
// integer n ≥ 0 (NaN otherwise): the product for n ≤ 30 or x − n + 1 ≤ 0,
// else exp(LogFallingFactorial(x, n)).
func FallingFactorial(x, n float64) float64 {
	p, _ := factorial(x, n, -1, false)
	return p
}

// FallingFactorialGrad returns ∂/∂x of FallingFactorial.
func FallingFactorialGrad(x, n float64) float64 {
	_, d := factorial(x, n, -1, true)
	return d
}

// factorial is the product Π_{k<n} (x + step·k) and its derivative in x.
func factorial(x, n, step float64, grad bool) (p, d float64) {
	if !(n >= 0) || n != math.Trunc(n) || math.IsNaN(x) || math.IsInf(n, 1) {
		return math.NaN(), math.NaN()
	}
	low := x // the smallest factor
	if step < 0 {
		low = x - n + 1
	}
	if n > factorialDirect && low > 0 && !math.IsInf(x, 1) {
		var l, dl float64
		if step > 0 {
			l = LogRisingFactorial(x, n)
			if grad {
				dl, _ = LogRisingFactorialGrad(x, n)
			}
		} else {
			l = LogFallingFactorial(x, n)
			if grad {
				dl, _ = LogFallingFactorialGrad(x, n)
			}
		}
		p = math.Exp(l)
		return p, p * dl
	}
	if n > 1e7 { // a product of that many factors across 0 is 0 or overflows
		return math.NaN(), math.NaN()
	}
	p = 1
	var inv, others float64 // Σ 1/(x + step·k) over the non-zero factors; their product
	zeros := 0
	others = 1
	for k := 0.0; k < n; k++ {
		f := x + step*k
		p *= f
		if f == 0 {
			zeros++
			continue
		}
		others *= f
		inv += 1 / f
	}
	if !grad {
		return p, 0
	}
	switch zeros {
	case 0:
		return p, p * inv
	case 1:
		return p, others
	}
	return p, 0
}

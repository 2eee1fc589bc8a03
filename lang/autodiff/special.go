package autodiff

import "math"

// digamma returns ψ(x) = d/dx log Γ(x): NaN at the poles 0, -1, -2, ...
// It uses the recurrence ψ(x) = ψ(x+1) - 1/x up to x >= 10, the asymptotic
// series there, and reflection for negative x. The dist package will export
// its own; this is the one place to switch.
func digamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, -1):
		return math.NaN()
	case math.IsInf(x, 1):
		return x
	case x <= 0 && x == math.Floor(x):
		return math.NaN()
	case x < 0:
		// ψ(x) = ψ(1-x) - π cot(πx)
		return digamma(1-x) - math.Pi/math.Tan(math.Pi*x)
	}
	r := 0.0
	for x < 10 {
		r -= 1 / x
		x++
	}
	f := 1 / (x * x)
	// Bernoulli terms -B_2k / (2k x^2k), k = 1..6
	t := f * (-1.0/12 + f*(1.0/120+f*(-1.0/252+f*(1.0/240+f*(-1.0/132+f*(691.0/32760))))))
	return r + math.Log(x) - 0.5/x + t
}

// trigamma returns ψ'(x), the derivative of digamma.
func trigamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, -1):
		return math.NaN()
	case math.IsInf(x, 1):
		return 0
	case x <= 0 && x == math.Floor(x):
		return math.NaN()
	case x < 0:
		// ψ'(1-x) + ψ'(x) = π² / sin²(πx)
		s := math.Sin(math.Pi * x)
		return math.Pi*math.Pi/(s*s) - trigamma(1-x)
	}
	r := 0.0
	for x < 10 {
		r += 1 / (x * x)
		x++
	}
	f := 1 / (x * x)
	// 1/x + 1/(2x²) + Σ B_2k / x^(2k+1)
	t := f * (1.0/6 + f*(-1.0/30+f*(1.0/42+f*(-1.0/30+f*(5.0/66+f*(-691.0/2730))))))
	return r + 1/x + 0.5*f + t/x
}

// log1mexp returns log(1 - exp(-x)) for x > 0 without cancellation
// (Mächler 2012): log(-expm1(-x)) below ln 2, log1p(-exp(-x)) above.
func log1mexp(x float64) float64 {
	if x < math.Ln2 {
		return math.Log(-math.Expm1(-x))
	}
	return math.Log1p(-math.Exp(-x))
}

// softplus returns log(1 + exp(x)) without overflow.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// invLogit returns 1 / (1 + exp(-x)) without overflow.
func invLogit(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

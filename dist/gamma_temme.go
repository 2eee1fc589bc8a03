package dist

import "math"

//go:generate go run ./internal/temmegen

// Large shapes: Temme's uniform asymptotic expansion (DLMF 8.12.3–8.12.4),
//
//	Q(a, x) = ½ erfc(η √(a/2)) + e^(−aη²/2)/√(2πa) · Σ_k c_k(η) a^(−k),
//
// with λ = x/a and η²/2 = λ − 1 − log λ. Differentiating at fixed x and
// using ∂Q/∂x = −p(x; a), the derivatives of η cancel and
//
//	d log x/da = (∂Q/∂a)/(x p) = 1/a + Γ*(a)/a · [−η/2 − (η²/2 + 1/(2a))·S − T/a],
//
// S = Σ c_k(η) a^(−k), T = Σ k c_k(η) a^(−k), Γ*(a) = Γ(a)/(√(2π/a) aᵃ e⁻ᵃ):
// no derivative of c_k is needed, the cost does not grow with a (the series
// and continued fraction need about 8.6·√a terms), and the values of c_k
// come from the Taylor coefficients in temme_table.go (exact rationals,
// internal/temmegen).
const (
	// temmeMinA is the smallest shape that uses the expansion: from there
	// on the omitted terms are below 1e-16 relative (TestGammaTemme).
	temmeMinA = 100
	// temmeMaxEta bounds |η| (λ ≈ 0.24 … 2.3), well inside the radius of
	// convergence 2√π of the Taylor series of c_k. At a ≥ 100 draws beyond
	// it are 10 standard deviations out.
	temmeMaxEta = 1
)

// temmeEta returns η for x at shape a: sign(x − a)·√(2(μ − log1p μ)),
// μ = x/a − 1, with μ − log1p μ = μt − 2t³(1/3 + t²/5 + …), t = μ/(2 + μ),
// free of the cancellation of the direct form near μ = 0.
func temmeEta(a, x float64) float64 {
	mu := (x - a) / a
	var f float64
	if math.Abs(mu) < 0.5 {
		t := mu / (2 + mu)
		t2 := t * t
		// Σ_{j≥0} t^(2j)/(2j+3) to t²⁴ (|t| < 0.2: the rest is below 1e-17).
		s := 1.0 / 3
		p := t2
		for j := 1; j <= 12; j++ {
			s += p / float64(2*j+3)
			p *= t2
		}
		f = mu*t - 2*t*t2*s
	} else {
		f = mu - math.Log1p(mu)
	}
	eta := math.Sqrt(2 * f)
	if mu < 0 {
		eta = -eta
	}
	return eta
}

// temmeDLogXDA returns d log x/da at shape a ≥ temmeMinA and η = temmeEta(a,
// x) with |η| ≤ temmeMaxEta.
func temmeDLogXDA(a, eta float64) float64 {
	ia := 1 / a
	// Truncation: every omitted term |d[k][n] ηⁿ a^(−k)| is below about
	// 1e-18 (the largest coefficients of row k past n, and of the rows past
	// k, against |η| ≤ 0.08 … 1 and a ≥ 100 … 1e4).
	nk := 9
	switch {
	case a >= 1e4:
		nk = 5
	case a >= 1e3:
		nk = 6
	}
	nn := len(temmeD[0])
	switch ae := math.Abs(eta); {
	case ae <= 0.08:
		nn = 10
	case ae <= 0.2:
		nn = 14
	case ae <= 0.5:
		nn = 20
	}
	var s, t float64
	for k := nk - 1; k >= 0; k-- {
		row := temmeD[k][:nn]
		ck := 0.0
		for n := nn - 1; n >= 0; n-- {
			ck = ck*eta + row[n]
		}
		s = s*ia + ck
		t = t*ia + float64(k)*ck
	}
	// Γ*(a) to a^(−6) (the next term is below 1e-16 at a = 100).
	g := 0.0
	for k := 6; k >= 0; k-- {
		g = g*ia + temmeG[k]
	}
	return ia * (1 + g*(-0.5*eta-(0.5*eta*eta+0.5*ia)*s-ia*t))
}

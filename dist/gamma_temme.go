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
	// temmeMinA is the smallest shape that uses the expansion. Below 100
	// all twelve rows of the table and of Stirling's series are summed; the
	// expansion then matches mpmath to 5e-16 relative from a = 15 on, more
	// closely than the series and continued fraction, which need about
	// 8.6·√a terms (TestGammaTemme; at a = 10 its error grows to 9e-15).
	// From a = 20 it is also the faster (at a = 50 about 120–165 ns against
	// 250–290 ns; dist/BENCHMARKS.md).
	temmeMinA = 20
	// temmeMaxEta bounds |η| (λ ≈ 0.24 … 2.3), well inside the radius of
	// convergence 2√π of the Taylor series of c_k. Draws beyond it are
	// about √a standard deviations out (10 at a = 100, 3.9 at a = 15) and
	// go to the series or continued fraction.
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
		// s ≥ 1/3, so a term below 1e-17 is under half an ulp of s and
		// cannot change it, nor can the smaller ones after it: the loop
		// stops there with the sum it would have reached (at a = 1e4, after
		// 4 terms of 12).
		s := 1.0 / 3
		p := t2
		for j := 1; j <= 12 && p >= 1e-17; j++ {
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
	ai := len(temmeABounds) - 1
	for a < temmeABounds[ai] {
		ai--
	}
	ae, ei := math.Abs(eta), 0
	for ae > temmeEtaBounds[ei] {
		ei++
	}
	cut := &temmeCuts[ai][ei]
	var s, t float64
	k := int(cut.nk) - 1
	// Rows two at a time (horner2): their Horner chains are independent
	// and overlap in one loop, which also has one exit (often mispredicted)
	// per pair of rows instead of per row.
	for ; k >= 1; k -= 2 {
		hi, lo := horner2(temmeD[k][:cut.nn[k]], temmeD[k-1][:cut.nn[k-1]], eta)
		s = s*ia + hi
		t = t*ia + float64(k)*hi
		s = s*ia + lo
		t = t*ia + float64(k-1)*lo
	}
	if k == 0 { // an odd number of rows
		ck := 0.0
		for n := int(cut.nn[0]) - 1; n >= 0; n-- {
			ck = ck*eta + temmeD[0][n]
		}
		s = s*ia + ck
		t = t*ia + float64(k)*ck
	}
	g := 0.0
	for k := int(cut.ng); k >= 0; k-- {
		g = g*ia + temmeG[k]
	}
	return ia * (1 + g*(-0.5*eta-(0.5*eta*eta+0.5*ia)*s-ia*t))
}

// horner2 returns the polynomials with coefficients p and q (lowest power
// first) at eta, each by Horner's rule from its highest coefficient, bit
// for bit as two separate loops would: the longer one's extra terms first,
// then both in step.
func horner2(p, q []float64, eta float64) (pv, qv float64) {
	swap := len(q) > len(p)
	if swap {
		p, q = q, p
	}
	n := len(p) - 1
	for ; n >= len(q); n-- {
		pv = pv*eta + p[n]
	}
	for ; n >= 0; n-- {
		pv = pv*eta + p[n]
		qv = qv*eta + q[n]
	}
	if swap {
		return qv, pv
	}
	return pv, qv
}

// Truncation of the expansion: shapes fall into buckets from each lower
// bound of temmeABounds on, |η| into buckets up to each bound of
// temmeEtaBounds, and temmeCuts keeps, per pair of buckets, the terms of
// each row of the table (and of Stirling's series) up to the last one that
// can exceed temmeTermTol there: every omitted |d[k][n] ηⁿ a^(−k)| and
// |g_k a^(−k)| is below it. (Past the table's 30 terms the Taylor series
// of c_0 adds a few times 1e-18 at |η| near 1; its radius of convergence
// is 2√π.) Rows past the first few matter only at the smaller shapes, the
// higher powers of η only in the wider buckets, rare at large a.
var (
	temmeABounds   = [...]float64{temmeMinA, 30, 50, 100, 300, 1e3, 3e3, 1e4, 1e5}
	temmeEtaBounds = [...]float64{0.02, 0.05, 0.08, 0.12, 0.2, 0.3, 0.5, 0.7, temmeMaxEta}
	temmeCuts      = temmeTruncation()
)

const temmeTermTol = 1e-18

type temmeCut struct {
	nk, ng uint8              // rows and Stirling terms kept (g_0 … g_ng)
	nn     [len(temmeD)]uint8 // Taylor terms kept of each row
}

func temmeTruncation() (cuts [len(temmeABounds)][len(temmeEtaBounds)]temmeCut) {
	for ai, amin := range temmeABounds {
		for ei, emax := range temmeEtaBounds {
			c := &cuts[ai][ei]
			for k := range temmeD {
				ak := math.Pow(amin, -float64(k))
				for n := range temmeD[k] {
					if math.Abs(temmeD[k][n])*math.Pow(emax, float64(n))*ak > temmeTermTol {
						c.nn[k] = uint8(n + 1)
						c.nk = uint8(k + 1)
					}
				}
			}
			for k := range temmeG {
				if math.Abs(temmeG[k])*math.Pow(amin, -float64(k)) > temmeTermTol {
					c.ng = uint8(k)
				}
			}
		}
	}
	return cuts
}

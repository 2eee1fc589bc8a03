package stdlib

import (
	"math"

	"github.com/gpplang/gpp/dist"
)

// Stan's scalar and reduction functions that a ported model reaches for:
// the trigonometric and hyperbolic families, the error function, the
// gamma function and its derivatives, log-space differences, rounding
// (data only) and products. Each is one op of the tape, or a composition
// of ops that keeps its digits (noted in the doc).

var (
	nonNegRule = SupportRule{Kind: Fixed, Default: dist.NonNegative}
	argAB      = []Arg{{Name: "a", Ranks: AnyRank}, {Name: "b", Ranks: AnyRank}}
	// roundWhy and sortIndexWhy say why the rounding and the index
	// functions of params are for outputs only (their OutputOnly).
	roundWhy     = "rounding is a step function, whose derivative is 0 wherever it exists, so a param's gradient through it would be lost"
	argRound     = []Arg{{Name: "x", Ranks: AnyRank}}
	sortIndexWhy = "an index or a rank is an int, a step function of x with no derivative"
	// rankIndexWhy says why rank's s is known before the fit.
	rankIndexWhy = "the element compared is fixed when the model compiles"
	countRule    = SupportRule{Kind: Fixed, Default: dist.Count}
	// csrWhy and csrExtractWhy say why a sparse matrix's pattern is data.
	csrWhy        = "the sparsity pattern is fixed, and its indices checked, when the model compiles"
	csrExtractWhy = "which elements are non-zero is fixed when the model compiles"
	argAZ         = []Arg{{Name: "a", Ranks: AnyRank}, {Name: "z", Ranks: AnyRank}}
	// The sized constructors' arguments: a length, an index and a range.
	argN         = []Arg{{Name: "n", Ranks: Scalar, Int: true}}
	argNK        = []Arg{{Name: "n", Ranks: Scalar, Int: true}, {Name: "k", Ranks: Scalar, Int: true}}
	argLinspaced = []Arg{{Name: "n", Ranks: Scalar, Int: true}, {Name: "lo", Ranks: Scalar}, {Name: "hi", Ranks: Scalar}}
	// linspacedRule: linspaced_vector's values lie between lo and hi.
	linspacedRule = SupportRule{Kind: Between, Default: dist.Real}
	// fatQRWhy says why the fat QR factors take data only.
	// argFatQR, argCSRExtract and argCSR are the arguments of the fat QR
	// factors, of the csr_extract functions and of a sparse matrix's
	// compressed sparse row form m, n, w, v, u.
	argFatQR      = []Arg{{Name: "A", Ranks: Matrix, Data: fatQRWhy}}
	argCSRExtract = []Arg{{Name: "A", Ranks: Matrix, Data: csrExtractWhy}}
	argCSR        = []Arg{{Name: "m", Ranks: Scalar, Int: true}, {Name: "n", Ranks: Scalar, Int: true}, {Name: "w", Ranks: Vector},
		{Name: "v", Ranks: Vector, Int: true, Data: csrWhy}, {Name: "u", Ranks: Vector, Int: true, Data: csrWhy}}
	fatQRWhy = "the columns of the fat Q past min(m, n) are one orthonormal basis among many, not a function of A with a derivative; qr_thin_Q and qr_thin_R take a param"
	// quantileWhy says why quantile of params is for outputs only.
	quantileWhy = "a sample quantile is computed without a gradient (Stan's, too, takes params only in generated quantities, where nothing is differentiated)"
)

func fold2(f func(x, y float64) float64) func([]float64) float64 {
	return func(a []float64) float64 { return f(a[0], a[1]) }
}

// linspacedIntRule: linspaced_int_array's values are lo and above (hi ≥
// lo), so they keep lo's sign.
var linspacedIntRule = SupportRule{Kind: FromArg, Arg: 1, Default: dist.Real, Cases: []SupportCase{
	{If: dist.Positive, Then: dist.Positive},
	{If: dist.Count, Then: dist.Count},
}}

// The domains of the Increasing functions whose Fold is NaN beyond a
// finite end (Func.Domain).
var (
	unitBallDomain = &[2]float64{-1, 1}
	acoshDomain    = &[2]float64{1, math.Inf(1)}
)

var stanFuncs = []*Func{
	{Name: "log_diff_exp", Args: argAB, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "log_diff_exp",
		Doc: "log(exp(a) - exp(b)) for a ≥ b, elementwise with broadcasting, as a + log1mexp(a - b): no overflow, full accuracy when b is close to a; -∞ at a = b, a when b = -∞", Example: "log_diff_exp(logcdf(u, D), logcdf(l, D))",
		Fold: fold2(dist.LogDiffExp)},
	{Name: "log_sum_exp", Args: []Arg{{Name: "x", Ranks: AnyRank}}, Shape: ReduceScalar, Elem: RealResult, Op: "logsumexp",
		Support: SupportRule{Kind: FromArg, Default: dist.Real, Cases: []SupportCase{{If: dist.Positive, Then: dist.Positive}}},
		Doc:     "Stan's one-argument log_sum_exp: logsumexp(x), log(sum(exp(x))) over all elements, without overflow", Example: "log_sum_exp(lp)", Fold: fold1(identity),
		Alt: &Func{Name: "log_sum_exp", Args: argAB, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "log_sum_exp",
			Doc: "log(exp(a) + exp(b)), elementwise with broadcasting, without overflow (Stan's two-argument log_sum_exp)", Example: "log_sum_exp(log(w) + lp1, log1m(w) + lp2)",
			Fold: fold2(dist.LogAddExp)}},
	{Name: "fma", Args: []Arg{{Name: "x", Ranks: AnyRank}, {Name: "y", Ranks: AnyRank}, {Name: "z", Ranks: AnyRank}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "fma",
		Doc: "x * y + z, elementwise with broadcasting (Stan's fma); on the tape a product and a sum (two roundings), folded as one fused multiply-add", Example: "fma(beta, x, alpha)",
		Fold: func(a []float64) float64 { return math.FMA(a[0], a[1], a[2]) }},
	{Name: "hypot", Args: argXY, Shape: Elementwise2, Support: SupportRule{Kind: FromArg, Default: dist.NonNegative, Cases: []SupportCase{{If: dist.Positive, Then: dist.Positive}}}, Elem: RealResult, Op: "hypot",
		Doc: "sqrt(x² + y²), elementwise with broadcasting, without overflow or underflow; the derivative at (0, 0) is taken as 0", Example: "hypot(a, b)", Fold: fold2(math.Hypot)},
	{Name: "atan2", Args: []Arg{{Name: "y", Ranks: AnyRank}, {Name: "x", Ranks: AnyRank}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "atan2",
		Doc: "the angle of the point (x, y) in (-π, π], elementwise with broadcasting; the derivative at (0, 0) is taken as 0", Example: "atan2(s, c)", Fold: fold2(math.Atan2)},
	{Name: "tan", Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "tan",
		Doc: "tangent (radians)", Example: "tan(theta)", Fold: fold1(math.Tan)},
	{Name: "asin", Range: Increasing, Domain: unitBallDomain, Args: argX, Shape: Elementwise1, Support: signRule, Elem: RealResult, Op: "asin",
		Doc: "arc sine of x in [-1, 1], in [-π/2, π/2]", Example: "asin(r)", Fold: fold1(dist.Asin)},
	{Name: "acos", Args: argX, Shape: Elementwise1, Support: nonNegRule, Elem: RealResult, Op: "acos",
		Doc: "arc cosine of x in [-1, 1], in [0, π]", Example: "acos(r)", Fold: fold1(dist.Acos)},
	{Name: "sinh", Range: Increasing, Args: argX, Shape: Elementwise1, Support: signRule, Elem: RealResult, Op: "sinh",
		Doc: "hyperbolic sine", Example: "sinh(z)", Fold: fold1(dist.Sinh)},
	{Name: "cosh", Args: argX, Shape: Elementwise1, Support: positiveRule, Elem: RealResult, Op: "cosh",
		Doc: "hyperbolic cosine, ≥ 1", Example: "cosh(z)", Fold: fold1(dist.Cosh)},
	{Name: "asinh", Range: Increasing, Args: argX, Shape: Elementwise1, Support: signRule, Elem: RealResult, Op: "asinh",
		Doc: "inverse hyperbolic sine", Example: "asinh(y)", Fold: fold1(math.Asinh)},
	{Name: "acosh", Range: Increasing, Domain: acoshDomain, Args: argX, Shape: Elementwise1, Support: nonNegRule, Elem: RealResult, Op: "acosh",
		Doc: "inverse hyperbolic cosine of x ≥ 1", Example: "acosh(c)", Fold: fold1(math.Acosh)},
	{Name: "atanh", Range: Increasing, Domain: unitBallDomain, Args: argX, Shape: Elementwise1, Support: signRule, Elem: RealResult, Op: "atanh",
		Doc: "inverse hyperbolic tangent of x in (-1, 1) (Fisher's z of a correlation); accurate near ±1", Example: "atanh(rho)", Fold: fold1(math.Atanh)},
	{Name: "erf", Range: Increasing, Args: argX, Shape: Elementwise1, Elem: RealResult, Op: "erf",
		Support: SupportRule{Kind: FromArg, Default: dist.Real, Cases: []SupportCase{{If: dist.Positive, Then: dist.Unit}, {If: dist.NonNegative, Then: dist.NonNegative}}},
		Doc:     "the error function (2/√π) ∫₀ˣ exp(-t²) dt, in (-1, 1)", Example: "erf(x / sqrt2())", Fold: fold1(math.Erf)},
	{Name: "erfc", Args: argX, Shape: Elementwise1, Support: positiveRule, Elem: RealResult, Op: "erfc",
		Doc: "the complementary error function 1 - erf(x), in (0, 2), computed directly: full relative accuracy in the right tail (erfc(26) = 5.7e-296; it underflows to 0 past 27.2)", Example: "erfc(z)", Fold: fold1(math.Erfc)},
	{Name: "exp2", Range: Increasing, Args: argX, Shape: Elementwise1, Support: positiveRule, Elem: RealResult, Op: "exp2",
		Doc: "2 to the power x, elementwise", Example: "exp2(k)", Fold: fold1(math.Exp2)},
	{Name: "cbrt", Range: Increasing, Args: argX, Shape: Elementwise1, Support: signRule, Elem: RealResult, Op: "cbrt",
		Doc: "cube root, of any sign; its derivative at 0, infinite, counts as 0 (docs/language.md §4, Derivatives at a boundary)", Example: "cbrt(v)", Fold: fold1(math.Cbrt)},
	{Name: "tgamma", Args: argX, Shape: Elementwise1, Support: positiveKeptRule, Elem: RealResult, Op: "tgamma",
		Doc: "the gamma function Γ(x), also at negative non-integers; overflows past x = 171.6 (use lgamma for logs)", Example: "tgamma(a)", Fold: fold1(math.Gamma)},
	{Name: "trigamma", Args: argX, Shape: Elementwise1, Support: positiveRule, Elem: RealResult, Op: "trigamma",
		Doc: "the derivative of digamma, ψ₁(x) > 0 (reflection for x < 0)", Example: "trigamma(alpha)", Fold: fold1(dist.Trigamma)},
	{Name: "lmultiply", Args: argXY, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "lmultiply",
		Doc: "x * log(y), elementwise with broadcasting, with 0 * log(0) = 0 (Stan's lmultiply, formerly multiply_log)", Example: "sum(lmultiply(p, p))",
		Fold: fold2(dist.Lmultiply)},
	{Name: "binary_log_loss", Args: []Arg{{Name: "y", Ranks: AnyRank, Int: true}, {Name: "p", Ranks: AnyRank}}, Shape: Elementwise2, Support: nonNegRule, Elem: RealResult, Op: "binary_log_loss",
		Doc: "the log loss of a prediction p in [0, 1] of a binary outcome y: -log(p) if y is not 0, else -log1m(p), elementwise with broadcasting", Example: "sum(binary_log_loss(y, inv_logit(eta)))",
		Fold: fold2(dist.BinaryLogLoss)},
	{Name: "log_inv_logit_diff", Args: argXY, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "log_inv_logit_diff",
		Doc: "log(inv_logit(x) - inv_logit(y)) for x > y, elementwise with broadcasting, as -softplus(-x) + log1mexp(x - y) - softplus(y): no cancellation in either tail", Example: "log_inv_logit_diff(eta - c[0], eta - c[1])",
		Fold: fold2(dist.LogInvLogitDiff)},
	{Name: "log_falling_factorial", Args: []Arg{{Name: "x", Ranks: AnyRank}, {Name: "n", Ranks: AnyRank}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "log_falling_factorial",
		Doc: "log of the falling factorial x (x - 1) ... (x - n + 1) = lgamma(x + 1) - lgamma(x - n + 1) for real x, n with x - n + 1 > 0 and n > -1, elementwise with broadcasting; computed from x - n and n apart (shifted to Stirling's series), which keeps its digits for large x and for small n, where the difference of two lgammas loses them", Example: "log_falling_factorial(N, k)",
		Fold: fold2(dist.LogFallingFactorial)},
	{Name: "gamma_p", Args: argAZ, Shape: Elementwise2, Support: nonNegRule, Elem: RealResult, Op: "gamma_p",
		Doc: "the regularised lower incomplete gamma function P(a, z) = γ(a, z)/Γ(a) for a > 0, z ≥ 0, in [0, 1] (the Gamma(a, 1) CDF at z), elementwise with broadcasting; from log P, full relative accuracy where P is tiny; derivatives in a and z", Example: "gamma_p(alpha, beta * t)",
		Fold: fold2(dist.GammaP)},
	{Name: "gamma_q", Args: argAZ, Shape: Elementwise2, Support: nonNegRule, Elem: RealResult, Op: "gamma_q",
		Doc: "the regularised upper incomplete gamma function Q(a, z) = 1 - P(a, z) for a > 0, z ≥ 0, computed as itself (from log Q, not 1 - P): full relative accuracy in the right tail (gamma_q(2, 700) = 6.9e-302, where 1 - gamma_p is 0); derivatives in a and z", Example: "gamma_q(k + 1, lambda)",
		Fold: fold2(dist.GammaQ)},
	{Name: "inc_beta", Args: []Arg{{Name: "a", Ranks: AnyRank}, {Name: "b", Ranks: AnyRank}, {Name: "x", Ranks: AnyRank}}, Shape: Elementwise2, Support: nonNegRule, Elem: RealResult, Op: "inc_beta",
		Doc: "the regularised incomplete beta function I_x(a, b) for a, b > 0 and x in [0, 1] (the Beta(a, b) CDF at x), elementwise with broadcasting; from log I_x(a, b), near 1 as 1 - I_{1-x}(b, a), so both tails keep their relative digits; derivatives in a, b (of the continued fraction) and x", Example: "inc_beta(alpha, beta, p)",
		Fold: func(a []float64) float64 { return dist.IncBeta(a[0], a[1], a[2]) }},
	{Name: "inv_inc_beta", Args: []Arg{{Name: "a", Ranks: AnyRank}, {Name: "b", Ranks: AnyRank}, {Name: "p", Ranks: AnyRank}}, Shape: Elementwise2, Support: nonNegRule, Elem: RealResult, Op: "inv_inc_beta",
		Doc: "the inverse of inc_beta in x: the x in [0, 1] with I_x(a, b) = p (the Beta(a, b) quantile at p), elementwise with broadcasting; Newton steps in the log of the smaller of x and 1 - x, so both tails keep their relative digits (0 where x is below the smallest double); derivatives in a, b and p by the inverse function rule", Example: "inv_inc_beta(alpha, beta, u)",
		Fold: func(a []float64) float64 { return dist.InvIncBeta(a[0], a[1], a[2]) }},
	{Name: "log_modified_bessel_first_kind", Args: []Arg{{Name: "v", Ranks: AnyRank}, {Name: "z", Ranks: AnyRank}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "log_modified_bessel_first_kind",
		Doc: "log I_v(z), the log of the modified Bessel function of the first kind, for real v ≥ -1 and z ≥ 0, elementwise with broadcasting, without overflow (log I_0(1e4) = 9994.48): the power series, or Hankel's expansion for z ≥ 25 and v² ≤ z (the series takes about z/2 terms past that, for large orders); derivatives in v and z (the v partial taken as 0 at v = -1 exactly, where I_{-1} = I_1)", Example: "log_modified_bessel_first_kind(d / 2.0 - 1, kappa)",
		Fold: fold2(dist.LogBesselI)},
	{Name: "modified_bessel_first_kind", Args: []Arg{{Name: "v", Ranks: AnyRank, Int: true}, {Name: "z", Ranks: AnyRank}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "modified_bessel_first_kind",
		Doc: "I_v(z), the modified Bessel function of the first kind of an int order v, for any real z, elementwise with broadcasting: exp of log_modified_bessel_first_kind(|v|, |z|), negated for odd v at negative z; overflows past |z| ≈ 713; derivative in z", Example: "modified_bessel_first_kind(0, kappa)",
		Fold: fold2(dist.BesselI)},
	{Name: "bessel_first_kind", Args: []Arg{{Name: "v", Ranks: AnyRank, Int: true}, {Name: "x", Ranks: AnyRank}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "bessel_first_kind",
		Doc: "J_v(x), the Bessel function of the first kind of an int order v, elementwise with broadcasting (Go's math.Jn); derivative (J_{v-1}(x) - J_{v+1}(x))/2 in x", Example: "bessel_first_kind(0, omega * t)",
		Fold: fold2(dist.BesselJ)},
	{Name: "bessel_second_kind", Args: []Arg{{Name: "v", Ranks: AnyRank, Int: true}, {Name: "x", Ranks: AnyRank}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "bessel_second_kind",
		Doc: "Y_v(x), the Bessel function of the second kind of an int order v, for x > 0, elementwise with broadcasting (Go's math.Yn); derivative (Y_{v-1}(x) - Y_{v+1}(x))/2 in x", Example: "bessel_second_kind(1, r)",
		Fold: fold2(dist.BesselY)},
	{Name: "modified_bessel_second_kind", Args: []Arg{{Name: "v", Ranks: AnyRank, Int: true}, {Name: "z", Ranks: AnyRank}}, Shape: Elementwise2, Support: positiveRule, Elem: RealResult, Op: "modified_bessel_second_kind",
		Doc: "K_v(z), the modified Bessel function of the second kind of an int order v, for z > 0, elementwise with broadcasting: the trapezoidal rule on ∫₀^∞ exp(-z cosh t) cosh(v t) dt with the peak's exponent taken out, so neither a tiny z nor a large one overflows on the way (underflows to 0 past z ≈ 705); derivative -∫ cosh t exp(-z cosh t) cosh(v t) dt in z", Example: "modified_bessel_second_kind(1, sqrt(a * b))",
		Fold: fold2(dist.BesselK)},
	{Name: "lambert_w0", Args: argX, Shape: Elementwise1, Support: signRule, Elem: RealResult, Op: "lambert_w0",
		Doc: "W₀(x), the principal branch of the inverse of w e^w, for x ≥ -1/e, in [-1, ∞): a series about the branch point -1/e, Halley's or Newton's iteration elsewhere; derivative W/(x (1 + W))", Example: "lambert_w0(a * b)",
		Fold: fold1(dist.LambertW0)},
	{Name: "lambert_wm1", Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "lambert_wm1",
		Doc: "W₋₁(x), the lower branch of the inverse of w e^w, for -1/e ≤ x < 0, in (-∞, -1]; derivative W/(x (1 + W))", Example: "lambert_wm1(-p * exp(-p))",
		Fold: fold1(dist.LambertWm1)},
	{Name: "owens_t", Args: []Arg{{Name: "h", Ranks: AnyRank}, {Name: "a", Ranks: AnyRank}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "owens_t",
		Doc: "Owen's T function T(h, a) = (1/2π) ∫₀ᵃ exp(-h²(1 + x²)/2)/(1 + x²) dx, elementwise with broadcasting: Gauss–Legendre quadrature with exp(-h²/2) taken out, so it keeps its relative digits in the tails (owens_t(30, 0.001) = 5.9e-200), Owen's identity for |a| > 1; derivatives in h and a (closed form)", Example: "owens_t(h, alpha)",
		Fold: fold2(dist.OwensT)},
	{Name: "log_rising_factorial", Args: []Arg{{Name: "x", Ranks: AnyRank}, {Name: "n", Ranks: AnyRank}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "log_rising_factorial",
		Doc: "log of the rising factorial x (x + 1) ... (x + n - 1) = lgamma(x + n) - lgamma(x) for real x > 0 and x + n > 0, elementwise with broadcasting; as log_falling_factorial, shifted to Stirling's series with n apart, so small n and tiny x keep their digits", Example: "log_rising_factorial(alpha, k)",
		Fold: fold2(dist.LogRisingFactorial)},
	{Name: "rising_factorial", Args: []Arg{{Name: "x", Ranks: AnyRank}, {Name: "n", Ranks: AnyRank, Int: true}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "rising_factorial",
		Doc: "the rising factorial x (x + 1) ... (x + n - 1) of real x and an int n ≥ 0 (1 at n = 0), elementwise with broadcasting: the product for n ≤ 30 or x ≤ 0, else exp(log_rising_factorial(x, n)); derivative in x", Example: "rising_factorial(a, k)",
		Fold: fold2(dist.RisingFactorial)},
	{Name: "falling_factorial", Args: []Arg{{Name: "x", Ranks: AnyRank}, {Name: "n", Ranks: AnyRank, Int: true}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "falling_factorial",
		Doc: "the falling factorial x (x - 1) ... (x - n + 1) of real x and an int n ≥ 0 (1 at n = 0), elementwise with broadcasting: the product for n ≤ 30 or x - n + 1 ≤ 0, else exp(log_falling_factorial(x, n)); derivative in x", Example: "falling_factorial(N, k)",
		Fold: fold2(dist.FallingFactorial)},
	{Name: "fmod", Args: argXY, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "fmod",
		Doc: "the remainder x − trunc(x/y)·y of x/y, with the sign of x (C's fmod), elementwise with broadcasting; derivatives 1 in x and −trunc(x/y) in y (the remainder jumps at multiples of y); y = 0 is an error", Example: "fmod(t, 24)",
		Fold: fold2(dist.Fmod)},
	{Name: "ldexp", Args: []Arg{{Name: "x", Ranks: AnyRank}, {Name: "n", Ranks: AnyRank, Int: true}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "ldexp",
		Doc: "x·2ⁿ for an int n, exact unless it overflows or underflows, elementwise with broadcasting; derivative 2ⁿ in x", Example: "ldexp(m, e)",
		Fold: fold2(dist.Ldexp)},
	{Name: "lmgamma", Args: []Arg{{Name: "k", Ranks: AnyRank, Int: true}, {Name: "x", Ranks: AnyRank}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "lmgamma",
		Doc: "log Γ_k(x), the log of the multivariate gamma function of an int dimension k ≥ 0, k(k − 1)/4 log π + Σ_{j=1..k} lgamma(x + (1 − j)/2), for x > (k − 1)/2 (any x at k = 0: 0), elementwise with broadcasting (the normaliser of a Wishart density); derivative Σ digamma(x + (1 − j)/2) in x", Example: "lmgamma(K, nu / 2)",
		Fold: fold2(dist.Lmgamma)},
	{Name: "hypergeometric_2F1", Args: []Arg{{Name: "a", Ranks: AnyRank}, {Name: "b", Ranks: AnyRank}, {Name: "c", Ranks: AnyRank}, {Name: "z", Ranks: AnyRank}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "hypergeometric_2F1",
		Doc: "Gauss's hypergeometric function ₂F₁(a, b; c; z) = Σₖ (a)ₖ(b)ₖ/(c)ₖ zᵏ/k! for real z < 1 and z = 1 where c − a − b > 0 (Gauss's theorem Γ(c)Γ(c − a − b)/(Γ(c − a)Γ(c − b)), Stan's, its z derivative +Inf where c − a − b ≤ 1), elementwise with broadcasting: the series for 0 ≤ z ≤ 0.999, above that the connection formula in 1 − z (Abramowitz & Stegun 15.3.6; 1 − z from 1e-12 to 5e-4 within 2e-14 of mpmath), Pfaff's transformation (1 − z)^(−a) ₂F₁(a, c − b; c; z/(z − 1)) for z < 0, any z where a or b is an int ≤ 0 (a polynomial); derivatives in a, b, c and z, exact; an error (naming the argument and the reason) at c an int ≤ 0, z > 1, z = 1 with c − a − b ≤ 0, and where the series would lose digits (its terms cancel, or more than 200000 of them are needed: z below about −4000, or within about 3e-4 of 1 where c − a − b is an integer, or so near one that the connection formula's two terms cancel by more than a factor 100)", Example: "hypergeometric_2F1(a, b, c, -x / s)",
		Fold:    func(a []float64) float64 { return dist.Hypergeometric2F1(a[0], a[1], a[2], a[3]) },
		FoldWhy: func(a []float64) string { return dist.Hyp2F1Fn.Why(a[3], a[:3]) }},
	{Name: "hypergeometric_pFq", Args: []Arg{{Name: "a", Ranks: Vector}, {Name: "b", Ranks: Vector}, {Name: "z", Ranks: Scalar}}, Shape: ReduceScalar, Support: realRule, Elem: RealResult, Op: "hypergeometric_pFq",
		Doc: "the generalized hypergeometric function pFq(a; b; z) = Σₖ Πᵢ(aᵢ)ₖ / Πⱼ(bⱼ)ₖ zᵏ/k! of p = size(a) and q = size(b) ≤ 8 parameters by its series: any z where p ≤ q, |z| < 1 where p = q + 1 (for p = 2, q = 1 any z < 1, as hypergeometric_2F1), any z where an aᵢ is an int ≤ 0 (a polynomial); derivatives in every aᵢ, bⱼ and z; an error where the series diverges, at a bⱼ that is an int ≤ 0, and where it would lose digits (cancelling terms: 2F2(1, 1; 2, 2; −60) is one, with terms of 1e20; write such a case with another identity); ₁F₁ of z < 0 by Kummer's transformation e^z ₁F₁(b − a; b; −z), which does not cancel", Example: "hypergeometric_pFq([a, b], [c], z)"},
	{Name: "hypergeometric_3F2", Args: []Arg{{Name: "a", Ranks: Vector}, {Name: "b", Ranks: Vector}, {Name: "z", Ranks: Scalar}}, Shape: ReduceScalar, Support: realRule, Elem: RealResult, Op: "hypergeometric_3F2",
		Doc: "hypergeometric_pFq(a, b, z) with a [3] and b [2] (Stan's hypergeometric_3F2): |z| < 1, or any z where an aᵢ is an int ≤ 0; Stan's z = 1 (beta-binomial CDFs) is an error, its series converging too slowly to sum", Example: "hypergeometric_3F2([1, a, b], [c, d], z)"},
	{Name: "prod", Args: []Arg{{Name: "x", Ranks: AnyRank}}, Shape: ReduceScalar, Elem: RealResult, Op: "prod",
		Support: SupportRule{Kind: FromArg, Default: dist.Real, Cases: []SupportCase{
			{If: dist.Unit, Then: dist.Unit}, {If: dist.Positive, Then: dist.Positive}, {If: dist.NonNegative, Then: dist.NonNegative}}},
		Doc: "product of all elements (1 of none); its derivative is exact also where elements are 0", Example: "prod(1 - p)", Fold: fold1(identity)},
	{Name: "floor", Args: argRound, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "floor",
		Doc: "the largest integer ≤ x, elementwise (a real result); of a param only in an output, having no derivative", Example: "floor(age / 10)", Fold: fold1(math.Floor), OutputOnly: roundWhy},
	{Name: "ceil", Args: argRound, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "ceil",
		Doc: "the smallest integer ≥ x, elementwise (a real result); of a param only in an output, having no derivative", Example: "ceil(x)", Fold: fold1(math.Ceil), OutputOnly: roundWhy},
	{Name: "round", Args: argRound, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "round",
		Doc: "the nearest integer to x, halves away from zero, elementwise (a real result); of a param only in an output, having no derivative", Example: "round(x)", Fold: fold1(math.Round), OutputOnly: roundWhy},
	{Name: "trunc", Args: argRound, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "trunc",
		Doc: "x with its fraction dropped (toward zero), elementwise (a real result); of a param only in an output, having no derivative", Example: "trunc(x)", Fold: fold1(math.Trunc), OutputOnly: roundWhy},
	{Name: "to_int", Args: []Arg{{Name: "x", Ranks: AnyRank, Data: "an int is known when the model compiles (an index, a size); trunc(x) is a real of a param"}}, Shape: Elementwise1, Support: realRule, Elem: IntResult, Op: "trunc",
		Doc: "x with its fraction dropped (toward zero) as an int, elementwise (Stan 2.31's to_int); x known before the fit, a value past 2^53 in magnitude or NaN an error", Example: "to_int(x)", Fold: fold1(math.Trunc)},
	{Name: "rows_dot_product", Args: []Arg{{Name: "x", Ranks: Vector | Matrix}, {Name: "y", Ranks: Vector | Matrix}}, Shape: RowsDot, Support: SupportRule{Kind: SumsOfProducts, Default: dist.Real}, Elem: RealResult, Op: "rows_dot_product",
		Doc: "the dot product of each row of x with the same row of y, rowsum(x .* y), for x and y of one shape", Example: "rows_dot_product(X, B)"},
	{Name: "columns_dot_product", Args: []Arg{{Name: "x", Ranks: Vector | Matrix}, {Name: "y", Ranks: Vector | Matrix}}, Shape: ColsDot, Support: SupportRule{Kind: SumsOfProducts, Default: dist.Real}, Elem: RealResult, Op: "columns_dot_product",
		Doc: "the dot product of each column of x with the same column of y, colsum(x .* y): a row, for x and y of one shape", Example: "columns_dot_product(W, W)"},
	{Name: "inverse", Args: argMat, Shape: SquareSame, Support: realRule, Elem: RealResult, Op: "inverse",
		Doc: "A⁻¹ of a square matrix, by LU with partial pivoting (an error at a singular A); to solve a system, solve or mdivide_left_tri_low do better than a product with the inverse", Example: "inverse(A)"},
	{Name: "inverse_spd", Args: argMat, Shape: SquareSame, Support: realRule, Elem: RealResult, Op: "inverse_spd",
		Doc: "A⁻¹ of a symmetric positive-definite matrix, as solve(A, I(n)) through its Cholesky factor (shared with logdet and solve of the same A)", Example: "inverse_spd(Sigma)"},
	{Name: "determinant", Args: argMat, Shape: SquareToScalar, Support: realRule, Elem: RealResult, Op: "determinant",
		Doc: "det A of a square matrix, by LU with partial pivoting; its derivative needs a non-singular A", Example: "determinant(J)"},
	{Name: "log_determinant", Args: argMat, Shape: SquareToScalar, Support: realRule, Elem: RealResult, Op: "log_determinant",
		Doc: "log |det A| of a square matrix, by LU with partial pivoting (Stan's log_determinant); for a symmetric positive-definite A, logdet(A) is cheaper (a Cholesky factor)", Example: "log_determinant(J)"},
	{Name: "mdivide_left_tri_low", Args: []Arg{{Name: "L", Ranks: Matrix}, {Name: "B", Ranks: Vector | Matrix}}, Shape: Solve, Support: realRule, Elem: RealResult, Op: "mdivide_left_tri_low",
		Doc: "L⁻¹ B for a lower-triangular L (its upper triangle is not read), by forward substitution: a whitened residual L⁻¹ (y - mu) from a Cholesky factor", Example: "mdivide_left_tri_low(chol(K), y - mu)"},
	{Name: "mdivide_right_tri_low", Args: []Arg{{Name: "B", Ranks: Matrix}, {Name: "L", Ranks: Matrix}}, Shape: SolveRight, Support: realRule, Elem: RealResult, Op: "mdivide_right_tri_low",
		Doc: "B L⁻¹ for a lower-triangular L (its upper triangle is not read), by substitution; B a matrix or a row, b' [1, n]", Example: "mdivide_right_tri_low(y', chol(K))"},
	{Name: "matrix_exp", Args: argMat, Shape: SquareSame, Support: realRule, Elem: RealResult, Op: "matrix_exp",
		Doc: "exp(A) = Σ Aᵏ/k! of a square matrix, by scaling and squaring with the [13/13] Padé approximant (Higham 2005); the solution of the linear ODE y' = A y is y(t) = matrix_exp(t * A) * y0. Its derivative is the Fréchet derivative, from the exponential of a 2n × 2n block matrix", Example: "matrix_exp(t * K)"},
	{Name: "matrix_exp_multiply", Args: []Arg{{Name: "A", Ranks: Matrix}, {Name: "B", Ranks: Vector | Matrix}}, Shape: Solve, Support: realRule, Elem: RealResult, Op: "matrix_exp_multiply",
		Doc: "matrix_exp(A) * B (Stan's matrix_exp_multiply)", Example: "matrix_exp_multiply(K, y0)"},
	{Name: "scale_matrix_exp_multiply", Args: []Arg{{Name: "t", Ranks: Scalar}, {Name: "A", Ranks: Matrix}, {Name: "B", Ranks: Vector | Matrix}}, Shape: ScaleSolve, Support: realRule, Elem: RealResult, Op: "scale_matrix_exp_multiply",
		Doc: "matrix_exp(t * A) * B (Stan's scale_matrix_exp_multiply): the state at time t of the linear ODE y' = A y from y(0) = B; t may be a param", Example: "scale_matrix_exp_multiply(ts[i], K, y0)"},
	{Name: "matrix_power", Args: []Arg{{Name: "A", Ranks: Matrix}, {Name: "k", Ranks: Scalar, Int: true, Data: "the number of products is fixed when the model compiles"}}, Shape: SquareSame, Support: realRule, Elem: RealResult, Op: "matrix_power",
		Doc: "Aᵏ of a square matrix for an int k ≥ 0 (I for k = 0), by repeated squaring: about 2 log₂ k matrix products", Example: "matrix_power(P, 3)"},
	{Name: "eigenvalues_sym", Args: argMat, Shape: SquareToVector, Support: realRule, Elem: RealResult, Op: "eigenvalues_sym",
		Doc: "the eigenvalues of a symmetric matrix (symmetric to 1e-8, as for chol), in ascending order (LAPACK's dsyev); positive to the checker for a name declared cov_matrix or corr_matrix (data checked positive definite when it loads); the derivative of λ_i is v_iᵀ dA v_i", Example: "eigenvalues_sym(Sigma)"},
	{Name: "eigenvectors_sym", Args: argMat, Shape: SquareSame, Support: realRule, Elem: RealResult, Op: "eigenvectors_sym",
		Doc: "the eigenvectors of a symmetric matrix as the columns of a matrix, in the order of eigenvalues_sym, each signed so that its largest element is positive (Stan leaves the sign to the solver); the derivative needs distinct eigenvalues", Example: "eigenvectors_sym(Sigma)"},
	{Name: "singular_values", Args: argMat, Shape: SingularVals, Support: nonNegRule, Elem: RealResult, Op: "singular_values",
		Doc: "the singular values of a matrix [m, n], min(m, n) of them in descending order, by one-sided Jacobi rotations (within 2e-14 relative of LAPACK's dgesvd, the smallest too, over 8 orders of magnitude); the derivative of σ_i is u_iᵀ dA v_i, for distinct, non-zero values", Example: "singular_values(X)"},
	{Name: "qr_thin_Q", Args: argMat, Shape: MinCols, Support: realRule, Elem: RealResult, Op: "qr_thin_Q",
		Doc: "the orthonormal factor Q [m, min(m, n)] of the thin QR decomposition A = Q R (Householder), signed as Stan signs it so that R's diagonal is non-negative: the QR reparameterisation of a regression, Q_ast = qr_thin_Q(x) * sqrt(N - 1); of a param too, for A of full rank", Example: "qr_thin_Q(x) * sqrt(N - 1)"},
	{Name: "qr_thin_R", Args: argMat, Shape: MinRows, Support: realRule, Elem: RealResult, Op: "qr_thin_R",
		Doc: "the upper-triangular factor R [min(m, n), n] of the thin QR decomposition, its diagonal non-negative (Stan's convention); of a param too, for A of full rank", Example: "qr_thin_R(x) / sqrt(N - 1)"},
	{Name: "qr_Q", Args: argFatQR, Shape: RowsSquare, Support: realRule, Elem: RealResult, Op: "qr_Q",
		Doc: "the orthogonal factor Q [m, m] of the fat QR decomposition; its first min(m, n) columns are qr_thin_Q's, the others an orthonormal basis of the rest (Householder's, as Stan's); of data", Example: "qr_Q(x)"},
	{Name: "qr_R", Args: argFatQR, Shape: SameMatrix, Support: realRule, Elem: RealResult, Op: "qr_R",
		Doc: "the upper-triangular factor R [m, n] of the fat QR decomposition, qr_thin_R's rows above rows of zeros; of data (qr_thin_R takes a param)", Example: "qr_R(x)"},
	{Name: "svd_U", Args: argMat, Shape: MinCols, Support: realRule, Elem: RealResult, Op: "svd_U",
		Doc: "the left singular vectors of A [m, n], the columns of U [m, min(m, n)] in the order of singular_values (descending), each pair (u, v) signed so that u's largest element is positive (Stan leaves the sign to the solver); a zero singular value gets a unit u orthogonal to the others; the derivative needs distinct, non-zero singular values", Example: "svd_U(X)"},
	{Name: "svd_V", Args: argMat, Shape: ColsByMin, Support: realRule, Elem: RealResult, Op: "svd_V",
		Doc: "the right singular vectors of A [m, n], the columns of V [n, min(m, n)], so that A = svd_U(A) * diag(singular_values(A)) * svd_V(A)'; signed and differentiable as svd_U", Example: "svd_V(X)"},
	{Name: "chol2inv", Args: []Arg{{Name: "L", Ranks: Matrix}}, Shape: SquareSame, Support: realRule, Elem: RealResult, Op: "chol2inv",
		Doc: "(L L')⁻¹ from a Cholesky factor L (lower triangular with a positive diagonal, else an error at the call), by one triangular solve: the precision matrix of a covariance given by its factor", Example: "chol2inv(L_Sigma)"},
	{Name: "generalized_inverse", Args: argMat, Shape: Transposed, Support: realRule, Elem: RealResult, Op: "generalized_inverse",
		Doc: "the Moore-Penrose inverse A⁺ [n, m] of A [m, n]: of data of any rank, by its SVD (singular values below max(m, n)·ε·σ_max count as zero), as Stan's; of a param's matrix of full rank, differentiable, by Stan's formulas (A'A)⁻¹A' for m > n, A'(AA')⁻¹ for m < n (Cholesky solves), inverse(A) for a square A; a param's rank-deficient matrix is an error at the call", Example: "generalized_inverse(X)"},
	{Name: "symmetrize_from_lower_tri", Args: argMat, Shape: SquareSame, Support: realRule, Elem: RealResult, Op: "symmetrize_from_lower_tri",
		Doc: "the symmetric matrix whose lower triangle (and diagonal) is A's: element [i, j] is A[max(i, j), min(i, j)]", Example: "symmetrize_from_lower_tri(S)"},
	{Name: "trace_gen_quad_form", Args: []Arg{{Name: "D", Ranks: Matrix}, {Name: "A", Ranks: Matrix}, {Name: "B", Ranks: Matrix}}, Shape: TraceGenQuad, Support: realRule, Elem: RealResult, Op: "trace_gen_quad_form",
		Doc: "trace(D * B' * A * B) for D [k, k], A [n, n] and B [n, k] (Stan's trace_gen_quad_form)", Example: "trace_gen_quad_form(D, A, B)"},
	{Name: "quantile", Args: []Arg{{Name: "x", Ranks: Vector}, {Name: "p", Ranks: Scalar | Vector}}, OutputOnly: quantileWhy, Shape: QuantileRule, Support: realRule, Elem: RealResult, Op: "quantile",
		Doc: "the sample quantile of x at probability p (a scalar, or a vector of them) in [0, 1], R's default (type 7) as Stan's: with h = (n - 1) p, x₍⌊h⌋₎ + (h - ⌊h⌋)(x₍⌊h⌋+1₎ - x₍⌊h⌋₎) over the sorted x; of data, computed when the model compiles; of a param only in an output, at each draw, having no gradient (as Stan's, in generated quantities: a VaR of simulated returns)", Example: "quantile(y, 0.9)"},
	{Name: "rows_dot_self", Args: []Arg{{Name: "x", Ranks: Matrix}}, Shape: RowSum, Support: nonNegRule, Elem: RealResult, Op: "rows_dot_self",
		Doc: "the dot product of each row of a matrix with itself, rowsum(x .* x)", Example: "rows_dot_self(X)"},
	{Name: "columns_dot_self", Args: []Arg{{Name: "x", Ranks: Matrix}}, Shape: ColSum, Support: nonNegRule, Elem: RealResult, Op: "columns_dot_self",
		Doc: "the dot product of each column of a matrix with itself, colsum(x .* x): a row [1, n]", Example: "columns_dot_self(W)"},
	{Name: "sort_asc", Range: ElementRange, Args: argVec, Shape: Permute, Support: elementRule, Elem: IntIfAllInt, Op: "sort_asc",
		Doc: "the elements of a vector in ascending order; of a param too, its derivative following the permutation (a sort is continuous, its derivative exact except at ties)", Example: "sort_asc(x)"},
	{Name: "sort_desc", Range: ElementRange, Args: argVec, Shape: Permute, Support: elementRule, Elem: IntIfAllInt, Op: "sort_desc",
		Doc: "the elements of a vector in descending order, as sort_asc", Example: "sort_desc(x)"},
	{Name: "reverse", Range: ElementRange, Args: argVec, Shape: Permute, Support: elementRule, Elem: IntIfAllInt, Op: "reverse",
		Doc: "the elements of a vector in reverse order, x[n - 1], ..., x[0]", Example: "reverse(x)"},
	{Name: "sort_indices_asc", Args: argVec, OutputOnly: sortIndexWhy, Shape: Permute, Support: countRule, Elem: IntResult, Op: "sort_indices_asc",
		Doc: "the 0-based indices that sort a vector ascending, x[sort_indices_asc(x)] = sort_asc(x), ties in index order (Stan's count from 1); of a param only in an output, having no derivative", Example: "x[sort_indices_asc(t)]"},
	{Name: "sort_indices_desc", Args: argVec, OutputOnly: sortIndexWhy, Shape: Permute, Support: countRule, Elem: IntResult, Op: "sort_indices_desc",
		Doc: "the 0-based indices that sort a vector descending, ties in index order (Stan's count from 1); of a param only in an output, having no derivative", Example: "x[sort_indices_desc(w)]"},
	{Name: "rank", Args: []Arg{{Name: "x", Ranks: Vector}, {Name: "s", Ranks: Scalar, Int: true, Data: rankIndexWhy}}, OutputOnly: sortIndexWhy, Shape: ReduceScalar, Support: countRule, Elem: IntResult, Op: "rank",
		Doc: "the number of elements of x less than x[s], s 0-based (Stan's s counts from 1) and known before the fit; of a param only in an output, having no derivative (a treatment's rank at each draw, in a network meta-analysis); the ranks of all elements at once are `sort_indices_asc(sort_indices_asc(x))`, 0-based (0 the smallest), ties in index order where rank gives tied elements the same, lowest rank", Example: "rank(x, 0)"},
	{Name: "to_matrix", Args: []Arg{{Name: "x", Ranks: Vector | Matrix}, {Name: "m", Ranks: Scalar, Int: true}, {Name: "n", Ranks: Scalar, Int: true}}, Shape: ToMatrix, Support: elementRule, Elem: IntIfAllInt, Op: "to_matrix",
		Doc: "the matrix [m, n] filled column by column (column-major, as Stan) with the elements of x, a vector or a matrix read column by column (as to_vector reads it); m and n are constants, sizes or int data", Example: "to_matrix(theta, K, K)"},
	{Name: "csr_matrix_times_vector", Args: append(argCSR[:5:5], Arg{Name: "b", Ranks: Vector}), Shape: CSRTimes, Support: realRule, Elem: RealResult, Op: "csr_matrix_times_vector",
		Doc: "A b for the m × n sparse matrix A in compressed sparse row form, in O(size(w)) with its gradient (Stan's csr_matrix_times_vector): w holds A's non-zeros row by row, v their columns and u [m + 1] where each row starts in w, then size(w), all 0-based (Stan's v and u count from 1: pass v - 1 and u - 1); w and b may be params, v and u are int data or constants, checked when the model compiles; repeated columns in a row add", Example: "csr_matrix_times_vector(N, K, w, v, u, beta)"},
	{Name: "csr_to_dense_matrix", Args: argCSR, Shape: CSRToDense, Support: realRule, Elem: RealResult, Op: "csr_to_dense_matrix",
		Doc: "the m × n matrix of the compressed sparse row form w, v, u (as for csr_matrix_times_vector; 0-based v and u), zeros elsewhere; w may be a param; repeated columns in a row add", Example: "csr_to_dense_matrix(N, K, w, v, u)"},
	{Name: "csr_extract_w", Range: ElementRange, Args: argCSRExtract, Shape: CSRNonZeros, Support: elementRule, Elem: IntIfAllInt, Op: "csr_extract_w",
		Doc: "the non-zero elements of a matrix, row by row: the w of its compressed sparse row form (Stan's csr_extract_w); of data and constants", Example: "csr_extract_w(X)"},
	{Name: "csr_extract_v", Args: argCSRExtract, Shape: CSRNonZeros, Support: countRule, Elem: IntResult, Op: "csr_extract_v",
		Doc: "the 0-based column of each element of csr_extract_w(A) (Stan's count from 1); of data and constants", Example: "csr_extract_v(X)"},
	{Name: "csr_extract_u", Args: argCSRExtract, Shape: CSRRowStarts, Support: countRule, Elem: IntResult, Op: "csr_extract_u",
		Doc: "where each row of A starts in csr_extract_w(A), 0-based, then the number of non-zeros: [m + 1] (Stan's count from 1); of data and constants", Example: "csr_extract_u(X)"},
	{Name: "linspaced_vector", Range: BetweenRange, Args: argLinspaced, Shape: Sized, Support: linspacedRule, Elem: RealResult, Op: "linspaced_vector",
		Doc: "the vector [n] of n evenly spaced values from lo to hi, lo + (hi - lo) * i / (n - 1) (hi alone for n = 1); n is a constant, a size or int data, lo and hi may be params", Example: "linspaced_vector(K, 0, 1)"},
	{Name: "one_hot_vector", Args: argNK, Shape: Sized, Support: nonNegRule, Elem: RealResult, Op: "one_hot_vector",
		Doc: "the vector [n] of zeros with a 1 at index k, 0-based (Stan's k counts from 1); n and k known before the fit", Example: "one_hot_vector(K, 0)"},
	{Name: "linspaced_array", Range: BetweenRange, Args: argLinspaced, Shape: Sized, Support: linspacedRule, Elem: RealResult, Op: "linspaced_vector",
		Doc: "linspaced_vector(n, lo, hi) under Stan's array name (gpp's real[n] is a vector)", Example: "linspaced_array(T, 0, 1)"},
	{Name: "linspaced_row_vector", Range: BetweenRange, Args: argLinspaced, Shape: SizedRow, Support: linspacedRule, Elem: RealResult, Op: "linspaced_vector",
		Doc: "linspaced_vector(n, lo, hi)' as a row [1, n]", Example: "linspaced_row_vector(K, 0, 1)"},
	{Name: "linspaced_int_array", Args: []Arg{{Name: "n", Ranks: Scalar, Int: true}, {Name: "lo", Ranks: Scalar, Int: true}, {Name: "hi", Ranks: Scalar, Int: true}}, Shape: Sized, Support: linspacedIntRule, Elem: IntResult, Op: "linspaced_int_array",
		Doc: "the int [n] from lo to hi ≥ lo as Stan (Eigen's integer LinSpaced) spaces it: lo + i·⌊(hi − lo)/(n − 1)⌋ when hi − lo + 1 ≥ n (hi lowered to fit), else each value repeated, lo + ⌊i/d⌋ with d = ⌊(n + hi − lo)/(hi − lo + 1)⌋; hi alone for n = 1; all arguments known when the model compiles", Example: "linspaced_int_array(5, 0, 8)"},
	{Name: "one_hot_array", Args: argNK, Shape: Sized, Support: nonNegRule, Elem: RealResult, Op: "one_hot_vector",
		Doc: "one_hot_vector(n, k) under Stan's array name, k 0-based (Stan's counts from 1)", Example: "one_hot_array(K, 0)"},
	{Name: "one_hot_int_array", Args: argNK, Shape: Sized, Support: countRule, Elem: IntResult, Op: "one_hot_int_array",
		Doc: "the int [n] of zeros with a 1 at index k, 0-based (Stan's k counts from 1); n and k known when the model compiles", Example: "one_hot_int_array(K, k)"},
	{Name: "one_hot_row_vector", Args: argNK, Shape: SizedRow, Support: nonNegRule, Elem: RealResult, Op: "one_hot_vector",
		Doc: "one_hot_vector(n, k)' as a row [1, n], k 0-based (Stan's counts from 1)", Example: "one_hot_row_vector(K, 0)"},
	{Name: "ones_vector", Args: argN, Shape: Sized, Support: positiveRule, Elem: RealResult, Op: "ones_vector",
		Doc: "the vector [n] of ones, rep(1.0, n)", Example: "ones_vector(N)"},
	{Name: "ones_array", Args: argN, Shape: Sized, Support: positiveRule, Elem: RealResult, Op: "ones_vector",
		Doc: "the real [n] of ones, rep(1.0, n) (Stan's array name)", Example: "ones_array(N)"},
	{Name: "ones_int_array", Args: argN, Shape: Sized, Support: countRule, Elem: IntResult, Op: "ones_int_array",
		Doc: "the int [n] of ones, rep(1, n)", Example: "ones_int_array(N)"},
	{Name: "ones_row_vector", Args: argN, Shape: SizedRow, Support: positiveRule, Elem: RealResult, Op: "ones_vector",
		Doc: "the row [1, n] of ones, rep(1.0, n)'", Example: "ones_row_vector(K)"},
	{Name: "zeros_vector", Args: argN, Shape: Sized, Support: nonNegRule, Elem: RealResult, Op: "zeros_vector",
		Doc: "the vector [n] of zeros, rep(0.0, n)", Example: "zeros_vector(K)"},
	{Name: "zeros_array", Args: argN, Shape: Sized, Support: nonNegRule, Elem: RealResult, Op: "zeros_vector",
		Doc: "the real [n] of zeros, rep(0.0, n) (Stan's array name)", Example: "zeros_array(K)"},
	{Name: "zeros_int_array", Args: argN, Shape: Sized, Support: countRule, Elem: IntResult, Op: "zeros_int_array",
		Doc: "the int [n] of zeros, rep(0, n)", Example: "zeros_int_array(K)"},
	{Name: "zeros_row_vector", Args: argN, Shape: SizedRow, Support: nonNegRule, Elem: RealResult, Op: "zeros_vector",
		Doc: "the row [1, n] of zeros, rep(0.0, n)'", Example: "zeros_row_vector(K)"},
	{Name: "uniform_simplex", Args: argN, Shape: Sized, Support: positiveRule, Elem: RealResult, Op: "uniform_simplex",
		Doc: "the simplex [n] with every element 1/n, n ≥ 1", Example: "uniform_simplex(K)"},
}

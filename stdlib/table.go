package stdlib

import (
	"math"

	"github.com/gpplang/gpp/dist"
)

// Common argument lists and support rules.
var (
	argX     = []Arg{{Name: "x", Ranks: AnyRank}}
	argXY    = []Arg{{Name: "x", Ranks: AnyRank}, {Name: "y", Ranks: AnyRank}}
	argMat   = []Arg{{Name: "A", Ranks: Matrix}}
	argArray = []Arg{{Name: "x", Ranks: Vector | Matrix}}
	argVec   = []Arg{{Name: "x", Ranks: Vector}}
	// argVecOrRows is a vector, or a matrix taken row by row
	argVecOrRows = []Arg{{Name: "x", Ranks: Vector | Matrix}}

	// odeArgs are ode_rk45's: "..." stands for the arguments passed on to f.
	odeData    = "the solver's times and settings are fixed, as in Stan"
	odeArgs    = []Arg{{Name: "f"}, {Name: "y0", Ranks: Vector}, {Name: "t0", Ranks: Scalar, Data: odeData}, {Name: "ts", Ranks: Vector, Data: odeData}, {Name: "..."}}
	odeTolArgs = []Arg{odeArgs[0], odeArgs[1], odeArgs[2], odeArgs[3],
		{Name: "rel_tol", Ranks: Scalar, Data: odeData}, {Name: "abs_tol", Ranks: Scalar, Data: odeData}, {Name: "max_num_steps", Ranks: Scalar, Int: true, Data: odeData}, {Name: "..."}}

	// algArgs are solve_newton's; algNewtonTol and algPowellTol the _tol
	// forms'.
	algData      = "the solver's settings are fixed, as in Stan"
	algArgs      = []Arg{{Name: "f"}, {Name: "y_guess", Ranks: Vector}, {Name: "..."}}
	algNewtonTol = []Arg{algArgs[0], algArgs[1], {Name: "scaling_step", Ranks: Scalar, Data: algData}, {Name: "f_tol", Ranks: Scalar, Data: algData}, {Name: "max_steps", Ranks: Scalar, Int: true, Data: algData}, {Name: "..."}}
	algPowellTol = []Arg{algArgs[0], algArgs[1], {Name: "rel_tol", Ranks: Scalar, Data: algData}, {Name: "f_tol", Ranks: Scalar, Data: algData}, {Name: "max_steps", Ranks: Scalar, Int: true, Data: algData}, {Name: "..."}}
	// integArgs are integrate_1d's: theta, x_r and x_i are passed on to f,
	// and the last two and relative_tolerance may be left out.
	integArgs = []Arg{{Name: "f"}, {Name: "a", Ranks: Scalar}, {Name: "b", Ranks: Scalar}, {Name: "theta"}, {Name: "x_r"}, {Name: "x_i"},
		{Name: "relative_tolerance", Ranks: Scalar, Data: "the quadrature's tolerance is fixed, as in Stan"}}

	realRule     = SupportRule{Kind: Fixed, Default: dist.Real}
	positiveRule = SupportRule{Kind: Fixed, Default: dist.Positive}
	// sumRule: sums of positive (non-negative, count) values keep the sign.
	sumRule = SupportRule{Kind: FromArg, Default: dist.Real, Cases: []SupportCase{
		{If: dist.Positive, Then: dist.Positive},
		{If: dist.Simplex, Then: dist.Positive},
		{If: dist.Count, Then: dist.Count},
		{If: dist.NonNegative, Then: dist.NonNegative},
	}}
	// meanRule: a mean of unit, positive or non-negative values is one
	// too (mean, rowmean, colmean).
	meanRule = SupportRule{Kind: FromArg, Default: dist.Real, Cases: []SupportCase{
		{If: dist.Unit, Then: dist.Unit},
		{If: dist.Positive, Then: dist.Positive},
		{If: dist.Simplex, Then: dist.Positive},
		{If: dist.NonNegative, Then: dist.NonNegative},
	}}
	// groupSumRule: group_sum's sums keep a sign as sumRule's do, but a
	// group with no element sums to 0, so positive values give non-negative
	// sums.
	groupSumRule = SupportRule{Kind: FromArg, Default: dist.Real, Cases: []SupportCase{
		{If: dist.Count, Then: dist.Count},
		{If: dist.NonNegative, Then: dist.NonNegative},
	}}
	// groupWhy says why group_sum's codes are data.
	groupWhy = "which elements each group sums is fixed, and the codes checked, when the model compiles"
	// signRule: maps that keep positive and non-negative values so.
	signRule = SupportRule{Kind: FromArg, Default: dist.Real, Cases: []SupportCase{
		{If: dist.Positive, Then: dist.Positive},
		{If: dist.NonNegative, Then: dist.NonNegative},
	}}
)

// elementRule is the support of an element of x, which max, min and rep
// keep (a simplex's element is non-negative).
var elementRule = SupportRule{Kind: FromArg, Default: dist.Real, Cases: []SupportCase{
	{If: dist.Binary, Then: dist.Binary}, {If: dist.Count, Then: dist.Count}, {If: dist.Unit, Then: dist.Unit},
	{If: dist.Positive, Then: dist.Positive}, {If: dist.NonNegative, Then: dist.NonNegative}}}

func fold1(f func(float64) float64) func([]float64) float64 {
	return func(a []float64) float64 { return f(a[0]) }
}

func identity(x float64) float64 { return x }

// withAlt returns f with its second form alt, taken by a call with alt's
// number of arguments (log2() and log2(x)).
func withAlt(f, alt *Func) *Func {
	f.Alt = alt
	return f
}

// constant is the entry of a function of no arguments whose value is v.
func constant(name string, v float64, support SupportRule, doc, example string) *Func {
	return &Func{Name: name, Shape: Constant, Support: support, Elem: RealResult, Op: "const",
		Doc: doc, Example: example, Fold: func([]float64) float64 { return v }}
}

var funcs = []*Func{
	{Name: "exp", Range: Increasing, Args: argX, Shape: Elementwise1, Support: positiveRule, Elem: RealResult, Op: "exp",
		Doc: "e to the power x, elementwise", Example: "exp(-rate)", Fold: fold1(math.Exp)},
	{Name: "log", Range: Increasing, Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "log",
		Doc: "natural logarithm, elementwise", Example: "log(sigma)", Fold: fold1(dist.Log)},
	{Name: "log1p", Range: Increasing, Args: argX, Shape: Elementwise1, Support: signRule, Elem: RealResult, Op: "log1p",
		Doc: "log(1 + x), accurate for small x", Example: "log1p(-p)", Fold: fold1(math.Log1p)},
	{Name: "expm1", Range: Increasing, Args: argX, Shape: Elementwise1, Support: signRule, Elem: RealResult, Op: "expm1",
		Doc: "exp(x) - 1, accurate for small x", Example: "expm1(rate)", Fold: fold1(math.Expm1)},
	{Name: "log1mexp", Range: Increasing, Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "log1mexp",
		Doc: "log(1 - exp(-x)) for x > 0, accurate at both ends", Example: "log1mexp(rate)", Fold: fold1(dist.Log1mexp)},
	{Name: "lgamma", Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "lgamma",
		Doc: "log of the absolute gamma function", Example: "lgamma(alpha)", Fold: fold1(lgamma)},
	{Name: "digamma", Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "digamma",
		Doc: "derivative of lgamma", Example: "digamma(alpha)", Fold: fold1(dist.Digamma)},
	{Name: "softplus", Range: Increasing, Args: argX, Shape: Elementwise1, Support: positiveRule, Elem: RealResult, Op: "softplus",
		Doc: "log(1 + exp(x)), a smooth positive map", Example: "softplus(z)", Fold: fold1(dist.Softplus)},
	{Name: "sqrt", Range: Increasing, Args: argX, Shape: Elementwise1, Elem: RealResult, Op: "sqrt",
		Support: SupportRule{Kind: FromArg, Default: dist.Real, Cases: []SupportCase{
			{If: dist.Unit, Then: dist.Unit},
			{If: dist.Positive, Then: dist.Positive},
			{If: dist.NonNegative, Then: dist.NonNegative},
		}},
		Doc: "square root, elementwise; its derivative at 0, infinite, counts as 0 (docs/language.md §4, Derivatives at a boundary)", Example: "sqrt(var)", Fold: fold1(math.Sqrt)},
	{Name: "square", Range: SquareRange, Args: argX, Shape: Elementwise1, Elem: IntIfAllInt, Op: "square",
		Support: SupportRule{Kind: FromArg, Default: dist.NonNegative, Cases: []SupportCase{
			{If: dist.Unit, Then: dist.Unit},
			{If: dist.Positive, Then: dist.Positive},
		}},
		Doc: "x * x, elementwise", Example: "square(y - mu)", Fold: fold1(func(x float64) float64 { return x * x })},
	{Name: "abs", Range: AbsRange, Args: argX, Shape: Elementwise1, Elem: IntIfAllInt, Op: "abs",
		Support: SupportRule{Kind: FromArg, Default: dist.NonNegative, Cases: []SupportCase{
			{If: dist.Unit, Then: dist.Unit},
			{If: dist.Positive, Then: dist.Positive},
		}},
		Doc: "absolute value, elementwise", Example: "abs(z)", Fold: fold1(math.Abs)},
	{Name: "inv_logit", Range: Increasing, Args: argX, Shape: Elementwise1, Support: SupportRule{Kind: Fixed, Default: dist.Unit}, Elem: RealResult, Op: "inv_logit",
		Doc: "the logistic function 1 / (1 + exp(-x))", Example: "inv_logit(alpha + beta * x)", Fold: fold1(dist.InvLogit)},
	{Name: "logit", Range: Increasing, Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "logit",
		Doc: "log(p / (1 - p)), the inverse of inv_logit", Example: "logit(p)", Fold: fold1(func(p float64) float64 { return dist.Log(p / (1 - p)) })},
	{Name: "log1m", Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "log1m",
		Doc: "log(1 - x) for x ≤ 1, as log1p(-x): accurate for small x", Example: "log1m(p)", Fold: fold1(dist.Log1m)},
	{Name: "log_inv_logit", Range: Increasing, Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "log_inv_logit",
		Doc: "log(inv_logit(x)), as -softplus(-x): no underflow for x ≪ 0", Example: "log_inv_logit(eta)", Fold: fold1(func(x float64) float64 { return -dist.Softplus(-x) })},
	{Name: "log1m_inv_logit", Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "log1m_inv_logit",
		Doc: "log(1 - inv_logit(x)), as -softplus(x): no underflow for x ≫ 0", Example: "log1m_inv_logit(eta)", Fold: fold1(func(x float64) float64 { return -dist.Softplus(x) })},
	{Name: "inv_cloglog", Range: Increasing, Args: argX, Shape: Elementwise1, Support: unitRule, Elem: RealResult, Op: "inv_cloglog",
		Doc: "1 - exp(-exp(x)), the inverse of the complementary log-log link, as -expm1(-exp(x)): accurate for x ≪ 0", Example: "Bernoulli(inv_cloglog(alpha + X * beta))", Fold: fold1(dist.InvCloglog)},
	{Name: "Phi", Range: Increasing, Args: argX, Shape: Elementwise1, Support: unitRule, Elem: RealResult, Op: "Phi",
		Doc: "the standard normal CDF, erfc(-x / √2) / 2: accurate in both tails (Phi(-37) = 5.7e-300)", Example: "Phi((c - mu) / sigma)", Fold: fold1(dist.Phi)},
	{Name: "Phi_approx", Range: Increasing, Args: argX, Shape: Elementwise1, Support: unitRule, Elem: RealResult, Op: "Phi_approx",
		Doc: "Stan's logistic approximation of Phi, inv_logit(0.07056 x³ + 1.5976 x), within 1.4e-4 of it", Example: "Phi_approx(alpha + beta * x)", Fold: fold1(dist.PhiApprox)},
	{Name: "inv_Phi", Range: Increasing, Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "inv_Phi",
		Doc: "the standard normal quantile: Phi(inv_Phi(p)) = p for p in [0, 1] (Acklam's approximation and a Halley step: full double precision, also at p = 1e-300)", Example: "inv_Phi(p)", Fold: fold1(dist.InvPhi)},
	{Name: "lbeta", Args: []Arg{{Name: "a", Ranks: AnyRank}, {Name: "b", Ranks: AnyRank}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "lbeta",
		Doc: "log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b) for a, b > 0, elementwise with broadcasting; Stirling terms combined first, so large arguments keep their digits", Example: "lbeta(alpha, beta)",
		Fold: func(a []float64) float64 { return dist.LogBeta(a[0], a[1]) }},
	{Name: "lchoose", Args: []Arg{{Name: "n", Ranks: AnyRank}, {Name: "k", Ranks: AnyRank}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "lchoose",
		Doc: "log of the binomial coefficient n choose k, as -log1p(n) - lbeta(n - k + 1, k + 1), for real 0 ≤ k ≤ n, elementwise with broadcasting", Example: "lchoose(n, y)",
		Fold: func(a []float64) float64 { return lchoose(a[0], a[1]) }},
	{Name: "tanh", Range: Increasing, Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "tanh",
		Doc: "hyperbolic tangent, in (-1, 1)", Example: "tanh(z)", Fold: fold1(math.Tanh)},
	{Name: "sin", Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "sin",
		Doc: "sine (radians)", Example: "sin(omega * t)", Fold: fold1(math.Sin)},
	{Name: "cos", Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "cos",
		Doc: "cosine (radians)", Example: "cos(omega * t + phase)", Fold: fold1(math.Cos)},
	{Name: "atan", Range: Increasing, Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "atan",
		Doc: "arc tangent, in (-π/2, π/2)", Example: "atan(slope)", Fold: fold1(math.Atan)},
	{Name: "inv", Args: argX, Shape: Elementwise1, Support: positiveKeptRule, Elem: RealResult, Op: "inv",
		Doc: "1 / x, elementwise", Example: "inv(sigma)", Fold: fold1(func(x float64) float64 { return 1 / x })},
	{Name: "inv_sqrt", Args: argX, Shape: Elementwise1, Support: positiveKeptRule, Elem: RealResult, Op: "inv_sqrt",
		Doc: "1 / sqrt(x), elementwise", Example: "inv_sqrt(tau)", Fold: fold1(func(x float64) float64 { return 1 / math.Sqrt(x) })},
	{Name: "inv_square", Args: argX, Shape: Elementwise1, Support: positiveRule, Elem: RealResult, Op: "inv_square",
		Doc: "1 / x², elementwise: a precision from a scale", Example: "inv_square(sigma)", Fold: fold1(func(x float64) float64 { return 1 / (x * x) })},
	// Stan's mathematical constants, called with no arguments; the checker
	// folds each to a constant, so pi() costs what 3.14159... does.
	constant("pi", math.Pi, positiveRule, "π, the ratio of a circle's circumference to its diameter (Stan's pi())", "log(2 * pi())"),
	constant("e", math.E, positiveRule, "e, the base of the natural logarithm (Stan's e())", "e() ^ x"),
	constant("sqrt2", math.Sqrt2, positiveRule, "√2 (Stan's sqrt2())", "x / sqrt2()"),
	withAlt(constant("log2", math.Ln2, positiveRule, "log 2, the natural logarithm of 2 (Stan's log2() with no argument)", "y * log2()"),
		&Func{Name: "log2", Range: Increasing, Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "log2",
			Doc: "base-2 logarithm, elementwise (exact at powers of 2)", Example: "log2(n)", Fold: fold1(dist.Log2)}),
	withAlt(constant("log10", math.Ln10, positiveRule, "log 10, the natural logarithm of 10 (Stan's log10() with no argument)", "log(x) / log10()"),
		&Func{Name: "log10", Range: Increasing, Args: argX, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "log10",
			Doc: "base-10 logarithm, elementwise", Example: "log10(dose)", Fold: fold1(dist.Log10)}),
	constant("positive_infinity", math.Inf(1), positiveRule, "+∞ (Stan's positive_infinity())", "fmin(x, positive_infinity())"),
	constant("negative_infinity", math.Inf(-1), realRule, "-∞ (Stan's negative_infinity())", "fmax(x, negative_infinity())"),
	constant("not_a_number", math.NaN(), realRule, "NaN, not a number (Stan's not_a_number()); any arithmetic with it gives NaN", "not_a_number()"),
	constant("machine_precision", 0x1p-52, positiveRule, "2⁻⁵², the gap between 1 and the next double (Stan's machine_precision())", "x + machine_precision()"),
	{Name: "fmin", Args: argXY, Shape: Elementwise2, Support: SupportRule{Kind: Smaller, Default: dist.Real}, Elem: RealResult, Op: "fmin",
		Doc: "the smaller of x and y, elementwise with broadcasting; a NaN yields to the other operand (C's fmin); the derivative goes to the operand chosen, to x at a tie", Example: "fmin(y, cap)",
		Fold: func(a []float64) float64 { return fminmax(a[0], a[1], false) }},
	{Name: "fmax", Range: LargerRange, Args: argXY, Shape: Elementwise2, Support: SupportRule{Kind: Larger, Default: dist.Real}, Elem: RealResult, Op: "fmax",
		Doc: "the larger of x and y, elementwise with broadcasting; a NaN yields to the other operand (C's fmax); the derivative goes to the operand chosen, to x at a tie", Example: "fmax(sigma, 1e-6)",
		Fold: func(a []float64) float64 { return fminmax(a[0], a[1], true) }},
	{Name: "log_mix", Args: []Arg{{Name: "theta", Ranks: AnyRank}, {Name: "lp1", Ranks: AnyRank}, {Name: "lp2", Ranks: AnyRank}}, Shape: Elementwise2, Support: realRule, Elem: RealResult, Op: "log_mix",
		Doc: "log(theta * exp(lp1) + (1 - theta) * exp(lp2)) for theta in [0, 1], elementwise with broadcasting (Stan's two-component log_mix), without overflow: lp2 at theta = 0 and lp1 at theta = 1, with finite derivatives there", Example: "target += log_mix(lambda, logpdf(y, Normal(mu1, s)), logpdf(y, Normal(mu2, s)))",
		Fold: func(a []float64) float64 { v, _ := dist.LogMixFn.Kernel(a[0], a[1:], nil); return v }},
	{Name: "pow", Range: PowRange, Args: argXY, Shape: Elementwise2, Support: signRule, Elem: RealResult, Op: "pow",
		Doc: "x to the power y, elementwise with broadcasting (the same as x ^ y); at x = 0 with 0 <= y < 1 its infinite derivative counts as 0 (docs/language.md §4, Derivatives at a boundary)", Example: "pow(sigma, 2)",
		Fold: func(a []float64) float64 { return math.Pow(a[0], a[1]) }},
	{Name: "sum", Range: SumRange, Args: []Arg{{Name: "x", Ranks: AnyRank}}, Shape: ReduceScalar, Support: sumRule, Elem: IntIfAllInt, Op: "sum",
		Doc: "sum of all elements", Example: "sum(log1mexp(rate))", Fold: fold1(identity)},
	{Name: "mean", Range: ElementRange, Args: []Arg{{Name: "x", Ranks: AnyRank}}, Shape: ReduceScalar, Elem: RealResult, Op: "mean",
		Support: meanRule,
		Doc:     "mean of all elements", Example: "mean(y)", Fold: fold1(identity)},
	{Name: "max", Range: ElementRange, Args: []Arg{{Name: "x", Ranks: AnyRank}}, Shape: ReduceScalar, Support: elementRule, Elem: IntIfAllInt, Op: "max",
		Doc: "the largest element (its derivative goes to the first largest), −∞ of no elements, as in Stan; a test statistic of a posterior predictive check", Example: "max(y_rep)", Fold: fold1(identity)},
	{Name: "min", Range: ElementRange, Args: []Arg{{Name: "x", Ranks: AnyRank}}, Shape: ReduceScalar, Support: elementRule, Elem: IntIfAllInt, Op: "min",
		Doc: "the smallest element (its derivative goes to the first smallest), +∞ of no elements", Example: "min(y_rep)", Fold: fold1(identity)},
	{Name: "logsumexp", Args: []Arg{{Name: "x", Ranks: AnyRank}}, Shape: ReduceScalar, Elem: RealResult, Op: "logsumexp",
		Support: SupportRule{Kind: FromArg, Default: dist.Real, Cases: []SupportCase{{If: dist.Positive, Then: dist.Positive}}},
		Doc:     "log(sum(exp(x))) over all elements, without overflow", Example: "logsumexp(lp)", Fold: fold1(identity)},
	{Name: "rowlogsumexp", Args: argMat, Shape: RowSum, Elem: RealResult, Op: "rowlogsumexp",
		Support: SupportRule{Kind: FromArg, Default: dist.Real, Cases: []SupportCase{{If: dist.Positive, Then: dist.Positive}}},
		Doc:     "log(sum(exp(A[i, ]))) of each row, without overflow: a mixture's log-likelihood per observation", Example: "rowlogsumexp(log(w)' + logpdf(y, Normal(mu', sigma')))"},
	{Name: "rowsum", Range: SumRange, Args: argMat, Shape: RowSum, Support: sumRule, Elem: IntIfAllInt, Op: "rowsum",
		Doc: "sum of each row: a vector", Example: "rowsum(W .* r')"},
	{Name: "colsum", Range: SumRange, Args: argMat, Shape: ColSum, Support: sumRule, Elem: IntIfAllInt, Op: "colsum",
		Doc: "sum of each column: a row [1, m]", Example: "colsum(W)"},
	{Name: "rowmean", Range: ElementRange, Args: argMat, Shape: RowSum, Support: meanRule, Elem: RealResult, Op: "rowmean",
		Doc: "mean of each row, rowsum(x) / m: a vector", Example: "rowmean(Y)"},
	{Name: "colmean", Range: ElementRange, Args: argMat, Shape: ColSum, Support: meanRule, Elem: RealResult, Op: "colmean",
		Doc: "mean of each column, colsum(x) / n: a row [1, m]", Example: "colmean(theta)"},
	{Name: "interp", Args: []Arg{{Name: "x", Ranks: AnyRank}, {Name: "xp", Ranks: Vector, Data: "the table's grid is fixed, and checked to increase, when the model compiles"}, {Name: "fp", Ranks: Vector}}, Shape: Interp,
		// an average of two of fp's values keeps their sign and (0, 1)
		Support: SupportRule{Kind: FromArg, Arg: 2, Default: dist.Real, Cases: []SupportCase{
			{If: dist.Unit, Then: dist.Unit}, {If: dist.Positive, Then: dist.Positive}, {If: dist.NonNegative, Then: dist.NonNegative}}}, Elem: RealResult, Op: "interp",
		Doc: "the piecewise linear interpolation of the table (xp, fp) at each element of x, in x's shape (numpy.interp): xp [n] data strictly increasing, fp [n] data or a param; fp[0] below xp[0] and fp[n-1] from xp[n-1] on, with derivative 0 in x there (bound x's param to the table's range); at a knot the derivative is the right segment's slope; O(log n) per element by binary search: a calibration curve (section 3, Interpolating a table)", Example: "interp(t, calBP, c14)"},
	{Name: "group_sum", Args: []Arg{{Name: "x", Ranks: Vector | Matrix}, {Name: "g", Ranks: Vector, Int: true, Data: groupWhy}, {Name: "K", Ranks: Scalar, Int: true}}, Shape: GroupSum, Support: groupSumRule, Elem: IntIfAllInt, Op: "group_sum",
		Doc: "the sums of x by group: element k is the sum of the x[i] whose 0-based code g[i] is k, 0 where no g[i] is (JAX's segment_sum, R's rowsum(x, g), NumPy's bincount(g, weights = x, minlength = K)); x [N, m] sums its rows into [K, m]; x may be a param, g is int data or constants, each code in [0, K), checked when the model compiles; O(N) with its gradient: poststratification (section 3, Aggregation by group)", Example: "group_sum(count .* p_cell, cstate, S) / group_sum(count, cstate, S)"},
	{Name: "cumsum", Range: SumRange, Args: argVecOrRows, Shape: Elementwise1, Support: sumRule, Elem: IntIfAllInt, Op: "cumsum",
		Doc: "running sums: element i is x[0] + ... + x[i] (Stan's cumulative_sum); of a matrix, those along each row, element [r, j] being x[r, 0] + ... + x[r, j], one series per row over its columns (Stan's is vector-only; cumsum(x')' runs down the columns); a random walk from its steps, one per row of a matrix of steps", Example: "mu + sigma * cumsum(z)"},
	withAlt(&Func{Name: "diff", Args: argVec, Shape: Diff, Support: realRule, Elem: RealResult, Op: "diff",
		Doc: "first differences: element i is x[i+1] - x[i], n − 1 of them (R's and NumPy's diff); the steps of a random walk, an RW1 prior as diff(x) ~ Normal(0, s)", Example: "diff(x) ~ Normal(0, s)"},
		&Func{Name: "diff", Args: []Arg{{Name: "x", Ranks: Vector}, {Name: "d", Ranks: Scalar, Int: true, Data: "the result's length n − d is fixed when the model compiles"}}, Shape: Diff, Support: realRule, Elem: RealResult, Op: "diff",
			Doc: "the d-th differences, diff applied d times (d a constant int ≥ 1, less than x's length n): n − d elements, element i being Σₖ (−1)^(d−k) C(d, k) x[i+k]; an RW2 prior as diff(x, 2) ~ Normal(0, s) (section 3, Time series)", Example: "diff(x, 2) ~ Normal(0, s)"}),
	{Name: "ar_filter", Args: []Arg{{Name: "phi", Ranks: Scalar | Vector}, {Name: "e", Ranks: Vector | Matrix}}, Shape: Filter, Support: SupportRule{Kind: Recursive, Default: dist.Real}, Elem: RealResult, Op: "ar_filter",
		Doc: "the recursive filter h[t] = e[t] + phi[0] * h[t-1] + ... + phi[p-1] * h[t-p], terms before h[0] taken as 0 (so h[0] = e[0]), of each column of e alone (R's filter(e, phi, method = \"recursive\")); phi a scalar (AR(1)) or [p]; O(T·p) with its gradient: a non-centred AR(p) or state-space model without a loop (section 3, Time series)", Example: "mu + ar_filter(phi, sigma * z)"},
	{Name: "tv_filter", Args: []Arg{{Name: "a", Ranks: Vector | Matrix}, {Name: "e", Ranks: Vector | Matrix}}, Shape: TVFilter, Support: SupportRule{Kind: Recursive, Default: dist.Real}, Elem: RealResult, Op: "tv_filter",
		Doc: "the time-varying recursive filter h[0] = e[0], h[t] = a[t] * h[t-1] + e[t] (a[0] is not read), of each column of e alone; a [T] is shared by e's columns, a [T, K] gives each element its own: ar_filter's AR(1) with a coefficient per time step; O(T) with its gradient: survival or growth that varies in time, a local level with a time-varying damping, without a loop (section 3, Time series)", Example: "tv_filter(s, append_row(N0, rep(R, T - 1)))"},
	{Name: "renewal", Args: []Arg{{Name: "R", Ranks: Vector}, {Name: "w", Ranks: Vector}, {Name: "I0", Ranks: Vector}}, Shape: Renewal, Support: SupportRule{Kind: RenewalSupport, Default: dist.Real}, Elem: RealResult, Op: "renewal",
		Doc: "the renewal equation (Cori et al., EpiNow2's latent infections) I[t] = R[t] * (w[0] * I[t-1] + ... + w[S-1] * I[t-S]) for t in 0..T-1, an I[t-s] with t - s < 0 being I0[S+t-s] (I0 [S] the seed before t = 0, I0[S-1] the most recent); w [S] the generation interval, w[0] the weight of lag 1; O(T·S) with its gradient in R, w and I0: infections from a time-varying reproduction number without a loop (section 3, Time series)", Example: "renewal(exp(logR), w, I0)"},
	{Name: "hmm_marginal", Args: []Arg{{Name: "log_omega", Ranks: Vector | Matrix}, {Name: "Gamma", Ranks: Matrix, Support: dist.NonNegative}, {Name: "rho", Ranks: Vector, Support: dist.NonNegative}}, Shape: HMM, Support: realRule, Elem: RealResult, Op: "hmm_marginal",
		Doc: "the log marginal likelihood of a hidden Markov model with K states (Stan's hmm_marginal), the hidden states summed out by the forward algorithm in O(N·K²) with its gradient: row t of log_omega [N, K] holds log p(y[t] | state k) (the transpose of Stan's [K, N], as logpdf(y, Normal(mu', sigma')) gives it), row i of Gamma [K, K] the distribution of the state after state i (each row a simplex, as simplex[K, K] declares), rho [K] the first state's (section 3, Hidden Markov models); a time-varying Gamma [N − 1, K·K] has in row t the transition matrix from step t to t + 1 row by row (each K-block a simplex), for transitions that depend on covariates, as append_col(append_col(1 - p01, p01), append_col(p10, 1 - p10)) builds for K = 2; a vector [N] is the log_omega [N, 1] of one state (K = 1, what logpdf(y, Normal(mu', sigma)) gives for a mu [1]); name the matrix otherwise (A): Gamma is a distribution", Example: "hmm_marginal(logpdf(y, Normal(mu', sigma)), A, rho)"},
	{Name: "hmm_hidden_state_prob", Args: []Arg{{Name: "log_omega", Ranks: Vector | Matrix}, {Name: "Gamma", Ranks: Matrix, Support: dist.NonNegative}, {Name: "rho", Ranks: Vector, Support: dist.NonNegative}}, Shape: HMMStates, Support: SupportRule{Kind: Fixed, Default: dist.NonNegative}, Elem: RealResult, Op: "hmm_hidden_state_prob",
		Doc: "the posterior probability of each hidden state at each observation given all of them, [N, K] (Stan's hmm_hidden_state_prob, transposed as log_omega is), by the forward-backward algorithm, for the arguments of hmm_marginal (Gamma [K, K] or time-varying [N − 1, K·K]); each row sums to 1; no derivative, so on params only an output may call it", Example: "output p_state = hmm_hidden_state_prob(logpdf(y, Normal(mu', sigma)), A, rho)",
		OutputOnly: "it is a posterior summary with no derivative, for outputs (hmm_marginal is the log likelihood)"},
	{Name: "hmm_latent_rng", Args: []Arg{{Name: "log_omega", Ranks: Vector | Matrix}, {Name: "Gamma", Ranks: Matrix, Support: dist.NonNegative}, {Name: "rho", Ranks: Vector, Support: dist.NonNegative}}, Shape: HMMPath, Support: SupportRule{Kind: Fixed, Default: dist.NonNegative}, Elem: IntResult, Op: "hmm_latent_rng",
		Doc: "a draw of the hidden state path given all the observations, int [N] with states 0..K-1 (Stan's hmm_latent_rng, 0-based), by forward filtering and backward sampling, for the arguments of hmm_marginal (Gamma [K, K] or time-varying [N − 1, K·K]); a random draw, so only an output may call it", Example: "output z = hmm_latent_rng(logpdf(y, Normal(mu', sigma)), A, rho)",
		OutputOnly: "it draws the states anew at each draw of q (hmm_marginal is the log likelihood)", Random: true},
	{Name: "hmm_viterbi", Args: []Arg{{Name: "log_omega", Ranks: Vector | Matrix}, {Name: "Gamma", Ranks: Matrix, Support: dist.NonNegative}, {Name: "rho", Ranks: Vector, Support: dist.NonNegative}}, Shape: HMMPath, Support: SupportRule{Kind: Fixed, Default: dist.NonNegative}, Elem: IntResult, Op: "hmm_viterbi",
		Doc: "the most likely hidden state path given all the observations, int [N] with states 0..K-1 (0-based), by the Viterbi algorithm in O(N·K²), for the arguments of hmm_marginal (Gamma [K, K] or time-varying [N − 1, K·K]) (hmmlearn's decode, depmixS4's viterbi); among equally likely paths the lowest states win; NaN where no path is possible; no derivative, so on params only an output may call it", Example: "output z_map = hmm_viterbi(logpdf(y, Normal(mu', sigma)), A, rho)",
		OutputOnly: "it is a posterior summary with no derivative, for outputs (hmm_marginal is the log likelihood)"},
	{Name: "ode_rk45", Args: odeArgs, Shape: ODE, Support: realRule, Elem: RealResult, Op: "ode_rk45",
		Doc: "the solution of the ODE y' = f(t, y, ...) from y(t0) = y0 at the increasing output times ts (each > t0; t0 and ts known before the fit), row i being y(ts[i]) (Stan's ode_rk45 returns an array of vectors); f names a user function fn f(t, y, ...) returning a vector as long as y, and the arguments after ts are passed to it (params, data, lets); Dormand–Prince 5(4) with relative and absolute tolerances 1e-6 and at most 1e6 steps in all, its gradient by forward sensitivities (section 3, Ordinary differential equations)", Example: "ode_rk45(sir, y0, 0, ts, beta, gamma)"},
	{Name: "ode_rk45_tol", Args: odeTolArgs, Shape: ODE, Support: realRule, Elem: RealResult, Op: "ode_rk45",
		Doc: "ode_rk45 with the solver's settings (Stan's ode_rk45_tol): rel_tol and abs_tol > 0, max_num_steps a positive int, all known before the fit", Example: "ode_rk45_tol(sir, y0, 0, ts, 1e-8, 1e-8, 100000, beta, gamma)"},
	{Name: "ode_bdf", Args: odeArgs, Shape: ODE, Support: realRule, Elem: RealResult, Op: "ode_bdf",
		Doc: "ode_rk45's solution by a solver for stiff systems (Stan's ode_bdf, its arguments and defaults: relative and absolute tolerances 1e-10, at most 1e8 steps in all); not CVODES's variable-order BDF but the Rosenbrock-W method ROS34PW2, one-step, linearly implicit, of order 3: for a system whose fast decaying components make ode_rk45 take tiny steps (chemical kinetics, fast absorption), its gradient by forward sensitivities; at tolerances of 1e-10 an order-3 method takes many steps, and ode_bdf_tol with 1e-6 to 1e-8 is much faster (section 3, Ordinary differential equations)", Example: "ode_bdf(rober, [1, 0, 0], 0, ts, k)"},
	{Name: "ode_bdf_tol", Args: odeTolArgs, Shape: ODE, Support: realRule, Elem: RealResult, Op: "ode_bdf",
		Doc: "ode_bdf with the solver's settings (Stan's ode_bdf_tol): rel_tol and abs_tol > 0, max_num_steps a positive int, all known before the fit", Example: "ode_bdf_tol(rober, [1, 0, 0], 0, ts, 1e-6, 1e-10, 100000, k)"},
	{Name: "solve_newton", Args: algArgs, Shape: Algebra, Support: realRule, Elem: RealResult, Op: "solve_newton",
		Doc: "the root y of f(y, ...) = 0 that Newton's method with a line search reaches from y_guess (Stan's solve_newton); f names a user function fn f(y, ...) returning a vector as long as y, and the arguments after y_guess are passed to it (params, data, lets); it stops when max |f| ≤ 1e-6 and a further Newton step changes y by less than 1e-10 of it, fails after 200 steps or at a singular Jacobian; the gradient by the implicit function theorem, none in y_guess (section 3, Algebraic equations)", Example: "solve_newton(steady, [1, 1], k)"},
	{Name: "solve_newton_tol", Args: algNewtonTol, Shape: Algebra, Support: realRule, Elem: RealResult, Op: "solve_newton",
		Doc: "solve_newton with the solver's settings (Stan's solve_newton_tol): scaling_step (the shortest step the line search may take, relative to y; default 1e-3) and f_tol > 0, max_steps a positive int, all known before the fit", Example: "solve_newton_tol(steady, [1, 1], 1e-3, 1e-8, 100, k)"},
	{Name: "solve_powell", Args: algArgs, Shape: Algebra, Support: realRule, Elem: RealResult, Op: "solve_powell",
		Doc: "solve_newton's root by Powell's dogleg, a trust region between the Newton step and steepest descent, more robust from a poor y_guess or through a singular Jacobian (Stan's solve_powell): it stops when max |f| ≤ 1e-6 and the step is below 1e-10 relative to y, fails after 200 steps (section 3, Algebraic equations)", Example: "solve_powell(steady, [1, 1], k)"},
	{Name: "solve_powell_tol", Args: algPowellTol, Shape: Algebra, Support: realRule, Elem: RealResult, Op: "solve_powell",
		Doc: "solve_powell with the solver's settings (Stan's solve_powell_tol): rel_tol (the relative step that ends the solve; default 1e-10) and f_tol > 0, max_steps a positive int, all known before the fit", Example: "solve_powell_tol(steady, [1, 1], 1e-10, 1e-8, 100, k)"},
	{Name: "integrate_1d", Args: integArgs, Shape: Integrate1D, Support: realRule, Elem: RealResult, Op: "integrate_1d",
		Doc: "∫ f(x, xc, theta, x_r, x_i) dx from a to b (Stan's integrate_1d): f names a user function fn f(x, xc, theta, x_r, x_i) returning a scalar, whose theta, x_r and x_i are the call's, passed on as they are (any shapes; params, data, lets); x_r and x_i may be left out, with f then taking fewer arguments (gpp has no empty-array literal: rep(0, 0) is one); a and b scalars with a ≤ b, either may be a param or infinite (negative_infinity(), positive_infinity()); xc is b − x near b and a − x near a, exact where x rounds to the bound, and NaN when a bound is infinite; relative_tolerance (default √ε ≈ 1.5e-8) is known before the fit. Double-exponential quadrature as Stan's (tanh-sinh, exp-sinh, sinh-sinh; split at 0), its gradient in theta by integrating ∂f/∂theta on the same nodes, in a and b from f at the bound (section 3, One-dimensional integrals)", Example: "integrate_1d(kernel, 0, 1, ab)"},
	{Name: "variance", Args: argArray, Shape: ReduceScalar, Support: SupportRule{Kind: Fixed, Default: dist.NonNegative}, Elem: RealResult, Op: "variance",
		Doc: "sample variance of all elements, over n - 1 (Stan's variance); 0 for one element", Example: "log(variance(y))"},
	{Name: "sd", FreeName: true, Args: argArray, Shape: ReduceScalar, Support: SupportRule{Kind: Fixed, Default: dist.NonNegative}, Elem: RealResult, Op: "sd",
		Doc: "sample standard deviation of all elements, sqrt(variance(x)), over n - 1 (Stan's sd); 0 for one element", Example: "(y - mean(y)) / sd(y)"},
	{Name: "I", Args: []Arg{{Name: "n", Ranks: Scalar, Int: true}}, Shape: Identity,
		Support: SupportRule{Kind: Fixed, Default: dist.NonNegative}, Elem: RealResult, Op: "identity",
		Doc: "the n × n identity matrix; n is a constant, a size or int data", Example: "I(D) / prec"},
	{Name: "rep", Range: ElementRange, Args: []Arg{{Name: "x", Ranks: Scalar}, {Name: "n", Ranks: Scalar, Int: true}}, Shape: Rep, Elem: IntIfAllInt, Op: "rep",
		Support: elementRule,
		Doc:     "the vector [n] whose every element is x (Stan's rep_vector); n is a constant, a size or int data", Example: "output y_rep ~ Poisson(rep(lambda, N))"},
	{Name: "rep_matrix", Range: ElementRange, Args: []Arg{{Name: "x", Ranks: Scalar}, {Name: "n", Ranks: Scalar, Int: true}, {Name: "m", Ranks: Scalar, Int: true}}, Shape: RepMatrix, Elem: IntIfAllInt, Op: "rep_matrix",
		Support: elementRule,
		Doc:     "the matrix [n, m] whose every element is x (Stan's rep_matrix); n and m are constants, sizes or int data", Example: "output Y_rep ~ MvNormalRows(rep_matrix(0, N, D), C)"},
	{Name: "diag", Args: argArray, Shape: DiagRule, Elem: RealResult, Op: "diag",
		Support: SupportRule{Kind: FromArg, Default: dist.Real, Cases: []SupportCase{{If: dist.NonNegative, Then: dist.NonNegative}}},
		Doc:     "the diagonal matrix of a vector, or the diagonal of a square matrix", Example: "diag(sigma .* sigma)"},
	{Name: "diag_pre_multiply", Args: []Arg{{Name: "v", Ranks: Vector}, {Name: "M", Ranks: Matrix}}, Shape: DiagPre,
		Support: SupportRule{Kind: Product, Default: dist.Real}, Elem: RealResult, Op: "diag_pre_multiply",
		Doc: "diag(v) * M without the product (Stan's diag_pre_multiply): row i of M times v[i]; diag_pre_multiply(tau, L) is the Cholesky factor of a covariance with sds tau and correlation factor L", Example: "MvNormalCholesky(0, diag_pre_multiply(tau, L))"},
	{Name: "diag_post_multiply", Args: []Arg{{Name: "M", Ranks: Matrix}, {Name: "v", Ranks: Vector}}, Shape: DiagPost,
		Support: SupportRule{Kind: Product, Default: dist.Real}, Elem: RealResult, Op: "diag_post_multiply",
		Doc: "M * diag(v) without the product (Stan's diag_post_multiply): column j of M times v[j]", Example: "diag_post_multiply(X, w)"},
	{Name: "chol", Args: argMat, Shape: SquareSame, Support: realRule, Elem: RealResult, Op: "chol",
		Doc: "lower Cholesky factor L of a symmetric positive-definite matrix (A = L * L'; symmetric to 1e-8 of √(A_ii A_jj), else an error)", Example: "chol(Sigma)"},
	{Name: "logdet", Args: argMat, Shape: SquareToScalar, Support: realRule, Elem: RealResult, Op: "logdet",
		Doc: "log determinant of a symmetric positive-definite matrix", Example: "logdet(C)"},
	{Name: "solve", Args: []Arg{{Name: "A", Ranks: Matrix}, {Name: "B", Ranks: Vector | Matrix}}, Shape: Solve,
		Support: realRule, Elem: RealResult, Op: "solve",
		Doc: "A⁻¹ B for a symmetric positive-definite A, without forming the inverse", Example: "solve(C, y)"},
	{Name: "trace", Range: SumRange, Args: argMat, Shape: SquareToScalar, Support: signRule, Elem: RealResult, Op: "trace",
		Doc: "sum of the diagonal", Example: "trace(solve(C, S))"},
	{Name: "outer", Args: []Arg{{Name: "x", Ranks: Vector}, {Name: "y", Ranks: Vector}}, Shape: Outer,
		Support: SupportRule{Kind: Product, Default: dist.Real}, Elem: RealResult, Op: "outer",
		Doc: "outer product x * y' of two vectors", Example: "outer(a, b)"},
	{Name: "softmax", Args: argVecOrRows, Shape: Elementwise1, Support: SupportRule{Kind: Fixed, Default: dist.Simplex}, Elem: RealResult, Op: "softmax",
		Doc: "exp(x - logsumexp(x)): the simplex of probabilities with log-odds x, without overflow; of a matrix, each row's (the rows of a loop's softmax(M[i]))", Example: "Categorical(softmax(alpha + beta * x))"},
	{Name: "log_softmax", Args: argVecOrRows, Shape: Elementwise1, Support: realRule, Elem: RealResult, Op: "log_softmax",
		Doc: "x - logsumexp(x): the log of softmax(x), without overflow or underflow; of a matrix, each row's", Example: "log_softmax(eta)"},
	{Name: "dot_product", Args: []Arg{{Name: "x", Ranks: Vector | Matrix}, {Name: "y", Ranks: Vector | Matrix}}, Shape: DotProduct, Support: SupportRule{Kind: SumOfProducts, Default: dist.Real}, Elem: RealResult, Op: "dot_product",
		Doc: "sum(x .* y) of two vectors of one length, a scalar; either may be a row [1, n], as in Stan", Example: "dot_product(beta, x)"},
	{Name: "dot_self", Args: argVec, Shape: ReduceScalar, Support: SupportRule{Kind: Fixed, Default: dist.NonNegative}, Elem: RealResult, Op: "dot_self",
		Doc: "sum(x .* x), the squared length of a vector", Example: "dot_self(z)"},
	{Name: "crossprod", Args: argMat, Shape: CrossProd, Support: realRule, Elem: RealResult, Op: "crossprod",
		Doc: "A' * A, one Gram product (half the multiplications of a general product)", Example: "crossprod(X)"},
	{Name: "tcrossprod", Args: argMat, Shape: TCrossProd, Support: realRule, Elem: RealResult, Op: "tcrossprod",
		Doc: "A * A', one Gram product: the covariance W * W' of a factor model", Example: "tcrossprod(W) + I(D) / prec"},
	{Name: "quad_form", Args: []Arg{{Name: "A", Ranks: Matrix}, {Name: "v", Ranks: Vector | Matrix}}, Shape: QuadForm, Support: realRule, Elem: RealResult, Op: "quad_form",
		Doc: "v' * A * v for a square A: a scalar for a vector v, [k, k] for a matrix v [n, k] (A need not be symmetric)", Example: "quad_form(Sigma, w)"},
	{Name: "quad_form_diag", Args: []Arg{{Name: "M", Ranks: Matrix}, {Name: "v", Ranks: Vector}}, Shape: QuadFormDiag,
		Support: SupportRule{Kind: Product, Default: dist.Real}, Elem: RealResult, Op: "quad_form_diag",
		Doc: "diag(v) * M * diag(v) for a square M without the products (Stan's quad_form_diag): entry (i, j) of M times v[i] * v[j]; quad_form_diag(Omega, sigma) is the covariance with correlation matrix Omega and sds sigma", Example: "MvNormal(mu, quad_form_diag(Omega, sigma))"},
	{Name: "gp_exp_quad_cov", Args: gpArgs("", true), Shape: GPCov, Support: positiveRule, Elem: RealResult, Op: "gp_exp_quad_cov",
		Doc: "the squared-exponential covariance (Stan's gp_exp_quad_cov): entry (i, j) is alpha² exp(−|x_i − x_j|² / (2 rho²)) for the points x_i, the elements of a vector x or the rows of a matrix x, with alpha, rho > 0. " + gpARDDoc + ". Of data x the squared distances are computed once, when the model compiles; x may also be a param (a latent input), differentiable at every point", Example: "y ~ MvNormal(0, add_diag(gp_exp_quad_cov(x, alpha, rho), square(sigma)))",
		Alt: gpCross("gp_exp_quad_cov", "", "x1 and x2 may be params, either or both", "gp_exp_quad_cov(x_new, x, alpha, rho) * solve(K, y)", true)},
	{Name: "gp_exponential_cov", Args: gpArgs(gpDataWhy, true), Shape: GPCov, Support: positiveRule, Elem: RealResult, Op: "gp_exponential_cov",
		Doc: "the exponential (Matérn ½) covariance (Stan's gp_exponential_cov): alpha² exp(−d / rho) with d = |x_i − x_j| the Euclidean distance of the points (elements of a vector x, rows of a matrix x), alpha, rho > 0. " + gpARDDoc + "; x must be data", Example: "gp_exponential_cov(x, alpha, rho)",
		Alt: gpCross("gp_exponential_cov", gpDataWhy, "both must be data", "gp_exponential_cov(x_new, x, alpha, rho)", true)},
	{Name: "gp_matern32_cov", Args: gpArgs("", true), Shape: GPCov, Support: positiveRule, Elem: RealResult, Op: "gp_matern32_cov",
		Doc: "the Matérn 3/2 covariance (Stan's gp_matern32_cov): alpha² (1 + √3 d / rho) exp(−√3 d / rho) with d = |x_i − x_j|, alpha, rho > 0, x a vector or a matrix of points by rows. " + gpARDDoc + ". x may be a param (a latent input, a calibration parameter among the points): the kernel's slope in d is 0 at d = 0, so its derivative in the points is 0 where two meet", Example: "gp_matern32_cov(x, alpha, rho)",
		Alt: gpCross("gp_matern32_cov", "", "x1 and x2 may be params, either or both", "gp_matern32_cov(x_new, x, alpha, rho)", true)},
	{Name: "gp_matern52_cov", Args: gpArgs("", true), Shape: GPCov, Support: positiveRule, Elem: RealResult, Op: "gp_matern52_cov",
		Doc: "the Matérn 5/2 covariance (Stan's gp_matern52_cov): alpha² (1 + √5 d / rho + 5 d² / (3 rho²)) exp(−√5 d / rho) with d = |x_i − x_j|, alpha, rho > 0, x a vector or a matrix of points by rows. " + gpARDDoc + ". x may be a param, as for gp_matern32_cov", Example: "gp_matern52_cov(x, alpha, rho)",
		Alt: gpCross("gp_matern52_cov", "", "x1 and x2 may be params, either or both", "gp_matern52_cov(x_new, x, alpha, rho)", true)},
	{Name: "gp_periodic_cov", Args: append(gpArgs("", false), gpPeriod), Shape: GPCov, Support: positiveRule, Elem: RealResult, Op: "gp_periodic_cov",
		Doc: "the periodic covariance (Stan's gp_periodic_cov): alpha² exp(−2 sin²(π d / p) / rho²) with d = |x_i − x_j| and period p, alpha, rho, p > 0, x a vector or a matrix of points by rows; x may be a param (sin² of π d / p is smooth in the points, where two meet too)", Example: "gp_periodic_cov(t, alpha, rho, 12)",
		Alt: gpCross("gp_periodic_cov", "", "x1 and x2 may be params, either or both", "gp_periodic_cov(t_new, t, alpha, rho, 12)", false, gpPeriod)},
	{Name: "add_diag", Args: []Arg{{Name: "K", Ranks: Matrix}, {Name: "d", Ranks: Scalar | Vector}}, Shape: AddDiag,
		Support: SupportRule{Kind: DiagSum, Default: dist.Real}, Elem: RealResult, Op: "add_diag",
		Doc: "K with d added to its diagonal (Stan's add_diag): a scalar d to every diagonal entry, a vector d [n] entry by entry; K must be square. The noise or jitter of a Gaussian process", Example: "add_diag(gp_exp_quad_cov(x, alpha, rho), square(sigma))"},
	{Name: "head", Range: ElementRange, Args: []Arg{argArray[0], {Name: "k", Ranks: Scalar, Int: true}}, Shape: Head, Support: elementRule, Elem: IntIfAllInt, Op: "head",
		Doc: "the first k elements of a vector (rows of a matrix): x[0:k]; k is a constant, a size or int data; int stays int, so it can index", Example: "head(y, N_train)"},
	{Name: "tail", Range: ElementRange, Args: []Arg{argArray[0], {Name: "k", Ranks: Scalar, Int: true}}, Shape: Head, Support: elementRule, Elem: IntIfAllInt, Op: "tail",
		Doc: "the last k elements of a vector (rows of a matrix): x[n-k:]; k as for head", Example: "tail(y, N_test)"},
	{Name: "segment", Range: ElementRange, Args: []Arg{argArray[0], {Name: "i", Ranks: Scalar, Int: true}, {Name: "k", Ranks: Scalar, Int: true}}, Shape: Segment, Support: elementRule, Elem: IntIfAllInt, Op: "segment",
		Doc: "the k elements (rows) of x from index i: x[i:i+k]; i is 0-based (Stan's segment counts from 1), both known before the fit", Example: "segment(y, start, len)"},
	{Name: "to_vector", Range: ElementRange, Args: argArray, Shape: ToVector, Support: elementRule, Elem: IntIfAllInt, Op: "to_vector",
		Doc: "the elements of a matrix as a vector, column by column as in Stan; a row [1, n] gives [n], a vector is itself", Example: "to_vector(Z) ~ Normal(0, 1)"},
	{Name: "append_row", Args: argXY, Shape: AppendRow, Support: SupportRule{Kind: Product, Default: dist.Real}, Elem: IntIfAllInt, Op: "append_row",
		Doc: "x stacked on y: two vectors, or a scalar and a vector (not two scalars: write [x, y]), give a vector; matrices with equal columns their rows in turn", Example: "append_row(0, beta)"},
	{Name: "append_col", Args: []Arg{argArray[0], {Name: "y", Ranks: Vector | Matrix}}, Shape: AppendCol, Support: SupportRule{Kind: Product, Default: dist.Real}, Elem: IntIfAllInt, Op: "append_col",
		Doc: "x beside y: matrices (vectors as columns) with equal rows; two vectors [n] give [n, 2]", Example: "append_col(rep(1, N), X)"},
	{Name: "logpdf", Args: []Arg{{Name: "value", Ranks: AnyRank}, {Name: "dist", Ranks: AnyRank}}, Shape: LogPDF,
		Support: realRule, Elem: RealResult, Op: "logpdf",
		Doc: "log density (or mass) of an elementwise distribution per element: what value ~ dist sums; of Categorical, CategoricalLogit, OrderedLogistic and OrderedProbit the log probability per observation (the value's shape), of Multinomial, MultinomialLogit and DirichletMultinomial per row of counts ([n] of counts [n, k], a scalar of [k]), of PoissonBinomial per count, the value data; of MvNormal, MvNormalRows, MvNormalCholesky, MvNormalPrec, MultiStudentT, MultiStudentTCholesky and Dirichlet per row ([n] of rows [n, d], a scalar of [d]; the ~'s terms): an output log_lik", Example: "logpdf(y, Normal(mu', sigma'))"},
	{Name: "logcdf", Args: []Arg{{Name: "value", Ranks: AnyRank}, {Name: "dist", Ranks: AnyRank}}, Shape: LogPDF,
		Support: realRule, Elem: RealResult, Op: "logcdf",
		Doc: "log P(X <= value) per element (Stan's _lcdf), for data censored from above: Normal, HalfNormal, LogNormal, Cauchy, HalfCauchy, StudentT, Laplace, Exponential, Weibull, Gamma, InvGamma, Beta, BetaProportion, Uniform, Logistic, Gumbel, ChiSquare, InvChiSquare, ScaledInvChiSquare, Rayleigh, Pareto, ParetoType2, Frechet, GEV, GeneralizedPareto, LogLogistic, ExpModNormal, SkewNormal, VonMises (on [−π, π]), SkewDoubleExponential, Wald, Kumaraswamy, LogitNormal, AsymmetricLaplace, Moyal, Poisson, PoissonLog, Bernoulli, BernoulliLogit, Binomial, BinomialLogit, BetaBinomial, NegBinomial, NegBinomialLog, BetaNegBinomial, ZeroInflatedPoisson, ZeroInflatedNegBinomial, HurdlePoisson, HurdleNegBinomial, ZeroInflatedBinomial, HurdleGamma, HurdleLogNormal, Geometric, DiscreteUniform, DiscreteWeibull, and PoissonBinomial (its value data, a term per count)", Example: "target += logcdf(y_cens, Normal(mu, sigma))"},
	{Name: "logccdf", Args: []Arg{{Name: "value", Ranks: AnyRank}, {Name: "dist", Ranks: AnyRank}}, Shape: LogPDF,
		Support: realRule, Elem: RealResult, Op: "logccdf",
		Doc: "log P(X > value) per element (Stan's _lccdf), for right-censored data such as survival times still running: the families of logcdf", Example: "target += logccdf(t_cens, Weibull(k, s))"},
	{Name: "icdf", Args: []Arg{{Name: "p", Ranks: AnyRank}, {Name: "dist", Ranks: AnyRank}}, Shape: ICDF,
		Support: realRule, Elem: RealResult, Op: "icdf",
		Doc: "the quantile x with P(X <= x) = p per element (PyMC's pm.icdf, Stan's _qf), for p in [0, 1] (outside, an error: at check time for a constant p, else at fit time, as is a quantile that is not finite, at p = 0 or 1 of an unbounded family): Normal, LogNormal, StudentT, Exponential, Gamma, Weibull, Uniform, Logistic, Cauchy and Gumbel; in closed form, Gamma by Newton steps in log x and StudentT by inv_inc_beta, each tail keeping its digits; derivatives in p and every argument (Gamma's shape and StudentT's nu by the implicit function rule); for a percentile capability index (ISO 22514) without replicate draws", Example: "output q99 = icdf(0.99865, LogNormal(mu, sigma))"},
}

var (
	real1  = Param{Support: dist.Real, Ranks: AnyRank}
	pos1   = Param{Support: dist.Positive, Ranks: AnyRank}
	unit1  = Param{Support: dist.Unit, Ranks: AnyRank}
	meanMv = Param{Name: "mu", Support: dist.Real, Ranks: AnyRank}
	covMv  = Param{Name: "Sigma", Support: dist.Real, Ranks: Matrix}
	cholMv = Param{Name: "L", Support: dist.Real, Ranks: Matrix}
	// nuWishart: the degrees of freedom, > K − 1 (checked with K)
	nuWishart = Param{Name: "nu", Support: dist.Positive, Ranks: Scalar}
	// nuMv: MultiStudentT's degrees of freedom, one for all elements
	nuMv = Param{Name: "nu", Support: dist.Positive, Ranks: Scalar}
)

func named(p Param, name string) Param { p.Name = name; return p }

var dists = []*Dist{
	{Name: "Normal", Params: []Param{named(real1, "mu"), named(pos1, "sigma")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "normal with mean mu and standard deviation sigma", Example: "y ~ Normal(mu, sigma)"},
	{Name: "HalfNormal", Params: []Param{named(pos1, "sigma")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "normal(0, sigma) folded onto (0, ∞)", Example: "param s: positive ~ HalfNormal(1)"},
	{Name: "Cauchy", Params: []Param{named(real1, "mu"), named(pos1, "sigma")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "Cauchy with location mu and scale sigma", Example: "param tau: positive ~ Cauchy(0, 5)"},
	{Name: "HalfCauchy", Params: []Param{named(pos1, "sigma")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "Cauchy(0, sigma) folded onto (0, ∞)", Example: "param tau: positive ~ HalfCauchy(5)"},
	{Name: "StudentT", Params: []Param{named(pos1, "nu"), named(real1, "mu"), named(pos1, "sigma")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "Student's t with nu degrees of freedom, location mu and scale sigma", Example: "y ~ StudentT(4, mu, sigma)"},
	{Name: "Laplace", Params: []Param{named(real1, "mu"), named(pos1, "sigma")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "double exponential with location mu and scale sigma (Stan's double_exponential): a robust likelihood, the Bayesian lasso prior", Example: "param beta: real[P] ~ Laplace(0, lambda)"},
	{Name: "LogNormal", Params: []Param{named(real1, "mu"), named(pos1, "sigma")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "log(value) is Normal(mu, sigma)", Example: "param s: positive ~ LogNormal(0, 1)"},
	{Name: "Exponential", Params: []Param{named(pos1, "rate")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "exponential with rate (inverse mean) rate", Example: "param lambda: positive ~ Exponential(1)"},
	{Name: "Gamma", Params: []Param{named(pos1, "shape"), named(pos1, "rate")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "gamma with shape and rate (mean shape / rate)", Example: "param W: positive[D, K] ~ Gamma(a, c)"},
	{Name: "InvGamma", Params: []Param{named(pos1, "shape"), named(pos1, "scale")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "inverse gamma: 1 / value is Gamma(shape, scale)", Example: "param v: positive ~ InvGamma(2, 1)"},
	{Name: "Weibull", Params: []Param{named(pos1, "shape"), named(pos1, "scale")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "Weibull with shape and scale (Stan's weibull(alpha, sigma)): (value / scale)^shape is Exponential(1); survival times", Example: "t ~ Weibull(alpha, sigma)"},
	{Name: "Beta", Params: []Param{named(pos1, "a"), named(pos1, "b")}, Support: dist.Unit, Shape: DistElementwise,
		Doc: "beta on (0, 1) with mean a / (a + b)", Example: "param p: unit ~ Beta(1, 1)"},
	{Name: "BetaProportion", Params: []Param{named(unit1, "mu"), named(pos1, "kappa")}, Support: dist.Unit, Shape: DistElementwise,
		Doc: "beta on (0, 1) with mean mu and precision kappa, Beta(mu * kappa, (1 − mu) * kappa) (Stan's beta_proportion): beta regression, with kappa's work done once per evaluation where it is a scalar", Example: "y ~ BetaProportion(inv_logit(X * b), kappa)"},
	{Name: "Uniform", Params: []Param{named(real1, "lo"), named(real1, "hi")}, Support: dist.Interval, Shape: DistElementwise,
		Doc: "uniform on (lo, hi); as a prior its interval must contain the param's support", Example: "param p: unit ~ Uniform(0, 1)"},
	{Name: "Logistic", Params: []Param{named(real1, "mu"), named(pos1, "sigma")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "logistic with location mu and scale sigma (Stan's logistic): tails heavier than the normal's, lighter than Student's t", Example: "y ~ Logistic(mu, sigma)"},
	{Name: "Gumbel", Params: []Param{named(real1, "mu"), named(pos1, "beta")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "Gumbel (type I extreme value) with location mu and scale beta (Stan's gumbel): annual maxima, mean mu + 0.5772 beta", Example: "y_max ~ Gumbel(mu, beta)"},
	{Name: "ChiSquare", Params: []Param{named(pos1, "nu")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "chi-square with nu degrees of freedom (Stan's chi_square): Gamma(nu / 2, 1 / 2)", Example: "s2 ~ ChiSquare(nu)"},
	{Name: "InvChiSquare", Params: []Param{named(pos1, "nu")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "inverse chi-square with nu degrees of freedom (Stan's inv_chi_square): 1 / value is ChiSquare(nu)", Example: "param v: positive ~ InvChiSquare(3)"},
	{Name: "ScaledInvChiSquare", Params: []Param{named(pos1, "nu"), named(pos1, "s")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "scaled inverse chi-square with nu degrees of freedom and scale s (Stan's scaled_inv_chi_square): InvGamma(nu / 2, nu s² / 2), a variance prior", Example: "param sigma2: positive ~ ScaledInvChiSquare(5, 1)"},
	{Name: "Rayleigh", Params: []Param{named(pos1, "sigma")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "Rayleigh with scale sigma (Stan's rayleigh): the length of two independent Normal(0, sigma)", Example: "r ~ Rayleigh(sigma)"},
	{Name: "Pareto", Params: []Param{named(pos1, "y_min"), named(pos1, "alpha")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "Pareto with minimum y_min and shape alpha (Stan's pareto): log density −Inf below y_min; as a prior, declare the param real<lower=y_min> (a wider param is an error at the prior, a narrower one normalises it)", Example: "y ~ Pareto(1, alpha)"},
	{Name: "ParetoType2", Params: []Param{named(real1, "mu"), named(pos1, "lambda"), named(pos1, "alpha")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "Pareto type II (Lomax) with location mu, scale lambda and shape alpha (Stan's pareto_type_2): log density −Inf below mu; as a prior, declare the param real<lower=mu>", Example: "y ~ ParetoType2(0, lambda, alpha)"},
	{Name: "Frechet", Params: []Param{named(pos1, "alpha"), named(pos1, "sigma")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "Fréchet (type II extreme value) with shape alpha and scale sigma (Stan's frechet): 1 / value is Weibull(alpha, 1 / sigma)", Example: "y ~ Frechet(alpha, sigma)"},
	{Name: "GEV", Params: []Param{named(real1, "mu"), named(pos1, "sigma"), named(real1, "xi")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "generalized extreme value with location mu, scale sigma and shape xi (scipy's genextreme with c = −xi): CDF exp(−(1 + xi z)^(−1 / xi)) for z = (value − mu) / sigma, Gumbel at xi = 0 (computed through xi = 0 without a branch), Fréchet-like above mu − sigma / xi for xi > 0, bounded above by it for xi < 0; log density −Inf outside 1 + xi z > 0; annual maxima, the T-year return level mu + sigma / xi ((−log(1 − 1 / T))^(−xi) − 1)", Example: "y_max ~ GEV(mu, sigma, xi)"},
	{Name: "GeneralizedPareto", Params: []Param{named(real1, "mu"), named(pos1, "sigma"), named(real1, "xi")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "generalized Pareto with location (threshold) mu, scale sigma and shape xi (scipy's genpareto with c = xi): survival (1 + xi z)^(−1 / xi) for z = (value − mu) / sigma, Exponential(1 / sigma) above mu at xi = 0; log density −Inf below mu and, for xi < 0, above mu − sigma / xi; exceedances over a threshold (peaks over threshold); as a prior, declare the param real<lower=mu>", Example: "y_exc ~ GeneralizedPareto(u, sigma, xi)"},
	{Name: "LogLogistic", Params: []Param{named(pos1, "alpha"), named(pos1, "beta")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "log-logistic with scale alpha (the median) and shape beta (Stan's loglogistic): survival times with a hazard that rises then falls", Example: "t ~ LogLogistic(alpha, beta)"},
	{Name: "SkewNormal", Params: []Param{named(real1, "xi"), named(pos1, "omega"), named(real1, "alpha")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "skew normal with location xi, scale omega and shape alpha (Stan's skew_normal): 2 φ(z) Φ(alpha z) / omega for z = (value − xi) / omega", Example: "y ~ SkewNormal(xi, omega, alpha)"},
	{Name: "ExpModNormal", Params: []Param{named(real1, "mu"), named(pos1, "sigma"), named(pos1, "lambda")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "exponentially modified normal (Stan's exp_mod_normal): Normal(mu, sigma) plus an independent Exponential(lambda), mean mu + 1 / lambda; reaction times", Example: "rt ~ ExpModNormal(mu, sigma, lambda)"},
	{Name: "VonMises", Params: []Param{named(real1, "mu"), named(pos1, "kappa")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "von Mises on the circle with location mu and concentration kappa (Stan's von_mises): exp(kappa cos(value − mu)) / (2π I0(kappa)), 2π-periodic in the value; draws in [mu − π, mu + π]; its logcdf is Stan's, of the value on [−π, π] (0 below −π, 1 above π), so T[L, U] and a param's bounds with it lie in [−π, π]", Example: "theta ~ VonMises(mu, kappa)"},
	{Name: "WrappedCauchy", Params: []Param{named(real1, "mu"), named(unit1, "rho")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "wrapped Cauchy on the circle with location mu and concentration rho in [0, 1) (momentuHMM's wrpcauchy): (1 − rho²) / (2π (1 + rho² − 2 rho cos(value − mu))), 2π-periodic in the value, tails heavier than VonMises's (turning angles); rho 0 is uniform, E cos(value − mu) = rho; draws in (mu − π, mu + π); no logcdf", Example: "angle ~ WrappedCauchy(0, rho)"},
	{Name: "SkewDoubleExponential", Params: []Param{named(real1, "mu"), named(pos1, "sigma"), named(unit1, "tau")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "skew double exponential, or asymmetric Laplace (Stan's skew_double_exponential): 2 tau (1 − tau) / sigma · exp(−2/sigma · ((1 − tau)(mu − value) below mu, tau (value − mu) above)), so that mu is the tau-quantile (P(value <= mu) = tau): quantile regression; at value = mu the partials in value and mu are 0, as Stan's", Example: "y ~ SkewDoubleExponential(x * beta, sigma, 0.9)"},
	{Name: "Wald", Params: []Param{named(pos1, "mu"), named(pos1, "lambda")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "Wald, or inverse Gaussian (PyMC's Wald(mu, lam), brms's inverse.gaussian, scipy's invgauss(mu / lambda, scale = lambda)): the first-passage time of a Brownian motion with drift, mu the mean and lambda the shape, variance mu³ / lambda; sqrt(lambda / (2π value³)) exp(−lambda (value − mu)² / (2 mu² value)); reaction times (PyMC's shift alpha: Wald(mu, lambda) of rt − alpha)", Example: "rt ~ Wald(mu, lambda)"},
	{Name: "Kumaraswamy", Params: []Param{named(pos1, "a"), named(pos1, "b")}, Support: dist.Unit, Shape: DistElementwise,
		Doc: "Kumaraswamy on (0, 1) with shapes a and b (PyMC's Kumaraswamy): a b value^(a − 1) (1 − value^a)^(b − 1), CDF 1 − (1 − value^a)^b; a beta-like family with a closed-form CDF", Example: "p ~ Kumaraswamy(a, b)"},
	{Name: "LogitNormal", Params: []Param{named(real1, "mu"), named(pos1, "sigma")}, Support: dist.Unit, Shape: DistElementwise,
		Doc: "logit-normal on (0, 1) (PyMC's LogitNormal): logit(value) is Normal(mu, sigma), with the Jacobian 1 / (value (1 − value)); CDF Φ((logit(value) − mu) / sigma); mu and sigma are not the mean and sd of the value", Example: "y ~ LogitNormal(mu, sigma)"},
	{Name: "AsymmetricLaplace", Params: []Param{named(pos1, "b"), named(pos1, "kappa"), named(real1, "mu")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "asymmetric Laplace in PyMC's form AsymmetricLaplace(b, kappa, mu): b / (kappa + 1 / kappa) exp(−b kappa (value − mu)) above mu and exp(−(b / kappa)(mu − value)) below, b a rate (1 / scipy's scale), kappa the symmetry (1 symmetric), P(value <= mu) = kappa² / (1 + kappa²); it is SkewDoubleExponential(mu, 2 kappa / (b (1 + kappa²)), kappa² / (1 + kappa²)); quantile regression at quantile p is kappa = sqrt(p / (1 − p)), or brms's asym_laplace(mu, sigma, quantile) = SkewDoubleExponential(mu, 2 sigma, quantile)", Example: "y ~ AsymmetricLaplace(b, kappa, x * beta)"},
	{Name: "Moyal", Params: []Param{named(real1, "mu"), named(pos1, "sigma")}, Support: dist.Real, Shape: DistElementwise,
		Doc: "Moyal with location mu and scale sigma (PyMC's and scipy's moyal): exp(−(z + exp(−z)) / 2) / (sigma sqrt(2π)) for z = (value − mu) / sigma, CDF erfc(exp(−z / 2) / sqrt(2)); z is −log of a chi-square(1), mean mu + sigma (0.5772 + log 2); energy loss (Landau)", Example: "y ~ Moyal(mu, sigma)"},
	{Name: "Rice", Params: []Param{{Name: "nu", Support: dist.NonNegative, Ranks: AnyRank}, named(pos1, "sigma")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "Rice (PyMC's Rice(nu, sigma), scipy's rice(nu / sigma, scale = sigma)): the length of a 2-vector of independent Normal(·, sigma)s whose mean has length nu; value / sigma² exp(−(value² + nu²) / (2 sigma²)) I0(value nu / sigma²), with log I0 scaled so that nothing overflows; nu = 0 is Rayleigh(sigma); no logcdf (Marcum's Q)", Example: "r ~ Rice(nu, sigma)"},
	{Name: "Wiener", Params: []Param{named(pos1, "alpha"), {Name: "tau", Support: dist.NonNegative, Ranks: AnyRank}, named(unit1, "beta"), named(real1, "delta")}, Support: dist.Positive, Shape: DistElementwise,
		Doc: "first-passage time of a Wiener diffusion at its upper boundary (Stan's wiener, brms's wiener family): the drift-diffusion model of reaction times, alpha the boundary separation, tau the non-decision time (< every value; −Inf at or below it), beta the a-priori bias (start at beta · alpha), delta the drift; a density of the upper responses only (it integrates to P(upper)): a lower response is rt ~ Wiener(alpha, tau, 1 − beta, −delta); the value data; no replicates", Example: "rt_upper ~ Wiener(alpha, tau, beta, delta)"},
	{Name: "Poisson", Params: []Param{{Name: "rate", Support: dist.NonNegative, Ranks: AnyRank}}, Support: dist.Count, Int: true, Shape: DistElementwise,
		Doc: "Poisson counts with mean rate; rate 0 (a zero-length transect, say) is all zeros, as in Stan: log mass 0 at 0, −Inf above", Example: "y ~ Poisson(exp(eta))"},
	{Name: "PoissonLog", Params: []Param{named(real1, "eta")}, Support: dist.Count, Int: true, Shape: DistElementwise,
		Doc: "Poisson counts with mean exp(eta) (Stan's poisson_log), stable where exp(eta) overflows or underflows", Example: "y ~ PoissonLog(alpha + X * beta)"},
	{Name: "Bernoulli", Params: []Param{named(unit1, "p")}, Support: dist.Binary, Int: true, Shape: DistElementwise,
		Doc: "0/1 outcomes, 1 with probability p", Example: "y ~ Bernoulli(inv_logit(eta))"},
	{Name: "BernoulliLogit", Params: []Param{named(real1, "logit")}, Support: dist.Binary, Int: true, Shape: DistElementwise,
		Doc: "0/1 outcomes, 1 with probability inv_logit(logit), stable for large |logit|", Example: "y ~ BernoulliLogit(alpha + X * beta)"},
	{Name: "Binomial", Params: []Param{{Name: "n", Support: dist.Count, Ranks: AnyRank, Int: true}, named(unit1, "p")}, Support: dist.BoundedCount, Int: true, Shape: DistElementwise,
		Doc: "successes in n trials with success probability p", Example: "y ~ Binomial(n, p)"},
	{Name: "BinomialLogit", Params: []Param{{Name: "n", Support: dist.Count, Ranks: AnyRank, Int: true}, named(real1, "eta")}, Support: dist.BoundedCount, Int: true, Shape: DistElementwise,
		Doc: "successes in n trials with success probability inv_logit(eta) (Stan's binomial_logit), stable for large |eta|", Example: "y ~ BinomialLogit(n, alpha + X * beta)"},
	{Name: "BetaBinomial", Params: []Param{{Name: "n", Support: dist.Count, Ranks: AnyRank, Int: true}, named(pos1, "a"), named(pos1, "b")}, Support: dist.BoundedCount, Int: true, Shape: DistElementwise,
		Doc: "successes in n trials with a success probability drawn from Beta(a, b) (Stan's beta_binomial): overdispersed binomial counts with mean n a / (a + b)", Example: "y ~ BetaBinomial(n, mu * kappa, (1 - mu) * kappa)"},
	{Name: "Hypergeometric", Params: []Param{{Name: "N", Support: dist.Count, Ranks: AnyRank, Int: true}, {Name: "a", Support: dist.Count, Ranks: AnyRank, Int: true}, {Name: "b", Support: dist.Count, Ranks: AnyRank, Int: true}}, Support: dist.BoundedCount, Int: true, Shape: DistElementwise,
		Doc: "successes in N draws without replacement from an urn of a successes and b failures (Stan's hypergeometric), N ≤ a + b: C(a, y) C(b, N − y) / C(a + b, N); its arguments are ints, so data or constants (a model's params are real); a draw costs O(N); no logcdf", Example: "y ~ Hypergeometric(N, a, b)"},
	{Name: "BetaNegBinomial", Params: []Param{named(pos1, "r"), named(pos1, "alpha"), named(pos1, "beta")}, Support: dist.Count, Int: true, Shape: DistElementwise,
		Doc: "failures before the r-th success when the success probability is drawn from Beta(alpha, beta) (Stan's beta_neg_binomial): counts with a polynomial tail, mean r beta / (alpha − 1) for alpha > 1; logcdf and logccdf (Stan's beta_neg_binomial_lcdf, _lccdf) keep their digits in the heavy tail", Example: "y ~ BetaNegBinomial(r, alpha, beta)"},
	{Name: "NegBinomial", Params: []Param{{Name: "mu", Support: dist.NonNegative, Ranks: AnyRank}, named(pos1, "phi")}, Support: dist.Count, Int: true, Shape: DistElementwise,
		Doc: "overdispersed counts with mean mu and variance mu + mu² / phi; mu 0 is all zeros, as Poisson's rate 0", Example: "y ~ NegBinomial(mu, phi)"},
	{Name: "NegBinomialLog", Params: []Param{named(real1, "eta"), named(pos1, "phi")}, Support: dist.Count, Int: true, Shape: DistElementwise,
		Doc: "overdispersed counts with mean exp(eta) and variance exp(eta) + exp(2 eta) / phi (Stan's neg_binomial_2_log), stable where exp(eta) overflows or underflows, with phi's work done once per evaluation where it is a scalar", Example: "y ~ NegBinomialLog(alpha + X * beta, phi)"},
	{Name: "ZeroInflatedPoisson", Params: []Param{named(unit1, "psi"), named(pos1, "lambda")}, Support: dist.Count, Int: true, Shape: DistElementwise,
		Doc: "Poisson(lambda) counts with extra zeros (PyMC's ZeroInflatedPoisson(psi, mu), brms's zero_inflated_poisson): a Poisson count with probability psi, PyMC's psi, else a structural zero, P(0) = (1 − psi) + psi exp(−lambda); brms's zi is 1 − psi, so brms's model with zi is ZeroInflatedPoisson(1 - zi, lambda); psi 1 or 0 is Poisson or all zeros; logcdf and logccdf too, so censoring and T[L, U]", Example: "y ~ ZeroInflatedPoisson(psi, exp(alpha + X * beta))"},
	{Name: "ZeroInflatedNegBinomial", Params: []Param{named(unit1, "psi"), named(pos1, "mu"), named(pos1, "phi")}, Support: dist.Count, Int: true, Shape: DistElementwise,
		Doc: "NegBinomial(mu, phi) counts with extra zeros (PyMC's ZeroInflatedNegativeBinomial(psi, mu, alpha) with alpha = phi, brms's zero_inflated_negbinomial): a NegBinomial count with probability psi, else a structural zero; brms's zi is 1 − psi; logcdf and logccdf too, so censoring and T[L, U]", Example: "y ~ ZeroInflatedNegBinomial(psi, mu, phi)"},
	{Name: "HurdlePoisson", Params: []Param{named(unit1, "psi"), named(pos1, "lambda")}, Support: dist.Count, Int: true, Shape: DistElementwise,
		Doc: "hurdle counts (PyMC's HurdlePoisson(psi, mu), brms's hurdle_poisson): a zero-truncated Poisson(lambda) count with probability psi = P(y > 0), else 0, P(k) = psi Poisson(k | lambda) / (1 − exp(−lambda)) for k > 0; brms's hu is 1 − psi, so brms's model with hu is HurdlePoisson(1 - hu, lambda); logcdf and logccdf too, so censoring and T[L, U]", Example: "y ~ HurdlePoisson(psi, lambda)"},
	{Name: "HurdleNegBinomial", Params: []Param{named(unit1, "psi"), named(pos1, "mu"), named(pos1, "phi")}, Support: dist.Count, Int: true, Shape: DistElementwise,
		Doc: "hurdle counts (PyMC's HurdleNegativeBinomial(psi, mu, alpha) with alpha = phi, brms's hurdle_negbinomial): a zero-truncated NegBinomial(mu, phi) count with probability psi = P(y > 0), else 0, P(k) = psi NegBinomial(k | mu, phi) / (1 − (phi / (mu + phi))^phi) for k > 0; brms's hu is 1 − psi; logcdf and logccdf too, so censoring and T[L, U]", Example: "y ~ HurdleNegBinomial(psi, mu, phi)"},
	{Name: "ZeroInflatedBinomial", Params: []Param{named(unit1, "psi"), {Name: "n", Support: dist.Count, Ranks: AnyRank, Int: true}, named(unit1, "p")}, Support: dist.BoundedCount, Int: true, Shape: DistElementwise,
		Doc: "Binomial(n, p) successes with extra zeros (PyMC's ZeroInflatedBinomial(psi, n, p), brms's zero_inflated_binomial): a Binomial count with probability psi, else a structural zero, P(0) = (1 − psi) + psi (1 − p)^n; brms's zi is 1 − psi; logcdf and logccdf too, so censoring and T[L, U]", Example: "y ~ ZeroInflatedBinomial(psi, n, p)"},
	{Name: "HurdleGamma", Params: []Param{named(unit1, "psi"), named(pos1, "alpha"), named(pos1, "beta")}, Support: dist.NonNegative, Shape: DistElementwise,
		Doc: "non-negative amounts with exact zeros (PyMC's HurdleGamma(psi, alpha, beta), brms's hurdle_gamma): a Gamma(alpha, beta) value (shape alpha, rate beta) with probability psi = P(y > 0), else exactly 0; log density log(1 − psi) at 0 and log psi + Gamma's above, a point mass plus a density, as PyMC's and brms's; brms's hu is 1 − psi and its shape/mean form is HurdleGamma(1 - hu, shape, shape / mu); for data (rainfall, spending) that a Gamma likelihood refuses for its zeros; logcdf and logccdf for censored values, P(y ≤ 0) = 1 − psi, but no T[L, U] (the point mass); missing values of data it observes are left out of the likelihood, not fitted (a fitted continuous value is never the exact 0)", Example: "rain ~ HurdleGamma(psi, alpha, beta)"},
	{Name: "HurdleLogNormal", Params: []Param{named(unit1, "psi"), named(real1, "mu"), named(pos1, "sigma")}, Support: dist.NonNegative, Shape: DistElementwise,
		Doc: "non-negative amounts with exact zeros (PyMC's HurdleLogNormal(psi, mu, sigma), brms's hurdle_lognormal): a LogNormal(mu, sigma) value with probability psi = P(y > 0), else exactly 0; log density log(1 − psi) at 0 and log psi + LogNormal's above; brms's hu is 1 − psi; logcdf and logccdf for censored values, but no T[L, U] (the point mass); missing values of data it observes are left out of the likelihood, not fitted, as HurdleGamma's", Example: "y ~ HurdleLogNormal(psi, mu, sigma)"},
	{Name: "Geometric", Params: []Param{named(unit1, "p")}, Support: dist.Count, Int: true, Shape: DistElementwise,
		Doc: "trials up to and including the first success, each a success with probability p (PyMC's Geometric, and scipy's geom): support 1, 2, …, P(k) = p (1 − p)^(k − 1), mean 1/p; texts that count the failures before it, from 0, have y − 1; a 0 in the data is an error when the model loads it; logcdf and logccdf in closed form", Example: "y ~ Geometric(p)"},
	{Name: "DiscreteUniform", Params: []Param{{Name: "lower", Support: dist.Real, Ranks: AnyRank, Int: true}, {Name: "upper", Support: dist.Real, Ranks: AnyRank, Int: true}}, Support: dist.Integer, Int: true, Shape: DistElementwise,
		Doc: "uniform on the integers lower, lower + 1, …, upper (PyMC's DiscreteUniform, Stan's discrete_range): int bounds (data or constants), lower <= upper; a value outside them has log mass −Inf (an error at the fit), as Stan's discrete_range_lpmf; logcdf and logccdf", Example: "k ~ DiscreteUniform(1, 6)"},
	{Name: "Skellam", Params: []Param{named(pos1, "mu1"), named(pos1, "mu2")}, Support: dist.Integer, Int: true, Shape: DistElementwise,
		Doc: "difference of independent Poisson(mu1) and Poisson(mu2) counts (goal differences): any integer, P(k) = exp(−mu1 − mu2) (mu1/mu2)^(k/2) I_|k|(2 sqrt(mu1 mu2)) by log_modified_bessel_first_kind, mean mu1 − mu2, variance mu1 + mu2; no logcdf, so no T[,]", Example: "d ~ Skellam(exp(att[h] - def[a]), exp(att[a] - def[h]))"},
	{Name: "DiscreteWeibull", Params: []Param{named(unit1, "q"), named(pos1, "beta")}, Support: dist.Count, Int: true, Shape: DistElementwise,
		Doc: "discrete Weibull counts 0, 1, … (PyMC's DiscreteWeibull): P(X >= k) = q^(k^beta), P(k) = q^(k^beta) − q^((k+1)^beta), computed in log space; logcdf and logccdf in closed form", Example: "y ~ DiscreteWeibull(q, beta)"},
	{Name: "MvNormal", Params: []Param{meanMv, covMv}, Support: dist.Real, Shape: DistMvNormal,
		Doc: "multivariate normal with mean mu and covariance Sigma; a matrix value has independent rows, with a shared mean or a mean per row [n, d] (Stan's array of means: `append_col(x, y) ~ MvNormal(append_col(g0 + g1 * z, b0 + b1 * x), Sigma)`, one factorisation of Sigma per evaluation)", Example: "x ~ MvNormal(0, Sigma)"},
	{Name: "MvNormalRows", Params: []Param{meanMv, covMv}, Support: dist.Real, Shape: DistMvNormalRows,
		Doc: "independent rows of a matrix, each MvNormal(mu, Sigma) with a shared mean or a mean per row; uses the data's sufficient statistics (with a mean per row, the residuals')", Example: "Y ~ MvNormalRows(0, W * W' + I(D) / prec)"},
	{Name: "MvNormalCholesky", Params: []Param{meanMv, cholMv}, Support: dist.Real, Shape: DistMvNormalChol,
		Doc: "multivariate normal with mean mu and covariance L * L' given its lower Cholesky factor L (Stan's multi_normal_cholesky): one triangular solve, no factorisation; a matrix value has independent rows", Example: "b ~ MvNormalCholesky(0, diag_pre_multiply(tau, L))"},
	{Name: "MvNormalPrec", Params: []Param{meanMv, {Name: "Omega", Support: dist.Real, Ranks: Matrix}}, Support: dist.Real, Shape: DistMvNormalPrec,
		Doc: "multivariate normal with mean mu and precision matrix Omega, the covariance's inverse (Stan's multi_normal_prec): no inverse taken, a Cholesky factor of Omega for its log determinant; a matrix value has independent rows", Example: "x ~ MvNormalPrec(0, tau * (D - alpha * W))"},
	{Name: "CAR", Params: []Param{{Name: "alpha", Support: dist.Real, Ranks: Scalar}, {Name: "tau", Support: dist.Positive, Ranks: Scalar}, carEdges("node1"), carEdges("node2")}, Support: dist.Real, Shape: DistCAR,
		Doc: "proper conditional autoregressive prior on a graph (Stan's sparse CAR case study, Joseph 2016; brms's car(type = \"escar\"), PyMC's CAR): the field phi [n] is MvNormalPrec(0, tau (D − alpha W)), W the graph's adjacency from the edge lists node1, node2 (0-based, each edge once, as the ICAR recipe takes them), D its degrees; alpha the spatial dependence, tau the conditional precision; log det(D − alpha W) = Σ log d_i + Σ log(1 − alpha λ_i) from the eigenvalues λ of D^-½ W D^-½, computed once when the model compiles, so an evaluation costs O(n + E); a node in no edge is an error", Example: "phi ~ CAR(alpha, tau, node1, node2)"},
	{Name: "MultiStudentT", Params: []Param{nuMv, meanMv, covMv}, Support: dist.Real, Shape: DistMultiStudentT,
		Doc: "multivariate Student t with nu degrees of freedom, location mu and scale matrix Sigma (Stan's multi_student_t), covariance nu / (nu − 2) Sigma for nu > 2: robust multivariate data, heavy-tailed effects; a matrix value has independent rows, each with its own scale draw", Example: "Y ~ MultiStudentT(nu, mu', Sigma)"},
	{Name: "MultiStudentTCholesky", Params: []Param{nuMv, meanMv, cholMv}, Support: dist.Real, Shape: DistMultiStudentTChol,
		Doc: "MultiStudentT with scale matrix L * L' given its lower Cholesky factor L (Stan's multi_student_t_cholesky): one triangular solve, no factorisation; a matrix value has independent rows", Example: "b ~ MultiStudentTCholesky(4, 0, diag_pre_multiply(tau, L))"},
	{Name: "MultiGP", Params: []Param{covMv, {Name: "w", Support: dist.Positive, Ranks: Vector}}, Support: dist.Real, Shape: DistMultiGP,
		Doc: "K Gaussian-process outputs sharing a kernel (Stan's multi_gp): row i of the value [K, N] is MvNormal(0, Sigma / w[i]), each row with its own precision w[i] > 0; one Cholesky factor of Sigma for all rows, normalised", Example: "Y ~ MultiGP(gp_exp_quad_cov(x, 1, rho), w)"},
	{Name: "MultiGPCholesky", Params: []Param{cholMv, {Name: "w", Support: dist.Positive, Ranks: Vector}}, Support: dist.Real, Shape: DistMultiGPChol,
		Doc: "MultiGP with Sigma = L * L' given its lower Cholesky factor L (Stan's multi_gp_cholesky): one triangular solve, no factorisation", Example: "Y ~ MultiGPCholesky(L, w)"},
	{Name: "GaussianDLMObs", Params: []Param{{Name: "F", Support: dist.Real, Ranks: Matrix}, {Name: "G", Support: dist.Real, Ranks: Matrix}, {Name: "V", Support: dist.Real, Ranks: Vector | Matrix},
		{Name: "W", Support: dist.Real, Ranks: Matrix}, {Name: "m0", Support: dist.Real, Ranks: Vector}, {Name: "C0", Support: dist.Real, Ranks: Matrix}}, Support: dist.Real, Shape: DistGaussianDLM,
		Doc: "the observations y [r, T] (a column per time) of a Gaussian dynamic linear model with the states integrated out (Stan's gaussian_dlm_obs): y_t ~ MvNormal(F' theta_t, V), theta_t ~ MvNormal(G theta_{t−1}, W), theta_0 ~ MvNormal(m0, C0); the log likelihood by the Kalman filter, O(T (n³ + r³)), normalised; V a matrix or a vector of variances; no replicate", Example: "y ~ GaussianDLMObs(F, G, rep(sigma^2, 1), W, m0, C0)"},
	{Name: "Dirichlet", Params: []Param{named(pos1, "alpha")}, Support: dist.Simplex, Shape: DistDirichlet,
		Doc: "Dirichlet on the simplex (each row of a matrix value)", Example: "param theta: simplex[K] ~ Dirichlet(1)"},
	{Name: "Categorical", Params: []Param{{Name: "theta", Support: dist.Simplex, Ranks: Vector | Matrix}}, Support: dist.Count, Int: true, Shape: DistCategorical,
		Doc: "categories 0..K−1 with probabilities theta (a simplex, or one per row)", Example: "y ~ Categorical(theta)"},
	{Name: "CategoricalLogit", Params: []Param{{Name: "eta", Support: dist.Real, Ranks: Vector | Matrix}}, Support: dist.Count, Int: true, Shape: DistCategorical,
		Doc: "categories 0..K−1 with probabilities softmax(eta) (of each row), stable for large eta: multi-class logistic regression", Example: "y ~ CategoricalLogit(X * B)"},
	{Name: "Multinomial", Params: []Param{{Name: "theta", Support: dist.Simplex, Ranks: Vector | Matrix}, trialsMultinomial}, Support: dist.Count, Int: true, Shape: DistMultinomial,
		Doc: "counts of K categories in n independent draws with probabilities theta (a simplex, or one per row): a vector of counts, or a row of counts per observation (Stan's multinomial). n, the number of draws (a scalar, or one per row), may be left out of a likelihood, whose rows' totals give it, and must equal them where given; a replicate needs it (Stan's multinomial_rng(theta, N))", Example: "output y_rep ~ Multinomial(theta, n)"},
	{Name: "MultinomialLogit", Params: []Param{{Name: "eta", Support: dist.Real, Ranks: Vector | Matrix}, trialsMultinomial}, Support: dist.Count, Int: true, Shape: DistMultinomial,
		Doc: "Multinomial with probabilities softmax(eta) (of each row), stable for large eta (Stan's multinomial_logit); n as Multinomial's", Example: "y ~ MultinomialLogit(X * B)"},
	{Name: "DirichletMultinomial", Params: []Param{{Name: "alpha", Support: dist.Positive, Ranks: Vector | Matrix}, trialsMultinomial}, Support: dist.Count, Int: true, Shape: DistMultinomial,
		Doc: "counts of K categories in n draws with probabilities theta ~ Dirichlet(alpha) integrated out (Stan's dirichlet_multinomial): overdispersed counts, a vector or a row per observation (each its own theta), mean n alpha / sum(alpha); computed with log_rising_factorial, which keeps its digits for large alpha, where it nears Multinomial(alpha / sum(alpha)), and for tiny alpha; n as Multinomial's (a replicate needs it, Stan's dirichlet_multinomial_rng(alpha, N))", Example: "Y ~ DirichletMultinomial(kappa * p)"},
	{Name: "PoissonBinomial", Params: []Param{{Name: "theta", Support: dist.Unit, Ranks: Vector | Matrix}}, Support: dist.BoundedCount, Int: true, Shape: DistPoissonBinomial,
		Doc: "successes in N independent trials with success probabilities theta (Stan's poisson_binomial): a count 0..N per vector theta [N] (shared by a vector of counts) or per row of theta [n, N], mean sum(theta); the O(N²) recursion in log space, which keeps tiny masses; logcdf and logccdf too", Example: "y ~ PoissonBinomial(inv_logit(alpha + beta * x))"},
	{Name: "OrderedLogistic", Params: []Param{{Name: "eta", Support: dist.Real, Ranks: Scalar | Vector}, {Name: "c", Support: dist.Real, Ranks: Vector | Matrix}}, Support: dist.Count, Int: true, Shape: DistOrdinal,
		Doc: "ordinal categories 0..K with P(y = k) = inv_logit(eta − c[k−1]) − inv_logit(eta − c[k]) for the K increasing cutpoints c, a vector shared by every element or a matrix [n, K] with a row per element (c[g], cutpoints per group g: brms's thres(gr = g)) (Stan's ordered_logistic, whose categories are 1..K+1), computed in log space: ordinal regression", Example: "y ~ OrderedLogistic(x * beta, c)"},
	{Name: "OrderedProbit", Params: []Param{{Name: "eta", Support: dist.Real, Ranks: Scalar | Vector}, {Name: "c", Support: dist.Real, Ranks: Vector | Matrix}}, Support: dist.Count, Int: true, Shape: DistOrdinal,
		Doc: "OrderedLogistic with the normal CDF Φ for inv_logit (Stan's ordered_probit)", Example: "y ~ OrderedProbit(x * beta, c)"},
	{Name: "LKJCorrCholesky", Params: []Param{{Name: "eta", Support: dist.Positive, Ranks: Scalar}}, Support: dist.CholCorr, Shape: DistLKJ,
		Doc: "LKJ on the Cholesky factor L of a correlation matrix (Stan's lkj_corr_cholesky), density ∝ det(L L')^(eta − 1) of the correlation matrix, normalised; eta = 1 is uniform over correlation matrices, larger eta favours weaker correlations", Example: "param L: cholesky_factor_corr[K] ~ LKJCorrCholesky(2)"},
	{Name: "LKJCorr", Params: []Param{{Name: "eta", Support: dist.Positive, Ranks: Scalar}}, Support: dist.CorrMatrix, Shape: DistLKJ,
		Doc: "LKJ on a correlation matrix Omega (Stan's lkj_corr), density ∝ det(Omega)^(eta − 1), normalised; eta = 1 is uniform over correlation matrices, larger eta favours weaker correlations", Example: "param Omega: corr_matrix[K] ~ LKJCorr(2)"},
	{Name: "Wishart", Params: []Param{nuWishart, {Name: "S", Support: dist.Real, Ranks: Matrix}}, Support: dist.CovMatrix, Shape: DistWishart,
		Doc: "Wishart on a covariance matrix (Stan's wishart), mean nu * S, density ∝ det(Sigma)^((nu − K − 1)/2) exp(−tr(S⁻¹ Sigma)/2), normalised; through Cholesky factors, no inverse", Example: "param Sigma: cov_matrix[K] ~ Wishart(K + 2, S)"},
	{Name: "InvWishart", Params: []Param{nuWishart, {Name: "S", Support: dist.Real, Ranks: Matrix}}, Support: dist.CovMatrix, Shape: DistWishart,
		Doc: "inverse Wishart on a covariance matrix (Stan's inv_wishart), mean S / (nu − K − 1), density ∝ det(Sigma)^(−(nu + K + 1)/2) exp(−tr(S Sigma⁻¹)/2), normalised; conjugate to MvNormal's covariance", Example: "param Sigma: cov_matrix[K] ~ InvWishart(K + 2, S)"},
	{Name: "WishartCholesky", Params: []Param{nuWishart, {Name: "L_S", Support: dist.Real, Ranks: Matrix}}, Support: dist.CholCov, Shape: DistWishart,
		Doc: "the Cholesky factor L of a Wishart(nu, L_S * L_S') matrix L * L' (Stan's wishart_cholesky), normalised, with the Jacobian of L → L L'", Example: "param L: cholesky_factor_cov[K] ~ WishartCholesky(K + 2, L_S)"},
	{Name: "InvWishartCholesky", Params: []Param{nuWishart, {Name: "L_S", Support: dist.Real, Ranks: Matrix}}, Support: dist.CholCov, Shape: DistWishart,
		Doc: "the Cholesky factor L of an InvWishart(nu, L_S * L_S') matrix L * L' (Stan's inv_wishart_cholesky), normalised, with the Jacobian of L → L L'", Example: "param L: cholesky_factor_cov[K] ~ InvWishartCholesky(K + 2, L_S)"},
}

// carEdges is CAR's edge list argument name: int node ids, known when the
// model compiles, as the degrees and eigenvalues come from them.
func carEdges(name string) Param {
	return Param{Name: name, Support: dist.Count, Ranks: Vector, Int: true,
		Data: "the graph's degrees and eigenvalues are computed once, when the model compiles"}
}

// trialsMultinomial is Multinomial's number of trials n: optional, known
// before the fit.
var trialsMultinomial = Param{Name: "n", Support: dist.Count, Ranks: Scalar | Vector, Int: true, Optional: true,
	Data: "the number of draws is fixed, as the data's row totals are"}

// gpArgs are the arguments x, alpha, rho of the covariance functions;
// dataWhy, when not empty, says why x must be data; ard lets rho be a
// vector, a length-scale per coordinate.
func gpArgs(dataWhy string, ard bool) []Arg {
	rho := Arg{Name: "rho", Ranks: Scalar, Support: dist.Positive}
	if ard {
		rho.Ranks = Scalar | Vector
	}
	return []Arg{{Name: "x", Ranks: Vector | Matrix, Data: dataWhy}, {Name: "alpha", Ranks: Scalar, Support: dist.Positive}, rho}
}

// gpCross is the two-input form of the covariance function name (Stan's
// cross-covariance): the covariance [n1, n2] of the points x1 with the
// points x2, then alpha, rho and the extra arguments of the one-input
// form. dataWhy, when not empty, says why x1 and x2 must be data; params
// says so in the doc; ard as for gpArgs.
func gpCross(name, dataWhy, params, example string, ard bool, extra ...Arg) *Func {
	args := append([]Arg{{Name: "x1", Ranks: Vector | Matrix, Data: dataWhy}, {Name: "x2", Ranks: Vector | Matrix, Data: dataWhy}},
		gpArgs("", ard)[1:]...)
	return &Func{Name: name, Args: append(args, extra...), Shape: GPCross, Support: positiveRule, Elem: RealResult, Op: name,
		Doc: "the cross-covariance (Stan's two-input " + name + "): entry (i, j) is the kernel above of the points x1_i and x2_j; " +
			"x1 and x2 are vectors or matrices of points by rows, their points of one dimension (a vector's of 1); " +
			"the distances of data points are computed once, when the model compiles; " + params +
			". The covariance of new points with the data's, for a GP's predictions",
		Example: example}
}

// gpPeriod is gp_periodic_cov's period p.
var gpPeriod = Arg{Name: "p", Ranks: Scalar, Support: dist.Positive}

// gpDataWhy is why gp_exponential_cov needs data inputs.
const gpDataWhy = "exp(−|x_i − x_j| / rho) has a kink where two points meet (its slope in the distance is −1/rho at 0, not 0), so the inputs cannot be params (those of gp_exp_quad_cov, the Matérn and the periodic kernels can)"

// gpARDDoc is the vector rho of the kernels that take one.
const gpARDDoc = "rho may also be a vector, one length-scale per coordinate (ARD, Stan's array length_scale): the distance is then that of the points with coordinate k divided by rho[k], the kernel that of rho = 1"

// unitRule: values in (0, 1); positiveKeptRule: positive for a positive
// argument (1 / x).
var (
	unitRule         = SupportRule{Kind: Fixed, Default: dist.Unit}
	positiveKeptRule = SupportRule{Kind: FromArg, Default: dist.Real, Cases: []SupportCase{{If: dist.Positive, Then: dist.Positive}}}
)

// lchoose is log C(n, k) = −log1p(n) − log B(n − k + 1, k + 1), Stan's
// formulation, stable for large n through LogBeta.
func lchoose(n, k float64) float64 { return -math.Log1p(n) - dist.LogBeta(n-k+1, k+1) }

// fminmax is C's fmin (fmax when max): a NaN operand yields to the other;
// at a tie, x.
func fminmax(x, y float64, max bool) float64 {
	switch {
	case y != y:
		return x
	case x != x:
		return y
	case max && x >= y, !max && x <= y:
		return x
	}
	return y
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

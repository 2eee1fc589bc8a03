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

	realRule     = SupportRule{Kind: Fixed, Default: dist.Real}
	positiveRule = SupportRule{Kind: Fixed, Default: dist.Positive}
	// sumRule: sums of positive (non-negative, count) values keep the sign.
	sumRule = SupportRule{Kind: FromArg, Default: dist.Real, Cases: []SupportCase{
		{If: dist.Positive, Then: dist.Positive},
		{If: dist.Simplex, Then: dist.Positive},
		{If: dist.Count, Then: dist.Count},
		{If: dist.NonNegative, Then: dist.NonNegative},
	}}
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
		Doc: "square root, elementwise", Example: "sqrt(var)", Fold: fold1(math.Sqrt)},
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
	{Name: "pow", Range: PowRange, Args: argXY, Shape: Elementwise2, Support: signRule, Elem: RealResult, Op: "pow",
		Doc: "x to the power y, elementwise with broadcasting (the same as x ^ y)", Example: "pow(sigma, 2)",
		Fold: func(a []float64) float64 { return math.Pow(a[0], a[1]) }},
	{Name: "sum", Range: SumRange, Args: []Arg{{Name: "x", Ranks: AnyRank}}, Shape: ReduceScalar, Support: sumRule, Elem: IntIfAllInt, Op: "sum",
		Doc: "sum of all elements", Example: "sum(log1mexp(rate))", Fold: fold1(identity)},
	{Name: "mean", Range: ElementRange, Args: []Arg{{Name: "x", Ranks: AnyRank}}, Shape: ReduceScalar, Elem: RealResult, Op: "mean",
		Support: SupportRule{Kind: FromArg, Default: dist.Real, Cases: []SupportCase{
			{If: dist.Unit, Then: dist.Unit},
			{If: dist.Positive, Then: dist.Positive},
			{If: dist.Simplex, Then: dist.Positive},
			{If: dist.NonNegative, Then: dist.NonNegative},
		}},
		Doc: "mean of all elements", Example: "mean(y)", Fold: fold1(identity)},
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
	{Name: "cumsum", Range: SumRange, Args: []Arg{{Name: "x", Ranks: Vector}}, Shape: Elementwise1, Support: sumRule, Elem: IntIfAllInt, Op: "cumsum",
		Doc: "running sums: element i is x[0] + ... + x[i] (Stan's cumulative_sum); a random walk from its steps", Example: "mu + sigma * cumsum(z)"},
	{Name: "variance", Args: argArray, Shape: ReduceScalar, Support: SupportRule{Kind: Fixed, Default: dist.NonNegative}, Elem: RealResult, Op: "variance",
		Doc: "sample variance of all elements, over n - 1 (Stan's variance); 0 for one element. Stan's sd(x) is sqrt(variance(x)): sd stays free as a name", Example: "(y - mean(y)) / sqrt(variance(y))"},
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
	{Name: "logpdf", Args: []Arg{{Name: "value", Ranks: AnyRank}, {Name: "dist", Ranks: AnyRank}}, Shape: LogPDF,
		Support: realRule, Elem: RealResult, Op: "logpdf",
		Doc: "log density (or mass) of an elementwise distribution per element: what value ~ dist sums", Example: "logpdf(y, Normal(mu', sigma'))"},
	{Name: "logcdf", Args: []Arg{{Name: "value", Ranks: AnyRank}, {Name: "dist", Ranks: AnyRank}}, Shape: LogPDF,
		Support: realRule, Elem: RealResult, Op: "logcdf",
		Doc: "log P(X <= value) per element (Stan's _lcdf), for data censored from above: Normal, LogNormal, Cauchy, Laplace, Exponential, Weibull, Gamma, Poisson", Example: "target += logcdf(y_cens, Normal(mu, sigma))"},
	{Name: "logccdf", Args: []Arg{{Name: "value", Ranks: AnyRank}, {Name: "dist", Ranks: AnyRank}}, Shape: LogPDF,
		Support: realRule, Elem: RealResult, Op: "logccdf",
		Doc: "log P(X > value) per element (Stan's _lccdf), for right-censored data such as survival times still running: the families of logcdf", Example: "target += logccdf(t_cens, Weibull(k, s))"},
}

var (
	real1  = Param{Support: dist.Real, Ranks: AnyRank}
	pos1   = Param{Support: dist.Positive, Ranks: AnyRank}
	unit1  = Param{Support: dist.Unit, Ranks: AnyRank}
	meanMv = Param{Name: "mu", Support: dist.Real, Ranks: AnyRank}
	covMv  = Param{Name: "Sigma", Support: dist.Real, Ranks: Matrix}
	cholMv = Param{Name: "L", Support: dist.Real, Ranks: Matrix}
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
	{Name: "Uniform", Params: []Param{named(real1, "lo"), named(real1, "hi")}, Support: dist.Interval, Shape: DistElementwise,
		Doc: "uniform on (lo, hi); as a prior its interval must contain the param's support", Example: "param p: unit ~ Uniform(0, 1)"},
	{Name: "Poisson", Params: []Param{named(pos1, "rate")}, Support: dist.Count, Int: true, Shape: DistElementwise,
		Doc: "Poisson counts with mean rate", Example: "y ~ Poisson(exp(eta))"},
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
	{Name: "NegBinomial", Params: []Param{named(pos1, "mu"), named(pos1, "phi")}, Support: dist.Count, Int: true, Shape: DistElementwise,
		Doc: "overdispersed counts with mean mu and variance mu + mu² / phi", Example: "y ~ NegBinomial(mu, phi)"},
	{Name: "MvNormal", Params: []Param{meanMv, covMv}, Support: dist.Real, Shape: DistMvNormal,
		Doc: "multivariate normal with mean mu and covariance Sigma; a matrix value has independent rows", Example: "x ~ MvNormal(0, Sigma)"},
	{Name: "MvNormalRows", Params: []Param{meanMv, covMv}, Support: dist.Real, Shape: DistMvNormalRows,
		Doc: "iid rows of a matrix, each MvNormal(mu, Sigma); uses the data's sufficient statistics", Example: "Y ~ MvNormalRows(0, W * W' + I(D) / prec)"},
	{Name: "MvNormalCholesky", Params: []Param{meanMv, cholMv}, Support: dist.Real, Shape: DistMvNormalChol,
		Doc: "multivariate normal with mean mu and covariance L * L' given its lower Cholesky factor L (Stan's multi_normal_cholesky): one triangular solve, no factorisation; a matrix value has independent rows", Example: "b ~ MvNormalCholesky(0, diag_pre_multiply(tau, L))"},
	{Name: "Dirichlet", Params: []Param{named(pos1, "alpha")}, Support: dist.Simplex, Shape: DistDirichlet,
		Doc: "Dirichlet on the simplex (each row of a matrix value)", Example: "param theta: simplex[K] ~ Dirichlet(1)"},
	{Name: "Categorical", Params: []Param{{Name: "theta", Support: dist.Simplex, Ranks: Vector | Matrix}}, Support: dist.Count, Int: true, Shape: DistCategorical,
		Doc: "categories 0..K−1 with probabilities theta (a simplex, or one per row)", Example: "y ~ Categorical(theta)"},
	{Name: "CategoricalLogit", Params: []Param{{Name: "eta", Support: dist.Real, Ranks: Vector | Matrix}}, Support: dist.Count, Int: true, Shape: DistCategorical,
		Doc: "categories 0..K−1 with probabilities softmax(eta) (of each row), stable for large eta: multi-class logistic regression", Example: "y ~ CategoricalLogit(X * B)"},
	{Name: "OrderedLogistic", Params: []Param{{Name: "eta", Support: dist.Real, Ranks: Scalar | Vector}, {Name: "c", Support: dist.Real, Ranks: Vector | Matrix}}, Support: dist.Count, Int: true, Shape: DistOrdinal,
		Doc: "ordinal categories 0..K with P(y = k) = inv_logit(eta − c[k−1]) − inv_logit(eta − c[k]) for the K increasing cutpoints c (Stan's ordered_logistic, whose categories are 1..K+1), computed in log space: ordinal regression", Example: "y ~ OrderedLogistic(x * beta, c)"},
	{Name: "OrderedProbit", Params: []Param{{Name: "eta", Support: dist.Real, Ranks: Scalar | Vector}, {Name: "c", Support: dist.Real, Ranks: Vector | Matrix}}, Support: dist.Count, Int: true, Shape: DistOrdinal,
		Doc: "OrderedLogistic with the normal CDF Φ for inv_logit (Stan's ordered_probit)", Example: "y ~ OrderedProbit(x * beta, c)"},
	{Name: "LKJCorrCholesky", Params: []Param{{Name: "eta", Support: dist.Positive, Ranks: Scalar}}, Support: dist.CholCorr, Shape: DistLKJ,
		Doc: "LKJ on the Cholesky factor L of a correlation matrix (Stan's lkj_corr_cholesky), density ∝ det(L L')^(eta − 1) of the correlation matrix, normalised; eta = 1 is uniform over correlation matrices, larger eta favours weaker correlations", Example: "param L: cholesky_factor_corr[K] ~ LKJCorrCholesky(2)"},
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

package dist

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Univariates is the table of scalar families, in the order gpp help lists
// them. Each Kernel calls the family's struct and does not allocate; dp may
// be nil to skip the parameter partials. Names are gpp's spellings; Params
// are in the order of the gpp call and of Score.
//
// Supports: the half distributions and Exponential have a finite density at
// 0 and take NonNegative values; Gamma, InvGamma, LogNormal and Weibull take
// Positive values (0 is outside, log density −Inf); Beta and BetaProportion
// take Unit (0 and 1 are outside); Uniform takes the closed Interval [lo, hi].
// Pareto's support starts at its argument y_min and ParetoType2's and
// GeneralizedPareto's at mu, which a Support cannot say: they are declared
// Positive and Real, and the log density is −Inf below the argument. GEV's
// ends (1 + xi (y − mu)/sigma > 0) depend on all three arguments: Real, and
// −Inf outside.
var Univariates = []*Univariate{
	{
		Name: "Normal", Params: []Param{{"mu", Real}, {"sigma", Positive}},
		Support: Real, Doc: "normal with mean mu and standard deviation sigma",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Normal{p[0], p[1]}.eval(x, dp)
		},
		Rand:    func(p []float64, rng *rand.Rand) float64 { return Normal{p[0], p[1]}.Rand(rng) },
		Hoisted: normalHoisted{},
	},
	{
		Name: "HalfNormal", Params: []Param{{"sigma", Positive}},
		Support: NonNegative, Doc: "normal with mean 0 and standard deviation sigma, folded onto x >= 0",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return HalfNormal{p[0]}.eval(x, dp)
		},
		Rand:    func(p []float64, rng *rand.Rand) float64 { return HalfNormal{p[0]}.Rand(rng) },
		Hoisted: halfNormalHoisted{},
	},
	{
		Name: "Cauchy", Params: []Param{{"mu", Real}, {"sigma", Positive}},
		Support: Real, Doc: "Cauchy with location mu and scale sigma",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Cauchy{p[0], p[1]}.eval(x, dp)
		},
		Rand:    func(p []float64, rng *rand.Rand) float64 { return Cauchy{p[0], p[1]}.Rand(rng) },
		Hoisted: cauchyHoisted{},
	},
	{
		Name: "HalfCauchy", Params: []Param{{"sigma", Positive}},
		Support: NonNegative, Doc: "Cauchy with location 0 and scale sigma, folded onto x >= 0",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return HalfCauchy{p[0]}.eval(x, dp)
		},
		Rand:    func(p []float64, rng *rand.Rand) float64 { return HalfCauchy{p[0]}.Rand(rng) },
		Hoisted: halfCauchyHoisted{},
	},
	{
		Name: "StudentT", Params: []Param{{"nu", Positive}, {"mu", Real}, {"sigma", Positive}},
		Support: Real, Doc: "Student's t with nu degrees of freedom, location mu and scale sigma",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return StudentT{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand:    func(p []float64, rng *rand.Rand) float64 { return StudentT{p[0], p[1], p[2]}.Rand(rng) },
		Hoisted: studentTHoisted{},
	},
	{
		Name: "Laplace", Params: []Param{{"mu", Real}, {"sigma", Positive}},
		Support: Real, Doc: "Laplace (double exponential) with location mu and scale sigma",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Laplace{p[0], p[1]}.eval(x, dp)
		},
		Rand:    func(p []float64, rng *rand.Rand) float64 { return Laplace{p[0], p[1]}.Rand(rng) },
		Hoisted: laplaceHoisted{},
	},
	{
		Name: "LogNormal", Params: []Param{{"mu", Real}, {"sigma", Positive}},
		Support: Positive, Doc: "exp of a normal with mean mu and standard deviation sigma",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return LogNormal{p[0], p[1]}.eval(x, dp)
		},
		Rand:    func(p []float64, rng *rand.Rand) float64 { return LogNormal{p[0], p[1]}.Rand(rng) },
		Hoisted: logNormalHoisted{},
	},
	{
		Name: "Exponential", Params: []Param{{"rate", Positive}},
		Support: NonNegative, Doc: "exponential with rate (inverse mean) rate",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Exponential{p[0]}.eval(x, dp)
		},
		Rand:    func(p []float64, rng *rand.Rand) float64 { return Exponential{p[0]}.Rand(rng) },
		Hoisted: exponentialHoisted{},
	},
	{
		Name: "Gamma", Params: []Param{{"shape", Positive}, {"rate", Positive}},
		Support: Positive, Doc: "gamma with shape and rate (mean shape/rate)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Gamma{p[0], p[1]}.eval(x, dp)
		},
		Rand:     func(p []float64, rng *rand.Rand) float64 { return Gamma{p[0], p[1]}.Rand(rng) },
		Prepared: gammaPrepared{},
		Hoisted:  gammaHoisted{},
	},
	{
		Name: "InvGamma", Params: []Param{{"shape", Positive}, {"scale", Positive}},
		Support: Positive, Doc: "inverse gamma: scale / Gamma(shape, 1)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return InvGamma{p[0], p[1]}.eval(x, dp)
		},
		Rand:    func(p []float64, rng *rand.Rand) float64 { return InvGamma{p[0], p[1]}.Rand(rng) },
		Hoisted: invGammaHoisted{},
	},
	{
		Name: "Weibull", Params: []Param{{"shape", Positive}, {"scale", Positive}},
		Support: Positive, Doc: "Weibull with shape and scale: (x/scale)^shape is Exponential(1)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Weibull{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return Weibull{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "Beta", Params: []Param{{"a", Positive}, {"b", Positive}},
		Support: Unit, Doc: "beta with shapes a and b (mean a/(a+b))",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Beta{p[0], p[1]}.eval(x, dp)
		},
		Rand:    func(p []float64, rng *rand.Rand) float64 { return Beta{p[0], p[1]}.Rand(rng) },
		Hoisted: betaHoisted{},
	},
	{
		Name: "BetaProportion", Params: []Param{{"mu", Unit}, {"kappa", Positive}},
		Support: Unit, Doc: "beta with mean mu and precision kappa: Beta(mu·kappa, (1−mu)·kappa)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return BetaProportion{p[0], p[1]}.eval(x, dp)
		},
		Rand:    func(p []float64, rng *rand.Rand) float64 { return BetaProportion{p[0], p[1]}.Rand(rng) },
		Hoisted: betaPropHoisted{},
	},
	{
		Name: "Uniform", Params: []Param{{"lo", Real}, {"hi", Real}},
		Support: Interval, Doc: "uniform on [lo, hi], lo < hi",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Uniform{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return Uniform{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "Logistic", Params: []Param{{"mu", Real}, {"sigma", Positive}},
		Support: Real, Doc: "logistic with location mu and scale sigma",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Logistic{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return Logistic{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "Gumbel", Params: []Param{{"mu", Real}, {"beta", Positive}},
		Support: Real, Doc: "Gumbel (type I extreme value) with location mu and scale beta",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Gumbel{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return Gumbel{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "ChiSquare", Params: []Param{{"nu", Positive}},
		Support: Positive, Doc: "chi-square with nu degrees of freedom: Gamma(nu/2, 1/2)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return ChiSquare{p[0]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return ChiSquare{p[0]}.Rand(rng) },
	},
	{
		Name: "InvChiSquare", Params: []Param{{"nu", Positive}},
		Support: Positive, Doc: "inverse chi-square with nu degrees of freedom: 1/ChiSquare(nu)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return InvChiSquare{p[0]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return InvChiSquare{p[0]}.Rand(rng) },
	},
	{
		Name: "ScaledInvChiSquare", Params: []Param{{"nu", Positive}, {"s", Positive}},
		Support: Positive, Doc: "scaled inverse chi-square with nu degrees of freedom and scale s: InvGamma(nu/2, nu·s²/2)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return ScaledInvChiSquare{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return ScaledInvChiSquare{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "Rayleigh", Params: []Param{{"sigma", Positive}},
		Support: Positive, Doc: "Rayleigh with scale sigma: the length of two independent Normal(0, sigma)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Rayleigh{p[0]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return Rayleigh{p[0]}.Rand(rng) },
	},
	{
		Name: "Pareto", LowerArg: 1, Params: []Param{{"y_min", Positive}, {"alpha", Positive}},
		Support: Positive, Doc: "Pareto with minimum y_min and shape alpha (log density −Inf below y_min)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Pareto{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return Pareto{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "ParetoType2", LowerArg: 1, Params: []Param{{"mu", Real}, {"lambda", Positive}, {"alpha", Positive}},
		Support: Real, Doc: "Pareto type II (Lomax) with location mu, scale lambda and shape alpha (log density −Inf below mu)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return ParetoType2{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return ParetoType2{p[0], p[1], p[2]}.Rand(rng) },
	},
	{
		Name: "Frechet", Params: []Param{{"alpha", Positive}, {"sigma", Positive}},
		Support: Positive, Doc: "Fréchet (type II extreme value) with shape alpha and scale sigma",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Frechet{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return Frechet{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "GEV", Params: []Param{{"mu", Real}, {"sigma", Positive}, {"xi", Real}},
		Support: Real, Doc: "generalized extreme value with location mu, scale sigma and shape xi (Gumbel at xi = 0; log density −Inf outside 1 + xi (y − mu)/sigma > 0)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return GEV{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand:   func(p []float64, rng *rand.Rand) float64 { return GEV{p[0], p[1], p[2]}.Rand(rng) },
		EndsOf: gevEnds,
	},
	{
		Name: "GeneralizedPareto", LowerArg: 1, Params: []Param{{"mu", Real}, {"sigma", Positive}, {"xi", Real}},
		Support: Real, Doc: "generalized Pareto with location mu, scale sigma and shape xi (log density −Inf below mu, and above mu − sigma/xi for xi < 0)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return GeneralizedPareto{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand:   func(p []float64, rng *rand.Rand) float64 { return GeneralizedPareto{p[0], p[1], p[2]}.Rand(rng) },
		EndsOf: generalizedParetoEnds,
	},
	{
		Name: "LogLogistic", Params: []Param{{"alpha", Positive}, {"beta", Positive}},
		Support: Positive, Doc: "log-logistic with scale alpha and shape beta: log x is Logistic(log alpha, 1/beta)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return LogLogistic{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return LogLogistic{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "SkewNormal", Params: []Param{{"xi", Real}, {"omega", Positive}, {"alpha", Real}},
		Support: Real, Doc: "skew normal with location xi, scale omega and shape alpha",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return SkewNormal{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return SkewNormal{p[0], p[1], p[2]}.Rand(rng) },
	},
	{
		Name: "ExpModNormal", Params: []Param{{"mu", Real}, {"sigma", Positive}, {"lambda", Positive}},
		Support: Real, Doc: "Normal(mu, sigma) plus an independent Exponential(lambda)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return ExpModNormal{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return ExpModNormal{p[0], p[1], p[2]}.Rand(rng) },
	},
	{
		Name: "VonMises", Params: []Param{{"mu", Real}, {"kappa", Positive}},
		Support: Real, Doc: "von Mises on the circle with location mu and concentration kappa",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return VonMises{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return VonMises{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "WrappedCauchy", Params: []Param{{"mu", Real}, {"rho", Unit}},
		Support: Real, Doc: "wrapped Cauchy on the circle with location mu and concentration rho in [0, 1)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return WrappedCauchy{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return WrappedCauchy{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "SkewDoubleExponential", Params: []Param{{"mu", Real}, {"sigma", Positive}, {"tau", Unit}},
		Support: Real, Doc: "skew double exponential (asymmetric Laplace) with location mu (its tau-quantile), scale sigma and skewness tau",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return SkewDoubleExponential{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return SkewDoubleExponential{p[0], p[1], p[2]}.Rand(rng) },
	},
	{
		Name: "Wald", Params: []Param{{"mu", Positive}, {"lambda", Positive}},
		Support: Positive, Doc: "Wald (inverse Gaussian) with mean mu and shape lambda (variance mu^3/lambda)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Wald{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return Wald{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "Kumaraswamy", Params: []Param{{"a", Positive}, {"b", Positive}},
		Support: Unit, Doc: "Kumaraswamy on (0, 1) with shapes a and b: CDF 1 − (1 − x^a)^b",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Kumaraswamy{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return Kumaraswamy{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "LogitNormal", Params: []Param{{"mu", Real}, {"sigma", Positive}},
		Support: Unit, Doc: "logit-normal on (0, 1): logit of the value is Normal(mu, sigma)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return LogitNormal{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return LogitNormal{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "AsymmetricLaplace", Params: []Param{{"b", Positive}, {"kappa", Positive}, {"mu", Real}},
		Support: Real, Doc: "asymmetric Laplace (PyMC's) with rate b, symmetry kappa and location mu: tails of rates b·kappa above mu, b/kappa below",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return AsymmetricLaplace{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return AsymmetricLaplace{p[0], p[1], p[2]}.Rand(rng) },
	},
	{
		Name: "Moyal", Params: []Param{{"mu", Real}, {"sigma", Positive}},
		Support: Real, Doc: "Moyal with location mu and scale sigma: (value − mu)/sigma is −log of a chi-square(1)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Moyal{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return Moyal{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "Rice", Params: []Param{{"nu", NonNegative}, {"sigma", Positive}},
		Support: Positive, Doc: "Rice with noncentrality nu and scale sigma: the length of a 2-vector of Normal(., sigma)s whose mean has length nu",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Rice{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return Rice{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "Wiener", LowerArg: 2, Params: []Param{{"alpha", Positive}, {"tau", NonNegative}, {"beta", Unit}, {"delta", Real}},
		Support: Positive, Doc: "first-passage time at the upper boundary of a Wiener diffusion with boundary separation alpha, non-decision time tau, bias beta and drift delta (log density −Inf at or below tau)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Wiener{p[0], p[1], p[2], p[3]}.eval(x, dp)
		},
	},
	{
		Name: "Poisson", Params: []Param{{"rate", NonNegative}},
		Support: Count, Doc: "Poisson counts with mean rate (rate 0: all zeros)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Poisson{p[0]}.eval(x, dp)
		},
		Rand:        func(p []float64, rng *rand.Rand) float64 { return Poisson{p[0]}.Rand(rng) },
		DataHoisted: poissonData{},
	},
	{
		Name: "PoissonLog", Params: []Param{{"eta", Real}},
		Support: Count, Doc: "Poisson counts with mean exp(eta)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return PoissonLog{p[0]}.eval(x, dp)
		},
		Rand:        func(p []float64, rng *rand.Rand) float64 { return PoissonLog{p[0]}.Rand(rng) },
		DataHoisted: poissonLogData{},
	},
	{
		Name: "Bernoulli", UnitEnds: UnitZero | UnitOne, Params: []Param{{"p", Unit}},
		Support: Binary, Doc: "0/1 outcome with success probability p",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Bernoulli{p[0]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return Bernoulli{p[0]}.Rand(rng) },
	},
	{
		Name: "BernoulliLogit", Params: []Param{{"logit", Real}},
		Support: Binary, Doc: "0/1 outcome with success probability inv_logit(logit)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return BernoulliLogit{p[0]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return BernoulliLogit{p[0]}.Rand(rng) },
	},
	{
		Name: "Binomial", UnitEnds: UnitZero | UnitOne, Params: []Param{{"n", Count}, {"p", Unit}},
		Support: BoundedCount, Doc: "successes in n trials with success probability p",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Binomial{p[0], p[1]}.eval(x, dp)
		},
		Rand:        func(p []float64, rng *rand.Rand) float64 { return Binomial{p[0], p[1]}.Rand(rng) },
		DataHoisted: binomialData{},
	},
	{
		Name: "BinomialLogit", Params: []Param{{"n", Count}, {"eta", Real}},
		Support: BoundedCount, Doc: "successes in n trials with success probability inv_logit(eta)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return BinomialLogit{p[0], p[1]}.eval(x, dp)
		},
		Rand:        func(p []float64, rng *rand.Rand) float64 { return BinomialLogit{p[0], p[1]}.Rand(rng) },
		DataHoisted: binomialLogitData{},
	},
	{
		Name: "BetaBinomial", Params: []Param{{"n", Count}, {"a", Positive}, {"b", Positive}},
		Support: BoundedCount, Doc: "successes in n trials with a success probability drawn from Beta(a, b)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return BetaBinomial{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return BetaBinomial{p[0], p[1], p[2]}.Rand(rng) },
	},
	{
		Name: "Hypergeometric", Params: []Param{{"N", Count}, {"a", Count}, {"b", Count}},
		Support: BoundedCount, Doc: "successes in N draws without replacement from a successes and b failures",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Hypergeometric{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return Hypergeometric{p[0], p[1], p[2]}.Rand(rng) },
	},
	{
		Name: "BetaNegBinomial", Params: []Param{{"r", Positive}, {"alpha", Positive}, {"beta", Positive}},
		Support: Count, Doc: "failures before the r-th success with a success probability drawn from Beta(alpha, beta)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return BetaNegBinomial{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return BetaNegBinomial{p[0], p[1], p[2]}.Rand(rng) },
	},
	{
		Name: "NegBinomial", Params: []Param{{"mu", NonNegative}, {"phi", Positive}},
		Support: Count, Doc: "negative binomial counts with mean mu and dispersion phi (variance mu + mu^2/phi)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return NegBinomial{p[0], p[1]}.eval(x, dp)
		},
		Rand:        func(p []float64, rng *rand.Rand) float64 { return NegBinomial{p[0], p[1]}.Rand(rng) },
		Hoisted:     negBinomialHoisted{},
		DataHoisted: negBinomialData{},
	},
	{
		Name: "NegBinomialLog", Params: []Param{{"eta", Real}, {"phi", Positive}},
		Support: Count, Doc: "negative binomial counts with mean exp(eta) and dispersion phi",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return NegBinomialLog{p[0], p[1]}.eval(x, dp)
		},
		Rand:        func(p []float64, rng *rand.Rand) float64 { return NegBinomialLog{p[0], p[1]}.Rand(rng) },
		Hoisted:     negBinomialLogHoisted{},
		DataHoisted: negBinomialLogData{},
	},
	{
		Name: "ZeroInflatedPoisson", UnitEnds: UnitZero | UnitOne, Params: []Param{{"psi", Unit}, {"lambda", Positive}},
		Support: Count, Doc: "Poisson(lambda) counts with extra zeros: a Poisson count with probability psi (PyMC's psi), else a structural zero",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return ZeroInflatedPoisson{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return ZeroInflatedPoisson{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "ZeroInflatedNegBinomial", UnitEnds: UnitZero | UnitOne, Params: []Param{{"psi", Unit}, {"mu", Positive}, {"phi", Positive}},
		Support: Count, Doc: "NegBinomial(mu, phi) counts with extra zeros: a NegBinomial count with probability psi (PyMC's psi), else a structural zero",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return ZeroInflatedNegBinomial{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand:        func(p []float64, rng *rand.Rand) float64 { return ZeroInflatedNegBinomial{p[0], p[1], p[2]}.Rand(rng) },
		Hoisted:     zeroInflatedNegBinomialHoisted{},
		DataHoisted: zeroInflatedNegBinomialData{},
	},
	{
		Name: "HurdlePoisson", UnitEnds: UnitZero | UnitOne, Params: []Param{{"psi", Unit}, {"lambda", Positive}},
		Support: Count, Doc: "a zero-truncated Poisson(lambda) count with probability psi (PyMC's psi), else 0",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return HurdlePoisson{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return HurdlePoisson{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "HurdleNegBinomial", UnitEnds: UnitZero | UnitOne, Params: []Param{{"psi", Unit}, {"mu", Positive}, {"phi", Positive}},
		Support: Count, Doc: "a zero-truncated NegBinomial(mu, phi) count with probability psi (PyMC's psi), else 0",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return HurdleNegBinomial{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand:        func(p []float64, rng *rand.Rand) float64 { return HurdleNegBinomial{p[0], p[1], p[2]}.Rand(rng) },
		Hoisted:     hurdleNegBinomialHoisted{},
		DataHoisted: hurdleNegBinomialData{},
	},
	{
		Name: "ZeroInflatedBinomial", UnitEnds: UnitZero | UnitOne, Params: []Param{{"psi", Unit}, {"n", Count}, {"p", Unit}},
		Support: BoundedCount, Doc: "Binomial(n, p) counts with extra zeros: a Binomial count with probability psi (PyMC's psi), else a structural zero",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return ZeroInflatedBinomial{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return ZeroInflatedBinomial{p[0], p[1], p[2]}.Rand(rng) },
	},
	{
		Name: "HurdleGamma", UnitEnds: UnitZero | UnitOne, Params: []Param{{"psi", Unit}, {"alpha", Positive}, {"beta", Positive}},
		Support: NonNegative, ZeroMass: true, Doc: "a Gamma(alpha, beta) value with probability psi (PyMC's psi), else exactly 0",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return HurdleGamma{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return HurdleGamma{p[0], p[1], p[2]}.Rand(rng) },
	},
	{
		Name: "HurdleLogNormal", UnitEnds: UnitZero | UnitOne, Params: []Param{{"psi", Unit}, {"mu", Real}, {"sigma", Positive}},
		Support: NonNegative, ZeroMass: true, Doc: "a LogNormal(mu, sigma) value with probability psi (PyMC's psi), else exactly 0",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return HurdleLogNormal{p[0], p[1], p[2]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return HurdleLogNormal{p[0], p[1], p[2]}.Rand(rng) },
	},
	{
		Name: "Geometric", UnitEnds: UnitOne, Params: []Param{{"p", Unit}}, Least: 1,
		Support: Count, Doc: "trials up to and including the first success, each with success probability p (PyMC's and scipy's convention: 1, 2, …)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Geometric{p[0]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return Geometric{p[0]}.Rand(rng) },
	},
	{
		Name: "DiscreteUniform", Params: []Param{{"lower", Real}, {"upper", Real}}, LowerArg: 1, UpperArg: 2,
		Support: Integer, Doc: "uniform on the integers lower, lower + 1, …, upper (Stan's discrete_range)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return DiscreteUniform{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return DiscreteUniform{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "Skellam", Params: []Param{{"mu1", Positive}, {"mu2", Positive}},
		Support: Integer, Doc: "difference of independent Poisson(mu1) and Poisson(mu2) counts, any integer",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return Skellam{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return Skellam{p[0], p[1]}.Rand(rng) },
	},
	{
		Name: "DiscreteWeibull", Params: []Param{{"q", Unit}, {"beta", Positive}},
		Support: Count, Doc: "discrete Weibull counts 0, 1, … with P(X >= k) = q^(k^beta)",
		Kernel: func(x float64, p, dp []float64) (float64, float64) {
			return DiscreteWeibull{p[0], p[1]}.eval(x, dp)
		},
		Rand: func(p []float64, rng *rand.Rand) float64 { return DiscreteWeibull{p[0], p[1]}.Rand(rng) },
	},
}

// LookupUnivariate returns the scalar family called name.
func LookupUnivariate(name string) (*Univariate, bool) {
	for _, u := range Univariates {
		if u.Name == name {
			return u, true
		}
	}
	return nil, false
}

// HurdleOf returns the hurdle family of the continuous family name (a
// ZeroMass family named "Hurdle" + name: HurdleGamma for Gamma), for an
// error at a value 0 that name's support leaves out, or false.
func HurdleOf(name string) (*Univariate, bool) {
	h, ok := LookupUnivariate("Hurdle" + name)
	if !ok || !h.ZeroMass {
		return nil, false
	}
	return h, true
}

// ZeroAmounts opens the advice of ZeroHint in a message: a hint after a
// support error at a data value 0.
const ZeroAmounts = "; for amounts with exact zeros (rainfall with dry days), "

// ZeroHint is the advice at a value 0 of data name that family, of
// positive values, leaves out, when family has a hurdle version
// (HurdleOf): "use HurdleGamma(psi, alpha, beta), a Gamma(alpha, beta)
// value with probability psi = P(rain > 0), else exactly 0"; "" for any
// other family.
func ZeroHint(family, name string) string {
	h, ok := HurdleOf(family)
	if !ok {
		return ""
	}
	names := make([]string, len(h.Params))
	for i, p := range h.Params {
		names[i] = p.Name
	}
	return fmt.Sprintf("use %s(%s), a %s(%s) value with probability %s = P(%s > 0), else exactly 0",
		h.Name, strings.Join(names, ", "), family, strings.Join(names[1:], ", "), names[0], name)
}

// Rank is the number of axes of a value: 0 for a scalar, 1 for a vector, 2
// for a matrix.
type Rank int

// Ranks.
const (
	Scalar Rank = iota
	Vector
	Matrix
)

// MvParam describes one argument of a multivariate distribution.
type MvParam struct {
	Name    string
	Support Support // of each element
	Rank    Rank
	Note    string // a constraint Support cannot express, or ""
}

// Multivariate describes a distribution over a vector or matrix value, for
// the checker and gpp help. Its evaluation is by the type of the same name
// (MvNormal, MvNormalRows, Dirichlet).
type Multivariate struct {
	Name    string
	Params  []MvParam
	Support Support // of each element of the value
	Rank    Rank    // of the value
	Doc     string  // one line
}

// Multivariates is the table of vector and matrix families.
var Multivariates = []*Multivariate{
	{
		Name: "MvNormal",
		Params: []MvParam{
			{Name: "mu", Support: Real, Rank: Vector},
			{Name: "Sigma", Support: Real, Rank: Matrix, Note: "symmetric positive definite"},
		},
		Support: Real, Rank: Vector,
		Doc: "multivariate normal vector with mean mu and covariance Sigma",
	},
	{
		Name: "MvNormalRows",
		Params: []MvParam{
			{Name: "mu", Support: Real, Rank: Vector},
			{Name: "Sigma", Support: Real, Rank: Matrix, Note: "symmetric positive definite"},
		},
		Support: Real, Rank: Matrix,
		Doc: "matrix whose rows are iid multivariate normal with mean mu and covariance Sigma (cost independent of the row count)",
	},
	{
		Name: "Dirichlet",
		Params: []MvParam{
			{Name: "alpha", Support: Positive, Rank: Vector},
		},
		Support: Simplex, Rank: Vector,
		Doc: "Dirichlet on the simplex with concentrations alpha",
	},
}

// LookupMultivariate returns the multivariate family called name.
func LookupMultivariate(name string) (*Multivariate, bool) {
	for _, m := range Multivariates {
		if m.Name == name {
			return m, true
		}
	}
	return nil, false
}

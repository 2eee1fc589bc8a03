package check

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// maxExprText bounds the length of expressions quoted in messages.
const maxExprText = 48

// exprString formats an expression for messages, in the canonical form of
// the printer, shortened to about maxExprText bytes.
func exprString(e ast.Expr) string { return shorten(ast.FormatExpr(e)) }

// shorten cuts source text quoted in a message to about maxExprText bytes.
func shorten(s string) string {
	if len(s) > maxExprText {
		s = s[:maxExprText-3] + "..."
	}
	return s
}

// suggest returns "; did you mean `X`?" for the candidate X that Suggest
// finds for a misspelt name, or "".
func suggest(name string, candidates []string) string {
	best := Suggest(name, candidates)
	if best == "" {
		return ""
	}
	return "; did you mean `" + best + "`?"
}

// Suggest returns the candidate that name most likely misspells, or "": one
// that differs only in case, else the nearest by edit distance, within a
// third of name's length (at most 3 edits). The checker suggests names this
// way in its errors; gpp help does for topics.
func Suggest(name string, candidates []string) string {
	limit := min(len(name)/3, 3)
	n := utf8.RuneCountInString(name)
	best, bestD := "", limit+1
	for _, c := range candidates {
		var d int
		switch {
		case c == name:
			continue
		case strings.EqualFold(c, name):
			d = 0
		case abs(utf8.RuneCountInString(c)-n) > limit:
			continue // at least that many edits: no need to count them
		default:
			d = editDistance(name, c)
		}
		if d < bestD || d == bestD && c < best { // ties go to the first in sorted order
			best, bestD = c, d
		}
	}
	return best
}

func abs(x int) int { return max(x, -x) }

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and adjacent transpositions.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// stanSpellings are Stan functions that gpp writes otherwise, with gpp's
// spelling, for the error at a call of one (a model ported from Stan).
var stanSpellings = map[string]string{
	"cumulative_sum": "cumsum(x)",
	"rep_vector":     "rep(x, n)",
	"rep_array":      "rep(x, n) for Stan's rep_array(x, n), and rep_matrix(x, m, n) for rep_array(x, m, n) (a real[m, n] is a matrix)",
	"beta":           "exp(lbeta(a, b)) (the name beta stays free for a model's params; Beta is the distribution)",
	"fabs":           "abs(x)",
	"log1m_exp":      "log1mexp(-x) (gpp's log1mexp(x) is log(1 - exp(-x)))",
	"fdim":           "fmax(x - y, 0)",
	// NumPy's and PyMC's (docs/pymc.md): max(x) is gpp's largest element of one argument
	"maximum":                           "fmax(a, b), the elementwise larger of two values (max(x) is the largest element of one argument)",
	"minimum":                           "fmin(a, b), the elementwise smaller of two values (min(x) is the smallest element of one argument)",
	"relu":                              "fmax(x, 0)",
	"std_normal_cdf":                    "Phi(x)",
	"std_normal_log_qf":                 "inv_Phi(exp(x))",
	"std_normal_qf":                     "inv_Phi(x)",
	"inv_erfc":                          "-inv_Phi(x / 2) / sqrt(2)",
	"log_inc_beta":                      "log(inc_beta(a, b, x))",
	"log1p_exp":                         "softplus(x)",
	"multiply_log":                      "lmultiply(x, y) (Stan's newer name)",
	"binomial_coefficient_log":          "lchoose(n, k) (Stan's newer name)",
	"cholesky_decompose":                "chol(A)",
	"cov_exp_quad":                      "gp_exp_quad_cov(x, alpha, rho) (Stan's current name)",
	"mdivide_left":                      "solve(A, B)",
	"mdivide_left_spd":                  "solve(A, B) (A symmetric positive definite, through its Cholesky factor)",
	"csr_extract":                       "csr_extract_w(A), csr_extract_v(A) and csr_extract_u(A) for Stan's tuple (gpp has no tuples; v and u 0-based)",
	"mdivide_right_spd":                 "solve(A, B')' for B A⁻¹ (A symmetric, so B A⁻¹ = (A⁻¹ B')')",
	"log_determinant_spd":               "logdet(A)",
	"trace_quad_form":                   "trace(quad_form(A, B)), trace(B' * A * B)",
	"block":                             "A[i:i+nr, j:j+nc] for Stan's block(A, i, j, nr, nc), with 0-based i and j",
	"sub_col":                           "A[i:i+n, j] for Stan's sub_col(A, i, j, n), with 0-based i and j (a vector)",
	"sub_row":                           "A[i, j:j+n]' for Stan's sub_row(A, i, j, n), with 0-based i and j (A[i, j:j+n] is a vector, its ' the row)",
	"quad_form_sym":                     "quad_form(A, v)",
	"to_row_vector":                     "x' (a row [1, n]), or to_vector(x)' for a matrix",
	"multiply_lower_tri_self_transpose": "tcrossprod(L) (L * L')",
	"diag_matrix":                       "diag(v)",
	"diagonal":                          "diag(A)",
	"identity_matrix":                   "I(n)",
	"rep_row_vector":                    "rep(x, n)' (a row [1, n])",
	"append_array":                      "append_row(x, y)",
	"transpose":                         "x'",
	"col":                               "A[:, j] (0-based)",
	"row":                               "A[i] (0-based)",
	"squared_distance":                  "dot_self(x - y)",
	"distance":                          "sqrt(dot_self(x - y))",
	"norm2":                             "sqrt(dot_self(x))",
	"norm1":                             "sum(abs(x))",
	"step":                              "x >= 0 (Stan's step(0) is 1), a comparison: 0 or 1, on data or in an output",
	"int_step":                          "x > 0 (Stan's int_step(0) is 0), a comparison: 0 or 1, on data or in an output",
	"logical_eq":                        "x == y",
	"logical_neq":                       "x != y",
	"logical_lt":                        "x < y",
	"logical_lte":                       "x <= y",
	"logical_gt":                        "x > y",
	"logical_gte":                       "x >= y",
	"logical_and":                       "x && y",
	"logical_or":                        "x || y",
	"logical_negation":                  "!x",
	"choose":                            "exp(lchoose(n, k))",
	// Stan's tuple-returning functions: gpp has no tuples, one call a part
	"eigendecompose_sym": "eigenvalues_sym(A) and eigenvectors_sym(A), one call for each part of Stan's tuple (gpp has no tuples)",
	"eigendecompose":     "eigenvalues_sym(A) and eigenvectors_sym(A) for a symmetric A, one call for each part (gpp has no tuples, nor complex eigenvalues of a general matrix)",
	"svd":                "svd_U(A), singular_values(A) and svd_V(A), one call for each part of Stan's tuple (U, singular values, V) (gpp has no tuples)",
	"qr_thin":            "qr_thin_Q(A) and qr_thin_R(A), one call for each part of Stan's tuple (gpp has no tuples)",
	"qr":                 "qr_Q(A) and qr_R(A), one call for each part of Stan's tuple (gpp has no tuples); qr_thin_Q and qr_thin_R take a param",
}

// parallelNote is the note at Stan's parallel map and reduce: the
// computation itself, which gpp compiles vectorised and parallelises.
func parallelNote(call, what string) string {
	return "gpp writes Stan's " + call + " as " + what + ": gpp vectorises loops and shares each step between its workers itself, with bit-identical results for any number of them (docs/inference.md, Determinism and parallelism)"
}

// noComplex is the note at Stan's complex-number functions, noFFT at its
// Fourier transforms.
const (
	noComplex = "gpp has no complex numbers (Stan's complex, complex_vector and complex_matrix): write a complex value as its real and imaginary parts, two reals or two vectors"
	noFFT     = "gpp has no complex numbers, so no fft, inv_fft, fft2 or inv_fft2 (a discrete Fourier transform of real data is a product with the cosine and sine matrices, two real matrices known before the fit)"
)

// stanNotes are Stan functions that gpp needs no call for, with what to
// write instead; X stands for the call's argument.
var stanNotes = map[string]string{
	"offset":                    "an offset (brms's and glmmTMB's offset(log(pop))) is a term of the linear predictor, without a coefficient: ... + X (docs/language.md §9)",
	"num_elements":              "use the size names of X's declaration (data y: real[N] gives N)",
	"size":                      "use the size names of X's declaration (data y: real[N] gives N)",
	"rows":                      "use the size names of X's declaration (data X: real[N, K] gives N and K)",
	"cols":                      "use the size names of X's declaration (data X: real[N, K] gives N and K)",
	"to_array_1d":               "a real[N] is a vector already: write X itself",
	"to_array_2d":               "a real[N, K] is a matrix already: write X itself",
	"dims":                      "use the size names of X's declaration (data X: real[N, K] gives N and K)",
	"get_lp":                    "gpp has no get_lp() or target(): the log density is not a value a model reads; gpp fit reports the ELBO, and output log_lik = logpdf(y, ...) gives each observation's term",
	"to_complex":                noComplex,
	"get_real":                  noComplex,
	"get_imag":                  noComplex,
	"conj":                      noComplex,
	"polar":                     noComplex,
	"proj":                      noComplex,
	"norm":                      noComplex + " (norm(z) = re² + im²)",
	"arg":                       noComplex + " (arg(z) = atan2(im, re))",
	"fft":                       noFFT,
	"inv_fft":                   noFFT,
	"fft2":                      noFFT,
	"inv_fft2":                  noFFT,
	"complex_schur_decompose_t": noComplex,
	"complex_schur_decompose_u": noComplex,
	"map_rect":                  parallelNote("map_rect(f, phi, thetas, x_rs, x_is)", "the shards' results directly (a loop over the shards, or one vectorised expression)"),
	"reduce_sum":                parallelNote("reduce_sum(f, x, grainsize, ...)", "the sum itself, target += sum(...) or a loop of ~ statements over x"),
	"reduce_sum_static":         parallelNote("reduce_sum_static(f, x, grainsize, ...)", "the sum itself, target += sum(...) or a loop of ~ statements over x"),
	"is_inf":                    "data are finite (an infinity is an error where the data load), and a fit stops at a non-finite value, naming it",
	"is_nan":                    "data are finite (NaN is a missing value, section 3 of docs/language.md), and a fit stops at a non-finite value, naming it",
	// NumPy's, not Stan's: an A/B test's "which arm is best"
	"argmax":                  "gpp has no int-valued argmax: the 0/1 indicators of the largest element are a comparison, output best = p == max(p), whose mean is the probability that each is the largest",
	"argmin":                  "gpp has no int-valued argmin: the 0/1 indicators of the smallest element are a comparison, output worst = p == min(p), whose mean is the probability that each is the smallest",
	"complex_schur_decompose": "gpp has no complex numbers (nor tuples); for a symmetric matrix, eigenvectors_sym gives its Schur vectors and eigenvalues_sym the diagonal",
}

// stanHint returns how gpp writes the Stan function name, or "": a
// spelling from stanSpellings, or for Stan's density functions
// (normal_lpdf, poisson_log_lpmf) and random draws (normal_rng) the logpdf
// call or predictive output with gpp's distribution.
func stanHint(name, arg string) string {
	if s, ok := stanSpellings[name]; ok {
		return "gpp writes it " + s
	}
	if s, ok := stanNotes[name]; ok {
		return strings.Replace(s, "X", "`"+arg+"`", 1)
	}
	if h := stanReparamHint(name); h != "" {
		return h
	}
	if h := hypPFQHint(name); h != "" {
		return h
	}
	for _, suffix := range []string{"_lpdf", "_lupdf", "_lcdf", "_lccdf", "_cdf", "_rng", "_log"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if h, ok := stanLacks[stanKey(base)]; ok {
				return h
			}
		}
	}
	for _, c := range []struct{ suffix, form string }{{"_lcdf", "logcdf(y, %s(...))"}, {"_lccdf", "logccdf(y, %s(...))"}, {"_cdf", "exp(logcdf(y, %s(...)))"}} {
		base, ok := strings.CutSuffix(name, c.suffix)
		if !ok {
			continue
		}
		key := stanKey(base)
		for _, d := range logCDFFamilies() {
			if key == strings.ToLower(d) || stanDists[key] == d { // neg_binomial_2
				return fmt.Sprintf("gpp writes Stan's %s(y | ...) as "+c.form, name, d)
			}
		}
		return "gpp's logcdf and logccdf know " + strings.Join(logCDFFamilies(), ", ")
	}
	for _, suffix := range []string{"_lpdf", "_lupdf", "_lpmf", "_lupmf", "_rng"} {
		base, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		if g, ok := stanGLMs[stanKey(base)]; ok {
			return "gpp writes Stan's " + g + ", in logpdf(y, ...), y ~ ... or output y_rep ~ ..."
		}
		if g := stanDists[stanKey(base)]; stdlib.LookupDist(g) != nil {
			switch d := stdlib.LookupDist(g); {
			case suffix == "_rng" && d.Shape == stdlib.DistGaussianDLM:
				return fmt.Sprintf("%s has no replicate in gpp (its arguments do not give the number of times T): write the states as a param and draw output y_rep ~ MvNormal(F' theta_t, V)", g)
			case suffix == "_rng" && g == "Wiener":
				return "Wiener has no replicate in gpp (no sampler of its first-passage times): simulate the diffusion outside gpp from the draws"
			case suffix == "_rng":
				return fmt.Sprintf("gpp draws from %s in an output: output y_rep ~ %s(...)", g, g) // multi_normal_rng
			case d.Shape != stdlib.DistElementwise && !perObservationFamily(d):
				return fmt.Sprintf("gpp writes Stan's %s(y | ...) as y ~ %s(...) in the log density", name, g) // multinomial_lpmf
			}
			return fmt.Sprintf("gpp writes Stan's %s(y | ...) as logpdf(y, %s(...)), or y ~ %s(...) in the log density", name, g, g) // neg_binomial_2_log_lpmf
		}
		for _, d := range stdlib.Dists() {
			if !strings.EqualFold(strings.ReplaceAll(base, "_", ""), d.Name) {
				continue
			}
			if suffix == "_rng" {
				return fmt.Sprintf("gpp draws from %s in an output: output y_rep ~ %s(...)", d.Name, d.Name)
			}
			return fmt.Sprintf("gpp writes Stan's %s(y | ...) as logpdf(y, %s(...)), or y ~ %s(...) in the log density", name, d.Name, d.Name)
		}
	}
	return bugsHint(name)
}

// stanKey is a Stan name as the tables of Stan's names key it: lower
// case, without underscores (neg_binomial_2 → negbinomial2).
func stanKey(name string) string { return strings.ToLower(strings.ReplaceAll(name, "_", "")) }

// hypPFQHint returns the hint at a hypergeometric function of fixed sizes
// other than gpp's 2F1 and 3F2 (Stan Math's hypergeometric_1F0, or a guess
// such as hypergeometric_2F2), which Suggest would take for
// hypergeometric_2F1.
func hypPFQHint(name string) string {
	r, ok := strings.CutPrefix(name, "hypergeometric_")
	if !ok || len(r) != 3 || r[1] != 'F' || r[0] < '0' || r[0] > '9' || r[2] < '0' || r[2] > '9' {
		return ""
	}
	if r == "1F0" {
		return "gpp writes it pow(1 - z, -a), which 1F0(a; ; z) is, for any z < 1"
	}
	b := fmt.Sprintf("b [%c]", r[2])
	if r[2] == '0' {
		b = "b = rep(0.0, 0)"
	}
	return fmt.Sprintf("gpp writes it hypergeometric_pFq(a, b, z) with a [%c] and %s", r[0], b)
}

// logCDFFamilies are the families of logcdf and logccdf: the elementwise
// ones with a log CDF (dist.LogCDFNames) and PoissonBinomial, a term per
// count.
func logCDFFamilies() []string { return append(dist.LogCDFNames(), "PoissonBinomial") }

// stanDists are Stan's distributions under gpp's name where gpp has one
// that Suggest would not find, and "" for those gpp lacks (so that it does
// not suggest another that merely shares letters, as NegBinomial for
// Logistic). Keys are lower case without underscores.
var stanDists = map[string]string{
	"doubleexponential": "Laplace", "multinormal": "MvNormal", "negbinomial2": "NegBinomial", "negbinomial2log": "NegBinomialLog",
	"betabinomial": "BetaBinomial", "logistic": "Logistic", "gumbel": "Gumbel", "skewnormal": "SkewNormal", "vonmises": "VonMises", "frechet": "Frechet",
	"rayleigh": "Rayleigh", "pareto": "Pareto", "paretotype2": "ParetoType2", "wishart": "Wishart", "invwishart": "InvWishart", "wishartcholesky": "WishartCholesky", "invwishartcholesky": "InvWishartCholesky", "lkjcorr": "LKJCorr",
	"lkjcorrcholesky": "LKJCorrCholesky", "multinomial": "Multinomial", "multinomiallogit": "MultinomialLogit", "orderedlogistic": "OrderedLogistic (categories 0..K, not 1..K+1)", "orderedprobit": "OrderedProbit (categories 0..K, not 1..K+1)",
	"chisquare": "ChiSquare", "invchisquare": "InvChiSquare", "scaledinvchisquare": "ScaledInvChiSquare", "expmodnormal": "ExpModNormal",
	"multistudentt": "MultiStudentT", "hypergeometric": "Hypergeometric", "skewdoubleexponential": "SkewDoubleExponential", "loglogistic": "LogLogistic",
	"betaproportion": "BetaProportion", "multinormalcholesky": "MvNormalCholesky", "multigp": "MultiGP",
	"multigpcholesky": "MultiGPCholesky", "multinormalprec": "MvNormalPrec", "multistudenttcholesky": "MultiStudentTCholesky", "dirichletmultinomial": "DirichletMultinomial", "betanegbinomial": "BetaNegBinomial",
	"gaussiandlmobs": "GaussianDLMObs", "poissonbinomial": "PoissonBinomial", "wiener": "Wiener",
	"discreterange": "DiscreteUniform",
}

// stanGLMs are Stan's GLM distributions, which gpp writes as the family
// on the linear predictor, with the two forms. Keys are lower case without
// underscores.
var stanGLMs = map[string]string{
	"bernoullilogitglm":   "bernoulli_logit_glm(x, alpha, beta) as BernoulliLogit(alpha + x * beta)",
	"poissonlogglm":       "poisson_log_glm(x, alpha, beta) as PoissonLog(alpha + x * beta)",
	"binomiallogitglm":    "binomial_logit_glm(N, x, alpha, beta) as BinomialLogit(N, alpha + x * beta)",
	"negbinomial2logglm":  "neg_binomial_2_log_glm(x, alpha, beta, phi) as NegBinomialLog(alpha + x * beta, phi)",
	"normalidglm":         "normal_id_glm(x, alpha, beta, sigma) as Normal(alpha + x * beta, sigma)",
	"categoricallogitglm": "categorical_logit_glm(x, alpha, beta) as CategoricalLogit(alpha' + x * beta), categories 0..K-1",
	"orderedlogisticglm":  "ordered_logistic_glm(x, beta, c) as OrderedLogistic(x * beta, c), categories 0..K",
}

// otherDists are distributions of PyMC (and the like) that gpp has under
// another name or writes otherwise, with what to write, for the error at a
// model ported from PyMC. Keys are lower case without underscores.
var otherDists = map[string]string{
	"genextreme":       "gpp calls it GEV(mu, sigma, xi), scipy's genextreme(c, loc, scale) with xi = −c",
	"genpareto":        "gpp calls it GeneralizedPareto(mu, sigma, xi), scipy's genpareto(c, loc, scale) with xi = c",
	"gpd":              "gpp calls it GeneralizedPareto(mu, sigma, xi)",
	"asymlaplace":      "gpp writes brms's asym_laplace(mu, sigma, quantile), density quantile (1 − quantile) / sigma · exp(−ρ(y − mu) / sigma), as SkewDoubleExponential(mu, 2 * sigma, quantile); PyMC's AsymmetricLaplace(b, kappa, mu) is gpp's AsymmetricLaplace",
	"exgaussian":       "gpp writes PyMC's ExGaussian(mu, sigma, nu) as ExpModNormal(mu, sigma, 1 / nu): nu is the exponential's mean, gpp's lambda its rate; brms's exgaussian(mu, sigma, beta), whose mu is the mean of the whole, is ExpModNormal(mu - beta, sigma, 1 / beta)",
	"inversegaussian":  "gpp calls it Wald(mu, lambda), mu the mean and lambda the shape (PyMC's Wald(mu, lam), brms's inverse.gaussian(mu, shape), scipy's invgauss(mu / lambda, scale = lambda))",
	"negativebinomial": "gpp calls it NegBinomial(mu, phi), PyMC's NegativeBinomial(mu, alpha) with phi = alpha (NegBinomialLog(eta, phi) takes eta = log mu)",
	"halfstudentt":     "give a positive param StudentT(nu, 0, sigma), which is truncated to (0, ∞): param s: positive ~ StudentT(nu, 0, sigma)",
	"censored":         "a censored observation adds its log probability with logcdf or logccdf, target += logccdf(y_cens, Weibull(k, s)) (docs/language.md §3, Censored data)",
	"truncated":        "a ~ on data truncates with T[L, U], y ~ Normal(mu, s) T[0, ], as does a replicate, output y_rep ~ Normal(mu, s) T[0, ], and a param's bounds truncate its prior, param x: real<lower=0> ~ Normal(mu, s)",
	"truncatednormal":  "a ~ on data truncates with T[L, U], y ~ Normal(mu, s) T[0, ], as does a replicate, output y_rep ~ Normal(mu, s) T[0, ], and a param's bounds truncate its prior, param x: real<lower=0> ~ Normal(mu, s)",
	"mixture":          "write a mixture's log density with logpdf and rowlogsumexp, or log_mix(theta, lp1, lp2) for two components (docs/language.md §3, Log densities per element, and mixtures)",
	"normalmixture":    "write a mixture's log density with logpdf and rowlogsumexp, or log_mix(theta, lp1, lp2) for two components (docs/language.md §3, Log densities per element, and mixtures)",

	// PyMC's AR and statsmodels' AR(1), written as a ~ on the states or with ar_filter
	"ar":  arNote,
	"ar1": arNote,

	// PyMC's random walk, written as a ~ on the steps
	"gaussianrandomwalk": "gpp has no random-walk family: give the first state its own prior and the steps one vectorised ~, x[0] ~ Normal(0, 10) then x[1:] ~ Normal(x[:T-1] + mu, sigma) (indices from 0); or non-centred, param z: real[T-1] ~ Normal(0, 1) with let x = x0 + append_row(0, cumsum(mu + sigma * z)), which gpp sample fits as well, though gpp fit's mean-field q can miss sigma in it where the data pin the states down (docs/language.md §3, Time series)",
}

// arNote is the hint at an autoregressive family (PyMC's AR), which gpp
// writes as a ~ on the states' steps or with ar_filter.
const arNote = "gpp has no autoregressive family: for AR(1) states give the first its stationary prior and the rest one vectorised ~, x[0] ~ Normal(0, sigma / sqrt(1 - phi * phi)) then x[1:] ~ Normal(phi * x[:T-1], sigma) (indices from 0); or non-centred with ar_filter, param z: real[T] ~ Normal(0, 1) and let x = ar_filter(phi, sigma * append_row(z[0] / sqrt(1 - phi * phi), z[1:])), and AR(p) is ar_filter(phi, e) with phi a vector [p]; AR errors on a regression are a ~ on the residual, let r = y - mu then r[1:] ~ Normal(phi * r[:T-1], sigma) (docs/language.md §3, Time series)"

// stanLacks are Stan distributions gpp has no family for, with what to
// write instead; said at the name under ~ and at its _lpdf, _rng and
// other functions.
var stanLacks = map[string]string{
	"lkjcov": "Stan's lkj_cov is deprecated, and gpp has no such family: put the prior on the correlation matrix and the scales apart, param Omega: corr_matrix[K] ~ LKJCorr(eta) and param tau: positive[K] ~ LogNormal(mu, sigma) (lkj_cov's lognormal scales), with Sigma = quad_form_diag(Omega, tau); or LKJCorrCholesky on a cholesky_factor_corr[K] L and diag_pre_multiply(tau, L) as the factor of Sigma",
}

// zeroInflated is the hint at a zero-inflated or hurdle family gpp lacks
// (of a BetaBinomial, a Beta, ...), which gpp writes as the two cases' log
// densities.
const zeroInflated = "gpp's zero-inflated and hurdle families are ZeroInflatedPoisson, ZeroInflatedNegBinomial, ZeroInflatedBinomial, HurdlePoisson, HurdleNegBinomial, HurdleGamma and HurdleLogNormal; for another, add each case's log density in an if on the data, if y[i] == 0 { target += log_mix(1 - psi, 0, logpdf(0, BetaBinomial(n, a, b))) } else { ... } (docs/language.md §3, Conditions)"

// zeroInflatedNames are the spellings of PyMC (ZeroInflatedNegativeBinomial)
// and brms (zero_inflated_poisson, hurdle_negbinomial) of gpp's
// zero-inflated and hurdle families, with what to say; keys as stanKey's.
// gpp's names and psi are PyMC's, brms's zi and hu are 1 − psi.
var zeroInflatedNames = map[string]string{
	"zeroinflatednegativebinomial": "gpp calls it ZeroInflatedNegBinomial(psi, mu, phi) with PyMC's psi; its alpha is phi (brms's zi is 1 − psi)",
	"hurdlenegativebinomial":       "gpp calls it HurdleNegBinomial(psi, mu, phi) with PyMC's psi; its alpha is phi (brms's hu is 1 − psi)",
	"zip":                          "gpp calls it ZeroInflatedPoisson(psi, lambda), psi the probability of the Poisson process (PyMC's psi; glmmTMB's zi is 1 − psi)",
	"zinb":                         "gpp calls it ZeroInflatedNegBinomial(psi, mu, phi), psi the probability of the NegBinomial process (PyMC's psi; glmmTMB's zi is 1 − psi)",
	"zeroinflatedpoisson":          "gpp calls it ZeroInflatedPoisson(psi, lambda), psi the probability of the Poisson process (PyMC's psi); brms's zi is 1 − psi, so zero_inflated_poisson with zi is ZeroInflatedPoisson(1 - zi, lambda)",
	"zeroinflatednegbinomial":      "gpp calls it ZeroInflatedNegBinomial(psi, mu, phi), psi the probability of the NegBinomial process (PyMC's psi); brms's zi is 1 − psi, so zero_inflated_negbinomial with zi is ZeroInflatedNegBinomial(1 - zi, mu, phi)",
	"hurdlepoisson":                "gpp calls it HurdlePoisson(psi, lambda), psi = P(y > 0) (PyMC's psi); brms's hu is 1 − psi, so hurdle_poisson with hu is HurdlePoisson(1 - hu, lambda)",
	"hurdlenegbinomial":            "gpp calls it HurdleNegBinomial(psi, mu, phi), psi = P(y > 0) (PyMC's psi); brms's hu is 1 − psi, so hurdle_negbinomial with hu is HurdleNegBinomial(1 - hu, mu, phi)",
	"zeroinflatedbinomial":         "gpp calls it ZeroInflatedBinomial(psi, n, p), psi the probability of the Binomial process (PyMC's psi); brms's zi is 1 − psi, so zero_inflated_binomial with zi is ZeroInflatedBinomial(1 - zi, n, p)",
	"hurdlegamma":                  "gpp calls it HurdleGamma(psi, alpha, beta), psi = P(y > 0) (PyMC's psi), shape alpha and rate beta; brms's hu is 1 − psi and its mean mu the rate shape / mu, so hurdle_gamma with hu is HurdleGamma(1 - hu, shape, shape / mu)",
	"hurdlelognormal":              "gpp calls it HurdleLogNormal(psi, mu, sigma), psi = P(y > 0) (PyMC's psi); brms's hu is 1 − psi, so hurdle_lognormal with hu is HurdleLogNormal(1 - hu, mu, sigma)",
}

// zeroInflatedHint returns what to say of a zero-inflated or hurdle name
// (key as stanKey's), or "" for another name.
func zeroInflatedHint(key string) string {
	if h, ok := zeroInflatedNames[key]; ok {
		return h
	}
	if strings.HasPrefix(key, "zeroinflated") || strings.HasPrefix(key, "hurdle") {
		return zeroInflated
	}
	return ""
}

// StanHint returns what the checker says of a name of Stan's (or PyMC's)
// that gpp writes otherwise, a distribution (neg_binomial) or a function
// (std_normal_lpdf, fabs), or "": gpp help says it for a topic it does not
// know, rather than suggest a name that merely shares letters.
func StanHint(name string) string {
	if h := stanDistHint(name); h != "" {
		return h
	}
	return stanHint(name, "x")
}

// stanDistHint returns what to say of a Stan (or PyMC) distribution name
// unknown to gpp, or "".
func stanDistHint(name string) string {
	key := stanKey(name)
	if g, ok := stanGLMs[key]; ok {
		return "gpp writes Stan's " + g
	}
	if h, ok := otherDists[key]; ok {
		return h
	}
	if h, ok := stanLacks[key]; ok {
		return h
	}
	if h := zeroInflatedHint(key); h != "" {
		return h
	}
	if r, ok := stanReparams[key]; ok {
		return "gpp writes Stan's " + r.stanCall(name, "") + " as " + r.gpp + r.because()
	}
	g, ok := stanDists[key]
	switch {
	case !ok:
		return bugsHint(name)
	case g == "":
		return "gpp has no such distribution (docs/language.md lists those it has); target += can add any log density written out"
	}
	return "gpp calls it " + g
}

// stanReparam is a Stan distribution that gpp writes as one of its own
// with other arguments, or with its value coded otherwise: never a bare
// rename, which would give a silently different model.
type stanReparam struct {
	args string // Stan's argument names, "alpha, beta"
	gpp  string // the gpp call with the same density, in those names
	note string // why, or ""
}

// stanReparams are the Stan distributions whose gpp equivalent is not the
// same call under gpp's name. Keys are lower case without underscores.
var stanReparams = map[string]stanReparam{
	"stdnormal": {gpp: "Normal(0, 1)"},
	"negbinomial": {args: "alpha, beta", gpp: "NegBinomial(alpha / beta, alpha)",
		note: "Stan's neg_binomial is the gamma–Poisson with shape alpha and rate beta, mean alpha / beta; gpp's NegBinomial(mu, phi) is Stan's neg_binomial_2(mu, phi)"},
	"categorical":      {args: "theta", gpp: "Categorical(theta)", note: "gpp's categories are 0..K−1, Stan's 1..K"},
	"categoricallogit": {args: "beta", gpp: "CategoricalLogit(beta)", note: "gpp's categories are 0..K−1, Stan's 1..K"},
}

// stanCall is Stan's call of the distribution named base, with its
// density suffix (neg_binomial_lpmf(y | alpha, beta)) or not
// (neg_binomial(alpha, beta)).
func (r stanReparam) stanCall(base, suffix string) string {
	switch {
	case suffix == "" || suffix == "_rng":
		return base + suffix + "(" + r.args + ")"
	case r.args == "":
		return base + suffix + "(y)"
	}
	return base + suffix + "(y | " + r.args + ")"
}

func (r stanReparam) because() string {
	if r.note == "" {
		return ""
	}
	return " (" + r.note + ")"
}

// densityForm is how gpp writes a density of stanReparamHint.
const densityForm = "logpdf(y, %[1]s), or y ~ %[1]s in the log density"

// stanReparamHint returns how gpp writes the density, CDF or draw of a
// distribution of stanReparams (neg_binomial_lpmf, std_normal_rng), or "".
func stanReparamHint(name string) string {
	for _, c := range []struct{ suffix, form string }{
		{"_lpdf", densityForm}, {"_lupdf", densityForm}, {"_lpmf", densityForm}, {"_lupmf", densityForm},
		{"_lcdf", "logcdf(y, %s)"}, {"_lccdf", "logccdf(y, %s)"}, {"_cdf", "exp(logcdf(y, %s))"}, {"_rng", "output y_rep ~ %s"},
	} {
		base, ok := strings.CutSuffix(name, c.suffix)
		if !ok {
			continue
		}
		r, ok := stanReparams[stanKey(base)]
		if !ok {
			return ""
		}
		if strings.Contains(c.suffix, "cdf") && !slices.Contains(logCDFFamilies(), r.gpp[:strings.Index(r.gpp, "(")]) {
			return "" // Stan has no categorical_lcdf either
		}
		if c.suffix == "_rng" {
			return "gpp draws from it in an output: " + fmt.Sprintf(c.form, r.gpp) + r.because()
		}
		return "gpp writes Stan's " + r.stanCall(base, c.suffix) + " as " + fmt.Sprintf(c.form, r.gpp) + r.because()
	}
	return ""
}

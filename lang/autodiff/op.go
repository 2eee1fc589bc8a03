package autodiff

// Op is the operation of a node. The set is closed: every op has a forward
// rule, a reverse rule and a finite-difference test.
type Op uint8

// Ops.
const (
	opInvalid Op = iota // a node built from an erroneous expression

	OpInput // a slice of the latent vector
	OpConst // a constant or data tensor

	// Elementwise with broadcasting.
	OpAdd
	OpSub
	OpMul // elementwise product
	OpDiv
	OpPow
	OpFmin      // the smaller operand (x at a tie; a NaN operand yields to the other)
	OpFmax      // the larger operand (likewise)
	OpLbeta     // log B(x, y), x, y > 0
	OpLogAddExp // log(exp(x) + exp(y))
	// Stan's binary scalar functions, one scalar function per element
	// (elemfns.go).
	OpLogDiffExp          // log(exp(x) - exp(y)), x >= y
	OpHypot               // sqrt(x² + y²)
	OpAtan2               // math.Atan2(x, y), the angle of the point (y, x) (Stan's atan2(y, x) names them so)
	OpLmultiply           // x log y, 0 at x = y = 0
	OpBinaryLogLoss       // -log p for y != 0, -log(1 - p) for y = 0 (y the first operand)
	OpLogInvLogitDiff     // log(inv_logit(x) - inv_logit(y)), x > y
	OpLogFallingFactorial // lgamma(x + 1) - lgamma(x - n + 1), x - n + 1 > 0, n > -1
	// Stan's special functions of two arguments (elemfns.go, specialfns.go).
	OpGammaP             // P(a, z), the regularised lower incomplete gamma function, a > 0, z >= 0
	OpGammaQ             // Q(a, z) = 1 - P(a, z), computed as itself
	OpLogBesselI         // log I_v(z), v >= -1, z >= 0
	OpBesselI            // I_v(z), v an int (data)
	OpBesselJ            // J_v(x), v an int (data)
	OpBesselY            // Y_v(x), v an int (data), x > 0
	OpBesselK            // K_v(z), v an int (data), z > 0
	OpOwensT             // Owen's T(h, a)
	OpLogRisingFactorial // lgamma(x + n) - lgamma(x), x > 0, x + n > 0
	OpRisingFactorial    // x (x + 1) ... (x + n - 1), n an int >= 0 (data)
	OpFallingFactorial   // x (x - 1) ... (x - n + 1), n an int >= 0 (data)
	OpFmod               // x - trunc(x/y) y, y != 0
	OpLdexp              // x 2^n, n an int (data)
	OpLmgamma            // log Γ_k(x), k an int (data), x > (k - 1)/2

	// Elementwise unary.
	OpNeg
	OpExp
	OpLog
	OpLog1p
	OpExpm1
	OpLog1mexp // log(1 - exp(-x)), x > 0
	OpSoftplus // log(1 + exp(x))
	OpSqrt
	OpSquare
	OpAbs
	OpLgamma // log|Γ(x)|
	OpDigamma
	OpInvLogit   // 1 / (1 + exp(-x))
	OpLog1m      // log(1 - x), x <= 1
	OpInvCloglog // 1 - exp(-exp(x))
	OpPhi        // the standard normal CDF
	OpPhiApprox  // inv_logit(0.07056 x³ + 1.5976 x)
	OpInvPhi     // the standard normal quantile, 0 <= x <= 1
	OpTanh
	OpSin
	OpCos
	OpAtan
	// Stan's unary scalar functions, one scalar function per element
	// (elemfns.go).
	OpTan
	OpAsin
	OpAcos
	OpSinh
	OpCosh
	OpAsinh
	OpAcosh
	OpAtanh
	OpErf
	OpErfc
	OpExp2
	OpLog2
	OpLog10
	OpCbrt
	OpTrigamma
	OpTgamma // Γ(x)
	// rounding (on params outputs only: the derivative is 0 where it exists)
	OpFloor
	OpCeil
	OpRound // half away from zero
	OpTrunc
	// Lambert's W (elemfns.go)
	OpLambertW0  // W₀(x), x >= -1/e
	OpLambertWm1 // W₋₁(x), -1/e <= x < 0

	// Reductions.
	OpSum          // to a scalar
	OpProd         // to a scalar: the product of the elements
	OpMean         // to a scalar
	OpLogSumExp    // to a scalar
	OpMax          // to a scalar: the largest element (its adjoint goes to the first such)
	OpMin          // to a scalar: the smallest element (likewise)
	OpRowLogSumExp // [n, m] → [n], log Σ_j exp(x_ij) per row
	OpRowSum       // [n, m] → [n]
	OpColSum       // [n, m] → [1, m]
	OpCumSum       // running sums of a vector, or along each row of a matrix: z_i = x_0 + ... + x_i
	OpRowMax       // [n, m] → [n], the largest element of each row (its adjoint goes to the first such)
	OpRowMin       // [n, m] → [n], the smallest element of each row (likewise)
	OpRowProd      // [n, m] → [n], the product of each row's elements
	// the recursive filter of each column of e [T] or [T, K] by phi (a
	// scalar or [p]): h_t = e_t + Σ_k phi_{k−1} h_{t−k}, h_{<0} = 0
	OpARFilter
	// the time-varying filter of each column of e [T] or [T, K] by a [T]
	// or [T, K]: h_0 = e_0, h_t = a_t h_{t−1} + e_t
	OpTVFilter
	// the renewal equation's series from R [T], w [S] and I0 [S]:
	// I_t = R_t Σ_{s=1..S} w_{s−1} I_{t−s}, I_{<0} from I0
	OpRenewal
	// the log marginal likelihood of a hidden Markov model (Stan's
	// hmm_marginal) from log_omega [N, K], Gamma [K, K] and rho [K]
	OpHMMMarginal
	// the posterior probabilities of the states, [N, K], for the same
	// arguments (Stan's hmm_hidden_state_prob); no derivative: outputs only
	OpHMMStateProb
	// the most likely state path, [N] (ints 0..K−1 as reals), for the same
	// arguments (hmmlearn's decode, depmixS4's viterbi); no derivative:
	// outputs only
	OpHMMViterbi
	// the solution of an ODE y' = f(t, y, args) at given times, [T, D],
	// from y0 and the args (Stan's ode_rk45 and ode_bdf; ode.go,
	// odestiff.go)
	OpODE
	// the root y* [D] of an algebraic system f(y, args) = 0 from a guess
	// (Stan's solve_newton and solve_powell; algebra.go)
	OpAlgebraSolve
	// ∫_a^b f(x, xc, args) dx, a scalar, from the finite bounds and the
	// args (Stan's integrate_1d; integrate.go)
	OpIntegrate

	// Linear algebra.
	OpMatMul
	OpTranspose
	OpOuter
	OpRowScatter // [n, k] → [k, k]: the sum of the rows' outer products, X'X
	OpDiagMatrix // vector → diagonal matrix
	OpDiagVector // square matrix → its diagonal
	OpTrace
	OpChol        // lower Cholesky factor of sym(A) = (A + Aᵀ)/2
	OpLogDetChol  // log det(L Lᵀ) from a Cholesky factor L
	OpCholSolve   // (L Lᵀ)⁻¹ B from a Cholesky factor L
	OpTriSolve    // L⁻¹ B for a lower triangular L (its upper triangle ignored)
	OpInverse     // A⁻¹ of a general square matrix, by LU with partial pivoting
	OpDeterminant // det A, by LU
	OpLogAbsDet   // log |det A|, by LU
	// exp(A) of a square matrix, by scaling and squaring with a [13/13]
	// Padé approximant (matfns.go)
	OpMatrixExp
	OpSort // the elements in ascending order (descending when i0 is 1); the permutation in scratch
	// the 0-based indices that sort a vector (i0 0 ascending, 1
	// descending), or the rank of element i1 (i0 2): ints with no
	// derivative, outputs only on params
	OpSortIndex
	// the type-7 sample quantile of vector x at p (a scalar or a vector);
	// no derivative, outputs only on params (quantile.go)
	OpQuantile
	OpEigvalsSym  // the eigenvalues of sym(A), ascending (a vector)
	OpEigvecsSym  // the eigenvectors of sym(A), as columns in the eigenvalues' order
	OpSingularVal // the singular values of A [m, n], min(m, n) of them, descending
	// A x for a sparse A in compressed sparse row form: w and x the
	// operands, idx the non-zeros' columns, idy the rows' starts (sparse.go)
	OpCSRMatVec
	// the piecewise linear interpolation of the table (xp, fp) at each
	// element of x (numpy.interp): operands x, xp (data, increasing), fp
	// (interp.go)
	OpInterp
	OpQR          // a factor of the QR decomposition of A (i0: QRThinQ, QRThinR, QRFatQ, QRFatR; qr.go)
	OpSVDVec      // the left (i0 0) or right (i0 1) singular vectors of A, thin, as columns
	OpChol2Inv    // (L Lᵀ)⁻¹ from a Cholesky factor L
	OpGaussRowsSS // Σ_i log N(y_i | μ, C) from a scatter matrix
	OpGaussRowsLR // Σ_i log N(y_i | 0, W W' + s I) from a scatter matrix, k < d

	// Indexing.
	OpSlice  // a contiguous range: x[i], A[i, j], x[lo:hi], A[i], A[lo:hi]
	OpCol    // A[:, j]
	OpGather // x[idx] or A[idx] for an int vector idx
	// x[i] or A[i] for an int scalar or vector node i, picked at each
	// evaluation; no derivative (outputs only, gatherat.go)
	OpGatherAt

	// Construction.
	OpStack // n scalars as a vector: a vector literal [x0, ..., xn-1]
	// the rows of x, then those of y (append_row), or when i0 is 1 the
	// columns of x, then those of y (append_col); a vector is a column
	OpConcat
	// x kept strictly inside (lo, hi): a value on or past an end becomes the
	// float next to it inside; the adjoint passes through unchanged
	OpInside
	// an ordered[K] param's values from its coordinates: x_0 = u_0,
	// x_k = x_{k−1} + exp(u_k)
	OpOrdered
	// a cholesky_factor_corr[K] param's K×K factor from its K(K−1)/2
	// coordinates (dist.CholCorrValues)
	OpCholCorr
	// the log Jacobian of OpCholCorr's map, a scalar; i0 is K; i1 is 1
	// for that of the map to L L' (a corr_matrix[K] param's)
	OpCholCorrJac
	// a corr_matrix[K] param's values L L' from its factor L (an
	// OpCholCorr node): symmetric, unit diagonal
	OpCorrFromChol
	// a cholesky_factor_cov[K] param's K×K factor from its K(K+1)/2
	// coordinates (dist.CholCovValues)
	OpCholCov
	// the log Jacobian of OpCholCov's map, a scalar; i0 is K; i1 is 1
	// for that of the map to L L' (a cov_matrix[K] param's)
	OpCholCovJac
	// a cov_matrix[K] param's values L L' from its factor L (an OpCholCov
	// node): exactly symmetric
	OpCovFromChol
	// a sum_to_zero_vector[K] param's values from its K−1 coordinates by
	// the isometric basis (dist.SumToZeroValues): linear, unit Jacobian;
	// i0 is 1 for a sum_to_zero_matrix[M, N]'s from its (M−1)×(N−1)
	// coordinates (dist.SumToZeroMatrixValues)
	OpSumToZero

	// Densities.
	OpDensity // Σ log p(value | args), elementwise with broadcasting
	OpLogPDF  // log p(value | args) per element of the broadcast shape
	OpRand    // a draw from the distribution per element, or a category per row (outputs only; no derivative)
	// Σ log p(y_n) of categories y (data) given probabilities, or log-odds
	// when i0 is 1, shared [k] or per observation [n, k]; i1 is 1 for the
	// terms per observation (logpdf), a vector like y
	OpCategorical
	// Σ log P(y_n) of ordinal categories y (data) 0..K given eta (scalar or
	// per observation) and K shared cutpoints: logistic, or probit when i0
	// is 1; i1 is 1 for the terms per observation (logpdf)
	OpOrderedLogistic
	// log LKJCorrCholesky(L | eta) of a K×K factor L and a scalar eta; i0
	// is 1 for log LKJCorr(L L' | eta)
	OpLKJCorrChol
	// Σ_rows log N(y_r | mu_r, L L') given the lower Cholesky factor L,
	// through a triangular solve (mvchol.go)
	OpMvNormalChol
	// log Wishart(X | nu, S) and its inverse and Cholesky forms, from
	// lower factors (wishart.go); i0 holds the form's flags
	OpWishart
	// Σ_rows log Multinomial(y_r | theta_r) of count rows y (data, [k] or
	// [n, k]) given probabilities, or log-odds when i0 is 1, shared [k] or
	// per row [n, k] (multinomial.go); i1 is 1 for the terms per row
	// (logpdf), a vector [n]
	OpMultinomial
	// Σ log f(y_n | theta_n) of counts of successes y (data, a scalar or
	// [n]) in independent trials with probabilities theta, shared [N] or
	// per count [n, N] (Stan's poisson_binomial; poissonbinomial.go): f
	// the mass when i0 is 1, the CDF when 0, the survival function when
	// 2; i1 is 1 for the terms per count (logpdf, logcdf, logccdf)
	OpPoissonBinomial

	// Fused.
	OpRowSumProd // rowsum(x .* y .* w) for matrices x, y (gathered in place) and a row w

	// Step functions: 1 where true, 0 where false, elementwise with
	// broadcasting, forward only (outputs); their derivative is zero
	// wherever it exists, so their operands get no adjoint from them.
	OpLt
	OpLe
	OpGt
	OpGe
	OpEq
	OpNe
	OpAnd // both operands non-zero
	OpOr  // either operand non-zero
	OpNot // unary: the operand is 0

	numOps
)

var opNames = [numOps]string{
	opInvalid: "invalid", OpInput: "input", OpConst: "const",
	OpAdd: "add", OpSub: "sub", OpMul: "mul", OpDiv: "div", OpPow: "pow",
	OpFmin: "fmin", OpFmax: "fmax", OpLbeta: "lbeta", OpLogAddExp: "log_sum_exp",
	OpLogDiffExp: "log_diff_exp", OpHypot: "hypot", OpAtan2: "atan2", OpLmultiply: "lmultiply", OpBinaryLogLoss: "binary_log_loss", OpLogInvLogitDiff: "log_inv_logit_diff", OpLogFallingFactorial: "log_falling_factorial",
	OpGammaP: "gamma_p", OpGammaQ: "gamma_q", OpLogBesselI: "log_modified_bessel_first_kind", OpBesselI: "modified_bessel_first_kind",
	OpBesselJ: "bessel_first_kind", OpBesselY: "bessel_second_kind", OpBesselK: "modified_bessel_second_kind", OpOwensT: "owens_t", OpLogRisingFactorial: "log_rising_factorial",
	OpRisingFactorial: "rising_factorial", OpFallingFactorial: "falling_factorial",
	OpFmod: "fmod", OpLdexp: "ldexp", OpLmgamma: "lmgamma",
	OpNeg: "neg", OpExp: "exp", OpLog: "log", OpLog1p: "log1p", OpExpm1: "expm1",
	OpLog1mexp: "log1mexp", OpSoftplus: "softplus", OpSqrt: "sqrt", OpSquare: "square",
	OpAbs: "abs", OpLgamma: "lgamma", OpDigamma: "digamma", OpInvLogit: "inv_logit",
	OpLog1m: "log1m", OpInvCloglog: "inv_cloglog", OpPhi: "Phi", OpPhiApprox: "Phi_approx", OpInvPhi: "inv_Phi",
	OpTanh: "tanh", OpSin: "sin", OpCos: "cos", OpAtan: "atan",
	OpTan: "tan", OpAsin: "asin", OpAcos: "acos", OpSinh: "sinh", OpCosh: "cosh", OpAsinh: "asinh", OpAcosh: "acosh",
	OpAtanh: "atanh", OpErf: "erf", OpErfc: "erfc", OpExp2: "exp2", OpLog2: "log2", OpLog10: "log10", OpCbrt: "cbrt",
	OpTrigamma: "trigamma", OpTgamma: "tgamma", OpFloor: "floor", OpCeil: "ceil", OpRound: "round", OpTrunc: "trunc",
	OpLambertW0: "lambert_w0", OpLambertWm1: "lambert_wm1",
	OpSum: "sum", OpProd: "prod", OpMean: "mean", OpLogSumExp: "logsumexp", OpMax: "max", OpMin: "min", OpRowLogSumExp: "rowlogsumexp",
	OpRowSum: "rowsum", OpColSum: "colsum", OpCumSum: "cumsum", OpRowMax: "rowmax", OpRowMin: "rowmin", OpRowProd: "rowprod", OpARFilter: "ar_filter", OpTVFilter: "tv_filter", OpRenewal: "renewal", OpHMMMarginal: "hmm_marginal", OpHMMStateProb: "hmm_hidden_state_prob", OpHMMViterbi: "hmm_viterbi", OpODE: "ode_rk45", OpAlgebraSolve: "solve_newton", OpIntegrate: "integrate_1d",
	OpMatMul: "matmul", OpTranspose: "transpose", OpOuter: "outer", OpRowScatter: "outer", OpDiagMatrix: "diag",
	OpDiagVector: "diag", OpTrace: "trace", OpChol: "chol", OpLogDetChol: "logdet",
	OpCholSolve: "solve", OpTriSolve: "mdivide_left_tri_low", OpInverse: "inverse", OpDeterminant: "determinant", OpLogAbsDet: "log_determinant", OpMatrixExp: "matrix_exp", OpSort: "sort", OpSortIndex: "sort_indices", OpQuantile: "quantile", OpEigvalsSym: "eigenvalues_sym", OpEigvecsSym: "eigenvectors_sym", OpSingularVal: "singular_values", OpCSRMatVec: "csr_matrix_times_vector", OpInterp: "interp", OpQR: "qr_thin_Q", OpSVDVec: "svd_U", OpChol2Inv: "chol2inv", OpGaussRowsSS: "gauss_rows_ss", OpGaussRowsLR: "gauss_rows_lr",
	OpSlice: "index", OpCol: "index", OpGather: "gather", OpGatherAt: "index", OpStack: "vector", OpConcat: "append_row", OpInside: "inside", OpOrdered: "ordered", OpCholCorr: "cholesky_factor_corr", OpCholCorrJac: "cholesky_factor_corr_jacobian", OpCorrFromChol: "corr_matrix", OpCholCov: "cholesky_factor_cov", OpCholCovJac: "cholesky_factor_cov_jacobian", OpCovFromChol: "cov_matrix", OpSumToZero: "sum_to_zero_vector", OpDensity: "density", OpLogPDF: "logpdf", OpRand: "rand",
	OpCategorical: "categorical", OpOrderedLogistic: "ordered_logistic", OpLKJCorrChol: "LKJCorrCholesky", OpMvNormalChol: "MvNormalCholesky", OpWishart: "Wishart", OpMultinomial: "multinomial", OpPoissonBinomial: "PoissonBinomial", OpRowSumProd: "rowsum",
	OpLt: "<", OpLe: "<=", OpGt: ">", OpGe: ">=", OpEq: "==", OpNe: "!=", OpAnd: "&&", OpOr: "||", OpNot: "!",
}

func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return "?"
}

func (o Op) isBinary() bool { return o >= OpAdd && o <= lastBinary }
func (o Op) isUnary() bool  { return o >= OpNeg && o <= OpLambertWm1 }

// lastBinary is the last elementwise op of two operands.
const lastBinary = OpLmgamma

// isStep reports a comparison or logical op (OpLt through OpNot);
// isStepBinary those of two operands (OpLt through OpOr).
func (o Op) isStep() bool       { return o >= OpLt && o <= OpNot }
func (o Op) isStepBinary() bool { return o >= OpLt && o <= OpOr }

// Package dist holds gpp's probability distributions: log densities with
// analytic partials, their supports, and the gamma sampler with its
// reparameterisation gradients.
//
// Place in the pipeline: beneath everything. The stdlib table and the checker
// read supports from here, the autodiff tape evaluates the kernels, and the
// SGVB engine draws from the samplers. dist imports only the standard library
// and gonum.
package dist

import (
	"math"
	"math/rand/v2"
)

// Support is the set of values a distribution (or a declared variable, or an
// inferred expression) can take.
type Support int

// Supports. The continuous ones are ordered by inclusion where that makes
// sense; use Contains to compare.
const (
	Real         Support = iota + 1 // (-inf, inf)
	Positive                        // (0, inf)
	NonNegative                     // [0, inf)
	Unit                            // (0, 1)
	Interval                        // (lo, hi), bounds given by the distribution's arguments
	Simplex                         // vectors with non-negative entries summing to 1
	Count                           // integers >= 0
	Binary                          // {0, 1}
	BoundedCount                    // integers 0..n, n given by an argument
	// Ordered is a vector of strictly increasing reals (a declared
	// ordered[K]); as a set of scalars it is Real.
	Ordered
	// CholCorr is the Cholesky factor of a correlation matrix (a declared
	// cholesky_factor_corr[K]): lower triangular with a positive diagonal
	// and rows of unit norm. Only LKJCorrCholesky has it; no scalar
	// support contains it.
	CholCorr
	// PositiveOrdered is a vector of strictly increasing positive reals (a
	// declared positive_ordered[K]); as a set of scalars it is Positive.
	PositiveOrdered
	// CorrMatrix is a correlation matrix (a declared corr_matrix[K]):
	// symmetric positive definite with a unit diagonal, made as L L' from
	// a cholesky_factor_corr[K] factor L. Only LKJCorr has it; no scalar
	// support contains it.
	CorrMatrix
	// CholCov is the Cholesky factor of a covariance matrix (a declared
	// cholesky_factor_cov[K]): lower triangular with a positive diagonal,
	// made from K(K+1)/2 unconstrained coordinates (CholCovValues). No
	// distribution has it; no scalar support contains it.
	CholCov
	// CovMatrix is a covariance matrix (a declared cov_matrix[K]):
	// symmetric positive definite, made as L L' from a
	// cholesky_factor_cov[K] factor L of the same coordinates
	// (CovMatrixValues). No distribution has it; no scalar support
	// contains it.
	CovMatrix
	// SumToZero is a vector of reals summing to zero (a declared
	// sum_to_zero_vector[K]), made from K−1 unconstrained coordinates
	// (SumToZeroValues); as a set of scalars it is Real.
	SumToZero
	// SumToZeroMatrix is an M×N matrix of reals whose rows and columns
	// sum to zero (a declared sum_to_zero_matrix[M, N]), made from
	// (M−1)(N−1) unconstrained coordinates (SumToZeroMatrixValues); as a
	// set of scalars it is Real.
	SumToZeroMatrix
	// Integer is the integers of either sign (Skellam's differences of
	// counts, DiscreteUniform's range); as a set of scalars it is Real.
	Integer
)

var supportText = [...]string{
	Real: "real", Positive: "positive", NonNegative: "non-negative", Unit: "unit",
	Interval: "interval", Simplex: "simplex", Count: "count", Binary: "binary",
	BoundedCount: "bounded count", Ordered: "ordered", CholCorr: "cholesky_factor_corr",
	PositiveOrdered: "positive_ordered", CorrMatrix: "corr_matrix", CholCov: "cholesky_factor_cov",
	CovMatrix: "cov_matrix", SumToZero: "sum_to_zero_vector", SumToZeroMatrix: "sum_to_zero_matrix",
	Integer: "integer",
}

// IsCorr reports whether s is CholCorr or CorrMatrix: a K×K matrix
// valued param made from K(K−1)/2 unconstrained coordinates.
func (s Support) IsCorr() bool { return s == CholCorr || s == CorrMatrix }

// IsOrdered reports an ordered or positive_ordered support: increasing
// vectors, fitted as parts (a first element and increments).
func (s Support) IsOrdered() bool { return s == Ordered || s == PositiveOrdered }

// IsMatrix reports whether s is CholCorr, CorrMatrix, CholCov or
// CovMatrix: a K×K matrix valued param made from MatrixSize(K)
// unconstrained coordinates, on which its variational factor is normal.
func (s Support) IsMatrix() bool { return s.IsCorr() || s.IsCov() }

// IsCoords reports whether s is IsMatrix or SumToZero: a param whose
// values are a transform of unconstrained coordinates of another shape,
// on which its variational factor is normal (its natural scale).
func (s Support) IsCoords() bool { return s.IsMatrix() || s.IsSumToZero() }

// IsSumToZero reports whether s is SumToZero or SumToZeroMatrix.
func (s Support) IsSumToZero() bool { return s == SumToZero || s == SumToZeroMatrix }

// IsCov reports whether s is CholCov or CovMatrix, made from K(K+1)/2
// unconstrained coordinates.
func (s Support) IsCov() bool { return s == CholCov || s == CovMatrix }

// MatrixSize returns the number of unconstrained coordinates of a K×K
// param of support s (IsMatrix): K(K+1)/2 for CholCov and CovMatrix,
// K(K−1)/2 for the correlation supports; and K−1 for a SumToZero vector
// of K.
func (s Support) MatrixSize(k int) int {
	if s == SumToZero {
		return k - 1
	}
	if s.IsCov() {
		return CholCovSize(k)
	}
	return CholCorrSize(k)
}

// MatrixValues writes the K×K value (row-major) of a param of support s
// (IsMatrix) from its coordinates y into dst, or the K values of a
// SumToZero vector; scratch (len K·K) holds the factor of a CorrMatrix or
// a CovMatrix and is unused otherwise.
func MatrixValues(s Support, dst, scratch, y []float64, k int) {
	switch s {
	case SumToZero:
		SumToZeroValues(dst, y)
	case CholCov:
		CholCovValues(dst, y, k)
	case CovMatrix:
		CovMatrixValues(dst, scratch, y, k)
	case CorrMatrix:
		CorrMatrixValues(dst, scratch, y, k)
	default:
		CholCorrValues(dst, y, k)
	}
}

func (s Support) String() string {
	if s > 0 && int(s) < len(supportText) {
		return supportText[s]
	}
	return "?"
}

// Discrete reports whether the support is a set of integers.
func (s Support) Discrete() bool {
	return s == Count || s == Binary || s == BoundedCount || s == Integer
}

// Admits reports whether the value v lies in s, and what s needs of a value
// ("> 0", "0 or 1", ...) for messages. Supports whose bounds are arguments
// (Interval, BoundedCount) and Simplex and Ordered, properties of rows,
// admit every value here.
func (s Support) Admits(v float64) (need string, ok bool) {
	finite := !math.IsNaN(v) && !math.IsInf(v, 0)
	switch s {
	case Real:
		return "finite", finite
	case Positive:
		return "> 0", finite && v > 0
	case NonNegative:
		return ">= 0", finite && v >= 0
	case Unit:
		return "in (0, 1)", v > 0 && v < 1
	case Count:
		return "a non-negative integer", finite && v >= 0 && v == math.Trunc(v)
	case Binary:
		return "0 or 1", v == 0 || v == 1
	case Integer:
		return "an integer", finite && v == math.Trunc(v)
	}
	return "", true
}

// Contains reports whether every value in inner is in s. Interval and
// BoundedCount depend on arguments and contain only themselves here; the
// checker treats them separately.
func (s Support) Contains(inner Support) bool {
	if s == inner {
		return true
	}
	switch s {
	case Real:
		return inner != Simplex && inner != Interval && !inner.IsMatrix() // every scalar support is real, and ordered and sum-to-zero elements
	case NonNegative:
		return inner == Positive || inner == Unit || inner == Count || inner == Binary || inner == BoundedCount || inner == PositiveOrdered
	case Positive:
		return inner == Unit || inner == PositiveOrdered
	case Count:
		return inner == Binary || inner == BoundedCount
	case Integer:
		return inner == Count || inner == Binary || inner == BoundedCount
	}
	return false
}

// Param describes one argument of a distribution.
type Param struct {
	Name    string
	Support Support // values the argument must take
}

// Kernel evaluates a scalar log density (or log mass) at x with parameters p,
// writing the partial derivative with respect to p[i] into dp[i] and returning
// the log density and its derivative with respect to x (0 for discrete
// distributions). It must not allocate. Out-of-support x gives -Inf; invalid
// parameters give NaN, which the caller reports with a position.
//
// The kernels of Univariates also accept a nil dp (value and dx only). With
// -Inf they set every partial to 0; with NaN, every partial to NaN. The
// partial with respect to an integer argument (Binomial's n) is 0.
type Kernel func(x float64, p, dp []float64) (lp, dx float64)

// Univariate is a scalar distribution family, evaluated elementwise with
// broadcasting over its value and arguments.
type Univariate struct {
	Name    string
	Params  []Param
	Support Support // of the value
	// LowerArg, when positive, says that the support starts at parameter
	// LowerArg − 1 rather than where Support does (Pareto's y_min,
	// ParetoType2's mu): the density is 0 below it, which a prior of the
	// family on a param must respect.
	LowerArg int
	// UpperArg, when positive, says that the support ends at parameter
	// UpperArg − 1 (DiscreteUniform's upper), where Support says nothing.
	UpperArg int
	// EndsOf, when set, gives the support's ends from all the arguments,
	// where they move with several (GEV's μ − σ/ξ, below or above by ξ's
	// sign); Ends returns it in place of Support's and LowerArg's.
	EndsOf func(p []float64) (lo, hi float64)
	// Least, when positive, is the least value of a Count family whose
	// mass below it is 0 (Geometric's 1, its trials until a success): the
	// support's lower end (Ends), and observed data below it is an error
	// when the model compiles with its data, as a negative count is.
	Least float64
	// ZeroMass marks a family of non-negative values with a point mass at
	// 0 beside a density above it (HurdleGamma: a dry day's exact 0): no
	// continuous value stands for a draw of it, so a missing value it
	// observes is left out of the likelihood rather than fitted as a
	// positive latent, which would count as a draw above 0 every time.
	ZeroMass bool
	Doc      string // one line, for gpp help and docs/language.md
	Kernel   Kernel
	// Rand draws a value for the parameters p (posterior predictive
	// outputs: output y_rep ~ Poisson(rate)).
	Rand func(p []float64, rng *rand.Rand) float64
	// Prepared, when set, is Kernel split into a parameter-only part and a
	// per-value part, so that a density whose arguments repeat along an
	// axis (W ~ Gamma(a, c) with a and c per row) computes lgamma, digamma
	// and logs once per distinct argument set. It returns exactly what
	// Kernel returns.
	Prepared Prepared
	// Hoisted, when set, is Kernel with the work that depends on some
	// arguments alone split off (a Normal's log σ), for a density whose
	// other arguments change from element to element: where the hoisted
	// arguments are one value for every element, the tape prepares them once
	// per evaluation. It returns exactly what Kernel returns. A family
	// derived from this one with another Kernel (LogScale, a log CDF) must
	// not keep it.
	Hoisted Hoisted
	// DataHoisted, when set, is Kernel with the work that depends on the
	// value alone, or on it and data arguments (log k! of a count, a
	// Binomial's log C(n, k)), split off, for a density whose value is
	// data: the tape prepares that state per element once, when the
	// program is finished, instead of at every evaluation. It returns
	// exactly what Kernel returns. A family derived from this one with
	// another Kernel must not keep it.
	DataHoisted DataHoisted
	// LogProb marks a Kernel that is a log probability, log P(X ≤ x) or
	// log P(X > x) (LogCDF), rather than a log density, so that errors name
	// what is not finite.
	LogProb bool
	// Quantity, when set, names what Kernel computes where it is neither a
	// log density nor a log probability (inc_beta's "value"), for errors.
	Quantity string
	// Why, when set, explains a NaN value of a function's Kernel at x and
	// p (the series of hypergeometric_2F1 that cannot keep its digits),
	// for the error at fit time, which calls the value z; "" where it has
	// nothing to add.
	Why func(x float64, p []float64) string
	// Explain, when set, explains a value lp of Kernel at x and p that is
	// not finite, in place of the error at fit time that names the value
	// (a truncation's normaliser, whose x is a placeholder and whose
	// failure is a mass of 0: "" where it has nothing to add). ofValue
	// says that the explanation is about x, so that the error names x's
	// data cell.
	Explain func(x float64, p []float64, lp float64) (why string, ofValue bool)
	// CDFTail marks the kernel of a log CDF: −1 for log P(X ≤ x)
	// (logcdf), +1 for log P(X > x) (logccdf), 0 for any other. Its −Inf
	// at the lower (−1) or upper (+1) end of the closed support (Ends),
	// the log of a probability that is 0 there, is a value rather than a
	// failure: Stan's weibull_lcdf(0 | k, λ) is log 0 without an error.
	CDFTail int
	// OutsideValue marks the kernel of logpdf(x, D), not of a ~'s
	// density: its −Inf at a value outside the support, with every
	// argument in its own (Outside), is a value rather than a failure,
	// as a log CDF's log 0 at an end is: Stan's uniform_lpdf(3 | 0, 2) is
	// −inf, and log_mix(0.95, lognormal_lpdf(y | m, s), uniform_lpdf(y |
	// 0, 2)) the lognormal part alone.
	OutsideValue bool
	// LogArg marks a Kernel whose value argument is log x rather than x
	// (LogScale, the prior of a positive latent in its coordinate), so
	// that errors name the value x = e^l the model wrote, not l.
	LogArg bool
	// LogitArg marks a Kernel whose value argument is logit x rather than
	// x (LogitScale, the prior of a unit latent in its coordinate), so
	// that errors name x = σ(t).
	LogitArg bool
	// UnitEnds marks the ends of [0, 1] that the family's Unit arguments
	// may take at evaluation (UnitZero, UnitOne): Stan's bernoulli and
	// binomial take theta in [0, 1], so that a probit's Phi(eta), which
	// rounds to 1 past eta ≈ 8.3, gives log mass 0 at y = 1 and −Inf
	// (a value outside the support) at y = 0. The checker's static
	// support stays Unit, the open interval.
	UnitEnds uint8
}

// Ends of [0, 1] for Univariate.UnitEnds.
const (
	UnitZero uint8 = 1 << iota // 0 is admitted
	UnitOne                    // 1 is admitted
)

// ArgAdmits is u.Params[a].Support.Admits(v) at evaluation: a Unit
// argument also admits the ends UnitEnds marks.
func (u *Univariate) ArgAdmits(a int, v float64) (need string, ok bool) {
	s := u.Params[a].Support
	if s != Unit || u.UnitEnds == 0 {
		return s.Admits(v)
	}
	switch u.UnitEnds {
	case UnitZero:
		return "in [0, 1)", v >= 0 && v < 1
	case UnitOne:
		return "in (0, 1]", v > 0 && v <= 1
	}
	return "in [0, 1]", v >= 0 && v <= 1
}

// Ends returns the ends of the closure of u's support for the parameters
// p: lo and hi, −Inf or +Inf on a side where it is unbounded. The bounds
// of Interval, BoundedCount (n, the first count parameter), LowerArg,
// UpperArg and EndsOf are read from p; Least is a Count family's own. Ordered,
// Simplex and matrix supports have no ends.
func (u *Univariate) Ends(p []float64) (lo, hi float64) {
	if u.EndsOf != nil && len(p) == len(u.Params) {
		return u.EndsOf(p)
	}
	lo, hi = math.Inf(-1), math.Inf(1)
	switch u.Support {
	case Positive, NonNegative, Count:
		lo = 0
	case Unit, Binary:
		lo, hi = 0, 1
	case Interval:
		if len(p) >= 2 {
			lo, hi = p[0], p[1]
		}
	case BoundedCount:
		lo = 0
		for i, q := range u.Params { // n, the first count parameter
			if q.Support == Count && i < len(p) {
				hi = p[i]
				break
			}
		}
	}
	if u.LowerArg > 0 && u.LowerArg <= len(p) {
		lo = p[u.LowerArg-1]
	}
	if u.UpperArg > 0 && u.UpperArg <= len(p) {
		hi = p[u.UpperArg-1]
	}
	if u.Least > 0 {
		lo = u.Least
	}
	return lo, hi
}

// ZeroAtEnd reports whether lp, a value of u's kernel at x with the
// parameters p, is the log of a probability that is 0 at an end of the
// closed support: −Inf from a log CDF (CDFTail) at the end of its tail.
// Such a −Inf is a value, where one at a value outside the support, or
// inside it, is a failure to report.
func (u *Univariate) ZeroAtEnd(x float64, p []float64, lp float64) bool {
	if u.CDFTail == 0 || !math.IsInf(lp, -1) {
		return false
	}
	lo, hi := u.Ends(p)
	if u.CDFTail < 0 {
		return x == lo
	}
	return x == hi
}

// Outside reports whether lp, a value of u's kernel at x with the
// parameters p, is −Inf because x lies outside the support: x finite and
// not in Support, or beyond the ends of its closure (Ends: Uniform's lo
// and hi, Pareto's y_min), or at an end where the density is 0 (Wiener's
// tau), or where a probability at an end (UnitEnds) leaves no mass
// (Bernoulli(1) at 0), with every argument in its own support and the ends
// in order. An
// argument outside its support (Normal's sigma ≤ 0) is not: that −Inf,
// or NaN, is a failure to report.
func (u *Univariate) Outside(x float64, p []float64, lp float64) bool {
	if !math.IsInf(lp, -1) || math.IsNaN(x) || math.IsInf(x, 0) {
		return false
	}
	for a, v := range p {
		if a < len(u.Params) {
			if _, ok := u.ArgAdmits(a, v); !ok {
				return false
			}
		}
	}
	for a, v := range p {
		if a < len(u.Params) && u.Params[a].Support == Unit && (v == 0 || v == 1) && u.UnitEnds != 0 {
			return true // a probability at an end (UnitEnds): the mass left is 0 at x
		}
	}
	lo, hi := u.Ends(p)
	if lo > hi {
		return false
	}
	s := u.Support
	if s == BoundedCount { // 0..n: a count, n being hi
		s = Count
	}
	_, in := s.Admits(x)
	return !in || x <= lo || x >= hi
}

// LogZero reports whether lp, a value of u's kernel at x with the
// parameters p, is a −Inf that is a value, for a later function to take
// in (log_mix, log_sum_exp, exp), rather than a failure: a log CDF's log
// 0 at the end of its tail (ZeroAtEnd), or logpdf's −Inf outside the
// support (OutsideValue and Outside).
func (u *Univariate) LogZero(x float64, p []float64, lp float64) bool {
	return u.ZeroAtEnd(x, p, lp) || u.OutsideValue && u.Outside(x, p, lp)
}

// HasLogZero reports whether u's kernel may give a −Inf that is a value
// (LogZero): the kernel of a log CDF or of logpdf.
func (u *Univariate) HasLogZero() bool { return u.CDFTail != 0 || u.OutsideValue }

// Prepared is a kernel split into its parameter-only part (Prepare, once per
// distinct parameter set) and its per-value part (Eval).
type Prepared interface {
	// StateLen is the number of values Prepare writes per parameter set.
	StateLen() int
	// Prepare computes the parameter-only part of the kernel for p into
	// state.
	Prepare(p, state []float64)
	// Eval returns what Kernel(x, p, dp) returns, from the state Prepare
	// computed for p.
	Eval(x float64, p, state, dp []float64) (lp, dx float64)
}

// Hoisted is a Prepared kernel whose state depends only on the arguments
// whose bits are set in HoistArgs (bit i for argument i): Prepare reads
// those arguments alone, and Eval, given that state, returns what the
// Kernel returns whatever the other arguments are.
type Hoisted interface {
	Prepared
	HoistArgs() uint
}

// DataHoisted is a kernel split at the value: PrepareData computes, once
// per element, the part that depends on the value x and on the arguments
// whose bits are set in DataArgs alone (bit i for argument i, which must
// be data too); EvalData the rest, at every evaluation.
type DataHoisted interface {
	DataArgs() uint
	// DataStateLen is the number of values PrepareData writes per element.
	DataStateLen() int
	// PrepareData writes the state of value x into ds, reading only the
	// arguments of p in DataArgs.
	PrepareData(x float64, p, ds []float64)
	// EvalData returns what Kernel(x, p, dp) returns, from x's state ds
	// and, for a family with a Hoisted kernel, its state hs for p (the
	// tape uses such a family's DataHoisted only together with its
	// Hoisted). hs is nil for a family without one, and a kernel that
	// needs it then returns the Kernel's numbers by the Kernel.
	EvalData(x float64, p, hs, ds, dp []float64) (lp, dx float64)
}

// DataRun is the DataHoisted kernel of a one-argument family that
// evaluates a run of elements in one call, sparing the tape an interface
// call and the set-up of four slices per element.
type DataRun interface {
	DataHoisted
	// EvalDataRun evaluates elements j = 0, 1, …, len(dx)−1 of a run and
	// adds their log densities to sum, in order: element j has value
	// x[j*xc], argument p[j*pc] and state s[j*DataStateLen():]; its log
	// density goes to lp[j] (unless lp is nil), its value partial to dx[j]
	// and its argument partial to dp[j]. Every number is EvalData's, bit
	// for bit.
	EvalDataRun(sum float64, x []float64, xc int, p []float64, pc int, s, lp, dx, dp []float64) float64
}

// DataArgRun is DataRun for a family of two arguments whose first is data
// (DataArgs 1: a Binomial's trials), the second what a step changes.
type DataArgRun interface {
	DataHoisted
	// EvalDataArgRun is EvalDataRun with element j's data argument at
	// d[j*dc] before its argument p[j*pc]; dp[j] is the partial in p (the
	// data argument's, 0, is not written).
	EvalDataArgRun(sum float64, x []float64, xc int, d []float64, dc int, p []float64, pc int, s, lp, dx, dp []float64) float64
}

// PreparedLog is the Prepared kernel of a log-scale family (LogScale: the
// value is l = log x): EvalLog(l, x, ...) is Eval(l, ...) given x = exp(l),
// bit for bit, for callers that already have exp(l).
type PreparedLog interface {
	Prepared
	EvalLog(l, x float64, p, state, dp []float64) (lp, dx float64)
}

// PreparedLogRun is a PreparedLog that evaluates a run of elements in one
// call. The tape's loop otherwise pays an interface call and the set-up of
// three slices per element, which cost more than the gamma kernel itself.
type PreparedLogRun interface {
	PreparedLog
	// EvalLogRun evaluates elements j = 0, 1, … of a run and adds their log
	// densities to sum, in order. Element j has value l[j*xc], exp value
	// x[j*xc] and parameter set q = j*step (step 0: one set for the run,
	// 1: a set per element), whose parameters are p[q*np:] and state
	// s[q*StateLen():] for np parameters; its value partial goes to dx[j]
	// and its parameter partials are added to ds[q*np:]. Every number is
	// EvalLog's, bit for bit. It stops before the first element with an
	// invalid set or a NaN value, which it leaves to EvalLog, and returns
	// the sum and the number of elements done (len(dx) for all).
	EvalLogRun(sum float64, l, x []float64, xc int, p, s []float64, step int, dx, ds []float64) (float64, int)
}

// GammaGradient draws a standard gamma variable in log space together with
// the derivative of the draw with respect to the shape: it returns log x for
// x ~ Gamma(a, 1) and d(log x)/da along the reparameterisation path. For rate
// b, log(x/b) = log x - log b, so d log(x/b)/db = -1/b.
//
// Implementations: Implicit (the default; exact implicit reparameterisation)
// and Paper (Knowles 2015: inverse CDF with a finite-difference shape
// derivative and the small- and large-shape branches).
type GammaGradient interface {
	SampleLog(a float64, rng *rand.Rand) (logx, dlogxda float64)
}

// Package stdlib is gpp's table of built-in functions and distributions.
//
// Place in the pipeline: beneath the front end, beside dist. Each entry is
// declarative: its name, arguments, shape and support rules, the autodiff
// operation that implements it and a line of documentation. The checker
// (lang/check) types calls with it; the compiler maps functions to autodiff
// operations and connects distributions by name to the kernels of package
// dist; the REPL completes its names; `gpp help` and docs/language.md print
// it (Markdown). stdlib imports only the standard library and dist (for
// dist.Support).
package stdlib

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpplang/gpp/dist"
)

// Ranks is a set of allowed ranks: 0 (scalar), 1 (vector), 2 (matrix).
type Ranks uint8

// Rank sets.
const (
	Scalar  Ranks = 1 << iota // rank 0
	Vector                    // rank 1, [n]
	Matrix                    // rank 2, [n, m]
	AnyRank = Scalar | Vector | Matrix
)

// Has reports whether rank (0, 1 or 2) is in the set.
func (r Ranks) Has(rank int) bool { return rank >= 0 && rank <= 2 && r&(1<<rank) != 0 }

// String describes the set in words, e.g. "scalar or vector".
func (r Ranks) String() string {
	if r == AnyRank {
		return "scalar, vector or matrix"
	}
	var parts []string
	for i, name := range []string{"scalar", "vector", "matrix"} {
		if r.Has(i) {
			parts = append(parts, name)
		}
	}
	return strings.Join(parts, " or ")
}

// Arg describes one argument of a built-in function.
type Arg struct {
	Name  string
	Ranks Ranks // allowed ranks
	Int   bool  // the argument must be int
	// Support is what the argument's values must be, checked as a
	// distribution's arguments are (0: any).
	Support dist.Support
	// Data, when not empty, says why the argument must be known before
	// the fit (data, constants and lets of them), not a param.
	Data string
}

// ShapeRule says how a function's result shape follows from its arguments'.
type ShapeRule int

// Shape rules.
const (
	Elementwise1   ShapeRule = iota + 1 // f(x): the shape of x
	Elementwise2                        // f(x, y, ...): the arguments broadcast (language.md §5)
	ReduceScalar                        // any shape → scalar
	RowSum                              // [n, m] → [n]
	ColSum                              // [n, m] → row [1, m]
	Identity                            // int n → [n, n]
	DiagRule                            // [n] → [n, n] diagonal matrix; [n, n] → [n] its diagonal
	SquareToScalar                      // [n, n] → scalar
	SquareSame                          // [n, n] → [n, n]
	Solve                               // [n, n], [n] → [n]; [n, n], [n, m] → [n, m]
	Outer                               // [n], [m] → [n, m]
	LogPDF                              // logpdf(value, D(args)): value and args broadcast, a column against a row too
	Rep                                 // scalar x, int n → [n]
	RepMatrix                           // scalar x, int n, int m → [n, m]
	DiagPre                             // [n], [n, m] → [n, m]: row i scaled by v[i]
	DiagPost                            // [n, m], [m] → [n, m]: column j scaled by v[j]
	DotProduct                          // [n] (or a row [1, n]), [n] (or [1, n]) → scalar
	CrossProd                           // [n, m] → [m, m]: A' A
	TCrossProd                          // [n, m] → [n, n]: A A'
	QuadForm                            // [n, n], [n] → scalar; [n, n], [n, k] → [k, k]
	Head                                // x [n] (or [n, m]), int k → [k] (or [k, m])
	Segment                             // x [n] (or [n, m]), int i, int k → [k] (or [k, m])
	ToVector                            // [n, m] → [n·m]; [n] → [n]
	AppendRow                           // [n], [k] → [n + k]; [n, m], [k, m] → [n + k, m]
	AppendCol                           // [n, m], [n, k] → [n, m + k]; a vector is a column [n, 1]
	QuadFormDiag                        // [n, n], [n] → [n, n]: entry (i, j) scaled by v[i]·v[j]
	GPCov                               // x [n] or [n, d] (a point per row), scalars → [n, n]
	GPCross                             // x1 [n1] or [n1, d], x2 [n2] or [n2, d], scalars → [n1, n2]
	AddDiag                             // [n, n], scalar or [n] → [n, n]
	Filter                              // scalar or [p], [T] (or [T, K]) → [T] (or [T, K])
	Constant                            // no arguments → scalar: a mathematical constant, Stan's pi()
	RowsDot                             // [n, m], [n, m] → [n]: the dot product of each row; [n], [n] → [n]
	Sized                               // int n, ... → [n]: a vector whose length is argument 0
	ColsDot                             // [n, m], [n, m] → [1, m]: the dot product of each column; [n], [n] → [1, 1]
	HMM                                 // [N, K], [K, K] or [N − 1, K·K], [K] → scalar: hmm_marginal
	HMMStates                           // [N, K], [K, K] or [N − 1, K·K], [K] → [N, K]: hmm_hidden_state_prob
	HMMPath                             // [N, K], [K, K] or [N − 1, K·K], [K] → int [N]: hmm_latent_rng, hmm_viterbi
	ODE                                 // f, y0 [D], t0, ts [T], ... → [T, D]: ode_rk45 (variadic; the checker types it)
	Algebra                             // f, y_guess [D], ... → [D]: solve_newton (variadic; the checker types it)
	ScaleSolve                          // scalar t, [n, n], [n] → [n]; t, [n, n], [n, m] → [n, m]
	SolveRight                          // [m, n], [n, n] → [m, n]
	SquareToVector                      // [n, n] → [n]
	SingularVals                        // [m, n] → [min(m, n)]
	ToMatrix                            // x [k] or [r, c], int m, int n → [m, n], m·n = k (or r·c)
	Permute                             // [n] → [n]: the elements reordered (not elementwise: a loop is not vectorised through it)
	CSRTimes                            // int m, int n, w [nnz], v int [nnz], u int [m + 1], b [n] → [m]
	CSRToDense                          // int m, int n, w [nnz], v int [nnz], u int [m + 1] → [m, n]
	CSRNonZeros                         // [m, n] → [nnz]: one element per non-zero (its value or its column)
	CSRRowStarts                        // [m, n] → [m + 1]
	SizedRow                            // int n, ... → [1, n]: a row whose length is argument 0
	MinCols                             // [m, n] → [m, min(m, n)]: qr_thin_Q, svd_U
	MinRows                             // [m, n] → [min(m, n), n]: qr_thin_R
	ColsByMin                           // [m, n] → [n, min(m, n)]: svd_V
	RowsSquare                          // [m, n] → [m, m]: qr_Q
	SameMatrix                          // [m, n] → [m, n] (not elementwise): qr_R
	Transposed                          // [m, n] → [n, m]: generalized_inverse
	TraceGenQuad                        // [k, k], [n, n], [n, k] → scalar: trace_gen_quad_form
	QuantileRule                        // [n], scalar → scalar; [n], [k] → [k]
	Integrate1D                         // f, a, b, ... → scalar: integrate_1d (variadic; the checker types it)
	GroupSum                            // x [N], int g [N], int K → [K]; x [N, m], g, K → [K, m]
	TVFilter                            // a [T] or [T, K], e [T] (or [T, K]) → e's shape: tv_filter
	Diff                                // x [n] → [n − 1]; x [n], int d → [n − d]: diff
	ICDF                                // icdf(p, D(args)): p and args broadcast as logpdf's value and args
	Interp                              // x any shape, xp [n], fp [n] → x's shape: interp
	Renewal                             // R [T], w [S], I0 [S] → [T]: renewal
)

var shapeText = [...]string{
	Elementwise1:   "same shape as the argument",
	Elementwise2:   "the arguments broadcast",
	ReduceScalar:   "scalar",
	RowSum:         "[n, m] → [n]",
	ColSum:         "[n, m] → [1, m]",
	Identity:       "int n → [n, n]",
	DiagRule:       "[n] → [n, n]; [n, n] → [n]",
	SquareToScalar: "[n, n] → scalar",
	SquareSame:     "[n, n] → [n, n]",
	Solve:          "[n, n], [n] → [n]; [n, n], [n, m] → [n, m]",
	Outer:          "[n], [m] → [n, m]",
	LogPDF:         "the value and the distribution's arguments broadcast; a column value against row arguments gives [n, k]",
	Rep:            "scalar x, int n → [n]",
	RepMatrix:      "scalar x, int n, int m → [n, m]",
	DiagPre:        "[n], [n, m] → [n, m]",
	DiagPost:       "[n, m], [m] → [n, m]",
	DotProduct:     "[n], [n] → scalar; either may be a row [1, n]",
	CrossProd:      "[n, m] → [m, m]",
	TCrossProd:     "[n, m] → [n, n]",
	QuadForm:       "[n, n], [n] → scalar; [n, n], [n, k] → [k, k]",
	Head:           "[n], int k → [k]; [n, m], int k → [k, m] (rows)",
	Segment:        "[n], int i, int k → [k]; [n, m], int i, int k → [k, m] (rows)",
	ToVector:       "[n, m] → [n·m] (column by column); [1, n] → [n]; [n] → [n]",
	AppendRow:      "[n], [k] → [n + k]; a scalar beside a vector counts as [1] (scalar, [k] → [1 + k]), but two scalars are an error (write the vector [x, y]) and a scalar does not go with a matrix; [n, m], [k, m] → [n + k, m] (a vector as [n, 1])",
	AppendCol:      "[n, m], [n, k] → [n, m + k]; a vector counts as a column [n, 1]",
	QuadFormDiag:   "[n, n], [n] → [n, n]",
	GPCov:          "x [n] or [n, d] (a point per row) → [n, n]",
	GPCross:        "x1 [n1], x2 [n2] → [n1, n2]; x1 [n1, d], x2 [n2, d] → [n1, n2]",
	AddDiag:        "[n, n], scalar or [n] → [n, n]",
	Filter:         "phi scalar or [p], e [T] → [T]; e [T, K] → [T, K] (each column filtered alone)",
	Constant:       "scalar (no arguments)",
	RowsDot:        "[n, m], [n, m] → [n]; [n], [n] → [n]",
	Sized:          "int n, ... → [n]",
	ColsDot:        "[n, m], [n, m] → [1, m]; [n], [n] → [1, 1]",
	HMM:            "[N, K], [K, K] or [N − 1, K·K], [K] → scalar; [N], [1, 1], [1] → scalar",
	HMMStates:      "[N, K], [K, K] or [N − 1, K·K], [K] → [N, K]; [N], [1, 1], [1] → [N, 1]",
	HMMPath:        "[N, K], [K, K] or [N − 1, K·K], [K] → [N]",
	ODE:            "y0 [D], ts [T] → [T, D]: row i is y(ts[i])",
	Algebra:        "y_guess [D] → [D]: the root",
	ScaleSolve:     "t scalar, [n, n], [n] → [n]; t scalar, [n, n], [n, m] → [n, m]",
	SolveRight:     "[m, n], [n, n] → [m, n]",
	SquareToVector: "[n, n] → [n]",
	SingularVals:   "[m, n] → [min(m, n)]",
	ToMatrix:       "x [k] or [r, c], int m, int n → [m, n], filled column by column (m·n = k or r·c)",
	Permute:        "[n] → [n]",
	CSRTimes:       "int m, int n, w [nnz], v [nnz], u [m + 1], b [n] → [m]",
	CSRToDense:     "int m, int n, w [nnz], v [nnz], u [m + 1] → [m, n]",
	CSRNonZeros:    "[m, n] → [nnz], nnz the number of non-zeros",
	CSRRowStarts:   "[m, n] → [m + 1]",
	SizedRow:       "int n, ... → [1, n]",
	MinCols:        "[m, n] → [m, min(m, n)]",
	MinRows:        "[m, n] → [min(m, n), n]",
	ColsByMin:      "[m, n] → [n, min(m, n)]",
	RowsSquare:     "[m, n] → [m, m]",
	SameMatrix:     "[m, n] → [m, n]",
	Transposed:     "[m, n] → [n, m]",
	TraceGenQuad:   "D [k, k], A [n, n], B [n, k] → scalar",
	QuantileRule:   "x [n], p scalar → scalar; x [n], p [k] → [k]",
	Integrate1D:    "scalar a, b (either may be infinite) → scalar",
	GroupSum:       "x [N], int g [N], int K → [K]; x [N, m], g [N], K → [K, m]",
	TVFilter:       "a [T], e [T] → [T]; a [T] (shared by the columns) or [T, K], e [T, K] → [T, K] (each column filtered alone)",
	Diff:           "[n] → [n − 1]; [n], int d → [n − d]",
	ICDF:           "p and the distribution's arguments broadcast; a column p against row arguments gives [n, k]",
	Interp:         "x (any shape), xp [n], fp [n] → x's shape",
	Renewal:        "R [T], w [S], I0 [S] → [T]",
}

// FilterPhiTooLong is the error at phi of ar_filter(phi, e) when phi [p]
// has p ≥ T coefficients for the T steps of e: an AR(p) filter of as many
// lags as the series has steps is never a model anyone meant, and is
// what a coefficient per time step written for ar_filter silently gives.
func FilterPhiTooLong(phi, p, t string) string {
	steps := t + " time steps"
	if t == "1" {
		steps = "1 time step"
	}
	return fmt.Sprintf("ar_filter reads `%s` [%s] as the coefficients of an AR(%s) filter, h[t] = e[t] + phi[0] * h[t-1] + ... + phi[p-1] * h[t-p], and e has %s; for a coefficient per time step, h[t] = a[t] * h[t-1] + e[t], write tv_filter(a, e)", phi, p, p, steps)
}

// String describes the rule in words, as in the docs.
func (r ShapeRule) String() string {
	if r > 0 && int(r) < len(shapeText) {
		return shapeText[r]
	}
	return "?"
}

// SupportKind selects how a SupportRule derives the result's support.
type SupportKind int

// Support rule kinds.
const (
	// Fixed: the result support is SupportRule.Default whatever the arguments.
	Fixed SupportKind = iota + 1
	// FromArg: the first case whose If contains the support of argument 0
	// gives the result; otherwise Default.
	FromArg
	// Product: the support of a product of the two arguments: unit if both
	// are unit, positive if both are positive, non-negative if both are
	// non-negative, otherwise Default.
	Product
	// DiagSum: the support of argument 0 with argument 1 added to some of
	// its entries (add_diag): positive if argument 0 is positive and
	// argument 1 non-negative, non-negative if both are non-negative,
	// otherwise Default.
	DiagSum
	// Recursive: the support of ar_filter(phi, e), h[t] = e[t] + Σ phi[k] h[t-1-k],
	// and of tv_filter(a, e), h[t] = a[t] h[t-1] + e[t]:
	// positive if phi is non-negative and e positive, non-negative if both
	// are non-negative (by induction on t), otherwise Default. A GARCH
	// variance, ar_filter(beta1, alpha0 + alpha1 * square(r - mu)), is so
	// positive and can be a scale.
	Recursive
	// SumOfProducts: the support of Σ x[i] y[i]: positive if both arguments
	// are positive or one is a simplex (entries ≥ 0 summing to 1) and the
	// other positive, non-negative if both are non-negative, otherwise
	// Default. A renewal equation's R_t Σ w[s] cases[t−s], with w a
	// simplex of data and cases counts, is so non-negative.
	SumOfProducts
	// SumsOfProducts: the support of sums of products along an axis
	// (rows_dot_product, columns_dot_product): positive if both
	// arguments are positive, non-negative if both are non-negative,
	// otherwise Default; a simplex counts as non-negative, as a row or
	// column of it need not sum to 1.
	SumsOfProducts
	// Between: each value lies between arguments 1 and 2 (linspaced_vector's
	// lo and hi): unit if both are unit, positive if both are positive,
	// non-negative if both are non-negative, otherwise Default.
	Between
	// Larger: the larger of the two arguments (fmax): unit if both are
	// unit, positive if either is positive, non-negative if either is
	// non-negative, otherwise Default.
	Larger
	// Smaller: the smaller of the two arguments (fmin): unit if one is
	// unit and the other positive, positive if both are positive,
	// non-negative if both are non-negative, otherwise Default. A
	// probability capped by a positive bound, fmin(p, 0.99), stays one.
	Smaller
	// RenewalSupport: the support of renewal(R, w, I0), I[t] = R[t] Σ
	// w[s-1] I[t-s]: positive if R and I0 are positive and w positive or
	// a simplex (some weight is positive), non-negative if all three are
	// non-negative (by induction on t), otherwise Default. Latent
	// infections so positive can be a Poisson rate.
	RenewalSupport
)

// SupportCase maps an argument support to a result support: it applies when
// If contains the argument's support.
type SupportCase struct {
	If, Then dist.Support
}

// SupportRule derives the support of a function's result from the supports
// of its arguments (language.md §6).
type SupportRule struct {
	Kind    SupportKind
	Cases   []SupportCase // FromArg only, tried in order
	Default dist.Support
	// Arg is the argument FromArg's cases read (0 unless set):
	// linspaced_int_array's values are at least lo, argument 1.
	Arg int
}

// Result applies the rule to the arguments' supports. Int-valued supports
// (count, binary) count as non-negative in the product rule; a simplex
// argument that no case names counts as non-negative.
func (r SupportRule) Result(args []dist.Support) dist.Support {
	switch r.Kind {
	case FromArg:
		if len(args) > r.Arg {
			for _, c := range r.Cases {
				if c.If.Contains(args[r.Arg]) {
					return c.Then
				}
			}
			if args[r.Arg] == dist.Simplex {
				// Simplex entries are non-negative.
				return SupportRule{Kind: FromArg, Cases: r.Cases, Default: r.Default}.Result([]dist.Support{dist.NonNegative})
			}
		}
	case Product:
		if len(args) == 2 {
			if s := ProductSupport(args[0], args[1]); s != dist.Real {
				return s
			}
		}
	case DiagSum:
		if len(args) == 2 {
			switch {
			case dist.Positive.Contains(args[0]) && nonNeg(args[1]):
				return dist.Positive
			case nonNeg(args[0]) && nonNeg(args[1]):
				return dist.NonNegative
			}
		}
	case SumOfProducts:
		if len(args) == 2 {
			a, b := args[0], args[1]
			pos := func(s dist.Support) bool { return dist.Positive.Contains(s) || s == dist.PositiveOrdered }
			switch {
			case pos(a) && pos(b), a == dist.Simplex && pos(b), pos(a) && b == dist.Simplex:
				return dist.Positive
			case nonNeg(a) && nonNeg(b):
				return dist.NonNegative
			}
		}
	case SumsOfProducts:
		if len(args) == 2 {
			switch a, b := args[0], args[1]; {
			case dist.Positive.Contains(a) && dist.Positive.Contains(b):
				return dist.Positive
			case nonNeg(a) && nonNeg(b):
				return dist.NonNegative
			}
		}
	case Between:
		if len(args) == 3 {
			if args[1] == dist.Unit && args[2] == dist.Unit {
				return dist.Unit
			}
			return SupportRule{Kind: SumsOfProducts, Default: r.Default}.Result(args[1:]) // both ends' sign
		}
	case Smaller:
		if len(args) == 2 {
			a, b := args[0], args[1]
			if a == dist.Unit && dist.Positive.Contains(b) || b == dist.Unit && dist.Positive.Contains(a) {
				return dist.Unit
			}
			return SupportRule{Kind: SumsOfProducts, Default: r.Default}.Result(args) // both operands' sign
		}
	case Larger:
		if len(args) == 2 {
			switch a, b := args[0], args[1]; {
			case a == dist.Unit && b == dist.Unit:
				return dist.Unit
			case dist.Positive.Contains(a) || dist.Positive.Contains(b):
				return dist.Positive
			case nonNeg(a) || nonNeg(b):
				return dist.NonNegative
			}
		}
	case RenewalSupport:
		if len(args) == 3 {
			r, w, i0 := args[0], args[1], args[2]
			switch {
			case dist.Positive.Contains(r) && dist.Positive.Contains(i0) && (dist.Positive.Contains(w) || w == dist.Simplex):
				return dist.Positive
			case nonNeg(r) && nonNeg(w) && nonNeg(i0):
				return dist.NonNegative
			}
		}
	case Recursive:
		if len(args) == 2 {
			switch {
			case nonNeg(args[0]) && dist.Positive.Contains(args[1]):
				return dist.Positive
			case nonNeg(args[0]) && nonNeg(args[1]):
				return dist.NonNegative
			}
		}
	}
	return r.Default
}

// ProductSupport is the support of an elementwise product of values with
// supports a and b: unit × unit is unit, positive × positive positive,
// non-negative × non-negative non-negative, anything else real.
func ProductSupport(a, b dist.Support) dist.Support {
	switch {
	case a == dist.Unit && b == dist.Unit:
		return dist.Unit
	case dist.Positive.Contains(a) && dist.Positive.Contains(b):
		return dist.Positive
	case nonNeg(a) && nonNeg(b):
		return dist.NonNegative
	}
	return dist.Real
}

func nonNeg(s dist.Support) bool { return dist.NonNegative.Contains(s) || s == dist.Simplex }

// String describes the rule in words, naming the argument it reads x.
func (r SupportRule) String() string { return r.Describe("x") }

// Describe describes the rule in words, naming the argument it reads arg, e.g.
// "positive if x is positive or simplex; else real".
func (r SupportRule) Describe(arg string) string {
	switch r.Kind {
	case Fixed:
		return r.Default.String()
	case FromArg:
		var parts []string
		for i := 0; i < len(r.Cases); i++ {
			then := r.Cases[i].Then
			ifs := []string{r.Cases[i].If.String()}
			for i+1 < len(r.Cases) && r.Cases[i+1].Then == then {
				i++
				ifs = append(ifs, r.Cases[i].If.String())
			}
			parts = append(parts, then.String()+" if "+arg+" is "+strings.Join(ifs, " or "))
		}
		return strings.Join(parts, "; ") + "; else " + r.Default.String()
	case Product:
		return "unit if both arguments are, positive if both are, non-negative if both are; else " + r.Default.String()
	case DiagSum:
		return "positive if " + arg + " is positive and the values added non-negative, non-negative if both are; else " + r.Default.String()
	case Recursive:
		return "positive if " + arg + " is non-negative and e positive, non-negative if both are; else " + r.Default.String()
	case SumsOfProducts:
		return "positive if both arguments are positive, non-negative if both are non-negative; else " + r.Default.String()
	case Between:
		return "unit if lo and hi are unit, positive if both are positive, non-negative if both are non-negative; else " + r.Default.String()
	case Larger:
		return "unit if both arguments are unit, positive if either is positive, non-negative if either is non-negative; else " + r.Default.String()
	case Smaller:
		return "unit if one argument is unit and the other positive, positive if both are positive, non-negative if both are non-negative; else " + r.Default.String()
	case SumOfProducts:
		return "positive if both arguments are positive, or one is a simplex and the other positive; non-negative if both are non-negative; else " + r.Default.String()
	case RenewalSupport:
		return "positive if R and I0 are positive and w positive or a simplex, non-negative if all three are non-negative; else " + r.Default.String()
	}
	return "?"
}

// ElemRule says whether a function's result is int or real.
type ElemRule int

// Element rules.
const (
	RealResult  ElemRule = iota + 1 // always real
	IntIfAllInt                     // int when every argument is int, else real
	IntResult                       // always int (an index, a rank, a drawn state)
)

// RangeRule says how the interval holding a function's values follows
// from the one holding its first argument's (language.md §6): the checker
// knows more than the support rule gives, as that 1 - x * x is positive
// for x in (-1, 1).
type RangeRule int

// Range rules. The zero value derives nothing beyond the support rule.
const (
	// Increasing: increasing where defined, so the values run from Fold of
	// the argument's lower end to Fold of its upper end.
	Increasing RangeRule = iota + 1
	// ElementRange: each value is an element of the argument or an average
	// of elements (max, min, mean, rep), so it stays in the argument's range.
	ElementRange
	// SumRange: a sum of one or more elements keeps their sign and a
	// positive lower end (sum, rowsum, colsum, trace).
	SumRange
	// AbsRange: |x|.
	AbsRange
	// SquareRange: x².
	SquareRange
	// PowRange: x^y for a constant exponent y.
	PowRange
	// BetweenRange: each value lies between arguments 1 and 2, in the
	// hull of their intervals (linspaced_vector's lo and hi).
	BetweenRange
	// LargerRange: the larger of the two arguments (fmax).
	LargerRange
)

// Func is a built-in function.
type Func struct {
	Name string
	// FreeName: a model may still declare a param, data, let or argument
	// of this name (sd: a common name for a scale), which a call does not
	// see: a call of the name is the built-in's. A fn of the name is
	// refused all the same.
	FreeName bool
	Args     []Arg
	Shape    ShapeRule
	Support  SupportRule
	Elem     ElemRule
	Range    RangeRule
	// Domain, when set, holds the closed interval [Domain[0], Domain[1]]
	// of the arguments where an Increasing function is defined: the
	// checker clips the argument's interval to it before taking the
	// function's ends, since a value outside gives NaN, a positioned error
	// at fit time (asin of a positive x is in (0, π/2], not unknown).
	Domain *[2]float64
	// Op names the autodiff operation that implements the function; the
	// compiler maps it to the tape's op enum.
	Op      string
	Doc     string // one line
	Example string // a short use, e.g. "exp(-rate)"
	// Fold evaluates the function on scalar constants, for constant folding
	// in the checker and the REPL; nil if the function does not fold.
	Fold func(args []float64) float64
	// FoldWhy, when set, says why Fold is NaN at args, for the error at a
	// call of constants ("" where it has nothing to add).
	FoldWhy func(args []float64) string
	// Alt is a second form of the function under the same name, taken by a
	// call with len(Alt.Args) arguments, or nil: the two-input
	// cross-covariance of a GP covariance function (Stan's
	// gp_exp_quad_cov(x1, x2, alpha, rho) beside gp_exp_quad_cov(x, alpha,
	// rho)). Its own arguments, shape rule and doc apply.
	Alt *Func
	// OutputOnly, when not empty, says why the function has no derivative:
	// on params only an output may call it (the checker refuses it in the
	// log joint, as a comparison of params); on data it is computed once.
	OutputOnly string
	// Random marks a random draw (Stan's _rng functions): only an output
	// may call it, whatever its arguments, and each draw of q gets a new
	// draw (never computed once on data).
	Random bool
}

// Form returns the form of f that a call with n arguments takes: Alt when
// it has n arguments, else f (whose arity the checker then compares).
func (f *Func) Form(n int) *Func {
	if f.Alt != nil && len(f.Alt.Args) == n {
		return f.Alt
	}
	return f
}

// Forms returns f and its second form, if any: the rows of the docs.
func (f *Func) Forms() []*Func {
	if f.Alt != nil {
		return []*Func{f, f.Alt}
	}
	return []*Func{f}
}

// Signature returns the call form, e.g. "pow(x, y)".
func (f *Func) Signature() string {
	names := make([]string, len(f.Args))
	for i, a := range f.Args {
		names[i] = a.Name
	}
	return f.Name + "(" + strings.Join(names, ", ") + ")"
}

// DistShape says how a distribution's value and arguments' shapes relate.
type DistShape int

// Distribution shape rules.
const (
	// DistElementwise: a scalar density applied elementwise; each argument
	// must broadcast to the value's shape.
	DistElementwise DistShape = iota + 1
	// DistMvNormal: value [d] (or [n, d], n independent rows); mean scalar,
	// [d] or row [1, d], or [n, d] (a row per row); covariance [d, d].
	DistMvNormal
	// DistMvNormalRows: value [n, d], independent rows; mean scalar, [d],
	// row [1, d] or [n, d] (a row per row); covariance [d, d].
	DistMvNormalRows
	// DistDirichlet: value [k] (one simplex) or [n, k] (n rows); alpha
	// scalar, [k], row [1, k] or (for a matrix value) [n, k].
	DistDirichlet
	// DistCategorical: value a scalar or [n] of int categories 0..k-1;
	// argument [k] or [1, k] shared by every element, or [n, k], row i
	// for element i.
	DistCategorical
	// DistOrdinal: value a scalar or [n] of int categories 0..K; eta a
	// scalar or [n], one per element; cutpoints [K] or [1, K], strictly
	// increasing, shared by every element, or [n, K], row i for element i.
	DistOrdinal
	// DistLKJ: value a cholesky_factor_corr[K] param (a K×K factor) or a
	// corr_matrix[K] param (the dist's Support says which), written
	// whole; eta a scalar.
	DistLKJ
	// DistMvNormalChol: value [d] or [n, d] (independent rows); mean
	// scalar, [d], [1, d] or (for a matrix value) [n, d], a row per row;
	// the covariance's lower Cholesky factor L [d, d].
	DistMvNormalChol
	// DistWishart: value a cov_matrix[K] param written whole, or data
	// [K, K] (Wishart, InvWishart); a cholesky_factor_cov[K] param or data
	// [K, K] (the Cholesky forms; the dist's Support says which); nu a
	// scalar > K − 1; the scale matrix (or its factor) [K, K].
	DistWishart
	// DistMultinomial: value int [k] (one vector of counts) or [n, k] (a
	// row of counts per observation); argument [k] or [1, k] (shared) or
	// [n, k] (row i for the value's row i); the optional number of trials
	// a scalar or [n].
	DistMultinomial
	// DistMultiStudentT: value [d] or [n, d] (independent rows); nu a
	// scalar; the location scalar, [d], [1, d] or (for a matrix value)
	// [n, d], a row per row; the scale matrix Sigma [d, d].
	DistMultiStudentT
	// DistMultiStudentTChol: DistMultiStudentT with the lower Cholesky
	// factor L [d, d] of the scale matrix.
	DistMultiStudentTChol
	// DistMvNormalPrec: DistMvNormalChol's shapes with the precision
	// matrix Omega [d, d].
	DistMvNormalPrec
	// DistPoissonBinomial: value a scalar or [n] of int counts 0..N;
	// theta [N] or [1, N] shared by every element, or [n, N], row i for
	// element i (DistCategorical's rule).
	DistPoissonBinomial
	// DistMultiGP: value [K, N], rows independent; Sigma [N, N]; w [K], a
	// positive precision per row (row i ~ MvNormal(0, Sigma / w[i])).
	DistMultiGP
	// DistMultiGPChol: DistMultiGP with the lower Cholesky factor L
	// [N, N] of Sigma.
	DistMultiGPChol
	// DistGaussianDLM: value [r, T], a column per time; F [n, r], G
	// [n, n], V [r, r] or [r] (variances), W [n, n], m0 [n], C0 [n, n].
	DistGaussianDLM
	// DistCAR: value [n], the field on n nodes; alpha and tau scalars;
	// node1 and node2 int [E], the graph's edges (0-based node ids),
	// known when the model compiles.
	DistCAR
)

var distShapeText = [...]string{
	DistElementwise:       "elementwise; arguments broadcast to the value's shape",
	DistMvNormal:          "value [d] or [n, d] (rows); mean scalar, [d] or [1, d], or for [n, d] rows also [n, d] (a mean per row); covariance [d, d], symmetric (to 1e-8 of √(Σ_ii Σ_jj)) and positive definite",
	DistMvNormalRows:      "value [n, d], independent rows; mean scalar, [d], [1, d] or [n, d] (a mean per row); covariance [d, d], symmetric (to 1e-8 of √(Σ_ii Σ_jj)) and positive definite",
	DistDirichlet:         "value [k] or [n, k] (rows); alpha scalar, [k], [1, k] or [n, k]",
	DistCategorical:       "value int scalar or [n], categories 0..k−1; argument [k] or [1, k] (shared) or [n, k] (row i for y[i])",
	DistOrdinal:           "value int scalar or [n], categories 0..K; eta scalar or [n] (eta[i] for y[i]); cutpoints [K] or [1, K] (shared) or [n, K] (row i for y[i]), strictly increasing",
	DistLKJ:               "value the param it models (cholesky_factor_corr[K] for LKJCorrCholesky, corr_matrix[K] for LKJCorr), whole ([K, K]); eta scalar",
	DistMvNormalChol:      "value [d] or [n, d] (independent rows); mean scalar, [d], [1, d] or [n, d] (a row per row of the value); L [d, d], the lower Cholesky factor of the covariance: its diagonal must be > 0, the entries above it are ignored",
	DistMultinomial:       "value int [k] (counts) or [n, k] (a row of counts per observation); argument [k] or [1, k] (shared) or [n, k] (row i for the value's row i); the number of trials a scalar or [n] (one per row), each equal to its row's total; a replicate is [k] of a shared argument and a scalar number of trials, else a row of counts per row of the argument or element of the number of trials",
	DistMultiStudentT:     "value [d] or [n, d] (independent rows); nu scalar; mu scalar, [d], [1, d] or [n, d] (a row per row of the value); Sigma [d, d], symmetric (to 1e-8 of √(Σ_ii Σ_jj)) and positive definite",
	DistMultiStudentTChol: "value [d] or [n, d] (independent rows); nu scalar; mu scalar, [d], [1, d] or [n, d] (a row per row of the value); L [d, d], the lower Cholesky factor of the scale matrix: its diagonal must be > 0, the entries above it are ignored",
	DistMvNormalPrec:      "value [d] or [n, d] (independent rows); mu scalar, [d], [1, d] or [n, d] (a row per row of the value); Omega [d, d], the precision matrix (the covariance's inverse), symmetric (to 1e-8 of √(Ω_ii Ω_jj)) and positive definite",
	DistPoissonBinomial:   "value int scalar or [n], counts 0..N; theta [N] or [1, N] (shared) or [n, N] (row i for y[i]), each entry in [0, 1]",
	DistMultiGP:           "value [K, N], rows independent; Sigma [N, N], symmetric (to 1e-8 of √(Σ_ii Σ_jj)) and positive definite; w [K], row i's precision",
	DistMultiGPChol:       "value [K, N], rows independent; L [N, N], the lower Cholesky factor of Sigma: its diagonal must be > 0, the entries above it are ignored; w [K], row i's precision",
	DistGaussianDLM:       "value [r, T], a column of r observations per time; F [n, r] (y_t has mean F' theta_t); G [n, n]; V [r, r], or [r] the variances of a diagonal V; W [n, n]; m0 [n]; C0 [n, n]; V and C0 symmetric positive definite (a vector V's variances > 0) and W semi-definite, as in Stan: V and C0 known when the model compiles (data, constants) are checked then, an error at the distribution; of a param only each step's one-step covariance F' R F + V is factored (its failure an error at the distribution), so an indefinite param V or C0 that leaves it definite is not caught, nor is W checked",
	DistCAR:               "value [n], a field on the graph's n nodes; alpha and tau scalars; node1 and node2 int [E] (data or constants), edge k joining nodes node1[k] and node2[k] (0-based), each listed once, every node in an edge; alpha strictly between 1/λ_min and 1/λ_max of D^-½ W D^-½ (a unit param always is)",
	DistWishart:           "value a cov_matrix[K] param (cholesky_factor_cov[K] for the Cholesky forms), whole, or data [K, K]; nu scalar > K − 1; scale [K, K]: S symmetric positive definite, or its lower Cholesky factor L_S (diagonal > 0, entries above it ignored)",
}

// String describes the rule in words.
func (r DistShape) String() string {
	if r > 0 && int(r) < len(distShapeText) {
		return distShapeText[r]
	}
	return "?"
}

// Param describes one argument of a distribution.
type Param struct {
	Name    string
	Support dist.Support // values the argument must take
	Ranks   Ranks
	Int     bool // the argument must be int (Binomial's n)
	// Optional: the argument may be left out, as the last of a call
	// (Multinomial's number of trials n, which only a replicate needs).
	Optional bool
	// Data, when not empty, says why the argument must be known before
	// the fit (data, constants and lets of them), not a param.
	Data string
}

// Dist is a built-in distribution. The compiler connects it by Name to the
// kernel of the same name in package dist.
type Dist struct {
	Name    string
	Params  []Param
	Support dist.Support // of the value
	Int     bool         // discrete: the value must be int (data)
	Shape   DistShape
	Doc     string // one line
	Example string // a short use, e.g. "y ~ Normal(mu, sigma)"
}

// Signature returns the call form, e.g. "Gamma(shape, rate)", an
// optional argument in brackets: "Multinomial(theta[, n])".
func (d *Dist) Signature() string {
	var b strings.Builder
	b.WriteString(d.Name + "(")
	for i, p := range d.Params {
		switch {
		case p.Optional:
			b.WriteString("[, " + p.Name + "]")
		case i > 0:
			b.WriteString(", " + p.Name)
		default:
			b.WriteString(p.Name)
		}
	}
	return b.String() + ")"
}

// Required returns the number of arguments a call must give: the
// arguments before the first optional one.
func (d *Dist) Required() int {
	for i, p := range d.Params {
		if p.Optional {
			return i
		}
	}
	return len(d.Params)
}

var (
	funcIndex = map[string]*Func{}
	distIndex = map[string]*Dist{}
)

func init() {
	funcs = append(funcs, stanFuncs...) // stan.go
	for _, f := range funcs {
		funcIndex[f.Name] = f
	}
	for _, d := range dists {
		distIndex[d.Name] = d
	}
}

// LookupFunc returns the built-in function of that name, or nil.
func LookupFunc(name string) *Func { return funcIndex[name] }

// LookupDist returns the distribution of that name, or nil.
func LookupDist(name string) *Dist { return distIndex[name] }

// Funcs returns the built-in functions in table order.
func Funcs() []*Func { return append([]*Func(nil), funcs...) }

// Dists returns the distributions in table order.
func Dists() []*Dist { return append([]*Dist(nil), dists...) }

// Names returns the names of every function and distribution, sorted, for
// completion.
func Names() []string {
	names := make([]string, 0, len(funcs)+len(dists))
	for _, f := range funcs {
		names = append(names, f.Name)
	}
	for _, d := range dists {
		names = append(names, d.Name)
	}
	sort.Strings(names)
	return names
}

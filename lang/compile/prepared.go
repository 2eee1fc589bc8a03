package compile

import (
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
)

// univariate adds a scalar density node, through the prepared (split) form
// of its kernel when there is one: then a density whose arguments repeat
// along an axis (W ~ Gamma(a, c) with a and c per row, W ~ Gamma(g * r', g)
// with the shape per column) computes lgamma, digamma and the logs once per
// distinct argument set instead of once per element.
func (l *lowerer) univariate(u dist.Univariate, prep autodiff.Prepared, value autodiff.ID, args []autodiff.ID, pos ast.Pos) autodiff.ID {
	if prep != nil {
		return l.b.DensityPrepared(u, prep, value, args, pos)
	}
	return l.b.Density(u, value, args, pos)
}

// preparedKernel returns the prepared form of a family's kernel (of its
// log-scale kernel when logScale is set), or nil.
//
// Interim: these split kernels belong in package dist beside the kernels they
// split (docs/performance.md proposes the API); until dist provides them,
// they live here, and TestPreparedKernels checks that they return exactly
// what dist's kernels return, edge cases included.
func preparedKernel(name string, logScale bool) autodiff.Prepared {
	switch {
	case name == "Gamma" && logScale:
		return gammaLogPrepared{}
	case name == "Gamma":
		return gammaPrepared{}
	}
	return nil
}

// Gamma(shape a, rate b). The state is [ok, a log b - lgamma(a),
// log b - digamma(a), a/b] with ok 1 for valid parameters (both positive
// and finite), else 0.
const gammaState = 4

func prepareGamma(p, s []float64) {
	a, b := p[0], p[1]
	if !(a > 0 && a < math.Inf(1)) || !(b > 0 && b < math.Inf(1)) {
		s[0] = 0
		return
	}
	lg, _ := math.Lgamma(a)
	lb := math.Log(b)
	s[0], s[1], s[2], s[3] = 1, a*lb-lg, lb-dist.Digamma(a), a/b
}

// invalidGamma is the result of invalid parameters or a NaN value.
func invalidGamma(dp []float64) (float64, float64) {
	for i := range dp {
		dp[i] = math.NaN()
	}
	return math.NaN(), math.NaN()
}

// gammaLogPrepared splits dist.LogScale(Gamma): the density of x = e^l at l.
type gammaLogPrepared struct{}

func (gammaLogPrepared) StateLen() int              { return gammaState }
func (gammaLogPrepared) Prepare(p, state []float64) { prepareGamma(p, state) }

func (k gammaLogPrepared) Eval(l float64, p, s, dp []float64) (float64, float64) {
	return k.EvalLog(l, math.Exp(l), p, s, dp)
}

// EvalLog is Eval given x = exp(l).
func (gammaLogPrepared) EvalLog(l, x float64, p, s, dp []float64) (float64, float64) {
	if s[0] == 0 || math.IsNaN(l) {
		return invalidGamma(dp)
	}
	a, b := p[0], p[1]
	if dp != nil {
		dp[0] = s[2] + l
		dp[1] = s[3] - x
	}
	return s[1] + (a-1)*l - b*x, (a - 1) - b*x
}

// gammaPrepared splits the Gamma kernel at x.
type gammaPrepared struct{}

func (gammaPrepared) StateLen() int              { return gammaState }
func (gammaPrepared) Prepare(p, state []float64) { prepareGamma(p, state) }

func (gammaPrepared) Eval(x float64, p, s, dp []float64) (float64, float64) {
	if s[0] == 0 || math.IsNaN(x) {
		return invalidGamma(dp)
	}
	if !(x > 0) || math.IsInf(x, 1) {
		clear(dp)
		return math.Inf(-1), 0
	}
	a, b := p[0], p[1]
	lx := math.Log(x)
	if dp != nil {
		dp[0] = s[2] + lx
		dp[1] = s[3] - x
	}
	return s[1] + (a-1)*lx - b*x, (a-1)/x - b
}

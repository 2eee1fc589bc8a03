package dist

import "math"

// Gamma(shape a, rate b). The state is [ok, a log b - lgamma(a),
// log b - digamma(a), a/b] with ok 1 for valid parameters (both positive
// and finite), 0 for invalid ones and 2 for a ≥ gammaLoaderShape, whose
// elements take gammaLogLarge (then the rest of the state is unused). The
// common case is the one test ok != 1.
const gammaState = 4

func prepareGamma(p, s []float64) {
	a, b := p[0], p[1]
	if !(a > 0 && a < math.Inf(1)) || !(b > 0 && b < math.Inf(1)) {
		s[0] = 0
		return
	}
	if a >= gammaLoaderShape {
		s[0] = 2
		return
	}
	lg, _ := math.Lgamma(a)
	lb := logx(b)
	s[0], s[1], s[2], s[3] = 1, a*lb-lg, lb-Digamma(a), a/b
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
	if s[0] != 1 || math.IsNaN(l) {
		return gammaLogOther(l, x, p, s, dp)
	}
	a, b := p[0], p[1]
	if dp != nil {
		dp[0] = s[2] + l
		dp[1] = s[3] - x
	}
	return s[1] + (a-1)*l - b*x, (a - 1) - b*x
}

// gammaLogOther is EvalLog for a state that is not the common one: invalid
// parameters or a NaN value, or a shape from gammaLoaderShape on.
func gammaLogOther(l, x float64, p, s, dp []float64) (float64, float64) {
	if s[0] == 0 || math.IsNaN(l) {
		return invalidGamma(dp)
	}
	a, b := p[0], p[1]
	return gammaLogLargeDP(a, b, l, x, dp), (a - 1) - b*x
}

// EvalLogRun implements PreparedLogRun with EvalLog's arithmetic.
func (gammaLogPrepared) EvalLogRun(sum float64, l, x []float64, xc int, p, s []float64, step int, dx, ds []float64) (float64, int) {
	for j := range dx {
		q := j * step
		st, lj := s[gammaState*q:gammaState*q+gammaState], l[j*xc]
		if st[0] != 1 || math.IsNaN(lj) {
			if st[0] == 0 || math.IsNaN(lj) {
				return sum, j
			}
			xj, a, b, d := x[j*xc], p[2*q], p[2*q+1], ds[2*q:2*q+2]
			lp, da := gammaLogLarge(a, b, lj, xj)
			d[0] += da
			d[1] += a/b - xj
			sum += lp
			dx[j] = (a - 1) - b*xj
			continue
		}
		xj, a, b, d := x[j*xc], p[2*q], p[2*q+1], ds[2*q:2*q+2]
		d[0] += st[2] + lj
		d[1] += st[3] - xj
		sum += st[1] + (a-1)*lj - b*xj
		dx[j] = (a - 1) - b*xj
	}
	return sum, len(dx)
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
	lx := logx(x)
	if s[0] != 1 {
		return gammaLogLargeDP(a, b, lx, x, dp), (a-1)/x - b
	}
	if dp != nil {
		dp[0] = s[2] + lx
		dp[1] = s[3] - x
	}
	return s[1] + (a-1)*lx - b*x, (a-1)/x - b
}

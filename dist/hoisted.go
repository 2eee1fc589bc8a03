package dist

import "math"

// Hoisted kernels split off the work that depends on some arguments alone:
// a Normal's log σ, a Student t's log-gammas of ν. In a regression
// (y ~ Normal(mu, sigma) with a mean per observation and one sigma) the
// tape prepares that state once per evaluation instead of taking a
// logarithm per observation. Each Eval repeats its Kernel's arithmetic in
// the same order with the state's values in place of the calls they
// replace, so it returns the Kernel's numbers bit for bit
// (TestHoistedKernels).

// location–scale state, also that of a rate: [ok, log σ] with ok 1 for a
// valid σ, else 0.
const scaleState = 2

func prepareScale(sigma float64, s []float64) {
	if !positive(sigma) {
		s[0] = 0
		return
	}
	s[0], s[1] = 1, logx(sigma)
}

// normalHoisted is Normal's kernel with log σ hoisted.
type normalHoisted struct{}

func (normalHoisted) HoistArgs() uint        { return 1 << 1 }
func (normalHoisted) StateLen() int          { return scaleState }
func (normalHoisted) Prepare(p, s []float64) { prepareScale(p[1], s) }
func (normalHoisted) Eval(x float64, p, s, dp []float64) (float64, float64) {
	mu, sigma := p[0], p[1]
	if s[0] == 0 || !finite(mu) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	z := (x - mu) / sigma
	if dp != nil {
		dp[0] = z / sigma
		dp[1] = (z*z - 1) / sigma
	}
	return -0.5*z*z - s[1] - lnSqrt2Pi, -z / sigma
}

// logNormalHoisted is LogNormal's kernel with log σ hoisted.
type logNormalHoisted struct{}

func (logNormalHoisted) HoistArgs() uint        { return 1 << 1 }
func (logNormalHoisted) StateLen() int          { return scaleState }
func (logNormalHoisted) Prepare(p, s []float64) { prepareScale(p[1], s) }
func (logNormalHoisted) Eval(x float64, p, s, dp []float64) (float64, float64) {
	mu, sigma := p[0], p[1]
	if s[0] == 0 || !finite(mu) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0) || math.IsInf(x, 1) {
		return outside(dp)
	}
	y := logx(x)
	z := (y - mu) / sigma
	if dp != nil {
		dp[0] = z / sigma
		dp[1] = (z*z - 1) / sigma
	}
	return -y - s[1] - lnSqrt2Pi - 0.5*z*z, -(1 + z/sigma) / x
}

// cauchyHoisted is Cauchy's kernel with log σ hoisted.
type cauchyHoisted struct{}

func (cauchyHoisted) HoistArgs() uint        { return 1 << 1 }
func (cauchyHoisted) StateLen() int          { return scaleState }
func (cauchyHoisted) Prepare(p, s []float64) { prepareScale(p[1], s) }
func (cauchyHoisted) Eval(x float64, p, s, dp []float64) (float64, float64) {
	mu, sigma := p[0], p[1]
	if s[0] == 0 || !finite(mu) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	lp, dz, ds := cauchyCoreLog((x-mu)/sigma, sigma, s[1])
	if dp != nil {
		dp[0] = -dz
		dp[1] = ds
	}
	return lp - lnPi, dz
}

// laplaceHoisted is Laplace's kernel with log σ hoisted.
type laplaceHoisted struct{}

func (laplaceHoisted) HoistArgs() uint        { return 1 << 1 }
func (laplaceHoisted) StateLen() int          { return scaleState }
func (laplaceHoisted) Prepare(p, s []float64) { prepareScale(p[1], s) }
func (laplaceHoisted) Eval(x float64, p, s, dp []float64) (float64, float64) {
	mu, sigma := p[0], p[1]
	if s[0] == 0 || !finite(mu) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	r := x - mu
	var sign float64 // sign of x − μ; 0 at the kink
	switch {
	case r > 0:
		sign = 1
	case r < 0:
		sign = -1
	}
	az := math.Abs(r) / sigma
	if dp != nil {
		dp[0] = sign / sigma
		dp[1] = (az - 1) / sigma
	}
	return -math.Ln2 - s[1] - az, -sign / sigma
}

// halfNormalHoisted is HalfNormal's kernel with log σ hoisted.
type halfNormalHoisted struct{}

func (halfNormalHoisted) HoistArgs() uint        { return 1 << 0 }
func (halfNormalHoisted) StateLen() int          { return scaleState }
func (halfNormalHoisted) Prepare(p, s []float64) { prepareScale(p[0], s) }
func (halfNormalHoisted) Eval(x float64, p, s, dp []float64) (float64, float64) {
	sigma := p[0]
	if s[0] == 0 || math.IsNaN(x) {
		return invalid(dp)
	}
	if x < 0 || math.IsInf(x, 1) {
		return outside(dp)
	}
	z := x / sigma
	if dp != nil {
		dp[0] = (z*z - 1) / sigma
	}
	return math.Ln2 - lnSqrt2Pi - s[1] - 0.5*z*z, -z / sigma
}

// halfCauchyHoisted is HalfCauchy's kernel with log σ hoisted.
type halfCauchyHoisted struct{}

func (halfCauchyHoisted) HoistArgs() uint        { return 1 << 0 }
func (halfCauchyHoisted) StateLen() int          { return scaleState }
func (halfCauchyHoisted) Prepare(p, s []float64) { prepareScale(p[0], s) }
func (halfCauchyHoisted) Eval(x float64, p, s, dp []float64) (float64, float64) {
	sigma := p[0]
	if s[0] == 0 || math.IsNaN(x) {
		return invalid(dp)
	}
	if x < 0 || math.IsInf(x, 1) {
		return outside(dp)
	}
	lp, dx, ds := cauchyCoreLog(x/sigma, sigma, s[1])
	if dp != nil {
		dp[0] = ds
	}
	return lp + math.Ln2 - lnPi, dx
}

// Student t state: [ok, the log density's constant in ν (the log-gammas
// and ½ log νπ), log σ, log ν, ν's partial without the terms in z].
const studentTState = 5

// studentTHoisted is StudentT's kernel with the work in ν and σ hoisted.
type studentTHoisted struct{}

func (studentTHoisted) HoistArgs() uint { return 1<<0 | 1<<2 }
func (studentTHoisted) StateLen() int   { return studentTState }

func (studentTHoisted) Prepare(p, s []float64) {
	nu, sigma := p[0], p[2]
	if !positive(nu) || !positive(sigma) {
		s[0] = 0
		return
	}
	s[0], s[1], s[2], s[3], s[4] = 1, studentTConst(nu), logx(sigma), logx(nu), 0.5*(digammaDiff(0.5*nu, 0.5)-1/nu)
}

func (studentTHoisted) Eval(x float64, p, s, dp []float64) (float64, float64) {
	nu, mu, sigma := p[0], p[1], p[2]
	if s[0] == 0 || !finite(mu) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	z := (x - mu) / sigma
	q := z * z / nu
	w := 1 / (1 + q)
	omw := q * w
	if !(q < 1) {
		omw = 1 - w
	}
	var l1p float64
	if math.Abs(z) > 1e8 {
		l1p = 2*logx(math.Abs(z)) - s[3] + math.Log1p(1/q)
	} else {
		l1p = math.Log1p(q)
	}
	h := 0.5 * (nu + 1)
	lp := s[1]
	lp -= s[2] + h*l1p
	dmu := 2 * h * z * w / (nu * sigma)
	if dp != nil {
		dp[0] = s[4] - 0.5*l1p + h*omw/nu
		dp[1] = dmu
		dp[2] = (2*h*omw - 1) / sigma
	}
	return lp, -dmu
}

// Gamma and InvGamma state: [ok, log Γ(a), ψ(a)] with ok 1 for a valid
// shape below gammaLoaderShape, 2 from there on (Loader's form, which needs
// no state), 0 for an invalid one.
const gammaHoistState = 3

// gammaHoisted is Gamma's kernel with the work in the shape hoisted (a
// gamma regression: y ~ Gamma(alpha, alpha ./ mu), one shape, a rate per
// observation).
type gammaHoisted struct{}

func (gammaHoisted) HoistArgs() uint { return 1 << 0 }
func (gammaHoisted) StateLen() int   { return gammaHoistState }

func (gammaHoisted) Prepare(p, s []float64) { prepareShape(p[0], s) }

// prepareShape writes the Gamma and InvGamma state of shape a into s.
func prepareShape(a float64, s []float64) {
	switch {
	case !positive(a):
		s[0] = 0
	case a >= gammaLoaderShape:
		s[0] = 2
	default:
		lg, _ := math.Lgamma(a)
		s[0], s[1], s[2] = 1, lg, Digamma(a)
	}
}

func (gammaHoisted) Eval(x float64, p, s, dp []float64) (float64, float64) {
	a, b := p[0], p[1]
	if s[0] == 0 || !positive(b) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0) || math.IsInf(x, 1) {
		return outside(dp)
	}
	lx, lb := logx(x), logx(b)
	if s[0] == 2 {
		return gammaLogLargeDP(a, b, lx, x, dp), (a-1)/x - b
	}
	if dp != nil {
		dp[0] = lb - s[2] + lx
		dp[1] = a/b - x
	}
	return a*lb - s[1] + (a-1)*lx - b*x, (a-1)/x - b
}

// invGammaHoisted is InvGamma's kernel with the work in the shape hoisted
// (variances per group under one shape, or a scale per observation), from
// Gamma's state.
type invGammaHoisted struct{}

func (invGammaHoisted) HoistArgs() uint        { return 1 << 0 }
func (invGammaHoisted) StateLen() int          { return gammaHoistState }
func (invGammaHoisted) Prepare(p, s []float64) { prepareShape(p[0], s) }
func (invGammaHoisted) Eval(x float64, p, s, dp []float64) (float64, float64) {
	a, sc := p[0], p[1]
	if s[0] == 0 || !positive(sc) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0) || math.IsInf(x, 1) {
		return outside(dp)
	}
	lx := logx(x)
	if s[0] == 2 {
		return invGammaLogLarge(a, sc, lx, x, dp), (sc/x - (a + 1)) / x
	}
	ls := logx(sc)
	if dp != nil {
		dp[0] = ls - s[2] - lx
		dp[1] = a/sc - 1/x
	}
	return a*ls - s[1] - (a+1)*lx - sc/x, (sc/x - (a + 1)) / x
}

// exponentialHoisted is Exponential's kernel with log λ hoisted, for
// waiting times under one rate.
type exponentialHoisted struct{}

func (exponentialHoisted) HoistArgs() uint        { return 1 << 0 }
func (exponentialHoisted) StateLen() int          { return scaleState }
func (exponentialHoisted) Prepare(p, s []float64) { prepareScale(p[0], s) }
func (exponentialHoisted) Eval(x float64, p, s, dp []float64) (float64, float64) {
	rate := p[0]
	if s[0] == 0 || math.IsNaN(x) {
		return invalid(dp)
	}
	if x < 0 || math.IsInf(x, 1) {
		return outside(dp)
	}
	if dp != nil {
		dp[0] = 1/rate - x
	}
	return s[1] - rate*x, -rate
}

// Beta state: [ok, log B(a, b), ψ(a+b) − ψ(a), ψ(a+b) − ψ(b), and for
// a, b > 2 the parts of Loader's form in the shapes alone: log(a+b−1),
// the Stirling corrections of logBinomRaw(a−1, b−1, ·, ·) and its
// ½(log 2π + log(a−1) + log(b−1) − log(a+b−2))].
const betaHoistState = 7

// betaHoisted is Beta's kernel with the work in both shapes hoisted (a
// vector of probabilities under one prior, theta ~ Beta(a, b)). A beta
// regression in its mean and precision, Beta(mu .* phi, (1 - mu) .* phi),
// has both shapes per observation and takes the kernel; written
// BetaProportion(mu, phi) it hoists the work in phi (betaPropHoisted,
// betaprop.go).
type betaHoisted struct{}

func (betaHoisted) HoistArgs() uint { return 1<<0 | 1<<1 }
func (betaHoisted) StateLen() int   { return betaHoistState }

func (betaHoisted) Prepare(p, s []float64) {
	a, b := p[0], p[1]
	if !positive(a) || !positive(b) {
		s[0] = 0
		return
	}
	s[0], s[1], s[2], s[3] = 1, LogBeta(a, b), digammaDiff(a, b), digammaDiff(b, a)
	if a > 2 && b > 2 {
		k, j := a-1, b-1
		n := k + j
		s[4] = logx(a + b - 1)
		s[5] = stirlerr(n) - stirlerr(k) - stirlerr(j)
		s[6] = 0.5 * (ln2Pi + logx(k) + logx(j) - logx(n))
	}
}

func (betaHoisted) Eval(x float64, p, s, dp []float64) (float64, float64) {
	a, b := p[0], p[1]
	if s[0] == 0 || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0 && x < 1) {
		return outside(dp)
	}
	lx, l1x := logx(x), math.Log1p(-x)
	if dp != nil {
		dp[0] = lx + s[2]
		dp[1] = l1x + s[3]
	}
	return betaHoistedLog(a, b, x, lx, l1x, s), (a-1)/x - (b-1)/(1-x)
}

// betaHoistedLog is betaLogDensity from the Beta state s, with
// logBinomRaw's arithmetic spelt out around the state's parts.
func betaHoistedLog(a, b, x, lx, l1x float64, s []float64) float64 {
	plain := func() float64 { return (a-1)*lx + (b-1)*l1x - s[1] }
	if a <= 2 || b <= 2 {
		return plain()
	}
	k, j := a-1, b-1
	n := k + j
	t := 1 - x
	mx, mxlo := twoProd(n, x)
	my, mylo := twoProd(n, t)
	mylo += n * ((1 - t) - x)
	rx, ry := k/mx, j/my
	if math.IsInf(rx, 1) || math.IsInf(ry, 1) {
		return plain()
	}
	lc := s[5] - bd0(k, mx) - bd0(j, my)
	return s[4] + (lc - s[6]) - mxlo*(1-rx) - mylo*(1-ry)
}

// NegBinomial state: [ok, log Γ(φ), ψ(φ) below polygammaShift or its
// asymptotic series ψ(φ) − log φ from there, stirlerr(φ), log 2π + log φ].
const negBinomialHoistState = 5

// negBinomialHoisted is NegBinomial's kernel with the work in the
// dispersion hoisted (a count regression: a mean per observation, one φ).
type negBinomialHoisted struct{}

func (negBinomialHoisted) HoistArgs() uint { return 1 << 1 }
func (negBinomialHoisted) StateLen() int   { return negBinomialHoistState }

func (negBinomialHoisted) Prepare(p, s []float64) {
	phi := p[1]
	if !positive(phi) {
		s[0] = 0
		return
	}
	lg, _ := math.Lgamma(phi)
	s[0], s[1], s[3], s[4] = 1, lg, stirlerr(phi), ln2Pi+logx(phi)
	if phi < polygammaShift {
		s[2] = Digamma(phi)
	} else {
		s[2] = digammaAsymp(phi)
	}
}

func (negBinomialHoisted) Eval(k float64, p, s, dp []float64) (float64, float64) {
	return negBinomialHoistedEval(k, p, s, nil, dp)
}

// negBinomialHoistedEval is negBinomialHoisted's Eval from the dispersion's
// state s and, unless ds is nil, the count's data state (negBinomialData,
// of a count), whose values replace the calls in k alone.
func negBinomialHoistedEval(k float64, p, s, ds, dp []float64) (float64, float64) {
	mu, phi := p[0], p[1]
	if s[0] == 0 || !nonNegative(mu) || (ds == nil && math.IsNaN(k)) {
		return invalid(dp)
	}
	if ds == nil && !isCount(k) {
		return outside(dp)
	}
	if mu == 0 {
		return negBinomialZeroMean(k, dp)
	}
	l1p := math.Log1p(mu / phi)
	var lp float64
	l1k, haveL1k := 0.0, false // log1p(k/φ), which the partial in φ takes again
	switch {
	case k == 0:
		lp = -phi * l1p
	case k+phi >= stirlingMin:
		// logBinomRaw(φ, k, r·φ, r·μ) − log1p(k/φ), spelt out.
		r := (k + phi) / (mu + phi)
		n := phi + k
		var sk, lk float64 // stirlerr(k), log k
		if ds != nil {
			sk, lk = ds[1], ds[2]
		} else {
			sk, lk = stirlerr(k), logx(k)
		}
		lc := stirlerr(n) - s[3] - sk - bd0(phi, r*phi) - bd0(k, r*mu)
		l1k, haveL1k = math.Log1p(k/phi), true
		lp = lc - 0.5*(s[4]+lk-logx(n)) - l1k
	default:
		lg1, _ := math.Lgamma(k + phi)
		var lg2 float64 // log k!
		if ds != nil {
			lg2 = ds[3]
		} else {
			lg2, _ = math.Lgamma(k + 1)
		}
		lp = lg1 - lg2 - s[1] + k*(logx(mu)-logx(mu+phi)) - phi*l1p
	}
	if dp != nil {
		dp[0] = phi / (mu + phi) * (k - mu) / mu
		var dpsi float64
		if k > 0 { // digammaDiff(φ, k) from the state
			switch {
			case phi < polygammaShift:
				dpsi = Digamma(phi+k) - s[2]
			case haveL1k:
				dpsi = l1k + (digammaAsymp(phi+k) - s[2])
			default:
				dpsi = math.Log1p(k/phi) + (digammaAsymp(phi+k) - s[2])
			}
		}
		dp[1] = dpsi - l1p + (mu-k)/(mu+phi)
	}
	return lp, 0
}

// negBinomialLogHoisted is NegBinomialLog's kernel with the work in the
// dispersion hoisted, NegBinomial's state: where e^η is a normal float64 it
// is negBinomialHoisted at the mean e^η, as the kernel is NegBinomial's.
type negBinomialLogHoisted struct{}

func (negBinomialLogHoisted) HoistArgs() uint { return 1 << 1 }
func (negBinomialLogHoisted) StateLen() int   { return negBinomialHoistState }

func (negBinomialLogHoisted) Prepare(p, s []float64) { negBinomialHoisted{}.Prepare(p, s) }

func (negBinomialLogHoisted) Eval(k float64, p, s, dp []float64) (float64, float64) {
	return negBinomialLogHoistedEval(k, p, s, nil, dp)
}

// negBinomialLogHoistedEval is negBinomialLogHoisted's Eval, with the
// count's data state ds as in negBinomialHoistedEval.
func negBinomialLogHoistedEval(k float64, p, s, ds, dp []float64) (float64, float64) {
	eta, phi := p[0], p[1]
	if s[0] == 0 || !finite(eta) || (ds == nil && math.IsNaN(k)) {
		return invalid(dp)
	}
	if ds == nil && !isCount(k) {
		return outside(dp)
	}
	mu, direct := nbLogMean(eta, phi)
	if !direct {
		return negBinomialLogTail(k, eta, phi, dp)
	}
	q := [2]float64{mu, phi}
	lp, _ := negBinomialHoistedEval(k, q[:], s, ds, dp)
	if dp != nil {
		dp[0] = phi / (mu + phi) * (k - mu)
	}
	return lp, 0
}

// zeroInflatedNegBinomialHoisted is ZeroInflatedNegBinomial's kernel with
// NegBinomial's work in the dispersion hoisted, its state
// negBinomialHoisted's: a zero-inflated count regression (a mean per
// observation, one φ) then costs NegBinomial's regression and the mixing
// of the zeros, where the kernel took lgamma and digamma of φ per count.
type zeroInflatedNegBinomialHoisted struct{}

func (zeroInflatedNegBinomialHoisted) HoistArgs() uint { return 1 << 2 }
func (zeroInflatedNegBinomialHoisted) StateLen() int   { return negBinomialHoistState }

func (zeroInflatedNegBinomialHoisted) Prepare(p, s []float64) {
	negBinomialHoisted{}.Prepare(p[1:], s)
}

func (zeroInflatedNegBinomialHoisted) Eval(k float64, p, s, dp []float64) (float64, float64) {
	return zeroInflatedNegBinomialHoistedEval(k, p, s, nil, dp)
}

// zeroInflatedNegBinomialHoistedEval is the hoisted kernel's Eval, with
// the count's data state ds as in negBinomialHoistedEval.
func zeroInflatedNegBinomialHoistedEval(k float64, p, s, ds, dp []float64) (float64, float64) {
	psi, mu := p[0], p[1]
	if s[0] == 0 || !unitClosed(psi) || !positive(mu) || (ds == nil && math.IsNaN(k)) {
		return invalid(dp)
	}
	if ds == nil && !isCount(k) {
		return outside(dp)
	}
	lnb, _ := negBinomialHoistedEval(k, p[1:], s, ds, dp[min(1, len(dp)):])
	return zeroInflatedCount(psi, k, lnb, dp)
}

// hurdleNegBinomialHoisted is HurdleNegBinomial's kernel with
// NegBinomial's work in the dispersion hoisted, as
// zeroInflatedNegBinomialHoisted.
type hurdleNegBinomialHoisted struct{}

func (hurdleNegBinomialHoisted) HoistArgs() uint { return 1 << 2 }
func (hurdleNegBinomialHoisted) StateLen() int   { return negBinomialHoistState }

func (hurdleNegBinomialHoisted) Prepare(p, s []float64) {
	negBinomialHoisted{}.Prepare(p[1:], s)
}

func (hurdleNegBinomialHoisted) Eval(k float64, p, s, dp []float64) (float64, float64) {
	return hurdleNegBinomialHoistedEval(k, p, s, nil, dp)
}

// hurdleNegBinomialHoistedEval is the hoisted kernel's Eval, with the
// count's data state ds as in negBinomialHoistedEval.
func hurdleNegBinomialHoistedEval(k float64, p, s, ds, dp []float64) (float64, float64) {
	psi, mu, phi := p[0], p[1], p[2]
	if s[0] == 0 || !unitClosed(psi) || !positive(mu) || (ds == nil && math.IsNaN(k)) {
		return invalid(dp)
	}
	if lp, done := hurdleGate(psi, k, dp); done {
		return lp, 0
	}
	lp, _ := negBinomialHoistedEval(k, p[1:], s, ds, dp[min(1, len(dp)):])
	return hurdleNegBinomialCount(psi, mu, phi, k, lp, dp)
}

package dist

import "math"

// LogitScale returns the family u evaluated at t = logit x instead of x,
// and ok true, where u has an exact logit-space kernel: its Kernel takes t
// and returns log p(x) (the density of x, no Jacobian) and ∂ log p/∂t =
// x(1−x)·∂ log p/∂x. The compiler uses it for the prior of a unit latent,
// whose coordinate is logit x: far out on the logit, where x = σ(t)
// rounds to 0 or 1 (or is kept a subnormal just inside), Beta's ∂/∂x =
// (a−1)/x − (b−1)/(1−x) overflows and the chain rule through dx/dt =
// x(1−x) gave ∞·0; the logit-space kernel is (a−1)σ(−t) − (b−1)σ(t),
// finite everywhere, and the log density takes log x = −softplus(−t) and
// log(1−x) = −softplus(t), exact where x is not. ok is false for the
// other families, which the compiler evaluates at x as before.
func LogitScale(u *Univariate) (Univariate, bool) {
	k, ok := logitKernels[u.Name]
	if !ok {
		return *u, false
	}
	v := *u
	v.LogitArg = true
	v.Kernel = k
	v.Prepared = nil // the natural scale's
	v.Hoisted = nil
	v.DataHoisted = nil
	return v, true
}

// logitKernels are the exact logit-space kernels, by family name.
var logitKernels = map[string]Kernel{
	"Beta": betaLogitKernel,
}

// betaLogitKernel: Beta(a, b) at x = σ(t). Its value is Beta's
// (betaLogDensity, Loader's form at large shapes) with the logs of x and
// 1 − x from t; betaLogDensity falls back to the plain sum where x is 0
// or 1 in floating point.
func betaLogitKernel(t float64, p, dp []float64) (float64, float64) {
	a, b := p[0], p[1]
	if !positive(a) || !positive(b) || math.IsNaN(t) {
		return invalid(dp)
	}
	lx, l1x := -Softplus(-t), -Softplus(t)
	if dp != nil {
		dp[0] = lx + digammaDiff(a, b)
		dp[1] = l1x + digammaDiff(b, a)
	}
	dt := (a-1)*InvLogit(-t) - (b-1)*InvLogit(t)
	return betaLogDensity(a, b, InvLogit(t), lx, l1x), dt
}

package dist

import (
	"math"
	"math/rand/v2"
)

// Beta and Dirichlet draws built from gamma draws, with their
// reparameterisation gradients. With x_k ~ Gamma(α_k, 1) independent,
// z = x/Σx is Dirichlet(α), and x_1/(x_1+x_2) is Beta(α_1, α_2). Each
// gamma draw moves only with its own shape, so the Jacobian of z with
// respect to α is z_j·(δ_jk − z_k)·g_k with g_k = d(log x_k)/dα_k. Everything
// is computed from log x_k, so draws with tiny shapes (whose x_k underflow)
// keep their relative sizes.

// SampleBetaLogit draws x ~ Beta(a, b) with g and returns its logit
// l = log(x/(1−x)) = log x_a − log x_b together with dl/da and dl/db. The
// logit is the numerically safe form: x itself rounds to 0 or 1 when a or b
// is small.
func SampleBetaLogit(a, b float64, g GammaGradient, rng *rand.Rand) (logit, dlda, dldb float64) {
	la, da := g.SampleLog(a, rng)
	lb, db := g.SampleLog(b, rng)
	return la - lb, da, -db
}

// SampleBeta draws x ~ Beta(a, b) with g and returns it with its
// reparameterisation partials dx/da and dx/db.
func SampleBeta(a, b float64, g GammaGradient, rng *rand.Rand) (x, dxda, dxdb float64) {
	l, dla, dlb := SampleBetaLogit(a, b, g, rng)
	x = InvLogit(l)
	w := x * InvLogit(-l) // x(1−x) without cancellation
	return x, w * dla, w * dlb
}

// SampleDirichletLog draws z ~ Dirichlet(alpha) with g, writing log z_k into
// logz and g_k = d(log x_k)/dα_k of the underlying gamma draws into dlogx (see
// DirichletVJP and DirichletLogVJP for the gradients with respect to alpha).
// The slices must have equal lengths ≥ 1; it does not allocate.
func SampleDirichletLog(logz, dlogx, alpha []float64, g GammaGradient, rng *rand.Rand) {
	if len(logz) != len(alpha) || len(dlogx) != len(alpha) || len(alpha) == 0 {
		panic(errLength)
	}
	m := math.Inf(-1)
	for k, a := range alpha {
		logz[k], dlogx[k] = g.SampleLog(a, rng)
		m = math.Max(m, logz[k])
	}
	var s float64
	for _, l := range logz {
		s += math.Exp(l - m)
	}
	lse := m + math.Log(s)
	for k := range logz {
		logz[k] -= lse
	}
}

// SampleDirichlet is SampleDirichletLog followed by z_k = exp(log z_k),
// written into z. Components may underflow to 0 for small shapes.
func SampleDirichlet(z, dlogx, alpha []float64, g GammaGradient, rng *rand.Rand) {
	SampleDirichletLog(z, dlogx, alpha, g, rng)
	for k, l := range z {
		z[k] = math.Exp(l)
	}
}

// DirichletVJP writes into dst the gradient with respect to alpha of a
// function f of a Dirichlet draw z, given w_j = ∂f/∂z_j and the dlogx of the
// draw: dst_k = Σ_j w_j·∂z_j/∂α_k = g_k·z_k·(w_k − Σ_j w_j z_j). dst may
// alias w. It returns dst and does not allocate.
func DirichletVJP(dst, w, z, dlogx []float64) []float64 {
	if len(w) != len(z) || len(dlogx) != len(z) || len(dst) != len(z) {
		panic(errLength)
	}
	var wz float64
	for j, zj := range z {
		wz += w[j] * zj
	}
	for k, zk := range z {
		dst[k] = dlogx[k] * zk * (w[k] - wz)
	}
	return dst
}

// DirichletLogVJP is DirichletVJP for a function of log z: given
// v_j = ∂f/∂(log z_j) it writes dst_k = g_k·(v_k − z_k·Σ_j v_j), exact when
// components of z underflow. dst may alias v.
func DirichletLogVJP(dst, v, z, dlogx []float64) []float64 {
	if len(v) != len(z) || len(dlogx) != len(z) || len(dst) != len(z) {
		panic(errLength)
	}
	var sv float64
	for _, vj := range v {
		sv += vj
	}
	for k, zk := range z {
		dst[k] = dlogx[k] * (v[k] - zk*sv)
	}
	return dst
}

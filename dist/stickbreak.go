package dist

import "math"

// StickBreakLog writes into dst (length K ≥ 2) the logs log x_k of the
// simplex x made from the K−1 unconstrained coordinates y by Stan's
// stick-breaking transform: with u_k = y_k − log(K−k−1) (0-based k),
// z_k = inv_logit(u_k), x_k = (1 − Σ_{j<k} x_j)·z_k and x_{K−1} the rest.
// It works in logs throughout (log x_k = log z_k + Σ_{j<k} log(1 − z_j)),
// so a tiny x_k keeps its log where x_k itself would round to 0. y = 0 is
// the simplex's centre, x_k = 1/K. The map from y to the first K−1 entries
// is triangular with dx_k/dy_k = x_k·(1 − z_k), and its log Jacobian
// telescopes to Σ_{k<K} log x_k, all K entries (StickBreakLogJac).
func StickBreakLog(dst, y []float64) {
	k := len(dst)
	if len(y) != k-1 || k < 2 {
		panic("dist: StickBreakLog: bad lengths")
	}
	rest := 0.0 // log of the stick left, Σ_{j<k} log(1 − z_j)
	for i, v := range y {
		u := v - math.Log(float64(k-i-1))
		dst[i] = rest - Softplus(-u) // log z = −Softplus(−u)
		rest -= Softplus(u)          // log(1 − z) = −Softplus(u)
	}
	dst[k-1] = rest
}

// StickBreakCoords writes into dst (length K−1) the coordinates y of the
// simplex whose logs are logx (length K): the inverse of StickBreakLog.
// Only the first K−1 entries are read; the last is the rest.
func StickBreakCoords(dst, logx []float64) {
	k := len(logx)
	if len(dst) != k-1 || k < 2 {
		panic("dist: StickBreakCoords: bad lengths")
	}
	rest := 0.0
	for i := range dst {
		lz := min(logx[i]-rest, 0) // log z_i, z_i = x_i / (stick left)
		l1z := log1mExp(lz)        // log(1 − z_i)
		dst[i] = lz - l1z + math.Log(float64(k-i-1))
		rest += l1z
	}
}

// StickBreakLogJac returns log |det ∂(x_0, …, x_{K−2})/∂y| of the
// stick-breaking transform at the simplex of logs logx: Σ_k log x_k over
// all K entries (StickBreakLog). Its gradient in log x is 1 per entry.
func StickBreakLogJac(logx []float64) float64 {
	s := 0.0
	for _, v := range logx {
		s += v
	}
	return s
}

// StickBreakGrad turns g, the gradient of a function with respect to the K
// logs log x of a simplex (StickBreakLog of y), into its gradient with
// respect to the K−1 coordinates y, written over g[0 : K−1] (g[K−1] is
// left alone). With z_j = inv_logit(u_j), ∂log x_k/∂u_j is 1 − z_j for
// k = j, −z_j for k > j, 0 for k < j, so the result is g_j(1 − z_j) −
// z_j·Σ_{k>j} g_k. z_j is read off logx as x_j over the stick left at j,
// which is x_j + … + x_{K−1}: descending j sums that stick (in logs) and
// reads each g_k before it is overwritten, with no scratch.
func StickBreakGrad(g, logx []float64) {
	k := len(g)
	if len(logx) != k || k < 2 {
		panic("dist: StickBreakGrad: bad lengths")
	}
	after := g[k-1]    // Σ_{k>j} g_k
	stick := logx[k-1] // log of the stick left after j
	for j := k - 2; j >= 0; j-- {
		next := stick
		stick = LogAddExp(logx[j], next)
		z, z1 := math.Exp(logx[j]-stick), math.Exp(next-stick)
		gj := g[j]
		g[j] = gj*z1 - z*after
		after += gj
	}
}

package sgvb

import (
	"math"
	"sort"
)

// ParetoK returns the Pareto k̂ diagnostic of importance sampling with log
// weights lw (log p − log q over draws of q), as in Vehtari et al., "Pareto
// smoothed importance sampling": a generalized Pareto distribution is fitted
// to the M = ⌈min(S/5, 3√S)⌉ largest weights' exceedances over the next
// largest one by the Zhang & Stephens (2009) posterior-mean estimator, and
// the shape is shrunk towards 0.5 with the usual weak prior (weight 10
// pseudo-observations). Non-finite entries are ignored. It returns NaN for
// fewer than 10 usable weights and −Inf when the tail is flat: every tail
// weight within a factor 1 + 10⁻⁶ of the largest (q = p, or q a hair from
// it, where the fit's shape would be the shape of rounding and optimizer
// noise).
func ParetoK(lw []float64) float64 {
	t, ok := fitTail(lw)
	switch {
	case !ok:
		return math.NaN()
	case t.flat:
		return math.Inf(-1)
	}
	return t.k
}

// paretoTail is the generalized Pareto fit to the largest weights of a set
// of log weights: the M largest finite ones, at idx[S−M:] of idx (the
// indices of the S finite log weights in increasing order of weight),
// relative to the largest, mx, as exceedances over cut, the next largest
// weight's; shape k and scale sigma, or flat when every tail weight is
// within flatTail of the largest (k and sigma then unset).
type paretoTail struct {
	idx      []int
	M        int
	mx, cut  float64
	k, sigma float64
	flat     bool
}

// fitTail fits the tail of lw as ParetoK describes; false for fewer than 10
// finite weights (a tail of fewer than 5).
func fitTail(lw []float64) (t paretoTail, ok bool) {
	idx := make([]int, 0, len(lw))
	for i, v := range lw {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			idx = append(idx, i)
		}
	}
	S := len(idx)
	if S < 10 {
		return t, false
	}
	sort.SliceStable(idx, func(a, b int) bool { return lw[idx[a]] < lw[idx[b]] })
	M := int(math.Ceil(math.Min(0.2*float64(S), 3*math.Sqrt(float64(S)))))
	if M < 5 {
		return t, false
	}
	t.idx, t.M = idx, M
	t.mx = lw[idx[S-1]]
	t.cut = math.Exp(lw[idx[S-M-1]] - t.mx)
	x := make([]float64, M)
	for i := range x {
		x[i] = math.Exp(lw[idx[S-M+i]]-t.mx) - t.cut
	}
	if x[M-1] <= flatTail {
		t.flat = true
		return t, true
	}
	if x[0] <= 0 { // ties at the threshold
		for i := range x {
			x[i] = math.Max(x[i], x[M-1]*1e-12)
		}
	}
	t.k, t.sigma = gpdFit(x)
	return t, true
}

// flatTail is the largest weight spread (relative to the largest weight)
// under which the tail counts as flat. Such weights make importance
// sampling exact to 10⁻⁶ whatever the tail's shape, and a shape fitted to
// them says nothing: the Gamma–Poisson fit of case B (design note §4.5)
// ends with q's shape 1e-9 off the posterior's and tail weights spread by
// 2e-8, on which the fit returned k̂ = 0.80.
const flatTail = 1e-6

// gpdFit fits a generalized Pareto distribution to the sorted positive
// exceedances x by Zhang & Stephens' estimator with the weak prior of
// Vehtari et al. on the shape, returning the shape k and scale σ.
func gpdFit(x []float64) (k, sigma float64) {
	n := len(x)
	const prior = 3
	m := 30 + int(math.Sqrt(float64(n)))
	xq := x[int(float64(n)/4+0.5)-1] // first quartile
	theta := make([]float64, m)
	ll := make([]float64, m)
	for j := range theta {
		t := 1/x[n-1] + (1-math.Sqrt(float64(m)/(float64(j+1)-0.5)))/(prior*xq)
		theta[j] = t
		kk := 0.0
		for _, xi := range x {
			kk += math.Log1p(-t * xi)
		}
		kk /= float64(n)
		ll[j] = float64(n) * (math.Log(-t/kk) - kk - 1)
		if math.IsNaN(ll[j]) {
			ll[j] = math.Inf(-1)
		}
	}
	// posterior-mean weights w_j = 1/Σ_i exp(ll_i − ll_j)
	th := 0.0
	wsum := 0.0
	for j := range theta {
		if math.IsInf(ll[j], -1) {
			continue
		}
		s := 0.0
		for i := range ll {
			s += math.Exp(ll[i] - ll[j])
		}
		w := 1 / s
		wsum += w
		th += w * theta[j]
	}
	th /= wsum
	for _, xi := range x {
		k += math.Log1p(-th * xi)
	}
	k /= float64(n)
	sigma = -k / th
	// weakly informative prior: shrink k towards 0.5
	const a = 10
	k = (float64(n)*k + a*0.5) / (float64(n) + a)
	return k, sigma
}

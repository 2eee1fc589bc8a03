package sgvb

import (
	"math"
	"slices"
)

// ParetoK returns the Pareto k̂ diagnostic of importance sampling with log
// weights lw (log p − log q over draws of q), as in Vehtari et al., "Pareto
// smoothed importance sampling": a generalized Pareto distribution is fitted
// to the M = ⌈min(S/5, 3√S)⌉ largest weights' exceedances over the next
// largest one by the Zhang & Stephens (2009) posterior-mean estimator, and
// the shape is shrunk towards 0.5 with the usual weak prior (weight 10
// pseudo-observations). Non-finite entries are ignored. It returns NaN for
// fewer than PSISMinDraws usable weights and −Inf when the tail is flat:
// every tail weight within a factor 1 + 10⁻⁶ of the largest (q = p, or q a
// hair from it, where the fit's shape would be the shape of rounding and
// optimizer noise).
func ParetoK(lw []float64) float64 {
	t, ok := fitTail(lw, nil, 1)
	switch {
	case !ok:
		return math.NaN()
	case t.flat:
		return math.Inf(-1)
	}
	return t.k
}

// PSISMinDraws is the fewest draws with a finite weight from which a
// Pareto k̂ is estimated: the tail M = ⌈min(S/5, 3√(S/reff))⌉ needs at
// least 5 weights, as the loo package's does, and S/5 reaches 5 at
// S = 21. Below it ParetoK and PSIS's k̂ are NaN.
const PSISMinDraws = 21

// paretoTail is the generalized Pareto fit to the largest weights of a set
// of log weights: the M largest of the S finite ones, whose indices are
// tail in increasing order of weight (equal weights in increasing index, as
// a stable sort orders them), relative to the largest, mx, as exceedances
// over cut, the next largest weight's; shape k and scale sigma, or flat
// when every tail weight is within flatTail of the largest (k and sigma
// then unset).
type paretoTail struct {
	tail     []int
	S, M     int
	mx, cut  float64
	k, sigma float64
	flat     bool
}

// psisScratch holds the buffers of one tail fit at a time, reused from
// call to call (a nil *psisScratch allocates them afresh).
type psisScratch struct {
	top          []ranked
	tail         []int
	x, theta, ll []float64
}

// ranked is a log weight and its index, ordered by weight and then by
// index (rankLess).
type ranked struct {
	v float64
	i int
}

func rankLess(a, b ranked) bool { return a.v < b.v || (a.v == b.v && a.i < b.i) }

// ParetoDiagnostics returns ParetoK(lw) and the relative effective sample
// size of the importance weights exp(lw) over their S finite entries:
// ESS/S = 1/(S·Σ w̃²) = 1/(1 + cv²), w̃ the normalised weights and cv their
// coefficient of variation (Kong 1992), 1 for equal weights and 1/S for
// one weight carrying all. It is the smaller of the raw weights' and the
// Pareto-smoothed ones' (PSIS): the raw weights are p/q at the draws,
// whose single far draw smoothing damps, while where k̂ is above 1 the
// smoothed tail is pushed up to the largest raw weight, a tail heavier
// than the draws show. NaN for no finite weight; where some but not all are +Inf, their share of
// the draws (they carry all the weight).
func ParetoDiagnostics(lw []float64) (k, relESS float64) {
	lws, k := PSIS(lw)
	mx, inf, n := math.Inf(-1), 0, 0
	for _, v := range lw {
		switch {
		case math.IsInf(v, 1):
			inf++
			n++
		case !math.IsNaN(v) && !math.IsInf(v, 0):
			mx = math.Max(mx, v)
			n++
		}
	}
	switch {
	case inf == n:
		return k, math.NaN()
	case inf > 0: // p/q infinite at a draw (q's density underflowed where p's did not): those draws carry all the weight
		return k, float64(inf) / float64(n)
	}
	S, s, s2, t2 := 0, 0.0, 0.0, 0.0
	for i, v := range lw {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		S++
		w := math.Exp(v - mx)
		s += w
		s2 += w * w
		ws := math.Exp(lws[i]) // the smoothed weights sum to 1: no overflow
		t2 += ws * ws
	}
	if S == 0 || !(t2 > 0) {
		return k, math.NaN()
	}
	raw := s * s / s2 / float64(S)
	return k, math.Min(1, math.Min(raw, 1/(float64(S)*t2)))
}

// NegligibleCV is the largest coefficient of variation of the importance
// weights (ParetoDiagnostics) at which a Pareto k̂ above 0.7 raises no
// alarm (ParetoAlarm). Over the draws, reweighting them by w̃ moves the
// mean of any function h by |Σ (w̃_s − 1/S)(h_s − h̄)| ≤ cv·sd(h)
// (Cauchy–Schwarz), and a probability by at most cv/2: at cv ≤ 0.2 the
// weights p/q, however heavy the tail beyond the draws that k̂ reads,
// move none of q's means by more than a fifth of its sd. For weights
// close to each other cv is about the sd of the log weights in nats.
// Measured (docs/inference.md): accurate normal q's of a one-parameter
// multinomial logit and of a Student-t(15), k̂ 1.1–3.4, have cv
// 0.05–0.11; a mean-field q of a 2-D normal of correlation −0.99 has
// 10–13, one of a Student-t(3) 0.3–7.
const NegligibleCV = 0.2

// WeightsCV returns the coefficient of variation √(1/r − 1) of importance
// weights whose relative effective sample size is r (ParetoDiagnostics):
// NaN for r not in (0, 1].
func WeightsCV(relESS float64) float64 {
	if !(relESS > 0 && relESS <= 1) {
		return math.NaN()
	}
	return math.Sqrt(1/relESS - 1)
}

// TailNegligible reports whether k̂ is above 0.7 while the weights'
// coefficient of variation, from their relative ESS (ParetoDiagnostics),
// is at most NegligibleCV: the weights have a heavy tail that carries no weight in
// the draws (an accurate q whose ratio p/q grows without bound far in its
// tails: a Gaussian q of a posterior whose log likelihood turns linear, or
// of a Student-t(15)). False for a relative ESS not computed (NaN or 0).
func TailNegligible(k, relESS float64) bool {
	return k > 0.7 && WeightsCV(relESS) <= NegligibleCV
}

// ParetoAlarm reports whether a fit's k̂ and the relative ESS of its
// weights (ParetoDiagnostics) call q an unreliable approximation of the posterior:
// k̂ above 0.7 unless the tail is negligible (TailNegligible). The fit's
// Pareto warning, and gpp's hints to change q's family or to non-centre
// a hierarchy, follow it.
func ParetoAlarm(k, relESS float64) bool { return k > 0.7 && !TailNegligible(k, relESS) }

// fitTail fits the tail of lw as ParetoK describes; false for fewer than
// PSISMinDraws finite weights or a tail of fewer than 5. reff is the
// relative efficiency of the draws (ESS/S; 1 for independent draws of q):
// correlated MCMC draws take the longer tail M = ⌈min(S/5, 3√(S/reff))⌉,
// as the loo package does. The tail's indices are sc's
// buffer, valid until sc's next use.
//
// Only the M + 1 largest weights are ordered: a min-heap keeps the largest
// seen in one pass over lw (most weights are below its least and cost one
// comparison), and they are then sorted, in the order a stable sort of all
// the weights leaves them.
func fitTail(lw []float64, sc *psisScratch, reff float64) (t paretoTail, ok bool) {
	if sc == nil {
		sc = &psisScratch{}
	}
	S := 0
	for _, v := range lw {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			S++
		}
	}
	if S < PSISMinDraws {
		return t, false
	}
	M := int(math.Ceil(math.Min(0.2*float64(S), 3*math.Sqrt(float64(S)/reff))))
	if M < 5 {
		return t, false
	}
	top := sc.top[:0]
	for i, v := range lw {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		e := ranked{v, i}
		switch {
		case len(top) <= M:
			top = append(top, e)
			siftUp(top, len(top)-1)
		case rankLess(top[0], e):
			top[0] = e
			siftDown(top, 0)
		}
	}
	sc.top = top
	slices.SortFunc(top, func(a, b ranked) int {
		if rankLess(a, b) {
			return -1
		}
		return 1 // no two are equal: their indices differ
	})
	tail := sc.tail[:0]
	for _, e := range top[1:] {
		tail = append(tail, e.i)
	}
	sc.tail = tail
	t.tail, t.S, t.M = tail, S, M
	t.mx = top[M].v
	t.cut = math.Exp(top[0].v - t.mx)
	x := grow(sc.x, M)
	sc.x = x
	for i := range x {
		x[i] = math.Exp(top[i+1].v-t.mx) - t.cut
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
	t.k, t.sigma = gpdFit(x, sc)
	return t, true
}

// siftUp restores the min-heap h (by rankLess) after h[j] was added.
func siftUp(h []ranked, j int) {
	for j > 0 {
		p := (j - 1) / 2
		if !rankLess(h[j], h[p]) {
			return
		}
		h[j], h[p] = h[p], h[j]
		j = p
	}
}

// siftDown restores the min-heap h (by rankLess) after h[j] was replaced.
func siftDown(h []ranked, j int) {
	for {
		c := 2*j + 1
		if c >= len(h) {
			return
		}
		if r := c + 1; r < len(h) && rankLess(h[r], h[c]) {
			c = r
		}
		if !rankLess(h[c], h[j]) {
			return
		}
		h[j], h[c] = h[c], h[j]
		j = c
	}
}

// grow returns buf resliced to length n, reallocated if it is too short.
func grow(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	return buf[:n]
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
func gpdFit(x []float64, sc *psisScratch) (k, sigma float64) {
	n := len(x)
	const prior = 3
	m := 30 + int(math.Sqrt(float64(n)))
	xq := x[int(float64(n)/4+0.5)-1] // first quartile
	theta := grow(sc.theta, m)
	ll := grow(sc.ll, m)
	sc.theta, sc.ll = theta, ll
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

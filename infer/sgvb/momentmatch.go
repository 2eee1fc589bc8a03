package sgvb

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/dist"
)

// Moment matching for PSIS-LOO (Paananen, Piironen, Bürkner and Vehtari,
// "Implicitly adaptive importance sampling", 2021; the loo package's
// loo_moment_match). Where observation i's weights 1/p(y_i | θ_s) have a
// Pareto k̂ too high to trust, the draws θ_s (of the posterior, or of a
// proposal g weighted by p/g) are moved by an affine map T, chosen so
// that their mean, then their marginal variances, then their covariance
// match those the weights give, and weighted again; a move is kept when
// it lowers k̂. The moved draws T(θ_s) have the density g(θ_s)/|det T|, so
// their log weights for the leave-one-out posterior are
// log p(T(θ_s), y) − log p(y_i | T(θ_s)) − log g(θ_s) up to a constant.
// The final estimate weights half the draws moved and half not by the
// deterministic mixture ½g + ½g_T of both proposals, which keeps it
// consistent although T was adapted on the same draws.

// MMMaxIter is the most adapting rounds moment matching runs for one
// observation (loo's max_iters).
const MMMaxIter = 30

// MMThreshold is the k̂ above which moment matching adapts, for S draws:
// min(1 − 1/log₁₀ S, 0.7), the threshold of PSIS's reliability (loo's
// ps_khat_threshold).
func MMThreshold(S int) float64 {
	return math.Min(1-1/math.Log10(float64(S)), 0.7)
}

// MMDraws are the draws that moment matching moves, in coordinates where
// any point is valid (the sampler's unconstrained ones), with the log
// densities of the target and of the proposal they were drawn from in
// those coordinates.
type MMDraws struct {
	Dim  int
	X    []float64 // S draws, row s at X[s·Dim:(s+1)·Dim]
	LogP []float64 // log p(θ_s, y), up to a constant shared by MMEval's
	// LogG is the log density of the draws' proposal g (up to a constant
	// shared by MMEval's), for draws of an approximation weighted by p/g
	// (PSISLOO); nil: the draws are of the posterior itself, g = p.
	LogG []float64
	Reff float64 // the draws' relative efficiency for the observation (PSISLOOMCMC's; 1 for independent draws)
	// Period is R when draw s comes from component s mod R of a proposal
	// (a mixture of R restarts), so that the split moves draws of every
	// component; 0 or 1: the draws come in blocks, or from one proposal.
	Period int
}

// MMEval evaluates, at each of the points x (row r at xs[r·Dim:(r+1)·Dim]),
// the log joint density log p(x, y) into lp[r], the observation's log
// likelihood log p(y_i | x) into ll[r] and, unless lg is nil (MMDraws.LogG
// nil), the proposal's log density into lg[r]. A point where any is not
// finite gets weight 0.
type MMEval func(xs, lp, ll, lg []float64)

// MMResult is one observation's moment-matched PSIS-LOO estimate.
type MMResult struct {
	Point  LOOPoint // elpd_i, lpd_i − elpd_i (lpd_i of the unmoved draws) and the final k̂
	K0     float64  // k̂ before moment matching
	Shifts int      // accepted moves matching the mean
	Scales int      // accepted moves matching the mean and marginal variances
	Covs   int      // accepted moves matching the mean and covariance
	Evals  int      // points evaluated
}

// MomentMatchLOO returns observation i's PSIS-LOO estimate after moment
// matching the draws d, whose log likelihoods for the observation are ll,
// evaluating moved draws by eval. It adapts while k̂ is above
// MMThreshold(S), for at most MMMaxIter rounds; with no move accepted the
// estimate is the unmoved draws' (PSISLOOMCMC's, or PSISLOO's with log
// ratios LogP − LogG).
func MomentMatchLOO(d MMDraws, ll []float64, eval MMEval) MMResult {
	S, n := len(d.LogP), d.Dim
	if len(ll) != S || len(d.X) != S*n || (d.LogG != nil && len(d.LogG) != S) {
		panic(fmt.Sprintf("sgvb: MomentMatchLOO: %d log likelihoods, %d coordinates and %d proposal densities for %d draws of dimension %d",
			len(ll), len(d.X), len(d.LogG), S, n))
	}
	m := newMMState(d, ll, eval)
	lr := make([]float64, S) // log p − log g (0 for posterior draws), then logSumExpSum's scratch
	if d.LogG != nil {
		for s := range lr {
			lr[s] = d.LogP[s] - d.LogG[s]
		}
	}
	full, _ := PSIS(lr) // the full data's weights, as PSISLOO's lpd_i
	lpd := logSumExpSum(lr, full, ll)
	m.res.K0 = m.k
	thr := MMThreshold(S)
	for range MMMaxIter {
		if !(m.k > thr) || !(m.shift() || m.scale() || m.covariance()) {
			break
		}
	}
	if m.res.Shifts+m.res.Scales+m.res.Covs > 0 {
		m.k = m.split(ll)
	}
	elpd := logSumExpSum(lr, m.lws, m.ll)
	m.res.Point = LOOPoint{ELPD: elpd, P: lpd - elpd, K: m.k}
	return m.res
}

// mmState is MomentMatchLOO's state: the current draws φ = T(θ) with their
// log joint, log likelihood and (for a proposal other than p) proposal
// density, their log weights and k̂, and a candidate move's buffers.
type mmState struct {
	d                              MMDraws
	g                              []float64 // the proposal's log density at the unmoved draws: LogG, or LogP
	eval                           MMEval
	reff                           float64
	S, n                           int
	t                              affine
	phi, lp, ll, lg                []float64 // lg nil for posterior draws
	lw, lws                        []float64 // log weights, raw and smoothed (normalised)
	k                              float64
	cand, lpC, llC, lgC, lwC, lwsC []float64
	mean, wmean, sd, wsd           []float64
	ratio                          []float64   // scale's wsd/sd
	tail                           psisScratch // PSIS's tail buffers, kept between weighings
	res                            MMResult
}

func newMMState(d MMDraws, ll []float64, eval MMEval) *mmState {
	S, n := len(d.LogP), d.Dim
	m := &mmState{d: d, g: d.LogG, eval: eval, reff: relEff(d.Reff), S: S, n: n,
		t:   affine{a: make([]float64, n), c: make([]float64, n)},
		phi: slices.Clone(d.X), lp: slices.Clone(d.LogP), ll: slices.Clone(ll),
		lw: make([]float64, S), lws: make([]float64, S),
		cand: make([]float64, S*n), lpC: make([]float64, S), llC: make([]float64, S),
		lwC: make([]float64, S), lwsC: make([]float64, S),
		mean: make([]float64, n), wmean: make([]float64, n), sd: make([]float64, n), wsd: make([]float64, n),
		ratio: make([]float64, n)}
	if m.g == nil {
		m.g = d.LogP
	} else {
		m.lg, m.lgC = slices.Clone(d.LogG), make([]float64, S)
	}
	for j := range m.t.a {
		m.t.a[j] = 1
	}
	m.k = m.weigh(m.lw, m.lws, m.lp, m.ll)
	return m
}

// weigh writes the log weights of moved draws with log joint lp and log
// likelihood ll into lw, smoothed into lws, and returns their k̂. A draw
// T(θ_s) has the proposal density g(θ_s)/|det T|, whose constant cancels.
func (m *mmState) weigh(lw, lws, lp, ll []float64) float64 {
	for s := range lw {
		lw[s] = (lp[s] - m.g[s]) - ll[s] // −ll exactly for unmoved posterior draws
	}
	return psisInto(lws, lw, &m.tail, m.reff)
}

// try evaluates the candidate draws m.cand and keeps them when their k̂ is
// lower than the current draws'.
func (m *mmState) try() bool {
	m.eval(m.cand, m.lpC, m.llC, m.lgC)
	m.res.Evals += m.S
	kc := m.weigh(m.lwC, m.lwsC, m.lpC, m.llC)
	if !(kc < m.k) {
		return false
	}
	m.phi, m.cand = m.cand, m.phi
	m.lp, m.lpC = m.lpC, m.lp
	m.ll, m.llC = m.llC, m.ll
	m.lg, m.lgC = m.lgC, m.lg
	m.lw, m.lwC = m.lwC, m.lw
	m.lws, m.lwsC = m.lwsC, m.lws
	m.k = kc
	return true
}

// shift tries moving the draws' mean to their weighted mean.
func (m *mmState) shift() bool {
	S, n := m.S, m.n
	drawMoments(m.phi, m.lws, n, m.mean, m.wmean, nil, nil)
	for s := range S {
		for j := range n {
			m.cand[s*n+j] = m.phi[s*n+j] - m.mean[j] + m.wmean[j]
		}
	}
	if !m.try() {
		return false
	}
	for j := range m.t.c {
		m.t.c[j] += m.wmean[j] - m.mean[j]
	}
	m.res.Shifts++
	return true
}

// scale tries matching the weighted mean and marginal standard deviations.
func (m *mmState) scale() bool {
	S, n := m.S, m.n
	drawMoments(m.phi, m.lws, n, m.mean, m.wmean, m.sd, m.wsd)
	r := m.ratio
	for j := range r {
		r[j] = m.wsd[j] / m.sd[j]
		if !(r[j] > 0) || math.IsInf(r[j], 0) {
			return false
		}
	}
	for s := range S {
		for j := range n {
			m.cand[s*n+j] = (m.phi[s*n+j]-m.mean[j])*r[j] + m.wmean[j]
		}
	}
	if !m.try() {
		return false
	}
	t := &m.t
	for j := range t.c {
		t.c[j] = (t.c[j]-m.mean[j])*r[j] + m.wmean[j]
	}
	if t.A == nil {
		for j := range t.a {
			t.a[j] *= r[j]
		}
	} else {
		for j := range n {
			row := t.A.RawRowView(j)
			for l := range row {
				row[l] *= r[j]
			}
		}
	}
	m.res.Scales++
	return true
}

// covariance tries φ ↦ M(φ − μ) + μ_w, M = L_w·L⁻¹ (covarianceMap), which
// matches the weighted mean and covariance; only with at least 10 draws
// per coordinate, as loo.
func (m *mmState) covariance() bool {
	S, n := m.S, m.n
	if S < 10*n {
		return false
	}
	drawMoments(m.phi, m.lws, n, m.mean, m.wmean, nil, nil)
	M, ok := covarianceMap(m.phi, m.lws, n, m.mean, m.wmean)
	if !ok {
		return false
	}
	var mu mat.VecDense // M·μ
	mu.MulVec(M, mat.NewVecDense(n, m.mean))
	mat.NewDense(S, n, m.cand).Mul(mat.NewDense(S, n, m.phi), M.T())
	for s := range S {
		for j := range n {
			m.cand[s*n+j] += m.wmean[j] - mu.AtVec(j)
		}
	}
	if !m.try() {
		return false
	}
	t := &m.t
	if t.A == nil {
		t.A = mat.NewDense(n, n, nil)
		for j, v := range t.a {
			t.A.Set(j, j, v)
		}
	}
	t.A.Mul(M, mat.DenseCopyOf(t.A))
	var mc mat.VecDense
	mc.MulVec(M, mat.NewVecDense(n, t.c))
	for j := range t.c {
		t.c[j] = mc.AtVec(j) - mu.AtVec(j) + m.wmean[j]
	}
	m.res.Covs++
	return true
}

// split replaces the moved draws by those of even index and the unmoved
// draws of odd index (ll their log likelihoods), weighted by the mixture
// ½g + ½g_T of the two proposals, g_T(φ) = g(T⁻¹(φ))/|det T|, and returns
// their k̂ (NaN when T cannot be inverted). The unmoved half needs the
// proposal's density at T⁻¹(θ), which eval gives. Alternate draws, not
// the first and the second half, so that each half holds draws of every
// part of a proposal whose draws come in blocks (a fit's q, then its
// defensive companion; a sample's chains one after another); for draws
// that cycle through R components (MMDraws.Period), the index counts
// whole cycles, s/R, so that an even R does not put the even components'
// draws in one half and the odd ones' in the other.
func (m *mmState) split(ll []float64) float64 {
	S, n, d := m.S, m.n, m.d
	p := max(d.Period, 1)
	moved := func(s int) bool { return (s/p)%2 == 0 }
	var keep []int // the unmoved draws
	for s := range S {
		if !moved(s) {
			keep = append(keep, s)
		}
	}
	rest := len(keep)
	odd := make([]float64, rest*n)
	for r, s := range keep {
		copy(odd[r*n:(r+1)*n], d.X[s*n:(s+1)*n])
	}
	inv := make([]float64, rest*n)
	logDet, ok := m.t.inverse(inv, odd)
	if !ok {
		return math.NaN()
	}
	lpInv, llInv := make([]float64, rest), make([]float64, rest)
	var gInv []float64 // the proposal's log density; nil while it is p
	if m.lg != nil {
		gInv = make([]float64, rest)
	}
	m.eval(inv, lpInv, llInv, gInv)
	if gInv == nil {
		gInv = lpInv
	}
	m.res.Evals += rest
	r := 0
	for s := range S {
		var gPhi, gT float64 // log g and log g_T at the draw
		if moved(s) {
			gPhi, gT = m.lp[s], m.g[s]-logDet
			if m.lg != nil {
				gPhi = m.lg[s]
			}
		} else {
			copy(m.phi[s*n:(s+1)*n], d.X[s*n:(s+1)*n])
			m.lp[s], m.ll[s] = d.LogP[s], ll[s]
			gPhi, gT = m.g[s], gInv[r]-logDet
			r++
		}
		m.lw[s] = m.lp[s] - m.ll[s] - dist.LogAddExp(gPhi, gT)
	}
	return psisInto(m.lws, m.lw, &m.tail, m.reff)
}

// affine is the map T(θ) = A·θ + c, A = diag(a) when A is nil.
type affine struct {
	a []float64
	A *mat.Dense
	c []float64
}

// inverse writes T⁻¹ of the rows of xs (n each) into out and returns
// log |det T|, or false when A is singular.
func (t affine) inverse(out, xs []float64) (logDet float64, ok bool) {
	n := len(t.c)
	rows := len(xs) / n
	for r := range rows {
		for j := range n {
			out[r*n+j] = xs[r*n+j] - t.c[j]
		}
	}
	if t.A == nil {
		for r := range rows {
			for j := range n {
				out[r*n+j] /= t.a[j]
			}
		}
		for _, v := range t.a {
			logDet += math.Log(math.Abs(v))
		}
		return logDet, true
	}
	var lu mat.LU
	lu.Factorize(t.A)
	if lu.Det() == 0 {
		return 0, false
	}
	// Rows are points: solve A·Xᵀ = Bᵀ, i.e. X = B·A⁻ᵀ.
	b := mat.NewDense(rows, n, out)
	var xt mat.Dense
	if err := lu.SolveTo(&xt, false, b.T()); err != nil {
		return 0, false
	}
	b.Copy(xt.T())
	logDet, _ = lu.LogDet()
	return logDet, true
}

// covarianceMap returns M = L_w·L⁻¹, L and L_w the Cholesky factors of the
// covariance of the draws xs (rows of n) about their mean and of their
// covariance under the normalised log weights lws about wmean; false when
// either is not positive definite.
func covarianceMap(xs, lws []float64, n int, mean, wmean []float64) (*mat.Dense, bool) {
	S := len(lws)
	cov, wcov := mat.NewSymDense(n, nil), mat.NewSymDense(n, nil)
	dx, dw := make([]float64, n), make([]float64, n)
	vx, vw := mat.NewVecDense(n, dx), mat.NewVecDense(n, dw) // views of dx and dw
	for s := range S {
		w := math.Exp(lws[s])
		for j := range n {
			dx[j], dw[j] = xs[s*n+j]-mean[j], xs[s*n+j]-wmean[j]
		}
		cov.SymRankOne(cov, 1/float64(S), vx)
		if w > 0 {
			wcov.SymRankOne(wcov, w, vw)
		}
	}
	var ch, wch mat.Cholesky
	if !ch.Factorize(cov) || !wch.Factorize(wcov) {
		return nil, false
	}
	var l, wl, linv mat.TriDense
	ch.LTo(&l)
	wch.LTo(&wl)
	if err := linv.InverseTri(&l); err != nil {
		return nil, false
	}
	var m mat.Dense
	m.Mul(&wl, &linv)
	return &m, true
}

// drawMoments writes the means of the draws xs (rows of n) into mean and
// their means under the normalised log weights lws into wmean; with sd
// and wsd not nil, also their standard deviations about those means.
func drawMoments(xs, lws []float64, n int, mean, wmean, sd, wsd []float64) {
	S := len(lws)
	clear(mean)
	clear(wmean)
	for s := range S {
		w := math.Exp(lws[s])
		for j := range n {
			x := xs[s*n+j]
			mean[j] += x
			wmean[j] += w * x
		}
	}
	for j := range mean {
		mean[j] /= float64(S)
	}
	if sd == nil {
		return
	}
	clear(sd)
	clear(wsd)
	for s := range S {
		w := math.Exp(lws[s])
		for j := range n {
			x := xs[s*n+j]
			sd[j] += (x - mean[j]) * (x - mean[j])
			wsd[j] += w * (x - wmean[j]) * (x - wmean[j])
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j] / float64(S))
		wsd[j] = math.Sqrt(wsd[j])
	}
}

package sgvb

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/dist"
)

// Moment matching for PSIS-LOO (Paananen, Piironen, Bürkner and Vehtari,
// "Implicitly adaptive importance sampling", 2021; the loo package's
// loo_moment_match). Where observation i's weights 1/p(y_i | θ_s) have a
// Pareto k̂ too high to trust, the posterior draws θ_s are moved by an
// affine map T, chosen so that their mean and then their marginal
// variances match those the weights give, and weighted again; a move is
// kept when it lowers k̂. The moved draws T(θ_s) have the density
// p(θ_s | y)/|det T|, so their log weights for the leave-one-out
// posterior are log p(T(θ_s), y) − log p(y_i | T(θ_s)) − log p(θ_s, y) up
// to a constant. The final estimate weights half the draws moved and half
// not by the deterministic mixture ½p + ½p_T of both proposals, which
// keeps it consistent although T was adapted on the same draws.

// MMMaxIter is the most adapting rounds moment matching runs for one
// observation (loo's max_iters).
const MMMaxIter = 30

// MMThreshold is the k̂ above which moment matching adapts, for S draws:
// min(1 − 1/log₁₀ S, 0.7), the threshold of PSIS's reliability (loo's
// ps_khat_threshold).
func MMThreshold(S int) float64 {
	return math.Min(1-1/math.Log10(float64(S)), 0.7)
}

// MMDraws are the posterior draws that moment matching moves, in the
// sampler's unconstrained coordinates.
type MMDraws struct {
	Dim  int
	X    []float64 // S draws, row s at X[s·Dim:(s+1)·Dim]
	LogP []float64 // log p(θ_s, y), up to a constant shared by Eval's
	Reff float64   // the draws' relative efficiency for the observation (PSISLOOMCMC's)
}

// MMEval evaluates the log joint density log p(x, y) (up to MMDraws.LogP's
// constant) and the observation's log likelihood log p(y_i | x) at each of
// the points x, row r at xs[r·Dim:(r+1)·Dim], into lp[r] and ll[r]. A point
// where either is not finite gets weight 0.
type MMEval func(xs, lp, ll []float64)

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
// estimate is PSISLOOMCMC's.
func MomentMatchLOO(d MMDraws, ll []float64, eval MMEval) MMResult {
	S, n := len(d.LogP), d.Dim
	if len(ll) != S || len(d.X) != S*n {
		panic(fmt.Sprintf("sgvb: MomentMatchLOO: %d log likelihoods and %d coordinates for %d draws of dimension %d", len(ll), len(d.X), S, n))
	}
	reff := d.Reff
	if !(reff > 0) || math.IsInf(reff, 1) {
		reff = 1
	}
	full, _ := PSIS(make([]float64, S)) // equal weights, as PSISLOOMCMC's lpd_i
	lpd := logSumExp(addFinite(full, ll))
	var res MMResult
	// The current draws φ = T(θ) = a⊙θ + c (A·θ + c after a covariance move), their log joint and log likelihood.
	a, c := make([]float64, n), make([]float64, n)
	var A *mat.Dense // T's matrix once a move matched covariances (else diag(a))
	for j := range a {
		a[j] = 1
	}
	phi := append([]float64(nil), d.X...)
	lp := append([]float64(nil), d.LogP...)
	lli := append([]float64(nil), ll...)
	lw, lws := make([]float64, S), make([]float64, S)
	weigh := func(lw, lws, lpNew, llNew []float64) float64 {
		for s := range lw {
			lw[s] = (lpNew[s] - d.LogP[s]) - llNew[s] // −ll exactly for unmoved draws
		}
		return psisInto(lws, lw, nil, reff)
	}
	k := weigh(lw, lws, lp, lli)
	res.K0 = k
	thr := MMThreshold(S)
	cand := make([]float64, S*n)
	lpC, llC, lwC, lwsC := make([]float64, S), make([]float64, S), make([]float64, S), make([]float64, S)
	mean, wmean, sd, wsd, scale := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	try := func() bool { // evaluate cand; keep it when k̂ falls
		eval(cand, lpC, llC)
		res.Evals += S
		kc := weigh(lwC, lwsC, lpC, llC)
		if !(kc < k) {
			return false
		}
		phi, cand = cand, phi
		lp, lpC = lpC, lp
		lli, llC = llC, lli
		lw, lwC = lwC, lw
		lws, lwsC = lwsC, lws
		k = kc
		return true
	}
	for range MMMaxIter {
		if !(k > thr) {
			break
		}
		drawMoments(phi, lws, n, mean, wmean, nil, nil)
		for s := range S {
			for j := range n {
				cand[s*n+j] = phi[s*n+j] - mean[j] + wmean[j]
			}
		}
		if try() {
			for j := range c {
				c[j] += wmean[j] - mean[j]
			}
			res.Shifts++
			continue
		}
		drawMoments(phi, lws, n, mean, wmean, sd, wsd)
		ok := true
		for j := range scale {
			scale[j] = wsd[j] / sd[j]
			ok = ok && scale[j] > 0 && !math.IsInf(scale[j], 0)
		}
		if ok {
			for s := range S {
				for j := range n {
					cand[s*n+j] = (phi[s*n+j]-mean[j])*scale[j] + wmean[j]
				}
			}
			if try() {
				for j := range c {
					c[j] = (c[j]-mean[j])*scale[j] + wmean[j]
				}
				if A == nil {
					for j := range a {
						a[j] *= scale[j]
					}
				} else {
					for j := range n {
						row := A.RawRowView(j)
						for l := range row {
							row[l] *= scale[j]
						}
					}
				}
				res.Scales++
				continue
			}
		}
		if S < 10*n {
			break
		}
		M, ok := covarianceMap(phi, lws, n, mean, wmean)
		if !ok {
			break
		}
		cm := mat.NewDense(S, n, cand)
		cm.Mul(mat.NewDense(S, n, phi), M.T())
		for s := range S {
			for j := range n {
				cand[s*n+j] += wmean[j]
			}
		}
		var mm mat.VecDense
		mm.MulVec(M, mat.NewVecDense(n, mean))
		for s := range S {
			for j := range n {
				cand[s*n+j] -= mm.AtVec(j)
			}
		}
		if try() {
			if A == nil {
				A = mat.NewDense(n, n, nil)
				for j := range a {
					A.Set(j, j, a[j])
				}
			}
			A.Mul(M, mat.DenseCopyOf(A))
			var mc mat.VecDense
			mc.MulVec(M, mat.NewVecDense(n, c))
			for j := range c {
				c[j] = mc.AtVec(j) - mm.AtVec(j) + wmean[j]
			}
			res.Covs++
			continue
		}
		break
	}
	if res.Shifts+res.Scales+res.Covs > 0 {
		k = splitProposal(d, ll, eval, affine{a, A, c}, phi, lp, lli, lw, lws, reff, &res)
	}
	elpd := logSumExp(addFinite(lws, lli))
	res.Point = LOOPoint{ELPD: elpd, P: lpd - elpd, K: k}
	return res
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

// splitProposal replaces the moved draws phi (= T(θ), with their log joint
// lp and log likelihood lli) by the first half of them and the second
// half of the unmoved draws, and writes into lw the log weights of these
// draws under the mixture ½p + ½p_T, p_T(φ) = p(T⁻¹(φ))/|det T|, and into
// lws the weights smoothed; it returns their k̂ (NaN when T cannot be
// inverted). The unmoved half needs the log joint at T⁻¹(θ), which eval
// gives.
func splitProposal(d MMDraws, ll []float64, eval MMEval, t affine, phi, lp, lli, lw, lws []float64, reff float64, res *MMResult) float64 {
	S, n := len(d.LogP), d.Dim
	half := S / 2
	rest := S - half
	inv := make([]float64, rest*n)
	logDet, ok := t.inverse(inv, d.X[half*n:])
	if !ok {
		return math.NaN()
	}
	lpInv, llInv := make([]float64, rest), make([]float64, rest)
	eval(inv, lpInv, llInv)
	res.Evals += rest
	for s := range S {
		var lpT float64 // log p_T at the draw, up to the constant of LogP
		if s < half {
			lpT = d.LogP[s] - logDet
		} else {
			copy(phi[s*n:(s+1)*n], d.X[s*n:(s+1)*n])
			lp[s], lli[s] = d.LogP[s], ll[s]
			lpT = lpInv[s-half] - logDet
		}
		lw[s] = lp[s] - lli[s] - dist.LogAddExp(lp[s], lpT)
	}
	return psisInto(lws, lw, nil, reff)
}

// covarianceMap returns M = L_w·L⁻¹, L and L_w the Cholesky factors of the
// covariance of the draws xs (rows of n) about their mean and of their
// covariance under the normalised log weights lws about wmean; false when
// either is not positive definite.
func covarianceMap(xs, lws []float64, n int, mean, wmean []float64) (*mat.Dense, bool) {
	S := len(lws)
	cov, wcov := mat.NewSymDense(n, nil), mat.NewSymDense(n, nil)
	dx, dw := make([]float64, n), make([]float64, n)
	for s := range S {
		w := math.Exp(lws[s])
		for j := range n {
			dx[j], dw[j] = xs[s*n+j]-mean[j], xs[s*n+j]-wmean[j]
		}
		cov.SymRankOne(cov, 1/float64(S), mat.NewVecDense(n, dx))
		if w > 0 {
			wcov.SymRankOne(wcov, w, mat.NewVecDense(n, dw))
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

// addFinite returns u + v elementwise, a NaN sum as −Inf (weight 0).
func addFinite(u, v []float64) []float64 {
	out := make([]float64, len(u))
	for i := range u {
		out[i] = u[i] + v[i]
		if math.IsNaN(out[i]) {
			out[i] = math.Inf(-1)
		}
	}
	return out
}

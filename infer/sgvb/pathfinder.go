package sgvb

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// Pathfinder (Settings.Method Pathfinder), after Zhang, Carpenter, Gelman
// and Vehtari (2022, JMLR) and Stan's single-path pathfinder: L-BFGS
// minimises −log p(u), the density of the unconstrained coordinates with
// the Jacobian (as Laplace's, NewUnconstrained), from q's start; at each
// iterate x_l the L-BFGS estimate of the inverse Hessian, Σ_l = diag(α) +
// βγβᵀ from the last PathfinderHistory curvature pairs (compact BFGS form,
// Byrd, Nocedal and Schnabel 1994; α by Gilbert and Lemaréchal's diagonal
// update), gives the normal N(x_l + Σ_l∇log p(x_l), Σ_l), whose ELBO is
// estimated by PathfinderDraws draws. q is the normal with the highest
// estimate, written as one joint full-rank factor over every latent (the
// coordinates and Jacobians of Laplace's, laplaceSettings); then the final
// ELBO and k̂ as every fit's. Unlike Laplace it needs no Hessian and stops
// short of the mode where a normal along the way fits better (the paper's
// point: the mode of a funnel or of a heavy tail is a poor centre).
//
// Stan's defaults are kept: history_size 5, num_elbo_draws 25,
// max_lbfgs_iters 1000 (Settings.MaxIter). Stan's multi-path pathfinder
// (num_paths 4, psis_resample) is gpp's FitRestarts of Pathfinder fits
// with PSIS resampling of the mixture's draws (the CLI's default for
// --family pathfinder).
const (
	PathfinderHistory = 5  // J: the curvature pairs Σ_l is built from (Stan's history_size)
	PathfinderDraws   = 25 // the draws of each iterate's ELBO estimate (Stan's num_elbo_draws)
)

// pathfinderEps is the paper's ε: a pair (s, y) is kept only when
// sᵀy > ε‖y‖², so that every kept pair has positive curvature.
const pathfinderEps = 2.2e-16

// PathfinderPath reports the L-BFGS path of a Pathfinder fit.
type PathfinderPath struct {
	Iterate    int     // the iterate whose normal is q
	Iterates   int     // the L-BFGS iterations run (the path has Iterates+1 points)
	Scored     int     // the iterates whose normal's ELBO was estimated
	ELBO, SE   float64 // the chosen normal's ELBO estimate and its standard error
	Converged  bool    // L-BFGS converged (else it hit MaxIter, stopped on a non-finite point, or its line search failed away from the mode)
	StartTries int     // > 0: the density was not finite at the start, or the start was a stationary point; the try of tryStarts taken instead
}

// bfgsHistory is the state of the inverse-Hessian estimate along the
// path: the diagonal α and the kept pairs, oldest first.
type bfgsHistory struct {
	alpha []float64
	s, y  [][]float64
	j     int // the most pairs kept
}

func newBFGSHistory(n, j int) *bfgsHistory {
	h := &bfgsHistory{alpha: make([]float64, n), j: j}
	for i := range h.alpha {
		h.alpha[i] = 1
	}
	return h
}

// update takes the pair s = x_{l+1} − x_l, y = ∇(−log p)(x_{l+1}) −
// ∇(−log p)(x_l): when sᵀy > ε‖y‖² it updates α (the paper's Algorithm
// 4, Gilbert and Lemaréchal's diagonal update) and keeps the pair,
// dropping the oldest beyond j; it reports whether it kept it.
func (h *bfgsHistory) update(s, y []float64) bool {
	sy := floats.Dot(s, y)
	if !(sy > pathfinderEps*floats.Dot(y, y)) || !finite(sy) {
		return false
	}
	var a, c float64 // yᵀ diag(α) y, sᵀ diag(α)⁻¹ s
	for i, al := range h.alpha {
		a += y[i] * y[i] * al
		c += s[i] * s[i] / al
	}
	next := make([]float64, len(h.alpha))
	for i, al := range h.alpha {
		r := s[i] / al
		next[i] = 1 / (a/(sy*al) + y[i]*y[i]/sy - a*r*r/(sy*c))
		if !(next[i] > 0) || !finite(next[i]) {
			return false // α must stay a positive diagonal
		}
	}
	h.alpha = next
	h.s = append(h.s, append([]float64(nil), s...))
	h.y = append(h.y, append([]float64(nil), y...))
	if len(h.s) > h.j {
		h.s, h.y = h.s[1:], h.y[1:]
	}
	return true
}

// compact returns β (n×2m) and γ (2m×2m) of Σ = diag(α) + βγβᵀ, the BFGS
// inverse Hessian from H₀ = diag(α) updated by the m kept pairs in
// Byrd, Nocedal and Schnabel's compact form: β = [diag(α)Y, S], γ =
// [[0, −R⁻¹], [−R⁻ᵀ, R⁻ᵀ(D + Yᵀdiag(α)Y)R⁻¹]] with R the upper triangle
// of SᵀY and D its diagonal. ok is false when R is singular.
func (h *bfgsHistory) compact() (beta, gamma *mat.Dense, ok bool) {
	n, m := len(h.alpha), len(h.s)
	if m == 0 {
		return nil, nil, true
	}
	beta = mat.NewDense(n, 2*m, nil)
	R := mat.NewTriDense(m, mat.Upper, nil)
	ay := mat.NewDense(m, m, nil) // Yᵀ diag(α) Y
	for k := range m {
		for i := range n {
			beta.Set(i, k, h.alpha[i]*h.y[k][i])
			beta.Set(i, m+k, h.s[k][i])
		}
		for j := k; j < m; j++ {
			R.SetTri(k, j, floats.Dot(h.s[k], h.y[j]))
		}
	}
	for k := range m {
		for j := range m {
			v := 0.0
			for i := range n {
				v += h.y[k][i] * h.alpha[i] * h.y[j][i]
			}
			ay.Set(k, j, v)
		}
	}
	var Ri mat.TriDense
	if err := Ri.InverseTri(R); err != nil {
		return nil, nil, false
	}
	mid := mat.NewDense(m, m, nil)
	mid.Copy(ay)
	for k := range m {
		mid.Set(k, k, mid.At(k, k)+R.At(k, k))
	}
	var t, lower mat.Dense
	t.Mul(Ri.T(), mid)
	lower.Mul(&t, &Ri)
	gamma = mat.NewDense(2*m, 2*m, nil)
	for i := range m {
		for j := range m {
			gamma.Set(i, m+j, -Ri.At(i, j))
			gamma.Set(m+i, j, -Ri.At(j, i))
			gamma.Set(m+i, m+j, lower.At(i, j))
		}
	}
	if !allFinite(gamma.RawMatrix().Data) {
		return nil, nil, false
	}
	return beta, gamma, true
}

// denseCov returns diag(α) + βγβᵀ as a dense symmetric matrix (the
// chosen normal's covariance; O(n²)).
func denseCov(alpha []float64, beta, gamma *mat.Dense) *mat.SymDense {
	n := len(alpha)
	S := mat.NewSymDense(n, nil)
	var bg, full mat.Dense
	if beta != nil {
		bg.Mul(beta, gamma)
		full.Mul(&bg, beta.T())
	}
	for i := range n {
		for j := i; j < n; j++ {
			v := 0.0
			if beta != nil {
				v = (full.At(i, j) + full.At(j, i)) / 2
			}
			if i == j {
				v += alpha[i]
			}
			S.SetSym(i, j, v)
		}
	}
	return S
}

// bfgsNormal is N(μ, Σ) with Σ = diag(α) + βγβᵀ in thin-QR form (the
// paper's Algorithm 2): diag(α)^(−1/2)β = QR̃ (Q n×2m with orthonormal or
// zero columns), I + R̃γR̃ᵀ = L̃L̃ᵀ, so Σ = CCᵀ with C = diag(α)^(1/2)(I +
// Q(L̃ − I)Qᵀ): a draw and its log density cost O(nm), not O(n²).
type bfgsNormal struct {
	mu, sqrtA []float64
	q         *mat.Dense    // n×2m; nil when m = 0
	lt        *mat.TriDense // L̃ − I, 2m×2m lower
	logdet    float64       // log det Σ
	w, v      []float64     // buffers of len 2m
}

// newBFGSNormal returns N(μ, diag(α) + βγβᵀ), or ok false when Σ is not
// positive definite.
func newBFGSNormal(mu, alpha []float64, beta, gamma *mat.Dense) (*bfgsNormal, bool) {
	n := len(mu)
	nd := &bfgsNormal{mu: mu, sqrtA: make([]float64, n)}
	for i, a := range alpha {
		if !(a > 0) || !finite(a) {
			return nil, false
		}
		nd.sqrtA[i] = math.Sqrt(a)
		nd.logdet += math.Log(a)
	}
	if beta == nil {
		return nd, true
	}
	_, k := beta.Dims()
	// modified Gram–Schmidt, twice, on diag(α)^(−1/2)β; a column in the
	// span of those before it is left zero (its row of R̃ is then zero,
	// and so its row and column of L̃ − I)
	Q := mat.NewDense(n, k, nil)
	Rt := mat.NewDense(k, k, nil)
	col := make([]float64, n)
	qj := make([]float64, n)
	for j := range k {
		for i := range n {
			col[i] = beta.At(i, j) / nd.sqrtA[i]
		}
		norm0 := floats.Norm(col, 2)
		for range 2 {
			for p := range j {
				mat.Col(qj, p, Q)
				d := floats.Dot(qj, col)
				floats.AddScaled(col, -d, qj)
				Rt.Set(p, j, Rt.At(p, j)+d)
			}
		}
		norm := floats.Norm(col, 2)
		if !(norm > 1e-12*norm0) {
			continue
		}
		Rt.Set(j, j, norm)
		for i := range n {
			Q.Set(i, j, col[i]/norm)
		}
	}
	var t, M mat.Dense
	t.Mul(Rt, gamma)
	M.Mul(&t, Rt.T())
	S := mat.NewSymDense(k, nil)
	for i := range k {
		for j := i; j < k; j++ {
			v := (M.At(i, j) + M.At(j, i)) / 2
			if i == j {
				v++
			}
			S.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(S) {
		return nil, false
	}
	var L mat.TriDense
	ch.LTo(&L)
	for i := range k {
		nd.logdet += 2 * math.Log(L.At(i, i))
		L.SetTri(i, i, L.At(i, i)-1)
	}
	if !finite(nd.logdet) {
		return nil, false
	}
	nd.q, nd.lt = Q, &L
	nd.w, nd.v = make([]float64, k), make([]float64, k)
	return nd, true
}

// draw writes into u the draw μ + Cz of the standard normal z and returns
// its log density log q(u).
func (nd *bfgsNormal) draw(u, z []float64) float64 {
	n := len(z)
	copy(u, z)
	if nd.q != nil {
		// u = z + Q(L̃ − I)Qᵀz by the BLAS calls VecDense.MulVec makes,
		// without its per-call allocations (25 draws an iterate)
		k := len(nd.w)
		w, v := blas64.Vector{N: k, Inc: 1, Data: nd.w}, blas64.Vector{N: k, Inc: 1, Data: nd.v}
		blas64.Gemv(blas.Trans, 1, nd.q.RawMatrix(), blas64.Vector{N: n, Inc: 1, Data: z}, 0, w)
		copy(nd.v, nd.w)
		blas64.Trmv(blas.NoTrans, nd.lt.RawTriangular(), v)
		blas64.Gemv(blas.NoTrans, 1, nd.q.RawMatrix(), v, 0, blas64.Vector{N: n, Inc: 1, Data: u})
		floats.Add(u, z)
	}
	for i := range u {
		u[i] = nd.mu[i] + nd.sqrtA[i]*u[i]
	}
	return -0.5*(float64(n)*math.Log(2*math.Pi)+nd.logdet) - 0.5*floats.Dot(z, z)
}

// pfRecorder keeps every major iterate of L-BFGS and its gradient (of
// −log p) and passes the iteration on to a mapRecorder (progress).
type pfRecorder struct {
	inner *mapRecorder
	x, g  [][]float64
	f     []float64
	grad  func(g, x []float64) // the gradient where the Location has none
}

func (p *pfRecorder) Init() error { return p.inner.Init() }

func (p *pfRecorder) Record(loc *optimize.Location, op optimize.Operation, st *optimize.Stats) error {
	if op != optimize.MajorIteration {
		return nil
	}
	if k := len(p.x); k > 0 && floats.Equal(loc.X, p.x[k-1]) {
		return nil // gonum reports the start as an iteration: it is x_0
	}
	p.add(loc)
	return p.inner.Record(loc, op, st)
}

// add appends loc to the path, with its gradient.
func (p *pfRecorder) add(loc *optimize.Location) {
	g := make([]float64, len(loc.X))
	if loc.Gradient != nil {
		copy(g, loc.Gradient)
	} else {
		p.grad(g, loc.X)
	}
	p.x = append(p.x, append([]float64(nil), loc.X...))
	p.g = append(p.g, g)
	p.f = append(p.f, loc.F)
}

// last adds loc, where L-BFGS ended, to the path: gonum does not record
// the major iteration that ends the run (converged, or at the limit), so
// without it the last iterate would be left unscored.
func (p *pfRecorder) last(loc *optimize.Location) {
	if len(loc.X) == 0 || !finite(loc.F) || floats.Equal(loc.X, p.x[len(p.x)-1]) {
		return
	}
	p.add(loc)
}

// fitPathfinder runs Pathfinder's single path from q's start (the default
// start, Settings.Init's mean, or a restart's jittered one). Its Trace is
// the ELBO estimate of each scored iterate's normal.
func (e *engine) fitPathfinder(ctx context.Context) (*Result, error) {
	s := e.s
	f, u, err := e.newJointNormalFit(ctx, Pathfinder)
	if err != nil {
		return nil, err
	}
	r, start, obj, n := f.r, f.start, f.obj, f.n
	eval, grad, ud := obj.eval, obj.grad, obj.ud
	info := &PathfinderPath{ELBO: math.NaN(), SE: math.NaN()}
	r.Pathfinder = info
	var stop bool
	if info.StartTries, stop, err = f.finiteStart(u, "Pathfinder"); stop {
		return f.stopAt()
	} else if err != nil {
		return nil, err
	}
	rec := &pfRecorder{inner: &mapRecorder{start: start, last: start, r: r, progress: s.Progress}, grad: grad}
	problem := lbfgsProblem(ctx, eval, grad)
	path := func() (*optimize.Result, error) {
		g0 := make([]float64, n)
		grad(g0, u)
		rec.x, rec.g, rec.f = [][]float64{append([]float64(nil), u...)}, [][]float64{g0}, []float64{eval(u)}
		// MaxIter steps, Stan's max_lbfgs_iters: gonum counts the start
		// as a major iteration
		res, err := optimize.Minimize(problem, u, lbfgsSettings(s.MaxIter+1, rec), &optimize.LBFGS{})
		if res != nil {
			rec.last(&res.Location)
		}
		return res, err
	}
	res, lbfgsErr := path()
	if res != nil && len(rec.x) == 1 && ctx.Err() == nil && info.StartTries == 0 {
		// L-BFGS took no step, and a path of one point has no iterate to
		// score: most often the start is a stationary point (a data-free
		// model's default start, its prior mean, is its mode), where the
		// search direction is zero. Stan's random inits never land there;
		// start again from a point moved by U(−2, 2) per coordinate, as
		// where the density is not finite.
		why := "L-BFGS took no step from the start"
		if lbfgsErr != nil {
			why += " (" + lbfgsErr.Error() + ")"
		}
		if floats.Norm(rec.g[0], math.Inf(1)) == 0 {
			why = "the start is a stationary point of the log density (its gradient is zero), where L-BFGS takes no step"
		}
		tries := tryStarts(s.Seed, u, func(x []float64) bool { return ctx.Err() != nil || !math.IsInf(eval(x), 1) })
		if ctx.Err() != nil {
			return f.stopAt()
		}
		if tries > 0 {
			info.StartTries = tries
			r.warn("Pathfinder: %s; started from a point moved by U(−2, 2) per coordinate (try %d)", why, tries)
			res, lbfgsErr = path()
		}
	}
	if res == nil {
		return nil, lbfgsErr
	}
	r.Iterations = len(rec.x) - 1
	info.Iterates = r.Iterations
	if res.Status == statusInterrupted || ctx.Err() != nil {
		return f.stopAt()
	}
	info.Converged = res.Status != optimize.IterationLimit && allFinite(res.X)
	r.Trace = nil // the L-BFGS objective's; the ELBO estimates' instead

	draws := s.PathfinderDraws
	hist := newBFGSHistory(n, s.PathfinderHistory)
	best := struct {
		nd          *bfgsNormal
		beta, gamma *mat.Dense
		alpha       []float64
		elbo, se    float64
		iterate     int
	}{elbo: math.Inf(-1)}
	sv, yv := make([]float64, n), make([]float64, n)
	z := make([]float64, n)
	sc, err := e.newPFScorer(ud, n, draws)
	if err != nil {
		return nil, err
	}
	lw := make([]float64, 0, draws)
	prev := -1              // the last finite iterate
	lastStep := math.Inf(1) // the Newton step from it, in sds of its normal

	for l := range rec.x {
		if ctx.Err() != nil {
			break
		}
		x, g := rec.x[l], rec.g[l]
		if !finite(rec.f[l]) || !allFinite(x) || !allFinite(g) {
			continue // a non-finite point (a probe L-BFGS accepted) does not enter the history
		}
		if prev >= 0 {
			floats.SubTo(sv, x, rec.x[prev])
			floats.SubTo(yv, g, rec.g[prev]) // of −log p: ∇log p(x_prev) − ∇log p(x)
			hist.update(sv, yv)
		}
		prev = l
		if l == 0 {
			continue
		}
		beta, gamma, ok := hist.compact()
		var nd *bfgsNormal
		alpha := append([]float64(nil), hist.alpha...)
		if ok {
			mu := newtonMean(x, g, alpha, beta, gamma)
			if allFinite(mu) {
				nd, ok = newBFGSNormal(mu, alpha, beta, gamma)
			} else {
				ok = false
			}
			if ok && l == len(rec.x)-1 {
				lastStep = newtonSDs(x, mu, covDiag(alpha, beta, gamma))
			}
		}
		info.Scored++
		elbo, se := math.Inf(-1), math.NaN()
		if ok {
			rng := rand.New(rand.NewPCG(streamSeed(s.Seed, streamPathfinder, uint64(l), 0)))
			// A draw where log p is not finite (outside the support,
			// or overflow) makes the estimate −Inf, as Stan's (whose
			// mean of the ratios is then −Inf or NaN): dropping it would
			// score a normal that reaches such regions above one that
			// does not. Every draw is evaluated (on the workers, see
			// pfScorer), and the reduction reads them in draw order.
			for d := range draws {
				for i := range z {
					z[i] = rng.NormFloat64()
				}
				sc.lq[d] = nd.draw(sc.x[d], z)
			}
			e.runParts(sc, e.scoreParts())
			lw = lw[:0]
			for d := range draws {
				if !finite(sc.lp[d]) {
					lw = lw[:0]
					break
				}
				lw = append(lw, sc.lp[d]-sc.lq[d])
			}
			if len(lw) > 0 {
				elbo, se = meanSE(lw)
			}
		}
		if finite(elbo) {
			r.Trace = append(r.Trace, TracePoint{Iter: l, ELBO: elbo, SE: se, Seconds: time.Since(start).Seconds()})
		}
		if elbo > best.elbo {
			best.nd, best.beta, best.gamma, best.alpha = nd, beta, gamma, alpha
			best.elbo, best.se, best.iterate = elbo, se, l
		}
	}
	if best.nd == nil {
		if ctx.Err() != nil {
			return f.stopAt()
		}
		what := "not positive definite or no finite draw of its normal"
		if info.Scored == 0 {
			what = "no iterate to score: L-BFGS took no step from the start"
		}
		if obj.lastErr != nil && info.Scored > 0 {
			return nil, fmt.Errorf("Pathfinder: no normal along the L-BFGS path (%d iterations) had a finite ELBO estimate (%s): %w", info.Iterates, what, obj.lastErr)
		}
		return nil, fmt.Errorf("Pathfinder: no normal along the L-BFGS path (%d iterations) had a finite ELBO estimate (%s)", info.Iterates, what)
	}
	info.Iterate, info.ELBO, info.SE = best.iterate, best.elbo, best.se
	var ch mat.Cholesky
	if !ch.Factorize(denseCov(best.alpha, best.beta, best.gamma)) {
		return nil, fmt.Errorf("Pathfinder: the covariance of the chosen normal (iterate %d) is not positive definite to rounding: it cannot be factored", best.iterate)
	}
	var L mat.TriDense
	ch.LTo(&L)
	f.setQ(best.nd.mu, &L)
	if ctx.Err() != nil { // q is the chosen normal, whole
		r.Interrupted = true
		return f.done()
	}
	if info.Converged && lbfgsErr != nil && !(lastStep <= laplaceModeTol) {
		// gonum ends a run whose line search fails without error status:
		// at the mode (rounding leaves no step that gains) that is
		// convergence, and there the Newton step from the last iterate
		// is nil; elsewhere it is not (Laplace's test of the mode)
		info.Converged = false
	}
	r.Converged = info.Converged
	if !info.Converged {
		why := fmt.Sprintf("did not converge in %d iterations", info.Iterates)
		if res.Status != optimize.IterationLimit {
			why = fmt.Sprintf("stopped at iteration %d", info.Iterates)
			if lbfgsErr != nil {
				why += ": " + lbfgsErr.Error()
			}
		}
		if best.iterate == info.Iterates {
			r.warn("Pathfinder: L-BFGS %s and its last iterate's normal is the best: the path may not have reached the posterior (raise --iter)", why)
		}
	}
	return f.finish()
}

// pfScorer evaluates the log densities of an iterate's draws, a
// par.Task whose part i of n takes draws i, i+n, … on the i-th worker's
// own Unconstrained: the draws are made in order on the engine's
// goroutine and the estimate is reduced in draw order, so the numbers do
// not depend on Workers.
type pfScorer struct {
	uds    []*Unconstrained // per worker; uds[0] is the path's own
	x      [][]float64      // the draws, in unconstrained coordinates
	lq, lp []float64        // their log q and log p
}

// newPFScorer returns the scorer of draws draws of n coordinates: ud (on
// e.target) for worker 0, a density on its own clone for each other worker
// (whose stop flag stopOn sets). The draws share one backing array (as
// separate allocations they made the draws' log densities 15 % slower:
// docs/performance.md).
func (e *engine) newPFScorer(ud *Unconstrained, n, draws int) (*pfScorer, error) {
	sc := &pfScorer{uds: []*Unconstrained{ud}, x: make([][]float64, draws), lq: make([]float64, draws), lp: make([]float64, draws)}
	buf := make([]float64, n*draws)
	for d := range sc.x {
		sc.x[d] = buf[d*n : (d+1)*n : (d+1)*n]
	}
	for _, wk := range e.workers[min(1, len(e.workers)):] {
		u, err := NewUnconstrained(wk.t, e.latents)
		if err != nil {
			return nil, err
		}
		sc.uds = append(sc.uds, u)
	}
	return sc, nil
}

func (sc *pfScorer) RunPart(i, n int) {
	for d := i; d < len(sc.x); d += n {
		sc.lp[d], _ = sc.uds[i].LogDensityValue(sc.x[d])
	}
}

// scoreParts is the parts pfScorer's draws are evaluated in: one per
// worker, or 1 without helpers.
func (e *engine) scoreParts() int {
	if e.crew == nil {
		return 1
	}
	return len(e.workers)
}

// newtonMean returns μ = x + Σ∇log p(x) = x − Σg, g being the gradient
// of −log p at x and Σ = diag(α) + βγβᵀ, in O(nm).
func newtonMean(x, g, alpha []float64, beta, gamma *mat.Dense) []float64 {
	n := len(x)
	mu := make([]float64, n)
	if beta != nil {
		var t, t2 mat.VecDense
		t.MulVec(beta.T(), mat.NewVecDense(n, g))
		t2.MulVec(gamma, &t)
		mat.NewVecDense(n, mu).MulVec(beta, &t2)
	}
	for i := range mu {
		mu[i] = x[i] - mu[i] - alpha[i]*g[i]
	}
	return mu
}

// covDiag returns the diagonal of diag(α) + βγβᵀ, in O(nm²).
func covDiag(alpha []float64, beta, gamma *mat.Dense) []float64 {
	d := append([]float64(nil), alpha...)
	if beta == nil {
		return d
	}
	var bg mat.Dense
	bg.Mul(beta, gamma)
	for i := range d {
		d[i] += floats.Dot(bg.RawRowView(i), beta.RawRowView(i))
	}
	return d
}

// newtonSDs returns the largest |μ_i − x_i| / √v_i: the Newton step from
// x to μ in sds of the normal of variances v (+Inf where a variance is not
// positive).
func newtonSDs(x, mu, v []float64) float64 {
	worst := 0.0
	for i := range x {
		if !(v[i] > 0) {
			return math.Inf(1)
		}
		worst = math.Max(worst, math.Abs(mu[i]-x[i])/math.Sqrt(v[i]))
	}
	return worst
}

// meanSE returns the mean of v and its standard error (NaN for one value).
func meanSE(v []float64) (mean, se float64) {
	m := 0.0
	for i, x := range v {
		m += (x - m) / float64(i+1)
	}
	if len(v) < 2 {
		return m, math.NaN()
	}
	ss := 0.0
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss / float64(len(v)-1) / float64(len(v)))
}

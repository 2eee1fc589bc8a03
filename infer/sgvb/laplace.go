package sgvb

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/gpplang/gpp/dist"
)

// The Laplace approximation (Settings.Method Laplace), as Stan's laplace
// method gives it: q is the normal N(m, (−H)⁻¹) on the unconstrained
// coordinates u of every latent (NewUnconstrained: the logs of positive
// values, the logits of bounded ones, the K − 1 stick-breaking
// coordinates of each simplex row, a matrix latent's coordinates, an
// ordered latent's x_0 and log increments, its two parts as
// expandOrdered makes them, both members of the group), where m
// is the mode of the density of u, the Jacobian of u → z included (Stan's
// optimize jacobian=true; MAP's mode, of p(z) itself, is jacobian=false),
// and H is the Hessian of that log density at m, by central differences
// of its gradient. Those are the coordinates and the Jacobians of a joint
// full-rank factor (joint.go, stick.go), so q is written as one: the
// draws, the ELBO and the Pareto k̂ of p/q are the engine's own, and the
// log importance ratio of a draw is that of Stan's log_p__ − log_g__.

// MaxLaplace is the most unconstrained coordinates a Laplace fit takes:
// its Hessian costs 2n gradients, its Cholesky factors O(n³) and each
// draw of q O(n²). MaxFullRank's cap is about the convergence of SGVB
// steps, which a Laplace fit does not take.
const MaxLaplace = 1000

// laplaceStep is the relative step of the Hessian's central differences,
// ε^(1/3): h_j = laplaceStep·max(1, |m_j|) balances the O(h²) truncation
// error against the O(ε/h) rounding of the gradients.
var laplaceStep = math.Cbrt(0x1p-52)

// LaplaceStep is the Hessian's step h at coordinate x, laplaceStep·max(1,
// |x|): the step of a difference that should match the Hessian's.
func LaplaceStep(x float64) float64 { return laplaceStep * math.Max(1, math.Abs(x)) }

// LaplaceError says where the Hessian of the log density at the mode of a
// Laplace fit is not negative definite (or not finite): Latent's element
// Elem (−1 for a scalar) is the unconstrained coordinate with the largest
// part in the direction of the Hessian's largest eigenvalue Eigen (≥ 0).
type LaplaceError struct {
	Latent string
	Elem   int
	Eigen  float64
	// Stick says Elem counts the K − 1 stick-breaking coordinates of a
	// simplex, not its values.
	Stick bool
	// Ordered says Elem counts the coordinates of an ordered latent, x_0
	// (or log x_0, positive_ordered) then the log increments, not its
	// values.
	Ordered bool
}

// where names the unconstrained coordinate of e.
func (e *LaplaceError) where() string {
	switch {
	case e.Stick:
		return fmt.Sprintf("%s's stick-breaking coordinate %d", e.Latent, e.Elem)
	case e.Ordered:
		return fmt.Sprintf("%s's ordered coordinate %d", e.Latent, e.Elem)
	case e.Elem >= 0:
		return fmt.Sprintf("%s[%d]", e.Latent, e.Elem)
	}
	return e.Latent
}

func (e *LaplaceError) Error() string {
	where := e.where()
	what := fmt.Sprintf("is not negative definite (its largest eigenvalue is %.3g, not below 0, its eigenvector largest at %s)", e.Eigen, where)
	if math.IsNaN(e.Eigen) {
		what = fmt.Sprintf("is not finite (at %s)", where)
	}
	return fmt.Sprintf("Laplace: the Hessian of the log density at the mode %s: there is no normal approximation there (a saddle, a ridge, or a density that grows without bound); Stan's laplace fails here too (SGVB, the default, and gpp sample need no Hessian)", what)
}

// laplaceSettings returns s with every latent in one joint full-rank
// factor (a single latent's own, Families), or an error naming a latent
// that has no place in one: Laplace's and Pathfinder's q.
func laplaceSettings(latents []Latent, s Settings) (Settings, error) {
	what := "Laplace"
	if s.Method == Pathfinder {
		what = "Pathfinder"
	}
	if s.Minibatch != nil {
		return s, fmt.Errorf("sgvb: %s needs the exact log density, not a minibatch estimate", what)
	}
	if len(s.FullRankGroups) > 0 || s.Rank != 0 || s.Band != 0 || s.InitPath {
		return s, fmt.Errorf("sgvb: %s makes its own joint full-rank factor: not with FullRankGroups, Rank, Band or InitPath", what)
	}
	var names []string
	n := 0
	for _, l := range latents {
		// an ordered latent's parts join the group (expandOrdered, fullRankGroups)
		if err := CheckFullRank(l.Support, 1); err != nil && !l.Support.IsOrdered() {
			return s, fmt.Errorf("sgvb: latent %s: %w", l.Name, err)
		}
		names = append(names, l.Name)
		n += latentElems(l)
	}
	if n > MaxLaplace {
		if s.Method == Pathfinder {
			return s, fmt.Errorf("sgvb: Pathfinder: %d unconstrained coordinates; a Pathfinder fit takes at most %d (MaxLaplace): its q is a dense n×n normal", n, MaxLaplace)
		}
		return s, fmt.Errorf("sgvb: Laplace: %d unconstrained coordinates; the Laplace approximation takes at most %d (MaxLaplace): its Hessian costs 2n gradients and O(n³)", n, MaxLaplace)
	}
	s.Families = map[string]Family{}
	if len(names) == 1 { // an ordered one: expandOrdered makes its parts a group
		s.Families[names[0]] = FamilyFullRank
	} else if len(names) > 1 {
		s.FullRankGroups = [][]string{names}
	}
	return s, nil
}

// fitLaplace finds the mode of the unconstrained density by L-BFGS from
// q's start (the default start, or Settings.Init's mean), takes the
// Hessian there and sets q to N(mode, (−H)⁻¹); then the final ELBO and k̂
// as SGVB's. Its Trace is L-BFGS's, the log density per iteration.
func (e *engine) fitLaplace(ctx context.Context) (*Result, error) {
	s := e.s
	f, u, err := e.newJointNormalFit(ctx, Laplace)
	if err != nil {
		return nil, err
	}
	r, start, obj := f.r, f.start, f.obj
	if _, stop, err := f.finiteStart(u, "Laplace"); stop {
		return f.stopAt()
	} else if err != nil {
		return nil, err
	}
	rec := &mapRecorder{start: start, last: start, r: r, progress: s.Progress}
	problem := lbfgsProblem(ctx, obj.eval, obj.grad)
	settings := lbfgsSettings(s.MaxIter, rec)
	res, lbfgsErr := optimize.Minimize(problem, u, settings, &optimize.LBFGS{})
	if res == nil {
		return nil, lbfgsErr
	}
	r.Iterations = res.Stats.MajorIterations
	if res.Status == statusInterrupted || ctx.Err() != nil {
		return f.stopAt()
	}
	if res.Status != optimize.IterationLimit && allFinite(res.X) {
		// as MAP: a symmetric start (a mixture's components) stops L-BFGS
		// at a saddle, which restarts from points around it escape
		settings.Recorder = nil
		res, _ = e.escapeSaddle(ctx, r, start, problem, settings, res)
		if ctx.Err() != nil {
			return f.stopAt()
		}
	}
	copy(u, res.X)
	if !allFinite(u) || !(res.F <= obj.bestF) {
		copy(u, obj.bestX)
	}
	if math.IsInf(obj.bestF, 1) {
		return nil, errors.New("Laplace: L-BFGS found no point with a finite log density")
	}
	H, err := e.laplaceHessian(ctx, obj.ud, u)
	if ctx.Err() != nil {
		return f.stopAt()
	}
	if err != nil {
		return nil, err
	}
	L, err := e.laplaceCov(H)
	if err != nil {
		return nil, err
	}
	// L-BFGS's line search often fails at the mode, where no step gains
	// more than rounding: the test of the mode is the Newton step
	// Σ∇ log p from where it stopped, at most laplaceModeTol sds of q in
	// every coordinate.
	step, worst := e.newtonStep(obj.ud, u, L)
	r.Converged = step <= laplaceModeTol
	if !r.Converged {
		why := fmt.Sprintf("stopped at iteration %d", res.Stats.MajorIterations)
		if res.Status == optimize.IterationLimit {
			why = fmt.Sprintf("did not converge in %d iterations", res.Stats.MajorIterations)
		} else if lbfgsErr != nil {
			why += ": " + lbfgsErr.Error()
		}
		r.warn("Laplace: L-BFGS %s, not at the mode: a Newton step from there moves %s by %.3g sds of q; the normal is centred where it stopped", why, worst, step)
	}
	f.setQ(u, L)
	if ctx.Err() != nil {
		return f.stopAt()
	}
	return f.finish()
}

// laplaceModeTol is the largest Newton step, in sds of q, at which a
// Laplace fit's centre counts as the mode.
const laplaceModeTol = 1e-3

// newtonStep returns the largest element of the Newton step Σ∇ log p at u
// (Σ = LLᵀ, the inverse of −H), each in sds of q, and the name of its
// coordinate (+Inf where the gradient is not finite).
func (e *engine) newtonStep(ud *Unconstrained, u []float64, L *mat.TriDense) (float64, string) {
	n := len(u)
	g := make([]float64, n)
	if lp, _ := ud.LogDensity(u, g); !finite(lp) || !allFinite(g) {
		return math.Inf(1), "every coordinate"
	}
	var t, d mat.VecDense // d = L Lᵀ g
	t.MulVec(L.T(), mat.NewVecDense(n, g))
	d.MulVec(L, &t)
	max, at := 0.0, 0
	for i := range n {
		sd := 0.0
		for j := 0; j <= i; j++ {
			sd = math.Hypot(sd, L.At(i, j))
		}
		if v := math.Abs(d.AtVec(i)) / sd; v > max {
			max, at = v, i
		}
	}
	return max, e.laplaceError(at, 0).where()
}

// laplaceHessian returns the Hessian of ud's log density at u
// (centralHessian); a LaplaceError where an entry is not finite.
// Cancelling ctx stops it (nil, ctx's error).
func (e *engine) laplaceHessian(ctx context.Context, ud *Unconstrained, u []float64) (*mat.SymDense, error) {
	H, bad, err := centralHessian(ctx, ud, u)
	if bad >= 0 {
		return nil, e.laplaceError(bad, math.NaN())
	}
	return H, err
}

// centralHessian returns the Hessian of ud's log density at u by central
// differences of its gradient, column j from u ± h_j e_j with h_j =
// laplaceStep·max(1, |u_j|), symmetrised: 2n gradients. bad is the first
// column with a non-finite entry (nil H), −1 otherwise. Cancelling ctx
// stops it (nil, ctx's error). The Laplace fit and the mean-field
// curvature check (MeanFieldCurvature) share it.
func centralHessian(ctx context.Context, ud *Unconstrained, u []float64) (H *mat.SymDense, bad int, err error) {
	n := len(u)
	D := mat.NewDense(n, n, nil)
	x := append([]float64(nil), u...)
	gp, gm := make([]float64, n), make([]float64, n)
	for j := range n {
		if ctx.Err() != nil {
			return nil, -1, ctx.Err()
		}
		h := LaplaceStep(u[j])
		x[j] = u[j] + h
		lp, _ := ud.LogDensity(x, gp)
		x[j] = u[j] - h
		lm, _ := ud.LogDensity(x, gm)
		x[j] = u[j]
		if !finite(lp) || !finite(lm) || !allFinite(gp) || !allFinite(gm) {
			return nil, j, nil
		}
		// the step between the two points as rounded, not 2h
		d := (u[j] + h) - (u[j] - h)
		for i := range n {
			D.Set(i, j, (gp[i]-gm[i])/d)
		}
	}
	S := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			S.SetSym(i, j, (D.At(i, j)+D.At(j, i))/2)
		}
	}
	return S, -1, nil
}

// laplaceCov returns the lower Cholesky factor of (−H)⁻¹, or a
// LaplaceError naming the coordinate along which −H is least positive
// when it is not positive definite (or so near singular, condition
// number above 10¹⁶, that its inverse is not one).
func (e *engine) laplaceCov(H *mat.SymDense) (*mat.TriDense, error) {
	n, _ := H.Dims()
	A := mat.NewSymDense(n, nil)
	A.ScaleSym(-1, H)
	var ch, cs mat.Cholesky
	var inv mat.SymDense
	if !ch.Factorize(A) || ch.InverseTo(&inv) != nil || !cs.Factorize(&inv) {
		return nil, e.notDefinite(A)
	}
	var L mat.TriDense
	cs.LTo(&L)
	return &L, nil
}

// notDefinite returns the LaplaceError of −H = A that has no Cholesky
// factor or none of its inverse: the coordinate where the eigenvector of
// A's smallest eigenvalue (H's largest) is largest.
func (e *engine) notDefinite(A *mat.SymDense) error {
	var eig mat.EigenSym
	if !eig.Factorize(A, true) {
		return e.laplaceError(0, math.NaN())
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	worst := 0
	for i := range len(vals) {
		if math.Abs(vecs.At(i, 0)) > math.Abs(vecs.At(worst, 0)) {
			worst = i
		}
	}
	return e.laplaceError(worst, math.Max(-vals[0], 0))
}

// laplaceError returns the LaplaceError at element i of the Laplace block.
func (e *engine) laplaceError(i int, eigen float64) *LaplaceError {
	b := &e.blocks[0]
	mems := b.mem
	if mems == nil {
		mems = []member{{name: e.latents[b.lat].Name, lat: b.lat, n: b.n}}
	}
	for _, m := range mems {
		if i < m.lo || i >= m.lo+m.n {
			continue
		}
		l := e.latents[m.lat]
		le := &LaplaceError{Latent: m.name, Elem: i - m.lo, Eigen: eigen, Stick: l.Support == dist.Simplex, Ordered: m.part != partNone}
		if m.part == partIncrements { // after x_0 (after the G firsts of ordered[G, K])
			le.Elem += max(1, l.rows)
		}
		if l.Size == 1 && len(l.Shape) == 0 {
			le.Elem = -1
		}
		return le
	}
	return &LaplaceError{Latent: b.name, Elem: i, Eigen: eigen}
}

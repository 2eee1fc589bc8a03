package sgvb

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/optimize"

	"github.com/gpplang/gpp/dist"
)

// Path starts (Settings.InitPath), after Pathfinder (Zhang, Carpenter,
// Gelman and Vehtari 2022): L-BFGS on the (smoothed) log density from the
// default start for at most PathIters iterations, then q at each of at
// most PathPoints of its iterates (the start and the last among them),
// each scored by an ELBO estimate from PathDraws draws; the fit starts
// from the best. The default start puts every normal factor at mean 0: a
// posterior hundreds of sds away (BUGS's Rats in grams) is not reached in
// 10⁴ steps. The last iterate is not always the best (centred eight
// schools: point 11 of 34).
const (
	PathIters  = 200
	PathPoints = 30
	PathDraws  = 50
	// The path smooths the log density of the coordinates by a normal of
	// sd PathSmoothSD with PathSmoothDraws fixed draws: the expected log
	// density of a normal q of that sd, whose maximum is finite where the
	// log joint's is not. On a centred hierarchy L-BFGS on the log joint
	// itself runs down the funnel (a scale → 0, the group's effects
	// together) and does not leave it: from Rats' default start in grams
	// it took sigma_alpha to e^−37 in 174 iterations with alpha_c still at
	// 0.03. Smoothed by 0.1 (a normal factor's default sd) the path found
	// alpha_c but ended with sigma_alpha at e^−2.2 (the posterior's 13.8),
	// from where the full-rank fit stayed there; by 1 both fits converged
	// to the posterior (docs/inference.md).
	PathSmoothSD    = 1
	PathSmoothDraws = 8 // even: antithetic pairs
	// PathSmoothHalvings: where the smoothed log density is not finite at
	// the start (a draw of the smoothing lands where the model fails, as
	// log of a difference that goes negative), the smoothing sd halves up
	// to this many times, then the path runs on the log density itself,
	// which is finite there: only a start where that fails is an error.
	PathSmoothHalvings = 6
	// PathHessianDim: up to this many coordinates, each scored point's
	// spreads come from the diagonal of the Hessian there (pathSDs, one
	// gradient per coordinate); above it, the default spreads.
	PathHessianDim = 1000
)

// PathStart reports the start a fit took from its optimisation path
// (Settings.InitPath).
type PathStart struct {
	Iterate    int         // the chosen iterate (0: the default start)
	Iterates   int         // the L-BFGS iterations run (the path has Iterates+1 points)
	Scored     int         // the points whose ELBO was estimated
	ELBO, SE   float64     // the chosen point's ELBO estimate and its standard error
	Points     []PathPoint // the scored points, in path order
	Converged  bool        // L-BFGS converged (else it hit PathIters or a non-finite point)
	SmoothSD   float64     // the smoothing's sd: PathSmoothSD, less where that was not finite at the start (pathSmoothing), 0 for none
	StartTries int         // > 0: the log joint was not finite at the default start; the try of MAP's fallback that was
}

// PathPoint is the ELBO estimate of q located at one iterate of the path.
type PathPoint struct {
	Iterate  int
	ELBO, SE float64 // NaN ELBO: no finite draw
}

// pathStart runs L-BFGS on the smoothed log density of the coordinates
// from the default start, sets q at each scored iterate (locateAt, with
// pathSDs' spreads up to PathHessianDim coordinates) and keeps the one
// with the highest ELBO estimate in e.theta. An error only when the path
// cannot start or no point of it could be scored.
func (e *engine) pathStart(ctx context.Context) (*PathStart, error) {
	s := e.s
	ps := &PathStart{ELBO: math.NaN(), SE: math.NaN()}
	x := make([]float64, e.dim)
	for i := range e.latents {
		l := &e.latents[i]
		k := 1
		if b := &e.blocks[e.latBlock[i]]; b.mem == nil {
			k = b.k
		}
		for j := range l.Size {
			x[l.Offset+j] = startCoord(l, j, k)
		}
	}
	type coord struct {
		i int
		s dist.Support
	}
	var jac []coord
	for i := range e.latents {
		l := &e.latents[i]
		if l.Support == dist.Positive || l.Support == dist.Unit {
			for j := range l.Size {
				jac = append(jac, coord{l.Offset + j, l.Support})
			}
		}
	}
	xs := make([]float64, e.dim)
	g := make([]float64, e.dim)
	var lastErr error
	// f evaluates −log p and its gradient at x (+Inf where not finite).
	f := func(x, grad []float64) float64 {
		copy(xs, x)
		e.normaliseSimplex(xs)
		lp, err := e.target.LogJoint(xs, g)
		if err != nil {
			lastErr = err
		}
		if !finite(lp) || !allFinite(g) {
			return math.Inf(1)
		}
		for _, c := range jac { // the density of the coordinates
			switch c.s {
			case dist.Positive:
				lp += x[c.i]
				g[c.i]++
			case dist.Unit:
				j, dj := logitJac(x[c.i])
				lp += j
				g[c.i] += dj
			}
		}
		if grad != nil {
			e.projectSimplex(xs, g)
			for i := range g {
				grad[i] = -g[i]
			}
		}
		return -lp
	}
	if math.IsInf(f(x, nil), 1) { // MAP's fallback starts
		ps.StartTries = tryStarts(s.Seed, x, func(x []float64) bool { return !math.IsInf(f(x, nil), 1) })
		if ps.StartTries == 0 {
			if lastErr == nil {
				lastErr = errNotFiniteHere
			}
			return nil, fmt.Errorf("--init path: the log joint is not finite at the default start, nor at %d points moved by U(−2, 2) around it: %w", MAPStartTries, lastErr)
		}
	}
	// the path: L-BFGS on the smoothed log density fs, the mean of f at
	// x + PathSmoothSD·ε over PathSmoothDraws fixed draws ε (common random
	// numbers, as DADVI's; the seed's own stream), in antithetic pairs ±ε:
	// with independent draws a quadratic log p's smoothed maximum is off by
	// their mean, PathSmoothSD/√8 per coordinate whatever the posterior's
	// sd (a far normal's of sd 0.5 started 1.5 sds off)
	rng := rand.New(rand.NewPCG(streamSeed(s.Seed, streamPathSmooth, 0, 0)))
	eps := make([][]float64, PathSmoothDraws)
	for m := 0; m < len(eps); m += 2 { // antithetic pairs: the draws' mean is 0
		eps[m], eps[m+1] = make([]float64, e.dim), make([]float64, e.dim)
		for i := range eps[m] {
			eps[m][i] = PathSmoothSD * rng.NormFloat64()
			eps[m+1][i] = -eps[m][i]
		}
	}
	xm := make([]float64, e.dim)
	gm := make([]float64, e.dim)
	sd := 1.0 // the smoothing's sd in units of PathSmoothSD
	fs := func(x, grad []float64) float64 {
		if sd == 0 {
			return f(x, grad)
		}
		total := 0.0
		if grad != nil {
			clear(grad)
		}
		for m := range eps {
			for i := range xm {
				xm[i] = x[i] + sd*eps[m][i]
			}
			v := f(xm, gm)
			if math.IsInf(v, 1) {
				// a trial point of L-BFGS's line search whose smoothing
				// draws leave the model's domain: +Inf, and the line
				// search shrinks the step (gonum's Bisection)
				return v
			}
			total += v / PathSmoothDraws
			if grad != nil {
				for i := range grad {
					grad[i] += gm[i] / PathSmoothDraws
				}
			}
		}
		return total
	}
	sd = pathSmoothing(func(s float64) bool { sd = s; return !math.IsInf(fs(x, nil), 1) })
	ps.SmoothSD = sd * PathSmoothSD
	rec := &pathRecorder{path: [][]float64{append([]float64(nil), x...)}, f: []float64{-fs(x, nil)}}
	problem := lbfgsProblem(ctx, func(x []float64) float64 { return fs(x, nil) }, func(grad, x []float64) { fs(x, grad) })
	res, _ := optimize.Minimize(problem, x, lbfgsSettings(PathIters, rec), &optimize.LBFGS{})
	ps.Iterates = len(rec.path) - 1
	ps.Converged = res != nil && res.Status != optimize.IterationLimit && res.Status != statusInterrupted && allFinite(res.X)
	// the points scored: evenly spaced over the path, its ends included
	n := len(rec.path)
	idx := []int{}
	for j := range min(n, PathPoints) {
		k := 0
		if m := min(n, PathPoints); m > 1 {
			k = int(math.Round(float64(j) * float64(n-1) / float64(m-1)))
		}
		if len(idx) == 0 || idx[len(idx)-1] != k {
			idx = append(idx, k)
		}
	}
	draws := min(PathDraws, len(e.lp))
	best := make([]float64, e.np)
	bestELBO := math.Inf(-1)
	for _, k := range idx {
		if ctx.Err() != nil {
			break
		}
		if !allFinite(rec.path[k]) || !finite(rec.f[k]) {
			continue
		}
		var sd []float64
		if e.dim <= PathHessianDim {
			sd = e.pathSDs(rec.path[k], f)
		}
		e.locateAt(rec.path[k], sd)
		elbo, se, _ := e.eval(streamPath, k, draws)
		ps.Scored++
		ps.Points = append(ps.Points, PathPoint{Iterate: k, ELBO: elbo, SE: se})
		if finite(elbo) && elbo > bestELBO {
			bestELBO = elbo
			copy(best, e.theta)
			ps.Iterate, ps.ELBO, ps.SE = k, elbo, se
		}
	}
	if math.IsInf(bestELBO, -1) {
		return nil, fmt.Errorf("--init path: no point of the L-BFGS path (%d iterations) gave a finite ELBO estimate", ps.Iterates)
	}
	copy(e.theta, best)
	return ps, nil
}

// pathSmoothing returns the factor of PathSmoothSD the path smooths by:
// 1 where ok(1) holds (the smoothed log density is finite at the
// start), else the first of 1/2, 1/4, … (PathSmoothHalvings of them)
// where it does, else 0, the log density itself, finite at the start by
// then. A smoothing draw outside the model's domain (a log's argument
// below 0) makes the smoothed density +Inf wherever it lands: a start
// there would leave L-BFGS no step to take.
func pathSmoothing(ok func(sd float64) bool) float64 {
	sd := 1.0
	for range PathSmoothHalvings + 1 {
		if ok(sd) {
			return sd
		}
		sd /= 2
	}
	return 0
}

// pathSDs returns the sds of the normal on the coordinates whose precision
// is the diagonal of −∇² log p at x (by forward differences of the
// gradient, one evaluation per coordinate), as mean-field VI's optimum
// has on a normal posterior; NaN where that curvature is not positive.
func (e *engine) pathSDs(x []float64, f func(x, grad []float64) float64) []float64 {
	g0 := make([]float64, e.dim)
	g1 := make([]float64, e.dim)
	sd := make([]float64, e.dim)
	for i := range sd {
		sd[i] = math.NaN()
	}
	if math.IsInf(f(x, g0), 1) {
		return sd
	}
	xh := append([]float64(nil), x...)
	for i := range x {
		h := 1e-5 * (1 + math.Abs(x[i]))
		xh[i] = x[i] + h
		if !math.IsInf(f(xh, g1), 1) {
			if c := (g1[i] - g0[i]) / h; c > 0 && finite(c) { // g is ∇(−log p)
				sd[i] = 1 / math.Sqrt(c)
			}
		}
		xh[i] = x[i]
	}
	return sd
}

// locateAt writes into e.theta the default start of every block with its
// locations at the coordinates x: each latent's Init the values x gives
// on its support, so a normal factor's mean is x, a lognormal's meanlog
// x, a gamma's mean e^x (shape e^x, rate 1, as its default start), a
// beta's mean the logistic of x, a full-rank group's means x. Spreads are
// the default ones, or where sd (on the coordinates) has a positive
// finite element, that sd: a normal's sd, a lognormal's sdlog, a gamma's
// shape 1/sd² (the log of a gamma of shape a has sd about 1/√a), a
// full-rank factor's diagonal of L.
func (e *engine) locateAt(x, sd []float64) {
	lats := make([]Latent, len(e.latents))
	copy(lats, e.latents)
	for i := range lats {
		l := &lats[i]
		k := 1
		if b := &e.blocks[e.latBlock[i]]; b.mem == nil {
			k = b.k
		} else if l.Support == dist.Simplex && len(l.Shape) > 0 {
			k = l.Shape[len(l.Shape)-1]
		}
		l.Init = make([]float64, l.Size)
		natural(l.Support, k, l.Init, x[l.Offset:l.Offset+l.Size])
	}
	for i := range e.blocks {
		b := &e.blocks[i]
		th := e.theta[b.poff : b.poff+b.np()]
		if b.mem != nil {
			b.initJoint(lats, th)
			if b.fam == FamilyLowRank {
				rng := rand.New(rand.NewPCG(streamSeed(e.s.Seed, streamLowRank, uint64(i), 0)))
				b.initLowRank(th, rng)
			}
			if b.fam == FamilyFullRank && sd != nil {
				for _, m := range b.mem {
					if lats[m.lat].Support == dist.Simplex { // sd is of log x, not of y
						continue
					}
					for j := range m.n {
						if v := sd[lats[m.lat].Offset+j]; v > 0 && finite(v) {
							th[b.n+m.lo+j] = softplusInv(math.Max(v, minParam))
						}
					}
				}
			}
			continue
		}
		l := &lats[b.lat]
		b.initTheta(l, th)
		if sd == nil || b.sticks != nil {
			continue
		}
		n := b.n
		for j := range n {
			v := sd[l.Offset+j]
			if !(v > 0) || !finite(v) {
				continue
			}
			v = math.Max(v, minParam)
			switch b.fam {
			case FamilyNormal, FamilyLognormal:
				th[n+j] = softplusInv(v)
			case FamilyFullRank:
				th[n+j] = softplusInv(v)
			case FamilyGamma:
				a := math.Min(1/(v*v), maxShape)
				if m := l.Init[j]; isPos(m) && isPos(a) {
					if b.logMS {
						th[j], th[n+j] = math.Log(a), math.Log(m)
					} else {
						th[j], th[n+j] = softplusInv(a), softplusInv(a/m)
					}
				}
			}
		}
		for j := range th {
			th[j] = b.clamp(j, th[j])
		}
	}
}

// pathRecorder keeps the iterates of L-BFGS and their log joints.
type pathRecorder struct {
	path [][]float64
	f    []float64
}

func (p *pathRecorder) Init() error { return nil }

func (p *pathRecorder) Record(loc *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	if op == optimize.MajorIteration {
		p.path = append(p.path, append([]float64(nil), loc.X...))
		p.f = append(p.f, -loc.F)
	}
	return nil
}

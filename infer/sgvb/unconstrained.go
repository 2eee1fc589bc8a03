package sgvb

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"

	"github.com/gpplang/gpp/dist"
)

// The unconstrained density of a Target, for MCMC (gpp sample, infer/nuts).
// A sampler on R^d needs the posterior density of unconstrained
// coordinates u, Jacobian included, where the Target's log joint is the
// density of the model's values z in the Target's coordinates x with no
// Jacobian (the package documentation). Per latent support:
//
//	real, the matrix and zero-sum supports   u = x   nothing added (a matrix latent's log joint already holds its Jacobian)
//	positive (and real<lower>, real<upper>)  u = x = log b            + Σ u
//	unit (real<lower, upper>)                u = x = logit b          + Σ log σ(u) + log σ(−u)
//	simplex[K]                               u = K − 1 stick-breaking y a row, x = log z (dist.StickBreakLog)   + Σ log z over the row
//	ordered[K]                               u = x = (z_0, log d_k)   + Σ_{k≥1} u_k (ordered[G, K]: G z_0 lead)
//	positive_ordered[K]                      u = x = (log z_0, log d_k) + Σ u_k
//
// so that the result is Stan's: the density of u is log p(z(u)) + log
// |dz/du|, as Stan's sampler sees it. A bounded latent's constant log
// |dz/db| (log |U − L| per element of real<lower=L, upper=U>) is already
// in the Target's log joint (lang/compile adds it, so that the ELBO is the
// param's own) and is not added again: the density of u is normalised, as
// bridge sampling's evidence needs.

// Kinds of coordinate an element of u is.
const (
	uReal    int8 = iota // x = u, nothing added
	uLog                 // x = u is a log: + u
	uLogit               // x = u is a logit: + log σ(u) + log σ(−u)
	uSimplex             // a simplex latent: rows of K − 1 y
)

// useg is one latent's stretch of u and of x.
type useg struct {
	kind       int8
	uoff, xoff int
	n          int // elements of u
	k          int // a simplex's K (kind uSimplex)
	// first is the number of leading elements that are real (an
	// ordered latent's z_0, or an ordered[G, K] one's G firsts) although
	// the others are logs.
	first int
}

// Unconstrained is the log density of a Target's latents on R^Dim, the
// Jacobian of the map to the Target's coordinates included: what an MCMC
// sampler moves on. Its buffers are its own: use one per goroutine
// (Clone).
type Unconstrained struct {
	t       Target
	segs    []useg
	dim, n  int       // len(u), len(x)
	factors []Factor  // per latent, for Values: support, shape and bounds
	x, gx   []float64 // the Target's coordinates and gradient
}

// NewUnconstrained returns the unconstrained density of t over its latents
// lats, or an error naming a latent whose support has no transform here.
func NewUnconstrained(t Target, lats []Latent) (*Unconstrained, error) {
	d := &Unconstrained{t: t}
	for _, l := range lats {
		if l.Size < 0 || l.Offset < 0 {
			return nil, fmt.Errorf("sgvb: latent %s: bad offset or size", l.Name)
		}
		bounded := l.Scale != 0 || l.ScaleV != nil
		s := useg{uoff: d.dim, xoff: l.Offset, n: l.Size}
		switch l.Support {
		case dist.Real:
			s.kind = uReal
		case dist.Positive:
			s.kind = uLog
		case dist.Unit:
			s.kind = uLogit
		case dist.Simplex:
			if len(l.Shape) == 0 || l.Shape[len(l.Shape)-1] < 2 || l.Size%l.Shape[len(l.Shape)-1] != 0 {
				return nil, fmt.Errorf("sgvb: latent %s: a simplex needs at least 2 components on its last axis", l.Name)
			}
			s.kind, s.k = uSimplex, l.Shape[len(l.Shape)-1]
			s.n = l.Size / s.k * (s.k - 1)
		case dist.Ordered, dist.PositiveOrdered:
			if bounded {
				return nil, fmt.Errorf("sgvb: latent %s: an %v latent has no bounds", l.Name, l.Support)
			}
			s.kind = uLog
			if l.Support == dist.Ordered {
				s.first = orderedRows(l.Shape)
			}
		case dist.CholCorr, dist.CorrMatrix, dist.CholCov, dist.CovMatrix, dist.SumToZero, dist.SumToZeroMatrix:
			if bounded {
				return nil, fmt.Errorf("sgvb: latent %s: a %v latent has no bounds", l.Name, l.Support)
			}
			s.kind = uReal
		default:
			return nil, fmt.Errorf("sgvb: latent %s: no unconstrained transform for support %v", l.Name, l.Support)
		}
		if bounded && l.Support == dist.Real {
			return nil, fmt.Errorf("sgvb: latent %s: a bounded latent is positive or unit, not real", l.Name)
		}
		if l.ScaleV != nil && (len(l.ScaleV) != l.Size || len(l.LocV) != l.Size) {
			return nil, fmt.Errorf("sgvb: latent %s: LocV and ScaleV need %d elements", l.Name, l.Size)
		}
		d.segs = append(d.segs, s)
		d.dim += s.n
		d.n = max(d.n, l.Offset+l.Size)
		d.factors = append(d.factors, Factor{Name: l.Name, Support: l.Support, Offset: l.Offset, Size: l.Size, Shape: l.Shape,
			Loc: l.Loc, Scale: l.Scale, LocV: l.LocV, ScaleV: l.ScaleV})
	}
	d.x, d.gx = make([]float64, d.n), make([]float64, d.n)
	return d, nil
}

// Dim is the number of unconstrained coordinates.
func (d *Unconstrained) Dim() int { return d.dim }

// TargetDim is the number of the Target's coordinates (len of Coords' x).
func (d *Unconstrained) TargetDim() int { return d.n }

// Clone returns a copy with its own buffers and its own clone of the
// Target, for another goroutine.
func (d *Unconstrained) Clone() *Unconstrained {
	c := *d
	c.t = d.t.Clone()
	c.x, c.gx = make([]float64, d.n), make([]float64, d.n)
	return &c
}

// SetStop passes the flag to the Target when it is a StopTarget (a long
// ODE solve then stops when the flag turns true); else nothing.
func (d *Unconstrained) SetStop(stop *atomic.Bool) {
	if st, ok := d.t.(StopTarget); ok {
		st.SetStop(stop)
	}
}

// Coords writes the Target's coordinates x (len TargetDim) of u (len Dim).
func (d *Unconstrained) Coords(u, x []float64) {
	for _, s := range d.segs {
		if s.kind != uSimplex {
			copy(x[s.xoff:s.xoff+s.n], u[s.uoff:s.uoff+s.n])
			continue
		}
		for r := 0; r < s.n/(s.k-1); r++ {
			dist.StickBreakLog(x[s.xoff+r*s.k:s.xoff+(r+1)*s.k], u[s.uoff+r*(s.k-1):s.uoff+(r+1)*(s.k-1)])
		}
	}
}

// Values writes the model's values z (len TargetDim, laid out as x: a
// matrix latent's stay its coordinates) of the Target's coordinates x,
// bounds applied, as Result.Natural does for a fit (z may be x).
func (d *Unconstrained) Values(z, x []float64) {
	for i := range d.factors {
		f := &d.factors[i]
		zz, xx := z[f.Offset:f.Offset+f.Size], x[f.Offset:f.Offset+f.Size]
		if f.Support.IsOrdered() {
			orderedNatural(zz, xx, f.Shape, f.Support == dist.PositiveOrdered)
			continue
		}
		k := 1
		if f.Support == dist.Simplex {
			k = f.Shape[len(f.Shape)-1]
		}
		natural(f.Support, k, zz, xx)
		f.affine(zz)
	}
}

// LogDensity returns log p(z(u)) + log |dz/du| at u and writes its
// gradient into grad (both len Dim): nuts.Density. A non-finite value
// comes with the Target's error, if it gave one. It allocates nothing.
func (d *Unconstrained) LogDensity(u, grad []float64) (float64, error) {
	return d.Density(u, grad, true)
}

// Density is LogDensity with the log |dz/du| term and its gradient
// (jac), or LogJoint without them: BridgeStan's jacobian switch, for
// callers that choose it at run time (gpp logprob, the model package).
func (d *Unconstrained) Density(u, grad []float64, jac bool) (float64, error) {
	x, gx := d.x, d.gx
	d.Coords(u, x)
	lp, err := d.t.LogJoint(x, gx)
	if err != nil {
		return lp, err
	}
	if jac {
		lp = d.addLogJac(lp, u)
	}
	for _, s := range d.segs {
		uu, g := u[s.uoff:s.uoff+s.n], grad[s.uoff:s.uoff+s.n]
		switch {
		case s.kind == uSimplex:
			for r := 0; r < s.n/(s.k-1); r++ {
				lx, gr := x[s.xoff+r*s.k:s.xoff+(r+1)*s.k], gx[s.xoff+r*s.k:s.xoff+(r+1)*s.k]
				if jac {
					for j := range gr {
						gr[j]++ // ∂/∂log z_j of the Jacobian Σ log z
					}
				}
				dist.StickBreakGrad(gr, lx)
				copy(g[r*(s.k-1):(r+1)*(s.k-1)], gr[:s.k-1])
			}
		case !jac || s.kind == uReal:
			copy(g, gx[s.xoff:s.xoff+s.n])
		case s.kind == uLog:
			copy(g, gx[s.xoff:s.xoff+s.n])
			for i := range uu {
				if i < s.first {
					continue
				}
				g[i]++
			}
		case s.kind == uLogit:
			for i, v := range uu {
				// the derivative of log σ(v) + log σ(−v): σ(−v) − σ(v)
				g[i] = gx[s.xoff+i] + 1 - 2*sigmoid(v)
			}
		}
	}
	return lp, nil
}

// LogDensityValue returns LogDensity's value at u, bit for bit, with its
// error, and computes no gradient where the Target is a ValueTarget: the
// work that needs only values (Pathfinder's ELBO draws). No allocation.
func (d *Unconstrained) LogDensityValue(u []float64) (float64, error) {
	d.Coords(u, d.x)
	lp, err := logJointValue(d.t, d.x, d.gx)
	if err != nil {
		return lp, err
	}
	return d.addLogJac(lp, u), nil
}

// LogJoint returns the Target's log joint at Coords(u), without
// LogDensity's log |dz/du|, and writes its gradient in u into grad (both
// len Dim): the density whose mode MAP finds (Stan's jacobian=false). The
// constant log |dz/db| of a bounded latent and the Jacobian a matrix
// latent's log joint holds stay in it, as in MAP's objective. A
// non-finite value comes with the Target's error, if it gave one. It
// allocates nothing.
func (d *Unconstrained) LogJoint(u, grad []float64) (float64, error) {
	return d.Density(u, grad, false)
}

// LogJointValue returns LogJoint's value at u, bit for bit, with its
// error, computing no gradient where the Target is a ValueTarget.
func (d *Unconstrained) LogJointValue(u []float64) (float64, error) {
	d.Coords(u, d.x)
	return logJointValue(d.t, d.x, d.gx)
}

// LogDensityAt returns LogDensity's value at u from the Target's log joint
// lp at Coords(u), computed elsewhere (gpp's --moment-match evaluates the
// outputs at its moved draws, and the log joint with them), adding the
// Jacobian as LogDensity does: given LogDensity's lp, its value bit for
// bit. No gradient, no allocation.
func (d *Unconstrained) LogDensityAt(u []float64, lp float64) float64 {
	d.Coords(u, d.x)
	return d.addLogJac(lp, u)
}

// addLogJac returns lp plus log |dz/du| at u, whose Target coordinates
// d.x Coords has written, the terms added in one order for LogDensity and
// LogDensityAt alike.
func (d *Unconstrained) addLogJac(lp float64, u []float64) float64 {
	for _, s := range d.segs {
		uu := u[s.uoff : s.uoff+s.n]
		switch s.kind {
		case uLog:
			for i, v := range uu {
				if i < s.first {
					continue
				}
				lp += v
			}
		case uLogit:
			for _, v := range uu {
				lp -= dist.Softplus(-v) + dist.Softplus(v) // log σ(v) + log σ(−v)
			}
		case uSimplex:
			for r := 0; r < s.n/(s.k-1); r++ {
				lp += dist.StickBreakLogJac(d.x[s.xoff+r*s.k : s.xoff+(r+1)*s.k])
			}
		}
	}
	return lp
}

// InitTries is how many random starts Init tries, as Stan does.
const InitTries = 100

// InitStream is the PCG stream of chain 0's random start (Init), chain c's
// InitStream + c, with the run's seed: gpp sample's and the model
// package's, so that both start their chains alike.
const InitStream = 0x696e697473212121

// InitRadius is Stan's default init radius: Init's coordinates are
// uniform on (−2, 2).
const InitRadius = 2

// Init draws a start u (len Dim) as Stan does: each coordinate uniform on
// (−2, 2), drawn again, up to InitTries times, while the log density or
// its gradient is not finite. It returns the error of the last try when
// none was finite. It is InitAt(rng, InitRadius, nil, u).
func (d *Unconstrained) Init(rng *rand.Rand, u []float64) error {
	return d.InitAt(rng, InitRadius, nil, u)
}

// InitAt draws a start u (len Dim) as Stan does with init radius r ≥ 0
// (CmdStan's init=r): each coordinate uniform on (−r, r), drawn again, up
// to InitTries times, while the log density or its gradient is not
// finite. The coordinates i where given[i] (given nil: none) keep u's
// values, as Stan keeps a user's inits; every coordinate is drawn all the
// same, so that the others take the values they take without given ones.
// With r = 0, or every coordinate given, there is one try: nothing random
// would change. It returns the error of the last try when none was
// finite, and a *StartError when a given start is not finite.
func (d *Unconstrained) InitAt(rng *rand.Rand, r float64, given []bool, u []float64) error {
	grad := make([]float64, d.dim)
	tries, free := InitTries, 0
	for i := range u {
		if given == nil || !given[i] {
			free++
		}
	}
	if r == 0 || free == 0 {
		tries = 1
	}
	var last error
	for range tries {
		for i := range u {
			v := 2*r*rng.Float64() - r
			if given == nil || !given[i] {
				u[i] = v
			}
		}
		lp, err := d.LogDensity(u, grad)
		ok := err == nil && finite(lp)
		for _, g := range grad {
			ok = ok && finite(g)
		}
		if ok {
			return nil
		}
		last = err
		if free == 0 && err == nil {
			last = &StartError{LogDensity: lp}
		}
	}
	if free == 0 {
		return last
	}
	what := fmt.Sprintf("%d random starts uniform on (-%v, %v)", tries, r, r)
	if r == 0 {
		what = "the start with every coordinate 0"
	}
	if free < len(u) {
		what += " (the given coordinates kept)"
	}
	if last != nil {
		return fmt.Errorf("no finite log density at %s; the last: %w", what, last)
	}
	return fmt.Errorf("no finite log density at %s", what)
}

// StartError is a start where the log density or its gradient is not
// finite though the Target gave no error: LogDensity is its value.
type StartError struct{ LogDensity float64 }

func (e *StartError) Error() string {
	if !finite(e.LogDensity) {
		return fmt.Sprintf("the log density is %v", e.LogDensity)
	}
	return "the log density's gradient is not finite"
}

// UCoords writes the unconstrained coordinates u (len Dim) of the Target's
// coordinates x (len TargetDim): the inverse of Coords, to start a chain
// at a point given in x (a draw of a fit's q, gpp sample --init).
func (d *Unconstrained) UCoords(x, u []float64) {
	for _, s := range d.segs {
		if s.kind != uSimplex {
			copy(u[s.uoff:s.uoff+s.n], x[s.xoff:s.xoff+s.n])
			continue
		}
		for r := 0; r < s.n/(s.k-1); r++ {
			dist.StickBreakCoords(u[s.uoff+r*(s.k-1):s.uoff+(r+1)*(s.k-1)], x[s.xoff+r*s.k:s.xoff+(r+1)*s.k])
		}
	}
}

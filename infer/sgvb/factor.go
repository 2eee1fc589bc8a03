package sgvb

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gpplang/gpp/dist"
)

// block is the factor of one latent inside the engine. Its unconstrained
// parameters are theta[poff : poff+np], laid out parameter-major: for a
// gamma factor of n elements, n raw shapes then n raw rates.
type block struct {
	name    string
	fam     Family
	support dist.Support
	shape   []int
	off, n  int // coordinates x[off : off+n]
	poff    int // parameters theta[poff : poff+np]
	k       int // simplex length (Dirichlet), else 1
	// logMS: a gamma factor written as θ₁ = log shape, θ₂ = log mean
	// (GammaLogMeanShape) instead of behind softplus links.
	logMS bool
	// paperStart: a gamma factor starts at shape = mean, rate 1, however
	// small the mean (Settings.PaperStart)
	paperStart bool
	// loc, scale: the latent is loc + scale·b (Latent.Loc, Latent.Scale);
	// locV, scaleV per element (Latent.LocV, Latent.ScaleV).
	loc, scale   float64
	locV, scaleV []float64
	// part is the part of an ordered latent the block fits (partFirst,
	// partIncrements), else partNone.
	part int
	// nat: scratch of a full-rank block's natural-gradient step (natDelta)
	// with natS draws per step.
	nat  []float64
	natS int
	// natCut and natSteps count the steps whose trust region cut ρ and
	// all steps since the last ELBO evaluation, natHeavy the intervals
	// between evaluations in a row in which it cut most; natDecays: the
	// trust region follows the step-size decay (natRegime).
	natCut, natSteps, natHeavy int
	natDecays                  bool
	// rank is a low-rank factor's R (FamilyLowRank) and lr the scratch of
	// its step (lowRankScratch).
	rank int
	lr   []float64
	// band is a banded factor's bandwidth K (FamilyBanded); glob is the
	// number of its global elements after the chain (an arrowhead), 0 for
	// a banded factor of one latent.
	band, glob int
	// lat is the index of the block's latent (of its first one for a
	// joint block).
	lat int
	// A joint full-rank block (Settings.FullRankGroups) spans several
	// latents: mem are their element ranges in the block, coords the
	// coordinate of each element and kind what the element is of its
	// latent's value (elValue, elLog, elLogit). All nil for the block of
	// one latent, whose element i is coordinate off+i.
	mem    []member
	coords []int
	kind   []elKind
	// sticks are the simplex rows of a full-rank block whose elements
	// are their stick-breaking coordinates (elStick, stick.go); nil
	// without simplex latents.
	sticks []stick
}

// elKind is what an element of a normal-based block (full-rank, low-rank)
// is of its latent's value z: z itself (a real latent), log z (a positive
// one), logit z (a unit one: a param bounded on both sides, z its
// place between the bounds) or a stick-breaking coordinate of a simplex
// row (a full-rank block's only: stick.go), Stan's unconstrained
// coordinate.
type elKind int8

const (
	elValue elKind = iota
	elLog
	elLogit
	elStick
)

// kindOf returns the element kind of a latent of support s.
func kindOf(s dist.Support) elKind {
	switch s {
	case dist.Positive:
		return elLog
	case dist.Unit:
		return elLogit
	case dist.Simplex:
		return elStick
	}
	return elValue
}

// member is one latent of a joint full-rank block: elements [lo, lo+n) of
// the block, latent lat of the engine; part is the part of an ordered
// latent it is (a Laplace fit's group holds both, expandOrdered).
type member struct {
	name       string
	lat, lo, n int
	part       int
}

// at returns the coordinate of element i of the block.
func (b *block) at(i int) int {
	if b.coords != nil {
		return b.coords[i]
	}
	return b.off + i
}

// logAt reports whether element i of a normal-based block is a normal on
// the log of a positive value (lognormal factors, and full-rank ones of
// positive latents).
func (b *block) logAt(i int) bool {
	if b.kind != nil {
		return b.kind[i] == elLog
	}
	return b.fam == FamilyLognormal || b.fullRankLog() || b.fam == FamilyBanded && b.support == dist.Positive
}

// logitAt reports whether element i of a full-rank, low-rank or normal
// block (Settings.logitNormalUnit) is a normal on the logit of a unit
// value b: q's density of b is the normal's
// less log |db/dx| = log σ(x) + log(1 − σ(x)) (logitJac). That term's
// mean under q has no closed form, so the block's entropy is the normal's
// and the engine adds the Jacobian to each draw's log p instead (and to
// its log q, which logq gives on b's scale): the ELBO is the same.
func (b *block) logitAt(i int) bool {
	if b.kind != nil {
		return b.kind[i] == elLogit
	}
	return (b.fam == FamilyFullRank || b.fam == FamilyLowRank || b.fam == FamilyBanded || b.fam == FamilyNormal) && b.support == dist.Unit
}

// logJacAt returns the log Jacobian of element i's transform at the draw
// x: log z = x for the log of a positive latent z, logitJac's for the
// logit of a unit one, 0 for a real one; for the stick-breaking
// coordinate y_j of a simplex row, log x_j, and with the row's last y the
// log of its last entry too, so that a row's elements sum to its
// dist.StickBreakLogJac. A density of q on the elements' own scales
// subtracts it from the normal's.
func (b *block) logJacAt(x []float64, i int) float64 {
	switch {
	case b.kind != nil && b.kind[i] == elStick:
		c := b.at(i)
		if i+1 == b.n || b.kind[i+1] != elStick || b.at(i+1) != c+1 { // the row's last y: x's last entry follows it
			return x[c] + x[c+1]
		}
		return x[c]
	case b.logAt(i):
		return x[b.at(i)]
	case b.logitAt(i):
		j, _ := logitJac(x[b.at(i)])
		return j
	}
	return 0
}

// logitJac returns log |db/dx| = log σ(x) + log(1 − σ(x)) of b = σ(x) and
// its derivative 1 − 2σ(x).
func logitJac(x float64) (float64, float64) {
	return -softplus(-x) - softplus(x), 1 - 2*sigmoid(x)
}

// logConc reports whether the block is a Dirichlet factor, whose
// concentrations are written as their logs (as beta factors' were).
// Behind a softplus (as gamma factors are in the paper) an adaptive
// optimizer moves a concentration by about η·√ε a step once it is past 1,
// so tight posteriors took
// 10⁴ steps and more: a beta proportion from 600 trials ended 2.4× too
// wide after 10⁴ steps, a Dirichlet from 200 counts 31 % too wide when
// the ELBO rule stopped it (docs/inference.md). Beta factors went further:
// they are written as their mean's logit and their log concentration
// (logitMC).
func (b *block) logConc() bool { return b.fam == FamilyDirichlet }

// logitMC reports whether the block is a beta factor, whose parameters are
// θ₁ = logit(α/(α+β)), the logit of its mean, and θ₂ = log(α+β), its log
// concentration: α = e^θ₂·σ(θ₁), β = e^θ₂·σ(−θ₁). In (log α, log β) the
// mean and the spread share both coordinates: the mean's gradient, large
// and noisy on many data (a minibatch's above all), set AdaDelta's
// per-coordinate scale of both, and the concentration, whose own gradient
// is small, crept: a Bernoulli proportion from 20 000 rows ended 2.0–2.1×
// too wide under minibatches of 200, and proportions from 10⁴–5·10⁴ rows
// 3–21 % too wide without them when the ELBO rule stopped
// (docs/inference.md, Beta factors: logit mean and log concentration).
// Apart, each coordinate has its own scale, as the log mean and log shape
// of gamma factors do, and q's Fisher information there (betaFisher),
// nearly diagonal, caps AdaDelta's rate.
func (b *block) logitMC() bool { return b.fam == FamilyBeta }

// np returns the number of unconstrained parameters of the block.
func (b *block) np() int {
	switch b.fam {
	case FamilyDirichlet, FamilyPoint:
		return b.n
	case FamilyFullRank:
		return 2*b.n + b.n*(b.n-1)/2
	case FamilyLowRank:
		return 2*b.n + b.n*b.rank
	case FamilyBanded:
		return bandedNP(b.n, b.band, b.glob)
	}
	return 2 * b.n
}

// MaxFullRank is the most elements of a latent with a full-rank factor.
// A step costs O(S·n²) for S draws (natDelta), but fits take more steps as
// n grows: on a regression posterior 3300 at n = 100, 11 000–13 500 at
// n = 200 (past the default 10⁴), and at n = 300 they were far from the
// posterior after 3·10⁴ (KL 500–1100; docs/inference.md).
const MaxFullRank = 100

// CheckFullRank returns why a latent of support s and n elements cannot
// have a full-rank factor (FamilyFullRank), or nil if it can.
func CheckFullRank(s dist.Support, n int) error {
	if s != dist.Real && s != dist.Positive && s != dist.Unit && s != dist.Simplex && !s.IsCoords() {
		return fmt.Errorf("full-rank factors are for real, positive, unit (bounded on both sides), simplex, cholesky_factor_corr, corr_matrix, cholesky_factor_cov, cov_matrix, sum_to_zero_vector and sum_to_zero_matrix latents, not %v ones", s)
	}
	if n > MaxFullRank {
		return fmt.Errorf("%d elements; full-rank factors are for latents of at most %d elements: larger ones do not converge in a default fit (docs/inference.md)", n, MaxFullRank)
	}
	return nil
}

// errOrderedJoint says why an ordered latent joins no banded factor.
const errOrderedJoint = "an ordered or positive_ordered latent joins full-rank and low-rank factors, not banded ones (a chain of states and its globals; its first element and log increments are two members)"

// orderedJoint returns the family of the joint factor of ordered latent
// l's parts under s: full-rank, low-rank with s.Rank, none with s.Band.
func orderedJoint(l Latent, s *Settings) (Family, error) {
	switch {
	case s.Band > 0:
		return 0, fmt.Errorf("sgvb: latent %s: %s", l.Name, errOrderedJoint)
	case s.Rank > 0:
		return FamilyLowRank, nil
	}
	return FamilyFullRank, nil
}

// errStickJoint says why a simplex joins no low-rank or banded factor.
const errStickJoint = "a simplex joins full-rank factors only (its stick-breaking coordinates are not implemented for low-rank or banded ones)"

// latentElems returns the number of elements of l in a full-rank factor:
// its size, or K − 1 per row of K of a simplex (stick.go).
func latentElems(l Latent) int {
	if l.Support == dist.Simplex && len(l.Shape) > 0 && l.Shape[len(l.Shape)-1] >= 2 {
		return stickElems(l.Size, l.Shape[len(l.Shape)-1])
	}
	return l.Size
}

// Full-rank factors (FamilyFullRank) lay out theta as the n means, the n
// raw diagonal entries of L (behind a softplus, like sds), then the
// entries L_ij below the diagonal, row by row: L_ij at lowIdx(n, i, j).
func lowIdx(n, i, j int) int { return 2*n + i*(i-1)/2 + j }

// fullRankLog reports whether the block is a full-rank factor of a
// positive latent, a normal on the logs of its values.
func (b *block) fullRankLog() bool { return b.fam == FamilyFullRank && b.support == dist.Positive }

// positive reports whether parameter slot j (relative to poff) lives behind
// a softplus: normal and lognormal sds, and gamma shapes and rates unless
// log-parameterised.
func (b *block) positive(j int) bool {
	switch b.fam {
	case FamilyNormal, FamilyLognormal:
		return j >= b.n
	case FamilyFullRank, FamilyLowRank:
		return j >= b.n && j < 2*b.n
	case FamilyPoint:
		return false
	case FamilyGamma:
		return !b.logMS
	}
	return false
}

// clamp keeps parameter slot j's raw value v where the factor stays valid:
// shapes, rates, concentrations and sds at or above minParam, gamma shapes
// and concentrations (the shapes of the gamma draws that build beta and
// Dirichlet factors) at or below maxShape.
func (b *block) clamp(j int, v float64) float64 {
	lo, hi := b.clampBounds(j)
	return min(max(v, lo), hi)
}

// clampBounds returns the interval that clamp(j, ·) keeps values in,
// with ±Inf for a free side (min and max then return v itself, NaN
// included).
func (b *block) clampBounds(j int) (lo, hi float64) {
	shape := b.fam == FamilyGamma && j < b.n
	switch {
	case b.logMS && shape, b.logConc():
		return logMinParam, logMaxShape
	case b.logitMC() && j < b.n: // the mean's logit: α/β within [minParam/maxShape, maxShape/minParam]
		return logMinParam - logMaxShape, logMaxShape - logMinParam
	case b.logitMC(): // log(α+β)
		return logMinParam, logMaxShape
	case b.fam == FamilyBanded && j >= b.n && j < 2*b.n: // log d: an sd in [minParam, 1/minParam]
		return logMinParam, -logMinParam
	case shape:
		return minRaw, maxShape // softplus(r) = r above 35
	case b.positive(j):
		return minRaw, math.Inf(1)
	}
	return math.Inf(-1), math.Inf(1)
}

// stepClamped sets theta[i] = clamp(i−poff, theta[i]+delta[i]) for the
// block's indices i in [lo, hi). In the elementwise families a slot's
// bounds depend only on its half (the first parameter or the second), so
// they are looked up once per half instead of once per element, which
// cost as much as the addition and the clamp themselves.
func (b *block) stepClamped(theta, delta []float64, lo, hi int) {
	switch b.fam {
	case FamilyGamma, FamilyNormal, FamilyLognormal, FamilyBeta, FamilyDirichlet, FamilyPoint:
	default:
		for i := lo; i < hi; i++ {
			theta[i] = b.clamp(i-b.poff, theta[i]+delta[i])
		}
		return
	}
	for lo < hi {
		end := hi
		if mid := b.poff + b.n; lo < mid && mid < hi {
			end = mid
		}
		l, u := b.clampBounds(lo - b.poff)
		for i := lo; i < end; i++ {
			theta[i] = min(max(theta[i]+delta[i], l), u)
		}
		lo = end
	}
}

// maxShape caps the shape of gamma factors. A draw's shape derivative sums
// a series of about 9·√a terms (2 µs at a = 10⁸, none converging above
// ~10¹²), and a relative sd 1/√a below 3·10⁻⁴ is beyond what SGVB's noisy
// steps resolve. With the log-mean-shape parameterisation and η = 1,
// factors of weakly identified latents were seen to random-walk to shapes
// of 10¹⁰–10¹⁴ within 1000 steps.
const maxShape = 1e7

var logMaxShape = math.Log(maxShape)

// Parameters behind a softplus are kept at or above minParam.
const minParam = 1e-8

var (
	minRaw      = softplusInv(minParam)
	logMinParam = math.Log(minParam)
)

func softplus(r float64) float64 {
	if r > 35 {
		return r
	}
	return math.Log1p(math.Exp(r))
}

func softplusInv(v float64) float64 {
	if v > 35 {
		return v
	}
	return math.Log(math.Expm1(v))
}

// softplusSigmoid returns softplus(r) and its derivative sigmoid(r) from
// one exp.
func softplusSigmoid(r float64) (float64, float64) {
	if r > 35 {
		return r, sigmoid(r)
	}
	e := math.Exp(r)
	return math.Log1p(e), e / (1 + e)
}

func sigmoid(r float64) float64 {
	if r >= 0 {
		return 1 / (1 + math.Exp(-r))
	}
	e := math.Exp(r)
	return e / (1 + e)
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

const halfLog2PiE = 1.4189385332046727 // ½·log(2πe)
const halfLog2Pi = 0.9189385332046727  // ½·log(2π)

// FamilyOf returns the family of latent l's factor under settings s (the
// support's own family, the positive family of s.Family, or s.Families'
// choice for l), or why l cannot have the factor asked for.
func (s Settings) FamilyOf(l Latent) (Family, error) { return resolveFamily(l, &s) }

// resolveFamily picks the family of a latent.
func resolveFamily(l Latent, s *Settings) (Family, error) {
	over := s.Family
	f, named := s.Families[l.Name]
	if named {
		over = f
	}
	if s.Method == MAP {
		return FamilyPoint, nil
	}
	if l.part == partNone && inGroup(s, l.Name) { // a joint factor's member
		if l.Support.IsOrdered() { // its parts join the group (expandOrdered)
			return orderedJoint(l, s)
		}
		if err := CheckFullRank(l.Support, 1); err != nil {
			return 0, fmt.Errorf("sgvb: latent %s: %w", l.Name, err)
		}
		if l.Support == dist.Simplex && (s.Band > 0 || s.Rank > 0) {
			return 0, fmt.Errorf("sgvb: latent %s: %s", l.Name, errStickJoint)
		}
		if s.Band > 0 {
			return FamilyBanded, nil
		}
		if s.Rank > 0 {
			return FamilyLowRank, nil
		}
		return FamilyFullRank, nil
	}
	switch {
	case l.part == partFirst: // an ordered latent's x_0: always normal
		return FamilyNormal, nil
	case l.Support.IsOrdered(): // as the parts resolve
		if named && f == FamilyFullRank { // its parts' joint factor (expandOrdered)
			return orderedJoint(l, s)
		}
		inc := l
		inc.Support, inc.part = dist.Positive, partIncrements
		if _, err := resolveFamily(inc, s); err != nil {
			return 0, err
		}
		return FamilyOrdered, nil
	}
	own := map[dist.Support]Family{dist.Real: FamilyNormal, dist.CholCorr: FamilyNormal, dist.CorrMatrix: FamilyNormal, dist.CholCov: FamilyNormal, dist.CovMatrix: FamilyNormal, dist.SumToZero: FamilyNormal, dist.SumToZeroMatrix: FamilyNormal, dist.Unit: FamilyBeta, dist.Simplex: FamilyDirichlet}[l.Support]
	if named && f == FamilyFullRank {
		n := latentElems(l)
		if s.Method.JointNormal() { // MaxLaplace, checked by laplaceSettings
			n = 1
		}
		if err := CheckFullRank(l.Support, n); err != nil {
			return 0, fmt.Errorf("sgvb: latent %s: %w", l.Name, err)
		}
		return FamilyFullRank, nil
	}
	if named && l.Support != dist.Positive && f != FamilyAuto && f != own {
		return 0, fmt.Errorf("sgvb: latent %s: family %v is not available for a %v latent", l.Name, f, l.Support)
	}
	switch l.Support {
	case dist.Positive:
		switch over {
		case FamilyAuto, FamilyGamma:
			return FamilyGamma, nil
		case FamilyLognormal:
			return FamilyLognormal, nil
		}
		return 0, fmt.Errorf("sgvb: latent %s: family %v is not available for a positive latent", l.Name, over)
	case dist.Real, dist.CholCorr, dist.CorrMatrix, dist.CholCov, dist.CovMatrix, dist.SumToZero, dist.SumToZeroMatrix: // a cholesky_factor_corr, corr_matrix, cholesky_factor_cov, cov_matrix, sum_to_zero_vector or sum_to_zero_matrix latent's coordinates are real
		return FamilyNormal, nil
	case dist.Unit:
		if s.logitNormalUnit && !(named && f == FamilyBeta) { // betaFallback's refit, but for a beta the caller names
			return FamilyNormal, nil
		}
		return FamilyBeta, nil
	case dist.Simplex:
		return FamilyDirichlet, nil
	}
	return 0, fmt.Errorf("sgvb: latent %s: unsupported support %v", l.Name, l.Support)
}

// Initial values.
const (
	initSD     = 0.1 // initial sd of normal factors, and sdlog of lognormal ones
	betaInitC  = 2   // initial α+β of beta factors
	defaultPos = 1.0 // initial mean of a positive latent without Init
	// minStartShape is the least initial shape of a gamma factor. The
	// paper's code starts a gamma factor at shape = the initial mean m,
	// rate 1; below m = minStartShape it starts at that shape with the rate
	// that keeps the mean. The log of a Gamma(a) draw has a left tail like
	// e^{at}: at HalfNormal(0.1)'s mean 0.08, 5 of 20 draws of a scale lay
	// below e⁻²⁵ (down to e⁻⁶⁰), where a likelihood in 1/σ² gave log joints
	// of −10⁵³ and gradients of 10⁴⁰–10⁵⁵ that froze AdaDelta (its rate
	// √E[Δ²]/√E[g²] ~ 10⁻⁴⁰) with the shape still at 0.14–0.18, far from the
	// posterior's thousands; at 0.5 the log draws' sd is π/√2 ≈ 2.2. The
	// bundled models' smallest start is HalfNormal(1)'s 0.80, above it.
	minStartShape = 0.5
)

// initElem returns the initial mean of element i of latent l, on the
// natural scale, using l.Init when it is valid.
func initElem(l *Latent, i int, def float64, ok func(float64) bool) float64 {
	if l.Init != nil && i < len(l.Init) && ok(l.Init[i]) {
		return l.Init[i]
	}
	return def
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
func isPos(v float64) bool  { return v > 0 && !math.IsInf(v, 0) }
func isUnit(v float64) bool { return v > 0 && v < 1 }

// initTheta writes the block's default initial parameters.
func (b *block) initTheta(l *Latent, th []float64) {
	n := b.n
	switch b.fam {
	case FamilyGamma: // the paper's code: shape = initial mean, rate = 1 (but minStartShape)
		for i := 0; i < n; i++ {
			m := initElem(l, i, defaultPos, isPos)
			a, rate := math.Max(m, minParam), 1.0
			if r := minStartShape / m; m < minStartShape && finite(r) && !b.paperStart {
				a, rate = minStartShape, r // the same mean m, narrower
			}
			if b.logMS {
				th[i] = math.Log(a)
				th[n+i] = math.Log(m)
				continue
			}
			th[i] = softplusInv(a)
			th[n+i] = softplusInv(rate)
		}
	case FamilyLognormal:
		for i := 0; i < n; i++ {
			th[i] = math.Log(initElem(l, i, defaultPos, isPos))
			th[n+i] = softplusInv(initSD)
		}
	case FamilyNormal:
		for i := 0; i < n; i++ {
			if b.support == dist.Unit { // the logit (Settings.logitNormalUnit)
				th[i] = startCoord(l, i, 1)
			} else {
				th[i] = initElem(l, i, 0, finite)
			}
			th[n+i] = softplusInv(initSD)
		}
	case FamilyFullRank: // L = initSD·I
		for i := 0; i < n; i++ {
			th[i] = startCoord(l, i, 1) // real, or the logs of a positive latent
			th[n+i] = softplusInv(initSD)
		}
		if b.sticks != nil {
			stickStart(l, b.k, th[:n])
		}
		clear(th[2*n:])
	case FamilyBeta:
		for i := 0; i < n; i++ {
			m := initElem(l, i, 0.5, isUnit)
			th[i] = math.Log(m) - math.Log1p(-m)
			th[n+i] = math.Log(betaInitC)
		}
	case FamilyDirichlet:
		k := b.k
		for v := 0; v < n/k; v++ {
			ok := l.Init != nil && len(l.Init) >= (v+1)*k
			sum := 0.0
			if ok {
				for j := 0; j < k; j++ {
					m := l.Init[v*k+j]
					if !isPos(m) {
						ok = false
					}
					sum += m
				}
			}
			for j := 0; j < k; j++ {
				a := 1.0
				if ok {
					a = float64(k) * l.Init[v*k+j] / sum
				}
				th[v*k+j] = math.Log(math.Max(a, minParam))
			}
		}
	case FamilyPoint:
		for i := 0; i < n; i++ {
			th[i] = startCoord(l, i, b.k)
		}
	}
}

// startCoord returns coordinate i of latent l at the default start's centre
// (MAP's start): its Init element if valid, otherwise 1, 0.5, 1/k or 0 by
// its support, mapped by coordOf. k is the simplex size.
func startCoord(l *Latent, i, k int) float64 {
	def, ok := 0.0, finite
	switch l.Support {
	case dist.Positive:
		def, ok = defaultPos, isPos
	case dist.Unit:
		def, ok = 0.5, isUnit
	case dist.Simplex:
		def, ok = 1/float64(k), isPos
	}
	return coordOf(l.Support, initElem(l, i, def, ok))
}

// StartPoint returns the coordinate vector (of length dim) at the centre of
// a fit's default start: each element at its Init mean, or at 1, 0.5, 1/K
// or 0 by its support; the point MAP starts from. A log joint that fails
// there fails at a fit's first steps.
func StartPoint(lats []Latent, dim int) []float64 {
	x := make([]float64, dim)
	lats, _ = expandOrdered(lats, &Settings{})
	for i := range lats {
		l := &lats[i]
		k := 1
		if l.Support == dist.Simplex && len(l.Shape) > 0 {
			k = l.Shape[len(l.Shape)-1]
		}
		for j := 0; j < l.Size; j++ {
			x[l.Offset+j] = startCoord(l, j, k)
		}
	}
	return x
}

// TryNear looks for a usable start near x0: up to tries times it writes
// into x the point x0 with every coordinate moved by a U(−h, h) draw of
// rng, and returns the first try (counting from 1) at which ok(x) holds,
// or 0. MAP's fallback start and gpp check's trial of the start use it.
func TryNear(x0, x []float64, h float64, tries int, rng *rand.Rand, ok func(x []float64) bool) int {
	for try := 1; try <= tries; try++ {
		for i := range x {
			x[i] = x0[i] + h*(2*rng.Float64()-1)
		}
		if ok(x) {
			return try
		}
	}
	return 0
}

// jitter moves the location of every element of the block's start th by
// an independent U(−h, h) draw on the unconstrained scale of its support,
// keeping the spread: a gamma factor's mean by a factor e^u at the same
// shape, a lognormal's log-scale location or a normal's mean by u, a beta's
// mean by u on the logit scale at the same α+β, a Dirichlet's
// concentrations each by e^u, a point by u. Restarts that start apart can
// find other modes (Settings.InitJitter).
func (b *block) jitter(th []float64, rng *rand.Rand, h float64) {
	u := func() float64 { return h * (2*rng.Float64() - 1) }
	n := b.n
	switch b.fam {
	case FamilyGamma:
		for i := n; i < 2*n; i++ {
			if b.logMS { // log mean
				th[i] += u()
			} else { // raw rate: rate·e^(−u) moves the mean by e^u
				th[i] = softplusInv(softplus(th[i]) * math.Exp(-u()))
			}
		}
	case FamilyLognormal, FamilyNormal, FamilyPoint, FamilyFullRank, FamilyLowRank, FamilyBanded:
		for i := range n {
			th[i] += u()
		}
	case FamilyBeta: // the mean's logit
		for i := range n {
			th[i] += u()
		}
	case FamilyDirichlet:
		for i := range n {
			th[i] += u()
		}
	}
	for j := range th {
		th[j] = b.clamp(j, th[j])
	}
}

// params writes the block's natural parameters (Factor.Params) from theta.
func (b *block) params(th []float64) [][]float64 {
	if b.fam == FamilyFullRank {
		n := b.n
		out := make([][]float64, n+1)
		out[0] = append([]float64(nil), th[:n]...)
		for j := range n {
			col := make([]float64, n)
			col[j] = softplus(th[n+j])
			for i := j + 1; i < n; i++ {
				col[i] = th[lowIdx(n, i, j)]
			}
			out[1+j] = col
		}
		return out
	}
	if b.fam == FamilyBanded {
		return b.bandedParams(th)
	}
	if b.fam == FamilyLowRank { // mean, d, columns of B
		n, r := b.n, b.rank
		out := make([][]float64, 2+r)
		out[0] = append([]float64(nil), th[:n]...)
		out[1] = make([]float64, n)
		for i := range n {
			out[1][i] = softplus(th[n+i])
		}
		for k := range r { // B = D·C
			col := make([]float64, n)
			for i := range n {
				col[i] = out[1][i] * th[lrIdx(n, r, i, k)]
			}
			out[2+k] = col
		}
		return out
	}
	names := b.fam.ParamNames(b.n)
	out := make([][]float64, len(names))
	for j := range out {
		p := make([]float64, b.n)
		for i := range p {
			r := th[j*b.n+i]
			if b.positive(j*b.n + i) {
				p[i] = softplus(r)
			} else {
				p[i] = r
			}
		}
		out[j] = p
	}
	if b.fam == FamilyPoint { // natural scale
		natural(b.support, b.k, out[0], out[0])
	}
	if b.logConc() {
		for _, p := range out {
			for i, r := range p {
				p[i] = math.Exp(r)
			}
		}
	}
	if b.logMS { // (log a, log mean) → (a, b)
		for i := range out[0] {
			a := math.Exp(out[0][i])
			out[0][i], out[1][i] = a, math.Exp(out[0][i]-out[1][i])
		}
	}
	if b.logitMC() { // (logit mean, log concentration) → (α, β)
		for i := range out[0] {
			out[0][i], out[1][i] = betaShapes(out[0][i], out[1][i])
		}
	}
	return out
}

// betaShapes returns a beta factor's α and β from the logit m of its mean
// and the log lc of its concentration α+β (logitMC), each at least
// minParam (an extreme mean of a small concentration would put one below).
func betaShapes(m, lc float64) (a, b float64) {
	return math.Max(math.Exp(lc-softplus(-m)), minParam), math.Max(math.Exp(lc-softplus(m)), minParam)
}

// thetaFrom writes theta from natural parameters (the inverse of params).
func (b *block) thetaFrom(p [][]float64, th []float64) {
	if b.fam == FamilyFullRank {
		n := b.n
		copy(th[:n], p[0])
		for i := range n {
			th[n+i] = softplusInv(math.Max(p[1+i][i], minParam))
			for j := range i {
				th[lowIdx(n, i, j)] = p[1+j][i]
			}
		}
		return
	}
	if b.fam == FamilyBanded {
		b.bandedTheta(p, th)
		return
	}
	if b.fam == FamilyLowRank {
		n, r := b.n, b.rank
		copy(th[:n], p[0])
		for i := range n {
			d := math.Max(p[1][i], minParam)
			th[n+i] = softplusInv(d)
			for k := range r { // C = D⁻¹B
				th[lrIdx(n, r, i, k)] = p[2+k][i] / d
			}
		}
		return
	}
	if b.logMS {
		// The shape has the fit's floor; the rate has none (the mean is
		// free), so it is kept as it is: a floor of minParam made every
		// factor whose mean is above 10⁸ times its shape draw too small.
		for i := range p[0] {
			a, r := math.Max(p[0][i], minParam), math.Max(p[1][i], math.SmallestNonzeroFloat64)
			th[i], th[b.n+i] = math.Log(a), math.Log(a)-math.Log(r)
		}
		return
	}
	if b.logitMC() {
		for i := range p[0] {
			a, bb := math.Max(p[0][i], minParam), math.Max(p[1][i], minParam)
			th[i], th[b.n+i] = math.Log(a)-math.Log(bb), math.Log(a+bb)
		}
		return
	}
	for j := range p {
		for i, v := range p[j] {
			if b.fam == FamilyPoint {
				th[i] = coordOf(b.support, v)
				continue
			}
			if b.logConc() {
				th[j*b.n+i] = math.Log(math.Max(v, minParam))
				continue
			}
			if b.positive(j*b.n + i) {
				th[j*b.n+i] = softplusInv(math.Max(v, minParam))
			} else {
				th[j*b.n+i] = v
			}
		}
	}
}

// coordOf maps a natural-scale scalar to its coordinate.
func coordOf(s dist.Support, v float64) float64 {
	switch s {
	case dist.Positive, dist.Simplex:
		return math.Log(v)
	case dist.Unit:
		return math.Log(v) - math.Log1p(-v)
	}
	return v
}

// natural maps coordinates to natural-scale values (dst may be src).
func natural(s dist.Support, k int, dst, src []float64) {
	switch s {
	case dist.Positive:
		for i, v := range src {
			dst[i] = math.Exp(v)
		}
	case dist.Unit:
		for i, v := range src {
			dst[i] = dist.Inside(sigmoid(v), 0, 1) // as the model's value
		}
	case dist.Simplex:
		for v := 0; v+k <= len(src); v += k {
			mx := math.Inf(-1)
			for _, c := range src[v : v+k] {
				mx = math.Max(mx, c)
			}
			sum := 0.0
			for j := v; j < v+k; j++ {
				dst[j] = math.Exp(src[j] - mx)
				sum += dst[j]
			}
			for j := v; j < v+k; j++ {
				dst[j] /= sum
			}
		}
	default:
		copy(dst, src)
	}
}

// stepCache holds, per step, the constrained parameters val = softplus(θ)
// (or θ), their derivative dval, and the trigamma ψ₁ of gamma shapes (for
// the entropy gradient and the control variate), all indexed like theta.
// For log-parameterised gamma factors val holds (a, b) and dval is unused:
// chain applies their non-diagonal Jacobian.
type stepCache struct {
	val, dval, psi1 []float64
	// logb holds log b of each gamma factor's rate slot (draws and STL use
	// it once per element and draw).
	logb []float64
	// shape holds each gamma shape's prepared draw (the sampler constants
	// and digammas, computed once per step, not once per draw) when the
	// engine uses dist.Implicit; nil otherwise.
	shape []dist.GammaShape
	// fisher holds, for the log shape and log mean coordinates of gamma
	// factors, q's Fisher information in that coordinate (a(aψ₁(a) − 1)
	// and a; the matrix is diagonal there), whose reciprocal caps
	// AdaDelta's rate (optim.update); 0 elsewhere, nil when no cap applies.
	fisher []float64
}

func newStepCache(np int, prepared bool) stepCache {
	c := stepCache{val: make([]float64, np), dval: make([]float64, np), psi1: make([]float64, np), logb: make([]float64, np)}
	if prepared {
		c.shape = make([]dist.GammaShape, np)
	}
	return c
}

// gammaShape records the step's shape a of gamma slot i and its trigamma.
func (c *stepCache) gammaShape(i int) {
	if c.shape != nil {
		sh := &c.shape[i] // dist.NewGammaShape in place (see PrepareDraw)
		sh.PrepareDraw(c.val[i])
		sh.Finish()
		c.psi1[i] = sh.Trigamma
		return
	}
	c.psi1[i] = dist.Trigamma(c.val[i])
}

func (c *stepCache) fill(blocks []block, th []float64) {
	for bi := range blocks {
		c.fillRange(&blocks[bi], th, 0, blocks[bi].n)
	}
}

// spans returns the indices into theta of the parameters of elements
// [lo, hi): [a0, a1) and, for two-parameter families, [b0, b1) (else empty).
func (b *block) spans(lo, hi int) (a0, a1, b0, b1 int) {
	p := b.poff
	if b.fam == FamilyFullRank || b.fam == FamilyLowRank || b.fam == FamilyBanded { // one segment holds the whole block
		return p, p + b.np(), 0, 0
	}
	if b.np() == b.n {
		return p + lo, p + hi, 0, 0
	}
	return p + lo, p + hi, p + b.n + lo, p + b.n + hi
}

// slots returns the parameter slots (relative to poff) of element i: i and
// n+i for two-parameter factors, i alone for Dirichlet and point factors.
func (b *block) slots(i int) (int, int) {
	if b.np() == b.n {
		return i, -1
	}
	return i, b.n + i
}

// fillRange fills the cache for elements [lo, hi) of block b.
func (c *stepCache) fillRange(b *block, th []float64, lo, hi int) {
	c.fillSpan(b, th, lo, hi, false)
}

// fillSpan is fillRange; with later, for a deferrable block, each gamma
// shape gets only its sampler's constants (dist.GammaShape.PrepareDraw), and
// finishGamma does the rest (polygammas, psi1, fisher) after the draw.
func (c *stepCache) fillSpan(b *block, th []float64, lo, hi int, later bool) {
	n, p := b.n, b.poff
	if b.fam == FamilyFullRank { // the whole block: means and L
		for j := p; j < p+b.np(); j++ {
			c.val[j], c.dval[j] = th[j], 1
		}
		for j := p + n; j < p+2*n; j++ {
			c.val[j], c.dval[j] = softplusSigmoid(th[j])
		}
		return
	}
	if b.fam == FamilyBanded { // the whole block: means, d = e^θ, C
		c.bandedFill(b, th)
		return
	}
	if b.fam == FamilyLowRank { // the whole block: means, d, C and K
		for j := p; j < p+b.np(); j++ {
			c.val[j], c.dval[j] = th[j], 1
		}
		for j := p + n; j < p+2*n; j++ {
			c.val[j], c.dval[j] = softplusSigmoid(th[j])
		}
		b.lowRankFill(c.val)
		return
	}
	if b.logMS {
		for i := lo; i < hi; i++ {
			la := th[p+i]
			c.val[p+i] = math.Exp(la)
			c.logb[p+n+i] = la - th[p+n+i]
			c.val[p+n+i] = math.Exp(c.logb[p+n+i])
			if later && c.shape != nil {
				c.shape[p+i].PrepareDraw(c.val[p+i])
				continue
			}
			c.gammaShape(p + i)
			if c.fisher != nil {
				a := c.val[p+i]
				c.fisher[p+i] = a * (a*c.psi1[p+i] - 1)
				c.fisher[p+n+i] = a
			}
		}
		return
	}
	if b.logitMC() {
		for i := lo; i < hi; i++ {
			a, bb := betaShapes(th[p+i], th[p+n+i])
			c.val[p+i], c.val[p+n+i] = a, bb
			c.psi1[p+i] = dist.Trigamma(a)
			c.psi1[p+n+i] = dist.Trigamma(bb)
			if c.fisher != nil {
				c.fisher[p+i], c.fisher[p+n+i] = betaFisher(a, bb, c.psi1[p+i], c.psi1[p+n+i])
			}
		}
		return
	}
	for i := lo; i < hi; i++ {
		j1, j2 := b.slots(i)
		for _, j := range [2]int{j1, j2} {
			if j < 0 {
				continue
			}
			r := th[p+j]
			if b.logConc() {
				c.val[p+j] = math.Exp(r)
				c.dval[p+j] = c.val[p+j]
			} else if b.positive(j) {
				c.val[p+j], c.dval[p+j] = softplusSigmoid(r)
			} else {
				c.val[p+j] = r
				c.dval[p+j] = 1
			}
		}
		switch b.fam {
		case FamilyGamma:
			c.logb[p+n+i] = math.Log(c.val[p+n+i])
			if later && c.shape != nil {
				c.shape[p+i].PrepareDraw(c.val[p+i])
				continue
			}
			c.gammaShape(p + i)
		case FamilyDirichlet:
			c.psi1[p+i] = dist.Trigamma(c.val[p+i])
		}
	}
}

// finishGamma does what fillSpan and sampleGammaLater left of elements
// [lo, hi) of a deferrable block: the shapes' polygammas, psi1 and the
// Fisher information, as fillRange computes them, and each draw's shape
// derivative into aux from its log x and x in lx and xs, as SampleLog
// computes it (dist.GammaShape.FinishDLogXDA: of the digammas only the
// one the derivative reads; nothing reads a step's shapes after it).
func (c *stepCache) finishGamma(b *block, lo, hi int, lx, xs, aux []float64) {
	n, p := b.n, b.poff
	for j := p + lo; j < p+hi; j++ {
		sh := &c.shape[j]
		aux[j] = sh.FinishDLogXDA(lx[j], xs[j])
		c.psi1[j] = sh.Trigamma
		if b.logMS && c.fisher != nil {
			a := c.val[j]
			c.fisher[j] = a * (a*c.psi1[j] - 1)
			c.fisher[n+j] = a
		}
	}
}

// sampleGammaLater is sampleRange for elements [lo, hi) of a deferrable
// block whose shapes have their sampler's constants alone: it draws x as
// sampleRange does, from the same random numbers, and keeps each log x and
// x in lx and xs for finishGamma instead of writing the derivative.
func (b *block) sampleGammaLater(c *stepCache, rng *rand.Rand, x, lx, xs []float64, lo, hi int) {
	n, p := b.n, b.poff
	for i := lo; i < hi; i++ {
		l, v := c.shape[p+i].SampleLogX(rng)
		x[b.off+i] = l - c.logb[p+n+i]
		lx[p+i], xs[p+i] = l, v
	}
}

// sample draws the block's coordinates into x (indexed like the full
// coordinate vector) and the reparameterisation derivatives into aux
// (indexed like theta): d log x/d shape for gamma-based factors, the
// standard normal ε for normal-based ones.
func (b *block) sample(c *stepCache, gg dist.GammaGradient, rng *rand.Rand, x, aux []float64) {
	b.sampleRange(c, gg, rng, x, aux, 0, b.n)
}

// sampleRange is sample for elements [lo, hi) (whole simplices).
func (b *block) sampleRange(c *stepCache, gg dist.GammaGradient, rng *rand.Rand, x, aux []float64, lo, hi int) {
	b.sampleSpan(c, gg, rng, x, aux, lo, hi, false)
}

// sampleSpan is sampleRange; with values, for an ELBO estimate, a gamma
// draw of a prepared shape skips its shape derivative (aux is then not
// written for it): x is the same, from the same random numbers.
func (b *block) sampleSpan(c *stepCache, gg dist.GammaGradient, rng *rand.Rand, x, aux []float64, lo, hi int, values bool) {
	n, p := b.n, b.poff
	val := c.val
	switch b.fam {
	case FamilyGamma:
		for i := lo; i < hi; i++ {
			var lx, d float64
			switch {
			case c.shape != nil && values:
				x[b.off+i] = c.shape[p+i].SampleLogValue(rng) - c.logb[p+n+i]
				continue
			case c.shape != nil:
				lx, d = c.shape[p+i].SampleLog(rng)
			default:
				lx, d = gg.SampleLog(val[p+i], rng)
			}
			x[b.off+i] = lx - c.logb[p+n+i]
			aux[p+i] = d
		}
	case FamilyNormal, FamilyLognormal:
		for i := lo; i < hi; i++ {
			e := rng.NormFloat64()
			x[b.off+i] = val[p+i] + val[p+n+i]*e
			aux[p+i] = e
		}
	case FamilyBeta:
		for i := lo; i < hi; i++ {
			l1, d1 := gg.SampleLog(val[p+i], rng)
			l2, d2 := gg.SampleLog(val[p+n+i], rng)
			x[b.off+i] = l1 - l2
			aux[p+i], aux[p+n+i] = d1, d2
		}
	case FamilyFullRank: // x = μ + Lε, the whole block
		for i := 0; i < n; i++ {
			e := rng.NormFloat64()
			aux[p+i] = e
			v := val[p+i] + val[p+n+i]*e
			for j, l := range b.lowRow(val, i) {
				v += l * aux[p+j]
			}
			x[b.at(i)] = v
		}
		b.breakSticks(x)
	case FamilyLowRank: // x = μ + d⊙(Cε₁ + ε₂), the whole block
		b.lowRankSample(val, rng, x, aux)
	case FamilyBanded: // x = μ + D⁻¹U⁻ᵀε, the whole block
		b.bandedSample(val, rng, x, aux)
	case FamilyPoint:
		copy(x[b.off+lo:b.off+hi], val[p+lo:p+hi])
	case FamilyDirichlet:
		k := b.k
		for v := lo; v < hi; v += k {
			mx := math.Inf(-1)
			for j := v; j < v+k; j++ {
				lx, d := gg.SampleLog(val[p+j], rng)
				x[b.off+j] = lx
				aux[p+j] = d
				mx = math.Max(mx, lx)
			}
			sum := 0.0
			for j := v; j < v+k; j++ {
				sum += math.Exp(x[b.off+j] - mx)
			}
			lse := mx + math.Log(sum)
			for j := v; j < v+k; j++ {
				x[b.off+j] -= lse
			}
		}
	}
}

// logq returns log q(z) for the block's coordinates in x: the log density
// of z on its natural scale (the space of the Target's log p). aux, if not
// nil, is what sample recorded when it drew x (a full-rank factor reads its
// ε there instead of solving for it).
func (b *block) logq(c *stepCache, x, aux []float64) float64 {
	return b.logqWith(c, x, aux, nil)
}

// logq0 writes a gamma block's a·log b − log Γ(a), the part of log q of
// each element that does not depend on the draw, into lq0 at its shape
// slots.
func (b *block) logq0(c *stepCache, lq0 []float64) {
	n, p := b.n, b.poff
	for i := 0; i < n; i++ {
		a, r := c.val[p+i], c.val[p+n+i]
		lq0[p+i] = a*math.Log(r) - lgamma(a)
	}
}

// logqWith is logq with a gamma block's logq0 read from lq0 (nil: computed
// here), the same sum in the same order.
func (b *block) logqWith(c *stepCache, x, aux, lq0 []float64) float64 {
	n, p := b.n, b.poff
	val := c.val
	s := 0.0
	switch b.fam {
	case FamilyGamma:
		for i := 0; i < n; i++ {
			a, r := val[p+i], val[p+n+i]
			l := x[b.off+i]
			var k float64
			if lq0 != nil {
				k = lq0[p+i]
			} else {
				k = a*math.Log(r) - lgamma(a)
			}
			s += k + (a-1)*l - r*math.Exp(l)
		}
	case FamilyNormal, FamilyLognormal:
		for i := 0; i < n; i++ {
			sd := val[p+n+i]
			e := (x[b.off+i] - val[p+i]) / sd
			s += -halfLog2Pi - math.Log(sd) - 0.5*e*e
			s -= b.logJacAt(x, i) // density of z = exp(x), or of b = σ(x) (logitAt)
		}
	case FamilyFullRank:
		s = b.fullRankLogq(val, x, aux)
	case FamilyLowRank:
		s = b.lowRankLogq(val, x, aux)
	case FamilyBanded:
		s = b.bandedLogq(val, x)
	case FamilyBeta:
		for i := 0; i < n; i++ {
			a, bb := val[p+i], val[p+n+i]
			t := x[b.off+i] // logit z
			lz, l1z := -softplus(-t), -softplus(t)
			s += (a-1)*lz + (bb-1)*l1z - dist.LogBeta(a, bb)
		}
	case FamilyDirichlet:
		k := b.k
		for v := 0; v < n; v += k {
			a0 := 0.0
			for j := v; j < v+k; j++ {
				a := val[p+j]
				a0 += a
				s += (a-1)*x[b.off+j] - lgamma(a)
			}
			s += lgamma(a0)
		}
	}
	return s
}

// entropy returns the entropy of the block's q (of z on its natural scale).
func (b *block) entropy(c *stepCache) float64 {
	n, p := b.n, b.poff
	val := c.val
	h := 0.0
	switch b.fam {
	case FamilyGamma:
		for i := 0; i < n; i++ {
			a, r := val[p+i], val[p+n+i]
			h += a - math.Log(r) + lgamma(a) + (1-a)*dist.Digamma(a)
		}
	case FamilyNormal, FamilyLognormal, FamilyFullRank: // log det L = Σ log L_ii
		for i := 0; i < n; i++ {
			h += halfLog2PiE + math.Log(val[p+n+i])
			if b.logAt(i) {
				h += val[p+i]
			}
		}
	case FamilyBeta:
		for i := 0; i < n; i++ {
			a, bb := val[p+i], val[p+n+i]
			h += dist.LogBeta(a, bb) - (a-1)*dist.Digamma(a) - (bb-1)*dist.Digamma(bb) + (a+bb-2)*dist.Digamma(a+bb)
		}
	case FamilyDirichlet:
		k := b.k
		for v := 0; v < n; v += k {
			a0 := 0.0
			for j := v; j < v+k; j++ {
				a := val[p+j]
				a0 += a
				h += lgamma(a) - (a-1)*dist.Digamma(a)
			}
			h += -lgamma(a0) + (a0-float64(k))*dist.Digamma(a0)
		}
	case FamilyLowRank:
		h = b.lowRankEntropy(val)
	case FamilyBanded:
		h = b.bandedEntropy(val)
	}
	return h
}

// entropyGrad adds the gradient of the entropy with respect to the
// constrained parameters into grad (indexed like theta).
func (b *block) entropyGrad(c *stepCache, grad []float64) {
	b.entropyGradRange(c, grad, 0, b.n)
}

// entropyGradRange is entropyGrad for elements [lo, hi) (whole simplices).
func (b *block) entropyGradRange(c *stepCache, grad []float64, lo, hi int) {
	n, p := b.n, b.poff
	val, psi1 := c.val, c.psi1
	switch b.fam {
	case FamilyGamma:
		for i := lo; i < hi; i++ {
			grad[p+i] += 1 + (1-val[p+i])*psi1[p+i]
			grad[p+n+i] -= 1 / val[p+n+i]
		}
	case FamilyNormal, FamilyLognormal, FamilyFullRank:
		for i := lo; i < hi; i++ {
			grad[p+n+i] += 1 / val[p+n+i]
			if b.logAt(i) {
				grad[p+i]++
			}
		}
	case FamilyBeta:
		for i := lo; i < hi; i++ {
			a, bb := val[p+i], val[p+n+i]
			t := (a + bb - 2) * dist.Trigamma(a+bb)
			grad[p+i] += t - (a-1)*psi1[p+i]
			grad[p+n+i] += t - (bb-1)*psi1[p+n+i]
		}
	case FamilyDirichlet:
		k := b.k
		for v := lo; v < hi; v += k {
			a0 := 0.0
			for j := v; j < v+k; j++ {
				a0 += val[p+j]
			}
			t := (a0 - float64(k)) * dist.Trigamma(a0)
			for j := v; j < v+k; j++ {
				grad[p+j] += t - (val[p+j]-1)*psi1[p+j]
			}
		}
	case FamilyLowRank:
		b.lowRankEntropyGrad(val, grad)
	case FamilyBanded:
		b.bandedEntropyGrad(val, grad)
	}
}

// backprop adds the pathwise gradient of one draw with respect to the
// constrained parameters into grad, given g = ∂log p/∂x (modified in place
// for STL), and records in h the per-slot derivative that the control
// variate tracks (nil to skip). cv holds the control-variate coefficients
// (nil for none). d is the draw's index in the step, under which a
// full-rank factor records the draw for its natural-gradient step.
func (b *block) backprop(c *stepCache, stl bool, x, g, aux, grad, h, cv []float64, d int) {
	b.backpropRange(c, stl, x, g, aux, grad, h, cv, d, 0, b.n)
}

// backpropRange is backprop for elements [lo, hi) (whole simplices).
func (b *block) backpropRange(c *stepCache, stl bool, x, g, aux, grad, h, cv []float64, d, lo, hi int) {
	n, p := b.n, b.poff
	val := c.val
	switch b.fam {
	case FamilyGamma:
		for i := lo; i < hi; i++ {
			gi := g[b.off+i]
			if stl {
				// ∂ log q/∂ log z = (a−1) − b·z
				gi -= val[p+i] - 1 - math.Exp(x[b.off+i]+c.logb[p+n+i])
			}
			d := aux[p+i]
			if h != nil {
				// h's second half (from np = len(val)) is the record
				// of the weighted coefficient (cvCoef)
				np := len(val)
				h[p+i], h[np+p+i], h[np+p+n+i] = gi, gi*d*d, d*d
			}
			if cv != nil {
				cc := cvCoef(cv, p+i, p+n+i, len(val), val[p+i])
				grad[p+i] += (gi-cc)*d + cc*c.psi1[p+i]
			} else {
				grad[p+i] += gi * d
			}
			grad[p+n+i] -= gi / val[p+n+i]
		}
	case FamilyNormal, FamilyLognormal:
		for i := lo; i < hi; i++ {
			gi := g[b.off+i]
			e := aux[p+i]
			if stl {
				gi += e / val[p+n+i]
				if b.fam == FamilyLognormal {
					gi++
				}
			}
			grad[p+i] += gi
			if h != nil {
				h[p+n+i] = gi
			}
			if cv != nil {
				gi -= cv[p+n+i]
			}
			grad[p+n+i] += gi * e
		}
	case FamilyFullRank:
		b.stickGrad(x, g)
		b.fullRankBackprop(c, stl, g, aux, grad, b.natRec(d))
	case FamilyLowRank:
		b.lowRankBackprop(val, stl, x, g, aux, grad)
	case FamilyBanded:
		b.bandedBackprop(val, stl, g, aux, grad)
	case FamilyBeta:
		for i := lo; i < hi; i++ {
			gi := g[b.off+i]
			if stl {
				a, bb := val[p+i], val[p+n+i]
				t := x[b.off+i]
				z, z1 := sigmoid(t), sigmoid(-t)
				gi -= (a-1)*z1 - (bb-1)*z
			}
			d1, d2 := aux[p+i], aux[p+n+i]
			if h != nil {
				h[p+i], h[p+n+i] = gi, -gi
			}
			if cv != nil {
				c1, c2 := cv[p+i], cv[p+n+i]
				grad[p+i] += (gi-c1)*d1 + c1*c.psi1[p+i]
				grad[p+n+i] += (-gi-c2)*d2 + c2*c.psi1[p+n+i]
			} else {
				grad[p+i] += gi * d1
				grad[p+n+i] -= gi * d2
			}
		}
	case FamilyDirichlet:
		k := b.k
		for v := lo; v < hi; v += k {
			sum := 0.0
			for j := v; j < v+k; j++ {
				gj := g[b.off+j]
				if stl {
					gj -= val[p+j] - 1
					g[b.off+j] = gj
				}
				sum += gj
			}
			for j := v; j < v+k; j++ {
				hj := g[b.off+j] - math.Exp(x[b.off+j])*sum // ∂f/∂log x_j
				if h != nil {
					h[p+j] = hj
				}
				if cv != nil {
					grad[p+j] += (hj-cv[p+j])*aux[p+j] + cv[p+j]*c.psi1[p+j]
				} else {
					grad[p+j] += hj * aux[p+j]
				}
			}
		}
	}
}

// chain turns the gradient g with respect to the constrained parameters
// (indexed like theta) into the gradient with respect to theta.
func (c *stepCache) chain(blocks []block, g []float64) {
	for bi := range blocks {
		c.chainRange(&blocks[bi], g, 0, blocks[bi].n)
	}
}

// chainRange is chain for elements [lo, hi) of block b.
func (c *stepCache) chainRange(b *block, g []float64, lo, hi int) {
	if b.logitMC() {
		// α = c·σ(θ₁), β = c·σ(−θ₁), c = e^θ₂: ∂/∂θ₁ = αβ/c·(∂_α − ∂_β),
		// ∂/∂θ₂ = α∂_α + β∂_β.
		n := b.n
		for i := b.poff + lo; i < b.poff+hi; i++ {
			a, bb := c.val[i], c.val[i+n]
			ga, gb := g[i], g[i+n]
			g[i], g[i+n] = a*bb/(a+bb)*(ga-gb), a*ga+bb*gb
		}
		return
	}
	if !b.logMS {
		a0, a1, b0, b1 := b.spans(lo, hi)
		for i := a0; i < a1; i++ {
			g[i] *= c.dval[i]
		}
		for i := b0; i < b1; i++ {
			g[i] *= c.dval[i]
		}
		return
	}
	// a = e^θ₁, b = e^(θ₁−θ₂): ∂/∂θ₁ = a∂_a + b∂_b, ∂/∂θ₂ = −b∂_b.
	n := b.n
	for i := b.poff + lo; i < b.poff+hi; i++ {
		ga, gb := c.val[i]*g[i], c.val[i+n]*g[i+n]
		g[i], g[i+n] = ga+gb, -gb
	}
}

// CoordMarginal returns the mean and sd of element i of a full-rank or
// low-rank factor (Params: mean, then the columns of L, or d and the
// columns of B) on its coordinate (the log of a positive value, the logit
// of a unit one): its marginal normal, sd² = Σ_j L_ij², or d_i² + Σ_k B_ik².
func (f *Factor) CoordMarginal(i int) (mean, sd float64) {
	p, v := f.Params, 0.0
	if f.Family == FamilyBanded {
		return p[0][i], bandedSDs(p)[i]
	}
	if f.Family == FamilyLowRank {
		for _, col := range p[1:] {
			v += col[i] * col[i]
		}
		return p[0][i], math.Sqrt(v)
	}
	for j := 0; j <= i && 1+j < len(p); j++ {
		v += p[1+j][i] * p[1+j][i]
	}
	return p[0][i], math.Sqrt(v)
}

// mean and sd of the natural-scale z for each element.
func (f *Factor) moments(mean, sd []float64) {
	p := f.Params
	switch f.Family {
	case FamilyOrdered:
		f.orderedMoments(mean, sd)
	case FamilyGamma:
		for i := range mean {
			a, b := p[0][i], p[1][i]
			mean[i], sd[i] = a/b, math.Sqrt(a)/b
		}
	case FamilyLognormal:
		for i := range mean {
			m, s := p[0][i], p[1][i]
			mean[i] = math.Exp(m + s*s/2)
			sd[i] = mean[i] * math.Sqrt(math.Expm1(s*s))
		}
	case FamilyNormal:
		copy(mean, p[0])
		copy(sd, p[1])
		if f.Support == dist.Unit { // logit-normal marginals (Settings.logitNormalUnit)
			for i := range mean {
				mean[i], sd[i] = logitNormalMoments(p[0][i], p[1][i])
			}
		}
	case FamilyFullRank, FamilyLowRank, FamilyBanded:
		if f.Support == dist.Simplex && len(mean) != len(p[0]) { // the values of K − 1 stick-breaking coordinates a row
			f.stickMoments(mean, sd)
			break
		}
		var sds []float64
		if f.Family == FamilyBanded {
			sds = bandedSDs(p)
		}
		for i := range mean {
			var m, s float64
			if sds != nil {
				m, s = p[0][i], sds[i]
			} else {
				m, s = f.CoordMarginal(i)
			}
			mean[i], sd[i] = m, s
			if f.Support == dist.Positive { // lognormal marginals
				mean[i] = math.Exp(m + s*s/2)
				sd[i] = mean[i] * math.Sqrt(math.Expm1(s*s))
			}
			if f.Support == dist.Unit { // logit-normal marginals
				mean[i], sd[i] = logitNormalMoments(m, s)
			}
		}
	case FamilyBeta:
		for i := range mean {
			a, b := p[0][i], p[1][i]
			s := a + b
			mean[i] = a / s
			sd[i] = math.Sqrt(a * b / (s * s * (s + 1)))
		}
	case FamilyDirichlet:
		k := 1
		if len(f.Shape) > 0 {
			k = f.Shape[len(f.Shape)-1]
		}
		for v := 0; v+k <= len(mean); v += k {
			a0 := 0.0
			for j := v; j < v+k; j++ {
				a0 += p[0][j]
			}
			for j := v; j < v+k; j++ {
				a := p[0][j]
				mean[j] = a / a0
				sd[j] = math.Sqrt(a * (a0 - a) / (a0 * a0 * (a0 + 1)))
			}
		}
	case FamilyPoint:
		copy(mean, p[0])
		for i := range sd {
			sd[i] = 0
		}
	}
	if f.Scale != 0 || f.ScaleV != nil {
		f.affine(mean)
		for i := range sd {
			_, scale := f.affineAt(i)
			sd[i] *= math.Abs(scale)
		}
	}
}

// logitNormalMoments returns the mean and sd of σ(x) for x ~ N(m, s²)
// (no closed form): E[σ(x)^k] by the trapezoid rule in the standard
// normal u on [−logitNormalU, logitNormalU], logitNormalN points; on a
// smooth integrand under e^(−u²/2) the rule converges geometrically, to
// about 1e-14 here (TestLogitNormalMoments checks it against mpmath).
func logitNormalMoments(m, s float64) (mean, sd float64) {
	h := 2 * logitNormalU / (logitNormalN - 1)
	var w0, m1 float64
	for k := range logitNormalN {
		u := -logitNormalU + float64(k)*h
		w := math.Exp(-0.5 * u * u)
		w0 += w
		m1 += w * sigmoid(m+s*u)
	}
	mean = m1 / w0
	v := 0.0 // about the mean: no cancellation when s is small
	for k := range logitNormalN {
		u := -logitNormalU + float64(k)*h
		d := sigmoid(m+s*u) - mean
		v += math.Exp(-0.5*u*u) * d * d
	}
	return mean, math.Sqrt(v / w0)
}

// The logit-normal moments' grid (logitNormalMoments).
const (
	logitNormalU = 9.0
	logitNormalN = 801
)

// fullRankLogq returns log q(z) of a full-rank block at the coordinates x:
// −½|ε|² − log det L − n·½log 2π with ε = L⁻¹(x − μ), less Σ x for a
// positive latent (the density of z = e^x). ε is aux's, where sample drew
// x from it, else solved by forward substitution.
func (b *block) fullRankLogq(val, x, aux []float64) float64 {
	n, p := b.n, b.poff
	var e []float64
	if aux != nil {
		e = aux[p : p+n]
	} else {
		e = make([]float64, n)
		y := make([]float64, n) // the elements: x, or y of a simplex row
		b.elems(y, x)
		b.fullRankSolve(val, [][]float64{y}, [][]float64{e})
	}
	return b.fullRankLogqE(val, x, e, nil)
}

// fullRankBackprop is backprop for a full-rank block (the whole block, no
// control variate): with h = ∂log p/∂x (for STL less ∂log q/∂x =
// −L⁻ᵀε, and −1 for a positive latent), ∂/∂μ_i = h_i and ∂/∂L_ij = h_i·ε_j.
// aux holds ε in the mean slots; STL uses the diagonal slots for L⁻ᵀε.
// It records h and ε in rec (natRec) for the natural-gradient step.
func (b *block) fullRankBackprop(c *stepCache, stl bool, g, aux, grad, rec []float64) {
	n, p := b.n, b.poff
	val := c.val
	if stl { // u = L⁻ᵀε by back substitution, into aux[p+n : p+2n]
		for i := n - 1; i >= 0; i-- {
			r := aux[p+i]
			for k := i + 1; k < n; k++ {
				r -= val[p+lowIdx(n, k, i)] * aux[p+n+k]
			}
			aux[p+n+i] = r / val[p+n+i]
		}
	}
	for i := range n {
		h := g[b.at(i)]
		if stl {
			h += aux[p+n+i]
			if b.logAt(i) {
				h++
			}
		}
		rec[i], rec[n+i] = h, aux[p+i]
		grad[p+i] += h
		grad[p+n+i] += h * aux[p+i]
		for j := range i {
			grad[p+lowIdx(n, i, j)] += h * aux[p+j]
		}
	}
}

// cvCoef returns the control variate's coefficient for the gamma shape
// of slot i (rate slot j, np parameters, shape a): cv[i], the running mean
// of h, except for a shape below 1, where it is kept between 0 and twice
// cw = cv[np+i]/cv[np+j], the running mean of h weighted by d² (d =
// ∂log x/∂a). A small shape's draws are mostly ~0, where h is about the
// prior's shape minus q's and d large, and now and then from the tail,
// where h is about −(rate of p)·x, huge, and d small: those pull the plain
// mean far below 0, and its term c·ψ₁(a), about c/a², then pushed the
// shape down at every step until it sat at the floor (a topic model's
// Poisson factorisation; docs/inference.md, The gradient). The weight
// leaves cw to the draws that carry the shape's gradient, and a
// coefficient outside [0, 2cw] (or [2cw, 0]) adds more variance than it
// removes if cw were the best one. From a shape of 1 up, ψ₁(a) < 1.65 and
// d has no such tail; the plain mean is kept there.
func cvCoef(cv []float64, i, j, np int, a float64) float64 {
	c := cv[i]
	den := cv[np+j]
	if a >= 1 || !(den > 0) {
		return c
	}
	lo, hi := 0.0, 2*cv[np+i]/den
	if hi < lo {
		lo, hi = hi, lo
	}
	return math.Min(math.Max(c, lo), hi)
}

// betaFisher returns the diagonal of the Fisher information of Beta(α, β)
// in a beta factor's coordinates (logitMC), given ψ₁(α) and ψ₁(β): with
// w = αβ/(α+β), w²(ψ₁(α) + ψ₁(β)) for the mean's logit (about w for large
// α and β) and α²ψ₁(α) + β²ψ₁(β) − (α+β)²ψ₁(α+β) for the log
// concentration (about ½). The off-diagonal entry w(αψ₁(α) − βψ₁(β)) is
// about w(1/α − 1/β)/2, small beside both, so the diagonal alone caps
// AdaDelta's rate as gamma factors' does (optim.update).
func betaFisher(a, b, psiA, psiB float64) (fm, fc float64) {
	c := a + b
	w := a * b / c
	return w * w * (psiA + psiB), a*a*psiA + b*b*psiB - c*c*dist.Trigamma(c)
}

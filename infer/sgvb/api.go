package sgvb

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/internal/par"
)

// Target is a differentiable log joint density over one flat coordinate
// vector (see the package documentation for the coordinates).
type Target interface {
	// LogJoint returns log p(data, z) and writes its gradient into grad
	// (len(grad) == len(x)). A non-finite result comes with an error
	// positioned in the model (*ast.Error), or nil error and a NaN/Inf value.
	LogJoint(x, grad []float64) (float64, error)
	// Clone returns an independent copy safe to use on another goroutine
	// (its own buffers).
	Clone() Target
}

// ValueTarget is a Target that can evaluate its log joint without the
// gradient. The work that needs only values, the ELBO estimates during and
// after a fit, the Pareto k̂ of the final draws, the importance weights of
// Resample and of a Mixture, uses it where the Target has it: on a
// compiled model a forward pass alone, 0.45–0.85 of a LogJoint's time on
// the benchmarked GPFA and EPM (docs/performance.md).
type ValueTarget interface {
	Target
	// LogJointValue returns the value LogJoint returns at x, bit for bit,
	// with the error of the value (a NaN, an infinity or a failed op of
	// the log joint), and computes no gradient.
	LogJointValue(x []float64) (float64, error)
}

// logJointValue returns the log joint of t at x: by LogJointValue where t
// has it, else by LogJoint, with grad as its scratch.
func logJointValue(t Target, x, grad []float64) (float64, error) {
	if vt, ok := t.(ValueTarget); ok {
		return vt.LogJointValue(x)
	}
	return t.LogJoint(x, grad)
}

// TeamTarget is a Target that can share the work of one log joint. With
// more than one worker, Fit gives the Target it was passed (worker 0's) a
// team: while a step's single draw is shared (one draw per step), the
// other workers would wait during the log joint, and the team lends them
// to it. Fit takes the team back (SetTeam(nil)) before it returns.
type TeamTarget interface {
	Target
	SetTeam(par.Team)
}

// StopTarget is a Target whose log joint can take long in one evaluation
// (a compiled model's ODE solve, of up to a million steps): Fit sets a
// flag on it and on each worker's clone that cancelling the context
// turns true, and the evaluation under way then fails soon instead of
// running to its end. Fit reads such a failure, with the context
// cancelled, as the interruption: neither a bad step nor a model error.
// The flag is removed (SetStop(nil)) when Fit returns.
type StopTarget interface {
	Target
	SetStop(*atomic.Bool)
}

// MinibatchTarget is a Target whose log joint is an unbiased estimate of
// another's from a subsample of the data (Settings.Minibatch): each term
// of the subsampled rows scaled by N/B.
type MinibatchTarget interface {
	Target
	// SetBatch selects, from the seed (hi, lo), the rows of the next
	// LogJoint calls; the same seed selects the same rows. It must not
	// allocate.
	SetBatch(hi, lo uint64)
}

// BatchShare is a MinibatchTarget that says what share B/N of the data
// a batch is, so that its log joints count as that share of a full one
// (Settings.ParetoKCost); a MinibatchTarget without it counts as 1.
type BatchShare interface {
	BatchShare() float64
}

// Latent is one latent variable of the model: a slice of the coordinate
// vector with a support that picks its variational family.
type Latent struct {
	Name         string
	Offset, Size int          // slice x[Offset:Offset+Size] of the coordinate vector
	Shape        []int        // for reporting; for Simplex the last axis is the simplex
	Support      dist.Support // dist.Real, dist.Positive, dist.Unit, dist.Simplex, dist.Ordered, dist.PositiveOrdered, dist.CholCorr, dist.CorrMatrix, dist.CholCov, dist.CovMatrix, dist.SumToZero or dist.SumToZeroMatrix (their coordinates y: real, a normal factor)
	// Init is an optional initial mean per element on the natural scale of
	// the support (for dist.Ordered and dist.PositiveOrdered, increasing
	// values x); nil = default.
	Init []float64
	// Loc and Scale, when Scale is not 0, say that the model's value is
	// Loc + Scale·b for the value b on the support (a bounded param:
	// real<lower=L, upper=U> is L + (U − L)·b for a unit b, real<lower=L>
	// L + b and real<upper=U> U − b for a positive b). The engine fits b;
	// draws, means and sds are reported as the model's values.
	Loc, Scale float64
	// LocV and ScaleV (len Size), when not nil, are Loc and Scale per
	// element: a param with a bound per element (real<lower=c>[M] with c
	// data), element i being LocV[i] + ScaleV[i]·b_i. Loc and Scale are
	// then 0.
	LocV, ScaleV []float64

	// part is the part of an ordered latent this latent stands for inside
	// the engine (expandOrdered), partNone for a latent as given; rows
	// is the number of rows of the ordered matrix it is a part of (0 of
	// a vector).
	part, rows int
}

// Method is the inference method.
type Method int

// Methods.
const (
	SGVB Method = iota // stochastic-gradient variational Bayes (the default)
	MAP                // maximum a posteriori point estimate by L-BFGS
	// Laplace is Stan's laplace method: q is the normal N(mode, (−H)⁻¹)
	// on the unconstrained coordinates, at the mode of their density with
	// the Jacobian and H its Hessian there by central differences of the
	// gradient (laplace.go). One joint full-rank factor over every latent.
	Laplace
	// Pathfinder is Stan's (single-path) pathfinder: the best by ELBO
	// estimate of the normals the L-BFGS path to the mode of the same
	// density passes through (pathfinder.go). One joint full-rank factor
	// over every latent, as Laplace's.
	Pathfinder
)

// JointNormal reports whether m's q is one joint normal over every
// latent's unconstrained coordinates, made without SGVB steps (Laplace,
// Pathfinder: laplaceSettings).
func (m Method) JointNormal() bool { return m == Laplace || m == Pathfinder }

func (m Method) String() string {
	switch m {
	case SGVB:
		return "sgvb"
	case MAP:
		return "map"
	case Laplace:
		return "laplace"
	case Pathfinder:
		return "pathfinder"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Family is a variational family of one latent.
type Family int

// Families. FamilyAuto picks the family from the support: gamma for Positive,
// normal for Real, beta for Unit, Dirichlet for Simplex.
const (
	FamilyAuto      Family = iota
	FamilyGamma            // shape, rate (positive latents)
	FamilyLognormal        // normal on log z: meanlog, sdlog (positive latents)
	FamilyNormal           // mean, sd (real latents)
	FamilyBeta             // alpha, beta (unit latents)
	FamilyDirichlet        // alpha per component (simplex latents)
	FamilyPoint            // a point estimate: value (MAP)
	// FamilyFullRank is a multivariate normal over all elements of one
	// latent, with a full covariance LLᵀ: on the values of a real latent,
	// on their logs for a positive one, on their logits for a unit one
	// (its marginals logit-normal). Stan's fullrank ADVI, per latent
	// (Settings.FullRankGroups: over several latents, jointly):
	// it captures the correlations between the elements (regression
	// coefficients written as one vector) that a mean-field q cannot.
	// Params: mean, then column j of L as parameter "L[j]" (see
	// Family.ParamNames). O(n²) parameters and work per draw. Its steps
	// follow the natural gradient whatever Settings.Optimizer says
	// (natDelta); at most MaxFullRank elements.
	FamilyFullRank
	// FamilyOrdered is the factor of an ordered latent (dist.Ordered): a
	// FamilyNormal factor on its first element x_0 and the positive
	// family (gamma by default) on its increments x_k − x_{k−1}, fitted
	// as two blocks and reported as Factor.Parts; of a positive_ordered
	// latent (dist.PositiveOrdered), the positive family on x_0 and the
	// increments, one block. It has no Params of its own; it is chosen by
	// the support, never named.
	FamilyOrdered
	// FamilyLowRank is the low-rank-plus-diagonal multivariate normal
	// N(mean, BBᵀ + diag(d²)), B of n×R, of a joint group when
	// Settings.Rank > 0 (Pyro's AutoLowRankMultivariateNormal): it keeps R
	// directions of posterior correlation at O(nR) parameters and work per
	// draw where FamilyFullRank needs O(n²). Params: mean, d, then column
	// k of B as "B[k]" (LowRankParamNames); a
	// member's marginal is of the same family, its rows of each. Its steps
	// are Settings.Optimizer's; at most MaxLowRank entries in B. It is
	// chosen by Settings.Rank, never named.
	FamilyLowRank
	// FamilyBanded is the Gauss–Markov normal N(mean, (LLᵀ)⁻¹) of a joint
	// group of one latent when Settings.Band > 0: L lower-triangular of
	// bandwidth K, so the precision is banded (K = 1: tridiagonal, the
	// exact posterior family of a linear-Gaussian AR(1) or random walk).
	// O(nK) parameters and work per draw. Params: mean, then the
	// diagonals band[0] … band[K] of L (BandedParamNames); steps are
	// Settings.Optimizer's. It is chosen by Settings.Band, never named.
	FamilyBanded
)

var familyText = [...]string{
	FamilyAuto: "auto", FamilyGamma: "gamma", FamilyLognormal: "lognormal", FamilyNormal: "normal",
	FamilyBeta: "beta", FamilyDirichlet: "dirichlet", FamilyPoint: "point", FamilyFullRank: "fullrank", FamilyOrdered: "ordered",
	FamilyLowRank: "lowrank", FamilyBanded: "banded",
}

func (f Family) String() string {
	if f >= 0 && int(f) < len(familyText) {
		return familyText[f]
	}
	return fmt.Sprintf("Family(%d)", int(f))
}

// ParamNames returns the names of the family's per-element parameters, in
// the order of Factor.Params, for a factor of n elements: a full-rank
// factor has its mean and the n columns L[1] … L[n] of its Cholesky factor
// (L[j] of element i is L_ij, zero above the diagonal). A low-rank
// factor's names depend on its rank, not on n: see LowRankParamNames and
// Factor.ParamNames.
func (f Family) ParamNames(n int) []string {
	switch f {
	case FamilyFullRank:
		out := []string{"mean"}
		for j := range n {
			out = append(out, fmt.Sprintf("L[%d]", j+1))
		}
		return out
	case FamilyGamma:
		return []string{"shape", "rate"}
	case FamilyLognormal:
		return []string{"meanlog", "sdlog"}
	case FamilyNormal:
		return []string{"mean", "sd"}
	case FamilyBeta:
		return []string{"alpha", "beta"}
	case FamilyDirichlet:
		return []string{"alpha"}
	case FamilyPoint:
		return []string{"value"}
	}
	return nil
}

// Optimizer is a stochastic-gradient ascent rule. The constants are those of
// the paper's code (Knowles 2015) unless said otherwise; the zero value is
// the paper's choice, AdaDelta with momentum.
type Optimizer int

// Optimizers.
const (
	AdaDeltaMomentum Optimizer = iota // momentum 0.1 on the gradient, then AdaDelta ρ=0.95, ε=1e-4; η=1
	AdaDelta                          // ρ=0.9, ε=1e-4; η=1
	Adam                              // β1=0.9, β2=0.999, ε=1e-8; η=0.1
	RMSprop                           // mean square decay 0.9, step ÷ (1e-6+√ms); η=0.001
	AdaGrad                           // step ÷ (1e-6+√Σg²); η=0.1
	Momentum                          // v ← 0.9v + 0.1g; η=0.001
	SGD                               // plain; η=0.001
)

var optimizerText = [...]string{
	AdaDeltaMomentum: "adadelta-momentum", AdaDelta: "adadelta", Adam: "adam", RMSprop: "rmsprop",
	AdaGrad: "adagrad", Momentum: "momentum", SGD: "sgd",
}

func (o Optimizer) String() string {
	if o >= 0 && int(o) < len(optimizerText) {
		return optimizerText[o]
	}
	return fmt.Sprintf("Optimizer(%d)", int(o))
}

// ParseOptimizer returns the optimizer named s (as printed by String).
func ParseOptimizer(s string) (Optimizer, error) {
	for i, t := range optimizerText {
		if t == s {
			return Optimizer(i), nil
		}
	}
	return 0, fmt.Errorf("sgvb: unknown optimizer %q", s)
}

// ParseEstimator returns the estimator named s (as printed by String).
func ParseEstimator(s string) (Estimator, error) {
	for i, t := range estimatorText {
		if t == s {
			return Estimator(i), nil
		}
	}
	return 0, fmt.Errorf("sgvb: unknown estimator %q", s)
}

// ParseFamily returns the family named s (as printed by String).
func ParseFamily(s string) (Family, error) {
	for i, t := range familyText {
		if t == s {
			return Family(i), nil
		}
	}
	return 0, fmt.Errorf("sgvb: unknown family %q", s)
}

// ParseMethod returns the method named s ("sgvb", "map", "laplace" or
// "pathfinder").
func ParseMethod(s string) (Method, error) {
	switch s {
	case "sgvb":
		return SGVB, nil
	case "map":
		return MAP, nil
	case "laplace":
		return Laplace, nil
	case "pathfinder":
		return Pathfinder, nil
	}
	return 0, fmt.Errorf("sgvb: unknown method %q", s)
}

// DefaultStepSize returns the optimizer's default step size η. A fit with
// gamma factors in log shape/log mean coordinates (the default) takes 0.3
// instead for AdaDelta and AdaDeltaMomentum (see Settings.StepSize).
func (o Optimizer) DefaultStepSize() float64 {
	switch o {
	case AdaDeltaMomentum, AdaDelta:
		return 1
	case Adam, AdaGrad:
		return 0.1
	}
	return 0.001
}

// logMeanStepSize is AdaDelta's default η when a gamma factor is in log
// shape/log mean coordinates: at η = 1 the log mean of wide, heavy-tailed
// factors random-walks (the EPM's), and on the well-identified models of the
// examples 0.3 converges as soon or sooner (docs/inference.md).
const logMeanStepSize = 0.3

// lowRankStepSize is AdaDelta's default η when the fit has a low-rank
// factor. On examples/varying.gpp (--fullrank all --rank 1, 2, 5, seeds
// 1–3) η = 1 rolled back after a divergence in 3 of 9 fits and reached
// --iter in 3; at η = 0.3 none did either, at the same or better ELBOs.
const lowRankStepSize = 0.3

// defaultStepSize is the η of a fit whose Settings.StepSize is 0, for the
// optimizer o and the fit's blocks.
func defaultStepSize(o Optimizer, blocks []block) float64 {
	if o == AdaDelta || o == AdaDeltaMomentum {
		for i := range blocks {
			if blocks[i].fam == FamilyLowRank || blocks[i].fam == FamilyBanded {
				return lowRankStepSize
			}
			if blocks[i].logMS {
				return logMeanStepSize
			}
		}
	}
	return o.DefaultStepSize()
}

// GammaParam is how a gamma factor's shape a and rate b are written as
// unconstrained parameters θ₁, θ₂, which the optimizer moves.
//
// GammaLogMeanShape, the default, writes θ₁ = log a and θ₂ = log(a/b), the
// log mean: precision and location are separate coordinates, both on a log
// scale, so the shape grows geometrically and log z = log z₁(a) + θ₂ − θ₁
// moves one-for-one with θ₂, as a lognormal factor's location does. It
// reaches tight posteriors in hundreds rather than thousands of steps (see
// docs/inference.md). A step of η in θ₂ scales the mean by e^η, where the
// softplus moves a rate b > 1 by only η/b: with wide, heavy-tailed factors
// (the EPM on small networks) it needs η ≤ 0.3 to stay stable, which is why
// AdaDelta's default step size is 0.3 with these coordinates.
//
// GammaSoftplus is the paper's: a = softplus(θ₁), b = softplus(θ₂). The
// softplus is linear above 1, so an adaptive optimizer, which moves each θ
// by about η per step, needs ~a/η steps to reach a tight factor (shapes of
// 10³–10⁴ are common for well-identified latents), and a tighter factor of
// the same mean needs both θs to move together along a diagonal ridge. It
// was the default until 2026-11-22; on the bundled examples and posteriordb
// models it ends 1.7–37 nats lower or unconverged (docs/inference.md), except
// on the EPM of a small network, where its slow, additive steps keep more
// communities alive.
type GammaParam int

// Gamma factor parameterisations.
const (
	GammaParamAuto    GammaParam = iota // GammaLogMeanShape
	GammaSoftplus                       // shape, rate = softplus(θ₁), softplus(θ₂) (Knowles 2015)
	GammaLogMeanShape                   // shape = e^θ₁, mean = e^θ₂
)

var gammaParamText = [...]string{GammaParamAuto: "auto", GammaSoftplus: "softplus", GammaLogMeanShape: "log-mean-shape"}

func (g GammaParam) String() string {
	if g >= 0 && int(g) < len(gammaParamText) {
		return gammaParamText[g]
	}
	return fmt.Sprintf("GammaParam(%d)", int(g))
}

// ParseGammaParam returns the parameterisation named s (as printed by
// String).
func ParseGammaParam(s string) (GammaParam, error) {
	for i, t := range gammaParamText {
		if t == s {
			return GammaParam(i), nil
		}
	}
	return 0, fmt.Errorf("sgvb: unknown gamma parameterisation %q", s)
}

func (g GammaParam) logMeanShape() bool { return g == GammaLogMeanShape }

// Estimator is the per-draw gradient estimator of the ELBO.
type Estimator int

// Estimators. All are unbiased; they differ in variance.
//
// Entropy is the paper's estimator: the pathwise gradient of log p through
// the reparameterised draw plus the gradient of the analytic entropy. STL
// ("sticking the landing", Roeder et al. 2017) is the pathwise gradient of
// log p − log q with the score term (mean zero) dropped; it has zero
// variance when q is the exact posterior.
//
// The CV variants add a control variate on the reparameterisation
// derivative: with h = ∂(log p [− log q])/∂(log x) for a gamma draw x and c a
// running mean of h from earlier steps, h·∂log x/∂a is replaced by
// (h − c)·∂log x/∂a + c·ψ₁(a), since E[∂log x/∂a] = ψ₁(a); for a normal sd,
// h·ε by (h − c)·ε. This removes the 1/a² noise of small gamma shapes when
// h is nearly constant, as under sparse priors, without bias. Below a
// shape of 1, c is kept between 0 and 2cw, cw the running mean of h
// weighted by (∂log x/∂a)², which the rare tail draws of a small shape
// cannot pull far below 0 as they pull c (see cvCoef).
const (
	EstimatorAuto Estimator = iota // STLCV
	Entropy
	EntropyCV
	STL
	STLCV
)

var estimatorText = [...]string{EstimatorAuto: "auto", Entropy: "entropy", EntropyCV: "entropy-cv", STL: "stl", STLCV: "stl-cv"}

func (e Estimator) String() string {
	if e >= 0 && int(e) < len(estimatorText) {
		return estimatorText[e]
	}
	return fmt.Sprintf("Estimator(%d)", int(e))
}

func (e Estimator) stl() bool { return e == STL || e == STLCV || e == EstimatorAuto }
func (e Estimator) cv() bool  { return e == EntropyCV || e == STLCV || e == EstimatorAuto }

// Settings controls a fit. The zero value gives the documented defaults;
// where a negative value is allowed it disables the feature.
type Settings struct {
	Method Method // SGVB (default), MAP, Laplace or Pathfinder

	// Family overrides the family of positive latents: FamilyAuto or
	// FamilyGamma (the default) or FamilyLognormal ("NormSGVB").
	Family Family
	// Families overrides the family per latent name (positive latents:
	// FamilyGamma or FamilyLognormal; real, positive, unit and matrix
	// latents: FamilyFullRank). It takes precedence over Family.
	Families map[string]Family
	// logitNormalUnit fits unit latents by normal factors on their logits
	// in place of beta factors: the refit of betaFallback.
	logitNormalUnit bool
	// FullRankGroups lists groups of two or more latents, each fitted by
	// one joint full-rank factor: a multivariate normal over all their
	// coordinates (the values of real, cholesky_factor_corr, corr_matrix,
	// cholesky_factor_cov and cov_matrix latents, the logs of positive
	// ones, the logits of unit ones), which captures the correlations between the latents as well
	// as within them. Stan's fullrank ADVI is the group of every latent.
	// At most MaxFullRank elements a group (MaxLowRank entries n·Rank
	// with Rank); a latent is in one group at
	// most and not also in Families. Ignored by MAP. The Result reports
	// each member's marginal factor in Factors and the joint one in
	// Groups.
	FullRankGroups [][]string
	// Rank, when > 0, makes every group of FullRankGroups a low-rank
	// factor (FamilyLowRank) of rank min(Rank, n) instead of a full-rank
	// one: Σ = BBᵀ + diag(d²), O(n·Rank) parameters, no MaxFullRank cap
	// (MaxLowRank instead), moved by Optimizer's steps; a group may then
	// be of one latent. 0 (the default): full rank.
	Rank int
	// Band, when > 0, makes every group of FullRankGroups a banded-
	// precision factor (FamilyBanded) of bandwidth Band instead: a
	// Gauss–Markov q for a chain of states, O(n·Band) parameters, no
	// MaxFullRank cap, 1 ≤ Band ≤ MaxBand. Each such group has one latent
	// (its other latents keep their own factors), or more: an arrowhead,
	// the group's first latent the chain and the others at most MaxArrow
	// global elements with dense rows of L; Band and Rank are not for the
	// same fit.
	Band int

	Seed uint64 // of every random stream of the fit

	MaxIter      int                // iteration limit; default 10000 (MAP, Laplace, Pathfinder: L-BFGS iterations, default 1000)
	DrawsPerStep int                // draws S per gradient step; default 1
	Workers      int                // goroutines sharing a step's draws (one draw: its segments, gradient, optimizer step and, for a TeamTarget, parts of its log joint) and the ELBO draws (Pathfinder: each iterate's ELBO draws); default min(GOMAXPROCS, 4); results do not depend on it
	Gamma        dist.GammaGradient // gamma draws and shape derivatives; nil = dist.Implicit{}
	Estimator    Estimator          // zero value EstimatorAuto = STLCV
	GammaParam   GammaParam         // unconstrained coordinates of gamma factors; zero value GammaParamAuto = GammaLogMeanShape

	Optimizer Optimizer // default AdaDeltaMomentum
	// StepSize is η; 0 = Optimizer.DefaultStepSize(), except 0.3 for
	// AdaDelta and AdaDeltaMomentum when a gamma factor is in log shape/log
	// mean coordinates (measured on the examples: docs/inference.md).
	StepSize float64
	// Rho is AdaDelta's decay of its running averages (Zeiler's convention:
	// the weight of the old average); 0 = 0.95 for AdaDeltaMomentum, 0.9
	// for AdaDelta.
	Rho float64
	// MomentumWeight is the weight w of the new gradient in v ← (1−w)v + wg
	// for Momentum and AdaDeltaMomentum; 0 = 0.1.
	MomentumWeight float64

	// StepDecay τ makes the step size of iteration t η/√(1 + t/τ), so that
	// the adaptive optimizers, whose steps otherwise stay η-sized, settle at
	// the optimum; default 1000; negative: constant η (as in the paper).
	StepDecay float64

	// MaxRollbacks bounds the divergence guard. At every ELBO evaluation
	// the engine compares the estimate with the best one so far (and with
	// the start's): one that is not finite, or that has fallen below it by
	// more than its magnitude (and than one nat per coordinate and 100 of
	// its standard errors), marks a divergence,
	// such as a gamma shape run to its floor by a few large steps. The fit
	// then goes back to the best q, resets the optimizer and halves the step
	// size, with a warning. So does a run of bad steps (MaxBadSteps) once
	// some q has had a finite ELBO estimate, and a slow drift: three
	// evaluations in a row below the best by more than 10 of its standard
	// errors, 10 times the mean change between successive evaluations and
	// 1 nat (guard.drifted). After MaxRollbacks of them it stops there.
	// Default 5; negative: no guard.
	MaxRollbacks int

	// SearchStepSize runs the Stan-style step-size search before the fit:
	// η ∈ {100, 10, 1, 0.1, 0.01} for SearchIters steps each from the same
	// start; the best by ELBO estimate is kept.
	SearchStepSize bool
	SearchIters    int // default 50

	// PathfinderHistory is the number J of curvature pairs a Pathfinder
	// fit's inverse-Hessian estimates keep; 0 = PathfinderHistory (5,
	// Stan's history_size). PathfinderDraws is the draws of each iterate's
	// ELBO estimate; 0 = PathfinderDraws (25, Stan's num_elbo_draws).
	PathfinderHistory, PathfinderDraws int

	// LastIterate makes q the last iterate and estimates the ELBO of the
	// current iterate from fresh draws at each evaluation, converging by
	// Stan ADVI's rule (the paper's protocol; the experiments use it). By
	// default q is instead the Polyak–Ruppert average of the unconstrained
	// parameters over the last Window·EvalEvery steps, each evaluation
	// estimates the ELBO of that average from the same draws, and the rule
	// compares averages that share no step (see Fit). Averaging removes
	// the step noise that a constant step size leaves in the iterate.
	LastIterate bool

	EvalEvery int     // ELBO estimated every EvalEvery steps; default 100
	ELBODraws int     // draws per ELBO estimate; default 100
	Tol       float64 // relative ELBO change for convergence (see Fit); default 1e-4; negative: run MaxIter
	Window    int     // evaluations the convergence rule looks at, and evaluation blocks averaged; default 5

	// MaxBadSteps: when steps with a non-finite log joint or gradient have
	// halved the step size this many times net of recoveries (as many in a
	// row, or a steady share above one in six), the fit goes back to its
	// best q as the divergence guard does, or stops when the guard cannot
	// (no rollbacks left, no q with a finite ELBO estimate yet, or no
	// guard); default 50.
	MaxBadSteps int

	// PSISDraws is the number of draws of q for the final ELBO estimate and
	// the Pareto k̂ diagnostic; default 1000; negative: skip.
	PSISDraws int
	// ParetoKDraws is the number of draws k̂ is estimated again from when
	// the PSISDraws draws give a k̂ in [KBandLow, KBandHigh], around the
	// 0.7 that the warnings, hints and Resampling.Reliable read: there k̂
	// from 1000 draws is noisy (a crossed GLMM gave 0.686 at 1000 draws,
	// 1.03 at 10 000). Its first PSISDraws draws are the same; the final
	// ELBO stays that of the PSISDraws draws. Not where the PSISDraws
	// draws' weights are degenerate (Degenerate): unreliable whatever k̂.
	// Default 10 000; negative, or not above PSISDraws: never.
	// Result.ParetoKDraws says which.
	ParetoKDraws int
	// ParetoKCost, when > 0, caps the draws of an SGVB fit's k̂ estimate
	// again so that those beyond PSISDraws are at most ParetoKCost times
	// the fit's gradient draws, each counted as one log joint of the whole
	// data (a minibatch step's draw as B/N of one: BatchShare): where
	// steps are cheap and the data large, 10 000 log joints of all of it
	// can cost ten times the fit (paretoKCap). ParetoKFree extra draws are
	// allowed whatever the fit's work (a model cheap to evaluate). 0: no
	// cap. Counted in draws, not seconds, so results stay those of the
	// seed. Result.ParetoKCapped says where it bit.
	ParetoKCost float64
	ParetoKFree int

	// Init warm-starts from a previous result: factors are matched by
	// latent name and size; a factor of the same family is copied, otherwise
	// its mean becomes the initial mean and, for a gamma, lognormal or normal
	// factor, its sd the initial sd.
	Init *Result

	// PaperStart starts every gamma factor at shape = its initial mean,
	// rate 1, as the paper's code does, however small the mean (the EPM
	// experiments' W = 1/K reproduce it); without it a mean below
	// minStartShape starts at that shape, the mean kept.
	PaperStart bool

	// InitJitter, if positive, moves the start (the default one, or Init's)
	// element by element: each location by an independent U(−InitJitter,
	// InitJitter) draw from the fit's seed on its support's unconstrained
	// scale (a positive latent's mean by a factor e^u, a real one's by u;
	// spreads are kept), as Stan and PyMC start their chains at dispersed
	// points. 0: the start is deterministic. Restarts use it (see
	// Restarts.Jitter).
	InitJitter float64

	// InitPath starts q from an optimisation path, as Pathfinder does
	// (Zhang et al. 2022): L-BFGS from the default start (at most
	// PathIters iterations) on the log density of the coordinates smoothed
	// by a normal of sd PathSmoothSD, q's locations at up to PathPoints of
	// its iterates with spreads from the Hessian's diagonal there, and the
	// start the one whose ELBO estimate (PathDraws draws, the seed's own
	// stream) is highest (Result.Path says which). For posteriors far
	// from the default start (means of 0, 1, 0.5), which the steps from
	// there do not reach. Not with Init; InitJitter then moves the chosen
	// start. MAP ignores it.
	InitPath bool

	// Minibatch, when not nil, is the target of every step and of the ELBO
	// estimates during the fit (data-subsampled SVI, Hoffman et al. 2013):
	// each draw evaluates it on the batch that its stream, iteration and
	// index select, so the gradient stays unbiased and results do not
	// depend on Workers. The Target passed to Fit, the full log joint,
	// gives the final ELBO estimate and k̂ (PSISDraws). Not with MAP.
	Minibatch MinibatchTarget
	// Anneal is how many times a minibatch fit halves its step size: each
	// time the convergence rule is met it goes on from the averaged q with
	// half the step, averaging over twice as many steps (EvalEvery doubles),
	// and it stops when the rule is met after the last halving. A constant step on the batches' gradient
	// noise leaves a bias of the order of the step in q (posterior sds off
	// by a factor 2–4 at N/B = 1000, however long it runs); each halving
	// halves it, and the longer average keeps the average's own noise from
	// growing as the iterate slows (Robbins–Monro's decreasing steps, in
	// stages: docs/inference.md, "Minibatch SGVB"). 0 = 4; negative: none.
	// Fits without Minibatch ignore it.
	Anneal int

	// Progress, if set, is called after every ELBO evaluation (on the
	// goroutine that called Fit).
	Progress func(Progress)
	// Scoring, if set, is called (on the goroutine that called Fit) as the
	// final estimate of the ELBO and Pareto k̂ starts on draws draws of q
	// (elbo true), and again where k̂ near 0.7 asks for ParetoKDraws, k̂
	// alone (elbo false): after the last step of a model of large data
	// this takes a while, which a caller may say (elapsed is the fit's time
	// so far).
	Scoring func(draws int, elapsed time.Duration, elbo bool)
	// Stepping, if set, is called (on the goroutine that called Fit) after
	// each gradient step of an SGVB fit until its first ELBO evaluation
	// (Progress), with the steps taken, the time they took and the fit's
	// time so far (the ELBO estimate of its start and a step-size search
	// included): where steps are slow (an ODE solved at every draw) a
	// caller can say early what the fit will cost, long before the first
	// progress line at EvalEvery. The fit is the same with it or without.
	Stepping func(steps int, stepping, elapsed time.Duration)
	// Stepped, if set, is called (on the goroutine that called Fit) after
	// every gradient step of an SGVB fit with the steps taken so far: a
	// caller can say how far a fit whose pace fell has got since its last
	// ELBO evaluation. The fit is the same with it or without.
	Stepped func(steps int)
	// Rollback, if set, is called (on the goroutine that called Fit) when
	// an SGVB fit goes back to an earlier q (its ELBO diverged or drifted
	// down, or a run of steps was non-finite) or stops for want of
	// rollbacks, with the iteration and the warning that says so (also in
	// Result.Warnings): a caller can say it among the progress lines, whose
	// relative change starts afresh after it (Progress.RolledBack).
	// FitRestarts passes it to every restart: its fits, side by side,
	// may call it at once.
	Rollback func(iter int, warning string)
}

// Progress reports the state of a running fit.
type Progress struct {
	Iter      int
	ELBO, SE  float64
	RelChange float64 // the relative ELBO change the convergence rule looks at (see Fit; NaN while there is none)
	// RolledBack is the iteration of the fit's last rollback (Settings.Rollback), 0 for none: the
	// convergence rule starts afresh from it, so RelChange is NaN for a window of evaluations after it.
	RolledBack int
	ItPerSec   float64
	Elapsed    time.Duration
}

// Defaults.
const (
	defaultMaxIter      = 10000
	defaultMAPIter      = 1000
	defaultEvalEvery    = 100
	defaultELBODraws    = 100
	defaultTol          = 1e-4
	defaultWindow       = 5
	defaultMaxBad       = 50
	defaultPSISDraws    = 1000
	defaultParetoKDraws = DefaultParetoKDraws
	defaultSearchIters  = 50
	defaultMaxRollbacks = 5
	guardDraws          = 20 // draws of the start's ELBO, the guard's first reference
	defaultStepDecay    = 1000
	maxDefaultWorkers   = 4
)

// DefaultWorkers is Settings.Workers's default for a fit run beside par-1
// others (Restarts): its share of GOMAXPROCS, at least 1 and at most 4.
func DefaultWorkers(par int) int {
	return min(max(runtime.GOMAXPROCS(0)/max(par, 1), 1), maxDefaultWorkers)
}

// DefaultParetoKDraws is Settings.ParetoKDraws's default.
const DefaultParetoKDraws = 10000

// Defaults of a minibatch fit: its annealing stages (Anneal) take some
// 20 000 to 100 000 steps.
const (
	defaultMinibatchIter = 200000
	defaultAnneal        = 4
)

// WithDefaults returns s with the defaults its zero fields stand for:
// the settings a fit runs with (model.SaveFit records them).
func (s Settings) WithDefaults() Settings { return s.withDefaults() }

func (s Settings) withDefaults() Settings {
	if s.MaxIter <= 0 {
		if s.Method == MAP || s.Method.JointNormal() {
			s.MaxIter = defaultMAPIter
		} else if s.Minibatch != nil {
			s.MaxIter = defaultMinibatchIter
		} else {
			s.MaxIter = defaultMaxIter
		}
	}
	if s.Anneal == 0 {
		s.Anneal = defaultAnneal
	}
	if s.PathfinderHistory <= 0 {
		s.PathfinderHistory = PathfinderHistory
	}
	if s.PathfinderDraws <= 0 {
		s.PathfinderDraws = PathfinderDraws
	}
	if s.DrawsPerStep <= 0 {
		s.DrawsPerStep = 1
	}
	if s.Workers <= 0 {
		s.Workers = DefaultWorkers(1)
	}
	if s.Gamma == nil {
		s.Gamma = dist.Implicit{}
	}
	if s.GammaParam == GammaParamAuto {
		s.GammaParam = GammaLogMeanShape
	}
	if s.Rho <= 0 {
		if s.Optimizer == AdaDeltaMomentum {
			s.Rho = 0.95
		} else {
			s.Rho = 0.9
		}
	}
	if s.MomentumWeight <= 0 {
		s.MomentumWeight = 0.1
	}
	if s.StepDecay == 0 {
		s.StepDecay = defaultStepDecay
	}
	if s.MaxRollbacks == 0 {
		s.MaxRollbacks = defaultMaxRollbacks
	}
	if s.SearchIters <= 0 {
		s.SearchIters = defaultSearchIters
	}
	if s.EvalEvery <= 0 {
		s.EvalEvery = defaultEvalEvery
	}
	if s.ELBODraws <= 0 {
		s.ELBODraws = defaultELBODraws
	}
	if s.Tol == 0 {
		s.Tol = defaultTol
	}
	if s.Window <= 0 {
		s.Window = defaultWindow
	}
	if s.MaxBadSteps <= 0 {
		s.MaxBadSteps = defaultMaxBad
	}
	if s.PSISDraws == 0 {
		s.PSISDraws = defaultPSISDraws
	}
	if s.ParetoKDraws == 0 {
		s.ParetoKDraws = defaultParetoKDraws
	}
	return s
}

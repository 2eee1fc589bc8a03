package sgvb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"github.com/gpplang/gpp/dist"
)

// Result is a fitted q (or a MAP point) with its diagnostics.
type Result struct {
	Method  Method
	Factors []Factor // one per latent, in the order given to Fit
	Dim     int      // length of the coordinate vector
	// Groups are the joint full-rank factors of Settings.FullRankGroups;
	// each member's entry in Factors is its marginal under the group's q.
	Groups []Group

	// ELBO is the final ELBO estimate and ELBOSE its Monte Carlo standard
	// error (from PSISDraws draws, or the last evaluation). For MAP, ELBO is
	// the log joint at the estimate and ELBOSE is 0.
	ELBO, ELBOSE float64
	Trace        []TracePoint // one per ELBO evaluation (MAP: per L-BFGS iteration, log joint)
	Iterations   int
	Converged    bool
	// Collapsed: the final ELBO estimate lies orders of magnitude below
	// the last evaluation's (collapseWarning, which Warnings holds): a few
	// of q's final draws land where log p is far lower, in tails that the
	// evaluations' draws missed, so Converged says only that the
	// evaluations settled, not that q is usable.
	Collapsed   bool
	Interrupted bool    // the context was cancelled; q is the one reached
	StepSize    float64 // η at the end (after the step-size search and rollbacks, if any)
	BadSteps    int     // steps skipped for a non-finite log joint or gradient
	Rollbacks   int     // returns to the best q after a divergence or a drift (Settings.MaxRollbacks)
	// StepErr is the Target's error at the first of an SGVB fit's
	// BadSteps that returned one (an *ast.Error says where the model
	// failed), and
	// EvalErr that of the first ELBO-evaluation draw left out for a
	// non-finite log joint; nil if none. The warnings that count those
	// steps and draws name them once (firstClause).
	StepErr, EvalErr error
	// AtStart: an SGVB fit that ran its steps returns its start q
	// unchanged because every step failed, or because the divergence
	// guard went back to the start until its rollbacks ran out. Such a q
	// is no fit: its scales are the start's, not the posterior's. (A fit
	// that ends at the start after a rollback it had to spare, as with
	// --iter 2, or whose steps left it unchanged, is not marked.)
	AtStart bool
	// Averaged is the number of iterates whose mean is q (Settings.
	// LastIterate); 0: q is the last iterate (with LastIterate; or at
	// MaxIter, when its ELBO estimate beat the average's from the same
	// draws), or the guard's best q, or the last good q of a stopped fit.
	Averaged int

	// ParetoK is the PSIS Pareto k̂ of the importance ratios p/q over
	// PSISDraws draws of q (NaN if not computed), and ParetoReading its
	// reading (TailReading): "good" (< 0.5), "ok" (0.5–0.7), "unreliable"
	// (> 0.7, or degenerate weights: Degenerate), or NegligibleReading (> 0.7, but the weights are
	// near-uniform: ParetoRelESS at least 1/(1 + NegligibleCV²)).
	ParetoK       float64
	ParetoReading string
	// ParetoRelESS is the relative effective sample size ESS/S of the
	// weights p/q over the same draws as ParetoK, the smaller of the raw
	// and the Pareto-smoothed weights' (ParetoDiagnostics); NaN if not
	// computed.
	ParetoRelESS float64
	// ParetoKDraws is the number of draws ParetoK is from: PSISDraws, or
	// Settings.ParetoKDraws where those gave a k̂ near 0.7 (KBandLow to
	// KBandHigh); 0 if not computed.
	ParetoKDraws int
	// ParetoKCapped is the Settings.ParetoKDraws that k̂'s estimate again
	// would have taken where Settings.ParetoKCost cut it to ParetoKDraws
	// (PSISDraws: skipped); 0 where it did not.
	ParetoKCapped int
	// FinalBad counts the draws of the final ELBO estimate (PSISDraws)
	// whose log joint was not finite, left out of ELBO and ParetoK: q
	// puts mass where the density is 0 (outside a support that depends
	// on the params), so its true ELBO is −∞ whatever ELBO says. 0 where
	// no final estimate ran (PSISDraws skipped).
	FinalBad int

	// Path is the start taken from an optimisation path
	// (Settings.InitPath); nil otherwise.
	Path *PathStart
	// Pathfinder is the L-BFGS path of a Pathfinder fit; nil otherwise.
	Pathfinder *PathfinderPath

	Warnings []string
	// stalls counts the optimizer's resets after a stall (engine.stalled).
	stalls  int
	Seconds float64

	once   sync.Once
	blocks []block
	cache  stepCache
	pool   sync.Pool // *qScratch
}

// TracePoint is one ELBO evaluation.
type TracePoint struct {
	Iter     int
	ELBO, SE float64
	Seconds  float64 // since the start of the fit
}

// Factor is the fitted factor of one latent.
type Factor struct {
	Name         string
	Family       Family
	Support      dist.Support
	Offset, Size int
	Shape        []int
	// Params[j][i] is parameter j (named by Family.ParamNames) of element
	// i: shape and rate, meanlog and sdlog, mean and sd, alpha and beta,
	// alpha (Dirichlet, per component), or value (point). They describe
	// the value b on Support; the latent is Loc + Scale·b when Scale is
	// not 0 (see Latent).
	Params     [][]float64
	Loc, Scale float64
	// LocV and ScaleV, when not nil, are Loc and Scale per element (a
	// param with a bound per element; see Latent): element i is
	// LocV[i] + ScaleV[i]·b_i.
	LocV, ScaleV []float64
	// Parts are the factors of an ordered latent's parts (Family
	// FamilyOrdered, Params nil): Parts[0] the normal factor of x_0 (a
	// real latent of one element), Parts[1] the factor of the increments
	// d_k = x_k − x_{k−1} (a positive latent of Size − 1 elements; absent
	// when Size is 1), on the coordinates x[Offset+1:]. The latent is
	// x_k = x_0 + d_1 + … + d_k. A positive_ordered latent's (Support
	// dist.PositiveOrdered) has one part: the positive factor of x_0,
	// d_1, …, d_{K−1}, a positive latent of Size elements.
	Parts []Factor
	// joint is, for an ordered latent under a joint full-rank or low-rank
	// factor, the full-rank params of the marginal of its coordinates (x_0
	// or log x_0, then log d_k), whose correlations its moments need and
	// its Parts, each a marginal, do not hold (linkOrdered).
	joint [][]float64
}

// Group is the joint full-rank factor of several latents
// (Settings.FullRankGroups): a multivariate normal N(mean, LLᵀ) over the
// coordinates of the latents Names, in that order, each latent's elements
// in turn: the values of a real latent, the logs of a positive one, the
// logits of a unit one, an ordered one's x_0 (or log x_0) and log
// increments (the name once for them all; not in banded groups).
// Params are as a FamilyFullRank factor's: the mean, then the columns
// L[1] … L[n] of the lower-triangular L. With Rank > 0 (Settings.Rank)
// the group is a FamilyLowRank factor, N(mean, BBᵀ + diag(sd²)), and
// Params are the mean, d, then the Rank columns of B.
type Group struct {
	Names  []string
	Params [][]float64
	Rank   int
	// Band > 0: a FamilyBanded factor of that bandwidth (Settings.Band),
	// Params the mean, then band[0] … band[Band], then for an arrowhead
	// (Names[0] the chain, the others global) arrow[0] … arrow[g−1].
	Band int
}

// affine maps values b on the factor's support to the model's values
// Loc + Scale·b, in place, kept strictly inside the bounds as the model
// keeps them (a b within an ulp of 0 or 1 would give a bound itself).
func (f *Factor) affine(v []float64) {
	if f.ScaleV != nil {
		for i, b := range v {
			loc, scale := f.LocV[i], f.ScaleV[i]
			lo, hi := f.ends(loc, scale)
			v[i] = dist.Inside(loc+scale*b, lo, hi)
		}
		return
	}
	if f.Scale == 0 {
		return
	}
	lo, hi := f.ends(f.Loc, f.Scale)
	for i, b := range v {
		v[i] = dist.Inside(f.Loc+f.Scale*b, lo, hi)
	}
}

// ends returns the bounds of the values loc + scale·b for b on the
// factor's support.
func (f *Factor) ends(loc, scale float64) (lo, hi float64) {
	switch {
	case f.Support == dist.Unit: // two bounds: b is on the unit interval
		return loc, loc + scale
	case scale > 0: // loc + b, b > 0
		return loc, math.Inf(1)
	}
	return math.Inf(-1), loc // loc − b
}

// affineAt returns loc and scale of element i (scale 0: no map).
func (f *Factor) affineAt(i int) (loc, scale float64) {
	if f.ScaleV != nil {
		return f.LocV[i], f.ScaleV[i]
	}
	return f.Loc, f.Scale
}

// Mean returns the mean of each element on the natural scale.
func (f *Factor) Mean() []float64 {
	m, s := make([]float64, f.Size), make([]float64, f.Size)
	f.moments(m, s)
	return m
}

// ParamNames returns the names of the factor's Params (Family.ParamNames,
// or LowRankParamNames for a low-rank factor).
func (f *Factor) ParamNames() []string {
	if f.Family == FamilyLowRank {
		return LowRankParamNames(max(len(f.Params)-2, 0))
	}
	if f.Family == FamilyBanded {
		return BandedParamNames(max(len(f.Params)-2, 0), 0)
	}
	return f.Family.ParamNames(FactorElems(f.Family, f.Support, f.Shape))
}

// StickCoord returns the element of a full-rank factor of a simplex (its
// stick-breaking coordinates, K − 1 a row) that value element k breaks
// off, or −1 for the last entry of a row, the stick left.
func (f *Factor) StickCoord(k int) int {
	K := f.Shape[len(f.Shape)-1]
	if k%K == K-1 {
		return -1
	}
	return k/K*(K-1) + k%K
}

// FactorElems returns the number of elements of each of the Params of a
// factor of family fam over a latent of support s and shape shape: its
// size, but K − 1 per row of K for a full-rank factor of a simplex (normal
// on the stick-breaking coordinates, stick.go).
func FactorElems(fam Family, s dist.Support, shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	if fam == FamilyFullRank && s == dist.Simplex && len(shape) > 0 && shape[len(shape)-1] >= 2 {
		return stickElems(n, shape[len(shape)-1])
	}
	return n
}

// SD returns the standard deviation of each element on the natural scale.
func (f *Factor) SD() []float64 {
	m, s := make([]float64, f.Size), make([]float64, f.Size)
	f.moments(m, s)
	return s
}

// Factor returns the factor of the named latent, or nil.
func (r *Result) Factor(name string) *Factor {
	for i := range r.Factors {
		if r.Factors[i].Name == name {
			return &r.Factors[i]
		}
	}
	return nil
}

// Mean returns the posterior means under q on the natural scale, as one
// vector laid out like the coordinates.
func (r *Result) Mean() []float64 {
	out := make([]float64, r.Dim)
	for i := range r.Factors {
		f := &r.Factors[i]
		copy(out[f.Offset:], f.Mean())
	}
	return out
}

// SD returns the posterior standard deviations under q on the natural
// scale, laid out like the coordinates.
func (r *Result) SD() []float64 {
	out := make([]float64, r.Dim)
	for i := range r.Factors {
		f := &r.Factors[i]
		copy(out[f.Offset:], f.SD())
	}
	return out
}

func (r *Result) warn(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

// firstClause is the clause "the first: ERR" that names err, the first
// failure of what a warning counts, in its own positioned text (its first
// line); "" for none or a cancellation, which says nothing of the model.
func firstClause(err error) string {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ""
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return "the first: " + msg
}

// prepare builds the sampling state from the factors.
func (r *Result) prepare() {
	r.once.Do(func() {
		np := 0
		var theta []float64
		inGroup := map[string]int{}
		for gi, g := range r.Groups {
			for _, name := range g.Names {
				inGroup[name] = gi
			}
		}
		made := map[int]bool{}
		for _, ff := range flatten(r.Factors) {
			f := ff.f
			if gi, ok := inGroup[f.Name]; ok { // an ordered latent's parts: its one place in the group
				if made[gi] {
					continue
				}
				if b, ok := r.groupBlock(gi, np); ok {
					made[gi] = true
					np += b.np()
					theta = append(theta, make([]float64, b.np())...)
					b.thetaFrom(r.Groups[gi].Params, theta[b.poff:])
					r.blocks = append(r.blocks, b)
					continue
				}
			}
			// A gamma factor is held as log shape and log mean, whatever
			// the fit's coordinates: the rate then has no floor (behind a
			// softplus it had minParam, and a factor of mean 10¹³ and shape
			// 300, rate 3·10⁻¹¹, drew around 3·10¹⁰).
			b := block{name: f.Name, fam: f.Family, support: f.Support, shape: f.Shape, off: f.Offset, n: f.Size, poff: np, k: 1,
				logMS: f.Family == FamilyGamma, part: ff.part}
			if f.Support == dist.Simplex && len(f.Shape) > 0 {
				b.k = f.Shape[len(f.Shape)-1]
				if f.Family == FamilyFullRank && b.k >= 2 { // normal on K − 1 stick-breaking coordinates a row
					b.n = stickElems(f.Size, b.k)
					b.addSticks(f.Offset, f.Size, b.k)
				}
			}
			if f.Family == FamilyLowRank {
				b.rank = len(f.Params) - 2
				b.lr = lowRankScratch(b.rank)
			}
			if f.Family == FamilyBanded {
				b.band = len(f.Params) - 2
			}
			np += b.np()
			theta = append(theta, make([]float64, b.np())...)
			b.thetaFrom(f.Params, theta[b.poff:])
			r.blocks = append(r.blocks, b)
		}
		r.cache = newStepCache(np, false)
		r.cache.fill(r.blocks, theta)
	})
}

// sampleOnly draws gamma variables without the shape derivative.
type sampleOnly struct{}

func (sampleOnly) SampleLog(a float64, rng *rand.Rand) (float64, float64) {
	return dist.SampleGammaLog(a, rng), 0
}

// DrawStream is the PCG stream, with the fit's seed, that gpp fit draws
// its output draws (draws.csv's rows) from by SampleCoords, apart from the
// fit's own streams; gpp sample's --init from a fit and the model
// package's FitDraws draw from it too, so that they meet those rows.
const DrawStream = 0x6f75747075747321

// OutputStream is the PCG stream, with the run's seed, from which gpp fit
// and gpp sample draw the outputs' replicates (output y ~ D(...)) at each
// draw, one draw after another, apart from the draws of q so that adding
// such an output changes no other number (the mean row of a fit draws from
// OutputStream+1). The model package's summaries draw them alike.
const OutputStream = 0x7072656469637421

// LeftOutStream is the PCG stream, with the run's seed, from which gpp
// predict draws the observed data that the new data leave out
// (compile.Evaluator.SetDrawRand), apart from the outputs' replicates so
// that drawing them changes no output (the mean row: LeftOutStream+1).
const LeftOutStream = 0x6c6566746f757421

// SampleCoords draws one z from q into x in the Target's coordinates
// (len(x) == Dim; coordinates outside every latent are left alone) and
// returns log q(z), the log density of z on its natural scale, comparable
// with the Target's log p (0 for a MAP point). Safe for concurrent use.
func (r *Result) SampleCoords(rng *rand.Rand, x []float64) (logq float64) {
	var lq [1]float64
	r.drawBatch(func(int) *rand.Rand { return rng }, [][]float64{x}, lq[:])
	return lq[0]
}

// LogQCoords returns log q(z) at coordinates x (len(x) == Dim): the log
// density of z on its natural scale, as SampleCoords returns it (0 for a
// MAP point). Safe for concurrent use.
func (r *Result) LogQCoords(x []float64) (logq float64) {
	return r.MarginalLogQCoords(x, nil)
}

// MarginalLogQCoords is LogQCoords without the blocks whose coordinates
// drop marks (indexed like x; nil: none), which must be whole blocks
// (Separates): q's marginal density of the other coordinates. PSIS-LOO
// weighs draws of the params by it where it draws the missing values of
// data from their model, not from q.
func (r *Result) MarginalLogQCoords(x []float64, drop []bool) (logq float64) {
	var lq [1]float64
	r.logQBatch([][]float64{x}, drop, lq[:], nil)
	return lq[0]
}

// Separates reports whether the coordinates drop marks (indexed like x)
// are whole blocks of q, independent of the others under q: no block (a
// full- or low-rank group) holds both marked and unmarked coordinates.
func (r *Result) Separates(drop []bool) bool {
	r.prepare()
	for i := range r.blocks {
		b := &r.blocks[i]
		for j := range b.n {
			if drop[b.at(j)] != drop[b.at(0)] {
				return false
			}
		}
	}
	return true
}

// dropped reports whether block i's coordinates are marked in drop.
func (r *Result) dropped(i int, drop []bool) bool {
	b := &r.blocks[i]
	return drop != nil && b.n > 0 && drop[b.at(0)]
}

// Natural maps coordinates x to natural-scale values z (z may be x).
func (r *Result) Natural(z, x []float64) {
	for i := range r.Factors {
		f := &r.Factors[i]
		if f.Family == FamilyOrdered {
			orderedNatural(z[f.Offset:f.Offset+f.Size], x[f.Offset:f.Offset+f.Size], f.Shape, f.Support == dist.PositiveOrdered)
			continue
		}
		k := 1
		if f.Support == dist.Simplex && len(f.Shape) > 0 {
			k = f.Shape[len(f.Shape)-1]
		}
		natural(f.Support, k, z[f.Offset:f.Offset+f.Size], x[f.Offset:f.Offset+f.Size])
		f.affine(z[f.Offset : f.Offset+f.Size])
	}
}

// Coords maps natural-scale values z (the model's values, as Natural
// gives them) to coordinates x (x may be z).
func (r *Result) Coords(x, z []float64) {
	for i := range r.Factors {
		f := &r.Factors[i]
		if f.Family == FamilyOrdered {
			orderedCoords(x[f.Offset:f.Offset+f.Size], z[f.Offset:f.Offset+f.Size], f.Shape, f.Support == dist.PositiveOrdered)
			continue
		}
		for k := f.Offset; k < f.Offset+f.Size; k++ {
			v := z[k]
			if loc, scale := f.affineAt(k - f.Offset); scale != 0 {
				v = (v - loc) / scale
			}
			x[k] = coordOf(f.Support, v)
		}
	}
}

// Sample draws one z from q on the natural scale into z (len(z) == Dim) and
// returns log q(z). Tiny gamma draws may underflow to 0 here; use
// SampleCoords to keep their logarithm.
func (r *Result) Sample(rng *rand.Rand, z []float64) (logq float64) {
	lq := r.SampleCoords(rng, z)
	r.Natural(z, z)
	return lq
}

// ParetoWarning returns the warning a fit gives for a Pareto k̂ above 0.7
// ("" otherwise, and where the tail is negligible: TailNegligible, from
// the weights' relative ESS), what naming the approximation ("q",
// "the mixture").
func ParetoWarning(k, relESS float64, what string) string {
	if !ParetoAlarm(k, relESS) {
		return ""
	}
	return fmt.Sprintf("Pareto k̂ = %s > 0.7: %s is not a reliable approximation of the posterior for importance sampling", FormatK(k, 'f', 2), what)
}

// weightWarnings returns a fit's warnings of its weights p/q over S
// draws: ParetoWarning's and WeightsWarning's, those not "".
func weightWarnings(k, relESS float64, S int, what string) []string {
	var ws []string
	for _, w := range []string{ParetoWarning(k, relESS, what), WeightsWarning(k, relESS, S, what)} {
		if w != "" {
			ws = append(ws, w)
		}
	}
	return ws
}

// WeightsWarning returns the warning a fit gives where its Pareto k̂ is
// 0.7 or less but its weights over S draws read it unreliable
// (TailReading: Degenerate or ESSBelowMin), "" otherwise, so that such a
// fit does not pass for one with no warning. what names the approximation.
func WeightsWarning(k, relESS float64, S int, what string) string {
	if k > 0.7 || math.IsNaN(k) || math.IsInf(k, -1) {
		return ""
	}
	switch {
	case Degenerate(relESS, S):
		return fmt.Sprintf("Pareto k̂ = %s, but one of %d draws holds more than half of the weights p/q: %s is not a reliable approximation of the posterior (far from it, or stopped early)", FormatK(k, 'f', 2), S, what)
	case ESSBelowMin(k, relESS, S):
		return fmt.Sprintf("Pareto k̂ = %s, but the weights p/q of %d draws keep an ESS of %.0f, below the %.0f that k̂ needs: %s is not a reliable approximation of the posterior (often too narrow)", FormatK(k, 'f', 2), S, relESS*float64(S), math.Ceil(PSISMinSS(k)), what)
	}
	return ""
}

// FormatK formats a Pareto k̂ as strconv.FormatFloat(k, format, prec, 64)
// does, with more digits where those would put it on the other side of, or
// onto, a threshold its reading compares it with (0.5, 0.7): 0.7003 is
// "0.7003", not "0.70", which would read as not above 0.7.
func FormatK(k float64, format byte, prec int) string {
	for p := prec; p < 17; p++ {
		s := strconv.FormatFloat(k, format, p, 64)
		if v, err := strconv.ParseFloat(s, 64); err != nil || sameSide(v, k, 0.5) && sameSide(v, k, 0.7) {
			return s
		}
	}
	return strconv.FormatFloat(k, format, -1, 64)
}

// sameSide reports whether v and k compare alike with t (NaNs alike).
func sameSide(v, k, t float64) bool { return (v < t) == (k < t) && (v > t) == (k > t) }

// Overflows reports whether an ELBO estimate or its standard error is
// infinite: the approximation it is of is not usable (overflowWarning).
func Overflows(elbo, se float64) bool { return math.IsInf(elbo, 0) || math.IsInf(se, 0) }

// overflowWarning returns the warning a fit gives when its final ELBO
// estimate or its standard error is infinite ("" otherwise): log p − log q
// overflows at q's draws, as when a target term grows without bound (an
// improper posterior), and convergence by the relative change of such an
// estimate means nothing. what names the approximation.
func overflowWarning(elbo, se float64, what string) string {
	if !Overflows(elbo, se) {
		return ""
	}
	return fmt.Sprintf("the ELBO estimate is %.4g ± %.4g: the log density overflows at draws of %s (is the posterior proper? does a target term grow without bound?); %s is not a usable approximation", elbo, se, what, what)
}

// collapseWarning returns the warning a fit gives when its final ELBO
// estimate, from the PSISDraws draws, lies far below the last evaluation's
// ("" otherwise): by more than 1000 nats and the ELBO's own magnitude, far
// past Monte Carlo noise. A few of the final draws then land where log p
// is lower by orders of magnitude, in q's tails, which the evaluations'
// fewer draws missed and the convergence rule never saw: an AR(2) state
// with unconstrained coefficients, fitted at rank 5, had evaluations at
// −343 and a final estimate of −1.3·10¹² from its explosive draws. what
// names the approximation.
func collapseWarning(elbo, last float64, what string) string {
	if math.IsInf(elbo, 0) || !(last-elbo > math.Max(1000, math.Abs(last))) {
		return ""
	}
	return fmt.Sprintf("the final ELBO estimate %.4g is far below the last evaluation's %.4g: a few draws of %s land where the log density is lower by orders of magnitude, in tails the evaluations missed (params past a stationary or stable region, a scale near 0?), and the summary and outputs include them; bounds or a parameterisation that keep the params inside that region usually mend it", elbo, last, what)
}

// TailReading returns the reading of a fit's Pareto k̂ with the relative
// ESS of its weights over S draws: ParetoReading(k), but "heavy tail of
// negligible weight" where the weights are near-uniform (TailNegligible):
// the ratios p/q grow without bound only where q puts next to no draws;
// and "unreliable" whatever k̂ where they are degenerate (Degenerate): one
// draw holds most of the weight, and k̂, fitted to the tail of the other
// draws' weights, does not read that draw; or where their ESS is below
// the draws that k̂ needs (ESSBelowMin).
func TailReading(k, relESS float64, S int) string {
	switch {
	case math.IsNaN(k):
		return ParetoReading(k)
	case Degenerate(relESS, S), ESSBelowMin(k, relESS, S):
		return "unreliable"
	case TailNegligible(k, relESS):
		return NegligibleReading
	}
	return ParetoReading(k)
}

// Degenerate reports whether importance weights of relative ESS relESS
// over S draws (ParetoDiagnostics) have an ESS below DegenerateESS: then
// the largest normalised weight w̃ is above 1/2 (Σ w̃² ≤ max w̃), one
// draw holds more than half the weight, and a k̂ below 0.7 says only that
// the other draws' tail is light. A pf model stopped after 300 of its
// thousands of iterations (a user trial of 2026-11-30) read k̂ 0.47
// "good" at a relative ESS of 10⁻⁴ over 10 000 draws, where its
// converged fits read k̂ 10–14. False for S ≤ 0 or relESS not computed.
func Degenerate(relESS float64, S int) bool {
	return S > 0 && relESS > 0 && relESS*float64(S) < DegenerateESS
}

// ESSBelowMin reports whether a k̂ of at most 0.7 comes with weights
// whose ESS, relESS of S draws, is below PSISMinSS(k), the draws Vehtari
// et al. (2024, §3.2.3) need for a reliable Pareto-smoothed estimate at
// tail shape k: k̂ is above their threshold 1 − 1/log₁₀(S) taken at the
// ESS. False for S ≤ 0, relESS not computed, or k̂ not finite.
func ESSBelowMin(k, relESS float64, S int) bool {
	if S <= 0 || !(relESS > 0) || math.IsInf(k, 0) || math.IsNaN(k) || k > 0.7 {
		return false
	}
	return relESS*float64(S) < PSISMinSS(k)
}

// PSISMinSS is Vehtari et al.'s (2024) minimum sample size for a reliable
// Pareto-smoothed estimate at tail shape k: 10^(1/(1 − k)), k taken as 0
// below 0 (10 draws); +Inf from k = 1.
func PSISMinSS(k float64) float64 {
	if k >= 1 {
		return math.Inf(1)
	}
	return math.Pow(10, 1/(1-max(0, k)))
}

// DegenerateESS is the ESS of importance weights below which they are
// degenerate (Degenerate).
const DegenerateESS = 2

// NegligibleReading is TailReading's reading of a k̂ above 0.7 whose
// weights are near-uniform.
const NegligibleReading = "heavy tail of negligible weight"

// ParetoReading returns the reading of a Pareto k̂: "good" below 0.5, "ok"
// up to 0.7, "unreliable" above, "n/a" for NaN.
func ParetoReading(k float64) string {
	switch {
	case math.IsNaN(k):
		return "n/a"
	case k < 0.5:
		return "good"
	case k <= 0.7:
		return "ok"
	}
	return "unreliable"
}

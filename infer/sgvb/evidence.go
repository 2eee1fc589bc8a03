package sgvb

// The log evidence log p(y) of a fit by importance sampling: the mean of
// the weights p(y, θ_d)/r(θ_d) over draws θ_d of a proposal r is an
// unbiased estimate of p(y) = ∫ p(y, θ) dθ (Robert and Casella 2004, §3.3),
// and its log a lower bound in expectation (Burda, Grosse and
// Salakhutdinov 2016: E log Ẑ ≥ the ELBO for r = q, rising to log p(y)
// with the draws). Its error is governed by the weights' tail: for a Pareto
// k̂ below 0.5 they have a finite variance and the delta-method standard
// error holds, up to 0.7 the estimate converges at a practical rate
// (Vehtari et al. 2024), above it p(y) is likely underestimated (the
// draws miss where p/r is largest). A mean-field q is lighter-tailed than
// the posterior; the proposal is therefore the defensive mixture ½q + ½g
// of PSIS-LOO (defensive.go), half the draws from q and half from g (a
// stratified sample of the mixture; Hesterberg 1995, Owen and Zhou 2000),
// whose heavy-tailed g bounds the weights where q's tails are too thin.
// Less of g lets the weights' tail grow back: on TestEvidenceMeanField's
// q, too narrow across a correlation of 0.9, g's share ½ gave k̂ 0.14–0.36,
// 0.2 gave 0.74–0.77 and 0.1 gave 0.89–0.95.

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/gpplang/gpp/dist"
)

// EvidenceDraws is the number of importance draws of an evidence estimate:
// ten thousand, as the k̂ of a fit near 0.7 (Settings.ParetoKDraws), at
// ten times the final ELBO estimate's work.
const EvidenceDraws = 10000

// Evidence is an importance-sampling estimate of the log evidence.
type Evidence struct {
	LogZ float64 // log of the mean weight: log p(y) estimated
	// SE is LogZ's standard error by the delta method, sd(w)/(√M·mean w),
	// valid where the weights have a finite variance (K below 0.5).
	SE float64
	// K is the Pareto k̂ of the log weights and RelESS the relative
	// effective sample size of the weights (ParetoDiagnostics).
	K, RelESS float64
	Draws     int // M
	// Zero counts the draws whose log joint was not finite, each a weight
	// of 0 (a draw outside the support, or a failed evaluation).
	Zero int
	// Proposal names the proposal: "½q + ½g" (a fit's defensive
	// mixture) or "the restarts' ½q + ½g" (a Mixture's).
	Proposal string
}

// EstimateEvidence estimates the log evidence of t from M draws of the
// defensive mixture of the fit r (draw d from q for even d, from g for odd
// d, each with a random stream of its own from seed), evaluated on par
// goroutines; the result does not depend on par. A MAP point has no q to
// draw from and is an error.
func EstimateEvidence(t Target, r *Result, M int, seed uint64, par int) (*Evidence, error) {
	if r.Method == MAP {
		return nil, errors.New("a MAP point has no q to draw from")
	}
	ev := mixtureEvidence(t, []*Result{r}, M, seed, par)
	ev.Proposal = "½q + ½g"
	return ev, nil
}

// EstimateEvidence estimates the log evidence of t from M draws of the
// mixture of the restarts' defensive mixtures, (1/R) Σ_r (½q_r + ½g_r):
// draw d from restart d mod R, from its q or its g in turn (a stratified
// sample), as the Result's method does. Without the g's the restarts'
// mixture alone, as light-tailed as its q's, gave k̂ 4–6 on 1-D scale
// and bounded params.
func (m *Mixture) EstimateEvidence(t Target, M int, seed uint64, par int) *Evidence {
	ev := mixtureEvidence(t, m.Components, M, seed, par)
	ev.Proposal = "the restarts' ½q + ½g"
	return ev
}

// mixtureEvidence is the estimate from M draws of (1/R) Σ_r (½q_r + ½g_r)
// over the R fits comps (none a MAP point), draw d from comps[d mod R],
// from its q or its g in turn, g being evidenceG's.
func mixtureEvidence(t Target, comps []*Result, M int, seed uint64, par int) *Evidence {
	R := len(comps)
	gs := make([]*evidenceG, R)
	for r, c := range comps {
		gs[r] = newEvidenceG(c)
	}
	lw := importanceLogWeights(t, comps[0].Dim, M, par, func(ds []int, xs [][]float64, lq []float64) {
		for k, d := range ds {
			x := xs[k]
			rng := rand.New(rand.NewPCG(streamSeed(seed, streamEvidence, 0, d)))
			r := d % R
			if (d/R)%2 == 0 {
				comps[r].SampleCoords(rng, x)
			} else {
				gs[r].sample(rng, x)
			}
			ld := make([]float64, R)
			for j, g := range gs {
				ld[j] = g.logMixture(x)
			}
			lq[k] = logSumExp(ld) - math.Log(float64(R))
		}
	})
	return evidenceFrom(lw)
}

// evidenceWiden is κ, the factor by which the evidence's g widens a gamma
// factor's variance: the gamma of the same mean and shape a/κ.
const evidenceWiden = DefensiveScale * DefensiveScale

// evidenceG is the heavy-tailed companion g of a fit's q for the evidence:
// PSIS-LOO's (Defensive), except that each element of a gamma factor
// Gamma(a, b) is replaced by Gamma(a/κ, b/κ), of the same mean and κ times
// the variance, not by a Student-t on its log. The log of a gamma has a
// long left tail (sd about 1/a for small a) and a right tail that falls
// doubly exponentially; a symmetric t of that scale proposes z = e^300
// and beyond, where a model's log joint is rounding noise (the EPM on the
// football network: a log weight of +1.4·10²⁵¹ from a draw with log z =
// 344 made the estimate e^(10²⁵¹) with k̂ 0.48). Gamma(a/κ, b/κ)'s log has
// the left tail e^(a·x/κ), heavier than q's e^(a·x), and no such right
// tail.
type evidenceG struct {
	r     *Result
	d     *Defensive
	gamma []bool // per block: a gamma factor, widened
}

func newEvidenceG(r *Result) *evidenceG {
	g := &evidenceG{r: r, d: r.Defensive(), gamma: make([]bool, len(r.blocks))}
	for bi := range r.blocks {
		g.gamma[bi] = r.blocks[bi].fam == FamilyGamma
	}
	return g
}

// sample draws x from g. Safe for concurrent use.
func (g *evidenceG) sample(rng *rand.Rand, x []float64) {
	r, d := g.r, g.d
	aux := make([]float64, len(r.cache.val))
	for bi := range r.blocks {
		b := &r.blocks[bi]
		switch {
		case g.gamma[bi]:
			for i := range b.n {
				a, rate := g.shapeRate(b, i)
				x[b.off+i] = dist.SampleGammaLog(a, rng) - math.Log(rate)
			}
		case d.wide[bi] == keep:
			b.sample(&r.cache, sampleOnly{}, rng, x, aux)
		default:
			d.sampleWide(bi, rng, x)
		}
	}
}

// shapeRate returns the widened gamma of element i of gamma block b.
func (g *evidenceG) shapeRate(b *block, i int) (a, rate float64) {
	val := g.r.cache.val
	return val[b.poff+i] / evidenceWiden, val[b.poff+b.n+i] / evidenceWiden
}

// logMixture returns log(½q + ½g) at x on the natural scale, as
// Defensive.LogDensity does, with log q and log g each summed block by
// block: where q's density underflows far in g's tail, log q + (log g −
// log q) would cancel to nothing.
func (g *evidenceG) logMixture(x []float64) float64 {
	r, d := g.r, g.d
	lq, lg := 0.0, 0.0
	for bi := range r.blocks {
		b := &r.blocks[bi]
		bq := b.logq(&r.cache, x, nil)
		lq += bq
		switch {
		case g.gamma[bi]: // log density of the coordinate log z, less the Jacobian Σ log z
			for i := range b.n {
				a, rate := g.shapeRate(b, i)
				v := x[b.off+i]
				lg += a*math.Log(rate) - lgamma(a) + a*v - rate*math.Exp(v) - v
			}
		case d.wide[bi] == keep:
			lg += bq
		default:
			lg -= b.logJacobian(x)
			d.addWideLog(&lg, bi, x)
		}
	}
	if math.IsNaN(lq) || math.IsNaN(lg) {
		return math.NaN()
	}
	hi, lo := math.Max(lq, lg), math.Min(lq, lg)
	if math.IsInf(hi, -1) {
		return hi
	}
	return hi - math.Ln2 + math.Log1p(math.Exp(lo-hi))
}

// evidenceFrom returns the estimate from the log weights lw, a non-finite
// one a weight of 0.
func evidenceFrom(lw []float64) *Evidence {
	M := len(lw)
	ev := &Evidence{Draws: M, LogZ: math.NaN(), SE: math.NaN()}
	mx := math.Inf(-1)
	fin := make([]float64, 0, M)
	for _, v := range lw {
		if !finite(v) {
			ev.Zero++
			continue
		}
		fin = append(fin, v)
		mx = math.Max(mx, v)
	}
	ev.K, ev.RelESS = ParetoDiagnostics(fin)
	if len(fin) == 0 {
		ev.LogZ = math.Inf(-1)
		return ev
	}
	s := 0.0
	for _, v := range fin {
		s += math.Exp(v - mx)
	}
	mean := s / float64(M)
	ss := 0.0 // Σ (w − mean)², the zero weights included
	for _, v := range fin {
		d := math.Exp(v-mx) - mean
		ss += d * d
	}
	ss += float64(ev.Zero) * mean * mean
	ev.LogZ = mx + math.Log(mean)
	if M > 1 {
		ev.SE = math.Sqrt(ss/float64(M-1)/float64(M)) / mean
	}
	return ev
}

package sgvb

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/gpplang/gpp/dist"
)

// RestartSeed returns the seed of restart r of a fit seeded with seed.
// Restart 0 keeps seed, so its fit is the single fit of that seed, bit for
// bit; the others differ in the high 32 bits.
func RestartSeed(seed uint64, r int) uint64 { return seed + uint64(r)<<32 }

// RestartSeedText writes restart r's seed (RestartSeed) as that sum,
// "1 + 2·2³²", more readable than 8589934593.
func RestartSeedText(seed uint64, r int) string {
	if r <= 0 || seed < uint64(r)<<32 {
		return fmt.Sprint(seed)
	}
	return fmt.Sprintf("%d + %d·2³²", seed-uint64(r)<<32, r)
}

// Restarts configures FitRestarts.
type Restarts struct {
	N int // number of independent fits; at least 1
	// Parallel is how many fits run at once, each on its own goroutine
	// with its own clone of the Target; 0: min(N, GOMAXPROCS). Results do
	// not depend on it.
	Parallel int
	// Inits, if not nil, warm-starts restart r from Inits[r] (len N),
	// overriding Settings.Init.
	Inits []*Result
	// Jitter is the Settings.InitJitter of restarts 1 to N−1 when Inits
	// is nil, so that they start apart from each other and from restart
	// 0, which keeps Settings.InitJitter (and stays the single fit of s).
	// 0: DefaultJitter; negative: Settings.InitJitter for all.
	Jitter float64
	// Radius, if positive, starts restarts 1 to N−1 as Stan starts its
	// chains (init=Radius) in place of jittering: each location of a
	// positive, unit or real latent at an independent U(−Radius, Radius)
	// draw on its unconstrained scale (a positive latent's mean at e^u),
	// not at its prior's mean (RandomStart). Restart 0 keeps the default
	// start. With vague priors the prior means can lie where a nonlinear
	// model's likelihood is flat, and restarts jittered around them share
	// one wrong mode (docs/inference.md, Starting values). Not with Inits.
	Radius float64
	// Progress, if set, is called after every ELBO evaluation of restart r,
	// from that restart's goroutine (so concurrently when Parallel > 1).
	Progress func(r int, p Progress)
	// Done, if set, is called when restart r has finished, from its
	// goroutine.
	Done func(r int, res *Result, err error)
}

// DefaultJitter is the default Restarts.Jitter: starting means spread over
// a factor e^±1 (real latents ±1), PyMC's jitter of its chains' starts.
const DefaultJitter = 1.0

// Mixture is the equal-weight mixture of the q's of independent fits
// (restarts) of one model: q(z) = (1/R) Σ_r q_r(z). Mean-field q's are
// mode-seeking, and restarts from other seeds can settle in other modes;
// their mixture covers them all and predicts with all of them.
type Mixture struct {
	Components []*Result
	Seeds      []uint64 // the components' seeds (RestartSeed)
	Restarts   []int    // the components' restart numbers

	// Failed holds the restarts that failed, in restart order, when others
	// did not: the mixture is of the others, and Warnings name each one.
	Failed []*RestartError

	// ELBO is the mixture's own ELBO, E_q[log p − log q] with the mixture's
	// density: the components' mean ELBO plus their mean KL(q_r ‖ q),
	// estimated from PSISDraws draws spread evenly over the components; so
	// it is at least the components' mean and at most log R above it.
	// ELBOSE is its Monte Carlo standard error.
	ELBO, ELBOSE float64
	// ParetoK is the Pareto k̂ of the mixture's importance ratios p/q over
	// the same draws (NaN if not computed), ParetoReading its reading
	// (TailReading) and ParetoRelESS the relative ESS of the smoothed
	// weights (as Result's).
	ParetoK       float64
	ParetoReading string
	ParetoRelESS  float64
	// ParetoKDraws is the number of draws ParetoK is from (see
	// Result.ParetoKDraws); 0 if not computed.
	ParetoKDraws int

	Interrupted bool // some restart was stopped by the context
	Warnings    []string
	Seconds     float64 // wall time of all the fits and the final estimate
}

// RestartError is the error of one restart of FitRestarts.
type RestartError struct {
	Restart int
	Seed    uint64
	Err     error
}

func (e *RestartError) Error() string {
	return fmt.Sprintf("restart %d (seed %s): %v", e.Restart, RestartSeedText(e.Seed, e.Restart), e.Err)
}

func (e *RestartError) Unwrap() error { return e.Err }

// FitRestarts fits rs.N independent q's to t, restart r with s and the seed
// RestartSeed(s.Seed, r), restarts after the first from jittered starts
// (Restarts.Jitter), and returns their equal-weight mixture with its
// ELBO and Pareto k̂. Settings.Progress is not used (see Restarts.Progress);
// Settings.Workers, when 0, is shared out among the fits running at once.
//
// A restart that fails (its start or a draw out of the density's domain,
// say, where a jittered start moved it) is left out of the mixture, with a
// warning and its error in Mixture.Failed, as long as another restart
// succeeded: a mixture of restarts is the way to find the modes a single
// fit misses, and one bad start should not lose them. If every restart
// fails, the error is a *RestartError of the first, and the Mixture holds
// nil components. Cancelling ctx stops every restart at its next step: the Mixture
// holds the q's reached, Interrupted is set and the final estimate is
// skipped. MAP fits cannot be mixed, and Laplace fits, at the one mode,
// have no restarts.
func FitRestarts(ctx context.Context, t Target, latents []Latent, s Settings, rs Restarts) (*Mixture, error) {
	if rs.N < 1 {
		return nil, fmt.Errorf("restarts: need at least 1 fit, got %d", rs.N)
	}
	if s.Method == MAP {
		return nil, fmt.Errorf("restarts: a MAP estimate is a point, and points cannot be mixed")
	}
	if s.Method == Laplace && rs.N > 1 {
		return nil, fmt.Errorf("restarts: a Laplace approximation is at the one mode of the log density: its restarts would be one q")
	}
	if math.IsNaN(rs.Jitter) || math.IsInf(rs.Jitter, 0) {
		return nil, fmt.Errorf("restarts: Jitter must be finite, got %v", rs.Jitter)
	}
	if !(rs.Radius >= 0) || math.IsInf(rs.Radius, 0) {
		return nil, fmt.Errorf("restarts: Radius must be a finite number ≥ 0, got %v", rs.Radius)
	}
	if rs.Radius > 0 && rs.Inits != nil {
		return nil, fmt.Errorf("restarts: Radius draws the starts that Inits gives: give one of them")
	}
	if rs.Inits != nil && len(rs.Inits) != rs.N {
		return nil, fmt.Errorf("restarts: %d initial fits for %d restarts", len(rs.Inits), rs.N)
	}
	par := rs.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	par = min(par, rs.N)
	if s.Workers == 0 {
		s.Workers = DefaultWorkers(par)
	}
	m := &Mixture{Components: make([]*Result, rs.N), Seeds: make([]uint64, rs.N)}
	errs := make([]error, rs.N)
	start := time.Now()
	next := make(chan int)
	var wg sync.WaitGroup
	for _, tw := range workerTargets(t, par) {
		wg.Go(func() {
			for r := range next {
				sr := s
				sr.Seed = RestartSeed(s.Seed, r)
				sr.Progress = nil
				if rs.Progress != nil {
					sr.Progress = func(p Progress) { rs.Progress(r, p) }
				}
				lr := latents
				switch {
				case rs.Inits != nil:
					sr.Init = rs.Inits[r]
				case r > 0 && rs.Radius > 0:
					lr = RandomStart(tw, latents, rs.Radius, sr.Seed)
				case r > 0:
					sr.InitJitter = rs.jitter(s.InitJitter)
				}
				m.Seeds[r] = sr.Seed
				res, err := Fit(ctx, tw, lr, sr)
				m.Components[r], errs[r] = res, err
				if rs.Done != nil {
					rs.Done(r, res, err)
				}
			}
		})
	}
	for r := range rs.N {
		next <- r
	}
	close(next)
	wg.Wait()
	var kept []int
	for r, err := range errs {
		if err == nil {
			kept = append(kept, r)
			continue
		}
		m.Failed = append(m.Failed, &RestartError{Restart: r, Seed: m.Seeds[r], Err: err})
	}
	if len(kept) == 0 {
		m.Seconds = time.Since(start).Seconds()
		return m, m.Failed[0]
	}
	comps, seeds := m.Components, m.Seeds
	m.Components, m.Seeds, m.Restarts = nil, nil, kept
	for _, r := range kept {
		m.Components, m.Seeds = append(m.Components, comps[r]), append(m.Seeds, seeds[r])
	}
	for _, f := range m.Failed {
		m.warn("%v; the mixture leaves it out (%d of %d restarts finished)", f, len(kept), rs.N)
	}
	for _, c := range m.Components {
		m.Interrupted = m.Interrupted || c.Interrupted
	}
	m.ELBO, m.ELBOSE, m.ParetoK, m.ParetoRelESS = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if ws := s.withDefaults(); !m.Interrupted && ws.PSISDraws > 0 {
		n := ws.PSISDraws
		m.estimate(t, n, s.Seed, par)
		if !math.IsNaN(m.ParetoK) {
			m.ParetoKDraws = n
		}
		if N := ws.ParetoKDraws; N > n && m.ParetoK >= KBandLow && m.ParetoK <= KBandHigh {
			m.ParetoK, m.ParetoRelESS = m.paretoK(t, N, s.Seed, par)
			m.ParetoKDraws = N
		}
	}
	m.ParetoReading = TailReading(m.ParetoK, m.ParetoRelESS, m.ParetoKDraws)
	if w := overflowWarning(m.ELBO, m.ELBOSE, "the mixture"); w != "" {
		m.warn("%s", w)
	}
	for _, w := range weightWarnings(m.ParetoK, m.ParetoRelESS, m.ParetoKDraws, "the mixture") {
		m.warn("%s", w)
	}
	m.Seconds = time.Since(start).Seconds()
	return m, nil
}

// RandomStart returns a copy of latents whose positive, unit and real
// latents start at a random point, as Stan draws its inits (init=radius):
// each element's initial value (Latent.Init) at e^u, logistic(u) or u for
// an independent u ~ U(−radius, radius) from seed's own stream; latents of
// other supports (simplexes, ordered vectors, matrices) keep their starts.
// As Stan, it draws again, up to MAPStartTries times, while t's log joint
// is not finite at the start's centre (StartPoint), and keeps the last
// draw if none is (the fit then fails there). latents is not modified.
func RandomStart(t Target, latents []Latent, radius float64, seed uint64) []Latent {
	out := make([]Latent, len(latents))
	copy(out, latents)
	drawn := func(l *Latent) bool { // the supports whose starts are drawn
		return l.Support == dist.Positive || l.Support == dist.Unit || l.Support == dist.Real
	}
	dim := 0
	for i := range out {
		l := &out[i]
		dim = max(dim, l.Offset+l.Size)
		if drawn(l) {
			l.Init = make([]float64, l.Size)
		}
	}
	rng := rand.New(rand.NewPCG(streamSeed(seed, streamRadius, 0, 0)))
	x, grad := make([]float64, dim), make([]float64, dim)
	for try := 1; try <= MAPStartTries; try++ {
		for i := range out {
			l := &out[i]
			if !drawn(l) {
				continue // its own start, kept
			}
			for j := range l.Init {
				u := radius * (2*rng.Float64() - 1)
				switch l.Support {
				case dist.Positive:
					l.Init[j] = math.Exp(u)
				case dist.Unit:
					l.Init[j] = sigmoid(u)
				default:
					l.Init[j] = u
				}
			}
		}
		copy(x, StartPoint(out, dim))
		if v, err := t.LogJoint(x, grad); err == nil && finite(v) {
			break
		}
	}
	return out
}

// RestartRhat returns the potential scale reduction factor R̂ of one column of
// draws grouped by restart (draw d from restart comp[d]), as Gelman and
// Rubin define it for chains: √(((n−1)/n W + B/n) / W), with W the mean
// variance within restarts and B/n the variance of their means. The draws
// of a restart are independent, so R̂ measures only how far the restarts
// disagree against the spread of each q: near 1 when they found the same
// q, large when they settled in different modes (or differ by a label
// switch). It is gpp fit --restarts's column rhat. Non-finite draws are
// left out; NaN for fewer than two restarts, or when a restart has fewer
// than two finite draws or no spread.
func RestartRhat(col []float64, comp []int, R int) float64 {
	if R < 2 { // no variance between restarts
		return math.NaN()
	}
	n, mean, m2 := make([]float64, R), make([]float64, R), make([]float64, R)
	for d, x := range col {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		r := comp[d]
		n[r]++
		delta := x - mean[r]
		mean[r] += delta / n[r]
		m2[r] += delta * (x - mean[r])
	}
	var W, nbar, gm float64
	for r := range R {
		if n[r] < 2 {
			return math.NaN()
		}
		W += m2[r] / (n[r] - 1) / float64(R)
		nbar += n[r] / float64(R)
		gm += mean[r] / float64(R)
	}
	if !(W > 0) {
		return math.NaN()
	}
	var bn float64 // B/n: the variance of the restarts' means
	for r := range R {
		bn += (mean[r] - gm) * (mean[r] - gm) / float64(R-1)
	}
	return math.Sqrt(((nbar-1)/nbar*W + bn) / W)
}

// jitter returns the InitJitter of restarts after the first, s0 being
// Settings.InitJitter.
func (rs *Restarts) jitter(s0 float64) float64 {
	switch {
	case rs.Jitter == 0:
		return DefaultJitter
	case rs.Jitter < 0:
		return s0
	}
	return rs.Jitter
}

func (m *Mixture) warn(format string, args ...any) {
	m.Warnings = append(m.Warnings, fmt.Sprintf(format, args...))
}

// Dim returns the length of the coordinate vector.
func (m *Mixture) Dim() int { return m.Components[0].Dim }

// Mean returns the mixture's means on the natural scale, laid out like the
// coordinates: the mean of the components' means.
func (m *Mixture) Mean() []float64 {
	out := make([]float64, m.Dim())
	for _, c := range m.Components {
		for i, v := range c.Mean() {
			out[i] += v / float64(len(m.Components))
		}
	}
	return out
}

// LogQCoords returns the mixture's log density at coordinates x, on the
// natural scale as Result.LogQCoords.
func (m *Mixture) LogQCoords(x []float64) float64 {
	var lq [1]float64
	m.logQBatch([][]float64{x}, lq[:])
	return lq[0]
}

// SampleCoords draws z from component r of the mixture into x (in the
// Target's coordinates) and returns the mixture's log density at z. Drawing
// the d-th of n draws from component d mod R spreads them evenly (a
// stratified sample of the mixture). Safe for concurrent use.
func (m *Mixture) SampleCoords(rng *rand.Rand, x []float64, r int) (logq float64) {
	var lq [1]float64
	m.SampleCoordsBatch(rng, [][]float64{x}, []int{r}, lq[:])
	return lq[0]
}

// estimate sets the mixture's ELBO, its standard error and the Pareto k̂
// from n draws, draw d from restart d mod R with a random stream of its
// own, on par goroutines.
//
// The ELBO uses the identity
//
//	ELBO(q) = (1/R) Σ_r ELBO(q_r) + (1/R) Σ_r KL(q_r ‖ q),
//
// with each restart's own final ELBO estimate (whose control variate
// makes it precise) and the KL terms estimated from the draws: their
// integrand log q_r − log q is at most log R, so they have little
// variance, where log p − log q over a few draws per restart has much
// (on the EPM its spread is in the tens of nats). The k̂ is that of the
// weights log p − log q.
func (m *Mixture) estimate(t Target, n int, seed uint64, par int) {
	R := len(m.Components)
	lw, gap, ok := m.weights(t, n, seed, par)
	// the KL terms, by restart
	mean, m2 := make([]float64, R), make([]float64, R)
	cnt := make([]int, R)
	for d := range n {
		r := d % R
		cnt[r]++
		delta := gap[d] - mean[r]
		mean[r] += delta / float64(cnt[r])
		m2[r] += delta * (gap[d] - mean[r])
	}
	var elbo, v float64
	for r, c := range m.Components {
		if cnt[r] < 2 {
			return
		}
		elbo += (c.ELBO + mean[r]) / float64(R)
		v += (c.ELBOSE*c.ELBOSE + m2[r]/float64(cnt[r]-1)/float64(cnt[r])) / float64(R*R)
	}
	m.ELBO, m.ELBOSE = elbo, math.Sqrt(v)
	good := lw[:0:0]
	for d := range n {
		if ok[d] {
			good = append(good, lw[d])
		}
	}
	if bad := n - len(good); bad > 0 {
		m.warn("%d of %d final draws of the mixture had a non-finite log joint", bad, n)
	}
	m.ParetoK, m.ParetoRelESS = ParetoDiagnostics(good)
}

// paretoK returns the k̂ of the log weights log p − log q of the mixture's
// first n final draws (those of estimate) and the relative ESS of their
// weights (ParetoDiagnostics).
func (m *Mixture) paretoK(t Target, n int, seed uint64, par int) (k, relESS float64) {
	lw, _, ok := m.weights(t, n, seed, par)
	good := lw[:0:0]
	for d := range n {
		if ok[d] {
			good = append(good, lw[d])
		}
	}
	return ParetoDiagnostics(good)
}

// weights draws the mixture's n final draws, draw d from restart d mod R
// with a stream of its own, on par goroutines, and returns per draw its
// log weight log p − log q, its gap log q_r − log q to the mixture and
// whether the weight is finite.
func (m *Mixture) weights(t Target, n int, seed uint64, par int) (lw, gap []float64, ok []bool) {
	R := len(m.Components)
	lw, gap = make([]float64, n), make([]float64, n)
	ok = make([]bool, n)
	var wg sync.WaitGroup
	for w, tw := range workerTargets(t, min(par, n)) {
		wg.Go(func() {
			g := make([]float64, m.Dim())
			forBatches(w, n, par, m.Dim(), func(ds []int, xs [][]float64, lqr, lq []float64) {
				m.drawBatch(func(k int) *rand.Rand {
					return rand.New(rand.NewPCG(streamSeed(seed, streamMixture, 0, ds[k])))
				}, func(k int) int { return ds[k] % R }, xs, lqr, lq)
				for k, d := range ds {
					gap[d] = lqr[k] - lq[k]
					lp, err := logJointValue(tw, xs[k], g)
					lw[d] = lp - lq[k]
					ok[d] = err == nil && finite(lw[d])
				}
			})
		})
	}
	wg.Wait()
	return lw, gap, ok
}

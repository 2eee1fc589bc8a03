package sgvb

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// Plain SGD with step size η on this normal model multiplies the mean's
// error by about 1 − 5η per step (5 unit-variance observations): η = 1
// diverges. The guard goes back to the best q and halves η until the steps
// are stable, and the fit ends at the posterior; without it the fit is
// lost. A limit on rollbacks stops the fit at its best q.
func TestDivergenceGuard(t *testing.T) {
	nn := &normalNormal{y: []float64{1.2, 0.3, 2.5, 1.9, 0.7}, sigma: 1, m0: 0, s0: 10}
	lat := []Latent{{Name: "mu", Size: 1, Shape: []int{}, Support: dist.Real}}
	pm, ps := nn.posterior()
	s := Settings{Seed: 1, Optimizer: SGD, StepSize: 1, StepDecay: -1, MaxIter: 3000, Tol: -1, PSISDraws: 500}
	fit := func(maxRollbacks int) (*Result, error) {
		sr := s
		sr.MaxRollbacks = maxRollbacks
		return Fit(context.Background(), nn, lat, sr)
	}
	// Settings.Rollback says each rollback as it happens, with its
	// warning, and the progress reports after it name it
	var said []string
	var saidAt []int
	var reports []Progress
	s.Rollback = func(it int, w string) { said, saidAt = append(said, w), append(saidAt, it) }
	s.Progress = func(p Progress) { reports = append(reports, p) }
	r, err := fit(0)
	if err != nil {
		t.Fatal(err)
	}
	s.Rollback, s.Progress = nil, nil
	if len(said) != r.Rollbacks || !slices.Equal(said, r.Warnings[:min(len(said), len(r.Warnings))]) {
		t.Errorf("Rollback said %q for %d rollbacks, warnings %q", said, r.Rollbacks, r.Warnings)
	}
	checked := 0 // the rollbacks a report followed
	for i, at := range saidAt {
		next := -1 // the first report after the rollback
		for j, p := range reports {
			if p.Iter > at {
				next = j
				break
			}
		}
		if next < 0 {
			continue
		}
		checked++
		if p := reports[next]; p.RolledBack != at || !math.IsNaN(p.RelChange) {
			t.Errorf("rollback %d at %d: the next report %+v, want RolledBack %d and no relative change", i, at, p, at)
		}
	}
	if checked == 0 {
		t.Errorf("no report followed a rollback (rollbacks at %v, %d reports)", saidAt, len(reports))
	}
	if len(reports) > 0 && reports[0].RolledBack != 0 && (len(saidAt) == 0 || reports[0].Iter <= saidAt[0]) {
		t.Errorf("the first report %+v names a rollback before any", reports[0])
	}
	m, sd := r.Factors[0].Params[0][0], r.Factors[0].Params[1][0]
	t.Logf("%d rollbacks, step size now %g; q = N(%.4f, %.4f), posterior N(%.4f, %.4f); warnings %q", r.Rollbacks, r.StepSize, m, sd, pm, ps, r.Warnings)
	if r.Rollbacks < 1 || r.Rollbacks > defaultMaxRollbacks {
		t.Errorf("%d rollbacks, want 1 to %d", r.Rollbacks, defaultMaxRollbacks)
	}
	if math.Abs(m-pm) > 0.05 || math.Abs(sd/ps-1) > 0.2 || math.Abs(r.ELBO-r.Trace[len(r.Trace)-1].ELBO) > 1 {
		t.Errorf("q = N(%g, %g), want the posterior N(%g, %g)", m, sd, pm, ps)
	}
	if n := strings.Count(strings.Join(r.Warnings, "\n"), "the ELBO diverged at iteration"); n != r.Rollbacks {
		t.Errorf("%d rollback warnings for %d rollbacks: %q", n, r.Rollbacks, r.Warnings)
	}

	// without the guard the fit is lost: it ends far from the posterior,
	// or stops on non-finite steps
	r, err = fit(-1)
	if err == nil && r.Rollbacks == 0 && math.Abs(r.Factors[0].Params[0][0]-pm) < 1 {
		t.Errorf("without the guard: q's mean %g, near the posterior's %g: the test's step size does not diverge", r.Factors[0].Params[0][0], pm)
	}

	// one rollback allowed: the second divergence stops the fit at its best q
	r, err = fit(1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Rollbacks != 2 || !strings.Contains(strings.Join(r.Warnings, "\n"), "diverged again") || r.Iterations == s.MaxIter {
		t.Errorf("MaxRollbacks 1: %d rollbacks, %d iterations, warnings %q", r.Rollbacks, r.Iterations, r.Warnings)
	}
	if !finite(r.ELBO) || !finite(r.Factors[0].Params[0][0]) {
		t.Errorf("MaxRollbacks 1: ELBO %v, mean %v: want the best q", r.ELBO, r.Factors[0].Params[0][0])
	}
}

// cutNormal is a standard normal whose log density cannot be evaluated
// above cut (NaN): a q that keeps a steady share of its draws there.
type cutNormal struct{ cut float64 }

func (t *cutNormal) LogJoint(x, grad []float64) (float64, error) {
	if x[0] > t.cut {
		grad[0] = math.NaN()
		return math.NaN(), nil
	}
	grad[0] = -x[0]
	return -0.5*x[0]*x[0] - halfLog2Pi, nil
}

func (t *cutNormal) Clone() Target { c := *t; return &c }

// A steady share of non-finite steps (about a third here, never 50 in a
// row) halves the step size faster than the good steps restore it. Each
// time it has been cut by 2^MaxBadSteps the fit goes back to its best q
// with half the step size; when the rollbacks are spent it must stop with
// an error, not run on with a q that no longer moves, which the
// convergence rule would take for a converged one.
func TestSteadyNonFiniteSteps(t *testing.T) {
	lat := []Latent{{Name: "x", Size: 1, Shape: []int{}, Support: dist.Real}}
	s := Settings{Seed: 1, MaxIter: 20000, PSISDraws: -1}
	r, err := Fit(context.Background(), &cutNormal{cut: 0.3}, lat, s)
	if err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Fatalf("err %v, want the non-finite error", err)
	}
	w := strings.Join(r.Warnings, "\n")
	t.Logf("%d iterations, %d bad steps, converged %v; warnings %q", r.Iterations, r.BadSteps, r.Converged, w)
	if r.Converged || r.Iterations == s.MaxIter || !strings.Contains(w, "no longer moved") || r.Rollbacks != defaultMaxRollbacks {
		t.Errorf("converged %v after %d iterations and %d rollbacks, warnings %q: want a stop on the share of bad steps", r.Converged, r.Iterations, r.Rollbacks, w)
	}
	if share := float64(r.BadSteps) / float64(r.Iterations); share < 1.0/6 {
		t.Errorf("%d bad steps of %d: the test's target does not make a steady share of them", r.BadSteps, r.Iterations)
	}
	if !strings.Contains(w, "below 2^-50 of the step size") {
		t.Errorf("warnings %q: want the stop to say what the step size was cut from", w)
	}
}

// outage is a normal-normal model whose log joint fails (NaN, as a
// numerical defect in one region would make it) for the calls [from, to)
// of all its clones together: a breakdown that passes.
type outage struct {
	*normalNormal
	calls, from, to *atomic.Int64
}

func (t *outage) LogJoint(x, grad []float64) (float64, error) {
	if n := t.calls.Add(1) - 1; n >= t.from.Load() && n < t.to.Load() {
		grad[0] = math.NaN()
		return math.NaN(), nil
	}
	return t.normalNormal.LogJoint(x, grad)
}

func (t *outage) Clone() Target { c := *t; return &c }

// A run of non-finite steps long enough to stop a fit (MaxBadSteps in a
// row, armed just after the ELBO evaluation at step 600 so that the next
// evaluation is good again) that then passes: the fit goes back to its
// best q with half the step size, once, and ends at the posterior instead
// of failing.
func TestNonFiniteRunRolledBack(t *testing.T) {
	nn := &normalNormal{y: []float64{1.2, 0.3, 2.5, 1.9, 0.7}, sigma: 1, m0: 0, s0: 10}
	pm, ps := nn.posterior()
	lat := []Latent{{Name: "mu", Size: 1, Shape: []int{}, Support: dist.Real}}
	tg := &outage{normalNormal: nn, calls: new(atomic.Int64), from: new(atomic.Int64), to: new(atomic.Int64)}
	tg.from.Store(math.MaxInt64)
	s := Settings{Seed: 1, Workers: 1, Progress: func(p Progress) {
		if p.Iter == 600 {
			n := tg.calls.Load()
			tg.from.Store(n)
			tg.to.Store(n + defaultMaxBad + 10)
		}
	}}
	r, err := Fit(context.Background(), tg, lat, s)
	if err != nil {
		t.Fatalf("%v; warnings %q", err, r.Warnings)
	}
	m, sd := r.Factors[0].Params[0][0], r.Factors[0].Params[1][0]
	t.Logf("%d bad steps, %d rollbacks, %d iterations; q = N(%.4f, %.4f), posterior N(%.4f, %.4f); warnings %q", r.BadSteps, r.Rollbacks, r.Iterations, m, sd, pm, ps, r.Warnings)
	if r.Rollbacks != 1 || r.BadSteps != defaultMaxBad+10 || !strings.Contains(strings.Join(r.Warnings, "\n"), "in a row), went back to iteration 600's") {
		t.Errorf("%d rollbacks, %d bad steps, warnings %q: want one rollback, to step 600's q, after the run of bad steps", r.Rollbacks, r.BadSteps, r.Warnings)
	}
	if math.Abs(m-pm) > 0.05 || math.Abs(sd/ps-1) > 0.2 {
		t.Errorf("q = N(%g, %g), want the posterior N(%g, %g)", m, sd, pm, ps)
	}
}

// TestCollapseWarning: a final ELBO estimate far below the last
// evaluation's, by more than 1000 nats and the ELBO's own size, is warned
// about (the AR(2) fit of docs/language.md: evaluations at −343, a final
// estimate of −1.27·10¹²); Monte Carlo noise, a large ELBO moving by less
// than its size, an overflow (its own warning) and NaN are not.
func TestCollapseWarning(t *testing.T) {
	for _, c := range []struct {
		elbo, last float64
		warn       bool
	}{
		{-1.27469e12, -343.394, true},
		{-5000, -900, true},
		{-250.3, -250.1, false},
		{-1.5e6, -1e6, false}, // 5·10⁵ below, less than the ELBO's size
		{-2100, -1050, false}, // 1050 below an ELBO of 1050: not more than its size
		{-2100, -1000, true},  // 1100 nats below an ELBO of 1000
		{1e3, -343, false},    // above
		{math.Inf(-1), -343, false},
		{math.NaN(), -343, false},
		{-1e9, math.NaN(), false},
	} {
		w := collapseWarning(c.elbo, c.last, "q")
		if (w != "") != c.warn {
			t.Errorf("collapseWarning(%g, %g) = %q, want a warning: %v", c.elbo, c.last, w, c.warn)
		}
		if c.warn && !strings.Contains(w, "far below the last evaluation's") {
			t.Errorf("warning %q", w)
		}
	}
}

// replayDrift feeds a trace of ELBO evaluations (estimate, standard error)
// to a guard as fitSGVB does, the first best being the start's estimate
// start (iteration 0), and returns the index of the evaluation that marks
// a drift, or −1.
func replayDrift(start float64, tr [][2]float64) int {
	g := &guard{e: &engine{s: &Settings{}}, elbo: start, se: 1, prev: math.NaN()}
	for k, p := range tr {
		if g.drifted(p[0]) {
			return k
		}
		g.keep(100*(k+1), p[0], p[1])
	}
	return -1
}

// TestDriftRule replays synthetic ELBO traces through the slow-drift rule:
// a plateau with Monte Carlo noise, single and double dips and
// evaluations that scatter far more than their standard errors
// (TestSDFloor's fits) are no drift; a steady fall of 1 nat per
// evaluation and a sustained step of 15 nats are, within a few
// evaluations of crossing the gap and not before the fall, and so are
// evaluations all far below the start's estimate.
func TestDriftRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// 20 rising evaluations, then a plateau at −2950 ± 0.5
	plateau := func(n int, sd, se float64) [][2]float64 {
		var tr [][2]float64
		for k := range 20 {
			tr = append(tr, [2]float64{-3000 + 2.5*float64(k), se})
		}
		for range n {
			tr = append(tr, [2]float64{-2950 + sd*rng.NormFloat64(), se})
		}
		return tr
	}
	if k := replayDrift(-3500, plateau(500, 0.5, 0.5)); k >= 0 {
		t.Errorf("noisy plateau: drift at evaluation %d", k)
	}
	// the iterate's own scatter, far above the standard errors
	if k := replayDrift(-3e11, plateau(500, 1e11, 5e9)); k >= 0 {
		t.Errorf("scattered plateau: drift at evaluation %d", k)
	}
	for _, dips := range []int{1, 2} {
		tr := plateau(100, 0.5, 0.5)
		for i := range dips {
			tr[60+i][0] -= 30
		}
		if k := replayDrift(-3500, tr); k >= 0 {
			t.Errorf("%d dips of 30 nats: drift at evaluation %d", dips, k)
		}
	}
	// every evaluation far below the start's estimate (±1): a drift from
	// the start, at the third
	if k := replayDrift(-2900, plateau(100, 0.5, 0.5)); k != driftChecks-1 {
		t.Errorf("far below the start's estimate: drift at evaluation %d, want %d", k, driftChecks-1)
	}
	// a steady fall from evaluation 60 on
	fall := plateau(200, 0.5, 0.5)
	for k := 60; k < len(fall); k++ {
		fall[k][0] -= float64(k - 59)
	}
	k := replayDrift(-3500, fall)
	t.Logf("steady fall of 1 nat per evaluation from evaluation 60: drift at %d", k)
	if k < 60 || k > 60+25 {
		t.Errorf("steady fall from evaluation 60: drift at %d, want within 25 evaluations", k)
	}
	// a sustained step down of 15 nats at evaluation 60
	step := plateau(200, 0.5, 0.5)
	for k := 60; k < len(step); k++ {
		step[k][0] -= 15
	}
	k = replayDrift(-3500, step)
	t.Logf("a step of 15 nats at evaluation 60: drift at %d", k)
	if k < 60 || k > 60+15 {
		t.Errorf("step of 15 nats at evaluation 60: drift at %d, want within 15 evaluations", k)
	}
}

// biasedNormal is a normal target, log p = −1000 − x²/2, whose gradient is
// biased by +c (as a step that cuts a skewed gradient's tail is biased):
// SGD carries q's mean from 0 to c, slowly, and its ELBO falls by about
// c²/2 from the best it had near 0, by far less than its own magnitude.
type biasedNormal struct{ c float64 }

func (t biasedNormal) LogJoint(x, grad []float64) (float64, error) {
	grad[0] = -x[0] + t.c
	return -1000 - 0.5*x[0]*x[0], nil
}

func (t biasedNormal) Clone() Target { return t }

// TestDriftGuard: the guard goes back to the best q when the evaluations
// fall slowly and steadily (biasedNormal, c = 8: 32 nats), which the
// divergence rule (a fall of the ELBO's magnitude, 1000) does not see,
// and the fit ends near that q instead of the drifted one; without the
// guard it ends at the mean c.
func TestDriftGuard(t *testing.T) {
	tg := biasedNormal{c: 8}
	lat := []Latent{{Name: "x", Size: 1, Shape: []int{}, Support: dist.Real}}
	s := Settings{Seed: 1, Workers: 1, Optimizer: SGD, StepSize: 0.002, StepDecay: -1, MaxIter: 20000, Tol: -1, PSISDraws: 1000}
	r, err := Fit(context.Background(), tg, lat, s)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Factors[0].Params[0][0]
	w := strings.Join(r.Warnings, "\n")
	t.Logf("guarded: %d rollbacks, %d iterations, mean %.3f, ELBO %.3f; warnings %q", r.Rollbacks, r.Iterations, m, r.ELBO, r.Warnings)
	if r.Rollbacks < 1 || strings.Count(w, "drifted down") != r.Rollbacks || strings.Contains(w, "diverged") {
		t.Errorf("%d rollbacks, warnings %q: want drift rollbacks only", r.Rollbacks, w)
	}
	if !(math.Abs(m) < 4) || !(r.ELBO > -1000-10) {
		t.Errorf("guarded: mean %g, ELBO %g: want q near the best one (mean near 0, ELBO near −1000.9)", m, r.ELBO)
	}
	s.MaxRollbacks = -1
	r, err = Fit(context.Background(), tg, lat, s)
	if err != nil {
		t.Fatal(err)
	}
	m = r.Factors[0].Params[0][0]
	t.Logf("unguarded: mean %.3f, ELBO %.3f", m, r.ELBO)
	if !(math.Abs(m-tg.c) < 0.5) || !(r.ELBO < -1000-25) {
		t.Errorf("unguarded: mean %g, ELBO %g: the test's target does not drift to its biased mean %g", m, r.ELBO, tg.c)
	}
}

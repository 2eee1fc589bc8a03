package sgvb

import (
	"context"
	"math"
	"strings"
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
	r, err := fit(0)
	if err != nil {
		t.Fatal(err)
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

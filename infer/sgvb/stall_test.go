package sgvb

import (
	"context"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// spikeTarget is a Target whose gradient, at its call number at, is
// multiplied by factor once (its log joint is not): the gradient spike of
// a draw far in q's tail, made deterministic. Clones share the count.
type spikeTarget struct {
	Target
	calls  *atomic.Int64
	at     int64
	factor float64
}

func (s *spikeTarget) LogJoint(x, grad []float64) (float64, error) {
	lp, err := s.Target.LogJoint(x, grad)
	if s.calls.Add(1) == s.at {
		for i := range grad {
			grad[i] *= s.factor
		}
	}
	return lp, err
}

func (s *spikeTarget) Clone() Target {
	c := *s
	c.Target = s.Target.Clone()
	return &c
}

// TestStallAfterSpike fits a normal with mean (3, −2) from q's default
// start, with the gradient of the 30th log joint multiplied by 10²⁰. The
// spike fills AdaDelta's mean square of the gradient, whose rate then
// collapses for thousands of steps, q stops moving, and its flat ELBO
// stopped the fit as converged far from the posterior (the stochastic-
// volatility fits of internal/pipeline's TestSVSweep, seeds 45 and 58,
// "converged" at ELBO −1510 and −706 against −314). The fit must see the
// stall, reset its optimizer (a warning says so) and reach the posterior
// means within 0.1.
func TestStallAfterSpike(t *testing.T) {
	sigma := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	g := newMVGauss([]float64{3, -2}, sigma, false)
	tg := &spikeTarget{Target: g, calls: new(atomic.Int64), at: 30, factor: 1e20}
	s := Settings{Seed: 1, Workers: 1}
	r, err := Fit(context.Background(), tg, g.latents(), s)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Factors[0].Mean()
	t.Logf("%d iterations, converged %v, ELBO %.3f, mean %.3f; warnings %q", r.Iterations, r.Converged, r.ELBO, m, r.Warnings)
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "had stopped moving") {
		t.Errorf("no stall warning: %q", r.Warnings)
	}
	if math.Abs(m[0]-3) > 0.1 || math.Abs(m[1]+2) > 0.1 {
		t.Errorf("q's mean %.3f, the posterior's (3, −2)", m)
	}
}

package sgvb

import (
	"context"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpplang/gpp/dist"
)

// poisoned is a target whose log joint drops by *drop nats: a final
// estimate far below the evaluations, as a heavy tail the evaluations'
// draws missed makes it, without the tail.
// With *nan set, every log joint is NaN.
type poisoned struct {
	Target
	drop *atomic.Int64
	nan  *atomic.Bool
}

func (p *poisoned) LogJoint(x, grad []float64) (float64, error) {
	lp, err := p.Target.LogJoint(x, grad)
	lp -= float64(p.drop.Load())
	if p.nan.Load() {
		lp = math.NaN()
	}
	return lp, err
}

func (p *poisoned) Clone() Target { c := *p; c.Target = p.Target.Clone(); return &c }

// TestAverageCheck: when the averaged q's final estimate lies far below
// the last evaluation, the last iterate is scored from the same draws and
// q is the better of the two, with a warning giving both; a healthy fit
// scores once and keeps the average.
func TestAverageCheck(t *testing.T) {
	lat := []Latent{{Name: "mu", Size: 1, Shape: []int{}, Support: dist.Real}}
	// run fits with the log joint dropped by first nats from the first
	// final estimate on, by second from the second on
	// (a first of -1: every final draw of the average non-finite)
	run := func(first, second int64) (*Result, int) {
		drop, nan := new(atomic.Int64), new(atomic.Bool)
		tg := &poisoned{Target: &normalNormal{y: []float64{1.2, 0.3, 2.5, 1.9, 0.7}, sigma: 1, s0: 10}, drop: drop, nan: nan}
		calls := 0
		s := Settings{Seed: 1, Workers: 1, PSISDraws: 500, ParetoKDraws: 500,
			Scoring: func(int, time.Duration, bool) {
				calls++
				drop.Store(map[int]int64{1: first, 2: second}[calls])
				nan.Store(calls == 1 && first < 0)
			}}
		r, err := Fit(context.Background(), tg, lat, s)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Converged {
			t.Fatalf("not converged: %q", r.Warnings)
		}
		return r, calls
	}
	healthy, calls := run(0, 0)
	if calls != 1 || healthy.Averaged == 0 || hasWarning(healthy, "averaged q") {
		t.Errorf("healthy fit: %d scorings, %d averaged, warnings %q; want 1, the average, none", calls, healthy.Averaged, healthy.Warnings)
	}
	// the average's estimate 50 nats low: the iterate is better
	r, calls := run(50, 0)
	last := r.Trace[len(r.Trace)-1]
	if calls != 2 || r.Averaged != 0 || !hasWarning(r, "so q is the last iterate") || !(last.ELBO-r.ELBO < 1) {
		t.Errorf("poisoned average: %d scorings, %d averaged, ELBO %g against the last evaluation's %g, warnings %q; want 2, the iterate, its ELBO",
			calls, r.Averaged, r.ELBO, last.ELBO, r.Warnings)
	}
	// the iterate's lower still: the average stays, with its own estimate
	r, calls = run(50, 60)
	last = r.Trace[len(r.Trace)-1]
	if calls != 2 || r.Averaged == 0 || !hasWarning(r, "so q stays the average") || !(last.ELBO-r.ELBO > 40) {
		t.Errorf("iterate lower: %d scorings, %d averaged, ELBO %g against %g, warnings %q; want 2, the average, its low ELBO",
			calls, r.Averaged, r.ELBO, last.ELBO, r.Warnings)
	}
	if d := r.ELBO - (healthy.ELBO - 50); !(math.Abs(d) < 1) {
		t.Errorf("iterate lower: ELBO %g; want the average's estimate, the healthy fit's %g − 50", r.ELBO, healthy.ELBO)
	}
	if r.Mean()[0] != healthy.Mean()[0] {
		t.Errorf("q kept as the average has mean %g, the healthy fit's %g", r.Mean()[0], healthy.Mean()[0])
	}
	// the average's final draws all non-finite: the iterate is q, and
	// the average's count of them, of a q not kept, is no warning
	r, calls = run(-1, 0)
	if calls != 2 || r.Averaged != 0 || !hasWarning(r, "from 500 draws is not a number, where the last evaluation's") || !hasWarning(r, "so q is the last iterate") || hasWarning(r, "draws had a non-finite log joint") || hasWarning(r, "heavy tail") || math.IsNaN(r.ELBO) {
		t.Errorf("non-finite average: %d scorings, %d averaged, ELBO %g, warnings %q; want 2, the iterate, a finite ELBO, no count of non-finite draws",
			calls, r.Averaged, r.ELBO, r.Warnings)
	}
}

// hasWarning reports whether one of r's warnings contains s.
func hasWarning(r *Result, s string) bool {
	for _, w := range r.Warnings {
		if strings.Contains(w, s) {
			return true
		}
	}
	return false
}

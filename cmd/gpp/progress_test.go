package main

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/check"
)

// TestProgressSpeed: the live line gives steps a second, or seconds a
// step below one a second, where "0 it/s" said nothing.
func TestProgressSpeed(t *testing.T) {
	for _, c := range []struct {
		iter    int
		elapsed time.Duration
		want    string
	}{
		{1200, time.Second, "  1200 it/s  ETA 6s"},
		{20, 30 * time.Second, "  1.5 s/it  ETA 21m30s"},
		{0, 0, "  0 it/s  ETA —"},
	} {
		line := progressLine(sgvb.Progress{Iter: c.iter, Elapsed: c.elapsed, ELBO: -1, SE: 0.1, RelChange: math.NaN()}, 740+c.iter*7, "", false)
		if !strings.HasSuffix(line, c.want) {
			t.Errorf("%d steps in %v: %q, want it to end %q", c.iter, c.elapsed, line, c.want)
		}
	}
}

// TestProgressRolledBack: a progress line whose relative change is
// missing after a rollback names it, one at the start does not; the
// rollback's own line is printed as it happens (sgvb.Settings.Rollback,
// through watchSteps), except with --quiet.
func TestProgressRolledBack(t *testing.T) {
	p := sgvb.Progress{Iter: 6000, ELBO: -1, SE: 0.1, RelChange: math.NaN(), RolledBack: 5500}
	if l := progressLine(p, 10000, "", false); !strings.Contains(l, "rel. change — (rolled back at 5500)") {
		t.Errorf("after a rollback: %q", l)
	}
	p.RolledBack = 0
	if l := progressLine(p, 10000, "", false); strings.Contains(l, "rolled back") {
		t.Errorf("no rollback: %q", l)
	}
	p.RelChange, p.RolledBack = 1e-3, 5500 // the window has filled again
	if l := progressLine(p, 10000, "", false); strings.Contains(l, "rolled back") {
		t.Errorf("a relative change after a rollback: %q", l)
	}
	for _, quiet := range []bool{false, true} {
		var b strings.Builder
		s := sgvb.Settings{MaxIter: 100, EvalEvery: 10, Method: sgvb.MAP}
		watchSteps(newConsole(&b, false, quiet, false), &s, &check.Info{}, nil)()
		s.Rollback(600, "the ELBO diverged at iteration 600")
		if got := strings.Contains(b.String(), "rollback: the ELBO diverged at iteration 600"); got == quiet {
			t.Errorf("quiet %v: %q", quiet, b.String())
		}
	}
}

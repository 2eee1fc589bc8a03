package pipeline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// slowODESrc is a model whose every evaluation is one long solve: the
// relaxation y' = −k (y − cos t) with k = 10⁵ is stiff, and the explicit
// solver's steps stay near its stability limit 3/k over t ∈ [0, 100],
// some 10⁷ steps (max_num_steps is above that), many seconds per
// evaluation.
const slowODESrc = `fn relax(t, y, k) {
  return -k * (y - cos(t))
}
param a: real ~ Normal(0, 1)
let y = ode_rk45_tol(relax, [a], 0, [100], 1e-6, 1e-6, 100000000, 100000)
target += logpdf(0.5, Normal(y[0, 0], 1))
`

// loadSlowODE loads slowODESrc.
func loadSlowODE(t *testing.T) *pipeline.Loaded {
	t.Helper()
	path := filepath.Join(t.TempDir(), "slow.gpp")
	if err := os.WriteFile(path, []byte(slowODESrc), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := pipeline.Load(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// odeStopWithin bounds how long a fit may take to stop after its context
// is cancelled 200 ms into a solve of slowODESrc: far below the solve's
// own time (TestSlowODEIsSlow), far above a check every 256 steps.
const odeStopWithin = 2 * time.Second

// TestSlowODEIsSlow checks the premise of the interruption tests without
// a clock: an evaluation of slowODESrc needs more than 10⁶ solver steps
// (with max_num_steps 10⁶ it fails for want of them), several seconds on
// any machine this runs on, and a fit of it without the stop flag many
// evaluations of that: minutes (9 min 43 s when the solver ignored the
// flag), against odeStopWithin.
func TestSlowODEIsSlow(t *testing.T) {
	if testing.Short() {
		t.Skip("a long ODE solve")
	}
	src := strings.Replace(slowODESrc, "100000000", "1000000", 1)
	if src == slowODESrc {
		t.Fatal("max_num_steps not found in slowODESrc")
	}
	path := filepath.Join(t.TempDir(), "capped.gpp")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := pipeline.Load(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, l.Model.Dim)
	g := make([]float64, l.Model.Dim)
	_, err = l.Model.LogJoint(x, g)
	if err == nil || !strings.Contains(err.Error(), "max_num_steps 1000000 reached") {
		t.Fatalf("an evaluation capped at 10⁶ steps: %v, want the step limit reached: the interruption tests would not test the interruption", err)
	}
}

// TestFitInterruptsODESolve cancels fits of slowODESrc 200 ms in, while
// an evaluation is solving, and checks that each returns within
// odeStopWithin, marked interrupted with no error: SGVB (its step-size
// search and its steps), MAP by L-BFGS, and --init path.
func TestFitInterruptsODESolve(t *testing.T) {
	if testing.Short() {
		t.Skip("long ODE solves")
	}
	cases := []struct {
		name string
		s    sgvb.Settings
	}{
		{"sgvb", sgvb.Settings{Seed: 1, MaxIter: 1000}},
		{"sgvb-fixed-step", sgvb.Settings{Seed: 1, MaxIter: 1000, StepSize: 0.1}},
		{"map", sgvb.Settings{Seed: 1, MaxIter: 1000, Method: sgvb.MAP}},
		{"path", sgvb.Settings{Seed: 1, MaxIter: 1000, InitPath: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := loadSlowODE(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			timer := time.AfterFunc(200*time.Millisecond, cancel)
			defer timer.Stop()
			start := time.Now()
			r, err := sgvb.Fit(ctx, pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), c.s)
			el := time.Since(start)
			if err != nil {
				t.Fatalf("interrupted fit returned error %v", err)
			}
			if !r.Interrupted {
				t.Errorf("the fit is not marked interrupted (%d iterations, warnings %q)", r.Iterations, r.Warnings)
			}
			if r.BadSteps != 0 {
				t.Errorf("the interrupted solve counted as %d bad steps", r.BadSteps)
			}
			if el > 200*time.Millisecond+odeStopWithin {
				t.Errorf("the fit stopped %v after its start, cancelled at 200 ms: the solve was not interrupted", el)
			}
		})
	}
}

// TestRestartsInterruptODESolve cancels two restarts of slowODESrc, run
// at once on clones of the model, 200 ms in: the mixture returns within
// odeStopWithin, marked interrupted, as is each restart.
func TestRestartsInterruptODESolve(t *testing.T) {
	if testing.Short() {
		t.Skip("long ODE solves")
	}
	l := loadSlowODE(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	timer := time.AfterFunc(200*time.Millisecond, cancel)
	defer timer.Stop()
	start := time.Now()
	m, err := sgvb.FitRestarts(ctx, pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), sgvb.Settings{Seed: 1, MaxIter: 1000}, sgvb.Restarts{N: 2, Parallel: 2})
	el := time.Since(start)
	if err != nil {
		t.Fatalf("interrupted restarts returned error %v", err)
	}
	if !m.Interrupted {
		t.Error("the mixture is not marked interrupted")
	}
	for r, c := range m.Components {
		if c == nil || !c.Interrupted {
			t.Errorf("restart %d is not marked interrupted", r)
		}
	}
	if el > 200*time.Millisecond+odeStopWithin {
		t.Errorf("the restarts stopped %v after their start, cancelled at 200 ms: the solves were not interrupted", el)
	}
}

package sgvb

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// partPD is the normal-normal model whose log density fails, with a
// positioned error, above x = above (a covariance positive definite for
// only part of a param's support).
type partPD struct {
	*normalNormal
	above float64
}

var partPDPos = ast.Pos{File: "model.gpp", Line: 12, Col: 5}

func (t *partPD) LogJoint(x, grad []float64) (float64, error) {
	if x[0] > t.above {
		grad[0] = math.NaN()
		return math.NaN(), ast.Errorf(partPDPos, "cholesky: matrix not positive definite (x = %.4g)", x[0])
	}
	return t.normalNormal.LogJoint(x, grad)
}

func (t *partPD) Clone() Target { c := *t; return &c }

// countFirst counts the warnings that name an error ("the first: ").
func countFirst(ws []string) int {
	n := 0
	for _, w := range ws {
		n += strings.Count(w, "the first: ")
	}
	return n
}

// TestBadStepsNameFirstError: a fit that skips steps whose draws fail and
// leaves failing ELBO draws out, but recovers, names each kind's first
// error once, with its position, in the warnings that count them.
func TestBadStepsNameFirstError(t *testing.T) {
	nn := &normalNormal{y: []float64{1.2, 0.3, 2.5, 1.9, 0.7}, sigma: 1, m0: 0, s0: 10}
	lat := []Latent{{Name: "mu", Size: 1, Shape: []int{}, Support: dist.Real}}
	r, err := Fit(context.Background(), &partPD{normalNormal: nn, above: 2.1}, lat, Settings{Seed: 1, Workers: 1})
	if err != nil {
		t.Fatalf("%v; warnings %q", err, r.Warnings)
	}
	t.Logf("%d bad steps, %d rollbacks; warnings %q", r.BadSteps, r.Rollbacks, r.Warnings)
	if r.BadSteps == 0 || r.StepErr == nil || r.EvalErr == nil {
		t.Fatalf("%d bad steps, step error %v, ELBO draw error %v: want both kinds of failure", r.BadSteps, r.StepErr, r.EvalErr)
	}
	all := strings.Join(r.Warnings, "\n")
	pos := "model.gpp:12:5: cholesky: matrix not positive definite (x = "
	for _, c := range []struct{ what, want string }{
		{"step", fmt.Sprintf("%d steps had a non-finite log joint or gradient and were skipped (the first: %v)", r.BadSteps, r.StepErr)},
		{"ELBO draw", fmt.Sprintf("ELBO draws had a non-finite log joint (the first: %v) and were left out", r.EvalErr)},
	} {
		if !strings.Contains(all, c.want) || !strings.Contains(c.want, pos) {
			t.Errorf("the first %s error: want %q in the warnings", c.what, c.want)
		}
	}
	if n := countFirst(r.Warnings); n != 2 {
		t.Errorf("%d errors named, want 2 (each kind's first, once)", n)
	}
}

// TestRollbackNamesFirstError: a run of failing steps that the fit goes
// back from names the first step's error in the rollback's warning (the
// progress stream's "rollback:" line, Settings.Rollback), and nowhere
// else; a cancellation is no cause to name.
func TestRollbackNamesFirstError(t *testing.T) {
	nn := &normalNormal{y: []float64{1.2, 0.3, 2.5, 1.9, 0.7}, sigma: 1, m0: 0, s0: 10}
	lat := []Latent{{Name: "mu", Size: 1, Shape: []int{}, Support: dist.Real}}
	tg := &failRun{outage: outage{normalNormal: nn, calls: new(atomic.Int64), from: new(atomic.Int64), to: new(atomic.Int64)}}
	tg.from.Store(math.MaxInt64)
	var rolled []string
	s := Settings{Seed: 1, Workers: 1, Progress: func(p Progress) {
		if p.Iter == 600 {
			n := tg.calls.Load()
			tg.from.Store(n)
			tg.to.Store(n + defaultMaxBad + 10)
		}
	}, Rollback: func(_ int, w string) { rolled = append(rolled, w) }}
	r, err := Fit(context.Background(), tg, lat, s)
	if err != nil {
		t.Fatalf("%v; warnings %q", err, r.Warnings)
	}
	want := "in a row; the first: model.gpp:3:9: ode: the solver gave up at call 0), went back to"
	if len(rolled) != 1 || !strings.Contains(rolled[0], want) {
		t.Errorf("rollback lines %q: want one with %q", rolled, want)
	}
	if n := countFirst(r.Warnings); n != 1 {
		t.Errorf("warnings %q: %d errors named, want the first step's once", r.Warnings, n)
	}
	for _, err := range []error{nil, context.Canceled, fmt.Errorf("draw 3: %w", context.DeadlineExceeded)} {
		if c := firstClause(err); c != "" {
			t.Errorf("firstClause(%v) = %q, want none", err, c)
		}
	}
}

// failRun is outage whose failing calls return a positioned error that
// counts them from the first.
type failRun struct{ outage }

func (t *failRun) LogJoint(x, grad []float64) (float64, error) {
	n := t.calls.Load()
	lp, err := t.outage.LogJoint(x, grad)
	if math.IsNaN(lp) {
		err = ast.Errorf(ast.Pos{File: "model.gpp", Line: 3, Col: 9}, "ode: the solver gave up at call %d", n-t.from.Load())
	}
	return lp, err
}

func (t *failRun) Clone() Target { c := *t; return &c }

// alwaysFail fails everywhere with the same positioned error.
type alwaysFail struct{ *normalNormal }

func (t *alwaysFail) LogJoint(x, grad []float64) (float64, error) {
	grad[0] = math.NaN()
	return math.NaN(), ast.Errorf(ast.Pos{File: "model.gpp", Line: 3, Col: 9}, "ode: the solver gave up")
}

func (t *alwaysFail) Clone() Target { c := *t; return &c }

// TestStopErrorNotRepeated: a fit stopped by failing steps returns the
// last one's error, which the caller prints; the warning of the stop does
// not repeat it as the first where the two read the same.
func TestStopErrorNotRepeated(t *testing.T) {
	nn := &normalNormal{y: []float64{1.2}, sigma: 1, m0: 0, s0: 10}
	lat := []Latent{{Name: "mu", Size: 1, Shape: []int{}, Support: dist.Real}}
	r, err := Fit(context.Background(), &alwaysFail{nn}, lat, Settings{Seed: 1, Workers: 1})
	if err == nil || err.Error() != "model.gpp:3:9: ode: the solver gave up" {
		t.Fatalf("error %v, want the Target's", err)
	}
	if r.StepErr == nil || countFirst(r.Warnings) != 0 {
		t.Errorf("step error %v, warnings %q: want it kept but not named again", r.StepErr, r.Warnings)
	}
}

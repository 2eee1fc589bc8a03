package pipeline_test

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/pipeline"
)

// TestDirMultUnderflow evaluates testdata/dirmult.gpp's log joint where an
// entry of the simplex param p is exp(c) for a log coordinate c far below
// 0, as a Dirichlet factor of tiny concentrations draws it (its draws are
// log gammas normalised in log space, so c itself is finite). Down to
// e^-708 the log joint and gradient are finite; below, kappa * p is
// subnormal, lgamma's value is finite and its derivative not, and below
// e^-745 the entry is 0, a pole of lgamma: each time a positioned error
// and a log joint or gradient that is not finite, which the fit skips as a
// bad step, never a finite number computed from a wrong point.
func TestDirMultUnderflow(t *testing.T) {
	l, err := pipeline.Load("testdata/dirmult.gpp", []string{"testdata/dirmult.json"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := l.Model
	x := make([]float64, m.Dim)
	g := make([]float64, m.Dim)
	var p int
	for _, lat := range m.Latents {
		switch lat.Name {
		case "p":
			p = lat.Offset
		case "theta":
			for i := range lat.Size {
				x[lat.Offset+i] = math.Log(1.0 / 3)
			}
		case "kappa":
			x[lat.Offset] = math.Log(10)
		}
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	allFinite := func(v []float64) bool {
		for _, e := range v {
			if !finite(e) {
				return false
			}
		}
		return true
	}
	for _, c := range []struct {
		logp float64
		want string // the error, "" for none
	}{
		{-700, ""},
		{-740, "dirmult.gpp:10:30: lgamma: gradient is NaN"},
		{-800, "dirmult.gpp:10:30: lgamma: argument 0 is a pole"},
		{-1e5, "dirmult.gpp:10:30: lgamma: argument 0 is a pole"},
	} {
		x[p], x[p+1], x[p+2] = 0, c.logp, c.logp // p = (1, e^c, e^c), normalised in log space
		lp, err := m.LogJoint(x, g)
		if c.want == "" {
			if err != nil || !finite(lp) || !allFinite(g) {
				t.Errorf("log p = %g: log joint %v, error %v, finite gradient %v; want finite", c.logp, lp, err, allFinite(g))
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("log p = %g: error %v, want %q", c.logp, err, c.want)
		}
		if finite(lp) && allFinite(g) {
			t.Errorf("log p = %g: finite log joint %v and gradient despite the error", c.logp, lp)
		}
	}
}

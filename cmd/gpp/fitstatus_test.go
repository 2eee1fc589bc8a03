package main

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// TestParetoLineNarrow: a k̂ that raises no alarm is followed by how many
// sds the table marks too small by the curvature, which k̂ can miss (a
// newcomer read "0.493 (good)" beside a hint of an sd 4.6× too small);
// with no marks, or with k̂'s own alarm, the line is k̂'s alone.
func TestParetoLineNarrow(t *testing.T) {
	cfg := &fitConfig{}
	for _, c := range []struct {
		k      float64
		narrow int
		want   string
	}{
		{0.493, 1, "Pareto k̂     0.493 (good); but 1 sd marked * above is too small by the curvature\n"},
		{0.45, 2, "Pareto k̂     0.45 (good); but 2 sds marked * above are too small by the curvature\n"},
		{0.493, 0, "Pareto k̂     0.493 (good)\n"},
		{0.9, 2, "Pareto k̂     0.9 (unreliable)\n"},
	} {
		r := &sgvb.Result{ParetoK: c.k, ParetoRelESS: 0.5, ParetoReading: sgvb.TailReading(c.k, 0.5), ELBO: -10, ELBOSE: 0.1}
		var b strings.Builder
		printFitStatus(&b, cfg, r, nil, nil, &drawSet{}, nil, c.narrow)
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("k̂ %v, %d marked: %q, want a line %q", c.k, c.narrow, b.String(), c.want)
		}
	}
}

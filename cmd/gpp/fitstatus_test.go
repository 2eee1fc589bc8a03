package main

import (
	"fmt"
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
		k             float64
		narrow, shown int
		want          string
	}{
		{0.493, 1, 1, "Pareto k̂     0.493 (good); but 1 sd marked * above is too small by the curvature\n"},
		{0.45, 2, 2, "Pareto k̂     0.45 (good); but 2 sds marked * above are too small by the curvature\n"},
		// elements past the table's 20 rows are not marked: the line
		// does not say they are
		{0.45, 30, 3, "Pareto k̂     0.45 (good); but 30 sds are too small by the curvature (3 marked * above)\n"},
		{0.45, 1, 0, "Pareto k̂     0.45 (good); but 1 sd is too small by the curvature (hint below)\n"},
		{0.493, 0, 0, "Pareto k̂     0.493 (good)\n"},
		{0.9, 2, 2, "Pareto k̂     0.9 (unreliable)\n"},
	} {
		r := &sgvb.Result{ParetoK: c.k, ParetoRelESS: 0.5, ParetoReading: sgvb.TailReading(c.k, 0.5, 1000), ELBO: -10, ELBOSE: 0.1}
		var b strings.Builder
		printFitStatus(&b, cfg, r, nil, nil, &drawSet{}, nil, c.narrow, c.shown)
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("k̂ %v, %d marked: %q, want a line %q", c.k, c.narrow, b.String(), c.want)
		}
	}
}

// TestTableMarksShown: the table marks with * the sds of the elements
// narrow names, by the table's names (labels here), and returns how many
// it marked: an element past the rows shown is not marked nor counted,
// so that the Pareto line does not say it is.
func TestTableMarksShown(t *testing.T) {
	const n = maxTableRows + 5
	v := variable{name: "u", family: "normal", shape: []int{n}, axes: [][]string{make([]string, n)}}
	for k := range n {
		v.axes[0][k] = fmt.Sprintf("P%02d", k)
		v.elems = append(v.elems, k)
	}
	ds := &drawSet{vars: []variable{v}}
	st := make([]stats, n)
	for k := range st {
		st[k] = stats{mean: 1, sd: 0.5, q5: 0, q50: 1, q95: 2}
	}
	narrow := map[string]bool{v.elemName(1): true, v.elemName(maxTableRows + 2): true}
	var b strings.Builder
	got := printTable(&b, &fitConfig{out: "o"}, drawsHeader{narrow: narrow}, ds, st)
	if got != 1 {
		t.Errorf("marked %d, want 1 (the other is past row %d):\n%s", got, maxTableRows, b.String())
	}
	if !strings.Contains(b.String(), "0.5*") || strings.Count(b.String(), "*") != 2 || !strings.Contains(b.String(), narrowNote) {
		t.Errorf("want one sd marked and the note:\n%s", b.String())
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.Contains(line, "0.5*") && !strings.Contains(line, v.elemName(1)) {
			t.Errorf("marked the wrong row %q, want %s's", line, v.elemName(1))
		}
	}
}

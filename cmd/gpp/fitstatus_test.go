package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
)

// TestParetoLineNarrow: a k̂ that raises no alarm is followed by how many
// sds the table marks too small by the curvature, which k̂ can miss (a
// newcomer read "0.493 (good)" beside a hint of an sd 4.6× too small);
// with no marks, or with k̂'s own alarm, the line is k̂'s alone. Outputs'
// sds are counted apart, as outputs' (a trial's line counted 12 log_lik
// elements past the rows shown as "12 sds" under a hint naming b0 alone).
func TestParetoLineNarrow(t *testing.T) {
	cfg := &fitConfig{}
	for _, c := range []struct {
		k    float64
		n    narrowTally
		want string
	}{
		{0.493, narrowTally{params: 1, shownParams: 1}, "Pareto k̂     0.493 (good); but 1 sd marked * above is too small by the curvature\n"},
		{0.45, narrowTally{params: 2, shownParams: 2}, "Pareto k̂     0.45 (good); but 2 sds marked * above are too small by the curvature\n"},
		// elements past the table's 20 rows are not marked: the line
		// does not say they are
		{0.45, narrowTally{params: 30, shownParams: 3}, "Pareto k̂     0.45 (good); but 30 sds are too small by the curvature (3 marked * above)\n"},
		{0.45, narrowTally{params: 1}, "Pareto k̂     0.45 (good); but 1 sd is too small by the curvature (hint below)\n"},
		{0.252, narrowTally{outputs: 12, outVars: []string{"log_lik"}}, "Pareto k̂     0.252 (good); but 12 output sds of log_lik are too small by the curvature (hint below)\n"},
		{0.252, narrowTally{outputs: 1, shownOutputs: 1, outVars: []string{"p"}}, "Pareto k̂     0.252 (good); but 1 output sd of p marked * above is too small by the curvature\n"},
		{0.3, narrowTally{params: 2, shownParams: 2, outputs: 30, shownOutputs: 4, outVars: []string{"mu", "log_lik"}},
			"Pareto k̂     0.3 (good); but 2 sds marked * above are too small by the curvature, and so are 30 output sds of mu and log_lik (4 marked * above)\n"},
		{0.493, narrowTally{}, "Pareto k̂     0.493 (good)\n"},
		{0.9, narrowTally{params: 2, shownParams: 2}, "Pareto k̂     0.9 (unreliable)\n"},
	} {
		r := &sgvb.Result{ParetoK: c.k, ParetoRelESS: 0.5, ParetoReading: sgvb.TailReading(c.k, 0.5, 1000), ELBO: -10, ELBOSE: 0.1}
		var b strings.Builder
		printFitStatus(&b, cfg, r, nil, nil, &drawSet{}, nil, c.n)
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("k̂ %v, %+v: %q, want a line %q", c.k, c.n, b.String(), c.want)
		}
	}
}

// TestNarrowTallyOutputs: the tally counts a param's and an output's
// elements that narrow names apart, past the rows shown too, and names
// the outputs; the table's marks come from printTable.
func TestNarrowTallyOutputs(t *testing.T) {
	const n = maxTableRows + 5
	ll := variable{name: "log_lik", family: "output", shape: []int{n}, output: true}
	for k := range n {
		ll.elems = append(ll.elems, k)
	}
	b := variable{name: "b0", family: "normal"}
	b.elems = []int{0}
	narrow := map[string]bool{ll.elemName(maxTableRows + 1): true, ll.elemName(maxTableRows + 3): true, b.elemName(0): true}
	got := tallyNarrow([]variable{b, ll}, narrow, narrowTally{shownParams: 1})
	if got.params != 1 || got.outputs != 2 || got.shownParams != 1 || got.shownOutputs != 0 || !slices.Equal(got.outVars, []string{"log_lik"}) {
		t.Errorf("tally %+v, want 1 param (shown), 2 outputs of log_lik (none shown)", got)
	}
	// the table counts its marks of outputs apart from params'
	narrow[ll.elemName(2)] = true
	ll.first = 1
	st := make([]stats, n+1)
	for k := range st {
		st[k] = stats{mean: 1, sd: 0.5, q5: 0, q50: 1, q95: 2}
	}
	var w strings.Builder
	shown := printTable(&w, &fitConfig{out: "o"}, drawsHeader{narrow: narrow}, &drawSet{vars: []variable{b, ll}}, st)
	if shown.shownParams != 1 || shown.shownOutputs != 1 {
		t.Errorf("marked %+v, want b0's and log_lik[2]'s:\n%s", shown, w.String())
	}
}

// TestOutputsCurvHint: output elements whose delta-method ratio reaches
// curvRatio are counted and the worst named in a hint of their own, so
// that the Pareto line's "(hint below)" for them is found; those read
// off q's settled scales, or below curvRatio, are not.
func TestOutputsCurvHint(t *testing.T) {
	cc := &curvCheck{
		outNames: []string{"log_lik[0]", "log_lik[1]", "log_lik[2]", "log_lik[3]", "log_lik[4]", "p"},
		outVar:   []string{"log_lik", "log_lik", "log_lik", "log_lik", "log_lik", "p"},
		outRatio: []float64{1.52, 1.2, 1.9, 1.6, 1.55, 3},
		outOff:   []bool{false, false, false, false, false, true},
	}
	h := outputsCurvHint(cc)
	for _, want := range []string{"4 elements of log_lik have sds at least 1.5× too small", "log_lik[2]'s 1.9×, log_lik[3]'s 1.6×, log_lik[4]'s 1.6× (and 1 more element)"} {
		if !strings.Contains(h, want) {
			t.Errorf("hint %q, want %q", h, want)
		}
	}
	if strings.Contains(h, "p's") {
		t.Errorf("hint %q names p, read off q's scales", h)
	}
	cc.outRatio = []float64{1.4, 1.2, 1.3, 1.1, 1.0, 3}
	if h := outputsCurvHint(cc); h != "" {
		t.Errorf("none at %v: hint %q", curvRatio, h)
	}
	if h := outputsCurvHint(nil); h != "" {
		t.Errorf("no check: hint %q", h)
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
	if got.shownParams != 1 || got.shownOutputs != 0 {
		t.Errorf("marked %+v, want 1 (the other is past row %d):\n%s", got, maxTableRows, b.String())
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

// TestCollapsedStatus: a fit whose evaluations settled while its final
// ELBO estimate collapsed (sgvb.Result.Collapsed: a random walk's noise
// scale whose gamma factor ended at shape 0.19, evaluations at −3.9·10²⁴
// and a final estimate of −4.3·10²⁹) does not read "converged" alone, and
// the hint names the gamma factors of small shape with the remedies (a
// healthy fit, or a collapse without such a factor, gets neither); fit.json
// says final_elbo_collapsed beside converged.
func TestCollapsedStatus(t *testing.T) {
	cfg := &fitConfig{tol: 1e-4}
	factors := []sgvb.Factor{
		{Name: "tau", Family: sgvb.FamilyGamma, Params: [][]float64{{35}, {100}}},
		{Name: "sigma", Family: sgvb.FamilyGamma, Params: [][]float64{{0.193}, {0.94}}},
		{Name: "m", Family: sgvb.FamilyNormal, Params: [][]float64{{0}, {1}}},
	}
	for _, c := range []struct {
		collapsed bool
		factors   []sgvb.Factor
		status    string
		hint      bool
	}{
		{false, factors, "iterations   2200 (converged)\n", false},
		{true, factors, "iterations   2200 (converged, but the final ELBO estimate collapsed)\n", true},
		{true, factors[:1], "iterations   2200 (converged, but the final ELBO estimate collapsed)\n", false},
	} {
		r := &sgvb.Result{Method: sgvb.SGVB, Converged: true, Collapsed: c.collapsed, Iterations: 2200, Factors: c.factors,
			ELBO: -4.25745e+29, ELBOSE: 4.3e29, ParetoK: 54.3, ParetoRelESS: 0.001, ParetoReading: "unreliable"}
		var b strings.Builder
		printFitStatus(&b, cfg, r, nil, nil, &drawSet{}, nil, narrowTally{})
		if !strings.Contains(b.String(), c.status) {
			t.Errorf("collapsed %v: status %q, want a line %q", c.collapsed, b.String(), c.status)
		}
		h := smallShapeHint(r, nil)
		if want := "the final ELBO estimate collapsed while the gamma factor of sigma ended at a shape of 2 or less (the least 0.193)"; c.hint != strings.HasPrefix(h, want) {
			t.Errorf("collapsed %v, %d factors: hint %q, want one %v starting %q", c.collapsed, len(c.factors), h, c.hint, want)
		}
		if c.hint && (!strings.Contains(h, "--family lognormal") || !strings.Contains(h, "--init path")) {
			t.Errorf("hint %q names no remedy", h)
		}
		js, err := json.Marshal(fitfile.OutcomeOf(r, 0.3))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(js), `"final_elbo_collapsed":true`); got != c.collapsed {
			t.Errorf("collapsed %v: fit.json's outcome %s", c.collapsed, js)
		}
	}
}

// TestFitEndCollapsed: a collapsed final estimate is said whether or not
// the fit converged; an interrupted fit says only that.
func TestFitEndCollapsed(t *testing.T) {
	for _, c := range []struct {
		converged, collapsed, interrupted bool
		tol                               float64
		want                              string
	}{
		{true, false, false, 1e-4, "converged"},
		{true, true, false, 1e-4, "converged, but the final ELBO estimate collapsed"},
		{false, true, false, 1e-4, "did not converge, but the final ELBO estimate collapsed"},
		{false, true, false, 0, "the fixed number asked, but the final ELBO estimate collapsed"},
		{false, true, true, 1e-4, "interrupted"},
	} {
		r := &sgvb.Result{Converged: c.converged, Collapsed: c.collapsed, Interrupted: c.interrupted}
		if got := fitEnd(&fitConfig{tol: c.tol}, r); got != c.want {
			t.Errorf("converged %v, collapsed %v, interrupted %v: %q, want %q", c.converged, c.collapsed, c.interrupted, got, c.want)
		}
	}
}

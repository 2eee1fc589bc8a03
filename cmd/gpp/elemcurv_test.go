package main

import (
	"context"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// ordCurvModel is an ordered param whose unconstrained density is normal:
// c[0] | a ~ N(0.9a, 0.19) with a ~ N(0, 1), and log gaps l_k = log(c[k]
// − c[k−1]) ~ N(0, 0.5²) (a log-normal gap's density times the
// transform's Jacobian e^l), independent of a and c[0].
const ordCurvModel = `param a: real ~ Normal(0, 1)
param c: ordered[3]
target += logpdf(c[0], Normal(0.9 * a, 0.4358898943540674))
target += logpdf(c[1] - c[0], LogNormal(0, 0.5))
target += logpdf(c[2] - c[1], LogNormal(0, 0.5))
`

// TestCurvatureOrderedElements: the curvature check's ratios are per
// unconstrained coordinate, c[0] and the log gaps for an ordered param,
// so c[k] past the first had no ratio and no mark (an ordinal trial's
// cutpoints: c[0] marked 11×, c[1..3] unmarked where NUTS's sds were
// 13×, 10× and 8.5× q's). Each element now gets the delta method's ratio
// through the transform, c[k] = c[0] + Σ_{j≤k} e^{l_j}: on this normal
// density √((1 + 0.25 Σ g_j²) / (0.19 + 0.25 Σ g_j²)) for the gaps g_j at
// q's mode, so c[1] is marked (about 1.6×) and c[2] not (about 1.4×).
func TestCurvatureOrderedElements(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "o.gpp", ordCurvModel)
	cfg, l, r := fitArgs(t, model)
	s := cfg.settings
	cc, skipped := meanFieldCurvature(context.Background(), s, l, r)
	if cc == nil {
		t.Fatalf("no curvature check: %s", skipped)
	}
	u := cc.c.Mode // a, c[0], l_1, l_2
	sum := 0.0
	want := []float64{math.Sqrt(1 / 0.19)}
	for _, lk := range u[2:] {
		sum += 0.25 * math.Exp(2*lk)
		want = append(want, math.Sqrt((1+sum)/(0.19+sum)))
	}
	if !slices.Equal(cc.elemNames, []string{"c[0]", "c[1]", "c[2]"}) {
		t.Fatalf("elements read %q, want c[0], c[1], c[2]", cc.elemNames)
	}
	for k, w := range want {
		if got := cc.elemRatio[k]; math.Abs(got-w) > curvRatioTol*w {
			t.Errorf("c[%d]'s ratio %.9g, want %.9g", k, got, w)
		}
	}
	if !(want[1] >= curvRatio && want[2] < curvRatio) {
		t.Fatalf("ratios %v: the test wants c[1]'s at least %g and c[2]'s below", want, curvRatio)
	}
	narrow, unchecked, _ := narrowSds(s, r, nil, cc)
	if !narrow["a"] || !narrow["c[0]"] || !narrow["c[1]"] || narrow["c[2]"] || len(narrow) != 3 || unchecked != nil {
		t.Errorf("marked %v, unchecked %v: want a, c[0] and c[1] marked *, nothing ?", narrow, unchecked)
	}
	if got := cc.maxByLatent()["c"]; math.Abs(float64(got)-want[0]) > curvRatioTol*want[0] {
		t.Errorf("meanfield_sd_ratio of c %v, want its largest element's %.9g", got, want[0])
	}
}

// TestFitOrderedMarks: the table marks c[1] of ordCurvModel, as well as
// c[0] (the table's reading of TestCurvatureOrderedElements).
func TestFitOrderedMarks(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "o.gpp", ordCurvModel)
	code, stdout, stderr := runSafe(t, "fit", model, "--out", filepath.Join(dir, "o"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for elem, marked := range map[string]bool{"c[0]": true, "c[1]": true, "c[2]": false} {
		row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(elem) + ` .*$`).FindString(stdout)
		if row == "" || strings.Contains(row, "*") != marked {
			t.Errorf("%s's row %q: want marked * %v; stdout\n%s", elem, row, marked, stdout)
		}
	}
	if strings.Contains(stdout, uncheckedNote) {
		t.Errorf("the ? note where nothing is unchecked:\n%s", stdout)
	}
}

// TestUncheckedNames: a partial check's left-out coordinates are
// unchecked elements where they are elements (sd), and an ordered
// param's elements that move with a left-out gap are (c[1], c[2]), not
// the gap's coordinate name; a full check has none.
func TestUncheckedNames(t *testing.T) {
	cc := &curvCheck{
		c:     &sgvb.Curvature{Ratio: []float64{2, math.NaN(), 5, math.NaN()}, Left: []bool{false, true, false, true}},
		names: []string{"c[0]", "log(c[1] - c[0])", "log(c[2] - c[1])", "sd"},
		lats:  []int{0, 0, 0, 1},
		r: &sgvb.Result{Factors: []sgvb.Factor{
			{Name: "c", Family: sgvb.FamilyOrdered, Size: 3},
			{Name: "sd", Family: sgvb.FamilyGamma, Size: 1, Offset: 3},
		}},
		elemNames: []string{"c[0]", "c[1]", "c[2]"},
		elemLat:   []string{"c", "c", "c"},
		elemRatio: []float64{2, math.NaN(), math.NaN()},
		elemOff:   []bool{false, false, false},
		elemLeft:  []bool{false, true, true},
	}
	if got := cc.uncheckedNames(); !slices.Equal(got, []string{"sd", "c[1]", "c[2]"}) {
		t.Errorf("unchecked %q, want sd, c[1], c[2]", got)
	}
	if got := cc.maxByLatent(); float64(got["c"]) != 2 || !math.IsNaN(float64(got["sd"])) {
		t.Errorf("meanfield_sd_ratio %v, want c 2 (its elements', not its gap's 5), sd NaN", got)
	}
	cc.c.Left = nil
	if got := cc.uncheckedNames(); got != nil {
		t.Errorf("a full check: unchecked %q", got)
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// TestMildMarks: the table marks an sd mildRatio to curvRatio times too
// small by the curvature ~ (a before-after study's treatment effect at
// 1.42×, NUTS 1.46×, had gone unmarked), one curvRatio times or more *,
// and the legend explains both; an element under mildRatio is unmarked.
func TestMildMarks(t *testing.T) {
	cc := &curvCheck{
		c:     &sgvb.Curvature{Ratio: []float64{1.6, 1.42, 1.1}, Partner: []int{1, 0, 0}, Corr: []float64{0.8, 0.8, 0.1}},
		names: []string{"a", "theta", "c"}, lats: []int{0, 1, 2},
		r: &sgvb.Result{Factors: []sgvb.Factor{{Name: "a", Size: 1}, {Name: "theta", Size: 1, Offset: 1}, {Name: "c", Size: 1, Offset: 2}}},
	}
	narrow, unchecked, mild := narrowSds(sgvb.Settings{}, cc.r, nil, cc)
	if len(narrow) != 1 || !narrow["a"] || len(mild) != 1 || !mild["theta"] || unchecked != nil {
		t.Fatalf("narrow %v, mild %v, unchecked %v: want a *, theta ~", narrow, mild, unchecked)
	}
	var marked narrowTally
	queried, nMild := 0, 0
	m := sdMarks{narrow, unchecked, mild}
	var cells []string
	for _, name := range []string{"a", "theta", "c"} {
		v := variable{name: name}
		cells = append(cells, sdCell("0.05", &v, 0, m, &marked, &queried, &nMild))
	}
	if strings.Join(cells, "|") != "0.05*|0.05~|0.05 " || nMild != 1 || marked.shownParams != 1 {
		t.Errorf("cells %q (%d ~, %d *): want 0.05*, 0.05~ and 0.05 padded", cells, nMild, marked.shownParams)
	}
	var b strings.Builder
	printMarkNotes(&b, marked.shownParams, queried, nMild)
	if !strings.Contains(b.String(), narrowNote+"\n") || !strings.Contains(b.String(), "~ q's sd is at least 1.25× (and under 1.5×) too small") {
		t.Errorf("legend %q: want the * and ~ lines", b.String())
	}
}

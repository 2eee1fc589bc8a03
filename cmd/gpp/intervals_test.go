package main

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/pipeline"
	"gonum.org/v1/plot/vg"
)

// TestIntervalOf: a row's numbers are the 5, 25, 50, 75 and 95 %
// quantiles of the finite draws, R's type 7 (numpy's default): of
// {1, 2, 3, 4, 10} 1.2, 2, 3, 4 and 8.8; of 0 … 100 the percentages
// themselves. NaN and infinite draws are left out and counted.
func TestIntervalOf(t *testing.T) {
	const quantileTol = 1e-15 // 4 + (3.8 − 3)·6 rounds to 8.799999999999999
	check := func(name string, got interval, want [5]float64, n, dropped int) {
		t.Helper()
		q := [5]float64{got.q5, got.q25, got.q50, got.q75, got.q95}
		for i := range q {
			if !(math.Abs(q[i]-want[i]) <= quantileTol*math.Abs(want[i])) && !(math.IsNaN(q[i]) && math.IsNaN(want[i])) {
				t.Errorf("%s: quantiles %v, want %v", name, q, want)
				break
			}
		}
		if got.n != n || got.dropped != dropped {
			t.Errorf("%s: n %d, dropped %d; want %d, %d", name, got.n, got.dropped, n, dropped)
		}
	}
	check("five", intervalOf([]float64{10, math.NaN(), 3, 1, math.Inf(1), 4, 2, math.Inf(-1)}), [5]float64{1.2, 2, 3, 4, 8.8}, 5, 3)
	hundred := make([]float64, 101)
	for i := range hundred {
		hundred[i] = float64((i * 37) % 101) // 0 … 100 shuffled
	}
	check("0 … 100", intervalOf(hundred), [5]float64{5, 25, 50, 75, 95}, 101, 0)
	check("near ±1e308", intervalOf([]float64{1.5e308, -1.5e308, 0}), [5]float64{-1.35e308, -0.75e308, 0, 0.75e308, 1.35e308}, 3, 0)
	check("one draw", intervalOf([]float64{2.5}), [5]float64{2.5, 2.5, 2.5, 2.5, 2.5}, 1, 0)
	check("constant", intervalOf([]float64{-3, -3, -3}), [5]float64{-3, -3, -3, -3, -3}, 3, 0)
	nan := math.NaN()
	check("no finite draw", intervalOf([]float64{nan, math.Inf(1)}), [5]float64{nan, nan, nan, nan, nan}, 0, 2)
}

// TestIntervalSegments: a row's thin line spans the 90 % interval and its
// thick line, drawn over it, the 50 % one.
func TestIntervalSegments(t *testing.T) {
	iv := intervalOf([]float64{1, 2, 3, 4, 10})
	got := intervalSegments(iv)
	want := [2]intervalSeg{{iv.q5, iv.q95, vg.Points(1)}, {iv.q25, iv.q75, vg.Points(4)}}
	if got != want || !(want[0].width < want[1].width) {
		t.Errorf("segments %+v, want %+v", got, want)
	}
}

// TestIntervalRange: a panel's x range pads the intervals' span by 5 %,
// puts a point in a range around it, and always has a finite, positive
// width: gonum's ticks never end on an infinite one.
func TestIntervalRange(t *testing.T) {
	for _, c := range []struct{ lo, hi, wantLo, wantHi float64 }{
		{2, 4, 1.9, 4.1}, {3, 3, 2.7, 3.3}, {0, 0, -1, 1}, {math.Inf(1), math.Inf(-1), 0, 1},
		{-1.7e308, 1.7e308, -math.MaxFloat64 / 2, math.MaxFloat64 / 2},
		{1.7e308, 1.7e308, math.MaxFloat64 / 4, math.MaxFloat64 / 2},
		{-1.7e308, -1.7e308, -math.MaxFloat64 / 2, -math.MaxFloat64 / 4},
	} {
		lo, hi := intervalRange(c.lo, c.hi)
		if math.Abs(lo-c.wantLo) > 1e-12*math.Abs(c.wantLo) || math.Abs(hi-c.wantHi) > 1e-12*math.Abs(c.wantHi) || !(hi-lo > 0) || math.IsInf(hi-lo, 0) {
			t.Errorf("intervalRange(%g, %g) = %g, %g; want %g, %g", c.lo, c.hi, lo, hi, c.wantLo, c.wantHi)
		}
	}
}

// scalarVars returns variables of the given numbers of elements (in
// their summary order), named p0, p1, …, their columns one after
// another, and an output after them.
func scalarVars(sizes ...int) []variable {
	var vars []variable
	first := 0
	for i, n := range sizes {
		v := variable{name: "p" + string(rune('0'+i%10)) + strings.Repeat("x", i/10), shape: []int{n}, first: first}
		for k := range n {
			v.elems = append(v.elems, k)
		}
		first += n
		vars = append(vars, v)
	}
	return append(vars, variable{name: "out", output: true, elems: []int{0}, first: first})
}

// TestIntervalGroups: the rows of intervals.png are the params' (no
// output), at most intervalMaxRows of them shared out so that small
// params show every element and large ones their first few, and at most
// intervalMaxPanels params; the heading and the panels' labels say what is
// left out.
func TestIntervalGroups(t *testing.T) {
	groups, params := intervalGroups(intervalPanels(scalarVars(1, 1, 8, 100, 4000), false, nil), intervalMaxRows, intervalMaxPanels)
	var shares []int
	rows := 0
	for _, g := range groups {
		shares = append(shares, len(g.elems))
		rows += len(g.elems)
	}
	if params.avail[0] != 5 || len(groups) != 5 || rows != intervalMaxRows || fmt.Sprint(shares) != "[1 1 8 25 25]" {
		t.Fatalf("%d of %d params, shares %v (%d rows), want 1 1 8 25 25", len(groups), params.avail[0], shares, rows)
	}
	big := groups[4]
	if big.elems[0].name != "p4[0]" || big.elems[24].name != "p4[24]" || big.elems[24].col != 1+1+8+100+24 {
		t.Errorf("the large param's rows: %v … %v", big.elems[0], big.elems[24])
	}
	if got := panelLabel(big); got != "p4: first 25 of 4000 elements" {
		t.Errorf("label %q", got)
	}
	if got := panelLabel(groups[2]); got != "p2" {
		t.Errorf("label %q", got)
	}
	if got := intervalTitle("draws", groups, params); !strings.Contains(got, "; 60 of their 4110 elements (all in summary.csv)") || strings.Contains(got, "params") {
		t.Errorf("title %q", got)
	}

	// every element when they fit
	groups, params = intervalGroups(intervalPanels(scalarVars(1, 1, 8), false, nil), intervalMaxRows, intervalMaxPanels)
	if len(groups) != 3 || params.avail[0] != 3 || len(groups[2].elems) != 8 || strings.Contains(intervalTitle("draws", groups, params), "of") {
		t.Errorf("3 small params: %d groups, title %q", len(groups), intervalTitle("draws", groups, params))
	}

	// more params than panels: the first intervalMaxPanels, a row each at least
	sizes := make([]int, 30)
	for i := range sizes {
		sizes[i] = 5
	}
	groups, params = intervalGroups(intervalPanels(scalarVars(sizes...), false, nil), intervalMaxRows, intervalMaxPanels)
	rows = 0
	for _, g := range groups {
		rows += len(g.elems)
		if len(g.elems) == 0 {
			t.Errorf("%s has no row", g.param)
		}
	}
	if len(groups) != intervalMaxPanels || params.avail[0] != 30 || rows != intervalMaxRows {
		t.Errorf("30 params: %d panels, %d rows", len(groups), rows)
	}
	if got := intervalTitle("draws", groups, params); !strings.Contains(got, "the first 24 of 30 params; 60 of their 120 elements") {
		t.Errorf("title %q", got)
	}
}

// intervalsPNGSize is the pixel size of intervals.png with panels of the
// given numbers of rows, with one series or with two (--against).
func intervalsPNGSize(rows []int, pair bool) (int, int) {
	ht, rowHt := intervalHeadHt, intervalRowHt
	if pair {
		ht, rowHt = ht+intervalLegendHt, intervalPairRowHt
	}
	for _, n := range rows {
		ht += vg.Length(n)*rowHt + intervalPanelHt
	}
	px := func(l vg.Length) int { return int(math.Round(float64(l/vg.Inch) * plotDPI)) }
	return px(intervalWidth), px(ht)
}

// countColor counts the pixels of img's panels (below its heading and
// legend) of exactly colour c: an interval's thick line is solid in its
// series' colour inside.
func countColor(img image.Image, c interface{ RGBA() (r, g, b, a uint32) }, pair bool) int {
	n := 0
	r0, g0, b0, a0 := c.RGBA()
	bd := img.Bounds()
	ht := intervalHeadHt
	if pair {
		ht += intervalLegendHt
	}
	head := int(math.Ceil(float64(ht/vg.Inch) * plotDPI))
	for y := bd.Min.Y + head; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, b, a := img.At(x, y).RGBA()
			if r == r0 && g == g0 && b == b0 && a == a0 {
				n++
			}
		}
	}
	return n
}

// TestPlotIntervalsEdges: intervals.png is drawn, a decodable PNG of the
// size its rows ask for, from the draws a run can give: NaN and infinite
// draws among finite ones (left out, the row says so), none finite (the
// row left empty), a constant element (its point), one draw, integer
// draws (an int output's), values near ±1e308, no params; with two series (--against) each
// row holds both, in their colours.
func TestPlotIntervalsEdges(t *testing.T) {
	const n = 50
	mixed, nan, cst, ints, lin := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		mixed[i], nan[i], cst[i], ints[i], lin[i] = float64(i), math.NaN(), 3, float64(i%4), float64(i)/10
		if i%7 == 0 {
			mixed[i] = math.Inf(1)
		}
		if i%11 == 0 {
			mixed[i] = math.NaN()
		}
	}
	ds := &drawSet{vars: scalarVars(1, 1, 1, 1, 3), cols: [][]float64{mixed, nan, cst, ints, lin, lin, lin, {1}}}
	one := &drawSet{vars: scalarVars(2), cols: [][]float64{{1}, {-2}, {5}}}
	huge := &drawSet{vars: scalarVars(2, 1), cols: [][]float64{{-1.7e308, 1.7e308}, {1e308, -1e308}, {1.7e308, 1.7e308}, {0}}}
	none := &drawSet{}
	for _, c := range []struct {
		name string
		ds   *drawSet
		rows []int
	}{{"edges", ds, []int{1, 1, 1, 1, 3}}, {"one draw", one, []int{2}}, {"near ±1e308", huge, []int{2, 1}}, {"no params", none, nil}} {
		for _, pair := range []bool{false, true} {
			groups, params := intervalGroups(intervalPanels(c.ds.vars, false, nil), intervalMaxRows, intervalMaxPanels)
			series := []intervalSeries{{"NUTS", intervalColor, func(e intervalElem) []float64 { return c.ds.cols[e.col] }}}
			if pair {
				series = append([]intervalSeries{{"SGVB q", intervalQColor, func(e intervalElem) []float64 {
					xs := c.ds.cols[e.col]
					out := make([]float64, len(xs))
					for i, x := range xs {
						out[i] = x + 1
					}
					return out
				}}}, series...)
			}
			var b bytes.Buffer
			if err := plotIntervals(&b, intervalTitle(c.name, groups, params), groups, series); err != nil {
				t.Errorf("%s (pair %v): %v", c.name, pair, err)
				continue
			}
			img, err := png.Decode(&b)
			if err != nil {
				t.Errorf("%s (pair %v): does not decode: %v", c.name, pair, err)
				continue
			}
			w, h := intervalsPNGSize(c.rows, pair)
			if bd := img.Bounds(); bd.Dx() != w || bd.Dy() != h {
				t.Errorf("%s (pair %v): %dx%d, want %dx%d", c.name, pair, bd.Dx(), bd.Dy(), w, h)
			}
			if c.name != "edges" {
				continue
			}
			blue, orange := countColor(img, intervalColor, pair), countColor(img, intervalQColor, pair)
			if blue < 100 || (orange < 100) != !pair {
				t.Errorf("%s (pair %v): %d pixels of the first series' colour, %d of q's", c.name, pair, blue, orange)
			}
		}
	}
}

// TestIntervalsFiles: gpp fit --plots and gpp sample --plots write
// intervals.png, fit.json listing it; a sample --against the fit draws
// q's intervals beside NUTS's, from the fit's draws.csv (its draws, not
// the mean row); a sample without --plots removes it.
func TestIntervalsFiles(t *testing.T) {
	dir := t.TempDir()
	fitOut, sampleOut := filepath.Join(dir, "fit"), filepath.Join(dir, "sample")
	code, stdout, stderr := runGpp("fit", "testdata/fit_predictive.gpp", "testdata/fit_predictive.csv", "--quiet", "--iter", "300", "--output-draws", "200", "--plots", "--out", fitOut)
	if code != exitOK {
		t.Fatalf("fit: exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "elbo.png intervals.png") {
		t.Errorf("fit's written line:\n%s", stdout)
	}
	if got := readFit(t, filepath.Join(fitOut, "fit.json")).Files; !strings.Contains(strings.Join(got, " "), " elbo.png intervals.png") {
		t.Errorf("fit.json files: %v", got)
	}
	ds := decodePNG(t, filepath.Join(fitOut, intervalsPlot))
	if countColor(ds, intervalColor, false) < 100 || countColor(ds, intervalQColor, false) != 0 {
		t.Errorf("fit's intervals.png: not one series")
	}

	args := []string{"sample", "testdata/fit_predictive.gpp", "testdata/fit_predictive.csv", "--quiet", "--chains", "2", "--warmup", "50", "--draws", "40", "--out", sampleOut}
	code, stdout, stderr = runGpp(append(args, "--plots", "--against", fitOut)...)
	if code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "pairs.png intervals.png") {
		t.Errorf("sample's written line:\n%s", stdout)
	}
	img := decodePNG(t, filepath.Join(sampleOut, intervalsPlot))
	if countColor(img, intervalColor, true) < 100 || countColor(img, intervalQColor, true) < 100 {
		t.Errorf("sample --against's intervals.png: not both series")
	}

	// q's draws are the fit's 200 draws, after its mean row, of a param
	// and of an int output's element
	lambda, yRep := &variable{name: "lambda"}, &variable{name: "y_rep", shape: []int{10}}
	elems := []intervalElem{{name: "lambda", v: lambda}, {name: "y_rep[2]", v: yRep, k: 1}}
	q, err := readDrawsColumns(filepath.Join(fitOut, drawsFile), elems)
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != len(elems) {
		t.Fatalf("%d of %d elements read", len(q), len(elems))
	}
	for _, e := range elems {
		if len(q[e.name]) != 200 {
			t.Errorf("%s: %d draws, want 200", e.name, len(q[e.name]))
		}
	}
	if iv := intervalOf(q["lambda"]); !(iv.q5 > 0 && iv.q5 < iv.q95) || iv.dropped != 0 {
		t.Errorf("lambda's q interval %+v", iv)
	}

	if code, _, stderr := runGpp(args...); code != exitOK {
		t.Fatalf("without --plots: exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(sampleOut, intervalsPlot)); err == nil {
		t.Errorf("%s of the earlier sample left in %s", intervalsPlot, sampleOut)
	}
}

// decodePNG decodes the PNG file at path, failing the test if it is not one.
func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// TestIntervalNote: a row's label says what was left out, and of which
// series when q and NUTS share the row.
func TestIntervalNote(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		xs   []float64
		who  string
		want string
	}{
		{[]float64{1, 2, 3}, "", ""},
		{[]float64{1, nan, 3, inf}, "", "2 non-finite left out"},
		{[]float64{1, nan, 3}, "NUTS", "NUTS: 1 non-finite left out"},
		{[]float64{nan, inf}, "SGVB q", "SGVB q: no finite draws"},
		{[]float64{nan}, "", "no finite draws"},
	} {
		if got := intervalOf(c.xs).note(c.who); got != c.want {
			t.Errorf("%v, %q: note %q, want %q", c.xs, c.who, got, c.want)
		}
	}
}

// TestPlotNotDrawn: a plot whose data gonum/plot cannot draw (replicates
// near ±MaxFloat64 overflow the density overlay) is left out with a
// warning, and the fit's other files are written, fit.json not listing
// it; the file of that name that an earlier fit drew goes with the commit.
// It used to cost the run every file.
func TestPlotNotDrawn(t *testing.T) {
	dir := t.TempDir()
	const src = "data N: int\ndata y: real[N]\nparam mu: real ~ Normal(0, 1)\ny ~ Normal(mu, 1)\noutput y_rep ~ Normal(mu + 0 * y, %s)\n"
	data := writeFile(t, dir, "y.csv", "y\n0.1\n0.3\n-0.2\n")
	out := filepath.Join(dir, "out")
	for _, sd := range []string{"1", "1e307"} {
		model := writeFile(t, dir, "m.gpp", fmt.Sprintf(src, sd))
		code, stdout, stderr := runGpp("fit", model, data, "--set", "N=3", "--plots", "--quiet", "--out", out)
		if code != exitOK {
			t.Fatalf("sd %s: exit %d:\n%s", sd, code, stderr)
		}
		_, err := os.Stat(filepath.Join(out, "ppc_y.png"))
		files := readFit(t, filepath.Join(out, "fit.json")).Files
		if sd == "1" {
			if err != nil || !slices.Contains(files, "ppc_y.png") {
				t.Fatalf("sd 1: ppc_y.png not written (%v; fit.json lists %v)", err, files)
			}
			continue
		}
		if !strings.Contains(stderr, "warning: ppc_y.png not drawn: ") {
			t.Errorf("no warning of ppc_y.png:\n%s", stderr)
		}
		if ws, _ := checkNotices(t, out, stderr); !slices.ContainsFunc(ws, func(w string) bool { return strings.HasPrefix(w, "ppc_y.png not drawn: ") }) {
			t.Errorf("fit.json warnings %q: want ppc_y.png's", ws)
		}
		if strings.Contains(stdout, "ppc_y.png") || !strings.Contains(stdout, "ppc_stat_y.png") {
			t.Errorf("written line:\n%s", stdout)
		}
		if !os.IsNotExist(err) {
			t.Errorf("the earlier fit's ppc_y.png is still there (%v)", err)
		}
		if slices.Contains(files, "ppc_y.png") || !slices.Contains(files, summaryFile) {
			t.Errorf("fit.json lists %v", files)
		}
	}
}

// namedVars returns variables of the given names and numbers of elements,
// their columns one after another: those after out outputs, the rest params.
func namedVars(out int, specs ...any) []variable {
	var vars []variable
	first := 0
	for i := 0; i < len(specs); i += 2 {
		name, n := specs[i].(string), specs[i+1].(int)
		v := variable{name: name, first: first, output: i/2 >= out, elems: allIndices(n)}
		if n > 1 {
			v.shape = []int{n}
		}
		first += n
		vars = append(vars, v)
	}
	return vars
}

// groupShares lists the panels of groups as name:rows.
func groupShares(groups []intervalGroup) string {
	var s []string
	for _, g := range groups {
		s = append(s, fmt.Sprintf("%s:%d", g.param, len(g.elems)))
	}
	return strings.Join(s, " ")
}

// TestIntervalPanelsOutputs: gpp fit's and gpp sample's intervals.png
// shows the outputs after the params, but log_lik and the replicates
// drawn by ~ (omitted); the rows and the panels are shared half and half
// between the params and the outputs when both need more, a block that
// needs less leaving the rest to the other, and within each as water
// fills vessels; the heading says what is left out.
func TestIntervalPanelsOutputs(t *testing.T) {
	// a hydrologist's GEV: per-gauge a and logsigma, return levels rl100
	vars := namedVars(4, "a", 40, "b", 1, "logsigma", 40, "xi_u", 1, "xi_out", 1, "rl100", 40, "log_lik", 400, "y_rep", 400)
	groups, n := intervalGroups(intervalPanels(vars, true, map[string]bool{"y_rep": true}), intervalMaxRows, intervalMaxPanels)
	if got, want := groupShares(groups), "a:14 b:1 logsigma:14 xi_u:1 xi_out:1 rl100:29"; got != want {
		t.Errorf("GEV rows %s, want %s", got, want)
	}
	if n.avail != [2]int{4, 2} || n.shown != n.avail {
		t.Errorf("GEV panels %+v", n)
	}
	rl := groups[5]
	if rl.elems[0].name != "rl100[0]" || rl.elems[28].name != "rl100[28]" || rl.elems[28].col != 83+28 || rl.total != 40 {
		t.Errorf("rl100's rows: %+v … %+v of %d", rl.elems[0], rl.elems[28], rl.total)
	}
	if got := intervalTitle("draws", groups, n); !strings.Contains(got, "; 60 of their 123 elements") || strings.Contains(got, "params") || strings.Contains(got, "outputs") {
		t.Errorf("GEV title %q", got)
	}
	// gpp fit's and gpp sample's choice: the same, or --plot-params's
	cfg := &fitConfig{intervalOmit: map[string]bool{"y_rep": true}}
	if g, _, err := chosenIntervals(cfg, vars); err != nil || groupShares(g) != groupShares(groups) {
		t.Errorf("gpp fit's rows %s (%v)", groupShares(g), err)
	}
	cfg.plotParams = []string{"rl100", "b"}
	if g, n, err := chosenIntervals(cfg, vars); err != nil || groupShares(g) != "rl100:40 b:1" || !n.chosen {
		t.Errorf("--plot-params rl100,b: rows %s (%v)", groupShares(g), err)
	}
	// without outputs (gpp fit --prior, gpp summary) the params have every row
	groups, _ = intervalGroups(intervalPanels(vars, false, nil), intervalMaxRows, intervalMaxPanels)
	if got, want := groupShares(groups), "a:29 b:1 logsigma:29 xi_u:1"; got != want {
		t.Errorf("params alone %s, want %s", got, want)
	}

	for _, c := range []struct {
		name string
		vars []variable
		want string
	}{
		{"few outputs leave the rest to the params", namedVars(1, "z", 100, "theta", 2), "z:58 theta:2"},
		{"few params leave the rest to the outputs", namedVars(1, "mu", 1, "theta", 100), "mu:1 theta:59"},
		{"outputs alone", namedVars(0, "theta", 100, "log_lik", 5), "theta:60"},
		{"a scalar log_lik is left out too", namedVars(1, "mu", 1, "log_lik", 1), "mu:1"},
	} {
		groups, _ := intervalGroups(intervalPanels(c.vars, true, nil), intervalMaxRows, intervalMaxPanels)
		if got := groupShares(groups); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}

	// 30 params and 3 outputs of 5 elements: the outputs' 3 panels, the params' first 21
	var specs []any
	for i := range 33 {
		specs = append(specs, fmt.Sprintf("v%d", i), 5)
	}
	groups, n = intervalGroups(intervalPanels(namedVars(30, specs...), true, nil), intervalMaxRows, intervalMaxPanels)
	if n.shown != [2]int{21, 3} || n.avail != [2]int{30, 3} || len(groups) != 24 || groups[21].param != "v30" {
		t.Errorf("33 panels: %+v, %s", n, groupShares(groups))
	}
	if got := intervalTitle("draws", groups, n); !strings.Contains(got, "; the first 21 of 30 params;") || strings.Contains(got, "outputs") {
		t.Errorf("title %q", got)
	}
	groups, n = intervalGroups(intervalPanels(namedVars(1, append([]any{"mu", 1}, specs...)...), true, nil), intervalMaxRows, intervalMaxPanels)
	if n.shown != [2]int{1, 23} || !strings.Contains(intervalTitle("draws", groups, n), "; the first 23 of 33 outputs") {
		t.Errorf("33 outputs: %+v, %q", n, intervalTitle("draws", groups, n))
	}
}

// TestChosenIntervalPanels: --plot-params chooses the rows of intervals.png
// as gpp summary --params chooses rows: a whole variable, param or output
// (log_lik and replicates too, when named), or one element by its label
// or index, in the order named, each element once; elements of one
// variable named together share a panel. An unknown name is an error.
func TestChosenIntervalPanels(t *testing.T) {
	vars := namedVars(1, "a0", 1, "z", 3, "theta", 3)
	vars[2].axes = [][]string{{"S00", "S01", "S02"}}
	ps, err := chosenIntervalPanels(vars, []string{"theta[S02]", "a0", "theta", "z[1]", "z[0]", "z.2", "z[1]", "a0"})
	if err != nil {
		t.Fatal(err)
	}
	groups, n := intervalGroups(ps, intervalMaxRows, intervalMaxPanels)
	n.chosen = true
	var names []string
	for _, g := range groups {
		var es []string
		for _, e := range g.elems {
			es = append(es, e.name)
		}
		names = append(names, strings.Join(es, ","))
	}
	if got, want := strings.Join(names, " | "), "theta[S02] | a0 | theta[S00],theta[S01] | z[1],z[0]"; got != want {
		t.Errorf("chosen rows %s, want %s", got, want)
	}
	if groups[3].elems[1].col != 1 || groups[0].elems[0].col != 6 {
		t.Errorf("columns %d, %d", groups[3].elems[1].col, groups[0].elems[0].col)
	}
	// z.2 is draws.csv's 1-based column of z[1], already named
	if len(groups[3].elems) != 2 || n.avail != [2]int{4, 0} {
		t.Errorf("%+v", n)
	}
	// more chosen panels than fit: "chosen" in the heading
	var many []string
	big := namedVars(0, "x", 1)
	for i := range 30 {
		big = append(big, variable{name: fmt.Sprintf("p%d", i), first: i + 1, elems: []int{0}})
		many = append(many, fmt.Sprintf("p%d", i))
	}
	ps, err = chosenIntervalPanels(big, many)
	if err != nil {
		t.Fatal(err)
	}
	groups, n = intervalGroups(ps, intervalMaxRows, intervalMaxPanels)
	n.chosen = true
	if got := intervalTitle("draws", groups, n); !strings.Contains(got, "; the first 24 of 30 chosen") {
		t.Errorf("title %q", got)
	}
	for _, bad := range []string{"nope", "theta[S09]", "a0[0]"} {
		if _, err := chosenIntervalPanels(vars, []string{bad}); err == nil || !strings.HasPrefix(err.Error(), "--plot-params: ") {
			t.Errorf("%s: error %v", bad, err)
		}
	}
}

// TestPlotParamsFlag: --plot-params splits at the commas outside brackets
// (an element W[0, 1] is one name), repeats, and refuses an empty name;
// it needs --plots, and gpp fit and gpp sample check its names against
// the model before the run.
func TestPlotParamsFlag(t *testing.T) {
	var names []string
	f := plotParamsFlag{&names}
	if err := f.Set("theta, W[0, 1]"); err != nil {
		t.Fatal(err)
	}
	if err := f.Set("a0"); err != nil {
		t.Fatal(err)
	}
	if got := f.String(); got != "theta,W[0, 1],a0" {
		t.Errorf("names %q", got)
	}
	if err := f.Set("a,,b"); err == nil {
		t.Errorf("an empty name taken")
	}

	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", "data y: real[N]\nparam mu: real ~ Normal(0, 1)\ny ~ Normal(mu, 1)\noutput y_rep ~ Normal(rep(mu, N), 1)\noutput log_lik = logpdf(y, Normal(rep(mu, N), 1))\noutput m2 = 2 * mu\n")
	csv := writeFile(t, d, "y.csv", "y\n0.5\n1.5\n-0.2\n")
	l, err := pipeline.Load(model, []string{csv}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &fitConfig{plots: true, plotParams: []string{"m2", "y_rep[2]", "mu"}}
	if err := preparePlots(cfg, l); err != nil {
		t.Errorf("good names: %v", err)
	}
	if fmt.Sprint(cfg.intervalOmit) != "map[y_rep:true]" || len(cfg.ppc) != 1 {
		t.Errorf("omitted %v, %d checks", cfg.intervalOmit, len(cfg.ppc))
	}
	for _, bad := range []string{"nu", "y_rep[3]"} {
		cfg.plotParams = []string{bad}
		if err := preparePlots(cfg, l); err == nil {
			t.Errorf("%s taken", bad)
		}
	}

	out := filepath.Join(d, "out")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"fit", model, csv, "--plot-params", "mu", "--out", out}, exitUsage, "add --plots"},
		{[]string{"sample", model, csv, "--plot-params", "mu", "--out", out}, exitUsage, "add --plots"},
		{[]string{"fit", model, csv, "--plots", "--plot-params", "nu", "--out", out}, exitError, "--plot-params: the draws have no nu"},
		{[]string{"sample", model, csv, "--plots", "--plot-params", "mu,nu", "--out", out}, exitError, "--plot-params: the draws have no nu"},
	} {
		code, _, stderr := runGpp(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s written by a refused run", out)
	}
}

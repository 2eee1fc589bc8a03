package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/compile"
	"gonum.org/v1/gonum/stat/distuv"
)

// logWeights returns the log of the weights ws normalised.
func logWeights(ws ...float64) []float64 {
	t := 0.0
	for _, w := range ws {
		t += w
	}
	out := make([]float64, len(ws))
	for i, w := range ws {
		out[i] = math.Log(w / t)
	}
	return out
}

// TestLooPIT: the weighted PIT on cases worked by hand.
func TestLooPIT(t *testing.T) {
	cases := []struct {
		name     string
		lw, rep  []float64
		y        float64
		discrete bool
		u        float64
		want     float64
	}{
		// weights ½, ¼, ⅛, ⅛ at 1, 2, 3, 4: P(ỹ ≤ 2.5) = ¾
		{"weighted", logWeights(4, 2, 1, 1), []float64{1, 2, 3, 4}, 2.5, false, 0, 0.75},
		// a tie counts as ≤: P(ỹ ≤ 2) = ¾
		{"tie", logWeights(4, 2, 1, 1), []float64{1, 2, 3, 4}, 2, false, 0, 0.75},
		// discrete: P(ỹ < 2) + u·P(ỹ = 2) = ½ + 0.3·¼
		{"discrete", logWeights(4, 2, 1, 1), []float64{1, 2, 3, 4}, 2, true, 0.3, 0.5 + 0.3*0.25},
		// all weight on one draw, at 3: P(ỹ ≤ 2.5) = 0, P(ỹ ≤ 3) = 1
		{"one draw below", []float64{math.Inf(-1), math.Inf(-1), 0, math.Inf(-1)}, []float64{1, 2, 3, 4}, 2.5, false, 0, 0},
		{"one draw at", []float64{math.Inf(-1), math.Inf(-1), 0, math.Inf(-1)}, []float64{1, 2, 3, 4}, 3, false, 0, 1},
		{"one draw discrete", []float64{math.Inf(-1), math.Inf(-1), 0, math.Inf(-1)}, []float64{1, 2, 3, 4}, 3, true, 0.6, 0.6},
		// a NaN replicate leaves the draw out: weights 4, 1, 1 over 1, 3, 4
		{"nan", logWeights(4, 2, 1, 1), []float64{1, math.NaN(), 3, 4}, 3.5, false, 0, 5.0 / 6},
	}
	for _, c := range cases {
		if got := looPIT(c.lw, c.rep, c.y, c.discrete, c.u); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: looPIT = %v, want %v", c.name, got, c.want)
		}
	}
	if got := looPIT([]float64{0}, []float64{math.Inf(1)}, 1, false, 0); !math.IsNaN(got) {
		t.Errorf("no finite replicate: %v, want NaN", got)
	}
}

// sortedSample returns n sorted draws of d.
func sortedSample(n int, d interface{ Rand() float64 }) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = d.Rand()
	}
	slices.Sort(x)
	return x
}

// TestPITBand: for uniform samples the ECDF stays inside the band in about
// 95 % of seeded replicates (each replicate's band simulated afresh: 400
// replicates, 378 expected, binomial sd ≈ 4.4 plus the band's own Monte
// Carlo error), and a sample from a too-narrow predictive, Beta(0.5, 0.5)
// PIT values, leaves it.
func TestPITBand(t *testing.T) {
	const n, reps = 100, 400
	rng := rand.New(rand.NewPCG(7, 8))
	b := newPITBand(n, pitBandSims, rng)
	for k := range b.z {
		if b.lo[k] > b.hi[k] || b.lo[k] < 0 || b.hi[k] > n {
			t.Fatalf("band at %v: %d..%d", b.z[k], b.lo[k], b.hi[k])
		}
	}
	// The simultaneous band is wider than a pointwise 95 % interval at the middle.
	if mid := len(b.z) / 2; b.hi[mid]-b.lo[mid] <= 20 {
		t.Errorf("band at %v: %d..%d, no wider than the pointwise 50 ± 1.96·5", b.z[mid], b.lo[mid], b.hi[mid])
	}
	inside := 0
	u := distuv.Uniform{Min: 0, Max: 1, Src: rand.New(rand.NewPCG(9, 10))}
	for range reps {
		x := sortedSample(n, u)
		if b.inside(b.counts(x)) {
			inside++
		}
	}
	t.Logf("uniform samples inside the band: %d of %d", inside, reps)
	if inside < 360 || inside > 394 {
		t.Errorf("uniform samples inside the band: %d of %d, want about 95 %%", inside, reps)
	}
	narrow := distuv.Beta{Alpha: 0.5, Beta: 0.5, Src: rand.New(rand.NewPCG(11, 12))}
	x := sortedSample(n, narrow)
	if b.inside(b.counts(x)) {
		t.Error("Beta(0.5, 0.5) PIT values stay inside the band")
	}
}

// TestPITBandSmall: the band keeps its level where the counts are few
// and their tail probabilities tie (n = 5): a sample whose smallest tail
// probability equals γ is inside on either side, as the simulation that
// chose γ counted it (2000 uniform samples, sd of the share ≈ 0.005).
func TestPITBandSmall(t *testing.T) {
	const n, reps = 5, 2000
	b := newPITBand(n, pitBandSims, rand.New(rand.NewPCG(1, 2)))
	u := distuv.Uniform{Min: 0, Max: 1, Src: rand.New(rand.NewPCG(3, 4))}
	inside := 0
	for range reps {
		if b.inside(b.counts(sortedSample(n, u))) {
			inside++
		}
	}
	if share := float64(inside) / reps; share < 0.94 {
		t.Errorf("n = %d: %.4f of uniform samples inside the band, want at least 0.94 (band %v..%v)", n, share, b.lo, b.hi)
	}
}

// TestPITShape: the verdict on synthetic PIT sets of known miscalibration.
func TestPITShape(t *testing.T) {
	src := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		d    distuv.Beta
		want string
	}{
		{distuv.Beta{Alpha: 0.5, Beta: 0.5, Src: src}, "too narrow"},
		{distuv.Beta{Alpha: 3, Beta: 3, Src: src}, "too wide"},
		{distuv.Beta{Alpha: 1, Beta: 3, Src: src}, "too high"},
		{distuv.Beta{Alpha: 3, Beta: 1, Src: src}, "too low"},
	} {
		if got := pitShape(sortedSample(200, c.d)); !strings.Contains(got, c.want) {
			t.Errorf("Beta(%v, %v): %q, want %q", c.d.Alpha, c.d.Beta, got, c.want)
		}
	}
	// uniform at both quartiles, clumped between them: no shape to name
	clumped := []float64{0.1, 0.2, 0.26, 0.27, 0.28, 0.29, 0.76, 0.8}
	if got := pitShape(clumped); !strings.Contains(got, "no simple shape") {
		t.Errorf("ECDF − u 0 at both quartiles: %q", got)
	}
}

// pitModel is a normal regression with a replicate and log_lik; %s is
// sigma's declaration: a param, or a constant far too small for the data.
const pitModel = `data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 10)
param b: real ~ Normal(0, 10)
%s
y ~ Normal(a + b * x, sigma)
output log_lik = logpdf(y, Normal(a + b * x, sigma))
output y_rep ~ Normal(a + b * x, sigma)
`

// pitData writes n values of x, standard normal, and y = x/2 + a
// standard normal error to a CSV in d.
func pitData(t *testing.T, d string, n int) string {
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("x,y\n")
	for range n {
		x := rng.NormFloat64()
		fmt.Fprintf(&b, "%.6f,%.6f\n", x, x/2+rng.NormFloat64())
	}
	return writeFile(t, d, "pit.csv", b.String())
}

// TestLooPITPlots: gpp fit and gpp sample --plots write loo_pit_y.png for
// a model with a replicate and log_lik, list it in fit.json and on the
// console (and for the bundled examples/ordinal.gpp, int data); a model whose sigma is fixed far too small gets the "too
// narrow" note; without --plots the file is removed.
func TestLooPITPlots(t *testing.T) {
	d := t.TempDir()
	good := writeFile(t, d, "good.gpp", fmt.Sprintf(pitModel, "param sigma: positive ~ HalfNormal(5)"))
	bad := writeFile(t, d, "bad.gpp", fmt.Sprintf(pitModel, "let sigma = 0.25"))
	data := pitData(t, d, 80)
	run := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runSafe(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return stdout
	}
	fitArgs := []string{"--quiet", "--iter", "400", "--output-draws", "400", "--plots"}
	sampleArgs := []string{"--quiet", "--chains", "2", "--warmup", "200", "--draws", "200", "--plots"}
	for _, how := range []struct {
		cmd  string
		args []string
	}{{"fit", fitArgs}, {"sample", sampleArgs}} {
		out := filepath.Join(d, how.cmd)
		stdout := run(append([]string{how.cmd, good, data, "--out", out}, how.args...)...)
		if !strings.Contains(stdout, " loo_pit_y.png") {
			t.Errorf("%s: written line:\n%s", how.cmd, stdout)
		}
		if strings.Contains(stdout, "LOO-PIT") {
			t.Errorf("%s: a calibrated model has a LOO-PIT note:\n%s", how.cmd, stdout)
		}
		decodePNG(t, filepath.Join(out, "loo_pit_y.png"))
		if how.cmd == "fit" {
			if got := readFit(t, filepath.Join(out, "fit.json")).Files; !slices.Contains(got, "loo_pit_y.png") {
				t.Errorf("fit.json files: %v", got)
			}
		}
		badOut := filepath.Join(d, how.cmd+"-bad")
		stdout = run(append([]string{how.cmd, bad, data, "--out", badOut}, how.args...)...)
		if !strings.Contains(stdout, "LOO-PIT of y leaves the 95 % band: the predictive distributions are too narrow") {
			t.Errorf("%s: too small a sigma, no note:\n%s", how.cmd, stdout)
		}
		decodePNG(t, filepath.Join(badOut, "loo_pit_y.png"))
		if how.cmd == "fit" {
			// a bundled model of int data: the randomised PIT
			ord := filepath.Join(d, "ordinal")
			run("fit", filepath.Join("..", "..", "examples", "ordinal.gpp"), filepath.Join("..", "..", "examples", "ordinal.csv"), "--quiet", "--plots", "--out", ord)
			decodePNG(t, filepath.Join(ord, "loo_pit_y.png"))
		}
		// without --plots the check goes with the other plots
		run(append([]string{how.cmd, good, data, "--out", out}, how.args[:len(how.args)-1]...)...)
		if _, err := os.Stat(filepath.Join(out, "loo_pit_y.png")); !os.IsNotExist(err) {
			t.Errorf("%s without --plots: loo_pit_y.png left behind (%v)", how.cmd, err)
		}
	}
}

// TestPITChecksWeights: pitChecks weights each observation's replicate
// draws by exp(lr − ll) (fewer than 21 draws: normalised, not smoothed),
// reading y at log_lik's elements, and notes a log_lik of another shape.
func TestPITChecksWeights(t *testing.T) {
	l := math.Log
	ds := &drawSet{
		vars: []variable{
			{name: looOutput, output: true, shape: []int{2}, elems: []int{0, 1}, first: 0},
			{name: "y_rep", output: true, shape: []int{2}, elems: []int{0, 1}, first: 2},
		},
		cols: [][]float64{
			{l(1), l(2), l(4), l(4)}, {0, 0, 0, 0}, // log_lik
			{1, 2, 3, 4}, {4, 3, 2, 1}, // y_rep
		},
		loo:    &sgvb.LOO{},
		looObs: []int{0, 1},
	}
	ds.pitDraws = &looDraws{lr: []float64{l(2), 0, 0, 0}, ll: [][]float64{ds.cols[0], ds.cols[1]}}
	m := ppcMatch{data: "y", output: "y_rep", values: []float64{2.5, 1.5}}
	cs := pitChecks([]ppcMatch{m}, ds, 1)
	if len(cs) != 1 || cs[0].note != "" {
		t.Fatalf("checks: %+v", cs)
	}
	// y[1] = 2.5: weights ∝ 2/1, 1/2, 1/4, 1/4 = 2/3, 1/6, 1/12, 1/12 on 1, 2, 3, 4: 5/6.
	// y[2] = 1.5: weights ∝ 2, 1, 1, 1 on 4, 3, 2, 1: 1/5.
	want := []float64{1.0 / 5, 5.0 / 6}
	for i, p := range cs[0].pit {
		if math.Abs(p-want[i]) > 1e-12 {
			t.Errorf("pit %v, want %v", cs[0].pit, want)
			break
		}
	}

	ds.pits = nil
	ds.vars[0].shape, ds.vars[0].elems = []int{}, []int{0}
	cs = pitChecks([]ppcMatch{m}, ds, 1)
	if len(cs) != 1 || !strings.Contains(cs[0].note, "no LOO-PIT of y: log_lik has 1 element of shape (scalar), y 2 of shape [2]") {
		t.Errorf("scalar log_lik: %+v", cs)
	}
}

// TestPITChecksIntReplicate: an int replicate's PIT is randomised whatever
// y's type (a tie at y falls between P(ỹ < y) and P(ỹ ≤ y), not at the
// latter), and a fit's replicate reads its output draws then the values
// recorded at the defensive draws (pitRep).
func TestPITChecksIntReplicate(t *testing.T) {
	ds := &drawSet{
		vars: []variable{
			{name: looOutput, output: true, shape: []int{2}, elems: []int{0, 1}, first: 0},
			{name: "y_rep", output: true, shape: []int{2}, elems: []int{0, 1}, first: 2},
		},
		cols: [][]float64{
			{0, 0}, {0, 0}, // log_lik at the output draws
			{1, 2}, {2, 2}, // y_rep at the output draws
		},
		loo:    &sgvb.LOO{},
		looObs: []int{0, 1},
	}
	ll := []float64{0, 0, 0, 0} // two output draws, two defensive ones: equal weights
	ds.pitDraws = &looDraws{lr: make([]float64, 4), ll: [][]float64{ll, ll},
		rep: map[string]pitRep{"y_rep": {own: ds.cols[2:4], extra: [][]float64{{3, 4}, {3, 3}}}}}
	// y real, replicate int: y[0] = 2 over 1, 2, 3, 4 lies in (¼, ½);
	// y[1] = 2 over 2, 2, 3, 3 in (0, ½).
	m := ppcMatch{data: "y", output: "y_rep", values: []float64{2, 2}, intRep: true}
	cs := pitChecks([]ppcMatch{m}, ds, 1)
	if len(cs) != 1 || cs[0].note != "" || len(cs[0].pit) != 2 {
		t.Fatalf("checks: %+v", cs)
	}
	p0, p1 := cs[0].pit[0], cs[0].pit[1]
	okA := p0 > 0 && p0 < 0.5 && p1 > 0.25 && p1 < 0.5
	okB := p1 > 0 && p1 < 0.5 && p0 > 0.25 && p0 < 0.5
	if !okA && !okB || p0 == 0.5 || p1 == 0.5 {
		t.Errorf("int replicate's PIT %v: want randomised in (¼, ½) and (0, ½)", cs[0].pit)
	}
}

// TestCheckDrawsSizeReplicates: a replicate of log_lik's shape counts
// twice, as log_lik does (the LOO-PIT keeps it at the defensive draws).
func TestCheckDrawsSizeReplicates(t *testing.T) {
	m := &compile.Model{Dim: 1, Outputs: []compile.Output{
		{Name: looOutput, Shape: []int{10}}, {Name: "y_rep", Shape: []int{10}}, {Name: "s", Shape: nil},
	}}
	// 1 + 2 + 2·10 + 2·10 + 1 = 44 columns
	err := checkDrawsSize(autodiff.MaxElements/44+1, 1, m)
	if err == nil || !strings.Contains(err.Error(), "draws of 44 columns") {
		t.Errorf("err %v, want 44 columns", err)
	}
	if err := checkDrawsSize(autodiff.MaxElements/44, 1, m); err != nil {
		t.Error(err)
	}
}

// TestPITNoteFlagged: a LOO-PIT outside its band reads as a verdict on the
// predictive distributions only where its PSIS weights are reliable; with
// more than looUnreliableShare of its observations flagged, or the draws'
// own weights p/q heavy-tailed, it is no verdict (a trial's correct
// horseshoe, 100 of 100 flagged, read "too narrow"); with a few flagged,
// the note counts them.
func TestPITNoteFlagged(t *testing.T) {
	shape := "the predictive distributions are too narrow (PIT values pile up at 0 and 1)"
	c := pitCheck{m: ppcMatch{data: "y"}, pit: make([]float64, 100), outside: true, shape: shape, qk: math.NaN()}
	verdict := "LOO-PIT of y leaves the 95 % band: " + shape
	noVerdict := "its reading, that " + shape + ", is no verdict on the model"
	for _, tc := range []struct {
		flagged int
		qk      float64
		want    string
	}{
		{0, math.NaN(), verdict},
		{0, 0.5, verdict},
		{10, math.NaN(), verdict + " (Pareto k̂ above 0.7 for 10 of its 100 observations, whose PIT values are less sure)"},
		{11, math.NaN(), "LOO-PIT of y leaves the 95 % band, but Pareto k̂ is above 0.7 for 11 of its 100 observations: the PSIS weights"},
		{100, 2.47, "for 100 of its 100 observations, and the draws' own weights p/q have k̂ 2.47: the PSIS weights"},
		{0, 0.8, "for 0 of its 100 observations, and the draws' own weights p/q have k̂ 0.8"},
	} {
		c.flagged, c.qk = tc.flagged, tc.qk
		got := pitNote(c)
		if doubt := tc.flagged > 10 || tc.qk > 0.7; !strings.Contains(got, tc.want) || doubt != strings.Contains(got, noVerdict) {
			t.Errorf("%d flagged, q's k̂ %g: %q, want %q (no verdict: %v)", tc.flagged, tc.qk, got, tc.want, doubt)
		}
	}
	// pitChecks counts the flagged observations among its PIT values
	l := math.Log
	ds := &drawSet{
		vars: []variable{
			{name: looOutput, output: true, shape: []int{2}, elems: []int{0, 1}, first: 0},
			{name: "y_rep", output: true, shape: []int{2}, elems: []int{0, 1}, first: 2},
		},
		cols:   [][]float64{{l(1), l(2), l(4), l(4)}, {0, 0, 0, 0}, {1, 2, 3, 4}, {4, 3, 2, 1}},
		loo:    &sgvb.LOO{QK: 0.3, Points: []sgvb.LOOPoint{{K: 0.9}, {K: 0.5}}},
		looObs: []int{0, 1},
	}
	ds.pitDraws = &looDraws{ll: [][]float64{ds.cols[0], ds.cols[1]}}
	cs := pitChecks([]ppcMatch{{data: "y", output: "y_rep", values: []float64{2.5, 1.5}}}, ds, 1)
	if len(cs) != 1 || cs[0].flagged != 1 || cs[0].qk != 0.3 {
		t.Errorf("checks: %+v, want 1 flagged, q's k̂ 0.3", cs)
	}
}

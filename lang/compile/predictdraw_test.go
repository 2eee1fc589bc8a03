package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// checkSrc parses and checks src as m.gpp.
func checkSrc(t *testing.T, src string) (*ast.File, *check.Info) {
	t.Helper()
	f, err := parser.ParseFile("m.gpp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	info, err := check.Check(f, &check.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return f, info
}

// compilePredictSrc compiles src in predict mode on the inputs, binding
// as gpp predict does (the data that predict does not read optional, a
// size given by sets bound).
func compilePredictSrc(t *testing.T, src string, inputs []data.Input, sets map[string]string, opt PredictOptions) (*Model, error) {
	t.Helper()
	f, info := checkSrc(t, src)
	reads := PredictReads(f, info)
	optional := map[string]bool{}
	for _, d := range info.Data {
		if _, set := sets[d.Name]; reads[d.Name] == nil && !(d.Implicit && set) {
			optional[d.Name] = true
		}
	}
	bound, err := data.BindCoded(info, inputs, sets, optional, nil, nil) // as gpp predict binds
	if err != nil {
		t.Fatal(err)
	}
	return CompilePredictOptions(f, info, bound, opt)
}

// drawMoments evaluates m's output k at coordinates x over n draws of the
// replicate stream and returns each element's mean and standard deviation.
func drawMoments(t *testing.T, m *Model, k int, x []float64, n int) (mean, sd []float64) {
	t.Helper()
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(3, 4)))
	ev.SetDrawRand(rand.New(rand.NewPCG(7, 8)))
	var s1, s2 []float64
	for range n {
		_, outs, err := ev.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		if s1 == nil {
			s1, s2 = make([]float64, len(outs[k])), make([]float64, len(outs[k]))
		}
		for i, v := range outs[k] {
			s1[i] += v
			s2[i] += v * v
		}
	}
	mean, sd = make([]float64, len(s1)), make([]float64, len(s1))
	for i := range s1 {
		mean[i] = s1[i] / float64(n)
		sd[i] = math.Sqrt(s2[i]/float64(n) - mean[i]*mean[i])
	}
	return mean, sd
}

// checkDrawMoments checks draws' means and sds against want (n draws of
// normals: the mean within predictSE standard errors, the sd within
// predictSE of its own standard error sd/√(2n)).
func checkDrawMoments(t *testing.T, what string, mean, sd, wantMean, wantSD []float64, n int) {
	t.Helper()
	if len(mean) != len(wantMean) {
		t.Fatalf("%s has %d elements, want %d", what, len(mean), len(wantMean))
	}
	for i := range mean {
		if se := wantSD[i] / math.Sqrt(float64(n)); math.Abs(mean[i]-wantMean[i]) > predictDrawSE*se {
			t.Errorf("%s[%d]: mean %.4f, want %.4f ± %.4f", what, i, mean[i], wantMean[i], predictDrawSE*se)
		}
		if se := wantSD[i] / math.Sqrt(2*float64(n)); math.Abs(sd[i]-wantSD[i]) > predictDrawSE*se {
			t.Errorf("%s[%d]: sd %.4f, want %.4f ± %.4f", what, i, sd[i], wantSD[i], predictDrawSE*se)
		}
	}
}

// predictDrawSE is how many standard errors a drawn moment may be from
// its value.
const predictDrawSE = 4.5

// TestPredictDrawsLeftOut: a regression whose new data leave out y draws
// y from its ~ at each evaluation, as an output named y after the model's
// outputs, with mean a + b·x and sd s at fixed params; whole (y ~ D) and
// in a loop (y[i] ~ D), the same. Given y, nothing is drawn; with
// Draw: none, neither.
func TestPredictDrawsLeftOut(t *testing.T) {
	const head = `data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 1)
param b: real ~ Normal(0, 1)
param s: positive ~ Gamma(2, 2)
`
	xs := []float64{-1, 0, 2}
	in := []data.Input{{File: "new.csv", Table: csvTable(t, "new.csv", "x", [][]float64{{xs[0]}, {xs[1]}, {xs[2]}})}}
	x := []float64{0.5, 2, math.Log(0.3)} // a, b, log s
	want, wantSD := make([]float64, 3), []float64{0.3, 0.3, 0.3}
	for i, v := range xs {
		want[i] = 0.5 + 2*v
	}
	const n = 20000
	for _, c := range []struct{ body, at string }{
		{"y ~ Normal(a + b * x, s)\noutput m = a + b * x\n", "m.gpp:6:1"},
		{"for i in 0:N {\n  y[i] ~ Normal(a + b * x[i], s)\n}\noutput m = a + b * x\n", "m.gpp:7:3"},
	} {
		body := c.body
		m, err := compilePredictSrc(t, head+body, in, nil, PredictOptions{})
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		names := []string{}
		for _, o := range m.Outputs {
			names = append(names, o.Name)
		}
		if !slices.Equal(names, []string{"m", "y"}) || !slices.Equal(m.Outputs[1].Shape, []int{3}) {
			t.Fatalf("%s: outputs %v (y %v), want [m y], y [3]", body, names, m.Outputs[len(m.Outputs)-1].Shape)
		}
		if len(m.Drawn) != 1 || m.Drawn[0] != "y is not in the data: drawn from its likelihood at each draw ("+c.at+"), as a posterior predictive" {
			t.Errorf("%s: Drawn %q", body, m.Drawn)
		}
		mean, sd := drawMoments(t, m, 1, x, n)
		checkDrawMoments(t, "y", mean, sd, want, wantSD, n)
	}

	src := head + "y ~ Normal(a + b * x, s)\noutput m = a + b * x\n"
	m, err := compilePredictSrc(t, src, in, nil, PredictOptions{Draw: []string{}})
	if err != nil || len(m.Outputs) != 1 || len(m.Drawn) != 0 {
		t.Errorf("Draw none: %v, %d outputs, Drawn %q; want m alone", err, len(m.Outputs), m.Drawn)
	}
	withY := []data.Input{{File: "new.csv", Table: csvTable(t, "new.csv", "x,y", [][]float64{{1, 2}, {3, 4}})}}
	m, err = compilePredictSrc(t, src, withY, nil, PredictOptions{})
	if err != nil || len(m.Outputs) != 1 || len(m.Drawn) != 0 {
		t.Errorf("y given: %v, %d outputs, Drawn %q; want m alone", err, len(m.Outputs), m.Drawn)
	}
	if _, err := compilePredictSrc(t, src, withY, nil, PredictOptions{Draw: []string{"y"}}); err == nil || !strings.Contains(err.Error(), "--draw y: y is in the data given") {
		t.Errorf("--draw y with y given: %v", err)
	}
	if _, err := compilePredictSrc(t, src, in, nil, PredictOptions{Draw: []string{"z"}}); err == nil || !strings.Contains(err.Error(), "no data declaration z") {
		t.Errorf("--draw z: %v", err)
	}
}

// TestPredictDrawsMvNormalRows: GPFA's outcome Y ~ MvNormalRows(0, Σ), a
// matrix [N, D] whose N only Y binds (so --set N=4 gives it), is drawn
// with its shape: each row has mean 0 and covariance Σ = W W' + I/prec.
// Without N the draw is a note naming --set N=..., and an error when
// --draw names Y.
func TestPredictDrawsMvNormalRows(t *testing.T) {
	const src = `data Y: real[N, 2]
param w: real[2] ~ Normal(0, 1)
param prec: positive ~ Gamma(2, 1)
Y ~ MvNormalRows(0, w * w' + I(2) / prec)
output c = w[0] * w[1]
`
	m, err := compilePredictSrc(t, src, nil, map[string]string{"N": "4"}, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Outputs) != 2 || m.Outputs[1].Name != "Y" || !slices.Equal(m.Outputs[1].Shape, []int{4, 2}) {
		t.Fatalf("outputs %+v, want c and Y [4, 2]", m.Outputs)
	}
	w0, w1, prec := 1.0, -0.5, 2.0
	x := []float64{w0, w1, math.Log(prec)}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(5, 6)))
	ev.SetDrawRand(rand.New(rand.NewPCG(9, 10)))
	const n = 20000
	var s00, s11, s01, m0 float64
	for range n {
		_, outs, err := ev.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		y := outs[1]
		for r := range 4 {
			a, b := y[2*r], y[2*r+1]
			s00 += a * a
			s11 += b * b
			s01 += a * b
			m0 += a
		}
	}
	k := float64(4 * n)
	want := [3]float64{w0*w0 + 1/prec, w1*w1 + 1/prec, w0 * w1}
	got := [3]float64{s00 / k, s11 / k, s01 / k}
	for i := range got {
		// the variance of a product of two normals is at most 2·max var²
		if se := math.Sqrt(2/k) * math.Max(want[0], want[1]); math.Abs(got[i]-want[i]) > predictDrawSE*se {
			t.Errorf("Σ entry %d: %.4f, want %.4f ± %.4f", i, got[i], want[i], predictDrawSE*se)
		}
	}
	if se := math.Sqrt(want[0] / k); math.Abs(m0/k) > predictDrawSE*se {
		t.Errorf("mean of Y[, 0] %.4f, want 0 ± %.4f", m0/k, predictDrawSE*se)
	}

	m, err = compilePredictSrc(t, src, nil, nil, PredictOptions{})
	if err != nil || len(m.Outputs) != 1 || len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "Y is not in the data and is not drawn: its size N is not bound: only Y would bind it; give it with --set N=... to draw Y") {
		t.Errorf("without N: %v, %d outputs, warnings %q", err, len(m.Outputs), m.Warnings)
	}
	_, err = compilePredictSrc(t, src, nil, nil, PredictOptions{Draw: []string{"Y"}})
	if err == nil || !strings.Contains(err.Error(), "m.gpp:1:6: --draw Y: Y cannot be drawn: its size N is not bound") || !strings.Contains(err.Error(), "--set N=...") {
		t.Errorf("--draw Y without N: %v", err)
	}
}

// TestPredictDrawsCannot: the left-out data that cannot be drawn get a
// note saying why, and are not drawn, a warning where the reason is an
// input that the data leave out too (a covariate its ~ reads, which they
// could give: drawing y is what predict is mostly for); when Draw names
// them, an error.
func TestPredictDrawsCannot(t *testing.T) {
	const head = `data x: real[3]
data y: real[3]
param a: real ~ Normal(0, 1)
param s: positive ~ Gamma(2, 2)
`
	in := []data.Input{{File: "new.csv", Table: csvTable(t, "new.csv", "x", [][]float64{{1}, {2}, {3}})}}
	notes := []struct{ body, note string }{
		{"target += -0.5 * sum(square(y - a))\n",
			"y is not in the data and is not drawn: no ~ observes y or its elements (y ~ D(...), y[i] ~ D(...)), and what reads it (at m.gpp:5:29: a target +=, a logcdf, or a ~ on an expression of it) has no distribution of y to draw from; write output y_rep ~ D(...) to draw one"},
		{"target += sum(logccdf(y, Normal(a, s)))\n",
			"no ~ observes y or its elements"},
		{"data z: real[3]\ny ~ Normal(a * x, s) T[z, ]\n",
			"y is not in the data and is not drawn: its ~ at m.gpp:6:1 reads z, which is not in the data either: give z to draw y"},
		{"fn my_lpdf(v, m, sc) = -0.5 * ((v - m) / sc) ^ 2 - log(sc)\ny ~ my(a, s)\n",
			"y is not in the data and is not drawn: its ~ at m.gpp:6:1 is the user density my, which has no sampler; draw a replicate as an output instead: output y_rep ~ D(...) where a built-in distribution D fits, else by the inverse CDF of a uniform draw, output u ~ Uniform(rep(0, 3), 1) and output y_rep = F⁻¹(u) with my's quantile function written out"},
		{"data z: real[3]\ny ~ Normal(a * z, s)\n",
			"y is not in the data and is not drawn: its ~ at m.gpp:6:1 reads z, which is not in the data either: give z to draw y"},
		{"for i in 1:3 {\n  y[i] ~ Normal(a * y[i - 1], s)\n}\n",
			"its ~ at m.gpp:6:3 reads y itself (an autoregression)"},
	}
	for _, c := range notes {
		m, err := compilePredictSrc(t, head+c.body, in, nil, PredictOptions{})
		if err != nil {
			t.Errorf("%s: %v", c.body, err)
			continue
		}
		said, other := m.Notes, m.Warnings
		if strings.Contains(c.note, "not in the data either") {
			said, other = m.Warnings, m.Notes
		}
		if len(m.Outputs) != 0 || len(m.Drawn) != 0 || len(said) == 0 || !strings.Contains(said[len(said)-1], c.note) || slices.ContainsFunc(other, func(n string) bool { return strings.Contains(n, c.note) }) {
			t.Errorf("%s: %d outputs, drawn %q, notes %q, warnings %q; want %q as a warning where an input is left out, else a note", c.body, len(m.Outputs), m.Drawn, m.Notes, m.Warnings, c.note)
		}
		_, err = compilePredictSrc(t, head+c.body, in, nil, PredictOptions{Draw: []string{"y"}})
		if err == nil || !strings.Contains(err.Error(), "m.gpp:2:6: --draw y: y cannot be drawn: ") {
			t.Errorf("%s with --draw y: %v, want an error at y", c.body, err)
		}
	}
	const multi = "data y: int<lower=0>[2, 3]\nparam a: real ~ Normal(0, 1)\ny ~ MultinomialLogit([0, 1, 2])\n"
	m, err := compilePredictSrc(t, multi, nil, nil, PredictOptions{})
	if err != nil || len(m.Outputs) != 0 || len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "its ~ at m.gpp:3:1 leaves out MultinomialLogit's number of trials n") {
		t.Errorf("Multinomial without n: %v, notes %q", err, m.Notes)
	}
	m, err = compilePredictSrc(t, strings.Replace(multi, "2])", "2], 5)", 1), nil, nil, PredictOptions{})
	if err != nil || len(m.Outputs) != 1 || !slices.Equal(m.Outputs[0].Shape, []int{2, 3}) {
		t.Errorf("Multinomial(theta, 5): %v, outputs %+v; want y [2, 3]", err, m.Outputs)
	} else if ev, err := m.NewEvaluator(); err != nil {
		t.Error(err)
	} else {
		ev.SetDrawRand(rand.New(rand.NewPCG(1, 1)))
		_, outs, _ := ev.Eval(make([]float64, m.Dim))
		if y := outs[0]; y[0]+y[1]+y[2] != 5 || y[3]+y[4]+y[5] != 5 {
			t.Errorf("Multinomial(theta, 5) draw %v: each row must total 5", y)
		}
	}

	// Found while lowering the ~ statements: notes too, and errors at
	// the ~ or the declaration when Draw names y.
	lowered := []struct{ body, note, err string }{
		{"y ~ Normal(a * x, s)\ny ~ Normal(0, 10)\n",
			"y is not in the data and is not drawn: y[0] is observed by two ~ (at m.gpp:5:1 and m.gpp:6:1), whose product has no sampler",
			"m.gpp:6:1: --draw y: y cannot be drawn: y[0] is observed by two ~"},
		{"for i in 0:2 {\n  y[i] ~ Normal(a * x[i], s)\n}\n",
			"y is not in the data and is not drawn: no ~ observes y[2] (the ~ statements on y cover 2 of its 3 elements)",
			"m.gpp:2:6: --draw y: y cannot be drawn: no ~ observes y[2]"},
	}
	for _, c := range lowered {
		m, err := compilePredictSrc(t, head+c.body, in, nil, PredictOptions{})
		if err != nil || len(m.Outputs) != 0 || len(m.Drawn) != 0 || len(m.Notes) != 1 || m.Notes[0] != c.note {
			t.Errorf("%s: %v, %d outputs, drawn %q, notes %q; want the note %q", c.body, err, len(m.Outputs), m.Drawn, m.Notes, c.note)
		}
		if _, err := compilePredictSrc(t, head+c.body, in, nil, PredictOptions{Draw: []string{"y"}}); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s with --draw y: %v, want %q", c.body, err, c.err)
		}
	}
}

// TestPredictDrawsShapes: the arguments of a drawn ~ are broadcast to
// its left side as the density broadcasts them: a scalar Poisson rate to
// y [N] (ints, mean λ), a shared row of log-odds to each of z [N], and a
// loop over the rows of Y [N, 2] ~ MvNormal(mu, Σ) with mu [2] and Σ = I + 0.5 assembles
// the matrix row by row.
func TestPredictDrawsShapes(t *testing.T) {
	const src = `data y: int<lower=0>[N]
data z: int<lower=0, upper=2>[N]
data Y: real[N, 2]
param lambda: positive ~ Gamma(2, 1)
param mu: real[2] ~ Normal(0, 1)
y ~ Poisson(lambda)
z ~ CategoricalLogit([0, 1, 2])
for i in 0:N {
  Y[i] ~ MvNormal(mu, I(2) + 0.5)
}
`
	m, err := compilePredictSrc(t, src, nil, map[string]string{"N": "3"}, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range m.Outputs {
		got = append(got, fmt.Sprint(o.Name, o.Shape))
	}
	if want := []string{"y[3]", "z[3]", "Y[3 2]"}; !slices.Equal(got, want) {
		t.Fatalf("outputs %v, want %v", got, want)
	}
	x := []float64{math.Log(4), 1, -2} // lambda, mu
	const n = 20000
	mean, sd := drawMoments(t, m, 0, x, n)
	checkDrawMoments(t, "y", mean, sd, []float64{4, 4, 4}, []float64{2, 2, 2}, n)
	mean, _ = drawMoments(t, m, 1, x, n)
	p := []float64{math.Exp(0), math.Exp(1), math.Exp(2)}
	ez, vz := (p[1]+2*p[2])/(p[0]+p[1]+p[2]), (p[1]+4*p[2])/(p[0]+p[1]+p[2])
	vz -= ez * ez
	for i, v := range mean {
		if se := math.Sqrt(vz / n); math.Abs(v-ez) > predictDrawSE*se {
			t.Errorf("z[%d]: mean %.4f, want %.4f ± %.4f", i, v, ez, predictDrawSE*se)
		}
	}
	mean, sd = drawMoments(t, m, 2, x, n)
	s := math.Sqrt(1.5)
	checkDrawMoments(t, "Y", mean, sd, []float64{1, -2, 1, -2, 1, -2}, []float64{s, s, s, s, s, s}, n)
}

// TestPredictDrawsPartial: data given with missing cells (NA) has just
// those cells drawn from its ~, the given ones kept as they are; a
// row-wise family's missing cells are not drawn (a note, or an error
// when Draw names the data).
func TestPredictDrawsPartial(t *testing.T) {
	const src = `data x: real[3]
data y: real[3]
param a: real ~ Normal(0, 1)
param s: positive ~ Gamma(2, 2)
y ~ Normal(a * x, s)
`
	tab, err := data.ReadCSV("new.csv", strings.NewReader("x,y\n1,5\n2,NA\n3,7\n"))
	if err != nil {
		t.Fatal(err)
	}
	in := []data.Input{{File: "new.csv", Table: tab}}
	m, err := compilePredictSrc(t, src, in, nil, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Outputs) != 1 || m.Outputs[0].Name != "y" || len(m.Drawn) != 1 ||
		m.Drawn[0] != "y has 1 missing value in the data: it is drawn from its likelihood at each draw (m.gpp:5:1), as a posterior predictive, and its given values kept" {
		t.Fatalf("outputs %+v, drawn %q", m.Outputs, m.Drawn)
	}
	const n = 20000
	mean, sd := drawMoments(t, m, 0, []float64{1.5, math.Log(0.5)}, n)
	if mean[0] != 5 || mean[2] != 7 || sd[0] > 1e-6 || sd[2] > 1e-6 {
		t.Errorf("given cells drawn: means %v, sds %v, want 5 and 7 exactly", mean, sd)
	}
	checkDrawMoments(t, "y[1]", mean[1:2], sd[1:2], []float64{3}, []float64{0.5}, n)

	// An int count's missing cells too: predict fits nothing, so they are
	// no discrete latent (gpp fit refuses them), and log_lik, which has no
	// value at them, is left out.
	const counts = `data x: real[3]
data y: int<lower=0>[3]
param a: real ~ Normal(0, 1)
y ~ Poisson(exp(a * x))
output log_lik = logpdf(y, Poisson(exp(a * x)))
`
	tab, err = data.ReadCSV("new.csv", strings.NewReader("x,y\n1,5\n2,NA\n3,7\n"))
	if err != nil {
		t.Fatal(err)
	}
	in = []data.Input{{File: "new.csv", Table: tab}}
	m, err = compilePredictSrc(t, counts, in, nil, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Outputs) != 1 || m.Outputs[0].Name != "y" || len(m.Notes) != 1 || m.Notes[0] != "output log_lik reads y, which the new data give with 1 missing value: left out" {
		t.Fatalf("outputs %+v, notes %q", m.Outputs, m.Notes)
	}
	mean, sd = drawMoments(t, m, 0, []float64{math.Log(3) / 2}, n)
	if mean[0] != 5 || mean[2] != 7 || sd[0] > 1e-6 || sd[2] > 1e-6 {
		t.Errorf("given counts drawn: means %v, sds %v, want 5 and 7 exactly", mean, sd)
	}
	checkDrawMoments(t, "y[1]", mean[1:2], sd[1:2], []float64{3}, []float64{math.Sqrt(3)}, n)

	const mv = `data Y: real[2, 2]
param mu: real[2] ~ Normal(0, 1)
Y ~ MvNormalRows(mu', I(2))
`
	tab, err = data.ReadCSV("new.csv", strings.NewReader("a,b\n1,NA\n2,3\n"))
	if err != nil {
		t.Fatal(err)
	}
	in = []data.Input{{Name: "Y", File: "new.csv", Table: tab}}
	m, err = compilePredictSrc(t, mv, in, nil, PredictOptions{})
	if err != nil || len(m.Outputs) != 0 || len(m.Notes) != 1 || !strings.HasPrefix(m.Notes[0], "Y has 1 missing value in the data and it is not drawn: its ~ at m.gpp:3:1 is of MvNormalRows, a row-wise family") {
		t.Errorf("MvNormalRows with a missing cell: %v, outputs %+v, notes %q", err, m.Outputs, m.Notes)
	}
}

// TestPredictDrawsPoissonBinomial: a left-out y [N] of a PoissonBinomial
// with a shared theta is drawn per element (theta broadcast to a row
// each), and with theta a row each, per row: means Σθ, sds √Σθ(1 − θ).
func TestPredictDrawsPoissonBinomial(t *testing.T) {
	const src = `data y: int[N]
data k: int[2]
param a: real[3] ~ Normal(0, 1)
y ~ PoissonBinomial(inv_logit(a))
k ~ PoissonBinomial(inv_logit(append_row(a', -a')))
`
	m, err := compilePredictSrc(t, src, nil, map[string]string{"N": "4"}, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range m.Outputs {
		got = append(got, fmt.Sprint(o.Name, o.Shape))
	}
	if want := []string{"y[4]", "k[2]"}; !slices.Equal(got, want) {
		t.Fatalf("outputs %v, want %v", got, want)
	}
	x := []float64{-1, 0.5, 2}
	moments := func(sign float64) (float64, float64) {
		mu, v := 0.0, 0.0
		for _, a := range x {
			p := 1 / (1 + math.Exp(-sign*a))
			mu += p
			v += p * (1 - p)
		}
		return mu, math.Sqrt(v)
	}
	const n = 20000
	mu, s := moments(1)
	mean, sd := drawMoments(t, m, 0, x, n)
	checkDrawMoments(t, "y", mean, sd, []float64{mu, mu, mu, mu}, []float64{s, s, s, s}, n)
	mu2, s2 := moments(-1)
	mean, sd = drawMoments(t, m, 1, x, n)
	checkDrawMoments(t, "k", mean, sd, []float64{mu, mu2}, []float64{s, s2}, n)
}

// TestPredictDropsOutputs: an output that reads observed data that the
// data leave out (log_lik = logpdf(y, ...)) is left out of a predict-mode
// build with a note, and so is an output that reads it, whether y is
// drawn or not; the other outputs and the draw of y stay. PredictReads
// needs y for it, PredictReadsGiven without y does not. Given y, every
// output is kept; with nothing left, the build is an error at the first
// output left out.
func TestPredictDropsOutputs(t *testing.T) {
	const src = `data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 1)
param s: positive ~ Gamma(2, 2)
y ~ Normal(a * x, s)
output log_lik = logpdf(y, Normal(a * x, s))
output elpd = sum(log_lik)
output m = a * x
`
	f, info := checkSrc(t, src)
	if PredictReads(f, info)["y"] == nil || PredictReadsGiven(f, info, nil)["y"] != nil || PredictReadsGiven(f, info, nil)["x"] == nil {
		t.Fatalf("PredictReads %v, PredictReadsGiven %v: want y needed by the first only, x by both", PredictReads(f, info), PredictReadsGiven(f, info, nil))
	}
	build := func(in []data.Input, opt PredictOptions) (*Model, error) {
		t.Helper()
		reads := PredictReadsGiven(f, info, nil)
		optional := map[string]bool{}
		for _, d := range info.Data {
			if reads[d.Name] == nil {
				optional[d.Name] = true
			}
		}
		bound, err := data.BindOptional(info, in, nil, optional)
		if err != nil {
			t.Fatal(err)
		}
		return CompilePredictOptions(f, info, bound, opt)
	}
	names := func(m *Model) []string {
		var out []string
		for _, o := range m.Outputs {
			out = append(out, o.Name)
		}
		return out
	}
	xOnly := []data.Input{{File: "new.csv", Table: csvTable(t, "new.csv", "x", [][]float64{{1}, {2}})}}
	wantNotes := []string{
		"output log_lik reads y, which the new data do not give: left out",
		"output elpd reads output log_lik, which is left out: left out",
	}
	for _, opt := range []PredictOptions{{}, {Draw: []string{}}} {
		m, err := build(xOnly, opt)
		if err != nil {
			t.Fatalf("Draw %q: %v", opt.Draw, err)
		}
		want := []string{"m", "y"}
		if opt.Draw != nil {
			want = want[:1]
		}
		if !slices.Equal(names(m), want) || len(m.Notes) < 2 || !slices.Equal(m.Notes[:2], wantNotes) {
			t.Errorf("Draw %q: outputs %q, notes %q; want %q and %q first", opt.Draw, names(m), m.Notes, want, wantNotes)
		}
	}
	withY := []data.Input{{File: "new.csv", Table: csvTable(t, "new.csv", "x,y", [][]float64{{1, 0.5}, {2, -1}})}}
	m, err := build(withY, PredictOptions{})
	if err != nil || !slices.Equal(names(m), []string{"log_lik", "elpd", "m"}) || len(m.Notes) != 0 {
		t.Errorf("y given: %v, outputs %q, notes %q; want every output, no note", err, names(m), m.Notes)
	}

	f, info = checkSrc(t, strings.Replace(src, "output m = a * x\n", "", 1))
	const nothing = "m.gpp:6:1: nothing to predict: output log_lik reads y, which the new data do not give, and no other output or drawn data remain"
	if _, err := build(xOnly, PredictOptions{Draw: []string{}}); err == nil || !strings.HasPrefix(err.Error(), nothing) {
		t.Errorf("nothing left: %v, want %q", err, nothing)
	}
	if m, err := build(xOnly, PredictOptions{}); err != nil || !slices.Equal(names(m), []string{"y"}) {
		t.Errorf("y drawn alone: %v", err)
	}
}

// Data observed through target += only by way of a let (let lp =
// logpdf(t, ...); target += sum(lp); output log_lik = lp) are observed
// data as much as those of a target += that reads them itself: predict
// leaves out the outputs that read them when the new data do not, and
// predicts the rest. A covariate that the let reads (x, through s) is
// not observed: predict still needs it. A censoring indicator read only
// through the let is needed only by log_lik, left out with t.
func TestPredictDropsThroughLets(t *testing.T) {
	const src = `data x: real[N]
data t: positive[N]
data cens: int<lower=0, upper=1>[N]
param k: positive ~ Gamma(2, 1)
param b0: real ~ Normal(0, 3)
let s = exp(b0 + x)
let lp = (1 - cens) .* logpdf(t, Weibull(k, s)) + cens .* logccdf(t, Weibull(k, s))
target += sum(lp)
output log_lik = lp
output med = s * log(2) ^ (1 / k)
`
	f, info := checkSrc(t, src)
	reads := PredictReadsGiven(f, info, nil)
	if reads["t"] != nil || reads["cens"] != nil || reads["x"] == nil {
		t.Fatalf("PredictReadsGiven %v: want x needed, t and cens not", reads)
	}
	optional := map[string]bool{}
	for _, d := range info.Data {
		if reads[d.Name] == nil {
			optional[d.Name] = true
		}
	}
	xOnly := []data.Input{{File: "new.csv", Table: csvTable(t, "new.csv", "x", [][]float64{{0}, {1}})}}
	bound, err := data.BindOptional(info, xOnly, nil, optional)
	if err != nil {
		t.Fatal(err)
	}
	m, err := CompilePredictOptions(f, info, bound, PredictOptions{Draw: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	const note = "output log_lik reads t, which the new data do not give: left out"
	if len(m.Outputs) != 1 || m.Outputs[0].Name != "med" || len(m.Notes) == 0 || m.Notes[0] != note {
		var names []string
		for _, o := range m.Outputs {
			names = append(names, o.Name)
		}
		t.Errorf("outputs %q, notes %q; want med alone and the note %q", names, m.Notes, note)
	}
	if _, err := data.BindOptional(info, []data.Input{{File: "new.csv", Table: csvTable(t, "new.csv", "cens", [][]float64{{0}, {1}})}}, nil, optional); err == nil || !strings.Contains(err.Error(), "no data for `x`") {
		t.Errorf("x left out: %v, want no data for `x`", err)
	}
}

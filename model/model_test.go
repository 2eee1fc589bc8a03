package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/internal/reftest"
)

// Tolerances.
const (
	gradTol  = 1e-5  // |autodiff − central differences|, relative to max(1, |g|)
	jacTol   = 1e-10 // jacobian=true − false against the log-Jacobian written out
	roundTol = 1e-10 // Constrain∘Unconstrain, relative to max(1, |θ|)
)

// kinds has a param of each transform Unconstrain inverts, bounded ones
// included, and data so that the density is proper.
const kinds = `
data y: real[N]
param mu: real ~ Normal(0, 1)
param sigma: positive ~ HalfNormal(1)
param rho: real<lower=-1, upper=1> ~ Uniform(-1, 1)
param lo: real<lower=2>[2] ~ Normal(3, 1)
param w: simplex[3] ~ Dirichlet(2)
param c: ordered[3] ~ Normal(0, 2)
param d: positive_ordered[2] ~ Gamma(2, 1)
param s: sum_to_zero_vector[3] ~ Normal(0, 1)
y ~ Normal(mu + rho * w[0] + c[2] - d[1] + s[0] + lo[1], sigma)
`

func kindsModel(t *testing.T) *Model {
	t.Helper()
	m, err := Compile("kinds.gpp", []byte(kinds), DataValues(map[string]any{"y": []float64{0.3, -1.2, 2.5, 0.1}}))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func regressionModel(t *testing.T) *Model {
	t.Helper()
	m, err := Load("../examples/regression.gpp", DataFiles("../examples/wine_std.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGradientFD checks LogDensityGradient against central differences
// of LogDensity at random points, with and without the Jacobian, on the
// bundled regression (real and positive params) and on a model of every
// transform (bounded, simplex, ordered, sum-to-zero).
func TestGradientFD(t *testing.T) {
	for _, m := range []*Model{regressionModel(t), kindsModel(t)} {
		rng := rand.New(rand.NewPCG(3, 4))
		for _, jac := range []bool{true, false} {
			for range 5 {
				u := make([]float64, m.Dim())
				for i := range u {
					u[i] = rng.Float64()*2 - 1
				}
				grad := make([]float64, m.Dim())
				lp, err := m.LogDensityGradient(u, grad, Jacobian(jac))
				if err != nil {
					t.Fatal(err)
				}
				lv, err := m.LogDensity(u, Jacobian(jac))
				if err != nil || lv != lp {
					t.Fatalf("%s: LogDensity %v (%v), LogDensityGradient %v", m.Name(), lv, err, lp)
				}
				want := fd.Gradient(nil, func(x []float64) float64 {
					v, _ := m.LogDensity(x, Jacobian(jac))
					return v
				}, u, &fd.Settings{Formula: fd.Central})
				for i := range grad {
					if math.Abs(grad[i]-want[i]) > gradTol*max(1, math.Abs(want[i])) {
						t.Errorf("%s jacobian=%v: d/du[%d] = %v, differences %v", m.Name(), jac, i, grad[i], want[i])
					}
				}
			}
		}
	}
}

// TestJacobianTerm checks that jacobian=true minus jacobian=false is the
// log-Jacobian of the transform, written out: Σ u for a positive z
// (z = e^u), log σ(u) + log σ(−u) for a bounded p, nothing for a real m.
func TestJacobianTerm(t *testing.T) {
	m, err := Compile("jac.gpp", []byte(`
param m: real ~ Normal(0, 1)
param z: positive[3] ~ Gamma(2, 2)
param p: real<lower=2, upper=5> ~ Uniform(2, 5)
`))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 10 {
		u := randomU(rng, m.Dim(), 1)
		with, err1 := m.LogDensity(u)
		without, err2 := m.LogDensity(u, Jacobian(false))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
		want := u[1] + u[2] + u[3] + math.Log(sig(u[4])) + math.Log(sig(-u[4]))
		if got := with - without; math.Abs(got-want) > jacTol*max(1, math.Abs(want)) {
			t.Errorf("u %v: jacobian=true − false = %v, log-Jacobian %v", u, got, want)
		}
		// and the Jacobian-free density is the log joint at the values
		th, err := m.Constrain(u)
		if err != nil {
			t.Fatal(err)
		}
		// Uniform(2, 5)'s −log 3 and the constant log |U − L| = log 3 that
		// gpp keeps in the log joint cancel
		lj := -0.5*th[0]*th[0] - 0.5*math.Log(2*math.Pi)
		for _, z := range th[1:4] {
			lj += 2*math.Log(2) + math.Log(z) - 2*z // Gamma(2, 2): log 4 + log z − 2z − log Γ(2)
		}
		if math.Abs(without-lj) > jacTol*max(1, math.Abs(lj)) {
			t.Errorf("u %v: jacobian=false %v, log joint at %v is %v", u, without, th, lj)
		}
	}
}

// TestRoundTrip checks that Constrain maps into each param's support and
// bounds and that Unconstrain inverts it.
func TestRoundTrip(t *testing.T) {
	m := kindsModel(t)
	names := m.ParamNames()
	want := []string{"mu", "sigma", "rho", "lo.1", "lo.2", "w.1", "w.2", "w.3", "c.1", "c.2", "c.3", "d.1", "d.2", "s.1", "s.2", "s.3"}
	if !slices.Equal(names, want) || m.NumParams() != len(want) || m.Dim() != len(want)-2 {
		t.Fatalf("ParamNames %v (NumParams %d, Dim %d), want %v and Dim %d", names, m.NumParams(), m.Dim(), want, len(want)-2)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20 {
		u := randomU(rng, m.Dim(), 3)
		th, err := m.Constrain(u)
		if err != nil {
			t.Fatal(err)
		}
		v := func(name string) float64 { return th[slices.Index(names, name)] }
		ok := v("sigma") > 0 && v("rho") > -1 && v("rho") < 1 && v("lo.1") > 2 && v("lo.2") > 2 &&
			v("w.1") > 0 && v("w.2") > 0 && v("w.3") > 0 && math.Abs(v("w.1")+v("w.2")+v("w.3")-1) < 1e-12 &&
			v("c.1") < v("c.2") && v("c.2") < v("c.3") && 0 < v("d.1") && v("d.1") < v("d.2") &&
			math.Abs(v("s.1")+v("s.2")+v("s.3")) < 1e-12
		if !ok {
			t.Errorf("Constrain(%v) = %v: outside a support", u, th)
		}
		checkRoundTrip(t, m, u, th)
	}
	// draws.csv's column set, and the element the error names, 0-based (a
	// simplex row's sum by its first element)
	bad := []struct {
		name, elem string
		val        float64
	}{{"sigma", "sigma", -1}, {"rho", "rho", 1.5}, {"lo.2", "lo[1]", 1}, {"w.2", "w[0]", 0.9}, {"c.2", "c[1]", -100}, {"d.1", "d[0]", -1}}
	for _, c := range bad {
		th, _ := m.Constrain(make([]float64, m.Dim()))
		th[slices.Index(names, c.name)] = c.val
		if _, err := m.Unconstrain(th); err == nil || !strings.HasPrefix(err.Error(), "Unconstrain: "+c.elem+" is") {
			t.Errorf("Unconstrain with %s = %v: error %v, want one naming %s", c.name, c.val, err, c.elem)
		}
	}
}

// checkRoundTrip fails t unless Unconstrain(th), th = Constrain(u), gives
// back u within roundTol.
func checkRoundTrip(t *testing.T, m *Model, u, th []float64) {
	t.Helper()
	back, err := m.Unconstrain(th)
	if err != nil {
		t.Fatal(err)
	}
	for i := range u {
		if math.Abs(back[i]-u[i]) > roundTol*max(1, math.Abs(u[i])) {
			t.Errorf("Unconstrain(Constrain(u))[%d] = %v, u %v", i, back[i], u[i])
		}
	}
}

// randomU returns n coordinates drawn from N(0, scale²): random points of
// the unconstrained space.
func randomU(rng *rand.Rand, n int, scale float64) []float64 {
	u := make([]float64, n)
	for i := range u {
		u[i] = scale * rng.NormFloat64()
	}
	return u
}

// readColumns reads a CSV file's columns by name.
func readColumns(t *testing.T, path string) map[string][]float64 {
	t.Helper()
	rows := reftest.ReadCSV(t, path)
	cols := map[string][]float64{}
	for _, r := range rows[1:] {
		for j, name := range rows[0] {
			v, err := strconv.ParseFloat(r[j], 64)
			if err != nil {
				t.Fatal(err)
			}
			cols[name] = append(cols[name], v)
		}
	}
	return cols
}

// TestDataValuesSame checks that data given as Go values and as a CSV or
// JSON file give the same log density, bit for bit.
func TestDataValuesSame(t *testing.T) {
	cols := readColumns(t, "../examples/wine_std.csv")
	fromFile := regressionModel(t)
	fromValues, err := Load("../examples/regression.gpp", DataValues(map[string]any{
		"alcohol": cols["alcohol"], "color_intensity": cols["color_intensity"], "proline": mat.NewVecDense(len(cols["proline"]), cols["proline"])}))
	if err != nil {
		t.Fatal(err)
	}
	sameDensity(t, fromFile, fromValues)

	// ints, a matrix and a missing value, against JSON
	src := []byte(`
data k: int<lower=0>[N]
data X: real[N, 2]
data y: real[N]
param b: real[2] ~ Normal(0, 1)
param sigma: positive ~ HalfNormal(1)
y ~ Normal(X * b + k, sigma)
output y2 = y
`) // the output keeps y_missing fitted, not summed out
	json := filepath.Join(t.TempDir(), "d.json")
	if err := os.WriteFile(json, []byte(`{"k": [1, 0, 3], "X": [[0.5, 1], [2, -1], [0.25, 3]], "y": [1.5, null, -2]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Compile("m.gpp", src, DataFiles(json))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compile("m.gpp", src, DataValues(map[string]any{"k": []int{1, 0, 3},
		"X": [][]float64{{0.5, 1}, {2, -1}, {0.25, 3}}, "y": []float64{1.5, math.NaN(), -2}}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.ParamNames(), b.ParamNames()) || !slices.Contains(b.ParamNames(), "y_missing.1") {
		t.Fatalf("params %v and %v, want y_missing among them", a.ParamNames(), b.ParamNames())
	}
	sameDensity(t, a, b)
	c, err := Compile("m.gpp", src, DataValues(map[string]any{"k": []int{1, 0, 3},
		"X": mat.NewDense(3, 2, []float64{0.5, 1, 2, -1, 0.25, 3}), "y": []float64{1.5, math.NaN(), -2}}))
	if err != nil {
		t.Fatal(err)
	}
	sameDensity(t, a, c)
}

// sameDensity checks two models' log densities and gradients are equal,
// bit for bit, at a few points.
func sameDensity(t *testing.T, a, b *Model) {
	t.Helper()
	if a.Dim() != b.Dim() {
		t.Fatalf("Dim %d and %d", a.Dim(), b.Dim())
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 3 {
		u := randomU(rng, a.Dim(), 1)
		ga, gb := make([]float64, a.Dim()), make([]float64, a.Dim())
		la, err1 := a.LogDensityGradient(u, ga)
		lb, err2 := b.LogDensityGradient(u, gb)
		if err1 != nil || err2 != nil || la != lb || !slices.Equal(ga, gb) {
			t.Errorf("at %v: %v %v (%v) and %v %v (%v)", u, la, ga, err1, lb, gb, err2)
		}
	}
}

// TestBadInput checks that bad Go values, bad models and wrong lengths are
// errors naming what is wrong, never panics.
func TestBadInput(t *testing.T) {
	src := []byte(`
data k: int[N]
data X: real[N, 2]
param b: real ~ Normal(0, 1)
k ~ Poisson(exp(b + X[:, 0]))
`)
	good := map[string]any{"k": []int{1, 2}, "X": [][]float64{{1, 2}, {3, 4}}}
	with := func(name string, v any) map[string]any {
		out := map[string]any{}
		for k, x := range good {
			out[k] = x
		}
		out[name] = v
		return out
	}
	if _, err := Compile("m.gpp", src, DataValues(good)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		v    any
		want string
	}{
		{"X", "text", "X: a value of Go type string"},
		{"X", [][]float64{{1, 2}, {3}}, "X: row 1 has 1 elements"},
		{"X", []float64{1, 2}, "X"},
		{"k", []float64{1, 2.5}, "k: 2.5 is not an integer"},
		{"k", [][]int{{1}, {2}}, "k"},
		{"k", []float64{1, math.Inf(1)}, "k[1] is +Inf"},
		{"X", [][]float64{{1, math.NaN()}, {3, 4}}, "X"}, // a missing covariate without a model of its own
		{"k", []int64{1, 1<<53 + 1}, "k[1] is 9007199254740993, past 2^53"},
		{"k", []uint64{1, math.MaxUint64}, "k[1] is 18446744073709551615, past 2^53"},
		{"X", [][]int64{{1, 2}, {-1<<53 - 1, 0}}, "X[1, 0] is -9007199254740993, past 2^53"},
		{"X", (*mat.Dense)(nil), "X: a nil *mat.Dense"},
		{"k", (*mat.VecDense)(nil), "k: a nil *mat.VecDense"},
		{"k", []int(nil), "k: a nil []int"},
		{"X", [][]float64(nil), "X: a nil [][]float64"},
		{"X", nil, "X: the value is nil"},
		{"k", []string{"1"}, "k: a value of Go type []string"},
		{"k", []any{1, 2}, "k: a value of Go type []interface {}"},
		{"X", [][]string{{"a"}}, "X: a value of Go type [][]string"},
		{"X", [][][]float64{{{1}}}, "X: a value of Go type [][][]float64"},
		{"k", map[string]int{"a": 1}, "k: a value of Go type map[string]int"},
		{"k", new(int), "k: a value of Go type *int"},
		{"X", [][]int8{{1, 2}, {3}}, "X: row 1 has 1 elements"},
	} {
		_, err := Compile("m.gpp", src, DataValues(with(c.name, c.v)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s = %v: error %v, want one with %q", c.name, c.v, err, c.want)
		}
	}
	// A NaN count is a missing cell, left out of the likelihood as a CSV's
	// NA beside 3.0 is (it read "NaN is not an integer" before).
	if _, err := Compile("m.gpp", src, DataValues(with("k", []float64{1, math.NaN()}))); err != nil {
		t.Errorf("k = [1 NaN]: %v, want the missing count left out", err)
	}
	if _, err := Compile("bad.gpp", []byte("param a: real ~ Normal(0, 1)\nparam b: real ~ Nromal(0, 1)\n")); err == nil || !strings.HasPrefix(err.Error(), "bad.gpp:2:") {
		t.Errorf("a misspelt distribution: error %v, want one at bad.gpp:2:", err)
	}
	if _, err := Load("no-such.gpp"); err == nil {
		t.Error("a missing file: no error")
	}
	if _, err := Load("../examples/regression.gpp", DataFiles("../examples/wine_std.csv"), Set("N", "3")); err == nil {
		t.Error("--set N=3 against 178 rows: no error")
	}
	m, err := Compile("m.gpp", src, DataValues(good))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.LogDensity(make([]float64, 2)); err == nil {
		t.Error("LogDensity of a u too long: no error")
	}
	if _, err := m.LogDensityGradient(make([]float64, 1), nil); err == nil {
		t.Error("LogDensityGradient with no grad: no error")
	}
	if _, err := m.Constrain(nil); err == nil {
		t.Error("Constrain(nil): no error")
	}
	if _, err := m.Unconstrain([]float64{1, 2}); err == nil {
		t.Error("Unconstrain of 2 values of 1: no error")
	}
}

// TestNonFinite checks that a density the model cannot evaluate returns
// the positioned error of the statement, as gpp fit prints it.
func TestNonFinite(t *testing.T) {
	m, err := Compile("nan.gpp", []byte("data y: real\nparam a: real ~ Normal(0, 1)\ny ~ Normal(0, 1)\ntarget += log(y - a)\n"), Set("y", "0"))
	if err != nil {
		t.Fatal(err)
	}
	for _, jac := range []bool{true, false} {
		// a = 1: log(0 − 1)
		if _, err := m.LogDensityGradient([]float64{1}, make([]float64, 1), Jacobian(jac)); err == nil || !strings.HasPrefix(err.Error(), "nan.gpp:4:") {
			t.Errorf("log(-1), jacobian=%v: error %v, want one at nan.gpp:4:", jac, err)
		}
		if _, err := m.LogDensity([]float64{1}, Jacobian(jac)); err == nil || !strings.HasPrefix(err.Error(), "nan.gpp:4:") {
			t.Errorf("LogDensity, log(-1), jacobian=%v: error %v, want one at nan.gpp:4:", jac, err)
		}
	}
	if lp, err := m.LogDensity([]float64{-1}); err != nil || math.IsNaN(lp) {
		t.Errorf("log(1): %v, %v", lp, err)
	}
}

// TestFitSameAsPipeline checks that Fit gives what internal/pipeline and
// sgvb.Fit give (gpp fit's path) for the same settings, bit for bit.
func TestFitSameAsPipeline(t *testing.T) {
	for _, s := range []sgvb.Settings{{Seed: 3, MaxIter: 300}, {Seed: 4, Method: sgvb.MAP}, {Seed: 5, Method: sgvb.Laplace}} {
		m := regressionModel(t)
		got, err := m.Fit(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		l, err := pipeline.Load("../examples/regression.gpp", []string{"../examples/wine_std.csv"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), s)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Mean(), want.Mean()) || !slices.Equal(got.SD(), want.SD()) ||
			got.ELBO != want.ELBO || got.Iterations != want.Iterations || len(got.Factors) != len(want.Factors) {
			t.Fatalf("%v: Fit mean %v sd %v ELBO %v (%d iterations), pipeline's %v %v %v (%d)", s.Method,
				got.Mean(), got.SD(), got.ELBO, got.Iterations, want.Mean(), want.SD(), want.ELBO, want.Iterations)
		}
		for i := range got.Factors {
			for j := range got.Factors[i].Params {
				if !slices.Equal(got.Factors[i].Params[j], want.Factors[i].Params[j]) {
					t.Errorf("%v: factor %s's params differ", s.Method, got.Factors[i].Name)
				}
			}
		}
	}
}

// TestSampleSameAsPipeline checks that Sample's chains are those of gpp
// sample's set-up (one Unconstrained clone per chain, Stan's starts from
// stream sgvb.InitStream + c), bit for bit.
func TestSampleSameAsPipeline(t *testing.T) {
	s := nuts.Settings{Chains: 2, Warmup: 50, Draws: 20, Seed: 7, Workers: 1}
	got, err := regressionModel(t).Sample(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	l, err := pipeline.Load("../examples/regression.gpp", []string{"../examples/wine_std.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: l.Model}, pipeline.Latents(l.Model))
	if err != nil {
		t.Fatal(err)
	}
	dens, inits := make([]nuts.Density, s.Chains), make([][]float64, s.Chains)
	for c := range s.Chains {
		d := u.Clone()
		dens[c], inits[c] = d, make([]float64, u.Dim())
		if err := d.Init(rand.New(rand.NewPCG(s.Seed, sgvb.InitStream+uint64(c))), inits[c]); err != nil {
			t.Fatal(err)
		}
	}
	want, err := nuts.Sample(context.Background(), dens, inits, s)
	if err != nil {
		t.Fatal(err)
	}
	for c := range want.Chains {
		if !slices.Equal(got.Chains[c].Draws, want.Chains[c].Draws) || !slices.Equal(got.Chains[c].LogP, want.Chains[c].LogP) || got.Chains[c].StepSize != want.Chains[c].StepSize {
			t.Errorf("chain %d: Sample's draws differ from the pipeline's", c+1)
		}
	}
	if len(got.Chains) != 2 || len(got.Chains[0].LogP) != 20 {
		t.Errorf("%d chains of %d draws, want 2 of 20", len(got.Chains), len(got.Chains[0].LogP))
	}
}

// TestClone checks that a clone evaluates as its model does, from its own
// buffers, also on another goroutine at the same time.
func TestClone(t *testing.T) {
	m := regressionModel(t)
	c := m.Clone()
	u := []float64{0.1, 0.2, -0.3, 0.4}
	want, err := m.LogDensity(u)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan float64)
	go func() {
		var v float64
		for range 200 {
			v, _ = c.LogDensity(u)
		}
		done <- v
	}()
	for range 200 {
		if v, _ := m.LogDensity(u); v != want {
			t.Errorf("LogDensity %v while a clone runs, want %v", v, want)
		}
	}
	if v := <-done; v != want {
		t.Errorf("the clone's LogDensity %v, want %v", v, want)
	}
}

// TestParams checks Params' descriptions: each param's values (Size) and
// unconstrained coordinates (Dim, one fewer for a simplex or zero-sum
// vector), which add up to NumParams and Dim.
func TestParams(t *testing.T) {
	m := kindsModel(t)
	got, size, dim := "", 0, 0
	for _, p := range m.Params() {
		got += p.Name + " " + p.Support.String() + " " + p.Family + " " + strconv.Itoa(p.Size) + " " + strconv.Itoa(p.Dim) + "; "
		size, dim = size+p.Size, dim+p.Dim
	}
	want := "mu real normal 1 1; sigma positive gamma 1 1; rho unit beta 1 1; lo positive gamma 2 2; " +
		"w simplex dirichlet 3 2; c ordered normal+gamma 3 3; d positive_ordered gamma 2 2; s sum_to_zero_vector normal 3 2; "
	if got != want {
		t.Errorf("Params:\n%s\nwant\n%s", got, want)
	}
	if size != m.NumParams() || dim != m.Dim() {
		t.Errorf("Params' sizes add up to %d and dims to %d; NumParams %d, Dim %d", size, dim, m.NumParams(), m.Dim())
	}
}

// TestOutputs checks the outputs at u: a function of the params, and
// replicates drawn from the stream given.
func TestOutputs(t *testing.T) {
	m, err := Compile("out.gpp", []byte(`
data y: real[N]
param mu: real ~ Normal(0, 1)
param sigma: positive ~ HalfNormal(1)
y ~ Normal(mu, sigma)
output twice = 2 * mu + sigma
output y_rep ~ Normal(mu + 0 * y, sigma)   # one per y
output top = max(y_rep)
`), DataValues(map[string]any{"y": []float64{0.5, -0.2, 1.1}}))
	if err != nil {
		t.Fatal(err)
	}
	names := m.OutputNames()
	if want := []string{"twice", "y_rep.1", "y_rep.2", "y_rep.3", "top"}; !slices.Equal(names, want) {
		t.Fatalf("OutputNames %v, want %v", names, want)
	}
	u := []float64{0.3, math.Log(2)}
	out, err := m.Outputs(u, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	th, _ := m.Constrain(u)
	if math.Abs(out[0]-(2*th[0]+th[1])) > 1e-12 || out[4] != max(out[1], out[2], out[3]) {
		t.Errorf("Outputs at mu %v, sigma %v: %v", th[0], th[1], out)
	}
	again, _ := m.Outputs(u, rand.New(rand.NewPCG(1, 2)))
	other, _ := m.Outputs(u, rand.New(rand.NewPCG(1, 3)))
	if !slices.Equal(out, again) || slices.Equal(out[1:4], other[1:4]) {
		t.Errorf("replicates from one stream %v and %v, from another %v", out, again, other)
	}
}

// TestDataValuesGoKinds checks that every Go integer, float and bool kind,
// in scalars, slices, arrays and slices of slices, binds as the same data
// as the int and float64 values do: the same log density, bit for bit. A
// float32 binds as the float64 it holds exactly, a bool as 1 or 0.
func TestDataValuesGoKinds(t *testing.T) {
	src := []byte(`
data k: int[N]
data X: real[N, 2]
data n: int
data s: real
param b: real ~ Normal(0, 1)
k ~ Poisson(exp(b + X[:, 0] + s + n))
`)
	compile := func(k, X, n, s any) *Model {
		t.Helper()
		m, err := Compile("m.gpp", src, DataValues(map[string]any{"k": k, "X": X, "n": n, "s": s}))
		if err != nil {
			t.Fatalf("k %T, X %T, n %T, s %T: %v", k, X, n, s, err)
		}
		return m
	}
	want := compile([]int{1, 0, 3}, [][]float64{{1, 0}, {0, 1}, {1, 1}}, 2, 0.25)
	type count uint16 // a named integer type
	for _, c := range []struct{ k, X, n, s any }{
		{[]int8{1, 0, 3}, [][]int{{1, 0}, {0, 1}, {1, 1}}, int8(2), float32(0.25)},
		{[]int16{1, 0, 3}, [][]int64{{1, 0}, {0, 1}, {1, 1}}, int16(2), 0.25},
		{[]int32{1, 0, 3}, [][]int32{{1, 0}, {0, 1}, {1, 1}}, int32(2), 0.25},
		{[]int64{1, 0, 3}, [][]uint8{{1, 0}, {0, 1}, {1, 1}}, int64(2), 0.25},
		{[]uint{1, 0, 3}, [][]bool{{true, false}, {false, true}, {true, true}}, uint(2), 0.25},
		{[]uint8{1, 0, 3}, [][]float32{{1, 0}, {0, 1}, {1, 1}}, uint8(2), 0.25},
		{[]uint32{1, 0, 3}, [3][2]float64{{1, 0}, {0, 1}, {1, 1}}, uint32(2), 0.25},
		{[]uint64{1, 0, 3}, [][2]int{{1, 0}, {0, 1}, {1, 1}}, uint64(2), 0.25},
		{[3]int{1, 0, 3}, [][]float64{{1, 0}, {0, 1}, {1, 1}}, count(2), 0.25},
		{[]count{1, 0, 3}, [][]float64{{1, 0}, {0, 1}, {1, 1}}, 2.0, 0.25},
		{[]float32{1, 0, 3}, [][]float64{{1, 0}, {0, 1}, {1, 1}}, 2, 0.25},
	} {
		sameDensity(t, want, compile(c.k, c.X, c.n, c.s))
	}
	// a bool vector binds as 0/1 ints
	b := []byte("data y: int[N]\nparam p: unit ~ Beta(1, 1)\ny ~ Bernoulli(p)\n")
	yi, err := Compile("b.gpp", b, DataValues(map[string]any{"y": []int{1, 0, 1}}))
	if err != nil {
		t.Fatal(err)
	}
	yb, err := Compile("b.gpp", b, DataValues(map[string]any{"y": []bool{true, false, true}}))
	if err != nil {
		t.Fatal(err)
	}
	sameDensity(t, yi, yb)
	// a float32 is the float64 it holds, not the decimal it was written as
	exact := compile([]int{1, 0, 3}, [][]float64{{1, 0}, {0, 1}, {1, 1}}, 2, float64(float32(0.1)))
	sameDensity(t, exact, compile([]int{1, 0, 3}, [][]float64{{1, 0}, {0, 1}, {1, 1}}, 2, float32(0.1)))
	u := []float64{0.3}
	l32, _ := exact.LogDensity(u)
	l64, _ := compile([]int{1, 0, 3}, [][]float64{{1, 0}, {0, 1}, {1, 1}}, 2, 0.1).LogDensity(u)
	if l32 == l64 {
		t.Errorf("float32(0.1) bound as 0.1: log density %v both ways", l32)
	}
}

// TestGraph: the graph carries the data's sizes (the regression's plate of
// 178 rows) and its params; cmd/gpp's TestModelGraphMatchesCLI compares it
// with gpp graph byte for byte.
func TestGraph(t *testing.T) {
	var b strings.Builder
	if err := regressionModel(t).Graph().WriteDOT(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`digraph "regression"`, `label = "N (178)"`, `"sigma" [label = "sigma\n~ HalfNormal\nq: gamma"`, `"mu" -> "proline"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("Graph's DOT has no %s:\n%s", want, b.String())
		}
	}
}

// TestSampleCmdStanSettings: Sample honours the settings of gpp sample's
// --stepsize, --metric-file, --adapt=false and --save-warmup: a run from
// an adapted run's step size and metric keeps them through its warm-up,
// and SampleWarmupDraws maps the warm-up iterations kept.
func TestSampleCmdStanSettings(t *testing.T) {
	m := regressionModel(t)
	ctx := context.Background()
	first, err := m.Sample(ctx, nuts.Settings{Chains: 1, Warmup: 200, Draws: 10, Seed: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	ch := first.Chains[0]
	s := nuts.Settings{Chains: 2, Warmup: 30, Thin: 4, Draws: 20, Seed: 3, Workers: 1,
		StepSize: ch.StepSize, InvMetric: [][]float64{ch.InvMetric}, NoAdapt: true, SaveWarmup: true}
	res, err := m.Sample(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for c, got := range res.Chains {
		if got.StepSize != ch.StepSize || !slices.Equal(got.InvMetric, ch.InvMetric) {
			t.Errorf("chain %d: step size %v metric %v, want the first run's %v %v", c+1, got.StepSize, got.InvMetric, ch.StepSize, ch.InvMetric)
		}
		for _, e := range got.Warm.StepSizes {
			if e != ch.StepSize {
				t.Fatalf("chain %d: a warm-up step size %v, want %v", c+1, e, ch.StepSize)
			}
		}
	}
	rows, err := m.SampleWarmupDraws(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2*(30/4) {
		t.Fatalf("%d warm-up rows, want %d", len(rows), 2*(30/4))
	}
	w1 := res.Chains[1].Warm
	want, err := m.Constrain(w1.Draws[:m.Dim()])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rows[30/4], want) {
		t.Errorf("chain 2's first warm-up row %v, want %v", rows[30/4], want)
	}
	if _, err := m.SampleWarmupDraws(first); err == nil {
		t.Error("SampleWarmupDraws of a run without SaveWarmup: no error")
	}
	s.InvMetric = [][]float64{ch.InvMetric[:2]}
	if _, err := m.Sample(ctx, s); err == nil || !strings.Contains(err.Error(), "has 2 entries, want 4") {
		t.Errorf("a metric of 2 entries for 4 coordinates: %v", err)
	}
}

// TestCancelledRunErrs checks that a run that ctx ended returns the
// result so far with ctx's error, as Go callers test for it: Fit, FitRestarts
// and Sample, with ctx cancelled or past its deadline before they start.
func TestCancelledRunErrs(t *testing.T) {
	m := regressionModel(t)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	late, cancelLate := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancelLate()
	for _, c := range []struct {
		ctx  context.Context
		want error
	}{{cancelled, context.Canceled}, {late, context.DeadlineExceeded}} {
		r, err := m.Fit(c.ctx, FitSettings())
		if r == nil || !r.Interrupted || !errors.Is(err, c.want) {
			t.Errorf("Fit: result %v, error %v; want the interrupted fit and %v", r != nil, err, c.want)
		}
		if r != nil {
			if _, err := m.FitDraws(r, 2, 1); err != nil {
				t.Errorf("FitDraws of the interrupted fit: %v", err)
			}
		}
		mix, err := m.FitRestarts(c.ctx, FitSettings(), sgvb.Restarts{N: 2})
		if mix == nil || !mix.Interrupted || !errors.Is(err, c.want) {
			t.Errorf("FitRestarts: result %v, error %v; want the interrupted mixture and %v", mix != nil, err, c.want)
		}
		res, err := m.Sample(c.ctx, SampleSettings())
		if res == nil || !res.Interrupted || !errors.Is(err, c.want) {
			t.Errorf("Sample: result %v, error %v; want the interrupted run and %v", res != nil, err, c.want)
		}
	}
	if _, err := m.Fit(context.Background(), FitSettings()); err != nil {
		t.Errorf("Fit with a live context: %v", err)
	}
}

// TestNotesDataValues checks that the note of missing values given
// through DataValues names the elements, 0-based, where a file's names
// lines: Go values have no line and column to give.
func TestNotesDataValues(t *testing.T) {
	src := "data x: real[N]\ndata Y: real[N, 2]\nparam mu: real ~ Normal(0, 1)\nx ~ Normal(mu, 1)\nfor i in 0:N {\n  Y[i] ~ Normal(mu, 1)\n}\noutput x2 = x\noutput Y2 = Y\n" // fitted, not summed out
	m, err := Compile("m.gpp", []byte(src), DataValues(map[string]any{
		"x": []float64{1, math.NaN(), 3, math.NaN()},
		"Y": [][]float64{{1, 2}, {3, 4}, {5, math.NaN()}, {7, 8}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"x: 2 missing values (x[1], x[3] of DataValues) are fitted as the latent x_missing",
		"Y: 1 missing value (Y[2, 1] of DataValues) is fitted as the latent Y_missing",
	}
	if got := m.Notes(); !slices.Equal(got, want) {
		t.Errorf("Notes() = %q\nwant %q", got, want)
	}
}

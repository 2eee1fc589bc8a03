package compile

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/internal/shareddata"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// gradTol is the relative tolerance of autodiff gradients against central
// finite differences of the compiled log joint.
const gradTol = 1e-6

// compileFile parses, checks, binds and compiles a model file with the given
// inputs.
func compileFile(t testing.TB, path string, sets map[string]string, inputs ...data.Input) *Model {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return compileSrc(t, path, string(src), sets, inputs...)
}

func compileSrc(t testing.TB, name, src string, sets map[string]string, inputs ...data.Input) *Model {
	t.Helper()
	m, err := compileSrcErr(t, name, src, sets, inputs...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// compileSrcErr is compileSrc returning the error of binding the data or
// of Compile; parse and check errors fail the test.
func compileSrcErr(t testing.TB, name, src string, sets map[string]string, inputs ...data.Input) (*Model, error) {
	t.Helper()
	f, err := parser.ParseFile(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	info, err := check.Check(f, &check.Config{Overrides: sets})
	if err != nil {
		t.Fatal(err)
	}
	bound, err := data.Bind(info, inputs, sets)
	if err != nil {
		return nil, err
	}
	return Compile(f, info, bound)
}

// csvTable builds a CSV input from a header and rows.
func csvTable(t testing.TB, name string, header string, rows [][]float64) *data.Table {
	t.Helper()
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, r := range rows {
		for j, v := range r {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	tab, err := data.ReadCSV(name, strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// gpfaData returns a small synthetic GPFA data set: n rows of d columns.
func gpfaData(t testing.TB, n, d int, seed uint64) *data.Table {
	rng := rand.New(rand.NewPCG(seed, 1))
	rows := make([][]float64, n)
	cols := make([]string, d)
	for j := range cols {
		cols[j] = "y" + strconv.Itoa(j)
	}
	for i := range rows {
		rows[i] = make([]float64, d)
		f := rng.NormFloat64()
		for j := range rows[i] {
			rows[i][j] = math.Round((f*float64(j%3)+0.3*rng.NormFloat64())*1e4) / 1e4
		}
	}
	return csvTable(t, "y.csv", strings.Join(cols, ","), rows)
}

// epmData returns a small random network: links and held-out pairs.
func epmData(t testing.TB, n int, seed uint64) (links, unknown *data.Table) {
	rng := rand.New(rand.NewPCG(seed, 2))
	var l, u [][]float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			switch r := rng.Float64(); {
			case r < 0.25:
				l = append(l, []float64{float64(i), float64(j)})
			case r < 0.4:
				u = append(u, []float64{float64(i), float64(j)})
			}
		}
	}
	return csvTable(t, "links.csv", "i,j", l), csvTable(t, "unknown.csv", "i,j", u)
}

// checkGradient compares the model's gradient with central differences at
// a few random points of the coordinate vector.
func checkGradient(t *testing.T, m *Model, seed uint64, scale float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	x := make([]float64, m.Dim)
	grad := make([]float64, m.Dim)
	for trial := 0; trial < 3; trial++ {
		fillNormal(x, rng, 0, scale)
		lp, err := m.LogJoint(x, grad)
		if err != nil {
			t.Fatalf("LogJoint: %v", err)
		}
		if math.IsNaN(lp) || math.IsInf(lp, 0) {
			t.Fatalf("log joint %v", lp)
		}
		f := func(x []float64) float64 {
			v, err := m.LogJoint(x, make([]float64, len(x)))
			if err != nil {
				t.Fatalf("LogJoint in fd: %v", err)
			}
			return v
		}
		want := fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		for i := range want {
			if err := math.Abs(grad[i]-want[i]) / math.Max(1, math.Abs(want[i])); err > gradTol {
				t.Errorf("trial %d: d/dx[%d] (%s) = %.10g, finite differences %.10g (rel. error %.2g)", trial, i, m.LatentOf(i), grad[i], want[i], err)
			}
		}
	}
}

func TestGPFAGradient(t *testing.T) {
	m := compileFile(t, "../../examples/gpfa.gpp", map[string]string{"K": "3"}, data.Input{File: "y.csv", Table: gpfaData(t, 30, 5, 1)})
	if m.Dim != 4+3+5*3 {
		t.Fatalf("Dim = %d, want 22", m.Dim)
	}
	checkGradient(t, m, 1, 0.5)
}

func TestEPMGradient(t *testing.T) {
	links, unknown := epmData(t, 12, 1)
	m := compileFile(t, "../../examples/epm.gpp", map[string]string{"K": "3", "N": "12"},
		data.Input{Name: "links", File: "links.csv", Table: links}, data.Input{Name: "unknown", File: "unknown.csv", Table: unknown})
	checkGradient(t, m, 2, 0.5)
}

func TestPosteriordbGradient(t *testing.T) {
	for _, c := range []struct{ model, data string }{
		{"eight_schools_noncentered.gpp", "eight_schools-eight_schools_noncentered"},
		{"kidiq_momiq.gpp", "kidiq-kidscore_momiq"},
	} {
		t.Run(c.model, func(t *testing.T) {
			checkGradient(t, posteriordbModel(t, c.model, c.data), 3, 0.3)
		})
	}
}

// posteriordbModel compiles examples/posteriordb/model with the data of
// the posteriordb posterior dir in the shared data (skipping without it).
func posteriordbModel(t *testing.T, model, dir string) *Model {
	t.Helper()
	path := shareddata.Path(t, "posteriordb", dir, "data.json")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	js, err := data.ReadJSON(path, f)
	if err != nil {
		t.Fatal(err)
	}
	return compileFile(t, filepath.Join("../../examples/posteriordb", model), nil, data.Input{File: path, JSON: js})
}

// TestHoisting fails if a data-only node (GPFA's Y'Y, EPM's gathers'
// index vectors) is evaluated per call rather than once at compile time.
func TestHoisting(t *testing.T) {
	m := compileFile(t, "../../examples/gpfa.gpp", map[string]string{"K": "3"}, data.Input{File: "y.csv", Table: gpfaData(t, 50, 4, 2)})
	if len(m.dataNodes) == 0 {
		t.Fatal("no data-only nodes recorded for GPFA (Y'Y should be one)")
	}
	x := make([]float64, m.Dim)
	g := make([]float64, m.Dim)
	for i := 0; i < 5; i++ {
		if _, err := m.LogJoint(x, g); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range m.dataNodes {
		if n := m.prog.Evals(id); n > 1 {
			t.Errorf("data-only node %v evaluated %d times in 5 calls, want at most once", id, n)
		}
	}
}

// TestGaussianForms checks every lowering of MvNormal / MvNormalRows (data
// value with zero, scalar, vector and row means; latent value) against the
// log density summed row by row, and its gradient against finite
// differences.
func TestGaussianForms(t *testing.T) {
	y := gpfaData(t, 12, 3, 5)
	for _, c := range []struct{ name, model string }{
		{"zero mean", "data Y: real[N, D]\nparam W: positive[D, 2] ~ Gamma(1, 1)\nY ~ MvNormalRows(0, W * W' + I(D))\n"},
		{"scalar mean", "data Y: real[N, D]\nparam m: real ~ Normal(0, 1)\nparam W: positive[D, 2] ~ Gamma(1, 1)\nY ~ MvNormalRows(m, W * W' + I(D))\n"},
		{"vector mean", "data Y: real[N, D]\nparam m: real[D] ~ Normal(0, 1)\nparam W: positive[D, 2] ~ Gamma(1, 1)\nY ~ MvNormalRows(m, W * W' + I(D))\n"},
		{"row mean", "data Y: real[N, D]\nparam m: real[D] ~ Normal(0, 1)\nparam W: positive[D, 2] ~ Gamma(1, 1)\nY ~ MvNormal(m', W * W' + I(D))\n"},
		{"latent value", "data Y: real[N, D]\nparam Z: real[3, D] ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 1)\nZ ~ MvNormalRows(1, I(D) * s)\nY ~ Normal(0, 1)\n"},
		{"vector value", "data Y: real[N, D]\nparam z: real[D] ~ Normal(0, 1)\nparam W: positive[D, 2] ~ Gamma(1, 1)\nz ~ MvNormal(0.5, W * W' + I(D))\nY ~ Normal(0, 1)\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, "m.gpp", c.model, nil, data.Input{File: "y.csv", Table: y})
			checkGradient(t, m, 4, 0.5)
		})
	}
}

// TestGaussianValue compares the log joint of a model whose only term is
// the Gaussian likelihood (flat priors) with gonum's distmv.Normal summed
// row by row, for the zero-mean and the vector-mean forms.
func TestGaussianValue(t *testing.T) {
	tab := gpfaData(t, 9, 3, 6)
	y := tab.Matrix("Y")
	for _, c := range []struct {
		name, model string
		mean        bool
	}{
		{"zero mean", "data Y: real[N, D]\nparam W: positive[D, 2]\nY ~ MvNormalRows(0, W * W' + I(D))\n", false},
		{"vector mean", "data Y: real[N, D]\nparam W: positive[D, 2]\nparam m: real[D]\nY ~ MvNormalRows(m, W * W' + I(D))\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, "m.gpp", c.model, nil, data.Input{File: "y.csv", Table: tab})
			rng := rand.New(rand.NewPCG(9, 9))
			x := make([]float64, m.Dim)
			fillNormal(x, rng, 0, 1)
			got, err := m.LogJoint(x, make([]float64, m.Dim))
			if err != nil {
				t.Fatal(err)
			}
			const d = 3
			w := mat.NewDense(d, 2, nil)
			for i := 0; i < d*2; i++ {
				w.Set(i/2, i%2, math.Exp(x[i])) // W is positive: coordinates are log W
			}
			var cov mat.SymDense
			cov.SymOuterK(1, w)
			for i := 0; i < d; i++ {
				cov.SetSym(i, i, cov.At(i, i)+1)
			}
			mu := make([]float64, d)
			if c.mean {
				copy(mu, x[d*2:])
			}
			nrm, ok := distmv.NewNormal(mu, &cov, nil)
			if !ok {
				t.Fatal("covariance not positive definite")
			}
			want := 0.0
			for r := 0; r < y.Shape[0]; r++ {
				want += nrm.LogProb(y.Values[r*d : (r+1)*d])
			}
			if math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Errorf("log joint %.12g, distmv %.12g", got, want)
			}
		})
	}
}

// TestPositiveLatentUnderflow: a positive latent whose value underflows to 0
// (coordinate log z = -800, as gamma factors with tiny shapes draw) keeps a
// finite log joint and gradient, because its prior is evaluated from log z.
func TestPositiveLatentUnderflow(t *testing.T) {
	m := compileSrc(t, "m.gpp", "param a: positive ~ Gamma(0.5, 1)\nparam w: positive[3] ~ Gamma(a, 2)\n", nil)
	x := []float64{0.2, -800, -1, 0.5}
	g := make([]float64, len(x))
	lp, err := m.LogJoint(x, g)
	if err != nil || math.IsInf(lp, 0) || math.IsNaN(lp) {
		t.Fatalf("log joint %v, error %v", lp, err)
	}
	for i, v := range g {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			t.Errorf("gradient[%d] = %v", i, v)
		}
	}
	// d/d log w_0 of Gamma(w_0 | a, 2) is a - 1 - 2 w_0 = a - 1 at w_0 = 0.
	if want := math.Exp(0.2) - 1; math.Abs(g[1]-want) > 1e-12 {
		t.Errorf("d log p / d log w[0] = %v, want %v", g[1], want)
	}
	checkGradient(t, m, 5, 1)
}

// TestOutputUsesOutput: an output may use an earlier output (the checker
// allows it), and a short-form output reports a let.
func TestOutputUsesOutput(t *testing.T) {
	m := compileSrc(t, "m.gpp", "param a: positive ~ Gamma(2, 1)\nlet t = a * 3\noutput b = a * 2\noutput c = b + 1\noutput t\n", nil)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	_, outs, err := ev.Eval([]float64{math.Log(1.5)})
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 3 || outs[0][0] != 3 || outs[1][0] != 4 || math.Abs(outs[2][0]-4.5) > 1e-15 {
		t.Errorf("outputs = %v, want [[3] [4] [4.5]]", outs)
	}
}

// TestClone fails if a clone computes other numbers than its model, if the
// two share a buffer (a Forward on one changing the other's values), or if
// they cannot run at the same time (under -race). GPFA's clone must carry
// the hoisted Y'Y, EPM's its index tables, and the clone must not compute
// Y'Y again.
func TestClone(t *testing.T) {
	links, unknown := epmData(t, 12, 1)
	models := map[string]*Model{
		"gpfa": compileFile(t, "../../examples/gpfa.gpp", map[string]string{"K": "3"}, data.Input{File: "y.csv", Table: gpfaData(t, 40, 5, 3)}),
		"epm": compileFile(t, "../../examples/epm.gpp", map[string]string{"K": "3", "N": "12"},
			data.Input{Name: "links", File: "links.csv", Table: links}, data.Input{Name: "unknown", File: "unknown.csv", Table: unknown}),
	}
	for name, m := range models {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 7))
			xs := make([][]float64, 4)
			for i := range xs {
				xs[i] = make([]float64, m.Dim)
				for j := range xs[i] {
					xs[i][j] = 0.5 * rng.NormFloat64()
				}
			}
			type result struct {
				lp   float64
				grad []float64
			}
			run := func(m *Model, x []float64) result {
				g := make([]float64, m.Dim)
				lp, err := m.LogJoint(x, g)
				if err != nil {
					t.Error(err)
				}
				return result{lp, g}
			}
			want := make([]result, len(xs))
			for i, x := range xs {
				want[i] = run(m, x)
			}
			c := m.Clone()
			if c.prog == m.prog {
				t.Fatal("the clone shares its program")
			}
			same := func(who string, i int, got result) {
				t.Helper()
				if math.Float64bits(got.lp) != math.Float64bits(want[i].lp) {
					t.Errorf("%s, point %d: log joint %v, want %v", who, i, got.lp, want[i].lp)
				}
				for j := range got.grad {
					if math.Float64bits(got.grad[j]) != math.Float64bits(want[i].grad[j]) {
						t.Errorf("%s, point %d: d/dx[%d] = %v, want %v", who, i, j, got.grad[j], want[i].grad[j])
						return
					}
				}
			}
			// Interleaved: a Forward on the clone must not move the model.
			// The model's Backward reads the values of its own last Forward.
			lp0, err := m.prog.Forward(xs[0])
			if err != nil {
				t.Fatal(err)
			}
			same("clone", 1, run(c, xs[1]))
			g0 := make([]float64, m.Dim)
			if err := m.prog.Backward(g0); err != nil {
				t.Fatal(err)
			}
			same("model after a clone's call", 0, result{lp0, g0})
			// At the same time, many times each.
			var wg sync.WaitGroup
			got := [2][]result{make([]result, len(xs)), make([]result, len(xs))}
			for w, mm := range []*Model{m, c} {
				wg.Go(func() {
					for rep := 0; rep < 20; rep++ {
						for i, x := range xs {
							got[w][i] = run(mm, x)
						}
					}
				})
			}
			wg.Wait()
			for i := range xs {
				same("model, concurrently", i, got[0][i])
				same("clone, concurrently", i, got[1][i])
			}
			for _, id := range m.dataNodes {
				if n := c.prog.Evals(id); n > 1 {
					t.Errorf("data-only node %v evaluated %d times by the clone, want at most once", id, n)
				}
			}
		})
	}
}

// fillNormal sets every element of x to loc + scale·z, z a fresh N(0, 1)
// draw from rng: a random point at which to evaluate a model's log joint.
func fillNormal(x []float64, rng *rand.Rand, loc, scale float64) {
	for i := range x {
		x[i] = loc + scale*rng.NormFloat64()
	}
}

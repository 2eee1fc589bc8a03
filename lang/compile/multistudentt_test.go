package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// mstTol bounds the difference of the log joint of MultiStudentT and
// MultiStudentTCholesky from dist.MultiStudentT's sum over the rows,
// relative to max(1, |value|).
const mstTol = 1e-11

// MultiStudentT and MultiStudentTCholesky in the log joint are
// dist.MultiStudentT summed over the value's rows, for a data matrix with
// a shared location row, a location per row, a scalar location, a param
// vector, nu a param (exp of a real one, so no Jacobian enters) or a
// constant, Sigma data or L a product of params; and the gradient matches
// finite differences.
func TestMultiStudentT(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 8))
	const n, d = 5, 3
	y := make([]float64, n*d)
	for i := range y {
		y[i] = 2 * rng.NormFloat64()
	}
	sigma := []float64{2, 0.3, -0.4, 0.3, 1, 0.2, -0.4, 0.2, 1.5}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"Y":   {Name: "Y", Shape: []int{n, d}, Values: y},
		"S":   {Name: "S", Shape: []int{d, d}, Values: sigma},
		"Low": {Name: "Low", Shape: []int{d, d}, Values: []float64{0, 0, 0, 1, 0, 0, 1, 1, 0}},
	}}
	const head = `data Y: real[N, 3]
data S: real[3, 3]
data Low: real[3, 3]
param a: real
param m: real[3]
param M: real[5, 3]
param Lr: real[3, 3]
param v: real[3]
`
	// lower returns the lower triangle of x [d, d] with exp on its
	// diagonal: the Cholesky factor that lowerL of the params writes.
	lower := func(x []float64) []float64 {
		l := make([]float64, d*d)
		for i := range d {
			for j := 0; j < i; j++ {
				l[i*d+j] = x[i*d+j]
			}
			l[i*d+i] = math.Exp(x[i*d+i])
		}
		return l
	}
	const lowerL = "let L = Lr .* Low + diag(exp(diag(Lr)))\n"
	llt := func(l []float64) []float64 {
		s := make([]float64, d*d)
		for i := range d {
			for j := range d {
				for k := range d {
					s[i*d+j] += l[i*d+k] * l[j*d+k]
				}
			}
		}
		return s
	}
	// x's layout: a, m [3], M [5, 3], Lr [3, 3], v [3]
	type parts struct {
		nu       float64
		m, M, lr []float64
		v        []float64
	}
	split := func(x []float64) parts {
		return parts{math.Exp(x[0]), x[1:4], x[4:19], x[19:28], x[28:31]}
	}
	sumRows := func(t *testing.T, nu float64, rows []float64, mu func(r int) []float64, s []float64) float64 {
		var lp float64
		for r := range len(rows) / d {
			v, err := dist.MultiStudentT{Nu: nu, Mu: mu(r), Sigma: s}.LogProb(rows[r*d:r*d+d], nil)
			if err != nil {
				t.Fatal(err)
			}
			lp += v
		}
		return lp
	}
	for _, c := range []struct {
		name, src string
		want      func(t *testing.T, p parts) float64
	}{
		{"data rows, shared row", "Y ~ MultiStudentT(exp(a), m', S)\n", func(t *testing.T, p parts) float64 {
			return sumRows(t, p.nu, y, func(int) []float64 { return p.m }, sigma)
		}},
		{"data rows, shared vector, Cholesky", lowerL + "Y ~ MultiStudentTCholesky(exp(a), m, L)\n", func(t *testing.T, p parts) float64 {
			return sumRows(t, p.nu, y, func(int) []float64 { return p.m }, llt(lower(p.lr)))
		}},
		{"param rows, a location per row", lowerL + "M ~ MultiStudentT(exp(a), Y, L * L')\n", func(t *testing.T, p parts) float64 {
			return sumRows(t, p.nu, p.M, func(r int) []float64 { return y[r*d : r*d+d] }, llt(lower(p.lr)))
		}},
		{"a loop over the rows", lowerL + "for i in 0:5 {\n  M[i] ~ MultiStudentTCholesky(exp(a), Y[i], L)\n}\n", func(t *testing.T, p parts) float64 {
			return sumRows(t, p.nu, p.M, func(r int) []float64 { return y[r*d : r*d+d] }, llt(lower(p.lr)))
		}},
		{"param vector, scalar location, constant nu", lowerL + "v ~ MultiStudentTCholesky(3.5, 1, L)\n", func(t *testing.T, p parts) float64 {
			return sumRows(t, 3.5, p.v, func(int) []float64 { return []float64{1, 1, 1} }, llt(lower(p.lr)))
		}},
		{"param vector, row location, large nu", "v ~ MultiStudentT(1e5 * exp(a), m', S)\n", func(t *testing.T, p parts) float64 {
			return sumRows(t, 1e5*p.nu, p.v, func(int) []float64 { return p.m }, sigma)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, "mst.gpp", head+c.src, nil, in)
			if m.Dim != 31 {
				t.Fatalf("Dim = %d, want 31", m.Dim)
			}
			x, g := make([]float64, m.Dim), make([]float64, m.Dim)
			for trial := range 3 {
				fillNormal(x, rng, 0, 0.5)
				got, err := m.LogJoint(x, g)
				if err != nil {
					t.Fatal(err)
				}
				if want := c.want(t, split(x)); math.Abs(got-want) > mstTol*max(1, math.Abs(want)) {
					t.Errorf("trial %d: log joint %.17g, dist.MultiStudentT %.17g", trial, got, want)
				}
			}
			checkGradient(t, m, 5, 0.5)
			if a := testing.AllocsPerRun(10, func() { m.LogJoint(x, g) }); a != 0 {
				t.Errorf("LogJoint allocates %v times per call, want 0", a)
			}
		})
	}
}

// MultiStudentT and MultiStudentTCholesky replicates: one vector from a
// scalar location, a row per row of a matrix location; their draws have
// the location as mean and nu / (nu − 2) Sigma as covariance, each row
// its own scale draw (so rows are uncorrelated but not independent of a
// shared one: the fourth moment across rows tells the two apart).
func TestPredictiveMultiStudentT(t *testing.T) {
	src := `data S: real[2, 2]
data M: real[2, 2]
data L: real[2, 2]
param a: real ~ Normal(0, 1)
output y1 ~ MultiStudentT(7, 2, S)
output Y2 ~ MultiStudentTCholesky(7, M, L)
`
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"S": {Name: "S", Shape: []int{2, 2}, Values: []float64{2, 0.6, 0.6, 1}},
		"M": {Name: "M", Shape: []int{2, 2}, Values: []float64{1, -1, 0, 3}},
		"L": {Name: "L", Shape: []int{2, 2}, Values: []float64{1, 0, 0.5, 2}},
	}}
	m := compileSrc(t, "mst.gpp", src, nil, in)
	want := map[string]string{"y1": "[2]", "Y2": "[2 2]"}
	for _, o := range m.Outputs {
		if got := fmt.Sprint(o.Shape); got != want[o.Name] {
			t.Errorf("%s: shape %s, want %s", o.Name, got, want[o.Name])
		}
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(5, 6)))
	const n = 40000
	const f = 7.0 / 5 // nu / (nu − 2)
	var s1 [2]float64
	var s11 [2][2]float64
	var s2 [4]float64
	var s22 [4]float64
	var cross4 float64 // E[(Y2[0,0]−1)² (Y2[1,0])²]: rows independent → product of the variances
	for range n {
		_, outs, err := ev.Eval([]float64{0})
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range outs[0] {
			s1[i] += x - 2
			for j, y := range outs[0] {
				s11[i][j] += (x - 2) * (y - 2)
			}
		}
		mu := []float64{1, -1, 0, 3}
		for i, x := range outs[1] {
			s2[i] += x - mu[i]
			s22[i] += (x - mu[i]) * (x - mu[i])
		}
		cross4 += (outs[1][0] - 1) * (outs[1][0] - 1) * outs[1][2] * outs[1][2]
	}
	const sds = 5
	check := func(what string, got, want, se float64) {
		t.Helper()
		if math.Abs(got-want) > sds*se {
			t.Errorf("%s = %.4f, want %.4f ± %.4f", what, got, want, sds*se)
		}
	}
	// the variance of a squared t element is (kurtosis − 1) var²; a t_7's
	// kurtosis is 3 + 6/(7 − 4) = 5
	seVar := func(v float64) float64 { return math.Sqrt(4 * v * v / n) }
	check("y1 mean 0", s1[0]/n, 0, math.Sqrt(f*2/n))
	check("y1 mean 1", s1[1]/n, 0, math.Sqrt(f*1/n))
	check("y1 var 0", s11[0][0]/n, f*2, seVar(f*2))
	check("y1 var 1", s11[1][1]/n, f*1, seVar(f*1))
	check("y1 corr", s11[0][1]/math.Sqrt(s11[0][0]*s11[1][1]), 0.6/math.Sqrt(2), 1.5/math.Sqrt(n))
	// L L' = [[1, 0.5], [0.5, 4.25]]
	for i, v := range []float64{1, 4.25, 1, 4.25} {
		check(fmt.Sprintf("Y2 mean %d", i), s2[i]/n, 0, math.Sqrt(f*v/n))
		check(fmt.Sprintf("Y2 var %d", i), s22[i]/n, f*v, seVar(f*v))
	}
	// independent rows: E[a² b²] = var a · var b = f²; a shared scale draw
	// would give f² · (nu − 2)/(nu − 4) = 5/3 f²
	check("Y2 rows' fourth moment", cross4/n, f*f, 3*f*f/math.Sqrt(n))
}

// The rows of MultiStudentT, MultiStudentTCholesky, MvNormalPrec and
// DirichletMultinomial are a minibatch's terms whole: averaged over every
// batch, the batch log joint and gradient are the full ones (the shared
// log determinant and normaliser scaled with the rows, not left as a
// prior).
func TestMinibatchUnbiasedNewMultivariate(t *testing.T) {
	const n = 7
	in := batchInput(n, 2)
	in.JSON["C"] = &data.Array{Name: "C", Shape: []int{n, 3}, Int: true}
	rng := rand.New(rand.NewPCG(2, 9))
	for range 3 * n {
		in.JSON["C"].Values = append(in.JSON["C"].Values, float64(rng.IntN(6)))
	}
	src := `data Y: real[N, D]
data C: int<lower=0>[N, 3]
param m: real[D] ~ Normal(0, 1)
param nu: positive ~ Gamma(2, 0.5)
param tau: positive[D] ~ HalfNormal(2)
param p: simplex[3] ~ Dirichlet(2)
Y ~ MultiStudentT(nu, m', diag(square(tau)))
Y ~ MultiStudentTCholesky(nu + 1, m, diag(tau))
Y ~ MvNormalPrec(m, diag(tau))
C ~ DirichletMultinomial(5 * p)
`
	testUnbiased(t, compileSrc(t, "mb.gpp", src, nil, in), n)
}

// A MultiStudentTCholesky factor with a diagonal entry not > 0 is an
// error at the distribution that names the entry, as MvNormalCholesky's.
func TestMultiStudentTCholeskyBadFactor(t *testing.T) {
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"Y": {Name: "Y", Shape: []int{2, 2}, Values: []float64{1, 2, 0, -1}},
	}}
	m := compileSrc(t, "bad.gpp", "data Y: real[N, 2]\nparam s: real\nY ~ MultiStudentTCholesky(4, 0, diag([1, s]))\n", nil, in)
	_, err := m.LogJoint([]float64{-0.5}, make([]float64, 1))
	if err == nil || !strings.Contains(err.Error(), "bad.gpp:3:5: logdet: the diagonal of L must be > 0 (got -0.5 at L[1, 1])") {
		t.Errorf("error %v, want one at the distribution naming L[1, 1]", err)
	}
}

package compile

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// gpTol bounds the difference of a covariance function from its direct
// computation, relative to max(1, |value|).
const gpTol = 1e-13

// gpInput is a small data set for the covariance functions: points x [5]
// (two of them equal, so a distance is 0 off the diagonal), points X [4, 2]
// by rows, and y [5].
func gpInput() data.Input {
	return data.Input{File: "gp.json", JSON: map[string]*data.Array{
		"x": {Name: "x", Shape: []int{5}, Values: []float64{-0.3, 0.4, 0.4, 1.7, 2.05}},
		"X": {Name: "X", Shape: []int{4, 2}, Values: []float64{0, 0, 0.5, -0.2, 1.1, 0.9, -0.6, 1.3}},
		"y": {Name: "y", Shape: []int{5}, Values: []float64{0.2, -0.1, 0.35, 1.1, 0.8}},
	}}
}

// gpKernel is the covariance of two points at distance d, written out.
func gpKernel(name string, d, alpha, rho, p float64) float64 {
	a2 := alpha * alpha
	switch name {
	case "gp_exp_quad_cov":
		return a2 * math.Exp(-d*d/(2*rho*rho))
	case "gp_exponential_cov":
		return a2 * math.Exp(-d/rho)
	case "gp_matern32_cov":
		return a2 * (1 + math.Sqrt(3)*d/rho) * math.Exp(-math.Sqrt(3)*d/rho)
	case "gp_matern52_cov":
		return a2 * (1 + math.Sqrt(5)*d/rho + 5*d*d/(3*rho*rho)) * math.Exp(-math.Sqrt(5)*d/rho)
	case "gp_periodic_cov":
		s := math.Sin(math.Pi * d / p)
		return a2 * math.Exp(-2*s*s/(rho*rho))
	}
	panic("no kernel " + name)
}

var gpKernels = []string{"gp_exp_quad_cov", "gp_exponential_cov", "gp_matern32_cov", "gp_matern52_cov", "gp_periodic_cov"}

// Each covariance function of vector and matrix points, entry by entry,
// against the kernel of the distance computed directly; and add_diag of a
// scalar and of a vector.
func TestGPCovValues(t *testing.T) {
	src := "data x: real[N]\ndata X: real[M, 2]\ndata y: real[N]\n" +
		"param alpha: positive ~ HalfNormal(1)\nparam rho: positive ~ InvGamma(5, 5)\nparam p: positive ~ LogNormal(0, 1)\n" +
		"param v: real[N] ~ Normal(0, 1)\n" +
		"output a = alpha\noutput r = rho\noutput q = p\n"
	for _, k := range gpKernels {
		extra := ""
		if k == "gp_periodic_cov" {
			extra = ", p"
		}
		src += fmt.Sprintf("output %s_x = %s(x, alpha, rho%s)\noutput %s_X = %s(X, alpha, rho%s)\n", k, k, extra, k, k, extra)
	}
	src += "output Ds = add_diag(gp_exp_quad_cov(x, alpha, rho), square(rho))\noutput Dv = add_diag(gp_exp_quad_cov(x, alpha, rho), v)\n"
	m := compileSrc(t, "gp.gpp", src, nil, gpInput())
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	z := make([]float64, m.Dim)
	for i := range z {
		z[i] = 0.4 - 0.23*float64(i) + 0.05*float64(i*i%5)
	}
	_, outs, err := ev.Eval(z)
	if err != nil {
		t.Fatal(err)
	}
	alpha, rho, p := outs[0][0], outs[1][0], outs[2][0]
	in := gpInput().JSON
	x, X := in["x"].Values, in["X"].Values
	dist := func(pts []float64, dim, i, j int) float64 {
		s := 0.0
		for k := range dim {
			s += (pts[i*dim+k] - pts[j*dim+k]) * (pts[i*dim+k] - pts[j*dim+k])
		}
		return math.Sqrt(s)
	}
	check := func(name string, got []float64, n int, want func(i, j int) float64) {
		t.Helper()
		if len(got) != n*n {
			t.Fatalf("%s: %d values, want %d", name, len(got), n*n)
		}
		for i := range n {
			for j := range n {
				w := want(i, j)
				if g := got[i*n+j]; math.Abs(g-w) > gpTol*max(1, math.Abs(w)) {
					t.Errorf("%s[%d, %d] = %.17g, want %.17g", name, i, j, g, w)
				}
			}
		}
	}
	for i, k := range gpKernels {
		kx, kX := outs[3+2*i], outs[4+2*i]
		if s := fmt.Sprint(m.Outputs[3+2*i].Shape, m.Outputs[4+2*i].Shape); s != "[5 5] [4 4]" {
			t.Errorf("%s: shapes %s, want [5 5] [4 4]", k, s)
		}
		check(k+"(x)", kx, 5, func(i, j int) float64 { return gpKernel(k, dist(x, 1, i, j), alpha, rho, p) })
		check(k+"(X)", kX, 4, func(i, j int) float64 { return gpKernel(k, dist(X, 2, i, j), alpha, rho, p) })
	}
	v := z[len(z)-5:] // v is the last latent
	n := len(gpKernels)
	for _, c := range []struct {
		name string
		out  []float64
		diag func(i int) float64
	}{{"add_diag(K, square(rho))", outs[3+2*n], func(int) float64 { return rho * rho }},
		{"add_diag(K, v)", outs[4+2*n], func(i int) float64 { return v[i] }}} {
		check(c.name, c.out, 5, func(i, j int) float64 {
			w := gpKernel("gp_exp_quad_cov", dist(x, 1, i, j), alpha, rho, p)
			if i == j {
				w += c.diag(i)
			}
			return w
		})
	}
}

// The log joint's gradient through each covariance function of data
// points, in alpha, rho and p, against finite differences; with a scalar
// and a vector add_diag; and through gp_exp_quad_cov of param points, in
// the points too (vector and matrix, with two points equal in the
// starting values of none: the diagonal's zero distance is exact).
func TestGPCovGradient(t *testing.T) {
	const head = "data x: real[N]\ndata X: real[M, 2]\ndata y: real[N]\n" +
		"param alpha: positive ~ HalfNormal(1)\nparam rho: positive ~ InvGamma(5, 5)\nparam sigma: positive ~ HalfNormal(1)\n"
	for _, c := range []struct{ name, body string }{
		{"exp_quad", "y ~ MvNormal(0, add_diag(gp_exp_quad_cov(x, alpha, rho), square(sigma)))\n"},
		{"exp_quad chol", "y ~ MvNormalCholesky(0, chol(add_diag(gp_exp_quad_cov(x, alpha, rho), square(sigma))))\n"},
		{"exponential", "y ~ MvNormal(0, add_diag(gp_exponential_cov(x, alpha, rho), sigma))\n"},
		{"matern32", "y ~ MvNormal(0, add_diag(gp_matern32_cov(x, alpha, rho), sigma))\n"},
		{"matern52", "y ~ MvNormal(0, add_diag(gp_matern52_cov(x, alpha, rho), sigma))\n"},
		{"periodic", "param p: positive ~ LogNormal(0, 1)\ny ~ MvNormal(0, add_diag(gp_periodic_cov(x, alpha, rho, p), sigma))\n"},
		{"matrix points", "param f: real[M] ~ MvNormal(0, add_diag(gp_matern52_cov(X, alpha, rho), 1e-3))\n" +
			"param g: real[M] ~ MvNormal(0, add_diag(gp_exp_quad_cov(X, alpha, rho), sigma * [1, 2, 3, 4]))\n"},
		{"param points", "param z: real[N] ~ Normal(0, 1)\ny ~ MvNormal(0, add_diag(gp_exp_quad_cov(z, alpha, rho), square(sigma)))\n"},
		{"param matrix points", "param Z: real[N, 2] ~ Normal(0, 1)\ny ~ MvNormal(0, add_diag(gp_exp_quad_cov(Z, alpha, rho), square(sigma)))\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, "gp.gpp", head+c.body, nil, gpInput())
			checkGradient(t, m, 11, 0.5)
		})
	}
}

// gp_exp_quad_cov of param points equals the same function of the same
// points given as data, value and gradient in alpha, rho and sigma: the
// tape's squared distances and the compile-time ones agree.
func TestGPParamPointsMatchData(t *testing.T) {
	const tail = "param alpha: positive ~ HalfNormal(1)\nparam rho: positive ~ InvGamma(5, 5)\nparam sigma: positive ~ HalfNormal(1)\n" +
		"y ~ MvNormal(0, add_diag(gp_exp_quad_cov(X, alpha, rho), square(sigma)))\n"
	in := gpInput()
	in.JSON["y"] = &data.Array{Name: "y", Shape: []int{4}, Values: []float64{0.3, -0.2, 0.9, 0.1}}
	withData := compileSrc(t, "d.gpp", "data X: real[M, 2]\ndata y: real[M]\n"+tail, nil, in)
	// X flat: at X's data values the two log joints are the same.
	withParam := compileSrc(t, "p.gpp", "data y: real[4]\nparam X: real[4, 2]\n"+tail, nil, in)
	Xv := in.JSON["X"].Values
	for _, w := range [][]float64{{0.1, -0.3, 0.2}, {-0.7, 0.5, -1.1}} {
		gd := make([]float64, withData.Dim)
		lpd, err := withData.LogJoint(w, gd)
		if err != nil {
			t.Fatal(err)
		}
		zp := append(append([]float64(nil), Xv...), w...)
		gp := make([]float64, withParam.Dim)
		lpp, err := withParam.LogJoint(zp, gp)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(lpd-lpp) > 1e-12*max(1, math.Abs(lpd)) {
			t.Errorf("at %v: log joint %.17g with data points, %.17g with param points", w, lpd, lpp)
		}
		for i := range w {
			if g, h := gd[i], gp[len(Xv)+i]; math.Abs(g-h) > 1e-12*max(1, math.Abs(g)) {
				t.Errorf("at %v: d/d%s = %.17g with data points, %.17g with param points", w, withData.LatentOf(i), g, h)
			}
		}
	}
}

// examples/gp.gpp's log joint, with its data, against finite differences.
func TestGPExampleGradient(t *testing.T) {
	f, err := os.Open("../../examples/gp.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := data.ReadCSV("gp.csv", f)
	if err != nil {
		t.Fatal(err)
	}
	m := compileFile(t, "../../examples/gp.gpp", nil, data.Input{File: "gp.csv", Table: tab})
	if m.Dim != 3 {
		t.Fatalf("Dim = %d, want 3", m.Dim)
	}
	checkGradient(t, m, 5, 0.5)
}

// A vector d whose length only the data show to differ from K's is an
// error at d when the model compiles.
func TestAddDiagDataMismatch(t *testing.T) {
	in := data.Input{File: "k.json", JSON: map[string]*data.Array{
		"K": {Name: "K", Shape: []int{2, 2}, Values: []float64{1, 0, 0, 1}},
	}}
	_, err := compileSrcErr(t, "k.gpp", "data K: real[N, N]\nlet A = add_diag(K, [1, 2, 3])\noutput s = sum(A)\n", nil, in)
	const want = "k.gpp:2:21: add_diag: d has 3 elements with these data but K is [2, 2]"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want %q…", err, want)
	}
}

// BenchmarkGPRegression times one log joint and gradient of the GP
// regression of examples/gp.gpp on n = 100 data points: the kernel of the
// constant squared distances (one exp over n² entries) and MvNormal's
// factorisation.
func BenchmarkGPRegression(b *testing.B) {
	const n = 100
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = -2 + 4*float64(i)/n
		y[i] = math.Sin(2*x[i]) + 0.1*math.Cos(17*x[i])
	}
	in := data.Input{File: "gp.json", JSON: map[string]*data.Array{
		"x": {Name: "x", Shape: []int{n}, Values: x}, "y": {Name: "y", Shape: []int{n}, Values: y}}}
	m := compileFile(b, "../../examples/gp.gpp", nil, in)
	z, grad := []float64{-0.5, 0, -1.5}, make([]float64, 3)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.LogJoint(z, grad); err != nil {
			b.Fatal(err)
		}
	}
}

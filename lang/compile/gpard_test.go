package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"gonum.org/v1/gonum/diff/fd"
)

// checkGradientAt compares the log joint's gradient at x with central
// finite differences, each partial finite.
func checkGradientAt(t *testing.T, m *Model, x []float64) {
	t.Helper()
	grad := make([]float64, m.Dim)
	if _, err := m.LogJoint(x, grad); err != nil {
		t.Fatalf("LogJoint: %v", err)
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
		if err := math.Abs(grad[i]-want[i]) / math.Max(1, math.Abs(want[i])); !(err <= gradTol) {
			t.Errorf("d/dx[%d] (%s) = %.10g, finite differences %.10g (rel. error %.2g)", i, m.LatentOf(i), grad[i], want[i], err)
		}
	}
}

// The Matérn and periodic kernels of param points (Kennedy–O'Hagan's
// calibration parameter among the emulator's inputs): the log joint's
// gradient against finite differences at random points and at points where
// two of them meet (z[1] = z[2], Z's rows 1 and 2, and a param point on a
// data point in the two-input form), where the distance has no derivative
// but the kernels do (their slope in d is 0 at 0), and which a partial
// through 1 / d would make NaN.
func TestGPParamPointsCoincidentGradient(t *testing.T) {
	const head = "data x: real[N]\ndata y: real[N]\n" +
		"param alpha: positive ~ HalfNormal(1)\nparam rho: positive ~ InvGamma(5, 5)\nparam sigma: positive ~ HalfNormal(1)\n"
	for _, k := range []string{"gp_matern32_cov", "gp_matern52_cov", "gp_periodic_cov", "gp_exp_quad_cov"} {
		extra := ""
		if k == "gp_periodic_cov" {
			extra = ", 1.5"
		}
		for _, c := range []struct{ name, body, z string }{
			{"vector", fmt.Sprintf("param z: real[N] ~ Normal(0, 1)\ny ~ MvNormal(0, add_diag(%s(z, alpha, rho%s), square(sigma)))\n", k, extra), "z"},
			{"matrix", fmt.Sprintf("param Z: real[N, 2] ~ Normal(0, 1)\ny ~ MvNormal(0, add_diag(%s(Z, alpha, rho%s), square(sigma)))\n", k, extra), "Z"},
			{"cross", fmt.Sprintf("param z: real[N] ~ Normal(0, 1)\ny ~ MvNormal(0, add_diag(%s(z, x, alpha, rho%s) * %s(x, z, alpha, rho%s), square(sigma)))\n", k, extra, k, extra), "z"},
		} {
			t.Run(k+"/"+c.name, func(t *testing.T) {
				m := compileSrc(t, "gp.gpp", head+c.body, nil, gpInput())
				rng := rand.New(rand.NewPCG(7, 3))
				x := make([]float64, m.Dim)
				fillNormal(x, rng, 0, 0.5)
				checkGradientAt(t, m, x)
				o := latentOffset(t, m, c.z)
				switch c.name {
				case "vector":
					x[o+2] = x[o+1]
				case "matrix": // rows 1 and 2 of [5, 2]
					x[o+4], x[o+5] = x[o+2], x[o+3]
				case "cross": // z[0] on the data point x[1]
					x[o] = gpInput().JSON["x"].Values[1]
				}
				checkGradientAt(t, m, x)
			})
		}
	}
}

// The Matérn and periodic kernels of param points equal the same kernels
// of the same points given as data, value and gradient in alpha, rho and
// sigma.
func TestGPKernelsParamPointsMatchData(t *testing.T) {
	in := gpInput()
	in.JSON["y"] = &data.Array{Name: "y", Shape: []int{4}, Values: []float64{0.3, -0.2, 0.9, 0.1}}
	Xv := in.JSON["X"].Values
	for _, k := range []string{"gp_matern32_cov(X, alpha, rho)", "gp_matern52_cov(X, alpha, rho)", "gp_periodic_cov(X, alpha, rho, 1.3)"} {
		tail := "param alpha: positive ~ HalfNormal(1)\nparam rho: positive ~ InvGamma(5, 5)\nparam sigma: positive ~ HalfNormal(1)\n" +
			"y ~ MvNormal(0, add_diag(" + k + ", square(sigma)))\n"
		withData := compileSrc(t, "d.gpp", "data X: real[M, 2]\ndata y: real[M]\n"+tail, nil, in)
		withParam := compileSrc(t, "p.gpp", "data y: real[4]\nparam X: real[4, 2]\n"+tail, nil, in)
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
				t.Errorf("%s at %v: log joint %.17g with data points, %.17g with param points", k, w, lpd, lpp)
			}
			for i := range w {
				if g, h := gd[i], gp[len(Xv)+i]; math.Abs(g-h) > 1e-12*max(1, math.Abs(g)) {
					t.Errorf("%s at %v: d/d%s = %.17g with data points, %.17g with param points", k, w, withData.LatentOf(i), g, h)
				}
			}
		}
	}
}

// ardInput has points X [4, 2] with rows 0 and 3 equal (a zero distance
// off the diagonal), new points W [3, 2] and y [4].
func ardInput() data.Input {
	return data.Input{File: "ard.json", JSON: map[string]*data.Array{
		"X": {Name: "X", Shape: []int{4, 2}, Values: []float64{0.2, -0.4, 0.5, 0.3, 1.1, 0.9, 0.2, -0.4}},
		"W": {Name: "W", Shape: []int{3, 2}, Values: []float64{-0.6, 1.3, 0.5, 0.3, 2, -1}},
		"y": {Name: "y", Shape: []int{4}, Values: []float64{0.3, -0.2, 0.9, 0.1}},
	}}
}

var ardKernels = []string{"gp_exp_quad_cov", "gp_exponential_cov", "gp_matern32_cov", "gp_matern52_cov"}

// A vector rho (ARD, Stan's array length_scale): each kernel of data and
// of param points, one-input and two-input, entry by entry against the
// kernel of rho = 1 at the distance with coordinate k divided by rho[k].
func TestGPARDValues(t *testing.T) {
	src := "data X: real[M, 2]\ndata W: real[K, 2]\nparam alpha: positive ~ HalfNormal(1)\nparam rho: positive[2] ~ InvGamma(5, 5)\n" +
		"param Z: real[M, 2] ~ Normal(0, 1)\noutput a = alpha\noutput r = rho\noutput z = Z\n"
	for _, k := range ardKernels {
		src += fmt.Sprintf("output %s_X = %s(X, alpha, rho)\noutput %s_WX = %s(W, X, alpha, rho)\n", k, k, k, k)
		if k != "gp_exponential_cov" {
			src += fmt.Sprintf("output %s_Z = %s(Z, alpha, rho)\noutput %s_WZ = %s(W, Z, alpha, rho)\n", k, k, k, k)
		}
	}
	m := compileSrc(t, "ard.gpp", src, nil, ardInput())
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
	alpha, rho, Z := outs[0][0], outs[1], outs[2]
	if rho[0] == rho[1] {
		t.Fatalf("rho = %v: one length-scale tests nothing", rho)
	}
	in := ardInput().JSON
	X, W := in["X"].Values, in["W"].Values
	dist := func(a []float64, i int, b []float64, j int) float64 {
		s := 0.0
		for k := range 2 {
			t := (a[2*i+k] - b[2*j+k]) / rho[k]
			s += t * t
		}
		return math.Sqrt(s)
	}
	check := func(kernel, name string, got []float64, p1 []float64, n1 int, p2 []float64, n2 int) {
		t.Helper()
		if len(got) != n1*n2 {
			t.Fatalf("%s: %d values, want %d", name, len(got), n1*n2)
		}
		for i := range n1 {
			for j := range n2 {
				w := gpKernel(kernel, dist(p1, i, p2, j), alpha, 1, 0)
				if g := got[i*n2+j]; math.Abs(g-w) > gpTol*max(1, math.Abs(w)) {
					t.Errorf("%s[%d, %d] = %.17g, want %.17g", name, i, j, g, w)
				}
			}
		}
	}
	o := 3
	for _, k := range ardKernels {
		check(k, k+"(X)", outs[o], X, 4, X, 4)
		check(k, k+"(W, X)", outs[o+1], W, 3, X, 4)
		o += 2
		if k != "gp_exponential_cov" {
			check(k, k+"(Z)", outs[o], Z, 4, Z, 4)
			check(k, k+"(W, Z)", outs[o+1], W, 3, Z, 4)
			o += 2
		}
	}
}

// The log joint's gradient through a vector rho against finite
// differences: each kernel of data points (two of them equal, so the
// distance is 0 off the diagonal too), of param points, and the two-input
// form.
func TestGPARDGradient(t *testing.T) {
	const head = "data X: real[M, 2]\ndata W: real[K, 2]\ndata y: real[M]\n" +
		"param alpha: positive ~ HalfNormal(1)\nparam rho: positive[2] ~ InvGamma(5, 5)\nparam sigma: positive ~ HalfNormal(1)\n"
	for _, k := range ardKernels {
		bodies := []string{
			fmt.Sprintf("y ~ MvNormal(0, add_diag(%s(X, alpha, rho), square(sigma)))\n", k),
			fmt.Sprintf("y ~ MvNormal(0, add_diag(crossprod(%s(W, X, alpha, rho)), square(sigma)))\n", k),
		}
		if k != "gp_exponential_cov" {
			bodies = append(bodies,
				fmt.Sprintf("param Z: real[M, 2] ~ Normal(X, 0.1)\ny ~ MvNormal(0, add_diag(%s(Z, alpha, rho), square(sigma)))\n", k),
				fmt.Sprintf("param Z: real[M, 2] ~ Normal(X, 0.1)\ny ~ MvNormal(0, add_diag(crossprod(%s(W, Z, alpha, rho)), square(sigma)))\n", k))
		}
		for i, body := range bodies {
			t.Run(fmt.Sprintf("%s/%d", k, i), func(t *testing.T) {
				m := compileSrc(t, "ard.gpp", head+body, nil, ardInput())
				checkGradient(t, m, 5, 0.5)
			})
		}
	}
}

// A vector rho whose length only the data show to differ from the points'
// dimension is an error at rho when the model compiles.
func TestGPARDDataMismatch(t *testing.T) {
	in := data.Input{File: "k.json", JSON: map[string]*data.Array{
		"X": {Name: "X", Shape: []int{2, 3}, Values: []float64{1, 0, 0, 1, 2, 3}},
		"r": {Name: "r", Shape: []int{2}, Values: []float64{1, 2}},
	}}
	_, err := compileSrcErr(t, "k.gpp", "data X: real[N, D]\ndata r: positive[2]\noutput K = gp_matern32_cov(X, 1, r)\n", nil, in)
	const want = "k.gpp:3:34: gp_matern32_cov: rho has 2 elements with these data but the points are of dimension 3 ([2, 3])"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want %q…", err, want)
	}
}

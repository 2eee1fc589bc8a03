package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// gpCrossInput is gpInput with second sets of points: u [3] (one of them
// equal to a point of x, so a cross distance is 0) and U [3, 2] (one equal
// to a row of X).
func gpCrossInput() data.Input {
	in := gpInput()
	in.JSON["u"] = &data.Array{Name: "u", Shape: []int{3}, Values: []float64{0.4, -1.1, 2.6}}
	in.JSON["U"] = &data.Array{Name: "U", Shape: []int{3, 2}, Values: []float64{0.5, -0.2, 1.4, 0.3, -0.9, -0.7}}
	return in
}

// gpDist is the Euclidean distance of point i of p (dim coordinates a
// row) and point j of q.
func gpDist(p, q []float64, dim, i, j int) float64 {
	s := 0.0
	for k := range dim {
		s += (p[i*dim+k] - q[j*dim+k]) * (p[i*dim+k] - q[j*dim+k])
	}
	return math.Sqrt(s)
}

// Each covariance function's two-input form, of vector and of matrix
// points, entry by entry against the kernel of the distance computed
// directly, [n1, n2]; gp_exp_quad_cov with param points on either side
// and on both; and f(x, x, ...) equal to f(x, ...) bit for bit.
func TestGPCrossValues(t *testing.T) {
	src := "data x: real[N]\ndata X: real[M, 2]\ndata u: real[K]\ndata U: real[L, 2]\n" +
		"param alpha: positive ~ HalfNormal(1)\nparam rho: positive ~ InvGamma(5, 5)\nparam p: positive ~ LogNormal(0, 1)\n" +
		"param w: real[3] ~ Normal(0, 1)\nparam W: real[2, 2] ~ Normal(0, 1)\n" +
		"output a = alpha\noutput r = rho\noutput q = p\noutput wv = w\noutput Wv = W\n"
	for _, k := range gpKernels {
		extra := ""
		if k == "gp_periodic_cov" {
			extra = ", p"
		}
		src += fmt.Sprintf("output %[1]s_xu = %[1]s(x, u, alpha, rho%[2]s)\noutput %[1]s_UX = %[1]s(U, X, alpha, rho%[2]s)\n", k, extra)
		src += fmt.Sprintf("output %[1]s_xx = %[1]s(x, x, alpha, rho%[2]s)\noutput %[1]s_x = %[1]s(x, alpha, rho%[2]s)\n", k, extra)
	}
	src += "output xw = gp_exp_quad_cov(x, w, alpha, rho)\noutput wx = gp_exp_quad_cov(w, x, alpha, rho)\n" +
		"output ww = gp_exp_quad_cov(w, w, alpha, rho)\noutput WU = gp_exp_quad_cov(W, U, alpha, rho)\noutput XW = gp_exp_quad_cov(X, W, alpha, rho)\n"
	m := compileSrc(t, "gp.gpp", src, nil, gpCrossInput())
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
	byName := map[string][]float64{}
	shapes := map[string]string{}
	for i, o := range m.Outputs {
		byName[o.Name] = outs[i]
		shapes[o.Name] = fmt.Sprint(o.Shape)
	}
	alpha, rho, p := byName["a"][0], byName["r"][0], byName["q"][0]
	in := gpCrossInput().JSON
	x, X, u, U := in["x"].Values, in["X"].Values, in["u"].Values, in["U"].Values
	w, W := byName["wv"], byName["Wv"]
	check := func(name string, n1, n2 int, want func(i, j int) float64) {
		t.Helper()
		got := byName[name]
		if s := fmt.Sprint([]int{n1, n2}); shapes[name] != s {
			t.Errorf("%s: shape %s, want %s", name, shapes[name], s)
			return
		}
		for i := range n1 {
			for j := range n2 {
				w := want(i, j)
				if g := got[i*n2+j]; math.Abs(g-w) > gpTol*max(1, math.Abs(w)) {
					t.Errorf("%s[%d, %d] = %.17g, want %.17g", name, i, j, g, w)
				}
			}
		}
	}
	for _, k := range gpKernels {
		kern := func(d float64) float64 { return gpKernel(k, d, alpha, rho, p) }
		check(k+"_xu", 5, 3, func(i, j int) float64 { return kern(gpDist(x, u, 1, i, j)) })
		check(k+"_UX", 3, 4, func(i, j int) float64 { return kern(gpDist(U, X, 2, i, j)) })
		xx, x1 := byName[k+"_xx"], byName[k+"_x"]
		for i := range xx {
			if xx[i] != x1[i] {
				t.Errorf("%s(x, x, …)[%d] = %.17g, %s(x, …) %.17g", k, i, xx[i], k, x1[i])
			}
		}
	}
	if u[0] != x[1] || byName["gp_matern32_cov_xu"][1*3+0] != alpha*alpha {
		t.Errorf("a cross distance of 0 gives %v, want alpha² = %v", byName["gp_matern32_cov_xu"][3], alpha*alpha)
	}
	eq := func(d float64) float64 { return gpKernel("gp_exp_quad_cov", d, alpha, rho, p) }
	check("xw", 5, 3, func(i, j int) float64 { return eq(gpDist(x, w, 1, i, j)) })
	check("wx", 3, 5, func(i, j int) float64 { return eq(gpDist(w, x, 1, i, j)) })
	check("ww", 3, 3, func(i, j int) float64 { return eq(gpDist(w, w, 1, i, j)) })
	check("WU", 2, 3, func(i, j int) float64 { return eq(gpDist(W, U, 2, i, j)) })
	check("XW", 4, 2, func(i, j int) float64 { return eq(gpDist(X, W, 2, i, j)) })
}

// The log joint's gradient through each two-input covariance function of
// data points (in alpha, rho, p, sigma and the param the cross-covariance
// predicts), and through gp_exp_quad_cov of param points on either side
// or both (in the points too), against finite differences.
func TestGPCrossGradient(t *testing.T) {
	const head = "data x: real[N]\ndata X: real[M, 2]\ndata y: real[N]\ndata u: real[K]\ndata U: real[L, 2]\n" +
		"param alpha: positive ~ HalfNormal(1)\nparam rho: positive ~ InvGamma(5, 5)\nparam sigma: positive ~ HalfNormal(1)\n"
	// g, at the new points, from the GP's conditional mean given y.
	pred := func(k, x1, x2, extra string) string {
		return fmt.Sprintf("param g: real[K] ~ Normal(%[1]s(%[2]s, %[3]s, alpha, rho%[4]s) * solve(add_diag(%[1]s(x, alpha, rho%[4]s), square(sigma)), y), 0.5)\n", k, x1, x2, extra)
	}
	cases := []struct{ name, body string }{}
	for _, k := range gpKernels {
		extra, decl := "", ""
		if k == "gp_periodic_cov" {
			extra, decl = ", p", "param p: positive ~ LogNormal(0, 1)\n"
		}
		cases = append(cases, struct{ name, body string }{k, decl + pred(k, "u", "x", extra)},
			struct{ name, body string }{k + " matrix", decl + fmt.Sprintf("param h: real[L] ~ Normal(rowsum(%s(U, X, alpha, rho%s)), 1)\n", k, extra)})
	}
	cases = append(cases,
		struct{ name, body string }{"param x1", "param w: real[3] ~ Normal(0, 1)\n" + "param h: real[3] ~ Normal(gp_exp_quad_cov(w, x, alpha, rho) * y, 1)\n"},
		struct{ name, body string }{"param x2", "param w: real[3] ~ Normal(0, 1)\n" + "param h: real[5] ~ Normal(gp_exp_quad_cov(x, w, alpha, rho) * [1, -1, 2], 1)\n"},
		struct{ name, body string }{"param both", "param w: real[3] ~ Normal(0, 1)\nparam v: real[2] ~ Normal(0, 1)\n" +
			"target += sum((gp_exp_quad_cov(w, v, alpha, rho) * [1, -2]) .* [1, 0.5, -1])\n"},
		struct{ name, body string }{"param matrix", "param W: real[2, 2] ~ Normal(0, 1)\n" +
			"target += sum(gp_exp_quad_cov(X, W, alpha, rho) * [1, -1]) - sum(square(gp_exp_quad_cov(W, U, alpha, rho)))\n"},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, "gp.gpp", head+c.body, nil, gpCrossInput())
			checkGradient(t, m, 12, 0.5)
		})
	}
}

// Points of two dimensions that only the data show are an error at x2
// when the model compiles (the checker's, for dimensions it knows, is in
// lang/check/testdata/gp.gpp).
func TestGPCrossDimensionMismatch(t *testing.T) {
	in := gpCrossInput()
	in.JSON["V"] = &data.Array{Name: "V", Shape: []int{2, 3}, Values: []float64{1, 2, 3, 4, 5, 6}}
	for _, c := range []struct{ src, want string }{
		{"data X: real[M, D]\ndata V: real[L, 3]\noutput k = gp_matern52_cov(X, V, 1, 1)\n",
			"k.gpp:3:31: gp_matern52_cov: the points of x2 are of dimension 3 with these data ([2, 3]) but those of x1 of dimension 2 ([4, 2])"},
		{"data V: real[L, E]\ndata x: real[N]\nparam rho: positive\noutput k = gp_exp_quad_cov(V, x, 1, rho)\n",
			"k.gpp:4:31: gp_exp_quad_cov: the points of x2 are of dimension 1 with these data ([5]) but those of x1 of dimension 3 ([2, 3])"},
	} {
		_, err := compileSrcErr(t, "k.gpp", c.src, nil, in)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("error %v, want %q…", err, c.want)
		}
	}
}

// gpCholesky returns the lower Cholesky factor of the n × n matrix a.
func gpCholesky(a []float64, n int) []float64 {
	l := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			s := a[i*n+j]
			for k := range j {
				s -= l[i*n+k] * l[j*n+k]
			}
			if i == j {
				l[i*n+i] = math.Sqrt(s)
			} else {
				l[i*n+j] = s / l[j*n+j]
			}
		}
	}
	return l
}

// gpForward solves L v = b for a lower-triangular L, n × n.
func gpForward(l []float64, n int, b []float64) []float64 {
	v := make([]float64, n)
	for i := range n {
		s := b[i]
		for k := range i {
			s -= l[i*n+k] * v[k]
		}
		v[i] = s / l[i*n+i]
	}
	return v
}

// examples/gp.gpp's predictions at its new points, against the GP
// conditional computed here with a Cholesky factorisation, at two points
// of the hyperparameters: f_new = K_new K⁻¹ y and f = K_f K⁻¹ y to 1e-10,
// and the draws of f_pred (10000) with f_new's mean and the covariance
// K_nn − K_new K⁻¹ K_new' to Monte Carlo error (5 standard errors).
func TestGPExamplePrediction(t *testing.T) {
	f, err := os.Open("../../examples/gp.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := data.ReadCSV("gp.csv", f)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../../examples/gp.gpp")
	if err != nil {
		t.Fatal(err)
	}
	m := compileSrc(t, "gp.gpp", string(src)+"output t_alpha = alpha\noutput t_rho = rho\noutput t_sigma = sigma\noutput t_x_new = x_new\n",
		nil, data.Input{File: "gp.csv", Table: tab})
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for i, o := range m.Outputs {
		out[o.Name] = i
	}
	x, y := tab.Column("x").Values, tab.Column("y").Values
	n := len(x)
	for _, z := range [][]float64{{-0.5, 0.2, -1.5}, {0.3, -0.4, -2.2}} {
		_, outs, err := ev.Eval(z)
		if err != nil {
			t.Fatal(err)
		}
		alpha, rho, sigma, xn := outs[out["t_alpha"]][0], outs[out["t_rho"]][0], outs[out["t_sigma"]][0], outs[out["t_x_new"]]
		m2 := len(xn)
		kern := func(a, b float64) float64 { return alpha * alpha * math.Exp(-(a-b)*(a-b)/(2*rho*rho)) }
		k := make([]float64, n*n)
		for i := range n {
			for j := range n {
				k[i*n+j] = kern(x[i], x[j])
			}
			k[i*n+i] += sigma * sigma
		}
		l := gpCholesky(k, n)
		v := gpForward(l, n, y) // K⁻¹ y = L'⁻¹ v
		a := make([]float64, n)
		for i := n - 1; i >= 0; i-- {
			s := v[i]
			for j := i + 1; j < n; j++ {
				s -= l[j*n+i] * a[j]
			}
			a[i] = s / l[i*n+i]
		}
		worst := 0.0
		near := func(what string, got, want float64) {
			t.Helper()
			worst = max(worst, math.Abs(got-want)/max(1, math.Abs(want)))
			if math.Abs(got-want) > 1e-10*max(1, math.Abs(want)) {
				t.Errorf("alpha %.4g rho %.4g sigma %.4g: %s = %.15g, want %.15g", alpha, rho, sigma, what, got, want)
			}
		}
		fNew, fIn := outs[out["f_new"]], outs[out["f"]]
		if len(fNew) != m2 || m2 != 11 {
			t.Fatalf("f_new has %d values, x_new %d; want 11", len(fNew), m2)
		}
		mean := make([]float64, m2)
		for i := range m2 {
			for j := range n {
				mean[i] += kern(xn[i], x[j]) * a[j]
			}
			near(fmt.Sprintf("f_new[%d]", i), fNew[i], mean[i])
		}
		for i := range n {
			s := 0.0
			for j := range n {
				s += kern(x[i], x[j]) * a[j]
			}
			near(fmt.Sprintf("f[%d]", i), fIn[i], s)
		}
		// C = K_nn − V'V with V = L⁻¹ K_new'.
		vs := make([][]float64, m2)
		for i := range m2 {
			col := make([]float64, n)
			for j := range n {
				col[j] = kern(xn[i], x[j])
			}
			vs[i] = gpForward(l, n, col)
		}
		c := make([]float64, m2*m2)
		for i := range m2 {
			for j := range m2 {
				c[i*m2+j] = kern(xn[i], xn[j])
				for k := range n {
					c[i*m2+j] -= vs[i][k] * vs[j][k]
				}
			}
		}
		ev.SetRand(rand.New(rand.NewPCG(5, 1)))
		const draws = 10000
		sum, prod := make([]float64, m2), make([]float64, m2*m2)
		for range draws {
			_, outs, err := ev.Eval(z)
			if err != nil {
				t.Fatal(err)
			}
			d := outs[out["f_pred"]]
			for i := range m2 {
				sum[i] += d[i] - mean[i]
				for j := range m2 {
					prod[i*m2+j] += (d[i] - mean[i]) * (d[j] - mean[j])
				}
			}
		}
		for i := range m2 {
			if se := math.Sqrt(c[i*m2+i] / draws); math.Abs(sum[i]/draws) > 5*se {
				t.Errorf("f_pred[%d]: mean %.5g off f_new's %.5g by more than 5 se (%.3g)", i, mean[i]+sum[i]/draws, mean[i], se)
			}
			for j := range m2 {
				got, want := prod[i*m2+j]/draws, c[i*m2+j]
				if se := math.Sqrt((c[i*m2+i]*c[j*m2+j] + want*want) / draws); math.Abs(got-want) > 5*se {
					t.Errorf("f_pred: covariance [%d, %d] %.5g, the conditional's %.5g (se %.2g)", i, j, got, want, se)
				}
			}
		}
		t.Logf("alpha %.3f rho %.3f sigma %.3f: f_new and f within %.1e of the Cholesky computation; conditional sd at x_new %.3f (x = %g) … %.3f (x = %g)",
			alpha, rho, sigma, worst, math.Sqrt(c[0]), xn[0], math.Sqrt(c[5*m2+5]), xn[5])
	}
}

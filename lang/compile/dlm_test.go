package compile

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
)

// dlmTol bounds the Kalman filter's log likelihood against the dense
// multivariate normal of the stacked observations, relative to
// max(1, |value|).
const dlmTol = 1e-11

// dlmDense returns log MvNormal(vec(y) | mean, Cov) of the observations y
// [r, T] of the DLM, the joint distribution written out: θ_t has mean
// G^t m0 and Cov(θ_t, θ_u) = G^{t−u} P_u (t ≥ u), P_t = G P_{t−1} G' + W,
// P_0 = C0; y_t = F'θ_t + ε_t with Cov(ε_t) = V.
func dlmDense(y, F, G, V, W, m0, C0 *mat.Dense, T int) float64 {
	_, r := F.Dims()
	P := make([]*mat.Dense, T+1) // P[t], t = 0..T
	P[0] = mat.DenseCopyOf(C0)
	mu := make([]*mat.Dense, T+1)
	mu[0] = mat.DenseCopyOf(m0)
	for t := 1; t <= T; t++ {
		var gp, p mat.Dense
		gp.Mul(G, P[t-1])
		p.Mul(&gp, G.T())
		p.Add(&p, W)
		P[t] = &p
		var m mat.Dense
		m.Mul(G, mu[t-1])
		mu[t] = &m
	}
	// Cov(θ_t, θ_u) for t ≥ u ≥ 1
	cross := func(t, u int) *mat.Dense {
		c := mat.DenseCopyOf(P[u])
		for range t - u {
			var x mat.Dense
			x.Mul(G, c)
			c = &x
		}
		return c
	}
	cov := mat.NewSymDense(r*T, nil)
	mean := make([]float64, r*T)
	yv := make([]float64, r*T)
	for t := 1; t <= T; t++ {
		var fm mat.Dense
		fm.Mul(F.T(), mu[t])
		for i := range r {
			mean[(t-1)*r+i] = fm.At(i, 0)
			yv[(t-1)*r+i] = y.At(i, t-1)
		}
		for u := 1; u <= t; u++ {
			var a, b mat.Dense
			a.Mul(F.T(), cross(t, u))
			b.Mul(&a, F)
			for i := range r {
				for j := range r {
					v := b.At(i, j)
					if t == u {
						v += V.At(i, j)
					}
					cov.SetSym((t-1)*r+i, (u-1)*r+j, v)
				}
			}
		}
	}
	d, ok := distmv.NewNormal(mean, cov, nil)
	if !ok {
		panic("the stacked covariance is not positive definite")
	}
	return d.LogProb(yv)
}

// GaussianDLMObs in the log joint is the dense multivariate normal of the
// stacked observations (dlmDense, gonum) for T = 5, n = 2 states and r = 2
// observed series, with G, V (a matrix, or a vector of variances), W and
// m0 params; the gradient matches finite differences and a step allocates
// nothing.
func TestGaussianDLMObs(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [[0.3, -1.2, 0.8, 2.0, 1.1], [0.4, -0.6, 0.2, -2.5, 0.9]],
		"F": [[1.0, 0.5], [0.2, 1.0]], "G0": [[0.9, 0.2], [-0.1, 0.7]], "C0": [[2.0, 0.3], [0.3, 1.0]],
		"A": [[1, 0], [0, 0]], "B": [[0, 0.1], [0.1, 0.5]], "O": [[0, 0.3], [0.3, 0]]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	y := mat.NewDense(2, 5, []float64{0.3, -1.2, 0.8, 2.0, 1.1, 0.4, -0.6, 0.2, -2.5, 0.9})
	F := mat.NewDense(2, 2, []float64{1.0, 0.5, 0.2, 1.0})
	G0 := mat.NewDense(2, 2, []float64{0.9, 0.2, -0.1, 0.7})
	C0 := mat.NewDense(2, 2, []float64{2.0, 0.3, 0.3, 1.0})
	const decls = "data y: real[2, 5]\ndata F: real[2, 2]\ndata G0: real[2, 2]\ndata C0: real[2, 2]\ndata A: real[2, 2]\ndata B: real[2, 2]\ndata O: real[2, 2]\nparam g: real\nparam lv: real[2]\nparam lw: real\nparam m0: real[2]\n"
	// x: g, lv[2], lw, m0[2]
	ref := func(diagV bool) func(x []float64) float64 {
		return func(x []float64) float64 {
			var G mat.Dense
			G.Scale(math.Tanh(x[0]), G0)
			V := mat.NewDense(2, 2, []float64{math.Exp(x[1]), 0, 0, math.Exp(x[2])})
			if !diagV {
				V = mat.NewDense(2, 2, []float64{math.Exp(x[1]), 0.3, 0.3, math.Exp(x[2])})
			}
			W := mat.NewDense(2, 2, []float64{math.Exp(x[3]), 0.1, 0.1, 0.5})
			m0 := mat.NewDense(2, 1, []float64{x[4], x[5]})
			return dlmDense(y, F, &G, V, W, m0, C0, 5)
		}
	}
	const args = "F, tanh(g) * G0, %s, exp(lw) * A + B, m0, C0)\n"
	for _, c := range []struct {
		name, v string
		diag    bool
	}{
		{"V a vector of variances", "exp(lv)", true},
		{"V a matrix", "diag(exp(lv)) + O", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := decls + "y ~ GaussianDLMObs(" + strings.Replace(args, "%s", c.v, 1)
			m := compileSrc(t, "dlm.gpp", src, nil, in)
			want := ref(c.diag)
			rng := rand.New(rand.NewPCG(3, 17))
			x, g := make([]float64, m.Dim), make([]float64, m.Dim)
			worst := 0.0
			for trial := range 3 {
				fillNormal(x, rng, 0, 0.8)
				got, err := m.LogJoint(x, g)
				if err != nil {
					t.Fatal(err)
				}
				w := want(x)
				e := math.Abs(got-w) / max(1, math.Abs(w))
				worst = max(worst, e)
				if e > dlmTol {
					t.Errorf("trial %d: Kalman filter %.17g, dense MvNormal %.17g", trial, got, w)
				}
			}
			t.Logf("worst relative difference from the dense form: %.2g", worst)
			checkGradient(t, m, 9, 0.8)
			if a := testing.AllocsPerRun(10, func() { m.LogJoint(x, g) }); a != 0 {
				t.Errorf("LogJoint allocates %v times per call, want 0", a)
			}
		})
	}
}

// BenchmarkGaussianDLMObs times a log joint and gradient of a local
// linear trend (n = 2 states, r = 1 series) over T = 200 times, the
// filter composed of tape nodes.
func BenchmarkGaussianDLMObs(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"y": [[`)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 200 {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64))
	}
	sb.WriteString(`]]}`)
	js, err := data.ReadJSON("d.json", strings.NewReader(sb.String()))
	if err != nil {
		b.Fatal(err)
	}
	m := compileSrc(b, "dlm.gpp", `data y: real[1, 200]
param s: positive ~ HalfNormal(1)
param w: positive[2] ~ HalfNormal(1)
y ~ GaussianDLMObs([1, 0] * [1.0]', append_row([1, 1]', [0, 1]'), rep(square(s), 1), diag(square(w)), rep(0.0, 2), I(2) * 10)
`, nil, data.Input{File: "d.json", JSON: js})
	x, g := make([]float64, m.Dim), make([]float64, m.Dim)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.LogJoint(x, g); err != nil {
			b.Fatal(err)
		}
	}
}

// Sizes the checker cannot compare (data dimensions) are checked when the
// model compiles with its data: an error at the distribution naming the
// argument and the size it needs.
func TestGaussianDLMObsSizes(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"R": 3, "T": 2, "N": 2, "y": [[1, 2], [3, 4], [5, 6]], "F": [[1, 0], [0, 1]], "G": [[1, 0], [0, 1]]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = compileSrcErr(t, "dlm.gpp", `data y: real[R, T]
data F: real[N, 2]
data G: real[N, N]
y ~ GaussianDLMObs(F, G, rep(1.0, 2), I(N), rep(0.0, N), I(N))
`, nil, data.Input{File: "d.json", JSON: js})
	const want = "dlm.gpp:4:5: GaussianDLMObs: F is [2, 2]; with y [3, 2] (r = 3) and G's 2 states it must be [2, 3]"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// A V or C0 known when the model compiles must be a covariance, as Stan
// requires: the filter factors only each step's F' R F + V, which an
// indefinite C0 (here diag(1, -0.5), with V = I keeping every step's
// covariance definite) would leave definite, giving a wrong log
// likelihood and no error; and a vector V's variances must be > 0.
func TestGaussianDLMObsCovariances(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"R": 2, "T": 2, "N": 2, "y": [[1, 2], [3, 4]], "F": [[1, 0], [0, 1]], "G": [[1, 0], [0, 1]]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ v, c0, want string }{
		{"I(2)", "diag([1, -0.5])", "dlm.gpp:4:5: GaussianDLMObs: C0 is not positive definite (its Cholesky factorisation fails), as Stan requires"},
		{"I(2) + [0, 0.5] * [1, 0]'", "I(2)", "dlm.gpp:4:5: GaussianDLMObs: V is not symmetric: element [1, 0] is 0.5, [0, 1] is 0"},
		{"[1.0, 0]", "I(2)", "dlm.gpp:4:5: GaussianDLMObs: V's variance [1] is 0, not > 0"},
	} {
		_, err = compileSrcErr(t, "dlm.gpp", `data y: real[R, T]
data F: real[N, R]
data G: real[N, N]
y ~ GaussianDLMObs(F, G, `+c.v+`, I(N), rep(0.0, N), `+c.c0+`)
`, nil, data.Input{File: "d.json", JSON: js})
		if err == nil || err.Error() != c.want {
			t.Errorf("V %s, C0 %s: got %v, want %s", c.v, c.c0, err, c.want)
		}
	}
}

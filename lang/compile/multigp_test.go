package compile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
)

// multiGPTol bounds the log joint of MultiGP against gonum's dense
// multivariate normal per row, relative to max(1, |value|).
const multiGPTol = 1e-12

// MultiGP(Sigma, w) and MultiGPCholesky(chol(Sigma), w) in the log joint
// are Σ_i log MvNormal(y_i | 0, Sigma / w_i) over the rows of y [3, 4]
// (gonum's distmv.Normal, a dense reference), with Sigma = exp(a)·S0 + I
// and w = exp(c) params, y data or a param; the gradient matches finite
// differences and a step allocates nothing.
func TestMultiGP(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"Y": [[0.3, -1.2, 0.8, 2.0], [1.1, 0.4, -0.6, 0.2], [-2.5, 0.9, 1.7, -0.3]],
		"S0": [[2.0, 0.5, 0.3, 0.1], [0.5, 1.5, 0.2, 0.4], [0.3, 0.2, 1.0, 0.6], [0.1, 0.4, 0.6, 2.5]]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	Y := []float64{0.3, -1.2, 0.8, 2.0, 1.1, 0.4, -0.6, 0.2, -2.5, 0.9, 1.7, -0.3}
	S0 := []float64{2.0, 0.5, 0.3, 0.1, 0.5, 1.5, 0.2, 0.4, 0.3, 0.2, 1.0, 0.6, 0.1, 0.4, 0.6, 2.5}
	const decls = "data Y: real[3, 4]\ndata S0: real[4, 4]\nparam a: real\nparam c: real[3]\n"
	// ref: x = a, c[3], then Z [3, 4] if the value is a param
	ref := func(param bool) func(x []float64) float64 {
		return func(x []float64) float64 {
			y := Y
			if param {
				y = x[4:16]
			}
			lp := 0.0
			for i := range 3 {
				s := mat.NewSymDense(4, nil)
				for r := range 4 {
					for q := range 4 {
						v := math.Exp(x[0]) * S0[4*r+q]
						if r == q {
							v++
						}
						s.SetSym(r, q, v/math.Exp(x[1+i]))
					}
				}
				d, ok := distmv.NewNormal(make([]float64, 4), s, nil)
				if !ok {
					panic("Sigma not positive definite")
				}
				lp += d.LogProb(y[4*i : 4*i+4])
			}
			return lp
		}
	}
	for _, c := range []struct {
		name, src string
		want      func(x []float64) float64
	}{
		{"MultiGP", "Y ~ MultiGP(exp(a) * S0 + I(4), exp(c))\n", ref(false)},
		{"MultiGPCholesky", "Y ~ MultiGPCholesky(chol(exp(a) * S0 + I(4)), exp(c))\n", ref(false)},
		{"a param value", "param Z: real[3, 4]\nZ ~ MultiGP(exp(a) * S0 + I(4), exp(c))\n", ref(true)},
		{"a param value, Cholesky", "param Z: real[3, 4]\nZ ~ MultiGPCholesky(chol(exp(a) * S0 + I(4)), exp(c))\n", ref(true)},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkLogJoint(t, compileSrc(t, "gp.gpp", decls+c.src, nil, in), c.want, "gonum", multiGPTol, 0.8)
		})
	}
}

// MultiGP replicates [K, N]: row i has mean 0 and covariance Sigma /
// w_i (40 000 draws; each entry of the sample covariances within 5
// standard errors, sqrt((S_jj S_kk + S_jk²) / n) for normal data).
func TestPredictiveMultiGP(t *testing.T) {
	S := [2][2]float64{{1.0, 0.6}, {0.6, 2.0}}
	w := []float64{1, 4, 0.25}
	for _, form := range []string{"MultiGP(S, w)", "MultiGPCholesky(chol(S), w)"} {
		m := compileSrc(t, "gp.gpp", `param a: real ~ Normal(0, 1)
let S = append_row([1.0, 0.6]', [0.6, 2.0]')
let w = [1, 4, 0.25]
output Y ~ `+form+"\n", nil)
		ev, err := m.NewEvaluator()
		if err != nil {
			t.Fatal(err)
		}
		ev.SetRand(rand.New(rand.NewPCG(8, 1)))
		const draws = 40000
		var s [3][2][2]float64
		for range draws {
			_, outs, err := ev.Eval([]float64{0})
			if err == nil {
				err = ev.OutputErr()
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				for j := range 2 {
					for k := range 2 {
						s[i][j][k] += outs[0][2*i+j] * outs[0][2*i+k]
					}
				}
			}
		}
		for i := range 3 {
			for j := range 2 {
				for k := range 2 {
					want := S[j][k] / w[i]
					se := math.Sqrt((S[j][j]*S[k][k]+S[j][k]*S[j][k])/draws) / w[i]
					if got := s[i][j][k] / draws; math.Abs(got-want) > 5*se {
						t.Errorf("%s: row %d covariance [%d, %d] = %.4f, want %.4f", form, i, j, k, got, want)
					}
				}
			}
		}
	}
}

// With every entry of the factor a param (L a cholesky_factor_cov[4]),
// MultiGP(L * L', w) and MultiGPCholesky(L, w) agree in value and
// gradient, and both gradients match finite differences: the partials in
// each entry of Sigma (through its factor) and of L.
func TestMultiGPFactorParam(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"Y": [[0.3, -1.2, 0.8, 2.0], [1.1, 0.4, -0.6, 0.2], [-2.5, 0.9, 1.7, -0.3]]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data Y: real[3, 4]\nparam L: cholesky_factor_cov[4]\nparam c: real[3]\n"
	full := compileSrc(t, "gp.gpp", decls+"Y ~ MultiGP(L * L', exp(c))\n", nil, in)
	chol := compileSrc(t, "gp.gpp", decls+"Y ~ MultiGPCholesky(L, exp(c))\n", nil, in)
	rng := rand.New(rand.NewPCG(5, 2))
	x := make([]float64, full.Dim)
	g1, g2 := make([]float64, full.Dim), make([]float64, full.Dim)
	for range 3 {
		fillNormal(x, rng, 0, 0.5)
		v1, err1 := full.LogJoint(x, g1)
		v2, err2 := chol.LogJoint(x, g2)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if math.Abs(v1-v2) > multiGPTol*max(1, math.Abs(v1)) {
			t.Errorf("MultiGP %.17g, MultiGPCholesky %.17g", v1, v2)
		}
		for i := range g1 {
			if math.Abs(g1[i]-g2[i]) > 1e-10*max(1, math.Abs(g1[i])) {
				t.Errorf("gradient of %s: MultiGP %.17g, MultiGPCholesky %.17g", full.LatentOf(i), g1[i], g2[i])
			}
		}
	}
	checkGradient(t, full, 4, 0.5)
	checkGradient(t, chol, 4, 0.5)
}

// A w that reaches 0 at fit time (exp underflowing) is reported as
// MultiGP's w, naming its element, not as the log the density takes of it.
func TestMultiGPWError(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"Y": [[0.3, -1.2], [1.1, 0.4]]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	for _, c := range []struct{ dist, want string }{
		{"MultiGP(I(2), exp(-1000 * c))", "gp.gpp:3:5: MultiGP: w must be > 0 (got 0, element [1])"},
		{"MultiGPCholesky(I(2), exp(-1000 * c))", "gp.gpp:3:5: MultiGPCholesky: w must be > 0 (got 0, element [1])"},
	} {
		m := compileSrc(t, "gp.gpp", "data Y: real[2, 2]\nparam c: real[2]\nY ~ "+c.dist+"\n", nil, in)
		_, err := m.LogJoint([]float64{0.5, 0.9}, make([]float64, m.Dim))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %q", c.dist, err, c.want)
		}
	}
}

package compile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// wishartTol bounds the difference of a log joint from its direct
// computation, relative to max(1, |value|).
const wishartTol = 1e-12

// wishartInput gives the data of the tests: S [2, 2], Y [2, 2] and nu.
func wishartInput(s, y []float64, nu float64) data.Input {
	return data.Input{File: "w.json", JSON: map[string]*data.Array{
		"S":  {Name: "S", Shape: []int{2, 2}, Values: s},
		"Y":  {Name: "Y", Shape: []int{2, 2}, Values: y},
		"nu": {Name: "nu", Values: []float64{nu}},
	}}
}

// wishart2 is log Wishart(X | nu, S), or the inverse Wishart, for 2×2
// matrices with determinants and inverses written out.
func wishart2(x, s []float64, nu float64, inverse bool) float64 {
	det := func(a []float64) float64 { return a[0]*a[3] - a[1]*a[2] }
	inv := func(a []float64) []float64 {
		d := det(a)
		return []float64{a[3] / d, -a[1] / d, -a[2] / d, a[0] / d}
	}
	tr := func(a, b []float64) float64 { return a[0]*b[0] + a[1]*b[2] + a[2]*b[1] + a[3]*b[3] }
	l1, _ := math.Lgamma(nu / 2)
	l2, _ := math.Lgamma(nu/2 - 0.5)
	lmg := 0.5*math.Log(math.Pi) + l1 + l2
	if inverse {
		return nu/2*math.Log(det(s)) - (nu+3)/2*math.Log(det(x)) - tr(s, inv(x))/2 - nu*math.Ln2 - lmg
	}
	return (nu-3)/2*math.Log(det(x)) - tr(inv(s), x)/2 - nu*math.Ln2 - nu/2*math.Log(det(s)) - lmg
}

// A cov_matrix[2] param with a Wishart or InvWishart prior, and a data Y
// with a Wishart likelihood: the log joint is the two densities plus the
// log Jacobian of the coordinates' map, for several points.
func TestWishartLogJoint(t *testing.T) {
	s, y := []float64{1.5, 0.4, 0.4, 0.9}, []float64{2, -0.3, -0.3, 1.1}
	for _, prior := range []string{"Wishart", "InvWishart"} {
		src := "data S: real[2, 2]\ndata Y: real[2, 2]\ndata nu: positive\nparam Sigma: cov_matrix[2] ~ " + prior +
			"(nu, S)\nY ~ InvWishart(nu + 1, Sigma)\n"
		m := compileSrc(t, "w.gpp", src, nil, wishartInput(s, y, 3.5))
		if m.Dim != 3 {
			t.Fatalf("Dim %d, want 3", m.Dim)
		}
		r := rand.New(rand.NewPCG(3, 4))
		for range 4 {
			coords := []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
			lp, err := m.LogJoint(coords, make([]float64, 3))
			if err != nil {
				t.Fatal(err)
			}
			sigma, l := make([]float64, 4), make([]float64, 4)
			dist.CovMatrixValues(sigma, l, coords, 2)
			want := wishart2(sigma, s, 3.5, prior == "InvWishart") + dist.CovMatrixLogJac(coords, 2) + wishart2(y, sigma, 4.5, true)
			if math.Abs(lp-want) > wishartTol*max(1, math.Abs(want)) {
				t.Errorf("%s: log joint %.17g, want %.17g", prior, lp, want)
			}
		}
	}
}

// The gradient of log joints with every Wishart form, a param nu (gradient
// through digamma), a param scale matrix (through its factorisation) and
// a cholesky_factor_cov param, matches finite differences.
func TestWishartGradient(t *testing.T) {
	const src = `data S: real[2, 2]
data Y: real[2, 2]
param nu: real<lower=1>
param Sigma: cov_matrix[2] ~ InvWishart(nu + 2, S)
param L: cholesky_factor_cov[2] ~ WishartCholesky(nu + 1, chol(Sigma))
param T: cov_matrix[2]
T ~ Wishart(4, Sigma)
Y ~ Wishart(nu, T)
L ~ InvWishartCholesky(3, chol(S))
`
	m := compileSrc(t, "w.gpp", src, nil, wishartInput([]float64{1.5, 0.4, 0.4, 0.9}, []float64{2, -0.3, -0.3, 1.1}, 0))
	if m.Dim != 10 {
		t.Fatalf("Dim %d, want 10", m.Dim)
	}
	checkGradient(t, m, 5, 0.5)
}

// Data that no fit can change is checked when the model is compiled,
// with the position of the argument: nu not > K − 1, a scale matrix or
// a data value that is not positive definite.
func TestWishartDataErrors(t *testing.T) {
	good, notPD := []float64{1.5, 0.4, 0.4, 0.9}, []float64{1, 2, 2, 1}
	for _, c := range []struct {
		src   string
		s, y  []float64
		nu    float64
		wantE string
	}{
		{"param Sigma: cov_matrix[2] ~ Wishart(nu, S)\n", good, good, 0.5,
			"w.gpp:4:38: Wishart argument 1 (nu) is 0.5, not > K − 1 = 1; it depends on the data alone, so no fit can change it"},
		{"param Sigma: cov_matrix[2] ~ InvWishart(3, S)\n", notPD, good, 3,
			"w.gpp:4:44: InvWishart argument 2 (S): S is not positive definite (leading minor 2); it depends on the data alone, so no fit can change it"},
		{"param Sigma: cov_matrix[2]\nY ~ Wishart(3, Sigma)\n", good, notPD, 3,
			"w.gpp:5:1: Wishart: the value is not positive definite (leading minor 2); it is data, so no fit can change it"},
	} {
		src := "data S: real[2, 2]\ndata Y: real[2, 2]\ndata nu: positive\n" + c.src
		_, err := compileSrcErr(t, "w.gpp", src, nil, wishartInput(c.s, c.y, c.nu))
		if err == nil || !strings.Contains(err.Error(), c.wantE) {
			t.Errorf("%s: got %v, want %q", strings.TrimSpace(c.src), err, c.wantE)
		}
	}
}

// Replicates: the mean of output W ~ Wishart(nu, S) is nu S, of
// InvWishart S / (nu − K − 1), of the Cholesky forms' L L' the same,
// within 4.5 standard errors per entry over 20 000 draws; a seed repeats
// its draws.
func TestWishartReplicates(t *testing.T) {
	const src = `data S: real[2, 2]
data nu: positive
param b: real ~ Normal(0, 1)
output W ~ Wishart(nu, S)
output V ~ InvWishart(nu, S)
output LW ~ WishartCholesky(nu, chol(S))
output LV ~ InvWishartCholesky(nu, chol(S))
`
	s, nu := []float64{1.5, 0.4, 0.4, 0.9}, 7.5
	m := compileSrc(t, "w.gpp", src, nil, wishartInput(s, s, nu))
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(11, 12)))
	const n = 20000
	var sum, sum2 [4][4]float64
	var first [4][]float64
	for it := range n {
		_, outs, err := ev.Eval([]float64{0.1})
		if err != nil {
			t.Fatal(err)
		}
		for o := range 4 {
			x := outs[o]
			if o >= 2 { // a factor: lower triangular
				if x[1] != 0 || !(x[0] > 0 && x[3] > 0) {
					t.Fatalf("%s draw %v is not a lower factor", m.Outputs[o].Name, x)
				}
				x = []float64{x[0] * x[0], x[0] * x[2], x[0] * x[2], x[2]*x[2] + x[3]*x[3]}
			}
			if it == 0 {
				first[o] = append([]float64(nil), outs[o]...)
			}
			for i, v := range x {
				sum[o][i] += v
				sum2[o][i] += v * v
			}
		}
	}
	for o := range 4 {
		for i := range 4 {
			want := nu * s[i]
			if o%2 == 1 {
				want = s[i] / (nu - 3)
			}
			mean := sum[o][i] / n
			se := math.Sqrt((sum2[o][i]/n - mean*mean) / n)
			if math.Abs(mean-want) > 4.5*se {
				t.Errorf("%s: mean[%d] = %g, want %g (se %g)", m.Outputs[o].Name, i, mean, want, se)
			}
		}
	}
	ev.SetRand(rand.New(rand.NewPCG(11, 12)))
	_, outs, err := ev.Eval([]float64{0.1})
	if err != nil {
		t.Fatal(err)
	}
	for o := range 4 {
		for i, v := range outs[o] {
			if v != first[o][i] {
				t.Fatalf("%s: the seed does not repeat its first draw", m.Outputs[o].Name)
			}
		}
	}
}

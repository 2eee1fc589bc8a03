package compile

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/data"
)

// glmJointTol is the relative agreement of a PoissonLog or BinomialLogit
// log joint (and gradient) with its mean-scale form at moderate values,
// where exp and inv_logit round only in the last digits.
const glmJointTol = 1e-11

// glmInput is the data of the GLM tests: a covariate, counts y, trials n
// and successes s ≤ n.
func glmInput() data.Input {
	x := &data.Array{Name: "x", Shape: []int{5}, Values: []float64{-1.2, -0.3, 0, 0.8, 1.9}}
	y := &data.Array{Name: "y", Shape: []int{5}, Values: []float64{0, 2, 1, 4, 9}, Int: true}
	n := &data.Array{Name: "n", Shape: []int{5}, Values: []float64{3, 10, 1, 7, 20}, Int: true}
	s := &data.Array{Name: "s", Shape: []int{5}, Values: []float64{0, 4, 1, 5, 18}, Int: true}
	return data.Input{File: "d.json", JSON: map[string]*data.Array{"x": x, "y": y, "n": n, "s": s}}
}

const glmDecls = `data x: real[N]
data y: int<lower=0>[N]
data n: int<lower=0>[N]
data s: int<lower=0>[N]
param a: real
param b: real
`

// PoissonLog(a + b * x) and BinomialLogit(n, a + b * x) have the log joint
// and gradient of Poisson(exp(a + b * x)) and Binomial(n, inv_logit(a + b *
// x)) at moderate values; at a = −800 (PoissonLog: exp underflows to a rate
// of 0) and a = 800 (BinomialLogit: inv_logit rounds to 1 with s < n) the
// mean-scale forms fail and the linear-predictor forms give the closed
// form, finite with a finite gradient.
func TestGLMLogJoint(t *testing.T) {
	in := glmInput()
	xs, ys := in.JSON["x"].Values, in.JSON["y"].Values
	ns, ss := in.JSON["n"].Values, in.JSON["s"].Values
	for _, c := range []struct {
		name, model, ref string
		extreme          float64                    // a where the reference fails
		closed           func(a, b float64) float64 // the log joint written out
	}{
		{"PoissonLog", "y ~ PoissonLog(a + b * x)\n", "y ~ Poisson(exp(a + b * x))\n", -800,
			func(a, b float64) float64 {
				var lp float64
				for i, x := range xs {
					eta := a + b*x
					lg, _ := math.Lgamma(ys[i] + 1)
					lp += ys[i]*eta - math.Exp(eta) - lg
				}
				return lp
			}},
		{"BinomialLogit", "s ~ BinomialLogit(n, a + b * x)\n", "s ~ Binomial(n, inv_logit(a + b * x))\n", 800,
			func(a, b float64) float64 {
				var lp float64
				for i, x := range xs {
					eta := a + b*x
					k, m := ss[i], ns[i]
					l1, _ := math.Lgamma(m + 1)
					l2, _ := math.Lgamma(k + 1)
					l3, _ := math.Lgamma(m - k + 1)
					// log σ(η) = −log1p(e^−η), log σ(−η) = −η − log1p(e^−η) for η > 0
					lp += l1 - l2 - l3 - k*math.Log1p(math.Exp(-eta)) - (m-k)*(eta+math.Log1p(math.Exp(-eta)))
				}
				return lp
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, "glm.gpp", glmDecls+c.model, nil, in)
			ref := compileSrc(t, "ref.gpp", glmDecls+c.ref, nil, in)
			rng := rand.New(rand.NewPCG(51, 1))
			for range 4 {
				x := []float64{0.7 * rng.NormFloat64(), 0.7 * rng.NormFloat64()}
				sameLogJoint(t, m, ref, c.ref, x, glmJointTol, glmJointTol)
			}
			checkGradient(t, m, 52, 0.7)

			x := []float64{c.extreme, 0.5}
			if _, err := ref.LogJoint(x, make([]float64, 2)); err == nil {
				t.Errorf("%s at a = %v: no error, want the mean-scale form to fail", c.ref, c.extreme)
			}
			g := make([]float64, 2)
			lp, err := m.LogJoint(x, g)
			if err != nil {
				t.Fatalf("at a = %v: %v", c.extreme, err)
			}
			if want := c.closed(x[0], x[1]); math.Abs(lp-want) > closedFormTol*math.Abs(want) {
				t.Errorf("at a = %v: log joint %.17g, closed form %.17g", c.extreme, lp, want)
			}
			for _, v := range g {
				if math.IsInf(v, 0) || math.IsNaN(v) {
					t.Errorf("at a = %v: gradient %v", c.extreme, g)
				}
			}
		})
	}
}

// A PoissonLog linear predictor whose exp(eta) overflows (a log mass below
// −MaxFloat64) stops the evaluation at the density, naming the
// distribution, the argument and the element. (A non-finite eta is caught
// earlier, at the operation that made it.)
func TestGLMBadParameter(t *testing.T) {
	m := compileSrc(t, "m.gpp", glmDecls+"y ~ PoissonLog(a + b * x)\n", nil, glmInput())
	for _, c := range []struct {
		b    float64
		want string
	}{
		{400, "m.gpp:7:5: PoissonLog: log density is -Inf at value 9 (eta 760, element [4])"},
	} {
		_, err := m.LogJoint([]float64{0, c.b}, make([]float64, 2))
		if err == nil || err.Error() != c.want {
			t.Errorf("b = %v: error %v, want %s", c.b, err, c.want)
		}
	}
}

// PoissonLog and BinomialLogit replicates (output y_rep ~ D(args)) have
// D's mean and variance per element.
func TestGLMPredictive(t *testing.T) {
	m := compileSrc(t, "p.gpp", `data n: int<lower=0>[N]
param b: real
target += -b * b
output y_rep ~ PoissonLog(rep(b, 2) + [0.5, 2])
output s_rep ~ BinomialLogit(n, rep(b, 2) + [0.5, -30])
`, nil, data.Input{File: "d.json", JSON: map[string]*data.Array{
		"n": {Name: "n", Shape: []int{2}, Values: []float64{12, 1e15}, Int: true}}})
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(53, 1)))
	const b = 0.4
	sigma := func(e float64) float64 { return 1 / (1 + math.Exp(-e)) }
	means := [][]float64{{math.Exp(b + 0.5), math.Exp(b + 2)}, {12 * sigma(b+0.5), 1e15 * sigma(b-30)}}
	vars := [][]float64{means[0], {means[1][0] * sigma(-b-0.5), means[1][1] * sigma(30-b)}}
	checkReplicateMoments(t, ev, []float64{b}, 20000, []string{"y_rep", "s_rep"}, means, vars)
}

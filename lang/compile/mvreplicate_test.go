package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// MvNormal and MvNormalRows replicates through the evaluator: the
// likelihood's covariance expression (W W' + I/prec, which the likelihood
// evaluates through Woodbury's identity) as a matrix, a draw per row of a
// matrix mean, one vector from a scalar mean; the draws' moments are the
// evaluation's mean and covariance, and a covariance that is not positive
// definite at an evaluation gives a NaN replicate and an error at the
// distribution, the other outputs drawn.
func TestPredictiveMvNormal(t *testing.T) {
	Y := &data.Array{Name: "Y", Shape: []int{4, 2}, Values: []float64{1, 0, 0, 1, -1, 2, 0.5, 0.5}}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{"Y": Y}}
	src := `data Y: real[N, D]
param mu: real[D] ~ Normal(0, 1)
param W: real[D, 1] ~ Normal(0, 1)
param prec: positive ~ Gamma(1, 1)
param v: real[D] ~ Normal(0, 1)
Y ~ MvNormalRows(mu, W * W' + I(D) / prec)
output Y_rep ~ MvNormalRows(rep(1, N) * mu', W * W' + I(D) / prec)
output y0 ~ MvNormal(0, W * W' + I(D) / prec)
output z ~ MvNormal(mu, I(D) - outer(v, v))
`
	m := compileSrc(t, "mv.gpp", src, nil, in)
	want := map[string]string{"Y_rep": "[4 2]", "y0": "[2]", "z": "[2]"}
	for _, o := range m.Outputs {
		if got := fmt.Sprint(o.Shape); got != want[o.Name] {
			t.Errorf("%s: shape %s, want %s", o.Name, got, want[o.Name])
		}
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(12, 13)))
	// mu = (1, -2), W = (1.5, -0.5)', prec = 2, v = (0.6, 0.3): Sigma =
	// W W' + I/2, and I − v v' positive definite (|v|² = 0.45).
	coords := []float64{1, -2, 1.5, -0.5, math.Log(2), 0.6, 0.3}
	mu := []float64{1, -2}
	sigma := []float64{1.5*1.5 + 0.5, -0.75, -0.75, 0.25 + 0.5}
	const n = 20000
	var sum, sum0 [8]float64
	var prod [8][8]float64
	var prod0 [2][2]float64
	for range n {
		_, outs, err := ev.Eval(coords)
		if err == nil {
			err = ev.OutputErr()
		}
		if err != nil {
			t.Fatal(err)
		}
		for a, x := range outs[0] {
			sum[a] += x
			for b, y := range outs[0] {
				prod[a][b] += x * y
			}
		}
		for a, x := range outs[1] {
			sum0[a] += x
			for b, y := range outs[1] {
				prod0[a][b] += x * y
			}
		}
	}
	const sds = 4.5 // standard errors of the sampling distribution
	check := func(what string, got, want, se float64) {
		if math.Abs(got-want) > sds*se {
			t.Errorf("%s = %.4f, want %.4f ± %.4f", what, got, want, sds*se)
		}
	}
	for a := range 8 {
		check(fmt.Sprintf("mean(Y_rep[%d, %d])", a/2, a%2), sum[a]/n, mu[a%2], math.Sqrt(sigma[a%2*3]/n))
		for b := range 8 {
			w := 0.0
			if a/2 == b/2 {
				w = sigma[a%2*2+b%2]
			}
			c := prod[a][b]/n - sum[a]/n*sum[b]/n
			check(fmt.Sprintf("cov(Y_rep %d, %d)", a, b), c, w, math.Sqrt((w*w+sigma[a%2*3]*sigma[b%2*3])/n))
		}
	}
	for a := range 2 {
		check(fmt.Sprintf("mean(y0[%d])", a), sum0[a]/n, 0, math.Sqrt(sigma[a*3]/n))
		for b := range 2 {
			w := sigma[a*2+b]
			check(fmt.Sprintf("cov(y0 %d, %d)", a, b), prod0[a][b]/n-sum0[a]/n*sum0[b]/n, w, math.Sqrt((w*w+sigma[a*3]*sigma[b*3])/n))
		}
	}

	// v = (1, 0.5): I − v v' has the minor 1 − 1 = 0 at order 1.
	coords[5], coords[6] = 1, 0.5
	_, outs, err := ev.Eval(coords)
	if err != nil {
		t.Fatalf("the log joint does not read z: %v", err)
	}
	if !math.IsNaN(outs[2][0]) || !math.IsNaN(outs[2][1]) || math.IsNaN(outs[0][0]) || math.IsNaN(outs[1][0]) {
		t.Fatalf("outs %v: want z NaN, the others drawn", outs)
	}
	if oe := ev.OutputErr(); oe == nil || !strings.Contains(oe.Error(), "mv.gpp:9:10: MvNormal draw: Sigma is not positive definite: its leading minor of order 1 is not positive") {
		t.Errorf("OutputErr = %v", oe)
	}
}

// A covariance whose size the checker leaves to the data is refused when
// the model compiles, at the distribution.
func TestPredictiveMvNormalSquare(t *testing.T) {
	Y := &data.Array{Name: "Y", Shape: []int{4, 2}, Values: make([]float64, 8)}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{"Y": Y}}
	src := "data Y: real[N, D]\nparam W: real[D, 3]\ntarget += -sum(W .* W)\noutput z ~ MvNormal(0, W)\n"
	_, err := compileSrcErr(t, "sq.gpp", src, nil, in)
	if err == nil || !strings.Contains(err.Error(), "sq.gpp:4:10: MvNormal: Sigma must be a square matrix [d, d], got [2, 3]") {
		t.Errorf("err = %v", err)
	}
}

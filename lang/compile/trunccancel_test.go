package compile

import (
	"math"
	"testing"
)

// TestLoopTruncCancels: a truncated Poisson in a loop whose rate reaches
// 2e12 has a log mass near −2e12 per row that its normaliser, near +2e12,
// all but cancels. Both lowerings add each element's log mass and
// normaliser together before summing the rows (addTruncPair), so that
// the log joints agree to loopTol (summed separately, the vectors' 23 rows
// lost the digits of a 5e13 sum: 4e-6 to 1.5e-5 relative apart). With a
// rate per row the gradients agree too: each row's two partials meet in
// the same order. With one rate for every row they are not compared: the
// rate's adjoint sums 46 partials near ±1 whose 1e-11 remainder is all
// the gradient, which neither lowering computes to a digit.
func TestLoopTruncCancels(t *testing.T) {
	const n = 23
	for _, tc := range []struct {
		body   string
		perRow bool
	}{
		{"for i in 0:N {\n  c[i] ~ Poisson(exp(0.3 * (a + x[i]))) T[0, c[i] + 3]\n}", true},
		{"for i in 0:N {\n  c[i] ~ Poisson(exp(0.3 * (a + x[i]))) T[, 7]\n}", true},
		{"for i in 0:N {\n  c[i] ~ Poisson(exp(0.3 * a)) T[0, c[i] + 3]\n}", false},
		{"for i in 0:N {\n  c[i] ~ Poisson(exp(0.3 * a)) T[, 7]\n}", false},
	} {
		body := tc.body
		src := loopHead + body + "\n"
		var lp [2]float64
		var grads [2][]float64
		for f, unroll := range []bool{false, true} {
			unrollLoops = unroll
			m, err := compileSrcErr(t, "m.gpp", src, nil, loopData(n))
			unrollLoops = false
			if err != nil {
				t.Fatal(err)
			}
			x := make([]float64, m.Dim)
			x[0] = 95 // a: rates near exp(28.5) = 2.4e12
			grads[f] = make([]float64, m.Dim)
			if lp[f], err = m.LogJoint(x, grads[f]); err != nil {
				t.Fatal(err)
			}
		}
		if !closeRel(lp[0], lp[1], loopTol) {
			t.Errorf("%s: log joint %.17g as vectors, %.17g unrolled (%.3g relative)", body, lp[0], lp[1], math.Abs(lp[0]-lp[1])/math.Abs(lp[1]))
		}
		for k := range grads[0] {
			if !tc.perRow {
				break
			}
			if !closeRel(grads[0][k], grads[1][k], loopTol) {
				t.Errorf("%s: gradient[%d] %.17g as vectors, %.17g unrolled", body, k, grads[0][k], grads[1][k])
			}
		}
	}
}

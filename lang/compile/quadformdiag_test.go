package compile

import (
	"fmt"
	"math"
	"testing"
)

// quadFormDiagTol bounds the difference of quad_form_diag from its
// direct computation, relative to max(1, |value|).
const quadFormDiagTol = 1e-14

// quad_form_diag(M, v) is diag(v) * M * diag(v): its value entry by entry
// (for a non-symmetric M, so the two sides cannot be swapped unnoticed),
// and the log density's gradient through it against finite differences.
func TestQuadFormDiag(t *testing.T) {
	const src = `param M: real[3, 3] ~ Normal(0, 1)
param v: real[3] ~ Normal(0, 1)
param L: cholesky_factor_corr[3] ~ LKJCorrCholesky(2)
param sigma: positive[3] ~ HalfNormal(1)
param y: real[3]
output Q = quad_form_diag(M, v)
y ~ MvNormal(0, quad_form_diag(L * L', sigma))
target += sum(square(quad_form_diag(M, v)) .* outer([1, 2, 3], [1, 0.5, 2]))
`
	m := compileSrc(t, "qfd.gpp", src, nil)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, m.Dim)
	for i := range p {
		p[i] = 0.3 + 0.17*float64(i) - 0.05*float64(i*i%7)
	}
	_, outs, err := ev.Eval(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(m.Outputs[0].Shape); got != "[3 3]" {
		t.Fatalf("Q has shape %s, want [3 3]", got)
	}
	M, v := p[0:9], p[9:12] // the first latents in declaration order, M row-major
	for i := range 3 {
		for j := range 3 {
			want := v[i] * M[3*i+j] * v[j]
			if got := outs[0][3*i+j]; math.Abs(got-want) > quadFormDiagTol*max(1, math.Abs(want)) {
				t.Errorf("Q[%d, %d] = %.17g, want %.17g", i, j, got, want)
			}
		}
	}
	checkGradient(t, m, 7, 0.7)
}

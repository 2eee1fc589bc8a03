package compile

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// A corr_matrix[3] param: three coordinates y give a 3×3 correlation
// matrix (symmetric, unit diagonal, positive definite) whose factor
// chol(Omega) is cholesky_factor_corr's L of the same y, and the log joint
// is LKJCorr(Omega | 2) plus log |det ∂(Ω[1,0], Ω[2,0], Ω[2,1])/∂y|
// (checked against a finite-difference Jacobian), its gradient against
// finite differences.
func TestCorrMatrixParam(t *testing.T) {
	const src = `param Omega: corr_matrix[3] ~ LKJCorr(2)
output L = chol(Omega)
output O = Omega
`
	m := compileSrc(t, "lkj.gpp", src, nil)
	l := m.Latents[0]
	if l.Support != dist.CorrMatrix || l.Size != 3 || len(l.Shape) != 1 || l.Shape[0] != 3 || len(l.Value) != 2 || l.Value[0] != 3 {
		t.Fatalf("latent Omega: %+v", l)
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{0.4, -1.1, 0.7}
	lp, outs, err := ev.Eval(y)
	if err != nil {
		t.Fatal(err)
	}
	lv, omega := outs[0], outs[1]
	want := make([]float64, 9)
	dist.CholCorrValues(want, y, 3)
	for i := range 9 {
		if math.Abs(lv[i]-want[i]) > 1e-14 {
			t.Errorf("chol(Omega) = %v, want the factor %v", lv, want)
			break
		}
	}
	for i := range 3 {
		for j := range 3 {
			if w := omega[i*3+j]; i == j && w != 1 || w != omega[j*3+i] || math.Abs(w) > 1 {
				t.Errorf("Omega[%d, %d] = %.17g", i, j, w)
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(3, omega)) {
		t.Errorf("Omega %v is not positive definite", omega)
	}
	below := func(dst, y []float64) {
		_, outs, _ := ev.Eval(y)
		dst[0], dst[1], dst[2] = outs[1][3], outs[1][6], outs[1][7]
	}
	jac := mat.NewDense(3, 3, nil)
	fd.Jacobian(jac, below, y, &fd.JacobianSettings{Formula: fd.Central})
	ref, _ := dist.LKJCorrLogPDF(want, 3, 2)
	ref += math.Log(math.Abs(mat.Det(jac)))
	if math.Abs(lp-ref) > 1e-7 {
		t.Errorf("log joint %.12g, want LKJCorr + fd log det %.12g", lp, ref)
	}
	checkGradient(t, m, 1, 1)
}

// The model of docs/language.md's corr_matrix section, with data: the
// gradient of the log joint through Omega's transform, its Jacobian, the
// LKJCorr prior and the MvNormalRows likelihood matches finite
// differences.
func TestCorrMatrixMvNormalGradient(t *testing.T) {
	const src = `data y: real[4, 3]
param mu: real[3] ~ Normal(0, 5)
param sigma: positive[3] ~ HalfNormal(2)
param Omega: corr_matrix[3] ~ LKJCorr(2)
y ~ MvNormalRows(mu', quad_form_diag(Omega, sigma))
`
	m := compileSrc(t, "mv.gpp", src, nil, data.Input{File: "d.json", JSON: map[string]*data.Array{
		"y": {Name: "y", Shape: []int{4, 3}, Values: []float64{0.1, 1.2, -0.3, 1.5, 2.1, 0.2, -0.7, 0.3, -1.1, 0.4, 0.9, 0.8}},
	}})
	checkGradient(t, m, 2, 1)
}

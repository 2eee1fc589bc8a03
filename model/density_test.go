package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
)

// matrices has a param of each matrix support Unconstrain inverts.
const matrices = `
data y: real[N, 3]
data S: real[3, 3]
param L: cholesky_factor_corr[3] ~ LKJCorrCholesky(2)
param Omega: corr_matrix[3] ~ LKJCorr(2)
param C: cholesky_factor_cov[3]
param Sigma: cov_matrix[3] ~ InvWishart(5, S)
y ~ MvNormal(0, Sigma)
y ~ MvNormalCholesky(0, C)
target += L[2, 1] + Omega[1, 0]
`

// TestRoundTripMatrix checks that Unconstrain inverts Constrain for the
// matrix params (cholesky_factor_corr, corr_matrix, cholesky_factor_cov,
// cov_matrix), and that a matrix outside its support is an error naming
// the element and what is wrong.
func TestRoundTripMatrix(t *testing.T) {
	m, err := Compile("matrices.gpp", []byte(matrices), DataValues(map[string]any{
		"y": [][]float64{{0.3, -1.2, 0.5}, {2.5, 0.1, -0.4}},
		"S": [][]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	names := m.ParamNames()
	if m.NumParams() != 4*9 || m.Dim() != 3+3+6+6 {
		t.Fatalf("NumParams %d, Dim %d; want 36, 18", m.NumParams(), m.Dim())
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 20 {
		u := randomU(rng, m.Dim(), 1)
		th, err := m.Constrain(u)
		if err != nil {
			t.Fatal(err)
		}
		checkRoundTrip(t, m, u, th)
	}
	bad := []struct {
		name, elem string // draws.csv's column, the element's 0-based name
		val        float64
		want       string
	}{
		{"Sigma.1.2", "Sigma[0, 1]", 0.3, "symmetric"},
		{"Sigma.1.1", "Sigma[0, 0]", -1, "positive definite"},
		{"Omega.2.2", "Omega[1, 1]", 2, "unit diagonal"},
		{"C.1.2", "C[0, 1]", 0.1, "lower triangular"},
		{"C.2.2", "C[1, 1]", -1, "positive diagonal"},
		{"L.2.1", "L[1, 0]", 0.9, "unit norm"},
	}
	for _, c := range bad {
		th, _ := m.Constrain(make([]float64, m.Dim()))
		th[slices.Index(names, c.name)] = c.val
		_, err := m.Unconstrain(th)
		var pe *ast.Error
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "Unconstrain: "+c.elem+" is") || !errors.As(err, &pe) {
			t.Errorf("Unconstrain with %s = %v: error %v, want an *ast.Error \"Unconstrain: %s is ...\" with %q", c.name, c.val, err, c.elem, c.want)
		}
	}
}

// TestDensityAllocs checks that LogDensity and LogDensityGradient
// allocate nothing, with no option and with Jacobian(false) or (true): a
// sampler calls them thousands of times a second.
func TestDensityAllocs(t *testing.T) {
	m := regressionModel(t)
	u, grad := make([]float64, m.Dim()), make([]float64, m.Dim())
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"LogDensity", func() { m.LogDensity(u) }},
		{"LogDensityGradient", func() { m.LogDensityGradient(u, grad) }},
		{"LogDensity Jacobian(false)", func() { m.LogDensity(u, Jacobian(false)) }},
		{"LogDensityGradient Jacobian(false)", func() { m.LogDensityGradient(u, grad, Jacobian(false)) }},
		{"LogDensityGradient Jacobian(true)", func() { m.LogDensityGradient(u, grad, Jacobian(true)) }},
	} {
		if _, err := m.LogDensity(u); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(100, c.f); a != 0 {
			t.Errorf("%s: %v allocations a call, want 0", c.name, a)
		}
	}
}

// TestDensityNegInfAgree checks that LogDensity and LogDensityGradient
// give the same −Inf, with the model's error, where a ~'s log density
// overflows (HalfNormal(1) at s = 1e200), with the Jacobian and without:
// the value alone and the gradient's pass are the same log joint.
func TestDensityNegInfAgree(t *testing.T) {
	m, err := Compile("m.gpp", []byte("param s: positive ~ HalfNormal(1)\n"))
	if err != nil {
		t.Fatal(err)
	}
	u, grad := []float64{math.Log(1e200)}, make([]float64, 1)
	for _, jac := range []bool{true, false} {
		v, verr := m.LogDensity(u, Jacobian(jac))
		g, gerr := m.LogDensityGradient(u, grad, Jacobian(jac))
		if !math.IsInf(v, -1) || !math.IsInf(g, -1) || verr == nil || gerr == nil || verr.Error() != gerr.Error() {
			t.Errorf("Jacobian(%v): LogDensity %v (%v), LogDensityGradient %v (%v); want -Inf with the same error", jac, v, verr, g, gerr)
		}
	}
}

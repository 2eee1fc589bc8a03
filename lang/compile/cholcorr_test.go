package compile

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// A cholesky_factor_corr[3] param: three coordinates y give a 3×3 factor
// whose rows have unit norm, L L' is a correlation matrix, and the log
// joint is LKJCorrCholesky(L | 2) plus log |det ∂(L[1,0], L[2,0],
// L[2,1])/∂y| (checked against a finite-difference Jacobian), its gradient
// against finite differences.
func TestCholCorrParam(t *testing.T) {
	const src = `param L: cholesky_factor_corr[3] ~ LKJCorrCholesky(2)
output Omega = L * L'
output Lv = L
`
	m := compileSrc(t, "lkj.gpp", src, nil)
	l := m.Latents[0]
	if l.Support != dist.CholCorr || l.Size != 3 || len(l.Shape) != 1 || l.Shape[0] != 3 || len(l.Value) != 2 || l.Value[0] != 3 {
		t.Fatalf("latent L: %+v", l)
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
	lv, omega := outs[1], outs[0]
	for i := range 3 {
		n := 0.0
		for j := range 3 {
			n += lv[i*3+j] * lv[i*3+j]
			if j > i && lv[i*3+j] != 0 {
				t.Errorf("L[%d, %d] = %g above the diagonal", i, j, lv[i*3+j])
			}
			if w := omega[i*3+j]; i == j && math.Abs(w-1) > 1e-15 || math.Abs(w-omega[j*3+i]) > 0 || math.Abs(w) > 1 {
				t.Errorf("Omega[%d, %d] = %.17g", i, j, w)
			}
		}
		if math.Abs(n-1) > 1e-15 || !(lv[i*3+i] > 0) {
			t.Errorf("row %d of L: squared norm %.17g, diagonal %g", i, n, lv[i*3+i])
		}
	}
	// Omega positive definite
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
	if _, _, err := ev.Eval(y); err != nil {
		t.Fatal(err)
	}
	ref, _ := dist.LKJCorrCholeskyLogPDF(lv, 3, 2)
	ref += math.Log(math.Abs(mat.Det(jac)))
	if math.Abs(lp-ref) > 1e-7 {
		t.Errorf("log joint %.12g, want LKJ + fd log det %.12g", lp, ref)
	}
	checkGradient(t, m, 1, 1)
}

// An LKJ prior whose eta is a param, K = 2, on a cholesky_factor_corr or
// a corr_matrix: the density of their one correlation r is that of
// 2·Beta(η, η) − 1, normalised in eta.
func TestLKJEtaParam(t *testing.T) {
	for _, src := range []string{
		"param eta: positive ~ Gamma(2, 1)\nparam L: cholesky_factor_corr[2]\nL ~ LKJCorrCholesky(eta)\n",
		"param eta: positive ~ Gamma(2, 1)\nparam Omega: corr_matrix[2]\nOmega ~ LKJCorr(eta)\n",
	} {
		m := compileSrc(t, "lkj.gpp", src, nil)
		x := []float64{math.Log(1.7), 0.3}
		lp, err := m.LogJoint(x, make([]float64, 2))
		if err != nil {
			t.Fatal(err)
		}
		r := math.Tanh(0.3)
		u := (r + 1) / 2
		eta := 1.7
		ref := dist.Gamma{Shape: 2, Rate: 1}.LogProb(eta) +
			(eta-1)*math.Log(u*(1-u)) - dist.LogBeta(eta, eta) - math.Ln2 + // Beta(η, η) on (r + 1)/2, as a density of r
			math.Log(1-r*r) // dr/dy
		if math.Abs(lp-ref) > 1e-12*math.Abs(ref) {
			t.Errorf("%s: log joint %.17g, want %.17g", src, lp, ref)
		}
		checkGradient(t, m, 1, 1)
	}
}

// examples/varying.gpp on its first five groups (J set to 5): the log
// joint's gradient, through L's transform, its Jacobian and the LKJ prior,
// matches finite differences.
func TestVaryingExampleGradient(t *testing.T) {
	raw, err := os.ReadFile("../../examples/varying.csv")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]float64
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n")[1:] {
		var r [3]float64
		for j, f := range strings.Split(line, ",") {
			if r[j], err = strconv.ParseFloat(f, 64); err != nil {
				t.Fatal(err)
			}
		}
		if r[0] < 5 {
			rows = append(rows, r[:])
		}
	}
	m := compileFile(t, "../../examples/varying.gpp", map[string]string{"J": "5"},
		data.Input{File: "varying.csv", Table: csvTable(t, "varying.csv", "g,x,y", rows)})
	checkGradient(t, m, 2, 1)
}

package compile

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// mvCholEqTol bounds the difference of MvNormalCholesky(mu, L) from
// MvNormal(mu, L * L') in the log joint and each partial, relative to
// max(1, |value|).
const mvCholEqTol = 1e-10

// MvNormalCholesky(mu, diag_pre_multiply(tau, L)) is MvNormal(mu, S * S')
// with S that factor, value and gradient, for a data matrix value with a
// shared mean, a param matrix with a row of mu per row, and a param
// vector (diag_post_multiply in the factor).
func TestMvNormalCholeskyMatchesMvNormal(t *testing.T) {
	const head = `data Y: real[N, 3]
param L: cholesky_factor_corr[3] ~ LKJCorrCholesky(1.5)
param tau: positive[3] ~ HalfNormal(1)
param m: real[3] ~ Normal(0, 1)
param B: real[4, 3] ~ Normal(0, 1)
param v: real[3]
`
	rng := rand.New(rand.NewPCG(4, 4))
	rows := make([][]float64, 6)
	for i := range rows {
		rows[i] = []float64{rng.NormFloat64(), 1 + rng.NormFloat64(), -rng.NormFloat64()}
	}
	in := data.Input{File: "y.csv", Table: csvTable(t, "y.csv", "a,b,c", rows)}
	for _, c := range []struct{ name, chol, mv string }{
		{"data rows", "Y ~ MvNormalCholesky(m', diag_pre_multiply(tau, L))\n",
			"let S = diag_pre_multiply(tau, L)\nY ~ MvNormal(m', S * S')\n"},
		{"param rows, mu per row", "B ~ MvNormalCholesky(Y[0:4] * 0.5, diag_pre_multiply(tau, L))\n",
			"let S = diag_pre_multiply(tau, L)\nB - Y[0:4] * 0.5 ~ MvNormal(0, S * S')\n"},
		{"vector", "v ~ MvNormalCholesky(m, diag_post_multiply(L, tau))\n",
			"let S = diag_post_multiply(L, tau)\nv ~ MvNormal(m, S * S')\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mc := compileSrc(t, "chol.gpp", head+c.chol, nil, in)
			mm := compileSrc(t, "mv.gpp", head+c.mv, nil, in)
			if mc.Dim != mm.Dim {
				t.Fatalf("Dim %d and %d", mc.Dim, mm.Dim)
			}
			x := make([]float64, mc.Dim)
			gc, gm := make([]float64, mc.Dim), make([]float64, mc.Dim)
			for trial := range 4 {
				fillNormal(x, rng, 0, 0.7)
				vc, err := mc.LogJoint(x, gc)
				if err != nil {
					t.Fatal(err)
				}
				vm, err := mm.LogJoint(x, gm)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(vc-vm) > mvCholEqTol*max(1, math.Abs(vm)) {
					t.Errorf("trial %d: log joint %.17g, MvNormal %.17g", trial, vc, vm)
				}
				for i := range gc {
					if math.Abs(gc[i]-gm[i]) > mvCholEqTol*max(1, math.Abs(gm[i])) {
						t.Errorf("trial %d: d/dx[%d] (%s) = %.17g, MvNormal %.17g", trial, i, mc.LatentOf(i), gc[i], gm[i])
					}
				}
			}
		})
	}
}

// varyingCentred is examples/varying.gpp centred: the groups' effects b
// are params with the prior MvNormalCholesky(0, diag_pre_multiply(tau,
// L)), Stan's multi_normal_cholesky idiom, instead of b = z * (diag(tau)
// * L)' from standard normals z.
const varyingCentred = `data x: real[N]
data g: int[N]
data y: real[N]
const J = 40

param alpha: real ~ Normal(0, 5)
param sigma: positive ~ HalfNormal(2)
param tau: positive[2] ~ HalfNormal(2)
param L: cholesky_factor_corr[2] ~ LKJCorrCholesky(2)
param b: real[J, 2] ~ MvNormalCholesky(0, diag_pre_multiply(tau, L))
y ~ Normal(alpha + b[g, 0] + b[g, 1] .* x, sigma)

output Omega = L * L'
output rho = Omega[0, 1]
output b_rep ~ MvNormalCholesky(rep_matrix(0, J, 2), diag_pre_multiply(tau, L))
`

// The centred varying-slopes model on the first five groups of
// examples/varying.csv: the log joint's gradient matches finite
// differences, and an evaluation of it makes no allocations.
func TestVaryingCentredGradient(t *testing.T) {
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
	m := compileSrc(t, "varying_centred.gpp", varyingCentred, map[string]string{"J": "5"},
		data.Input{File: "varying.csv", Table: csvTable(t, "varying.csv", "g,x,y", rows)})
	if want := 1 + 1 + 2 + 1 + 5*2; m.Dim != want {
		t.Fatalf("Dim = %d, want %d", m.Dim, want)
	}
	checkGradient(t, m, 2, 1)
	x, g := make([]float64, m.Dim), make([]float64, m.Dim)
	if _, err := m.LogJoint(x, g); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(20, func() { m.LogJoint(x, g) }); a != 0 {
		t.Errorf("LogJoint allocates %v times per call, want 0", a)
	}
}

package compile

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// cholCovTol bounds the difference of a cholesky_factor_cov param's log
// joint and values from their direct computation, relative to
// max(1, |value|).
const cholCovTol = 1e-13

// A cholesky_factor_cov[3] param without a prior: 6 coordinates, the log
// joint is the log Jacobian Σ y_ii alone, the value is
// dist.CholCovValues of the coordinates, and the latent reports its
// support and shapes.
func TestCholCovLatent(t *testing.T) {
	m := compileSrc(t, "cov.gpp", "param L: cholesky_factor_cov[3]\noutput V = L\n", nil)
	if m.Dim != 6 || len(m.Latents) != 1 {
		t.Fatalf("Dim %d, %d latents; want 6 coordinates of one latent", m.Dim, len(m.Latents))
	}
	if l := m.Latents[0]; l.Support != dist.CholCov || len(l.Shape) != 1 || l.Shape[0] != 6 || len(l.Value) != 2 || l.Value[0] != 3 || l.Value[1] != 3 {
		t.Fatalf("latent %+v", l)
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{0.3, -1.2, 0.8, 2.1, -0.4, -0.9}
	lp, outs, err := ev.Eval(y)
	if err != nil {
		t.Fatal(err)
	}
	if want := y[0] + y[2] + y[5]; math.Abs(lp-want) > cholCovTol*max(1, math.Abs(want)) {
		t.Errorf("log joint %.17g, want Σ y_ii = %.17g", lp, want)
	}
	want := make([]float64, 9)
	dist.CholCovValues(want, y, 3)
	for i, w := range want {
		if outs[0][i] != w {
			t.Errorf("V[%d] = %.17g, want %.17g", i, outs[0][i], w)
		}
	}
}

// The gradient of a log joint through a cholesky_factor_cov param's
// transform, its Jacobian and MvNormalCholesky, on data rows and on a
// param vector, matches finite differences; and MvNormalCholesky(mu, L)
// is MvNormal(mu, L * L') for that L, value and gradient.
func TestCholCovGradient(t *testing.T) {
	const head = `data y: real[5, 3]
param L: cholesky_factor_cov[3]
param mu: real[3] ~ Normal(0, 1)
param v: real[3]
target += -0.5 * sum(square(L))
`
	rng := rand.New(rand.NewPCG(9, 9))
	rows := make([][]float64, 5)
	for i := range rows {
		rows[i] = []float64{rng.NormFloat64(), 1 + rng.NormFloat64(), -rng.NormFloat64()}
	}
	in := data.Input{File: "y.csv", Table: csvTable(t, "y.csv", "a,b,c", rows)}
	mc := compileSrc(t, "chol.gpp", head+"y ~ MvNormalCholesky(mu, L)\nv ~ MvNormalCholesky(mu, L)\n", nil, in)
	mm := compileSrc(t, "mv.gpp", head+"y ~ MvNormalRows(mu', L * L')\nv ~ MvNormal(mu, L * L')\n", nil, in)
	if mc.Dim != 12 || mm.Dim != 12 {
		t.Fatalf("Dim %d and %d, want 12", mc.Dim, mm.Dim)
	}
	checkGradient(t, mc, 3, 0.7)
	x := make([]float64, mc.Dim)
	gc, gm := make([]float64, mc.Dim), make([]float64, mc.Dim)
	for trial := range 3 {
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
}

// A cov_matrix[3] param without a prior: 6 coordinates, the log joint is
// the log Jacobian of y → L L', 3·log 2 + Σ (K − i + 1)·y_ii (0-based i),
// the value is dist.CovMatrixValues; and the gradient of a log joint
// through it and MvNormal matches finite differences.
func TestCovMatrixLatent(t *testing.T) {
	m := compileSrc(t, "cov.gpp", "param S: cov_matrix[3]\noutput V = S\n", nil)
	if m.Dim != 6 || len(m.Latents) != 1 {
		t.Fatalf("Dim %d, %d latents; want 6 coordinates of one latent", m.Dim, len(m.Latents))
	}
	if l := m.Latents[0]; l.Support != dist.CovMatrix || len(l.Value) != 2 || l.Value[0] != 3 {
		t.Fatalf("latent %+v", l)
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{0.3, -1.2, 0.8, 2.1, -0.4, -0.9}
	lp, outs, err := ev.Eval(y)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3*math.Ln2 + 4*y[0] + 3*y[2] + 2*y[5]; math.Abs(lp-want) > cholCovTol*max(1, math.Abs(want)) {
		t.Errorf("log joint %.17g, want %.17g", lp, want)
	}
	want, l := make([]float64, 9), make([]float64, 9)
	dist.CovMatrixValues(want, l, y, 3)
	for i, w := range want {
		if outs[0][i] != w {
			t.Errorf("V[%d] = %.17g, want %.17g", i, outs[0][i], w)
		}
	}
	g := compileSrc(t, "covmv.gpp", `param S: cov_matrix[3]
param v: real[3] ~ Normal(0, 1)
v ~ MvNormal(0, S)
target += -0.5 * sum(square(S)) + sum(S .* outer([1, 2, 3], [0.5, -1, 2]))
`, nil)
	checkGradient(t, g, 4, 0.5)
}

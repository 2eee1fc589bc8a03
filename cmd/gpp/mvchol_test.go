package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// varyingCentredSrc is examples/varying.gpp centred: Stan's
// multi_normal_cholesky(0, diag_pre_multiply(tau, L)) on the groups'
// effects b themselves, with a replicate of them.
const varyingCentredSrc = `data x: real[N]
data g: int[N]
data y: real[N]
const J = 40

param alpha: real ~ Normal(0, 5)
param sigma: positive ~ HalfNormal(2)
param tau: positive[2] ~ HalfNormal(2)
param L: cholesky_factor_corr[2] ~ LKJCorrCholesky(2)
param b: real[J, 2] ~ MvNormalCholesky(0, diag_pre_multiply(tau, L))
y ~ Normal(alpha + b[g, 0] + b[g, 1] .* x, sigma)

output rho = L[1, 0]
output b_rep ~ MvNormalCholesky(rep_matrix(0, J, 2), diag_pre_multiply(tau, L))
output b_rep_cov = b_rep[, 0] .* b_rep[, 1]
`

// TestFitMvNormalCholesky fits the centred varying-slopes model to
// examples/varying.csv (simulated with correlation 0.6; the 40 effects
// drawn have sample correlation 0.48, sds 0.95 and 0.52) with gpp fit:
// the posterior mean of the correlation has the simulated sign and rough
// size (above 0.2), tau is within 0.2 of the effects' sample sds, and the
// replicate b_rep is reported with finite means near 0.
func TestFitMvNormalCholesky(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	d := t.TempDir()
	model := filepath.Join(d, "varying_centred.gpp")
	if err := os.WriteFile(model, []byte(varyingCentredSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(d, "fit")
	code, _, stderr := runSafe(t, "fit", model, "../../examples/varying.csv", "--quiet", "--seed", "1", "--out", out)
	// (mean-field q of 85 coordinates may draw a Pareto k̂ warning; a draw
	// of the replicate that fails would warn of NaN)
	if code != 0 || strings.Contains(stderr, "NaN") {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	m := summaryMeans(t, out)
	t.Logf("rho %.3f, tau %.3f %.3f, alpha %.3f, sigma %.3f", m["rho"], m["tau[0]"], m["tau[1]"], m["alpha"], m["sigma"])
	if !(m["rho"] > 0.2 && m["rho"] < 0.9) {
		t.Errorf("rho: posterior mean %.3f, want the simulated sign and rough size (0.48)", m["rho"])
	}
	for _, c := range []struct {
		name      string
		want, tol float64
	}{{"tau[0]", 0.95, 0.2}, {"tau[1]", 0.52, 0.2}, {"alpha", 1, 0.15}, {"sigma", 0.5, 0.1}} {
		if !(math.Abs(m[c.name]-c.want) < c.tol) {
			t.Errorf("%s: posterior mean %.3f, want %.2f ± %g", c.name, m[c.name], c.want, c.tol)
		}
	}
	for _, name := range []string{"b_rep[0, 0]", "b_rep[39, 1]"} {
		v, ok := m[name]
		if !ok || math.IsNaN(v) || math.Abs(v) > 0.5 {
			t.Errorf("%s: mean %v (reported %v), want finite and near 0", name, v, ok)
		}
	}
	// The replicate's rows have the correlation's sign: E[b0 b1] = rho·tau0·tau1.
	var cov float64
	for j := 1; j <= 40; j++ {
		cov += m["b_rep_cov["+strconv.Itoa(j)+"]"] / 40
	}
	if !(cov > 0) {
		t.Errorf("mean product of a replicate's intercept and slope %.3f, want > 0", cov)
	}
}

package main

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"
)

// TestHMMViterbiFit fits a two-state Normal HMM (testdata/hmm2_normal, an
// HMM modeller's simulated data) with hmm_viterbi and
// hmm_hidden_state_prob as outputs, end to end through gpp fit's
// draws.csv. At each draw of q the Viterbi path is states 0 and 1, at
// least as likely jointly with y as the path of the most probable state
// at each step (the most likely path by definition; recomputed here from
// the draw's mu, sigma, A and rho), and it agrees with that path on most
// steps (on 98.9–100 % of the 300 at each draw).
func TestHMMViterbiFit(t *testing.T) {
	dir := t.TempDir()
	m := writeFile(t, dir, "hmm.gpp", `data y: real[N]
const K = 2
param mu: ordered[K] ~ Normal(0, 3)
param sigma: positive[K] ~ HalfNormal(2)
param A: simplex[K, K] ~ Dirichlet(rep(1, K))
param rho: simplex[K] ~ Dirichlet(rep(1, K))
let lo = logpdf(y, Normal(mu', sigma'))
target += hmm_marginal(lo, A, rho)
output p_state = hmm_hidden_state_prob(lo, A, rho)
output z_map = hmm_viterbi(lo, A, rho)
`)
	out := filepath.Join(dir, "out")
	data := "testdata/hmm2_normal.csv"
	if code, _, stderr := runSafe(t, "fit", m, data, "--quiet", "--out", out); code != 0 {
		t.Fatalf("fit: exit %d; stderr\n%s", code, stderr)
	}
	y := readDrawsCSV(t, data) // the column y, read as a draws file
	draws := readDrawsCSV(t, filepath.Join(out, "draws.csv"))
	n := len(y)
	// score is log p(path, y) under a draw's params
	score := func(d map[string]float64, path []int) float64 {
		l := 0.0
		for i, s := range path {
			mu, sd := d[fmt.Sprintf("mu.%d", s+1)], d[fmt.Sprintf("sigma.%d", s+1)]
			z := (y[i]["y"] - mu) / sd
			l += -0.5*z*z - math.Log(sd)
			if i == 0 {
				l += math.Log(d[fmt.Sprintf("rho.%d", s+1)])
			} else {
				l += math.Log(d[fmt.Sprintf("A.%d.%d", path[i-1]+1, s+1)])
			}
		}
		return l
	}
	worst := 1.0
	for k, d := range draws {
		vit, arg := make([]int, n), make([]int, n)
		same := 0
		for i := range n {
			v := d[fmt.Sprintf("z_map.%d", i+1)]
			if v != 0 && v != 1 {
				t.Fatalf("draw %d: z_map[%d] = %v, want state 0 or 1", k, i, v)
			}
			vit[i] = int(v)
			if d[fmt.Sprintf("p_state.%d.2", i+1)] > 0.5 {
				arg[i] = 1
			}
			if arg[i] == vit[i] {
				same++
			}
		}
		if sv, sa := score(d, vit), score(d, arg); sv < sa-1e-9*math.Abs(sa) {
			t.Fatalf("draw %d: the Viterbi path's log p(path, y) %.10g is below the stepwise most probable states' %.10g", k, sv, sa)
		}
		worst = min(worst, float64(same)/float64(n))
	}
	t.Logf("%d draws: the Viterbi path agrees with the most probable state on at least %.3f of the steps", len(draws), worst)
	if worst < 0.95 {
		t.Errorf("a draw's Viterbi path agrees with the most probable state on %.3f of the steps, want at least 0.95", worst)
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// renewalW is the generation interval of the renewal test: w[0] the
// weight of lag 1 (mean 3.5 days).
var renewalW = []float64{0.05, 0.2, 0.3, 0.22, 0.13, 0.07, 0.03}

// renewalTruth is the smooth R_t of the simulation, 1.4 falling to 0.7 at
// day 40 and back.
func renewalTruth(t int) float64 { return 1.05 + 0.35*math.Cos(math.Pi*float64(t)/40) }

// renewalModel fits log R_t as a centred random walk through the latent
// infections of renewal(R, w, I0) with a flat seed.
const renewalModel = `data cases: int[T]
data w: simplex[S]
param sig: positive ~ HalfNormal(0.1)
param logR: real[T]
logR[0] ~ Normal(0, 0.5)
logR[1:] ~ Normal(logR[:T-1], sig)
param logI0: real ~ Normal(4, 1)
cases ~ Poisson(renewal(exp(logR), w, rep(exp(logI0), S)))
output Rt = exp(logR)
`

// renewalData simulates T days of cases ~ Poisson(I[t]), I the renewal
// equation's series of renewalTruth, renewalW and a seed of 60 a day.
func renewalData(rng *rand.Rand, T int) string {
	S := len(renewalW)
	x := make([]float64, S, S+T) // the seed, then I
	for i := range x {
		x[i] = 60
	}
	cases := make([]int, T)
	for t := range T {
		c := 0.0
		for s := 1; s <= S; s++ {
			c += renewalW[s-1] * x[S+t-s]
		}
		x = append(x, renewalTruth(t)*c)
		cases[t] = poissonDraw(rng, x[S+t])
	}
	b, _ := json.Marshal(map[string]any{"cases": cases, "w": renewalW})
	return string(b)
}

// TestRenewalRt: 80 days of cases simulated from the renewal equation
// with a known smooth R_t; gpp fit --fullrank auto (which keeps the joint
// factor: the seed moves with the first days' R_t) and a short gpp sample
// of log R_t as a random walk through renewal(R, w, I0) give intervals
// q5..q95 of R_t that cover the truth on at least 70 of the 80 days, at
// most 0.4 wide on average (NUTS's are 0.19).
func TestRenewalRt(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const T = 80
	dir := t.TempDir()
	dataPath := writeFile(t, dir, "cases.json", renewalData(rand.New(rand.NewPCG(80, 1)), T))
	model := writeFile(t, dir, "rt.gpp", renewalModel)
	for _, c := range []struct {
		cmd  string
		args []string
	}{
		{"fit", []string{"--seed", "1", "--fullrank", "auto"}},
		{"sample", []string{"--seed", "1", "--chains", "2", "--warmup", "300", "--draws", "300"}},
	} {
		out := filepath.Join(dir, c.cmd)
		args := append([]string{c.cmd, model, dataPath, "--quiet", "--out", out}, c.args...)
		if code, _, stderr := runSafe(t, args...); code != 0 {
			t.Fatalf("gpp %s: exit %d\n%s", c.cmd, code, stderr)
		}
		got := readSummaryCSV(t, filepath.Join(out, "summary.csv"))
		covered, width := 0, 0.0
		for d := range T {
			row, ok := got[fmt.Sprintf("Rt[%d]", d)]
			if !ok {
				t.Fatalf("%s: no Rt[%d] in the summary", c.cmd, d)
			}
			if r := renewalTruth(d); row["q5"] <= r && r <= row["q95"] {
				covered++
			}
			width += row["q95"] - row["q5"]
		}
		t.Logf("%s: R_t's 90%% interval covers the truth on %d of %d days, mean width %.3f", c.cmd, covered, T, width/T)
		if width/T > 0.4 { // NUTS's are 0.19 wide on average: coverage by intervals that say nothing is none
			t.Errorf("%s: R_t's 90%% intervals are %.3f wide on average, want at most 0.4", c.cmd, width/T)
		}
		if covered < 70 {
			t.Errorf("%s: R_t's 90%% interval covers the truth on %d of %d days, want at least 70", c.cmd, covered, T)
		}
	}
}

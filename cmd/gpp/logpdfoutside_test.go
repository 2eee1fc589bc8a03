package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// contaminantModel is the psychologist's mixture of reaction times: a
// LogNormal process with weight theta and a Uniform(0, 2) contaminant,
// whose logpdf is −Inf at the times above 2, a value log_mix takes in.
const contaminantModel = `data rt: real[N]
param theta: unit ~ Beta(2, 2)
param mu: real ~ Normal(0, 1)
param sigma: positive ~ HalfNormal(1)
target += sum(log_mix(theta, logpdf(rt, LogNormal(mu, sigma)), logpdf(rt, Uniform(0, 2))))
`

// contaminantSDs is how many posterior sds a fit's mean may be from the
// simulated truth.
const contaminantSDs = 4

// TestContaminantMixtureCLI: 400 reaction times simulated (seeded) from
// 0.95 LogNormal(-0.3, 0.6) + 0.05 Uniform(0, 2), about 5 % of them above
// 2 (up to 3 and beyond), where the Uniform's logpdf is −Inf: gpp fit
// (SGVB) and gpp sample (NUTS) both succeed and recover theta, mu and
// sigma, where logpdf's −Inf was an error at the first evaluation.
func TestContaminantMixtureCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const n, theta, mu, sigma = 400, 0.95, -0.3, 0.6
	rng := rand.New(rand.NewPCG(2026, 1201))
	rts := make([]string, n)
	above := 0
	for i := range rts {
		x := 2 * rng.Float64()
		if rng.Float64() < theta {
			x = math.Exp(mu + sigma*rng.NormFloat64())
		}
		if x > 2 {
			above++
		}
		rts[i] = fmt.Sprintf("%.4f", x)
	}
	t.Logf("%d of %d times above 2", above, n)
	if above < 5 {
		t.Fatalf("only %d times above 2", above)
	}
	dir := t.TempDir()
	model := writeFile(t, dir, "rt.gpp", contaminantModel)
	data := writeFile(t, dir, "rt.csv", "rt\n"+strings.Join(rts, "\n")+"\n")
	for _, cmd := range []string{"fit", "sample"} {
		out := filepath.Join(dir, cmd)
		args := []string{cmd, model, data, "--quiet", "--seed", "1", "--out", out}
		if cmd == "sample" {
			args = append(args, "--chains", "2", "--warmup", "400", "--draws", "400")
		}
		if code, _, stderr := runSafe(t, args...); code != 0 {
			t.Fatalf("%s: exit %d\n%s", cmd, code, stderr)
		}
		rows := summaryRows(t, out)
		checkRecovers(t, rows, "theta", theta, 0.05, contaminantSDs)
		checkRecovers(t, rows, "mu", mu, 0.1, contaminantSDs)
		checkRecovers(t, rows, "sigma", sigma, 0.1, contaminantSDs)
	}
}

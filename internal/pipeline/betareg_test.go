package pipeline_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
)

// TestBetaRegression fits a beta regression, y ~ BetaProportion(inv_logit(b0
// + b1 * x), kappa), to 300 observations simulated from it (one PCG stream
// seeded (2026, 13)), and checks the posterior means of the intercept, the
// slope and the precision against the truth within 3 posterior sds, and
// against the fit of the same model written with Beta's shapes (the
// kernel's path, where BetaProportion's is hoisted) within half an sd.
func TestBetaRegression(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const (
		n              = 300
		b0, b1, kappa  = -0.5, 1.2, 15.0
		decls          = "data x: real[N]\ndata y: real<lower=0, upper=1>[N]\nparam b0: real ~ Normal(0, 2)\nparam b1: real ~ Normal(0, 2)\nparam kappa: positive ~ Gamma(2, 0.1)\nlet mu = inv_logit(b0 + b1 * x)\n"
		propModel      = decls + "y ~ BetaProportion(mu, kappa)\n"
		betaModel      = decls + "y ~ Beta(mu .* kappa, (1 - mu) .* kappa)\n"
		sdFromTruth    = 3
		sdFromBetaForm = 0.5
	)
	rng := rand.New(rand.NewPCG(2026, 13))
	var b bytes.Buffer
	b.WriteString("x,y\n")
	for range n {
		x := rng.NormFloat64()
		y := dist.BetaProportion{Mu: 1 / (1 + math.Exp(-(b0 + b1*x))), Kappa: kappa}.Rand(rng)
		fmt.Fprintf(&b, "%.6f,%.17g\n", x, y)
	}
	dir := t.TempDir()
	dpath := dir + "/betareg.csv"
	if err := os.WriteFile(dpath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fits := map[string]map[string]refRow{}
	for name, src := range map[string]string{"prop": propModel, "beta": betaModel} {
		mpath := dir + "/" + name + ".gpp"
		if err := os.WriteFile(mpath, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		fits[name] = fitSummary(t, mpath, []string{dpath}, sgvb.Settings{Seed: 1})
	}
	for name, want := range map[string]float64{"b0": b0, "b1": b1, "kappa": kappa} {
		r, o := fits["prop"][name], fits["beta"][name]
		t.Logf("%s: mean %.3f sd %.3f (truth %g; in Beta's shapes %.3f sd %.3f)", name, r.mean, r.sd, want, o.mean, o.sd)
		if !(math.Abs(r.mean-want) < sdFromTruth*r.sd) {
			t.Errorf("%s: posterior mean %.3f is more than %v sds (%.3f) from the truth %g", name, r.mean, float64(sdFromTruth), r.sd, want)
		}
		if !(math.Abs(r.mean-o.mean) < sdFromBetaForm*r.sd) {
			t.Errorf("%s: posterior mean %.3f is more than %v sd (%.3f) from Beta's form's %.3f", name, r.mean, sdFromBetaForm, r.sd, o.mean)
		}
	}
}

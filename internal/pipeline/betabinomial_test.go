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

// TestBetaBinomialGroups fits a beta-binomial to 40 groups of 10 to 60
// trials each, simulated from it (one PCG stream seeded (2026, 19)), y ~
// BetaBinomial(n, mu * kappa, (1 - mu) * kappa), and checks the posterior
// means of the mean success probability and the precision against the
// truth within 3 posterior sds, and against the fit of the same model with
// its log mass written out (lchoose and lbeta) within half an sd.
func TestBetaBinomialGroups(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const (
		groups           = 40
		mu, kappa        = 0.3, 12.0
		decls            = "data n: int<lower=0>[N]\ndata y: int<lower=0>[N]\nparam mu: unit ~ Beta(2, 2)\nparam kappa: positive ~ Gamma(2, 0.1)\n"
		bbModel          = decls + "y ~ BetaBinomial(n, mu * kappa, (1 - mu) * kappa)\n"
		writtenModel     = decls + "target += sum(lchoose(n, y) + lbeta(y + mu * kappa, n - y + (1 - mu) * kappa) - lbeta(mu * kappa, (1 - mu) * kappa))\n"
		sdFromTruth      = 3
		sdFromWrittenOut = 0.5
	)
	rng := rand.New(rand.NewPCG(2026, 19))
	var b bytes.Buffer
	b.WriteString("n,y\n")
	for range groups {
		n := float64(10 + rng.IntN(51))
		y := dist.BetaBinomial{N: n, A: mu * kappa, B: (1 - mu) * kappa}.Rand(rng)
		fmt.Fprintf(&b, "%d,%d\n", int(n), int(y))
	}
	dir := t.TempDir()
	dpath := dir + "/bb.csv"
	if err := os.WriteFile(dpath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fits := map[string]map[string]refRow{}
	for name, src := range map[string]string{"bb": bbModel, "written": writtenModel} {
		mpath := dir + "/" + name + ".gpp"
		if err := os.WriteFile(mpath, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		fits[name] = fitSummary(t, mpath, []string{dpath}, sgvb.Settings{Seed: 1})
	}
	for name, want := range map[string]float64{"mu": mu, "kappa": kappa} {
		r, o := fits["bb"][name], fits["written"][name]
		t.Logf("%s: mean %.3f sd %.3f (truth %g; written out %.3f sd %.3f)", name, r.mean, r.sd, want, o.mean, o.sd)
		if !(math.Abs(r.mean-want) < sdFromTruth*r.sd) {
			t.Errorf("%s: posterior mean %.3f is more than %v sds (%.3f) from the truth %g", name, r.mean, float64(sdFromTruth), r.sd, want)
		}
		if !(math.Abs(r.mean-o.mean) < sdFromWrittenOut*r.sd) {
			t.Errorf("%s: posterior mean %.3f is more than %v sd (%.3f) from the written-out form's %.3f", name, r.mean, sdFromWrittenOut, r.sd, o.mean)
		}
	}
}

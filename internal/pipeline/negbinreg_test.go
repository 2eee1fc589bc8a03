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

// TestNegBinomialLogRegression fits a negative binomial count regression on
// the log scale, y ~ NegBinomialLog(b0 + b1 * x, phi), to 300 counts
// simulated from it (one PCG stream seeded (2026, 17)), and checks the
// posterior means of the intercept, the slope and the dispersion against
// the truth within 3 posterior sds, and against the fit of the same model
// written NegBinomial(exp(b0 + b1 * x), phi) within half an sd.
func TestNegBinomialLogRegression(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const (
		n               = 300
		b0, b1, phi     = 0.7, 0.8, 4.0
		decls           = "data x: real[N]\ndata y: int<lower=0>[N]\nparam b0: real ~ Normal(0, 2)\nparam b1: real ~ Normal(0, 2)\nparam phi: positive ~ Gamma(2, 0.1)\n"
		logModel        = decls + "y ~ NegBinomialLog(b0 + b1 * x, phi)\n"
		meanModel       = decls + "y ~ NegBinomial(exp(b0 + b1 * x), phi)\n"
		sdFromTruth     = 3
		sdFromMeanScale = 0.5
	)
	rng := rand.New(rand.NewPCG(2026, 17))
	var b bytes.Buffer
	b.WriteString("x,y\n")
	for range n {
		x := rng.NormFloat64()
		y := dist.NegBinomialLog{Eta: b0 + b1*x, Phi: phi}.Rand(rng)
		fmt.Fprintf(&b, "%.6f,%d\n", x, int(y))
	}
	dir := t.TempDir()
	dpath := dir + "/nbreg.csv"
	if err := os.WriteFile(dpath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fits := map[string]map[string]refRow{}
	for name, src := range map[string]string{"log": logModel, "mean": meanModel} {
		mpath := dir + "/" + name + ".gpp"
		if err := os.WriteFile(mpath, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		fits[name] = fitSummary(t, mpath, []string{dpath}, sgvb.Settings{Seed: 1})
	}
	for name, want := range map[string]float64{"b0": b0, "b1": b1, "phi": phi} {
		r, o := fits["log"][name], fits["mean"][name]
		t.Logf("%s: mean %.3f sd %.3f (truth %g; on the mean scale %.3f sd %.3f)", name, r.mean, r.sd, want, o.mean, o.sd)
		if !(math.Abs(r.mean-want) < sdFromTruth*r.sd) {
			t.Errorf("%s: posterior mean %.3f is more than %v sds (%.3f) from the truth %g", name, r.mean, float64(sdFromTruth), r.sd, want)
		}
		if !(math.Abs(r.mean-o.mean) < sdFromMeanScale*r.sd) {
			t.Errorf("%s: posterior mean %.3f is more than %v sd (%.3f) from the mean-scale form's %.3f", name, r.mean, sdFromMeanScale, r.sd, o.mean)
		}
	}
}

package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/pipeline"
)

// kfoldGEV is a GEV written as a user density, as a climate scientist's
// trial had it: where a row is outside the support that a draw's xi, mu
// and sigma give (above mu − sigma/xi for xi < 0), t < 0 and log(t) is
// NaN, a density of 0 that the model does not write as −∞.
const kfoldGEV = `fn gev_lpdf(y, mu, sigma, xi) {
  let t = 1 + xi * (y - mu) / sigma
  return -log(sigma) - (1 + 1 / xi) * log(t) - pow(t, -1 / xi)
}
data y: real[N]
param mu: real ~ Normal(100, 50)
param sigma: positive ~ LogNormal(3, 1)
param xi: real ~ Normal(0, 0.3)
y ~ gev(mu, sigma, xi)
output log_lik = gev_lpdf(y, mu, sigma, xi)
`

// kfoldGEVData are 30 annual maxima of that trial, one of them (280.7)
// outside the support of many draws of the others' posterior.
const kfoldGEVData = "y\n48.6090\n107.5206\n128.4695\n149.6627\n110.7042\n73.4254\n89.9860\n175.5616\n" +
	"104.0172\n184.9574\n90.8650\n150.2477\n137.1157\n91.0495\n78.1188\n93.6007\n121.8668\n92.8555\n" +
	"125.5457\n280.7277\n126.3072\n91.9647\n96.6341\n140.1201\n82.7258\n83.9929\n128.6169\n71.7904\n131.7856\n183.0391\n"

// TestKfoldHeldOutLogLik: at a draw where one held-out row is outside the
// support (its log_lik NaN, and the held-out rows' log density an error),
// the other rows keep their log_lik, the NaN one is −∞ (density 0), and
// it is counted with its position.
func TestKfoldHeldOutLogLik(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "gev.gpp", kfoldGEV)
	csvPath := writeFile(t, dir, "y.csv", "y\n100\n110\n300\n")
	l, err := pipeline.Load(model, []string{csvPath}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := l.Model.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ll := -1
	for i, o := range l.Model.Outputs {
		if o.Name == looOutput {
			ll = i
		}
	}
	x := make([]float64, 3)
	mu, sigma, xi := 100.0, 20.0, -0.2 // the support's top mu − sigma/xi = 200
	for _, lt := range l.Model.Latents {
		x[lt.Offset] = map[string]float64{"mu": mu, "sigma": math.Log(sigma), "xi": xi}[lt.Name] // sigma's coordinate is its log
	}
	if _, outs, err := ev.Eval(x); err == nil {
		t.Fatalf("the log density of y = 300 above the support's top is no error (x %v, log_lik %v)", x, outs[ll])
	}
	var res foldResult
	got := res.heldOutLogLik(ev, x, ll, nil)
	for j, y := range []float64{100, 110} {
		tt := 1 + xi*(y-mu)/sigma
		want := -math.Log(sigma) - (1+1/xi)*math.Log(tt) - math.Pow(tt, -1/xi)
		if math.Abs(got[j]-want) > 1e-12 {
			t.Errorf("log_lik[%d] = %v, want %v", j, got[j], want)
		}
	}
	if !math.IsInf(got[2], -1) || res.nanLL != 1 || res.llErr == nil || !strings.Contains(res.llErr.Error(), model+":3:39: log: argument") {
		t.Errorf("log_lik[2] = %v, %d NaN counted, error %v", got[2], res.nanLL, res.llErr)
	}
}

// TestKfoldSupportNaN: gpp kfold of kfoldGEV, whose held-out outlier is
// outside the support at some draws of its fold's posterior (log_lik NaN
// there), counts those terms as density 0, as gpp fit's LOO does: every
// observation's elpd_kfold and the total are finite (before: NaN for the
// outlier's fold, and every row of it), and the warning names the
// log_lik's NaN at its position. By NUTS too.
func TestKfoldSupportNaN(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "gev.gpp", kfoldGEV)
	csvPath := writeFile(t, dir, "y.csv", kfoldGEVData)
	for _, method := range []string{"sgvb", "nuts"} {
		out := filepath.Join(dir, method)
		args := []string{"kfold", model, csvPath, "--folds", "5", "--output-draws", "300", "--workers", "1", "--out", out}
		if method == "nuts" {
			if testing.Short() {
				continue
			}
			args = append(args, "--nuts", "--warmup", "300")
		}
		code, _, stderr := runSafe(t, args...)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", method, code, stderr)
		}
		total := 0.0
		for i, r := range readKfold(t, out) {
			if math.IsNaN(r.elpd) || math.IsInf(r.elpd, 0) {
				t.Errorf("%s: log_lik[%d] (fold %d): elpd_kfold %v", method, i, r.fold, r.elpd)
			}
			total += r.elpd
		}
		b, err := os.ReadFile(filepath.Join(out, kfoldFile))
		if err != nil {
			t.Fatal(err)
		}
		if math.IsNaN(total) || !strings.HasPrefix(string(b), "# elpd_kfold = -") {
			t.Errorf("%s: elpd_kfold %v: %s", method, total, strings.SplitN(string(b), "\n", 2)[0])
		}
		if !strings.Contains(stderr, "log_lik was not a number at ") || !strings.Contains(stderr, "counted as density 0") ||
			!strings.Contains(stderr, "; the first: "+model+":3:39: log: argument") || !strings.Contains(stderr, "(in the call of gev_lpdf at "+model+":10:18)") {
			t.Errorf("%s: no positioned warning of the NaN log_lik:\n%s", method, stderr)
		}
	}
}

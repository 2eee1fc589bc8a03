package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// stanFuncsModel uses Stan's functions added with log_diff_exp and its
// kin: a probit written with erfc and binary_log_loss, a slope asin(r),
// a scale hypot(s, 0) and a two-bump prior on a by log_sum_exp.
const stanFuncsModel = `data x: real[N]
data y: int<lower=0, upper=1>[N]
data v: real[N]
param a: real
param b: real ~ Normal(0, 5)
param r: real<lower=-1, upper=1>
param s: positive ~ Exponential(1)
target += log_sum_exp(-square(a) / 8, -square(a - 1) / 8)
target += -sum(binary_log_loss(y, 0.5 * erfc(-(a + b * x))))
v ~ Normal(asin(r) * x, hypot(s, 0))
output q = log_diff_exp(log2(exp2(a) + 1), a * log2())
`

// stanFuncsPlain is the same model in older built-ins.
const stanFuncsPlain = `data x: real[N]
data y: int<lower=0, upper=1>[N]
data v: real[N]
param a: real
param b: real ~ Normal(0, 5)
param r: real<lower=-1, upper=1>
param s: positive ~ Exponential(1)
target += log(exp(-square(a) / 8) + exp(-square(a - 1) / 8))
y ~ Bernoulli(Phi(sqrt2() * (a + b * x)))
v ~ Normal(atan(r / sqrt(1 - r * r)) * x, s)
output q = log(exp(log(exp(a * log2()) + 1) / log2()) - exp(a * log2()))
`

// TestFitStanFuncs fits a model written with the new functions and the
// same model in older built-ins to simulated data (a = 0.3, b = 0.8,
// r = 0.5, s = 0.7, N = 400): the posterior means agree and lie near the
// truth, and the output agrees with its plain form.
func TestFitStanFuncs(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(56, 1))
	var csv strings.Builder
	csv.WriteString("x,y,v\n")
	for i := 0; i < 400; i++ {
		x := rng.NormFloat64()
		y := 0
		if rng.NormFloat64() < math.Sqrt2*(0.3+0.8*x) {
			y = 1
		}
		v := math.Asin(0.5)*x + 0.7*rng.NormFloat64()
		fmt.Fprintf(&csv, "%.17g,%d,%.17g\n", x, y, v)
	}
	data := writeFile(t, dir, "d.csv", csv.String())
	means := map[string][]float64{}
	for i, src := range []string{stanFuncsModel, stanFuncsPlain} {
		model := writeFile(t, dir, fmt.Sprintf("m%d.gpp", i), src)
		out := filepath.Join(dir, fmt.Sprintf("out%d", i))
		if code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--seed", "3", "--out", out); code != 0 {
			t.Fatalf("model %d: exit %d: %s", i, code, stderr)
		}
		for _, row := range reftest.ReadCSV(t, filepath.Join(out, "summary.csv"))[1:] {
			m, err := strconv.ParseFloat(row[2], 64)
			if err != nil {
				t.Fatal(err)
			}
			means[row[0]] = append(means[row[0]], m)
		}
	}
	t.Logf("posterior means (new functions, older built-ins): %v", means)
	truth := map[string]float64{"a": 0.3, "b": 0.8, "r": 0.5, "s": 0.7}
	for name, m := range means {
		if len(m) != 2 {
			t.Fatalf("%s: means %v", name, m)
		}
		if math.Abs(m[0]-m[1]) > 0.01*math.Max(1, math.Abs(m[1])) {
			t.Errorf("%s: mean %g with the new functions, %g in older built-ins", name, m[0], m[1])
		}
		if w, ok := truth[name]; ok && math.Abs(m[0]-w) > 0.25 {
			t.Errorf("%s: mean %g, truth %g", name, m[0], w)
		}
	}
	if len(means) != 5 {
		t.Errorf("summary rows %v", means)
	}
}

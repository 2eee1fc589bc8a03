package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// The categorical and multinomial models below have a conjugate
// Dirichlet(1, 1, 1) prior on theta, so each observation's leave-one-out
// predictive probability is exact: a category y_i has probability
// (1 + c_{y_i} − 1) / (3 + N − 1), c the counts of all N categories, and
// a row of counts y_r of total m the Dirichlet-multinomial mass
// m!/Π y_j! · Γ(A)/Γ(A + m) · Π Γ(a_j + y_j)/Γ(a_j) with a = 1 + the
// other rows' counts, A = Σ a.
var looCategories = []int{0, 2, 1, 1, 0, 2, 2, 1, 0, 1, 1, 2, 1, 0, 1, 1, 2, 1, 1, 0, 1, 2, 1, 1}

var looCounts = [][3]int{{3, 1, 0}, {1, 2, 2}, {0, 4, 1}, {2, 2, 3}, {1, 0, 1}, {2, 5, 0}, {0, 3, 2}, {1, 2, 1}}

func exactCategoricalLOO(y []int) float64 {
	var c [3]float64
	for _, v := range y {
		c[v]++
	}
	n, s := float64(len(y)), 0.0
	for _, v := range y {
		s += math.Log(c[v] / (3 + n - 1))
	}
	return s
}

func exactMultinomialLOO(rows [][3]int) float64 {
	var tot [3]float64
	for _, r := range rows {
		for j, c := range r {
			tot[j] += float64(c)
		}
	}
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	s := 0.0
	for _, r := range rows {
		m, big := 0.0, 0.0
		for j, c := range r {
			y := float64(c)
			a := 1 + tot[j] - y
			m += y
			big += a
			s += lg(a+y) - lg(a) - lg(y+1)
		}
		s += lg(m+1) + lg(big) - lg(big+m)
	}
	return s
}

// TestFitLOOCategorical: gpp fit of a classifier and of a count model whose
// output log_lik is logpdf of Categorical, CategoricalLogit (on a log-odds
// row per observation), Multinomial or MultinomialLogit gives an elpd_loo
// within 0.1 of the exact one. The tolerance is TestFitLOO's: PSIS-LOO
// with 4000 draws of q weighted by p/q estimates each observation's
// predictive probability to Monte Carlo error (measured: the categorical
// total within 0.04 of the exact −26.052 for seeds 1–4, the multinomial
// within 0.001 of −22.711 at seed 1; every k̂ below 0.7). A log_lik that
// lost or misplaced an observation's term would move the total by the
// term's size, 0.3 or more here.
func TestFitLOOCategorical(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models")
	}
	n := len(looCategories)
	one := make([]float64, n)
	for i := range one {
		one[i] = 1
	}
	counts := make([][]int, len(looCounts))
	ones := make([]float64, len(looCounts))
	for i, r := range looCounts {
		counts[i], ones[i] = r[:], 1
	}
	const prior = "param theta: simplex[3] ~ Dirichlet(rep(1, 3))\n"
	for _, c := range []struct {
		name, model string
		data        map[string]any
		exact       float64
	}{
		{"Categorical", "data y: int<lower=0, upper=2>[N]\n" + prior +
			"y ~ Categorical(theta)\noutput log_lik = logpdf(y, Categorical(theta))\n",
			map[string]any{"N": n, "y": looCategories}, exactCategoricalLOO(looCategories)},
		{"CategoricalLogit", "data y: int<lower=0, upper=2>[N]\ndata one: real[N]\n" + prior +
			"let eta = one * log(theta)'   # [N, 3]: a row per observation\n" +
			"y ~ CategoricalLogit(eta)\noutput log_lik = logpdf(y, CategoricalLogit(eta))\n",
			map[string]any{"N": n, "y": looCategories, "one": one}, exactCategoricalLOO(looCategories)},
		{"Multinomial", "data Y: int<lower=0>[N, 3]\n" + prior +
			"Y ~ Multinomial(theta)\noutput log_lik = logpdf(Y, Multinomial(theta, rowsum(Y)))\n",
			map[string]any{"N": len(counts), "Y": counts}, exactMultinomialLOO(looCounts[:])},
		{"MultinomialLogit", "data Y: int<lower=0>[N, 3]\ndata one: real[N]\n" + prior +
			"let eta = one * log(theta)'\n" +
			"Y ~ MultinomialLogit(eta)\noutput log_lik = logpdf(Y, MultinomialLogit(eta))\n",
			map[string]any{"N": len(counts), "Y": counts, "one": ones}, exactMultinomialLOO(looCounts[:])},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			raw, err := json.Marshal(c.data)
			if err != nil {
				t.Fatal(err)
			}
			data := writeFile(t, dir, "data.json", string(raw))
			model := writeFile(t, dir, "m.gpp", c.model)
			out := filepath.Join(dir, "out")
			code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--seed", "1", "--out", out, "--output-draws", "4000")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			rows := reftest.ReadCSV(t, filepath.Join(out, "loo.csv"))[2:]
			want := len(looCategories)
			if strings.HasPrefix(c.name, "Multinomial") {
				want = len(looCounts)
			}
			if len(rows) != want {
				t.Fatalf("loo.csv has %d observations, want %d", len(rows), want)
			}
			sum := 0.0
			for _, r := range rows {
				v, _ := strconv.ParseFloat(r[1], 64)
				sum += v
				if k, _ := strconv.ParseFloat(r[3], 64); !(k < 0.7) {
					t.Errorf("%s: k̂ %s", r[0], r[3])
				}
			}
			t.Logf("elpd_loo %.4f, exact %.4f", sum, c.exact)
			if math.Abs(sum-c.exact) > 0.1 {
				t.Errorf("elpd_loo %.4f, exact %.4f", sum, c.exact)
			}
		})
	}
}

package pipeline_test

import (
	"math"
	"sort"
	"strconv"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/reftest"
)

// TestMixtureExample fits examples/mixture.gpp (two normal components,
// written with logpdf and rowlogsumexp) to the proline column of
// examples/wine_std.csv and compares q's means with the maximum-likelihood
// mixture that EM reaches from any start (written out below): with 178
// observations and weak priors they must agree within two sds of q. The
// responsibilities (the output resp) must sum to 1 in every row.
func TestMixtureExample(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	got := fitSummary(t, "../../examples/mixture.gpp", []string{"../../examples/wine_std.csv"},
		sgvb.Settings{Seed: 1, GammaParam: sgvb.GammaLogMeanShape, StepSize: 0.3})
	ys := readColumn(t, "../../examples/wine_std.csv", "proline")
	w, mu, sigma := emMixture(ys, 2)
	// The components in q's order of mu; EM's are sorted by mu.
	order := []string{"1", "2"}
	if got["mu[1]"].mean > got["mu[2]"].mean {
		order = []string{"2", "1"}
	}
	for k, c := range order {
		for _, p := range []struct {
			name string
			mle  float64
		}{{"w", w[k]}, {"mu", mu[k]}, {"sigma", sigma[k]}} {
			g := got[p.name+"["+c+"]"]
			t.Logf("%s[%s]: q mean %.4f sd %.4f, ML %.4f", p.name, c, g.mean, g.sd, p.mle)
			if math.Abs(g.mean-p.mle) > 2*g.sd {
				t.Errorf("%s[%s]: q mean %.4f is more than 2 sd (%.4f) from the ML estimate %.4f", p.name, c, g.mean, g.sd, p.mle)
			}
		}
	}
	for i := range ys {
		s := 0.0
		for _, c := range []string{"1", "2"} {
			s += got["resp["+strconv.Itoa(i+1)+","+c+"]"].mean
		}
		if math.Abs(s-1) > 1e-9 {
			t.Fatalf("resp row %d sums to %.12g", i+1, s)
		}
	}
}

// emMixture returns the maximum-likelihood weights, means and sds of a
// k-component normal mixture of ys by EM (1000 iterations from components
// spread over the data's quantiles), sorted by mean.
func emMixture(ys []float64, k int) (w, mu, sigma []float64) {
	s := append([]float64(nil), ys...)
	sort.Float64s(s)
	w, mu, sigma = make([]float64, k), make([]float64, k), make([]float64, k)
	for j := range k {
		w[j], mu[j], sigma[j] = 1/float64(k), s[(2*j+1)*len(s)/(2*k)], 1
	}
	r := make([]float64, k)
	for range 1000 {
		nk, sy, syy := make([]float64, k), make([]float64, k), make([]float64, k)
		for _, y := range ys {
			t := 0.0
			for j := range k {
				z := (y - mu[j]) / sigma[j]
				r[j] = w[j] * math.Exp(-z*z/2) / sigma[j]
				t += r[j]
			}
			for j := range k {
				nk[j] += r[j] / t
				sy[j] += r[j] / t * y
				syy[j] += r[j] / t * y * y
			}
		}
		for j := range k {
			w[j], mu[j] = nk[j]/float64(len(ys)), sy[j]/nk[j]
			sigma[j] = math.Sqrt(syy[j]/nk[j] - mu[j]*mu[j])
		}
	}
	return w, mu, sigma
}

// readColumn reads the column named name of a CSV file with a header.
func readColumn(t *testing.T, path, name string) []float64 {
	t.Helper()
	rows := reftest.ReadCSV(t, path)
	col := -1
	for j, h := range rows[0] {
		if h == name {
			col = j
		}
	}
	if col < 0 {
		t.Fatalf("%s: no column %s", path, name)
	}
	var ys []float64
	for _, r := range rows[1:] {
		v, err := strconv.ParseFloat(r[col], 64)
		if err != nil {
			t.Fatal(err)
		}
		ys = append(ys, v)
	}
	return ys
}

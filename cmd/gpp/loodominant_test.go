package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// TestLOODominantObservation: a count of 1e6 among counts of about 5
// carries nearly all of p_loo, and the LOO warning names it, its data
// cell and value, and says to check it before refitting; the p_loo
// warning points to it. The same data with that count 6 get neither.
func TestLOODominantObservation(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return writeFile(t, dir, name, text) }
	ys := []int{4, 5, 3, 6, 7, 5, 4, 8, 5, 4, 6, 1000000, 5, 3, 4, 7, 5, 6, 4, 5, 8, 3, 5, 6, 4, 5, 7, 4, 5, 6}
	csv := func(ys []int) string {
		var b strings.Builder
		b.WriteString("y\n")
		for _, y := range ys {
			fmt.Fprintf(&b, "%d\n", y)
		}
		return b.String()
	}
	model := write("m.gpp", "data y: int[N]\nparam mu: real ~ Normal(0, 5)\nparam phi: positive ~ Gamma(2, 0.1)\ny ~ NegBinomialLog(mu, phi)\noutput log_lik = logpdf(y, NegBinomialLog(mu, phi))\n")
	fit := func(data string) string {
		code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--out", filepath.Join(dir, "fit"))
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return stderr
	}
	bad := write("bad.csv", csv(ys))
	got := fit(bad)
	for _, want := range []string{
		"one observation, log_lik[11] (k̂ ",
		"y[11] = 1e+06 at " + bad + ":13:1, where y's median is 5",
		"check it in the data before refitting with another q; if the data are right: ",
		"but log_lik[11] alone carries ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr lacks %q:\n%s", want, got)
		}
	}
	ys[11] = 6
	if got := fit(write("ok.csv", csv(ys))); strings.Contains(got, "carries") || strings.Contains(got, "carry") {
		t.Errorf("named an observation in clean data:\n%s", got)
	}
}

// TestLOODominantObs: the observations named are the fewest, at most
// looDominantMax, that carry more than half of p_loo, each flagged; none
// where p_loo is spread, a carrier has k̂ below 0.7, or there are fewer
// than looDominantMinN observations.
func TestLOODominantObs(t *testing.T) {
	mk := func(n int, big map[int][2]float64) *drawSet {
		lo := &sgvb.LOO{}
		for i := 0; i < n; i++ {
			p := sgvb.LOOPoint{P: 0.1, K: 0.2}
			if b, ok := big[i]; ok {
				p.P, p.K = b[0], b[1]
			}
			lo.P += p.P
			lo.Points = append(lo.Points, p)
		}
		return &drawSet{loo: lo}
	}
	for _, c := range []struct {
		name string
		ds   *drawSet
		want []int
	}{
		{"one", mk(20, map[int][2]float64{7: {5, 3}}), []int{7}},
		{"two", mk(20, map[int][2]float64{3: {1.2, 1.1}, 9: {1.5, 2}}), []int{9, 3}},
		{"spread", mk(20, nil), nil},
		{"unflagged", mk(20, map[int][2]float64{7: {5, 0.5}}), nil},
		{"more needed", mk(20, map[int][2]float64{1: {1, 1}, 2: {1, 1}, 3: {1, 1}, 4: {1, 1}, 5: {1, 1}}), nil},
		{"few observations", mk(looDominantMinN-1, map[int][2]float64{2: {5, 3}}), nil},
	} {
		if got := looDominantObs(c.ds); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

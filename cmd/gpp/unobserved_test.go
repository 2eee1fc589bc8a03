package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// TestLOOPWarning: p_loo above the observations warns whatever the k̂;
// above the model's parameters only with some k̂ above 0.7 (the loo
// package's reading); below both, or with log_lik conditional on a
// per-observation param (its own warning), it does not.
func TestLOOPWarning(t *testing.T) {
	loo := func(p float64, k float64) *drawSet {
		lo := &sgvb.LOO{P: p, ELPD: -10}
		for range 4 {
			lo.Points = append(lo.Points, sgvb.LOOPoint{P: p / 4, K: k})
		}
		return &drawSet{loo: lo}
	}
	for _, tc := range []struct {
		p, k float64
		dim  int
		want string
	}{
		{4.5, 0.1, 10, "p_loo = 4.5 is more than the 4 observations of log_lik"},
		{4.5, 0.9, 100, "p_loo = 4.5 is more than the 4 observations"},
		{3.5, 0.9, 3, "p_loo = 3.5 is more than the model's 3 parameters, with Pareto k̂ above 0.7 for 4 of 4 observations"},
		{3.5, 0.5, 3, ""},
		{2.5, 0.9, 3, ""},
		{4, 0.9, 10, ""},
	} {
		got := looPWarning(loo(tc.p, tc.k), tc.dim, math.NaN(), math.NaN(), false, "--fullrank all")
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("p_loo %g, k̂ %g, %d params: %q, want %q", tc.p, tc.k, tc.dim, got, tc.want)
		}
	}
	// q missing the posterior (the draws' own k̂, or q's on the fit's
	// final draws, above 0.7): p_loo rests on q, and the warning sends to
	// the refit, not to misspecification; gpp sample's draws never do.
	for _, tc := range []struct {
		qk, fitK, fitESS float64
		joint            bool
		want             string
	}{
		{1.11, 0.85, 0.01, false, "but p_loo is estimated from q's draws, and q misses part of the posterior (k̂ 1.11 on the draws' own weights, 0.85 on the fit's final draws): refit with --fullrank all first; the loo package's check"},
		{0.5, 0.85, 0.01, false, "(k̂ 0.5 on the draws' own weights, 0.85 on the fit's final draws): refit with --fullrank all first"},
		{1.11, 0.85, 0.01, true, "0.85 on the fit's final draws): check q first (gpp sample draws the posterior itself"},
		{math.Inf(-1), math.NaN(), math.NaN(), false, "with Pareto k̂ above 0.7 for 4 of 4 observations (100 %): the loo package reads p_loo > p as a likely badly misspecified model, but p_loo comes from the same PSIS weights"},
		{0.5, 0.5, 0.01, false, "with Pareto k̂ above 0.7 for 4 of 4 observations (100 %): the loo package reads p_loo > p as a likely badly misspecified model, but p_loo comes from the same PSIS weights"},
		// the draws' own k̂ 0.6 with 4 of 4 flagged: q's tail (qTail)
		{0.6, 0.5, 0.01, false, "(k̂ 0.6 on the draws' own weights, 0.5 on the fit's final draws): refit with --fullrank all first"},
	} {
		ds := loo(3.5, 0.9)
		ds.loo.QK = tc.qk
		got := looPWarning(ds, 3, tc.fitK, tc.fitESS, tc.joint, "--fullrank all")
		if !strings.HasPrefix(got, "p_loo = 3.5 is more than the model's 3 parameters") || !strings.Contains(got, tc.want) {
			t.Errorf("q's k̂ %g, fit's %g, joint %v: %q, want %q", tc.qk, tc.fitK, tc.joint, got, tc.want)
		}
	}
	// many flagged (more than looUnreliableShare), or p not much smaller
	// than n (p > n/pFewN): p_loo shares the weights' doubt and a flexible
	// right model raises it (the trial's logistic regression, p 51, n 300,
	// 51 flagged): the warning says so and sends to K-fold; few flagged
	// and p ≪ n keep the glossary's reading
	for _, tc := range []struct {
		n, bad, dim int
		weak        bool
	}{
		{300, 51, 51, true},
		{300, 20, 51, true},  // 7 % flagged, p/n 0.17
		{300, 31, 29, true},  // 10.3 % flagged, p/n < 0.1
		{300, 30, 29, false}, // 10 % flagged, p/n < 0.1
		{300, 30, 31, true},  // p/n above 0.1
	} {
		lo := &sgvb.LOO{P: 82.2, ELPD: -158, QK: math.NaN()}
		for i := range tc.n {
			k := 0.2
			if i < tc.bad {
				k = 0.9
			}
			lo.Points = append(lo.Points, sgvb.LOOPoint{K: k})
		}
		got := looPWarning(&drawSet{loo: lo}, tc.dim, math.NaN(), math.NaN(), false, "--fullrank all")
		want := "the model is likely badly misspecified"
		if tc.weak {
			want = fmt.Sprintf("p_loo = 82.2 is more than the model's %d parameters, with Pareto k̂ above 0.7 for %d of %d observations (%s %%): the loo package reads p_loo > p as a likely badly misspecified model, but ",
				tc.dim, tc.bad, tc.n, shareText(tc.bad, tc.n))
		}
		if !strings.Contains(got, want) || tc.weak != strings.Contains(got, "gpp kfold") {
			t.Errorf("%d of %d flagged, %d params: %q, want %q", tc.bad, tc.n, tc.dim, got, want)
		}
		if flexible := tc.dim*10 > tc.n; flexible != strings.Contains(got, fmt.Sprintf("with %d parameters for %d observations (p/n = %s)", tc.dim, tc.n, num2(float64(tc.dim)/float64(tc.n)))) {
			t.Errorf("%d of %d flagged, %d params: %q, p/n %v", tc.bad, tc.n, tc.dim, got, flexible)
		}
		if many := tc.bad*10 > tc.n; many != strings.Contains(got, "with that many observations flagged") {
			t.Errorf("%d of %d flagged: %q, the weights' doubt %v", tc.bad, tc.n, got, many)
		}
	}
	// p_loo above p by no more than 5 % of p (pLOOAboveDim): the trial's
	// ordinal model, p 7, n 3000, p_loo 7.25 ± 0.25 with 7 flagged, gives
	// no warning; 8.5 does, and so does an excess past 5 % of p, whatever
	// p_loo's se (large where few observations carry it)
	for _, tc := range []struct {
		terms []float64
		dim   int
		warn  bool
	}{
		{spread(3000, 7.25, 0.25), 7, false},
		{spread(3000, 8.5, 0.25), 7, true},
		{spread(3000, 7.4, 0.05), 7, true},
		{spread(3000, 7.3, 0.05), 7, false},      // within 5 % of p
		{[]float64{0.2, 1.5, 0.3, 1.5}, 3, true}, // 3.5 ± 1.4
		{[]float64{0.8, 0.9, 0.9, 0.9}, 3, true}, // 3.5 ± 0.1
	} {
		lo := &sgvb.LOO{ELPD: -10, QK: math.NaN()}
		for i, p := range tc.terms {
			lo.P += p
			k := 0.2
			if i < 7 {
				k = 0.71
			}
			lo.Points = append(lo.Points, sgvb.LOOPoint{P: p, K: k})
		}
		got := looPWarning(&drawSet{loo: lo}, tc.dim, math.NaN(), math.NaN(), false, "--fullrank all")
		if tc.warn != strings.Contains(got, "likely badly misspecified") {
			t.Errorf("p_loo %.3g of %d terms, %d params: %q, want a warning %v", lo.P, len(tc.terms), tc.dim, got, tc.warn)
		}
	}
	ds := loo(100, 0.9)
	ds.looCond = []looCondParam{{name: "z"}}
	if w := looPWarning(ds, 3, math.NaN(), math.NaN(), false, "--fullrank all"); w != "" {
		t.Errorf("conditional log_lik: %q", w)
	}
}

// spread returns n terms summing to total whose sum's standard error
// (sgvb.SumSE) is se: alternately above and below their mean.
func spread(n int, total, se float64) []float64 {
	d := se * math.Sqrt(float64(n-1)) / float64(n)
	v := make([]float64, n)
	for i := range v {
		v[i] = total / float64(n)
		if i%2 == 0 {
			v[i] += d
		} else {
			v[i] -= d
		}
	}
	return v
}

// TestFitWarnsUnobserved: the trial's 4PL with its ~ lines lost
// (check_unobserved.gpp) is fitted with the warnings that the model
// observes no data and that its p_loo is more than its observations; gpp
// fit --prior, which draws the prior on purpose, and gpp predict leave out
// the first and keep the data read nowhere.
func TestFitWarnsUnobserved(t *testing.T) {
	model, data := "testdata/check_unobserved.gpp", "testdata/check_unobserved.json"
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"fit", model, data, "--out", filepath.Join(dir, "fit")}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("gpp fit exits %d:\n%s", code, errb.String())
	}
	for _, want := range []string{
		model + ":4:1: warning: the model observes no data",
		model + ":5:6: warning: data `yu` is read nowhere",
		"gpp: warning: p_loo = ",
		"is more than the 6 observations of log_lik",
	} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("gpp fit's stderr lacks %q:\n%s", want, errb.String())
		}
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"fit", "--prior", model, data, "--out", filepath.Join(dir, "prior")}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("gpp fit --prior exits %d:\n%s", code, errb.String())
	}
	if s := errb.String(); strings.Contains(s, "observes no data") || !strings.Contains(s, "data `yu` is read nowhere") {
		t.Errorf("gpp fit --prior's stderr:\n%s", s)
	}

	// gpp predict: new data at a fit of the regression, with an outcome
	// read only by an output
	src, err := os.ReadFile("testdata/predict_new.gpp")
	if err != nil {
		t.Fatal(err)
	}
	pm := filepath.Join(dir, "m.gpp")
	text := strings.Replace(string(src), "proline ~ Normal(mu, sigma)\n", "", 1) + "output lp = logpdf(proline, Normal(mu, sigma))\n"
	pd := filepath.Join(dir, "new.csv")
	if err := os.WriteFile(pm, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pd, []byte("alcohol,color_intensity,proline\n0,0,1\n1,0,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run([]string{"check", pm}, strings.NewReader(""), &out, &errb); code != exitOK || !strings.Contains(errb.String(), "observes no data") {
		t.Fatalf("gpp check exits %d, does not warn:\n%s", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"predict", "testdata/predict", pm, pd, "--out", filepath.Join(dir, "p")}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("gpp predict exits %d:\n%s", code, errb.String())
	}
	if strings.Contains(errb.String(), "observes no data") {
		t.Errorf("gpp predict warns:\n%s", errb.String())
	}
}

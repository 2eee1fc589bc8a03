package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/reftest"
)

// TestCompareUnreliable: a fit whose k̂ flags more than looUnreliableShare
// of its observations (the rasch trial's mean-field fits, 34–99 %, were
// ranked 46 nats apart with stacking weights 1 and 0 for one posterior) is
// marked ?, its share named in a note that says what gives a reliable
// estimate, and left out of the weights; the reliable fits are weighed
// among themselves, and with fewer than two of them none is. One flagged
// observation of ten is within the share.
func TestCompareUnreliable(t *testing.T) {
	dir := t.TempDir()
	n := 10
	elpd := func(shift float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = -1 - 0.1*float64(i%3) + shift
		}
		return v
	}
	ks := func(bad int) []float64 {
		k := make([]float64, n)
		for i := range k {
			k[i] = 0.3
			if i < bad {
				k[i] = 0.9
			}
		}
		return k
	}
	p := make([]float64, n)
	vi := looRows(t, filepath.Join(dir, "vi"), elpd(0.5), p, ks(8))     // 80 % flagged, best elpd
	vi2 := looRows(t, filepath.Join(dir, "vi2"), elpd(0.3), p, ks(2))   // 20 %: above the share
	nuts := looRows(t, filepath.Join(dir, "nuts"), elpd(0), p, ks(0))   // reliable
	one := looRows(t, filepath.Join(dir, "one"), elpd(-0.05), p, ks(1)) // 10 %: within the share

	code, stdout, stderr := runSafe(t, "compare", vi, vi2)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{vi + " ?", vi2 + " ?", "(" + vi + " 80%, " + vi2 + " 20%)", "the ranking is no\npreference", "gpp sample (NUTS)", "--fullrank auto or all", "more\n--output-draws does not fix", "No fit is weighed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("two unreliable fits: no %q in\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "1.000") || strings.Contains(stdout, "0.000") {
		t.Errorf("two unreliable fits are weighed:\n%s", stdout)
	}
	if strings.Contains(stdout, "not estimated") {
		t.Errorf("fits with every k̂ estimated are said not to have one:\n%s", stdout)
	}

	// A fit of too few draws to estimate k̂ (gpp fit --output-draws 4) is
	// flagged too, and told that more draws cure it.
	none := make([]float64, n)
	for i := range none {
		none[i] = math.NaN()
	}
	few := looRows(t, filepath.Join(dir, "few"), elpd(0.4), p, none)
	code, stdout, stderr = runSafe(t, "compare", few, vi2)
	if code != exitOK || !strings.Contains(stdout, few+" ?") || !strings.Contains(stdout, "A k̂ not estimated (fewer than 21 draws with a finite weight) counts as above 0.7; more\ndraws (--output-draws, gpp sample's --draws) do cure that.") ||
		!strings.Contains(stderr, few+": Pareto k̂ not estimated for 10 of 10 observations") || strings.Contains(stderr, few+": Pareto k̂ above 0.7") {
		t.Errorf("a fit with no k̂ estimated: exit %d\n%s%s", code, stdout, stderr)
	}

	// A K-fold row's k̂ is of its held-out estimate's terms, not of PSIS-LOO
	// from q: it is warned of, not marked nor left out of the weights.
	var kb strings.Builder
	kb.WriteString("# elpd_kfold = 0, se = 0, p_kfold = 0, folds = 10, observations = 10\nname,elpd_kfold,p_kfold,pareto_k\n")
	for i, v := range elpd(0.2) {
		fmt.Fprintf(&kb, "log_lik[%d],%s,0,0.9\n", i, formatExact(v))
	}
	kf := filepath.Join(dir, "kf")
	if err := os.MkdirAll(kf, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, kf, kfoldFile, kb.String())
	code, stdout, stderr = runSafe(t, "compare", kf, nuts)
	if code != exitOK || strings.Contains(stdout, "?") || strings.Contains(stdout, "       -  ") {
		t.Errorf("a K-fold row with k̂ flags: exit %d, marked or not weighed:\n%s%s", code, stdout, stderr)
	}

	// A fit with a NaN elpd is never weighed: with one reliable fit beside
	// it and an unreliable one, none is (a lone weight 1 would read as
	// decisive).
	nan := elpd(0.1)
	nan[3] = math.NaN()
	nanFit := looRows(t, filepath.Join(dir, "nan"), nan, p, ks(0))
	code, stdout, stderr = runSafe(t, "compare", vi, nanFit, nuts)
	if code != exitOK || !strings.Contains(stdout, "No fit is weighed") || strings.Contains(stdout, "1.000") {
		t.Errorf("one reliable fit beside a NaN one and an unreliable one: exit %d, weighed:\n%s%s", code, stdout, stderr)
	}

	out := filepath.Join(dir, "cmp.csv")
	code, stdout, stderr = runSafe(t, "compare", vi, vi2, nuts, one, "--csv", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, nuts+" ?") || strings.Contains(stdout, one+" ?") || !strings.Contains(stdout, "Fits marked ? are not weighed") {
		t.Errorf("reliable fits marked, or no note:\n%s", stdout)
	}
	w := map[string]string{}
	for _, r := range reftest.ReadCSV(t, out)[1:] {
		w[r[0]] = r[6]
	}
	if w[vi] != "NaN" || w[vi2] != "NaN" {
		t.Errorf("unreliable fits weighed: %v", w)
	}
	if w[nuts] == "NaN" || w[one] == "NaN" || num(t, w[nuts])+num(t, w[one]) < 1-1e-9 || num(t, w[nuts])+num(t, w[one]) > 1+1e-9 {
		t.Errorf("reliable fits' weights %s, %s: want them to sum to 1", w[nuts], w[one])
	}
}

// TestLOOLineUnreliable: the console line calls elpd_loo unreliable once
// more than looUnreliableShare of the observations are flagged, not at it.
func TestLOOLineUnreliable(t *testing.T) {
	pts := func(bad int) *sgvb.LOO {
		lo := &sgvb.LOO{QK: 0.3}
		for i := range 20 {
			k := 0.2
			if i < bad {
				k = 1.1
			}
			lo.Points = append(lo.Points, sgvb.LOOPoint{K: k})
		}
		return lo
	}
	for _, c := range []struct {
		bad  int
		want bool
	}{{0, false}, {2, false}, {3, true}, {20, true}} {
		var b strings.Builder
		printLOO(&b, pts(c.bad))
		if got := strings.Contains(b.String(), "elpd_loo unreliable ("+shareText(c.bad, 20)+"%"+" of the observations flagged), not for ranking models"); got != c.want {
			t.Errorf("%d of 20 flagged: %q, want the verdict %v", c.bad, b.String(), c.want)
		}
	}
}

package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// TestWAICLOOCSV: gpp fit's and gpp sample's loo.csv give each
// observation's elpd_waic and p_waic, the loo package's formulas worked
// here from the output draws of log_lik in draws.csv (q's draws, each
// weighing the same, not the defensive draws PSIS-LOO adds), and the
// first line their totals in as many fields as the header has; gpp
// compare --ic waic ranks them by those totals, with p_waic_i above 0.4
// counted, in the table and in --csv.
func TestWAICLOOCSV(t *testing.T) {
	dir := t.TempDir()
	model, csvPath := looFixture(t, dir)
	y := looY
	fit, smp := filepath.Join(dir, "fit"), filepath.Join(dir, "smp")
	if code, _, stderr := runSafe(t, "fit", model, csvPath, "--out", fit, "--output-draws", "200"); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runSafe(t, "sample", model, csvPath, "--out", smp, "--draws", "100", "--chains", "2"); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	totals := map[string]float64{}
	for _, c := range []struct {
		out  string
		skip int // draws.csv's rows before the draws: a fit's mean row
	}{{fit, 1}, {smp, 0}} {
		draws := readDrawsCSV(t, filepath.Join(c.out, "draws.csv"))[c.skip:]
		all := reftest.ReadCSV(t, filepath.Join(c.out, "loo.csv"))
		rows := all[1:]
		if h := strings.Join(rows[0], ","); h != "name,elpd_loo,p_loo,pareto_k,elpd_waic,p_waic" || len(rows) != len(y)+1 {
			t.Fatalf("%s: loo.csv header %q, %d rows", c.out, h, len(rows)-1)
		}
		sumE, sumP := 0.0, 0.0
		for i, r := range rows[1:] {
			ll := make([]float64, len(draws))
			for s, d := range draws {
				ll[s] = d["log_lik."+strconv.Itoa(i+1)]
			}
			S := float64(len(ll))
			mean, lik := 0.0, 0.0
			for _, x := range ll {
				mean += x / S
				lik += math.Exp(x) / S
			}
			v := 0.0
			for _, x := range ll {
				v += (x - mean) * (x - mean) / (S - 1)
			}
			e, _ := strconv.ParseFloat(r[4], 64)
			p, _ := strconv.ParseFloat(r[5], 64)
			// draws.csv keeps 6 digits; S against S − 1 moves p_waic by p/S ≥ 4e-4 here
			if math.Abs(p-v) > 5e-5 || math.Abs(e-(math.Log(lik)-v)) > 5e-5 {
				t.Errorf("%s %s: elpd_waic %s, p_waic %s; from draws.csv %.6g, %.6g", c.out, r[0], r[4], r[5], math.Log(lik)-v, v)
			}
			sumE += e
			sumP += p
		}
		first := strings.Join(all[0], ",")
		if len(all[0]) != 6 || !strings.Contains(first, ", elpd_waic = "+formatNum(roundTo(sumE))) || !strings.Contains(first, ", p_waic = "+formatNum(roundTo(sumP))) {
			t.Errorf("%s: first line %q: want 6 fields, elpd_waic %.6g and p_waic %.6g", c.out, first, sumE, sumP)
		}
		totals[c.out] = sumE
	}
	table := filepath.Join(dir, "cmp.csv")
	code, stdout, stderr := runSafe(t, "compare", fit, smp, "--ic", "waic", "--csv", table)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"WAIC comparison of 2 fits on 12 observations", "elpd_waic", "p_waic > 0.4", num1(totals[fit]), num1(totals[smp])} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compare --ic waic: no %q in\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "elpd_loo") || strings.Contains(stdout, "k̂") {
		t.Errorf("compare --ic waic names LOO's columns:\n%s", stdout)
	}
	// The fit's draws are q's: the note says its WAIC is q's; the sample's are not named.
	if !strings.Contains(stderr, "note: WAIC of "+fit+" is from q's draws") || strings.Contains(stderr, smp+" is from") {
		t.Errorf("compare --ic waic stderr: want the note of q's draws for the fit alone:\n%s", stderr)
	}
	rows := reftest.ReadCSV(t, table)
	if h := strings.Join(rows[0], ","); h != "fit,model,elpd_waic,se,elpd_diff,se_diff,weight,p_waic,p_waic_above_0.4,n,weight_method" {
		t.Errorf("--csv header %q", h)
	}
	for _, r := range rows[1:] {
		got, _ := strconv.ParseFloat(r[2], 64)
		if want := totals[r[0]]; math.Abs(got-want) > 1e-4 {
			t.Errorf("--csv %s: elpd_waic %s, want %.6g", r[0], r[2], want)
		}
	}
}

// roundTo rounds v as formatNum's 6 significant digits would print it,
// so that a sum of loo.csv's full-precision rows prints as its first line.
func roundTo(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return f
}

// TestCompareWAICErrors: --ic waic refuses a loo.csv without WAIC's
// columns (an older gpp's, still read for LOO) and a kfold.csv at their
// header line; --ic takes loo or waic, not with --evidence; --waic, the
// flag a rethinking reader tries, points to --ic waic; a p_waic_i above
// 0.4 is counted and warned of, as the loo package does.
func TestCompareWAICErrors(t *testing.T) {
	d := t.TempDir()
	old := looRows(t, filepath.Join(d, "old"), []float64{-1.1, -2, -1.5}, []float64{0.1, 0.1, 0.1}, []float64{0.1, 0.2, 0.3})
	k := kfoldRows(t, filepath.Join(d, "k"), []float64{-1, -2, -1.5}, []float64{0.1, 0.2, 0.3})
	w := func(name, e2, p2 string) string {
		dir := filepath.Join(d, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, looFile, "# elpd_loo = -4.6, se = 0.4, p_loo = 0.3, pareto_k above 0.7: 0 of 3, elpd_waic = -4.7 (se = 0.4), p_waic = 0.3\n"+
			"name,elpd_loo,p_loo,pareto_k,elpd_waic,p_waic\n"+
			"log_lik[0],-1.1,0.1,0.1,-1.1,0.1\n"+
			"log_lik[1],-2,0.1,0.2,"+e2+","+p2+"\n"+
			"log_lik[2],-1.5,0.1,0.3,-1.5,0.1\n")
		return dir
	}
	a, b := w("a", "-2.1", "0.1"), w("b", "-2.2", "0.5")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{a, old, "--ic", "waic"}, 1, filepath.Join(old, looFile) + ":2:1: --ic waic: no columns elpd_waic and p_waic (a loo.csv written before gpp wrote WAIC)"},
		{[]string{a, k, "--ic", "waic"}, 1, filepath.Join(k, kfoldFile) + ":2:1: --ic waic: a kfold.csv has no WAIC"},
		{[]string{a, b, "--ic", "aic"}, 2, `--ic "aic": want loo or waic`},
		{[]string{a, b, "--ic", "waic", "--evidence"}, 2, "--ic: not with --evidence"},
		{[]string{a, b, "--waic"}, 2, "unknown flag --waic; did you mean --ic waic?"},
		{[]string{a, b, "--ic", "waic"}, 0, "b: p_waic_i above 0.4 for 1 of 3 observations: its elpd_waic may be unreliable (the loo package's warning, which recommends PSIS-LOO"},
	} {
		code, _, stderr := runSafe(t, append([]string{"compare"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("compare %v: exit %d (want %d), stderr:\n%s\nwant %q", c.args, code, c.code, stderr, c.want)
		}
	}
	// The old loo.csv still compares by LOO.
	if code, _, stderr := runSafe(t, "compare", a, old); code != 0 {
		t.Errorf("compare by LOO of an older loo.csv: exit %d: %s", code, stderr)
	}
	// By WAIC a ranks above b (−4.7 against −4.8), given second; by their
	// equal elpd_loo b, given first, stays first.
	_, stdout, _ := runSafe(t, "compare", b, a, "--ic", "waic")
	ia, ib := strings.Index(stdout, "\n"+a), strings.Index(stdout, "\n"+b)
	if ia < 0 || ib < ia || !strings.Contains(stdout[ib:], "-0.1") {
		t.Errorf("compare --ic waic: want a first, b 0.1 below:\n%s", stdout)
	}
	_, stdout, _ = runSafe(t, "compare", b, a)
	if ia, ib := strings.Index(stdout, "\n"+a), strings.Index(stdout, "\n"+b); ib < 0 || ia < ib {
		t.Errorf("compare by LOO: want b first (equal elpd_loo, b given first):\n%s", stdout)
	}
}

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/reftest"
)

// looRows writes a loo.csv in dir (created) with the given per-observation
// elpd_loo, p_loo and k̂, as writeLOOCSV lays it out, and returns dir.
func looRows(t *testing.T, dir string, elpd, p, k []float64) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# elpd_loo = 0, se = 0, p_loo = 0, pareto_k above 0.7: 0 of " + strconv.Itoa(len(elpd)) + "\n")
	b.WriteString("name,elpd_loo,p_loo,pareto_k\n")
	for i := range elpd {
		fmt.Fprintf(&b, "log_lik[%d],%s,%s,%s\n", i, formatExact(elpd[i]), formatExact(p[i]), formatExact(k[i]))
	}
	writeFile(t, dir, looFile, b.String())
	return dir
}

// Tolerance of numbers checked against values computed by hand.
const compareTol = 1e-12

// TestCompareHand: three fits of four observations whose elpd_diff and
// se_diff are worked out by hand. best = (−1, −2, −1.5, −0.5): elpd −5,
// se √(4·(0.0625+0.5625+0.0625+0.5625)/3) = √(5/3). worst − best =
// (−0.2, 0.2, −1, −1): sum −2, deviations from the mean −0.5 are (0.3,
// 0.7, −0.5, −0.5), var 1.08/3 = 0.36, se_diff √(4·0.36) = 1.2. mid − best
// = (0.5, −0.5, −0.5, −0.5): sum −1, deviations (0.75, −0.25, −0.25,
// −0.25), var 0.75/3, se_diff 1. Given worst, best, mid, the ranking is
// best, mid, worst; p_loo sums, and k̂ above 0.7 or NaN count as bad.
func TestCompareHand(t *testing.T) {
	dir := t.TempDir()
	best := looRows(t, filepath.Join(dir, "best"), []float64{-1, -2, -1.5, -0.5}, []float64{0.1, 0.2, 0.3, 0.4}, []float64{0.1, 0.2, 0.3, 0.4})
	worst := looRows(t, filepath.Join(dir, "worst"), []float64{-1.2, -1.8, -2.5, -1.5}, []float64{0.25, 0.25, 0.25, 0.25}, []float64{0.1, 0.71, math.NaN(), 0.7})
	mid := looRows(t, filepath.Join(dir, "mid"), []float64{-0.5, -2.5, -2, -1}, []float64{0.5, 0.5, 0.5, 0.5}, []float64{0.2, 0.2, 0.2, 0.2})
	var fits []*looFit
	for _, d := range []string{worst, best, mid} {
		f, err := readLOOFit(d, sources{})
		if err != nil {
			t.Fatal(err)
		}
		fits = append(fits, f)
	}
	ranks, err := compareLOO(fits)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		dir                       string
		elpd, se, diff, seDiff, p float64
		bad                       int
	}{
		{best, -5, math.Sqrt(5.0 / 3), 0, 0, 1, 0},
		{mid, -6, math.Sqrt(4 * 2.5 / 3), -1, 1, 2, 0},      // mean −1.5, deviations (1, −1, −0.5, 0.5)
		{worst, -7, math.Sqrt(4 * 0.93 / 3), -2, 1.2, 1, 2}, // mean −1.75, deviations (0.55, −0.05, −0.75, 0.25)
	}
	for i, w := range want {
		r := ranks[i]
		if r.fit.label != w.dir {
			t.Fatalf("rank %d is %s, want %s", i+1, r.fit.label, w.dir)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"elpd_loo", r.elpd, w.elpd}, {"se", r.se, w.se}, {"elpd_diff", r.diff, w.diff}, {"se_diff", r.seDiff, w.seDiff}, {"p_loo", r.p, w.p}} {
			if math.Abs(c.got-c.want) > compareTol {
				t.Errorf("%s: %s %.15g, want %.15g", filepath.Base(w.dir), c.name, c.got, c.want)
			}
		}
		if r.badK != w.bad {
			t.Errorf("%s: %d k̂ above 0.7, want %d", filepath.Base(w.dir), r.badK, w.bad)
		}
		if want := map[bool]int{true: 1}[w.dir == worst]; r.noK != want {
			t.Errorf("%s: %d k̂ not a number, want %d", filepath.Base(w.dir), r.noK, want)
		}
	}

	// The CLI: the same ranking on stdout and in --csv, written whole.
	out := filepath.Join(dir, "cmp.csv")
	code, stdout, stderr := runSafe(t, "compare", worst, best, mid, "--csv", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if i, j, k := strings.Index(stdout, best), strings.Index(stdout, mid), strings.Index(stdout, worst); !(i >= 0 && i < j && j < k) {
		t.Errorf("table not in the order best, mid, worst:\n%s", stdout)
	}
	if !strings.Contains(stdout, "2·se_diff") {
		t.Errorf("table lacks the note on se_diff:\n%s", stdout)
	}
	// worst's NaN k̂ is counted apart, with the advice that cures it (more
	// draws), not the one for a k̂ above 0.7 (more draws do not fix q).
	if !strings.Contains(stderr, "warning: "+worst+": Pareto k̂ above 0.7 for 1 of 4") {
		t.Errorf("no warning of worst's k̂ above 0.7:\n%s", stderr)
	}
	if !strings.Contains(stderr, "warning: "+worst+": Pareto k̂ not estimated for 1 of 4 observations (fewer than 21 draws with a finite weight, too few to fit the weights' tail): their elpd_loo is plain importance sampling and unreliable; refit with more --output-draws") {
		t.Errorf("no warning of worst's NaN k̂:\n%s", stderr)
	}
	rows := reftest.ReadCSV(t, out)
	if h := strings.Join(rows[0], ","); h != "fit,model,elpd_loo,se,elpd_diff,se_diff,weight,p_loo,pareto_k_above_0.7,n,weight_method" {
		t.Fatalf("--csv header %q", h)
	}
	if len(rows) != 4 || rows[1][0] != best || rows[2][0] != mid || rows[3][0] != worst {
		t.Fatalf("--csv rows %q", rows[1:])
	}
	// worst's k̂ flags 2 of 4 observations, more than looUnreliableShare:
	// it is not weighed (NaN), and best dominates mid, which stacking gives
	// weight 0 (its gradient (e^0.5 + 3e^−0.5)/4 = 0.87 is below 1 at
	// w_best = 1).
	if rows[1][6] != "1" || rows[2][6] != "0" {
		t.Errorf("--csv weights of best and mid %q, %q, want 1, 0", rows[1][6], rows[2][6])
	}
	if r := strings.Join(rows[3][2:], ","); r != "-7,1.11355,-2,1.2,NaN,1,2,4,stacking" {
		t.Errorf("--csv row of worst %q", r)
	}
	if e := dirEntries(t, dir); len(e) != 4 {
		t.Errorf("the directory holds %v: a temporary file left behind?", e)
	}
	if code, _, stderr := runSafe(t, "compare", best, mid, "--csv", filepath.Join(best, looFile)); code != exitError || !strings.Contains(stderr, "would overwrite an input") {
		t.Errorf("--csv onto an input: exit %d, %s", code, stderr)
	}
}

// TestCompareWeights checks the weight column against closed forms. Fit a
// predicts three observations with density 1 and the fourth with c = 0.1,
// fit b the other way round: the stacking weight of a maximises
// 3 log(w + (1−w)c) + log(wc + 1 − w), w = (3 − c)/(4(1 − c)) = 0.80556
// (TestStackingTwoGroups derives it); pseudo-BMA's is 1/(1 + c²) (totals
// log c and 3 log c); pseudo-BMA+'s Bayesian bootstrap keeps more weight on
// b than that and is reproducible from --seed. A fit whose elpd_loo is NaN
// at an observation leaves every weight NaN, with a warning naming the
// row, and the comparison still runs.
func TestCompareWeights(t *testing.T) {
	dir := t.TempDir()
	c := 0.1
	lc := math.Log(c)
	zero := []float64{0, 0, 0, 0}
	a := looRows(t, filepath.Join(dir, "a"), []float64{0, 0, 0, lc}, zero, zero)
	b := looRows(t, filepath.Join(dir, "b"), []float64{lc, lc, lc, 0}, zero, zero)
	weights := func(args ...string) map[string]float64 {
		t.Helper()
		out := filepath.Join(dir, "w.csv")
		code, stdout, stderr := runSafe(t, append([]string{"compare", a, b, "--csv", out}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		w := map[string]float64{}
		for _, row := range reftest.ReadCSVMaps(t, out) {
			v, err := strconv.ParseFloat(row["weight"], 64)
			if err != nil {
				t.Fatal(err)
			}
			w[row["fit"]] = v
			method := "stacking"
			if len(args) > 1 {
				method = args[1]
			}
			if row["weight_method"] != method {
				t.Errorf("%v: weight_method %q", args, row["weight_method"])
			}
		}
		if !strings.Contains(stdout, "weight:") {
			t.Errorf("%v: no note on the weights:\n%s", args, stdout)
		}
		return w
	}
	stack := weights()
	if want := (3 - c) / (4 * (1 - c)); math.Abs(stack[a]-want) > 1e-5 || math.Abs(stack[a]+stack[b]-1) > 1e-5 {
		t.Errorf("stacking weights %v, want %s %.6f", stack, a, want)
	}
	fits := make([]*looFit, 2)
	for i, d := range []string{a, b} {
		f, err := readLOOFit(d, sources{})
		if err != nil {
			t.Fatal(err)
		}
		fits[i] = f
	}
	ranks, err := compareLOO(fits)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := modelWeights(ranks, weightsStacking, 1); err != nil || math.Abs(ranks[0].weight-(3-c)/(4*(1-c))) > 1e-10 {
		t.Errorf("modelWeights: %s %.12f (%v), want %.12f", ranks[0].fit.label, ranks[0].weight, err, (3-c)/(4*(1-c)))
	}
	plain := weights("--weights", "pseudo-bma")
	if want := 1 / (1 + c*c); math.Abs(plain[a]-want) > 1e-5 {
		t.Errorf("pseudo-BMA weights %v, want %s %.6f", plain, a, want)
	}
	bb := weights("--weights", "pseudo-bma+")
	if again := weights("--weights", "pseudo-bma+", "--seed", "1"); again[a] != bb[a] {
		t.Errorf("pseudo-BMA+ with the default seed %v, with --seed 1 %v", bb, again)
	}
	other := weights("--weights", "pseudo-bma+", "--seed", "2")
	if !(bb[a] < plain[a] && bb[a] > 0.5) || other[a] == bb[a] || math.Abs(bb[a]+bb[b]-1) > 1e-5 {
		t.Errorf("pseudo-BMA+ weights %v (seed 2: %v), plain %v", bb, other, plain)
	}

	// A fit with a NaN elpd_loo, given first, is listed last and left out
	// of the weights, which the others share as without it.
	nan := looRows(t, filepath.Join(dir, "nan"), []float64{0, math.NaN(), 0, 0}, zero, zero)
	out := filepath.Join(dir, "nan.csv")
	code, _, stderr := runSafe(t, "compare", nan, a, b, "--csv", out)
	if code != 0 || !strings.Contains(stderr, filepath.Join(nan, looFile)+":4:1: warning: "+nan+": elpd_loo of log_lik[1] is NaN, so its total is too: it is listed last and left out of the weights") ||
		strings.Contains(stderr, "no model weights") {
		t.Errorf("NaN elpd_loo: exit %d, stderr %s", code, stderr)
	}
	rows := reftest.ReadCSVMaps(t, out)
	if len(rows) != 3 || rows[2]["fit"] != nan || rows[2]["weight"] != "NaN" {
		t.Errorf("NaN elpd_loo: rows %v, want %s last of weight NaN", rows, nan)
	}
	for _, row := range rows[:min(2, len(rows))] {
		if w, err := strconv.ParseFloat(row["weight"], 64); err != nil || math.Abs(w-stack[row["fit"]]) > 1e-9 {
			t.Errorf("NaN elpd_loo: %s has weight %s, without the NaN fit %.6f", row["fit"], row["weight"], stack[row["fit"]])
		}
	}
	if code, _, stderr := runSafe(t, "compare", a, nan); code != 0 || !strings.Contains(stderr, "left out of the weights") {
		t.Errorf("NaN elpd_loo, one other fit: exit %d, stderr %s", code, stderr)
	}
	ruled := looRows(t, filepath.Join(dir, "ruled"), []float64{0, 0, math.Inf(-1), 0}, zero, zero)
	ruled2 := looRows(t, filepath.Join(dir, "ruled2"), []float64{-1, -1, math.Inf(-1), -1}, zero, zero)
	if code, _, stderr := runSafe(t, "compare", ruled, ruled2); code != 0 ||
		!strings.Contains(stderr, "warning: no model weights: "+filepath.Join(ruled, looFile)+":5:1: elpd_loo of log_lik[2] is -inf in every fit") {
		t.Errorf("-inf in every fit: exit %d, stderr %s", code, stderr)
	}
	if code, _, stderr := runSafe(t, "compare", a, b, "--weights", "bma"); code != exitUsage || !strings.Contains(stderr, `--weights "bma"`) {
		t.Errorf("--weights bma: exit %d, %s", code, stderr)
	}
	for _, m := range []string{"stacking", "pseudo-bma"} {
		if code, _, stderr := runSafe(t, "compare", a, b, "--weights", m, "--seed", "2"); code != exitUsage || !strings.Contains(stderr, "--seed needs --weights pseudo-bma+") {
			t.Errorf("--weights %s --seed 2: exit %d, %s", m, code, stderr)
		}
	}
}

// TestCompareMismatch: fits of different observations are an error that
// names both files and the first difference, in number or by name.
func TestCompareMismatch(t *testing.T) {
	dir := t.TempDir()
	v := []float64{-1, -2, -1.5, -0.5}
	a := looRows(t, filepath.Join(dir, "a"), v, v, v)
	short := looRows(t, filepath.Join(dir, "short"), v[:3], v[:3], v[:3])
	renamed := looRows(t, filepath.Join(dir, "renamed"), v, v, v)
	loo := filepath.Join(renamed, looFile)
	b, _ := os.ReadFile(loo)
	os.WriteFile(loo, []byte(strings.Replace(string(b), "log_lik[2]", "log_lik[5]", 1)), 0o644)

	code, _, stderr := runSafe(t, "compare", a, short)
	if code != exitError || !strings.Contains(stderr, filepath.Join(a, looFile)+" has 4 observations, "+filepath.Join(short, looFile)+" has 3") {
		t.Errorf("different counts: exit %d, %s", code, stderr)
	}
	code, stdout, stderr := runSafe(t, "compare", a, renamed)
	if code != exitError || stdout != "" ||
		!strings.Contains(stderr, loo+":5:1: observation 2 is log_lik[5] here but log_lik[2] in "+filepath.Join(a, looFile)) {
		t.Errorf("different names: exit %d, %s%s", code, stdout, stderr)
	}
}

// TestCompareGarbled: files that are missing, empty, binary, cut short or
// malformed are positioned errors (exit 1), never a panic.
func TestCompareGarbled(t *testing.T) {
	dir := t.TempDir()
	v := []float64{-1, -2, -1.5, -0.5}
	good := looRows(t, filepath.Join(dir, "good"), v, v, v)
	for _, c := range []struct{ name, content, want string }{
		{"empty", "", "loo.csv:1:1: no header"},
		{"comment only", "# elpd_loo = 1\n", "loo.csv:1:1: no header"},
		{"no rows", "name,elpd_loo,p_loo,pareto_k\n", "loo.csv:2:1: no observations"},
		{"no column", "name,elpd,p_loo,pareto_k\nlog_lik[0],1,1,1\n", "loo.csv:1:1: no column elpd_loo: want a loo.csv written by gpp fit"},
		{"no kfold column", "name,elpd_kfold,p_kfold\nlog_lik[0],1,1\n", "loo.csv:1:1: no column pareto_k: want a kfold.csv written by gpp kfold, with the columns name,elpd_kfold,p_kfold,pareto_k"},
		{"bad number", "name,elpd_loo,p_loo,pareto_k\nlog_lik[0],1,1,x\n", `loo.csv:2:16: pareto_k of log_lik[0]: "x" is not a number`},
		{"bad WAIC number", "name,elpd_loo,p_loo,pareto_k,elpd_waic,p_waic\nlog_lik[0],1,1,1,1,y\n", `loo.csv:2:20: p_waic of log_lik[0]: "y" is not a number`},
		{"bad quote", "name,elpd_loo,p_loo,pareto_k\nlog\"_lik[1],1,1,1\n", "loo.csv:2:4: bare \" in non-quoted-field"},
		{"binary", "name\x00,elpd_loo\n", "loo.csv:1:1: not a text file"},
		{"twice", "name,elpd_loo,p_loo,pareto_k\na,1,1,1\na,1,1,1\n", "loo.csv:3:1: observation a appears twice (first on line 2)"},
		{"cut short", "# elpd_loo = 1, se = 1, p_loo = 1, pareto_k above 0.7: 0 of 3\nname,elpd_loo,p_loo,pareto_k\na,1,1,1\n", "loo.csv:1:61: the first line counts 3 observations, but the file has 1"},
	} {
		d := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
		os.MkdirAll(d, 0o755)
		writeFile(t, d, looFile, c.content)
		code, stdout, stderr := runSafe(t, "compare", good, d)
		if code != exitError || stdout != "" || !strings.Contains(stderr, filepath.Join(d, c.want)) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant %s", c.name, code, stderr, filepath.Join(d, c.want))
		}
	}
	empty := filepath.Join(dir, "nothing")
	os.MkdirAll(empty, 0o755)
	if code, _, stderr := runSafe(t, "compare", good, empty); code != exitError || !strings.Contains(stderr, empty+" has no loo.csv") {
		t.Errorf("a directory without loo.csv: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runSafe(t, "compare", good, filepath.Join(dir, "absent")); code != exitError || !strings.Contains(stderr, "absent: no such file or directory") {
		t.Errorf("a missing directory: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runSafe(t, "compare", good, filepath.Join(good, looFile)); code != exitError || !strings.Contains(stderr, "is given twice") {
		t.Errorf("one fit twice: exit %d, %s", code, stderr)
	}
	writeFile(t, good, fitFileName, `{"format": "gpp-fit/1", "model": 3}`)
	if code, _, stderr := runSafe(t, "compare", good, empty); code != exitError || !strings.Contains(stderr, filepath.Join(good, fitFileName)+":1:") {
		t.Errorf("a garbled fit.json: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runSafe(t, "compare", good); code != exitUsage || !strings.Contains(stderr, "at least two fits") {
		t.Errorf("one fit: exit %d, %s", code, stderr)
	}
}

// compareNormal and compareStudent regress y on x with normal and with
// Student-t noise, each with an output log_lik for LOO.
const (
	compareNormal = `data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 5)
param b: real ~ Normal(0, 5)
param sigma: positive ~ HalfNormal(2)
y ~ Normal(a + b * x, sigma)
output log_lik = logpdf(y, Normal(a + b * x, sigma))
`
	compareStudent = `data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 5)
param b: real ~ Normal(0, 5)
param sigma: positive ~ HalfNormal(2)
param nu: positive ~ Gamma(2, 0.1)
y ~ StudentT(nu, a + b * x, sigma)
output log_lik = logpdf(y, StudentT(nu, a + b * x, sigma))
`
)

// TestCompareFits: gpp fit of a normal and of a Student-t regression to 120
// points with Student-t noise of 2 degrees of freedom (seeded), then gpp
// compare of the two output directories ranks the Student-t model first,
// by more than 4 nats and 2 se_diff (measured: see the log), with the
// totals of each fit's loo.csv.
func TestCompareFits(t *testing.T) {
	if testing.Short() {
		t.Skip("two fits")
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(2026, 28))
	var data strings.Builder
	data.WriteString("x,y\n")
	for range 120 {
		x := r.NormFloat64()
		z, c := r.NormFloat64(), 0.0
		for range 2 {
			g := r.NormFloat64()
			c += g * g
		}
		y := 1 + 0.5*x + 0.4*z/math.Sqrt(c/2) // t with 2 degrees of freedom
		fmt.Fprintf(&data, "%.5f,%.5f\n", x, y)
	}
	csvPath := writeFile(t, dir, "xy.csv", data.String())
	normal := filepath.Join(dir, "normal")
	student := filepath.Join(dir, "student")
	for _, m := range []struct{ out, src string }{{normal, compareNormal}, {student, compareStudent}} {
		model := writeFile(t, dir, filepath.Base(m.out)+".gpp", m.src)
		if code, _, stderr := runSafe(t, "fit", model, csvPath, "--out", m.out, "--quiet"); code != 0 {
			t.Fatalf("fit %s: exit %d: %s", model, code, stderr)
		}
	}
	out := filepath.Join(dir, "cmp.csv")
	code, stdout, stderr := runSafe(t, "compare", normal, student, "--csv", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Logf("\n%s%s", stdout, stderr)
	if i, j := strings.Index(stdout, student+"  "), strings.Index(stdout, normal+"  "); !(i >= 0 && i < j) {
		t.Fatalf("the Student-t fit is not ranked first:\n%s", stdout)
	}
	if !strings.Contains(stdout, filepath.Join(dir, "student.gpp")) {
		t.Errorf("the table does not name the model file:\n%s", stdout)
	}
	rows := reftest.ReadCSV(t, out)
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if w := num(rows[1][6]); !(w >= 0.95) {
		t.Errorf("the Student-t fit's stacking weight is %g, want ≥ 0.95 on data with t₂ noise", w)
	}
	diff, seDiff := num(rows[2][4]), num(rows[2][5])
	if !(diff < -4 && diff < -2*seDiff) {
		t.Errorf("elpd_diff %g ± %g: not a clear preference", diff, seDiff)
	}
	for _, row := range rows[1:] {
		all := reftest.ReadCSV(t, filepath.Join(row[0], looFile))
		total := num(strings.TrimPrefix(all[0][0], "# elpd_loo = "))
		if got := num(row[2]); math.Abs(got-total) > 1e-3*math.Abs(total) {
			t.Errorf("%s: elpd_loo %g, its loo.csv says %g", row[0], got, total)
		}
	}
}

// TestCompareDataWarning: fits whose fit.json name different data files
// are compared with a warning; fit.json gives the model column, with the
// --set values. A loo.csv that its directory's fit.json does not list (one
// left from another run) is refused, naming it.
func TestCompareDataWarning(t *testing.T) {
	dir := t.TempDir()
	v := []float64{-1, -2, -1.5, -0.5}
	a := looRows(t, filepath.Join(dir, "a"), v, v, v)
	b := looRows(t, filepath.Join(dir, "b"), v, v, v)
	c := looRows(t, filepath.Join(dir, "c"), v, v, v)
	writeFile(t, a, fitFileName, `{"format": "gpp-fit/1", "model": "m.gpp", "data": ["y.csv"], "sets": {"K": "2"}, "files": ["fit.json", "loo.csv"]}`)
	writeFile(t, b, fitFileName, `{"format": "gpp-fit/1", "model": "m.gpp", "data": ["z.csv"], "files": ["fit.json", "loo.csv"]}`)
	writeFile(t, c, fitFileName, `{"format": "gpp-fit/1", "model": "stale.gpp", "data": ["w.csv"], "files": ["fit.json"]}`)
	code, stdout, stderr := runSafe(t, "compare", a, b, c)
	if want := filepath.Join(c, looFile) + ": not an output of the fit in " + c + " (its fit.json does not list it)"; code != exitError || stdout != "" || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1 and:\n%s", code, stdout, stderr, want)
	}
	code, stdout, stderr = runSafe(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "warning: "+a+" read y.csv, "+b+" read z.csv") || strings.Contains(stderr, "w.csv") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if !strings.Contains(stdout, "m.gpp K=2") || strings.Contains(stdout, "stale.gpp") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

// TestCompareDataByHash: fit.json's data_sha256 decides whether two fits
// read the same data: one file named by two paths (fits run from two
// working directories) is the same data, a file of the same name but
// other contents is not, nor is the same file bound to another name.
func TestCompareDataByHash(t *testing.T) {
	dir := t.TempDir()
	v := []float64{-1, -2, -1.5, -0.5}
	meta := func(name, data, hash string) string {
		d := looRows(t, filepath.Join(dir, name), v, v, v)
		writeFile(t, d, fitFileName, `{"format": "gpp-fit/1", "model": "m.gpp", "data": [`+data+`], "data_sha256": [`+hash+`], "files": ["fit.json", "loo.csv"]}`)
		return d
	}
	a := meta("a", `"examples/y.csv"`, `"aa"`)
	b := meta("b", `"/home/u/gpp/examples/y.csv"`, `"aa"`)
	c := meta("c", `"examples/y.csv"`, `"bb"`)
	d := meta("d", `"z=examples/y.csv"`, `"aa"`)
	for _, tt := range []struct {
		other string
		warn  bool
	}{{b, false}, {c, true}, {d, true}} {
		code, _, stderr := runSafe(t, "compare", a, tt.other)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if got := strings.Contains(stderr, "LOO compares fits of the same data"); got != tt.warn {
			t.Errorf("%s against %s: warning %v, want %v:\n%s", a, tt.other, got, tt.warn, stderr)
		}
	}
}

// TestFitRecordsDataHash: fit.json records the sha256 of each data file as
// read, in the order of its data list.
func TestFitRecordsDataHash(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := runSafe(t, "fit", "../../examples/regression.gpp", "../../examples/wine_std.csv", "--quiet", "--iter", "200", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var ff fitfile.File
	b, err := os.ReadFile(filepath.Join(out, fitFileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ff); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../../examples/wine_std.csv")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(src)
	if want := hex.EncodeToString(sum[:]); len(ff.DataSHA256) != 1 || ff.DataSHA256[0] != want {
		t.Errorf("data_sha256 %v, want [%s]", ff.DataSHA256, want)
	}
}

// TestComparePlot: --plot draws the comparison into a PNG, taller with
// more fits, written whole (no temporary file left); a name without .png
// is a usage error and an input as the plot is refused, each before
// anything is written.
func TestComparePlot(t *testing.T) {
	dir := t.TempDir()
	zero := []float64{0, 0, 0, 0}
	a := looRows(t, filepath.Join(dir, "a"), []float64{-1, -2, -1.5, -0.5}, zero, zero)
	b := looRows(t, filepath.Join(dir, "b"), []float64{-1.2, -1.8, -2.5, -1.5}, zero, zero)
	c := looRows(t, filepath.Join(dir, "c"), []float64{-0.5, -2.5, -2, -1}, zero, zero)
	height := func(name string, fits ...string) int {
		t.Helper()
		out := filepath.Join(dir, name)
		if code, _, stderr := runSafe(t, append(append([]string{"compare"}, fits...), "--plot", out)...); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return img.Bounds().Dy()
	}
	two, three := height("two.png", a, b), height("three.png", a, b, c)
	if !(three > two) {
		t.Errorf("plot heights %d (2 fits) and %d (3 fits)", two, three)
	}
	if e := dirEntries(t, dir); len(e) != 5 {
		t.Errorf("the directory holds %v: a temporary file left behind?", e)
	}
	if code, _, stderr := runSafe(t, "compare", a, b, "--plot", filepath.Join(dir, "p.svg")); code != exitUsage || !strings.Contains(stderr, "name it FILE.png") {
		t.Errorf("--plot p.svg: exit %d, %s", code, stderr)
	}
	// The name is a usage error, checked before any fit is read.
	if code, _, stderr := runSafe(t, "compare", a, filepath.Join(dir, "nothere"), "--plot", filepath.Join(dir, "p.svg")); code != exitUsage || !strings.Contains(stderr, "name it FILE.png") {
		t.Errorf("--plot p.svg with a missing fit: exit %d, %s", code, stderr)
	}
	// A loo.csv may have any name, .png too.
	src, err := os.ReadFile(filepath.Join(a, looFile))
	if err != nil {
		t.Fatal(err)
	}
	onto := writeFile(t, dir, "x.png", string(src))
	if code, _, stderr := runSafe(t, "compare", onto, b, "--plot", onto); code != exitError || !strings.Contains(stderr, "--plot "+onto+" would overwrite an input") {
		t.Errorf("--plot onto an input: exit %d, %s", code, stderr)
	}
	if got, _ := os.ReadFile(onto); string(got) != string(src) {
		t.Errorf("the input was overwritten")
	}
}

// TestCopyNotes: of two fits of one model and data, the one that is not
// NUTS (or the more flagged) defers to the other, and the note says their
// difference is the approximation's error, which to read, and that it is
// left out of the weights, adding that its estimate is the optimistic one
// where it is the higher with flagged observations; fits of another
// model, other data, another model text by hash, or other --set values
// are no copies.
func TestCopyNotes(t *testing.T) {
	fit := func(label, model string, nuts bool, data string) *looFit {
		return &looFit{label: label, model: model, nuts: nuts, data: []string{data}, dataHash: []string{"h-" + data}, elpd: []float64{-1, -2}}
	}
	ranks := []looRank{
		{fit: fit("hs_fit", "hs.gpp", false, "d.csv"), elpd: -171.0, badK: 400, nObserve: 400},
		{fit: fit("hs_nuts", "hs.gpp (NUTS)", true, "d.csv"), elpd: -173.6},
		{fit: fit("ridge_fit", "ridge.gpp", false, "d.csv"), elpd: -186.4, badK: 11, nObserve: 400},
		{fit: fit("hs_other", "hs.gpp", false, "e.csv"), elpd: -150, badK: 3, nObserve: 400},
	}
	ranks[0].fit.elpd = []float64{-0.5, -1.5}
	markCopies(ranks)
	if ranks[0].copyOf != "hs_nuts" || ranks[1].copyOf != "" || ranks[2].copyOf != "" || ranks[3].copyOf != "" {
		t.Fatalf("copies %q %q %q %q, want hs_fit's of hs_nuts alone", ranks[0].copyOf, ranks[1].copyOf, ranks[2].copyOf, ranks[3].copyOf)
	}
	got := copyNotes(ranks)
	for _, want := range []string{
		"hs_fit and hs_nuts are fits of one model (hs.gpp) to the same data: their difference (hs_fit's elpd_loo less hs_nuts's, +1.0 ± 0.0) is the error of an approximation, not a difference between models; read hs_nuts's elpd_loo (NUTS's)",
		"so hs_fit is left out of them",
		"its PSIS estimate is the optimistic one",
	} {
		if len(got) != 1 || !strings.Contains(got[0], want) {
			t.Errorf("notes %q, want one with %q", got, want)
		}
	}
	ranks[0].elpd = -175
	if got := copyNotes(ranks); len(got) != 1 || strings.Contains(got[0], "optimistic") {
		t.Errorf("a fit below the sample: notes %q, want one without the optimism", got)
	}
	// two fits of q: the less flagged is read
	ranks[1].fit.nuts, ranks[1].badK = false, 2
	markCopies(ranks)
	if ranks[0].copyOf != "hs_nuts" || ranks[1].copyOf != "" {
		t.Errorf("of two fits of q, the more flagged defers: %q %q", ranks[0].copyOf, ranks[1].copyOf)
	}
	// the model text's hash decides where both record it, with the --set values
	clear := func() {
		for i := range ranks {
			ranks[i].copyOf = ""
		}
	}
	ranks[0].fit.modelSum, ranks[1].fit.modelSum = "aa", "bb"
	clear()
	if markCopies(ranks); ranks[0].copyOf != "" {
		t.Errorf("other model texts by hash are copies")
	}
	ranks[1].fit.modelSum, ranks[1].fit.model = "aa", "hs_copy.gpp"
	clear()
	if markCopies(ranks); ranks[0].copyOf != "hs_nuts" {
		t.Errorf("one model text under two names is no copy")
	}
	ranks[1].fit.sets = " K=2"
	clear()
	if markCopies(ranks); ranks[0].copyOf != "" {
		t.Errorf("other --set values are copies")
	}
}

// The stacking note on a lopsided weight is for fits none clearly better
// than another: a clear difference (at least 4 nats and 2·se_diff, as
// the table's note reads it) or weights spread over the fits get none.
func TestLopsidedWithoutPreference(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ranks []looRank
		want  bool
	}{
		{"close, lopsided", []looRank{{weight: 1}, {diff: -0.2, seDiff: 0.4}, {diff: -1, seDiff: 1}}, true},
		{"close, spread", []looRank{{weight: 0.6}, {diff: -0.2, seDiff: 0.4, weight: 0.4}}, false},
		{"clear by 4 nats and 2·se", []looRank{{weight: 1}, {diff: -5, seDiff: 1}}, false},
		{"past 2·se within 4 nats", []looRank{{weight: 1}, {diff: -3, seDiff: 1}}, true},
		{"past 4 nats within 2·se", []looRank{{weight: 1}, {diff: -5, seDiff: 4}}, true},
		{"one of two clear", []looRank{{weight: 1}, {diff: -0.2, seDiff: 0.4}, {diff: -9, seDiff: 2}}, false},
		{"weight on the second", []looRank{{weight: 0.05}, {diff: -0.1, seDiff: 0.3, weight: 0.95}}, true},
		{"one fit", []looRank{{weight: 1}}, false},
	} {
		if got := lopsidedWithoutPreference(tc.ranks); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestDoubtCure: the footer of flagged rows sends a fit of q to NUTS or a
// closer q, and a NUTS sample, whose flags are influential observations,
// to K-fold or moment matching, not back to gpp sample; both when both.
func TestDoubtCure(t *testing.T) {
	qCure, nutsCure := "A reliable elpd_loo comes from gpp sample (NUTS)", "K-fold cross-validation (gpp kfold"
	for _, tc := range []struct {
		q       bool
		nuts    []string
		want    string
		hasQ    bool
		hasNUTS bool
	}{
		{true, nil, qCure, true, false},
		{false, []string{"s1"}, "NUTS's draws flag influential observations: a reliable elpd_loo comes from\n" + nutsCure, false, true},
		{true, []string{"s1", "s2"}, "For the NUTS samples (s1, s2), whose flags are influential observations:\n" + nutsCure, true, true},
	} {
		got := doubtCure("elpd_loo", tc.q, tc.nuts)
		if !strings.Contains(got, tc.want) || strings.Contains(got, qCure) != tc.hasQ || strings.Contains(got, nutsCure) != tc.hasNUTS {
			t.Errorf("q %v, NUTS %v: %q, want %q", tc.q, tc.nuts, got, tc.want)
		}
	}
}

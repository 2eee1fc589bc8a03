package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
)

// readNamedCSV reads a CSV of gpp's (lppd.csv, summary.csv): its comment
// lines and its rows of cells, the header first.
func readNamedCSV(t *testing.T, path string) (comments []string, rows [][]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if strings.HasPrefix(l, "#") {
			comments = append(comments, strings.TrimSuffix(l, "\n"))
		}
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.Comment = '#'
	r.FieldsPerRecord = -1
	if rows, err = r.ReadAll(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return comments, rows
}

// checkLPPDFile checks out/lppd.csv against out's draws.csv and
// summary.csv: one row per element of log_lik, named as summary.csv
// names it, in its order, whose lppd is log mean_s exp(log_lik[i]) over
// draws.csv's draws (from row skip: a fit's predictions begin with the
// mean's row); the comment line's total is their sum, its se √n times
// their sd, with the numbers of elements and draws. It returns the
// elements' names.
func checkLPPDFile(t *testing.T, out string, skip int) []string {
	t.Helper()
	comments, rows := readNamedCSV(t, filepath.Join(out, lppdFile))
	if len(comments) != 1 || len(rows) < 2 || !slices.Equal(rows[0], []string{"name", "lppd"}) {
		t.Fatalf("lppd.csv: comments %q, header %q, want one comment line and name,lppd", comments, rows[:min(1, len(rows))])
	}
	_, sum := readNamedCSV(t, filepath.Join(out, summaryFile))
	var want []string
	for _, r := range sum[1:] {
		if strings.HasPrefix(r[0], looOutput+"[") {
			want = append(want, r[0])
		}
	}
	var names []string
	var got []float64
	for _, r := range rows[1:] {
		var x float64
		if len(r) != 2 {
			t.Fatalf("lppd.csv: row %q, want 2 cells", r)
		}
		if _, err := fmt.Sscan(r[1], &x); err != nil {
			t.Fatalf("lppd.csv: row %q: %v", r, err)
		}
		names, got = append(names, r[0]), append(got, x)
	}
	if !slices.Equal(names, want) {
		t.Errorf("lppd.csv names %q, summary.csv's log_lik rows %q", names, want)
	}
	_, h, draws := readStanCSV(t, filepath.Join(out, drawsFile))
	draws = draws[skip:]
	var cols []int
	for i, c := range h {
		if strings.HasPrefix(c, looOutput+".") {
			cols = append(cols, i)
		}
	}
	if len(cols) != len(got) {
		t.Fatalf("lppd.csv has %d rows, draws.csv %d log_lik columns", len(got), len(cols))
	}
	for i, c := range cols {
		ll := make([]float64, len(draws))
		for s, r := range draws {
			ll[s] = r[c]
		}
		lppd := floats.LogSumExp(ll) - math.Log(float64(len(ll)))
		// draws.csv rounds log_lik to six significant digits (5e-6 relative)
		big := 0.0
		for _, x := range ll {
			big = max(big, math.Abs(x))
		}
		if math.Abs(got[i]-lppd) > 1e-5*(1+big) {
			t.Errorf("lppd.csv %s = %v, draws.csv's log_lik gives %v", names[i], got[i], lppd)
		}
	}
	var total, se float64
	var n, s int
	if _, err := fmt.Sscanf(comments[0], "# lppd = %g (held-out: %d elements of log_lik at %d draws), se = %g", &total, &n, &s, &se); err != nil {
		t.Fatalf("lppd.csv's comment %q: %v", comments[0], err)
	}
	wantSE := math.Sqrt(float64(len(got))) * stat.StdDev(got, nil)
	if n != len(got) || s != len(draws) || math.Abs(total-floats.Sum(got)) > 1e-5*math.Abs(total) || math.Abs(se-wantSE) > 1e-5*wantSE {
		t.Errorf("lppd.csv's comment %q: want lppd %.6g over %d elements at %d draws, se %.6g", comments[0], floats.Sum(got), len(got), len(draws), wantSE)
	}
	if strings.Count(comments[0], ",") != 1 {
		t.Errorf("lppd.csv's comment %q has %d commas, want 1: as many fields as the header", comments[0], strings.Count(comments[0], ","))
	}
	return names
}

// TestPredictLPPDFile: gpp predict from a fit, given the held-out
// proline that log_lik reads, writes lppd.csv (checkLPPDFile) and says so
// in its written line; on new data without proline (log_lik left out) it
// writes none, and removes the earlier run's from its --out (a stale
// gpp output); and a data file at --out/lppd.csv is refused before the
// run, as one at --out/draws.csv is.
func TestPredictLPPDFile(t *testing.T) {
	dir := t.TempDir()
	fit := fitRegression(t, dir)
	const ll = "output log_lik = logpdf(proline, Normal(mu, sigma))\n"
	withLL := writeFile(t, dir, "ll.gpp", strings.Replace(readText(t, "testdata/predict_new.gpp"), "output mu_new", ll+"output mu_new", 1))
	out := filepath.Join(dir, "p")
	code, stdout, stderr := runSafe(t, "predict", fit, withLL, regressionData, "--output-draws", "300", "--quiet", "--out", out)
	if code != exitOK || !strings.Contains(stdout, "held-out     lppd ") || !strings.Contains(stdout, "written      "+out+": summary.csv draws.csv lppd.csv\n") {
		t.Fatalf("predict: exit %d, stdout:\n%s\nstderr: %s", code, stdout, stderr)
	}
	if names := checkLPPDFile(t, out, 1); len(names) != 178 {
		t.Errorf("lppd.csv has %d elements, want the 178 wines", len(names))
	}

	code, stdout, stderr = runSafe(t, "predict", fit, withLL, "testdata/predict_new.csv", "--output-draws", "300", "--quiet", "--out", out)
	if code != exitOK || strings.Contains(stdout, "held-out") || !strings.Contains(stdout, "written      "+out+": summary.csv draws.csv\n") {
		t.Fatalf("predict without proline: exit %d, stdout:\n%s\nstderr: %s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, lppdFile)); err == nil {
		t.Errorf("predict without proline left the earlier run's %s in %s", lppdFile, out)
	}

	fresh := filepath.Join(dir, "fresh")
	if err := os.Mkdir(fresh, 0o755); err != nil {
		t.Fatal(err)
	}
	data := writeFile(t, fresh, lppdFile, readText(t, regressionData))
	code, _, stderr = runSafe(t, "predict", fit, withLL, data, "--quiet", "--out", fresh)
	if want := "would be overwritten by the output " + lppdFile; code != exitError || !strings.Contains(stderr, want) {
		t.Errorf("data at --out/%s: exit %d, stderr %q, want exit 1 and %q", lppdFile, code, stderr, want)
	}
	if got := readText(t, data); got != readText(t, regressionData) {
		t.Errorf("the data file at --out/%s was changed", lppdFile)
	}
}

// TestPredictSampleLPPDFile: gpp predict from a gpp sample, given y,
// writes lppd.csv over all the sample's draws (both chains); without y
// it writes none and removes the earlier one.
func TestPredictSampleLPPDFile(t *testing.T) {
	dir := t.TempDir()
	s := filepath.Join(dir, "s")
	if code, _, stderr := runGpp("sample", poissonModel, poissonData, "--quiet", "--chains", "2", "--warmup", "50", "--draws", "30", "--out", s); code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	withLL := writeFile(t, dir, "ll.gpp", readText(t, poissonModel)+"output log_lik = logpdf(y, Poisson(lambda))\n")
	out := filepath.Join(dir, "p")
	code, stdout, stderr := runGpp("predict", s, withLL, poissonData, "--quiet", "--out", out)
	if code != exitOK || !strings.Contains(stdout, "written      "+out+": summary.csv draws.csv lppd.csv\n") {
		t.Fatalf("predict: exit %d, stdout:\n%s\nstderr: %s", code, stdout, stderr)
	}
	checkLPPDFile(t, out, 0)
	if _, _, rows := readStanCSV(t, filepath.Join(out, drawsFile)); len(rows) != 60 {
		t.Errorf("draws.csv has %d rows, want 2 × 30", len(rows))
	}
	code, stdout, stderr = runGpp("predict", s, withLL, "--set", "N=3", "--quiet", "--out", out)
	if code != exitOK || !strings.Contains(stdout, "written      "+out+": summary.csv draws.csv\n") {
		t.Fatalf("predict without y: exit %d, stdout:\n%s\nstderr: %s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, lppdFile)); err == nil {
		t.Errorf("predict without y left the earlier run's %s in %s", lppdFile, out)
	}
}

// TestPredictLPPDLabels: lppd.csv names log_lik's elements by the labels
// of a column, as summary.csv does (a county's held-out log density,
// group_sum over its rows), quoting a label with a comma.
func TestPredictLPPDLabels(t *testing.T) {
	d := t.TempDir()
	named, _ := labelsData(t, d, labelNamesCounties)
	model := writeFile(t, d, "m.gpp", labelNamesModel+"output log_lik = group_sum(logpdf(y, Normal(a[county] + b[county, 0], sigma)), county, J)\n")
	fit := filepath.Join(d, "fit")
	if code, _, stderr := runSafe(t, "fit", model, named, "--iter", "300", "--output-draws", "50", "--quiet", "--out", fit); code != exitOK {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	out := filepath.Join(d, "p")
	if code, _, stderr := runSafe(t, "predict", fit, model, named, "--quiet", "--out", out); code != exitOK {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	names := checkLPPDFile(t, out, 1)
	if want := []string{"log_lik[AITKIN]", "log_lik[ANOKA]", "log_lik[BECKER]", `log_lik["ST. LOUIS, MN"]`, "log_lik[YELLOW MEDICINE]"}; !slices.Equal(names, want) {
		t.Errorf("lppd.csv names %q, want %q", names, want)
	}
}

// TestPredictLPPDNotFinite: where the held-out line names a term that is
// not finite (-Inf at every draw, or NaN at one), it keeps its message
// and predict writes no lppd.csv; without log_lik none; otherwise
// lppd.csv holds each term to full precision under the comment line.
func TestPredictLPPDNotFinite(t *testing.T) {
	ll := variable{name: looOutput, output: true, shape: []int{2}, elems: []int{0, 1}, first: 1}
	mk := func(b []float64) *drawSet {
		return &drawSet{vars: []variable{{name: "mu", shape: []int{}}, ll}, cols: [][]float64{{0, 0}, {-1, -3}, b}}
	}
	for _, c := range []struct {
		b    []float64
		line string
	}{
		{[]float64{math.Inf(-1), math.Inf(-1)}, "held-out     lppd -Inf: log_lik[1] is -Inf at every draw"},
		{[]float64{math.NaN(), -2}, "held-out     lppd not computed: log_lik[1] is NaN or +Inf at 1 of 2 draws"},
	} {
		ds := mk(c.b)
		if got := heldOutLine(ds); !strings.HasPrefix(got, c.line) {
			t.Errorf("log_lik[1] draws %v: line %q, want %q...", c.b, got, c.line)
		}
		if f := lppdOutputs(ds); f != nil {
			t.Errorf("log_lik[1] draws %v: lppd.csv written", c.b)
		}
	}
	if f := lppdOutputs(&drawSet{vars: []variable{{name: "mu"}}, cols: [][]float64{{0}}}); f != nil {
		t.Errorf("no log_lik: lppd.csv written")
	}
	f := lppdOutputs(mk([]float64{-2, -2}))
	if len(f) != 1 || f[0].name != lppdFile {
		t.Fatalf("finite terms: outputs %v, want lppd.csv", f)
	}
	var b bytes.Buffer
	if err := f[0].render(&b); err != nil {
		t.Fatal(err)
	}
	t1 := math.Log((math.Exp(-1) + math.Exp(-3)) / 2)
	want := fmt.Sprintf("# lppd = %s (held-out: 2 elements of log_lik at 2 draws), se = %s\nname,lppd\nlog_lik[0],%s\nlog_lik[1],-2\n",
		formatNum(t1-2), formatNum(math.Abs(t1+2)), formatExact(t1))
	if b.String() != want {
		t.Errorf("lppd.csv:\n%s\nwant:\n%s", b.String(), want)
	}
}

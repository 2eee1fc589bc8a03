package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// elemNamesModel has a vector param whose elements the data pin far apart,
// x[0] near 5 and x[1] near -5, so that a name one off names the other
// element; observation 2 (0-based) is an outlier, the worst elpd_loo.
const elemNamesModel = `data g: int<lower=0, upper=1>[N]
data y: real[N]
param x: real[2] ~ Normal(0, 10)
y ~ Normal(x[g], 0.5)
output log_lik = logpdf(y, Normal(x[g], 0.5))
`

const elemNamesData = "g,y\n0,5.1\n0,4.9\n0,7.5\n1,-5.2\n1,-4.8\n0,5.0\n1,-5.0\n"

// csvRows reads a CSV (gpp's summary.csv or loo.csv, comment lines left
// out) into name → column → cell.
func csvRows(t *testing.T, path string) map[string]map[string]string {
	t.Helper()
	src := readFile(t, path)
	var lines []string
	for _, l := range strings.Split(src, "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	clean := filepath.Join(t.TempDir(), "clean.csv")
	if err := os.WriteFile(clean, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, r := range reftest.ReadCSVMaps(t, clean) {
		out[r["name"]] = r
	}
	return out
}

// meanOf is the mean column of the row named name, failing t when there
// is none.
func meanOf(t *testing.T, rows map[string]map[string]string, name, what string) float64 {
	t.Helper()
	r, ok := rows[name]
	if !ok {
		t.Fatalf("%s has no row %s", what, name)
	}
	m, err := strconv.ParseFloat(r["mean"], 64)
	if err != nil {
		t.Fatalf("%s: %s's mean %q", what, name, r["mean"])
	}
	return m
}

// TestElemNamesZeroBased: gpp fit's table and summary.csv, loo.csv, gpp
// summary of the fit's directory and the REPL's :fit all name the element
// the model calls x[0] "x[0]" (its posterior near 5, x[1]'s near -5), and
// loo.csv names observation 2, the outlier, log_lik[2]; draws.csv keeps
// CmdStan's x.1, x.2. gpp summary of the same draws without gpp's header
// (a CmdStan CSV, a Stan model's) names them as Stan does, x[1] and x[2];
// --params takes an element as the summary prints it or by its column.
func TestElemNamesZeroBased(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", elemNamesModel)
	data := writeFile(t, d, "d.csv", elemNamesData)
	out := filepath.Join(d, "fit")
	code, stdout, stderr := runSafe(t, "fit", model, data, "--quiet", "--seed", "1", "--out", out)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if !(got > want-1 && got < want+1) {
			t.Errorf("%s: mean %g, want near %g", what, got, want)
		}
	}
	sum := csvRows(t, filepath.Join(out, summaryFile))
	near("summary.csv x[0]", meanOf(t, sum, "x[0]", "summary.csv"), 5)
	near("summary.csv x[1]", meanOf(t, sum, "x[1]", "summary.csv"), -5)
	if _, ok := sum["x[2]"]; ok {
		t.Errorf("summary.csv has an x[2], which the model's x[2] lacks")
	}
	if !strings.Contains(stdout, "\nx[0] ") || !strings.Contains(stdout, "\nx[1] ") || strings.Contains(stdout, "\nx[2] ") {
		t.Errorf("gpp fit's table does not name x's elements x[0], x[1]:\n%s", stdout)
	}
	if draws := readFile(t, filepath.Join(out, drawsFile)); !strings.Contains(draws, ",x.1,x.2,") {
		t.Errorf("draws.csv's columns are not CmdStan's x.1, x.2:\n%.400s", draws)
	}

	// loo.csv: the outlier, observation 2, has the worst elpd_loo
	loo := csvRows(t, filepath.Join(out, looFile))
	worst, least := "", 0.0
	for name, r := range loo {
		e, err := strconv.ParseFloat(r["elpd_loo"], 64)
		if err != nil {
			t.Fatalf("loo.csv: %s's elpd_loo %q", name, r["elpd_loo"])
		}
		if worst == "" || e < least {
			worst, least = name, e
		}
	}
	if worst != "log_lik[2]" || loo["log_lik[0]"] == nil || loo["log_lik[7]"] != nil {
		t.Errorf("loo.csv: the outlier is %s, want log_lik[2] (rows log_lik[0] to log_lik[6])", worst)
	}

	// gpp summary of the fit's directory: a gpp run's draws, named 0-based;
	// --params by the printed name, with or without the space, or the column
	sumOut := filepath.Join(d, "summary.csv")
	code, stdout, stderr = runSafe(t, "summary", out, "--out", sumOut)
	if code != 0 {
		t.Fatalf("summary: exit %d: %s", code, stderr)
	}
	gs := csvRows(t, sumOut)
	near("gpp summary x[0]", meanOf(t, gs, "x[0]", "gpp summary's CSV"), 5)
	if !strings.Contains(stdout, "\nx[0] ") {
		t.Errorf("gpp summary's table has no x[0]:\n%s", stdout)
	}
	for _, spec := range []string{"x[0]", "x.1", "x[ 0 ]"} {
		// (a fit's log_p__ is bookkeeping, not summarised: a second column of log_lik)
		code, stdout, stderr = runSafe(t, "summary", out, "--params", spec+",log_lik[0]")
		rows := strings.Split(strings.TrimSpace(strings.SplitN(stdout, "\n\n", 2)[0]), "\n")
		if code != 0 || len(rows) != 3 || !strings.HasPrefix(rows[1], "x[0] ") || !strings.HasPrefix(rows[2], "log_lik[0] ") {
			t.Errorf("summary --params %s: exit %d, rows %q (%s), want x[0] and log_lik[0]", spec, code, rows, stderr)
		}
	}

	// the same draws without gpp's header: a CmdStan CSV, named 1-based
	src := readFile(t, filepath.Join(out, drawsFile))
	var kept []string
	for _, l := range strings.Split(src, "\n") {
		if !strings.HasPrefix(l, "# gpp_version") {
			kept = append(kept, l)
		}
	}
	stan := writeFile(t, d, "stan.csv", strings.Join(kept, "\n"))
	code, stdout, stderr = runSafe(t, "summary", stan, "--out", sumOut)
	if code != 0 {
		t.Fatalf("summary of the CmdStan CSV: exit %d: %s", code, stderr)
	}
	ss := csvRows(t, sumOut)
	near("CmdStan CSV x[1]", meanOf(t, ss, "x[1]", "gpp summary's CSV of a CmdStan CSV"), 5)
	near("CmdStan CSV x[2]", meanOf(t, ss, "x[2]", "gpp summary's CSV of a CmdStan CSV"), -5)
	if _, ok := ss["x[0]"]; ok || !strings.Contains(stdout, "\nx[2] ") {
		t.Errorf("gpp summary of a CmdStan CSV does not name its elements 1-based:\n%s", stdout)
	}
	code, stdout, _ = runSafe(t, "summary", stan, "--params", "x.1")
	if code != 0 || !strings.Contains(stdout, "\nx[1] ") || strings.Contains(stdout, "\nx[2] ") {
		t.Errorf("summary of a CmdStan CSV --params x.1: exit %d:\n%s", code, stdout)
	}

	// the REPL's :fit names the element as gpp fit does
	r, rout, errb := newTestRepl()
	typeIn(r, ":load "+model, ":data "+data, ":fit --quiet --seed 1")
	if r.fit == nil {
		t.Fatalf(":fit: %s", errb)
	}
	var replRow []string
	for _, l := range strings.Split(rout.String(), "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[0] == "x[0]" {
			replRow = f
		}
	}
	if replRow == nil {
		t.Fatalf("the REPL's table has no x[0]:\n%s", rout)
	}
	if m, err := strconv.ParseFloat(replRow[2], 64); err != nil || !(m > 4 && m < 6) {
		t.Errorf("the REPL's x[0] row %v: want its mean near 5", replRow)
	}
}

// TestAgainstOlderSummary: --against a fit whose summary.csv an older gpp
// wrote, naming elements 1-based (x[1] for the language's x[0]), compares
// each element with the same element of the sample, not its neighbour,
// and says how it read the names.
func TestAgainstOlderSummary(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", elemNamesModel)
	data := writeFile(t, d, "d.csv", elemNamesData)
	fit := filepath.Join(d, "fit")
	if code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--seed", "1", "--out", fit); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	old := readFile(t, filepath.Join(fit, summaryFile)) // renamed as an older gpp named the elements
	for _, n := range []string{"x", "log_lik"} {
		for k := 6; k >= 0; k-- {
			old = strings.ReplaceAll(old, "\n"+n+"["+strconv.Itoa(k)+"],", "\n"+n+"["+strconv.Itoa(k+1)+"],")
		}
	}
	if err := os.WriteFile(filepath.Join(fit, summaryFile), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(d, "sample")
	code, _, stderr := runSafe(t, "sample", model, data, "--chains", "1", "--warmup", "200", "--draws", "200", "--seed", "1", "--against", fit, "--out", out)
	if code != 0 {
		t.Fatalf("sample --against: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "names elements 1-based (an older gpp's summary)") {
		t.Errorf("no note on the 1-based summary:\n%s", stderr)
	}
	rows := reftest.ReadCSVMaps(t, filepath.Join(out, againstFile))
	i := slices.IndexFunc(rows, func(r map[string]string) bool { return r["name"] == "x[0]" })
	if i < 0 {
		t.Fatalf("against.csv has no x[0]: %v", rows)
	}
	qm, err1 := strconv.ParseFloat(rows[i]["q_mean"], 64)
	m, err2 := strconv.ParseFloat(rows[i]["mean"], 64)
	if err1 != nil || err2 != nil || !(qm > 4 && qm < 6 && m > 4 && m < 6) {
		t.Errorf("against.csv's x[0]: q mean %s, NUTS mean %s: want both near 5", rows[i]["q_mean"], rows[i]["mean"])
	}
	if len(rows) != 2+7 {
		t.Errorf("against.csv compares %d elements, want x's 2 and log_lik's 7", len(rows))
	}
}

// TestLegacyNames tells an older gpp's 1-based summary names from 0-based
// ones: only numbered indices count, labels do not.
func TestLegacyNames(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  bool
	}{
		{[]string{"mu", "x[1]", "x[2]"}, true},
		{[]string{"mu", "x[0]", "x[1]"}, false},
		{[]string{"W[1,1]", "W[2,1]"}, true},
		{[]string{"W[0, 0]", "W[1, 0]"}, false},
		{[]string{"b[AITKIN,1]", "b[AITKIN,2]"}, true},
		{[]string{"b[AITKIN, 0]", "b[AITKIN, 1]"}, false},
		{[]string{"a[AITKIN]", "mu"}, false},
		{[]string{"mu", "sigma"}, false},
		{[]string{"r[1990, 2001]", "r[1991, 2001]"}, false}, // labels that are numbers, a 0-based summary's separator
	} {
		if got := legacyNames(c.names); got != c.want {
			t.Errorf("legacyNames(%v) = %v, want %v", c.names, got, c.want)
		}
	}
}

// TestSplitParams: --params splits at the commas outside brackets and
// quotes, so that a matrix element as printed is one item.
func TestSplitParams(t *testing.T) {
	for in, want := range map[string][]string{
		"a,b":                     {"a", "b"},
		"W[0, 1],lp__":            {"W[0, 1]", "lp__"},
		`z["A, B"],W[1,2],beta.1`: {`z["A, B"]`, "W[1,2]", "beta.1"},
	} {
		if got := splitParams(in); !slices.Equal(got, want) {
			t.Errorf("splitParams(%q) = %q, want %q", in, got, want)
		}
	}
	gppVars := columnVariables([]string{"lp__", "W.1.1", "W.2.1", "W.1.2", "W.2.2"}, "nuts")
	for _, spec := range []string{"W[0, 1]", "W[0,1]", "W.1.2"} {
		got, err := pickRows(gppVars, elemRows(gppVars), []string{spec})
		if err != nil || len(got) != 1 || got[0].name != "W[0, 1]" {
			t.Errorf("--params %s of a gpp file: %v, %v; want W[0, 1]", spec, got, err)
		}
	}
	stanVars := columnVariables([]string{"lp__", "W.1.1", "W.2.1", "W.1.2", "W.2.2"}, "nuts")
	for i := range stanVars {
		stanVars[i].stanNames = true
	}
	for _, spec := range []string{"W[1,2]", "W.1.2"} {
		got, err := pickRows(stanVars, elemRows(stanVars), []string{spec})
		if err != nil || len(got) != 1 || got[0].name != "W[1,2]" {
			t.Errorf("--params %s of a CmdStan file: %v, %v; want W[1,2]", spec, got, err)
		}
	}
}

// TestParamsSpellings: --params takes an element spelt every way gpp
// prints or writes it — the printed name with labels, the 0-based index
// on a labelled axis, draws.csv's 1-based column, spaces optional — as one
// row however many ways it is named; a bad name gets the closest printed
// name or the index's range.
func TestParamsSpellings(t *testing.T) {
	vars := columnVariables([]string{"lp__", "a.1", "a.2", "a.3", "z.1.1", "z.2.1", "z.1.2", "z.2.2", "tau"}, "nuts")
	setSavedAxes(vars, map[string][][]string{"a": {{"Beta", "Echo", "2"}}, "z": {{"grp00", "A, B"}, nil}})
	rows := elemRows(vars)
	for _, c := range []struct {
		specs []string
		want  []string
	}{
		{[]string{"a[Beta]", "a[0]", "a.1", "a[ 0 ]"}, []string{"a[Beta]"}},
		{[]string{"a[1]", "a[Echo]", "a.2"}, []string{"a[Echo]"}},
		{[]string{"a[2]"}, []string{"a[2]"}}, // the label "2" at index 2: the printed name (a label at another index: below)
		{[]string{"z[grp00, 1]", "z[0,1]", "z.1.2", "z[grp00,1]"}, []string{"z[grp00, 1]"}},
		{[]string{`z["A, B", 0]`, "z[1, 0]", "z.2.1"}, []string{`z["A, B", 0]`}},
		{[]string{"tau", "lp__"}, []string{"tau", "lp__"}},
		{[]string{"a", "a[Echo]"}, []string{"a[Beta]", "a[Echo]", "a[2]"}},
	} {
		got, err := pickRows(vars, rows, c.specs)
		var names []string
		for _, r := range got {
			names = append(names, r.name)
		}
		if err != nil || !slices.Equal(names, c.want) {
			t.Errorf("--params %q: %q, %v; want %q", c.specs, names, err, c.want)
		}
	}
	for spec, want := range map[string]string{
		"a[3]":           "index 3 out of range [0, 3) along axis 0 of a (indices are 0-based)",
		"a.4":            "index 4 out of range [1, 3] along axis 0 of a (draws.csv's columns are 1-based)",
		"a[Betta]":       "axis 0 of a has no label Betta; did you mean Beta?",
		"aa[Beta]":       "the draws have no aa[Beta]; did you mean a[Beta]?",
		"zzzz[grp00, 1]": "did you mean z[grp00, 1]?", // 3 edits without spaces (4 with): compared squeezed, named as printed
		"taux":           "the draws have no taux; did you mean tau?",
		"z[0]":           "z[0] gives 1 index, but z takes 2: its first element is z[grp00, 0]",
		"tau[0]":         "tau[0] is a scalar",
		"z[0, two]":      `"two" is not an index: axis 1 of z is numbered from 0`,
		"z[nope, 0]":     `its labels: grp00, "A, B"; or index it from 0`, // quoted as printed: one label
	} {
		_, err := pickRows(vars, rows, []string{spec})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--params %s: %v; want %q", spec, err, want)
		}
	}
	// a label that spells another element's index: a[2] is the element
	// labelled "2" (index 1), as printed, not index 2 (a[Echo])
	moved := columnVariables([]string{"lp__", "a.1", "a.2", "a.3"}, "nuts")
	setSavedAxes(moved, map[string][][]string{"a": {{"Beta", "2", "Echo"}}})
	for spec, want := range map[string]string{"a[2]": "a[2]", "a[1]": "a[2]", "a.3": "a[Echo]"} {
		if got, err := pickRows(moved, elemRows(moved), []string{spec}); err != nil || len(got) != 1 || got[0].name != want {
			t.Errorf("labels Beta, 2, Echo: --params %s: %v, %v; want %s", spec, got, err, want)
		}
	}
	stan := columnVariables([]string{"lp__", "theta.1", "theta.2"}, "nuts")
	for i := range stan {
		stan[i].stanNames = true
	}
	if got, err := pickRows(stan, elemRows(stan), []string{"theta[1]", "theta.1"}); err != nil || len(got) != 1 || got[0].name != "theta[1]" {
		t.Errorf("CmdStan theta[1], theta.1: %v, %v", got, err)
	}
	if _, err := pickRows(stan, elemRows(stan), []string{"theta[0]"}); err == nil || !strings.Contains(err.Error(), "Stan's 1-based indices") {
		t.Errorf("CmdStan theta[0]: %v; want the 1-based note", err)
	}
}

package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/textenc"
)

// labelNamesModel is a varying-intercept model whose size J the county
// labels give: a[J], b[J, 2] and the output a2[J] are named by county,
// yhat[N] by number. TestLogprobLabels and TestSensitivityLabels fit it
// too.
const labelNamesModel = `data J: int
data county: int<lower=0, upper=J-1>[N]
data y: real[N]
param mu: real ~ Normal(0, 5)
param tau: positive ~ HalfNormal(1)
param sigma: positive ~ HalfNormal(1)
param a: real[J] ~ Normal(mu, tau)
param b: real[J, 2] ~ Normal(0, 1)
y ~ Normal(a[county] + b[county, 0], sigma)
output yhat = a[county]
output a2 = a * 2
`

// labelNamesCounties are the groups in sorted order; one holds a comma,
// which its names quote.
var labelNamesCounties = []string{"AITKIN", "ANOKA", "BECKER", "ST. LOUIS, MN", "YELLOW MEDICINE"}

// numberNames rewrites the name column of a summary.csv, naming each
// labelled element by its number as the fit of codes does: a[AITKIN] →
// a[0], b["ST. LOUIS, MN", 1] → b[3, 1].
func numberNames(t *testing.T, summary string) string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(summary)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[1:] {
		for k, l := range labelNamesCounties {
			q := textenc.QuoteLabel(l)
			r[0] = strings.Replace(r[0], "["+q+"]", "["+strconv.Itoa(k)+"]", 1)
			r[0] = strings.Replace(r[0], "["+q+",", "["+strconv.Itoa(k)+",", 1)
		}
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.WriteAll(rows)
	return b.String()
}

// rowNames is the set of a summary.csv's row names.
func rowNames(t *testing.T, summary string) map[string]bool {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(summary)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, r := range rows {
		names[r[0]] = true
	}
	return names
}

// TestLabelNames: with J given by the labels of the county column, gpp
// fit's and gpp sample's summary.csv and tables name the elements of
// the axes sized J by county (a[AITKIN], b[AITKIN, 1], a["ST. LOUIS,
// MN"]; the other axes 0-based), the REPL's table too, by the same names; with the
// counties' codes and const J the names are numbers, and the two
// summary.csv files are byte for byte the same once the names are
// replaced by numbers. draws.csv keeps CmdStan's numbers, the same in
// both.
func TestLabelNames(t *testing.T) {
	d := t.TempDir()
	named, coded := labelsData(t, d, labelNamesCounties)
	model := writeFile(t, d, "m.gpp", labelNamesModel)
	constJ := writeFile(t, d, "const.gpp", strings.Replace(labelNamesModel, "data J: int\n", "const J = 5\n", 1))
	wantNames := []string{"a[AITKIN]", `a["ST. LOUIS, MN"]`, "b[AITKIN, 0]", "b[YELLOW MEDICINE, 1]", `b["ST. LOUIS, MN", 1]`, "a2[BECKER]", "yhat[2]"}
	for _, cmd := range [][]string{
		{"fit", "--iter", "300", "--output-draws", "50"},
		{"sample", "--chains", "1", "--warmup", "60", "--draws", "20"},
	} {
		t.Run(cmd[0], func(t *testing.T) {
			run := func(model, data, out string) (table, summary, draws string) {
				t.Helper()
				code, stdout, stderr := runSafe(t, append(append([]string{cmd[0], model, data}, cmd[1:]...), "--quiet", "--out", out)...)
				if code != 0 {
					t.Fatalf("gpp %s %s %s: exit %d: %s", cmd[0], model, data, code, stderr)
				}
				return stdout, readFile(t, filepath.Join(out, summaryFile)), readFile(t, filepath.Join(out, drawsFile))
			}
			tabN, sumN, drawsN := run(model, named, filepath.Join(d, cmd[0]+"-named"))
			tabC, sumC, drawsC := run(constJ, coded, filepath.Join(d, cmd[0]+"-coded"))
			names := rowNames(t, sumN)
			for _, n := range wantNames {
				if !names[n] {
					t.Errorf("summary.csv has no row %s:\n%s", n, sumN)
				}
				if !strings.Contains(tabN, "\n"+n+" ") {
					t.Errorf("the table has no row %s:\n%s", n, tabN)
				}
			}
			if strings.Contains(tabC, "AITKIN") || strings.Contains(sumC, "AITKIN") || !strings.Contains(tabC, "\nb[4, 1] ") {
				t.Errorf("the codes' summary names elements by label, or not by number:\n%s", tabC)
			}
			if got := numberNames(t, sumN); got != sumC {
				t.Errorf("summary.csv by label, with numbers for labels:\n%s\nwant the codes':\n%s", got, sumC)
			}
			if draws(drawsN) != draws(drawsC) || !strings.Contains(drawsN, ",a.1,") || !strings.Contains(drawsN, ",b.5.2,") {
				t.Errorf("draws.csv of the labels differs from the codes' or is not named by numbers:\n%.600s", drawsN)
			}
			// gpp summary of the run's directory names the elements as the
			// run did, by the labels saved beside draws.csv (TestAxesBeside)
			summary := func(args ...string) (table, csv string) {
				t.Helper()
				out := filepath.Join(d, "summary.csv")
				code, stdout, stderr := runSafe(t, append(append([]string{"summary"}, args...), "--out", out)...)
				if code != 0 {
					t.Fatalf("gpp summary %v: exit %d: %s", args, code, stderr)
				}
				return stdout, readFile(t, out)
			}
			tabSN, sumSN := summary(filepath.Join(d, cmd[0]+"-named"))
			_, sumSC := summary(filepath.Join(d, cmd[0]+"-coded", drawsFile))
			namesS := rowNames(t, sumSN)
			for _, n := range wantNames {
				if !namesS[n] || !strings.Contains(tabSN, "\n"+n+" ") {
					t.Errorf("gpp summary of the run has no row %s:\n%s", n, tabSN)
				}
			}
			if got := numberNames(t, sumSN); got != sumSC || strings.Contains(sumSC, "AITKIN") {
				t.Errorf("gpp summary by label, with numbers for labels:\n%s\nwant the codes':\n%s", got, sumSC)
			}
		})
	}
	// gpp predict, from the fit and from the sample, on new data of a few
	// counties: a[J] and a2[J] by county (J is the fit's count), yhat by number
	newData := writeFile(t, d, "new.csv", "county\nBECKER\n\"ST. LOUIS, MN\"\n")
	for _, from := range []string{"fit-named", "sample-named"} {
		out := filepath.Join(d, "predict-"+from)
		code, _, stderr := runSafe(t, "predict", filepath.Join(d, from), model, newData, "--quiet", "--out", out)
		if code != 0 {
			t.Fatalf("gpp predict %s: exit %d: %s", from, code, stderr)
		}
		sum := readFile(t, filepath.Join(out, summaryFile))
		for _, n := range []string{"\na[AITKIN],", "\na2[YELLOW MEDICINE],", "\nyhat[1],", "\n\"a[\"\"ST. LOUIS, MN\"\"]\","} {
			if !strings.Contains(sum, n) {
				t.Errorf("predict from %s: summary.csv has no row %q:\n%s", from, n[1:], sum)
			}
		}
	}
	elems := 3 + 4*len(labelNamesCounties) + 30 // mu, tau, sigma; a, b, a2; yhat
	// --against a fit of the same labels matches its rows by their names
	dir := filepath.Join(d, "against")
	code, _, stderr := runSafe(t, "sample", model, named, "--chains", "1", "--warmup", "60", "--draws", "20", "--quiet", "--against", filepath.Join(d, "fit-named"), "--out", dir)
	if code != 0 {
		t.Fatalf("gpp sample --against: exit %d: %s", code, stderr)
	}
	if against := readFile(t, filepath.Join(dir, againstFile)); strings.Count(against, "\n") != 1+elems || !strings.Contains(against, "\n\"b[\"\"ST. LOUIS, MN\"\", 1]\",") {
		t.Errorf("against.csv does not compare every element by its name:\n%s", against)
	}
	r, out, errb := newTestRepl()
	typeIn(r, ":load "+model, ":data "+named, ":fit --quiet --iter 300 --output-draws 50")
	if r.fit == nil {
		t.Fatalf(":fit: %s", errb)
	}
	for _, n := range []string{"a[AITKIN]", `a["ST. LOUIS, MN"]`, "b[AITKIN, 1]", "b[YELLOW MEDICINE, 0]", "yhat[0]"} {
		if !strings.Contains(out.String(), "\n"+n+" ") {
			t.Errorf("the REPL's table has no row %s:\n%s", n, out)
		}
	}
}

// TestAxesBeside: gpp summary takes the labels of a run's elements from
// the coords.csv or fit.json beside its draws files only when they are of
// the same model (and, for fit.json, data) and the files one run's.
func TestAxesBeside(t *testing.T) {
	d := t.TempDir()
	sampleDir, fitDir := filepath.Join(d, "s"), filepath.Join(d, "f")
	for _, dir := range []string{sampleDir, fitDir} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, sampleDir, coordsFile, "# model_sha256 = A\n# labels z = [[\"x\",\"y\"],null]\nchain__,draw__\n")
	writeFile(t, fitDir, fitFileName, `{"model_sha256":"A","data_sha256":["D"],"labels":{"w":[["u","v","w"]]}}`)
	file := func(dir, model string, data ...string) *drawsFileData {
		return &drawsFileData{path: filepath.Join(dir, drawsFile), modelHash: model, dataHash: data}
	}
	for _, c := range []struct {
		name  string
		files []*drawsFileData
		want  string // the labels of the first axis of z or w, or ""
	}{
		{"sample", []*drawsFileData{file(sampleDir, "A")}, "x,y"},
		{"sample, other model", []*drawsFileData{file(sampleDir, "B")}, ""},
		{"sample, no model", []*drawsFileData{file(sampleDir, "")}, ""},
		{"fit", []*drawsFileData{file(fitDir, "A", "D")}, "u,v,w"},
		{"fit, other data", []*drawsFileData{file(fitDir, "A", "E")}, ""},
		{"fit, other model", []*drawsFileData{file(fitDir, "B", "D")}, ""},
		{"two runs' files", []*drawsFileData{file(sampleDir, "A"), file(fitDir, "A", "D")}, ""},
		{"nothing beside", []*drawsFileData{file(d, "A")}, ""},
	} {
		var got string
		for _, axes := range axesBeside(c.files) {
			got = strings.Join(axes[0], ",")
		}
		if got != c.want {
			t.Errorf("%s: labels %q, want %q", c.name, got, c.want)
		}
	}
}

// TestSetSavedAxes: saved labels name a variable's elements only where
// they fit its shape (as many axes, each labelled one as long): labels of
// another length, or of another number of axes, would name elements that
// are not there, or index past their end (a file edited, or a model's
// sizes changed since), and leave the variable named by number.
func TestSetSavedAxes(t *testing.T) {
	vars := []variable{
		{name: "a", shape: []int{2, 3}},
		{name: "b", shape: []int{2, 3}},
		{name: "c", shape: []int{3}},
		{name: "d", shape: []int{3}},
		{name: "e", shape: []int{2}},
	}
	setSavedAxes(vars, map[string][][]string{
		"a": {nil, {"u", "v", "w"}},
		"b": {{"p", "q", "r"}, nil}, // 3 labels on an axis of 2
		"c": {{"u", "v"}},           // too few
		"d": {{"u", "v", "w"}, nil}, // an axis too many
	})
	if got := vars[0].elemName(5); got != "a[1, w]" {
		t.Errorf("a's last element is %s, want a[1, w]", got)
	}
	for _, v := range vars[1:] {
		if v.axes != nil {
			t.Errorf("%s of shape %v took the saved labels %q", v.name, v.shape, v.axes)
		}
	}
}

// TestAxesBesideStaleCoords: a gpp fit into the directory of an earlier
// gpp sample of the same model leaves the sample's coords.csv there (a
// fit writes none and removes none); gpp summary of the fit's draws must
// name its elements by its own fit.json, or by number, never by the
// sample's labels, which may be of other data.
func TestAxesBesideStaleCoords(t *testing.T) {
	d := t.TempDir()
	both, coordsOnly := filepath.Join(d, "both"), filepath.Join(d, "coords")
	for _, dir := range []string{both, coordsOnly} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, coordsFile, "# model_sha256 = A\n# labels z = [[\"x\",\"y\"]]\nchain__,draw__\n")
	}
	writeFile(t, both, fitFileName, `{"model_sha256":"A","data_sha256":["D"],"labels":{"z":[["u","v","w"]]}}`)
	for _, c := range []struct {
		name string
		dir  string
		kind drawsKind
		want string
	}{
		{"fit beside a sample's coords.csv and its fit.json", both, variationalKind, "u,v,w"},
		{"fit beside a sample's coords.csv only", coordsOnly, variationalKind, ""},
		{"sample beside its coords.csv", coordsOnly, gppSampleKind, "x,y"},
	} {
		f := &drawsFileData{path: filepath.Join(c.dir, drawsFile), kind: c.kind, modelHash: "A", dataHash: []string{"D"}}
		var got string
		for _, axes := range axesBeside([]*drawsFileData{f}) {
			got = strings.Join(axes[0], ",")
		}
		if got != c.want {
			t.Errorf("%s: labels %q, want %q", c.name, got, c.want)
		}
	}
}

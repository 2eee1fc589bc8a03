package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/textenc"
)

// labelsModel is a varying-intercept model whose group column may be
// county names: data county: int[N] codes them 0, 1, ... in sorted order.
const labelsModel = `data county: int[N]
data y: real[N]
const J = 5
param mu: real ~ Normal(0, 5)
param tau: positive ~ HalfNormal(1)
param sigma: positive ~ HalfNormal(1)
param a: real[J] ~ Normal(mu, tau)
y ~ Normal(a[county], sigma)
output yhat = a[county]
`

// labelsCounties are the groups, in sorted order: county k has code k.
var labelsCounties = []string{"AITKIN", "ANOKA", "BECKER", "BELTRAMI", "YELLOW MEDICINE"}

// labelsData writes the model's data twice, with the counties by name
// (rows not in sorted order; a name quoted where summary.csv quotes it)
// and by their codes, and returns both files.
func labelsData(t *testing.T, d string, counties []string) (named, coded string) {
	t.Helper()
	var byName, byCode strings.Builder
	byName.WriteString("county,y\n")
	byCode.WriteString("county,y\n")
	for i := range 30 {
		k := (i*3 + 1) % len(counties)
		y := fmt.Sprintf("%.3f", 0.4*float64(k)+0.1*float64(i%7)-0.3)
		fmt.Fprintf(&byName, "%s,%s\n", textenc.QuoteLabel(counties[k]), y)
		fmt.Fprintf(&byCode, "%d,%s\n", k, y)
	}
	return writeFile(t, d, "radon.csv", byName.String()), writeFile(t, d, "radon_codes.csv", byCode.String())
}

// TestFitLabels: a column of county names fits to the summary.csv, byte
// for byte, of the same data with the names replaced by their codes; a
// note says the coding (gpp check's too) and fit.json records it. gpp
// predict codes new data's names as the fit did: a few of the counties in
// another order give the predictions, bit for bit, of their codes given
// as numbers to the numbers' fit. A county the fit did not see, names
// against a fit of numbers and numbers against a fit of names are errors
// (exit 1) that write nothing.
func TestFitLabels(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", labelsModel)
	named, coded := labelsData(t, d, labelsCounties)
	note := `note: ` + named + `: column "county": 5 labels coded 0 to 4 in sorted order (AITKIN 0, ANOKA 1, BECKER 2, BELTRAMI 3, YELLOW MEDICINE 4)`
	if code, _, stderr := runSafe(t, "check", model, named); code != 0 || !strings.Contains(stderr, note) {
		t.Errorf("gpp check: exit %d, stderr:\n%s\nwant the note %q", code, stderr, note)
	}
	fit := func(data, out string) string {
		t.Helper()
		code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--iter", "300", "--output-draws", "50", "--out", out)
		if code != 0 {
			t.Fatalf("gpp fit %s: exit %d: %s", data, code, stderr)
		}
		if strings.Contains(stderr, "labels coded") != (data == named) {
			t.Errorf("gpp fit %s: stderr:\n%s\nwant the note %q for the names only", data, stderr, note)
		}
		return readFile(t, filepath.Join(out, "summary.csv"))
	}
	fitNamed, fitCoded := filepath.Join(d, "fit-named"), filepath.Join(d, "fit-coded")
	if got, want := fit(named, fitNamed), fit(coded, fitCoded); got != want {
		t.Errorf("summary.csv of the names differs from the codes':\n%s\nwant\n%s", got, want)
	}
	var ff fitfile.File
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(fitNamed, fitFileName))), &ff); err != nil {
		t.Fatal(err)
	}
	if lv, ok := ff.Levels["county"]; !ok || lv.First != 0 || lv.Column != "county" || !slices.Equal(lv.Labels, labelsCounties) {
		t.Errorf("fit.json levels %+v, want county's 5 labels from 0", ff.Levels)
	}
	if strings.Contains(readFile(t, filepath.Join(fitCoded, fitFileName)), `"levels"`) {
		t.Errorf("the numbers' fit.json has levels")
	}

	// predict: BELTRAMI, AITKIN, BELTRAMI, YELLOW MEDICINE would be coded
	// 1, 0, 1, 2 afresh; the fit's codes are 3, 0, 3, 4.
	newNamed := writeFile(t, d, "new.csv", "county\nBELTRAMI\nAITKIN\nBELTRAMI\n\"YELLOW MEDICINE\"\n")
	newCoded := writeFile(t, d, "new_codes.csv", "county\n3\n0\n3\n4\n")
	predict := func(fit, data, out string) (string, string) {
		t.Helper()
		code, _, stderr := runSafe(t, "predict", fit, model, data, "--quiet", "--out", out)
		if code != 0 {
			t.Fatalf("gpp predict %s %s: exit %d: %s", fit, data, code, stderr)
		}
		return readFile(t, filepath.Join(out, "summary.csv")), draws(readFile(t, filepath.Join(out, "draws.csv")))
	}
	sumN, drawsN := predict(fitNamed, newNamed, filepath.Join(d, "p-named"))
	sumC, drawsC := predict(fitCoded, newCoded, filepath.Join(d, "p-coded"))
	if sumN != sumC || drawsN != drawsC {
		t.Errorf("predictions from the names differ from the codes':\n%s\nwant\n%s", sumN, sumC)
	}
	for _, c := range []struct{ name, fit, data, want string }{
		{"unseen", fitNamed, writeFile(t, d, "cass.csv", "county\nANOKA\nCASS\n"),
			`cass.csv:3:1: column "county": label "CASS" is not one the fit coded ` + "`county`" + ` from (its 5 labels: AITKIN, ANOKA, BECKER, BELTRAMI, YELLOW MEDICINE)`},
		{"names against numbers", fitCoded, newNamed, `new.csv:2:1: column "county": "BELTRAMI" is a label, but the fit recorded no labels for ` + "`county`"},
		{"numbers against names", fitNamed, newCoded, `new_codes.csv:2:1: county: 3 is a number, but the fit coded ` + "`county`" + ` from labels`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(d, "p-"+strings.ReplaceAll(c.name, " ", "-"))
			code, _, stderr := runSafe(t, "predict", c.fit, model, c.data, "--quiet", "--out", out)
			if code != 1 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant 1 and %q", code, stderr, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s written (%v)", out, err)
			}
		})
	}
}

// draws returns a draws.csv without its comment lines, which name the
// files.
func draws(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "#") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSampleLabels: gpp sample records the coding of a column of names
// in coords.csv, which gpp predict reads: predictions over the sample's
// draws code new names as the sample did, and an unseen name is an error.
func TestSampleLabels(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", labelsModel)
	named, coded := labelsData(t, d, labelsCounties)
	sample := func(data, out string) {
		t.Helper()
		if code, _, stderr := runSafe(t, "sample", model, data, "--quiet", "--chains", "1", "--warmup", "60", "--draws", "20", "--out", out); code != 0 {
			t.Fatalf("gpp sample %s: exit %d: %s", data, code, stderr)
		}
	}
	sNamed, sCoded := filepath.Join(d, "s-named"), filepath.Join(d, "s-coded")
	sample(named, sNamed)
	sample(coded, sCoded)
	coords := readFile(t, filepath.Join(sNamed, coordsFile))
	if want := `# levels county = {"column":"county","first":0,"labels":["AITKIN","ANOKA","BECKER","BELTRAMI","YELLOW MEDICINE"]}` + "\n"; !strings.Contains(coords, want) {
		t.Errorf("coords.csv has no line %q:\n%s", want, coords[:min(len(coords), 600)])
	}
	newNamed := writeFile(t, d, "new.csv", "county\nBELTRAMI\nAITKIN\n")
	newCoded := writeFile(t, d, "new_codes.csv", "county\n3\n0\n")
	predict := func(fit, data, out string) string {
		t.Helper()
		code, _, stderr := runSafe(t, "predict", fit, model, data, "--quiet", "--out", out)
		if code != 0 {
			t.Fatalf("gpp predict %s %s: exit %d: %s", fit, data, code, stderr)
		}
		return readFile(t, filepath.Join(out, "summary.csv"))
	}
	if got, want := predict(sNamed, newNamed, filepath.Join(d, "p1")), predict(sCoded, newCoded, filepath.Join(d, "p2")); got != want {
		t.Errorf("predictions over the sample from the names differ from the codes':\n%s\nwant\n%s", got, want)
	}
	out := filepath.Join(d, "p3")
	code, _, stderr := runSafe(t, "predict", sNamed, model, writeFile(t, d, "cass.csv", "county\nCASS\n"), "--quiet", "--out", out)
	if want := `cass.csv:2:1: column "county": label "CASS" is not one the fit coded`; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("an unseen county: exit %d, %s; want 1 and %q", code, stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s written", out)
	}
}

// TestReplLabels: the REPL codes a column of names as gpp fit does, and
// :predict as gpp predict does, by the last fit's coding: its table is
// that of a session on the codes given as numbers; an unseen name is an
// error.
func TestReplLabels(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", labelsModel)
	named, coded := labelsData(t, d, labelsCounties)
	session := func(data, newData, note string) (*repl, string) {
		t.Helper()
		r, out, errb := newTestRepl()
		typeIn(r, ":load "+model, ":data "+data, ":fit --quiet --iter 300 --output-draws 50")
		if r.fit == nil || !strings.Contains(errb.String(), note) {
			t.Fatalf(":fit on %s: errors:\n%s\nwant %q", data, errb, note)
		}
		out.Reset()
		errb.Reset()
		typeIn(r, ":predict "+newData)
		if r.failed {
			t.Fatalf(":predict %s: %s", newData, errb)
		}
		return r, out.String()
	}
	r, got := session(named, writeFile(t, d, "new.csv", "county\nBELTRAMI\nAITKIN\n"), `column "county": 5 labels coded 0 to 4 in sorted order`)
	_, want := session(coded, writeFile(t, d, "new_codes.csv", "county\n3\n0\n"), "")
	if got != want {
		t.Errorf(":predict on names:\n%s\nwant the codes':\n%s", got, want)
	}
	var errb strings.Builder
	r.err = &errb
	typeIn(r, ":predict "+writeFile(t, d, "cass.csv", "county\nCASS\n"))
	if !strings.Contains(errb.String(), `label "CASS" is not one the fit coded`) || !r.failed {
		t.Errorf(":predict of an unseen county: %s", errb.String())
	}
}

// TestKfoldLabels: gpp kfold codes a column of names once, from all the
// data, so that every fold shares the codes: grouped by county, its
// kfold.csv is that of the codes given as numbers, byte for byte.
func TestKfoldLabels(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", labelsModel+"output log_lik = logpdf(y, Normal(a[county], sigma))\n")
	named, coded := labelsData(t, d, labelsCounties)
	kfold := func(data, out string) string {
		t.Helper()
		if code, _, stderr := runSafe(t, "kfold", model, data, "--folds", "3", "--group", "county", "--iter", "200", "--quiet", "--out", out); code != 0 {
			t.Fatalf("gpp kfold %s: exit %d: %s", data, code, stderr)
		}
		return readFile(t, filepath.Join(out, "kfold.csv"))
	}
	if got, want := kfold(named, filepath.Join(d, "k1")), kfold(coded, filepath.Join(d, "k2")); got != want {
		t.Errorf("kfold.csv of the names differs from the codes':\n%s\nwant\n%s", got, want)
	}
}

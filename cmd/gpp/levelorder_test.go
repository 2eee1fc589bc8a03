package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// likertModel is an ordinal regression of an answer q on x, q coded 1..5.
const likertModel = `data x: real[N]
data q: int<lower=1, upper=5>[N]
param b: real ~ Normal(0, 2.5)
param c: ordered[4] ~ Normal(0, 5)
q - 1 ~ OrderedLogistic(b * x, c)
output log_lik = logpdf(q - 1, OrderedLogistic(b * x, c))
`

// likertAnswers are the answers in their order of meaning: answer k is
// code k+1. Sorted in byte order they are Agree, Disagree, Neutral,
// Strongly agree, Strongly disagree.
var likertAnswers = []string{"Strongly disagree", "Disagree", "Neutral", "Agree", "Strongly agree"}

// likertLevels is --levels q= of likertAnswers.
var likertLevels = "q=" + strings.Join(likertAnswers, ",")

// likertData writes 60 rows of the model's data with q as answers and as
// their codes, q rising with x, and returns both files.
func likertData(t *testing.T, d string) (named, coded string) {
	t.Helper()
	var byName, byCode strings.Builder
	byName.WriteString("x,q\n")
	byCode.WriteString("x,q\n")
	for i := range 60 {
		x := math.Sin(float64(i)*1.7) * 2
		k := min(max(int(math.Round(x+float64(i%3)-1))+2, 0), 4)
		fmt.Fprintf(&byName, "%.3f,%s\n", x, likertAnswers[k])
		fmt.Fprintf(&byCode, "%.3f,%d\n", x, k+1)
	}
	return writeFile(t, d, "likert.csv", byName.String()), writeFile(t, d, "likert_codes.csv", byCode.String())
}

// TestLevelOrderWarning: gpp check, fit and sample warn that a column of
// answers coded in byte order is an ordered outcome, naming the column,
// the coding, the model's position and --levels; with --levels the
// warning is gone, the note says the order came from the flag, and the
// fit's and the sample's summary.csv are those of the codes given as
// numbers, byte for byte; gpp predict codes new answers by the fit's
// order. A label --levels does not list is an error at its cell.
func TestLevelOrderWarning(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", likertModel)
	named, coded := likertData(t, d)
	warn := `warning: ` + named + `: column "q": its 5 labels are coded in sorted (byte) order, Agree 1, Disagree 2, Neutral 3, Strongly agree 4, Strongly disagree 5, and ` + model + `:5:1 reads the codes as the ordered outcome of OrderedLogistic, where their order is their meaning: give the order with --levels q=LABEL,LABEL,... (lowest first), or give the column as numbers`
	note := `note: ` + named + `: column "q": 5 labels coded 1 to 5 in the order --levels gives (Strongly disagree 1, Disagree 2, Neutral 3, Agree 4, Strongly agree 5)`
	if code, _, stderr := runSafe(t, "check", model, named); code != 0 || !strings.Contains(stderr, warn) {
		t.Errorf("gpp check: exit %d, stderr:\n%s\nwant the warning %q", code, stderr, warn)
	}
	if code, _, stderr := runSafe(t, "check", "--levels", likertLevels, model, named); code != 0 || strings.Contains(stderr, "warning") || !strings.Contains(stderr, note) {
		t.Errorf("gpp check --levels: exit %d, stderr:\n%s\nwant no warning and the note %q", code, stderr, note)
	}
	fit := func(out string, args ...string) string {
		t.Helper()
		code, _, stderr := runSafe(t, append([]string{"fit", model, "--quiet", "--iter", "300", "--output-draws", "50", "--out", out}, args...)...)
		if code != 0 {
			t.Fatalf("gpp fit %s: exit %d: %s", args, code, stderr)
		}
		if got := strings.Contains(stderr, warn); got != (args[len(args)-1] == named && args[0] != "--levels") {
			t.Errorf("gpp fit %s: warning %v; stderr:\n%s", args, got, stderr)
		}
		return readFile(t, filepath.Join(out, "summary.csv"))
	}
	fitNamed := filepath.Join(d, "fit-named")
	got, want := fit(fitNamed, "--levels", likertLevels, named), fit(filepath.Join(d, "fit-coded"), coded)
	if got != want {
		t.Errorf("summary.csv of the answers in order differs from the codes':\n%s\nwant\n%s", got, want)
	}
	if fit(filepath.Join(d, "fit-sorted"), named) == want {
		t.Errorf("the answers in byte order fit as the codes do: the data do not tell the orders apart")
	}
	sample := func(out string, args ...string) string {
		t.Helper()
		code, _, stderr := runSafe(t, append([]string{"sample", model, "--quiet", "--chains", "1", "--warmup", "60", "--draws", "20", "--out", out}, args...)...)
		if code != 0 || strings.Contains(stderr, "warning: "+named) {
			t.Fatalf("gpp sample %s: exit %d: %s", args, code, stderr)
		}
		return readFile(t, filepath.Join(out, "summary.csv"))
	}
	if got, want := sample(filepath.Join(d, "s-named"), "--levels", likertLevels, named), sample(filepath.Join(d, "s-coded"), coded); got != want {
		t.Errorf("gpp sample: summary.csv of the answers in order differs from the codes':\n%s\nwant\n%s", got, want)
	}
	// predict codes by the fit's order: Neutral is 3, Agree 4.
	newNamed := writeFile(t, d, "new.csv", "x,q\n0.5,Agree\n-1,Neutral\n")
	newCoded := writeFile(t, d, "new_codes.csv", "x,q\n0.5,4\n-1,3\n")
	predict := func(fit, data, out string) string {
		t.Helper()
		code, _, stderr := runSafe(t, "predict", fit, model, data, "--quiet", "--out", out)
		if code != 0 {
			t.Fatalf("gpp predict %s: exit %d: %s", data, code, stderr)
		}
		return readFile(t, filepath.Join(out, "summary.csv"))
	}
	if got, want := predict(fitNamed, newNamed, filepath.Join(d, "p-named")), predict(filepath.Join(d, "fit-coded"), newCoded, filepath.Join(d, "p-coded")); got != want {
		t.Errorf("gpp predict of the answers differs from the codes':\n%s\nwant\n%s", got, want)
	}
	code, _, stderr := runSafe(t, "check", "--levels", "q=Strongly disagree,Disagree,Agree,Strongly agree", model, named)
	if want := `column "q": label "Neutral" is not in the order --levels gives ` + "`q`"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("a label not listed: exit %d, stderr:\n%s\nwant 1 and %q", code, stderr, want)
	}
}

// TestLevelsFlag: --levels takes NAME=LABEL,... as a CSV record, so that a
// quoted label may hold a comma; an empty or repeated label, a name given
// twice and a record that is not one are usage errors.
func TestLevelsFlag(t *testing.T) {
	l := levelFlags{}
	if err := l.Set(`g="ST. LOUIS, MN",AITKIN`); err != nil || len(l["g"]) != 2 || l["g"][0] != "ST. LOUIS, MN" || l["g"][1] != "AITKIN" {
		t.Errorf("Set: %v, %q", err, l)
	}
	for _, c := range []struct{ v, want string }{
		{"g=a,b", "g: its order is given twice"},
		{"h=a,,b", `h: an empty label in "a,,b"`},
		{"h=a,b,a", `h: label "a" is listed twice`},
		{`h="a,b`, "h: the labels are not a CSV record"},
		{"h", "expected NAME=LABEL,LABEL,..."},
	} {
		if err := l.Set(c.v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Set(%q): %v, want %q", c.v, err, c.want)
		}
	}
}

// TestReplLevels: gpp repl --levels codes the session's column of answers
// in that order (no warning; the note says so), and :fit --levels, which
// would code the fit's data otherwise than the session's queries, is
// refused; an order for a name the model does not declare is noted.
func TestReplLevels(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", likertModel)
	named, _ := likertData(t, d)
	var out, errb strings.Builder
	run([]string{"repl", "--history", "-", "--levels", likertLevels, model, named}, strings.NewReader(":check\n"), &out, &errb)
	note := `column "q": 5 labels coded 1 to 5 in the order --levels gives (Strongly disagree 1, Disagree 2, Neutral 3, Agree 4, Strongly agree 5)`
	if !strings.Contains(errb.String(), note) || strings.Contains(errb.String(), "warning") {
		t.Errorf("gpp repl --levels, :check: stderr:\n%s\nwant no warning and the note %q", errb.String(), note)
	}
	if strings.Contains(errb.String(), "waits for such a declaration") {
		t.Errorf("gpp repl --levels q=...: stderr:\n%s\nwant no note of an unused order", errb.String())
	}
	// A misspelt name is noted at the load, as gpp fit refuses it.
	out.Reset()
	errb.Reset()
	run([]string{"repl", "--history", "-", "--levels", "qq=a,b", model, named}, strings.NewReader(":quit\n"), &out, &errb)
	if want := `note: --levels qq: the model declares no data named "qq" (data: `; !strings.Contains(errb.String(), want) {
		t.Errorf("gpp repl --levels qq=a,b: stderr:\n%s\nwant %q", errb.String(), want)
	}
	out.Reset()
	errb.Reset()
	run([]string{"repl", "--history", "-", model, named}, strings.NewReader(":check\n:fit --levels "+strings.ReplaceAll(likertLevels, " ", `\ `)+"\n"), &out, &errb)
	for _, want := range []string{"reads the codes as the ordered outcome of OrderedLogistic", ":fit --levels: the order of a column's labels is the session's"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("gpp repl: stderr:\n%s\nwant %q", errb.String(), want)
		}
	}
}

// TestOrderedOneBasedData: scores 1..5 under a 5-category OrderedLogistic
// (Stan's coding) are an error at the first cell out of range that says
// how to shift them, before the fit.
func TestOrderedOneBasedData(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", strings.Replace(strings.Replace(likertModel, "q - 1 ~", "q ~", 1), "int<lower=1, upper=5>", "int", 1))
	_, coded := likertData(t, d)
	code, _, stderr := runSafe(t, "fit", model, coded, "--quiet", "--out", filepath.Join(d, "out"))
	want := "likert_codes.csv:3:7: q: value 5 is not a category 0..4, as OrderedLogistic at " + model + ":5:5 needs; categories are 0-based and these run from 1 to 5, as Stan's 1-based ids do: give the value minus 1 (`y - 1 ~ OrderedLogistic(eta, c)`) or 0-based categories"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant %q", code, stderr, want)
	}
}

// TestLevelsFile: --levels NAME=@FILE reads the order one label per line
// (a kinship matrix's row ids; CRLF and a final newline are fine, a comma
// is part of a label), so that gpp check of an animal model indexed by
// text ids, warned of without it, codes the ids in G's row order; an
// empty line, a repeated label, an empty file and a missing one are
// errors naming the file.
func TestLevelsFile(t *testing.T) {
	d := t.TempDir()
	ids := writeFile(t, d, "ids.txt", "P0\r\nP1\r\nP2\r\nP10, x\r\n")
	l := levelFlags{}
	if err := l.Set("id=@" + ids); err != nil || strings.Join(l["id"], "|") != "P0|P1|P2|P10, x" {
		t.Errorf("Set: %v, %q", err, l["id"])
	}
	for _, c := range []struct{ text, want string }{
		{"a\n\nb\n", "bad.txt:2: an empty line"},
		{"a\nb\na", `bad.txt:3: label "a" is listed twice (first at line 1)`},
		{"\n", "holds no labels"},
	} {
		bad := writeFile(t, d, "bad.txt", c.text)
		if err := (levelFlags{}).Set("h=@" + bad); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	if err := (levelFlags{}).Set("h=@" + filepath.Join(d, "none.txt")); err == nil || !strings.Contains(err.Error(), "none.txt") {
		t.Errorf("a missing file: %v", err)
	}
	model := writeFile(t, d, "am.gpp", "data y: real[N]\ndata id: int[N]\ndata G: real[Q, Q]\nparam sa: positive ~ HalfNormal(1)\nparam z: real[Q] ~ Normal(0, 1)\nlet u = sa * (chol(G) * z)\ny ~ Normal(u[id], 1)\n")
	pheno := writeFile(t, d, "pheno.csv", "id,y\nP10,1\nP2,0.5\nP0,-1\nP1,0.2\n")
	g := writeFile(t, d, "g.json", `{"G": [[1, 0.5, 0, 0], [0.5, 1, 0, 0], [0, 0, 1, 0.5], [0, 0, 0.5, 1]]}`)
	writeFile(t, d, "ids.txt", "P0\nP1\nP2\nP10\n")
	code, _, stderr := runSafe(t, "check", model, pheno, g)
	if code != 0 || !strings.Contains(stderr, "tied to the rows of the data matrix chol(G)") {
		t.Errorf("without --levels: exit %d, stderr:\n%s\nwant the warning", code, stderr)
	}
	code, _, stderr = runSafe(t, "check", "--levels", "id=@"+ids, model, pheno, g)
	if code != 0 || strings.Contains(stderr, "warning") || !strings.Contains(stderr, "4 labels coded 0 to 3 in the order --levels gives (P0 0, P1 1, P2 2, P10 3)") {
		t.Errorf("with --levels id=@%s: exit %d, stderr:\n%s", ids, code, stderr)
	}
}

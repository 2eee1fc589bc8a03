package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// groupSumMRP is a small multilevel regression and poststratification:
// survey rows by state and age, census cells with their counts, theta
// each state's poststratified share; THETA is its last line.
const groupSumMRP = `data S: int
data A: int
data state: int<lower=0, upper=S-1>[N]
data age: int<lower=0, upper=A-1>[N]
data y: int<lower=0, upper=1>[N]
data cstate: int<lower=0, upper=S-1>[M]
data cage: int<lower=0, upper=A-1>[M]
data count: real[M]
param a0: real ~ Normal(0, 2)
param sd_s: positive ~ HalfNormal(1)
param z_s: real[S] ~ Normal(0, 1)
param u_a: real[A] ~ Normal(0, 1)
y ~ BernoulliLogit(a0 + sd_s * z_s[state] + u_a[age])
let p_cell = inv_logit(a0 + sd_s * z_s[cstate] + u_a[cage])
THETA
`

// TestFitGroupSumMRP: poststratifying with group_sum gives, for the same
// seed, the fit (summary and draws, byte for byte) of the 0/1 state-by-cell
// matrix a user built by hand, theta named by the states' labels, and
// without the hand-made matrix's warning that the state codes are read as
// numbers; 1-based numeric codes are an error at their CSV cell, naming
// the shift.
func TestFitGroupSumMRP(t *testing.T) {
	d := t.TempDir()
	var survey, census strings.Builder
	survey.WriteString("state,age,y\n")
	census.WriteString("cstate,cage,count\n")
	states, ages := []string{"NY", "AK", "TX", "OH"}, []string{"18-34", "35-64", "65+"}
	for i := range 60 {
		s, a := (i*7)%4, (i*5)%3
		fmt.Fprintf(&survey, "%s,%s,%d\n", states[s], ages[a], (i*i+s)%3/2)
	}
	for s, st := range states {
		for a, ag := range ages {
			fmt.Fprintf(&census, "%s,%s,%d\n", st, ag, 1000+300*s+700*a)
		}
	}
	surveyCSV := writeFile(t, d, "survey.csv", survey.String())
	censusCSV := writeFile(t, d, "census.csv", census.String())
	fit := func(name, theta string) (sum, drawn, stderr string) {
		t.Helper()
		model := writeFile(t, d, name, strings.Replace(groupSumMRP, "THETA", theta, 1))
		out := filepath.Join(d, "fit-"+name)
		args := []string{"fit", model, surveyCSV, censusCSV, "--iter", "300", "--output-draws", "40", "--seed", "3", "--out", out}
		code, _, stderr := runSafe(t, args...)
		if code != 0 {
			t.Fatalf("gpp %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		return readFile(t, filepath.Join(out, "summary.csv")), draws(readFile(t, filepath.Join(out, "draws.csv"))), stderr
	}
	sum, drawn, stderr := fit("gs.gpp", "output theta = group_sum(count .* p_cell, cstate, S) / group_sum(count, cstate, S)")
	sumW, drawnW, stderrW := fit("w.gpp", "let W = ((cumsum(rep(1, S)) - 1) * rep(1, M)' == rep(1, S) * cstate')\noutput theta = (W * (count .* p_cell)) / (W * count)")
	if sum != sumW || drawn != drawnW {
		t.Errorf("group_sum's fit differs from the hand-made matrix's:\n%s\nwant\n%s", sum, sumW)
	}
	for _, st := range states {
		if !strings.Contains(sum, "\ntheta["+st+"],") {
			t.Errorf("summary.csv has no theta[%s]:\n%s", st, sum)
		}
	}
	if strings.Contains(stderr, "order is their meaning") || !strings.Contains(stderrW, "order is their meaning") {
		t.Errorf("group_sum's codes taken for numbers in order, or the hand-made matrix's not:\n%s\nhand-made:\n%s", stderr, stderrW)
	}

	// 1-based numeric state codes: an error at the first one out of range
	src := strings.Replace(groupSumMRP, "THETA", "output theta = group_sum(count, cstate, S)", 1)
	src = strings.Replace(src, "data cstate: int<lower=0, upper=S-1>[M]", "data cstate: int[M]", 1) // numbers, S from the survey
	src = strings.Replace(src, "let p_cell = inv_logit(a0 + sd_s * z_s[cstate] + u_a[cage])\n", "", 1)
	model := writeFile(t, d, "one.gpp", src)
	numeric := writeFile(t, d, "census1.csv", "cstate,cage,count\n1,18-34,1000\n2,35-64,1200\n4,65+,900\n3,18-34,800\n")
	code, _, stderr := runSafe(t, "fit", model, surveyCSV, numeric, "--iter", "50", "--out", filepath.Join(d, "fit-one"))
	want := numeric + ":4:1: group_sum: g[2] = 4 is out of range [0, 4) as a group code (used at " + model + ":14:33)"
	hint := "group codes are 0-based and these run from 1 to 4, as Stan's 1-based ids do: pass g - 1"
	if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, hint) {
		t.Errorf("1-based codes: exit %d, stderr\n%s\nwant …%s…%s", code, stderr, want, hint)
	}
}

// TestPredictMRPCensusSizes: poststratifying on the census alone with gpp
// predict binds the sizes that the fit took from labels: A from cage's
// labels as the fit coded them, and, where the new data hold no column
// of age labels at all, from the fit's shape of u_a, with a note; the
// census's theta is the fit's. --levels is the fit's, or an error.
func TestPredictMRPCensusSizes(t *testing.T) {
	d := t.TempDir()
	survey := writeFile(t, d, "survey.csv", "state,age,y\nNY,18-34,1\nAK,65+,0\nTX,35-64,1\nNY,65+,0\nOH,18-34,1\nAK,35-64,1\nTX,65+,0\n")
	census := writeFile(t, d, "census.csv", "cstate,cage,count\nNY,18-34,1000\nNY,65+,300\nAK,35-64,200\nTX,18-34,900\nOH,65+,400\nOH,35-64,100\n")
	model := writeFile(t, d, "mrp.gpp", strings.Replace(groupSumMRP, "THETA", "output theta = group_sum(count .* p_cell, cstate, S) / group_sum(count, cstate, S)", 1))
	fit := filepath.Join(d, "fit")
	if code, _, stderr := runSafe(t, "fit", model, survey, census, "--quiet", "--iter", "200", "--output-draws", "30", "--out", fit); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	out := filepath.Join(d, "pred")
	code, _, stderr := runSafe(t, "predict", fit, model, census, "--out", out)
	if note := `column "cage": 3 labels coded as the fit coded its 3 (18-34 0, 35-64 1, 65+ 2); A = 3 from the fit's count`; code != 0 || !strings.Contains(stderr, note) {
		t.Fatalf("predict on the census: exit %d, stderr:\n%s\nwant the note %q", code, stderr, note)
	}
	if got, want := drawsColumn(t, filepath.Join(out, "draws.csv"), "theta.3"), drawsColumn(t, filepath.Join(fit, "draws.csv"), "theta.3"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("theta[TX] from predict %v, the fit's %v", got, want)
	}
	// --levels as the fit's command line gives it: the fit's order is
	// accepted, another (or one for data the fit coded no labels for) is
	// an error naming the fit's coding
	if code, _, stderr := runSafe(t, "predict", fit, model, census, "--levels", "cage=18-34,35-64,65+", "--quiet", "--out", out); code != 0 {
		t.Errorf("predict with the fit's order: exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = runSafe(t, "predict", fit, model, census, "--levels", "cage=65+,18-34,35-64", "--levels", "count=a,b", "--quiet", "--out", filepath.Join(d, "pred-bad"))
	for _, want := range []string{
		"--levels: cage: the fit coded `cage` 18-34 0, 35-64 1, 65+ 2, not in the order given (65+,18-34,35-64): gpp predict codes the new data's labels as the fit coded them",
		"--levels: count: the fit coded no labels for `count`",
	} {
		if code != exitError || !strings.Contains(stderr, want) {
			t.Errorf("predict with another order: exit %d, stderr:\n%s\nwant %q", code, stderr, want)
		}
	}
	// no age column: A from u_a's shape in the fit
	byState := writeFile(t, d, "m2.gpp", strings.Replace(strings.Replace(groupSumMRP, "THETA", "output theta = group_sum(count .* p_cell, cstate, S) / group_sum(count, cstate, S)", 1),
		"data cage: int<lower=0, upper=A-1>[M]\n", "", 1))
	byState = writeFile(t, d, "m2.gpp", strings.Replace(readFile(t, byState), " + u_a[cage])", ")", 1))
	states := writeFile(t, d, "states.csv", "cstate,count\nNY,1\nTX,2\n")
	code, _, stderr = runSafe(t, "predict", fit, byState, states, "--out", filepath.Join(d, "pred2"))
	if note := "--set A=3 from the fit (the size of param u_a's shape there; the new data do not bind it)"; code != 0 || !strings.Contains(stderr, note) {
		t.Errorf("predict without age labels: exit %d, stderr:\n%s\nwant the note %q", code, stderr, note)
	}
}

// TestFitOrdersQuotesLabels: predict's --levels error shows the order
// given as --levels takes it, a label holding a comma quoted ("BLUE,
// EARTH" is one label, not two), and cut to its first and last labels.
func TestFitOrdersQuotesLabels(t *testing.T) {
	fit := map[string]data.Levels{"county": {Labels: []string{"AITKIN", "BLUE, EARTH"}}}
	err := fitOrders(levelFlags{"county": {"BLUE, EARTH", "AITKIN"}}, fit)
	if want := `not in the order given ("BLUE, EARTH",AITKIN)`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("fitOrders: %v, want %q", err, want)
	}
	if got, want := shortList([]string{"a", "b", "c, d", "e"}, 3), `a,b,…,e`; got != want {
		t.Errorf("shortList of 4 at most 3: %q, want %q", got, want)
	}
}

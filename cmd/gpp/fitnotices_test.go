package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// positionedWarning matches the first line of a positioned warning as
// printError prints it: file:line:col: warning: message.
var positionedWarning = regexp.MustCompile(`^(.+:\d+:\d+): warning: (.*)$`)

// printedNotices returns the warnings and hints in stderr, in order, as
// fit.json should list them: the text after "gpp: warning: " or "gpp:
// hint: ", a positioned warning as file:line:col: message.
func printedNotices(stderr string) (warnings, hints []string) {
	warnings, hints = []string{}, []string{}
	for _, line := range strings.Split(stderr, "\n") {
		if w, ok := strings.CutPrefix(line, "gpp: warning: "); ok {
			warnings = append(warnings, w)
		} else if h, ok := strings.CutPrefix(line, "gpp: hint: "); ok {
			hints = append(hints, h)
		} else if m := positionedWarning.FindStringSubmatch(line); m != nil {
			warnings = append(warnings, m[1]+": "+m[2])
		}
	}
	return warnings, hints
}

// fitJSONNotices returns fit.json's warnings and hints in dir.
func fitJSONNotices(t *testing.T, dir string) (warnings, hints []string) {
	t.Helper()
	ff := readJSONObject(t, filepath.Join(dir, "fit.json"))
	list := func(key string) []string {
		v, ok := ff[key].([]any)
		if !ok {
			t.Fatalf("%s/fit.json: %s is %v, want an array", dir, key, ff[key])
		}
		out := []string{}
		for _, x := range v {
			out = append(out, x.(string))
		}
		return out
	}
	return list("warnings"), list("hints")
}

// checkNotices checks that fit.json in dir lists exactly the warnings and
// hints stderr printed, in order.
func checkNotices(t *testing.T, dir, stderr string) (warnings, hints []string) {
	t.Helper()
	pw, ph := printedNotices(stderr)
	warnings, hints = fitJSONNotices(t, dir)
	if !slices.Equal(warnings, pw) {
		t.Errorf("fit.json warnings\n%q\nwant the printed\n%q", warnings, pw)
	}
	if !slices.Equal(hints, ph) {
		t.Errorf("fit.json hints\n%q\nwant the printed\n%q", hints, ph)
	}
	return warnings, hints
}

// naninfModel's outputs overflow and are NaN in every draw, and its param
// B is read nowhere (a check warning, printed before the fit).
const naninfModel = `param mu: real ~ Normal(0, 1)
output big = exp(1000 + mu)
output nn = log(mu - 100)
param B: real[2] ~ Normal(0, 1)
`

// TestFitJSONWarnings: fit.json's warnings are every warning gpp fit
// prints, the model's (before the fit, positioned) and the draws'
// (after the summary), not the engine's alone (an MLOps trial found
// "warnings": [] beside "nn is NaN in every draw").
func TestFitJSONWarnings(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "naninf.gpp", naninfModel)
	out := filepath.Join(dir, "out")
	code, _, stderr := runSafe(t, "fit", model, "--quiet", "--iter", "300", "--output-draws", "50", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d, stderr\n%s", code, stderr)
	}
	warnings, hints := checkNotices(t, out, stderr)
	all := strings.Join(warnings, "\n")
	for _, want := range []string{
		"50 of 50 output draws had a non-finite log joint or output",
		"nn is NaN in every draw",
		model + ":4:7: param `B` is read nowhere",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("fit.json warnings %q: want one with %q", warnings, want)
		}
	}
	if len(hints) != 0 {
		t.Errorf("fit.json hints %q: want none", hints)
	}

	// a warning printed before the fit (setMinibatch's), between the
	// model's and the fit's
	data := writeFile(t, dir, "y.csv", "y\n0.1\n0.3\n-0.2\n0.5\n1.1\n-0.7\n")
	mb := writeFile(t, dir, "mb.gpp", "data y: real[N]\nparam a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0, 1)\ny ~ Normal(a + b, 1)\n")
	out = filepath.Join(dir, "mb")
	code, _, stderr = runSafe(t, "fit", mb, data, "--quiet", "--iter", "300", "--output-draws", "50", "--minibatch", "N=3", "--fullrank", "a+b", "--out", out)
	if code != exitOK {
		t.Fatalf("--minibatch: exit %d, stderr\n%s", code, stderr)
	}
	if warnings, _ = checkNotices(t, out, stderr); !strings.HasPrefix(strings.Join(warnings, "\n"), "--fullrank with --minibatch: ") {
		t.Errorf("--minibatch: fit.json warnings %q: want --fullrank with --minibatch's first", warnings)
	}
}

// TestFitJSONHints: fit.json's hints are the hints gpp fit prints (the
// mean-field hint of TestFitMeanFieldHint's model), and a healthy fit's
// are [].
func TestFitJSONHints(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	model, data := heteroscedastic(t, dir)
	out := filepath.Join(dir, "mf")
	code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d, stderr\n%s", code, stderr)
	}
	_, hints := checkNotices(t, out, stderr)
	if !strings.Contains(strings.Join(hints, "\n"), "b's and a's sds are about") {
		t.Errorf("fit.json hints %q: want the mean-field hint", hints)
	}

	healthy := writeFile(t, dir, "n.gpp", "data y: real[N]\nparam m: real ~ Normal(0, 5)\ny ~ Normal(m, 1)\n")
	out = filepath.Join(dir, "healthy")
	code, _, stderr = runSafe(t, "fit", healthy, data, "--quiet", "--out", out)
	if code != exitOK || stderr != "" {
		t.Fatalf("healthy fit: exit %d, stderr\n%s", code, stderr)
	}
	if w, h := fitJSONNotices(t, out); len(w) != 0 || len(h) != 0 {
		t.Errorf("healthy fit: fit.json warnings %q, hints %q: want [] and []", w, h)
	}
}

// TestReplFitJSONWarnings: :fit --out's fit.json lists the warnings :fit
// prints, the load's with them.
func TestReplFitJSONWarnings(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "naninf.gpp", naninfModel)
	out := filepath.Join(dir, "out")
	r, _, errb := newTestRepl()
	typeIn(r, ":load "+model, ":fit --quiet --iter 300 --output-draws 50 --out "+out)
	stderr := errb.String()
	warnings, _ := checkNotices(t, out, stderr)
	all := strings.Join(warnings, "\n")
	for _, want := range []string{"50 of 50 draws had a non-finite log joint or output", "nn is NaN in every draw", "param `B` is read nowhere"} {
		if !strings.Contains(all, want) {
			t.Errorf("fit.json warnings %q: want one with %q", warnings, want)
		}
	}

	// a warning printed before the fit (setMinibatch's) is listed first
	data := writeFile(t, dir, "y.csv", "y\n0.1\n0.3\n-0.2\n0.5\n1.1\n-0.7\n")
	mb := writeFile(t, dir, "mb.gpp", "data y: real[N]\nparam a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0, 1)\ny ~ Normal(a + b, 1)\n")
	out = filepath.Join(dir, "mb")
	r, _, errb = newTestRepl()
	typeIn(r, ":load "+mb, ":data "+data, ":fit --quiet --iter 300 --output-draws 50 --minibatch N=3 --fullrank a+b --out "+out)
	if warnings, _ = checkNotices(t, out, errb.String()); !strings.HasPrefix(strings.Join(warnings, "\n"), "--fullrank with --minibatch: ") {
		t.Errorf("--minibatch: fit.json warnings %q: want --fullrank with --minibatch's first", warnings)
	}
}

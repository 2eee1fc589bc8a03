package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPredictOtherModel: gpp predict with a model other than the fit's
// (fit.json's model_sha256) warns that the params must mean what they
// meant in the fit, naming both models, and still predicts (adding an
// output is its usual use); the fit's own model gets no such warning. It
// said nothing, while gpp sensitivity refuses such a model.
func TestPredictOtherModel(t *testing.T) {
	dir := t.TempDir()
	fit := fitInto(t, dir, "fit", poissonModel, poissonData, "--iter", "300", "--output-draws", "20")
	src, err := os.ReadFile(poissonModel)
	if err != nil {
		t.Fatal(err)
	}
	changed := writeFile(t, dir, "changed.gpp", string(src)+"output thrice = 3 * lambda\n")
	const warn = "is not the model of the fit at"
	for _, c := range []struct {
		model string
		warns bool
	}{{changed, true}, {poissonModel, false}} {
		code, _, stderr := runSafe(t, "predict", fit, c.model, poissonData, "--quiet", "--out", filepath.Join(dir, "pred-"+filepath.Base(c.model)))
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", c.model, code, stderr)
		}
		if got := strings.Contains(stderr, warn); got != c.warns {
			t.Errorf("%s: warning %v, want %v; stderr:\n%s", c.model, got, c.warns, stderr)
		}
		if c.warns && !strings.Contains(stderr, "gpp: warning: "+changed+" is not the model of the fit at "+filepath.Join(fit, "fit.json")+" ("+poissonModel+"; their sha256 differ)") {
			t.Errorf("the warning does not name both models:\n%s", stderr)
		}
	}
}

// TestHeaderOnlyData: a CSV file with a header and no rows binds N = 0 and
// gpp check (as every command that loads data) warns of it, naming the
// file; it fitted the prior in silence.
func TestHeaderOnlyData(t *testing.T) {
	csv := writeFile(t, t.TempDir(), "empty.csv", "y\n")
	code, _, stderr := runSafe(t, "check", poissonModel, csv)
	if code != exitOK || !strings.Contains(stderr, "gpp: warning: "+csv+" has a header and no rows: y is empty (0 elements, N = 0)") {
		t.Errorf("exit %d; stderr:\n%s", code, stderr)
	}
}

// TestUnderflowData: a data cell written 1e-400, nearer 0 than any
// float64, is read as 0 with a warning at its cell from every command
// that loads data (it became 0 in silence); 1e-300 is read as written.
func TestUnderflowData(t *testing.T) {
	dir := t.TempDir()
	csv := writeFile(t, dir, "tiny.csv", "y\n1e-300\n1e-400\n")
	model := writeFile(t, dir, "m.gpp", "data y: real[N]\nparam mu: real ~ Normal(0, 10)\ny ~ Normal(mu, 1)\n")
	code, _, stderr := runSafe(t, "check", model, csv)
	if !strings.Contains(stderr, "gpp: warning: "+csv+":3:1: y[1] is written 1e-400, nearer 0 than the smallest float64") || strings.Contains(stderr, "1e-300") {
		t.Errorf("exit %d; stderr:\n%s", code, stderr)
	}
}

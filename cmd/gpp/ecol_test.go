package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/parser"
)

// TestRidgeWarning: a Cormack–Jolly–Seber model with time-varying phi and
// p, of which only phi[6]·p[6] is identified (an ecologist's trial of
// 2026-12-01), bends the wrong way, barely, along phi[6] against p[6] at
// q's mode: the fit warns of the ridge, naming both, on the console and
// in fit.json, where it had said nothing (k̂ 0.677 "ok").
func TestRidgeWarning(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runSafe(t, "fit", "testdata/ridge_cjs.gpp", "testdata/ridge_cjs.json", "--quiet", "--out", out)
	const want = "a direction is not identified: the log density at q's mode bends the wrong way, and barely, along a combination of phi[6], p[6] ("
	if code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "so the data fix only a combination of them, not each") ||
		!strings.Contains(stderr, "mean-field sds far too small") {
		t.Fatalf("exit %d, want the ridge warning; stderr\n%s", code, stderr)
	}
	if w := fitJSONWarnings(t, out); !strings.Contains(strings.Join(w, "\n"), want) {
		t.Errorf("fit.json's warnings %q lack the ridge", w)
	}
}

// TestRidgeWarningCases: the ridge warning needs −H not positive definite
// (the check's error), a direction of two or more elements and a wrong-way
// bend under ridgeBend in size; a funnel's bend (−0.39, seeds.gpp), a flat
// direction (flatWarning's) and a positive definite −H are no ridge.
func TestRidgeWarningCases(t *testing.T) {
	names := []string{"phi[6]", "p[6]", "b"}
	warn := func(vec []float64, bend float64, err error) string {
		f := &sgvb.FlatDirection{Vec: vec, Lambda: bend, QVar: 1}
		return ridgeWarning(&curvCheck{c: &sgvb.Curvature{Flat: f}, names: names}, err)
	}
	notPD := sgvb.ErrNotDefinite
	if w := warn([]float64{-0.91, 0.41, 0}, -0.014, notPD); !strings.Contains(w, "along a combination of phi[6], p[6] (") || !strings.Contains(w, "bend −0.014") {
		t.Errorf("CJS's ridge: %q", w)
	}
	// b the sigma of a ~ on phi: a funnel's bend, not a ridge
	stmts, err := parser.ParseStmts("m.gpp", []byte("phi ~ Normal(0, b)\n"))
	if err != nil {
		t.Fatal(err)
	}
	tilde := stmts[0].(*ast.TildeStmt)
	f := &sgvb.FlatDirection{Vec: []float64{-0.91, 0, 0.41}, Lambda: -0.014, QVar: 1}
	cc := &curvCheck{c: &sgvb.Curvature{Flat: f}, names: names, lats: []int{0, 1, 2},
		r:      &sgvb.Result{Factors: []sgvb.Factor{{Name: "phi"}, {Name: "p"}, {Name: "b"}}},
		scaled: []scaledPair{{scale: "b", variate: "phi", stmt: tilde}}}
	if w := ridgeWarning(cc, notPD); !strings.HasPrefix(w, scaledBendLead) || !strings.Contains(w, "b is the scale of phi") {
		t.Errorf("a scale against its variate: %q", w)
	}
	cc.scaled[0].variate = "p" // b scales p, not in the direction
	if w := ridgeWarning(cc, notPD); !strings.HasPrefix(w, ridgeLead) {
		t.Errorf("a scale of another param: %q", w)
	}
	for _, c := range []struct {
		name string
		vec  []float64
		bend float64
		err  error
	}{
		{"a funnel", []float64{-0.91, 0.41, 0}, -0.39, notPD},
		{"flat", []float64{-0.91, 0.41, 0}, -1e-6, notPD},
		{"positive definite", []float64{-0.91, 0.41, 0}, 0.014, nil},
		{"bends right", []float64{-0.91, 0.41, 0}, 0.014, notPD},
		{"one element", []float64{0, 0, 1}, -0.014, notPD},
		{"no error", []float64{-0.91, 0.41, 0}, -0.014, nil},
	} {
		if w := warn(c.vec, c.bend, c.err); w != "" {
			t.Errorf("%s: %q, want none", c.name, w)
		}
	}
}

// TestProfileLogZeroTakenIn: --profile applies the fit's rule to a −Inf
// that rowlogsumexp takes in (an N-mixture's N below a count y, which
// docs/language.md allows): gpp fit --profile writes profile.csv, where it
// had said the log joint fails at every draw of q.
func TestProfileLogZeroTakenIn(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.gpp", `data y: int[N]
param p: unit ~ Beta(1, 1)
let Nv = abs(linspaced_int_array(11, 0, 10))
let lp = logpdf(y, Binomial(Nv', p))
target += sum(rowlogsumexp(lp))
`)
	dat := writeFile(t, dir, "d.json", `{"y": [3, 7, 0, 5, 9, 2]}`)
	out := filepath.Join(dir, "out")
	code, _, stderr := runSafe(t, "fit", model, dat, "--quiet", "--iter", "300", "--profile", "--out", out)
	if code != 0 || strings.Contains(stderr, "fails at every draw") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, profileFile)); err != nil {
		t.Errorf("no %s: %v; stderr\n%s", profileFile, err, stderr)
	}
}

// TestAllTermsZeroRow: an N-mixture whose grid's bound K = 13 is below a
// count (site 43's y 14) is an error at rowlogsumexp's row 43, the last
// term's Binomial and its data cell, not at the first −Inf of the pass
// (site 0's N = 0 below y 7, a value rowlogsumexp takes in), and gpp
// check, gpp fit and gpp sample say no start helps, not --init; gpp fit
// says so before fitting.
func TestAllTermsZeroRow(t *testing.T) {
	const want = "nmix_k13.gpp:14:15: rowlogsumexp: every term of row 43 is -Inf, so its log of a sum is -Inf; its last term's Binomial log density is -Inf at value 14 (n 13, p 0.5, element [43, 13]); the value is y's at testdata/nmix_k13.json:1:611; the value is above the last term's upper end 13, as a count y above an abundance grid's bound K is; no value of the params makes a term of it finite"
	code, _, stderr := runSafe(t, "check", "testdata/nmix_k13.gpp", "testdata/nmix_k13.json")
	if code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, dataOnlyNote) || strings.Contains(stderr, startNote) {
		t.Errorf("check: exit %d; stderr\n%s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr = runSafe(t, "fit", "testdata/nmix_k13.gpp", "testdata/nmix_k13.json", "--quiet", "--out", out)
	if code != exitError || !strings.Contains(stderr, dataOnlyNote) || strings.Contains(stderr, "--init FILE") || strings.Contains(stderr, "stopped at iteration") {
		t.Errorf("fit: exit %d; stderr\n%s", code, stderr) // stopped before fitting
	}
	code, _, stderr = runSafe(t, "sample", "testdata/nmix_k13.gpp", "testdata/nmix_k13.json", "--quiet", "--out", out+"-sample")
	if code != exitError || !strings.Contains(stderr, dataOnlyNote) || strings.Contains(stderr, startNote) {
		t.Errorf("sample: exit %d; stderr\n%s", code, stderr)
	}
}

// TestHMMZeroStepRow: a zero step under Gamma, −Inf in every state of an
// HMM's log_omega (user trial t77's mistake e7), is an error of the data
// alone — Gamma's support excludes 0 whatever the params — worded "its
// last term's log density is -Inf", and gpp fit stops before fitting, not
// after 50 iterations with a non-finite log joint and a --init note.
func TestHMMZeroStepRow(t *testing.T) {
	const want = "hmm_zero_step.gpp:12:11: hmm_marginal: every state's log density in row 12 of log_omega is -Inf, so no path of states gives that observation a density; its last term's log density is -Inf: value 0 outside the support of Gamma (element [12, 1]); the value is step's at testdata/hmm_zero_step.csv:14:1; " + autodiff.NoTermNote
	code, _, stderr := runSafe(t, "check", "testdata/hmm_zero_step.gpp", "testdata/hmm_zero_step.csv")
	if code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, dataOnlyNote) {
		t.Errorf("check: exit %d; stderr\n%s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr = runSafe(t, "fit", "testdata/hmm_zero_step.gpp", "testdata/hmm_zero_step.csv", "--quiet", "--out", out)
	if code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, dataOnlyNote) ||
		strings.Contains(stderr, "--init FILE") || strings.Contains(stderr, "stopped at iteration") {
		t.Errorf("fit: exit %d; stderr\n%s", code, stderr)
	}
}

// TestFunnelNotRidge: a nowcast's random walk over log intensities with a
// day of zero reports (user trial t68) bends the wrong way, barely, at
// the mean-field q's mode along the step sd sig against loglam[25], both
// of which NUTS identifies: the fit names the funnel and the walk's
// banded factor, not a ridge to fix one of them by.
func TestFunnelNotRidge(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runSafe(t, "fit", "testdata/nowcast_zerorow.gpp", "testdata/nowcast_zerorow.json", "--quiet", "--out", out)
	const want = "a funnel at q's mode, not a ridge: the log density there bends the wrong way, barely, along a combination of sig, loglam[25] ("
	if code != 0 || !strings.Contains(stderr, want) || strings.Contains(stderr, ridgeLead) ||
		!strings.Contains(stderr, "sig is the scale of loglam at 7:1, loglam[1:] ~ Normal(loglam[:T - 1], sig)") ||
		!strings.Contains(stderr, "--fullrank loglam --band 1 holds the chain (the random-walk hint)") {
		t.Fatalf("exit %d, want the funnel warning; stderr\n%s", code, stderr)
	}
}

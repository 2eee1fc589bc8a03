package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
)

// TestScaledPairsDeclPrior: a declaration's prior, param u_t: real[J] ~
// Normal(0, tau_t), scales u_t by tau_t as a ~ statement does, so a
// wrong-way bend along tau_t, tau_s and u_t[25] (a value-added model's, a
// user trial of 2026-12-02: NUTS identifies tau_t 0.213 ± 0.022, tau_s
// 0.152 ± 0.034) is a funnel's, not a ridge whose cure is to fix one.
func TestScaledPairsDeclPrior(t *testing.T) {
	src, err := os.ReadFile("testdata/funnel_va.gpp")
	if err != nil {
		t.Fatal(err)
	}
	file, info := checkedSrc(t, string(src))
	ps := scaledPairs(&pipeline.Loaded{File: file, Info: info, Model: &compile.Model{}})
	var got []string
	for _, p := range ps {
		got = append(got, p.scale+" "+p.variate)
	}
	if strings.Join(got, ", ") != "tau_s u_s, tau_t u_t" {
		t.Fatalf("scaled pairs %q, want tau_s u_s, tau_t u_t", got)
	}
	names := []string{"tau_t", "tau_s", "u_s[3]", "u_t[25]"}
	f := &sgvb.FlatDirection{Vec: []float64{0.7, -0.5, 0.05, 0.5}, Lambda: -0.092, QVar: 1}
	cc := &curvCheck{c: &sgvb.Curvature{Flat: f}, names: names, lats: []int{0, 1, 2, 3},
		r:      &sgvb.Result{Factors: []sgvb.Factor{{Name: "tau_t"}, {Name: "tau_s"}, {Name: "u_s"}, {Name: "u_t"}}},
		scaled: ps}
	w := ridgeWarning(cc, sgvb.ErrNotDefinite)
	if !strings.HasPrefix(w, scaledBendLead) || !strings.Contains(w, "along a combination of tau_t, tau_s, u_t[25] (") ||
		!strings.Contains(w, "tau_t is the scale of u_t at 17:1, param u_t: real[J] ~ Normal(0, tau_t):") || strings.Contains(w, "fix or share") {
		t.Errorf("a funnel's bend read as: %q", w)
	}
}

// TestFunnelVAWarning: the centred value-added model on a small simulation
// (funnel_va.csv) bends the wrong way along tau_t and u_t[23] at q's mode;
// the fit warns of a funnel there, not of a direction the data do not
// identify, on the console and in fit.json.
func TestFunnelVAWarning(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runSafe(t, "fit", "testdata/funnel_va.gpp", "testdata/funnel_va.csv", "--quiet", "--out", out)
	const want = "a funnel at q's mode, not a ridge: the log density there bends the wrong way, barely, along a combination of tau_t, u_t[23] ("
	if code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "tau_t is the scale of u_t at 17:1") || strings.Contains(stderr, ridgeLead) {
		t.Fatalf("exit %d, want the funnel warning; stderr\n%s", code, stderr)
	}
	if w := fitJSONWarnings(t, out); !strings.Contains(strings.Join(w, "\n"), want) {
		t.Errorf("fit.json's warnings %q lack the funnel", w)
	}
}

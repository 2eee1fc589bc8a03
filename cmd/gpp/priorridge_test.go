package main

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
)

// priorRidgeSrc is an energy trial's non-centred hierarchy (m3bn.gpp, cut
// down) with a pair a, b that the data fix only as a + b: flat priors on
// a, a proper one on b, a Beta(1, 1) on the unit p.
const priorRidgeSrc = `data N: int
data S: int
data st: int<lower=0, upper=S-1>[N]
data x: real[N]
data y: real[N]
param mc: real ~ Normal(0, 1)
param sc: positive ~ HalfNormal(1)
param zc: real[S] ~ Normal(0, 1)
param a: real
param b: real ~ Normal(0, 10)
param p: unit ~ Beta(1, 1)
param q: unit ~ Beta(2, 2)
param u: real
u ~ Normal(0, 1)
param v: real ~ Normal(mc, 1)
let bc = exp(mc + sc * zc)
y ~ Normal(a + b + bc[st] .* x + p + q + u + v, 1)
`

// TestPriorRidgeWarning: a wrong-way bend along a non-centred param and
// its scale (the energy trial's sc against zc[…], bend −0.0023), each
// with a prior that bounds it, is no unidentified direction: the warning
// says the priors bound it and points to the centred form of zc, not
// "fix or share one of them" (the trial's mean-field mh was 0.574 ±
// 0.0024 against the centred 0.233 ± 0.109). Along a param with a flat
// prior (a, with b) or a Beta(1, 1) one, the direction is still called
// not identified.
func TestPriorRidgeWarning(t *testing.T) {
	file, info := checkedSrc(t, priorRidgeSrc)
	l := &pipeline.Loaded{File: file, Info: info, Model: &compile.Model{}}
	priored := boundedPriors(l)
	for name, want := range map[string]bool{"mc": true, "sc": true, "zc": true, "a": false, "b": true, "p": false, "q": true, "u": true, "v": false} {
		if priored[name] != want {
			t.Errorf("boundingPrior(%s) = %v, want %v", name, priored[name], want)
		}
	}
	nc := nonCentredScales(l)
	if got := strings.Join(nc["zc"], " "); got != "sc" || len(nc) != 1 {
		t.Fatalf("non-centred scales %q, want zc: sc", nc)
	}
	names := []string{"sc", "zc[1]", "zc[5]", "mc", "a", "b", "p"}
	lats := []int{0, 1, 1, 2, 3, 4, 5}
	factors := []sgvb.Factor{{Name: "sc"}, {Name: "zc"}, {Name: "mc"}, {Name: "a"}, {Name: "b"}, {Name: "p"}}
	warn := func(vec []float64) string {
		f := &sgvb.FlatDirection{Vec: vec, Lambda: -0.0023, QVar: 1}
		cc := &curvCheck{c: &sgvb.Curvature{Flat: f}, names: names, lats: lats, r: &sgvb.Result{Factors: factors},
			priored: priored, ncScales: nc}
		return ridgeWarning(cc, sgvb.ErrNotDefinite)
	}
	w := warn([]float64{0.6, 0.5, 0.4, 0.1, 0, 0, 0})
	if !strings.HasPrefix(w, priorRidgeLead) || !strings.Contains(w, "along the sum of sc, zc[1], zc[5] (") ||
		!strings.Contains(w, "the centred form of zc has no such ridge") || strings.Contains(w, "fix or share") {
		t.Errorf("a non-centred ridge: %q", w)
	}
	if w := warn([]float64{0, 0, 0, 0.6, 0, 0.7, 0}); !strings.HasPrefix(w, priorRidgeLead) || strings.Contains(w, "centred form") ||
		!strings.Contains(w, "--fullrank") {
		t.Errorf("a ridge the priors bound, no hierarchy: %q", w)
	}
	for _, vec := range [][]float64{
		{0, 0, 0, 0, 0.7, 0.7, 0},   // a (flat) + b
		{0.6, 0.5, 0, 0, 0, 0, 0.5}, // p's Beta(1, 1) is flat
	} {
		if w := warn(vec); !strings.HasPrefix(w, ridgeLead) || !strings.Contains(w, "fix or share one of them") {
			t.Errorf("%v: %q, want the not-identified warning", vec, w)
		}
	}
}

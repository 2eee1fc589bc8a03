package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// TestCentreCovariateHint: an intercept plus a slope on an uncentred
// covariate (log x, mean about 9) moves b0 and b1 together at |r| near
// 1, and the curvature hint advises centring log(x), with its mean (a
// road-safety trial's SPF on log AADT gave no such advice).
func TestCentreCovariateHint(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.gpp", "data x: positive[N]\ndata y: real[N]\nparam b0: real ~ Normal(0, 10)\nparam b1: real ~ Normal(0, 10)\nparam s: positive ~ HalfNormal(1)\ny ~ Normal(b0 + b1 * log(x), s)\n")
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("x,y\n")
	sum := 0.0
	const n = 200
	for range n {
		lx := 9 + 0.3*rng.NormFloat64()
		sum += lx
		fmt.Fprintf(&b, "%.6f,%.6f\n", math.Exp(lx), 1+0.5*(lx-9)+0.2*rng.NormFloat64())
	}
	csv := writeFile(t, dir, "d.csv", b.String())
	var stderr strings.Builder
	cfg, code, ok := parseFitArgs([]string{model, csv}, io.Discard, &stderr)
	if !ok {
		t.Fatalf("parse: exit %d\n%s", code, &stderr)
	}
	l, err := pipeline.Load(model, []string{csv}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sgvb.Fit(context.Background(), runTarget(cfg, l.Model), pipeline.Latents(l.Model), cfg.settings)
	if err != nil {
		t.Fatal(err)
	}
	cc, skipped := meanFieldCurvature(context.Background(), cfg.settings, l, r)
	if cc == nil {
		t.Fatalf("no curvature check: %s", skipped)
	}
	want := fmt.Sprintf("centre log(x) (subtract its mean, %.3g, in the model or the data): b0 is then the value at the mean, b0 and b1 separate", sum/n)
	if h := curvatureHint(cc); !strings.Contains(h, want) {
		t.Errorf("hint %q, want it to contain %q", h, want)
	}
	if got := centreText(cc.covTerms, "b0", "b1", -0.9); got != "" {
		t.Errorf("at correlation −0.9: %q, want none", got)
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// TestMildCurvatureHintAutoNone: where --fullrank auto found no joint
// factor to refit with, the mild curvature hint points to gpp sample,
// not back to --fullrank auto, which the note above it just ruled out.
func TestMildCurvatureHintAutoNone(t *testing.T) {
	cc := &curvCheck{
		c:     &sgvb.Curvature{Ratio: []float64{1.37, 1.1, 1.3}, Partner: []int{2, 0, 0}, Corr: []float64{-0.6, 0.1, -0.6}},
		names: []string{"b0", "k", "b1"}, lats: []int{0, 1, 2},
		r: &sgvb.Result{Factors: []sgvb.Factor{{Name: "b0", Size: 1}, {Name: "k", Size: 1, Offset: 1}, {Name: "b1", Size: 1, Offset: 2}}},
	}
	cc.autoNone = true
	h := curvatureHint(cc)
	if !strings.HasPrefix(h, "b0's and b1's sds are about 1.4× and 1.3× too small") ||
		strings.Contains(h, "--fullrank auto refits") || !strings.Contains(h, "found no joint factor") || !strings.Contains(h, "gpp sample --against is the check") {
		t.Errorf("hint %q: want the sds named, gpp sample as the check and no advice to refit with --fullrank auto", h)
	}
}

// TestMildCurvatureHintKnownCov: where a known-covariance hint covers z,
// the mild curvature hint points to it, not to --fullrank auto, whose
// joint factor would hold z, which that hint says none mends; with no
// such hint it names --fullrank auto. (The full hint's case: a fit in
// TestKnownCovHintFit.)
func TestMildCurvatureHintKnownCov(t *testing.T) {
	for _, c := range []struct {
		knownCov []string
		want     string
	}{
		{[]string{"z"}, "a joint factor that holds z does not mend this: q cannot follow the funnel of a random effect with a known covariance (the hint above)"},
		{nil, "--fullrank auto refits with a joint factor"},
	} {
		h := curvatureHint(&curvCheck{
			c:     &sgvb.Curvature{Ratio: []float64{1.37, 1, 1}, Partner: []int{1, 0, -1}, Corr: []float64{0.6, 0.6, 0}},
			names: []string{"mu", "z[0]", "z[1]"}, lats: []int{0, 1, 1},
			r:        &sgvb.Result{Factors: []sgvb.Factor{{Name: "mu", Size: 1}, {Name: "z", Size: 2, Offset: 1}}},
			knownCov: c.knownCov,
		})
		if !strings.HasPrefix(h, "mu's sd is about 1.4× too small") || !strings.Contains(h, c.want) || c.knownCov != nil && strings.Contains(h, "--fullrank auto") {
			t.Errorf("known covariance of %v: hint %q, want it to contain %q", c.knownCov, h, c.want)
		}
	}
}

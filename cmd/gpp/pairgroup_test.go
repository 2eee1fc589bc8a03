package main

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"gonum.org/v1/gonum/mat"
)

// pairCheck is the curvature check of an SPF-like posterior: b0 and b1
// correlated −0.9995 (an uncentred covariate) and a scale s coupled to
// 101 non-centred z, 1.7× too small, which no joint factor within
// sgvb.MaxFullRank elements repairs (s+z holds 102).
func pairCheck(t *testing.T) *curvCheck {
	t.Helper()
	const nz = 101
	n := 3 + nz
	L := mat.NewSymDense(n, nil)
	for i := range n {
		L.SetSym(i, i, 1)
	}
	L.SetSym(0, 1, 0.9995)
	for k := range nz {
		L.SetSym(2, 3+k, 0.08)
	}
	c, err := sgvb.CurvatureOfPrecision(L)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"b0", "b1", "s"}
	lats := []int{0, 1, 2}
	for range nz {
		names, lats = append(names, "z"), append(lats, 3)
	}
	return &curvCheck{
		c: c, names: names, lats: lats, all: n,
		r: &sgvb.Result{Factors: []sgvb.Factor{{Name: "b0", Size: 1}, {Name: "b1", Size: 1, Offset: 1}, {Name: "s", Size: 1, Offset: 2}, {Name: "z", Size: nz, Offset: 3}}},
	}
}

// TestPairGroupHint: where no group within the limits repairs every sd,
// the curvature hint names the pair that repairs the worst (b0+b1), not
// "no joint factor … is enough", and --fullrank auto refits with it first
// (a road-safety trial's SPF: b0+b1 gained 0.35 nats over the low-rank
// fit auto kept, b0's sd 0.225 against its 0.059, NUTS 0.436).
func TestPairGroupHint(t *testing.T) {
	cc := pairCheck(t)
	bad := cc.bad(curvRatio)
	if len(bad) != 3 || cc.names[bad[2]] != "s" {
		t.Fatalf("bad %v (ratios %v): want b0, b1 and s", bad, cc.c.Ratio[:3])
	}
	if g, _, _ := curvGroup(cc, bad, curvRatio); g != nil {
		t.Fatalf("curvGroup %v: want none within the limits", g)
	}
	h := curvatureHint(cc)
	if !strings.Contains(h, "--fullrank b0+b1 (2 elements) gives the pair one joint factor") || strings.Contains(h, "is enough by that curvature") ||
		!strings.Contains(h, "the others stay up to 1.7× too small") {
		t.Errorf("hint %q: want it naming --fullrank b0+b1 and s's 1.7×", h)
	}
	cands, pair, pn, left := autoGroupCands(cc, bad, nil)
	if len(cands) == 0 || cands[0] != "b0+b1" || len(pair) != 2 || pn != 2 || !(left < 1.1) {
		t.Errorf("auto's refits %v (pair %v, %d elements, leaving %.2f×): want b0+b1 first", cands, pair, pn, left)
	}
}

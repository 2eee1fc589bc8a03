package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/autodiff"
)

// TestHugeDataCell: a data value of 1e300 (an energy trial's temperature
// typo) is a float64, so it loads, but a model reading it overflows. The
// load warns at its cell; a density whose argument overflows names that
// cell, followed through a residual's slice r[1:] (element [3] is the
// file's line 6) and a matrix product X * beta, not the demand beside it;
// and the failed fit's hint does not blame bounds or q's gamma start.
func TestHugeDataCell(t *testing.T) {
	if data.HugeValue != autodiff.HugeData { // the load warns of what a density names
		t.Fatalf("data.HugeValue %g, autodiff.HugeData %g: one threshold written twice", data.HugeValue, autodiff.HugeData)
	}
	dir := t.TempDir()
	ar := writeFile(t, dir, "ar.gpp", `data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 2)
param b: positive ~ HalfNormal(2)
param phi: real<lower=-1, upper=1> ~ Uniform(-1, 1)
param s: positive ~ HalfNormal(1)
let r = y - (a + b * x)
r[0] ~ Normal(0, s)
r[1:] ~ Normal(phi * r[:N-1], s)
`)
	lin := writeFile(t, dir, "lin.gpp", `data X: real[N, K]
data y: real[N]
param beta: real[K] ~ Normal(0, 1)
param s: positive ~ HalfNormal(1)
y ~ Normal(X * beta, s)
`)
	rows := []string{"0.1,1.2", "0.5,1.9", "-0.3,0.8", "0.2,1.5", "1e300,1.4", "0.7,2.3", "-0.1,1.1", "0.4,1.6"}
	xy := writeFile(t, dir, "xy.csv", "x,y\n"+strings.Join(rows, "\n")+"\n")
	var xrows []string
	for i, r := range rows {
		x, y, _ := strings.Cut(r, ",")
		if i == 4 {
			x = "0.2"
		}
		z := "0.5"
		if i == 2 {
			z = "-2e300"
		}
		xrows = append(xrows, x+","+z+","+y)
	}
	xcsv := writeFile(t, dir, "X.csv", "X.1,X.2,y\n"+strings.Join(xrows, "\n")+"\n")
	warn := func(at, elem, v string) string {
		return "warning: " + at + ": " + elem + " is " + v + ", above 1e+150 in magnitude: its square"
	}
	code, _, stderr := runSafe(t, "check", ar, xy)
	if w := warn(xy+":6:1", "x[4]", "1e+300"); !strings.Contains(stderr, w) {
		t.Errorf("check of a 1e300 x: want %q:\n%s", w, stderr)
	}
	// r[1:]'s element [3] is r[4], y - (a + b * x) at the file's line 6
	if w, v := "element [3]); the value is ", " because x is 1e+300 at "+xy+":6:1: "+autodiff.HugeDataNote; code != exitError || !strings.Contains(stderr, w) || !strings.Contains(stderr, v) {
		t.Errorf("check of the residual AR: exit %d, want %q and %q:\n%s", code, w, v, stderr)
	}
	code, _, stderr = runSafe(t, "check", lin, xcsv)
	if w := warn(xcsv+":4:6", "X[2, 1]", "-2e+300"); code != exitOK || !strings.Contains(stderr, w) {
		t.Errorf("check of a -2e300 X: exit %d, want %q:\n%s", code, w, stderr)
	}
	code, _, stderr = runSafe(t, "fit", lin, xcsv, "--quiet", "--out", filepath.Join(dir, "f"))
	if w := "because X is -2e+300 at " + xcsv + ":4:6: " + autodiff.HugeDataNote; code != exitError || !strings.Contains(stderr, w) || strings.Contains(stderr, gammaBadNote) {
		t.Errorf("fit of X * beta: exit %d, want %q and not the gamma hint:\n%s", code, w, stderr)
	}
	// 1e100 squares to a float64: no warning
	small := writeFile(t, dir, "small.csv", strings.Replace("x,y\n"+strings.Join(rows, "\n")+"\n", "1e300", "1e100", 1))
	if _, _, stderr := runSafe(t, "check", ar, small); strings.Contains(stderr, "in magnitude") || strings.Contains(stderr, autodiff.HugeDataNote) {
		t.Errorf("check of a 1e100 x: a warning:\n%s", stderr)
	}
}

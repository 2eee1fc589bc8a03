package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// flatStartGPP is a log-logistic dose-response curve with vague priors:
// every param starts at HalfNormal(100)'s mean 79.8, where the curve is
// flat in e and b over the doses x ≤ 2 (model's TestFitRestartsRadiusFlatStart).
const flatStartGPP = `data x: real[N]
data y: real[N]
param d: positive ~ HalfNormal(100)
param e: positive ~ HalfNormal(100)
param b: positive ~ HalfNormal(100)
param sigma: positive ~ HalfNormal(100)
y ~ Normal(d / (1 + (x / e) ^ b), sigma)
`

// TestInitRadiusRecorded: jittered restarts of a model whose priors' means
// lie where the curve is flat all end there, alike (no optima hint);
// --init-radius 2 starts restarts r ≥ 1 at random, some find the curve
// (the optima hint then shows the gap), and fit.json, draws.csv and the
// header record it.
func TestInitRadiusRecorded(t *testing.T) {
	d := t.TempDir()
	var csv strings.Builder
	csv.WriteString("x,y\n")
	for i := range 20 {
		x := 0.1 * float64(i+1)
		fmt.Fprintf(&csv, "%g,%g\n", x, 1/(1+math.Pow(x/0.5, 4))+0.03*math.Sin(float64(7*i)))
	}
	model := writeFile(t, d, "flat.gpp", flatStartGPP)
	data := writeFile(t, d, "flat.csv", csv.String())
	run := func(name string, more ...string) string {
		t.Helper()
		args := append([]string{"fit", model, data, "--restarts", "4", "--seed", "3", "--out", filepath.Join(d, name)}, more...)
		code, _, stderr := runSafe(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", more, code, stderr)
		}
		return stderr
	}
	const optima = "the restarts ended at different optima"
	if jit := run("jit"); strings.Contains(jit, optima) {
		t.Errorf("jittered restarts: want them alike in the flat mode, got the optima hint:\n%s", jit)
	}
	rad := run("rad", "--init-radius", "2")
	if !strings.Contains(rad, optima) || !strings.Contains(rad, "restarts r ≥ 1 from random starts, U(−2, 2) on the unconstrained scale") {
		t.Errorf("--init-radius 2: want the optima hint and the random starts' header:\n%s", rad)
	}
	ff := readFit(t, filepath.Join(d, "rad", "fit.json"))
	if ff.Settings.InitRadius != 2 || readFit(t, filepath.Join(d, "jit", "fit.json")).Settings.InitRadius != 0 {
		t.Errorf("fit.json settings.init_radius %v", ff.Settings.InitRadius)
	}
	if b, err := os.ReadFile(filepath.Join(d, "rad", "draws.csv")); err != nil || !bytes.Contains(b, []byte("\n#     init_radius = 2\n")) {
		t.Errorf("draws.csv's header lacks the radius (%v)", err)
	}
}

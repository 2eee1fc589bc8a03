package main

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// TestSampleAgainstModes: x² ≈ 4 has modes at x = ±2 that NUTS does not
// cross (TestSampleModesWarning); chain 1 starts at −2, chains 2–4 at +2.
// A prior Normal(2, 0.8) gives +2's mode about e^12.5 times the mass of
// −2's: q is compared with chains 2, 3, 4 alone (their mean, about 2, and
// no R̂ refusal), and the against line and against.csv say so. With the
// prior Normal(−2, 0.8) the mode with the most mass is chain 1's alone,
// and with Normal(0, 3) none leads by e^10: the comparison is refused, its
// line saying what to do.
func TestSampleAgainstModes(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "y.csv", "y\n4\n4.2\n3.9\n")
	var inits []string
	for c, x := range []float64{-2, 2, 2, 2} {
		inits = append(inits, writeFile(t, dir, fmt.Sprintf("init%d.json", c), fmt.Sprintf(`{"x": %g}`, x)))
	}
	for _, c := range []struct {
		name, prior string
		mean        float64 // NUTS's mean of x in against.csv
		line, csv   string  // a pattern of the against line; in and every reading of against.csv
	}{
		{"chains 2-4 dominant", "Normal(2, 0.8)", 2, `against      NUTS's chains 2, 3, 4 alone \(chain 1 left out\): the chains sit in different modes of x \(chain 1 at x -[0-9.]+, chains 2, 3, 4 at x [0-9.]+\), and chains 2, 3, 4's likely carries the most mass, about e\^1[0-9.]+ times`, "against NUTS's chains 2, 3, 4 alone, the mode with the most mass (about e^"},
		{"chain 1 dominant", "Normal(-2, 0.8)", 1, `\(chain 1 at x -[0-9.]+, chains 2, 3, 4 at x [0-9.]+\), and chain 1's likely carries the most mass, about e\^1[0-9.]+ times .*one chain gives no R̂`, "not compared: NUTS's chains disagree"},
		{"none dominant", "Normal(0, 3)", 1, `\(chains? [0-9, ]+ at x -?[0-9.]+, chains? [0-9, ]+ at x -?[0-9.]+\), and none carries e\^10 times the mass of the next .*--chains 8 --warmup 2000`, "not compared: NUTS's chains disagree"},
	} {
		sub := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
		model := writeFile(t, dir, c.name+".gpp", "data y: real[N]\nparam x: real ~ "+c.prior+"\ny ~ Normal(x * x, 0.5)\n")
		fit := filepath.Join(sub, "fit")
		if code, _, stderr := runGpp("fit", model, data, "--quiet", "--out", fit); code != exitOK {
			t.Fatalf("%s: fit: exit %d:\n%s", c.name, code, stderr)
		}
		out := filepath.Join(sub, "s")
		code, stdout, stderr := runGpp("sample", model, data, "--quiet", "--chains", "4", "--warmup", "300", "--draws", "300", "--seed", "2",
			"--init", strings.Join(inits, ","), "--against", fit, "--out", out)
		if code != exitOK {
			t.Fatalf("%s: sample: exit %d:\n%s", c.name, code, stderr)
		}
		if !regexp.MustCompile(c.line).MatchString(stdout) {
			t.Errorf("%s: the against line lacks %q:\n%s", c.name, c.line, stdout)
		}
		if c.mean == 1 && !strings.Contains(stdout, "start the chains from the fit (--init FIT)") {
			t.Errorf("%s: the refusal does not say what to do:\n%s", c.name, stdout)
		}
		rows := reftest.ReadCSVMaps(t, filepath.Join(out, againstFile))
		for _, r := range rows {
			if !strings.Contains(r["reading"], c.csv) {
				t.Errorf("%s: %s's reading %q lacks %q", c.name, r["name"], r["reading"], c.csv)
			}
			if r["name"] == "x" && c.mean == 2 {
				if m := parseNum(t, r["mean"]); math.Abs(m-2) > 0.1 {
					t.Errorf("%s: NUTS's mean of x %v, want about 2 (chains 2-4's)", c.name, m)
				}
				if strings.Contains(r["reading"], "not compared") {
					t.Errorf("%s: x not compared: %s", c.name, r["reading"])
				}
			}
		}
		if c.mean == 2 && !strings.Contains(stdout, "against NUTS's chains 2, 3, 4 (z = ") {
			t.Errorf("%s: the table's title does not name the chains:\n%s", c.name, stdout)
		}
	}
}

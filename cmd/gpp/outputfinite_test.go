package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestOutputNotFiniteWarning: gpp sample, fit, fit --prior and predict
// warn of draws "that had an output that is not finite" only where a
// written output is: a −Inf that an output takes in (log(w · e^mu) at
// w = 0 under logsumexp) is no such draw. A trial's HMM log_lik,
// rowlogsumexp(log(ps) − lo), read "4 of 4000 draws had an output that is
// not finite" beside a draws.csv all finite.
func TestOutputNotFiniteWarning(t *testing.T) {
	if testing.Short() {
		t.Skip("fits and samples")
	}
	dir := t.TempDir()
	data := writeFile(t, dir, "w.csv", "w\n0\n1\n")
	head := "data w: real[N]\nparam mu: real ~ Normal(0, 1)\noutput a = logsumexp(log(w * exp(mu)))\n"
	for _, c := range []struct {
		name, src string
		bad       bool
	}{
		{"absorbed", head, false},
		{"written", head + "output b = log(w * exp(mu))\n", true},
	} {
		model := writeFile(t, dir, c.name+".gpp", c.src)
		out := func(s string) string { return filepath.Join(dir, c.name+"-"+s) }
		for _, args := range [][]string{
			{"sample", model, data, "--chains", "1", "--warmup", "50", "--draws", "20", "--out", out("s")},
			{"fit", model, data, "--out", out("f")},
			{"fit", model, data, "--prior", "--out", out("p")},
			{"predict", out("f"), model, data, "--out", out("pr")},
		} {
			code, _, stderr := runSafe(t, args...)
			warned := strings.Contains(stderr, "had an output that is not finite") || strings.Contains(stderr, "had a non-finite log joint or output")
			if code != 0 || warned != c.bad || c.bad && !strings.Contains(stderr, "log: argument 0 gives -Inf") {
				t.Errorf("%s: gpp %s: exit %d, warned %v, stderr\n%s", c.name, args[0], code, warned, stderr)
			}
			if c.bad {
				continue
			}
			b, err := os.ReadFile(filepath.Join(args[len(args)-1], drawsFile))
			if err != nil {
				t.Fatal(err)
			}
			col := -1 // output a's column, all finite
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if strings.HasPrefix(line, "#") {
					continue
				}
				cells := strings.Split(line, ",")
				if col < 0 {
					col = slices.Index(cells, "a")
					continue
				}
				if v, err := strconv.ParseFloat(cells[col], 64); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s: gpp %s: draws.csv's a is %q", c.name, args[0], cells[col])
					break
				}
			}
			if col < 0 {
				t.Errorf("%s: gpp %s: no column a in draws.csv", c.name, args[0])
			}
		}
	}
}

package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSamplePlots: --plots writes trace.png, a panel per element of the
// first params (4 at most, no outputs), and fit's predictive checks of
// the data a replicate mirrors; a later sample without --plots into the
// same directory removes them. Holds for any sampler.
func TestSamplePlots(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s")
	args := []string{"sample", "testdata/fit_predictive.gpp", "testdata/fit_predictive.csv", "--quiet", "--chains", "2", "--warmup", "50", "--draws", "40", "--out", out}
	code, stdout, stderr := runGpp(append(args, "--plots")...)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "trace.png ppc_y.png ppc_stat_y.png") {
		t.Errorf("written line:\n%s", stdout)
	}
	for _, name := range []string{tracePlot, "ppc_y.png", "ppc_stat_y.png"} {
		f, err := os.Open(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 200 {
			t.Errorf("%s: %v", name, b)
		}
	}
	// gpp predict over the sample draws the same checks
	pred := filepath.Join(dir, "p")
	if code, _, stderr := runGpp("predict", out, "testdata/fit_predictive.gpp", "testdata/fit_predictive.csv", "--plots", "--quiet", "--out", pred); code != exitOK {
		t.Fatalf("predict --plots: exit %d:\n%s", code, stderr)
	}
	if got := strings.Join(dirEntries(t, pred), " "); got != "draws.csv ppc_stat_y.png ppc_y.png summary.csv" {
		t.Errorf("predict --plots wrote %s", got)
	}
	if code, _, stderr := runGpp(args...); code != exitOK {
		t.Fatalf("without --plots: exit %d:\n%s", code, stderr)
	}
	for _, name := range []string{tracePlot, "ppc_y.png", "ppc_stat_y.png"} {
		if _, err := os.Stat(filepath.Join(out, name)); err == nil {
			t.Errorf("%s of the earlier sample left in %s", name, out)
		}
	}
}

// TestTraceElements: the trace plot shows the first 4 elements of the
// params, in summary order, and no output.
func TestTraceElements(t *testing.T) {
	sd := &sampleDraws{ds: &drawSet{vars: []variable{
		{name: "a", first: 0, elems: []int{0}},
		{name: "b", shape: []int{5}, first: 1, elems: []int{0, 1, 2, 3, 4}},
		{name: "o", output: true, first: 6, elems: []int{0}},
	}}}
	var got []string
	for _, e := range traceElements(sd) {
		got = append(got, e.name+":"+string(rune('0'+e.col)))
	}
	if want := "a:0 b[1]:1 b[2]:2 b[3]:3"; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
	sd.ds.vars = sd.ds.vars[2:]
	if e := traceElements(sd); len(e) != 0 {
		t.Errorf("outputs alone: %v, want none", e)
	}
}

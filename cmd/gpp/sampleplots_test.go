package main

import (
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/pipeline"
)

// TestSamplePlots: --plots writes trace.png and rank.png, a panel per element of the
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
	if !strings.Contains(stdout, "trace.png rank.png ppc_y.png ppc_stat_y.png") {
		t.Errorf("written line:\n%s", stdout)
	}
	for _, name := range []string{tracePlot, rankPlot, "ppc_y.png", "ppc_stat_y.png"} {
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
	// rank.png is among the files --out would be written, which an input
	// there must not be
	l, err := pipeline.Load("testdata/fit_predictive.gpp", []string{"testdata/fit_predictive.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &fitConfig{out: out, sample: true, plots: true}
	if err := outputClash(cfg, l.Model, []inputFile{{"the data file", filepath.Join(out, rankPlot)}}); err == nil || !strings.Contains(err.Error(), "overwritten by the output rank.png") {
		t.Errorf("an input at %s: %v", filepath.Join(out, rankPlot), err)
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
	for _, name := range []string{tracePlot, rankPlot, "ppc_y.png", "ppc_stat_y.png"} {
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

// TestPooledRanks: ranks among all chains' draws, 1 to S, ties at their
// average rank and a NaN below every number.
func TestPooledRanks(t *testing.T) {
	got := pooledRanks([][]float64{{3, 1, 2}, {2, 5, math.NaN()}})
	want := [][]float64{{5, 2, 3.5}, {3.5, 6, 1}}
	for c := range want {
		if !slices.Equal(got[c], want[c]) {
			t.Errorf("chain %d: ranks %v, want %v", c+1, got[c], want[c])
		}
	}
}

// TestRankCounts: each chain's rank histogram counts all its draws; chains
// of one distribution fill every bin about evenly (within 5 binomial sds
// of n/bins), while a chain shifted up by 2 sds piles its draws in the top
// bins and leaves the bottom ones to the others.
func TestRankCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const n, bins = 1000, 20
	chains := make([][]float64, 4)
	for c := range chains {
		chains[c] = make([]float64, n)
		for i := range n {
			chains[c][i] = rng.NormFloat64()
		}
	}
	even := float64(n) / bins
	sd := math.Sqrt(n * (1.0 / bins) * (1 - 1.0/bins))
	for c, counts := range rankCounts(chains, bins) {
		total := 0
		for b, k := range counts {
			total += k
			if math.Abs(float64(k)-even) > 5*sd {
				t.Errorf("mixed chain %d, bin %d: %d draws, want about %v", c+1, b, k, even)
			}
		}
		if total != n {
			t.Errorf("chain %d: %d draws counted, want %d", c+1, total, n)
		}
	}
	for i := range chains[3] {
		chains[3][i] += 2
	}
	counts := rankCounts(chains, bins)
	top, bottom := 0, 0
	for b := range 5 {
		bottom += counts[3][b]
		top += counts[3][bins-1-b]
	}
	if total := func(ks []int) (s int) {
		for _, k := range ks {
			s += k
		}
		return s
	}(counts[3]); total != n || !(top > n/2) || !(bottom < n/50) {
		t.Errorf("shifted chain: %d draws counted, %d in the top 5 bins, %d in the bottom 5: %v", total, top, bottom, counts[3])
	}
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSummaryPlotsMatchSample: gpp summary --plots of a gpp sample's
// draws.csv, its params chosen, draws the rank and energy plots that gpp
// sample --plots drew of the same run byte for byte (the rendering is
// deterministic; draws.csv holds energy__ exactly and the params to 6
// digits, which leave the ranks as they were), and a trace plot of the
// same size (TestSummaryPlotsFromFile: the same bytes from draws held
// exactly). Without --params it plots the outputs too; without --plots it
// writes no plot and prints what it printed before.
func TestSummaryPlotsMatchSample(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s")
	code, sampleOut, stderr := runGpp("sample", poissonModel, poissonData, "--chains", "2", "--warmup", "150", "--draws", "150",
		"--seed", "8", "--quiet", "--plots", "--out", out)
	if code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(sampleOut, "intervals.png energy.png") {
		t.Errorf("gpp sample --plots wrote no energy.png:\n%s", sampleOut)
	}
	draws := filepath.Join(out, drawsFile)
	plots := filepath.Join(dir, "new", "plots") // created with its parent
	code, summaryOut, stderr := runGpp("summary", draws, "--params", "lambda", "--plots", plots)
	if code != exitOK {
		t.Fatalf("summary: exit %d:\n%s", code, stderr)
	}
	if want := "plots        " + plots + ": trace.png rank.png pairs.png intervals.png energy.png\n"; !strings.Contains(summaryOut, want) {
		t.Errorf("summary's output lacks %q:\n%s", want, summaryOut)
	}
	if got := strings.Join(dirEntries(t, plots), " "); got != "energy.png intervals.png pairs.png rank.png trace.png" {
		t.Errorf("--plots wrote %s", got)
	}
	for _, name := range []string{rankPlot, energyPlot} {
		if readText(t, filepath.Join(out, name)) != readText(t, filepath.Join(plots, name)) {
			t.Errorf("%s differs from gpp sample's", name)
		}
	}
	if a, b := decodePNG(t, filepath.Join(out, tracePlot)).Bounds(), decodePNG(t, filepath.Join(plots, tracePlot)).Bounds(); a != b {
		t.Errorf("trace.png is %v, gpp sample's %v", b, a)
	}
	// every column but the sampler's: lambda and twice, two trace panels
	all := filepath.Join(dir, "all")
	if code, _, stderr := runGpp("summary", draws, "--plots", all); code != exitOK {
		t.Fatalf("summary: exit %d:\n%s", code, stderr)
	}
	if one, two := decodePNG(t, filepath.Join(plots, tracePlot)).Bounds().Dy(), decodePNG(t, filepath.Join(all, tracePlot)).Bounds().Dy(); !(two > one) {
		t.Errorf("trace.png of lambda and twice is %d px high, of lambda %d", two, one)
	}
	// a sampler's column, named by --params, is plotted too
	lp := filepath.Join(dir, "lp")
	if code, _, stderr := runGpp("summary", draws, "--params", "lambda,lp__", "--plots", lp); code != exitOK {
		t.Fatalf("summary: exit %d:\n%s", code, stderr)
	}
	if one, two := decodePNG(t, filepath.Join(plots, tracePlot)).Bounds().Dy(), decodePNG(t, filepath.Join(lp, tracePlot)).Bounds().Dy(); !(two > one) {
		t.Errorf("trace.png of lambda and lp__ is %d px high, of lambda %d", two, one)
	}
	// without --plots: no plots, and the same output as before less the plots line
	code, plain, _ := runGpp("summary", draws, "--params", "lambda")
	if code != exitOK || plain != strings.Replace(summaryOut, "plots        "+plots+": trace.png rank.png pairs.png intervals.png energy.png\n", "", 1) {
		t.Errorf("summary without --plots: exit %d:\n%s\nwith:\n%s", code, plain, summaryOut)
	}
	if got := dirEntries(t, filepath.Join(dir, "new")); !slices.Equal(got, []string{"plots"}) {
		t.Errorf("%v", got)
	}
}

// TestSummaryPlotsFromFile: the trace, rank, pairs and energy plots of
// draws read back from a gpp sample's draws.csv written to full precision
// are byte for byte those of the draws in memory: the file reader gives
// the plotting code what gpp sample gives it (the divergent draws, the
// chains, the elements' names).
func TestSummaryPlotsFromFile(t *testing.T) {
	const chains, n = 2, 60
	rng := rand.New(rand.NewPCG(3, 4))
	total := chains * n
	cols := [][]float64{make([]float64, total), make([]float64, total), make([]float64, total)}
	sd := &sampleDraws{n: n, chains: chains, divergent: make([]bool, total), energy: make([]float64, total)}
	var csv strings.Builder
	csv.WriteString("# gpp_version = test\n") // a gpp model's draws, named 0-based as in memory
	csv.WriteString("chain__,draw__,lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__,mu,beta.1,beta.2\n")
	for d := range total {
		for c := range cols {
			cols[c][d] = rng.NormFloat64() * float64(c+1)
		}
		sd.divergent[d] = d%17 == 3
		sd.energy[d] = 10 + rng.NormFloat64()
		fmt.Fprintf(&csv, "%d,%d,-1,0.9,0.5,2,3,%d,%s,%s,%s,%s\n", d/n+1, d%n+1, b2i(sd.divergent[d]), formatExact(sd.energy[d]),
			formatExact(cols[0][d]), formatExact(cols[1][d]), formatExact(cols[2][d]))
	}
	sd.ds = &drawSet{R: 1, ncol: 3, cols: cols, vars: []variable{
		{name: "mu", family: "normal", elems: []int{0}, first: 0},
		{name: "beta", family: "normal", shape: []int{2}, elems: []int{0, 1}, first: 1},
	}}
	f, err := readDrawsFile("draws.csv", []byte(csv.String()))
	if err != nil {
		t.Fatal(err)
	}
	pooled, err := pooledDraws([]*drawsFileData{f})
	if err != nil {
		t.Fatal(err)
	}
	var rows []summaryRow
	for _, r := range elemRows(pooled.ds.vars) {
		if r.family != samplerFamily {
			rows = append(rows, r)
		}
	}
	fromFile := summaryPlotDraws(pooled, rows, true)
	for _, p := range []struct {
		name string
		draw func(w io.Writer, sd *sampleDraws) error
	}{{tracePlot, plotTrace}, {rankPlot, plotChainRanks}, {pairsPlot, plotPairs}, {energyPlot, plotEnergy}} {
		var want, got bytes.Buffer
		if err := p.draw(&want, sd); err != nil {
			t.Fatal(err)
		}
		if err := p.draw(&got, fromFile); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want.Bytes(), got.Bytes()) {
			t.Errorf("%s of the draws read from the file differs from that of the draws in memory", p.name)
		}
	}
	// without divergent__ the pairs plot says it marks none, rather than
	// that there were none
	var none, unknown bytes.Buffer
	fromFile.divergent = make([]bool, total)
	if err := plotPairs(&none, fromFile); err != nil {
		t.Fatal(err)
	}
	fromFile.divergent = nil
	if err := plotPairs(&unknown, fromFile); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(none.Bytes(), unknown.Bytes()) {
		t.Error("pairs.png of draws without divergent__ is that of draws with none divergent")
	}
}

// TestSummaryPlotDraws: the plotted draws are the chosen rows' columns,
// grouped into their variables by name and shape in the rows' order, an
// element chosen twice plotted once; the divergences only when the files
// have divergent__.
func TestSummaryPlotDraws(t *testing.T) {
	names := []string{"lp__", "divergent__", "alpha", "beta.1", "beta.2", "beta.3"}
	cols := make([][]float64, len(names))
	for c := range cols {
		cols[c] = []float64{float64(c), float64(c) + 0.5}
	}
	sd := &sampleDraws{n: 2, chains: 1, divergent: []bool{false, true}, ds: &drawSet{vars: columnVariables(names, "nuts"), cols: cols, ncol: len(cols)}}
	rows, err := pickRows(sd.ds.vars, elemRows(sd.ds.vars), []string{"beta[2]", "alpha", "beta[0]", "beta[1]", "alpha", "lp__"})
	if err != nil {
		t.Fatal(err)
	}
	pd := summaryPlotDraws(sd, rows, false)
	var got []string
	for _, e := range paramElements(pd) {
		got = append(got, fmt.Sprintf("%s=%v", e.name, pd.ds.cols[e.col][0]))
	}
	if want := []string{"beta[2]=5", "alpha=2", "beta[0]=3", "beta[1]=4", "lp__=0"}; !slices.Equal(got, want) {
		t.Errorf("plotted %v, want %v", got, want)
	}
	if len(pd.ds.vars) != 4 || pd.divergent != nil {
		t.Errorf("%d variables (want beta, alpha, beta, lp__), divergent %v", len(pd.ds.vars), pd.divergent)
	}
	if pd = summaryPlotDraws(sd, rows, true); !slices.Equal(pd.divergent, sd.divergent) {
		t.Errorf("divergent %v", pd.divergent)
	}
}

// TestSummaryPlotsKinds: an approximation's draws get intervals.png alone
// and a note why; Markov chains without divergent__ or energy__ (CmdStan's
// fixed_param) get no energy.png and a pairs plot marking none, each
// said. A directory that cannot be made is an error that writes no plot.
func TestSummaryPlotsKinds(t *testing.T) {
	dir := t.TempDir()
	v := filepath.Join(dir, "v")
	code, stdout, stderr := runGpp("summary", "testdata/summary_variational.csv", "--plots", v)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if got := strings.Join(dirEntries(t, v), " "); got != intervalsPlot || !strings.Contains(stdout, "no trace.png, rank.png, pairs.png or energy.png: the draws of variational are independent draws") {
		t.Errorf("variational: wrote %s:\n%s", got, stdout)
	}
	var fp strings.Builder
	fp.WriteString("# method = sample (Default)\nlp__,accept_stat__,theta\n")
	for d := range 50 {
		fmt.Fprintf(&fp, "0,0,%g\n", math.Sin(float64(d)))
	}
	fpPath := filepath.Join(dir, "fixed.csv")
	if err := os.WriteFile(fpPath, []byte(fp.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "p")
	code, stdout, stderr = runGpp("summary", fpPath, "--plots", p)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if got := strings.Join(dirEntries(t, p), " "); got != "intervals.png pairs.png rank.png trace.png" ||
		!strings.Contains(stdout, "no energy.png: the draws have no energy__ column") || !strings.Contains(stdout, "pairs.png marks no divergent transitions") {
		t.Errorf("fixed_param: wrote %s:\n%s", got, stdout)
	}
	// under a file: exit 1, nothing written
	code, _, stderr = runGpp("summary", fpPath, "--plots", filepath.Join(fpPath, "plots"))
	if code != exitError || !strings.Contains(stderr, "--plots") {
		t.Errorf("--plots under a file: exit %d:\n%s", code, stderr)
	}
	// an empty DIR is a usage error
	if code, _, stderr = runGpp("summary", fpPath, "--plots", ""); code != exitUsage || !strings.Contains(stderr, "--plots needs a directory") {
		t.Errorf("--plots '': exit %d:\n%s", code, stderr)
	}
}

// TestWriteSummaryPlotsAtomic: a plot that fails to render leaves none of
// the set behind, not even the ones rendered before it.
func TestWriteSummaryPlotsAtomic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plots")
	ok := func(w io.Writer) error { _, err := w.Write([]byte("png")); return err }
	bad := func(w io.Writer) error { w.Write([]byte("half")); return errors.New("cannot draw") }
	if _, err := writeSummaryPlots(dir, []outputFile{{tracePlot, ok}, {rankPlot, bad}}); err == nil || !strings.Contains(err.Error(), "cannot draw") {
		t.Fatalf("error %v", err)
	}
	if got := dirEntries(t, dir); len(got) != 0 {
		t.Errorf("left %v", got)
	}
	if names, err := writeSummaryPlots(dir, []outputFile{{tracePlot, ok}}); err != nil || !slices.Equal(names, []string{tracePlot}) || readText(t, filepath.Join(dir, tracePlot)) != "png" {
		t.Errorf("%v %v", names, err)
	}
}

// TestSummaryPlotsHugeDraws: draws near ±MaxFloat64 once hung gpp summary
// --plots (gonum's axes ticking an infinite span) or panicked binning
// energy.png; now such a column is left out of the plots, and energy.png
// with it, each said, and the other columns are plotted.
func TestSummaryPlotsHugeDraws(t *testing.T) {
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__,a,b\n")
	for d := range 40 {
		huge := math.MaxFloat64 * 0.95 * float64(1-2*(d%2)) // ±1.7e308: their span overflows
		fmt.Fprintf(&src, "0,1,1,1,1,0,%g,%g,%g\n", huge, math.Sin(float64(d)), huge)
	}
	path := filepath.Join(dir, "huge.csv")
	if err := os.WriteFile(path, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "p")
	code, stdout, stderr := runGpp("summary", path, "--plots", p)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if got := strings.Join(dirEntries(t, p), " "); got != "intervals.png pairs.png rank.png trace.png" ||
		!strings.Contains(stdout, "left out of the plots: b, with draws beyond") || !strings.Contains(stdout, "no energy.png: the energies' differences overflow") {
		t.Errorf("wrote %s:\n%s", got, stdout)
	}
}

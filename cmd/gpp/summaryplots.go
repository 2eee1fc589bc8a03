package main

// gpp summary --plots DIR: gpp sample's plots (sampleplots.go,
// samplepairs.go, intervals.go, energyplot.go) of saved draws, as
// bayesplot and ArviZ draw them from CmdStan's CSVs.

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
)

// summaryPlotDraws returns the draws that gpp summary's plots show: the
// columns of rows (every param and output, or those --params chose) as
// variables of their own names and shapes, in the rows' order, with sd's
// chains, divergences and energies. A file cannot say which columns are
// params and which outputs, nor which params are positive: every column
// counts as a param, and the pairs plot shows values, not logs.
// divergent is false when the files have no divergent__ column: the pairs
// plot then marks none.
func summaryPlotDraws(sd *sampleDraws, rows []summaryRow, divergent bool) *sampleDraws {
	type at struct {
		v *variable
		j int
	}
	byCol := map[int]at{}
	for i := range sd.ds.vars {
		v := &sd.ds.vars[i]
		for j := range v.elems {
			byCol[v.first+j] = at{v, j}
		}
	}
	ds := &drawSet{R: 1, logp: sd.ds.logp}
	seen, prev := map[int]bool{}, -1 // prev: the column last added
	for _, r := range rows {
		if seen[r.col] {
			continue
		}
		seen[r.col] = true
		a := byCol[r.col]
		n := len(ds.vars)
		if n == 0 || ds.vars[n-1].name != a.v.name || prev != r.col-1 {
			ds.vars = append(ds.vars, variable{name: a.v.name, family: a.v.family, shape: a.v.shape, axes: a.v.axes, stanNames: a.v.stanNames, first: len(ds.cols)})
		}
		prev = r.col
		last := &ds.vars[len(ds.vars)-1]
		last.elems = append(last.elems, a.v.elems[a.j])
		ds.cols = append(ds.cols, sd.ds.cols[r.col])
	}
	ds.ncol = len(ds.cols)
	out := &sampleDraws{ds: ds, n: sd.n, chains: sd.chains, energy: sd.energy}
	if divergent {
		out.divergent = sd.divergent
	}
	return out
}

// summaryPlotFiles lists the plots of gpp summary --plots of the draws pd
// (summaryPlotDraws) of files, and notes on those left out: for Markov
// chains trace.png, rank.png, pairs.png and energy.png (with energy__),
// for an approximation's independent draws intervals.png alone.
func summaryPlotFiles(files []*drawsFileData, pd *sampleDraws) (out []outputFile, notes []string) {
	f := files[0]
	if len(pd.ds.cols) == 0 {
		return nil, []string{"no plots: the draws have no params or outputs to plot (only the sampler's columns)"}
	}
	if f.kind.mcmc() {
		out = append(out,
			outputFile{tracePlot, func(w io.Writer) error { return plotTrace(w, pd) }},
			outputFile{rankPlot, func(w io.Writer) error { return plotChainRanks(w, pd) }},
			outputFile{pairsPlot, func(w io.Writer) error { return plotPairs(w, pd) }})
		if pd.divergent == nil {
			notes = append(notes, fmt.Sprintf("%s marks no divergent transitions: the draws have no divergent__ column", pairsPlot))
		}
	} else {
		notes = append(notes, fmt.Sprintf("no %s, %s, %s or %s: the draws of %s are independent draws of one distribution, not Markov chains",
			tracePlot, rankPlot, pairsPlot, energyPlot, methodName(f)))
	}
	out = append(out, outputFile{intervalsPlot, func(w io.Writer) error {
		groups, n := intervalGroups(intervalPanels(pd.ds.vars, false, nil), intervalMaxRows, intervalMaxPanels)
		series := intervalSeries{"draws", intervalColor, func(e intervalElem) []float64 { return pd.ds.cols[e.col] }}
		return plotIntervals(w, intervalTitle(summaryDrawsWhat(f, pd), groups, n), groups, []intervalSeries{series})
	}})
	if f.kind.mcmc() {
		if why := energyProblem(pd); why != "" {
			notes = append(notes, fmt.Sprintf("no %s: %s", energyPlot, why))
		} else {
			out = append(out, outputFile{energyPlot, func(w io.Writer) error { return plotEnergy(w, pd) }})
		}
	}
	return out, notes
}

// summaryDrawsWhat names the draws of intervals.png's heading.
func summaryDrawsWhat(f *drawsFileData, pd *sampleDraws) string {
	if f.kind.mcmc() {
		return fmt.Sprintf("intervals of %d chain%s × %d draws", pd.chains, plural(pd.chains), pd.n)
	}
	return fmt.Sprintf("intervals of %d draws of %s", pd.n, methodName(f))
}

// writeSummaryPlots writes files into dir, created if missing, as one
// staged set (an error leaves none of them), and returns their names.
// Files of an earlier run that this one does not write are left alone:
// dir may be a gpp sample's output directory, whose other plots are its
// own.
func writeSummaryPlots(dir string, files []outputFile) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--plots: %w", err)
	}
	sw := &staged{dir: dir}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.name
		if err := sw.write(f.name, f.render); err != nil {
			sw.abort()
			return nil, err
		}
	}
	if err := sw.commit(); err != nil {
		return nil, err
	}
	return names, nil
}

// printSummaryPlots writes the plots of --plots DIR of the rows of the
// summary (chosen: by --params, whose sampler's columns, lp__, are then
// plotted too; a column with a draw beyond ±plotMaxAbs is not) and prints
// what was written and left out; false after an error, printed on stderr.
func printSummaryPlots(dir string, files []*drawsFileData, sd *sampleDraws, rows []summaryRow, chosen bool, stdout, stderr io.Writer) bool {
	var plotted []summaryRow
	var huge []string
	for _, r := range rows {
		switch {
		case !chosen && r.family == samplerFamily:
		case tooLargeToPlot(sd.ds.cols[r.col]):
			huge = append(huge, r.name)
		default:
			plotted = append(plotted, r)
		}
	}
	pd := summaryPlotDraws(sd, plotted, slices.Contains(files[0].header, "divergent__"))
	out, notes := summaryPlotFiles(files, pd)
	if len(huge) > 0 {
		if len(plotted) == 0 {
			notes = nil // not "only the sampler's columns"
		}
		notes = append(notes, fmt.Sprintf("left out of the plots: %s, with draws beyond ±%.3g (no axis spans them)", strings.Join(huge, ", "), plotMaxAbs))
	}
	if len(out) > 0 {
		names, err := writeSummaryPlots(dir, out)
		if err != nil {
			errorf(stderr, "%v", err)
			return false
		}
		fmt.Fprintf(stdout, "plots        %s: %s\n", dir, strings.Join(names, " "))
	}
	for _, n := range notes {
		fmt.Fprintln(stdout, n)
	}
	return true
}

// plotMaxAbs is the largest magnitude of a draw that the plots show: a
// quarter of the largest float64, so that a panel's span and padding stay
// finite (gonum's axes never finish ticking an infinite one).
const plotMaxAbs = math.MaxFloat64 / 4

// tooLargeToPlot reports whether a finite draw of x is beyond ±plotMaxAbs.
func tooLargeToPlot(x []float64) bool {
	for _, v := range x {
		if isFinite(v) && math.Abs(v) > plotMaxAbs {
			return true
		}
	}
	return false
}

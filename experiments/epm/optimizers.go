package epm

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpplang/gpp/experiments/metrics"
	"github.com/gpplang/gpp/infer/sgvb"
	"gonum.org/v1/plot/plotter"
)

// OptimizerCase is one optimizer setting of experiment 4.
type OptimizerCase struct {
	Name      string
	Optimizer sgvb.Optimizer
	StepSize  float64 // η; 0 = the optimizer's default
	Rho       float64 // AdaDelta ρ (Zeiler's convention); 0 = default
	Momentum  float64 // momentum weight; 0 = default
	// GammaParam are the unconstrained coordinates of the gamma factors
	// the optimizer moves (GammaSoftplus is the paper's).
	GammaParam sgvb.GammaParam
}

// OptimizerCases are the optimizers compared by RunOptimizers (paper
// Fig. 1) at the presets of the paper's code (gammaSGVBsettings), which
// are the sgvb defaults but for AdaDelta's η = 1 (the engine takes 0.3 with
// log shape/log mean factors), except Adam, which the paper does not use:
// its η = 0.1 is the engine's default, and η = 0.001 (Kingma and Ba's) is
// run too. GammaParam is left zero; RunOptimizers sets it.
func OptimizerCases() []OptimizerCase {
	return []OptimizerCase{
		{Name: "sgd", Optimizer: sgvb.SGD},
		{Name: "momentum", Optimizer: sgvb.Momentum},
		{Name: "adagrad", Optimizer: sgvb.AdaGrad},
		{Name: "rmsprop", Optimizer: sgvb.RMSprop},
		{Name: "adadelta", Optimizer: sgvb.AdaDelta, StepSize: 1},
		{Name: "adadelta-momentum", Optimizer: sgvb.AdaDeltaMomentum, StepSize: 1},
		{Name: "adam", Optimizer: sgvb.Adam},
		{Name: "adam η=0.001", Optimizer: sgvb.Adam, StepSize: 0.001},
	}
}

// OptimizerParams are the gamma parameterisations RunOptimizers compares
// the optimizers under: the paper's softplus shape and rate, and log shape
// and log mean. Step sizes and ρ tuned for one need not suit the other, so
// both are run.
var OptimizerParams = []sgvb.GammaParam{sgvb.GammaSoftplus, sgvb.GammaLogMeanShape}

// GridRhos and GridMomenta are the AdaDelta grid of RunOptimizers (paper
// Fig. 2, tune_adadelta.m). ρ is in Zeiler's convention (weight of the old
// running average). The paper's Matlab weights the new term by ρ, so its
// grid ρ = 1 − 10^−e (e = 0.5, 1, 1.5, 2) is ρ = 10^−e here; the grid runs
// both readings: 10^−e and 1 − 10^−e. Weight 0 is plain AdaDelta with that
// ρ (no gradient smoothing, the paper's weight 1).
var (
	GridRhos = []float64{
		math.Pow(10, -2), math.Pow(10, -1.5), math.Pow(10, -1), math.Pow(10, -0.5),
		1 - math.Pow(10, -0.5), 1 - math.Pow(10, -1), 1 - math.Pow(10, -1.5), 1 - math.Pow(10, -2),
	}
	GridMomenta = []float64{0, 0.05, 0.1, 0.2, 0.5}
)

// Seeds of RunOptimizers: each optimizer case is fitted with
// optimizerSeeds seeds, each grid cell with gridSeeds (o.Seed, o.Seed+1, …).
const (
	optimizerSeeds = 5
	gridSeeds      = 3
)

// OptimizerRow is one fit of experiment 4.
type OptimizerRow struct {
	Case     OptimizerCase
	Seed     uint64
	StepSize float64 // η used
	ELBO, SE float64 // final ELBO estimate and its Monte Carlo SE
	Seconds  float64
	BadSteps int
	Trace    []sgvb.TracePoint
	Note     string
	Grid     bool // part of the ρ × momentum grid
}

// OptimizerSummary is the mean over seeds of one case.
type OptimizerSummary struct {
	Case     OptimizerCase
	Grid     bool
	StepSize float64
	N        int
	ELBO, SD float64 // mean and sd over the seeds' final ELBOs
	MCSE     float64 // mean Monte Carlo SE of the per-fit estimates
	Failed   int
}

// OptimizerReport is the outcome of RunOptimizers.
type OptimizerReport struct {
	K, Iterations     int
	Seeds, GridSeeds  []uint64
	Params            []sgvb.GammaParam
	Rhos, Momenta     []float64
	Fit               FitSettings
	Rows              []OptimizerRow
	Summary           []OptimizerSummary
	Started, Finished time.Time
	Files             []string
}

// Best returns the summary with the highest mean ELBO among the optimizer
// cases (grid false) or the grid cells (grid true) of parameterisation gp,
// or nil.
func (rep *OptimizerReport) Best(gp sgvb.GammaParam, grid bool) *OptimizerSummary {
	var best *OptimizerSummary
	for i := range rep.Summary {
		s := &rep.Summary[i]
		if s.Grid != grid || s.Case.GammaParam != gp || s.Failed == s.N {
			continue
		}
		if best == nil || s.ELBO > best.ELBO {
			best = s
		}
	}
	return best
}

// RunOptimizers runs experiment 4: the ELBO after o.Iterations (default
// 1000) iterations of each optimizer of OptimizerCases at its default step
// size (optimizerSeeds seeds), and of AdaDelta over the GridRhos ×
// GridMomenta grid (gridSeeds seeds), each under both OptimizerParams,
// fitting examples/epm.gpp to the whole network (every link in training,
// no missing pair) with K = o.Ks[0] (default 10, as the paper's Fig. 1).
// Fits start at the paper's point (InitPaper) and use the estimator of
// DefaultFitSettings (STL) at a constant step size; the ELBO trace is
// estimated every 20 steps from 10 draws (the paper records every 20) and
// the final ELBO from 500 draws, without the engine's divergence guard (a
// diverging rule is reported as such, not rescued at half the step size).
// Quick: 1 seed, K = 5, 100 iterations, a
// 2 × 2 grid, 50 final draws.
//
// It writes into o.Out: epm_optimizers.csv (one row per case,
// parameterisation and seed, grid cells included), epm_optimizers_traces.csv
// (their ELBO traces), epm_optimizers.png and epm_optimizers_softplus.png
// (mean trace per optimizer under each parameterisation),
// epm_optimizers_grid.png and epm_optimizers_grid_softplus.png (heat maps of
// the grid's mean final ELBO) and epm_optimizers.md.
func RunOptimizers(ctx context.Context, o Options) (*OptimizerReport, error) {
	k := 10
	if len(o.Ks) > 0 {
		k = o.Ks[0]
	}
	iters := 1000
	if o.Iterations > 0 {
		iters = o.Iterations
	}
	seedList := func(n int) []uint64 {
		s := make([]uint64, n)
		for i := range s {
			s[i] = o.Seed + uint64(i)
		}
		return s
	}
	seeds, gseeds := seedList(optimizerSeeds), seedList(gridSeeds)
	rhos, moms := GridRhos, GridMomenta
	finalDraws := 500
	if o.Quick {
		iters, seeds, gseeds, rhos, moms, finalDraws = 100, seeds[:1], gseeds[:1], GridRhos[5:7], GridMomenta[1:3], 50
		if o.Iterations > 0 {
			iters = o.Iterations
		}
		k = 5
	}
	o.Iterations, o.Quick = 0, false
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	g, model, err := o.load()
	if err != nil {
		return nil, err
	}
	fs := DefaultFitSettings()
	fs.Iterations, fs.Init, fs.InitByMethod = iters, InitPaper, nil
	fs.EvalEvery, fs.ELBODraws, fs.FinalDraws = 20, 10, finalDraws
	fs.NoGuard = true
	fs.Average = false // the rules' own iterates, as in the paper's figures
	rep := &OptimizerReport{K: k, Iterations: iters, Seeds: seeds, GridSeeds: gseeds, Params: OptimizerParams,
		Rhos: rhos, Momenta: moms, Fit: fs, Started: time.Now()}

	type job struct {
		c     OptimizerCase
		grid  bool
		seeds []uint64
	}
	var jobs []job
	for _, gp := range OptimizerParams {
		for _, c := range OptimizerCases() {
			c.GammaParam = gp
			jobs = append(jobs, job{c, false, seeds})
		}
	}
	for _, gp := range OptimizerParams {
		for _, r := range rhos {
			for _, m := range moms {
				c := OptimizerCase{Name: fmt.Sprintf("grid ρ=%.4g w=%g", r, m), Optimizer: sgvb.AdaDeltaMomentum, StepSize: 1, Rho: r, Momentum: m, GammaParam: gp}
				if m == 0 {
					c.Optimizer = sgvb.AdaDelta
				}
				jobs = append(jobs, job{c, true, gseeds})
			}
		}
	}
	elbo, err := newCSV(filepath.Join(o.Out, "epm_optimizers.csv"),
		"case", "grid", "gamma_param", "optimizer", "step_size", "rho", "momentum", "seed", "elbo", "elbo_se", "seconds", "bad_steps", "note")
	if err != nil {
		return nil, err
	}
	defer elbo.Close()
	traces, err := newCSV(filepath.Join(o.Out, "epm_optimizers_traces.csv"), "case", "gamma_param", "seed", "iter", "elbo", "se", "seconds")
	if err != nil {
		return nil, err
	}
	defer traces.Close()
	rep.Files = append(rep.Files, elbo.path, traces.path)
	var runErr error
loop:
	for _, j := range jobs {
		c := j.c
		for _, seed := range j.seeds {
			if runErr = ctx.Err(); runErr != nil {
				break loop
			}
			f := fs
			f.Optimizer, f.StepSize, f.Rho, f.Momentum, f.GammaParam = c.Optimizer, c.StepSize, c.Rho, c.Momentum, c.GammaParam
			row := OptimizerRow{Case: c, Seed: seed, Grid: j.grid, ELBO: math.NaN(), SE: math.NaN()}
			fr, err := model.Fit(ctx, k, g.N, g.Links, nil, GammaImplicit, f, seed)
			if fr != nil {
				res := fr.Result
				row.StepSize, row.ELBO, row.SE, row.Seconds, row.BadSteps, row.Trace = res.StepSize, res.ELBO, res.ELBOSE, fr.Seconds, res.BadSteps, res.Trace
				row.Note = fitNote(fr)
			}
			if err != nil {
				if ctx.Err() != nil {
					runErr = ctx.Err()
					break loop
				}
				row.Note = join(row.Note, "error: "+err.Error())
			}
			rep.Rows = append(rep.Rows, row)
			elbo.write(c.Name, strconv.FormatBool(row.Grid), c.GammaParam.String(), c.Optimizer.String(), ftoa(row.StepSize), ftoa(c.Rho), ftoa(c.Momentum),
				strconv.FormatUint(seed, 10), ftoa(row.ELBO), ftoa(row.SE), strconv.FormatFloat(row.Seconds, 'f', 2, 64), strconv.Itoa(row.BadSteps), row.Note)
			for _, t := range row.Trace {
				traces.write(c.Name, c.GammaParam.String(), strconv.FormatUint(seed, 10), strconv.Itoa(t.Iter), ftoa(t.ELBO), ftoa(t.SE), strconv.FormatFloat(t.Seconds, 'f', 3, 64))
			}
			fmt.Fprintf(o.Log, "optimizers K=%d %-14s %-24s seed %d: ELBO %.1f ± %.1f (η %g) %.1fs %s\n", k, c.GammaParam, c.Name, seed, row.ELBO, row.SE, row.StepSize, row.Seconds, row.Note)
		}
	}
	for _, w := range []*csvFile{elbo, traces} {
		if err := w.Close(); err != nil {
			return rep, err
		}
	}
	rep.Finished = time.Now()
	rep.Summary = summarizeOptimizers(rep.Rows)
	files, err := writeOptimizerOutputs(rep, o)
	rep.Files = append(rep.Files, files...)
	if err != nil {
		return rep, err
	}
	return rep, runErr
}

func summarizeOptimizers(rows []OptimizerRow) []OptimizerSummary {
	var out []OptimizerSummary
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].Case == rows[i].Case {
			j++
		}
		grp := rows[i:j]
		var e, se []float64
		s := OptimizerSummary{Case: grp[0].Case, Grid: grp[0].Grid, StepSize: grp[0].StepSize, N: len(grp)}
		for _, r := range grp {
			if math.IsNaN(r.ELBO) || math.IsInf(r.ELBO, 0) {
				s.Failed++
				continue
			}
			e = append(e, r.ELBO)
			se = append(se, r.SE)
		}
		s.ELBO, s.SD = metrics.MeanSD(e)
		s.MCSE, _ = metrics.MeanSD(se)
		out = append(out, s)
		i = j
	}
	return out
}

// paramFile is the file-name suffix of a parameterisation's plots: none
// for log shape and log mean, "_softplus" for the paper's.
func paramFile(gp sgvb.GammaParam) string {
	if gp == sgvb.GammaSoftplus {
		return "_softplus"
	}
	return ""
}

// paramText names a parameterisation in the reports.
func paramText(gp sgvb.GammaParam) string {
	if gp == sgvb.GammaSoftplus {
		return "softplus shape and rate (the paper's)"
	}
	return "log shape and log mean"
}

func writeOptimizerOutputs(rep *OptimizerReport, o Options) ([]string, error) {
	var files []string
	for _, gp := range rep.Params {
		// mean trace per optimizer case (not the grid)
		var lines []traceLine
		for _, s := range rep.Summary {
			if s.Grid || s.Case.GammaParam != gp {
				continue
			}
			sum := map[int]float64{}
			cnt := map[int]int{}
			for _, r := range rep.Rows {
				if r.Case != s.Case {
					continue
				}
				for _, t := range r.Trace {
					if !math.IsNaN(t.ELBO) && !math.IsInf(t.ELBO, 0) {
						sum[t.Iter] += t.ELBO
						cnt[t.Iter]++
					}
				}
			}
			var its []int
			for it := range sum {
				its = append(its, it)
			}
			sort.Ints(its)
			var xy plotter.XYs
			for _, it := range its {
				xy = append(xy, plotter.XY{X: float64(it), Y: sum[it] / float64(cnt[it])})
			}
			lines = append(lines, traceLine{name: s.Case.Name, xy: xy})
		}
		png := filepath.Join(o.Out, "epm_optimizers"+paramFile(gp)+".png")
		if err := plotTraces(png, fmt.Sprintf("EPM on NIPS234, K = %d, gamma q in %s", rep.K, gp), lines, 0.1); err != nil {
			return files, err
		}
		files = append(files, png)
		z := make([][]float64, len(rep.Rhos))
		for ri, r := range rep.Rhos {
			z[ri] = make([]float64, len(rep.Momenta))
			for mi, m := range rep.Momenta {
				z[ri][mi] = math.NaN()
				if s := rep.gridCell(gp, r, m); s != nil {
					z[ri][mi] = s.ELBO
				}
			}
		}
		gpng := filepath.Join(o.Out, "epm_optimizers_grid"+paramFile(gp)+".png")
		xt, yt := make([]string, len(rep.Momenta)), make([]string, len(rep.Rhos))
		for i, m := range rep.Momenta {
			xt[i] = fmt.Sprint(m)
		}
		for i, r := range rep.Rhos {
			yt[i] = fmt.Sprintf("%.4g", r)
		}
		if err := plotHeat(gpng, fmt.Sprintf("AdaDelta, %s: ELBO after %d iterations (mean of %d seeds)", gp, rep.Iterations, len(rep.GridSeeds)),
			"momentum weight (0 = plain AdaDelta)", "ρ (Zeiler's convention)", xt, yt, z); err != nil {
			return files, err
		}
		files = append(files, gpng)
	}
	md := filepath.Join(o.Out, "epm_optimizers.md")
	if err := os.WriteFile(md, []byte(optimizerMarkdown(rep)), 0o644); err != nil {
		return files, err
	}
	return append(files, md), nil
}

// gridCell returns the summary of grid cell (ρ, w) under gp, or nil.
func (rep *OptimizerReport) gridCell(gp sgvb.GammaParam, rho, w float64) *OptimizerSummary {
	for i := range rep.Summary {
		s := &rep.Summary[i]
		if s.Grid && s.Case.GammaParam == gp && s.Case.Rho == rho && s.Case.Momentum == w {
			return s
		}
	}
	return nil
}

func optimizerMarkdown(rep *OptimizerReport) string {
	gov, cpu := machine()
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	list := func(s []uint64) string {
		t := make([]string, len(s))
		for i, v := range s {
			t[i] = fmt.Sprint(v)
		}
		return strings.Join(t, ", ")
	}
	p("# Experiment 4 — optimizers on the EPM (paper Fig. 1 and Fig. 2)\n\n")
	p("Generated by `experiments/epm.RunOptimizers` (`go run ./cmd/gpp-experiments optimizers`) on %s (wall time %s). `%s`; machine: %s.\n\n",
		rep.Started.Format("2006-01-02 15:04 MST"), rep.Finished.Sub(rep.Started).Round(time.Second), gov, cpu)
	p("## Settings\n\n")
	p("* Model `examples/epm.gpp` (the hierarchical EPM of the paper's §4.1) on NIPS234 with every link in training (no missing pair), K = %d, gamma SGVB with the implicit gradient (dist.Implicit), started at the paper's point (initial means W = a = 1/K, others 1; shapes = means, rates 1). The paper's Fig. 1 used the simpler non-hierarchical network model (`networkLikelihood`, W ~ Gamma(1/K, 1)) on the same network and K; its absolute ELBOs are not comparable with these.\n", rep.K)
	p("* %d iterations of one draw each, constant step size (as in the paper), gradient estimator %s (the paper's code uses the analytic-entropy estimator). Optimizer cases: seeds %s; grid cells: seeds %s.\n", rep.Iterations, rep.Fit.Estimator, list(rep.Seeds), list(rep.GridSeeds))
	p("* Every case is run under two parameterisations of the gamma factors: %s and %s.\n", paramText(sgvb.GammaSoftplus), paramText(sgvb.GammaLogMeanShape))
	p("* ELBO: the final estimate from %d draws of q (mean log p + entropy with a control variate); tables give the mean ± sd over seeds and the mean Monte Carlo SE of one estimate. The trace is estimated every %d steps from %d draws.\n", rep.Fit.FinalDraws, rep.Fit.EvalEvery, rep.Fit.ELBODraws)
	p("* Step sizes: the sgvb defaults, which are the paper code's presets (SGD 0.001, momentum 0.001 with v ← 0.9v + 0.1g, AdaGrad 0.1, RMSprop 0.001 with decay 0.9, AdaDelta ρ = 0.9 and ε = 1e-4 with η = 1, AdaDelta+momentum ρ = 0.95 and weight 0.1 with η = 1); Adam is not in the paper: the engine's η = 0.1 and Kingma–Ba's 0.001 are both run.\n")
	p("* ρ is in Zeiler's convention (the weight of the old running average). The paper's Matlab (`gammaSGVB.m`) weights the *new* squared gradient by ρ, so its preset ρ = 0.95 is ρ = 0.05 here and its Fig. 2 grid ρ = 1 − 10^−e (e = 0.5…2) is ρ = 10^−e here; the grid runs both 10^−e and 1 − 10^−e.\n\n")
	for _, gp := range rep.Params {
		p("## Optimizers, gamma q in %s (ELBO after %d iterations)\n\n", paramText(gp), rep.Iterations)
		p("| optimizer | η | seeds | ELBO (mean ± sd over seeds) | MC SE per fit | s/fit | notes |\n")
		p("|---|---|---|---|---|---|---|\n")
		for _, s := range rep.Summary {
			if s.Grid || s.Case.GammaParam != gp {
				continue
			}
			n := fmt.Sprint(s.N)
			if s.Failed > 0 {
				n = fmt.Sprintf("%d (%d failed)", s.N, s.Failed)
			}
			p("| %s | %g | %s | %.1f ± %.1f | %.1f | %.1f | %s |\n", s.Case.Name, s.StepSize, n, s.ELBO, s.SD, s.MCSE, meanSeconds(rep.Rows, s.Case), optNotes(rep.Rows, s.Case))
		}
		if best := rep.Best(gp, false); best != nil {
			p("\nHighest mean ELBO: **%s** (%.1f ± %.1f).\n", best.Case.Name, best.ELBO, best.SD)
		}
		p("\n![ELBO traces](epm_optimizers%s.png)\n\n", paramFile(gp))
	}
	for _, gp := range rep.Params {
		p("## AdaDelta ρ × momentum weight, gamma q in %s (mean ± sd over seeds)\n\n", paramText(gp))
		p("| ρ (Zeiler) | paper's ρ |")
		for _, m := range rep.Momenta {
			p(" w = %g |", m)
		}
		p("\n|---|---|")
		for range rep.Momenta {
			p("---|")
		}
		p("\n")
		for _, r := range rep.Rhos {
			p("| %.4g | %.4g |", r, 1-r)
			for _, m := range rep.Momenta {
				cell := "—"
				if s := rep.gridCell(gp, r, m); s != nil {
					cell = fmt.Sprintf("%.1f ± %.1f", s.ELBO, s.SD)
					if s.Failed > 0 {
						cell += fmt.Sprintf(" (%d failed)", s.Failed)
					}
				}
				p(" %s |", cell)
			}
			p("\n")
		}
		if best := rep.Best(gp, true); best != nil {
			p("\nBest cell: ρ = %.4g (the paper's %.4g), momentum weight %g: ELBO %.1f ± %.1f.\n", best.Case.Rho, 1-best.Case.Rho, best.Case.Momentum, best.ELBO, best.SD)
		}
		p("\n![grid](epm_optimizers_grid%s.png)\n\n", paramFile(gp))
	}
	p("## Files\n\n")
	p("* `epm_optimizers.csv` (one row per case, parameterisation and seed, grid included), `epm_optimizers_traces.csv` (ELBO traces), `epm_optimizers.png` / `epm_optimizers_softplus.png` (mean trace per optimizer; the y axis is cut at the 10th percentile of all trace values so that a slow optimizer does not hide the others), `epm_optimizers_grid.png` / `epm_optimizers_grid_softplus.png` (heat maps of the grid).\n")
	return b.String()
}

// meanSeconds is the mean fit time of case c.
func meanSeconds(rows []OptimizerRow, c OptimizerCase) float64 {
	var t []float64
	for _, r := range rows {
		if r.Case == c {
			t = append(t, r.Seconds)
		}
	}
	m, _ := metrics.MeanSD(t)
	return m
}

func optNotes(rows []OptimizerRow, c OptimizerCase) string {
	var n []string
	for _, r := range rows {
		if r.Case == c && r.Note != "" {
			n = append(n, fmt.Sprintf("seed %d: %s", r.Seed, shorten(r.Note, 80)))
		}
	}
	if len(n) == 0 {
		return "—"
	}
	return strings.Join(n, "; ")
}

// csvFile is a CSV output flushed after every row.
type csvFile struct {
	path string
	f    *os.File
	w    *csv.Writer
}

func newCSV(path string, header ...string) (*csvFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	c := &csvFile{path: path, f: f, w: csv.NewWriter(f)}
	c.write(header...)
	return c, nil
}

func (c *csvFile) write(rec ...string) {
	c.w.Write(rec)
	c.w.Flush()
}

// Close flushes and closes the file; closing twice is harmless.
func (c *csvFile) Close() error {
	if c.f == nil {
		return nil
	}
	c.w.Flush()
	err := c.w.Error()
	if e := c.f.Close(); err == nil {
		err = e
	}
	c.f = nil
	return err
}

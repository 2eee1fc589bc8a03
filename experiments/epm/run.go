package epm

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"time"

	"github.com/gpplang/gpp/experiments/metrics"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/shareddata"
)

// TestFraction is the fraction of node pairs held out (Zhou 2015, Knowles
// 2015).
const TestFraction = 0.2

// Options configures Run, Tune and RunOptimizers. Only Out is required;
// every zero field takes the documented default.
type Options struct {
	Out        string    // output directory (created if absent)
	Splits     int       // number of splits, with seeds Seed, Seed+1, …; default 10
	Ks         []int     // truncation levels K; default {10, 20, 50}
	Methods    []Method  // default AllMethods (Run); RunOptimizers ignores it
	Iterations int       // SGVB iterations per fit (MAP: L-BFGS limit); 0 = Fit.Iterations (Run), 1000 (RunOptimizers)
	Seed       uint64    // seed of the first split (and of its fits); default 0
	Quick      bool      // smoke test: 1 split, K = 5 (unless Splits, Ks are given), 200 iterations, fewer draws
	Log        io.Writer // progress lines; nil: none

	// SplitsPerK lowers the number of splits for some K (time budget).
	SplitsPerK map[int]int
	// Fit are the fit settings; zero: DefaultFitSettings().
	Fit FitSettings
	// NUTS are RunNUTS's sampler settings; zero fields:
	// DefaultNUTSSettings().
	NUTS NUTSSettings
	// Network is the network's name in index.csv; default "nips234".
	Network string
	// DataDir is the shared networks folder; default
	// shareddata.Root()/networks.
	DataDir string
	// ModelPath is the model file; default examples/epm.gpp of the module
	// enclosing the working directory.
	ModelPath string
}

// DefaultFitSettings returns the settings of the full run of experiment 1,
// chosen on an inner validation split of the training pairs of split 0 and
// by the ELBO (see Tune and docs/results/epm_findings.md), never on test
// pairs: AdaDelta with momentum (the paper's optimizer, ρ = 0.95, weight
// 0.1, η = 1) at a constant step size (the paper's), 3000 steps of one draw,
// the STL estimator (the engine's default STL with control variate and the
// paper's entropy estimator let the shapes of a collapse until the log joint
// is not finite), the NMF start for the gamma families and MAP, the paper's
// start for the lognormal family (it diverges from the NMF start), and
// gamma factors moved in log shape and log mean (sgvb.GammaLogMeanShape,
// pinned because the engine's default has changed; it reaches a higher
// ELBO than the softplus coordinates in experiment 4).
//
// The lognormal family takes 8 draws per step: with one draw its gradient
// is so heavy-tailed (per-draw sd 6–40 times the mean, single draws up to
// 2500 times, once sdlog of W exceeds ~2) that AdaDelta walks q away from
// the optimum and the ELBO diverges at K ≥ 20; 8 draws keep it stable and
// give the highest final ELBO of the settings tried (epm_findings.md).
//
// q is the engine's iterate average (gpp fit's default since 2026-11-22):
// at the constant step size the last iterate keeps the step noise, and on
// the validation split the average raised every fit's ELBO by 90–220 nats
// and the validation AUC-ROC at K = 50 from 0.899/0.900 to 0.912/0.905
// (epm_average_tuning.md).
func DefaultFitSettings() FitSettings {
	return FitSettings{
		Iterations: 3000, Optimizer: sgvb.AdaDeltaMomentum, Estimator: sgvb.STL, StepDecay: -1,
		// η = 1, the paper's AdaDelta preset (and the engine's default
		// before it took 0.3 for log shape/log mean factors): every number
		// in docs/results was fitted with it.
		StepSize:   1,
		GammaParam: sgvb.GammaLogMeanShape,
		Init:       InitNMF, InitByMethod: map[Method]InitRule{Lognormal: InitPaper},
		DrawsByMethod: map[Method]int{Lognormal: 8},
		EvalEvery:     100, ELBODraws: 20, FinalDraws: 200, PredDraws: 100,
		Average: true,
	}
}

func (o Options) withDefaults() (Options, error) {
	if o.Out == "" {
		return o, errors.New("epm: Options.Out (output directory) is required")
	}
	if reflect.ValueOf(o.Fit).IsZero() {
		o.Fit = DefaultFitSettings()
	}
	ksGiven, splitsGiven := len(o.Ks) > 0, o.Splits > 0 // Quick keeps them
	if o.Splits <= 0 {
		o.Splits = 10
	}
	if len(o.Ks) == 0 {
		o.Ks = []int{10, 20, 50}
	}
	if len(o.Methods) == 0 {
		o.Methods = AllMethods
	}
	if o.Network == "" {
		o.Network = "nips234"
	}
	if o.Iterations > 0 {
		o.Fit.Iterations = o.Iterations
	}
	if o.Quick {
		o.SplitsPerK = nil
		if !splitsGiven {
			o.Splits = 1
		}
		if !ksGiven {
			o.Ks = []int{5}
		}
		if o.Iterations <= 0 {
			o.Fit.Iterations = 200
		}
		o.Fit.FinalDraws = 50
		o.Fit.PredDraws = 20
		o.Fit.Restarts = 2
	}
	o.Fit = o.Fit.withDefaults()
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.DataDir == "" {
		root := shareddata.Root()
		if root == "" {
			return o, errors.New("epm: shared data folder not found (set Options.DataDir or GPP_SHARED_DATA)")
		}
		o.DataDir = filepath.Join(root, "networks")
	}
	return o, os.MkdirAll(o.Out, 0o755)
}

func (o Options) splitsFor(k int) int {
	if n, ok := o.SplitsPerK[k]; ok && n < o.Splits {
		return n
	}
	return o.Splits
}

// load reads the network and the model o names: the set-up every
// experiment shares.
func (o Options) load() (*Network, *Model, error) {
	g, err := LoadNetwork(o.DataDir, o.Network)
	if err != nil {
		return nil, nil, err
	}
	var model *Model
	if o.ModelPath != "" {
		model, err = ReadModel(o.ModelPath)
	} else {
		model, err = FindModel()
	}
	if err != nil {
		return nil, nil, err
	}
	return g, model, nil
}

// createCSV creates the CSV file path and writes its header, flushed.
func createCSV(path string, header []string) (*os.File, *csv.Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	w := csv.NewWriter(f)
	w.Write(header)
	w.Flush()
	return f, w, nil
}

// Row is the result of one method on one split.
type Row struct {
	Split                       int
	Seed                        uint64
	K                           int // 0 for Katz (no K)
	Method                      Method
	AUCROC, AUCPR, AvgPrecision float64
	Seconds                     float64 // fit wall time (Katz: β choice and scoring)
	ELBO                        float64 // final ELBO estimate; MAP: log joint; NaN for Katz
	Iterations                  int
	// ComponentAUCROC is, for GammaMixture, the mean AUC-ROC of its
	// components alone (NaN otherwise).
	ComponentAUCROC float64
	Note            string
}

// Summary is the mean and sd over splits of one (K, method).
type Summary struct {
	K                  int
	Method             Method
	N                  int // splits
	AUCROC, AUCROCSD   float64
	AUCPR, AUCPRSD     float64
	AvgPrecision, APSD float64
	Seconds, SecondsSD float64
	ELBO, ELBOSD       float64
	// ComponentAUCROC is the mean over splits of Row.ComponentAUCROC.
	ComponentAUCROC, ComponentAUCROCSD float64
	Failed                             int // fits without a prediction
}

// Report is the outcome of Run.
type Report struct {
	Network           string
	N, Links          int
	TestPairs         int
	ModelPath         string
	Options           Options // with defaults filled in
	Rows              []Row
	Summary           []Summary
	Started, Finished time.Time
	Files             []string // written files
}

// Find returns the summary of (k, m), or nil.
func (r *Report) Find(k int, m Method) *Summary {
	for i := range r.Summary {
		if r.Summary[i].K == k && r.Summary[i].Method == m {
			return &r.Summary[i]
		}
	}
	return nil
}

// linkPredHeader is the header of epm_linkpred.csv.
var linkPredHeader = []string{"split", "K", "method", "auc_roc", "auc_pr", "seconds", "elbo", "avg_precision", "seed", "iterations", "note", "component_auc_roc"}

// Run runs experiment 1, EPM link prediction: for each of o.Splits random
// splits (MakeSplit, 20 % of the node pairs held out, seeds o.Seed, …),
// each K in o.Ks and each method in o.Methods it fits examples/epm.gpp
// through the normal pipeline (training links as `links`, held-out pairs
// as the missing `unknown`), scores the test pairs by the posterior mean of
// p_unknown over Fit.PredDraws draws of q (MAP: at the point; Katz: the
// Katz index with β chosen on an inner validation split) and computes
// AUC-ROC, AUC-PR (3000 thresholds) and the average precision.
//
// It writes into o.Out: epm_linkpred.csv (one row per split, K and method;
// rows appended as fits finish), epm_linkpred.png (AUC-ROC against K with
// ±1 sd error bars), epm_linkpred_pr.png (the same for AUC-PR) and
// epm_linkpred.md (settings, summary table, outcome against the goals). A
// failed fit is a row with NaN metrics and the error in its note. On
// cancellation it writes what it has and returns the partial report with
// ctx.Err().
func Run(ctx context.Context, o Options) (*Report, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	g, model, err := o.load()
	if err != nil {
		return nil, err
	}
	rep := &Report{Network: g.Name, N: g.N, Links: len(g.Links), TestPairs: NumTest(g.N, TestFraction), ModelPath: model.Path, Options: o, Started: time.Now()}
	csvPath := filepath.Join(o.Out, "epm_linkpred.csv")
	f, w, err := createCSV(csvPath, linkPredHeader)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rep.Files = append(rep.Files, csvPath)
	add := func(r Row) {
		rep.Rows = append(rep.Rows, r)
		w.Write(r.record())
		w.Flush()
		fmt.Fprintf(o.Log, "split %d K=%-3d %-15s AUC-ROC %.4f AUC-PR %.4f AP %.4f %7.1fs ELBO %.1f %s\n",
			r.Split, r.K, r.Method, r.AUCROC, r.AUCPR, r.AvgPrecision, r.Seconds, r.ELBO, r.Note)
	}
	var runErr error
splits:
	for si := 0; si < o.Splits; si++ {
		seed := o.Seed + uint64(si)
		split := MakeSplit(g, TestFraction, seed)
		fmt.Fprintf(o.Log, "split %d (seed %d): %d test pairs (%d links), %d training links\n",
			si, seed, len(split.Test), split.TestLinks(), len(split.Train))
		for _, m := range o.Methods {
			if m == KatzIndex {
				add(katzRow(g, split, si))
			}
		}
		for _, k := range o.Ks {
			if si >= o.splitsFor(k) {
				continue
			}
			for _, m := range o.Methods {
				if m == KatzIndex {
					continue
				}
				if err := ctx.Err(); err != nil {
					runErr = err
					break splits
				}
				r, err := fitRow(ctx, model, g, split, si, k, m, o.Fit)
				if err != nil && ctx.Err() != nil {
					runErr = ctx.Err()
					break splits
				}
				add(r)
			}
		}
	}
	if err := w.Error(); err != nil {
		return rep, err
	}
	rep.Finished = time.Now()
	rep.Summary = summarize(rep.Rows)
	files, err := writeLinkPredOutputs(rep)
	rep.Files = append(rep.Files, files...)
	if err != nil {
		return rep, err
	}
	return rep, runErr
}

func (r Row) record() []string {
	return []string{
		strconv.Itoa(r.Split), strconv.Itoa(r.K), string(r.Method),
		ftoa(r.AUCROC), ftoa(r.AUCPR), strconv.FormatFloat(r.Seconds, 'f', 3, 64), ftoa(r.ELBO),
		ftoa(r.AvgPrecision), strconv.FormatUint(r.Seed, 10), strconv.Itoa(r.Iterations), r.Note,
		ftoa(r.ComponentAUCROC),
	}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }

// katzRow scores a split by the Katz index, β chosen on an inner split.
func katzRow(g *Network, split *Split, si int) Row {
	start := time.Now()
	r := Row{Split: si, Seed: split.Seed, Method: KatzIndex, ELBO: math.NaN(), AUCROC: math.NaN(), AUCPR: math.NaN(), AvgPrecision: math.NaN(), ComponentAUCROC: math.NaN()}
	inner := InnerSplit(g, split, TestFraction, split.Seed)
	f, vauc, err := ChooseKatzBeta(g.N, inner)
	if err == nil {
		var s []float64
		if s, err = KatzScores(g.N, split, f); err == nil {
			r.setMetrics(s, split.TestLink)
			r.Note = fmt.Sprintf("beta=%g/lambda_max (validation AUC-ROC %.4f)", f, vauc)
		}
	}
	if err != nil {
		r.Note = "error: " + err.Error()
	}
	r.Seconds = time.Since(start).Seconds()
	return r
}

func (r *Row) setMetrics(scores []float64, labels []bool) {
	r.AUCROC = metrics.AUCROC(scores, labels)
	r.AUCPR = metrics.AUCPR(scores, labels, metrics.DefaultThresholds)
	r.AvgPrecision = metrics.AveragePrecision(scores, labels)
}

// fitRow fits one method and scores the split's test pairs.
func fitRow(ctx context.Context, model *Model, g *Network, split *Split, si, k int, m Method, fs FitSettings) (Row, error) {
	r := Row{Split: si, Seed: split.Seed, K: k, Method: m, AUCROC: math.NaN(), AUCPR: math.NaN(), AvgPrecision: math.NaN(), ELBO: math.NaN(), ComponentAUCROC: math.NaN()}
	fr, err := model.Fit(ctx, k, g.N, split.Train, split.Missing(), m, fs, split.Seed)
	if fr != nil {
		r.Seconds, r.ELBO = fr.Seconds, fr.ELBO
		r.Iterations = fr.Result.Iterations
		if fr.P != nil {
			r.setMetrics(fr.P[:len(split.Test)], split.TestLink)
		}
		if len(fr.Components) > 0 {
			r.ComponentAUCROC = 0
			for _, c := range fr.Components {
				r.ComponentAUCROC += metrics.AUCROC(c.P[:len(split.Test)], split.TestLink) / float64(len(fr.Components))
			}
		}
		r.Note = fitNote(fr)
	}
	if err != nil {
		r.Note = join(r.Note, "error: "+err.Error())
	}
	return r, err
}

func fitNote(fr *FitResult) string {
	var n string
	if len(fr.Components) > 0 {
		for i, c := range fr.Components {
			if cn := fitNote(c); cn != "" {
				n = join(n, fmt.Sprintf("component %d: %s", i, cn))
			}
		}
		return n
	}
	res := fr.Result
	if res.BadSteps > 0 {
		n = join(n, fmt.Sprintf("%d non-finite steps skipped", res.BadSteps))
	}
	if fr.FitErr != nil {
		n = join(n, "stopped early: "+fr.FitErr.Error())
	}
	if fr.Redrawn > 0 {
		n = join(n, fmt.Sprintf("%d prediction draws redrawn", fr.Redrawn))
	}
	if res.Method == sgvb.MAP && !res.Converged {
		n = join(n, "L-BFGS did not converge")
	}
	return n
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// summarize groups rows by (K, method) in the order of first appearance,
// Katz first.
func summarize(rows []Row) []Summary {
	type key struct {
		k int
		m Method
	}
	var order []key
	groups := map[key][]Row{}
	for _, r := range rows {
		kk := key{r.K, r.Method}
		if _, ok := groups[kk]; !ok {
			order = append(order, kk)
		}
		groups[kk] = append(groups[kk], r)
	}
	var out []Summary
	for _, kk := range order {
		g := groups[kk]
		col := func(f func(Row) float64) (float64, float64) {
			x := make([]float64, len(g))
			for i, r := range g {
				x[i] = f(r)
			}
			return metrics.MeanSD(x)
		}
		s := Summary{K: kk.k, Method: kk.m, N: len(g)}
		s.AUCROC, s.AUCROCSD = col(func(r Row) float64 { return r.AUCROC })
		s.AUCPR, s.AUCPRSD = col(func(r Row) float64 { return r.AUCPR })
		s.AvgPrecision, s.APSD = col(func(r Row) float64 { return r.AvgPrecision })
		s.Seconds, s.SecondsSD = col(func(r Row) float64 { return r.Seconds })
		s.ELBO, s.ELBOSD = col(func(r Row) float64 { return r.ELBO })
		s.ComponentAUCROC, s.ComponentAUCROCSD = col(func(r Row) float64 { return r.ComponentAUCROC })
		for _, r := range g {
			if math.IsNaN(r.AUCROC) {
				s.Failed++
			}
		}
		out = append(out, s)
	}
	return out
}

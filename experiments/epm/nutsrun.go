package epm

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gpplang/gpp/experiments/metrics"
)

// RhatOK is the R̂ threshold of the reports (Vehtari et al. 2021).
const RhatOK = 1.01

// NUTSRow is the result of NUTS on one split.
type NUTSRow struct {
	Split                       int
	Seed                        uint64
	K                           int
	Chains, Warmup              int // the sampler's (Draws are the kept draws of all chains)
	AUCROC, AUCPR, AvgPrecision float64
	Seconds                     float64
	Divergent, MaxDepth, Draws  int
	RhatLatents, RhatR, RhatP   float64
	RhatLP, MinESSP             float64
	StepSize, MeanLeapfrogs     float64
	Note                        string
}

// nutsHeader is the header of epm_nuts.csv.
var nutsHeader = []string{"split", "K", "method", "auc_roc", "auc_pr", "avg_precision", "seconds", "divergent", "max_treedepth",
	"draws", "rhat_max_latents", "rhat_max_r", "rhat_max_p_unknown", "rhat_lp", "ess_bulk_min_p_unknown", "step_size", "mean_leapfrogs", "seed", "note", "chains", "warmup"}

func (r NUTSRow) record() []string {
	return []string{strconv.Itoa(r.Split), strconv.Itoa(r.K), string(NUTS), ftoa(r.AUCROC), ftoa(r.AUCPR), ftoa(r.AvgPrecision),
		strconv.FormatFloat(r.Seconds, 'f', 3, 64), strconv.Itoa(r.Divergent), strconv.Itoa(r.MaxDepth), strconv.Itoa(r.Draws),
		ftoa(r.RhatLatents), ftoa(r.RhatR), ftoa(r.RhatP), ftoa(r.RhatLP), ftoa(r.MinESSP), ftoa(r.StepSize), ftoa(r.MeanLeapfrogs),
		strconv.FormatUint(r.Seed, 10), r.Note, strconv.Itoa(r.Chains), strconv.Itoa(r.Warmup)}
}

// NUTSReport is the outcome of RunNUTS.
type NUTSReport struct {
	Network           string
	N, Links          int
	TestPairs         int
	ModelPath         string
	Options           Options // with defaults filled in
	Rows              []NUTSRow
	Started, Finished time.Time
	Files             []string
	Interrupted       bool // the context was cancelled: Rows are the splits finished before
}

// RunNUTS runs the NUTS method of experiment 1 (gpp-experiments epm-nuts):
// on the splits of Run (the same seeds, so the same test pairs) and for
// each K in o.Ks (default {10}: NUTS costs minutes a split) it samples the
// posterior of examples/epm.gpp by NUTS with o.NUTS, scores the test pairs
// by the mean of p_unknown over the kept draws and computes Run's metrics,
// with the sampler's diagnostics (divergences, R̂, ESS). o.Methods and
// o.Fit are ignored; o.Quick is 1 split at K = 5 with 2 chains of 40
// warm-up and 20 draws. It writes epm_nuts.csv (rows as splits finish) and
// epm_nuts.md into o.Out, and rewrites the NUTS line of the
// epm_linkpred.md there (if Run wrote one) from that CSV, as Run writes
// it; on cancellation it writes what it has and returns the partial
// report with ctx.Err().
func RunNUTS(ctx context.Context, o Options) (*NUTSReport, error) {
	if len(o.Ks) == 0 && !o.Quick {
		o.Ks = []int{10}
	}
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	o.NUTS = o.NUTS.withDefaults()
	if o.Quick {
		o.NUTS.Chains, o.NUTS.Warmup, o.NUTS.Draws = 2, 40, 20
	}
	g, model, err := o.load()
	if err != nil {
		return nil, err
	}
	rep := &NUTSReport{Network: g.Name, N: g.N, Links: len(g.Links), TestPairs: NumTest(g.N, TestFraction), ModelPath: model.Path, Options: o, Started: time.Now()}
	csvPath := filepath.Join(o.Out, "epm_nuts.csv")
	f, w, err := createCSV(csvPath, nutsHeader)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rep.Files = append(rep.Files, csvPath)
	var runErr error
splits:
	for si := 0; si < o.Splits; si++ {
		seed := o.Seed + uint64(si)
		split := MakeSplit(g, TestFraction, seed)
		for _, k := range o.Ks {
			if si >= o.splitsFor(k) {
				continue
			}
			if err := ctx.Err(); err != nil {
				runErr = err
				break splits
			}
			r := NUTSRow{Split: si, Seed: seed, K: k, Chains: o.NUTS.Chains, Warmup: o.NUTS.Warmup, AUCROC: math.NaN(), AUCPR: math.NaN(), AvgPrecision: math.NaN()}
			ns, begin := o.NUTS, time.Now()
			ns.Progress = func(c, iter int, warmup bool) {
				if iter%100 == 0 {
					fmt.Fprintf(o.Log, "split %d K=%d chain %d: iteration %d/%d after %.0fs\n", si, k, c, iter, ns.Warmup+ns.Draws, time.Since(begin).Seconds())
				}
			}
			nr, err := model.SampleNUTS(ctx, k, g.N, split.Train, split.Missing(), ns, seed)
			if err != nil && ctx.Err() != nil {
				runErr = ctx.Err()
				break splits
			}
			if err != nil {
				r.Note = "error: " + err.Error()
			} else {
				s := nr.P[:len(split.Test)]
				r.AUCROC = metrics.AUCROC(s, split.TestLink)
				r.AUCPR = metrics.AUCPR(s, split.TestLink, metrics.DefaultThresholds)
				r.AvgPrecision = metrics.AveragePrecision(s, split.TestLink)
				r.Seconds, r.Divergent, r.MaxDepth, r.Draws = nr.Seconds, nr.Divergent, nr.MaxDepth, nr.Draws
				r.RhatLatents, r.RhatR, r.RhatP, r.RhatLP, r.MinESSP = nr.RhatLatents, nr.RhatR, nr.RhatP, nr.RhatLP, nr.MinESSP
				r.StepSize, r.MeanLeapfrogs = nr.StepSize, nr.MeanLeapfrogs
				if nr.Dropped > 0 {
					r.Note = fmt.Sprintf("%d draws with a non-finite p_unknown left out", nr.Dropped)
				}
			}
			rep.Rows = append(rep.Rows, r)
			w.Write(r.record())
			w.Flush()
			fmt.Fprintf(o.Log, "split %d K=%-3d nuts AUC-ROC %.4f AUC-PR %.4f %7.1fs divergent %d max-depth %d R̂ latents %.3g r %.3g p_unknown %.3g lp %.3g, min ESS p %.0f, step %.3g, %.0f leapfrogs/iter %s\n",
				r.Split, r.K, r.AUCROC, r.AUCPR, r.Seconds, r.Divergent, r.MaxDepth, r.RhatLatents, r.RhatR, r.RhatP, r.RhatLP, r.MinESSP, r.StepSize, r.MeanLeapfrogs, r.Note)
		}
	}
	if err := w.Error(); err != nil {
		return rep, err
	}
	rep.Finished, rep.Interrupted = time.Now(), runErr != nil
	md := filepath.Join(o.Out, "epm_nuts.md")
	reading := "" // the hand-written reading below the marker survives a re-run
	if old, err := os.ReadFile(md); err == nil {
		if i := strings.Index(string(old), nutsReadingMarker); i >= 0 {
			reading = "\n" + string(old[i:])
		}
	}
	if err := os.WriteFile(md, []byte(nutsMarkdown(rep)+reading), 0o644); err != nil {
		return rep, err
	}
	rep.Files = append(rep.Files, md)
	// epm_linkpred.md's NUTS line, as Run writes it, from the CSV just
	// written.
	if err := updateLinkPredNUTS(o.Out); err != nil {
		return rep, err
	}
	return rep, runErr
}

// nutsReadingMarker starts the hand-written reading of epm_nuts.md, which
// a new run keeps below its regenerated tables (to be checked against the
// new numbers).
const nutsReadingMarker = "<!-- reading: written by hand, kept by a re-run; check it against the tables above -->"

// NUTSSummary is the mean and sd over splits of NUTS at one K.
type NUTSSummary struct {
	K                                  int
	N, Failed                          int
	AUCROC, AUCROCSD, AUCPR, AUCPRSD   float64
	AvgPrecision, APSD                 float64
	Seconds, SecondsSD                 float64
	Divergent, MaxDepth                int     // totals over splits
	Draws                              int     // kept draws per split
	RhatLatents, RhatR, RhatP, RhatLP  float64 // the largest over splits
	MinESSP, StepSize, MeanLeapfrogs   float64 // mean over splits
	RhatPBelow                         int     // splits whose R̂ of p_unknown is ≤ RhatOK
	MinDivergent, MaxDivergentPerSplit int     // divergent transitions of the best and worst split
}

// Summarise groups the rows by K, in order of first appearance.
func (rep *NUTSReport) Summarise() []NUTSSummary {
	var out []NUTSSummary
	for _, k := range rep.Options.Ks {
		var g []NUTSRow
		for _, r := range rep.Rows {
			if r.K == k && !math.IsNaN(r.AUCROC) {
				g = append(g, r)
			}
		}
		s := NUTSSummary{K: k, MinDivergent: math.MaxInt}
		for _, r := range rep.Rows {
			if r.K == k {
				s.N++
				if math.IsNaN(r.AUCROC) {
					s.Failed++
				}
			}
		}
		if s.N == 0 {
			continue
		}
		col := func(f func(NUTSRow) float64) (float64, float64) {
			x := make([]float64, len(g))
			for i, r := range g {
				x[i] = f(r)
			}
			return metrics.MeanSD(x)
		}
		s.AUCROC, s.AUCROCSD = col(func(r NUTSRow) float64 { return r.AUCROC })
		s.AUCPR, s.AUCPRSD = col(func(r NUTSRow) float64 { return r.AUCPR })
		s.AvgPrecision, s.APSD = col(func(r NUTSRow) float64 { return r.AvgPrecision })
		s.Seconds, s.SecondsSD = col(func(r NUTSRow) float64 { return r.Seconds })
		s.MinESSP, _ = col(func(r NUTSRow) float64 { return r.MinESSP })
		s.StepSize, _ = col(func(r NUTSRow) float64 { return r.StepSize })
		s.MeanLeapfrogs, _ = col(func(r NUTSRow) float64 { return r.MeanLeapfrogs })
		for _, r := range g {
			s.Divergent += r.Divergent
			s.MaxDepth += r.MaxDepth
			s.Draws = r.Draws
			s.RhatLatents = max(s.RhatLatents, r.RhatLatents)
			s.RhatR = max(s.RhatR, r.RhatR)
			s.RhatP = max(s.RhatP, r.RhatP)
			s.RhatLP = max(s.RhatLP, r.RhatLP)
			if r.RhatP <= RhatOK {
				s.RhatPBelow++
			}
			s.MinDivergent = min(s.MinDivergent, r.Divergent)
			s.MaxDivergentPerSplit = max(s.MaxDivergentPerSplit, r.Divergent)
		}
		if len(g) == 0 {
			s.MinDivergent = 0
		}
		out = append(out, s)
	}
	return out
}

func nutsMarkdown(rep *NUTSReport) string {
	o := rep.Options
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	writeHeading(&b, "# Experiment 1 — EPM link prediction on "+strings.ToUpper(rep.Network)+" by NUTS",
		"`experiments/epm.RunNUTS` (`gpp-experiments epm-nuts`)", rep.Started, rep.Finished, o.Quick)
	if rep.Interrupted {
		p("**Interrupted: %d of the %d splits finished (the time budget); the table holds those.**\n\n", len(rep.Rows)/len(o.Ks), o.Splits)
	}
	p("## Protocol\n\n")
	p("* The splits, model and data binding of `epm_linkpred.md` (the same seeds %d–%d, so the same %d test pairs per split; `%s` with `K` set, the training links as `links`, every held-out pair as the missing `unknown`).\n",
		o.Seed, o.Seed+uint64(o.Splits)-1, rep.TestPairs, shortPath(rep.ModelPath))
	p("* Sampler: `infer/nuts` (gpp sample's engine) on the unconstrained coordinates of `sgvb.NewUnconstrained` (the logs of the positive latents, Jacobian included), %d chains of %d warm-up and %d kept iterations, one goroutine (one core) for all chains; Stan's defaults otherwise: diag_e metric adapted in Stan's windows, adapt_delta %g, maximum tree depth %d; each chain from Stan's random start (every unconstrained coordinate uniform on (−2, 2)); seeded by the split's seed.\n",
		o.NUTS.Chains, o.NUTS.Warmup, o.NUTS.Draws, o.NUTS.Delta, o.NUTS.MaxDepth)
	p("* Prediction: the mean of `p_unknown` over all kept draws of all chains (the rule of the SGVB methods, with the draws of NUTS in place of q's); metrics as in `epm_linkpred.md`. Time: the wall time of the starts, the sampling and the predictions.\n")
	p("* Diagnostics: divergent transitions after warm-up and iterations at the maximum tree depth (summed over chains); rank-normalised split R̂ (Vehtari et al. 2021, `nuts.Rhat`) of every latent element (its maximum; also over the rates r alone), of every `p_unknown` element (invariant to relabelling the communities, which the latents' R̂ is not) and of lp__; the smallest bulk ESS over `p_unknown`.\n")
	p("* Settings were set by the time budget alone (a timing run of one chain on split 0's training data), never by test pairs.\n")
	p("\n## Results (test pairs; mean ± sd over splits)\n\n")
	p("| K | splits | AUC-ROC | AUC-PR | avg. precision | time (s) | divergent (total; per split min–max) | max-depth hits | max R̂ latents (r) | max R̂ p_unknown (splits ≤ 1.01) | max R̂ lp__ | min ESS p_unknown (mean) | step size | leapfrogs/iter |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range rep.Summarise() {
		n := fmt.Sprint(s.N)
		if s.Failed > 0 {
			n = fmt.Sprintf("%d (%d failed)", s.N, s.Failed)
		}
		p("| %d | %s | %s | %s | %s | %s | %d; %d–%d of %d | %d | %.3g (%.3g) | %.3g (%d) | %.3g | %.0f | %.3g | %.0f |\n", s.K, n,
			pm(s.AUCROC, s.AUCROCSD, 3), pm(s.AUCPR, s.AUCPRSD, 3), pm(s.AvgPrecision, s.APSD, 3), pm(s.Seconds, s.SecondsSD, 0),
			s.Divergent, s.MinDivergent, s.MaxDivergentPerSplit, s.Draws, s.MaxDepth, s.RhatLatents, s.RhatR, s.RhatP, s.RhatPBelow, s.RhatLP, s.MinESSP, s.StepSize, s.MeanLeapfrogs)
	}
	for _, s := range rep.Summarise() {
		if s.RhatP > RhatOK || s.RhatLP > RhatOK || s.Divergent > 0 {
			p("\n**K = %d: NUTS did not mix on this budget** (R̂ above %g or divergent transitions): its AUC is that of these draws, not of the posterior.\n", s.K, RhatOK)
		}
	}
	p("\nPer split: `epm_nuts.csv` (`%s`).\n", strings.Join(nutsHeader, ","))
	return b.String()
}

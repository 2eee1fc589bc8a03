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
)

// TuneCase is one candidate setting evaluated by Tune.
type TuneCase struct {
	Name   string
	K      int
	Method Method
	Fit    FitSettings
}

// TuneRow is one candidate fitted with one seed.
type TuneRow struct {
	Case                TuneCase
	FitSeed             uint64
	ValAUCROC, ValAUCPR float64
	TrainAUCROC         float64 // training pairs (links vs non-links) scored by the posterior-mean rate
	Active              int     // communities expected to generate ≥ 1 link: E[r_k](Σ_i E[W_ik])²/2 ≥ 1
	ELBO, Seconds       float64
	BadSteps            int
	Note                string
}

// TuneReport is the outcome of Tune.
type TuneReport struct {
	Rows            []TuneRow
	ValidationPairs int
	ValidationLinks int
	// NMFOnly is the validation AUC-ROC of the NMF start alone (scores
	// Σ_k H_ik H_jk, seed 1) for each K of the candidates.
	NMFOnly           map[int]float64
	Started, Finished time.Time
	Files             []string
}

// TuneCases returns the candidate settings compared by Tune: the paper's
// start with three gradient estimators, the prior and NMF starts, step
// decay against a constant step, the lognormal family and MAP with both
// starts, all at K = 10, and the paper's against the NMF start at K = 50.
func TuneCases() []TuneCase {
	base := DefaultFitSettings()
	with := func(f func(*FitSettings)) FitSettings {
		s := base
		s.InitByMethod = nil
		f(&s)
		return s
	}
	return []TuneCase{
		{"paper start, entropy estimator (the paper's)", 10, GammaImplicit, with(func(s *FitSettings) { s.Init, s.Estimator = InitPaper, sgvb.Entropy })},
		{"paper start, engine default estimator (stl-cv)", 10, GammaImplicit, with(func(s *FitSettings) { s.Init, s.Estimator = InitPaper, sgvb.EstimatorAuto })},
		{"paper start, stl", 10, GammaImplicit, with(func(s *FitSettings) { s.Init = InitPaper })},
		{"prior start, stl", 10, GammaImplicit, with(func(s *FitSettings) { s.Init = InitPrior })},
		{"nmf start, stl, step decay 1000", 10, GammaImplicit, with(func(s *FitSettings) { s.StepDecay = 0 })},
		{"nmf start, stl, constant step (default)", 10, GammaImplicit, with(func(s *FitSettings) {})},
		{"lognormal, paper start (default)", 10, Lognormal, with(func(s *FitSettings) { s.Init = InitPaper })},
		{"lognormal, nmf start", 10, Lognormal, with(func(s *FitSettings) {})},
		{"map, paper start", 10, MAP, with(func(s *FitSettings) { s.Init = InitPaper })},
		{"map, nmf start (default)", 10, MAP, with(func(s *FitSettings) {})},
		{"paper start, stl", 50, GammaImplicit, with(func(s *FitSettings) { s.Init = InitPaper })},
		{"nmf start, stl, constant step (default)", 50, GammaImplicit, with(func(s *FitSettings) {})},
	}
}

// K50Cases are the follow-up candidates at K = 50 (gamma SGVB, implicit
// gradient): the default NMF start for 3000 and 10000 steps, with 4 draws
// per step and with step decay, and the prior and paper starts.
func K50Cases() []TuneCase {
	base := DefaultFitSettings()
	base.InitByMethod = nil
	with := func(f func(*FitSettings)) FitSettings {
		s := base
		f(&s)
		return s
	}
	return []TuneCase{
		{"nmf start (default), 3000 steps", 50, GammaImplicit, base},
		{"nmf start, 10000 steps", 50, GammaImplicit, with(func(s *FitSettings) { s.Iterations = 10000 })},
		{"nmf start, 4 draws per step", 50, GammaImplicit, with(func(s *FitSettings) { s.DrawsPerStep = 4 })},
		{"nmf start, step decay 1000", 50, GammaImplicit, with(func(s *FitSettings) { s.StepDecay = 0 })},
		{"prior start, 3000 steps", 50, GammaImplicit, with(func(s *FitSettings) { s.Init = InitPrior })},
		{"paper start, 10000 steps", 50, GammaImplicit, with(func(s *FitSettings) { s.Init, s.Iterations = InitPaper, 10000 })},
	}
}

// AverageCases compare, at K = 10 and K = 50, the last iterate of a
// gamma-implicit fit under DefaultFitSettings (the paper's protocol) with
// the engine's iterate average (FitSettings.Average, gpp fit's default),
// the study that made the average the default (epm_average_tuning.md).
func AverageCases() []TuneCase {
	base := DefaultFitSettings()
	base.InitByMethod, base.Average = nil, false
	avg := base
	avg.Average = true
	return atK10And50(TuneCase{Name: "nmf start (default), last iterate", Method: GammaImplicit, Fit: base},
		TuneCase{Name: "nmf start, iterate average", Method: GammaImplicit, Fit: avg})
}

// MixtureCases compare one gamma-implicit fit with the equal-weight
// mixture of 8 of them (GammaMixture) at K = 10 and K = 50, under
// DefaultFitSettings.
func MixtureCases() []TuneCase {
	base := DefaultFitSettings()
	base.InitByMethod, base.Restarts = nil, 8
	return atK10And50(TuneCase{Name: "nmf start (default), one fit", Method: GammaImplicit, Fit: base},
		TuneCase{Name: "nmf start (default), mixture of 8 fits", Method: GammaMixture, Fit: base})
}

// atK10And50 returns the candidates a and b at K = 10, then at K = 50.
func atK10And50(a, b TuneCase) []TuneCase {
	var cases []TuneCase
	for _, k := range []int{10, 50} {
		a.K, b.K = k, k
		cases = append(cases, a, b)
	}
	return cases
}

// Tune compares candidate settings (TuneCases, each with fit seeds 1 and
// 2) on an inner validation split: the training pairs of split o.Seed are
// split again by the same rule (20 % of them held out; InnerSplit with seed
// o.Seed), the model is fitted to the inner training links with both the
// validation and the outer test pairs missing, and the validation pairs are
// scored. The outer test pairs are never scored. It writes epm_tuning.csv
// and epm_tuning.md into o.Out. o.Iterations overrides the candidates'
// iterations; Quick runs the first two candidates at K = 5 for 100
// iterations.
func Tune(ctx context.Context, o Options) (*TuneReport, error) {
	cases := TuneCases()
	if o.Quick {
		cases = cases[:2]
		for i := range cases {
			cases[i].K = 5
			cases[i].Fit.Iterations = 100
		}
	}
	return TuneWith(ctx, o, cases, "epm_tuning", "choice of the fit settings on a validation split")
}

// TuneWith is Tune with the given candidates, writing BASE.csv and BASE.md
// titled title.
func TuneWith(ctx context.Context, o Options, cases []TuneCase, base, title string) (*TuneReport, error) {
	o.Quick = false
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	g, model, err := o.load()
	if err != nil {
		return nil, err
	}
	outer := MakeSplit(g, TestFraction, o.Seed)
	inner := InnerSplit(g, outer, TestFraction, o.Seed)
	rep := &TuneReport{ValidationPairs: len(inner.Test), ValidationLinks: inner.TestLinks(), Started: time.Now()}
	rep.NMFOnly = map[int]float64{}
	for _, c := range cases {
		if _, ok := rep.NMFOnly[c.K]; ok {
			continue
		}
		h := SymNMF(g.N, c.K, inner.Train, NMFIters, 1)
		sc := make([]float64, len(inner.Test))
		for q, pr := range inner.Test {
			for j := 0; j < c.K; j++ {
				sc[q] += h[pr.I*c.K+j] * h[pr.J*c.K+j]
			}
		}
		rep.NMFOnly[c.K] = metrics.AUCROC(sc, inner.TestLink)
	}
	path := filepath.Join(o.Out, base+".csv")
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w := csv.NewWriter(f)
	w.Write([]string{"case", "K", "method", "fit_seed", "val_auc_roc", "val_auc_pr", "train_auc_roc", "active", "elbo", "seconds", "bad_steps", "note"})
	rep.Files = append(rep.Files, path)
	var runErr error
loop:
	for _, c := range cases {
		if o.Iterations > 0 {
			c.Fit.Iterations = o.Iterations
		}
		for fs := uint64(1); fs <= 2; fs++ {
			if runErr = ctx.Err(); runErr != nil {
				break loop
			}
			r := tuneFit(ctx, model, g, inner, c, fs)
			rep.Rows = append(rep.Rows, r)
			w.Write([]string{c.Name, strconv.Itoa(c.K), string(c.Method), strconv.FormatUint(fs, 10), ftoa(r.ValAUCROC), ftoa(r.ValAUCPR),
				ftoa(r.TrainAUCROC), strconv.Itoa(r.Active), ftoa(r.ELBO), strconv.FormatFloat(r.Seconds, 'f', 2, 64), strconv.Itoa(r.BadSteps), r.Note})
			w.Flush()
			fmt.Fprintf(o.Log, "tune K=%-3d %-15s %-48s seed %d: val AUC-ROC %.4f train %.4f active %2d ELBO %.1f %.1fs %s\n",
				c.K, c.Method, c.Name, fs, r.ValAUCROC, r.TrainAUCROC, r.Active, r.ELBO, r.Seconds, r.Note)
		}
	}
	rep.Finished = time.Now()
	md := filepath.Join(o.Out, base+".md")
	if err := os.WriteFile(md, []byte(tuneMarkdown(rep, o, g, title)), 0o644); err != nil {
		return rep, err
	}
	rep.Files = append(rep.Files, md)
	return rep, runErr
}

func tuneFit(ctx context.Context, model *Model, g *Network, inner *Split, c TuneCase, seed uint64) TuneRow {
	r := TuneRow{Case: c, FitSeed: seed, ValAUCROC: math.NaN(), ValAUCPR: math.NaN(), TrainAUCROC: math.NaN(), ELBO: math.NaN()}
	fr, err := model.Fit(ctx, c.K, g.N, inner.Train, inner.Missing(), c.Method, c.Fit, seed)
	if fr != nil {
		r.ELBO, r.Seconds, r.BadSteps = fr.ELBO, fr.Seconds, fr.Result.BadSteps
		r.Note = fitNote(fr)
		if fr.P != nil {
			r.ValAUCROC = metrics.AUCROC(fr.P[:len(inner.Test)], inner.TestLink)
			r.ValAUCPR = metrics.AUCPR(fr.P[:len(inner.Test)], inner.TestLink, metrics.DefaultThresholds)
		}
		r.TrainAUCROC, r.Active = trainFit(fr.Result, g.N, c.K, inner)
	}
	if err != nil {
		r.Note = join(r.Note, "error: "+err.Error())
	}
	return r
}

// activeShare is the share of the expected links above which a community
// counts as active.
const activeShare = 0.05

// trainFit scores the training pairs (all pairs not missing) by the rate
// Σ_k E[r_k] E[W_ik] E[W_jk] and counts the communities expected to
// generate at least one link.
func trainFit(res *sgvb.Result, n, k int, s *Split) (auc float64, active int) {
	wf, rf := res.Factor("W"), res.Factor("r")
	if wf == nil || rf == nil {
		return math.NaN(), 0
	}
	W, r := wf.Mean(), rf.Mean()
	missing := make([]bool, n*n)
	for _, p := range s.Missing() {
		missing[p.I*n+p.J] = true
	}
	link := make([]bool, n*n)
	for _, p := range s.Train {
		link[p.I*n+p.J] = true
	}
	var sc []float64
	var lb []bool
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if missing[i*n+j] {
				continue
			}
			rate := 0.0
			for c := 0; c < k; c++ {
				rate += r[c] * W[i*k+c] * W[j*k+c]
			}
			sc = append(sc, rate)
			lb = append(lb, link[i*n+j])
		}
	}
	return metrics.AUCROC(sc, lb), len(activeCommunities(W, r, n, k))
}

// activeCommunities returns the communities c that generate at least
// activeShare of the expected links Σ_{i<j} r_c W_ic W_jc at the posterior
// means W (n × k, row-major) and r.
func activeCommunities(W, r []float64, n, k int) []int {
	links := make([]float64, k)
	total := 0.0
	for c := 0; c < k; c++ {
		col, sq := 0.0, 0.0
		for i := 0; i < n; i++ {
			col += W[i*k+c]
			sq += W[i*k+c] * W[i*k+c]
		}
		links[c] = r[c] * (col*col - sq) / 2
		total += links[c]
	}
	var active []int
	for c, l := range links {
		if l >= activeShare*total {
			active = append(active, c)
		}
	}
	return active
}

func tuneMarkdown(rep *TuneReport, o Options, g *Network, title string) string {
	gov, cpu := machine()
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# Experiment 1 — %s\n\n", title)
	p("Generated by `experiments/epm.TuneWith` on %s (wall time %s). `%s`; machine: %s.\n\n",
		rep.Started.Format("2006-01-02 15:04 MST"), rep.Finished.Sub(rep.Started).Round(time.Second), gov, cpu)
	p("The training pairs of split %d (%s) are split again by the same rule: %d validation pairs (%d links). Each candidate is fitted to the remaining training links with the validation **and** the outer test pairs missing, with fit seeds 1 and 2; only validation pairs are scored. Train AUC-ROC scores the training pairs by the posterior-mean rate (a fit-quality check); *active* counts communities that generate ≥ 5 %% of the expected links at the posterior means. Unless the case says otherwise: %s.\n\n",
		o.Seed, g.Name, rep.ValidationPairs, rep.ValidationLinks, strings.Join(describeFit(DefaultFitSettings().withDefaults(), nil)[:2], "; "))
	for _, r := range rep.Rows {
		if r.Case.Method == GammaMixture {
			p("A %s row predicts by the mean of its %d components' predictions (component 0 is the one-fit row of the same seed); its train AUC-ROC and active count are component 0's, its ELBO the mixture's own (sgvb.Mixture), its time the wall time of all components, %d at a time on two cores.\n\n",
				GammaMixture, r.Case.Fit.withDefaults().Restarts, mixtureWorkers)
			break
		}
	}
	p("| K | method | case | val AUC-ROC (seed 1, 2) | val AUC-PR | train AUC-ROC | active | final ELBO | s/fit | notes |\n")
	p("|---|---|---|---|---|---|---|---|---|---|\n")
	for i := 0; i < len(rep.Rows); {
		j := i
		for j < len(rep.Rows) && rep.Rows[j].Case.Name == rep.Rows[i].Case.Name && rep.Rows[j].Case.K == rep.Rows[i].Case.K && rep.Rows[j].Case.Method == rep.Rows[i].Case.Method {
			j++
		}
		grp := rep.Rows[i:j]
		list := func(f func(TuneRow) string) string {
			s := make([]string, len(grp))
			for q, r := range grp {
				s[q] = f(r)
			}
			return strings.Join(s, ", ")
		}
		c := grp[0].Case
		var ns []string
		for _, r := range grp {
			n := "—"
			if r.Note != "" {
				n = shorten(r.Note, 90)
			}
			ns = append(ns, n)
		}
		notes := strings.Join(ns, " / ")
		p("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.K, c.Method, c.Name,
			list(func(r TuneRow) string { return fmt.Sprintf("%.3f", r.ValAUCROC) }),
			list(func(r TuneRow) string { return fmt.Sprintf("%.3f", r.ValAUCPR) }),
			list(func(r TuneRow) string { return fmt.Sprintf("%.3f", r.TrainAUCROC) }),
			list(func(r TuneRow) string { return strconv.Itoa(r.Active) }),
			list(func(r TuneRow) string { return fmt.Sprintf("%.0f", r.ELBO) }),
			list(func(r TuneRow) string { return fmt.Sprintf("%.1f", r.Seconds) }),
			notes)
		i = j
	}
	var ks []int
	for k := range rep.NMFOnly {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	p("\nThe NMF start alone (validation pairs scored by Σ_k H_ik H_jk of SymNMF, seed 1): ")
	for i, k := range ks {
		if i > 0 {
			p(", ")
		}
		p("K = %d: AUC-ROC %.3f", k, rep.NMFOnly[k])
	}
	p(".\n")
	return b.String()
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Package vinuts measures how close gpp's SGVB fits are to NUTS on the
// bundled example models and on two posteriordb references: each model is
// fitted by `gpp fit` as examples/README.md runs it (mean-field by
// default, and with the richer family the docs recommend where they
// recommend one), sampled by `gpp sample`, and compared element by element
// by `gpp sample --against`: z = (q mean − NUTS mean)/NUTS sd and the sd
// ratio q sd / NUTS sd. NUTS starts from Stan's random start, and from
// draws of the model's richer fit (`gpp sample --init`) only where that
// start fails, times out or leaves a chain stuck (see Case).
//
// It drives the gpp command itself (built from this module, or
// Options.GPP), so that the fits, the sampler and the comparison are
// exactly what a user runs, with no second copy of the CLI's code. Run
// writes into Options.Out vi_nuts_elements.csv, vi_nuts_models.csv,
// vi_nuts.png and vi_nuts.md and returns a Report; cmd/gpp-experiments
// calls it.
package vinuts

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpplang/gpp/experiments/metrics"
	"github.com/gpplang/gpp/internal/modroot"
	"github.com/gpplang/gpp/internal/shareddata"
)

// Options configures Run. The zero value of every field selects the
// documented default.
type Options struct {
	Out   string    // output directory (created if needed); "" = the working directory
	Quick bool      // a smoke run: regression.gpp only, 2 chains × 300 after 300 warm-up
	Log   io.Writer // one progress line per run of gpp; nil = silent
	GPP   string    // the gpp binary; "" = built by `go build` from the module into a temporary directory
	Root  string    // the module's root (examples/ is read from it); "" = found from the working directory
	Cases []Case    // default Cases(quick)
	// SampleTimeout stops a run of gpp sample that takes longer (default
	// 4 minutes): NUTS stalls on some models (tiny steps at the maximum
	// tree depth), and the table then says so instead of waiting.
	SampleTimeout time.Duration

	// run runs gpp with args in Root and returns its wall time; nil =
	// the binary GPP. Tests replace it by a fake.
	run func(ctx context.Context, args []string) (float64, error)
}

// Fit is one variational fit of a Case: its label and the flags added to
// `gpp fit --seed 1`.
type Fit struct {
	Label string   // "mean-field" or the richer family's flags
	Flags []string // e.g. --fullrank all
}

// Case is one model: its data, its fits and NUTS's settings.
//
// NUTS starts from gpp's default (Stan's: every unconstrained coordinate
// uniform on (−2, 2)). If that run fails, does not finish in the time
// budget or leaves a chain stuck below the others' log density, it is run
// again with --init the case's last fit (the richer one where there are
// two), whose q's draws start the chains; every fit of the case is then
// compared with those chains.
type Case struct {
	Name  string
	Model string   // relative to the module root, or absolute
	Data  []string // gpp's data arguments, paths relative to the module root (or absolute)
	Fits  []Fit
	// Chains, Warmup and Draws are NUTS's (gpp sample's flags; one
	// worker, so that the time is one core's).
	Chains, Warmup, Draws int
	// Void says why the comparison is void for this model (NUTS's
	// posterior is multimodal by label switching, say); "" = a comparison.
	Void string
	// Shared marks a case whose data are in the shared data folder.
	Shared bool
}

// Skipped is a bundled example the experiment does not run, and why.
type Skipped struct{ Name, Reason string }

var meanField = Fit{Label: "mean-field"}

func fullrank(flags ...string) Fit {
	return Fit{Label: strings.Join(flags, " "), Flags: flags}
}

// Cases returns the models of the run: the bundled examples NUTS can
// sample in about a minute on one core and the posteriordb references
// (their data from the shared data folder).
func Cases(quick bool) []Case {
	reg := Case{Name: "regression", Model: "examples/regression.gpp", Data: []string{"examples/wine_std.csv"},
		Fits: []Fit{meanField, fullrank("--fullrank", "all")}, Chains: 4, Warmup: 1000, Draws: 1000}
	if quick {
		reg.Chains, reg.Warmup, reg.Draws = 2, 300, 300
		return []Case{reg}
	}
	pdb := func(dir, file string) []string {
		return []string{filepath.Join(shareddata.Root(), "posteriordb", dir, file)}
	}
	fr := fullrank("--fullrank", "all")
	return []Case{
		reg,
		{Name: "cultivar", Model: "examples/cultivar.gpp", Data: []string{"examples/wine_std.csv", "cultivar=examples/wine_cultivar.csv"},
			Fits: []Fit{meanField, fr}, Chains: 4, Warmup: 1000, Draws: 1000},
		{Name: "cultivar_small", Model: "examples/cultivar_small.gpp", Data: []string{"examples/wine_std.csv", "cultivar=examples/wine_cultivar.csv"},
			Fits: []Fit{meanField, fr}, Chains: 4, Warmup: 1000, Draws: 1000},
		{Name: "ordinal", Model: "examples/ordinal.gpp", Data: []string{"examples/ordinal.csv"},
			Fits: []Fit{meanField, fr}, Chains: 4, Warmup: 1000, Draws: 1000},
		{Name: "varying", Model: "examples/varying.gpp", Data: []string{"examples/varying.csv"},
			Fits: []Fit{meanField, fr}, Chains: 4, Warmup: 1000, Draws: 1000},
		{Name: "seeds", Model: "examples/seeds.gpp", Data: []string{"examples/seeds.csv"},
			Fits: []Fit{meanField, fr}, Chains: 4, Warmup: 1000, Draws: 1000},
		{Name: "gp", Model: "examples/gp.gpp", Data: []string{"examples/gp.csv"},
			Fits: []Fit{meanField}, Chains: 4, Warmup: 1000, Draws: 1000},
		{Name: "sv", Model: "examples/sv.gpp", Data: []string{"examples/sv.csv"},
			Fits: []Fit{meanField, fullrank("--fullrank", "all", "--rank", "2")}, Chains: 4, Warmup: 1000, Draws: 1000},
		{Name: "survival", Model: "examples/survival.gpp", Data: []string{"examples/survival.csv"},
			Fits: []Fit{meanField, fr}, Chains: 4, Warmup: 1000, Draws: 1000},
		{Name: "sir", Model: "examples/sir.gpp", Data: []string{"examples/sir.csv"},
			Fits: []Fit{meanField, fullrank("--fullrank", "beta+gamma")}, Chains: 4, Warmup: 500, Draws: 500},
		{Name: "mixture", Model: "examples/mixture.gpp", Data: []string{"examples/wine_std.csv"},
			Fits: []Fit{meanField}, Chains: 4, Warmup: 1000, Draws: 1000,
			Void: "two normal components with no order: the posterior has two labellings, which chains may visit apart; q holds one"},
		{Name: "eight_schools_noncentered", Model: "examples/posteriordb/eight_schools_noncentered.gpp",
			Data: pdb("eight_schools-eight_schools_noncentered", "data.json"), Shared: true,
			Fits: []Fit{meanField, fr}, Chains: 4, Warmup: 1000, Draws: 1000},
		{Name: "kidiq_momiq", Model: "examples/posteriordb/kidiq_momiq.gpp",
			Data: pdb("kidiq-kidscore_momiq", "data.json"), Shared: true,
			Fits: []Fit{meanField, fr}, Chains: 4, Warmup: 1000, Draws: 1000},
	}
}

// SkippedExamples are the bundled examples the full run leaves out.
var SkippedExamples = []Skipped{
	{"gpfa, gpfa_diag", "factor models: the posterior is invariant to permuting the K factors (and, for gpfa_diag, nearly so to their scale), so NUTS's element means average over labellings and q's hold one; hundreds of gamma latents also put NUTS far beyond a minute"},
	{"fa", "signed loadings: invariant to permuting factors and flipping their signs, the same label switching; void for an element-wise comparison"},
	{"epm", "edge partition model: communities exchangeable (label switching), 115 × K gamma latents; NUTS would take far more than a minute"},
	{"pmf", "Poisson factorisation of 300 images: components exchangeable (label switching), thousands of gamma latents"},
}

// Elem is one element's comparison, from against.csv and NUTS's summary.
type Elem struct {
	Case, Fit, Name string
	Param           bool // a param's element (else an output's)
	QMean, QSD      float64
	Mean, SD        float64
	Z, SDRatio      float64
	Rhat            float64
	// ESSMin is min(bulk ESS, tail ESS), the figure Stan warns on.
	ESSMin  float64
	Reading string
}

// Row is one fit's summary over its param elements.
type Row struct {
	Case, Fit               string
	Chains, Warmup, Draws   int
	Elements                int     // param elements compared
	Within                  float64 // share with |z| ≤ 0.1
	MedianAbsZ, WorstAbsZ   float64
	WorstName               string
	MedianRatio, MinRatio   float64
	MinRatioName            string
	Divergences             int
	MaxRhat, MinESS         float64 // over param elements: R̂ and the smaller of bulk and tail ESS
	FitSeconds, NUTSSeconds float64
	// Init is the label of the fit whose q's draws started NUTS's chains
	// (gpp sample --init); "" = gpp's default start.
	Init string
	// DefaultErr says why NUTS from the default start was given up
	// (Init != ""): its failure, time-out or stuck chain.
	DefaultErr string
	Void       string
	Err        string
}

// Report is what Run measured.
type Report struct {
	Options Options
	Rows    []Row
	Elems   []Elem
	Skipped []Skipped
}

// Run fits, samples and compares every case, then writes the results.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Root == "" {
		root, err := moduleRoot()
		if err != nil {
			return nil, err
		}
		o.Root = root
	}
	if o.Cases == nil {
		o.Cases = Cases(o.Quick)
	}
	if o.SampleTimeout <= 0 {
		o.SampleTimeout = 4 * time.Minute
	}
	tmp, err := os.MkdirTemp("", "gpp-vinuts-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if o.GPP == "" && o.run == nil {
		o.GPP = filepath.Join(tmp, "gpp")
		cmd := exec.CommandContext(ctx, "go", "build", "-o", o.GPP, "./cmd/gpp")
		cmd.Dir = o.Root
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building gpp: %v\n%s", err, out)
		}
	}
	rep := &Report{Options: o}
	if !o.Quick {
		rep.Skipped = SkippedExamples
	}
	for _, c := range o.Cases {
		if c.Shared {
			if _, err := os.Stat(c.Data[0]); err != nil {
				rep.Skipped = append(rep.Skipped, Skipped{c.Name, "shared data absent: " + c.Data[0]})
				continue
			}
		}
		cr := &caseRun{o: o, tmp: tmp, c: c, fits: map[string]*fitRun{}}
		for _, f := range c.Fits {
			row, elems := cr.row(ctx, f)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			rep.Rows = append(rep.Rows, row)
			rep.Elems = append(rep.Elems, elems...)
			from := "default start"
			if row.Init != "" {
				from = "init from " + row.Init + " fit"
			}
			logf(o.Log, "vi-nuts: %s %s: %d elements, %.0f%% within 0.1 sd, median sd ratio %.3g, max R̂ %.3g, %d divergences, fit %.1f s, NUTS %.1f s (%s) %s",
				c.Name, f.Label, row.Elements, 100*row.Within, row.MedianRatio, row.MaxRhat, row.Divergences, row.FitSeconds, row.NUTSSeconds, from, row.Err)
		}
	}
	// NUTS's time and diagnostics are the first fit's run (every run of a
	// case draws the same chains from the same seed).
	for i := range rep.Rows {
		for j := range rep.Rows[:i] {
			if rep.Rows[j].Case == rep.Rows[i].Case && rep.Rows[j].Err == "" {
				rep.Rows[i].NUTSSeconds = rep.Rows[j].NUTSSeconds
				break
			}
		}
	}
	if err := rep.write(o.Out); err != nil {
		return nil, err
	}
	return rep, nil
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// moduleRoot walks up from the working directory to go.mod.
func moduleRoot() (string, error) {
	root, err := modroot.Find()
	if err != nil {
		return "", fmt.Errorf("vi-nuts: %w: run from the gpp module or set Options.Root", err)
	}
	return root, nil
}

// gpp runs gpp (o.run, or the binary o.GPP in the module root) and
// returns its wall time.
func gpp(ctx context.Context, o Options, args ...string) (float64, error) {
	if o.run != nil {
		return o.run(ctx, args)
	}
	cmd := exec.CommandContext(ctx, o.GPP, args...)
	cmd.Dir = o.Root
	start := time.Now()
	out, err := cmd.CombinedOutput()
	secs := time.Since(start).Seconds()
	if err != nil {
		return secs, fmt.Errorf("gpp %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return secs, nil
}

// fitRun is one fit of a case: its output directory, time and error.
type fitRun struct {
	dir     string
	seconds float64
	err     error
}

// caseRun runs one case's fits and samples: each fit once (the retry from
// a fit may need the richer fit before its row), and NUTS from the default
// start until that fails, then from the init fit.
type caseRun struct {
	o    Options
	tmp  string
	c    Case
	fits map[string]*fitRun
	// init is the fit NUTS starts from after the default start failed
	// (defaultErr says how); nutsErr ends the case's sampling: NUTS
	// failed from every start tried, so later fits are not sampled.
	init                *Fit
	defaultErr, nutsErr string
}

// fit runs `gpp fit` for f once and returns the run.
func (cr *caseRun) fit(ctx context.Context, f Fit) *fitRun {
	if r := cr.fits[f.Label]; r != nil {
		return r
	}
	slug := cr.c.Name + "-" + strconv.Itoa(len(f.Flags)) + strings.NewReplacer(" ", "", "-", "", "+", "").Replace(f.Label)
	r := &fitRun{dir: filepath.Join(cr.tmp, slug+"-fit")}
	args := append([]string{"fit", cr.c.Model}, cr.c.Data...)
	args = append(args, "--seed", "1", "--quiet", "--out", r.dir)
	args = append(args, f.Flags...)
	r.seconds, r.err = gpp(ctx, cr.o, args...)
	cr.fits[f.Label] = r
	return r
}

// sample runs `gpp sample --against` the fit at fitDir into sampleDir,
// from the default start or (init != "") from the fit at init, and
// returns its wall time and, on failure, Row.Err's text.
func (cr *caseRun) sample(ctx context.Context, fitDir, sampleDir, init string) (float64, string) {
	c := cr.c
	args := append([]string{"sample", c.Model}, c.Data...)
	args = append(args, "--seed", "1", "--quiet", "--workers", "1", "--out", sampleDir, "--against", fitDir,
		"--chains", strconv.Itoa(c.Chains), "--warmup", strconv.Itoa(c.Warmup), "--draws", strconv.Itoa(c.Draws))
	if init != "" {
		args = append(args, "--init", init)
	}
	sctx, cancel := context.WithTimeout(ctx, cr.o.SampleTimeout)
	defer cancel()
	secs, err := gpp(sctx, cr.o, args...)
	switch {
	case err == nil:
		return secs, ""
	case sctx.Err() != nil && ctx.Err() == nil:
		return secs, fmt.Sprintf("%s: gpp sample did not finish in %v", nutsFailed, cr.o.SampleTimeout)
	default:
		return secs, nutsFailed + ": " + err.Error()
	}
}

// row fits the case by f, samples it with --against the fit (from the
// default start, or from the init fit once the default start failed) and
// reads the comparison.
func (cr *caseRun) row(ctx context.Context, f Fit) (Row, []Elem) {
	c := cr.c
	row := Row{Case: c.Name, Fit: f.Label, Chains: c.Chains, Warmup: c.Warmup, Draws: c.Draws, Void: c.Void}
	fr := cr.fit(ctx, f)
	row.FitSeconds = fr.seconds
	if fr.err != nil {
		row.Err = fr.err.Error()
		return row, nil
	}
	if cr.nutsErr != "" {
		// NUTS failed from every start tried: do not wait for a stalled
		// sampler again (the chains are the same for every fit).
		row.Err, row.Init, row.DefaultErr = cr.nutsErr, cr.initLabel(), cr.defaultErr
		return row, nil
	}
	sampleDir := strings.TrimSuffix(fr.dir, "-fit") + "-nuts"
	var msg string
	if cr.init == nil {
		row.NUTSSeconds, msg = cr.sample(ctx, fr.dir, sampleDir, "")
		stuck := ""
		if msg == "" {
			var err error
			if stuck, err = stuckChain(filepath.Join(sampleDir, "draws.csv")); err != nil {
				msg = err.Error()
			}
		}
		if stuck == "" && (msg == "" || !strings.HasPrefix(msg, nutsFailed) || ctx.Err() != nil) {
			return cr.finish(row, fr.dir, sampleDir, msg)
		}
		// The default start failed: start from the case's last fit.
		if stuck != "" {
			msg = fmt.Sprintf("%s: %s (in %.0f s)", nutsStuck, stuck, row.NUTSSeconds)
		}
		cr.defaultErr = msg
		last := c.Fits[len(c.Fits)-1]
		cr.init = &last
		logf(cr.o.Log, "vi-nuts: %s %s: %s; again with --init the %s fit", c.Name, f.Label, msg, last.Label)
	}
	row.Init, row.DefaultErr = cr.initLabel(), cr.defaultErr
	ir := cr.fit(ctx, *cr.init)
	if ir.err != nil {
		cr.nutsErr = fmt.Sprintf("%s; the %s fit to start from failed: %v", cr.defaultErr, cr.init.Label, ir.err)
		row.Err = cr.nutsErr
		return row, nil
	}
	sampleDir += "-init"
	row.NUTSSeconds, msg = cr.sample(ctx, fr.dir, sampleDir, ir.dir)
	if msg != "" {
		cr.nutsErr = msg + " (from the " + cr.init.Label + " fit; from the default start: " + strings.TrimPrefix(cr.defaultErr, nutsFailed+": ") + ")"
		msg = cr.nutsErr
	}
	return cr.finish(row, fr.dir, sampleDir, msg)
}

// initLabel is the label of the fit NUTS starts from, "" while it
// starts from the default.
func (cr *caseRun) initLabel() string {
	if cr.init == nil {
		return ""
	}
	return cr.init.Label
}

// finish reads the comparison of a sample into row, or records msg, the
// sample's failure (a NUTS failure also ends the case's sampling).
func (cr *caseRun) finish(row Row, fitDir, sampleDir, msg string) (Row, []Elem) {
	if msg != "" {
		if strings.HasPrefix(msg, nutsFailed) {
			cr.nutsErr = msg
		}
		row.Err = msg
		return row, nil
	}
	elems, err := readComparison(row.Case, row.Fit, fitDir, sampleDir)
	if err == nil {
		row.Divergences, err = countDivergences(filepath.Join(sampleDir, "draws.csv"))
	}
	if err != nil {
		row.Err = err.Error()
		return row, nil
	}
	summarise(&row, elems)
	return row, elems
}

// nutsFailed begins a Row.Err of a failed or stopped gpp sample.
const nutsFailed = "NUTS failed"

// nutsStuck begins a Row.DefaultErr of a sample with a stuck chain.
const nutsStuck = "NUTS stuck"

// stuckMinDraws is the number of draws a chain needs before stuckChain
// judges it (gpp sample's threshold).
const stuckMinDraws = 20

// stuckChain reads a sample's draws.csv and says which chains were stuck
// ("" if none): a chain whose every lp__ is below every lp__ of all the
// others, the criterion of gpp sample's warning that suggests --init. Its
// start left it in a region of low density (an ODE model's epidemic that
// never takes off), not in another labelling of the same density, which
// leaves lp__ alone: a mixture's label switching is not a stuck chain.
func stuckChain(path string) (string, error) {
	rows, err := readCSV(path)
	if err != nil {
		return "", err
	}
	var lps [][]float64
	for _, r := range rows {
		c, err := strconv.Atoi(r["chain__"])
		lp := num(r["lp__"])
		if err != nil || c < 1 || math.IsNaN(lp) {
			return "", fmt.Errorf("%s: a draw without chain__ or lp__", path)
		}
		for len(lps) < c {
			lps = append(lps, nil)
		}
		lps[c-1] = append(lps[c-1], lp)
	}
	if len(lps) < 2 {
		return "", nil
	}
	for _, lp := range lps {
		if len(lp) < stuckMinDraws {
			return "", nil
		}
	}
	var out []string
	for c, lp := range lps {
		othersLo := math.Inf(1)
		for o, olp := range lps {
			if o != c {
				othersLo = math.Min(othersLo, slices.Min(olp))
			}
		}
		if hi := slices.Max(lp); hi < othersLo {
			out = append(out, fmt.Sprintf("chain %d's lp__ never reached the other chains' (at most %.4g, theirs at least %.4g)", c+1, hi, othersLo))
		}
	}
	return strings.Join(out, "; "), nil
}

// readCSV reads a CSV with a header into rows keyed by column name.
func readCSV(path string) ([]map[string]string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r := csv.NewReader(fh)
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = rec[i]
		}
		rows = append(rows, m)
	}
	return rows, nil
}

func num(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// readComparison joins the sample's against.csv with its summary.csv
// (R̂, ESS) and the fit's summary.csv (which elements are params': their
// family is not "output").
func readComparison(caseName, fit, fitDir, sampleDir string) ([]Elem, error) {
	against, err := readCSV(filepath.Join(sampleDir, "against.csv"))
	if err != nil {
		return nil, err
	}
	nuts, err := readCSV(filepath.Join(sampleDir, "summary.csv"))
	if err != nil {
		return nil, err
	}
	q, err := readCSV(filepath.Join(fitDir, "summary.csv"))
	if err != nil {
		return nil, err
	}
	family, diag := map[string]string{}, map[string]map[string]string{}
	for _, r := range q {
		family[r["name"]] = r["family"]
	}
	for _, r := range nuts {
		diag[r["name"]] = r
	}
	var elems []Elem
	for _, r := range against {
		name := r["name"]
		d := diag[name]
		if d == nil {
			return nil, fmt.Errorf("%s: %s not in NUTS's summary", sampleDir, name)
		}
		elems = append(elems, Elem{Case: caseName, Fit: fit, Name: name, Param: family[name] != "output",
			QMean: num(r["q_mean"]), QSD: num(r["q_sd"]), Mean: num(r["mean"]), SD: num(r["sd"]),
			Z: num(r["z"]), SDRatio: num(r["sd_ratio"]), Rhat: num(d["rhat"]),
			ESSMin: math.Min(num(d["ess_bulk"]), num(d["ess_tail"])), Reading: r["reading"]})
	}
	return elems, nil
}

// countDivergences counts the post-warm-up draws marked divergent__.
func countDivergences(path string) (int, error) {
	rows, err := readCSV(path)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range rows {
		if r["divergent__"] == "1" {
			n++
		}
	}
	return n, nil
}

// summarise fills row's statistics over the param elements with a finite
// z and sd ratio (a constant element, NUTS sd 0, has neither).
func summarise(row *Row, elems []Elem) {
	var zs, ratios []float64
	row.MaxRhat, row.MinESS, row.MinRatio = math.NaN(), math.NaN(), math.NaN()
	within := 0
	for _, e := range elems {
		if !e.Param || math.IsNaN(e.Z) || math.IsNaN(e.SDRatio) || math.IsInf(e.Z, 0) {
			continue
		}
		az := math.Abs(e.Z)
		zs, ratios = append(zs, az), append(ratios, e.SDRatio)
		if az <= 0.1 {
			within++
		}
		if len(zs) == 1 || az > row.WorstAbsZ {
			row.WorstAbsZ, row.WorstName = az, e.Name
		}
		if len(ratios) == 1 || e.SDRatio < row.MinRatio {
			row.MinRatio, row.MinRatioName = e.SDRatio, e.Name
		}
		if !math.IsNaN(e.Rhat) && !(e.Rhat <= row.MaxRhat) {
			row.MaxRhat = e.Rhat
		}
		if !math.IsNaN(e.ESSMin) && !(e.ESSMin >= row.MinESS) {
			row.MinESS = e.ESSMin
		}
	}
	row.Elements = len(zs)
	if len(zs) == 0 {
		row.Within, row.MedianAbsZ, row.MedianRatio, row.WorstAbsZ = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return
	}
	row.Within = float64(within) / float64(len(zs))
	row.MedianAbsZ, row.MedianRatio = metrics.Median(zs), metrics.Median(ratios)
}

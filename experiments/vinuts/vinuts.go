// Package vinuts measures how close gpp's SGVB fits are to NUTS on the
// bundled example models and on two posteriordb references: each model is
// fitted by `gpp fit` as examples/README.md runs it (mean-field by
// default, and with the richer family the docs recommend where they
// recommend one), sampled by `gpp sample`, and compared element by element
// by `gpp sample --against`: z = (q mean − NUTS mean)/NUTS sd and the sd
// ratio q sd / NUTS sd.
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
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

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
}

// Fit is one variational fit of a Case: its label and the flags added to
// `gpp fit --seed 1`.
type Fit struct {
	Label string   // "mean-field" or the richer family's flags
	Flags []string // e.g. --fullrank all
}

// Case is one model: its data, its fits and NUTS's settings.
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
			Fits: []Fit{meanField}, Chains: 4, Warmup: 1000, Draws: 1000},
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
	Void                    string
	Err                     string
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
	if o.GPP == "" {
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
		nutsErr := ""
		for _, f := range c.Fits {
			var row Row
			var elems []Elem
			if nutsErr != "" {
				// The case's chains are the same for every fit: do not
				// wait for a stalled sampler twice.
				row = Row{Case: c.Name, Fit: f.Label, Chains: c.Chains, Warmup: c.Warmup, Draws: c.Draws, Void: c.Void, Err: nutsErr}
			} else {
				row, elems = runFit(ctx, o, tmp, c, f)
				if strings.HasPrefix(row.Err, nutsFailed) {
					nutsErr = row.Err
				}
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			rep.Rows = append(rep.Rows, row)
			rep.Elems = append(rep.Elems, elems...)
			logf(o.Log, "vi-nuts: %s %s: %d elements, %.0f%% within 0.1 sd, median sd ratio %.3g, max R̂ %.3g, %d divergences, fit %.1f s, NUTS %.1f s %s",
				c.Name, f.Label, row.Elements, 100*row.Within, row.MedianRatio, row.MaxRhat, row.Divergences, row.FitSeconds, row.NUTSSeconds, row.Err)
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
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("vi-nuts: no go.mod above the working directory: run from the gpp module or set Options.Root")
		}
		dir = up
	}
}

// gpp runs the gpp binary in the module root and returns its wall time.
func gpp(ctx context.Context, o Options, args ...string) (float64, error) {
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

// runFit fits c by f, samples c with --against the fit and reads the
// comparison.
func runFit(ctx context.Context, o Options, tmp string, c Case, f Fit) (Row, []Elem) {
	row := Row{Case: c.Name, Fit: f.Label, Chains: c.Chains, Warmup: c.Warmup, Draws: c.Draws, Void: c.Void}
	slug := c.Name + "-" + strconv.Itoa(len(f.Flags)) + strings.NewReplacer(" ", "", "-", "", "+", "").Replace(f.Label)
	fitDir, sampleDir := filepath.Join(tmp, slug+"-fit"), filepath.Join(tmp, slug+"-nuts")
	args := append([]string{"fit", c.Model}, c.Data...)
	args = append(args, "--seed", "1", "--quiet", "--out", fitDir)
	args = append(args, f.Flags...)
	var err error
	if row.FitSeconds, err = gpp(ctx, o, args...); err != nil {
		row.Err = err.Error()
		return row, nil
	}
	args = append([]string{"sample", c.Model}, c.Data...)
	args = append(args, "--seed", "1", "--quiet", "--workers", "1", "--out", sampleDir, "--against", fitDir,
		"--chains", strconv.Itoa(c.Chains), "--warmup", strconv.Itoa(c.Warmup), "--draws", strconv.Itoa(c.Draws))
	sctx, cancel := context.WithTimeout(ctx, o.SampleTimeout)
	defer cancel()
	if row.NUTSSeconds, err = gpp(sctx, o, args...); err != nil {
		if sctx.Err() != nil && ctx.Err() == nil {
			row.Err = fmt.Sprintf("%s: gpp sample did not finish in %v", nutsFailed, o.SampleTimeout)
		} else {
			row.Err = nutsFailed + ": " + err.Error()
		}
		return row, nil
	}
	elems, err := readComparison(c.Name, f.Label, fitDir, sampleDir)
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
	row.MedianAbsZ, row.MedianRatio = median(zs), median(ratios)
}

// median returns the median of v (which it sorts).
func median(v []float64) float64 {
	sort.Float64s(v)
	n := len(v)
	return (v[(n-1)/2] + v[n/2]) / 2
}

package pmf

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gpplang/gpp/experiments/metrics"
)

// CSVHeader is the header of pmf_digits.csv.
var CSVHeader = []string{"split", "k", "method", "heldout_ll_plugin", "heldout_ll_predictive", "elbo", "iterations", "seconds", "error"}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }

// write writes pmf_digits.csv and pmf_digits.md into dir.
func (r *Report) write(dir string) error {
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(CSVHeader)
	for _, row := range r.Rows {
		w.Write([]string{strconv.Itoa(row.Split), strconv.Itoa(row.K), row.Method, fmtF(row.PlugIn), fmtF(row.Predictive),
			fmtF(row.ELBO), strconv.Itoa(row.Iterations), strconv.FormatFloat(row.Seconds, 'f', 2, 64), row.Err})
	}
	w.Flush()
	if err := os.WriteFile(filepath.Join(dir, "pmf_digits.csv"), b.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "pmf_digits.md"), []byte(r.markdown()), 0o644)
}

// cell summarises a method's rows at K (K 0: a baseline) over the splits:
// the predictive score's mean ± sd, the plug-in's and the ELBO's medians
// (a lognormal q's are far out on some splits, which a mean would only
// echo), the mean time and the number of splits.
type cell struct {
	pred, predSD, plug, elbo, secs float64
	n                              int
}

func (r *Report) cell(method string, k int) cell {
	var c cell
	var p, q, e []float64
	for _, row := range r.Rows {
		if row.Method == method && row.K == k {
			p, q, e = append(p, row.PlugIn), append(q, row.Predictive), append(e, row.ELBO)
			c.secs += row.Seconds
			c.n++
		}
	}
	if c.n == 0 {
		return c
	}
	c.pred, c.predSD = meanSD(q)
	c.plug, c.elbo = metrics.Median(p), metrics.Median(e)
	c.secs /= float64(c.n)
	return c
}

// meanSD returns the mean and the sample sd (n − 1) of v; a NaN makes both
// NaN, where metrics.MeanSD would skip it.
func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x / float64(len(v))
	}
	if len(v) < 2 {
		return mean, math.NaN()
	}
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)-1))
}

// pm formats mean ± sd; a number too large for a table (a lognormal
// q's plug-in, below) in %.3g.
func pm(m, sd float64) string {
	f := func(v float64) string {
		if math.Abs(v) >= 1e4 {
			return fmt.Sprintf("%.3g", v)
		}
		return fmt.Sprintf("%.4f", v)
	}
	if math.IsNaN(sd) {
		return f(m)
	}
	return f(m) + " ± " + f(sd)
}

// paired returns the mean and sd over the splits of method a's
// predictive score less method b's at K, and on how many splits a is
// higher, of n splits that have both.
func (r *Report) paired(a, b string, k int) (mean, sd float64, wins, n int) {
	score := map[string]map[int]float64{a: {}, b: {}}
	for _, row := range r.Rows {
		if row.K == k && (row.Method == a || row.Method == b) {
			score[row.Method][row.Split] = row.Predictive
		}
	}
	var d []float64
	for s, va := range score[a] {
		if vb, ok := score[b][s]; ok {
			d = append(d, va-vb)
			if va > vb {
				wins++
			}
		}
	}
	if len(d) == 0 {
		return math.NaN(), math.NaN(), 0, 0
	}
	mean, sd = meanSD(d)
	return mean, sd, wins, len(d)
}

// markdown is the fragment docs/results.md links to.
func (r *Report) markdown() string {
	o := r.Options
	var b strings.Builder
	fmt.Fprintf(&b, "## Poisson matrix factorisation of the UCI digits (beyond the paper)\n\n")
	fmt.Fprintf(&b, "Run %s on %s, %s/%s, %d cores (shared with other work). `pmf.Run`", time.Now().UTC().Format("2006-01-02"), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if o.Quick {
		b.WriteString(" (**quick smoke run**, not a result)")
	}
	b.WriteString(".\n\n")
	fmt.Fprintf(&b, "**Data.** `%s` (UCI optdigits as shipped with scikit-learn 1.2.1; BSD-3): the first %d of its 1797 images, %d pixels each, counts 0–16. ", filepath.ToSlash(DigitsFile), r.N, r.D)
	fmt.Fprintf(&b, "Per split (seeds 1–%d) a random %.0f %% of the %d cells is held out (`pmf.Split`: a permutation of the cells from a PCG stream); the held-out cells enter no likelihood (the model's `train` mask) and choose nothing.\n\n", o.Splits, 100*HeldOut, r.N*r.D)
	fmt.Fprintf(&b, "**Model.** `examples/pmf.gpp` through the normal pipeline: X ~ Poisson(W·H) on the training cells, W [N, K] ~ Gamma(0.3, ξ_i), H [K, D] ~ Gamma(0.3, η_k), ξ, η ~ Gamma(0.3, 0.3) (hierarchical Poisson factorisation's shapes, fixed before the run). ")
	fmt.Fprintf(&b, "**Methods.** `gamma`: SGVB with gamma factors (gpp's default); `lognormal`: SGVB with lognormal factors (`--family lognormal`, the family of Stan's and PyMC's ADVI for a positive latent); both as `gpp fit` runs them (one draw per step (`lognormal-4`: four, `--draws 4`, since a lognormal q's one-draw gradient is heavy-tailed), AdaDelta with momentum, q the iterate average, the ELBO stopping rule), at most %d steps, seed = split. `map`: L-BFGS to the mode (at most 1000 iterations). ", o.Iterations)
	fmt.Fprintf(&b, "Baselines: `pixel-mean`, each pixel's mean training count ((sum + 0.5)/(n + 1)); `rank1`, a per-image × per-pixel rate a_i·b_j by maximum likelihood (200 alternating exact updates, half a count added per pixel).\n\n")
	fmt.Fprintf(&b, "**Score.** Mean Poisson log likelihood per held-out cell (nats; higher is better): *plug-in* at the rate E_q[W]·E_q[H] (MAP: at the mode), and *predictive*, per cell log (1/S) Σ_s Poisson(x | W_s H_s) over S = %d draws of q (the posterior predictive under q; for MAP and the baselines the plug-in). Over the splits: the predictive's mean ± sd, the plug-in's and the final ELBO's medians.\n\n", o.Draws)
	b.WriteString("| K | method | held-out ll, predictive (mean ± sd) | held-out ll, plug-in (median) | final ELBO (median) | fit time (mean) |\n|---:|---|---:|---:|---:|---:|\n")
	for _, m := range []string{BaselinePixel, BaselineRank1} {
		if c := r.cell(m, 0); c.n > 0 {
			fmt.Fprintf(&b, "| — | %s | %s | %s | — | %.2f s |\n", m, pm(c.pred, c.predSD), pm(c.plug, math.NaN()), c.secs)
		}
	}
	for _, k := range o.Ks {
		for _, m := range o.Methods {
			if c := r.cell(m, k); c.n > 0 {
				fmt.Fprintf(&b, "| %d | %s | %s | %s | %.1f | %.1f s |\n", k, m, pm(c.pred, c.predSD), pm(c.plug, math.NaN()), c.elbo, c.secs)
			}
		}
	}
	has := map[string]bool{}
	for _, m := range o.Methods {
		has[m] = true
	}
	for _, other := range []string{MethodLognormal, MethodLognormal4} {
		if !has[MethodGamma] || !has[other] {
			continue
		}
		fmt.Fprintf(&b, "\nGamma less %s, predictive held-out ll per cell, paired by split:", other)
		for _, k := range o.Ks {
			if m, sd, wins, n := r.paired(MethodGamma, other, k); n > 0 {
				fmt.Fprintf(&b, " K = %d: %s nats (gamma higher on %d of %d splits);", k, pm(m, sd), wins, n)
			}
		}
		b.WriteString("\n")
	}
	if has[MethodLognormal] || has[MethodLognormal4] {
		b.WriteString("\nThe plug-in of a lognormal q is dominated by E_q[W] = exp(μ + σ²/2) of factors with a large σ: not a usable point estimate (a gamma q's mean is).\n")
	}
	var errs []string
	for _, row := range r.Rows {
		if row.Err != "" {
			errs = append(errs, fmt.Sprintf("split %d K=%d %s (%s)", row.Split, row.K, row.Method, row.Err))
		}
	}
	if len(errs) > 0 {
		fmt.Fprintf(&b, "\nFits that stopped early or failed (the last good q is scored): %s.\n", strings.Join(errs, "; "))
	}
	b.WriteString("\nPer split in `pmf_digits.csv`. The MAP ELBO column is the log joint at the mode, not a bound.\n")
	return b.String()
}

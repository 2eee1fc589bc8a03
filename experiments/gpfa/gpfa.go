// Package gpfa runs gpp's reproduction of the gamma process factor analysis
// (GPFA) experiments of Knowles (2015), "Stochastic gradient variational
// Bayes for gamma approximating distributions", §4.2:
//
//   - RunSynthetic (experiment 2): recovery of sparse non-negative loadings
//     (D = 50, K = 10, w_dk ~ 0.8·δ₀ + 0.2·U[0, 1], noise variance 0.1) as a
//     function of the number of observations N, measured by the Amari error
//     of the posterior mean E[W] (AmariError);
//   - RunCyTOF (experiment 3): held-out perplexity (mean negative log
//     likelihood per test row) of the expected covariance E_q[W Wᵀ + I/prec]
//     on mass-cytometry data (30,000 × 42), against the empirical covariance
//     and Ledoit–Wolf shrinkage (LedoitWolf).
//
// Both fit the model exactly as users write it, examples/gpfa.gpp, through
// the normal pipeline (internal/pipeline: parse, check, bind, compile) with
// the data bound in memory, and the SGVB engine (infer/sgvb) with gamma
// factors (gpp's default), lognormal factors, or MAP.
//
// Each runner writes into Options.Out a CSV, PNG plots and a Markdown
// fragment, and returns a Report. cmd/gpp-experiments calls them.
package gpfa

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/gpplang/gpp/infer/sgvb"
)

// Options configures RunSynthetic and RunCyTOF. The zero value of every
// field selects the documented default.
type Options struct {
	// Out is the directory the result files are written to (created if
	// needed); "" = the working directory.
	Out string
	// Ns is the grid of sample sizes: N for RunSynthetic (default 10, 30,
	// 100, 300, 1000, 3000, 10000), the number n of training rows for
	// RunCyTOF (default 50, 100, 200, 500, 1000, 5000, 24000).
	Ns []int
	// Seeds is the number of synthetic data sets per N (seeds 1..Seeds;
	// default 5). RunCyTOF fits one seed (1).
	Seeds int
	// Methods are the fitting methods, among "gamma" (SGVB with gamma
	// factors, gpp's default), "lognormal" (SGVB with lognormal factors),
	// "map", "gamma-ws" (gamma SGVB warm-started from the lognormal fit,
	// MethodGammaWS), "gamma-diag" (gamma SGVB on the per-column-noise
	// model, MethodGammaDiag) and "fa" (SGVB on the signed-loadings factor
	// analysis, MethodFA); default the first four (AllMethods) for
	// RunSynthetic, all six (CyTOFMethods) for RunCyTOF.
	Methods []string
	// Iterations is the number of SGVB steps (L-BFGS iterations for MAP);
	// default 5000 (the paper's CyTOF count; it used 1000 for the synthetic
	// experiment, too few here — see the package README).
	Iterations int
	// Quick shrinks everything for tests: a 300-iteration fit with few
	// ELBO draws; RunCyTOF also uses K = 5 unless K is set.
	Quick bool
	// Log receives one progress line per fit; nil = silent.
	Log io.Writer

	// K is the truncation level of the CyTOF model (default 40; the
	// synthetic experiment always uses K = 10, its true number of factors).
	K int
	// DrawsPerStep is the number of draws per SGVB gradient step (default
	// 10; Quick: 2).
	DrawsPerStep int
	// StepSize is the SGVB step size η of the optimizer (AdaDelta with
	// momentum, the paper's); default 0.3.
	StepSize float64
	// Restarts is the number of SGVB fits per data set from different
	// random streams; the one with the highest final ELBO is kept (default
	// 1). The reported time is the sum over restarts.
	Restarts int
	// Parallel is the number of fits run at once (default min(2, the
	// number of CPUs)). Results do not depend on it; the reported times do
	// (shared cores).
	Parallel int
	// GammaParam is the gamma factors' parameterisation (default
	// GammaLogMeanShape: chosen by ELBO on the synthetic data, see
	// README.md).
	GammaParam sgvb.GammaParam
	// Standardize (RunCyTOF) divides each training column by its standard
	// deviation before fitting, as the paper did, and maps the fitted
	// covariance back (diag(s)·Σ̂·diag(s)), so the NLL stays on the data
	// scale; default false (the data as stored).
	Standardize bool
	// Model is the path of examples/gpfa.gpp; "" = found from the module
	// root above the working directory.
	Model string
	// DiagModel is the path of examples/gpfa_diag.gpp (MethodGammaDiag's
	// model); "" = found like Model.
	DiagModel string
	// FAModel is the path of examples/fa.gpp (MethodFA's model); "" =
	// found like Model.
	FAModel string
	// Data is the path of the CyTOF CSV; "" = the shared data folder
	// (internal/shareddata).
	Data string
	// Date is printed in the Markdown fragment; "" = today (UTC).
	Date string
}

// Report is what a runner measured and wrote.
type Report struct {
	Synthetic []SyntheticRow // RunSynthetic: one row per (N, seed, method)
	CyTOF     []CyTOFRow     // RunCyTOF: one row per (n, method), baselines included
	Files     []string       // the files written, in order
	Markdown  string         // the Markdown fragment (also written to a file)
	// GoalsMet reports whether the experiment's goals were met (see the
	// Markdown for the numbers).
	GoalsMet bool
}

// defaults fills the zero fields of o.
func (o Options) defaults(ns []int, iters int) Options {
	if len(o.Ns) == 0 {
		o.Ns = ns
	}
	if o.Seeds <= 0 {
		o.Seeds = 5
	}
	if len(o.Methods) == 0 {
		o.Methods = AllMethods
	}
	if o.Iterations <= 0 {
		o.Iterations = iters
		if o.Quick {
			o.Iterations = 300
		}
	}
	if o.DrawsPerStep <= 0 {
		o.DrawsPerStep = 10
		if o.Quick {
			o.DrawsPerStep = 2
		}
	}
	if o.StepSize <= 0 {
		o.StepSize = 0.3
	}
	if o.Restarts <= 0 {
		o.Restarts = 1
	}
	if o.GammaParam == sgvb.GammaParamAuto {
		o.GammaParam = sgvb.GammaLogMeanShape
	}
	if o.Parallel <= 0 {
		o.Parallel = min(2, runtime.NumCPU())
	}
	if o.Date == "" {
		o.Date = time.Now().UTC().Format(time.DateOnly)
	}
	if o.Out == "" {
		o.Out = "."
	}
	return o
}

func (o *Options) validate() error {
	for _, m := range o.Methods {
		if _, err := settingsFor(m, fitConfig{iters: 1}); err != nil {
			return err
		}
	}
	for _, n := range o.Ns {
		if n <= 0 {
			return fmt.Errorf("gpfa: sample size %d must be positive", n)
		}
	}
	return os.MkdirAll(o.Out, 0o755)
}

// logger serialises progress lines.
type logger struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logger) printf(format string, args ...any) {
	if l == nil || l.w == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, format+"\n", args...)
}

// machine describes the machine for the Markdown fragment.
func machine() string {
	return fmt.Sprintf("%s, %s/%s, %d cores (shared with other work)", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
}

// settingsText describes the fit settings for the Markdown fragment.
func settingsText(o Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "SGVB: %d steps, %d draws per step, AdaDelta with momentum (ρ = 0.95, momentum 0.1), η = %g with gpp's step decay 1/√(1 + t/1000), estimator STL + control variate (gpp default), fixed iteration count (Tol < 0), final ELBO from 1000 draws; ", o.Iterations, o.DrawsPerStep, o.StepSize)
	fmt.Fprintf(&b, "gamma factors parameterised as `%s` (`--gamma-param`; chosen by ELBO on the synthetic data); ", o.GammaParam)
	fmt.Fprintf(&b, "%d restart(s) per data set, best final ELBO kept. ", o.Restarts)
	fmt.Fprintf(&b, "MAP: gpp's L-BFGS, at most %d iterations. Initialisation: gpp's default (gamma factors Gamma(m, 1) with m the prior mean or 1; lognormal meanlog log m, sdlog 0.1). gamma-ws: the lognormal fit, moment-matched to gamma factors (a = 1/(e^{σ²} − 1), b = a/mean), then %d gamma SGVB steps; its time includes the lognormal fit.", o.Iterations, max(o.Iterations/2, 1))
	return b.String()
}

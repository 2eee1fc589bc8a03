package gpfa

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/modroot"
	"github.com/gpplang/gpp/internal/pipeline"
)

// ModelPath returns the path of examples/gpfa.gpp: override, when given,
// else found by walking up from the working directory to the module root.
func ModelPath(override string) (string, error) {
	return examplePath(override, "gpfa.gpp", "Options.Model")
}

// DiagModelPath is ModelPath for examples/gpfa_diag.gpp, the model of
// MethodGammaDiag.
func DiagModelPath(override string) (string, error) {
	return examplePath(override, "gpfa_diag.gpp", "Options.DiagModel")
}

// FAModelPath is ModelPath for examples/fa.gpp, the model of MethodFA.
func FAModelPath(override string) (string, error) {
	return examplePath(override, "fa.gpp", "Options.FAModel")
}

// examplePath finds examples/name as ModelPath does; field is the Options
// field that overrides it, named in the error.
func examplePath(override, name, field string) (string, error) {
	if override != "" {
		return override, nil
	}
	p, err := modroot.Example(name)
	if err != nil {
		return "", fmt.Errorf("gpfa: examples/%s not found (%w); set %s", name, err, field)
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("gpfa: %s not found", p)
	}
	return p, nil
}

// loadModel parses examples/gpfa.gpp with K overridden and binds the N×D
// matrix y (already centred) as the data Y, built in memory.
func loadModel(path string, y *mat.Dense, k int) (*pipeline.Loaded, error) {
	sets := map[string]string{"K": strconv.Itoa(k)}
	l, err := pipeline.Parse(path, sets)
	if err != nil {
		return nil, err
	}
	n, d := y.Dims()
	vals := make([]float64, n*d)
	for i := 0; i < n; i++ {
		copy(vals[i*d:], y.RawRowView(i))
	}
	in := data.Input{File: "(in memory)", JSON: map[string]*data.Array{
		"Y": {Name: "Y", Shape: []int{n, d}, Values: vals},
	}}
	if err := l.Bind([]data.Input{in}, sets); err != nil {
		return nil, err
	}
	return l, nil
}

// Method names accepted in Options.Methods.
const (
	MethodGamma     = "gamma"     // SGVB with gamma factors (gpp's default)
	MethodLognormal = "lognormal" // SGVB with lognormal factors ("NormSGVB")
	MethodMAP       = "map"       // MAP by L-BFGS
	// MethodGammaWS is gamma SGVB warm-started from the lognormal fit:
	// the lognormal fit (identical to MethodLognormal's), its factors
	// converted to gamma factors of the same mean and variance, then
	// Iterations/2 gamma SGVB steps. Its time is the sum of both fits. It
	// separates the gamma family from the optimiser's slow progress along
	// the gamma shape–rate ridge.
	MethodGammaWS = "gamma-ws"
	// MethodGammaDiag is gamma SGVB on examples/gpfa_diag.gpp, the same
	// model with one noise precision per column (W Wᵀ + diag(1/prec), the
	// diagonal noise of classical factor analysis) instead of the paper's
	// single one: a different model, fitted beside the paper's to measure
	// what the isotropic noise costs on data whose columns differ in scale.
	MethodGammaDiag = "gamma-diag"
	// MethodFA is SGVB on examples/fa.gpp: factor analysis with signed
	// loadings (normal factors), a precision per factor under a vague
	// prior (ARD) and one noise precision per column (gamma factors). A
	// different model again, fitted to measure what non-negative loadings
	// cost: the paper's GPFA cannot express the negative correlations of
	// CyTOF. It runs FAIterations steps.
	MethodFA = "fa"
)

// otherModel is a CyTOF method that fits another model file with gamma's
// settings: where to find the file, and why the synthetic runner refuses it.
type otherModel struct {
	path     func(Options) (string, error)
	notSynth string
}

// otherModels are the CyTOF methods on models other than the paper's.
var otherModels = map[string]otherModel{
	MethodGammaDiag: {func(o Options) (string, error) { return DiagModelPath(o.DiagModel) },
		"the synthetic data have one noise level"},
	MethodFA: {func(o Options) (string, error) { return FAModelPath(o.FAModel) },
		"signed loadings are identified only up to a rotation, so their Amari error means nothing"},
}

// FAIterations is MethodFA's number of steps (Options.Iterations still
// applies to the other methods). Chosen by the ELBO on the training rows:
// at n = 24000 it rose from −886 576 after 5000 steps to −885 983 after
// 15 000, where the paper's model had converged by 5000.
const FAIterations = 15000

// AllMethods lists the methods of the paper's model in report order: the
// default of RunSynthetic.
var AllMethods = []string{MethodGamma, MethodLognormal, MethodMAP, MethodGammaWS}

// CyTOFMethods is the default of RunCyTOF: AllMethods, MethodGammaDiag and
// MethodFA.
var CyTOFMethods = append(append([]string(nil), AllMethods...), MethodGammaDiag, MethodFA)

// fitConfig holds the knobs of one fit.
type fitConfig struct {
	iters     int
	draws     int     // SGVB draws per step
	step      float64 // SGVB η
	seed      uint64
	psisDraws int // draws of the final ELBO estimate (SGVB)
	elboDraws int // draws per ELBO evaluation during the fit
	gparam    sgvb.GammaParam
	workers   int // sgvb.Settings.Workers: 1 when fits run in parallel, else the default
}

func (o Options) fitConfig(seed uint64) fitConfig {
	c := fitConfig{iters: o.Iterations, draws: o.DrawsPerStep, step: o.StepSize, seed: seed, psisDraws: 1000, elboDraws: 100, gparam: o.GammaParam}
	if o.Parallel > 1 {
		// Fits already share the cores: a fit's own workers would only
		// contend with the other fits (results do not depend on Workers).
		c.workers = 1
	}
	if o.Quick {
		c.psisDraws, c.elboDraws = 50, 10
	}
	return c
}

// settingsFor returns the sgvb settings of a method.
func settingsFor(method string, c fitConfig) (sgvb.Settings, error) {
	s := sgvb.Settings{
		Seed: c.seed, MaxIter: c.iters, Tol: -1,
		DrawsPerStep: c.draws, StepSize: c.step,
		PSISDraws: c.psisDraws, ELBODraws: c.elboDraws, EvalEvery: 100,
		GammaParam: c.gparam, Workers: c.workers,
		LastIterate: true, // q is the last iterate, as in the paper
	}
	switch method {
	case MethodGamma, MethodGammaDiag, MethodFA:
	case MethodLognormal:
		s.Family = sgvb.FamilyLognormal
	case MethodMAP:
		s = sgvb.Settings{Method: sgvb.MAP, Seed: c.seed, MaxIter: c.iters, Workers: c.workers}
	case MethodGammaWS: // the gamma stage
		s.MaxIter = max(c.iters/2, 1)
	default:
		return s, fmt.Errorf("gpfa: unknown method %q (want gamma, lognormal, map, gamma-ws, gamma-diag or fa)", method)
	}
	return s, nil
}

// fitBest fits method to the loaded model restarts times (SGVB; MAP is
// deterministic and fitted once) with seeds c.seed, c.seed+1000, ... and
// keeps the fit with the highest final ELBO; seconds is the total.
func fitBest(ctx context.Context, l *pipeline.Loaded, method string, c fitConfig, restarts int) (*fitResult, error) {
	if method == MethodGammaWS {
		ln, err := fitBest(ctx, l, MethodLognormal, c, restarts)
		if ln == nil || err != nil || ctx.Err() != nil {
			return ln, err
		}
		s, err := settingsFor(MethodGammaWS, c)
		if err != nil {
			return nil, err
		}
		s.Init = gammaFromLognormal(ln.res)
		f, err := fit(ctx, l, s)
		if f == nil {
			return nil, err
		}
		f.err = err
		f.seconds += ln.seconds
		return f, err
	}
	if method == MethodMAP {
		restarts = 1
	}
	var best *fitResult
	var bestErr error
	total := 0.0
	for r := 0; r < restarts; r++ {
		cr := c
		cr.seed = c.seed + uint64(1000*r)
		s, err := settingsFor(method, cr)
		if err != nil {
			return nil, err
		}
		f, err := fit(ctx, l, s)
		if f == nil {
			return nil, err
		}
		f.err = err
		total += f.seconds
		if best == nil || better(f.res.ELBO, best.res.ELBO) {
			best, bestErr = f, err
		}
		if ctx.Err() != nil {
			break
		}
	}
	best.seconds = total
	return best, bestErr
}

// better reports whether ELBO a beats b (NaN loses).
func better(a, b float64) bool {
	if math.IsNaN(b) {
		return !math.IsNaN(a)
	}
	return a > b
}

// fitResult is one fit.
type fitResult struct {
	l       *pipeline.Loaded
	res     *sgvb.Result
	seconds float64
	err     error // the fit's error (a stopped fit still has a Result)
}

func fit(ctx context.Context, l *pipeline.Loaded, s sgvb.Settings) (*fitResult, error) {
	start := time.Now()
	res, err := sgvb.Fit(ctx, pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), s)
	secs := time.Since(start).Seconds()
	if res == nil {
		return nil, err
	}
	return &fitResult{l: l, res: res, seconds: secs}, err
}

// meanW returns E_q[W] (D×K); for MAP the point estimate.
func (f *fitResult) meanW(d, k int) *mat.Dense {
	fw := f.res.Factor("W")
	return mat.NewDense(d, k, fw.Mean())
}

// expectedCov returns E_q[W Wᵀ + I/prec] averaged over draws of q (the
// model's `cov` output); for MAP, the output at the point.
func (f *fitResult) expectedCov(draws int, seed uint64) (*mat.SymDense, error) {
	m := f.l.Model
	ev, err := m.NewEvaluator()
	if err != nil {
		return nil, err
	}
	oi := -1
	for i, o := range m.Outputs {
		if o.Name == "cov" {
			oi = i
		}
	}
	if oi < 0 {
		return nil, errors.New("gpfa: the model has no output `cov`")
	}
	d := m.Outputs[oi].Shape[0]
	acc := make([]float64, d*d)
	if f.res.Method == sgvb.MAP {
		draws = 1
	}
	rng := rand.New(rand.NewPCG(seed, 0xc0))
	x := make([]float64, m.Dim)
	for s := 0; s < draws; s++ {
		f.res.SampleCoords(rng, x)
		_, outs, err := ev.Eval(x)
		if err == nil {
			err = ev.OutputErr()
		}
		if err != nil {
			return nil, err
		}
		for i, v := range outs[oi] {
			acc[i] += v
		}
	}
	c := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			c.SetSym(i, j, 0.5*(acc[i*d+j]+acc[j*d+i])/float64(draws))
		}
	}
	return c, nil
}

// gammaFromLognormal converts a fitted result's lognormal factors into
// gamma factors with the same mean and variance (shape a = 1/(e^{s²} − 1),
// rate a/mean) for a warm start; other factors are copied.
func gammaFromLognormal(r *sgvb.Result) *sgvb.Result {
	out := &sgvb.Result{Dim: r.Dim}
	for _, f := range r.Factors {
		g := f
		if f.Family == sgvb.FamilyLognormal {
			mean := f.Mean()
			a := make([]float64, f.Size)
			b := make([]float64, f.Size)
			for i := range a {
				s := f.Params[1][i]
				a[i] = 1 / math.Expm1(s*s)
				b[i] = a[i] / mean[i]
			}
			g.Family = sgvb.FamilyGamma
			g.Params = [][]float64{a, b}
		}
		out.Factors = append(out.Factors, g)
	}
	return out
}

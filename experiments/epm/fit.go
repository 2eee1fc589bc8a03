package epm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/modroot"
	"github.com/gpplang/gpp/internal/pipeline"
)

// Method is a way of predicting the held-out pairs.
type Method string

// Methods. The first four fit examples/epm.gpp through the normal pipeline;
// Katz is the model-free reference.
const (
	GammaImplicit Method = "gamma-implicit" // gamma SGVB, implicit reparameterisation gradient (dist.Implicit)
	GammaPaper    Method = "gamma-paper"    // gamma SGVB, the paper's inverse-CDF gradient (dist.Paper, PaperKnowles rule)
	// GammaMixture is an equal-weight mixture of FitSettings.Restarts
	// gamma-implicit fits from different seeds (so different NMF starts and
	// draws); it predicts by the mixture's posterior mean of p_unknown, the
	// average of the components'. Each mean-field fit switches off all but
	// 6–9 communities, and two restarts share only about half of the ones
	// they keep (docs/results/epm_findings.md §3).
	GammaMixture Method = "gamma-mixture"
	Lognormal    Method = "lognormal" // lognormal SGVB ("NormSGVB")
	MAP          Method = "map"       // MAP point estimate (L-BFGS)
	KatzIndex    Method = "katz"      // Katz index on the training adjacency
)

// AllMethods lists the methods of experiment 1 in report order.
var AllMethods = []Method{GammaImplicit, GammaPaper, GammaMixture, Lognormal, MAP, KatzIndex}

// ParseMethod returns the method named s.
func ParseMethod(s string) (Method, error) {
	for _, m := range AllMethods {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("epm: unknown method %q", s)
}

// InitRule is the starting point of a fit.
type InitRule string

// Initialisations.
const (
	// InitPaper is the paper code's start (gamma_numerics §5): initial means
	// W = 1/K and a = 1/K; c, g0, c0 and r start at 1 (the compiler's prior
	// means or the engine's default). With the gamma family the shapes are
	// these means and every rate is 1, as in the paper's code.
	InitPaper InitRule = "paper"
	// InitPrior keeps the compiler's starting point: the prior mean where
	// the prior has constant arguments (a, c, g0, c0), else 1 (r, W).
	InitPrior InitRule = "prior"
	// InitNMF is InitPaper with the initial means of W from a symmetric
	// NMF of the training adjacency (SymNMF, 300 iterations, seeded by the
	// fit seed), floored at NMFFloor. A gamma q of W starts at shape 1,
	// rate 1/mean (so that a small mean does not make a tiny shape, whose
	// draws underflow); a lognormal q at meanlog = log mean, sdlog 0.1; MAP
	// at the means.
	InitNMF InitRule = "nmf"
)

// NMF initialisation constants.
const (
	NMFIters = 300
	NMFFloor = 0.01
)

// FitSettings are the settings of one model fit (the same for every
// method that applies; MAP uses only Iterations, as L-BFGS iterations).
type FitSettings struct {
	Iterations int            // SGVB steps (fixed: Tol < 0); MAP: L-BFGS iteration limit
	Optimizer  sgvb.Optimizer // default AdaDeltaMomentum (the paper's)
	Estimator  sgvb.Estimator // zero: EstimatorAuto, the engine's default (STL with control variate)
	StepDecay  float64        // sgvb.Settings.StepDecay (0 = engine default 1000; < 0 constant η)
	StepSize   float64        // η; 0 = the optimizer's default
	Rho        float64        // AdaDelta ρ (Zeiler's convention); 0 = engine default
	Momentum   float64        // momentum weight; 0 = engine default 0.1
	// NoGuard fits without the engine's divergence guard
	// (sgvb.Settings.MaxRollbacks < 0), which would halve a diverging
	// fit's step size: the optimizer comparison measures each rule as set.
	NoGuard      bool
	DrawsPerStep int // default 1 (the paper's)
	// DrawsByMethod overrides DrawsPerStep per method (the lognormal
	// family needs several draws per step to stay stable; see
	// DefaultFitSettings).
	DrawsByMethod map[Method]int
	// Init is the starting point; InitByMethod overrides it per method.
	// Zero: InitPaper.
	Init         InitRule
	InitByMethod map[Method]InitRule
	EvalEvery    int                // ELBO evaluation interval; default 100
	ELBODraws    int                // draws per ELBO evaluation; default 20
	FinalDraws   int                // draws of the final ELBO estimate (PSIS); default 200
	PredDraws    int                // draws of q averaged for p_unknown; default 100
	Gamma        dist.GammaGradient // overrides the method's gradient when set
	// GammaParam are the unconstrained coordinates of gamma factors; zero:
	// the engine's default.
	GammaParam sgvb.GammaParam
	// Restarts is the number of components of GammaMixture; default 8.
	Restarts int
	// Average makes q the engine's iterate average (the mean of the last
	// 5·EvalEvery iterates, gpp fit's default); false: the last iterate,
	// as in the paper (sgvb.Settings.LastIterate).
	Average bool
}

func (f FitSettings) withDefaults() FitSettings {
	if f.Iterations <= 0 {
		f.Iterations = 1000
	}
	if f.DrawsPerStep <= 0 {
		f.DrawsPerStep = 1
	}
	if f.Init == "" {
		f.Init = InitPaper
	}
	if f.EvalEvery <= 0 {
		f.EvalEvery = 100
	}
	if f.ELBODraws <= 0 {
		f.ELBODraws = 20
	}
	if f.FinalDraws == 0 {
		f.FinalDraws = 200
	}
	if f.PredDraws <= 0 {
		f.PredDraws = 100
	}
	if f.Restarts <= 0 {
		f.Restarts = 8
	}
	return f
}

// sgvbSettings returns the engine settings of method m.
func (f FitSettings) sgvbSettings(m Method, seed uint64) sgvb.Settings {
	draws := f.DrawsPerStep
	if d, ok := f.DrawsByMethod[m]; ok && d > 0 {
		draws = d
	}
	s := sgvb.Settings{
		Seed: seed, MaxIter: f.Iterations, Tol: -1, DrawsPerStep: draws,
		Optimizer: f.Optimizer, Estimator: f.Estimator, StepDecay: f.StepDecay,
		StepSize: f.StepSize, Rho: f.Rho, MomentumWeight: f.Momentum,
		EvalEvery: f.EvalEvery, ELBODraws: f.ELBODraws, PSISDraws: f.FinalDraws,
		GammaParam: f.GammaParam, LastIterate: !f.Average,
		// One goroutine per fit: the experiments share a 2-core machine
		// (results do not depend on Workers).
		Workers: 1,
	}
	if f.NoGuard {
		s.MaxRollbacks = -1
	}
	switch m {
	case GammaImplicit, GammaMixture:
		s.Family, s.Gamma = sgvb.FamilyGamma, dist.Implicit{}
	case GammaPaper:
		s.Family, s.Gamma = sgvb.FamilyGamma, dist.Paper{Rule: dist.PaperKnowles}
	case Lognormal:
		s.Family = sgvb.FamilyLognormal
	case MAP:
		s = sgvb.Settings{Method: sgvb.MAP, Seed: seed, MaxIter: f.Iterations, Workers: 1}
	}
	if f.Gamma != nil && s.Method == sgvb.SGVB {
		s.Gamma = f.Gamma
	}
	return s
}

// Model is the EPM source (examples/epm.gpp) to fit.
type Model struct {
	Path   string
	Source []byte
}

// FindModel reads examples/epm.gpp of the module that contains the working
// directory (found by walking up to go.mod).
func FindModel() (*Model, error) {
	root, err := modroot.Find()
	if err != nil {
		return nil, fmt.Errorf("epm: %w; set Options.ModelPath", err)
	}
	return ReadModel(filepath.Join(root, "examples", "epm.gpp"))
}

// ReadModel reads a model file.
func ReadModel(path string) (*Model, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &Model{Path: path, Source: src}, nil
}

// pairArray returns pairs as an int matrix [len, 2].
func pairArray(name string, pairs []Pair) *data.Array {
	v := make([]float64, 0, 2*len(pairs))
	for _, p := range pairs {
		v = append(v, float64(p.I), float64(p.J))
	}
	return &data.Array{Name: name, Shape: []int{len(pairs), 2}, Values: v, Int: true}
}

// Inputs returns the model's data as one in-memory input (bound by name
// like the keys of a JSON file): N, the training links and the missing
// pairs.
func Inputs(n int, train, missing []Pair) []data.Input {
	return []data.Input{{File: "(in-memory split)", JSON: map[string]*data.Array{
		"N":       {Name: "N", Values: []float64{float64(n)}, Int: true},
		"links":   pairArray("links", train),
		"unknown": pairArray("unknown", missing),
	}}}
}

// Load parses, checks, binds and compiles the model for K communities with
// the given data, through internal/pipeline as `gpp fit` does.
func (m *Model) Load(k, n int, train, missing []Pair) (*pipeline.Loaded, error) {
	sets := map[string]string{"K": strconv.Itoa(k)}
	l, err := pipeline.ParseSource(m.Path, m.Source, sets)
	if err != nil {
		return nil, err
	}
	if err := l.Bind(Inputs(n, train, missing), sets); err != nil {
		return nil, err
	}
	return l, nil
}

// initFor returns the starting point of method m.
func (f FitSettings) initFor(m Method) InitRule {
	if r, ok := f.InitByMethod[m]; ok && r != "" {
		return r
	}
	return f.Init
}

// Start sets the starting point of a fit with K communities by rule: it
// fills the latents' Init (initial means) and, for InitNMF with a gamma
// family, the warm start s.Init that fixes the shapes and rates of W.
// train are the training links of a network of n nodes (InitNMF only).
func Start(lat []sgvb.Latent, s *sgvb.Settings, rule InitRule, k, n int, train []Pair, seed uint64) {
	if rule == InitPrior {
		return
	}
	s.PaperStart = true // shapes = the means 1/K, as the paper's code
	fill := func(size int, v float64) []float64 {
		init := make([]float64, size)
		for j := range init {
			init[j] = v
		}
		return init
	}
	for i := range lat {
		switch lat[i].Name {
		case "W", "a":
			lat[i].Init = fill(lat[i].Size, 1/float64(k))
		}
	}
	if rule != InitNMF {
		return
	}
	h := SymNMF(n, k, train, NMFIters, seed)
	for j := range h {
		h[j] = max(h[j], NMFFloor)
	}
	for i := range lat {
		l := &lat[i]
		if l.Name != "W" {
			continue
		}
		l.Init = h
		if s.Method == sgvb.MAP || s.Family == sgvb.FamilyLognormal {
			continue
		}
		shape, rate := make([]float64, len(h)), make([]float64, len(h))
		for j, m := range h {
			shape[j], rate[j] = 1, 1/m
		}
		s.Init = &sgvb.Result{Factors: []sgvb.Factor{{
			Name: l.Name, Family: sgvb.FamilyGamma, Support: l.Support,
			Offset: l.Offset, Size: l.Size, Shape: l.Shape, Params: [][]float64{shape, rate},
		}}}
	}
}

// FitResult is one fit and its predictions.
type FitResult struct {
	P       []float64 // posterior mean of p_unknown, one per missing pair
	ELBO    float64   // final ELBO estimate (MAP: log joint at the point)
	Seconds float64   // wall time of sgvb.Fit
	Redrawn int       // prediction draws drawn again for a non-finite log joint
	// FitErr is the engine's error when it stopped early (after too many
	// non-finite steps); P then comes from the last good q.
	FitErr error
	Result *sgvb.Result
	// Components are the fits of a GammaMixture, in seed order, and
	// Mixture their mixture with its own ELBO and Pareto k̂.
	Components []*FitResult
	Mixture    *sgvb.Mixture
}

// Fit fits the model to the training links with the missing pairs held out
// and predicts p_unknown: the mean over PredDraws draws of q (MAP: its
// value at the point). Seconds include the NMF start (InitNMF). A fit the
// engine stopped early still predicts from its last good q, with FitErr
// set; an error is returned only when there is nothing to predict from.
func (m *Model) Fit(ctx context.Context, k, n int, train, missing []Pair, meth Method, fs FitSettings, seed uint64) (*FitResult, error) {
	fs = fs.withDefaults()
	if meth == GammaMixture {
		return m.fitMixture(ctx, k, n, train, missing, fs, seed)
	}
	l, err := m.Load(k, n, train, missing)
	if err != nil {
		return nil, err
	}
	lat := pipeline.Latents(l.Model)
	s := fs.sgvbSettings(meth, seed)
	start := time.Now()
	Start(lat, &s, fs.initFor(meth), k, n, train, seed)
	res, err := sgvb.Fit(ctx, pipeline.Target{M: l.Model}, lat, s)
	secs := time.Since(start).Seconds()
	if res == nil {
		return nil, fmt.Errorf("%s K=%d: %w", meth, k, err)
	}
	if res.Interrupted {
		return nil, ctx.Err()
	}
	fr := &FitResult{ELBO: res.ELBO, Seconds: secs, Result: res, FitErr: err}
	if len(missing) == 0 {
		fr.P = []float64{}
		return fr, nil
	}
	fr.P, fr.Redrawn, err = predict(l, res, fs.PredDraws, seed)
	if err != nil {
		return fr, err
	}
	return fr, nil
}

// mixtureWorkers is how many components of a GammaMixture are fitted at
// once (one goroutine each; the results do not depend on it).
const mixtureWorkers = 2

// MixtureSeed returns the fit seed of component r of a GammaMixture fitted
// with seed: component 0 is the gamma-implicit fit of the same seed, bit
// for bit; the others take seeds no split or validation fit uses. It is
// sgvb.RestartSeed, the seeds of gpp fit --restarts.
func MixtureSeed(seed uint64, r int) uint64 { return sgvb.RestartSeed(seed, r) }

// fitMixture fits the fs.Restarts components of a GammaMixture with
// sgvb.FitRestarts (the engine of gpp fit --restarts), mixtureWorkers at a
// time, component r from the start of seed MixtureSeed(seed, r), and
// averages their predictions. ELBO is the mixture's own (sgvb.Mixture),
// Seconds the wall time of the starts, the fits and the predictions,
// Result that of component 0.
func (m *Model) fitMixture(ctx context.Context, k, n int, train, missing []Pair, fs FitSettings, seed uint64) (*FitResult, error) {
	l, err := m.Load(k, n, train, missing)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	R := fs.Restarts
	lat := pipeline.Latents(l.Model)
	s := fs.sgvbSettings(GammaImplicit, seed)
	inits := make([]*sgvb.Result, R)
	for r := range inits {
		// each restart's own start: the latents' initial means are the
		// same for every seed, and InitNMF's seeded NMF start of W is a
		// warm start (s.Init), given per restart
		sr := s
		lr := append([]sgvb.Latent(nil), lat...)
		Start(lr, &sr, fs.initFor(GammaImplicit), k, n, train, MixtureSeed(seed, r))
		if r == 0 {
			lat, s.PaperStart = lr, sr.PaperStart
		}
		inits[r] = sr.Init
	}
	mix, err := sgvb.FitRestarts(ctx, pipeline.Target{M: l.Model}, lat, s, sgvb.Restarts{N: R, Parallel: mixtureWorkers, Inits: inits})
	if mix == nil {
		return nil, fmt.Errorf("%s K=%d: %w", GammaMixture, k, err)
	}
	if mix.Interrupted {
		return nil, ctx.Err()
	}
	fitErr := err
	for r, c := range mix.Components {
		if c == nil {
			return nil, fmt.Errorf("%s component %d: %w", GammaMixture, r, err)
		}
	}
	fr := &FitResult{Result: mix.Components[0], ELBO: mix.ELBO, FitErr: fitErr, Components: make([]*FitResult, R), Mixture: mix}
	errs := make([]error, R)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(mixtureWorkers, R) {
		wg.Go(func() {
			for r := range next {
				c := mix.Components[r]
				cr := &FitResult{ELBO: c.ELBO, Seconds: c.Seconds, Result: c, P: []float64{}}
				if len(missing) > 0 {
					cr.P, cr.Redrawn, errs[r] = predict(l, c, fs.PredDraws, MixtureSeed(seed, r))
				}
				fr.Components[r] = cr
			}
		})
	}
	for r := range R {
		next <- r
	}
	close(next)
	wg.Wait()
	fr.P = make([]float64, len(missing))
	for r, c := range fr.Components {
		if errs[r] != nil {
			return nil, fmt.Errorf("%s component %d: %w", GammaMixture, r, errs[r])
		}
		for i, p := range c.P {
			fr.P[i] += p / float64(R)
		}
		fr.Redrawn += c.Redrawn
	}
	fr.Seconds = time.Since(start).Seconds()
	return fr, nil
}

// predict averages the output p_unknown over draws of q.
func predict(l *pipeline.Loaded, res *sgvb.Result, draws int, seed uint64) (p []float64, skipped int, err error) {
	ev, err := l.Model.NewEvaluator()
	if err != nil {
		return nil, 0, err
	}
	out := -1
	for i, o := range l.Model.Outputs {
		if o.Name == "p_unknown" {
			out = i
		}
	}
	if out < 0 {
		return nil, 0, errors.New("epm: the model has no output p_unknown")
	}
	if res.Method == sgvb.MAP {
		draws = 1
	}
	rng := rand.New(rand.NewPCG(seed, 0xbb67ae8584caa73b))
	x := make([]float64, l.Model.Dim)
	var mean []float64
	for d := 0; d < draws; {
		res.SampleCoords(rng, x)
		if res.Method == sgvb.MAP {
			clampPoint(l, x)
		}
		_, vals, err := ev.Eval(x)
		if err == nil {
			err = ev.OutputErr()
		}
		if err != nil {
			// A draw whose log joint is not finite (a shape a_i that
			// underflows to 0 in Gamma(a, c)) is drawn again: under the
			// mean-field q the draws of W and r are independent of a, so
			// p_unknown keeps its distribution.
			if skipped++; skipped > 10*draws {
				return nil, skipped, fmt.Errorf("epm: evaluating p_unknown: %w", err)
			}
			continue
		}
		d++
		if mean == nil {
			mean = make([]float64, len(vals[out]))
		}
		for i, v := range vals[out] {
			mean[i] += v
		}
	}
	for i := range mean {
		mean[i] /= float64(draws)
	}
	return mean, skipped, nil
}

// mapCoordLimit bounds the log coordinates of a MAP point for evaluation:
// the EPM's MAP runs off to a_i → 0 (the Gamma(0.01, 0.01) prior density is
// unbounded there), taking rows of W to exactly 0 (log W = −∞), which the
// evaluator rejects; exp(−700) ≈ 1e-304 leaves p_unknown unchanged.
const mapCoordLimit = 700

// clampPoint clamps the coordinates of positive latents to ±mapCoordLimit.
func clampPoint(l *pipeline.Loaded, x []float64) {
	for _, lt := range l.Model.Latents {
		if lt.Support != dist.Positive {
			continue
		}
		for i := lt.Offset; i < lt.Offset+lt.Size; i++ {
			x[i] = math.Max(-mapCoordLimit, math.Min(mapCoordLimit, x[i]))
		}
	}
}

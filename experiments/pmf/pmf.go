// Package pmf runs gpp's Poisson matrix factorisation experiment, a
// showcase of its gamma factors beyond the models of Knowles (2015): the
// gamma–Poisson factorisation of examples/pmf.gpp (hierarchical Poisson
// factorisation, Gopalan, Hofman & Blei 2015) fitted to the UCI digits
// counts (8×8 images, pixels 0–16), with a random 20 % of the cells held
// out, by gamma SGVB (gpp's default), lognormal SGVB (the family Stan's
// and PyMC's ADVI use for a positive latent) and MAP, scored by the held-out
// Poisson log likelihood per cell beside two baselines.
//
// The model is fitted exactly as users write it, through the normal
// pipeline (internal/pipeline) with the data bound in memory. Run writes
// into Options.Out a CSV and a Markdown fragment and returns a Report;
// cmd/gpp-experiments calls it.
package pmf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/modroot"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/internal/shareddata"
)

// DigitsFile is the digits counts' path under the shared data folder.
var DigitsFile = filepath.Join("continuous", "debian_sklearn", "digits_1797x64.csv")

// Method names of Options.Methods and Row.Method.
const (
	MethodGamma     = "gamma"     // SGVB with gamma factors (gpp's default)
	MethodLognormal = "lognormal" // SGVB with lognormal factors (Stan's and PyMC's ADVI)
	MethodMAP       = "map"       // MAP by L-BFGS
	// MethodLognormal4 is lognormal SGVB with 4 draws per step: a
	// lognormal q's one-draw gradient is heavy-tailed and can diverge (it
	// did on the EPM, docs/results/epm_findings.md), so the comparison
	// also gives it more draws, at 4 times the cost per step.
	MethodLognormal4 = "lognormal-4"
	// BaselinePixel predicts every held-out cell by its pixel's mean count
	// over the training cells, (sum + 0.5)/(n + 1) so that a pixel never
	// seen lit keeps a small positive rate.
	BaselinePixel = "pixel-mean"
	// BaselineRank1 is the rank-1 Poisson model rate a_i·b_j (per image ×
	// per pixel) fitted by maximum likelihood to the training cells
	// (Rank1), with the pixel-mean baseline's half count per pixel.
	BaselineRank1 = "rank1"
)

// AllMethods is the default of Options.Methods.
var AllMethods = []string{MethodGamma, MethodLognormal, MethodLognormal4, MethodMAP}

// Options configures Run. The zero value of every field selects the
// documented default.
type Options struct {
	Out   string    // output directory (created if needed); "" = the working directory
	Data  string    // the digits CSV; default the shared data's DigitsFile
	Model string    // the model; default examples/pmf.gpp found from the working directory
	Log   io.Writer // one progress line per fit; nil = silent
	Quick bool      // a smoke run: 60 images, 1 split, K = 4, 200 steps, gamma only beside the baselines

	Images     int      // the first Images images of the file (default 500)
	Splits     int      // random hold-out splits, seeds 1..Splits (default 5)
	Ks         []int    // numbers of components (default 10, 20)
	Methods    []string // default AllMethods
	Iterations int      // SGVB step limit (default 3000; the fit also stops by gpp's ELBO rule); MAP: L-BFGS iterations (default 1000)
	Draws      int      // draws of q for the posterior predictive (default 200)
	Parallel   int      // fits at once (default min(2, NumCPU)); results do not depend on it
}

// HeldOut is the share of the cells held out in each split.
const HeldOut = 0.2

func (o Options) defaults() Options {
	if o.Images <= 0 {
		o.Images = 500
	}
	if o.Splits <= 0 {
		o.Splits = 5
	}
	if len(o.Ks) == 0 {
		o.Ks = []int{10, 20}
	}
	if len(o.Methods) == 0 {
		o.Methods = AllMethods
	}
	if o.Iterations <= 0 {
		o.Iterations = 3000
	}
	if o.Draws <= 0 {
		o.Draws = 200
	}
	if o.Quick {
		o.Images, o.Splits, o.Ks, o.Iterations, o.Draws = 60, 1, []int{4}, 200, 20
		o.Methods = []string{MethodGamma}
	}
	if o.Parallel <= 0 {
		o.Parallel = min(2, runtime.NumCPU())
	}
	return o
}

// Row is one method's score on one split.
type Row struct {
	Split, K int // K is 0 for the baselines
	Method   string
	// PlugIn is the mean Poisson log likelihood per held-out cell at the
	// rate E_q[W]·E_q[H] (MAP: at the mode; a baseline: its rate), and
	// Predictive that of the posterior predictive, per cell the log of the
	// mean over Options.Draws draws of q of the Poisson mass at W·H (MAP
	// and the baselines: PlugIn).
	PlugIn, Predictive float64
	ELBO               float64 // final ELBO estimate (MAP: the log joint; NaN for baselines)
	Iterations         int
	Seconds            float64 // the fit's time
	Err                string
}

// Report is what Run measured.
type Report struct {
	Options Options
	N, D    int // images and pixels fitted
	Rows    []Row
}

// Matrix is a row-major count matrix.
type Matrix struct {
	N, D int
	X    []float64
}

// ReadDigits reads the first n rows of the digits CSV (all when n ≤ 0).
func ReadDigits(path string, n int) (*Matrix, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := data.ReadCSV(path, f)
	if err != nil {
		return nil, err
	}
	a := t.Matrix("X")
	if err := a.Err(); err != nil {
		return nil, err
	}
	rows, d := a.Shape[0], a.Shape[1]
	if n <= 0 || n > rows {
		n = rows
	}
	return &Matrix{N: n, D: d, X: append([]float64(nil), a.Values[:n*d]...)}, nil
}

// Split returns the training mask of split seed: 1 for a training cell, 0
// for a held-out one; exactly round(HeldOut·N·D) cells, chosen by a
// permutation from a PCG stream seeded (seed, 0x9f).
func Split(n, d int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 0x9f))
	mask := make([]float64, n*d)
	for i := range mask {
		mask[i] = 1
	}
	held := int(math.Round(HeldOut * float64(n*d)))
	for _, c := range rng.Perm(n * d)[:held] {
		mask[c] = 0
	}
	return mask
}

// MeanLogLik is the mean Poisson log mass of the held-out cells (mask 0)
// of x at rate(i, j).
func MeanLogLik(x *Matrix, mask []float64, rate func(i, j int) float64) float64 {
	sum, n := 0.0, 0
	for i := 0; i < x.N; i++ {
		for j := 0; j < x.D; j++ {
			if mask[i*x.D+j] == 0 {
				sum += dist.Poisson{Rate: rate(i, j)}.LogProb(x.X[i*x.D+j])
				n++
			}
		}
	}
	return sum / float64(n)
}

// PixelMean returns the pixel-mean baseline's rate per pixel.
func PixelMean(x *Matrix, mask []float64) []float64 {
	b := make([]float64, x.D)
	for j := range b {
		s, n := 0.0, 0.0
		for i := 0; i < x.N; i++ {
			if mask[i*x.D+j] == 1 {
				s += x.X[i*x.D+j]
				n++
			}
		}
		b[j] = (s + 0.5) / (n + 1)
	}
	return b
}

// Rank1 fits the rate a_i·b_j to the training cells by alternating the
// two maximum-likelihood updates (each exact given the other), iters
// times, with half a count added per pixel as the pixel-mean baseline adds
// it, so that no rate is 0; images are scaled to a mean a of 1.
func Rank1(x *Matrix, mask []float64, iters int) (a, b []float64) {
	a, b = make([]float64, x.N), make([]float64, x.D)
	for i := range a {
		a[i] = 1
	}
	for it := 0; it < iters; it++ {
		for j := range b {
			s, t := 0.5, 0.0
			for i := 0; i < x.N; i++ {
				if mask[i*x.D+j] == 1 {
					s += x.X[i*x.D+j]
					t += a[i]
				}
			}
			b[j] = s / t
		}
		mean := 0.0
		for i := range a {
			s, t := 0.0, 0.0
			for j := 0; j < x.D; j++ {
				if mask[i*x.D+j] == 1 {
					s += x.X[i*x.D+j]
					t += b[j]
				}
			}
			a[i] = s / t
			mean += a[i] / float64(x.N)
		}
		for i := range a {
			a[i] /= mean
		}
	}
	return a, b
}

// ModelPath returns override, else examples/pmf.gpp found by walking up from
// the working directory to the module root (relative to the working
// directory, so that positions in errors carry no machine paths).
func ModelPath(override string) (string, error) {
	if override != "" {
		return override, nil
	}
	p, err := modroot.Example("pmf.gpp")
	if err != nil {
		return "", fmt.Errorf("pmf: examples/pmf.gpp not found (%w); set Options.Model", err)
	}
	return p, nil
}

// Load parses the model with K components and binds x as X and mask as
// train, in memory.
func Load(path string, x *Matrix, mask []float64, k int) (*pipeline.Loaded, error) {
	sets := map[string]string{"K": strconv.Itoa(k)}
	l, err := pipeline.Parse(path, sets)
	if err != nil {
		return nil, err
	}
	in := data.Input{File: "(in memory)", JSON: map[string]*data.Array{
		"X":     {Name: "X", Shape: []int{x.N, x.D}, Values: x.X},
		"train": {Name: "train", Shape: []int{x.N, x.D}, Values: mask},
	}}
	if err := l.Bind([]data.Input{in}, sets); err != nil {
		return nil, err
	}
	return l, nil
}

// settings returns the sgvb settings of a method: gpp fit's defaults (one
// draw per step, AdaDelta with momentum, q the iterate average, the ELBO
// stopping rule) with a step limit.
func settings(method string, seed uint64, iters, workers int, quick bool) (sgvb.Settings, error) {
	s := sgvb.Settings{Seed: seed, MaxIter: iters, Workers: workers}
	if quick {
		s.PSISDraws, s.ELBODraws = 50, 10
	}
	switch method {
	case MethodGamma:
	case MethodLognormal:
		s.Family = sgvb.FamilyLognormal
	case MethodLognormal4:
		s.Family, s.DrawsPerStep = sgvb.FamilyLognormal, 4
	case MethodMAP:
		s = sgvb.Settings{Method: sgvb.MAP, Seed: seed, Workers: workers}
	default:
		return s, fmt.Errorf("pmf: unknown method %q (want gamma, lognormal, lognormal-4 or map)", method)
	}
	return s, nil
}

// Score returns the plug-in and posterior-predictive held-out log
// likelihoods of a fit of K components (see Row), the latter from draws
// draws of q from a PCG stream seeded (seed, 0x5c).
func Score(l *pipeline.Loaded, res *sgvb.Result, x *Matrix, mask []float64, k, draws int, seed uint64) (plug, pred float64) {
	m := l.Model
	off := map[string]int{}
	for _, lat := range m.Latents {
		off[lat.Name] = lat.Offset
	}
	var w, h []float64
	if res.Method == sgvb.MAP {
		w, h = res.Mean()[off["W"]:], res.Mean()[off["H"]:]
	} else {
		w, h = res.Factor("W").Mean(), res.Factor("H").Mean()
	}
	rate := func(w, h []float64) func(i, j int) float64 {
		return func(i, j int) float64 {
			r := 0.0
			for c := 0; c < k; c++ {
				r += w[i*k+c] * h[c*x.D+j]
			}
			return r
		}
	}
	plug = MeanLogLik(x, mask, rate(w, h))
	if res.Method == sgvb.MAP || draws <= 0 {
		return plug, plug
	}
	// Per held-out cell, log mean_s p(x | W_s H_s), accumulated stably as
	// a running log-sum-exp.
	var cells []int
	for c, v := range mask {
		if v == 0 {
			cells = append(cells, c)
		}
	}
	lse := make([]float64, len(cells))
	for i := range lse {
		lse[i] = math.Inf(-1)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5c))
	coords, z := make([]float64, m.Dim), make([]float64, m.Dim)
	for s := 0; s < draws; s++ {
		res.SampleCoords(rng, coords)
		res.Natural(z, coords)
		r := rate(z[off["W"]:], z[off["H"]:])
		for q, c := range cells {
			lp := dist.Poisson{Rate: r(c/x.D, c%x.D)}.LogProb(x.X[c])
			lse[q] = logAddExp(lse[q], lp)
		}
	}
	for _, v := range lse {
		pred += v - math.Log(float64(draws))
	}
	return plug, pred / float64(len(cells))
}

func logAddExp(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// Run runs the experiment and writes pmf_digits.csv and pmf_digits.md into
// o.Out. Per split (seeds 1..Splits) a random HeldOut share of the cells of
// the first Images images is held out (Split); the baselines are scored,
// then each method fits examples/pmf.gpp with each K to the training cells
// (split's seed as the fit's seed) and is scored on the held-out cells by
// Score. Nothing is chosen by the held-out cells.
func Run(ctx context.Context, o Options) (*Report, error) {
	o = o.defaults()
	path := o.Data
	if path == "" {
		root := shareddata.Root()
		if root == "" {
			return nil, errors.New("pmf: shared data folder not found (../shared/data beside the repository, or GPP_SHARED_DATA); set Options.Data")
		}
		path = filepath.Join(root, DigitsFile)
	}
	x, err := ReadDigits(path, o.Images)
	if err != nil {
		return nil, err
	}
	model, err := ModelPath(o.Model)
	if err != nil {
		return nil, err
	}
	rep := &Report{Options: o, N: x.N, D: x.D}
	type job struct {
		split, k int
		method   string
		mask     []float64
	}
	var jobs []job
	for s := 1; s <= o.Splits; s++ {
		mask := Split(x.N, x.D, uint64(s))
		base := PixelMean(x, mask)
		ll := MeanLogLik(x, mask, func(i, j int) float64 { return base[j] })
		rep.Rows = append(rep.Rows, Row{Split: s, Method: BaselinePixel, PlugIn: ll, Predictive: ll, ELBO: math.NaN()})
		start := time.Now()
		a, b := Rank1(x, mask, 200)
		ll = MeanLogLik(x, mask, func(i, j int) float64 { return a[i] * b[j] })
		rep.Rows = append(rep.Rows, Row{Split: s, Method: BaselineRank1, PlugIn: ll, Predictive: ll, ELBO: math.NaN(), Seconds: time.Since(start).Seconds()})
		for _, k := range o.Ks {
			for _, m := range o.Methods {
				jobs = append(jobs, job{s, k, m, mask})
			}
		}
	}
	workers := 0
	if o.Parallel > 1 {
		workers = 1 // fits share the cores already
	}
	rows := make([]Row, len(jobs))
	var mu sync.Mutex
	sem := make(chan struct{}, o.Parallel)
	var wg sync.WaitGroup
	for i, jb := range jobs {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			r := Row{Split: jb.split, K: jb.k, Method: jb.method, ELBO: math.NaN(), PlugIn: math.NaN(), Predictive: math.NaN()}
			defer func() { rows[i] = r }()
			l, err := Load(model, x, jb.mask, jb.k)
			if err != nil {
				r.Err = err.Error()
				return
			}
			s, err := settings(jb.method, uint64(jb.split), o.Iterations, workers, o.Quick)
			if err != nil {
				r.Err = err.Error()
				return
			}
			start := time.Now()
			res, err := sgvb.Fit(ctx, pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), s)
			r.Seconds = time.Since(start).Seconds()
			if err != nil {
				r.Err = err.Error()
			}
			if res == nil {
				return
			}
			r.ELBO, r.Iterations = res.ELBO, res.Iterations
			r.PlugIn, r.Predictive = Score(l, res, x, jb.mask, jb.k, o.Draws, uint64(jb.split))
			if o.Log != nil {
				mu.Lock()
				fmt.Fprintf(o.Log, "pmf: split %d K=%d %-9s ELBO %.1f  held-out ll plug-in %.4f predictive %.4f  (%d it, %.1f s)\n",
					r.Split, r.K, r.Method, r.ELBO, r.PlugIn, r.Predictive, r.Iterations, r.Seconds)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rep.Rows = append(rep.Rows, rows...)
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if err := rep.write(o.Out); err != nil {
		return rep, err
	}
	return rep, nil
}

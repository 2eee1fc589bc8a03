package nuts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/gpplang/gpp/dist"
)

// Density is one chain's log density on R^d (unnormalised) and its gradient.
// LogDensity writes ∂/∂x into grad (len(grad) == len(x)) and returns log p(x).
// A non-finite value or a non-nil error rejects the point (the trajectory ends
// there as a divergence, as Stan treats an exception); the first error met is
// kept in Chain.FirstErr for the report.
type Density interface {
	LogDensity(x, grad []float64) (float64, error)
}

// Metric is the form of the inverse metric (mass matrix) that warm-up adapts.
type Metric int

const (
	DiagE  Metric = iota // a diagonal inverse metric (Stan's default, diag_e)
	DenseE               // a dense one (dense_e)
	UnitE                // the identity, not adapted (unit_e)
)

// String returns Stan's name of the metric.
func (m Metric) String() string {
	switch m {
	case DiagE:
		return "diag_e"
	case DenseE:
		return "dense_e"
	case UnitE:
		return "unit_e"
	}
	return fmt.Sprintf("Metric(%d)", int(m))
}

// The defaults of Settings' fields. Warmup's zero value means no warm-up
// (the API says so), so DefaultWarmup is what a caller passes for Stan's
// default.
const (
	DefaultChains   = 4
	DefaultWarmup   = 1000
	DefaultDraws    = 1000
	DefaultMaxDepth = 10
	DefaultDelta    = 0.8
)

// Settings of a run. Zero values take the defaults in brackets, but for
// Warmup, whose zero is no warm-up: set it (to DefaultWarmup for Stan's
// 1000) to adapt the step size and the metric.
type Settings struct {
	Chains   int     // [4]
	Warmup   int     // warm-up iterations per chain; 0 = none, no adaptation at all (not defaulted: Stan's 1000 is DefaultWarmup)
	Draws    int     // kept iterations per chain [1000]
	Thin     int     // keep every Thin-th iteration [1]
	MaxDepth int     // maximum tree depth [10]
	Delta    float64 // target acceptance statistic of the step-size adaptation [0.8]
	StepSize float64 // initial step size [1]
	Metric   Metric  // [DiagE]
	// InvMetric is the initial inverse metric, as CmdStan's metric_file
	// gives it: nil for the identity, else one for every chain or one per
	// chain, each Dim entries (DiagE, positive) or Dim×Dim row-major
	// (DenseE, symmetric positive-definite); UnitE takes none.
	InvMetric [][]float64
	// NoAdapt runs the Warmup iterations without adapting anything
	// (CmdStan's adapt engaged=0): the step size stays StepSize and the
	// metric InvMetric, and no initial step-size search is made.
	NoAdapt bool
	// SaveWarmup keeps the warm-up iterations too, thinned as the draws
	// (every Thin-th), in Chain.Warm (CmdStan's save_warmup=1).
	SaveWarmup bool
	Seed       uint64
	Workers    int // chains run on this many goroutines [1]; every result is independent of it
	// Progress, when not nil, is called after each iteration of each chain
	// (from the chain's goroutine: it must be safe for concurrent use).
	// iter counts from 1 over warm-up and sampling together, as Stan's
	// "Iteration: 100 / 2000" lines do; warmup says which phase it was in.
	Progress func(chain, iter int, warmup bool)
	// Tree, when not nil, is called after each NUTS transition of each
	// chain, before Progress (from the chain's goroutine: it must be safe
	// for concurrent use), with the tree depth the transition reached: a
	// caller can say that iterations slowed down because trees grew. The
	// draws are the same with it or without.
	Tree func(chain, depth int)
	// FixedParam runs Stan's fixed_param sampler instead of NUTS: each
	// chain stays at its start for Draws iterations, with no warm-up and
	// no density evaluated (dens may be nil; the starts may have no
	// coordinates), lp__ and accept_stat__ 0 as CmdStan writes them; the
	// caller draws what varies (a model's outputs) at each draw.
	FixedParam bool
}

// Chain is what one chain produced. Per-draw slices have Draws/Thin entries
// (fewer when interrupted: then all have the same length N).
type Chain struct {
	Draws     []float64 // N×Dim, row-major: the kept positions
	LogP      []float64 // lp__: log density at each draw
	Accept    []float64 // accept_stat__
	Depth     []int     // treedepth__
	Leapfrogs []int     // n_leapfrog__
	Divergent []bool    // divergent__
	Energy    []float64 // energy__ (the Hamiltonian at the draw)
	StepSize  float64   // the adapted step size
	StepSizes []float64 // each draw's step size: Warm's draws only (the kept draws' is StepSize)
	InvMetric []float64 // the adapted inverse metric: Dim entries (DiagE, UnitE) or Dim×Dim row-major (DenseE)
	FirstErr  error     // the first error LogDensity returned, nil if none
	// Evals counts the chain's LogDensity calls (warm-up included), Errs
	// those that returned an error: the points it rejected.
	Evals, Errs int
	// WarmEvals and WarmErrs are the part of Evals and Errs before the
	// first kept iteration (the start, the step-size search and warm-up;
	// all of them when interrupted in warm-up), and SampleErr the first
	// error after it, nil if none: a point rejected in warm-up moved only
	// the adaptation, one rejected while sampling is missing from the
	// draws.
	WarmEvals, WarmErrs int
	SampleErr           error
	// LastWarmErr is the warm-up iteration (from 1) of the last point
	// rejected in warm-up, 0 if none or only before the first iteration
	// (the start and the first step-size search).
	LastWarmErr int
	// Warm holds the warm-up iterations with SaveWarmup (Warmup/Thin
	// draws, fewer when interrupted), nil without: its per-draw slices and
	// StepSizes; its other fields are unset.
	Warm             *Chain
	Warmup, Sampling time.Duration
}

// Result of a run: Dim and one Chain per chain, in chain order.
type Result struct {
	Dim         int
	Chains      []Chain
	Interrupted bool // ctx was cancelled: the chains that kept 2 draws or more hold the first N, N the shortest's; the others their own (0 or 1)
	FixedParam  bool // the fixed_param sampler's (Settings.FixedParam): each chain holds its start by design
}

// stream is the PCG stream of chain c: the seed's other half.
func stream(c int) uint64 { return 0x4e555453<<32 | uint64(c) }

// withDefaults fills the zero fields of s.
func (s Settings) withDefaults() Settings {
	if s.Chains == 0 {
		s.Chains = DefaultChains
	}
	if s.Draws == 0 {
		s.Draws = DefaultDraws
	}
	if s.Thin == 0 {
		s.Thin = 1
	}
	if s.MaxDepth == 0 {
		s.MaxDepth = DefaultMaxDepth
	}
	if s.Delta == 0 {
		s.Delta = DefaultDelta
	}
	if s.StepSize == 0 {
		s.StepSize = 1
	}
	if s.Workers == 0 {
		s.Workers = 1
	}
	return s
}

func (s Settings) check() error {
	switch {
	case s.Chains < 1:
		return fmt.Errorf("nuts: Chains must be ≥ 1 (got %d)", s.Chains)
	case s.Warmup < 0:
		return fmt.Errorf("nuts: Warmup must be ≥ 0 (got %d)", s.Warmup)
	case s.Draws < 0:
		return fmt.Errorf("nuts: Draws must be ≥ 0 (got %d)", s.Draws)
	case s.Thin < 1:
		return fmt.Errorf("nuts: Thin must be ≥ 1 (got %d)", s.Thin)
	case s.MaxDepth < 1 || s.MaxDepth > 30:
		return fmt.Errorf("nuts: MaxDepth must be in [1, 30] (got %d)", s.MaxDepth)
	case !(s.Delta > 0 && s.Delta < 1):
		return fmt.Errorf("nuts: Delta must be in (0, 1) (got %g)", s.Delta)
	case !(s.StepSize > 0) || math.IsInf(s.StepSize, 1):
		return fmt.Errorf("nuts: StepSize must be positive and finite (got %g)", s.StepSize)
	case s.Metric != DiagE && s.Metric != DenseE && s.Metric != UnitE:
		return fmt.Errorf("nuts: unknown metric %d", int(s.Metric))
	case s.Workers < 1:
		return fmt.Errorf("nuts: Workers must be ≥ 1 (got %d)", s.Workers)
	case len(s.InvMetric) > 1 && len(s.InvMetric) != s.Chains:
		return fmt.Errorf("nuts: %d inverse metrics for %d chains: give one, or one per chain", len(s.InvMetric), s.Chains)
	case len(s.InvMetric) > 0 && s.Metric == UnitE:
		return errors.New("nuts: an inverse metric with the unit metric: give DiagE or DenseE")
	}
	return nil
}

// SymTol is the asymmetry a dense inverse metric may have, relative to the
// larger of 1 and the pair's magnitudes (Stan's check_symmetric allows
// 1e-8 absolute, which the rounding of large variances can exceed): an
// adapted covariance, summed in another order above and below the
// diagonal, is symmetric only so far.
const SymTol = 1e-8

// CheckInvMetric returns an error unless m is an inverse metric of kind k
// in dim dimensions: dim positive finite entries for DiagE, a symmetric
// positive-definite dim×dim row-major matrix for DenseE (symmetric
// within SymTol).
func CheckInvMetric(m []float64, dim int, k Metric) error {
	if err := checkInvMetric(m, dim, k); err != nil {
		return fmt.Errorf("nuts: %w", err)
	}
	return nil
}

// checkInvMetric is CheckInvMetric without the package's prefix, for
// Sample to name the chain a metric is for.
func checkInvMetric(m []float64, dim int, k Metric) error {
	switch k {
	case DiagE:
		if len(m) != dim {
			return fmt.Errorf("diagonal inverse metric has %d entries, want %d", len(m), dim)
		}
		for i, v := range m {
			if !(v > 0) || math.IsInf(v, 1) {
				return fmt.Errorf("diagonal inverse metric entry %d is %g: want a positive finite number", i, v)
			}
		}
	case DenseE:
		if len(m) != dim*dim {
			return fmt.Errorf("dense inverse metric has %d entries, want %d×%d", len(m), dim, dim)
		}
		for i := range dim {
			for j := range dim {
				v := m[i*dim+j]
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("dense inverse metric entry [%d, %d] is %g: want a finite number", i, j, v)
				}
				if w := m[j*dim+i]; j > i && !(math.Abs(v-w) <= SymTol*max(1, math.Abs(v), math.Abs(w))) {
					return fmt.Errorf("dense inverse metric is not symmetric: [%d, %d] is %g, [%d, %d] %g", i, j, v, j, i, w)
				}
			}
		}
		if dist.CholLower(append([]float64(nil), m...), dim) != 0 {
			return errors.New("dense inverse metric is not positive definite")
		}
	default:
		return fmt.Errorf("metric %v takes no inverse metric", k)
	}
	return nil
}

// invMetric returns chain c's initial inverse metric (nil: the identity).
func (s Settings) invMetric(c int) []float64 {
	switch len(s.InvMetric) {
	case 0:
		return nil
	case 1:
		return s.InvMetric[0]
	}
	return s.InvMetric[c]
}

// Sample runs len(dens) == len(inits) == s.Chains chains, chain c on density
// dens[c] (each its own, for concurrency) from inits[c] (len Dim). Chain c's
// random numbers come from rand.NewPCG(s.Seed, stream(c)), so results depend on
// Seed and c only. An error only for bad arguments or a start where the log
// density is not finite (the error names the chain); a cancelled ctx returns
// the partial Result with Interrupted set and a nil error.
//
// Chains are numbered from 0 (as dens, inits and Result.Chains are) in
// errors and in Progress. With Thin > 1 the kept iterations are sampling's
// Thin-th, 2·Thin-th, ….
func Sample(ctx context.Context, dens []Density, inits [][]float64, s Settings) (*Result, error) {
	s = s.withDefaults()
	if err := s.check(); err != nil {
		return nil, err
	}
	if s.FixedParam {
		return sampleFixed(ctx, inits, s)
	}
	if len(dens) != s.Chains || len(inits) != s.Chains {
		return nil, fmt.Errorf("nuts: %d chains but %d densities and %d initial points", s.Chains, len(dens), len(inits))
	}
	dim := len(inits[0])
	if dim == 0 {
		return nil, errors.New("nuts: the initial points have no coordinates")
	}
	for c := range inits {
		if len(inits[c]) != dim {
			return nil, fmt.Errorf("nuts: chain %d: initial point has %d coordinates, chain 0's has %d", c, len(inits[c]), dim)
		}
		if dens[c] == nil {
			return nil, fmt.Errorf("nuts: chain %d: nil density", c)
		}
	}
	for c, m := range s.InvMetric {
		if err := checkInvMetric(m, dim, s.Metric); err != nil && len(s.InvMetric) > 1 {
			return nil, fmt.Errorf("nuts: chain %d: %w", c, err)
		} else if err != nil {
			return nil, fmt.Errorf("nuts: %w", err)
		}
	}
	// Check every start before any chain runs.
	grad := make([]float64, dim)
	for c := range inits {
		lp, err := dens[c].LogDensity(inits[c], grad)
		if err != nil {
			return nil, fmt.Errorf("nuts: chain %d: log density at the initial point: %w", c, err)
		}
		if math.IsNaN(lp) || math.IsInf(lp, 0) {
			return nil, fmt.Errorf("nuts: chain %d: log density at the initial point is %g", c, lp)
		}
		for i, g := range grad {
			if math.IsNaN(g) || math.IsInf(g, 0) {
				return nil, fmt.Errorf("nuts: chain %d: gradient at the initial point is %g in coordinate %d", c, g, i)
			}
		}
	}

	res := &Result{Dim: dim, Chains: make([]Chain, s.Chains)}
	kept := make([]int, s.Chains)
	next := make(chan int, s.Chains)
	for c := 0; c < s.Chains; c++ {
		next <- c
	}
	close(next)
	workers := min(s.Workers, s.Chains)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				if ctx.Err() != nil {
					continue
				}
				ch := newChain(dens[c], inits[c], s, rand.New(rand.NewPCG(s.Seed, stream(c))))
				if m := s.invMetric(c); m != nil {
					ch.setMetric(m) // positive definite: checked above
				}
				kept[c] = ch.run(ctx, c, &res.Chains[c])
			}
		}()
	}
	wg.Wait()
	res.cut(kept, s.Draws/s.Thin)
	return res, nil
}

// cut keeps in every chain the draws the shortest kept, kept[c] chain c's,
// and marks r interrupted, when a chain kept fewer than want: a ctx
// cancelled after every chain ended leaves the result whole. The shortest
// is among the chains that kept 2 draws or more, where some did: a chain
// that kept fewer (interrupted in warm-up) keeps its own, so that one
// chain stuck in warm-up does not take every other chain's draws with it
// (the caller may leave it out).
func (r *Result) cut(kept []int, want int) {
	n := slices.Min(kept)
	if n >= want {
		return
	}
	r.Interrupted = true
	for _, k := range kept {
		if k >= 2 && (n < 2 || k < n) {
			n = k
		}
	}
	for c := range r.Chains {
		r.Chains[c].truncate(min(kept[c], n), r.Dim)
	}
}

// truncate keeps the first n draws of ch.
func (ch *Chain) truncate(n, dim int) {
	ch.Draws = ch.Draws[:n*dim]
	ch.LogP = ch.LogP[:n]
	ch.Accept = ch.Accept[:n]
	ch.Depth = ch.Depth[:n]
	ch.Leapfrogs = ch.Leapfrogs[:n]
	ch.Divergent = ch.Divergent[:n]
	ch.Energy = ch.Energy[:n]
	if ch.StepSizes != nil {
		ch.StepSizes = ch.StepSizes[:n]
	}
}

package sgvb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/internal/par"
)

// Fit fits q to the posterior of the Target over the given latents.
//
// Every EvalEvery steps the ELBO is estimated from ELBODraws draws. By
// default that is the ELBO of the averaged q (the mean of the unconstrained
// parameters over the last Window·EvalEvery steps, the q Fit returns), from
// the same base draws at every evaluation, so that estimates differ by what
// q moved rather than by Monte Carlo noise; the fit has converged when the
// median of the last Window relative changes |ΔELBO|/scale, each against
// the estimate Window evaluations earlier (an average of other steps), is
// below Tol. The scale is |ELBO| capped at 100 nats per coordinate and
// floored at 1000 standard errors of the estimate (at the default Tol, a
// change below a tenth of the standard error counts as none) and at 1. With LastIterate the estimates are of the iterate,
// from fresh draws, and the fit has converged when the mean or the median
// of the relative changes between successive estimates over the last
// Window evaluations is below Tol (Stan ADVI's rule). Otherwise the fit
// stops at MaxIter with a warning; either way everything reached is
// returned.
// An averaged q whose final estimate lies far below its last evaluation
// (a heavy tail the evaluations' draws missed) is weighed against the last
// iterate from the same final draws, and the better one returned, with a
// warning (averageCheck).
//
// A step whose log joint or gradient is not finite in any draw is skipped
// (q and the optimizer state are untouched) and the step size is halved;
// five good steps undo a halving. When bad steps have halved it MaxBadSteps
// times net of that (as many bad steps in a row, or a steady share above
// one in six, under which q would soon stop moving and look converged) the
// fit goes back to its best q with half the step size, as after a
// divergence, while the guard has rollbacks left and that q had a finite
// ELBO estimate; otherwise it stops: the Result holds the last good q and
// the error is the Target's own (positioned) error, or a generic one if the
// Target gave none.
//
// Cancelling ctx stops the fit at the next step: the Result holds the
// current q, Interrupted is set, the PSIS diagnostic is skipped and the
// error is nil. Inputs that make no fit (bad latents or settings) return a
// nil Result and an error.
func Fit(ctx context.Context, t Target, latents []Latent, s Settings) (*Result, error) {
	r, err := fit(ctx, t, latents, s)
	return betaFallback(ctx, t, latents, s, r, err)
}

// betaFallback refits with normal factors on the logits of unit latents
// (logit-normal q) a fit with beta factors that stalled after gradient
// spikes or rolled back, and keeps the fit of the higher ELBO. A beta
// factor whose posterior lies near an end of its range (a scale at 10⁻⁴
// of a declared [0, 10]) passes through small shapes α on its way there,
// where the draws' log has a tail like e^{αt}: draws of 10⁻⁵⁰ and below, a
// log joint in 1/σ² far below any other and an ELBO that is −∞ (E[u⁻²]
// diverges for α ≤ 2), so gradient spikes froze the optimizer, its resets
// threw q about, and 8 of 10 seeds ended at σ = 0.6–10 with only those
// warnings (docs/inference.md, Beta factors that stall). A normal on the
// logit has no such tail. No refit where nothing stalled or rolled back:
// those fits are unchanged.
func betaFallback(ctx context.Context, t Target, latents []Latent, s Settings, r *Result, err error) (*Result, error) {
	if err != nil || r == nil || r.stalls+r.Rollbacks == 0 || r.Interrupted || s.logitNormalUnit || ctx.Err() != nil {
		return r, err
	}
	var names []string
	for _, f := range r.Factors {
		if f.Family == FamilyBeta && s.Families[f.Name] != FamilyBeta { // a beta the caller names stays
			names = append(names, f.Name)
		}
	}
	if len(names) == 0 {
		return r, err
	}
	s2 := s
	s2.logitNormalUnit = true
	r2, err2 := fit(ctx, t, latents, s2)
	if err2 != nil || r2 == nil || r2.Interrupted || !finite(r2.ELBO) {
		return r, err
	}
	pl := ""
	if len(names) > 1 {
		pl = "s"
	}
	what := fmt.Sprintf("the fit with beta factor%s of %s was thrown about by gradient spikes (%d optimizer resets after a stall, %d rollbacks: draws near an end of the range, where the log joint is steep) and ended at ELBO %.6g; a refit with logit-normal factors (a normal on the logit) ended at %.6g", pl, strings.Join(names, ", "), r.stalls, r.Rollbacks, r.ELBO, r2.ELBO)
	if r2.ELBO > r.ELBO {
		r2.Warnings = append([]string{what + ", which is kept"}, r2.Warnings...)
		r2.Seconds += r.Seconds // both fits' time
		return r2, nil
	}
	// both fits' time, as where r2 is kept
	r.Seconds += r2.Seconds
	if r.stalls > 0 { // a rollback alone has its own warning
		r.warn("%s, lower, so the beta fit is kept, though its resets may have left q at a wrong point: --restarts 4 shows whether fits from other starts agree", what)
	}
	return r, err
}

func fit(ctx context.Context, t Target, latents []Latent, s Settings) (*Result, error) {
	s = s.withDefaults()
	if s.Method == MAP && s.Minibatch != nil {
		return nil, errors.New("sgvb: MAP (L-BFGS) needs the exact objective, not a minibatch estimate")
	}
	if s.Method.JointNormal() {
		var err error
		if s, err = laplaceSettings(latents, s); err != nil {
			return nil, err
		}
	}
	e, err := newEngine(t, latents, &s)
	if err != nil {
		return nil, err
	}
	defer e.close()
	defer e.stopOn(ctx)()
	if s.Method == MAP {
		return e.fitMAP(ctx)
	}
	if s.Method == Laplace {
		return e.fitLaplace(ctx)
	}
	if s.Method == Pathfinder {
		return e.fitPathfinder(ctx)
	}
	if !s.InitPath {
		return e.fitSGVB(ctx)
	}
	ps, err := e.pathStart(ctx)
	if err != nil && ctx.Err() != nil {
		// interrupted on the path (its evaluations cut short, as with a
		// StopTarget, fail): the fit stops at once with q at its start
		return e.fitSGVB(ctx)
	}
	if err != nil {
		return nil, err
	}
	e.jitterStart()
	r, err := e.fitSGVB(ctx)
	if r != nil {
		r.Path = ps
	}
	return r, err
}

type engine struct {
	s       *Settings
	target  Target
	latents []Latent
	blocks  []block
	dim, np int
	// latBlock is the block of each latent: its own, or a group's joint
	// one (Settings.FullRankGroups).
	latBlock []int
	// logits are the coordinates that full-rank and low-rank blocks hold
	// as the logits of unit values (block.logitAt): each draw's log p and
	// log q get their Jacobian (addLogitJac). Nil when there are none.
	logits []int
	// stickLogs are the log x coordinates of the simplex rows that
	// full-rank blocks hold by their stick-breaking coordinates
	// (stick.go): the log Jacobian of each row is their sum, added to each
	// draw's log p and log q with the logits'. Nil when there are none.
	stickLogs []int

	theta, delta, backup []float64
	iterate              []float64 // the iterate while the averaged q is evaluated
	snap                 []float64 // the iterate at the last evaluation (stalled)
	snapOK               bool
	snapBad              int // the fit's BadSteps at snap
	cache                stepCache
	dfr                  deferred // a split step's deferred gamma work
	grad                 []float64
	cv, hmean            []float64 // control variate: 2·np, the second half cvCoef's weighted record
	cvOld                []float64 // cv before a split step's update, for a turned-back step
	cvSet                bool
	opt                  *optim
	// natDecay is the step-size decay d(t) of the step being taken (1
	// outside the fit's loop), which the trust region of a full-rank step
	// may follow (natRegime).
	natDecay float64

	// per-draw outputs
	dgrad, dh [][]float64
	lp, lq    []float64
	ok        []bool
	// lq0 holds, during an ELBO estimate, each gamma factor's a·log b −
	// log Γ(a) per shape slot (logqWith), computed once per estimate
	// rather than once per draw; nil without gamma factors.
	lq0  []float64
	errs []error

	segs    []segment    // the fixed pieces the draws of q are made in
	nextSeg atomic.Int32 // the next segment to claim in a split job
	// halt, set when the fit's context is cancelled (stopOn), makes the
	// draws of a final estimate (streamFinal) not yet evaluated fail at
	// once, counted in cut, so that an interrupt need not wait for
	// thousands of log joints; the other evaluations run as before.
	halt    atomic.Bool
	cut     atomic.Int64
	segBad  atomic.Bool // a split job met a non-finite number
	workers []*worker
	crew    *crew // the goroutines of workers 1.. (nil with one worker)
	team    *team // lent to worker 0's Target (nil: not a TeamTarget, or one worker)
}

// team lends the helpers to worker 0's log joint while they would wait:
// in a split step, between the sample and the backprop jobs.
type team struct {
	e      *engine
	active bool // only worker 0 reads and writes it
}

func (t *team) Size() int {
	if t.active && t.e.crew.spin && !t.e.crew.solo { // waking a blocked helper costs more than a product saves; solo: see crew
		return len(t.e.workers)
	}
	return 1
}

func (t *team) Run(task par.Task) { t.e.runParts(task, t.Size()) }

// runParts runs parts 0 … n−1 of task, part 0 on the engine's goroutine
// and part w on helper w (a part no helper took in time the engine does
// itself: crew.wait); n is 1 or the number of workers.
func (e *engine) runParts(task par.Task, n int) {
	if n == 1 {
		task.RunPart(0, 1)
		return
	}
	e.crew.start(job{kind: jobTask, task: task}, n-1)
	task.RunPart(0, n)
	e.crew.wait()
}

// segment is elements [lo, hi) of block b: a draw of q is made segment by
// segment, each from its own random stream, so that with one draw per step
// the workers can share a draw's segments and the numbers do not depend on
// how many there are.
type segment struct{ b, lo, hi int }

// segElems is the most elements of a segment: enough to amortise handing
// segments to another goroutine, few enough to balance two workers.
const segElems = 256

type worker struct {
	t Target
	// bt is the minibatch target of the steps and of the ELBO estimates
	// during the fit (Settings.Minibatch), nil without one; t, the full
	// log joint, then gives only the final estimate and k̂.
	bt         MinibatchTarget
	seed       uint64 // Settings.Seed, for the batch streams
	x, gx, aux []float64
	pcg        *rand.PCG
	rng        *rand.Rand
}

type jobKind int

const (
	jobStep jobKind = iota
	jobEval
	jobSplitSample   // with one draw per step: fill and sample this worker's segments
	jobSplitBackprop // and backpropagate them into the step's gradient
	jobSplitUpdate   // and take the optimizer step on their parameters
	jobTask          // run a part of a task of worker 0's log joint (see team)
)

type job struct {
	kind   jobKind
	stream uint64
	iter   uint64
	n      int
	eta    float64  // jobSplitUpdate's step size
	task   par.Task // jobTask's task
}

// Random streams: every draw gets its own PCG seeded from (seed, stream,
// iteration, draw index), so results do not depend on Workers.
const (
	streamStep uint64 = iota + 1
	streamEval
	streamFinal
	streamSearch     // + 2·trial
	streamSearchEval // + 2·trial
)

// The streams of what a fit draws besides its steps, clear of the
// step-size search's, one each: listed in one block so that no two uses
// share a stream (two did: the resampling's and the path's, drawing the
// same numbers in a fit with both).
const (
	// FitRestarts' final estimate (with the seed of restart 0)
	streamMixture    uint64 = 1<<20 + iota
	streamJitter            // Settings.InitJitter's draws
	streamMAPStart          // MAP's fallback starts
	streamMAPSaddle         // MAP's saddle tests
	streamLowRank           // a low-rank factor's start of C
	streamPath              // the L-BFGS path's points' ELBO estimates (iteration: the iterate's index)
	streamPathSmooth        // the path's smoothing draws
	streamEvidence          // the evidence's draws (evidence.go)
	streamPathfinder        // Pathfinder's ELBO draws (iteration: the iterate's index)
	// the resampling's candidate d (resample.go), and the choice of the
	// n draws among them
	streamResample
	streamResampleChoice
	streamRadius // Restarts.Radius's random starts (RandomStart)
)

func mix64(x uint64) uint64 { // splitmix64 finaliser
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func streamSeed(seed, stream, iter uint64, d int) (uint64, uint64) {
	s1 := mix64(seed ^ mix64(stream))
	s1 = mix64(s1 ^ iter)
	return s1, mix64(s1 ^ mix64(uint64(d)+0x5851f42d4c957f2d))
}

// segSeed seeds segment si of draw d (segment 0 with the draw's own seed).
func segSeed(seed, stream, iter uint64, d, si int) (uint64, uint64) {
	s1, s2 := streamSeed(seed, stream, iter, d)
	if si == 0 {
		return s1, s2
	}
	return mix64(s1 ^ mix64(uint64(si)+0x632be59bd9b4e019)), s2
}

func newEngine(t Target, latents []Latent, s *Settings) (*engine, error) {
	if t == nil {
		return nil, errors.New("sgvb: nil Target")
	}
	if len(latents) == 0 {
		return nil, errors.New("sgvb: no latents")
	}
	latents, err := expandOrdered(latents, s)
	if err != nil {
		return nil, err
	}
	e := &engine{s: s, target: t, latents: latents}
	dim := 0
	for _, l := range latents {
		if l.Offset < 0 || l.Size <= 0 {
			return nil, fmt.Errorf("sgvb: latent %s: bad slice [%d:%d]", l.Name, l.Offset, l.Offset+l.Size)
		}
		dim = max(dim, l.Offset+l.Size)
	}
	for name := range s.Families {
		found := false
		for _, l := range latents {
			found = found || l.Name == name
		}
		if !found {
			return nil, fmt.Errorf("sgvb: Settings.Families names no latent: %q", name)
		}
	}
	groupOf, err := fullRankGroups(latents, s)
	if err != nil {
		return nil, err
	}
	joint := map[int]int{} // group → its block
	e.latBlock = make([]int, len(latents))
	used := make([]bool, dim)
	np := 0
	for i := range latents {
		l := &latents[i]
		for j := l.Offset; j < l.Offset+l.Size; j++ {
			if used[j] {
				return nil, fmt.Errorf("sgvb: latent %s overlaps another latent at coordinate %d", l.Name, j)
			}
			used[j] = true
		}
		if l.ScaleV != nil && (len(l.ScaleV) != l.Size || len(l.LocV) != l.Size) {
			return nil, fmt.Errorf("sgvb: latent %s: %d locs and %d scales for %d elements", l.Name, len(l.LocV), len(l.ScaleV), l.Size)
		}
		if gi, ok := groupOf[l.Name]; ok {
			if bi, made := joint[gi]; made {
				e.latBlock[i] = bi
				continue
			}
			b := jointBlock(latents, groupOf, gi, np, s.Rank, s.Band, s.FullRankGroups[gi][0])
			if b.fam == FamilyFullRank {
				b.nat, b.natS = natScratch(b.n, s.DrawsPerStep), s.DrawsPerStep
			}
			np += b.np()
			joint[gi] = len(e.blocks)
			e.latBlock[i] = len(e.blocks)
			e.blocks = append(e.blocks, b)
			e.segs = append(e.segs, segment{len(e.blocks) - 1, 0, b.n})
			continue
		}
		fam, err := resolveFamily(*l, s)
		if err != nil {
			return nil, err
		}
		b := block{name: l.Name, fam: fam, support: l.Support, shape: l.Shape, off: l.Offset, n: l.Size, poff: np, k: 1,
			loc: l.Loc, scale: l.Scale, locV: l.LocV, scaleV: l.ScaleV, part: l.part, lat: i}
		b.logMS = fam == FamilyGamma && s.GammaParam.logMeanShape()
		b.paperStart = s.PaperStart
		if l.Support == dist.Simplex {
			if len(l.Shape) == 0 || l.Shape[len(l.Shape)-1] < 2 || l.Size%l.Shape[len(l.Shape)-1] != 0 {
				return nil, fmt.Errorf("sgvb: latent %s: simplex needs a last axis of length ≥ 2 dividing its size (shape %v, size %d)", l.Name, l.Shape, l.Size)
			}
			b.k = l.Shape[len(l.Shape)-1]
			if fam == FamilyFullRank { // normal on the K − 1 stick-breaking coordinates of each row
				b.n = stickElems(l.Size, b.k)
				b.addSticks(l.Offset, l.Size, b.k)
			}
		}
		if fam == FamilyFullRank {
			b.nat, b.natS = natScratch(b.n, s.DrawsPerStep), s.DrawsPerStep
		}
		np += b.np()
		e.latBlock[i] = len(e.blocks)
		e.blocks = append(e.blocks, b)
		step := max(segElems/b.k, 1) * b.k // whole simplices
		if b.fam == FamilyFullRank {
			step = b.n // x = μ + Lε couples all elements
		}
		for lo := 0; lo < b.n; lo += step {
			e.segs = append(e.segs, segment{len(e.blocks) - 1, lo, min(lo+step, b.n)})
		}
	}
	e.dim, e.np = dim, np
	for bi := range e.blocks {
		b := &e.blocks[bi]
		for i := range b.n {
			if b.logitAt(i) {
				e.logits = append(e.logits, b.at(i))
			}
		}
		for _, st := range b.sticks {
			for c := st.off; c < st.off+st.k; c++ {
				e.stickLogs = append(e.stickLogs, c)
			}
		}
	}
	if s.StepSize <= 0 {
		s.StepSize = defaultStepSize(s.Optimizer, e.blocks)
	}
	e.theta = make([]float64, np)
	e.natDecay = 1
	e.delta = make([]float64, np)
	e.backup = make([]float64, np)
	e.iterate = make([]float64, np)
	e.snap = make([]float64, np)
	e.grad = make([]float64, np)
	_, implicit := s.Gamma.(dist.Implicit)
	e.cache = newStepCache(np, implicit)
	e.initDeferred()
	for i := range e.blocks {
		b := &e.blocks[i]
		if b.mem != nil {
			b.initJoint(latents, e.theta[b.poff:b.poff+b.np()])
			if b.fam == FamilyLowRank {
				rng := rand.New(rand.NewPCG(streamSeed(s.Seed, streamLowRank, uint64(i), 0)))
				b.initLowRank(e.theta[b.poff:b.poff+b.np()], rng)
			}
			continue
		}
		b.initTheta(&latents[b.lat], e.theta[b.poff:b.poff+b.np()])
	}
	if s.Init != nil {
		e.warmStart(s.Init)
	}
	if !(s.InitJitter >= 0) || math.IsInf(s.InitJitter, 0) {
		return nil, fmt.Errorf("sgvb: InitJitter must be a finite number ≥ 0, got %v", s.InitJitter)
	}
	if s.InitPath && s.Init != nil {
		return nil, errors.New("sgvb: InitPath and Init are two starts; give one")
	}
	if !s.InitPath || s.Method == MAP { // a path start is jittered after it is chosen (Fit)
		e.jitterStart()
	}
	if s.Method == MAP {
		return e, nil
	}
	if s.Estimator.cv() {
		e.cv = make([]float64, 2*np)
		e.hmean = make([]float64, 2*np)
		e.cvOld = make([]float64, 2*np)
	}
	e.opt = newOptim(s.Optimizer, np, s.Rho, s.MomentumWeight)
	if s.Optimizer == AdaDelta || s.Optimizer == AdaDeltaMomentum {
		for _, b := range e.blocks {
			if b.logMS || b.logitMC() {
				e.cache.fisher = make([]float64, np)
				break
			}
		}
	}
	S := s.DrawsPerStep
	e.dgrad = make([][]float64, S)
	for d := range e.dgrad {
		e.dgrad[d] = make([]float64, np)
	}
	if e.cv != nil {
		e.dh = make([][]float64, S)
		for d := range e.dh {
			e.dh[d] = make([]float64, 2*np)
		}
	}
	nd := max(S, s.ELBODraws, s.PSISDraws)
	e.lp = make([]float64, nd)
	e.lq = make([]float64, nd)
	e.ok = make([]bool, nd)
	e.errs = make([]error, nd)
	W := min(s.Workers, nd)
	for w := 0; w < W; w++ {
		wt := t
		if w > 0 {
			wt = t.Clone()
		}
		pcg := rand.NewPCG(0, 0)
		wk := &worker{
			t: wt, seed: s.Seed, x: make([]float64, dim), gx: make([]float64, dim), aux: make([]float64, np),
			pcg: pcg, rng: rand.New(pcg),
		}
		if s.Minibatch != nil { // a clone each: concurrent fits (restarts) share s
			wk.bt = s.Minibatch.Clone().(MinibatchTarget)
		}
		e.workers = append(e.workers, wk)
	}
	if W > 1 {
		e.crew = newCrew(W, W <= runtime.GOMAXPROCS(0), e.work, e.idle)
		if tt, ok := t.(TeamTarget); ok {
			e.team = &team{e: e}
			tt.SetTeam(e.team)
		}
	}
	return e, nil
}

// jitterStart moves the start by Settings.InitJitter (block.jitter), from
// the seed's own stream.
func (e *engine) jitterStart() {
	if e.s.InitJitter > 0 {
		rng := rand.New(rand.NewPCG(streamSeed(e.s.Seed, streamJitter, 0, 0)))
		for i := range e.blocks {
			b := &e.blocks[i]
			b.jitter(e.theta[b.poff:b.poff+b.np()], rng, e.s.InitJitter)
		}
	}
}

// stopOn makes cancelling ctx set a stop flag on the workers' targets
// that are StopTargets, so that a long evaluation under way fails soon
// (each fails then with the context cancelled, which the fit reads as the
// interruption). The returned function removes the flag.
func (e *engine) stopOn(ctx context.Context) func() {
	var set []StopTarget
	if st, ok := e.target.(StopTarget); ok { // MAP's, which has no workers
		set = append(set, st)
	}
	for w, wk := range e.workers {
		ts := [...]Target{wk.t, wk.bt}
		if w == 0 { // wk.t is e.target
			ts[0] = nil
		}
		for _, t := range ts {
			if st, ok := t.(StopTarget); ok {
				set = append(set, st)
			}
		}
	}
	halt := context.AfterFunc(ctx, func() { e.halt.Store(true) })
	if len(set) == 0 {
		return func() { halt() }
	}
	stop := new(atomic.Bool)
	for _, st := range set {
		st.SetStop(stop)
	}
	unhook := context.AfterFunc(ctx, func() { stop.Store(true) })
	return func() {
		halt()
		unhook()
		for _, st := range set {
			st.SetStop(nil)
		}
	}
}

// close stops the helper goroutines.
func (e *engine) close() {
	if e.team != nil {
		e.target.(TeamTarget).SetTeam(nil)
	}
	if e.crew != nil {
		e.crew.stop()
	}
}

// warmStart copies matching factors of a previous result into theta.
func (e *engine) warmStart(r *Result) {
	flat := flatten(r.Factors)
	for i := range e.blocks {
		b := &e.blocks[i]
		if b.mem != nil {
			e.warmJoint(b, r)
			continue
		}
		for _, ff := range flat {
			f := ff.f
			if f.Name != b.name || f.Size != b.coordSize() || ff.part != b.part {
				continue
			}
			th := e.theta[b.poff : b.poff+b.np()]
			if f.Family == b.fam {
				b.thetaFrom(f.Params, th)
			} else { // start from its mean and sd
				mean, sd := make([]float64, f.Size), make([]float64, f.Size)
				f.moments(mean, sd)
				if b.scale != 0 || b.scaleV != nil { // the model's values back to b's support
					bf := Factor{Loc: b.loc, Scale: b.scale, LocV: b.locV, ScaleV: b.scaleV}
					for k := range mean {
						loc, scale := bf.affineAt(k)
						mean[k] = (mean[k] - loc) / scale
						sd[k] /= math.Abs(scale)
					}
				}
				l := e.latents[b.lat]
				l.Init = mean
				b.initTheta(&l, th)
				b.spreadFrom(mean, sd, th)
			}
		}
	}
}

// spreadFrom sets the spread of a gamma, lognormal or normal block, which
// initTheta has started at the means mean, to the sds sd of a factor of
// another family, as a warm start across families (a lognormal or full-rank
// fit's q into a gamma factor) starts: a gamma factor's shape (mean/sd)² at
// that mean, a lognormal's sdlog √log(1 + (sd/mean)²) with the meanlog that
// keeps the mean, a normal's sd. From the mean alone a gamma factor starts
// at shape = mean, rate 1 (initTheta), as wide as a cold start or wider: a
// warm start from a tight q then began far below the fit it came from. An
// element whose mean or sd give no such spread keeps initTheta's.
func (b *block) spreadFrom(mean, sd, th []float64) {
	n := b.n
	for i := range min(n, len(mean), len(sd)) {
		m, s := mean[i], sd[i]
		if !(s > 0) || !finite(s) || !finite(m) {
			continue
		}
		switch b.fam {
		case FamilyGamma:
			a := (m / s) * (m / s)
			if !isPos(m) || !isPos(a) {
				continue
			}
			a = math.Max(a, minParam)
			if b.logMS {
				th[i], th[n+i] = math.Log(a), math.Log(m)
			} else {
				th[i], th[n+i] = softplusInv(a), softplusInv(a/m)
			}
		case FamilyLognormal, FamilyNormal: // a normal on the log, the logit (Settings.logitNormalUnit) or the value
			b.spreadJoint(th, i, m, s)
		}
	}
}

// run computes the draws of a job, spread over the workers (over no more
// workers than draws, except for the split jobs, which share one draw).
func (e *engine) run(j job) {
	W := len(e.workers)
	if j.kind == jobStep || j.kind == jobEval {
		W = min(W, j.n)
	}
	e.nextSeg.Store(0)
	if W > 1 {
		e.crew.start(j, W-1)
	}
	e.work(0, j)
	if W > 1 && j.kind == jobSplitSample { // the drawn segments' deferred work while waiting
		e.crew.waitIdle(e.idle)
	} else if W > 1 {
		e.crew.wait()
	}
}

func (e *engine) work(w int, j job) {
	switch j.kind {
	case jobSplitSample:
		e.splitSample(w, j)
		return
	case jobSplitBackprop:
		e.splitBackprop()
		return
	case jobSplitUpdate:
		e.splitUpdate(j.eta)
		return
	case jobTask:
		j.task.RunPart(w, len(e.workers))
		return
	}
	for d := w; d < j.n; d += len(e.workers) {
		e.draw(e.workers[w], j, d)
	}
}

// split reports whether the steps' single draw is shared by the workers:
// with one draw per step and at least splitMin coordinates. The workers
// then share the draw, its gradient and the optimizer step, segment by
// segment (stepSplit, splitUpdate); the log joint is evaluated by worker 0
// alone, with the helpers' help where the Target takes a team. Sharing
// costs three hand-offs per step (see crew), about a µs each, and gains the
// work of the segments the helper takes: little while one segment
// (segElems) holds most coordinates. GPFA (gamma factors, N = 500, K = 10)
// on 2 cores, µs per step unshared → shared (medians, when the draw and
// the backprop alone were shared): 274 coordinates 156 → 148, 314:
// 181 → 166, 364: 213 → 189, 414: 255 → 214, 514: 364 → 294. With blocking
// hand-offs alone, sharing gained nothing at 514 (397 → 402).
func (e *engine) split() bool {
	return e.s.DrawsPerStep == 1 && len(e.workers) > 1 && e.dim >= splitMin
}

// splitMin is where sharing starts to pay (see split).
const splitMin = 300

// claimSeg returns the next unclaimed segment of a split job (len(e.segs)
// or more when none is left). The workers claim segments as they go, so that
// one slowed down (a costlier segment, a busy CPU) does fewer: the numbers
// do not depend on who draws which segment.
func (e *engine) claimSeg() int { return int(e.nextSeg.Add(1)) - 1 }

// splitSample fills the step cache for the segments worker w claims and
// draws them into worker 0's buffers.
func (e *engine) splitSample(w int, j job) {
	wk, w0 := e.workers[w], e.workers[0]
	for si := e.claimSeg(); si < len(e.segs); si = e.claimSeg() {
		sg := e.segs[si]
		b := &e.blocks[sg.b]
		if e.cache.deferrable(b) { // the derivatives later (deferred)
			e.cache.fillSpan(b, e.theta, sg.lo, sg.hi, true)
			wk.pcg.Seed(segSeed(e.s.Seed, j.stream, j.iter, 0, si))
			b.sampleGammaLater(&e.cache, wk.rng, w0.x, e.dfr.lx, e.dfr.x, sg.lo, sg.hi)
			e.drawn(si)
			continue
		}
		e.cache.fillRange(b, e.theta, sg.lo, sg.hi)
		wk.pcg.Seed(segSeed(e.s.Seed, j.stream, j.iter, 0, si))
		b.sampleRange(&e.cache, e.s.Gamma, wk.rng, w0.x, w0.aux, sg.lo, sg.hi)
	}
}

// splitBackprop computes the step's gradient (what gradient makes of a
// single draw) for the units (deferred.units) the calling worker claims,
// each after its deferred gamma work (settle): backpropagation, the entropy
// term unless STL, the chain rule to theta. A unit with a chunk that a
// helper is still working on waits until the worker's other units are
// done (up to a few such units; a helper works on one chunk at a time), so
// that a helper that lost its CPU mid-chunk holds up as little as it can.
func (e *engine) splitBackprop() {
	var later [4]int
	nl := 0
	for ui := e.claimSeg(); ui < len(e.dfr.units); ui = e.claimSeg() {
		if nl < len(later) && !e.trySettle(e.dfr.unitChunks[ui], e.dfr.unitChunks[ui+1]) {
			later[nl] = ui
			nl++
			continue
		}
		e.backpropUnit(ui)
	}
	for _, ui := range later[:nl] {
		e.backpropUnit(ui)
	}
}

// backpropUnit is splitBackprop's work on unit ui.
func (e *engine) backpropUnit(ui int) {
	w0, g, stl := e.workers[0], e.grad, e.s.Estimator.stl()
	h, cv := e.drawCV(0)
	sg := e.dfr.units[ui]
	b := &e.blocks[sg.b]
	e.settle(e.dfr.unitChunks[ui], e.dfr.unitChunks[ui+1])
	a0, a1, b0, b1 := b.spans(sg.lo, sg.hi)
	clear(g[a0:a1])
	clear(g[b0:b1])
	b.backpropRange(&e.cache, stl, w0.x, w0.gx, w0.aux, g, h, cv, 0, sg.lo, sg.hi)
	if !stl {
		b.entropyGradRange(&e.cache, g, sg.lo, sg.hi)
	}
	e.cache.chainRange(b, g, sg.lo, sg.hi)
	if !allFinite(g[a0:a1]) || !allFinite(g[b0:b1]) {
		e.segBad.Store(true)
	}
}

// blockDelta writes the step of block b's parameters [lo, hi) into e.delta
// (after e.opt.begin): the optimizer's rule, elementwise, or for a
// full-rank factor, whose one segment spans its block, the natural-gradient
// step of the whole block (natDelta). A low-rank factor's steps of C are
// then widened row by row (lowRankScaleC).
func (e *engine) blockDelta(b *block, eta float64, lo, hi int) {
	if b.fam == FamilyFullRank {
		b.natDelta(e.theta, e.grad, e.delta, eta, e.natDecay)
		return
	}
	e.opt.update(e.delta, e.grad, eta, lo, hi, e.cache.fisher)
	if b.fam == FamilyLowRank {
		b.lowRankScaleC(e.theta, e.delta)
	}
}

// splitUpdate takes the optimizer step (after e.opt.begin) on the
// parameters of the units (deferred.units) the calling worker claims,
// keeping their old values in e.backup, and flags a non-finite result.
func (e *engine) splitUpdate(eta float64) {
	for ui := e.claimSeg(); ui < len(e.dfr.units); ui = e.claimSeg() {
		sg := e.dfr.units[ui]
		b := &e.blocks[sg.b]
		a0, a1, b0, b1 := b.spans(sg.lo, sg.hi)
		for _, r := range [2][2]int{{a0, a1}, {b0, b1}} {
			lo, hi := r[0], r[1]
			if lo == hi {
				continue
			}
			e.blockDelta(b, eta, lo, hi)
			copy(e.backup[lo:hi], e.theta[lo:hi])
			b.stepClamped(e.theta, e.delta, lo, hi)
			if !allFinite(e.theta[lo:hi]) {
				e.segBad.Store(true)
			}
			if e.cvSet { // updateCV's running mean, on this range
				h := e.dh[0]
				np := len(e.cv) / 2 // and the weighted record's range
				for _, o := range [2]int{0, np} {
					copy(e.cvOld[o+lo:o+hi], e.cv[o+lo:o+hi])
					for i := o + lo; i < o+hi; i++ {
						e.cv[i] += cvRate * (h[i] - e.cv[i])
					}
				}
			}
		}
	}
}

// stepSplit computes the step's single draw and its gradient into e.grad
// with the workers sharing its segments: the numbers are those of draw and
// gradient (the same segment streams, the same arithmetic per element).
func (e *engine) stepSplit(stream uint64, iter int) {
	j := job{kind: jobSplitSample, stream: stream, iter: uint64(iter), n: 1}
	e.run(j)
	w0 := e.workers[0]
	if e.team != nil {
		e.team.active = true
	}
	lp, err := w0.target(j, 0).LogJoint(w0.x, w0.gx)
	if e.team != nil {
		e.team.active = false
	}
	lp += e.addLogitJac(w0.x, w0.gx)
	e.lp[0], e.errs[0] = lp, err
	if math.IsNaN(lp) || math.IsInf(lp, 0) || !allFinite(w0.gx) {
		e.settle(0, len(e.dfr.chunks)) // no chunk in flight past the step
		e.ok[0] = false
		return
	}
	e.segBad.Store(false)
	e.run(job{kind: jobSplitBackprop})
	e.ok[0] = !e.segBad.Load()
}

// drawCV returns draw d's control-variate record h and the coefficients
// in use (nil for none).
func (e *engine) drawCV(d int) (h, cv []float64) {
	if e.cv != nil {
		h = e.dh[d]
	}
	if e.cvSet {
		cv = e.cv
	}
	return h, cv
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// draw computes draw d of job j on worker wk.
func (e *engine) draw(wk *worker, j job, d int) {
	if j.kind == jobEval && j.stream == streamFinal && e.halt.Load() {
		// interrupted: the final estimate is cut short (finalEstimateCtx)
		e.lp[d], e.lq[d], e.errs[d], e.ok[d] = math.NaN(), math.NaN(), context.Canceled, false
		e.cut.Add(1)
		return
	}
	for si, sg := range e.segs {
		wk.pcg.Seed(segSeed(e.s.Seed, j.stream, j.iter, d, si))
		e.blocks[sg.b].sampleSpan(&e.cache, e.s.Gamma, wk.rng, wk.x, wk.aux, sg.lo, sg.hi, j.kind == jobEval)
	}
	if j.kind == jobEval { // values alone: log p − log q
		lp, err := logJointValue(wk.target(j, d), wk.x, wk.gx)
		jac := e.logitJac(wk.x)
		lp += jac
		e.lp[d], e.errs[d] = lp, err
		lq := jac
		for bi := range e.blocks {
			lq += e.blocks[bi].logqWith(&e.cache, wk.x, wk.aux, e.lq0)
		}
		e.lq[d] = lq
		e.ok[d] = finite(lp) && finite(lq)
		return
	}
	lp, err := wk.target(j, d).LogJoint(wk.x, wk.gx)
	lp += e.addLogitJac(wk.x, wk.gx)
	e.lp[d], e.errs[d] = lp, err
	ok := !math.IsNaN(lp) && !math.IsInf(lp, 0) && allFinite(wk.gx)
	if !ok {
		e.ok[d] = false
		return
	}
	g := e.dgrad[d]
	clear(g)
	h, cv := e.drawCV(d)
	for bi := range e.blocks {
		e.blocks[bi].backprop(&e.cache, e.s.Estimator.stl(), wk.x, wk.gx, wk.aux, g, h, cv, d)
	}
	e.ok[d] = allFinite(g)
}

// target returns the log joint of draw d of job j: the full one, or with
// Settings.Minibatch, except for the final estimate (streamFinal), the
// minibatch target with the batch of the draw's stream, iteration and
// index. The ELBO estimates during the fit draw their batches, like their
// base draws, from iteration 0 at every evaluation (common random
// numbers), so two estimates differ by what q moved, not by their batches.
func (wk *worker) target(j job, d int) Target {
	if wk.bt == nil || j.stream == streamFinal {
		return wk.t
	}
	s1, s2 := streamSeed(wk.seed, j.stream, j.iter, d)
	wk.bt.SetBatch(mix64(s1^streamBatchSalt), s2)
	return wk.bt
}

// streamBatchSalt separates a draw's minibatch stream from its base draws.
const streamBatchSalt = 0x6a09e667f3bcc909

// addLogitJac returns the log Jacobian Σ log σ(x)(1 − σ(x)) of the
// coordinates x held as logits (e.logits) and adds its gradient into g:
// with it, log p and log q of a draw are densities of those coordinates,
// whose entropy under q is the normal's (block.logitAt). 0 without such
// coordinates, when a fit's numbers are those of the engine without them.
func (e *engine) addLogitJac(x, g []float64) float64 {
	s := 0.0
	for _, c := range e.logits {
		j, dj := logitJac(x[c])
		s += j
		g[c] += dj
	}
	for _, c := range e.stickLogs { // Σ log x of each simplex row (dist.StickBreakLogJac)
		s += x[c]
		g[c]++
	}
	return s
}

// logitJac is addLogitJac's value alone (the same sum, in the same order).
func (e *engine) logitJac(x []float64) float64 {
	s := 0.0
	for _, c := range e.logits {
		j, _ := logitJac(x[c])
		s += j
	}
	for _, c := range e.stickLogs {
		s += x[c]
	}
	return s
}

// errNotFiniteHere is the error of a point whose log joint or gradient is
// not finite when the model gave none that says where (a start tried).
var errNotFiniteHere = errors.New("sgvb: the log joint or its gradient is not finite there")

func errNonFinite(consec, it int) error {
	return fmt.Errorf("sgvb: the log joint or its gradient was not finite in %d consecutive steps (iteration %d)", consec, it)
}

// step takes one gradient step with step size eta. It returns false (and
// the Target's error, if any) when a draw or the update was not finite; q
// is then unchanged.
func (e *engine) step(stream uint64, iter int, eta float64) (bool, error) {
	if ok, err := e.gradient(stream, iter); !ok {
		return false, err
	}
	if e.split() {
		// Once the control variate is set, the update job also moves its
		// running mean (updateCV's arithmetic, by ranges) rather than
		// worker 0 alone after it while the helpers wait.
		cvDone := e.cvSet
		e.opt.begin()
		e.segBad.Store(false)
		e.run(job{kind: jobSplitUpdate, eta: eta})
		if e.segBad.Load() {
			copy(e.theta, e.backup)
			if cvDone {
				copy(e.cv, e.cvOld)
			}
			return false, nil
		}
		if !cvDone {
			e.updateCV()
		}
		return true, nil
	}
	e.opt.begin()
	for bi := range e.blocks {
		b := &e.blocks[bi]
		e.blockDelta(b, eta, b.poff, b.poff+b.np())
	}
	copy(e.backup, e.theta)
	for bi := range e.blocks {
		b := &e.blocks[bi]
		b.stepClamped(e.theta, e.delta, b.poff, b.poff+b.np())
	}
	if !allFinite(e.theta) {
		copy(e.theta, e.backup)
		return false, nil
	}
	e.updateCV()
	return true, nil
}

// gradient estimates the ELBO gradient with respect to theta into e.grad
// from DrawsPerStep draws. It returns false (and the Target's error, if
// any) when a draw or the gradient is not finite.
func (e *engine) gradient(stream uint64, iter int) (bool, error) {
	S := e.s.DrawsPerStep
	if e.split() {
		e.stepSplit(stream, iter)
		if !e.ok[0] {
			return false, e.errs[0]
		}
		return true, nil
	}
	e.cache.fill(e.blocks, e.theta)
	e.run(job{kind: jobStep, stream: stream, iter: uint64(iter), n: S})
	for d := 0; d < S; d++ {
		if !e.ok[d] {
			return false, e.errs[d]
		}
	}
	g := e.grad
	copy(g, e.dgrad[0])
	for d := 1; d < S; d++ {
		for i, v := range e.dgrad[d] {
			g[i] += v
		}
	}
	inv := 1 / float64(S)
	for i := range g {
		g[i] *= inv
	}
	if !e.s.Estimator.stl() {
		for bi := range e.blocks {
			e.blocks[bi].entropyGrad(&e.cache, g)
		}
	}
	e.cache.chain(e.blocks, g)
	return allFinite(g), nil
}

// updateCV folds the step's draws into the control variate's running mean
// of h (see Estimator).
func (e *engine) updateCV() {
	S := e.s.DrawsPerStep
	inv := 1 / float64(S)
	if e.cv != nil && S == 1 { // the loop below without the copy
		h := e.dh[0]
		if !e.cvSet {
			copy(e.cv, h)
			e.cvSet = true
			return
		}
		for i, v := range h {
			e.cv[i] += cvRate * (v - e.cv[i])
		}
		return
	}
	if e.cv != nil {
		hm := e.hmean
		copy(hm, e.dh[0])
		for d := 1; d < S; d++ {
			for i, v := range e.dh[d] {
				hm[i] += v
			}
		}
		if !e.cvSet {
			for i := range hm {
				e.cv[i] = hm[i] * inv
			}
			e.cvSet = true
		} else {
			for i := range hm {
				e.cv[i] += cvRate * (hm[i]*inv - e.cv[i])
			}
		}
	}
}

// cvRate is the weight of the newest step in the control variate's running
// mean.
const cvRate = 0.1

// KBandLow and KBandHigh bound the k̂ from Settings.PSISDraws draws that
// a fit estimates again from Settings.ParetoKDraws: around 0.7, where a
// k̂ from 1000 draws decides warnings, hints and --psis-resample's
// fallback on noise (a crossed GLMM's q gave 0.686 from 1000 draws, 1.03
// from 10 000). Below 0.5 and above 1 the reading would take a large
// error to change.
const (
	KBandLow  = 0.5
	KBandHigh = 1.0
)

// paretoKFrom returns the k̂ of the final stream's first N draws (whose
// first PSISDraws are the final estimate's) and the relative ESS of their
// smoothed weights (ParetoDiagnostics), the draws being values alone: at
// 10 000 draws, ten times the final estimate's work.
func (e *engine) paretoKFrom(N int) (k, relESS float64) {
	if len(e.lp) < N {
		e.lp, e.lq = make([]float64, N), make([]float64, N)
		e.ok, e.errs = make([]bool, N), make([]error, N)
	}
	e.eval(streamFinal, 0, N)
	lw := make([]float64, 0, N)
	for d := range N {
		if e.ok[d] {
			lw = append(lw, e.lp[d]-e.lq[d])
		}
	}
	return ParetoDiagnostics(lw)
}

// finalEstimateCtx is finalEstimate for a fit that ctx may cancel while
// its draws are evaluated. Once ctx is cancelled the draws not yet
// evaluated fail at once (engine.halt), and the CLI's stop flag fails a
// long log joint under way, so the ELBO and k̂ would be of the draws
// before the cancel alone, not q's: r is then marked interrupted, its ELBO
// and standard error restored to what they were before the estimate, k̂
// not estimated, and the estimate's warnings dropped. Where the cancel
// comes after the PSISDraws draws, during or before k̂'s estimate again
// from ParetoKDraws, that estimate is skipped: r keeps the PSISDraws
// draws' ELBO and k̂, with a warning that says so, and is marked
// interrupted (an estimate the cancel came during is the draws' before
// it). It reports whether the estimate stands uninterrupted.
func (e *engine) finalEstimateCtx(ctx context.Context, r *Result, start time.Time) bool {
	elbo, se, nw := r.ELBO, r.ELBOSE, len(r.Warnings)
	e.cut.Store(0)
	whole := e.finalEstimate(ctx, r, start)
	if ctx.Err() == nil {
		return true
	}
	r.Interrupted = true
	if whole {
		return false
	}
	r.Warnings = r.Warnings[:nw]
	r.ELBO, r.ELBOSE = elbo, se
	r.ParetoK, r.ParetoRelESS, r.ParetoKDraws, r.ParetoKCapped = math.NaN(), math.NaN(), 0, 0
	return false
}

// finalEstimate sets r's ELBO and its Pareto k̂ of p/q from the final
// stream's Settings.PSISDraws draws of q (more where k̂ is near 0.7:
// paretoKFrom, unless ctx is cancelled by then). start is the fit's
// start, for Settings.Scoring. It reports false, leaving r as it was,
// where an interrupt cut the PSISDraws draws short (engine.halt).
func (e *engine) finalEstimate(ctx context.Context, r *Result, start time.Time) bool {
	s := e.s
	n := s.PSISDraws
	e.scored(start, n, true)
	if ctx.Err() != nil {
		e.halt.Store(true) // before stopOn's hook runs: nothing to wait for
	}
	elbo, se, bad := e.eval(streamFinal, 0, n)
	if e.cut.Load() > 0 || ctx.Err() != nil { // cancelled during the draws
		return false
	}
	r.ELBO, r.ELBOSE, r.FinalBad = elbo, se, bad
	lw := make([]float64, 0, n)
	for d := 0; d < n; d++ {
		if e.ok[d] {
			lw = append(lw, e.lp[d]-e.lq[d])
		}
	}
	if bad > 0 {
		r.warn(nonFiniteFinal, bad, n)
	}
	r.ParetoK, r.ParetoRelESS = ParetoDiagnostics(lw)
	if !math.IsNaN(r.ParetoK) {
		r.ParetoKDraws = n
	}
	r.ParetoKCapped = 0
	N := s.ParetoKDraws
	if estimateKAgain(r.ParetoK, r.ParetoRelESS, n, N) && s.Method == SGVB {
		if c := paretoKCap(s, n, N, e.fitWork(r)); c < N {
			r.ParetoKCapped, N = N, c
		}
	}
	if estimateKAgain(r.ParetoK, r.ParetoRelESS, n, N) {
		e.scored(start, N, false)
		if ctx.Err() != nil {
			r.warn("interrupted: Pareto k̂ %.2f is from the final estimate's %d draws; its estimate again from %d draws (k̂ near 0.7) was skipped", r.ParetoK, n, N)
			return true
		}
		k, ess := e.paretoKFrom(N)
		if e.cut.Load() > 0 || ctx.Err() != nil {
			r.warn("interrupted: Pareto k̂ %.2f is from the final estimate's %d draws; its estimate again from %d draws (k̂ near 0.7) was cut short", r.ParetoK, n, N)
			return true
		}
		r.ParetoK, r.ParetoRelESS = k, ess
		r.ParetoKDraws = N
	}
	return true
}

// fitWork is the fit's gradient draws so far (r.Iterations steps of
// DrawsPerStep), each counted as one log joint of the whole data, a
// minibatch draw as its share B/N (BatchShare) of one.
func (e *engine) fitWork(r *Result) float64 {
	share := 1.0
	if b, ok := e.s.Minibatch.(BatchShare); ok {
		share = b.BatchShare()
	}
	return float64(r.Iterations) * float64(e.s.DrawsPerStep) * share
}

// paretoKCap returns the draws (N at most) that k̂ of n draws is to be
// estimated again from, given the fit's work (fitWork): the extra draws
// at most Settings.ParetoKCost times work, or ParetoKFree where more,
// rounded down to a multiple of n: so n (no estimate again) where that
// allows fewer than n more, as a k̂ from so few more draws is hardly
// less noisy. N where ParetoKCost is not set or does not bind.
func paretoKCap(s *Settings, n, N int, work float64) int {
	if s.ParetoKCost <= 0 || n <= 0 {
		return N
	}
	extra := max(s.ParetoKCost*work, float64(s.ParetoKFree))
	if float64(N-n) <= extra {
		return N
	}
	return (n + int(extra)) / n * n // n where fewer than n more
}

// estimateKAgain reports whether k̂ of n draws, their weights' relative
// ESS relESS, is to be estimated again from N draws (ParetoKDraws): where
// it is near 0.7 (in [KBandLow, KBandHigh]), unless the weights are
// degenerate (Degenerate), one draw holding more than half their weight:
// q is then far from the posterior whatever k̂ says, and more draws, each
// a log joint (a 1000 × 1000 factor model's 10 000 cost 25 times its fit
// in a user trial of 2026-12-01), would not change that.
func estimateKAgain(k, relESS float64, n, N int) bool {
	return N > n && k >= KBandLow && k <= KBandHigh && !Degenerate(relESS, n)
}

// scored calls Settings.Scoring, where set, as a final estimate on n
// draws starts (of the ELBO and k̂, or of k̂ alone) in a fit that started
// at start.
func (e *engine) scored(start time.Time, n int, elbo bool) {
	if e.s.Scoring != nil {
		e.s.Scoring(n, time.Since(start), elbo)
	}
}

// fillLogq0 sets e.lq0 from the cache's parameters (allocating it at the
// first estimate with gamma factors).
func (e *engine) fillLogq0() {
	for bi := range e.blocks {
		b := &e.blocks[bi]
		if b.fam != FamilyGamma {
			continue
		}
		if e.lq0 == nil {
			e.lq0 = make([]float64, e.np)
		}
		b.logq0(&e.cache, e.lq0)
	}
}

// eval estimates the ELBO from n draws of q. It uses E[log p] + H with the
// centred −log q − H (mean zero) as control variate, its coefficient fitted
// on the same draws: exact when q is the posterior. It returns the estimate,
// its Monte Carlo standard error and the number of non-finite draws left
// out; e.lp and e.lq hold the draws.
func (e *engine) eval(stream uint64, iter int, n int) (elbo, se float64, bad int) {
	e.cache.fill(e.blocks, e.theta)
	e.fillLogq0()
	e.run(job{kind: jobEval, stream: stream, iter: uint64(iter), n: n})
	H := 0.0
	for bi := range e.blocks {
		H += e.blocks[bi].entropy(&e.cache)
	}
	// means and (co)variances of y = log p and w = −log q − H over good draws
	var m int
	var my, mw float64
	for d := 0; d < n; d++ {
		if !e.ok[d] {
			bad++
			continue
		}
		m++
		y, w := e.lp[d], -e.lq[d]-H
		my += (y - my) / float64(m)
		mw += (w - mw) / float64(m)
	}
	if m == 0 {
		return math.NaN(), math.NaN(), bad
	}
	var vww, vyw float64
	for d := 0; d < n; d++ {
		if !e.ok[d] {
			continue
		}
		y, w := e.lp[d]-my, -e.lq[d]-H-mw
		vww += w * w
		vyw += y * w
	}
	c := 0.0
	if vww > 0 {
		c = -vyw / vww
	}
	elbo = my + H + c*mw
	if lo, hi := e.evalRange(n); elbo < lo || elbo > hi {
		// a coefficient fitted to a heavy tail of log p (one draw far
		// below the rest) makes c·mw, mean zero in expectation, as large
		// as that tail: at a gamma factor of shape 0.08 twenty draws of log
		// p from −2.5·10³ to −1.7·10⁵³ gave c = −9·10⁵⁰ and an estimate of
		// +1.7·10⁵⁰, above every draw's log p − log q. An estimate of the
		// mean of log p − log q outside the range of its draws is no
		// estimate: the plain mean (c = 1) is.
		c = 1
		elbo = my + H + mw
	}
	var v float64
	for d := 0; d < n; d++ {
		if !e.ok[d] {
			continue
		}
		r := (e.lp[d] - my) + c*(-e.lq[d]-H-mw)
		v += r * r
	}
	if m > 1 {
		se = math.Sqrt(v / float64(m-1) / float64(m))
	}
	return elbo, se, bad
}

// firstBadErr returns the error of the first of the last n-draw
// estimate's (eval) draws left out that has one; nil if none.
func (e *engine) firstBadErr(n int) error {
	for d := 0; d < n; d++ {
		if !e.ok[d] && e.errs[d] != nil {
			return e.errs[d]
		}
	}
	return nil
}

// evalRange returns the least and greatest log p − log q of the finite
// draws of the last n-draw estimate (eval).
func (e *engine) evalRange(n int) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for d := 0; d < n; d++ {
		if e.ok[d] {
			v := e.lp[d] - e.lq[d]
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return lo, hi
}

// Step sizes tried by the step-size search.
var searchEtas = [...]float64{100, 10, 1, 0.1, 0.01}

// After a non-finite step the step size is halved; every good step then
// multiplies it by stepRecover, up to the configured step size, so that
// 5 good steps undo one halving: rare bad draws cost little, while a run of
// bad steps (more than one in six) keeps shrinking the step.
var stepRecover = math.Pow(2, 1.0/5)

func (e *engine) searchStepSize(ctx context.Context, r *Result) float64 {
	s := e.s
	theta0 := append([]float64(nil), e.theta...)
	best, bestEta := math.Inf(-1), s.StepSize
	for ti, eta := range searchEtas {
		if ctx.Err() != nil {
			break
		}
		copy(e.theta, theta0)
		e.opt.reset()
		e.cvSet = false
		bad, cur := 0, eta
		for it := 0; it < s.SearchIters && bad < s.MaxBadSteps && ctx.Err() == nil; it++ {
			if ok, _ := e.step(streamSearch+2*uint64(ti), it, cur); ok {
				bad = 0
				cur = math.Min(eta, cur*stepRecover)
			} else {
				bad++
				cur *= 0.5
			}
		}
		elbo := math.Inf(-1)
		if bad < s.MaxBadSteps {
			elbo, _, _ = e.eval(streamSearchEval+2*uint64(ti), 0, s.ELBODraws)
		}
		if !math.IsNaN(elbo) && elbo > best {
			best, bestEta = elbo, eta
		}
	}
	copy(e.theta, theta0)
	e.opt.reset()
	e.cvSet = false
	if math.IsInf(best, -1) {
		r.warn("step-size search: every step size failed; using η = %g", s.StepSize)
		return s.StepSize
	}
	return bestEta
}

func (e *engine) fitSGVB(ctx context.Context) (*Result, error) {
	s := e.s
	start := time.Now()
	r := &Result{Method: SGVB, Dim: e.dim, ParetoK: math.NaN(), ParetoRelESS: math.NaN(), ELBO: math.NaN(), ELBOSE: math.NaN()}
	eta0 := s.StepSize
	if s.SearchStepSize {
		eta0 = e.searchStepSize(ctx, r)
	}
	r.StepSize = eta0
	eta := eta0
	start0 := append([]float64(nil), e.theta...) // the start q (AtStart)

	var avg *averager // nil: the last iterate is q
	if !s.LastIterate {
		avg = newAverager(s.Window, e.np)
	}
	stop := newStopRule(avg != nil, s.Window, s.Tol, stopScalePerCoord*float64(e.dim))
	stop.batched = s.Minibatch != nil
	lastEval, lastT := 0, start
	consec := 0
	var lastErr error
	var stopErr error
	// stepCause is the clause naming r.StepErr (firstClause) for the
	// first warning that counts bad steps once there is one to name, ""
	// after it: the error is said once.
	stepSaid := false
	stepCause := func(open, close string) string {
		if c := firstClause(r.StepErr); c != "" && !stepSaid {
			stepSaid = true
			return open + c + close
		}
		return ""
	}
	evalBad := 0
	g := e.newGuard()
	stalls := 0
	anneal := 0
	every, since := s.EvalEvery, 0
	var stepping time.Duration // the steps' time before the first evaluation (Settings.Stepping)
	e.snapOK = false
	for bi := range e.blocks { // the search's steps do not count
		e.blocks[bi].natCut, e.blocks[bi].natSteps, e.blocks[bi].natHeavy = 0, 0, 0
	}
	// afterRollback goes on from the q the guard restored, with half the
	// step size; the convergence rule and the averages start afresh.
	// traced: the last trace point is of the q the fit holds now, or
	// (avgTraced) of the average of the iterates while it holds the iterate
	traced, avgTraced := false, false
	rolledAt := 0      // the iteration of the last rollback (Progress.RolledBack)
	exhausted := false // the guard stopped the fit, its rollbacks spent (AtStart)
	afterRollback := func(it int) {
		if s.Rollback != nil && len(r.Warnings) > 0 {
			s.Rollback(it, r.Warnings[len(r.Warnings)-1])
		}
		rolledAt = it
		traced, avgTraced = false, false
		eta0 /= 2
		eta = eta0
		stop.reset()
		if avg != nil {
			avg.reset()
		}
	}
	it := 0
	for it < s.MaxIter {
		if ctx.Err() != nil {
			r.Interrupted = true
			break
		}
		e.natDecay = e.decay(it)
		early := s.Stepping != nil && len(r.Trace) == 0 // no progress line yet
		var t0 time.Time
		if early {
			t0 = time.Now()
		}
		ok, err := e.step(streamStep, it, eta*e.natDecay)
		it++
		if early && ctx.Err() == nil {
			stepping += time.Since(t0)
			s.Stepping(it, stepping, time.Since(start))
		}
		if s.Stepped != nil && ctx.Err() == nil {
			s.Stepped(it)
		}
		traced, avgTraced = false, false
		if ok {
			consec = 0
			eta = math.Min(eta0, eta*stepRecover)
		} else if ctx.Err() != nil {
			// a draw cut short by the interruption (StopTarget): not a
			// bad step; q is unchanged
			r.Interrupted = true
			break
		} else {
			consec++
			r.BadSteps++
			eta *= 0.5
			if err != nil {
				lastErr = err
				if r.StepErr == nil {
					r.StepErr = err
				}
			}
			// MaxBadSteps halvings net of recoveries: that many bad steps
			// in a row, or a steady share above one in six, which has
			// shrunk the step until q no longer moves. While the guard has
			// rollbacks left and a q with a finite ELBO estimate to go
			// back to, the fit goes back to it with half the step size, as
			// after a divergence; otherwise it stops.
			if consec >= s.MaxBadSteps || eta < eta0*math.Ldexp(1, -s.MaxBadSteps) {
				if g != nil && finite(g.elbo) && r.Rollbacks < s.MaxRollbacks {
					g.restore(r)
					r.warn("at iteration %d, after %d steps with a non-finite log joint or gradient (the last %d in a row%s), went back to %s with the optimizer reset and step size %g", it, r.BadSteps, consec, stepCause("; ", ""), g.from(), eta0/2)
					afterRollback(it)
					consec = 0
					continue
				}
				if lastErr != nil && r.StepErr != nil && lastErr.Error() == r.StepErr.Error() {
					stepSaid = true // the fit's error, printed with it
				}
				cause := stepCause(" (", ")")
				if consec >= s.MaxBadSteps {
					r.warn("stopped at iteration %d after %d consecutive steps with a non-finite log joint or gradient%s; q is the last good one", it, consec, cause)
				} else {
					r.warn("stopped at iteration %d: %d of its steps had a non-finite log joint or gradient%s, too many to recover from: each halves the step (five good ones undo a halving), and they had taken it below 2^-%d of the step size %g it last restarted from, so that q no longer moved; q is the last good one", it, r.BadSteps, cause, s.MaxBadSteps, eta0)
				}
				stopErr = lastErr
				if stopErr == nil {
					stopErr = errNonFinite(consec, it)
				}
				break
			}
		}
		if it%s.EvalEvery == 0 && e.stalled(r.BadSteps) && stalls < maxStallResets {
			// AdaDelta's mean square remembers a gradient spike (a draw far
			// in q's tail) for thousands of steps, its rate has collapsed
			// and q no longer moves: a flat ELBO that is no convergence.
			stalls++
			r.stalls = stalls
			r.warn("at iteration %d q had stopped moving (no coordinate by %g in %d steps) after a gradient spike; the optimizer's state was reset", it, stallMove, s.EvalEvery)
			e.opt.reset()
			stop.reset()
			if avg != nil {
				avg.reset()
			}
		}
		if avg != nil {
			avg.add(e.theta)
		}
		if (it-since)%every != 0 && it != s.MaxIter {
			continue
		}
		var elbo, se float64
		var bad int
		if avg != nil {
			// the averaged q, from the same draws at every evaluation; the
			// guard sees (and keeps) that q, the steps go on from the iterate
			copy(e.iterate, e.theta)
			avg.mean(e.theta)
			elbo, se, bad = e.eval(streamEval, 0, s.ELBODraws)
			avg.endBlock()
		} else {
			elbo, se, bad = e.eval(streamEval, it, s.ELBODraws)
		}
		if bad > 0 && ctx.Err() != nil {
			// draws cut short by the interruption (StopTarget): no
			// estimate; the fit stops with the q of its steps
			if avg != nil {
				copy(e.theta, e.iterate)
			}
			r.Interrupted = true
			break
		}
		evalBad += bad
		if bad > 0 && r.EvalErr == nil {
			r.EvalErr = e.firstBadErr(s.ELBODraws)
		}
		for bi := range e.blocks {
			if e.blocks[bi].fam == FamilyFullRank {
				e.blocks[bi].natRegime()
			}
		}
		now := time.Now()
		rc, converged := stop.observe(elbo, se)
		r.Trace = append(r.Trace, TracePoint{Iter: it, ELBO: elbo, SE: se, Seconds: now.Sub(start).Seconds()})
		traced = true
		if s.Progress != nil {
			s.Progress(Progress{Iter: it, ELBO: elbo, SE: se, RelChange: rc, RolledBack: rolledAt,
				ItPerSec: float64(it-lastEval) / now.Sub(lastT).Seconds(), Elapsed: now.Sub(start)})
		}
		lastEval, lastT = it, now
		if g != nil && g.diverged(elbo) {
			more := g.rollback(r, it, elbo, eta0/2)
			afterRollback(it)
			if !more {
				exhausted = true
				break
			}
			continue
		}
		if g != nil && g.drifted(elbo) {
			more := g.driftBack(r, it, elbo, eta0/2)
			afterRollback(it)
			if !more {
				exhausted = true
				break
			}
			continue
		}
		if g != nil {
			g.keep(it, elbo, se)
		}
		if avg != nil && !converged {
			copy(e.theta, e.iterate)
			traced, avgTraced = false, true
		}
		if converged && s.Minibatch != nil && avg != nil && anneal < s.Anneal {
			// settled at this step size: the average still holds a bias of
			// the order of the step (the batches' gradient noise), so go on
			// from it with half the step, averaging twice as many steps
			// anew (see Settings.Anneal)
			anneal++
			eta0 /= 2
			eta = eta0
			every *= 2
			since = it
			stop.reset()
			avg.reset()
			continue
		}
		if converged {
			r.Converged = true
			break
		}
	}
	r.Iterations, r.StepSize = it, eta0
	// final is the ELBO estimate of the q the fit returns, once known: the
	// last evaluation's only if q has not moved since (an interrupted fit
	// stops between evaluations, a rollback restores an earlier q, and an
	// unsettled fit may return its iterate rather than the average
	// evaluated last)
	var final *TracePoint
	if traced {
		final = &r.Trace[len(r.Trace)-1]
	}
	if r.BadSteps > 0 && !stepSaid {
		// skipped steps no rollback or stop warned of: named if the
		// model said what failed (a NaN of its own is bad_steps alone)
		if c := stepCause(" (", ")"); c != "" {
			r.warn("%d steps had a non-finite log joint or gradient and were skipped%s", r.BadSteps, c)
		}
	}
	if evalBad > 0 {
		cause := ""
		if c := firstClause(r.EvalErr); c != "" {
			cause = " (" + c + ")"
		}
		r.warn("%d ELBO draws had a non-finite log joint%s and were left out of the estimates", evalBad, cause)
	}
	if avg != nil && stopErr == nil {
		r.Averaged = avg.count()
		if !r.Converged && r.Averaged > 0 {
			// not settled: the average lags behind a q that still moves,
			// so the iterate is q if its ELBO (from the same draws) is higher
			copy(e.iterate, e.theta)
			iq := TracePoint{Iter: it}
			iq.ELBO, iq.SE, _ = e.eval(streamEval, 0, s.ELBODraws)
			avg.mean(e.theta)
			if avgTraced { // the loop ended with an evaluation of the average
				final = &r.Trace[len(r.Trace)-1]
			} else {
				aq := TracePoint{Iter: it}
				aq.ELBO, aq.SE, _ = e.eval(streamEval, 0, s.ELBODraws)
				final = &aq
			}
			if iq.ELBO > final.ELBO || (math.IsNaN(final.ELBO) && !math.IsNaN(iq.ELBO)) {
				copy(e.theta, e.iterate)
				r.Averaged = 0
				final = &iq
			}
		}
	}
	if !r.Converged && !r.Interrupted && stopErr == nil && s.Tol > 0 {
		r.warn("did not converge in %d iterations (relative ELBO tolerance %g)", it, s.Tol)
	}
	if final == nil && (len(r.Trace) > 0 || r.Interrupted) && stopErr == nil {
		q := TracePoint{Iter: it}
		q.ELBO, q.SE, _ = e.eval(streamEval, it, s.ELBODraws)
		final = &q
	}
	if final != nil {
		r.ELBO, r.ELBOSE = final.ELBO, final.SE
	} else if len(r.Trace) > 0 { // stopped by bad steps: q is the last good one
		last := r.Trace[len(r.Trace)-1]
		r.ELBO, r.ELBOSE = last.ELBO, last.SE
	}
	if !r.Interrupted && s.PSISDraws > 0 {
		if e.finalEstimateCtx(ctx, r, start) && avg != nil && r.Averaged > 0 && final != nil {
			e.averageCheck(ctx, r, *final, start)
		}
	}
	r.ParetoReading = TailReading(r.ParetoK, r.ParetoRelESS, r.ParetoKDraws)
	if w := overflowWarning(r.ELBO, r.ELBOSE, "q"); w != "" {
		r.Warnings = append(r.Warnings, w)
	}
	if final != nil && !r.Interrupted && s.PSISDraws > 0 {
		if w := collapseWarning(r.ELBO, final.ELBO, "q"); w != "" {
			r.Warnings = append(r.Warnings, w)
			r.Collapsed = true
		}
	}
	// A failed fit's q is its last good one, for inspection, not a result:
	// a reading of its k̂ would be one more line to skip past the error;
	// so for an ELBO that overflows, whose weights p/q mean nothing.
	if stopErr == nil && !Overflows(r.ELBO, r.ELBOSE) {
		r.Warnings = append(r.Warnings, weightWarnings(r.ParetoK, r.ParetoRelESS, r.ParetoKDraws, "q")...)
	}
	r.AtStart = it > 0 && !r.Interrupted && e.dim > 0 && (exhausted || r.BadSteps == it) && slices.Equal(e.theta, start0)
	fs := e.blockFactors()
	r.Factors = e.merged(fs)
	r.Groups = e.groups()
	linkOrdered(r.Factors, r.Groups)
	fb := make([]block, len(fs))
	for i := range fs {
		fb[i] = e.blocks[e.latBlock[i]]
	}
	r.Warnings = append(r.Warnings, capWarnings(fb, fs)...)
	r.Seconds = time.Since(start).Seconds()
	return r, stopErr
}

// The averaged q's final estimate lies far below the evaluations when it
// is more than averageGapSEs standard errors of the last evaluation and
// more than averageGapNats nats below it (averageCheck). Healthy fits
// differ by noise: the bundled examples' final estimates lay within 3.0
// standard errors and 4 nats of their last evaluation (the PMF example:
// 4.0 nats, 1.7 standard errors; SV: 1.3 nats, 3.0); a Poisson
// factorisation whose factor held a gamma shape of 0.0012 lay 309 nats
// (52 standard errors) below.
const (
	averageGapSEs  = 10
	averageGapNats = 10
)

// averageCheck is the safety net of an averaged q (r.Averaged > 0) whose
// final estimate (r.ELBO, from PSISDraws draws) lies far below last, the
// evaluation of the same q from ELBODraws draws, or is not a number where
// last is finite: a heavy tail of log p − log q that the evaluations'
// fewer draws missed, such as a gamma factor whose shape has gone to ~0.
// The last iterate (e.iterate), which q
// averages, is then scored from the same final draws too, and q is the
// better of the two, with a warning that gives both estimates. It draws
// nothing where the gap is within noise, so that healthy fits are
// unchanged to the bit.
func (e *engine) averageCheck(ctx context.Context, r *Result, last TracePoint, start time.Time) {
	gap := last.ELBO - r.ELBO
	if !(gap > averageGapSEs*last.SE && gap > averageGapNats) && !(math.IsNaN(r.ELBO) && finite(last.ELBO)) {
		return
	}
	avgTheta := append([]float64(nil), e.theta...)
	avg, nw := finalOf(r), len(r.Warnings)
	copy(e.theta, e.iterate)
	if !e.finalEstimateCtx(ctx, r, start) {
		// interrupted (and so marked): the average stands, as estimated
		copy(e.theta, avgTheta)
		avg.restore(r)
		return
	}
	n := e.s.PSISDraws
	head := fmt.Sprintf("the final ELBO estimate of the averaged q (the mean of the last %d iterates) is %.6g ± %.2g from %d draws, %.3g nats below the last evaluation's %.6g ± %.2g from %d draws: a heavy tail of log p − log q that those draws missed (a gamma factor with a shape near 0?);",
		r.Averaged, avg.elbo, avg.se, n, gap, last.ELBO, last.SE, e.s.ELBODraws)
	if math.IsNaN(avg.elbo) { // no gap, nor a tail: its draws' log joints were not finite
		head = fmt.Sprintf("the final ELBO estimate of the averaged q (the mean of the last %d iterates) from %d draws is not a number, where the last evaluation's from %d draws is %.6g ± %.2g;",
			r.Averaged, n, e.s.ELBODraws, last.ELBO, last.SE)
	}
	if r.ELBO > avg.elbo || math.IsNaN(avg.elbo) && !math.IsNaN(r.ELBO) {
		// the average's count of non-finite final draws is of a q no
		// longer kept (the head gives its estimate)
		r.Warnings = dropNonFinite(r.Warnings, nw, n)
		r.warn("%s the last iterate's, from the same draws, is %.6g ± %.2g, so q is the last iterate", head, r.ELBO, r.ELBOSE)
		r.Averaged = 0
		return
	}
	iELBO, iSE := r.ELBO, r.ELBOSE
	copy(e.theta, avgTheta)
	r.Warnings = r.Warnings[:nw]
	avg.restore(r)
	r.warn("%s the last iterate's, from the same draws, is no higher (%.6g ± %.2g), so q stays the average", head, iELBO, iSE)
}

// finalFields are the fields of a Result that finalEstimate sets (besides
// its warnings), which averageCheck keeps to put the average's back.
type finalFields struct {
	elbo, se, k, relESS     float64
	kDraws, kCapped, nonfin int
}

func finalOf(r *Result) finalFields {
	return finalFields{r.ELBO, r.ELBOSE, r.ParetoK, r.ParetoRelESS, r.ParetoKDraws, r.ParetoKCapped, r.FinalBad}
}

func (f finalFields) restore(r *Result) {
	r.ELBO, r.ELBOSE, r.ParetoK, r.ParetoRelESS, r.ParetoKDraws, r.ParetoKCapped, r.FinalBad = f.elbo, f.se, f.k, f.relESS, f.kDraws, f.kCapped, f.nonfin
}

// capWarnings names the factors that sit at a bound of their parameters,
// where q cannot become as narrow as the posterior may be:
//   - a gamma shape (or a Dirichlet concentration, or a beta factor's α+β)
//     at or within a factor 2 of maxShape, the cap that keeps draws and their shape
//     derivatives finite and cheap: a gamma's relative sd 1/√a stops at
//     3·10⁻⁴ (a Poisson rate of 10¹⁵ from 50 counts has relative sd
//     4·10⁻⁹; its factor ended at shape 9·10⁶);
//   - behind a softplus (GammaSoftplus), a gamma rate at or within a factor
//     2 of its floor minParam: the mean is then 10⁸ times the shape, so the
//     shape cannot grow with the precision (a posterior Gamma(10¹⁰, 2)
//     ended at shape 82, a relative sd of 11 % against 10⁻⁵).
func capWarnings(blocks []block, fs []Factor) []string {
	var out []string
	for bi, f := range fs {
		if sds := floorSDs(f); sds > 0 {
			out = append(out, fmt.Sprintf("%s: %d sds of its %s factor are at or near the floor %.0e that keeps them positive; the posterior may be narrower than q (rescale the data or the parameter)",
				f.Name, sds, f.Family, minParam))
		}
		var slots [][]float64
		switch f.Family {
		case FamilyGamma:
			slots = f.Params[:1]
		case FamilyBeta: // α+β, which its log-concentration coordinate caps
			c := make([]float64, len(f.Params[0]))
			for i := range c {
				c[i] = f.Params[0][i] + f.Params[1][i]
			}
			slots = [][]float64{c}
		case FamilyDirichlet:
			slots = f.Params
		default:
			continue
		}
		n, total := 0, 0
		for _, p := range slots {
			for _, v := range p {
				total++
				if v >= maxShape/2 { // an iterate average sits below the cap
					n++
				}
			}
		}
		if n > 0 {
			// A shape below the cap is fitted as any other (a Poisson
			// rate whose posterior is Gamma(8·10⁶, ·) ends at its exact
			// shape since the natural-gradient cap of optim.update); one
			// at the cap may stand for a narrower posterior, which q
			// cannot follow, so the warning says how wide q must stay.
			what, hint := "shape", " (a lognormal factor, --family lognormal, has no cap)"
			if f.Family != FamilyGamma {
				what, hint = "concentration", ""
			}
			out = append(out, fmt.Sprintf("%s: %d of %d %ss of its %s factor are at or near the cap %.0e, where q's relative sd stops at %.1e: a posterior narrower than that gets a wider q%s",
				f.Name, n, total, what, f.Family, maxShape, 1/math.Sqrt(maxShape), hint))
		}
		if f.Family != FamilyGamma || blocks[bi].logMS {
			continue
		}
		n = 0
		for _, v := range f.Params[1] {
			if v <= 2*minParam {
				n++
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%s: %d of %d rates of its gamma factor are at or near the floor %.0e of --gamma-param softplus, which holds the mean at 10⁸ times the shape and keeps q wider than the posterior may be (the default log-mean coordinates have no floor)",
				f.Name, n, len(f.Params[1]), minParam))
		}
	}
	return out
}

// floorSDs counts the sds of a normal, lognormal or full-rank factor (the
// diagonal of its Cholesky factor) within a factor 2 of minParam, where
// they are held: a posterior sd below 10⁻⁸ on the latent's scale (data
// of scale 10⁻¹⁰, say) leaves q that wide.
func floorSDs(f Factor) int {
	var sds []float64
	switch f.Family {
	case FamilyNormal, FamilyLognormal:
		sds = f.Params[1]
	case FamilyFullRank:
		for i := range f.Params[0] {
			sds = append(sds, f.Params[1+i][i])
		}
	case FamilyLowRank:
		sds = f.Params[1]
	}
	n := 0
	for _, v := range sds {
		if v <= 2*minParam {
			n++
		}
	}
	return n
}

// guard is the divergence guard of a fit (Settings.MaxRollbacks): the best
// q so far by ELBO estimate, to go back to.
type guard struct {
	e        *engine
	theta    []float64 // the best q's parameters
	elbo, se float64   // its ELBO estimate (at first the start's)
	iter     int       // its iteration (0: the start)
	// the slow-drift rule (drifted): evaluations in a row below the best
	// by more than driftGap and the first of them, the last evaluation,
	// the mean change between successive ones
	low                    int
	lowFrom, prev, scatter float64
}

// newGuard returns the guard of a fit from the current (start) q, or nil
// when there is none. The start's ELBO is estimated from a few draws of
// its own stream: a reference for the first evaluation, which would
// otherwise have nothing to be compared with.
func (e *engine) newGuard() *guard {
	if e.s.MaxRollbacks < 0 {
		return nil
	}
	g := &guard{e: e, theta: append([]float64(nil), e.theta...), prev: math.NaN()}
	g.elbo, g.se, _ = e.eval(streamEval, 0, min(guardDraws, e.s.ELBODraws))
	if !finite(g.elbo) {
		g.elbo, g.se = math.Inf(-1), 0 // a start without a finite ELBO: any finite estimate will do
	}
	return g
}

// diverged reports whether an ELBO estimate marks a divergence: not finite,
// or below the best by more than each of the best's magnitude, one nat per
// coordinate (for ELBOs near 0) and 100 of the best's standard errors.
// (The estimate's own standard error is no yardstick: a diverging q makes it
// huge.)
func (g *guard) diverged(elbo float64) bool {
	if !finite(elbo) {
		return true
	}
	return elbo < g.elbo-max(math.Abs(g.elbo), float64(g.e.dim), 100*g.se)
}

// keep makes the current q the best if its estimate is.
func (g *guard) keep(it int, elbo, se float64) {
	if elbo > g.elbo {
		copy(g.theta, g.e.theta)
		g.elbo, g.se, g.iter = elbo, se, it
	}
}

// The slow-drift rule of the guard. A q can drift away from the optimum
// over thousands of steps, each evaluation a little lower than the last,
// which the divergence rule (a fall of the ELBO's own magnitude) never
// sees: under --fullrank all, GPFA's log loadings random-walked to sds of
// 39 while the evaluations fell from −2949.7 to −3233 and the final
// estimate from 1000 draws was −6.5·10¹³ (natRegime). An evaluation counts
// toward a drift when it lies below the best by more than driftGap, the
// largest of
//   - driftSEs of the best's standard errors: the best is the highest of
//     many estimates, a few standard errors above the ELBO of its q;
//     the evaluations' own standard errors are no yardstick, as a
//     drifting q makes them grow with the fall (±0.8 at the best, ±200
//     at the end);
//   - driftScatter times the mean change between successive evaluations
//     (an exponential average of |Δ|, weight driftRate): where q's own
//     steps move the ELBO by more than its Monte Carlo error (an sd held
//     at its floor, TestSDFloor: evaluations ±10¹¹ apart with standard
//     errors of 5·10⁹), the evaluations scatter that far, and a steady
//     drift of v per evaluation is seen once it has fallen by about
//     driftScatter·v;
//   - driftNats;
//
// driftChecks such evaluations in a row mark a drift. The best may be the
// start's estimate (guardDraws draws, its standard error theirs): a fit
// can walk away from a start that was already good (--init).
const (
	driftSEs     = 10
	driftScatter = 10
	driftRate    = 0.1
	driftNats    = 1
	driftChecks  = 3
)

// driftGap returns how far below the best an evaluation must lie to count
// toward a drift.
func (g *guard) driftGap() float64 {
	return max(driftSEs*g.se, driftScatter*g.scatter, driftNats)
}

// drifted reports whether the estimate elbo, with the evaluations before
// it, marks a drift (driftChecks in a row below the best by more than
// driftGap). An estimate that is not below counts the run from zero.
func (g *guard) drifted(elbo float64) bool {
	if finite(g.prev) && finite(elbo) {
		g.scatter += driftRate * (math.Abs(elbo-g.prev) - g.scatter)
	}
	g.prev = elbo
	if !(elbo < g.elbo-g.driftGap()) {
		g.low = 0
		return false
	}
	if g.low == 0 {
		g.lowFrom = elbo
	}
	g.low++
	return g.low >= driftChecks
}

// driftBack restores the best q after a drift found at iteration it, as
// rollback does after a divergence, and reports whether the fit may go on.
func (g *guard) driftBack(r *Result, it int, elbo, eta float64) bool {
	n, first := g.low, g.lowFrom
	g.restore(r)
	from := g.from()
	if r.Rollbacks > g.e.s.MaxRollbacks {
		r.warn("stopped at iteration %d: the ELBO drifted down again (%d evaluations in a row more than %.3g below %s, the last %.6g); q is the best one", it, n, g.driftGap(), from, elbo)
		return false
	}
	r.warn("the ELBO drifted down by iteration %d: %d evaluations in a row lay more than %.3g below %s (%.6g … %.6g), more than its noise explains; went back to that q with the optimizer reset and step size %g", it, n, g.driftGap(), from, first, elbo, eta)
	return true
}

// rollback restores the best q after a divergence at iteration it and
// resets the optimizer, to go on with step size eta. It reports whether the
// fit may go on (rollbacks are left).
func (g *guard) rollback(r *Result, it int, elbo, eta float64) bool {
	g.restore(r)
	from := g.from()
	if r.Rollbacks > g.e.s.MaxRollbacks {
		r.warn("stopped at iteration %d: the ELBO diverged again (%.6g against %s), %d times in all; q is the best one", it, elbo, from, r.Rollbacks)
		return false
	}
	r.warn("the ELBO diverged at iteration %d (%.6g against %s): went back to that q with the optimizer reset and step size %g", it, elbo, from, eta)
	return true
}

// restore makes the best q the current one, resets the optimizer and
// counts the rollback.
func (g *guard) restore(r *Result) {
	e := g.e
	copy(e.theta, g.theta)
	e.opt.reset()
	e.cvSet = false
	g.low, g.prev = 0, math.NaN()
	r.Rollbacks++
}

// from names the best q by its iteration and ELBO estimate.
func (g *guard) from() string {
	if g.iter == 0 {
		return fmt.Sprintf("the start's ELBO %.6g", g.elbo)
	}
	return fmt.Sprintf("iteration %d's ELBO %.6g", g.iter, g.elbo)
}

// factors returns the fitted factors, one per latent: an ordered latent's
// parts made one, with the marginal of its coordinates under a joint
// factor that its moments need (linkOrdered).
func (e *engine) factors() []Factor {
	fs := e.merged(e.blockFactors())
	linkOrdered(fs, e.groups())
	return fs
}

// merged makes the block factors fs (blockFactors) one per latent.
func (e *engine) merged(fs []Factor) []Factor {
	parts, rows := make([]int, len(e.latents)), make([]int, len(e.latents))
	for i := range e.latents {
		parts[i], rows[i] = e.latents[i].part, e.latents[i].rows
	}
	return mergeOrdered(fs, parts, rows)
}

// blockFactors returns the fitted factor of each latent (an ordered
// latent's parts apart): its block's, or its marginal under a group's
// joint factor.
func (e *engine) blockFactors() []Factor {
	fs := make([]Factor, len(e.latents))
	for i := range e.latents {
		b := &e.blocks[e.latBlock[i]]
		if b.mem != nil {
			l := &e.latents[i]
			var m member
			for _, mm := range b.mem {
				if mm.lat == i {
					m = mm
				}
			}
			fs[i] = Factor{
				Name: l.Name, Family: b.fam, Support: l.Support, Offset: l.Offset, Size: l.Size,
				Shape: append([]int(nil), l.Shape...),
				Loc:   l.Loc, Scale: l.Scale, LocV: l.LocV, ScaleV: l.ScaleV,
			}
			if b.fam == FamilyBanded && b.glob > 0 { // an arrowhead's marginals
				fs[i].Params = b.arrowFactorParams(b.params(e.theta[b.poff:b.poff+b.np()]), m)
				if m.lo > 0 {
					fs[i].Family = FamilyFullRank
				}
			} else if b.fam == FamilyBanded { // the group's one latent
				fs[i].Params = b.params(e.theta[b.poff : b.poff+b.np()])
			} else if b.fam == FamilyLowRank {
				fs[i].Params = lowRankRows(b.params(e.theta[b.poff:b.poff+b.np()]), m.lo, m.n)
			} else {
				fs[i].Params = marginal(b.params(e.theta[b.poff:b.poff+b.np()]), m.lo, m.n)
			}
			continue
		}
		fs[i] = Factor{
			Name: b.name, Family: b.fam, Support: b.support, Offset: b.off, Size: b.coordSize(),
			Shape:  append([]int(nil), b.shape...),
			Params: b.params(e.theta[b.poff : b.poff+b.np()]),
			Loc:    b.loc, Scale: b.scale, LocV: b.locV, ScaleV: b.scaleV,
		}
	}
	return fs
}

// A fit whose q has stopped moving while its optimizer remembers far
// larger gradients than it sees has stalled: a gradient spike (one draw
// far in q's tail, where the log joint is steep, as exp(−h)·y² of a
// stochastic-volatility model at a very negative h) has filled the
// optimizer's mean square of the gradient (AdaDelta's E[g²]), which then
// takes thousands of steps to decay (by ρ = 0.95 a step from 10⁴⁴), so the
// rate √(E[Δ²] + ε)/√(E[g²] + ε) has collapsed, and with it the steps that
// E[Δ²] measures. The ELBO is flat, which the stop rule would take for
// convergence. stalled detects it: over the EvalEvery steps since the last
// evaluation no parameter of q moved by stallMove (a noisy step moves them
// by 1e-3 or more), no step was skipped (bad steps shrink the step size on
// purpose), and some element of the last gradient above stallGrad has a
// mean square above stallSpike times its square. A q held at a clamp (an sd
// at its floor under a steady large gradient) has a mean square like its
// squares; a q at the posterior (a natural-gradient full-rank factor on a
// Gaussian) has no gradient left.
const (
	stallMove      = 1e-7
	stallGrad      = 1.0
	stallSpike     = 1e6
	maxStallResets = 3 // resets of the optimizer after a stall, per fit
)

// stalled reports whether q has stalled since the last call (false at the
// first), bad being the fit's count of skipped steps, and keeps q's
// parameters and that count for the next call.
func (e *engine) stalled(bad int) bool {
	moved := 0.0
	for i, v := range e.theta {
		moved = max(moved, math.Abs(v-e.snap[i]))
	}
	ok := e.snapOK && bad == e.snapBad
	copy(e.snap, e.theta)
	e.snapOK, e.snapBad = true, bad
	if !ok || moved >= stallMove {
		return false
	}
	for i, g := range e.grad {
		if math.Abs(g) > stallGrad && e.opt.ms[i] > stallSpike*g*g {
			return true
		}
	}
	return false
}

// decay returns the step-size factor of iteration it: 1/√(1 + it/StepDecay).
func (e *engine) decay(it int) float64 {
	if e.s.StepDecay < 0 {
		return 1
	}
	return 1 / math.Sqrt(1+float64(it)/e.s.StepDecay)
}

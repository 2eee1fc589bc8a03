package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
	"gonum.org/v1/gonum/diff/fd"
)

const diagnoseSynopsis = "diagnose model.gpp [data.csv|data.tsv|data.json|data.R] [NAME=file.csv ...] [flags]"

// Gradient check tolerances. A partial derivative passes when
// |autodiff − fd| / max(|autodiff|, |fd|, diagAbsFloor) ≤ --tol: relative
// for large derivatives, absolute (as Stan's diagnose) below diagAbsFloor.
const (
	diagDefaultTol = 1e-6
	diagAbsFloor   = 1.0
	// diagShowFloor: relative errors below it print as "<1e-08"; they are
	// rounding noise of the finite difference and vary between machines.
	diagShowFloor = 1e-8
)

// diagnoseGradHook, when set (by tests), alters the autodiff gradient
// gpp diagnose checks: a deliberately wrong one.
var diagnoseGradHook func(grad []float64)

// diagStream seeds the random points of gpp diagnose (with --seed).
const diagStream = 0x646961676e6f7365

const diagnoseHelpText = `Checks the model's gradient, like Stan's diagnose: at --points random points
of the unconstrained coordinates (standard normal, seeded), it prints the log
joint and, for every coordinate, the autodiff derivative, a central finite
difference and their relative error. The coordinates are those gpp sample
moves on and gpp logprob names: log z for positive params, logit z for unit
ones, K - 1 stick-breaking coordinates per simplex row, z_0 then the log gaps
for ordered ones, the transforms' coordinates for matrices and sum-to-zero
params, z for real ones. The log joint is the model's at the params' values
there, without the log-Jacobian of the transforms (gpp logprob
--jacobian=false). A partial whose relative error exceeds --tol (with an
absolute floor of 1: |ad - fd| / max(|ad|, |fd|, 1)) is checked again at
10 to 10000 times the step (up to 0.1), where rounding of a large or
ill-conditioned log joint no longer swamps the difference: it agrees
where the differences settle (to 1%) and match it within their own error,
and is unsettled where they settle at no step. Exit 1 when a partial
disagrees, or a coordinate is unsettled wherever it does not agree; 0
otherwise.
`

// cmdDiagnose runs gpp diagnose.
func cmdDiagnose(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("diagnose", diagnoseSynopsis, diagnoseHelpText, stderr)
	sets := setFlags{}
	points := fs.Int("points", 3, "number of random points")
	seed := fs.Uint64("seed", 1, "seed of the random points")
	eps := fs.Float64("eps", fd.Central.Step, "finite-difference step")
	tol := fs.Float64("tol", diagDefaultTol, "largest relative error accepted")
	fs.Var(sets, "set", "set a constant or scalar data, as `NAME=VALUE` (repeatable)")
	order := levelFlags{}
	fs.Var(order, "levels", levelsUsage)
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	usageErr := func(format string, args ...any) int {
		return usageError(stderr, "diagnose", diagnoseSynopsis, format, args...)
	}
	switch {
	case len(pos) == 0:
		return usageErr("diagnose needs a model file")
	case *points < 1:
		return usageErr("--points must be at least 1, got %d", *points)
	case !(*eps > 0) || math.IsInf(*eps, 0):
		return usageErr("--eps must be a finite number > 0, got %v", *eps)
	case !(*tol > 0) || math.IsInf(*tol, 0):
		return usageErr("--tol must be a finite number > 0, got %v", *tol)
	}
	l, err := pipeline.LoadOrdered(pos[0], pos[1:], sets, order)
	if err != nil {
		printError(stderr, err, sourcesOf(l))
		return exitError
	}
	printLoadWarnings(stderr, l)
	m := l.Model
	if m.Dim == 0 {
		errorf(stderr, "%s: the model has no params: no gradient to check", l.Path)
		return exitError
	}
	// the coordinates a fit's and gpp sample's transforms map (a simplex
	// row's K − 1 stick-breaking ones), not the Target's log z
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: m}, pipeline.Latents(m))
	if err != nil {
		printError(stderr, err, sourcesOf(l))
		return exitError
	}
	dim := u.Dim()
	fmt.Fprintf(stdout, "%s: %d coordinate%s, %d point%s, central differences with step %g, tolerance %g\n",
		l.Path, dim, plural(dim), *points, plural(*points), *eps, *tol)
	coords := coordNames(m, u, latentNamer(m, l))
	rng := rand.New(rand.NewPCG(*seed, diagStream))
	x := make([]float64, dim)
	grad := make([]float64, dim)
	f := func(x []float64) float64 {
		lp, err := u.LogJointValue(x)
		if err != nil {
			return math.NaN()
		}
		return lp
	}
	bad, badPoints, total := 0, 0, 0
	// partials that agree only at a larger step (recheckPartial), and those
	// whose finite differences settle at no step; the largest |log joint|
	// among the former's points
	rechecked, unsettled, maxStep, worstLP := 0, 0, 0.0, 0.0
	agreed := make([]bool, dim)      // the coordinate agreed at some point
	unsettledAt := make([]bool, dim) // it was unsettled at some point
	for pt := 1; pt <= *points; pt++ {
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		fmt.Fprintln(stdout)
		lp, err := u.LogJoint(x, grad)
		if err != nil || math.IsNaN(lp) || math.IsInf(lp, 0) {
			fmt.Fprintf(stdout, "point %d: the log joint is not finite (%v)\n", pt, lp)
			if err != nil {
				printError(stderr, err, sources(l.Sources))
			}
			badPoints++
			continue
		}
		fmt.Fprintf(stdout, "point %d: log joint = %.10g\n", pt, lp)
		if diagnoseGradHook != nil {
			diagnoseGradHook(grad)
		}
		fdGrad := fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: *eps})
		checks, nbad := compareGradients(grad, fdGrad, *tol)
		for i := range checks {
			if checks[i].ok {
				agreed[i] = true
				continue
			}
			r := recheckPartial(f, x, i, grad[i], *eps, *tol)
			checks[i].recheck = r
			if r.ok || r.unsettled {
				nbad--
				if r.ok {
					rechecked++
					agreed[i] = true
					maxStep = math.Max(maxStep, r.step)
					if math.Abs(lp) > math.Abs(worstLP) { // the rechecked note's
						worstLP = lp
					}
				} else {
					unsettled++
					unsettledAt[i] = true
				}
			}
		}
		bad += nbad
		total += len(checks)
		t := &table{right: []bool{false, false, true, true, true, true, false}}
		t.row("  coordinate", "kind", "value", "autodiff", "finite diff", "rel. error", "")
		for i, c := range checks {
			flagText := ""
			switch {
			case c.ok:
			case c.recheck.ok:
				flagText = fmt.Sprintf("agrees at step %.0e: %.8g (%s)", c.recheck.step, c.recheck.fd, showRelError(c.recheck.err))
			case c.recheck.unsettled:
				flagText = fmt.Sprintf("unsettled: no step up to %.0e settles", largestRecheck(*eps))
			default:
				flagText = "<- disagree"
			}
			t.row("  "+coords[i].name, coords[i].kind, fmt.Sprintf("%.6g", x[i]), fmt.Sprintf("%.8g", c.ad), fmt.Sprintf("%.8g", c.fd), showRelError(c.err), flagText)
		}
		t.print(stdout)
	}
	fmt.Fprintln(stdout)
	if rechecked > 0 {
		fmt.Fprintf(stdout, "note: %d of %d partial derivatives agree only at a larger step (up to %.0e): at step %g their finite differences are lost to rounding, as the log joint is large (%.10g) or a matrix it solves is ill-conditioned (a covariance with a small jitter); a disagreement that vanishes as the step grows is the finite difference's, not the gradient's\n",
			rechecked, total, maxStep, *eps, worstLP)
	}
	if unsettled > 0 {
		fmt.Fprintf(stdout, "note: %d of %d partial derivatives could not be checked (unsettled): their finite differences settle to %g%% at no step up to %.0e, lost to rounding at the small steps\n",
			unsettled, total, 100*recheckMax, largestRecheck(*eps))
	}
	var unchecked []string // coordinates unsettled wherever they did not agree
	for i := range dim {
		if unsettledAt[i] && !agreed[i] {
			unchecked = append(unchecked, coords[i].name)
		}
	}
	if badPoints > 0 {
		fmt.Fprintf(stdout, "FAIL: the log joint is not finite at %d of %d points\n", badPoints, *points)
	}
	if bad > 0 {
		fmt.Fprintf(stdout, "FAIL: %d of %d partial derivatives disagree with finite differences (relative error > %g)\n", bad, total, *tol)
	}
	if len(unchecked) > 0 {
		fmt.Fprintf(stdout, "FAIL: %s could not be checked at any point: the finite differences settle at no step there; try more --points or another --seed\n", strings.Join(unchecked, ", "))
	}
	if bad > 0 || badPoints > 0 || len(unchecked) > 0 {
		return exitError
	}
	if rechecked+unsettled > 0 {
		fmt.Fprintf(stdout, "ok: %d of %d partial derivatives agree with finite differences (%d at step %g within %g, %d at a larger step)", total-unsettled, total, total-rechecked-unsettled, *eps, *tol, rechecked)
		if unsettled > 0 {
			fmt.Fprintf(stdout, "; %d unsettled, their coordinates checked at other points", unsettled)
		}
		fmt.Fprintln(stdout)
		return exitOK
	}
	fmt.Fprintf(stdout, "ok: all %d partial derivatives agree with finite differences (relative error ≤ %g)\n", total, *tol)
	return exitOK
}

// coordName names one coordinate of the model's vector.
type coordName struct {
	name string // the element's name as gpp's tables print it: W[1, 0], a[Beta] (elemName)
	kind string // log, logit, atanh, stick, coordinate or value
}

// coordNames names every unconstrained coordinate u of a compiled model
// (gpp logprob's), its elements named by name (latentNamer): a simplex
// row's K − 1 stick-breaking coordinates "p stick 1" (of a matrix's row r,
// "p[r] stick 1"), kind stick.
func coordNames(m *compile.Model, u *sgvb.Unconstrained, name func(string, []int, int) string) []coordName {
	out := make([]coordName, u.Dim())
	for i := range out {
		out[i] = coordName{fmt.Sprintf("u[%d]", i), "value"}
	}
	for i, l := range m.Latents {
		off, n := u.LatentRange(i)
		kind := "value"
		switch l.Support {
		case dist.Simplex:
			k := l.Shape[len(l.Shape)-1]
			for j := range n {
				row, c := j/(k-1), j%(k-1)
				what := l.Name
				if len(l.Shape) > 1 {
					what = name(l.Name, l.Shape[:len(l.Shape)-1], row)
				}
				out[off+j] = coordName{fmt.Sprintf("%s stick %d", what, c+1), "stick"}
			}
			continue
		case dist.Positive:
			kind = "log"
		case dist.Unit:
			kind = "logit"
		case dist.SumToZero, dist.SumToZeroMatrix: // the isometric coordinates, not the values
			kind = "coordinate"
		}
		for k := range n {
			out[off+k] = coordName{name(l.Name, l.Shape, k), kind}
			if e, scale, ok := transformCoord(l.Name, l.Shape, l.Support, k, name); ok {
				out[off+k].name = e
				if scale != "" {
					out[off+k].kind = scale
				}
			}
		}
	}
	return out
}

// gradCheck compares one partial derivative.
type gradCheck struct {
	ad, fd, err float64
	ok          bool
	recheck     recheck // of a partial that disagrees at --eps
}

// recheckSteps are the multiples of --eps a disagreeing partial derivative
// is checked again at, those up to recheckLargest (the coordinates are
// unconstrained, of order 1: a larger step measures a chord, not a
// derivative); recheckMax is the largest relative error a recheck accepts,
// so a gradient wrong by more fails at every step.
var recheckSteps = []float64{10, 30, 100, 300, 1000, 3000, 10000}

const recheckLargest = 0.1

const recheckMax = 1e-2

// recheck is a partial derivative checked again at larger steps.
type recheck struct {
	step, fd, err float64 // the step it agrees at best, its extrapolated difference, the relative error
	ok            bool    // it agrees at step
	unsettled     bool    // steps were tried and the finite differences settled at none
}

// recheckPartial checks the autodiff partial ad of f along coordinate i
// again at the steps recheckSteps × eps, for a disagreement at eps that is
// rounding in f rather than a wrong gradient: rounding error in a central
// difference grows as 1/step, truncation error as step². At a step h it
// takes the central differences D(h) and D(h/2) and their Richardson value
// R = D(h/2) + (D(h/2) − D(h))/3 (the step² term cancelled). R's error is
// estimated as the larger of 2|D(h) − D(h/2)| (rounding and truncation
// both move D with the step; R's rounding is about 1.2 times that spread's
// in standard deviation, hence 2) and |R − R at the step before| (one
// pair's spread can be small by chance). The differences settle at h when
// that estimate is at most recheckMax × max(|ad|, |R|, 1); the partial
// agrees at a step where relError(ad, R) ≤ tol, or they settle and |ad − R|
// is within the estimate (reported: the one of the smallest estimate). A partial that disagrees wherever they
// settle is wrong; one where they settle nowhere cannot be checked at x.
func recheckPartial(f func([]float64) float64, x []float64, i int, ad, eps, tol float64) recheck {
	xi := append([]float64(nil), x...)
	central := func(h float64) float64 {
		xi[i] = x[i] + h
		hi := f(xi)
		xi[i] = x[i] - h
		lo := f(xi)
		xi[i] = x[i]
		return (hi - lo) / (2 * h)
	}
	out := recheck{}
	tried, settledAny := false, false
	best := math.Inf(1) // the error estimate at the step out agrees at
	prev := math.NaN()  // R at the step before
	for _, k := range recheckSteps {
		h := k * eps
		if h > recheckLargest {
			break
		}
		tried = true
		d1, d2 := central(h), central(h/2)
		r := d2 + (d2-d1)/3
		e := relError(ad, r)
		errEst := 2 * math.Abs(d1-d2)
		if math.Abs(r-prev) > errEst { // false for NaN at the first step
			errEst = math.Abs(r - prev)
		}
		prev = r
		if math.IsNaN(e) || math.IsNaN(errEst) {
			continue
		}
		scale := math.Max(math.Max(math.Abs(ad), math.Abs(r)), diagAbsFloor)
		settled := errEst <= recheckMax*scale
		settledAny = settledAny || settled
		agrees := e <= tol // as at --eps: no larger step does better
		if agrees {
			errEst = 0
		}
		if (agrees || (settled && math.Abs(ad-r) <= errEst)) && errEst < best {
			out.step, out.fd, out.err, out.ok, best = h, r, e, true, errEst
		}
		if agrees {
			break // no larger step can replace it: spare their evaluations of f
		}
	}
	out.unsettled = tried && !settledAny && !out.ok
	return out
}

// largestRecheck is the largest step recheckPartial tries after eps.
func largestRecheck(eps float64) float64 {
	h := 0.0
	for _, k := range recheckSteps {
		if k*eps <= recheckLargest {
			h = k * eps
		}
	}
	return h
}

// compareGradients compares an autodiff gradient with a finite-difference
// one and returns the per-coordinate checks and how many fail.
func compareGradients(ad, fdg []float64, tol float64) ([]gradCheck, int) {
	out := make([]gradCheck, len(ad))
	bad := 0
	for i := range ad {
		e := relError(ad[i], fdg[i])
		ok := e <= tol // false for NaN
		if !ok {
			bad++
		}
		out[i] = gradCheck{ad: ad[i], fd: fdg[i], err: e, ok: ok}
	}
	return out, bad
}

// relError returns |a − b| / max(|a|, |b|, diagAbsFloor), NaN when either
// is not finite.
func relError(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return math.NaN()
	}
	return math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), diagAbsFloor)
}

// showRelError formats a relative error for the table.
func showRelError(e float64) string {
	switch {
	case math.IsNaN(e):
		return "NaN"
	case e < diagShowFloor:
		return fmt.Sprintf("<%.0e", diagShowFloor)
	}
	return fmt.Sprintf("%.1e", e)
}

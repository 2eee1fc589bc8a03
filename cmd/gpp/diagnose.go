package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"

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
--jacobian=false). Exit 1 when a relative error exceeds --tol (with an
absolute floor of 1: |ad - fd| / max(|ad|, |fd|, 1)), 0 otherwise.
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
		fdGrad := fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: *eps})
		checks, nbad := compareGradients(grad, fdGrad, *tol)
		bad += nbad
		total += len(checks)
		t := &table{right: []bool{false, false, true, true, true, true, false}}
		t.row("  coordinate", "kind", "value", "autodiff", "finite diff", "rel. error", "")
		for i, c := range checks {
			flagText := ""
			if !c.ok {
				flagText = "<- disagree"
			}
			t.row("  "+coords[i].name, coords[i].kind, fmt.Sprintf("%.6g", x[i]), fmt.Sprintf("%.8g", c.ad), fmt.Sprintf("%.8g", c.fd), showRelError(c.err), flagText)
		}
		t.print(stdout)
	}
	fmt.Fprintln(stdout)
	if badPoints > 0 {
		fmt.Fprintf(stdout, "FAIL: the log joint is not finite at %d of %d points\n", badPoints, *points)
	}
	if bad > 0 {
		fmt.Fprintf(stdout, "FAIL: %d of %d partial derivatives disagree with finite differences (relative error > %g)\n", bad, total, *tol)
	}
	if bad > 0 || badPoints > 0 {
		return exitError
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
		out[i] = gradCheck{ad[i], fdg[i], e, ok}
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

package main

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
	"github.com/gpplang/gpp/stdlib"
)

// mixtureFuncs are the calls that sum components out of a log density:
// a mixture's (or an HMM's) likelihood when what they sum depends on a
// param.
var mixtureFuncs = map[string]bool{"log_mix": true, "logsumexp": true, "rowlogsumexp": true, "log_sum_exp": true}

// mixtureCall returns the first call in f's target += statements (or in
// the lets they read) that sums over components depending on a param
// (mixtureFuncs), nil where none: a mixture model, whose ELBO has an
// optimum per way of sharing the data among the components. An output's
// call (a classifier's probabilities) does not count.
//
// With info (nil: by the syntax alone), a rowlogsumexp that sums a
// discrete value out over a grid (gridSum: an N-mixture's abundance on
// 0..Kmax) does not count: its columns have no params of their own, so
// no labels to trade places.
func mixtureCall(f *ast.File, info *check.Info) *ast.CallExpr {
	if f == nil {
		return nil
	}
	d := declsOf(f)
	var find func(e ast.Expr, seen map[string]bool) *ast.CallExpr
	find = func(e ast.Expr, seen map[string]bool) *ast.CallExpr {
		var call *ast.CallExpr
		ast.Inspect(e, func(n ast.Node) bool {
			if call != nil {
				return false
			}
			switch n := n.(type) {
			case *ast.CallExpr:
				if mixtureFuncs[n.Fun.Name] && mixtureArgsRead(n, func(a ast.Expr) bool { return d.reads(a, d.params, map[string]bool{}) }) && !d.gridSum(n, info) {
					call = n
					return false
				}
			case *ast.Ident:
				if v := d.lets[n.Name]; v != nil && !seen[n.Name] {
					seen[n.Name] = true
					call = find(v, seen)
				}
			}
			return call == nil
		})
		return call
	}
	for _, t := range d.targets {
		if c := find(t, map[string]bool{}); c != nil {
			return c
		}
	}
	return nil
}

// modelDecls are the names a model file declares, with its lets' values
// (the first of each name) and its target += statements' values.
type modelDecls struct {
	params, data map[string]bool
	lets         map[string]ast.Expr
	targets      []ast.Expr
}

// declsOf collects f's modelDecls.
func declsOf(f *ast.File) *modelDecls {
	d := &modelDecls{params: map[string]bool{}, data: map[string]bool{}, lets: map[string]ast.Expr{}}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ParamDecl:
			d.params[n.Name.Name] = true
		case *ast.DataDecl:
			d.data[n.Name.Name] = true
		case *ast.LetStmt:
			if _, seen := d.lets[n.Name.Name]; !seen {
				d.lets[n.Name.Name] = n.Value
			}
		case *ast.TargetStmt:
			d.targets = append(d.targets, n.Value)
		}
		return true
	})
	return d
}

// reads reports whether e reads one of names, directly or through the
// lets it reads (seen: the lets already followed).
func (d *modelDecls) reads(e ast.Expr, names, seen map[string]bool) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if found || !ok {
			return !found
		}
		if names[id.Name] {
			found = true
		} else if v := d.lets[id.Name]; v != nil && !seen[id.Name] {
			seen[id.Name] = true
			found = d.reads(v, names, seen)
		}
		return !found
	})
	return found
}

// gridSum reports whether call, a rowlogsumexp, sums a discrete value
// out over a grid of data or constants (an N-mixture's abundance N on
// 0..Kmax, logpdf(Nv', Poisson(lam)) + logpdf(y, Binomial(Nv', p))):
// every part of its argument that reads a param is constant along the
// columns it sums (a scalar, or a column [S] broadcast across them), so
// the columns differ only by data and constants (Nv'). A mixture's
// components have params of their own along the columns (mu' of a
// param mu[K]), which is what lets their labels trade places. It follows
// lets and elementwise operations (arithmetic, elementwise built-ins,
// logpdf of an elementwise family) and matrix products X * Y whose Y
// reads no param; any other part that reads a param and has columns (a
// transpose, an index) counts as a component's. info nil: false.
func (d *modelDecls) gridSum(call *ast.CallExpr, info *check.Info) bool {
	if info == nil || call.Fun.Name != "rowlogsumexp" || len(call.Args) != 1 {
		return false
	}
	return d.flatCols(call.Args[0], info, map[string]bool{})
}

// flatCols reports whether every part of e that reads a param is constant
// along e's columns (gridSum); seen holds the lets already followed, with
// their answers.
func (d *modelDecls) flatCols(e ast.Expr, info *check.Info, seen map[string]bool) bool {
	if !d.reads(e, d.params, map[string]bool{}) {
		return true // data and constants: the grid
	}
	if t, ok := info.Types[e]; ok && t.Valid() && (t.Shape.Rank() < 2 || t.Shape[1].N == 1) {
		return true // broadcast across the columns
	}
	all := func(args []ast.Expr) bool {
		for _, a := range args {
			if !d.flatCols(a, info, seen) {
				return false
			}
		}
		return true
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return d.flatCols(e.X, info, seen)
	case *ast.UnaryExpr:
		return d.flatCols(e.X, info, seen)
	case *ast.BinaryExpr:
		if e.Op == ast.Mul && info.Types[e.X].Shape.Rank() > 0 && info.Types[e.Y].Shape.Rank() > 0 {
			// column k of X * Y is X times Y's column k: the columns
			// differ by Y alone where X's columns are one (a param B
			// [S, 3] times data D mixes B's columns)
			return !d.reads(e.Y, d.params, map[string]bool{}) && d.flatCols(e.X, info, seen)
		}
		return all([]ast.Expr{e.X, e.Y})
	case *ast.Ident:
		if v := d.lets[e.Name]; v != nil {
			if flat, ok := seen[e.Name]; ok { // a let read twice: its answer
				return flat
			}
			seen[e.Name] = d.flatCols(v, info, seen)
			return seen[e.Name]
		}
	case *ast.CallExpr:
		if ds := stdlib.LookupDist(e.Fun.Name); ds != nil {
			return ds.Shape == stdlib.DistElementwise && all(e.Args)
		}
		if e.Fun.Name == "logpdf" && len(e.Args) == 2 {
			return all(e.Args) // its family's own case above
		}
		if f := info.Calls[e]; f != nil && (f.Shape == stdlib.Elementwise1 || f.Shape == stdlib.Elementwise2) {
			return all(e.Args)
		}
	}
	return false
}

// mixesData reports whether some component of a mixture call of f
// (mixtureCall's) reads data: a likelihood's mixture, whose components
// share the data. One whose components read params alone (a
// spike-and-slab's log_mix(w, logpdf(beta, Normal(0, 2)), logpdf(beta,
// Normal(0, 0.02)))) is a mixture prior over params.
func mixesData(f *ast.File, call *ast.CallExpr) bool {
	d := declsOf(f)
	return !mixtureArgsRead(call, func(a ast.Expr) bool { return !d.reads(a, d.data, map[string]bool{}) })
}

// mixtureArgsRead reports whether call's components depend on params
// (read): every argument of logsumexp or rowlogsumexp, both of log_mix's
// lp1 and lp2 or of log_sum_exp(a, b). A zero-inflated count's
// log_mix(theta, 0, logpdf(y, Poisson(lambda))) has one component that
// moves, not components that can trade places.
func mixtureArgsRead(call *ast.CallExpr, read func(ast.Expr) bool) bool {
	args := call.Args
	if call.Fun.Name == "log_mix" && len(args) == 3 {
		args = args[1:]
	}
	if len(args) == 0 {
		return false
	}
	for _, a := range args {
		if !read(a) {
			return false
		}
	}
	return true
}

// mixtureRestarts is how many restarts mixtureHint suggests.
const mixtureRestarts = 4

// mixtureHint advises a single fit (mix nil) of a mixture model
// (mixtureCall) to compare optima with --restarts: such an ELBO has an
// optimum per way of sharing the data among the components (two merged
// into one, one split, one left empty), and a fit settles in the one its
// start leads to, which no form of q (--fullrank) repairs. A trial's DP
// mixture (4 clusters, 20 sticks) merged two clusters at ELBO −1051.8 to
// −1055.7 from seeds 1–3, --fullrank all too; --restarts 4 found the four
// at −1029.4, and optimaHint named the best restart. "" for restarts, a
// Laplace or Pathfinder fit, a model that is no mixture, or a fit whose
// Pareto k̂ (k, relative ESS ess) raises no alarm: both trial fits that
// had merged components did, and the hint on every fit of a mixture (a
// zero-inflated count's log_sum_exp, a changepoint's logsumexp) was noise
// (the CLI re-read's note). MAP has no k̂ and keeps the hint.
func mixtureHint(s sgvb.Settings, l *pipeline.Loaded, r *sgvb.Result, mix *sgvb.Mixture, k, ess float64) string {
	if mix != nil || r == nil || r.Interrupted || (s.Method != sgvb.SGVB && s.Method != sgvb.MAP) {
		return ""
	}
	if s.Method == sgvb.SGVB && !sgvb.ParetoAlarm(k, ess) {
		return ""
	}
	call := mixtureCall(l.File, l.Info)
	if call == nil {
		return ""
	}
	if !mixesData(l.File, call) {
		return fmt.Sprintf("%s at %s mixes densities of params alone, not of data: a mixture prior over params (a spike-and-slab's), "+
			"whose posterior puts each element in the spike or in the slab, a mode apiece; a mean-field q settles every element in one mode, "+
			"and can leave them all in the wrong one (a trial's spike-and-slab over 200 coefficients put all of them in the slab, w 0.93 against NUTS's 0.04, "+
			"and --restarts 4 agreed on it), so restarts are no check here: gpp sample (NUTS) moves between the modes, "+
			"or a continuous shrinkage prior (the regularised horseshoe) suits q better (docs/inference.md, Spike-and-slab priors)",
			call.Fun.Name, call.Fun.NamePos)
	}
	if y, loc, ok := outlierMixture(call); ok {
		return fmt.Sprintf("the model is an outlier mixture (%s at %s: both components are densities of %s about the same %s, with another spread): "+
			"no clusters trade places here, but its ELBO has a local optimum for each set of observations that q puts in the outlier component, "+
			"and one fit ends in the one its start leads to, which a joint q (--fullrank) does not change; "+
			"gpp fit --restarts %d fits from %d starts and compares their optima, and the hint after them names the best one; "+
			"gpp sample (NUTS) weighs every observation's two readings (docs/inference.md, Mixtures have several optima)",
			call.Fun.Name, call.Fun.NamePos, y, loc, mixtureRestarts, mixtureRestarts)
	}
	return fmt.Sprintf("the model is a mixture (%s at %s): its ELBO has a local optimum for each way of sharing the data among the components "+
		"(two clusters merged into one, one split in two, one left empty), and one fit ends in the one its start leads to, which a joint q (--fullrank) does not change; "+
		"gpp fit --restarts %d fits from %d starts and compares their optima, and the hint after them names the best one "+
		"(docs/inference.md, Mixtures have several optima)", call.Fun.Name, call.Fun.NamePos, mixtureRestarts, mixtureRestarts)
}

// degenerateRatio is how far below its prior mean a positive param's q
// mean must be, as a fraction, for degenerateScaleHint: two orders of
// magnitude. A trial's all-equal data drove a mixture's sigma[1] to
// 0.00067 against a HalfNormal(2) prior's mean 1.6 (1/2400), a single
// normal's sigma on 20 equal values to 0.0043 (1/370), both still
// falling at --iter.
const degenerateRatio = 1e-2

// degenerateScaleHint names the unbounded likelihood of a fit that did not
// converge while a positive param's element collapsed toward 0 (q mean
// below degenerateRatio times its prior's mean) and the ELBO still rose
// over the last window by at least risingSEs standard errors: a normal's
// scale on a single value (a mixture component on one point, all-equal
// data) makes the density at it grow without bound as the scale → 0, the
// degenerate mode Stan's and PyMC's mixture users meet. The rise is over
// the last window or, as a collapse's gain per window shrinks while the
// scale halves, over the run's second half (a trial's per-operator s_e[2]
// on identical repeats: 0.7 nats over its last window, 2 SEs, but 5.8 from
// iteration 20000 to 40000). Where scales (the sigma arguments of
// observed data, observedScales) is not empty only their elements count:
// a group scale such as s_po in s_po * z[cell] shrinks toward 0 under a
// mean-field q with no unbounded likelihood. It names
// the element, its prior mean and the remedies. "" otherwise.
func degenerateScaleHint(s sgvb.Settings, m *compile.Model, r *sgvb.Result, mix *sgvb.Mixture, scales map[string]bool) string {
	if mix != nil || r == nil || r.Converged || r.Interrupted || (s.Method != sgvb.SGVB && s.Method != sgvb.MAP) {
		return ""
	}
	rise, ok := sgvb.LastRise(r, s)
	if !ok {
		return ""
	}
	if !(rise.Gain > 0) || rise.Gain < risingSEs*rise.SE {
		n := len(r.Trace)
		first, last := r.Trace[(n-1)/2], r.Trace[n-1]
		rise.From, rise.To, rise.Gain = first.Iter, last.Iter, last.ELBO-first.ELBO
		if !(rise.Gain > 0) || rise.Gain < risingSEs*rise.SE {
			return ""
		}
	}
	return collapsedScale(m, r, rise, scales)
}

// collapsedScale is degenerateScaleHint's text for the first collapsed
// element of a positive param, of one in scales where it is not empty.
func collapsedScale(m *compile.Model, r *sgvb.Result, rise sgvb.Rise, scales map[string]bool) string {
	for i := range r.Factors {
		f := &r.Factors[i]
		if f.Support != dist.Positive || f.Scale != 0 || f.ScaleV != nil || len(scales) > 0 && !scales[f.Name] {
			continue
		}
		lat := latentNamed(m, f.Name)
		if lat == nil || len(lat.Init) != f.Size {
			continue
		}
		mean := f.Mean()
		for k, v := range mean {
			prior := lat.Init[k]
			if !(prior > 0) || math.IsInf(prior, 0) || !(v >= 0 && v < degenerateRatio*prior) {
				continue
			}
			name := pipeline.LabelledName(f.Name, f.Shape, nil, k)
			return fmt.Sprintf("%s's q mean collapsed to %s, %s times below its prior's mean %s, while the ELBO still rose (%s nats from iteration %d to %d): "+
				"the likelihood is likely unbounded as %s → 0, as a normal's density at a point grows without bound when its scale shrinks to 0 "+
				"(a mixture component sitting on a single value, or data whose values are all equal: Stan's and PyMC's degenerate mode of mixtures), "+
				"so the fit has no optimum to converge to and more iterations or another q do not help; check the data (are the values equal, or one repeated?) "+
				"and give %s a prior that keeps it away from 0, such as Gamma(2, 2 / s) or InvGamma(3, 2 * s), both of mean s, for a scale s the data suggest (docs/inference.md, A scale collapsing to 0)",
				name, numText(v, "%.3g"), numText(prior/v, "%.0f"), numText(prior, "%.3g"), numText(rise.Gain, "%+.3g"), rise.From, rise.To, name, f.Name)
		}
	}
	return ""
}

// observedScales are the params read in the sigma argument of a ~
// statement of data (y ~ Normal(mu, s_e[op]); check.Info.ScaleParams).
func observedScales(f *ast.File, info *check.Info) map[string]bool {
	if f == nil || info == nil {
		return nil
	}
	scales := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		t, ok := n.(*ast.TildeStmt)
		if !ok {
			return true
		}
		if sym := info.Uses[check.ObservedIdent(t.LHS)]; sym != nil && sym.Kind == check.Data {
			for _, name := range info.ScaleParams(t) {
				scales[name] = true
			}
		}
		return false
	})
	return scales
}

// outlierMixture reports whether call is log_mix(w, logpdf(y, D1(..)),
// logpdf(y, D2(..))) with the same y and location m (the families' mu)
// and other arguments (an observation model and a broad density of outliers, as a
// radiocarbon sequence's log_mix(0.05, logpdf(y, Normal(mu, wide)),
// logpdf(y, Normal(mu, sd0)))), with y and m as written: its components
// cannot merge or split clusters, but which observations q calls outliers
// is a local optimum.
func outlierMixture(call *ast.CallExpr) (y, loc string, ok bool) {
	if call.Fun.Name != "log_mix" || len(call.Args) != 3 {
		return "", "", false
	}
	var ys, locs, dists [2]string
	for i, a := range call.Args[1:] {
		lp, ok := ast.Unparen(a).(*ast.CallExpr)
		if !ok || lp.Fun.Name != "logpdf" || len(lp.Args) != 2 {
			return "", "", false
		}
		d, ok := ast.Unparen(lp.Args[1]).(*ast.CallExpr)
		if !ok {
			return "", "", false
		}
		at := -1 // the location's argument: mu
		if sd := stdlib.LookupDist(d.Fun.Name); sd != nil && len(sd.Params) == len(d.Args) {
			for j, p := range sd.Params {
				if p.Name == "mu" {
					at = j
				}
			}
		}
		if at < 0 {
			return "", "", false
		}
		ys[i], locs[i], dists[i] = ast.FormatExpr(lp.Args[0]), ast.FormatExpr(d.Args[at]), ast.FormatExpr(d)
	}
	if ys[0] != ys[1] || locs[0] != locs[1] || dists[0] == dists[1] {
		return "", "", false
	}
	return ys[0], locs[0], true
}

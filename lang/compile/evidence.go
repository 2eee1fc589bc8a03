package compile

// What the evidence p(y) = ∫ p(y, θ) dθ needs of the log joint: a
// normalised density of the params and the data. gpp's distributions keep
// their constants (lp__ differs from Stan's by them), priors wider than a
// support are normalised on it and ordered priors with scalar arguments
// gain log K!, so most models qualify; the terms gpp adds as written do not.

import (
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// EvidenceCaveats reports where m's log joint is not a normalised density
// of params and data, so that its integral over the params, the evidence,
// is undefined or off by a constant. errs holds the params with no prior on
// an unbounded support (their flat prior is improper and p(y) is not
// defined); notes the terms gpp adds as written: a flat prior on a bounded
// support other than (0, 1), a user density, a target += that is not a sum
// of log densities and log probabilities of built-in distributions, an
// ordered prior of per-element arguments and a prior on a zero-sum vector,
// not renormalised to its plane.
func (m *Model) EvidenceCaveats() (errs, notes ast.ErrorList) {
	var targets []*ast.TargetStmt
	ast.Inspect(m.file, func(n ast.Node) bool {
		if t, ok := n.(*ast.TargetStmt); ok {
			targets = append(targets, t)
		}
		return true
	})
	targetReads := map[int]bool{}
	for _, t := range targets {
		for _, i := range paramDeps(m.info, []ast.Expr{t.Value}) {
			targetReads[i] = true
		}
	}
	for i, lat := range m.info.Latents {
		hasPrior := lat.Prior != nil || len(lat.Tildes) > 0
		switch {
		case !hasPrior && targetReads[i]:
			// its density is a target += term's, noted below
		case !hasPrior && improperFlat(lat):
			errs = append(errs, ast.Errorf(lat.Pos,
				"param `%s` has no prior: %s, so p(y) is not defined; give it a proper one, as in `param %s: %s ~ %s`",
				lat.Name, flatPriorWords(lat), lat.Name, ast.FormatType(lat.Decl.Type), flatSuggestion(lat)))
		case !hasPrior && !unitFlat(lat):
			notes = append(notes, ast.Errorf(lat.Pos,
				"param `%s` has no prior: its flat density enters p(y) as 1 on %s, not normalised; `~ %s` is the normalised one",
				lat.Name, flatDomain(lat), flatSuggestion(lat)))
		case (lat.Support == dist.Ordered || lat.Support == dist.PositiveOrdered) && !lat.OrderedIID:
			notes = append(notes, ast.Errorf(lat.Pos,
				"the prior of `%s`, per-element arguments restricted to increasing vectors, has no known normaliser and enters p(y) unnormalised", lat.Name))
		case lat.Support == dist.SumToZero || lat.Support == dist.SumToZeroMatrix:
			notes = append(notes, ast.Errorf(lat.Pos,
				"the prior of `%s` is not renormalised to the zero-sum plane (as in Stan): p(y) is off by that constant", lat.Name))
		}
	}
	for call, user := range m.info.UserDensities {
		notes = append(notes, ast.Errorf(call.Pos(),
			"the user density %s enters p(y) as written: the evidence is right only if it is normalised", user.Fun.Name))
	}
	for _, t := range targets {
		if t.Op != ast.Add || !m.normalisedTerm(t.Value) {
			notes = append(notes, ast.Errorf(t.Target,
				"target %s= %s enters p(y) as written, which gpp cannot tell is a normalised log density (a mixture's log-sum-exp of log weights and log densities is): the evidence is right only if it is",
				t.Op, ast.FormatExpr(t.Value)))
		}
	}
	errs.Sort()
	notes.Sort()
	return errs, notes
}

// normalisedTerm reports whether e is a sum of log densities and log
// probabilities of built-in distributions: logpdf, logcdf and logccdf
// calls, summed by + and sum().
func (m *Model) normalisedTerm(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.BinaryExpr:
		return e.Op == ast.Add && m.normalisedTerm(e.X) && m.normalisedTerm(e.Y)
	case *ast.CallExpr:
		switch e.Fun.Name {
		case "sum":
			return len(e.Args) == 1 && m.normalisedTerm(e.Args[0])
		case "logpdf", "logcdf", "logccdf":
			if len(e.Args) != 2 {
				return false
			}
			d, ok := ast.Unparen(e.Args[1]).(*ast.CallExpr)
			return ok && m.info.Dists[d] != nil && m.info.UserDensities[d] == nil
		}
	}
	return false
}

// improperFlat reports whether a flat prior on lat's support is improper:
// an unbounded support, or a covariance matrix's.
func improperFlat(lat *check.Latent) bool {
	switch lat.Support {
	case dist.CholCov, dist.CovMatrix, dist.Ordered, dist.PositiveOrdered, dist.SumToZero, dist.SumToZeroMatrix:
		return true
	case dist.Simplex, dist.CholCorr, dist.CorrMatrix:
		return false
	}
	r := lat.Range()
	return r.Lo <= -1e308 || r.Hi >= 1e308
}

// unitFlat reports whether a flat prior on lat's support is the uniform
// density on (0, 1), normalised as it is.
func unitFlat(lat *check.Latent) bool {
	if lat.Support != dist.Unit {
		return false
	}
	r := lat.Range()
	return r.Lo == 0 && r.Hi == 1
}

// flatPriorWords describes an improper flat prior for an error.
func flatPriorWords(lat *check.Latent) string {
	switch lat.Support {
	case dist.CholCov, dist.CovMatrix, dist.Ordered, dist.PositiveOrdered, dist.SumToZero, dist.SumToZeroMatrix:
		return "a flat prior on the " + lat.Support.String() + " values is improper"
	}
	return "a flat prior on " + supportWords(lat)
}

// flatDomain names the domain of a proper flat prior: its bounds, or its
// kind of value.
func flatDomain(lat *check.Latent) string {
	switch lat.Support {
	case dist.Simplex, dist.CholCorr, dist.CorrMatrix:
		return "the " + lat.Support.String() + " values"
	}
	return supportWords(lat)
}

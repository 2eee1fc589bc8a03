package compile

// What the evidence p(y) = ∫ p(y, θ) dθ needs of the log joint: a
// normalised density of the params and the data. gpp's distributions keep
// their constants (lp__ differs from Stan's by them), priors wider than a
// support are normalised on it and ordered priors with scalar arguments
// gain log K!, so most models qualify; the terms gpp adds as written do not.

import (
	"slices"

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
// ordered prior of per-element arguments, a prior on a zero-sum vector,
// not renormalised to its plane, and a ~ on an expression of params that
// reads no data (no Jacobian added). A ~ with data on its left is no
// prior of the params it reads.
func (m *Model) EvidenceCaveats() (errs, notes ast.ErrorList) {
	var targets []*ast.TargetStmt
	var tildes []*ast.TildeStmt
	ast.Inspect(m.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TargetStmt:
			targets = append(targets, n)
		case *ast.TildeStmt:
			tildes = append(tildes, n)
		}
		return true
	})
	targetReads := map[int]bool{}
	for _, t := range targets {
		for _, i := range paramDeps(m.info, []ast.Expr{t.Value}) {
			targetReads[i] = true
		}
	}
	// A ~ on an expression of params that reads no data (log(x) ~ D, or
	// through a let) is a density of the expression's value: of the params
	// only with the log Jacobian of the map, which gpp does not add. A ~
	// with data on its left is the data's density, and no prior.
	for _, s := range tildes {
		if m.info.SelectedLatent(s.LHS) != nil || lhsReadsData(m.info, s.LHS) {
			continue
		}
		deps := paramDeps(m.info, []ast.Expr{s.LHS})
		if len(deps) == 0 {
			continue
		}
		for _, i := range deps {
			targetReads[i] = true
		}
		notes = append(notes, ast.Errorf(s.Tilde,
			"the ~ on `%s` is a density of its value, not of the params it reads: the evidence is right only if the model adds the log Jacobian of that map (as target += ...; a shift needs none)",
			ast.FormatExpr(s.LHS)))
	}
	for i, lat := range m.info.Latents {
		hasPrior := lat.Prior != nil || slices.ContainsFunc(lat.Tildes, func(s *ast.TildeStmt) bool {
			return !lhsReadsData(m.info, s.LHS)
		})
		switch left := m.uncoveredElems(i, lat); {
		case hasPrior && lat.Prior == nil && left > 0 && !targetReads[i] && improperFlat(lat):
			// ~ statements on elements by constant indices, not on all of them
			errs = append(errs, ast.Errorf(lat.Pos,
				"param `%s` has a prior on some elements only (~ on constant indices): %d of its %d elements are flat on %s, so p(y) is not defined",
				lat.Name, left, m.Latents[i].Size, supportWords(lat)))
		case !hasPrior && targetReads[i]:
			// its density is a target += term's or a ~ on an expression's, noted
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
	switch {
	case unboundedSupport(lat.Support):
		return true
	case compactSupport(lat.Support):
		return false
	}
	r := lat.Range()
	return r.Lo <= -1e308 || r.Hi >= 1e308
}

// unboundedSupport reports whether s's values are unbounded whatever the
// declared bounds: a flat prior on them is improper.
func unboundedSupport(s dist.Support) bool {
	switch s {
	case dist.CholCov, dist.CovMatrix, dist.Ordered, dist.PositiveOrdered, dist.SumToZero, dist.SumToZeroMatrix:
		return true
	}
	return false
}

// compactSupport reports whether s's values form a bounded set of their
// own (simplexes, correlation matrices): a flat prior on them is proper.
func compactSupport(s dist.Support) bool {
	switch s {
	case dist.Simplex, dist.CholCorr, dist.CorrMatrix:
		return true
	}
	return false
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
	if unboundedSupport(lat.Support) {
		return "a flat prior on the " + lat.Support.String() + " values is improper"
	}
	return "a flat prior on " + supportWords(lat)
}

// flatDomain names the domain of a proper flat prior: its bounds, or its
// kind of value.
func flatDomain(lat *check.Latent) string {
	if compactSupport(lat.Support) {
		return "the " + lat.Support.String() + " values"
	}
	return supportWords(lat)
}

// lhsReadsData reports whether e reads data, directly or through lets,
// outside its indices: z[g[i]] with g data is an element of the param z.
func lhsReadsData(info *check.Info, e ast.Expr) bool {
	found := false
	info.VisitReads(e, false, func(sym *check.Symbol) bool {
		found = sym.Kind == check.Data
		return found
	})
	return found
}

// uncoveredElems returns how many elements of latent i no ~ reaches when
// every ~ on it has its bare name indexed by integer literals (v[0] ~ D,
// M[1, 2] ~ D); 0 when one is on the whole param, reads data, or indexes
// otherwise (a loop, a slice), where gpp cannot tell which elements it
// covers.
func (m *Model) uncoveredElems(i int, lat *check.Latent) int {
	shape := m.Latents[i].Shape
	if len(lat.Tildes) == 0 || len(shape) == 0 {
		return 0
	}
	covered := map[int]bool{}
	for _, s := range lat.Tildes {
		ix, ok := ast.Unparen(s.LHS).(*ast.IndexExpr)
		if !ok || len(ix.Indices) != len(shape) {
			return 0
		}
		if id, ok := ast.Unparen(ix.X).(*ast.Ident); !ok || m.info.Uses[id] != lat.Symbol {
			return 0
		}
		flat := 0
		for d, e := range ix.Indices {
			n, ok := ast.Unparen(e).(*ast.NumberLit)
			if !ok || !n.IsInt || n.Value < 0 || int(n.Value) >= shape[d] {
				return 0
			}
			flat = flat*shape[d] + int(n.Value)
		}
		covered[flat] = true
	}
	return m.Latents[i].Size - len(covered)
}

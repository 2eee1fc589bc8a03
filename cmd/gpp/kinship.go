package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// knownCov is a random effect with a known covariance (an animal model,
// GBLUP, a kinship matrix): a vector u, a param u ~ MvNormal(m, v * G) or
// MvNormalCholesky(m, s * L), or the let u = s * (L * z) of a standard
// normal z, G or L data and v or s not, that enters a Normal likelihood's
// location as a term, y ~ Normal(mu + u, se). VI cannot follow the
// funnel between s and u (a breeder's h² 0.13 to 0.81 by the forms and
// families of q, against 0.47 exact); u integrates out, and in G's
// eigenbasis the marginal costs O(N) a step.
type knownCov struct {
	lat   *check.Latent // u's param: u, or z for the non-centred form
	u     string
	at    ast.Pos // u's prior, or the let
	what  string  // how u is built, for the hint
	g     string  // G, or L * L' where L is no chol of a data matrix
	obs   *ast.TildeStmt
	index bool   // u enters indexed, u[id]
	v     string // u's variance scale: v, or square(s)
	rest  string // the location without u, "" for none
	n     string // y's length
}

// knownCovs returns the model's known-covariance random effects
// (knownCov) in declaration order; none for a nil info.
func knownCovs(file *ast.File, info *check.Info) []knownCov {
	if file == nil || info == nil {
		return nil
	}
	var out []knownCov
	for _, lat := range info.Latents {
		if lat.Kind != ast.Real || lat.Lower != nil || lat.Upper != nil || lat.LowerData != nil || lat.UpperData != nil || lat.ElemBounds || lat.Dims.Rank() != 1 {
			continue
		}
		if k, ok := mvKnownCov(file, info, lat); ok {
			out = append(out, k)
			continue
		}
		if k, ok := ncKnownCov(file, info, lat); ok {
			out = append(out, k)
		}
	}
	return out
}

// mvKnownCov finds u ~ MvNormal(0, v * G) or MvNormalCholesky(0, s * L)
// on the param lat, declared or its only ~ statement.
func mvKnownCov(file *ast.File, info *check.Info, lat *check.Latent) (knownCov, bool) {
	prior, d := lat.Prior, lat.PriorDist
	if prior == nil {
		_, prior, d = mvPriorStmt(file, info, lat)
	}
	if d == nil || len(prior.Args) != 2 || d.Name != "MvNormal" && d.Name != "MvNormalCholesky" || !zeroMean(info, prior.Args[0]) {
		return knownCov{}, false
	}
	m, scale, ok := scaledDataMatrix(info, prior.Args[1], nil)
	if !ok {
		return knownCov{}, false
	}
	k := knownCov{lat: lat, u: lat.Name, at: prior.Pos(), what: fmt.Sprintf("%s's prior %s", lat.Name, ast.FormatExpr(prior))}
	k.g, k.v = ast.FormatExpr(m), scale
	if d.Name == "MvNormalCholesky" {
		k.g, k.v = cholOf(info, m), "square("+scale+")"
	}
	return k, k.use(file, info, lat.Symbol, lat.Symbol)
}

// zeroMean reports whether e, u's prior mean, is zero (zeroExpr, or
// rep(0, n)): the marginal of knownCovHint has no term for another.
func zeroMean(info *check.Info, e ast.Expr) bool {
	if c, ok := ast.Unparen(e).(*ast.CallExpr); ok && c.Fun.Name == "rep" && len(c.Args) == 2 {
		return constIs(info, c.Args[0], 0)
	}
	return zeroExpr(info, e)
}

// ncKnownCov finds the let u = s * (L * z) of the standard normal param
// lat (z), L data, that is a term of a Normal likelihood's location.
func ncKnownCov(file *ast.File, info *check.Info, lat *check.Latent) (knownCov, bool) {
	_, loop, loc, scale, _, ok := normalPrior(file, info, lat)
	if !ok || loop != nil || !constIs(info, loc, 0) || !constIs(info, scale, 1) {
		return knownCov{}, false
	}
	for _, st := range file.Stmts {
		ls, ok := st.(*ast.LetStmt)
		if !ok {
			continue
		}
		m, scale, ok := scaledDataMatrix(info, ls.Value, lat.Symbol)
		if !ok {
			continue
		}
		sym := info.Lookup(ls.Name.Name)
		if sym == nil {
			continue
		}
		k := knownCov{lat: lat, u: ls.Name.Name, at: ls.Let, what: fmt.Sprintf("the let %s = %s", ls.Name.Name, ast.FormatExpr(ls.Value)), g: cholOf(info, m), v: "square(" + scale + ")"}
		if k.use(file, info, lat.Symbol, sym) {
			return k, true
		} // else another let of z may be the likelihood's term
	}
	return knownCov{}, false
}

// scaledDataMatrix reports whether e is a product of one data matrix, at
// least one scalar that is not data, and, for z not nil, the vector z
// last: v * G, s * L or s * (L * z). It returns the matrix and the
// scalars' product.
func scaledDataMatrix(info *check.Info, e ast.Expr, z *check.Symbol) (ast.Expr, string, bool) {
	var ops []ast.Expr
	var flat func(e ast.Expr)
	flat = func(e ast.Expr) {
		e = ast.Unparen(e)
		if b, ok := e.(*ast.BinaryExpr); ok && b.Op == ast.Mul {
			flat(b.X)
			flat(b.Y)
			return
		}
		ops = append(ops, e)
	}
	flat(e)
	var m ast.Expr
	var scalars []string
	sawZ, param := false, false // param: a scalar that is not data
	for i, op := range ops {
		t := info.Types[op]
		switch {
		case z != nil && i == len(ops)-1:
			id, ok := op.(*ast.Ident)
			sawZ = ok && info.Uses[id] == z && m != nil
		case t.Shape.Rank() == 2 && t.DataOnly && m == nil:
			m = op
		case t.Shape.Rank() == 0:
			scalars = append(scalars, paren(ast.FormatExpr(op)))
			param = param || !t.DataOnly
		default:
			return nil, "", false
		}
	}
	return m, strings.Join(scalars, " * "), m != nil && (z == nil || sawZ) && param
}

// cholOf names the covariance whose Cholesky factor is l: X for chol(X)
// or a let of it, else l * l'.
func cholOf(info *check.Info, l ast.Expr) string {
	e := ast.Unparen(l)
	if id, ok := e.(*ast.Ident); ok {
		if s := info.Uses[id]; s != nil && s.Kind == check.Let {
			if ls, ok := s.Decl.(*ast.LetStmt); ok {
				e = ast.Unparen(ls.Value)
			}
		}
	}
	if c, ok := e.(*ast.CallExpr); ok && c.Fun.Name == "chol" && len(c.Args) == 1 {
		return ast.FormatExpr(c.Args[0])
	}
	s := paren(ast.FormatExpr(l))
	return s + " * " + s + "'"
}

// use finds a top-level y ~ Normal(... + u ..., se) of data y whose
// location has u (sym), or u[id] for data id, as a term and whose se reads
// neither u nor lat, and sets it as k.obs.
func (k *knownCov) use(file *ast.File, info *check.Info, lat, sym *check.Symbol) bool {
	for _, st := range file.Stmts {
		obs, ok := st.(*ast.TildeStmt)
		if !ok || obs.Trunc != nil || info.UserDensities[obs.Dist] != nil || !info.Types[obs.LHS].DataOnly {
			continue
		}
		if d := info.Dists[obs.Dist]; d == nil || d.Name != "Normal" || len(obs.Dist.Args) != 2 {
			continue
		}
		if sh := info.Types[obs.LHS].Shape; sh.Rank() == 1 {
			k.n = sh[0].String()
		} else {
			continue
		}
		if s := obs.Dist.Args[1]; reads(info, s, lat, true) || reads(info, s, sym, true) || info.Types[s].Shape.Rank() != 0 {
			continue // a scale per record has no eigenbasis form
		}
		type term struct {
			e   ast.Expr
			neg bool
		}
		var terms []term
		var flat func(e ast.Expr, neg bool)
		flat = func(e ast.Expr, neg bool) {
			e = ast.Unparen(e)
			if b, ok := e.(*ast.BinaryExpr); ok && (b.Op == ast.Add || b.Op == ast.Sub) {
				flat(b.X, neg)
				flat(b.Y, neg != (b.Op == ast.Sub))
				return
			}
			terms = append(terms, term{e, neg})
		}
		flat(obs.Dist.Args[0], false)
		i := slices.IndexFunc(terms, func(t term) bool { return k.isU(info, t.e, sym) })
		if i < 0 {
			continue
		}
		k.obs, k.rest = obs, ""
		for j, t := range terms {
			switch {
			case j == i:
			case k.rest == "" && t.neg:
				k.rest = "-" + paren(ast.FormatExpr(t.e))
			case k.rest == "":
				k.rest = ast.FormatExpr(t.e)
			case t.neg:
				k.rest += " - " + paren(ast.FormatExpr(t.e))
			default:
				k.rest += " + " + ast.FormatExpr(t.e)
			}
		}
		rest := ast.Expr(nil)
		if len(terms) == 2 {
			rest = terms[1-i].e
		}
		switch {
		case k.rest == "":
		case rest != nil && info.Types[rest].Shape.Rank() == 0 && !terms[1-i].neg:
			k.rest = paren(k.rest) + " * (U' * rep(1, " + k.n + "))"
		default:
			k.rest = "U' * (" + k.rest + ")"
		}
		return true
	}
	return false
}

// isU reports whether the term t is u (sym) or u[id], id data, setting
// k.index for the latter.
func (k *knownCov) isU(info *check.Info, t ast.Expr, sym *check.Symbol) bool {
	if ix, ok := t.(*ast.IndexExpr); ok && len(ix.Indices) == 1 && info.Types[ix.Indices[0]].DataOnly {
		if id, ok := ast.Unparen(ix.X).(*ast.Ident); ok && info.Uses[id] == sym {
			k.index = true
			return true
		}
	}
	id, ok := t.(*ast.Ident)
	return ok && info.Uses[id] == sym
}

// knownCovHint is the hint on k: integrate u out, in G's eigenbasis,
// written out for k's names.
func knownCovHint(info *check.Info, k knownCov) string {
	y, se := ast.FormatExpr(k.obs.LHS), ast.FormatExpr(k.obs.Dist.Args[1])
	loc := "0"
	if k.rest != "" {
		loc = k.rest
	}
	form := fmt.Sprintf("%s, let U = eigenvectors_sym(%s) and U' * %s ~ Normal(%s, sqrt(%s * d + square(%s)))", eigenLet(info, k.g), k.g, paren(y), loc, k.v, se)
	replaced := "param " + k.lat.Name
	if k.u != k.lat.Name {
		replaced += " and the let " + k.u
	}
	aligned := ""
	if k.index {
		aligned = fmt.Sprintf(" (%s enters indexed: it needs one record per row of %s, in its row order, and %s whole in place of the index)", k.u, k.g, k.u)
	}
	return fmt.Sprintf("%s at %d:%d and %s at %d:%d make a random effect with a known covariance (an animal model, GBLUP, a kinship matrix): "+
		"q cannot follow the funnel between %s's scale and its elements, centred or not, nor with --fullrank (on a breeder's 400 lines h² came out 0.13 to 0.81 against 0.47 exact); "+
		"integrate %s out, in the eigenbasis of %s: %s%s, in place of the statement at %d:%d and %s, leave q only the scales and the fixed effects (h² 0.46 on those lines), at O(N) a step after one eigendecomposition of the data; "+
		"%s's BLUP given the params is an output (docs/language.md, Known-covariance random effects)",
		k.what, k.at.Line, k.at.Col, ast.FormatStmt(k.obs), k.obs.Pos().Line, k.obs.Pos().Col,
		k.u, k.u, k.g, form, aligned, k.obs.Pos().Line, k.obs.Pos().Col, replaced, k.u)
}

// knownCovHints returns the hints on the model's known-covariance random
// effects (knownCovs) for a fit whose Pareto k̂ raises the alarm, and the
// params they cover; nil otherwise.
func knownCovHints(file *ast.File, info *check.Info, paretoK, relESS float64) (hints []string, covered []*check.Latent) {
	if !sgvb.ParetoAlarm(paretoK, relESS) {
		return nil, nil
	}
	for _, k := range knownCovs(file, info) {
		hints = append(hints, knownCovHint(info, k))
		covered = append(covered, k.lat)
	}
	return hints, covered
}

// eigenLet is the hint's let of G's eigenvalues: of data G declared
// cov_matrix (checked positive definite when it loads) as they are; of
// real data G with that declaration first, which chol(G) needs already,
// so that an indefinite G is an error, not fitted as another; of any
// other G (L * L') with abs for rounding, G positive semidefinite.
func eigenLet(info *check.Info, g string) string {
	for _, d := range info.Data {
		if d.Name != g || len(d.Dims) != 2 {
			continue
		}
		switch d.Kind {
		case ast.CovMatrix:
			return fmt.Sprintf("let d = eigenvalues_sym(%s)", g)
		case ast.Real:
			return fmt.Sprintf("data %s: cov_matrix[%s] (checked positive definite when the data load), let d = eigenvalues_sym(%s)", g, d.Dims[0], g)
		}
	}
	return fmt.Sprintf("let d = abs(eigenvalues_sym(%s))", g)
}

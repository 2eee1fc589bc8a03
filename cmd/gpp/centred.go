package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
	"github.com/gpplang/gpp/stdlib"
)

// centredParam is a param of a centred hierarchy: an unbounded real param
// whose prior is Normal(loc, scale), or another location-scale family
// (locScaleShape), with a scale that depends on params, declared (param
// NAME: typ ~ Normal(loc, scale)) or a statement (centredStmt), with its
// non-centred form, param z: typ ~ Normal(0, 1) (zPrior) and let NAME =
// let.
type centredParam struct {
	lat   *check.Latent
	scale ast.Expr // the prior's scale, as written (in a loop, the loop's)
	// neck is the funnel's scale where it is not scale: the sds of a
	// multivariate prior's Cholesky factor diag_pre_multiply(sd, L)
	// (mvCentred); nil for scale.
	neck ast.Expr
	z    string // NAME_z
	typ  string // the param's declared type, which z takes
	let  string // NAME in terms of z: loc + scale * z (.* for a vector scale)
	// zPrior is z's prior, the family's standard form (StudentT(nu, 0,
	// 1)); "" for Normal(0, 1).
	zPrior string
	// stmt is the ~ statement that gives the prior, nil for a declared
	// prior; loop is the for loop over the param's elements around it.
	stmt *ast.TildeStmt
	loop *ast.ForStmt
}

// priorPhrase names p's prior after "NAME's prior": the declared one,
// Normal(mu, tau), or the statement and where it is, set off by commas.
func (p centredParam) priorPhrase() string {
	return priorPhrase(p.lat, p.stmt, p.loop)
}

// priorPhrase names lat's prior after "NAME's prior": the declared one
// (stmt nil) or the ~ statement stmt, in loop or not, and where it is.
func priorPhrase(lat *check.Latent, stmt *ast.TildeStmt, loop *ast.ForStmt) string {
	if stmt == nil {
		return " " + ast.FormatExpr(lat.Prior)
	}
	at := fmt.Sprintf("at %d:%d", stmt.Pos().Line, stmt.Pos().Col)
	if loop != nil {
		at += " in a for loop over its elements"
	}
	return fmt.Sprintf(", the statement %s %s,", ast.FormatStmt(stmt), at)
}

// neckExpr is the expression the funnel narrows in: neck, or scale.
func (p centredParam) neckExpr() ast.Expr {
	if p.neck != nil {
		return p.neck
	}
	return p.scale
}

// funnel opens the hints on p (centredHints, divergenceHints): its
// prior, and the funnel it makes where the data say little.
func (p centredParam) funnel() string {
	name := p.lat.Name
	if p.neck != nil { // a multivariate prior of the rows
		return fmt.Sprintf("%s's prior%s has a Cholesky factor that depends on params (a centred hierarchy of its rows): "+
			"where the data say little about each row of %s, the posterior is a funnel in %s", name, p.priorPhrase(), name, ast.FormatExpr(p.neck))
	}
	return fmt.Sprintf("%s's prior%s has a scale that depends on params (a centred hierarchy): "+
		"where the data say little about each element of %s, the posterior is a funnel in %s", name, p.priorPhrase(), name, ast.FormatExpr(p.scale))
}

// nonCentred spells out p's non-centred form, which for a statement
// replaces it.
func (p centredParam) nonCentred() string {
	zp := p.zPrior
	if zp == "" {
		zp = "Normal(0, 1)"
	}
	nc := fmt.Sprintf("param %s: %s ~ %s with let %s = %s", p.z, p.typ, zp, p.lat.Name, p.let)
	if p.stmt != nil {
		nc += fmt.Sprintf(" in place of the statement at %d:%d", p.stmt.Pos().Line, p.stmt.Pos().Col)
		if p.loop != nil && len(p.loop.Body) == 1 {
			nc += fmt.Sprintf(" (and of the for loop at %d:%d, left empty)", p.loop.For.Line, p.loop.For.Col)
		}
	}
	return nc
}

// mayFunnel reports whether the model may have a centred hierarchy, the
// funnel that non-centring cures: centredParams finds one, or a param's
// declared prior has an argument past its first that moves with params
// (a multivariate one: r ~ MvNormalCholesky(0, diag_pre_multiply(sd, L))).
// A model with neither (a trial's z ~ Normal(0, 1) scaled by sd) gets no
// advice to non-centre it.
func mayFunnel(file *ast.File, info *check.Info) bool {
	if info == nil || len(centredParams(file, info)) > 0 { // unknown, or found
		return true
	}
	for _, lat := range info.Latents {
		if lat.Prior == nil {
			continue
		}
		for _, a := range lat.Prior.Args[min(1, len(lat.Prior.Args)):] {
			if !info.Types[a].DataOnly {
				return true
			}
		}
	}
	return false
}

// centredParams returns the params of the model's centred hierarchies in
// declaration order (none for a nil info). Where the data say little
// about each element, the posterior of such a param and its scale is a
// funnel, which SGVB's normal q cannot follow and NUTS cannot enter
// without diverging, while the non-centred form is nearly normal.
func centredParams(file *ast.File, info *check.Info) []centredParam {
	if info == nil {
		return nil
	}
	var out []centredParam
	for _, lat := range info.Latents {
		if p, ok := mvCentred(file, info, lat); ok {
			out = append(out, p)
			continue
		}
		p := centredParam{lat: lat}
		var loc ast.Expr
		var vector, ok, logNormal bool
		if p.stmt, p.loop, p.zPrior, loc, p.scale, vector, ok = locScalePrior(file, info, lat); !ok {
			if loc, p.scale, ok = logNormalPrior(lat); !ok {
				continue
			}
			logNormal = true
		}
		if info.Types[p.scale].DataOnly {
			continue
		}
		p.z = lat.Name + "_z"
		sc := ast.FormatExpr(p.scale)
		if p.loop != nil {
			sc = ast.FormatExpr(dropLoopIndex(p.scale, p.loop, info))
		}
		if strings.ContainsRune(sc, ' ') {
			sc = "(" + sc + ")"
		}
		mul := " * "
		if vector || info.Types[p.scale].Shape.Rank() > 0 {
			mul = " .* "
		}
		p.let = sc + mul + p.z
		if l := ast.FormatExpr(loc); l != "0" {
			p.let = l + " + " + p.let
		}
		p.typ = ast.FormatType(lat.Decl.Type)
		if logNormal { // z is the log's standardised form, unbounded
			p.let = "exp(" + p.let + ")"
			t := *lat.Decl.Type
			t.Kind, t.Lower, t.Upper = ast.Real, nil, nil
			p.typ = ast.FormatType(&t)
		}
		out = append(out, p)
	}
	return out
}

// mvCentred finds a centred hierarchy of a real matrix param's rows, the
// varying effects as Stan and brms write them: an
// MvNormalCholesky(loc, diag_pre_multiply(sd, L)) prior with sd not data
// or constants, whose funnel's neck is sd, or MvNormal(loc, Sigma) with
// Sigma not, whose neck is Sigma; declared, or the param's only ~
// statement, at the top level on the whole param (mvPriorStmt). The
// non-centred form takes z: the param's type ~ Normal(0, 1) and the
// Cholesky factor times each row: (diag_pre_multiply(sd, L) * z')', or
// chol(Sigma) for MvNormal, plus loc (a vector's transpose, to meet each
// row) where loc is not 0.
func mvCentred(file *ast.File, info *check.Info, lat *check.Latent) (centredParam, bool) {
	p := centredParam{lat: lat, z: lat.Name + "_z"}
	if lat.Kind != ast.Real || lat.Lower != nil || lat.Upper != nil || lat.LowerData != nil || lat.UpperData != nil || lat.ElemBounds ||
		lat.Dims.Rank() != 2 {
		return p, false
	}
	prior, d := lat.Prior, lat.PriorDist
	if prior == nil {
		p.stmt, prior, d = mvPriorStmt(file, info, lat)
	}
	if d == nil || len(prior.Args) != 2 {
		return p, false
	}
	loc, fac := prior.Args[0], prior.Args[1]
	var chol string
	switch d.Name {
	case "MvNormalCholesky":
		call, ok := ast.Unparen(fac).(*ast.CallExpr)
		if !ok || call.Fun.Name != "diag_pre_multiply" || len(call.Args) != 2 || info.Types[call.Args[0]].DataOnly {
			return p, false
		}
		p.neck, chol = call.Args[0], ast.FormatExpr(fac)
	case "MvNormal":
		if info.Types[fac].DataOnly {
			return p, false
		}
		chol = "chol(" + ast.FormatExpr(fac) + ")"
	default:
		return p, false
	}
	p.scale = fac
	p.typ = ast.FormatType(lat.Decl.Type)
	p.let = "(" + chol + " * " + p.z + "')'"
	if !zeroExpr(info, loc) {
		l := ast.FormatExpr(loc)
		if strings.ContainsRune(l, ' ') {
			l = "(" + l + ")"
		}
		if info.Types[loc].Shape.Rank() == 1 {
			l += "'"
		}
		p.let = l + " + " + p.let
	}
	return p, true
}

// mvPriorStmt returns lat's prior as a ~ statement, for mvCentred: lat's
// only one, at the top level on the whole param (theta ~
// MvNormalCholesky(mu, diag_pre_multiply(tau, L))), untruncated and of a
// built-in family, with its distribution; nils otherwise.
func mvPriorStmt(file *ast.File, info *check.Info, lat *check.Latent) (*ast.TildeStmt, *ast.CallExpr, *stdlib.Dist) {
	s, d := soleTilde(file, info, lat)
	if d == nil || !wholeAtTop(file, info, lat, s) {
		return nil, nil, nil
	}
	return s, s.Dist, d
}

// soleTilde returns lat's only ~ statement when it is untruncated and of
// a built-in family, with the family (nil otherwise): the prior of a
// param declared without one (centredStmt, mvPriorStmt).
func soleTilde(file *ast.File, info *check.Info, lat *check.Latent) (*ast.TildeStmt, *stdlib.Dist) {
	if file == nil || len(lat.Tildes) != 1 {
		return nil, nil
	}
	s := lat.Tildes[0]
	if s.Trunc != nil || info.UserDensities[s.Dist] != nil {
		return s, nil
	}
	return s, info.Dists[s.Dist]
}

// wholeAtTop reports whether s, a ~ statement, is at the top level on the
// whole of lat (theta ~ ..., not theta[j] ~ ... nor in a loop).
func wholeAtTop(file *ast.File, info *check.Info, lat *check.Latent, s *ast.TildeStmt) bool {
	id, ok := ast.Unparen(s.LHS).(*ast.Ident)
	return ok && info.Uses[id] == lat.Symbol && slices.Contains(file.Stmts, ast.Stmt(s))
}

// zeroExpr reports whether e is the constant 0 or a vector literal of
// zeros.
func zeroExpr(info *check.Info, e ast.Expr) bool {
	if v, ok := ast.Unparen(e).(*ast.VectorLit); ok {
		for _, x := range v.Elems {
			if !constIs(info, x, 0) {
				return false
			}
		}
		return true
	}
	return constIs(info, e, 0)
}

// normalPrior finds the Normal(loc, scale) prior of an unbounded real
// param, declared (stmt nil) or a ~ statement (centredStmt); ok is false
// for a bounded or positive param, another family or none.
func normalPrior(file *ast.File, info *check.Info, lat *check.Latent) (stmt *ast.TildeStmt, loop *ast.ForStmt, loc, scale ast.Expr, vector, ok bool) {
	stmt, loop, zPrior, loc, scale, vector, ok := locScalePrior(file, info, lat)
	if !ok || zPrior != "" {
		return nil, nil, nil, nil, false, false
	}
	return stmt, loop, loc, scale, vector, true
}

// locScaleShape holds the location-scale families whose prior
// Family(shape..., loc, scale) has the exact non-centred form loc + scale
// * z, z ~ Family(shape..., 0, 1), with how many shape arguments come
// before loc (StudentT's nu). A user trial's BayesA, beta ~ StudentT(4, 0,
// s), got no centring hint: centred it had not converged after 10000
// iterations (k̂ 5.26), non-centred it did.
var locScaleShape = map[string]int{"Normal": 0, "StudentT": 1, "Cauchy": 0, "Laplace": 0, "Logistic": 0, "Gumbel": 0}

// locScalePrior is normalPrior for any family of locScaleShape, with z's
// prior in the non-centred form: "" for Normal, else the family at 0, 1
// with the prior's shape arguments (StudentT(nu, 0, 1)).
func locScalePrior(file *ast.File, info *check.Info, lat *check.Latent) (stmt *ast.TildeStmt, loop *ast.ForStmt, zPrior string, loc, scale ast.Expr, vector, ok bool) {
	if lat.Kind != ast.Real || lat.Lower != nil || lat.Upper != nil || lat.LowerData != nil || lat.UpperData != nil || lat.ElemBounds {
		return
	}
	if lat.Prior == nil {
		return centredStmt(file, info, lat)
	}
	if lat.PriorDist == nil {
		return
	}
	k, isLS := locScaleShape[lat.PriorDist.Name]
	if !isLS || len(lat.Prior.Args) != k+2 {
		return
	}
	args := lat.Prior.Args
	return nil, nil, standardPrior(lat.PriorDist.Name, args[:k]), args[k], args[k+1], false, true
}

// standardPrior writes family's standard form, location 0 and scale 1,
// after the shape arguments; "" for Normal.
func standardPrior(family string, shape []ast.Expr) string {
	if family == "Normal" {
		return ""
	}
	var args []string
	for _, a := range shape {
		args = append(args, ast.FormatExpr(a))
	}
	return family + "(" + strings.Join(append(args, "0", "1"), ", ") + ")"
}

// logNormalPrior finds the declared LogNormal(loc, scale) prior of a
// positive param (positive, or real<lower=0> with no other bound; another
// lower bound truncates the prior, whose scale is then no param's): its log
// is a centred Normal(loc, scale) hierarchy, with the same funnel, whose
// non-centred form is exp(loc + scale * z). ok is false otherwise.
func logNormalPrior(lat *check.Latent) (loc, scale ast.Expr, ok bool) {
	if lat.Support != dist.Positive || lat.HasUpper() || lat.LowerData != nil || lat.LowerV != nil || lat.ElemBounds ||
		lat.Lower != nil && *lat.Lower != 0 {
		return nil, nil, false
	}
	if lat.PriorDist == nil || lat.PriorDist.Name != "LogNormal" || len(lat.Prior.Args) != 2 {
		return nil, nil, false
	}
	return lat.Prior.Args[0], lat.Prior.Args[1], true
}

// centredStmt finds the prior of lat, which declares none, in a ~
// statement, Stan's model-block style: lat's only one, Normal(loc,
// scale) or another family of locScaleShape (zPrior as locScalePrior's)
// without truncation, either at the top level on the whole param
// (theta ~ Normal(mu, tau)) or in the body of a top-level for loop over
// its elements (for j in 0:J { theta[j] ~ Normal(mu, tau[g[j]]) }). In a
// loop, loc, scale and shape arguments may use the loop variable only as
// an index into a vector of the loop's length (loopVec); loc and zPrior's
// shape come back with those indices dropped (mu[g]), vector true when
// scale has any. A loop over part of the elements or a ~ of an
// expression of the param is no prior of it: ok is false.
func centredStmt(file *ast.File, info *check.Info, lat *check.Latent) (s *ast.TildeStmt, loop *ast.ForStmt, zPrior string, loc, scale ast.Expr, vector, ok bool) {
	s, d := soleTilde(file, info, lat)
	if d == nil {
		return
	}
	k, isLS := locScaleShape[d.Name]
	if !isLS || len(s.Dist.Args) != k+2 {
		return
	}
	shape := s.Dist.Args[:k]
	loc, scale = s.Dist.Args[k], s.Dist.Args[k+1]
	switch lhs := ast.Unparen(s.LHS).(type) {
	case *ast.Ident:
		if !wholeAtTop(file, info, lat, s) {
			return
		}
		return s, nil, standardPrior(d.Name, shape), loc, scale, false, true
	case *ast.IndexExpr:
		x, isIdent := lhs.X.(*ast.Ident)
		if !isIdent || info.Uses[x] != lat.Symbol || len(lhs.Indices) != 1 || lat.Dims.Rank() != 1 {
			return
		}
		j, isIdent := ast.Unparen(lhs.Indices[0]).(*ast.Ident)
		if !isIdent {
			return
		}
		sym := info.Uses[j]
		if sym == nil || sym.Kind != check.LoopVar {
			return
		}
		loop, _ = sym.Decl.(*ast.ForStmt)
		if loop == nil || !slices.Contains(file.Stmts, ast.Stmt(loop)) || !slices.Contains(loop.Body, ast.Stmt(s)) ||
			!constIs(info, loop.Lo, 0) || !sameDim(loopLen(info, loop), lat.Dims[0]) {
			return
		}
		if !loopVec(loc, loop, lat.Dims[0], info) || !loopVec(scale, loop, lat.Dims[0], info) {
			return
		}
		var dropped []ast.Expr
		for _, a := range shape {
			if !loopVec(a, loop, lat.Dims[0], info) {
				return
			}
			dropped = append(dropped, dropLoopIndex(a, loop, info))
		}
		vector = mentionsLocal(scale, info)
		return s, loop, standardPrior(d.Name, dropped), dropLoopIndex(loc, loop, info), scale, vector, true
	}
	return
}

// constIs reports whether e is the constant v.
func constIs(info *check.Info, e ast.Expr, v float64) bool {
	c := info.Types[e].Const
	return c != nil && *c == v
}

// loopLen is the length of loop's range lo:hi with lo 0: hi as a size.
func loopLen(info *check.Info, loop *ast.ForStmt) check.Dim {
	if c := info.Types[loop.Hi].Const; c != nil {
		return check.Dim{N: int(*c)}
	}
	return check.Dim{N: -1, Name: ast.FormatExpr(ast.Unparen(loop.Hi))}
}

// sameDim reports whether two sizes are the same: equal when known at
// check time, written with the same name otherwise.
func sameDim(a, b check.Dim) bool {
	if a.Known() || b.Known() {
		return a.N == b.N
	}
	return a.Name != "" && a.Name == b.Name
}

// mentionsLocal reports whether e uses a name local to a for body: its
// loop variable or a let of the body.
func mentionsLocal(e ast.Expr, info *check.Info) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if sym := info.Uses[id]; sym != nil && (sym.Local || sym.Kind == check.LoopVar) {
				found = true
			}
		}
		return !found
	})
	return found
}

// loopVec reports whether e, an argument of a ~ in loop's body over n
// elements, is the loop's iterations side by side once the indices by
// the loop variable are dropped (dropLoopIndex): it uses no local name
// but in x[j] or x[g[j]], x and g vectors of n elements, combined by
// + - * / .* ^ and unary minus.
func loopVec(e ast.Expr, loop *ast.ForStmt, n check.Dim, info *check.Info) bool {
	if !mentionsLocal(e, info) {
		return true
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return loopVec(e.X, loop, n, info)
	case *ast.UnaryExpr:
		return e.Op == ast.Neg && loopVec(e.X, loop, n, info)
	case *ast.BinaryExpr:
		switch e.Op {
		case ast.Add, ast.Sub, ast.Mul, ast.EMul, ast.Div, ast.Pow:
			return loopVec(e.X, loop, n, info) && loopVec(e.Y, loop, n, info)
		}
	case *ast.IndexExpr:
		if len(e.Indices) != 1 || mentionsLocal(e.X, info) {
			return false
		}
		if j, ok := ast.Unparen(e.Indices[0]).(*ast.Ident); ok && info.Uses[j] != nil && info.Uses[j].Decl == ast.Node(loop) {
			sh := info.Types[e.X].Shape
			return sh.Rank() == 1 && sameDim(sh[0], n)
		}
		return loopVec(e.Indices[0], loop, n, info) && info.Types[e.Indices[0]].Shape.Rank() == 0
	}
	return false
}

// dropLoopIndex writes e (loopVec) for all of loop's iterations at once:
// x[j] becomes x, x[g[j]] the gather x[g], and a * of two such vectors
// the elementwise .*.
func dropLoopIndex(e ast.Expr, loop *ast.ForStmt, info *check.Info) ast.Expr {
	if !mentionsLocal(e, info) {
		return e
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return &ast.ParenExpr{Lparen: e.Lparen, X: dropLoopIndex(e.X, loop, info), Rparen: e.Rparen}
	case *ast.UnaryExpr:
		return &ast.UnaryExpr{OpPos: e.OpPos, Op: e.Op, X: dropLoopIndex(e.X, loop, info)}
	case *ast.BinaryExpr:
		op := e.Op
		if op == ast.Mul && mentionsLocal(e.X, info) && mentionsLocal(e.Y, info) {
			op = ast.EMul
		}
		return &ast.BinaryExpr{X: dropLoopIndex(e.X, loop, info), OpPos: e.OpPos, Op: op, Y: dropLoopIndex(e.Y, loop, info)}
	case *ast.IndexExpr:
		if j, ok := ast.Unparen(e.Indices[0]).(*ast.Ident); ok && info.Uses[j] != nil && info.Uses[j].Decl == ast.Node(loop) {
			return e.X
		}
		return &ast.IndexExpr{X: e.X, Lbrack: e.Lbrack, Indices: []ast.Expr{dropLoopIndex(e.Indices[0], loop, info)}, Rbrack: e.Rbrack}
	}
	return e
}

// parameterisationHints returns the hints of gpp fit and the REPL's :fit
// on the model's parameterisation and q's family, in the order printed:
// normal–normal hierarchies that integrate out (marginalHints) and
// random effects with a known covariance (knownCovHints) and
// errors-in-variables regressions (eivHints), in place
// of the centred or non-centred hint on their params, which neither form
// mends (a meta-analysis: mu's sd and tau's upper tail short either way),
// then centred hierarchies' (centredHints), the mirror case of non-centred
// params the data may pin down, whose centred form is another model to
// compare (nonCentredHints), then the mean-field hint, a cure of the
// correlations that (non-)centring leaves: the curvature check's where it
// ran (curv not nil: curvatureHint), else the one Pareto k̂ gates
// (meanFieldHint, saying so where --fullrank auto's refit with all lost:
// autoLost; docs/inference.md, The mean-field hint), which points back to
// a marginal hint, the larger cure, where there is one (marginalFirst),
// and advises no joint factor that holds a known-covariance random
// effect's param, which that hint says none mends (knownCovText). None after a far start (far,
// farStartHint, not ""): a q stopped on its way says nothing yet about
// the parameterisation or the family (Rats in grams: non-centring, which
// the centred hint suggested, fitted worse). Last come the hints on
// centred chains that q does not hold (walkHints); where there are any,
// the centred and non-centred hints point to them (walkFirst), the larger
// cure; then those on chains a banded factor holds whose step sd no
// normal q gets right (heldChainHints). The mean-field hints' --fullrank advice starts the joint factor
// from this fit with --init warmInit ("": no such clause).
func parameterisationHints(s sgvb.Settings, l *pipeline.Loaded, far string, paretoK, relESS float64, curv *curvCheck, autoLost, warmInit string, flat bool) []string {
	if far != "" {
		return nil
	}
	walks := gapWalks(hintedWalks(s, l.File, l.Info, missingLatents(l.Model), paretoK, relESS), l.Model)
	hints, covered := marginalHints(l.File, l.Info, paretoK, relESS)
	kh, kc := knownCovHints(l.File, l.Info, paretoK, relESS)
	var kcNames []string
	for _, lat := range kc {
		kcNames = append(kcNames, lat.Name)
		if covered == nil {
			covered = map[*check.Latent]bool{}
		}
		covered[lat] = true
	}
	hints = append(hints, kh...)
	eh, ec := eivHints(l.File, l.Info, paretoK, relESS)
	for _, lat := range ec {
		if covered == nil {
			covered = map[*check.Latent]bool{}
		}
		covered[lat] = true
	}
	hints = append(hints, eh...)
	cs := slices.DeleteFunc(centredParams(l.File, l.Info), func(p centredParam) bool { return covered[p.lat] })
	ncs := slices.DeleteFunc(nonCentredParams(l.File, l.Info), func(p nonCentredParam) bool { return covered[p.lat] })
	hints = append(hints, centredHintsOf(cs, paretoK, relESS)...)
	hints = append(hints, nonCentredHintsOf(s, ncs, paretoK, relESS)...)
	if len(walks) > 0 {
		for i := range hints {
			hints[i] += walkFirst(walks, false)
		}
	}
	h := ""
	if curv != nil {
		if u := unsettledHint(curv); u != "" {
			hints = append(hints, u+sumToZeroNote(u, curv.r))
		}
		curv.warmInit, curv.knownCov = warmInit, kcNames
		h = curvatureHint(curv)
		h += sumToZeroNote(h, curv.r)
		if h == "" && curv.joinLeft && !flat {
			// a partial check with normal factors reads lower bounds that
			// named no sd: the left-out neck is unchecked, so k̂'s rule stands
			h = meanFieldHint(s, l.Model, paretoK, relESS, autoLost, warmInit)
		}
	} else if !flat { // no joint factor mends a flat direction (flatWarning)
		h = meanFieldHint(s, l.Model, paretoK, relESS, autoLost, warmInit)
	}
	if h != "" && len(kc) > 0 && strings.HasPrefix(h, meanFieldHead) {
		// its --fullrank all holds the known covariance's param
		h = meanFieldHead + knownCovText(kcNames) + " (docs/inference.md, The mean-field hint)"
	}
	if h == "" && len(hints) == 0 && len(walks) == 0 {
		h = jointMissHint(s, l.Info, l.Model, paretoK, relESS, warmInit)
	}
	if h != "" {
		if len(walks) > 0 {
			h += walkFirst(walks, true)
		} else if len(covered) > 0 && !strings.Contains(h, knownCovCure) {
			h += marginalFirst
		}
		hints = append(hints, h)
	}
	if o := outputsCurvHint(curv); o != "" {
		hints = append(hints, o)
	}
	hints = append(hints, walkHints(walks)...)
	return append(hints, heldChainHints(s, l.File, l.Info, missingLatents(l.Model), paretoK, relESS)...)
}

// jointMissHint returns, for a fit whose q has joint factors (--fullrank,
// --family laplace or pathfinder) and whose Pareto k̂ still raises the
// alarm, what that means where no other hint explains it. With every
// param in a joint factor, the posterior is not normal in q's
// coordinates, and q's intervals may be too narrow: a trial's bivariate
// meta-analysis, refitted by --fullrank auto, had k̂ 0.93 and only the
// warning, its correlation's 90% interval [−0.81, −0.59] against NUTS's
// [−0.93, −0.22]. With some left mean-field, those are named, and
// joining them (joinFlag's run, warm-started) is the first thing to try,
// where a run that takes them exists. "" otherwise.
func jointMissHint(s sgvb.Settings, info *check.Info, m *compile.Model, paretoK, relESS float64, warmInit string) string {
	if meanField(s) || s.Method == sgvb.MAP || !sgvb.ParetoAlarm(paretoK, relESS) || info == nil {
		return ""
	}
	var apart []string
	if !s.Method.JointNormal() {
		for _, lat := range info.Latents {
			if !jointIn(s, lat.Name) {
				apart = append(apart, lat.Name)
			}
		}
	}
	if len(apart) > 0 {
		join := joinFlag(s, m, apart)
		if join == "" {
			return fmt.Sprintf("q still misses the posterior by Pareto k̂ with %s in mean-field factors, which no other --fullrank run joins with the rest (docs/inference.md, Full-rank factors), so its sds and intervals may be too narrow: gpp sample (NUTS) with --against and this fit's directory checks them",
				joinAnd(apart))
		}
		flag := "--fullrank " + join
		if warmInit != "" {
			flag += " --init " + warmInit // from this fit: cold, a joint factor can stop far below it
		}
		return fmt.Sprintf("q still misses the posterior by Pareto k̂ with %s in mean-field factors: joining them with the rest (%s) may reach a higher ELBO%s; keep the fit with the higher one, and gpp sample (NUTS) is the check (docs/inference.md, Full-rank factors)",
			joinAnd(apart), flag, leftOutText(s, m, apart, join))
	}
	return "q holds the params jointly and Pareto k̂ still says it misses the posterior: the posterior is not normal in q's coordinates " +
		"(skewed or heavy-tailed, as a hierarchy's scales over few groups, a correlation near ±1 or a param the data say little about are), " +
		"which no normal q represents, so its sds and intervals may be too narrow there; gpp sample (NUTS) with --against and this fit's directory checks them (docs/inference.md, Full-rank factors)"
}

// leftOutText says which of the mean-field params apart the run join
// (joinFlag's) leaves out, and why: beside a banded chain a simplex joins
// full-rank factors only, an ordered param full-rank and low-rank ones (a
// nowcast's delay p: the hint named it and its run left it out, which
// adding it to was an error, user trial t68). "" where it leaves none.
func leftOutText(s sgvb.Settings, m *compile.Model, apart []string, join string) string {
	if s.Band == 0 || m == nil {
		return ""
	}
	joined := strings.Split(strings.Fields(join)[0], "+")
	var parts []string
	for _, name := range apart {
		lat := latentNamed(m, name)
		if lat == nil || slices.Contains(joined, name) {
			continue
		}
		why := "its support joins no banded factor"
		switch {
		case lat.Support == dist.Simplex:
			why = "a simplex joins full-rank factors only, its stick-breaking coordinates not implemented for banded ones"
		case lat.Support.IsOrdered():
			why = "an ordered param joins full-rank and low-rank factors, not banded ones"
		}
		parts = append(parts, fmt.Sprintf("%s stays mean-field in it: %s", name, why))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// joinFlag returns the --fullrank value (with --rank or --band) of the
// run that joins the most elements of the mean-field params apart with
// the joint factors of settings s on model m, as checkFullRank takes it,
// or "" where every such run leaves them apart (as this one does: never
// a run that repeats it). Beside a
// banded chain that is the arrowhead (the chain's group and them, the
// same --band): --fullrank all drops the band (a trial's local level,
// 200 states: ELBO −291.1 to −316.5, sigma_lvl 0.35 to 0.70); else
// --fullrank all, or past sgvb.MaxFullRank elements the low-rank
// lowRankFlag (--fullrank all again left a trial's z[2, 54] apart).
func joinFlag(s sgvb.Settings, m *compile.Model, apart []string) string {
	if m == nil {
		return ""
	}
	type run struct {
		names      []string
		rank, band int
	}
	var runs []run
	if s.Band > 0 {
		for _, g := range s.FullRankGroups {
			names := slices.Clone(g)
			for _, name := range apart {
				if lat := latentNamed(m, name); lat != nil && lat.Support != dist.Simplex && !lat.Support.IsOrdered() && sgvb.CheckFullRank(lat.Support, 1) == nil {
					names = append(names, name)
				}
			}
			runs = append(runs, run{names, 0, s.Band})
		}
	} else {
		runs = []run{{[]string{"all"}, 0, 0}, {[]string{"all"}, autoLowRank, 0}}
	}
	best, most := "", 0
	for _, r := range runs {
		t := s
		t.Families, t.FullRankGroups, t.Rank, t.Band = map[string]sgvb.Family{}, nil, r.rank, r.band
		addFullRankItem(&t, r.names, r.rank, r.band)
		if _, err := checkFullRank(&t, m); err != nil {
			continue
		}
		n := 0
		for _, name := range apart {
			if jointIn(t, name) {
				n += fullRankElems(latentNamed(m, name))
			}
		}
		if n > most {
			best, most = strings.Join(r.names, "+"), n
			switch {
			case r.band > 0:
				best += fmt.Sprintf(" --band %d", r.band)
			case r.rank > 0:
				best += fmt.Sprintf(" --rank %d", r.rank)
			}
		}
	}
	return best
}

// closerFlag returns the flags of a fit whose q may come closer to the
// posterior than that of settings s on model m: joinFlag's run over the
// params still apart (for a mean-field q, --fullrank all, or past
// sgvb.MaxFullRank elements the low-rank lowRankFlag); "" where there is
// none (MAP, a joint normal, every param joined).
func closerFlag(s sgvb.Settings, m *compile.Model) string {
	if m == nil || s.Method != sgvb.SGVB {
		return ""
	}
	var apart []string
	for _, lat := range m.Latents {
		if !jointIn(s, lat.Name) {
			apart = append(apart, lat.Name)
		}
	}
	if join := joinFlag(s, m, apart); join != "" {
		return "--fullrank " + join
	}
	return ""
}

// jointIn reports whether settings s give latent name a joint factor:
// full-rank, low-rank or banded, alone, in a group, or as all.
func jointIn(s sgvb.Settings, name string) bool {
	if jointFamily(s.Families[name]) || jointFamily(s.Families["all"]) {
		return true
	}
	for _, g := range s.FullRankGroups {
		if slices.Contains(g, name) || slices.Contains(g, "all") {
			return true
		}
	}
	return false
}

// centredHints returns advice for a fit whose Pareto k̂ raises the alarm
// (sgvb.ParetoAlarm, from k̂ and its weights' relative ESS relESS: q
// misses part of the posterior) while the model has a centred hierarchy
// (centredParams): neither a mean-field nor a full-rank normal q follows
// its funnel (eight schools centred: tau 5.7 ± 1.2 against NUTS's 3.6 ±
// 3.2); one hint naming every such param in declaration order, with the
// non-centred form of each, the explanation once; nil otherwise.
func centredHints(file *ast.File, info *check.Info, paretoK, relESS float64) []string {
	return centredHintsOf(centredParams(file, info), paretoK, relESS)
}

// centredHintsOf is centredHints on the params ps.
func centredHintsOf(ps []centredParam, paretoK, relESS float64) []string {
	if !sgvb.ParetoAlarm(paretoK, relESS) {
		return nil
	}
	switch len(ps) {
	case 0:
		return nil
	case 1:
		return []string{centredHint(ps[0])}
	}
	names, forms := make([]string, len(ps)), make([]string, len(ps))
	for i, p := range ps {
		names[i], forms[i] = p.lat.Name, p.lat.Name+": "+p.nonCentred()
	}
	return []string{fmt.Sprintf("%s have priors whose scales depend on params (centred hierarchies): "+
		"where the data say little about each element of one, its posterior is a funnel in its scale that a normal q cannot follow, and q's scales and those params may be far off; "+
		"the non-centred forms (%s) have no funnel but a curved ridge where the data pin each element down, and which fits better (with few groups either can) this fit cannot tell: %s",
		joinAnd(names), strings.Join(forms, "; "), compareForms("them", "scales"))}
}

// compareForms is the end of the centred and non-centred hints: fit the
// other form (other: "the centred form", "them") and how to read the two
// fits' ELBOs and scales (the hierarchies' scales, as named). A higher
// ELBO is a smaller KL(q‖p), which a q that shrinks the scales can win: a
// trial's hierarchical logit, non-centred, had the higher ELBO (−4166.1
// against −4203.75) with tau's elements up to 8× too small against NUTS,
// the centred fit's near it.
func compareForms(other, scales string) string {
	return fmt.Sprintf("fit %s too; the higher ELBO picks the q nearer the posterior in KL(q‖p), not the one whose scales are right (a q that shrinks them can win it), "+
		"so where the two forms' %s differ by much, trust neither fit's: gpp sample --against checks them (docs/inference.md, Centred hierarchies)", other, scales)
}

// centredHint is the hint of centredHints on one param p.
func centredHint(p centredParam) string {
	return fmt.Sprintf("%s that a normal q cannot follow, and q's %s and %s may be far off; "+
		"the non-centred form, %s, has no funnel but a curved ridge where the data pin each element down, and which of the two fits better (with few groups either can) this fit cannot tell: %s",
		p.funnel(), ast.FormatExpr(p.neckExpr()), p.lat.Name, p.nonCentred(), compareForms("the non-centred form", ast.FormatExpr(p.neckExpr())))
}

// Where a centred hierarchy's scale sits at the divergent iterations
// (divergenceHints): its values there are compared only from
// divEvidenceMin divergent iterations on, and the divergences are said to
// be in the funnel's neck when the median there is at most divNeckRank
// among all draws (of 5 divergent iterations picked at random, the median
// is so low about 1 time in 10).
const (
	divEvidenceMin = 5
	divNeckRank    = 0.25
)

// divergenceHints returns advice for a sample with divergent transitions
// after warm-up while the model has a centred hierarchy: one hint per
// such param (centredParams), in declaration order, with the non-centred
// form and, where the scale is a param or an element of one with constant
// indices, where the divergent iterations put it among all draws
// (divergenceEvidence), as bayesplot's mcmc_pairs shows with divergences
// marked; nil without divergences or such params.
func divergenceHints(file *ast.File, info *check.Info, sd *sampleDraws) []string {
	ndiv := 0
	for _, d := range sd.divergent {
		if d {
			ndiv++
		}
	}
	if ndiv == 0 {
		return nil
	}
	var hints []string
	for _, p := range centredParams(file, info) {
		scale := ast.FormatExpr(p.neckExpr())
		evidence := ""
		if e, name, ok := neckEvidence(info, sd, p.neckExpr()); ok {
			evidence = " " + e.describe(name)
		}
		hints = append(hints, fmt.Sprintf("%s, whose narrow neck at small %s the sampler's step size cannot enter without diverging.%s "+
			"The non-centred form, %s, removes the funnel (Stan User's Guide, Reparameterization); where the data pin each element down, the centred form samples better (docs/inference.md, Centred hierarchies)",
			p.funnel(), scale, evidence, p.nonCentred()))
	}
	return hints
}

// neckEvidence is divergenceEvidence for a funnel's neck: a scale that
// scaleColumn finds, or a vector param (a multivariate prior's sds,
// sd_school), whose element the divergences put lowest is named (as
// sd_school[1]); ok is false where neither gives evidence.
func neckEvidence(info *check.Info, sd *sampleDraws, neck ast.Expr) (e divEvidence, name string, ok bool) {
	if col := scaleColumn(info, sd.ds, neck); col != nil {
		e, ok = divergenceEvidence(col, sd.divergent)
		return e, ast.FormatExpr(neck), ok
	}
	id, isIdent := ast.Unparen(neck).(*ast.Ident)
	if !isIdent || info.Types[neck].Shape.Rank() != 1 {
		return e, "", false
	}
	for k := range info.Types[neck].Shape[0].N { // unknown size: no loop
		ix := &ast.IndexExpr{X: id, Indices: []ast.Expr{&ast.NumberLit{Value: float64(k), IsInt: true, Raw: fmt.Sprint(k)}}}
		col := scaleColumn(info, sd.ds, ix)
		if col == nil {
			continue
		}
		if ek, okk := divergenceEvidence(col, sd.divergent); okk && (!ok || ek.rank < e.rank) {
			e, name, ok = ek, fmt.Sprintf("%s[%d]", id.Name, k), true
		}
	}
	return e, name, ok
}

// scaleColumn returns the draws of a prior's scale where it is a param
// (scale) or an element of one with constant indices (scale[1]); nil for
// any other expression or a param the draws lack.
func scaleColumn(info *check.Info, ds *drawSet, scale ast.Expr) []float64 {
	id, ok := scale.(*ast.Ident)
	var idx []int
	if ix, isIndex := scale.(*ast.IndexExpr); isIndex {
		id, ok = ix.X.(*ast.Ident)
		for _, e := range ix.Indices {
			n, isNum := e.(*ast.NumberLit)
			if !isNum || !n.IsInt || n.Value < 0 {
				return nil
			}
			idx = append(idx, int(n.Value))
		}
	}
	if !ok {
		return nil
	}
	if sym := info.Uses[id]; sym == nil || sym.Kind != check.Param {
		return nil
	}
	for _, v := range ds.vars {
		if v.output || v.name != id.Name || len(idx) != len(v.shape) {
			continue
		}
		k := 0
		for i, n := range v.shape {
			if idx[i] >= n {
				return nil
			}
			k = k*n + idx[i]
		}
		if j := slices.Index(v.elems, k); j >= 0 {
			return ds.cols[v.first+j]
		}
	}
	return nil
}

// divEvidence is where the divergent iterations put a scale among all
// draws: the median of its n finite values at the divergent iterations,
// the median of all its finite values (as the summary's 50 %), and the
// share of those below the divergent median (ties counting half).
type divEvidence struct {
	n              int
	divMed, allMed float64
	rank           float64
}

// divergenceEvidence compares x at the divergent iterations with all of
// x's draws; ok is false when fewer than divEvidenceMin divergent draws
// are finite.
func divergenceEvidence(x []float64, divergent []bool) (divEvidence, bool) {
	var all, div []float64
	for d, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		all = append(all, v)
		if divergent[d] {
			div = append(div, v)
		}
	}
	if len(div) < divEvidenceMin {
		return divEvidence{}, false
	}
	slices.Sort(div)
	slices.Sort(all)
	e := divEvidence{n: len(div), divMed: nuts.Quantile(div, 0.5), allMed: nuts.Quantile(all, 0.5)}
	for _, v := range all {
		switch {
		case v < e.divMed:
			e.rank++
		case v == e.divMed:
			e.rank += 0.5
		}
	}
	e.rank /= float64(len(all))
	return e, true
}

// describe says where e puts the scale, named as written.
func (e divEvidence) describe(scale string) string {
	pc := int(math.Round(100 * e.rank))
	at := "its " + ordinal(pc) + " percentile"
	switch {
	case pc < 1:
		at = "below its 1st percentile"
	case pc > 99:
		at = "above its 99th percentile"
	}
	where := "the divergences are in the funnel's neck"
	if e.rank > divNeckRank {
		where = fmt.Sprintf("the divergences are not at small %s, and the funnel may not be what makes them", scale)
	}
	return fmt.Sprintf("The %d divergent iterations have %s's median %.3g against %.3g in all draws (%s): %s.", e.n, scale, e.divMed, e.allMed, at, where)
}

// ordinal writes n as an English ordinal: 1st, 2nd, 3rd, 4th, 11th, 21st.
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

package main

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// nonCentredParam is a param of a non-centred hierarchy, the mirror of
// centredParam: an unbounded real param z whose prior is Normal(0, 1)
// (normalPrior: declared or a ~ statement) and which the model
// multiplies by a scale that depends on params (tau * z, z .* tau, or an
// element by a scalar: s_op * zb[op]), as a
// let's value (let a = mu + tau * z) or inside a random walk's cumsum.
// Where the data pin each element of tau * z down, the posterior of z and
// the scale is a narrow curved ridge (z near (a − mu)/tau) that a
// mean-field q cannot follow, while the centred form is nearly normal.
type nonCentredParam struct {
	lat   *check.Latent
	stmt  *ast.TildeStmt // z's prior as a ~ statement, nil for a declared one
	loop  *ast.ForStmt   // the for loop around stmt, if any
	use   ast.Expr       // a product (*ast.BinaryExpr) or diag_post_multiply(z, v)
	scale ast.Expr       // the side of use that is not z
	let   *ast.LetStmt   // the top-level let whose value holds use, nil for none
	walk  bool           // use is inside cumsum(...)
	// elem is the element of z that use scales (s_op * zb[op]), nil
	// where use scales z itself.
	elem *ast.IndexExpr
	// matrix: use is z * M, M a square matrix of params that each row of
	// z multiplies (varying slopes' z * (diag(tau) * L)', matrixScaling),
	// or diag_post_multiply(z, v), which is z * diag(v).
	matrix bool
	// sd and chol are a matrix scaling's factor (diag(tau) * L)' taken
	// apart (cholTimesSD): tau, the hierarchy's scales, which the hint
	// names, and L; nil for none.
	sd, chol ast.Expr
	// local is a param of z's shape, other than z, that the scale reads
	// (through lets): a local scale per element, as a horseshoe's lambda or
	// R2-D2's phi, nil for none (localScale).
	local *check.Latent
	// centred is the centred form, written out where it can be
	// mechanically (nonCentredForm), else described.
	centred string
}

// nonCentredParams returns the model's non-centred params in declaration
// order (none for a nil info): each with its first use, in source order,
// scaled by an expression that is not data or constants alone.
func nonCentredParams(file *ast.File, info *check.Info) []nonCentredParam {
	if info == nil || file == nil {
		return nil
	}
	var out []nonCentredParam
	for _, lat := range info.Latents {
		stmt, loop, loc, scale, _, ok := normalPrior(file, info, lat)
		if !ok || !constIs(info, loc, 0) || !constIs(info, scale, 1) {
			continue
		}
		p := nonCentredParam{lat: lat, stmt: stmt, loop: loop}
		for _, s := range file.Stmts {
			if _, out := s.(*ast.OutputStmt); out {
				continue // no part of the density: a sign-identified output s * x
			}
			if p.use, p.scale, p.walk = scaledUse(s, lat.Symbol, info); p.use != nil {
				p.let, _ = s.(*ast.LetStmt)
				break
			}
		}
		if p.use == nil {
			continue
		}
		if lat.Dims.Rank() == 0 && info.Types[p.scale].Shape.Rank() > 0 {
			// a scalar that scales an array (sd_u * z_u[g], both
			// Normal(0, 1)) is the array's scale, not an innovation
			continue
		}
		b, bin := p.use.(*ast.BinaryExpr)
		p.matrix = !bin || !scalingOp(b, info)
		if t, ok := p.scale.(*ast.TransposeExpr); ok && p.matrix {
			p.sd, p.chol = cholTimesSD(ast.Unparen(t.X), info)
		}
		ast.Inspect(p.use, func(n ast.Node) bool {
			if ix, ok := n.(*ast.IndexExpr); ok && p.elem == nil && isZ(ix, lat.Symbol, info, true) {
				p.elem = ix
			}
			return p.elem == nil
		})
		p.local = localScale(info, lat, p.scale)
		p.centred = nonCentredForm(p, info)
		out = append(out, p)
	}
	return out
}

// scaledUse finds in n the first product scale * z or z * scale (* of
// a scalar scale or .*, z the identifier itself or, with a scalar scale,
// an element of it as s_op * zb[op]) whose scale is not data only, and
// whether it lies inside a call of cumsum; nil if none. A chain of such
// products is one (z .* sigma .* sqrt(phi * tau2)): scale is all its
// factors but z, built anew (so not in info.Types) where there are two or
// more.
func scaledUse(n ast.Node, z *check.Symbol, info *check.Info) (use, scale ast.Expr, walk bool) {
	var visit func(n ast.Node, inWalk bool)
	visit = func(n ast.Node, inWalk bool) {
		ast.Inspect(n, func(n ast.Node) bool {
			if use != nil {
				return false
			}
			switch e := n.(type) {
			case *ast.CallExpr:
				if f := info.Calls[e]; f != nil && f.Name == "cumsum" && !inWalk {
					for _, a := range e.Args {
						visit(a, true)
					}
					return false
				}
				if sc, ok := diagPostScaling(e, z, info); ok && !inWalk {
					use, scale = e, sc
					return false
				}
			case *ast.BinaryExpr:
				if sc, ok := scaling(e, z, info); ok {
					use, scale, walk = e, sc, inWalk
					return false
				}
				if sc, ok := matrixScaling(e, z, info); ok && !inWalk {
					use, scale = e, sc
					return false
				}
			}
			return true
		})
	}
	visit(n, false)
	return use, scale, walk
}

// localScale returns a param of z's shape with more than one element,
// other than z, that scale reads through lets, or nil: then each element
// of z has a scale of its own (a shrinkage prior: a horseshoe's
// tau * lambda_t, R2-D2's sigma .* sqrt(phi * tau2)), not one that a group
// of elements share, and the centred form is no known cure (a trial's
// horseshoe, p = 200: ELBO −399.6 centred against −230.5).
func localScale(info *check.Info, z *check.Latent, scale ast.Expr) *check.Latent {
	if z.Dims.Rank() == 0 || z.Dims.Rank() == 1 && z.Dims[0].Known() && z.Dims[0].N < 2 {
		return nil
	}
	var local *check.Latent
	info.VisitReads(scale, false, func(sym *check.Symbol) bool {
		if sym == z.Symbol {
			return false
		}
		for _, lat := range info.Latents {
			if lat.Symbol == sym && sameDims(lat.Dims, z.Dims) {
				local = lat
			}
		}
		return local != nil
	})
	return local
}

// scalingOp reports whether b scales one operand by the other: .*, or *
// with a scalar side (* of a matrix and a vector is a product, not a
// scaling: varying slopes' z * (diag(tau) * L)').
func scalingOp(b *ast.BinaryExpr, info *check.Info) bool {
	return b.Op == ast.EMul || b.Op == ast.Mul && (info.Types[b.X].Shape.Rank() == 0 || info.Types[b.Y].Shape.Rank() == 0)
}

// matrixScaling reports whether e is z * M, z the matrix param itself and
// M a square matrix that does not read z and is not data only, as
// varying slopes write their non-centred rows: z * (diag(tau) * L)'. Each
// row of z times M has the covariance M'M, the hierarchy's, scaled by
// params as tau * z is; with M.
func matrixScaling(e *ast.BinaryExpr, z *check.Symbol, info *check.Info) (ast.Expr, bool) {
	if e.Op != ast.Mul || info.Types[e.X].Shape.Rank() != 2 || info.Types[e.Y].Shape.Rank() != 2 {
		return nil, false
	}
	m := ast.Unparen(e.Y)
	if !isZ(ast.Unparen(e.X), z, info, false) || reads(info, m, z, false) || info.Types[e.Y].DataOnly ||
		!sameDims(info.Types[e].Shape, info.Types[e.X].Shape) {
		return nil, false
	}
	return m, true
}

// diagPostScaling reports whether e is diag_post_multiply(z, v), z the
// matrix param itself and v a vector that does not read z and is not
// data only: z * diag(v) written as a call, which multiplies z's rows by
// diag(v) as matrixScaling's z * M does; with diag(v), built anew (so not
// in info.Types).
func diagPostScaling(e *ast.CallExpr, z *check.Symbol, info *check.Info) (ast.Expr, bool) {
	if f := info.Calls[e]; f == nil || f.Name != "diag_post_multiply" || len(e.Args) != 2 {
		return nil, false
	}
	m, v := ast.Unparen(e.Args[0]), e.Args[1]
	if !isZ(m, z, info, false) || info.Types[m].Shape.Rank() != 2 || reads(info, v, z, false) || info.Types[v].DataOnly {
		return nil, false
	}
	return &ast.CallExpr{Fun: &ast.Ident{NamePos: e.Fun.NamePos, Name: "diag"}, Lparen: e.Lparen, Args: []ast.Expr{v}, Rparen: e.Rparen}, true
}

// scaling reports whether e, a chain of scalings (scalingOp) through
// parentheses, has z or an element of z as exactly one factor and a
// scale, the other factors, that does not read z and is not data only;
// with the scale.
func scaling(e *ast.BinaryExpr, z *check.Symbol, info *check.Info) (ast.Expr, bool) {
	if !scalingOp(e, info) {
		return nil, false
	}
	chain := map[*ast.BinaryExpr]bool{}
	var factors []ast.Expr
	var flatten func(x ast.Expr)
	flatten = func(x ast.Expr) {
		if b, ok := ast.Unparen(x).(*ast.BinaryExpr); ok && scalingOp(b, info) {
			chain[b] = true
			flatten(b.X)
			flatten(b.Y)
			return
		}
		factors = append(factors, ast.Unparen(x))
	}
	flatten(e)
	var leaf ast.Expr
	indexed, dataOnly, scalar := false, true, true
	for _, f := range factors {
		if isZ(f, z, info, false) {
			if leaf != nil {
				return nil, false
			}
			leaf = f
			continue
		}
		if isZ(f, z, info, true) {
			if leaf != nil {
				return nil, false
			}
			leaf, indexed = f, true
			continue
		}
		if reads(info, f, z, false) {
			return nil, false
		}
		t := info.Types[f]
		dataOnly = dataOnly && t.DataOnly
		scalar = scalar && t.Shape.Rank() == 0
	}
	if leaf == nil || dataOnly || indexed && !scalar {
		return nil, false
	}
	var drop func(x ast.Expr) ast.Expr
	drop = func(x ast.Expr) ast.Expr {
		u := ast.Unparen(x)
		if u == leaf {
			return nil
		}
		b, ok := u.(*ast.BinaryExpr)
		if !ok || !chain[b] {
			return x
		}
		l, r := drop(b.X), drop(b.Y)
		switch {
		case l == nil:
			return r
		case r == nil:
			return l
		}
		return &ast.BinaryExpr{X: l, OpPos: b.OpPos, Op: b.Op, Y: r}
	}
	return ast.Unparen(drop(e)), true
}

// isZ reports whether e is z itself (elem false) or an element of it
// (elem true: z[...], whose indices do not read z).
func isZ(e ast.Expr, z *check.Symbol, info *check.Info, elem bool) bool {
	if elem {
		ix, ok := e.(*ast.IndexExpr)
		if !ok {
			return false
		}
		for _, i := range ix.Indices {
			if reads(info, i, z, true) {
				return false
			}
		}
		e = ast.Unparen(ix.X)
	}
	id, ok := e.(*ast.Ident)
	return ok && info.Uses[id] == z
}

// reads reports whether e reads sym, itself or through lets (with
// indices, also in its index expressions' indices: check.Info.VisitReads):
// a scale computed from z (its sign, its norm) makes no hierarchy of z,
// nor a location that reads z a non-centred form (splitLoc).
func reads(info *check.Info, e ast.Expr, sym *check.Symbol, indices bool) bool {
	found := false
	info.VisitReads(e, indices, func(s *check.Symbol) bool {
		found = s == sym
		return found
	})
	return found
}

// splitLoc splits e, loc + use or use + loc (or use itself, loc nil),
// where use is the product of the non-centred param; ok is false for any
// other form or a loc that reads z.
func splitLoc(e ast.Expr, use ast.Expr, z *check.Symbol, info *check.Info) (loc ast.Expr, ok bool) {
	e = ast.Unparen(e)
	if e == use {
		return nil, true
	}
	b, isBin := e.(*ast.BinaryExpr)
	if !isBin || b.Op != ast.Add {
		return nil, false
	}
	switch use {
	case ast.Unparen(b.Y):
		loc = b.X
	case ast.Unparen(b.X):
		loc = b.Y
	default:
		return nil, false
	}
	return loc, !reads(info, loc, z, true)
}

// nonCentredForm writes p's centred form: for let a = loc + scale * z
// with a of z's shape, param a: TYPE ~ Normal(loc, scale) in place of z
// and the let; for the random walk let x = x0 + append_row(0,
// cumsum(loc + scale * z)), x0 a param with a declared prior, the walk x
// as a param with x[0] ~ x0's prior and x[1:] ~ Normal(x[:N-1] + loc,
// scale); in words for other walks and uses.
func nonCentredForm(p nonCentredParam, info *check.Info) string {
	z := p.lat.Name
	drop := fmt.Sprintf("param %s", z)
	if p.stmt != nil {
		drop += fmt.Sprintf(" (and the statement at %d:%d)", p.stmt.Pos().Line, p.stmt.Pos().Col)
	}
	locText := func(loc ast.Expr) string {
		if loc == nil {
			return "0"
		}
		return ast.FormatExpr(loc)
	}
	if p.matrix {
		return matrixCentredForm(p, info, drop)
	}
	if !p.walk {
		if p.let != nil {
			if loc, ok := splitLoc(p.let.Value, p.use, p.lat.Symbol, info); ok && sameDims(info.Types[p.let.Value].Shape, p.lat.Dims) {
				return fmt.Sprintf("param %s: %s ~ Normal(%s, %s) in place of %s and of the let at %d:%d (%s's uses unchanged)",
					p.let.Name.Name, ast.FormatType(p.lat.Decl.Type), locText(loc), ast.FormatExpr(p.scale), drop, p.let.Let.Line, p.let.Let.Col, p.let.Name.Name)
			}
		}
		if p.elem != nil { // s_op * zb[op]: zb_c[op] in its place
			c := z + "_c"
			ix := &ast.IndexExpr{X: &ast.Ident{Name: c}, Indices: p.elem.Indices}
			return fmt.Sprintf("param %s: %s ~ Normal(0, %s) in place of %s, and %s in place of %s",
				c, ast.FormatType(p.lat.Decl.Type), ast.FormatExpr(p.scale), drop, ast.FormatExpr(ix), ast.FormatExpr(p.use))
		}
		return fmt.Sprintf("a param of %s's shape with the prior Normal(0, %s) in place of %s", z, ast.FormatExpr(p.scale), ast.FormatExpr(p.use))
	}
	if p.let != nil {
		if form, ok := centredWalk(p, info, drop); ok {
			return form
		}
	}
	return fmt.Sprintf("the walk itself as a param, whose first element has a prior of its own and each later one the prior Normal(the one before plus the step's mean, %s), in place of %s and the cumsum", ast.FormatExpr(p.scale), drop)
}

// matrixCentredForm writes the centred form of a matrix scaling z * M
// (p.matrix): for let theta = loc + z * X' with X a Cholesky factor
// times sds, diag(tau) * L or diag_pre_multiply(tau, L), L a
// cholesky_factor_corr or _cov param, and loc 0, a scalar or a vector's
// transpose mu', the param theta ~ MvNormalCholesky(mu, X) in place of z
// and the let; otherwise in words, the rows' prior MvNormal(0, M' * M).
func matrixCentredForm(p nonCentredParam, info *check.Info, drop string) string {
	m := p.scale
	t, isT := m.(*ast.TransposeExpr)
	if p.sd != nil && p.let != nil && sameDims(info.Types[p.let.Value].Shape, p.lat.Dims) {
		if loc, ok := splitLoc(p.let.Value, p.use, p.lat.Symbol, info); ok {
			mu := "0"
			if loc != nil {
				loc = ast.Unparen(loc)
				switch lt, locT := loc.(*ast.TransposeExpr); {
				case locT && info.Types[lt.X].Shape.Rank() == 1:
					mu = ast.FormatExpr(lt.X)
				case info.Types[loc].Shape.Rank() == 0:
					mu = ast.FormatExpr(loc)
				default:
					mu = ""
				}
			}
			if mu != "" {
				return fmt.Sprintf("param %s: %s ~ MvNormalCholesky(%s, diag_pre_multiply(%s, %s)) in place of %s and of the let at %d:%d (%s's uses unchanged)",
					p.let.Name.Name, ast.FormatType(p.lat.Decl.Type), mu, ast.FormatExpr(p.sd), ast.FormatExpr(p.chol), drop, p.let.Let.Line, p.let.Let.Col, p.let.Name.Name)
			}
		}
	}
	wrap := func(e ast.Expr) string {
		x := ast.FormatExpr(e)
		if strings.ContainsRune(x, ' ') {
			x = "(" + x + ")"
		}
		return x
	}
	cov := wrap(m) + "' * " + wrap(m) // M'M
	if isT {                          // X X'
		cov = wrap(ast.Unparen(t.X)) + " * " + wrap(ast.Unparen(t.X)) + "'"
	}
	return fmt.Sprintf("a param of %s's shape whose rows have the prior MvNormal(0, %s) in place of %s", p.lat.Name, cov, ast.FormatExpr(p.use))
}

// cholTimesSD returns sd and L where x is diag(sd) * L or
// diag_pre_multiply(sd, L), sd a positive vector param and L a param
// declared cholesky_factor_corr or cholesky_factor_cov: a lower-triangular
// factor with a positive diagonal, as MvNormalCholesky takes and
// mvCentred finds written diag_pre_multiply(sd, L); nils otherwise.
func cholTimesSD(x ast.Expr, info *check.Info) (sd, l ast.Expr) {
	switch x := x.(type) {
	case *ast.CallExpr:
		if x.Fun.Name != "diag_pre_multiply" || len(x.Args) != 2 {
			return nil, nil
		}
		sd, l = x.Args[0], x.Args[1]
	case *ast.BinaryExpr:
		d, ok := ast.Unparen(x.X).(*ast.CallExpr)
		if x.Op != ast.Mul || !ok || d.Fun.Name != "diag" || len(d.Args) != 1 {
			return nil, nil
		}
		sd, l = d.Args[0], x.Y
	default:
		return nil, nil
	}
	id, ok := ast.Unparen(l).(*ast.Ident)
	sid, sok := ast.Unparen(sd).(*ast.Ident)
	if !ok || !sok || info.Types[sd].Shape.Rank() != 1 || info.Uses[id] == nil || info.Uses[sid] == nil {
		return nil, nil
	}
	chol, pos := false, false
	for _, lat := range info.Latents {
		chol = chol || lat.Symbol == info.Uses[id] && (lat.Support == dist.CholCorr || lat.Support == dist.CholCov)
		pos = pos || lat.Symbol == info.Uses[sid] && lat.Support == dist.Positive
	}
	if !chol || !pos {
		return nil, nil
	}
	return sid, id
}

// centredWalk writes the centred random walk for p's let x = x0 +
// append_row(0, cumsum(loc + scale * z)) (or the sum the other way
// round), x0 a scalar param with a declared prior.
func centredWalk(p nonCentredParam, info *check.Info, drop string) (string, bool) {
	b, ok := ast.Unparen(p.let.Value).(*ast.BinaryExpr)
	if !ok || b.Op != ast.Add {
		return "", false
	}
	for _, side := range [2][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		id, isIdent := ast.Unparen(side[0]).(*ast.Ident)
		app, isCall := ast.Unparen(side[1]).(*ast.CallExpr)
		if !isIdent || !isCall || info.Calls[app] == nil || info.Calls[app].Name != "append_row" || len(app.Args) != 2 || !constIs(info, app.Args[0], 0) {
			continue
		}
		sym := info.Uses[id]
		var x0 *check.Latent
		for _, lat := range info.Latents {
			if lat.Symbol == sym && sym != nil && lat.Prior != nil && lat.Dims.Rank() == 0 {
				x0 = lat
			}
		}
		cs, isCall := ast.Unparen(app.Args[1]).(*ast.CallExpr)
		if x0 == nil || !isCall || info.Calls[cs] == nil || info.Calls[cs].Name != "cumsum" || len(cs.Args) != 1 {
			continue
		}
		loc, ok := splitLoc(cs.Args[0], p.use, p.lat.Symbol, info)
		sh := info.Types[p.let.Value].Shape
		if !ok || sh.Rank() != 1 {
			continue
		}
		n := sh[0]
		var size, last string
		switch {
		case n.Known():
			size, last = fmt.Sprint(n.N), fmt.Sprint(n.N-1)
		case isName(n.Name): // a derived size may simplify to one (T-1 + 1)
			size, last = n.Name, n.Name+"-1"
		default:
			continue
		}
		x := p.let.Name.Name
		mean := fmt.Sprintf("%s[:%s]", x, last)
		if loc != nil {
			mean += " + " + ast.FormatExpr(loc)
		}
		return fmt.Sprintf("param %s: real[%s] with %s[0] ~ %s and %s[1:] ~ Normal(%s, %s) in place of %s, param %s and the let at %d:%d (%s's uses unchanged)",
			x, size, x, ast.FormatExpr(x0.Prior), x, mean, ast.FormatExpr(p.scale), drop, x0.Name, p.let.Let.Line, p.let.Let.Col, x), true
	}
	return "", false
}

// sameDims reports whether two shapes have the same sizes (sameDim).
func sameDims(a, b check.Shape) bool {
	if a.Rank() != b.Rank() {
		return false
	}
	for i := range a {
		if !sameDim(a[i], b[i]) {
			return false
		}
	}
	return true
}

// nonCentredHints returns advice for a mean-field SGVB fit (meanField)
// whose Pareto k̂ raises the alarm (sgvb.ParetoAlarm) while the model has
// a non-centred param (nonCentredParams): one hint per kind (hierarchies,
// then random walks), naming its params in declaration order with the
// centred form of each, the explanation once (an MRP model's four crossed
// effects printed four ~600-character hints, each repeating it); nil
// otherwise. It advises fitting both forms, not switching: which fits
// better it cannot know (eight schools: the non-centred; a trial's gauge
// R&R, 3 operators, the centred, ELBO −14.86 against −17.02). Params
// with a local scale per element (localScale) get none.
func nonCentredHints(s sgvb.Settings, file *ast.File, info *check.Info, paretoK, relESS float64) []string {
	return nonCentredHintsOf(s, nonCentredParams(file, info), paretoK, relESS)
}

// nonCentredHintsOf is nonCentredHints on the params ps.
func nonCentredHintsOf(s sgvb.Settings, ps []nonCentredParam, paretoK, relESS float64) []string {
	if !meanField(s) || !sgvb.ParetoAlarm(paretoK, relESS) {
		return nil
	}
	var hier, walks []nonCentredParam
	for _, p := range ps {
		if p.local != nil {
			continue // a shrinkage prior's local scales: no hierarchy to centre
		}
		if p.walk {
			walks = append(walks, p)
		} else {
			hier = append(hier, p)
		}
	}
	var hints []string
	for _, ps := range [][]nonCentredParam{hier, walks} {
		switch {
		case len(ps) == 1:
			hints = append(hints, nonCentredHint(ps[0]))
		case len(ps) > 1:
			hints = append(hints, nonCentredHintOf(ps))
		}
	}
	return hints
}

// nonCentredKind names p's kind, a non-centred hierarchy or random walk,
// one (a NAME) or many (NAMEs).
func nonCentredKind(p nonCentredParam, many bool) string {
	switch {
	case p.walk && many:
		return "non-centred random walks"
	case p.walk:
		return "a non-centred random walk"
	case many:
		return "non-centred hierarchies"
	}
	return "a non-centred hierarchy"
}

// pinned names what the data pin down in p's hint: its let, else the
// product that scales it.
func (p nonCentredParam) pinned() string {
	if p.let != nil {
		return p.let.Name.Name
	}
	return ast.FormatExpr(p.use)
}

// nonCentredHint is the hint of nonCentredHints on one param p.
func nonCentredHint(p nonCentredParam) string {
	z := p.lat.Name
	where := ""
	if p.let != nil {
		where = fmt.Sprintf(" in the let %s at %d:%d", p.let.Name.Name, p.let.Let.Line, p.let.Let.Col)
	}
	scale := ast.FormatExpr(p.scale)
	scales := fmt.Sprintf("scales %s by %s, a scale", z, scale)
	if p.matrix {
		scales = fmt.Sprintf("multiplies %s's rows by %s, a matrix", z, scale)
	}
	if p.sd != nil { // name the sds, not the factor
		scale = ast.FormatExpr(p.sd)
	}
	return fmt.Sprintf("%s's prior%s and %s%s, which %s that depends on params, make %s: "+
		"where the data pin each element of %s down, the posterior of %s and %s is a narrow curved ridge that a mean-field q cannot follow, and q's %s and %s may be far off; "+
		"the centred form, %s, has no such ridge but a funnel where the data say little about each element, and which of the two fits better (with few groups either can) this fit cannot tell: %s",
		z, priorPhrase(p.lat, p.stmt, p.loop), ast.FormatExpr(p.use), where, scales, nonCentredKind(p, false),
		p.pinned(), z, scale, scale, z, p.centred, compareForms("the centred form", scale))
}

// nonCentredHintOf is the hint of nonCentredHints on params ps of one
// kind, two or more: their names, then the centred form of each after
// what it replaces, "(X's uses unchanged)" said once.
func nonCentredHintOf(ps []nonCentredParam) string {
	names, pinned, forms := make([]string, len(ps)), make([]string, len(ps)), make([]string, len(ps))
	kept := false // some form keeps its let's uses
	for i, p := range ps {
		names[i], pinned[i] = p.lat.Name, p.pinned()
		form := p.centred
		if p.let != nil {
			cut := strings.TrimSuffix(form, fmt.Sprintf(" (%s's uses unchanged)", p.let.Name.Name))
			kept = kept || cut != form
			form = cut
		}
		forms[i] = pinned[i] + ": " + form
	}
	uses := ""
	if kept {
		uses = "; each let's uses unchanged"
	}
	return fmt.Sprintf("%s, each with the prior Normal(0, 1) and scaled by a scale that depends on params, make %s: "+
		"where the data pin each element of %s down, the posterior of its param and scale is a narrow curved ridge that a mean-field q cannot follow, and q's scales and params may be far off; "+
		"the centred forms (%s%s) have no such ridge but a funnel where the data say little about each element, and which fits better (with few groups either can) this fit cannot tell: %s",
		joinAnd(names), nonCentredKind(ps[0], true), joinOr(pinned), strings.Join(forms, "; "), uses, compareForms("them", "scales"))
}

// joinOr joins items as "a, b or c".
func joinOr(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// isName reports whether s is an identifier.
func isName(s string) bool {
	for i, r := range s {
		if r != '_' && !unicode.IsLetter(r) && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return s != ""
}

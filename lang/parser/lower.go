package parser

import (
	"math"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gpplang/gpp/lang/ast"
)

// lowerer turns grammar structs into ast nodes, reporting the few syntax
// errors the grammar does not express: a number out of range, an empty index
// x[], a duplicate bound, and a declaration inside a for or if body.
type lowerer struct {
	errs *ast.ErrorList
}

func astPos(p lexer.Position) ast.Pos {
	return ast.Pos{File: p.Filename, Line: p.Line, Col: p.Column}
}

// tokEnd is the position just after t.
func tokEnd(t lexer.Token) ast.Pos {
	return astPos(t.Pos).Add(len(t.Value))
}

// stmt lowers s; body is "" at the top level, else the kind of the
// innermost enclosing body ("for" or "if").
func (l *lowerer) stmt(s *stmt, body string) ast.Stmt {
	topLevelOnly := func(what string, pos lexer.Position) {
		if body != "" {
			l.errs.Add(astPos(pos), "%s is only allowed at the top level, not in %s body", what, ast.Article(body))
		}
	}
	switch {
	case s.Data != nil:
		topLevelOnly("a data declaration", s.Data.Pos)
		return &ast.DataDecl{Data: astPos(s.Data.Pos), Name: l.ident(s.Data.Name), Type: l.typeExpr(s.Data.Type)}
	case s.Const != nil:
		topLevelOnly("a const declaration", s.Const.Pos)
		d := &ast.ConstDecl{Const: astPos(s.Const.Pos), Name: l.ident(s.Const.Name), Value: l.expr(s.Const.Value)}
		if s.Const.Type != nil {
			d.Type = l.typeExpr(s.Const.Type)
		}
		return d
	case s.Param != nil:
		topLevelOnly("a param declaration", s.Param.Pos)
		d := &ast.ParamDecl{Param: astPos(s.Param.Pos), Name: l.ident(s.Param.Name), Type: l.typeExpr(s.Param.Type)}
		if s.Param.Prior != nil {
			d.Prior = l.dist(s.Param.Prior)
		}
		if t := s.Param.Trunc; t != nil {
			l.errs.Add(astPos(t.T.Pos), "T[...] truncates data; a param is truncated by its declared bounds: write param %s: real<lower=L, upper=U> (or either one)", d.Name.Name)
		}
		return d
	case s.Let != nil:
		return &ast.LetStmt{Let: astPos(s.Let.Pos), Name: l.ident(s.Let.Name), Value: l.expr(s.Let.Value)}
	case s.Target != nil:
		op := ast.Add
		if s.Target.Op.Value == "-=" {
			op = ast.Sub
		}
		return &ast.TargetStmt{Target: astPos(s.Target.Pos), OpPos: astPos(s.Target.Op.Pos), Op: op, Value: l.expr(s.Target.Value)}
	case s.For != nil:
		f := s.For
		return &ast.ForStmt{
			For: astPos(f.Pos), Var: l.ident(f.Var), Lo: l.expr(f.Lo), Hi: l.expr(f.Hi),
			Lbrace: astPos(f.Lbrace.Pos), Body: l.body(f.Body, "for"), Rbrace: astPos(f.Rbrace.Pos),
		}
	case s.If != nil:
		return l.ifStmt(s.If)
	case s.Output != nil:
		if body == "for" {
			l.errs.Add(astPos(s.Output.Pos), "an output statement is only allowed at the top level, not in a for body; %s", outputWhole(s.Output.Name.Name))
		} else {
			topLevelOnly("an output statement", s.Output.Pos)
		}
		o := &ast.OutputStmt{Output: astPos(s.Output.Pos), Name: l.ident(s.Output.Name)}
		if s.Output.Value != nil {
			o.Value = l.expr(s.Output.Value)
		}
		if s.Output.Dist != nil {
			o.Tilde, o.Dist = astPos(s.Output.Tilde.Pos), l.dist(s.Output.Dist)
			o.Trunc = l.trunc(s.Output.Trunc)
		}
		return o
	case s.Fn != nil:
		topLevelOnly("a function declaration", s.Fn.Pos)
		return l.fnDecl(s.Fn)
	case s.Tilde != nil:
		return &ast.TildeStmt{LHS: l.expr(s.Tilde.LHS), Tilde: astPos(s.Tilde.Tilde.Pos), Dist: l.dist(s.Tilde.Dist), Trunc: l.trunc(s.Tilde.Trunc)}
	}
	panic("parser: empty statement")
}

func (l *lowerer) fnDecl(f *fnDecl) *ast.FnDecl {
	d := &ast.FnDecl{Fn: astPos(f.Pos), Name: l.ident(f.Name), Lparen: astPos(f.Lparen.Pos), Rparen: astPos(f.Rparen.Pos)}
	for _, p := range f.Params {
		d.Params = append(d.Params, l.ident(p))
	}
	if f.Eq != nil {
		d.Return, d.Body = astPos(f.Eq.Pos), l.expr(f.Value)
		return d
	}
	d.Lbrace, d.Rbrace = astPos(f.Lbrace.Pos), astPos(f.Rbrace.Pos)
	for _, s := range f.Lets {
		d.Lets = append(d.Lets, &ast.LetStmt{Let: astPos(s.Pos), Name: l.ident(s.Name), Value: l.expr(s.Value)})
	}
	d.Return, d.Body = astPos(f.Return.Pos), l.expr(f.Body)
	return d
}

func (l *lowerer) body(ss []*stmt, kind string) []ast.Stmt {
	out := make([]ast.Stmt, 0, len(ss))
	for _, b := range ss {
		out = append(out, l.stmt(b, kind))
	}
	return out
}

// ifStmt flattens an if and its chain of else-ifs into one IfStmt.
func (l *lowerer) ifStmt(s *ifStmt) *ast.IfStmt {
	out := &ast.IfStmt{}
	var elsePos ast.Pos
	for {
		out.Branches = append(out.Branches, &ast.IfBranch{
			Else: elsePos, If: astPos(s.Pos), Cond: l.expr(s.Cond),
			Body: &ast.Block{Lbrace: astPos(s.Lbrace.Pos), Stmts: l.body(s.Body, "if"), Rbrace: astPos(s.Rbrace.Pos)},
		})
		e := s.Else
		if e == nil {
			return out
		}
		if e.If == nil {
			out.Else = astPos(e.Else.Pos)
			out.ElseBody = &ast.Block{Lbrace: astPos(e.Lbrace.Pos), Stmts: l.body(e.Body, "if"), Rbrace: astPos(e.Rbrace.Pos)}
			return out
		}
		elsePos, s = astPos(e.Else.Pos), e.If
	}
}

func (l *lowerer) ident(id *ident) *ast.Ident {
	return &ast.Ident{NamePos: astPos(id.Pos), Name: id.Name}
}

var kinds = map[string]ast.ElemKind{
	"int": ast.Int, "real": ast.Real, "positive": ast.Positive, "unit": ast.Unit, "simplex": ast.Simplex, "ordered": ast.Ordered,
	"cholesky_factor_corr": ast.CholCorr, "positive_ordered": ast.PositiveOrdered, "corr_matrix": ast.CorrMatrix,
	"cholesky_factor_cov": ast.CholCov, "cov_matrix": ast.CovMatrix, "sum_to_zero_vector": ast.SumToZero,
	"sum_to_zero_matrix": ast.SumToZeroMatrix,
}

func (l *lowerer) typeExpr(t *typeExpr) *ast.TypeExpr {
	out := &ast.TypeExpr{KindPos: astPos(t.Pos), Kind: kinds[t.Kind], EndPos: tokEnd(t.Tokens[len(t.Tokens)-1])}
	for _, b := range t.Bounds {
		v := l.arith(b.Value)
		slot := &out.Lower
		if b.Which == "upper" {
			slot = &out.Upper
		}
		if *slot != nil {
			l.errs.Add(astPos(b.Pos), "duplicate %s bound", b.Which)
			continue
		}
		*slot = v
	}
	for _, d := range t.Dims {
		out.Dims = append(out.Dims, l.expr(d))
	}
	return out
}

// trunc lowers T[L, U], or returns nil for a nil t.
func (l *lowerer) trunc(t *trunc) *ast.Truncation {
	if t == nil {
		return nil
	}
	out := &ast.Truncation{T: astPos(t.T.Pos), Lbrack: astPos(t.Lbrack.Pos), Comma: astPos(t.Comma.Pos), Rbrack: astPos(t.Rbrack.Pos)}
	if t.Lower != nil {
		out.Lower = l.expr(t.Lower)
	}
	if t.Upper != nil {
		out.Upper = l.expr(t.Upper)
	}
	return out
}

func (l *lowerer) dist(d *dist) *ast.CallExpr {
	return l.call(d.Fun, d.Args)
}

func (l *lowerer) call(fun *ident, a *args) *ast.CallExpr {
	c := &ast.CallExpr{Fun: l.ident(fun), Lparen: astPos(a.Lparen.Pos), Rparen: astPos(a.Rparen.Pos)}
	for _, e := range a.List {
		c.Args = append(c.Args, l.expr(e))
	}
	return c
}

var binaryOps = map[string]ast.Op{
	"+": ast.Add, "-": ast.Sub, "*": ast.Mul, ".*": ast.EMul, "/": ast.Div, "%": ast.Mod, "%/%": ast.IntDiv, "^": ast.Pow,
	"<": ast.Lt, "<=": ast.Le, ">": ast.Gt, ">=": ast.Ge, "==": ast.Eq, "!=": ast.Ne, "&&": ast.And, "||": ast.Or,
}

// leftFold joins x and the operands of rest left to right, each by its
// operator token (binaryOps): one left-associative level of the precedence
// table (language.md §4).
func leftFold[R any](x ast.Expr, rest []R, part func(R) (lexer.Token, ast.Expr)) ast.Expr {
	start := x.Pos()
	for _, r := range rest {
		op, y := part(r)
		x = &ast.BinaryExpr{X: x, OpPos: astPos(op.Pos), Op: binaryOps[op.Value], Y: y, Start: start}
	}
	return x
}

func (l *lowerer) expr(e *expr) ast.Expr {
	return leftFold(l.andExpr(e.X), e.Rest, func(r *orOp) (lexer.Token, ast.Expr) { return r.Op, l.andExpr(r.Y) })
}

func (l *lowerer) andExpr(e *andExpr) ast.Expr {
	return leftFold(l.cmpExpr(e.X), e.Rest, func(r *andOp) (lexer.Token, ast.Expr) { return r.Op, l.cmpExpr(r.Y) })
}

func (l *lowerer) cmpExpr(e *cmpExpr) ast.Expr {
	x := l.arith(e.X)
	if e.Op == nil {
		return x
	}
	return &ast.BinaryExpr{X: x, OpPos: astPos(e.Op.Pos), Op: binaryOps[e.Op.Value], Y: l.arith(e.Y), Start: x.Pos()}
}

func (l *lowerer) arith(e *arith) ast.Expr {
	return leftFold(l.product(e.X), e.Rest, func(r *addOp) (lexer.Token, ast.Expr) { return r.Op, l.product(r.Y) })
}

func (l *lowerer) product(p *product) ast.Expr {
	return leftFold(l.unary(p.X), p.Rest, func(r *mulOp) (lexer.Token, ast.Expr) { return r.Op, l.unary(r.Y) })
}

func (l *lowerer) unary(u *unary) ast.Expr {
	if u.Neg != nil {
		op := ast.Neg
		if u.Neg.Op.Value == "!" {
			op = ast.Not
		}
		return &ast.UnaryExpr{OpPos: astPos(u.Neg.Op.Pos), Op: op, X: l.unary(u.Neg.X)}
	}
	p := u.Power
	x := l.postfix(p.X)
	if p.Op != nil {
		x = &ast.BinaryExpr{X: x, OpPos: astPos(p.Op.Pos), Op: ast.Pow, Y: l.unary(p.Y), Start: x.Pos()}
	}
	return x
}

func (l *lowerer) postfix(p *postfix) ast.Expr {
	x := l.operand(p.X)
	for _, op := range p.Ops {
		if op.Index == nil {
			x = &ast.TransposeExpr{X: x, Quote: astPos(op.Quote.Pos)}
			continue
		}
		ix := &ast.IndexExpr{X: x, Lbrack: astPos(op.Index.Lbrack.Pos), Rbrack: astPos(op.Index.Rbrack.Pos)}
		items := op.Index.Items
		if len(items) == 1 && items[0].Lo == nil && items[0].Colon == nil {
			l.errs.Add(ix.Rbrack, `expected an index after "[", found "]"`)
		}
		for _, it := range items {
			ix.Indices = append(ix.Indices, l.indexItem(it))
		}
		x = ix
	}
	return x
}

func (l *lowerer) indexItem(it *indexItem) ast.Expr {
	if it.Colon == nil && it.Lo != nil {
		return l.expr(it.Lo)
	}
	s := &ast.SliceExpr{Colon: astPos(it.Pos)} // an empty position
	if it.Colon != nil {
		s.Colon = astPos(it.Colon.Pos)
	}
	if it.Lo != nil {
		s.Lo = l.expr(it.Lo)
	}
	if it.Hi != nil {
		s.Hi = l.expr(it.Hi)
	}
	return s
}

func (l *lowerer) operand(o *operand) ast.Expr {
	switch {
	case o.Number != nil:
		return l.number(o.Number)
	case o.Name != nil:
		if o.Name.Args != nil {
			return l.call(o.Name.Ident, o.Name.Args)
		}
		return l.ident(o.Name.Ident)
	case o.Vector != nil:
		v := &ast.VectorLit{Lbrack: astPos(o.Vector.Lbrack.Pos), Rbrack: astPos(o.Vector.Rbrack.Pos)}
		for _, e := range o.Vector.Elems {
			v.Elems = append(v.Elems, l.expr(e))
		}
		return v
	}
	return &ast.ParenExpr{Lparen: astPos(o.Paren.Lparen.Pos), X: l.expr(o.Paren.X), Rparen: astPos(o.Paren.Rparen.Pos)}
}

func (l *lowerer) number(n *number) *ast.NumberLit {
	lit := &ast.NumberLit{ValuePos: astPos(n.Pos), Raw: n.Raw, IsInt: !strings.ContainsAny(n.Raw, ".eE")}
	v, err := strconv.ParseFloat(n.Raw, 64)
	if err != nil && math.IsInf(v, 0) {
		l.errs.Add(lit.ValuePos, "number %s is out of range", n.Raw)
	} else if err != nil {
		l.errs.Add(lit.ValuePos, "malformed number %q", n.Raw) // not produced by the lexer
	}
	lit.Value = v
	return lit
}

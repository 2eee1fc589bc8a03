package check

import (
	"fmt"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// logMixTheta checks log_mix's theta (e, of type t), a probability in
// [0, 1] (0 and 1 allowed: lp2 or lp1 alone): a constant outside it, or
// a param declared with values outside it (`real`, where a trial's fit
// rolled back again and again and left 187 ELBO draws out), is an error,
// as a Normal's sigma declared real is. It reports whether e passes.
func (c *checker) logMixTheta(e ast.Expr, t Type) bool {
	x := ast.Unparen(e)
	if tr, ok := x.(*ast.TransposeExpr); ok {
		x = ast.Unparen(tr.X)
	}
	consts := []ast.Expr{x}
	if v, ok := x.(*ast.VectorLit); ok {
		consts = v.Elems
	}
	for _, el := range consts {
		if ct := c.info.Types[el]; ct.Const != nil && !(*ct.Const >= 0 && *ct.Const <= 1) {
			is := "`" + exprString(el) + "`"
			if v := fmt.Sprintf("%.6g", *ct.Const); v != exprString(el) {
				is += " is " + v + ","
			}
			c.errorf(el.Pos(), "log_mix expects a probability in [0, 1] as argument 1 (theta), the weight of lp1; %s outside it", is)
			return false
		}
	}
	id, ok := x.(*ast.Ident)
	if ix, isIndex := x.(*ast.IndexExpr); isIndex {
		id, ok = ast.Unparen(ix.X).(*ast.Ident)
	}
	if !ok {
		return true
	}
	sym := c.info.Uses[id]
	if sym == nil || sym.Kind != Param {
		return true
	}
	if lat := c.info.Latent(sym.Name); lat == nil || lat.DataBounds() || inUnitInterval(t) {
		return true
	}
	decl := "unit"
	if d, ok := sym.Decl.(*ast.ParamDecl); ok && d.Type != nil {
		dt := *d.Type
		dt.Kind, dt.Lower, dt.Upper = ast.Unit, nil, nil
		decl = ast.FormatType(&dt)
	}
	c.errorf(e.Pos(), "log_mix expects a probability in [0, 1] as argument 1 (theta), the weight of lp1; %s: declare it `param %s: %s` (or real<lower=0, upper=1>)",
		c.explain(e, dist.Unit), id.Name, decl)
	return false
}

// inUnitInterval reports whether every value of type t lies in [0, 1],
// by its support or its range.
func inUnitInterval(t Type) bool {
	switch t.Support {
	case dist.Unit, dist.Simplex, dist.Binary:
		return true
	}
	r := t.Range
	return r.Known && r.Lo >= 0 && r.Hi <= 1 // false for a NaN end
}

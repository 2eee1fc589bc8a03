package check

import (
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// The Wishart family (stdlib.DistWishart): Wishart and InvWishart on a
// cov_matrix[K] param, WishartCholesky and InvWishartCholesky on a
// cholesky_factor_cov[K] param, each written whole, or on data [K, K]
// (a likelihood, checked symmetric positive definite, or a factor with a
// positive diagonal, when the data load); nu a scalar > K − 1 and the
// scale matrix [K, K].

// wishartShape checks the value [K, K], the scale matrix [K, K] and, where
// nu and K are known at check time, nu > K − 1: a constant nu, or one
// that depends on params, whose range must lie above K − 1 (a param nu
// declared real<lower=K − 1>). A data nu is checked when the data load.
func (c *checker) wishartShape(call *ast.CallExpr, d *stdlib.Dist, vs Shape, args []Type, valPos ast.Pos, valName string) {
	if vs.Rank() != 2 || compareDims(vs[0], vs[1]) == dimDiffer {
		c.errorf(valPos, "%s models %s[K] param (K×K) or data [K, K]; %s is %s", d.Name, ast.Article(d.Support.String()), valName, vs.describe())
		return
	}
	k := moreInformative(vs[0], vs[1])
	ss, sName := args[1].Shape, d.Params[1].Name
	if compareDims(ss[0], k) == dimDiffer || compareDims(ss[1], k) == dimDiffer {
		c.errorf(call.Args[1].Pos(), "%s argument 2 (%s): `%s` is %s; for %s of shape %s it must be [%s, %s]",
			d.Name, sName, exprString(call.Args[1]), ss.String(), valName, vs.String(), k, k)
	}
	if !k.Known() {
		return
	}
	nu, lo := args[0], float64(k.N-1)
	switch {
	case nu.Const != nil:
		if !(*nu.Const > lo) {
			c.errorf(call.Args[0].Pos(), "%s argument 1 (nu): `%s` is %g; the degrees of freedom must be > K − 1 = %d", d.Name, exprString(call.Args[0]), *nu.Const, k.N-1)
		}
	case !nu.DataOnly:
		r := nu.Range
		if !r.Known {
			r = supportInterval(nu.Support)
		}
		if r = r.norm(); r.Lo < lo || r.Lo == lo && r.LoIn {
			c.errorf(call.Args[0].Pos(), "%s argument 1 (nu): `%s` takes values in %s, but the degrees of freedom must be > K − 1 = %d; declare it real<lower=%d>",
				d.Name, exprString(call.Args[0]), r, k.N-1, k.N-1)
		}
	}
}

// wishartValue checks the left side of a Wishart-family ~: the param of
// the family's support written whole, or data. It reports whether it is
// one.
func (c *checker) wishartValue(s *ast.TildeStmt, d *stdlib.Dist, lt Type, root *Latent, mentioned []*Latent) bool {
	if lt.Shape.Rank() != 2 {
		return false // wishartShape said so
	}
	if root != nil && root.Support == d.Support && c.isIdentOf(s.LHS, root) {
		return true
	}
	if len(mentioned) == 0 && lt.DataOnly {
		return true
	}
	param := "cov_matrix"
	if d.Support == dist.CholCov {
		param = "cholesky_factor_cov"
	}
	c.errorf(s.LHS.Pos(), "%[1]s models a %[2]s param, written whole (X ~ %[1]s(nu, %[3]s) after param X: %[2]s[K]), or data [K, K]; `%[4]s` is neither",
		d.Name, param, d.Params[1].Name, exprString(s.LHS))
	return false
}

// wishartPredictive checks the arguments of a Wishart-family replicate:
// the scale matrix square [K, K] and a constant nu > K − 1. The draw is a
// K×K matrix (a lower factor for the Cholesky forms).
func (c *checker) wishartPredictive(call *ast.CallExpr, d *stdlib.Dist, args []Type, t Type) Type {
	ss := args[1].Shape
	if compareDims(ss[0], ss[1]) == dimDiffer {
		c.errorf(call.Args[1].Pos(), "%s argument 2 (%s): `%s` is %s; it must be square [K, K]",
			d.Name, d.Params[1].Name, exprString(call.Args[1]), ss.String())
		return invalid
	}
	k := moreInformative(ss[0], ss[1])
	if nu := args[0].Const; nu != nil && k.Known() && !(*nu > float64(k.N-1)) {
		c.errorf(call.Args[0].Pos(), "%s argument 1 (nu): `%s` is %g; the degrees of freedom must be > K − 1 = %d", d.Name, exprString(call.Args[0]), *nu, k.N-1)
		return invalid
	}
	t.Support = dist.Real // entries of a matrix
	t.Shape = Shape{k, k}
	return t
}

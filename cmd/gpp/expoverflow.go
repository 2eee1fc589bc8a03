package main

import (
	"fmt"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
)

// expOverflowHint returns, for err an exp that overflowed to +Inf inside
// 1 + exp(z) (Stan's logistic 1 / (1 + exp(-z)) of a 4PL curve, or a
// softplus log(1 + exp(z))), the built-ins that compute those without the
// overflow, inv_logit and log1p_exp; "" elsewhere. exp(z) past z ≈ 709 is
// +Inf, and 1 / (1 + Inf) is 0 only in value: its gradient is NaN.
func expOverflowHint(err error, f *ast.File) string {
	list, ok := ast.Positioned(err)
	if !ok || f == nil || len(list) == 0 || !strings.HasPrefix(list[0].Msg, "exp: result is +Inf") {
		return ""
	}
	at := list[0].Pos
	var z ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		sum, ok := n.(*ast.BinaryExpr)
		if z != nil || !ok || sum.Op != ast.Add {
			return z == nil
		}
		for _, pair := range [][2]ast.Expr{{sum.X, sum.Y}, {sum.Y, sum.X}} {
			if c, ok := ast.Unparen(pair[1]).(*ast.CallExpr); ok && isOne(pair[0]) && c.Fun.Name == "exp" && len(c.Args) == 1 && c.Pos() == at {
				z = c.Args[0]
			}
		}
		return z == nil
	})
	if z == nil {
		return ""
	}
	zs := ast.FormatExpr(z)
	neg := "-(" + zs + ")"
	switch e := ast.Unparen(z).(type) {
	case *ast.Ident, *ast.NumberLit, *ast.CallExpr, *ast.IndexExpr: // -b, not -(b)
		neg = "-" + zs
	case *ast.UnaryExpr: // -z
		if e.Op == ast.Neg {
			neg = ast.FormatExpr(e.X)
		}
	case *ast.BinaryExpr: // -b * w, as Stan's 4PL writes it
		if u, ok := e.X.(*ast.UnaryExpr); ok && u.Op == ast.Neg && (e.Op == ast.Mul || e.Op == ast.Div) {
			neg = ast.FormatExpr(&ast.BinaryExpr{X: u.X, Op: e.Op, Y: e.Y})
		}
	}
	return fmt.Sprintf("exp(%s) overflows to +Inf in 1 + exp(%s) (past 709): write 1 / (1 + exp(%s)) as inv_logit(%s), and log(1 + exp(%s)) as log1p_exp(%s), which compute the same without overflow",
		zs, zs, zs, neg, zs, zs)
}

// isOne reports whether e is the literal 1.
func isOne(e ast.Expr) bool {
	l, ok := ast.Unparen(e).(*ast.NumberLit)
	return ok && l.Value == 1
}

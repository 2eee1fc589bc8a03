package check

import (
	"github.com/gpplang/gpp/lang/ast"
)

// matrixLogSumExps warns at `target += logsumexp(M)` of an [N, K] matrix M:
// one log-sum-exp over all of M's elements, where a mixture's log density is
// a log-sum-exp per row (an observation's K components) summed over the
// rows, sum(rowlogsumexp(M)). The two differ without any error (a
// Dawid–Skene model's class weights shrank to 0.37, 0.32, 0.31 from 0.5,
// 0.3, 0.2). A square table, both dims one size ([N, N]), is not warned
// about: its cells are the states of a joint discrete latent over pairs of
// one index (two changepoints s1 < s2), whose marginal is the log-sum-exp
// over all of them, and whose rows summed would be wrong.
func (c *checker) matrixLogSumExps() {
	ast.Inspect(c.file, func(n ast.Node) bool {
		s, ok := n.(*ast.TargetStmt)
		if !ok {
			return true
		}
		call, ok := ast.Unparen(s.Value).(*ast.CallExpr)
		if !ok || call.Fun.Name != "logsumexp" || len(call.Args) != 1 {
			return true
		}
		t, ok := c.info.Types[call.Args[0]]
		if !ok || len(t.Shape) != 2 || sameSize(t.Shape[0], t.Shape[1]) {
			return true
		}
		a := exprString(call.Args[0])
		c.info.Warnings = append(c.info.Warnings, ast.Errorf(call.Fun.NamePos,
			"`logsumexp(%s)` of a matrix is one log-sum-exp over all its elements, rows and columns together: right when the elements are the states of one discrete latent, but if the rows are observations and the columns their components (a mixture's [N, K] table), the log density is a log-sum-exp per row summed over the rows: target += sum(rowlogsumexp(%s))",
			a, a))
		return true
	})
}

// sameSize reports whether two dims are certainly one size: the same name,
// or, both unnamed, the same number.
func sameSize(a, b Dim) bool {
	if a.Name != "" || b.Name != "" {
		return a.Name == b.Name
	}
	return a.Known() && a.N == b.N
}

package check

import (
	"github.com/gpplang/gpp/lang/ast"
)

// matrixLogSumExps warns at `target += logsumexp(M)` of a matrix M: one
// log-sum-exp over all of M's elements, where a mixture's log density is a
// log-sum-exp per row (an observation's K components) summed over the rows,
// sum(rowlogsumexp(M)). The two differ without any error (a Dawid–Skene
// model's class weights shrank to 0.37, 0.32, 0.31 from 0.5, 0.3, 0.2), and
// a log-sum-exp over the observations as well as the components is no
// model's log density.
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
		if !ok || len(t.Shape) != 2 {
			return true
		}
		a := exprString(call.Args[0])
		c.info.Warnings = append(c.info.Warnings, ast.Errorf(call.Fun.NamePos,
			"`logsumexp(%s)` of a matrix is one log-sum-exp over all its elements, rows and columns together; a mixture's log density is a log-sum-exp per row (each observation's components) summed over the rows: target += sum(rowlogsumexp(%s))",
			a, a))
		return true
	})
}

package check

import "github.com/gpplang/gpp/lang/ast"

// LogLikOutput is the output that gpp fit reads as each observation's log
// likelihood for PSIS leave-one-out cross-validation, by Stan's convention
// (the loo package and ArviZ read a generated quantity of this name).
const LogLikOutput = "log_lik"

// logLik checks an output named log_lik by what PSIS-LOO will make of it:
// every element is one observation's log likelihood at a draw (a matrix's
// too, as ArviZ flattens the observation dims). An int
// is an error: a log density is real, so it is some other value under the
// convention's name. A scalar, most often a sum, is one observation of one:
// a warning, since the model is valid and only its LOO is meaningless; so is
// a replicate, which is a draw of data, not its log density.
func (c *checker) logLik(out *OutputVar) {
	if out.Name != LogLikOutput || !out.Type.Valid() {
		return
	}
	switch {
	case out.Stmt.Dist != nil:
		c.info.Warnings = append(c.info.Warnings, ast.Errorf(out.Pos,
			"output `log_lik ~ ...` draws a replicate, but gpp fit reads an output named log_lik as each observation's log likelihood for PSIS-LOO (Stan's convention): write output log_lik = logpdf(y, D(...)), or name the replicate otherwise (y_rep)"))
	case out.Type.Elem == Int:
		c.errorf(out.Pos, "output `log_lik` is int, but gpp fit reads an output named log_lik as each observation's log likelihood for PSIS-LOO (Stan's convention), which is real: write output log_lik = logpdf(y, D(...)), or give this output another name")
	case out.Type.Shape.Rank() == 0:
		c.info.Warnings = append(c.info.Warnings, ast.Errorf(out.Pos,
			"output `log_lik` is a scalar, but PSIS-LOO takes each element of log_lik as one observation's log likelihood, so it would leave out one observation of one: give it an element per observation, output log_lik = logpdf(y, D(...)) (elementwise), not its sum"))
	}
}

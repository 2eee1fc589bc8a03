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
// a replicate, which is a draw of data, not its log density. A scalar of
// hmm_marginal is pointed to the HMM's pointwise form, as an HMM has no
// logpdf(y, D(...)) per observation.
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
	case out.Type.Shape.Rank() == 0 && c.readsHMMMarginal(out.Value, 0):
		c.info.Warnings = append(c.info.Warnings, ast.Errorf(out.Pos,
			"output `log_lik` is hmm_marginal's log p(y), a scalar, but PSIS-LOO takes each element of log_lik as one observation's log likelihood, so it would leave out one observation of one (the whole series); an HMM's term per time step is log p(y_t | y_-t), from the smoothed state probabilities: let ps = hmm_hidden_state_prob(lo, A, rho), output log_lik = -rowlogsumexp(log(ps) - lo) (language.md, Hidden Markov models: LOO of an HMM)"))
	case out.Type.Shape.Rank() == 0:
		c.info.Warnings = append(c.info.Warnings, ast.Errorf(out.Pos,
			"output `log_lik` is a scalar, but PSIS-LOO takes each element of log_lik as one observation's log likelihood, so it would leave out one observation of one: give it an element per observation, output log_lik = logpdf(y, D(...)) (elementwise), not its sum"))
	}
}

// readsHMMMarginal reports whether e calls hmm_marginal, directly or
// through top-level lets (depth bounds the chain of lets followed).
func (c *checker) readsHMMMarginal(e ast.Expr, depth int) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			if f := c.info.Calls[x]; f != nil && f.Name == "hmm_marginal" {
				found = true
			}
		case *ast.Ident:
			if s := c.info.Uses[x]; s != nil && s.Kind == Let && depth < 8 {
				if l, ok := s.Decl.(*ast.LetStmt); ok && l.Value != nil {
					found = found || c.readsHMMMarginal(l.Value, depth+1)
				}
			}
		}
		return !found
	})
	return found
}

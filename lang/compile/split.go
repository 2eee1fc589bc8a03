package compile

// The log joint split into its log prior and its log likelihood, for
// power-scaling sensitivity (gpp sensitivity, after priorsense's
// powerscale_sensitivity): p(θ)^α p(y|θ) and p(θ) p(y|θ)^α reweight a
// posterior's draws by exp((α−1)·log p(θ)) and exp((α−1)·log p(y|θ)).
//
// The log prior is every term of a density whose left side is a param: a
// declaration's ~ D, a ~ on the whole param, on an element or a slice of
// it (theta[i] ~ Normal(mu, tau) in a loop) or on a let of params that
// reads no data, with a truncation's normaliser and an ordered param's
// sorting constant; and a target += that reads no data (a soft constraint
// or a hand-written prior on params). The log likelihood is every other
// term: each ~ whose left side reads data (the observed values, with their
// truncations and the missing values of data) and each target += that
// reads data. The log Jacobians of the coordinates (a bounded param's
// scale, a Cholesky factor's map) are in neither: a power-scaled posterior
// and its base share the coordinates, so they cancel in the weights; the
// two add up to the log joint less those terms.

import (
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
)

// Term parts of a split build (lowerer.part).
const (
	partJoint      = iota // not a split build: every term is kept
	partJacobian          // a coordinate map's log Jacobian: left out
	partPrior             // a term of the log prior
	partLikelihood        // a term of the log likelihood
)

// Split evaluates a model's log prior and log likelihood apart (see the
// top of split.go). It is not safe for concurrent use.
type Split struct {
	prog       *autodiff.Program
	prior, lik autodiff.ID
}

// NewSplit builds the split of m's log joint.
func (m *Model) NewSplit() (*Split, error) {
	prog, ids, err := m.build(buildSplit)
	if err != nil {
		return nil, err
	}
	return &Split{prog: prog, prior: ids[0], lik: ids[1]}, nil
}

// Eval returns the log prior and the log likelihood at coordinates x (as
// LogJoint takes them). A term that is not finite is an *ast.Error at its
// position, as LogJoint's.
func (s *Split) Eval(x []float64) (logPrior, logLik float64, err error) {
	if _, err := s.prog.Forward(x); err != nil {
		return 0, 0, err
	}
	return s.prog.Value(s.prior)[0], s.prog.Value(s.lik)[0], nil
}

// splitPart sets, in a split build, the part that the terms of statement s
// go to, and returns the function that restores the one before.
func (l *lowerer) splitPart(s ast.Stmt) (restore func()) {
	if l.part == partJoint {
		return func() {}
	}
	prev := l.part
	switch s := s.(type) {
	case *ast.ParamDecl:
		l.part = partPrior
	case *ast.TildeStmt:
		l.part = partLikelihood
		if l.priorLHS(s.LHS) {
			l.part = partPrior
		}
	case *ast.TargetStmt:
		l.part = partPrior
		if l.readsData(s.Value) {
			l.part = partLikelihood
		}
	}
	return func() { l.part = prev }
}

// priorLHS reports whether a ~ on lhs is a prior: lhs is a param, an
// element or slice of one (whatever its indices read), or a let of params
// that reads no data.
func (l *lowerer) priorLHS(lhs ast.Expr) bool {
	e := ast.Unparen(lhs)
	for {
		ix, ok := e.(*ast.IndexExpr)
		if !ok {
			break
		}
		e = ast.Unparen(ix.X)
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	sym := l.info.Uses[id]
	switch {
	case sym == nil:
		return false
	case sym.Kind == check.Param:
		return true
	case sym.Kind == check.Let:
		ls, ok := sym.Decl.(*ast.LetStmt)
		return ok && len(paramDeps(l.info, []ast.Expr{ls.Value})) > 0 && !l.readsData(ls.Value)
	}
	return false
}

// readsData reports whether e reads data (or a size bound from data),
// through the lets it reads.
func (l *lowerer) readsData(e ast.Expr) bool {
	seen := map[*check.Symbol]bool{}
	var reads func(e ast.Expr) bool
	reads = func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if found || !ok {
				return !found
			}
			sym := l.info.Uses[id]
			if sym == nil || seen[sym] {
				return true
			}
			seen[sym] = true
			switch sym.Kind {
			case check.Data, check.Size:
				found = true
			case check.Let:
				if ls, ok := sym.Decl.(*ast.LetStmt); ok && reads(ls.Value) {
					found = true
				}
			}
			return !found
		})
		return found
	}
	return reads(e)
}

package compile

// The log joint split into its log prior and its log likelihood, for
// power-scaling sensitivity (gpp sensitivity, after priorsense's
// powerscale_sensitivity): p(θ)^α p(y|θ) and p(θ) p(y|θ)^α reweight a
// posterior's draws by exp((α−1)·log p(θ)) and exp((α−1)·log p(y|θ)).
//
// The log prior is every term of a density whose left side is a param: a
// declaration's ~ D, a ~ on the whole param, on an element or a slice of
// it (theta[i] ~ Normal(mu, tau) in a loop) or on an expression or a let
// of params that reads no data (log(sigma) ~ D, sum(phi) ~ D), with a
// truncation's normaliser and an ordered param's sorting constant; a ~ on
// a constant whose distribution reads params and no data (the soft
// constraint 0 ~ Normal(sum(phi), 0.001 * N)); and a target += that reads
// no data (a soft constraint or a hand-written prior on params). The log
// likelihood is every other
// term: each ~ whose left side reads data (the observed values, with their
// truncations and the missing values of data) and each target += that
// reads data. The log Jacobians of the coordinates (a bounded param's
// scale, a Cholesky factor's map) are in neither: a power-scaled posterior
// and its base share the coordinates, so they cancel in the weights; the
// two add up to the log joint less those terms.

import (
	"fmt"
	"slices"
	"strings"

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

// Selection narrows a split to some of the prior's and the likelihood's
// terms, as priorsense's prior_selection and likelihood_selection do: nil
// keeps every term of that part. Prior names params: a prior term belongs
// to the params that its left side reads (a declaration's, the param of a
// ~ on it or on its elements), a target += of params to the params it
// reads. Likelihood names data: a term belongs to the data that the ~'s
// left side reads, a target += to the data it reads. A term of none of the
// names is in neither part (a power-scaled posterior keeps it as it is).
// In a hierarchical model, selecting the top-level params (mu and tau of
// theta ~ Normal(mu, tau)) power-scales only their priors, as brms's lprior
// does, leaving the population distribution of the group effects alone.
type Selection struct {
	Prior, Likelihood []string
}

// NewSplit builds the split of m's log joint, its parts narrowed to sel. A
// name of sel that no term of that part belongs to is an error.
func (m *Model) NewSplit(sel Selection) (*Split, error) {
	if err := m.checkSelection(sel); err != nil {
		return nil, err
	}
	prog, ids, _, err := m.buildSel(buildSplit, sel)
	if err != nil {
		return nil, err
	}
	return &Split{prog: prog, prior: ids[0], lik: ids[1]}, nil
}

// checkSelection reports a name of sel that no prior (Prior) or
// likelihood (Likelihood) term of m belongs to, with the names that some
// term does.
func (m *Model) checkSelection(sel Selection) error {
	if sel.Prior == nil && sel.Likelihood == nil {
		return nil
	}
	priors, liks := m.owners()
	for _, c := range []struct {
		flag, what  string
		names, have []string
	}{{"prior", "param with a prior term", sel.Prior, priors}, {"likelihood", "data name with a likelihood term", sel.Likelihood, liks}} {
		for _, n := range c.names {
			if !slices.Contains(c.have, n) {
				if len(c.have) == 0 {
					return fmt.Errorf("--%s %s: the model has no %s", c.flag, n, c.what)
				}
				return fmt.Errorf("--%s %s: not a %s (those are %s)", c.flag, n, c.what, strings.Join(c.have, ", "))
			}
		}
	}
	return nil
}

// PriorOwners returns the params that some prior term belongs to
// (Selection), in source order: the names a Selection's Prior may take.
func (m *Model) PriorOwners() []string {
	priors, _ := m.owners()
	return priors
}

// owners returns the names that m's prior and likelihood terms belong to,
// each once, in source order (collectOwners).
func (m *Model) owners() (priors, liks []string) {
	l := &lowerer{info: m.info}
	for _, s := range m.file.Stmts {
		l.collectOwners(s, &priors, &liks)
	}
	return priors, liks
}

// collectOwners adds to priors and liks the names that the prior and
// likelihood terms of statement s (and of the statements in its body)
// belong to, each once.
func (l *lowerer) collectOwners(s ast.Stmt, priors, liks *[]string) {
	add := func(dst *[]string, names []string) {
		for _, n := range names {
			if !slices.Contains(*dst, n) {
				*dst = append(*dst, n)
			}
		}
	}
	switch s := s.(type) {
	case *ast.ParamDecl, *ast.TildeStmt, *ast.TargetStmt:
		prior, names := l.owners(s)
		if prior {
			add(priors, names)
		} else {
			add(liks, names)
		}
	}
	ast.Inspect(s, func(n ast.Node) bool {
		if t, ok := n.(ast.Stmt); ok && t != s {
			l.collectOwners(t, priors, liks)
			return false
		}
		return true
	})
}

// owners returns whether statement s (a param declaration, a ~ or a
// target +=) gives terms to the prior, and the names they belong to
// (Selection).
func (l *lowerer) owners(s ast.Stmt) (prior bool, names []string) {
	switch s := s.(type) {
	case *ast.ParamDecl:
		if s.Prior == nil {
			return true, nil
		}
		return true, []string{s.Name.Name}
	case *ast.TildeStmt:
		if l.priorLHS(s.LHS) {
			return true, l.paramNames(s.LHS)
		}
		if len(paramDeps(l.info, []ast.Expr{s.LHS})) == 0 && !l.readsData(s.LHS) {
			// A constant on the left (0 ~ Normal(sum(phi), 0.001 * N), a
			// soft constraint written as an observation of 0): the
			// distribution's arguments decide, as a target +='s value.
			if l.readsData(s.Dist) {
				return false, l.dataNames(s.Dist)
			}
			if names := l.paramNames(s.Dist); len(names) > 0 {
				return true, names
			}
		}
		return false, l.dataNames(s.LHS)
	case *ast.TargetStmt:
		if l.readsData(s.Value) {
			return false, l.dataNames(s.Value)
		}
		return true, l.paramNames(s.Value)
	}
	return false, nil
}

// paramNames returns the names of the params that e reads, through lets.
func (l *lowerer) paramNames(e ast.Expr) []string {
	var out []string
	for _, i := range paramDeps(l.info, []ast.Expr{e}) {
		out = append(out, l.info.Latents[i].Name)
	}
	return out
}

// dataNames returns the names of the data that e reads, through lets.
func (l *lowerer) dataNames(e ast.Expr) []string {
	var out []string
	l.info.VisitReads(e, true, func(sym *check.Symbol) bool {
		if sym.Kind == check.Data && !slices.Contains(out, sym.Name) {
			out = append(out, sym.Name)
		}
		return false
	})
	return out
}

// selected reports whether a term of the names belongs to the selection
// list sel (nil: every term does).
func selected(sel, names []string) bool {
	if sel == nil {
		return true
	}
	for _, n := range names {
		if slices.Contains(sel, n) {
			return true
		}
	}
	return false
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
	switch s.(type) {
	case *ast.ParamDecl, *ast.TildeStmt, *ast.TargetStmt:
		prior, names := l.owners(s)
		switch {
		case prior && selected(l.sel.Prior, names):
			l.part = partPrior
		case !prior && selected(l.sel.Likelihood, names):
			l.part = partLikelihood
		default:
			l.part = partJacobian // not selected: in neither part
		}
	}
	return func() { l.part = prev }
}

// priorLHS reports whether a ~ on lhs is a prior: lhs is a param, an
// element or slice of one (whatever its indices read), or an expression
// or a let of params that reads no data (log(sigma) ~ Normal(0, 1), the
// soft constraint sum(phi) ~ Normal(0, 0.001 * N), whose arguments may).
func (l *lowerer) priorLHS(lhs ast.Expr) bool {
	e := ast.Unparen(lhs)
	for {
		ix, ok := e.(*ast.IndexExpr)
		if !ok {
			break
		}
		e = ast.Unparen(ix.X)
	}
	if id, ok := e.(*ast.Ident); ok {
		if sym := l.info.Uses[id]; sym != nil && sym.Kind == check.Param {
			return true
		}
	}
	return len(paramDeps(l.info, []ast.Expr{e})) > 0 && !l.readsData(e)
}

// readsData reports whether e reads data values, through the lets it
// reads. A size (N of data y: real[N]) is not one: it scales priors, as
// in the soft constraint target += logpdf(sum(phi), Normal(0, 0.001 * N)).
func (l *lowerer) readsData(e ast.Expr) bool {
	found := false
	l.info.VisitReads(e, true, func(sym *check.Symbol) bool {
		found = sym.Kind == check.Data
		return found
	})
	return found
}

package compile

import (
	"maps"
	"slices"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

// HeldOutLogLik returns the data, by name in order of reading, that the
// output log_lik reads as the value of a logpdf, logcdf or logccdf
// (directly or through the lets it reads) and that the model does not
// observe: no ~ on them and no target += or ~ on an expression reading
// them (observations). Such a log_lik scores held-out data (y_new of a
// calibration's new inputs), whose mean density over the draws is a
// held-out lppd and no PSIS-LOO, whose weights 1/p(y_i | θ) hold only for
// observations the likelihood has. nil when log_lik reads none, or the
// model has no log_lik.
func (m *Model) HeldOutLogLik() []string {
	if m.file == nil || m.info == nil {
		return nil
	}
	tildes, firstUse := observations(m.file, m.info)
	var names []string
	seen := map[*check.Symbol]bool{}
	type letWalk struct {
		sym   *check.Symbol
		value bool
	}
	lets := map[letWalk]bool{} // the lets walked, as value or not
	var visit func(e ast.Node, value bool)
	visit = func(e ast.Node, value bool) {
		ast.Inspect(e, func(n ast.Node) bool {
			if ix, ok := n.(*ast.IndexExpr); ok && value {
				// y_new[idx]: idx picks the cells, it is no value
				visit(ix.X, true)
				for _, i := range ix.Indices {
					visit(i, false)
				}
				return false
			}
			if call, ok := n.(*ast.CallExpr); ok {
				if fn := m.info.Calls[call]; fn != nil && fn.Shape == stdlib.LogPDF && len(call.Args) > 0 {
					visit(call.Args[0], true)
					for _, a := range call.Args[1:] {
						visit(a, value)
					}
					return false
				}
				return true
			}
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			sym := m.info.Uses[id]
			switch {
			case sym == nil:
			case sym.Kind == check.Data && value && !seen[sym]:
				seen[sym] = true
				if _, read := firstUse[sym]; !read && len(tildes[sym]) == 0 {
					names = append(names, sym.Name)
				}
			case sym.Kind == check.Let:
				if ls, ok := sym.Decl.(*ast.LetStmt); ok && !lets[letWalk{sym, value}] {
					lets[letWalk{sym, value}] = true
					visit(ls.Value, value)
				}
			}
			return true
		})
	}
	ast.Inspect(m.file, func(n ast.Node) bool {
		if o, ok := n.(*ast.OutputStmt); ok && o.Name.Name == check.LogLikOutput && o.Value != nil {
			visit(o.Value, false)
		}
		return true
	})
	return names
}

// Observed returns the names of the data that the model observes, sorted:
// those a ~ observes and those a target += (or a ~ on an expression)
// reads as the value of a logpdf, logcdf or logccdf, or reads at all
// where it reads no such value (a likelihood written out, target +=
// -square(y - mu), whose outcome cannot be told from its covariates).
// They are the data whose log likelihood a fit's LOO, K-fold and evidence
// score; the others (covariates, sizes, indexes) are not. nil when the
// model observes none.
func (m *Model) Observed() []string {
	if m.file == nil || m.info == nil {
		return nil
	}
	tildes, _ := observations(m.file, m.info)
	seen := map[string]bool{}
	for sym := range tildes {
		seen[sym.Name] = true
	}
	reads := m.info.TargetReads(m.file)
	valued := map[ast.Stmt]bool{} // the statements that read a value
	for _, r := range reads {
		if r.Value {
			valued[r.Stmt] = true
		}
	}
	for _, r := range reads {
		if r.Value || r.Let == nil && !valued[r.Stmt] {
			seen[r.Symbol.Name] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

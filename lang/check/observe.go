package check

import (
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// TargetRead is a read of data by the log density other than as the value
// of a ~ on it: by a target += or by the left side of a ~ on an
// expression (log(y) ~ D(...), whose value it is), directly or through
// the lets these read (let lp = logpdf(t, D(...)); target += sum(lp)).
// Such data are observed without a ~ of their own, as Stan's target +=
// observes them; gpp predict leaves out the outputs that read them when
// new data do not give them, and their missing cells have no distribution
// to fit them from.
type TargetRead struct {
	Symbol *Symbol
	At     ast.Pos  // the read; in a let's value when through one
	Stmt   ast.Stmt // the target += or ~ that reads it
	// Value is true when the read is the value (first) argument of a
	// logpdf, logcdf or logccdf: an outcome, such as a survival time, not
	// a covariate of its distribution's arguments.
	Value bool
	// Func is the log density whose value it is (logpdf, logcdf,
	// logccdf), "" when not Value or when the value of a ~.
	Func string
	// Let is the first let through which Stmt reads it, nil when Stmt's
	// own expression does.
	Let *ast.LetStmt
	// InIf is true when Stmt lies in a branch of an if, which may leave
	// the data's cells on some rows unread.
	InIf bool
}

// TargetReads returns the reads of data (TargetRead) by each target +=
// and each ~ on an expression of f, in source order of the statements:
// per statement, the first read of each datum of each kind (as a value or
// not, directly or through a let).
func (info *Info) TargetReads(f *ast.File) []TargetRead {
	var out []TargetRead
	// inIf: the statements in an if's branches, marked as the walk meets
	// the if, before it meets them
	inIf := map[ast.Stmt]bool{}
	mark := func(stmts []ast.Stmt) {
		for _, t := range stmts {
			ast.Inspect(t, func(n ast.Node) bool {
				if t, ok := n.(ast.Stmt); ok {
					inIf[t] = true
				}
				return true
			})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var stmt ast.Stmt
		var e ast.Expr
		value := false // the whole expression is the value observed
		switch s := n.(type) {
		case *ast.IfStmt:
			for _, b := range s.Branches {
				mark(b.Body.Stmts)
			}
			if s.ElseBody != nil {
				mark(s.ElseBody.Stmts)
			}
			return true
		case *ast.TargetStmt:
			stmt, e = s, s.Value
		case *ast.TildeStmt:
			// a ~ on a param or on data itself is no read (a ~ on a let
			// is one on the let's expression)
			if id := ObservedIdent(s.LHS); id != nil && (info.Uses[id] == nil || info.Uses[id].Kind != Let) {
				return true
			}
			stmt, e, value = s, s.LHS, true
		default:
			return true
		}
		type kind struct {
			sym           *Symbol
			value, direct bool
		}
		seen := map[kind]bool{}   // the reads recorded
		lets := map[[2]any]bool{} // the lets walked, as value or not
		density := ""             // the log density of the value being walked
		var visit func(e ast.Node, value bool, through *ast.LetStmt)
		visit = func(e ast.Node, value bool, through *ast.LetStmt) {
			ast.Inspect(e, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if fn := info.Calls[call]; fn != nil && fn.Shape == stdlib.LogPDF && len(call.Args) > 0 {
						outer := density
						density = call.Fun.Name
						visit(call.Args[0], true, through)
						density = outer
						for _, a := range call.Args[1:] {
							visit(a, value, through)
						}
						return false
					}
					return true
				}
				id, ok := n.(*ast.Ident)
				if !ok {
					return true
				}
				sym := info.Uses[id]
				switch {
				case sym == nil:
				case sym.Kind == Data:
					if k := (kind{sym, value, through == nil}); !seen[k] {
						seen[k] = true
						out = append(out, TargetRead{Symbol: sym, At: id.Pos(), Stmt: stmt, Value: value, Func: density, Let: through, InIf: inIf[stmt]})
					}
				case sym.Kind == Let:
					if ls, ok := sym.Decl.(*ast.LetStmt); ok && !lets[[2]any{sym, value}] {
						lets[[2]any{sym, value}] = true
						via := through
						if via == nil {
							via = ls
						}
						visit(ls.Value, value, via)
					}
				}
				return true
			})
		}
		visit(e, value, nil)
		return true
	})
	return out
}

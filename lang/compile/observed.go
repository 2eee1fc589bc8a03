package compile

import (
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
)

// Observed is a ~ statement on data under Bernoulli or BernoulliLogit, or
// a logpdf(y, D(arg)) of such a D on data y in a target += (Stan's
// target += bernoulli_logit_lpmf(y | eta)), as an Evaluator last evaluated
// it: the observations Y and the distribution's argument Arg, one per
// observation (an argument shared by the observations is repeated; Arg
// differs in length from Y only where one scalar observation met a vector
// argument). The pieces of a statement lowered more than once — the
// iterations of an unrolled loop, the branches of a loop lowered as
// vectors — are joined in the order they were lowered, so that Y[k] and
// Arg[k] stay a pair. The CLI reads them at q's mean to warn of separated
// data; the evaluator keeps nodes the log joint computes anyway, so
// nothing is added to the tape.
type Observed struct {
	Stmt   *ast.TildeStmt // the ~, or nil for a logpdf
	Call   *ast.CallExpr  // the logpdf, or nil for a ~
	Y, Arg []float64
}

// Value returns the observed expression: the ~'s left side, or the
// logpdf's first argument.
func (o *Observed) Value() ast.Expr {
	if o.Stmt != nil {
		return o.Stmt.LHS
	}
	return o.Call.Args[0]
}

// Dist returns the distribution call, D(arg), of the ~ or the logpdf.
func (o *Observed) Dist() *ast.CallExpr {
	if o.Stmt != nil {
		return o.Stmt.Dist
	}
	d, _ := ast.Unparen(o.Call.Args[1]).(*ast.CallExpr)
	return d
}

// Pos returns where the ~ statement or the logpdf call is.
func (o *Observed) Pos() ast.Pos {
	if o.Stmt != nil {
		return o.Stmt.Pos()
	}
	return o.Call.Pos()
}

// Truncated reports a ~ with T[L, U], whose observations are not the
// family's alone.
func (o *Observed) Truncated() bool { return o.Stmt != nil && o.Stmt.Trunc != nil }

// watchPiece is one lowering of an observed ~ (stmt) or logpdf (call):
// its observations, as numbers (int data) or a node (real data), and its
// argument's node; slot, for a ~ lowered by groups (suffstats.go), maps
// each observation to its group's element of the argument.
type watchPiece struct {
	stmt *ast.TildeStmt
	call *ast.CallExpr
	y    []float64
	yID  autodiff.ID
	arg  autodiff.ID
	slot []int
}

// key returns the statement or call the piece is of.
func (w *watchPiece) key() ast.Node {
	if w.stmt != nil {
		return w.stmt
	}
	return w.call
}

// watchLogPDF records, in an evaluator's build, a logpdf call e of a
// target += under Bernoulli or BernoulliLogit (dist) whose value, node y,
// is data, with the node of the distribution's argument.
func (l *lowerer) watchLogPDF(e *ast.CallExpr, dist string, y, arg autodiff.ID) {
	if !l.watch || !l.inTarget || dist != "Bernoulli" && dist != "BernoulliLogit" || !l.info.Types[e.Args[0]].DataOnly {
		return
	}
	l.watched = append(l.watched, watchPiece{call: e, yID: y, arg: arg})
}

// watchTilde records, in an evaluator's build, a ~ on data (v, lowered
// from s.LHS) under Bernoulli or BernoulliLogit with argument node arg
// (one element per group of slot, where not nil).
func (l *lowerer) watchTilde(s *ast.TildeStmt, v value, arg autodiff.ID, slot []int) {
	d := l.info.Dists[s.Dist]
	if d == nil || d.Name != "Bernoulli" && d.Name != "BernoulliLogit" || !l.info.Types[s.LHS].DataOnly {
		return
	}
	p := watchPiece{stmt: s, arg: arg, slot: slot}
	switch {
	case v.isInt:
		p.y = make([]float64, len(v.ints))
		for i, k := range v.ints {
			p.y[i] = float64(k)
		}
	case v.node:
		p.yID = v.id
	default:
		return
	}
	l.watched = append(l.watched, p)
}

// watchIDs appends the nodes of the watched pieces to keep.
func watchIDs(keep []autodiff.ID, ws []watchPiece) []autodiff.ID {
	for _, w := range ws {
		keep = append(keep, w.arg)
		if w.y == nil {
			keep = append(keep, w.yID)
		}
	}
	return keep
}

// Observed returns the ~ statements on 0/1 data under Bernoulli or
// BernoulliLogit, and the logpdf calls of such a target +=, with their
// values at the last Eval, in the order of their first lowering; the
// slices are new.
func (e *Evaluator) Observed() []Observed {
	var out []Observed
	at := map[ast.Node]int{}
	for _, w := range e.watched {
		k, ok := at[w.key()]
		if !ok {
			k = len(out)
			at[w.key()] = k
			out = append(out, Observed{Stmt: w.stmt, Call: w.call})
		}
		y := w.y
		if y == nil {
			y = e.prog.Value(w.yID)
		}
		arg := e.prog.Value(w.arg)
		o := &out[k]
		if w.slot != nil { // a ~ lowered by groups: each row's group's value
			for _, g := range w.slot {
				o.Arg = append(o.Arg, arg[g])
			}
		} else if len(arg) == 1 && len(y) != 1 { // an argument shared by the observations: one per observation
			for range y {
				o.Arg = append(o.Arg, arg[0])
			}
		} else {
			o.Arg = append(o.Arg, arg...)
		}
		o.Y = append(o.Y, y...)
	}
	return out
}

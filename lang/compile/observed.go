package compile

import (
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
)

// Observed is a ~ statement on data under Bernoulli or BernoulliLogit as
// an Evaluator last evaluated it: the observations Y and the
// distribution's argument Arg, one per observation (an argument shared by
// the observations is repeated; Arg differs in length from Y only where
// one scalar observation met a vector argument). The
// pieces of a statement lowered more than once — the iterations of an
// unrolled loop, the branches of a loop lowered as vectors — are joined in
// the order they were lowered, so that Y[k] and Arg[k] stay a pair. The CLI
// reads them at q's mean to warn of separated data; the evaluator keeps
// nodes the log joint computes anyway, so nothing is added to the tape.
type Observed struct {
	Stmt   *ast.TildeStmt
	Y, Arg []float64
}

// watchPiece is one lowering of an observed ~: its observations, as
// numbers (int data) or a node (real data), and its argument's node.
type watchPiece struct {
	stmt *ast.TildeStmt
	y    []float64
	yID  autodiff.ID
	arg  autodiff.ID
}

// watchTilde records, in an evaluator's build, a ~ on data (v, lowered
// from s.LHS) under Bernoulli or BernoulliLogit with argument node arg.
func (l *lowerer) watchTilde(s *ast.TildeStmt, v value, arg autodiff.ID) {
	d := l.info.Dists[s.Dist]
	if d == nil || d.Name != "Bernoulli" && d.Name != "BernoulliLogit" || !l.info.Types[s.LHS].DataOnly {
		return
	}
	p := watchPiece{stmt: s, arg: arg}
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
// BernoulliLogit with their values at the last Eval, in the order of their
// first lowering; the slices are new.
func (e *Evaluator) Observed() []Observed {
	var out []Observed
	at := map[*ast.TildeStmt]int{}
	for _, w := range e.watched {
		k, ok := at[w.stmt]
		if !ok {
			k = len(out)
			at[w.stmt] = k
			out = append(out, Observed{Stmt: w.stmt})
		}
		y := w.y
		if y == nil {
			y = e.prog.Value(w.yID)
		}
		arg := e.prog.Value(w.arg)
		o := &out[k]
		if len(arg) == 1 && len(y) != 1 { // an argument shared by the observations: one per observation
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

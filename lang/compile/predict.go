package compile

// Predict mode (gpp predict, Stan's standalone generated quantities,
// PyMC's set_data + sample_posterior_predictive): the outputs evaluated at
// draws of a fitted q on new data. Nothing is fitted, so the log density
// is not compiled: no prior, no ~, no target +=, and so no T[...] bounds
// either. The build keeps the param declarations (their shapes and bounds
// say how q's draws become values), the outputs, and the lets, loops and
// ifs that those read; data that only the rest reads, the observed values,
// need not be given.

import (
	"fmt"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// predictPlan is what a predict-mode build lowers.
type predictPlan struct {
	keep map[ast.Stmt]bool // the statements lowered (besides declarations)
	// reads holds the data and size names they read, each with the first
	// output or param declaration that needs it.
	reads map[*check.Symbol]ast.Stmt
	// draw holds the ~ statements drawn as replicates of the data they
	// observe, which the data leave out (predictDraws), each with that
	// data's declaration; drawn lists those declarations in order, each
	// with its shape.
	draw  map[*ast.TildeStmt]*check.DataVar
	drawn []drawnDecl
}

// drawnDecl is a data declaration that predict draws from its ~
// statements: its shape with this run's sizes.
type drawnDecl struct {
	d     *check.DataVar
	shape []int
	given *data.Array // data given with missing cells, which alone are drawn; else nil
	named bool        // by --draw: what cannot be drawn is an error, not a note
	// leaf, in a fit's build, are the cells of real data summed out of
	// the likelihood (leftout.go), drawn as the output NAME_missing
	leaf []int
	// what and verb begin its notes ("y is not in the data", "is"); note
	// says that it is drawn.
	what, verb, note string
}

// planPredict finds the statements that a predict-mode build lowers: the
// param declarations and the outputs, each let that one of those reads
// (through other lets too), and every for and if around one of them (its
// bounds or conditions choose what runs). The data and size names that
// these read are the ones predict needs.
//
// The ~ statements in draw are lowered too, as replicates (their
// distributions and the indices of their left sides are read; not the data
// they observe), and the outputs in drop are not (predictDropped).
func planPredict(f *ast.File, info *check.Info, draw map[*ast.TildeStmt]*check.DataVar, drop map[*ast.OutputStmt]string) *predictPlan {
	p := &predictPlan{keep: map[ast.Stmt]bool{}, reads: map[*check.Symbol]ast.Stmt{}, draw: draw}
	parents := map[ast.Stmt][]ast.Stmt{} // the enclosing fors and ifs
	lets := map[*check.Symbol]*ast.LetStmt{}
	var roots []ast.Stmt
	var walk func(stmts []ast.Stmt, encl []ast.Stmt)
	walk = func(stmts []ast.Stmt, encl []ast.Stmt) {
		for _, s := range stmts {
			parents[s] = encl
			inner := append(encl[:len(encl):len(encl)], s)
			switch s := s.(type) {
			case *ast.LetStmt:
				if sym := info.Defs[s.Name]; sym != nil {
					lets[sym] = s
				}
			case *ast.ParamDecl:
				roots = append(roots, s)
			case *ast.OutputStmt:
				if _, left := drop[s]; !left {
					roots = append(roots, s)
				}
			case *ast.TildeStmt:
				if draw[s] != nil {
					roots = append(roots, s)
				}
			case *ast.ForStmt:
				walk(s.Body, inner)
			case *ast.IfStmt:
				for _, b := range s.Branches {
					walk(b.Body.Stmts, inner)
				}
				if s.ElseBody != nil {
					walk(s.ElseBody.Stmts, inner)
				}
			}
		}
	}
	walk(f.Stmts, nil)

	var need func(s ast.Stmt)
	var root ast.Stmt   // the output or param whose needs are being found
	var skip *ast.Ident // the observed data of a drawn ~, not read
	scan := func(n ast.Node) {
		if n == nil {
			return
		}
		ast.Inspect(n, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || id == skip {
				return true
			}
			sym := info.Uses[id]
			switch {
			case sym == nil:
			case sym.Kind == check.Data || sym.Kind == check.Size:
				if p.reads[sym] == nil {
					p.reads[sym] = root
				}
			case sym.Kind == check.Let && lets[sym] != nil:
				need(lets[sym])
			}
			return true
		})
	}
	need = func(s ast.Stmt) {
		if p.keep[s] {
			return
		}
		p.keep[s] = true
		for _, e := range parents[s] {
			need(e)
		}
		switch s := s.(type) {
		case *ast.LetStmt:
			scan(s.Value)
		case *ast.ParamDecl:
			scan(s.Type) // its shape and bounds; not its prior
		case *ast.TildeStmt: // a drawn one: its indices and distribution
			skip = check.ObservedIdent(s.LHS)
			scan(s.LHS)
			skip = nil
			scan(s.Dist)
			if s.Trunc != nil { // its bounds, drawn within
				scan(s.Trunc)
			}
		case *ast.OutputStmt:
			if s.Value != nil {
				scan(s.Value)
			}
			if s.Dist != nil {
				scan(s.Dist)
			}
			if s.Trunc != nil {
				scan(s.Trunc)
			}
			for _, o := range info.Outputs {
				if o.Stmt == s && o.Let != nil && lets[o.Let] != nil {
					need(lets[o.Let])
				}
			}
		case *ast.ForStmt:
			scan(s.Lo)
			scan(s.Hi)
		case *ast.IfStmt:
			for _, b := range s.Branches {
				scan(b.Cond)
			}
		}
	}
	for _, s := range roots {
		root = s
		need(s)
	}
	return p
}

// PredictReads returns the names of the data declarations and size names
// that a predict-mode build (CompilePredict) reads: the params' shapes and
// bounds, the outputs, and the lets, loop bounds and if conditions they
// depend on. Each maps to the first param declaration or output statement
// (in source order) that needs it, for messages. Every other data value
// may be left out of predict's data (data.BindOptional): only the log
// density, which predict leaves out, reads it.
func PredictReads(f *ast.File, info *check.Info) map[string]ast.Stmt {
	return predictReads(planPredict(f, info, nil, nil))
}

// PredictReadsGiven is PredictReads without the outputs that a build on
// the data bound leaves out, as they read observed data that bound does
// not give (log_lik = logpdf(y, ...) without y). With bound nil, no
// observed data are given: every such output is left out, and what the
// rest reads is what the data must give whatever they leave out.
func PredictReadsGiven(f *ast.File, info *check.Info, bound map[string]*data.Array) map[string]ast.Stmt {
	drop, _ := predictDropped(f, info, bound)
	return predictReads(planPredict(f, info, nil, drop))
}

func predictReads(p *predictPlan) map[string]ast.Stmt {
	out := map[string]ast.Stmt{}
	for sym, s := range p.reads {
		out[sym.Name] = s
	}
	return out
}

// predictDropped finds the outputs that a predict-mode build on the data
// bound leaves out, as PyMC's sample_posterior_predictive leaves out what
// needs the observed values: each output that reads, through its lets,
// the outputs it reads and the fors and ifs around it, data that the
// model observes (with a ~, a target += or a ~ on an expression) and that
// bound does not give, whether predict draws them or not (the outputs are
// evaluated before the draws, and log_lik at a replicate of y is no
// predictive density), or gives with missing cells that a ~ observes
// (drawn; log_lik has no value at them). Each maps to its note, in the
// returned order. A covariate given with missing values is given
// (compile's missing-data checks apply), and a covariate or a size that
// an output reads is not observed: without it, binding fails and says
// what needs it.
func predictDropped(f *ast.File, info *check.Info, bound map[string]*data.Array) (map[*ast.OutputStmt]string, []string) {
	tildes, firstUse := observations(f, info)
	absent := func(sym *check.Symbol) bool {
		if sym.Kind != check.Data || bound[sym.Name] != nil {
			return false
		}
		_, read := firstUse[sym]
		return len(tildes[sym]) > 0 || read
	}
	// holed: observed data given with missing cells, which are drawn;
	// an output of all its cells (log_lik) has none at those.
	holed := func(sym *check.Symbol) bool {
		a := bound[sym.Name]
		return sym.Kind == check.Data && a != nil && len(a.Missing) > 0 && len(tildes[sym]) > 0
	}
	drop := map[*ast.OutputStmt]string{}
	left := map[*check.Symbol]bool{} // the outputs left out, which later ones may read
	var notes []string
	var walk func(stmts []ast.Stmt, heads []ast.Node)
	walk = func(stmts []ast.Stmt, heads []ast.Node) {
		for _, s := range stmts {
			switch s := s.(type) {
			case *ast.ForStmt:
				walk(s.Body, append(heads[:len(heads):len(heads)], s.Lo, s.Hi))
			case *ast.IfStmt:
				inner := heads[:len(heads):len(heads)]
				for _, b := range s.Branches {
					inner = append(inner, b.Cond)
				}
				for _, b := range s.Branches {
					walk(b.Body.Stmts, inner)
				}
				if s.ElseBody != nil {
					walk(s.ElseBody.Stmts, inner)
				}
			case *ast.OutputStmt:
				reads := append([]ast.Node(nil), heads...)
				if s.Value != nil {
					reads = append(reads, s.Value)
				}
				if s.Dist != nil {
					reads = append(reads, s.Dist)
				}
				if s.Trunc != nil {
					reads = append(reads, s.Trunc)
				}
				for _, o := range info.Outputs {
					if o.Stmt == s && o.Value != nil {
						reads = append(reads, o.Value)
					}
				}
				var why string
				for _, n := range reads {
					info.VisitReads(n, true, func(sym *check.Symbol) bool {
						switch {
						case absent(sym):
							why = sym.Name + ", which the new data do not give"
						case holed(sym):
							why = fmt.Sprintf("%s, which the new data give with %d missing value%s", sym.Name, len(bound[sym.Name].Missing), plural(len(bound[sym.Name].Missing)))
						case sym.Kind == check.Output && left[sym]:
							why = "output " + sym.Name + ", which is left out"
						}
						return why != ""
					})
					if why != "" {
						break
					}
				}
				if why != "" {
					drop[s] = fmt.Sprintf("output %s reads %s: left out", s.Name.Name, why)
					notes = append(notes, drop[s])
					if sym := info.Defs[s.Name]; sym != nil {
						left[sym] = true
					}
				}
			}
		}
	}
	walk(f.Stmts, nil)
	return drop, notes
}

// CompilePredict compiles a checked file in predict mode: the params and
// the outputs without the log density. The data bound need only hold the
// names PredictReads lists. The model's Evaluator computes the outputs at
// draws of a fitted q; its log joint is 0.
//
// Every data declaration that the model observes with ~ and that bound
// leaves out is drawn at each draw from its ~ statements, as a replicate
// `output y ~ D(args)` would be (PyMC's sample_posterior_predictive after
// set_data): an output named as the data, after the model's outputs
// (CompilePredictOptions chooses which).
func CompilePredict(f *ast.File, info *check.Info, bound map[string]*data.Array) (*Model, error) {
	return CompilePredictOptions(f, info, bound, PredictOptions{})
}

// CompilePredictOptions is CompilePredict with a choice of the left-out
// data to draw (PredictOptions.Draw). Model.Drawn says which are drawn,
// and Model.Notes why any other left-out data that the model observes is
// not, or Model.Warnings where the data leave out an input it needs.
func CompilePredictOptions(f *ast.File, info *check.Info, bound map[string]*data.Array, opt PredictOptions) (*Model, error) {
	if err := checkDataBounds(info, bound); err != nil {
		return nil, err
	}
	draw, drawn, notes, warns, err := predictDraws(f, info, bound, opt)
	if err != nil {
		return nil, err
	}
	drop, dropNotes := predictDropped(f, info, bound)
	p := planPredict(f, info, draw, drop)
	p.drawn = drawn
	m := &Model{file: f, info: info, data: bound, predict: p, Notes: append(dropNotes, notes...), Warnings: warns}
	prog, _, err := m.build(buildJoint)
	if err != nil {
		return nil, err
	}
	if len(m.Outputs) == 0 && len(drop) > 0 {
		return nil, nothingLeft(f, drop)
	}
	m.prog = prog
	return m, nil
}

// nothingLeft is the error of a predict-mode build whose outputs all read
// observed data that the data leave out, with no left-out data drawn:
// there is nothing to predict. It is at the first output left out.
func nothingLeft(f *ast.File, drop map[*ast.OutputStmt]string) error {
	var first *ast.OutputStmt
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.OutputStmt); ok && first == nil {
			if _, left := drop[s]; left {
				first = s
			}
		}
		return first == nil
	})
	return ast.Errorf(first.Pos(), "nothing to predict: %s, and no other output or drawn data remain: give the data it reads, or add an output that does not read them (a replicate, output y_rep ~ D(...))",
		strings.TrimSuffix(drop[first], ": left out"))
}

// Predict reports whether m was compiled in predict mode (CompilePredict):
// its log joint is 0, not the model's.
func (m *Model) Predict() bool { return m.predict != nil }

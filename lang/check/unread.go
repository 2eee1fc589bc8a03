package check

import (
	"strings"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// noDataObserved is the warning unread gives a model that declares data
// but whose likelihood reads none of them: its fit is of the prior. gpp
// fit --prior, whose draws are the prior by intent, leaves it out
// (Info.NoDataObserved).
const noDataObserved = "the model observes no data: no ~ and no target += reads any of its data, so its fit is of the prior; a ~ on `%s` (%s ~ D(...)) is likely missing, or, to draw from the priors on purpose, use gpp fit --prior"

// unread warns of what a model declares and never reads, as leftovers of
// an edit (a deleted y ~ line) that a fit would not show: data that
// nothing reads (the log density, an output, a dimension), a let that
// nothing reads, and a model of params whose likelihood observes no data
// although some are read nowhere or are an output's outcome (the value of
// log_lik's logpdf): noDataObserved. The likelihood is as compile's split
// has it: a ~ whose left side reads data, a ~ on a constant whose
// distribution reads data, a target += that reads data. A model whose data
// are only sizes, hyperparameters of priors or covariates of outputs
// observes nothing by design (a prior simulation), and is not warned of.
func (c *checker) unread() {
	lets := map[*Symbol]*ast.LetStmt{}
	var order []*ast.LetStmt // in source order, for the warnings
	var roots, terms, outputs []ast.Node
	ast.Inspect(c.file, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.File:
			return true
		case *ast.FnDecl:
			return false // a body reads only its own parameters and lets
		case *ast.LetStmt:
			if sym := c.info.Defs[s.Name]; sym != nil {
				lets[sym] = s
				order = append(order, s)
			}
			return false
		case *ast.OutputStmt:
			outputs = append(outputs, s)
			roots = append(roots, s)
			return false
		case *ast.TildeStmt, *ast.TargetStmt:
			terms = append(terms, s)
			roots = append(roots, s)
			return false
		case *ast.ForStmt, *ast.IfStmt:
			return true // their lets are lets, their terms terms
		}
		if _, ok := n.(ast.Stmt); ok {
			roots = append(roots, n)
			return false
		}
		if _, ok := n.(ast.Expr); ok {
			roots = append(roots, n) // a for's bounds, an if's conditions
			return false
		}
		return true
	})
	// closure returns the symbols n reads, directly or through lets.
	closure := func(ns ...ast.Node) map[*Symbol]bool {
		read := map[*Symbol]bool{}
		work := append([]ast.Node(nil), ns...)
		for len(work) > 0 {
			n := work[len(work)-1]
			work = work[:len(work)-1]
			ast.Inspect(n, func(m ast.Node) bool {
				id, ok := m.(*ast.Ident)
				if !ok {
					return true
				}
				sym := c.info.Uses[id]
				if sym == nil || read[sym] {
					return true
				}
				read[sym] = true
				if let, ok := lets[sym]; ok && let.Value != nil {
					work = append(work, let.Value)
				}
				return true
			})
		}
		return read
	}
	hasKind := func(read map[*Symbol]bool, k SymbolKind) bool {
		for sym := range read {
			if sym.Kind == k {
				return true
			}
		}
		return false
	}
	read := closure(roots...)
	for _, s := range order {
		if sym := c.info.Defs[s.Name]; sym != nil && !read[sym] {
			w := ast.Errorf(s.Name.NamePos, "let `%s` is read nowhere: neither the log density nor an output reads it; leave it out, or use it", s.Name.Name)
			c.info.UnreadLets = append(c.info.UnreadLets, w)
			c.info.Warnings = append(c.info.Warnings, w)
		}
	}
	// outcomes: data an output reads as the value of a log density
	// (output log_lik = logpdf(y, D(...))), directly or through lets
	outcomes := map[*Symbol]bool{}
	seen := map[ast.Expr]bool{}
	for i := 0; i < len(outputs); i++ { // outputs grows by the lets it reads
		ast.Inspect(outputs[i], func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if fn := c.info.Calls[n]; fn != nil && fn.Shape == stdlib.LogPDF && len(n.Args) > 0 {
					for sym := range closure(n.Args[0]) {
						if sym.Kind == Data {
							outcomes[sym] = true
						}
					}
				}
			case *ast.Ident:
				if let, ok := lets[c.info.Uses[n]]; ok && let.Value != nil && !seen[let.Value] {
					seen[let.Value] = true
					outputs = append(outputs, let.Value) // walked after this one
				}
			}
			return true
		})
	}
	var first *Symbol // the first data declared read nowhere or an output's outcome
	for _, sym := range c.info.Symbols {
		if sym.Kind != Data {
			continue
		}
		if first == nil && (!read[sym] || outcomes[sym]) {
			first = sym
		}
		if !read[sym] {
			w := ast.Errorf(sym.Pos,
				"data `%s` is read nowhere: neither the log density nor an output reads it, so the fit ignores it; leave it out, or observe it (%s ~ D(...))", sym.Name, sym.Name)
			if sizes := c.sizesOf(sym); len(sizes) > 0 {
				// leaving it out would leave its sizes undeclared
				w = ast.Errorf(sym.Pos,
					"data `%s` is read nowhere but for its shape, which gives %s: neither the log density nor an output reads its values, so the fit ignores them; to leave it out, declare %s as data (`data %s: int`, given by --set or a data file), or observe it (%s ~ D(...))",
					sym.Name, strings.Join(sizes, " and "), strings.Join(sizes, " and "), sizes[0], sym.Name)
			}
			if c.info.UnreadData == nil {
				c.info.UnreadData = map[string]*ast.Error{}
			}
			c.info.UnreadData[sym.Name] = w
			c.info.Warnings = append(c.info.Warnings, w)
		}
	}
	if first == nil || len(c.info.Latents) == 0 {
		// a density of params alone (a funnel, a target to fit) observes
		// nothing by design; a model of no params has nothing to fit
		return
	}
	for _, t := range terms {
		var observed bool
		switch t := t.(type) {
		case *ast.TildeStmt:
			lhs := closure(t.LHS)
			observed = hasKind(lhs, Data) || !hasKind(lhs, Param) && hasKind(closure(t.Dist), Data)
		case *ast.TargetStmt:
			observed = hasKind(closure(t.Value), Data)
		}
		if observed {
			return
		}
	}
	pos := first.Pos
	if d, ok := first.Decl.(*ast.DataDecl); ok {
		pos = d.Data // the line's start: the model's, not this datum's, warning
	}
	c.info.NoDataObserved = ast.Errorf(pos, noDataObserved, first.Name, first.Name)
	c.info.Warnings = append(c.info.Warnings, c.info.NoDataObserved)
}

// sizesOf returns the size names that data sym's shape gives (a size
// first named in its declaration, check.DataVar.Implicit) and that the
// model mentions elsewhere, in axis order: leaving sym out would leave
// them undeclared.
func (c *checker) sizesOf(sym *Symbol) []string {
	used := map[*Symbol]bool{}
	for id, u := range c.info.Uses {
		if u.Kind == Size && id.NamePos != u.Pos { // not its first mention, in sym's shape
			used[u] = true
		}
	}
	var out []string
	for _, d := range c.info.Data {
		if d.Implicit && d.SizeOf != nil && d.SizeOf.Symbol == sym && used[d.Symbol] {
			out = append(out, d.Name)
		}
	}
	return out
}

// Package graph draws a checked model as a directed graph of its named
// quantities, PyMC's model_to_graphviz for gpp: params, observed and other
// data, lets, outputs and target terms as nodes, an arrow from each to
// what it enters, and nodes of the same shape grouped in plates labelled
// by their dims.
//
// Place in the pipeline: beside the compiler, after lang/check. The graph
// is read off the syntax tree and the checker's Info (never the compiled
// tape), so a model without its data has one too; the package imports
// lang/ast and lang/check only, and cmd/gpp writes it as Graphviz DOT.
package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// Kind is what a node stands for; it decides the node's shape.
type Kind int

// Node kinds.
const (
	Param     Kind = iota + 1 // param: an ellipse
	Observed                  // data on the left of a ~: a filled ellipse
	Data                      // other data read in an expression: a rounded box
	Let                       // let: a box (PyMC's Deterministic)
	Output                    // output NAME = ...: a dashed box
	Replicate                 // output NAME ~ D(...): a dashed ellipse
	Potential                 // target += ..., or a ~ on an expression: an octagon
)

// Node is one named quantity of the model, or one target statement.
type Node struct {
	ID    string   // unique: the name, or "target@LINE:COL" for a target statement
	Kind  Kind     // decides the shape
	Label []string // lines of the label: the name, then "~ Family" and notes
	// Dims is the node's shape (nil for a scalar or when unknown), which
	// puts it in a plate.
	Dims check.Shape
	Pos  ast.Pos // of the declaring identifier or statement
}

// Edge is an arrow from a node read by a statement to the node that the
// statement defines or observes; From and To index Graph.Nodes.
type Edge struct{ From, To int }

// Plate is a group of nodes of one shape.
type Plate struct {
	ID    string // "N x K"
	Label string // "N × K", with sizes when known: "N (234) × K (10)"
	Nodes []int  // indices into Graph.Nodes, in declaration order
}

// Graph is a model's graph: nodes in declaration order, edges in the order
// the statements read them, without duplicates or self edges.
type Graph struct {
	Name   string
	Nodes  []*Node
	Edges  []Edge
	Plates []*Plate // in the order of their first node
}

// Options adjust a graph.
type Options struct {
	// Name is the DOT graph's name, most often the model file's base name.
	Name string
	// Sizes gives the values of size names and int data read from the
	// data, so that plate labels show them: "N (234)".
	Sizes map[string]int
	// Missing gives, for data whose missing cells are fitted, how many
	// there are (the latent NAME_missing), noted in the data's label.
	Missing map[string]int
}

// builder collects the nodes and edges while it walks the statements.
type builder struct {
	info  *check.Info
	g     *Graph
	byID  map[string]int          // node ID → index
	bySym map[*check.Symbol]int   // top-level symbol → node index
	local map[*check.Symbol][]int // local let → the nodes its value reads
	seen  map[Edge]bool
	// reads are the data symbols read in an expression other than a
	// size (dims, loop bounds).
	reads     map[*check.Symbol]bool
	observed  map[*check.Symbol]*ast.TildeStmt // data → its first ~
	mentioned map[*check.Symbol]bool           // the symbols some identifier uses
}

// Build returns the graph of a checked model f with its Info. opt may be
// nil.
func Build(f *ast.File, info *check.Info, opt *Options) *Graph {
	if opt == nil {
		opt = &Options{}
	}
	b := &builder{info: info, g: &Graph{Name: opt.Name}, byID: map[string]int{},
		bySym: map[*check.Symbol]int{}, local: map[*check.Symbol][]int{}, seen: map[Edge]bool{},
		reads: map[*check.Symbol]bool{}, observed: map[*check.Symbol]*ast.TildeStmt{},
		mentioned: map[*check.Symbol]bool{}}
	for _, sym := range info.Uses {
		b.mentioned[sym] = true
	}
	b.scan(f.Stmts)
	b.declare(f.Stmts, opt)
	b.link(f.Stmts, nil)
	b.plates(opt.Sizes)
	return b.g
}

// scan finds the data that are observed and the data read in expressions
// other than sizes, which decide which data are nodes and how.
func (b *builder) scan(stmts []ast.Stmt) {
	for _, s := range stmts {
		switch s := s.(type) {
		case *ast.DataDecl:
			b.noteReads(s.Type.Lower)
			b.noteReads(s.Type.Upper)
		case *ast.ParamDecl:
			b.noteReads(s.Type.Lower)
			b.noteReads(s.Type.Upper)
			if s.Prior != nil {
				b.noteReads(s.Prior)
			}
		case *ast.TildeStmt:
			sym := b.root(s.LHS)
			switch ix, isIx := ast.Unparen(s.LHS).(*ast.IndexExpr); {
			case sym == nil:
				b.noteReads(s.LHS)
			case isIx:
				for _, i := range ix.Indices {
					b.noteReads(i)
				}
			}
			if sym != nil && sym.Kind == check.Data && b.observed[sym] == nil {
				b.observed[sym] = s
			}
			b.noteReads(s.Dist)
			if s.Trunc != nil {
				b.noteReads(s.Trunc)
			}
		case *ast.LetStmt:
			b.noteReads(s.Value)
		case *ast.TargetStmt:
			b.noteReads(s.Value)
		case *ast.OutputStmt:
			b.noteReads(s.Value)
			if s.Dist != nil {
				b.noteReads(s.Dist)
			}
			if s.Trunc != nil {
				b.noteReads(s.Trunc)
			}
		case *ast.ForStmt:
			b.scan(s.Body)
		case *ast.IfStmt:
			for _, br := range s.Branches {
				b.noteReads(br.Cond)
				b.scan(br.Body.Stmts)
			}
			if s.ElseBody != nil {
				b.scan(s.ElseBody.Stmts)
			}
		}
	}
}

// noteReads records the data read in e.
func (b *builder) noteReads(e ast.Node) {
	if e == nil {
		return
	}
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if sym := b.info.Uses[id]; sym != nil && sym.Kind == check.Data {
				b.reads[sym] = true
			}
		}
		return true
	})
}

// root returns the param or data at the root of a ~'s left side, y in y,
// y[i] and (y[i]), or nil when the left side is another expression
// (log(y), sum(x)) or a let or size: a ~ on those adds a density term on
// values computed elsewhere, a potential as a ~ on sum(x) is.
func (b *builder) root(e ast.Expr) *check.Symbol {
	e = ast.Unparen(e)
	if ix, ok := e.(*ast.IndexExpr); ok {
		e = ast.Unparen(ix.X)
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return nil
	}
	if sym := b.info.Uses[id]; sym != nil && (sym.Kind == check.Param || sym.Kind == check.Data) {
		return sym
	}
	return nil
}

// declare adds the nodes in declaration order: params, data that are
// observed or read in expressions, top-level lets, outputs and target
// statements (and ~ statements on expressions) where they stand.
func (b *builder) declare(stmts []ast.Stmt, opt *Options) {
	for _, s := range stmts {
		switch s := s.(type) {
		case *ast.DataDecl:
			sym := b.info.Defs[s.Name]
			d := b.info.DataVar(s.Name.Name)
			if sym == nil || d == nil {
				continue
			}
			if t := b.observed[sym]; t != nil {
				label := []string{sym.Name, "~ " + distLabel(t)}
				if k := opt.Missing[sym.Name]; k > 0 {
					label = append(label, fmt.Sprintf("%d missing: fitted as %s_missing", k, sym.Name))
				}
				b.add(sym, &Node{ID: sym.Name, Kind: Observed, Label: label, Dims: d.Dims, Pos: sym.Pos})
				continue
			}
			if b.reads[sym] || !b.sizeOnly(s) {
				b.add(sym, &Node{ID: sym.Name, Kind: Data, Label: []string{sym.Name, "~ Data"}, Dims: d.Dims, Pos: sym.Pos})
			}
		case *ast.ParamDecl:
			lat := b.info.Latent(s.Name.Name)
			if lat == nil {
				continue
			}
			b.add(lat.Symbol, &Node{ID: lat.Name, Kind: Param, Label: paramLabel(lat), Dims: lat.Dims, Pos: lat.Pos})
		case *ast.LetStmt:
			sym := b.info.Defs[s.Name]
			if sym == nil || sym.Local {
				continue
			}
			label := []string{sym.Name, "~ Deterministic"}
			for _, o := range b.info.Outputs {
				if o.Let == sym {
					label = append(label, "(output)")
					break
				}
			}
			b.add(sym, &Node{ID: sym.Name, Kind: Let, Label: label, Dims: sym.Type.Shape, Pos: sym.Pos})
		case *ast.OutputStmt:
			var out *check.OutputVar
			for _, o := range b.info.Outputs {
				if o.Stmt == s {
					out = o
				}
			}
			if out == nil || out.Let != nil { // the short form reports a let: that let's node says so
				continue
			}
			n := &Node{ID: out.Name, Kind: Output, Label: []string{out.Name, "~ Output"}, Dims: out.Dims, Pos: out.Pos}
			if s.Dist != nil {
				n.Kind = Replicate
				n.Label = []string{out.Name, "~ " + s.Dist.Fun.Name + truncNote(s.Trunc), "(replicate)"}
			}
			b.add(b.info.Defs[s.Name], n)
		case *ast.TargetStmt:
			b.add(nil, &Node{ID: potentialID(s.Pos()), Kind: Potential,
				Label: []string{"target", fmt.Sprintf("(line %d)", s.Pos().Line)}, Pos: s.Pos()})
		case *ast.TildeStmt:
			if b.root(s.LHS) == nil {
				b.add(nil, &Node{ID: potentialID(s.Pos()), Kind: Potential,
					Label: []string{ast.FormatExpr(s.LHS) + " ~ " + distLabel(s), fmt.Sprintf("(line %d)", s.Pos().Line)}, Pos: s.Pos()})
			}
		case *ast.ForStmt:
			b.declare(s.Body, opt)
		case *ast.IfStmt:
			for _, br := range s.Branches {
				b.declare(br.Body.Stmts, opt)
			}
			if s.ElseBody != nil {
				b.declare(s.ElseBody.Stmts, opt)
			}
		}
	}
}

// sizeOnly reports whether the data declared by d is mentioned only as a
// size (in dims and loop bounds) and never in an expression: then it labels
// plates and is no node. Data mentioned nowhere is a node.
func (b *builder) sizeOnly(d *ast.DataDecl) bool {
	// mentioned, and not in an expression (scan found none)
	return b.mentioned[b.info.Defs[d.Name]]
}

// potentialID is the node ID of a target statement at p.
func potentialID(p ast.Pos) string { return fmt.Sprintf("target@%d:%d", p.Line, p.Col) }

// distLabel names the distribution of a ~, with its truncation.
func distLabel(s *ast.TildeStmt) string { return s.Dist.Fun.Name + truncNote(s.Trunc) }

// truncNote writes a truncation as written, " T[0, ]", or "".
func truncNote(t *ast.Truncation) string {
	if t == nil {
		return ""
	}
	end := func(e ast.Expr) string {
		if e == nil {
			return ""
		}
		return ast.FormatExpr(e)
	}
	lo, hi := end(t.Lower), end(t.Upper)
	if t.Upper == nil {
		return " T[" + lo + ", ]"
	}
	if t.Lower == nil {
		return " T[, " + hi + "]"
	}
	return " T[" + lo + ", " + hi + "]"
}

// paramLabel is a param's name, its prior (declared, or from the first ~
// on it or its elements, or the flat density on its support) and its
// variational family.
func paramLabel(l *check.Latent) []string {
	on := func(s *ast.TildeStmt) bool { // a ~ on the param or its elements
		e := ast.Unparen(s.LHS)
		if ix, ok := e.(*ast.IndexExpr); ok {
			e = ast.Unparen(ix.X)
		}
		id, ok := e.(*ast.Ident)
		return ok && id.Name == l.Name
	}
	prior := ""
	switch first := slices.IndexFunc(l.Tildes, on); {
	case l.Prior != nil:
		prior = "~ " + l.Prior.Fun.Name
	case first >= 0:
		prior = "~ " + distLabel(l.Tildes[first])
	case len(l.Tildes) > 0: // only on expressions of it, as sum(x) ~ Normal(0, 0.01)
		prior = "~ " + distLabel(l.Tildes[0]) + " of an expression"
	case l.Support.String() == "unit" || l.Support.String() == "simplex" || l.HasLower() && l.HasUpper():
		prior = "~ Flat (uniform)"
	default:
		prior = "~ Flat (improper)"
	}
	return []string{l.Name, prior, "q: " + l.Family}
}

// add appends a node; sym, when not nil, is the symbol it stands for.
func (b *builder) add(sym *check.Symbol, n *Node) {
	if _, dup := b.byID[n.ID]; dup {
		return
	}
	i := len(b.g.Nodes)
	b.g.Nodes = append(b.g.Nodes, n)
	b.byID[n.ID] = i
	if sym != nil {
		b.bySym[sym] = i
	}
}

// link adds the edges of stmts; ctx are the nodes that decide whether they
// run (the reads of the conditions of enclosing ifs).
func (b *builder) link(stmts []ast.Stmt, ctx []int) {
	for _, s := range stmts {
		switch s := s.(type) {
		case *ast.DataDecl:
			if to, ok := b.bySym[b.info.Defs[s.Name]]; ok {
				b.edges(ctx, to, s.Type.Lower, s.Type.Upper)
			}
		case *ast.ParamDecl:
			if to, ok := b.bySym[b.info.Defs[s.Name]]; ok {
				var prior ast.Expr
				if s.Prior != nil {
					prior = s.Prior
				}
				b.edges(ctx, to, s.Type.Lower, s.Type.Upper, prior)
			}
		case *ast.TildeStmt:
			var trunc []ast.Expr
			if s.Trunc != nil {
				trunc = []ast.Expr{s.Trunc.Lower, s.Trunc.Upper}
			}
			to, ok := -1, false
			if sym := b.root(s.LHS); sym != nil {
				to, ok = b.bySym[sym]
				if ix, isIx := ast.Unparen(s.LHS).(*ast.IndexExpr); ok && isIx {
					b.edges(ctx, to, ix.Indices...)
				}
			} else {
				to, ok = b.byID[potentialID(s.Pos())]
				b.edges(ctx, to, s.LHS)
			}
			if ok {
				b.edges(ctx, to, append([]ast.Expr{s.Dist}, trunc...)...)
			}
		case *ast.LetStmt:
			sym := b.info.Defs[s.Name]
			if sym == nil {
				continue
			}
			if to, ok := b.bySym[sym]; ok {
				b.edges(ctx, to, s.Value)
				continue
			}
			reads := b.resolve(s.Value)
			for _, i := range ctx {
				if !slices.Contains(reads, i) {
					reads = append(reads, i)
				}
			}
			b.local[sym] = reads
		case *ast.TargetStmt:
			if to, ok := b.byID[potentialID(s.Pos())]; ok {
				b.edges(ctx, to, s.Value)
			}
		case *ast.OutputStmt:
			if to, ok := b.byID[s.Name.Name]; ok && (s.Value != nil || s.Dist != nil) {
				var dist ast.Expr
				if s.Dist != nil {
					dist = s.Dist
				}
				var lo, hi ast.Expr
				if s.Trunc != nil {
					lo, hi = s.Trunc.Lower, s.Trunc.Upper
				}
				b.edges(ctx, to, s.Value, dist, lo, hi)
			}
		case *ast.ForStmt:
			b.link(s.Body, ctx)
		case *ast.IfStmt:
			inner := ctx
			for _, br := range s.Branches {
				// A branch runs when its condition holds and the
				// earlier ones do not: each reads every condition
				// before it, as the else does all of them.
				inner = append(inner[:len(inner):len(inner)], b.resolve(br.Cond)...)
				b.link(br.Body.Stmts, inner)
			}
			if s.ElseBody != nil {
				b.link(s.ElseBody.Stmts, inner)
			}
		}
	}
}

// edges adds an edge to node to from every node read in exprs (nil ones
// skipped) and from ctx.
func (b *builder) edges(ctx []int, to int, exprs ...ast.Expr) {
	from := append([]int(nil), ctx...)
	for _, e := range exprs {
		if e != nil {
			from = append(from, b.resolve(e)...)
		}
	}
	for _, f := range from {
		e := Edge{From: f, To: to}
		if f == to || b.seen[e] {
			continue
		}
		b.seen[e] = true
		b.g.Edges = append(b.g.Edges, e)
	}
}

// resolve returns the nodes read in e, each once, in the order first
// read: a local let (in a for or if body) stands for the nodes its value
// reads; loop variables, constants and sizes are no nodes. Once each keeps
// a chain of local lets that each read the one before twice linear, not
// doubling at every link.
func (b *builder) resolve(e ast.Expr) []int {
	var out []int
	seen := map[int]bool{}
	read := func(i int) {
		if !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	ast.Inspect(e, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		sym := b.info.Uses[id]
		if sym == nil {
			return true
		}
		if i, ok := b.bySym[sym]; ok {
			read(i)
		} else if reads, ok := b.local[sym]; ok {
			for _, i := range reads {
				read(i)
			}
		}
		return true
	})
	return out
}

// plates groups the nodes of rank one or more by their dims' names.
func (b *builder) plates(sizes map[string]int) {
	byID := map[string]*Plate{}
	for i, n := range b.g.Nodes {
		dims := plateDims(n.Dims)
		if len(dims) == 0 {
			continue
		}
		labels := make([]string, len(dims))
		for k, d := range dims {
			labels[k] = dimLabel(d, sizes)
		}
		id := plateKey(n.Dims)
		p := byID[id]
		if p == nil {
			p = &Plate{ID: id, Label: strings.Join(labels, " × ")}
			byID[id] = p
			b.g.Plates = append(b.g.Plates, p)
		}
		p.Nodes = append(p.Nodes, i)
	}
}

// plateDims are the dims that place a node in a plate: its dims without
// those of a literal size 1 when others remain, so that a row of K
// (colsum(W), a 1 × K matrix) or an N × 1 column shares the plate
// of the K or N values it repeats over, as PyMC puts a [K] quantity in K's
// plate. A size 1 written by name (const K = 1) stays, and so does the one
// dim of a real[1].
func plateDims(dims check.Shape) check.Shape {
	var out check.Shape
	for _, d := range dims {
		if d.Name != "" || d.N != 1 {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return dims
	}
	return out
}

// plateKey is the ID of the plate of a node of these dims: the names of its
// plateDims, "N x K", or "" for a scalar.
func plateKey(dims check.Shape) string {
	pd := plateDims(dims)
	names := make([]string, len(pd))
	for k, d := range pd {
		names[k] = d.String()
	}
	return strings.Join(names, " x ")
}

// dimLabel writes a dim for a plate label: its name with its size when
// known ("K (10)", "N (234)"), a literal size as the number, a derived
// size as its text.
func dimLabel(d check.Dim, sizes map[string]int) string {
	switch {
	case d.Name == "":
		return d.String()
	case d.Known():
		return fmt.Sprintf("%s (%d)", d.Name, d.N)
	}
	if n, ok := sizes[d.Name]; ok && !d.Derived {
		return fmt.Sprintf("%s (%d)", d.Name, n)
	}
	return d.Name
}

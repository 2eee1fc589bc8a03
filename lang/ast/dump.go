package ast

import (
	"fmt"
	"strings"
)

// Dump returns a compact, position-free S-expression of the tree rooted at
// n, for tests and debugging. Expressions:
//
//	(ident x)  (int 3)  (real 1e-3)  (unary - X)  (binary + X Y)  (paren X)
//	(transpose X)  (call f A...)  (index X I...)  (slice LO HI)  (vector E...)
//
// where an absent slice bound is _. Types are (type KIND (lower E)
// (upper E) (dims E...)), each part present only when set; statements are
// (data x T), (const x T? E), (param x T PRIOR?), (tilde LHS DIST
// (trunc LO HI)?),
// (let x E), (target += E), (for i LO HI STMT...), (if (branch COND
// STMT...)... (else STMT...)?), (output x E?) and (fn f (a b) (let ...)...
// BODY). A File
// dumps as (file ...) with one statement per line.
func Dump(n Node) string {
	var d dumper
	d.node(n)
	return d.b.String()
}

type dumper struct {
	b strings.Builder
}

func (d *dumper) open(head string, parts ...string) {
	d.b.WriteString("(" + head)
	for _, p := range parts {
		d.b.WriteString(" " + p)
	}
}

func (d *dumper) close() { d.b.WriteByte(')') }

// kids writes " X" for each node, _ for a nil one.
func (d *dumper) kids(ns ...Node) {
	for _, n := range ns {
		d.b.WriteByte(' ')
		d.node(n)
	}
}

func (d *dumper) exprs(es []Expr) {
	for _, e := range es {
		d.kids(e)
	}
}

func (d *dumper) node(n Node) {
	switch n := n.(type) {
	case nil:
		d.b.WriteByte('_')
	case *File:
		d.open("file")
		for _, s := range n.Stmts {
			d.b.WriteString("\n  ")
			d.node(s)
		}
		d.close()
	case *Ident:
		d.open("ident", n.Name)
		d.close()
	case *NumberLit:
		kind := "real"
		if n.IsInt {
			kind = "int"
		}
		d.open(kind, n.Raw)
		d.close()
	case *UnaryExpr:
		d.open("unary", n.Op.String())
		d.kids(n.X)
		d.close()
	case *BinaryExpr:
		d.open("binary", n.Op.String())
		d.kids(n.X, n.Y)
		d.close()
	case *ParenExpr:
		d.open("paren")
		d.kids(n.X)
		d.close()
	case *TransposeExpr:
		d.open("transpose")
		d.kids(n.X)
		d.close()
	case *CallExpr:
		d.open("call", n.Fun.Name)
		d.exprs(n.Args)
		d.close()
	case *IndexExpr:
		d.open("index")
		d.kids(n.X)
		d.exprs(n.Indices)
		d.close()
	case *VectorLit:
		d.open("vector")
		d.exprs(n.Elems)
		d.close()
	case *SliceExpr:
		d.open("slice")
		d.kids(n.Lo, n.Hi)
		d.close()
	case *TypeExpr:
		d.open("type", n.Kind.String())
		if n.Lower != nil {
			d.b.WriteString(" (lower")
			d.kids(n.Lower)
			d.close()
		}
		if n.Upper != nil {
			d.b.WriteString(" (upper")
			d.kids(n.Upper)
			d.close()
		}
		if len(n.Dims) > 0 {
			d.b.WriteString(" (dims")
			d.exprs(n.Dims)
			d.close()
		}
		d.close()
	case *DataDecl:
		d.open("data", n.Name.Name)
		d.kids(n.Type)
		d.close()
	case *ConstDecl:
		d.open("const", n.Name.Name)
		if n.Type != nil {
			d.kids(n.Type)
		}
		d.kids(n.Value)
		d.close()
	case *ParamDecl:
		d.open("param", n.Name.Name)
		d.kids(n.Type)
		if n.Prior != nil {
			d.kids(n.Prior)
		}
		d.close()
	case *TildeStmt:
		d.open("tilde")
		d.kids(n.LHS, n.Dist)
		if n.Trunc != nil {
			d.kids(n.Trunc)
		}
		d.close()
	case *Truncation:
		d.open("trunc")
		d.kids(n.Lower, n.Upper)
		d.close()
	case *LetStmt:
		d.open("let", n.Name.Name)
		d.kids(n.Value)
		d.close()
	case *TargetStmt:
		d.open("target", n.Op.String()+"=")
		d.kids(n.Value)
		d.close()
	case *ForStmt:
		d.open("for", n.Var.Name)
		d.kids(n.Lo, n.Hi)
		for _, s := range n.Body {
			d.kids(s)
		}
		d.close()
	case *IfStmt:
		d.open("if")
		for _, b := range n.Branches {
			d.b.WriteString(" (branch")
			d.kids(b.Cond)
			for _, s := range b.Body.Stmts {
				d.kids(s)
			}
			d.close()
		}
		if n.ElseBody != nil {
			d.b.WriteString(" (else")
			for _, s := range n.ElseBody.Stmts {
				d.kids(s)
			}
			d.close()
		}
		d.close()
	case *OutputStmt:
		d.open("output", n.Name.Name)
		if n.Value != nil {
			d.kids(n.Value)
		}
		if n.Dist != nil {
			d.kids(n.Dist)
		}
		if n.Trunc != nil {
			d.kids(n.Trunc)
		}
		d.close()
	case *FnDecl:
		params := make([]string, len(n.Params))
		for i, id := range n.Params {
			params[i] = id.Name
		}
		d.open("fn", n.Name.Name, "("+strings.Join(params, " ")+")")
		for _, l := range n.Lets {
			d.kids(l)
		}
		d.kids(n.Body)
		d.close()
	default:
		panic(fmt.Sprintf("ast.Dump: unexpected node %T", n))
	}
}

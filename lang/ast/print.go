package ast

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Printing writes canonical source: one statement per line, declarations
// as `name: type`, single spaces around binary operators and around ~, =,
// += and -=, a comma and a space between arguments, indices and the
// elements of a vector literal ([a, b, c]), an empty index position as ":"
// (x[:, 0]), bounds as <lower=L, upper=U>, and four spaces of indentation
// per enclosing for, if or fn body; an else follows its "}" on the same line.
//
// Parentheses are printed exactly where the tree has a ParenExpr, so a
// parsed file prints with the author's grouping and parses back to the same
// tree. A tree built by hand whose structure the precedence rules cannot
// express without grouping (a BinaryExpr + as the operand of *, say) gets
// the parentheses it needs, so its printed form always means the same tree.
//
// Comments are not part of the tree and are not printed; neither are blank
// lines or the author's alignment.

// Fprint writes f to w as canonical source, one statement per line.
func Fprint(w io.Writer, f *File) error {
	var p printer
	for _, s := range f.Stmts {
		p.stmt(s)
		p.b.WriteByte('\n')
	}
	_, err := io.WriteString(w, p.b.String())
	return err
}

// FormatExpr returns the canonical source of e.
func FormatExpr(e Expr) string {
	var p printer
	p.expr(e)
	return p.b.String()
}

// FormatStmt returns the canonical source of s, without a final newline; a
// for statement spans several lines.
func FormatStmt(s Stmt) string {
	var p printer
	p.stmt(s)
	return p.b.String()
}

// FormatType returns the canonical source of t, e.g. int<lower=0>[N, 2].
func FormatType(t *TypeExpr) string {
	var p printer
	p.typ(t)
	return p.b.String()
}

type printer struct {
	b      strings.Builder
	indent int
}

func (p *printer) str(ss ...string) {
	for _, s := range ss {
		p.b.WriteString(s)
	}
}

func (p *printer) stmt(s Stmt) {
	p.str(strings.Repeat("    ", p.indent))
	switch s := s.(type) {
	case *DataDecl:
		p.str("data ", s.Name.Name, ": ")
		p.typ(s.Type)
	case *ConstDecl:
		p.str("const ", s.Name.Name)
		if s.Type != nil {
			p.str(": ")
			p.typ(s.Type)
		}
		p.str(" = ")
		p.expr(s.Value)
	case *ParamDecl:
		p.str("param ", s.Name.Name, ": ")
		p.typ(s.Type)
		if s.Prior != nil {
			p.str(" ~ ")
			p.expr(s.Prior)
		}
	case *TildeStmt:
		p.expr(s.LHS)
		p.str(" ~ ")
		p.expr(s.Dist)
		p.trunc(s.Trunc)
	case *LetStmt:
		p.str("let ", s.Name.Name, " = ")
		p.expr(s.Value)
	case *TargetStmt:
		p.str("target ", s.Op.String(), "= ")
		p.expr(s.Value)
	case *ForStmt:
		p.str("for ", s.Var.Name, " in ")
		p.expr(s.Lo)
		p.str(":")
		p.expr(s.Hi)
		p.block(s.Body)
	case *IfStmt:
		for i, b := range s.Branches {
			if i > 0 {
				p.str(" else ")
			}
			p.str("if ")
			p.expr(b.Cond)
			p.block(b.Body.Stmts)
		}
		if s.ElseBody != nil {
			p.str(" else")
			p.block(s.ElseBody.Stmts)
		}
	case *OutputStmt:
		p.str("output ", s.Name.Name)
		if s.Value != nil {
			p.str(" = ")
			p.expr(s.Value)
		}
		if s.Dist != nil {
			p.str(" ~ ")
			p.expr(s.Dist)
		}
		p.trunc(s.Trunc)
	case *FnDecl:
		p.str("fn ", s.Name.Name, "(")
		for i, id := range s.Params {
			if i > 0 {
				p.str(", ")
			}
			p.str(id.Name)
		}
		p.str(")")
		if !s.IsBlock() {
			p.str(" = ")
			p.expr(s.Body)
			break
		}
		p.str(" {\n")
		p.indent++
		for _, l := range s.Lets {
			p.stmt(l)
			p.str("\n")
		}
		p.str(strings.Repeat("    ", p.indent), "return ")
		p.expr(s.Body)
		p.indent--
		p.str("\n", strings.Repeat("    ", p.indent), "}")
	default:
		panic(fmt.Sprintf("ast: cannot print statement %T", s))
	}
}

// trunc prints " T[L, U]" (an empty bound as nothing: T[0, ]), or nothing
// for a nil t.
func (p *printer) trunc(t *Truncation) {
	if t == nil {
		return
	}
	p.str(" T[")
	if t.Lower != nil {
		p.expr(t.Lower)
	}
	p.str(", ")
	if t.Upper != nil {
		p.expr(t.Upper)
	}
	p.str("]")
}

// block prints " {", the statements one level deeper, and "}": a for
// loop's body or an if branch's.
func (p *printer) block(stmts []Stmt) {
	p.str(" {\n")
	p.indent++
	for _, s := range stmts {
		p.stmt(s)
		p.str("\n")
	}
	p.indent--
	p.str(strings.Repeat("    ", p.indent), "}")
}

func (p *printer) typ(t *TypeExpr) {
	p.str(t.Kind.String())
	if t.Lower != nil || t.Upper != nil {
		p.str("<")
		if t.Lower != nil {
			p.str("lower=")
			p.expr(t.Lower)
		}
		if t.Upper != nil {
			if t.Lower != nil {
				p.str(", ")
			}
			p.str("upper=")
			p.expr(t.Upper)
		}
		p.str(">")
	}
	if len(t.Dims) > 0 {
		p.str("[")
		p.list(t.Dims)
		p.str("]")
	}
}

func (p *printer) list(es []Expr) {
	for i, e := range es {
		if i > 0 {
			p.str(", ")
		}
		p.expr(e)
	}
}

// Binding strengths of expression forms, extending Op.Precedence: an atom or
// postfix form binds tightest.
const (
	precCompare = 3
	precUnary   = 6
	precPostfix = 8
)

func prec(e Expr) int {
	switch e := e.(type) {
	case *BinaryExpr:
		return e.Op.Precedence()
	case *UnaryExpr:
		return precUnary
	}
	return precPostfix
}

// operand prints e, in parentheses when its binding strength is below min.
func (p *printer) operand(e Expr, min int) {
	if prec(e) < min {
		p.str("(")
		p.expr(e)
		p.str(")")
		return
	}
	p.expr(e)
}

func (p *printer) expr(e Expr) {
	switch e := e.(type) {
	case *Ident:
		p.str(e.Name)
	case *NumberLit:
		if e.Raw != "" {
			p.str(e.Raw)
		} else {
			p.str(strconv.FormatFloat(e.Value, 'g', -1, 64))
		}
	case *ParenExpr:
		p.str("(")
		p.expr(e.X)
		p.str(")")
	case *UnaryExpr:
		p.str(e.Op.String())
		p.operand(e.X, precUnary)
	case *BinaryExpr:
		pr := e.Op.Precedence()
		if e.Op == Pow {
			// Right-associative, and the exponent may be a negation (x^-1).
			p.operand(e.X, pr+1)
			p.str(" ^ ")
			p.operand(e.Y, min(pr, precUnary))
			return
		}
		// Left-associative: a - (b - c) keeps its parentheses; a negation
		// binds tighter than * and needs none (a * -b). Comparisons do not
		// chain: (a < b) < c keeps its parentheses too.
		left := pr
		if pr == precCompare {
			left++
		}
		p.operand(e.X, left)
		p.str(" ", e.Op.String(), " ")
		p.operand(e.Y, pr+1)
	case *TransposeExpr:
		p.operand(e.X, precPostfix)
		p.str("'")
	case *CallExpr:
		p.str(e.Fun.Name, "(")
		p.list(e.Args)
		p.str(")")
	case *IndexExpr:
		p.operand(e.X, precPostfix)
		p.str("[")
		p.list(e.Indices)
		p.str("]")
	case *VectorLit:
		p.str("[")
		p.list(e.Elems)
		p.str("]")
	case *SliceExpr:
		if e.Lo != nil {
			p.expr(e.Lo)
		}
		p.str(":")
		if e.Hi != nil {
			p.expr(e.Hi)
		}
	default:
		panic(fmt.Sprintf("ast: cannot print expression %T", e))
	}
}

package parser_test

import (
	"fmt"
	"os"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/parser"
)

func ExampleParseFile() {
	src := []byte(`data y: real[N]
param mu: real ~ Normal(0, 5)
y ~ Normal(mu, 1)
`)
	f, err := parser.ParseFile("model.gpp", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range f.Stmts {
		fmt.Printf("%v: %s\n", s.Pos(), ast.FormatStmt(s))
	}
	// Output:
	// model.gpp:1:1: data y: real[N]
	// model.gpp:2:1: param mu: real ~ Normal(0, 5)
	// model.gpp:3:1: y ~ Normal(mu, 1)
}

func ExampleParseFile_errors() {
	src := []byte(`param x
let y = x +
let z = exp(x
output z
`)
	_, err := parser.ParseFile("model.gpp", src)
	fmt.Println(err)
	// Output:
	// model.gpp:1:8: expected ":" after "x", found newline
	// model.gpp:2:12: expected an expression after "+", found newline
	// model.gpp:3:14: expected ")" after "x", found newline; the "(" at 3:12 is not closed
}

func ExampleParseExpr() {
	x, err := parser.ParseExpr("-x^2 + W[i]'")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ast.Dump(x))
	// Output:
	// (binary + (unary - (binary ^ (ident x) (int 2))) (transpose (index (ident W) (ident i))))
}

func Example_print() {
	f, _ := parser.ParseFile("m.gpp", []byte("data Y:real[N,D]  # comment\nlet s=colsum(Y[ ,0])\n"))
	ast.Fprint(os.Stdout, f)
	// Output:
	// data Y: real[N, D]
	// let s = colsum(Y[:, 0])
}

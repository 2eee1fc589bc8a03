// Package parser turns gpp source text into the syntax tree of lang/ast.
//
// Place in the pipeline: source → lang/parser → lang/ast → check →
// compile → lang/autodiff → infer. The parser knows syntax only: names,
// types, shapes and supports are the checker's business.
//
// The grammar is written with participle (grammar.go; its EBNF is kept in
// testdata/grammar.ebnf). Its structs are private to this package and are
// lowered into lang/ast nodes at once (lower.go): no other package sees them,
// and nothing is evaluated on them. The lexer (scan.go) is a participle
// lexer.Definition that implements the statement-termination rule of
// language.md §1 by inserting terminator tokens.
//
// Errors are ast.ErrorList values of *ast.Error, each with the file name and
// the 1-based line and column (in bytes) of the offending token, worded as
// what was expected and what was found:
//
//	model.gpp:3:12: expected an expression after "+", found newline
//
// The parser recovers at statement boundaries, so one run reports every
// independent syntax error of a file.
package parser

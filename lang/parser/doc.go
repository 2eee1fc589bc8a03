// Package parser turns gpp source text into the syntax tree of lang/ast.
//
// Place in the pipeline: source → lang/parser → lang/ast → check →
// compile → lang/autodiff → infer. The parser knows syntax only: names,
// types, shapes and supports are the checker's business.
//
// The grammar is written with participle (grammar.go; its EBNF is kept in
// testdata/grammar.ebnf, checked by a test, regenerated with
// go test ./lang/parser -update). Its structs are private to this package and
// are lowered into lang/ast nodes at once (lower.go): no other package sees
// them, and nothing is evaluated on them. The lexer (scan.go) is a participle
// lexer.Definition that implements the statement-termination rule of
// language.md §1 by inserting terminator tokens.
//
// # Errors
//
// Errors are an ast.ErrorList of *ast.Error, each with the file name and the
// 1-based line and column (in bytes) of the offending token, worded as what
// was expected and what was found:
//
//	model.gpp:3:12: expected an expression after "+", found newline
//
// The parser recovers at statement boundaries (and at the statements of a
// for body), so one run reports every independent syntax error of a file.
// A statement left open by a trailing operator or an unclosed bracket runs
// on into the next line, as in Go, unless that line starts with a statement
// keyword (data, const, param, let, output, target, for, if, fn, return),
// which can never continue an expression.
//
// # Decisions the language reference leaves open
//
//   - Keywords and ">" (which closes a type's bounds) end a line like names
//     do, so "data N: int" and "data x: int<lower=0>" end at the newline.
//   - The exponent of ^ may be negated: x^-1 is x^(-1), and -x^-y^2 is
//     -(x^(-(y^2))).
//   - The postfix operators apply to any operand and chain left to right:
//     x'[0] is (x')[0]; f(x)[0] and (a + b)' are syntax, and a transpose
//     may be repeated. Only a name can be called: f(x)(y) is an error.
//   - "3." is a malformed number (so 3.*x is 3 .* x), as is a number with
//     letters, digits or dots glued on (2x, 1e, 1.5.3). Names are ASCII.
//   - An index has at least one position; x[] is an error, x[,] is every
//     element of a matrix. Slices may appear in any position; the number of
//     positions is the checker's to limit.
//   - Bounds come in either order, each at most once, and are accepted on
//     any type: that they are for data only is the checker's rule, as is the
//     kind of a const's type.
//   - data, const, param, output and fn inside a for or if body are syntax
//     errors.
//   - A function is fn f(a, b) = EXPR, or fn f(a, b) { let ...; return EXPR }:
//     a block of lets and one final return, each item starting with its
//     keyword so the grammar stays LL(1). Its parameters are bare names
//     (untyped); what its body may read is the checker's rule.
//   - Comparisons do not chain: a < b < c is an error, as is a == b != c.
//     A type's bounds hold arithmetic only (no comparison or logical
//     operator), so the first ">" after "int<" closes them; only that ">"
//     ends a line, and a comparison's ">" continues onto the next.
//   - An if's condition needs no parentheses and its "{" is on the line
//     of the condition; "else" follows a "}", on its line or the next, and
//     "else if" chains are lowered into one ast.IfStmt.
//   - A for body may be empty or written on one line (for i in 0:N { a; b });
//     its "{" must be on the header's line. Empty statements (;;) are
//     allowed. Calls take no trailing comma.
//   - A vector literal [a, b] has at least one element and, like a call, no
//     trailing comma. It is an operand: a "[" right after an operand is an
//     index ([a, b][0] indexes the literal; inside brackets, where a
//     newline ends nothing, even on the next line), and one that starts an
//     operand is a literal (x[[0, 2]] gathers). Literals nest in the
//     syntax; that elements are scalars is the checker's rule.
//
// Comments are dropped: the tree, and so ast.Fprint, has none.
package parser

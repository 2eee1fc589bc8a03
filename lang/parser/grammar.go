package parser

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The participle grammar. These structs only record what was matched; they
// are lowered into lang/ast by lower.go and never leave the package. Struct
// names become production names in the EBNF (testdata/grammar.ebnf).
//
// The grammar is LL(1) and built with UseLookahead(0): once an alternative
// or an optional group has consumed a token it is committed, so an error is
// reported where the input went wrong rather than where a backtracked
// alternative gave up.
//
// Every statement is followed by exactly one Terminator token: the lexer
// (scan.go) turns newlines into terminators by the rule of language.md §1
// and inserts one before "}" and at the end of the input when needed.

type file struct {
	Stmts []*stmt `parser:"(@@ Terminator)*"`
}

// exprInput is the root of ParseExpr.
type exprInput struct {
	X *expr `parser:"@@ Terminator?"`
}

type stmt struct {
	Data   *dataDecl   `parser:"  @@"`
	Const  *constDecl  `parser:"| @@"`
	Param  *paramDecl  `parser:"| @@"`
	Let    *letStmt    `parser:"| @@"`
	Target *targetStmt `parser:"| @@"`
	For    *forStmt    `parser:"| @@"`
	If     *ifStmt     `parser:"| @@"`
	Output *outputStmt `parser:"| @@"`
	Tilde  *tildeStmt  `parser:"| @@"`
	Fn     *fnDecl     `parser:"| @@"`
}

type dataDecl struct {
	Pos  lexer.Position
	Name *ident    `parser:"'data' @@ ':'"`
	Type *typeExpr `parser:"@@"`
}

type constDecl struct {
	Pos   lexer.Position
	Name  *ident    `parser:"'const' @@"`
	Type  *typeExpr `parser:"(':' @@)?"`
	Value *expr     `parser:"'=' @@"`
}

type paramDecl struct {
	Pos   lexer.Position
	Name  *ident    `parser:"'param' @@ ':'"`
	Type  *typeExpr `parser:"@@"`
	Prior *dist     `parser:"('~' @@"`
	Trunc *trunc    `parser:" @@?)?"`
}

type tildeStmt struct {
	LHS   *expr       `parser:"@@"`
	Tilde lexer.Token `parser:"@'~'"`
	Dist  *dist       `parser:"@@"`
	Trunc *trunc      `parser:"@@?"`
}

// trunc is Stan's truncation T[L, U] after a distribution, either bound
// empty: T[0, ], T[, 10]. T is an ordinary name, matched by spelling here
// (as lower and upper are in a type's bounds), where nothing else may
// follow a distribution.
type trunc struct {
	T      lexer.Token `parser:"@'T'"`
	Lbrack lexer.Token `parser:"@'['"`
	Lower  *expr       `parser:"@@?"`
	Comma  lexer.Token `parser:"@','"`
	Upper  *expr       `parser:"@@?"`
	Rbrack lexer.Token `parser:"@']'"`
}

// fnDecl is a user function: fn f(a, b) = EXPR, or the block form
// fn f(a, b) { let u = ...; return EXPR }, whose items start with "let" or
// "return" (LL(1)).
type fnDecl struct {
	Pos    lexer.Position
	Name   *ident       `parser:"'fn' @@"`
	Lparen lexer.Token  `parser:"@'('"`
	Params []*ident     `parser:"(@@ (',' @@)*)?"`
	Rparen lexer.Token  `parser:"@')'"`
	Eq     *lexer.Token `parser:"(  @'='"`
	Value  *expr        `parser:"   @@"`
	Lbrace *lexer.Token `parser:" | @'{'"`
	Lets   []*letStmt   `parser:"   (@@ Terminator)*"`
	Return lexer.Token  `parser:"   @'return'"`
	Body   *expr        `parser:"   @@ Terminator"`
	Rbrace lexer.Token  `parser:"   @'}' )"`
}

type letStmt struct {
	Pos   lexer.Position
	Name  *ident `parser:"'let' @@ '='"`
	Value *expr  `parser:"@@"`
}

type targetStmt struct {
	Pos   lexer.Position
	Op    lexer.Token `parser:"'target' @('+=' | '-=')"`
	Value *expr       `parser:"@@"`
}

type forStmt struct {
	Pos    lexer.Position
	Var    *ident      `parser:"'for' @@ 'in'"`
	Lo     *expr       `parser:"@@ ':'"`
	Hi     *expr       `parser:"@@"`
	Lbrace lexer.Token `parser:"@'{'"`
	Body   []*stmt     `parser:"(@@ Terminator)*"`
	Rbrace lexer.Token `parser:"@'}'"`
}

// ifStmt is if COND { ... } with any else-if branches and a final else.
// The condition is a full expression; a "{" cannot continue one.
type ifStmt struct {
	Pos    lexer.Position
	Cond   *expr       `parser:"'if' @@"`
	Lbrace lexer.Token `parser:"@'{'"`
	Body   []*stmt     `parser:"(@@ Terminator)*"`
	Rbrace lexer.Token `parser:"@'}'"`
	Else   *elseClause `parser:"@@?"`
}

// elseClause is "else" followed by another if (else if) or a block.
type elseClause struct {
	Else   lexer.Token  `parser:"@'else'"`
	If     *ifStmt      `parser:"(  @@"`
	Lbrace *lexer.Token `parser:" | @'{'"`
	Body   []*stmt      `parser:"   (@@ Terminator)*"`
	Rbrace lexer.Token  `parser:"   @'}' )"`
}

type outputStmt struct {
	Pos   lexer.Position
	Name  *ident       `parser:"'output' @@"`
	Value *expr        `parser:"( '=' @@"`
	Tilde *lexer.Token `parser:"| @'~'"`
	Dist  *dist        `parser:"  @@"`
	Trunc *trunc       `parser:"  @@? )?"`
}

// typeExpr is a declared type; bounds may come in any order and are checked
// for duplicates when lowered.
type typeExpr struct {
	Pos    lexer.Position
	Kind   string   `parser:"@('int' | 'real' | 'positive' | 'unit' | 'simplex' | 'ordered' | 'cholesky_factor_corr' | 'positive_ordered' | 'corr_matrix' | 'cholesky_factor_cov' | 'cov_matrix' | 'sum_to_zero_vector' | 'sum_to_zero_matrix')"`
	Bounds []*bound `parser:"('<' @@ (',' @@)* '>')?"`
	Dims   []*expr  `parser:"('[' @@ (',' @@)* ']')?"`
	Tokens []lexer.Token
}

// bound is lower=V or upper=V. V is an arithmetic expression, without
// comparisons or logical operators, whose ">" would close the bounds.
type bound struct {
	Pos   lexer.Position
	Which string `parser:"@('lower' | 'upper') '='"`
	Value *arith `parser:"@@"`
}

// dist is a distribution: a call in the right-hand side of ~.
type dist struct {
	Fun  *ident `parser:"@@"`
	Args *args  `parser:"@@"`
}

// Expressions, one struct per precedence level of language.md §4.

// expr is the loosest level: operands joined by ||.
type expr struct {
	X    *andExpr `parser:"@@"`
	Rest []*orOp  `parser:"@@*"`
}

type orOp struct {
	Op lexer.Token `parser:"@'||'"`
	Y  *andExpr    `parser:"@@"`
}

type andExpr struct {
	X    *cmpExpr `parser:"@@"`
	Rest []*andOp `parser:"@@*"`
}

type andOp struct {
	Op lexer.Token `parser:"@'&&'"`
	Y  *cmpExpr    `parser:"@@"`
}

// cmpExpr is at most one comparison: they do not chain (a < b < c).
type cmpExpr struct {
	X  *arith       `parser:"@@"`
	Op *lexer.Token `parser:"(@('<' | '<=' | '>' | '>=' | '==' | '!=')"`
	Y  *arith       `parser:" @@)?"`
}

type arith struct {
	X    *product `parser:"@@"`
	Rest []*addOp `parser:"@@*"`
}

type addOp struct {
	Op lexer.Token `parser:"@('+' | '-')"`
	Y  *product    `parser:"@@"`
}

type product struct {
	X    *unary   `parser:"@@"`
	Rest []*mulOp `parser:"@@*"`
}

type mulOp struct {
	Op lexer.Token `parser:"@('*' | '.*' | '/' | '%/%' | '%')"`
	Y  *unary      `parser:"@@"`
}

type unary struct {
	Neg   *negation `parser:"  @@"`
	Power *power    `parser:"| @@"`
}

// negation is -X or !X.
type negation struct {
	Op lexer.Token `parser:"@('-' | '!')"`
	X  *unary      `parser:"@@"`
}

// power is right-associative, and its exponent may be negated: 2^3^2 is
// 2^(3^2) and x^-1 is x^(-1).
type power struct {
	X  *postfix     `parser:"@@"`
	Op *lexer.Token `parser:"(@'^'"`
	Y  *unary       `parser:" @@)?"`
}

type postfix struct {
	X   *operand  `parser:"@@"`
	Ops []*postOp `parser:"@@*"`
}

type postOp struct {
	Index *index      `parser:"  @@"`
	Quote lexer.Token `parser:"| @\"'\""`
}

type index struct {
	Lbrack lexer.Token  `parser:"@'['"`
	Items  []*indexItem `parser:"@@ (',' @@)*"`
	Rbrack lexer.Token  `parser:"@']'"`
}

// indexItem may match nothing: an empty position as in x[, 0]. Its Pos is
// then that of the "," or "]" that follows.
type indexItem struct {
	Pos   lexer.Position
	Lo    *expr        `parser:"@@?"`
	Colon *lexer.Token `parser:"(@':'"`
	Hi    *expr        `parser:" @@?)?"`
}

type operand struct {
	Number *number    `parser:"  @@"`
	Name   *name      `parser:"| @@"`
	Paren  *paren     `parser:"| @@"`
	Vector *vectorLit `parser:"| @@"`
}

// name is a name, or a call when followed by arguments.
type name struct {
	Ident *ident `parser:"@@"`
	Args  *args  `parser:"@@?"`
}

type args struct {
	Lparen lexer.Token `parser:"@'('"`
	List   []*expr     `parser:"(@@ (',' @@)*)?"`
	Rparen lexer.Token `parser:"@')'"`
}

type paren struct {
	Lparen lexer.Token `parser:"@'('"`
	X      *expr       `parser:"@@"`
	Rparen lexer.Token `parser:"@')'"`
}

// vectorLit is a vector literal [e1, e2, ...]: at least one element and,
// as in call arguments, no trailing comma. A "[" that follows an operand is
// an index (postOp); one that starts an operand is a literal.
type vectorLit struct {
	Lbrack lexer.Token `parser:"@'['"`
	Elems  []*expr     `parser:"@@ (',' @@)*"`
	Rbrack lexer.Token `parser:"@']'"`
}

type number struct {
	Pos lexer.Position
	Raw string `parser:"@Number"`
}

type ident struct {
	Pos  lexer.Position
	Name string `parser:"@Ident"`
}

var (
	fileParser = participle.MustBuild[file](participle.Lexer(definition{}), participle.UseLookahead(0))
	exprParser = participle.MustBuild[exprInput](participle.Lexer(definition{}), participle.UseLookahead(0))
)

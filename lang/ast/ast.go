// Package ast defines the syntax tree of a .gpp model.
//
// Place in the pipeline: lang/parser lowers source text into these nodes;
// the checker (lang/check) annotates them with types, shapes and supports;
// the compiler turns them into an autodiff program. The package imports only
// the standard library.
//
// Every node records its source span (Pos, End), so any later phase — down
// to a NaN found during a fit — can report a model position. The node
// interfaces are sealed by unexported marker methods: the set of node kinds
// is closed and switches over them can be exhaustive.
package ast

// Node is any syntax tree node.
type Node interface {
	Pos() Pos // first character of the node
	End() Pos // position just after the node
}

// Expr is an expression node.
type Expr interface {
	Node
	exprNode()
}

// Stmt is a statement or declaration node.
type Stmt interface {
	Node
	stmtNode()
}

// File is a parsed model.
type File struct {
	Name  string // file name used in positions
	Stmts []Stmt
}

// Pos returns the position of the first statement, or line 1 column 1.
func (f *File) Pos() Pos {
	if len(f.Stmts) > 0 {
		return f.Stmts[0].Pos()
	}
	return Pos{File: f.Name, Line: 1, Col: 1}
}

// End returns the end of the last statement.
func (f *File) End() Pos {
	if len(f.Stmts) > 0 {
		return f.Stmts[len(f.Stmts)-1].End()
	}
	return f.Pos()
}

// ---------------------------------------------------------------------------
// Operators

// Op is a unary or binary operator.
type Op int

// Operators, in no particular order; see Precedence.
const (
	Add    Op = iota + 1 // +
	Sub                  // -
	Mul                  // *  matrix product (scaling when an operand is scalar)
	EMul                 // .* elementwise product with broadcasting
	Div                  // /  elementwise division with broadcasting
	Pow                  // ^  elementwise power, right-associative
	Neg                  // unary -
	Lt                   // <  comparisons: 1 where true, 0 where false
	Le                   // <=
	Gt                   // >
	Ge                   // >=
	Eq                   // ==
	Ne                   // !=
	And                  // && logical and: 1 where both are non-zero
	Or                   // || logical or: 1 where either is non-zero
	Not                  // unary ! logical not: 1 where the operand is 0
	Mod                  // %   int modulus, with the sign of the dividend (Stan's, C's)
	IntDiv               // %/% int division, truncated toward 0 (Stan's)
)

var opText = [...]string{Add: "+", Sub: "-", Mul: "*", EMul: ".*", Div: "/", Pow: "^", Neg: "-",
	Lt: "<", Le: "<=", Gt: ">", Ge: ">=", Eq: "==", Ne: "!=", And: "&&", Or: "||", Not: "!", Mod: "%", IntDiv: "%/%"}

func (o Op) String() string {
	if o > 0 && int(o) < len(opText) {
		return opText[o]
	}
	return "?"
}

// Precedence returns the binding strength of an operator: higher binds
// tighter. As in Stan, || binds loosest, then &&, then the comparisons
// (which do not chain: a < b < c is a syntax error), then + and -, then *,
// .*, /, % and %/%. Unary minus and ! bind tighter than * and looser than ^ (-x^2
// is -(x^2)); postfix transpose, indexing and calls bind tightest of all.
func (o Op) Precedence() int {
	switch o {
	case Or:
		return 1
	case And:
		return 2
	case Lt, Le, Gt, Ge, Eq, Ne:
		return 3
	case Add, Sub:
		return 4
	case Mul, EMul, Div, Mod, IntDiv:
		return 5
	case Neg, Not:
		return 6
	case Pow:
		return 7
	}
	return 0
}

// IsComparison reports whether o is one of < <= > >= == !=.
func (o Op) IsComparison() bool { return o >= Lt && o <= Ne }

// IsLogical reports whether o is one of the comparisons or && || !: an
// operator whose value is an int 0 or 1.
func (o Op) IsLogical() bool { return o >= Lt && o <= Not }

// ---------------------------------------------------------------------------
// Expressions

// Ident is a name.
type Ident struct {
	NamePos Pos
	Name    string
}

// NumberLit is a numeric literal. IsInt is true for literals written without
// a decimal point or exponent.
type NumberLit struct {
	ValuePos Pos
	Raw      string // source text, e.g. "1e-3"
	Value    float64
	IsInt    bool
}

// UnaryExpr is -X or !X.
type UnaryExpr struct {
	OpPos Pos
	Op    Op // Neg or Not
	X     Expr
}

// BinaryExpr is X Op Y.
type BinaryExpr struct {
	X     Expr
	OpPos Pos
	Op    Op
	Y     Expr
	// Start is X.Pos(), recorded by the parser: a left-deep chain of n
	// operators would otherwise make every Pos call walk its spine, and a
	// pass that asks each node for its position quadratic in n. Zero means
	// "ask X".
	Start Pos
}

// ParenExpr is a parenthesised expression, kept so that printing reproduces
// the author's grouping.
type ParenExpr struct {
	Lparen Pos
	X      Expr
	Rparen Pos
}

// TransposeExpr is X' (postfix transpose).
type TransposeExpr struct {
	X     Expr
	Quote Pos
}

// CallExpr is Fun(Args...): a built-in function call, or a distribution in
// the right-hand side of ~ and in a param's prior.
type CallExpr struct {
	Fun    *Ident
	Lparen Pos
	Args   []Expr
	Rparen Pos
}

// IndexExpr is X[Indices...]. Each index is an ordinary expression (an int
// scalar picks one element or row; an int vector gathers rows) or a
// *SliceExpr.
type IndexExpr struct {
	X       Expr
	Lbrack  Pos
	Indices []Expr
	Rbrack  Pos
}

// VectorLit is a vector literal [Elems...]: a vector of len(Elems) scalars
// (at least one).
type VectorLit struct {
	Lbrack Pos
	Elems  []Expr
	Rbrack Pos
}

// SliceExpr is lo:hi inside an index, half-open; Lo or Hi may be nil. An empty
// index position (x[, 0]) and a bare colon (x[:, 0]) both parse to a SliceExpr
// with both bounds nil, positioned at Colon.
type SliceExpr struct {
	Lo    Expr // nil means 0
	Colon Pos
	Hi    Expr // nil means the full extent
}

func (x *Ident) Pos() Pos     { return x.NamePos }
func (x *NumberLit) Pos() Pos { return x.ValuePos }
func (x *UnaryExpr) Pos() Pos { return x.OpPos }
func (x *BinaryExpr) Pos() Pos {
	if x.Start.IsValid() {
		return x.Start
	}
	return x.X.Pos()
}
func (x *ParenExpr) Pos() Pos     { return x.Lparen }
func (x *TransposeExpr) Pos() Pos { return x.X.Pos() }
func (x *CallExpr) Pos() Pos      { return x.Fun.Pos() }
func (x *IndexExpr) Pos() Pos     { return x.X.Pos() }
func (x *VectorLit) Pos() Pos     { return x.Lbrack }
func (x *SliceExpr) Pos() Pos {
	if x.Lo != nil {
		return x.Lo.Pos()
	}
	return x.Colon
}

func (x *Ident) End() Pos         { return x.NamePos.Add(len(x.Name)) }
func (x *NumberLit) End() Pos     { return x.ValuePos.Add(len(x.Raw)) }
func (x *UnaryExpr) End() Pos     { return x.X.End() }
func (x *BinaryExpr) End() Pos    { return x.Y.End() }
func (x *ParenExpr) End() Pos     { return x.Rparen.Add(1) }
func (x *TransposeExpr) End() Pos { return x.Quote.Add(1) }
func (x *CallExpr) End() Pos      { return x.Rparen.Add(1) }
func (x *IndexExpr) End() Pos     { return x.Rbrack.Add(1) }
func (x *VectorLit) End() Pos     { return x.Rbrack.Add(1) }
func (x *SliceExpr) End() Pos {
	if x.Hi != nil {
		return x.Hi.End()
	}
	return x.Colon.Add(1)
}

func (*Ident) exprNode()         {}
func (*NumberLit) exprNode()     {}
func (*UnaryExpr) exprNode()     {}
func (*BinaryExpr) exprNode()    {}
func (*ParenExpr) exprNode()     {}
func (*TransposeExpr) exprNode() {}
func (*CallExpr) exprNode()      {}
func (*IndexExpr) exprNode()     {}
func (*VectorLit) exprNode()     {}
func (*SliceExpr) exprNode()     {}

// ---------------------------------------------------------------------------
// Types

// ElemKind is the element type or declared support written in a declaration.
type ElemKind int

// Element kinds. Int and Real are the data types; Positive, Unit, Simplex,
// Ordered, PositiveOrdered, CholCorr, CorrMatrix, CholCov, CovMatrix, SumToZero and SumToZeroMatrix are real with a support constraint (and decide a
// latent's variational family).
const (
	Int             ElemKind = iota + 1 // int
	Real                                // real: (-inf, inf)
	Positive                            // positive: (0, inf)
	Unit                                // unit: (0, 1)
	Simplex                             // simplex: last axis non-negative, summing to 1
	Ordered                             // ordered: a vector of strictly increasing reals
	CholCorr                            // cholesky_factor_corr: the Cholesky factor of a correlation matrix
	PositiveOrdered                     // positive_ordered: a vector of strictly increasing positive reals
	CorrMatrix                          // corr_matrix: a correlation matrix
	CholCov                             // cholesky_factor_cov: the Cholesky factor of a covariance matrix
	CovMatrix                           // cov_matrix: a covariance matrix
	SumToZero                           // sum_to_zero_vector: a vector whose elements sum to zero
	SumToZeroMatrix                     // sum_to_zero_matrix: a matrix whose rows and columns sum to zero
)

var elemText = [...]string{Int: "int", Real: "real", Positive: "positive", Unit: "unit", Simplex: "simplex", Ordered: "ordered", CholCorr: "cholesky_factor_corr", PositiveOrdered: "positive_ordered", CorrMatrix: "corr_matrix", CholCov: "cholesky_factor_cov", CovMatrix: "cov_matrix", SumToZero: "sum_to_zero_vector", SumToZeroMatrix: "sum_to_zero_matrix"}

// IsCorr reports whether k is CholCorr or CorrMatrix, a K×K param made
// from K(K−1)/2 unconstrained coordinates.
func (k ElemKind) IsCorr() bool { return k == CholCorr || k == CorrMatrix }

// IsMatrix reports whether k is CholCorr, CorrMatrix, CholCov or
// CovMatrix, a K×K param made from unconstrained coordinates, declared
// with one dimension.
func (k ElemKind) IsMatrix() bool { return k.IsCorr() || k == CholCov || k == CovMatrix }

// IsSumToZero reports whether k is SumToZero or SumToZeroMatrix.
func (k ElemKind) IsSumToZero() bool { return k == SumToZero || k == SumToZeroMatrix }

// IsOrdered reports whether k is Ordered or PositiveOrdered, a vector of
// strictly increasing values.
func (k ElemKind) IsOrdered() bool { return k == Ordered || k == PositiveOrdered }

func (k ElemKind) String() string {
	if k > 0 && int(k) < len(elemText) {
		return elemText[k]
	}
	return "?"
}

// TypeExpr is a declared type: an element kind, optional bounds and optional
// dimensions, e.g. int<lower=0>[N, 2] or positive[D, K].
type TypeExpr struct {
	KindPos Pos
	Kind    ElemKind
	Lower   Expr // optional <lower=...>
	Upper   Expr // optional <upper=...>
	Dims    []Expr
	EndPos  Pos // just after the type
}

func (t *TypeExpr) Pos() Pos { return t.KindPos }
func (t *TypeExpr) End() Pos { return t.EndPos }

// ---------------------------------------------------------------------------
// Statements and declarations

// DataDecl is `data Name: Type`.
type DataDecl struct {
	Data Pos
	Name *Ident
	Type *TypeExpr
}

// ConstDecl is `const Name = Value` or `const Name: Type = Value`; the value
// is a default that the command line may override.
type ConstDecl struct {
	Const Pos
	Name  *Ident
	Type  *TypeExpr // optional
	Value Expr
}

// ParamDecl is `param Name: Type` with an optional prior `~ Dist(...)`.
type ParamDecl struct {
	Param Pos
	Name  *Ident
	Type  *TypeExpr
	Prior *CallExpr // optional
}

// TildeStmt is `LHS ~ Dist(args)`, optionally truncated: `LHS ~
// Dist(args) T[L, U]`.
type TildeStmt struct {
	LHS   Expr
	Tilde Pos
	Dist  *CallExpr
	Trunc *Truncation // optional
}

// Truncation is Stan's `T[Lower, Upper]` after the distribution of a ~ or
// of a replicate: the density restricted to [Lower, Upper] and normalised
// by its mass there (a replicate drawn within the bounds). Either bound may be
// left empty (nil), as in T[0, ] and T[, 10].
type Truncation struct {
	T      Pos // of the "T"
	Lbrack Pos
	Lower  Expr // nil: no lower bound
	Comma  Pos
	Upper  Expr // nil: no upper bound
	Rbrack Pos
}

func (t *Truncation) Pos() Pos { return t.T }
func (t *Truncation) End() Pos { return t.Rbrack.Add(1) }

// LetStmt is `let Name = Value`.
type LetStmt struct {
	Let   Pos
	Name  *Ident
	Value Expr
}

// TargetStmt is `target += Value` or `target -= Value`.
type TargetStmt struct {
	Target Pos
	OpPos  Pos
	Op     Op // Add or Sub
	Value  Expr
}

// ForStmt is `for Var in Lo:Hi { Body }`, iterating Var over the half-open
// integer range [Lo, Hi).
type ForStmt struct {
	For    Pos
	Var    *Ident
	Lo     Expr
	Hi     Expr
	Lbrace Pos
	Body   []Stmt
	Rbrace Pos
}

// IfStmt is `if Cond { ... } else if Cond { ... } else { ... }`: the
// branches in order, each with its condition, and an optional final else.
// Conditions are known before the fit (data, constants, loop variables):
// the compiler evaluates them and lowers only the branch taken.
type IfStmt struct {
	Branches []*IfBranch // at least one: the if, then each else if
	Else     Pos         // of the final "else"; zero when there is none
	ElseBody *Block      // the final else's statements, or nil
}

// IfBranch is one `if Cond { Body }` of an IfStmt; Else is the position of
// the "else" before an else-if's "if", zero for the first branch.
type IfBranch struct {
	Else Pos
	If   Pos
	Cond Expr
	Body *Block
}

// Block is the braced statements of a branch.
type Block struct {
	Lbrace Pos
	Stmts  []Stmt
	Rbrace Pos
}

// OutputStmt is `output Name = Value`: a derived quantity evaluated on draws
// from the fitted approximation. The short form `output Name` (Value and
// Dist nil) reports the top-level let binding of that name. The predictive
// form `output Name ~ Dist(Args)` (Value nil) draws a value from Dist at
// every draw of q: a posterior predictive replicate, Stan's _rng.
type OutputStmt struct {
	Output Pos
	Name   *Ident
	Value  Expr        // nil in the short and predictive forms
	Tilde  Pos         // of `~` in the predictive form
	Dist   *CallExpr   // the predictive form's distribution, else nil
	Trunc  *Truncation // a T[...] after Dist, else nil
}

// FnDecl is a user function, `fn Name(Params...) = Body`, or the block
// form `fn Name(Params...) { let ... ; return Body }` with local lets
// before the returned expression. A call is expanded at its call site by
// the checker (pure, inlined, shape-polymorphic); the body may read only
// its parameters, its own lets, built-ins and functions declared before.
type FnDecl struct {
	Fn     Pos
	Name   *Ident
	Lparen Pos
	Params []*Ident
	Rparen Pos
	Lbrace Pos        // zero in the expression form
	Lets   []*LetStmt // the block form's local lets, in order
	Return Pos        // of "return" in the block form; of "=" in the expression form
	Body   Expr
	Rbrace Pos // zero in the expression form
}

// IsBlock reports whether d is written in the block form.
func (d *FnDecl) IsBlock() bool { return d.Lbrace.IsValid() }

func (s *DataDecl) Pos() Pos   { return s.Data }
func (s *ConstDecl) Pos() Pos  { return s.Const }
func (s *ParamDecl) Pos() Pos  { return s.Param }
func (s *TildeStmt) Pos() Pos  { return s.LHS.Pos() }
func (s *LetStmt) Pos() Pos    { return s.Let }
func (s *TargetStmt) Pos() Pos { return s.Target }
func (s *ForStmt) Pos() Pos    { return s.For }
func (s *IfStmt) Pos() Pos     { return s.Branches[0].If }
func (s *OutputStmt) Pos() Pos { return s.Output }
func (s *FnDecl) Pos() Pos     { return s.Fn }

func (s *DataDecl) End() Pos  { return s.Type.End() }
func (s *ConstDecl) End() Pos { return s.Value.End() }
func (s *ParamDecl) End() Pos {
	if s.Prior != nil {
		return s.Prior.End()
	}
	return s.Type.End()
}
func (s *TildeStmt) End() Pos {
	if s.Trunc != nil {
		return s.Trunc.End()
	}
	return s.Dist.End()
}
func (s *LetStmt) End() Pos    { return s.Value.End() }
func (s *TargetStmt) End() Pos { return s.Value.End() }
func (s *ForStmt) End() Pos    { return s.Rbrace.Add(1) }
func (s *IfStmt) End() Pos {
	if s.ElseBody != nil {
		return s.ElseBody.Rbrace.Add(1)
	}
	return s.Branches[len(s.Branches)-1].Body.Rbrace.Add(1)
}
func (s *OutputStmt) End() Pos {
	switch {
	case s.Trunc != nil:
		return s.Trunc.End()
	case s.Dist != nil:
		return s.Dist.End()
	case s.Value == nil:
		return s.Name.End()
	}
	return s.Value.End()
}

func (*DataDecl) stmtNode()   {}
func (*ConstDecl) stmtNode()  {}
func (*ParamDecl) stmtNode()  {}
func (*TildeStmt) stmtNode()  {}
func (*LetStmt) stmtNode()    {}
func (*TargetStmt) stmtNode() {}
func (*ForStmt) stmtNode()    {}
func (*IfStmt) stmtNode()     {}
func (*OutputStmt) stmtNode() {}
func (*FnDecl) stmtNode()     {}

func (s *FnDecl) End() Pos {
	if s.IsBlock() {
		return s.Rbrace.Add(1)
	}
	return s.Body.End()
}

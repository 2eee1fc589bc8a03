package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// Config adjusts a check.
type Config struct {
	// Overrides maps a const name to the text of its value from the command
	// line (--set NAME=VALUE). Names of scalar data are accepted too and
	// only validated: the data binder uses them.
	Overrides map[string]string
	// Imputed names real data read in expressions whose missing values
	// the bound data make latents (Info.Imputing): the checker types their
	// reads as values that change with the fit, not known before it.
	Imputed map[string]bool
}

// Info is what the checker learns about a valid (or partly valid) file; the
// compiler and the CLI read it.
type Info struct {
	// Types has the type of every value expression: operands, arguments,
	// dims, bounds and indices. Slices (*ast.SliceExpr), the Fun of a call
	// and distribution calls have no entry.
	Types map[ast.Expr]Type
	// Uses maps each identifier that refers to a declared name (including
	// size names in data dims and the name in `output NAME`) to its symbol.
	Uses map[*ast.Ident]*Symbol
	// Defs maps each declaring identifier to the symbol it declares; the
	// first mention of a size name is in both Defs and Uses.
	Defs map[*ast.Ident]*Symbol
	// Calls maps built-in function calls to their table entries.
	Calls map[*ast.CallExpr]*stdlib.Func
	// Dists maps distribution calls (right of ~, priors) to their entries.
	Dists map[*ast.CallExpr]*stdlib.Dist
	// Inlines maps each call of a user function to its expansion (fns.go).
	Inlines map[*ast.CallExpr]*Inline
	// ODEs maps each call of an ODE solver (ode_rk45, ode_bdf) to its checked
	// parts and its right-hand side's expanded body (ode.go).
	ODEs map[*ast.CallExpr]*ODECall
	// Algebras maps each call of an algebraic solver (solve_newton,
	// solve_powell) to its checked parts and its system's expanded body
	// (algebra.go).
	Algebras map[*ast.CallExpr]*AlgebraCall
	// Integrals maps each call of integrate_1d to its checked form.
	Integrals map[*ast.CallExpr]*IntegralCall
	// UserDensities maps the distribution of a ~ (or a param's prior)
	// whose family is a user density NAME to the call NAME_lpdf(value,
	// args...) that the checker built and expanded: its sum is the term.
	UserDensities map[*ast.CallExpr]*ast.CallExpr
	// PositiveData holds the data-only factors of a positive (or
	// non-negative) distribution argument that also reads params (`tau0 *
	// sigma`, `sigma / sqrt(N)`), with the support their values need:
	// the checker cannot show their sign, so the compiler checks that
	// their values are > 0 (≥ 0) (scaledByData).
	PositiveData map[ast.Expr]DataFactor
	// CountData holds the count arguments (Binomial's n, Multinomial's n)
	// that are int data of a sign the checker cannot show (`data n:
	// int[N]`): the compiler checks that their values are counts when the
	// model compiles with its data, at the data cell (unsignedCountData).
	// Each names the argument for messages: "Binomial argument 1 (n)".
	CountData map[ast.Expr]string

	Symbols []*Symbol    // top-level names in declaration order, size names included
	Latents []*Latent    // params in declaration order
	Data    []*DataVar   // data in declaration order, each size name after the data that binds it
	Consts  []*Constant  // consts in declaration order, overrides applied
	Outputs []*OutputVar // outputs in order
	// Functions are the user functions declared without error, in order.
	Functions []*ast.FnDecl
	// Truncations are the ~ statements on data with a valid T[L, U], in
	// order (truncdata.go).
	Truncations []*ast.TildeStmt
	// OrderedIID are the ~ statements on an ordered or positive_ordered
	// param whole whose arguments are scalars: the compiler adds log K! for
	// each, as for such a declared prior (Latent.OrderedIID).
	OrderedIID []*ast.TildeStmt

	// Warnings are what a valid model may have wrong: a param whose
	// posterior is improper (improper.go), a loop carried over from Stan's
	// 1-based for (loops.go), a replicate not of the shape of the data
	// it mirrors (replicate.go); in source order.
	Warnings []*ast.Error
	// NoDataObserved is Warnings' noDataObserved (unread.go), nil when
	// the model observes data; UnreadData are Warnings' data read nowhere,
	// by name, UnreadLets its lets read nowhere. A command that reads them
	// otherwise leaves them out (Drop): gpp fit --prior and gpp predict fit
	// nothing, gpp kfold --group reads int data, the REPL prints lets.
	NoDataObserved *ast.Error
	UnreadData     map[string]*ast.Error
	UnreadLets     []*ast.Error

	cfg *Config // the check's configuration, for Imputing
}

// Lookup returns the top-level symbol of that name, or nil.
func (info *Info) Lookup(name string) *Symbol {
	for _, s := range info.Symbols {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// VisitReads calls f with each symbol that e reads, through the lets it
// reads (each symbol once), until f returns true; without indices, not
// those an index expression's indices read (x[g[i]] reads x only). It is
// the one walk of what an expression reads, for the checker, the
// compiler and the CLI.
func (info *Info) VisitReads(e ast.Node, indices bool, f func(*Symbol) bool) {
	info.VisitReadsSkip(e, indices, nil, f)
}

// VisitReadsSkip is VisitReads not into the nodes that skip reports true
// for (skip nil skips none).
func (info *Info) VisitReadsSkip(e ast.Node, indices bool, skip func(ast.Node) bool, f func(*Symbol) bool) {
	seen := map[*Symbol]bool{}
	stop := false
	var visit func(e ast.Node)
	visit = func(e ast.Node) {
		ast.Inspect(e, func(n ast.Node) bool {
			if skip != nil && !stop && skip(n) {
				return false
			}
			if ix, ok := n.(*ast.IndexExpr); ok && !indices && !stop {
				visit(ix.X)
				return false
			}
			id, ok := n.(*ast.Ident)
			if stop || !ok {
				return !stop
			}
			sym := info.Uses[id]
			if sym == nil || seen[sym] {
				return true
			}
			seen[sym] = true
			if f(sym) {
				stop = true
				return false
			}
			if ls, ok := sym.Decl.(*ast.LetStmt); ok && sym.Kind == Let {
				visit(ls.Value)
			}
			return !stop
		})
	}
	visit(e)
}

// Latent returns the latent of that name, or nil.
func (info *Info) Latent(name string) *Latent {
	for _, l := range info.Latents {
		if l.Name == name {
			return l
		}
	}
	return nil
}

// DataVar returns the data variable (or size name) of that name, or nil.
func (info *Info) DataVar(name string) *DataVar {
	for _, d := range info.Data {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// Const returns the constant of that name, or nil.
func (info *Info) Const(name string) *Constant {
	for _, c := range info.Consts {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// SymbolKind says what declared a name.
type SymbolKind int

// Symbol kinds.
const (
	Data    SymbolKind = iota + 1 // data NAME: TYPE
	Size                          // a size name bound from a data declaration's dims
	Const                         // const NAME = VALUE
	Param                         // param NAME: TYPE
	Let                           // let NAME = VALUE (top level or in a for body)
	LoopVar                       // for NAME in LO:HI
	Output                        // output NAME = VALUE
)

var kindText = [...]string{Data: "data", Size: "size name", Const: "const", Param: "param", Let: "let", LoopVar: "loop variable", Output: "output"}

// Phrase names the kind with an article: "data", "a param", "an output".
func (k SymbolKind) Phrase() string {
	switch k {
	case Data:
		return "data"
	case Output:
		return "an output"
	}
	return "a " + k.String()
}

func (k SymbolKind) String() string {
	if k > 0 && int(k) < len(kindText) {
		return kindText[k]
	}
	return "?"
}

// Symbol is a declared name.
type Symbol struct {
	Name string
	Kind SymbolKind
	// Decl is the declaring node: *ast.DataDecl (also for a size name: the
	// data declaration that introduces it), *ast.ConstDecl, *ast.ParamDecl,
	// *ast.LetStmt, *ast.ForStmt or *ast.OutputStmt.
	Decl ast.Node
	Pos  ast.Pos // of the declaring identifier
	Type Type
	// Local is true for loop variables and lets inside a for body.
	Local bool
	// Fn is, for a parameter or local let of an expanded call of a user
	// function (a hidden let: Kind Let), that function; nil otherwise.
	Fn *ast.FnDecl
}

// Latent is a param: a latent variable fitted by a variational factor.
type Latent struct {
	Name    string
	Pos     ast.Pos
	Decl    *ast.ParamDecl
	Symbol  *Symbol
	Kind    ast.ElemKind // Real, Positive, Unit, Simplex, Ordered, PositiveOrdered, CholCorr, CorrMatrix, CholCov or CovMatrix
	Dims    Shape
	Support dist.Support
	// Family is the variational factor: "normal" (real), "gamma"
	// (positive), "beta" (unit), "dirichlet" (simplex), OrderedFamily
	// (ordered: a normal on the first element, gammas on the increments),
	// "gamma" (positive_ordered: on the first element and the increments)
	// or "normal" (cholesky_factor_corr[K] and corr_matrix[K]: on the
	// K(K−1)/2 unconstrained coordinates, cholesky_factor_cov[K] and
	// cov_matrix[K]: on K(K+1)/2; Dims is then the value's [K, K]).
	Family string
	Prior  *ast.CallExpr // nil: a flat prior on the support (unless Tildes give one)
	// PriorDist is the prior's table entry, nil without a prior.
	PriorDist *stdlib.Dist
	// Truncated is true when a prior (or a ~ with the latent on the left)
	// has a support wider than the declared one: the density is truncated
	// to the declared support, as in Stan.
	Truncated bool
	// Tildes are the ~ statements whose left side mentions the latent.
	Tildes []*ast.TildeStmt
	// Lower and Upper are the constant bounds of a bounded param,
	// real<lower=L, upper=U> (nil: none). The variational factor is then
	// of b = (z − L)/(U − L) on the unit support (Support is Unit), or of
	// z − L or U − z on the positive support (Support is Positive).
	Lower, Upper *float64
	// OrderedIID is true for an ordered or positive_ordered param whose prior has scalar
	// arguments: its elements are iid before the restriction to
	// increasing vectors, and the compiler adds the normaliser log K!.
	OrderedIID bool
	// LowerData and UpperData are bounds that depend on data
	// (real<lower=max(y)>), whose values are known when the model compiles
	// with its data: Lower and Upper are then nil for them, Range holds
	// what the bounds' types allow (dataRange), and the compiler works
	// with WithBounds of their values.
	LowerData, UpperData ast.Expr
	dataRange            Interval
	// ElemBounds is true when a bound of data is an array of the param's
	// shape, one bound per element (real<lower=c>[M] with c data of M
	// values), as Stan's vector<lower=c>[M]. The compiler's
	// WithElemBounds gives their values, LowerV and UpperV.
	ElemBounds bool
	// LowerV and UpperV are the values per element (row-major, nil: no
	// such bound) of a latent with ElemBounds in one compilation with its
	// data; a scalar bound on the other side is repeated per element.
	// Lower and Upper are then nil.
	LowerV, UpperV []float64
}

// Bounded reports whether the latent is a bounded real param.
func (l *Latent) Bounded() bool { return l.HasLower() || l.HasUpper() }

// HasLower and HasUpper report whether the latent has a lower (an upper)
// bound, constant or of data.
func (l *Latent) HasLower() bool { return l.Lower != nil || l.LowerData != nil || l.LowerV != nil }
func (l *Latent) HasUpper() bool { return l.Upper != nil || l.UpperData != nil || l.UpperV != nil }

// DataBounds reports whether a bound depends on data, so that its value
// is known when the model compiles, not when it is checked.
func (l *Latent) DataBounds() bool { return l.LowerData != nil || l.UpperData != nil }

// WithBounds returns a copy of the latent with the values lo and hi of its
// bounds that depend on data (nil for a bound it has not), constant bounds
// kept: the latent of one compilation with its data.
func (l *Latent) WithBounds(lo, hi *float64) *Latent {
	c := *l
	if l.LowerData != nil {
		c.Lower = lo
	}
	if l.UpperData != nil {
		c.Upper = hi
	}
	c.LowerData, c.UpperData = nil, nil
	return &c
}

// WithElemBounds returns a copy of the latent, one with ElemBounds, with
// the values of its bounds per element (nil for a side it has no bound on;
// a constant bound repeated per element): the latent of one compilation
// with its data.
func (l *Latent) WithElemBounds(lo, hi []float64) *Latent {
	c := *l
	c.Lower, c.Upper, c.LowerData, c.UpperData = nil, nil, nil, nil
	c.LowerV, c.UpperV = lo, hi
	return &c
}

// RangeAt is the open interval of element i's values (row-major): Range,
// or for a latent with bounds per element (LowerV, UpperV), element i's.
func (l *Latent) RangeAt(i int) Interval {
	if l.LowerV == nil && l.UpperV == nil {
		return l.Range()
	}
	r := wholeLine()
	if l.LowerV != nil {
		r.Lo = l.LowerV[i]
	}
	if l.UpperV != nil {
		r.Hi = l.UpperV[i]
	}
	return r
}

// AffineAt returns loc and scale of element i (row-major), with its value
// loc + scale·b for the value b on Support: Affine, or for a latent with
// bounds per element (LowerV, UpperV), element i's.
func (l *Latent) AffineAt(i int) (loc, scale float64) {
	switch {
	case l.LowerV != nil && l.UpperV != nil:
		return l.LowerV[i], l.UpperV[i] - l.LowerV[i]
	case l.LowerV != nil:
		return l.LowerV[i], 1
	case l.UpperV != nil:
		return l.UpperV[i], -1
	}
	return l.Affine()
}

// BoundsString writes the bounds as declared, "(max(y), ∞)", for
// messages about a latent whose bounds depend on data.
func (l *Latent) BoundsString() string {
	end := func(e ast.Expr, v *float64, inf string) string {
		switch {
		case e != nil:
			return ast.FormatExpr(e)
		case v != nil:
			return strconv.FormatFloat(*v, 'g', 6, 64)
		}
		return inf
	}
	return "(" + end(l.LowerData, l.Lower, "-∞") + ", " + end(l.UpperData, l.Upper, "∞") + ")"
}

// Range is the open interval of the latent's values: its bounds for a
// bounded param (with bounds per element, the least interval holding each
// element's), else its support's.
func (l *Latent) Range() Interval {
	if !l.Bounded() {
		return supportInterval(l.Support)
	}
	if l.DataBounds() {
		return l.dataRange
	}
	r := wholeLine()
	if l.LowerV != nil || l.UpperV != nil { // the hull of the elements'
		for i := range max(len(l.LowerV), len(l.UpperV)) {
			e := l.RangeAt(i)
			if i == 0 || e.Lo < r.Lo {
				r.Lo = e.Lo
			}
			if i == 0 || e.Hi > r.Hi {
				r.Hi = e.Hi
			}
		}
		return r
	}
	if l.Lower != nil {
		r.Lo = *l.Lower
	}
	if l.Upper != nil {
		r.Hi = *l.Upper
	}
	return r
}

// Values names where the latent's values lie, for messages: "the bounds
// (1, ∞)" for a bounded param, else "the positive support".
func (l *Latent) Values() string {
	if l.DataBounds() {
		return "the bounds " + l.BoundsString()
	}
	if l.Bounded() {
		return "the bounds " + l.Range().String()
	}
	return "the " + l.Support.String() + " support"
}

// Affine returns loc and scale with the latent's value loc + scale·b for
// the value b on its Support (scale 0: the value is b). Bounds that depend
// on data count once WithBounds has given their values (until then, 0, 0);
// bounds per element are AffineAt's (here 0, 0).
func (l *Latent) Affine() (loc, scale float64) {
	switch {
	case l.Lower != nil && l.Upper != nil:
		return *l.Lower, *l.Upper - *l.Lower
	case l.Lower != nil:
		return *l.Lower, 1
	case l.Upper != nil:
		return *l.Upper, -1
	}
	return 0, 0
}

// DataVar is an input bound from the data, or a size name bound from a data
// shape.
type DataVar struct {
	Name   string
	Pos    ast.Pos
	Decl   *ast.DataDecl // for a size name: the declaration that introduces it
	Symbol *Symbol
	Kind   ast.ElemKind // as declared; Int for a size name
	Elem   Elem
	Dims   Shape
	// LowerExpr and UpperExpr are the declared bounds (nil if absent);
	// Lower and Upper their values when constant.
	LowerExpr, UpperExpr ast.Expr
	Lower, Upper         *float64
	Support              dist.Support // from the kind and constant bounds
	// ElemBounds is true when a bound is an array of the data's shape,
	// one bound per element (real<lower=0, upper=u>[N] with u data of N
	// values); the compiler checks each value against its element.
	ElemBounds bool
	// Uses are the distributions whose whole value the data is (`y ~ D`):
	// each value must lie in their supports, checked when the data loads.
	Uses []DataUse
	// Clamps are the abs(eigenvalues_sym(d)) and fmax(eigenvalues_sym(d),
	// ...) of real data d: where d has an eigenvalue below zero beyond
	// rounding, the data are refused when they load, as the clamp would
	// fit another matrix in silence (eigenClamp).
	Clamps []Clamp
	// Missing, for real data that the model only observes (missing.go),
	// says how its missing cells are fitted, as the latent NAME_missing;
	// nil when a missing cell is an error, and NoMissing then says why.
	Missing   *MissingFit
	NoMissing string
	// RowBranch, with NoMissing, says which rows read the data's cells
	// where an if on data picks them (rowBranch), or nil.
	RowBranch *RowBranch
	// Remedy, when not "", is what to do about a missing cell in place of
	// dropping or filling in its rows: for int data read only as the
	// value of logpdf, a 0/1 mask weighting those terms (missing.go).
	Remedy string
	// LeftOut, for int (or bool) data that every mention observes by a ~
	// of a built-in elementwise family, untruncated, and that no
	// expression or output reads, says that its missing cells are left
	// out of the likelihood (missing.go): integrating a missing cell out
	// of the joint removes its term. NoMissing still says why they are
	// not fitted, for the modes that need every cell. So too real data
	// that every mention observes by a ~ of a family with a point mass at
	// 0 (dist.Univariate.ZeroMass, HurdleGamma), which ZeroMass names: a
	// fitted latent, continuous, could never be that 0, so it would count
	// every missing cell as a value above 0.
	//
	// So too real (positive, unit) data whose missing cells are leaves:
	// observed only by ~ of built-in elementwise families (truncated by
	// constants if at all), read by no output and by no expression but at
	// constant indices (y[0]), LeafReads those cells. Missing is then set
	// too: where a read cell is missing in the data, they are fitted as
	// before (LeavesOut). Fill is the value the compiler puts in the cells
	// left out (0 for int data).
	LeftOut   bool
	ZeroMass  string
	LeafReads [][]int
	Fill      float64
	// ReadAt is the data's first read in an expression (a covariate), or
	// 0. When its missing values are fitted too (Missing: a covariate with
	// a model of its own), the compiler checks the model again with it
	// typed as changing with the fit if the bound data have missing cells
	// (Info.Imputing). Observed is true when it is the value of a ~.
	ReadAt   ast.Pos
	Observed bool
	// Unused is true when no statement mentions the data and its missing
	// cells could be fitted once a ~ observes it: a declaration typed into
	// the REPL before its ~, whose missing cells wait for it
	// (data.BindPartial).
	Unused bool
	// Implicit is true for a size name: bound from axis Axis of the shape
	// of SizeOf when the data loads.
	Implicit bool
	SizeOf   *DataVar
	Axis     int
	// Indexes are the axes that int vector data index (`d[t]`, `d[t[i]]`),
	// in source order.
	Indexes []AxisIndex
}

// DataUse is a distribution that data must follow as a whole: `y ~ D(...)`
// at Pos, whose values must lie in Support (a scalar support that does not
// depend on D's arguments).
type DataUse struct {
	Dist    string
	Support dist.Support
	Pos     ast.Pos
}

// TypeString formats the declared type, e.g. "int<lower=0>[N, 2]".
func (d *DataVar) TypeString() string {
	s := boundedKind(d.Kind, d.LowerExpr, d.UpperExpr)
	switch {
	case d.Kind.IsMatrix() && len(d.Dims) == 2: // K×K, declared [K]
		s += d.Dims[:1].String()
	case len(d.Dims) > 0:
		s += d.Dims.String()
	}
	return s
}

// boundedKind is kind with its bounds, as written: real<lower=LSL>.
func boundedKind(kind ast.ElemKind, lower, upper ast.Expr) string {
	s := kind.String()
	if lower != nil || upper != nil {
		var b []string
		if lower != nil {
			b = append(b, "lower="+exprString(lower))
		}
		if upper != nil {
			b = append(b, "upper="+exprString(upper))
		}
		s += "<" + strings.Join(b, ", ") + ">"
	}
	return s
}

// Note describes where a size name comes from; "" for declared data.
func (d *DataVar) Note() string {
	if d.Implicit && d.SizeOf != nil {
		return fmt.Sprintf("size: axis %d of %s", d.Axis, d.SizeOf.Name)
	}
	return ""
}

// Constant is a constant with its value after overrides.
type Constant struct {
	Name   string
	Pos    ast.Pos
	Decl   *ast.ConstDecl
	Symbol *Symbol
	Elem   Elem
	Value  float64 // the value used: the override if any, else the default
	// Default is the value of the declaration's expression; Override the
	// --set text when overridden.
	Default    float64
	Overridden bool
	Override   string
}

// ValueString formats the value: ints without a decimal point.
func (c *Constant) ValueString() string { return formatValue(c.Elem, c.Value) }

// Note says whether the value was overridden.
func (c *Constant) Note() string {
	if c.Overridden {
		return "set on the command line (default " + formatValue(c.Elem, c.Default) + ")"
	}
	return ""
}

func formatValue(e Elem, v float64) string {
	if e == Int {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// OutputVar is a derived quantity evaluated on draws from the fitted
// approximation.
type OutputVar struct {
	Name  string
	Pos   ast.Pos
	Stmt  *ast.OutputStmt
	Value ast.Expr // the expression: the statement's, or the let's for the short form; nil for a predictive replicate (Stmt.Dist)
	Type  Type
	Dims  Shape
	Let   *Symbol // the top-level let reported by the short form, else nil
}

// Drop removes the warnings ws (nil ones are ignored) from Warnings.
func (info *Info) Drop(ws ...*ast.Error) {
	info.Warnings = slices.DeleteFunc(info.Warnings, func(w *ast.Error) bool { return slices.Contains(ws, w) })
}

// DataFactor is what a data-only factor of a distribution argument needs
// of its values (Info.PositiveData): the support, and whether it divides
// the argument (a divisor must be > 0 whatever the argument's support).
type DataFactor struct {
	Need    dist.Support
	Divides bool
}

// Clamp is a call abs(eigenvalues_sym(X)) or fmax(eigenvalues_sym(X), ...)
// of real data X (DataVar.Clamps).
type Clamp struct {
	Fn  string // abs, fabs or fmax
	Pos ast.Pos
}

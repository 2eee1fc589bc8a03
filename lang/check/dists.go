package check

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// distCall checks a distribution call against the value it models: val is
// the value's type, valPos where to report value errors and valName how to
// name the value. It returns the table entry, or nil for an unknown
// distribution.
func (c *checker) distCall(call *ast.CallExpr, val Type, valPos ast.Pos, valName string) *stdlib.Dist {
	d, args, ok := c.distArgs(call)
	if d != nil && ok && val.Valid() {
		c.distShape(call, d, val, args, valPos, valName)
	}
	return d
}

// distArgs checks a distribution call apart from the value it models: the
// name, the number of arguments, and each argument's rank, int-ness and
// support. It returns the table entry (nil for an unknown name), the
// arguments' types, and whether every argument passed.
func (c *checker) distArgs(call *ast.CallExpr) (*stdlib.Dist, []Type, bool) {
	name := call.Fun.Name
	args := make([]Type, len(call.Args))
	for i, a := range call.Args {
		args[i] = c.expr(a)
	}
	d := stdlib.LookupDist(name)
	if d == nil {
		if stdlib.LookupFunc(name) != nil {
			c.errorf(call.Fun.NamePos, "%s is a function, not a distribution%s", name, suggest(name, distNames()))
		} else if fd, base := c.userDensityFn(name); fd != nil {
			// Stan writes y ~ foo(...) for a user foo_lpdf too, never y ~ foo_lpdf(...)
			c.errorf(call.Fun.NamePos, "`%s` is the log density of the user distribution %s (declared at %s): write y ~ %s(...), which adds %s(y, ...)", name, base, fd.decl.Name.NamePos, base, name)
		} else if fd := c.fns[name]; fd != nil {
			c.errorf(call.Fun.NamePos, "%s is a user function (declared at %s), not a distribution: a user density is declared fn %s_lpdf(y, ...) and used as y ~ %s(...)", name, fd.decl.Name.NamePos, name, name)
		} else if later := c.densityLater(name); later != nil {
			c.errorf(call.Fun.NamePos, "the user density %s is declared at %s, after its use here: declare fn %s before it", name, later.Name.NamePos, later.Name.Name)
		} else if hint := stanDistHint(name); hint != "" {
			c.errorf(call.Fun.NamePos, "unknown distribution `%s`; %s", name, hint)
		} else {
			c.errorf(call.Fun.NamePos, "unknown distribution `%s`%s", name, suggest(name, distNames()))
		}
		return nil, args, false
	}
	c.info.Dists[call] = d
	if !c.distArity(call, d) {
		return d, args, false
	}
	ok := true
	// the tape checks the arguments of an elementwise family value by value
	u, univariate := dist.LookupUnivariate(d.Name)
	univariate = univariate && d.Shape == stdlib.DistElementwise
	for i, a := range args {
		if !a.Valid() {
			ok = false
			continue
		}
		p := d.Params[i]
		arg := call.Args[i]
		if !p.Ranks.Has(a.Shape.Rank()) {
			c.errorf(arg.Pos(), "%s expects a %s as argument %d (%s); `%s` is %s",
				d.Name, p.Ranks, i+1, p.Name, exprString(arg), a.Shape.describe())
			ok = false
			continue
		}
		if p.Int && a.Elem != Int {
			c.errorf(arg.Pos(), "%s expects an int argument %d (%s); %s", d.Name, i+1, p.Name, c.describe(arg))
			ok = false
			continue
		}
		if !satisfies(p.Support, a) && !c.unsignedCountData(arg, a, p.Support, fmt.Sprintf("%s argument %d (%s)", d.Name, i+1, p.Name)) &&
			!(univariate && !noCounts(p.Support, a) && (c.computedFromData(arg, a) || c.scaledByData(arg, p.Support))) {
			c.errorf(arg.Pos(), "%s expects %s argument %d (%s); %s%s",
				d.Name, ast.Article(p.Support.String()), i+1, p.Name, c.explain(arg, p.Support), logitHint(d, c.supportHint(p.Support, arg, a)))
			ok = false
		}
		if p.Data != "" && !a.DataOnly {
			c.errorf(arg.Pos(), "%s needs argument %d (%s) known before the fit (data, constants and lets of them); `%s` %s: %s",
				d.Name, i+1, p.Name, exprString(arg), c.dependsOnParam(arg), p.Data)
			ok = false
		}
	}
	if d.Shape == stdlib.DistElementwise && d.Support == dist.Interval && ok {
		if lo, hi := args[0].Const, args[1].Const; lo != nil && hi != nil && *lo >= *hi {
			c.errorf(call.Args[1].Pos(), "%s needs lo < hi; found lo = %g, hi = %g", d.Name, *lo, *hi)
		}
	}
	if univariate && u.LowerArg > 0 && u.UpperArg > 0 && ok {
		// a support between two arguments, both in it (DiscreteUniform's
		// lower and upper): one value when they are equal, none below
		i, j := u.LowerArg-1, u.UpperArg-1
		if lo, hi := args[i].Const, args[j].Const; lo != nil && hi != nil && *lo > *hi {
			c.errorf(call.Args[j].Pos(), "%s needs %s <= %s; found %s = %g, %s = %g", d.Name,
				d.Params[i].Name, d.Params[j].Name, d.Params[i].Name, *lo, d.Params[j].Name, *hi)
		}
	}
	return d, args, ok
}

// distArity reports a wrong number of arguments to a distribution, whose
// last may be optional (Multinomial's n): too few at the closing
// parenthesis, too many at the first extra argument.
func (c *checker) distArity(call *ast.CallExpr, d *stdlib.Dist) bool {
	req, most := d.Required(), len(d.Params)
	if req == most {
		return c.arity(call, d.Name, d.Signature(), most)
	}
	switch got := len(call.Args); {
	case got < req:
		c.errorf(call.Rparen, "too few arguments to %s: expected %d or %d (%s), found %d", d.Name, req, most, d.Signature(), got)
	case got > most:
		c.errorf(call.Args[most].Pos(), "too many arguments to %s: expected %d or %d (%s), found %d", d.Name, req, most, d.Signature(), got)
	default:
		return true
	}
	return false
}

// computedFromData reports whether arg is computed from data inputs and
// their sizes (not a data name, not only literals and consts), such as
// `sqrt(variance(y))` as a prior's scale, or a let of such a value (Stan's
// transformed data, `let s_y = sqrt(variance(y))`). Its values are known
// once the data load, and the compiled tape checks them against the
// argument's support before any fit (autodiff.Program.checkDataValues),
// so for an elementwise family a support the checker cannot show is left
// to that check rather than being an error. A data name's support is its
// declaration's, the user's to state, and stays checked here.
func (c *checker) computedFromData(arg ast.Expr, t Type) bool {
	if !t.DataOnly || t.Const != nil {
		return false
	}
	if id, name := ast.Unparen(arg).(*ast.Ident); name {
		sym := c.info.Uses[id]
		if sym == nil || sym.Kind != Let {
			return false
		}
		let, ok := sym.Decl.(*ast.LetStmt)
		return ok && c.readsData(let.Value)
	}
	return c.readsData(arg)
}

// readsData reports whether e reads a data declaration or a size bound
// from one (whose values are known once the data load), directly or
// through lets.
func (c *checker) readsData(e ast.Expr) bool {
	data := false
	c.info.VisitReads(e, true, func(sym *Symbol) bool {
		data = sym.Kind == Data || sym.Kind == Size
		return data
	})
	return data
}

// unsignedCountData reports whether arg, a count argument (Binomial's,
// BinomialLogit's or BetaBinomial's n, Multinomial's n), is int data, or
// an element, slice or gather of it, whose sign the checker cannot show
// (`data n: int[N]`) but whose values may all be counts: Stan accepts it
// and checks the values when they arrive, and so does gpp, when the model
// compiles with its data (Info.CountData), at the data cell. Data whose
// declared range holds no count (`int<upper=-1>`) stays an error here.
func (c *checker) unsignedCountData(arg ast.Expr, t Type, req dist.Support, what string) bool {
	if req != dist.Count || t.Elem != Int || !t.DataOnly || t.Const != nil || !c.dataRef(arg) {
		return false
	}
	if noCounts(req, t) {
		return false
	}
	c.info.CountData[arg] = what
	return true
}

// noCounts reports whether t, an int argument where req asks for a count,
// has a declared or derived range that holds no count (`int<upper=-1>`
// data, `m - 1` of it): an error at check, for a data name or an
// expression alike, where a range that holds counts is left to the check
// of the values when the model compiles with its data.
func noCounts(req dist.Support, t Type) bool {
	if req != dist.Count && req != dist.BoundedCount || t.Elem != Int {
		return false
	}
	r := t.Range.norm()
	return r.Hi < 0 || r.Hi == 0 && !r.HiIn
}

// scaledByData reports whether arg, which reads params, is positive
// (non-negative, as req asks) once the data-only values it multiplies or
// divides by are: a product or quotient (*, .*, /) each of whose operands
// is so, computed from data alone (computedFromData), or such a product
// itself — a scale from the data times a param, `tau0 * sigma` with `let
// tau0 = p0 / (P - p0) / sqrt(N)`, or `sigma / sqrt(N)`, a rate
// `exp(logR) .* (W * cases)`, whose sign the checker cannot show from the
// data's declarations (N may be 0, P − p0 negative). Those data-only
// operands are recorded in Info.PositiveData with the support their
// values need (a divisor's positive), and the compiler checks them when
// the model compiles with its data; the argument is also checked at every
// evaluation, as any is. Only for a positive or non-negative argument: a
// scale, a rate or a mean.
func (c *checker) scaledByData(arg ast.Expr, req dist.Support) bool {
	if req != dist.Positive && req != dist.NonNegative {
		return false
	}
	deferred := map[ast.Expr]DataFactor{}
	var walk func(e ast.Expr, need dist.Support) bool
	walk = func(e ast.Expr, need dist.Support) bool {
		be, ok := ast.Unparen(e).(*ast.BinaryExpr)
		if !ok || be.Op != ast.Mul && be.Op != ast.EMul && be.Op != ast.Div {
			return false
		}
		for i, x := range []ast.Expr{be.X, be.Y} {
			xneed, divides := need, i == 1 && be.Op == ast.Div
			if divides {
				xneed = dist.Positive // a divisor of 0 is no value
			}
			t := c.info.Types[x]
			switch {
			case !t.Valid():
				return false
			case satisfies(xneed, t):
			case c.computedFromData(x, t) && !c.dataRef(x):
				deferred[x] = DataFactor{xneed, divides}
			case t.DataOnly || !walk(x, xneed):
				return false
			}
		}
		return true
	}
	if c.info.Types[arg].DataOnly || !walk(arg, req) || len(deferred) == 0 {
		return false
	}
	for x, f := range deferred {
		c.info.PositiveData[x] = f
	}
	return true
}

// dataRef reports whether e is a data name, or its transpose or an
// element, slice or gather of it: values whose support the declaration
// states.
func (c *checker) dataRef(e ast.Expr) bool {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.TransposeExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.Ident:
			sym := c.info.Uses[x]
			return sym != nil && sym.Kind == Data
		default:
			return false
		}
	}
}

// distShape applies the distribution's shape rule.
func (c *checker) distShape(call *ast.CallExpr, d *stdlib.Dist, val Type, args []Type, valPos ast.Pos, valName string) {
	vs := val.Shape
	argErr := func(i int, format string, a ...any) {
		c.errorf(call.Args[i].Pos(), "%s argument %d (%s): "+format, append([]any{d.Name, i + 1, d.Params[i].Name}, a...)...)
	}
	switch d.Shape {
	case stdlib.DistElementwise:
		for i, a := range args {
			b := broadcast(vs, a.Shape)
			switch {
			case b.ByRow && compareDims(a.Shape[0], vs[0]) == dimDiffer:
				argErr(i, "`%s` is %s, which does not broadcast to the shape %s of %s; a vector is a column: write `%s'` for one value per column",
					exprString(call.Args[i]), a.Shape.String(), vs.String(), valName, exprString(call.Args[i]))
			case b.ByRow:
				argErr(i, "`%s` is %s, a column, which would stretch along the rows of %s (%s) only if %s had %s rows; a vector is a column: write `%s'` for one value per column",
					exprString(call.Args[i]), a.Shape.String(), valName, vs.String(), valName, a.Shape[0].String(), exprString(call.Args[i]))
			case b.Err != "" || b.AStretch || !sameShape(b.Shape, vs):
				hint := ""
				if len(vs) == 0 && len(a.Shape) == 1 && a.Shape[0].isOne() {
					// X[n]' * beta, a row times a vector, is [1]
					hint = "; a vector [1] is not a scalar: take its element with [0] (a row [1, K] times a vector [K] is a vector [1]; dot_product(x, y) is a scalar)"
				}
				argErr(i, "`%s` is %s, which does not broadcast to the shape %s of %s%s",
					exprString(call.Args[i]), a.Shape.String(), vs.String(), valName, hint)
			}
		}
	case stdlib.DistCategorical, stdlib.DistPoissonBinomial:
		c.categoricalShape(call, d, vs, args[0].Shape, valPos, valName)
	case stdlib.DistMultinomial:
		c.multinomialShape(call, d, vs, args, valPos, valName)
	case stdlib.DistOrdinal:
		c.ordinalShape(call, d, vs, args[0].Shape, args[1].Shape, valPos, valName)
	case stdlib.DistLKJ:
		if vs.Rank() != 2 || compareDims(vs[0], vs[1]) == dimDiffer {
			c.errorf(valPos, "%s models %s[K] param (K×K); %s is %s", d.Name, ast.Article(d.Support.String()), valName, vs.describe())
		}
	case stdlib.DistMvNormalChol, stdlib.DistMvNormalPrec:
		c.mvCholShape(call, d, vs, args, 0, valPos, valName)
	case stdlib.DistMultiStudentT, stdlib.DistMultiStudentTChol:
		c.mvCholShape(call, d, vs, args, 1, valPos, valName) // after nu
	case stdlib.DistWishart:
		c.wishartShape(call, d, vs, args, valPos, valName)
	case stdlib.DistMultiGP, stdlib.DistMultiGPChol:
		c.multiGPShape(call, d, vs, args, valPos, valName)
	case stdlib.DistGaussianDLM:
		c.dlmShape(call, d, vs, args, valPos, valName)
	case stdlib.DistCAR:
		if vs.Rank() != 1 {
			c.errorf(valPos, "%s models a vector [n], the field on the graph's n nodes; %s is %s", d.Name, valName, vs.describe())
			return
		}
		if e1, e2 := args[2].Shape, args[3].Shape; compareDims(e1[0], e2[0]) == dimDiffer {
			c.errorf(call.Args[3].Pos(), "%s argument 4 (node2): `%s` is %s but node1 `%s` is %s: edge k joins node1[k] and node2[k]",
				d.Name, exprString(call.Args[3]), e2.String(), exprString(call.Args[2]), e1.String())
		}
	case stdlib.DistMvNormal, stdlib.DistMvNormalRows, stdlib.DistDirichlet:
		minRank := 1
		what := "a vector or matrix"
		if d.Shape == stdlib.DistMvNormalRows {
			minRank, what = 2, "a matrix (one row per draw)"
		}
		if vs.Rank() < minRank {
			c.errorf(valPos, "%s models %s; %s is %s", d.Name, what, valName, vs.describe())
			return
		}
		k := vs[vs.Rank()-1]
		// The mean (alpha): scalar, [k], [1, k] shared by every row, or,
		// for a matrix value, a matrix matching its rows (a mean per row,
		// as Stan's multi_normal takes an array of means and as
		// MvNormalCholesky takes one).
		m := args[0].Shape
		good := true
		switch m.Rank() {
		case 1:
			good = compareDims(m[0], k) != dimDiffer
		case 2:
			good = compareDims(m[1], k) != dimDiffer && (m[0].isOne() ||
				vs.Rank() == 2 && compareDims(m[0], vs[0]) != dimDiffer)
		}
		if !good {
			want := "a scalar, [" + k.String() + "] or [1, " + k.String() + "]"
			if vs.Rank() == 2 {
				want = "a scalar, [" + k.String() + "], [1, " + k.String() + "] or " + vs.String() + " (a row per row)"
			}
			argErr(0, "`%s` is %s; for %s of shape %s it must be %s",
				exprString(call.Args[0]), m.String(), valName, vs.String(), want)
		}
		if d.Shape == stdlib.DistDirichlet {
			return
		}
		cov := args[1].Shape
		if compareDims(cov[0], k) == dimDiffer || compareDims(cov[1], k) == dimDiffer {
			argErr(1, "`%s` is %s; for %s of shape %s the covariance must be [%s, %s]",
				exprString(call.Args[1]), cov.String(), valName, vs.String(), k, k)
		}
	}
}

// mvCholShape checks the shapes of MvNormalCholesky, MvNormalPrec,
// MultiStudentT and MultiStudentTCholesky: a vector value [d] or a matrix
// [n, d] of independent rows; mu, argument i, a scalar, [d] or [1, d]
// shared by every row, or [n, d] with a row per row of the value; the
// next argument [d, d] (L, Sigma or Omega).
func (c *checker) mvCholShape(call *ast.CallExpr, d *stdlib.Dist, vs Shape, args []Type, i int, valPos ast.Pos, valName string) {
	ms, ls := args[i].Shape, args[i+1].Shape
	what := "the Cholesky factor"
	switch d.Shape {
	case stdlib.DistMultiStudentT:
		what = "the scale matrix"
	case stdlib.DistMvNormalPrec:
		what = "the precision matrix"
	}
	if vs.Rank() < 1 {
		c.errorf(valPos, "%s models a vector [d] or a matrix [n, d] of independent rows; %s is %s", d.Name, valName, vs.describe())
		return
	}
	k := vs[vs.Rank()-1]
	good := true
	switch ms.Rank() {
	case 1:
		good = compareDims(ms[0], k) != dimDiffer
	case 2:
		good = compareDims(ms[1], k) != dimDiffer && (ms[0].isOne() || vs.Rank() == 2 && compareDims(ms[0], vs[0]) != dimDiffer)
	}
	if !good {
		want := "a scalar, [" + k.String() + "] or [1, " + k.String() + "]"
		if vs.Rank() == 2 {
			want = "a scalar, [" + k.String() + "], [1, " + k.String() + "] or " + vs.String() + " (a row per row)"
		}
		c.errorf(call.Args[i].Pos(), "%s argument %d (mu): `%s` is %s; for %s of shape %s it must be %s",
			d.Name, i+1, exprString(call.Args[i]), ms.String(), valName, vs.String(), want)
	}
	if compareDims(ls[0], k) == dimDiffer || compareDims(ls[1], k) == dimDiffer {
		c.errorf(call.Args[i+1].Pos(), "%s argument %d (%s): `%s` is %s; for %s of shape %s %s must be [%s, %s]",
			d.Name, i+2, d.Params[i+1].Name, exprString(call.Args[i+1]), ls.String(), valName, vs.String(), what, k, k)
	}
}

// dlmShape checks GaussianDLMObs's shapes (Stan's): the value y [r, T];
// F [n, r], G [n, n], V [r, r] or [r], W [n, n], m0 [n], C0 [n, n], n
// taken from G (or F).
func (c *checker) dlmShape(call *ast.CallExpr, d *stdlib.Dist, vs Shape, args []Type, valPos ast.Pos, valName string) {
	if vs.Rank() != 2 {
		c.errorf(valPos, "%s models a matrix [r, T], a column of r observations per time (Stan's y of gaussian_dlm_obs); %s is %s", d.Name, valName, vs.describe())
		return
	}
	r := vs[0]
	n := args[1].Shape[0] // G's rows
	bad := func(i int, want string) {
		c.errorf(call.Args[i].Pos(), "%s argument %d (%s): `%s` is %s; for %s of shape %s it must be %s",
			d.Name, i+1, d.Params[i].Name, exprString(call.Args[i]), args[i].Shape.String(), valName, vs.String(), want)
	}
	same := func(a, b Dim) bool { return compareDims(a, b) != dimDiffer }
	fs := args[0].Shape
	if !same(fs[1], r) {
		bad(0, "[n, "+r.String()+"], a column per row of "+valName)
		return
	}
	if gs := args[1].Shape; !same(gs[0], gs[1]) || !same(gs[0], fs[0]) {
		bad(1, "square ["+fs[0].String()+", "+fs[0].String()+"], a row and a column per row of F (the states)")
		return
	}
	if v := args[2].Shape; v.Rank() == 1 && !same(v[0], r) || v.Rank() == 2 && (!same(v[0], r) || !same(v[1], r)) {
		bad(2, "["+r.String()+", "+r.String()+"], or ["+r.String()+"] (the variances of a diagonal V)")
	}
	sq := "[" + n.String() + ", " + n.String() + "]"
	if w := args[3].Shape; !same(w[0], n) || !same(w[1], n) {
		bad(3, sq)
	}
	if m := args[4].Shape; !same(m[0], n) {
		bad(4, "["+n.String()+"]")
	}
	if c0 := args[5].Shape; !same(c0[0], n) || !same(c0[1], n) {
		bad(5, sq)
	}
}

// multiGPShape checks the shapes of MultiGP and MultiGPCholesky: the value
// a matrix [K, N] of K rows of N values; Sigma (or its factor L) [N, N];
// w [K], a precision per row.
func (c *checker) multiGPShape(call *ast.CallExpr, d *stdlib.Dist, vs Shape, args []Type, valPos ast.Pos, valName string) {
	if vs.Rank() != 2 {
		c.errorf(valPos, "%s models a matrix [K, N], K rows of N values (Stan's matrix y of multi_gp); %s is %s", d.Name, valName, vs.describe())
		return
	}
	k, n := vs[0], vs[1]
	what := "Sigma"
	if d.Shape == stdlib.DistMultiGPChol {
		what = "the Cholesky factor"
	}
	if ss := args[0].Shape; compareDims(ss[0], n) == dimDiffer || compareDims(ss[1], n) == dimDiffer {
		c.errorf(call.Args[0].Pos(), "%s argument 1 (%s): `%s` is %s; for %s of shape %s %s must be [%s, %s], a row and a column per column of %s",
			d.Name, d.Params[0].Name, exprString(call.Args[0]), ss.String(), valName, vs.String(), what, n, n, valName)
	}
	if ws := args[1].Shape; compareDims(ws[0], k) == dimDiffer {
		c.errorf(call.Args[1].Pos(), "%s argument 2 (w): `%s` is %s; for %s of shape %s it must be [%s], a precision per row",
			d.Name, exprString(call.Args[1]), ws.String(), valName, vs.String(), k)
	}
}

// categoricalShape checks a categorical value (a scalar or [n]), or a
// PoissonBinomial count, against its argument: [k] or [1, k] shared by
// every element, or [n, k] with a row per element.
func (c *checker) categoricalShape(call *ast.CallExpr, d *stdlib.Dist, vs, as Shape, valPos ast.Pos, valName string) {
	if vs.Rank() > 1 {
		what := "categories"
		if d.Shape == stdlib.DistPoissonBinomial {
			what = "counts of successes (with theta [n, N], a row of probabilities per count)"
		}
		c.errorf(valPos, "%s models a scalar or a vector of %s; %s is %s", d.Name, what, valName, vs.describe())
		return
	}
	if as.Rank() != 2 || as[0].isOne() {
		return
	}
	n := Dim{N: 1}
	if vs.Rank() == 1 {
		n = vs[0]
	}
	if compareDims(as[0], n) == dimDiffer {
		k := as[1].String()
		want := "[" + k + "] or [1, " + k + "]"
		if vs.Rank() == 1 {
			want = "[" + k + "], [1, " + k + "] or [" + n.String() + ", " + k + "] (a row per element)"
		}
		c.errorf(call.Args[0].Pos(), "%s argument 1 (%s): `%s` is %s; for %s of shape %s it must be %s",
			d.Name, d.Params[0].Name, exprString(call.Args[0]), as.String(), valName, vs.String(), want)
	}
}

// multinomialShape checks Multinomial's shapes: a vector of counts [k] or
// a matrix [n, k] of count rows, the argument a vector [k] or row [1, k]
// shared by every row, or a matrix [n, k], a row per row of the value; the
// number of trials, if given, a scalar or (for rows) one per row [n].
func (c *checker) multinomialShape(call *ast.CallExpr, d *stdlib.Dist, vs Shape, args []Type, valPos ast.Pos, valName string) {
	as := args[0].Shape
	if len(args) > 1 && vs.Rank() > 0 {
		if ns := args[1].Shape; ns.Rank() == 1 && (vs.Rank() == 1 || compareDims(ns[0], vs[0]) == dimDiffer) {
			want := "a scalar (the total of its one row of counts)"
			if vs.Rank() == 2 {
				want = "a scalar or [" + vs[0].String() + "] (one per row)"
			}
			c.errorf(call.Args[1].Pos(), "%s argument 2 (n): `%s` is %s; for %s of shape %s it must be %s",
				d.Name, exprString(call.Args[1]), ns.String(), valName, vs.String(), want)
		}
	}
	if vs.Rank() == 0 {
		c.errorf(valPos, "%s models a vector of counts [k] or a matrix [n, k] of count rows; %s is %s", d.Name, valName, vs.describe())
		return
	}
	k := vs[vs.Rank()-1]
	ak := as[as.Rank()-1]
	ok := compareDims(ak, k) != dimDiffer
	if as.Rank() == 2 && !as[0].isOne() {
		n := Dim{N: 1}
		if vs.Rank() == 2 {
			n = vs[0]
		}
		ok = ok && compareDims(as[0], n) != dimDiffer
	}
	if !ok {
		want := "[" + k.String() + "] or [1, " + k.String() + "]"
		if vs.Rank() == 2 {
			want += " or [" + vs[0].String() + ", " + k.String() + "] (a row per row)"
		}
		c.errorf(call.Args[0].Pos(), "%s argument 1 (%s): `%s` is %s; for %s of shape %s it must be %s",
			d.Name, d.Params[0].Name, exprString(call.Args[0]), as.String(), valName, vs.String(), want)
	}
}

// ordinalShape checks OrderedLogistic's shapes: a scalar or vector value,
// eta a scalar or one per element, the cutpoints one vector or row, or a
// matrix with a row per element.
func (c *checker) ordinalShape(call *ast.CallExpr, d *stdlib.Dist, vs, es, cs Shape, valPos ast.Pos, valName string) {
	if vs.Rank() > 1 {
		c.errorf(valPos, "%s models a scalar or a vector of categories; %s is %s", d.Name, valName, vs.describe())
		return
	}
	if es.Rank() == 1 {
		n := Dim{N: 1}
		if vs.Rank() == 1 {
			n = vs[0]
		}
		if compareDims(es[0], n) == dimDiffer {
			c.errorf(call.Args[0].Pos(), "%s argument 1 (eta): `%s` is %s; for %s of shape %s it must be a scalar or [%s] (one per element)",
				d.Name, exprString(call.Args[0]), es.String(), valName, vs.String(), n)
		}
	}
	if cs.Rank() == 2 && !cs[0].isOne() {
		n := Dim{N: 1}
		if vs.Rank() == 1 {
			n = vs[0]
		}
		if compareDims(cs[0], n) == dimDiffer {
			c.errorf(call.Args[1].Pos(), "%s argument 2 (c): `%s` is %s; the cutpoints are one vector [K] or row [1, K] shared by every element, or a matrix [%s, K] with a row per element (c[g] of ordered[G, K] cutpoints c and a group index g)",
				d.Name, exprString(call.Args[1]), cs.String(), n)
			return
		}
	}
	// cutpoints that are a param of a kind that need not increase (c, or
	// c[g] of a matrix's rows): the fit would fail at its first draw (all
	// zeros at the default start)
	cut := ast.Unparen(call.Args[1])
	if ix, ok := cut.(*ast.IndexExpr); ok && cs.Rank() == 2 {
		cut = ast.Unparen(ix.X)
	}
	if id, ok := cut.(*ast.Ident); ok && cs.Rank() > 0 && !cs[cs.Rank()-1].isOne() {
		if sym := c.info.Uses[id]; sym != nil && sym.Kind == Param {
			if lat := c.info.Latent(sym.Name); lat != nil && lat.Dims.Rank() == cs.Rank() && !lat.Support.IsOrdered() && lat.Support != dist.Simplex {
				c.errorf(call.Args[1].Pos(), "%s argument 2 (c): the cutpoints `%s` are %s param, whose values need not increase (the fit fails at the first draw where they do not): declare it `param %s: ordered%s`, as Stan's ordered[K]",
					d.Name, id.Name, ast.Article(fmt.Sprintf("%s%s", lat.Kind, lat.Dims)), id.Name, lat.Dims)
			}
		}
	}
}

// satisfies reports whether a value of type t meets the required support.
// Constants are judged by their value; simplex entries count as
// non-negative, a simplex param's as unit; discrete requirements need int
// values (checked apart).
func satisfies(req dist.Support, t Type) bool {
	if t.Const != nil {
		v := *t.Const
		isInt := v == math.Trunc(v)
		switch req {
		case dist.Positive:
			return v > 0
		case dist.NonNegative:
			return v >= 0
		case dist.Unit:
			return v > 0 && v < 1
		case dist.Count, dist.BoundedCount:
			return v >= 0 && isInt
		case dist.Binary:
			return v == 0 || v == 1
		case dist.Simplex:
			return false
		}
		return !math.IsNaN(v)
	}
	s := t.Support
	if s == dist.Simplex && req != dist.Simplex {
		// Entries of [0, 1], or of (0, 1) for a simplex param (its
		// range says so): Dirichlet(p) of a simplex param p checks.
		s = dist.NonNegative
		if intervalSupport(Real, t.Range) == dist.Unit {
			s = dist.Unit
		}
	}
	switch req {
	case dist.Interval:
		return true
	case dist.Count, dist.BoundedCount:
		return dist.NonNegative.Contains(s)
	}
	return req.Contains(s)
}

// logitHint points a Multinomial's hint at MultinomialLogit, not at
// CategoricalLogit; PoissonBinomial's has no logit form to point at.
func logitHint(d *stdlib.Dist, hint string) string {
	if d.Shape == stdlib.DistPoissonBinomial && strings.Contains(hint, "Logit") {
		return "; map a real to (0, 1) with inv_logit"
	}
	if d.Shape == stdlib.DistMultinomial {
		return strings.ReplaceAll(hint, "CategoricalLogit", "MultinomialLogit")
	}
	return hint
}

// supportHint suggests a fix for an argument outside its required support.
func (c *checker) supportHint(req dist.Support, e ast.Expr, t Type) string {
	if t.Const != nil || c.constLit(e) {
		return ""
	}
	switch req {
	case dist.Unit:
		if q, ok := ast.Unparen(e).(*ast.BinaryExpr); ok && q.Op == ast.Div {
			// Stan's Lincoln–Petersen binomial(C, M / N) with N above M:
			// a relation between two values, which intervals do not keep.
			a, b := exprString(q.X), exprString(q.Y)
			return fmt.Sprintf("; that a quotient's numerator is below its denominator is a relation the checker does not track: on the logit scale, `%s` is log(%s) - log(%s - %s), an argument of BinomialLogit or BernoulliLogit", exprString(e), a, b, a)
		}
		if q, ok := ast.Unparen(e).(*ast.BinaryExpr); ok {
			if arg, negated, ok := c.oneMinusExp(q); ok {
				return oneMinusExpHint(arg, negated)
			}
		}
		return "; map a real to (0, 1) with inv_logit, or use BernoulliLogit"
	case dist.Simplex:
		id, ok := ast.Unparen(e).(*ast.Ident)
		if ok {
			if sym := c.info.Uses[id]; sym != nil && (sym.Kind == Param || sym.Kind == Data) {
				return "; declare `" + id.Name + "` simplex, or use CategoricalLogit on log-odds"
			}
		}
		if t.Support == dist.Positive || t.Support == dist.Unit || t.Support == dist.NonNegative {
			// a let or an expression takes no type: a computed
			// probability vector whose entries sum to 1 is softmax of
			// its log, so the logit family on log(E) is the same density
			let := ""
			if ok {
				let = " (a let takes no type)"
			}
			text := exprString(e)
			return fmt.Sprintf("; `%s` cannot be declared simplex%s: if its entries (each row's, for a matrix) sum to 1, use CategoricalLogit(log(%s)), the same density, as softmax(log(p)) is p for such p; else build it with softmax of log-odds, or from a simplex param, or use CategoricalLogit on log-odds", text, let, text)
		}
		return "; use CategoricalLogit on log-odds"
	case dist.Count, dist.BoundedCount:
		if id, ok := ast.Unparen(e).(*ast.Ident); ok && t.Elem == Int {
			if sym := c.info.Uses[id]; sym != nil && sym.Kind == Data {
				return "; declare the data int<lower=0> (checked when it loads)"
			}
		}
	case dist.Positive:
		if id, ok := ast.Unparen(e).(*ast.Ident); ok && t.Support == dist.NonNegative {
			if sym := c.info.Uses[id]; sym != nil && sym.Kind == Data {
				if d, ok := sym.Decl.(*ast.DataDecl); ok && d.Name.Name == id.Name && d.Type.Kind == ast.Real && d.Type.Upper == nil {
					// Stan's real<lower=0> admits 0; name gpp's spelling of
					// (0, inf) with the declaration's own dimensions.
					t := *d.Type
					t.Kind, t.Lower = ast.Positive, nil
					return "; zero is not allowed: declare the data positive (`data " + id.Name + ": " + ast.FormatType(&t) + "`)"
				}
				return "; zero is not allowed: declare the data positive"
			}
		}
	}
	if (req == dist.Positive || req == dist.NonNegative) && t.Support == dist.Real && !strings.Contains(c.explain(e, req), "declare ") {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			if sym := c.info.Uses[id]; sym != nil && (sym.Kind == Param || sym.Kind == Data) {
				return "" // its declaration states its support
			}
		}
		return signHint(req)
	}
	return ""
}

// signHint names the common ways to make a value of either sign provably
// positive (non-negative): the checker infers a support from the
// expression, and a let has no declared one.
func signHint(req dist.Support) string {
	floor := "fmax(·, c), c > 0"
	if req == dist.NonNegative {
		floor = "fmax(·, 0)"
	}
	return "; a support is proved from the expression (a let takes none declared): make it " + req.String() +
		" with exp(·) or softplus(·) of a real (as exp(a + b * x)), a sum or product of positive terms, or a floor " +
		floor + " (gradient 0 where the floor holds)"
}

// oneMinusExp reads e as 1 - exp(-E) (negated) or 1 - exp(E), a
// probability from a cumulative hazard E (1 - exp(-Hint), a survival
// model's event probability) or from a log survival E, and returns E.
func (c *checker) oneMinusExp(e *ast.BinaryExpr) (arg ast.Expr, negated, ok bool) {
	if one := c.info.Types[e.X].Const; e.Op != ast.Sub || one == nil || *one != 1 {
		return nil, false, false
	}
	call, isCall := ast.Unparen(e.Y).(*ast.CallExpr)
	if !isCall || call.Fun.Name != "exp" || len(call.Args) != 1 || c.info.Calls[call] == nil {
		return nil, false, false
	}
	if u, isNeg := ast.Unparen(call.Args[0]).(*ast.UnaryExpr); isNeg && u.Op == ast.Neg {
		return u.X, true, true
	}
	return call.Args[0], false, true
}

// oneMinusExpWhy says why 1 - exp(-E) (negated) or 1 - exp(E) is not known
// to be in (0, 1): it is when E is positive (negative), which the checker
// could not prove of E. A let is named with its line and followed into
// its value, where the culprit is, typically a difference of two
// exponentials (exp(b * (x + w)) - exp(b * x)), which intervals cannot
// tell is positive, though it is for b, w > 0.
func (c *checker) oneMinusExpWhy(arg ast.Expr, negated bool) string {
	form, sign := "1 - exp(E)", "negative"
	if negated {
		form, sign = "1 - exp(-E)", "positive"
	}
	msg := form + " is in (0, 1) when E is " + sign + ", and E = `" + exprString(arg) + "` is not known " + sign
	if !negated {
		return msg + " (it is " + supportWord(c.info.Types[arg]) + ")"
	}
	if id, ok := ast.Unparen(arg).(*ast.Ident); ok {
		if sym := c.info.Uses[id]; sym != nil && sym.Kind == Let {
			if let, ok := sym.Decl.(*ast.LetStmt); ok && let.Value != nil && c.info.Types[let.Value].Valid() {
				return msg + ": the let `" + id.Name + "` (declared at " + sym.Pos.String() + ") is " +
					strings.TrimPrefix(c.explain(let.Value, dist.Positive), "`"+exprString(let.Value)+"` is ")
			}
		}
	}
	return msg + ": " + c.explain(arg, dist.Positive)
}

// oneMinusExpHint says how to make E provably positive (negative) in
// 1 - exp(-E) (1 - exp(E)): from terms whose sign the checker knows.
func oneMinusExpHint(arg ast.Expr, negated bool) string {
	if !negated {
		return "; write E as -F with F provably positive (1 - exp(-F)): a sum or product of positive terms"
	}
	return "; make E provably positive: a sum or product of positive terms (exp, positive params and data, " +
		"expm1 of a positive value) is; a difference is not, even when its first term is the larger: " +
		"write exp(u) - exp(v) as exp(v) .* expm1(u - v), positive when u - v is"
}

// constLit reports whether e is a vector (or matrix) literal of
// constants, whose support a hint cannot change.
func (c *checker) constLit(e ast.Expr) bool {
	v, ok := ast.Unparen(e).(*ast.VectorLit)
	if !ok {
		return false
	}
	for _, x := range v.Elems {
		if c.info.Types[x].Const == nil && !c.constLit(x) {
			return false
		}
	}
	return true
}

// supportWord names a support as a description of a value.
func supportWord(t Type) string {
	if t.Elem == Int {
		switch t.Support {
		case dist.Count:
			return "a non-negative int"
		case dist.Positive:
			return "a positive int"
		case dist.Binary:
			return "a 0/1 int"
		}
		if w := intRangeWord(t); w != "" {
			return w
		}
		return "an int of any sign"
	}
	return t.Support.String()
}

// intRangeWord names the declared or derived range of an int whose support
// says no sign ("an int ≤ -1" for data int<upper=-1>, "an int in [-5,
// 5]"), or returns "" if nothing is known of it.
func intRangeWord(t Type) string {
	if t.Elem != Int || t.Support == dist.Count || t.Support == dist.Positive || t.Support == dist.Binary {
		return ""
	}
	r := t.Range.norm()
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch {
	case r.whole():
		return ""
	case math.IsInf(r.Lo, -1) && r.HiIn:
		return "an int ≤ " + num(r.Hi)
	case math.IsInf(r.Lo, -1):
		return "an int < " + num(r.Hi)
	case math.IsInf(r.Hi, 1) && r.LoIn:
		return "an int ≥ " + num(r.Lo)
	case math.IsInf(r.Hi, 1):
		return "an int > " + num(r.Lo)
	}
	return "an int in " + r.String()
}

// describe says what an expression is, pointing at its declaration when it
// is a name: "`y` is real data (declared at m.gpp:3:6)".
func (c *checker) describe(e ast.Expr) string {
	t := c.info.Types[e]
	what := t.Elem.String()
	if t.Elem == Real && t.Support != dist.Real {
		what = t.Support.String() + " real"
	}
	if id, ok := ast.Unparen(e).(*ast.Ident); ok {
		if sym := c.info.Uses[id]; sym != nil {
			return "`" + id.Name + "` is " + what + " " + sym.Kind.String() + " (declared at " + sym.Pos.String() + ")"
		}
	}
	return "`" + exprString(e) + "` is " + what
}

// explain says why e does not have the support req, following the
// expression down to the name or operation the support came from.
func (c *checker) explain(e ast.Expr, req dist.Support) string {
	t := c.info.Types[e]
	text := "`" + exprString(e) + "`"
	if t.Const != nil {
		v := formatValue(t.Elem, *t.Const)
		if v == exprString(e) {
			return text + " is not " + req.String()
		}
		return text + " is " + v + ", not " + req.String()
	}
	is := text + " is " + supportWord(t)
	// The interval, where it says more than the support and the expression
	// is an operation on others (their declarations say the rest).
	ranged := false
	switch ast.Unparen(e).(type) {
	case *ast.BinaryExpr, *ast.CallExpr, *ast.UnaryExpr:
		if r := t.Range.norm(); r != supportInterval(t.Support).norm() {
			if intRangeWord(t) == "" { // else supportWord said it
				is += ", with values in " + r.String()
			}
			ranged = true
		}
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		sym := c.info.Uses[x]
		if sym == nil {
			return is
		}
		kind := sym.Kind.String()
		if sym.Kind == Let {
			kind = "let"
		}
		if lat := c.latents[sym]; lat != nil && lat.DataBounds() {
			// Its bounds' values come with the data; what the checker
			// knows of them is what the data's declarations say.
			return is + " (param declared at " + sym.Pos.String() + " with the bounds " + lat.BoundsString() +
				", which depend on data: declare their support, such as data L: positive, to let the checker know it)"
		}
		if t.Support == dist.Simplex && sym.Kind == Data && req != dist.Simplex {
			// A param simplex's entries are positive; data's may be 0.
			return is + " (" + kind + " declared at " + sym.Pos.String() + "; data may hold zeros, a simplex param's entries are positive)"
		}
		if d, ok := sym.Decl.(*ast.DataDecl); ok && (req == dist.Positive || req == dist.NonNegative) && t.Support == dist.Real && d.Name.Name == x.Name &&
			d.Type.Kind == ast.Real && d.Type.Lower == nil && d.Type.Upper == nil {
			// Data declared real deep in an expression that must be
			// positive (pow(population, b) as a Poisson rate): Stan's and
			// PyMC's users leave data undeclared or real<lower=0>. Where
			// non-negative is enough (lagged counts in mu + alpha * y),
			// that is what is named: positive would refuse their zeros.
			dt := *d.Type
			word := "positive"
			dt.Kind = ast.Positive
			if req == dist.NonNegative {
				dt.Kind, dt.Lower, word = ast.Real, &ast.NumberLit{Raw: "0", IsInt: true}, "non-negative"
			}
			return is + " (data declared at " + sym.Pos.String() + "; if its values are " + word + ", declare it `data " + x.Name + ": " + ast.FormatType(&dt) + "`, checked when it loads)"
		}
		if d, ok := sym.Decl.(*ast.DataDecl); ok && (req == dist.Positive || req == dist.NonNegative) && !satisfies(dist.NonNegative, t) &&
			d.Name.Name == x.Name && d.Type.Kind == ast.Int && d.Type.Lower == nil && d.Type.Upper == nil {
			// int data of either sign (counts declared int, lagged into
			// a rate): the bound makes them counts
			dt := *d.Type
			dt.Lower = &ast.NumberLit{Raw: "0", IsInt: true}
			return is + " (data declared at " + sym.Pos.String() + "; if its values are non-negative, declare it `data " + x.Name + ": " + ast.FormatType(&dt) + "`, checked when it loads)"
		}
		if let, ok := sym.Decl.(*ast.LetStmt); ok && sym.Fn == nil && let.Value != nil && c.info.Types[let.Value].Valid() {
			// into the let's value, down to the name or operation its
			// support came from
			return is + " (let declared at " + sym.Pos.String() + ") because " + c.explain(let.Value, req)
		}
		return is + " (" + kind + " declared at " + sym.Pos.String() + ")"
	case *ast.UnaryExpr:
		if x.Op == ast.Not {
			return is + ": a logical not, 0 or 1"
		}
		return is + ": a negation"
	case *ast.TransposeExpr:
		if c.info.Types[x.X].Support == dist.Simplex && t.Support != dist.Simplex {
			return is + ": the transpose of a matrix of simplex rows, whose columns sum to 1, not its rows"
		}
		return c.explain(x.X, req)
	case *ast.IndexExpr:
		return is + " because " + c.explain(x.X, req)
	case *ast.VectorLit:
		for _, el := range x.Elems {
			if et := c.info.Types[el]; !satisfies(req, et) {
				if et.Const != nil { // what [1, 0] is as a whole (a 0/1 int) is beside the point
					return fmt.Sprintf("%s has the element `%s`, which is not %s", text, exprString(el), req)
				}
				return is + " because its element " + c.explain(el, req)
			}
		}
	case *ast.BinaryExpr:
		if arg, negated, ok := c.oneMinusExp(x); ok && req == dist.Unit {
			return is + ": " + c.oneMinusExpWhy(arg, negated)
		}
		if r := t.Range.norm(); x.Op == ast.Sub && t.Support == dist.Real && r.Lo < 0 && r.Hi > 0 {
			return is + ": a difference can have either sign"
		}
		if ranged {
			return is
		}
		// A real result has an operand of either sign: it is named
		// before one that is only non-negative, which a positive result
		// needs positive. A chain of sums or products is one operation:
		// its terms are named, not its prefixes (a + b + c is real
		// because a is, not because a + b is).
		ops := []ast.Expr{x.X, x.Y}
		if x.Op == ast.Add || x.Op == ast.Mul || x.Op == ast.EMul {
			ops = chainOperands(x, x.Op, nil)
		}
		for _, need := range []dist.Support{dist.NonNegative, dist.Positive} {
			for _, op := range ops {
				ot := c.info.Types[op]
				if !satisfies(need, ot) && !(x.Op == ast.Div && op == x.X && satisfies(dist.NonNegative, ot)) {
					return is + " because " + c.explain(op, c.operandNeed(x.Op, ops, op, req))
				}
			}
		}
		return is
	case *ast.CallExpr:
		f := c.info.Calls[x]
		if f == nil {
			return is
		}
		if f.Shape == stdlib.ICDF && len(x.Args) == 2 {
			return is + " (icdf's values are those of its distribution's draws: `" + exprString(x.Args[1]) + "`)"
		}
		if f.Support.Kind == stdlib.Fixed {
			return is + " (" + f.Name + " gives " + f.Support.Default.String() + " values)"
		}
		if k := f.Support.Kind; (k == stdlib.Product || k == stdlib.SumOfProducts || k == stdlib.SumsOfProducts || k == stdlib.Smaller) && len(x.Args) == 2 {
			// as a product's operands: one of either sign first, then
			// one not positive (a simplex's entries make a positive sum
			// of products with positive values)
			for _, need := range []dist.Support{dist.NonNegative, dist.Positive} {
				for _, a := range x.Args {
					at := c.info.Types[a]
					if !satisfies(need, at) && !(need == dist.Positive && k == stdlib.SumOfProducts && at.Support == dist.Simplex) {
						return is + " because " + c.explain(a, req)
					}
				}
			}
			return is
		}
		if k := f.Support.Kind; k == stdlib.RenewalSupport && len(x.Args) == 3 || (k == stdlib.Recursive || k == stdlib.DiagSum) && len(x.Args) == 2 {
			// the argument that keeps the result from req: ar_filter(r, e)
			// with r in (0, 1) is real because e is, not because of r
			if i := c.blameArg(f, x.Args, req); i >= 0 {
				return is + " because " + c.explain(x.Args[i], req)
			}
			return is
		}
		if f.Support.Kind == stdlib.Larger && len(x.Args) == 2 && req != dist.Unit {
			// the larger of two is req if either is: both are short
			a, b := x.Args[0], x.Args[1]
			if !satisfies(req, c.info.Types[a]) && !satisfies(req, c.info.Types[b]) {
				return is + " because neither operand is " + req.String() + ": " + c.explain(a, req) + ", and " + c.explain(b, req)
			}
		}
		if k := f.Support.Kind; k == stdlib.Between && len(x.Args) == 3 || k == stdlib.Larger && len(x.Args) == 2 {
			// the value bounded (linspaced's ends, fmax's operands) of
			// either sign first, then one short of req
			for _, need := range []dist.Support{dist.NonNegative, dist.Positive, req} {
				for _, a := range x.Args[len(x.Args)-2:] {
					if !satisfies(need, c.info.Types[a]) {
						return is + " because " + c.explain(a, req)
					}
				}
			}
			return is
		}
		if a := f.Support.Arg; a < len(x.Args) {
			return is + " because " + c.explain(x.Args[a], req)
		}
	}
	return is
}

// operandNeed is the support an operand of a chain of op must have for
// the chain to have req: a term of a sum with another term positive need
// only be non-negative (mu + alpha * S, S a count), a factor of a product
// what the product needs; positive otherwise.
func (c *checker) operandNeed(op ast.Op, ops []ast.Expr, x ast.Expr, req dist.Support) dist.Support {
	if req != dist.Positive && req != dist.NonNegative {
		return dist.Positive
	}
	switch op {
	case ast.Add:
		for _, o := range ops {
			if o != x && satisfies(dist.Positive, c.info.Types[o]) {
				return dist.NonNegative
			}
		}
		return req
	case ast.Mul, ast.EMul:
		return req
	}
	return dist.Positive
}

// blameArg returns the index of the argument of f's call that keeps its
// result short of req: the first (of either sign first) that, made
// positive with the others as they are, would make it req; else the first
// of either sign, else the first not positive; -1 if none.
func (c *checker) blameArg(f *stdlib.Func, args []ast.Expr, req dist.Support) int {
	sups := make([]dist.Support, len(args))
	for i, a := range args {
		sups[i] = entrySupport(c.info.Types[a])
	}
	for _, need := range []dist.Support{dist.NonNegative, dist.Positive} {
		for i, a := range args {
			if satisfies(need, c.info.Types[a]) {
				continue
			}
			lifted := append([]dist.Support(nil), sups...)
			lifted[i] = dist.Positive
			if req.Contains(f.Support.Result(lifted)) {
				return i
			}
		}
	}
	for _, need := range []dist.Support{dist.NonNegative, dist.Positive} {
		for i, a := range args {
			if !satisfies(need, c.info.Types[a]) {
				return i
			}
		}
	}
	return -1
}

// chainOperands appends the operands of e's chain of op (a + b + c, with
// parentheses) to ops, left to right.
func chainOperands(e ast.Expr, op ast.Op, ops []ast.Expr) []ast.Expr {
	if b, ok := ast.Unparen(e).(*ast.BinaryExpr); ok && b.Op == op {
		return chainOperands(b.Y, op, chainOperands(b.X, op, ops))
	}
	return append(ops, e)
}

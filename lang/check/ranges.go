package check

import (
	"math"
	"strconv"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// Interval is a range known to hold every element of a value, from Lo to
// Hi; an end belongs to it only when LoIn (HiIn) is set, and an infinite
// end never does. The zero Interval is unknown: the whole line.
//
// The checker carries it beside the support (language.md §6) by interval
// arithmetic, so that what the support rules cannot see still checks:
// with phi = 2 * u - 1 for a unit u, phi lies in (-1, 1), phi * phi in
// (-1, 1) and 1 - phi * phi in (0, 2), which is positive, as the
// stationary sd of an AR(1) process, sigma / sqrt(1 - phi * phi), needs.
type Interval struct {
	Lo, Hi     float64
	LoIn, HiIn bool
	Known      bool
}

func wholeLine() Interval { return Interval{Lo: math.Inf(-1), Hi: math.Inf(1), Known: true} }

func pointInterval(v float64) Interval {
	return Interval{Lo: v, Hi: v, LoIn: true, HiIn: true, Known: true}
}

// norm returns the interval with an unknown one as the whole line and
// infinite ends excluded.
func (r Interval) norm() Interval {
	if !r.Known || math.IsNaN(r.Lo) || math.IsNaN(r.Hi) || r.Lo > r.Hi {
		return wholeLine()
	}
	r.LoIn = r.LoIn && !math.IsInf(r.Lo, 0)
	r.HiIn = r.HiIn && !math.IsInf(r.Hi, 0)
	return r
}

// whole reports whether the interval says nothing.
func (r Interval) whole() bool {
	r = r.norm()
	return math.IsInf(r.Lo, -1) && math.IsInf(r.Hi, 1)
}

// String formats the interval as in mathematics: "(-1, 1)", "[0, ∞)",
// with 6 significant digits, or as many as tell the ends apart
// ("(0.9999999, 1)", not "(1, 1)").
func (r Interval) String() string {
	r = r.norm()
	num := func(v float64, prec int) string {
		switch {
		case math.IsInf(v, 1):
			return "∞"
		case math.IsInf(v, -1):
			return "-∞"
		}
		return strconv.FormatFloat(v, 'g', prec, 64)
	}
	lo, hi := num(r.Lo, 6), num(r.Hi, 6)
	if lo == hi && r.Lo != r.Hi {
		lo, hi = num(r.Lo, -1), num(r.Hi, -1)
	}
	open, close := "(", ")"
	if r.LoIn {
		open = "["
	}
	if r.HiIn {
		close = "]"
	}
	return open + lo + ", " + hi + close
}

// Contains reports whether v is in the interval.
func (r Interval) Contains(v float64) bool {
	r = r.norm()
	return (r.Lo < v || r.Lo == v && r.LoIn) && (v < r.Hi || v == r.Hi && r.HiIn)
}

// SupportInterval is the interval of a support's values (the whole line
// for Interval, whose ends are its distribution's arguments).
func SupportInterval(s dist.Support) Interval { return supportInterval(s) }

// supportInterval is the interval of a support's values.
func supportInterval(s dist.Support) Interval {
	inf := math.Inf(1)
	switch s {
	case dist.Positive, dist.PositiveOrdered:
		return Interval{Lo: 0, Hi: inf, Known: true}
	case dist.NonNegative, dist.Count, dist.BoundedCount:
		return Interval{Lo: 0, Hi: inf, LoIn: true, Known: true}
	case dist.Unit:
		return Interval{Lo: 0, Hi: 1, Known: true}
	case dist.Binary, dist.Simplex:
		return Interval{Lo: 0, Hi: 1, LoIn: true, HiIn: true, Known: true}
	}
	return wholeLine()
}

// boundsInterval is the interval of data declared with the support s and
// constant inclusive bounds lo, hi (either may be nil).
func boundsInterval(s dist.Support, lo, hi *float64) Interval {
	r := supportInterval(s)
	b := wholeLine()
	if lo != nil {
		b.Lo, b.LoIn = *lo, true
	}
	if hi != nil {
		b.Hi, b.HiIn = *hi, true
	}
	return intersect(r, b)
}

// pickEnd returns the end (v, in) of a and b that prefer chooses, and on
// a tie the two ends' flags joined by both (an end belongs to an
// intersection when it belongs to both, to a hull when to either).
func pickEnd(av float64, ain bool, bv float64, bin bool, prefer func(x, y float64) bool, both bool) (float64, bool) {
	switch {
	case prefer(av, bv):
		return av, ain
	case prefer(bv, av):
		return bv, bin
	case both:
		return av, ain && bin
	}
	return av, ain || bin
}

func above(x, y float64) bool { return x > y }
func below(x, y float64) bool { return x < y }

// intersect returns the values in both intervals.
func intersect(a, b Interval) Interval {
	a, b = a.norm(), b.norm()
	r := Interval{Known: true}
	r.Lo, r.LoIn = pickEnd(a.Lo, a.LoIn, b.Lo, b.LoIn, above, true)
	r.Hi, r.HiIn = pickEnd(a.Hi, a.HiIn, b.Hi, b.HiIn, below, true)
	if r.Lo > r.Hi || r.Lo == r.Hi && !(r.LoIn && r.HiIn) {
		return a // disjoint: the rules disagree; keep the arithmetic's
	}
	return r
}

// hull returns the smallest interval holding both.
func hull(a, b Interval) Interval {
	a, b = a.norm(), b.norm()
	r := Interval{Known: true}
	r.Lo, r.LoIn = pickEnd(a.Lo, a.LoIn, b.Lo, b.LoIn, below, false)
	r.Hi, r.HiIn = pickEnd(a.Hi, a.HiIn, b.Hi, b.HiIn, above, false)
	return r
}

// maxInterval is the interval of max(x, y) for x in a, y in b: from the
// larger lower end (attained with both ends at a tie) to the larger upper.
func maxInterval(a, b Interval) Interval {
	a, b = a.norm(), b.norm()
	r := Interval{Known: true}
	r.Lo, r.LoIn = pickEnd(a.Lo, a.LoIn, b.Lo, b.LoIn, above, true)
	r.Hi, r.HiIn = pickEnd(a.Hi, a.HiIn, b.Hi, b.HiIn, above, false)
	return r
}

func negInterval(a Interval) Interval {
	a = a.norm()
	return Interval{Lo: -a.Hi, Hi: -a.Lo, LoIn: a.HiIn, HiIn: a.LoIn, Known: true}
}

// The ends computed below are rounded outwards: an interval bounds the real
// values of the arithmetic, and 0.5 + (1 − 2⁻⁵³), which is below 1.5,
// rounds to 1.5. An end moved by rounding is open. (The values the tape
// computes round too; it checks them when it runs.)

// roundedEnd returns the end v of exact value v + e (e the rounding error)
// moved outwards when e points outwards, and whether it is still exact.
func roundedEnd(v, e float64, lower bool) (float64, bool) {
	switch {
	case e == 0 || math.IsNaN(e) || math.IsInf(v, 0):
		return v, true
	case lower && e < 0:
		return math.Nextafter(v, math.Inf(-1)), false
	case !lower && e > 0:
		return math.Nextafter(v, math.Inf(1)), false
	}
	return v, false
}

func addEnd(x, y float64, lower bool) (float64, bool) {
	s := x + y
	bb := s - x
	return roundedEnd(s, (x-(s-bb))+(y-bb), lower)
}

func addInterval(a, b Interval) Interval {
	a, b = a.norm(), b.norm()
	r := Interval{Known: true}
	var ok bool
	r.Lo, ok = addEnd(a.Lo, b.Lo, true)
	r.LoIn = a.LoIn && b.LoIn && ok
	r.Hi, ok = addEnd(a.Hi, b.Hi, false)
	r.HiIn = a.HiIn && b.HiIn && ok
	return r.norm()
}

// mulInterval returns the interval of x·y for x in a, y in b. The extremes
// of a product over a box are at its corners; a corner value other than 0
// is attained only when both of its ends are, and 0 whenever either
// interval holds 0. A corner 0·∞ stands for products that tend to 0 and to
// ±∞ along the edges, which the other corners then bound.
func mulInterval(a, b Interval) Interval {
	a, b = a.norm(), b.norm()
	zero := a.Contains(0) || b.Contains(0)
	type end struct {
		v  float64
		in bool
	}
	type corner struct{ lo, hi end }
	var corners [4]corner
	for i, x := range [2]end{{a.Lo, a.LoIn}, {a.Hi, a.HiIn}} {
		for j, y := range [2]end{{b.Lo, b.LoIn}, {b.Hi, b.HiIn}} {
			var c corner
			if x.v == 0 || y.v == 0 {
				c.lo, c.hi = end{0, zero}, end{0, zero}
			} else {
				p := x.v * y.v
				e := math.FMA(x.v, y.v, -p)
				lo, exact := roundedEnd(p, e, true)
				c.lo = end{lo, x.in && y.in && exact}
				hi, exact := roundedEnd(p, e, false)
				c.hi = end{hi, x.in && y.in && exact}
			}
			corners[2*i+j] = c
		}
	}
	r := Interval{Lo: math.Inf(1), Hi: math.Inf(-1), Known: true}
	for _, c := range corners {
		r.Lo, r.Hi = min(r.Lo, c.lo.v), max(r.Hi, c.hi.v)
	}
	for _, c := range corners {
		r.LoIn = r.LoIn || c.lo.v == r.Lo && c.lo.in
		r.HiIn = r.HiIn || c.hi.v == r.Hi && c.hi.in
	}
	return r.norm()
}

// divInterval returns the interval of x/y, or the whole line when b may
// hold 0 (or come arbitrarily close to it from both sides).
func divInterval(a, b Interval) Interval {
	b = b.norm()
	var inv Interval
	// recip returns 1/v as the lower or upper end of 1/b; the residual
	// 1 − q·v has the sign of (1/v − q)·v.
	recip := func(v float64, in, lower bool) (float64, bool) {
		if v == 0 {
			return math.Inf(1), false
		}
		q := 1 / v
		e := math.FMA(-q, v, 1)
		if v < 0 {
			e = -e
		}
		q, exact := roundedEnd(q, e, lower)
		return q, in && exact
	}
	switch {
	case b.Lo > 0 || b.Lo == 0 && !b.LoIn:
		inv.Lo, inv.LoIn = recip(b.Hi, b.HiIn, true)
		inv.Hi, inv.HiIn = recip(b.Lo, b.LoIn, false)
	case b.Hi < 0 || b.Hi == 0 && !b.HiIn:
		inv.Lo, inv.LoIn = recip(b.Hi, b.HiIn, true)
		inv.Hi, inv.HiIn = recip(b.Lo, b.LoIn, false)
		if b.Hi == 0 {
			inv.Lo = math.Inf(-1)
		}
	default:
		return wholeLine()
	}
	inv.Known = true
	return mulInterval(a, inv)
}

// absInterval returns the interval of |x|.
func absInterval(a Interval) Interval {
	a = a.norm()
	switch {
	case a.Lo >= 0:
		return a
	case a.Hi <= 0:
		return negInterval(a)
	}
	r := Interval{Lo: 0, LoIn: true, Known: true}
	switch {
	case -a.Lo > a.Hi:
		r.Hi, r.HiIn = -a.Lo, a.LoIn
	case -a.Lo < a.Hi:
		r.Hi, r.HiIn = a.Hi, a.HiIn
	default:
		r.Hi, r.HiIn = a.Hi, a.LoIn || a.HiIn
	}
	return r
}

// increasing maps the interval through an increasing function f; an end
// where f is not defined (NaN) leaves nothing known. An end is moved
// outwards by an ulp (and opened) unless f took it from an infinite end or
// from an integer to an integer (exp(0) = 1, log(1) = 0, sqrt(4) = 2), or
// from 0 to a half-integer (Phi(0) = inv_logit(0) = 0.5): the math
// library's results there are exact, and Stan's golf model's
// 2 * Phi(z) - 1 of a positive z is then in (0, 1), a probability.
func increasing(a Interval, f func(float64) float64) Interval {
	a = a.norm()
	lo, hi := f(a.Lo), f(a.Hi)
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return wholeLine()
	}
	exact := func(x, y float64) bool {
		return math.IsInf(x, 0) || math.IsInf(y, 0) || x == math.Trunc(x) && y == math.Trunc(y) || x == 0 && 2*y == math.Trunc(2*y)
	}
	r := Interval{Lo: lo, Hi: hi, LoIn: a.LoIn, HiIn: a.HiIn, Known: true}
	if !exact(a.Lo, lo) {
		r.Lo, r.LoIn = math.Nextafter(lo, math.Inf(-1)), false
	}
	if !exact(a.Hi, hi) {
		r.Hi, r.HiIn = math.Nextafter(hi, math.Inf(1)), false
	}
	return r.norm()
}

// sumInterval is the interval of a sum of one or more elements of a: it
// keeps a non-negative lower end (and a non-positive upper one); the other
// end is unbounded, as the number of terms is.
func sumInterval(a Interval) Interval {
	a = a.norm()
	switch {
	case a.Lo >= 0:
		return Interval{Lo: a.Lo, Hi: math.Inf(1), LoIn: a.LoIn, Known: true}
	case a.Hi <= 0:
		return Interval{Lo: math.Inf(-1), Hi: a.Hi, HiIn: a.HiIn, Known: true}
	}
	return wholeLine()
}

// powInterval is the interval of x^c for a constant exponent c, or nothing
// known for another exponent.
func powInterval(a Interval, c *float64) Interval {
	if c == nil {
		return wholeLine()
	}
	e := *c
	pow := func(x float64) float64 { return math.Pow(x, e) }
	a = a.norm()
	switch {
	case e > 0 && e == math.Trunc(e) && math.Mod(e, 2) == 0: // even: |x|^e
		return increasing(absInterval(a), pow)
	case e > 0 && e == math.Trunc(e): // odd: increasing on the line
		return increasing(a, pow)
	case e > 0 && a.Lo >= 0:
		return increasing(a, pow)
	case e < 0 && (a.Lo > 0 || a.Lo == 0 && !a.LoIn):
		return negInterval(increasing(a, func(x float64) float64 { return -math.Pow(x, e) }))
	}
	return wholeLine()
}

// intervalSupport is the narrowest support that the interval shows:
// unit, positive or non-negative for real values; binary, positive or
// count for ints; real when it shows none of these.
func intervalSupport(e Elem, r Interval) dist.Support {
	r = r.norm()
	pos := r.Lo > 0 || r.Lo == 0 && !r.LoIn
	nonNeg := r.Lo >= 0
	if e == Int {
		switch {
		case nonNeg && r.Hi <= 1:
			return dist.Binary
		case pos:
			return dist.Positive
		case nonNeg:
			return dist.Count
		}
		return dist.Real
	}
	switch {
	case pos && (r.Hi < 1 || r.Hi == 1 && !r.HiIn):
		return dist.Unit
	case pos:
		return dist.Positive
	case nonNeg:
		return dist.NonNegative
	}
	return dist.Real
}

// refine narrows a support that says only a sign (real, non-negative,
// positive, count) to what the interval shows, and the interval to what
// the support says.
func refine(t Type) Type {
	t.Range = intersect(t.Range, supportInterval(t.Support))
	switch t.Support {
	case dist.Real, dist.NonNegative, dist.Positive, dist.Count:
	default:
		return t
	}
	if s := intervalSupport(t.Elem, t.Range); s != t.Support && narrower(s, t.Support) {
		t.Support = s
	}
	return t
}

// narrower reports whether support s is strictly inside support t, for the
// scalar supports refine deals in.
func narrower(s, t dist.Support) bool {
	if t.Contains(s) {
		return true
	}
	// A positive int is inside count (its elements are 1, 2, ...).
	return t == dist.Count && s == dist.Positive
}

// rangeOf is the interval of an expression's values, from its operands'
// (recorded in c.info.Types) by interval arithmetic.
func (c *checker) rangeOf(e ast.Expr, t Type) Interval {
	if t.Const != nil {
		return pointInterval(*t.Const)
	}
	of := func(x ast.Expr) Interval { return c.info.Types[x].Range }
	switch e := e.(type) {
	case *ast.Ident:
		if sym := c.info.Uses[e]; sym != nil {
			return sym.Type.Range
		}
	case *ast.ParenExpr:
		return of(e.X)
	case *ast.TransposeExpr:
		return of(e.X)
	case *ast.IndexExpr:
		return of(e.X)
	case *ast.UnaryExpr:
		if e.Op == ast.Not {
			return Interval{Lo: 0, Hi: 1, LoIn: true, HiIn: true, Known: true}
		}
		return negInterval(of(e.X))
	case *ast.VectorLit:
		r := Interval{}
		for i, x := range e.Elems {
			if i == 0 {
				r = of(x).norm()
			} else {
				r = hull(r, of(x))
			}
		}
		return r
	case *ast.BinaryExpr:
		if e.Op.IsLogical() {
			return Interval{Lo: 0, Hi: 1, LoIn: true, HiIn: true, Known: true}
		}
		x, y := of(e.X), of(e.Y)
		if e.Op == ast.Mul && c.info.Types[e.X].Shape.Rank() > 0 && c.info.Types[e.Y].Shape.Rank() > 0 {
			if t.Support == dist.Simplex && entrySupport(c.info.Types[e.X]) == dist.Unit && entrySupport(c.info.Types[e.Y]) == dist.Unit {
				// simplex rows of params: each entry a convex combination of (0, 1) values
				return Interval{Lo: 0, Hi: 1, Known: true}
			}
			return wholeLine() // a sum of products: the support rule knows the sign
		}
		switch e.Op {
		case ast.Add:
			return c.convexRange(e, addInterval(x, y))
		case ast.Sub:
			return c.convexRange(e, addInterval(x, negInterval(y)))
		case ast.Mul, ast.EMul:
			return mulInterval(x, y)
		case ast.Div:
			return divInterval(x, y)
		case ast.Pow:
			return powInterval(x, c.info.Types[e.Y].Const)
		}
	case *ast.CallExpr:
		f := c.info.Calls[e]
		if f == nil || len(e.Args) == 0 {
			break
		}
		x := of(e.Args[0])
		switch f.Range {
		case stdlib.Increasing:
			if f.Fold != nil {
				if d := f.Domain; d != nil {
					x = intersect(x, Interval{Lo: d[0], Hi: d[1], LoIn: true, HiIn: true, Known: true})
				}
				return increasing(x, func(v float64) float64 { return f.Fold([]float64{v}) })
			}
		case stdlib.ElementRange:
			return x
		case stdlib.SumRange:
			return sumInterval(x)
		case stdlib.AbsRange:
			return absInterval(x)
		case stdlib.SquareRange:
			two := 2.0
			return powInterval(x, &two)
		case stdlib.PowRange:
			if len(e.Args) == 2 {
				return powInterval(x, c.info.Types[e.Args[1]].Const)
			}
		case stdlib.BetweenRange:
			if len(e.Args) == 3 {
				return hull(of(e.Args[1]), of(e.Args[2]))
			}
		case stdlib.LargerRange:
			if len(e.Args) == 2 {
				return maxInterval(x, of(e.Args[1]))
			}
		}
	}
	return wholeLine()
}

// convexRange narrows r, the interval of the sum or difference e, when e is
// a convex combination (1 − u)·A + u·B of A and B with u in [0, 1],
// written A + (B − A)·u, A − (A − B)·u or (1 − u)·A + u·B (factors and
// terms in either order): its value lies between A's and B's, in the hull
// of their intervals. Interval arithmetic alone takes A's two appearances
// as independent: with s, u unit, (1 − s) + (1 − (1 − s))·u is (0, 2) to
// it, and (0, 1) here. A is matched by its tree (ast.EqualExpr), and only
// when it holds no random draw, so that both appearances are one value.
// Elementwise, broadcasting pairs each element of the result with the
// same element of u (or of A) wherever u appears, so each element is a
// convex combination too; a matrix product is not elementwise.
func (c *checker) convexRange(e *ast.BinaryExpr, r Interval) Interval {
	a, b, u, ok := c.convexParts(e)
	if !ok {
		return r
	}
	ur := c.info.Types[u].Range.norm()
	if !c.info.Types[u].Range.Known || ur.Lo < 0 || ur.Hi > 1 {
		return r
	}
	return intersect(r, convexHull(c.info.Types[a].Range, c.info.Types[b].Range, ur))
}

// convexHull is the interval of (1 − u)·A + u·B for A in a, B in b and u
// in ur, within [0, 1]: the hull of a and b. An end of the hull belongs to
// it when the value can reach it: at u = 0 (A's end), at u = 1 (B's), or
// for u between when A and B both reach it.
func convexHull(a, b, ur Interval) Interval {
	a, b = a.norm(), b.norm()
	u0 := ur.Lo == 0 && ur.LoIn
	u1 := ur.Hi == 1 && ur.HiIn
	end := func(av float64, ain bool, bv float64, bin bool, prefer func(x, y float64) bool) (float64, bool) {
		v := av
		if prefer(bv, av) {
			v = bv
		}
		inA, inB := av == v && ain, bv == v && bin
		return v, inA && inB || u0 && inA || u1 && inB
	}
	r := Interval{Known: true}
	r.Lo, r.LoIn = end(a.Lo, a.LoIn, b.Lo, b.LoIn, below)
	r.Hi, r.HiIn = end(a.Hi, a.HiIn, b.Hi, b.HiIn, above)
	return r.norm()
}

// convexParts reads e as (1 − u)·A + u·B (see convexRange) and returns A,
// B and u; ok is false for any other form.
func (c *checker) convexParts(e *ast.BinaryExpr) (a, b, u ast.Expr, ok bool) {
	x, y := ast.Unparen(e.X), ast.Unparen(e.Y)
	switch e.Op {
	case ast.Sub: // A − (A − B)·u
		if d, u, ok := c.scaledDiff(y, func(d *ast.BinaryExpr) bool { return c.sameValue(d.X, x) }); ok {
			return x, d.Y, u, true
		}
	case ast.Add:
		for _, p := range [2][2]ast.Expr{{x, y}, {y, x}} {
			// A + (B − A)·u
			if d, u, ok := c.scaledDiff(p[1], func(d *ast.BinaryExpr) bool { return c.sameValue(d.Y, p[0]) }); ok {
				return p[0], d.X, u, true
			}
			// (1 − u)·A + u·B
			f, okF := c.elemFactors(p[0])
			g, okG := c.elemFactors(p[1])
			if !okF || !okG {
				continue
			}
			for _, fi := range [2]int{0, 1} {
				m, isSub := ast.Unparen(f[fi]).(*ast.BinaryExpr)
				if !isSub || m.Op != ast.Sub || !c.isOne(m.X) {
					continue
				}
				for _, gi := range [2]int{0, 1} {
					if c.sameValue(g[gi], m.Y) {
						return f[1-fi], g[1-gi], g[gi], true
					}
				}
			}
		}
	}
	return nil, nil, nil, false
}

// scaledDiff reads e as an elementwise product of a difference d, for
// which match holds, and a factor u, in either order.
func (c *checker) scaledDiff(e ast.Expr, match func(d *ast.BinaryExpr) bool) (d *ast.BinaryExpr, u ast.Expr, ok bool) {
	f, ok := c.elemFactors(e)
	if !ok {
		return nil, nil, false
	}
	for i := range 2 {
		if d, ok := ast.Unparen(f[i]).(*ast.BinaryExpr); ok && d.Op == ast.Sub && match(d) {
			return d, f[1-i], true
		}
	}
	return nil, nil, false
}

// elemFactors returns the factors of e when it is a product taken element
// by element: x .* y, or x * y with a scalar factor (not a matrix product).
func (c *checker) elemFactors(e ast.Expr) ([2]ast.Expr, bool) {
	m, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok {
		return [2]ast.Expr{}, false
	}
	switch {
	case m.Op == ast.EMul,
		m.Op == ast.Mul && (c.info.Types[m.X].Shape.Rank() == 0 || c.info.Types[m.Y].Shape.Rank() == 0):
		return [2]ast.Expr{m.X, m.Y}, true
	}
	return [2]ast.Expr{}, false
}

func (c *checker) isOne(e ast.Expr) bool {
	v := c.info.Types[e].Const
	return v != nil && *v == 1
}

// sameValue reports whether a and b are one value: the same expression
// (ast.EqualExpr) whose calls are built-in functions and distributions
// that draw nothing at random (a user function's call is not looked into).
func (c *checker) sameValue(a, b ast.Expr) bool {
	if !ast.EqualExpr(a, b) {
		return false
	}
	pure := true
	ast.Inspect(a, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			f := c.info.Calls[call]
			if (f == nil || f.Random) && c.info.Dists[call] == nil {
				pure = false
			}
		}
		return pure
	})
	return pure
}

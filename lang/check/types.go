package check

import (
	"strconv"
	"strings"

	"github.com/gpplang/gpp/dist"
)

// Elem is the element type of a value.
type Elem int

// Element types. Invalid marks an expression whose type could not be
// determined because of an error already reported; it silences further
// errors about that expression.
const (
	Invalid Elem = iota
	Int
	Real
)

func (e Elem) String() string {
	switch e {
	case Int:
		return "int"
	case Real:
		return "real"
	}
	return "invalid"
}

// Dim is one dimension of a shape: a size known at check time, a name bound
// when the data loads (a size name, an int data scalar), or a size derived
// from such names (a slice of a symbolic extent, I(n + 1)), compared only when
// the data loads.
type Dim struct {
	N       int    // the size when known at check time, else -1
	Name    string // the name it was written with (size name, int data or const), or for a derived size its text; "" for a literal
	Derived bool   // Name describes an expression, not a single name
}

// Known reports whether the size is known at check time.
func (d Dim) Known() bool { return d.N >= 0 }

// String returns the name the size was written with, or the number.
func (d Dim) String() string {
	if d.Name != "" {
		return d.Name
	}
	if d.N >= 0 {
		return strconv.Itoa(d.N)
	}
	return "?"
}

func knownDim(n int) Dim { return Dim{N: n} }

var one = knownDim(1)

func (d Dim) isOne() bool { return d.N == 1 }

// dimRel is the result of comparing two dims at check time.
type dimRel int

const (
	dimEqual    dimRel = iota // certainly equal
	dimDiffer                 // certainly different: an error
	dimDeferred               // checked when the data loads
)

// compareDims applies language.md §5: two numbers compare by value, two
// names by name (different names are a mismatch); a name against a number,
// or anything against a derived size, is deferred to data loading.
func compareDims(a, b Dim) dimRel {
	switch {
	case a.Known() && b.Known():
		if a.N == b.N {
			return dimEqual
		}
		return dimDiffer
	case a.Known() || b.Known():
		return dimDeferred
	case a.Name == b.Name:
		return dimEqual
	case a.Derived || b.Derived:
		return dimDeferred
	}
	return dimDiffer
}

// moreInformative picks, of two dims that may be equal, the one better known
// at check time: a number, then a name, then a derived size.
func moreInformative(a, b Dim) Dim {
	switch {
	case a.Known():
		return a
	case b.Known():
		return b
	case a.Derived && !b.Derived:
		return b
	}
	return a
}

// Shape is a list of dims: rank 0 (scalar), 1 (vector [n]) or 2 (matrix
// [n, m]). A vector is a column.
type Shape []Dim

// Rank is the number of dims.
func (s Shape) Rank() int { return len(s) }

// String formats the shape as "scalar", "[N]" or "[N, K]".
func (s Shape) String() string {
	if len(s) == 0 {
		return "scalar"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// matrix views a vector [n] as the column [n, 1].
func (s Shape) matrix() (rows, cols Dim) {
	if len(s) == 1 {
		return s[0], one
	}
	return s[0], s[1]
}

func (s Shape) describe() string {
	switch len(s) {
	case 0:
		return "a scalar"
	case 1:
		return "a vector " + s.String()
	}
	return "a matrix " + s.String()
}

// Type is what the checker knows about an expression's value.
type Type struct {
	Elem    Elem
	Shape   Shape
	Support dist.Support // of each element (of each row for simplex)
	// DataOnly is true when the value depends only on data, constants, sizes
	// and loop variables, never on a param: the compiler computes it once,
	// before the fit (for loop variables, once per iteration of the loop).
	DataOnly bool
	// Const is the value of a scalar compile-time constant (literals,
	// consts, and arithmetic and foldable built-ins of them), else nil.
	Const *float64
	// Range holds every element's value (the zero Interval: nothing known
	// beyond Support). The checker derives it by interval arithmetic and
	// narrows Support with it (language.md §6).
	Range Interval
}

// Valid reports whether the type is known (no error was found computing it).
func (t Type) Valid() bool { return t.Elem != Invalid }

// String formats the type as, e.g., "real[N, D]" or "positive real".
func (t Type) String() string {
	if !t.Valid() {
		return "invalid"
	}
	s := t.Elem.String()
	if len(t.Shape) > 0 {
		s += t.Shape.String()
	}
	if t.Support != 0 && t.Support != dist.Real {
		s = t.Support.String() + " " + s
	}
	return s
}

var invalid = Type{}

// broadcastResult is the outcome of broadcasting two shapes.
type broadcastResult struct {
	Shape              Shape
	AStretch, BStretch bool   // whether a (b) had a size-1 axis stretched
	Err                string // non-empty on a mismatch
	BothStretch        bool   // the error is rule 3 of §5
	// ByRow: a vector operand as long as the matrix operand is wide, and
	// not certainly as long as it is tall. A column, it would stretch
	// along the rows only where the data made those sizes equal, where
	// numpy and PyMC stretch it along the columns; so it is an error with
	// the hint to transpose it.
	ByRow bool
}

// broadcast combines two shapes by language.md §5: a scalar combines with
// anything; otherwise both are viewed as matrices and compared axis by axis,
// a size 1 stretching to the other; stretching both operands is an error; a
// [n, 1] result with a vector operand is the vector [n].
func broadcast(a, b Shape) broadcastResult {
	if len(a) == 0 {
		return broadcastResult{Shape: b, AStretch: len(b) > 0}
	}
	if len(b) == 0 {
		return broadcastResult{Shape: a, BStretch: true}
	}
	ar, ac := a.matrix()
	br, bc := b.matrix()
	var r broadcastResult
	vec, mat := a, b
	if len(b) == 1 {
		vec, mat = b, a
	}
	if len(vec) == 1 && len(mat) == 2 && !vec[0].isOne() && !mat[0].isOne() && compareDims(vec[0], mat[1]) == dimEqual {
		switch compareDims(vec[0], mat[0]) {
		case dimDeferred:
			r.ByRow = true
			r.Err = "the vector " + vec.String() + " is a column, which would stretch along the rows of " + mat.String() +
				" only if " + mat.String() + " had " + vec[0].String() + " rows; transpose the vector (x') to meet each row"
			return r
		case dimDiffer:
			r.ByRow = true // and the rows' mismatch below, with the hint
		}
	}
	var dims [2]Dim
	for i, pair := range [2][2]Dim{{ar, br}, {ac, bc}} {
		x, y := pair[0], pair[1]
		switch rel := compareDims(x, y); {
		case rel == dimEqual:
			dims[i] = moreInformative(x, y)
		case x.isOne():
			dims[i], r.AStretch = y, true
		case y.isOne():
			dims[i], r.BStretch = x, true
		case rel == dimDeferred:
			dims[i] = moreInformative(x, y)
		default:
			what := "rows"
			if i == 1 {
				what = "columns"
			}
			r.Err = "shapes " + a.String() + " and " + b.String() + " do not broadcast: " +
				what + " " + x.String() + " and " + y.String() + " differ"
			if r.ByRow {
				r.Err += "; a vector is a column: transpose it (x') to meet each row"
			}
			return r
		}
	}
	if r.AStretch && r.BStretch {
		r.Err = "broadcasting would stretch both " + a.String() + " and " + b.String() +
			" (a column against a row); write outer(x, y) for an outer product, or make the table" +
			" explicit with a matrix product: x * rep(1, m)' is x in each of m columns"
		r.BothStretch = true
		r.Shape = Shape{dims[0], dims[1]} // the outer shape, for logpdf
		return r
	}
	if dims[1].isOne() && (len(a) == 1 || len(b) == 1) {
		r.Shape = Shape{dims[0]}
	} else {
		r.Shape = Shape{dims[0], dims[1]}
	}
	return r
}

// matmul returns the shape of the matrix product a * b of two non-scalar
// operands: [n, k] * [k, m] is [n, m], a vector counting as [n, 1]; a
// vector right operand gives a vector.
func matmul(a, b Shape) (Shape, string) {
	ar, ac := a.matrix()
	br, bc := b.matrix()
	if compareDims(ac, br) == dimDiffer {
		msg := "matrix product " + a.String() + " * " + b.String() + ": inner sizes " +
			ac.String() + " and " + br.String() + " differ"
		if r := broadcast(a, b); r.Err == "" && !r.BothStretch {
			// a row against each row of a matrix: `.*` was meant
			msg += "; `.*` multiplies elementwise: " + a.String() + " .* " + b.String() + " is " + r.Shape.String()
		}
		return nil, msg
	}
	if len(b) == 1 {
		return Shape{ar}, ""
	}
	return Shape{ar, bc}, ""
}

// vectorProduct is the error for x * y of two vectors of shapes a and b,
// a matrix product of columns ([n, 1] * [m, 1]), for which an elementwise,
// dot or outer product was meant (language.md §5): the outer product x *
// y' is a Lee–Carter model's b * k'. yT is y ready to transpose (in
// parentheses when it is an operation).
func vectorProduct(x, y, yT string, a, b Shape) string {
	msg := "`*` of two vectors (" + a.String() + " * " + b.String() + ") is a matrix product: `.*` multiplies elementwise, dot_product(x, y) sums the products, and " +
		x + " * " + yT + "' is their outer product " + Shape{a[0], b[0]}.String() + " (element [i, j] is x[i] * y[j])"
	if b[0].isOne() {
		msg += "; to scale by the one element of `" + y + "`, write " + x + " * " + y + "[0]"
	}
	return msg
}

// transpose returns the shape of x': a scalar stays, [n] becomes the row
// [1, n], a row [1, n] becomes the vector [n], [n, m] becomes [m, n].
func transpose(s Shape) Shape {
	switch len(s) {
	case 0:
		return s
	case 1:
		return Shape{one, s[0]}
	}
	if s[0].isOne() {
		return Shape{s[1]}
	}
	return Shape{s[1], s[0]}
}

// sameShape reports whether two shapes have the same rank and no dims that
// certainly differ.
func sameShape(a, b Shape) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if compareDims(a[i], b[i]) == dimDiffer {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// Support arithmetic (language.md §6)

func isPos(s dist.Support) bool { return dist.Positive.Contains(s) }

func isNonNeg(s dist.Support) bool { return dist.NonNegative.Contains(s) || s == dist.Simplex }

// entrySupport is the support of t's entries for the product rules: a
// simplex param's lie in (0, 1), as its range says, so outer(a, p) and
// a * p' of a positive a are positive; a data simplex's may be 0.
func entrySupport(t Type) dist.Support {
	if t.Support == dist.Simplex && intervalSupport(Real, t.Range) == dist.Unit {
		return dist.Unit
	}
	return t.Support
}

// normSupport makes a support consistent with the element type: int values
// that are non-negative are counts; real values are never counts.
func normSupport(e Elem, s dist.Support) dist.Support {
	if e == Int {
		if s == dist.NonNegative {
			return dist.Count
		}
		return s
	}
	switch s {
	case dist.Count, dist.Binary, dist.BoundedCount:
		return dist.NonNegative
	case dist.Integer:
		return dist.Real
	}
	return s
}

// valueSupport is the support of a constant.
func valueSupport(e Elem, v float64) dist.Support {
	switch {
	case v > 0 && v < 1:
		return dist.Unit
	case v > 0:
		return dist.Positive
	case v == 0 && e == Int:
		return dist.Count
	case v == 0:
		return dist.NonNegative
	}
	return dist.Real
}

// joinSupports are the scalar supports a join can give, narrowest first.
var joinSupports = [...]dist.Support{dist.Binary, dist.Count, dist.Unit, dist.Positive, dist.NonNegative, dist.Real}

// joinSupport is the narrowest scalar support that holds both a and b: the
// support of a vector literal's elements taken together. Unit and positive
// give positive, positive and a non-negative int give non-negative, and
// anything of either sign gives real. A simplex entry counts as
// non-negative; interval and bounded-count supports, whose bounds come
// from arguments, widen to real and count, and integers of either sign to
// real.
func joinSupport(a, b dist.Support) dist.Support {
	widen := func(s dist.Support) dist.Support {
		switch s {
		case dist.Simplex:
			return dist.NonNegative
		case dist.Interval, dist.Integer:
			return dist.Real
		case dist.BoundedCount:
			return dist.Count
		}
		return s
	}
	a, b = widen(a), widen(b)
	for _, s := range joinSupports {
		if s.Contains(a) && s.Contains(b) {
			return s
		}
	}
	return dist.Real
}

func addSupport(a, b dist.Support) dist.Support {
	switch {
	case isPos(a) && isNonNeg(b), isNonNeg(a) && isPos(b):
		return dist.Positive
	case isNonNeg(a) && isNonNeg(b):
		return dist.NonNegative
	}
	return dist.Real
}

// subSupport is the support of c - y for a constant c (nil if x is not
// one): 1 - p stays in (0, 1) for p in (0, 1), as in the beta-binomial's
// Beta(kappa * phi, kappa * (1 - phi)).
func subSupport(c *float64, y dist.Support) dist.Support {
	if c == nil || *c < 1 {
		return dist.Real
	}
	switch y {
	case dist.Unit:
		if *c == 1 {
			return dist.Unit
		}
		return dist.Positive
	case dist.Simplex, dist.Binary:
		if *c == 1 {
			return dist.NonNegative
		}
		return dist.Positive
	}
	return dist.Real
}

func productSupport(a, b dist.Support) dist.Support {
	switch {
	case a == dist.Unit && b == dist.Unit:
		return dist.Unit
	case isPos(a) && isPos(b):
		return dist.Positive
	case isNonNeg(a) && isNonNeg(b):
		return dist.NonNegative
	}
	return dist.Real
}

// matmulSupport: a sum of products; unit × unit sums can exceed 1. A
// matrix whose rows are simplexes times another (yRank 2) has simplex
// rows: row i is a convex combination of the second's rows, as a topic
// model's document–topic by topic–word mixture, theta * phi.
func matmulSupport(a, b dist.Support, yRank int) dist.Support {
	if a == dist.Simplex && b == dist.Simplex && yRank == 2 {
		return dist.Simplex
	}
	if s := productSupport(a, b); s != dist.Unit {
		return s
	}
	return dist.Positive
}

func divSupport(a, b dist.Support) dist.Support {
	switch {
	case isPos(a) && isPos(b):
		return dist.Positive
	case isNonNeg(a) && isPos(b):
		return dist.NonNegative
	}
	return dist.Real
}

// powSupport: a positive base gives a positive power (a unit base with a
// positive exponent stays in the unit interval); a non-negative base a
// non-negative power; an even integer exponent a non-negative power.
func powSupport(base, exp dist.Support, expConst *float64) dist.Support {
	switch {
	case base == dist.Unit && isPos(exp):
		return dist.Unit
	case isPos(base):
		return dist.Positive
	case isNonNeg(base):
		return dist.NonNegative
	case expConst != nil && *expConst == float64(int64(*expConst)) && int64(*expConst)%2 == 0:
		return dist.NonNegative
	}
	return dist.Real
}

package check

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
)

// constDecl evaluates a const in order, applying a command-line override.
// A const without a type takes the type of its default: `const K = 10` is
// int, so --set K=2.5 is an error; write `const K: real = 10` to allow it.
func (c *checker) constDecl(s *ast.ConstDecl) {
	name := s.Name.Name
	elem := Invalid
	var lower, upper *float64
	if s.Type != nil {
		switch s.Type.Kind {
		case ast.Int:
			elem = Int
		case ast.Real:
			elem = Real
		default:
			c.errorf(s.Type.KindPos, "const `%s` must be int or real; found %s", name, s.Type.Kind)
		}
		lower = c.constBound(name, s.Type.Lower, "lower")
		upper = c.constBound(name, s.Type.Upper, "upper")
		if len(s.Type.Dims) > 0 {
			c.errorf(s.Type.Dims[0].Pos(), "const `%s` must be a scalar", name)
		}
	}
	c.defining = name
	t := c.expr(s.Value)
	c.defining = ""
	k := &Constant{Name: name, Pos: s.Name.NamePos, Decl: s}
	ok := t.Valid()
	if ok {
		switch {
		case t.Shape.Rank() != 0:
			c.errorf(s.Value.Pos(), "const `%s` must be a scalar; `%s` is %s: for a constant vector or matrix write `let %s = ...` (a let of constants is computed once)",
				name, exprString(s.Value), t.Shape.describe(), name)
			ok = false
		case t.Const == nil:
			c.errorf(s.Value.Pos(), "the value of const `%s` must be a constant expression; %s", name, c.nonConstCulprit(s.Value))
			ok = false
		case math.IsNaN(*t.Const) || math.IsInf(*t.Const, 0):
			c.errorf(s.Value.Pos(), "const `%s` is not finite: `%s` = %g", name, exprString(s.Value), *t.Const)
			ok = false
		}
	}
	if ok {
		k.Default = *t.Const
		switch {
		case elem == Invalid:
			elem = t.Elem
		case elem == Int && t.Elem != Int:
			c.errorf(s.Value.Pos(), "const `%s` is declared int but its value `%s` is real", name, exprString(s.Value))
		}
	}
	if elem == Invalid {
		elem = Real
		if t.Valid() {
			elem = t.Elem
		}
	}
	k.Elem = elem
	k.Value = k.Default
	if text, has := c.cfg.Overrides[name]; has {
		c.usedOverds[name] = true
		v, msg := parseOverride(text, elem)
		if msg != "" {
			c.errorf(s.Name.NamePos, "--set %s=%s: `%s` is %s constant and %s", name, text, name, ast.Article(elem.String()), msg)
		} else {
			k.Value, k.Overridden, k.Override = v, true, text
			ok = true
		}
	}
	if ok && !c.constInBounds(s, k, lower, upper) {
		ok = false
	}
	sym := &Symbol{Name: name, Kind: Const, Decl: s, Pos: s.Name.NamePos}
	if ok {
		v := k.Value
		sym.Type = Type{Elem: elem, Support: normSupport(elem, valueSupport(elem, v)), DataOnly: true, Const: &v}
	}
	k.Symbol = sym
	if c.declare(s.Name, sym) {
		c.info.Consts = append(c.info.Consts, k)
	}
}

// constBound evaluates a const's declared lower or upper bound (which
// says e), a constant scalar such as an earlier const; nil if none or
// invalid.
func (c *checker) constBound(name string, e ast.Expr, which string) *float64 {
	if e == nil {
		return nil
	}
	t := c.expr(e)
	switch {
	case !t.Valid():
		return nil
	case t.Shape.Rank() != 0:
		c.errorf(e.Pos(), "the %s bound of const `%s` must be a scalar; `%s` is %s", which, name, exprString(e), t.Shape.describe())
		return nil
	case t.Const == nil:
		c.errorf(e.Pos(), "the %s bound of const `%s` must be a constant expression; %s", which, name, c.nonConstCulprit(e))
		return nil
	}
	return t.Const
}

// constInBounds reports whether const k's value lies within its declared
// bounds, as a data value must within its declaration's, and reports the
// error where not: at the --set that gave the value, or at the default,
// naming the value, the bound and any --set of a const the bound reads
// (--set LSL=12.5 above the default USL = 12 of `real<lower=LSL>`).
func (c *checker) constInBounds(s *ast.ConstDecl, k *Constant, lower, upper *float64) bool {
	var e ast.Expr
	var want string
	switch {
	case lower != nil && k.Value < *lower:
		e, want = s.Type.Lower, ">= "+formatValue(Real, *lower)
	case upper != nil && k.Value > *upper:
		e, want = s.Type.Upper, "<= "+formatValue(Real, *upper)
	default:
		return true
	}
	pos, given := s.Value.Pos(), ""
	if k.Overridden {
		pos, given = s.Name.NamePos, "--set "+k.Name+"="+k.Override+": "
	}
	bound := "`" + exprString(e) + "`"
	if _, lit := ast.Unparen(e).(*ast.NumberLit); lit {
		bound = ""
	}
	var sets []string
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			for _, o := range c.info.Consts {
				if o.Name == id.Name && o.Overridden && !slices.Contains(sets, "--set "+o.Name+"="+o.Override) {
					sets = append(sets, "--set "+o.Name+"="+o.Override)
				}
			}
		}
		return true
	})
	if bound != "" {
		want += " (" + bound
		if len(sets) > 0 {
			want += ", by " + strings.Join(sets, " and ")
		}
		want += ")"
	}
	c.errorf(pos, "%sconst `%s` is %s, not %s, as its declaration `%s` needs", given, k.Name, k.ValueString(), want, boundedKind(s.Type.Kind, s.Type.Lower, s.Type.Upper))
	return false
}

// MaxInt is the largest magnitude of an int (a constant, a --set value, int
// data): ints are held as float64, exact up to 2^53.
const MaxInt = 1 << 53

// IntegerText reports whether text, a decimal number (an optional sign,
// digits with an optional fraction and exponent) that strconv.ParseFloat read
// as v, is an integer, and whether v is that integer exactly. "1e3" and
// "1000.0" are integers that v holds exactly; "9007199254740993" (2^53 + 1)
// is an integer that v does not hold, since ParseFloat rounds it to 2^53;
// "1.5" and "1.00000000000000000001" are not integers, though ParseFloat
// reads the second as 1. Every integer up to 2^53 in magnitude is exact.
func IntegerText(text string, v float64) (integer, exact bool) {
	s := strings.TrimLeft(text, "+-")
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return false, false
		}
		s, exp = s[:i], e
	}
	whole, frac, _ := strings.Cut(s, ".")
	// The value is 0.digits × 10^point.
	digits := whole + frac
	point := len(whole) + exp
	trimmed := strings.TrimLeft(digits, "0")
	point -= len(digits) - len(trimmed)
	digits = strings.TrimRight(trimmed, "0")
	if digits == "" {
		return true, v == 0
	}
	if point < len(digits) {
		return false, false // a nonzero digit after the decimal point
	}
	if point > 400 {
		return true, false // beyond any float64
	}
	want := digits + strings.Repeat("0", point-len(digits))
	return true, strconv.FormatFloat(math.Abs(v), 'f', 0, 64) == want
}

// parseOverride parses --set text for a value of element type e; msg says
// what is wrong, completing "`K` is an int constant and ...". Only decimal
// numbers are accepted, as in the model: not Go's 1_000 or 0x1p4. An int
// follows the rules of int data: any notation of an integer (1000, 1e3,
// 1000.0) that a float64 holds exactly, at most 2^53 in magnitude.
func parseOverride(text string, e Elem) (v float64, msg string) {
	text = strings.TrimSpace(text)
	f, ferr := strconv.ParseFloat(text, 64)
	if errors.Is(ferr, strconv.ErrRange) && !strings.ContainsAny(text, "_xX") {
		return 0, strconv.Quote(text) + " is out of range"
	}
	if ferr != nil || strings.ContainsAny(text, "_xX") || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, strconv.Quote(text) + " is not a number"
	}
	if e == Int {
		integer, exact := IntegerText(text, f)
		switch {
		case !integer:
			return 0, strconv.Quote(text) + " is not an integer"
		case !exact || math.Abs(f) > MaxInt:
			return 0, strconv.Quote(text) + " is too large: an int holds at most 2^53 in magnitude"
		}
	}
	return f, ""
}

// nonConstCulprit explains why an expression is not constant by naming the
// first name in it that is not a const.
func (c *checker) nonConstCulprit(e ast.Expr) string {
	msg := "`" + exprString(e) + "` is not constant"
	ast.Inspect(e, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		if sym := c.info.Uses[id]; sym != nil && sym.Kind != Const {
			msg = "`" + id.Name + "` is " + sym.Kind.Phrase() + " (declared at " + sym.Pos.String() + ")"
			return false
		}
		return true
	})
	return msg
}

// paramCulprit names the param an expression depends on.
func (c *checker) paramCulprit(e ast.Expr) string {
	msg := "`" + exprString(e) + "` depends on a param"
	ast.Inspect(e, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		if sym := c.info.Uses[id]; sym != nil && !sym.Type.DataOnly && sym.Type.Valid() {
			switch sym.Kind {
			case Param:
				msg = "`" + id.Name + "` is a param (declared at " + sym.Pos.String() + ")"
			case Data: // a covariate whose missing values are fitted (Config.Imputed)
				msg = "`" + id.Name + "` is data whose missing values would be fitted, changing with the draws"
			default:
				msg = "`" + id.Name + "` depends on a param (" + sym.Kind.String() + " at " + sym.Pos.String() + ")"
			}
			return false
		}
		return true
	})
	return msg
}

package compile

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
)

// elemBounds evaluates the bounds of lat, a param of the given shape with a
// bound per element (real<lower=c>[M] with c data of M values: check.
// Latent.ElemBounds), and checks them element by element as dataBounds
// checks scalar ones: each finite, the lower below the upper, their
// difference a double. A scalar bound on one side (a constant, or a scalar
// of data) is repeated per element. It returns lat with their values
// (check.Latent.WithElemBounds).
func (l *lowerer) elemBounds(lat *check.Latent, shape []int) (*check.Latent, error) {
	size := ShapeLen(shape)
	eval := func(e ast.Expr, c *float64, which string) ([]float64, error) {
		if c != nil { // a constant bound: the checker checked it
			v := make([]float64, size)
			for i := range v {
				v[i] = *c
			}
			return v, nil
		}
		if e == nil {
			return nil, nil
		}
		v, sh, ok := l.knownExpr(e)
		switch {
		case len(l.errs) > 0:
			return nil, l.errs
		case !ok:
			return nil, ast.Errorf(e.Pos(), "compile: the %s bound of `%s` is not known before the fit", which, lat.Name)
		case len(v) == 1:
			s := v[0]
			v = make([]float64, size)
			for i := range v {
				v[i] = s
			}
		case !slices.Equal(dimsOf(sh), shape):
			return nil, boundShapeErr(e, which, lat.Name, sh, shape)
		}
		for i, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, ast.Errorf(e.Pos(), "the %s bound `%s` of `%s` is %g at element %s (with this data): a param's bound must be finite",
					which, ast.FormatExpr(e), lat.Name, x, elemLabel(i, shape))
			}
		}
		return v, nil
	}
	lo, err := eval(lat.LowerData, lat.Lower, "lower")
	if err != nil {
		return nil, err
	}
	hi, err := eval(lat.UpperData, lat.Upper, "upper")
	if err != nil {
		return nil, err
	}
	if lo != nil && hi != nil {
		for i := range lo {
			if err := boundPairErr(lat, lo[i], hi[i], " at element "+elemLabel(i, shape)); err != nil {
				return nil, err
			}
		}
	}
	return l.keepBounded(lat, lat.WithElemBounds(lo, hi)), nil
}

// boundShapeErr is the error of a bound per element, e of shape sh with
// this data, that is not of the shape of the param or data name it bounds.
func boundShapeErr(e ast.Expr, which, name string, sh autodiff.Shape, shape []int) error {
	return ast.Errorf(e.Pos(), "the %s bound `%s` of `%s` is [%s] with this data, not of `%s`'s shape [%s]: a bound per element needs one per element",
		which, ast.FormatExpr(e), name, dimsList(dimsOf(sh)), name, dimsList(shape))
}

// elemLabel writes element k (row-major) of a tensor of the given shape as
// the language indexes it, 0-based: "[3]", "[1, 2]".
func elemLabel(k int, shape []int) string {
	if len(shape) == 2 {
		return "[" + strconv.Itoa(k/shape[1]) + ", " + strconv.Itoa(k%shape[1]) + "]"
	}
	return "[" + strconv.Itoa(k) + "]"
}

// dimsList writes dimensions as "4" or "2, 3".
func dimsList(shape []int) string {
	parts := make([]string, len(shape))
	for i, n := range shape {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", ")
}

// elemAffine maps z, the values b on the support of a latent with a bound
// per element (LowerV, UpperV) of tape shape s, to its values: loc_i +
// scale_i·b_i, kept inside element i's bounds, adding the log Jacobian
// Σ log|scale_i|, a constant. Per element it is the map of a scalar
// bounded param, bit for bit; it returns the value's node and the locs and
// scales.
func (l *lowerer) elemAffine(lat *check.Latent, z autodiff.ID, s autodiff.Shape, pos ast.Pos) (autodiff.ID, []float64, []float64) {
	n := s.Len()
	loc, scale := make([]float64, n), make([]float64, n)
	var jac float64
	for i := range n {
		loc[i], scale[i] = lat.AffineAt(i)
		jac += math.Log(math.Abs(scale[i]))
	}
	z = l.b.Add(l.b.Const(loc, s, pos), l.b.Mul(l.b.Const(scale, s, pos), z, pos), pos)
	if jac != 0 {
		l.add(l.b.Scalar(jac, pos), pos)
	}
	z = l.b.InsideEach(z, lat.LowerV, lat.UpperV, pos)
	return z, loc, scale
}

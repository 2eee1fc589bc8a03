package compile

import (
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

// constGrid is a value known from the model's text alone: rows×cols
// numbers, row-major, a scalar 1×1, a vector [n] n×1 (a column, as the
// language broadcasts it), a row vector 1×n.
type constGrid struct {
	rows, cols int
	v          []float64
}

// at is element (i, j) of the grid broadcast along its axes of length 1.
func (g constGrid) at(i, j int) float64 {
	if g.rows == 1 {
		i = 0
	}
	if g.cols == 1 {
		j = 0
	}
	return g.v[i*g.cols+j]
}

// fits reports whether the grid broadcasts to rows×cols.
func (g constGrid) fits(rows, cols int) bool {
	return (g.rows == rows || g.rows == 1) && (g.cols == cols || g.cols == 1)
}

// constValue returns the values of e when they follow from literals and
// consts alone: a scalar constant (check.Type.Const), a vector or matrix
// literal of them, and -, +, -, .*, /, ^ (* with a scalar side), ' and the
// elementwise built-ins that fold (exp, log, ...) of such values. ok is
// false for anything that reads data, a param, a let or a loop variable.
func (l *lowerer) constValue(e ast.Expr) (constGrid, bool) {
	t := l.info.Types[e]
	if t.Const != nil {
		return constGrid{1, 1, []float64{*t.Const}}, true
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return l.constValue(e.X)
	case *ast.VectorLit:
		els := make([]constGrid, len(e.Elems))
		for i, x := range e.Elems {
			g, ok := l.constValue(x)
			if !ok {
				return constGrid{}, false
			}
			els[i] = g
		}
		if t.Shape.Rank() != 2 { // scalars: a vector
			out := constGrid{len(els), 1, make([]float64, len(els))}
			for i, g := range els {
				if len(g.v) != 1 {
					return constGrid{}, false
				}
				out.v[i] = g.v[0]
			}
			return out, true
		}
		cols := els[0].rows // rows of a matrix literal are vectors (columns)
		out := constGrid{len(els), cols, make([]float64, 0, len(els)*cols)}
		for _, g := range els {
			if g.cols != 1 || g.rows != cols {
				return constGrid{}, false
			}
			out.v = append(out.v, g.v...)
		}
		return out, true
	case *ast.UnaryExpr:
		if e.Op != ast.Neg {
			return constGrid{}, false
		}
		g, ok := l.constValue(e.X)
		if !ok {
			return constGrid{}, false
		}
		out := constGrid{g.rows, g.cols, make([]float64, len(g.v))}
		for i, x := range g.v {
			out.v[i] = -x
		}
		return out, true
	case *ast.TransposeExpr:
		g, ok := l.constValue(e.X)
		if !ok {
			return constGrid{}, false
		}
		out := constGrid{g.cols, g.rows, make([]float64, len(g.v))}
		for i := range g.rows {
			for j := range g.cols {
				out.v[j*g.rows+i] = g.v[i*g.cols+j]
			}
		}
		return out, true
	case *ast.BinaryExpr:
		switch e.Op {
		case ast.Add, ast.Sub, ast.EMul, ast.Div, ast.Pow:
		case ast.Mul: // a matrix product unless a side is a scalar
			if l.info.Types[e.X].Shape.Rank() != 0 && l.info.Types[e.Y].Shape.Rank() != 0 {
				return constGrid{}, false
			}
		default:
			return constGrid{}, false
		}
		x, okx := l.constValue(e.X)
		y, oky := l.constValue(e.Y)
		if !okx || !oky {
			return constGrid{}, false
		}
		return constMap([]constGrid{x, y}, func(a []float64) float64 { return check.FoldBinary(e.Op, a[0], a[1]) })
	case *ast.CallExpr:
		f := l.info.Calls[e]
		if f == nil || f.Fold == nil || f.Shape != stdlib.Elementwise1 && f.Shape != stdlib.Elementwise2 {
			return constGrid{}, false
		}
		args := make([]constGrid, len(e.Args))
		for i, a := range e.Args {
			g, ok := l.constValue(a)
			if !ok {
				return constGrid{}, false
			}
			args[i] = g
		}
		return constMap(args, f.Fold)
	}
	return constGrid{}, false
}

// constMap applies f elementwise to the grids broadcast together.
func constMap(gs []constGrid, f func([]float64) float64) (constGrid, bool) {
	rows, cols := 1, 1
	for _, g := range gs {
		rows, cols = max(rows, g.rows), max(cols, g.cols)
	}
	for _, g := range gs {
		if !g.fits(rows, cols) {
			return constGrid{}, false
		}
	}
	out := constGrid{rows, cols, make([]float64, rows*cols)}
	a := make([]float64, len(gs))
	for i := range rows {
		for j := range cols {
			for k, g := range gs {
				a[k] = g.at(i, j)
			}
			out.v[i*cols+j] = f(a)
		}
	}
	return out, true
}

// familyMean is the mean of the prior family name at args, false for a
// family whose start does not read it.
func familyMean(name string, args []float64) (float64, bool) {
	switch name {
	case "Gamma":
		return args[0] / args[1], true
	case "Exponential":
		return 1 / args[0], true
	case "Normal", "StudentT", "Cauchy", "Laplace":
		return args[len(args)-2], true
	case "LogNormal":
		return math.Exp(args[0] + args[1]*args[1]/2), true
	case "Beta":
		return args[0] / (args[0] + args[1]), true
	case "BetaProportion":
		return args[0], true
	case "HalfNormal":
		return args[0] * math.Sqrt(2/math.Pi), true
	case "HalfCauchy":
		return args[0], true
	case "Weibull":
		return dist.Weibull{Alpha: args[0], Sigma: args[1]}.Mean(), true
	}
	return 0, false
}

// priorMean returns the prior's mean per element of a latent of the given
// shape when every argument of its prior is constant (constValue: a
// scalar, or a vector or matrix broadcast to the shape), mapped to b for a
// bounded param; an element whose mean is not finite or not inside the
// support gets NaN, the engine's default start for it. nil when no element
// has a usable mean.
func (l *lowerer) priorMean(lat *check.Latent, shape []int, size int) []float64 {
	if lat.Prior == nil || lat.PriorDist == nil {
		return nil
	}
	switch lat.Support {
	case dist.Simplex, dist.Ordered, dist.PositiveOrdered, dist.CholCorr, dist.CorrMatrix, dist.CholCov, dist.CovMatrix, dist.SumToZero, dist.SumToZeroMatrix: // a mean per element is no point of these
		return nil
	case dist.Positive:
		if lat.Truncated && !lat.Bounded() {
			return nil
		}
	}
	rows, cols := size, 1
	switch len(shape) {
	case 0:
		rows = 1
	case 2:
		rows, cols = shape[0], shape[1]
	}
	args := make([]constGrid, len(lat.Prior.Args))
	for i, a := range lat.Prior.Args {
		g, ok := l.constValue(a)
		if !ok || len(g.v) > 1 && (len(shape) > 2 || !g.fits(rows, cols)) {
			return nil
		}
		args[i] = g
	}
	init := make([]float64, size)
	vals := make([]float64, len(args))
	some := false
	for k := range init {
		for j, g := range args {
			vals[j] = g.at(k/cols, k%cols)
		}
		m, ok := familyMean(lat.PriorDist.Name, vals)
		if !ok {
			return nil
		}
		init[k] = l.startOf(lat, k, m)
		some = some || !math.IsNaN(init[k])
	}
	if !some {
		return nil
	}
	return init
}

// startOf maps the prior's mean m of element k to the latent's
// coordinates' natural scale (b of a bounded param), NaN where it is no
// start: not finite (Weibull and LogNormal means overflow at extreme
// arguments), outside the bounds or the support.
func (l *lowerer) startOf(lat *check.Latent, k int, m float64) float64 {
	if math.IsInf(m, 0) || math.IsNaN(m) {
		return math.NaN()
	}
	if lat.Bounded() { // element k's bounds (the latent's, where it has one pair)
		if !lat.RangeAt(k).Contains(m) {
			return math.NaN()
		}
		loc, scale := lat.AffineAt(k)
		m = (m - loc) / scale
	}
	switch lat.Support {
	case dist.Positive:
		if !(m > 0) {
			return math.NaN()
		}
	case dist.Unit:
		if !(m > 0 && m < 1) {
			return math.NaN()
		}
	}
	return m
}

package compile

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/stdlib"
)

// gpCall lowers the Gaussian-process covariance functions and add_diag,
// and reports false for any other call.
//
// A covariance function of points x known when compiling (data, the usual
// case) and a scalar rho gets their distance matrix as one constant node,
// computed here: squared for gp_exp_quad_cov, Euclidean for the others,
// the diagonal exactly 0 and the matrix exactly symmetric. What is left
// for each evaluation is the kernel of that matrix: for gp_exp_quad_cov
// one exp over the n² entries and two multiplications by scalars of alpha
// and rho.
//
// Points that are params get their squared distances from tape ops,
// Σ_k (x[:, k] − x[:, k]')², differentiable everywhere; the distance is
// its sqrt, whose partial at 0 counts as 0 (zeroAtBoundary). That is the
// limit for Matérn 3/2 and 5/2 and the periodic kernel, whose k'(d) is 0
// at d = 0, and the partials of d² in the points are 0 there anyway; the
// exponential kernel, with k'(0) ≠ 0, has a kink there, so the checker
// asks it for data points.
//
// A vector rho [m] (Stan's array length_scale, ARD) scales coordinate k
// by 1 / rho[k]: the squared distances are Σ_k D_k / rho[k]², D_k the
// squared differences of coordinate k (constants for data points), and
// the kernel is then the one of rho = 1.
//
// The two-input forms f(x1, x2, alpha, rho, ...) (f the form the checker
// chose, by its count of arguments) are the same with the distances of
// each point of x1 to each of x2, [n1, n2].
func (l *lowerer) gpCall(e *ast.CallExpr, f *stdlib.Func, pos ast.Pos) (value, bool) {
	name := f.Name
	switch name {
	case "gp_exp_quad_cov", "gp_exponential_cov", "gp_matern32_cov", "gp_matern52_cov", "gp_periodic_cov":
	case "add_diag":
		return l.addDiag(e, pos), true
	default:
		return value{}, false
	}
	args := make([]autodiff.ID, len(e.Args))
	for i, a := range e.Args {
		args[i] = l.node(l.expr(a), a.Pos())
	}
	squared := name == "gp_exp_quad_cov"
	x1, x2, cross := args[0], args[0], f.Shape == stdlib.GPCross
	if cross {
		x2 = args[1]
		args = args[1:] // alpha, rho (and p) next, as in the one-input form
	}
	b := l.b
	scalar := func(v float64) autodiff.ID { return b.Scalar(v, pos) }
	rho := args[2]
	d, ok := l.gpDistances(e, name, x1, x2, cross, rho, squared, pos) // squared for gp_exp_quad_cov
	if !ok {
		return value{}, true
	}
	if b.Shape(rho).Rank == 1 {
		rho = scalar(1) // the distances are in units of rho
	}
	alpha2 := b.Square(args[1], pos)
	var k autodiff.ID // the kernel before the factor alpha²
	switch name {
	case "gp_exp_quad_cov": // exp(d² · (−1 / (2 rho²)))
		k = b.Exp(b.Mul(d, b.Div(scalar(-0.5), b.Square(rho, pos), pos), pos), pos)
	case "gp_exponential_cov": // exp(d · (−1 / rho))
		k = b.Exp(b.Mul(d, b.Div(scalar(-1), rho, pos), pos), pos)
	case "gp_matern32_cov": // (1 + r) exp(−r), r = √3 d / rho
		r := b.Mul(d, b.Div(scalar(math.Sqrt(3)), rho, pos), pos)
		k = b.Mul(b.Add(scalar(1), r, pos), b.Exp(b.Neg(r, pos), pos), pos)
	case "gp_matern52_cov": // (1 + r + r² / 3) exp(−r), r = √5 d / rho
		r := b.Mul(d, b.Div(scalar(math.Sqrt(5)), rho, pos), pos)
		poly := b.Add(b.Add(scalar(1), r, pos), b.Mul(b.Square(r, pos), scalar(1.0/3), pos), pos)
		k = b.Mul(poly, b.Exp(b.Neg(r, pos), pos), pos)
	case "gp_periodic_cov": // exp(sin²(π d / p) · (−2 / rho²))
		sin2 := b.Square(b.Unary(autodiff.OpSin, b.Mul(d, b.Div(scalar(math.Pi), args[3], pos), pos), pos), pos)
		k = b.Exp(b.Mul(sin2, b.Div(scalar(-2), b.Square(rho, pos), pos), pos), pos)
	}
	return value{id: b.Mul(alpha2, k, pos), node: true}, true
}

// gpDistances returns the node of the distances (squared when squared)
// from each point of x1 to each point of x2, [n1, n2] (x2 is x1 unless
// cross), in units of rho when rho is a vector (one length-scale per
// coordinate); false after an error, such as points of two dimensions or
// a rho of a length that only the data show (at x2 and rho, as the
// checker's).
func (l *lowerer) gpDistances(e *ast.CallExpr, name string, x1, x2 autodiff.ID, cross bool, rho autodiff.ID, squared bool, pos ast.Pos) (autodiff.ID, bool) {
	b := l.b
	s1, s2 := b.Shape(x1), b.Shape(x2)
	rhoArg := 2
	if cross {
		rhoArg = 3
	}
	if s1.Cols != s2.Cols {
		l.errorf(e.Args[1].Pos(), "%s: the points of x2 are of dimension %d with these data (%s) but those of x1 of dimension %d (%s); x1 and x2 need points of one dimension",
			name, s2.Cols, s2, s1.Cols, s1)
		return 0, false
	}
	n1, n2, m := s1.Rows, s2.Rows, s1.Cols
	ard := b.Shape(rho).Rank == 1
	if ard && b.Shape(rho).Rows != m {
		l.errorf(e.Args[rhoArg].Pos(), "%s: rho has %d elements with these data but the points are of dimension %d (%s); a vector rho has one length-scale per coordinate",
			name, b.Shape(rho).Rows, m, s1)
		return 0, false
	}
	what := fmt.Sprintf("%s of %d points ([%d, %d])", name, n1, n1, n1)
	if cross {
		what = fmt.Sprintf("%s of %d and %d points ([%d, %d])", name, n1, n2, n1, n2)
	}
	if msg := b.TooBig(what, n1*n2); msg != "" {
		l.errorf(e.Args[0].Pos(), "%s", msg)
		return 0, false
	}
	v1, known1 := b.Known(x1)
	v2, known2 := b.Known(x2)
	known := known1 && known2
	shape := autodiff.Matrix(n1, n2)
	if known && !ard {
		return b.Const(gpCrossDist(v1, n1, v2, n2, m, squared, !cross), shape, pos), true
	}
	if !known && name == "gp_exponential_cov" { // the checker asks for data
		l.errorf(e.Args[0].Pos(), "%s needs its points known when the model compiles", name)
		return 0, false
	}
	col := func(x autodiff.ID, s autodiff.Shape, k int) autodiff.ID {
		if s.Rank == 1 {
			return x
		}
		return b.Col(x, k, pos)
	}
	var d2 autodiff.ID
	for k := range m {
		var t autodiff.ID // the squared differences of coordinate k, over rho[k]² when ard
		if known {        // ard: D_k / rho[k]², D_k a constant
			c1, c2 := make([]float64, n1), make([]float64, n2)
			for i := range n1 {
				c1[i] = v1[i*m+k]
			}
			for j := range n2 {
				c2[j] = v2[j*m+k]
			}
			dk := b.Const(gpCrossDist(c1, n1, c2, n2, 1, true, !cross), shape, pos)
			t = b.Div(dk, b.Square(b.Elem(rho, k, pos), pos), pos)
		} else {
			scaled := func(x autodiff.ID, s autodiff.Shape) autodiff.ID { // coordinate k, over rho[k] when ard
				c := col(x, s, k)
				if ard {
					c = b.Div(c, b.Elem(rho, k, pos), pos)
				}
				return c
			}
			c1 := scaled(x1, s1)
			c2 := c1 // one node: the differences of the one-input form are exactly antisymmetric
			if cross {
				c2 = scaled(x2, s2)
			}
			t = b.Square(b.Sub(c1, b.Transpose(c2, pos), pos), pos) // [n1] − [1, n2]: [n1, n2]
		}
		if k == 0 {
			d2 = t
		} else {
			d2 = b.Add(d2, t, pos)
		}
	}
	if squared {
		return d2, true
	}
	return b.Sqrt(d2, pos), true // its partial at 0 counts as 0: see gpCall
}

// gpCrossDist returns the n1 × n2 matrix of the distances from the n1
// points of x1 to the n2 points of x2 (row-major, m coordinates each),
// squared when squared. When same (x2 is x1) it computes the upper
// triangle and mirrors it: exactly symmetric, with a zero diagonal.
func gpCrossDist(x1 []float64, n1 int, x2 []float64, n2, m int, squared, same bool) []float64 {
	out := make([]float64, n1*n2)
	for i := range n1 {
		j0 := 0
		if same {
			j0 = i + 1
		}
		for j := j0; j < n2; j++ {
			s := 0.0
			for k := range m {
				t := x1[i*m+k] - x2[j*m+k]
				s += t * t
			}
			if !squared {
				s = math.Sqrt(s)
			}
			out[i*n2+j] = s
			if same {
				out[j*n2+i] = s
			}
		}
	}
	return out
}

// addDiag lowers add_diag(K, d): K plus d times the identity for a scalar
// d, plus the diagonal matrix of d for a vector.
func (l *lowerer) addDiag(e *ast.CallExpr, pos ast.Pos) value {
	k := l.node(l.expr(e.Args[0]), e.Args[0].Pos())
	d := l.node(l.expr(e.Args[1]), e.Args[1].Pos())
	b := l.b
	ks, ds := b.Shape(k), b.Shape(d)
	switch {
	case ks.Rank != 2 || ks.Rows != ks.Cols:
		l.errorf(e.Args[0].Pos(), "add_diag: K must be square; with these data it is %s", ks)
		return value{}
	case ds.Rank == 1 && ds.Rows != ks.Rows:
		l.errorf(e.Args[1].Pos(), "add_diag: d has %d elements with these data but K is %s; d is a scalar or one element per row of K", ds.Rows, ks)
		return value{}
	}
	if ds.Rank == 0 {
		d = b.Mul(d, b.Identity(b.Shape(k).Rows, pos), pos)
	} else {
		d = b.Diag(d, pos)
	}
	return value{id: b.Add(k, d, pos), node: true}
}

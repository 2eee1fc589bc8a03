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
// case) gets their distance matrix as one constant node, computed here:
// squared for gp_exp_quad_cov, Euclidean for the others, the diagonal
// exactly 0 and the matrix exactly symmetric. What is left for each
// evaluation is the kernel of that matrix: for gp_exp_quad_cov one exp
// over the n² entries and two multiplications by scalars of alpha and
// rho. gp_exp_quad_cov also takes points that are params: the squared
// distances are then tape ops, Σ_k (x[:, k] − x[:, k]')², differentiable
// everywhere (the distance itself is not at 0, which is why the checker
// asks the other kernels for data).
//
// The two-input forms f(x1, x2, alpha, rho, ...) (f the form the checker
// chose, by its count of arguments) are the same with the distances of
// each point of x1 to each of x2, [n1, n2]: one constant when both are
// known, else (gp_exp_quad_cov) Σ_k (x1[:, k] − x2[:, k]')².
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
	var d autodiff.ID // the squared distances for gp_exp_quad_cov, else the distances
	var ok bool
	if f.Shape == stdlib.GPCross {
		d, ok = l.gpCrossDistances(e, name, args[0], args[1], squared, pos)
		args = args[1:] // alpha, rho (and p) next, as in the one-input form
	} else {
		d, ok = l.gpPointDistances(e, name, args[0], squared, pos)
	}
	if !ok {
		return value{}, true
	}
	b := l.b
	scalar := func(v float64) autodiff.ID { return b.Scalar(v, pos) }
	alpha2 := b.Square(args[1], pos)
	rho := args[2]
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

// gpPointDistances returns the node of the distances (squared when
// squared) between the points x of a one-input covariance function,
// [n, n]; false after an error.
func (l *lowerer) gpPointDistances(e *ast.CallExpr, name string, x autodiff.ID, squared bool, pos ast.Pos) (autodiff.ID, bool) {
	b := l.b
	s := b.Shape(x)
	n := s.Rows
	if msg := b.TooBig(fmt.Sprintf("%s of %d points ([%d, %d])", name, n, n, n), n*n); msg != "" {
		l.errorf(e.Args[0].Pos(), "%s", msg)
		return 0, false
	}
	switch vals, known := b.Known(x); {
	case known:
		return b.Const(gpDistances(vals, n, s.Cols, squared), autodiff.Matrix(n, n), pos), true
	case squared:
		return l.gpSquaredDistances(x, s, pos), true
	}
	// the checker asks for data
	l.errorf(e.Args[0].Pos(), "%s needs its points x known when the model compiles", name)
	return 0, false
}

// gpCrossDistances returns the node of the distances (squared when
// squared) from each point of x1 to each point of x2, [n1, n2], for a
// two-input covariance function; false after an error, such as points of
// two dimensions that only the data show (at x2, as the checker's).
func (l *lowerer) gpCrossDistances(e *ast.CallExpr, name string, x1, x2 autodiff.ID, squared bool, pos ast.Pos) (autodiff.ID, bool) {
	b := l.b
	s1, s2 := b.Shape(x1), b.Shape(x2)
	if s1.Cols != s2.Cols {
		l.errorf(e.Args[1].Pos(), "%s: the points of x2 are of dimension %d with these data (%s) but those of x1 of dimension %d (%s); x1 and x2 need points of one dimension",
			name, s2.Cols, s2, s1.Cols, s1)
		return 0, false
	}
	n1, n2, m := s1.Rows, s2.Rows, s1.Cols
	if msg := b.TooBig(fmt.Sprintf("%s of %d and %d points ([%d, %d])", name, n1, n2, n1, n2), n1*n2); msg != "" {
		l.errorf(e.Args[0].Pos(), "%s", msg)
		return 0, false
	}
	v1, known1 := b.Known(x1)
	v2, known2 := b.Known(x2)
	switch {
	case known1 && known2:
		return b.Const(gpCrossDist(v1, n1, v2, n2, m, squared), autodiff.Matrix(n1, n2), pos), true
	case !squared: // the checker asks for data
		l.errorf(e.Args[0].Pos(), "%s needs its points x1 and x2 known when the model compiles", name)
		return 0, false
	}
	col := func(x autodiff.ID, s autodiff.Shape, k int) autodiff.ID {
		if s.Rank == 1 {
			return x
		}
		return b.Col(x, k, pos)
	}
	diff2 := func(k int) autodiff.ID { // [n1] − [1, n2]: [n1, n2]
		return b.Square(b.Sub(col(x1, s1, k), b.Transpose(col(x2, s2, k), pos), pos), pos)
	}
	d := diff2(0)
	for k := 1; k < m; k++ {
		d = b.Add(d, diff2(k), pos)
	}
	return d, true
}

// gpCrossDist returns the n1 × n2 matrix of the distances from the n1
// points of x1 to the n2 points of x2 (row-major, m coordinates each),
// squared when squared.
func gpCrossDist(x1 []float64, n1 int, x2 []float64, n2, m int, squared bool) []float64 {
	out := make([]float64, n1*n2)
	for i := range n1 {
		for j := range n2 {
			s := 0.0
			for k := range m {
				t := x1[i*m+k] - x2[j*m+k]
				s += t * t
			}
			if !squared {
				s = math.Sqrt(s)
			}
			out[i*n2+j] = s
		}
	}
	return out
}

// gpDistances returns the n × n matrix of the distances between the n
// points of x (row-major, m coordinates each), squared when squared is
// set: exactly symmetric, with a zero diagonal.
func gpDistances(x []float64, n, m int, squared bool) []float64 {
	out := make([]float64, n*n)
	for i := range n {
		for j := i + 1; j < n; j++ {
			s := 0.0
			for k := range m {
				t := x[i*m+k] - x[j*m+k]
				s += t * t
			}
			if !squared {
				s = math.Sqrt(s)
			}
			out[i*n+j], out[j*n+i] = s, s
		}
	}
	return out
}

// gpSquaredDistances builds the squared distances of points x of shape s
// (a vector [n], or [n, m] with a point per row) from tape ops: for each
// coordinate, the column minus its transpose (the n × n differences by
// broadcasting), squared, summed over the coordinates.
func (l *lowerer) gpSquaredDistances(x autodiff.ID, s autodiff.Shape, pos ast.Pos) autodiff.ID {
	b := l.b
	diff2 := func(c autodiff.ID) autodiff.ID { return b.Square(b.Sub(c, b.Transpose(c, pos), pos), pos) }
	if s.Rank == 1 {
		return diff2(x)
	}
	d := diff2(b.Col(x, 0, pos))
	for k := 1; k < s.Cols; k++ {
		d = b.Add(d, diff2(b.Col(x, k, pos)), pos)
	}
	return d
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

package compile

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
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
func (l *lowerer) gpCall(e *ast.CallExpr, name string, pos ast.Pos) (value, bool) {
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
	b := l.b
	x := args[0]
	s := b.Shape(x)
	n := s.Rows
	if msg := b.TooBig(fmt.Sprintf("%s of %d points ([%d, %d])", name, n, n, n), n*n); msg != "" {
		l.errorf(e.Args[0].Pos(), "%s", msg)
		return value{}, true
	}
	squared := name == "gp_exp_quad_cov"
	var d autodiff.ID // the squared distances for gp_exp_quad_cov, else the distances
	switch vals, known := b.Known(x); {
	case known:
		d = b.Const(gpDistances(vals, n, s.Cols, squared), autodiff.Matrix(n, n), pos)
	case squared:
		d = l.gpSquaredDistances(x, s, pos)
	default: // the checker asks for data
		l.errorf(e.Args[0].Pos(), "%s needs its points x known when the model compiles", name)
		return value{}, true
	}
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

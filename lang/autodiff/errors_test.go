package autodiff

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

func at(line, col int) ast.Pos { return ast.Pos{File: "model.gpp", Line: line, Col: col} }

func TestShapeErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(b *Builder) ID
		want  string
	}{
		{"add", func(b *Builder) ID {
			return b.Add(b.Input("x", Vector(3), at(1, 1)), b.Input("y", Vector(4), at(1, 5)), at(1, 3))
		}, "model.gpp:1:3: add: shapes [3] and [4] do not broadcast"},
		{"mul-matrix", func(b *Builder) ID {
			return b.Mul(b.Input("x", Matrix(2, 3), at(1, 1)), b.Input("y", Matrix(3, 2), at(1, 5)), at(2, 3))
		}, "model.gpp:2:3: mul: shapes [2, 3] and [3, 2] do not broadcast"},
		{"matmul", func(b *Builder) ID {
			return b.MatMul(b.Input("x", Matrix(2, 3), at(1, 1)), b.Input("y", Matrix(4, 2), at(1, 5)), at(3, 7))
		}, "model.gpp:3:7: matmul: inner dimensions do not match: [2, 3] * [4, 2]"},
		{"matmul-vectors", func(b *Builder) ID {
			return b.MatMul(b.Input("x", Vector(4), at(1, 1)), b.Input("y", Vector(4), at(1, 5)), at(3, 9))
		}, "model.gpp:3:9: matmul: inner dimensions do not match: [4] * [4]; `*` of two vectors is a matrix product: `.*` multiplies elementwise, dot_product(x, y) sums the products, and x * y' is their outer product"},
		{"matmul-row-elementwise", func(b *Builder) ID {
			return b.MatMul(b.Input("r", Matrix(1, 2), at(1, 1)), b.Input("c", Matrix(600, 2), at(1, 5)), at(3, 11))
		}, "model.gpp:3:11: matmul: inner dimensions do not match: [1, 2] * [600, 2]; `*` is a matrix product: `.*` multiplies elementwise, and [1, 2] .* [600, 2] is [600, 2]"},
		{"chol", func(b *Builder) ID {
			return b.Chol(b.Input("A", Matrix(2, 3), at(1, 1)), at(4, 2))
		}, "model.gpp:4:2: chol: matrix must be a square matrix, got [2, 3]"},
		{"solve", func(b *Builder) ID {
			return b.Solve(b.Input("A", Matrix(3, 3), at(1, 1)), b.Input("b", Vector(2), at(1, 1)), at(5, 2))
		}, "model.gpp:5:2: solve: right-hand side [2] does not match the [3, 3] matrix"},
		{"gather", func(b *Builder) ID {
			return b.Gather(b.Input("W", Matrix(3, 2), at(1, 1)), []int{0, 2, 5}, at(6, 4))
		}, "model.gpp:6:4: gather: index 5 out of range [0, 3) (element 2 of the index vector)"},
		{"density", func(b *Builder) ID {
			return b.Density(testNormal, b.Input("y", Vector(3), at(1, 1)),
				[]ID{b.Input("mu", Vector(4), at(1, 1)), b.Scalar(1, at(1, 1))}, at(7, 3))
		}, "model.gpp:7:3: Normal: shapes of value [3], mu [4], sigma scalar do not broadcast"},
		{"density-arity", func(b *Builder) ID {
			return b.Density(testNormal, b.Input("y", Vector(3), at(1, 1)), []ID{b.Scalar(1, at(1, 1))}, at(8, 3))
		}, "model.gpp:8:3: Normal: takes 2 arguments, got 1"},
		{"diag", func(b *Builder) ID { return b.Diag(b.Input("A", Matrix(2, 3), at(1, 1)), at(9, 1)) },
			"model.gpp:9:1: diag: needs a vector or a square matrix, got [2, 3]"},
		{"stack-vector", func(b *Builder) ID {
			return b.Stack([]ID{b.Input("a", Scalar(), at(1, 1)), b.Input("x", Vector(2), at(1, 1))}, at(13, 9))
		}, "model.gpp:13:9: vector: element 1 is [2], not a scalar"},
		{"stack-empty", func(b *Builder) ID { return b.Stack(nil, at(14, 9)) },
			"model.gpp:14:9: vector: needs at least one element"},
		{"too-many-values", func(b *Builder) ID {
			x := b.Input("x", Vector(1<<15), at(1, 1))
			return b.Outer(x, x, at(10, 5))
		}, "model.gpp:10:5: a [32768, 32768] value here would take the model past 536870912 stored numbers (4 GiB)"},
		{"overflowing-shape", func(b *Builder) ID {
			return b.Input("W", Matrix(1<<40, 1<<40), at(11, 7))
		}, "model.gpp:11:7: a [1099511627776, 1099511627776] value here would take the model past 536870912 stored numbers (4 GiB)"},
		{"identity", func(b *Builder) ID { return b.Identity(1<<15, at(12, 2)) },
			"model.gpp:12:2: I(32768) would take the model past 536870912 stored numbers (4 GiB)"},
		// Categorical: the value and the argument's shapes
		{"value not data", func(b *Builder) ID {
			return b.Categorical(b.Input("y", Scalar(), at(1, 1)), b.Input("eta", Vector(2), at(1, 1)), true, at(8, 3))
		}, "model.gpp:8:3: CategoricalLogit: the value must be data"},
		{"matrix value", func(b *Builder) ID {
			y := b.Const([]float64{0, 1}, Matrix(1, 2), at(1, 1))
			return b.Categorical(y, b.Input("theta", Vector(2), at(1, 1)), false, at(8, 4))
		}, "model.gpp:8:4: Categorical: the value must be a scalar or a vector, got [1, 2]"},
		{"rows do not match", func(b *Builder) ID {
			y := b.Const([]float64{0, 1}, Vector(2), at(1, 1))
			return b.Categorical(y, b.Input("eta", Matrix(3, 2), at(1, 1)), true, at(9, 3))
		}, "model.gpp:9:3: CategoricalLogit: argument [3, 2] does not fit the value [2]: want [k], [1, k] or [2, k]"},
		{"scalar argument", func(b *Builder) ID {
			y := b.Const([]float64{0}, Scalar(), at(1, 1))
			return b.Categorical(y, b.Input("eta", Scalar(), at(1, 1)), true, at(9, 5))
		}, "model.gpp:9:5: CategoricalLogit: argument scalar does not fit the value scalar: want [k] or [1, k]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := NewBuilder()
			root := c.build(b)
			_, err := b.Finish(b.Sum(root, at(99, 1)))
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if err.Error() != c.want {
				t.Errorf("error\n got %q\nwant %q", err, c.want)
			}
		})
	}
}

func TestRootNotScalar(t *testing.T) {
	b := NewBuilder()
	_, err := b.Finish(b.Exp(b.Input("x", Vector(3), at(1, 1)), at(10, 1)))
	if want := "model.gpp:10:1: log joint must be a scalar, got [3]"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

// An error does not cascade: operations on a failed node are silent, and
// independent errors are all reported, sorted by position.
func TestShapeErrorsCollected(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", Vector(3), at(1, 1))
	bad := b.Add(x, b.Input("y", Vector(4), at(1, 1)), at(3, 1))
	bad2 := b.MatMul(b.Exp(bad, at(3, 5)), x, at(3, 9)) // no second error
	other := b.Chol(x, at(2, 1))
	_, err := b.Finish(b.Sum(b.Add(b.Sum(bad2, at(4, 1)), b.Sum(other, at(4, 1)), at(4, 1)), at(4, 1)))
	var list ast.ErrorList
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("got %v, want 2 errors", err)
	}
	want := "model.gpp:2:1: chol: matrix must be a square matrix, got [3]\n" +
		"model.gpp:3:1: add: shapes [3] and [4] do not broadcast"
	if err.Error() != want {
		t.Errorf("error\n got %q\nwant %q", err, want)
	}
}

func TestForeignIDPanics(t *testing.T) {
	b1, b2 := NewBuilder(), NewBuilder()
	x := b1.Input("x", Scalar(), at(1, 1))
	for name, f := range map[string]func(){
		"other builder": func() { b2.Exp(x, at(1, 1)) },
		"zero id":       func() { b1.Exp(0, at(1, 1)) },
	} {
		func() {
			defer func() {
				if r := recover(); r != errForeignID {
					t.Errorf("%s: panic %v, want %q", name, r, errForeignID)
				}
			}()
			f()
		}()
	}
}

// family returns the registered kernel of a package dist family.
func family(name string) dist.Univariate {
	u, ok := dist.LookupUnivariate(name)
	if !ok {
		panic("autodiff test: no family " + name + " in package dist")
	}
	return *u
}

// runOne builds a program from build (which returns a scalar) and runs
// it at x, returning the first error.
func runOne(t *testing.T, x []float64, build func(b *Builder) ID) error {
	t.Helper()
	b := NewBuilder()
	p, err := b.Finish(build(b))
	if err != nil {
		return err
	}
	_, err = p.LogJoint(x, make([]float64, p.Dim()))
	return err
}

func TestNaNProvenance(t *testing.T) {
	for _, c := range []struct {
		name  string
		x     []float64
		build func(b *Builder) ID
		want  string
	}{
		{"log of a negative number", []float64{1, 2, 3, -0.02}, func(b *Builder) ID {
			return b.Sum(b.Log(b.Input("x", Vector(4), at(1, 1)), at(14, 10)), at(14, 1))
		}, "model.gpp:14:10: log: argument -0.02 < 0 (element [3])"},
		{"log of zero", []float64{0}, func(b *Builder) ID {
			return b.Log(b.Input("x", Scalar(), at(1, 1)), at(2, 3))
		}, "model.gpp:2:3: log: argument 0 gives -Inf"},
		{"sqrt of a negative matrix element", []float64{1, 2, 3, -4}, func(b *Builder) ID {
			return b.Sum(b.Sqrt(b.Input("A", Matrix(2, 2), at(1, 1)), at(3, 3)), at(3, 1))
		}, "model.gpp:3:3: sqrt: argument -4 < 0 (element [1, 1])"},
		{"division by zero", []float64{1, 0}, func(b *Builder) ID {
			x := b.Input("x", Vector(2), at(1, 1))
			return b.Sum(b.Div(b.Scalar(1, at(1, 1)), x, at(4, 5)), at(4, 1))
		}, "model.gpp:4:5: div: division by zero (1 / 0) (element [1])"},
		{"log1m above 1", []float64{0.5, 1.25}, func(b *Builder) ID {
			return b.Sum(b.Unary(OpLog1m, b.Input("p", Vector(2), at(1, 1)), at(4, 9)), at(4, 1))
		}, "model.gpp:4:9: log1m: argument 1.25 > 1 (element [1])"},
		{"log1m of 1", []float64{1}, func(b *Builder) ID {
			return b.Unary(OpLog1m, b.Input("p", Scalar(), at(1, 1)), at(4, 9))
		}, "model.gpp:4:9: log1m: argument 1 gives -Inf"},
		{"inv_Phi outside [0, 1]", []float64{0.5, -0.25}, func(b *Builder) ID {
			return b.Sum(b.Unary(OpInvPhi, b.Input("p", Vector(2), at(1, 1)), at(6, 2)), at(6, 1))
		}, "model.gpp:6:2: inv_Phi: argument -0.25 is outside [0, 1] (element [1])"},
		{"inv_Phi of 1", []float64{1}, func(b *Builder) ID {
			return b.Unary(OpInvPhi, b.Input("p", Scalar(), at(1, 1)), at(6, 2))
		}, "model.gpp:6:2: inv_Phi: argument 1 gives +Inf"},
		{"lbeta of a negative", []float64{2, -1}, func(b *Builder) ID {
			x := b.Input("x", Vector(2), at(1, 1))
			return b.Sum(b.Binary(OpLbeta, b.Scalar(3, at(1, 1)), x, at(7, 4)), at(7, 1))
		}, "model.gpp:7:4: lbeta: arguments 3 and -1 must be > 0 (element [1])"},
		{"log_diff_exp of a larger second argument", []float64{1, 2}, func(b *Builder) ID {
			x := b.Input("x", Vector(2), at(1, 1))
			return b.Sum(b.Binary(OpLogDiffExp, b.Scalar(1.5, at(1, 1)), x, at(7, 4)), at(7, 1))
		}, "model.gpp:7:4: log_diff_exp: argument 1 (1.5) < argument 2 (2): the difference would be negative (element [1])"},
		{"log_diff_exp of equal arguments", []float64{1.5}, func(b *Builder) ID {
			return b.Binary(OpLogDiffExp, b.Scalar(1.5, at(1, 1)), b.Input("x", Scalar(), at(1, 1)), at(7, 4))
		}, "model.gpp:7:4: log_diff_exp: equal arguments (1.5) give -Inf, the log of 0"},
		{"log_inv_logit_diff of a larger second argument", []float64{0.25}, func(b *Builder) ID {
			return b.Binary(OpLogInvLogitDiff, b.Scalar(-1, at(1, 1)), b.Input("c", Scalar(), at(1, 1)), at(7, 4))
		}, "model.gpp:7:4: log_inv_logit_diff: argument 1 (-1) < argument 2 (0.25): the difference would be negative"},
		{"log_falling_factorial past x + 1", []float64{4}, func(b *Builder) ID {
			return b.Binary(OpLogFallingFactorial, b.Scalar(2.5, at(1, 1)), b.Input("n", Scalar(), at(1, 1)), at(7, 4))
		}, "model.gpp:7:4: log_falling_factorial: arguments 2.5 and 4 need x - n + 1 > 0 and n > -1"},
		{"gamma_p of a negative shape", []float64{1, -0.5}, func(b *Builder) ID {
			return b.Sum(b.Binary(OpGammaP, b.Input("a", Vector(2), at(1, 1)), b.Scalar(2, at(1, 1)), at(7, 4)), at(7, 1))
		}, "model.gpp:7:4: gamma_p: argument 1 (-0.5) must be > 0 and finite (element [1])"},
		{"gamma_q of a negative z", []float64{-3}, func(b *Builder) ID {
			return b.Binary(OpGammaQ, b.Scalar(2, at(1, 1)), b.Input("z", Scalar(), at(1, 1)), at(7, 4))
		}, "model.gpp:7:4: gamma_q: argument 2 (-3) must be >= 0"},
		{"asin outside [-1, 1]", []float64{0.5, -1.25}, func(b *Builder) ID {
			return b.Sum(b.Unary(OpAsin, b.Input("r", Vector(2), at(1, 1)), at(3, 8)), at(3, 1))
		}, "model.gpp:3:8: asin: argument -1.25 is outside [-1, 1] (element [1])"},
		{"atanh of 1", []float64{1}, func(b *Builder) ID {
			return b.Unary(OpAtanh, b.Input("r", Scalar(), at(1, 1)), at(3, 8))
		}, "model.gpp:3:8: atanh: argument 1 gives +Inf"},
		{"acosh below 1", []float64{0.5}, func(b *Builder) ID {
			return b.Unary(OpAcosh, b.Input("c", Scalar(), at(1, 1)), at(3, 8))
		}, "model.gpp:3:8: acosh: argument 0.5 < 1"},
		{"tgamma at a pole", []float64{-2}, func(b *Builder) ID {
			return b.Unary(OpTgamma, b.Input("a", Scalar(), at(1, 1)), at(3, 8))
		}, "model.gpp:3:8: tgamma: argument -2 is a pole"},
		{"log10 of a negative", []float64{-3}, func(b *Builder) ID {
			return b.Unary(OpLog10, b.Input("a", Scalar(), at(1, 1)), at(3, 8))
		}, "model.gpp:3:8: log10: argument -3 < 0"},
		{"lmultiply of a negative", []float64{-0.5}, func(b *Builder) ID {
			return b.Binary(OpLmultiply, b.Scalar(2, at(1, 1)), b.Input("y", Scalar(), at(1, 1)), at(3, 8))
		}, "model.gpp:3:8: lmultiply: argument 2 (-0.5) < 0"},
		{"binary_log_loss outside [0, 1]", []float64{1.5}, func(b *Builder) ID {
			return b.Binary(OpBinaryLogLoss, b.Scalar(1, at(1, 1)), b.Input("p", Scalar(), at(1, 1)), at(3, 8))
		}, "model.gpp:3:8: binary_log_loss: argument 2 (1.5) is outside [0, 1]"},
		{"binary_log_loss of a sure miss", []float64{0}, func(b *Builder) ID {
			return b.Binary(OpBinaryLogLoss, b.Scalar(1, at(1, 1)), b.Input("p", Scalar(), at(1, 1)), at(3, 8))
		}, "model.gpp:3:8: binary_log_loss: argument 2 (0) gives +Inf for outcome 1"},
		{"inverse of a singular matrix", []float64{1, 2, 2, 4}, func(b *Builder) ID {
			return b.Sum(b.LU(OpInverse, b.Input("A", Matrix(2, 2), at(1, 1)), at(5, 3)), at(5, 1))
		}, "model.gpp:5:3: inverse: matrix is singular (no pivot in column 1 of its LU factorisation)"},
		{"log_determinant of a singular matrix", []float64{0, 0, 0, 1}, func(b *Builder) ID {
			return b.LU(OpLogAbsDet, b.Input("A", Matrix(2, 2), at(1, 1)), at(5, 3))
		}, "model.gpp:5:3: log_determinant: matrix is singular (no pivot in column 0 of its LU factorisation)"},
		{"eigenvalues_sym of an asymmetric matrix", []float64{1, 2, 2.5, 4}, func(b *Builder) ID {
			return b.Sum(b.EigenSym(OpEigvalsSym, b.Input("A", Matrix(2, 2), at(1, 1)), at(5, 3)), at(5, 1))
		}, "model.gpp:5:3: eigenvalues_sym: matrix is not symmetric: element [1, 0] is 2.5, [0, 1] is 2"},
		{"matrix_exp overflow", []float64{800, 0, 0, 1}, func(b *Builder) ID {
			return b.Sum(b.MatrixExp(b.Input("A", Matrix(2, 2), at(1, 1)), at(5, 3)), at(5, 1))
		}, "model.gpp:5:3: matrix_exp: result is +Inf (element [0, 0])"},
		{"exp overflow", []float64{1000}, func(b *Builder) ID {
			return b.Exp(b.Input("x", Scalar(), at(1, 1)), at(5, 1))
		}, "model.gpp:5:1: exp: result is +Inf (argument 1000)"},
		{"a positive param's transform overflows", []float64{0, 900}, func(b *Builder) ID {
			return b.Sum(b.ExpParam(b.Input("sigma", Vector(2), at(2, 7)), "sigma", at(2, 7)), at(5, 1))
		}, "model.gpp:2:7: the positive param `sigma`'s transform exp(900) overflows (element [1])"},
		{"NaN input", []float64{1, math.NaN()}, func(b *Builder) ID {
			return b.Sum(b.Input("theta", Vector(2), at(6, 7)), at(6, 1))
		}, "model.gpp:6:7: input theta: value is NaN (element [1])"},
		{"cholesky failure", []float64{4, 2, 2, 1}, func(b *Builder) ID {
			return b.LogDet(b.Input("S", Matrix(2, 2), at(1, 1)), at(9, 12))
		}, "model.gpp:9:12: chol: matrix is not positive definite (leading minor 2), but it is with 1e-9 of its largest diagonal element (4) added to its diagonal, a jitter of 4e-09: a kernel or covariance matrix that is singular, or positive definite only in exact arithmetic, factors with a jitter; make it relative to the matrix's scale, e.g. add_diag(K, 1e-6 * square(alpha)) for a kernel of amplitude alpha (4e-06 at this point), or larger, as Stan's GP models add delta"},
		{"cholesky of a zero matrix", []float64{0, 0, 0, 0}, func(b *Builder) ID {
			return b.LogDet(b.Input("S", Matrix(2, 2), at(1, 1)), at(9, 12))
		}, "model.gpp:9:12: chol: matrix is not positive definite (leading minor 1)"},
		{"cholesky of a semidefinite matrix", []float64{1, 1, 1, 1}, func(b *Builder) ID {
			return b.LogDet(b.Input("S", Matrix(2, 2), at(1, 1)), at(9, 12))
		}, "model.gpp:9:12: chol: matrix is not positive definite (leading minor 2), but it is with 1e-9 of its largest diagonal element (1) added to its diagonal, a jitter of 1e-09: a kernel or covariance matrix that is singular, or positive definite only in exact arithmetic, factors with a jitter; make it relative to the matrix's scale, e.g. add_diag(K, 1e-6 * square(alpha)) for a kernel of amplitude alpha (1e-06 at this point), or larger, as Stan's GP models add delta; its rows 0 and 1 are equal, as a kernel's are at two equal inputs (duplicate points or coordinates)"},
		// MvNormal's covariance (a GP kernel of a duplicate point, rows 0
		// and 2) gets chol's advice, and the equal rows named
		{"gauss_rows_ss of a kernel of a duplicate point", []float64{4, 1, 4, 1, 4, 1, 4, 1, 4}, func(b *Builder) ID {
			return b.GaussRowsSS(b.Input("C", Matrix(3, 3), at(1, 1)), b.Identity(3, at(1, 1)), 3, at(8, 1))
		}, "model.gpp:8:1: MvNormalRows: covariance matrix is not positive definite (leading minor 3), but it is with 1e-9 of its largest diagonal element (4) added to its diagonal, a jitter of 4e-09: a kernel or covariance matrix that is singular, or positive definite only in exact arithmetic, factors with a jitter; make it relative to the matrix's scale, e.g. add_diag(K, 1e-6 * square(alpha)) for a kernel of amplitude alpha (4e-06 at this point), or larger, as Stan's GP models add delta; its rows 0 and 2 are equal, as a kernel's are at two equal inputs (duplicate points or coordinates)"},
		{"cholesky of an indefinite matrix", []float64{1, 0, 0, -1}, func(b *Builder) ID {
			return b.LogDet(b.Input("S", Matrix(2, 2), at(1, 1)), at(9, 12))
		}, "model.gpp:9:12: chol: matrix is not positive definite (leading minor 2)"},
		// 1 − 1e-17 rounds to 1: the rows are equal in floating point
		{"cholesky of a kernel singular in floating point", []float64{1, 1 - 1e-17, 1 - 1e-17, 1}, func(b *Builder) ID {
			return b.LogDet(b.Input("K", Matrix(2, 2), at(1, 1)), at(9, 12))
		}, "model.gpp:9:12: chol: matrix is not positive definite (leading minor 2), but it is with 1e-9 of its largest diagonal element (1) added to its diagonal, a jitter of 1e-09: a kernel or covariance matrix that is singular, or positive definite only in exact arithmetic, factors with a jitter; make it relative to the matrix's scale, e.g. add_diag(K, 1e-6 * square(alpha)) for a kernel of amplitude alpha (1e-06 at this point), or larger, as Stan's GP models add delta; its rows 0 and 1 are equal, as a kernel's are at two equal inputs (duplicate points or coordinates)"},
		// add_diag(K, 1e-12) of a K of scale 100 just short of definite: the
		// model's own jitter, named as too small, and 1e-9·100 absolute
		{"cholesky of a kernel with too small a jitter", []float64{100, 100 + 5e-8, 100 + 5e-8, 100}, func(b *Builder) ID {
			k := b.Input("K", Matrix(2, 2), at(1, 1))
			jit := b.Mul(b.Scalar(1e-12, at(9, 30)), b.Identity(2, at(9, 30)), at(9, 30))
			return b.LogDet(b.Add(k, jit, at(9, 20)), at(9, 12))
		}, "model.gpp:9:12: chol: matrix is not positive definite (leading minor 2), but it is with 1e-9 of its largest diagonal element (100) added to its diagonal, a jitter of 1e-07: a kernel or covariance matrix that is singular, or positive definite only in exact arithmetic, factors with a jitter; the model's add_diag adds 1e-12, too small at this point: the matrix factors with 1e-07 more; make it relative to the matrix's scale, e.g. add_diag(K, 1e-6 * square(alpha)) for a kernel of amplitude alpha (0.0001 at this point), or larger, as Stan's GP models add delta"},
		{"solve overflows", []float64{1e-320, 0, 0, 1}, func(b *Builder) ID {
			return b.Sum(b.Solve(b.Input("S", Matrix(2, 2), at(1, 1)), b.Const([]float64{1, 1}, Vector(2), at(1, 1)), at(5, 6)), at(5, 1))
		}, "model.gpp:5:6: solve: result is +Inf (element [0])"},
		{"logdet gradient overflows", []float64{1e-320, 0, 0, 1}, func(b *Builder) ID {
			return b.LogDet(b.Input("S", Matrix(2, 2), at(1, 1)), at(9, 12))
		}, "model.gpp:9:12: chol: gradient is +Inf with respect to argument 1 (value 1e-320, element [0, 0])"},
		{"gauss_rows_ss failure", []float64{-1, 0, 0, 1}, func(b *Builder) ID {
			return b.GaussRowsSS(b.Input("C", Matrix(2, 2), at(1, 1)), b.Identity(2, at(1, 1)), 3, at(8, 1))
		}, "model.gpp:8:1: MvNormalRows: covariance matrix is not positive definite (leading minor 1)"},
		{"gauss_rows_ss of an asymmetric matrix", []float64{1, 0.5, 0.4, 1}, func(b *Builder) ID {
			return b.GaussRowsSS(b.Input("C", Matrix(2, 2), at(1, 1)), b.Identity(2, at(1, 1)), 3, at(8, 1))
		}, "model.gpp:8:1: MvNormalRows: covariance matrix is not symmetric: element [1, 0] is 0.4, [0, 1] is 0.5"},
		{"cholesky of an asymmetric matrix", []float64{1, 0.9, 0, 1}, func(b *Builder) ID {
			return b.LogDet(b.Input("S", Matrix(2, 2), at(1, 1)), at(9, 12))
		}, "model.gpp:9:12: chol: matrix is not symmetric: element [1, 0] is 0, [0, 1] is 0.9"},
		{"gauss_rows_lr scale not positive", []float64{1, 2, 0, -0.5}, func(b *Builder) ID {
			w := b.Input("W", Matrix(3, 1), at(1, 1))
			c := b.Add(b.MatMul(w, b.Transpose(w, at(7, 3)), at(7, 3)), b.Mul(b.Identity(3, at(7, 9)), b.Input("s", Scalar(), at(2, 1)), at(7, 9)), at(7, 5))
			return b.GaussRowsSS(c, b.Identity(3, at(1, 1)), 3, at(7, 1))
		}, "model.gpp:7:1: MvNormalRows: covariance matrix W W' + s I is not positive definite: s = -0.5"},
		{"gauss_rows_lr scale NaN", []float64{1, 2, 0, math.NaN()}, func(b *Builder) ID {
			w := b.Input("W", Matrix(3, 1), at(1, 1))
			c := b.Add(b.MatMul(w, b.Transpose(w, at(7, 3)), at(7, 3)), b.Div(b.Identity(3, at(7, 9)), b.Input("p", Scalar(), at(2, 1)), at(7, 9)), at(7, 5))
			return b.GaussRowsSS(c, b.Identity(3, at(1, 1)), 3, at(7, 1))
		}, "model.gpp:2:1: input p: value is NaN"},
		{"density out of support", []float64{2, 0, 1}, func(b *Builder) ID {
			return b.Density(testGamma, b.Input("w", Vector(3), at(1, 1)), []ID{b.Scalar(1, at(1, 1)), b.Scalar(1, at(1, 1))}, at(11, 3))
		}, "model.gpp:11:3: log density is -Inf: value 0 outside the support of Gamma (element [1])"},
		{"density invalid parameter", []float64{1, 1, -0.31, 1, 1, 1, 1, 1, 1, 1, 1, 1}, func(b *Builder) ID {
			a := b.Input("a", Matrix(3, 1), at(1, 1))
			w := b.Input("w", Matrix(3, 3), at(1, 1))
			return b.Density(testGamma, w, []ID{a, b.Scalar(1, at(1, 1))}, at(12, 5))
		}, "model.gpp:12:5: Gamma: shape must be > 0 (got -0.31, element [2, 0])"},
		{"Weibull shape", []float64{2, -1, 0.5}, func(b *Builder) ID {
			a := b.Input("a", Vector(3), at(1, 1))
			return b.Density(family("Weibull"), b.Const([]float64{1, 2, 3}, Vector(3), at(1, 1)), []ID{a, b.Scalar(1, at(1, 1))}, at(16, 3))
		}, "model.gpp:16:3: Weibull: shape must be > 0 (got -1, element [1])"},
		{"Weibull scale", []float64{0}, func(b *Builder) ID {
			s := b.Input("s", Scalar(), at(1, 1))
			return b.Density(family("Weibull"), b.Scalar(2, at(1, 1)), []ID{b.Scalar(1.5, at(1, 1)), s}, at(17, 3))
		}, "model.gpp:17:3: Weibull: scale must be > 0 (got 0)"},
		{"Weibull value", []float64{-0.5}, func(b *Builder) ID {
			y := b.Input("y", Scalar(), at(1, 1))
			return b.Density(family("Weibull"), y, []ID{b.Scalar(1.5, at(1, 1)), b.Scalar(1, at(1, 1))}, at(18, 3))
		}, "model.gpp:18:3: log density is -Inf: value -0.5 outside the support of Weibull"},
		{"Laplace scale", []float64{1, -2}, func(b *Builder) ID {
			s := b.Input("s", Vector(2), at(1, 1))
			return b.Density(family("Laplace"), b.Scalar(0.5, at(1, 1)), []ID{b.Scalar(0, at(1, 1)), s}, at(19, 3))
		}, "model.gpp:19:3: Laplace: sigma must be > 0 (got -2, element [1])"},
		// sqrt(0)'s infinite partial counts as 0 (zeroAtBoundary); 1/x
		// overflows at the smallest subnormal, where log is finite
		{"gradient of log overflowing", []float64{1, 4, 5e-324}, func(b *Builder) ID {
			return b.Sum(b.Log(b.Input("x", Vector(3), at(1, 1)), at(13, 4)), at(13, 1))
		}, "model.gpp:13:4: log: gradient is +Inf with respect to argument 1 (value 5e-324, element [2])"},
		// a matrix that is data alone is named, with a data matrix's
		// remedies; a kernel of data points keeps the kernel's jitter
		{"cholesky of a singular data matrix", nil, func(b *Builder) ID {
			return b.LogDet(b.DataConst("G", []float64{1, 1, 1, 1}, Matrix(2, 2), at(1, 1), nil), at(9, 12))
		}, "model.gpp:9:12: chol: matrix is not positive definite (leading minor 2); it is the data G, not built from params: a covariance or relationship matrix given as data is singular where rows are duplicated (an individual twice) (its rows 0 and 1 are equal), or where it was estimated from fewer variables than its size (a genomic G from fewer markers than individuals), and indefinite where it was assembled from pairwise estimates or imputed values; it factors with 1e-09 added to its diagonal, 1e-9 of its largest diagonal element (1); blend it with the identity, 0.95 * G + 0.05 * I(N) or add_diag(G, lambda) with lambda small beside its diagonal, or drop the duplicates"},
		{"cholesky of an indefinite sum of data", nil, func(b *Builder) ID {
			g := b.DataConst("G", []float64{1, 0, 0, 1}, Matrix(2, 2), at(1, 1), nil)
			h := b.DataConst("H", []float64{0, 0, 0, -2}, Matrix(2, 2), at(2, 1), nil)
			return b.LogDet(b.Add(b.Mul(b.Scalar(0.5, at(9, 20)), g, at(9, 20)), h, at(9, 16)), at(9, 12))
		}, "model.gpp:9:12: chol: matrix is not positive definite (leading minor 2); it is data alone, of G, H, not built from params: a covariance or relationship matrix given as data is singular where rows are duplicated (an individual twice), or where it was estimated from fewer variables than its size (a genomic G from fewer markers than individuals), and indefinite where it was assembled from pairwise estimates or imputed values; blend it with the identity, 0.95 * G + 0.05 * I(N) or add_diag(G, lambda) with lambda small beside its diagonal"},
		// a scalar's sqrt makes no kernel: the data matrix's remedies
		{"cholesky of a data matrix times sqrt(2)", nil, func(b *Builder) ID {
			g := b.DataConst("G", []float64{2, 0, 0, -1}, Matrix(2, 2), at(1, 1), nil)
			return b.LogDet(b.Mul(b.Sqrt(b.Scalar(2, at(9, 16)), at(9, 16)), g, at(9, 16)), at(9, 12))
		}, "model.gpp:9:12: chol: matrix is not positive definite (leading minor 2); it is the data G, not built from params: a covariance or relationship matrix given as data is singular where rows are duplicated (an individual twice), or where it was estimated from fewer variables than its size (a genomic G from fewer markers than individuals), and indefinite where it was assembled from pairwise estimates or imputed values; blend it with the identity, 0.95 * G + 0.05 * I(N) or add_diag(G, lambda) with lambda small beside its diagonal"},
		{"cholesky of a kernel of data points", nil, func(b *Builder) ID {
			return b.LogDet(b.Exp(b.DataConst("D", []float64{0, 0, 0, 0}, Matrix(2, 2), at(1, 1), nil), at(9, 16)), at(9, 12))
		}, "model.gpp:9:12: chol: matrix is not positive definite (leading minor 2), but it is with 1e-9 of its largest diagonal element (1) added to its diagonal, a jitter of 1e-09: a kernel or covariance matrix that is singular, or positive definite only in exact arithmetic, factors with a jitter; make it relative to the matrix's scale, e.g. add_diag(K, 1e-6 * square(alpha)) for a kernel of amplitude alpha (1e-06 at this point), or larger, as Stan's GP models add delta; its rows 0 and 1 are equal, as a kernel's are at two equal inputs (duplicate points or coordinates)"},
		{"data-only NaN at Finish", nil, func(b *Builder) ID {
			return b.Sum(b.Log(b.Const([]float64{1, -3}, Vector(2), at(1, 1)), at(15, 2)), at(15, 1))
		}, "model.gpp:15:2: log: argument -3 < 0 (element [1])"},
	} {
		t.Run(c.name, func(t *testing.T) { wantPositioned(t, runOne(t, c.x, c.build), c.want) })
	}
}

// After an error the program is still usable at a good point.
func TestRecoverAfterError(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", Vector(2), at(1, 1))
	p, err := b.Finish(b.Sum(b.Log(x, at(1, 1)), at(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	grad := make([]float64, 2)
	if _, err := p.LogJoint([]float64{1, -1}, grad); err == nil || !strings.Contains(err.Error(), "log: argument -1 < 0") {
		t.Fatalf("got %v", err)
	}
	lp, err := p.LogJoint([]float64{1, math.E}, grad)
	if err != nil || lp != 1 || grad[0] != 1 || grad[1] != 1/math.E {
		t.Errorf("got %v, %v, %v", lp, grad, err)
	}
}

// TestBackwardErrorGrad: a log joint that is finite while its gradient is
// not (lgamma at a subnormal argument, as a simplex param's entry below
// e^-708 times a concentration gives) returns the gradient's error and a
// gradient of NaN, never the previous point's: a fit that judges a draw by
// its numbers must see it as bad.
func TestBackwardErrorGrad(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", Vector(2), at(1, 1))
	p, err := b.Finish(b.Sum(b.Lgamma(b.Exp(x, at(1, 1)), at(1, 2)), at(1, 3)))
	if err != nil {
		t.Fatal(err)
	}
	grad := make([]float64, 2)
	if _, err := p.LogJoint([]float64{0, 0}, grad); err != nil || math.IsNaN(grad[0]) {
		t.Fatalf("at 0: %v, %v", grad, err)
	}
	lp, err := p.LogJoint([]float64{0, -740}, grad)
	if err == nil || !strings.Contains(err.Error(), "model.gpp:1:2: lgamma: gradient is NaN") {
		t.Errorf("at exp(-740): error %v, want lgamma's gradient's", err)
	}
	if math.IsNaN(lp) || math.IsInf(lp, 0) {
		t.Errorf("at exp(-740): log joint %v, want lgamma's finite value", lp)
	}
	for i, g := range grad {
		if !math.IsNaN(g) {
			t.Errorf("at exp(-740): grad[%d] = %v, want NaN", i, g)
		}
	}
}

// TestTooManyNodes: past MaxNodes the builder reports one error at the node
// that reached it and returns a placeholder, which later operations accept
// without growing the tape.
func TestTooManyNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a million nodes")
	}
	b := NewBuilder()
	x := b.Input("x", Scalar(), at(1, 1))
	for i := 0; !b.Full(); i++ {
		if i > MaxNodes {
			t.Fatalf("not full after %d nodes", i)
		}
		x = b.Add(x, b.Scalar(1, at(2, 3)), at(2, 5))
	}
	n := len(b.nodes)
	y := b.Exp(b.Mul(x, x, at(3, 1)), at(3, 2))
	if len(b.nodes) != n || y != x {
		t.Errorf("the tape grew after it was full: %d → %d nodes", n, len(b.nodes))
	}
	_, err := b.Finish(b.Sum(y, at(4, 1)))
	want := fmt.Sprintf("model.gpp:2:3: the model's tape would have more than %d operations here: loops are unrolled into it, so write long loops as vector operations", MaxNodes)
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

// wantPositioned checks that err is an *ast.Error that reads want.
func wantPositioned(t *testing.T, err error, want string) {
	t.Helper()
	var e *ast.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v (%T), want *ast.Error %q", err, err, want)
	}
	if err.Error() != want {
		t.Errorf("error\n got %q\nwant %q", err, want)
	}
}

// TestDataValueCell: a data value outside the support of a density it is
// the value of is reported at its cell in the data file, followed back
// through slices, rows, columns, gathers and transposes; data without a
// file, or a value computed from data, at the density.
func TestDataValueCell(t *testing.T) {
	// Y is 3 × 2, row-major, read from d.csv: element k at line 2 + k/2,
	// column 1 + 2·(k%2); the one bad value for Poisson is -1 at [2, 0].
	vals := []float64{0, 1, 2, 3, -1, 5}
	cells := func(k int) ast.Pos { return ast.Pos{File: "d.csv", Line: 2 + k/2, Col: 1 + 2*(k%2)} }
	poisson, bern := family("Poisson"), family("Bernoulli")
	rate := func(b *Builder) ID { return b.Input("l", Scalar(), at(1, 1)) }
	for _, c := range []struct {
		name  string
		build func(b *Builder, y ID) ID
		want  string
	}{
		{"whole", func(b *Builder, y ID) ID { return b.Density(poisson, y, []ID{rate(b)}, at(5, 3)) },
			"d.csv:4:1: Y: value -1 is not a non-negative integer, as Poisson at model.gpp:5:3 needs"},
		{"row", func(b *Builder, y ID) ID { return b.Density(poisson, b.Row(y, 2, at(5, 1)), []ID{rate(b)}, at(5, 3)) },
			"d.csv:4:1: Y: value -1 is not a non-negative integer, as Poisson at model.gpp:5:3 needs"},
		{"slice of a column", func(b *Builder, y ID) ID {
			return b.Density(poisson, b.Slice(b.Col(y, 0, at(5, 1)), 1, 3, at(5, 1)), []ID{rate(b)}, at(5, 3))
		}, "d.csv:4:1: Y: value -1 is not a non-negative integer, as Poisson at model.gpp:5:3 needs"},
		{"gathered rows, transposed", func(b *Builder, y ID) ID {
			return b.Density(poisson, b.Transpose(b.Gather(y, []int{1, 2}, at(5, 1)), at(5, 1)), []ID{rate(b)}, at(5, 3))
		}, "d.csv:4:1: Y: value -1 is not a non-negative integer, as Poisson at model.gpp:5:3 needs"},
		{"an element", func(b *Builder, y ID) ID {
			return b.Density(bern, b.Elem(b.Col(y, 1, at(5, 1)), 1, at(5, 1)), []ID{b.Input("p", Scalar(), at(1, 1))}, at(6, 3))
		}, "d.csv:3:3: Y: value 3 is not 0 or 1, as Bernoulli at model.gpp:6:3 needs"},
		{"computed", func(b *Builder, y ID) ID {
			return b.Density(poisson, b.Add(y, b.Scalar(0.5, at(5, 1)), at(5, 1)), []ID{rate(b)}, at(5, 3))
		}, "model.gpp:5:3: data value 0.5 outside the support of Poisson (element [0, 0])"},
	} {
		err := runOne(t, []float64{1}, func(b *Builder) ID {
			return c.build(b, b.DataConst("Y", vals, Matrix(3, 2), at(1, 1), cells))
		})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %s", c.name, err, c.want)
		}
	}
	err := runOne(t, []float64{1}, func(b *Builder) ID {
		y := b.DataConst("Y", vals, Matrix(3, 2), at(1, 1), func(int) ast.Pos { return ast.Pos{} })
		return b.Density(poisson, y, []ID{rate(b)}, at(5, 3))
	})
	if want := "model.gpp:5:3: data value -1 outside the support of Poisson (element [2, 0])"; err == nil || err.Error() != want {
		t.Errorf("data without a file: error %v, want %s", err, want)
	}
}

// TestDataArgs: an argument of a density (through ~ or logpdf) that
// depends on data alone is checked against the family's parameter support
// when the program is finished, before any evaluation, at the argument; one
// that depends on a param is left to the evaluation.
func TestDataArgs(t *testing.T) {
	want := "model.gpp:3:5: Normal argument 2 (sigma) is 0, not > 0; it depends on the data alone, so no fit can change it"
	for name, node := range map[string]func(b *Builder, mu, y, spread ID) ID{
		"density": func(b *Builder, mu, _, spread ID) ID {
			return b.Density(testNormal, mu, []ID{b.Scalar(0, at(3, 1)), spread}, at(3, 3))
		},
		"logpdf": func(b *Builder, mu, y, spread ID) ID {
			return b.Sum(b.LogPDF(testNormal, y, []ID{mu, spread}, at(3, 3)), at(3, 3))
		},
	} {
		b := NewBuilder()
		mu := b.Input("mu", Scalar(), at(1, 1))
		y := b.Const([]float64{2, 2, 2}, Vector(3), at(2, 1)) // no spread
		spread := b.Sqrt(b.Sum(b.Square(b.Sub(y, b.Mean(y, at(3, 9)), at(3, 9)), at(3, 9)), at(3, 9)), at(3, 5))
		if _, err := b.Finish(node(b, mu, y, spread)); err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %s", name, err, want)
		}
	}
	b := NewBuilder()
	mu := b.Input("mu", Scalar(), at(1, 1))
	s := b.Input("s", Scalar(), at(1, 1))
	if _, err := b.Finish(b.Density(testNormal, mu, []ID{b.Scalar(0, at(3, 1)), s}, at(3, 3))); err != nil {
		t.Errorf("a param's argument: %v at Finish", err)
	}
}

// TestAsymmetric: a matrix is symmetric for chol, logdet, solve and
// MvNormalRows up to rounding in the scale of the entry (√(a_ii a_jj) for a
// covariance), not beyond.
func TestAsymmetric(t *testing.T) {
	for _, c := range []struct {
		a  []float64
		ok bool
	}{
		{[]float64{1, 0.3, 0.3, 1}, true},
		{[]float64{1e10, 0.3 + 1e-6, 0.3, 1}, true}, // 1e-6 against a scale of 1e5
		{[]float64{1, 0.3 + 1e-6, 0.3, 1}, false},   // 1e-6 against a scale of 1
		{[]float64{1e-12, 0, 1e-15, 1e-12}, false},  // small, but wholly asymmetric
		{[]float64{-1, 2, 2 + 1e-15, -4}, true},     // not PD, which chol reports
	} {
		if _, _, ok := asymmetric(c.a, 2); ok != c.ok {
			t.Errorf("%v: symmetric %v, want %v", c.a, ok, c.ok)
		}
	}
}

package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mathext"
)

// Tolerances of the finite-difference checks: |ad - fd| <= abs + rel*max(|ad|, |fd|).
const (
	gradTolAbs = 1e-6
	gradTolRel = 1e-6
	// valueTol bounds the relative error of forward values against the
	// plain-Go references.
	valueTol = 1e-12
)

// gradSeeds are the PCG seeds every gradient check runs with.
var gradSeeds = []uint64{1, 2, 3}

var testPos = ast.Pos{File: "test.gpp", Line: 1, Col: 1}

// domain is the range of the random values given to an operand.
type domain int

const (
	real    domain = iota // U(-2, 2)
	pos                   // U(0.3, 3)
	negFrac               // U(-0.9, -0.1): negative, away from the poles
	spd                   // a well-conditioned symmetric positive definite matrix
	cholf                 // a square matrix whose diagonal is in (0.5, 2): a Cholesky factor below it, noise above
	prob                  // U(0.05, 0.95): a probability, away from 0 and 1
	count                 // an integer in 0..20
	prec                  // U(5, 50): a beta regression's precision, and shapes above 2
	order                 // an integer in 0..4: a Bessel order, a factorial's count
)

// arg describes one operand of an op under test.
type arg struct {
	shape Shape
	data  bool // a Const rather than an Input
	dom   domain
}

func in(s Shape, d domain) arg   { return arg{shape: s, dom: d} }
func data(s Shape, d domain) arg { return arg{shape: s, data: true, dom: d} }

// gradCase is one op under test: build applies it to the operand IDs;
// ref, when set, computes the expected value from the operand values.
type gradCase struct {
	name  string
	args  func(r *rand.Rand) []arg
	build func(b *Builder, x []ID) ID
	ref   func(v [][]float64, s []Shape) []float64
}

func dims(r *rand.Rand) (int, int, int) { return 2 + r.IntN(3), 2 + r.IntN(3), 2 + r.IntN(3) }

func randValues(r *rand.Rand, a arg) []float64 {
	v := make([]float64, a.shape.Len())
	switch a.dom {
	case real:
		for i := range v {
			v[i] = -2 + 4*r.Float64()
		}
	case pos:
		for i := range v {
			v[i] = 0.3 + 2.7*r.Float64()
		}
	case negFrac:
		for i := range v {
			v[i] = -0.9 + 0.8*r.Float64()
		}
	case prob:
		for i := range v {
			v[i] = 0.05 + 0.9*r.Float64()
		}
	case count:
		for i := range v {
			v[i] = float64(r.IntN(21))
		}
	case order:
		for i := range v {
			v[i] = float64(r.IntN(5))
		}
	case prec:
		for i := range v {
			v[i] = 5 + 45*r.Float64()
		}
	case cholf:
		n := a.shape.Rows
		for i := range v {
			v[i] = -1 + 2*r.Float64()
		}
		for i := 0; i < n; i++ {
			v[i*n+i] = 0.5 + 1.5*r.Float64()
		}
	case spd:
		n := a.shape.Rows
		m := make([]float64, n*n)
		for i := range m {
			m[i] = -1 + 2*r.Float64()
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				s := 0.0
				for k := 0; k < n; k++ {
					s += m[i*n+k] * m[j*n+k]
				}
				v[i*n+j] = s
			}
			v[i*n+i] += float64(n)
		}
	}
	return v
}

// checkCase builds op(args), a random weighted sum of its output, and
// compares Backward with a central finite-difference gradient, and the
// op's value with ref.
func checkCase(t *testing.T, c gradCase, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	args := c.args(r)
	b := NewBuilder()
	ids := make([]ID, len(args))
	vals := make([][]float64, len(args))
	shapes := make([]Shape, len(args))
	var x0 []float64
	for i, a := range args {
		vals[i], shapes[i] = randValues(r, a), a.shape
		if a.data {
			ids[i] = b.Const(vals[i], a.shape, testPos)
		} else {
			ids[i] = b.Input(fmt.Sprintf("x%d", i), a.shape, testPos)
			x0 = append(x0, vals[i]...)
			if a.dom == spd { // ops on it take a symmetric matrix: perturb it as (X + X')/2
				ids[i] = b.Mul(b.Add(ids[i], b.Transpose(ids[i], testPos), testPos), b.Scalar(0.5, testPos), testPos)
			}
		}
	}
	out := c.build(b, ids)
	os := b.Shape(out)
	w := make([]float64, os.Len())
	for i := range w {
		w[i] = -1 + 2*r.Float64()
	}
	root := b.Sum(b.Mul(out, b.Const(w, os, testPos), testPos), testPos)
	p, err := b.Finish(root)
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	if c.ref != nil {
		if _, err := p.Forward(x0); err != nil {
			t.Fatalf("Forward: %v", err)
		}
		want, got := c.ref(vals, shapes), p.Value(out)
		if len(want) != len(got) {
			t.Fatalf("value has %d elements, want %d", len(got), len(want))
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > valueTol*max(1, math.Abs(want[i])) {
				t.Errorf("value[%d] = %.17g, want %.17g", i, got[i], want[i])
			}
		}
	}
	grad := make([]float64, p.Dim())
	if _, err := p.LogJoint(x0, grad); err != nil {
		t.Fatalf("LogJoint: %v", err)
	}
	f := func(x []float64) float64 {
		v, err := p.Forward(x)
		if err != nil {
			t.Fatalf("Forward during fd: %v", err)
		}
		return v
	}
	want := fd.Gradient(nil, f, x0, &fd.Settings{Formula: fd.Central})
	for i := range want {
		if d := math.Abs(grad[i] - want[i]); d > gradTolAbs+gradTolRel*max(math.Abs(grad[i]), math.Abs(want[i])) {
			t.Errorf("grad[%d] = %.10g, fd %.10g (diff %.3g)", i, grad[i], want[i], d)
		}
	}
}

func runCases(t *testing.T, cases []gradCase) {
	for _, c := range cases {
		for _, seed := range gradSeeds {
			t.Run(fmt.Sprintf("%s/seed%d", c.name, seed), func(t *testing.T) { checkCase(t, c, seed) })
		}
	}
}

// bidx is the index of element (i, j) of a broadcast output in an operand
// of shape s, written independently of the package's stride tables.
func bidx(s Shape, i, j int) int {
	if s.Rows == 1 {
		i = 0
	}
	if s.Cols == 1 {
		j = 0
	}
	return i*s.Cols + j
}

// elementwiseRef applies f over the broadcast of the operands.
func elementwiseRef(f func(x []float64) float64) func(v [][]float64, s []Shape) []float64 {
	return func(v [][]float64, s []Shape) []float64 {
		out, _ := broadcast(s...)
		var res []float64
		x := make([]float64, len(v))
		for i := 0; i < out.Rows; i++ {
			for j := 0; j < out.Cols; j++ {
				for a := range v {
					x[a] = v[a][bidx(s[a], i, j)]
				}
				res = append(res, f(x))
			}
		}
		return res
	}
}

// Broadcast patterns for the binary ops: pairs of operand shapes (and
// which side is data), for dimensions n, m.
var binaryPatterns = []struct {
	name string
	args func(n, m int, dx, dy domain) []arg
}{
	{"matrix-matrix", func(n, m int, dx, dy domain) []arg { return []arg{in(Matrix(n, m), dx), in(Matrix(n, m), dy)} }},
	{"scalar-matrix", func(n, m int, dx, dy domain) []arg { return []arg{in(Scalar(), dx), in(Matrix(n, m), dy)} }},
	{"matrix-scalar", func(n, m int, dx, dy domain) []arg { return []arg{in(Matrix(n, m), dx), in(Scalar(), dy)} }},
	{"vector-matrix", func(n, m int, dx, dy domain) []arg { return []arg{in(Vector(n), dx), in(Matrix(n, m), dy)} }},
	{"matrix-vector", func(n, m int, dx, dy domain) []arg { return []arg{in(Matrix(n, m), dx), in(Vector(n), dy)} }},
	{"matrix-row", func(n, m int, dx, dy domain) []arg { return []arg{in(Matrix(n, m), dx), in(Matrix(1, m), dy)} }},
	{"row-matrix", func(n, m int, dx, dy domain) []arg { return []arg{in(Matrix(1, m), dx), in(Matrix(n, m), dy)} }},
	{"row-column", func(n, m int, dx, dy domain) []arg { return []arg{in(Matrix(1, m), dx), in(Matrix(n, 1), dy)} }},
	{"vector-row", func(n, m int, dx, dy domain) []arg { return []arg{in(Vector(n), dx), in(Matrix(1, m), dy)} }},
	{"vector-vector", func(n, m int, dx, dy domain) []arg { return []arg{in(Vector(n), dx), in(Vector(n), dy)} }},
	{"scalar-scalar", func(n, m int, dx, dy domain) []arg { return []arg{in(Scalar(), dx), in(Scalar(), dy)} }},
	{"data-matrix-row", func(n, m int, dx, dy domain) []arg { return []arg{data(Matrix(n, m), dx), in(Matrix(1, m), dy)} }},
	{"vector-data-matrix", func(n, m int, dx, dy domain) []arg { return []arg{in(Vector(n), dx), data(Matrix(n, m), dy)} }},
}

func TestGradBinary(t *testing.T) {
	ops := []struct {
		op     Op
		dx, dy domain
		f      func(x, y float64) float64
	}{
		{OpAdd, real, real, func(x, y float64) float64 { return x + y }},
		{OpSub, real, real, func(x, y float64) float64 { return x - y }},
		{OpMul, real, real, func(x, y float64) float64 { return x * y }},
		{OpDiv, real, pos, func(x, y float64) float64 { return x / y }},
		{OpPow, pos, real, math.Pow},
		{OpFmin, real, real, math.Min},
		{OpFmax, real, real, math.Max},
		{OpLbeta, pos, pos, func(x, y float64) float64 {
			a, _ := math.Lgamma(x)
			b, _ := math.Lgamma(y)
			c, _ := math.Lgamma(x + y)
			return a + b - c
		}},
		{OpLogAddExp, real, real, func(x, y float64) float64 { return math.Log(math.Exp(x) + math.Exp(y)) }},
		{OpLogDiffExp, prec, real, func(x, y float64) float64 { return math.Log(math.Exp(x) - math.Exp(y)) }},
		{OpLogDiffExp, pos, negFrac, func(x, y float64) float64 { return math.Log(math.Exp(x) - math.Exp(y)) }},
		{OpHypot, real, real, func(x, y float64) float64 { return math.Sqrt(x*x + y*y) }},
		{OpAtan2, real, real, math.Atan2},
		{OpAtan2, real, negFrac, math.Atan2}, // across the branch cut's side
		{OpLmultiply, real, pos, func(x, y float64) float64 { return x * math.Log(y) }},
		{OpLogInvLogitDiff, prec, real, func(x, y float64) float64 { return math.Log(1/(1+math.Exp(-x)) - 1/(1+math.Exp(-y))) }},
		{OpLogFallingFactorial, prec, pos, func(x, n float64) float64 {
			a, _ := math.Lgamma(x + 1)
			b, _ := math.Lgamma(x - n + 1)
			return a - b
		}},
		{OpLogFallingFactorial, pos, negFrac, func(x, n float64) float64 {
			a, _ := math.Lgamma(x + 1)
			b, _ := math.Lgamma(x - n + 1)
			return a - b
		}},
		{OpLogInvLogitDiff, pos, negFrac, func(x, y float64) float64 { return math.Log(1/(1+math.Exp(-x)) - 1/(1+math.Exp(-y))) }},
		{OpGammaP, pos, pos, mathext.GammaIncReg},
		{OpGammaP, prec, prec, mathext.GammaIncReg},
		{OpGammaQ, pos, pos, mathext.GammaIncRegComp},
		{OpGammaQ, prec, pos, mathext.GammaIncRegComp},
		{OpLogBesselI, pos, pos, logBesselIRef},
		{OpLogBesselI, negFrac, prec, logBesselIRef},
		{OpOwensT, real, real, owensTRef},
		{OpFmod, real, pos, math.Mod},
		{OpLogRisingFactorial, pos, pos, func(x, n float64) float64 {
			a, _ := math.Lgamma(x + n)
			b, _ := math.Lgamma(x)
			return a - b
		}},
	}
	var cases []gradCase
	for _, o := range ops {
		for _, pat := range binaryPatterns {
			cases = append(cases, gradCase{
				name:  o.op.String() + "/" + pat.name,
				args:  func(r *rand.Rand) []arg { n, m, _ := dims(r); return pat.args(n, m, o.dx, o.dy) },
				build: func(b *Builder, x []ID) ID { return b.Binary(o.op, x[0], x[1], testPos) },
				ref:   elementwiseRef(func(x []float64) float64 { return o.f(x[0], x[1]) }),
			})
		}
	}
	// binary_log_loss of int outcomes (data, 0 or not) and probabilities.
	for _, pat := range []string{"vector-vector", "data-scalar"} {
		cases = append(cases, gradCase{
			name: "binary_log_loss/" + pat,
			args: func(r *rand.Rand) []arg {
				n, _, _ := dims(r)
				if pat == "data-scalar" {
					return []arg{data(Vector(n), count), in(Scalar(), prob)}
				}
				return []arg{data(Vector(n), count), in(Vector(n), prob)}
			},
			build: func(b *Builder, x []ID) ID { return b.Binary(OpBinaryLogLoss, x[0], x[1], testPos) },
			ref: elementwiseRef(func(x []float64) float64 {
				if x[0] != 0 {
					return -math.Log(x[1])
				}
				return -math.Log(1 - x[1])
			}),
		})
	}
	// Stan's functions of an int order or count (data) and a real.
	for _, o := range []struct {
		op      Op
		intLeft bool
		dom     domain
		f       func(n, x float64) float64
	}{
		{OpBesselI, true, real, nil},
		{OpBesselJ, true, real, func(n, x float64) float64 { return math.Jn(int(n), x) }},
		{OpBesselY, true, prec, func(n, x float64) float64 { return math.Yn(int(n), x) }},
		{OpBesselK, true, pos, nil},
		{OpRisingFactorial, false, real, func(n, x float64) float64 { return math.Gamma(x+n) / math.Gamma(x) }},
		{OpFallingFactorial, false, prec, func(n, x float64) float64 { return math.Gamma(x+1) / math.Gamma(x-n+1) }},
		{OpLdexp, false, real, func(n, x float64) float64 { return x * math.Pow(2, n) }},
		{OpLmgamma, true, prec, func(k, x float64) float64 { // Γ_k(x) = π^(k(k−1)/4) Π Γ(x + (1 − j)/2)
			s := k * (k - 1) / 4 * math.Log(math.Pi)
			for j := 1.0; j <= k; j++ {
				lg, _ := math.Lgamma(x + (1-j)/2)
				s += lg
			}
			return s
		}},
	} {
		for _, pat := range []string{"vector-vector", "data-scalar"} {
			cases = append(cases, gradCase{
				name: o.op.String() + "/" + pat,
				args: func(r *rand.Rand) []arg {
					n, _, _ := dims(r)
					x := in(Vector(n), o.dom)
					if pat == "data-scalar" {
						x = in(Scalar(), o.dom)
					}
					if o.intLeft {
						return []arg{data(Vector(n), order), x}
					}
					return []arg{x, data(Vector(n), order)}
				},
				build: func(b *Builder, x []ID) ID { return b.Binary(o.op, x[0], x[1], testPos) },
			})
			if o.f != nil && o.op != OpRisingFactorial { // Γ's poles at the real x of rising_factorial
				f, left := o.f, o.intLeft
				cases[len(cases)-1].ref = elementwiseRef(func(x []float64) float64 {
					if left {
						return f(x[0], x[1])
					}
					return f(x[1], x[0])
				})
			}
		}
	}
	// The same node on both sides: adjoints must add up.
	cases = append(cases, gradCase{
		name:  "mul/aliased",
		args:  func(r *rand.Rand) []arg { n, m, _ := dims(r); return []arg{in(Matrix(n, m), real)} },
		build: func(b *Builder, x []ID) ID { return b.Mul(x[0], x[0], testPos) },
	})
	runCases(t, cases)
}

func TestGradUnary(t *testing.T) {
	ops := []struct {
		op  Op
		dom domain
		f   func(float64) float64
	}{
		{OpNeg, real, func(x float64) float64 { return -x }},
		{OpExp, real, math.Exp},
		{OpLog, pos, math.Log},
		{OpLog1p, pos, math.Log1p},
		{OpExpm1, real, math.Expm1},
		{OpLog1mexp, pos, func(x float64) float64 { return math.Log(1 - math.Exp(-x)) }},
		{OpSoftplus, real, func(x float64) float64 { return math.Log(1 + math.Exp(x)) }},
		{OpSqrt, pos, math.Sqrt},
		{OpSquare, real, func(x float64) float64 { return x * x }},
		{OpAbs, real, math.Abs},
		{OpLgamma, pos, func(x float64) float64 { v, _ := math.Lgamma(x); return v }},
		{OpLgamma, negFrac, func(x float64) float64 { v, _ := math.Lgamma(x); return v }},
		{OpDigamma, pos, nil},
		{OpDigamma, negFrac, nil},
		{OpInvLogit, real, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }},
		{OpLog1m, negFrac, func(x float64) float64 { return math.Log(1 - x) }},
		{OpLog1m, prob, func(x float64) float64 { return math.Log(1 - x) }},
		{OpInvCloglog, real, func(x float64) float64 { return 1 - math.Exp(-math.Exp(x)) }},
		{OpPhi, real, func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }},
		{OpPhiApprox, real, func(x float64) float64 { return 1 / (1 + math.Exp(-(0.07056*x*x*x + 1.5976*x))) }},
		{OpInvPhi, prob, func(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }},
		{OpTanh, real, math.Tanh},
		{OpSin, real, math.Sin},
		{OpCos, real, math.Cos},
		{OpAtan, real, math.Atan},
		{OpTan, negFrac, math.Tan},
		{OpTan, prob, math.Tan},
		{OpAsin, negFrac, math.Asin},
		{OpAsin, prob, math.Asin},
		{OpAcos, prob, math.Acos},
		{OpSinh, real, func(x float64) float64 { return (math.Exp(x) - math.Exp(-x)) / 2 }},
		{OpCosh, real, func(x float64) float64 { return (math.Exp(x) + math.Exp(-x)) / 2 }},
		{OpAsinh, real, func(x float64) float64 { return math.Log(x + math.Sqrt(x*x+1)) }},
		{OpAcosh, prec, func(x float64) float64 { return math.Log(x + math.Sqrt(x*x-1)) }},
		{OpAtanh, negFrac, func(x float64) float64 { return 0.5 * math.Log((1+x)/(1-x)) }},
		{OpAtanh, prob, func(x float64) float64 { return 0.5 * math.Log((1+x)/(1-x)) }},
		{OpErf, real, math.Erf},
		{OpErfc, real, func(x float64) float64 { return 1 - math.Erf(x) }},
		{OpExp2, real, func(x float64) float64 { return math.Pow(2, x) }},
		{OpLog2, pos, func(x float64) float64 { return math.Log(x) / math.Ln2 }},
		{OpLog10, pos, func(x float64) float64 { return math.Log(x) / math.Ln10 }},
		{OpCbrt, pos, func(x float64) float64 { return math.Pow(x, 1.0/3) }},
		{OpCbrt, negFrac, func(x float64) float64 { return -math.Pow(-x, 1.0/3) }},
		{OpTgamma, pos, func(x float64) float64 { v, _ := math.Lgamma(x); return math.Exp(v) }},
		{OpTgamma, negFrac, func(x float64) float64 { v, s := math.Lgamma(x); return float64(s) * math.Exp(v) }},
		{OpTrigamma, pos, nil},
		{OpTrigamma, negFrac, nil},
		{OpFloor, prob, func(float64) float64 { return 0 }},
		{OpCeil, prob, func(float64) float64 { return 1 }},
		{OpTrunc, negFrac, func(float64) float64 { return 0 }},
		{OpLambertW0, pos, nil},
		{OpLambertW0, prob, nil},
	}
	var cases []gradCase
	for _, o := range ops {
		var ref func([][]float64, []Shape) []float64
		if o.f != nil {
			ref = elementwiseRef(func(x []float64) float64 { return o.f(x[0]) })
		}
		for _, shape := range []string{"matrix", "vector", "scalar"} {
			cases = append(cases, gradCase{
				name: fmt.Sprintf("%s/%s/dom%d", o.op, shape, o.dom),
				args: func(r *rand.Rand) []arg {
					n, m, _ := dims(r)
					s := map[string]Shape{"matrix": Matrix(n, m), "vector": Vector(n), "scalar": Scalar()}[shape]
					return []arg{in(s, o.dom)}
				},
				build: func(b *Builder, x []ID) ID { return b.Unary(o.op, x[0], testPos) },
				ref:   ref,
			})
		}
	}
	// lambert_wm1 on (-1/e, 0): of -0.35·x, x in (0.05, 0.95).
	cases = append(cases, gradCase{
		name: "lambert_wm1/vector",
		args: func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Vector(n), prob)} },
		build: func(b *Builder, x []ID) ID {
			return b.Unary(OpLambertWm1, b.Mul(b.Scalar(-0.35, testPos), x[0], testPos), testPos)
		},
	})
	runCases(t, cases)
}

// logBesselIRef is log I_v(z) by the plain power series
// Σ (z/2)^(2k+v)/(k! Γ(k+v+1)), for moderate z.
func logBesselIRef(v, z float64) float64 {
	s := 0.0
	for k := 0.0; k < 200; k++ {
		lg, _ := math.Lgamma(k + v + 1)
		lk, _ := math.Lgamma(k + 1)
		s += math.Exp((2*k+v)*math.Log(z/2) - lk - lg)
	}
	return math.Log(s)
}

// owensTRef is Owen's T by Simpson's rule on its integral, 2000 panels.
func owensTRef(h, a float64) float64 {
	f := func(x float64) float64 { return math.Exp(-h*h*(1+x*x)/2) / (1 + x*x) }
	const n = 2000
	w := a / n
	s := f(0) + f(a)
	for i := 1; i < n; i++ {
		s += float64(2+2*(i%2)) * f(float64(i)*w)
	}
	return s * w / 3 / (2 * math.Pi)
}

func sumRef(v [][]float64, _ []Shape) []float64 {
	s := 0.0
	for _, x := range v[0] {
		s += x
	}
	return []float64{s}
}

func TestGradReductions(t *testing.T) {
	matrix := func(r *rand.Rand) []arg { n, m, _ := dims(r); return []arg{in(Matrix(n, m), real)} }
	vector := func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Vector(n), real)} }
	runCases(t, []gradCase{
		{name: "sum", args: matrix, build: func(b *Builder, x []ID) ID { return b.Sum(x[0], testPos) }, ref: sumRef},
		{name: "prod", args: matrix, build: func(b *Builder, x []ID) ID { return b.Prod(x[0], testPos) },
			ref: func(v [][]float64, _ []Shape) []float64 {
				p := 1.0
				for _, x := range v[0] {
					p *= x
				}
				return []float64{p}
			}},
		{name: "mean", args: matrix, build: func(b *Builder, x []ID) ID { return b.Mean(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 { return []float64{sumRef(v, s)[0] / float64(len(v[0]))} }},
		{name: "max", args: matrix, build: func(b *Builder, x []ID) ID { return b.Max(x[0], testPos) },
			ref: func(v [][]float64, _ []Shape) []float64 { return []float64{slices.Max(v[0])} }},
		{name: "min", args: vector, build: func(b *Builder, x []ID) ID { return b.Min(x[0], testPos) },
			ref: func(v [][]float64, _ []Shape) []float64 { return []float64{slices.Min(v[0])} }},
		{name: "logsumexp", args: matrix, build: func(b *Builder, x []ID) ID { return b.LogSumExp(x[0], testPos) },
			ref: func(v [][]float64, _ []Shape) []float64 {
				s := 0.0
				for _, x := range v[0] {
					s += math.Exp(x)
				}
				return []float64{math.Log(s)}
			}},
		{name: "rowlogsumexp/matrix", args: matrix, build: func(b *Builder, x []ID) ID { return b.RowLogSumExp(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				res := make([]float64, s[0].Rows)
				for i := range res {
					t := 0.0
					for j := 0; j < s[0].Cols; j++ {
						t += math.Exp(v[0][i*s[0].Cols+j])
					}
					res[i] = math.Log(t)
				}
				return res
			}},
		{name: "rowlogsumexp/vector", args: vector, build: func(b *Builder, x []ID) ID { return b.RowLogSumExp(x[0], testPos) },
			ref: func(v [][]float64, _ []Shape) []float64 { return v[0] }},
		{name: "rowsum/matrix", args: matrix, build: func(b *Builder, x []ID) ID { return b.RowSum(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				res := make([]float64, s[0].Rows)
				for i := range res {
					for j := 0; j < s[0].Cols; j++ {
						res[i] += v[0][i*s[0].Cols+j]
					}
				}
				return res
			}},
		{name: "rowsum/vector", args: vector, build: func(b *Builder, x []ID) ID { return b.RowSum(x[0], testPos) },
			ref: func(v [][]float64, _ []Shape) []float64 { return v[0] }},
		{name: "rowmax/matrix", args: matrix, build: func(b *Builder, x []ID) ID { return b.RowMax(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				res := make([]float64, s[0].Rows)
				for i := range res {
					res[i] = slices.Max(v[0][i*s[0].Cols : (i+1)*s[0].Cols])
				}
				return res
			}},
		{name: "rowmin/matrix", args: matrix, build: func(b *Builder, x []ID) ID { return b.RowMin(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				res := make([]float64, s[0].Rows)
				for i := range res {
					res[i] = slices.Min(v[0][i*s[0].Cols : (i+1)*s[0].Cols])
				}
				return res
			}},
		// RowScatter against the sum of the rows' outer products taken
		// one by one.
		{name: "rowscatter", args: matrix, build: func(b *Builder, x []ID) ID { return b.RowScatter(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				k := s[0].Cols
				res := make([]float64, k*k)
				for i := 0; i < s[0].Rows; i++ {
					for a := range k {
						for c := range k {
							res[a*k+c] += v[0][i*k+a] * v[0][i*k+c]
						}
					}
				}
				return res
			}},
		{name: "rowprod/matrix", args: matrix, build: func(b *Builder, x []ID) ID { return b.RowProd(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				res := make([]float64, s[0].Rows)
				for i := range res {
					res[i] = 1
					for _, x := range v[0][i*s[0].Cols : (i+1)*s[0].Cols] {
						res[i] *= x
					}
				}
				return res
			}},
		{name: "rowprod/vector", args: vector, build: func(b *Builder, x []ID) ID { return b.RowProd(x[0], testPos) },
			ref: func(v [][]float64, _ []Shape) []float64 { return v[0] }},
		{name: "rowmax/vector", args: vector, build: func(b *Builder, x []ID) ID { return b.RowMax(x[0], testPos) },
			ref: func(v [][]float64, _ []Shape) []float64 { return v[0] }},
		{name: "colsum/matrix", args: matrix, build: func(b *Builder, x []ID) ID { return b.ColSum(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				res := make([]float64, s[0].Cols)
				for i := 0; i < s[0].Rows; i++ {
					for j := range res {
						res[j] += v[0][i*s[0].Cols+j]
					}
				}
				return res
			}},
		{name: "colsum/vector", args: vector, build: func(b *Builder, x []ID) ID { return b.ColSum(x[0], testPos) }, ref: sumRef},
		{name: "rowmean/matrix", args: matrix, build: func(b *Builder, x []ID) ID { return b.RowMean(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				res := make([]float64, s[0].Rows)
				for i := range res {
					for j := 0; j < s[0].Cols; j++ {
						res[i] += v[0][i*s[0].Cols+j] / float64(s[0].Cols)
					}
				}
				return res
			}},
		{name: "rowmean/vector", args: vector, build: func(b *Builder, x []ID) ID { return b.RowMean(x[0], testPos) },
			ref: func(v [][]float64, _ []Shape) []float64 { return v[0] }},
		{name: "colmean/matrix", args: matrix, build: func(b *Builder, x []ID) ID { return b.ColMean(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				res := make([]float64, s[0].Cols)
				for i := 0; i < s[0].Rows; i++ {
					for j := range res {
						res[j] += v[0][i*s[0].Cols+j] / float64(s[0].Rows)
					}
				}
				return res
			}},
		{name: "colmean/vector", args: vector, build: func(b *Builder, x []ID) ID { return b.ColMean(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 { return []float64{sumRef(v, s)[0] / float64(len(v[0]))} }},
	})
}

// matmulRef multiplies row-major a [n,k] and b [k,m].
func matmulRef(a, b []float64, n, k, m int) []float64 {
	c := make([]float64, n*m)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			for l := 0; l < k; l++ {
				c[i*m+j] += a[i*k+l] * b[l*m+j]
			}
		}
	}
	return c
}

func transposeRef(a []float64, r, c int) []float64 {
	t := make([]float64, r*c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			t[j*r+i] = a[i*c+j]
		}
	}
	return t
}

func TestGradLinalg(t *testing.T) {
	mm := func(v [][]float64, s []Shape) []float64 {
		return matmulRef(v[0], v[1], s[0].Rows, s[0].Cols, s[1].Cols)
	}
	square := func(dom domain) func(r *rand.Rand) []arg {
		return func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Matrix(n, n), dom)} }
	}
	runCases(t, []gradCase{
		{name: "matmul/matrix", args: func(r *rand.Rand) []arg {
			n, k, m := dims(r)
			return []arg{in(Matrix(n, k), real), in(Matrix(k, m), real)}
		}, build: func(b *Builder, x []ID) ID { return b.MatMul(x[0], x[1], testPos) }, ref: mm},
		{name: "matmul/vector", args: func(r *rand.Rand) []arg {
			n, k, _ := dims(r)
			return []arg{in(Matrix(n, k), real), in(Vector(k), real)}
		}, build: func(b *Builder, x []ID) ID { return b.MatMul(x[0], x[1], testPos) }, ref: mm},
		{name: "matmul/vector-row", args: func(r *rand.Rand) []arg {
			n, _, m := dims(r)
			return []arg{in(Vector(n), real), in(Matrix(1, m), real)}
		}, build: func(b *Builder, x []ID) ID { return b.MatMul(x[0], x[1], testPos) }, ref: mm},
		{name: "matmul/data-left", args: func(r *rand.Rand) []arg {
			n, k, m := dims(r)
			return []arg{data(Matrix(n, k), real), in(Matrix(k, m), real)}
		}, build: func(b *Builder, x []ID) ID { return b.MatMul(x[0], x[1], testPos) }, ref: mm},
		{name: "matmul/data-right", args: func(r *rand.Rand) []arg {
			n, k, m := dims(r)
			return []arg{in(Matrix(n, k), real), data(Matrix(k, m), real)}
		}, build: func(b *Builder, x []ID) ID { return b.MatMul(x[0], x[1], testPos) }, ref: mm},
		{name: "matmul/A-Bt", args: func(r *rand.Rand) []arg {
			n, k, m := dims(r)
			return []arg{in(Matrix(n, k), real), in(Matrix(m, k), real)}
		}, build: func(b *Builder, x []ID) ID { return b.MatMul(x[0], b.Transpose(x[1], testPos), testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				return matmulRef(v[0], transposeRef(v[1], s[1].Rows, s[1].Cols), s[0].Rows, s[0].Cols, s[1].Rows)
			}},
		{name: "matmul/At-B", args: func(r *rand.Rand) []arg {
			n, k, m := dims(r)
			return []arg{in(Matrix(k, n), real), in(Matrix(k, m), real)}
		}, build: func(b *Builder, x []ID) ID { return b.MatMul(b.Transpose(x[0], testPos), x[1], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				return matmulRef(transposeRef(v[0], s[0].Rows, s[0].Cols), v[1], s[0].Cols, s[0].Rows, s[1].Cols)
			}},
		{name: "matmul/At-Bt", args: func(r *rand.Rand) []arg {
			n, k, m := dims(r)
			return []arg{in(Matrix(k, n), real), in(Matrix(m, k), real)}
		}, build: func(b *Builder, x []ID) ID {
			return b.MatMul(b.Transpose(x[0], testPos), b.Transpose(x[1], testPos), testPos)
		}},
		{name: "matmul/data-At-B", args: func(r *rand.Rand) []arg {
			n, k, m := dims(r)
			return []arg{data(Matrix(k, n), real), in(Matrix(k, m), real)}
		}, build: func(b *Builder, x []ID) ID { return b.MatMul(b.Transpose(x[0], testPos), x[1], testPos) }},
		{name: "matmul/A-data-Bt", args: func(r *rand.Rand) []arg {
			n, k, m := dims(r)
			return []arg{in(Matrix(n, k), real), data(Matrix(m, k), real)}
		}, build: func(b *Builder, x []ID) ID { return b.MatMul(x[0], b.Transpose(x[1], testPos), testPos) }},
		{name: "matmul/gram-XXt", args: func(r *rand.Rand) []arg { n, k, _ := dims(r); return []arg{in(Matrix(n, k), real)} },
			build: func(b *Builder, x []ID) ID { return b.MatMul(x[0], b.Transpose(x[0], testPos), testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				return matmulRef(v[0], transposeRef(v[0], s[0].Rows, s[0].Cols), s[0].Rows, s[0].Cols, s[0].Rows)
			}},
		{name: "matmul/gram-XtX", args: func(r *rand.Rand) []arg { n, k, _ := dims(r); return []arg{in(Matrix(n, k), real)} },
			build: func(b *Builder, x []ID) ID { return b.MatMul(b.Transpose(x[0], testPos), x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				return matmulRef(transposeRef(v[0], s[0].Rows, s[0].Cols), v[0], s[0].Cols, s[0].Rows, s[0].Cols)
			}},
		{name: "matmul/gram-vector", args: func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Vector(n), real)} },
			build: func(b *Builder, x []ID) ID { return b.MatMul(x[0], b.Transpose(x[0], testPos), testPos) },
			ref:   func(v [][]float64, s []Shape) []float64 { return matmulRef(v[0], v[0], s[0].Rows, 1, s[0].Rows) }},
		{name: "matmul/Xt-vector", args: func(r *rand.Rand) []arg {
			n, k, _ := dims(r)
			return []arg{in(Matrix(n, k), real), in(Vector(n), real)}
		}, build: func(b *Builder, x []ID) ID { return b.MatMul(b.Transpose(x[0], testPos), x[1], testPos) }},
		{name: "matmul/dot", args: func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{in(Vector(n), real), in(Vector(n), real)}
		}, build: func(b *Builder, x []ID) ID { return b.MatMul(b.Transpose(x[0], testPos), x[1], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 { return matmulRef(v[0], v[1], 1, s[0].Rows, 1) }},
		{name: "transpose/matrix", args: func(r *rand.Rand) []arg { n, m, _ := dims(r); return []arg{in(Matrix(n, m), real)} },
			build: func(b *Builder, x []ID) ID { return b.Transpose(x[0], testPos) },
			ref:   func(v [][]float64, s []Shape) []float64 { return transposeRef(v[0], s[0].Rows, s[0].Cols) }},
		{name: "transpose/vector", args: func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Vector(n), real)} },
			build: func(b *Builder, x []ID) ID { return b.Transpose(x[0], testPos) },
			ref:   func(v [][]float64, _ []Shape) []float64 { return v[0] }},
		{name: "transpose/row", args: func(r *rand.Rand) []arg { _, m, _ := dims(r); return []arg{in(Matrix(1, m), real)} },
			build: func(b *Builder, x []ID) ID { return b.Transpose(x[0], testPos) },
			ref:   func(v [][]float64, _ []Shape) []float64 { return v[0] }},
		{name: "outer", args: func(r *rand.Rand) []arg { n, m, _ := dims(r); return []arg{in(Vector(n), real), in(Vector(m), real)} },
			build: func(b *Builder, x []ID) ID { return b.Outer(x[0], x[1], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				return matmulRef(v[0], v[1], s[0].Rows, 1, s[1].Rows)
			}},
		{name: "diag/vector", args: func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Vector(n), real)} },
			build: func(b *Builder, x []ID) ID { return b.Diag(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				n := s[0].Rows
				res := make([]float64, n*n)
				for i := 0; i < n; i++ {
					res[i*n+i] = v[0][i]
				}
				return res
			}},
		{name: "diag/matrix", args: square(real), build: func(b *Builder, x []ID) ID { return b.Diag(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				n := s[0].Rows
				res := make([]float64, n)
				for i := range res {
					res[i] = v[0][i*n+i]
				}
				return res
			}},
		{name: "trace", args: square(real), build: func(b *Builder, x []ID) ID { return b.Trace(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				n, tr := s[0].Rows, 0.0
				for i := 0; i < n; i++ {
					tr += v[0][i*n+i]
				}
				return []float64{tr}
			}},
		{name: "identity-scale", args: func(r *rand.Rand) []arg { return []arg{in(Scalar(), pos)} },
			build: func(b *Builder, x []ID) ID { return b.Div(b.Identity(3, testPos), x[0], testPos) }},
		{name: "chol", args: square(spd), build: func(b *Builder, x []ID) ID { return b.Chol(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 { return cholRef(v[0], s[0].Rows) }},
		{name: "chol/of-product", args: func(r *rand.Rand) []arg { n, k, _ := dims(r); return []arg{in(Matrix(n, k), real)} },
			build: func(b *Builder, x []ID) ID {
				n := b.Shape(x[0]).Rows
				a := b.Add(b.MatMul(x[0], b.Transpose(x[0], testPos), testPos), b.Identity(n, testPos), testPos)
				return b.Chol(a, testPos)
			}},
		{name: "logdet", args: square(spd), build: func(b *Builder, x []ID) ID { return b.LogDet(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				l, n, ld := cholRef(v[0], s[0].Rows), s[0].Rows, 0.0
				for i := 0; i < n; i++ {
					ld += 2 * math.Log(l[i*n+i])
				}
				return []float64{ld}
			}},
		{name: "solve/vector", args: func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{in(Matrix(n, n), spd), in(Vector(n), real)}
		}, build: func(b *Builder, x []ID) ID { return b.Solve(x[0], x[1], testPos) }, ref: solveRef},
		{name: "solve/matrix", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Matrix(n, n), spd), in(Matrix(n, m), real)}
		}, build: func(b *Builder, x []ID) ID { return b.Solve(x[0], x[1], testPos) }, ref: solveRef},
		{name: "solve/data-rhs", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Matrix(n, n), spd), data(Matrix(n, m), real)}
		}, build: func(b *Builder, x []ID) ID { return b.Solve(x[0], x[1], testPos) }, ref: solveRef},
		{name: "solve+logdet/shared", args: func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{in(Matrix(n, n), spd), in(Vector(n), real)}
		}, build: func(b *Builder, x []ID) ID {
			return b.Add(b.LogDet(x[0], testPos), b.Sum(b.Solve(x[0], x[1], testPos), testPos), testPos)
		}},
		{name: "inverse/general", args: square(cholf), build: func(b *Builder, x []ID) ID { return b.LU(OpInverse, x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				n := s[0].Rows
				return solveRef([][]float64{v[0], identityRef(n)}, []Shape{s[0], Matrix(n, n)})
			}},
		{name: "inverse/spd", args: square(spd), build: func(b *Builder, x []ID) ID { return b.LU(OpInverse, x[0], testPos) }},
		{name: "determinant", args: square(cholf), build: func(b *Builder, x []ID) ID { return b.LU(OpDeterminant, x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 { return []float64{detRef(v[0], s[0].Rows)} }},
		{name: "log_determinant", args: square(cholf), build: func(b *Builder, x []ID) ID { return b.LU(OpLogAbsDet, x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				return []float64{math.Log(math.Abs(detRef(v[0], s[0].Rows)))}
			}},
		{name: "mdivide_left_tri_low/vector", args: func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{in(Matrix(n, n), cholf), in(Vector(n), real)}
		}, build: func(b *Builder, x []ID) ID { return b.TriSolve(x[0], x[1], testPos) }, ref: triSolveRef},
		{name: "mdivide_left_tri_low/matrix", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Matrix(n, n), cholf), in(Matrix(n, m), real)}
		}, build: func(b *Builder, x []ID) ID { return b.TriSolve(x[0], x[1], testPos) }, ref: triSolveRef},
		{name: "mdivide_left_tri_low/data-L", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{data(Matrix(n, n), cholf), in(Matrix(n, m), real)}
		}, build: func(b *Builder, x []ID) ID { return b.TriSolve(x[0], x[1], testPos) }, ref: triSolveRef},
		{name: "gauss_rows_ss", args: func(r *rand.Rand) []arg {
			d, _, _ := dims(r)
			return []arg{in(Matrix(d, d), spd), data(Matrix(d, d), spd)}
		}, build: func(b *Builder, x []ID) ID { return b.GaussRowsSS(x[0], x[1], 7, testPos) }, ref: gaussRowsRef(7)},
		{name: "gauss_rows_ss/latent-S", args: func(r *rand.Rand) []arg {
			d, _, _ := dims(r)
			return []arg{in(Matrix(d, d), spd), in(Matrix(d, d), spd)}
		}, build: func(b *Builder, x []ID) ID { return b.GaussRowsSS(x[0], x[1], 3, testPos) }, ref: gaussRowsRef(3)},
		{name: "gauss_rows_ss/mean", args: func(r *rand.Rand) []arg {
			d, _, _ := dims(r)
			return []arg{in(Matrix(d, d), spd), data(Matrix(d, d), spd), in(Vector(d), real), in(Vector(d), real)}
		}, build: func(b *Builder, x []ID) ID { return b.GaussRowsSSMean(x[0], x[1], x[2], x[3], 5, testPos) }},
	})
}

// cholRef is the textbook Cholesky–Banachiewicz factorisation.
func cholRef(a []float64, n int) []float64 {
	l := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			s := a[i*n+j]
			for k := 0; k < j; k++ {
				s -= l[i*n+k] * l[j*n+k]
			}
			if i == j {
				l[i*n+i] = math.Sqrt(s)
			} else {
				l[i*n+j] = s / l[j*n+j]
			}
		}
	}
	return l
}

// solveRef solves A X = B by Gaussian elimination with partial pivoting.
func solveRef(v [][]float64, s []Shape) []float64 {
	n, m := s[0].Rows, s[1].Cols
	a := append([]float64(nil), v[0]...)
	x := append([]float64(nil), v[1]...)
	for c := 0; c < n; c++ {
		p := c
		for i := c + 1; i < n; i++ {
			if math.Abs(a[i*n+c]) > math.Abs(a[p*n+c]) {
				p = i
			}
		}
		for j := 0; j < n; j++ {
			a[c*n+j], a[p*n+j] = a[p*n+j], a[c*n+j]
		}
		for j := 0; j < m; j++ {
			x[c*m+j], x[p*m+j] = x[p*m+j], x[c*m+j]
		}
		for i := c + 1; i < n; i++ {
			f := a[i*n+c] / a[c*n+c]
			for j := c; j < n; j++ {
				a[i*n+j] -= f * a[c*n+j]
			}
			for j := 0; j < m; j++ {
				x[i*m+j] -= f * x[c*m+j]
			}
		}
	}
	for c := n - 1; c >= 0; c-- {
		for j := 0; j < m; j++ {
			s := x[c*m+j]
			for k := c + 1; k < n; k++ {
				s -= a[c*n+k] * x[k*m+j]
			}
			x[c*m+j] = s / a[c*n+c]
		}
	}
	return x
}

// gaussRowsRef evaluates -n/2 (d log 2π + log det C) - 1/2 trace(C⁻¹ S)
// through cholRef and solveRef.
func gaussRowsRef(n float64) func(v [][]float64, s []Shape) []float64 {
	return func(v [][]float64, s []Shape) []float64 {
		d := s[0].Rows
		l := cholRef(v[0], d)
		ld := 0.0
		for i := 0; i < d; i++ {
			ld += 2 * math.Log(l[i*d+i])
		}
		x := solveRef(v[:2], s[:2])
		tr := 0.0
		for i := 0; i < d; i++ {
			tr += x[i*d+i]
		}
		return []float64{-0.5*n*(float64(d)*log2Pi+ld) - 0.5*tr}
	}
}

// tailTol bounds the relative error of unary values and derivatives in
// their tails against mpmath.
const tailTol = 1e-15

// TestUnaryTails checks values and derivatives where a plain formula loses
// every digit: 1 − z in inv_logit's derivative and z + 1 in expm1's cancel
// for large |x|, and math.Log misreads subnormals on amd64 (golang/go issue
// 56600). References: mpmath 1.3, 80 digits.
func TestUnaryTails(t *testing.T) {
	for _, c := range []struct {
		op       Op
		x        float64
		val, der float64
	}{
		{OpInvLogit, 20, 0.99999999793884642, 2.0611536139418492e-09},
		{OpInvLogit, 40, 1, 4.2483542552915889e-18},
		{OpInvLogit, -40, 4.2483542552915889e-18, 4.2483542552915889e-18},
		{OpExpm1, -20, -0.99999999793884642, 2.0611536224385579e-09},
		{OpExpm1, -40, -1, 4.2483542552915889e-18},
		{OpLog, 1e-310, -713.80137882815416, math.Inf(1)},
		{OpLog, 5e-324, -744.44007192138122, math.Inf(1)},
	} {
		z := []float64{0}
		evalUnary(c.op, z, []float64{c.x})
		ax := []float64{0}
		gradUnary(c.op, ax, []float64{1}, []float64{c.x}, z)
		if math.Abs(z[0]-c.val) > tailTol*math.Abs(c.val) {
			t.Errorf("%s(%v) = %.17g, want %.17g", c.op, c.x, z[0], c.val)
		}
		if ax[0] != c.der && !(math.Abs(ax[0]-c.der) <= tailTol*math.Abs(c.der)) {
			t.Errorf("%s'(%v) = %.17g, want %.17g", c.op, c.x, ax[0], c.der)
		}
	}
}

// TestMaxMinTies: at a tie the derivative goes to the first extreme element
// only, and a NaN element makes the value NaN.
func TestMaxMinTies(t *testing.T) {
	for _, c := range []struct {
		x        []float64
		max      bool
		want     float64
		wantGrad []float64
	}{
		{[]float64{1, 3, 3, 2}, true, 3, []float64{0, 1, 0, 0}},
		{[]float64{2, -1, 5, -1}, false, -1, []float64{0, 1, 0, 0}},
		{[]float64{1, math.NaN(), 3}, true, math.NaN(), nil},
		{[]float64{1, math.NaN(), -3}, false, math.NaN(), nil},
	} {
		b := NewBuilder()
		x := b.Input("x", Vector(len(c.x)), testPos)
		out := b.Min(x, testPos)
		if c.max {
			out = b.Max(x, testPos)
		}
		p, err := b.Finish(out)
		if err != nil {
			t.Fatal(err)
		}
		v, err := p.Forward(c.x)
		if math.IsNaN(c.want) { // a non-finite value is an error of Forward
			if err == nil && !math.IsNaN(v) {
				t.Errorf("max %v of %v = %v, want NaN", c.max, c.x, v)
			}
			continue
		}
		g := make([]float64, len(c.x))
		if err == nil {
			err = p.Backward(g)
		}
		if err != nil || v != c.want || !slices.Equal(g, c.wantGrad) {
			t.Errorf("max %v of %v: %v with gradient %v, want %v and %v", c.max, c.x, v, g, c.want, c.wantGrad)
		}
	}
}

// TestMaxMinEmpty: the max of no elements is −∞ and the min +∞, as
// Stan's, where an index out of range used to panic; Forward reports the
// non-finite value as its positioned error.
func TestMaxMinEmpty(t *testing.T) {
	for _, isMax := range []bool{true, false} {
		b := NewBuilder()
		x := b.Input("x", Vector(0), testPos)
		out, want := b.Min(x, testPos), "result is +Inf"
		if isMax {
			out, want = b.Max(x, testPos), "result is -Inf"
		}
		p, err := b.Finish(out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Forward(nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("max %v of no elements: error %v, want %q", isMax, err, want)
		}
	}
}

// TestLogSumExpTail checks logsumexp where the other elements' share is
// below the largest one's rounding (log(1 + s) would return 0) and its
// non-finite cases. References: mpmath 1.3, 60 digits.
func TestLogSumExpTail(t *testing.T) {
	for _, c := range []struct {
		x    []float64
		want float64
	}{
		{[]float64{0, -40}, 4.2483542552915890e-18},
		{[]float64{-40, 0, -40}, 8.4967085105831780e-18},
		{[]float64{0, 0}, 0.69314718055994531},
		{[]float64{-745, -745.5}, -744.52592301581989},
		{[]float64{3, -1, 2.5}, 3.4854132258321311},
		{[]float64{math.Inf(-1), math.Inf(-1)}, math.Inf(-1)},
		{[]float64{0, math.Inf(1)}, math.Inf(1)},
		{[]float64{0, math.NaN()}, math.NaN()},
		{[]float64{math.NaN(), math.Inf(1)}, math.NaN()},
	} {
		got := logSumExp(c.x)
		if math.IsNaN(c.want) || math.IsInf(c.want, 0) {
			if !(math.IsNaN(c.want) && math.IsNaN(got)) && got != c.want {
				t.Errorf("logsumexp(%v) = %v, want %v", c.x, got, c.want)
			}
			continue
		}
		if math.Abs(got-c.want) > tailTol*math.Abs(c.want) {
			t.Errorf("logsumexp(%v) = %.17g, want %.17g", c.x, got, c.want)
		}
	}
}

func identityRef(n int) []float64 {
	v := make([]float64, n*n)
	for i := 0; i < n; i++ {
		v[i*n+i] = 1
	}
	return v
}

// detRef is the determinant by Laplace expansion along the first row.
func detRef(a []float64, n int) float64 {
	if n == 1 {
		return a[0]
	}
	det, sign := 0.0, 1.0
	for j := 0; j < n; j++ {
		minor := make([]float64, 0, (n-1)*(n-1))
		for i := 1; i < n; i++ {
			for k := 0; k < n; k++ {
				if k != j {
					minor = append(minor, a[i*n+k])
				}
			}
		}
		det += sign * a[j] * detRef(minor, n-1)
		sign = -sign
	}
	return det
}

// triSolveRef solves L X = B by forward substitution with the lower
// triangle of v[0].
func triSolveRef(v [][]float64, s []Shape) []float64 {
	n, m := s[0].Rows, s[1].Cols
	x := slices.Clone(v[1])
	for j := 0; j < m; j++ {
		for i := 0; i < n; i++ {
			t := x[i*m+j]
			for k := 0; k < i; k++ {
				t -= v[0][i*n+k] * x[k*m+j]
			}
			x[i*m+j] = t / v[0][i*n+i]
		}
	}
	return x
}

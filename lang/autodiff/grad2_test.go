package autodiff

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
)

func (d domain) String() string {
	return [...]string{real: "real", pos: "pos", negFrac: "negfrac", spd: "spd"}[d]
}

func TestGradIndexing(t *testing.T) {
	matrix := func(r *rand.Rand) []arg { n, m, _ := dims(r); return []arg{in(Matrix(n, m), real)} }
	vector := func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Vector(n), real)} }
	// Repeated indices: their adjoints must accumulate.
	idx := []int{1, 0, 1, 1, 0}
	runCases(t, []gradCase{
		{name: "elem", args: vector, build: func(b *Builder, x []ID) ID { return b.Elem(x[0], 1, testPos) },
			ref: func(v [][]float64, _ []Shape) []float64 { return v[0][1:2] }},
		{name: "at", args: matrix, build: func(b *Builder, x []ID) ID { return b.At(x[0], 1, 1, testPos) },
			ref: func(v [][]float64, s []Shape) []float64 { return []float64{v[0][s[0].Cols+1]} }},
		{name: "row", args: matrix, build: func(b *Builder, x []ID) ID { return b.Row(x[0], 1, testPos) },
			ref: func(v [][]float64, s []Shape) []float64 { c := s[0].Cols; return v[0][c : 2*c] }},
		{name: "col", args: matrix, build: func(b *Builder, x []ID) ID { return b.Col(x[0], 1, testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				var res []float64
				for i := 0; i < s[0].Rows; i++ {
					res = append(res, v[0][i*s[0].Cols+1])
				}
				return res
			}},
		{name: "slice/vector", args: vector, build: func(b *Builder, x []ID) ID { return b.Slice(x[0], 1, 2, testPos) },
			ref: func(v [][]float64, _ []Shape) []float64 { return v[0][1:2] }},
		{name: "slice/matrix", args: matrix, build: func(b *Builder, x []ID) ID { return b.Slice(x[0], 0, 2, testPos) },
			ref: func(v [][]float64, s []Shape) []float64 { return v[0][:2*s[0].Cols] }},
		{name: "gather/vector", args: vector, build: func(b *Builder, x []ID) ID { return b.Gather(x[0], idx, testPos) },
			ref: func(v [][]float64, _ []Shape) []float64 {
				var res []float64
				for _, i := range idx {
					res = append(res, v[0][i])
				}
				return res
			}},
		{name: "gather/matrix", args: matrix, build: func(b *Builder, x []ID) ID { return b.Gather(x[0], idx, testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				var res []float64
				c := s[0].Cols
				for _, i := range idx {
					res = append(res, v[0][i*c:i*c+c]...)
				}
				return res
			}},
		// The EPM likelihood shape: rowsum(W[i] .* W[j] .* r') through log1mexp.
		{name: "gather/epm", args: func(r *rand.Rand) []arg {
			n, k, _ := dims(r)
			return []arg{in(Matrix(n, k), pos), in(Vector(k), pos)}
		}, build: func(b *Builder, x []ID) ID {
			rate := b.RowSum(b.Mul(b.Mul(b.Gather(x[0], []int{0, 1, 1}, testPos), b.Gather(x[0], []int{1, 0, 1}, testPos), testPos),
				b.Transpose(x[1], testPos), testPos), testPos)
			return b.Add(b.Log1mexp(rate, testPos), rate, testPos)
		}},
	})
}

// TestGradStack checks OpStack, the vector literal: each output element's
// adjoint goes to its own scalar, adjoints of a repeated element add up,
// and constant elements get none.
func TestGradStack(t *testing.T) {
	scalars := func(ds ...bool) func(*rand.Rand) []arg {
		return func(*rand.Rand) []arg {
			as := make([]arg, len(ds))
			for i, d := range ds {
				as[i] = arg{shape: Scalar(), data: d, dom: real}
			}
			return as
		}
	}
	picks := func(idx ...int) func(v [][]float64, _ []Shape) []float64 {
		return func(v [][]float64, _ []Shape) []float64 {
			res := make([]float64, len(idx))
			for k, i := range idx {
				res[k] = v[i][0]
			}
			return res
		}
	}
	runCases(t, []gradCase{
		{name: "one", args: scalars(false), build: func(b *Builder, x []ID) ID { return b.Stack(x, testPos) }, ref: picks(0)},
		{name: "three", args: scalars(false, false, false), build: func(b *Builder, x []ID) ID { return b.Stack(x, testPos) },
			ref: picks(0, 1, 2)},
		{name: "with-data", args: scalars(false, true, false, true), build: func(b *Builder, x []ID) ID { return b.Stack(x, testPos) },
			ref: picks(0, 1, 2, 3)},
		{name: "repeated", args: scalars(false, false), build: func(b *Builder, x []ID) ID {
			return b.Stack([]ID{x[1], x[0], x[1], x[1]}, testPos)
		}, ref: picks(1, 0, 1, 1)},
		// Elements of a vector and derived scalars, stacked and used again
		// (the literal as a product's operand and a density's argument).
		{name: "of-expressions", args: func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{in(Vector(n), real), in(Scalar(), pos)}
		}, build: func(b *Builder, x []ID) ID {
			v := b.Stack([]ID{b.Elem(x[0], 1, testPos), b.Log(x[1], testPos), b.Mul(x[1], b.Elem(x[0], 0, testPos), testPos)}, testPos)
			sd := b.Stack([]ID{x[1], b.Scalar(2, testPos), b.Square(x[1], testPos)}, testPos)
			return b.Add(b.Mul(v, v, testPos), b.Density(testNormal, v, []ID{b.Scalar(0, testPos), sd}, testPos), testPos)
		}},
	})
}

// TestStackZeroAllocs: Forward and Backward through OpStack allocate
// nothing.
func TestStackZeroAllocs(t *testing.T) {
	b := NewBuilder()
	a := b.Input("a", Scalar(), testPos)
	x := b.Input("x", Vector(3), testPos)
	v := b.Stack([]ID{a, b.Elem(x, 2, testPos), b.Scalar(1.5, testPos), a}, testPos)
	y := b.Const([]float64{0.5, -1, 2, 0.25}, Vector(4), testPos)
	p, err := b.Finish(b.Density(testNormal, y, []ID{v, b.Scalar(1, testPos)}, testPos))
	if err != nil {
		t.Fatal(err)
	}
	xs, grad := []float64{0.3, 1, 2, -0.7}, make([]float64, 4)
	if _, err := p.LogJoint(xs, grad); err != nil {
		t.Fatal(err)
	}
	// d/da of -(0.5 - a)²/2 - (0.25 - a)²/2, d/dx2 of -(-1 - x2)²/2.
	if want := (0.5 - 0.3) + (0.25 - 0.3); math.Abs(grad[0]-want) > 1e-15 {
		t.Errorf("d/da = %v, want %v", grad[0], want)
	}
	if want := -1 - (-0.7); math.Abs(grad[3]-want) > 1e-15 || grad[1] != 0 || grad[2] != 0 {
		t.Errorf("d/dx = %v, want [0 0 %v]", grad[1:], want)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := p.LogJoint(xs, grad); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Forward+Backward allocates %v times per call, want 0", allocs)
	}
}

func TestGradDensity(t *testing.T) {
	normalRef := elementwiseRef(func(x []float64) float64 {
		lp, _ := normalKernel(x[0], x[1:], make([]float64, 2))
		return lp
	})
	sumOf := func(f func([][]float64, []Shape) []float64) func([][]float64, []Shape) []float64 {
		return func(v [][]float64, s []Shape) []float64 {
			t := 0.0
			for _, x := range f(v, s) {
				t += x
			}
			return []float64{t}
		}
	}
	runCases(t, []gradCase{
		{name: "normal/matrix-vector-scalar", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Matrix(n, m), real), in(Vector(n), real), in(Scalar(), pos)}
		}, build: func(b *Builder, x []ID) ID { return b.Density(testNormal, x[0], x[1:], testPos) }, ref: sumOf(normalRef)},
		{name: "normal/value-broadcast", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Vector(n), real), in(Matrix(1, m), real), in(Matrix(n, m), pos)}
		}, build: func(b *Builder, x []ID) ID { return b.Density(testNormal, x[0], x[1:], testPos) }, ref: sumOf(normalRef)},
		{name: "normal/scalars", args: func(r *rand.Rand) []arg {
			return []arg{in(Scalar(), real), in(Scalar(), real), in(Scalar(), pos)}
		}, build: func(b *Builder, x []ID) ID { return b.Density(testNormal, x[0], x[1:], testPos) }, ref: sumOf(normalRef)},
		{name: "normal/data-value", args: func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{data(Vector(n), real), in(Scalar(), real), in(Vector(n), pos)}
		}, build: func(b *Builder, x []ID) ID { return b.Density(testNormal, x[0], x[1:], testPos) }, ref: sumOf(normalRef)},
		{name: "gamma/matrix-vector-vector", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Matrix(n, m), pos), in(Vector(n), pos), in(Vector(n), pos)}
		}, build: func(b *Builder, x []ID) ID { return b.Density(testGamma, x[0], x[1:], testPos) }},
		{name: "gamma/row-data-args", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Matrix(n, m), pos), data(Matrix(1, m), pos), in(Scalar(), pos)}
		}, build: func(b *Builder, x []ID) ID { return b.Density(testGamma, x[0], x[1:], testPos) }},
	})
}

// logpdf is the density per element: the same kernel values unsummed, with
// each element's adjoint (the checks weight them at random) sent to the
// value and the arguments, also where a column value meets row arguments
// (a mixture's [n, k] table).
func TestGradLogPDF(t *testing.T) {
	normalRef := elementwiseRef(func(x []float64) float64 {
		lp, _ := normalKernel(x[0], x[1:], make([]float64, 2))
		return lp
	})
	logpdf := func(d dist.Univariate) func(b *Builder, x []ID) ID {
		return func(b *Builder, x []ID) ID { return b.LogPDF(d, x[0], x[1:], testPos) }
	}
	runCases(t, []gradCase{
		{name: "normal/matrix-vector-scalar", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Matrix(n, m), real), in(Vector(n), real), in(Scalar(), pos)}
		}, build: logpdf(testNormal), ref: normalRef},
		{name: "normal/column-value-row-args", args: func(r *rand.Rand) []arg {
			n, k, _ := dims(r)
			return []arg{in(Vector(n), real), in(Matrix(1, k), real), in(Matrix(1, k), pos)}
		}, build: logpdf(testNormal), ref: normalRef},
		{name: "normal/data-column-row-args", args: func(r *rand.Rand) []arg {
			n, k, _ := dims(r)
			return []arg{data(Vector(n), real), in(Matrix(1, k), real), in(Scalar(), pos)}
		}, build: logpdf(testNormal), ref: normalRef},
		{name: "normal/scalars", args: func(r *rand.Rand) []arg {
			return []arg{in(Scalar(), real), in(Scalar(), real), in(Scalar(), pos)}
		}, build: logpdf(testNormal), ref: normalRef},
		{name: "gamma/matrix-vector-vector", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Matrix(n, m), pos), in(Vector(n), pos), in(Vector(n), pos)}
		}, build: logpdf(testGamma)},
		// A mixture's log-likelihood: rowlogsumexp(log w' + logpdf(...)).
		{name: "mixture", args: func(r *rand.Rand) []arg {
			n, k, _ := dims(r)
			return []arg{data(Vector(n), real), in(Vector(k), pos), in(Vector(k), real), in(Vector(k), pos)}
		}, build: func(b *Builder, x []ID) ID {
			lw := b.Transpose(b.Log(x[1], testPos), testPos)
			lp := b.LogPDF(testNormal, x[0], []ID{b.Transpose(x[2], testPos), b.Transpose(x[3], testPos)}, testPos)
			return b.RowLogSumExp(b.Add(lw, lp, testPos), testPos)
		}},
	})
}

func TestGaussRowsMeanValue(t *testing.T) {
	// Σ_i log N(y_i | mu, C) computed row by row equals the scatter form.
	r := rand.New(rand.NewPCG(7, 7))
	const d, n = 3, 5
	y := make([]float64, n*d)
	for i := range y {
		y[i] = r.NormFloat64()
	}
	c := randValues(r, arg{shape: Matrix(d, d), dom: spd})
	mu := []float64{0.3, -0.2, 0.5}
	ybar := make([]float64, d)
	for k := 0; k < n; k++ {
		for i := range ybar {
			ybar[i] += y[k*d+i] / n
		}
	}
	s := make([]float64, d*d)
	for k := 0; k < n; k++ {
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				s[i*d+j] += (y[k*d+i] - ybar[i]) * (y[k*d+j] - ybar[j])
			}
		}
	}
	b := NewBuilder()
	cid := b.Input("C", Matrix(d, d), testPos)
	muid := b.Input("mu", Vector(d), testPos)
	root := b.GaussRowsSSMean(cid, b.Const(s, Matrix(d, d), testPos), b.Const(ybar, Vector(d), testPos), muid, n, testPos)
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Forward(append(append([]float64(nil), c...), mu...))
	if err != nil {
		t.Fatal(err)
	}
	l := cholRef(c, d)
	want := 0.0
	for k := 0; k < n; k++ {
		r := make([]float64, d)
		for i := range r {
			r[i] = y[k*d+i] - mu[i]
		}
		z := solveRef([][]float64{c, r}, []Shape{Matrix(d, d), Vector(d)})
		q := 0.0
		for i := range r {
			q += r[i] * z[i]
		}
		want += -0.5*float64(d)*log2Pi - 0.5*q
		for i := 0; i < d; i++ {
			want -= math.Log(l[i*d+i])
		}
	}
	if math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("GaussRowsSSMean = %.17g, want %.17g", got, want)
	}
}

func TestSpecialFunctions(t *testing.T) {
	const eulerGamma = 0.57721566490153286061
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"digamma(1)", digamma(1), -eulerGamma},
		{"digamma(0.5)", digamma(0.5), -eulerGamma - 2*math.Ln2},
		{"digamma(10)", digamma(10), 2.2517525890667211076},
		{"digamma(-0.5)", digamma(-0.5), 0.03648997397857652056},
		{"digamma(1e-8)", digamma(1e-8), -1e8 - eulerGamma + 1.6449340668482264e-8},
		{"trigamma(1)", trigamma(1), math.Pi * math.Pi / 6},
		{"trigamma(0.5)", trigamma(0.5), math.Pi * math.Pi / 2},
		{"trigamma(-0.5)", trigamma(-0.5), math.Pi*math.Pi/2 + 4},
		{"log1mexp(1e-20)", log1mexp(1e-20), math.Log(1e-20)},
		{"log1mexp(50)", log1mexp(50), -math.Exp(-50)},
		{"softplus(800)", softplus(800), 800},
		{"softplus(-800)", softplus(-800), 0},
		{"invLogit(-800)", invLogit(-800), 0},
	} {
		if math.Abs(c.got-c.want) > 1e-14*max(1, math.Abs(c.want)) {
			t.Errorf("%s = %.17g, want %.17g", c.name, c.got, c.want)
		}
	}
	// At the poles digamma is NaN (the two one-sided limits differ) and
	// trigamma +Inf (both limits are +Inf); either is reported as non-finite.
	if !math.IsNaN(digamma(0)) || !math.IsNaN(digamma(-2)) || !math.IsInf(trigamma(-1), 1) {
		t.Errorf("digamma at a pole should be NaN and trigamma +Inf")
	}
	// digamma is the derivative of lgamma, trigamma that of digamma.
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	for _, x := range []float64{0.01, 0.3, 1.4616, 2.5, 7, 9.99, 10, 30, -0.3, -2.7} {
		const h = 1e-6
		d := (lg(x+h) - lg(x-h)) / (2 * h)
		if math.Abs(digamma(x)-d) > 1e-6*max(1, math.Abs(d)) {
			t.Errorf("digamma(%g) = %.12g, fd of lgamma %.12g", x, digamma(x), d)
		}
		d = (digamma(x+h) - digamma(x-h)) / (2 * h)
		if math.Abs(trigamma(x)-d) > 1e-5*max(1, math.Abs(d)) {
			t.Errorf("trigamma(%g) = %.12g, fd of digamma %.12g", x, trigamma(x), d)
		}
	}
}

// TestGradInside checks OpInside where its values are inside (lo, hi):
// there it is the identity, and the operand's derivative passes through.
func TestGradInside(t *testing.T) {
	matrix := func(r *rand.Rand) []arg { n, m, _ := dims(r); return []arg{in(Matrix(n, m), real)} }
	runCases(t, []gradCase{
		{name: "unit", args: matrix, build: func(b *Builder, x []ID) ID {
			return b.Inside(b.InvLogit(x[0], testPos), 0, 1, testPos)
		}, ref: elementwiseRef(func(x []float64) float64 { return 1 / (1 + math.Exp(-x[0])) })},
		{name: "two-ends", args: matrix, build: func(b *Builder, x []ID) ID {
			u := b.InvLogit(x[0], testPos)
			return b.Inside(b.Add(b.Scalar(-1, testPos), b.Mul(b.Scalar(2, testPos), u, testPos), testPos), -1, 1, testPos)
		}, ref: elementwiseRef(func(x []float64) float64 { return -1 + 2/(1+math.Exp(-x[0])) })},
		{name: "lower", args: matrix, build: func(b *Builder, x []ID) ID {
			return b.Inside(b.Add(b.Scalar(3, testPos), b.Exp(x[0], testPos), testPos), 3, math.Inf(1), testPos)
		}, ref: elementwiseRef(func(x []float64) float64 { return 3 + math.Exp(x[0]) })},
		{name: "upper", args: matrix, build: func(b *Builder, x []ID) ID {
			return b.Inside(b.Sub(b.Scalar(3, testPos), b.Exp(x[0], testPos), testPos), math.Inf(-1), 3, testPos)
		}, ref: elementwiseRef(func(x []float64) float64 { return 3 - math.Exp(x[0]) })},
	})
}

// TestInsideEnds: a value computed onto an end of (lo, hi), or past it,
// becomes the float next to that end inside, and the adjoint passes
// through as the operand's. p = −1 + 2·inv_logit(x) is exactly 1 at x = 40
// and −1 at x = −40 in floats, where log(1 − p²) would be −Inf; kept
// inside it is finite, and so is its gradient.
func TestInsideEnds(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", Vector(4), testPos)
	u := b.InvLogit(x, testPos)
	p := b.Inside(b.Add(b.Scalar(-1, testPos), b.Mul(b.Scalar(2, testPos), u, testPos), testPos), -1, 1, testPos)
	one := b.Scalar(1, testPos)
	prog, err := b.Finish(b.Sum(b.Log(b.Sub(one, b.Square(p, testPos), testPos), testPos), testPos))
	if err != nil {
		t.Fatal(err)
	}
	xs := []float64{40, -40, -800, 0.5}
	lp, err := prog.Forward(xs)
	if err != nil {
		t.Fatalf("log joint %v: %v", lp, err)
	}
	below1, above := math.Nextafter(1, 0), math.Nextafter(-1, 0)
	want := []float64{below1, above, above, -1 + 2/(1+math.Exp(-0.5))}
	got := prog.Value(p)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("p(%v) = %.17g, want %.17g", xs[i], got[i], want[i])
		}
	}
	g := make([]float64, 4)
	if err := prog.Backward(g); err != nil {
		t.Fatal(err)
	}
	for i, xi := range xs {
		// d log(1 − p²)/dp at the kept value, times dp/dx = 2σ(x)σ(−x)
		s, c := dist.InvLogit(xi), dist.InvLogit(-xi)
		w := -2 * want[i] / (1 - want[i]*want[i]) * 2 * s * c
		if math.Abs(g[i]-w) > 1e-12*math.Abs(w) {
			t.Errorf("gradient at x = %v: %.17g, want %.17g", xi, g[i], w)
		}
	}
	if g[0] >= 0 || g[1] <= 0 {
		t.Errorf("gradient %v: want it to point away from the ends", g)
	}
}

// TestGradCumSum checks RowCumSum (OpCumSum) on vectors, rows and
// matrices: element j of a run gets the adjoints of every running sum of
// that run from j on.
func TestGradCumSum(t *testing.T) {
	ref := func(v [][]float64, _ []Shape) []float64 {
		out, s := make([]float64, len(v[0])), 0.0
		for i, x := range v[0] {
			s += x
			out[i] = s
		}
		return out
	}
	build := func(b *Builder, x []ID) ID { return b.RowCumSum(x[0], testPos) }
	runCases(t, []gradCase{
		{name: "vector", args: func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Vector(n), real)} }, build: build, ref: ref},
		{name: "row", args: func(r *rand.Rand) []arg { _, m, _ := dims(r); return []arg{in(Matrix(1, m), real)} }, build: build, ref: ref},
		{name: "one", args: func(*rand.Rand) []arg { return []arg{in(Vector(1), real)} }, build: build, ref: ref},
	})
	// a matrix: the running sums along each row, apart.
	runCases(t, []gradCase{
		{name: "rows", args: func(r *rand.Rand) []arg { n, m, _ := dims(r); return []arg{in(Matrix(n, m), real)} },
			build: func(b *Builder, x []ID) ID { return b.RowCumSum(x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				out, c := make([]float64, len(v[0])), s[0].Cols
				for i := range out {
					out[i] = v[0][i]
					if i%c > 0 {
						out[i] += out[i-1]
					}
				}
				return out
			}},
	})
	b := NewBuilder()
	b.RowCumSum(b.Input("a", Scalar(), testPos), testPos)
	if _, err := b.Finish(b.Scalar(0, testPos)); err == nil || !strings.Contains(err.Error(), "cumsum: needs a vector or a matrix") {
		t.Errorf("cumsum of a scalar: error %v", err)
	}
}

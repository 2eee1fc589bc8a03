package autodiff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// tvFilterRef is the filter as its closed form, written apart from the
// op's recursion: h_t = Σ_{s ≤ t} (Π_{u = s+1..t} a_u) e_s per column,
// with a [T] shared by the columns or [T, K] one per element.
func tvFilterRef(v [][]float64, s []Shape) []float64 {
	a, e := v[0], v[1]
	rows, cols := s[1].Rows, s[1].Cols
	coef := func(t, c int) float64 {
		if len(a) == rows {
			return a[t]
		}
		return a[t*cols+c]
	}
	h := make([]float64, rows*cols)
	for c := 0; c < cols; c++ {
		for t := 0; t < rows; t++ {
			for u := 0; u <= t; u++ {
				w := 1.0
				for k := u + 1; k <= t; k++ {
					w *= coef(k, c)
				}
				h[t*cols+c] += w * e[u*cols+c]
			}
		}
	}
	return h
}

// TestGradTVFilter checks OpTVFilter's values against its closed form and
// its gradient in a and e against central differences: a vector series,
// a matrix of series with a coefficient per element and with one per step
// shared by the columns, a or e data, a matrix [T, 1] a for a vector e,
// one time step (a reaches nothing: its gradient is 0), a longer
// series, and e read again beside its filter.
func TestGradTVFilter(t *testing.T) {
	build := func(b *Builder, x []ID) ID { return b.TVFilter(x[0], x[1], testPos) }
	c := func(name string, args func(r *rand.Rand) []arg) gradCase {
		return gradCase{name: name, args: args, build: build, ref: tvFilterRef}
	}
	runCases(t, []gradCase{
		c("vector", func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{in(Vector(n+3), real), in(Vector(n+3), real)}
		}),
		c("matrix", func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Matrix(n+2, m), real), in(Matrix(n+2, m), real)}
		}),
		c("shared", func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Vector(n+2), real), in(Matrix(n+2, m), real)}
		}),
		c("data-a", func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{data(Vector(n+2), prob), in(Matrix(n+2, m), real)}
		}),
		c("data-e", func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Matrix(n+2, m), prob), data(Matrix(n+2, m), pos)}
		}),
		c("column-a", func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{in(Matrix(n+2, 1), real), in(Vector(n+2), real)}
		}),
		c("one-step", func(r *rand.Rand) []arg {
			_, m, _ := dims(r)
			return []arg{in(Matrix(1, m), real), in(Matrix(1, m), real)}
		}),
		c("long", func(*rand.Rand) []arg { return []arg{in(Vector(40), negFrac), in(Vector(40), real)} }),
		// e used again beside the filter: its adjoint adds to the other's
		{name: "e-reused", args: func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{in(Vector(n+2), real), in(Vector(n+2), real)}
		},
			build: func(b *Builder, x []ID) ID { return b.Add(b.TVFilter(x[0], x[1], testPos), x[1], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				h := tvFilterRef(v, s)
				for i := range h {
					h[i] += v[1][i]
				}
				return h
			}},
	})
}

// TestTVFilterValues pins the recursion on small cases worked by hand,
// and its agreement with ar_filter when every a_t is the same phi.
func TestTVFilterValues(t *testing.T) {
	for _, c := range []struct {
		name   string
		a, e   []float64
		aShape Shape
		eShape Shape
		want   []float64
	}{
		// h = [1, 0.5·1 + 2, 2·2.5 + 3]; a[0] = 9 reaches nothing
		{"vector", []float64{9, 0.5, 2}, []float64{1, 2, 3}, Vector(3), Vector(3), []float64{1, 2.5, 8}},
		// columns [1, 1, 1] and [0, 1, 0] by [·, 2, 3]: [1, 3, 10], [0, 1, 3]
		{"shared", []float64{0, 2, 3}, []float64{1, 0, 1, 1, 1, 0}, Vector(3), Matrix(3, 2), []float64{1, 0, 3, 1, 10, 3}},
		// column 0 by [·, 2, 3], column 1 by [·, −1, 0.5]: [1, 3, 10], [0, 1, 0.5]
		{"per-element", []float64{0, 0, 2, -1, 3, 0.5}, []float64{1, 0, 1, 1, 1, 0}, Matrix(3, 2), Matrix(3, 2), []float64{1, 0, 3, 1, 10, 0.5}},
	} {
		b := NewBuilder()
		out := b.TVFilter(b.Const(c.a, c.aShape, testPos), b.Const(c.e, c.eShape, testPos), testPos)
		got, ok := b.Known(out)
		if !ok {
			t.Fatalf("%s: not known", c.name)
		}
		for i := range c.want {
			if got[i] != c.want[i] {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
	// A constant a is ar_filter's AR(1), bit for bit: the same products
	// and sums in the same order.
	r := rand.New(rand.NewPCG(3, 4))
	const T, K = 30, 2
	e := make([]float64, T*K)
	for i := range e {
		e[i] = r.NormFloat64()
	}
	a := make([]float64, T)
	for i := range a {
		a[i] = 0.7
	}
	b := NewBuilder()
	ec := b.Const(e, Matrix(T, K), testPos)
	tv, _ := b.Known(b.TVFilter(b.Const(a, Vector(T), testPos), ec, testPos))
	ar, _ := b.Known(b.ARFilter(b.Scalar(0.7, testPos), ec, testPos))
	for i := range ar {
		if tv[i] != ar[i] {
			t.Fatalf("constant a: element %d is %v, ar_filter's %v", i, tv[i], ar[i])
		}
	}
}

// TestTVFilterShapes: e must be a vector or a matrix, a a vector [T] or
// e's shape; the builder says so at the call's position.
func TestTVFilterShapes(t *testing.T) {
	for _, c := range []struct {
		a, e Shape
		want string
	}{
		{Scalar(), Vector(5), "tv_filter: a must be a vector [5] or e's shape [5], got scalar"},
		{Vector(4), Vector(5), "tv_filter: a must be a vector [5] or e's shape [5], got [4]"},
		{Matrix(5, 2), Matrix(5, 3), "tv_filter: a must be a vector [5] or e's shape [5, 3], got [5, 2]"},
		{Vector(1), Scalar(), "tv_filter: e must be a vector [T] or a matrix [T, K], got scalar"},
	} {
		b := NewBuilder()
		b.TVFilter(b.Input("a", c.a, testPos), b.Input("e", c.e, testPos), testPos)
		_, err := b.Finish(b.Scalar(0, testPos))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "test.gpp:1:1") {
			t.Errorf("tv_filter(%s, %s): error %v, want %q", c.a, c.e, err, c.want)
		}
	}
}

// TestTVFilterZeroAllocs: a gradient through the filter of a matrix of
// series, with a per element and shared, allocates nothing, and agrees
// with the gradient of the same program at the first evaluation.
func TestTVFilterZeroAllocs(t *testing.T) {
	const T, K = 60, 3
	b := NewBuilder()
	a := b.Input("a", Matrix(T, K), testPos)
	as := b.Input("as", Vector(T), testPos)
	e := b.Input("e", Matrix(T, K), testPos)
	h := b.Add(b.TVFilter(a, e, testPos), b.TVFilter(as, e, testPos), testPos)
	p, err := b.Finish(b.Sum(b.Square(h, testPos), testPos))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, p.Dim())
	for i := range x {
		x[i] = -1 + 2*r.Float64()
	}
	g, g2 := make([]float64, p.Dim()), make([]float64, p.Dim())
	if _, err := p.LogJoint(x, g); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(20, func() { p.LogJoint(x, g2) }); a != 0 {
		t.Errorf("%v allocations per LogJoint, want 0", a)
	}
	for i := range g {
		if g[i] != g2[i] {
			t.Fatalf("gradient[%d] %v after repeated evaluations, %v at the first", i, g2[i], g[i])
		}
	}
}

// BenchmarkTVFilter times a log joint with its gradient through the filter
// of a series of T steps, a and e both inputs: linear in T.
func BenchmarkTVFilter(b *testing.B) {
	for _, T := range []int{1000, 10000} {
		b.Run(fmt.Sprint(T), func(b *testing.B) {
			bd := NewBuilder()
			a := bd.Input("a", Vector(T), testPos)
			e := bd.Input("e", Vector(T), testPos)
			p, err := bd.Finish(bd.Sum(bd.Square(bd.TVFilter(a, e, testPos), testPos), testPos))
			if err != nil {
				b.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			x, g := make([]float64, p.Dim()), make([]float64, p.Dim())
			for i := range x {
				x[i] = -0.9 + 1.8*r.Float64()
			}
			b.ReportAllocs()
			for b.Loop() {
				p.LogJoint(x, g)
			}
		})
	}
}

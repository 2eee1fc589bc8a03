package autodiff

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// arFilterRef is the filter from its impulse response, written apart from
// the op's recursion: h_t = Σ_{s ≤ t} ψ_{t−s} e_s per column, with ψ_0 = 1
// and ψ_j = Σ_{k=1..p} phi_{k−1} ψ_{j−k} (ψ of a negative lag 0).
func arFilterRef(v [][]float64, s []Shape) []float64 {
	phi, e := v[0], v[1]
	rows, cols := s[1].Rows, s[1].Cols
	psi := make([]float64, rows)
	for j := range psi {
		if j == 0 {
			psi[j] = 1
			continue
		}
		for k := 1; k <= len(phi) && k <= j; k++ {
			psi[j] += phi[k-1] * psi[j-k]
		}
	}
	h := make([]float64, rows*cols)
	for c := 0; c < cols; c++ {
		for t := 0; t < rows; t++ {
			for u := 0; u <= t; u++ {
				h[t*cols+c] += psi[t-u] * e[u*cols+c]
			}
		}
	}
	return h
}

// TestGradARFilter checks OpARFilter's values against its impulse
// response and its gradient in phi and e against central differences:
// AR(1) with a scalar phi, AR(2) and AR(3) on a vector, a matrix of
// series (a scalar phi broadcast over its columns, and a vector phi), phi
// or e data, more coefficients than time steps (those beyond reach no
// element: their gradient is 0), one time step, and a longer series.
func TestGradARFilter(t *testing.T) {
	build := func(b *Builder, x []ID) ID { return b.ARFilter(x[0], x[1], testPos) }
	c := func(name string, args func(r *rand.Rand) []arg) gradCase {
		return gradCase{name: name, args: args, build: build, ref: arFilterRef}
	}
	runCases(t, []gradCase{
		c("ar1", func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Scalar(), real), in(Vector(n+3), real)} }),
		c("ar1-vector", func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Vector(1), real), in(Vector(n+3), real)} }),
		c("ar2", func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Vector(2), real), in(Vector(n+3), real)} }),
		c("ar3", func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Vector(3), real), in(Vector(n+4), real)} }),
		c("scalar-matrix", func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Scalar(), real), in(Matrix(n+2, m), real)}
		}),
		c("ar3-matrix", func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Vector(3), real), in(Matrix(n+3, m), real)}
		}),
		c("ar2-data-e", func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{in(Vector(2), real), data(Vector(n+3), real)}
		}),
		c("ar2-data-phi", func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{data(Vector(2), real), in(Matrix(n+3, m), real)}
		}),
		c("p-past-T", func(*rand.Rand) []arg { return []arg{in(Vector(5), real), in(Vector(3), real)} }),
		c("one-step", func(r *rand.Rand) []arg {
			_, m, _ := dims(r)
			return []arg{in(Vector(2), real), in(Matrix(1, m), real)}
		}),
		c("long", func(*rand.Rand) []arg { return []arg{in(Vector(2), negFrac), in(Vector(40), real)} }),
	})
}

// TestARFilterValues pins the recursion on small cases worked by hand,
// and shows that an explosive phi is the model's, not an error: the
// values grow as phi^t and stay finite while they fit in a float64.
func TestARFilterValues(t *testing.T) {
	for _, c := range []struct {
		name     string
		phi, e   []float64
		phiShape Shape
		eShape   Shape
		want     []float64
	}{
		// h = [1, 0.5·1 + 2, 0.5·2.5 + 3]
		{"ar1", []float64{0.5}, []float64{1, 2, 3}, Scalar(), Vector(3), []float64{1, 2.5, 4.25}},
		// h2 = 3 + 1·2 + (−1)·1 = 4; h3 = 0 + 4 − 2 = 2
		{"ar2", []float64{1, -1}, []float64{1, 1, 3, 0}, Vector(2), Vector(4), []float64{1, 2, 4, 2}},
		// columns [1, 1, 1] and [0, 1, 0] by phi = 2: [1, 3, 7], [0, 1, 2]
		{"matrix", []float64{2}, []float64{1, 0, 1, 1, 1, 0}, Scalar(), Matrix(3, 2), []float64{1, 0, 3, 1, 7, 2}},
		{"no-coefficients", nil, []float64{1, 2}, Vector(0), Vector(2), []float64{1, 2}},
	} {
		b := NewBuilder()
		out := b.ARFilter(b.Const(c.phi, c.phiShape, testPos), b.Const(c.e, c.eShape, testPos), testPos)
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
	// phi = 1.5 over 1000 steps of e_t = 1: h_t = (1.5^(t+1) − 1)/0.5.
	const n = 1000
	e := make([]float64, n)
	for i := range e {
		e[i] = 1
	}
	b := NewBuilder()
	got, _ := b.Known(b.ARFilter(b.Scalar(1.5, testPos), b.Const(e, Vector(n), testPos), testPos))
	want := (math.Pow(1.5, n) - 1) / 0.5
	if math.IsInf(got[n-1], 0) || math.Abs(got[n-1]-want) > 1e-9*want {
		t.Errorf("explosive filter: h[%d] = %g, want %g", n-1, got[n-1], want)
	}
}

// TestARFilterShapes: phi must be a scalar or a vector, e a vector or a
// matrix; the builder says so at the call's position.
func TestARFilterShapes(t *testing.T) {
	for _, c := range []struct {
		phi, e Shape
		want   string
	}{
		{Matrix(2, 2), Vector(5), "ar_filter: phi must be a scalar or a vector [p], got [2, 2]"},
		{Scalar(), Scalar(), "ar_filter: e must be a vector [T] or a matrix [T, K], got scalar"},
	} {
		b := NewBuilder()
		b.ARFilter(b.Input("phi", c.phi, testPos), b.Input("e", c.e, testPos), testPos)
		_, err := b.Finish(b.Scalar(0, testPos))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "test.gpp:1:1") {
			t.Errorf("ar_filter(%s, %s): error %v, want %q", c.phi, c.e, err, c.want)
		}
	}
}

// TestARFilterZeroAllocs: a gradient through the filter of a matrix of
// series by a vector phi, both inputs, allocates nothing, and agrees with
// the gradient of the same program evaluated afresh.
func TestARFilterZeroAllocs(t *testing.T) {
	const T, K = 60, 3
	b := NewBuilder()
	phi := b.Input("phi", Vector(2), testPos)
	e := b.Input("e", Matrix(T, K), testPos)
	h := b.ARFilter(phi, e, testPos)
	p, err := b.Finish(b.Sum(b.Square(h, testPos), testPos))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, p.Dim())
	for i := range x {
		x[i] = -1 + 2*r.Float64()
	}
	x[0], x[1] = 0.5, 0.3
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

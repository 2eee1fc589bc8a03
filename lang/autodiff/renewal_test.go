package autodiff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// renewalRef is the renewal equation on the seed and the series laid end
// to end, x = [I0, I], written apart from the op's indexing:
// x[S+t] = R[t] Σ_{s=1..S} w[s−1] x[S+t−s].
func renewalRef(v [][]float64, _ []Shape) []float64 {
	R, w, I0 := v[0], v[1], v[2]
	S := len(w)
	x := append(append([]float64{}, I0...), make([]float64, len(R))...)
	for t := range R {
		for s := 1; s <= S; s++ {
			x[S+t] += w[s-1] * x[S+t-s]
		}
		x[S+t] *= R[t]
	}
	return x[S:]
}

// TestGradRenewal checks OpRenewal's values against the recursion on the
// seed and series laid end to end, and its gradient in R, w and I0
// against central differences (gonum's fd): all three params at T = 30,
// S = 7 and at small random sizes, each of w and I0 as data, a series
// shorter than its seed, one lag, and R read again beside the series.
func TestGradRenewal(t *testing.T) {
	build := func(b *Builder, x []ID) ID { return b.Renewal(x[0], x[1], x[2], testPos) }
	c := func(name string, args func(r *rand.Rand) []arg) gradCase {
		return gradCase{name: name, args: args, build: build, ref: renewalRef}
	}
	runCases(t, []gradCase{
		c("T30-S7", func(*rand.Rand) []arg {
			return []arg{in(Vector(30), prob), in(Vector(7), prob), in(Vector(7), pos)}
		}),
		c("small", func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Vector(n+3), pos), in(Vector(m), prob), in(Vector(m), pos)}
		}),
		c("data-w", func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Vector(n+3), pos), data(Vector(m), prob), in(Vector(m), pos)}
		}),
		c("data-I0", func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Vector(n+3), real), in(Vector(m), real), data(Vector(m), pos)}
		}),
		c("short", func(*rand.Rand) []arg { return []arg{in(Vector(2), pos), in(Vector(5), prob), in(Vector(5), pos)} }),
		c("one-lag", func(*rand.Rand) []arg { return []arg{in(Vector(6), pos), in(Vector(1), prob), in(Vector(1), pos)} }),
		{name: "R-reused", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Vector(n+2), pos), in(Vector(m), prob), in(Vector(m), pos)}
		},
			build: func(b *Builder, x []ID) ID { return b.Add(b.Renewal(x[0], x[1], x[2], testPos), x[0], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				h := renewalRef(v, s)
				for i := range h {
					h[i] += v[0][i]
				}
				return h
			}},
	})
}

// TestRenewalValues pins the recursion on a case worked by hand: I0 =
// [1, 2] (2 the most recent), w = [0.5, 0.25] (lag 1, lag 2), R = [2, 1, 4]:
// I_0 = 2 (0.5·2 + 0.25·1) = 2.5, I_1 = 0.5·2.5 + 0.25·2 = 1.75,
// I_2 = 4 (0.5·1.75 + 0.25·2.5) = 6.
func TestRenewalValues(t *testing.T) {
	b := NewBuilder()
	out := b.Renewal(b.Const([]float64{2, 1, 4}, Vector(3), testPos), b.Const([]float64{0.5, 0.25}, Vector(2), testPos),
		b.Const([]float64{1, 2}, Vector(2), testPos), testPos)
	got, ok := b.Known(out)
	if !ok {
		t.Fatal("not known")
	}
	want := []float64{2.5, 1.75, 6}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%v, want %v", got, want)
		}
	}
}

// TestRenewalShapes: R, w and I0 must be vectors, I0 as long as w; the
// builder says so at the call's position.
func TestRenewalShapes(t *testing.T) {
	for _, c := range []struct {
		r, w, i0 Shape
		want     string
	}{
		{Scalar(), Vector(3), Vector(3), "renewal: R must be a vector [T], got scalar"},
		{Vector(5), Matrix(3, 2), Vector(3), "renewal: w must be a vector [S], got [3, 2]"},
		{Vector(5), Vector(3), Vector(4), "renewal: I0 must be a vector [3] as w, got [4]"},
		{Vector(5), Vector(3), Scalar(), "renewal: I0 must be a vector [3] as w, got scalar"},
	} {
		b := NewBuilder()
		b.Renewal(b.Input("R", c.r, testPos), b.Input("w", c.w, testPos), b.Input("I0", c.i0, testPos), testPos)
		_, err := b.Finish(b.Scalar(0, testPos))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "test.gpp:1:1") {
			t.Errorf("renewal(%s, %s, %s): error %v, want %q", c.r, c.w, c.i0, err, c.want)
		}
	}
}

// renewalProgram is a log joint through renewal(R, w, I0) of T steps and
// S lags, all three inputs.
func renewalProgram(tb testing.TB, T, S int) (*Program, []float64) {
	b := NewBuilder()
	R := b.Input("R", Vector(T), testPos)
	w := b.Input("w", Vector(S), testPos)
	i0 := b.Input("I0", Vector(S), testPos)
	p, err := b.Finish(b.Sum(b.Log(b.Renewal(R, w, i0, testPos), testPos), testPos))
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, p.Dim())
	for i := range x {
		x[i] = 0.5 + r.Float64()
	}
	for i := T; i < T+S; i++ {
		x[i] /= float64(S) // w about a pmf: the series stays in range
	}
	return p, x
}

// TestRenewalZeroAllocs: a gradient through the renewal equation
// allocates nothing and is the same at every evaluation.
func TestRenewalZeroAllocs(t *testing.T) {
	p, x := renewalProgram(t, 60, 9)
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

// BenchmarkRenewal times a log joint with its gradient through the
// renewal equation, R, w and I0 all inputs: O(T·S).
func BenchmarkRenewal(b *testing.B) {
	for _, c := range [][2]int{{200, 14}, {1000, 14}} {
		b.Run(fmt.Sprintf("T%d-S%d", c[0], c[1]), func(b *testing.B) {
			p, x := renewalProgram(b, c[0], c[1])
			g := make([]float64, p.Dim())
			b.ReportAllocs()
			for b.Loop() {
				p.LogJoint(x, g)
			}
		})
	}
}

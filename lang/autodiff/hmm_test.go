package autodiff

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
)

// hmmSoftmax builds, from free operands u [K, K] and v [K], a transition
// matrix (each row the softmax of u's row) and an initial distribution:
// the finite differences move u and v, and Gamma and rho stay stochastic.
func hmmSoftmax(b *Builder, u, v ID) (gamma, rho ID) {
	eu, ev := b.Exp(u, testPos), b.Exp(v, testPos)
	return b.Div(eu, b.RowSum(eu, testPos), testPos), b.Div(ev, b.Sum(ev, testPos), testPos)
}

// hmmRef is log p(y) by enumerating every path of states, written apart
// from the op's scaled recursion: log Σ_path rho[s0] w_0[s0] Π Γ[s_{t−1}, s_t] w_t[s_t].
func hmmRef(lo []float64, n, k int, gamma, rho []float64) float64 {
	path := make([]int, n)
	var terms []float64
	for {
		l := math.Log(rho[path[0]]) + lo[path[0]]
		for t := 1; t < n; t++ {
			l += math.Log(gamma[path[t-1]*k+path[t]]) + lo[t*k+path[t]]
		}
		terms = append(terms, l)
		i := n - 1
		for i >= 0 && path[i] == k-1 {
			path[i] = 0
			i--
		}
		if i < 0 {
			break
		}
		path[i]++
	}
	return logSumExp(terms)
}

// hmmSoftmaxRef maps the free operands to Gamma and rho as hmmSoftmax does.
func hmmSoftmaxRef(u, v []float64, k int) (gamma, rho []float64) {
	gamma, rho = make([]float64, k*k), make([]float64, k)
	for i := 0; i < k; i++ {
		s := 0.0
		for j := 0; j < k; j++ {
			gamma[i*k+j] = math.Exp(u[i*k+j])
			s += gamma[i*k+j]
		}
		for j := 0; j < k; j++ {
			gamma[i*k+j] /= s
		}
	}
	s := 0.0
	for j := range rho {
		rho[j] = math.Exp(v[j])
		s += rho[j]
	}
	for j := range rho {
		rho[j] /= s
	}
	return gamma, rho
}

// TestGradHMMMarginal checks OpHMMMarginal's value against the sum over
// every path of states and its gradient in log_omega, Gamma and rho
// against central differences: two and three states, one time step, the
// emissions data, Gamma and rho data, and log densities far below 0
// (−1000 and less, where exp underflows without the scaling).
func TestGradHMMMarginal(t *testing.T) {
	ref := func(v [][]float64, s []Shape) []float64 {
		k := s[1].Rows
		g, r := hmmSoftmaxRef(v[1], v[2], k)
		return []float64{hmmRef(v[0], s[0].Rows, k, g, r)}
	}
	build := func(b *Builder, x []ID) ID {
		g, r := hmmSoftmax(b, x[1], x[2])
		return b.HMMMarginal(x[0], g, r, testPos)
	}
	shifted := func(b *Builder, x []ID) ID { // log_omega − 1000
		g, r := hmmSoftmax(b, x[1], x[2])
		return b.HMMMarginal(b.Sub(x[0], b.Scalar(1000, testPos), testPos), g, r, testPos)
	}
	shiftedRef := func(v [][]float64, s []Shape) []float64 {
		lo := make([]float64, len(v[0]))
		for i, x := range v[0] {
			lo[i] = x - 1000
		}
		k := s[1].Rows
		g, r := hmmSoftmaxRef(v[1], v[2], k)
		return []float64{hmmRef(lo, s[0].Rows, k, g, r)}
	}
	c := func(name string, n, k int, od, gd bool) gradCase {
		return gradCase{name: name, build: build, ref: ref, args: func(*rand.Rand) []arg {
			a := []arg{in(Matrix(n, k), real), in(Matrix(k, k), real), in(Vector(k), real)}
			a[0].data = od
			a[1].data, a[2].data = gd, gd
			return a
		}}
	}
	runCases(t, []gradCase{
		c("two-states", 6, 2, false, false),
		c("three-states", 5, 3, false, false),
		c("one-step", 1, 3, false, false),
		c("data-emissions", 5, 2, true, false),
		c("data-gamma", 5, 3, false, true),
		{name: "underflow", build: shifted, ref: shiftedRef, args: func(*rand.Rand) []arg {
			return []arg{in(Matrix(6, 2), real), in(Matrix(2, 2), real), in(Vector(2), real)}
		}},
	})
}

// TestHMMMarginalValues pins two cases by hand and the errors of a Gamma
// or rho that is not stochastic. One state (K = 1) is a plain sum of the
// log densities; with Gamma the identity the chain keeps its first state,
// so p(y) = Σ_k rho_k Π_t w_t[k].
func TestHMMMarginalValues(t *testing.T) {
	eval := func(lo []float64, n, k int, gamma, rho []float64) (float64, error) {
		b := NewBuilder()
		out := b.HMMMarginal(b.Input("lo", Matrix(n, k), testPos), b.Const(gamma, Matrix(k, k), testPos), b.Const(rho, Vector(k), testPos), testPos)
		p, err := b.Finish(out)
		if err != nil {
			return 0, err
		}
		return p.LogJoint(lo, make([]float64, len(lo)))
	}
	got, err := eval([]float64{-1, -2.5, 0.25}, 3, 1, []float64{1}, []float64{1})
	if err != nil || math.Abs(got-(-3.25)) > 1e-15 {
		t.Errorf("one state: %v, %v; want -3.25", got, err)
	}
	lo := []float64{-1, -2, -0.5, -3}
	got, err = eval(lo, 2, 2, []float64{1, 0, 0, 1}, []float64{0.3, 0.7})
	want := math.Log(0.3*math.Exp(-1.5) + 0.7*math.Exp(-5))
	if err != nil || math.Abs(got-want) > 1e-14 {
		t.Errorf("identity Gamma: %v, %v; want %v", got, err, want)
	}
	for _, c := range []struct {
		gamma, rho []float64
		want       string
	}{
		{[]float64{0.9, 0.1, 0.2, 0.8}, []float64{0.5, 0.6}, "rho sums to 1.1000000000000001, not 1"},
		{[]float64{0.9, 0.2, 0.1, 0.8}, []float64{0.5, 0.5}, "row 0 of Gamma sums to 1.1000000000000001, not 1"},
		{[]float64{1.1, -0.1, 0.2, 0.8}, []float64{0.5, 0.5}, "Gamma[0, 1] is -0.1; the probabilities must be >= 0"},
	} {
		// Data Gamma and rho are checked once, by Finish, which fails
		// with the error that the first evaluation gives where they
		// change (read a param z, at 0: Gamma + 0·z, rho + 0·z).
		for _, dyn := range []bool{false, true} {
			b := NewBuilder()
			gm, rh := b.Const(c.gamma, Matrix(2, 2), testPos), b.Const(c.rho, Vector(2), testPos)
			if dyn {
				z := b.Mul(b.Scalar(0, testPos), b.Input("z", Scalar(), testPos), testPos)
				gm, rh = b.Add(gm, z, testPos), b.Add(rh, z, testPos)
			}
			p, err := b.Finish(b.HMMMarginal(b.Input("lo", Matrix(2, 2), testPos), gm, rh, testPos))
			if dyn {
				if err != nil {
					t.Fatal(err)
				}
				_, err = p.LogJoint(append(lo[:4:4], 0), make([]float64, 5))
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Gamma %v, rho %v (params %v): error %v, want %q", c.gamma, c.rho, dyn, err, c.want)
			}
		}
	}
}

// TestHMMDataChecked: Finish checks a data Gamma and rho once and marks
// them (i0), so that an evaluation checks only those that change; a
// subsampled one is checked at each evaluation.
func TestHMMDataChecked(t *testing.T) {
	gamma, rho := []float64{0.9, 0.1, 0.2, 0.8}, []float64{0.5, 0.5}
	for _, tc := range []struct {
		name             string
		dynGamma, dynRho bool
		known            int
	}{
		{"both data", false, false, hmmKnownGamma | hmmKnownRho},
		{"Gamma data", false, true, hmmKnownGamma},
		{"rho data", true, false, hmmKnownRho},
		{"neither", true, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBuilder()
			z := b.Mul(b.Scalar(0, testPos), b.Input("z", Scalar(), testPos), testPos)
			gm, rh := b.Const(gamma, Matrix(2, 2), testPos), b.Const(rho, Vector(2), testPos)
			if tc.dynGamma {
				gm = b.Add(gm, z, testPos)
			}
			if tc.dynRho {
				rh = b.Add(rh, z, testPos)
			}
			out := b.HMMMarginal(b.Input("lo", Matrix(3, 2), testPos), gm, rh, testPos)
			p, err := b.Finish(out)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.nodes[p.index(out)].i0; got != tc.known {
				t.Errorf("known %b, want %b", got, tc.known)
			}
			x := []float64{0, -1, -2, -0.5, -3, -1, -2}
			g := make([]float64, len(x))
			if _, err := p.LogJoint(x, g); err != nil {
				t.Fatal(err)
			}
			if a := testing.AllocsPerRun(20, func() { p.LogJoint(x, g) }); a != 0 {
				t.Errorf("%v allocations per LogJoint, want 0", a)
			}
		})
	}
}

// TestHMMMarginalZeroAllocs checks that a steady-state evaluation of the
// value and gradient allocates nothing and gives the same gradient again.
func TestHMMMarginalZeroAllocs(t *testing.T) {
	const n, k = 50, 3
	b := NewBuilder()
	g, r := hmmSoftmax(b, b.Input("u", Matrix(k, k), testPos), b.Input("v", Vector(k), testPos))
	p, err := b.Finish(b.HMMMarginal(b.Input("lo", Matrix(n, k), testPos), g, r, testPos))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, p.Dim())
	for i := range x {
		x[i] = -2 + 4*rng.Float64()
	}
	g1, g2 := make([]float64, p.Dim()), make([]float64, p.Dim())
	if _, err := p.LogJoint(x, g1); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(20, func() { p.LogJoint(x, g2) }); a != 0 {
		t.Errorf("%v allocations per LogJoint, want 0", a)
	}
	for i := range g1 {
		if g1[i] != g2[i] {
			t.Fatalf("gradient[%d] %v after repeated evaluations, %v at the first", i, g2[i], g1[i])
		}
	}
}

// TestHMMMarginalShapes checks the builder's errors: Stan's [K, N] layout
// of log_omega (named, with the transpose to write), a Gamma of another
// size and a rho of another length.
func TestHMMMarginalShapes(t *testing.T) {
	for _, c := range []struct {
		lo, gamma, rho Shape
		want           string
	}{
		{Matrix(2, 5), Matrix(2, 2), Vector(2), "log_omega is [2, 5] and Gamma [2, 2]: log_omega has a row per observation and a column per state, the transpose of Stan's [K, N]"},
		{Matrix(5, 2), Matrix(3, 3), Vector(2), "Gamma must be [2, 2], one row and column per column of log_omega, or [4, 4] (time-varying: row t the transition matrix from step t to t + 1, row-major), got [3, 3]"},
		{Matrix(5, 2), Matrix(2, 2), Vector(3), "rho must be a vector [2], got [3]"},
		{Vector(5), Matrix(2, 2), Vector(2), "log_omega must be a matrix [N, K], got [5]"},
		{Matrix(5, 0), Matrix(0, 0), Vector(0), "log_omega [5, 0] has no states"},
	} {
		b := NewBuilder()
		b.HMMStateProb(b.Input("lo", c.lo, testPos), b.Input("g", c.gamma, testPos), b.Input("r", c.rho, testPos), testPos)
		if err := b.Err(); err == nil || !strings.Contains(err.Error(), "hmm_hidden_state_prob: "+c.want) {
			t.Errorf("%v, %v, %v: error %v, want %q", c.lo, c.gamma, c.rho, err, c.want)
		}
	}
}

// TestHMMStateProb checks hmm_hidden_state_prob against the marginals of
// the sum over every path (P(state k at t | y) is the mass of the paths
// through k at t), for three states and six observations, also with log
// densities near −1000, and gives NaN where no path is possible.
func TestHMMStateProb(t *testing.T) {
	const n, k = 6, 3
	rng := rand.New(rand.NewPCG(8, 3))
	u, v, lo := make([]float64, k*k), make([]float64, k), make([]float64, n*k)
	for i := range u {
		u[i] = -2 + 4*rng.Float64()
	}
	for i := range v {
		v[i] = -2 + 4*rng.Float64()
	}
	gamma, rho := hmmSoftmaxRef(u, v, k)
	for i := range lo {
		lo[i] = -3 * rng.Float64()
	}
	want := make([]float64, n*k)
	path := make([]int, n)
	total := math.Inf(-1)
	var paths [][]int
	var ls []float64
	for {
		l := math.Log(rho[path[0]]) + lo[path[0]]
		for s := 1; s < n; s++ {
			l += math.Log(gamma[path[s-1]*k+path[s]]) + lo[s*k+path[s]]
		}
		paths, ls = append(paths, append([]int(nil), path...)), append(ls, l)
		total = logSumExp([]float64{total, l})
		i := n - 1
		for i >= 0 && path[i] == k-1 {
			path[i] = 0
			i--
		}
		if i < 0 {
			break
		}
		path[i]++
	}
	for p, pa := range paths {
		for s, st := range pa {
			want[s*k+st] += math.Exp(ls[p] - total)
		}
	}
	// the probabilities do not change when every log density moves by one
	// constant: the op's must not either
	for _, shift := range []float64{0, -1000} {
		x := make([]float64, len(lo))
		for i, v := range lo {
			x[i] = v + shift
		}
		b := NewBuilder()
		out := b.HMMStateProb(b.Input("lo", Matrix(n, k), testPos), b.Const(gamma, Matrix(k, k), testPos), b.Const(rho, Vector(k), testPos), testPos)
		p, err := b.Finish(b.Sum(b.Scalar(0, testPos), testPos), out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.ForwardAll(x); err != nil {
			t.Fatal(err)
		}
		got := p.Value(out)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("shift %g: P(state %d at %d) = %.15g, want %.15g", shift, i%k, i/k, got[i], want[i])
			}
		}
	}
	// no path: a row of impossible states
	b := NewBuilder()
	bad := []float64{0, 0, math.Inf(-1), math.Inf(-1)}
	out := b.HMMStateProb(b.Input("lo", Matrix(2, 2), testPos), b.Const([]float64{0.5, 0.5, 0.5, 0.5}, Matrix(2, 2), testPos), b.Const([]float64{0.5, 0.5}, Vector(2), testPos), testPos)
	p, err := b.Finish(b.Sum(b.Scalar(0, testPos), testPos), out)
	if err != nil {
		t.Fatal(err)
	}
	p.ForwardAll(bad)
	for i, v := range p.Value(out) {
		if !math.IsNaN(v) {
			t.Errorf("no possible path: element %d is %v, want NaN", i, v)
		}
	}
}

// TestHMMStateProbZeroAllocs checks that hmm_hidden_state_prob as an
// output (its forward and backward recursions) allocates nothing per
// evaluation and gives the same probabilities again.
func TestHMMStateProbZeroAllocs(t *testing.T) {
	hmmOutputZeroAllocs(t, (*Builder).HMMStateProb, func(v float64) bool { return v > 0 && v < 1 })
}

// hmmOutputZeroAllocs checks that the HMM output op (hmm_hidden_state_prob,
// hmm_viterbi) of 50 steps of 3 states, its Gamma and rho a softmax of
// inputs, allocates nothing per ForwardAll and gives the same values again,
// each one that ok accepts.
func hmmOutputZeroAllocs(t *testing.T, op func(b *Builder, lo, gamma, rho ID, pos ast.Pos) ID, ok func(float64) bool) {
	t.Helper()
	const n, k = 50, 3
	b := NewBuilder()
	g, r := hmmSoftmax(b, b.Input("u", Matrix(k, k), testPos), b.Input("v", Vector(k), testPos))
	out := op(b, b.Input("lo", Matrix(n, k), testPos), g, r, testPos)
	p, err := b.Finish(b.Sum(b.Scalar(0, testPos), testPos), out)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, p.Dim())
	for i := range x {
		x[i] = -2 + 4*rng.Float64()
	}
	if _, err := p.ForwardAll(x); err != nil {
		t.Fatal(err)
	}
	first := slices.Clone(p.Value(out))
	if a := testing.AllocsPerRun(20, func() { p.ForwardAll(x) }); a != 0 {
		t.Errorf("%v allocations per ForwardAll, want 0", a)
	}
	for i, v := range p.Value(out) {
		if v != first[i] || !ok(v) {
			t.Fatalf("element %d: %v after repeated evaluations, %v at the first", i, v, first[i])
		}
	}
}

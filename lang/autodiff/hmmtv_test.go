package autodiff

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// hmmSoftmaxTV builds, from free operands u [N − 1, K·K] and v [K], a
// time-varying transition matrix (each K-block of a row of u the softmax
// of its entries) and an initial distribution, as hmmSoftmax does for one
// [K, K].
func hmmSoftmaxTV(b *Builder, u, v ID, k int) (gamma, rho ID) {
	su := b.Shape(u)
	blocks := b.Reshape(u, Matrix(su.Rows*k, k), testPos)
	eu, ev := b.Exp(blocks, testPos), b.Exp(v, testPos)
	g := b.Div(eu, b.RowSum(eu, testPos), testPos)
	return b.Reshape(g, su, testPos), b.Div(ev, b.Sum(ev, testPos), testPos)
}

// hmmRefTV is log p(y) of a time-varying Gamma [N − 1, K·K] by summing
// over every path of states, with the transition into step t read from
// row t − 1, apart from the op's recursion.
func hmmRefTV(lo []float64, n, k int, gamma, rho []float64) float64 {
	path := make([]int, n)
	var terms []float64
	for {
		l := math.Log(rho[path[0]]) + lo[path[0]]
		for t := 1; t < n; t++ {
			l += math.Log(gamma[(t-1)*k*k+path[t-1]*k+path[t]]) + lo[t*k+path[t]]
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

// TestGradHMMMarginalTimeVarying checks hmm_marginal with a Gamma
// [N − 1, K·K] (row t the transition matrix from step t to t + 1) against
// the sum over every path, and its gradient in log_omega, every step's
// Gamma and rho against central differences (gonum's fd).
func TestGradHMMMarginalTimeVarying(t *testing.T) {
	ref := func(v [][]float64, s []Shape) []float64 {
		n, k := s[0].Rows, s[0].Cols
		g := make([]float64, len(v[1]))
		for r := 0; r < len(v[1])/k; r++ { // each K-block's softmax
			row := v[1][r*k : r*k+k]
			tot := 0.0
			for j, x := range row {
				g[r*k+j] = math.Exp(x)
				tot += g[r*k+j]
			}
			for j := range row {
				g[r*k+j] /= tot
			}
		}
		_, rho := hmmSoftmaxRef(make([]float64, k*k), v[2], k)
		return []float64{hmmRefTV(v[0], n, k, g, rho)}
	}
	c := func(name string, n, k int, od bool) gradCase {
		return gradCase{name: name, ref: ref,
			build: func(b *Builder, x []ID) ID {
				g, r := hmmSoftmaxTV(b, x[1], x[2], k)
				return b.HMMMarginal(x[0], g, r, testPos)
			},
			args: func(*rand.Rand) []arg {
				a := []arg{in(Matrix(n, k), real), in(Matrix(n-1, k*k), real), in(Vector(k), real)}
				a[0].data = od
				return a
			}}
	}
	runCases(t, []gradCase{
		c("two-states", 6, 2, false),
		c("three-states", 5, 3, false),
		c("two-steps", 2, 3, false),
		c("data-emissions", 5, 2, true),
	})
}

// A time-varying Gamma whose rows all hold one fixed Gamma is that Gamma:
// hmm_marginal, its gradient (the rows' summed), hmm_hidden_state_prob,
// hmm_viterbi and hmm_latent_rng (at one seed) agree with the [K, K] form,
// for two and three states.
func TestHMMTimeVaryingEqualsFixed(t *testing.T) {
	for _, k := range []int{2, 3} {
		const n = 7
		rng := rand.New(rand.NewPCG(uint64(k), 11))
		u, v, lo := make([]float64, k*k), make([]float64, k), make([]float64, n*k)
		for i := range u {
			u[i] = -2 + 4*rng.Float64()
		}
		for i := range v {
			v[i] = -2 + 4*rng.Float64()
		}
		for i := range lo {
			lo[i] = -3 * rng.Float64()
		}
		gamma, rho := hmmSoftmaxRef(u, v, k)
		tv := make([]float64, 0, (n-1)*k*k)
		for range n - 1 {
			tv = append(tv, gamma...)
		}
		type result struct {
			lp             float64
			glo, ggam      []float64
			prob, map_, rz []float64
		}
		run := func(g []float64, gs Shape) result {
			b := NewBuilder()
			loID := b.Input("lo", Matrix(n, k), testPos)
			gID := b.Input("g", gs, testPos)
			rID := b.Const(rho, Vector(k), testPos)
			prob := b.HMMStateProb(loID, gID, rID, testPos)
			vit := b.HMMViterbi(loID, gID, rID, testPos)
			z := b.RandHMMLatent(loID, gID, rID, testPos)
			p, err := b.Finish(b.HMMMarginal(loID, gID, rID, testPos), prob, vit, z)
			if err != nil {
				t.Fatal(err)
			}
			x := append(append([]float64(nil), lo...), g...)
			grad := make([]float64, len(x))
			lp, err := p.LogJoint(x, grad)
			if err != nil {
				t.Fatal(err)
			}
			p.SetRand(rand.New(rand.NewPCG(9, 9)))
			if _, err := p.ForwardAll(x); err != nil {
				t.Fatal(err)
			}
			if err := p.OutputErr(); err != nil {
				t.Fatal(err)
			}
			return result{lp, grad[:n*k], grad[n*k:], append([]float64(nil), p.Value(prob)...), append([]float64(nil), p.Value(vit)...), append([]float64(nil), p.Value(z)...)}
		}
		fixed, varying := run(gamma, Matrix(k, k)), run(tv, Matrix(n-1, k*k))
		close := func(what string, a, b []float64, tol float64) {
			t.Helper()
			for i := range a {
				if math.Abs(a[i]-b[i]) > tol {
					t.Errorf("K = %d: %s[%d] time-varying %.17g, fixed %.17g", k, what, i, b[i], a[i])
				}
			}
		}
		close("log p(y)", []float64{fixed.lp}, []float64{varying.lp}, 0)
		close("d/dlog_omega", fixed.glo, varying.glo, 0)
		close("hmm_hidden_state_prob", fixed.prob, varying.prob, 0)
		close("hmm_viterbi", fixed.map_, varying.map_, 0)
		close("hmm_latent_rng", fixed.rz, varying.rz, 0)
		summed := make([]float64, k*k) // d/dΓ of the fixed form is the sum over steps
		for i, g := range varying.ggam {
			summed[i%(k*k)] += g
		}
		close("d/dGamma summed over steps", fixed.ggam, summed, 1e-12)
	}
}

// A time-varying Gamma's shape is [N − 1, K·K]; a K-block that is not a
// simplex is named by its row, block and step, in every HMM function.
func TestHMMTimeVaryingErrors(t *testing.T) {
	b := NewBuilder()
	b.HMMMarginal(b.Input("lo", Matrix(5, 2), testPos), b.Input("g", Matrix(5, 4), testPos), b.Input("r", Vector(2), testPos), testPos)
	if err := b.Err(); err == nil || !strings.Contains(err.Error(), "Gamma must be [2, 2], one row and column per column of log_omega, or [4, 4] (time-varying: row t the transition matrix from step t to t + 1, row-major), got [5, 4]") {
		t.Errorf("shape error %v", err)
	}
	good := []float64{0.9, 0.1, 0.2, 0.8}
	bad := []float64{0.9, 0.1, 0.3, 0.8} // state 1's block sums to 1.1
	neg := []float64{0.9, 0.1, 1.2, -0.2}
	for _, c := range []struct {
		row  []float64
		want string
	}{
		{bad, "row 2 of the time-varying Gamma, its entries 2..3 (the transition from state 1 at step 2 to step 3), sums to 1.1000000000000001, not 1"},
		{neg, "Gamma[2, 3] is -0.2; the probabilities must be >= 0"},
	} {
		g := append(append(append(append([]float64(nil), good...), good...), c.row...), good...)
		for _, dyn := range []bool{false, true} {
			b := NewBuilder()
			gm := b.Const(g, Matrix(4, 4), testPos)
			if dyn {
				gm = b.Add(gm, b.Mul(b.Scalar(0, testPos), b.Input("z", Scalar(), testPos), testPos), testPos)
			}
			p, err := b.Finish(b.HMMMarginal(b.Input("lo", Matrix(5, 2), testPos), gm, b.Const([]float64{0.5, 0.5}, Vector(2), testPos), testPos))
			if dyn {
				if err != nil {
					t.Fatal(err)
				}
				_, err = p.LogJoint(make([]float64, 11), make([]float64, 11))
			}
			if err == nil || !strings.Contains(err.Error(), "hmm_marginal: "+c.want) {
				t.Errorf("params %v: error %v, want %q", dyn, err, c.want)
			}
		}
	}
}

// With a Gamma that changes at every step, hmm_hidden_state_prob gives the
// marginals of the enumerated path probabilities, hmm_viterbi the most
// probable path, and hmm_latent_rng draws states at each step with those
// marginals' frequencies (20000 draws, within 5 binomial sds).
func TestHMMTimeVaryingPaths(t *testing.T) {
	const n, k = 5, 3
	rng := rand.New(rand.NewPCG(21, 4))
	lo, rho := make([]float64, n*k), []float64{0.5, 0.3, 0.2}
	for i := range lo {
		lo[i] = -3 * rng.Float64()
	}
	gamma := make([]float64, (n-1)*k*k)
	for r := 0; r < (n-1)*k; r++ { // each block a random simplex, some strongly peaked
		tot := 0.0
		for j := 0; j < k; j++ {
			gamma[r*k+j] = math.Exp(4 * rng.Float64())
			tot += gamma[r*k+j]
		}
		for j := 0; j < k; j++ {
			gamma[r*k+j] /= tot
		}
	}
	// enumerate: paths numbered with s_0 the most significant digit
	paths := int(math.Pow(k, n))
	lp := make([]float64, paths)
	s := make([]int, n)
	best, bestID := math.Inf(-1), -1
	for id := range lp {
		r := id
		for t := n - 1; t >= 0; t-- {
			s[t], r = r%k, r/k
		}
		l := math.Log(rho[s[0]]) + lo[s[0]]
		for t := 1; t < n; t++ {
			l += math.Log(gamma[(t-1)*k*k+s[t-1]*k+s[t]]) + lo[t*k+s[t]]
		}
		lp[id] = l
		if l > best {
			best, bestID = l, id
		}
	}
	total := logSumExp(lp)
	marg := make([]float64, n*k)
	for id, l := range lp {
		r := id
		for t := n - 1; t >= 0; t-- {
			marg[t*k+r%k] += math.Exp(l - total)
			r /= k
		}
	}
	b := NewBuilder()
	x := b.Input("x", Scalar(), testPos)
	loID, gID, rID := b.Const(lo, Matrix(n, k), testPos), b.Const(gamma, Matrix(n-1, k*k), testPos), b.Const(rho, Vector(k), testPos)
	prob, vit, z := b.HMMStateProb(loID, gID, rID, testPos), b.HMMViterbi(loID, gID, rID, testPos), b.RandHMMLatent(loID, gID, rID, testPos)
	p, err := b.Finish(b.Mul(x, x, testPos), prob, vit, z)
	if err != nil {
		t.Fatal(err)
	}
	p.SetRand(rand.New(rand.NewPCG(7, 7)))
	if _, err := p.ForwardAll([]float64{0}); err != nil {
		t.Fatal(err)
	}
	for i, v := range p.Value(prob) {
		if math.Abs(v-marg[i]) > 1e-12 {
			t.Errorf("P(state %d at %d) = %.15g, enumeration %.15g", i%k, i/k, v, marg[i])
		}
	}
	for t2, r := n-1, bestID; t2 >= 0; t2-- {
		if got := p.Value(vit)[t2]; got != float64(r%k) {
			t.Errorf("hmm_viterbi state at %d: %v, enumeration %d", t2, got, r%k)
		}
		r /= k
	}
	const draws = 20000
	counts := make([]float64, n*k)
	for range draws {
		if _, err := p.Forward([]float64{0}); err != nil {
			t.Fatal(err)
		}
		for t2, v := range p.Value(z) {
			counts[t2*k+int(v)]++
		}
	}
	for i, c := range counts {
		sd := math.Sqrt(draws * marg[i] * (1 - marg[i]))
		if math.Abs(c-draws*marg[i]) > 5*sd+1 {
			t.Errorf("hmm_latent_rng: state %d at %d drawn %g times, expected %.1f (sd %.1f)", i%k, i/k, c, draws*marg[i], sd)
		}
	}
}

package autodiff

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// viterbiRef is the most likely path by enumerating all K^N of them,
// written apart from the op's recursion: each path's log probability
// log rho[s0] + lo_0[s0] + Σ_t (log Γ[s_{t−1}, s_t] + lo_t[s_t]), summed
// left to right as the recursion does, so equal paths tie exactly. Among
// paths of the largest, the one smallest read from its last state back
// (the op's rule: the lowest last state, then the lowest predecessor
// of each) wins. nil when every path is impossible.
func viterbiRef(lo []float64, n, k int, gamma, rho []float64) (best []int, score float64) {
	path := make([]int, n)
	score = math.Inf(-1)
	// smaller reports whether a is smaller than b read from the end
	smaller := func(a, b []int) bool {
		for t := n - 1; t >= 0; t-- {
			if a[t] != b[t] {
				return a[t] < b[t]
			}
		}
		return false
	}
	for {
		l := math.Log(rho[path[0]]) + lo[path[0]]
		for t := 1; t < n; t++ {
			l = l + math.Log(gamma[path[t-1]*k+path[t]]) + lo[t*k+path[t]]
		}
		if l > score || l == score && best != nil && smaller(path, best) {
			score, best = l, slices.Clone(path)
		}
		i := n - 1
		for i >= 0 && path[i] == k-1 {
			path[i] = 0
			i--
		}
		if i < 0 {
			return best, score
		}
		path[i]++
	}
}

// viterbiEval returns hmm_viterbi's path for log_omega lo [n, k] (an input)
// and a constant Gamma and rho, and the output error.
func viterbiEval(t *testing.T, lo []float64, n, k int, gamma, rho []float64) ([]float64, error) {
	t.Helper()
	b := NewBuilder()
	out := b.HMMViterbi(b.Input("lo", Matrix(n, k), testPos), b.Const(gamma, Matrix(k, k), testPos), b.Const(rho, Vector(k), testPos), testPos)
	p, err := b.Finish(b.Sum(b.Scalar(0, testPos), testPos), out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.ForwardAll(lo); err != nil {
		t.Fatal(err)
	}
	return slices.Clone(p.Value(out)), p.OutputErr()
}

// TestHMMViterbi checks hmm_viterbi against the best of all 3^5 paths on
// random cases: log densities some of which are −Inf (impossible
// emissions), and in some cases a Gamma with zeros (forbidden moves).
func TestHMMViterbi(t *testing.T) {
	const n, k = 5, 3
	for seed := uint64(1); seed <= 12; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		u, v, lo := make([]float64, k*k), make([]float64, k), make([]float64, n*k)
		for i := range u {
			u[i] = -2 + 4*rng.Float64()
		}
		for i := range v {
			v[i] = -2 + 4*rng.Float64()
		}
		gamma, rho := hmmSoftmaxRef(u, v, k)
		if seed%3 == 0 { // a left-to-right chain: no move back
			for i := 0; i < k; i++ {
				s := 0.0
				for j := 0; j < k; j++ {
					if j < i {
						gamma[i*k+j] = 0
					}
					s += gamma[i*k+j]
				}
				for j := 0; j < k; j++ {
					gamma[i*k+j] /= s
				}
			}
		}
		infs := 0
		for i := range lo {
			lo[i] = -4 * rng.Float64()
			if rng.Float64() < 0.25 {
				lo[i] = math.Inf(-1)
				infs++
			}
		}
		want, score := viterbiRef(lo, n, k, gamma, rho)
		// (the output error names the input's −Inf, which a model's
		// log_omega computed from data does not)
		got, _ := viterbiEval(t, lo, n, k, gamma, rho)
		if want == nil {
			for i, s := range got {
				if !math.IsNaN(s) {
					t.Errorf("seed %d: no possible path, state %d is %v, want NaN", seed, i, s)
				}
			}
			continue
		}
		for i := range want {
			if got[i] != float64(want[i]) {
				t.Errorf("seed %d (%d −Inf entries): path %v, want %v (log probability %.6g)", seed, infs, got, want, score)
				break
			}
		}
	}
}

// TestHMMViterbiTies checks that equally likely paths give the lowest
// states: all paths equal (uniform everything), and states 1 and 2
// interchangeable (their columns of log_omega equal, Gamma symmetric in
// them) while state 0 is unlikely, so the path uses 1 and never 2.
func TestHMMViterbiTies(t *testing.T) {
	third := 1.0 / 3
	uni := []float64{third, third, third, third, third, third, third, third, third}
	got, err := viterbiEval(t, make([]float64, 12), 4, 3, uni, []float64{third, third, third})
	if err != nil || !slices.Equal(got, []float64{0, 0, 0, 0}) {
		t.Errorf("all paths equal: %v, %v; want [0 0 0 0]", got, err)
	}
	gamma := []float64{0.2, 0.4, 0.4, 0.1, 0.6, 0.3, 0.1, 0.3, 0.6}
	lo := []float64{-5, -1, -1, -5, -2, -2, -5, -0.5, -0.5, -5, -1, -1}
	want, _ := viterbiRef(lo, 4, 3, gamma, []float64{0.2, 0.4, 0.4})
	got, err = viterbiEval(t, lo, 4, 3, gamma, []float64{0.2, 0.4, 0.4})
	if err != nil || !slices.Equal(got, []float64{1, 1, 1, 1}) || !slices.Equal(want, []int{1, 1, 1, 1}) {
		t.Errorf("states 1 and 2 interchangeable: %v, %v (enumeration %v); want [1 1 1 1]", got, err, want)
	}
	// a tie at the end alone: the last state the lower one, the earlier
	// ones those leading to it
	gamma = []float64{0.5, 0.5, 0, 0, 0, 1, 0, 1, 0}
	lo = []float64{0, -9, -9, -9, 0, 0}
	got, err = viterbiEval(t, lo, 2, 3, gamma, []float64{1, 0, 0})
	if err != nil || !slices.Equal(got, []float64{0, 1}) {
		t.Errorf("a tie at the last step: %v, %v; want [0 1]", got, err)
	}
}

// TestHMMViterbiInvalid checks that no possible path or a NaN log density
// gives NaN states, and that a Gamma or rho not stochastic, or arguments
// of the wrong shapes, are errors naming hmm_viterbi.
func TestHMMViterbiInvalid(t *testing.T) {
	id := []float64{1, 0, 0, 1}
	for _, lo := range [][]float64{
		{0, math.Inf(-1), math.Inf(-1), 0}, // stuck in state 0, impossible at t = 1
		{0, 0, math.NaN(), 0},
		{0, 0, math.Inf(1), 0},
	} {
		got, _ := viterbiEval(t, lo, 2, 2, id, []float64{1, 0})
		for i, v := range got {
			if !math.IsNaN(v) {
				t.Errorf("log_omega %v: state %d is %v, want NaN", lo, i, v)
			}
		}
	}
	for _, c := range []struct {
		gamma, rho []float64
		want       string
	}{
		{[]float64{0.9, 0.2, 0.1, 0.8}, []float64{0.5, 0.5}, "hmm_viterbi: row 0 of Gamma sums to 1.1000000000000001, not 1"},
		{[]float64{0.9, 0.1, 0.2, 0.8}, []float64{0.5, 0.6}, "hmm_viterbi: rho sums to 1.1000000000000001, not 1"},
		{[]float64{1.1, -0.1, 0.2, 0.8}, []float64{0.5, 0.5}, "hmm_viterbi: Gamma[0, 1] is -0.1; the probabilities must be >= 0"},
	} {
		// Gamma and rho read a param z (at 0), so the evaluation checks them
		b := NewBuilder()
		z := b.Mul(b.Scalar(0, testPos), b.Input("z", Scalar(), testPos), testPos)
		gm, rh := b.Add(b.Const(c.gamma, Matrix(2, 2), testPos), z, testPos), b.Add(b.Const(c.rho, Vector(2), testPos), z, testPos)
		out := b.HMMViterbi(b.Input("lo", Matrix(2, 2), testPos), gm, rh, testPos)
		p, err := b.Finish(b.Sum(b.Scalar(0, testPos), testPos), out)
		if err == nil {
			_, err = p.ForwardAll([]float64{0, 0, 0, 0, 0})
			if err == nil {
				err = p.OutputErr()
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Gamma %v, rho %v: error %v, want %q", c.gamma, c.rho, err, c.want)
		}
	}
	b := NewBuilder()
	b.HMMViterbi(b.Input("lo", Matrix(2, 5), testPos), b.Input("g", Matrix(2, 2), testPos), b.Input("r", Vector(2), testPos), testPos)
	if err := b.Err(); err == nil || !strings.Contains(err.Error(), "hmm_viterbi: log_omega is [2, 5] and Gamma [2, 2]") {
		t.Errorf("Stan's layout: error %v", err)
	}
}

// TestHMMViterbiZeroAllocs checks that hmm_viterbi as an output allocates
// nothing per evaluation and gives the same path again.
func TestHMMViterbiZeroAllocs(t *testing.T) {
	hmmOutputZeroAllocs(t, (*Builder).HMMViterbi, func(v float64) bool { return v == 0 || v == 1 || v == 2 })
}

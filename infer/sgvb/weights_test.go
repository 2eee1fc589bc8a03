package sgvb

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// stackObjective is Σ_i log Σ_k w_k exp(lpd[k][i]), computed directly.
func stackObjective(lpd [][]float64, w []float64) float64 {
	f := 0.0
	for i := range lpd[0] {
		s := 0.0
		for k := range lpd {
			s += w[k] * math.Exp(lpd[k][i])
		}
		f += math.Log(s)
	}
	return f
}

// TestStackingTwoGroups checks the closed form of two models and two kinds
// of observation: n1 where model 1 gives density 1 and model 2 c, n2 the
// other way round. The optimum of n1 log(w + (1−w)c) + n2 log(wc + 1 − w)
// is w = (n1 − n2·c)/((1 − c)(n1 + n2)), clipped to [0, 1].
func TestStackingTwoGroups(t *testing.T) {
	for _, tc := range []struct {
		n1, n2 int
		c      float64
	}{{3, 1, 0.1}, {5, 5, 0.01}, {1, 7, 0.05}, {2, 30, 0.2}, {30, 2, 0.2}, {4, 9, 1e-6}} {
		lpd := [][]float64{{}, {}}
		for range tc.n1 {
			lpd[0] = append(lpd[0], 0)
			lpd[1] = append(lpd[1], math.Log(tc.c))
		}
		for range tc.n2 {
			lpd[0] = append(lpd[0], math.Log(tc.c))
			lpd[1] = append(lpd[1], 0)
		}
		n1, n2 := float64(tc.n1), float64(tc.n2)
		want := (n1 - n2*tc.c) / ((1 - tc.c) * (n1 + n2))
		want = math.Min(math.Max(want, 0), 1)
		w, err := StackingWeights(lpd)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if math.Abs(w[0]-want) > 1e-10 || math.Abs(w[0]+w[1]-1) > 1e-15 {
			t.Errorf("%+v: weights %v, want w₁ = %.15g", tc, w, want)
		}
		if want == 0 && w[0] != 0 {
			t.Errorf("%+v: w₁ = %g, want exactly 0 at the boundary", tc, w[0])
		}
	}
}

// TestStackingOutlier checks the closed form of a fit slightly better at
// n − 1 observations (density 1 against a = e^−b) that all but rules out
// the last one (density e^−c against 1), as a normal against a Student-t
// with an outlier: the optimum of
// (n−1) log(w + (1−w)a) + log(w e^−c + 1 − w) is
// w = ((n−1)(1 − a) − a(1 − e^−c)) / (n(1 − a)(1 − e^−c)). A Newton step
// from w = ½ lands on w = 1, where the last observation's density is e^−c
// and the Hessian's entries differ by e^{2c}; the bordered solve of all
// free models there failed as singular for c from 20 to 300.
func TestStackingOutlier(t *testing.T) {
	for _, n := range []int{100, 1000} {
		for _, b := range []float64{0.5, 1, 2} {
			for _, c := range []float64{20, 40, 100, 300} {
				lpd := [][]float64{make([]float64, n), make([]float64, n)}
				for i := range n {
					lpd[1][i] = -b
				}
				lpd[0][n-1], lpd[1][n-1] = -c, 0
				a, e, m := math.Exp(-b), math.Exp(-c), float64(n)
				want := ((m-1)*(1-a) - a*(1-e)) / (m * (1 - a) * (1 - e))
				w, err := StackingWeights(lpd)
				if err != nil {
					t.Errorf("n %d, b %g, c %g: %v", n, b, c, err)
					continue
				}
				if math.Abs(w[0]-want) > 1e-10 || math.Abs(w[0]+w[1]-1) > 1e-15 {
					t.Errorf("n %d, b %g, c %g: weights %v, want w₁ = %.15g", n, b, c, w, want)
				}
			}
		}
	}
}

// TestStackingOptimal checks the optimality conditions and that no point
// of the simplex scores higher, on random problems of 2–6 models, with
// models of distinct quality, near duplicates and one dominated model.
func TestStackingOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 60 {
		K := 2 + trial%5
		n := 5 + rng.IntN(200)
		lpd := make([][]float64, K)
		for k := range lpd {
			lpd[k] = make([]float64, n)
			off := rng.NormFloat64()
			for i := range lpd[k] {
				lpd[k][i] = off + 2*rng.NormFloat64()
			}
		}
		if trial%3 == 0 { // model 2 nearly duplicates model 1
			for i := range lpd[1] {
				lpd[1][i] = lpd[0][i] + 1e-3*rng.NormFloat64()
			}
		}
		if trial%4 == 1 { // the last model worse than the first everywhere
			for i := range lpd[K-1] {
				lpd[K-1][i] = lpd[0][i] - 0.5 - rng.Float64()
			}
		}
		w, err := StackingWeights(lpd)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		sum := 0.0
		for _, v := range w {
			if !(v >= 0) {
				t.Fatalf("trial %d: negative weight in %v", trial, w)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-14 {
			t.Fatalf("trial %d: weights sum to %v", trial, sum)
		}
		// Optimality: g_k = (1/n) Σ p_ki / Σ_j w_j p_ji is 1 where w_k > 0
		// and at most 1 where w_k = 0.
		for k := range w {
			g := 0.0
			for i := range n {
				s := 0.0
				for j := range w {
					s += w[j] * math.Exp(lpd[j][i]-lpd[k][i])
				}
				g += 1 / s
			}
			g /= float64(n)
			if (w[k] > 0 && math.Abs(g-1) > 1e-9) || (w[k] == 0 && g > 1+1e-9) {
				t.Errorf("trial %d: model %d has weight %g and gradient %.12f", trial, k, w[k], g)
			}
		}
		if trial%4 == 1 && w[K-1] != 0 {
			t.Errorf("trial %d: the dominated model has weight %g, want 0", trial, w[K-1])
		}
		best := stackObjective(lpd, w)
		for range 200 {
			v := make([]float64, K)
			s := 0.0
			for k := range v {
				v[k] = rng.ExpFloat64()
				s += v[k]
			}
			for k := range v {
				v[k] /= s
			}
			if f := stackObjective(lpd, v); f > best+1e-9 {
				t.Fatalf("trial %d: %v scores %.12f, above the weights' %v %.12f", trial, v, f, w, best)
			}
		}
	}
}

// TestStackingHard checks convergence and optimality on 400 random problems
// of the kinds that broke the first version: duplicated models (exactly,
// or to 1e-14 or 1e-10), which tie when they leave and have no curvature
// along their difference; observations that a model all but rules out
// (100 nats below its others) or rules out (−Inf); one to three
// observations (else 100 to 300) for up to 9 models, where the Hessian is
// singular; models worse than the first everywhere. The optimality
// conditions are checked as in TestStackingOptimal, and the mean log score
// against 2000 iterations of the EM fixed point w_k ← w_k (1/n) Σ_i p_ki/s_i,
// which only climbs and can only fall short of the maximum.
func TestStackingHard(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 22))
	for trial := range 400 {
		K := 2 + rng.IntN(8)
		n := 100 + rng.IntN(200)
		if trial%4 == 0 {
			n = 1 + rng.IntN(3)
		}
		sd := []float64{0.01, 0.3, 1, 3, 10}[rng.IntN(5)]
		outlier := []float64{0, 0.01, 0.1}[rng.IntN(3)]
		lpd := make([][]float64, K)
		for k := range lpd {
			lpd[k] = make([]float64, n)
			off := rng.NormFloat64()
			for i := range lpd[k] {
				lpd[k][i] = off + sd*rng.NormFloat64()
				if rng.Float64() < outlier {
					lpd[k][i] -= 100 * rng.Float64()
				}
			}
			switch {
			case k > 0 && rng.IntN(3) == 0:
				j, eps := rng.IntN(k), []float64{0, 1e-14, 1e-10}[rng.IntN(3)]
				for i := range lpd[k] {
					lpd[k][i] = lpd[j][i] + eps*rng.NormFloat64()
				}
			case k > 0 && rng.IntN(6) == 0:
				for i := range lpd[k] {
					lpd[k][i] = lpd[0][i] - rng.Float64()
				}
			}
			if k > 0 && rng.IntN(10) == 0 {
				lpd[k][rng.IntN(n)] = math.Inf(-1)
			}
		}
		w, err := StackingWeights(lpd)
		if err != nil {
			t.Errorf("trial %d (%d models, %d observations): %v", trial, K, n, err)
			continue
		}
		// p_ki = exp(lpd_ki − max_j lpd_ji) (weightInput, checked against
		// lpd itself by TestStackingOptimal); the mean log score and its
		// gradient g_k = (1/n) Σ_i p_ki/s_i.
		p, err := weightInput(lpd)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		mix := func(w []float64, i int) float64 {
			s := 0.0
			for k := range w {
				s += w[k] * p[k][i]
			}
			return s
		}
		score := func(w []float64) float64 {
			f := 0.0
			for i := range n {
				f += math.Log(mix(w, i))
			}
			return f / float64(n)
		}
		grad := func(w []float64) []float64 {
			g := make([]float64, K)
			for i := range n {
				s := mix(w, i)
				for k := range g {
					g[k] += p[k][i] / s
				}
			}
			for k := range g {
				g[k] /= float64(n)
			}
			return g
		}
		sum := 0.0
		for _, v := range w {
			sum += v
		}
		g := grad(w)
		for k := range w {
			if !(w[k] >= 0) || (w[k] > 0 && math.Abs(g[k]-1) > 1e-9) || (w[k] == 0 && g[k] > 1+1e-9) {
				t.Errorf("trial %d: model %d has weight %g and gradient %.12f", trial, k, w[k], g[k])
			}
		}
		if math.Abs(sum-1) > 1e-14 {
			t.Errorf("trial %d: weights sum to %v", trial, sum)
		}
		em := make([]float64, K)
		for k := range em {
			em[k] = 1 / float64(K)
		}
		for range 2000 {
			ge := grad(em)
			for k := range em {
				em[k] *= ge[k]
			}
		}
		if f, fe := score(w), score(em); fe > f+1e-9 {
			t.Errorf("trial %d: mean log score %.15g, EM's %.15g", trial, f, fe)
		}
	}
}

// TestStackingInvariance checks that the weights follow a permutation of
// the models, ignore a constant added to every model at one observation,
// and that a duplicated model splits its weight without changing the rest.
func TestStackingInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 50
	lpd := make([][]float64, 3)
	for k := range lpd {
		lpd[k] = make([]float64, n)
		for i := range lpd[k] {
			lpd[k][i] = -1 + rng.NormFloat64()
			if i%3 == k { // each model predicts its own third better
				lpd[k][i] += 1.5
			}
		}
	}
	w, err := StackingWeights(lpd)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(w, 0) || slices.Contains(w, 1) {
		t.Fatalf("weights %v: the test wants an interior optimum", w)
	}
	perm, err := StackingWeights([][]float64{lpd[2], lpd[0], lpd[1]})
	if err != nil {
		t.Fatal(err)
	}
	shifted := make([][]float64, 3)
	for k := range lpd {
		shifted[k] = slices.Clone(lpd[k])
		for i := range shifted[k] {
			shifted[k][i] += 10 * float64(i%7-3)
		}
	}
	sh, err := StackingWeights(shifted)
	if err != nil {
		t.Fatal(err)
	}
	dup, err := StackingWeights([][]float64{lpd[0], lpd[1], lpd[2], lpd[1]})
	if err != nil {
		t.Fatal(err)
	}
	for k := range w {
		if math.Abs(perm[(k+1)%3]-w[k]) > 1e-10 || math.Abs(sh[k]-w[k]) > 1e-10 {
			t.Errorf("model %d: weight %v, permuted %v, shifted %v", k, w[k], perm[(k+1)%3], sh[k])
		}
	}
	if math.Abs(dup[0]-w[0]) > 1e-8 || math.Abs(dup[2]-w[2]) > 1e-8 || math.Abs(dup[1]+dup[3]-w[1]) > 1e-8 {
		t.Errorf("with model 2 twice: %v, want %v with the second weight split", dup, w)
	}
}

// TestStackingInfinite checks an observation that one model rules out (its
// weight must stay below 1 when that observation occurs) and the errors.
func TestStackingInfinite(t *testing.T) {
	lpd := [][]float64{{0, 0, 0, math.Inf(-1)}, {-1, -1, -1, -1}}
	w, err := StackingWeights(lpd)
	if err != nil {
		t.Fatal(err)
	}
	// 3 log(w + (1−w)/e) + log((1−w)/e): w = (3 − 1/e·… ) by the closed
	// form of TestStackingTwoGroups with n1 = 3, n2 = 1 and c = 1/e, the
	// second kind's model-1 density being 0 instead of c: stationarity
	// 3(1 − c)/(w + (1−w)c) = 1/(1 − w) gives w = (3 − 4c)/(4(1 − c)).
	c := math.Exp(-1)
	if want := (3 - 4*c) / (4 * (1 - c)); math.Abs(w[0]-want) > 1e-10 {
		t.Errorf("weights %v, want w₁ = %.15g", w, want)
	}
	for _, bad := range [][][]float64{
		nil,
		{{}, {}},
		{{0, 1}, {0}},
		{{0, math.NaN()}, {0, 0}},
		{{0, math.Inf(1)}, {0, 0}},
		{{0, math.Inf(-1)}, {0, math.Inf(-1)}},
	} {
		if w, err := StackingWeights(bad); err == nil {
			t.Errorf("%v: weights %v, want an error", bad, w)
		}
		if w, err := PseudoBMAWeights(bad, 10, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("%v: pseudo-BMA weights %v, want an error", bad, w)
		}
	}
	// An observation every model rules out is named, not left to fail the
	// optimisation (its shifted densities would be NaN).
	allOut := [][]float64{{0, math.Inf(-1)}, {-1, math.Inf(-1)}}
	if _, err := StackingWeights(allOut); err == nil || !strings.Contains(err.Error(), "observation 2 is -Inf") {
		t.Errorf("every model -Inf at observation 2: error %v", err)
	}
	if _, err := PseudoBMAWeights(allOut, 0, nil); err == nil || !strings.Contains(err.Error(), "observation 2 is -Inf") {
		t.Errorf("pseudo-BMA, every model -Inf at observation 2: error %v", err)
	}
	if w, err := PseudoBMAWeights([][]float64{{0, math.Inf(-1)}, {math.Inf(-1), 0}}, 0, nil); err == nil {
		t.Errorf("both totals -Inf: weights %v, want an error", w)
	}
	if w, err := StackingWeights([][]float64{{-3, -2}}); err != nil || len(w) != 1 || w[0] != 1 {
		t.Errorf("one model: %v, %v", w, err)
	}
}

// TestPseudoBMA checks the plain weights against the softmax of the totals,
// that the Bayesian bootstrap gives those same weights when the models'
// difference is the same at every observation (n Σ α_i d = n·d for every
// draw), that it is reproducible from its seed, and that it keeps more
// weight on the worse model than the plain weights when the difference is
// noisy.
func TestPseudoBMA(t *testing.T) {
	lpd := [][]float64{{-1, -1.5, -0.5}, {-1.2, -1.7, -0.7}}
	w, err := PseudoBMAWeights(lpd, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := 1 / (1 + math.Exp(-0.6))
	if math.Abs(w[0]-want) > 1e-15 || math.Abs(w[1]-(1-want)) > 1e-15 {
		t.Errorf("pseudo-BMA %v, want %v", w, want)
	}
	bb, err := PseudoBMAWeights(lpd, 1000, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(bb[0]-want) > 1e-12 {
		t.Errorf("pseudo-BMA+ with a constant difference %v, want %v", bb, want)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	noisy := [][]float64{make([]float64, 40), make([]float64, 40)}
	for i := range 40 {
		noisy[0][i] = -1 + rng.NormFloat64()
		noisy[1][i] = noisy[0][i] - 0.05 + 0.5*rng.NormFloat64()
	}
	plain, _ := PseudoBMAWeights(noisy, 0, nil)
	a, _ := PseudoBMAWeights(noisy, 1000, rand.New(rand.NewPCG(9, 10)))
	b, _ := PseudoBMAWeights(noisy, 1000, rand.New(rand.NewPCG(9, 10)))
	if !slices.Equal(a, b) {
		t.Errorf("same seed, weights %v and %v", a, b)
	}
	worse := 1
	if plain[1] > plain[0] {
		worse = 0
	}
	if !(a[worse] > plain[worse]) || math.Abs(a[0]+a[1]-1) > 1e-12 {
		t.Errorf("pseudo-BMA+ %v against plain %v: want more weight on model %d", a, plain, worse+1)
	}
}

// BenchmarkStackingWeights times 10 models of 100 000 observations, with
// heavy-tailed differences so that several models keep weight.
func BenchmarkStackingWeights(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 14))
	lpd := make([][]float64, 10)
	for k := range lpd {
		lpd[k] = make([]float64, 100000)
		for i := range lpd[k] {
			lpd[k][i] = -1 - 0.1*float64(k) + rng.NormFloat64()
			if rng.IntN(100) == 0 {
				lpd[k][i] -= 30 * rng.Float64()
			}
		}
	}
	for b.Loop() {
		if _, err := StackingWeights(lpd); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWeightsFarValues: elpd values far from 0 are weighted as the same
// problem near 0. Each observation's values are shifted by their largest
// before exponentiating (a constant per observation leaves both weights'
// maximisers unchanged), so rows around −900, whose densities e^−900
// underflow to 0, and a model 1000 nats worse than the others at one
// observation (e^−1000 is 0 even after the shift: the model all but rules
// it out) give the stacking weights of the rows moved near 0, within
// 1e-10; pseudo-BMA(+) weights of totals near −27 000 are the softmax of
// their differences, and its bootstrap's those of the totals near 0.
func TestWeightsFarValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	n := 30
	near := make([][]float64, 3)
	for k := range near {
		near[k] = make([]float64, n)
		for i := range near[k] {
			near[k][i] = -1 + rng.NormFloat64()
			if i%3 == k { // each model predicts its own third better
				near[k][i] += 1.5
			}
		}
	}
	near[1][0] -= 1000 // model 2 all but rules out observation 1
	near[2][4] += 1000 // model 3 alone predicts observation 5
	far := make([][]float64, 3)
	for k := range near {
		far[k] = make([]float64, n)
		for i := range far[k] {
			far[k][i] = near[k][i] - 900 - float64(i%5)
		}
	}
	w, err := StackingWeights(near)
	if err != nil {
		t.Fatal(err)
	}
	wf, err := StackingWeights(far)
	if err != nil {
		t.Fatalf("rows near −900: %v", err)
	}
	for k := range w {
		if !(w[k] > 0) || !(math.Abs(wf[k]-w[k]) <= 1e-10) {
			t.Errorf("model %d: stacking weight %v near 0, %v near −900; want them equal and positive", k+1, w[k], wf[k])
		}
	}
	// Two models, totals −27 000 and −27 002: weights 1/(1 + e^−2).
	two := [][]float64{make([]float64, n), make([]float64, n)}
	for i := range n {
		two[0][i] = -900 + rng.NormFloat64()
		two[1][i] = two[0][i] - 2.0/float64(n)
	}
	twoNear := [][]float64{make([]float64, n), make([]float64, n)}
	for k := range two {
		for i := range n {
			twoNear[k][i] = two[k][i] + 900
		}
	}
	p, err := PseudoBMAWeights(two, 0, nil)
	if want := 1 / (1 + math.Exp(-2)); err != nil || !(math.Abs(p[0]-want) <= 1e-10) || !(math.Abs(p[1]-(1-want)) <= 1e-10) {
		t.Errorf("pseudo-BMA of totals near −27 000: %v, %v; want %v", p, err, want)
	}
	pb, err := PseudoBMAWeights(two, 200, rand.New(rand.NewPCG(1, 2)))
	pn, _ := PseudoBMAWeights(twoNear, 200, rand.New(rand.NewPCG(1, 2)))
	if err != nil || !(math.Abs(pb[0]-pn[0]) <= 1e-10) || !(math.Abs(pb[0]+pb[1]-1) <= 1e-14) {
		t.Errorf("pseudo-BMA+ of totals near −27 000: %v, %v; near 0 %v", pb, err, pn)
	}
}

// TestLPDError: the weights' refusals of a value say which model and
// observation, so that a caller can point at where the value came from.
func TestLPDError(t *testing.T) {
	for _, c := range []struct {
		lpd        [][]float64
		model, obs int
		value      float64
	}{
		{[][]float64{{0, 0, 0}, {0, math.NaN(), 0}}, 1, 1, math.NaN()},
		{[][]float64{{0, 0, math.Inf(1)}, {0, 0, 0}}, 0, 2, math.Inf(1)},
		{[][]float64{{0, math.Inf(-1)}, {0, math.Inf(-1)}}, -1, 1, math.Inf(-1)},
	} {
		for _, f := range []func() error{
			func() error { _, err := StackingWeights(c.lpd); return err },
			func() error { _, err := PseudoBMAWeights(c.lpd, 0, nil); return err },
		} {
			var le *LPDError
			if err := f(); !errors.As(err, &le) || le.Model != c.model || le.Obs != c.obs || math.Float64bits(le.Value) != math.Float64bits(c.value) {
				t.Errorf("%v: error %#v, want model %d, observation %d, value %v", c.lpd, err, c.model, c.obs, c.value)
			}
		}
	}
}

package sgvb

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Model weights from leave-one-out predictive densities (Yao, Vehtari,
// Simpson and Gelman, "Using stacking to average Bayesian predictive
// distributions", 2018), as R's loo::loo_model_weights and ArviZ's
// compare give them. Each takes lpd[k][i], model k's elpd_loo at
// observation i (log p(y_i | y_−i) as PSIS-LOO estimates it), for the same
// observations in every model.

// StackingWeights returns the stacking weights: the w on the simplex that
// maximises Σ_i log Σ_k w_k exp(lpd[k][i]), the log score of the mixture
// of the models' leave-one-out predictive distributions. The objective is
// concave; it is maximised by Newton steps on the models of positive
// weight under Σ w = 1, a model joining when its gradient exceeds the
// others' and leaving (weight exactly 0) when a step would make its
// weight negative, until the optimality conditions hold to 1e-10: with
// g_k = (1/n) Σ_i p_ki / Σ_j w_j p_ji, g_k = 1 where w_k > 0 and g_k ≤ 1
// where w_k = 0. Models that predict every observation alike share their
// weight in no particular proportion.
//
// A value of −Inf (a model that rules an observation out) is allowed as
// long as some model gives each observation a finite value; NaN and +Inf
// are errors, as are models of different lengths and no observations.
func StackingWeights(lpd [][]float64) ([]float64, error) {
	p, err := weightInput(lpd)
	if err != nil {
		return nil, err
	}
	K := len(p)
	w := make([]float64, K)
	if K == 1 {
		w[0] = 1
		return w, nil
	}
	for k := range w {
		w[k] = 1 / float64(K)
	}
	st := newStacking(p)
	for range stackMaxIter {
		g := st.grad(w)
		if st.optimal(w, g) {
			return w, nil
		}
		d := st.direction(w, g)
		if d == nil {
			break
		}
		if !st.step(w, d, g) {
			break
		}
	}
	return nil, errors.New("stacking weights: the optimisation did not converge")
}

// stackMaxIter caps the Newton iterations; a few dozen suffice, as each
// is quadratically convergent near the optimum and the active set can
// change at most once per model between its passes.
const stackMaxIter = 500

// stackTol is the tolerance of the optimality conditions on g.
const stackTol = 1e-10

// weightInput checks lpd and returns p[k][i] = exp(lpd[k][i] − max_k
// lpd[k][i]), in (0, 1] with a 1 in every observation (the shift by an
// observation's constant leaves both objectives' maximisers unchanged).
func weightInput(lpd [][]float64) ([][]float64, error) {
	if len(lpd) == 0 {
		return nil, errors.New("model weights need at least one model")
	}
	n := len(lpd[0])
	if n == 0 {
		return nil, errors.New("model weights need at least one observation")
	}
	for k, row := range lpd {
		if len(row) != n {
			return nil, fmt.Errorf("model %d has %d observations, model 1 has %d", k+1, len(row), n)
		}
		for i, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 1) {
				return nil, fmt.Errorf("model %d's elpd at observation %d is %v", k+1, i+1, v)
			}
		}
	}
	p := make([][]float64, len(lpd))
	for k := range p {
		p[k] = make([]float64, n)
	}
	for i := range n {
		m := math.Inf(-1)
		for k := range lpd {
			m = math.Max(m, lpd[k][i])
		}
		if math.IsInf(m, -1) {
			return nil, fmt.Errorf("every model's elpd at observation %d is -Inf", i+1)
		}
		for k := range lpd {
			p[k][i] = math.Exp(lpd[k][i] - m)
		}
	}
	return p, nil
}

// stacking holds the densities and the work buffers of the Newton
// iterations.
type stacking struct {
	p     [][]float64 // p[k][i], shifted densities
	s     []float64   // s_i = Σ_k w_k p_ki at the last grad
	n     float64
	trial []float64
}

func newStacking(p [][]float64) *stacking {
	return &stacking{p: p, s: make([]float64, len(p[0])), n: float64(len(p[0])), trial: make([]float64, len(p))}
}

// objective returns (1/n) Σ_i log Σ_k w_k p_ki.
func (st *stacking) objective(w []float64) float64 {
	f := 0.0
	for i := range st.s {
		s := 0.0
		for k, pk := range st.p {
			s += w[k] * pk[i]
		}
		f += math.Log(s)
	}
	return f / st.n
}

// grad returns g_k = (1/n) Σ_i p_ki / s_i at w and leaves s_i in st.s.
func (st *stacking) grad(w []float64) []float64 {
	for i := range st.s {
		s := 0.0
		for k, pk := range st.p {
			s += w[k] * pk[i]
		}
		st.s[i] = s
	}
	g := make([]float64, len(st.p))
	for k, pk := range st.p {
		for i, s := range st.s {
			g[k] += pk[i] / s
		}
		g[k] /= st.n
	}
	return g
}

// kkt returns the largest violation of the optimality conditions: |g_k − 1|
// where w_k > 0 and g_k − 1 where w_k = 0 (Σ_k w_k g_k = 1 always, so 1 is
// the multiplier of Σ w = 1).
func (st *stacking) kkt(w, g []float64) float64 {
	v := 0.0
	for k := range w {
		if w[k] > 0 {
			v = math.Max(v, math.Abs(g[k]-1))
		} else {
			v = math.Max(v, g[k]-1)
		}
	}
	return v
}

func (st *stacking) optimal(w, g []float64) bool { return st.kkt(w, g) <= stackTol }

// direction returns the Newton direction on the free models (positive
// weight, or zero weight with g_k > 1) under Σ d = 0: the maximiser of
// gᵀd + ½dᵀHd with H_kl = −(1/n) Σ_i p_ki p_li / s_i², from the bordered
// system [H 1; 1ᵀ 0][d; −μ] = [−g; 0]. A model of zero weight that the
// direction would push negative leaves the free set and the direction is
// solved again. nil means no ascent direction exists.
func (st *stacking) direction(w, g []float64) []float64 {
	K := len(w)
	free := make([]bool, K)
	for k := range w {
		free[k] = w[k] > 0 || g[k] > 1+stackTol
	}
	for {
		var idx []int
		for k, f := range free {
			if f {
				idx = append(idx, k)
			}
		}
		m := len(idx)
		if m < 2 {
			return nil
		}
		a := mat.NewDense(m+1, m+1, nil)
		b := mat.NewVecDense(m+1, nil)
		trace := 0.0
		for r, k := range idx {
			for c, l := range idx[:r+1] {
				h := 0.0
				for i, s := range st.s {
					h -= st.p[k][i] * st.p[l][i] / (s * s)
				}
				h /= st.n
				a.Set(r, c, h)
				a.Set(c, r, h)
			}
			trace += a.At(r, r)
			a.Set(r, m, 1)
			a.Set(m, r, 1)
			b.SetVec(r, -g[k])
		}
		// A ridge of 1e-12 of H's mean diagonal keeps H definite when two
		// models predict alike (H singular along their difference).
		ridge := 1e-12 * trace / float64(m)
		for r := range m {
			a.Set(r, r, a.At(r, r)+ridge)
		}
		var x mat.VecDense
		if err := x.SolveVec(a, b); err != nil {
			return nil
		}
		d := make([]float64, K)
		dropped := false
		for r, k := range idx {
			d[k] = x.AtVec(r)
			if w[k] == 0 && d[k] < 0 {
				free[k] = false
				dropped = true
			}
		}
		if !dropped {
			return d
		}
	}
}

// step moves w along d: the full Newton step, or the longest that keeps
// every weight non-negative (the model that reaches 0 then gets exactly
// 0), halved until the objective rises by the Armijo amount. It reports
// whether w moved.
func (st *stacking) step(w, d, g []float64) bool {
	tMax, block := 1.0, -1
	for k := range w {
		if d[k] < 0 && -w[k]/d[k] < tMax {
			tMax, block = -w[k]/d[k], k
		}
	}
	// The slope gᵀd, as Σ (g_k − 1) d_k since Σ d_k = 0: near the optimum
	// g_k ≈ 1 and the plain sum is rounding noise of either sign.
	slope := 0.0
	for k := range w {
		slope += (g[k] - 1) * d[k]
	}
	f0 := st.objective(w)
	t := tMax
	for range 60 {
		for k := range w {
			st.trial[k] = math.Max(w[k]+t*d[k], 0)
		}
		if t == tMax && block >= 0 {
			st.trial[block] = 0
		}
		// Near the optimum the rise (of order the squared gradient error)
		// is below the objective's rounding, so a full step is also taken
		// when it lowers the gradient's error.
		f := st.objective(st.trial)
		if (slope > 0 && f >= f0+1e-4*t*slope) || (t == tMax && st.kkt(st.trial, st.grad(st.trial)) < st.kkt(w, g)) {
			sum := 0.0
			for _, v := range st.trial {
				sum += v
			}
			for k := range w {
				w[k] = st.trial[k] / sum
			}
			return true
		}
		t /= 2
	}
	return false
}

// PseudoBMAWeights returns pseudo-BMA weights, w_k ∝ exp(Σ_i lpd[k][i])
// (Akaike-type weights of the elpd_loo totals), with bootstrap = 0; with
// bootstrap = B > 0, the pseudo-BMA+ weights of Yao et al. (2018): the
// mean over B Bayesian-bootstrap draws α ~ Dirichlet(1, …, 1) of the
// weights ∝ exp(n Σ_i α_i lpd[k][i]), which accounts for the uncertainty of
// the totals and so keeps weight off a model only clearly worse. Draws come
// from rng. The inputs are checked as StackingWeights checks them.
func PseudoBMAWeights(lpd [][]float64, bootstrap int, rng *rand.Rand) ([]float64, error) {
	if _, err := weightInput(lpd); err != nil {
		return nil, err
	}
	K, n := len(lpd), len(lpd[0])
	z := make([]float64, K)
	for k, row := range lpd {
		for _, v := range row {
			z[k] += v
		}
	}
	if !slices.ContainsFunc(z, func(v float64) bool { return v > math.Inf(-1) }) {
		// Each draw of the bootstrap keeps every term, so its totals are
		// −Inf too.
		return nil, errors.New("every model's elpd total is -Inf (each rules out some observation)")
	}
	if bootstrap <= 0 {
		return softmax(z), nil
	}
	w := make([]float64, K)
	alpha := make([]float64, n)
	for range bootstrap {
		sum := 0.0
		for i := range alpha {
			alpha[i] = rng.ExpFloat64()
			sum += alpha[i]
		}
		for k, row := range lpd {
			z[k] = 0
			for i, v := range row {
				// A −Inf elpd with weight 0 would give NaN; the draw's
				// weight is positive, so this is −Inf, as it should be.
				z[k] += alpha[i] * v
			}
			z[k] *= float64(n) / sum
		}
		for k, v := range softmax(z) {
			w[k] += v
		}
	}
	for k := range w {
		w[k] /= float64(bootstrap)
	}
	return w, nil
}

// softmax returns exp(z_k − max z) normalised to sum to 1.
func softmax(z []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range z {
		m = math.Max(m, v)
	}
	w := make([]float64, len(z))
	sum := 0.0
	for k, v := range z {
		w[k] = math.Exp(v - m)
		sum += w[k]
	}
	for k := range w {
		w[k] /= sum
	}
	return w
}

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
		if st.kkt(w, g) <= stackTol {
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

// weightInput checks lpd (checkLPD) and returns p[k][i] = exp(lpd[k][i] −
// max_k lpd[k][i]), in (0, 1] with a 1 in every observation (the shift by
// an observation's constant leaves both objectives' maximisers unchanged).
func weightInput(lpd [][]float64) ([][]float64, error) {
	if err := checkLPD(lpd); err != nil {
		return nil, err
	}
	n := len(lpd[0])
	p := make([][]float64, len(lpd))
	for k := range p {
		p[k] = make([]float64, n)
	}
	for i := range n {
		m := math.Inf(-1)
		for k := range lpd {
			m = math.Max(m, lpd[k][i])
		}
		for k := range lpd {
			p[k][i] = math.Exp(lpd[k][i] - m)
		}
	}
	return p, nil
}

// LPDError is an elpd value that the model weights refuse: model Model's
// at observation Obs (both counted from 0) is Value, NaN or +Inf; or, with
// Model −1, every model's at Obs is −Inf. A caller that knows where the
// values came from can say so (gpp compare names the loo.csv line).
type LPDError struct {
	Model, Obs int
	Value      float64
}

func (e *LPDError) Error() string {
	if e.Model < 0 {
		return fmt.Sprintf("every model's elpd at observation %d is -Inf", e.Obs+1)
	}
	return fmt.Sprintf("model %d's elpd at observation %d is %v", e.Model+1, e.Obs+1, e.Value)
}

// checkLPD checks the weights' input: at least one model and one
// observation, models of one length, no NaN or +Inf, and in every
// observation some model's elpd above −Inf (an *LPDError).
func checkLPD(lpd [][]float64) error {
	if len(lpd) == 0 {
		return errors.New("model weights need at least one model")
	}
	n := len(lpd[0])
	if n == 0 {
		return errors.New("model weights need at least one observation")
	}
	for k, row := range lpd {
		if len(row) != n {
			return fmt.Errorf("model %d has %d observations, model 1 has %d", k+1, len(row), n)
		}
		for i, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 1) {
				return &LPDError{Model: k, Obs: i, Value: v}
			}
		}
	}
	for i := range n {
		if !slices.ContainsFunc(lpd, func(row []float64) bool { return row[i] > math.Inf(-1) }) {
			return &LPDError{Model: -1, Obs: i, Value: math.Inf(-1)}
		}
	}
	return nil
}

// stacking holds the densities and the work buffers of the Newton
// iterations.
type stacking struct {
	p     [][]float64 // p[k][i], shifted densities
	s     []float64   // s_i = Σ_k w_k p_ki at the last grad
	n     float64
	trial []float64
	delta []float64 // δ_i = Σ_k d_k p_ki of step's direction
}

func newStacking(p [][]float64) *stacking {
	return &stacking{p: p, s: make([]float64, len(p[0])), n: float64(len(p[0])), trial: make([]float64, len(p)), delta: make([]float64, len(p[0]))}
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

// direction returns the Newton direction on the free models (positive
// weight, or zero weight with g_k > 1 and above the others') under
// Σ d = 0: the maximiser of gᵀd + ½dᵀHd with H_kl = −(1/n) Σ_i p_ki p_li /
// s_i². It is solved in the reduced space d_r = −Σ_{j≠r} d_j of a
// reference model r (the free one of largest weight):
// (1/n) Σ_i (p_j − p_r)(p_l − p_r)/s_i² · x = g_j − g_r, the differences
// taken before the sum so that models predicting alike give small entries
// rather than the cancellation of large ones. A ridge of 1e-12 (the
// objective's curvature is of order 1: H_kk ≥ g_k², and g_k = 1 at the
// optimum) bounds the step along the difference of models that predict
// alike, where g_j − g_r is rounding and the curvature nearly 0; the
// system is then scaled to unit diagonal, as a model that alone covers an
// observation the others all but rule out has an entry e^{2c} times the
// others', and gets a relative ridge of 1e-12 too. A model of zero weight
// that the direction would push negative leaves the free set and the
// direction is solved again. nil means no ascent direction exists.
func (st *stacking) direction(w, g []float64) []float64 {
	K := len(w)
	// A model of zero weight joins when g_k > 1 and also exceeds every
	// positive weight's gradient by stackTol/10: a duplicate of a model of
	// positive weight has its gradient to rounding and no curvature along
	// their difference, so it would join with a direction of ±1e12 that
	// swaps their weights at every iteration and moves nothing else.
	gmax := 0.0
	for k := range w {
		if w[k] > 0 {
			gmax = math.Max(gmax, g[k])
		}
	}
	free := make([]bool, K)
	for k := range w {
		free[k] = w[k] > 0 || (g[k] > 1+stackTol && g[k] > gmax+stackTol/10)
	}
	for {
		r := -1
		var idx []int
		for k, f := range free {
			if f && (r < 0 || w[k] > w[r]) {
				r = k
			}
		}
		for k, f := range free {
			if f && k != r {
				idx = append(idx, k)
			}
		}
		m := len(idx)
		if m < 1 {
			return nil
		}
		a := mat.NewSymDense(m, nil)
		for j, k := range idx {
			for l, kk := range idx[:j+1] {
				h := 0.0
				for i, s := range st.s {
					h += (st.p[k][i] - st.p[r][i]) * (st.p[kk][i] - st.p[r][i]) / (s * s)
				}
				a.SetSym(j, l, h/st.n)
			}
		}
		scale := make([]float64, m)
		for j := range m {
			a.SetSym(j, j, a.At(j, j)+1e-12)
			scale[j] = 1 / math.Sqrt(a.At(j, j))
		}
		b := mat.NewVecDense(m, nil)
		for j, k := range idx {
			for l := range idx[:j+1] {
				a.SetSym(j, l, a.At(j, l)*scale[j]*scale[l])
			}
			a.SetSym(j, j, a.At(j, j)+1e-12)
			b.SetVec(j, (g[k]-g[r])*scale[j])
		}
		var chol mat.Cholesky
		var x mat.VecDense
		if !chol.Factorize(a) || chol.SolveVecTo(&x, b) != nil {
			return nil
		}
		d := make([]float64, K)
		dropped := false
		for j, k := range idx {
			d[k] = x.AtVec(j) * scale[j]
			d[r] -= d[k]
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
// 0), halved until the objective rises by the Armijo amount. When the
// objective still rises at twice the full step, the step is doubled while
// it does: a model that alone covers an observation the others all but
// rule out (density e^−c against 1) has curvature e^{2c} at weight 0, so
// Newton steps from there only double its weight, and it would take
// c/log 2 of them to reach its optimum. It reports whether w moved.
func (st *stacking) step(w, d, g []float64) bool {
	tMax, block := math.Inf(1), -1
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
	full := math.Min(tMax, 1)
	if t := st.extend(d, tMax); t > 1 && st.try(w, d, t, tMax, block) > f0 {
		st.accept(w)
		return true
	}
	t := full
	for range 60 {
		// Near the optimum the rise (of order the squared gradient error)
		// is below the objective's rounding, so a full step is also taken
		// when it lowers the gradient's error.
		f := st.try(w, d, t, tMax, block)
		if (slope > 0 && f >= f0+1e-4*t*slope) || (t == full && st.kkt(st.trial, st.grad(st.trial)) < st.kkt(w, g)) {
			st.accept(w)
			return true
		}
		t /= 2
	}
	return false
}

// extend returns the longest step t = 2^j ≤ tMax (or tMax) along d at
// which the objective still rises, from the derivative
// φ'(t) = Σ_i δ_i/(s_i + t δ_i), δ_i = Σ_k d_k p_ki, of the concave
// φ(t) = Σ_i log(s_i + t δ_i); 1 when it falls at 2. st.s holds s at w.
func (st *stacking) extend(d []float64, tMax float64) float64 {
	if tMax <= 2 {
		return 1
	}
	for i := range st.delta {
		st.delta[i] = 0
		for k, pk := range st.p {
			st.delta[i] += d[k] * pk[i]
		}
	}
	dphi := func(t float64) float64 {
		v := 0.0
		for i, s := range st.s {
			v += st.delta[i] / (s + t*st.delta[i])
		}
		return v
	}
	t := 1.0
	for 2*t < tMax && dphi(2*t) > 0 {
		t *= 2
	}
	if t > 1 && 2*t >= tMax && dphi(tMax) > 0 {
		t = tMax
	}
	return t
}

// try sets st.trial to w + t·d (the blocking models exactly 0 at t =
// tMax, the first being block) and returns its objective.
func (st *stacking) try(w, d []float64, t, tMax float64, block int) float64 {
	for k := range w {
		st.trial[k] = math.Max(w[k]+t*d[k], 0)
	}
	if t == tMax && block >= 0 {
		// Every model that reaches 0 here gets exactly 0: the first, and
		// any that ties with it to rounding (duplicates leave together),
		// which would otherwise keep a weight of 1e-17 that blocks every
		// later step at a length of 1e-17.
		for k := range w {
			if d[k] < 0 && -w[k]/d[k] <= tMax*(1+1e-9) {
				st.trial[k] = 0
			}
		}
	}
	return st.objective(st.trial)
}

// accept sets w to st.trial normalised to sum to 1.
func (st *stacking) accept(w []float64) {
	sum := 0.0
	for _, v := range st.trial {
		sum += v
	}
	for k := range w {
		w[k] = st.trial[k] / sum
	}
}

// PseudoBMAWeights returns pseudo-BMA weights, w_k ∝ exp(Σ_i lpd[k][i])
// (Akaike-type weights of the elpd_loo totals), with bootstrap = 0; with
// bootstrap = B > 0, the pseudo-BMA+ weights of Yao et al. (2018): the
// mean over B Bayesian-bootstrap draws α ~ Dirichlet(1, …, 1) of the
// weights ∝ exp(n Σ_i α_i lpd[k][i]), which accounts for the uncertainty of
// the totals and so keeps weight off a model only clearly worse. Draws come
// from rng. The inputs are checked as StackingWeights checks them.
func PseudoBMAWeights(lpd [][]float64, bootstrap int, rng *rand.Rand) ([]float64, error) {
	if err := checkLPD(lpd); err != nil {
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
		return softmax(make([]float64, K), z), nil
	}
	w := make([]float64, K)
	alpha, draw := make([]float64, n), make([]float64, K)
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
		for k, v := range softmax(draw, z) {
			w[k] += v
		}
	}
	for k := range w {
		w[k] /= float64(bootstrap)
	}
	return w, nil
}

// softmax writes exp(z_k − max z) normalised to sum to 1 into w (of z's
// length) and returns it.
func softmax(w, z []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range z {
		m = math.Max(m, v)
	}
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

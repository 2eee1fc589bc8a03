package pipeline_test

import (
	"math"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// m0Model is the closed-population capture–recapture model M0: N animals,
// each caught with probability p at each of T occasions, of which n
// distinct animals were caught, C captures in all. The population size N,
// a discrete latent, is summed out over n … Nmax (a uniform prior) with
// logsumexp, as a mixture's labels are; its posterior given p is the
// softmax of the same vector, whose first two moments the outputs give
// (`output N_draw ~ Categorical(softmax(lp))` would draw N − n).
const m0Model = `data T: int
data n: int
data C: int
const Nmax = 400
param p: unit ~ Beta(1, 1)
let Ns = linspaced_vector(Nmax - n + 1, n, Nmax)
let lp = lgamma(Ns + 1) - lgamma(Ns - n + 1) + (Ns * T - C) * log1m(p)
target += C * log(p) + logsumexp(lp)
output EN = dot_product(softmax(lp), Ns)
output EN2 = dot_product(softmax(lp), square(Ns))
`

// TestCaptureM0Reference fits m0Model to T = 5 occasions with n = 80
// animals caught and C = 130 captures, and compares q with the exact
// posterior: p's by quadrature on 4000 midpoints of (0, 1), N's by the
// same quadrature of p(N | p) (q's: the mean of EN over draws of p, and
// the sd from EN2). Each mean within 0.1 posterior sd, each sd within 10 %.
func TestCaptureM0Reference(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const T, n, C, nmax = 5, 80, 130, 400
	lf := make([]float64, nmax-n+1) // log N!/(N − n)!
	for i := range lf {
		a, _ := math.Lgamma(float64(n+i) + 1)
		b, _ := math.Lgamma(float64(i) + 1)
		lf[i] = a - b
	}
	const g = 4000
	var z, mp, mp2, mn, mn2 float64
	lps := make([]float64, g)
	condN := make([][2]float64, g)
	top := math.Inf(-1)
	for j := range g {
		p := (float64(j) + 0.5) / g
		terms := make([]float64, len(lf))
		m := math.Inf(-1)
		for i, l := range lf {
			terms[i] = l + float64((n+i)*T-C)*math.Log1p(-p)
			m = math.Max(m, terms[i])
		}
		var s, s1, s2 float64
		for i, v := range terms {
			w := math.Exp(v - m)
			s, s1, s2 = s+w, s1+w*float64(n+i), s2+w*float64(n+i)*float64(n+i)
		}
		lps[j] = C*math.Log(p) + m + math.Log(s)
		condN[j] = [2]float64{s1 / s, s2 / s}
		top = math.Max(top, lps[j])
	}
	for j := range g {
		p := (float64(j) + 0.5) / g
		w := math.Exp(lps[j] - top)
		z += w
		mp, mp2 = mp+w*p, mp2+w*p*p
		mn, mn2 = mn+w*condN[j][0], mn2+w*condN[j][1]
	}
	mp, mn = mp/z, mn/z
	mean := []float64{mp, mn}
	sd := []float64{math.Sqrt(mp2/z - mp*mp), math.Sqrt(mn2/z - mn*mn)}
	q := fitSource(t, m0Model, "m0.json", []byte(`{"T": 5, "n": 80, "C": 130}`), sgvb.Settings{Seed: 1})
	q["N"] = refRow{q["EN"].mean, math.Sqrt(q["EN2"].mean - q["EN"].mean*q["EN"].mean)}
	compareRef(t, "mean-field", q, []string{"p", "N"}, mean, sd, 0.1, 0.9, 1.1)
}

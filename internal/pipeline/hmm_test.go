package pipeline_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gpplang/gpp/infer/sgvb"
)

// hmmModel is the two-state Gaussian hidden Markov model of
// docs/language.md (Hidden Markov models): the states summed out by
// hmm_marginal, the means ordered so that the labels cannot switch.
const hmmModel = `data y: real[N]
const K = 2
param mu: ordered[K] ~ Normal(0, 3)
param sigma: positive ~ HalfNormal(2)
param A: simplex[K, K] ~ Dirichlet(rep(1, K))
param rho: simplex[K] ~ Dirichlet(rep(1, K))
target += hmm_marginal(logpdf(y, Normal(mu', sigma)), A, rho)
output p_state = hmm_hidden_state_prob(logpdf(y, Normal(mu', sigma)), A, rho)
output z = hmm_latent_rng(logpdf(y, Normal(mu', sigma)), A, rho)
`

// The truth hmmData simulates from.
var (
	hmmMu    = [2]float64{-1, 1.5}
	hmmSigma = 0.8
	hmmA     = [2][2]float64{{0.95, 0.05}, {0.3, 0.7}}
)

// hmmData simulates n observations of the chain (first state uniform)
// from one PCG stream, with 5 decimals, and returns the CSV and the states.
func hmmData(n int) ([]byte, []int) {
	rng := rand.New(rand.NewPCG(2026, 83))
	var b bytes.Buffer
	b.WriteString("y\n")
	z := rng.IntN(2)
	states := make([]int, n)
	for t := range n {
		if t > 0 && rng.Float64() >= hmmA[z][z] {
			z = 1 - z
		}
		states[t] = z
		fmt.Fprintf(&b, "%.5f\n", hmmMu[z]+hmmSigma*rng.NormFloat64())
	}
	return b.Bytes(), states
}

// hmmLogLik is log p(y | mu, sigma, A, rho) by the forward algorithm in
// log space, written apart from the op's scaled recursion.
func hmmLogLik(y []float64, mu [2]float64, sigma float64, a [2][2]float64, rho [2]float64) float64 {
	c := -math.Log(sigma) - 0.5*math.Log(2*math.Pi)
	le := func(v float64, k int) float64 {
		z := (v - mu[k]) / sigma
		return c - 0.5*z*z
	}
	lse := func(x, y float64) float64 { return math.Max(x, y) + math.Log1p(math.Exp(-math.Abs(x-y))) }
	la00, la01, la10, la11 := math.Log(a[0][0]), math.Log(a[0][1]), math.Log(a[1][0]), math.Log(a[1][1])
	l0, l1 := math.Log(rho[0])+le(y[0], 0), math.Log(rho[1])+le(y[0], 1)
	for _, v := range y[1:] {
		l0, l1 = lse(l0+la00, l1+la10)+le(v, 0), lse(l0+la01, l1+la11)+le(v, 1)
	}
	return lse(l0, l1)
}

// TestHMMReference fits hmmModel to 200 simulated observations (mean-field:
// --fullrank all would take sigma alone, the ordered and simplex params
// keeping their factors) and compares q with the posterior computed by
// adaptive Metropolis on the log posterior written out above (in the
// coordinates mu0, log(mu1 − mu0), log sigma and the logits of A[0, 0],
// A[1, 1] and rho[0], with their Jacobians): each of q's means within
// 0.3 posterior sd of the posterior's, each sd within 25 %. (The fit is
// within 0.03 sd and 10 % of the reference; a forward recursion that
// transposed A fails on three params. lang/autodiff's TestGradHMMMarginal
// checks the op against the sum over every path.) It also checks hmm_hidden_state_prob's
// state probabilities against the simulated states, and hmm_latent_rng's
// draws against them.
func TestHMMReference(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model and runs a Metropolis reference")
	}
	csv, states := hmmData(200)
	rows := bytes.Split(bytes.TrimSpace(csv), []byte("\n"))[1:]
	y := make([]float64, len(rows))
	for i, r := range rows {
		fmt.Sscan(string(r), &y[i])
	}
	invLogit := func(u float64) float64 { return 1 / (1 + math.Exp(-u)) }
	logp := func(u []float64) float64 {
		mu := [2]float64{u[0], u[0] + math.Exp(u[1])}
		sigma := math.Exp(u[2])
		a0, a1, r0 := invLogit(u[3]), invLogit(u[4]), invLogit(u[5])
		l := -(mu[0]*mu[0]+mu[1]*mu[1])/18 + u[1] // Normal(0, 3), ordered; Jacobian of mu1
		l += -sigma*sigma/8 + u[2]                // HalfNormal(2); Jacobian
		for _, p := range []float64{a0, a1, r0} { // Dirichlet(1, 1): flat; Jacobian of the logit
			l += math.Log(p) + math.Log1p(-p)
		}
		return l + hmmLogLik(y, mu, sigma, [2][2]float64{{a0, 1 - a0}, {1 - a1, a1}}, [2]float64{r0, 1 - r0})
	}
	f := func(u []float64) []float64 {
		return []float64{u[0], u[0] + math.Exp(u[1]), math.Exp(u[2]), invLogit(u[3]), invLogit(u[4]), invLogit(u[5])}
	}
	start := time.Now()
	mean, sd := adaptiveMetropolis(logp, []float64{-1, 0.9, -0.2, 2, 1.4, 0}, f, 100000, 1)
	t.Logf("reference: %v", time.Since(start))
	names := []string{"mu[1]", "mu[2]", "sigma", "A[1,1]", "A[2,2]", "rho[1]"}
	mf := fitSource(t, hmmModel, "y.csv", csv, sgvb.Settings{Seed: 1})
	compareRef(t, "mean-field", mf, names, mean, sd, 0.3, 0.75, 1.25)
	// The smoothed state probabilities classify the simulated states.
	right := 0
	for i, z := range states {
		p1 := mf[fmt.Sprintf("p_state[%d,2]", i+1)].mean
		if (p1 > 0.5) == (z == 1) {
			right++
		}
	}
	t.Logf("hmm_hidden_state_prob: %d of %d states classified", right, len(states))
	if right < 180 {
		t.Errorf("hmm_hidden_state_prob classifies %d of %d simulated states, want at least 180", right, len(states))
	}
	// A path drawn at each draw of q has, at each t, state 1 with the
	// smoothed probability of that draw: over the 4000 draws the mean of
	// z[t] − p_state[t, 2] has sd at most √(¼/4000) = 0.008.
	worst := 0.0
	for i := range states {
		z, p1 := mf[fmt.Sprintf("z[%d]", i+1)], mf[fmt.Sprintf("p_state[%d,2]", i+1)]
		worst = max(worst, math.Abs(z.mean-p1.mean))
	}
	t.Logf("hmm_latent_rng: largest |mean z[t] - mean p_state[t,2]| %.4f", worst)
	if !(worst <= 5*math.Sqrt(0.25/4000)) {
		t.Errorf("hmm_latent_rng's states: a mean is %.4f from the smoothed probability's, more than 5 sd (%.4f)", worst, 5*math.Sqrt(0.25/4000))
	}
}

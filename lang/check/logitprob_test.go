package check_test

import "testing"

// TestLogitProbWarnings: a logit family whose log-odds argument is provably
// a probability (unit support, or a simplex) is warned
// about at the argument, naming the family that takes the probability; a
// linear predictor of real params and a constant are not.
func TestLogitProbWarnings(t *testing.T) {
	wantWarnings(t, `data x: real[N]
data y: int[N]
data n: int[N]
data k: int[M]
param a: real ~ Normal(0, 1)
param b: real ~ Normal(0, 1)
param th: simplex[3] ~ Dirichlet(rep(1, 3))
let p = Phi(a) * Phi(b)
y ~ BinomialLogit(n, a + b * x)
y ~ BinomialLogit(n, p)
y ~ BernoulliLogit(inv_logit(a + b * x))
y ~ BernoulliLogit(0.5)
k ~ CategoricalLogit(th)
`, []string{
		"m.gpp:10:22 BinomialLogit takes log-odds, but its argument 2 (eta) `p` is a probability in (0, 1) (its support is unit): did you mean Binomial(n, p)?",
		"m.gpp:11:20 BernoulliLogit takes log-odds, but its argument 1 (logit) `inv_logit(a + b * x)` is a probability in (0, 1) (its support is unit): did you mean Bernoulli(inv_logit(a + b * x))?",
		"m.gpp:13:22 CategoricalLogit takes log-odds, but its argument 1 (eta) `th` is a simplex (each row's entries sum to 1): did you mean Categorical(th)?",
	})
}

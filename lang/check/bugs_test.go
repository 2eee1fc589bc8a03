package check

import (
	"strings"
	"testing"
)

// TestBugsHint: each distribution named as BUGS, JAGS or R name it is
// pointed to its gpp name, and those whose BUGS arguments are precisions say
// so with the sd form.
func TestBugsHint(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"dnorm", []string{"Normal(mu, 1 / sqrt(tau))", "precision", "Normal(0, 31.6)", "R's dnorm(x, mean, sd)"}},
		{"dlnorm", []string{"LogNormal(mu, 1 / sqrt(tau))", "precision"}},
		{"dt", []string{"StudentT(k, mu, 1 / sqrt(tau))", "precision"}},
		{"dmnorm", []string{"MvNormalPrec(mu, Omega)", "precision matrix"}},
		{"dbern", []string{"Bernoulli(p)"}},
		{"dgamma", []string{"Gamma(shape, rate)"}},
		{"dbeta", []string{"Beta(a, b)"}},
		{"dpois", []string{"Poisson(lambda)"}},
		{"dbinom", []string{"Binomial(size, prob)"}},
		{"dbin", []string{"Binomial(n, p)", "trials first"}},
		{"dunif", []string{"Uniform(a, b)"}},
		{"dexp", []string{"Exponential(lambda)"}},
		{"dcat", []string{"Categorical(p)", "0..K−1"}},
		{"rnorm", []string{"R's rnorm(n, mean, sd)", "Normal(mean, sd)", "output y_rep ~"}},
		{"rbinom", []string{"rbinom(n, size, prob)", "Binomial(size, prob)"}},
		{"rt", []string{"rt(n, df)", "StudentT(df, 0, 1)"}},
	} {
		for _, h := range []string{StanHint(tc.name), stanHint(tc.name, "x")} {
			for _, w := range tc.want {
				if !strings.Contains(h, w) {
					t.Errorf("hint at %s = %q, want it to hold %q", tc.name, h, w)
				}
			}
		}
	}
	// names that are not BUGS's or R's distributions get no such hint
	for _, name := range []string{"dfoo", "rdexp", "rbern", "d", "norm", "xnorm"} {
		if h := bugsHint(name); h != "" {
			t.Errorf("bugsHint(%q) = %q, want none", name, h)
		}
	}
}

package check

import (
	"fmt"
	"strings"
)

// bugsDist is a distribution of BUGS's, JAGS's or R's (dnorm, rnorm) with
// its gpp form. BUGS and R take different arguments under one name (dnorm's
// second is BUGS's precision and R's sd), so each is given.
type bugsDist struct {
	bugs, bugsGPP string // BUGS's call and gpp's, in BUGS's argument names; "" if BUGS lacks it
	note          string // what differs from a plain rename, or ""
	r, rGPP       string // R's density call (dnorm(x, mean, sd)) and gpp's distribution; "" if R lacks it
}

// bugsDists are keyed by the name after its d (dnorm) or r (rnorm) prefix.
var bugsDists = map[string]bugsDist{
	"norm": {bugs: "dnorm(mu, tau)", bugsGPP: "Normal(mu, 1 / sqrt(tau))",
		note: "BUGS's second argument is the precision 1 / sd², gpp's the sd: BUGS's dnorm(0, 0.001) is Normal(0, 31.6)",
		r:    "dnorm(x, mean, sd)", rGPP: "Normal(mean, sd)"},
	"lnorm": {bugs: "dlnorm(mu, tau)", bugsGPP: "LogNormal(mu, 1 / sqrt(tau))",
		note: "BUGS's second argument is the precision 1 / sd² of log(value), gpp's the sd",
		r:    "dlnorm(x, meanlog, sdlog)", rGPP: "LogNormal(meanlog, sdlog)"},
	"t": {bugs: "dt(mu, tau, k)", bugsGPP: "StudentT(k, mu, 1 / sqrt(tau))",
		note: "BUGS's second argument is the precision 1 / scale², gpp's the scale, and the degrees of freedom come first in gpp",
		r:    "dt(x, df)", rGPP: "StudentT(df, 0, 1)"},
	"mnorm": {bugs: "dmnorm(mu, Omega)", bugsGPP: "MvNormalPrec(mu, Omega)",
		note: "BUGS's second argument is the precision matrix, the covariance's inverse; gpp's MvNormal(mu, Sigma) takes the covariance"},
	"bern": {bugs: "dbern(p)", bugsGPP: "Bernoulli(p)"},
	"bin": {bugs: "dbin(p, n)", bugsGPP: "Binomial(n, p)",
		note: "gpp takes the number of trials first"},
	"binom": {r: "dbinom(x, size, prob)", rGPP: "Binomial(size, prob)"},
	"gamma": {bugs: "dgamma(shape, rate)", bugsGPP: "Gamma(shape, rate)",
		r: "dgamma(x, shape, rate)", rGPP: "Gamma(shape, rate)"},
	"beta": {bugs: "dbeta(a, b)", bugsGPP: "Beta(a, b)",
		r: "dbeta(x, shape1, shape2)", rGPP: "Beta(shape1, shape2)"},
	"pois": {bugs: "dpois(lambda)", bugsGPP: "Poisson(lambda)",
		r: "dpois(x, lambda)", rGPP: "Poisson(lambda)"},
	"unif": {bugs: "dunif(a, b)", bugsGPP: "Uniform(a, b)",
		r: "dunif(x, min, max)", rGPP: "Uniform(min, max)"},
	"exp": {bugs: "dexp(lambda)", bugsGPP: "Exponential(lambda)",
		r: "dexp(x, rate)", rGPP: "Exponential(rate)"},
	"cat": {bugs: "dcat(p)", bugsGPP: "Categorical(p)",
		note: "gpp's categories are 0..K−1, BUGS's 1..K"},
	"weib": {bugs: "dweib(v, lambda)", bugsGPP: "Weibull(v, lambda^(-1 / v))",
		note: "BUGS's lambda multiplies value^v, gpp's second argument is the scale"},
	"weibull": {r: "dweibull(x, shape, scale)", rGPP: "Weibull(shape, scale)"},
	"dexp": {bugs: "ddexp(mu, tau)", bugsGPP: "Laplace(mu, 1 / tau)",
		note: "BUGS's tau is the inverse scale, gpp's second argument the scale"},
	"chisqr": {bugs: "dchisqr(k)", bugsGPP: "ChiSquare(k)"},
	"chisq":  {r: "dchisq(x, df)", rGPP: "ChiSquare(df)"},
	"cauchy": {r: "dcauchy(x, location, scale)", rGPP: "Cauchy(location, scale)"},
	"dirch":  {bugs: "ddirch(alpha)", bugsGPP: "Dirichlet(alpha)"},
	"dirich": {bugs: "ddirich(alpha)", bugsGPP: "Dirichlet(alpha)"},
	"multi":  {bugs: "dmulti(p, n)", bugsGPP: "Multinomial(p, n)"},
}

// bugsHint returns what to write in gpp for a distribution named as BUGS,
// JAGS or R name it (dnorm, dbern, rnorm), or "". gpp's own lower-case
// names never start with d or r and a distribution's letters after it, so
// a name is read this way only when no other hint matched.
func bugsHint(name string) string {
	if len(name) < 2 || (name[0] != 'd' && name[0] != 'r') {
		return ""
	}
	b, ok := bugsDists[name[1:]]
	if !ok {
		return ""
	}
	if name[0] == 'r' {
		// R's random generators: rnorm(n, mean, sd)
		if b.r == "" {
			return ""
		}
		call := "r" + strings.TrimPrefix(b.r, "d")
		call = strings.Replace(call, "(x,", "(n,", 1)
		return fmt.Sprintf("R's %s draws from what gpp calls %s: y ~ %s models a value, and output y_rep ~ %s draws one at each draw of the params", call, b.rGPP, b.rGPP, b.rGPP)
	}
	var parts []string
	if b.bugs != "" {
		s := fmt.Sprintf("gpp writes BUGS's %s as y ~ %s", b.bugs, b.bugsGPP)
		if b.note != "" {
			s += " (" + b.note + ")"
		}
		parts = append(parts, s)
	}
	if b.r != "" {
		parts = append(parts, fmt.Sprintf("R's %s is exp(logpdf(x, %s))", b.r, b.rGPP))
	}
	return strings.Join(parts, "; ")
}

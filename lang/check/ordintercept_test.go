package check_test

import "testing"

// TestOrderedInterceptWarnings: a scalar real param added to the whole of
// OrderedLogistic's or OrderedProbit's eta, directly or through a let,
// with cutpoints that are a param (whole or per group) is warned of once,
// at the term; an indexed effect, a slope, a positive param, and cutpoints
// with one fixed at 0 or of data are not.
func TestOrderedInterceptWarnings(t *testing.T) {
	wantWarnings(t, `data G: int
data x: real[N]
data g: int<lower=0, upper=G-1>[N]
data y: int<lower=0, upper=3>[N]
data c0: real[3]
param c: ordered[3] ~ Normal(0, 3)
param cg: ordered[G, 3] ~ Normal(0, 3)
param c_raw: ordered[2] ~ Normal(0, 3)
param a0: real ~ Normal(0, 5)
param a1: real ~ Normal(0, 5)
param a2: real ~ Normal(0, 5)
param b: real ~ Normal(0, 1)
param s: positive ~ Normal(0, 1)
param u: real[G] ~ Normal(0, 1)
let lin = b * x + u[g]
let eta = a0 + lin
y ~ OrderedLogistic(eta, c)
y ~ OrderedLogistic(eta, c)
y ~ OrderedProbit(lin - a1 + s, cg[g])
y ~ OrderedLogistic(a2 + lin, append_row(0, c_raw))
y ~ OrderedLogistic(a2 + lin, c0)
`, []string{
		"m.gpp:16:11 `a0` is added to every element of OrderedLogistic's eta, whose cutpoints `c` are a param and already hold the intercept: a0 and the cutpoints shift together, so a0 is identified only by its prior; drop it",
		"m.gpp:19:25 `a1` is added to every element of OrderedProbit's eta, whose cutpoints `cg[g]` are a param and already hold the intercept: a1 and the cutpoints shift together, so a1 is identified only by its prior; drop it",
	})
}

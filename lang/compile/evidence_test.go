package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestEvidenceCaveats: where the log joint is not a normalised density
// of params and data. A param with no prior on an unbounded support (or a
// covariance matrix's) is an error; a flat prior on other bounds than
// (0, 1) or on a simplex, a user density, a target += that is not a sum of
// log densities, an ordered prior of per-element arguments, a zero-sum
// vector's prior and a ~ on an expression of params (no data) are notes at
// their place; normalised models have none.
func TestEvidenceCaveats(t *testing.T) {
	for _, c := range []struct{ src, errs, notes string }{
		{"param mu: real ~ Normal(0, 1)\nparam s: positive ~ Normal(0, 1)\nparam p: unit\nparam q: real<lower=0, upper=1>\nparam c: ordered[3] ~ Normal(0, 2)\nparam w: simplex[3] ~ Dirichlet(1)\n", "", ""},
		{"param mu: real\ntarget += logpdf(mu, Normal(0, 1)) + sum(logpdf(mu, Normal(0, 1)))\n", "", ""},
		{"param x: real[2]\nx[0] ~ Normal(0, 1)\nx[1] ~ Normal(0, 1)\n", "", ""},
		{"param v: real[3]\nv[0] ~ Normal(0, 1)\nv[2] ~ Normal(0, 1)\n", "e.gpp:1:7: param `v` has a prior on some elements only (~ on constant indices): 1 of its 3 elements are flat on the real line, improper, so p(y) is not defined", ""},
		{"param v: real[3]\nfor i in 0:2 {\n  v[i] ~ Normal(0, 1)\n}\n", "", ""},
		{"param p: real<lower=0, upper=1>[2]\np[0] ~ Beta(2, 2)\n", "", ""},
		{"data g: int[2]\nparam z: real[2]\nz[g] ~ Normal(0, 1)\n", "", ""},
		{"param mu: real\n", "e.gpp:1:7: param `mu` has no prior: a flat prior on the real line, improper, so p(y) is not defined; give it a proper one, as in `param mu: real ~ Normal(0, 1)`", ""},
		{"param s: positive\nparam S: cov_matrix[2]\n", "e.gpp:1:7: param `s` has no prior: a flat prior on (0, ∞), improper, so p(y) is not defined; give it a proper one, as in `param s: positive ~ Normal(0, 1)`\n" +
			"e.gpp:2:7: param `S` has no prior: a flat prior on the cov_matrix values is improper, so p(y) is not defined; give it a proper one, as in `param S: cov_matrix[2] ~ InvWishart(4, I(2))`", ""},
		{"param mu: real<lower=-5, upper=5>\n", "", "e.gpp:1:7: param `mu` has no prior: its flat density enters p(y) as 1 on (-5, 5), not normalised; `~ Uniform(-5, 5)` is the normalised one"},
		{"param w: simplex[3]\n", "", "e.gpp:1:7: param `w` has no prior: its flat density enters p(y) as 1 on the simplex values, not normalised; `~ Dirichlet(1)` is the normalised one"},
		{"param mu: real\ntarget += -mu * mu / 2\n", "", "e.gpp:2:1: target += -mu * mu / 2 enters p(y) as written, which gpp cannot tell is a normalised log density"},
		{"param mu: real ~ Normal(0, 1)\ntarget -= logpdf(mu, Normal(0, 1))\n", "", "e.gpp:2:1: target -= logpdf(mu, Normal(0, 1)) enters p(y) as written"},
		{"fn n2_lpdf(y, m) = -(y - m) ^ 2\nparam mu: real ~ n2(0)\n", "", "e.gpp:2:18: the user density n2_lpdf enters p(y) as written: the evidence is right only if it is normalised"},
		{"param c: ordered[3] ~ Normal([0, 1, 2], 1)\n", "", "e.gpp:1:7: the prior of `c`, per-element arguments restricted to increasing vectors, has no known normaliser"},
		{"param z: sum_to_zero_vector[4] ~ Normal(0, 1)\n", "", "e.gpp:1:7: the prior of `z` is not renormalised to the zero-sum plane"},
		{"param z: sum_to_zero_vector[4]\n", "e.gpp:1:7: param `z` has no prior: a flat prior on the sum_to_zero_vector values is improper", ""},
		// a ~ on an expression of params is a density of its value: a note,
		// and no error for the params it reads (through a let too)
		{"param x: positive\nlog(x) ~ Normal(0, 1)\n", "", "e.gpp:2:8: the ~ on `log(x)` is a density of its value, not of the params it reads"},
		{"param x: positive\nlet lx = log(x)\nlx ~ Normal(0, 1)\n", "", "e.gpp:3:4: the ~ on `lx` is a density of its value"},
		{"param a: real ~ Normal(0, 1)\nparam b: real\nb - a ~ Normal(0, 1)\n", "", "e.gpp:3:7: the ~ on `b - a` is a density of its value"},
		// an RW1 prior written with diff is noted as the slices' difference is
		{"param x: real[4] ~ Normal(0, 1)\nx[1:] - x[:3] ~ Normal(0, 1)\n", "", "e.gpp:2:15: the ~ on `x[1:] - x[:3]` is a density of its value, not of the params it reads"},
		{"param x: real[4] ~ Normal(0, 1)\ndiff(x) ~ Normal(0, 1)\n", "", "e.gpp:2:9: the ~ on `diff(x)` is a density of its value, not of the params it reads"},
		{"param x: real[4]\ndiff(x, 2) ~ Normal(0, 1)\n", "", "e.gpp:2:12: the ~ on `diff(x, 2)` is a density of its value, not of the params it reads"},
		// a ~ with data on the left is no prior of the params it reads
		{"data y: real[2]\nparam mu: real\ny - mu ~ Normal(0, 1)\n", "e.gpp:2:7: param `mu` has no prior: a flat prior on the real line, improper", ""},
		{"data y: real[2]\nparam mu: real ~ Normal(0, 1)\ny - mu ~ Normal(0, 1)\nlet r = y - mu\nr ~ Normal(0, 1)\n", "", ""},
	} {
		y := data.Input{File: "d.json", JSON: map[string]*data.Array{"y": {Name: "y", Shape: []int{2}, Values: []float64{0.3, 1.2}},
			"g": {Name: "g", Shape: []int{2}, Values: []float64{1, 0}, Int: true}}}
		m := compileSrc(t, "e.gpp", c.src, nil, y)
		errs, notes := m.EvidenceCaveats()
		check := func(what string, got []string, want string) {
			t.Helper()
			g := strings.Join(got, "\n")
			if want == "" && g != "" || want != "" && !strings.Contains(g, want) {
				t.Errorf("%q: %s\n%s\nwant\n%s", c.src, what, g, want)
			}
		}
		var es, ns []string
		for _, e := range errs {
			es = append(es, e.Error())
		}
		for _, n := range notes {
			ns = append(ns, n.Error())
		}
		check("errors", es, c.errs)
		check("notes", ns, c.notes)
	}
}

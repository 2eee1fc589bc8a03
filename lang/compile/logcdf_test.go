package compile

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestLogCDFNode checks logcdf and logccdf through the compiled model: each
// against the same log probability written out with other nodes, in value
// and gradient, with data, params and broadcasting in either position.
func TestLogCDFNode(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"tc": [3.0, 0.5, 2.2], "k": [0, 2, 5]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data tc: positive[3]\ndata k: int<lower=0>[3]\nparam a: positive\nparam s: positive\nparam c: positive\n"
	for _, c := range []struct{ name, cdf, plain string }{
		{"Weibull survival", "target += logccdf(tc, Weibull(a, s))\n", "target += -sum(pow(tc / s, a))\n"},
		{"Weibull CDF", "target += logcdf(tc, Weibull(a, s))\n", "target += sum(log1mexp(pow(tc / s, a)))\n"},
		{"Exponential survival of a param", "target += logccdf(c, Exponential(a))\n", "target += -a * c\n"},
		{"Exponential CDF, rate per element", "target += logcdf(tc, Exponential(a * [1, 2, 3]))\n", "target += sum(log1mexp(a * [1, 2, 3] .* tc))\n"},
		{"Poisson CDF", "target += logcdf(k, Poisson(a))\n",
			"target += log(exp(-a)) + log(exp(-a) * (1 + a + a ^ 2 / 2)) + log(exp(-a) * (1 + a + a ^ 2 / 2 + a ^ 3 / 6 + a ^ 4 / 24 + a ^ 5 / 120))\n"},
		{"Poisson survival", "target += logccdf(k[1], Poisson(a))\n", "target += log1p(-exp(-a) * (1 + a + a ^ 2 / 2))\n"},
		{"LogNormal survival is Normal's of the log", "target += logccdf(tc, LogNormal(log(a), s))\n", "target += logccdf(log(tc), Normal(log(a), s))\n"},
	} {
		cdf := compileSrc(t, "a.gpp", decls+c.cdf, nil, in)
		plain := compileSrc(t, "b.gpp", decls+c.plain, nil, in)
		wantSameLogJoint(t, c.name, cdf, plain)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// wantSameLogJoint holds a and plain, two ways of writing one model, to
// the same log joint and gradient (near) at two points of its three
// coordinates.
func wantSameLogJoint(t *testing.T, name string, a, plain *Model) {
	t.Helper()
	for _, z := range [][]float64{{0.1, 0.4, -1.2}, {-0.5, 0.9, 0.3}} {
		ga, gb := make([]float64, len(z)), make([]float64, len(z))
		va, errA := a.LogJoint(z, ga)
		vb, errB := plain.LogJoint(z, gb)
		if errA != nil || errB != nil || !near(va, vb) {
			t.Errorf("%s at %v: %.17g against %.17g (errors %v, %v)", name, z, va, vb, errA, errB)
			continue
		}
		for i := range ga {
			if !near(ga[i], gb[i]) {
				t.Errorf("%s at %v: gradient %v against %v", name, z, ga, gb)
				break
			}
		}
	}
}

package check_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// The rewrite that the error for a bound depending on a param advises,
// pasted in place of the declaration (the free param, the let, the
// Jacobian and the prior as target terms), checks, uses of the param
// included: a probability between 1 - sp and 1 stays a probability
// (convexRange).
func TestParamBoundAdviceChecks(t *testing.T) {
	snippet := regexp.MustCompile("`([^`]*)`")
	for _, c := range []struct{ name, src string }{
		{"hui-walter", `data t1: int[N]
param sp1: unit ~ Beta(1, 1)
param se1: real<lower=1 - sp1, upper=1>
t1 ~ Bernoulli(se1)
t1 ~ Bernoulli(1 - sp1)
`},
		{"gpd", `data e: positive[N]
param sigma: positive ~ LogNormal(7, 2)
param xi: real<lower=-sigma / max(e)> ~ Normal(0, 0.5)
target += sum(-log(sigma) - (1 + 1 / xi) * log1p(xi * e / sigma))
`},
		{"upper", `data y: real[N]
param a: real ~ Normal(0, 1)
param m: real<upper=2 * a> ~ Normal(0, 3)
y ~ Normal(m, 1)
`},
		{"vector bounds", `data y: real[N]
const K = 3
param a: real[K] ~ Normal(0, 1)
param s: positive ~ Exponential(1)
param x: real<lower=a, upper=a + s>[K]
y ~ Normal(sum(x), 1)
`},
		{"scalar bounds on a matrix", `data y: real[N]
const K = 3
param s: positive ~ Exponential(1)
param x: real<lower=-s, upper=s>[K, K - 1] ~ Normal(0, 1)
y ~ Normal(x[2, 1], 1)
`},
		{"probabilities", `data y: int[K]
param q: unit ~ Beta(2, 2)
param p: real<lower=q, upper=1>[K]
y ~ Bernoulli(p)
`},
		{"upper probability", `data y: int[N]
param q: unit ~ Beta(2, 2)
param p: real<lower=0, upper=q>
y ~ Bernoulli(p)
`},
	} {
		f, err := parser.ParseFile("m.gpp", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		_, err = check.Check(f, nil)
		list, _ := ast.Positioned(err)
		var advice *ast.Error // the first error; a use of the param may follow
		if len(list) > 0 && strings.Contains(list[0].Msg, "free param,") {
			advice = list[0]
		} else {
			t.Errorf("%s: errors %v, want the advice first", c.name, err)
			continue
		}
		var rewrite []string
		for _, m := range snippet.FindAllStringSubmatch(advice.Msg[strings.Index(advice.Msg, "free param,"):], -1) {
			if !strings.Contains(m[1], "D(...)") {
				rewrite = append(rewrite, m[1])
			}
		}
		lines := strings.Split(c.src, "\n")
		lines[advice.Pos.Line-1] = strings.Join(rewrite, "\n")
		src := strings.Join(lines, "\n")
		f, err = parser.ParseFile("m.gpp", []byte(src))
		if err == nil {
			_, err = check.Check(f, nil)
		}
		if err != nil {
			t.Errorf("%s: the advised rewrite\n%s\ndoes not check: %v", c.name, src, err)
		}
	}
}

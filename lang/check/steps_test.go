package check_test

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// A comparison or logical operator on params in an output is an int 0/1
// per element, of the broadcast shape, that depends on the params (so the
// compiler evaluates it at every draw, and files print it as an int).
func TestStepOutputTypes(t *testing.T) {
	src := `data y: int<lower=0>[N]
const K = 3
param mu: real ~ Normal(0, 1)
param sigma: positive ~ Gamma(2, 2)
param theta: unit[K] ~ Beta(1, 1)
param B: real[N, K] ~ Normal(0, 1)
y ~ Poisson(exp(mu))
let up = mu > 0
output pos = mu > 0
output both = mu > 0 && sigma < 1
output n_big = sum(theta > 0.5)
output flag = !(mu > 0)
output cells = B > theta'
output up2 = up
output y_rep ~ Poisson(rep(exp(mu), N))
output exceed = mean(y_rep > y)
output fixed = sum(y > 2)
`
	_, info := checkSource(t, "m.gpp", src, nil)
	want := map[string]struct {
		elem     check.Elem
		shape    string
		dataOnly bool
	}{
		"pos":    {check.Int, "scalar", false},
		"both":   {check.Int, "scalar", false},
		"n_big":  {check.Int, "scalar", false},
		"flag":   {check.Int, "scalar", false},
		"cells":  {check.Int, "[N, K]", false},
		"up2":    {check.Int, "scalar", false},
		"exceed": {check.Real, "scalar", false},
		"fixed":  {check.Int, "scalar", true},
	}
	seen := 0
	for _, o := range info.Outputs {
		w, ok := want[o.Name]
		if !ok {
			continue
		}
		seen++
		if o.Type.Elem != w.elem || o.Type.Shape.String() != w.shape || o.Type.DataOnly != w.dataOnly {
			t.Errorf("output %s: %v %s data-only %v; want %v %s data-only %v",
				o.Name, o.Type.Elem, o.Type.Shape, o.Type.DataOnly, w.elem, w.shape, w.dataOnly)
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d outputs", seen, len(want))
	}
}

// The log joint's errors are at the comparison's operator, file:line:col,
// whether the statement reads it directly or through a chain of lets, and
// once however many statements read it.
func TestStepErrorPositions(t *testing.T) {
	src := `data y: real[N]
param mu: real ~ Normal(0, 1)
param s: positive ~ Gamma(2, 2)
let z = 1 + (mu > 0)
let w = z * 2
target += w
y ~ Normal(z, s)
for i in 0:N {
    let c = !(y[i] < mu)
    target += c
}
output p = z
target += y[0] >= s
`
	f, err := parser.ParseFile("m.gpp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = check.Check(f, nil)
	list, ok := err.(ast.ErrorList)
	if !ok {
		t.Fatalf("error %v, want an ast.ErrorList", err)
	}
	want := []string{
		"m.gpp:4:17: a comparison needs operands known before the fit (it is read through the let `w` at m.gpp:6:11), and `mu` is the param `mu`",
		"m.gpp:9:20: a comparison needs operands known before the fit (it is read through the let `c` at m.gpp:10:15), and `mu` is the param `mu`",
		"m.gpp:13:16: a comparison needs operands known before the fit, and `s` is the param `s`",
	}
	if len(list) != len(want) {
		t.Fatalf("%d errors, want %d:\n%v", len(list), len(want), err)
	}
	for i, e := range list {
		if !strings.HasPrefix(e.Error(), want[i]) {
			t.Errorf("error %d:\n%s\nwant a prefix\n%s", i, e, want[i])
		}
		if !strings.HasSuffix(e.Error(), "; in an output it is allowed: `output p = mu > 0` gives P(mu > 0) as its mean") {
			t.Errorf("error %d does not say an output may hold it: %s", i, e)
		}
	}
}

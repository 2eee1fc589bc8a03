package model

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/lang/ast"
)

// shortSample runs a short NUTS run of m with opts.
func shortSample(t *testing.T, m *Model, chains int, opts ...StartOption) *nuts.Result {
	t.Helper()
	s := SampleSettings()
	s.Chains, s.Warmup, s.Draws = chains, 20, 5
	res, err := m.Sample(context.Background(), s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestChainInits checks that ChainInits starts each chain at its own
// values: chain c of a run with ChainInits is chain c of a run with
// Inits of inits[c], bit for bit, and differs from chain c of a run with
// another chain's values; a nil map starts its chain as without inits.
func TestChainInits(t *testing.T) {
	m := regressionModel(t)
	a := map[string]any{"alpha": 0.3, "beta": []float64{0.1, -0.2}, "sigma": 0.5}
	b := map[string]any{"alpha": -0.4, "sigma": 1.5}
	per := shortSample(t, m, 3, ChainInits([]map[string]any{a, b, nil}))
	withA := shortSample(t, m, 3, Inits(a))
	withB := shortSample(t, m, 3, Inits(b))
	plain := shortSample(t, m, 3)
	for c, want := range []*nuts.Result{withA, withB, plain} {
		if !slices.Equal(per.Chains[c].Draws, want.Chains[c].Draws) {
			t.Errorf("chain %d of ChainInits differs from chain %d started at its values", c+1, c+1)
		}
	}
	if slices.Equal(per.Chains[0].Draws, withB.Chains[0].Draws) || slices.Equal(per.Chains[1].Draws, withA.Chains[1].Draws) {
		t.Error("a chain of ChainInits equals one started at another chain's values")
	}
	if slices.Equal(withA.Chains[0].Draws, plain.Chains[0].Draws) {
		t.Error("Inits: chain 1 is as without inits")
	}
}

// TestInitRadius checks Sample's random starts: InitRadius(2) is the
// default, bit for bit, and InitRadius(0) another start.
func TestInitRadius(t *testing.T) {
	m := regressionModel(t)
	plain := shortSample(t, m, 2)
	two := shortSample(t, m, 2, InitRadius(2))
	zero := shortSample(t, m, 2, InitRadius(0))
	for c := range plain.Chains {
		if !slices.Equal(two.Chains[c].Draws, plain.Chains[c].Draws) {
			t.Errorf("chain %d: InitRadius(2) differs from the default start", c+1)
		}
		if slices.Equal(zero.Chains[c].Draws, plain.Chains[c].Draws) {
			t.Errorf("chain %d: InitRadius(0) is the default start", c+1)
		}
	}
}

// TestInitErrors checks the errors of bad inits, each naming its value or
// element as gpp's --init does, at the option's name.
func TestInitErrors(t *testing.T) {
	m := regressionModel(t)
	for _, c := range []struct {
		fit  bool
		opts []StartOption
		want []string
	}{
		{false, []StartOption{Inits(map[string]any{"sigm": 0.5, "alcohol": []float64{1}})}, []string{
			`Inits: "alcohol" is data, not a param: an init file gives params' values (the params: alpha, beta, sigma)`,
			`Inits: "sigm" is not a param of the model (the params: alpha, beta, sigma)`}},
		{false, []StartOption{Inits(map[string]any{"beta": []float64{0.1, 0.2, 0.3}})}, []string{`Inits: "beta" is a vector of 3: the param is a vector of 2`}},
		{false, []StartOption{Inits(map[string]any{"alpha": []float64{0.1}})}, []string{`Inits: "alpha" is a vector of 1: the param is a number`}},
		{false, []StartOption{Inits(map[string]any{"sigma": -0.5})}, []string{`Inits: sigma is -0.5, outside sigma's support: want a positive value`}},
		{true, []StartOption{Inits(map[string]any{"sigma": -0.5})}, []string{`Inits: sigma is -0.5, outside sigma's support: want a positive value`}},
		{false, []StartOption{Inits(map[string]any{"beta": []float64{0.1, math.NaN()}})}, []string{`Inits: beta[1] is missing (NaN or null): an init is a finite number`}},
		{false, []StartOption{Inits(map[string]any{"beta": []float64{0.1, math.Inf(1)}})}, []string{`Inits: beta[1] is +Inf: infinite values are not allowed in inits`}},
		{false, []StartOption{Inits(map[string]any{"W": [][]float64{{0.1, 0.2}, {0.3, math.Inf(-1)}}})}, []string{`Inits: W[1, 1] is -Inf: infinite values are not allowed in inits`}},
		{false, []StartOption{Inits(map[string]any{"sigma": "1"})}, []string{`Inits: sigma: a value of Go type string; inits are ` + valueKinds}},
		{false, []StartOption{ChainInits([]map[string]any{nil, {"sigma": 0.0}, nil, nil})}, []string{`ChainInits[1]: sigma is 0, outside sigma's support: want a positive value`}},
		{false, []StartOption{ChainInits([]map[string]any{nil, nil})}, []string{`model: ChainInits has 2 maps for 4 chains: give one per chain`}},
		{false, []StartOption{Inits(nil), ChainInits(make([]map[string]any, 4))}, []string{`model: Sample: give Inits or ChainInits once`}},
		{false, []StartOption{InitRadius(-1)}, []string{`model: InitRadius(-1): want a finite number ≥ 0`}},
		{false, []StartOption{InitRadius(math.Inf(1))}, []string{`model: InitRadius(+Inf): want a finite number ≥ 0`}},
		{true, []StartOption{ChainInits(nil)}, []string{`model: Fit has one start: give Inits, not ChainInits`}},
		{true, []StartOption{InitRadius(1)}, []string{`model: Fit starts q, not random draws: InitRadius is Sample's`}},
	} {
		var err error
		if c.fit {
			_, err = m.Fit(context.Background(), FitSettings(), c.opts...)
		} else {
			_, err = m.Sample(context.Background(), SampleSettings(), c.opts...)
		}
		if err == nil {
			t.Errorf("no error; want %q", c.want)
			continue
		}
		var got []string
		if list, ok := ast.Positioned(err); ok {
			for _, e := range list {
				got = append(got, e.Error())
			}
		} else {
			got = []string{err.Error()}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("errors\n%q\nwant\n%q", got, c.want)
		}
	}
}

// TestInitsNonFinite checks that inits of every param where the log
// density is not finite are an error, not retried (as Stan), with the
// model's positioned error.
func TestInitsNonFinite(t *testing.T) {
	m := regressionModel(t)
	_, err := m.Sample(context.Background(), SampleSettings(), Inits(map[string]any{"alpha": 0, "beta": []float64{1e300, 0}, "sigma": 1}))
	const want = "chain 1: Inits: the log density or its gradient is not finite at these values (Stan does not retry given inits): "
	var pe *ast.Error
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.As(err, &pe) || pe.Pos.Line != 10 {
		t.Errorf("error %v; want %q and the model's error at line 10", err, want+"...")
	}
}

// TestUnconstrainErrorAsInits checks that Unconstrain reports a value
// outside its param's support as Inits does the same value: an *ast.Error
// at the method's name, the element named 0-based.
func TestUnconstrainErrorAsInits(t *testing.T) {
	m, err := Compile("m.gpp", []byte("data x: real[N]\nparam mu: real ~ Normal(0, 1)\nparam s: positive[2] ~ HalfNormal(1)\nx ~ Normal(mu, s[0])\n"),
		DataValues(map[string]any{"x": []float64{1, 2, 3}}))
	if err != nil {
		t.Fatal(err)
	}
	_, initsErr := m.Sample(context.Background(), SampleSettings(), Inits(map[string]any{"s": []float64{1, -1}}))
	_, uErr := m.Unconstrain([]float64{0, 1, -1})
	const msg = "s[1] is -1, outside s's support: want a positive value"
	for _, c := range []struct {
		err  error
		want string
	}{{initsErr, "Inits: " + msg}, {uErr, "Unconstrain: " + msg}} {
		var pe *ast.Error
		if c.err == nil || c.err.Error() != c.want || !errors.As(c.err, &pe) {
			t.Errorf("error %v (%T), want the *ast.Error %q", c.err, c.err, c.want)
		}
	}
}

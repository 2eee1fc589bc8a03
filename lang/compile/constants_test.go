package compile

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/stdlib"
)

// TestStanConstants: Stan's constants of no arguments (pi(), e(), ...)
// add their values to the log joint, and a model's own const named pi is
// the model's where the name is bare and π where it is called.
func TestStanConstants(t *testing.T) {
	const prior = "param m: real ~ Normal(0, 1)\n"
	base := compileSrc(t, "base.gpp", prior, nil)
	tests := []struct {
		name, src string
		value     func(m float64) float64 // the log joint less base's
		slope     float64                 // its derivative in m
	}{
		{"log(2 * pi())", prior + "target += log(2 * pi()) * m\n",
			func(m float64) float64 { return math.Log(2*math.Pi) * m }, math.Log(2 * math.Pi)},
		{"the others", prior + "target += e() + sqrt2() * m + log2() - log10() + machine_precision() / 2 ^ -52\n",
			func(m float64) float64 { return math.E + math.Sqrt2*m + math.Ln2 - math.Ln10 + 1 }, math.Sqrt2},
		{"const pi", "const pi = 3\n" + prior + "target += pi * m + log(pi())\n",
			func(m float64) float64 { return 3*m + math.Log(math.Pi) }, 3},
		{"a const of an infinity", "const c = fmin(4, positive_infinity()) + fmax(1, negative_infinity())\n" + prior + "target += c * m\n",
			func(m float64) float64 { return 5 * m }, 5},
	}
	for _, tt := range tests {
		m := compileSrc(t, "c.gpp", tt.src, nil)
		for _, x := range []float64{-0.7, 0.4, 2.5} {
			g, gb := make([]float64, 1), make([]float64, 1)
			v, err := m.LogJoint([]float64{x}, g)
			vb, errB := base.LogJoint([]float64{x}, gb)
			if err != nil || errB != nil {
				t.Fatalf("%s: %v, %v", tt.name, err, errB)
			}
			if want := tt.value(x); math.Abs(v-vb-want) > 1e-13*math.Max(1, math.Abs(want)) {
				t.Errorf("%s at m = %g: log joint %.17g more than the prior's, want %.17g", tt.name, x, v-vb, want)
			}
			if math.Abs(g[0]-gb[0]-tt.slope) > 1e-13 {
				t.Errorf("%s at m = %g: gradient %.17g more than the prior's, want %.17g", tt.name, x, g[0]-gb[0], tt.slope)
			}
		}
	}
}

// TestStanConstantsNotFinite: an infinity or NaN in the log density is a
// positioned compile error naming the call, not a failed evaluation.
func TestStanConstantsNotFinite(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"param m: real ~ Normal(0, 1)\ntarget += fmin(m, positive_infinity())\n", "c.gpp:2:19: positive_infinity() is +Inf: the log density and outputs hold finite values only"},
		{"param m: real ~ Normal(0, 1)\noutput z = m + not_a_number()\n", "c.gpp:2:16: not_a_number() is NaN:"},
	} {
		_, err := compileSrcErr(t, "c.gpp", tt.src, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.src, err, tt.want)
		}
	}
}

// TestStanConstantsInFunctions: every constant of no arguments has its
// value inside a user function's body, in both forms, as at the top level
// (the checker once refused pi() in a body as an unknown function); a
// constant that is not finite fails as at the top level, naming the call.
func TestStanConstantsInFunctions(t *testing.T) {
	const prior = "param m: real ~ Normal(0, 1)\n"
	base := compileSrc(t, "base.gpp", prior, nil)
	n := 0
	for _, f := range stdlib.Funcs() {
		if f.Shape != stdlib.Constant {
			continue
		}
		n++
		v := f.Fold(nil)
		src := "fn f(a) = a * " + f.Name + "()\n" +
			"fn g(a) {\n  let c = " + f.Name + "()\n  return c * a\n}\n" + prior + "target += f(m) + g(m)\n"
		if math.IsInf(v, 0) || math.IsNaN(v) {
			_, err := compileSrcErr(t, "c.gpp", src, nil)
			if err == nil || !strings.Contains(err.Error(), f.Name+"() is") {
				t.Errorf("%s() in a function: error %v, want one naming %s()", f.Name, err, f.Name)
			}
			continue
		}
		m := compileSrc(t, "c.gpp", src, nil)
		for _, x := range []float64{-0.7, 2.5} {
			g, gb := make([]float64, 1), make([]float64, 1)
			lj, err := m.LogJoint([]float64{x}, g)
			lb, errB := base.LogJoint([]float64{x}, gb)
			if err != nil || errB != nil {
				t.Fatalf("%s(): %v, %v", f.Name, err, errB)
			}
			if want := 2 * v * x; math.Abs(lj-lb-want) > 1e-13*math.Max(1, math.Abs(want)) {
				t.Errorf("%s() in a function at m = %g: log joint %.17g more than the prior's, want %.17g", f.Name, x, lj-lb, want)
			}
			if want := 2 * v; math.Abs(g[0]-gb[0]-want) > 1e-13*math.Max(1, math.Abs(want)) {
				t.Errorf("%s() in a function at m = %g: gradient %.17g more than the prior's, want %.17g", f.Name, x, g[0]-gb[0], want)
			}
		}
	}
	if n < 9 {
		t.Errorf("%d constants in the stdlib, want pi, e, sqrt2, log2, log10, the infinities, not_a_number and machine_precision", n)
	}
}

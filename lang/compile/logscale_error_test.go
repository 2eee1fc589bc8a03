package compile

import (
	"math"
	"testing"
)

// The error at a positive latent whose prior's log density is not finite
// names the value as the model wrote it, not its log coordinate, which
// the log-scale kernel is given: e^l where it is a float64, and l, named
// as the value's log, where e^l overflows or underflows.
func TestLogScalePriorErrorNamesValue(t *testing.T) {
	for _, c := range []struct {
		prior string
		l     float64
		want  string
	}{
		{"HalfNormal(1)", math.Log(1e200), "m.gpp:1:21: HalfNormal: log density is -Inf at value 1e+200 (sigma 1)"},
		{"HalfCauchy(2)", math.Log(1e300), "m.gpp:1:21: HalfCauchy: log density is -Inf at value 1e+300 (sigma 2)"},
		{"Exponential(1)", 800, "m.gpp:1:21: Exponential: log density is -Inf at value e^800, past the largest float64 (rate 1)"},
		{"InvGamma(2, 1)", -800, "m.gpp:1:21: InvGamma: log density is -Inf at value e^-800, which underflows to 0 (shape 2, scale 1)"},
		// families without a log-space kernel, evaluated at e^l: a
		// negative l is no value outside the support
		{"Rayleigh(1)", math.Log(1e200), "m.gpp:1:21: Rayleigh: log density is -Inf at value 1e+200 (sigma 1)"},
		{"ChiSquare(4)", -800, "m.gpp:1:21: ChiSquare: log density is -Inf at value e^-800, which underflows to 0 (nu 4)"},
	} {
		m := compileSrc(t, "m.gpp", "param s: positive ~ "+c.prior+"\n", nil)
		x, g := []float64{c.l}, make([]float64, m.Dim)
		_, err := m.LogJoint(x, g)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s at log s = %g:\ngot  %v\nwant %s", c.prior, c.l, err, c.want)
		}
	}
}

// A log joint that fails at a ~ whose log density is −Inf (HalfNormal(1)'s
// −s²/2 overflows past s = 1e154) is −Inf, as Stan's log_prob gives, with
// the error, from LogJoint and LogJointValue alike; one that fails with a
// NaN (an invalid argument) is NaN.
func TestFailedLogJointNegInf(t *testing.T) {
	m := compileSrc(t, "m.gpp", "param s: positive ~ HalfNormal(1)\nparam b: real ~ Normal(0, 1)\n", nil)
	g := make([]float64, m.Dim)
	for _, c := range []struct {
		x    []float64
		want float64
	}{
		{[]float64{math.Log(1e200), 0}, math.Inf(-1)},
		{[]float64{math.Log(1e160), 0}, math.Inf(-1)},
		{[]float64{0, 1e200}, math.Inf(-1)}, // Normal's −b²/2
	} {
		lp, err := m.LogJoint(c.x, g)
		if err == nil || lp != c.want {
			t.Errorf("at %v: log joint %v (error %v), want %v with an error", c.x, lp, err, c.want)
		}
		// the log joint alone (ForwardJoint: the ELBO's, gpp logprob's
		// and model.LogDensity's) is the same, with the same error
		v, verr := m.LogJointValue(c.x)
		if verr == nil || v != c.want || verr.Error() != err.Error() {
			t.Errorf("at %v: LogJointValue %v (error %v), want %v with LogJoint's error", c.x, v, verr, c.want)
		}
	}
	m = compileSrc(t, "m.gpp", "param b: real ~ Normal(0, 1)\ntarget += log(b)\n", nil)
	if lp, err := m.LogJoint([]float64{-1}, g[:1]); err == nil || !math.IsNaN(lp) {
		t.Errorf("log(-1): log joint %v (error %v), want NaN with an error", lp, err)
	}
}

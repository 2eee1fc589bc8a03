package compile

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/gpplang/gpp/data"
)

// outsideInput is reaction times, some above 2 (the support of the
// contaminant Uniform(0, 2)): rt all of them, rin those in [0, 2] and
// rout the others, for the reference written without the −Inf.
func outsideInput(t *testing.T) data.Input {
	t.Helper()
	js, err := data.ReadJSON("rt.json", strings.NewReader(`{"rt": [2.6, 0.5, 1.1, 3.0, 0.8, 2.2], "rin": [0.5, 1.1, 0.8], "rout": [2.6, 3.0, 2.2]}`))
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "rt.json", JSON: js}
}

const outsideDecls = "data rt: real[6]\ndata rin: real[3]\ndata rout: real[3]\nparam m: real\nparam s: positive\nparam w: positive\n"

// TestLogPDFOutsideTakenIn checks that logpdf's −Inf at a value outside
// the support is a value that log_mix, log_sum_exp and exp take in, as
// Stan's uniform_lpdf(3 | 0, 2) is −inf and log_mix(0.95, lp1, that) is
// log(0.95) + lp1: the contaminant mixture over all rows, some above the
// Uniform's 2, has the log joint and gradient of the same model written
// without the −Inf, whether the Uniform is of the data alone (evaluated
// once) or of a param.
func TestLogPDFOutsideTakenIn(t *testing.T) {
	in := outsideInput(t)
	const plain = "target += sum(log_mix(0.95, logpdf(rin, LogNormal(m, s)), logpdf(rin, Uniform(0, 2)))) + sum(log(0.95) + logpdf(rout, LogNormal(m, s)))\n"
	for _, c := range []plainCase{
		{"log_mix", "target += sum(log_mix(0.95, logpdf(rt, LogNormal(m, s)), logpdf(rt, Uniform(0, 2))))\n", plain},
		{"log_mix in a loop", "for i in 0:6 {\n  target += log_mix(0.95, logpdf(rt[i], LogNormal(m, s)), logpdf(rt[i], Uniform(0, 2)))\n}\n", plain},
		{"log_sum_exp", "target += sum(log_sum_exp(log(0.95) + logpdf(rt, LogNormal(m, s)), log(0.05) + logpdf(rt, Uniform(0, 2))))\n", plain},
		{"exp", "target += sum(log(0.95 * exp(logpdf(rt, LogNormal(m, s))) + 0.05 * exp(logpdf(rt, Uniform(0, 2)))))\n", plain},
		{"logsumexp of a vector", "for i in 0:6 {\n  target += logsumexp([log(0.95) + logpdf(rt[i], LogNormal(m, s)), log(0.05) + logpdf(rt[i], Uniform(0, 2))])\n}\n", plain},
		{"rowlogsumexp", "target += sum(rowlogsumexp(append_col(log(0.95) + logpdf(rt, LogNormal(m, s)), log(0.05) + logpdf(rt, Uniform(0, 2)))))\n", plain},
		{"log_mix with a param's weight and bound", "target += sum(log_mix(inv_logit(w), logpdf(rt, LogNormal(m, s)), logpdf(rt, Uniform(0, 2 + 0 * w))))\n",
			"target += sum(log_mix(inv_logit(w), logpdf(rin, LogNormal(m, s)), logpdf(rin, Uniform(0, 2)))) + sum(log(inv_logit(w)) + logpdf(rout, LogNormal(m, s)))\n"},
		// a log CDF's log 0 of the data alone, taken in, as one of a param's
		{"log_diff_exp of a log CDF of the data alone", "target += log_diff_exp(logcdf(2, Weibull(2, 1)), logcdf(0, Weibull(2, 1))) + logpdf(m, Normal(s, w))\n",
			"target += logcdf(2, Weibull(2, 1)) + logpdf(m, Normal(s, w))\n"},
	} {
		m := wantSamePlain(t, outsideDecls, in, nil, c)
		x := []float64{0.1, 0.4, -1.2}
		v, err := m.LogJoint(x, make([]float64, 3))
		if w, err2 := m.LogJointValue(x); err != nil || err2 != nil || w != v || math.IsInf(v, 0) {
			t.Errorf("%s: log joint %v (%v), value-only %v (%v)", c.name, v, err, w, err2)
		}
	}
}

// TestLogPDFOutsideGradient checks the gradient of a mixture whose
// contaminant's bound is a param, Uniform(0, 1.5 + w), against finite
// differences at points where some rows are above it: the partials of an
// element outside the support are 0, not NaN, so the log joint's gradient
// is finite and is the derivative of the rows inside.
func TestLogPDFOutsideGradient(t *testing.T) {
	m := compileSrc(t, "g.gpp", outsideDecls+"target += sum(log_mix(0.9, logpdf(rt, LogNormal(m, s)), logpdf(rt, Uniform(0, 1.5 + w))))\n", nil, outsideInput(t))
	f := func(x []float64) float64 {
		v, err := m.LogJoint(x, make([]float64, len(x)))
		if err != nil {
			t.Fatalf("LogJoint at %v: %v", x, err)
		}
		return v
	}
	// w = e^x[2]: 0.30 (all of 2.6, 3, 2.2 outside), 0.82 (3 and 2.6), 1.35 (3)
	for _, x := range [][]float64{{0.1, 0.4, -1.2}, {-0.5, -0.3, -0.2}, {0.3, 0.2, 0.3}} {
		g := make([]float64, 3)
		if _, err := m.LogJoint(x, g); err != nil {
			t.Fatal(err)
		}
		want := fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		for i := range want {
			if math.IsNaN(g[i]) || math.Abs(g[i]-want[i])/math.Max(1, math.Abs(want[i])) > gradTol {
				t.Errorf("at %v: d/dx[%d] = %.10g, finite differences %.10g", x, i, g[i], want[i])
			}
		}
	}
}

// TestLogPDFOutsideErrors checks where logpdf's −Inf outside the support
// is still an error, with the message it had before it was a value: where
// it reaches the log joint (found before the fit when it is of the data
// alone and only sums lead there), where a product makes it NaN, where
// log_mix's both terms are 0; an argument outside its support is an
// error too, and log_mix's own failure is blamed on theta, not on the
// −Inf it took in.
func TestLogPDFOutsideErrors(t *testing.T) {
	in := outsideInput(t)
	wantFitErrors(t, "e.gpp", outsideDecls, in, []srcWant{
		{"target += logpdf(3, Uniform(0, 2 + 0 * m))\n", "e.gpp:7:11: Uniform: log density is -Inf at value 3 (lo 0, hi 2)"},
		{"target += 1 + sum(logpdf(rt, Uniform(0, 1 + w)))\n", "e.gpp:7:19: Uniform: log density is -Inf at value 2.6 (lo 0, hi 2, element [0]); the value is rt's at rt.json:1:9"},
		{"target += sum(log_mix(0.9, logpdf(rt, Uniform(0, 1 + w)), logpdf(rt, Uniform(0, 2))))\n", "e.gpp:7:28: Uniform: log density is -Inf at value 2.6 (lo 0, hi 2, element [0]); the value is rt's at rt.json:1:9"},
		{"target += sum(w * logpdf(rt, Uniform(0, 2)))\n", "e.gpp:7:19: Uniform: log density is -Inf at value 2.6 (lo 0, hi 2, element [0]); the value is rt's at rt.json:1:9"},
		{"target += log_mix(0.9, logpdf(1, Normal(0, exp(-800 + m))), logpdf(3, Uniform(0, 2)))\n", "e.gpp:7:24: Normal: sigma must be > 0 (got 0)"},
		{"target += sum(log_mix(1.5 + 0 * m, logpdf(rt, LogNormal(m, s)), logpdf(rt, Uniform(0, 2))))\n", "e.gpp:7:15: log_mix: theta must be in [0, 1] (got 1.5) (lp1 -2.33095, lp2 -Inf, element [0])"},
	})
	for _, c := range []srcWant{
		{"target += logpdf(3, Uniform(0, 2))\n", "e.gpp:7:11: Uniform: log density is -Inf at value 3 (lo 0, hi 2)"},
		{"target += sum(logpdf(rt, Uniform(0, 2))) - m\n", "e.gpp:7:15: Uniform: log density is -Inf at value 2.6 (lo 0, hi 2, element [0]); the value is rt's at rt.json:1:9"},
		{"target += sum(log_mix(0.9 + 0 * m, logpdf(rt, LogNormal(0, 1)), 0 * logpdf(rt, Uniform(0, 2))))\n", "e.gpp:7:69: Uniform: log density is -Inf at value 2.6 (lo 0, hi 2, element [0]); the value is rt's at rt.json:1:9"},
	} {
		if _, err := compileSrcErr(t, "e.gpp", outsideDecls+c.src, nil, in); err == nil || err.Error() != c.want {
			t.Errorf("%s: compile error %v, want %q", strings.TrimSpace(c.src), err, c.want)
		}
	}
	// the ~'s density is not logpdf: a value outside the support fails
	m := compileSrc(t, "e.gpp", outsideDecls+"rt ~ Uniform(0, 2 + w)\n", nil, in)
	if _, err := m.LogJoint([]float64{0, 0, -1}, make([]float64, 3)); err == nil || !strings.Contains(err.Error(), "Uniform: log density is -Inf at value 2.6") {
		t.Errorf("rt ~ Uniform(0, 2 + w) above it: %v", err)
	}
}

// TestLogPDFOutsideOutput checks that an output that is logpdf at a
// value outside the support is written as −Inf without an error, as a
// log CDF's log 0 is, while one of an invalid argument is reported.
func TestLogPDFOutsideOutput(t *testing.T) {
	m := compileSrc(t, "o.gpp", outsideDecls+"m ~ Normal(0, 1)\noutput a = logpdf(rt, Uniform(0, 2))\noutput b = logpdf(rt, Uniform(0, 2 * w))\n", nil, outsideInput(t))
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	_, outs, err := ev.Eval([]float64{0, 0, 0})
	if err != nil || ev.OutputErr() != nil {
		t.Fatalf("eval: %v, output error %v", err, ev.OutputErr())
	}
	outside := []bool{true, false, false, true, false, true} // rt 2.6, 0.5, 1.1, 3.0, 0.8, 2.2 against (0, 2)
	if len(outs) != 2 {
		t.Fatalf("%d outputs, want 2", len(outs))
	}
	for o, out := range outs {
		if len(out) != len(outside) {
			t.Fatalf("output %d has %d elements, want %d", o, len(out), len(outside))
		}
		for k, v := range out {
			if (v == math.Inf(-1)) != outside[k] {
				t.Errorf("output %d[%d] = %g", o, k, v)
			}
		}
	}
	bad := compileSrc(t, "o.gpp", outsideDecls+"m ~ Normal(0, 1)\noutput a = logpdf(rt, LogNormal(0, exp(-800 + w)))\n", nil, outsideInput(t))
	ev, err = bad.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ev.Eval([]float64{0, 0, 0}); err != nil || ev.OutputErr() == nil {
		t.Errorf("LogNormal(0, e^-800): error %v, output error %v, want an output error", err, ev.OutputErr())
	}
}

// TestLogPDFOutsideAllocs checks that a mixture whose contaminant's bound
// is a param, with rows outside its support at every evaluation, costs a
// gradient or a value no allocation: the check that those −Infs are
// values (infIsValue) runs on each evaluation, on the hot path of a fit.
func TestLogPDFOutsideAllocs(t *testing.T) {
	m := compileSrc(t, "g.gpp", outsideDecls+"target += sum(log_mix(0.9, logpdf(rt, LogNormal(m, s)), logpdf(rt, Uniform(0, 1.5 + w))))\n", nil, outsideInput(t))
	x, g := []float64{0.1, 0.4, -1.2}, make([]float64, 3) // w = 0.30: 2.6, 3, 2.2 outside
	if _, err := m.LogJoint(x, g); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(50, func() { m.LogJoint(x, g) }); a != 0 {
		t.Errorf("LogJoint allocates %v times an evaluation", a)
	}
	if a := testing.AllocsPerRun(50, func() { m.LogJointValue(x) }); a != 0 {
		t.Errorf("LogJointValue allocates %v times an evaluation", a)
	}
}

package compile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// wienerTol bounds the log joint of Wiener against dist.Wiener's sum,
// relative to max(1, |value|).
const wienerTol = 1e-12

// Wiener(alpha, tau, beta, delta) in the log joint is dist.Wiener summed
// over the reaction times, with params in every argument (a drift per
// element, broadcast against scalars) and a lower response written as
// Wiener(alpha, tau, 1 − beta, −delta); the gradient matches finite
// differences and a step allocates nothing.
func TestWiener(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"rt": [0.31, 0.55, 1.4, 3.2], "rl": [0.26, 0.9]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	rt, rl := []float64{0.31, 0.55, 1.4, 3.2}, []float64{0.26, 0.9}
	const src = "data rt: real[4]\ndata rl: real[2]\nparam la: real\nparam lt: real\nparam lb: real\nparam d: real[4]\n" +
		"let tau = 0.25 * inv_logit(lt)\n" +
		"rt ~ Wiener(exp(la), tau, inv_logit(lb), d)\n" +
		"target += sum(logpdf(rl, Wiener(exp(la), tau, 1 - inv_logit(lb), -d[0])))\n"
	want := func(x []float64) float64 {
		a, tau, b := math.Exp(x[0]), 0.25/(1+math.Exp(-x[1])), 1/(1+math.Exp(-x[2]))
		s := 0.0
		for i, y := range rt {
			s += dist.Wiener{Alpha: a, Tau: tau, Beta: b, Delta: x[3+i]}.LogProb(y)
		}
		for _, y := range rl {
			s += dist.Wiener{Alpha: a, Tau: tau, Beta: 1 - b, Delta: -x[3]}.LogProb(y)
		}
		return s
	}
	m := compileSrc(t, "w.gpp", src, nil, in)
	rng := rand.New(rand.NewPCG(5, 11))
	x, g := make([]float64, m.Dim), make([]float64, m.Dim)
	for trial := range 4 {
		fillNormal(x, rng, 0, 1.5)
		got, err := m.LogJoint(x, g)
		if err != nil {
			t.Fatal(err)
		}
		if w := want(x); math.Abs(got-w) > wienerTol*max(1, math.Abs(w)) {
			t.Errorf("trial %d: log joint %.17g, reference %.17g", trial, got, w)
		}
	}
	checkGradient(t, m, 9, 1.5)
	if a := testing.AllocsPerRun(10, func() { m.LogJoint(x, g) }); a != 0 {
		t.Errorf("LogJoint allocates %v times per call, want 0", a)
	}
}

// A reaction time at or below tau is an error at fit time naming the ~,
// the element and its value.
func TestWienerBelowTau(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"rt": [0.8, 0.35, 1.1]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := compileSrc(t, "w.gpp", "data rt: real[3]\nparam a: positive ~ Gamma(2, 2)\nrt ~ Wiener(a, 0.4, 0.5, 0.3)\n", nil, data.Input{File: "d.json", JSON: js})
	x, g := make([]float64, m.Dim), make([]float64, m.Dim)
	_, err = m.LogJoint(x, g)
	const want = "w.gpp:3:6: Wiener: log density is -Inf at value 0.35, not above tau, where Wiener's support starts (alpha 1, tau 0.4, beta 0.5, delta 0.3, element [1]); the value is rt's at d.json:1:14"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

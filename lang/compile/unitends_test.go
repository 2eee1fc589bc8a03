package compile

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// A probability that rounds to an end is Stan's: Bernoulli(inv_logit(eta))
// with inv_logit(eta) = 1 past eta ≈ 36.7 has log mass 0 at y = 1 with a
// finite gradient, and −Inf at y = 0, reported as a value outside the
// support (a user trial's probit JSDM read "Bernoulli: p must be in (0, 1)
// (got 1 ...)" at such points). A p of data alone at 1 compiles where y =
// 1, and is still an error naming y's cell where y = 0; logpdf(0,
// Bernoulli(1)) is a log 0 for log_mix.
func TestProbabilityAtEnd(t *testing.T) {
	in := func(y ...float64) data.Input {
		return data.Input{JSON: map[string]*data.Array{
			"y": {Name: "y", Shape: []int{3}, Values: y, Int: true},
			"x": {Name: "x", Shape: []int{3}, Values: []float64{1, 2, -0.05}},
		}}
	}
	const src = "data y: int<lower=0, upper=1>[N]\ndata x: real[N]\nparam b: real ~ Normal(0, 1)\ny ~ Bernoulli(inv_logit(100 * x + b))\n"
	m, err := compileSrcErr(t, "m.gpp", src, nil, in(1, 1, 0))
	if err != nil {
		t.Fatal(err)
	}
	// b = 0: inv_logit(100) and inv_logit(200) round to 1, at y = 1
	g := make([]float64, 1)
	lp, err := m.LogJoint([]float64{0}, g)
	if err != nil || math.IsNaN(lp) || math.IsInf(lp, 0) || math.IsNaN(g[0]) || math.IsInf(g[0], 0) {
		t.Fatalf("p = 1 at y = 1: log joint %g, gradient %v, error %v; want finite", lp, g, err)
	}
	// the gradient against central differences
	const h = 1e-5
	lpp, _ := m.LogJointValue([]float64{h})
	lpm, _ := m.LogJointValue([]float64{-h})
	if fd := (lpp - lpm) / (2 * h); math.Abs(fd-g[0]) > 1e-5*math.Max(1, math.Abs(g[0])) {
		t.Errorf("gradient %g, central difference %g", g[0], fd)
	}
	// y = 0 at x = 2: −Inf, a value outside the support
	m, err = compileSrcErr(t, "m.gpp", src, nil, in(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.LogJoint([]float64{0}, g)
	const want = "m.gpp:4:5: Bernoulli: log density is -Inf at value 0 (p 1, element [1])"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("p = 1 at y = 0: error %v, want %s", err, want)
	}
	// logpdf's −Inf there is a log 0 that log_mix takes in (it was NaN)
	const msrc = "data y: int<lower=0, upper=1>[N]\ndata x: real[N]\nparam b: real ~ Normal(0, 1)\ntarget += sum(log_mix(0.5, logpdf(y, Bernoulli(inv_logit(100 * x + b))), logpdf(y, Bernoulli(0.5))))\n"
	m, err = compileSrcErr(t, "m.gpp", msrc, nil, in(1, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	lp, err = m.LogJoint([]float64{0}, g)
	if err != nil || math.IsNaN(lp) || math.IsInf(lp, 0) || math.IsNaN(g[0]) || math.IsInf(g[0], 0) {
		t.Errorf("log_mix of logpdf at p = 1, y = 0: log joint %g, gradient %v, error %v; want finite", lp, g, err)
	}
	// p of data alone: 1 where y = 1 compiles; y = 0 names y's cell
	const dsrc = "data y: int<lower=0, upper=1>[N]\ndata x: real[N]\nparam b: real ~ Normal(0, 1)\ny ~ Bernoulli(inv_logit(100 * x))\nb ~ Normal(0, 1)\n"
	if _, err := compileSrcErr(t, "m.gpp", dsrc, nil, in(1, 1, 1)); err != nil {
		t.Errorf("p of data alone at 1, y = 1: %v", err)
	}
	_, err = compileSrcErr(t, "m.gpp", dsrc, nil, in(1, 0, 1))
	if err == nil || !strings.Contains(err.Error(), "Bernoulli: log density is -Inf at value 0 (p 1, element [1])") {
		t.Errorf("p of data alone at 1, y = 0: error %v", err)
	}
}

// Bernoulli(Phi(eta)) is evaluated in eta (dist.BernoulliProbit): where
// Phi(eta) rounds to 1 at y = 0 (eta = 20) or to 0 at y = 1 (eta = −40)
// the log joint is log Phi(−20) + log Phi(−40), finite, with the gradient
// of central differences (a user trial's probit JSDM found no finite start
// in 100, and NUTS rejected warm-up points, where Phi rounded).
func TestBernoulliPhiInEta(t *testing.T) {
	const src = "data y: int<lower=0, upper=1>[N]\ndata x: real[N]\nparam b: real\ny ~ Bernoulli(Phi(x + b))\n"
	in := data.Input{JSON: map[string]*data.Array{
		"y": {Name: "y", Shape: []int{2}, Values: []float64{0, 1}, Int: true},
		"x": {Name: "x", Shape: []int{2}, Values: []float64{20, -40}},
	}}
	m, err := compileSrcErr(t, "m.gpp", src, nil, in)
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, 1)
	lp, err := m.LogJoint([]float64{0}, g)
	// log Phi(−z) ≈ −z²/2 − log z − ½ log 2π − 1/z² + 5/(2z⁴) for large z,
	// and its derivative −z − 1/z + 2/z³ − 10/z⁵ (Mills' ratio)
	tail := func(z float64) (float64, float64) {
		return -z*z/2 - math.Log(z) - 0.5*math.Log(2*math.Pi) - 1/(z*z) + 2.5/(z*z*z*z), -z - 1/z + 2/(z*z*z) - 10/(z*z*z*z*z)
	}
	l20, d20 := tail(20)
	l40, d40 := tail(40)
	want, wantG := l20+l40, d20-d40 // d/db log Phi(−(20 + b)) and log Phi(−40 + b)
	if err != nil || math.Abs(lp-want) > 1e-9*math.Abs(want) || math.Abs(g[0]-wantG) > 1e-6*math.Abs(wantG) {
		t.Fatalf("log joint %v, gradient %v, error %v; want %v, %v", lp, g, err, want, wantG)
	}
}

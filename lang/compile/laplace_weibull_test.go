package compile

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// closedFormTol is the relative agreement of a compiled log joint with the
// closed form written out in the test.
const closedFormTol = 1e-12

// laplaceLog and weibullLog are the closed forms, written out here apart
// from package dist: −log 2σ − |y − μ|/σ and log α − log σ + (α − 1)·log(y/σ)
// − (y/σ)^α.
func laplaceLog(y, mu, sigma float64) float64 {
	return -math.Log(2*sigma) - math.Abs(y-mu)/sigma
}

func weibullLog(y, alpha, sigma float64) float64 {
	return math.Log(alpha/sigma) + (alpha-1)*math.Log(y/sigma) - math.Pow(y/sigma, alpha)
}

// A model with Laplace and Weibull likelihoods (through ~ and through
// logpdf) and priors (on a real vector, a positive scalar, and truncated
// to the unit and positive supports) has the log joint of the closed
// forms, its prior means as start values, and a gradient that agrees with
// finite differences.
func TestLaplaceWeibullLogJoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	const n = 6
	y := &data.Array{Name: "y", Shape: []int{n}}
	tt := &data.Array{Name: "t", Shape: []int{n}}
	for i := 0; i < n; i++ {
		y.Values = append(y.Values, 3*rng.NormFloat64())
		tt.Values = append(tt.Values, 0.1+3*rng.Float64())
	}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{"y": y, "t": tt}}
	src := `data y: real[N]
data t: positive[N]
param mu: real
param s: positive
param a: positive ~ Weibull(1.5, 2)
param sc: positive
param b: real[2] ~ Laplace(0.5, 2)
param p: unit ~ Weibull(2, 1.5)
param h: positive ~ Laplace(1, 2)
param q: unit ~ Laplace(0.3, 0.5)
y ~ Laplace(mu, s)
t ~ Weibull(a, sc)
target += sum(logpdf(y, Laplace(b[0], s))) + sum(logpdf(t, Weibull(a, sc)))
`
	m := compileSrc(t, "lw.gpp", src, nil, in)
	if m.Dim != 9 {
		t.Fatalf("dimension %d, want 9", m.Dim)
	}
	// Prior means as start values: Weibull's σΓ(1 + 1/α), Laplace's μ; a
	// truncated prior has none.
	init := map[string][]float64{}
	for _, l := range m.Latents {
		init[l.Name] = l.Init
	}
	if got, want := init["a"], 2*math.Gamma(1+1/1.5); len(got) != 1 || math.Abs(got[0]-want) > closedFormTol*want {
		t.Errorf("start value of a: %v, want [%v]", got, want)
	}
	if got := init["b"]; len(got) != 2 || got[0] != 0.5 || got[1] != 0.5 {
		t.Errorf("start value of b: %v, want [0.5 0.5]", got)
	}
	if init["h"] != nil {
		t.Errorf("start value of the truncated h: %v, want none", init["h"])
	}

	laplaceCDF := func(x, mu, sigma float64) float64 {
		if x < mu {
			return 0.5 * math.Exp((x-mu)/sigma)
		}
		return 1 - 0.5*math.Exp(-(x-mu)/sigma)
	}
	x := make([]float64, m.Dim)
	for trial := 0; trial < 3; trial++ {
		fillNormal(x, rng, 0, 0.7)
		got, err := m.LogJoint(x, make([]float64, m.Dim))
		if err != nil {
			t.Fatal(err)
		}
		// coordinates: mu, log s, log a, log sc, b[0], b[1], logit p, log h, logit q
		mu, s, a, sc := x[0], math.Exp(x[1]), math.Exp(x[2]), math.Exp(x[3])
		b0, b1 := x[4], x[5]
		p, h, q := 1/(1+math.Exp(-x[6])), math.Exp(x[7]), 1/(1+math.Exp(-x[8]))
		want := weibullLog(a, 1.5, 2) + laplaceLog(b0, 0.5, 2) + laplaceLog(b1, 0.5, 2) +
			weibullLog(p, 2, 1.5) - math.Log(1-math.Exp(-math.Pow(1/1.5, 2))) +
			laplaceLog(h, 1, 2) - math.Log(1-laplaceCDF(0, 1, 2)) +
			laplaceLog(q, 0.3, 0.5) - math.Log(laplaceCDF(1, 0.3, 0.5)-laplaceCDF(0, 0.3, 0.5))
		for i := range y.Values {
			want += laplaceLog(y.Values[i], mu, s) + laplaceLog(y.Values[i], b0, s)
			want += 2 * weibullLog(tt.Values[i], a, sc)
		}
		if math.Abs(got-want) > closedFormTol*math.Max(1, math.Abs(want)) {
			t.Errorf("trial %d: log joint %.17g, closed form %.17g", trial, got, want)
		}
	}
	checkGradient(t, m, 22, 0.7)
}

// Laplace and Weibull replicates (output y_rep ~ D(args)) have D's mean
// and variance per element.
func TestLaplaceWeibullPredictive(t *testing.T) {
	m := compileSrc(t, "p.gpp", `param b: real
target += -b * b
output lap ~ Laplace(rep(b, 2), 1.5)
output wei ~ Weibull(2, rep(exp(b), 2))
`, nil, data.Input{})
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(23, 1)))
	const b = 0.4
	sc := math.Exp(b)
	g1, g2 := math.Gamma(1.5), math.Gamma(2)
	means := [][]float64{{b, b}, {sc * g1, sc * g1}}
	vl, vw := 2*1.5*1.5, sc*sc*(g2-g1*g1)
	checkReplicateMoments(t, ev, []float64{b}, 20000, []string{"lap", "wei"}, means, [][]float64{{vl, vl}, {vw, vw}})
}

// A Weibull shape or scale, or a Laplace scale, that leaves its support at
// fit time (an exp that underflows to 0: the checker has shown the
// expression positive) stops the evaluation with the distribution, the
// argument, its value and the element, at the density.
func TestLaplaceWeibullBadParameter(t *testing.T) {
	tt := &data.Array{Name: "t", Shape: []int{3}, Values: []float64{0.5, 1, 2}}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{"t": tt}}
	for _, c := range []struct {
		name, model string
		x           []float64
		want        string
	}{
		{"Weibull shape", "data t: positive[N]\nparam g: real[N]\nt ~ Weibull(exp(g), 1)\n",
			[]float64{0, -800, 0}, "m.gpp:3:5: Weibull: shape must be > 0 (got 0, element [1])"},
		{"Weibull scale", "data t: positive[N]\nparam g: real\nt ~ Weibull(2, exp(g))\n",
			[]float64{-800}, "m.gpp:3:5: Weibull: scale must be > 0 (got 0, element [0])"},
		{"Laplace scale", "data t: positive[N]\nparam g: real[N]\nt ~ Laplace(0, exp(g))\n",
			[]float64{0, 0, -800}, "m.gpp:3:5: Laplace: sigma must be > 0 (got 0, element [2])"},
		{"Laplace scale in logpdf", "data t: positive[N]\nparam g: real\ntarget += sum(logpdf(t, Laplace(1, exp(g))))\n",
			[]float64{-800}, "m.gpp:3:15: Laplace: sigma must be > 0 (got 0, element [0])"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, "m.gpp", c.model, nil, in)
			_, err := m.LogJoint(c.x, make([]float64, len(c.x)))
			if err == nil || err.Error() != c.want {
				t.Errorf("error %v, want %s", err, c.want)
			}
		})
	}
	// Out of the value's support: a Weibull value of 0.
	m := compileSrc(t, "m.gpp", "data t: positive[N]\nparam g: real\ntarget += sum(logpdf(t * 0, Weibull(2, exp(g))))\n", nil, in)
	_, err := m.LogJoint([]float64{0}, make([]float64, 1))
	if err == nil || !strings.Contains(err.Error(), "value 0 outside the support of Weibull (element [0])") {
		t.Errorf("error %v, want the value outside Weibull's support", err)
	}
}

// logLaplaceMass, the normaliser of a truncated Laplace prior, keeps its
// digits where a difference of CDFs would cancel: both ends far on one side
// of mu, and a wide scale across it.
func TestLaplaceMass(t *testing.T) {
	for _, c := range []struct{ a, b, mu, sigma, want float64 }{
		{0, math.Inf(1), 0, 1, 0.5},
		{0, math.Inf(1), -3, 2, 0.5 * math.Exp(-1.5)},
		{0, math.Inf(1), 3, 2, 1 - 0.5*math.Exp(-1.5)},
		{0, 1, 40, 1, 0.5 * math.Exp(-40) * (math.E - 1)},    // a difference of survivals rounds to 0
		{0, 1, -40, 1, 0.5 * math.Exp(-40) * (1 - 1/math.E)}, // the other side
		{0, 1, 0.5, 1e8, 5e-9 * (1 - 0.25e-8)},               // CDF(1) − CDF(0) would keep 8 digits
	} {
		got := logLaplaceMass(c.a, c.b, c.mu, c.sigma)
		if want := math.Log(c.want); math.Abs(got-want) > closedFormTol {
			t.Errorf("logLaplaceMass(%v, %v | %v, %v) = %.17g, want %.17g", c.a, c.b, c.mu, c.sigma, got, want)
		}
	}
}

// TestSurvivalExampleGradient: examples/survival.gpp's log joint, with its
// data (200 times, 71 censored), against finite differences: the Weibull
// log density and log survival masked by the censoring indicator, the
// frailties gathered by group.
func TestSurvivalExampleGradient(t *testing.T) {
	f, err := os.Open("../../examples/survival.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := data.ReadCSV("survival.csv", f)
	if err != nil {
		t.Fatal(err)
	}
	m := compileFile(t, "../../examples/survival.gpp", nil, data.Input{File: "survival.csv", Table: tab})
	if m.Dim != 14 {
		t.Fatalf("Dim = %d, want 14", m.Dim)
	}
	checkGradient(t, m, 11, 0.5)
}

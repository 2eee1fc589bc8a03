package pipeline_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"gonum.org/v1/gonum/stat/distuv"
)

// Bounded params, real<lower=L, upper=U>, real<lower=L> and real<upper=U>,
// against their exact one-dimensional posteriors by quadrature: a binomial
// proportion under a Normal prior truncated to (0.2, 0.7) (a beta factor on
// (p − 0.2)/0.5), a Poisson rate with a Gamma prior truncated to (2, ∞) (a
// gamma factor on λ − 2) and a normal mean with a Normal prior truncated to
// (−∞, 0) (a gamma factor on −d). Each posterior piles up against its
// bound, so a fit that ignored the bound or misplaced it would miss the
// mean; the ELBO is held against the exact log evidence, which it must not
// exceed and which a dropped Jacobian (log 0.5 for the first) or
// truncation normaliser (log 0.69, log 0.41, log 2) would move it past or
// far below. The last two cases take their bounds from the data.
func TestBoundedParams(t *testing.T) {
	if testing.Short() {
		t.Skip("fits three models")
	}
	normal := func(x, m, s float64) float64 { return -0.5 * (x - m) * (x - m) / (s * s) }
	for _, c := range []struct {
		name, src, data string
		param           string
		lo, hi          float64 // the quadrature's range
		// logJoint is log p(data, x) with every constant: the truncated
		// prior normalised on the bounds.
		logJoint func(x float64) float64
	}{
		{"two bounds", "data k: int<lower=0>\ndata n: int<lower=0>\nparam p: real<lower=0.2, upper=0.7> ~ Normal(0.5, 0.2)\nk ~ Binomial(n, p)\n",
			`{"k": 33, "n": 50}`, "p", 0.2, 0.7,
			func(p float64) float64 {
				mass := distuv.UnitNormal.CDF(1) - distuv.UnitNormal.CDF(-1.5)
				return normal(p, 0.5, 0.2) - math.Log(0.2*math.Sqrt(2*math.Pi)*mass) + lchoose(50, 33) + 33*math.Log(p) + 17*math.Log1p(-p)
			}},
		{"lower bound", "data y: int[N]\nparam lam: real<lower=2> ~ Gamma(2, 0.5)\ny ~ Poisson(lam)\n",
			`{"y": [1, 3, 2, 0, 2, 1, 4, 2]}`, "lam", 2, 12,
			func(l float64) float64 {
				prior := 2*math.Log(0.5) + math.Log(l) - 0.5*l - math.Log(distuv.Gamma{Alpha: 2, Beta: 0.5}.Survival(2)) // Γ(2) = 1
				lik := 15*math.Log(l) - 8*l
				for _, y := range []float64{1, 3, 2, 0, 2, 1, 4, 2} {
					lik -= lgammaOf(y + 1)
				}
				return prior + lik
			}},
		{"upper bound", "data y: real[N]\nparam d: real<upper=0> ~ Normal(0, 1)\ny ~ Normal(d, 1)\n",
			`{"y": [0.3, -0.2, 0.9, 0.4]}`, "d", -6, 0,
			func(d float64) float64 {
				lik := -4 * 0.5 * math.Log(2*math.Pi)
				for _, y := range []float64{0.3, -0.2, 0.9, 0.4} {
					lik += normal(y, d, 1)
				}
				return normal(d, 0, 1) - 0.5*math.Log(2*math.Pi) + math.Log(2) + lik
			}},
		// The same posteriors with bounds taken from the data: the bounds'
		// values, the map and the truncation normaliser come when the
		// model compiles with its data. The data's declared supports tell
		// the checker that p is in (0, 1) and lam positive.
		{"two bounds of data", "data k: int<lower=0>\ndata n: int<lower=0>\ndata lo: real<lower=0>\ndata hi: real<upper=1>\nparam p: real<lower=lo, upper=hi> ~ Normal(0.5, 0.2)\nk ~ Binomial(n, p)\n",
			`{"k": 33, "n": 50, "lo": 0.2, "hi": 0.7}`, "p", 0.2, 0.7,
			func(p float64) float64 {
				mass := distuv.UnitNormal.CDF(1) - distuv.UnitNormal.CDF(-1.5)
				return normal(p, 0.5, 0.2) - math.Log(0.2*math.Sqrt(2*math.Pi)*mass) + lchoose(50, 33) + 33*math.Log(p) + 17*math.Log1p(-p)
			}},
		{"lower bound of data", "data y: int[N]\ndata L: positive\nparam lam: real<lower=L> ~ Gamma(2, 0.5)\ny ~ Poisson(lam)\n",
			`{"y": [1, 3, 2, 0, 2, 1, 4, 2], "L": 2}`, "lam", 2, 12,
			func(l float64) float64 {
				prior := 2*math.Log(0.5) + math.Log(l) - 0.5*l - math.Log(distuv.Gamma{Alpha: 2, Beta: 0.5}.Survival(2))
				lik := 15*math.Log(l) - 8*l
				for _, y := range []float64{1, 3, 2, 0, 2, 1, 4, 2} {
					lik -= lgammaOf(y + 1)
				}
				return prior + lik
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			model, data := filepath.Join(dir, "m.gpp"), filepath.Join(dir, "d.json")
			if err := os.WriteFile(model, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(data, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			got := fitSummary(t, model, []string{data}, sgvb.Settings{Seed: 1})[c.param]
			mean, sd, logZ := quadMoments(c.logJoint, c.lo, c.hi)
			t.Logf("%s: q mean %.4f sd %.4f from 4000 draws; exact %.4f, %.4f", c.param, got.mean, got.sd, mean, sd)
			if math.Abs(got.mean-mean) > 0.1*sd {
				t.Errorf("%s: q mean %.4f, exact posterior mean %.4f (sd %.4f)", c.param, got.mean, mean, sd)
			}
			if r := got.sd / sd; r < 0.85 || r > 1.15 {
				t.Errorf("%s: q sd %.4f, exact posterior sd %.4f", c.param, got.sd, sd)
			}
			// The factor's own moments (of b, mapped to the param).
			l, err := pipeline.Load(model, []string{data}, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), sgvb.Settings{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			f := res.Factor(c.param)
			m, s := f.Mean()[0], f.SD()[0]
			t.Logf("%s: the factor's moments %.4f, %.4f", c.param, m, s)
			if math.Abs(m-mean) > 0.1*sd || math.Abs(s/sd-1) > 0.15 {
				t.Errorf("%s: the factor's mean %.4f and sd %.4f, exact %.4f, %.4f", c.param, m, s, mean, sd)
			}
			t.Logf("ELBO %.4f ± %.4f, log evidence %.4f", res.ELBO, res.ELBOSE, logZ)
			if res.ELBO > logZ+3*res.ELBOSE || logZ-res.ELBO > 0.1 {
				t.Errorf("ELBO %.4f ± %.4f, log evidence %.4f: want at most it, within 0.1", res.ELBO, res.ELBOSE, logZ)
			}
		})
	}
}

// quadMoments returns the mean and sd of the density ∝ exp(logf) on
// (lo, hi), and log ∫ exp(logf), by the midpoint rule on 10⁵ cells.
func quadMoments(logf func(float64) float64, lo, hi float64) (mean, sd, logZ float64) {
	const n = 100000
	h := (hi - lo) / n
	mx := math.Inf(-1)
	for i := range n {
		mx = max(mx, logf(lo+(float64(i)+0.5)*h))
	}
	var w, s1, s2 float64
	for i := range n {
		x := lo + (float64(i)+0.5)*h
		p := math.Exp(logf(x) - mx)
		w += p
		s1 += p * x
		s2 += p * x * x
	}
	mean = s1 / w
	return mean, math.Sqrt(s2/w - mean*mean), mx + math.Log(w*h)
}

func lgammaOf(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

func lchoose(n, k float64) float64 { return lgammaOf(n+1) - lgammaOf(k+1) - lgammaOf(n-k+1) }

// Params with a bound per element (real<lower=L>[2] with L data, Stan's
// vector<lower=L>[2]): two Poisson rates above different lower bounds, and
// two binomial proportions between different bounds, each against its
// exact posterior by quadrature. The elements are independent a priori and
// a posteriori, so the log evidence is the sum of the four, and the ELBO is
// held against it: a Jacobian or truncation normaliser taken from another
// element's bounds would move it.
func TestElemBoundedParams(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const src = `data ya: int[N]
data yb: int[N]
data L: positive[2]
data k: int<lower=0>[2]
data n: int<lower=0>[2]
data lo: real<lower=0>[2]
data hi: real<upper=1>[2]
param lam: real<lower=L>[2] ~ Gamma(2, 0.5)
param p: real<lower=lo, upper=hi>[2] ~ Normal(0.5, 0.2)
ya ~ Poisson(lam[0])
yb ~ Poisson(lam[1])
k ~ Binomial(n, p)
`
	ya, yb := []float64{1, 3, 2, 0, 2, 1, 4, 2}, []float64{5, 7, 4, 6, 8, 5, 6, 7}
	const js = `{"ya": [1, 3, 2, 0, 2, 1, 4, 2], "yb": [5, 7, 4, 6, 8, 5, 6, 7], "L": [2, 6.5],
"k": [33, 5], "n": [50, 20], "lo": [0.2, 0.3], "hi": [0.7, 0.9]}`
	normal := func(x, m, s float64) float64 { return -0.5 * (x - m) * (x - m) / (s * s) }
	rate := func(y []float64, L float64) func(float64) float64 {
		return func(l float64) float64 {
			lp := 2*math.Log(0.5) + math.Log(l) - 0.5*l - math.Log(distuv.Gamma{Alpha: 2, Beta: 0.5}.Survival(L))
			for _, v := range y {
				lp += v*math.Log(l) - l - lgammaOf(v+1)
			}
			return lp
		}
	}
	prop := func(k, n, lo, hi float64) func(float64) float64 {
		mass := distuv.UnitNormal.CDF((hi-0.5)/0.2) - distuv.UnitNormal.CDF((lo-0.5)/0.2)
		return func(p float64) float64 {
			return normal(p, 0.5, 0.2) - math.Log(0.2*math.Sqrt(2*math.Pi)*mass) + lchoose(n, k) + k*math.Log(p) + (n-k)*math.Log1p(-p)
		}
	}
	cases := []struct {
		name     string // as the summary names it, 1-based
		param    string
		elem     int
		logJoint func(float64) float64
		lo, hi   float64
	}{
		{"lam[1]", "lam", 0, rate(ya, 2), 2, 12},
		{"lam[2]", "lam", 1, rate(yb, 6.5), 6.5, 14},
		{"p[1]", "p", 0, prop(33, 50, 0.2, 0.7), 0.2, 0.7},
		{"p[2]", "p", 1, prop(5, 20, 0.3, 0.9), 0.3, 0.9},
	}
	dir := t.TempDir()
	model, data := filepath.Join(dir, "m.gpp"), filepath.Join(dir, "d.json")
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	got := fitSummary(t, model, []string{data}, sgvb.Settings{Seed: 1})
	l, err := pipeline.Load(model, []string{data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), sgvb.Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var logZ float64
	for _, c := range cases {
		mean, sd, lz := quadMoments(c.logJoint, c.lo, c.hi)
		logZ += lz
		g := got[c.name]
		t.Logf("%s: q mean %.4f sd %.4f from 4000 draws; exact %.4f, %.4f", c.name, g.mean, g.sd, mean, sd)
		if math.Abs(g.mean-mean) > 0.1*sd {
			t.Errorf("%s: q mean %.4f, exact posterior mean %.4f (sd %.4f)", c.name, g.mean, mean, sd)
		}
		if r := g.sd / sd; r < 0.85 || r > 1.15 {
			t.Errorf("%s: q sd %.4f, exact posterior sd %.4f", c.name, g.sd, sd)
		}
		f := res.Factor(c.param)
		m, s := f.Mean()[c.elem], f.SD()[c.elem]
		if math.Abs(m-mean) > 0.1*sd || math.Abs(s/sd-1) > 0.15 {
			t.Errorf("%s: the factor's mean %.4f and sd %.4f, exact %.4f, %.4f", c.name, m, s, mean, sd)
		}
	}
	t.Logf("ELBO %.4f ± %.4f, log evidence %.4f", res.ELBO, res.ELBOSE, logZ)
	if res.ELBO > logZ+3*res.ELBOSE || logZ-res.ELBO > 0.1 {
		t.Errorf("ELBO %.4f ± %.4f, log evidence %.4f: want at most it, within 0.1", res.ELBO, res.ELBOSE, logZ)
	}
}

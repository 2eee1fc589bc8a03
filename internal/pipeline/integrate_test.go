package pipeline_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// Models that normalise a density or accumulate a hazard with integrate_1d,
// each against the same model with the closed form: the same log joint and
// gradient at random points, and the same fit from the same seed.

// betaIntegral is a Beta likelihood whose normaliser B(a, b) is the
// integral of its kernel, (1 − x) taken from xc near 1 (Stan's idiom, with
// a comparison on xc for Stan's if).
const betaIntegral = `fn kernel(x, xc, ab) {
  let d = (xc >= 0) * xc + (xc < 0) * (1 - x)   # 1 - x, exact near 1
  return pow(x, ab[0] - 1) * pow(d, ab[1] - 1)
}
data y: unit[N]
param ab: positive[2] ~ LogNormal(0, 1)
let Z = integrate_1d(kernel, 0, 1, ab)
target += sum((ab[0] - 1) * log(y) + (ab[1] - 1) * log1m(y)) - N * log(Z)
`

const betaClosed = `data y: unit[N]
param ab: positive[2] ~ LogNormal(0, 1)
target += sum((ab[0] - 1) * log(y) + (ab[1] - 1) * log1m(y)) - N * lbeta(ab[0], ab[1])
`

// gompertzIntegral is a Gompertz survival model, hazard a·exp(b·t),
// whose cumulative hazard is the integral of the hazard from 0 to each
// time, one integral per observation in a loop (closed form a/b·(exp(b·t)
// − 1)); the event times' log hazards are closed forms in both.
const gompertzIntegral = `fn hazard(u, uc, theta) = theta[0] * exp(theta[1] * u)
data t: positive[N]
param theta: positive[2] ~ LogNormal(-1, 1)
for i in 0:N {
  target += log(theta[0]) + theta[1] * t[i] - integrate_1d(hazard, 0, t[i], theta)
}
`

const gompertzClosed = `data t: positive[N]
param theta: positive[2] ~ LogNormal(-1, 1)
for i in 0:N {
  target += log(theta[0]) + theta[1] * t[i] - theta[0] / theta[1] * expm1(theta[1] * t[i])
}
`

// loadSource writes src and its data (a CSV) and loads them.
func loadSource(t *testing.T, name, src, csv string) *pipeline.Loaded {
	t.Helper()
	dir := t.TempDir()
	path, dpath := dir+"/"+name+".gpp", dir+"/"+name+".csv"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dpath, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := pipeline.Load(path, []string{dpath}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestIntegrateBetaNormaliser and TestIntegrateGompertzHazard check the
// integral models against their closed forms (checkIntegralModel).
func TestIntegrateBetaNormaliser(t *testing.T) {
	checkIntegralModel(t, "beta", betaIntegral, betaClosed, "y\n0.2\n0.5\n0.7\n0.9\n0.35\n0.04\n")
}

func TestIntegrateGompertzHazard(t *testing.T) {
	checkIntegralModel(t, "gompertz", gompertzIntegral, gompertzClosed, "t\n0.3\n1.2\n2.5\n0.8\n4.1\n")
}

// checkIntegralModel checks a model written with integrate_1d against the
// same model with the closed form: log joints within 1e-12 and gradients
// within 1e-10 (relative) at random points, and a seeded fit that prints
// the same ELBO, iterations and means.
func checkIntegralModel(t *testing.T, name, integral, closed, csv string) {
	t.Helper()
	c := struct{ name, integral, closed, csv string }{name, integral, closed, csv}
	{
		li := loadSource(t, c.name+"_integral", c.integral, c.csv)
		lc := loadSource(t, c.name+"_closed", c.closed, c.csv)
		mi, mc := li.Model, lc.Model
		if mi.Dim != mc.Dim {
			t.Fatalf("%s: dims %d and %d", c.name, mi.Dim, mc.Dim)
		}
		rng := rand.New(rand.NewPCG(7, 7))
		x := make([]float64, mi.Dim)
		gi, gc := make([]float64, mi.Dim), make([]float64, mi.Dim)
		for range 10 {
			for i := range x {
				x[i] = math.Exp(0.8 * rng.NormFloat64()) // shapes from 0.1 to 10
			}
			vi, err := mi.LogJoint(x, gi)
			if err != nil {
				t.Fatalf("%s at %v: %v", c.name, x, err)
			}
			vc, err := mc.LogJoint(x, gc)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(vi-vc) > 1e-12*math.Abs(vc) {
				t.Errorf("%s at %v: log joint %.17g, closed form %.17g", c.name, x, vi, vc)
			}
			for i := range gi {
				if math.Abs(gi[i]-gc[i]) > 1e-10*max(1, math.Abs(gc[i])) {
					t.Errorf("%s at %v: gradient[%d] %.17g, closed form %.17g", c.name, x, i, gi[i], gc[i])
				}
			}
		}
		set := sgvb.Settings{Seed: 3, MaxIter: 300, PSISDraws: 200, ParetoKDraws: -1}
		ri, err := sgvb.Fit(context.Background(), pipeline.Target{M: mi}, pipeline.Latents(mi), set)
		if err != nil {
			t.Fatal(err)
		}
		rc, err := sgvb.Fit(context.Background(), pipeline.Target{M: mc}, pipeline.Latents(mc), set)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := fmt.Sprintf("%.6g %d", ri.ELBO, ri.Iterations), fmt.Sprintf("%.6g %d", rc.ELBO, rc.Iterations); a != b {
			t.Errorf("%s: ELBO and iterations %s, closed form %s", c.name, a, b)
		}
		name := pipeline.Latents(mi)[0].Name
		mi0, mc0 := ri.Factor(name).Mean(), rc.Factor(name).Mean()
		for i := range mi0 {
			if a, b := fmt.Sprintf("%.4g", mi0[i]), fmt.Sprintf("%.4g", mc0[i]); a != b {
				t.Errorf("%s: q's mean[%d] %s, closed form %s", c.name, i, a, b)
			}
		}
		t.Logf("%s: ELBO %.6g after %d iterations (closed form %.6g after %d)", c.name, ri.ELBO, ri.Iterations, rc.ELBO, rc.Iterations)
	}
}

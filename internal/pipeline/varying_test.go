package pipeline_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

var updateVarying = flag.Bool("update-varying", false, "rewrite examples/varying.csv from its generator")

// The truth examples/varying.csv is simulated from.
const (
	varyingJ     = 40  // groups
	varyingPer   = 10  // observations per group
	varyingAlpha = 1.0 // intercept
	varyingRho   = 0.6 // correlation of a group's intercept and slope
	varyingSigma = 0.5 // noise sd
)

var varyingTau = [2]float64{1, 0.6}

const varyingCSV = "../../examples/varying.csv"

// varyingData simulates examples/varying.csv from one PCG stream seeded
// (2026, 13): for each group j, (b0, b1) = diag(tau)·L·(z0, z1) with z
// standard normal and L = [[1, 0], [rho, √(1 − rho²)]]; then for each of
// its observations x ~ N(0, 1) and y = alpha + b0 + b1·x + sigma·e, e
// standard normal (x and y written with 5 decimals). Rows are grouped by
// g = 0..J−1. It also returns the effects drawn, b0 and b1 per group.
func varyingData() (csv []byte, b0s, b1s []float64) {
	rng := rand.New(rand.NewPCG(2026, 13))
	var b bytes.Buffer
	b.WriteString("g,x,y\n")
	for j := range varyingJ {
		z0, z1 := rng.NormFloat64(), rng.NormFloat64()
		b0 := varyingTau[0] * z0
		b1 := varyingTau[1] * (varyingRho*z0 + math.Sqrt(1-varyingRho*varyingRho)*z1)
		b0s, b1s = append(b0s, b0), append(b1s, b1)
		for range varyingPer {
			x := math.Round(rng.NormFloat64()*1e5) / 1e5
			y := varyingAlpha + b0 + b1*x + varyingSigma*rng.NormFloat64()
			fmt.Fprintf(&b, "%d,%.5f,%.5f\n", j, x, y)
		}
	}
	return b.Bytes(), b0s, b1s
}

// sampleCorr returns the sample sds of a and b and their correlation.
func sampleCorr(a, b []float64) (sa, sb, r float64) {
	n := float64(len(a))
	ma, mb := 0.0, 0.0
	for i := range a {
		ma, mb = ma+a[i]/n, mb+b[i]/n
	}
	saa, sbb, sab := 0.0, 0.0, 0.0
	for i := range a {
		saa += (a[i] - ma) * (a[i] - ma)
		sbb += (b[i] - mb) * (b[i] - mb)
		sab += (a[i] - ma) * (b[i] - mb)
	}
	return math.Sqrt(saa / (n - 1)), math.Sqrt(sbb / (n - 1)), sab / math.Sqrt(saa*sbb)
}

// TestVaryingData checks that examples/varying.csv is what its generator
// writes (go test ./internal/pipeline -run VaryingData -update-varying
// rewrites it).
func TestVaryingData(t *testing.T) {
	want, _, _ := varyingData()
	checkGenerated(t, varyingCSV, want, *updateVarying, "update-varying")
}

// TestVaryingExample fits examples/varying.gpp with the defaults, seeds 1
// to 3, and checks that the correlation of intercepts and slopes comes out
// with the sign and rough size of the one in the simulated effects (the 40
// pairs drawn have sample correlation 0.48, sds 0.95 and 0.52): a
// posterior mean of rho above 0.2 and within 0.25 of 0.48, tau within 0.15
// of the effects' sample sds, alpha and sigma within 0.1 of the truth, and
// Omega's diagonal 1 in every draw. (Mean-field q shrinks rho: the
// non-centred z and L are fitted as independent; 0.34 to 0.40 over the three seeds.)
func TestVaryingExample(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	_, b0s, b1s := varyingData()
	s0, s1, r := sampleCorr(b0s, b1s)
	t.Logf("simulated effects: sds %.3f %.3f, correlation %.3f", s0, s1, r)
	for _, seed := range []uint64{1, 2, 3} {
		got := fitSummary(t, "../../examples/varying.gpp", []string{varyingCSV}, sgvb.Settings{Seed: seed})
		for _, c := range []struct {
			name      string
			want, tol float64
		}{
			{"rho", r, 0.25}, {"tau[1]", s0, 0.15}, {"tau[2]", s1, 0.15},
			{"alpha", varyingAlpha, 0.1}, {"sigma", varyingSigma, 0.1},
		} {
			g := got[c.name]
			t.Logf("seed %d: %s: mean %.3f sd %.3f (simulated %.3f)", seed, c.name, g.mean, g.sd, c.want)
			if !(math.Abs(g.mean-c.want) < c.tol) {
				t.Errorf("seed %d: %s: posterior mean %.3f is more than %g from %.3f", seed, c.name, g.mean, c.tol, c.want)
			}
		}
		if g := got["rho"]; !(g.mean > 0.2) {
			t.Errorf("seed %d: rho: posterior mean %.3f, want the simulated sign and rough size (%.2f)", seed, g.mean, r)
		}
		for _, name := range []string{"Omega[1,1]", "Omega[2,2]"} {
			if g := got[name]; math.Abs(g.mean-1) > 1e-12 || g.sd > 1e-12 {
				t.Errorf("seed %d: %s = %.17g ± %g, want 1", seed, name, g.mean, g.sd)
			}
		}
	}
}

// TestVaryingFullRank fits examples/varying.gpp with one joint full-rank
// factor over every latent (gpp fit --fullrank all, Stan's fullrank ADVI),
// seed 1, against mean-field: the joint q captures the dependence between
// L, tau and z that mean-field misses, so its ELBO is higher (−411.8
// against −419.3), rho is less shrunk (0.42 against 0.34) and its sd and
// tau's are wider (0.095 against 0.046; 0.069 against 0.024).
func TestVaryingFullRank(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	l, err := pipeline.Load("../../examples/varying.gpp", []string{varyingCSV}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, lat := range l.Model.Latents {
		all = append(all, lat.Name)
	}
	_, b0s, b1s := varyingData()
	_, _, r := sampleCorr(b0s, b1s)
	mfS, jS := sgvb.Settings{Seed: 1}, sgvb.Settings{Seed: 1, FullRankGroups: [][]string{all}}
	elbo := func(s sgvb.Settings) float64 {
		res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), s)
		if err != nil {
			t.Fatal(err)
		}
		return res.ELBO
	}
	mfE, jE := elbo(mfS), elbo(jS)
	mf := fitSummary(t, "../../examples/varying.gpp", []string{varyingCSV}, mfS)
	j := fitSummary(t, "../../examples/varying.gpp", []string{varyingCSV}, jS)
	t.Logf("ELBO %.2f (mean-field %.2f); rho %.3f ± %.3f (%.3f ± %.3f); tau[1] %.3f ± %.3f (%.3f ± %.3f); sample correlation %.3f",
		jE, mfE, j["rho"].mean, j["rho"].sd, mf["rho"].mean, mf["rho"].sd, j["tau[1]"].mean, j["tau[1]"].sd, mf["tau[1]"].mean, mf["tau[1]"].sd, r)
	if !(jE > mfE+5) {
		t.Errorf("ELBO %.2f with the joint factor, %.2f mean-field: want 5 nats more", jE, mfE)
	}
	if !(math.Abs(j["rho"].mean-r) < 0.1) || !(j["rho"].sd > 1.5*mf["rho"].sd) || !(j["tau[1]"].sd > 2*mf["tau[1]"].sd) {
		t.Errorf("rho %.3f ± %.3f (sample %.3f), tau[1] sd %.3f: want within 0.1 and sds wider than mean-field's %.3f, %.3f",
			j["rho"].mean, j["rho"].sd, r, j["tau[1]"].sd, mf["rho"].sd, mf["tau[1]"].sd)
	}
}

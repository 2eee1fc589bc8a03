package pipeline_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// gpModel is the Gaussian-process regression of Stan's User's Guide
// (section "Gaussian processes"), in gpp.
const gpModel = `data x: real[N]
data y: real[N]
param rho: positive ~ InvGamma(5, 5)
param alpha: positive ~ HalfNormal(1)
param sigma: positive ~ HalfNormal(1)
let K = add_diag(gp_exp_quad_cov(x, alpha, rho), square(sigma))
y ~ MvNormal(0, K)
`

// gpData draws n points x on (−2, 2), one uniform in each of n equal
// cells, and y = f(x) + noise with f a draw of the GP with the
// squared-exponential covariance of alpha and rho (as L z, L the Cholesky
// factor of the covariance plus 1e-9 I, z standard normal) and noise
// Normal(0, sigma), from one PCG stream seeded (seed, 7). It returns f too.
func gpData(n int, alpha, rho, sigma float64, seed uint64) (x, y, f []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x = make([]float64, n)
	for i := range x {
		x[i] = -2 + 4*float64(i)/float64(n) + 4/float64(n)*rng.Float64() // one point per cell of a grid
	}
	// f = L z with L the Cholesky factor of K + 1e-9 I
	k := make([]float64, n*n)
	for i := range n {
		for j := range n {
			d := x[i] - x[j]
			k[i*n+j] = alpha * alpha * math.Exp(-d*d/(2*rho*rho))
		}
		k[i*n+i] += 1e-9
	}
	l := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			s := k[i*n+j]
			for m := range j {
				s -= l[i*n+m] * l[j*n+m]
			}
			if i == j {
				l[i*n+i] = math.Sqrt(s)
			} else {
				l[i*n+j] = s / l[j*n+j]
			}
		}
	}
	z := make([]float64, n)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	y, f = make([]float64, n), make([]float64, n)
	for i := range n {
		for j := 0; j <= i; j++ {
			f[i] += l[i*n+j] * z[j]
		}
		y[i] = f[i] + sigma*rng.NormFloat64()
	}
	return x, y, f
}

// TestGPRegression fits gpModel to 40 points simulated from alpha = 1,
// rho = 0.5, sigma = 0.2: the fit converges, and q's mean of sigma (the
// noise sd, which the 40 residuals pin down best) is within 3 of q's sds
// of the truth; rho and alpha are logged, within a factor of 3 of it.
func TestGPRegression(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const n, alpha, rho, sigma = 40, 1.0, 0.5, 0.2
	x, y, _ := gpData(n, alpha, rho, sigma, 1)
	l, err := pipeline.ParseSource("gp.gpp", []byte(gpModel), nil)
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "gp.json", JSON: map[string]*data.Array{
		"x": {Name: "x", Shape: []int{n}, Values: x},
		"y": {Name: "y", Shape: []int{n}, Values: y},
	}}
	if err := l.Bind([]data.Input{in}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), sgvb.Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d iterations, converged %v, ELBO %.3f ± %.3f", res.Iterations, res.Converged, res.ELBO, res.ELBOSE)
	if !res.Converged {
		t.Errorf("not converged in %d iterations", res.Iterations)
	}
	for _, c := range []struct {
		name  string
		truth float64
		sds   float64 // how many sds of q the mean may be off; 0: only logged
	}{{"sigma", sigma, 3}, {"rho", rho, 0}, {"alpha", alpha, 0}} {
		f := res.Factor(c.name)
		m, s := f.Mean()[0], f.SD()[0]
		t.Logf("%s: q mean %.4f sd %.4f, truth %g", c.name, m, s, c.truth)
		if (c.sds > 0 && math.Abs(m-c.truth) > c.sds*s) || math.IsNaN(m) {
			t.Errorf("%s: q mean %.4f sd %.4f, truth %g", c.name, m, s, c.truth)
		}
		if m < c.truth/3 || m > 3*c.truth {
			t.Errorf("%s: q mean %.4f, more than a factor 3 from the truth %g", c.name, m, c.truth)
		}
	}
}

var updateGP = flag.Bool("update-gp", false, "rewrite examples/gp.csv from its generator")

const gpCSV = "../../examples/gp.csv"

// gpCSVData is examples/gp.csv: the 40 points of TestGPRegression (alpha
// = 1, rho = 0.5, sigma = 0.2, seed 1), x and y with 5 decimals.
func gpCSVData() []byte {
	x, y, _ := gpData(40, 1, 0.5, 0.2, 1)
	var b bytes.Buffer
	b.WriteString("x,y\n")
	for i := range x {
		fmt.Fprintf(&b, "%.5f,%.5f\n", x[i], y[i])
	}
	return b.Bytes()
}

// TestGPData checks that examples/gp.csv is what its generator writes
// (go test ./internal/pipeline -run GPData -update-gp rewrites it).
func TestGPData(t *testing.T) {
	want := gpCSVData()
	if *updateGP {
		if err := os.WriteFile(gpCSV, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(gpCSV)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what gpCSVData writes; rerun with -update-gp", gpCSV)
	}
}

// TestGPExample fits examples/gp.gpp to examples/gp.csv with the defaults:
// sigma within 3 posterior sds of the truth it was simulated with, and the
// output f (the posterior mean of the latent function at x, averaged over
// q's draws of the hyperparameters) closer to the simulated f than the data
// are: its root mean square distance from f is below the noise's, y − f.
func TestGPExample(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	got := fitSummary(t, "../../examples/gp.gpp", []string{gpCSV}, sgvb.Settings{Seed: 1})
	if r := got["sigma"]; !(math.Abs(r.mean-0.2) < 3*r.sd) {
		t.Errorf("sigma: posterior mean %.3f sd %.3f, truth 0.2", r.mean, r.sd)
	}
	_, y, f := gpData(40, 1, 0.5, 0.2, 1)
	fit, noise := 0.0, 0.0
	for i, want := range f {
		d := got[fmt.Sprintf("f[%d]", i+1)].mean - want
		fit += d * d
		noise += (y[i] - want) * (y[i] - want)
	}
	fit, noise = math.Sqrt(fit/40), math.Sqrt(noise/40)
	t.Logf("sigma %.3f ± %.3f, rho %.3f ± %.3f, alpha %.3f ± %.3f; rms distance from the simulated f: %.3f of the fit, %.3f of the data",
		got["sigma"].mean, got["sigma"].sd, got["rho"].mean, got["rho"].sd, got["alpha"].mean, got["alpha"].sd, fit, noise)
	if !(fit < noise) {
		t.Errorf("f: rms distance %.3f from the simulated f, the data's %.3f", fit, noise)
	}
}

package pipeline_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
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
	checkGenerated(t, gpCSV, gpCSVData(), *updateGP, "update-gp")
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
	// f_new, the predictions at gp.gpp's grid x_new, against the simulated
	// f carried to the grid points inside the data's range (x_new[1..9],
	// where the 40 points, 0.1 apart, pin it to within 0.002): the mean of
	// the GP of the truth's alpha and rho given f at x.
	x, _, _ := gpData(40, 1, 0.5, 0.2, 1)
	xNew := []float64{-2.5, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5}
	truth, sd := gpKrige(x, f, xNew, 1, 0.5)
	pred := 0.0
	for i := 1; i < len(xNew)-1; i++ {
		if sd[i] > 0.002 {
			t.Fatalf("the simulated f at %g is known only to sd %.3g", xNew[i], sd[i])
		}
		d := got[fmt.Sprintf("f_new[%d]", i+1)].mean - truth[i]
		pred += d * d
	}
	pred = math.Sqrt(pred / float64(len(xNew)-2))
	t.Logf("f_new: rms distance %.3f from the simulated f at the 9 grid points inside the data", pred)
	if !(pred < noise) {
		t.Errorf("f_new: rms distance %.3f from the simulated f inside the data, the noise's %.3f", pred, noise)
	}
}

// gpKrige returns the mean and sd at the points xNew of the GP of the
// squared-exponential covariance (alpha, rho) given its values f at x,
// exactly (a jitter of 1e-9 on the diagonal), by a Cholesky factor.
func gpKrige(x, f, xNew []float64, alpha, rho float64) (mean, sd []float64) {
	n := len(x)
	kern := func(a, b float64) float64 { return alpha * alpha * math.Exp(-(a-b)*(a-b)/(2*rho*rho)) }
	l := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			s := kern(x[i], x[j])
			if i == j {
				s += 1e-9
			}
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
	forward := func(b []float64) []float64 { // L v = b
		v := make([]float64, n)
		for i := range n {
			s := b[i]
			for m := range i {
				s -= l[i*n+m] * v[m]
			}
			v[i] = s / l[i*n+i]
		}
		return v
	}
	u := forward(f) // mean = k' K⁻¹ f = (L⁻¹ k)' (L⁻¹ f)
	for _, p := range xNew {
		k := make([]float64, n)
		for j := range n {
			k[j] = kern(p, x[j])
		}
		v := forward(k)
		m, q := 0.0, 0.0
		for j := range n {
			m += v[j] * u[j]
			q += v[j] * v[j]
		}
		mean, sd = append(mean, m), append(sd, math.Sqrt(math.Max(0, kern(p, p)-q)))
	}
	return mean, sd
}

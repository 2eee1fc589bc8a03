package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// TestCSRFit fits a Poisson regression on a sparse design (N = 400 rows,
// K = 30 columns, about 10 % non-zero, simulated from one PCG stream
// seeded (2026, 123)) written three ways: with the dense matrix (X *
// beta), with csr_matrix_times_vector on Stan's 1-based w, v, u as rstan's
// extract_sparse_parts writes them (v - 1 and u - 1 in the model), and on
// csr_extract_w/v/u of the dense matrix. With one seed the three fits
// must print the same ELBO (%.6g, as gpp fit prints it), stop at the same
// iteration, and give posterior means within 1e-6 sd of each other; the
// coefficients are checked against the truth too.
func TestCSRFit(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const n, k = 400, 30
	rng := rand.New(rand.NewPCG(2026, 123))
	x := make([][]float64, n)
	var w []float64
	var v []int
	u := []int{1}
	beta := make([]float64, k)
	for j := range beta {
		beta[j] = 0.5 * rng.NormFloat64()
	}
	y := make([]float64, n)
	for i := range x {
		x[i] = make([]float64, k)
		eta := 0.3
		for j := range x[i] {
			if rng.Float64() < 0.1 {
				x[i][j] = rng.NormFloat64()
				w, v = append(w, x[i][j]), append(v, j+1)
				eta += x[i][j] * beta[j]
			}
		}
		u = append(u, len(w)+1)
		y[i] = dist.Poisson{Rate: math.Exp(eta)}.Rand(rng)
	}
	dir := t.TempDir()
	write := func(name string, v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dense := write("dense.json", map[string]any{"N": n, "K": k, "X": x, "y": y})
	sparse := write("sparse.json", map[string]any{"N": n, "K": k, "NZ": len(w), "w": w, "v": v, "u": u, "y": y})
	prior := "param alpha: real ~ Normal(0, 2)\nparam beta: real[K] ~ Normal(0, 1)\n"
	forms := []struct{ name, src, data string }{
		{"dense", "data X: real[N, K]\ndata y: int<lower=0>[N]\n" + prior + "y ~ PoissonLog(alpha + X * beta)\n", dense},
		{"stan", "data K: int\ndata y: int<lower=0>[N]\ndata w: real[NZ]\ndata v: int[NZ]\ndata u: int[N + 1]\n" + prior +
			"y ~ PoissonLog(alpha + csr_matrix_times_vector(N, K, w, v - 1, u - 1, beta))\n", sparse},
		{"extract", "data X: real[N, K]\ndata y: int<lower=0>[N]\n" + prior +
			"y ~ PoissonLog(alpha + csr_matrix_times_vector(N, K, csr_extract_w(X), csr_extract_v(X), csr_extract_u(X), beta))\n", dense},
	}
	type fit struct {
		res   *sgvb.Result
		means []float64
		sds   []float64
	}
	fits := map[string]fit{}
	for _, f := range forms {
		mpath := filepath.Join(dir, f.name+".gpp")
		if err := os.WriteFile(mpath, []byte(f.src), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := pipeline.Load(mpath, []string{f.data}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), sgvb.Settings{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		means, sds := naturalMoments(res, l.Model.Dim)
		fits[f.name] = fit{res, means, sds}
		t.Logf("%s: ELBO %.6g ± %.2g after %d iterations", f.name, res.ELBO, res.ELBOSE, res.Iterations)
	}
	ref := fits["dense"]
	for _, name := range []string{"stan", "extract"} {
		f := fits[name]
		if a, b := fmt.Sprintf("%.6g", f.res.ELBO), fmt.Sprintf("%.6g", ref.res.ELBO); a != b || f.res.Iterations != ref.res.Iterations {
			t.Errorf("%s: ELBO %s after %d iterations; the dense form's %s after %d", name, a, f.res.Iterations, b, ref.res.Iterations)
		}
		worst := 0.0
		for i := range f.means {
			d := math.Abs(f.means[i] - ref.means[i])
			worst = max(worst, d/ref.sds[i])
			if !(d <= 1e-6*ref.sds[i]) {
				t.Errorf("%s: mean of latent %d is %.10g, the dense form's %.10g", name, i, f.means[i], ref.means[i])
			}
		}
		t.Logf("%s: means within %.2g sd of the dense form's", name, worst)
	}
	for j, b := range beta {
		m, s := ref.means[1+j], ref.sds[1+j]
		if !(math.Abs(m-b) < 4*s) {
			t.Errorf("beta[%d]: posterior mean %.3f is more than 4 sds (%.3f) from the truth %.3f", j, m, s, b)
		}
	}
}

// naturalMoments returns the mean and sd of each latent element over 2000
// draws of q from a fixed stream, on the natural scale.
func naturalMoments(res *sgvb.Result, dim int) (means, sds []float64) {
	const draws = 2000
	rng := rand.New(rand.NewPCG(7, 7))
	x, z := make([]float64, dim), make([]float64, dim)
	means, sds = make([]float64, dim), make([]float64, dim)
	for range draws {
		res.SampleCoords(rng, x)
		res.Natural(z, x)
		for i, zi := range z {
			means[i] += zi / draws
			sds[i] += zi * zi / draws
		}
	}
	for i, m := range means {
		sds[i] = math.Sqrt(max(0, sds[i]-m*m))
	}
	return means, sds
}

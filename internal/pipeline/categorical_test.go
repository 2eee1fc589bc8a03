package pipeline_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// TestCategoricalDirichletPosterior fits theta: simplex[3] ~ Dirichlet(1)
// to categories with counts n = (5, 12, 3) through y ~ Categorical(theta).
// The exact posterior is Dirichlet(1 + n), in q's family, so the fit with
// the default settings must find its means within half a posterior sd and
// its sds within 10%.
func TestCategoricalDirichletPosterior(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	counts := []int{5, 12, 3}
	var y []float64
	for k, c := range counts {
		for range c {
			y = append(y, float64(k))
		}
	}
	l, err := pipeline.ParseSource("cat.gpp", []byte(`data y: int<lower=0, upper=2>[N]
param theta: simplex[3] ~ Dirichlet(1)
y ~ Categorical(theta)
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "y.json", JSON: map[string]*data.Array{"y": {Name: "y", Shape: []int{len(y)}, Values: y, Int: true}}}
	if err := l.Bind([]data.Input{in}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), sgvb.Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Factor("theta")
	mean, sd := f.Mean(), f.SD()
	t.Logf("%d iterations: q means %.4f, sds %.4f", res.Iterations, mean, sd)
	a0 := float64(len(y) + len(counts))
	for k, c := range counts {
		a := float64(1 + c)
		m, s := a/a0, math.Sqrt(a*(a0-a)/(a0*a0*(a0+1)))
		if math.Abs(mean[k]-m) > 0.5*s || math.Abs(sd[k]-s) > 0.1*s {
			t.Errorf("theta[%d]: q mean %.4f sd %.4f, posterior %.4f and %.4f", k, mean[k], sd[k], m, s)
		}
	}
}

// TestSoftmaxRegression fits y ~ CategoricalLogit(X * B) to 400 seeded
// draws from three classes with an intercept and one covariate. softmax
// sees only differences between the columns of B, so the test compares the
// contrasts B[:, k] − B[:, 0] with the truth: within 3 sds of q (mean-field,
// so their sds add in quadrature).
func TestSoftmaxRegression(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const n, p, k = 400, 2, 3
	truth := [p][k]float64{{0, 0.5, -0.5}, {0, 2, -2}}
	rng := rand.New(rand.NewPCG(71, 1))
	xs, ys := make([]float64, 0, n*p), make([]float64, n)
	for i := range ys {
		x := [p]float64{1, rng.NormFloat64()}
		xs = append(xs, x[:]...)
		var w [k]float64
		total := 0.0
		for j := range k {
			w[j] = math.Exp(x[0]*truth[0][j] + x[1]*truth[1][j])
			total += w[j]
		}
		u := rng.Float64() * total
		for u > w[int(ys[i])] && int(ys[i]) < k-1 {
			u -= w[int(ys[i])]
			ys[i]++
		}
	}
	l, err := pipeline.ParseSource("softmax.gpp", []byte(`data y: int<lower=0, upper=2>[N]
data X: real[N, P]
param B: real[P, 3] ~ Normal(0, 2)
y ~ CategoricalLogit(X * B)
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"y": {Name: "y", Shape: []int{n}, Values: ys, Int: true},
		"X": {Name: "X", Shape: []int{n, p}, Values: xs},
	}}
	if err := l.Bind([]data.Input{in}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), sgvb.Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Factor("B")
	mean, sd := f.Mean(), f.SD()
	for q := range p {
		for j := 1; j < k; j++ {
			c := mean[q*k+j] - mean[q*k]
			s := math.Hypot(sd[q*k+j], sd[q*k])
			want := truth[q][j] - truth[q][0]
			t.Logf("B[%d, %d] − B[%d, 0]: q %.3f ± %.3f, truth %g", q, j, q, c, s, want)
			if math.Abs(c-want) > 3*s {
				t.Errorf("B[%d, %d] − B[%d, 0] = %.3f ± %.3f, truth %g", q, j, q, c, s, want)
			}
		}
	}
}

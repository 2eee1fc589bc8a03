package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// sqrtRootSource's mean is sqrt(theta), the root of y² − θ = 0 that
// solve_newton finds; sqrtRootSource with sqrt in its place is the same
// model.
const sqrtRootSource = `fn root(y, theta) = square(y) - theta
data y_obs: real[N]
param theta: positive ~ LogNormal(0, 1)
let r = solve_newton(root, [1], theta)
y_obs ~ Normal(r[0], 0.3)
`

// TestAlgebraSqrtFit fits a model whose param enters through a solved
// root and the same model with sqrt: the same ELBO to the digits the CLI
// prints and the same q with the same seed; and q's mean and sd of theta
// against the posterior's by quadrature over log theta.
func TestAlgebraSqrtFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	y := make([]float64, 15)
	for i := range y {
		y[i] = 1.5 + 0.3*rng.NormFloat64()
	}
	dat, err := json.Marshal(map[string]any{"N": len(y), "y_obs": y})
	if err != nil {
		t.Fatal(err)
	}
	closed := strings.Replace(sqrtRootSource, "let r = solve_newton(root, [1], theta)\ny_obs ~ Normal(r[0], 0.3)", "y_obs ~ Normal(sqrt(theta), 0.3)", 1)
	if closed == sqrtRootSource {
		t.Fatal("sqrt was not substituted")
	}
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/d.json", dat, 0o644); err != nil {
		t.Fatal(err)
	}
	fit := func(src string) *sgvb.Result {
		path := dir + "/m.gpp"
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := pipeline.Load(path, []string{dir + "/d.json"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), sgvb.Settings{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	rs, rc := fit(sqrtRootSource), fit(closed)
	es, ec := fmt.Sprintf("%.6g ± %.2g", rs.ELBO, rs.ELBOSE), fmt.Sprintf("%.6g ± %.2g", rc.ELBO, rc.ELBOSE)
	t.Logf("ELBO %s with solve_newton, %s with sqrt; %d and %d iterations", es, ec, rs.Iterations, rc.Iterations)
	if es != ec || rs.Iterations != rc.Iterations {
		t.Errorf("ELBO %s after %d iterations with solve_newton, %s after %d with sqrt", es, rs.Iterations, ec, rc.Iterations)
	}

	// The posterior of u = log theta: LogNormal(0, 1)'s density in u is
	// Normal(0, 1)'s; a grid over ±10 holds all its mass.
	const n = 20001
	lp := make([]float64, n)
	top := math.Inf(-1)
	for i := range lp {
		u := -10 + 20*float64(i)/(n-1)
		lp[i] = normLog(u, 0, 1)
		for _, v := range y {
			lp[i] += normLog(v, math.Exp(u/2), 0.3)
		}
		top = max(top, lp[i])
	}
	var z, m1, m2 float64
	for i, l := range lp {
		th := math.Exp(-10 + 20*float64(i)/(n-1))
		w := math.Exp(l - top)
		z += w
		m1 += w * th
		m2 += w * th * th
	}
	mean := m1 / z
	sd := math.Sqrt(m2/z - mean*mean)
	q := fitSource(t, sqrtRootSource, "d.json", dat, sgvb.Settings{Seed: 3})
	compareRef(t, "solve_newton", q, []string{"theta"}, []float64{mean}, []float64{sd}, 0.1, 0.9, 1.1)
}

package dist_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gpplang/gpp/dist"
)

// A gamma variational factor's draw and its reparameterisation gradient, in
// log space: x ~ Gamma(a, b) and ∂x/∂a, ∂x/∂b.
func ExampleImplicit() {
	rng := rand.New(rand.NewPCG(1, 2))
	a, b := 0.01, 2.0
	logx, dlogxda := dist.Implicit{}.SampleLog(a, rng)
	logxb := logx - math.Log(b) // log of the Gamma(a, b) draw
	fmt.Printf("log x = %.6g, d log x/da = %.6g, d log x/db = %.6g\n", logxb, dlogxda, -1/b)
	// Output:
	// log x = -24.9347, d log x/da = 2368.07, d log x/db = -0.5
}

// gonum's inverse returns 0 here; the log-space quantile does not.
func ExampleGammaLogQuantile() {
	t := dist.GammaLogQuantile(0.1, 0.01)
	fmt.Printf("x = %.14g, d log x/da = %.10g\n", math.Exp(t), dist.GammaDLogXDA(0.1, t))
	// Output:
	// x = 6.0730483624079e-21, d log x/da = 461.2667133
}

// The registry's kernels give the log density and all its partials.
func ExampleLookupUnivariate() {
	normal, _ := dist.LookupUnivariate("Normal")
	dp := make([]float64, len(normal.Params))
	lp, dx := normal.Kernel(1.5, []float64{1, 2}, dp)
	fmt.Printf("%s(%s, %s): log p = %.6f, d/dx = %g, d/dmu = %g, d/dsigma = %g\n",
		normal.Name, normal.Params[0].Name, normal.Params[1].Name, lp, dx, dp[0], dp[1])
	// Output:
	// Normal(mu, sigma): log p = -1.643336, d/dx = -0.125, d/dmu = 0.125, d/dsigma = -0.46875
}

// Rows of a data matrix are summarised once; each evaluation then costs
// O(D³) with no allocation.
func ExampleMvNormalRows() {
	y := []float64{ // three rows, D = 2
		0.5, 1.0,
		-0.3, 0.2,
		1.1, -0.4,
	}
	stats := dist.NewRowStats(y, 2)
	work := dist.NewMvWork(2)
	m := dist.MvNormalRows{Mu: []float64{0, 0}, Sigma: []float64{1, 0.3, 0.3, 1}}
	dmu, dsigma := make([]float64, 2), make([]float64, 4)
	lp, err := m.Grad(dmu, dsigma, stats, work)
	fmt.Printf("log p = %.4f, dmu = [%.4f %.4f], err = %v\n", lp, dmu[0], dmu[1], err)
	// Output:
	// log p = -6.8832, dmu = [1.1648 0.4505], err = <nil>
}

package sgvb

import (
	"context"
	"fmt"

	"github.com/gpplang/gpp/dist"
)

// Fit a gamma factor to the posterior of a Poisson rate with a Gamma(1, 1)
// prior, with the default settings; the exact posterior is Gamma(32, 9),
// which the fit reaches well within its 10⁴-step limit.
func ExampleFit() {
	target := newGammaPoisson([]float64{3, 1, 4, 1, 5, 9, 2, 6}, 1, 1)
	latents := []Latent{{Name: "lambda", Size: 1, Support: dist.Positive}}
	r, err := Fit(context.Background(), target, latents, Settings{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := r.Factor("lambda")
	fmt.Printf("%s(shape %.1f, rate %.2f): mean %.3f, sd %.3f; k̂ %s\n",
		f.Family, f.Params[0][0], f.Params[1][0], f.Mean()[0], f.SD()[0], r.ParetoReading)
	fmt.Println("converged:", r.Converged)
	// Output:
	// gamma(shape 32.0, rate 9.00): mean 3.556, sd 0.629; k̂ good
	// converged: true
}

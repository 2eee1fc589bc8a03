package nuts_test

import (
	"context"
	"fmt"

	"github.com/gpplang/gpp/infer/nuts"
)

// normal2 is a 2-D normal with sds 1 and 10.
type normal2 struct{}

func (normal2) LogDensity(x, grad []float64) (float64, error) {
	grad[0], grad[1] = -x[0], -x[1]/100
	return -0.5*x[0]*x[0] - 0.5*x[1]*x[1]/100, nil
}

func ExampleSample() {
	const chains = 4
	dens := make([]nuts.Density, chains)
	inits := make([][]float64, chains)
	for c := range dens {
		dens[c] = normal2{} // stateless, so one value serves every chain
		inits[c] = []float64{float64(c) - 1.5, 1}
	}
	r, err := nuts.Sample(context.Background(), dens, inits, nuts.Settings{
		Chains: chains, Warmup: nuts.DefaultWarmup, Draws: 1000, Seed: 42, Workers: 2,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The second coordinate's draws, by chain.
	x := make([][]float64, chains)
	for c, ch := range r.Chains {
		for k := 0; k < len(ch.LogP); k++ {
			x[c] = append(x[c], ch.Draws[k*r.Dim+1])
		}
	}
	fmt.Printf("%d draws per chain; R-hat < 1.01: %v; ESS > 400: %v; E-BFMI > 0.3: %v\n",
		len(x[0]), nuts.Rhat(x) < 1.01, nuts.ESSBulk(x) > 400, nuts.EBFMI(r.Chains[0].Energy) > 0.3)
	// Output:
	// 1000 draws per chain; R-hat < 1.01: true; ESS > 400: true; E-BFMI > 0.3: true
}

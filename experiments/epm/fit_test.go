package epm

import (
	"context"
	"math"
	"testing"
)

// A gamma-mixture fit predicts by the mean of its components' predictions;
// component r is the gamma-implicit fit of seed MixtureSeed(seed, r), bit
// for bit (component 0 that of the same seed), and the other components
// differ from component 0 (their own seeds and NMF starts).
func TestFitMixture(t *testing.T) {
	g, err := LoadNetwork(networksDir(t), "nips234")
	if err != nil {
		t.Fatal(err)
	}
	model, err := FindModel()
	if err != nil {
		t.Fatal(err)
	}
	split := MakeSplit(g, TestFraction, 3)
	fs := DefaultFitSettings()
	fs.Iterations, fs.FinalDraws, fs.PredDraws, fs.Restarts = 60, 20, 10, 3
	ctx := context.Background()
	mix, err := model.Fit(ctx, 4, g.N, split.Train, split.Missing(), GammaMixture, fs, 3)
	if err != nil {
		t.Fatal(err)
	}
	one, err := model.Fit(ctx, 4, g.N, split.Train, split.Missing(), GammaImplicit, fs, 3)
	if err != nil {
		t.Fatal(err)
	}
	// and component r the gamma-implicit fit of MixtureSeed(seed, r)
	two, err := model.Fit(ctx, 4, g.N, split.Train, split.Missing(), GammaImplicit, fs, MixtureSeed(3, 2))
	if err != nil {
		t.Fatal(err)
	}
	if len(mix.Components) != 3 {
		t.Fatalf("%d components, want 3", len(mix.Components))
	}
	for i, p := range one.P {
		if mix.Components[0].P[i] != p {
			t.Fatalf("component 0, pair %d: %v, the gamma-implicit fit %v", i, mix.Components[0].P[i], p)
		}
	}
	for i, p := range two.P {
		if mix.Components[2].P[i] != p {
			t.Fatalf("component 2, pair %d: %v, the gamma-implicit fit of its seed %v", i, mix.Components[2].P[i], p)
		}
	}
	differ := 0
	for i, p := range mix.P {
		var want float64
		for _, c := range mix.Components {
			want += c.P[i] / 3
		}
		if p != want {
			t.Fatalf("pair %d: mixture %v, mean of the components %v", i, p, want)
		}
		if mix.Components[1].P[i] != one.P[i] {
			differ++
		}
	}
	if differ < len(mix.P)/2 {
		t.Errorf("component 1 predicts %d of %d pairs as component 0 does", len(mix.P)-differ, len(mix.P))
	}
	// the mixture's ELBO: at least the components' mean, at most log 3 above
	var elbo float64
	for _, c := range mix.Components {
		elbo += c.ELBO / 3
	}
	se := mix.Mixture.ELBOSE
	if mix.ELBO != mix.Mixture.ELBO || mix.ELBO < elbo-4*se || mix.ELBO > elbo+math.Log(3)+4*se {
		t.Errorf("ELBO %v ± %v, components' mean %v", mix.ELBO, se, elbo)
	}
}

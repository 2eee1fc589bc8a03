package main

import (
	"bytes"
	"image/png"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/nuts"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot/vg"
)

// ebfmiIIDTol is how far the E-BFMI of n = 4000 independent normal
// energies may sit from its expectation 2 (Var ΔE = 2 Var E): its sd is
// about 2·√(3/n) ≈ 0.055, and the tolerance is 3 of them.
const ebfmiIIDTol = 0.17

// energyChains returns chains chains of n energies each: independent
// standard normals, or a Gaussian random walk from 0 when walk is set.
func energyChains(chains, n int, walk bool, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, chains*n)
	for c := range chains {
		e := 0.0
		for i := range n {
			if walk {
				e += rng.NormFloat64()
			} else {
				e = rng.NormFloat64()
			}
			out[c*n+i] = e
		}
	}
	return out
}

// TestEnergyDists: independent energies give an E-BFMI near 2 and energy
// transitions √2 times as wide as the marginal energy; a random walk's
// E-BFMI is far below Stan's 0.3 and its transitions much narrower than
// its marginal energy. The marginal energies are centred chain by chain,
// the transitions stay within a chain, and each chain's E-BFMI is
// nuts.EBFMI's.
func TestEnergyDists(t *testing.T) {
	const chains, n = 3, 4000
	iid := energyChains(chains, n, false, 1)
	for i := range iid[n:] { // chain 2 and 3 sit at other levels: centring removes them
		iid[n+i] += 50 * float64(1+i/n)
	}
	e := energyDists(iid, chains, n)
	if len(e.marginal) != chains*n || len(e.transition) != chains*(n-1) || len(e.ebfmi) != chains {
		t.Fatalf("lengths %d %d %d", len(e.marginal), len(e.transition), len(e.ebfmi))
	}
	for c, v := range e.ebfmi {
		if want := nuts.EBFMI(iid[c*n : (c+1)*n]); v != want {
			t.Errorf("chain %d: E-BFMI %v, nuts.EBFMI %v", c+1, v, want)
		}
		if math.Abs(v-2) > ebfmiIIDTol {
			t.Errorf("independent energies, chain %d: E-BFMI %v, want about 2", c+1, v)
		}
		if m := stat.Mean(e.marginal[c*n:(c+1)*n], nil); math.Abs(m) > 1e-9 {
			t.Errorf("chain %d: marginal energy's mean %v, want 0", c+1, m)
		}
	}
	if r := stat.StdDev(e.transition, nil) / stat.StdDev(e.marginal, nil); math.Abs(r-math.Sqrt2) > 0.05 {
		t.Errorf("independent energies: sd ΔE / sd E = %v, want about √2", r)
	}

	walk := energyChains(chains, n, true, 2)
	w := energyDists(walk, chains, n)
	for c, v := range w.ebfmi {
		if !(v < 0.3/10) {
			t.Errorf("random walk, chain %d: E-BFMI %v, want far below 0.3", c+1, v)
		}
	}
	if r := stat.StdDev(w.transition, nil) / stat.StdDev(w.marginal, nil); !(r < 0.1) {
		t.Errorf("random walk: sd ΔE / sd E = %v, want ΔE much narrower", r)
	}

	// a NaN energy is left out of its chain's marginal energies and both
	// transitions it takes part in; that chain's E-BFMI is NaN
	bad := slices.Clone(iid[:2*n])
	bad[10] = math.NaN()
	b := energyDists(bad, 2, n)
	if len(b.marginal) != 2*n-1 || len(b.transition) != 2*(n-1)-2 || !math.IsNaN(b.ebfmi[0]) || math.IsNaN(b.ebfmi[1]) {
		t.Errorf("a NaN energy: %d marginal, %d transitions, E-BFMI %v", len(b.marginal), len(b.transition), b.ebfmi)
	}
}

// TestEBFMILabels: the legend names each chain's E-BFMI, marking one below
// 0.3, and with many chains gives their range and the worst chain.
func TestEBFMILabels(t *testing.T) {
	got := ebfmiLabels([]float64{1.0234, 0.2112})
	want := []string{"chain 1: E-BFMI 1.02", "chain 2: E-BFMI 0.211 < 0.3"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	many := []float64{1, 1.1, 0.9, 1.2, 0.25, 1, 1, 1, 1.3}
	if got := ebfmiLabels(many); len(got) != 1 || got[0] != "E-BFMI 0.25 (chain 5 < 0.3) to 1.3" {
		t.Errorf("9 chains: %q", got)
	}
}

// TestEnergyProblem: the energy plot is drawn only from energies that
// vary, with two finite successive ones in a chain, whose differences do
// not overflow; plotEnergy refuses
// others and draws a PNG of plotWidth × plotHeight.
func TestEnergyProblem(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		energy []float64
		want   string
	}{
		{nil, "no energy__"},
		{[]float64{3, 3, 3, 3}, "does not vary"},
		{[]float64{1, nan, 2, nan}, "two successive finite"},
		{[]float64{1, 2, nan, 5}, ""},
		{[]float64{1e308, -1e308, -1e308, 1e308}, "overflow"}, // bins of infinite width: a panic once
	} {
		sd := &sampleDraws{energy: c.energy, chains: 2, n: 2}
		got := energyProblem(sd)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%v: %q, want %q", c.energy, got, c.want)
		}
		var buf bytes.Buffer
		err := plotEnergy(&buf, sd)
		if (err == nil) != (c.want == "") {
			t.Errorf("%v: plotEnergy: %v", c.energy, err)
		}
		if err != nil {
			continue
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		px := func(l vg.Length) int { return int(math.Round(float64(l/vg.Inch) * plotDPI)) }
		if b := img.Bounds(); b.Dx() != px(plotWidth) || b.Dy() != px(plotHeight) {
			t.Errorf("energy.png is %v, want %d × %d", b, px(plotWidth), px(plotHeight))
		}
	}
}

package main

import (
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// normalChains returns C chains of n independent draws from N(mean[c],
// sd[c]) from a seeded stream, and each chain's lp__ (the normal's).
func normalChains(n int, mean, sd []float64, seed uint64) (draws, logp [][]float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	for c := range mean {
		x, lp := make([]float64, n), make([]float64, n)
		for i := range x {
			z := rng.NormFloat64()
			x[i] = mean[c] + sd[c]*z
			lp[i] = -z*z/2 - math.Log(sd[c])
		}
		draws, logp = append(draws, x), append(logp, lp)
	}
	return draws, logp
}

// TestElementModes: chains whose central 90 % intervals are apart fall
// into modes with their means and mean lp__; chains in one mode, and a
// chain apart but drifting (not mixed within itself), give none.
func TestElementModes(t *testing.T) {
	draws, logp := normalChains(400, []float64{0, 0, 0, 0}, []float64{1, 1, 1, 1}, 1)
	if m := elementModes(draws, logp); m != nil {
		t.Errorf("one mode: %+v", m)
	}
	draws, logp = normalChains(400, []float64{0, 10, 0, 10.5}, []float64{1, 1, 1, 1}, 2)
	m := elementModes(draws, logp)
	if len(m) != 2 || !slices.Equal(m[0].chains, []int{0, 2}) || !slices.Equal(m[1].chains, []int{1, 3}) {
		t.Fatalf("two modes: %+v", m)
	}
	if math.Abs(m[0].mean) > 0.2 || math.Abs(m[1].mean-10.25) > 0.2 || math.Abs(m[0].lp+0.5) > 0.1 {
		t.Errorf("two modes' means and lp__: %+v", m)
	}
	// Chain 2 apart, but drifting from 10 to 13: not yet converged.
	draws, logp = normalChains(400, []float64{0, 10, 0, 0}, []float64{1, 0.3, 1, 1}, 3)
	for i := range draws[1] {
		draws[1][i] += 3 * float64(i) / 400
	}
	if m := elementModes(draws, logp); m != nil {
		t.Errorf("a drifting chain: %+v", m)
	}
}

// TestModesMass: a higher but much narrower mode is not named the larger:
// chain 1's mode has lp__ 3 higher but a 100 times narrower spread, so
// chain 2's carries about e^(−3 + log 100) = e^1.6 times its mass; by
// lp__ alone (no coordinates) chain 1's would be.
func TestModesMass(t *testing.T) {
	n := 400
	draws, _ := normalChains(n, []float64{0, 5}, []float64{0.01, 1}, 5)
	sd := &sampleDraws{chains: 2, n: n, xdim: 1, coords: slices.Concat(draws...)}
	modes := []chainMode{{chains: []int{0}, lp: -1}, {chains: []int{1}, lp: -4}}
	re := regexp.MustCompile(`spread of its draws \(as for a normal shape\), chain 2's mode likely carries the most mass, about e\^([0-9.]+) times the next`)
	m := re.FindStringSubmatch(modesMass(sd, modes))
	if m == nil {
		t.Fatalf("modesMass: %s", modesMass(sd, modes))
	}
	if d, _ := strconv.ParseFloat(m[1], 64); math.Abs(d-(math.Log(100)-3)) > 0.15 {
		t.Errorf("log mass ratio %v, want about %.2f", d, math.Log(100)-3)
	}
	sd.coords = nil
	if got := modesMass(sd, modes); !strings.Contains(got, "mean lp__ (for modes as wide), chain 1's mode likely carries the most mass, about e^3 times") {
		t.Errorf("without coordinates: %s", got)
	}
}

// TestSampleModesWarning: x² ≈ 4 has modes at x = ±2 that NUTS does not
// cross; with chains in both, gpp sample says so (the param, each mode's
// chains and mean, that the posterior is multimodal, what to do), and the
// R̂ warning points to it instead of advising longer chains.
func TestSampleModesWarning(t *testing.T) {
	_, stderr := sampleStderr(t, "data y: real[N]\nparam x: real ~ Normal(0, 3)\ny ~ Normal(x * x, 0.5)\n", "y\n4\n4.2\n3.9\n",
		"--chains", "4", "--warmup", "300", "--draws", "300", "--seed", "2")
	re := regexp.MustCompile(`warning: the chains sit in different modes of x: (chains? [0-9, ]+) at x (\S+) \(mean lp__ \S+\), (chains? [0-9, ]+) at x (\S+) \(mean lp__ \S+\) \(each chain's central 90% interval of x is apart .*the posterior is multimodal, or the chains are stuck .*run more chains \(--chains 8\) with a longer warm-up .*a prior on x that leaves one mode\); by each mode's mean lp__ and the spread of its draws \(as for a normal shape\), no mode clearly carries more`)
	m := re.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("stderr lacks the modes warning:\n%s", stderr)
	}
	a, _ := strconv.ParseFloat(m[2], 64)
	b, _ := strconv.ParseFloat(m[4], 64)
	if math.Abs(math.Abs(a)-2) > 0.1 || math.Abs(math.Abs(b)-2) > 0.1 || a*b > 0 {
		t.Errorf("modes at x %v and %v, want ±2", a, b)
	}
	if !strings.Contains(stderr, "the chains disagree (the worst: x ") || !strings.Contains(stderr, "): the chains sit in different modes (the next warning)") || strings.Contains(stderr, "run longer chains, or reparameterise") {
		t.Errorf("the R̂ warning does not point to the modes:\n%s", stderr)
	}
}

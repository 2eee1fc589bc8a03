package epm

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/experiments/metrics"
	"github.com/gpplang/gpp/internal/reftest"
)

// plantedNetwork returns a network of two planted communities of n/2
// nodes: a pair links with probability pIn inside a community and pOut
// across, drawn from a PCG seeded by seed.
func plantedNetwork(n int, pIn, pOut float64, seed uint64) *Network {
	rng := rand.New(rand.NewPCG(seed, 1))
	g := &Network{Name: "planted", N: n}
	for i := range n {
		for j := i + 1; j < n; j++ {
			p := pOut
			if i < n/2 == (j < n/2) {
				p = pIn
			}
			if rng.Float64() < p {
				g.Links = append(g.Links, Pair{i, j})
			}
		}
	}
	return g
}

// NUTS predicts the held-out pairs of a planted two-community network from
// its draws: P is the mean of 1 − exp(−Σ_k r_k W_ik W_jk) over the kept
// draws (computed here from the draws' coordinates, apart from the
// model's output), the same seed gives the same draws bit for bit and
// another seed other draws, and the AUC-ROC on the test pairs is well
// above chance.
func TestSampleNUTSPlanted(t *testing.T) {
	model, err := FindModel()
	if err != nil {
		t.Fatal(err)
	}
	g := plantedNetwork(30, 0.8, 0.02, 7)
	split := MakeSplit(g, TestFraction, 1)
	missing := split.Missing()
	const k = 3
	ns := NUTSSettings{Chains: 2, Warmup: 60, Draws: 30}
	ctx := context.Background()
	nr, err := model.SampleNUTS(ctx, k, g.N, split.Train, missing, ns, 5)
	if err != nil {
		t.Fatal(err)
	}
	if nr.Draws != 60 || len(nr.P) != len(missing) || nr.Dropped != 0 {
		t.Fatalf("%d draws, %d predictions (want 60, %d), %d failed", nr.Draws, len(nr.P), len(missing), nr.Dropped)
	}
	// P from the draws: the EPM's unconstrained coordinates are the logs
	// of its latents, laid out in the model's order.
	l, err := model.Load(k, g.N, split.Train, missing)
	if err != nil {
		t.Fatal(err)
	}
	off := map[string]int{}
	for _, lt := range l.Model.Latents {
		off[lt.Name] = lt.Offset
	}
	res := nr.Result
	for i, pr := range missing {
		var want float64
		for _, ch := range res.Chains {
			for d := range len(ch.LogP) {
				u := ch.Draws[d*res.Dim : (d+1)*res.Dim]
				var rate float64
				for c := range k {
					rate += math.Exp(u[off["r"]+c] + u[off["W"]+pr.I*k+c] + u[off["W"]+pr.J*k+c])
				}
				want += -math.Expm1(-rate) / float64(nr.Draws)
			}
		}
		if math.Abs(nr.P[i]-want) > 1e-12 {
			t.Fatalf("pair %v: P %v, from the draws %v", pr, nr.P[i], want)
		}
	}
	auc := metrics.AUCROC(nr.P[:len(split.Test)], split.TestLink)
	t.Logf("AUC-ROC %.3f, %d divergent, R̂ p_unknown %.3g", auc, nr.Divergent, nr.RhatP)
	if auc < 0.8 {
		t.Errorf("AUC-ROC %.3f on a planted two-community network, want ≥ 0.8", auc)
	}
	if !(nr.RhatP >= 1 && nr.RhatLatents >= nr.RhatR && nr.RhatR >= 1 && nr.MinESSP > 0 && nr.StepSize > 0) {
		t.Errorf("diagnostics: R̂ p %v latents %v r %v, min ESS %v, step %v", nr.RhatP, nr.RhatLatents, nr.RhatR, nr.MinESSP, nr.StepSize)
	}
	again, err := model.SampleNUTS(ctx, k, g.N, split.Train, missing, ns, 5)
	if err != nil {
		t.Fatal(err)
	}
	other, err := model.SampleNUTS(ctx, k, g.N, split.Train, missing, ns, 6)
	if err != nil {
		t.Fatal(err)
	}
	differ := 0
	for i, p := range nr.P {
		if again.P[i] != p {
			t.Fatalf("pair %d: %v, then %v with the same seed", i, p, again.P[i])
		}
		if other.P[i] != p {
			differ++
		}
	}
	if differ < len(nr.P)/2 {
		t.Errorf("another seed predicts %d of %d pairs as seed 5 does", len(nr.P)-differ, len(nr.P))
	}
}

// RunNUTS with the Quick settings on NIPS234 writes epm_nuts.csv (one row,
// AUCs in [0, 1], its draws counted) and epm_nuts.md, replacing an earlier
// run's tables and keeping its hand-written reading.
func TestRunNUTSQuick(t *testing.T) {
	out := t.TempDir()
	reading := nutsReadingMarker + "\n## Reading\n\nby hand\n"
	if err := os.WriteFile(filepath.Join(out, "epm_nuts.md"), []byte("an old table\n\n"+reading), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := RunNUTS(context.Background(), Options{Out: out, Quick: true, DataDir: networksDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 1 || rep.Rows[0].K != 5 {
		t.Fatalf("rows %+v, want one at K = 5", rep.Rows)
	}
	recs := reftest.ReadCSV(t, filepath.Join(out, "epm_nuts.csv"))
	if len(recs) != 2 || recs[1][2] != string(NUTS) || recs[1][9] != "40" {
		t.Fatalf("records %q", recs)
	}
	for _, c := range []int{3, 4} {
		v, err := strconv.ParseFloat(recs[1][c], 64)
		if err != nil || !(v >= 0 && v <= 1) {
			t.Errorf("%s = %q, want a number in [0, 1]", recs[0][c], recs[1][c])
		}
	}
	checkOutputs(t, out, nil, "epm_nuts.md", "| K | splits | AUC-ROC", "2 chains of 40 warm-up and 20 kept", "Quick smoke-test")
	md, err := os.ReadFile(filepath.Join(out, "epm_nuts.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(md), reading) || strings.Contains(string(md), "an old table") {
		t.Errorf("epm_nuts.md does not end with the earlier reading, or keeps the old table:\n%s", md)
	}
}

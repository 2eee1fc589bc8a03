package pmf

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/internal/reftest"
	"github.com/gpplang/gpp/internal/shareddata"
)

// TestSplit: exactly round(0.2·N·D) cells held out, the same for the same
// seed, different for another.
func TestSplit(t *testing.T) {
	a, b, c := Split(30, 64, 1), Split(30, 64, 1), Split(30, 64, 2)
	held, same, diff := 0, true, 0
	for i := range a {
		if a[i] == 0 {
			held++
		}
		same = same && a[i] == b[i]
		if a[i] != c[i] {
			diff++
		}
	}
	if held != int(math.Round(0.2*30*64)) || !same || diff == 0 {
		t.Errorf("held %d of %d, same seed same mask %v, %d cells differ between seeds", held, 30*64, same, diff)
	}
}

// TestRank1 recovers an exact rank-1 rate matrix from its own expected
// counts (the ML solution there is the truth up to the half counts).
func TestRank1(t *testing.T) {
	n, d := 40, 8
	x := &Matrix{N: n, D: d, X: make([]float64, n*d)}
	a0, b0 := make([]float64, n), make([]float64, d)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range a0 {
		a0[i] = 0.5 + rng.Float64()
	}
	for j := range b0 {
		b0[j] = 1 + 10*rng.Float64()
	}
	for i := range n {
		for j := range d {
			x.X[i*d+j] = a0[i] * b0[j] * 1000
		}
	}
	mask := Split(n, d, 3)
	a, b := Rank1(x, mask, 200)
	for i := range n {
		for j := range d {
			if want, got := x.X[i*d+j], a[i]*b[j]; math.Abs(got-want) > 1e-3*want {
				t.Fatalf("rate[%d,%d] = %g, want %g", i, j, got, want)
			}
		}
	}
}

// TestScore fits examples/pmf.gpp briefly to 40 digits and checks Score's
// plug-in against E_q[W]·E_q[H] from the factors' means and its predictive
// against a direct computation from the same draws of q (seeded as Score
// seeds them), each cell's log of the mean Poisson mass.
func TestScore(t *testing.T) {
	path := shareddata.Path(t, DigitsFile)
	x, err := ReadDigits(path, 40)
	if err != nil {
		t.Fatal(err)
	}
	mask := Split(x.N, x.D, 1)
	const k, draws, seed = 3, 7, 5
	l, err := Load("../../examples/pmf.gpp", x, mask, k)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), sgvb.Settings{Seed: 1, MaxIter: 200, PSISDraws: 20, ELBODraws: 10})
	if err != nil {
		t.Fatal(err)
	}
	plug, pred := Score(l, res, x, mask, k, draws, seed)
	mean := res.Mean()
	var wOff, hOff int
	for _, lat := range l.Model.Latents {
		switch lat.Name {
		case "W":
			wOff = lat.Offset
		case "H":
			hOff = lat.Offset
		}
	}
	rate := func(z []float64, i, j int) float64 {
		r := 0.0
		for c := range k {
			r += z[wOff+i*k+c] * z[hOff+c*x.D+j]
		}
		return r
	}
	// The draws Score takes, kept whole.
	rng := rand.New(rand.NewPCG(seed, 0x5c))
	zs := make([][]float64, draws)
	for s := range zs {
		c, z := make([]float64, l.Model.Dim), make([]float64, l.Model.Dim)
		res.SampleCoords(rng, c)
		res.Natural(z, c)
		zs[s] = z
	}
	wantPlug, wantPred, n := 0.0, 0.0, 0
	for i := range x.N {
		for j := range x.D {
			if mask[i*x.D+j] != 0 {
				continue
			}
			v := x.X[i*x.D+j]
			wantPlug += dist.Poisson{Rate: rate(mean, i, j)}.LogProb(v)
			p := 0.0
			for _, z := range zs {
				p += math.Exp(dist.Poisson{Rate: rate(z, i, j)}.LogProb(v))
			}
			wantPred += math.Log(p / draws)
			n++
		}
	}
	wantPlug /= float64(n)
	wantPred /= float64(n)
	if math.Abs(plug-wantPlug) > 1e-10 || math.Abs(pred-wantPred) > 1e-10 {
		t.Errorf("Score = %.12f, %.12f; direct %.12f, %.12f", plug, pred, wantPlug, wantPred)
	}
	if !(pred > plug-1) || pred == plug {
		t.Errorf("predictive %.4f against plug-in %.4f", pred, plug)
	}
}

// TestRunQuick runs the quick experiment end to end (skipped without
// ../shared) and checks its CSV: the two baselines and the gamma fit, whose
// held-out log likelihood beats the per-pixel mean.
func TestRunQuick(t *testing.T) {
	root := shareddata.Root()
	if root == "" {
		t.Skip("shared data folder not found (../shared/data beside the repository, or GPP_SHARED_DATA): skipping the PMF experiment's quick run")
	}
	out := t.TempDir()
	rep, err := Run(context.Background(), Options{Out: out, Quick: true, Model: "../../examples/pmf.gpp"})
	if err != nil {
		t.Fatal(err)
	}
	recs := reftest.ReadCSV(t, filepath.Join(out, "pmf_digits.csv"))
	if strings.Join(recs[0], ",") != strings.Join(CSVHeader, ",") || len(recs) != 4 {
		t.Fatalf("pmf_digits.csv: %d records, header %v", len(recs), recs[0])
	}
	g, p := rep.cell(MethodGamma, 4), rep.cell(BaselinePixel, 0)
	if g.n != 1 || !(g.pred > p.pred) {
		t.Errorf("gamma predictive %.4f (%d fits), pixel-mean %.4f", g.pred, g.n, p.pred)
	}
	md, err := os.ReadFile(filepath.Join(out, "pmf_digits.md"))
	if err != nil || !strings.Contains(string(md), "| 4 | gamma |") {
		t.Errorf("pmf_digits.md: %v\n%s", err, md)
	}
}

package pipeline_test

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/internal/shareddata"
)

var updatePMF = flag.Bool("update-pmf", false, "rewrite examples/digits300_train.csv from its generator")

const (
	pmfCounts = "../../examples/digits300.csv"
	pmfMask   = "../../examples/digits300_train.csv"
	pmfN      = 300 // images in examples/digits300.csv: the shared file's first 300
	pmfD      = 64
	pmfHeld   = 0.2 // share of the cells held out
)

// pmfMaskData writes examples/digits300_train.csv: a header px0..px63, then
// per image and pixel 0 (held out) with probability pmfHeld, else 1, from
// one PCG stream seeded (2026, 58), cells in row order.
func pmfMaskData() []byte {
	rng := rand.New(rand.NewPCG(2026, 58))
	var b bytes.Buffer
	for j := range pmfD {
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteString("px" + strconv.Itoa(j))
	}
	b.WriteByte('\n')
	for range pmfN {
		for j := range pmfD {
			if j > 0 {
				b.WriteByte(',')
			}
			if rng.Float64() < pmfHeld {
				b.WriteByte('0')
			} else {
				b.WriteByte('1')
			}
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestPMFData checks examples/digits300_train.csv against its generator
// (go test ./internal/pipeline -run PMFData -update-pmf rewrites it) and
// examples/digits300.csv against the first 300 images of the shared UCI
// digits file it was copied from (skipped when ../shared is absent).
func TestPMFData(t *testing.T) {
	checkGenerated(t, pmfMask, pmfMaskData(), *updatePMF, "update-pmf")
	counts, err := os.ReadFile(pmfCounts)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(shareddata.Path(t, "continuous", "debian_sklearn", "digits_1797x64.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	if head := strings.Join(lines[:pmfN+1], ""); string(counts) != head {
		t.Errorf("%s is not the header and first %d rows of the shared digits_1797x64.csv", pmfCounts, pmfN)
	}
}

// readIntMatrix reads a headed CSV of integers into row-major values.
func readIntMatrix(t *testing.T, path string) []float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var v []float64
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		for _, c := range strings.Split(sc.Text(), ",") {
			x, err := strconv.ParseFloat(c, 64)
			if err != nil {
				t.Fatal(err)
			}
			v = append(v, x)
		}
	}
	return v
}

// TestPMFExample fits examples/pmf.gpp to the bundled digits and mask as
// examples/README.md does (fewer steps) and checks, at draws of q, that the
// output heldout_ll is the mean Poisson log mass of the held-out cells at
// rate W·H computed here from the draw's W and H, and that the fit predicts
// the held-out cells better than each pixel's mean count over the training
// cells does (a plug-in of E[W]·E[H] against that baseline).
func TestPMFExample(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	l, err := pipeline.Load("../../examples/pmf.gpp", []string{pmfCounts, "train=" + pmfMask}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := l.Model
	res, err := sgvb.Fit(context.Background(), pipeline.Target{M: m}, pipeline.Latents(m), sgvb.Settings{Seed: 1, MaxIter: 1500})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d iterations, ELBO %.1f", res.Iterations, res.ELBO)
	x, mask := readIntMatrix(t, pmfCounts), readIntMatrix(t, pmfMask)
	const k = 10
	off := map[string]int{}
	for _, lat := range m.Latents {
		off[lat.Name] = lat.Offset
	}
	oi := -1
	for i, o := range m.Outputs {
		if o.Name == "heldout_ll" {
			oi = i
		}
	}
	if oi < 0 {
		t.Fatal("no output heldout_ll")
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	coords, z := make([]float64, m.Dim), make([]float64, m.Dim)
	mean := make([]float64, m.Dim)
	const draws = 20
	for s := 0; s < draws; s++ {
		res.SampleCoords(rng, coords)
		res.Natural(z, coords)
		for i, v := range z {
			mean[i] += v / draws
		}
		_, outs, err := ev.Eval(coords)
		if err != nil {
			t.Fatal(err)
		}
		want := heldoutLL(x, mask, z[off["W"]:], z[off["H"]:], k, nil)
		if got := outs[oi][0]; math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("draw %d: heldout_ll %.12g, direct %.12g", s, got, want)
		}
	}
	plug := heldoutLL(x, mask, mean[off["W"]:], mean[off["H"]:], k, nil)
	// Baseline: each pixel's mean count over its training cells (a rate of
	// 0 where they are all 0 would make a held-out count impossible; the
	// +0.5/+1 keeps it positive, as a Jeffreys-like prior would).
	base := make([]float64, pmfD)
	cnt := make([]float64, pmfD)
	for i := range pmfN {
		for j := range pmfD {
			if mask[i*pmfD+j] == 1 {
				base[j] += x[i*pmfD+j]
				cnt[j]++
			}
		}
	}
	for j := range base {
		base[j] = (base[j] + 0.5) / (cnt[j] + 1)
	}
	baseLL := heldoutLL(x, mask, nil, nil, 0, base)
	t.Logf("held-out mean log lik per cell: plug-in E[W]E[H] %.4f, per-pixel mean %.4f", plug, baseLL)
	if !(plug > baseLL+0.3) {
		t.Errorf("plug-in held-out log lik %.4f is not above the per-pixel baseline %.4f by 0.3", plug, baseLL)
	}
}

// heldoutLL is the mean Poisson log mass of x's held-out cells (mask 0),
// at rate (W·H)[i, j] (W N×k, H k×D, row-major) or, when W is nil, at the
// per-pixel rate base[j].
func heldoutLL(x, mask, w, h []float64, k int, base []float64) float64 {
	sum, n := 0.0, 0
	for i := range pmfN {
		for j := range pmfD {
			if mask[i*pmfD+j] != 0 {
				continue
			}
			var rate float64
			if w == nil {
				rate = base[j]
			} else {
				for c := range k {
					rate += w[i*k+c] * h[c*pmfD+j]
				}
			}
			sum += dist.Poisson{Rate: rate}.LogProb(x[i*pmfD+j])
			n++
		}
	}
	return sum / float64(n)
}

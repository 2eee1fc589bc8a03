package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// A NONMEM data set leaves DV empty on its dose rows (EVID 1), and the
// model observes DV only on the others, under an if on data. Those cells
// are read by no statement that runs, so they fit no latent (Skipped):
// the model's latents, log joint and gradient are those of the same data
// with any number in those cells, bit for bit, whether the loop is
// lowered as vectors or unrolled. A missing DV on an observation row is
// read by its ~ and stays the latent DV_missing; so do the dose rows'
// when an output reads DV (it reads the imputed values) or a let outside
// the if reads DV[n] (a covariate, DataVar.ReadAt). Observed by that one
// ~ alone, DV's missing cells would be leaves (leftout.go), but the dose
// rows' are observed by no ~ that runs: no leaves after all
// (Model.NotLeaves), they are skipped and an observation row's fitted as
// before; so too with a second ~ on DV (a penalty's prior), which makes
// no cell a leaf.
func TestMissingSkippedByDataIf(t *testing.T) {
	const model = `data EVID: int[N]
data T: real[N]
data DV: real[N]
param k: positive ~ Gamma(2, 2)
param s: positive ~ Gamma(2, 2)
for n in 0:N {
  if EVID[n] == 0 {
    DV[n] ~ Normal(exp(-k * T[n]), s)
  }
}
`
	const evid = `"EVID": [1, 0, 0, 0, 1, 0, 0], "T": [0, 1, 2, 3, 0, 1, 2]`
	twice := strings.Replace(model, "    DV[n] ~", "    DV[n] ~ Normal(0, 10)\n    DV[n] ~", 1)
	for _, c := range []struct {
		name, src, dv string // dv: the DV column, %v for a dose row's cell
		skipped       []int  // DV's cells left out
		missing       int    // DV_missing's size, 0 for none
		leaves        []int  // DV's cells summed out (Model.LeftOut)
	}{
		{"dose rows", twice, `[%v, 0.8, 0.5, 0.3, %v, 0.7, 0.45]`, []int{0, 4}, 0, nil},
		{"and an observation row", twice, `[%v, 0.8, null, 0.3, %v, 0.7, 0.45]`, []int{0, 4}, 1, nil},
		{"no leaves", model, `[%v, 0.8, 0.5, 0.3, %v, 0.7, 0.45]`, []int{0, 4}, 0, nil},
		{"no leaves and an observation row", model, `[%v, 0.8, null, 0.3, %v, 0.7, 0.45]`, []int{0, 4}, 1, nil},
		{"an output reads DV", model + "output Z = DV\n", `[%v, 0.8, 0.5, 0.3, %v, 0.7, 0.45]`, nil, 2, nil},
		{"a let reads DV", strings.Replace(model, "  if EVID", "  let d = DV[n] + 0\n  if EVID", 1), `[%v, 0.8, 0.5, 0.3, %v, 0.7, 0.45]`, nil, 2, nil},
	} {
		for _, unroll := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s unrolled %v", c.name, unroll), func(t *testing.T) {
				unrollLoops = unroll
				defer func() { unrollLoops = false }()
				src := fmt.Sprintf("{%s, \"DV\": %s}", evid, fmt.Sprintf(c.dv, "null", "null"))
				m, err := compileSrcErr(t, "m.gpp", c.src, nil, jsonData(t, src))
				if err != nil {
					t.Fatal(err)
				}
				if got := m.Skipped()["DV"]; !slices.Equal(got, c.skipped) {
					t.Fatalf("Skipped DV %v, want %v", got, c.skipped)
				}
				if got := m.LeftOut()["DV"].Cells; !slices.Equal(got, c.leaves) {
					t.Fatalf("LeftOut DV %v, want %v", got, c.leaves)
				}
				var names []string
				for _, l := range m.Latents {
					names = append(names, fmt.Sprintf("%s%v", l.Name, l.Shape))
				}
				want := []string{"k[]", "s[]"}
				if c.missing > 0 {
					want = append(want, fmt.Sprintf("DV_missing[%d]", c.missing))
				}
				if !slices.Equal(names, want) {
					t.Fatalf("latents %v, want %v", names, want)
				}
				if c.missing > 0 && c.skipped != nil {
					// DV_missing starts at the mean of the observed
					// cells, not counting the skipped cells' stand-ins
					want := (0.8 + 0.3 + 0.7 + 0.45) / 4
					if init := m.Latents[2].Init; len(init) != 1 || math.Abs(init[0]-want) > 1e-12 {
						t.Fatalf("DV_missing starts at %v, want [%v]", init, want)
					}
				}
				if c.skipped == nil && c.leaves == nil || c.src == model && c.missing > 0 {
					// (the last: with numbers in the dose rows, the
					// observation row's cell is a leaf, summed out)
					return
				}
				// The same data with numbers in the skipped cells.
				filled := fmt.Sprintf("{%s, \"DV\": %s}", evid, fmt.Sprintf(c.dv, 7.5, -3))
				ref := compileSrc(t, "m.gpp", c.src, nil, jsonData(t, filled))
				if ref.Dim != m.Dim {
					t.Fatalf("dim %d, filled data's %d", m.Dim, ref.Dim)
				}
				sameAtRandomPoints(t, m, ref, "filled data's", rand.New(rand.NewPCG(3, 4)), 0)
				checkGradient(t, m, 5, 0.5)
			})
		}
	}
}

// sameAtRandomPoints holds m and ref to the same log joint and gradient
// (sameLogJoint, within tol; 0 for bit for bit) at three points of rng,
// each coordinate normal with sd 0.7.
func sameAtRandomPoints(t *testing.T, m, ref *Model, refName string, rng *rand.Rand, tol float64) {
	t.Helper()
	x := make([]float64, m.Dim)
	for range 3 {
		fillNormal(x, rng, 0, 0.7)
		sameLogJoint(t, m, ref, refName, x, tol, tol)
	}
}

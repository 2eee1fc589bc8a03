package compile

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// TestPMFExampleGradient: examples/pmf.gpp's log joint, on the first 12
// images of its bundled digits and mask with K = 3, against finite
// differences: the masked Poisson log mass at the rate W·H (a matrix
// product) and the gamma priors whose rates broadcast along rows.
func TestPMFExampleGradient(t *testing.T) {
	const n, d = 12, 64
	read := func(path string) []float64 { return readPMFRows(t, path, n) }
	in := data.Input{File: "digits (first 12)", JSON: map[string]*data.Array{
		"X":     {Name: "X", Shape: []int{n, d}, Values: read("../../examples/digits300.csv")},
		"train": {Name: "train", Shape: []int{n, d}, Values: read("../../examples/digits300_train.csv")},
	}}
	m := compileFile(t, "../../examples/pmf.gpp", map[string]string{"K": "3"}, in)
	if want := n + 3 + n*3 + 3*d; m.Dim != want {
		t.Fatalf("Dim = %d, want %d", m.Dim, want)
	}
	checkGradient(t, m, 58, 0.5)
	// The Poisson log mass of the counts X takes the work in the counts
	// from states prepared once.
	u, _ := dist.LookupUnivariate("Poisson")
	if got, want := m.prog.DataStates(), n*d*u.DataHoisted.DataStateLen(); got != want {
		t.Errorf("%d values of data state, want %d (the Poisson log mass of %d counts)", got, want, n*d)
	}
}

// readPMFRows reads the first n rows of a bundled digits CSV, row-major.
func readPMFRows(t testing.TB, path string, n int) []float64 {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")[1 : n+1]
	var v []float64
	for _, l := range lines {
		for _, c := range strings.Split(l, ",") {
			x, err := strconv.ParseFloat(c, 64)
			if err != nil {
				t.Fatal(err)
			}
			v = append(v, x)
		}
	}
	return v
}

// BenchmarkPMFGradient: the log joint and gradient of examples/pmf.gpp on
// its 300 bundled images (19 200 Poisson cells), K = 10.
func BenchmarkPMFGradient(b *testing.B) {
	const n, d = 300, 64
	in := data.Input{File: "digits", JSON: map[string]*data.Array{
		"X":     {Name: "X", Shape: []int{n, d}, Values: readPMFRows(b, "../../examples/digits300.csv", n)},
		"train": {Name: "train", Shape: []int{n, d}, Values: readPMFRows(b, "../../examples/digits300_train.csv", n)},
	}}
	m := compileFile(b, "../../examples/pmf.gpp", nil, in)
	x := make([]float64, m.Dim)
	for i := range x {
		x[i] = -1 + 0.5*float64(i%5)/5 // log scale of the positive latents
	}
	g := make([]float64, m.Dim)
	b.ResetTimer()
	for range b.N {
		if _, err := m.LogJoint(x, g); err != nil {
			b.Fatal(err)
		}
	}
}

// Package benchdata builds the data sets the benchmarks of lang/compile and
// internal/pipeline share, so that their figures are for the same inputs.
package benchdata

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/internal/shareddata"
)

// GPFA returns synthetic GPFA data Y: n rows of d columns from k
// non-negative factors (half the loadings 0, the rest Exp(1)) plus noise of
// sd 0.3, from a PCG seeded with seed.
func GPFA(n, d, k int, seed uint64) *data.Array {
	r := rand.New(rand.NewPCG(seed, 7))
	w := make([]float64, d*k)
	for i := range w {
		if r.Float64() < 0.5 {
			w[i] = r.ExpFloat64()
		}
	}
	y := make([]float64, n*d)
	f := make([]float64, k)
	for i := 0; i < n; i++ {
		for j := range f {
			f[j] = r.NormFloat64()
		}
		for j := 0; j < d; j++ {
			s := 0.3 * r.NormFloat64()
			for l, v := range f {
				s += w[j*k+l] * v
			}
			y[i*d+j] = s
		}
	}
	return &data.Array{Name: "Y", Shape: []int{n, d}, Values: y}
}

// NIPS234 reads the NIPS234 network from ../shared/data (skipping tb when
// it is absent) and holds out a random 20 % of all node pairs (links and
// non-links alike) as the EPM's `unknown` pairs; the links outside the
// held-out set are the training links.
func NIPS234(tb testing.TB) (nodes int, links, unknown [][2]int) {
	tb.Helper()
	path := shareddata.Path(tb, "networks", "nips234_edges.csv")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	tab, err := data.ReadCSV(path, f)
	if err != nil {
		tb.Fatal(err)
	}
	nodes = 234 // networks/index.csv
	ci, cj := tab.Column("i"), tab.Column("j")
	for _, c := range []*data.Array{ci, cj} {
		if c == nil {
			tb.Fatalf("%s: no column i or j", path)
		}
		if err := c.Err(); err != nil {
			tb.Fatal(err)
		}
	}
	is, js := ci.Values, cj.Values
	edge := map[[2]int]bool{}
	for e := range is {
		i, j := int(is[e]), int(js[e])
		edge[[2]int{min(i, j), max(i, j)}] = true
	}
	r := rand.New(rand.NewPCG(234, 20))
	for i := 0; i < nodes; i++ {
		for j := i + 1; j < nodes; j++ {
			p := [2]int{i, j}
			switch {
			case r.Float64() < 0.2:
				unknown = append(unknown, p)
			case edge[p]:
				links = append(links, p)
			}
		}
	}
	return nodes, links, unknown
}

// Pairs returns node pairs as an int[len(pairs), 2] data array.
func Pairs(name string, pairs [][2]int) *data.Array {
	v := make([]float64, 0, 2*len(pairs))
	for _, p := range pairs {
		v = append(v, float64(p[0]), float64(p[1]))
	}
	return &data.Array{Name: name, Shape: []int{len(pairs), 2}, Values: v, Int: true}
}

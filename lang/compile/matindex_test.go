package compile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// matIndexInput holds y [T, D] of distinct values, dow [T, D] of weekdays
// 0..6 and g [7], a permutation of them.
func matIndexInput(rng *rand.Rand, T, D int, bad bool) data.Input {
	y, dow := make([]float64, T*D), make([]float64, T*D)
	for i := range y {
		y[i] = rng.NormFloat64()
		dow[i] = float64(rng.IntN(7))
	}
	if bad {
		dow[T*D-2] = 7
	}
	return data.Input{File: "d.json", JSON: map[string]*data.Array{
		"y":   {Name: "y", Shape: []int{T, D}, Values: y},
		"dow": {Name: "dow", Shape: []int{T, D}, Values: dow, Int: true},
		"g":   {Name: "g", Shape: []int{7}, Values: []float64{3, 0, 6, 1, 5, 2, 4}, Int: true},
	}}
}

const matIndexHead = `data y: real[T, D]
data dow: int[T, D]
data g: int[7]
param beta: real[7] ~ Normal(0, 1)
param s: positive ~ HalfNormal(1)
`

// TestMatrixIndex: a vector indexed by an int matrix, beta[dow], is the
// matrix of beta[dow[i, j]] in dow's shape: its log joint equals the
// workaround's, to_matrix(beta[to_vector(dow)], T, D) (column by column
// both ways), at random points, for a param vector and for one picked by
// int data first (g[dow], on the Go side); the gradient agrees with
// central differences; an index out of range is an error at its data cell.
func TestMatrixIndex(t *testing.T) {
	const T, D = 6, 4
	rng := rand.New(rand.NewPCG(4, 4))
	in := matIndexInput(rng, T, D, false)
	for _, c := range []struct{ direct, workaround string }{
		{"y ~ Normal(beta[dow], s)\n", "y ~ Normal(to_matrix(beta[to_vector(dow)], T, D), s)\n"},
		{"y ~ Normal(beta[g[dow]] + 0.5 * beta[dow], s)\n", "y ~ Normal(to_matrix(beta[g[to_vector(dow)]] + 0.5 * beta[to_vector(dow)], T, D), s)\n"},
	} {
		m := compileSrc(t, "m.gpp", matIndexHead+c.direct, nil, in)
		w := compileSrc(t, "w.gpp", matIndexHead+c.workaround, nil, in)
		x, g := make([]float64, m.Dim), make([]float64, m.Dim)
		for range 4 {
			fillNormal(x, rng, 0, 1)
			a, err1 := m.LogJoint(x, g)
			b, err2 := w.LogJoint(x, g)
			if err1 != nil || err2 != nil || a != b || math.IsNaN(a) {
				t.Errorf("%q at %v: log joint %v (%v), the workaround's %v (%v)", c.direct, x, a, err1, b, err2)
			}
		}
		checkGradient(t, m, 3, 1)
	}
	_, err := compileSrcErr(t, "m.gpp", matIndexHead+"y ~ Normal(beta[dow], s)\n", nil, matIndexInput(rng, T, D, true))
	if err == nil || !strings.Contains(err.Error(), "7 is out of range [0, 7) as an index (used at m.gpp:6:17)") {
		t.Errorf("dow with a 7: error %v", err)
	}
}

// TestMatrixIndexComputed: an int matrix index computed with no data cell
// to point at (to_int of a constant matrix) out of range is the lowerer's
// error at the index, with the 1-based ids' hint, as a vector index's.
func TestMatrixIndexComputed(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	_, err := compileSrcErr(t, "m.gpp", matIndexHead+"y ~ Normal(beta[to_int(rep_matrix(7.0, T, D))], s)\n", nil, matIndexInput(rng, 6, 4, false))
	if err == nil || !strings.Contains(err.Error(), "m.gpp:6:17: `beta[to_int(rep_matrix(7.0, T, D))]`: index 7 out of range [0, 7) (element 0 of the index vector); indices are 0-based") {
		t.Errorf("error %v", err)
	}
}

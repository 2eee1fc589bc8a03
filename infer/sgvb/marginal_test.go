package sgvb

import (
	"math"
	"testing"
)

// The marginal of a full-rank group over coordinates 0, 2 and 3 of 4 (the
// dropped one in the middle, so that L's rows must be re-factored): the
// kept mean, and L_S L_Sᵀ equal to the kept block of L Lᵀ; a low-rank
// group keeps the rows of its mean, d and B.
func TestGroupMarginal(t *testing.T) {
	l := [][]float64{ // row-major lower-triangular L
		{1.2, 0, 0, 0},
		{0.5, 0.8, 0, 0},
		{-0.3, 0.9, 0.7, 0},
		{0.2, -0.4, 0.6, 1.1},
	}
	g := Group{Names: []string{"a", "y_missing", "b"}, Params: [][]float64{{1, 2, 3, 4}}}
	for j := range 4 {
		col := make([]float64, 4)
		for i := range 4 {
			col[i] = l[i][j]
		}
		g.Params = append(g.Params, col)
	}
	keep := []bool{true, false, true, true}
	m, err := g.Marginal([]string{"a", "b"}, keep)
	if err != nil {
		t.Fatal(err)
	}
	idx := []int{0, 2, 3}
	if len(m.Params) != 4 || m.Params[0][0] != 1 || m.Params[0][1] != 3 || m.Params[0][2] != 4 {
		t.Fatalf("marginal mean %v, want [1 3 4] and 3 columns of L", m.Params[0])
	}
	for a, i := range idx {
		for b, j := range idx {
			var want, got float64
			for k := range 4 {
				want += l[i][k] * l[j][k]
			}
			for k := range 3 {
				got += m.Params[1+k][a] * m.Params[1+k][b]
			}
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("covariance [%d, %d] = %g, want %g", i, j, got, want)
			}
			if b > a && m.Params[1+b][a] != 0 {
				t.Errorf("L[%d, %d] = %g above the diagonal", a, b, m.Params[1+b][a])
			}
		}
	}

	lr := Group{Names: []string{"a", "y_missing"}, Rank: 1, Params: [][]float64{{1, 2, 3}, {-1, -2, -3}, {0.1, 0.2, 0.3}}}
	mr, err := lr.Marginal([]string{"a"}, []bool{true, false, true})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range [][]float64{{1, 3}, {-1, -3}, {0.1, 0.3}} {
		if got := mr.Params[p]; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("low-rank parameter %d: %v, want %v", p, got, want)
		}
	}
}

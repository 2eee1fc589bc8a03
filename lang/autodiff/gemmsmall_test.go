package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// gemmSmall gives gonum's Dgemm bit for bit, for all four transpositions,
// inner loops of 1 to smallGemmLen + 3 elements (the four partial sums of
// a dot product and their tails), alpha and beta 0, 1 and others, zeros in
// a (which Dgemm's kernels skip), signed zeros and infinities in b and c,
// and leading dimensions wider than the matrices.
func TestGemmSmallMatchesGonum(t *testing.T) {
	if !gemmSmallOK {
		t.Skip("gonum's pure Go kernels here: gemm leaves every product to Dgemm")
	}
	r := rand.New(rand.NewPCG(21, 22))
	val := func() float64 {
		switch r.IntN(12) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return math.Inf(1 - 2*r.IntN(2))
		}
		return r.NormFloat64() * math.Pow(10, float64(r.IntN(7)-3))
	}
	impl := blas64.Implementation()
	cases := 0
	for range 3000 {
		tA, tB := r.IntN(2) == 1, r.IntN(2) == 1
		m, n, k := 1+r.IntN(9), 1+r.IntN(smallGemmLen+3), 1+r.IntN(smallGemmLen+3)
		alpha := []float64{1, 0, -0.7, 2.5}[r.IntN(4)]
		beta := []float64{0, 1, 0.3, -1}[r.IntN(4)]
		a, b, c, lda, ldb, ldc := gemmOperands(r, tA, tB, m, n, k, 3, val)
		want := append([]float64(nil), c...)
		impl.Dgemm(trans(tA), trans(tB), m, n, k, alpha, a, lda, b, ldb, beta, want, ldc)
		got := append([]float64(nil), c...)
		gemmSmall(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, got, ldc)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
				t.Fatalf("tA %v tB %v m %d n %d k %d alpha %v beta %v: c[%d] = %v, Dgemm %v", tA, tB, m, n, k, alpha, beta, i, got[i], want[i])
			}
		}
		cases++
	}
	if cases == 0 {
		t.Fatal("no case ran")
	}
}

// gemm, its tiles and its choice between gemmSmall and Dgemm, and a
// team's parts of it (gemmTask), give one Dgemm call's bits, for shapes on both sides of smallGemmLen and across
// gemmRows and gemmCols. Inner dimensions stay within gonum's block of 64,
// so that a Dgemm that goes parallel sums each dot product in one piece,
// as its serial kernels do.
func TestGemmTilesMatchGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	impl := blas64.Implementation()
	for range 200 {
		tA, tB := r.IntN(2) == 1, r.IntN(2) == 1
		m, n, k := 1+r.IntN(2*gemmRows+3), 1+[]int{r.IntN(smallGemmLen + 2), r.IntN(gemmCols + 10)}[r.IntN(2)], 1+r.IntN(64)
		alpha := []float64{1, -0.7}[r.IntN(2)]
		beta := []float64{0, 1, 0.3}[r.IntN(3)]
		a, b, c, lda, ldb, ldc := gemmOperands(r, tA, tB, m, n, k, 2, func() float64 {
			if r.IntN(8) > 0 {
				return r.NormFloat64()
			}
			return 0
		})
		want := append([]float64(nil), c...)
		impl.Dgemm(trans(tA), trans(tB), m, n, k, alpha, a, lda, b, ldb, beta, want, ldc)
		got := append([]float64(nil), c...)
		gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, got, ldc)
		parts := append([]float64(nil), c...) // a team's rows of c, 3 parts
		g := gemmTask{tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, parts, ldc}
		for i := range 3 {
			g.RunPart(i, 3)
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) || math.Float64bits(parts[i]) != math.Float64bits(want[i]) {
				t.Fatalf("tA %v tB %v m %d n %d k %d alpha %v beta %v: c[%d] = %v (in parts %v), Dgemm %v", tA, tB, m, n, k, alpha, beta, i, got[i], parts[i], want[i])
			}
		}
	}
}

// gemmOperands makes the a, b and c of an m×n product over k, a and b
// transposed as tA and tB say, each leading dimension its matrix's width
// plus r.IntN(pad), every element from val.
func gemmOperands(r *rand.Rand, tA, tB bool, m, n, k, pad int, val func() float64) (a, b, c []float64, lda, ldb, ldc int) {
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	lda, ldb, ldc = ac+r.IntN(pad), bc+r.IntN(pad), n+r.IntN(pad)
	a, b, c = make([]float64, ar*lda), make([]float64, br*ldb), make([]float64, m*ldc)
	for _, s := range [][]float64{a, b, c} {
		for i := range s {
			s[i] = val()
		}
	}
	return a, b, c, lda, ldb, ldc
}

// TestGemmEmptyInner: with no inner dimension c = beta·c, and beta 0
// clears c as BLAS does, a stale NaN or Inf included.
func TestGemmEmptyInner(t *testing.T) {
	for _, beta := range []float64{0, 2} {
		c := []float64{math.NaN(), math.Inf(1), 1, 3}
		gemm(false, false, 2, 2, 0, 1, nil, 0, nil, 2, beta, c, 2)
		for i, v := range c {
			want := 0.0
			if beta != 0 {
				want = beta * []float64{math.NaN(), math.Inf(1), 1, 3}[i]
			}
			if !(v == want || math.IsNaN(v) && math.IsNaN(want)) {
				t.Errorf("beta %g: c[%d] = %g, want %g", beta, i, v, want)
			}
		}
	}
}

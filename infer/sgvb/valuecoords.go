package sgvb

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/dist"
)

// The inverse of Values: a latent's Target coordinates from its values,
// for a start given as values (gpp sample --init inits.json, gpp fit
// --init inits.json, the model package's Unconstrain). Each support's
// inverse checks that the values lie in it, as Stan's checks do before
// its unconstraining transforms.

// supportTol is how far a value may be from its support's equality
// constraints (a simplex row's sum, a correlation matrix's unit diagonal,
// symmetry, a Cholesky factor's unit rows, a zero sum), relative to the
// values' scale: Stan's CONSTRAINT_TOLERANCE.
const supportTol = 1e-8

// ValueError is a value outside its latent's support (ValueCoords):
// element Elem of the value, row-major, is Value where the support needs
// Want ("a positive value", "a symmetric matrix: [2,1] is 0.3").
type ValueError struct {
	Elem  int
	Value float64
	Want  string
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("element %d is %v: want %s", e.Elem, e.Value, e.Want)
}

// ValueSize returns the number of elements of latent i's value: its Size,
// but K·K for the matrix supports, K for a sum_to_zero_vector[K] and M·N
// for a sum_to_zero_matrix[M, N], whose coordinates are fewer.
func (d *Unconstrained) ValueSize(i int) int {
	f := &d.factors[i]
	switch {
	case f.Support.IsMatrix():
		k := matrixK(f.Support, f.Size)
		return k * k
	case f.Support == dist.SumToZero:
		return f.Size + 1
	case f.Support == dist.SumToZeroMatrix:
		return (f.Shape[0] + 1) * (f.Shape[1] + 1)
	}
	return f.Size
}

// matrixK returns the K of a K×K matrix latent of support s with size
// coordinates.
func matrixK(s dist.Support, size int) int {
	k := 1
	for s.MatrixSize(k) < size {
		k++
	}
	return k
}

// ValueCoords writes latent i's Target coordinates x (len its Size) of
// its value v (row-major, len ValueSize(i)): the inverse of Coords and
// Values, so that UCoords of the result is the unconstrained point. A
// value outside the latent's support or bounds is a *ValueError naming
// the element (the first, row-major).
func (d *Unconstrained) ValueCoords(i int, v, x []float64) error {
	f := &d.factors[i]
	if len(v) != d.ValueSize(i) || len(x) != f.Size {
		panic("sgvb: ValueCoords: bad lengths")
	}
	bad := func(k int, want string) error { return &ValueError{Elem: k, Value: v[k], Want: want} }
	for k, val := range v {
		if math.IsNaN(val) || math.IsInf(val, 0) {
			return bad(k, "a finite number")
		}
	}
	switch f.Support {
	case dist.Real:
		copy(x, v)
	case dist.Positive, dist.Unit:
		for k, val := range v {
			b := val
			loc, scale := f.affineAt(k)
			if scale != 0 {
				b = (val - loc) / scale
			}
			switch {
			case f.Support == dist.Positive && !(b > 0):
				return bad(k, boundText(loc, scale))
			case f.Support == dist.Unit && !(b > 0 && b < 1):
				if scale == 0 {
					return bad(k, "a value in (0, 1)")
				}
				return bad(k, unitText(loc, scale))
			case f.Support == dist.Positive:
				x[k] = math.Log(b)
			default:
				x[k] = math.Log(b) - math.Log1p(-b)
			}
		}
	case dist.Simplex:
		kk := f.Shape[len(f.Shape)-1]
		for r := 0; r < len(v); r += kk {
			sum := 0.0
			for k := r; k < r+kk; k++ {
				if !(v[k] > 0) {
					return bad(k, "positive simplex components")
				}
				sum += v[k]
				x[k] = math.Log(v[k])
			}
			if math.Abs(sum-1) > supportTol {
				return bad(r, fmt.Sprintf("components that sum to 1 (the row's sum to %v)", sum))
			}
		}
	case dist.Ordered, dist.PositiveOrdered:
		kk := len(v) / orderedRows(f.Shape) // each row increasing
		prev := 0.0
		for k, val := range v {
			if k%kk == 0 {
				prev = 0
			}
			switch {
			case k%kk == 0 && f.Support == dist.Ordered:
			case !(val > prev):
				return bad(k, "values that increase (from 0 for a positive_ordered one)")
			}
			prev = val
		}
		orderedCoords(x, v, f.Shape, f.Support == dist.PositiveOrdered)
	case dist.SumToZero:
		if k, sum := zeroSum(v, 0, 1, len(v)); k >= 0 {
			return bad(k, fmt.Sprintf("values that sum to 0 (they sum to %v)", sum))
		}
		dist.SumToZeroCoords(x, v)
	case dist.SumToZeroMatrix:
		m, n := f.Shape[0]+1, f.Shape[1]+1
		for r := range m {
			if k, sum := zeroSum(v, r*n, 1, n); k >= 0 {
				return bad(k, fmt.Sprintf("rows and columns that sum to 0 (row %d sums to %v)", r, sum))
			}
		}
		for c := range n {
			if k, sum := zeroSum(v, c, n, m); k >= 0 {
				return bad(k, fmt.Sprintf("rows and columns that sum to 0 (column %d sums to %v)", c, sum))
			}
		}
		dist.SumToZeroMatrixCoords(x, v, make([]float64, m*n), m, n)
	case dist.CholCorr, dist.CorrMatrix, dist.CholCov, dist.CovMatrix:
		k := matrixK(f.Support, f.Size)
		l := v
		if f.Support == dist.CorrMatrix || f.Support == dist.CovMatrix {
			var err error
			if l, err = symmetricChol(v, k, f.Support == dist.CorrMatrix); err != nil {
				return err
			}
		} else if err := cholCheck(v, k, f.Support == dist.CholCorr); err != nil {
			return err
		}
		if f.Support.IsCorr() {
			if err := cholCorrCoords(x, l, k); err != nil {
				return err
			}
			break
		}
		c := 0
		for i := range k {
			copy(x[c:c+i], l[i*k:i*k+i])
			x[c+i] = math.Log(l[i*k+i])
			c += i + 1
		}
	default:
		return fmt.Errorf("sgvb: latent %s: no inverse transform for support %v", f.Name, f.Support)
	}
	return nil
}

// LatentRange returns latent i's stretch of u: its first coordinate and
// how many it has.
func (d *Unconstrained) LatentRange(i int) (off, n int) {
	return d.segs[i].uoff, d.segs[i].n
}

// LatentInit returns the start (Latent.Init) of latent i at its Target
// coordinates x (len its Size): its values on its support before its
// bounds' affine map, the coordinates themselves for a matrix or
// zero-sum latent, so that a fit's factor starts with its location there
// as it does at a constant prior's mean.
func (d *Unconstrained) LatentInit(i int, x []float64) []float64 {
	f := &d.factors[i]
	out := make([]float64, f.Size)
	if f.Support.IsOrdered() {
		orderedNatural(out, x, f.Shape, f.Support == dist.PositiveOrdered)
		return out
	}
	k := 1
	if f.Support == dist.Simplex {
		k = f.Shape[len(f.Shape)-1]
	}
	natural(f.Support, k, out, x)
	return out
}

// zeroSum returns the first of the n values v[off], v[off+stride], …
// and their sum when the sum is not 0 within supportTol of their scale,
// else -1.
func zeroSum(v []float64, off, stride, n int) (int, float64) {
	sum, scale := 0.0, 1.0
	for j := range n {
		sum += v[off+j*stride]
		scale = max(scale, math.Abs(v[off+j*stride]))
	}
	if math.Abs(sum) > supportTol*scale*float64(n) {
		return off, sum
	}
	return -1, 0
}

// cholCheck checks that v (K×K, row-major) is a Cholesky factor: lower
// triangular (exact zeros above the diagonal, as Stan checks) with a
// positive diagonal, and for a correlation matrix's (corr) rows of unit
// norm.
func cholCheck(v []float64, k int, corr bool) error {
	for i := range k {
		for j := i + 1; j < k; j++ {
			if v[i*k+j] != 0 {
				return &ValueError{Elem: i*k + j, Value: v[i*k+j], Want: "a lower triangular matrix: 0 above the diagonal"}
			}
		}
		if !(v[i*k+i] > 0) {
			return &ValueError{Elem: i*k + i, Value: v[i*k+i], Want: "a positive diagonal"}
		}
		if !corr {
			continue
		}
		norm := 0.0
		for j := 0; j <= i; j++ {
			norm += v[i*k+j] * v[i*k+j]
		}
		if math.Abs(norm-1) > supportTol {
			return &ValueError{Elem: i * k, Value: v[i*k], Want: fmt.Sprintf("rows of unit norm (row %d's squares sum to %v)", i, norm)}
		}
	}
	return nil
}

// symmetricChol checks that v (K×K, row-major) is symmetric positive
// definite, with a unit diagonal if corr, and returns its Cholesky factor
// L (lower triangular, row-major), L L' = v.
func symmetricChol(v []float64, k int, corr bool) ([]float64, error) {
	for i := range k {
		if corr && math.Abs(v[i*k+i]-1) > supportTol {
			return nil, &ValueError{Elem: i*k + i, Value: v[i*k+i], Want: "a unit diagonal"}
		}
		for j := range i {
			a, b := v[i*k+j], v[j*k+i]
			if math.Abs(a-b) > supportTol*max(1, math.Abs(a), math.Abs(b)) {
				return nil, &ValueError{Elem: j*k + i, Value: b, Want: fmt.Sprintf("a symmetric matrix: [%d, %d] is %v", i, j, a)}
			}
		}
	}
	l := make([]float64, k*k)
	for i := range k {
		for j := 0; j <= i; j++ {
			s := v[i*k+j]
			for m := range j {
				s -= l[i*k+m] * l[j*k+m]
			}
			if j < i {
				l[i*k+j] = s / l[j*k+j]
				continue
			}
			if !(s > 0) {
				return nil, &ValueError{Elem: i*k + i, Value: v[i*k+i], Want: fmt.Sprintf("a positive definite matrix (its leading %d×%d block is not)", i+1, i+1)}
			}
			l[i*k+i] = math.Sqrt(s)
		}
	}
	return l, nil
}

// cholCorrCoords writes the K(K−1)/2 coordinates y of a Cholesky factor l
// of a correlation matrix (rows of unit norm): the inverse of
// dist.CholCorrValues, L[i,j] = tanh(y_ij)·q_j with q_0 = 1 and q_{j+1} =
// q_j·sech(y_ij), so y_ij = atanh(L[i,j]/q_j).
func cholCorrCoords(y, l []float64, k int) error {
	c := 0
	for i := 1; i < k; i++ {
		q := 1.0
		for j := range i {
			t := l[i*k+j] / q
			if !(math.Abs(t) < 1) {
				return &ValueError{Elem: i*k + j, Value: l[i*k+j], Want: "a row of unit norm with a positive diagonal"}
			}
			y[c] = math.Atanh(t)
			q /= math.Cosh(y[c])
			c++
		}
	}
	return nil
}

// boundText describes the values loc + scale·b, b > 0.
func boundText(loc, scale float64) string {
	switch {
	case scale == 0:
		return "a positive value"
	case scale > 0:
		return fmt.Sprintf("a value above %v", loc)
	}
	return fmt.Sprintf("a value below %v", loc)
}

// unitText describes the values loc + scale·b, 0 < b < 1.
func unitText(loc, scale float64) string {
	return fmt.Sprintf("a value between %v and %v", min(loc, loc+scale), max(loc, loc+scale))
}

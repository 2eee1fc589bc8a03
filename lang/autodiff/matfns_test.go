package autodiff

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Tolerances of the matrix functions' values against their references.
const (
	// expmTol bounds |exp(A) − ref| / max(1, ‖ref‖_max) for the Padé
	// scaling and squaring against a 200-bit Taylor series.
	expmTol = 1e-13
	// eigTol bounds the residuals ‖A V − V Λ‖ and ‖VᵀV − I‖ relative to ‖A‖.
	eigTol = 1e-13
)

// expmBig is exp(A) by its Taylor series in 200-bit arithmetic after
// scaling A by 2⁻ˢ to a max-norm ≤ 1/8, then squaring s times: an
// independent reference for expm.
func expmBig(a []float64, n int) []float64 {
	const prec = 200
	nf := func(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
	norm := 0.0
	for _, x := range a {
		norm = max(norm, math.Abs(x))
	}
	s := 0
	for norm*float64(n) > 0.125 {
		norm /= 2
		s++
	}
	as := make([]*big.Float, n*n)
	for i, x := range a {
		as[i] = new(big.Float).SetPrec(prec).SetMantExp(nf(x), -s)
	}
	mul := func(x, y []*big.Float) []*big.Float {
		z := make([]*big.Float, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				acc := nf(0)
				for k := 0; k < n; k++ {
					acc.Add(acc, new(big.Float).SetPrec(prec).Mul(x[i*n+k], y[k*n+j]))
				}
				z[i*n+j] = acc
			}
		}
		return z
	}
	sum := make([]*big.Float, n*n)
	term := make([]*big.Float, n*n)
	for i := range sum {
		sum[i], term[i] = nf(0), nf(0)
		if i%(n+1) == 0 {
			sum[i], term[i] = nf(1), nf(1)
		}
	}
	for k := 1; k <= 60; k++ { // ‖A/2ˢ‖ ≤ 1/8: 8⁻⁶⁰/60! is far below 2⁻²⁰⁰
		term = mul(term, as)
		for i := range term {
			term[i].Quo(term[i], nf(float64(k)))
			sum[i].Add(sum[i], term[i])
		}
	}
	for ; s > 0; s-- {
		sum = mul(sum, sum)
	}
	out := make([]float64, n*n)
	for i, x := range sum {
		out[i], _ = x.Float64()
	}
	return out
}

// evalOne builds f of constant operands and returns its value.
func evalOne(t *testing.T, f func(b *Builder, x []ID) ID, vals [][]float64, shapes []Shape) []float64 {
	t.Helper()
	b := NewBuilder()
	ids := make([]ID, len(vals))
	for i := range vals {
		ids[i] = b.Input("x", shapes[i], testPos)
	}
	out := f(b, ids)
	p, err := b.Finish(b.Sum(out, testPos))
	if err != nil {
		t.Fatal(err)
	}
	var x0 []float64
	for _, v := range vals {
		x0 = append(x0, v...)
	}
	if _, err := p.Forward(x0); err != nil {
		t.Fatal(err)
	}
	return p.Value(out)
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	return m
}

// TestMatrixExpReference: exp(A) against the 200-bit Taylor series for
// random matrices of 1-norm from 0.01 to about 300 (0 to 6 squarings),
// and exactly known cases: a diagonal, a rotation generator, a nilpotent
// matrix, the zero matrix.
func TestMatrixExpReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 0x5eed))
	worst := 0.0
	for _, scale := range []float64{0.01, 0.3, 1, 3, 10, 40} {
		for n := 1; n <= 6; n++ {
			a := make([]float64, n*n)
			for i := range a {
				a[i] = scale * (-1 + 2*r.Float64())
			}
			got := evalOne(t, func(b *Builder, x []ID) ID { return b.MatrixExp(x[0], testPos) }, [][]float64{a}, []Shape{Matrix(n, n)})
			want := expmBig(a, n)
			den := max(1, maxAbs(want))
			for i := range want {
				e := math.Abs(got[i]-want[i]) / den
				worst = max(worst, e)
				if e > expmTol {
					t.Errorf("scale %g n %d: exp(A)[%d] = %.17g, want %.17g (rel %.2g)", scale, n, i, got[i], want[i], e)
				}
			}
		}
	}
	t.Logf("worst error relative to the largest element: %.2g", worst)
	th := 2.5
	for _, c := range []struct {
		name string
		a    []float64
		want []float64
	}{
		{"diagonal", []float64{-3, 0, 0, 0.5}, []float64{math.Exp(-3), 0, 0, math.Exp(0.5)}},
		{"rotation", []float64{0, -th, th, 0}, []float64{math.Cos(th), -math.Sin(th), math.Sin(th), math.Cos(th)}},
		{"nilpotent", []float64{0, 7, 0, 0}, []float64{1, 7, 0, 1}},
		{"zero", []float64{0, 0, 0, 0}, []float64{1, 0, 0, 1}},
	} {
		got := evalOne(t, func(b *Builder, x []ID) ID { return b.MatrixExp(x[0], testPos) }, [][]float64{c.a}, []Shape{Matrix(2, 2)})
		for i := range c.want {
			if math.Abs(got[i]-c.want[i]) > 4e-16*max(1, math.Abs(c.want[i])) {
				t.Errorf("%s: exp(A)[%d] = %.17g, want %.17g", c.name, i, got[i], c.want[i])
			}
		}
	}
}

// TestMatrixExpSymmetric: exp of a symmetric matrix against V exp(Λ) Vᵀ
// from its eigendecomposition (the package's own, checked below by
// reconstruction).
func TestMatrixExpSymmetric(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 0x5eed))
	for _, n := range []int{2, 4, 7} {
		a := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				a[i*n+j] = -2 + 4*r.Float64()
				a[j*n+i] = a[i*n+j]
			}
		}
		vals := evalOne(t, func(b *Builder, x []ID) ID { return b.EigenSym(OpEigvalsSym, x[0], testPos) }, [][]float64{a}, []Shape{Matrix(n, n)})
		vecs := evalOne(t, func(b *Builder, x []ID) ID { return b.EigenSym(OpEigvecsSym, x[0], testPos) }, [][]float64{a}, []Shape{Matrix(n, n)})
		got := evalOne(t, func(b *Builder, x []ID) ID { return b.MatrixExp(x[0], testPos) }, [][]float64{a}, []Shape{Matrix(n, n)})
		want := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				for k := 0; k < n; k++ {
					want[i*n+j] += vecs[i*n+k] * math.Exp(vals[k]) * vecs[j*n+k]
				}
			}
		}
		den := maxAbs(want)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-13*den {
				t.Errorf("n %d: exp(A)[%d] = %.17g, V exp(Λ) Vᵀ %.17g", n, i, got[i], want[i])
			}
		}
	}
}

// TestEigenSymReconstruct: A V = V Λ and VᵀV = I, the eigenvalues
// ascending, each eigenvector's largest element positive.
func TestEigenSymReconstruct(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 0x5eed))
	for _, n := range []int{1, 2, 3, 5, 9} {
		a := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				a[i*n+j] = -3 + 6*r.Float64()
				a[j*n+i] = a[i*n+j]
			}
		}
		vals := evalOne(t, func(b *Builder, x []ID) ID { return b.EigenSym(OpEigvalsSym, x[0], testPos) }, [][]float64{a}, []Shape{Matrix(n, n)})
		v := evalOne(t, func(b *Builder, x []ID) ID { return b.EigenSym(OpEigvecsSym, x[0], testPos) }, [][]float64{a}, []Shape{Matrix(n, n)})
		scale := maxAbs(a)
		for i := 0; i < n; i++ {
			if i > 0 && vals[i] < vals[i-1] {
				t.Errorf("n %d: eigenvalues not ascending: %v", n, vals)
			}
			big := 0
			for k := 0; k < n; k++ {
				if math.Abs(v[k*n+i]) > math.Abs(v[big*n+i]) {
					big = k
				}
			}
			if v[big*n+i] < 0 {
				t.Errorf("n %d: eigenvector %d's largest element is negative", n, i)
			}
			for j := 0; j < n; j++ {
				av, vi := 0.0, 0.0
				for k := 0; k < n; k++ {
					av += a[i*n+k] * v[k*n+j]
					vi += v[k*n+i] * v[k*n+j]
				}
				if e := math.Abs(av - v[i*n+j]*vals[j]); e > eigTol*scale*float64(n) {
					t.Errorf("n %d: (AV − VΛ)[%d, %d] = %.3g", n, i, j, e)
				}
				if i == j {
					vi--
				}
				if math.Abs(vi) > eigTol*float64(n) {
					t.Errorf("n %d: (VᵀV − I)[%d, %d] = %.3g", n, i, j, vi)
				}
			}
		}
	}
}

// TestSingularValuesReference: the singular values are the square roots
// of the eigenvalues of AᵀA (or AAᵀ, the smaller), descending.
func TestSingularValuesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 0x5eed))
	for _, mn := range [][2]int{{1, 1}, {3, 3}, {5, 2}, {2, 6}} {
		m, n := mn[0], mn[1]
		a := make([]float64, m*n)
		for i := range a {
			a[i] = -2 + 4*r.Float64()
		}
		got := evalOne(t, func(b *Builder, x []ID) ID { return b.SingularValues(x[0], testPos) }, [][]float64{a}, []Shape{Matrix(m, n)})
		k := min(m, n)
		g := make([]float64, k*k) // the k×k Gram matrix
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				for l := 0; l < max(m, n); l++ {
					if m <= n {
						g[i*k+j] += a[i*n+l] * a[j*n+l]
					} else {
						g[i*k+j] += a[l*n+i] * a[l*n+j]
					}
				}
			}
		}
		ev := evalOne(t, func(b *Builder, x []ID) ID { return b.EigenSym(OpEigvalsSym, x[0], testPos) }, [][]float64{g}, []Shape{Matrix(k, k)})
		for i := 0; i < k; i++ {
			want := math.Sqrt(ev[k-1-i])
			if math.Abs(got[i]-want) > 1e-12*max(1, want) {
				t.Errorf("%d×%d: σ[%d] = %.17g, want %.17g", m, n, i, got[i], want)
			}
		}
	}
	// Against LAPACK's dgesvd (gonum's), for larger matrices with graded
	// columns (singular values over 8 orders of magnitude).
	worst := 0.0
	for _, mn := range [][2]int{{20, 12}, {12, 20}, {30, 30}} {
		m, n := mn[0], mn[1]
		a := make([]float64, m*n)
		for i := range a {
			a[i] = (-1 + 2*r.Float64()) * math.Pow(10, -8*float64(i%n)/float64(n-1))
		}
		got := evalOne(t, func(b *Builder, x []ID) ID { return b.SingularValues(x[0], testPos) }, [][]float64{a}, []Shape{Matrix(m, n)})
		var svd mat.SVD
		if !svd.Factorize(mat.NewDense(m, n, append([]float64(nil), a...)), mat.SVDNone) {
			t.Fatal("gonum's SVD failed")
		}
		want := svd.Values(nil)
		for i := range want {
			e := math.Abs(got[i]-want[i]) / want[i]
			worst = max(worst, e)
			if e > 1e-12 {
				t.Errorf("%d×%d: σ[%d] = %.17g, dgesvd %.17g (rel %.2g)", m, n, i, got[i], want[i], e)
			}
		}
	}
	t.Logf("worst relative difference from dgesvd: %.2g", worst)
}

// TestMatFnsGrad checks each op's reverse sweep against central finite
// differences, and values where a plain reference is at hand.
func TestMatFnsGrad(t *testing.T) {
	sq := func(dom domain) func(r *rand.Rand) []arg {
		return func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{in(Matrix(n, n), dom)}
		}
	}
	expRef := func(v [][]float64, s []Shape) []float64 { return expmBig(v[0], s[0].Rows) }
	sortRef := func(desc bool) func(v [][]float64, s []Shape) []float64 {
		return func(v [][]float64, s []Shape) []float64 {
			out := append([]float64(nil), v[0]...)
			sort.Float64s(out)
			if desc {
				for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
					out[i], out[j] = out[j], out[i]
				}
			}
			return out
		}
	}
	runCases(t, []gradCase{
		{name: "matrix_exp", args: sq(real), build: func(b *Builder, x []ID) ID { return b.MatrixExp(x[0], testPos) }, ref: expRef},
		{name: "matrix_exp/squared", args: sq(real), build: func(b *Builder, x []ID) ID {
			// 4A has a 1-norm past theta13 for n ≥ 3: the squarings' gradient
			return b.MatrixExp(b.Mul(x[0], b.Scalar(4, testPos), testPos), testPos)
		}},
		{name: "matrix_exp/spd", args: sq(spd), build: func(b *Builder, x []ID) ID {
			return b.MatrixExp(b.Mul(x[0], b.Scalar(-0.3, testPos), testPos), testPos)
		}},
		{name: "sort_asc", args: func(r *rand.Rand) []arg { return []arg{in(Vector(3+r.IntN(6)), real)} },
			build: func(b *Builder, x []ID) ID { return b.Sort(x[0], false, testPos) }, ref: sortRef(false)},
		{name: "sort_desc", args: func(r *rand.Rand) []arg { return []arg{in(Vector(3+r.IntN(6)), real)} },
			build: func(b *Builder, x []ID) ID { return b.Sort(x[0], true, testPos) }, ref: sortRef(true)},
		{name: "eigenvalues_sym", args: sq(spd), build: func(b *Builder, x []ID) ID { return b.EigenSym(OpEigvalsSym, x[0], testPos) }},
		{name: "eigenvectors_sym", args: sq(spd), build: func(b *Builder, x []ID) ID { return b.EigenSym(OpEigvecsSym, x[0], testPos) }},
		{name: "singular_values/tall", args: func(r *rand.Rand) []arg {
			m, n, _ := dims(r)
			return []arg{in(Matrix(m+n, n), real)}
		}, build: func(b *Builder, x []ID) ID { return b.SingularValues(x[0], testPos) }},
		{name: "singular_values/wide", args: func(r *rand.Rand) []arg {
			m, n, _ := dims(r)
			return []arg{in(Matrix(m, m+n), real)}
		}, build: func(b *Builder, x []ID) ID { return b.SingularValues(x[0], testPos) }},
		{name: "mdivide_right_tri_low", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Matrix(m, n), real), in(Matrix(n, n), cholf)}
		}, build: func(b *Builder, x []ID) ID { return b.TriSolveRight(x[0], x[1], testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				// (B L⁻¹)ᵀ = L⁻ᵀ Bᵀ: row r of X solves X_r L = B_r, by back substitution
				m, n := s[0].Rows, s[0].Cols
				l, out := v[1], make([]float64, m*n)
				for r := 0; r < m; r++ {
					for j := n - 1; j >= 0; j-- {
						x := v[0][r*n+j]
						for k := j + 1; k < n; k++ {
							x -= out[r*n+k] * l[k*n+j]
						}
						out[r*n+j] = x / l[j*n+j]
					}
				}
				return out
			}},
		{name: "mdivide_right_tri_low/data-L", args: func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{in(Matrix(m, n), real), data(Matrix(n, n), cholf)}
		}, build: func(b *Builder, x []ID) ID { return b.TriSolveRight(x[0], x[1], testPos) }},
	})
}

// TestSortTies: equal elements keep their order, ascending and
// descending, and the adjoint follows the permutation.
func TestSortTies(t *testing.T) {
	x := []float64{2, -1, 2, 0, -1}
	for _, c := range []struct {
		desc bool
		perm []float64
	}{{false, []float64{1, 4, 3, 0, 2}}, {true, []float64{0, 2, 3, 1, 4}}} {
		perm, tmp := make([]float64, 5), make([]float64, 5)
		sortPerm(perm, tmp, x, c.desc)
		for i := range perm {
			if perm[i] != c.perm[i] {
				t.Fatalf("desc %v: perm %v, want %v", c.desc, perm, c.perm)
			}
		}
	}
}

// TestMatFnsNoAllocs: a step through matrix_exp, sort, the symmetric
// eigendecomposition, singular values and mdivide_right_tri_low
// allocates nothing.
func TestMatFnsNoAllocs(t *testing.T) {
	b := NewBuilder()
	a := b.Input("A", Matrix(3, 3), testPos)
	y := b.Input("y", Vector(3), testPos)
	s := b.Mul(b.Add(a, b.Transpose(a, testPos), testPos), b.Scalar(0.5, testPos), testPos)
	total := b.Sum(b.MatrixExp(b.Mul(a, b.Scalar(5, testPos), testPos), testPos), testPos)
	total = b.Add(total, b.Sum(b.Sort(y, true, testPos), testPos), testPos)
	total = b.Add(total, b.Sum(b.EigenSym(OpEigvalsSym, s, testPos), testPos), testPos)
	total = b.Add(total, b.Sum(b.EigenSym(OpEigvecsSym, s, testPos), testPos), testPos)
	total = b.Add(total, b.Sum(b.SingularValues(a, testPos), testPos), testPos)
	total = b.Add(total, b.Sum(b.TriSolveRight(b.Transpose(y, testPos), a, testPos), testPos), testPos)
	p, err := b.Finish(total)
	if err != nil {
		t.Fatal(err)
	}
	v := []float64{2, 0.5, -1, 0.3, 3, 0.2, -0.4, 1, 1.5, 1, 2, 3}
	g := make([]float64, len(v))
	if _, err := p.LogJoint(v, g); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(10, func() { p.LogJoint(v, g) }); a != 0 {
		t.Errorf("%v allocations per step, want 0", a)
	}
	// Past order 128 LAPACK's blocked reductions would call gonum's Dgemm
	// on blocks it shares with goroutines: the unblocked forms run.
	const n = 140
	b = NewBuilder()
	a = b.Input("A", Matrix(n, n), testPos)
	s = b.Mul(b.Add(a, b.Transpose(a, testPos), testPos), b.Scalar(0.5, testPos), testPos)
	total = b.Add(b.Sum(b.EigenSym(OpEigvecsSym, s, testPos), testPos), b.Sum(b.SingularValues(a, testPos), testPos), testPos)
	if p, err = b.Finish(total); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(15, 0x5eed))
	v = make([]float64, n*n)
	for i := range v {
		v[i] = -1 + 2*r.Float64()
	}
	g = make([]float64, len(v))
	if _, err := p.LogJoint(v, g); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(1, func() { p.LogJoint(v, g) }); a != 0 {
		t.Errorf("order %d: %v allocations per step, want 0", n, a)
	}
}

// TestMatrixExpGradReference: the reverse sweep of sum(W .* exp(A)), the
// Fréchet derivative L(Aᵀ, W), against its 200-bit value, the upper right
// block of the Taylor series of exp([[Aᵀ, W], [0, Aᵀ]]) (Higham 2008,
// thm. 3.6), for 1-norms from 0.03 to about 100. Finite differences
// (TestMatFnsGrad) check it independently to 1e-6.
func TestMatrixExpGradReference(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 0x5eed))
	worst := 0.0
	for _, scale := range []float64{0.01, 1, 5, 20} {
		for n := 1; n <= 5; n++ {
			a, w := make([]float64, n*n), make([]float64, n*n)
			for i := range a {
				a[i] = scale * (-1 + 2*r.Float64())
				w[i] = -1 + 2*r.Float64()
			}
			b := NewBuilder()
			x := b.Input("A", Matrix(n, n), testPos)
			p, err := b.Finish(b.Sum(b.Mul(b.MatrixExp(x, testPos), b.Const(w, Matrix(n, n), testPos), testPos), testPos))
			if err != nil {
				t.Fatal(err)
			}
			grad := make([]float64, n*n)
			if _, err := p.LogJoint(a, grad); err != nil {
				t.Fatal(err)
			}
			m := 2 * n
			blk := make([]float64, m*m)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					blk[i*m+j], blk[(n+i)*m+n+j], blk[i*m+n+j] = a[j*n+i], a[j*n+i], w[i*n+j]
				}
			}
			e := expmBig(blk, m)
			want := make([]float64, n*n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					want[i*n+j] = e[i*m+n+j]
				}
			}
			den := max(1e-300, maxAbs(want))
			for i := range want {
				rel := math.Abs(grad[i]-want[i]) / den
				worst = max(worst, rel)
				if rel > 1e-12 {
					t.Errorf("scale %g n %d: grad[%d] = %.17g, want %.17g (rel %.2g)", scale, n, i, grad[i], want[i], rel)
				}
			}
		}
	}
	t.Logf("worst error relative to the largest element: %.2g", worst)
}

// TestSingularValuesNonFinite: a NaN or an infinity in the matrix (which
// reaches singular_values in an output, after a failed op upstream) is
// reported at once, naming the element, instead of 60 sweeps of NaN
// rotations; and jacobiSVD reports a sweep limit it reaches.
func TestSingularValuesNonFinite(t *testing.T) {
	b := NewBuilder()
	a := b.Input("A", Matrix(2, 3), testPos)
	s := b.SingularValues(a, at(5, 3))
	p, err := b.Finish(b.Sum(s, testPos))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Forward([]float64{1, 2, 3, 4, 5, 6.5}); err != nil {
		t.Fatal(err)
	}
	i := p.index(s)
	n := &p.nodes[i]
	for _, c := range []struct {
		x    float64
		want string
	}{{math.NaN(), "NaN"}, {math.Inf(1), "+Inf"}} {
		p.v(p.arg(n, 0))[4] = c.x
		if p.eval(n) {
			t.Fatalf("singular_values of a matrix with %v: evaluated", c.x)
		}
		want := "model.gpp:5:3: singular_values: element [1, 1] of the matrix is " + c.want
		if err := p.forwardError(i, false); err == nil || err.Error() != want {
			t.Errorf("error %v, want %s", err, want)
		}
	}

	r := rand.New(rand.NewPCG(17, 0x5eed))
	w, v := make([]float64, 30), make([]float64, 9)
	for i := range w {
		w[i] = r.NormFloat64()
	}
	if jacobiSVD(slices.Clone(w), 10, 3, v, 1) {
		t.Error("jacobiSVD of a random 10 × 3 matrix converged in one sweep")
	}
	if !jacobiSVD(w, 10, 3, v, svdSweeps) {
		t.Errorf("jacobiSVD of a random 10 × 3 matrix did not converge in %d sweeps", svdSweeps)
	}
}

// TestSingularValuesExtremeScale: a matrix whose elements are near the
// ends of the double range (1e±300, where the columns' squared norms
// overflow or underflow) has the singular values of its unscaled self
// times the scale, tall and wide, to the rounding of the scale itself
// (before the scaling by a power of two, 1e300 did not converge).
func TestSingularValuesExtremeScale(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 0x5ca1e))
	for _, sh := range [][2]int{{5, 3}, {3, 5}} {
		m, n := sh[0], sh[1]
		a := make([]float64, m*n)
		for i := range a {
			a[i] = r.NormFloat64()
		}
		build := func(b *Builder, x []ID) ID { return b.SingularValues(x[0], testPos) }
		want := evalOne(t, build, [][]float64{a}, []Shape{Matrix(m, n)})
		for _, scale := range []float64{1e300, 1e-300, 0x1p1000, 0x1p-1000} {
			as := make([]float64, len(a))
			for i, x := range a {
				as[i] = x * scale
			}
			got := evalOne(t, build, [][]float64{as}, []Shape{Matrix(m, n)})
			for j := range want {
				if e := math.Abs(got[j]/scale-want[j]) / want[j]; !(e <= 1e-14) {
					t.Errorf("[%d, %d] × %g: σ_%d = %.17g, want %.17g × scale (relative error %.2g)", m, n, scale, j, got[j], want[j]*scale, e)
				}
			}
		}
	}
}

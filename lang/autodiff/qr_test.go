package autodiff

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// qrTol bounds the QR and SVD factors' differences from gonum's LAPACK
// factors (signed as Stan signs them) and their residuals, relative to
// the largest element of A.
const qrTol = 1e-13

func randMat(r *rand.Rand, m, n int) []float64 {
	a := make([]float64, m*n)
	for i := range a {
		a[i] = -2 + 4*r.Float64()
	}
	return a
}

// TestQRReference: each factor against gonum's mat.QR (dgeqrf, dorgqr)
// with Stan's signs applied (rows of R and columns of Q flipped where
// R[i, i] < 0), for tall, square and wide matrices; the thin factors are
// the leading columns and rows of the fat ones, and Q R = A.
func TestQRReference(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 0x5eed))
	worst := 0.0
	for _, mn := range [][2]int{{1, 1}, {4, 4}, {7, 3}, {3, 6}, {30, 8}} {
		m, n := mn[0], mn[1]
		k := min(m, n)
		a := randMat(r, m, n)
		var qr mat.QR
		// gonum's QR needs m ≥ n; a wide A is factored through its
		// leading square block: A = Q [U V] with V = Qᵀ Y
		lead := mat.NewDense(m, k, nil)
		lead.Copy(mat.NewDense(m, n, append([]float64(nil), a...)))
		qr.Factorize(lead)
		var q, rr mat.Dense
		qr.QTo(&q)
		qr.RTo(&rr)
		wantR := mat.NewDense(m, n, nil)
		var full mat.Dense
		full.Mul(q.T(), mat.NewDense(m, n, append([]float64(nil), a...)))
		for i := 0; i < m; i++ {
			for j := i; j < n; j++ {
				if i < k {
					wantR.Set(i, j, full.At(i, j))
				}
			}
		}
		for i := 0; i < k; i++ {
			if rr.At(i, i) < 0 {
				for j := 0; j < n; j++ {
					wantR.Set(i, j, -wantR.At(i, j))
				}
				for l := 0; l < m; l++ {
					q.Set(l, i, -q.At(l, i))
				}
			}
		}
		vals := [][]float64{a}
		sh := []Shape{Matrix(m, n)}
		thinQ := evalOne(t, func(b *Builder, x []ID) ID { return b.QR(QRThinQ, x[0], testPos) }, vals, sh)
		thinR := evalOne(t, func(b *Builder, x []ID) ID { return b.QR(QRThinR, x[0], testPos) }, vals, sh)
		fatQ := evalOne(t, func(b *Builder, x []ID) ID { return b.QR(QRFatQ, x[0], testPos) }, vals, sh)
		fatR := evalOne(t, func(b *Builder, x []ID) ID { return b.QR(QRFatR, x[0], testPos) }, vals, sh)
		scale := maxAbs(a)
		check := func(what string, got float64, want float64, i, j int) {
			e := math.Abs(got-want) / scale
			worst = max(worst, e)
			if e > qrTol {
				t.Errorf("%d×%d %s[%d, %d] = %.17g, want %.17g", m, n, what, i, j, got, want)
			}
		}
		for i := 0; i < m; i++ {
			for j := 0; j < k; j++ {
				check("qr_thin_Q", thinQ[i*k+j], q.At(i, j), i, j)
				check("qr_Q", fatQ[i*m+j], q.At(i, j), i, j)
			}
			for j := 0; j < n; j++ {
				check("qr_R", fatR[i*n+j], wantR.At(i, j), i, j)
				if i < k {
					check("qr_thin_R", thinR[i*n+j], wantR.At(i, j), i, j)
				}
			}
		}
		for i := 0; i < k; i++ {
			if thinR[i*n+i] < 0 {
				t.Errorf("%d×%d: R[%d, %d] = %g < 0", m, n, i, i, thinR[i*n+i])
			}
		}
		// the fat Q is orthogonal and Q R = A
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				d := 0.0
				for l := 0; l < m; l++ {
					d += fatQ[l*m+i] * fatQ[l*m+j]
				}
				if i == j {
					d--
				}
				worst = max(worst, math.Abs(d))
				if math.Abs(d) > qrTol {
					t.Errorf("%d×%d: (QᵀQ − I)[%d, %d] = %.3g", m, n, i, j, d)
				}
			}
			for j := 0; j < n; j++ {
				s := 0.0
				for l := 0; l < m; l++ {
					s += fatQ[i*m+l] * fatR[l*n+j]
				}
				check("QR", s, a[i*n+j], i, j)
			}
		}
	}
	t.Logf("worst difference from gonum's QR and residual, relative to max |A|: %.2g", worst)
}

// TestSVDVectors: U diag(σ) Vᵀ = A, UᵀU = VᵀV = I, the sign rule, and
// each pair against gonum's dgesvd up to the pair's sign; a rank-deficient
// A (two zero singular values) still gets an orthonormal U.
func TestSVDVectors(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 0x5eed))
	worst, worstRef := 0.0, 0.0
	cases := []struct {
		m, n int
		a    []float64
	}{{5, 3, randMat(r, 5, 3)}, {3, 5, randMat(r, 3, 5)}, {4, 4, randMat(r, 4, 4)}, {1, 3, randMat(r, 1, 3)}}
	// rank 2 of 4: the outer products of two random pairs
	u0, v0 := randMat(r, 6, 2), randMat(r, 2, 4)
	def := make([]float64, 24)
	for i := 0; i < 6; i++ {
		for j := 0; j < 4; j++ {
			def[i*4+j] = u0[i*2]*v0[j] + u0[i*2+1]*v0[4+j]
		}
	}
	cases = append(cases, struct {
		m, n int
		a    []float64
	}{6, 4, def})
	for _, c := range cases {
		m, n, k := c.m, c.n, min(c.m, c.n)
		vals, sh := [][]float64{c.a}, []Shape{Matrix(m, n)}
		u := evalOne(t, func(b *Builder, x []ID) ID { return b.SVDVectors(false, x[0], testPos) }, vals, sh)
		v := evalOne(t, func(b *Builder, x []ID) ID { return b.SVDVectors(true, x[0], testPos) }, vals, sh)
		sig := evalOne(t, func(b *Builder, x []ID) ID { return b.SingularValues(x[0], testPos) }, vals, sh)
		scale := maxAbs(c.a)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				s := 0.0
				for l := 0; l < k; l++ {
					s += u[i*k+l] * sig[l] * v[j*k+l]
				}
				e := math.Abs(s-c.a[i*n+j]) / scale
				worst = max(worst, e)
				if e > qrTol {
					t.Errorf("%d×%d: (U Σ Vᵀ)[%d, %d] = %.17g, want %.17g", m, n, i, j, s, c.a[i*n+j])
				}
			}
		}
		for _, f := range []struct {
			name string
			x    []float64
			rows int
		}{{"U", u, m}, {"V", v, n}} {
			for i := 0; i < k; i++ {
				for j := 0; j < k; j++ {
					d := 0.0
					for l := 0; l < f.rows; l++ {
						d += f.x[l*k+i] * f.x[l*k+j]
					}
					if i == j {
						d--
					}
					worst = max(worst, math.Abs(d))
					if math.Abs(d) > qrTol {
						t.Errorf("%d×%d: (%sᵀ%s − I)[%d, %d] = %.3g", m, n, f.name, f.name, i, j, d)
					}
				}
			}
		}
		for j := 0; j < k; j++ { // the largest element of each u is positive
			big := 0
			for i := 1; i < m; i++ {
				if math.Abs(u[i*k+j]) > math.Abs(u[big*k+j]) {
					big = i
				}
			}
			if u[big*k+j] < 0 {
				t.Errorf("%d×%d: column %d of U has its largest element negative", m, n, j)
			}
		}
		var svd mat.SVD
		if !svd.Factorize(mat.NewDense(m, n, append([]float64(nil), c.a...)), mat.SVDThin) {
			t.Fatal("gonum's SVD failed")
		}
		var gu, gv mat.Dense
		svd.UTo(&gu)
		svd.VTo(&gv)
		gs := svd.Values(nil)
		for j := 0; j < k; j++ {
			if gs[j] < 1e-8*gs[0] {
				continue // a null space's basis is not unique
			}
			sg := 1.0
			if gu.At(0, j)*u[j] < 0 {
				sg = -1
			}
			for i := 0; i < m; i++ {
				e := math.Abs(sg*gu.At(i, j) - u[i*k+j])
				worstRef = max(worstRef, e)
				if e > 1e-12 {
					t.Errorf("%d×%d: U[%d, %d] = %.17g, dgesvd ±%.17g", m, n, i, j, u[i*k+j], gu.At(i, j))
				}
			}
			for i := 0; i < n; i++ {
				e := math.Abs(sg*gv.At(i, j) - v[i*k+j])
				worstRef = max(worstRef, e)
				if e > 1e-12 {
					t.Errorf("%d×%d: V[%d, %d] = %.17g, dgesvd ±%.17g", m, n, i, j, v[i*k+j], gv.At(i, j))
				}
			}
		}
	}
	t.Logf("worst residual of U Σ Vᵀ and orthogonality: %.2g; worst difference from dgesvd's vectors: %.2g", worst, worstRef)
}

// lowerMask zeroes x's upper triangle (a Cholesky factor from cholf's
// noisy square) with a constant mask, so that its gradient there is 0.
func lowerMask(b *Builder, x ID) ID {
	n := b.Shape(x).Rows
	m := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			m[i*n+j] = 1
		}
	}
	return b.Mul(x, b.Const(m, Matrix(n, n), testPos), testPos)
}

// TestQRGrad: the thin QR factors' and the singular vectors' reverse
// sweeps (tall, square and wide A) and chol2inv's, against central finite differences; chol2inv's value
// against the inverse of L Lᵀ by LU.
func TestQRGrad(t *testing.T) {
	mats := func(tall, wide int) func(r *rand.Rand) []arg {
		return func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{in(Matrix(n+tall, n+wide), real)}
		}
	}
	qr := func(form int) func(b *Builder, x []ID) ID {
		return func(b *Builder, x []ID) ID { return b.QR(form, x[0], testPos) }
	}
	runCases(t, []gradCase{
		{name: "qr_thin_Q/tall", args: mats(3, 0), build: qr(QRThinQ)},
		{name: "qr_thin_R/tall", args: mats(3, 0), build: qr(QRThinR)},
		{name: "qr_thin_Q/square", args: mats(0, 0), build: qr(QRThinQ)},
		{name: "qr_thin_R/square", args: mats(0, 0), build: qr(QRThinR)},
		{name: "qr_thin_Q/wide", args: mats(0, 2), build: qr(QRThinQ)},
		{name: "qr_thin_R/wide", args: mats(0, 2), build: qr(QRThinR)},
		{name: "svd_U/tall", args: mats(3, 0), build: func(b *Builder, x []ID) ID { return b.SVDVectors(false, x[0], testPos) }},
		{name: "svd_V/tall", args: mats(3, 0), build: func(b *Builder, x []ID) ID { return b.SVDVectors(true, x[0], testPos) }},
		{name: "svd_U/wide", args: mats(0, 2), build: func(b *Builder, x []ID) ID { return b.SVDVectors(false, x[0], testPos) }},
		{name: "svd_V/wide", args: mats(0, 2), build: func(b *Builder, x []ID) ID { return b.SVDVectors(true, x[0], testPos) }},
		{name: "svd_V/square", args: mats(0, 0), build: func(b *Builder, x []ID) ID { return b.SVDVectors(true, x[0], testPos) }},
		{name: "qr_thin/both", args: mats(2, 0), build: func(b *Builder, x []ID) ID {
			// Q and R of one matrix in one expression: Q R = A
			return b.MatMul(b.QR(QRThinQ, x[0], testPos), b.QR(QRThinR, x[0], testPos), testPos)
		}, ref: func(v [][]float64, s []Shape) []float64 { return v[0] }},
		{name: "chol2inv", args: func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{in(Matrix(n, n), cholf)}
		}, build: func(b *Builder, x []ID) ID { return b.Chol2Inv(lowerMask(b, x[0]), testPos) },
			ref: func(v [][]float64, s []Shape) []float64 {
				n := s[0].Rows
				l := mat.NewDense(n, n, nil)
				for i := 0; i < n; i++ {
					for j := 0; j <= i; j++ {
						l.Set(i, j, v[0][i*n+j])
					}
				}
				var a, inv mat.Dense
				a.Mul(l, l.T())
				if err := inv.Inverse(&a); err != nil {
					panic(err)
				}
				return inv.RawMatrix().Data
			}},
	})
}

// TestQRErrors: a rank-deficient param matrix under a thin factor, and an
// L that is not a Cholesky factor, are errors at the call; the same
// rank-deficient matrix as data factors (no derivative is needed).
func TestQRErrors(t *testing.T) {
	cases := []struct {
		name  string
		vals  []float64
		build func(b *Builder) ID
		want  string
	}{
		{"qr_thin_R of a rank-deficient param", []float64{1, 2, 2, 4, 3, 6}, func(b *Builder) ID {
			return b.Sum(b.QR(QRThinR, b.Input("X", Matrix(3, 2), at(1, 1)), at(4, 9)), at(4, 1))
		}, "model.gpp:4:9: qr_thin_R: matrix is rank-deficient (R[1, 1] is zero to rounding)"},
		{"chol2inv of a zero diagonal", []float64{1, 0, 0.5, 0}, func(b *Builder) ID {
			return b.Sum(b.Chol2Inv(b.Input("L", Matrix(2, 2), at(1, 1)), at(6, 3)), at(6, 1))
		}, "model.gpp:6:3: chol2inv: L's diagonal element [1, 1] is 0, not positive"},
		{"chol2inv of an upper element", []float64{1, 0.25, 0.5, 2}, func(b *Builder) ID {
			return b.Sum(b.Chol2Inv(b.Input("L", Matrix(2, 2), at(1, 1)), at(6, 3)), at(6, 1))
		}, "model.gpp:6:3: chol2inv: L is not lower triangular: element [0, 1] above the diagonal is 0.25"},
		// once a NaN gradient: the singular vectors of equal or (of a
		// non-square A) zero singular values have no derivative
		{"svd_U of equal singular values", []float64{0, 2, 2, 0}, func(b *Builder) ID {
			return b.Sum(b.SVDVectors(false, b.Input("A", Matrix(2, 2), at(1, 1)), at(7, 3)), at(7, 1))
		}, "model.gpp:7:3: svd_U: singular values 0 and 1 are equal to rounding (2 and 2), so the singular vectors have no derivative"},
		{"svd_V of a zero singular value", []float64{1, 0, 2, 0, 3, 0}, func(b *Builder) ID {
			return b.Sum(b.SVDVectors(true, b.Input("A", Matrix(3, 2), at(1, 1)), at(8, 3)), at(8, 1))
		}, "model.gpp:8:3: svd_V: singular value 1 (0) is zero to rounding, so the singular vectors have no derivative"},
	}
	for _, c := range cases {
		b := NewBuilder()
		p, err := b.Finish(c.build(b))
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.LogJoint(c.vals, make([]float64, len(c.vals)))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	b := NewBuilder()
	x := b.Const([]float64{1, 2, 2, 4, 3, 6}, Matrix(3, 2), testPos)
	rr := b.QR(QRThinR, x, testPos)
	p, err := b.Finish(b.Sum(rr, testPos))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Forward(nil); err != nil {
		t.Fatalf("data: %v", err)
	}
	if v := p.Value(rr); math.Abs(v[3]) > 1e-14 || math.Abs(v[0]-math.Sqrt(14)) > 1e-14 {
		t.Errorf("R of rank-deficient data = %v, want [√14 2√14; 0 0]", v)
	}
}

// TestQREmpty: the factors of an empty matrix are empty, qr_Q of an
// [m, 0] matrix the identity (LAPACK refuses the zero leading dimension,
// so these once panicked), and a param's empty thin factor sends back no
// gradient.
func TestQREmpty(t *testing.T) {
	for _, c := range []struct {
		rows, cols, form int
		want             []float64
	}{
		{3, 0, QRFatQ, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}},
		{3, 0, QRFatR, nil},
		{3, 0, QRThinQ, nil},
		{0, 2, QRThinR, nil},
		{0, 0, QRFatQ, nil},
	} {
		b := NewBuilder()
		x := b.Input("A", Matrix(c.rows, c.cols), testPos)
		f := b.QR(c.form, x, testPos)
		p, err := b.Finish(b.Add(b.Sum(f, testPos), b.Scalar(1, testPos), testPos))
		if err != nil {
			t.Fatal(err)
		}
		v, err := p.LogJoint(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Value(f); v != 1+float64(len(c.want)/max(1, c.rows)) || !slices.Equal(got, c.want) && len(got)+len(c.want) > 0 {
			t.Errorf("%s of [%d, %d]: %v (sum + 1 = %v), want %v", qrNames[c.form], c.rows, c.cols, got, v, c.want)
		}
	}
}

// TestQRNoAllocs: a step through the thin QR factors, the singular
// vectors and chol2inv allocates nothing.
func TestQRNoAllocs(t *testing.T) {
	b := NewBuilder()
	a := b.Input("A", Matrix(4, 3), testPos)
	w := b.Input("W", Matrix(3, 5), testPos)
	l := b.Input("L", Matrix(3, 3), testPos)
	total := b.Sum(b.QR(QRThinQ, a, testPos), testPos)
	total = b.Add(total, b.Sum(b.QR(QRThinR, a, testPos), testPos), testPos)
	total = b.Add(total, b.Sum(b.QR(QRThinR, w, testPos), testPos), testPos)
	total = b.Add(total, b.Sum(b.Chol2Inv(lowerMask(b, l), testPos), testPos), testPos)
	total = b.Add(total, b.Sum(b.SVDVectors(false, a, testPos), testPos), testPos)
	total = b.Add(total, b.Sum(b.SVDVectors(true, w, testPos), testPos), testPos)
	total = b.Add(total, b.Sum(b.QR(QRFatQ, a, testPos), testPos), testPos)
	p, err := b.Finish(total)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(23, 0x5eed))
	v := append(randMat(r, 4, 3), randMat(r, 3, 5)...)
	v = append(v, 1.5, 0, 0, 0.3, 2, 0, -0.4, 0.2, 1.2)
	g := make([]float64, len(v))
	if _, err := p.LogJoint(v, g); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(10, func() { p.LogJoint(v, g) }); n != 0 {
		t.Errorf("%v allocations per step, want 0", n)
	}
	// a regression's size: the unblocked Householder routines at 300 × 40
	b = NewBuilder()
	a = b.Input("A", Matrix(300, 40), testPos)
	total = b.Add(b.Sum(b.QR(QRThinQ, a, testPos), testPos), b.Sum(b.QR(QRThinR, a, testPos), testPos), testPos)
	if p, err = b.Finish(total); err != nil {
		t.Fatal(err)
	}
	v = randMat(r, 300, 40)
	g = make([]float64, len(v))
	if _, err := p.LogJoint(v, g); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(1, func() { p.LogJoint(v, g) }); n != 0 {
		t.Errorf("300 × 40: %v allocations per step, want 0", n)
	}
}

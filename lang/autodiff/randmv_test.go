package autodiff

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// mvSigma is a covariance with strong correlations of both signs and
// unequal variances; mvMu two rows of means.
var (
	mvSigma = []float64{
		4, 1.2, -0.5,
		1.2, 1, 0.2,
		-0.5, 0.2, 0.5,
	}
	mvMu = []float64{1, -2, 0.5, -3, 0, 10}
)

// mvSDs is how many standard deviations of its sampling distribution a
// moment of the draws may be from the truth: with a fixed seed the test
// either passes or not, and at 4.5 a correct sampler fails one statistic
// in about 150000.
const mvSDs = 4.5

// mvProgram builds a program keeping one MvNormal draw with mean mu (of
// shape ms) and covariance sigma, and an elementwise Normal draw after it.
func mvProgram(t *testing.T, mu []float64, ms Shape, sigma []float64, rows bool) (*Program, ID, ID) {
	t.Helper()
	b := NewBuilder()
	x := b.Input("x", Scalar(), testPos)
	d := int(math.Sqrt(float64(len(sigma))))
	r := b.RandMvNormal(b.Const(mu, ms, testPos), b.Const(sigma, Matrix(d, d), testPos), rows, testPos)
	u, _ := dist.LookupUnivariate("Normal")
	after := b.Rand(*u, []ID{b.Scalar(0, testPos), b.Scalar(1, testPos)}, testPos)
	p, err := b.Finish(b.Mul(x, x, testPos), r, after)
	if err != nil {
		t.Fatal(err)
	}
	return p, r, after
}

// The draws of a row-wise MvNormal have the rows of mu as means, Sigma as
// the covariance within a row and no covariance between rows: every
// sample moment within mvSDs standard errors of its sampling
// distribution (Var of a sample covariance ≈ (Σ_jk² + Σ_jj Σ_kk)/n).
func TestRandMvNormalMoments(t *testing.T) {
	p, r, _ := mvProgram(t, mvMu, Matrix(2, 3), mvSigma, true)
	if s := p.Shape(r); s != Matrix(2, 3) {
		t.Fatalf("shape %v, want [2, 3]", s)
	}
	p.SetRand(rand.New(rand.NewPCG(21, 8)))
	checkMvMoments(t, p, r)
}

// checkMvMoments draws r, a [2, 3] replicate of rows with means mvMu and
// covariance mvSigma (independent rows), 50 000 times from p (whose one
// input is 0) and holds each element's mean and each pair's covariance
// within mvSDs standard errors of theirs.
func checkMvMoments(t *testing.T, p *Program, r ID) {
	t.Helper()
	const n = 50000
	var sum [6]float64
	var prod [6][6]float64
	x := []float64{0}
	for range n {
		if _, err := p.Forward(x); err != nil {
			t.Fatal(err)
		}
		if err := p.OutputErr(); err != nil {
			t.Fatal(err)
		}
		z := p.Value(r)
		for a := range z {
			sum[a] += z[a]
			for b := range z {
				prod[a][b] += z[a] * z[b]
			}
		}
	}
	for a := range 6 {
		m := sum[a] / n
		if se := math.Sqrt(mvSigma[a%3*4] / n); math.Abs(m-mvMu[a]) > mvSDs*se {
			t.Errorf("element %d: mean %.4f, want %.4f ± %.4f", a, m, mvMu[a], mvSDs*se)
		}
	}
	for a := range 6 {
		for b := range 6 {
			c := prod[a][b]/n - sum[a]/n*sum[b]/n
			want := 0.0
			if a/3 == b/3 {
				want = mvSigma[a%3*3+b%3]
			}
			vaa, vbb := mvSigma[a%3*4], mvSigma[b%3*4]
			if se := math.Sqrt((want*want + vaa*vbb) / n); math.Abs(c-want) > mvSDs*se {
				t.Errorf("cov(element %d, element %d) = %.4f, want %.4f ± %.4f", a, b, c, want, mvSDs*se)
			}
		}
	}
}

// The draws are mu + L z with z the stream's standard normals in element
// order, row by row: exactly what dist.MvNormal.Rand draws from the same
// stream one row at a time (to the rounding of the two factorisations).
// A scalar mean gives a vector [d], a row [1, d] a row.
func TestRandMvNormalStream(t *testing.T) {
	for _, c := range []struct {
		mu   []float64
		ms   Shape
		want Shape
		rows []int // the first element of mu read by each row of the draw
	}{
		{mvMu, Matrix(2, 3), Matrix(2, 3), []int{0, 3}},
		{mvMu[:3], Vector(3), Vector(3), []int{0}},
		{mvMu[:3], Matrix(1, 3), Matrix(1, 3), []int{0}},
		{[]float64{2.5}, Scalar(), Vector(3), []int{0}},
	} {
		p, r, _ := mvProgram(t, c.mu, c.ms, mvSigma, false)
		if s := p.Shape(r); s != c.want {
			t.Fatalf("mu %v: shape %v, want %v", c.ms, s, c.want)
		}
		p.SetRand(rand.New(rand.NewPCG(4, 2)))
		ref := rand.New(rand.NewPCG(4, 2))
		for range 50 {
			if _, err := p.Forward([]float64{0}); err != nil {
				t.Fatal(err)
			}
			z := p.Value(r)
			for row, at := range c.rows {
				mu := c.mu
				if len(mu) == 1 {
					mu = []float64{mu[0], mu[0], mu[0]}
				} else {
					mu = mu[at : at+3]
				}
				want, err := dist.MvNormal{Mu: mu, Sigma: mvSigma}.Rand(nil, nil, ref)
				if err != nil {
					t.Fatal(err)
				}
				for j, w := range want {
					if got := z[row*3+j]; math.Abs(got-w) > 1e-12*(1+math.Abs(w)) {
						t.Fatalf("mu %v: row %d element %d: %v, dist.MvNormal draws %v", c.ms, row, j, got, w)
					}
				}
			}
			ref.NormFloat64() // the Normal draw after it
		}
	}
}

// A Sigma that is not symmetric positive definite at a draw makes the
// whole draw NaN, with an output error saying why; the draw still takes
// its normals, so the draws after it are those of a valid Sigma. A mean
// that is not finite makes its element NaN.
func TestRandMvNormalInvalid(t *testing.T) {
	for _, c := range []struct {
		name  string
		sigma []float64
		mu    []float64
		nan   []bool
		want  string
	}{
		{"not positive definite", []float64{1, 2, 2, 1}, []float64{0, 0}, []bool{true, true},
			"MvNormal draw: Sigma is not positive definite: its leading minor of order 2 is not positive (element [0])"},
		{"negative variance", []float64{-1, 0, 0, 1}, []float64{0, 0}, []bool{true, true},
			"Sigma is not positive definite: its leading minor of order 1 is not positive"},
		{"not symmetric", []float64{2, 0.5, 0.4, 1}, []float64{0, 0}, []bool{true, true},
			"MvNormal draw: Sigma is not symmetric: element [1, 0] is 0.4, [0, 1] is 0.5"},
		{"NaN entry", []float64{1, 0, 0, math.NaN()}, []float64{0, 0}, []bool{true, true},
			"MvNormal draw: Sigma[1, 1] is NaN, not finite"},
		{"infinite mean", []float64{2, 0.5, 0.5, 1}, []float64{0, math.Inf(1)}, []bool{false, true},
			"MvNormal draw: mu = +Inf is not finite (element [1])"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, r, after := mvProgram(t, c.mu, Vector(2), c.sigma, false)
			good, _, afterGood := mvProgram(t, []float64{0, 0}, Vector(2), []float64{2, 0.5, 0.5, 1}, false)
			p.SetRand(rand.New(rand.NewPCG(6, 6)))
			good.SetRand(rand.New(rand.NewPCG(6, 6)))
			for range 10 {
				if _, err := p.Forward([]float64{1}); err != nil {
					t.Fatalf("Forward: %v (the log joint does not read the draw)", err)
				}
				if _, err := good.Forward([]float64{1}); err != nil {
					t.Fatal(err)
				}
				for i, v := range p.Value(r) {
					if math.IsNaN(v) != c.nan[i] {
						t.Fatalf("draw %v, want NaN at %v", p.Value(r), c.nan)
					}
				}
				if a, b := p.Value(after)[0], good.Value(afterGood)[0]; a != b {
					t.Fatalf("the draw after it: %v, %v after a valid Sigma", a, b)
				}
				// OutputErr names the first node that is not finite: a
				// NaN or infinite argument itself where it has one. The
				// draw's own explanation:
				err := p.OutputErr()
				if nd := &p.nodes[p.index(r)]; err != nil && !strings.Contains(err.Error(), "draw") {
					k := firstBad(p.Value(r))
					err = p.randError(nd, k, elemPart(nd.shape, k))
				}
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("OutputErr = %v, want %q", err, c.want)
				}
			}
		})
	}
	// MvNormalRows names itself
	p, _, _ := mvProgram(t, []float64{0, 0}, Matrix(1, 2), []float64{1, 2, 2, 1}, true)
	p.SetRand(rand.New(rand.NewPCG(1, 2)))
	if _, err := p.Forward([]float64{0}); err != nil {
		t.Fatal(err)
	}
	if err := p.OutputErr(); err == nil || !strings.Contains(err.Error(), "MvNormalRows draw: Sigma is not positive definite") {
		t.Errorf("OutputErr = %v", err)
	}
}

// A Forward that draws MvNormal rows, factoring Sigma each time, makes no
// allocation.
func TestRandMvNormalNoAllocs(t *testing.T) {
	for _, rows := range []bool{false, true} {
		p, _, _ := mvProgram(t, mvMu, Matrix(2, 3), mvSigma, rows)
		p.SetRand(rand.New(rand.NewPCG(1, 1)))
		x := []float64{0.5}
		if a := testing.AllocsPerRun(100, func() {
			if _, err := p.Forward(x); err != nil {
				panic(err)
			}
		}); a != 0 {
			t.Errorf("%v allocations per Forward, want 0", a)
		}
	}
}

// The builder takes the likelihood's covariance, and a mean that says the
// draw's shape.
func TestRandMvNormalShapes(t *testing.T) {
	for _, c := range []struct {
		name string
		mu   Shape
		cov  Shape
		rows bool
		want string
	}{
		{"Sigma not square", Vector(3), Matrix(3, 2), false, "MvNormal: Sigma must be a square matrix [d, d], got [3, 2]"},
		{"Sigma a vector", Vector(3), Vector(3), false, "MvNormal: Sigma must be a square matrix [d, d], got [3]"},
		{"mu of another length", Vector(2), Matrix(3, 3), false, "MvNormal: mu must be a scalar, a vector [3] or a matrix [n, 3] (a draw per row), got [2]"},
		{"mu rows of another length", Matrix(4, 2), Matrix(3, 3), false, "got [4, 2]"},
		{"rows from a vector", Vector(3), Matrix(3, 3), true, "MvNormalRows: a draw has a row per row of mu, which must be a matrix [n, 3], got [3]"},
		{"rows from a scalar", Scalar(), Matrix(3, 3), true, "got scalar"},
	} {
		b := NewBuilder()
		x := b.Input("x", Scalar(), testPos)
		r := b.RandMvNormal(b.Const(make([]float64, c.mu.Len()), c.mu, testPos), b.Const(make([]float64, c.cov.Len()), c.cov, testPos), c.rows, testPos)
		if _, err := b.Finish(x, r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
	b := NewBuilder()
	x := b.Input("x", Scalar(), testPos)
	r := b.RandMvNormal(b.Scalar(0, testPos), b.Const([]float64{1, 0, 0, 1}, Matrix(2, 2), testPos), false, testPos)
	if _, err := b.Finish(b.Add(x, b.Sum(r, testPos), testPos)); err == nil || !strings.Contains(err.Error(), "random draw cannot enter the log joint") {
		t.Errorf("an MvNormal draw in the log joint: err %v", err)
	}
}

package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
)

// Tolerances of the MultiStudentT tests.
const (
	mstRefTol   = 1e-13 // log density vs mpmath at 40 digits, relative to max(1, |value|)
	mstGonumTol = 1e-11 // log density vs gonum's distmv.StudentsT, relative
	mstMomentSE = 5     // standard errors a draw moment may stray
)

// MultiStudentT.LogProb matches reference values computed with mpmath at
// 40 digits (lgamma((ν+d)/2) − lgamma(ν/2) − d/2·log(νπ) − ½ log det Σ −
// (ν+d)/2·log1p(q/ν) with an exact inverse and determinant), over heavy
// and light tails, d = 1..4, a far point and ν = 1e6 (nearly normal).
func TestMultiStudentTReference(t *testing.T) {
	for _, c := range []struct {
		nu       float64
		mu, s, x []float64
		want     float64
	}{
		{3.5, []float64{0.5, -1, 2}, []float64{2, 0.3, -0.4, 0.3, 1, 0.2, -0.4, 0.2, 1.5}, []float64{1.2, -0.7, 3.1}, -4.0954128851384971956},
		{0.7, []float64{0, 0}, []float64{1, 0.9, 0.9, 1}, []float64{5, -4}, -9.5974768926823244993},
		{250, []float64{1}, []float64{0.25}, []float64{1.3}, -0.40738135635702448584},
		{2, []float64{0, 1, 2, 3}, []float64{1, 0.1, 0, 0, 0.1, 2, 0.3, 0, 0, 0.3, 3, 0.2, 0, 0, 0.2, 4}, []float64{1e3, -2e3, 5, 3}, -47.465576679210583649},
		{1e6, []float64{0, 0}, []float64{1, 0, 0, 1}, []float64{1e-3, 2e-3}, -1.8378795664143454773},
	} {
		got, err := MultiStudentT{Nu: c.nu, Mu: c.mu, Sigma: c.s}.LogProb(c.x, nil)
		if err != nil || math.Abs(got-c.want) > mstRefTol*max(1, math.Abs(c.want)) {
			t.Errorf("nu %g, d %d: LogProb = %.17g, %v; want %.17g", c.nu, len(c.mu), got, err, c.want)
		}
	}
	if _, err := (MultiStudentT{Nu: 3, Mu: []float64{0, 0}, Sigma: []float64{1, 2, 2, 1}}).LogProb([]float64{0, 0}, nil); err != ErrNotPositiveDefinite {
		t.Errorf("indefinite Sigma: err = %v, want ErrNotPositiveDefinite", err)
	}
}

// MultiStudentT.LogProb agrees with gonum's distmv.StudentsT at random
// points, dimensions and degrees of freedom.
func TestMultiStudentTGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	for trial := range 20 {
		d := 1 + trial%5
		nu := 0.5 + 10*rng.Float64()
		mu, x := make([]float64, d), make([]float64, d)
		for i := range mu {
			mu[i], x[i] = rng.NormFloat64(), 3*rng.NormFloat64()
		}
		s := randSPD(d, rng)
		g, ok := distmv.NewStudentsT(mu, mat.NewSymDense(d, s), nu, nil)
		if !ok {
			t.Fatal("gonum: not positive definite")
		}
		want := g.LogProb(x)
		got, err := MultiStudentT{Nu: nu, Mu: mu, Sigma: s}.LogProb(x, nil)
		if err != nil || math.Abs(got-want) > mstGonumTol*max(1, math.Abs(want)) {
			t.Errorf("trial %d: LogProb = %.17g, %v; gonum %.17g", trial, got, err, want)
		}
	}
}

// MultiStudentT.Rand has the mean Mu and the covariance Nu / (Nu − 2) ·
// Sigma (ν = 7, so the fourth moments the standard errors need exist).
func TestMultiStudentTRand(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	m := MultiStudentT{Nu: 7, Mu: []float64{1, -2}, Sigma: []float64{2, 0.6, 0.6, 1}}
	const n = 200000
	var s0, s1, s00, s11, s01 float64
	var q00 []float64
	x := make([]float64, 2)
	w := NewMvWork(2)
	for range n {
		if _, err := m.Rand(x, w, rng); err != nil {
			t.Fatal(err)
		}
		a, b := x[0]-m.Mu[0], x[1]-m.Mu[1]
		s0, s1, s00, s11, s01 = s0+a, s1+b, s00+a*a, s11+b*b, s01+a*b
		q00 = append(q00, a*a)
	}
	f := m.Nu / (m.Nu - 2)
	var v00 float64 // the variance of a draw of a², for the standard error of s00/n
	for _, q := range q00 {
		v00 += (q - s00/n) * (q - s00/n)
	}
	v00 /= n - 1
	for _, c := range []struct {
		what      string
		got, want float64
		se        float64
	}{
		{"mean 0", s0 / n, 0, math.Sqrt(f * m.Sigma[0] / n)},
		{"mean 1", s1 / n, 0, math.Sqrt(f * m.Sigma[3] / n)},
		{"var 0", s00 / n, f * m.Sigma[0], math.Sqrt(v00 / n)},
		{"cov 01 / var 0", s01 / s00, m.Sigma[1] / m.Sigma[0], 0.01},
		{"var 1", s11 / n, f * m.Sigma[3], math.Sqrt(v00/n) * m.Sigma[3] / m.Sigma[0]},
	} {
		if math.Abs(c.got-c.want) > mstMomentSE*c.se {
			t.Errorf("%s = %.4g, want %.4g ± %d × %.2g", c.what, c.got, c.want, mstMomentSE, c.se)
		}
	}
}

// TestMultiStudentTRandNoAlloc: with dst and the work given, a draw
// allocates nothing, and it is the draw the zero-mean MvNormal gives
// shifted and scaled (the same streams, bit for bit).
func TestMultiStudentTRandNoAlloc(t *testing.T) {
	m := MultiStudentT{Nu: 5, Mu: []float64{1, -2, 0.5}, Sigma: []float64{2, 0.6, 0, 0.6, 1, 0.2, 0, 0.2, 1.5}}
	x, w := make([]float64, 3), NewMvWork(3)
	rng := rand.New(rand.NewPCG(4, 4))
	if n := testing.AllocsPerRun(100, func() { m.Rand(x, w, rng) }); n != 0 {
		t.Errorf("%v allocations a draw, want 0", n)
	}
	r1, r2 := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
	got, err := m.Rand(nil, nil, r1)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := MvNormal{Mu: make([]float64, 3), Sigma: m.Sigma}.Rand(nil, nil, r2)
	s := 1 / math.Sqrt(Gamma{m.Nu / 2, m.Nu / 2}.Rand(r2))
	for i := range want {
		if want[i] = m.Mu[i] + s*want[i]; got[i] != want[i] {
			t.Errorf("element %d: %v, want %v", i, got[i], want[i])
		}
	}
}

package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// svHead is a non-centred stochastic-volatility model up to its log
// volatility h: z are the standardised innovations, z[0] scaled to the
// stationary sd.
const svHead = `data y: real[T]
param mu: real ~ Normal(0, 10)
param phi: real<lower=-1, upper=1> ~ Uniform(-1, 1)
param sigma: positive ~ HalfNormal(1)
param z: real[T] ~ Normal(0, 1)
let e = sigma * append_row(z[0] / sqrt(1 - phi * phi), z[1:])
`

// svFilter is svHead's h by ar_filter, in O(T).
const svFilter = svHead + `let h = mu + ar_filter(phi, e)
y ~ Normal(0, exp(h / 2))
`

// svMatrix is the same h as language.md §9 wrote it before ar_filter:
// the matrix L[t, s] = phi^(t − s) for s ≤ t, 0 above the diagonal, built
// from an index vector, times e, in O(T²).
const svMatrix = svHead + `let tt = cumsum(rep(1, T)) - 1
let D = outer(tt, rep(1, T)) - outer(rep(1, T), tt)
let below = D >= 0
let L = phi ^ (D .* below) .* below
let h = mu + L * e
y ~ Normal(0, exp(h / 2))
`

// svData simulates T observations of the model: h_0 from the stationary
// distribution, h_t = mu + phi (h_{t−1} − mu) + sigma ε_t, y_t ~ N(0,
// exp(h_t/2)), from one PCG stream seeded (seed, 11).
func svData(n int, mu, phi, sigma float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 11))
	y := make([]float64, n)
	h := mu + sigma/math.Sqrt(1-phi*phi)*rng.NormFloat64()
	for t := range y {
		if t > 0 {
			h = mu + phi*(h-mu) + sigma*rng.NormFloat64()
		}
		y[t] = math.Exp(h/2) * rng.NormFloat64()
	}
	return y
}

func svInput(y []float64) data.Input {
	return data.Input{File: "sv.json", JSON: map[string]*data.Array{
		"y": {Name: "y", Shape: []int{len(y)}, Values: y},
	}}
}

// TestARFilterMatchesMatrixForm: the stochastic-volatility model written
// with ar_filter and written with the O(T²) matrix of powers of phi give
// the same log joint and gradient (to 1e-12, near) at random points with
// phi about 0.2, −0.9 and 0.9; and the ar_filter form's gradient agrees
// with central differences. (phi = 0 exactly is no test point: there the
// matrix form's phi ^ 0 has a NaN derivative, 0 · 0^−1.) With phi =
// 0.998 the two sum a long, slowly decaying series in different orders:
// the log joint still agrees to 1e-12, and the gradient to 1e-12 of its
// largest entry (at T = 300 an entry near 0.3 is the difference of terms
// near 100, and keeps 5e-12 of rounding).
func TestARFilterMatchesMatrixForm(t *testing.T) {
	for _, n := range []int{1, 2, 40, 300} {
		y := svData(n, -1, 0.95, 0.25, 1)
		a := compileSrc(t, "a.gpp", svFilter, nil, svInput(y))
		b := compileSrc(t, "b.gpp", svMatrix, nil, svInput(y))
		if a.Dim != 3+n || b.Dim != a.Dim {
			t.Fatalf("T = %d: dims %d and %d, want %d", n, a.Dim, b.Dim, 3+n)
		}
		rng := rand.New(rand.NewPCG(uint64(n), 5))
		point := func(u float64) []float64 {
			z := make([]float64, a.Dim)
			fillNormal(z, rng, 0, 1)
			z[1] = u // phi's coordinate: phi = 2 inv_logit(u) − 1
			return z
		}
		wantSameLogJointAt(t, fmt.Sprintf("T = %d", n), a, b, [][]float64{point(0.4), point(-3), point(3)})
		z := point(7)
		ga, gb := make([]float64, a.Dim), make([]float64, a.Dim)
		va, errA := a.LogJoint(z, ga)
		vb, errB := b.LogJoint(z, gb)
		if errA != nil || errB != nil || !near(va, vb) {
			t.Errorf("T = %d, phi near 1: %.17g against %.17g (errors %v, %v)", n, va, vb, errA, errB)
		}
		scale := 1.0
		for _, g := range gb {
			scale = math.Max(scale, math.Abs(g))
		}
		for i := range ga {
			if math.Abs(ga[i]-gb[i]) > 1e-12*scale {
				t.Errorf("T = %d, phi near 1: d/dx[%d] %.17g against %.17g (largest entry %g)", n, i, ga[i], gb[i], scale)
			}
		}
		if n == 40 {
			checkGradient(t, a, 3, 1)
		}
	}
}

// TestARFilterARpGradient: AR(3) coefficients (a param vector) filtering
// a matrix of series, a scalar phi broadcast over another, and data
// filtered by a param: the log joint's gradient agrees with central
// differences.
func TestARFilterARpGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const n, k = 12, 3
	yv, xv := make([]float64, n*k), make([]float64, n)
	fillNormal(yv, rng, 0, 1)
	fillNormal(xv, rng, 0, 1)
	m := compileSrc(t, "arp.gpp", `data Y: real[T, K]
data x: real[T]
param psi: real[3] ~ Normal(0, 0.3)
param rho: real<lower=-1, upper=1> ~ Uniform(-1, 1)
param s: positive ~ HalfNormal(1)
param Z: real[T, K] ~ Normal(0, 1)
Y ~ Normal(ar_filter(psi, s * Z) + 0.5 * ar_filter(rho, Z), 1)
target += -0.5 * sum(square(ar_filter(psi, x)))
`, nil, data.Input{File: "d.json", JSON: map[string]*data.Array{
		"Y": {Name: "Y", Shape: []int{n, k}, Values: yv},
		"x": {Name: "x", Shape: []int{n}, Values: xv},
	}})
	if m.Dim != 3+1+1+n*k {
		t.Fatalf("dim %d", m.Dim)
	}
	checkGradient(t, m, 9, 0.5)
}

// BenchmarkARFilterSV is one LogJoint (value and gradient) of the
// stochastic-volatility model with ar_filter at T = 300 and 3000, and of
// the same model with the O(T²) matrix of powers of phi at T = 300. Run
// with
//
//	go test -run '^$' -bench ARFilterSV -benchmem ./lang/compile/
func BenchmarkARFilterSV(b *testing.B) {
	for _, c := range []struct {
		name, src string
		n         int
	}{{"filter/T300", svFilter, 300}, {"filter/T3000", svFilter, 3000}, {"matrix/T300", svMatrix, 300}} {
		m := compileSrc(b, "sv.gpp", c.src, nil, svInput(svData(c.n, -1, 0.95, 0.25, 1)))
		x := make([]float64, m.Dim)
		fillNormal(x, rand.New(rand.NewPCG(1, 2)), 0, 1)
		x[1] = 3 // phi ≈ 0.9
		grad := make([]float64, m.Dim)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.LogJoint(x, grad); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestARFilterOverflow: an explosive phi is the model's, so the filter
// computes it; where the values overflow the evaluation stops with an
// error at the call, not a NaN log joint.
func TestARFilterOverflow(t *testing.T) {
	m := compileSrc(t, "x.gpp", `param rho: positive ~ Gamma(2, 1)
param z: real[1000] ~ Normal(0, 1)
let h = ar_filter(1 + rho, 1 + square(z))
target += -sum(log1p(h))
`, nil)
	x := make([]float64, m.Dim)
	grad := make([]float64, m.Dim)
	if lp, err := m.LogJoint(x, grad); err != nil || math.IsNaN(lp) { // phi = 2: h[999] about 2^1000, finite
		t.Fatalf("phi = 2: %v, %v", lp, err)
	}
	x[0] = math.Log(1.1) // phi = 2.1: 2.1^999 overflows
	_, err := m.LogJoint(x, grad)
	if err == nil || !strings.HasPrefix(err.Error(), "x.gpp:3:9: ar_filter") {
		t.Errorf("phi = 2.1: error %v, want one at x.gpp:3:9 naming ar_filter", err)
	} else {
		t.Log(err)
	}
}

// TestARFilterPACF: docs/language.md's stationary AR(2), phi from two
// partial autocorrelations by a user function: its log joint is the one
// with phi written out by hand, at every point, and its gradient agrees
// with central differences.
func TestARFilterPACF(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const n = 15
	yv := make([]float64, n)
	fillNormal(yv, rng, 0, 1)
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{"y": {Name: "y", Shape: []int{n}, Values: yv}}}
	const head = `data y: real[T]
param mu: real ~ Normal(0, 5)
param r: real<lower=-1, upper=1>[2] ~ Uniform(-1, 1)
param sigma: positive ~ HalfNormal(1)
param tau: positive ~ HalfNormal(1)
param z: real[T] ~ Normal(0, 1)
`
	fn := compileSrc(t, "fn.gpp", "fn ar2_phi(r) = [r[0] * (1 - r[1]), r[1]]\n"+head+"let h = mu + ar_filter(ar2_phi(r), sigma * z)\ny ~ Normal(h, tau)\n", nil, in)
	hand := compileSrc(t, "hand.gpp", head+"let h = mu + ar_filter([r[0] * (1 - r[1]), r[1]], sigma * z)\ny ~ Normal(h, tau)\n", nil, in)
	if fn.Dim != hand.Dim || fn.Dim != 1+2+1+1+n {
		t.Fatalf("dims %d and %d", fn.Dim, hand.Dim)
	}
	x, g := make([]float64, fn.Dim), make([]float64, fn.Dim)
	for range 5 {
		fillNormal(x, rng, 0, 1)
		a, err1 := fn.LogJoint(x, g)
		b, err2 := hand.LogJoint(x, g)
		if err1 != nil || err2 != nil || a != b {
			t.Errorf("log joint %v (%v) by the function, %v (%v) by hand", a, err1, b, err2)
		}
	}
	checkGradient(t, fn, 6, 0.5)
}

// TestSVExampleGradient: examples/sv.gpp's log joint, with its data (300 returns), against
// finite differences: ar_filter with a param phi = tanh(a), the stationary
// start's 1/sqrt(1 − phi²) and the target += of a's prior.
func TestSVExampleGradient(t *testing.T) {
	f, err := os.Open("../../examples/sv.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := data.ReadCSV("sv.csv", f)
	if err != nil {
		t.Fatal(err)
	}
	m := compileFile(t, "../../examples/sv.gpp", nil, data.Input{File: "sv.csv", Table: tab})
	if m.Dim != 303 {
		t.Fatalf("Dim = %d, want 303", m.Dim)
	}
	checkGradient(t, m, 7, 0.5)
}

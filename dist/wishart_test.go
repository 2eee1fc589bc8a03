package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// Tolerances of the Wishart tests: the log densities against closed forms
// and reference values (absolute, relative to max(1, |value|)), the
// partials against central finite differences (likewise), and the means of
// the draws in standard errors.
const (
	wishartRefTol   = 1e-12
	wishartFDTol    = 1e-6
	wishartMeanSEs  = 4.5
	wishartNumDraws = 40000
)

var wishartForms = []WishartForm{{}, {Inverse: true}, {Chol: true}, {Inverse: true, Chol: true}}

// wishartLP evaluates form f at the full matrices x and s (factored here).
func wishartLP(f WishartForm, x, s []float64, k int, nu float64) float64 {
	lx, ls := append([]float64(nil), x...), append([]float64(nil), s...)
	cholInPlace(lx, k)
	cholInPlace(ls, k)
	lp, _ := WishartLogPDF(f, lx, ls, k, nu, make([]float64, k*k))
	return lp
}

// K = 1: Wishart(ν, s) is Gamma(ν/2, rate 1/(2s)) and InvWishart(ν, s)
// is InvGamma(ν/2, scale s/2), written out here.
func TestWishartK1(t *testing.T) {
	for _, c := range []struct{ nu, s, x float64 }{
		{1, 1, 1}, {0.3, 2.5, 0.7}, {4.5, 0.2, 3.1}, {30, 1.7, 40}, {2.2, 1e-3, 1e-4},
	} {
		a := c.nu / 2
		lga, _ := math.Lgamma(a)
		b := 1 / (2 * c.s)
		gamma := a*math.Log(b) - lga + (a-1)*math.Log(c.x) - b*c.x
		beta := c.s / 2
		invGamma := a*math.Log(beta) - lga - (a+1)*math.Log(c.x) - beta/c.x
		for _, f := range []WishartForm{{}, {Inverse: true}} {
			want := gamma
			if f.Inverse {
				want = invGamma
			}
			got := wishartLP(f, []float64{c.x}, []float64{c.s}, 1, c.nu)
			if math.Abs(got-want) > wishartRefTol*max(1, math.Abs(want)) {
				t.Errorf("%s(%g, %g) at %g: %.17g, want %.17g", f.Name(), c.nu, c.s, c.x, got, want)
			}
		}
	}
}

// K = 2 and 3 against values from mpmath at 40 digits (the densities
// written with det, inverse and the multivariate log gamma; the Cholesky
// forms add K log 2 + Σ (K − i) log L_ii of mpmath's factor).
func TestWishartReference(t *testing.T) {
	cases := []struct {
		k    int
		nu   float64
		x, s []float64
		want [4]float64 // Wishart, InvWishart, WishartCholesky, InvWishartCholesky
	}{
		{2, 4.5, []float64{2, 0.3, 0.3, 0.5}, []float64{1, -0.2, -0.2, 0.8},
			[4]float64{-4.6457742718803091424, -5.2155959239083904231, -2.9600616602160665286, -3.5298833122441478094}},
		{3, 5.3, []float64{1.5, 0.2, -0.1, 0.2, 0.9, 0.3, -0.1, 0.3, 2.2}, []float64{0.7, 0.1, 0.05, 0.1, 1.2, -0.3, 0.05, -0.3, 0.9},
			[4]float64{-8.8423866787911180742, -14.501666089012444623, -5.9237813478134993645, -11.583060758034825913}},
	}
	for _, c := range cases {
		for i, f := range wishartForms {
			got := wishartLP(f, c.x, c.s, c.k, c.nu)
			if want := c.want[i]; math.Abs(got-want) > wishartRefTol*max(1, math.Abs(want)) {
				t.Errorf("K=%d %s: %.17g, want %.17g", c.k, f.Name(), got, want)
			}
		}
	}
}

// LogMvGamma: Γ_1 is Γ, Γ_2(a) = √π Γ(a) Γ(a − ½), and its derivative
// matches finite differences.
func TestLogMvGamma(t *testing.T) {
	for _, a := range []float64{0.7, 1.3, 4.5, 25} {
		g1, _ := LogMvGamma(a, 1)
		if want, _ := math.Lgamma(a); math.Abs(g1-want) > wishartRefTol {
			t.Errorf("log Γ_1(%g) = %g, want %g", a, g1, want)
		}
		g2, _ := LogMvGamma(a, 2)
		la, _ := math.Lgamma(a)
		lb, _ := math.Lgamma(a - 0.5)
		if want := 0.5*math.Log(math.Pi) + la + lb; math.Abs(g2-want) > wishartRefTol*max(1, math.Abs(want)) {
			t.Errorf("log Γ_2(%g) = %g, want %g", a, g2, want)
		}
		_, d := LogMvGamma(a+2, 3)
		want := fd.Derivative(func(a float64) float64 { v, _ := LogMvGamma(a, 3); return v }, a+2, &fd.Settings{Formula: fd.Central})
		if math.Abs(d-want) > wishartFDTol*max(1, math.Abs(want)) {
			t.Errorf("d log Γ_3/da at %g = %g, fd %g", a+2, d, want)
		}
	}
}

// randFactor returns a random lower triangular K×K factor with a positive
// diagonal, junk above it when junk is set (the densities read only the
// lower triangle).
func randFactor(r *rand.Rand, k int, junk bool) []float64 {
	l := make([]float64, k*k)
	for i := range k {
		for j := range k {
			switch {
			case j < i:
				l[i*k+j] = 0.5 * r.NormFloat64()
			case j == i:
				l[i*k+j] = 0.5 + r.Float64()
			case junk:
				l[i*k+j] = r.NormFloat64()
			}
		}
	}
	return l
}

// The partials of every form in the entries of both factors on and below
// the diagonal and in ν match central finite differences, K = 1…4.
func TestWishartGrad(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for k := 1; k <= 4; k++ {
		for _, f := range wishartForms {
			lx, ls := randFactor(r, k, true), randFactor(r, k, true)
			nu := float64(k) + 1.5*r.Float64()
			m, w := make([]float64, k*k), make([]float64, k*k)
			_, dnu := WishartLogPDF(f, lx, ls, k, nu, m)
			alx, als := make([]float64, k*k), make([]float64, k*k)
			const g = 0.7
			WishartGrad(f, alx, als, lx, ls, k, nu, m, w, g)
			eval := func(lx, ls []float64, nu float64) float64 {
				v, _ := WishartLogPDF(f, lx, ls, k, nu, make([]float64, k*k))
				return v
			}
			check := func(what string, got, want float64) {
				t.Helper()
				if math.Abs(got-want) > wishartFDTol*max(1, math.Abs(want)) {
					t.Errorf("K=%d %s: %s %.10g, fd %.10g", k, f.Name(), what, got, want)
				}
			}
			wantNu := fd.Derivative(func(nu float64) float64 { return eval(lx, ls, nu) }, nu, &fd.Settings{Formula: fd.Central})
			check("∂/∂ν", dnu, wantNu)
			gx := fd.Gradient(nil, func(v []float64) float64 { return eval(v, ls, nu) }, lx, &fd.Settings{Formula: fd.Central})
			gs := fd.Gradient(nil, func(v []float64) float64 { return eval(lx, v, nu) }, ls, &fd.Settings{Formula: fd.Central})
			for i := range k {
				for j := 0; j <= i; j++ {
					check("∂/∂L_X", alx[i*k+j], g*gx[i*k+j])
					check("∂/∂L_S", als[i*k+j], g*gs[i*k+j])
				}
				for j := i + 1; j < k; j++ {
					if alx[i*k+j] != 0 || als[i*k+j] != 0 || gx[i*k+j] != 0 || gs[i*k+j] != 0 {
						t.Errorf("K=%d %s: a partial above the diagonal at [%d, %d]", k, f.Name(), i, j)
					}
				}
			}
		}
	}
}

// The draws' means: ν S (Wishart) and S / (ν − K − 1) (inverse Wishart),
// of X or of L_X L_X' for the Cholesky forms, within wishartMeanSEs
// standard errors per entry; every draw is symmetric (a lower factor with
// a positive diagonal for the Cholesky forms).
func TestWishartRandMeans(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	const k, nu = 3, 8.5
	s := []float64{1.2, 0.3, -0.4, 0.3, 0.8, 0.1, -0.4, 0.1, 2}
	ls := append([]float64(nil), s...)
	cholInPlace(ls, k)
	dst, x, tt, u := make([]float64, k*k), make([]float64, k*k), make([]float64, k*k), make([]float64, k*k)
	for _, f := range wishartForms {
		sum, sum2 := make([]float64, k*k), make([]float64, k*k)
		for range wishartNumDraws {
			WishartRand(f, dst, ls, k, nu, tt, u, r)
			copy(x, dst)
			if f.Chol {
				for i := range k {
					if !(dst[i*k+i] > 0) {
						t.Fatalf("%s: factor diagonal %g", f.Name(), dst[i*k+i])
					}
					for j := i + 1; j < k; j++ {
						if dst[i*k+j] != 0 {
							t.Fatalf("%s: factor entry above the diagonal", f.Name())
						}
					}
				}
				CovFromChol(x, dst, k)
			}
			for i := range x {
				if x[i] != x[i%k*k+i/k] {
					t.Fatalf("%s: draw not symmetric", f.Name())
				}
				sum[i] += x[i]
				sum2[i] += x[i] * x[i]
			}
		}
		for i := range s {
			want := nu * s[i]
			if f.Inverse {
				want = s[i] / (nu - k - 1)
			}
			n := float64(wishartNumDraws)
			mean := sum[i] / n
			se := math.Sqrt((sum2[i]/n - mean*mean) / n)
			if math.Abs(mean-want) > wishartMeanSEs*se {
				t.Errorf("%s: mean[%d, %d] = %g, want %g (se %g)", f.Name(), i/k, i%k, mean, want, se)
			}
		}
	}
}

// Steady-state evaluations of a density, its partials and a draw make no
// allocations.
func TestWishartZeroAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const k = 4
	lx, ls := randFactor(r, k, false), randFactor(r, k, false)
	m, w, alx, als := make([]float64, k*k), make([]float64, k*k), make([]float64, k*k), make([]float64, k*k)
	for _, f := range wishartForms {
		if a := testing.AllocsPerRun(50, func() {
			WishartLogPDF(f, lx, ls, k, 6.5, m)
			WishartGrad(f, alx, als, lx, ls, k, 6.5, m, w, 1)
			WishartRand(f, alx, ls, k, 6.5, m, w, r)
		}); a != 0 {
			t.Errorf("%s: %v allocations per run", f.Name(), a)
		}
	}
}

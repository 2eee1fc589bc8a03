package dist

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// hypTol is the relative tolerance of the hypergeometric functions and
// lmgamma against mpmath (testdata/hypergeom.py), for values and
// partials: the series keep at least 12 digits where their terms do not
// cancel (hypCancel). The worst measured is 3.8e-14 at moderate z and
// 6e-13 near the ends of what converges (₂F₁ at z = −3000 and 0.9995,
// some 40 000 terms, each a product of the one before).
const hypTol = 1e-12

// hypRows reads testdata/hypergeom.csv: kind, p, q, then numbers.
func hypRows(t *testing.T) (kinds []string, pq [][2]int, nums [][]float64) {
	t.Helper()
	f, err := os.Open("testdata/hypergeom.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), ",")
		p, _ := strconv.Atoi(fs[1])
		q, _ := strconv.Atoi(fs[2])
		var xs []float64
		for _, s := range fs[3:] {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			xs = append(xs, x)
		}
		kinds, pq, nums = append(kinds, fs[0]), append(pq, [2]int{p, q}), append(nums, xs)
	}
	return kinds, pq, nums
}

// TestHypPFQReference checks ₂F₁ (both sides of 0, Pfaff's
// transformation for z < 0 down to −3000, polynomials, z up to 0.9995,
// parameters from 1e-3 to 35), pFq for p, q from 0 to 4 (p ≤ q for any z,
// ₁F₁ of z < 0 by Kummer's transformation) and lmgamma, values and every
// partial, against mpmath within hypTol relative.
func TestHypPFQReference(t *testing.T) {
	kinds, pq, nums := hypRows(t)
	if len(kinds) < 30 {
		t.Fatalf("%d reference rows", len(kinds))
	}
	worst := 0.0
	check := func(row int, what string, got, want float64) {
		e := relErr(got, want)
		worst = max(worst, e)
		if !(e <= hypTol) {
			t.Errorf("row %d (%s %v): %s = %.17g, want %.17g (rel %.2g)", row+1, kinds[row], nums[row], what, got, want, e)
		}
	}
	for r, k := range kinds {
		p, q, x := pq[r][0], pq[r][1], nums[r]
		switch k {
		case "2F1":
			a, b, c, z := x[0], x[1], x[2], x[3]
			check(r, "value", Hypergeometric2F1(a, b, c, z), x[4])
			var d [3]float64
			f, dz := Hyp2F1Fn.Kernel(z, []float64{a, b, c}, d[:])
			check(r, "kernel value", f, x[4])
			for i, name := range []string{"a", "b", "c"} {
				check(r, "∂/∂"+name, d[i], x[5+i])
			}
			check(r, "∂/∂z", dz, x[8])
		case "pFq":
			a, b, z := x[:p], x[p:p+q], x[p+q]
			want := x[p+q+1:]
			check(r, "value", HypergeometricPFQ(a, b, z), want[0])
			da, db := make([]float64, p), make([]float64, q)
			f, dz := HypergeometricPFQGrad(a, b, z, da, db)
			check(r, "grad value", f, want[0])
			for i := range da {
				check(r, "∂/∂a", da[i], want[1+i])
			}
			for j := range db {
				check(r, "∂/∂b", db[j], want[1+p+j])
			}
			check(r, "∂/∂z", dz, want[1+p+q])
			fn := PFQFn("hypergeometric_pFq", p, q)
			dp := make([]float64, p+q)
			f2, dz2 := fn.Kernel(z, x[:p+q], dp)
			if f2 != f || dz2 != dz {
				t.Errorf("row %d: PFQFn's kernel %g, %g, want %g, %g", r+1, f2, dz2, f, dz)
			}
		case "lmgamma":
			kk, xx := float64(p), x[0]
			check(r, "value", Lmgamma(kk, xx), x[1])
			check(r, "∂/∂x", LmgammaGrad(kk, xx), x[2])
		}
	}
	t.Logf("worst relative error %.2g over %d rows", worst, len(kinds))
}

// TestHypPFQDomain checks that where the series cannot give a
// value with its digits the result is NaN with a reason, never a number.
func TestHypPFQDomain(t *testing.T) {
	for _, c := range []struct {
		a, b, c, z float64
		why        string
	}{
		{1, 1, 2, 1, "z must be < 1"},
		{0.5, 0.3, 0.7, 1, "c - a - b > 0"},
		{1, 1, 2, 1.5, "z must be < 1"},
		{1, 1, -2, 0.5, "pole"},
		{1, 1, 2, 0.9999999, "not converged"},
		{1, 1, 2, math.NaN(), "not finite"},
	} {
		f := Hypergeometric2F1(c.a, c.b, c.c, c.z)
		why := Hyp2F1Fn.Why(c.z, []float64{c.a, c.b, c.c})
		if !math.IsNaN(f) || !strings.Contains(why, c.why) {
			t.Errorf("2F1(%g, %g, %g, %g) = %g, why %q, want NaN and %q", c.a, c.b, c.c, c.z, f, why, c.why)
		}
	}
	// cancellation: 2F2(1, 1; 2, 2; -60) sums terms up to 1e20 to about
	// 0.08; 1F1(1; 2; -60) = (1 - e^-60)/60, by Kummer's transformation,
	// does not cancel
	fn := PFQFn("hypergeometric_pFq", 2, 2)
	if f := HypergeometricPFQ([]float64{1, 1}, []float64{2, 2}, -60); !math.IsNaN(f) {
		t.Errorf("2F2(1, 1; 2, 2; -60) = %g, want NaN (the terms cancel)", f)
	}
	if why := fn.Why(-60, []float64{1, 1, 2, 2}); !strings.Contains(why, "cancel") {
		t.Errorf("why %q", why)
	}
	if f := HypergeometricPFQ([]float64{1}, []float64{2}, -60); math.Abs(f-1.0/60) > 1e-16 {
		t.Errorf("1F1(1; 2; -60) = %.17g, want %.17g", f, 1.0/60)
	}
	// p > q + 1 diverges unless a polynomial: 1 + (-2)(2)(3)/4 z + (-2)(-1)(2)(3)(3)(4)/((4)(5) 2!) z²
	if f := HypergeometricPFQ([]float64{1, 2, 3}, []float64{4}, 0.1); !math.IsNaN(f) {
		t.Errorf("3F1 = %g, want NaN", f)
	}
	if f := HypergeometricPFQ([]float64{-2, 2, 3}, []float64{4}, 0.1); math.Abs(f-(1-0.3+0.036)) > 1e-15 {
		t.Errorf("3F1 polynomial = %.17g", f)
	}
	// a polynomial at |z| > 1: the value, and NaN for the ending partial
	da, db := make([]float64, 2), make([]float64, 1)
	f, _ := HypergeometricPFQGrad([]float64{-1, 2}, []float64{3}, 5, da, db)
	if math.Abs(f-(1-2*5.0/3)) > 1e-15 || !math.IsNaN(da[0]) || math.IsNaN(da[1]) {
		t.Errorf("2F1(-1, 2; 3; 5) = %g, partials %v %v", f, da, db)
	}
	// c = a = -3: the polynomial ends at k = 3, before (c)ₖ's zero factor,
	// so the value is Σ_{k≤3} (1)ₖ/k! 0.5ᵏ = 1.875 (mpmath's) and the
	// partial in b that of the same sum, 0.5 + 3(0.25)/2 + 11(0.125)/6;
	// only the ending partial in a is infinite (NaN), not the value
	var d [3]float64
	f, _ = Hyp2F1Fn.Kernel(0.5, []float64{-3, 1, -3}, d[:])
	if f != 1.875 || !math.IsNaN(d[0]) || math.Abs(d[1]-(0.5+0.375+11*0.125/6)) > 1e-15 {
		t.Errorf("2F1(-3, 1; -3; 0.5) = %g, partials %v, want 1.875, NaN in a and %g in b", f, d, 0.5+0.375+11*0.125/6)
	}
}

// TestStanMiscFuncs checks fmod's and ldexp's values and partials.
func TestStanMiscFuncs(t *testing.T) {
	if Fmod(7.5, 2) != 1.5 || Fmod(-7.5, 2) != -1.5 || !math.IsNaN(Fmod(1, 0)) {
		t.Errorf("fmod: %g %g %g", Fmod(7.5, 2), Fmod(-7.5, 2), Fmod(1, 0))
	}
	if dx, dy := FmodGrad(-7.5, 2); dx != 1 || dy != 3 {
		t.Errorf("fmod partials %g %g", dx, dy)
	}
	if Ldexp(3, 4) != 48 || LdexpGrad(3, -2) != 0.25 || !math.IsNaN(Ldexp(1, 0.5)) {
		t.Errorf("ldexp: %g %g", Ldexp(3, 4), LdexpGrad(3, -2))
	}
	if !math.IsNaN(Lmgamma(3, 0.9)) || Lmgamma(0, 1) != 0 {
		t.Errorf("lmgamma outside x > (k-1)/2: %g", Lmgamma(3, 0.9))
	}
	// Γ₀ is an empty product: 1 for every x, as Stan's lmgamma(0, x) = 0
	if Lmgamma(0, -3) != 0 || LmgammaGrad(0, -3) != 0 || !math.IsNaN(Lmgamma(0, math.NaN())) {
		t.Errorf("lmgamma(0, -3) = %g, partial %g", Lmgamma(0, -3), LmgammaGrad(0, -3))
	}
}

// TestHyp2F1NearOne checks ₂F₁ at z = 1 (Gauss's theorem, c − a − b > 0)
// and near it (1 − z from 1e-12 to 5e-4, by the connection formula in
// 1 − z), values and partials, against testdata/hyp2f1_near1.csv (mpmath,
// hyp2f1_near1.py), within hypTol relative; the z partial at 1 is +Inf
// where c − a − b ≤ 1.
func TestHyp2F1NearOne(t *testing.T) {
	rows := readRefCSV(t, "testdata/hyp2f1_near1.csv", 9)
	if len(rows) < 40 {
		t.Fatalf("%d reference rows", len(rows))
	}
	worst := 0.0
	for _, x := range rows {
		a, b, c, z := x[0], x[1], x[2], x[3]
		var d [3]float64
		f, dz := Hyp2F1Fn.Kernel(z, []float64{a, b, c}, d[:])
		got := []float64{Hypergeometric2F1(a, b, c, z), f, d[0], d[1], d[2], dz}
		want := []float64{x[4], x[4], x[5], x[6], x[7], x[8]}
		for i, name := range []string{"value", "kernel value", "∂/∂a", "∂/∂b", "∂/∂c", "∂/∂z"} {
			if math.IsInf(want[i], 1) {
				if got[i] != want[i] {
					t.Errorf("2F1(%g, %g; %g; %.17g): %s = %g, want +Inf", a, b, c, z, name, got[i])
				}
				continue
			}
			e := relErr(got[i], want[i])
			worst = max(worst, e)
			if !(e <= hypTol) {
				t.Errorf("2F1(%g, %g; %g; %.17g): %s = %.17g, want %.17g (rel %.2g)", a, b, c, z, name, got[i], want[i], e)
			}
		}
	}
	t.Logf("worst relative error %.2g over %d rows", worst, len(rows))
}

// TestHyp2F1NearOneFD checks the partials at and near z = 1 against
// central differences, including c − a and c − b below 0 (Γ of negative
// arguments) and c − a an integer ≤ 0, where Gauss's value is 0 and its a
// partial comes from 1/Γ's derivative at the pole.
func TestHyp2F1NearOneFD(t *testing.T) {
	for _, c := range [][4]float64{
		{0.5, 0.3, 1.7, 1}, {0.5, -1.3, 0.4, 1}, {2.5, 0.5, 1.5, 1 - 1e-6}, {0.3, 0.4, 2.75, 1 - 1e-9},
		{-0.7, 1.3, 2.2, 1}, {2.7, -1.5, 1.7, 1}, {3.3, 1.1, 2.05, 0.9999},
	} {
		var d [3]float64
		f, _ := Hyp2F1Fn.Kernel(c[3], c[:3], d[:])
		if math.IsNaN(f) {
			t.Errorf("2F1%v = NaN", c)
			continue
		}
		for i := range 3 {
			g := func(v float64) float64 {
				p := []float64{c[0], c[1], c[2]}
				p[i] = v
				return Hypergeometric2F1(p[0], p[1], p[2], c[3])
			}
			want := fd.Derivative(g, c[i], &fd.Settings{Formula: fd.Central, Step: 1e-6})
			if e := math.Abs(d[i]-want) / math.Max(1, math.Abs(want)); !(e <= 1e-7) {
				t.Errorf("2F1%v: partial %d = %.12g, finite difference %.12g", c, i, d[i], want)
			}
		}
	}
}

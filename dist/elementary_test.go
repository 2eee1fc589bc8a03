package dist

import (
	"math"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// Tolerances of TestElementary, relative (with an absolute floor of the
// same size below magnitude 1 for values that cross zero).
const (
	elemValTol   = 4e-15 // values: a few ulps
	elemDerivTol = 1e-13 // derivatives, whose exponentials round their large arguments
	phiApproxTol = 1e-14 // Phi_approx composes a cubic and inv_logit
)

// TestElementary checks the elementwise functions of elementary.go and
// their derivatives against testdata/elementary.csv (mpmath, 60 digits),
// at ordinary points and deep in the tails where the textbook formulas
// lose every digit (1 − exp(−exp(x)) for x ≪ 0, 1 − Φ(x) for large x,
// Φ⁻¹ of 1e-300).
func TestElementary(t *testing.T) {
	check := func(what string, x, y, got, want, tol float64) {
		t.Helper()
		if got == want {
			return
		}
		if d := math.Abs(got - want); !(d <= tol*math.Max(math.Abs(want), 1e-300)) && !(math.Abs(want) < 1 && d <= tol) {
			t.Errorf("%s(%.17g, %.17g) = %.17g, want %.17g (rel error %.2g)", what, x, y, got, want, d/math.Abs(want))
		}
	}
	n := 0
	for _, r := range reftest.ReadRows(t, "testdata/elementary.csv") {
		x, y, val, dx, dy := r.X, r.Y, r.Val, r.DX, r.DY
		n++
		switch name := r.Name; name {
		case "log1m":
			check(name, x, y, Log1m(x), val, elemValTol)
		case "inv_cloglog":
			check(name, x, y, InvCloglog(x), val, elemValTol)
			check(name+"'", x, y, InvCloglogDeriv(x), dx, elemDerivTol)
		case "Phi":
			check(name, x, y, Phi(x), val, elemValTol)
			check("φ", x, y, NormalDensity(x), dx, elemValTol)
		case "Phi_approx":
			check(name, x, y, PhiApprox(x), val, phiApproxTol)
			check(name+"'", x, y, PhiApproxDeriv(x), dx, phiApproxTol)
		case "inv_Phi":
			check(name, x, y, InvPhi(x), val, elemValTol)
			// 1/φ(z) magnifies z's last-bit error by |z|² relative.
			z := InvPhi(x)
			check(name+"'", x, y, 1/NormalDensity(z), dx, elemDerivTol*math.Max(1, z*z/10))
		case "lbeta":
			check(name, x, y, LogBeta(x, y), val, elemValTol)
			da, db := LogBetaGrad(x, y)
			check(name+"/da", x, y, da, dx, elemDerivTol)
			check(name+"/db", x, y, db, dy, elemDerivTol)
		case "log_sum_exp":
			check(name, x, y, LogAddExp(x, y), val, elemValTol)
		default:
			t.Fatalf("elementary.csv: unknown function %q", name)
		}
	}
	if n < 50 {
		t.Fatalf("elementary.csv: %d rows", n)
	}
}

// TestElementaryEdges: the ends of the domains and NaN.
func TestElementaryEdges(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"InvPhi(0)", InvPhi(0), -inf},
		{"InvPhi(1)", InvPhi(1), inf},
		{"Phi(-inf)", Phi(-inf), 0},
		{"Phi(inf)", Phi(inf), 1},
		{"Phi(-40)", Phi(-40), 0},
		{"Log1m(1)", Log1m(1), -inf},
		{"InvCloglog(-inf)", InvCloglog(-inf), 0},
		{"InvCloglog(inf)", InvCloglog(inf), 1},
		{"LogAddExp(-inf, -inf)", LogAddExp(-inf, -inf), -inf},
		{"LogAddExp(inf, 3)", LogAddExp(inf, 3), inf},
		{"LogAddExp(-inf, 3)", LogAddExp(-inf, 3), 3},
	} {
		if c.got != c.want {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
	for _, v := range []float64{InvPhi(-0.1), InvPhi(1.5), InvPhi(math.NaN()), Log1m(2), Phi(math.NaN()), LogAddExp(math.NaN(), 1), LogAddExp(inf, math.NaN())} {
		if !math.IsNaN(v) {
			t.Errorf("got %g, want NaN", v)
		}
	}
	// InvPhi inverts Phi to a few ulps of x across the range: Φ's relative
	// condition number there is about x², 1400 at p = 1e-300.
	for _, p := range []float64{1e-300, 1e-50, 1e-8, 0.01, 0.2, 0.4, 0.6, 0.8, 0.99} {
		x := InvPhi(p)
		if got := Phi(x); math.Abs(got-p) > 1e-15*math.Max(1, x*x)*p {
			t.Errorf("Phi(InvPhi(%g)) = %.17g", p, got)
		}
	}
}

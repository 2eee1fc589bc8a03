package check

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

func iv(lo, hi float64, loIn, hiIn bool) Interval {
	return Interval{Lo: lo, Hi: hi, LoIn: loIn, HiIn: hiIn, Known: true}
}

func TestIntervalArithmetic(t *testing.T) {
	inf := math.Inf(1)
	unit := iv(0, 1, false, false)
	pos := iv(0, inf, false, false)
	sym := iv(-1, 1, false, false) // 2u - 1
	for _, c := range []struct {
		name      string
		got, want Interval
	}{
		{"2u-1", addInterval(mulInterval(pointInterval(2), unit), pointInterval(-1)), sym},
		{"phi*phi", mulInterval(sym, sym), sym},
		{"1-phi*phi", addInterval(pointInterval(1), negInterval(mulInterval(sym, sym))), iv(0, 2, false, false)},
		{"square(phi)", powInterval(sym, ptr(2)), iv(0, 1, true, false)},
		{"1-square(phi)", addInterval(pointInterval(1), negInterval(powInterval(sym, ptr(2)))), iv(0, 1, false, true)},
		{"pos*pos", mulInterval(pos, pos), pos},
		{"unit*[0,1]", mulInterval(unit, iv(0, 1, true, true)), iv(0, 1, true, false)},
		{"pos*real", mulInterval(pos, wholeLine()), wholeLine()},
		{"[-2,-1]*[3,4]", mulInterval(iv(-2, -1, true, true), iv(3, 4, true, true)), iv(-8, -3, true, true)},
		{"[-2,-1)*(3,4]", mulInterval(iv(-2, -1, true, false), iv(3, 4, false, true)), iv(-8, -3, true, false)},
		{"1/pos", divInterval(pointInterval(1), pos), pos},
		{"1/(1,2]", divInterval(pointInterval(1), iv(1, 2, false, true)), iv(0.5, 1, true, false)},
		{"1/[-2,-1)", divInterval(pointInterval(1), iv(-2, -1, true, false)), iv(-1, -0.5, false, true)},
		{"1/(-1,0)", divInterval(pointInterval(1), iv(-1, 0, false, false)), iv(math.Inf(-1), -1, false, false)},
		{"1/sym", divInterval(pointInterval(1), sym), wholeLine()},
		{"abs(-3,1]", absInterval(iv(-3, 1, false, true)), iv(0, 3, true, false)},
		{"abs[-1,1)", absInterval(iv(-1, 1, true, false)), iv(0, 1, true, true)},
		{"x^-1 pos", powInterval(iv(2, 4, true, false), ptr(-1)), iv(0.25, 0.5, false, false)},
		{"x^3 sym", powInterval(sym, ptr(3)), sym},
		{"x^0.5 real", powInterval(sym, ptr(0.5)), wholeLine()},
		{"exp(real)", increasing(wholeLine(), math.Exp), pos},
		{"log(unit)", increasing(unit, dist.Log), iv(math.Inf(-1), 0, false, false)},
		{"log(sym)", increasing(sym, math.Log), wholeLine()},
		{"sum(unit)", sumInterval(unit), pos},
		{"sum[1,2]", sumInterval(iv(1, 2, true, true)), iv(1, inf, true, false)},
		{"sum(sym)", sumInterval(sym), wholeLine()},
		{"hull", hull(iv(0, 1, true, false), iv(1, 2, true, false)), iv(0, 2, true, false)},
		{"convex (0,1) [1,1] u(0,1)", convexHull(unit, pointInterval(1), unit), unit},
		{"convex (0,1) [1,1] u(0,1]", convexHull(unit, pointInterval(1), iv(0, 1, false, true)), iv(0, 1, false, true)},
		{"convex [0,1) [1,1] u[0,1)", convexHull(iv(0, 1, true, false), pointInterval(1), iv(0, 1, true, false)), iv(0, 1, true, false)},
		{"convex [1,1] [1,1] u(0,1)", convexHull(pointInterval(1), pointInterval(1), unit), pointInterval(1)},
		{"convex (0,2) (3,4) u[0,1]", convexHull(iv(0, 2, false, false), iv(3, 4, false, true), iv(0, 1, true, true)), iv(0, 4, false, true)},
		{"intersect", intersect(iv(-1, 3, false, true), pos), iv(0, 3, false, true)},
	} {
		if !sameUpToRounding(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

// sameUpToRounding reports whether got is want, or want with ends moved
// outwards by an ulp and opened (as increasing does where the math
// library's result may be rounded).
func sameUpToRounding(got, want Interval) bool {
	got, want = got.norm(), want.norm()
	lo := got.Lo == want.Lo && got.LoIn == want.LoIn ||
		got.Lo == math.Nextafter(want.Lo, math.Inf(-1)) && !got.LoIn
	hi := got.Hi == want.Hi && got.HiIn == want.HiIn ||
		got.Hi == math.Nextafter(want.Hi, math.Inf(1)) && !got.HiIn
	return lo && hi
}

// The interval operations are sound: every value an operation can take on
// operands in its intervals is in the result, for random intervals with
// ends from a small set (0, ±1 and ±∞ among them, where the boundary cases
// are) and random points in them, ends included when they belong.
func TestIntervalSoundness(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ends := []float64{math.Inf(-1), -3, -1, -0.5, -1e-17, 0, 1e-17, 0.1, 1.0 / 3, 0.5, 1, 1 + 0x1p-52, 2, math.Inf(1)}
	randInterval := func() Interval {
		for {
			lo, hi := ends[rng.IntN(len(ends))], ends[rng.IntN(len(ends))]
			r := iv(lo, hi, rng.IntN(2) == 0, rng.IntN(2) == 0).norm()
			if r.LoIn || r.HiIn || lo < hi && math.Nextafter(lo, hi) < hi { // holds a float
				if lo < hi || lo == hi && r.LoIn && r.HiIn {
					return r
				}
			}
		}
	}
	// point draws a member of r: an end that belongs to it, a value next to
	// an end, or one in between.
	point := func(r Interval) float64 {
		lo, hi := math.Max(r.Lo, -1e6), math.Min(r.Hi, 1e6)
		switch k := rng.IntN(5); {
		case k == 0 && r.LoIn:
			return r.Lo
		case k == 1 && r.HiIn:
			return r.Hi
		case k == 2 && lo < hi && r.Contains(math.Nextafter(lo, hi)):
			return math.Nextafter(lo, hi)
		case k == 3 && lo < hi && r.Contains(math.Nextafter(hi, lo)):
			return math.Nextafter(hi, lo)
		}
		if lo == hi {
			return lo
		}
		for {
			if v := lo + (hi-lo)*rng.Float64(); r.Contains(v) {
				return v
			}
		}
	}
	// Each operation's value is computed exactly (big.Rat), since the
	// intervals bound real arithmetic: 0.5 + (1 − 2⁻⁵³) is below 1.5 though
	// it rounds to it.
	rat := func(v float64) *big.Rat { return new(big.Rat).SetFloat64(v) }
	ops := []struct {
		name string
		r    func(a, b Interval) Interval
		v    func(x, y float64) *big.Rat // nil: outside the domain
	}{
		{"add", addInterval, func(x, y float64) *big.Rat { return new(big.Rat).Add(rat(x), rat(y)) }},
		{"mul", mulInterval, func(x, y float64) *big.Rat { return new(big.Rat).Mul(rat(x), rat(y)) }},
		{"div", divInterval, func(x, y float64) *big.Rat {
			if y == 0 {
				return nil
			}
			return new(big.Rat).Quo(rat(x), rat(y))
		}},
		{"abs", func(a, _ Interval) Interval { return absInterval(a) }, func(x, _ float64) *big.Rat { return new(big.Rat).Abs(rat(x)) }},
		{"square", func(a, _ Interval) Interval { return powInterval(a, ptr(2)) }, func(x, _ float64) *big.Rat { return new(big.Rat).Mul(rat(x), rat(x)) }},
		{"cube", func(a, _ Interval) Interval { return powInterval(a, ptr(3)) }, func(x, _ float64) *big.Rat {
			return new(big.Rat).Mul(rat(x), new(big.Rat).Mul(rat(x), rat(x)))
		}},
		{"inverse", func(a, _ Interval) Interval { return powInterval(a, ptr(-1)) }, func(x, _ float64) *big.Rat {
			if x == 0 {
				return nil
			}
			return new(big.Rat).Inv(rat(x))
		}},
	}
	in := func(r Interval, v *big.Rat) bool {
		r = r.norm()
		above := math.IsInf(r.Lo, -1) || v.Cmp(rat(r.Lo)) > 0 || r.LoIn && v.Cmp(rat(r.Lo)) == 0
		below := math.IsInf(r.Hi, 1) || v.Cmp(rat(r.Hi)) < 0 || r.HiIn && v.Cmp(rat(r.Hi)) == 0
		return above && below
	}
	for _, op := range ops {
		for range 3000 {
			a, b := randInterval(), randInterval()
			r := op.r(a, b)
			for range 20 {
				x, y := point(a), point(b)
				if v := op.v(x, y); v != nil && !in(r, v) {
					t.Fatalf("%s: %v and %v give %v, but %g and %g give %s", op.name, a, b, r, x, y, v.FloatString(20))
				}
			}
		}
	}
	// A convex combination (1 − u)·A + u·B lies in convexHull's interval,
	// for u in an interval within [0, 1].
	unitEnds := []float64{0, 1e-17, 0.1, 0.5, 1 - 0x1p-53, 1}
	for range 3000 {
		a, b := randInterval(), randInterval()
		lo, hi := unitEnds[rng.IntN(len(unitEnds))], unitEnds[rng.IntN(len(unitEnds))]
		ur := iv(min(lo, hi), max(lo, hi), rng.IntN(2) == 0, rng.IntN(2) == 0)
		if ur.Lo == ur.Hi {
			ur.LoIn, ur.HiIn = true, true
		}
		if !ur.LoIn && !ur.HiIn && math.Nextafter(ur.Lo, 1) >= ur.Hi {
			continue // no float in it
		}
		r := convexHull(a, b, ur)
		for range 20 {
			x, y, u := point(a), point(b), point(ur)
			v := new(big.Rat).Add(new(big.Rat).Mul(new(big.Rat).Sub(rat(1), rat(u)), rat(x)), new(big.Rat).Mul(rat(u), rat(y)))
			if !in(r, v) {
				t.Fatalf("convex: %v and %v with u in %v give %v, but %g, %g and u = %g give %s", a, b, ur, r, x, y, u, v.FloatString(20))
			}
		}
	}
	// exp is not exact: its rounded values are checked against the
	// closed interval (whose inexact ends were moved outwards by an ulp).
	for range 3000 {
		a := randInterval()
		r := increasing(a, math.Exp).norm()
		x := point(a)
		if v := math.Exp(x); v < r.Lo || v > r.Hi {
			t.Fatalf("exp: %v gives %v, but exp(%g) = %g", a, r, x, v)
		}
	}
}

func TestIntervalSupport(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		e    Elem
		r    Interval
		want dist.Support
	}{
		{Real, iv(0, 2, false, false), dist.Positive},
		{Real, iv(0, 1, false, false), dist.Unit},
		{Real, iv(0, 1, false, true), dist.Positive},
		{Real, iv(0, 1, true, false), dist.NonNegative},
		{Real, iv(-1, 1, false, false), dist.Real},
		{Int, iv(0, inf, true, false), dist.Count},
		{Int, iv(0, 1, true, true), dist.Binary},
		{Int, iv(1, inf, true, false), dist.Positive},
		{Int, iv(-1, 1, true, true), dist.Real},
	} {
		if got := intervalSupport(c.e, c.r); got != c.want {
			t.Errorf("%v %v: got %v, want %v", c.e, c.r, got, c.want)
		}
	}
}

package dist

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Truncated draws: a value of a family restricted to [lo, hi], as PyMC's
// pm.Truncated samples (gpp's output y_rep ~ D(args) T[L, U] and the
// predictive draws of truncated data). A few draws of the family are tried
// first (cheap and exact when the interval holds much of the mass); past
// them the draw inverts the family's log CDF: u uniform between F(lo) and
// F(hi), x = F⁻¹(u). The inversion works in log space and in the tail
// the interval lies in, from log P(X ≤ x) below the median and from
// log P(X > x) past it, so that Normal(0, 1) truncated to [8, ∞), whose
// mass 6·10⁻¹⁶ rounds 1 − F to nothing, is still drawn from its tail.
// The root is found by Newton's method on the log CDF, safeguarded by
// bisection on the ordering of the float64s (at most about 64 halvings
// from any bracket), so the draw ends in a bounded number of steps and
// lies in [lo, hi]; a discrete family's by a search over the integers.

var inf = math.Inf(1)

// truncTries is the number of plain draws tried before the inversion: the
// mixture of an accepted draw and an inverted one is exactly the truncated
// distribution, whichever way a draw ends.
const truncTries = 8

// Limits of the inversion: Newton and bisection steps of a continuous
// root, and doublings to bracket an open end.
const (
	truncMaxSteps    = 400
	truncMaxDoubling = 2100
)

// TruncRand draws from the family u with parameters p truncated to
// [lo, hi] (−Inf or +Inf for an open end; for a discrete family the ends
// are integers and included). VonMises is drawn on [−π, π], where its CDF
// is (as Stan's and scipy's), its plain draws wrapped there. It returns an error, and NaN, when the
// family has no log CDF in gpp, when lo < hi fails (lo ≤ hi for a discrete
// family), or when the family puts no mass in [lo, hi] that float64 can
// represent.
func TruncRand(u *Univariate, p []float64, lo, hi float64, rng *rand.Rand) (float64, error) {
	if err := truncBounds(u, lo, hi); err != nil {
		return math.NaN(), err
	}
	vonMises := u.Name == "VonMises"
	for range truncTries {
		v := u.Rand(p, rng)
		if vonMises { // its draws are in [mu − π, mu + π], its CDF on [−π, π]
			v = math.Remainder(v, 2*math.Pi)
		}
		if v >= lo && v <= hi {
			return v, nil
		}
	}
	return TruncInvert(u, p, lo, hi, rng)
}

// truncBounds checks the ends of a truncation.
func truncBounds(u *Univariate, lo, hi float64) error {
	switch {
	case math.IsNaN(lo) || math.IsNaN(hi):
		return fmt.Errorf("the bounds of T[L, U] are L = %g, U = %g", lo, hi)
	case u.Support.Discrete() && !(lo <= hi):
		return fmt.Errorf("T[L, U] needs L ≤ U; found L = %g, U = %g", lo, hi)
	case !u.Support.Discrete() && !(lo < hi):
		return fmt.Errorf("T[L, U] needs L < U; found L = %g, U = %g", lo, hi)
	}
	if _, ok := logCDFs[u.Name]; !ok {
		return fmt.Errorf("%s has no log CDF in gpp to truncate it", u.Name)
	}
	if PointMassAtZero(u.Name) {
		return fmt.Errorf("%s has a point mass at 0, which gpp does not truncate", u.Name)
	}
	return nil
}

// TruncCheck returns why TruncRand cannot draw from u with parameters p
// truncated to [lo, hi], or nil: the bounds, or no mass between them.
func TruncCheck(u *Univariate, p []float64, lo, hi float64) error {
	if err := truncBounds(u, lo, hi); err != nil {
		return err
	}
	t, err := newTruncInv(u, p, lo, hi)
	if err != nil {
		return err
	}
	if !(t.logMass() > math.Inf(-1)) {
		return t.noMass()
	}
	return nil
}

// TruncInvert draws from u truncated to [lo, hi] by inverting its log CDF
// with one uniform of rng, as TruncRand does past its plain draws.
func TruncInvert(u *Univariate, p []float64, lo, hi float64, rng *rand.Rand) (float64, error) {
	if err := truncBounds(u, lo, hi); err != nil {
		return math.NaN(), err
	}
	t, err := newTruncInv(u, p, lo, hi)
	if err != nil {
		return math.NaN(), err
	}
	v := rng.Float64()
	if u.Support.Discrete() {
		return t.discrete(v)
	}
	return t.continuous(v)
}

// truncInv is the state of one inversion: the kernel of the tail chosen
// (log P(X ≤ x), or log P(X > x) when upper), its values at the ends.
type truncInv struct {
	u       *Univariate
	p, dp   []float64
	lo, hi  float64 // a discrete family's lo is L − 1, below the interval
	k       Kernel
	upper   bool
	klo     float64 // k(lo)
	khi     float64 // k(hi)
	scratch [8]float64
}

func newTruncInv(u *Univariate, p []float64, lo, hi float64) (*truncInv, error) {
	t := &truncInv{u: u, p: p, lo: lo, hi: hi}
	if len(p) > len(t.scratch) {
		return nil, errors.New("too many parameters to truncate")
	}
	t.dp = t.scratch[:len(p)]
	if u.Support.Discrete() {
		t.lo = lo - 1 // P(L ≤ X ≤ U) = F(U) − F(L − 1)
	}
	if u.Name == "VonMises" { // its CDF is flat outside [−π, π]: no root there
		t.lo, t.hi = max(t.lo, -math.Pi), min(t.hi, math.Pi)
	}
	cdf, _ := LogCDF(u.Name, false)
	sf, _ := LogCDF(u.Name, true)
	// past the median at lo, the upper tail keeps the digits
	if s, _ := sf(t.lo, p, t.dp); s < -math.Ln2 {
		t.k, t.upper = sf, true
	} else {
		t.k = cdf
	}
	t.klo, _ = t.k(t.lo, p, t.dp)
	t.khi, _ = t.k(t.hi, p, t.dp)
	if math.IsNaN(t.klo) || math.IsNaN(t.khi) {
		return nil, fmt.Errorf("the log CDF of %s is NaN at a bound (L = %g, U = %g)", u.Name, lo, hi)
	}
	return t, nil
}

// logMass returns log P(lo < X ≤ hi) (a discrete family's lo is L − 1).
func (t *truncInv) logMass() float64 {
	if t.upper { // S(lo) − S(hi)
		return t.klo + log1mExp(t.khi-t.klo)
	}
	return t.khi + log1mExp(t.klo-t.khi) // F(hi) − F(lo)
}

func (t *truncInv) noMass() error {
	lo := t.lo
	if t.u.Support.Discrete() {
		lo++
	}
	return fmt.Errorf("%s puts no mass in [%g, %g] that gpp can represent", t.u.Name, lo, t.hi)
}

// log1mExp returns log(1 − eˣ) for x ≤ 0 (−Inf at 0, and NaN for NaN).
func log1mExp(x float64) float64 {
	if x > -math.Ln2 {
		return math.Log(-math.Expm1(x))
	}
	return math.Log1p(-math.Exp(x))
}

// target returns the kernel's value at the draw for the uniform v in
// [0, 1): F(x) = F(hi) − v·(F(hi) − F(lo)), or S(x) = S(lo) − v·(S(lo) −
// S(hi)), in logs.
func (t *truncInv) target(v float64) float64 {
	if t.upper {
		return t.klo + math.Log1p(v*math.Expm1(t.khi-t.klo))
	}
	return t.khi + math.Log1p(v*math.Expm1(t.klo-t.khi))
}

// g is the increasing function whose root is the draw: k(x) − target for
// the CDF, target − k(x) for the survival function, with its derivative.
func (t *truncInv) g(x, tg float64) (float64, float64) {
	lp, dx := t.k(x, t.p, t.dp)
	if t.upper {
		return tg - lp, -dx
	}
	return lp - tg, dx
}

// floatKey maps a float64 to an int64 of the same order, so that the
// midpoint of two keys halves the number of floats between them.
func floatKey(x float64) int64 {
	b := int64(math.Float64bits(x))
	if b < 0 {
		b = math.MinInt64 - b
	}
	return b
}

func keyFloat(k int64) float64 {
	if k < 0 {
		k = math.MinInt64 - k
	}
	return math.Float64frombits(uint64(k))
}

// continuous inverts a continuous family's log CDF at the uniform v.
func (t *truncInv) continuous(v float64) (float64, error) {
	if !(t.logMass() > math.Inf(-1)) {
		return math.NaN(), t.noMass()
	}
	tg := t.target(v)
	a, b := max(t.lo, -math.MaxFloat64), min(t.hi, math.MaxFloat64)
	x := 0.0 // the first guess: a finite end, or 0
	switch {
	case !math.IsInf(t.lo, 0) && !math.IsInf(t.hi, 0):
		x = t.lo + (t.hi-t.lo)/2
		if math.IsInf(x, 0) {
			x = t.lo/2 + t.hi/2
		}
	case !math.IsInf(t.lo, 0):
		x = t.lo
	case !math.IsInf(t.hi, 0):
		x = t.hi
	}
	bisect, prev := false, math.Inf(1)
	for range truncMaxSteps {
		if bisect || !(x >= a && x <= b) {
			ka, kb := floatKey(a), floatKey(b)
			if uint64(kb)-uint64(ka) <= 1 { // kb ≥ ka: their distance, also past MaxInt64
				break
			}
			x = keyFloat(ka + int64((uint64(kb)-uint64(ka))/2))
		}
		gx, dg := t.g(x, tg)
		switch {
		case math.IsNaN(gx):
			return math.NaN(), fmt.Errorf("the log CDF of %s is NaN at %g", t.u.Name, x)
		case gx == 0:
			return x, nil
		case gx < 0:
			a = x
		default:
			b = x
		}
		if math.Abs(gx) <= 1e-15*math.Max(1, math.Abs(tg)) {
			return x, nil
		}
		// Newton from x; a step that leaves the bracket, or one after a
		// step that did not halve |g|, is a halving instead
		next := x - gx/dg
		if ulp := math.Nextafter(math.Abs(x), inf) - math.Abs(x); math.Abs(next-x) <= 4*ulp && next > a && next < b {
			return next, nil // Newton's step is down to the float's rounding
		}
		bisect = !(next > a && next < b) || math.Abs(gx) > prev/2
		prev = math.Abs(gx)
		x = next
	}
	// the bracket is down to adjacent floats: the end nearer the target
	ga, _ := t.g(a, tg)
	gb, _ := t.g(b, tg)
	if math.Abs(ga) < math.Abs(gb) && a >= t.lo {
		return a, nil
	}
	return min(max(b, t.lo), t.hi), nil
}

// discrete finds the least integer k in [L, U] whose kernel value passes
// the target of the uniform v: F(k) ≥ F(U) − v·(F(U) − F(L − 1)).
func (t *truncInv) discrete(v float64) (float64, error) {
	if !(t.logMass() > math.Inf(-1)) {
		return math.NaN(), t.noMass()
	}
	tg := t.target(v)
	// g(a) < 0 ≤ g(b); the support runs from its lower end (a count's 0,
	// Geometric's 1, DiscreteUniform's lower) to its upper (a Binomial's
	// n, DiscreteUniform's upper), so L − 1 need not be below the lower
	// end less 1, nor U above the upper end
	elo, ehi := t.u.Ends(t.p)
	a, b := max(t.lo, elo-1), min(t.hi, ehi)
	if math.IsInf(b, 1) {
		step := 1.0
		for range truncMaxDoubling {
			b = a + step
			if gb, _ := t.g(b, tg); gb >= 0 {
				break
			}
			a, step = b, step*2
			if math.IsInf(b, 0) {
				return math.NaN(), fmt.Errorf("%s: no count reaches the draw's quantile", t.u.Name)
			}
		}
	}
	for b-a > 1 {
		m := math.Floor(a/2 + b/2)
		if m <= a || m >= b {
			break // past 2⁵³, where counts are not all floats
		}
		if gm, _ := t.g(m, tg); gm >= 0 {
			b = m
		} else {
			a = m
		}
	}
	return min(b, t.hi), nil
}

package dist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// specialCondTol is the tolerance of the incomplete gamma and beta
// functions per unit of the condition number 1 + Σ |x_i ∂f/∂x_i| / f of
// the smaller of f and 1 − f (the one computed directly), for values and
// partials alike: they are exponentials of logs, whose rounding grows with
// the log's size, and are judged by their backward error, a few ulps of
// the arguments.
const specialCondTol = 4e-15

// condTolAt returns specialCondTol scaled by the condition at a reference
// row with value v and the arguments times partials xd.
func condTolAt(v float64, xd ...float64) float64 {
	s := min(math.Abs(v), math.Abs(1-v))
	c := 1.0
	for _, t := range xd {
		c += math.Abs(t / s)
	}
	return specialCondTol * c
}

// TestIncBetaReference checks IncBeta and IncBetaGrad against mpmath at
// 400 digits (testdata/incbeta.py prints the rows): both tails, shapes
// from 1e-3 to 1e4, x within 1e-10 of either end.
func TestIncBetaReference(t *testing.T) {
	worst, worstRel := 0.0, 0.0
	for _, r := range [][7]float64{
		// a, b, x, I, ∂I/∂a, ∂I/∂b, ∂I/∂x
		{2.0, 3.0, 0.5, 0.6875, -0.19528868663496240022, 0.15410849392498290919, 1.5},
		{0.5, 0.5, 1.0000000000000000364e-10, 6.3661977237819168421e-6, -0.0001504940912194978776, 8.8254240060409477059e-6, 31830.988619970616005},
		{0.5, 0.5, 0.99999999989999999173, 0.99999363380201284731, -8.8254243711503682295e-6, 0.00015049409691872465532, 31830.987303116794592},
		{0.0010000000000000000208, 5.0, 0.2999999999999999889, 0.9999152891767765019, -0.084807171771280066062, 0.000043974217263204146589, 0.00080103685453784194308},
		{5.0, 0.0010000000000000000208, 0.2999999999999999889, 6.5110870882324068534e-7, -9.0726056363220974863e-7, 0.00065227405995665950622, 0.000011591417488524295422},
		{10.0, 20.0, 0.010000000000000000208, 1.6841317932875392389e-13, -6.019237382770748354e-13, 6.817277552883367525e-14, 1.6548165797113043758e-10},
		{10.0, 20.0, 0.9000000000000000222, 0.99999999999995927494, -4.2061784307186852042e-14, 7.9047772608603088931e-14, 7.7600362688748589847e-12},
		{100.0, 200.0, 0.33329999999999998517, 0.50494352749742259627, -0.032633992257051302622, 0.016302180557416571916, 14.644552737648259783},
		{1000.0, 1000.0, 0.4500000000000000111, 3.6831988690075782797e-6, -4.0584118313086887695e-7, 3.6713107969920651476e-7, 0.0015558229570488292403},
		{1.0, 1.0, 0.25, 0.25, -0.34657359027997265471, 0.21576155433883569558, 1.0},
		{3.5, 0.75, 0.99899999999999999911, 0.98476261763380777942, -0.0033689561846580892258, 0.088854680611145140567, 11.411709103066884836},
		{0.2000000000000000111, 30.0, 9.9999999999999995475e-7, 0.13531243330646928022, -1.3714316354117300564, 0.00091416719891107844695, 27061.832658026977618},
		{50.0, 2.0, 0.5, 2.3092638912203256041e-14, -1.5562508343832506736e-14, 6.5704558560827391676e-14, 2.2648549702353193425e-12},
		{10000.0, 1.5, 0.99990000000000001101, 0.57237557039241342301, -0.000041511268599398178504, 0.37467038252103314145, 4151.4382108880225267},
	} {
		a, b, x := r[0], r[1], r[2]
		tol := condTolAt(r[3], a*r[4], b*r[5], x*r[6])
		da, db, dx := IncBetaGrad(a, b, x)
		for i, got := range []float64{IncBeta(a, b, x), da, db, dx} {
			want := r[3+i]
			e := math.Abs(got-want) / math.Abs(want)
			worst, worstRel = max(worst, e/(tol/specialCondTol)), max(worstRel, e)
			if !(e <= tol) {
				t.Errorf("inc_beta(%g, %g, %g) [%d] = %.17g, want %.17g (rel error %.2g, tolerance %.2g)", a, b, x, i, got, want, e, tol)
			}
		}
	}
	t.Logf("worst relative error %.2g; per unit of condition %.2g", worstRel, worst)
}

// TestIncBetaEnds: the ends of [0, 1], the density's limits there, and
// NaN outside the domain.
func TestIncBetaEnds(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		a, b, x, v, dx float64
	}{
		{2, 3, 0, 0, 0},
		{0.5, 3, 0, 0, inf},
		{1, 3, 0, 0, 3}, // 1/B(1, 3)
		{2, 3, 1, 1, 0},
		{2, 1, 1, 1, 2},
		{2, 0.5, 1, 1, inf},
	} {
		da, db, dx := IncBetaGrad(c.a, c.b, c.x)
		if v := IncBeta(c.a, c.b, c.x); v != c.v || da != 0 || db != 0 || dx != c.dx {
			t.Errorf("inc_beta(%g, %g, %g) = %g, partials %g %g %g; want %g, 0 0 %g", c.a, c.b, c.x, v, da, db, dx, c.v, c.dx)
		}
	}
	for _, c := range [][3]float64{{0, 1, 0.5}, {1, -1, 0.5}, {1, 1, 1.5}, {1, 1, -0.1}, {inf, 1, 0.5}, {1, 1, math.NaN()}} {
		if v := IncBeta(c[0], c[1], c[2]); !math.IsNaN(v) {
			t.Errorf("inc_beta%v = %g, want NaN", c, v)
		}
	}
}

// TestInvIncBetaReference checks InvIncBeta and InvIncBetaGrad against
// mpmath at 100 digits (testdata/invincbeta.py prints the rows), to
// specialCondTol per unit of the condition of the smaller of x and 1 − x.
func TestInvIncBetaReference(t *testing.T) {
	worst, worstRel := 0.0, 0.0
	for _, r := range [][7]float64{
		// a, b, p, x, ∂x/∂a, ∂x/∂b, ∂x/∂p
		{2.0, 3.0, 0.5, 0.38572756813238954828, 0.14002563022913489017, -0.088318070123977885372, 0.57255343550226312813},
		{0.5, 0.5, 1.0000000000000000364e-10, 2.4674011002723398345e-20, 2.2582761295861944938e-18, -6.8410884638571170432e-20, 4.9348022005446794891e-10},
		{0.5, 0.5, 0.99999999989999999173, 0.99999999999999999998, 6.8410895959255584528e-20, -2.2582764951212710425e-18, 4.9348026088520441895e-10},
		{10.0, 20.0, 9.9999999999999997989e-13, 0.011991374299878328759, 0.0041553188923465341549, -0.00049353630009998429015, 1224740876.8644296106},
		{10.0, 20.0, 0.99999899999999997124, 0.74663615077605516491, 0.01267732193042839398, -0.015009071406301312299, 14763.502066260325427},
		{100.0, 200.0, 0.2999999999999999889, 0.31878823339371004501, 0.002226577489745707337, -0.0010762336612482993002, 0.077145116942420080494},
		{1.0, 1.0, 0.25, 0.25, 0.34657359027997265471, -0.21576155433883569558, 1.0},
		{3.5, 0.75, 0.97999999999999998224, 0.99856198096622115467, 0.00042443667264597719277, -0.010506572820384765004, 0.09606531688954171738},
		{0.2000000000000000111, 30.0, 0.13000000000000000444, 8.185144237600380776e-7, 0.000042299849669774765187, -2.7649979057129018859e-8, 0.000031481946722446997704},
		{50.0, 2.0, 9.9999999999999999882e-15, 0.49154172109332132372, 0.006921526381844456727, -0.028663002922442094102, 1001718265017.1540806},
		{2.5, 7.0, 0.9000000000000000222, 0.45172680176411581266, 0.083132631187827760223, -0.043243911270631016388, 0.97288119289862908717},
	} {
		a, b, p := r[0], r[1], r[2]
		tol := condTolAt(r[3], a*r[4], b*r[5], p*r[6])
		x := InvIncBeta(a, b, p)
		da, db, dp := InvIncBetaGrad(a, b, p)
		for i, got := range []float64{x, da, db, dp} {
			want := r[3+i]
			e := math.Abs(got-want) / math.Abs(want)
			worst, worstRel = max(worst, e/(tol/specialCondTol)), max(worstRel, e)
			if !(e <= tol) {
				t.Errorf("inv_inc_beta(%g, %g, %g) [%d] = %.17g, want %.17g (rel error %.2g, tolerance %.2g)", a, b, p, i, got, want, e, tol)
			}
		}
	}
	t.Logf("worst relative error %.2g; per unit of condition %.2g", worstRel, worst)
	for _, c := range [][3]float64{{0, 1, 0.5}, {1, 1, 1.5}, {1, 1, -0.1}, {1, 1, math.NaN()}} {
		if v := InvIncBeta(c[0], c[1], c[2]); !math.IsNaN(v) {
			t.Errorf("inv_inc_beta%v = %g, want NaN", c, v)
		}
	}
	if InvIncBeta(2, 3, 0) != 0 || InvIncBeta(2, 3, 1) != 1 {
		t.Error("inv_inc_beta at p = 0 or 1")
	}
}

// TestInvIncBetaRoundTrip: over shapes from 1e-2 to 1e3 and p from 1e-30
// to 1 − 1e-12 (log-uniform, seeded), I at the inverse gives p back to a
// few ulps of the smaller of p and 1 − p, times the condition of I at x:
// 2·specialCondTol per unit, the inverse's error and I's own.
func TestInvIncBetaRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 114))
	worst := 0.0
	for range 2000 {
		a, b := math.Pow(10, -2+5*r.Float64()), math.Pow(10, -2+5*r.Float64())
		q := math.Pow(10, -30+29.7*r.Float64())
		p := q
		if r.IntN(2) == 0 {
			p = 1 - math.Max(q, 1e-12)
		}
		x := InvIncBeta(a, b, p)
		if !(x >= 0 && x <= 1) {
			t.Fatalf("inv_inc_beta(%g, %g, %g) = %g", a, b, p, x)
		}
		if x < 0x1p-1022 || 1-x < 0x1p-1022 {
			continue // x or 1 − x subnormal or 0: the inverse is not representable to an ulp
		}
		i := IncBeta(a, b, x)
		da, db, dx := IncBetaGrad(a, b, x)
		s := min(p, 1-p)
		// I's condition: how far it moves at an ulp of each argument
		cond := 1 + math.Abs(a*da/s) + math.Abs(b*db/s) + math.Abs(x*dx/s)
		e := math.Abs(min(i, 1-i)-s) / s / cond
		worst = max(worst, e)
		if e > 2*specialCondTol {
			t.Errorf("I(inv_inc_beta(%g, %g, %g)) = %.17g (rel error %.2g per unit of condition %.3g)", a, b, p, i, e, cond)
		}
	}
	t.Logf("worst relative error per unit of condition %.2g", worst)
}

package autodiff

import (
	"math"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// Tolerances of TestStanFuncsReference, relative (no absolute floor: the
// rows near a function's zero test its relative accuracy there). The worst
// errors measured are 1.8e-15 (tgamma; tan near π/2 1.4e-15) for values and 6e-15
// (tgamma's) for derivatives, of the ops outside condOps.
const (
	stanValTol   = 4e-15 // values: a few ulps
	stanDerivTol = 1e-14 // derivatives
	// condTol is the tolerance of the special functions of condOps, per
	// unit of the value's condition 1 + |x f_x/f| + |y f_y/f| (from the
	// reference row), for values and derivatives alike: these are
	// exponentials of logs several hundred in size (gamma_q(2, 700) =
	// 6.9e-302, condition 712), series in large shapes, or near a branch
	// point (lambert_w0 within 1e-17 of -1/e, condition 5e7), which no
	// double-precision method gets to a few ulps, and are judged by their
	// backward error, a few ulps of the arguments. For a probability the
	// condition is that of the smaller of f and 1 − f (its complement's
	// row where f rounds to 0 or 1), which the value near 1 and the
	// derivatives are computed from. The worst measured is 6e-16 per unit
	// (gamma_p(1e4, 9900), 8.8e-14 at condition 153).
	condTol = 4e-15
)

// condOp says how TestStanFuncsReference checks an op of condOps.
type condOp struct {
	complement Op   // for a probability, the op of 1 − f; else 0
	vAbs       bool // the partial in x cancels to near 0: to condTol·max(1, |want|)
}

// condOps are the ops whose rows are checked to condTol.
var condOps = map[Op]condOp{OpGammaP: {complement: OpGammaQ}, OpGammaQ: {complement: OpGammaP},
	OpLambertW0: {}, OpLambertWm1: {}, OpOwensT: {}, OpLogRisingFactorial: {}, OpRisingFactorial: {},
	OpFallingFactorial: {}, OpBesselJ: {}, OpBesselY: {}, OpBesselI: {}, OpBesselK: {},
	OpLogBesselI: {vAbs: true}, // log(z/2) − ψ(v+1) + S_v/S
}

// TestStanFuncsReference checks the values and derivatives of the ops in
// elemfns.go against testdata/stanfuncs.csv (mpmath, 60 digits): tails
// (erfc(26), atanh(1 - 2⁻⁵³), asinh(1e300)), the ends of the domains and
// the zeros where relative accuracy is hardest.
func TestStanFuncsReference(t *testing.T) {
	ops := map[string]Op{}
	for op := OpAdd; op < numOps; op++ {
		if unaryFns[op].f != nil || binaryFns[op].f != nil {
			ops[op.String()] = op
		}
	}
	worst := map[string]float64{} // the largest relative error of each value, logged
	check := func(what string, x, y, got, want, tol float64) {
		t.Helper()
		if got == want {
			return
		}
		if r := math.Abs(got-want) / math.Abs(want); want != 0 && r > worst[what] {
			worst[what] = r
		}
		if d := math.Abs(got - want); !(d <= tol*math.Abs(want)) {
			t.Errorf("%s(%.17g, %.17g) = %.17g, want %.17g (rel error %.2g)", what, x, y, got, want, d/math.Abs(want))
		}
	}
	seen := map[Op]bool{}
	type rowKey struct {
		op   Op
		x, y float64
	}
	rows := reftest.ReadRows(t, "testdata/stanfuncs.csv")
	values := map[rowKey]float64{}
	for _, r := range rows {
		values[rowKey{ops[r.Name], r.X, r.Y}] = r.Val
	}
	for _, r := range rows {
		x, y, val, dx, dy := r.X, r.Y, r.Val, r.DX, r.DY
		name := r.Name
		op, ok := ops[name]
		if !ok {
			t.Fatalf("stanfuncs.csv: unknown op %q", name)
		}
		seen[op] = true
		tol, dtol := stanValTol, stanDerivTol
		dxScale := 1.0
		if c, ok := condOps[op]; ok {
			v := math.Abs(val)
			if c.complement != 0 {
				v = min(v, math.Abs(1-val))
				if v == 0 { // f rounds to 0 or 1: the complement's value
					v = math.Abs(values[rowKey{c.complement, x, y}])
				}
			}
			tol = condTol
			if v != 0 {
				tol *= 1 + math.Abs(x*dx/v) + math.Abs(y*dy/v)
			}
			dtol = tol
			if c.vAbs {
				dxScale = max(1, math.Abs(dx)) / math.Abs(dx)
			}
		}
		if u := unaryFns[op]; u.f != nil {
			z := u.f(x)
			check(name, x, y, z, val, tol)
			check(name+"'", x, y, u.d(x, z), dx, dtol)
			continue
		}
		b := binaryFns[op]
		z := b.f(x, y)
		check(name, x, y, z, val, tol)
		gx, gy := b.d(x, y, z)
		check(name+"/dx", x, y, gx, dx, dtol*dxScale)
		check(name+"/dy", x, y, gy, dy, dtol)
	}
	t.Logf("worst relative errors: %v", worst)
	for _, op := range ops {
		if !seen[op] && op != OpFloor && op != OpCeil && op != OpRound && op != OpTrunc {
			t.Errorf("stanfuncs.csv has no row of %s", op)
		}
	}
}

// TestStanFuncsEdges: the ends of the domains, infinities, exact values
// and NaN outside.
func TestStanFuncsEdges(t *testing.T) {
	inf := math.Inf(1)
	u := func(op Op, x float64) float64 { return unaryFns[op].f(x) }
	bf := func(op Op, x, y float64) float64 { return binaryFns[op].f(x, y) }
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"log_diff_exp(3, 3)", bf(OpLogDiffExp, 3, 3), -inf},
		{"log_diff_exp(3, -inf)", bf(OpLogDiffExp, 3, -inf), 3},
		{"log_diff_exp(inf, 3)", bf(OpLogDiffExp, inf, 3), inf},
		{"log_diff_exp(-inf, -inf)", bf(OpLogDiffExp, -inf, -inf), -inf},
		{"log_inv_logit_diff(2, 2)", bf(OpLogInvLogitDiff, 2, 2), -inf},
		{"erfc(30)", u(OpErfc, 30), 0}, // 2.6e-393, below the smallest double
		{"erfc(-30)", u(OpErfc, -30), 2},
		{"atanh(1)", u(OpAtanh, 1), inf},
		{"atanh(-1)", u(OpAtanh, -1), -inf},
		{"acosh(1)", u(OpAcosh, 1), 0},
		{"tgamma(0)", u(OpTgamma, 0), inf},
		{"tgamma(4)", u(OpTgamma, 4), 6},
		{"trigamma(-2)", u(OpTrigamma, -2), inf},
		{"lmultiply(0, 0)", bf(OpLmultiply, 0, 0), 0},
		{"lmultiply(2, 0)", bf(OpLmultiply, 2, 0), -inf},
		{"binary_log_loss(1, 0)", bf(OpBinaryLogLoss, 1, 0), inf},
		{"binary_log_loss(0, 0)", bf(OpBinaryLogLoss, 0, 0), 0},
		{"gamma_p(2, 0)", bf(OpGammaP, 2, 0), 0},
		{"gamma_q(2, 0)", bf(OpGammaQ, 2, 0), 1},
		{"gamma_p(2, inf)", bf(OpGammaP, 2, inf), 1},
		{"gamma_q(2, inf)", bf(OpGammaQ, 2, inf), 0},
		{"gamma_q(2, 800)", bf(OpGammaQ, 2, 800), 0}, // 2.9e-345 underflows
		{"log_modified_bessel_first_kind(0, 0)", bf(OpLogBesselI, 0, 0), 0},
		{"log_modified_bessel_first_kind(2, 0)", bf(OpLogBesselI, 2, 0), -inf},
		{"log_modified_bessel_first_kind(-1, 2)", bf(OpLogBesselI, -1, 2), bf(OpLogBesselI, 1, 2)},
		{"modified_bessel_first_kind(0, 0)", bf(OpBesselI, 0, 0), 1},
		{"modified_bessel_first_kind(-3, -2)", bf(OpBesselI, -3, -2), -bf(OpBesselI, 3, 2)},
		{"bessel_second_kind(0, 0)", bf(OpBesselY, 0, 0), -inf},
		{"modified_bessel_second_kind(1, 0)", bf(OpBesselK, 1, 0), inf},
		{"modified_bessel_second_kind(0, 800)", bf(OpBesselK, 0, 800), 0}, // 3.6e-349 underflows
		{"lambert_w0(0)", u(OpLambertW0, 0), 0},
		{"lambert_w0(e)", u(OpLambertW0, math.E), 1},
		{"lambert_w0(inf)", u(OpLambertW0, inf), inf},
		{"lambert_wm1(0)", u(OpLambertWm1, 0), -inf},
		{"lambert_w0(-0.36787944117144233)", u(OpLambertW0, -0.36787944117144233), -1}, // the double nearest -1/e, just below it
		{"owens_t(0, 1)", bf(OpOwensT, 0, 1), 0.125},
		{"rising_factorial(-2, 5)", bf(OpRisingFactorial, -2, 5), 0},
		{"falling_factorial(3, 0)", bf(OpFallingFactorial, 3, 0), 1},
		{"log_rising_factorial(1e-300, 0)", bf(OpLogRisingFactorial, 1e-300, 0), 0},
		{"binary_log_loss(0, 1)", bf(OpBinaryLogLoss, 0, 1), inf},
		{"log2(5e-324)", u(OpLog2, 5e-324), -1074},
		{"log2(0.125)", u(OpLog2, 0.125), -3},
		{"log10(1e22)", u(OpLog10, 1e22), 22},
		{"log10(1000)", u(OpLog10, 1000), 3},
		{"log10(0)", u(OpLog10, 0), -inf},
		{"exp2(-1074)", u(OpExp2, -1074), 5e-324},
		{"cbrt(-27)", u(OpCbrt, -27), -3},
		{"hypot(inf, NaN)", bf(OpHypot, inf, math.NaN()), inf},
		{"cosh(-711)", u(OpCosh, -711), inf},
		{"round(-2.5)", u(OpRound, -2.5), -3},
		{"round(0.49999999999999994)", u(OpRound, 0.49999999999999994), 0},
		{"floor(-0.5)", u(OpFloor, -0.5), -1},
		{"ceil(-0.5)", u(OpCeil, -0.5), 0},
		{"trunc(-1.5)", u(OpTrunc, -1.5), -1},
	} {
		if c.got != c.want {
			t.Errorf("%s = %.17g, want %.17g", c.name, c.got, c.want)
		}
	}
	// Past exp's overflow at 709.78, sinh and cosh are still finite.
	if got, want := u(OpSinh, 710.4), 1.6663642832806496e308; math.Abs(got-want) > stanValTol*want {
		t.Errorf("sinh(710.4) = %.17g, want %.17g", got, want)
	}
	// T(h, ±∞) = ±Q(|h|)/2; mpmath: ncdf(-1)/2
	if got, want := bf(OpOwensT, -1, -inf), -0.079327626965728525; math.Abs(got-want) > -stanValTol*want {
		t.Errorf("owens_t(-1, -inf) = %.17g, want %.17g", got, want)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{
		{"log_diff_exp(1, 2)", bf(OpLogDiffExp, 1, 2)},
		{"log_diff_exp(inf, inf)", bf(OpLogDiffExp, inf, inf)},
		{"asin(1.5)", u(OpAsin, 1.5)},
		{"acos(-1.0000001)", u(OpAcos, -1.0000001)},
		{"acosh(0.5)", u(OpAcosh, 0.5)},
		{"atanh(2)", u(OpAtanh, 2)},
		{"tgamma(-3)", u(OpTgamma, -3)},
		{"log2(-1)", u(OpLog2, -1)},
		{"lmultiply(1, -1)", bf(OpLmultiply, 1, -1)},
		{"log_inv_logit_diff(0, 1)", bf(OpLogInvLogitDiff, 0, 1)},
		{"log_falling_factorial(2, 3)", bf(OpLogFallingFactorial, 2, 3)},
		{"log_falling_factorial(2, -1)", bf(OpLogFallingFactorial, 2, -1)},
		{"gamma_p(0, 1)", bf(OpGammaP, 0, 1)},
		{"gamma_q(1, -1)", bf(OpGammaQ, 1, -1)},
		{"gamma_q(inf, 1)", bf(OpGammaQ, inf, 1)},
		{"log_modified_bessel_first_kind(-1.5, 1)", bf(OpLogBesselI, -1.5, 1)},
		{"log_modified_bessel_first_kind(1, -1)", bf(OpLogBesselI, 1, -1)},
		{"modified_bessel_first_kind(0.5, 1)", bf(OpBesselI, 0.5, 1)},
		{"bessel_second_kind(1, -1)", bf(OpBesselY, 1, -1)},
		{"modified_bessel_second_kind(1, -1)", bf(OpBesselK, 1, -1)},
		{"modified_bessel_second_kind(0.5, 1)", bf(OpBesselK, 0.5, 1)},
		{"lambert_w0(-0.5)", u(OpLambertW0, -0.5)},
		{"lambert_wm1(0.5)", u(OpLambertWm1, 0.5)},
		{"lambert_wm1(-0.5)", u(OpLambertWm1, -0.5)},
		{"log_rising_factorial(-1, 3)", bf(OpLogRisingFactorial, -1, 3)},
		{"log_rising_factorial(2, -2.5)", bf(OpLogRisingFactorial, 2, -2.5)},
		{"rising_factorial(2, -1)", bf(OpRisingFactorial, 2, -1)},
		{"falling_factorial(2, 1.5)", bf(OpFallingFactorial, 2, 1.5)},
	} {
		if !math.IsNaN(c.v) {
			t.Errorf("%s = %g, want NaN", c.name, c.v)
		}
	}
}

// TestProdZeros: prod's derivative where elements are 0, which division
// by the element would make NaN.
func TestProdZeros(t *testing.T) {
	for _, c := range []struct {
		x, want []float64
	}{
		{[]float64{2, 3, 4}, []float64{12, 8, 6}},
		{[]float64{2, 0, 4}, []float64{0, 8, 0}},
		{[]float64{0, 3, 0}, []float64{0, 0, 0}},
		{[]float64{-1.5}, []float64{1}},
	} {
		b := NewBuilder()
		x := b.Input("x", Vector(len(c.x)), testPos)
		p, err := b.Finish(b.Prod(x, testPos))
		if err != nil {
			t.Fatal(err)
		}
		g := make([]float64, len(c.x))
		v, err := p.LogJoint(c.x, g)
		if err != nil {
			t.Fatal(err)
		}
		want := 1.0
		for _, xi := range c.x {
			want *= xi
		}
		if v != want {
			t.Errorf("prod(%v) = %g, want %g", c.x, v, want)
		}
		for i := range g {
			if g[i] != c.want[i] {
				t.Errorf("prod(%v): gradient %v, want %v", c.x, g, c.want)
				break
			}
		}
	}
}

// TestRowProdZeros: RowProd's derivative per row, which divides the
// forward pass's product by each element where it is not 0: exact at a
// lone 0 (the product of the rest), 0 with two zeros, and where the
// product underflows to 0 the same as Prod's; then no allocation.
func TestRowProdZeros(t *testing.T) {
	x := []float64{
		2, 3, 4, // 12, 8, 6
		2, 0, 4, // 0, 8, 0
		0, 3, 0, // 0, 0, 0
		-1.5, 0.5, 2, // 1, -3, -0.75
		1e-200, 1e-200, 5, // underflows to 0: 0, 0, 0
	}
	want := []float64{12, 8, 6, 0, 8, 0, 0, 0, 0, 1, -3, -0.75, 0, 0, 0}
	b := NewBuilder()
	in := b.Input("x", Matrix(5, 3), testPos)
	w := b.Const([]float64{1, 1, 1, 1, 1}, Vector(5), testPos)
	p, err := b.Finish(b.Sum(b.Mul(b.RowProd(in, testPos), w, testPos), testPos))
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, len(x))
	if _, err := p.LogJoint(x, g); err != nil {
		t.Fatal(err)
	}
	for i := range g {
		if g[i] != want[i] {
			t.Errorf("gradient %v, want %v", g, want)
			break
		}
	}
	if a := testing.AllocsPerRun(10, func() { p.LogJoint(x, g) }); a != 0 {
		t.Errorf("%v allocations per LogJoint, want 0", a)
	}
}

// TestStanFuncsNoAllocs: a step through every op of elemfns.go and prod
// allocates nothing.
func TestStanFuncsNoAllocs(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", Vector(4), testPos) // in (0, 1)
	one := b.Scalar(1, testPos)
	terms := []ID{b.Prod(x, testPos)}
	for op := OpTan; op <= OpTrunc; op++ {
		arg := x
		if op == OpAcosh {
			arg = b.Add(x, one, testPos)
		}
		terms = append(terms, b.Sum(b.Unary(op, arg, testPos), testPos))
	}
	for op := OpLogDiffExp; op <= lastBinary; op++ {
		l, r := one, x
		if op == OpRisingFactorial || op == OpFallingFactorial || op == OpLdexp { // an int count on the right
			l, r = x, one
		}
		terms = append(terms, b.Sum(b.Binary(op, l, r, testPos), testPos))
	}
	terms = append(terms, b.Sum(b.Unary(OpLambertW0, x, testPos), testPos),
		b.Sum(b.Unary(OpLambertWm1, b.Mul(b.Scalar(-0.35, testPos), x, testPos), testPos), testPos))
	total := terms[0]
	for _, id := range terms[1:] {
		total = b.Add(total, id, testPos)
	}
	p, err := b.Finish(total)
	if err != nil {
		t.Fatal(err)
	}
	v, g := []float64{0.2, 0.4, 0.6, 0.8}, make([]float64, 4)
	if _, err := p.LogJoint(v, g); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(10, func() { p.LogJoint(v, g) }); a != 0 {
		t.Errorf("%v allocations per step, want 0", a)
	}
}

// TestLUNoAllocs: a step through inverse, determinant, log_determinant
// and mdivide_left_tri_low allocates nothing.
func TestLUNoAllocs(t *testing.T) {
	b := NewBuilder()
	a := b.Input("A", Matrix(3, 3), testPos)
	y := b.Input("y", Vector(3), testPos)
	total := b.Add(b.Sum(b.LU(OpInverse, a, testPos), testPos), b.LU(OpDeterminant, a, testPos), testPos)
	total = b.Add(total, b.LU(OpLogAbsDet, a, testPos), testPos)
	total = b.Add(total, b.Sum(b.TriSolve(a, y, testPos), testPos), testPos)
	p, err := b.Finish(total)
	if err != nil {
		t.Fatal(err)
	}
	v := []float64{2, 0.5, -1, 0.3, 3, 0.2, -0.4, 1, 1.5, 1, 2, 3}
	g := make([]float64, len(v))
	if _, err := p.LogJoint(v, g); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(10, func() { p.LogJoint(v, g) }); a != 0 {
		t.Errorf("%v allocations per step, want 0", a)
	}
}

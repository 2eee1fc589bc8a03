package autodiff

import (
	"math"
	"strings"
	"testing"
)

// Tolerances of the integral tests, relative. At Stan's default relative
// tolerance (1.5e-8 of ∫|f| between two levels) the double-exponential
// rule's error is far smaller than that change, as each level about
// squares it.
const (
	integValueTol = 1e-13 // values against closed forms and mpmath
	integGradTol  = 1e-12 // partials against closed forms and mpmath
)

// integrandOf builds f(x, xc, args...) of the argument shapes from body.
func integrandOf(t testing.TB, shapes []Shape, body func(b *Builder, x, xc ID, args []ID) ID) *Integrand {
	t.Helper()
	b := NewBuilder()
	x := b.Input("x", Scalar(), testPos)
	xc := b.Input("xc", Scalar(), testPos)
	args := make([]ID, len(shapes))
	for i, s := range shapes {
		args[i] = b.Input("a", s, testPos)
	}
	in, err := b.FinishIntegrand(body(b, x, xc, args), testPos)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// integProgram builds the program whose log joint is ∫_lo^hi f with the
// bounds inputs where boundIn (finite) and the arguments inputs (a scalar
// each); its latent vector is the input bounds', then the arguments'.
func integProgram(t testing.TB, in *Integrand, lo, hi float64, boundIn [2]bool, rel float64, args []float64) (*Program, []float64, error) {
	t.Helper()
	b := NewBuilder()
	var x []float64
	var lims [2]Limit
	for k, v := range [2]float64{lo, hi} {
		switch {
		case math.IsInf(v, 0):
			lims[k].Inf = int(math.Copysign(1, v))
		case boundIn[k]:
			lims[k].X = b.Input("bound", Scalar(), testPos)
			x = append(x, v)
		default:
			lims[k].X = b.Scalar(v, testPos)
		}
	}
	ids := make([]ID, len(args))
	for i, v := range args {
		ids[i] = b.Input("theta", Scalar(), testPos)
		x = append(x, v)
	}
	out := b.Integrate(in, lims[0], lims[1], rel, ids, "f", testPos)
	p, err := b.Finish(out)
	return p, x, err
}

func powBody(b *Builder, x, xc ID, a []ID) ID {
	return b.Pow(x, b.Sub(a[0], b.Scalar(1, testPos), testPos), testPos)
}

// integCase is an integral with its value and partials (in the input
// bounds, then the arguments) from a closed form or mpmath.
type integCase struct {
	name    string
	body    func(b *Builder, x, xc ID, a []ID) ID
	lo, hi  float64
	boundIn [2]bool
	args    []float64
	want    float64
	grad    []float64
}

func integCases() []integCase {
	sqrt2pi := math.Sqrt(2 * math.Pi)
	var cs []integCase
	// ∫₀¹ x^(θ−1) = 1/θ, singular at 0 for θ < 1: the nodes there are
	// the distances to 0, exact.
	for _, th := range []float64{0.3, 0.5, 2.5} {
		cs = append(cs, integCase{name: "power", body: powBody, lo: 0, hi: 1, args: []float64{th}, want: 1 / th, grad: []float64{-1 / (th * th)}})
	}
	// ∫₀¹ (x(1 − x))^(θ−1) = B(θ, θ), written as (d(1 − d))^(θ−1) with d =
	// |xc| the distance to the nearer bound: singular at both ends, where
	// near 1 only xc keeps the distance's digits (mpmath).
	for _, c := range [][3]float64{{0.4, 4.22616920317172874399777846939, -13.4931099887905762992148292561}, {0.5, math.Pi, -8.71034436121440852200275559295}} {
		cs = append(cs, integCase{name: "xc", lo: 0, hi: 1, args: []float64{c[0]}, want: c[1], grad: []float64{c[2]},
			body: func(b *Builder, x, xc ID, a []ID) ID {
				d := b.Abs(xc, testPos)
				return b.Pow(b.Mul(d, b.Sub(b.Scalar(1, testPos), d, testPos), testPos), b.Sub(a[0], b.Scalar(1, testPos), testPos), testPos)
			}})
	}
	// ∫₀^∞ exp(−θx) = 1/θ; ∫ exp(−x²/(2θ²)) = θ√(2π)
	for _, th := range []float64{0.2, 1, 7} {
		cs = append(cs, integCase{name: "exp", lo: 0, hi: math.Inf(1), args: []float64{th}, want: 1 / th, grad: []float64{-1 / (th * th)},
			body: func(b *Builder, x, xc ID, a []ID) ID { return b.Exp(b.Neg(b.Mul(a[0], x, testPos), testPos), testPos) }})
		cs = append(cs, integCase{name: "gauss", lo: math.Inf(-1), hi: math.Inf(1), args: []float64{th}, want: th * sqrt2pi, grad: []float64{sqrt2pi},
			body: func(b *Builder, x, xc ID, a []ID) ID {
				return b.Exp(b.Neg(b.Div(b.Square(x, testPos), b.Mul(b.Scalar(2, testPos), b.Square(a[0], testPos), testPos), testPos), testPos), testPos)
			}})
	}
	// ∫₀^B x² exp(−kx), B an input: ∂/∂B = B² exp(−kB) (mpmath)
	cs = append(cs, integCase{name: "upper", lo: 0, hi: 2.7, boundIn: [2]bool{false, true}, args: []float64{1.3},
		want: 0.619934845800886997247361187132, grad: []float64{2.7 * 2.7 * math.Exp(-1.3*2.7), -0.977956592723569522049798129836},
		body: func(b *Builder, x, xc ID, a []ID) ID {
			return b.Mul(b.Square(x, testPos), b.Exp(b.Neg(b.Mul(a[0], x, testPos), testPos), testPos), testPos)
		}})
	// ∫_{-1}^{2} exp(θx)/(1 + x²): split at 0, both bounds inputs (mpmath)
	ratio := func(b *Builder, x, xc ID, a []ID) ID {
		return b.Div(b.Exp(b.Mul(a[0], x, testPos), testPos), b.Add(b.Scalar(1, testPos), b.Square(x, testPos), testPos), testPos)
	}
	cs = append(cs, integCase{name: "cross", lo: -1, hi: 2, boundIn: [2]bool{true, true}, args: []float64{0.7}, body: ratio,
		want: 2.56777954638208136356598807909, grad: []float64{-math.Exp(-0.7) / 2, math.Exp(1.4) / 5, 1.63203078805637457118238857501}})
	cs = append(cs, integCase{name: "left", lo: math.Inf(-1), hi: 1, boundIn: [2]bool{false, true}, args: []float64{1.5}, body: ratio,
		want: 2.15230076726104121383848161344, grad: []float64{math.Exp(1.5) / 2, math.NaN()}})
	// ∫_{-∞}^{-1} exp(1.5x) = exp(−1.5)/1.5
	cs = append(cs, integCase{name: "left-neg", lo: math.Inf(-1), hi: -1, args: []float64{1.5},
		want: math.Exp(-1.5) / 1.5, grad: []float64{-math.Exp(-1.5) * (1/1.5 + 1/(1.5*1.5))},
		body: func(b *Builder, x, xc ID, a []ID) ID { return b.Exp(b.Mul(a[0], x, testPos), testPos) }})
	// ∫_{-2}^{∞} exp(−x²/2) inv_logit(θx), θ = 1 (mpmath)
	cs = append(cs, integCase{name: "right-cross", lo: -2, hi: math.Inf(1), args: []float64{1},
		want: 1.24826389657132384177015916873, grad: []float64{math.NaN()},
		body: func(b *Builder, x, xc ID, a []ID) ID {
			return b.Mul(b.Exp(b.Neg(b.Div(b.Square(x, testPos), b.Scalar(2, testPos), testPos), testPos), testPos), b.InvLogit(b.Mul(a[0], x, testPos), testPos), testPos)
		}})
	return cs
}

// TestIntegrateValues checks values and partials against closed forms and
// mpmath (a NaN partial is checked by TestIntegrateGradFD only).
func TestIntegrateValues(t *testing.T) {
	for _, c := range integCases() {
		in := integrandOf(t, []Shape{Scalar()}, c.body)
		p, x, err := integProgram(t, in, c.lo, c.hi, c.boundIn, 0, c.args)
		if err != nil {
			t.Fatal(err)
		}
		g := make([]float64, p.Dim())
		v, err := p.LogJoint(x, g)
		if err != nil {
			t.Fatalf("%s %v: %v", c.name, c.args, err)
		}
		if d := math.Abs(v-c.want) / math.Abs(c.want); !(d <= integValueTol) {
			t.Errorf("%s %v: %.17g, want %.17g (rel %.2g)", c.name, c.args, v, c.want, d)
		}
		for i, w := range c.grad {
			if math.IsNaN(w) {
				continue
			}
			if d := math.Abs(g[i]-w) / max(math.Abs(w), 1e-300); !(d <= integGradTol) {
				t.Errorf("%s %v: grad[%d] = %.17g, want %.17g (rel %.2g)", c.name, c.args, i, g[i], w, d)
			}
		}
	}
}

// TestIntegrateGradFD checks every case's gradient against central
// differences of the integral.
func TestIntegrateGradFD(t *testing.T) {
	for _, c := range integCases() {
		in := integrandOf(t, []Shape{Scalar()}, c.body)
		p, x, err := integProgram(t, in, c.lo, c.hi, c.boundIn, 1e-12, c.args)
		if err != nil {
			t.Fatal(err)
		}
		checkGradFD(t, p, x, 1e-5, c.name)
	}
}

// TestIntegrateTolerance checks that a looser relative_tolerance gives a
// value within it, with fewer levels than the default.
func TestIntegrateTolerance(t *testing.T) {
	in := integrandOf(t, []Shape{Scalar()}, powBody)
	for _, rel := range []float64{1e-4, 1e-6, 1e-12} {
		p, x, err := integProgram(t, in, 0, 1, [2]bool{}, rel, []float64{0.3})
		if err != nil {
			t.Fatal(err)
		}
		v, err := p.Forward(x)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(v-1/0.3) * 0.3; !(d <= rel) {
			t.Errorf("rel %g: %.17g, off by %.2g", rel, v, d)
		}
	}
}

// TestIntegrateErrors checks the errors: a non-finite integrand (named
// with x), a domain error in its body, no convergence, a > b, and xc read
// on an infinite interval.
func TestIntegrateErrors(t *testing.T) {
	in := integrandOf(t, []Shape{Scalar()}, powBody)
	for _, c := range []struct {
		lo, hi float64
		th     float64
		want   string
	}{
		{0, 1, -0.5, "pow: result is +Inf (arguments 6.12827e-276 and -1.5) (in the integrand f of integrate_1d at test.gpp:1:1, at x = 6.1282690682929545e-276, xc = -6.1282690682929545e-276)"}, // x^(−1.5) overflows by the bound
		{-1, 1, 0.5, "pow: negative base -0.5 with non-integer exponent -0.5 (in the integrand f of integrate_1d at test.gpp:1:1, at x = -0.5, xc = 0.5)"},
		{2, 1, 1, "integrate_1d: the lower bound a = 2 is greater than the upper bound b = 1"},
	} {
		p, x, err := integProgram(t, in, c.lo, c.hi, [2]bool{}, 0, []float64{c.th})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Forward(x)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "test.gpp:1:1: ") {
			t.Errorf("[%g, %g], θ = %g: %v; want %q", c.lo, c.hi, c.th, err, c.want)
		}
	}
	// sin(1/x) oscillates without end near 0: no convergence
	osc := integrandOf(t, []Shape{Scalar()}, func(b *Builder, x, xc ID, a []ID) ID {
		return b.Unary(OpSin, b.Div(a[0], x, testPos), testPos)
	})
	p, x, err := integProgram(t, osc, 0, 1, [2]bool{}, 0, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Forward(x); err == nil || !strings.Contains(err.Error(), "integrate_1d: the integral over [0, 1] did not converge to relative_tolerance 1.49e-08 in 10 levels") {
		t.Errorf("sin(1/x): %v", err)
	}
	// xc is NaN on an infinite interval: refused when the op is built
	xcf := integrandOf(t, []Shape{Scalar()}, func(b *Builder, x, xc ID, a []ID) ID { return b.Mul(xc, a[0], testPos) })
	if _, _, err := integProgram(t, xcf, 0, math.Inf(1), [2]bool{}, 0, []float64{1}); err == nil || !strings.Contains(err.Error(), "reads xc, which is NaN when a bound is infinite") {
		t.Errorf("xc on [0, ∞): %v", err)
	}
}

// TestIntegrateZeroAllocs checks that a steady-state value and gradient
// allocate nothing and that a clone gives the same numbers.
func TestIntegrateZeroAllocs(t *testing.T) {
	for _, c := range integCases()[:8] {
		in := integrandOf(t, []Shape{Scalar()}, c.body)
		p, x, err := integProgram(t, in, c.lo, c.hi, c.boundIn, 0, c.args)
		if err != nil {
			t.Fatal(err)
		}
		checkZeroAllocsClone(t, p, x, 5)
	}
}

// BenchmarkIntegrateBeta is one value and gradient of B(a, b) as the
// integral of its kernel, (1 − x) from xc near 1, at a = 1.3, b = 0.8.
func BenchmarkIntegrateBeta(b *testing.B) {
	in := integrandOf(b, []Shape{Scalar(), Scalar()}, func(bd *Builder, x, xc ID, a []ID) ID {
		one := bd.Scalar(1, testPos)
		right := bd.Logical(OpGe, xc, bd.Scalar(0, testPos), testPos)
		d := bd.Add(bd.Mul(right, xc, testPos), bd.Mul(bd.Sub(one, right, testPos), bd.Sub(one, x, testPos), testPos), testPos)
		return bd.Mul(bd.Pow(x, bd.Sub(a[0], one, testPos), testPos), bd.Pow(d, bd.Sub(a[1], one, testPos), testPos), testPos)
	})
	p, x, err := integProgram(b, in, 0, 1, [2]bool{}, 0, []float64{1.3, 0.8})
	if err != nil {
		b.Fatal(err)
	}
	g := make([]float64, p.Dim())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.LogJoint(x, g); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(p.integs[0].evals)/float64(b.N), "evals/op")
}

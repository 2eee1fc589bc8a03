package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// hoistLayouts are densities of dist's families with hoisted kernels, over
// value and argument shapes of a regression (a mean per element, one
// scale), and shapes where the scale changes along an axis, which the
// node must leave to the kernel. hoisted says which.
var hoistLayouts = []struct {
	name    string
	family  string
	hoisted bool
	args    func(r *rand.Rand) []arg
}{
	{"normal/mean-per-element", "Normal", true, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{data(Vector(n), real), in(Vector(n), real), in(Scalar(), pos)}
	}},
	{"normal/matrix-data-scale", "Normal", true, func(r *rand.Rand) []arg {
		n, m, _ := dims(r)
		return []arg{in(Matrix(n, m), real), in(Matrix(n, m), real), data(Scalar(), pos)}
	}},
	{"normal/scale-per-row", "Normal", false, func(r *rand.Rand) []arg {
		n, m, _ := dims(r)
		return []arg{in(Matrix(n, m), real), in(Matrix(n, m), real), in(Vector(n), pos)}
	}},
	{"lognormal/mean-per-element", "LogNormal", true, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{data(Vector(n), pos), in(Vector(n), real), in(Scalar(), pos)}
	}},
	{"cauchy/mean-per-element", "Cauchy", true, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{in(Vector(n), real), in(Vector(n), real), in(Scalar(), pos)}
	}},
	{"laplace/mean-per-element", "Laplace", true, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{in(Vector(n), real), in(Vector(n), real), in(Scalar(), pos)}
	}},
	{"halfnormal/scalar-scale", "HalfNormal", true, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{in(Vector(n), pos), in(Scalar(), pos)}
	}},
	{"halfcauchy/scalar-scale", "HalfCauchy", true, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{in(Vector(n), pos), in(Scalar(), pos)}
	}},
	{"studentt/mean-per-element", "StudentT", true, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{in(Vector(n), real), in(Scalar(), pos), in(Vector(n), real), in(Scalar(), pos)}
	}},
	{"gamma/rate-per-element", "Gamma", true, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{data(Vector(n), pos), in(Scalar(), pos), in(Vector(n), pos)}
	}},
	{"gamma/shape-per-element", "Gamma", false, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{in(Vector(n), pos), in(Vector(n), pos), in(Scalar(), pos)}
	}},
	{"studentt/nu-per-element", "StudentT", false, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{in(Vector(n), real), in(Vector(n), pos), in(Vector(n), real), in(Scalar(), pos)}
	}},
	{"exponential/scalar-rate", "Exponential", true, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{in(Vector(n), pos), in(Scalar(), pos)}
	}},
	{"exponential/rate-per-element", "Exponential", false, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{data(Vector(n), pos), in(Vector(n), pos)}
	}},
	{"invgamma/scale-per-element", "InvGamma", true, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{data(Vector(n), pos), in(Scalar(), pos), in(Vector(n), pos)}
	}},
	{"invgamma/scalar-prior", "InvGamma", true, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{in(Vector(n), pos), in(Scalar(), pos), in(Scalar(), pos)}
	}},
	{"invgamma/shape-per-element", "InvGamma", false, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{in(Vector(n), pos), in(Vector(n), pos), in(Scalar(), pos)}
	}},
	{"beta/scalar-shapes", "Beta", true, func(r *rand.Rand) []arg {
		n, m, _ := dims(r)
		return []arg{in(Matrix(n, m), prob), in(Scalar(), pos), in(Scalar(), pos)}
	}},
	{"beta/mean-precision", "Beta", false, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{data(Vector(n), prob), in(Vector(n), pos), in(Vector(n), pos)}
	}},
	{"beta/b-per-element", "Beta", false, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{data(Vector(n), prob), in(Scalar(), pos), in(Vector(n), pos)}
	}},
	{"betaproportion/mean-per-element", "BetaProportion", true, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{data(Vector(n), prob), in(Vector(n), prob), in(Scalar(), pos)}
	}},
	{"betaproportion/matrix-param-data-kappa", "BetaProportion", true, func(r *rand.Rand) []arg {
		n, m, _ := dims(r)
		return []arg{in(Matrix(n, m), prob), in(Matrix(n, m), prob), data(Scalar(), pos)}
	}},
	{"betaproportion/kappa-per-element", "BetaProportion", false, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{data(Vector(n), prob), in(Scalar(), prob), in(Vector(n), pos)}
	}},
	{"negbinomial/mean-per-element", "NegBinomial", true, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{data(Vector(n), count), in(Vector(n), pos), in(Scalar(), pos)}
	}},
	{"negbinomial/phi-per-element", "NegBinomial", false, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{data(Vector(n), count), in(Scalar(), pos), in(Vector(n), pos)}
	}},
	{"negbinomiallog/eta-per-element", "NegBinomialLog", true, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{data(Vector(n), count), in(Vector(n), real), in(Scalar(), pos)}
	}},
	{"negbinomiallog/phi-per-element", "NegBinomialLog", false, func(r *rand.Rand) []arg {
		n, _, _ := dims(r)
		return []arg{data(Vector(n), count), in(Scalar(), real), in(Vector(n), pos)}
	}},
}

func hoistedFamily(t testing.TB, name string) dist.Univariate {
	u, ok := dist.LookupUnivariate(name)
	if !ok || u.Hoisted == nil {
		t.Fatalf("dist has no hoisted %s", name)
	}
	return *u
}

// Gradients of hoisted densities and log densities against finite
// differences.
func TestGradDensityHoisted(t *testing.T) {
	var cases []gradCase
	for _, l := range hoistLayouts {
		u := hoistedFamily(t, l.family)
		cases = append(cases,
			gradCase{name: "density/" + l.name, args: l.args, build: func(b *Builder, x []ID) ID {
				return b.Density(u, x[0], x[1:], testPos)
			}},
			gradCase{name: "logpdf/" + l.name, args: l.args, build: func(b *Builder, x []ID) ID {
				return b.Sum(b.LogPDF(u, x[0], x[1:], testPos), testPos)
			}})
	}
	runCases(t, cases)
}

// buildHoistCase builds a density (or a summed log density) of u over the
// layout's operands, drawn from seed, and returns its program, the node
// and the inputs.
func buildHoistCase(t testing.TB, u dist.Univariate, args []arg, logpdf bool, seed uint64) (*Program, ID, []float64) {
	r := rand.New(rand.NewPCG(seed, 6))
	b := NewBuilder()
	ids := make([]ID, len(args))
	var x []float64
	for i, a := range args {
		v := randValues(r, a)
		if a.data {
			ids[i] = b.Const(v, a.shape, testPos)
		} else {
			ids[i] = b.Input(fmt.Sprint("x", i), a.shape, testPos)
			x = append(x, v...)
		}
	}
	var d, root ID
	if logpdf {
		d = b.LogPDF(u, ids[0], ids[1:], testPos)
		root = b.Sum(d, testPos)
	} else {
		d = b.Density(u, ids[0], ids[1:], testPos)
		root = d
	}
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	return p, d, x
}

// A hoisted density is taken where its hoisted arguments are scalars and
// nowhere else, and gives the kernel path's value and gradient bit for bit.
func TestDensityHoistedMatchesKernel(t *testing.T) {
	for _, l := range hoistLayouts {
		for _, logpdf := range []bool{false, true} {
			u := hoistedFamily(t, l.family)
			plain := u
			plain.Hoisted = nil
			args := l.args(rand.New(rand.NewPCG(3, 4)))
			ph, dh, x := buildHoistCase(t, u, args, logpdf, 5)
			pk, _, _ := buildHoistCase(t, plain, args, logpdf, 5)
			name := fmt.Sprintf("%s (logpdf %v)", l.name, logpdf)
			if got := ph.nodes[ph.index(dh)].hoist != nil; got != l.hoisted {
				t.Errorf("%s: hoisted %v, want %v", name, got, l.hoisted)
			}
			g1, g2 := make([]float64, len(x)), make([]float64, len(x))
			v1, err1 := pk.LogJoint(x, g1)
			v2, err2 := ph.LogJoint(x, g2)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %v, %v", name, err1, err2)
			}
			if v1 != v2 {
				t.Errorf("%s: hoisted %.17g, kernel %.17g", name, v2, v1)
			}
			for i := range g1 {
				if g1[i] != g2[i] {
					t.Errorf("%s: grad[%d] hoisted %.17g, kernel %.17g", name, i, g2[i], g1[i])
				}
			}
		}
	}
}

// An invalid hoisted argument, or an invalid argument of one element,
// stops the evaluation with the kernel path's error.
func TestDensityHoistedErrors(t *testing.T) {
	u := hoistedFamily(t, "Normal")
	plain := u
	plain.Hoisted = nil
	build := func(u dist.Univariate) *Program {
		b := NewBuilder()
		y := b.Const([]float64{1, 2}, Vector(2), testPos)
		mu := b.Input("mu", Vector(2), testPos)
		sigma := b.Input("sigma", Scalar(), testPos)
		p, err := b.Finish(b.Density(u, y, []ID{mu, sigma}, testPos))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, x := range [][]float64{{0, 1, -1}, {0, math.NaN(), 1}, {math.Inf(1), 0, 1}, {0, 1, math.Inf(1)}, {0, 1, 0}} {
		ph, pk := build(u), build(plain)
		_, e1 := pk.Forward(x)
		_, e2 := ph.Forward(x)
		if e1 == nil || e2 == nil || e1.Error() != e2.Error() {
			t.Errorf("inputs %v: hoisted error %v, kernel error %v", x, e2, e1)
		}
	}
}

// A hoisted density allocates nothing per evaluation.
func TestDensityHoistedZeroAllocs(t *testing.T) {
	u := hoistedFamily(t, "StudentT")
	args := []arg{data(Vector(50), real), in(Scalar(), pos), in(Vector(50), real), in(Scalar(), pos)}
	p, d, x := buildHoistCase(t, u, args, false, 7)
	if p.nodes[p.index(d)].hoist == nil {
		t.Fatal("the density is not hoisted")
	}
	wantZeroAllocs(t, p, x)
}

// BenchmarkDensityHoisted times Forward+Backward of a regression's
// likelihood over 10⁴ observations, a mean (or a rate, or a scale) per
// observation and the other arguments scalars (Beta, Exponential: every
// argument a scalar), with the hoisted kernel and with the
// family's plain kernel (the tape before hoisting); Beta-per-element is a
// beta regression in Beta's shapes, Beta(mu .* kappa, (1 - mu) .* kappa),
// which has nothing to hoist (BetaProportion's before).
func BenchmarkDensityHoisted(b *testing.B) {
	const n = 10000
	for _, c := range []struct {
		family string
		args   []arg
	}{
		{"Normal", []arg{data(Vector(n), real), in(Vector(n), real), in(Scalar(), pos)}},
		{"StudentT", []arg{data(Vector(n), real), in(Scalar(), pos), in(Vector(n), real), in(Scalar(), pos)}},
		{"Gamma", []arg{data(Vector(n), pos), in(Scalar(), pos), in(Vector(n), pos)}},
		{"InvGamma", []arg{data(Vector(n), pos), in(Scalar(), pos), in(Vector(n), pos)}},
		{"Beta", []arg{data(Vector(n), prob), in(Scalar(), pos), in(Scalar(), pos)}},
		// a beta regression: a precision below 3 (shapes below 2) and from
		// 5 to 50 (shapes mostly above 2, Loader's form); written with
		// Beta's shapes per observation (Beta-per-element, made from the
		// same means and precision) it is never hoisted, both paths the
		// kernel's
		{"BetaProportion", []arg{data(Vector(n), prob), in(Vector(n), prob), in(Scalar(), pos)}},
		{"BetaProportion", []arg{data(Vector(n), prob), in(Vector(n), prob), in(Scalar(), prec)}},
		{"Beta", []arg{data(Vector(n), prob), in(Vector(n), prob), in(Scalar(), pos)}},
		{"Beta", []arg{data(Vector(n), prob), in(Vector(n), prob), in(Scalar(), prec)}},
		{"NegBinomial", []arg{data(Vector(n), count), in(Vector(n), pos), in(Scalar(), pos)}},
		{"NegBinomialLog", []arg{data(Vector(n), count), in(Vector(n), real), in(Scalar(), pos)}},
		{"Exponential", []arg{data(Vector(n), pos), in(Scalar(), pos)}},
		{"Cauchy", []arg{data(Vector(n), real), in(Vector(n), real), in(Scalar(), pos)}},
		{"Laplace", []arg{data(Vector(n), real), in(Vector(n), real), in(Scalar(), pos)}},
		{"HalfNormal", []arg{data(Vector(n), pos), in(Scalar(), pos)}},
		{"HalfCauchy", []arg{data(Vector(n), pos), in(Scalar(), pos)}},
	} {
		for _, hoist := range []bool{true, false} {
			label := c.family
			// Beta's shapes from a mean per element and a precision
			meanPrec := c.family == "Beta" && c.args[1].shape.Rank > 0
			if meanPrec {
				label = "Beta-per-element"
			}
			if c.args[len(c.args)-1].dom == prec {
				label += "-large"
			}
			name := label + "/hoisted"
			u := hoistedFamily(b, c.family)
			if !hoist {
				name, u.Hoisted = label+"/kernel", nil
			}
			b.Run(name, func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 2))
				bl := NewBuilder()
				ids := make([]ID, len(c.args))
				var x []float64
				vals := make([][]float64, len(c.args))
				for i, a := range c.args {
					vals[i] = randValues(r, a)
				}
				args := c.args
				if meanPrec { // a = mu·kappa, b = (1 − mu)·kappa
					mu, kappa := vals[1], vals[2][0]
					a, bb := make([]float64, n), make([]float64, n)
					for j, m := range mu {
						a[j], bb[j] = m*kappa, (1-m)*kappa
					}
					vals[1], vals[2] = a, bb
					args = []arg{c.args[0], in(Vector(n), pos), in(Vector(n), pos)}
				}
				for i, a := range args {
					v := vals[i]
					if a.data {
						ids[i] = bl.Const(v, a.shape, testPos)
					} else {
						ids[i] = bl.Input(fmt.Sprint("x", i), a.shape, testPos)
						x = append(x, v...)
					}
				}
				p, err := bl.Finish(bl.Density(u, ids[0], ids[1:], testPos))
				if err != nil {
					b.Fatal(err)
				}
				grad := make([]float64, len(x))
				for b.Loop() {
					if _, err := p.LogJoint(x, grad); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
			})
		}
	}
}

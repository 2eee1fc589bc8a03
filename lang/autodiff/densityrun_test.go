package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// runLayouts add to hoistLayouts the run path's geometries: long runs (a
// regression's rows, where another order of additions shows in the last
// bits), rows of a matrix against a column of means (the means' partials
// summed per row) and a row of means, and a value that is a param.
var runLayouts = []struct {
	name, family string
	args         []arg
}{
	{"normal/regression", "Normal", []arg{data(Vector(300), real), in(Vector(300), real), in(Scalar(), pos)}},
	{"normal/param-value", "Normal", []arg{in(Vector(300), real), in(Vector(300), real), in(Scalar(), pos)}},
	{"normal/data-mean", "Normal", []arg{in(Vector(300), real), data(Vector(300), real), in(Scalar(), pos)}},
	{"normal/matrix-column-mean", "Normal", []arg{data(Matrix(7, 40), real), in(Vector(7), real), in(Scalar(), pos)}},
	{"normal/matrix-row-mean", "Normal", []arg{in(Matrix(7, 40), real), in(Matrix(1, 40), real), in(Scalar(), pos)}},
	{"normal/scalar-mean", "Normal", []arg{data(Vector(300), real), in(Scalar(), real), in(Scalar(), pos)}},
	{"lognormal/regression", "LogNormal", []arg{data(Vector(300), pos), in(Vector(300), real), in(Scalar(), pos)}},
	{"studentt/regression", "StudentT", []arg{data(Vector(300), real), in(Scalar(), pos), in(Vector(300), real), in(Scalar(), pos)}},
	{"studentt/matrix-column-mean", "StudentT", []arg{in(Matrix(7, 40), real), in(Scalar(), pos), in(Vector(7), real), in(Scalar(), pos)}},
	{"gamma/regression", "Gamma", []arg{data(Vector(300), pos), in(Scalar(), pos), in(Vector(300), pos)}},
	{"lognormal/matrix-column-mean", "LogNormal", []arg{data(Matrix(7, 40), pos), in(Vector(7), real), in(Scalar(), pos)}},
	{"cauchy/regression", "Cauchy", []arg{data(Vector(300), real), in(Vector(300), real), in(Scalar(), pos)}},
	{"cauchy/matrix-column-mean", "Cauchy", []arg{in(Matrix(7, 40), real), in(Vector(7), real), in(Scalar(), pos)}},
	{"laplace/regression", "Laplace", []arg{data(Vector(300), real), in(Vector(300), real), in(Scalar(), pos)}},
	{"laplace/matrix-row-mean", "Laplace", []arg{in(Matrix(7, 40), real), in(Matrix(1, 40), real), in(Scalar(), pos)}},
	{"halfnormal/vector", "HalfNormal", []arg{in(Vector(300), pos), in(Scalar(), pos)}},
	{"halfnormal/data-matrix", "HalfNormal", []arg{data(Matrix(7, 40), pos), in(Scalar(), pos)}},
	{"halfcauchy/vector", "HalfCauchy", []arg{in(Vector(300), pos), in(Scalar(), pos)}},
	{"exponential/waiting-times", "Exponential", []arg{data(Vector(300), pos), in(Scalar(), pos)}},
	{"exponential/param-value", "Exponential", []arg{in(Matrix(7, 40), pos), in(Scalar(), pos)}},
	{"invgamma/scale-per-element", "InvGamma", []arg{data(Vector(300), pos), in(Scalar(), pos), in(Vector(300), pos)}},
	{"invgamma/matrix-column-scale", "InvGamma", []arg{in(Matrix(7, 40), pos), in(Scalar(), pos), in(Vector(7), pos)}},
	{"beta/probabilities", "Beta", []arg{in(Vector(300), prob), in(Scalar(), pos), in(Scalar(), pos)}},
	{"beta/data-large", "Beta", []arg{data(Vector(300), prob), in(Scalar(), prec), in(Scalar(), prec)}},
	{"betaproportion/regression", "BetaProportion", []arg{data(Vector(300), prob), in(Vector(300), prob), in(Scalar(), pos)}},
	{"betaproportion/regression-large", "BetaProportion", []arg{data(Vector(300), prob), in(Vector(300), prob), in(Scalar(), prec)}},
	{"betaproportion/matrix-column-mean", "BetaProportion", []arg{in(Matrix(7, 40), prob), in(Vector(7), prob), in(Scalar(), prec)}},
}

// runCase is one density of the run path's tests: its family, operands
// and whether it is a log density per element.
type runCase struct {
	name, family string
	args         []arg
	logpdf, run  bool // run: it must take the run path
}

func densityRunCases() []runCase {
	var cs []runCase
	r := rand.New(rand.NewPCG(3, 4))
	for _, l := range hoistLayouts {
		args := l.args(r)
		cs = append(cs, runCase{l.name, l.family, args, false, false}, runCase{l.name, l.family, args, true, false})
	}
	for _, l := range runLayouts {
		cs = append(cs, runCase{l.name, l.family, l.args, false, true}, runCase{l.name, l.family, l.args, true, true})
	}
	return cs
}

// perElement runs f with the run path off: every element by its Eval.
func perElement(f func()) {
	noDensityRun = true
	defer func() { noDensityRun = false }()
	f()
}

// A density on the run path (dist.HoistedRun) gives the per-element
// loop's log density and gradient bit for bit, for every family with a
// hoisted kernel and every geometry, twice in a row (the row sums of
// broadcast arguments start afresh).
func TestDensityRunMatchesElements(t *testing.T) {
	for _, c := range densityRunCases() {
		name := fmt.Sprintf("%s (logpdf %v)", c.name, c.logpdf)
		u := hoistedFamily(t, c.family)
		pr, d, x := buildHoistCase(t, u, c.args, c.logpdf, 5)
		pe, _, _ := buildHoistCase(t, u, c.args, c.logpdf, 5)
		if c.run && pr.densityRun(&pr.nodes[pr.index(d)]) == nil {
			t.Errorf("%s: not on the run path", name)
		}
		for rep := range 2 {
			g1, g2 := make([]float64, len(x)), make([]float64, len(x))
			v1, err1 := pr.LogJoint(x, g1)
			var v2 float64
			var err2 error
			perElement(func() { v2, err2 = pe.LogJoint(x, g2) })
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %v, %v", name, err1, err2)
			}
			if math.Float64bits(v1) != math.Float64bits(v2) {
				t.Errorf("%s, evaluation %d: run path %.17g, per element %.17g", name, rep, v1, v2)
			}
			for i := range g1 {
				if math.Float64bits(g1[i]) != math.Float64bits(g2[i]) {
					t.Errorf("%s, evaluation %d: grad[%d] run path %.17g, per element %.17g", name, rep, i, g1[i], g2[i])
				}
			}
		}
	}
}

// An element that the run leaves to Eval (a NaN or infinite value or
// mean, an invalid scale), first, in the middle or last of a run, gives
// the per-element loop's value and error.
func TestDensityRunErrors(t *testing.T) {
	for _, family := range []string{"Normal", "LogNormal", "Gamma", "StudentT", "Cauchy", "Laplace", "InvGamma", "Exponential", "HalfNormal", "HalfCauchy", "Beta", "BetaProportion"} {
		u := hoistedFamily(t, family)
		for _, logpdf := range []bool{false, true} {
			args := []arg{in(Vector(20), pos), in(Vector(20), real), in(Scalar(), pos)}
			switch family {
			case "Gamma", "InvGamma": // a shape, a rate or scale per element
				args = []arg{in(Vector(20), pos), in(Scalar(), pos), in(Vector(20), pos)}
			case "Exponential", "HalfNormal", "HalfCauchy": // the rate or scale is input 20
				args = []arg{in(Vector(20), pos), in(Scalar(), pos)}
			case "StudentT": // ν is input 20, the means 21 to 40
				args = []arg{in(Vector(20), pos), in(Scalar(), pos), in(Vector(20), real), in(Scalar(), pos)}
			case "Beta": // a is input 20, b input 21; values outside (0, 1) (−2, ±Inf) are errors
				args = []arg{in(Vector(20), prob), in(Scalar(), pos), in(Scalar(), pos)}
			case "BetaProportion": // the means 20 to 39 (−1e308, +Inf out of (0, 1)), κ input 40
				args = []arg{in(Vector(20), prob), in(Vector(20), prob), in(Scalar(), pos)}
			}
			pr, _, x := buildHoistCase(t, u, args, logpdf, 9)
			pe, _, _ := buildHoistCase(t, u, args, logpdf, 9)
			for _, bad := range []struct {
				at int
				v  float64
			}{{0, math.NaN()}, {7, math.Inf(1)}, {19, math.Inf(-1)}, {20, math.NaN()}, {33, math.Inf(1)}, {39, -1e308}, {40, -1}, {40, 0}, {40, math.NaN()}, {5, -2}} {
				if bad.at >= len(x) {
					continue
				}
				xb := append([]float64(nil), x...)
				xb[bad.at] = bad.v
				v1, err1 := pr.Forward(xb)
				var v2 float64
				var err2 error
				perElement(func() { v2, err2 = pe.Forward(xb) })
				what := fmt.Sprintf("%s (logpdf %v), input %d = %g", family, logpdf, bad.at, bad.v)
				if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
					t.Errorf("%s: run path error %v, per element %v", what, err1, err2)
				}
				if math.Float64bits(v1) != math.Float64bits(v2) {
					t.Errorf("%s: run path %v, per element %v", what, v1, v2)
				}
				if err1 == nil {
					continue
				}
				g := make([]float64, len(x)) // a good point after a bad one
				v1, err1 = pr.LogJoint(x, g)
				v2, err2 = pe.LogJoint(x, make([]float64, len(x)))
				if err1 != nil || err2 != nil || v1 != v2 {
					t.Errorf("%s, then a good point: %v (%v), %v (%v)", what, v1, err1, v2, err2)
				}
			}
		}
	}
}

// The run path allocates nothing per evaluation.
func TestDensityRunZeroAllocs(t *testing.T) {
	u := hoistedFamily(t, "Normal")
	args := []arg{data(Matrix(7, 40), real), in(Vector(7), real), in(Scalar(), pos)}
	p, d, x := buildHoistCase(t, u, args, false, 7)
	if p.densityRun(&p.nodes[p.index(d)]) == nil {
		t.Fatal("the density is not on the run path")
	}
	wantZeroAllocs(t, p, x)
}

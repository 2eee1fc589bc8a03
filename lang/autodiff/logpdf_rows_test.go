package autodiff

import (
	"math"
	"testing"
)

// sumUnless returns terms whole for a per-observation node, else their sum
// in one element: the reference value of a case either way.
func sumUnless(perObs bool, terms []float64) []float64 {
	if perObs {
		return terms
	}
	s := 0.0
	for _, t := range terms {
		s += t
	}
	return []float64{s}
}

// softmaxRows returns the softmax of each row of k elements of eta.
func softmaxRows(eta []float64, k int) []float64 {
	p := make([]float64, len(eta))
	for r := 0; r < len(eta); r += k {
		z := 0.0
		for _, e := range eta[r : r+k] {
			z += math.Exp(e)
		}
		for j, e := range eta[r : r+k] {
			p[r+j] = math.Exp(e) / z
		}
	}
	return p
}

func perObsSuffix(perObs bool) string {
	if perObs {
		return "/logpdf"
	}
	return ""
}

// sumTol bounds |sum(logpdf) − the density| relative to the density's
// magnitude where the two sum in different orders: CategoricalLogit
// subtracts a shared row's normaliser once, n times over, and Multinomial
// keeps one running sum across the rows. A few roundings of terms of the
// size of the total, so a few ulps of it.
const sumTol = 1e-14

// The terms of each per-observation node sum to its density's node: bit
// for bit where the density adds the same terms in order (Categorical on
// probabilities, OrderedLogistic and OrderedProbit), within sumTol where
// it groups them otherwise.
func TestLogPDFRowsSumToDensity(t *testing.T) {
	y := []float64{0, 2, 1, 2, 2, 0}
	counts := []float64{3, 0, 5, 1, 1, 1, 0, 0, 7, 2, 2, 2}
	thetaV := []float64{0.2, 0.3, 0.5}
	etaM := []float64{0.3, -1.2, 2.5, 1, 0, -1, 4, 4.5, -3, 0.1, 0.2, 0.3, -2, 1, 1, 0.7, 0.1, -0.4}
	for _, c := range []struct {
		name  string
		exact bool
		build func(b *Builder, perObs bool) ID
	}{
		{"Categorical/shared", true, func(b *Builder, per bool) ID {
			theta := b.Const(thetaV, Vector(3), testPos)
			if per {
				return b.CategoricalLogPDF(b.Const(y, Vector(6), testPos), theta, false, testPos)
			}
			return b.Categorical(b.Const(y, Vector(6), testPos), theta, false, testPos)
		}},
		{"Categorical/rows", true, func(b *Builder, per bool) ID {
			theta := b.Const(softmaxRows(etaM, 3), Matrix(6, 3), testPos)
			if per {
				return b.CategoricalLogPDF(b.Const(y, Vector(6), testPos), theta, false, testPos)
			}
			return b.Categorical(b.Const(y, Vector(6), testPos), theta, false, testPos)
		}},
		{"CategoricalLogit/shared", false, func(b *Builder, per bool) ID {
			eta := b.Const(etaM[:3], Vector(3), testPos)
			if per {
				return b.CategoricalLogPDF(b.Const(y, Vector(6), testPos), eta, true, testPos)
			}
			return b.Categorical(b.Const(y, Vector(6), testPos), eta, true, testPos)
		}},
		{"CategoricalLogit/rows", false, func(b *Builder, per bool) ID {
			eta := b.Const(etaM, Matrix(6, 3), testPos)
			if per {
				return b.CategoricalLogPDF(b.Const(y, Vector(6), testPos), eta, true, testPos)
			}
			return b.Categorical(b.Const(y, Vector(6), testPos), eta, true, testPos)
		}},
		{"Multinomial/shared", false, func(b *Builder, per bool) ID {
			theta := b.Const(thetaV, Vector(3), testPos)
			if per {
				return b.MultinomialLogPDF(b.Const(counts, Matrix(4, 3), testPos), theta, false, testPos)
			}
			return b.Multinomial(b.Const(counts, Matrix(4, 3), testPos), theta, false, testPos)
		}},
		{"MultinomialLogit/rows", false, func(b *Builder, per bool) ID {
			eta := b.Const(etaM[:12], Matrix(4, 3), testPos)
			if per {
				return b.MultinomialLogPDF(b.Const(counts, Matrix(4, 3), testPos), eta, true, testPos)
			}
			return b.Multinomial(b.Const(counts, Matrix(4, 3), testPos), eta, true, testPos)
		}},
		{"OrderedLogistic", true, func(b *Builder, per bool) ID {
			eta, c := b.Const(etaM[:6], Vector(6), testPos), b.Const([]float64{-1, 0.5}, Vector(2), testPos)
			if per {
				return b.OrderedLogPDF(b.Const(y, Vector(6), testPos), eta, c, false, testPos)
			}
			return b.OrderedLogistic(b.Const(y, Vector(6), testPos), eta, c, false, testPos)
		}},
		{"OrderedProbit", true, func(b *Builder, per bool) ID {
			eta, c := b.Const(etaM[6:12], Vector(6), testPos), b.Const([]float64{-1, 0.5}, Vector(2), testPos)
			if per {
				return b.OrderedLogPDF(b.Const(y, Vector(6), testPos), eta, c, true, testPos)
			}
			return b.OrderedLogistic(b.Const(y, Vector(6), testPos), eta, c, true, testPos)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := NewBuilder()
			x := b.Input("x", Scalar(), testPos) // a root that depends on an input
			terms := c.build(b, true)
			sum := b.Sum(terms, testPos)
			dens := c.build(b, false)
			p, err := b.Finish(b.Add(x, b.Add(sum, dens, testPos), testPos))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Forward([]float64{0}); err != nil {
				t.Fatal(err)
			}
			got, want := p.Value(sum)[0], p.Value(dens)[0]
			if n := len(p.Value(terms)); n < 4 {
				t.Fatalf("%d terms, want one per observation", n)
			}
			if c.exact && got != want {
				t.Errorf("sum of the terms %.17g, density %.17g: want them equal", got, want)
			}
			if d := math.Abs(got - want); d > sumTol*math.Abs(want) {
				t.Errorf("sum of the terms %.17g, density %.17g (diff %.3g)", got, want, d)
			}
		})
	}
}

// A steady-state evaluation of each per-observation node, its adjoint
// a vector, makes no allocations.
func TestLogPDFRowsZeroAllocs(t *testing.T) {
	b := NewBuilder()
	y := b.Const([]float64{0, 2, 1, 2}, Vector(4), testPos)
	counts := b.Const([]float64{1, 0, 2, 3, 1, 1, 0, 0, 4, 2, 2, 0}, Matrix(4, 3), testPos)
	theta := b.Exp(b.Input("log_theta", Vector(3), testPos), testPos)
	eta := b.Input("eta", Matrix(4, 3), testPos)
	lin := b.Input("lin", Vector(4), testPos)
	c := b.Ordered(b.Input("c", Vector(2), testPos), testPos)
	w := b.Const([]float64{0.5, -1, 2, 0.25}, Vector(4), testPos) // adjoints that differ per observation
	terms := []ID{
		b.CategoricalLogPDF(y, theta, false, testPos), b.CategoricalLogPDF(y, eta, true, testPos),
		b.MultinomialLogPDF(counts, theta, false, testPos), b.MultinomialLogPDF(counts, eta, true, testPos),
		b.OrderedLogPDF(y, lin, c, false, testPos), b.OrderedLogPDF(y, lin, c, true, testPos),
	}
	root := b.Scalar(0, testPos)
	for _, tm := range terms {
		root = b.Add(root, b.Sum(b.Mul(tm, w, testPos), testPos), testPos)
	}
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, p.Dim())
	for i := range x {
		x[i] = -0.1 * float64(i)
	}
	wantZeroAllocs(t, p, x)
}

// The shapes of the per-observation nodes: one term per element of a
// categorical or ordinal value, per row of a count matrix, and a scalar
// for a single observation.
func TestLogPDFRowsShapes(t *testing.T) {
	b := NewBuilder()
	eta := b.Input("eta", Vector(3), testPos)
	c := b.Const([]float64{-1, 1}, Vector(2), testPos)
	for _, tc := range []struct {
		id   ID
		want Shape
	}{
		{b.CategoricalLogPDF(b.Const([]float64{0, 1}, Vector(2), testPos), eta, true, testPos), Vector(2)},
		{b.CategoricalLogPDF(b.Const([]float64{2}, Scalar(), testPos), eta, true, testPos), Scalar()},
		{b.MultinomialLogPDF(b.Const([]float64{1, 2, 3, 0, 0, 1}, Matrix(2, 3), testPos), eta, true, testPos), Vector(2)},
		{b.MultinomialLogPDF(b.Const([]float64{1, 2, 3}, Vector(3), testPos), eta, true, testPos), Scalar()},
		{b.OrderedLogPDF(b.Const([]float64{0, 1, 2}, Vector(3), testPos), eta, c, false, testPos), Vector(3)},
	} {
		if got := b.Shape(tc.id); got != tc.want {
			t.Errorf("shape %v, want %v", got, tc.want)
		}
	}
}

// A per-observation node reports a bad element as the density does, and a
// non-finite term by its kind wherever it lies.
func TestLogPDFRowsErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		x     []float64
		build func(b *Builder) ID
		want  string
	}{
		{"category too large", []float64{0.2, 0.3, 0.5}, func(b *Builder) ID {
			y := b.Const([]float64{0, 3, 1}, Vector(3), at(1, 1))
			return b.Sum(b.CategoricalLogPDF(y, b.Input("theta", Vector(3), at(1, 1)), false, at(4, 7)), at(4, 1))
		}, "model.gpp:4:7: Categorical: value 3 is not a category 0..2 (element [1])"},
		{"zero probability at the second", []float64{0.5, 0.5, 0, 0.5, 0, 0.5}, func(b *Builder) ID {
			y := b.Const([]float64{0, 1}, Vector(2), at(1, 1))
			return b.Sum(b.CategoricalLogPDF(y, b.Input("theta", Matrix(2, 3), at(1, 1)), false, at(6, 3)), at(6, 1))
		}, "model.gpp:6:3: Categorical: theta must be in (0, 1] at an observed category (got 0, element [1, 1])"},
		{"not a count", []float64{0, 0, 0}, func(b *Builder) ID {
			y := b.Const([]float64{1, 2, 0, 1, 0.5, 0}, Matrix(2, 3), at(1, 1))
			return b.Sum(b.MultinomialLogPDF(y, b.Input("eta", Vector(3), at(1, 1)), true, at(5, 7)), at(5, 1))
		}, "model.gpp:5:7: MultinomialLogit: value 0.5 is not a count (element [1, 1])"},
		{"cutpoints out of order", []float64{1, 0}, func(b *Builder) ID {
			y := b.Const([]float64{0, 2}, Vector(2), at(1, 1))
			return b.Sum(b.OrderedLogPDF(y, b.Scalar(0, at(1, 1)), b.Input("c", Vector(2), at(1, 1)), true, at(3, 9)), at(3, 1))
		}, "model.gpp:3:9: OrderedProbit: the cutpoints must be strictly increasing: c[1] = 0 is not above c[0] = 1; declare the cutpoints ordered[2], a param kept increasing (a real vector is not)"},
	} {
		t.Run(c.name, func(t *testing.T) { wantPositioned(t, runOne(t, c.x, c.build), c.want) })
	}
}

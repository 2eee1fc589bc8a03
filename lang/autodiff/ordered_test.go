package autodiff

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// orderedRef is OpOrdered's value written from its definition.
func orderedRef(v [][]float64, _ []Shape) []float64 {
	u := v[0]
	x := make([]float64, len(u))
	for k := range u {
		if k == 0 {
			x[0] = u[0]
			continue
		}
		x[k] = x[k-1] + math.Exp(u[k])
	}
	return x
}

// orderedLogisticCase checks OrderedLogistic (or OrderedProbit) of random
// categories against finite differences and a plain-Go reference (the
// difference of CDFs), with cutpoints made by Ordered from inputs. shift
// moves eta away from the cutpoints (the far tails at 40); row passes the
// cutpoints as a row [1, K]; scalar shares one eta between observations;
// perObs builds OrderedLogPDF, a term per observation, checked term by
// term; grouped passes a matrix [n, K] of cutpoints, row i the cutpoints
// shifted by an input s_i, a row per observation.
func orderedLogisticCase(name string, probit, row, scalar, perObs bool, shift float64) gradCase {
	return orderedCase(name, probit, row, scalar, perObs, false, shift)
}

func orderedCase(name string, probit, row, scalar, perObs, grouped bool, shift float64) gradCase {
	var y []float64
	return gradCase{
		name: name,
		args: func(r *rand.Rand) []arg {
			n, k, _ := dims(r)
			y = make([]float64, n)
			for i := range y {
				y[i] = float64(r.IntN(k + 1))
			}
			es := Vector(n)
			if scalar {
				es = Scalar()
			}
			if grouped {
				return []arg{in(es, real), in(Vector(k), real), in(Matrix(n, 1), real)}
			}
			return []arg{in(es, real), in(Vector(k), real)}
		},
		build: func(b *Builder, x []ID) ID {
			c := b.Ordered(x[1], testPos)
			if row || grouped {
				c = b.Transpose(c, testPos)
			}
			if grouped {
				c = b.Add(c, x[2], testPos) // [n, K]: row i is c + s_i
			}
			eta := b.Add(x[0], b.Scalar(shift, testPos), testPos)
			if perObs {
				return b.OrderedLogPDF(b.Const(y, Vector(len(y)), testPos), eta, c, probit, testPos)
			}
			return b.OrderedLogistic(b.Const(y, Vector(len(y)), testPos), eta, c, probit, testPos)
		},
		ref: func(v [][]float64, s []Shape) []float64 {
			c0 := orderedRef(v[1:2], nil)
			terms := make([]float64, len(y))
			for i, cat := range y {
				c := slices.Clone(c0)
				if grouped {
					for k := range c {
						c[k] += v[2][i]
					}
				}
				eta := v[0][0] + shift
				if !scalar {
					eta = v[0][i] + shift
				}
				// P(y = k) = F(c_k − eta) − F(c_{k−1} − eta), in the
				// tail where the difference keeps its digits.
				F := func(x float64) float64 {
					if probit {
						return 0.5 * math.Erfc(-x/math.Sqrt2)
					}
					return 1 / (1 + math.Exp(-x))
				}
				a, b := math.Inf(-1), math.Inf(1)
				if k := int(cat); k > 0 {
					a = c[k-1] - eta
				}
				if k := int(cat); k < len(c) {
					b = c[k] - eta
				}
				if a+b > 0 {
					terms[i] = math.Log(F(-a) - F(-b))
				} else {
					terms[i] = math.Log(F(b) - F(a))
				}
			}
			return sumUnless(perObs, terms)
		},
	}
}

// orderedRowsRef is OpOrdered's value of a matrix [g, k] of coordinates,
// written from its definition: the g firsts lead (each row's exp'd when
// positive), then each row's k − 1 log increments (positive: row-major).
func orderedRowsRef(positive bool) func(v [][]float64, s []Shape) []float64 {
	return func(v [][]float64, s []Shape) []float64 {
		u, g, k := v[0], s[0].Rows, s[0].Cols
		x := make([]float64, len(u))
		for r := range g {
			for c := range k {
				switch {
				case positive:
					x[r*k+c] = math.Exp(u[r*k+c])
					if c > 0 {
						x[r*k+c] += x[r*k+c-1]
					}
				case c == 0:
					x[r*k] = u[r]
				default:
					x[r*k+c] = x[r*k+c-1] + math.Exp(u[g+r*(k-1)+c-1])
				}
			}
		}
		return x
	}
}

func TestGradOrdered(t *testing.T) {
	cases := []gradCase{{
		name:  "ordered",
		args:  func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Vector(n), real)} },
		build: func(b *Builder, x []ID) ID { return b.Ordered(x[0], testPos) },
		ref:   orderedRef,
	}, {
		name:  "ordered rows",
		args:  func(r *rand.Rand) []arg { n, k, _ := dims(r); return []arg{in(Matrix(n, k), real)} },
		build: func(b *Builder, x []ID) ID { return b.Ordered(x[0], testPos) },
		ref:   orderedRowsRef(false),
	}, {
		name:  "positive_ordered rows",
		args:  func(r *rand.Rand) []arg { n, k, _ := dims(r); return []arg{in(Matrix(n, k), real)} },
		build: func(b *Builder, x []ID) ID { return b.PositiveOrdered(x[0], testPos) },
		ref:   orderedRowsRef(true),
	}}
	for _, per := range []bool{false, true} {
		for _, probit := range []bool{false, true} {
			name := orderedName(probit) + perObsSuffix(per)
			cases = append(cases,
				orderedLogisticCase(name+"/per-observation", probit, false, false, per, 0),
				orderedLogisticCase(name+"/row", probit, true, false, per, 0),
				orderedLogisticCase(name+"/shared-eta", probit, false, true, per, 0),
				orderedCase(name+"/grouped", probit, false, false, per, true, 0),
				orderedCase(name+"/grouped-shared-eta", probit, false, true, per, true, 0),
			)
		}
		// far tails: eta 40 above and below the cutpoints (the probit's log
		// probabilities there are about −800: still finite)
		for _, shift := range []float64{40, -40} {
			cases = append(cases, orderedLogisticCase("OrderedLogistic"+perObsSuffix(per)+"/tail", false, false, false, per, shift))
		}
		cases = append(cases, orderedLogisticCase("OrderedProbit"+perObsSuffix(per)+"/tail", true, false, false, per, 30))
	}
	runCases(t, cases)
}

// The sum of two increments half an ulp of x_{k−1} apart stays above it.
func TestOrderedStrict(t *testing.T) {
	z := make([]float64, 3)
	evalOrdered(z, []float64{1e20, math.Log(1), math.Log(1e-300)}, false)
	if !(z[0] < z[1] && z[1] < z[2]) {
		t.Errorf("ordered values %v are not strictly increasing", z)
	}
}

func TestOrderedLogisticErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		x     []float64
		build func(b *Builder) ID
		want  string
	}{
		{"category too large", []float64{0, -1, 1}, func(b *Builder) ID {
			y := b.Const([]float64{0, 3, 1}, Vector(3), at(1, 1))
			return b.OrderedLogistic(y, b.Scalar(0, at(1, 1)), b.Input("c", Vector(2), at(1, 1)), false, at(4, 7))
		}, "model.gpp:4:7: OrderedLogistic: value 3 is not a category 0..2 (element [1]); K cutpoints give K+1 categories 0..K, so these 2 give 0..2: declare the cutpoints ordered[3] for categories 0..3"},
		{"1-based categories", []float64{0, -1, 1}, func(b *Builder) ID {
			y := b.Const([]float64{1, 3, 2, 3}, Vector(4), at(1, 1))
			return b.OrderedLogistic(y, b.Scalar(0, at(1, 1)), b.Input("c", Vector(2), at(1, 1)), false, at(4, 7))
		}, "model.gpp:4:7: OrderedLogistic: value 3 is not a category 0..2 (element [1]); categories are 0-based and these run from 1 to 3, as Stan's 1-based ids do: give the value minus 1 (`y - 1 ~ OrderedLogistic(eta, c)`) or 0-based categories"},
		{"fractional category", []float64{0, 1}, func(b *Builder) ID {
			y := b.Const([]float64{0.5}, Scalar(), at(1, 1))
			return b.OrderedLogistic(y, b.Scalar(0, at(1, 1)), b.Input("c", Vector(2), at(1, 1)), true, at(4, 7))
		}, "model.gpp:4:7: OrderedProbit: value 0.5 is not a category 0..2"},
		{"cutpoints not increasing", []float64{-1, 2, 2}, func(b *Builder) ID {
			y := b.Const([]float64{0, 1}, Vector(2), at(1, 1))
			return b.OrderedLogistic(y, b.Scalar(0, at(1, 1)), b.Input("c", Vector(3), at(1, 1)), false, at(5, 3))
		}, "model.gpp:5:3: OrderedLogistic: the cutpoints must be strictly increasing: c[2] = 2 is not above c[1] = 2; declare the cutpoints ordered[3], a param kept increasing (a real vector is not)"},
		{"grouped cutpoints not increasing", []float64{0, 1, 3, -1, 2, 2}, func(b *Builder) ID {
			y := b.Const([]float64{0, 1}, Vector(2), at(1, 1))
			return b.OrderedLogistic(y, b.Scalar(0, at(1, 1)), b.Input("c", Matrix(2, 3), at(1, 1)), false, at(5, 3))
		}, "model.gpp:5:3: OrderedLogistic: the cutpoints must be strictly increasing in each row: element 1's row of cutpoints has [2] = 2, not above [1] = 2; declare the cutpoints ordered[3], a param kept increasing (a real vector is not), or ordered[G, 3] for a row per group; rows built from them, as d * c', stay increasing for d > 0"},
		{"grouped cutpoints, a row per element", nil, func(b *Builder) ID {
			y := b.Const([]float64{0, 1, 2}, Vector(3), at(1, 1))
			return b.OrderedLogistic(y, b.Scalar(0, at(1, 1)), b.Input("c", Matrix(2, 3), at(1, 1)), true, at(6, 2))
		}, "model.gpp:6:2: OrderedProbit: the cutpoints must be a vector [K], a row [1, K] or a matrix [3, K] (a row per element of the value), got [2, 3]"},
	} {
		t.Run(c.name, func(t *testing.T) { wantPositioned(t, runOne(t, c.x, c.build), c.want) })
	}
}

// A steady-state evaluation of Ordered and both forms, with shared and
// grouped cutpoints, makes no allocations.
func TestOrderedZeroAllocs(t *testing.T) {
	b := NewBuilder()
	y := b.Const([]float64{0, 2, 1, 3}, Vector(4), testPos)
	c := b.Ordered(b.Input("u", Vector(3), testPos), testPos)
	eta := b.Input("eta", Vector(4), testPos)
	g := b.Add(b.Transpose(c, testPos), b.Input("s", Matrix(4, 1), testPos), testPos) // a row per element
	root := b.Add(b.OrderedLogistic(y, eta, c, false, testPos), b.OrderedLogistic(y, eta, c, true, testPos), testPos)
	root = b.Add(root, b.Add(b.OrderedLogistic(y, eta, g, false, testPos), b.OrderedLogistic(y, eta, g, true, testPos), testPos), testPos)
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

// The node's value is the sum of dist.OrderedLogProb over observations.
func TestOrderedLogisticValue(t *testing.T) {
	b := NewBuilder()
	y := b.Const([]float64{0, 1, 2}, Vector(3), testPos)
	c := b.Input("c", Vector(2), testPos)
	root := b.OrderedLogistic(y, b.Scalar(0.3, testPos), c, false, testPos)
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	cv := []float64{-0.5, 1}
	lp, err := p.Forward(cv)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for k := 0; k <= 2; k++ {
		l, _ := dist.OrderedLogProb(k, 0.3, cv, false, nil)
		want += l
	}
	if math.Abs(lp-want) > 1e-15 {
		t.Errorf("log p = %.17g, want %.17g", lp, want)
	}
}

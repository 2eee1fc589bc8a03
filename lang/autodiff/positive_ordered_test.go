package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"
)

// positiveOrderedRef is PositiveOrdered's value written from its
// definition.
func positiveOrderedRef(v [][]float64, _ []Shape) []float64 {
	u := v[0]
	x := make([]float64, len(u))
	s := 0.0
	for k := range u {
		s += math.Exp(u[k])
		x[k] = s
	}
	return x
}

func TestGradPositiveOrdered(t *testing.T) {
	runCases(t, []gradCase{{
		name:  "positive_ordered",
		args:  func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Vector(n), real)} },
		build: func(b *Builder, x []ID) ID { return b.PositiveOrdered(x[0], testPos) },
		ref:   positiveOrderedRef,
	}, {
		name: "positive_ordered/in-a-density", // as a positive_ordered param's values feed a Poisson mixture's rates
		args: func(r *rand.Rand) []arg { return []arg{in(Vector(3), real)} },
		build: func(b *Builder, x []ID) ID {
			lam := b.PositiveOrdered(x[0], testPos)
			return b.Sum(b.Mul(lam, b.Log(lam, testPos), testPos), testPos)
		},
		ref: func(v [][]float64, s []Shape) []float64 {
			x := positiveOrderedRef(v, s)
			t := 0.0
			for _, l := range x {
				t += l * math.Log(l)
			}
			return []float64{t}
		},
	}})
}

// Every value is positive and above the one before it, where exp(u_0)
// underflows and where an increment is below half an ulp.
func TestPositiveOrderedStrict(t *testing.T) {
	z := make([]float64, 3)
	evalOrdered(z, []float64{-800, 46, math.Log(1e-300)}, true)
	if !(z[0] > 0 && z[0] < z[1] && z[1] < z[2]) {
		t.Errorf("positive_ordered values %v are not positive and strictly increasing", z)
	}
}

// A steady-state evaluation of PositiveOrdered makes no allocations.
func TestPositiveOrderedZeroAllocs(t *testing.T) {
	b := NewBuilder()
	lam := b.PositiveOrdered(b.Input("u", Vector(3), testPos), testPos)
	p, err := b.Finish(b.Sum(b.Log(lam, testPos), testPos))
	if err != nil {
		t.Fatal(err)
	}
	wantZeroAllocs(t, p, []float64{0.1, -0.2, 0.3})
}

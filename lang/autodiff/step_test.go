package autodiff

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// stepRefs are the comparison and logical ops with their values on one
// pair of elements, written independently of evalLogical.
var stepRefs = []struct {
	op Op
	f  func(x, y float64) bool
}{
	{OpLt, func(x, y float64) bool { return x < y }},
	{OpLe, func(x, y float64) bool { return x <= y }},
	{OpGt, func(x, y float64) bool { return x > y }},
	{OpGe, func(x, y float64) bool { return x >= y }},
	{OpEq, func(x, y float64) bool { return x == y }},
	{OpNe, func(x, y float64) bool { return x != y }},
	{OpAnd, func(x, y float64) bool { return x != 0 && y != 0 }},
	{OpOr, func(x, y float64) bool { return x != 0 || y != 0 }},
}

func boolRef(f func(x, y float64) bool) func(x []float64) float64 {
	return func(x []float64) float64 {
		if f(x[0], x[1]) {
			return 1
		}
		return 0
	}
}

// Comparisons and logical ops over every broadcast pattern: their values
// against the references, and a gradient of zero, which the finite
// differences of a step function away from its jumps agree with (the
// random operands tie with probability 0).
func TestGradLogical(t *testing.T) {
	var cases []gradCase
	for _, o := range stepRefs {
		for _, pat := range binaryPatterns {
			cases = append(cases, gradCase{
				name:  o.op.String() + "/" + pat.name,
				args:  func(r *rand.Rand) []arg { n, m, _ := dims(r); return pat.args(n, m, real, real) },
				build: func(b *Builder, x []ID) ID { return b.Logical(o.op, x[0], x[1], testPos) },
				ref:   elementwiseRef(boolRef(o.f)),
			})
		}
	}
	cases = append(cases, gradCase{
		name:  "!",
		args:  func(r *rand.Rand) []arg { n, m, _ := dims(r); return []arg{in(Matrix(n, m), real)} },
		build: func(b *Builder, x []ID) ID { return b.Not(x[0], testPos) },
		ref:   elementwiseRef(func(x []float64) float64 { return boolRef(func(a, _ float64) bool { return a == 0 })(append(x, 0)) }),
	})
	// A step inside a smooth term: sum(w .* x .* (x > 0)) has the gradient
	// w .* (x > 0), the step's operand getting nothing through it.
	cases = append(cases, gradCase{
		name: "relu",
		args: func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Vector(n), real)} },
		build: func(b *Builder, x []ID) ID {
			return b.Mul(x[0], b.Logical(OpGt, x[0], b.Scalar(0, testPos), testPos), testPos)
		},
		ref: elementwiseRef(func(x []float64) float64 { return max(x[0], 0) }),
	})
	runCases(t, cases)
}

// The values at ties, zeros, infinities and NaN, which random operands
// never hit: IEEE 754 comparisons (false with a NaN, except !=), and &&,
// || and ! counting NaN as true (it is not 0). Known, before Finish,
// agrees with Forward.
func TestLogicalValues(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	xs := []float64{-1, 0, 0, 2, nan, nan, inf, -inf, 1}
	ys := []float64{0, 0, 3, 2, 1, nan, inf, 0, nan}
	want := map[Op][]float64{
		OpLt:  {1, 0, 1, 0, 0, 0, 0, 1, 0},
		OpLe:  {1, 1, 1, 1, 0, 0, 1, 1, 0},
		OpGt:  {0, 0, 0, 0, 0, 0, 0, 0, 0},
		OpGe:  {0, 1, 0, 1, 0, 0, 1, 0, 0},
		OpEq:  {0, 1, 0, 1, 0, 0, 1, 0, 0},
		OpNe:  {1, 0, 1, 0, 1, 1, 0, 1, 1},
		OpAnd: {0, 0, 0, 1, 1, 1, 1, 0, 1},
		OpOr:  {1, 0, 1, 1, 1, 1, 1, 1, 1},
		OpNot: {0, 1, 1, 0, 0, 0, 0, 0, 0},
	}
	n := len(xs)
	for op, w := range want {
		b := NewBuilder()
		in := b.Input("x", Vector(n), testPos)
		y := b.Const(ys, Vector(n), testPos)
		var z, known ID
		if op == OpNot {
			z = b.Not(in, testPos)
			known = b.Not(b.Const(xs, Vector(n), testPos), testPos)
		} else {
			z = b.Logical(op, in, y, testPos)
			known = b.Logical(op, b.Const(xs, Vector(n), testPos), y, testPos)
		}
		kv, ok := b.Known(known)
		if !ok || !slices.Equal(kv, w) {
			t.Errorf("%s: Known = %v, %v; want %v", op, kv, ok, w)
		}
		p, err := b.Finish(b.Scalar(0, testPos), z)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Forward(xs); err != nil {
			t.Fatal(err)
		}
		if got := p.Value(z); !slices.Equal(got, w) {
			t.Errorf("%s: %v %s %v = %v, want %v", op, xs, op, ys, got, w)
		}
	}
}

// A step node keeps its position, and refuses operands that do not
// broadcast there.
func TestLogicalShapeError(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", Vector(3), at(1, 1))
	z := b.Logical(OpLt, x, b.Const([]float64{1, 2}, Vector(2), at(2, 1)), at(7, 14))
	if b.Shape(z) != Scalar() {
		t.Errorf("placeholder shape %v", b.Shape(z))
	}
	_, err := b.Finish(b.Sum(x, at(1, 1)))
	if want := "model.gpp:7:14: <: shapes [3] and [2] do not broadcast"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	defer func() {
		if r := recover(); r != errNotLogical {
			t.Errorf("Logical(OpAdd): panic %v, want %q", r, errNotLogical)
		}
	}()
	NewBuilder().Logical(OpAdd, x, x, testPos)
}

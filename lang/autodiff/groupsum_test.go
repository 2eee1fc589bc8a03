package autodiff

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// groupSumRef sums the elements (x [n]) or rows (x [n, m], m columns) of
// x by their codes g into k groups, written from the definition.
func groupSumRef(x []float64, g []int, k, m int) []float64 {
	z := make([]float64, k*m)
	for i, c := range g {
		for j := 0; j < m; j++ {
			z[c*m+j] += x[i*m+j]
		}
	}
	return z
}

// TestGroupSumGrad checks group_sum's value against the definition and
// its gradient against finite differences: a vector and a matrix, codes
// out of order with an empty group first, in the middle and last, and
// random codes; x data too (its value only).
func TestGroupSumGrad(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 0x95))
	random := make([]int, 13)
	for i := range random {
		random[i] = r.IntN(6)
	}
	var cases []gradCase
	for _, c := range []struct {
		name string
		g    []int
		k    int
	}{
		{"fixed", []int{3, 1, 3, 1, 1, 5, 3}, 7},
		{"random", random, 6},
		{"one group", []int{0, 0, 0}, 1},
		{"no rows", nil, 3},
	} {
		g, k, n := c.g, c.k, len(c.g)
		for _, m := range []int{0, 1, 3} { // 0: x a vector
			shape, cols, name := Vector(n), 1, "group_sum/vector/"+c.name
			if m > 0 {
				shape, cols, name = Matrix(n, m), m, "group_sum/matrix"+string(rune('0'+m))+"/"+c.name
			}
			build := func(b *Builder, x []ID) ID { return b.GroupSum(x[0], g, k, testPos) }
			ref := func(v [][]float64, _ []Shape) []float64 { return groupSumRef(v[0], g, k, cols) }
			cases = append(cases,
				gradCase{name: name, args: func(*rand.Rand) []arg { return []arg{in(shape, real)} }, build: build, ref: ref},
				gradCase{name: name + "/data", args: func(*rand.Rand) []arg { return []arg{data(shape, real)} }, build: build, ref: ref})
		}
	}
	runCases(t, cases)
}

// TestGroupSumShape: a vector gives [k], a matrix [k, m], whatever the
// codes.
func TestGroupSumShape(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", Vector(4), testPos)
	X := b.Input("X", Matrix(4, 2), testPos)
	if s := b.Shape(b.GroupSum(x, []int{0, 0, 2, 0}, 5, testPos)); s != Vector(5) {
		t.Errorf("group_sum of a vector: %s, want [5]", s)
	}
	if s := b.Shape(b.GroupSum(X, []int{0, 0, 2, 0}, 5, testPos)); s != Matrix(5, 2) {
		t.Errorf("group_sum of a matrix: %s, want [5, 2]", s)
	}
}

// TestGroupSumNoAllocs: a step through group_sum of a vector and of a
// matrix allocates nothing, and a clone gives the same numbers.
func TestGroupSumNoAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 0x95))
	g := make([]int, 50)
	for i := range g {
		g[i] = r.IntN(8)
	}
	b := NewBuilder()
	x := b.Input("x", Vector(50), testPos)
	X := b.Input("X", Matrix(50, 3), testPos)
	total := b.Add(b.Sum(b.Square(b.GroupSum(x, g, 8, testPos), testPos), testPos),
		b.Sum(b.Exp(b.GroupSum(X, g, 9, testPos), testPos), testPos), testPos)
	prog, err := b.Finish(total)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float64, prog.Dim())
	for i := range v {
		v[i] = -1 + 2*r.Float64()
	}
	checkZeroAllocsClone(t, prog, v, 10)
}

// TestGroupSumBuilderErrors: codes the compiler would have refused are
// an error at the call, not a panic.
func TestGroupSumBuilderErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		g    []int
		k    int
		want string
	}{
		{"code out of range", []int{0, 3, 1, 0}, 3, "group_sum: g[1] = 3 is out of range [0, 3)"},
		{"negative code", []int{0, 1, -1, 0}, 3, "group_sum: g[2] = -1 is out of range [0, 3)"},
		{"too few codes", []int{0, 1, 1}, 3, "group_sum: g has 3 codes but x has 4 rows"},
		// refused before the pattern's K + 1 row starts are made (a K of
		// 10¹² from the data ran out of memory)
		{"too many groups", []int{0, 1, 1, 0}, 1e12, "group_sum: a [1000000000000] value would take the model past"},
	} {
		b := NewBuilder()
		x := b.Input("x", Vector(4), testPos)
		_, err := b.Finish(b.Sum(b.GroupSum(x, c.g, c.k, at(3, 7)), testPos))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "model.gpp:3:7: ") {
			t.Errorf("%s: %v, want model.gpp:3:7: ...%s", c.name, err, c.want)
		}
	}
}

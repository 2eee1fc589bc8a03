package autodiff

import (
	"math/rand/v2"
	"testing"
)

// TestGradConcat checks OpConcat, append_row and append_col, Flatten and
// Reshape: each output element is an operand's element, adjoints go back
// to it, and a data operand gets none.
func TestGradConcat(t *testing.T) {
	join := func(v [][]float64, _ []Shape) []float64 { return append(append([]float64(nil), v[0]...), v[1]...) }
	// beside joins two operands' rows, x's columns first.
	beside := func(v [][]float64, s []Shape) []float64 {
		var out []float64
		for i := 0; i < s[0].Rows; i++ {
			out = append(out, v[0][i*s[0].Cols:(i+1)*s[0].Cols]...)
			out = append(out, v[1][i*s[1].Cols:(i+1)*s[1].Cols]...)
		}
		return out
	}
	rows := func(b *Builder, x []ID) ID { return b.Concat(x[0], x[1], false, testPos) }
	cols := func(b *Builder, x []ID) ID { return b.Concat(x[0], x[1], true, testPos) }
	two := func(f func(n, m, k int) []arg) func(*rand.Rand) []arg {
		return func(r *rand.Rand) []arg { return f(dims(r)) }
	}
	runCases(t, []gradCase{
		{name: "rows/vectors", args: two(func(n, m, _ int) []arg { return []arg{in(Vector(n), real), in(Vector(m), real)} }), build: rows, ref: join},
		{name: "rows/scalar-vector", args: two(func(n, _, _ int) []arg { return []arg{in(Scalar(), real), in(Vector(n), real)} }), build: rows, ref: join},
		{name: "rows/vector-data", args: two(func(n, m, _ int) []arg { return []arg{in(Vector(n), real), data(Vector(m), real)} }), build: rows, ref: join},
		{name: "rows/matrices", args: two(func(n, m, k int) []arg { return []arg{in(Matrix(n, k), real), in(Matrix(m, k), real)} }), build: rows, ref: join},
		{name: "rows/vector-column", args: two(func(n, m, _ int) []arg { return []arg{in(Vector(n), real), in(Matrix(m, 1), real)} }), build: rows, ref: join},
		{name: "rows/same", args: two(func(n, _, _ int) []arg { return []arg{in(Vector(n), real)} }),
			build: func(b *Builder, x []ID) ID { return b.Concat(x[0], x[0], false, testPos) },
			ref:   func(v [][]float64, s []Shape) []float64 { return join([][]float64{v[0], v[0]}, nil) }},
		{name: "cols/matrices", args: two(func(n, m, k int) []arg { return []arg{in(Matrix(n, m), real), in(Matrix(n, k), real)} }), build: cols, ref: beside},
		{name: "cols/vectors", args: two(func(n, _, _ int) []arg { return []arg{in(Vector(n), real), in(Vector(n), real)} }), build: cols, ref: beside},
		{name: "cols/data-matrix", args: two(func(n, m, _ int) []arg { return []arg{data(Vector(n), real), in(Matrix(n, m), real)} }), build: cols, ref: beside},
		{name: "cols/same", args: two(func(n, m, _ int) []arg { return []arg{in(Matrix(n, m), real)} }),
			build: func(b *Builder, x []ID) ID { return b.Concat(x[0], x[0], true, testPos) },
			ref:   func(v [][]float64, s []Shape) []float64 { return beside([][]float64{v[0], v[0]}, []Shape{s[0], s[0]}) }},
		{name: "flatten", args: two(func(n, m, _ int) []arg { return []arg{in(Matrix(n, m), real)} }),
			build: func(b *Builder, x []ID) ID { return b.Flatten(x[0], testPos) },
			ref:   func(v [][]float64, _ []Shape) []float64 { return v[0] }},
		{name: "reshape/column", args: two(func(n, _, _ int) []arg { return []arg{in(Vector(n), real)} }),
			build: func(b *Builder, x []ID) ID { return b.Reshape(x[0], Matrix(b.Shape(x[0]).Rows, 1), testPos) },
			ref:   func(v [][]float64, _ []Shape) []float64 { return v[0] }},
		{name: "reshape/row-vector", args: two(func(n, _, _ int) []arg { return []arg{in(Matrix(1, n), real)} }),
			build: func(b *Builder, x []ID) ID { return b.Reshape(x[0], Vector(b.Shape(x[0]).Cols), testPos) },
			ref:   func(v [][]float64, _ []Shape) []float64 { return v[0] }},
	})
}

// TestReshapeShapes: Reshape keeps the elements under a shape of as many,
// returns its operand when the shape is the same, and refuses another
// count.
func TestReshapeShapes(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", Vector(3), testPos)
	if got := b.Reshape(x, Vector(3), testPos); got != x {
		t.Errorf("Reshape to its own shape made a node")
	}
	if got := b.Shape(b.Reshape(x, Matrix(3, 1), testPos)); got != Matrix(3, 1) {
		t.Errorf("Reshape([3], [3, 1]) is %s", got)
	}
	if got := b.Shape(b.Reshape(x, Matrix(1, 3), testPos)); got != Matrix(1, 3) {
		t.Errorf("Reshape([3], [1, 3]) is %s", got)
	}
	if b.Err() != nil {
		t.Fatal(b.Err())
	}
	b.Reshape(x, Matrix(2, 2), testPos)
	if b.Err() == nil {
		t.Errorf("Reshape([3], [2, 2]): no error")
	}
}

// TestConcatShapes checks the shapes Concat gives and the mismatches it
// refuses.
func TestConcatShapes(t *testing.T) {
	for _, c := range []struct {
		x, y Shape
		cols bool
		want Shape
		ok   bool
	}{
		{Vector(2), Vector(3), false, Vector(5), true},
		{Scalar(), Vector(3), false, Vector(4), true},
		{Matrix(2, 3), Matrix(1, 3), false, Matrix(3, 3), true},
		{Vector(2), Matrix(3, 1), false, Matrix(5, 1), true},
		{Matrix(2, 3), Matrix(2, 2), false, Shape{}, false},
		{Vector(2), Vector(2), true, Matrix(2, 2), true},
		{Matrix(2, 3), Vector(2), true, Matrix(2, 4), true},
		{Matrix(2, 3), Matrix(3, 3), true, Shape{}, false},
		{Scalar(), Vector(1), true, Shape{}, false},
	} {
		b := NewBuilder()
		id := b.Concat(b.Input("x", c.x, testPos), b.Input("y", c.y, testPos), c.cols, testPos)
		if err := b.Err(); (err == nil) != c.ok {
			t.Errorf("Concat(%s, %s, cols %v): error %v, want ok %v", c.x, c.y, c.cols, err, c.ok)
			continue
		}
		if c.ok && b.Shape(id) != c.want {
			t.Errorf("Concat(%s, %s, cols %v) is %s, want %s", c.x, c.y, c.cols, b.Shape(id), c.want)
		}
	}
}

package autodiff

import (
	"slices"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
)

// Known evaluates an input-free node while the tape is built, to the
// values Finish gives it, and refuses nodes that depend on an input and
// ops it does not evaluate (a density).
func TestKnown(t *testing.T) {
	b := NewBuilder()
	var pos ast.Pos
	x := b.Const([]float64{1, -2, 3, 0.5}, Vector(4), pos)
	y := b.Exp(b.Slice(x, 1, 3, pos), pos)                                  // exp(x[1:3])
	s := b.Sum(b.Mul(y, b.Transpose(b.Slice(x, 0, 2, pos), pos), pos), pos) // a broadcast [2, 2], summed
	in := b.Input("z", Scalar(), pos)
	dyn := b.Add(in, s, pos)
	dens := b.Density(testNormal, x, []ID{b.Scalar(0, pos), b.Scalar(1, pos)}, pos)

	got, ok := b.Known(s)
	if !ok || len(got) != 1 {
		t.Fatalf("Known(sum) = %v, %v", got, ok)
	}
	yv, ok := b.Known(y)
	if !ok || len(yv) != 2 {
		t.Fatalf("Known(exp) = %v, %v", yv, ok)
	}
	if _, ok := b.Known(dyn); ok {
		t.Error("Known of a node that depends on an input")
	}
	if _, ok := b.Known(dens); ok {
		t.Error("Known of a density")
	}
	root := b.Add(b.Add(dyn, dens, pos), b.Sum(y, pos), pos)
	p, err := b.Finish(root, s, y)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Forward([]float64{0.1}); err != nil {
		t.Fatal(err)
	}
	if want := p.Value(s); !slices.Equal(got, want) {
		t.Errorf("Known(sum) = %v, Finish gives %v", got, want)
	}
	if want := p.Value(y); !slices.Equal(yv, want) {
		t.Errorf("Known(exp) = %v, Finish gives %v", yv, want)
	}
}

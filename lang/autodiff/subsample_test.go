package autodiff

import (
	"math"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
)

// subsampleProgram builds Σ (Y'Y) ⊙ (x x') from data Y [3, 2] (marked
// subsampled), a gather of the input by idx and a constant c: Y'Y is
// data-only, hoisted by Finish.
func subsampleProgram(t *testing.T, y []float64, idx []int, c float64) (*Program, ID) {
	t.Helper()
	b := NewBuilder()
	b.Subsample([]string{"Y"})
	at := func(col int) ast.Pos { return ast.Pos{File: "m.gpp", Line: 1, Col: col} }
	x := b.Input("x", Vector(2), at(1))
	yy := b.DataConst("Y", y, Matrix(3, 2), at(2), nil)
	if !b.Subsampled(yy) || b.Subsampled(x) {
		t.Fatal("Subsampled: wrong marks")
	}
	s := b.MatMul(b.Transpose(yy, at(3)), yy, at(4))
	if !b.Subsampled(s) {
		t.Fatal("Y'Y does not read the subsampled data")
	}
	g := b.Gather(x, idx, at(5))
	term := b.Sum(b.Mul(s, b.MatMul(g, b.Transpose(g, at(6)), at(7)), at(8)), at(9))
	root := b.Mul(term, b.Scalar(c, at(10)), at(11))
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	return p, s
}

// Refresh evaluates again the data-only nodes that read subsampled data
// after their values are rewritten, so the program equals one built from
// the new data; FirstDifference finds what differs between two builds:
// a data-only value, a gather's indices, a constant.
func TestSubsampleRefresh(t *testing.T) {
	y1 := []float64{1, 2, 3, 4, 5, 6}
	y2 := []float64{-1, 0.5, 2, -3, 0, 1}
	p, s := subsampleProgram(t, y1, []int{0, 1}, 2)
	q, _ := subsampleProgram(t, y2, []int{0, 1}, 2)
	if pos, same := FirstDifference(p, q); same || pos.Col != 2 {
		t.Errorf("different data: FirstDifference %v, %v; want the data at column 2", pos, same)
	}
	slots := p.SubData()
	if len(slots) != 1 || slots[0].Name != "Y" || slots[0].Shape != Matrix(3, 2) {
		t.Fatalf("SubData %+v", slots)
	}
	copy(p.SubValues(0), y2)
	if err := p.Refresh(); err != nil {
		t.Fatal(err)
	}
	if p.Evals(s) != 2 {
		t.Errorf("Y'Y evaluated %d times, want 2", p.Evals(s))
	}
	if pos, same := FirstDifference(p, q); !same {
		t.Errorf("refreshed program differs at %v", pos)
	}
	x, gp, gq := []float64{0.3, -0.7}, make([]float64, 2), make([]float64, 2)
	lp, err1 := p.LogJoint(x, gp)
	lq, err2 := q.LogJoint(x, gq)
	if err1 != nil || err2 != nil || lp != lq || gp[0] != gq[0] || gp[1] != gq[1] {
		t.Errorf("refreshed %v %v, built %v %v (%v, %v)", lp, gp, lq, gq, err1, err2)
	}
	r, _ := subsampleProgram(t, y2, []int{1, 0}, 2)
	if pos, same := FirstDifference(q, r); same || pos.Col != 5 {
		t.Errorf("different gather indices: %v, %v; want column 5", pos, same)
	}
	u, _ := subsampleProgram(t, y2, []int{0, 1}, 3)
	if pos, same := FirstDifference(q, u); same || pos.Col != 10 {
		t.Errorf("different constant: %v, %v; want column 10", pos, same)
	}
	// a non-finite refreshed value is an error at its node
	copy(p.SubValues(0), []float64{math.Inf(1), 0, 0, 0, 0, 0})
	if err := p.Refresh(); err == nil {
		t.Error("Refresh of an infinite Y'Y: no error")
	}
	c := q.Clone()
	if len(c.SubData()) != 1 {
		t.Error("a clone lost its subsampled slots")
	}
}

// ScaleSubsampled scales the additive parts of a term that read the
// subsampled data, through sums, differences, sum(), and products and
// quotients by a scalar that reads none, and leaves the others: a scalar
// added to each element of a value of the rows is scaled with them, and
// a sum of the rows broadcast over a vector that reads none counts once
// per element.
func TestScaleSubsampled(t *testing.T) {
	const k = 2.5
	y := []float64{1, 2, 4}
	build := func(scaled bool) *Program {
		b := NewBuilder()
		b.Subsample([]string{"y"})
		at := func(col int) ast.Pos { return ast.Pos{File: "m.gpp", Line: 1, Col: col} }
		a := b.Input("a", Scalar(), at(1))
		w := b.Input("w", Vector(2), at(2))
		yd := b.DataConst("y", y, Vector(3), at(3), nil)
		t1 := b.Neg(b.Square(a, at(4)), at(4))                     // a prior: −a²
		s := b.Sum(b.Mul(yd, a, at(5)), at(5))                     // S = a Σy
		t3 := b.Add(b.Mul(yd, a, at(6)), a, at(6))                 // a y_i + a, per row
		t4 := b.Add(s, w, at(7))                                   // S + w_j: 2S + Σw
		t5 := b.Div(b.Mul(b.Scalar(2, at(8)), s, at(8)), a, at(8)) // 2S/a
		root := b.Add(b.Add(t1, s, at(9)), b.Sub(b.Sum(t3, at(10)), b.Sum(t4, at(10)), at(10)), at(11))
		root = b.Add(root, t5, at(12))
		if scaled {
			root = b.ScaleSubsampled(root, k, at(13))
		}
		p, err := b.Finish(root)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	sy := y[0] + y[1] + y[2]
	for _, x := range [][]float64{{0.7, 0.2, -1.1}, {-1.3, 2, 0.5}} {
		a, sw := x[0], x[1]+x[2]
		g := make([]float64, 3)
		got, err := build(true).LogJoint(x, g)
		if err != nil {
			t.Fatal(err)
		}
		// rows: S + (S + 3a) − 2S + 2S/a = 3a + 2Σy; fixed: −a² − Σw
		want := -a*a - sw + k*(3*a+2*sy)
		if math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("x %v: scaled %.15g, want %.15g", x, got, want)
		}
		wantG := []float64{-2*a + 3*k, -1, -1}
		for i := range g {
			if math.Abs(g[i]-wantG[i]) > 1e-12*(1+math.Abs(wantG[i])) {
				t.Errorf("x %v: gradient %v, want %v", x, g, wantG)
				break
			}
		}
		if u, _ := build(false).LogJoint(x, g); math.Abs(u-(-a*a-sw+3*a+2*sy)) > 1e-12*math.Abs(u) {
			t.Errorf("x %v: unscaled %.15g", x, u)
		}
	}
}

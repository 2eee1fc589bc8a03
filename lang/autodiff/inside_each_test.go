package autodiff

import (
	"math"
	"testing"
)

// insideEachTol is the relative tolerance of InsideEach's gradient
// against central differences.
const insideEachTol = 1e-7

// insideEachProgram is the log density term Σ w_i·log((z_i − lo_i)(hi_i −
// z_i)) of a param with two bounds per element, z = lo + (hi − lo)·
// inv_logit(x) kept inside by InsideEach; with lower ends only, Σ w_i·
// log(z_i − lo_i)·z_i of z = lo + exp(x); with upper ends only, the same of
// z = hi − exp(x).
func insideEachProgram(t *testing.T, lo, hi []float64) (*Program, ID) {
	t.Helper()
	n := max(len(lo), len(hi))
	b := NewBuilder()
	x := b.Input("x", Vector(n), testPos)
	w := make([]float64, n)
	for i := range w {
		w[i] = 0.5 + float64(i)
	}
	wt := b.Const(w, Vector(n), testPos)
	var z, root ID
	switch {
	case lo != nil && hi != nil:
		scale := make([]float64, n)
		for i := range scale {
			scale[i] = hi[i] - lo[i]
		}
		u := b.InvLogit(x, testPos)
		z = b.InsideEach(b.Add(b.Const(lo, Vector(n), testPos), b.Mul(b.Const(scale, Vector(n), testPos), u, testPos), testPos), lo, hi, testPos)
		d := b.Mul(b.Sub(z, b.Const(lo, Vector(n), testPos), testPos), b.Sub(b.Const(hi, Vector(n), testPos), z, testPos), testPos)
		root = b.Sum(b.Mul(wt, b.Log(d, testPos), testPos), testPos)
	case lo != nil:
		z = b.InsideEach(b.Add(b.Const(lo, Vector(n), testPos), b.Exp(x, testPos), testPos), lo, nil, testPos)
		d := b.Mul(b.Log(b.Sub(z, b.Const(lo, Vector(n), testPos), testPos), testPos), z, testPos)
		root = b.Sum(b.Mul(wt, d, testPos), testPos)
	default:
		z = b.InsideEach(b.Sub(b.Const(hi, Vector(n), testPos), b.Exp(x, testPos), testPos), nil, hi, testPos)
		d := b.Mul(b.Log(b.Sub(b.Const(hi, Vector(n), testPos), z, testPos), testPos), z, testPos)
		root = b.Sum(b.Mul(wt, d, testPos), testPos)
	}
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	return p, z
}

// TestGradInsideEach checks InsideEach's gradient against central
// differences where its values are inside their elements' ends (there it
// is the identity), with two ends, lower ends and upper ends per element,
// and that a step allocates nothing.
func TestGradInsideEach(t *testing.T) {
	lo, hi := []float64{-2, 0.5, 3, 10}, []float64{-1, 4, 3.5, 1e3}
	x := []float64{0.3, -1.2, 2.1, -0.4}
	for _, c := range []struct {
		name   string
		lo, hi []float64
	}{{"two ends", lo, hi}, {"lower", lo, nil}, {"upper", nil, hi}} {
		t.Run(c.name, func(t *testing.T) {
			p, _ := insideEachProgram(t, c.lo, c.hi)
			g := make([]float64, len(x))
			if _, err := p.LogJoint(x, g); err != nil {
				t.Fatal(err)
			}
			const h = 1e-6
			for i := range x {
				xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
				xp[i] += h
				xm[i] -= h
				fp, err1 := p.Forward(xp)
				fm, err2 := p.Forward(xm)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				if d := (fp - fm) / (2 * h); math.Abs(g[i]-d) > insideEachTol*max(1, math.Abs(d)) {
					t.Errorf("grad[%d] = %.12g, central difference %.12g", i, g[i], d)
				}
			}
			wantZeroAllocs(t, p, x)
		})
	}
}

// TestInsideEachEnds: an element computed onto its end, or past it,
// becomes the float next to that end inside, per element.
func TestInsideEachEnds(t *testing.T) {
	lo, hi := []float64{-1, 0, 5}, []float64{1, 2, 1e6}
	p, z := insideEachProgram(t, lo, hi)
	if _, err := p.Forward([]float64{40, -800, 0}); err != nil {
		t.Fatal(err)
	}
	want := []float64{math.Nextafter(1, 0), math.Nextafter(0, 1), 5 + (1e6-5)*0.5}
	for i, v := range p.Value(z) {
		if v != want[i] {
			t.Errorf("z[%d] = %.17g, want %.17g", i, v, want[i])
		}
	}
	p, z = insideEachProgram(t, []float64{3, -7}, nil)
	if _, err := p.Forward([]float64{-800, 0}); err != nil {
		t.Fatal(err)
	}
	if got := p.Value(z); got[0] != math.Nextafter(3, 4) || got[1] != -6 {
		t.Errorf("lower ends: z = %v, want [%v -6]", got, math.Nextafter(3, 4))
	}
}

package autodiff

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// interpXP is the uneven table grid of the interp tests: U(-2, 2) values
// fall below, inside and above it.
var interpXP = []float64{-1.5, -1.1, -0.2, 0.05, 0.6, 0.65, 1.7}

// interpRef is numpy.interp by a linear scan: fp[0] below xp[0], fp[n-1]
// from xp[n-1] on, else the segment's line.
func interpRef(x, xp, fp []float64) []float64 {
	out := make([]float64, len(x))
	n := len(xp)
	for i, v := range x {
		switch {
		case v < xp[0]:
			out[i] = fp[0]
		case v >= xp[n-1]:
			out[i] = fp[n-1]
		default:
			for j := 0; j < n-1; j++ {
				if xp[j] <= v && v < xp[j+1] {
					out[i] = fp[j] + (v-xp[j])*(fp[j+1]-fp[j])/(xp[j+1]-xp[j])
				}
			}
		}
	}
	return out
}

// TestInterpGrad checks interp's value against a linear scan and its
// gradient in x and in fp against central differences, for x a scalar, a
// vector and a matrix, each of x and fp an input or data.
func TestInterpGrad(t *testing.T) {
	n := len(interpXP)
	var cases []gradCase
	for _, xs := range []Shape{Scalar(), Vector(9), Matrix(3, 4)} {
		for _, form := range []struct {
			name   string
			x, fpd bool // data
		}{{"x", false, true}, {"x,fp", false, false}, {"fp", true, false}} {
			mk := func(s Shape, isData bool) arg {
				if isData {
					return data(s, real)
				}
				return in(s, real)
			}
			cases = append(cases, gradCase{
				name: "interp/" + xs.String() + "/" + form.name,
				args: func(*rand.Rand) []arg { return []arg{mk(xs, form.x), mk(Vector(n), form.fpd)} },
				build: func(b *Builder, x []ID) ID {
					return b.Interp(x[0], b.Const(interpXP, Vector(n), testPos), x[1], testPos)
				},
				ref: func(v [][]float64, _ []Shape) []float64 { return interpRef(v[0], interpXP, v[1]) },
			})
		}
	}
	// a table of one point: fp[0] everywhere
	cases = append(cases, gradCase{
		name: "interp/one point",
		args: func(*rand.Rand) []arg { return []arg{in(Vector(5), real), in(Vector(1), real)} },
		build: func(b *Builder, x []ID) ID {
			return b.Interp(x[0], b.Const([]float64{0.3}, Vector(1), testPos), x[1], testPos)
		},
		ref: func(v [][]float64, _ []Shape) []float64 { return interpRef(v[0], []float64{0.3}, v[1]) },
	})
	runCases(t, cases)
}

// TestInterpKnots: at a knot the value is fp's and the derivative in x
// the slope of the segment to its right; at xp[n-1] and past either end
// the value is the end's fp and the derivative 0, as documented.
func TestInterpKnots(t *testing.T) {
	fp := []float64{3, -1, 2, 2.5, -4, 0, 1}
	xp := interpXP
	n := len(xp)
	x := append([]float64{-3, xp[n-1] + 1}, xp...)
	b := NewBuilder()
	xi := b.Input("x", Vector(len(x)), testPos)
	out := b.Interp(xi, b.Const(xp, Vector(n), testPos), b.Const(fp, Vector(n), testPos), testPos)
	p, err := b.Finish(b.Sum(out, testPos))
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, len(x))
	if _, err := p.LogJoint(x, g); err != nil {
		t.Fatal(err)
	}
	v := p.Value(out)
	wantV := append([]float64{fp[0], fp[n-1]}, fp...)
	wantG := make([]float64, len(x))
	for j := 0; j < n-1; j++ {
		wantG[2+j] = (fp[j+1] - fp[j]) / (xp[j+1] - xp[j])
	}
	for i := range x {
		if v[i] != wantV[i] {
			t.Errorf("interp(%g) = %g, want %g", x[i], v[i], wantV[i])
		}
		if math.Abs(g[i]-wantG[i]) > 1e-12*max(1, math.Abs(wantG[i])) {
			t.Errorf("d interp/dx at %g = %g, want %g", x[i], g[i], wantG[i])
		}
	}
}

// TestInterpNoAllocs: a step through interp of a param vector, with fp a
// param too, allocates nothing, and a clone gives the same numbers.
func TestInterpNoAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 0x1a))
	const n = 500
	xp := make([]float64, n)
	for i := range xp {
		xp[i] = float64(i) + 0.5*r.Float64()
	}
	b := NewBuilder()
	x := b.Input("x", Vector(40), testPos)
	fp := b.Input("fp", Vector(n), testPos)
	y := b.Interp(x, b.Const(xp, Vector(n), testPos), fp, testPos)
	prog, err := b.Finish(b.Sum(b.Square(y, testPos), testPos))
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float64, prog.Dim())
	for i := range v {
		v[i] = -5 + float64(n+10)*r.Float64()
	}
	checkZeroAllocsClone(t, prog, v, 10)
}

// TestInterpBuilderErrors: tables the compiler would have refused are an
// error at the call, not a panic.
func TestInterpBuilderErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		xp   []float64
		fp   int
		want string
	}{
		{"unordered", []float64{0, 2, 1}, 3, "xp[2] = 1 is not finite, or not greater"},
		{"tie", []float64{0, 1, 1}, 3, "xp[2] = 1 is not"},
		{"NaN", []float64{0, math.NaN()}, 2, "xp[1] = NaN"},
		{"lengths", []float64{0, 1, 2}, 2, "xp has 3 elements but fp 2"},
		{"empty", []float64{}, 0, "no points"},
	} {
		b := NewBuilder()
		x := b.Input("x", Scalar(), testPos)
		b.Interp(x, b.Const(c.xp, Vector(len(c.xp)), testPos), b.Const(make([]float64, c.fp), Vector(c.fp), testPos), testPos)
		if err := b.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	b := NewBuilder()
	xp := b.Input("xp", Vector(3), testPos)
	b.Interp(b.Scalar(1, testPos), xp, b.Const(make([]float64, 3), Vector(3), testPos), testPos)
	if err := b.Err(); err == nil || !strings.Contains(err.Error(), "known before the fit") {
		t.Errorf("a param xp: %v", err)
	}
}

// BenchmarkInterp is a step of interp of 50 dates on a 5000-point table.
func BenchmarkInterp(b *testing.B) {
	const n = 5000
	xp, fp := make([]float64, n), make([]float64, n)
	for i := range xp {
		xp[i], fp[i] = float64(i), math.Sin(float64(i)/30)
	}
	bl := NewBuilder()
	x := bl.Input("x", Vector(50), testPos)
	y := bl.Interp(x, bl.Const(xp, Vector(n), testPos), bl.Const(fp, Vector(n), testPos), testPos)
	prog, err := bl.Finish(bl.Sum(bl.Square(y, testPos), testPos))
	if err != nil {
		b.Fatal(err)
	}
	v, g := make([]float64, 50), make([]float64, 50)
	for i := range v {
		v[i] = float64(i*97%n) + 0.3
	}
	b.ReportAllocs()
	for b.Loop() {
		prog.LogJoint(v, g)
	}
}

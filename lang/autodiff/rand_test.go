package autodiff

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// A Rand node draws per element of its arguments' broadcast shape at every
// Forward (data arguments included), gives NaN without a stream, and may
// not feed the log joint.
func TestRand(t *testing.T) {
	normal, _ := dist.LookupUnivariate("Normal")
	build := func() (*Builder, ID, ID) {
		b := NewBuilder()
		x := b.Input("x", Scalar(), testPos)
		mu := b.Const([]float64{-5, 0, 5}, Vector(3), testPos)
		sd := b.Const([]float64{0.1, 1}, Matrix(1, 2), testPos)
		return b, x, b.Rand(*normal, []ID{mu, sd}, testPos)
	}
	b, x, r := build()
	p, err := b.Finish(b.Mul(x, x, testPos), r)
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Shape(r); s != Matrix(3, 2) {
		t.Fatalf("shape %v, want [3, 2]", s)
	}
	if _, err := p.Forward([]float64{1}); err != nil || !math.IsNaN(p.Value(r)[0]) {
		t.Fatalf("without a stream: %v, %v; want NaN", p.Value(r), err)
	}
	p.SetRand(rand.New(rand.NewPCG(1, 2)))
	const n = 4000
	var sum, sum2 [6]float64
	var first float64
	for d := range n {
		if _, err := p.Forward([]float64{1}); err != nil {
			t.Fatal(err)
		}
		for k, v := range p.Value(r) {
			sum[k] += v
			sum2[k] += v * v
		}
		if d == 0 {
			first = p.Value(r)[0]
		} else if d == 1 && p.Value(r)[0] == first {
			t.Error("the same draw at two Forwards")
		}
	}
	for k := range sum {
		mu, sd := []float64{-5, 0, 5}[k/2], []float64{0.1, 1}[k%2]
		m := sum[k] / n
		v := sum2[k]/n - m*m
		if math.Abs(m-mu) > 5*sd/math.Sqrt(n) || math.Abs(v/(sd*sd)-1) > 0.1 {
			t.Errorf("element %d: mean %g variance %g, want %g and %g", k, m, v, mu, sd*sd)
		}
	}

	b, x, r = build()
	if _, err := b.Finish(b.Add(b.Mul(x, x, testPos), b.Sum(r, testPos), testPos)); err == nil ||
		!strings.Contains(err.Error(), "random draw cannot enter the log joint") {
		t.Errorf("a draw in the log joint: err %v", err)
	}
}

// TestAltRand: a Rand node built under AltRand draws from the second
// stream, leaving the first one's draws as they are without it, and gives
// NaN without a second stream.
func TestAltRand(t *testing.T) {
	normal, _ := dist.LookupUnivariate("Normal")
	draws := func(alt bool) (main, other []float64) {
		b := NewBuilder()
		x := b.Input("x", Scalar(), testPos)
		mu := b.Const([]float64{0, 10}, Vector(2), testPos)
		sd := b.Scalar(1, testPos)
		keep := []ID{b.Rand(*normal, []ID{mu, sd}, testPos)}
		if alt {
			b.AltRand(true)
			keep = append(keep, b.Rand(*normal, []ID{mu, sd}, testPos))
			b.AltRand(false)
		}
		keep = append(keep, b.Rand(*normal, []ID{mu, sd}, testPos))
		p, err := b.Finish(b.Mul(x, x, testPos), keep...)
		if err != nil {
			t.Fatal(err)
		}
		p.SetRand(rand.New(rand.NewPCG(1, 2)))
		if alt {
			if _, err := p.Forward([]float64{1}); err != nil || !math.IsNaN(p.Value(keep[1])[0]) {
				t.Fatalf("without a second stream: %v, %v; want NaN", p.Value(keep[1]), err)
			}
			p.SetRand(rand.New(rand.NewPCG(1, 2)))
			p.SetAltRand(rand.New(rand.NewPCG(3, 4)))
		}
		for range 3 {
			if _, err := p.Forward([]float64{1}); err != nil {
				t.Fatal(err)
			}
			main = append(main, p.Value(keep[0])...)
			main = append(main, p.Value(keep[len(keep)-1])...)
			if alt {
				other = append(other, p.Value(keep[1])...)
			}
		}
		return main, other
	}
	without, _ := draws(false)
	with, other := draws(true)
	if !slices.Equal(with, without) {
		t.Errorf("the first stream's draws %v with an AltRand node, %v without", with, without)
	}
	if len(other) != 6 || other[1] < 5 || slices.Contains(without, other[0]) {
		t.Errorf("the AltRand node's draws %v", other)
	}
}

package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// RandMultinomial's shapes: [k] from a shared theta and a scalar n, else a
// row of counts per row of theta or element of n; n per row must match
// theta's rows, and be a scalar or a vector.
func TestRandMultinomialShapes(t *testing.T) {
	th := func(b *Builder, s Shape) ID { return b.Const(make([]float64, s.Len()), s, testPos) }
	for _, c := range []struct {
		theta, n Shape
		want     string // the shape, or the error
	}{
		{Vector(3), Scalar(), "[3]"},
		{Matrix(1, 3), Scalar(), "[3]"},
		{Matrix(2, 3), Scalar(), "[2, 3]"},
		{Vector(3), Vector(4), "[4, 3]"},
		{Matrix(1, 3), Vector(4), "[4, 3]"},
		{Matrix(2, 3), Vector(2), "[2, 3]"},
		{Matrix(2, 3), Vector(3), "Multinomial: 3 numbers of trials for the 2 rows of [2, 3]: want one, or one per row"},
		{Vector(3), Matrix(2, 2), "Multinomial: the number of trials must be a scalar or a vector, got [2, 2]"},
		{Scalar(), Scalar(), "Multinomial: the argument must be a vector [k] or a matrix [r, k], got a scalar"},
	} {
		b := NewBuilder()
		x := b.Input("x", Scalar(), testPos)
		r := b.RandMultinomial(th(b, c.theta), th(b, c.n), false, testPos)
		shape := b.Shape(r).String()
		got := shape
		if _, err := b.Finish(x, r); err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("theta %v, n %v: %s, want %s", c.theta, c.n, got, c.want)
		}
	}
}

// An invalid row of a Multinomial draw (theta off the simplex, eta not
// finite, n not a count) is NaN and explained; the valid rows are drawn,
// each totalling its n; and a Forward that draws valid rows makes no
// allocation.
func TestRandMultinomialInvalid(t *testing.T) {
	for _, c := range []struct {
		name, want string
		theta      []float64
		ts         Shape
		n          []float64
		logit      bool
		nanRow     int
	}{
		{"theta off the simplex", "Multinomial draw: theta row 0 is not a probability row: sums to 1.3",
			[]float64{0.5, 0.3, 0.5, 0.2, 0.3, 0.5}, Matrix(2, 3), []float64{5}, false, 0},
		{"eta NaN", "MultinomialLogit draw: eta row 1 entry 1 is NaN, not finite",
			[]float64{1, 2, 3, 4, math.NaN(), 6}, Matrix(2, 3), []float64{5, 9}, true, 1},
		{"n not a count", "Multinomial draw: the number of trials 2.5 is not a count",
			[]float64{0.2, 0.3, 0.5}, Vector(3), []float64{4, 2.5, 7}, false, 1},
	} {
		b := NewBuilder()
		x := b.Input("x", Scalar(), testPos)
		ns := Vector(len(c.n))
		if len(c.n) == 1 {
			ns = Scalar()
		}
		r := b.RandMultinomial(b.Const(c.theta, c.ts, testPos), b.Const(c.n, ns, testPos), c.logit, testPos)
		p, err := b.Finish(x, r)
		if err != nil {
			t.Fatal(err)
		}
		p.SetRand(rand.New(rand.NewPCG(2, 2)))
		if _, err := p.Forward([]float64{1}); err != nil {
			t.Fatal(err)
		}
		z, k := p.Value(r), 3
		for row := 0; row*k < len(z); row++ {
			counts, tot := z[row*k:row*k+k], 0.0
			for _, v := range counts {
				tot += v
			}
			if row == c.nanRow {
				if !math.IsNaN(tot) {
					t.Errorf("%s: row %d %v, want NaN", c.name, row, counts)
				}
				continue
			}
			if want := c.n[min(row, len(c.n)-1)]; tot != want {
				t.Errorf("%s: row %d %v totals %g, want %g", c.name, row, counts, tot, want)
			}
		}
		// OutputErr names the first node that is not finite, a NaN
		// constant itself where there is one; the draw's own explanation:
		nd := &p.nodes[p.index(r)]
		bad := firstBad(z)
		if err := p.randError(nd, bad, elemPart(nd.shape, bad)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	b := NewBuilder()
	x := b.Input("x", Scalar(), testPos)
	r := b.RandMultinomial(b.Const([]float64{1, 2, 3, 700, -700, 0}, Matrix(2, 3), testPos), b.Const([]float64{5, 400}, Vector(2), testPos), true, testPos)
	s := b.RandMultinomial(b.Const([]float64{0.2, 0.3, 0.5}, Vector(3), testPos), b.Scalar(1000, testPos), false, testPos)
	p, err := b.Finish(x, r, s)
	if err != nil {
		t.Fatal(err)
	}
	p.SetRand(rand.New(rand.NewPCG(2, 2)))
	in := []float64{1}
	if a := testing.AllocsPerRun(50, func() {
		if _, err := p.Forward(in); err != nil {
			panic(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per Forward, want 0", a)
	}
}

// MultinomialLogit's draws are Multinomial's of softmax(eta): with the
// same stream, bit for bit, eta of ±700 neither overflowing nor all
// underflowing.
func TestRandMultinomialLogitIsSoftmax(t *testing.T) {
	eta := []float64{700, 699, -700, 1, 0.5, -2}
	probs := make([]float64, len(eta))
	for r := range 2 {
		row := eta[3*r : 3*r+3]
		m := math.Max(row[0], math.Max(row[1], row[2]))
		s := 0.0
		for j, e := range row {
			probs[3*r+j] = math.Exp(e - m)
			s += probs[3*r+j]
		}
		for j := range 3 {
			probs[3*r+j] /= s
		}
	}
	draw := func(theta []float64, logit bool) []string {
		b := NewBuilder()
		x := b.Input("x", Scalar(), testPos)
		r := b.RandMultinomial(b.Const(theta, Matrix(2, 3), testPos), b.Const([]float64{30, 1000}, Vector(2), testPos), logit, testPos)
		p, err := b.Finish(x, r)
		if err != nil {
			t.Fatal(err)
		}
		p.SetRand(rand.New(rand.NewPCG(8, 1)))
		var out []string
		for range 200 {
			if _, err := p.Forward([]float64{1}); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(p.Value(r)))
		}
		return out
	}
	a, b := draw(eta, true), draw(probs, false)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("draw %d: %s of eta, %s of softmax(eta)", i, a[i], b[i])
		}
	}
}

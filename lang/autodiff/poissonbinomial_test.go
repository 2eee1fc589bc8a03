package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"
)

// pbBrute returns log P(Y = y), log P(Y ≤ y) or log P(Y > y) (tail 0, −1,
// 1) of a PoissonBinomial by summing the products over all 2^N outcomes of
// the trials: a reference independent of the recursion.
func pbBrute(theta []float64, y, tail int) float64 {
	s := 0.0
	for m := 0; m < 1<<len(theta); m++ {
		p, k := 1.0, 0
		for j, t := range theta {
			if m&(1<<j) != 0 {
				p *= t
				k++
			} else {
				p *= 1 - t
			}
		}
		if tail == 0 && k == y || tail == -1 && k <= y || tail == 1 && k > y {
			s += p
		}
	}
	return math.Log(s)
}

// poissonBinomialCase checks PoissonBinomial of random counts against
// finite differences and pbBrute: y a scalar (vec unset, theta [N] or
// [1, N]) or a vector [n] under theta of shape shape(n, N).
func poissonBinomialCase(name string, tail int, vec, perObs bool, shape func(n, k int) Shape) gradCase {
	var y []float64
	var ys Shape
	return gradCase{
		name: name,
		args: func(r *rand.Rand) []arg {
			n, k, _ := dims(r)
			ys = Scalar()
			if !vec {
				ys = Vector(n)
			} else {
				n = 1
			}
			y = make([]float64, n)
			for i := range y {
				y[i] = float64(r.IntN(k + 1))
				if tail == 1 && y[i] == float64(k) {
					y[i]-- // P(Y > N) = 0
				}
			}
			return []arg{in(shape(n, k), prob)}
		},
		build: func(b *Builder, x []ID) ID {
			return b.PoissonBinomial(b.Const(y, ys, testPos), x[0], tail, perObs, testPos)
		},
		ref: func(v [][]float64, s []Shape) []float64 {
			k, step := catCols(s[0]), catStep(s[0])
			var terms []float64
			for i, c := range y {
				terms = append(terms, pbBrute(v[0][i*step:i*step+k], int(c), tail))
			}
			return sumUnless(perObs, terms)
		},
	}
}

func TestGradPoissonBinomial(t *testing.T) {
	shared := func(_, k int) Shape { return Vector(k) }
	row := func(_, k int) Shape { return Matrix(1, k) }
	rows := func(n, k int) Shape { return Matrix(n, k) }
	var cases []gradCase
	for _, per := range []bool{false, true} {
		for _, tail := range []int{0, -1, 1} {
			name := poissonBinomialName(tail) + perObsSuffix(per)
			cases = append(cases,
				poissonBinomialCase(name+"/scalar", tail, true, per, shared),
				poissonBinomialCase(name+"/scalar-row", tail, true, per, row),
				poissonBinomialCase(name+"/shared", tail, false, per, shared),
				poissonBinomialCase(name+"/row", tail, false, per, row),
				poissonBinomialCase(name+"/rows", tail, false, per, rows),
			)
		}
	}
	runCases(t, cases)
}

// TestPoissonBinomialErrors checks the positioned errors: a count outside
// 0..N (at Finish, data), a theta outside [0, 1] naming its element, an
// impossible count, and shapes that do not fit.
func TestPoissonBinomialErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		x     []float64
		build func(b *Builder) ID
		want  string
	}{
		{"count above N", []float64{0.2, 0.3}, func(b *Builder) ID {
			y := b.Const([]float64{1, 3}, Vector(2), at(1, 1))
			return b.PoissonBinomial(y, b.Input("theta", Vector(2), at(1, 1)), 0, false, at(4, 7))
		}, "model.gpp:4:7: PoissonBinomial: value 3 is not a count of successes 0..2 (theta has 2 trials) (element [1])"},
		{"theta above 1", []float64{0.2, 0.3, 0.5, 0.4, 1.25, 0.1}, func(b *Builder) ID {
			y := b.Const([]float64{1, 2}, Vector(2), at(1, 1))
			return b.PoissonBinomial(y, b.Input("theta", Matrix(2, 3), at(1, 1)), 0, false, at(5, 3))
		}, "model.gpp:5:3: PoissonBinomial: theta must be in [0, 1] (got 1.25, element [1, 1])"},
		{"negative theta in logccdf", []float64{-0.1, 0.3}, func(b *Builder) ID {
			y := b.Const([]float64{0}, Scalar(), at(1, 1))
			return b.PoissonBinomial(y, b.Input("theta", Vector(2), at(1, 1)), 1, true, at(6, 3))
		}, "model.gpp:6:3: logccdf(PoissonBinomial): theta must be in [0, 1] (got -0.1, element [0])"},
		{"impossible count", []float64{1, 0, 0.5}, func(b *Builder) ID {
			y := b.Const([]float64{1, 3}, Vector(2), at(1, 1))
			return b.PoissonBinomial(y, b.Input("theta", Vector(3), at(1, 1)), 0, false, at(7, 3))
		}, "model.gpp:7:3: PoissonBinomial: log probability is -Inf: 3 successes are impossible when theta has 1 entries of 1 and 2 above 0 (element [1])"},
		{"impossible CDF", []float64{1, 1, 0.5}, func(b *Builder) ID {
			y := b.Const([]float64{1}, Scalar(), at(1, 1))
			return b.PoissonBinomial(y, b.Input("theta", Vector(3), at(1, 1)), -1, true, at(8, 3))
		}, "model.gpp:8:3: logcdf(PoissonBinomial): log probability is -Inf: at most 1 successes are impossible when theta has 2 entries of 1 and 3 above 0"},
		{"impossible CCDF", []float64{0, 0.3, 0.5}, func(b *Builder) ID {
			y := b.Const([]float64{2}, Scalar(), at(1, 1))
			return b.PoissonBinomial(y, b.Input("theta", Vector(3), at(1, 1)), 1, true, at(9, 3))
		}, "model.gpp:9:3: logccdf(PoissonBinomial): log probability is -Inf: more than 2 successes are impossible when theta has 0 entries of 1 and 2 above 0"},
	} {
		t.Run(c.name, func(t *testing.T) { wantPositioned(t, runOne(t, c.x, c.build), c.want) })
	}
	b := NewBuilder()
	b.PoissonBinomial(b.Const([]float64{1, 2}, Vector(2), testPos), b.Input("theta", Matrix(3, 2), testPos), 0, false, at(8, 3))
	const want = "model.gpp:8:3: PoissonBinomial: theta [3, 2] does not fit the value [2]: want [N], [1, N] or [2, N]"
	if _, err := b.Finish(b.Input("z", Scalar(), testPos)); err == nil || err.Error() != want {
		t.Errorf("theta [3, 2] for y [2]: got %v, want %s", err, want)
	}
}

// TestPoissonBinomialZeroAllocs: a steady-state value and gradient of a
// sum over rows, a shared theta and the log CDF allocate nothing; a clone
// gives the same numbers.
func TestPoissonBinomialZeroAllocs(t *testing.T) {
	b := NewBuilder()
	y := b.Const([]float64{0, 2, 1, 3}, Vector(4), testPos)
	eta := b.Input("eta", Matrix(4, 3), testPos)
	th := b.InvLogit(eta, testPos)
	s := b.PoissonBinomial(y, th, 0, false, testPos)
	c := b.Sum(b.PoissonBinomial(y, b.Slice(th, 0, 1, testPos), -1, true, testPos), testPos)
	p, err := b.Finish(b.Add(s, c, testPos))
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 12)
	for i := range x {
		x[i] = float64(i%5) - 2
	}
	checkZeroAllocsClone(t, p, x, 20)
	checkGradFD(t, p, x, 1e-5, "PoissonBinomial")
}

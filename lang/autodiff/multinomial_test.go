package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"
)

// multinomialCase checks Multinomial (or MultinomialLogit) of random counts
// (zeros among them) against finite differences and a plain-Go reference.
// vec makes the value one vector of counts [k]; otherwise it is [n, k], and
// shape gives the argument's shape. perObs builds MultinomialLogPDF, a
// term per row, checked term by term.
func multinomialCase(name string, logit, vec, perObs bool, shape func(n, k int) Shape) gradCase {
	var y []float64 // the counts, drawn in args, read by build and ref
	var ys Shape
	return gradCase{
		name: name,
		args: func(r *rand.Rand) []arg {
			n, k, _ := dims(r)
			if vec {
				n = 1
			}
			y = make([]float64, n*k)
			for i := range y {
				y[i] = float64(r.IntN(6))
			}
			ys = Matrix(n, k)
			if vec {
				ys = Vector(k)
			}
			dom := pos
			if logit {
				dom = real
			}
			return []arg{in(shape(n, k), dom)}
		},
		build: func(b *Builder, x []ID) ID {
			if perObs {
				return b.MultinomialLogPDF(b.Const(y, ys, testPos), x[0], logit, testPos)
			}
			return b.Multinomial(b.Const(y, ys, testPos), x[0], logit, testPos)
		},
		ref: func(v [][]float64, s []Shape) []float64 {
			k := catCols(ys)
			step := catStep(s[0])
			var terms []float64
			for r := 0; r*k < len(y); r++ {
				lp := 0.0
				row, yr := v[0][r*step:r*step+k], y[r*k:r*k+k]
				z := 0.0
				for _, e := range row {
					z += math.Exp(e)
				}
				m := 0.0
				for j, c := range yr {
					m += c
					lg, _ := math.Lgamma(c + 1)
					lp -= lg
					if logit {
						lp += c * (row[j] - math.Log(z))
					} else {
						lp += c * math.Log(row[j])
					}
				}
				lg, _ := math.Lgamma(m + 1)
				terms = append(terms, lp+lg)
			}
			return sumUnless(perObs, terms)
		},
	}
}

func TestGradMultinomial(t *testing.T) {
	shared := func(_, k int) Shape { return Vector(k) }
	row := func(_, k int) Shape { return Matrix(1, k) }
	rows := func(n, k int) Shape { return Matrix(n, k) }
	var cases []gradCase
	for _, per := range []bool{false, true} {
		for _, logit := range []bool{false, true} {
			name := multinomialName(logit) + perObsSuffix(per)
			cases = append(cases,
				multinomialCase(name+"/vector", logit, true, per, shared),
				multinomialCase(name+"/vector-row", logit, true, per, row),
				multinomialCase(name+"/shared", logit, false, per, shared),
				multinomialCase(name+"/row", logit, false, per, row),
				multinomialCase(name+"/rows", logit, false, per, rows),
			)
		}
	}
	runCases(t, cases)
}

// TestMultinomialValue checks both forms against mpmath (40 digits) at
// counts [3, 0, 5, 1200]: theta [0.1, 0.2, 0.3, 0.4] gives −1062.3052046597852
// and eta [700, −3, 699.5, 0], whose softmax overflows unless the maximum is
// subtracted, −840525.01370399976; a zero count at a zero probability
// contributes 0.
func TestMultinomialValue(t *testing.T) {
	y := []float64{3, 0, 5, 1200}
	for _, c := range []struct {
		name  string
		theta []float64
		logit bool
		want  float64
	}{
		{"theta", []float64{0.1, 0.2, 0.3, 0.4}, false, -1062.3052046597852367},
		{"eta", []float64{700, -3, 699.5, 0}, true, -840525.01370399975621},
	} {
		b := NewBuilder()
		th := b.Input("theta", Vector(4), testPos)
		p, err := b.Finish(b.Multinomial(b.Const(y, Vector(4), testPos), th, c.logit, testPos))
		if err != nil {
			t.Fatal(err)
		}
		lp, err := p.LogJoint(c.theta, make([]float64, 4))
		if err != nil {
			t.Fatal(err)
		}
		if e := math.Abs(lp-c.want) / math.Abs(c.want); !(e <= 1e-14) {
			t.Errorf("%s: log p = %.17g, mpmath %.17g (relative error %.2g)", c.name, lp, c.want, e)
		}
	}
	b := NewBuilder()
	x := b.Input("x", Scalar(), testPos)
	theta := b.Const([]float64{0.25, 0.75, 0}, Vector(3), testPos)
	p, err := b.Finish(b.Add(x, b.Multinomial(b.Const([]float64{1, 2, 0}, Vector(3), testPos), theta, false, testPos), testPos))
	if err != nil {
		t.Fatal(err)
	}
	lp, err := p.LogJoint([]float64{0}, make([]float64, 1))
	if want := math.Log(3) + math.Log(0.25) + 2*math.Log(0.75); err != nil || math.Abs(lp-want) > 1e-15 {
		t.Errorf("counts [1, 2, 0] at theta [0.25, 0.75, 0]: %v (%v), want %v", lp, err, want)
	}
}

func TestMultinomialErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		x     []float64
		build func(b *Builder) ID
		want  string
	}{
		{"fractional count", []float64{0.2, 0.3, 0.5}, func(b *Builder) ID {
			y := b.Const([]float64{0, 1.5, 1}, Vector(3), at(1, 1))
			return b.Multinomial(y, b.Input("theta", Vector(3), at(1, 1)), false, at(4, 7))
		}, "model.gpp:4:7: Multinomial: value 1.5 is not a count (element [1])"},
		{"negative count", []float64{0, 0, 0}, func(b *Builder) ID {
			y := b.Const([]float64{1, 2, 3, 0, -1, 2}, Matrix(2, 3), at(1, 1))
			return b.Multinomial(y, b.Input("eta", Vector(3), at(1, 1)), true, at(5, 7))
		}, "model.gpp:5:7: MultinomialLogit: value -1 is not a count (element [1, 1])"},
		{"zero probability", []float64{0.5, 0.5, 0, 0, 0, 1}, func(b *Builder) ID {
			y := b.Const([]float64{1, 0, 0, 0, 2, 0}, Matrix(2, 3), at(1, 1))
			return b.Multinomial(y, b.Input("theta", Matrix(2, 3), at(1, 1)), false, at(6, 3))
		}, "model.gpp:6:3: Multinomial: theta must be in (0, 1] at a category with a positive count (got 0, element [1, 1])"},
		{"log-odds too far apart", []float64{1e308, -1e308}, func(b *Builder) ID {
			y := b.Const([]float64{1, 1}, Vector(2), at(1, 1))
			return b.Multinomial(y, b.Input("eta", Vector(2), at(1, 1)), true, at(7, 3))
		}, "model.gpp:7:3: MultinomialLogit: log probability is -Inf"},
	} {
		t.Run(c.name, func(t *testing.T) { wantPositioned(t, runOne(t, c.x, c.build), c.want) })
	}
	b := NewBuilder()
	b.Multinomial(b.Const([]float64{1, 2, 3}, Vector(3), testPos), b.Input("theta", Vector(4), testPos), false, testPos)
	if _, err := b.Finish(b.Input("z", Scalar(), testPos)); err == nil {
		t.Error("Multinomial of counts [3] under theta [4]: no error")
	}
}

// A steady-state evaluation of both forms, with their counts' log y!
// prepared (mdata), makes no allocations.
func TestMultinomialZeroAllocs(t *testing.T) {
	b := NewBuilder()
	y := b.Const([]float64{0, 2, 1, 2, 5, 0, 1, 1}, Matrix(4, 2), testPos)
	theta := b.Exp(b.Input("log_theta", Vector(2), testPos), testPos)
	eta := b.Input("eta", Matrix(4, 2), testPos)
	m1, m2 := b.Multinomial(y, theta, false, testPos), b.Multinomial(y, eta, true, testPos)
	p, err := b.Finish(b.Add(m1, m2, testPos))
	if err != nil {
		t.Fatal(err)
	}
	if !p.nodes[p.index(m1)].mdata || !p.nodes[p.index(m2)].mdata {
		t.Error("counts of data: log y! not prepared")
	}
	x := make([]float64, p.Dim())
	for i := range x {
		x[i] = -0.1 * float64(i)
	}
	wantZeroAllocs(t, p, x)
}

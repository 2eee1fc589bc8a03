package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"
)

// categoricalCase checks Categorical (or CategoricalLogit) of random
// categories against finite differences and a plain-Go reference. shape
// gives the argument's shape for n observations and k categories; scalar
// makes the value a scalar (n = 1); perObs builds CategoricalLogPDF, a
// term per observation, checked term by term.
func categoricalCase(name string, logit, scalar, perObs bool, shape func(n, k int) Shape) gradCase {
	var y []float64 // the categories, drawn in args, read by build and ref
	var ys Shape
	return gradCase{
		name: name,
		args: func(r *rand.Rand) []arg {
			n, k, _ := dims(r)
			if scalar {
				n = 1
			}
			y = make([]float64, n)
			for i := range y {
				y[i] = float64(r.IntN(k))
			}
			ys = Vector(n)
			if scalar {
				ys = Scalar()
			}
			dom := pos
			if logit {
				dom = real
			}
			return []arg{in(shape(n, k), dom)}
		},
		build: func(b *Builder, x []ID) ID {
			if perObs {
				return b.CategoricalLogPDF(b.Const(y, ys, testPos), x[0], logit, testPos)
			}
			return b.Categorical(b.Const(y, ys, testPos), x[0], logit, testPos)
		},
		ref: func(v [][]float64, s []Shape) []float64 {
			k, step := s[0].Cols, s[0].Cols
			if s[0].Rank == 1 {
				k, step = s[0].Rows, 0
			}
			if s[0].Rows == 1 {
				step = 0
			}
			terms := make([]float64, len(y))
			for i, c := range y {
				row := v[0][i*step : i*step+k]
				if !logit {
					terms[i] = math.Log(row[int(c)])
					continue
				}
				z := 0.0
				for _, e := range row {
					z += math.Exp(e)
				}
				terms[i] = row[int(c)] - math.Log(z)
			}
			return sumUnless(perObs, terms)
		},
	}
}

func TestGradCategorical(t *testing.T) {
	shared := func(_, k int) Shape { return Vector(k) }
	row := func(_, k int) Shape { return Matrix(1, k) }
	rows := func(n, k int) Shape { return Matrix(n, k) }
	var cases []gradCase
	for _, per := range []bool{false, true} {
		for _, logit := range []bool{false, true} {
			name := categoricalName(logit) + perObsSuffix(per)
			cases = append(cases,
				categoricalCase(name+"/shared", logit, false, per, shared),
				categoricalCase(name+"/row", logit, false, per, row),
				categoricalCase(name+"/rows", logit, false, per, rows),
				categoricalCase(name+"/scalar", logit, true, per, shared),
				categoricalCase(name+"/scalar-row", logit, true, per, rows),
			)
		}
	}
	runCases(t, cases)
}

// A large log-odds does not overflow: the row maximum is subtracted.
func TestCategoricalLogitStable(t *testing.T) {
	b := NewBuilder()
	eta := b.Input("eta", Vector(3), testPos)
	root := b.Categorical(b.Const([]float64{0, 2}, Vector(2), testPos), eta, true, testPos)
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	grad := make([]float64, 3)
	lp, err := p.LogJoint([]float64{1000, 0, 999}, grad)
	if err != nil {
		t.Fatal(err)
	}
	lse := 1000 + math.Log1p(math.Exp(-1000)+math.Exp(-1))
	if want := 1000 + 999 - 2*lse; math.Abs(lp-want) > 1e-12 {
		t.Errorf("log p = %.17g, want %.17g", lp, want)
	}
	s0, s2 := math.Exp(1000-lse), math.Exp(999-lse)
	for i, want := range []float64{1 - 2*s0, 0, 1 - 2*s2} {
		if math.Abs(grad[i]-want) > 1e-12 {
			t.Errorf("grad[%d] = %g, want %g", i, grad[i], want)
		}
	}
}

func TestCategoricalErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		x     []float64
		build func(b *Builder) ID
		want  string
	}{
		{"category too large", []float64{0.2, 0.3, 0.5}, func(b *Builder) ID {
			y := b.Const([]float64{0, 3, 1}, Vector(3), at(1, 1))
			return b.Categorical(y, b.Input("theta", Vector(3), at(1, 1)), false, at(4, 7))
		}, "model.gpp:4:7: Categorical: value 3 is not a category 0..2 (element [1])"},
		{"1-based categories", []float64{0.2, 0.3, 0.5}, func(b *Builder) ID {
			y := b.Const([]float64{1, 3, 2, 3}, Vector(4), at(1, 1))
			return b.Categorical(y, b.Input("theta", Vector(3), at(1, 1)), false, at(4, 7))
		}, "model.gpp:4:7: Categorical: value 3 is not a category 0..2 (element [1]); categories are 0-based and these run from 1 to 3, as Stan's 1-based ids do: give the value minus 1 (`y - 1 ~ Categorical(theta)`) or 0-based categories"},
		{"out of range, with a 0: no 1-based advice", []float64{0.2, 0.3, 0.5}, func(b *Builder) ID {
			y := b.Const([]float64{0, 3, 2, 3}, Vector(4), at(1, 1))
			return b.Categorical(y, b.Input("theta", Vector(3), at(1, 1)), false, at(4, 7))
		}, "model.gpp:4:7: Categorical: value 3 is not a category 0..2 (element [1])"},
		{"negative category", []float64{0, 0, 0}, func(b *Builder) ID {
			y := b.Const([]float64{-1}, Scalar(), at(1, 1))
			return b.Categorical(y, b.Input("eta", Vector(3), at(1, 1)), true, at(5, 7))
		}, "model.gpp:5:7: CategoricalLogit: value -1 is not a category 0..2"},
		{"fractional category", []float64{0, 0, 0, 0}, func(b *Builder) ID {
			y := b.Const([]float64{1, 0.5}, Vector(2), at(1, 1))
			return b.Categorical(y, b.Input("eta", Matrix(2, 2), at(1, 1)), true, at(5, 7))
		}, "model.gpp:5:7: CategoricalLogit: value 0.5 is not a category 0..1 (element [1])"},
		{"zero probability", []float64{0.5, 0.5, 0, 0, 0, 1}, func(b *Builder) ID {
			y := b.Const([]float64{0, 1}, Vector(2), at(1, 1))
			return b.Categorical(y, b.Input("theta", Matrix(2, 3), at(1, 1)), false, at(6, 3))
		}, "model.gpp:6:3: Categorical: theta must be in (0, 1] at an observed category (got 0, element [1, 1])"},
		{"zero probability in data", nil, func(b *Builder) ID {
			y := b.Const([]float64{2}, Scalar(), at(1, 1))
			return b.Categorical(y, b.Const([]float64{0.5, 0.5, 0}, Vector(3), at(1, 1)), false, at(6, 3))
		}, "model.gpp:6:3: Categorical: theta must be in (0, 1] at an observed category (got 0, element [2])"},
		{"log-odds too far apart", []float64{1e308, -1e308}, func(b *Builder) ID {
			y := b.Const([]float64{1}, Vector(1), at(1, 1))
			return b.Categorical(y, b.Input("eta", Vector(2), at(1, 1)), true, at(7, 3))
		}, "model.gpp:7:3: CategoricalLogit: log probability is -Inf (eta too far apart)"},
	} {
		t.Run(c.name, func(t *testing.T) { wantPositioned(t, runOne(t, c.x, c.build), c.want) })
	}
}

// A steady-state evaluation of both forms makes no allocations.
func TestCategoricalZeroAllocs(t *testing.T) {
	b := NewBuilder()
	y := b.Const([]float64{0, 2, 1, 2}, Vector(4), testPos)
	theta := b.Exp(b.Input("log_theta", Vector(3), testPos), testPos)
	eta := b.Input("eta", Matrix(4, 3), testPos)
	root := b.Add(b.Categorical(y, theta, false, testPos), b.Categorical(y, eta, true, testPos), testPos)
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, p.Dim())
	for i := range x {
		x[i] = -0.1 * float64(i)
	}
	wantZeroAllocs(t, p, x)
}

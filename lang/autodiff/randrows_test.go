package autodiff

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// chi2Crit999 is the 0.999 quantile of the chi-square distribution with
// 1 + i degrees of freedom: a frequency test with a fixed seed fails at it
// one time in a thousand seeds, and any error in a category's probability
// of a few tenths of a percent at 40000 draws passes it.
var chi2Crit999 = [...]float64{10.828, 13.816, 16.266, 18.467, 20.515}

// checkFrequencies counts the categories of draws (one per element of
// each row of draws) and tests them against want[i] (the probabilities of
// element i) by Pearson's chi-square, pooling no cells: every probability
// in want is large enough (≥ 0.01 at 40000 draws) for the statistic's
// approximation.
func checkFrequencies(t *testing.T, name string, draws [][]float64, want [][]float64) {
	t.Helper()
	for i, p := range want {
		counts := make([]float64, len(p))
		for _, d := range draws {
			v := d[i]
			if v != math.Trunc(v) || v < 0 || int(v) >= len(p) {
				t.Fatalf("%s[%d]: draw %v is not a category 0..%d", name, i, v, len(p)-1)
			}
			counts[int(v)]++
		}
		n := float64(len(draws))
		chi2, df := 0.0, -1
		for k, pk := range p {
			if pk == 0 {
				if counts[k] != 0 {
					t.Errorf("%s[%d]: category %d of probability 0 drawn %g times", name, i, k, counts[k])
				}
				continue
			}
			e := n * pk
			chi2 += (counts[k] - e) * (counts[k] - e) / e
			df++
		}
		if df >= 1 && chi2 > chi2Crit999[df-1] {
			t.Errorf("%s[%d]: counts %v against probabilities %v: chi-square %.2f on %d df > %.2f",
				name, i, counts, p, chi2, df, chi2Crit999[df-1])
		}
	}
}

// softmaxRow is softmax(eta) in big-float-free form for the test: exp of
// eta minus its maximum, normalised.
func softmaxRow(eta []float64) []float64 {
	m := math.Inf(-1)
	for _, e := range eta {
		m = max(m, e)
	}
	p, s := make([]float64, len(eta)), 0.0
	for j, e := range eta {
		p[j] = math.Exp(e - m)
		s += p[j]
	}
	for j := range p {
		p[j] /= s
	}
	return p
}

// orderedProbs is P(y = k), k = 0..K, from the likelihood's own log
// probabilities (dist.OrderedLogProb), so that the draws agree with what
// `y ~ OrderedLogistic(eta, c)` scores.
func orderedProbs(eta float64, c []float64, probit bool) []float64 {
	p := make([]float64, len(c)+1)
	for k := range p {
		lp, _ := dist.OrderedLogProb(k, eta, c, probit, nil)
		p[k] = math.Exp(lp)
	}
	return p
}

// rowsProgram builds a program keeping row-wise draws of every family:
// Categorical on a shared simplex and on rows, CategoricalLogit on rows
// (extreme log-odds among them), and both ordered families per element of
// eta, with the shared cutpoints and then with a row of cutpoints per
// element (groupedCuts). It returns the program and the draw nodes in that
// order.
// groupedCuts is n rows of the cutpoints c, row i shifted by 0.7·(i − 1).
func groupedCuts(c []float64, n int) []float64 {
	var out []float64
	for i := range n {
		for _, v := range c {
			out = append(out, v+0.7*float64(i-1))
		}
	}
	return out
}

func rowsProgram(t *testing.T, theta, rows, eta, oeta, cuts []float64) (*Program, []ID) {
	t.Helper()
	b := NewBuilder()
	x := b.Input("x", Scalar(), testPos)
	k := len(theta)
	ids := []ID{
		b.RandCategorical(b.Const(theta, Vector(k), testPos), false, false, testPos),
		b.RandCategorical(b.Const(rows, Matrix(len(rows)/k, k), testPos), false, true, testPos),
		b.RandCategorical(b.Const(eta, Matrix(len(eta)/k, k), testPos), true, true, testPos),
	}
	e := b.Const(oeta, Vector(len(oeta)), testPos)
	c := b.Const(cuts, Matrix(1, len(cuts)), testPos)
	ids = append(ids, b.RandOrdered(e, c, false, testPos), b.RandOrdered(e, c, true, testPos))
	g := b.Const(groupedCuts(cuts, len(oeta)), Matrix(len(oeta), len(cuts)), testPos)
	ids = append(ids, b.RandOrdered(e, g, false, testPos), b.RandOrdered(e, g, true, testPos))
	p, err := b.Finish(b.Mul(x, x, testPos), ids...)
	if err != nil {
		t.Fatal(err)
	}
	return p, ids
}

// The draws of each family have its probabilities, also at log-odds and
// linear predictors (±700, ±1000) where exp overflows or the naive
// differences of CDFs cancel; the likelihood's probabilities are the
// reference for the ordered families.
func TestRandRowsFrequencies(t *testing.T) {
	theta := []float64{0.1, 0.2, 0.3, 0.4}
	rows := []float64{0.25, 0.25, 0.5, 0, 0.05, 0.6, 0.35, 0, 0, 0, 1, 0}
	eta := []float64{
		0.5, -1, 2, 0,
		700, -700, 699, 0, // a 1 : e⁻¹ split, exp(700) is 1e304
		-1000, -1000, -999, -1000, // naive softmax: 0/0
		1e300, -1e300, 0, 1e300, // eta − max is −Inf for two
	}
	oeta := []float64{-0.3, 2.5, 700, -700, 1000, -1000}
	cuts := []float64{-1, 0.5, 2}
	p, ids := rowsProgram(t, theta, rows, eta, oeta, cuts)
	for i, want := range []Shape{Scalar(), Vector(3), Vector(4), Vector(6), Vector(6), Vector(6), Vector(6)} {
		if s := p.Shape(ids[i]); s != want {
			t.Fatalf("draw %d: shape %v, want %v", i, s, want)
		}
	}
	p.SetRand(rand.New(rand.NewPCG(7, 11)))
	const n = 40000
	draws := make([][][]float64, len(ids))
	for range n {
		if _, err := p.Forward([]float64{0}); err != nil {
			t.Fatal(err)
		}
		if err := p.OutputErr(); err != nil {
			t.Fatal(err)
		}
		for i, id := range ids {
			draws[i] = append(draws[i], append([]float64(nil), p.Value(id)...))
		}
	}
	checkFrequencies(t, "Categorical(theta)", draws[0], [][]float64{theta})
	checkFrequencies(t, "Categorical(rows)", draws[1], [][]float64{rows[0:4], rows[4:8], rows[8:12]})
	var sm [][]float64
	for r := 0; r < 4; r++ {
		sm = append(sm, softmaxRow(eta[4*r:4*r+4]))
	}
	if sm[3][0] != 0.5 || sm[3][3] != 0.5 {
		t.Fatalf("reference softmax of row 3: %v", sm[3])
	}
	checkFrequencies(t, "CategoricalLogit", draws[2], sm)
	for i, probit := range []bool{false, true} {
		var want [][]float64
		for _, e := range oeta {
			want = append(want, orderedProbs(e, cuts, probit))
		}
		checkFrequencies(t, orderedName(probit), draws[3+i], want)
		g := groupedCuts(cuts, len(oeta))
		want = nil
		for r, e := range oeta {
			want = append(want, orderedProbs(e, g[r*len(cuts):(r+1)*len(cuts)], probit))
		}
		checkFrequencies(t, orderedName(probit)+" grouped", draws[5+i], want)
	}
	// The extreme linear predictors give the end categories, every time.
	for _, d := range append(draws[3], draws[4]...) {
		if d[2] != 3 || d[3] != 0 || d[4] != 3 || d[5] != 0 {
			t.Fatalf("ordered draws at eta = ±700, ±1000: %v, want 3 0 3 0", d[2:])
		}
	}
}

// An argument that is invalid at a draw gives NaN for the elements that
// read it (and only those: every element takes its uniform, so the
// others' draws are the ones they would be), and the error of the output
// says why.
func TestRandRowsInvalid(t *testing.T) {
	good := []float64{0.2, 0.3, 0.5}
	for _, c := range []struct {
		name      string
		build     func(b *Builder, bad bool) ID
		wantNaN   []bool
		wantError string
	}{
		{"theta off the simplex", func(b *Builder, bad bool) ID {
			v := append(append([]float64(nil), good...), good...)
			if bad {
				v[0] = 0.5 // row 0 sums to 1.3
			}
			return b.RandCategorical(b.Const(v, Matrix(2, 3), testPos), false, true, testPos)
		}, []bool{true, false}, "Categorical draw: theta row 0 is not a probability row: sums to 1.3"},
		{"theta negative", func(b *Builder, bad bool) ID {
			v := append([]float64(nil), good...)
			if bad {
				v[0], v[2] = -0.1, 0.8
			}
			return b.RandCategorical(b.Const(v, Vector(3), testPos), false, false, testPos)
		}, []bool{true}, "Categorical draw: theta is not a probability row: entry 0 is -0.1"},
		{"eta NaN", func(b *Builder, bad bool) ID {
			v := []float64{1, 2, 3, 4, 5, 6}
			if bad {
				v[4] = math.NaN()
			}
			return b.RandCategorical(b.Const(v, Matrix(2, 3), testPos), true, true, testPos)
		}, []bool{false, true}, "CategoricalLogit draw: eta row 1 entry 1 is NaN, not finite (element [1])"},
		{"cutpoints not increasing", func(b *Builder, bad bool) ID {
			c := []float64{-1, 0, 1}
			if bad {
				c[2] = 0
			}
			return b.RandOrdered(b.Const([]float64{0, 1}, Vector(2), testPos), b.Const(c, Vector(3), testPos), false, testPos)
		}, []bool{true, true}, "OrderedLogistic draw: the cutpoints must be strictly increasing: c[2] = 0 is not above c[1] = 0 (element [0])"},
		{"grouped cutpoints, a row not increasing", func(b *Builder, bad bool) ID {
			c := []float64{-1, 0, 1, -2, 0, 2}
			if bad {
				c[5] = 0
			}
			return b.RandOrdered(b.Scalar(0, testPos), b.Const(c, Matrix(2, 3), testPos), false, testPos)
		}, []bool{false, true}, "OrderedLogistic draw: the cutpoints must be strictly increasing: c[1, 2] = 0 is not above c[1, 1] = 0 (element [1])"},
		{"cutpoint NaN", func(b *Builder, bad bool) ID {
			c := []float64{-1, 0, 1}
			if bad {
				c[0] = math.NaN()
			}
			return b.RandOrdered(b.Const([]float64{0.5}, Scalar(), testPos), b.Const(c, Vector(3), testPos), true, testPos)
		}, []bool{true}, "OrderedProbit draw: cutpoint c[0] is NaN, not finite"},
		{"eta infinite", func(b *Builder, bad bool) ID {
			e := []float64{0, 1, 2}
			if bad {
				e[1] = math.Inf(1)
			}
			return b.RandOrdered(b.Const(e, Vector(3), testPos), b.Const([]float64{-1, 1}, Vector(2), testPos), true, testPos)
		}, []bool{false, true, false}, "OrderedProbit draw: eta = +Inf is not finite (element [1])"},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := func(bad bool) ([]float64, error) {
				b := NewBuilder()
				x := b.Input("x", Scalar(), testPos)
				r := c.build(b, bad)
				p, err := b.Finish(b.Mul(x, x, testPos), r)
				if err != nil {
					t.Fatal(err)
				}
				p.SetRand(rand.New(rand.NewPCG(3, 4)))
				var all []float64
				for range 20 {
					if _, err := p.Forward([]float64{1}); err != nil {
						t.Fatal(err)
					}
					all = append(all, p.Value(r)...)
				}
				if p.OutputErr() == nil {
					return all, nil
				}
				// OutputErr names the first node that is not finite: a NaN
				// or infinite argument itself where it has one. The draw's
				// own explanation:
				n := &p.nodes[p.index(r)]
				k := firstBad(p.Value(r))
				return all, p.randError(n, k, elemPart(n.shape, k))
			}
			ref, err := run(false)
			if err != nil {
				t.Fatalf("valid arguments: %v", err)
			}
			got, err := run(true)
			for i, v := range got {
				if nan := c.wantNaN[i%len(c.wantNaN)]; nan != math.IsNaN(v) || !nan && v != ref[i] {
					t.Fatalf("draw %d: %v with the invalid argument, %v without; want NaN %v", i, v, ref[i], nan)
				}
			}
			if err == nil || !strings.Contains(err.Error(), c.wantError) {
				t.Errorf("OutputErr = %v, want %q", err, c.wantError)
			}
		})
	}
}

// The builders take exactly the likelihood's argument shapes.
func TestRandRowsShapes(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(b *Builder) ID
		want  string
	}{
		{"per row from a vector", func(b *Builder) ID {
			return b.RandCategorical(b.Const(make([]float64, 3), Vector(3), testPos), false, true, testPos)
		}, "Categorical: a draw per row needs a matrix [n, k], got [3]"},
		{"one draw from rows", func(b *Builder) ID {
			return b.RandCategorical(b.Const(make([]float64, 6), Matrix(2, 3), testPos), true, false, testPos)
		}, "CategoricalLogit: one draw needs a vector [k] or a row [1, k], got [2, 3]"},
		{"eta a matrix", func(b *Builder) ID {
			return b.RandOrdered(b.Const(make([]float64, 4), Matrix(2, 2), testPos), b.Const([]float64{0, 1}, Vector(2), testPos), false, testPos)
		}, "OrderedLogistic: eta must be a scalar or a vector, got [2, 2]"},
		{"cutpoints a matrix of other rows", func(b *Builder) ID {
			return b.RandOrdered(b.Const(make([]float64, 3), Vector(3), testPos), b.Const(make([]float64, 4), Matrix(2, 2), testPos), true, testPos)
		}, "OrderedProbit: the cutpoints must be a vector [K], a row [1, K] or a matrix [3, K] (a row per draw), got [2, 2]"},
	} {
		b := NewBuilder()
		x := b.Input("x", Scalar(), testPos)
		r := c.build(b)
		if _, err := b.Finish(x, r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
	// and may not enter the log joint
	b := NewBuilder()
	x := b.Input("x", Scalar(), testPos)
	r := b.RandCategorical(b.Const([]float64{0.5, 0.5}, Vector(2), testPos), false, false, testPos)
	if _, err := b.Finish(b.Add(x, r, testPos)); err == nil || !strings.Contains(err.Error(), "random draw cannot enter the log joint") {
		t.Errorf("a categorical draw in the log joint: err %v", err)
	}
}

// A Forward that draws every row-wise family makes no allocation.
func TestRandRowsNoAllocs(t *testing.T) {
	p, _ := rowsProgram(t, []float64{0.5, 0.5}, []float64{0.1, 0.9, 1, 0},
		[]float64{0, 1, 700, -700}, []float64{0, 1, 2}, []float64{-1, 1})
	p.SetRand(rand.New(rand.NewPCG(1, 1)))
	x := []float64{0.5}
	if a := testing.AllocsPerRun(100, func() {
		if _, err := p.Forward(x); err != nil {
			panic(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per Forward, want 0", a)
	}
}

// A Dirichlet draw is a simplex per row of alpha with the Dirichlet's
// mean and variance per component; a row with a concentration that is
// not positive is NaN (the other rows drawn), and a Forward that draws
// makes no allocation.
func TestRandDirichlet(t *testing.T) {
	alpha := []float64{1, 2, 3, 0.5, 0.5, 0.5}
	build := func(alpha []float64) (*Program, ID) {
		b := NewBuilder()
		x := b.Input("x", Scalar(), testPos)
		r := b.RandDirichlet(b.Const(alpha, Matrix(2, 3), testPos), testPos)
		p, err := b.Finish(b.Mul(x, x, testPos), r)
		if err != nil {
			t.Fatal(err)
		}
		p.SetRand(rand.New(rand.NewPCG(9, 9)))
		return p, r
	}
	p, r := build(alpha)
	if s := p.Shape(r); s != Matrix(2, 3) {
		t.Fatalf("shape %v, want [2, 3]", s)
	}
	const n = 40000
	var sum, sum2 [6]float64
	x := []float64{0}
	for range n {
		if _, err := p.Forward(x); err != nil {
			t.Fatal(err)
		}
		z := p.Value(r)
		for row := range 2 {
			if s := z[3*row] + z[3*row+1] + z[3*row+2]; math.Abs(s-1) > 1e-14 {
				t.Fatalf("row %d sums to %v", row, s)
			}
		}
		for k, v := range z {
			sum[k] += v
			sum2[k] += v * v
		}
	}
	for k, a := range alpha {
		a0 := alpha[k/3*3] + alpha[k/3*3+1] + alpha[k/3*3+2]
		mean, variance := a/a0, a*(a0-a)/(a0*a0*(a0+1))
		m := sum[k] / n
		v := sum2[k]/n - m*m
		if math.Abs(m-mean) > 5*math.Sqrt(variance/n) || math.Abs(v/variance-1) > 0.05 {
			t.Errorf("component %d: mean %.4f variance %.5f, want %.4f and %.5f", k, m, v, mean, variance)
		}
	}
	if a := testing.AllocsPerRun(100, func() { p.Forward(x) }); a != 0 {
		t.Errorf("%v allocations per Forward, want 0", a)
	}

	bad := append([]float64(nil), alpha...)
	bad[4] = 0
	p, r = build(bad)
	if _, err := p.Forward(x); err != nil {
		t.Fatal(err)
	}
	z := p.Value(r)
	if math.IsNaN(z[0]) || !math.IsNaN(z[3]) || !math.IsNaN(z[5]) {
		t.Fatalf("draw %v: want row 0 drawn, row 1 NaN", z)
	}
	nd := &p.nodes[p.index(r)]
	if err := p.randError(nd, 3, elemPart(nd.shape, 3)); err == nil ||
		!strings.Contains(err.Error(), "Dirichlet draw: alpha = 0 is not a valid positive parameter (element [1, 0])") {
		t.Errorf("error %v", err)
	}
}

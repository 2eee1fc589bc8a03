package autodiff

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// multinomialDataCase builds a Multinomial (logit, per-row) of counts y
// [n, k] (a vector [k] when vec) under an input theta of shape ts, with y
// subsampled data when sub; it returns the program, the node and x.
func multinomialDataCase(t testing.TB, y []float64, n, k int, vec bool, ts Shape, logit, perObs, sub bool, r *rand.Rand) (*Program, ID, []float64) {
	b := NewBuilder()
	ys := Matrix(n, k)
	if vec {
		ys = Vector(k)
	}
	var yid ID
	if sub {
		b.Subsample([]string{"y"})
		yid = b.DataConst("y", y, ys, testPos, nil)
	} else {
		yid = b.Const(y, ys, testPos)
	}
	x := make([]float64, ts.Len())
	for i := range x {
		if logit {
			x[i] = -3 + 6*r.Float64()
		} else {
			x[i] = 0.01 + 0.99*r.Float64()
		}
	}
	th := b.Input("theta", ts, testPos)
	var d, root ID
	if perObs {
		d = b.MultinomialLogPDF(yid, th, logit, testPos)
		root = b.Sum(d, testPos)
	} else {
		d = b.Multinomial(yid, th, logit, testPos)
		root = d
	}
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	return p, d, x
}

// randomCounts draws n·k counts: about a third 0, the rest up to 300 (log
// y! by Lgamma's every branch).
func randomCounts(r *rand.Rand, m int) []float64 {
	y := make([]float64, m)
	for i := range y {
		if r.IntN(3) > 0 {
			y[i] = float64(r.IntN(300))
		}
	}
	return y
}

// A Multinomial of fixed data counts prepares log y!, log m! and m once
// (mdata) and gives the value, per-row terms and gradient of the plain
// evaluation bit for bit; subsampled counts are not prepared.
func TestMultinomialDataMatchesPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n, k = 7, 4
	for _, logit := range []bool{false, true} {
		for _, per := range []bool{false, true} {
			for _, c := range []struct {
				name string
				vec  bool
				ts   Shape
			}{
				{"vector", true, Vector(k)},
				{"shared", false, Vector(k)},
				{"row", false, Matrix(1, k)},
				{"rows", false, Matrix(n, k)},
			} {
				name := fmt.Sprintf("%s%s/%s", multinomialName(logit), perObsSuffix(per), c.name)
				rows := n
				if c.vec {
					rows = 1
				}
				y := randomCounts(r, rows*k)
				y[0] = 0 // a zero count in the first row, whatever the draw
				for i := range k {
					y[(rows-1)*k+i] = 0 // a last row of total 0
				}
				seed := r.Uint64()
				ph, d, x := multinomialDataCase(t, y, rows, k, c.vec, c.ts, logit, per, false, rand.New(rand.NewPCG(seed, 1)))
				pp, dp, _ := multinomialDataCase(t, y, rows, k, c.vec, c.ts, logit, per, false, rand.New(rand.NewPCG(seed, 1)))
				if !ph.nodes[ph.index(d)].mdata {
					t.Fatalf("%s: counts not prepared", name)
				}
				if got, want := len(ph.dstate), rows*k+2*rows; got != want {
					t.Errorf("%s: %d data-state values, want %d", name, got, want)
				}
				pp.nodes[pp.index(dp)].mdata = false // the plain evaluation
				g1, g2 := make([]float64, len(x)), make([]float64, len(x))
				v1, err1 := pp.LogJoint(x, g1)
				v2, err2 := ph.LogJoint(x, g2)
				if err1 != nil || err2 != nil {
					t.Fatalf("%s: %v, %v", name, err1, err2)
				}
				if v1 != v2 {
					t.Errorf("%s: prepared %.17g, plain %.17g", name, v2, v1)
				}
				for i := range g1 {
					if g1[i] != g2[i] {
						t.Errorf("%s: grad[%d] prepared %.17g, plain %.17g", name, i, g2[i], g1[i])
					}
				}
				t1, t2 := pp.v(&pp.nodes[pp.index(dp)]), ph.v(&ph.nodes[ph.index(d)])
				for i := range t1 {
					if t1[i] != t2[i] {
						t.Errorf("%s: term %d prepared %.17g, plain %.17g", name, i, t2[i], t1[i])
					}
				}
			}
		}
	}
	ps, d, _ := multinomialDataCase(t, randomCounts(r, 3*k), 3, k, false, Vector(k), true, false, true, r)
	if ps.nodes[ps.index(d)].mdata || len(ps.dstate) != 0 {
		t.Error("subsampled counts: prepared once, though a minibatch changes them")
	}
}

// A Multinomial whose theta is data too is evaluated once by Finish, and
// one whose counts are not all counts keeps the plain evaluation and its
// error.
func TestMultinomialDataNotPrepared(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", Scalar(), testPos)
	m := b.Multinomial(b.Const([]float64{1, 2}, Vector(2), testPos), b.Const([]float64{0.5, 0.5}, Vector(2), testPos), false, testPos)
	p, err := b.Finish(b.Add(x, m, testPos))
	if err != nil {
		t.Fatal(err)
	}
	if p.nodes[p.index(m)].mdata || len(p.dstate) != 0 {
		t.Error("Multinomial of data alone: prepared")
	}
	b = NewBuilder()
	lp := b.MultinomialLogPDF(b.Const([]float64{1, 2.5}, Vector(2), testPos), b.Input("theta", Vector(2), testPos), false, testPos)
	p, err = b.Finish(b.Input("z", Scalar(), testPos), lp) // lp kept, outside the log joint
	if err != nil {
		t.Fatal(err)
	}
	if p.nodes[p.index(lp)].mdata {
		t.Error("counts [1, 2.5]: prepared")
	}
}

// BenchmarkMultinomialData times Forward+Backward of a 2000-row
// MultinomialLogit regression's likelihood (5 categories, counts 0–40, a
// row of log-odds per row) with the prepared log y!/log m! (data) and with
// Lgamma at every evaluation (plain, the tape before).
func BenchmarkMultinomialData(b *testing.B) {
	const n, k = 2000, 5
	r := rand.New(rand.NewPCG(7, 8))
	y := make([]float64, n*k)
	for i := range y {
		y[i] = float64(r.IntN(41))
	}
	for _, logit := range []bool{true, false} {
		for _, prep := range []bool{true, false} {
			name := multinomialName(logit) + "/data"
			if !prep {
				name = multinomialName(logit) + "/plain"
			}
			b.Run(name, func(b *testing.B) {
				p, d, x := multinomialDataCase(b, y, n, k, false, Matrix(n, k), logit, false, false, rand.New(rand.NewPCG(1, 2)))
				p.nodes[p.index(d)].mdata = prep
				grad := make([]float64, len(x))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.LogJoint(x, grad); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
			})
		}
	}
}

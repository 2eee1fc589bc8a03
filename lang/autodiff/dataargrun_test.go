package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
	"gonum.org/v1/gonum/diff/fd"
)

// dataArgCase builds a density of counts out of data trials (the
// DataArgRun path): the counts y and trials n are data, the second
// argument an input. With rowLSE the log densities per element go through
// rowlogsumexp and a sum, as the N-mixture's grid does, so counts above
// their trials (log 0 as a value) may be in it.
func dataArgCase(t testing.TB, family string, y, n, q dhOperand, logpdf, rowLSE bool) (*Program, ID, []float64) {
	u, ok := dist.LookupUnivariate(family)
	if !ok {
		t.Fatalf("no family %s", family)
	}
	c := *u
	c.OutsideValue = rowLSE // as gpp's logpdf: a count above its trials is log 0, a value
	b := NewBuilder()
	yi, ni := b.Const(y.v, y.shape, testPos), b.Const(n.v, n.shape, testPos)
	qi := b.Input("q", q.shape, testPos)
	var d, root ID
	switch {
	case rowLSE:
		d = b.LogPDF(c, yi, []ID{ni, qi}, testPos)
		root = b.Sum(b.RowLogSumExp(d, testPos), testPos)
	case logpdf:
		d = b.LogPDF(c, yi, []ID{ni, qi}, testPos)
		root = b.Sum(d, testPos)
	default:
		d = b.Density(c, yi, []ID{ni, qi}, testPos)
		root = d
	}
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	return p, d, append([]float64(nil), q.v...)
}

// A density of counts out of data trials (Binomial, BinomialLogit) goes
// through its family's DataArgRun, and its value and gradient are bit for
// bit the element-by-element loop's (noDataRun), alone and shared by teams
// of 2 and 3 (ranges ending inside rows), with no allocations; the
// gradient agrees with central differences. Layouts: a probability per
// element, one per column broadcast down the rows, one for all, and the
// N-mixture's grid (a count per row against trials 0..K along the row,
// counts above their trials included).
func TestDataArgRunMatchesElementLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 7))
	vals := func(k int, lo, hi float64) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = lo + (hi-lo)*r.Float64()
		}
		return v
	}
	trials := func(k int) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = float64(r.IntN(60))
		}
		return v
	}
	below := func(n []float64) []float64 { // a count of at most each trials
		v := make([]float64, len(n))
		for i, ni := range n {
			v[i] = float64(r.IntN(int(ni) + 1))
		}
		return v
	}
	grid := make([]float64, 41)
	for i := range grid {
		grid[i] = float64(i)
	}
	seen := make([]float64, 60) // the N-mixture's counts, within the grid
	for i := range seen {
		seen[i] = float64(r.IntN(13))
	}
	n1, n2 := trials(40*30), trials(90*11)
	type layout struct {
		name         string
		y, n         dhOperand
		q            func(family string) dhOperand
		rowLSE, team bool
	}
	prob := func(shape Shape, k int) func(string) dhOperand {
		return func(family string) dhOperand {
			if family == "BinomialLogit" {
				return dhIn(shape, vals(k, -4, 4))
			}
			return dhIn(shape, vals(k, 0.02, 0.98))
		}
	}
	layouts := []layout{
		{"p-per-count", dhConst(Matrix(40, 30), below(n1)), dhConst(Matrix(40, 30), n1), prob(Matrix(40, 30), 1200), false, true},
		{"p-per-column", dhConst(Matrix(90, 11), below(n2)), dhConst(Matrix(90, 11), n2), prob(Matrix(1, 11), 11), false, true},
		{"one-p", dhConst(Matrix(40, 30), below(n1)), dhConst(Matrix(40, 30), n1), prob(Scalar(), 1), false, true},
		{"small", dhConst(Matrix(4, 5), below(n1[:20])), dhConst(Matrix(4, 5), n1[:20]), prob(Matrix(4, 5), 20), false, false},
		{"nmix-grid", dhConst(Matrix(60, 1), seen), dhConst(Matrix(1, 41), grid), prob(Scalar(), 1), true, true},
	}
	for _, family := range []string{"Binomial", "BinomialLogit"} {
		for _, l := range layouts {
			q := l.q(family)
			for _, logpdf := range []bool{false, true} {
				if l.rowLSE && !logpdf {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/logpdf=%v", family, l.name, logpdf), func(t *testing.T) {
					build := func() *Program {
						p, _, _ := dataArgCase(t, family, l.y, l.n, q, logpdf, l.rowLSE)
						return p
					}
					noDataRun = true
					ref, _, x := dataArgCase(t, family, l.y, l.n, q, logpdf, l.rowLSE)
					gr := make([]float64, len(x))
					vr, err := ref.LogJoint(x, gr)
					noDataRun = false
					if err != nil {
						t.Fatal(err)
					}
					p, d, _ := dataArgCase(t, family, l.y, l.n, q, logpdf, l.rowLSE)
					n := p.nodes[p.index(d)]
					if _, arg := dataRunOf(n.dhoist, n.nparams()); arg == nil {
						t.Fatal("the density is not on the DataArgRun path")
					}
					g := make([]float64, len(x))
					v, err := p.LogJoint(x, g)
					if err != nil {
						t.Fatal(err)
					}
					if math.Float64bits(v) != math.Float64bits(vr) {
						t.Errorf("value %.17g, element loop %.17g", v, vr)
					}
					for i := range g {
						if math.Float64bits(g[i]) != math.Float64bits(gr[i]) {
							t.Fatalf("grad[%d] = %.17g, element loop %.17g", i, g[i], gr[i])
						}
					}
					tasks := 0
					if l.team {
						tasks = 1
					}
					for _, size := range []int{2, 3} {
						sameWithTeam(t, build, x, v, g, size, tasks)
					}
					want := fd.Gradient(nil, func(x []float64) float64 {
						v, err := p.Forward(x)
						if err != nil {
							t.Fatal(err)
						}
						return v
					}, x, &fd.Settings{Formula: fd.Central})
					for i := range want {
						if e := math.Abs(g[i] - want[i]); e > gradTolAbs+gradTolRel*max(math.Abs(g[i]), math.Abs(want[i])) {
							t.Errorf("grad[%d] = %.10g, fd %.10g", i, g[i], want[i])
						}
					}
				})
			}
		}
	}
}

// Forward, ForwardAll and ForwardJoint remember, within a pass, whether a
// log 0 is a value (zmemo), and give what the walks without it give
// (noZeroMemo), value, error and an output's error, over a run of points
// where the N-mixture's chain of log 0s is a value (p inside (0, 1)) and
// where it is not (p = 0 or 1 makes counts inside the grid's trials log
// 0), in turn, so that an answer kept from an earlier pass would show;
// the remembered walk allocates nothing once made.
func TestZeroMemoSameAsWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	grid := make([]float64, 31)
	for i := range grid {
		grid[i] = float64(i)
	}
	u, _ := dist.LookupUnivariate("Binomial")
	c := *u
	c.OutsideValue = true
	c.UnitEnds = 0 // p = 0 or 1 outside the support, so that its log 0s fail
	build := func() *Program {
		b := NewBuilder()
		n := b.Const(grid, Matrix(1, 31), testPos)
		q := b.Input("q", Scalar(), testPos)
		var s ID
		for j := range 4 {
			y := make([]float64, 25)
			for i := range y {
				y[i] = float64(r.IntN(9))
			}
			lp := b.LogPDF(c, b.Const(y, Matrix(25, 1), testPos), []ID{n, q}, testPos)
			if j == 0 {
				s = lp
			} else {
				s = b.Add(s, lp, testPos)
			}
		}
		// an output whose log 0s are values for p inside (0, 1) (counts
		// above the grid's trials) and failures at p = 0 or 1
		o := b.LogPDF(c, b.Const([]float64{3, 40}, Matrix(2, 1), testPos), []ID{n, q}, testPos)
		p, err := b.Finish(b.Sum(b.RowLogSumExp(s, testPos), testPos), o)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	r = rand.New(rand.NewPCG(3, 5))
	p := build()
	r = rand.New(rand.NewPCG(3, 5))
	ref := build()
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	bad, outBad := 0, 0
	for _, mode := range []string{"Forward", "ForwardAll", "ForwardJoint"} {
		for _, q := range []float64{0.3, 1, 0.6, 0, 0.45, 1, 1, 0.2} {
			x := []float64{q}
			fw, fr := p.Forward, ref.Forward
			switch mode {
			case "ForwardAll":
				fw, fr = p.ForwardAll, ref.ForwardAll
			case "ForwardJoint":
				fw, fr = p.ForwardJoint, ref.ForwardJoint
			}
			v, err := fw(x)
			noZeroMemo = true
			vr, errr := fr(x)
			noZeroMemo = false
			if math.Float64bits(v) != math.Float64bits(vr) || errText(err) != errText(errr) {
				t.Errorf("q = %g (%s): %v, %v; without the memo %v, %v", q, mode, v, err, vr, errr)
			}
			if mode == "ForwardAll" {
				if o, or := errText(p.OutputErr()), errText(ref.OutputErr()); o != or {
					t.Errorf("q = %g (%s): output error %q; without the memo %q", q, mode, o, or)
				} else if or != "" {
					outBad++
				}
			}
			if errr != nil {
				bad++
			}
		}
	}
	if bad == 0 || outBad == 0 {
		t.Fatalf("%d points failed, %d outputs: the memo's answers were never false", bad, outBad)
	}
	x := []float64{0.4}
	if a := testing.AllocsPerRun(10, func() { p.Forward(x) }); a != 0 {
		t.Errorf("%v allocations per Forward, want 0", a)
	}
}

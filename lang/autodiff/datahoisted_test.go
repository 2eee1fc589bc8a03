package autodiff

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// dataCounts are counts on both sides of the Poisson kernels' table and
// Loader boundaries (9, 10), zeros and large counts.
var dataCounts = []float64{0, 1, 9, 10, 11, 16, 0, 3, 1e6, 20, 1e6 + 7, 2}

// dhOperand is an operand of a data-hoisting case: its values, shape and
// whether it is data (a Const), subsampled data (a DataConst under
// Subsample) or an input.
type dhOperand struct {
	v     []float64
	shape Shape
	kind  int // dhData, dhSub or dhInput
}

const (
	dhData = iota
	dhSub
	dhInput
)

func dhIn(s Shape, v []float64) dhOperand    { return dhOperand{v, s, dhInput} }
func dhConst(s Shape, v []float64) dhOperand { return dhOperand{v, s, dhData} }

// dhLayouts are densities of the families with data-hoisted kernels: a
// count regression (a rate per count), a count matrix against a rate
// matrix (PMF), a count against a vector of rates (the state is per
// element of the broadcast), successes of data trials; and layouts the
// node must leave to the other paths (hoisted false): a subsampled value,
// a NegBinomial dispersion per element (no hoisted state), trials that
// are inputs.
func dhLayouts(r *rand.Rand) []struct {
	name, family string
	hoisted      bool
	ops          []dhOperand
} {
	n := len(dataCounts)
	rnd := func(k int, lo, hi float64) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = lo + (hi-lo)*r.Float64()
		}
		return v
	}
	counts := func(k int) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = float64(r.IntN(17))
		}
		return v
	}
	trials := []float64{0, 1, 9, 10, 12, 16, 5, 30, 2e6, 20, 1e6 + 7, 2} // ≥ dataCounts
	sub := dhOperand{dataCounts, Vector(n), dhSub}
	return []struct {
		name, family string
		hoisted      bool
		ops          []dhOperand
	}{
		{"poisson/rate-per-count", "Poisson", true, []dhOperand{dhConst(Vector(n), dataCounts), dhIn(Vector(n), rnd(n, 0.3, 20))}},
		{"poisson/pmf-matrix", "Poisson", true, []dhOperand{dhConst(Matrix(6, 8), counts(48)), dhIn(Matrix(6, 8), rnd(48, 0.05, 15))}},
		{"poisson/count-against-rates", "Poisson", true, []dhOperand{dhConst(Scalar(), []float64{12}), dhIn(Vector(5), rnd(5, 1, 20))}},
		{"poisson/counts-against-one-rate", "Poisson", true, []dhOperand{dhConst(Vector(n), dataCounts), dhIn(Scalar(), []float64{7.5})}},
		{"poisson/subsampled-counts", "Poisson", false, []dhOperand{sub, dhIn(Vector(n), rnd(n, 0.3, 20))}},
		{"poissonlog/eta-per-count", "PoissonLog", true, []dhOperand{dhConst(Vector(n), dataCounts), dhIn(Vector(n), rnd(n, -3, 4))}},
		{"binomial/data-trials", "Binomial", true, []dhOperand{dhConst(Vector(n), dataCounts), dhConst(Vector(n), trials), dhIn(Vector(n), rnd(n, 0.05, 0.95))}},
		{"binomial/one-trial-count", "Binomial", true, []dhOperand{dhConst(Vector(4), []float64{0, 7, 12, 20}), dhConst(Scalar(), []float64{20}), dhIn(Scalar(), []float64{0.4})}},
		{"binomiallogit/data-trials", "BinomialLogit", true, []dhOperand{dhConst(Vector(n), dataCounts), dhConst(Vector(n), trials), dhIn(Vector(n), rnd(n, -3, 3))}},
		{"negbinomial/mean-per-count", "NegBinomial", true, []dhOperand{dhConst(Vector(n), dataCounts), dhIn(Vector(n), rnd(n, 0.3, 20)), dhIn(Scalar(), []float64{2.5})}},
		{"negbinomial/large-phi", "NegBinomial", true, []dhOperand{dhConst(Vector(n), dataCounts), dhIn(Vector(n), rnd(n, 0.3, 20)), dhIn(Scalar(), []float64{40})}},
		{"negbinomial/phi-per-count", "NegBinomial", false, []dhOperand{dhConst(Vector(n), dataCounts), dhIn(Vector(n), rnd(n, 0.3, 20)), dhIn(Vector(n), rnd(n, 0.5, 30))}},
		{"negbinomiallog/eta-per-count", "NegBinomialLog", true, []dhOperand{dhConst(Vector(n), dataCounts), dhIn(Vector(n), rnd(n, -3, 4)), dhIn(Scalar(), []float64{3})}},
		{"zinb/mean-per-count", "ZeroInflatedNegBinomial", true, []dhOperand{dhConst(Vector(n), dataCounts), dhIn(Scalar(), []float64{0.65}), dhIn(Vector(n), rnd(n, 0.3, 20)), dhIn(Scalar(), []float64{1.65})}},
		{"zinb/psi-per-count", "ZeroInflatedNegBinomial", true, []dhOperand{dhConst(Vector(n), dataCounts), dhIn(Vector(n), rnd(n, 0.05, 0.95)), dhIn(Vector(n), rnd(n, 0.3, 20)), dhIn(Scalar(), []float64{40})}},
		{"zinb/phi-per-count", "ZeroInflatedNegBinomial", false, []dhOperand{dhConst(Vector(n), dataCounts), dhIn(Scalar(), []float64{0.65}), dhIn(Vector(n), rnd(n, 0.3, 20)), dhIn(Vector(n), rnd(n, 0.5, 30))}},
		{"hnb/mean-per-count", "HurdleNegBinomial", true, []dhOperand{dhConst(Vector(n), dataCounts), dhIn(Scalar(), []float64{0.65}), dhIn(Vector(n), rnd(n, 0.3, 20)), dhIn(Scalar(), []float64{2.5})}},
	}
}

// buildDataCase builds a density (or a summed log density) of u over ops
// and returns its program, the node and the inputs.
func buildDataCase(t testing.TB, u dist.Univariate, ops []dhOperand, logpdf bool) (*Program, ID, []float64) {
	b := NewBuilder()
	b.Subsample([]string{"y"})
	ids := make([]ID, len(ops))
	var x []float64
	for i, o := range ops {
		switch o.kind {
		case dhData:
			ids[i] = b.Const(o.v, o.shape, testPos)
		case dhSub:
			ids[i] = b.DataConst("y", o.v, o.shape, testPos, nil)
		default:
			ids[i] = b.Input(fmt.Sprint("x", i), o.shape, testPos)
			x = append(x, o.v...)
		}
	}
	var d, root ID
	if logpdf {
		d = b.LogPDF(u, ids[0], ids[1:], testPos)
		root = b.Sum(d, testPos)
	} else {
		d = b.Density(u, ids[0], ids[1:], testPos)
		root = d
	}
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	return p, d, x
}

// A density of data counts takes the data-hoisted kernel where its value
// (and the arguments its state reads) are fixed data and nowhere else,
// and gives the kernel path's value and gradient bit for bit.
func TestDensityDataHoistedMatchesKernel(t *testing.T) {
	for _, l := range dhLayouts(rand.New(rand.NewPCG(8, 9))) {
		for _, logpdf := range []bool{false, true} {
			u, ok := dist.LookupUnivariate(l.family)
			if !ok || u.DataHoisted == nil {
				t.Fatalf("dist has no data-hoisted %s", l.family)
			}
			plain := *u
			plain.DataHoisted = nil
			ph, d, x := buildDataCase(t, *u, l.ops, logpdf)
			pk, _, _ := buildDataCase(t, plain, l.ops, logpdf)
			name := fmt.Sprintf("%s (logpdf %v)", l.name, logpdf)
			n := &ph.nodes[ph.index(d)]
			if got := n.dhoist != nil; got != l.hoisted {
				t.Errorf("%s: data-hoisted %v, want %v", name, got, l.hoisted)
			}
			if l.hoisted && len(ph.dstate) != n.i0*u.DataHoisted.DataStateLen() {
				t.Errorf("%s: %d data-state values, want %d elements of %d", name, len(ph.dstate), n.i0, u.DataHoisted.DataStateLen())
			}
			g1, g2 := make([]float64, len(x)), make([]float64, len(x))
			v1, err1 := pk.LogJoint(x, g1)
			v2, err2 := ph.LogJoint(x, g2)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %v, %v", name, err1, err2)
			}
			if v1 != v2 {
				t.Errorf("%s: data-hoisted %.17g, kernel %.17g", name, v2, v1)
			}
			for i := range g1 {
				if g1[i] != g2[i] {
					t.Errorf("%s: grad[%d] data-hoisted %.17g, kernel %.17g", name, i, g2[i], g1[i])
				}
			}
		}
	}
}

// Gradients of data-hoisted densities and log densities against finite
// differences, over counts 0–20 (both sides of the boundaries at 9/10).
func TestGradDensityDataHoisted(t *testing.T) {
	var cases []gradCase
	for _, c := range []struct {
		family string
		args   func(r *rand.Rand) []arg
	}{
		{"Poisson", func(r *rand.Rand) []arg {
			n, m, _ := dims(r)
			return []arg{data(Matrix(n, m), count), in(Matrix(n, m), pos)}
		}},
		{"PoissonLog", func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{data(Vector(n), count), in(Vector(n), real)}
		}},
		{"NegBinomial", func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{data(Vector(n), count), in(Vector(n), pos), in(Scalar(), pos)}
		}},
		{"NegBinomialLog", func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{data(Vector(n), count), in(Vector(n), real), in(Scalar(), prec)}
		}},
		{"ZeroInflatedNegBinomial", func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{data(Vector(n), count), in(Vector(n), prob), in(Vector(n), pos), in(Scalar(), pos)}
		}},
		{"HurdleNegBinomial", func(r *rand.Rand) []arg {
			n, _, _ := dims(r)
			return []arg{data(Vector(n), count), in(Scalar(), prob), in(Vector(n), pos), in(Scalar(), pos)}
		}},
	} {
		u, _ := dist.LookupUnivariate(c.family)
		f := *u
		cases = append(cases,
			gradCase{name: "density/" + c.family, args: c.args, build: func(b *Builder, x []ID) ID {
				d := b.Density(f, x[0], x[1:], testPos)
				if b.nodes[b.index(d)].dhoist == nil {
					t.Errorf("%s: not data-hoisted", f.Name)
				}
				return d
			}},
			gradCase{name: "logpdf/" + c.family, args: c.args, build: func(b *Builder, x []ID) ID {
				return b.Sum(b.LogPDF(f, x[0], x[1:], testPos), testPos)
			}})
	}
	runCases(t, cases)
}

// countingData counts the calls of a data-hoisted kernel.
type countingData struct {
	dist.DataHoisted
	prepares, evals *int
}

func (c countingData) PrepareData(x float64, p, s []float64) {
	*c.prepares++
	c.DataHoisted.PrepareData(x, p, s)
}

func (c countingData) EvalData(x float64, p, hs, s, dp []float64) (float64, float64) {
	*c.evals++
	return c.DataHoisted.EvalData(x, p, hs, s, dp)
}

// The data work is done once per element, when the program is finished,
// and never by an evaluation (nor by a clone's): every evaluation reads
// the prepared states.
func TestDensityDataHoistedOnce(t *testing.T) {
	u, _ := dist.LookupUnivariate("Poisson")
	var prepares, evals int
	c := *u
	c.DataHoisted = countingData{u.DataHoisted, &prepares, &evals}
	ops := []dhOperand{dhConst(Vector(len(dataCounts)), dataCounts), dhIn(Vector(len(dataCounts)), dataCounts)}
	ops[1].v = []float64{0.5, 1, 8, 11, 9, 15, 0.1, 2, 1e6, 18, 1e6, 3}
	p, _, x := buildDataCase(t, c, ops, true)
	m := len(dataCounts)
	if prepares != m || evals != 0 {
		t.Fatalf("after Finish: %d prepares, %d evaluations, want %d, 0", prepares, evals, m)
	}
	q := p.Clone()
	g := make([]float64, len(x))
	for range 3 {
		if _, err := p.LogJoint(x, g); err != nil {
			t.Fatal(err)
		}
		if _, err := q.LogJoint(x, g); err != nil {
			t.Fatal(err)
		}
	}
	if prepares != m || evals != 6*m {
		t.Errorf("after 6 evaluations: %d prepares, %d evaluations, want %d, %d", prepares, evals, m, 6*m)
	}
}

// A density of data alone (evaluated once, by Finish, before the data
// states exist) keeps the kernel path.
func TestDensityDataOnlyNotDataHoisted(t *testing.T) {
	u, _ := dist.LookupUnivariate("Poisson")
	b := NewBuilder()
	y := b.Const(dataCounts, Vector(len(dataCounts)), testPos)
	rate := b.Const([]float64{3}, Scalar(), testPos)
	d := b.Density(*u, y, []ID{rate}, testPos)
	z := b.Input("z", Scalar(), testPos)
	p, err := b.Finish(b.Add(b.Mul(z, z, testPos), d, testPos))
	if err != nil {
		t.Fatal(err)
	}
	if p.nodes[p.index(d)].dhoist != nil || p.dstate != nil {
		t.Error("a density of data alone is data-hoisted")
	}
	want := 0.0
	for _, k := range dataCounts {
		want += dist.Poisson{Rate: 3}.LogProb(k)
	}
	if got, err := p.Forward([]float64{0}); err != nil || got != want {
		t.Errorf("log joint %.17g, %v; want %.17g", got, err, want)
	}
}

// A data-hoisted density allocates nothing per evaluation.
func TestDensityDataHoistedZeroAllocs(t *testing.T) {
	for _, l := range dhLayouts(rand.New(rand.NewPCG(1, 2))) {
		if !l.hoisted {
			continue
		}
		u, _ := dist.LookupUnivariate(l.family)
		p, d, x := buildDataCase(t, *u, l.ops, true)
		if p.nodes[p.index(d)].dhoist == nil {
			t.Fatalf("%s: not data-hoisted", l.name)
		}
		wantZeroAllocs(t, p, x)
	}
}

// BenchmarkDensityDataHoisted times Forward+Backward of a count
// likelihood over 19 200 counts (PMF's digits: 0–16, half of them 0) with
// a rate per count, with the data-hoisted kernel and with the family's
// kernel (the tape before); NegBinomial's dispersion is one scalar, so its
// kernel path is the hoisted one.
func BenchmarkDensityDataHoisted(b *testing.B) {
	const n = 19200
	r := rand.New(rand.NewPCG(3, 4))
	counts, rates, etas, trials, probs := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range counts {
		if r.IntN(2) == 1 {
			counts[i] = float64(1 + r.IntN(16))
		}
		rates[i] = 0.05 + 15*r.Float64()
		etas[i] = -2 + 4.5*r.Float64()
		trials[i] = counts[i] + float64(r.IntN(20))
		probs[i] = 0.05 + 0.9*r.Float64()
	}
	y := dhConst(Vector(n), counts)
	for _, c := range []struct {
		family string
		ops    []dhOperand
	}{
		{"Poisson", []dhOperand{y, dhIn(Vector(n), rates)}},
		{"PoissonLog", []dhOperand{y, dhIn(Vector(n), etas)}},
		{"NegBinomial", []dhOperand{y, dhIn(Vector(n), rates), dhIn(Scalar(), []float64{4})}},
		{"Binomial", []dhOperand{y, dhConst(Vector(n), trials), dhIn(Vector(n), probs)}},
	} {
		for _, hoist := range []bool{true, false} {
			u, _ := dist.LookupUnivariate(c.family)
			f, name := *u, c.family+"/data-hoisted"
			if !hoist {
				f.DataHoisted, name = nil, c.family+"/kernel"
			}
			b.Run(name, func(b *testing.B) {
				p, _, x := buildDataCase(b, f, c.ops, true)
				grad := make([]float64, len(x))
				for b.Loop() {
					if _, err := p.LogJoint(x, grad); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
			})
		}
	}
}

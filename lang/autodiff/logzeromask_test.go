package autodiff

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"gonum.org/v1/gonum/diff/fd"
)

// TestLogMaskTakenIn: log(ok) of a 0/1 data mask, Stan's way of ruling
// out a joint latent's impossible states (two change points s1 < s2), is
// −Inf where ok is 0 and a value where logsumexp, rowlogsumexp, exp or
// log_mix takes it in: the value is the log-sum-exp over the allowed cells
// alone and the gradient the central differences', 0 in the masked cells.
// A row that is all masked under rowlogsumexp, summed into the log joint,
// is an error of the data alone (DataOnly) at the rowlogsumexp naming the
// log; the same log summed into the log joint stays an error at the log.
func TestLogMaskTakenIn(t *testing.T) {
	const n = 4
	ok := make([]float64, n*n) // ok[i, j] = 1 where i < j
	for i := range n {
		for j := i + 1; j < n; j++ {
			ok[i*n+j] = 1
		}
	}
	x := []float64{0.3, -1.2, 0.5, 0.1, -0.4, 0.8, -0.6, 1.1, 0.2, -0.9, 0.7, -0.3, 0.4, -1.5, 0.6, 0.05}
	masked := func(x []float64) []float64 {
		l := make([]float64, len(x))
		for k := range x {
			l[k] = x[k] + math.Log(ok[k])
		}
		return l
	}
	lse := func(v []float64) float64 {
		m := math.Inf(-1)
		for _, e := range v {
			m = math.Max(m, e)
		}
		s := 0.0
		for _, e := range v {
			s += math.Exp(e - m)
		}
		return m + math.Log(s)
	}
	for _, c := range []struct {
		name  string
		build func(b *Builder, lp ID) ID
		ref   func(l []float64) float64
	}{
		{"logsumexp", func(b *Builder, lp ID) ID { return b.LogSumExp(lp, testPos) }, lse},
		{"logsumexp of lp - logsumexp(lp), exp", func(b *Builder, lp ID) ID {
			return b.Add(b.LogSumExp(lp, testPos), b.Sum(b.Exp(b.Sub(lp, b.LogSumExp(lp, testPos), testPos), testPos), testPos), testPos)
		}, func(l []float64) float64 { return lse(l) + 1 }},
		{"rowlogsumexp of the rows with a state", func(b *Builder, lp ID) ID {
			return b.Sum(b.RowLogSumExp(b.Slice(lp, 0, n-1, testPos), testPos), testPos)
		}, func(l []float64) float64 { return lse(l[0:n]) + lse(l[n:2*n]) + lse(l[2*n:3*n]) }},
	} {
		b := NewBuilder()
		lp := b.Add(b.Input("x", Matrix(n, n), testPos), b.Unary(OpLog, b.Const(ok, Matrix(n, n), testPos), testPos), testPos)
		p, err := b.Finish(c.build(b, lp))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		g := make([]float64, len(x))
		got, err := p.LogJoint(x, g)
		ref := func(x []float64) float64 { return c.ref(masked(x)) }
		if want := ref(x); err != nil || math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%s: value %v (%v), want %v", c.name, got, err, want)
		}
		want := fd.Gradient(nil, ref, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		for k := range g {
			if math.IsNaN(g[k]) || math.Abs(g[k]-want[k]) > 1e-7 || ok[k] == 0 && g[k] != 0 {
				t.Errorf("%s: grad[%d] = %v, central differences %v", c.name, k, g[k], want[k])
			}
		}
	}

	// Row 3 has no s2 > s1: every term −Inf whatever x is.
	b := NewBuilder()
	lp := b.Add(b.Input("x", Matrix(n, n), testPos), b.Unary(OpLog, b.Const(ok, Matrix(n, n), at(2, 7)), at(2, 7)), testPos)
	p, err := b.Finish(b.Sum(b.RowLogSumExp(lp, at(3, 15)), testPos))
	if err == nil {
		_, err = p.LogJoint(x, make([]float64, len(x)))
	}
	if err == nil || !strings.Contains(err.Error(), "3:15: rowlogsumexp: every term of row 3 is -Inf") || !strings.Contains(err.Error(), "log 0 of the data alone at model.gpp:2:7 (element [3, 3])") || !DataOnly(err) {
		t.Errorf("all-masked row: error %v, want rowlogsumexp's at 3:15, the log's at 2:7, of the data alone", err)
	}

	b = NewBuilder()
	sum := b.Add(b.Sum(b.Input("x", Matrix(n, n), testPos), testPos), b.Sum(b.Unary(OpLog, b.Const(ok, Matrix(n, n), at(4, 9)), at(4, 9)), testPos), testPos)
	if _, err := b.Finish(sum); err == nil || !strings.Contains(err.Error(), "4:9: log") {
		t.Errorf("log 0 of data summed into the log joint: error %v, want log's at 4:9", err)
	}
}

// TestDataValueOutsideSupportDataOnly: a Bernoulli value of 2 in the data,
// in both of log_mix's components (a diagnostic test's result coded 2), is
// −Inf for any params: the error at the logpdf names it and is of the data
// alone (DataOnly, DataValueNote), so no start is advised. A value outside
// a support whose end a param moves (Uniform(0, exp(s)) at 3) is not, and
// a 2 in one component only is taken in by log_mix as a value.
func TestDataValueOutsideSupportDataOnly(t *testing.T) {
	b0, ok := dist.LookupUnivariate("Bernoulli")
	u0, ok2 := dist.LookupUnivariate("Uniform")
	if !ok || !ok2 {
		t.Fatal("no Bernoulli or Uniform")
	}
	bern, unif := *b0, *u0 // logpdf's kernels, as the compiler makes them
	bern.OutsideValue, unif.OutsideValue = true, true
	mix := func(y1, y2 []float64) (*Program, error) {
		b := NewBuilder()
		a, c := b.Input("a", Scalar(), testPos), b.Input("c", Scalar(), testPos)
		lp1 := b.LogPDF(bern, b.Const(y1, Vector(len(y1)), at(2, 5)), []ID{b.Unary(OpInvLogit, a, testPos)}, at(2, 5))
		lp2 := b.LogPDF(bern, b.Const(y2, Vector(len(y2)), at(3, 5)), []ID{b.Unary(OpInvLogit, c, testPos)}, at(3, 5))
		return b.Finish(b.Sum(b.LogPDF(dist.LogMixFn, b.Scalar(0.3, testPos), []ID{lp1, lp2}, testPos), testPos))
	}
	x := []float64{0.2, -0.4}
	p, err := mix([]float64{0, 1, 2, 0}, []float64{0, 1, 2, 0})
	if err == nil {
		_, err = p.LogJoint(x, make([]float64, 2))
	}
	if err == nil || !strings.Contains(err.Error(), "2:5: log density is -Inf: value 2 outside the support of Bernoulli (element [2])") || !strings.Contains(err.Error(), DataValueNote) || !DataOnly(err) {
		t.Errorf("Bernoulli 2 in both components: error %v, want the logpdf's at 2:5, of the data alone", err)
	}
	p, err = mix([]float64{0, 1, 2, 0}, []float64{0, 1, 1, 0})
	if err == nil {
		_, err = p.LogJoint(x, make([]float64, 2))
	}
	if err != nil {
		t.Errorf("Bernoulli 2 in one component, taken in by log_mix: %v", err)
	}

	b := NewBuilder()
	u := b.LogPDF(unif, b.Const([]float64{0.5, 3}, Vector(2), at(4, 5)), []ID{b.Scalar(0, testPos), b.Exp(b.Input("s", Scalar(), testPos), testPos)}, at(4, 5))
	if p, err = b.Finish(b.Sum(u, testPos)); err == nil {
		_, err = p.LogJoint([]float64{0}, make([]float64, 1))
	}
	if err == nil || DataOnly(err) {
		t.Errorf("Uniform(0, exp(s)) at 3, s = 0: error %v, want one that a param mends (not DataOnly)", err)
	}

	// log_mix of the Bernoulli 2 and a Uniform(0, exp(s)) at 1.5: −Inf at
	// s = 0, finite at s > log 1.5, so not of the data alone.
	b = NewBuilder()
	a, s := b.Input("a", Scalar(), testPos), b.Input("s", Scalar(), testPos)
	lp1 := b.LogPDF(bern, b.Const([]float64{2, 0}, Vector(2), at(2, 5)), []ID{b.Unary(OpInvLogit, a, testPos)}, at(2, 5))
	lp2 := b.LogPDF(unif, b.Const([]float64{1.5, 0.5}, Vector(2), at(3, 5)), []ID{b.Scalar(0, testPos), b.Exp(s, testPos)}, at(3, 5))
	if p, err = b.Finish(b.Sum(b.LogPDF(dist.LogMixFn, b.Scalar(0.5, testPos), []ID{lp1, lp2}, testPos), testPos)); err == nil {
		_, err = p.LogJoint([]float64{0, 0}, make([]float64, 2))
	}
	if err == nil || DataOnly(err) {
		t.Errorf("log_mix of a Bernoulli 2 and Uniform(0, exp(s)) at 1.5, s = 0: error %v, want one that a param mends (not DataOnly)", err)
	}
	if _, err = p.LogJoint([]float64{0, 1}, make([]float64, 2)); err != nil {
		t.Errorf("the same at s = 1: %v", err)
	}
}

// TestDoomedRowsAndCols: Bernoulli values of 2 in a data matrix are −Inf
// for any params, and doomed marks what they make −Inf whatever the
// params: the rowsum of each row and colsum of each column holding one
// (one is enough for a sum), the rowlogsumexp of a row only where every
// term is one (a row with a finite term takes the 2 in as a value).
func TestDoomedRowsAndCols(t *testing.T) {
	b0, ok := dist.LookupUnivariate("Bernoulli")
	if !ok {
		t.Fatal("no Bernoulli")
	}
	bern := *b0
	bern.OutsideValue = true // logpdf's kernel, as the compiler makes it
	b := NewBuilder()
	pr := b.Unary(OpInvLogit, b.Input("a", Scalar(), testPos), testPos)
	// Row-major: a 2 at [1, 2] of A; row 1 of B all 2s, row 2 one 2.
	la := b.LogPDF(bern, b.Const([]float64{0, 2, 0, 1, 0, 1}, Matrix(2, 3), at(2, 5)), []ID{pr}, at(2, 5))
	lb := b.LogPDF(bern, b.Const([]float64{2, 2, 2, 2, 0, 1}, Matrix(2, 3), at(3, 5)), []ID{pr}, at(3, 5))
	rs, cs, rl := b.RowSum(la, testPos), b.ColSum(la, testPos), b.RowLogSumExp(lb, testPos)
	root := b.Add(b.Add(b.Sum(rs, testPos), b.Sum(cs, testPos), testPos), b.Sum(rl, testPos), testPos)
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.ForwardAll([]float64{0.3}); err == nil || !DataOnly(err) {
		t.Errorf("log joint: error %v, want one of the data alone", err)
	}
	for _, c := range []struct {
		name string
		id   ID
		want []bool
	}{
		{"rowsum(A)", rs, []bool{true, false}},
		{"colsum(A)", cs, []bool{false, true, false}},
		{"rowlogsumexp(B)", rl, []bool{true, false}},
	} {
		got := p.doomed(p.index(c.id), make(map[int32][]bool))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: doomed %v, want %v", c.name, got, c.want)
		}
	}
}

package autodiff

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/internal/onebased"
	"github.com/gpplang/gpp/lang/ast"
)

// Categorical returns Σ_n log p(y_n) for categories y (a scalar or a vector
// [n] of data whose values are the integers 0..k−1) under the probabilities
// theta: a vector [k] or row [1, k] shared by every observation, or a
// matrix [n, k] whose row n belongs to observation n. With logit set, theta
// holds log-odds eta and p(y_n) = softmax(eta_n)[y_n], computed stably. A
// category outside 0..k−1 fails the evaluation with an error naming the
// element.
func (b *Builder) Categorical(y, theta ID, logit bool, pos ast.Pos) ID {
	return b.categorical(y, theta, logit, false, pos)
}

// CategoricalLogPDF is Categorical per observation: log p(y_n) for each
// element of y, a vector [n] (a scalar for a scalar y), the terms whose
// sum Categorical is: logpdf(y, Categorical(theta)), a classifier's
// log_lik for PSIS-LOO (Stan's categorical_lpmf and
// categorical_logit_lpmf per observation).
func (b *Builder) CategoricalLogPDF(y, theta ID, logit bool, pos ast.Pos) ID {
	return b.categorical(y, theta, logit, true, pos)
}

// categorical adds an OpCategorical node; perObs (i1 = 1) keeps a term per
// observation instead of their sum.
func (b *Builder) categorical(y, theta ID, logit, perObs bool, pos ast.Pos) ID {
	name := categoricalName(logit)
	args, ok := b.operands(y, theta)
	if !ok {
		return b.invalid(pos)
	}
	ys, ts := b.shapeOf(args[0]), b.shapeOf(args[1])
	if b.nodes[args[0]].dyn {
		return b.fail(pos, "%s: the value must be data", name)
	}
	if ys.Rank == 2 {
		return b.fail(pos, "%s: the value must be a scalar or a vector, got %v", name, ys)
	}
	n := ys.Len()
	var k int
	switch {
	case ts.Rank == 1:
		k = ts.Rows
	case ts.Rank == 2 && (ts.Rows == 1 || ts.Rows == n):
		k = ts.Cols
	default:
		want := "[k] or [1, k]"
		if n != 1 {
			want = fmt.Sprintf("[k], [1, k] or [%d, k]", n)
		}
		return b.fail(pos, "%s: argument %v does not fit the value %v: want %s", name, ts, ys, want)
	}
	if k == 0 {
		return b.fail(pos, "%s: needs at least one category", name)
	}
	nd := node{op: OpCategorical, args: args, shape: Scalar(), pos: pos}
	if perObs {
		nd.i1, nd.shape = 1, ys
	}
	if logit {
		nd.i0 = 1
		nd.nscr = catRows(ts) // the log normaliser of each row
	}
	return b.push(nd)
}

func categoricalName(logit bool) string {
	if logit {
		return "CategoricalLogit"
	}
	return "Categorical"
}

// catRows is the number of distinct probability rows of an argument of
// shape s; catCols the number of categories.
func catRows(s Shape) int {
	if s.Rank == 2 {
		return s.Rows
	}
	return 1
}

func catCols(s Shape) int {
	if s.Rank == 2 {
		return s.Cols
	}
	return s.Rows
}

// catStep is the offset between the rows of consecutive observations: 0
// for a shared argument.
func catStep(s Shape) int {
	if catRows(s) > 1 {
		return catCols(s)
	}
	return 0
}

// catIndex returns the category of value v, or -1 when v is not an integer
// in 0..k−1.
func catIndex(v float64, k int) int {
	if !(v >= 0 && v < float64(k)) || v != math.Trunc(v) {
		return -1
	}
	return int(v)
}

// evalCategorical fails (p.fail the element) on a value that is not a
// category; a probability of 0 at an observed category gives −Inf, which
// categoricalError explains.
func (p *Program) evalCategorical(n *node) bool {
	y, t := p.arg(n, 0), p.arg(n, 1)
	yv, tv := p.v(y), p.v(t)
	rows, k, step := catRows(t.shape), catCols(t.shape), catStep(t.shape)
	for i, v := range yv {
		if catIndex(v, k) < 0 {
			p.fail = i
			return false
		}
	}
	z, per := p.v(n), n.i1 == 1
	sum := 0.0
	if n.i0 == 0 {
		if per {
			for i, v := range yv {
				z[i] = logx(tv[i*step+int(v)])
			}
			return true
		}
		for i, v := range yv {
			sum += logx(tv[i*step+int(v)])
		}
		p.v(n)[0] = sum
		return true
	}
	for i, v := range yv {
		sum += tv[i*step+int(v)]
	}
	lse := p.s(n)
	for r := range lse {
		lse[r] = logSumExp(tv[r*k : r*k+k])
	}
	if per {
		for i, v := range yv {
			z[i] = tv[i*step+int(v)] - lse[i*step/k]
		}
		return true
	}
	if rows == 1 {
		sum -= float64(len(yv)) * lse[0]
	} else {
		for _, l := range lse {
			sum -= l
		}
	}
	p.v(n)[0] = sum
	return true
}

// gradCategorical: ∂/∂theta[n, k] = 1{y_n = k} / theta[n, k];
// ∂/∂eta[n, k] = 1{y_n = k} − softmax(eta_n)[k], summed over n for a shared
// argument. g is the adjoint of the sum, or of each observation's term
// for a per-observation node.
func (p *Program) gradCategorical(n *node, g []float64) {
	y, t := p.arg(n, 0), p.arg(n, 1)
	if t.aoff < 0 {
		return
	}
	yv, tv, at := p.v(y), p.v(t), p.a(t)
	rows, k, step := catRows(t.shape), catCols(t.shape), catStep(t.shape)
	gs := obsStep(n) // g[i*gs] is observation i's adjoint
	if n.i0 == 0 {
		for i, v := range yv {
			j := i*step + int(v)
			at[j] += g[i*gs] / tv[j]
		}
		return
	}
	for i, v := range yv {
		at[i*step+int(v)] += g[i*gs]
	}
	for r, l := range p.s(n) {
		w := g[r*gs] // weight of the row's softmax
		switch {
		case rows == 1 && gs == 1:
			w = 0
			for _, gi := range g {
				w += gi
			}
		case rows == 1:
			w *= float64(len(yv))
		}
		ar, tr := at[r*k:r*k+k], tv[r*k:r*k+k]
		for j, e := range tr {
			ar[j] -= w * math.Exp(e-l)
		}
	}
}

// oneBasedCategories is the advice for the values of a categorical of k
// categories that run from 1 to k as Stan's 1-based categories do
// (onebased.Is); "" for any other.
func oneBasedCategories(vals []float64, k int) string {
	return oneBasedAdvice(vals, k, "Categorical(theta)")
}

// oneBasedAdvice is oneBasedCategories's advice for a family of k
// categories written as dist in its example statement.
func oneBasedAdvice(vals []float64, k int, dist string) string {
	lo, hi, count, ok := onebased.Range(vals)
	if !ok || !onebased.Is(lo, hi, count, k) {
		return ""
	}
	return "; categories are 0-based and " + onebased.Span(lo, k) + ": give the value minus 1 (`y - 1 ~ " + dist + "`) or 0-based categories"
}

// categoricalError explains a failed or non-finite Categorical node: a
// value that is not a category, a probability outside (0, 1] or a
// non-finite log-odds.
func (p *Program) categoricalError(n *node, ok bool) error {
	y, t := p.arg(n, 0), p.arg(n, 1)
	yv, tv := p.v(y), p.v(t)
	name := categoricalName(n.i0 == 1)
	k, step := catCols(t.shape), catStep(t.shape)
	if !ok {
		return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: value %g is not a category 0..%d", name, yv[p.fail], k-1), p.nodeElemPart(y, y.shape, p.fail))+oneBasedCategories(yv, k))
	}
	if n.i0 == 1 {
		if e := firstBad(tv); e >= 0 {
			return ast.Errorf(n.pos, "%s: eta must be finite (got %g%s)", name, tv[e], withComma(p.nodeElemPart(t, t.shape, e)))
		}
		return ast.Errorf(n.pos, "%s: log probability is %s (eta too far apart)", name, kind(badValue(p.v(n))))
	}
	if i := p.categoricalObs(n, ok); i >= 0 {
		e := i*step + int(yv[i])
		return ast.Errorf(n.pos, "%s: theta must be in (0, 1] at an observed category (got %s%s)", name, short(tv[e], 0, 1), withComma(p.nodeElemPart(t, t.shape, e)))
	}
	return ast.Errorf(n.pos, "%s: log probability is %s", name, kind(badValue(p.v(n))))
}

// categoricalObs returns the observation at which Categorical node n
// failed (categoricalError): a value that is not a category, a non-finite
// log-odds, a probability outside (0, 1] at the observed category; −1 if
// none is found.
func (p *Program) categoricalObs(n *node, ok bool) int {
	y, t := p.arg(n, 0), p.arg(n, 1)
	yv, tv := p.v(y), p.v(t)
	step := catStep(t.shape)
	switch {
	case !ok:
		return p.fail
	case n.i0 == 1:
		if e := firstBad(tv); e >= 0 && step > 0 {
			return e / step
		}
		return -1
	}
	for i, v := range yv {
		if x := tv[i*step+int(v)]; !(x > 0) || math.IsInf(x, 1) {
			return i
		}
	}
	return -1
}

// obsStep is the step between the adjoints of consecutive observations of
// a categorical, multinomial or ordinal node: 1 for one per observation
// (i1 = 1, logpdf), 0 for the sum's one.
func obsStep(n *node) int {
	if n.i1 == 1 {
		return 1
	}
	return 0
}

// badValue is z's first non-finite element, or z[0] if all are finite.
func badValue(z []float64) float64 {
	if k := firstBad(z); k >= 0 {
		return z[k]
	}
	return z[0]
}

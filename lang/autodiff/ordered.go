package autodiff

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// Ordered returns the strictly increasing vector x of an ordered[K] param
// from its coordinates u, a vector [K]: x_0 = u_0 (the coordinate of a
// normal factor) and x_k = x_{k−1} + exp(u_k) (u_k = log d_k, the
// coordinate of the increment's gamma factor). The map from (x_0, d) is
// linear with unit Jacobian. A sum that rounds onto x_{k−1} (an increment
// below half an ulp of it) is kept the float above it, as OpInside keeps a
// value inside its interval; the adjoint passes as if it had not been.
func (b *Builder) Ordered(u ID, pos ast.Pos) ID { return b.ordered(u, false, pos) }

// PositiveOrdered returns the strictly increasing positive vector x of a
// positive_ordered[K] param from its coordinates u, a vector [K]: x_0 =
// exp(u_0) and x_k = x_{k−1} + exp(u_k), each u_k the log coordinate of a
// part's gamma factor (dist.PositiveOrderedValues). It is OpOrdered with
// i0 = 1; the map from (x_0, d) is linear with unit Jacobian.
//
// Of coordinates u a matrix [G, K] (Ordered and PositiveOrdered alike),
// x is G rows each ordered so, u laid out as dist.OrderedRowsValues reads
// it: an ordered[G, K] param's G firsts and then each row's increments.
func (b *Builder) PositiveOrdered(u ID, pos ast.Pos) ID { return b.ordered(u, true, pos) }

func (b *Builder) ordered(u ID, positive bool, pos ast.Pos) ID {
	name := "ordered"
	if positive {
		name = "positive_ordered"
	}
	args, ok := b.operands(u)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank == 0 {
		return b.fail(pos, "%s: needs a vector or a matrix, got %s", name, s)
	}
	nd := node{op: OpOrdered, args: args, shape: s, pos: pos}
	if positive {
		nd.i0 = 1
	}
	return b.push(nd)
}

// orderedRows is the number of rows of an OpOrdered node of shape s: 1
// for a vector.
func orderedRows(s Shape) int {
	if s.Rank == 2 {
		return s.Rows
	}
	return 1
}

// evalOrderedRows is OpOrdered's forward rule for g rows.
func evalOrderedRows(z, u []float64, g int, positive bool) {
	if g > 1 {
		dist.OrderedRowsValues(z, u, g, positive)
		return
	}
	evalOrdered(z, u, positive)
}

// gradOrderedRows is gradOrdered for g rows, each row's coordinates at
// their places in u (dist.OrderedRowIndex).
func gradOrderedRows(au, u, gv []float64, g int, positive bool) {
	if g <= 1 {
		gradOrdered(au, u, gv, positive)
		return
	}
	k := len(gv) / g
	for r := range g {
		s := 0.0
		for c := k - 1; c >= 1; c-- {
			s += gv[r*k+c]
			j := orderedCoord(r, c, g, k, positive)
			au[j] += s * math.Exp(u[j])
		}
		j := orderedCoord(r, 0, g, k, positive)
		if positive {
			au[j] += (s + gv[r*k]) * math.Exp(u[j])
			continue
		}
		au[j] += s + gv[r*k]
	}
}

// orderedCoord is the index of the coordinate of element (r, c) of an
// ordered[g, k] matrix (dist.OrderedRowIndex's inverse).
func orderedCoord(r, c, g, k int, positive bool) int {
	switch {
	case positive || k <= 1:
		return r*k + c
	case c == 0:
		return r
	}
	return g + r*(k-1) + c - 1
}

// evalOrdered is OpOrdered's forward rule (positive: i0 is 1).
func evalOrdered(z, u []float64, positive bool) {
	if positive {
		dist.PositiveOrderedValues(z, u)
		return
	}
	dist.OrderedValues(z, u)
}

// gradOrdered: ∂x_i/∂u_0 = 1 (exp(u_0) when positive) and ∂x_i/∂u_k =
// exp(u_k) for i ≥ k ≥ 1.
func gradOrdered(au, u, g []float64, positive bool) {
	s := 0.0
	for k := len(g) - 1; k >= 1; k-- {
		s += g[k]
		au[k] += s * math.Exp(u[k])
	}
	if len(g) == 0 {
		return
	}
	if positive {
		au[0] += (s + g[0]) * math.Exp(u[0])
		return
	}
	au[0] += s + g[0]
}

// OrderedLogistic returns Σ_n log P(y_n) for categories y (data: a scalar
// or a vector [n] of the integers 0..K) of an ordinal outcome with linear
// predictor eta (a scalar, or [n] with one element per observation) and
// the K cutpoints c (strictly increasing: a vector [K] or a row [1, K]
// shared by every observation, or a matrix [n, K] with a row per
// observation, brms's thres(gr = g)): P(y = k) = F(c_k − eta) − F(c_{k−1} −
// eta) with F the logistic CDF, or the normal one when probit is set
// (dist.OrderedLogProb). A value that is not a category, or cutpoints that
// are not strictly increasing, fail the evaluation with an error naming
// the element.
func (b *Builder) OrderedLogistic(y, eta, c ID, probit bool, pos ast.Pos) ID {
	return b.orderedLogistic(y, eta, c, probit, false, pos)
}

// OrderedLogPDF is OrderedLogistic (OrderedProbit when probit is set) per
// observation: log P(y_n) for each element of y, a vector [n] (a scalar
// for a scalar y), the terms whose sum OrderedLogistic is: logpdf(y,
// OrderedLogistic(eta, c)), an ordinal model's log_lik for PSIS-LOO.
func (b *Builder) OrderedLogPDF(y, eta, c ID, probit bool, pos ast.Pos) ID {
	return b.orderedLogistic(y, eta, c, probit, true, pos)
}

// orderedLogistic adds an OpOrderedLogistic node; perObs (i1 = 1) keeps a
// term per observation instead of their sum.
func (b *Builder) orderedLogistic(y, eta, c ID, probit, perObs bool, pos ast.Pos) ID {
	name := orderedName(probit)
	args, ok := b.operands(y, eta, c)
	if !ok {
		return b.invalid(pos)
	}
	ys, es, cs := b.shapeOf(args[0]), b.shapeOf(args[1]), b.shapeOf(args[2])
	if b.nodes[args[0]].dyn {
		return b.fail(pos, "%s: the value must be data", name)
	}
	if ys.Rank == 2 {
		return b.fail(pos, "%s: the value must be a scalar or a vector, got %v", name, ys)
	}
	if es.Rank == 2 || es.Rank == 1 && es.Rows != ys.Len() {
		return b.fail(pos, "%s: eta %v does not fit the value %v: want a scalar or [%d]", name, es, ys, ys.Len())
	}
	if cs.Rank == 0 || cs.Rank == 2 && cs.Rows != 1 && cs.Rows != ys.Len() {
		return b.fail(pos, "%s: the cutpoints must be a vector [K], a row [1, K] or a matrix [%d, K] (a row per element of the value), got %v", name, ys.Len(), cs)
	}
	nd := node{op: OpOrderedLogistic, args: args, shape: Scalar(), pos: pos}
	if perObs {
		nd.i1, nd.shape = 1, ys
	}
	if probit {
		nd.i0 = 1
	}
	return b.push(nd)
}

func orderedName(probit bool) string {
	if probit {
		return "OrderedProbit"
	}
	return "OrderedLogistic"
}

// orderedFail is p.fail for cutpoint j (≥ 1, its index in the flat
// cutpoints) not above cutpoint j − 1 of its row; a value that is not a
// category fails with its index (≥ 0).
func orderedFail(j int) int { return -1 - j }

// cutRows returns the number K of cutpoints per row of c (a vector [K], a
// row [1, K] or a matrix [n, K]) and the step between the rows that
// observations read: 0 when one row is shared by all, else K.
func cutRows(c Shape) (k, step int) {
	if c.Rank == 1 {
		return c.Rows, 0
	}
	if c.Rows == 1 {
		return c.Cols, 0
	}
	return c.Cols, c.Cols
}

// evalOrderedLogistic is OpOrderedLogistic's forward rule.
func (p *Program) evalOrderedLogistic(n *node) bool {
	y, e, c := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	yv, ev, cv := p.v(y), p.v(e), p.v(c)
	k, cstep := cutRows(c.shape)
	for i, v := range yv {
		if catIndex(v, k+1) < 0 {
			p.fail = i
			return false
		}
	}
	for j := 1; j < len(cv); j++ {
		if j%k != 0 && !(cv[j] > cv[j-1]) {
			p.fail = orderedFail(j)
			return false
		}
	}
	step := min(len(ev)-1, 1) // 0 for a shared scalar eta
	z, per := p.v(n), n.i1 == 1
	sum := 0.0
	for i, v := range yv {
		lp, _ := dist.OrderedLogProb(int(v), ev[i*step], cv[i*cstep:i*cstep+k], n.i0 == 1, nil)
		if per {
			z[i] = lp
			continue
		}
		sum += lp
	}
	if !per {
		z[0] = sum
	}
	return true
}

// gradOrderedLogistic adds g times the partials of each observation's log
// probability in its eta and the two cutpoints around its category: g is
// the adjoint of the sum, or of each observation's term for a
// per-observation node.
func (p *Program) gradOrderedLogistic(n *node, gv []float64) {
	y, e, c := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	yv, ev, cv := p.v(y), p.v(e), p.v(c)
	var ae, ac []float64
	if e.aoff >= 0 {
		ae = p.a(e)
	}
	if c.aoff >= 0 {
		ac = p.a(c)
	}
	if ae == nil && ac == nil {
		return
	}
	step, gs := min(len(ev)-1, 1), obsStep(n)
	k, cstep := cutRows(c.shape)
	var dc [2]float64
	for i, v := range yv {
		g := gv[i*gs]
		// log P(y = cat) depends on the cutpoints cat−1 and cat alone
		// (clipped to 0..K−1) of its row: pass those, the category
		// shifted.
		cat, row := int(v), i*cstep
		lo, hi := max(cat-1, 0), min(cat+1, k)
		_, de := dist.OrderedLogProb(cat-lo, ev[i*step], cv[row+lo:row+hi], n.i0 == 1, dc[:hi-lo])
		if ae != nil {
			ae[i*step] += g * de
		}
		if ac != nil {
			for j, d := range dc[:hi-lo] {
				ac[row+lo+j] += g * d
			}
		}
	}
}

// cutCountHint says, where the values of an ordinal ~ are integers from 0
// up past the k cutpoints' last category k (and not 1-based, which
// oneBasedAdvice explains), that k cutpoints give categories 0..k and how
// many the largest value needs: a 9-point scale coded 0..8 against
// ordered[7] (2026-12-02).
func cutCountHint(vals []float64, k int) string {
	top := -1.0
	for _, v := range vals {
		if v != math.Trunc(v) || v < 0 || math.IsInf(v, 0) {
			return ""
		}
		top = max(top, v)
	}
	if top <= float64(k) || oneBasedAdvice(vals, k+1, "") != "" {
		return ""
	}
	return fmt.Sprintf("; K cutpoints give K+1 categories 0..K, so these %d give 0..%d: declare the cutpoints ordered[%g] for categories 0..%g", k, k, top, top)
}

// orderedHint is the advice for cutpoints that are not increasing: a
// real[8] param where ordered[8] was meant starts with every cutpoint at
// its prior mean, all equal (2026-12-02).
// rows: the cutpoints are a row per element.
func orderedHint(k int, rows bool) string {
	h := fmt.Sprintf("; declare the cutpoints ordered[%d], a param kept increasing (a real vector is not)", k)
	if rows {
		h += fmt.Sprintf(", or ordered[G, %d] for a row per group; rows built from them, as d * c', stay increasing for d > 0", k)
	}
	return h
}

// orderedError explains a failed or non-finite OrderedLogistic node.
func (p *Program) orderedError(n *node, ok bool) error {
	y, e, c := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	yv, ev, cv := p.v(y), p.v(e), p.v(c)
	name := orderedName(n.i0 == 1)
	k, cstep := cutRows(c.shape)
	if !ok {
		if p.fail >= 0 {
			return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: value %g is not a category 0..%d", name, yv[p.fail], k), elemPart(y.shape, p.fail))+oneBasedAdvice(yv, k+1, name+"(eta, c)")+cutCountHint(yv, k))
		}
		j := -1 - p.fail
		sa, sb := shortPair(cv[j], cv[j-1])
		if cstep > 0 { // a row per element: name the row
			r := j / k
			return ast.Errorf(n.pos, "%s: the cutpoints must be strictly increasing in each row: element %d's row of cutpoints has [%d] = %s, not above [%d] = %s%s",
				name, r, j%k, sa, j%k-1, sb, orderedHint(k, true))
		}
		return ast.Errorf(n.pos, "%s: the cutpoints must be strictly increasing: c[%d] = %s is not above c[%d] = %s%s", name, j, sa, j-1, sb, orderedHint(k, false))
	}
	if i := firstBad(ev); i >= 0 {
		return ast.Errorf(n.pos, "%s: eta must be finite (got %g%s)", name, ev[i], withComma(elemPart(e.shape, i)))
	}
	if j := firstBad(cv); j >= 0 {
		return ast.Errorf(n.pos, "%s: the cutpoints must be finite (got %g%s)", name, cv[j], withComma(elemPart(c.shape, j)))
	}
	return ast.Errorf(n.pos, "%s: log probability is %s", name, kind(badValue(p.v(n))))
}

package autodiff

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// Multinomial returns Σ_r log Multinomial(y_r | theta_r) for count rows y
// (data: a vector [k], one row, or a matrix [n, k], a row per observation)
// under the probabilities theta: a vector [k] or row [1, k] shared by every
// row, or a matrix [n, k] whose row r belongs to y's row r. With logit set,
// theta holds log-odds eta and the probabilities are softmax(eta_r),
// computed stably (Stan's multinomial_logit). The log mass of a row of
// total m is log m! − Σ_j log y_j! + Σ_j y_j·log theta_j, a category with
// count 0 contributing nothing whatever its probability. A value that is
// not a count fails the evaluation with an error naming the element. Where
// y is data no minibatch changes and theta is not data, Finish computes
// log y! and log m! once, for every evaluation.
func (b *Builder) Multinomial(y, theta ID, logit bool, pos ast.Pos) ID {
	return b.multinomial(y, theta, logit, false, pos)
}

// MultinomialLogPDF is Multinomial per row: log Multinomial(y_r | theta_r)
// for each row of y, a vector [n] for a matrix y [n, k] (a scalar for a
// vector y [k]), the terms whose sum Multinomial is: logpdf(y,
// Multinomial(theta)), a count model's log_lik for PSIS-LOO.
func (b *Builder) MultinomialLogPDF(y, theta ID, logit bool, pos ast.Pos) ID {
	return b.multinomial(y, theta, logit, true, pos)
}

// multinomial adds an OpMultinomial node; perObs (i1 = 1) keeps a term per
// row instead of their sum.
func (b *Builder) multinomial(y, theta ID, logit, perObs bool, pos ast.Pos) ID {
	name := multinomialName(logit)
	args, ok := b.operands(y, theta)
	if !ok {
		return b.invalid(pos)
	}
	ys, ts := b.shapeOf(args[0]), b.shapeOf(args[1])
	if b.nodes[args[0]].dyn {
		return b.fail(pos, "%s: the value must be data", name)
	}
	if ys.Rank == 0 {
		return b.fail(pos, "%s: the value must be a vector of counts [k] or a matrix [n, k], got a scalar", name)
	}
	n, k := catRows(ys), catCols(ys)
	switch {
	case ts.Rank == 1 && ts.Rows == k:
	case ts.Rank == 2 && ts.Cols == k && (ts.Rows == 1 || ts.Rows == n):
	default:
		want := fmt.Sprintf("[%d] or [1, %d]", k, k)
		if n != 1 {
			want = fmt.Sprintf("[%d], [1, %d] or [%d, %d]", k, k, n, k)
		}
		return b.fail(pos, "%s: argument %v does not fit the value %v: want %s", name, ts, ys, want)
	}
	if k == 0 {
		return b.fail(pos, "%s: needs at least one category", name)
	}
	nd := node{op: OpMultinomial, args: args, shape: Scalar(), pos: pos}
	if perObs && ys.Rank == 2 {
		nd.shape = Vector(n)
	}
	if perObs {
		nd.i1 = 1
	}
	if logit {
		nd.i0 = 1
		nd.nscr = catRows(ts) // the log normaliser of each row of eta
	}
	// Counts of data a minibatch does not change, under a theta that an
	// evaluation does (else Finish evaluates the node once).
	nd.mdata = !b.nodes[args[0]].sub && b.nodes[args[1]].dyn
	return b.push(nd)
}

func multinomialName(logit bool) string {
	if logit {
		return "MultinomialLogit"
	}
	return "Multinomial"
}

// evalMultinomial fails (p.fail the element) on a value that is not a
// count; a probability of 0 at a positive count gives −Inf, which
// multinomialError explains.
func (p *Program) evalMultinomial(n *node) bool {
	y, t := p.arg(n, 0), p.arg(n, 1)
	yv, tv := p.v(y), p.v(t)
	k, step := catCols(y.shape), catStep(t.shape)
	if n.mdata {
		p.evalMultinomialData(n, yv, tv, k, step)
		return true
	}
	for i, v := range yv {
		if !(v >= 0 && v == math.Trunc(v) && v < math.Inf(1)) {
			p.fail = i
			return false
		}
	}
	if n.i0 == 1 {
		lse := p.s(n)
		for r := range lse {
			lse[r] = logSumExp(tv[r*k : r*k+k])
		}
	}
	z, per := p.v(n), n.i1 == 1
	sum := 0.0
	for r := 0; r*k < len(yv); r++ {
		yr, tr := yv[r*k:r*k+k], tv[r*step:r*step+k]
		if per {
			sum = 0
		}
		total := 0.0
		for j, c := range yr {
			if c == 0 {
				continue
			}
			total += c
			lg, _ := math.Lgamma(c + 1)
			sum -= lg
			if n.i0 == 1 {
				sum += c * tr[j]
			} else {
				sum += c * logx(tr[j])
			}
		}
		lg, _ := math.Lgamma(total + 1)
		sum += lg
		if n.i0 == 1 && total > 0 {
			sum -= total * p.s(n)[r*step/k]
		}
		if per {
			z[r] = sum
		}
	}
	if !per {
		z[0] = sum
	}
	return true
}

// multinomialStateLen is the length of a Multinomial's data state for
// counts yv of k categories: log y! per count, then (log m!, m) per row of
// total m.
func multinomialStateLen(ny, k int) int { return ny + 2*(ny/max(k, 1)) }

// prepareMultinomial writes node n's data state (multinomialStateLen) into
// ds, with the Lgamma calls evalMultinomial makes in the same order, so
// that evalMultinomialData returns its numbers bit for bit. It reports
// false, leaving the node to evalMultinomial and its error, if a value is
// not a count.
func (p *Program) prepareMultinomial(n *node, ds []float64) bool {
	y := p.arg(n, 0)
	yv := p.v(y)
	k := catCols(y.shape)
	for _, v := range yv {
		if !(v >= 0 && v == math.Trunc(v) && v < math.Inf(1)) {
			return false
		}
	}
	rows := ds[len(yv):]
	for r := 0; r*k < len(yv); r++ {
		total := 0.0
		for j, c := range yv[r*k : r*k+k] {
			if c == 0 {
				continue
			}
			total += c
			ds[r*k+j], _ = math.Lgamma(c + 1)
		}
		rows[2*r], _ = math.Lgamma(total + 1)
		rows[2*r+1] = total
	}
	return true
}

// evalMultinomialData is evalMultinomial for counts with a data state
// (node.mdata): the same sums in the same order, each Lgamma replaced by
// its prepared value.
func (p *Program) evalMultinomialData(n *node, yv, tv []float64, k, step int) {
	ds := p.dstate[n.doff : n.doff+multinomialStateLen(len(yv), k)]
	rows := ds[len(yv):]
	logit := n.i0 == 1
	var lse []float64
	if logit {
		lse = p.s(n)
		for r := range lse {
			lse[r] = logSumExp(tv[r*k : r*k+k])
		}
	}
	z, per := p.v(n), n.i1 == 1
	sum := 0.0
	for r := 0; r*k < len(yv); r++ {
		yr, tr, lf := yv[r*k:r*k+k], tv[r*step:r*step+k], ds[r*k:r*k+k]
		if per {
			sum = 0
		}
		for j, c := range yr {
			if c == 0 {
				continue
			}
			sum -= lf[j]
			if logit {
				sum += c * tr[j]
			} else {
				sum += c * logx(tr[j])
			}
		}
		sum += rows[2*r]
		if total := rows[2*r+1]; logit && total > 0 {
			sum -= total * lse[r*step/k]
		}
		if per {
			z[r] = sum
		}
	}
	if !per {
		z[0] = sum
	}
}

// gradMultinomial: ∂/∂theta[r, j] = y_rj / theta[r, j] (0 where y_rj is 0);
// ∂/∂eta[r, j] = y_rj − m_r·softmax(eta_r)[j], m_r the row's total, summed
// over the rows for a shared argument. g is the adjoint of the sum, or of
// each row's term for a per-row node.
func (p *Program) gradMultinomial(n *node, gv []float64) {
	y, t := p.arg(n, 0), p.arg(n, 1)
	if t.aoff < 0 {
		return
	}
	yv, tv, at := p.v(y), p.v(t), p.a(t)
	k, step, gs := catCols(y.shape), catStep(t.shape), obsStep(n)
	for r := 0; r*k < len(yv); r++ {
		yr, tr, ar := yv[r*k:r*k+k], tv[r*step:r*step+k], at[r*step:r*step+k]
		g := gv[r*gs]
		if n.i0 == 0 {
			for j, c := range yr {
				if c > 0 {
					ar[j] += g * c / tr[j]
				}
			}
			continue
		}
		total := 0.0
		for j, c := range yr {
			total += c
			ar[j] += g * c
		}
		if total == 0 {
			continue
		}
		l := p.s(n)[r*step/k]
		for j, e := range tr {
			ar[j] -= g * total * math.Exp(e-l)
		}
	}
}

// multinomialError explains a failed or non-finite Multinomial node: a
// value that is not a count, a probability outside (0, 1] at a positive
// count or a non-finite log-odds.
func (p *Program) multinomialError(n *node, ok bool) error {
	y, t := p.arg(n, 0), p.arg(n, 1)
	yv, tv := p.v(y), p.v(t)
	name := multinomialName(n.i0 == 1)
	k, step := catCols(y.shape), catStep(t.shape)
	// Over a loop's rows, an observation per row (obsPerRow), an element
	// is named within its row, as the unrolled loop's vector of it.
	part := elemPart
	if p.obsPerRow(n) {
		part = func(s Shape, e int) string {
			if s.Rank == 2 && s.Rows > 1 {
				return elemPart(Vector(s.Cols), e%s.Cols)
			}
			return elemPart(s, e)
		}
	}
	if !ok {
		return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: value %g is not a count", name, yv[p.fail]), part(y.shape, p.fail)))
	}
	if n.i0 == 1 {
		if r := p.multinomialObs(n, ok); r >= 0 {
			e := r*step + firstBad(tv[r*step:r*step+k])
			return ast.Errorf(n.pos, "%s: eta must be finite (got %g%s)", name, tv[e], withComma(part(t.shape, e)))
		}
		return ast.Errorf(n.pos, "%s: log probability is %s", name, kind(badValue(p.v(n))))
	}
	if r := p.multinomialObs(n, ok); r >= 0 {
		for i, c := range yv[r*k : r*k+k] {
			if x := tv[r*step+i]; c > 0 && (!(x > 0) || math.IsInf(x, 1)) {
				return ast.Errorf(n.pos, "%s: theta must be in (0, 1] at a category with a positive count (got %s%s)", name, short(x, 0, 1), withComma(part(t.shape, r*step+i)))
			}
		}
	}
	return ast.Errorf(n.pos, "%s: log probability is %s", name, kind(badValue(p.v(n))))
}

// multinomialObs returns the row of counts at which Multinomial node n
// failed (multinomialError): a value that is not a count, a non-finite
// log-odds of the row, a probability outside (0, 1] at a positive count;
// −1 if none is found.
func (p *Program) multinomialObs(n *node, ok bool) int {
	y, t := p.arg(n, 0), p.arg(n, 1)
	yv, tv := p.v(y), p.v(t)
	k, step := catCols(y.shape), catStep(t.shape)
	if !ok {
		return p.fail / max(k, 1)
	}
	for i, c := range yv {
		x := tv[(i/k)*step+i%k]
		if n.i0 == 1 && (math.IsNaN(x) || math.IsInf(x, 0)) {
			return i / k
		}
		if n.i0 == 0 && c > 0 && (!(x > 0) || math.IsInf(x, 1)) {
			return i / k
		}
	}
	return -1
}

// RandMultinomial adds a draw of counts from Multinomial(theta) (logit
// unset; theta's rows simplexes) or MultinomialLogit (theta holds
// log-odds), with the numbers of trials n: the replicate of `y ~
// Multinomial(theta, n)`. theta is a vector [k] or row [1, k] shared by
// every row of the draw, or a matrix [r, k], a row each; n a scalar shared
// by every row, or a vector [m], one per row. The draw is a vector [k] for
// a shared theta and a scalar n, else a matrix of a row of counts per row
// of theta or element of n ([r, k], r = m when both are per row; [m, k]
// for a shared theta). Each row takes what its binomials need from the
// replicate stream (dist.Multinomial.Rand), an invalid row nothing, as the
// elementwise draws do.
func (b *Builder) RandMultinomial(theta, n ID, logit bool, pos ast.Pos) ID {
	kind := randMultinomial
	if logit {
		kind = randMultinomialLogit
	}
	name := randRowsName(kind)
	args, ok := b.operands(theta, n)
	if !ok {
		return b.invalid(pos)
	}
	ts, ns := b.shapeOf(args[0]), b.shapeOf(args[1])
	if ts.Rank == 0 {
		return b.fail(pos, "%s: the argument must be a vector [k] or a matrix [r, k], got a scalar", name)
	}
	if ns.Rank == 2 {
		return b.fail(pos, "%s: the number of trials must be a scalar or a vector, got %v", name, ns)
	}
	k, rows := catCols(ts), catRows(ts)
	if k == 0 {
		return b.fail(pos, "%s: needs at least one category", name)
	}
	out := Vector(k)
	switch m := ns.Rows; {
	case ns.Rank == 1 && rows > 1 && m != rows:
		return b.fail(pos, "%s: %d numbers of trials for the %d rows of %v: want one, or one per row", name, m, rows, ts)
	case ns.Rank == 1:
		out = Matrix(m, k)
	case rows > 1:
		out = Matrix(rows, k)
	}
	nd := node{op: OpRand, args: args, shape: out, pos: pos, i0: kind}
	if logit {
		nd.nscr = k // the row's exp(eta − max)
	}
	return b.randNode(nd)
}

// drawMultinomial writes a row of counts per row of z: theta's row (or the
// shared one) and the row's n, by dist.Multinomial's sequential binomials;
// a row whose theta is not a probability row (logit: whose eta is not
// finite) or whose n is not a count is NaN.
func (p *Program) drawMultinomial(n *node, z []float64) {
	t, nn := p.arg(n, 0), p.arg(n, 1)
	tv, nv := p.v(t), p.v(nn)
	k, step := catCols(t.shape), catStep(t.shape)
	for r := 0; r*k < len(z); r++ {
		dst, row := z[r*k:r*k+k], tv[r*step:r*step+k]
		trials := nv[min(r, len(nv)-1)]
		w := row
		switch {
		case n.i0 == randMultinomial && simplexBad(row) != "", n.i0 == randMultinomialLogit && etaBad(row) >= 0:
			w = nil
		case n.i0 == randMultinomialLogit:
			w = p.s(n)
			softmaxWeights(row, w)
		}
		if w == nil {
			for j := range dst {
				dst[j] = math.NaN()
			}
			continue
		}
		dist.Multinomial{N: trials, P: w}.Rand(dst, p.rng)
	}
}

// softmaxWeights writes exp(eta_j − max eta) into w: softmax(eta) up to
// its sum, without overflow.
func softmaxWeights(eta, w []float64) {
	m := math.Inf(-1)
	for _, e := range eta {
		m = max(m, e)
	}
	for j, e := range eta {
		w[j] = math.Exp(e - m)
	}
}

// multinomialRandError explains NaN element k of a Multinomial draw: its
// row's theta (eta) or number of trials.
func (p *Program) multinomialRandError(n *node, k int, name, el string) error {
	t, nn := p.arg(n, 0), p.arg(n, 1)
	kc, step := catCols(t.shape), catStep(t.shape)
	r := k / kc
	row := p.v(t)[r*step : r*step+kc]
	rowName := "theta"
	if n.i0 == randMultinomialLogit {
		rowName = "eta"
	}
	if step > 0 {
		rowName += fmt.Sprintf(" row %d", r)
	}
	if n.i0 == randMultinomial {
		if why := simplexBad(row); why != "" {
			return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: %s is not a probability row: %s", name, rowName, why), el))
		}
	} else if j := etaBad(row); j >= 0 {
		return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: %s entry %d is %g, not finite", name, rowName, j, row[j]), el))
	}
	nv := p.v(nn)
	if i := min(r, len(nv)-1); !(nv[i] >= 0 && nv[i] == math.Trunc(nv[i]) && nv[i] < math.Inf(1)) {
		return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: the number of trials %g is not a count", name, nv[i]), el))
	}
	return ast.Errorf(n.pos, "%s", msg(name+": result is NaN", el))
}

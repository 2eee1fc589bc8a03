package autodiff

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// Row-wise replicates: an OpRand node without a dist draws categories from
// the rows of its argument (Categorical, CategoricalLogit), from an
// ordinal model (OrderedLogistic, OrderedProbit), a simplex per row of
// Dirichlet concentrations, a multivariate normal vector per row of its
// mean (MvNormal, MvNormalRows; randmv.go), or a row of counts per row of
// probabilities (Multinomial, MultinomialLogit; multinomial.go); i0 says
// which. Like the
// elementwise draws they come from the program's replicate stream, one
// uniform per element of the result in element order, by inversion of the
// discrete distribution function, and an invalid argument gives a NaN
// element that randError explains.
const (
	randCategorical = 1 + iota
	randCategoricalLogit
	randOrderedLogistic
	randOrderedProbit
	randDirichlet
	randMvNormal
	randMvNormalRows
	randMvNormalChol
	randWishart // the form's flags in i1 (wishart.go)
	randMultinomial
	randMultinomialLogit
	randHMMLatent       // hmm_latent_rng (hmmlatent.go)
	randPoissonBinomial // a count of successes per row of probabilities (poissonbinomial.go)
)

// simplexDrawTol is how far from 1, per category, a probability row of a
// Categorical draw may sum (data load simplex rows to 1e-8).
const simplexDrawTol = 1e-8

func randRowsName(kind int) string {
	switch kind {
	case randDirichlet:
		return "Dirichlet"
	case randMvNormal:
		return "MvNormal"
	case randMvNormalRows:
		return "MvNormalRows"
	case randMvNormalChol:
		return "MvNormalCholesky"
	case randWishart:
		return "Wishart"
	case randCategorical, randCategoricalLogit:
		return categoricalName(kind == randCategoricalLogit)
	case randMultinomial, randMultinomialLogit:
		return multinomialName(kind == randMultinomialLogit)
	case randHMMLatent:
		return "hmm_latent_rng"
	case randPoissonBinomial:
		return "PoissonBinomial"
	}
	return orderedName(kind == randOrderedProbit)
}

// RandCategorical adds a draw of a category 0..k−1 with the probabilities
// theta (logit unset; each row a simplex) or softmax(theta) (logit set;
// theta holds log-odds): the replicate of `y ~ Categorical(theta)`. theta is
// a vector [k] or row [1, k], shared, or a matrix [n, k]. With rows unset
// the result is one scalar draw from a shared theta; with rows set it is a
// vector [n] with a draw per row of the matrix theta.
func (b *Builder) RandCategorical(theta ID, logit, rows bool, pos ast.Pos) ID {
	kind := randCategorical
	if logit {
		kind = randCategoricalLogit
	}
	name := randRowsName(kind)
	args, ok := b.operands(theta)
	if !ok {
		return b.invalid(pos)
	}
	ts := b.shapeOf(args[0])
	out := Scalar()
	switch {
	case ts.Rank == 0:
		return b.fail(pos, "%s: the argument must be a vector [k] or a matrix [n, k], got a scalar", name)
	case rows && ts.Rank == 2:
		out = Vector(ts.Rows)
	case rows:
		return b.fail(pos, "%s: a draw per row needs a matrix [n, k], got %v", name, ts)
	case ts.Rank == 2 && ts.Rows != 1:
		return b.fail(pos, "%s: one draw needs a vector [k] or a row [1, k], got %v", name, ts)
	}
	if catCols(ts) == 0 {
		return b.fail(pos, "%s: needs at least one category", name)
	}
	nd := node{op: OpRand, args: args, shape: out, pos: pos, i0: kind}
	if logit {
		nd.nscr = catCols(ts) // the row's exp(eta − max)
	}
	return b.randNode(nd)
}

// RandOrdered adds a draw of an ordinal category 0..K from the model of
// `y ~ OrderedLogistic(eta, c)` (probit unset) or OrderedProbit: eta a
// scalar (one draw) or a vector [n] (a draw per element), c the K
// cutpoints, a vector [K] or a row [1, K], or a matrix [n, K] with a row
// per draw (eta then a scalar or [n]).
func (b *Builder) RandOrdered(eta, c ID, probit bool, pos ast.Pos) ID {
	kind := randOrderedLogistic
	if probit {
		kind = randOrderedProbit
	}
	name := randRowsName(kind)
	args, ok := b.operands(eta, c)
	if !ok {
		return b.invalid(pos)
	}
	es, cs := b.shapeOf(args[0]), b.shapeOf(args[1])
	if es.Rank == 2 {
		return b.fail(pos, "%s: eta must be a scalar or a vector, got %v", name, es)
	}
	out := es
	if cs.Rank == 2 && cs.Rows != 1 && es.Rank == 0 {
		out = Vector(cs.Rows)
	}
	if cs.Rank == 0 || cs.Rank == 2 && cs.Rows != 1 && cs.Rows != out.Len() {
		return b.fail(pos, "%s: the cutpoints must be a vector [K], a row [1, K] or a matrix [%d, K] (a row per draw), got %v", name, out.Len(), cs)
	}
	return b.randNode(node{op: OpRand, args: args, shape: out, pos: pos, i0: kind})
}

// RandDirichlet adds a draw of a simplex per row of alpha (a vector [k], a
// row [1, k] or a matrix [n, k] of concentrations): the result has alpha's
// shape. Each row is k gamma draws normalised (dist.Dirichlet.Rand).
func (b *Builder) RandDirichlet(alpha ID, pos ast.Pos) ID {
	args, ok := b.operands(alpha)
	if !ok {
		return b.invalid(pos)
	}
	as := b.shapeOf(args[0])
	if as.Rank == 0 || catCols(as) == 0 {
		return b.fail(pos, "Dirichlet: alpha must be a vector [k] or a matrix [n, k] of the draw's shape, got %v", as)
	}
	return b.randNode(node{op: OpRand, args: args, shape: as, pos: pos, i0: randDirichlet})
}

// randNode pushes a draw node, which counts as depending on the input so
// that it is drawn anew at every Forward.
func (b *Builder) randNode(nd node) ID {
	id := b.push(nd)
	if k := b.index(id); b.nodes[k].op == OpRand {
		b.nodes[k].dyn = true
		b.nodes[k].alt = b.altRand
	}
	return id
}

// AltRand makes the Rand nodes built while on draw from the program's
// second stream (Program.SetAltRand), not the first: draws that adding
// them must not shift, as gpp predict's draws of left-out data leave the
// outputs' replicates as they are.
func (b *Builder) AltRand(on bool) { b.altRand = on }

// evalRandRows draws every element of a row-wise Rand node: one uniform u
// per element, in order, whether or not its argument is valid (so that an
// invalid row does not shift the draws of the others).
func (p *Program) evalRandRows(n *node) {
	z := p.v(n)
	if p.rng == nil {
		for i := range z {
			z[i] = math.NaN()
		}
		return
	}
	switch n.i0 {
	case randMvNormal, randMvNormalRows, randMvNormalChol:
		p.drawMvNormal(n, z)
	case randWishart:
		p.drawWishart(n, z)
	case randMultinomial, randMultinomialLogit:
		p.drawMultinomial(n, z)
	case randHMMLatent:
		p.drawHMMLatent(n, z)
	case randPoissonBinomial:
		p.drawPoissonBinomial(n, z)
	case randDirichlet:
		a := p.arg(n, 0)
		av, k := p.v(a), catCols(a.shape)
		for r := 0; r < catRows(a.shape); r++ {
			row, dst := av[r*k:r*k+k], z[r*k:r*k+k]
			if alphaBad(row) >= 0 {
				for j := range dst {
					dst[j] = math.NaN()
				}
				continue
			}
			dist.Dirichlet{Alpha: row}.Rand(dst, p.rng)
		}
	case randCategorical, randCategoricalLogit:
		t := p.arg(n, 0)
		tv := p.v(t)
		k, step := catCols(t.shape), catStep(t.shape)
		for i := range z {
			u := p.rng.Float64()
			row := tv[i*step : i*step+k]
			if n.i0 == randCategorical {
				z[i] = drawSimplex(row, u)
			} else {
				z[i] = drawSoftmax(row, p.s(n), u)
			}
		}
	default:
		c := p.arg(n, 1)
		ev, cv := p.v(p.arg(n, 0)), p.v(c)
		probit := n.i0 == randOrderedProbit
		k, cstep := cutRows(c.shape)
		estep := min(len(ev)-1, 1)                       // 0 for a scalar eta
		sharedBad := cstep == 0 && cutpointsBad(cv) >= 0 // one shared row: checked once
		for i := range z {
			u := p.rng.Float64()
			row := cv[i*cstep : i*cstep+k]
			if sharedBad || cstep > 0 && cutpointsBad(row) >= 0 {
				z[i] = math.NaN()
				continue
			}
			z[i] = drawOrdered(ev[i*estep], row, probit, u)
		}
	}
}

// drawSimplex returns the smallest category j with u·Σθ < θ_0 + … + θ_j,
// the inverse of the distribution function at u (u in [0, 1)), or NaN when
// theta is not a probability row: an entry negative or not finite, or a sum
// more than simplexDrawTol per category from 1.
func drawSimplex(theta []float64, u float64) float64 {
	if simplexBad(theta) != "" {
		return math.NaN()
	}
	sum := 0.0
	for _, t := range theta {
		sum += t
	}
	return float64(invertCumulative(theta, u*sum))
}

// simplexBad says why theta is not a probability row, or "".
func simplexBad(theta []float64) string {
	sum := 0.0
	for j, t := range theta {
		if !(t >= 0) || math.IsInf(t, 1) {
			return fmt.Sprintf("entry %d is %g", j, t)
		}
		sum += t
	}
	if math.Abs(sum-1) > simplexDrawTol*float64(len(theta)) {
		return fmt.Sprintf("sums to %v, not 1", sum)
	}
	return ""
}

// invertCumulative returns the smallest j with w_0 + … + w_j > x for
// non-negative weights w and 0 ≤ x < Σw; where rounding leaves x at or
// above the running sum's end, the last category of positive weight.
func invertCumulative(w []float64, x float64) int {
	cum, last := 0.0, 0
	for j, v := range w {
		cum += v
		if cum > x {
			return j
		}
		if v > 0 {
			last = j
		}
	}
	return last
}

// drawSoftmax draws from softmax(eta) by inversion: the weights exp(eta_j
// − max eta), each in (0, 1] with the largest 1, so that no log-odds
// overflow or all underflow, kept in w. Non-finite log-odds give NaN.
func drawSoftmax(eta, w []float64, u float64) float64 {
	if etaBad(eta) >= 0 {
		return math.NaN()
	}
	m := math.Inf(-1)
	for _, e := range eta {
		m = max(m, e)
	}
	sum := 0.0
	for j, e := range eta {
		w[j] = math.Exp(e - m)
		sum += w[j]
	}
	return float64(invertCumulative(w[:len(eta)], u*sum))
}

// etaBad returns the index of the first log-odds that is not finite, or −1.
func etaBad(eta []float64) int {
	for j, e := range eta {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return j
		}
	}
	return -1
}

// alphaBad returns the index of the first concentration that is not
// positive and finite, or −1.
func alphaBad(alpha []float64) int {
	for j, a := range alpha {
		if !(a > 0) || math.IsInf(a, 1) {
			return j
		}
	}
	return -1
}

// cutpointsBad returns the index j of the first cutpoint that is not
// finite or not above c[j−1], or −1.
func cutpointsBad(c []float64) int {
	for j, v := range c {
		if math.IsNaN(v) || math.IsInf(v, 0) || j > 0 && !(v > c[j-1]) {
			return j
		}
	}
	return -1
}

// drawOrdered returns the category y = #{k : u < F(eta − c_k)}, with F the
// logistic or the normal distribution function: P(y > k) = P(eta + e >
// c_k) = F(eta − c_k), decreasing in k, so the k counted are a prefix and y
// is the inverse of the distribution function at 1 − u. F is evaluated at
// any eta − c_k without overflow (inv_logit, erfc), so extreme eta give the
// end categories. A non-finite eta gives NaN.
func drawOrdered(eta float64, c []float64, probit bool, u float64) float64 {
	if math.IsNaN(eta) || math.IsInf(eta, 0) {
		return math.NaN()
	}
	y := 0
	for _, ck := range c {
		var f float64
		if probit {
			f = 0.5 * math.Erfc((ck-eta)/math.Sqrt2)
		} else {
			f = invLogit(eta - ck)
		}
		if !(u < f) {
			break
		}
		y++
	}
	return float64(y)
}

// randRowsError explains NaN element k of a row-wise Rand node.
func (p *Program) randRowsError(n *node, k int, el string) error {
	name := randRowsName(n.i0) + " draw"
	if n.i0 == randHMMLatent {
		name = randRowsName(n.i0)
	}
	if n.i0 == randWishart {
		name = wishartForm(n.i1).Name() + " draw"
	}
	if p.rng == nil {
		return ast.Errorf(n.pos, "%s", msg(name+": no random stream", el))
	}
	switch n.i0 {
	case randMvNormal, randMvNormalRows, randMvNormalChol:
		return p.mvRandError(n, k, name, el)
	case randWishart:
		return p.wishartRandError(n, name, el)
	case randMultinomial, randMultinomialLogit:
		return p.multinomialRandError(n, k, name, el)
	case randHMMLatent:
		return p.hmmLatentError(n, name, el)
	case randPoissonBinomial:
		return p.poissonBinomialRandError(n, k, name, el)
	case randDirichlet:
		a := p.arg(n, 0)
		kc := catCols(a.shape)
		row := p.v(a)[k/kc*kc : k/kc*kc+kc]
		if j := alphaBad(row); j >= 0 {
			return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: alpha = %g is not a valid positive parameter", name, row[j]), el))
		}
	case randCategorical, randCategoricalLogit:
		t := p.arg(n, 0)
		tv := p.v(t)
		kc, step := catCols(t.shape), catStep(t.shape)
		row := tv[k*step : k*step+kc]
		rowName := "theta"
		if n.i0 == randCategoricalLogit {
			rowName = "eta"
		}
		if t.shape.Rank == 2 && t.shape.Rows > 1 {
			rowName += fmt.Sprintf(" row %d", k)
		}
		if n.i0 == randCategorical {
			if why := simplexBad(row); why != "" {
				return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: %s is not a probability row: %s", name, rowName, why), el))
			}
		} else if j := etaBad(row); j >= 0 {
			return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: %s entry %d is %g, not finite", name, rowName, j, row[j]), el))
		}
	default:
		c := p.arg(n, 1)
		ev, cv := p.v(p.arg(n, 0)), p.v(c)
		kc, cstep := cutRows(c.shape)
		if cstep > 0 { // element k's row, named c[k, j]
			cv = cv[k*cstep : k*cstep+kc]
		}
		if j := cutpointsBad(cv); j >= 0 {
			at := func(j int) string {
				if cstep > 0 {
					return fmt.Sprintf("c[%d, %d]", k, j)
				}
				return fmt.Sprintf("c[%d]", j)
			}
			if math.IsNaN(cv[j]) || math.IsInf(cv[j], 0) {
				return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: cutpoint %s is %g, not finite", name, at(j), cv[j]), el))
			}
			sa, sb := shortPair(cv[j], cv[j-1])
			return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: the cutpoints must be strictly increasing: %s = %s is not above %s = %s",
				name, at(j), sa, at(j-1), sb), el))
		}
		if e := ev[min(k, len(ev)-1)]; math.IsNaN(e) || math.IsInf(e, 0) {
			return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: eta = %g is not finite", name, e), el))
		}
	}
	return ast.Errorf(n.pos, "%s", msg(name+": result is NaN", el))
}

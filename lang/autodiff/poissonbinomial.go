package autodiff

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// PoissonBinomial returns Σ_r f(y_r | theta_r) for counts y (data: a
// scalar, or a vector [n] of ints 0..N) of successes in N independent
// trials with success probabilities theta: a vector [N] or row [1, N]
// shared by every count, or a matrix [n, N] whose row r belongs to y_r
// (Stan's poisson_binomial of an array of vectors). f is the log mass
// (tail 0), log P(Y ≤ y) (tail −1, Stan's poisson_binomial_lcdf) or log
// P(Y > y) (tail 1, _lccdf), each by dist.PoissonBinomialEval's O(N²)
// recursion in log space; the gradient in theta is its forward-backward
// identity (dist.PoissonBinomialGrad), recomputing each row's layers, so
// the scratch is one row's, O(N²), whatever n is. With perObs it keeps a
// term per count (logpdf, logcdf, logccdf), a vector like y. A count
// outside 0..N fails the evaluation naming the element; a theta outside
// [0, 1] gives NaN, which poissonBinomialError names.
func (b *Builder) PoissonBinomial(y, theta ID, tail int, perObs bool, pos ast.Pos) ID {
	name := poissonBinomialName(tail)
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
	switch {
	case ts.Rank == 1:
	case ts.Rank == 2 && (ts.Rows == 1 || ts.Rows == n):
	default:
		want := "[N] or [1, N]"
		if n != 1 {
			want = fmt.Sprintf("[N], [1, N] or [%d, N]", n)
		}
		return b.fail(pos, "%s: theta %v does not fit the value %v: want %s", name, ts, ys, want)
	}
	// the kernels' scratch, then (shared theta) a weight per outcome
	nd := node{op: OpPoissonBinomial, args: args, shape: Scalar(), pos: pos, i0: tail + 1,
		nscr: dist.PoissonBinomialScratch(catCols(ts)) + catCols(ts) + 1}
	if perObs {
		nd.i1, nd.shape = 1, ys
	}
	return b.push(nd)
}

func poissonBinomialName(tail int) string {
	switch tail {
	case -1:
		return "logcdf(PoissonBinomial)"
	case 1:
		return "logccdf(PoissonBinomial)"
	}
	return "PoissonBinomial"
}

// pbCount returns count v as an int if it is one in 0..k, else −1.
func pbCount(v float64, k int) int {
	if !(v >= 0 && v <= float64(k)) || v != math.Trunc(v) {
		return -1
	}
	return int(v)
}

// pbThetaBad returns the index of the first entry of row not in [0, 1],
// or −1.
func pbThetaBad(row []float64) int {
	for j, t := range row {
		if !(t >= 0 && t <= 1) {
			return j
		}
	}
	return -1
}

// pbThetaMsg says that element e of theta t is outside [0, 1], for the
// density's and the draw's errors.
func (p *Program) pbThetaMsg(name string, t *node, e int) string {
	return fmt.Sprintf("%s: theta must be in [0, 1] (got %s%s)", name, short(p.v(t)[e], 0, 1), withComma(p.nodeElemPart(t, t.shape, e)))
}

// evalPoissonBinomial fails (p.fail the element) on a value that is not a
// count in 0..N; a row of theta with an entry outside [0, 1] gives NaN.
func (p *Program) evalPoissonBinomial(n *node) bool {
	y, t := p.arg(n, 0), p.arg(n, 1)
	yv, tv := p.v(y), p.v(t)
	k, step := catCols(t.shape), catStep(t.shape)
	for i, v := range yv {
		if pbCount(v, k) < 0 {
			p.fail = i
			return false
		}
	}
	z, per, tail, scr := p.v(n), n.i1 == 1, n.i0-1, p.s(n)
	shared := step == 0 && len(yv) > 1 && pbThetaBad(tv[:k]) < 0
	if shared { // one pass for all counts
		dist.PoissonBinomialAll(tv[:k], scr)
	}
	sum := 0.0
	for i, v := range yv {
		row := tv[i*step : i*step+k]
		f := math.NaN()
		switch {
		case shared:
			f = dist.PoissonBinomialTail(scr, k, int(v), tail)
		case pbThetaBad(row) < 0:
			f = dist.PoissonBinomialEval(row, int(v), tail, scr)
		}
		if per {
			z[i] = f
		}
		sum += f
	}
	if !per {
		z[0] = sum
	}
	return true
}

// gradPoissonBinomial adds each count's partials in its row of theta,
// its layers recomputed in the node's scratch; for a shared theta, one
// forward pass and a backward pass per distinct count, weighted by the
// sum of its counts' adjoints. g is the adjoint of the sum, or of each
// count's term for a per-observation node.
func (p *Program) gradPoissonBinomial(n *node, g []float64) {
	y, t := p.arg(n, 0), p.arg(n, 1)
	if t.aoff < 0 {
		return
	}
	yv, tv, at := p.v(y), p.v(t), p.a(t)
	k, step, gs := catCols(t.shape), catStep(t.shape), obsStep(n)
	tail, scr := n.i0-1, p.s(n)
	if step == 0 && len(yv) > 1 {
		m := dist.PoissonBinomialScratch(k)
		scr, c := scr[:m], scr[m:m+k+1]
		clear(c)
		for i, v := range yv {
			c[int(v)] += g[i*gs]
		}
		dist.PoissonBinomialAll(tv[:k], scr)
		for v, w := range c {
			if w != 0 {
				dist.PoissonBinomialGrad(at[:k], tv[:k], v, tail, dist.PoissonBinomialTail(scr, k, v, tail), w, scr)
			}
		}
		return
	}
	for i, v := range yv {
		row := tv[i*step : i*step+k]
		f := dist.PoissonBinomialEval(row, int(v), tail, scr)
		dist.PoissonBinomialGrad(at[i*step:i*step+k], row, int(v), tail, f, g[i*gs], scr)
	}
}

// poissonBinomialError explains a failed or non-finite PoissonBinomial
// node: a value that is not a count in 0..N, a theta outside [0, 1], or a
// count that its probabilities make impossible (log probability −Inf).
func (p *Program) poissonBinomialError(n *node, ok bool) error {
	y, t := p.arg(n, 0), p.arg(n, 1)
	yv, tv := p.v(y), p.v(t)
	name := poissonBinomialName(n.i0 - 1)
	k, step := catCols(t.shape), catStep(t.shape)
	if !ok {
		return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: value %g is not a count of successes 0..%d (theta has %d trials)", name, yv[p.fail], k, k), p.nodeElemPart(y, y.shape, p.fail)))
	}
	for i := range yv {
		if j := pbThetaBad(tv[i*step : i*step+k]); j >= 0 {
			return ast.Errorf(n.pos, "%s", p.pbThetaMsg(name, t, i*step+j))
		}
	}
	if i := p.poissonBinomialObs(n, ok); i >= 0 {
		row := tv[i*step : i*step+k]
		lo, hi := 0, 0
		for _, x := range row {
			if x == 1 {
				lo++
			}
			if x > 0 {
				hi++
			}
		}
		// the counts of positive probability are lo..hi; name the event
		// the value stands for: y itself, at most y, or more than y
		what := [...]string{"at most %g successes are", "%g successes are", "more than %g successes are"}[n.i0]
		return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: log probability is -Inf: "+what+" impossible when theta has %d entries of 1 and %d above 0", name, yv[i], lo, hi), p.nodeElemPart(y, y.shape, i)))
	}
	return ast.Errorf(n.pos, "%s: log probability is %s", name, kind(badValue(p.v(n))))
}

// poissonBinomialObs returns the count at which PoissonBinomial node n
// failed: a value that is not a count, a row of theta outside [0, 1], or
// a count of probability 0; −1 if none is found.
func (p *Program) poissonBinomialObs(n *node, ok bool) int {
	if !ok {
		return p.fail
	}
	y, t := p.arg(n, 0), p.arg(n, 1)
	yv, tv := p.v(y), p.v(t)
	k, step := catCols(t.shape), catStep(t.shape)
	for i, v := range yv {
		row := tv[i*step : i*step+k]
		if pbThetaBad(row) >= 0 {
			return i
		}
		if f := dist.PoissonBinomialEval(row, int(v), n.i0-1, p.s(n)); math.IsInf(f, -1) {
			return i
		}
	}
	return -1
}

// RandPoissonBinomial adds a draw of a count of successes from
// PoissonBinomial(theta): the replicate of `y ~ PoissonBinomial(theta)`.
// theta is a vector [N] or row [1, N] (one draw, a scalar) or a matrix
// [n, N] (a draw per row, a vector [n]). Each draw takes N uniforms from
// the replicate stream, one per trial, whether or not its row is valid; a
// row with an entry outside [0, 1] draws NaN.
func (b *Builder) RandPoissonBinomial(theta ID, pos ast.Pos) ID {
	args, ok := b.operands(theta)
	if !ok {
		return b.invalid(pos)
	}
	ts := b.shapeOf(args[0])
	out := Scalar()
	switch {
	case ts.Rank == 0:
		return b.fail(pos, "PoissonBinomial: theta must be a vector [N] or a matrix [n, N], got a scalar")
	case ts.Rank == 2 && ts.Rows != 1:
		out = Vector(ts.Rows)
	}
	return b.randNode(node{op: OpRand, args: args, shape: out, pos: pos, i0: randPoissonBinomial})
}

// drawPoissonBinomial writes a draw per element of z from its row of
// theta.
func (p *Program) drawPoissonBinomial(n *node, z []float64) {
	t := p.arg(n, 0)
	tv := p.v(t)
	k, step := catCols(t.shape), catStep(t.shape)
	for i := range z {
		row := tv[i*step : i*step+k]
		s := 0.0
		for _, x := range row {
			if p.rng.Float64() < x {
				s++
			}
		}
		if pbThetaBad(row) >= 0 {
			s = math.NaN()
		}
		z[i] = s
	}
}

// poissonBinomialRandError explains NaN element k of a PoissonBinomial
// draw: its row of theta.
func (p *Program) poissonBinomialRandError(n *node, k int, name, el string) error {
	t := p.arg(n, 0)
	kc, step := catCols(t.shape), catStep(t.shape)
	row := p.v(t)[k*step : k*step+kc]
	if j := pbThetaBad(row); j >= 0 {
		return ast.Errorf(n.pos, "%s", msg(p.pbThetaMsg(name, t, k*step+j), el))
	}
	return ast.Errorf(n.pos, "%s", msg(name+": result is NaN", el))
}

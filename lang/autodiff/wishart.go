package autodiff

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// OpWishart's flags (node.i0).
const (
	wishartInverse = 1 << iota // the inverse Wishart
	wishartChol                // the density of the factor L_X (WishartCholesky)
	wishartXFull               // the value is X itself, factored in the node's scratch
	wishartSFull               // the scale is S itself, factored in the node's scratch
)

// Wishart returns log Wishart(X | nu, S), or with inverse set log
// InvWishart(X | nu, S), normalised (dist.WishartLogPDF): X and S K×K
// symmetric positive definite, nu a scalar > K − 1. When X is the value of
// a CovMatrix node (a cov_matrix[K] param) the density reads its factor
// L, with no factorisation; any other X (data) and S are factored in the
// node's scratch at every evaluation. An S or X that is not symmetric (to
// 1e-8 of √(a_ii a_jj)) or not positive definite, or a nu not > K − 1,
// fails the evaluation with an error at pos.
func (b *Builder) Wishart(x, nu, s ID, inverse bool, pos ast.Pos) ID {
	args, ok := b.operands(x, nu, s)
	if !ok {
		return b.invalid(pos)
	}
	flags := wishartSFull
	if inverse {
		flags |= wishartInverse
	}
	if o := b.nodes[args[0]]; o.op == OpCovFromChol {
		args[0] = o.args[0]
	} else {
		flags |= wishartXFull
	}
	// A matrix known before the fit (data S, data Y) is factored once,
	// here, rather than at every evaluation; one that has no factor is
	// left to the evaluation, whose error says why.
	for _, m := range [...]struct{ arg, full int }{{0, wishartXFull}, {2, wishartSFull}} {
		if flags&m.full != 0 {
			if l, ok := b.knownFactor(args[m.arg], pos); ok {
				args[m.arg] = l
				flags &^= m.full
			}
		}
	}
	return b.wishart(args, flags, pos)
}

// knownFactor returns a constant node of the lower Cholesky factor of node
// i, a square matrix whose value is known while building (data), or false
// when it is not known, not square, not symmetric or not positive
// definite.
func (b *Builder) knownFactor(i int32, pos ast.Pos) (int32, bool) {
	sh := b.nodes[i].shape
	if !sh.IsSquare() {
		return 0, false
	}
	v, ok := b.Known(b.id(int(i)))
	if !ok {
		return 0, false
	}
	k := sh.Rows
	l, ok := wishartFactor(make([]float64, k*k), v, k, true)
	if !ok {
		return 0, false
	}
	return b.index(b.Const(l, sh, pos)), true
}

// WishartCholesky returns the log density of the lower factor L of X =
// L L' when X ~ Wishart(nu, L_S L_S') (Stan's wishart_cholesky), or with
// inverse set InvWishart(nu, L_S L_S') (inv_wishart_cholesky): the density
// of X at L L' plus the log Jacobian K log 2 + Σ_i (K − i) log L_ii of
// L → L L'. Only the lower triangles of l and ls are read, as Stan reads
// them; a diagonal entry not > 0 fails the evaluation.
func (b *Builder) WishartCholesky(l, nu, ls ID, inverse bool, pos ast.Pos) ID {
	args, ok := b.operands(l, nu, ls)
	if !ok {
		return b.invalid(pos)
	}
	flags := wishartChol
	if inverse {
		flags |= wishartInverse
	}
	return b.wishart(args, flags, pos)
}

func (b *Builder) wishart(args []int32, flags int, pos ast.Pos) ID {
	name := wishartForm(flags).Name()
	xs, ns, ss := b.shapeOf(args[0]), b.shapeOf(args[1]), b.shapeOf(args[2])
	if !xs.IsSquare() || xs.Rows == 0 {
		return b.fail(pos, "%s: the value must be a square matrix [K, K], K ≥ 1, got %s", name, xs)
	}
	if ns.Len() != 1 {
		return b.fail(pos, "%s: nu must be a scalar, got %s", name, ns)
	}
	if ss.Rank != 2 || ss.Rows != xs.Rows || ss.Cols != xs.Rows {
		return b.fail(pos, "%s: the scale matrix must be [%d, %d] as the value is, got %s", name, xs.Rows, xs.Rows, ss)
	}
	k := xs.Rows
	// scratch: X's and S's factors, M = A⁻¹B, N = A⁻ᵀM, the factors'
	// adjoints, cholGrad's work, and the partial in nu
	return b.push(node{op: OpWishart, args: args, shape: Scalar(), pos: pos, i0: flags, nscr: 7*k*k + 1})
}

func wishartForm(flags int) dist.WishartForm {
	return dist.WishartForm{Inverse: flags&wishartInverse != 0, Chol: flags&wishartChol != 0}
}

// wishartScratch splits an OpWishart node's scratch.
func (p *Program) wishartScratch(n *node) (lx, ls, m, w, glx, gls, cw, dnu []float64) {
	k := p.arg(n, 0).shape.Rows
	kk := k * k
	s := p.s(n)
	return s[:kk], s[kk : 2*kk], s[2*kk : 3*kk], s[3*kk : 4*kk], s[4*kk : 5*kk], s[5*kk : 6*kk], s[6*kk : 7*kk], s[7*kk : 7*kk+1]
}

// wishartFactor returns the lower factor of argument a of n: its value
// when full is unset, else the Cholesky factor of its (symmetric) value
// written into l; ok false when there is none.
func wishartFactor(l, v []float64, k int, full bool) ([]float64, bool) {
	if !full {
		return v, cholDiagBad(v, k) < 0
	}
	if _, _, ok := asymmetric(v, k); !ok {
		return nil, false
	}
	symLower(l, v, k)
	return l, cholesky(l, k) == 0
}

// evalWishart is OpWishart's forward rule; false when nu is not > K − 1
// or a matrix has no factor.
func (p *Program) evalWishart(n *node) bool {
	x, e, s := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	k, nu := x.shape.Rows, p.v(e)[0]
	if !(nu > float64(k-1)) || math.IsInf(nu, 1) {
		return false
	}
	lxs, lss, m, _, _, _, _, dnu := p.wishartScratch(n)
	lx, ok := wishartFactor(lxs, p.v(x), k, n.i0&wishartXFull != 0)
	if !ok {
		return false
	}
	ls, ok := wishartFactor(lss, p.v(s), k, n.i0&wishartSFull != 0)
	if !ok {
		return false
	}
	p.v(n)[0], dnu[0] = dist.WishartLogPDF(wishartForm(n.i0), lx, ls, k, nu, m)
	return true
}

// gradWishart: the factors' adjoints from dist.WishartGrad, through
// cholGrad to a matrix that was factored here; nu's from the density's
// partial.
func (p *Program) gradWishart(n *node, g float64) {
	x, e, s := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	k, nu := x.shape.Rows, p.v(e)[0]
	xFull, sFull := n.i0&wishartXFull != 0, n.i0&wishartSFull != 0
	lxs, lss, m, w, glx, gls, cw, dnu := p.wishartScratch(n)
	lx, ls := p.v(x), p.v(s)
	if xFull {
		lx = lxs
	}
	if sFull {
		ls = lss
	}
	f := wishartForm(n.i0)
	if e.aoff >= 0 {
		p.a(e)[0] += g * dnu[0]
	}
	var ax, as []float64
	if x.aoff >= 0 {
		ax = p.a(x)
		if xFull {
			clear(glx)
			ax = glx
		}
	}
	if s.aoff >= 0 {
		as = p.a(s)
		if sFull {
			clear(gls)
			as = gls
		}
	}
	if ax == nil && as == nil {
		return
	}
	dist.WishartGrad(f, ax, as, lx, ls, k, nu, m, w, g)
	if x.aoff >= 0 && xFull {
		cholGrad(p.a(x), glx, lx, cw, k)
	}
	if s.aoff >= 0 && sFull {
		cholGrad(p.a(s), gls, ls, cw, k)
	}
}

// wishartError describes a failed or non-finite OpWishart node.
func (p *Program) wishartError(n *node) error {
	x, e, s := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	k, nu := x.shape.Rows, p.v(e)[0]
	name := wishartForm(n.i0).Name()
	if !(nu > float64(k-1)) || math.IsInf(nu, 1) {
		return ast.Errorf(n.pos, "%s: nu must be > K − 1 = %d and finite (got %s)", name, k-1, short(nu, float64(k-1)))
	}
	sName := "S"
	if n.i0&wishartSFull == 0 {
		sName = "L_S"
	}
	if why := wishartMatrixBad(p.v(x), k, n.i0&wishartXFull != 0, "the value"); why != "" {
		return ast.Errorf(n.pos, "%s: %s", name, why)
	}
	if why := wishartMatrixBad(p.v(s), k, n.i0&wishartSFull != 0, "the scale matrix "+sName); why != "" {
		return ast.Errorf(n.pos, "%s: %s", name, why)
	}
	return ast.Errorf(n.pos, "%s: log density is %s", name, kind(p.v(n)[0]))
}

// wishartMatrixBad says why v [k, k] is not a valid argument of a Wishart
// node (a symmetric positive definite matrix when full, else a factor
// with a positive diagonal), or "". It allocates: the error path only.
func wishartMatrixBad(v []float64, k int, full bool, what string) string {
	if !full {
		if why := cholFactorBad(v, k); why != "" {
			return what + ": " + why
		}
		return ""
	}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprintf("%s has [%d, %d] = %g, not finite", what, i/k, i%k, x)
		}
	}
	if i, j, ok := asymmetric(v, k); !ok {
		sa, sb := shortPair(v[i*k+j], v[j*k+i])
		return fmt.Sprintf("%s is not symmetric: element [%d, %d] is %s, [%d, %d] is %s", what, i, j, sa, j, i, sb)
	}
	l := make([]float64, k*k)
	symLower(l, v, k)
	if j := cholesky(l, k); j > 0 {
		return fmt.Sprintf("%s is not positive definite (leading minor %d)", what, j)
	}
	return ""
}

// wishartDataBad checks, before a fit, the arguments of a Wishart node
// that depend on data alone: nu > K − 1, S (or L_S) and a data value
// valid. The error is at the argument.
func (p *Program) wishartDataBad(n *node) error {
	x, e, s := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	k := x.shape.Rows
	name := wishartForm(n.i0).Name()
	if nu := p.v(e)[0]; !e.dyn && (!(nu > float64(k-1)) || math.IsInf(nu, 1)) {
		return ast.Errorf(e.pos, "%s argument 1 (nu) is %s, not > K − 1 = %d; it depends on the data alone, so no fit can change it", name, short(nu, float64(k-1)), k-1)
	}
	full := n.i0&wishartSFull != 0
	if !s.dyn {
		what := "S"
		if !full {
			what = "L_S"
		}
		if why := wishartMatrixBad(p.v(s), k, full, what); why != "" {
			return ast.Errorf(s.pos, "%s argument 2 (%s): %s; it depends on the data alone, so no fit can change it", name, what, why)
		}
	}
	if !x.dyn {
		if why := wishartMatrixBad(p.v(x), k, n.i0&wishartXFull != 0, "the value"); why != "" {
			return ast.Errorf(x.pos, "%s: %s; it is data, so no fit can change it", name, why)
		}
	}
	return nil
}

// RandWishart adds a draw from Wishart(nu, S), or with inverse set
// InvWishart(nu, S): the replicate of `output W ~ Wishart(nu, S)`, a K×K
// matrix, exactly symmetric (dist.WishartRand: Bartlett's decomposition).
// With chol set the arguments are nu and the lower factor L_S, and the
// draw is the lower factor of the matrix (WishartCholesky,
// InvWishartCholesky). S is factored into the node's scratch at every
// evaluation, with the density's tests; where nu is not > K − 1 or S has
// no factor the whole draw is NaN.
func (b *Builder) RandWishart(nu, s ID, inverse, chol bool, pos ast.Pos) ID {
	flags := 0
	if inverse {
		flags |= wishartInverse
	}
	if chol {
		flags |= wishartChol
	} else {
		flags |= wishartSFull
	}
	name := wishartForm(flags).Name()
	args, ok := b.operands(nu, s)
	if !ok {
		return b.invalid(pos)
	}
	ns, ss := b.shapeOf(args[0]), b.shapeOf(args[1])
	if ns.Len() != 1 {
		return b.fail(pos, "%s: nu must be a scalar, got %s", name, ns)
	}
	if !ss.IsSquare() || ss.Rows == 0 {
		return b.fail(pos, "%s: the scale matrix must be a square matrix [K, K], K ≥ 1, got %s", name, ss)
	}
	k := ss.Rows
	// scratch: S's factor, Bartlett's T and a product
	return b.randNode(node{op: OpRand, args: args, shape: Matrix(k, k), pos: pos, i0: randWishart, i1: flags, nscr: 3 * k * k})
}

// drawWishart draws a Wishart-family replicate into z. An invalid nu or
// scale matrix draws as for nu = K and S = I and then makes every element
// NaN, so that the replicates that follow see the stream they would see.
func (p *Program) drawWishart(n *node, z []float64) {
	e, s := p.arg(n, 0), p.arg(n, 1)
	k, nu := s.shape.Rows, p.v(e)[0]
	scr := p.s(n)
	kk := k * k
	lss, t, u := scr[:kk], scr[kk:2*kk], scr[2*kk:3*kk]
	ls, ok := wishartFactor(lss, p.v(s), k, n.i1&wishartSFull != 0)
	if ok && n.i1&wishartSFull == 0 {
		ok = cholFactorOK(ls, k)
	}
	ok = ok && nu > float64(k-1) && !math.IsInf(nu, 1)
	if !ok {
		clear(lss)
		for i := range k {
			lss[i*k+i] = 1
		}
		ls, nu = lss, float64(k)
	}
	dist.WishartRand(wishartForm(n.i1), z, ls, k, nu, t, u, p.rng)
	if !ok {
		fillNaN(z)
	}
}

// wishartRandError explains a NaN element of a Wishart-family replicate.
func (p *Program) wishartRandError(n *node, name, el string) error {
	e, s := p.arg(n, 0), p.arg(n, 1)
	k, nu := s.shape.Rows, p.v(e)[0]
	if !(nu > float64(k-1)) || math.IsInf(nu, 1) {
		return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: nu must be > K − 1 = %d and finite (got %s)", name, k-1, short(nu, float64(k-1))), el))
	}
	what := "S"
	if n.i1&wishartSFull == 0 {
		what = "L_S"
	}
	if why := wishartMatrixBad(p.v(s), k, n.i1&wishartSFull != 0, what); why != "" {
		return ast.Errorf(n.pos, "%s", msg(name+": "+why, el))
	}
	return ast.Errorf(n.pos, "%s", msg(name+": result is NaN", el))
}

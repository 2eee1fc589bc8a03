package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// Rand adds a draw from d for every element of the broadcast shape of args:
// an output's posterior predictive replicate (output y_rep ~ Poisson(rate)).
// The node always counts as depending on the input, so that it is drawn
// anew at every Forward even when its arguments are data. It has no
// derivative: it may feed outputs only, never the log joint (Finish
// rejects that).
func (b *Builder) Rand(d dist.Univariate, args []ID, pos ast.Pos) ID {
	return b.RandTrunc(d, args, nil, nil, pos)
}

// RandTrunc adds a draw from d truncated to [lo, hi] for every element of
// the broadcast shape of args and the bounds (output y_rep ~ Normal(mu, s)
// T[0, ]), by dist.TruncRand; a nil bound is an open end. A draw that
// cannot be made (L ≥ U at a draw, no mass between them) is a NaN element,
// which the output's error explains.
func (b *Builder) RandTrunc(d dist.Univariate, args []ID, lo, hi *ID, pos ast.Pos) ID {
	if d.Rand == nil {
		panic("autodiff: Rand of a distribution without a sampler")
	}
	all := args
	ends := 0
	if lo != nil {
		all, ends = append(slices.Clip(all), *lo), ends|randTruncLower
	}
	if hi != nil {
		all, ends = append(slices.Clip(all), *hi), ends|randTruncUpper
	}
	ops, ok := b.operands(all...)
	if !ok {
		return b.invalid(pos)
	}
	if d.Params != nil && len(args) != len(d.Params) {
		return b.fail(pos, "%s: takes %d arguments, got %d", d.Name, len(d.Params), len(args))
	}
	out, _, gr, gc, bc, ok := b.elementwise(ops)
	if !ok {
		if ends != 0 {
			return b.fail(pos, "%s: the shapes of its arguments and of the bounds of T[L, U] do not broadcast", d.Name)
		}
		return b.fail(pos, "%s: the shapes of its arguments do not broadcast", d.Name)
	}
	dd := d
	return b.randNode(node{op: OpRand, args: ops, shape: out, pos: pos, gr: gr, gc: gc, bc: bc,
		dist: &dd, nscr: len(args), i0: ends})
}

// The ends of T[L, U] that an elementwise Rand node has (node.i0): its
// operands after the distribution's arguments are L, then U.
const (
	randTruncLower = 1 << iota
	randTruncUpper
)

// truncEnds reads the bounds of element (i, j) of an elementwise Rand
// node: −Inf and +Inf for the ends it does not have.
func (p *Program) truncEnds(n *node, i, j int) (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	a := n.nscr
	read := func() float64 {
		q := n.bc[3*a : 3*a+3]
		a++
		return p.val[q[0]+i*q[1]+j*q[2]]
	}
	if n.i0&randTruncLower != 0 {
		lo = read()
	}
	if n.i0&randTruncUpper != 0 {
		hi = read()
	}
	return lo, hi
}

// SetRand gives the program the stream that its Rand nodes draw from (nil:
// they give NaN). Clones start without one.
func (p *Program) SetRand(rng *rand.Rand) { p.rng = rng }

// SetAltRand gives the program the second stream, that of the Rand nodes
// built under Builder.AltRand (nil: they give NaN).
func (p *Program) SetAltRand(rng *rand.Rand) { p.rngAlt = rng }

// evalRand draws every element of a Rand node. Arguments outside their
// parameter's support give a NaN element, which the output's error names.
func (p *Program) evalRand(n *node) {
	if n.dist == nil {
		p.evalRandRows(n)
		return
	}
	z := p.v(n)
	par := p.s(n)
	val, bc := p.val, n.bc
	k := 0
	for i := 0; i < n.gr; i++ {
		for j := 0; j < n.gc; j++ {
			good := p.rng != nil
			for a := range par {
				q := bc[3*a : 3*a+3]
				par[a] = val[q[0]+i*q[1]+j*q[2]]
				good = good && randParamOK(n.dist.Params[a].Support, par[a])
			}
			switch {
			case good && n.i0 != 0:
				lo, hi := p.truncEnds(n, i, j)
				z[k], _ = dist.TruncRand(n.dist, par, lo, hi, p.rng) // NaN when it fails
			case good:
				z[k] = n.dist.Rand(par, p.rng)
			default:
				z[k] = math.NaN()
			}
			k++
		}
	}
}

// randError names the argument of element k of a Rand node that is outside
// its parameter's support.
func (p *Program) randError(n *node, k int, el string) error {
	if n.dist == nil {
		return p.randRowsError(n, k, el)
	}
	i, j := k/max(n.gc, 1), k%max(n.gc, 1)
	par := p.s(n)
	for a := range par {
		q := n.bc[3*a : 3*a+3]
		v := p.val[q[0]+i*q[1]+j*q[2]]
		par[a] = v
		if s := n.dist.Params[a].Support; !randParamOK(s, v) {
			return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s draw: %s = %g is not a valid %s parameter",
				n.dist.Name, paramName(n.dist, a), v, s), el))
		}
	}
	if n.i0 != 0 {
		lo, hi := p.truncEnds(n, i, j)
		if err := dist.TruncCheck(n.dist, par, lo, hi); err != nil {
			return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s draw: %v", n.dist.Name, err), el))
		}
	}
	return ast.Errorf(n.pos, "%s", msg(n.dist.Name+" draw: result is NaN", el))
}

// randParamOK reports whether v is a valid parameter of support s for a
// draw. Probabilities may be 0 or 1 (inv_logit rounds to them), unlike
// values of a unit latent.
func randParamOK(s dist.Support, v float64) bool {
	switch s {
	case dist.Real:
		return !math.IsNaN(v) && !math.IsInf(v, 0)
	case dist.Positive:
		return v > 0 && !math.IsInf(v, 0)
	case dist.Unit:
		return v >= 0 && v <= 1
	case dist.Count:
		return v >= 0 && v == math.Trunc(v) && !math.IsInf(v, 0)
	}
	return !math.IsNaN(v)
}

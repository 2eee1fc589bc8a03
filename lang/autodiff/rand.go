package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"

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
	if d.Rand == nil {
		panic("autodiff: Rand of a distribution without a sampler")
	}
	ops, ok := b.operands(args...)
	if !ok {
		return b.invalid(pos)
	}
	if d.Params != nil && len(args) != len(d.Params) {
		return b.fail(pos, "%s: takes %d arguments, got %d", d.Name, len(d.Params), len(args))
	}
	out, _, gr, gc, bc, ok := b.elementwise(ops)
	if !ok {
		return b.fail(pos, "%s: the shapes of its arguments do not broadcast", d.Name)
	}
	dd := d
	return b.randNode(node{op: OpRand, args: ops, shape: out, pos: pos, gr: gr, gc: gc, bc: bc,
		dist: &dd, nscr: len(ops)})
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
			if good {
				z[k] = n.dist.Rand(par, p.rng)
			} else {
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
	for a := range n.args {
		q := n.bc[3*a : 3*a+3]
		v := p.val[q[0]+i*q[1]+j*q[2]]
		if s := n.dist.Params[a].Support; !randParamOK(s, v) {
			return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s draw: %s = %g is not a valid %s parameter",
				n.dist.Name, paramName(n.dist, a), v, s), el))
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

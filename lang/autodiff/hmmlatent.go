package autodiff

import (
	"math"

	"github.com/gpplang/gpp/lang/ast"
)

// A draw of a hidden Markov model's state path given the observations
// (Stan's hmm_latent_rng), an OpRand node of kind randHMMLatent with the
// arguments of hmm_marginal: forward filtering, then backward sampling.
// The scaled forward recursion (hmmForward) leaves â_t, the distribution
// of the state at t given y_0..y_t; the last state is drawn from â_{N−1},
// and each earlier one given the next, s_{t+1} = j, from
//
//	P(s_t = i | s_{t+1} = j, y) ∝ â_t[i] Γ[i, j],
//
// which is exact: given s_{t+1}, the state at t is independent of the
// observations after t. As the other row-wise draws, it takes one uniform
// per element of the result, drawn first in element order (t = 0, 1, …)
// whatever the arguments, and the states are 0-based. The scratch holds
// the forward pass's â [N, K], w [N, K], m [N], c [N] and a row [K]
// (hmmScratch's layout, its second row unused).

// RandHMMLatent adds a draw of the hidden states [N] (ints 0..K−1 as
// reals) for hmm_marginal's arguments: logOmega [N, K], gamma [K, K],
// rho [K].
func (b *Builder) RandHMMLatent(logOmega, gamma, rho ID, pos ast.Pos) ID {
	args, ok := b.operands(logOmega, gamma, rho)
	if !ok {
		return b.invalid(pos)
	}
	so := b.shapeOf(args[0])
	if why := hmmShapeError("hmm_latent_rng", so, b.shapeOf(args[1]), b.shapeOf(args[2])); why != "" {
		return b.fail(pos, "%s", why)
	}
	n, k := so.Rows, so.Cols
	return b.randNode(node{op: OpRand, args: args, shape: Vector(n), pos: pos, i0: randHMMLatent, nscr: 2*n*k + 2*n + 2*k}) // hmmScratch's layout
}

// drawHMMLatent fills z with a draw of the state path; NaN everywhere when
// Gamma or rho is not stochastic or the observations are impossible under
// every path (randRowsError says which).
func (p *Program) drawHMMLatent(n *node, z []float64) {
	for i := range z {
		z[i] = p.rng.Float64()
	}
	o, g, r := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	gv := p.v(g)
	rows, k := o.shape.Rows, o.shape.Cols
	ahat, w, m, c, row, _ := p.hmmScratch(n)
	if hmmCheck(gv, p.v(r), k, 0) >= 0 {
		fillNaN(z)
		return
	}
	if lp := hmmForward(p.v(o), gv, p.v(r), k, ahat, w, m, c); math.IsInf(lp, 0) || math.IsNaN(lp) {
		fillNaN(z)
		return
	}
	next := invertCumulative(ahat[(rows-1)*k:], z[rows-1])
	z[rows-1] = float64(next)
	for t := rows - 2; t >= 0; t-- {
		tot := 0.0
		gt := hmmGammaAt(gv, k, t+1)
		for i, a := range ahat[t*k : t*k+k] {
			row[i] = a * gt[i*k+next]
			tot += row[i]
		}
		// tot > 0: state next at t+1 had positive filtered mass, so some
		// state at t leads to it
		next = invertCumulative(row, z[t]*tot)
		z[t] = float64(next)
	}
}

// hmmLatentError explains a NaN state path: Gamma or rho not stochastic,
// or observations impossible under every path.
func (p *Program) hmmLatentError(n *node, name, el string) error {
	o, g, r := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	k := o.shape.Cols
	if j := hmmCheck(p.v(g), p.v(r), k, 0); j >= 0 {
		why, _ := hmmArgWhy(name, p.v(g), p.v(r), k, j)
		return ast.Errorf(n.pos, "%s", msg(why, el))
	}
	return ast.Errorf(n.pos, "%s", msg(name+": the observations have probability 0 (or a NaN log density) under every state path", el))
}

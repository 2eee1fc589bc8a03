package autodiff

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
)

// The marginal log likelihood of a hidden Markov model, OpHMMMarginal
// (Stan's hmm_marginal), by the forward algorithm in scaled form. With
// log_omega [N, K] (row t: log p(y_t | state k)), Gamma [K, K] (row i:
// P(next state | state i)) and rho [K] (the first state's distribution),
// w_t = exp(log_omega_t − m_t) with m_t the row's largest entry, and
//
//	ã_0 = rho ⊙ w_0,                 c_t = Σ_k ã_t[k],  â_t = ã_t / c_t
//	ã_t = (Γ' â_{t−1}) ⊙ w_t         log p(y) = Σ_t (m_t + log c_t)
//
// Reverse, with the backward variables scaled by the same c,
// β̂_{N−1} = 1, β̂_t = Γ (w_{t+1} ⊙ β̂_{t+1}) / c_{t+1}:
//
//	∂/∂log_omega_t[k] = â_t[k] β̂_t[k]                   (P(state k at t | y))
//	∂/∂Γ[i, j]        = Σ_{t≥1} â_{t−1}[i] w_t[j] β̂_t[j] / c_t
//	∂/∂rho[k]         = w_0[k] β̂_0[k] / c_0
//
// each in O(N·K²), nothing overflowing: the â sum to 1 and every w_t has
// an entry 1. The scratch holds â [N, K], w [N, K] (the forward pass's
// exponentials, which the backward pass reads rather than recomputes), m
// [N], c [N] and two [K] rows.

// hmmTol is how far a row of Gamma or rho may sum from 1 (Stan's
// CONSTRAINT_TOLERANCE).
const hmmTol = 1e-8

// HMMMarginal returns the log marginal likelihood of a K-state hidden
// Markov model: logOmega [N, K] holds the log emission density of
// observation t under state k in row t, gamma [K, K] the transition
// matrix (each row a simplex: row i is the distribution of the state after
// state i), or [N − 1, K·K] one per step (row t the row-major matrix from
// step t to t + 1, for transitions that depend on covariates), and rho [K]
// the initial state's distribution. With one per step, Γ in the recursions
// below is step t's.
func (b *Builder) HMMMarginal(logOmega, gamma, rho ID, pos ast.Pos) ID {
	return b.hmm(OpHMMMarginal, logOmega, gamma, rho, pos)
}

// HMMStateProb returns the posterior probability of each hidden state at
// each observation given all of them, [N, K] (Stan's
// hmm_hidden_state_prob, transposed as log_omega is), for the arguments of
// HMMMarginal. It has no derivative: outputs only (the checker refuses it
// in the log joint unless its arguments are data).
func (b *Builder) HMMStateProb(logOmega, gamma, rho ID, pos ast.Pos) ID {
	return b.hmm(OpHMMStateProb, logOmega, gamma, rho, pos)
}

func (b *Builder) hmm(op Op, logOmega, gamma, rho ID, pos ast.Pos) ID {
	args, ok := b.operands(logOmega, gamma, rho)
	if !ok {
		return b.invalid(pos)
	}
	so := b.shapeOf(args[0])
	if why := hmmShapeError(op.String(), so, b.shapeOf(args[1]), b.shapeOf(args[2])); why != "" {
		return b.fail(pos, "%s", why)
	}
	n, k := so.Rows, so.Cols
	switch op {
	case OpHMMStateProb:
		return b.push(node{op: op, args: args, shape: so, pos: pos, nscr: 2*n*k + 2*n + 2*k})
	case OpHMMViterbi:
		return b.push(node{op: op, args: args, shape: Vector(n), pos: pos, nscr: n*k + k*k + 2*k}) // viterbiScratch's layout
	}
	return b.push(node{op: op, args: args, shape: Scalar(), pos: pos, nscr: 2*n*k + 2*n + 2*k})
}

// hmmShapeError says what is wrong with the shapes of the arguments
// log_omega [N, K], Gamma [K, K] and rho [K] of the function name, or "".
func hmmShapeError(name string, so, sg, sr Shape) string {
	if so.Rank != 2 {
		return fmt.Sprintf("%s: log_omega must be a matrix [N, K], got %s", name, so)
	}
	k := so.Cols
	if k == 0 {
		return fmt.Sprintf("%s: log_omega [%d, 0] has no states: it needs a column per state", name, so.Rows)
	}
	if sg.Rank == 2 && sg.Rows == sg.Cols && sg.Rows == so.Rows && so.Rows != so.Cols {
		return fmt.Sprintf("%s: log_omega is %s and Gamma %s: log_omega has a row per observation and a column per state, the transpose of Stan's [K, N] (transpose it with ')", name, so, sg)
	}
	if sg.Rank != 2 || (sg.Rows != k || sg.Cols != k) && (so.Rows < 1 || sg.Rows != so.Rows-1 || sg.Cols != k*k) {
		return fmt.Sprintf("%s: Gamma must be [%d, %d], one row and column per column of log_omega, or [%d, %d] (time-varying: row t the transition matrix from step t to t + 1, row-major), got %s", name, k, k, max(so.Rows-1, 0), k*k, sg)
	}
	if sr.Len() != k || sr.Rank == 2 && sr.Cols != 1 && sr.Rows != 1 {
		return fmt.Sprintf("%s: rho must be a vector [%d], got %s", name, k, sr)
	}
	return ""
}

// hmmGammaAt returns the K×K transition matrix (row-major) into step t ≥ 1
// from gamma: gamma itself when it is one [K, K], else row t − 1 of a
// time-varying gamma [N − 1, K·K]. A [K, K] and an [N − 1, K·K] of N = 2
// are the same numbers.
func hmmGammaAt(gamma []float64, k, t int) []float64 {
	if len(gamma) == k*k {
		return gamma
	}
	return gamma[(t-1)*k*k : t*k*k]
}

// hmmScratch splits an OpHMMMarginal node's scratch.
func (p *Program) hmmScratch(n *node) (ahat, w, m, c, u, v []float64) {
	o := p.arg(n, 0)
	rows, k := o.shape.Rows, o.shape.Cols
	s := p.s(n)
	ahat, s = s[:rows*k], s[rows*k:]
	w, s = s[:rows*k], s[rows*k:]
	m, s = s[:rows], s[rows:]
	c, s = s[:rows], s[rows:]
	return ahat, w, m, c, s[:k], s[k : 2*k]
}

// hmmKnownGamma and hmmKnownRho, in an HMM node's i0, mark Gamma and rho
// as data fixed for the program's life that Finish found stochastic
// (checkHMMData): an evaluation does not check them again.
const (
	hmmKnownGamma = 1 << iota
	hmmKnownRho
)

// hmmCheck returns the index of the first entry of Gamma (or, past
// Gamma's length, of rho) that is negative or NaN or that ends a row (a
// K-block of a time-varying Gamma's row) not summing to 1, or −1, skipping
// the arguments that known marks (hmmKnownGamma, hmmKnownRho).
func hmmCheck(gamma, rho []float64, k, known int) int {
	rows := len(gamma) / k
	for i := 0; i <= rows; i++ {
		if i < rows && known&hmmKnownGamma != 0 || i == rows && known&hmmKnownRho != 0 {
			continue
		}
		row, off := rho, len(gamma)
		if i < rows {
			row, off = gamma[i*k:i*k+k], i*k
		}
		s := 0.0
		for j, v := range row {
			if !(v >= 0) {
				return off + j
			}
			s += v
		}
		if !(math.Abs(s-1) <= hmmTol) {
			return off + k - 1
		}
	}
	return -1
}

// checkHMMData checks, once, the Gamma and rho of each HMM node that
// changes between evaluations whose Gamma or rho is data fixed for the
// program's life (not subsampled), and marks them known (i0) so that no
// evaluation checks them again. One of the log joint that is not
// stochastic is the error its first evaluation would have given, at the
// node, found before any; one that only outputs read is left to the
// evaluation, which reports it and goes on.
func (p *Program) checkHMMData() error {
	for i := range p.nodes {
		n := &p.nodes[i]
		if n.op != OpHMMMarginal && n.op != OpHMMStateProb && n.op != OpHMMViterbi || !n.live || !n.dyn {
			continue
		}
		g, r := p.arg(n, 1), p.arg(n, 2)
		known := 0
		if !g.dyn && !g.sub {
			known |= hmmKnownGamma
		}
		if !r.dyn && !r.sub {
			known |= hmmKnownRho
		}
		if known == 0 {
			continue
		}
		// check the known ones alone: skip those that are not
		if j := hmmCheck(p.v(g), p.v(r), p.arg(n, 0).shape.Cols, known^(hmmKnownGamma|hmmKnownRho)); j >= 0 {
			if !n.joint {
				continue
			}
			p.fail = j
			return p.nodeError(int32(i), false)
		}
		n.i0 = known
	}
	return nil
}

// evalHMM is OpHMMMarginal's forward rule; false (p.fail the entry) when
// Gamma or rho is not stochastic.
func (p *Program) evalHMM(n *node) bool {
	o, g, r := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	gv, rv := p.v(g), p.v(r)
	k := o.shape.Cols
	if i := hmmCheck(gv, rv, k, n.i0); i >= 0 {
		p.fail = i
		return false
	}
	ahat, w, m, c, _, _ := p.hmmScratch(n)
	p.v(n)[0] = hmmForward(p.v(o), gv, rv, k, ahat, w, m, c)
	return true
}

// hmmForward runs the scaled forward recursion over the rows of lo [N, K],
// filling ahat, w (exp(lo_t − m_t)), m and c, and returns log p(y). A row
// whose states are all
// impossible (or hold a NaN) ends it: the result is then −∞ (or NaN), and
// the rows after it are not filled.
func hmmForward(lo, gamma, rho []float64, k int, ahat, w, m, c []float64) float64 {
	rows := len(m)
	lp := 0.0
	for t := 0; t < rows; t++ {
		lt, at := lo[t*k:t*k+k], ahat[t*k:t*k+k]
		mt := math.Inf(-1)
		for _, v := range lt {
			mt = max(mt, v)
		}
		m[t] = mt
		if math.IsInf(mt, -1) || math.IsNaN(mt) {
			return mt
		}
		if t == 0 {
			copy(at, rho)
		} else {
			g := hmmGammaAt(gamma, k, t)
			clear(at)
			for i, a := range ahat[(t-1)*k : t*k] {
				if a == 0 {
					continue
				}
				for j, gij := range g[i*k : i*k+k] {
					at[j] += a * gij
				}
			}
		}
		ct := 0.0
		wt := w[t*k : t*k+k]
		for j := range at {
			wt[j] = math.Exp(lt[j] - mt)
			at[j] *= wt[j]
			ct += at[j]
		}
		c[t] = ct
		if !(ct > 0) {
			return math.Inf(-1)
		}
		for j := range at {
			at[j] /= ct
		}
		lp += mt + math.Log(ct)
	}
	return lp
}

// evalHMMStateProb is OpHMMStateProb's forward rule: the forward
// recursion, then the backward one, P(state k at t | y) = â_t[k] β̂_t[k].
// Where the likelihood is 0 or NaN every probability is NaN.
func (p *Program) evalHMMStateProb(n *node) bool {
	o, g, r := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	ov, gv, rv := p.v(o), p.v(g), p.v(r)
	k := o.shape.Cols
	if i := hmmCheck(gv, rv, k, n.i0); i >= 0 {
		p.fail = i
		return false
	}
	z := p.v(n)
	ahat, w, m, c, beta, wb := p.hmmScratch(n)
	if lp := hmmForward(ov, gv, rv, k, ahat, w, m, c); math.IsInf(lp, 0) || math.IsNaN(lp) {
		for i := range z {
			z[i] = math.NaN()
		}
		return true
	}
	for j := range beta {
		beta[j] = 1
	}
	for t := len(m) - 1; t >= 0; t-- {
		for j, a := range ahat[t*k : t*k+k] {
			z[t*k+j] = a * beta[j]
		}
		if t == 0 {
			break
		}
		for j, wj := range w[t*k : t*k+k] {
			wb[j] = wj * beta[j] / c[t]
		}
		gt := hmmGammaAt(gv, k, t)
		for i := range beta {
			s := 0.0
			for j, v := range gt[i*k : i*k+k] {
				s += v * wb[j]
			}
			beta[i] = s
		}
	}
	return true
}

// gradHMM adds the contributions of the result's adjoint g to those of
// log_omega, Gamma and rho, by the scaled backward recursion.
func (p *Program) gradHMM(n *node, g float64) {
	o, gm, r := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	gv := p.v(gm)
	rows, k := o.shape.Rows, o.shape.Cols
	ahat, w, _, c, beta, wb := p.hmmScratch(n)
	var ao, ag, ar []float64
	if o.aoff >= 0 {
		ao = p.a(o)
	}
	if gm.aoff >= 0 {
		ag = p.a(gm)
	}
	if r.aoff >= 0 {
		ar = p.a(r)
	}
	for j := range beta {
		beta[j] = 1
	}
	for t := rows - 1; t >= 0; t-- {
		wt, at := w[t*k:t*k+k], ahat[t*k:t*k+k]
		if ao != nil {
			for j, a := range at {
				ao[t*k+j] += g * a * beta[j]
			}
		}
		// wb = w_t ⊙ β̂_t / c_t: what both Γ's and the earlier β̂'s terms use
		for j, wj := range wt {
			wb[j] = wj * beta[j] / c[t]
		}
		if t == 0 {
			if ar != nil {
				for j, v := range wb {
					ar[j] += g * v
				}
			}
			break
		}
		prev := ahat[(t-1)*k : t*k]
		if ag != nil {
			agt := hmmGammaAt(ag, k, t)
			for i, a := range prev {
				if a == 0 {
					continue
				}
				row := agt[i*k : i*k+k]
				for j, v := range wb {
					row[j] += g * a * v
				}
			}
		}
		// β̂_{t−1} = Γ_t wb
		gt := hmmGammaAt(gv, k, t)
		for i := range beta {
			s := 0.0
			for j, v := range gt[i*k : i*k+k] {
				s += v * wb[j]
			}
			beta[i] = s
		}
	}
}

// hmmError describes a Gamma or rho that is not stochastic (p.fail the
// entry, rho's past K²). A bad sum of a Gamma or rho of params ends with
// HMMSumNote, and one of data names the data cell of the row's last entry.
func (p *Program) hmmError(n *node) error {
	k := p.arg(n, 0).shape.Cols
	g, r := p.arg(n, 1), p.arg(n, 2)
	msg, badSum := hmmArgWhy(n.op.String(), p.v(g), p.v(r), k, p.fail)
	cols := g.shape.Cols
	arg, e, what := n.args[1], p.fail, fmt.Sprintf("Gamma[%d, %d]", p.fail/cols, p.fail%cols)
	if ng := g.n; p.fail >= ng {
		arg, e, what = n.args[2], p.fail-ng, fmt.Sprintf("rho[%d]", p.fail-ng)
	}
	if note, ok := p.cellNoteOf(arg, e); ok {
		msg += "; " + what + " is " + note
	} else if p.nodes[arg].aoff >= 0 && badSum {
		msg += "; " + HMMSumNote
	}
	return ast.Errorf(n.pos, "%s", msg)
}

// HMMSumNote ends hmmError's message where a Gamma or rho of params does
// not sum to 1: its declared support or its making, not the start, is at
// fault (gpp check refuses a param of another support passed as is).
const HMMSumNote = "it depends on params, and no start (--init) makes it sum to 1: a param is declared simplex[K, K] (each row a simplex) for Gamma or simplex[K] for rho, and a computed one must sum to 1 by its making"

// NoStartHelps reports whether err is one that no start of a fit mends:
// of the data and constants alone (DataOnly), or a Gamma or rho of params
// that does not sum to 1 (HMMSumNote).
func NoStartHelps(err error) bool {
	return DataOnly(err) || err != nil && strings.Contains(err.Error(), HMMSumNote)
}

// hmmArgWhy says why entry i of Gamma (rho's past Gamma's length, as
// hmmCheck returns them) makes it or rho not stochastic, for the function
// name, and whether the entry's row sums to other than 1 (the entry is
// >= 0). A time-varying Gamma [N − 1, K·K] names its row t and the K-block
// of the state the step leaves.
func hmmArgWhy(name string, gv, rv []float64, k, i int) (why string, badSum bool) {
	cols := k
	if len(gv) != k*k {
		cols = k * k
	}
	what, row, el := "Gamma", gv, fmt.Sprintf("[%d, %d]", i/cols, i%cols)
	if i >= len(gv) {
		what, row, el = "rho", rv, fmt.Sprintf("[%d]", i-len(gv))
		i -= len(gv)
	} else {
		row = gv[i/k*k : i/k*k+k]
	}
	if v := row[i%k]; !(v >= 0) {
		return fmt.Sprintf("%s: %s%s is %s; the probabilities must be >= 0", name, what, el, short(v, 0)), false
	}
	s := 0.0
	for _, v := range row {
		s += v
	}
	if what == "rho" {
		return fmt.Sprintf("%s: rho sums to %.17g, not 1: it is the first state's distribution, a simplex", name, s), true
	}
	if cols != k {
		t, from := i/cols, i%cols/k
		return fmt.Sprintf("%s: row %d of the time-varying Gamma, its entries %d..%d (the transition from state %d at step %d to step %d), sums to %.17g, not 1: each block of K entries is the distribution of the next state, a simplex", name, t, from*k, from*k+k-1, from, t, t+1, s), true
	}
	return fmt.Sprintf("%s: row %d of Gamma sums to %.17g, not 1: row i is the distribution of the state after state i, a simplex (a matrix whose columns sum to 1 is the transpose of Stan's and gpp's Gamma)", name, i/k, s), true
}

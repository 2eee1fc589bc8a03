package autodiff

import (
	"math"

	"github.com/gpplang/gpp/lang/ast"
)

// The most likely state path of a hidden Markov model given the
// observations, OpHMMViterbi (hmmlearn's decode, depmixS4's viterbi), for
// the arguments of hmm_marginal, by the Viterbi recursion in log space:
//
//	δ_0[j] = log rho[j] + lo_0[j]
//	δ_t[j] = max_i (δ_{t−1}[i] + log Γ[i, j]) + lo_t[j],  b_t[j] = its argmax
//
// then s_{N−1} = argmax_j δ_{N−1}[j] and s_{t−1} = b_t[s_t]. Every argmax
// takes the lowest state among equals, so a tie gives the same path on
// every evaluation. No sum, so no scaling: a −Inf (an impossible state) is
// a value like any other. The scratch holds b [N, K] (states as reals),
// log Γ [K, K] and the rows δ_{t−1} and δ_t [K].

// HMMViterbi returns the most likely hidden state path [N] (ints 0..K−1
// as reals) for HMMMarginal's arguments. It has no derivative: outputs
// only (the checker refuses it in the log joint unless its arguments are
// data).
func (b *Builder) HMMViterbi(logOmega, gamma, rho ID, pos ast.Pos) ID {
	return b.hmm(OpHMMViterbi, logOmega, gamma, rho, pos)
}

// evalHMMViterbi is OpHMMViterbi's forward rule; false (p.fail the entry)
// when Gamma or rho is not stochastic. Where no path is possible, or
// log_omega holds a NaN or +Inf, every state is NaN (as
// hmm_hidden_state_prob's probabilities).
func (p *Program) evalHMMViterbi(n *node) bool {
	o, g, r := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	lo, gv, rv := p.v(o), p.v(g), p.v(r)
	rows, k := o.shape.Rows, o.shape.Cols
	if i := hmmCheck(gv, rv, k, n.i0); i >= 0 {
		p.fail = i
		return false
	}
	z := p.v(n)
	for _, v := range lo {
		if math.IsNaN(v) || math.IsInf(v, 1) {
			fillNaN(z)
			return true
		}
	}
	s := p.s(n)
	back, lg, delta, next := s[:rows*k], s[rows*k:rows*k+k*k], s[rows*k+k*k:rows*k+k*k+k], s[rows*k+k*k+k:]
	tv := len(gv) != k*k // time-varying: log Γ_t at each step
	if !tv {
		for i, v := range gv {
			lg[i] = math.Log(v)
		}
	}
	for j := range delta {
		delta[j] = math.Log(rv[j]) + lo[j]
	}
	for t := 1; t < rows; t++ {
		if tv {
			for i, v := range hmmGammaAt(gv, k, t) {
				lg[i] = math.Log(v)
			}
		}
		for j := range next {
			best, arg := math.Inf(-1), 0
			for i, d := range delta {
				if v := d + lg[i*k+j]; v > best {
					best, arg = v, i
				}
			}
			next[j] = best + lo[t*k+j]
			back[t*k+j] = float64(arg)
		}
		copy(delta, next)
	}
	best, last := math.Inf(-1), -1
	for j, d := range delta {
		if d > best {
			best, last = d, j
		}
	}
	if last < 0 { // every path has probability 0
		fillNaN(z)
		return true
	}
	z[rows-1] = float64(last)
	for t := rows - 1; t > 0; t-- {
		last = int(back[t*k+last])
		z[t-1] = float64(last)
	}
	return true
}

package main

// Chains in different modes: a multimodal posterior (a periodogram's
// aliases, a sign that the likelihood cannot tell) leaves each NUTS chain
// in the mode its warm-up found, and the chains' draws of a param then do
// not overlap while each chain mixes well within itself. R̂ shows only
// that the chains disagree, and its advice (run longer) does not help:
// NUTS rarely crosses between modes however long it runs.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/nuts"
)

const (
	// modeSelfRhat is the largest split R̂ of a chain on its own (its two
	// halves) for the chain to count as mixed within itself: a chain still
	// drifting has halves that disagree, and its interval apart from
	// another chain's says it has not converged, not that it found a mode.
	modeSelfRhat = 1.05
	// modeInterval is the central interval of a chain's draws that must
	// not overlap another's for the two to sit in different modes: the
	// table's 5–95 %, which two chains in one mode share almost wholly.
	modeInterval = 0.90
	// modeLPApart is the difference of two modes' log mass (modesMass)
	// from which the larger is named: e^1 ≈ 2.7 times the mass.
	modeLPApart = 1
	// modeCovDraws is the number of draws a coordinate that a mode's
	// covariance needs for modesMass to read its width.
	modeCovDraws = 20
)

// chainMode is a group of chains in one mode of an element: the chains
// (numbered from 0), the element's mean over their draws and their mean
// lp__.
type chainMode struct {
	chains   []int
	mean, lp float64
}

// elementModes groups the chains whose central modeInterval intervals of
// the element's draws (by chain) overlap, joining them transitively; nil
// when a chain is not mixed within itself (modeSelfRhat), when a chain
// has fewer than stuckMinDraws draws or non-finite ones, or when all
// chains fall into one group. logp holds each chain's lp__.
func elementModes(draws, logp [][]float64) []chainMode {
	C := len(draws)
	if C < 2 {
		return nil
	}
	lo, hi := make([]float64, C), make([]float64, C)
	tail := (1 - modeInterval) / 2
	for c, x := range draws {
		if len(x) < stuckMinDraws || slices.ContainsFunc(x, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }) {
			return nil
		}
		s := slices.Sorted(slices.Values(x))
		lo[c], hi[c] = nuts.Quantile(s, tail), nuts.Quantile(s, 1-tail)
	}
	group := make([]int, C) // union-find by overlap
	for c := range group {
		group[c] = c
	}
	var find func(int) int
	find = func(c int) int {
		if group[c] != c {
			group[c] = find(group[c])
		}
		return group[c]
	}
	for a := range C {
		for b := a + 1; b < C; b++ {
			if lo[a] <= hi[b] && lo[b] <= hi[a] {
				group[find(b)] = find(a)
			}
		}
	}
	var modes []chainMode
	at := map[int]int{} // a group's root → its index in modes
	for c := range C {
		r := find(c)
		i, ok := at[r]
		if !ok {
			i = len(modes)
			at[r] = i
			modes = append(modes, chainMode{})
		}
		modes[i].chains = append(modes[i].chains, c)
	}
	if len(modes) < 2 {
		return nil
	}
	// each chain mixed within itself, checked only now: its R̂ costs
	// more than the intervals, and most elements' chains overlap
	for _, x := range draws {
		if r := nuts.Rhat([][]float64{x}); !(r < modeSelfRhat) {
			return nil
		}
	}
	for i := range modes {
		m := &modes[i]
		var xs, lps []float64
		for _, c := range m.chains {
			xs = append(xs, draws[c]...)
			if c < len(logp) {
				lps = append(lps, logp[c]...)
			}
		}
		m.mean, m.lp = finiteMean(xs), finiteMean(lps)
	}
	return modes
}

// finiteMean is the mean of xs's finite values, NaN if none.
func finiteMean(xs []float64) float64 {
	sum, n := finiteSum(xs)
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// finiteSum is the sum of xs's finite values, in order, and their count.
func finiteSum(xs []float64) (sum float64, n int) {
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			n++
			sum += x
		}
	}
	return sum, n
}

// modesWarning says which param elements (not outputs) with R̂ above
// rhatWarn have chains in different modes (elementModes): the worst by R̂
// with each mode's chains, mean and mean lp__, the others by name; that
// the posterior is multimodal or the chains stuck, so the pooled summary
// weighs the modes by how many chains found them, not by their mass; what
// to do; and which mode likely carries the most mass (modesMass). "" when
// there are none.
func modesWarning(sd *sampleDraws, ms []mcmcStats) string {
	worst, worstName, others := paramModes(sd, ms)
	if worst == nil {
		return ""
	}
	var parts []string
	for _, m := range worst {
		parts = append(parts, fmt.Sprintf("%s at %s %s (mean lp__ %s)", chainsText(m.chains), worstName, num3(m.mean), num3(m.lp)))
	}
	also := ""
	if len(others) > 0 {
		if len(others) > worstNamed {
			others = append(others[:worstNamed], fmt.Sprintf("%d more", len(others)-worstNamed))
		}
		also = "; so do the chains' draws of " + strings.Join(others, ", ")
	}
	mass := modesMass(sd, worst)
	return fmt.Sprintf("the chains sit in different modes of %s: %s (each chain's central %.0f%% interval of %s is apart from those of the chains in another mode, while each mixes within itself)%s; "+
		"the posterior is multimodal, or the chains are stuck where warm-up left them, and the summary pools the modes by how many chains found each, not by their mass (longer chains rarely cross between modes); "+
		"run more chains (--chains 8) with a longer warm-up (--warmup 2000) to see which modes there are, or remove the modes by a prior or a reparameterisation (a prior on %s that leaves one mode); %s",
		worstName, strings.Join(parts, ", "), 100*modeInterval, worstName, also, worstName, mass)
}

// paramModes returns the modes (elementModes) of the param element (not
// an output's) with the largest R̂ above rhatWarn whose chains sit in
// different modes, its name and the names of the others such; nil when
// there are none.
func paramModes(sd *sampleDraws, ms []mcmcStats) (worst []chainMode, worstName string, others []string) {
	if sd.chains < 2 || len(sd.ds.logp) != sd.chains*sd.n {
		return nil, "", nil
	}
	logp := sd.byChain(sd.ds.logp)
	worstRhat := 0.0
	for _, v := range sd.ds.vars {
		if v.output || v.first+len(v.elems) > len(sd.ds.cols) {
			continue
		}
		for j, k := range v.elems {
			r := ms[v.first+j].rhat
			if !(r > rhatWarn) {
				continue
			}
			modes := elementModes(sd.byChain(sd.ds.cols[v.first+j]), logp)
			if modes == nil {
				continue
			}
			name := v.elemName(k)
			if worst == nil || r > worstRhat {
				if worst != nil {
					others = append(others, worstName)
				}
				worst, worstName, worstRhat = modes, name, r
			} else {
				others = append(others, name)
			}
		}
	}
	return worst, worstName, others
}

// modesMass says which of the modes likely carries the most mass: as for
// a normal shape, a mode's log mass is its mean lp__ plus the log volume
// of its draws' spread on the unconstrained coordinates (½ log det of
// their covariance; the constants are the same for every mode), so that
// a higher but narrower mode (a periodogram's sharp alias) is not taken
// for the larger. Without the coordinates, or with too few draws for
// their covariance (modeCovDraws per coordinate), the mean lp__ alone,
// for modes as wide. Within modeLPApart of one another none is named.
func modesMass(sd *sampleDraws, modes []chainMode) string {
	logMass, width := modesLogMass(sd, modes)
	best, d := massLead(logMass)
	how := massHow(width)
	if !(d >= modeLPApart) {
		return fmt.Sprintf("by %s, no mode clearly carries more of the mass than another (within a factor e^%d)", how, modeLPApart)
	}
	return fmt.Sprintf("by %s, %s's mode likely carries the most mass, about e^%s times the next", how, chainsText(modes[best].chains), num3(d))
}

// massHow says how modesLogMass read the modes' masses.
func massHow(width bool) string {
	if !width {
		return "each mode's mean lp__ (for modes as wide)"
	}
	return "each mode's mean lp__ and the spread of its draws (as for a normal shape)"
}

// modesLogMass is each mode's log mass as modesMass reads it (up to a
// constant shared by all), and whether it includes the widths.
func modesLogMass(sd *sampleDraws, modes []chainMode) (logMass []float64, width bool) {
	logMass = make([]float64, len(modes))
	width = sd.xdim > 0 && len(sd.coords) == sd.chains*sd.n*sd.xdim
	for i, m := range modes {
		logMass[i] = m.lp
		if !width {
			continue
		}
		h, ok := halfLogDetCov(sd, m.chains)
		if !ok {
			width = false
			continue
		}
		logMass[i] += h
	}
	if !width {
		for i, m := range modes {
			logMass[i] = m.lp
		}
	}
	return logMass, width
}

// massLead is the index of the largest log mass and how far it is above
// the next (NaN when a mass is).
func massLead(logMass []float64) (best int, d float64) {
	for i := range logMass {
		if logMass[i] > logMass[best] {
			best = i
		}
	}
	next := math.Inf(-1)
	for i := range logMass {
		if i != best {
			next = math.Max(next, logMass[i])
		}
	}
	return best, logMass[best] - next
}

// halfLogDetCov is ½ log det of the covariance of the unconstrained
// coordinates of the chains' draws (Σ log of its Cholesky factor's
// diagonal); ok is false with fewer than modeCovDraws draws a coordinate
// or a covariance that is not positive definite.
func halfLogDetCov(sd *sampleDraws, chains []int) (float64, bool) {
	k := sd.xdim
	n := len(chains) * sd.n
	if n < modeCovDraws*k {
		return 0, false
	}
	mean := make([]float64, k)
	for _, c := range chains {
		for i := range sd.n {
			x := sd.coords[(c*sd.n+i)*k : (c*sd.n+i+1)*k]
			for j, v := range x {
				mean[j] += v / float64(n)
			}
		}
	}
	cov := make([]float64, k*k)
	for _, c := range chains {
		for i := range sd.n {
			x := sd.coords[(c*sd.n+i)*k : (c*sd.n+i+1)*k]
			for a := range k {
				da := x[a] - mean[a]
				for b := 0; b <= a; b++ {
					cov[a*k+b] += da * (x[b] - mean[b]) / float64(n-1)
				}
			}
		}
	}
	if dist.CholLower(cov, k) != 0 {
		return 0, false
	}
	h := 0.0
	for j := range k {
		h += math.Log(cov[j*k+j])
	}
	return h, !math.IsNaN(h) && !math.IsInf(h, 0)
}

// chainsText names chains (numbered from 0) as "chain 2" or
// "chains 1, 3, 4".
func chainsText(cs []int) string {
	if len(cs) == 1 {
		return fmt.Sprintf("chain %d", cs[0]+1)
	}
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = fmt.Sprint(c + 1)
	}
	return "chains " + strings.Join(s, ", ")
}

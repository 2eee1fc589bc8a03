package main

// --against with NUTS's chains in different modes: one chain stuck in a
// minor mode made every element's R̂ 1.2–1.5, and the comparison read
// nothing, though the modes warning of the same run found the other three
// chains' mode about e^88 times as massive (a Hui–Walter model of two
// diagnostic tests, a user trial of 2026-12-01). Where one mode carries
// nearly all the mass and several chains found it, q is compared with
// those chains alone; elsewhere the refusal says what would give a
// reference.

import (
	"fmt"
	"strings"
)

// againstModeApart is the log mass ratio (modesLogMass) by which the mode
// with the most mass must lead the next for --against to compare q with
// its chains alone: e^10, about 22 000 times. The estimate reads each mode
// as a normal shape (its mean lp__ and the log volume of its draws), which
// a skewed or bounded mode misses by a few units of log mass (a
// d-dimensional mode's mean lp__ alone varies by about √(d/2) between
// runs); e^10 still leaves the others under 1 % of the mass if the
// estimate is off by e^5. Modes no chain found are not counted, which no
// threshold can mend.
const againstModeApart = 10

// againstModes is what --against made of NUTS's chains in different modes
// (paramModes): name is the param element whose modes group the chains,
// best the mode with the most mass, apart its log mass less the next's
// (width: read with the draws' spread, modesMass). keep: q was compared
// with modes[best]'s chains alone.
type againstModes struct {
	name  string
	modes []chainMode
	best  int
	apart float64
	width bool
	keep  bool
}

// findAgainstModes returns the modes of NUTS's chains when some element's
// R̂ is above againstRhat and the chains of a param sit in modes apart (not
// labels switched, which no mode's mass tells apart); nil otherwise.
func findAgainstModes(sd *sampleDraws, ms []mcmcStats) *againstModes {
	unmixed := false
	for _, m := range ms {
		if m.rhat > againstRhat {
			unmixed = true
			break
		}
	}
	if !unmixed {
		return nil
	}
	if names, _, _, _, _ := switchedParams(sd, ms); len(names) > 0 {
		return nil
	}
	modes, name, _ := paramModes(sd, ms)
	if modes == nil {
		return nil
	}
	logMass, width := modesLogMass(sd, modes)
	best, apart := massLead(logMass)
	return &againstModes{name: name, modes: modes, best: best, apart: apart, width: width,
		keep: apart >= againstModeApart && len(modes[best].chains) >= 2}
}

// compareAgainstModes is compareAgainst, with q compared against the
// chains of the mode with the most mass alone where findAgainstModes
// finds one to keep (their summary and diagnostics recomputed, on
// workers); am is what it found (nil: no modes).
func compareAgainstModes(af *againstFit, sd *sampleDraws, st []stats, ms []mcmcStats, workers int) (rows []againstRow, missing int, am *againstModes) {
	if am = findAgainstModes(sd, ms); am != nil && am.keep {
		sd = sd.keepChains(am.modes[am.best].chains)
		st, ms = summariseChains(sd, workers, 0, nil)
	}
	rows, missing = compareAgainst(af, sd, st, ms)
	return rows, missing, am
}

// keepChains returns sd's draws of the chains cs (numbered from 0) alone:
// their columns and lp__, for a summary of them.
func (sd *sampleDraws) keepChains(cs []int) *sampleDraws {
	pick := func(col []float64) []float64 {
		out := make([]float64, 0, len(cs)*sd.n)
		for _, c := range cs {
			out = append(out, col[c*sd.n:(c+1)*sd.n]...)
		}
		return out
	}
	ds := &drawSet{vars: sd.ds.vars, ncol: sd.ds.ncol, cols: make([][]float64, len(sd.ds.cols))}
	for i, col := range sd.ds.cols {
		ds.cols[i] = pick(col)
	}
	if len(sd.ds.logp) == sd.chains*sd.n {
		ds.logp = pick(sd.ds.logp)
	}
	return &sampleDraws{ds: ds, n: sd.n, chains: len(cs), fixedParam: sd.fixedParam}
}

// chainsKept names the chains compared, for the table's title: "NUTS's
// chains 2, 3, 4"; "NUTS" when all were.
func (am *againstModes) chainsKept() string {
	if am == nil || !am.keep {
		return "NUTS"
	}
	return "NUTS's " + chainsText(am.modes[am.best].chains)
}

// where lists the modes: "chain 1 at se2 0.114, chains 2, 3, 4 at se2
// 0.706".
func (am *againstModes) where() string {
	var parts []string
	for _, m := range am.modes {
		parts = append(parts, fmt.Sprintf("%s at %s %s", chainsText(m.chains), am.name, num3(m.mean)))
	}
	return strings.Join(parts, ", ")
}

// left is the chains outside the mode with the most mass.
func (am *againstModes) left() []int {
	var cs []int
	for i, m := range am.modes {
		if i != am.best {
			cs = append(cs, m.chains...)
		}
	}
	return cs
}

// lead says how the mode with the most mass leads the next: "about e^88
// times the next's by each mode's mean lp__ …, rough to a few factors of
// e".
func (am *againstModes) lead() string {
	return fmt.Sprintf("about e^%s times the next's by %s, rough to a few factors of e", num3(am.apart), massHow(am.width))
}

// text begins the against line: which chains q was compared with and
// why, or why none and what to do. "" without modes.
func (am *againstModes) text() string {
	if am == nil {
		return ""
	}
	best := am.modes[am.best]
	switch {
	case am.keep:
		return fmt.Sprintf("NUTS's %s alone (%s left out): the chains sit in different modes of %s (%s), and %s's likely carries the most mass, %s but beyond the e^%d needed (modes no chain found are not counted); ",
			chainsText(best.chains), chainsText(am.left()), am.name, am.where(), chainsText(best.chains), am.lead(), againstModeApart)
	case am.apart >= againstModeApart:
		return fmt.Sprintf("NUTS's chains sit in different modes of %s (%s), and %s's likely carries the most mass, %s, but one chain gives no R̂ to read it by: "+
			"start the chains from the fit (--init FIT) or run more chains (--chains 8) so that several find it; ",
			am.name, am.where(), chainsText(best.chains), am.lead())
	}
	return fmt.Sprintf("NUTS's chains sit in different modes of %s (%s), and none carries e^%d times the mass of the next (by %s), so none is the reference: "+
		"run more chains with a longer warm-up (--chains 8 --warmup 2000) to see which modes there are, or start the chains from the fit (--init FIT) to compare q with the posterior in its own mode; ",
		am.name, am.where(), againstModeApart, massHow(am.width))
}

// csvNote ends the reading of each row of against.csv: which chains it
// was read against, or why none. "" without modes.
func (am *againstModes) csvNote(r againstRow) string {
	switch {
	case am == nil:
		return ""
	case am.keep:
		return fmt.Sprintf("; against NUTS's %s alone, the mode with the most mass (%s), %s left out (gpp sample's against line says why)", chainsText(am.modes[am.best].chains), am.lead(), chainsText(am.left()))
	case r.unmixed:
		return "; NUTS's chains sit in modes apart, none a reference (gpp sample's against line says why): start them from the fit (--init FIT) or run more chains (--chains 8)"
	}
	return ""
}

package autodiff

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
)

// NoTermNote ends zeroRowError's message where the row's −Inf is of the
// data and constants alone (a grid's bound K below a count y): no start
// of a fit helps, so gpp check and gpp fit do not advise --init.
const NoTermNote = "no value of the params makes a term of it finite: mend the constants or the data, not the start"

// aboveGridNote names the cause of a row's −Inf where its last term's
// value is above the family's upper end there (a count y above the top N
// = K of an abundance grid); belowNote where it is below the lower end (a
// count of −1), which no grid's bound explains.
const (
	aboveGridNote = "the value is above the last term's upper end %s, as a count y above an abundance grid's bound K is"
	belowNote     = "the value is below the family's lower end %s"
)

// DataValueNote ends a logpdf's error where its value, data, is outside a
// support whose ends no param moves (a Bernoulli 2 in log_mix's lp1 and
// lp2): a log 0 for any params, so no start helps.
const DataValueNote = "no value of the params makes it finite: mend the data, not the start"

// ProductZeroNote follows a log CDF's error where its log 0 at an end,
// of the data alone, reaches the log joint through a product (cens .*
// logcdf(...), NaN where cens is 0): no start helps, a branch does.
const ProductZeroNote = "a product carries it into the log joint, non-finite for any values of the params"

// DataOnly reports whether err is of the data and constants alone: a row
// whose terms are all −Inf so (zeroRowError's NoTermNote), a logpdf's
// value outside its support (DataValueNote), or a log CDF's log 0 of the
// data in a product (ProductZeroNote).
func DataOnly(err error) bool {
	return err != nil && (strings.Contains(err.Error(), NoTermNote) || strings.Contains(err.Error(), DataValueNote) || strings.Contains(err.Error(), ProductZeroNote))
}

// zeroRowError is the error of a log joint that failed at node i (which
// took in a log 0: zeroOf) because a rowlogsumexp or logsumexp of it has
// a row whose terms are all −Inf: that row is named, with the log 0 of
// its last term (the one at the top of a grid, as N = K of an abundance
// sum) and that term's data cell, rather than the first log 0 of the
// pass, which a row with a finite term takes in as a value (an
// N-mixture's N = 0 below a count y). nil where no such row is found.
func (p *Program) zeroRowError(i int32) error {
	r, row := p.zeroRow(i, make(map[int32]bool))
	if r < 0 {
		return nil
	}
	rn := &p.nodes[r]
	x := p.arg(rn, 0)
	what, first, last := "every term", 0, x.n-1
	so := "so its log of a sum is -Inf"
	if rn.op == OpRowLogSumExp || rn.op == OpHMMMarginal {
		cols := x.shape.Cols
		what = fmt.Sprintf("every term of row %d", row)
		first, last = row*cols, row*cols+cols-1
	}
	if rn.op == OpHMMMarginal {
		what = fmt.Sprintf("every state's log density in row %d of log_omega", row)
		so = "so no path of states gives that observation a density"
	}
	for k := first; k <= last; k++ {
		if v := p.val[x.off+k]; !math.IsInf(v, -1) {
			return nil // not all −Inf: the row's own failure is another's
		}
	}
	z, kz := p.termZero(rn.args[0], last, make(map[int32]bool))
	if z < 0 {
		return ast.Errorf(rn.pos, "%s: %s is -Inf, %s", rn.op, what, so)
	}
	zn := &p.nodes[z]
	if zn.op != OpLogPDF { // a log 0 of the data alone (log(ok), ok a 0/1 mask)
		return ast.Errorf(rn.pos, "%s: %s is -Inf, %s; its last term is %s 0 of the data alone at %s (%s); %s",
			rn.op, what, so, zn.op, zn.pos, p.nodeElemPart(zn, zn.shape, kz), NoTermNote)
	}
	why := " is -Inf"
	if err, ok := p.densityErrorAt(zn, kz).(*ast.Error); ok && err != nil {
		why = lastTermWhy(err.Msg, zn.dist.Name)
	}
	msg := fmt.Sprintf("%s: %s is -Inf, %s; its last term%s", rn.op, what, so, why)
	if alone, x, lo, hi := p.supportOfDataAlone(zn, kz); alone {
		switch {
		case x > hi:
			msg += "; " + fmt.Sprintf(aboveGridNote, g(hi))
		case x < lo:
			msg += "; " + fmt.Sprintf(belowNote, g(lo))
		}
		msg += "; " + NoTermNote
	}
	return ast.Errorf(rn.pos, "%s", msg)
}

// lastTermWhy words a logpdf's error msg (of family name) to follow "its
// last term": "'s log density is -Inf: value 0 outside the support of
// Gamma", "'s Binomial log density is -Inf at value 14 (…)", or " fails:
// msg" for an error that is not of its log density.
func lastTermWhy(msg, name string) string {
	rest, named := strings.CutPrefix(msg, name+": ")
	switch {
	case !strings.HasPrefix(rest, "log "):
		return " fails: " + msg
	case named:
		return "'s " + name + " " + rest
	}
	return "'s " + rest
}

// zeroRow returns, among node i and the nodes it reads whose values hold
// −Inf and no NaN, the first rowlogsumexp or logsumexp with a −Inf
// element, and that element's row, or hmm_marginal with a row of log_omega
// all −Inf, and that row; −1 where there is none.
func (p *Program) zeroRow(i int32, seen map[int32]bool) (int32, int) {
	if seen[i] {
		return -1, 0
	}
	seen[i] = true
	n := &p.nodes[i]
	v := p.val[n.off : n.off+n.n]
	neg := -1
	for k, x := range v {
		if math.IsNaN(x) {
			return -1, 0
		}
		if math.IsInf(x, -1) && neg < 0 {
			neg = k
		}
	}
	if neg < 0 {
		return -1, 0
	}
	if n.op == OpRowLogSumExp || n.op == OpLogSumExp {
		return i, neg
	}
	if n.op == OpHMMMarginal { // a row of log_omega whose states are all −Inf
		o := p.arg(n, 0)
		ov, k := p.val[o.off:o.off+o.n], o.shape.Cols
		for t := 0; t < o.shape.Rows; t++ {
			if !slices.ContainsFunc(ov[t*k:t*k+k], func(v float64) bool { return !math.IsInf(v, -1) }) {
				return i, t
			}
		}
	}
	for _, a := range n.args {
		if r, row := p.zeroRow(a, seen); r >= 0 {
			return r, row
		}
	}
	return -1, 0
}

// termZero follows element k of node i, which is −Inf, back through the
// elementwise nodes it is made of (and a cumsum's running sums) to the
// logpdf whose log 0 it is, and returns that node and its element; −1
// where none is found.
func (p *Program) termZero(i int32, k int, seen map[int32]bool) (int32, int) {
	n := &p.nodes[i]
	if k < 0 || k >= n.n || !math.IsInf(p.val[n.off+k], -1) || seen[i] {
		return -1, 0
	}
	seen[i] = true
	if n.op == OpLogPDF && n.dist.HasLogZero() || p.dataLogZero(i) {
		return i, k
	}
	for a, ai := range n.args {
		an := &p.nodes[ai]
		e := -1
		switch {
		case n.op.isBinary() && len(n.bc) >= 2*a+2:
			gc := max(n.gc, 1)
			e = k/gc*n.bc[2*a] + k%gc*n.bc[2*a+1]
		case an.n == n.n && (n.op.isUnary() || n.op.isBinary()):
			e = k
		case n.op == OpTranspose && n.shape.Rank == 2: // element (r, c) is the argument's (c, r)
			e = k%n.shape.Cols*n.shape.Rows + k/n.shape.Cols
		case n.op == OpCumSum && an.n == n.n: // −Inf from the first −Inf summed in, of k's row
			xv := p.val[an.off : an.off+an.n]
			for j := k - k%n.shape.runLen(); j <= k && e < 0; j++ {
				if math.IsInf(xv[j], -1) {
					e = j
				}
			}
		}
		if z, kz := p.termZero(ai, e, seen); z >= 0 {
			return z, kz
		}
	}
	return -1, 0
}

// supportOfDataAlone reports whether element k of logpdf node n is −Inf
// because its value, which no param reaches, is outside a support whose
// ends no param moves (Binomial's n from a constant grid): the log 0 is
// the data's and constants', wherever a fit starts; x is the value and
// [lo, hi] the support.
func (p *Program) supportOfDataAlone(n *node, k int) (alone bool, x, lo, hi float64) {
	if p.arg(n, 0).aoff >= 0 {
		return false, 0, 0, 0
	}
	var par []float64
	p.densityTerms(n, func(e int, v float64, pr []float64, _, _ float64, _ []float64) bool {
		if e != k {
			return true
		}
		x, par = v, append([]float64(nil), pr...)
		return false
	})
	if par == nil {
		return false, 0, 0, 0
	}
	lo, hi = n.dist.Ends(par)
	if _, in := n.dist.Support.Admits(x); in && x >= lo && x <= hi {
		return false, x, lo, hi // inside: the family's Support admits x (not Gamma's 0, an open end Ends gives as closed) and the ends hold it
	}
	return p.endsFixed(n, par, make([]float64, len(par)), lo, hi), x, lo, hi
}

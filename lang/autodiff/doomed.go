package autodiff

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/lang/ast"
)

// withDataValueNote adds DataValueNote to err, the error blamed on a log 0
// where node i of the log joint failed, when i's failure is of the data
// alone: a non-finite element of i that is −Inf for any params (doomed).
// Forward evaluated every node before i in this pass.
func (p *Program) withDataValueNote(i int32, err error) error {
	e, ok := err.(*ast.Error)
	if !ok || DataOnly(err) {
		return err
	}
	n := &p.nodes[i]
	d := p.doomed(i, make(map[int32][]bool))
	if d == nil {
		return err
	}
	for k, v := range p.val[n.off : n.off+n.n] {
		if (math.IsInf(v, 0) || math.IsNaN(v)) && d[k] {
			e.Msg += "; " + DataValueNote
			return e
		}
	}
	return err
}

// doomed returns, for each element of node i, whether it is −Inf for any
// values of the params, by the data and constants alone: an element of a
// node of the data alone that is −Inf; a logpdf's value, data, outside a
// support whose ends no param moves (a Bernoulli 2); and what these make
// −Inf whatever else is: a + with one such operand, a − with it on the
// left, a cumsum's running sums from one on, a sum, rowsum or colsum over one, log_mix, log_sum_exp(a, b),
// logsumexp and rowlogsumexp where every term is one. nil where no
// element is known to be (any other node: conservative).
func (p *Program) doomed(i int32, memo map[int32][]bool) []bool {
	if d, ok := memo[i]; ok {
		return d
	}
	memo[i] = nil // a cycle cannot happen; this guards a revisit
	n := &p.nodes[i]
	if n.iter > 0 || n.rows {
		return nil
	}
	out := make([]bool, n.n)
	hit := false
	set := func(k int) { out[k], hit = true, true }
	at := func(a, k int) bool { // argument a's element under element k, doomed
		d := p.doomed(n.args[a], memo)
		if d == nil {
			return false
		}
		an := &p.nodes[n.args[a]]
		e := -1
		switch {
		case n.op.isBinary() && len(n.bc) >= 2*a+2:
			gc := max(n.gc, 1)
			e = k/gc*n.bc[2*a] + k%gc*n.bc[2*a+1]
		case an.n == n.n:
			e = k
		case an.n == 1:
			e = 0
		}
		return e >= 0 && e < len(d) && d[e]
	}
	v := p.val[n.off : n.off+n.n]
	switch {
	case !n.dyn:
		for k, x := range v {
			if math.IsInf(x, -1) {
				set(k)
			}
		}
	case n.op == OpLogPDF && n.dist != nil && n.dist.Name == "log_mix":
		for k := range v {
			if p.mixArgDoomed(n, 0, k, memo) && p.mixArgDoomed(n, 1, k, memo) {
				set(k)
			}
		}
	case n.op == OpLogPDF && n.dist != nil && n.dist.HasLogZero():
		p.supportAloneElems(n, set)
		p.paramZeroElems(n, set)
	case (n.op == OpDensity || n.op == OpLogPDF) && n.dist != nil:
		p.paramZeroElems(n, set)
	case n.op == OpAdd:
		for k := range v {
			if at(0, k) || at(1, k) {
				set(k)
			}
		}
	case n.op == OpSub:
		for k := range v {
			if at(0, k) {
				set(k)
			}
		}
	case n.op == OpLogAddExp:
		for k := range v {
			if at(0, k) && at(1, k) {
				set(k)
			}
		}
	case n.op == OpCumSum: // z_i is −Inf once a doomed x_j, j ≤ i, of its row is summed in
		d := p.doomed(n.args[0], memo)
		if d == nil || len(d) != n.n {
			return nil
		}
		c := n.shape.runLen()
		for r := 0; r < n.n; r += c {
			for j, in := r, false; j < r+c; j++ {
				in = in || d[j]
				if in {
					set(j)
				}
			}
		}
	case n.op == OpSum, n.op == OpLogSumExp, n.op == OpRowSum, n.op == OpColSum, n.op == OpRowLogSumExp:
		d := p.doomed(n.args[0], memo)
		if d == nil {
			return nil
		}
		an := &p.nodes[n.args[0]]
		rows, cols := an.shape.Rows, an.shape.Cols
		if rows*cols != len(d) {
			return nil
		}
		for k := range v {
			r0, r1, c0, c1 := 0, rows, 0, cols // the terms of element k
			switch n.op {
			case OpRowSum, OpRowLogSumExp:
				r0, r1 = k, k+1
			case OpColSum:
				c0, c1 = k, k+1
			}
			all, some := true, false
			for r := r0; r < r1; r++ {
				for c := c0; c < c1; c++ {
					all, some = all && d[r*cols+c], some || d[r*cols+c]
				}
			}
			if n.op == OpLogSumExp || n.op == OpRowLogSumExp {
				some = all
			}
			if some {
				set(k)
			}
		}
	}
	if !hit {
		out = nil
	}
	memo[i] = out
	return out
}

// paramZeroElems calls set with each term of density or logpdf node n
// (a ~ statement's one sum: its element 0) that is −Inf with an argument
// a product with a data 0 makes 0 for any params (paramZeroOfData).
func (p *Program) paramZeroElems(n *node, set func(k int)) {
	p.densityTerms(n, func(e int, _ float64, par []float64, lp, _ float64, _ []float64) bool {
		if math.IsInf(lp, -1) {
			if a, _ := p.paramZeroOfData(n, e, par); a >= 0 {
				set(min(e, n.n-1))
			}
		}
		return true
	})
}

// mixArgDoomed reports whether log_mix node n's lp argument a (0: lp1, 1:
// lp2) is doomed at n's element k.
func (p *Program) mixArgDoomed(n *node, a, k int, memo map[int32][]bool) bool {
	ai := n.args[a+1]
	d := p.doomed(ai, memo)
	if d == nil || len(n.bc) < 3+3*a+3 {
		return false
	}
	q := n.bc[3+3*a:]
	gc := max(n.gc, 1)
	e := q[0] - p.nodes[ai].off + k/gc*q[1] + k%gc*q[2]
	return e >= 0 && e < len(d) && d[e]
}

// supportAloneElems calls set with each element of logpdf (or log CDF)
// node n whose value, data, is outside a support whose ends no param
// moves (supportOfDataAlone, for all the elements in one pass).
func (p *Program) supportAloneElems(n *node, set func(k int)) {
	if p.arg(n, 0).aoff >= 0 {
		return
	}
	moved := make([]float64, n.nparams())
	p.densityTerms(n, func(k int, x float64, par []float64, lp, _ float64, _ []float64) bool {
		if !math.IsInf(lp, -1) {
			return true
		}
		lo, hi := n.dist.Ends(par)
		if x >= lo && x <= hi {
			return true
		}
		if p.endsFixed(n, par, moved, lo, hi) {
			set(k)
		}
		return true
	})
}

// endZeroOfData reports whether log CDF node n's log 0 at an end of the
// support (ZeroAtEnd), with arguments par, is so for any params and makes
// the log joint non-finite for any params: its value no param reaches,
// the end no param moves, and n reaches the root through sums and
// products alone (toRoot). sums says it reaches it through sums alone: a
// detection limit of 0 in a censored row, a data error; where a product
// takes it in (cens .* logcdf(...), with cens 0: NaN) a branch of its own
// mends it.
func (p *Program) endZeroOfData(n *node, par []float64) (ok, sums bool) {
	if p.arg(n, 0).aoff >= 0 {
		return false, false
	}
	if lo, hi := n.dist.Ends(par); !p.endsFixed(n, par, make([]float64, len(par)), lo, hi) {
		return false, false
	}
	for j := range p.nodes {
		if &p.nodes[j] == n {
			users := p.jointUsers()
			if p.toRoot(users, int32(j), false) {
				return true, true
			}
			return p.toRoot(users, int32(j), true), false
		}
	}
	return false, false
}

// endsFixed reports whether the ends lo, hi of density node n's support
// at par are ones no param moves: moving each argument that a param
// reaches (into moved, as long as par or n's params) leaves them as they
// are.
func (p *Program) endsFixed(n *node, par, moved []float64, lo, hi float64) bool {
	for a := range moved {
		moved[a] = par[a]
		if p.arg(n, a+1).aoff >= 0 { // a param reaches it: move it
			moved[a] = par[a]*0.5 + 0.25
		}
	}
	lo2, hi2 := n.dist.Ends(moved)
	return lo2 == lo && hi2 == hi
}

// zeroFactorCell names the data cell ("pop is 0 at d.csv:10:4") whose 0 makes
// element k of node i 0 as a factor of a product (exp(b0 + b1 * x) .*
// pop), for any values of the params; ok false where no datum's 0 does.
// A rate of 0 from a zero exposure then names the exposure's cell, as
// log(pop) names it in the log-offset form.
func (p *Program) zeroFactorCell(i int32, k int) (string, bool) {
	n := &p.nodes[i]
	if k < 0 || k >= n.n || p.val[n.off+k] != 0 || n.iter > 0 || n.rows {
		return "", false
	}
	if src, at, ok := p.cellOf(i, k); ok {
		return fmt.Sprintf("%s is 0 at %s", src.name, at), true
	}
	if n.op != OpMul || len(n.bc) < 4 {
		return "", false
	}
	gc := max(n.gc, 1)
	for a := range 2 {
		if s, ok := p.zeroFactorCell(n.args[a], k/gc*n.bc[2*a]+k%gc*n.bc[2*a+1]); ok {
			return s, true
		}
	}
	return "", false
}

// paramZeroOfData returns, for term e of density node n at arguments par,
// the argument a that is 0 by a data factor (zeroFactorCell) and that
// cell, where every other argument is of the data and constants alone:
// the term is then the same for any values of the params (a Poisson's
// rate 0 at a zero exposure, its count above 0). a is −1 where none is.
func (p *Program) paramZeroOfData(n *node, e int, par []float64) (a int, cell string) {
	if n.dist == nil || p.arg(n, 0).dyn || len(n.bc) < 3+3*len(par) {
		return -1, ""
	}
	gc := max(n.gc, 1)
	i, j := e/gc, e%gc
	for b := range par {
		if par[b] != 0 {
			continue
		}
		ai := n.args[b+1]
		q := n.bc[3+3*b:]
		if c, ok := p.zeroFactorCell(ai, q[0]-p.nodes[ai].off+i*q[1]+j*q[2]); ok {
			for o := range par {
				if o != b && p.arg(n, o+1).dyn {
					return -1, ""
				}
			}
			return b, c
		}
	}
	return -1, ""
}

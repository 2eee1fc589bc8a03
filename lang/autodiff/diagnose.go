package autodiff

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// This file builds the error messages of a failed pass. It runs only on the
// error path, so it may allocate and recompute.

// msg formats "head (part, part, ...)", dropping empty parts.
func msg(head string, parts ...string) string {
	var keep []string
	for _, s := range parts {
		if s != "" {
			keep = append(keep, s)
		}
	}
	if len(keep) == 0 {
		return head
	}
	return head + " (" + strings.Join(keep, ", ") + ")"
}

// elemPart returns "element [i, j]" for element k of shape s, or "".
func elemPart(s Shape, k int) string {
	if e := s.elem(k); e != "" {
		return "element " + e
	}
	return ""
}

// nodeElemPart is elemPart for element k of shape s at node n: "" for a
// node of a loop's rows (Builder.InLoop) with an element per row, the
// element within its iteration's vector for one with a vector per row
// (Iters.Each); a node built once for all rows (of a vector that reads
// no row) names it as the unrolled loop's copy of it did.
func (p *Program) nodeElemPart(n *node, s Shape, k int) string {
	if n.rows {
		if n.each.Rank > 0 {
			return elemPart(n.each, k%n.each.Len())
		}
		if n.iter == 0 || p.perRow(n) {
			return ""
		}
	}
	return elemPart(s, k)
}

// kind names a non-finite value.
func kind(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case v > 0:
		return "+Inf"
	}
	return "-Inf"
}

func g(v float64) string { return fmt.Sprintf("%g", v) }

// short formats v with 6 significant digits, or as many more (up to the
// shortest exact form) as keep it on the same side of each of the others,
// the bounds the message compares it with, and apart from them: "log:
// argument -2.59577 < 0", but "argument 1.0000000000000002 > 1" and
// "non-integer exponent 2.0000001", where 6 digits would read 1 or 2.
func short(v float64, others ...float64) string {
	exact := g(v) // the shortest form that reads back as v
	for prec := 6; prec < 17; prec++ {
		s := strconv.FormatFloat(v, 'g', prec, 64)
		if len(s) >= len(exact) { // 1e-320, a subnormal, not 9.99989e-321
			break
		}
		if r, err := strconv.ParseFloat(s, 64); err == nil && sameSides(v, r, others) {
			return s
		}
	}
	return exact
}

// shortPair formats two values that the message sets against each other
// (a matrix's [i, j] and [j, i], consecutive cutpoints) with the fewest
// digits, 6 or more, at which both still compare as they do: [0, 1] is
// 1.2345678, [1, 0] is 1.2345679, not 1.23457. Each is never longer than
// its shortest exact form.
func shortPair(x, y float64) (string, string) {
	ex, ey := g(x), g(y)
	for prec := 6; prec < 17; prec++ {
		sx, sy := strconv.FormatFloat(x, 'g', prec, 64), strconv.FormatFloat(y, 'g', prec, 64)
		if len(sx) >= len(ex) {
			sx = ex
		}
		if len(sy) >= len(ey) {
			sy = ey
		}
		rx, errx := strconv.ParseFloat(sx, 64)
		ry, erry := strconv.ParseFloat(sy, 64)
		if errx == nil && erry == nil && cmp.Compare(rx, ry) == cmp.Compare(x, y) {
			return sx, sy
		}
	}
	return ex, ey
}

// shortAdmits formats a parameter's value v that support s does not admit
// ("sigma must be > 0 (got ...)"): by short, on its side of s's bounds, and
// in full where s asks for an integer, so that 2.0000001 does not read 2.
func shortAdmits(s dist.Support, v float64) string {
	switch s {
	case dist.Positive, dist.NonNegative:
		return short(v, 0)
	case dist.Unit:
		return short(v, 0, 1)
	case dist.Real:
		return short(v)
	}
	return g(v)
}

// sameSides reports whether r compares with each of others as v does.
func sameSides(v, r float64, others []float64) bool {
	for _, o := range others {
		if cmp.Compare(v, o) != cmp.Compare(r, o) {
			return false
		}
	}
	return true
}

// operandAt returns the value of operand a of an elementwise node n at
// output element k.
func (p *Program) operandAt(n *node, a, k int) float64 {
	i, j := k/max(n.gc, 1), k%max(n.gc, 1)
	o := p.arg(n, a)
	return p.val[o.off+i*n.bc[2*a]+j*n.bc[2*a+1]]
}

// nodeError is forwardError with node i's loop iteration and call
// context, if it has them.
func (p *Program) nodeError(i int32, ok bool) error {
	err := p.forwardError(i, ok)
	n := &p.nodes[i]
	k := p.badElem(n, ok)
	if n.iter > 0 {
		p.atIter(n, p.failRow(n, ok), err)
	}
	if e, isPos := err.(*ast.Error); isPos && ok && (n.op.isUnary() || n.op.isBinary()) {
		e.Msg += p.operandCells(n, k)
	}
	return p.inCall(i, err)
}

// operandCells names the data cells that the operands of elementwise
// node n at its element k were read from ("; argument 2 is x's at
// d.csv:4:3"), so that a bad data row is found; "" for computed operands.
func (p *Program) operandCells(n *node, k int) string {
	var b strings.Builder
	for a := range n.args {
		e := k
		if n.op.isBinary() {
			gc := max(n.gc, 1)
			e = k/gc*n.bc[2*a] + k%gc*n.bc[2*a+1]
		}
		note, ok := p.cellNoteOf(n.args[a], e)
		if !ok {
			continue
		}
		what := "the argument"
		if n.op.isBinary() {
			what = fmt.Sprintf("argument %d", a+1)
		}
		fmt.Fprintf(&b, "; %s is %s", what, note)
	}
	return b.String()
}

// cellNoteOf says what element k of node i is, after "is", where it is
// read from a data file ("x's at d.json:1:8") or computed elementwise from
// one datum there, with params or without ("computed from rt's at
// d.csv:169:3 and param shift[2]"; traceCell), so that lgamma(count + 1)
// at a count of −2, or rt - shift[subj] below 0, names the row; ok false
// where no one datum makes the element.
func (p *Program) cellNoteOf(i int32, k int) (string, bool) {
	if src, at, ok := p.cellOf(i, k); ok {
		return fmt.Sprintf("%s's at %s", src.name, at), true
	}
	return p.computedCell(i, k)
}

// loopError is nodeError for the node at p.order[k], which failed. When
// that node is of a loop's rows (Builder.InLoop), the error is the first
// failing iteration's in loop order, as the unrolled loop's would be: the
// rest of the tape is evaluated, failures as NaN, and of the nodes of the
// same loop the one failing in the earliest iteration is named, the
// earliest in the tape on a tie: a node with an element per row in the
// row of its first failing element, any other, failing from finite
// operands, in its first row, as the unrolled loop's copy of it in the
// first iteration would. Only the log joint's nodes are evaluated: no
// draw is taken.
func (p *Program) loopError(k int, ok bool) error {
	order := p.evalOrder()
	i := order[k]
	n := &p.nodes[i]
	if !n.rows || n.iter == 0 {
		return p.nodeError(i, ok)
	}
	if !p.unfused && p.fullOrder != nil {
		order, k = p.unfuseFrom(i), slices.Index(p.fullOrder, i)
	}
	best, bestRow, bestOK := i, p.failRow(n, ok), ok
	loop := p.iters[n.iter-1].Loop
	if !ok {
		p.fillNaN(n)
	}
	for _, j := range order[k+1:] {
		m := &p.nodes[j]
		if !m.joint {
			continue // kept outputs (a draw's included) are no candidates
		}
		mok := p.eval(m)
		if mok && firstBad(p.val[m.off:m.off+m.n]) < 0 {
			continue
		}
		if !mok {
			p.fillNaN(m)
		}
		if !m.rows || m.iter == 0 || p.iters[m.iter-1].Loop != loop {
			continue
		}
		if !p.perRow(m) && !p.obsPerRow(m) && !p.argsFinite(m) {
			continue // a sum of failed rows, say: not where they failed
		}
		if m.norm != 0 && mok {
			if e, _ := p.densityBad(m); e < 0 {
				continue // its normaliser failed, not its terms
			}
		}
		r := p.failRow(m, mok)
		if p.iterBefore(m, r, &p.nodes[best], bestRow) {
			best, bestRow, bestOK = j, r, mok
		}
	}
	return p.nodeError(best, bestOK)
}

// argsFinite reports whether node n's operands are all finite.
func (p *Program) argsFinite(n *node) bool {
	for a := range n.args {
		if firstBad(p.v(p.arg(n, a))) >= 0 {
			return false
		}
	}
	return true
}

// fillNaN sets the values of node n, whose op failed, to NaN.
func (p *Program) fillNaN(n *node) {
	for k := range p.val[n.off : n.off+n.n] {
		p.val[n.off+k] = math.NaN()
	}
}

// badElem returns the first element of node n that failed (0 when its op
// failed: ok false).
func (p *Program) badElem(n *node, ok bool) int {
	k := 0
	switch {
	case !ok:
	case n.op == OpDensity || n.op == OpLogPDF:
		k, _ = p.densityBad(n)
	case n.op == OpRowScatter:
		k, _ = p.rowScatterBad(n)
	default:
		k = firstBad(p.v(n))
	}
	return max(k, 0)
}

// iterBefore reports whether the iteration of row r of node m comes
// before that of row s of node n in loop order: the loop variables they
// share compare outer first.
func (p *Program) iterBefore(m *node, r int, n *node, s int) bool {
	a, b := &p.iters[m.iter-1], &p.iters[n.iter-1]
	for v := 0; v < len(a.Vars) && v < len(b.Vars); v++ {
		x, y := a.Vals[v][min(r, len(a.Vals[v])-1)], b.Vals[v][min(s, len(b.Vals[v])-1)]
		if x != y {
			return x < y
		}
	}
	return false
}

// failRow returns the row of node n's iterations at which it failed
// (ok false: its op did): that of its first failing element (iterRow),
// or of the failing observation of a Categorical over a loop's rows,
// one observation per row.
func (p *Program) failRow(n *node, ok bool) int {
	if p.obsPerRow(n) && n.op == OpMultinomial {
		return max(p.multinomialObs(n, ok), 0)
	}
	if p.obsPerRow(n) {
		return max(p.categoricalObs(n, ok), 0)
	}
	return p.iterRow(n, p.badElem(n, ok))
}

// obsRows reports whether o, an operand of a Categorical over a loop's
// rows (obsPerRow), is a matrix of one row per observation: the rows'
// vectors of probabilities or log-odds, side by side.
func obsRows(o *node, rows int) bool {
	return o.shape.Rank == 2 && o.shape.Rows == rows
}

// obsPerRow reports whether node n is a Categorical or Multinomial over a
// loop's rows, one observation per row (a category, or a row of counts):
// its failing row is that of the first observation that fails, whatever
// the other rows' probabilities are (a NaN of a row that failed before
// it, say).
func (p *Program) obsPerRow(n *node) bool {
	if !n.rows || n.iter == 0 {
		return false
	}
	rows, y := p.iters[n.iter-1].rows(), p.arg(n, 0)
	switch n.op {
	case OpCategorical:
		return y.n == rows
	case OpMultinomial:
		return y.shape.Rank == 2 && y.shape.Rows == rows
	}
	return false
}

// iterRow returns the row of node n's iterations (Builder.AtIter) that
// its element k is: k for a node of a loop's rows with an element per
// row, else the first row (a node built once for all rows fails in each).
func (p *Program) iterRow(n *node, k int) int {
	if n.rows && k > 0 && p.perRow(n) {
		return k
	}
	return 0
}

// perRow reports whether node n, built in loop iterations, has an
// element per row of them: not a value built once for all the rows
// (Builder.Whole), and as many elements as there are rows.
func (p *Program) perRow(n *node) bool {
	return n.iter > 0 && !n.whole && p.elems(n) == p.iters[n.iter-1].rows()
}

// atIter appends to err's message the loop iteration of row r of node
// n's iterations (Builder.AtIter): " at i = 2, j = 0".
func (p *Program) atIter(n *node, r int, err error) {
	e, ok := err.(*ast.Error)
	if !ok || n.iter == 0 {
		return
	}
	it := &p.iters[n.iter-1]
	var b strings.Builder
	b.WriteString(" at ")
	for v, name := range it.Vars {
		if v > 0 {
			b.WriteString(", ")
		}
		vals := it.Vals[v]
		fmt.Fprintf(&b, "%s = %d", name, vals[min(r, len(vals)-1)])
	}
	// before a density's data cell (densityError)
	if j := strings.Index(e.Msg, cellNote); j >= 0 {
		e.Msg = e.Msg[:j] + b.String() + e.Msg[j:]
		return
	}
	e.Msg += b.String()
}

// cellNote begins densityError's note of the data cell of a value.
const cellNote = "; the value is "

// rows returns the number of rows the iterations are.
func (it *Iters) rows() int {
	n := 1
	for _, v := range it.Vals {
		n = max(n, len(v))
	}
	return n
}

// elems returns the number of elements node n computes: a density's
// terms, else its value's.
func (p *Program) elems(n *node) int {
	if n.op == OpDensity || n.op == OpLogPDF {
		return n.gr * n.gc
	}
	if n.op == OpRowScatter { // the rows' outer products it sums
		return p.arg(n, 0).shape.Rows * n.n
	}
	return n.n
}

// densityBad returns the first element (flat, and as row i, column j of
// the iteration) whose log density is not finite, or −1.
func (p *Program) densityBad(n *node) (k int, lp float64) {
	k = -1
	p.densityTerms(n, func(e int, x float64, par []float64, l, _ float64, _ []float64) bool {
		if math.IsNaN(l) || math.IsInf(l, 0) {
			k, lp = e, l
			return false
		}
		return true
	})
	return k, lp
}

// densityTerms calls f with each element e of density node n: its value
// x, parameters par, log density lp and partials dx and dpar, until f
// returns false.
func (p *Program) densityTerms(n *node, f func(e int, x float64, par []float64, lp, dx float64, dpar []float64) bool) {
	na := n.nparams()
	par, dpar := make([]float64, na), make([]float64, na)
	bc := n.bc
	for i := 0; i < n.gr; i++ {
		for j := 0; j < n.gc; j++ {
			for a := range par {
				q := bc[3+3*a:]
				par[a] = p.val[q[0]+i*q[1]+j*q[2]]
			}
			x := p.val[bc[0]+i*bc[1]+j*bc[2]]
			lp, dx := n.dist.Kernel(x, par, dpar)
			if !f(i*n.gc+j, x, par, lp, dx, dpar) {
				return
			}
		}
	}
}

// lastBadRow returns the last row of node n, of a loop's rows, whose
// contribution to the adjoint of its operand a is not finite, or −1 when
// n's elements are not the rows or its op is not a density or a binary
// one. It runs on the error path of the reverse sweep: the operand is a
// value broadcast along the rows (a param), whose adjoint sums the
// rows', so each row's term is recomputed alone.
func (p *Program) lastBadRow(n *node, a int) int {
	bad := p.badRows(n, a)
	for r := len(bad) - 1; r >= 0; r-- {
		if bad[r] {
			return r
		}
	}
	return -1
}

// badRows reports, for each row of node n's loop rows, whether its
// contribution to the adjoint of operand a is not finite (lastBadRow);
// nil when n's elements are not the rows or its op is not a density or a
// binary one.
func (p *Program) badRows(n *node, a int) []bool {
	if !p.perRow(n) {
		return nil
	}
	var bad []bool
	switch {
	case n.op == OpDensity || n.op == OpLogPDF:
		bad = make([]bool, n.gr*n.gc)
		p.densityTerms(n, func(e int, _ float64, _ []float64, _, dx float64, dpar []float64) bool {
			d := dx
			if a > len(dpar) { // the normaliser's: 1 in each element, finite
				return false
			}
			if a > 0 {
				d = dpar[a-1]
			}
			bad[e] = math.IsNaN(d) || math.IsInf(d, 0)
			return true
		})
	case n.op.isBinary() && n.aoff >= 0:
		bad = make([]bool, n.gr*n.gc)
		x, y, g, z := p.v(p.arg(n, 0)), p.v(p.arg(n, 1)), p.a(n), p.v(n)
		rx, cx, ry, cy := n.bc[0], n.bc[1], n.bc[2], n.bc[3]
		var sum, buf [1]float64
		for i := 0; i < n.gr; i++ {
			for j := 0; j < n.gc; j++ {
				k := i*n.gc + j
				sum[0] = 0
				binaryRowGrad(n.op, a, sum[:], 0, buf[:], g[k:k+1], x[i*rx+j*cx:], cx, y[i*ry+j*cy:], cy, z[k:k+1])
				bad[k] = math.IsNaN(sum[0]) || math.IsInf(sum[0], 0)
			}
		}
	}
	return bad
}

// subject returns what node i's errors name as the failing matrix
// (Builder.Subject), else def.
func (p *Program) subject(i int32, def string) string {
	if s, ok := p.subjects[i]; ok {
		return s
	}
	return def
}

// inCall appends node i's call context (Builder.InCall) to err's message.
func (p *Program) inCall(i int32, err error) error {
	if c := p.ctxOf[i]; c != "" {
		if e, ok := err.(*ast.Error); ok {
			e.Msg += c
		}
	}
	return err
}

// jitterHelps reports whether chol node n's matrix, which failed, factors
// with 1e-9 of its largest diagonal element added to its diagonal: a
// kernel matrix (gp_exp_quad_cov of close inputs) is positive definite in
// exact arithmetic and singular in floating point, where the usual cure
// is a jitter; an indefinite matrix is not helped, and is not told to.
// top is that largest diagonal element, so the jitter that worked is
// 1e-9·top.
func (p *Program) jitterHelps(n *node) (ok bool, top float64) {
	a := p.arg(n, 0)
	d := a.shape.Rows
	l := make([]float64, d*d)
	symLower(l, p.v(a), d)
	for i := range d {
		top = max(top, l[i*d+i])
	}
	if !(top > 0) || math.IsInf(top, 0) {
		return false, top
	}
	for i := range d {
		l[i*d+i] += 1e-9 * top
	}
	return cholesky(l, d) == 0, top
}

// equalRows names the first two equal rows of chol node n's matrix (its
// argument 0), which make it singular whatever the jitter-free arithmetic:
// a kernel of two equal inputs (a duplicate point). "" where none are.
func (p *Program) equalRows(n *node) string {
	if j, i, ok := p.equalPair(n); ok {
		return fmt.Sprintf("; its rows %d and %d are equal, as a kernel's are at two equal inputs (duplicate points or coordinates)", j, i)
	}
	return ""
}

// equalPair returns the first two equal rows j < i of chol node n's matrix.
func (p *Program) equalPair(n *node) (j, i int, ok bool) {
	a := p.arg(n, 0)
	d, v := a.shape.Rows, p.v(a)
	seen := make(map[string]int, d)
	for i := range d {
		key := fmt.Sprint(v[i*d : i*d+d])
		if j, ok := seen[key]; ok {
			return j, i, true
		}
		seen[key] = i
	}
	return 0, 0, false
}

// modelJitter returns the constant c a chol node n's matrix has added to
// its diagonal, when that matrix is a sum with a constant multiple of the
// identity (add_diag(K, c), which lowers to K + c·I): 0 without one.
func (p *Program) modelJitter(n *node) float64 {
	a := p.arg(n, 0)
	if a.op != OpAdd || !a.shape.IsSquare() {
		return 0
	}
	d := a.shape.Rows
	for k := range a.args {
		o := p.arg(a, k)
		if o.shape != a.shape || o.aoff >= 0 { // a param's noise is not a jitter
			continue
		}
		v := p.v(o)
		c := v[0]
		diag := c > 0
		for i := 0; i < d && diag; i++ {
			for j := range d {
				if w := v[i*d+j]; (i == j && w != c) || (i != j && w != 0) {
					diag = false
					break
				}
			}
		}
		if diag {
			return c
		}
	}
	return 0
}

// jitterAdvice is chol's advice when its matrix factors with 1e-9 of its
// largest diagonal element top added to the diagonal: the jitter that
// worked in absolute terms, one relative to the matrix's scale to write
// (a GP kernel's largest diagonal is its amplitude squared, so a fixed
// 1e-9 is small beside alpha² = 100), and, where the matrix already has
// an add_diag(K, c) of its own, that this c is too small here.
func jitterAdvice(top, c float64) string {
	worked := 1e-9 * top
	s := fmt.Sprintf("but it is with 1e-9 of its largest diagonal element (%s) added to its diagonal, a jitter of %s: a kernel or covariance matrix that is singular, or positive definite only in exact arithmetic, factors with a jitter", short(top), short(worked))
	if c > 0 {
		s += fmt.Sprintf("; the model's add_diag adds %s, too small at this point: the matrix factors with %s more", short(c), short(worked))
	}
	return s + fmt.Sprintf("; make it relative to the matrix's scale, e.g. add_diag(K, 1e-6 * square(alpha)) for a kernel of amplitude alpha (%s at this point), or larger, as Stan's GP models add delta", short(1e-6*top))
}

// indefiniteData is, for matrix a of params and data that failed its
// Cholesky factorisation, the note that a square data matrix of a's size
// it is built from (C in lambda * C + (1 - lambda) * I(N)) is itself
// indefinite, with its smallest eigenvalue: the likely cause, which
// params' values can only hide in part; "" where none is.
func (p *Program) indefiniteData(a *node) string {
	k := a.shape.Rows
	if a.aoff < 0 || k < 2 || a.shape.Cols != k {
		return "" // data alone has its own advice (dataMatrixAdvice)
	}
	seen := map[*node]bool{}
	note := ""
	var walk func(m *node)
	walk = func(m *node) {
		if seen[m] || note != "" {
			return
		}
		seen[m] = true
		if m.op == OpConst && m.name != "" && m.shape.Rows == k && m.shape.Cols == k {
			v, w := slices.Clone(p.v(m)), make([]float64, k)
			if symEigen(v, w, k, make([]float64, syevWork(k))) && w[0] < -1e-8*max(-w[0], w[k-1]) {
				note = fmt.Sprintf("; the data %[1]s it is built from is itself not positive definite, its smallest eigenvalue %[2]s (the largest %[3]s), the likely cause: declare %[1]s cov_matrix to have it checked when the data load", m.name, short(w[0]), short(w[k-1]))
			}
			return
		}
		for _, j := range m.args {
			walk(&p.nodes[j])
		}
	}
	walk(a)
	return note
}

// dataAlone reports whether node a reads no latent (a matrix given as
// data, or a let of data alone), with the data names it reads, sorted;
// a matrix of constants alone (chol(diag([1, -1]))) is not.
// A kernel of data points (exp, sqrt, pow, sin or cos of their distances,
// as the gp_*_cov functions lower) is no such matrix: its cure is a jitter.
// Such a function of a scalar (sqrt(2) * G) makes no kernel.
func (p *Program) dataAlone(a *node) (names []string, ok bool) {
	if a.aoff >= 0 {
		return nil, false
	}
	seen := map[*node]bool{}
	kernel := false
	var walk func(m *node)
	walk = func(m *node) {
		if seen[m] {
			return
		}
		seen[m] = true
		switch m.op {
		case OpExp, OpSqrt, OpPow, OpSin, OpCos:
			kernel = kernel || m.shape.Len() > 1
		case OpConst:
			if m.name != "" && !slices.Contains(names, m.name) {
				names = append(names, m.name)
			}
		}
		for _, k := range m.args {
			walk(&p.nodes[k])
		}
	}
	walk(a)
	slices.Sort(names)
	return names, !kernel && len(names) > 0 // constants alone are no data
}

// equalRowsData names chol node n's first two equal rows, "" if none.
func (p *Program) equalRowsData(n *node) string {
	if j, i, ok := p.equalPair(n); ok {
		return fmt.Sprintf(" (its rows %d and %d are equal)", j, i)
	}
	return ""
}

// dataMatrixAdvice is chol's advice for a matrix that is data alone (a
// genomic relationship matrix, a covariance read from a file): a kernel's
// jitter and amplitude are no remedy there, the data is, blended with the
// identity; equal names its equal rows ("" if none), which duplicates make.
func dataMatrixAdvice(names []string, top float64, jitterHelps bool, equal string) string {
	g, is := "G", "is data alone" // G: a name to write the remedy with
	if len(names) == 1 {
		g = names[0]
		is = fmt.Sprintf("is the data %s", g)
	} else if len(names) > 1 {
		is = fmt.Sprintf("is data alone, of %s", strings.Join(names, ", "))
	}
	s := fmt.Sprintf("; it %s, not built from params: a covariance or relationship matrix given as data is singular where rows are duplicated (an individual twice)%s, or where it was estimated from fewer variables than its size (a genomic G from fewer markers than individuals), and indefinite where it was assembled from pairwise estimates or imputed values", is, equal)
	if jitterHelps {
		s += fmt.Sprintf("; it factors with %s added to its diagonal, 1e-9 of its largest diagonal element (%s)", short(1e-9*top), short(top))
	}
	s += fmt.Sprintf("; blend it with the identity, 0.95 * %s + 0.05 * I(N) or add_diag(%s, lambda) with lambda small beside its diagonal", g, g)
	if equal != "" {
		s += ", or drop the duplicates"
	}
	return s
}

// notSymmetric says that the d×d matrix v, named what, is not symmetric
// at asymmetric's pair, given as fail = −(i·d + j + 1).
func notSymmetric(what string, v []float64, d, fail int) string {
	i, j := (-fail-1)/d, (-fail-1)%d
	sa, sb := shortPair(v[i*d+j], v[j*d+i])
	return fmt.Sprintf("%s is not symmetric: element [%d, %d] is %s, [%d, %d] is %s", what, i, j, sa, j, i, sb)
}

// forwardError describes the failure of node i: either eval reported one
// (ok false), or its value has a NaN or an infinity.
func (p *Program) forwardError(i int32, ok bool) error {
	n := &p.nodes[i]
	name := n.op.String()
	if !ok {
		switch n.op {
		case OpChol, OpGaussRowsSS:
			what := p.subject(i, "chol: matrix") // logdet and solve go through chol; logpdf's MvNormal names its covariance
			if n.op == OpGaussRowsSS {
				what = p.subject(i, "MvNormalRows: covariance matrix")
			}
			if p.fail < 0 { // asymmetric's pair, as −(i·d + j + 1)
				a := p.arg(n, 0)
				return ast.Errorf(n.pos, "%s", notSymmetric(what, p.v(a), a.shape.Rows, p.fail))
			}
			ok, top := p.jitterHelps(n) // chol's matrix, or MvNormal's covariance
			if names, data := p.dataAlone(p.arg(n, 0)); data {
				return ast.Errorf(n.pos, "%s is not positive definite (leading minor %d)%s", what, p.fail, dataMatrixAdvice(names, top, ok, p.equalRowsData(n)))
			}
			if bad := p.indefiniteData(p.arg(n, 0)); bad != "" { // no jitter or param value mends it
				return ast.Errorf(n.pos, "%s is not positive definite (leading minor %d)%s", what, p.fail, bad)
			}
			if ok {
				return ast.Errorf(n.pos, "%s is not positive definite (leading minor %d), %s%s", what, p.fail, jitterAdvice(top, p.modelJitter(n)), p.equalRows(n))
			}
			return ast.Errorf(n.pos, "%s is not positive definite (leading minor %d)", what, p.fail)
		case OpEigvalsSym, OpEigvecsSym:
			if a := p.arg(n, 0); p.fail < 0 { // asymmetric's pair, as for chol
				return ast.Errorf(n.pos, "%s", notSymmetric(name+": matrix", p.v(a), a.shape.Rows, p.fail))
			}
			return ast.Errorf(n.pos, "%s: the eigenvalue iteration did not converge", name)
		case OpSingularVal, OpSVDVec:
			name = p.label(n) // svd_U or svd_V
			if p.fail < 0 {   // a non-finite element, as −(k + 1)
				a := p.arg(n, 0)
				k := -p.fail - 1
				return ast.Errorf(n.pos, "%s: element [%d, %d] of the matrix is %v", name, k/a.shape.Cols, k%a.shape.Cols, p.v(a)[k])
			}
			return ast.Errorf(n.pos, "%s: the SVD iteration did not converge in %d sweeps", name, svdSweeps)
		case OpQR:
			return ast.Errorf(n.pos, "%s: matrix is rank-deficient (R[%d, %d] is zero to rounding), so the factor has no derivative: a param's matrix needs full rank min(rows, columns)", p.label(n), p.fail-1, p.fail-1)
		case OpChol2Inv:
			a := p.arg(n, 0)
			d, v := a.shape.Rows, p.v(a)
			if p.fail < 0 {
				i, j := (-p.fail-1)/d, (-p.fail-1)%d
				return ast.Errorf(n.pos, "%s: L is not lower triangular: element [%d, %d] above the diagonal is %s", name, i, j, short(v[i*d+j]))
			}
			i := p.fail - 1
			return ast.Errorf(n.pos, "%s: L's diagonal element [%d, %d] is %s, not positive: not a Cholesky factor", name, i, i, short(v[i*d+i]))
		case OpInverse, OpLogAbsDet:
			return ast.Errorf(n.pos, "%s: matrix is singular (no pivot in column %d of its LU factorisation)", name, p.fail-1)
		case OpGaussRowsLR:
			return p.lrError(i, n)
		case OpGatherAt:
			return p.gatherAtError(n)
		case OpQuantile:
			return p.quantileError(n)
		case OpCategorical:
			return p.categoricalError(n, false)
		case OpMultinomial:
			return p.multinomialError(n, false)
		case OpPoissonBinomial:
			return p.poissonBinomialError(n, false)
		case OpOrderedLogistic:
			return p.orderedError(n, false)
		case OpLKJCorrChol:
			return p.lkjError(n)
		case OpMvNormalChol:
			return p.mvCholError(n)
		case OpWishart:
			return p.wishartError(n)
		case OpHMMMarginal, OpHMMStateProb, OpHMMViterbi:
			return p.hmmError(n)
		case OpODE:
			return p.odes[n.i1].failure(n)
		case OpAlgebraSolve:
			return p.algs[n.i1].failure(n)
		case OpIntegrate:
			return p.integs[n.i1].failure(n)
		}
		return ast.Errorf(n.pos, "%s: evaluation failed", name)
	}
	if n.op == OpRowScatter {
		k, v := p.rowScatterBad(n)
		return ast.Errorf(n.pos, "%s", msg(name+": result is "+kind(v), p.nodeElemPart(n, n.shape, k)))
	}
	if n.op == OpRowSum && n.rows && n.iter > 0 && !n.whole {
		// a loop's sum of a vector per row: the unrolled loop's sum
		name = OpSum.String()
	}
	if n.op == OpLogDetChol { // a factor given whole (MultiStudentTCholesky's L)
		l := p.arg(n, 0)
		if why := cholFactorBad(p.v(l), l.shape.Rows); why != "" {
			return ast.Errorf(n.pos, "%s: %s", name, why)
		}
	}
	z := p.v(n)
	k := firstBad(z)
	el := p.nodeElemPart(n, n.shape, k)
	bad := kind(z[k])
	switch op := n.op; {
	case op == OpInput:
		return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("input %s: value is %s", n.name, bad), el))
	case op == OpConst:
		return ast.Errorf(n.pos, "%s", msg("constant: value is "+bad, el))
	case op == OpDensity || op == OpLogPDF:
		return p.densityError(n)
	case op == OpRand:
		return p.randError(n, k, el)
	case op == OpCategorical:
		return p.categoricalError(n, true)
	case op == OpMultinomial:
		return p.multinomialError(n, true)
	case op == OpPoissonBinomial:
		return p.poissonBinomialError(n, true)
	case op == OpOrderedLogistic:
		return p.orderedError(n, true)
	case op == OpLKJCorrChol:
		return p.lkjError(n)
	case op == OpMvNormalChol:
		return p.mvCholError(n)
	case op == OpWishart:
		return p.wishartError(n)
	case op == OpRowSumProd && n.sumOf > 0:
		return p.sumRowSumProdError(n, bad)
	case op == OpRowSumProd:
		return p.rowSumProdError(n, k, bad)
	case op == OpLog && n.name != "": // a distribution's parameter (Builder.LogArg)
		return ast.Errorf(n.pos, "%s", msg(n.name+" must be > 0", "got "+short(p.v(p.arg(n, 0))[k], 0), el))
	case op == OpExp && n.name != "" && math.IsInf(z[k], 1): // a positive param's transform (Builder.ExpParam)
		return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("the positive param `%s`'s transform exp(%s) overflows", n.name, short(p.v(p.arg(n, 0))[k])), el))
	case op.isUnary():
		return ast.Errorf(n.pos, "%s", unaryMessage(op, p.v(p.arg(n, 0))[k], bad, el))
	case op.isBinary():
		x, y := p.operandAt(n, 0, k), p.operandAt(n, 1, k)
		return ast.Errorf(n.pos, "%s", binaryMessage(op, x, y, bad, el))
	}
	return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: result is %s", name, bad), el))
}

func unaryMessage(op Op, x float64, bad, el string) string {
	name := op.String()
	switch {
	case (op == OpLog || op == OpSqrt || op == OpLog1mexp) && x < 0:
		return msg(fmt.Sprintf("%s: argument %s < 0", name, short(x, 0)), el)
	case op == OpLog1p && x < -1:
		return msg(fmt.Sprintf("log1p: argument %s < -1", short(x, -1)), el)
	case (op == OpLog || op == OpLog1mexp) && x == 0, op == OpLog1p && x == -1:
		return msg(fmt.Sprintf("%s: argument %s gives -Inf", name, short(x)), el)
	case (op == OpLgamma || op == OpDigamma || op == OpTrigamma || op == OpTgamma) && x <= 0 && x == math.Floor(x):
		return msg(fmt.Sprintf("%s: argument %s is a pole", name, short(x)), el)
	case op == OpLog1m && x > 1:
		return msg(fmt.Sprintf("log1m: argument %s > 1", short(x, 1)), el)
	case op == OpLog1m && x == 1, op == OpInvPhi && (x == 0 || x == 1):
		return msg(fmt.Sprintf("%s: argument %s gives %s", name, short(x), bad), el)
	case op == OpInvPhi && !(x > 0 && x < 1):
		return msg(fmt.Sprintf("inv_Phi: argument %s is outside [0, 1]", short(x, 0, 1)), el)
	case (op == OpAsin || op == OpAcos || op == OpAtanh) && !(x >= -1 && x <= 1):
		return msg(fmt.Sprintf("%s: argument %s is outside [-1, 1]", name, short(x, -1, 1)), el)
	case op == OpAtanh && (x == 1 || x == -1):
		return msg(fmt.Sprintf("atanh: argument %s gives %s", short(x, -1, 1), bad), el)
	case op == OpAcosh && x < 1:
		return msg(fmt.Sprintf("acosh: argument %s < 1", short(x, 1)), el)
	case (op == OpLog2 || op == OpLog10) && x < 0:
		return msg(fmt.Sprintf("%s: argument %s < 0", name, short(x, 0)), el)
	case op == OpLambertW0 && x < -1/math.E:
		return msg(fmt.Sprintf("lambert_w0: argument %s < -1/e", short(x, -1/math.E)), el)
	case op == OpLambertWm1 && !(x >= -1/math.E && x < 0):
		return msg(fmt.Sprintf("lambert_wm1: argument %s is outside [-1/e, 0)", short(x, -1/math.E, 0)), el)
	case (op == OpLog2 || op == OpLog10) && x == 0:
		return msg(fmt.Sprintf("%s: argument 0 gives -Inf", name), el)
	}
	return msg(fmt.Sprintf("%s: result is %s", name, bad), "argument "+short(x), el)
}

func binaryMessage(op Op, x, y float64, bad, el string) string {
	switch {
	case op == OpDiv && y == 0:
		return msg(fmt.Sprintf("div: division by zero (%s / 0)", short(x)), el)
	case op == OpPow && x < 0 && y != math.Trunc(y):
		return msg(fmt.Sprintf("pow: negative base %s with non-integer exponent %s", short(x, 0), short(y, math.Round(y))), el)
	case op == OpPow && x == 0 && y < 0:
		return msg(fmt.Sprintf("pow: 0 to the negative power %s", short(y, 0)), el)
	case op == OpLbeta && !(x > 0 && y > 0):
		return msg(fmt.Sprintf("lbeta: arguments %s and %s must be > 0", short(x, 0), short(y, 0)), el)
	case op == OpLogDiffExp && x < y:
		return msg(fmt.Sprintf("log_diff_exp: argument 1 (%s) < argument 2 (%s): the difference would be negative", short(x, y), short(y, x)), el)
	case op == OpLogDiffExp && x == y:
		return msg(fmt.Sprintf("log_diff_exp: equal arguments (%s) give -Inf, the log of 0", short(x)), el)
	case op == OpLogInvLogitDiff && x < y:
		return msg(fmt.Sprintf("log_inv_logit_diff: argument 1 (%s) < argument 2 (%s): the difference would be negative", short(x, y), short(y, x)), el)
	case op == OpLogInvLogitDiff && x == y:
		return msg(fmt.Sprintf("log_inv_logit_diff: equal arguments (%s) give -Inf, the log of 0", short(x)), el)
	case op == OpLogFallingFactorial && !(x-y+1 > 0 && y > -1):
		return msg(fmt.Sprintf("log_falling_factorial: arguments %s and %s need x - n + 1 > 0 and n > -1", short(x, y-1), short(y, -1, x+1)), el)
	case (op == OpGammaP || op == OpGammaQ) && !(x > 0 && x < math.Inf(1)):
		return msg(fmt.Sprintf("%s: argument 1 (%s) must be > 0 and finite", op, short(x, 0)), el)
	case (op == OpGammaP || op == OpGammaQ) && !(y >= 0):
		return msg(fmt.Sprintf("%s: argument 2 (%s) must be >= 0", op, short(y, 0)), el)
	case op == OpLogBesselI && !(x >= -1):
		return msg(fmt.Sprintf("log_modified_bessel_first_kind: argument 1 (%s) must be >= -1", short(x, -1)), el)
	case (op == OpLogBesselI && !(y >= 0)) || ((op == OpRisingFactorial || op == OpFallingFactorial) && !(y >= 0)):
		return msg(fmt.Sprintf("%s: argument 2 (%s) must be >= 0", op, short(y, 0)), el)
	case (op == OpBesselY || op == OpBesselK) && !(y > 0):
		return msg(fmt.Sprintf("%s: argument 2 (%s) must be > 0", op, short(y, 0)), el)
	case op == OpFmod && y == 0:
		return msg("fmod: argument 2 is 0", el)
	case op == OpFmod && math.IsInf(x, 0):
		return msg(fmt.Sprintf("fmod: argument 1 is %g", x), el)
	case op == OpLmgamma && !(x >= 0 && x == math.Trunc(x)):
		return msg(fmt.Sprintf("lmgamma: argument 1 (%s) must be an int >= 0", short(x, 0)), el)
	case op == OpLmgamma && !(y > (x-1)/2):
		return msg(fmt.Sprintf("lmgamma: argument 2 (%s) must be > (k - 1)/2 = %g", short(y, (x-1)/2), (x-1)/2), el)
	case op == OpLogRisingFactorial && !(x > 0 && x+y > 0):
		return msg(fmt.Sprintf("log_rising_factorial: arguments %s and %s need x > 0 and x + n > 0", short(x, 0), short(y, -x)), el)
	case op == OpLmultiply && y < 0:
		return msg(fmt.Sprintf("lmultiply: argument 2 (%s) < 0", short(y, 0)), el)
	case op == OpLmultiply && y == 0:
		return msg(fmt.Sprintf("lmultiply: argument 2 is 0 with argument 1 %s: gives %s (only 0 log 0 is 0)", short(x, 0), bad), el)
	case op == OpBinaryLogLoss && !(y >= 0 && y <= 1):
		return msg(fmt.Sprintf("binary_log_loss: argument 2 (%s) is outside [0, 1]", short(y, 0, 1)), el)
	case op == OpBinaryLogLoss:
		return msg(fmt.Sprintf("binary_log_loss: argument 2 (%s) gives +Inf for outcome %s", short(y, 0, 1), short(x, 0, 1)), el)
	}
	return msg(fmt.Sprintf("%s: result is %s", op, bad), "arguments "+short(x)+" and "+short(y), el)
}

// zeroOf returns the log 0 (infIsValue) that node i of the log joint,
// which failed, took in: its first operand that is such a log 0, or that
// carries one, followed back to the log CDF or logpdf that made it; −1
// where node i took in none and its failure is its own. Forward and
// ForwardJoint blame the log CDF or logpdf then, not a later node that
// reads the log 0 nor the first log 0 of the pass, which a later failure
// may not read at all. It is also infIsValue's walk for a node that makes
// no log 0, so the operands are followed back once, not once by each.
func (p *Program) zeroOf(i int32) int32 {
	if p.zpass == 0 {
		return p.zeroOfWalk(i)
	}
	m := &p.zmemo[i]
	if m.zeroPass != p.zpass {
		m.zero, m.zeroPass = p.zeroOfWalk(i), p.zpass
	}
	return m.zero
}

// zeroOfWalk is zeroOf without zmemo.
func (p *Program) zeroOfWalk(i int32) int32 {
	if p.ownFailure(i) {
		return -1
	}
	for _, a := range p.nodes[i].args {
		an := &p.nodes[a]
		v := p.val[an.off : an.off+an.n]
		if firstBad(v) < 0 || slices.ContainsFunc(v, math.IsNaN) {
			continue
		}
		if an.op == OpLogPDF && an.dist.HasLogZero() {
			if p.infIsValue(a) {
				return a
			}
			continue
		}
		if p.dataLogZero(a) {
			return a
		}
		if z := p.zeroOf(a); z >= 0 {
			return z
		}
	}
	return -1
}

// ownFailure reports whether node i, a function that explains its
// failures (dist.Univariate.Explain: log_mix), failed at its first
// failing element of a finite value of its own (log_mix's theta outside
// [0, 1]) rather than of a log 0 it took in, so that zeroOf blames node
// i, not the log 0.
func (p *Program) ownFailure(i int32) bool {
	n := &p.nodes[i]
	if n.op != OpLogPDF || n.dist.Explain == nil {
		return false
	}
	own := false
	p.densityTerms(n, func(_ int, x float64, par []float64, lp, _ float64, _ []float64) bool {
		if !math.IsNaN(lp) && !math.IsInf(lp, 0) {
			return true
		}
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			w, ofValue := n.dist.Explain(x, par, lp)
			own = w != "" && ofValue
		}
		return false
	})
	return own
}

// infIsValue reports whether the non-finite values of node i, whose op
// succeeded, are values rather than failures (dist.Univariate.LogZero):
// the −Inf of a log CDF at the end of the closed support where its
// probability is 0 (ZeroAtEnd: logcdf(0, Weibull(k, λ))), log 0 of data
// (dataLogZero: log1m(y) at y = 1), the −Inf of
// logpdf at a value outside the support (Outside: logpdf(3, Uniform(0,
// 2))), or infinities, never NaN, of a node that reads such a value (2 ·
// logcdf(0, D), a sum of them). Stan computes such a log CDF or log
// density without an error; an output that is one is written as it is,
// without a warning.
func (p *Program) infIsValue(i int32) bool {
	if p.zpass == 0 {
		return p.infIsValueWalk(i)
	}
	m := &p.zmemo[i]
	if m.valuePass != p.zpass {
		m.value, m.valuePass = p.infIsValueWalk(i), p.zpass
	}
	return m.value
}

// zeroMemo is a node's remembered infIsValue (value) and zeroOf (zero),
// each with the pass (Program.zpass) it was found in.
type zeroMemo struct {
	valuePass, zeroPass uint64
	zero                int32
	value               bool
}

// zeroValue is infIsValue(i) for Forward's, ForwardJoint's and Profile's
// checks of node i, just evaluated, remembering the answers of its walk
// for the rest of the pass (zgen): the nodes before i keep their values
// there, as long as no node is evaluated again (which renews zgen).
func (p *Program) zeroValue(i int32) bool {
	if noZeroMemo {
		return p.infIsValue(i)
	}
	if len(p.zmemo) != len(p.nodes) {
		p.zmemo = make([]zeroMemo, len(p.nodes))
	}
	p.zpass = p.zgen
	v := p.infIsValue(i)
	p.zpass = 0
	return v
}

// noZeroMemo turns zmemo off, for the tests that compare with the walks.
var noZeroMemo bool

// infIsValueWalk is infIsValue without zmemo.
func (p *Program) infIsValueWalk(i int32) bool {
	n := &p.nodes[i]
	v := p.val[n.off : n.off+n.n]
	for _, x := range v {
		if math.IsNaN(x) {
			return false
		}
	}
	if n.op == OpLogPDF && n.dist.HasLogZero() {
		return p.logZeros(n)
	}
	if p.dataLogZero(i) {
		return true
	}
	return p.zeroOf(i) >= 0
}

// dataLogZero reports whether n is log(x) or log1m(x) of the data alone
// whose infinities are all −Inf, log 0 at an x of 0 (1 for log1m), that
// reaches only functions that take a −Inf in (logZeroTakenIn): a masked
// state or an emission of probability 0, a value there as Stan's log(0)
// is −inf. Elsewhere (exp(b * log(dose)) at dose 0) it stays an error at
// the log, as a gradient through it would be NaN.
func (p *Program) dataLogZero(i int32) bool {
	if p.logZeroTaken == nil || !p.logZeroTaken[i] {
		return false
	}
	n := &p.nodes[i]
	for _, v := range p.val[n.off : n.off+n.n] {
		if math.IsNaN(v) || math.IsInf(v, 1) {
			return false
		}
	}
	return true
}

// logZeros is infIsValue for n, a logpdf or log CDF node whose values
// hold no NaN: whether each infinite element is a log 0 that is a value
// (dist.Univariate.LogZero). Forward asks it at every evaluation where a
// param moves rows outside the support (Uniform(0, b) with b a param), so
// it reads the arguments of those elements alone, into p.zpar, rather
// than run the kernel again over every element with new buffers.
func (p *Program) logZeros(n *node) bool {
	na := n.nparams()
	if cap(p.zpar) < na {
		p.zpar = make([]float64, na)
	}
	par, bc := p.zpar[:na], n.bc
	for e, lp := range p.val[n.off : n.off+n.n] {
		if !math.IsInf(lp, 0) {
			continue
		}
		i, j := e/n.gc, e%n.gc
		for a := range par {
			q := bc[3+3*a:]
			par[a] = p.val[q[0]+i*q[1]+j*q[2]]
		}
		if !n.dist.LogZero(p.val[bc[0]+i*bc[1]+j*bc[2]], par, lp) {
			return false
		}
	}
	return true
}

// densityError finds the first element whose log density is not finite and
// explains it: an argument outside its support, a value outside the
// support of the distribution, or a log CDF's log 0 at an end of the
// support (ZeroAtEnd), which the log joint cannot take.
func (p *Program) densityError(n *node) error { return p.densityErrorAt(n, -1) }

// densityErrorAt is densityError at element only of n (−1: its first
// failing one).
func (p *Program) densityErrorAt(n *node, only int) error {
	d := n.dist
	bc := n.bc
	out := Shape{Rank: 2, Rows: n.gr, Cols: n.gc}
	// The broadcast shape of the operands, for the element index.
	shapes := make([]Shape, len(n.args))
	for a := range n.args {
		shapes[a] = p.arg(n, a).shape
	}
	if s, ok := broadcast(shapes...); ok {
		out = s
	}
	var err error
	p.densityTerms(n, func(k int, x float64, par []float64, lp, _ float64, _ []float64) bool {
		if !math.IsNaN(lp) && !math.IsInf(lp, 0) || only >= 0 && k != only {
			return true
		}
		el := p.nodeElemPart(n, out, k)
		i, j := k/n.gc, k%n.gc
		for a, v := range par {
			if math.IsInf(v, -1) && p.infIsValue(n.args[a+1]) {
				continue // a log 0 taken in (log_mix's lp2 = logpdf(3, Uniform(0, 2)))
			}
			if a < len(d.Params) {
				if need, ok := d.ArgAdmits(a, v); !ok {
					// an argument computed from a datum and params
					// (sigma * x) names the datum's cell
					cell := ""
					if note, ok := p.computedCell(n.args[a+1], i*bc[3*a+4]+j*bc[3*a+5]); ok {
						cell = fmt.Sprintf("; %s is %s", paramName(d, a), note)
					}
					cell += p.hugeNote(n, k, x, par)
					err = ast.Errorf(n.pos, "%s: %s must be %s (got %s%s)%s", d.Name, paramName(d, a), need, shortAdmits(d.Params[a].Support, v), withComma(el), cell)
					return false
				}
			}
		}
		if la, ua := d.LowerArg, d.UpperArg; la > 0 && ua > 0 && la <= len(par) && ua <= len(par) && par[la-1] > par[ua-1] {
			// a support between two arguments given out of order
			// (DiscreteUniform's lower > upper, from data): check's
			// error for constant ones, not the family's NaN
			err = ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s needs %s <= %s", d.Name, paramName(d, la-1), paramName(d, ua-1)), paramList(d, par), el))
			return false
		}
		// A value read from a data file is named at its cell, which
		// counts rows from 1 where the element index counts from 0.
		cell, ve := "", i*bc[1]+j*bc[2]
		if note, ok := p.cellNoteOf(n.args[0], ve); ok {
			cell = cellNote + note
		}
		// A log-scale kernel (a positive latent's prior) is given log x:
		// the message names x, as the model wrote it, and every l is in
		// the support of a positive x.
		shown, inSupport := short(x), false
		if d.LogArg {
			x, shown, inSupport = math.Exp(x), logArgValue(x), true
		}
		if d.LogitArg { // a unit latent's prior, given logit x
			x, inSupport = dist.InvLogit(x), true
			shown = short(x)
		}
		if d.Explain != nil {
			if w, ofValue := d.Explain(x, par, lp); w != "" {
				if !ofValue {
					cell = ""
				}
				err = ast.Errorf(n.pos, "%s%s", msg(fmt.Sprintf("%s: %s", d.Name, w), paramList(d, par), el), cell)
				return false
			}
		}
		if d.Why != nil && math.IsNaN(lp) {
			if w := d.Why(x, par); w != "" { // a function's series that cannot keep its digits
				if d.Why(0, par) == w {
					cell = "" // the parameters' alone (c a pole), as at z = 0: not z's cell
				}
				if d.Quantity != "" { // a function's: z is its last argument
					cell = strings.Replace(cell, cellNote, fmt.Sprintf("; argument %d is ", len(par)+1), 1)
				}
				err = ast.Errorf(n.pos, "%s%s", msg(fmt.Sprintf("%s: %s", d.Name, w), paramList(d, par), "z "+shown, el), cell)
				return false
			}
		}
		if math.IsInf(lp, -1) && !inSupport {
			if _, ok := d.Support.Admits(x); !ok && d.Quantity != "" { // a function's argument outside its domain
				lo, hi := d.Ends(par)
				cell = strings.Replace(cell, cellNote, fmt.Sprintf("; argument %d is ", len(par)+1), 1) // the value is the last argument
				err = ast.Errorf(n.pos, "%s%s", msg(fmt.Sprintf("%s: argument %d (%s) is outside [%g, %g]", d.Name, len(par)+1, short(x, lo, hi), lo, hi), el), cell)
				return false
			}
			if _, ok := d.Support.Admits(x); !ok && !d.ZeroAtEnd(x, par, lp) {
				if lo, _ := d.Ends(par); lo == 0 && x <= 0 && cell != "" {
					cell += p.boundNote(n.args[0], ve) // rt - shift[subj], shift's bound above rt
				}
				err = ast.Errorf(n.pos, "%s%s", msg(fmt.Sprintf("%s is -Inf: value %g outside the support of %s", quantity(d), x, d.Name), el), cell)
				return false
			}
			if d.ZeroAtEnd(x, par, lp) { // a value, which the log joint cannot take
				end, prob := "lower", "P(X <= x)"
				if d.CDFTail > 0 {
					end, prob = "upper", "P(X > x)"
				}
				what := msg(fmt.Sprintf("%s is -Inf: value %g is the %s end of the support of %s, where %s is 0", quantity(d), x, end, d.Name, prob), el)
				doomed, sums := p.endZeroOfData(n, par)
				if sums { // a data error, not a start's
					err = ast.Errorf(n.pos, "%s%s; the log joint adds it as it is, and %s", what, cell, DataValueNote)
					return false
				}
				if doomed { // the model's, not a start's
					what += cell + "; " + ProductZeroNote
					cell = ""
				}
				err = ast.Errorf(n.pos, "%s%s; a log 0 is a value only where a later function takes it in (log_diff_exp(a, it) is a), not in the log joint or a product (0 times it is NaN): give such rows a branch of their own (if L[i] == 0 {...} in a loop; docs/language.md, Censored data)", what, cell)
				return false
			}
		}
		what := fmt.Sprintf("%s: %s is %s at value %s", d.Name, quantity(d), kind(lp), shown)
		if !d.LogProb && math.IsInf(lp, -1) {
			la, ua := d.LowerArg, d.UpperArg
			switch {
			case la > 0 && la <= len(par) && x <= par[la-1]:
				// below the argument where the support starts (Pareto's
				// y_min, Wiener's tau, DiscreteUniform's lower, which is
				// in the support)
				rel := "not above"
				if d.Support.Discrete() {
					rel = "below"
				}
				what += fmt.Sprintf(", %s %s, where %s's support starts", rel, paramName(d, la-1), d.Name)
			case ua > 0 && ua <= len(par) && x > par[ua-1]:
				// above the argument where the support ends (DiscreteUniform's upper)
				what += fmt.Sprintf(", above %s, where %s's support ends", paramName(d, ua-1), d.Name)
			case d.EndsOf != nil:
				// ends that move with several arguments (GEV's mu − sigma/xi)
				if lo, hi := d.Ends(par); x <= lo {
					what += fmt.Sprintf(", not above %.6g, where %s's support starts for these arguments", lo, d.Name)
				} else if x >= hi {
					what += fmt.Sprintf(", not below %.6g, where %s's support ends for these arguments", hi, d.Name)
				}
			}
		}
		if a, zero := p.paramZeroOfData(n, k, par); a >= 0 {
			cell += fmt.Sprintf("; %s is 0 because %s", paramName(d, a), zero)
		}
		cell += p.hugeNote(n, k, x, par)
		err = ast.Errorf(n.pos, "%s%s", msg(what, paramList(d, par), el), cell)
		return false
	})
	if err != nil {
		return err
	}
	if d.LogProb {
		return ast.Errorf(n.pos, "%s: sum of log probabilities overflows", d.Name)
	}
	return ast.Errorf(n.pos, "%s: sum of log densities overflows", d.Name)
}

// logArgValue formats the value e^l of a log-scale kernel's argument l: the
// value where it is a positive float64, else l itself, named as the log of
// the value (e^800 overflows, e^-800 underflows to 0).
func logArgValue(l float64) string {
	if x := math.Exp(l); x > 0 && !math.IsInf(x, 1) {
		return short(x)
	}
	if l > 0 {
		return "e^" + short(l) + ", past the largest float64"
	}
	return "e^" + short(l) + ", which underflows to 0"
}

// quantity names what d's kernel computes: a log density, or the log
// probability of logcdf and logccdf.
func quantity(d *dist.Univariate) string {
	if d.Quantity != "" {
		return d.Quantity
	}
	if d.LogProb {
		return "log probability"
	}
	return "log density"
}

func withComma(s string) string {
	if s == "" {
		return ""
	}
	return ", " + s
}

func paramList(d *dist.Univariate, par []float64) string {
	var parts []string
	for a, v := range par {
		parts = append(parts, paramName(d, a)+" "+short(v))
	}
	return strings.Join(parts, ", ")
}

// lastBad returns the index of the last NaN or infinity in v, or −1.
func lastBad(v []float64) int {
	for k := len(v) - 1; k >= 0; k-- {
		if math.IsNaN(v[k]) || math.IsInf(v[k], 0) {
			return k
		}
	}
	return -1
}

// backwardError reruns the reverse sweep checking every adjoint a node
// writes, and blames the first node whose contribution is not finite. In
// a loop the last failing iteration is named, which the unrolled loop's
// reverse sweep meets first: after a failure of a loop's rows
// (Builder.InLoop) the sweep goes on through the nodes of that loop, and
// of those whose elements are its rows the one failing in the latest
// iteration is blamed, the first met on a tie. Fused linear chains go
// unfused, their nodes' values computed first, as the chains' nodes would
// have been met.
func (p *Program) backwardError() error {
	p.unfuseValues()
	defer p.fuse()
	p.seed()
	var best error
	var bn *node
	brow := 0
	order := p.evalOrder()
	for k := len(order) - 1; k >= 0; k-- {
		i := order[k]
		n := &p.nodes[i]
		if !n.joint {
			continue
		}
		if bn != nil && (n.iter == 0 || p.iters[n.iter-1].Loop != p.iters[bn.iter-1].Loop) {
			continue
		}
		// A node built once for all rows, failing from a finite
		// adjoint, fails in the unrolled loop's last iteration first.
		perRow := !n.rows || n.iter == 0 || p.perRow(n)
		fresh := perRow || firstBad(p.a(n)) < 0
		// After a failure, an operand whose adjoint was not finite before
		// n's contribution is not n's failure (a param that the failed
		// rows' terms reached already).
		var before []bool
		if bn != nil {
			before = make([]bool, len(n.args))
			for a := range n.args {
				if o := p.arg(n, a); o.aoff >= 0 {
					before[a] = firstBad(p.a(o)) >= 0
				}
			}
		}
		p.grad(n)
		if bn != nil && !fresh {
			continue
		}
		for a := range n.args {
			o := p.arg(n, a)
			if o.aoff < 0 || before != nil && before[a] {
				continue
			}
			ga := p.a(o)
			e := firstBad(ga)
			if e < 0 {
				continue
			}
			row := 0
			switch {
			case p.obsPerRow(n) && obsRows(o, p.iters[n.iter-1].rows()):
				// a Categorical's theta, a row per observation: the
				// last failing row, its first failing element
				c := o.shape.Cols
				row = lastBad(ga) / c
				e = row*c + firstBad(ga[row*c:row*c+c])
			case n.rows && !perRow:
				e = lastBad(ga)
				row = p.iters[n.iter-1].rows() - 1
			case n.rows:
				e = lastBad(ga)
				row = e
				if o.n != p.elems(n) {
					// a param read by every row: find the row
					row = p.lastBadRow(n, a)
				}
				e, row = p.eachFirstBad(n, a, e, row, ga)
			}
			switch {
			case bn == nil:
				err := p.gradError(i, a, e, row)
				if !n.rows || n.iter == 0 || row < 0 {
					return err
				}
				best, bn, brow = err, n, row
			case row >= 0 && p.iterBefore(bn, brow, n, row):
				best, bn, brow = p.gradError(i, a, e, row), n, row
			}
			break
		}
	}
	if best != nil {
		return best
	}
	r := &p.nodes[p.root]
	return ast.Errorf(r.pos, "gradient is not finite")
}

// gradError is the error of node i whose contribution to the adjoint of
// its operand a is not finite at element e, in row row of its loop
// iterations (none if negative).
func (p *Program) gradError(i int32, a, e, row int) error {
	n := &p.nodes[i]
	o := p.arg(n, a)
	pos := n.pos
	if n.sumOf > 0 {
		pos = p.nodes[n.sumOf-1].pos // the rowsum's, as unfused
	}
	if n.op == OpSVDVec {
		if why := p.svdGradError(n); why != "" {
			return ast.Errorf(pos, "%s", why)
		}
	}
	err := ast.Errorf(pos, "%s", msg(
		fmt.Sprintf("%s: gradient is %s with respect to %s", p.label(n), kind(p.a(o)[e]), p.operandName(n, a)),
		"value "+short(p.v(o)[e]), p.operandElemPart(n, o, e)))
	if row >= 0 {
		p.atIter(n, row, err)
	}
	return p.inCall(i, err)
}

// label names a node's op in messages: the distribution for a density.
func (p *Program) label(n *node) string {
	if n.op == OpDensity || n.op == OpLogPDF {
		return n.dist.Name
	}
	if n.op == OpCategorical {
		return categoricalName(n.i0 == 1)
	}
	if n.op == OpMultinomial {
		return multinomialName(n.i0 == 1)
	}
	if n.op == OpPoissonBinomial {
		return poissonBinomialName(n.i0 - 1)
	}
	if n.op == OpOrderedLogistic {
		return orderedName(n.i0 == 1)
	}
	if n.op == OpWishart {
		return wishartForm(n.i0).Name()
	}
	if n.op == OpSort {
		return [...]string{"sort_asc", "sort_desc"}[n.i0]
	}
	if n.op == OpSortIndex {
		return sortIndexNames[n.i0]
	}
	if n.op == OpTriSolve && n.i0 == 1 {
		return "mdivide_right_tri_low"
	}
	if n.op == OpCSRMatVec {
		return csrNames[n.i0]
	}
	if n.op == OpQR {
		return qrNames[n.i0]
	}
	if n.op == OpSVDVec {
		return [...]string{"svd_U", "svd_V"}[n.i0]
	}
	if n.op == OpODE && n.ode != nil && n.ode.tol.Method == ODERosW {
		return "ode_bdf"
	}
	if n.op == OpAlgebraSolve && n.alg != nil && n.alg.tol.Method == AlgebraPowell {
		return "solve_powell"
	}
	return n.op.String()
}

func (p *Program) operandName(n *node, a int) string {
	if n.op == OpDensity || n.op == OpLogPDF {
		if a == 0 {
			return "the value"
		}
		if a > n.nparams() {
			return "the normaliser"
		}
		return paramName(n.dist, a-1)
	}
	if n.op == OpOrderedLogistic && a > 0 {
		return [...]string{"", "eta", "the cutpoints"}[a]
	}
	if n.op == OpMvNormalChol {
		return [...]string{"the value", "mu", "L"}[a]
	}
	if n.op == OpWishart {
		if a == 2 && n.i0&wishartSFull == 0 {
			return "L_S"
		}
		return [...]string{"the value", "nu", "S"}[a]
	}
	if n.op == OpPoissonBinomial && a == 1 {
		return "theta"
	}
	if (n.op == OpCategorical || n.op == OpMultinomial) && a == 1 {
		if n.i0 == 1 {
			return "eta"
		}
		return "theta"
	}
	return fmt.Sprintf("argument %d", a+1)
}

// eachFirstBad moves the failing element e of operand a of node n, in row
// row of its iterations, to the first failing element of that row's
// iteration when n's iterations are vectors side by side (Iters.Each): the
// unrolled loop's node of that iteration names its first. It returns e and
// row unchanged otherwise.
func (p *Program) eachFirstBad(n *node, a, e, row int, ga []float64) (int, int) {
	o, m := p.arg(n, a), n.each.Len()
	if n.each.Rank == 0 || m < 2 || row < 0 {
		return e, row
	}
	start := row - row%m
	switch {
	case o.n == n.n: // an operand of the rows' shape
		if k := firstBad(ga[start : start+m]); k >= 0 {
			return start + k, start + k
		}
	case o.n == m && o.shape.Rank == 2 && o.shape.Rows == 1: // a row [1, m] read by every row
		bad := p.badRows(n, a)
		for k := start; k < start+m && k < len(bad); k++ {
			if bad[k] {
				return k - start, k
			}
		}
	}
	return e, row
}

// operandElemPart names element e of operand o of node n in an error: the
// element within an iteration's vector for a node of a loop's rows whose
// iterations are vectors (Iters.Each) when o has them too, none when o is
// one value per iteration; elemPart otherwise.
func (p *Program) operandElemPart(n, o *node, e int) string {
	if p.obsPerRow(n) && obsRows(o, p.iters[n.iter-1].rows()) {
		// each row's vector of probabilities, as the unrolled loop's
		return elemPart(Vector(o.shape.Cols), e%max(o.shape.Cols, 1))
	}
	if n.rows && n.each.Rank > 0 {
		m := n.each.Len()
		if o.n == n.n || o.n == m && o.shape.Rank == 2 && o.shape.Rows == 1 {
			return elemPart(n.each, e%max(m, 1))
		}
		return ""
	}
	return p.nodeElemPart(n, o.shape, e)
}

// rowScatterBad returns the first element, in the layout [n, k·k] of the rows' outer products
// (row r's outer product from r·k·k on), of the outer products that
// RowScatter n sums that is not finite, and its value; when each is
// finite and their sum is not, the first element of the sum that is not.
func (p *Program) rowScatterBad(n *node) (int, float64) {
	x := p.arg(n, 0)
	xv, k := p.v(x), x.shape.Cols
	for r := 0; r < x.shape.Rows; r++ {
		xr := xv[r*k : r*k+k]
		for a, xa := range xr {
			for c, xc := range xr {
				if v := xa * xc; math.IsNaN(v) || math.IsInf(v, 0) {
					return r*k*k + a*k + c, v
				}
			}
		}
	}
	z := p.v(n)
	k0 := max(firstBad(z), 0)
	return k0, z[k0]
}

// logZeroTakenIn marks the live log and log1m nodes of the data alone
// every path of whose users ends at a function that takes a −Inf in,
// through nodes that keep a −Inf a value: + (either side), − (the left),
// sum, rowsum, colsum, slices, gathers, appends and transposes. The
// functions are logsumexp, rowlogsumexp, log_sum_exp(a, b), exp,
// log_mix's lp1 and lp2, and hmm_marginal's (or hmm_hidden_state_prob's,
// hmm_viterbi's)
// log_omega: Stan's log(indicator) masks so (a joint latent's impossible
// states, an emission of probability 0). A path to the log joint by sums
// alone, or through any other node (b * log(dose)), is not marked.
func (p *Program) logZeroTakenIn() []bool {
	users := make([][]int32, len(p.nodes))
	for j := range p.nodes {
		if m := &p.nodes[j]; m.live {
			for _, a := range m.args {
				users[a] = append(users[a], int32(j))
			}
		}
	}
	// reached[i] is reaches(i) once known (1 yes, 2 no), shared by all
	// the logs: a chain of sums is walked once, not once by each log.
	reached := make([]int8, len(p.nodes))
	var reaches func(i int32) bool
	reaches = func(i int32) bool {
		if reached[i] != 0 {
			return reached[i] == 1
		}
		r := len(users[i]) > 0
		for _, j := range users[i] {
			m := &p.nodes[j]
			switch {
			case (m.op == OpHMMMarginal || m.op == OpHMMStateProb || m.op == OpHMMViterbi) && m.args[0] == i && m.args[1] != i && m.args[2] != i,
				m.op == OpLogSumExp, m.op == OpRowLogSumExp, m.op == OpLogAddExp, m.op == OpExp,
				m.op == OpLogPDF && m.dist != nil && m.dist.Name == dist.LogMixFn.Name && m.args[0] != i:
				continue
			case m.op == OpAdd, m.op == OpSub && m.args[0] == i && m.args[1] != i,
				m.op == OpSum, m.op == OpRowSum, m.op == OpColSum,
				m.op == OpSlice, m.op == OpCol, m.op == OpGather, m.op == OpConcat, m.op == OpStack, m.op == OpTranspose:
				r = reaches(j)
			default:
				r = false
			}
			if !r {
				break
			}
		}
		reached[i] = 2
		if r {
			reached[i] = 1
		}
		return r
	}
	ok := make([]bool, len(p.nodes))
	for i := range p.nodes {
		if n := &p.nodes[i]; n.live && !n.dyn && (n.op == OpLog || n.op == OpLog1m) {
			ok[i] = reaches(int32(i))
		}
	}
	return ok
}

package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/internal/par"
	"github.com/gpplang/gpp/lang/ast"
)

// Program is a finished tape: it evaluates a scalar log joint density and
// its gradient with respect to one flat latent vector.
type Program struct {
	serial uint32
	nodes  []node
	ctxOf  map[int32]string // call contexts of nodes in inlined bodies (Builder.InCall)
	iters  []Iters          // loop iterations of nodes built in loops (Builder.AtIter)
	stmts  []ast.Pos        // statements of Builder.InStmt, for Profile
	val    []float64        // values of every node
	adj    []float64        // adjoints of the live nodes that depend on an input
	scr    []float64        // per-op scratch
	dstate []float64        // data states of the densities of data (node.dhoist), read-only after Finish
	order  []int32          // live input-dependent nodes, in build (topological) order
	// fullOrder and fullJorder are order and jorder with the nodes that
	// fused linear chains absorbed (fuseLinear), nil without any: an
	// evaluation that fails in a chain goes on over them, with unfused
	// set (the chains' last nodes evaluate as their own ops), to fail as
	// the chains' nodes did.
	fullOrder, fullJorder []int32
	unfused               bool
	// jorder is the part of order that the log joint reads (ForwardJoint):
	// its nodes, and the exp(value) nodes its prepared densities read.
	jorder []int32
	inputs []int32
	root   int32
	dim    int
	evals  []int64 // evaluations per node, for tests and profiling

	x     []float64 // the latent vector during Forward
	ready bool      // values are those of a successful Forward
	fail  int       // op-specific detail of the last failed evaluation
	// outErr explains the first non-finite node of the last Forward that
	// only kept nodes read (an output): it does not stop the pass.
	// dataOutErr is that of the data-only ones, evaluated by Finish.
	outErr, dataOutErr error
	// outNaN says a node of the last Forward that only kept nodes read
	// failed or was NaN, not merely ±Inf (OutputNaN); dataOutNaN, a
	// data-only one.
	outNaN, dataOutNaN bool

	rng *rand.Rand // the stream of Rand nodes (nil: they give NaN)
	// rngAlt is the stream of the Rand nodes built under Builder.AltRand.
	rngAlt *rand.Rand
	team   par.Team    // lends goroutines to large products (nil: none)
	gt     gemmTask    // the product being shared
	lt     lrRows      // the low-rank gradient being shared
	rt     rspTask     // the RowSumProd being shared
	grt    gramTask    // the Gram product being shared
	ut     unaryTask   // the elementwise op being shared
	pt     prepTask    // the prepared density being shared
	dt     dataRunTask // the data-run density being shared

	// subConst are the live DataConst nodes of subsampled data and
	// subOrder the data-only nodes that read them (Refresh).
	subConst, subOrder []int32
	// subGather are the live gathers whose indices are subsampled int
	// data (GatherSub); a clone has its own copies of their indices.
	subGather []int32
	// odes are the solver states of the live OpODE nodes (node.i1): a
	// clone has its own.
	odes []*odeRun
	// algs are the solver states of the live OpAlgebraSolve nodes
	// (node.i1): a clone has its own.
	algs []*algRun
	// integs are the quadrature states of the live OpIntegrate nodes
	// (node.i1), likewise.
	integs []*integRun
	// subjects holds what nodes' errors name as the failing matrix
	// (Builder.Subject); shared by clones.
	subjects map[int32]string
	// stop, when set, interrupts the ops that can run long (an ODE solve)
	// once it reads true: the evaluation fails (SetStop).
	stop *atomic.Bool
	// runArgs is evalDensityRun's argument list, kept to spare an
	// allocation per run (an interface call's arguments escape); a
	// clone makes its own.
	runArgs []dist.RunArg
	// zpar is logZeros's argument list, kept for the same reason; a
	// clone makes its own.
	zpar []float64
	// zmemo remembers infIsValue's and zeroOf's answers per node within
	// one pass of Forward or ForwardJoint (zeroValue), under the stamp
	// zpass (0: none remembered); zgen is the pass's stamp, renewed
	// wherever values already checked may change. A chain of sums of log
	// 0s (an N-mixture's grid, lpN + lpy1 + lpy2 + …) is otherwise walked
	// back to its logpdfs from every node of it, at every step. A clone
	// makes its own.
	zmemo       []zeroMemo
	zpass, zgen uint64
	// logZeroTaken marks the log and log1m nodes of data whose log 0 may be
	// a value (dataLogZero), set by Finish.
	logZeroTaken []bool
}

// SetTeam lets p run the rows of its larger matrix products on the
// goroutines t lends (nil: none). The numbers do not change: each row is
// computed as it would be in one piece.
func (p *Program) SetTeam(t par.Team) { p.team = t }

// SetStop makes the ops of p that can run long, an ODE solve of up to
// max_num_steps steps, check stop every few hundred steps and fail with an
// "interrupted" error once it reads true (nil: never), so that a cancelled
// fit need not wait for a solve to end. The caller sets it and reads the
// cause from its own context; the values of an evaluation stop does not
// interrupt do not change. Clones do not inherit it.
func (p *Program) SetStop(stop *atomic.Bool) { p.stop = stop }

// stopped reports whether p's stop flag is set.
func (p *Program) stopped() bool { return p.stop != nil && p.stop.Load() }

// Finish completes the tape with root as the log joint (a scalar). Nodes that
// neither root nor keep depend on are dropped; nodes that depend on no input
// are evaluated here, once. Finish returns the errors recorded while
// building, or a positioned error if a data-only node evaluates to NaN or
// ±Inf. The builder must not be used afterwards.
func (b *Builder) Finish(root ID, keep ...ID) (*Program, error) {
	r := b.index(root)
	live := []int32{r}
	for _, k := range keep {
		live = append(live, b.index(k))
	}
	if err := b.Err(); err != nil {
		return nil, err
	}
	if s := b.nodes[r].shape; !s.IsScalar() {
		return nil, ast.Errorf(b.nodes[r].pos, "log joint must be a scalar, got %s", s)
	}
	b.done = true
	p := &Program{serial: b.serial, nodes: b.nodes, val: b.val, root: r, dim: b.dim, ctxOf: b.ctxOf, subjects: b.subjects, iters: b.iters, stmts: b.stmts}
	b.nodes, b.val = nil, nil
	p.evals = make([]int64, len(p.nodes))

	for _, i := range live {
		p.nodes[i].live = true
	}
	p.nodes[r].joint = true
	for i := len(p.nodes) - 1; i >= 0; i-- {
		if n := &p.nodes[i]; n.live {
			if n.op == OpRand && n.joint {
				return nil, ast.Errorf(n.pos, "a random draw cannot enter the log joint")
			}
			for _, a := range n.args {
				p.nodes[a].live = true
				p.nodes[a].joint = p.nodes[a].joint || n.joint
			}
		}
	}
	p.fuseSums(live)
	// A prepared log-scale density reads exp(value) from a node that
	// computes it only if that node is evaluated anyway.
	for i := range p.nodes {
		if n := &p.nodes[i]; n.expOf > 0 && !p.nodes[n.expOf-1].live {
			n.expOf = 0
		}
	}
	nadj, nscr := 0, 0
	for i := range p.nodes {
		n := &p.nodes[i]
		if n.op == OpInput {
			p.inputs = append(p.inputs, int32(i))
		}
		if n.dyn && (n.live || n.op == OpInput) {
			n.aoff = nadj
			nadj += n.n
		}
		if n.live {
			n.scr = nscr
			nscr += n.nscr
			if n.dyn {
				p.order = append(p.order, int32(i))
			}
		}
	}
	p.jorder = p.jointOrder()
	p.fuseLinear(live)
	for i := range p.nodes {
		if n := &p.nodes[i]; n.live && n.op == OpODE {
			n.i1 = len(p.odes)
			p.odes = append(p.odes, newODERun(n.ode, n, p.nodes))
		}
		if n := &p.nodes[i]; n.live && n.op == OpAlgebraSolve {
			n.i1 = len(p.algs)
			p.algs = append(p.algs, newAlgRun(n.alg, n, p.nodes))
		}
		if n := &p.nodes[i]; n.live && n.op == OpIntegrate {
			n.i1 = len(p.integs)
			p.integs = append(p.integs, newIntegRun(n.integ, n, p.nodes))
		}
	}
	p.adj = make([]float64, nadj)
	p.scr = make([]float64, nscr)
	p.fillOnes()

	p.logZeroTaken = p.logZeroTakenIn()
	// Hoist: evaluate the data-only part once.
	var zeros []int32 // the log 0s of the data alone in the log joint
	for i := range p.nodes {
		n := &p.nodes[i]
		if !n.live || n.dyn {
			continue
		}
		ok := p.eval(n)
		if n.op != OpConst {
			p.evals[i]++
		}
		if !ok || firstBad(p.val[n.off:n.off+n.n]) >= 0 {
			if !n.joint {
				if !ok || !p.infIsValue(int32(i)) {
					p.outputFailed(int32(i), ok, &p.dataOutErr)
					p.dataOutNaN = p.dataOutNaN || !ok || hasNaN(p.val[n.off:n.off+n.n])
				}
				continue
			}
			if ok && int32(i) != p.root && p.infIsValue(int32(i)) {
				if n.op == OpLogPDF && n.dist.HasLogZero() || p.dataLogZero(int32(i)) {
					zeros = append(zeros, int32(i))
				}
				continue // a log 0 of the data that a later node may take in, as Forward's
			}
			if z := p.zeroOf(int32(i)); z >= 0 { // the log 0 made this node fail
				return nil, p.withDataValueNote(int32(i), p.nodeError(z, true))
			}
			return nil, p.nodeError(int32(i), ok)
		}
	}
	if z := p.doomedZero(zeros); z >= 0 {
		return nil, p.nodeError(z, true)
	}
	if err := p.checkDataValues(); err != nil {
		return nil, err
	}
	if err := p.factorDataCov(); err != nil {
		return nil, err
	}
	if err := p.checkHMMData(); err != nil {
		return nil, err
	}
	p.prepareData()
	p.indexSubsampled()
	return p, nil
}

// doomedZero returns the first of zeros, log 0s of the data alone in the
// log joint (logpdf(3, Uniform(0, 2)), a log CDF at an end), that reaches
// the root through sums alone (+, −, negation, sum(), of the log joint),
// so that no value of the params can take it in: Finish reports it, as
// Forward would at every point, rather than a fit at its first
// evaluation. −1 where each may be taken in (log_mix, log_sum_exp, exp)
// or never reaches the root.
func (p *Program) doomedZero(zeros []int32) int32 {
	if len(zeros) == 0 {
		return -1
	}
	users := p.jointUsers()
	for _, z := range zeros {
		if p.toRoot(users, z, false) {
			return z
		}
	}
	return -1
}

// jointUsers returns, for each node, the log joint's nodes that read it.
func (p *Program) jointUsers() [][]int32 {
	users := make([][]int32, len(p.nodes))
	for j := range p.nodes {
		if m := &p.nodes[j]; m.live && m.joint {
			for _, a := range m.args {
				users[a] = append(users[a], int32(j))
			}
		}
	}
	return users
}

// toRoot reports whether node z reaches the log joint's root through sums
// alone (+, −, negation, sum()) and, with products, elementwise products
// too: none of them takes a −Inf in, each keeps it non-finite (0 times it
// is NaN). users: jointUsers.
func (p *Program) toRoot(users [][]int32, z int32, products bool) bool {
	seen := map[int32]bool{z: true}
	stack, reached := []int32{z}, false
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		reached = reached || i == p.root
		for _, j := range users[i] {
			switch op := p.nodes[j].op; {
			case op == OpAdd, op == OpSub, op == OpNeg, op == OpSum:
			case op == OpMul && products:
			default:
				return false // a node that may take it in
			}
			if !seen[j] {
				seen[j] = true
				stack = append(stack, j)
			}
		}
	}
	return reached
}

// checkDataValues reports, before any evaluation of the log joint, the
// first data value of a density in it that lies outside the family's
// support (a count that is not an integer, a Bernoulli 2, a category ≥ k),
// or an argument of data alone outside the argument's: no value of the
// params could make it finite, so a fit would only fail at every step.
func (p *Program) checkDataValues() error {
	for i := range p.nodes {
		n := &p.nodes[i]
		if !n.live || !n.joint || len(n.args) == 0 {
			continue
		}
		if n.op == OpDensity || n.op == OpLogPDF {
			if err := p.checkDataArgs(n); err != nil {
				return err
			}
		}
		if l := p.arg(n, len(n.args)-1); n.op == OpMvNormalChol && !l.dyn {
			if why := cholFactorBad(p.v(l), l.shape.Rows); why != "" {
				return ast.Errorf(l.pos, "MvNormalCholesky argument 2 (L): %s; it depends on the data alone, so no fit can change it", why)
			}
		}
		if n.op == OpWishart {
			if err := p.wishartDataBad(n); err != nil {
				return err
			}
		}
		y := p.arg(n, 0)
		if y.dyn {
			continue
		}
		switch n.op {
		case OpDensity:
			s := n.dist.Support
			if s == dist.BoundedCount { // 0..n: a count whatever n is
				s = dist.Count
			}
			for k, x := range p.v(y) {
				want, ok := s.Admits(x)
				if least := n.dist.Least; ok && least > 0 && x < least { // Geometric's 0
					want, ok = fmt.Sprintf("an integer >= %g", least), false
				}
				above := ""
				if hi, name, known := p.dataCountBound(n, k); ok && known && x > hi {
					// 0..n with n data too: no fit can change it
					want, ok = fmt.Sprintf("<= %s = %g", name, hi), false
					above = ": not " + want
				}
				if !ok {
					if c, at, ok := p.cellOf(n.args[0], k); ok {
						hint := ""
						if h := dist.ZeroHint(n.dist.Name, c.name); x == 0 && h != "" {
							hint = dist.ZeroAmounts + h
						}
						return ast.Errorf(at, "%s: value %g is not %s, as %s at %s needs%s", c.name, x, want, n.dist.Name, n.pos, hint)
					}
					return p.dataIter(n, k, ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("data value %g outside the support of %s%s", x, n.dist.Name, above), p.nodeElemPart(n, y.shape, k))))
				}
			}
		case OpMultinomial:
			for j, x := range p.v(y) {
				if !(x >= 0 && x == math.Trunc(x) && x < math.Inf(1)) {
					name := multinomialName(n.i0 == 1)
					if c, at, ok := p.cellOf(n.args[0], j); ok {
						return ast.Errorf(at, "%s: value %g is not a count, as %s at %s needs", c.name, x, name, n.pos)
					}
					return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: value %g is not a count", name, x), elemPart(y.shape, j)))
				}
			}
		case OpPoissonBinomial:
			k := catCols(p.arg(n, 1).shape)
			for j, x := range p.v(y) {
				if pbCount(x, k) < 0 {
					name := poissonBinomialName(n.i0 - 1)
					if c, at, ok := p.cellOf(n.args[0], j); ok {
						return ast.Errorf(at, "%s: value %g is not a count of successes 0..%d, as %s at %s needs (theta has %d trials)", c.name, x, k, name, n.pos, k)
					}
					return p.dataIter(n, j, ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: value %g is not a count of successes 0..%d (theta has %d trials)", name, x, k, k), elemPart(y.shape, j))))
				}
			}
		case OpCategorical:
			k := catCols(p.arg(n, 1).shape)
			for j, x := range p.v(y) {
				if !(x >= 0 && x < float64(k) && x == math.Trunc(x)) {
					name := categoricalName(n.i0 == 1)
					hint := oneBasedCategories(p.v(y), k)
					if c, at, ok := p.cellOf(n.args[0], j); ok {
						return ast.Errorf(at, "%s: value %g is not a category 0..%d, as %s at %s needs%s", c.name, x, k-1, name, n.pos, hint)
					}
					el := elemPart(y.shape, j)
					if p.obsPerRow(n) { // a loop's observation per row, a scalar unrolled
						el = ""
					}
					return p.dataIter(n, j, ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: value %g is not a category 0..%d", name, x, k-1), el)+hint))
				}
			}
		case OpOrderedLogistic:
			k, _ := cutRows(p.arg(n, 2).shape) // cutpoints per row: a row's count
			for j, x := range p.v(y) {
				if catIndex(x, k+1) < 0 {
					name := orderedName(n.i0 == 1)
					hint := oneBasedAdvice(p.v(y), k+1, name+"(eta, c)") + cutCountHint(p.v(y), k)
					if c, at, ok := p.cellOf(n.args[0], j); ok {
						return ast.Errorf(at, "%s: value %g is not a category 0..%d, as %s at %s needs%s", c.name, x, k, name, n.pos, hint)
					}
					return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: value %g is not a category 0..%d", name, x, k), elemPart(y.shape, j))+hint)
				}
			}
		}
	}
	return nil
}

// dataCountBound returns, for density n of a bounded count (0..n:
// Binomial's trials), the bound at element k of its value and the
// parameter's name, where that argument depends on data alone and is a
// scalar or one value per element; known is false otherwise.
func (p *Program) dataCountBound(n *node, k int) (hi float64, name string, known bool) {
	if n.dist.Support != dist.BoundedCount {
		return 0, "", false
	}
	for i, q := range n.dist.Params {
		if q.Support != dist.Count {
			continue
		}
		if 1+i >= len(n.args) {
			break
		}
		a := &p.nodes[n.args[1+i]]
		if a.dyn {
			break
		}
		switch v := p.v(a); {
		case len(v) == 1:
			return v[0], q.Name, true
		case k < len(v) && len(v) == len(p.v(p.arg(n, 0))):
			return v[k], q.Name, true
		}
		break
	}
	return 0, "", false
}

// checkDataArgs reports the first value of an argument of density n that
// depends on data alone and lies outside the support the family needs
// (the checker leaves such computed arguments, `sqrt(variance(y))`, to
// this check), at the argument; in a loop lowered as vectors, without the
// element (the unrolled loop's scalar argument had none).
func (p *Program) checkDataArgs(n *node) error {
	for i, a := range n.args[1:] {
		x := &p.nodes[a]
		if x.dyn || i >= len(n.dist.Params) {
			continue
		}
		par := n.dist.Params[i]
		for k, v := range p.v(x) {
			if math.IsInf(v, -1) && p.infIsValue(a) {
				continue // a log 0 taken in (log_mix's lp2 = logpdf(3, Uniform(0, 2)))
			}
			if want, ok := n.dist.ArgAdmits(i, v); !ok {
				return p.dataIter(n, k, ast.Errorf(x.pos, "%s", msg(fmt.Sprintf("%s argument %d (%s) is %g, not %s; it depends on the data alone, so no fit can change it",
					n.dist.Name, i+1, par.Name, v, want), p.nodeElemPart(n, x.shape, k))))
			}
		}
	}
	return nil
}

// dataIter appends to err, the error of a data value or argument of density
// node n at its element k, found before the fit, the loop iteration it is
// in (atIter): k's own row when n's elements are the rows of a loop
// lowered as vectors, else the first. A value named at its data cell
// needs none.
func (p *Program) dataIter(n *node, k int, err error) error {
	if n.iter == 0 {
		return err
	}
	r := 0
	if (p.perRow(n) || p.obsPerRow(n)) && k < p.iters[n.iter-1].rows() {
		r = k
	}
	p.atIter(n, r, err)
	return err
}

// cellOf follows element k of node i back through indexing (slices,
// columns, gathers, transposes, appends) to the DataConst it was read from, and
// returns that node and the element's cell in its file.
func (p *Program) cellOf(i int32, k int) (*node, ast.Pos, bool) {
	n, at, _, ok := cellIn(p.nodes, i, k)
	return n, at, ok
}

// Cell returns the data that element k of x is read from, through
// indexing, and the element's cell in its file (ok false: x's element is
// computed, or the data came without a file), so that the compiler can
// report a data value at its cell as the program's own checks do.
func (b *Builder) Cell(x ID, k int) (data string, at ast.Pos, ok bool) {
	n, at, _, ok := cellIn(b.nodes, b.index(x), k)
	if !ok {
		return "", ast.Pos{}, false
	}
	return n.name, at, true
}

// cellIn is cellOf over the nodes of a program or of a builder; it also
// returns the element of the data node that element k is.
func cellIn(nodes []node, i int32, k int) (*node, ast.Pos, int, bool) {
	i, k = indexedElem(nodes, i, k)
	n := &nodes[i]
	if n.op != OpConst || n.cells == nil {
		return nil, ast.Pos{}, 0, false
	}
	at := n.cells(k)
	return n, at, k, at.File != "" // no file: data given in memory
}

// indexedElem follows element k of node i back through indexing (slices,
// columns, gathers, transposes, appends) to the node and element it is
// read from: i and k themselves when node i is no indexing.
func indexedElem(nodes []node, i int32, k int) (int32, int) {
	return indexedElemVia(nodes, i, k, nil)
}

// indexedElemVia is indexedElem that calls index, where not nil, with each
// gather it passes whose indices are data (GatherData) and the index of
// theirs it reads.
func indexedElemVia(nodes []node, i int32, k int, index func(g *node, j int)) (int32, int) {
	arg := func(n *node, a int) *node { return &nodes[n.args[a]] }
	for {
		n := &nodes[i]
		switch n.op {
		case OpSlice:
			k += n.i1
		case OpCol:
			k = k*arg(n, 0).shape.Cols + n.i1
		case OpGather:
			j, c := k, 1
			if x := arg(n, 0); x.shape.Rank == 2 {
				j, c = k/x.shape.Cols, x.shape.Cols
			}
			if index != nil && n.cells != nil {
				index(n, j)
			}
			k = n.idx[j]*c + k%c
		case OpTranspose:
			x := arg(n, 0)
			r, c := x.shape.Rows, x.shape.Cols
			k = (k%r)*c + k/r
		case OpConcat:
			x, y := arg(n, 0), arg(n, 1)
			switch row, j, cx := k/n.shape.Cols, k%n.shape.Cols, x.shape.Cols; {
			case n.i0 == 1 && j < cx: // columns: row's first cx are x's
				k = row*cx + j
			case n.i0 == 1:
				k, i = row*y.shape.Cols+j-cx, n.args[1]
				continue
			case k >= x.n: // rows: x's elements first
				k, i = k-x.n, n.args[1]
				continue
			}
		default:
			return i, k
		}
		i = n.args[0]
	}
}

// outputFailed records in *first, if it holds no error yet, why node i,
// which only kept nodes read, is not finite (ok false: its op failed, and
// its values become NaN).
func (p *Program) outputFailed(i int32, ok bool, first *error) {
	if *first == nil {
		*first = p.nodeError(i, ok)
	}
	if !ok {
		n := &p.nodes[i]
		for k := range p.val[n.off : n.off+n.n] {
			p.val[n.off+k] = math.NaN()
		}
	}
}

// Clone returns a program that computes what p computes, with buffers of
// its own, for use on another goroutine. The tape itself (nodes, index
// tables) is read-only after Finish and is shared; the values of the
// data-only nodes are copied rather than recomputed, so a clone costs a
// copy of the live data (GPFA's Y'Y, EPM's indices) instead of a rebuild
// (for 24000 × 42 rows, 2–4 ms instead of the 21–120 ms of compiling again,
// which forms Y'Y anew). The clone has no team.
func (p *Program) Clone() *Program {
	c := &Program{
		serial: p.serial, nodes: p.nodes, ctxOf: p.ctxOf, subjects: p.subjects, iters: p.iters, stmts: p.stmts, order: p.order, jorder: p.jorder, inputs: p.inputs,
		fullOrder: p.fullOrder, fullJorder: p.fullJorder,
		root: p.root, dim: p.dim, dataOutErr: p.dataOutErr, dataOutNaN: p.dataOutNaN, logZeroTaken: p.logZeroTaken,
		subConst: p.subConst, subOrder: p.subOrder, subGather: p.subGather,
		val:    make([]float64, len(p.val)),
		adj:    make([]float64, len(p.adj)),
		scr:    slices.Clone(p.scr),
		dstate: p.dstate,
		evals:  make([]int64, len(p.evals)),
	}
	if len(p.subGather) > 0 { // their indices change with the batch
		c.nodes = slices.Clone(p.nodes)
		for _, i := range p.subGather {
			c.nodes[i].idx = slices.Clone(p.nodes[i].idx)
		}
	}
	for i := range p.nodes {
		if n := &p.nodes[i]; n.live && n.op == OpODE {
			c.odes = append(c.odes, p.odes[n.i1].clone(n, p.nodes))
		}
		if n := &p.nodes[i]; n.live && n.op == OpAlgebraSolve {
			c.algs = append(c.algs, p.algs[n.i1].clone(n, p.nodes))
		}
		if n := &p.nodes[i]; n.live && n.op == OpIntegrate {
			c.integs = append(c.integs, p.integs[n.i1].clone(n, p.nodes))
		}
	}
	for i := range p.nodes {
		if n := &p.nodes[i]; n.live && !n.dyn {
			copy(c.val[n.off:n.off+n.n], p.val[n.off:n.off+n.n])
			c.evals[i] = p.evals[i]
		}
	}
	return c
}

// Dim returns the length of the latent vector.
func (p *Program) Dim() int { return p.dim }

// Len returns the number of nodes on the tape (the tests of the compiler
// use it to check that a loop lowered as vectors stays O(1) in its length).
func (p *Program) Len() int { return len(p.nodes) }

func (p *Program) index(id ID) int32 { return checkID(id, p.serial, len(p.nodes)) }

// Shape returns the shape of a node.
func (p *Program) Shape(id ID) Shape { return p.nodes[p.index(id)].shape }

// InputOffset returns where an Input node's values start in the latent
// vector.
func (p *Program) InputOffset(id ID) int {
	n := &p.nodes[p.index(id)]
	if n.op != OpInput {
		panic(errNotInput)
	}
	return n.i0
}

// Value returns the current value of a live node (row-major). The slice
// aliases the program's storage: it changes with the next Forward.
func (p *Program) Value(id ID) []float64 {
	n := &p.nodes[p.index(id)]
	if !n.live {
		panic(errNotLive)
	}
	return p.val[n.off : n.off+n.n : n.off+n.n]
}

// Evals returns how many times a node has been computed: once for a
// data-only node, once per Forward for the others, 0 for a constant or a
// dropped node. Tests use it to prove hoisting.
func (p *Program) Evals(id ID) int { return int(p.evals[p.index(id)]) }

// DataStates returns how many values of data state Finish prepared for
// the densities of fixed data (dist.Univariate.DataHoisted), which no
// evaluation recomputes. Tests use it to prove data hoisting.
func (p *Program) DataStates() int { return len(p.dstate) }

// Forward evaluates the log joint at the latent vector x (of length Dim).
// The first node of the log joint to produce a NaN or an infinite value,
// or to fail (a matrix that is not positive definite), stops the pass with
// an *ast.Error at that node's position and a log joint of NaN, or of −Inf
// where that node is a ~'s log density that is −Inf (failedJoint); a log
// CDF's log 0 or logpdf's −Inf outside the support, and an infinity
// carried from it, does not, and is blamed only where a later node fails
// of it (Log 0 as a value, below). A node
// that only kept nodes read (an output) keeps its value (NaN where its op
// failed) and the pass goes on; OutputErr explains the first such node,
// except infinities that are values (infIsValue: logcdf(0, Weibull(k, λ))
// is log 0).
func (p *Program) Forward(x []float64) (float64, error) { return p.forward(x, false) }

// ForwardAll is Forward that goes on past a node of the log joint that
// fails, as NaN, so that the kept nodes that do not read it (an output of
// the data, or of a param the failure does not involve) still get their
// values. It returns Forward's error, with a log joint of NaN; Backward may
// follow only a successful call. gpp's output draws use it.
func (p *Program) ForwardAll(x []float64) (float64, error) { return p.forward(x, true) }

func (p *Program) forward(x []float64, all bool) (float64, error) {
	if len(x) != p.dim {
		panic(errLatentLen)
	}
	p.ready = false
	p.x = x
	p.outErr, p.outNaN = p.dataOutErr, p.dataOutNaN
	var jointErr error
	defer p.fuse()
	p.zgen++
	order := p.order
	for k := 0; k < len(order); k++ {
		i := order[k]
		n := &p.nodes[i]
		ok := p.eval(n)
		p.evals[i]++
		if !ok || firstBad(p.val[n.off:n.off+n.n]) >= 0 {
			var goOn bool
			if order, k, goOn = p.passFailed(order, k, ok, all, &jointErr); goOn {
				continue
			}
			lp, err := p.jointFailed(k, i, ok)
			p.x = nil
			return lp, err
		}
	}
	p.x = nil
	if jointErr != nil {
		return math.NaN(), jointErr
	}
	p.ready = true
	return p.val[p.nodes[p.root].off], nil
}

// passFailed is Forward's step (and Profile's) where node order[k] failed
// (ok false) or is not finite: a fused chain goes on unfused, an output
// fails alone, a log 0 that a later node may take in is passed, and with
// all a node of the log joint fails as NaN into jointErr. It returns the
// order and index to go on from, and false where the pass stops at a
// failure of the log joint (jointFailed).
func (p *Program) passFailed(order []int32, k int, ok, all bool, jointErr *error) ([]int32, int, bool) {
	var again bool
	if order, k, again = p.unfuse(order, k, false); again {
		p.zgen++
		return order, k, true
	}
	i := order[k]
	switch n := &p.nodes[i]; {
	case !n.joint:
		if !ok || !p.zeroValue(i) {
			p.outNaN = p.outNaN || !ok || hasNaN(p.val[n.off:n.off+n.n])
			p.outputFailed(i, ok, &p.outErr)
			p.zgen++
		}
		return order, k, true
	case ok && i != p.root && p.zeroValue(i):
		return order, k, true // a log 0 that a later node may take in
	case all:
		first := *jointErr == nil
		if z := p.zeroOf(i); z >= 0 && first { // the log 0 made this node fail
			*jointErr = p.nodeError(z, true)
		}
		p.outputFailed(i, ok, jointErr)
		if first && *jointErr != nil {
			*jointErr = p.withDataValueNote(i, *jointErr)
		}
		return order, k, true
	}
	return order, k, false
}

// Log 0 as a value in the log joint. A log CDF at the end of its closed
// support, where the probability is 0 (logcdf(0, Weibull(k, λ))), and
// logpdf at a value outside the support (logpdf(3, Uniform(0, 2))), are
// −Inf by design (infIsValue), with zero partials, as Stan's
// weibull_lcdf(0 | k, λ) and uniform_lpdf(3 | 0, 2) are; a later node may
// take it in to a finite value, as the interval-censored
// log_diff_exp(logcdf(U, D), logcdf(L, D)) does at L = 0, or log_mix and
// log_sum_exp do. One of the data alone is evaluated once, by Finish,
// which reports it where only sums lead it to the root (doomedZero). So
// Forward and ForwardJoint go on past such a node of the log joint, and
// the log joint is the root's value when every node
// after it is finite. Where one is not (the −Inf reached the root, or
// 0 · −Inf made a NaN), the error is the log 0's, at the node that made
// it (zeroOf), as before; a later node that fails of itself is blamed.

// failedJoint is the log joint of Forward and ForwardJoint where node n
// of the log joint failed: −Inf where n is a ~'s summed log density that
// is −Inf (a density of 0 at the point, or a log density that overflows,
// as HalfNormal(1)'s at 1e200), which Stan's log_prob reports as −inf;
// NaN otherwise. The terms after n
// are not evaluated: one that is NaN there, an invalid argument, would be
// an error in Stan too, and the point's density is 0 either way.
func (p *Program) failedJoint(n *node, ok bool) float64 {
	if ok && n.op == OpDensity && n.n == 1 && math.IsInf(p.val[n.off], -1) {
		return math.Inf(-1)
	}
	return math.NaN()
}

// ForwardJoint evaluates the log joint alone at x, for the estimates that
// need no gradient (the ELBO's, importance weights, Pareto k̂): it skips
// the nodes that only kept nodes read (outputs), and no Backward follows.
// Its value and error are Forward's, bit for bit: the log joint's nodes
// read only each other (and an exp(value) node, evaluated too), in the
// same order with the same arithmetic. It allocates nothing where the log
// joint is finite. Afterwards
// the kept nodes' values are stale, and Backward may not follow.
func (p *Program) ForwardJoint(x []float64) (float64, error) {
	if len(x) != p.dim {
		panic(errLatentLen)
	}
	p.ready = false
	p.x = x
	defer p.fuse()
	p.zgen++
	order := p.jorder
	for k := 0; k < len(order); k++ {
		i := order[k]
		n := &p.nodes[i]
		ok := p.eval(n)
		p.evals[i]++
		if !ok || firstBad(p.val[n.off:n.off+n.n]) >= 0 {
			var again bool
			if order, k, again = p.unfuse(order, k, true); again {
				p.zgen++
				continue
			}
			if !n.joint { // read by a prepared density: Forward goes on past it
				var e error
				p.outputFailed(i, ok, &e)
				p.zgen++
				continue
			}
			if ok && i != p.root && p.zeroValue(i) {
				continue // as Forward's
			}
			// Forward's log joint and error: a loop's first failing
			// iteration is blamed, not the first node in the tape.
			lp, err := p.jointFailed(slices.Index(p.evalOrder(), i), i, ok)
			p.x = nil
			return lp, err
		}
	}
	p.x = nil
	return p.val[p.nodes[p.root].off], nil
}

// jointFailed is Forward's log joint and error where node i of the log
// joint, at k in the evaluation order, failed (ok false) or is not
// finite: the node blamed is the log 0 that made it fail (zeroOf; a row
// of a log of a sum whose terms are all −Inf is named, zeroRowError) or
// the first failing row of its loop (loopError). The log joint is NaN
// where another node than i's is blamed.
func (p *Program) jointFailed(k int, i int32, ok bool) (float64, error) {
	var rowErr error
	failed := i
	if z := p.zeroOf(i); z >= 0 { // the log 0 made this node fail
		rowErr = p.zeroRowError(i) // a row of a log of a sum whose terms are all −Inf
		i, ok = z, true
		k = slices.Index(p.evalOrder(), i)
	}
	n := &p.nodes[i]
	lp := p.failedJoint(n, ok)
	var err error
	if k >= 0 {
		err = p.loopError(k, ok)
	} else { // a log 0 of the data alone, which Finish evaluated
		err = p.nodeError(i, ok)
	}
	if e, isPos := err.(*ast.Error); !isPos || e.Pos != n.pos {
		lp = math.NaN() // a later row's failure was blamed
	}
	if rowErr != nil {
		err = rowErr
	} else {
		err = p.withDataValueNote(failed, err)
	}
	return lp, err
}

// jointOrder returns the nodes of order that ForwardJoint evaluates: those
// of the log joint and the exp(value) nodes their prepared densities read
// (which an output alone may otherwise need).
func (p *Program) jointOrder() []int32 {
	need := make([]bool, len(p.nodes))
	need[p.root] = true
	for k := len(p.order) - 1; k >= 0; k-- {
		i := p.order[k]
		n := &p.nodes[i]
		if !need[i] && !n.joint {
			continue
		}
		need[i] = true
		if n.expOf > 0 {
			need[n.expOf-1] = true
		}
		for _, a := range n.args {
			need[a] = true
		}
	}
	var out []int32
	for _, i := range p.order {
		if need[i] {
			out = append(out, i)
		}
	}
	return out
}

// OutputErr returns, after Forward, an *ast.Error at the first node that
// only kept nodes read and that is not finite, or nil if there is none.
func (p *Program) OutputErr() error { return p.outErr }

// OutputNaN reports whether, in the last Forward, a node that only kept
// nodes read failed or was NaN: a value an output may hide (log(mu) < 0
// at mu < 0 is 0), where a ±Inf alone is one a later node takes in
// (logsumexp of a log 0).
func (p *Program) OutputNaN() bool { return p.outNaN }

// hasNaN reports whether v holds a NaN.
func hasNaN(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) {
			return true
		}
	}
	return false
}

// Backward writes the gradient of the log joint at the point of the last
// successful Forward into grad (of length Dim). A NaN or infinite adjoint
// stops the sweep with an *ast.Error at the node that produced it and
// fills grad with NaN: the log joint may be finite then (lgamma at a
// subnormal argument), and a caller that checks the numbers alone must
// not take grad's earlier contents for this point's gradient.
func (p *Program) Backward(grad []float64) error {
	if !p.ready {
		panic(errNoForward)
	}
	if len(grad) != p.dim {
		panic(errGradLen)
	}
	p.seed()
	for k := len(p.order) - 1; k >= 0; k-- {
		n := &p.nodes[p.order[k]]
		if !n.joint {
			continue // read by kept nodes only: no part of the gradient
		}
		if firstBad(p.adj[n.aoff:n.aoff+n.n]) >= 0 {
			return p.backwardFailed(grad)
		}
		p.grad(n)
	}
	p.inputGrad(grad)
	return nil
}

// backwardFailed fills grad with NaN and returns backwardError: Backward's
// answer where an adjoint is not finite.
func (p *Program) backwardFailed(grad []float64) error {
	for i := range grad {
		grad[i] = math.NaN()
	}
	return p.backwardError()
}

// inputGrad copies the inputs' adjoints, the gradient, into grad.
func (p *Program) inputGrad(grad []float64) {
	for _, i := range p.inputs {
		n := &p.nodes[i]
		copy(grad[n.i0:n.i0+n.n], p.adj[n.aoff:n.aoff+n.n])
	}
}

// LogJoint runs Forward and Backward: it returns the log joint at x and
// writes its gradient into grad.
func (p *Program) LogJoint(x, grad []float64) (float64, error) {
	lp, err := p.Forward(x)
	if err != nil {
		return lp, err
	}
	return lp, p.Backward(grad)
}

// seed clears the adjoints and sets that of the root to 1.
func (p *Program) seed() {
	clear(p.adj)
	if r := &p.nodes[p.root]; r.aoff >= 0 {
		p.adj[r.aoff] = 1
	}
}

// firstBad returns the index of the first NaN or infinite element of v, or
// -1. The common all-finite case is one multiply-add per element, on four
// independent accumulators.
func firstBad(v []float64) int {
	var s0, s1, s2, s3 float64 // x*0 is NaN exactly when x is NaN or ±Inf
	i := 0
	for ; i+4 <= len(v); i += 4 {
		w := v[i : i+4 : i+4]
		s0 += w[0] * 0
		s1 += w[1] * 0
		s2 += w[2] * 0
		s3 += w[3] * 0
	}
	for _, x := range v[i:] {
		s0 += x * 0
	}
	if s := s0 + s1 + s2 + s3; s == s {
		return -1
	}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return i
		}
	}
	return -1
}

// Helpers for the kernels.

func (p *Program) v(n *node) []float64 { return p.val[n.off : n.off+n.n] }
func (p *Program) a(n *node) []float64 { return p.adj[n.aoff : n.aoff+n.n] }
func (p *Program) s(n *node) []float64 { return p.scr[n.scr : n.scr+n.nscr] }
func (p *Program) arg(n *node, k int) *node {
	return &p.nodes[n.args[k]]
}

// addAdjoint adds d to x's adjoint, where x has one (a node that no
// latent reaches has none).
func (p *Program) addAdjoint(x *node, d []float64) {
	if x.aoff < 0 {
		return
	}
	ax := p.a(x)
	for i, v := range d {
		ax[i] += v
	}
}

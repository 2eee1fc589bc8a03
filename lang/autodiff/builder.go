package autodiff

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// ID names a node of one Builder and of the Program it finishes into. The
// zero ID is invalid. Using an ID with another builder or program is a
// programmer error and panics.
type ID int64

// builderSerial tags the IDs of each Builder so that foreign IDs are caught.
var builderSerial atomic.Uint32

// Panic messages for programmer errors.
const (
	errForeignID      = "autodiff: node id of another builder or an invalid id"
	errFinished       = "autodiff: builder used after Finish"
	errNotUnary       = "autodiff: Unary with an op that is not elementwise unary"
	errNotBinary      = "autodiff: Binary with an op that is not elementwise binary"
	errNotLogical     = "autodiff: Logical with an op that is not a comparison, && or ||"
	errNilKernel      = "autodiff: Density with a nil kernel"
	errLatentLen      = "autodiff: latent vector length differs from Program.Dim"
	errGradLen        = "autodiff: gradient length differs from Program.Dim"
	errNoForward      = "autodiff: Backward without a successful Forward"
	errNotLive        = "autodiff: node is not evaluated by this program"
	errConstLength    = "autodiff: Const values length differs from the shape"
	errNotInput       = "autodiff: InputOffset of a node that is not an input"
	errInsideEnds     = "autodiff: Inside with lo ≥ hi"
	errInsideEachEnds = "autodiff: InsideEach's ends are not of x's length"
)

// node is one tape entry. Everything a node needs at run time is fixed when
// it is built or when the program is finished.
type node struct {
	op    Op
	dyn   bool // depends on an Input
	sub   bool // depends on subsampled data (Builder.Subsample)
	live  bool // evaluated by the program (set by Finish)
	joint bool // the root depends on it (set by Finish); else only kept nodes read it
	shape Shape
	n     int // shape.Len()
	off   int // value offset in the arena
	aoff  int // adjoint offset, -1 without an adjoint
	args  []int32
	pos   ast.Pos

	// Elementwise iteration: gr rows of gc columns, strides per operand
	// (row stride, column stride); for densities also the operand's value
	// offset: (off, rs, cs) per operand.
	gr, gc int
	bc     []int

	// Integer attributes: i0 is the input's offset in x, the matmul flags,
	// the density's element count or 1 for a categorical on log-odds; i1 is the slice start, the column,
	// or the inner dimension of a matmul, or a GatherSubCells' row stride.
	i0, i1 int
	f0, f1 float64   // GaussRowsSS row count; Inside's ends
	idx    []int     // gather indices; rows of the first operand of a RowSumProd
	idy    []int     // rows of the second operand of a RowSumProd
	soff   []int32   // GatherSub: idx[k] is the batch's value of data name at offset soff[k]
	rsi    *rowIndex // a RowSumProd's elements by the row their adjoints go to
	sumOf  int32     // a summed RowSumProd: 1 + the index of the one it sums (see fuseSums)
	lin    *linComb  // the last node of a fused linear chain (fuseLinear)
	fused  bool      // a node such a chain absorbed
	dist   *dist.Univariate
	// norm marks a density whose last operand is a normaliser added to
	// every element's log density before the sum (Builder.DensityNorm):
	// normOne for one value, normEach for one per element.
	norm int
	alt  bool // a Rand node that draws from the second stream (Builder.AltRand)
	// rows: the node's elements are the iterations of a loop lowered as
	// vectors (Builder.InLoop), so its errors name no element, as the
	// unrolled loop's scalar nodes did not, but the iteration (iter).
	rows bool
	// stmt is 1 + the index of the top-level statement the node was
	// built for (Builder.InStmt), 0 outside any: Program.Profile's rows.
	// (Here it fills the padding after the bools: the node stays 496 bytes.)
	stmt int32
	// each is the shape of one iteration's part of a node of a loop's
	// rows whose iterations are vectors side by side (Iters.Each).
	each Shape
	// whole: a node of a loop's rows built once for all of them, of a
	// value that reads no row (Builder.Whole).
	whole bool
	// iter is 1 + the index of the loop iterations the node was built
	// in (Builder.AtIter), 0 outside loops.
	iter  int32
	name  string            // input name; data name of a DataConst, or of a GatherData's indices
	cells func(int) ast.Pos // a DataConst's element k, a GatherData's index k, in its file (nil: unknown)

	// Prepared densities: the split kernel, how the distinct parameter
	// sets are laid out (prepNone, prepRows or prepCols) and their count;
	// for a log-scale kernel, 1 + the index of an earlier node holding
	// exp(value), read when that node is live (0 if none).
	prep    Prepared
	prepLog PreparedLog
	pmode   int
	nsets   int
	expOf   int32
	// hoist is the kernel path's split kernel (dist.Univariate.Hoisted)
	// when every argument it hoists is a scalar: prepared once per
	// evaluation into the scratch after the elements' partials.
	hoist dist.Hoisted
	// dhoist is the kernel path's split kernel at the value
	// (dist.Univariate.DataHoisted) when the value and the arguments it
	// reads are data fixed for the program's life: Finish prepares each
	// element's state into the program's dstate from doff on.
	dhoist dist.DataHoisted
	doff   int
	// mdata marks a Multinomial whose counts are data fixed for the
	// program's life under a theta that changes: Finish prepares each
	// count's log y! and each row's log m! and m into dstate from doff on
	// (prepareMultinomial), so an evaluation does no Lgamma.
	mdata bool
	// cfix marks a GaussRowsSS whose covariance is data fixed for the
	// program's life under a scatter that changes: Finish factors it once
	// (factorDataCov) into the scratch, which an evaluation only reads.
	cfix bool
	// ode is an OpODE node's right-hand side and settings; i1 indexes
	// the program's odeRun.
	ode *odeSpec
	// alg is an OpAlgebraSolve node's system and settings; i1 indexes
	// the program's algRun.
	alg *algSpec
	// integ is an OpIntegrate node's integrand and settings; i1 indexes
	// the program's integRun.
	integ *integSpec

	scr, nscr int // scratch range
}

// Builder makes a Program. Methods return the ID of the new node; a shape
// or index error is recorded with its position and a placeholder ID is
// returned, so a compiler can go on and report every error at once.
// Operations on a placeholder give placeholders without further errors.
// Finish returns the collected errors.
type Builder struct {
	serial uint32
	nodes  []node
	val    []float64
	dim    int
	errs   ast.ErrorList
	chols  map[int32]ID
	exps   map[int32]int32 // node → a node computing its exp
	done   bool
	full   ID // the placeholder returned once MaxNodes is reached, or 0
	// ctx is the call context of the nodes being built (InCall), and
	// ctxOf that of each node built in one.
	ctx   string
	ctxOf map[int32]string
	// fnCtx is the part of ctx set by InFnBody: the user function calls
	// whose body is being built, which a build error (fail) names.
	fnCtx string
	// subjects holds what a node's errors are about where the model
	// wrote another name than the op's (Builder.Subject).
	subjects map[int32]string
	// rows marks the nodes built as those of a loop lowered as vectors
	// (InLoop).
	rows bool
	// iters holds the loop iterations of AtIter, and iter is 1 + the
	// index of the current one (0: none).
	iters []Iters
	iter  int32
	each  Shape // the current iterations' Each
	whole bool  // Whole is on
	// stmts are the statement positions of InStmt, and stmt is 1 + the
	// index of the current one (0: none).
	stmts  []ast.Pos
	stmt   int32
	stmtAt map[ast.Pos]int32 // 1 + the index of each position in stmts
	// fails counts the errors of fail, reported or not; failedAt holds
	// their positions (one error per position: a loop body's, unrolled,
	// would come once per iteration).
	fails    int
	failedAt map[ast.Pos]bool
	// known[i]: node i's value has been computed by Known (an input-free
	// node, evaluated before Finish).
	known []bool
	// altRand makes the Rand nodes built draw from the second stream.
	altRand bool
	// subsample names the data whose DataConst nodes are subsampled
	// (Subsample); nil for a full-data build.
	subsample map[string]bool
}

// Fails returns how many operations have failed so far, counting those
// at a position already reported; a caller unrolling a loop stops at one.
func (b *Builder) Fails() int { return b.fails }

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{serial: builderSerial.Add(1), chols: map[int32]ID{}, exps: map[int32]int32{}}
}

func (b *Builder) id(i int) ID { return ID(int64(b.serial)<<32 | int64(i)) }

// Subject sets what the errors of node id name as the failing matrix, in
// place of its op's own wording: MvNormal lowers to the rows' Gaussian
// node, whose covariance errors would otherwise say MvNormalRows, and a
// covariance that is a data item is named with its file ("MvNormal:
// covariance matrix Om (data from om.json)").
func (b *Builder) Subject(id ID, what string) {
	i := b.index(id)
	if b.nodes[i].op == opInvalid {
		return
	}
	if b.subjects == nil {
		b.subjects = map[int32]string{}
	}
	b.subjects[i] = what
}

// index returns the node index of id, panicking on a foreign id.
func (b *Builder) index(id ID) int32 {
	if b.done {
		panic(errFinished)
	}
	return checkID(id, b.serial, len(b.nodes))
}

func checkID(id ID, serial uint32, n int) int32 {
	i := int64(id) & (1<<32 - 1)
	if uint32(int64(id)>>32) != serial || i >= int64(n) {
		panic(errForeignID)
	}
	return int32(i)
}

// Shape returns the shape of a node (scalar for a placeholder).
func (b *Builder) Shape(x ID) Shape { return b.nodes[b.index(x)].shape }

// Dim returns the length of the latent vector: the total size of the inputs
// built so far.
func (b *Builder) Dim() int { return b.dim }

// Failed reports whether x stands for an operation that failed (its error
// recorded, Err): its shape is a placeholder's, so a caller checking x's
// shape says nothing more about it.
func (b *Builder) Failed(x ID) bool { return b.nodes[b.index(x)].op == opInvalid }

// Err returns the errors recorded so far, or nil.
func (b *Builder) Err() error {
	b.errs.Sort()
	return b.errs.Err()
}

// MaxElements bounds the values one program stores (4 GiB of float64s;
// adjoints, scratch and a fit's per-worker copies come on top). A node that
// would take the total past it is an error at the node's position instead
// of a fit that runs the machine out of memory.
const MaxElements = 1 << 29

// MaxNodes bounds the nodes of one program (a few GiB of node records). Loops
// are unrolled into the tape, so a loop over a very long range reaches it
// first.
const MaxNodes = 1 << 20

// Full reports whether the builder holds MaxNodes nodes and so returns
// placeholders only; the lowering of a long loop can stop there.
func (b *Builder) Full() bool { return b.full != 0 }

// fits reports whether a rows×cols value still fits in MaxElements
// (overflow-safe for any sizes).
func (b *Builder) fits(rows, cols int) bool {
	return rows <= 0 || cols <= (MaxElements-len(b.val))/rows
}

// TooBig returns the error message for a vector of n numbers, described by
// what, that would take the model past MaxElements, or "" if it fits: for
// callers that build a large constant before adding it (rep), so that they
// do not allocate what the builder would refuse.
func (b *Builder) TooBig(what string, n int) string {
	if b.fits(n, 1) {
		return ""
	}
	return fmt.Sprintf("%s"+tooBigMsg, what, MaxElements, MaxElements>>27)
}

// tooBigMsg is the error for a value that does not fit, after its
// description.
const tooBigMsg = " would take the model past %d stored numbers (%d GiB)"

// push appends n with storage for its value and returns its ID; past
// MaxElements or MaxNodes it records an error and returns a placeholder
// instead.
func (b *Builder) push(n node) ID {
	if b.full != 0 {
		return b.full
	}
	last := len(b.nodes) >= MaxNodes-1
	if last {
		b.errs.Add(n.pos, "the model's tape would have more than %d operations here: loops are unrolled into it, so write long loops as vector operations", MaxNodes)
		n = node{op: opInvalid, shape: Scalar(), pos: n.pos}
	}
	if !b.fits(n.shape.Rows, n.shape.Cols) {
		b.errs.Add(n.pos, "a %v value here"+tooBigMsg, n.shape, MaxElements, MaxElements>>27)
		n = node{op: opInvalid, shape: Scalar(), pos: n.pos}
	}
	n.n = n.shape.Len()
	n.rows = b.rows
	n.iter = b.iter
	n.stmt = b.stmt
	n.each = b.each
	n.whole = b.whole
	n.off = len(b.val)
	n.aoff = -1
	b.val = append(b.val, make([]float64, n.n)...)
	for _, a := range n.args {
		if b.nodes[a].dyn {
			n.dyn = true
		}
		if b.nodes[a].sub {
			n.sub = true
		}
	}
	b.nodes = append(b.nodes, n)
	id := b.id(len(b.nodes) - 1)
	if b.ctx != "" {
		if b.ctxOf == nil {
			b.ctxOf = map[int32]string{}
		}
		b.ctxOf[int32(len(b.nodes)-1)] = b.ctx
	}
	if last {
		b.full = id
	}
	return id
}

// InLoop marks (on) the nodes built until done is called as a for loop's
// iterations side by side (a loop the compiler lowers as vector
// operations): an error at one names no element, only the expression, the
// values and the iteration (AtIter), as each iteration's scalar node's
// does when such loops are unrolled. InLoop(false) unmarks them again, for a node of whole data
// built in such a loop.
func (b *Builder) InLoop(on bool) (done func()) {
	prev := b.rows
	b.rows = on
	return func() { b.rows = prev }
}

// Iters are the loop iterations a node is built in, for its run-time
// errors: Vars names the loop variables, outer first, and Vals[v][r] is
// Vars[v]'s value in row r, one row for an unrolled loop's iteration and
// one per row of a loop lowered as vectors (Builder.InLoop); a Vals[v] of
// one value holds for every row. Loop is the outermost loop's position:
// the iterations of one loop nest compare in loop order. Each, when it has
// more than one element, is the shape of one iteration's value in a node
// whose rows are each Each.Len() elements (a vector per iteration, side by
// side; Vals then has a value per element): an error names the element
// within the iteration's value, as the unrolled loop's did.
type Iters struct {
	Loop ast.Pos
	Vars []string
	Vals [][]int
	Each Shape
}

// AtIter sets the loop iterations of the nodes built until done is
// called (nil: none, for nodes of whole data built in a loop). A run-time
// error at such a node names the iteration that failed ("at i = 2, j =
// 0"): a node of a loop's rows the row of its first failing element, any
// other the first row. Only the error path reads it.
func (b *Builder) AtIter(it *Iters) (done func()) {
	prev, each := b.iter, b.each
	if it == nil {
		b.iter, b.each = 0, Shape{}
	} else {
		b.iters = append(b.iters, *it)
		b.iter, b.each = int32(len(b.iters)), it.Each
	}
	return func() { b.iter, b.each = prev, each }
}

// InStmt attributes the nodes built until done is called to the
// top-level statement at pos (one row for every call at the same pos),
// for Program.Profile: a compiler sets it
// around each statement it lowers, so that the nodes of a loop's body, of
// a user function inlined at a call and of a param's prior all count at
// the statement they were built for. A node built once and read by later
// statements (a let's value) stays with the statement that built it.
// Nothing else reads it.
func (b *Builder) InStmt(pos ast.Pos) (done func()) {
	prev := b.stmt
	if b.stmtAt == nil {
		b.stmtAt = map[ast.Pos]int32{}
	}
	if b.stmt = b.stmtAt[pos]; b.stmt == 0 {
		b.stmts = append(b.stmts, pos)
		b.stmt = int32(len(b.stmts))
		b.stmtAt[pos] = b.stmt
	}
	return func() { b.stmt = prev }
}

// Whole marks the nodes built until done is called, in a loop lowered as
// vectors, as values that read no row, built once for all the rows (a
// vector of params, say): their errors name the element, and the first
// iteration, as the unrolled loop's copy of them in it did, even where
// their length happens to be the rows'.
func (b *Builder) Whole() (done func()) {
	prev := b.whole
	b.whole = true
	return func() { b.whole = prev }
}

// InCall sets the call context of the nodes built until done is called:
// s (" (in the call of f at POS)") before any context already set, as a
// user function's body inlined at a call is lowered (nested calls
// innermost first). A run-time error at such a node ends with its context,
// so that a NaN in a function's body names the call that fed it.
func (b *Builder) InCall(s string) (done func()) {
	prev := b.ctx
	b.ctx = s + prev
	return func() { b.ctx = prev }
}

// InFnBody is InCall for the body of a user function inlined at a call:
// an error building it (fail: a matrix product's sizes) names the call
// too, where the body's position alone is shared by every call.
func (b *Builder) InFnBody(s string) (done func()) {
	prevCtx, prevFn := b.ctx, b.fnCtx
	b.ctx, b.fnCtx = s+prevCtx, s+prevFn
	return func() { b.ctx, b.fnCtx = prevCtx, prevFn }
}

// operands resolves ids; it reports false when one of them is a placeholder.
func (b *Builder) operands(ids ...ID) ([]int32, bool) {
	args := make([]int32, len(ids))
	ok := true
	for i, id := range ids {
		args[i] = b.index(id)
		if b.nodes[args[i]].op == opInvalid {
			ok = false
		}
	}
	return args, ok
}

// elementwiseHint follows MatMul's error where x * y of shapes sx, sy
// has no matrix product but x .* y broadcasts one onto the other (a row
// [1, K] against each row of [N, K]): `.*` was meant. "" otherwise.
func elementwiseHint(sx, sy Shape) string {
	out, ok := broadcast(sx, sy)
	if !ok || out != sx && out != sy {
		return ""
	}
	return fmt.Sprintf("; `*` is a matrix product: `.*` multiplies elementwise, and %s .* %s is %s", sx, sy, out)
}

// fail records an error and returns a placeholder; within a user
// function's body (InFnBody) the error names the call.
func (b *Builder) fail(pos ast.Pos, format string, args ...any) ID {
	b.fails++
	if !b.failedAt[pos] {
		if b.failedAt == nil {
			b.failedAt = map[ast.Pos]bool{}
		}
		b.failedAt[pos] = true
		b.errs.Add(pos, "%s%s", fmt.Sprintf(format, args...), b.fnCtx)
	}
	return b.invalid(pos)
}

func (b *Builder) invalid(pos ast.Pos) ID {
	return b.push(node{op: opInvalid, shape: Scalar(), pos: pos})
}

func (b *Builder) shapeOf(i int32) Shape { return b.nodes[i].shape }

// Input adds a slot filled from the latent vector: the next s.Len() entries,
// row-major, after those of the inputs built before it.
func (b *Builder) Input(name string, s Shape, pos ast.Pos) ID {
	if b.done {
		panic(errFinished)
	}
	if !s.valid() {
		return b.fail(pos, "input %s: invalid shape %+v", name, s)
	}
	id := b.push(node{op: OpInput, shape: s, pos: pos, name: name, i0: b.dim, dyn: true})
	b.dim += s.Len()
	return id
}

// Const adds a constant or data tensor; values are copied.
func (b *Builder) Const(values []float64, s Shape, pos ast.Pos) ID {
	if b.done {
		panic(errFinished)
	}
	if !s.valid() {
		return b.fail(pos, "const: invalid shape %+v", s)
	}
	if len(values) != s.Len() {
		panic(errConstLength)
	}
	id := b.push(node{op: OpConst, shape: s, pos: pos})
	n := &b.nodes[len(b.nodes)-1]
	copy(b.val[n.off:n.off+n.n], values)
	return id
}

// DataConst adds a constant read from a data file: name is its data name
// and cells locates element k in the file, so that a value outside the
// support of a density it is the value of (directly, or through
// indexing) is reported at its cell.
func (b *Builder) DataConst(name string, values []float64, s Shape, pos ast.Pos, cells func(k int) ast.Pos) ID {
	id := b.Const(values, s, pos)
	if n := &b.nodes[len(b.nodes)-1]; n.op == OpConst && int(b.index(id)) == len(b.nodes)-1 {
		n.name, n.cells = name, cells
		n.sub = b.subsample[name]
	}
	return id
}

// Scalar adds a scalar constant.
func (b *Builder) Scalar(v float64, pos ast.Pos) ID {
	return b.Const([]float64{v}, Scalar(), pos)
}

// Identity adds the constant n×n identity matrix.
func (b *Builder) Identity(n int, pos ast.Pos) ID {
	if n < 0 {
		return b.fail(pos, "I: negative size %d", n)
	}
	if !b.fits(n, n) {
		return b.fail(pos, "I(%d)"+tooBigMsg, n, MaxElements, MaxElements>>27)
	}
	v := make([]float64, n*n)
	for i := 0; i < n; i++ {
		v[i*n+i] = 1
	}
	return b.Const(v, Matrix(n, n), pos)
}

// Binary adds an elementwise binary node (OpAdd, OpSub, OpMul, OpDiv,
// OpPow) with broadcasting.
func (b *Builder) Binary(op Op, x, y ID, pos ast.Pos) ID {
	if !op.isBinary() {
		panic(errNotBinary)
	}
	return b.binary(op, x, y, pos)
}

// binary adds an elementwise node of two operands with broadcasting: an
// arithmetic op or a step.
func (b *Builder) binary(op Op, x, y ID, pos ast.Pos) ID {
	args, ok := b.operands(x, y)
	if !ok {
		return b.invalid(pos)
	}
	sx, sy := b.shapeOf(args[0]), b.shapeOf(args[1])
	out, ok := broadcast(sx, sy)
	if !ok {
		return b.fail(pos, "%s: shapes %s and %s do not broadcast", op, sx, sy)
	}
	gr, gc, bc := geometry(out, []Shape{sx, sy})
	nscr := 0
	if (bc[1] == 0 || bc[3] == 0) && op.isBinary() { // an operand broadcast along rows: a row buffer for its adjoint
		nscr = gc
	}
	return b.push(node{op: op, args: args, shape: out, pos: pos, gr: gr, gc: gc, bc: bc, nscr: nscr})
}

// Logical adds an elementwise comparison or logical node (OpLt, OpLe,
// OpGt, OpGe, OpEq, OpNe, OpAnd, OpOr) with broadcasting: 1 where it
// holds, 0 where not. Comparisons follow IEEE 754: one with a NaN operand
// is false, except != which is true; && and || count any operand that is
// not 0 as true, NaN included. The node is a step function of its
// operands, whose derivative is zero wherever it exists: it passes no
// adjoint to them. gpp's outputs use it (the mean of mu > 0 over the draws
// is P(mu > 0)); the checker keeps it out of the log joint.
func (b *Builder) Logical(op Op, x, y ID, pos ast.Pos) ID {
	if !op.isStepBinary() {
		panic(errNotLogical)
	}
	return b.binary(op, x, y, pos)
}

// Not returns !x: 1 where x is 0, else 0 (0 where x is NaN, which is not
// 0). Like Logical, it passes no adjoint to x.
func (b *Builder) Not(x ID, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	return b.push(node{op: OpNot, args: args, shape: b.shapeOf(args[0]), pos: pos})
}

// Add returns x + y.
func (b *Builder) Add(x, y ID, pos ast.Pos) ID { return b.Binary(OpAdd, x, y, pos) }

// Sub returns x - y.
func (b *Builder) Sub(x, y ID, pos ast.Pos) ID { return b.Binary(OpSub, x, y, pos) }

// Mul returns the elementwise product x .* y.
func (b *Builder) Mul(x, y ID, pos ast.Pos) ID { return b.Binary(OpMul, x, y, pos) }

// Div returns x ./ y.
func (b *Builder) Div(x, y ID, pos ast.Pos) ID { return b.Binary(OpDiv, x, y, pos) }

// Pow returns x .^ y.
func (b *Builder) Pow(x, y ID, pos ast.Pos) ID { return b.Binary(OpPow, x, y, pos) }

// Unary adds an elementwise unary node (OpNeg through OpLambertWm1).
func (b *Builder) Unary(op Op, x ID, pos ast.Pos) ID {
	if !op.isUnary() {
		panic(errNotUnary)
	}
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	id := b.push(node{op: op, args: args, shape: b.shapeOf(args[0]), pos: pos})
	if _, seen := b.exps[args[0]]; op == OpExp && !seen {
		b.exps[args[0]] = int32(len(b.nodes) - 1)
	}
	return id
}

// Neg returns -x.
func (b *Builder) Neg(x ID, pos ast.Pos) ID { return b.Unary(OpNeg, x, pos) }

// Exp returns exp(x).
func (b *Builder) Exp(x ID, pos ast.Pos) ID { return b.Unary(OpExp, x, pos) }

// ExpParam returns exp(x) for x the unconstrained coordinate of the
// positive param named param (its transform), so that an overflow reads
// as that transform's ("the positive param `sigma`'s transform
// exp(2354.92) overflows"), not as an exp the user did not write.
func (b *Builder) ExpParam(x ID, param string, pos ast.Pos) ID {
	id := b.Exp(x, pos)
	if i := b.index(id); b.nodes[i].op == OpExp {
		b.nodes[i].name = param
	}
	return id
}

// Log returns log(x).
func (b *Builder) Log(x ID, pos ast.Pos) ID { return b.Unary(OpLog, x, pos) }

// LogArg returns log(x) for x a distribution's parameter that must be
// > 0, named by what ("MultiGP: w"), so that a value ≤ 0 is reported as
// that parameter's ("MultiGP: w must be > 0 (got 0, element [1])"), not
// as log's argument.
func (b *Builder) LogArg(x ID, what string, pos ast.Pos) ID {
	id := b.Log(x, pos)
	if i := b.index(id); b.nodes[i].op == OpLog {
		b.nodes[i].name = what
	}
	return id
}

// Log1p returns log(1 + x).
func (b *Builder) Log1p(x ID, pos ast.Pos) ID { return b.Unary(OpLog1p, x, pos) }

// Expm1 returns exp(x) - 1.
func (b *Builder) Expm1(x ID, pos ast.Pos) ID { return b.Unary(OpExpm1, x, pos) }

// Log1mexp returns log(1 - exp(-x)) for x > 0, accurately for all x.
func (b *Builder) Log1mexp(x ID, pos ast.Pos) ID { return b.Unary(OpLog1mexp, x, pos) }

// Softplus returns log(1 + exp(x)) without overflow.
func (b *Builder) Softplus(x ID, pos ast.Pos) ID { return b.Unary(OpSoftplus, x, pos) }

// Sqrt returns the square root of x.
func (b *Builder) Sqrt(x ID, pos ast.Pos) ID { return b.Unary(OpSqrt, x, pos) }

// Square returns x .* x.
func (b *Builder) Square(x ID, pos ast.Pos) ID { return b.Unary(OpSquare, x, pos) }

// Abs returns |x|; its derivative at 0 is taken as 0.
func (b *Builder) Abs(x ID, pos ast.Pos) ID { return b.Unary(OpAbs, x, pos) }

// Lgamma returns log|Γ(x)|.
func (b *Builder) Lgamma(x ID, pos ast.Pos) ID { return b.Unary(OpLgamma, x, pos) }

// Digamma returns ψ(x), the derivative of log Γ(x).
func (b *Builder) Digamma(x ID, pos ast.Pos) ID { return b.Unary(OpDigamma, x, pos) }

// InvLogit returns 1 / (1 + exp(-x)).
func (b *Builder) InvLogit(x ID, pos ast.Pos) ID { return b.Unary(OpInvLogit, x, pos) }

// reduce adds a reduction node with the given output shape.
func (b *Builder) reduce(op Op, x ID, out func(Shape) (Shape, bool), pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	o, ok := out(s)
	if !ok {
		return b.fail(pos, "%s: needs a vector or a matrix, got %s", op, s)
	}
	nd := node{op: op, args: args, shape: o, pos: pos}
	if op == OpRowMax || op == OpRowMin { // each row's extreme's index, for the reverse pass
		nd.nscr = o.Len()
	}
	return b.push(nd)
}

func toScalar(Shape) (Shape, bool) { return Scalar(), true }

// toRows is the shape of a reduction of each row: a vector [n] of a
// matrix [n, m] or a vector [n].
func toRows(s Shape) (Shape, bool) { return Vector(s.Rows), s.Rank > 0 }

// Sum returns the sum of all elements of x.
func (b *Builder) Sum(x ID, pos ast.Pos) ID { return b.reduce(OpSum, x, toScalar, pos) }

// Mean returns the mean of all elements of x.
func (b *Builder) Mean(x ID, pos ast.Pos) ID { return b.reduce(OpMean, x, toScalar, pos) }

// Prod returns the product of the elements of x as a scalar (1 of no
// elements).
func (b *Builder) Prod(x ID, pos ast.Pos) ID { return b.reduce(OpProd, x, toScalar, pos) }

// LogSumExp returns log Σ exp(x), computed stably.
func (b *Builder) LogSumExp(x ID, pos ast.Pos) ID { return b.reduce(OpLogSumExp, x, toScalar, pos) }

// Max returns the largest element of x (NaN if any is); its derivative is
// 1 at the first largest element, 0 elsewhere.
func (b *Builder) Max(x ID, pos ast.Pos) ID { return b.reduce(OpMax, x, toScalar, pos) }

// Min returns the smallest element of x, as Max the largest.
func (b *Builder) Min(x ID, pos ast.Pos) ID { return b.reduce(OpMin, x, toScalar, pos) }

// RowLogSumExp returns log Σ_j exp(x_ij) for each row of a matrix [n, m],
// a vector [n], computed stably; a vector is returned unchanged (as a
// copy). It is the log-likelihood of a mixture from its [n, k] table of
// log weights plus component log densities.
func (b *Builder) RowLogSumExp(x ID, pos ast.Pos) ID {
	return b.reduce(OpRowLogSumExp, x, toRows, pos)
}

// RowSum sums each row of a matrix [n, m] into a vector [n]; a vector is
// returned unchanged (as a copy).
func (b *Builder) RowSum(x ID, pos ast.Pos) ID {
	return b.reduce(OpRowSum, x, toRows, pos)
}

// ColSum sums each column of a matrix [n, m] into a row [1, m]; a vector
// [n] gives [1, 1].
func (b *Builder) ColSum(x ID, pos ast.Pos) ID {
	return b.reduce(OpColSum, x, func(s Shape) (Shape, bool) {
		return Matrix(1, s.Cols), s.Rank > 0
	}, pos)
}

// RowMean returns the mean of each row of a matrix [n, m], a vector [n]:
// RowSum over m (a vector is returned as it is).
func (b *Builder) RowMean(x ID, pos ast.Pos) ID {
	s := b.RowSum(x, pos)
	if b.Failed(s) {
		return s
	}
	return b.Div(s, b.Scalar(float64(b.Shape(x).Cols), pos), pos)
}

// ColMean returns the mean of each column of a matrix [n, m], a row
// [1, m]: ColSum over n (a vector [n] gives its mean as [1, 1]).
func (b *Builder) ColMean(x ID, pos ast.Pos) ID {
	s := b.ColSum(x, pos)
	if b.Failed(s) {
		return s
	}
	return b.Div(s, b.Scalar(float64(b.Shape(x).Rows), pos), pos)
}

// RowCumSum returns the running sums along each row of a matrix [n, m],
// or of a vector: element i of a run is x_0 + ... + x_i (Stan's
// cumulative_sum); a matrix's rows are, say, a loop's cumsum of a vector
// per iteration, side by side.
func (b *Builder) RowCumSum(x ID, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank == 0 {
		return b.fail(pos, "cumsum: needs a vector or a matrix, got %s", s)
	}
	return b.push(node{op: OpCumSum, args: args, shape: s, pos: pos})
}

// RowMax returns the largest element of each row of a matrix [n, m], a
// vector [n] (−∞ of a row of none, as Max); its derivative is 1 at each
// row's first largest element. A vector is returned unchanged (as a copy).
func (b *Builder) RowMax(x ID, pos ast.Pos) ID {
	return b.reduce(OpRowMax, x, toRows, pos)
}

// RowProd returns the product of the elements of each row of a matrix
// [n, m] (1 of a row of none, as Prod), a vector [n] unchanged (as a
// copy): Prod of each row, side by side, its derivative Prod's per row.
func (b *Builder) RowProd(x ID, pos ast.Pos) ID {
	return b.reduce(OpRowProd, x, toRows, pos)
}

// RowMin returns the smallest element of each row, as RowMax the largest.
func (b *Builder) RowMin(x ID, pos ast.Pos) ID {
	return b.reduce(OpRowMin, x, toRows, pos)
}

// ARFilter returns the recursive (autoregressive) filter of e by the
// coefficients phi, R's filter(e, phi, method = "recursive"): for e a
// vector [T], h_t = e_t + Σ_{k=1..p} phi_{k−1} h_{t−k} with the terms
// before h_0 taken as 0 (so h_0 = e_0); for e a matrix [T, K], each column
// alone with the same phi. phi is a scalar (p = 1) or a vector [p]; a
// coefficient of lag p ≥ T reaches no element. One node in O(T·p·K), where
// the same recursion written as a matrix product costs O(T²·K).
func (b *Builder) ARFilter(phi, e ID, pos ast.Pos) ID {
	args, ok := b.operands(phi, e)
	if !ok {
		return b.invalid(pos)
	}
	sp, se := b.shapeOf(args[0]), b.shapeOf(args[1])
	if sp.Rank == 2 {
		return b.fail(pos, "ar_filter: phi must be a scalar or a vector [p], got %s", sp)
	}
	if se.Rank == 0 {
		return b.fail(pos, "ar_filter: e must be a vector [T] or a matrix [T, K], got %s", se)
	}
	// The scratch holds the reverse-time filter of the adjoint.
	return b.push(node{op: OpARFilter, args: args, shape: se, pos: pos, nscr: se.Len()})
}

// TVFilter returns the time-varying recursive filter of e by the
// coefficients a: for e a vector [T], h_0 = e_0 and h_t = a_t h_{t−1} + e_t
// (a_0 reaches nothing); for e a matrix [T, K], each column alone, with a
// [T] shared by the columns or a [T, K] of its own per element. One node in
// O(T·K), ARFilter's AR(1) with a coefficient per step.
func (b *Builder) TVFilter(a, e ID, pos ast.Pos) ID {
	args, ok := b.operands(a, e)
	if !ok {
		return b.invalid(pos)
	}
	sa, se := b.shapeOf(args[0]), b.shapeOf(args[1])
	if se.Rank == 0 {
		return b.fail(pos, "tv_filter: e must be a vector [T] or a matrix [T, K], got %s", se)
	}
	if sa.Rank == 0 || sa.Rows != se.Rows || sa.Rank == 2 && sa.Cols != se.Cols {
		return b.fail(pos, "tv_filter: a must be a vector [%d] or e's shape %s, got %s", se.Rows, se, sa)
	}
	// The scratch holds the reverse-time filter of the adjoint.
	return b.push(node{op: OpTVFilter, args: args, shape: se, pos: pos, nscr: se.Len()})
}

// Renewal returns the renewal equation's series I [T] from R [T], the
// generation-interval weights w [S] (w_0 the weight of lag 1) and the
// seed I0 [S] before t = 0 (I0_{S−1} the most recent): I_t = R_t ·
// Σ_{s=1..S} w_{s−1} I_{t−s}, an I_{t−s} with t − s < 0 being
// I0_{S+t−s}. One node in O(T·S).
func (b *Builder) Renewal(r, w, i0 ID, pos ast.Pos) ID {
	args, ok := b.operands(r, w, i0)
	if !ok {
		return b.invalid(pos)
	}
	sr, sw, si := b.shapeOf(args[0]), b.shapeOf(args[1]), b.shapeOf(args[2])
	if sr.Rank != 1 {
		return b.fail(pos, "renewal: R must be a vector [T], got %s", sr)
	}
	if sw.Rank != 1 {
		return b.fail(pos, "renewal: w must be a vector [S], got %s", sw)
	}
	if si.Rank != 1 || si.Rows != sw.Rows {
		return b.fail(pos, "renewal: I0 must be a vector [%d] as w, got %s", sw.Rows, si)
	}
	// The scratch holds the adjoint of I carried back in time.
	return b.push(node{op: OpRenewal, args: args, shape: sr, pos: pos, nscr: sr.Len()})
}

// MatMul returns the matrix product x * y; a vector is a column [n, 1], and
// the product is a vector when y is one.
func (b *Builder) MatMul(x, y ID, pos ast.Pos) ID {
	args, ok := b.operands(x, y)
	if !ok {
		return b.invalid(pos)
	}
	sx, sy := b.shapeOf(args[0]), b.shapeOf(args[1])
	if sx.Rank == 0 || sy.Rank == 0 {
		return b.fail(pos, "matmul: needs vectors or matrices, got %s * %s", sx, sy)
	}
	if sx.Cols != sy.Rows {
		if sx.Rank == 1 && sy.Rank == 1 {
			// Stan's vector * vector is an error too; say what was meant.
			return b.fail(pos, "matmul: inner dimensions do not match: %s * %s; `*` of two vectors is a matrix product: `.*` multiplies elementwise, dot_product(x, y) sums the products, and x * y' is their outer product", sx, sy)
		}
		return b.fail(pos, "matmul: inner dimensions do not match: %s * %s%s", sx, sy, elementwiseHint(sx, sy))
	}
	out := Matrix(sx.Rows, sy.Cols)
	if sy.Rank == 1 {
		out = Vector(sx.Rows)
	}
	// Fold transposes: read the source of a Transpose operand with a
	// transpose flag, so W * W' costs no copy (and the Transpose node is
	// dropped unless something else needs it). X X' and X' X are Gram
	// products: half the multiplications forward, one product backward.
	flags := 0
	for i, bit := range [2]int{mmTransA, mmTransB} {
		if o := &b.nodes[args[i]]; o.op == OpTranspose {
			args[i] = o.args[0]
			flags |= bit
		}
	}
	nscr := 0
	if args[0] == args[1] && (flags == mmTransA || flags == mmTransB) {
		flags |= mmGram
		nscr = out.Len()
	}
	return b.push(node{op: OpMatMul, args: args, shape: out, pos: pos, i0: flags, i1: sx.Cols, nscr: nscr})
}

// MatMul flags.
const (
	mmTransA = 1 << iota // the first operand is read transposed
	mmTransB             // the second operand is read transposed
	mmGram               // X X' or X' X of one node
)

// Transpose returns x': a vector [n] becomes a row [1, n], a row [1, n]
// becomes a vector [n], a matrix [r, c] becomes [c, r]; a scalar is
// returned as is.
func (b *Builder) Transpose(x ID, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	var out Shape
	switch {
	case s.Rank == 0:
		return x
	case s.Rank == 1:
		out = Matrix(1, s.Rows)
	case s.Rows == 1:
		out = Vector(s.Cols)
	default:
		out = Matrix(s.Cols, s.Rows)
	}
	return b.push(node{op: OpTranspose, args: args, shape: out, pos: pos})
}

// Outer returns the outer product x y' of two vectors.
func (b *Builder) Outer(x, y ID, pos ast.Pos) ID {
	args, ok := b.operands(x, y)
	if !ok {
		return b.invalid(pos)
	}
	sx, sy := b.shapeOf(args[0]), b.shapeOf(args[1])
	if sx.Rank != 1 || sy.Rank != 1 {
		return b.fail(pos, "outer: needs two vectors, got %s and %s", sx, sy)
	}
	return b.push(node{op: OpOuter, args: args, shape: Matrix(sx.Rows, sy.Rows), pos: pos})
}

// RowScatter returns the scatter Σ_i x_i x_i' [k, k] of the rows x_i of a
// matrix [n, k], X'X, as one symmetric rank-n update summed row by row,
// with no [n, k·k] of outer products. Built in a
// loop's rows with Iters.Each [k, k] (each iteration's outer product), a
// row whose outer product overflows is named as an unrolled loop's Outer
// names it: outer, the element and the row's iteration.
func (b *Builder) RowScatter(x ID, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank != 2 {
		return b.fail(pos, "outer: needs a matrix of rows, got %s", s)
	}
	// scratch: G + G' of the reverse sweep
	return b.push(node{op: OpRowScatter, args: args, shape: Matrix(s.Cols, s.Cols), pos: pos, nscr: s.Cols * s.Cols})
}

// Diag turns a vector into a diagonal matrix and a square matrix into the
// vector of its diagonal.
func (b *Builder) Diag(x ID, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	switch {
	case s.Rank == 1:
		return b.push(node{op: OpDiagMatrix, args: args, shape: Matrix(s.Rows, s.Rows), pos: pos})
	case s.IsSquare():
		return b.push(node{op: OpDiagVector, args: args, shape: Vector(s.Rows), pos: pos})
	}
	return b.fail(pos, "diag: needs a vector or a square matrix, got %s", s)
}

// square checks that operand i of op is a square matrix.
func (b *Builder) square(op Op, what string, i int32, pos ast.Pos) bool {
	s := b.shapeOf(i)
	if !s.IsSquare() {
		b.errs.Add(pos, "%s: %s must be a square matrix, got %s", op, what, s)
		return false
	}
	return true
}

// Trace returns the sum of the diagonal of a square matrix.
func (b *Builder) Trace(x ID, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	if !b.square(OpTrace, "argument", args[0], pos) {
		return b.invalid(pos)
	}
	return b.push(node{op: OpTrace, args: args, shape: Scalar(), pos: pos})
}

// Chol returns the lower Cholesky factor L of the symmetric positive
// definite matrix sym(A) = (A + A')/2, so the gradient is symmetric and
// exact even for an A that is not exactly symmetric. Chol of the same node
// is built once and shared, so LogDet and Solve of one matrix cost one
// factorisation.
func (b *Builder) Chol(a ID, pos ast.Pos) ID {
	args, ok := b.operands(a)
	if !ok {
		return b.invalid(pos)
	}
	if id, ok := b.chols[args[0]]; ok {
		return id
	}
	if !b.square(OpChol, "matrix", args[0], pos) {
		return b.invalid(pos)
	}
	n := b.shapeOf(args[0]).Rows
	id := b.push(node{op: OpChol, args: args, shape: Matrix(n, n), pos: pos, nscr: n * n})
	b.chols[args[0]] = id
	return id
}

// LogDetChol returns log det(L L') = 2 Σ log L_ii for a Cholesky factor L.
func (b *Builder) LogDetChol(l ID, pos ast.Pos) ID {
	args, ok := b.operands(l)
	if !ok {
		return b.invalid(pos)
	}
	if !b.square(OpLogDetChol, "factor", args[0], pos) {
		return b.invalid(pos)
	}
	return b.push(node{op: OpLogDetChol, args: args, shape: Scalar(), pos: pos})
}

// CholSolve returns (L L')⁻¹ B for a Cholesky factor L (only its lower
// triangle is read) and a vector or matrix B.
func (b *Builder) CholSolve(l, rhs ID, pos ast.Pos) ID {
	args, ok := b.operands(l, rhs)
	if !ok {
		return b.invalid(pos)
	}
	if !b.square(OpCholSolve, "factor", args[0], pos) {
		return b.invalid(pos)
	}
	sl, sb := b.shapeOf(args[0]), b.shapeOf(args[1])
	if sb.Rank == 0 || sb.Rows != sl.Rows {
		return b.fail(pos, "solve: right-hand side %s does not match the %s matrix", sb, sl)
	}
	n, m := sl.Rows, sb.Cols
	return b.push(node{op: OpCholSolve, args: args, shape: sb, pos: pos, nscr: n*m + n*n})
}

// TriSolve returns L⁻¹ B for a lower triangular L (only its lower
// triangle is read) and a vector or matrix B (Stan's
// mdivide_left_tri_low).
func (b *Builder) TriSolve(l, rhs ID, pos ast.Pos) ID {
	args, ok := b.operands(l, rhs)
	if !ok {
		return b.invalid(pos)
	}
	if !b.square(OpTriSolve, "factor", args[0], pos) {
		return b.invalid(pos)
	}
	sl, sb := b.shapeOf(args[0]), b.shapeOf(args[1])
	if sb.Rank == 0 || sb.Rows != sl.Rows {
		return b.fail(pos, "mdivide_left_tri_low: right-hand side %s does not match the %s matrix", sb, sl)
	}
	return b.push(node{op: OpTriSolve, args: args, shape: sb, pos: pos, nscr: sb.Len()})
}

// TriSolveRight returns B L⁻¹ for a matrix B [m, d] and a lower
// triangular L [d, d] (only its lower triangle is read): Stan's
// mdivide_right_tri_low.
func (b *Builder) TriSolveRight(rhs, l ID, pos ast.Pos) ID {
	args, ok := b.operands(l, rhs)
	if !ok {
		return b.invalid(pos)
	}
	if !b.square(OpTriSolve, "factor", args[0], pos) {
		return b.invalid(pos)
	}
	sl, sb := b.shapeOf(args[0]), b.shapeOf(args[1])
	if sb.Rank != 2 || sb.Cols != sl.Rows {
		return b.fail(pos, "mdivide_right_tri_low: left-hand side %s does not match the %s matrix", sb, sl)
	}
	return b.push(node{op: OpTriSolve, args: args, shape: sb, pos: pos, i0: 1, nscr: sb.Len()})
}

// LU returns a function of a general square matrix through its LU
// factors with partial pivoting: op is OpInverse (A⁻¹), OpDeterminant
// (det A) or OpLogAbsDet (log |det A|). The factors and pivots are kept in
// the node's scratch for the reverse sweep, with room for A⁻¹.
func (b *Builder) LU(op Op, a ID, pos ast.Pos) ID {
	args, ok := b.operands(a)
	if !ok {
		return b.invalid(pos)
	}
	if !b.square(op, "matrix", args[0], pos) {
		return b.invalid(pos)
	}
	d := b.shapeOf(args[0]).Rows
	shape := Scalar()
	if op == OpInverse {
		shape = Matrix(d, d)
	}
	return b.push(node{op: op, args: args, shape: shape, pos: pos, nscr: 2*d*d + d})
}

// LogDet returns the log determinant of a symmetric positive definite
// matrix through its (shared) Cholesky factor.
func (b *Builder) LogDet(a ID, pos ast.Pos) ID { return b.LogDetChol(b.Chol(a, pos), pos) }

// Solve returns A⁻¹ B for a symmetric positive definite A through its
// (shared) Cholesky factor.
func (b *Builder) Solve(a, rhs ID, pos ast.Pos) ID {
	return b.CholSolve(b.Chol(a, pos), rhs, pos)
}

// GaussRowsSS returns Σ_i log N(y_i | 0, C) for n rows y_i with scatter
// matrix S = Σ_i y_i y_i':
//
//	-n/2 (d log 2π + log det C) - 1/2 trace(C⁻¹ S)
//
// in O(d³) with one Cholesky factorisation of sym(C), whatever n. S is
// usually data (then Y'Y is hoisted out of the per-call work). A covariance
// built as X X' + s I with X [d, k], k ≤ 3d/4 (factor analysis), is evaluated
// through k×k matrices in O(d²k + dk² + k³) (see lowrank.go); the nodes that
// form C are then dropped unless something else needs them.
func (b *Builder) GaussRowsSS(c, s ID, n float64, pos ast.Pos) ID {
	return b.gaussRows(pos, n, c, s)
}

// GaussRowsSSMean is GaussRowsSS with mean vector mu, from the centred
// statistics of the rows (as dist.RowStats keeps them): their mean ybar and
// scatter S = Σ_i (y_i - ybar)(y_i - ybar)'. The scatter about mu is
// S + n (ybar - mu)(ybar - mu)', which loses no digits when the data mean
// is large compared with their spread.
func (b *Builder) GaussRowsSSMean(c, s, ybar, mu ID, n float64, pos ast.Pos) ID {
	return b.gaussRows(pos, n, c, s, ybar, mu)
}

func (b *Builder) gaussRows(pos ast.Pos, n float64, ids ...ID) ID {
	args, ok := b.operands(ids...)
	if !ok {
		return b.invalid(pos)
	}
	if !b.square(OpGaussRowsSS, "covariance", args[0], pos) || !b.square(OpGaussRowsSS, "scatter matrix", args[1], pos) {
		return b.invalid(pos)
	}
	d := b.shapeOf(args[0]).Rows
	if b.shapeOf(args[1]).Rows != d {
		return b.fail(pos, "gauss_rows_ss: scatter matrix %s does not match the %s covariance", b.shapeOf(args[1]), b.shapeOf(args[0]))
	}
	for _, a := range args[2:] {
		if s := b.shapeOf(a); s.Rank != 1 || s.Rows != d {
			return b.fail(pos, "gauss_rows_ss: data mean and mean must be vectors [%d], got %s", d, s)
		}
	}
	if !(n >= 0) || math.IsInf(n, 0) {
		return b.fail(pos, "gauss_rows_ss: invalid row count %g", n)
	}
	if len(args) == 2 {
		if x, s, ok := b.lowRankIso(args[0], pos); ok {
			return b.gaussRowsLR(x, s, args[1], n, pos)
		}
	}
	scr := 4*d*d + 1 // factor, inverse, two products; log det C (cfix)
	if len(args) > 2 {
		scr += d*d + d // centred scatter, C⁻¹ times a vector
	}
	return b.push(node{op: OpGaussRowsSS, args: args, shape: Scalar(), pos: pos, f0: n, nscr: scr})
}

// slice adds an OpSlice node reading n elements of x from offset lo.
func (b *Builder) slice(args []int32, lo int, out Shape, pos ast.Pos) ID {
	return b.push(node{op: OpSlice, args: args, shape: out, pos: pos, i1: lo})
}

// Elem returns element i of a vector.
func (b *Builder) Elem(x ID, i int, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank != 1 {
		return b.fail(pos, "index: x[i] needs a vector, got %s", s)
	}
	if i < 0 || i >= s.Rows {
		return b.fail(pos, "index: %d out of range [0, %d)", i, s.Rows)
	}
	return b.slice(args, i, Scalar(), pos)
}

// At returns element (i, j) of a matrix.
func (b *Builder) At(x ID, i, j int, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank != 2 {
		return b.fail(pos, "index: A[i, j] needs a matrix, got %s", s)
	}
	if i < 0 || i >= s.Rows || j < 0 || j >= s.Cols {
		return b.fail(pos, "index: [%d, %d] out of range for %s", i, j, s)
	}
	return b.slice(args, i*s.Cols+j, Scalar(), pos)
}

// Row returns row i of a matrix, as a vector.
func (b *Builder) Row(x ID, i int, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank != 2 {
		return b.fail(pos, "index: A[i] needs a matrix, got %s", s)
	}
	if i < 0 || i >= s.Rows {
		return b.fail(pos, "index: row %d out of range [0, %d)", i, s.Rows)
	}
	return b.slice(args, i*s.Cols, Vector(s.Cols), pos)
}

// Col returns column j of a matrix, as a vector.
func (b *Builder) Col(x ID, j int, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank != 2 {
		return b.fail(pos, "index: A[:, j] needs a matrix, got %s", s)
	}
	if j < 0 || j >= s.Cols {
		return b.fail(pos, "index: column %d out of range [0, %d)", j, s.Cols)
	}
	return b.push(node{op: OpCol, args: args, shape: Vector(s.Rows), pos: pos, i1: j})
}

// Slice returns x[lo:hi]: elements of a vector, or rows of a matrix.
func (b *Builder) Slice(x ID, lo, hi int, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank == 0 {
		return b.fail(pos, "index: cannot slice a scalar")
	}
	if lo < 0 || hi < lo || hi > s.Rows {
		return b.fail(pos, "index: slice [%d:%d] out of range [0, %d]", lo, hi, s.Rows)
	}
	out := Vector(hi - lo)
	if s.Rank == 2 {
		out = Matrix(hi-lo, s.Cols)
	}
	return b.slice(args, lo*s.Cols, out, pos)
}

// Gather returns the elements x[idx[k]] of a vector, or the rows A[idx[k]]
// of a matrix as a matrix [len(idx), m]. Indices may repeat; their adjoints
// accumulate. idx is copied.
func (b *Builder) Gather(x ID, idx []int, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank == 0 {
		return b.fail(pos, "gather: cannot index a scalar")
	}
	for k, i := range idx {
		if i < 0 || i >= s.Rows {
			return b.fail(pos, "gather: index %d out of range [0, %d) (element %d of the index vector)", i, s.Rows, k)
		}
	}
	out := Vector(len(idx))
	if s.Rank == 2 {
		out = Matrix(len(idx), s.Cols)
	}
	return b.push(node{op: OpGather, args: args, shape: out, pos: pos, idx: append([]int(nil), idx...)})
}

// GatherData is Gather with indices that are int data read unchanged:
// name is their data name and cells locates idx[k] in its file, so that
// an error at a value computed from a row of a file and a param picked by
// the row's index (xi[gauge]) names the index's cell with the row's.
func (b *Builder) GatherData(x ID, idx []int, name string, cells func(k int) ast.Pos, pos ast.Pos) ID {
	id := b.Gather(x, idx, pos)
	if n := &b.nodes[len(b.nodes)-1]; n.op == OpGather && int(b.index(id)) == len(b.nodes)-1 && cells != nil {
		n.name, n.cells = name, cells
	}
	return id
}

// Stack returns the vector (x[0], ..., x[n-1]) of n ≥ 1 scalar nodes: a
// vector literal whose elements are not all constants. An element may
// repeat; its adjoints accumulate.
func (b *Builder) Stack(xs []ID, pos ast.Pos) ID {
	if b.done {
		panic(errFinished)
	}
	if len(xs) == 0 {
		return b.fail(pos, "vector: needs at least one element")
	}
	args, ok := b.operands(xs...)
	if !ok {
		return b.invalid(pos)
	}
	for k, a := range args {
		if s := b.shapeOf(a); !s.IsScalar() {
			return b.fail(pos, "vector: element %d is %s, not a scalar", k, s)
		}
	}
	return b.push(node{op: OpStack, args: args, shape: Vector(len(args)), pos: pos})
}

// Concat returns the rows of x followed by those of y (Stan's
// append_row), or with cols its columns followed by y's (append_col). A
// vector is a column [n, 1] and a scalar [1, 1]: rows of two vectors (or a
// scalar and a vector) give a vector, anything else a matrix; the operands
// need equal columns (rows).
func (b *Builder) Concat(x, y ID, cols bool, pos ast.Pos) ID {
	args, ok := b.operands(x, y)
	if !ok {
		return b.invalid(pos)
	}
	sx, sy := b.shapeOf(args[0]), b.shapeOf(args[1])
	switch {
	case cols && sx.Rows == sy.Rows && sx.Rank > 0 && sy.Rank > 0:
		return b.push(node{op: OpConcat, args: args, shape: Matrix(sx.Rows, sx.Cols+sy.Cols), pos: pos, i0: 1})
	case cols:
		return b.fail(pos, "append_col: needs vectors or matrices with equal rows, got %s and %s", sx, sy)
	case sx.Rank <= 1 && sy.Rank <= 1:
		return b.push(node{op: OpConcat, args: args, shape: Vector(sx.Rows + sy.Rows), pos: pos})
	case sx.Cols == sy.Cols:
		return b.push(node{op: OpConcat, args: args, shape: Matrix(sx.Rows+sy.Rows, sx.Cols), pos: pos})
	}
	return b.fail(pos, "append_row: needs vectors or matrices with equal columns, got %s and %s", sx, sy)
}

// Flatten returns the elements of x, row by row, as a vector (a matrix
// [n, m] gives [n·m]); a vector is returned as is.
func (b *Builder) Flatten(x ID, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank == 1 {
		return x
	}
	return b.slice(args, 0, Vector(s.Len()), pos)
}

// Reshape returns x's elements, row by row, under the shape s of as many
// elements: a vector [n] as the column [n, 1] or the row [1, n], a row or
// a column as a vector. x is returned as is when it has shape s already.
func (b *Builder) Reshape(x ID, s Shape, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	xs := b.shapeOf(args[0])
	if xs == s {
		return x
	}
	if xs.Len() != s.Len() {
		return b.fail(pos, "reshape: %s has %d elements, %s has %d", xs, xs.Len(), s, s.Len())
	}
	return b.slice(args, 0, s, pos)
}

// Inside returns x with every element kept strictly inside (lo, hi), for
// the value of a latent whose exact value lies inside but whose computed
// value can round onto an end: −1 + 2·inv_logit(40) is exactly 1 in floats,
// and 1 − phi² then 0. Such an element becomes the float next to the end,
// inside, as Stan's bounded transforms do; the adjoint passes through as
// that of the exact value, whose derivative the operand carries. NaN stays
// NaN. lo < hi; either may be infinite.
func (b *Builder) Inside(x ID, lo, hi float64, pos ast.Pos) ID {
	if !(lo < hi) {
		panic(errInsideEnds)
	}
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	return b.push(node{op: OpInside, args: args, shape: b.shapeOf(args[0]), pos: pos, f0: lo, f1: hi})
}

// InsideEach is Inside with ends per element: element i of x is kept
// strictly inside (lo[i], hi[i]), for the value of a param with a bound per
// element. lo or hi nil: no end on that side (−∞, +∞); else of x's length
// and finite, lo[i] < hi[i]. The ends are kept as constant operands (the
// node's i0 says which: insideLo, insideHi); the adjoint passes to x alone.
func (b *Builder) InsideEach(x ID, lo, hi []float64, pos ast.Pos) ID {
	ax, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	sx := b.shapeOf(ax[0])
	n := sx.Len()
	if lo == nil && hi == nil || lo != nil && len(lo) != n || hi != nil && len(hi) != n {
		panic(errInsideEachEnds)
	}
	for i := range n {
		if lo != nil && hi != nil && !(lo[i] < hi[i]) {
			panic(errInsideEnds)
		}
	}
	ends := []ID{x}
	which := 0
	if lo != nil {
		ends, which = append(ends, b.Const(lo, sx, pos)), which|insideLo
	}
	if hi != nil {
		ends, which = append(ends, b.Const(hi, sx, pos)), which|insideHi
	}
	args, _ := b.operands(ends...)
	return b.push(node{op: OpInside, args: args, shape: sx, pos: pos, i0: which})
}

// The ends an OpInside node made by InsideEach has as operands after x
// (its i0); 0: the scalar ends f0, f1 of Inside.
const (
	insideLo = 1 << iota
	insideHi
)

// Density returns Σ log p(value | args) over the elements of value and args
// broadcast to a common shape, calling d.Kernel once per element. Adjoints
// flow to value and to every argument, summed over broadcast dimensions.
// Where d has a Hoisted kernel and its hoisted arguments are scalars, the
// node prepares them once per evaluation; where d has a DataHoisted kernel
// and value is fixed data (a count), Finish prepares each element's work
// in the data once for every evaluation.
//
// A Bernoulli whose p is a Phi node is evaluated in Phi's argument
// (dist.BernoulliProbit), whose log mass does not round to log 0 where
// Phi rounds to 0 or 1: a user trial's probit JSDM found no finite start
// in 100 where some Phi(eta) rounded to 1 at y = 0.
func (b *Builder) Density(d dist.Univariate, value ID, args []ID, pos ast.Pos) ID {
	if d.Name == "Bernoulli" && len(args) == 1 && d.Params[0].Support == dist.Unit && !d.OutsideValue && d.CDFTail == 0 {
		if n := b.nodes[b.index(args[0])]; n.op == OpPhi && b.nodes[n.args[0]].op != opInvalid {
			d, args = dist.BernoulliProbit, []ID{b.id(int(n.args[0]))}
		}
	}
	return b.density(d, d.Prepared, value, args, pos)
}

func (b *Builder) density(d dist.Univariate, prep Prepared, value ID, args []ID, pos ast.Pos) ID {
	n, bad := b.densityNode(OpDensity, d, value, args, pos)
	if n == nil {
		return bad
	}
	if prep != nil {
		n.preparedLayout(prep)
		if n.prep != nil {
			n.hoist, n.dhoist = nil, nil // the prepared path prepares every set itself
		}
		if pl, ok := prep.(PreparedLog); ok && n.prep != nil {
			if e, ok := b.exps[n.args[0]]; ok {
				n.prepLog, n.expOf = pl, e+1
			}
		}
	}
	return b.push(*n)
}

// DensityNorm is Density with a normaliser: Σ_k (log p(value_k | args_k) +
// norm_k), each element's log density and normaliser added before the
// sum, in one pass (a truncation's −log P(L ≤ X ≤ U), which may all but
// cancel an element's log mass). norm is a scalar, for every element, or
// has the broadcast shape of value and args, one per element; for another
// shape it returns false and adds nothing. The family's hoisted constants
// are kept; its Prepared form is not taken.
func (b *Builder) DensityNorm(d dist.Univariate, value ID, args []ID, norm ID, pos ast.Pos) (ID, bool) {
	ops, ok := b.operands(norm)
	if !ok {
		return b.invalid(pos), true
	}
	ns := b.nodes[ops[0]].shape
	n, bad := b.densityNode(OpDensity, d, value, args, pos)
	if n == nil {
		return bad, true
	}
	switch {
	case ns.Len() == 1:
		n.norm = normOne
	case ns == b.densityShape(n.args):
		n.norm = normEach // element k of the pass is element k of norm
	default:
		return 0, false
	}
	n.args = append(n.args, ops[0])
	return b.push(*n), true
}

// densityShape is the broadcast shape of a density's operands ops.
func (b *Builder) densityShape(ops []int32) Shape {
	shapes := make([]Shape, len(ops))
	for i, a := range ops {
		shapes[i] = b.shapeOf(a)
	}
	out, _ := broadcast(shapes...)
	return out
}

// The normaliser of a density node (node.norm).
const (
	normOne  = 1
	normEach = 2
)

// nparams returns the number of a density node's family arguments: its
// operands but the value and any normaliser.
func (n *node) nparams() int {
	if n.norm != 0 {
		return len(n.args) - 2
	}
	return len(n.args) - 1
}

// LogPDF returns log p(value | args) of d for each element of the shape
// that value and args broadcast to, where Density returns their sum. The
// value may be a column against row arguments (a node of the [n, k] table
// of a mixture's components; the checker allows it only here).
func (b *Builder) LogPDF(d dist.Univariate, value ID, args []ID, pos ast.Pos) ID {
	n, bad := b.densityNode(OpLogPDF, d, value, args, pos)
	if n == nil {
		return bad
	}
	return b.push(*n)
}

// densityNode lays out a density node (OpDensity or OpLogPDF) of d over
// value and args: the broadcast geometry, and scratch for the parameters,
// their partials and every element's partials. When it fails it returns
// nil and the invalid node it added instead.
func (b *Builder) densityNode(op Op, d dist.Univariate, value ID, args []ID, pos ast.Pos) (*node, ID) {
	if d.Kernel == nil {
		panic(errNilKernel)
	}
	ops, ok := b.operands(append([]ID{value}, args...)...)
	if !ok {
		return nil, b.invalid(pos)
	}
	if d.Params != nil && len(args) != len(d.Params) {
		return nil, b.fail(pos, "%s: takes %d arguments, got %d", d.Name, len(d.Params), len(args))
	}
	out, shapes, gr, gc, bc, ok := b.elementwise(ops)
	if !ok {
		return nil, b.fail(pos, "%s: shapes of %s do not broadcast", d.Name, describeShapes(d, shapes))
	}
	na, m := len(args), out.Len()
	shape := Scalar()
	if op == OpLogPDF {
		shape = out
	}
	dd := d
	n := &node{op: op, args: ops, shape: shape, pos: pos, gr: gr, gc: gc, bc: bc,
		dist: &dd, i0: m, nscr: 2*na + m + m*na}
	if h := d.Hoisted; h != nil && hoistedScalar(h.HoistArgs(), bc, na) {
		n.hoist = h
		n.nscr += h.StateLen()
	}
	// A family with a Hoisted kernel evaluates its DataHoisted from the
	// hoisted state, so it takes both or neither.
	if dh := d.DataHoisted; dh != nil && (d.Hoisted == nil || n.hoist != nil) && b.fixedData(ops, dh.DataArgs()) {
		n.dhoist = dh
		n.nscr += dataRunScratch(op, dh, na, m)
	}
	return n, 0
}

// fixedData reports whether the value ops[0] and the arguments ops[1+a]
// whose bits are set in mask are data that no evaluation changes (they
// depend on no input and read no subsampled data: a minibatch's states
// would be prepared anew for each batch, which a step evaluates about
// once) while another argument depends on an input. A density of data
// alone is evaluated once, by Finish, before the data states are prepared.
func (b *Builder) fixedData(ops []int32, mask uint) bool {
	dyn := false
	for a, o := range ops {
		n := &b.nodes[o]
		dyn = dyn || n.dyn
		if a > 0 && mask&(1<<(a-1)) == 0 {
			continue
		}
		if n.dyn || n.sub {
			return false
		}
	}
	return dyn
}

// hoistedScalar reports whether every argument whose bit is set in mask
// is one value for all elements (zero row and column strides in bc).
func hoistedScalar(mask uint, bc []int, na int) bool {
	for a := range na {
		if mask&(1<<a) != 0 && (bc[3+3*a+1] != 0 || bc[3+3*a+2] != 0) {
			return false
		}
	}
	return true
}

// elementwise lays out operands that are read element by element with
// broadcasting (densities, draws): their shapes, the broadcast shape, the
// iteration geometry gr × gc and, per operand, its offset and its row and
// column strides (bc, three ints each).
func (b *Builder) elementwise(ops []int32) (out Shape, shapes []Shape, gr, gc int, bc []int, ok bool) {
	shapes = make([]Shape, len(ops))
	for i, a := range ops {
		shapes[i] = b.shapeOf(a)
	}
	if out, ok = broadcast(shapes...); !ok {
		return out, shapes, 0, 0, nil, false
	}
	gr, gc, st := geometry(out, shapes)
	bc = make([]int, 0, 3*len(ops))
	for i, a := range ops {
		bc = append(bc, b.nodes[a].off, st[2*i], st[2*i+1])
	}
	return out, shapes, gr, gc, bc, true
}

func describeShapes(d dist.Univariate, shapes []Shape) string {
	s := fmt.Sprintf("value %s", shapes[0])
	for i, sh := range shapes[1:] {
		s += fmt.Sprintf(", %s %s", paramName(&d, i), sh)
	}
	return s
}

// paramName names argument i of a distribution.
func paramName(d *dist.Univariate, i int) string {
	if i < len(d.Params) && d.Params[i].Name != "" {
		return d.Params[i].Name
	}
	return fmt.Sprintf("argument %d", i+1)
}

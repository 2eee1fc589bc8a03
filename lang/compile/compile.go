// Package compile turns a checked model and its bound data into an autodiff
// program that returns the log joint density and its gradient.
//
// Place in the pipeline: lang/parser → lang/ast → lang/check → lang/compile
// → lang/autodiff → infer/sgvb. The compiler walks the statements once,
// unrolling for loops (their bounds are data) and lowering only the branch
// of an if whose condition (data too) holds, and emits tape nodes; every
// node keeps the position of the expression that built it. Data-only
// subexpressions (GPFA's Y'Y, EPM's index vectors) are constant nodes that
// the tape evaluates once, in Finish, never per call.
//
// Coordinates. The program's input vector holds each latent in the
// coordinates the SGVB engine works in (infer/sgvb): a real latent as its
// value z, a positive latent as log z, a unit latent as logit z, a simplex
// latent as log z per component, an ordered latent x as x_0 and then the
// logs of its increments x_k − x_{k−1}, a positive_ordered one as log x_0
// and the logs of its increments. The density is that of z: no Jacobian is
// added, so the gradient with respect to log z is z·∂/∂z. The exception is
// a cholesky_factor_corr[K] latent L, whose normal factor is on its
// K(K−1)/2 unconstrained coordinates y (dist.CholCorrValues): the log
// Jacobian of y → L is added, and the density is that of y; and so for a
// corr_matrix[K] latent Ω = L L' of the same coordinates
// (dist.CorrMatrixValues), with the log Jacobian of y → Ω, and for a
// cholesky_factor_cov[K] latent of K(K+1)/2 coordinates
// (dist.CholCovValues), with that of y → L, Σ y_ii, and for a
// cov_matrix[K] latent Σ = L L' of them (dist.CovMatrixValues). A
// sum_to_zero_vector[K] latent's normal factor is on its K−1 isometric
// coordinates y (dist.SumToZeroValues), whose map has constant Jacobian:
// nothing is added; and so a sum_to_zero_matrix[M, N] latent's on its
// (M−1)×(N−1) coordinates (dist.SumToZeroMatrixValues).
package compile

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/internal/par"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
)

// Latent is one latent variable's slice of the coordinate vector.
type Latent struct {
	Name         string
	Pos          ast.Pos
	Offset, Size int
	Shape        []int        // nil for a scalar
	Support      dist.Support // Real, Positive, Unit, Simplex, Ordered, PositiveOrdered, CholCorr, CorrMatrix, CholCov, CovMatrix, SumToZero or SumToZeroMatrix
	Family       string       // the variational family the checker chose
	// Value is the shape of the param's values where it is not Shape, the
	// shape of its coordinates: a cholesky_factor_corr[K] latent has Size
	// K(K−1)/2 coordinates (Shape [K(K−1)/2]) and a K×K value (Value
	// [K, K], dist.CholCorrValues), and so has a corr_matrix[K] latent
	// (dist.CorrMatrixValues), and a cholesky_factor_cov[K] latent of
	// K(K+1)/2 coordinates (dist.CholCovValues), and so has a
	// cov_matrix[K] latent (dist.CovMatrixValues), and a
	// sum_to_zero_vector[K] latent has K−1 coordinates and a value [K]
	// (dist.SumToZeroValues), a sum_to_zero_matrix[M, N] latent
	// (M−1)×(N−1) coordinates (Shape [M−1, N−1]) and a value [M, N]
	// (dist.SumToZeroMatrixValues). nil for every other latent.
	Value []int
	// Init is the prior mean per element when the prior's arguments are
	// constants (priorMean: literals and consts, scalars or vectors and
	// matrices broadcast to the shape; a starting point for the fit), else
	// nil; NaN for an element with no usable mean; for a bounded param,
	// mapped to Support.
	Init []float64
	// Loc and Scale (when Scale is not 0): a bounded param, whose value is
	// Loc + Scale·b for the value b on Support (check.Latent.Affine). The
	// coordinates are b's.
	Loc, Scale float64
	// LocV and ScaleV, for a param with a bound per element (real<lower=c>
	// [M] with c data), are Loc and Scale per element (row-major): element
	// i is LocV[i] + ScaleV[i]·b_i. Loc and Scale are then 0; both are nil
	// for every other latent.
	LocV, ScaleV []float64
}

// Bounded reports whether the latent is a bounded param, its value an
// affine map of b on Support (Loc, Scale or LocV, ScaleV).
func (l *Latent) Bounded() bool { return l.Scale != 0 || l.ScaleV != nil }

// AffineAt returns loc and scale of element i: the value is loc + scale·b
// (scale 0: the value is b).
func (l *Latent) AffineAt(i int) (loc, scale float64) {
	if l.ScaleV != nil {
		return l.LocV[i], l.ScaleV[i]
	}
	return l.Loc, l.Scale
}

// Output is a derived quantity evaluated on draws.
type Output struct {
	Name  string
	Pos   ast.Pos
	Shape []int
}

// Model is a compiled model. It is not safe for concurrent use; Clone gives
// an independent copy for another goroutine.
type Model struct {
	Latents []Latent
	Outputs []Output
	Dim     int
	// Warnings, in predict mode, name the left-out observed data not
	// drawn because the new data leave out an input that its ~ reads
	// (CompilePredictOptions).
	Warnings []string
	// Drawn, in predict mode, says which left-out data are drawn as
	// outputs, and Notes why any other left-out data that the model
	// observes is not (CompilePredict); Notes also names each loop that
	// is unrolled because a let used as an index is no row index
	// (vecScan.stop).
	Drawn, Notes []string

	file *ast.File
	info *check.Info
	data map[string]*data.Array
	prog *autodiff.Program
	// dataNodes are the nodes of data-only expressions in prog.
	dataNodes []autodiff.ID
	// predict, when not nil, makes every build a predict-mode one
	// (CompilePredict).
	predict *predictPlan
	// batch, when not nil, makes every build a minibatch one (Minibatch).
	batch *batchPlan
	// priorArgN is, after a buildPrior build, the number of prior
	// arguments it kept of each latent (in order, before the ~'s).
	priorArgN []int
	// track and missRead: the first build's record of which missing
	// cells the statements read (skipmissing.go); skipped the cells that
	// none reads, which fit no latent (Skipped).
	track    map[string]bool
	missRead map[string][]bool
	skipped  map[string][]int
	// leftOut are the missing cells of int data left out of the
	// likelihood (leftout.go), 0 in data.
	leftOut map[string][]int
	// noLeaf, after the first build, names the data of leftOut whose
	// missing cells are no leaves after all, with why: a ~ observes one
	// twice, or none observes one (a NONMEM dose row's DV, read by no
	// statement that runs) (lowerer.leafOutput).
	noLeaf map[string]string
	// leafUndrawn names the data of leftOut (drawsLeaf) whose cells are
	// not drawn as the output NAME_missing (LeafUndrawn).
	leafUndrawn map[string]bool
	// perRow keeps every ~ on data a density per row in the log joint, as
	// the other builds have it: no sufficient statistics (suffstats.go).
	perRow bool
	// suffAt are the distribution calls of the ~ statements that the
	// last build of the log joint (an evaluator's: its own) lowered so.
	suffAt []ast.Pos
	// rows is the log joint built per row, made the first time an
	// evaluation fails in a ~ lowered by groups, for its message
	// (rowsError), with rowsGrad its gradient's buffer; nil until then,
	// and in a clone.
	rows     *autodiff.Program
	rowsGrad []float64
}

// Compile compiles a checked file with its bound data (from data.Bind).
func Compile(f *ast.File, info *check.Info, bound map[string]*data.Array) (*Model, error) {
	info, err := imputing(f, info, bound)
	if err != nil {
		return nil, err
	}
	if err := checkDataBounds(info, bound); err != nil {
		return nil, err
	}
	left := leftOutCells(info, bound)
	var (
		filled  map[string]*data.Array
		m       *Model
		prog    *autodiff.Program
		demoted map[string]string
		notes   []string
	)
	for {
		filled = withLeftOut(info, bound, left) // check.DataVar.Fill in the cells left out
		m = &Model{file: f, info: info, data: filled, leftOut: left}
		m.track = m.skippable()
		if prog, _, err = m.build(buildJoint); err != nil {
			return nil, err
		}
		if demoted != nil || m.noLeaf == nil {
			break
		}
		// a missing cell observed twice, or by no ~, is no leaf: built
		// again with the cells fitted (or skipped, where unread) as
		// before; the build's own notes come again from that build
		demoted = m.noLeaf
		for _, name := range slices.Sorted(maps.Keys(demoted)) {
			delete(left, name)
			if why := demoted[name]; why != "" {
				notes = append(notes, fmt.Sprintf("%s: %s, so they are fitted as the latent %s%s, not summed out", name, why, name, MissingSuffix))
			}
		}
	}
	if skip := unread(bound, m.missRead); skip != nil {
		// Missing cells that no statement reads fit no latent: the
		// model is built again with numbers in their places
		// (skipmissing.go).
		m = &Model{file: f, info: info, data: data.WithoutMissingCells(filled, skip), skipped: skip, leftOut: left}
		if prog, _, err = m.build(buildJoint); err != nil {
			return nil, err
		}
	}
	m.track, m.missRead = nil, nil
	m.prog, m.noLeaf, m.Notes = prog, demoted, append(notes, m.Notes...)
	return m, nil
}

// LeafUndrawn names the data whose missing cells are left out (real
// leaves summed out, int data) yet not drawn as the output NAME_missing (a note says why: the
// model declares that name, or its ~ cannot be drawn), so that
// data.LeftOutNotes does not say they are.
func (m *Model) LeafUndrawn() map[string]bool { return m.leafUndrawn }

// NotLeaves names the data whose missing cells check found to be leaves
// (check.DataVar.LeavesOut) but whose ~ observes one twice, or none
// observes one: they are fitted (or skipped, where unread) as before, and
// data.MissingNotes and LeftOutNotes are told so.
func (m *Model) NotLeaves() map[string]bool {
	if len(m.noLeaf) == 0 {
		return nil
	}
	out := make(map[string]bool, len(m.noLeaf))
	for name := range m.noLeaf {
		out[name] = true
	}
	return out
}

// LogJoint returns the log joint density at coordinates x and writes its
// gradient into grad. A NaN, an infinity or a failed factorisation is an
// *ast.Error at the model position of the node that produced it; in a ~
// lowered by groups, the error of the per-row form at x (rowsError).
func (m *Model) LogJoint(x, grad []float64) (float64, error) {
	v, err := m.prog.LogJoint(x, grad)
	if err != nil && m.suffAt != nil {
		err = m.rowsError(x, err, true)
	}
	return v, err
}

// LogJointValue returns LogJoint's value at x, bit for bit, with the
// error of the value, and computes no gradient (autodiff's ForwardJoint):
// for the estimates after a fit, which need only values.
func (m *Model) LogJointValue(x []float64) (float64, error) {
	v, err := m.prog.ForwardJoint(x)
	if err != nil && m.suffAt != nil {
		err = m.rowsError(x, err, false)
	}
	return v, err
}

// SetTeam lends the model's larger matrix products the goroutines of t
// (nil: none); see autodiff.Program.SetTeam. Clones do not inherit it.
func (m *Model) SetTeam(t par.Team) { m.prog.SetTeam(t) }

// SetStop makes a long op of the log joint (an ODE solve) fail as
// interrupted once stop reads true (nil: never); see
// autodiff.Program.SetStop. Clones do not inherit it.
func (m *Model) SetStop(stop *atomic.Bool) { m.prog.SetStop(stop) }

// Profile times n evaluations of LogJoint at x statement by statement
// (autodiff.Program.Profile): each top-level statement's nodes, a loop's
// body, an inlined function's and a param's transform and prior among them,
// count at the statement; the zero Pos is the sum of their terms.
func (m *Model) Profile(x []float64, n int) (*autodiff.Profile, error) {
	return m.prog.Profile(x, n)
}

// StmtAt returns the top-level statement of the model at pos, or nil.
func (m *Model) StmtAt(pos ast.Pos) ast.Stmt {
	for _, s := range m.file.Stmts {
		if s.Pos() == pos {
			return s
		}
	}
	return nil
}

// Clone returns an independent copy of the model with its own buffers.
func (m *Model) Clone() *Model {
	c := *m
	c.prog = m.prog.Clone()
	c.rows, c.rowsGrad = nil, nil // built again on demand: not shared between goroutines
	return &c
}

// LatentOf names coordinate i, e.g. "W[2, 1]", for messages.
func (m *Model) LatentOf(i int) string {
	for _, l := range m.Latents {
		if i < l.Offset || i >= l.Offset+l.Size {
			continue
		}
		k := i - l.Offset
		switch len(l.Shape) {
		case 0:
			return l.Name
		case 1:
			return fmt.Sprintf("%s[%d]", l.Name, k)
		}
		return fmt.Sprintf("%s[%d, %d]", l.Name, k/l.Shape[1], k%l.Shape[1])
	}
	return fmt.Sprintf("x[%d]", i)
}

// Evaluator computes the log joint and the output quantities at given
// coordinates, for writing draws. Predictive outputs (output y ~ D(args))
// draw from the stream given to SetRand, and are NaN without one.
type Evaluator struct {
	prog    *autodiff.Program
	ids     []autodiff.ID
	watched []watchPiece // the ~ statements Observed reports
	// m, a shallow copy of the model with its own suffAt and per-row
	// build, names the row of an error in a ~ lowered by groups
	// (rowsError).
	m *Model
}

// NewEvaluator builds a program that also keeps the outputs.
func (m *Model) NewEvaluator() (*Evaluator, error) {
	c := *m // its suffAt the evaluator's own
	c.rows, c.rowsGrad = nil, nil
	prog, ids, watched, err := c.buildWatch(buildOutputs)
	if err != nil {
		return nil, err
	}
	return &Evaluator{prog: prog, ids: ids, watched: watched, m: &c}, nil
}

// Eval returns log p at x and the outputs' values (row-major, in the order
// of Model.Outputs); the slices are reused by the next call. An error is
// the log joint's (NaN, ±Inf, a failed op; in a ~ lowered by groups, the
// per-row form's, as Model.LogJoint's); the outputs are still computed,
// NaN only where they read the part that failed. An output that is not
// finite does not stop Eval either: its values are returned as they are
// (NaN where an op failed) and OutputErr explains the first.
func (e *Evaluator) Eval(x []float64) (float64, [][]float64, error) {
	lp, err := e.prog.ForwardAll(x)
	if err != nil && e.m.suffAt != nil {
		err = e.m.rowsError(x, err, false)
	}
	vals := make([][]float64, len(e.ids))
	for i, id := range e.ids {
		vals[i] = e.prog.Value(id)
	}
	return lp, vals, err
}

// SetRand sets the stream the predictive outputs draw from.
func (e *Evaluator) SetRand(rng *rand.Rand) { e.prog.SetRand(rng) }

// SetDrawRand sets the stream that predict mode's draws of left-out data
// come from (CompilePredict), apart from the outputs' replicates so that
// drawing the data changes no output.
func (e *Evaluator) SetDrawRand(rng *rand.Rand) { e.prog.SetAltRand(rng) }

// OutputErr returns, after Eval, an *ast.Error at the first expression
// that an output reads and that is not finite, or nil; nil too where every
// output's value is finite and what was not was ±Inf, never NaN: a −Inf
// that a later node takes in (log(ps) under rowlogsumexp) spoils no
// output, and a trial's HMM read "4 of 4000 draws had an output that is
// not finite" beside a draws.csv all finite. A NaN an output hides
// (log(mu) < 0 at mu < 0) is still explained.
func (e *Evaluator) OutputErr() error {
	err := e.prog.OutputErr()
	if err == nil || e.prog.OutputNaN() {
		return err
	}
	for _, id := range e.ids {
		for _, v := range e.prog.Value(id) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return err
			}
		}
	}
	return nil
}

// buildMode says what a build's program computes.
type buildMode int

const (
	buildJoint   buildMode = iota // the log joint
	buildOutputs                  // the log joint, keeping the outputs
	buildPrior                    // the log prior, keeping the priors' arguments (prior.go)
	buildSplit                    // the log prior and the log likelihood, both kept (split.go)
)

// build lowers the model onto a new tape. It returns the kept nodes: the
// outputs' (buildOutputs), or the priors' arguments in the order of
// priorArgs (buildPrior), then those of the ~ statements priorTildes
// (whose values the prior draws of missing values come from).
func (m *Model) build(mode buildMode, priorTildes ...*ast.TildeStmt) (*autodiff.Program, []autodiff.ID, error) {
	prog, ids, _, err := m.buildWatch(mode, priorTildes...)
	return prog, ids, err
}

// buildWatch is build, also returning in a buildOutputs build the pieces
// of the ~ statements that Evaluator.Observed reports (their nodes kept).
func (m *Model) buildWatch(mode buildMode, priorTildes ...*ast.TildeStmt) (*autodiff.Program, []autodiff.ID, []watchPiece, error) {
	return m.buildSel(mode, Selection{}, priorTildes...)
}

// buildSel is buildWatch with, in a buildSplit build, the terms of the two
// parts narrowed to sel.
func (m *Model) buildSel(mode buildMode, sel Selection, priorTildes ...*ast.TildeStmt) (*autodiff.Program, []autodiff.ID, []watchPiece, error) {
	l := &lowerer{sel: sel, info: m.info, data: m.data, b: autodiff.NewBuilder(), env: map[*check.Symbol]value{}, predict: m.predict, batch: m.batch, skipped: m.skipped, leftOut: m.leftOut}
	if mode == buildJoint || mode == buildOutputs {
		l.suff = m.batch == nil && m.predict == nil && !m.perRow
	}
	if mode == buildJoint {
		l.track = m.track
		l.noteUnrolled = map[*ast.ForStmt]bool{}
	}
	if m.batch != nil {
		l.b.Subsample(m.batch.names)
	}
	if mode == buildPrior {
		l.prior, l.collect = true, true
		l.priorArgs = map[int][]autodiff.ID{}
		l.tildeArgs = map[*ast.TildeStmt][]autodiff.ID{}
	}
	if mode == buildSplit {
		l.part = partJacobian // the terms of latents: the coordinates' log Jacobians
	}
	first := m.Latents == nil
	if m.predict == nil && m.batch == nil {
		l.leafDrawn = m.leafDraws()
	}
	if err := l.latents(); err != nil {
		return nil, nil, nil, err
	}
	l.collect = false
	l.watch = mode == buildOutputs && m.batch == nil
	for _, s := range m.file.Stmts {
		done := l.b.InStmt(s.Pos())
		l.stmt(s)
		done()
	}
	if l.predict != nil || l.leafDrawn != nil {
		l.drawOutputs()
	}
	if len(l.errs) > 0 {
		l.errs.Sort()
		return nil, nil, nil, l.errs
	}
	root := l.total()
	var keep []autodiff.ID
	switch mode {
	case buildSplit:
		// root is the log prior's total; the log likelihood's is made of
		// its own terms, and the program's root is their sum
		l.terms, l.termPos = l.likTerms, l.likPos
		lik := l.total()
		keep = []autodiff.ID{root, lik}
		root = l.b.Add(root, lik, ast.Pos{})
	case buildOutputs:
		keep = watchIDs(slices.Clip(l.outIDs), l.watched)
	case buildPrior:
		m.priorArgN = make([]int, len(l.lats))
		for i := range l.lats {
			keep = append(keep, l.priorArgs[i]...)
			m.priorArgN[i] = len(l.priorArgs[i])
		}
		for _, s := range priorTildes {
			keep = append(keep, l.tildeArgs[s]...)
		}
	}
	prog, err := l.b.Finish(root, keep...)
	if err != nil {
		return nil, nil, nil, err
	}
	if first {
		m.Latents, m.Dim, m.Outputs = l.lats, l.dim, l.outs
		m.dataNodes = l.dataNodes
		m.Drawn, m.Notes = l.drawnNotes, append(m.Notes, l.undrawnNotes...)
		m.Notes = append(m.Notes, l.notes...)
		m.noLeaf = l.noLeaf
		for d := range l.undrawnAt {
			if m.leftOut[d.Name] != nil && drawsLeaf(d) {
				if m.leafUndrawn == nil {
					m.leafUndrawn = map[string]bool{}
				}
				m.leafUndrawn[d.Name] = true
			}
		}
	}
	if mode == buildJoint || mode == buildOutputs {
		m.suffAt = l.suffAt
	}
	for sym, read := range l.missRead {
		if m.missRead == nil {
			m.missRead = map[string][]bool{}
		}
		m.missRead[sym.Name] = read
	}
	if mode == buildPrior || mode == buildSplit {
		return prog, keep, nil, nil
	}
	return prog, l.outIDs, l.watched, nil
}

// value is a lowered expression: a tape node, and for int data-only values
// also the integers themselves (for indexing, loop bounds and sizes).
type value struct {
	id    autodiff.ID
	node  bool // id is valid
	ints  []int
	shape []int // of ints
	isInt bool  // ints are valid
	// at locates int k in the data file it came from, or in a vector
	// literal at its element (nil: neither), so that a bad index is
	// reported at its cell or element.
	at func(k int) ast.Pos
	// atExpr, where at locates the cells of data that the ints were
	// computed from elementwise (site + 1, -site), is that expression, so
	// that an error at a cell names what its value is ("" for ints read
	// unchanged).
	atExpr string
	// cells, where the ints were computed from two operands' cells row
	// by row (operandCells), names both operands' values and cells at
	// int k; nil otherwise.
	cells func(k int) string
	// data names the data ints (at their cells) are read from, unchanged
	// ("" otherwise), so that their node reports a bad value at its cell.
	data string
	// rows, in a minibatch build, gives for int k of subsampled int data
	// (data, unchanged or picked) its offset in the batch's values, so
	// that an index made of them follows the batch (GatherSub); nil
	// otherwise.
	rows []int
}

type lowerer struct {
	info *check.Info
	data map[string]*data.Array
	b    *autodiff.Builder
	env  map[*check.Symbol]value
	// early holds the lets of the data alone lowered before their
	// statement, as a param's size (ident): their statement is not
	// lowered again; sizing those being lowered so (a cycle's guard)
	early, sizing map[*check.Symbol]bool
	// vec is the loop being lowered as vector operations, or nil (vecFor).
	vec *vecLoop
	// truncPair, while the truncated ~ of data whose distribution is
	// truncCall is lowered, collects its family's log density and its
	// truncation's normaliser per element instead of adding their sums,
	// so that addTruncPair adds each element's two together first
	// (truncdata.go).
	truncPair *truncTerms
	truncCall *ast.CallExpr
	// loops are the variables of the loops being lowered, outer first,
	// and loopAt the outermost loop's position (iterAt).
	loops  []*check.Symbol
	loopAt ast.Pos
	// watch, in an evaluator's build, records in watched the ~ statements
	// on data, and the logpdf calls of a target += on data (inTarget),
	// that Evaluator.Observed reports (watchTilde, watchLogPDF).
	watch    bool
	inTarget bool
	// outputName is the output statement being lowered ("" outside one),
	// for the errors of its per-draw indices (indexat.go).
	outputName string
	watched    []watchPiece
	terms      []autodiff.ID
	termPos    []ast.Pos
	errs       ast.ErrorList
	outIDs     []autodiff.ID
	outs       []Output
	dataNodes  []autodiff.ID

	lats []Latent
	dim  int
	// coords[i] is latent i's coordinate node (log z for positive).
	coords []autodiff.ID
	// unrolled counts loop iterations lowered, to stop at autodiff.MaxNodes
	// (a loop whose body builds no nodes could otherwise run for ever).
	unrolled int
	// failures counts errorf calls, reported or not; at maps the
	// positions reported.
	failures int
	at       map[ast.Pos]bool
	// prior is true in a build of the log prior (buildPrior): add keeps
	// a term only while collect is true, as while a prior is lowered, and
	// priorArgs records each latent's prior's argument nodes by index.
	prior, collect bool
	priorArgs      map[int][]autodiff.ID
	// part, in a split build (buildSplit), says which part of the log
	// joint add gives a term to (split.go): partPrior keeps it in terms,
	// partLikelihood in likTerms (likPos its positions), partJacobian
	// drops it; partJoint in every other build.
	part     int
	likTerms []autodiff.ID
	likPos   []ast.Pos
	sel      Selection // a split build's selection (Model.NewSplit)
	// tildeArgs records, in the same build, the argument nodes of each ~
	// on data, whose missing values are drawn from it (missingSpec).
	tildeArgs map[*ast.TildeStmt][]autodiff.ID
	// predict, when not nil, limits the build to the statements it keeps
	// and adds no term to the log joint (CompilePredict).
	predict *predictPlan
	// drawPieces holds, in predict mode, the draws of the ~ statements on
	// each left-out data declaration (drawTilde); undrawnAt those that
	// cannot be drawn after all (undrawn), and drawnNotes and
	// undrawnNotes the notes for Model.Drawn and Model.Notes.
	drawPieces               map[*check.DataVar][]drawPiece
	undrawnAt                map[*check.DataVar]bool
	drawnNotes, undrawnNotes []string
	// batch, in a minibatch build, says which data are subsampled and how
	// terms that read them are scaled (scaleTerm).
	batch *batchPlan
	// bounded holds, for each latent whose bounds depend on data, the
	// latent with their values in this compilation (check.Latent.WithBounds).
	bounded map[*check.Latent]*check.Latent
	// track names the data whose missing cells' reads Compile's first
	// build records (Model.skippable), missRead has those reads, cell by
	// cell (markRead), and missIdx is the datum being indexed, whose read
	// its index records; skipped are the cells left out (Model.Skipped).
	track    map[string]bool
	missRead map[*check.Symbol][]bool
	missIdx  *ast.Ident
	skipped  map[string][]int
	// leftOut are the missing cells of int data left out of the
	// likelihood (Model.leftOut), and obsMask, while a ~ on such data is
	// lowered, the 0/1 mask of the cells it observes (tildeMask).
	leftOut map[string][]int
	obsMask value
	masks   map[*check.Symbol]value // each datum's whole mask (wholeMask)
	// leafDrawn, outside predict mode, are the real data whose cells are
	// left out, drawn from their ~ statements as outputs (Model.leafDraws)
	leafDrawn []drawnDecl
	noLeaf    map[string]string // data whose missing cells are no leaves, with why (leafOutput)
	// noteUnrolled, in Compile's build, marks the loops noted as unrolled
	// because of a let used as an index (vecScan.stop); notes are the
	// notes (Model.Notes).
	noteUnrolled map[*ast.ForStmt]bool
	notes        []string
	// suff, in the log joint of a fit and its evaluator, lets a ~ on data
	// be lowered as a density of per-group sufficient statistics
	// (suffstats.go).
	suff   bool
	suffAt []ast.Pos // the calls so lowered
	// suffSlot is the row-to-group map of the last ~ so lowered, for
	// watchTilde: its argument's node has one element per group.
	suffSlot []int
}

// latent returns lat as this compilation sees it: with the values of
// bounds that depend on data, if it has any.
func (l *lowerer) latent(lat *check.Latent) *check.Latent {
	if b, ok := l.bounded[lat]; ok {
		return b
	}
	return lat
}

// dataBounds evaluates the bounds of lat that depend on data (real<lower=
// max(y)>) and checks them as the checker checks constant ones: finite,
// the lower below the upper, their difference a double. It returns lat with
// their values.
func (l *lowerer) dataBounds(lat *check.Latent, shape []int) (*check.Latent, error) {
	if !lat.DataBounds() {
		return lat, nil
	}
	if lat.ElemBounds {
		return l.elemBounds(lat, shape)
	}
	eval := func(e ast.Expr, which string) (*float64, error) {
		if e == nil {
			return nil, nil
		}
		v, _, ok := l.knownExpr(e)
		switch {
		case len(l.errs) > 0:
			return nil, l.errs
		case !ok || len(v) != 1:
			return nil, ast.Errorf(e.Pos(), "compile: the %s bound of `%s` is not known before the fit", which, lat.Name)
		case math.IsNaN(v[0]) || math.IsInf(v[0], 0):
			return nil, ast.Errorf(e.Pos(), "the %s bound `%s` of `%s` is %g: a param's bound must be finite", which, ast.FormatExpr(e), lat.Name, v[0])
		}
		return &v[0], nil
	}
	lo, err := eval(lat.LowerData, "lower")
	if err != nil {
		return nil, err
	}
	hi, err := eval(lat.UpperData, "upper")
	if err != nil {
		return nil, err
	}
	r := lat.WithBounds(lo, hi)
	if r.Lower != nil && r.Upper != nil {
		if err := boundPairErr(lat, *r.Lower, *r.Upper, ""); err != nil {
			return nil, err
		}
	}
	return l.keepBounded(lat, r), nil
}

// keepBounded records r as lat in this compilation (latent) and returns it.
func (l *lowerer) keepBounded(lat, r *check.Latent) *check.Latent {
	if l.bounded == nil {
		l.bounded = map[*check.Latent]*check.Latent{}
	}
	l.bounded[lat] = r
	return r
}

// boundPairErr checks one pair of a param's bound values with the data, as
// the checker checks constant ones: the lower below the upper, their
// difference a double. where names the element of a bound per element
// (" at element [1]"), or is empty.
func boundPairErr(lat *check.Latent, lo, hi float64, where string) error {
	t := lat.Decl.Type
	at := t.Upper
	if lat.UpperData == nil {
		at = t.Lower
	}
	there := ""
	if where != "" {
		there = " there"
	}
	switch {
	case !(lo < hi):
		return ast.Errorf(at.Pos(), "the upper bound of `%s` is not above its lower bound%s: `%s` is %g%s and `%s` is %g (with this data)",
			lat.Name, where, ast.FormatExpr(t.Upper), hi, there, ast.FormatExpr(t.Lower), lo)
	case math.IsInf(hi-lo, 0):
		return ast.Errorf(at.Pos(), "the bounds %g and %g of `%s`%s are too far apart: upper − lower overflows a double", lo, hi, lat.Name, where)
	}
	return nil
}

// failed counts the errors so far, reported or not, of the lowerer and
// its builder: a caller compares two counts to learn whether a step failed.
func (l *lowerer) failed() int { return l.failures + l.b.Fails() }

// errorf records an error at pos: the first at that position only (a loop
// body's error comes once, not per iteration), and up to ast.MaxErrors, then
// one saying the rest was not reported.
func (l *lowerer) errorf(pos ast.Pos, format string, args ...any) {
	l.rowErrorf(0, pos, format, args...)
}

// rowErrorf is errorf for an error in a loop found at row k of the rows a
// loop lowered as vectors lowers now (0 when it is not about one row): the
// message names the loop's iteration (iterText), as a fit-time error does.
func (l *lowerer) rowErrorf(k int, pos ast.Pos, format string, args ...any) {
	l.rowError(k, pos, fmt.Sprintf(format, args...)+l.iterText(k))
}

// rowError is rowErrorf for a message that names the iteration itself
// (iterText) where it reads best.
func (l *lowerer) rowError(k int, pos ast.Pos, msg string) {
	l.failures++
	if l.vec != nil {
		// held until the loop ends (vecFor), which keeps the first
		// failing iteration's, as the unrolled loop stops after it
		it := 0
		if v, ok := l.env[l.vec.sym]; ok && v.isInt && len(v.ints) > 0 {
			it = v.ints[min(k, len(v.ints)-1)]
		}
		l.vec.errs = append(l.vec.errs, rowErr{it: it, pos: pos, msg: msg})
		return
	}
	l.report(pos, "%s", msg)
}

// report adds the error at pos once (the first at a position), up to
// ast.MaxErrors of them.
func (l *lowerer) report(pos ast.Pos, format string, args ...any) {
	if l.at[pos] || len(l.errs) > ast.MaxErrors {
		return
	}
	if l.at == nil {
		l.at = map[ast.Pos]bool{}
	}
	l.at[pos] = true
	if len(l.errs) == ast.MaxErrors {
		l.errs.Add(pos, "too many errors; the rest are not reported")
		return
	}
	l.errs.Add(pos, format, args...)
}

// iterText names the loop iteration of row k of the current rows, " at i
// = 7, j = 0", from the loop variables' values: one each in an unrolled
// loop, one per row in a loop lowered as vectors; "" outside loops and in
// a batch build's loop over the rows, whose rows are the batch's.
func (l *lowerer) iterText(k int) string {
	if len(l.loops) == 0 || l.batch != nil && l.batch.rowLoop > 0 {
		return ""
	}
	var b strings.Builder
	for _, sym := range l.loops {
		v, ok := l.env[sym]
		if !ok || !v.isInt || len(v.ints) == 0 {
			continue
		}
		if b.Len() == 0 {
			b.WriteString(" at ")
		} else {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s = %d", sym.Name, v.ints[min(k, len(v.ints)-1)])
	}
	return b.String()
}

// total returns the sum of the log density terms.
func (l *lowerer) total() autodiff.ID {
	if len(l.terms) == 0 {
		return l.b.Scalar(0, ast.Pos{})
	}
	t := l.terms[0]
	for i, x := range l.terms[1:] {
		t = l.b.Add(t, x, l.termPos[i+1])
	}
	return t
}

// latents lays out the coordinate vector and creates each latent's value:
// the params in declaration order, then the missing values of data
// (missing).
func (l *lowerer) latents() error {
	for _, lat := range l.info.Latents {
		shape, err := l.dims(lat.Decl.Type.Dims)
		if err != nil {
			return err
		}
		if lat, err = l.dataBounds(lat, shape); err != nil {
			return err
		}
		if err := l.addLatent(lat, shape); err != nil {
			return err
		}
	}
	return l.missing()
}

// addLatent lays out latent lat of the given shape after the ones before
// it, and creates its value.
func (l *lowerer) addLatent(lat *check.Latent, shape []int) error {
	size := 1
	for _, n := range shape {
		if n > 0 && size > autodiff.MaxElements/n {
			return ast.Errorf(lat.Pos, "`%s` would have %s elements, more than a model can store (%d numbers, %d GiB)",
				lat.Name, dimsText(shape), autodiff.MaxElements, autodiff.MaxElements>>27)
		}
		size *= n
	}
	var valShape []int
	if lat.Support.IsMatrix() {
		// K(K−1)/2 coordinates for a K×K value (K(K+1)/2 for a
		// cholesky_factor_cov)
		least := 2
		if lat.Support.IsCov() {
			least = 1
		}
		if len(shape) != 1 || shape[0] < least {
			return ast.Errorf(lat.Pos, "`%s`: %s[K] needs K ≥ %d (it is %s with this data)", lat.Name, lat.Support, least, dimsText(shape))
		}
		valShape = []int{shape[0], shape[0]}
		size = lat.Support.MatrixSize(shape[0])
		shape = []int{size}
	}
	if lat.Support == dist.SumToZero {
		// K−1 coordinates for a zero-sum vector of K
		if len(shape) != 1 {
			return ast.Errorf(lat.Pos, "`%s`: a sum_to_zero_vector param is a vector", lat.Name)
		}
		if shape[0] < 2 {
			d := lat.Decl.Type.Dims[0]
			return ast.Errorf(d.Pos(), "%s", check.SumToZeroTooShort(ast.SumToZero, ast.FormatExpr(d), shape[0]))
		}
		valShape = []int{shape[0]}
		size = shape[0] - 1
		shape = []int{size}
	}
	if lat.Support == dist.SumToZeroMatrix {
		// (M−1)×(N−1) coordinates for a matrix M×N
		if len(shape) != 2 {
			return ast.Errorf(lat.Pos, "`%s`: a sum_to_zero_matrix param is a matrix", lat.Name)
		}
		for i, n := range shape {
			if n < 2 {
				d := lat.Decl.Type.Dims[i]
				return ast.Errorf(d.Pos(), "%s", check.SumToZeroTooShort(ast.SumToZeroMatrix, ast.FormatExpr(d), n))
			}
		}
		valShape = []int{shape[0], shape[1]}
		shape = []int{shape[0] - 1, shape[1] - 1}
		size = shape[0] * shape[1]
	}
	if size == 0 {
		return ast.Errorf(lat.Pos, "`%s` would have %s elements: a param needs at least one", lat.Name, dimsText(shape))
	}
	if n := len(shape); lat.Support == dist.Simplex && n > 0 && shape[n-1] < 2 {
		d := lat.Decl.Type.Dims[n-1]
		return ast.Errorf(d.Pos(), "%s", check.SimplexTooShort(ast.FormatExpr(d), shape[n-1]))
	}
	s := autodiff.Scalar()
	switch len(shape) {
	case 1:
		s = autodiff.Vector(shape[0])
	case 2:
		s = autodiff.Matrix(shape[0], shape[1])
	}
	pos := lat.Pos
	if lat.Decl != nil { // its transform counts at the declaration, as its prior does
		defer l.b.InStmt(lat.Decl.Pos())()
	}
	coord := l.b.Input(lat.Name, s, pos)
	var z autodiff.ID
	switch lat.Support {
	case dist.Positive:
		// + the least normal: a draw with log z below −745 would make z
		// exactly 0, and a density that takes z as a parameter
		// (W ~ Gamma(g * r', g)) invalid; floored, every z > 0 is a
		// valid parameter and z itself is unchanged above 1e-292. The
		// latent's own prior reads the coordinate, not z.
		z = l.b.Add(l.b.ExpParam(coord, lat.Name, pos), l.b.Scalar(minPositive, pos), pos)
	case dist.Simplex:
		z = l.b.Exp(coord, pos)
	case dist.Ordered:
		// x_0 from its normal factor's coordinate, x_k = x_{k−1} + d_k
		// from the increments' log coordinates: a linear map of
		// (x_0, d) with unit Jacobian, so nothing is added.
		if len(shape) != 1 && len(shape) != 2 {
			return ast.Errorf(lat.Pos, "`%s`: an ordered param is a vector or a matrix of such rows", lat.Name)
		}
		z = l.b.Ordered(coord, pos)
	case dist.PositiveOrdered:
		// x_0 = exp(u_0) and x_k = x_{k−1} + exp(u_k), every part from
		// its gamma factor's log coordinate: as for ordered, a linear
		// map of (x_0, d) with unit Jacobian.
		if len(shape) != 1 && len(shape) != 2 {
			return ast.Errorf(lat.Pos, "`%s`: a positive_ordered param is a vector or a matrix of such rows", lat.Name)
		}
		z = l.b.PositiveOrdered(coord, pos)
	case dist.SumToZero:
		// z = V y by the isometric basis: |z| = |y|, a constant
		// Jacobian, so nothing is added and the density is that of y
		z = l.b.SumToZero(coord, pos)
	case dist.SumToZeroMatrix:
		// Z = V_M Y V_N', an isometry as well: nothing is added
		z = l.b.SumToZeroMatrix(coord, pos)
	case dist.CholCorr:
		// L from the coordinates y, and log |dL/dy| so that the log
		// joint is the density of y, on which the factor is normal
		z = l.b.CholCorr(coord, valShape[0], pos)
		l.add(l.b.CholCorrLogJac(coord, valShape[0], pos), pos)
	case dist.CorrMatrix:
		// Ω = L L' from the coordinates y, and log |dΩ/dy| (that of
		// y → L and of L → L L'), the density then that of y
		z = l.b.CorrMatrix(coord, valShape[0], pos)
		l.add(l.b.CorrMatrixLogJac(coord, valShape[0], pos), pos)
	case dist.CholCov:
		// L from the coordinates y (its diagonal exp(y_ii)), and
		// log |dL/dy| = Σ y_ii, the density then that of y
		z = l.b.CholCov(coord, valShape[0], pos)
		l.add(l.b.CholCovLogJac(coord, valShape[0], pos), pos)
	case dist.CovMatrix:
		// Σ = L L' from the coordinates y, and log |dΣ/dy| (that of
		// y → L and of L → L L'), the density then that of y
		z = l.b.CovMatrix(coord, valShape[0], pos)
		l.add(l.b.CovMatrixLogJac(coord, valShape[0], pos), pos)
	case dist.Unit:
		// The exact value is inside (0, 1), the computed one is 1
		// from inv_logit(37) on, where 1 - u is 0; it is kept a
		// float inside, as Stan's transforms do (and a bounded
		// param's, below).
		z = l.b.Inside(l.b.InvLogit(coord, pos), 0, 1, pos)
	default:
		z = coord
	}
	loc, scale := lat.Affine()
	var locV, scaleV []float64
	if lat.LowerV != nil || lat.UpperV != nil {
		z, locV, scaleV = l.elemAffine(lat, z, s, pos)
	}
	if scale != 0 {
		// A bounded param: its value from b on the support, and the
		// log Jacobian |dz/db| per element, a constant, so that the
		// log joint (and the ELBO) is the density of z.
		z = l.b.Add(l.b.Scalar(loc, pos), l.b.Mul(l.b.Scalar(scale, pos), z, pos), pos)
		if jac := float64(size) * math.Log(math.Abs(scale)); jac != 0 {
			l.add(l.b.Scalar(jac, pos), pos)
		}
		// b near 0 or 1 rounds onto a bound (−1 + 2·b is −1 for
		// b < 1e-16), where 1 - phi * phi or sigma - L is 0
		r := lat.Range()
		z = l.b.Inside(z, r.Lo, r.Hi, pos)
	}
	l.coords = append(l.coords, coord)
	l.env[lat.Symbol] = value{id: z, node: true}
	l.lats = append(l.lats, Latent{
		Name: lat.Name, Pos: pos, Offset: l.dim, Size: size, Shape: shape,
		Support: lat.Support, Family: lat.Family, Init: l.priorMean(lat, shape, size),
		Loc: loc, Scale: scale, LocV: locV, ScaleV: scaleV, Value: valShape,
	})
	l.dim += size
	return nil
}

// dimsText writes a shape as "13 × 1000000000".
func dimsText(shape []int) string {
	parts := make([]string, len(shape))
	for i, n := range shape {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, " × ")
}

// minPositive is the least positive normal float64, the floor of a
// positive latent's value.
const minPositive = 0x1p-1022

// dims evaluates declared dimensions.
func (l *lowerer) dims(exprs []ast.Expr) ([]int, error) {
	var shape []int
	for _, e := range exprs {
		v := l.expr(e)
		if len(l.errs) > 0 {
			return nil, l.errs
		}
		if !v.isInt || len(v.ints) != 1 {
			return nil, ast.Errorf(e.Pos(), "dimension is not an int constant")
		}
		if v.ints[0] < 0 {
			return nil, ast.Errorf(e.Pos(), "dimension is %d, must be >= 0", v.ints[0])
		}
		shape = append(shape, v.ints[0])
	}
	return shape, nil
}

// dimsOf is shapeOf's inverse: the dimensions of a tape shape ([] for a
// scalar).
func dimsOf(s autodiff.Shape) []int {
	switch s.Rank {
	case 1:
		return []int{s.Rows}
	case 2:
		return []int{s.Rows, s.Cols}
	}
	return nil
}

func shapeOf(s []int) autodiff.Shape {
	switch len(s) {
	case 0:
		return autodiff.Scalar()
	case 1:
		return autodiff.Vector(s[0])
	}
	return autodiff.Matrix(s[0], s[1])
}

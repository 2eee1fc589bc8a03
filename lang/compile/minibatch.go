package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/internal/par"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
)

// Minibatch SGVB (stochastic variational inference, Hoffman et al. 2013;
// PyMC's pm.Minibatch with total_size, Pyro's subsampled plate). A size N
// of the model is subsampled: every data declaration whose leading
// dimension is N holds, at each evaluation, B rows drawn without
// replacement, and every log-density term (a ~ statement, a param's prior,
// a target +=) whose value reads them is multiplied by N/B. The batch
// model is the model compiled for B rows; its data are rewritten in place
// (autodiff.Program.Refresh evaluates again what was computed from them:
// GPFA's Y'Y, column slices, data means), so a step costs O(B) and
// allocates nothing. The log joint is then an unbiased estimate of the
// full one, and so is its gradient, whatever the batch.

// batchPlan is what a batch build of the lowerer needs.
type batchPlan struct {
	names []string // the subsampled data
	size  string   // N
	scale float64  // N/B
	// fixed is true while a term whose value must not read the batch is
	// lowered: a param's prior, a ~ whose left side reads no batch row.
	fixed   bool
	sizeSym *check.Symbol // N's
	// rowLoop counts the loops over the rows (a bound reads N) being
	// lowered: each of their iterations is a row's, and so is every term
	// added in one.
	rowLoop int
}

// scaleTerm returns a term of a batch build with its parts that read
// subsampled data multiplied by N/B (autodiff.Builder.ScaleSubsampled:
// target += prior + likelihood scales the likelihood only), and the
// whole term when it is added in a loop over the rows, whose iterations
// are the batch's rows; a prior that reads the batch is an error.
func (l *lowerer) scaleTerm(term autodiff.ID, pos ast.Pos) (autodiff.ID, bool) {
	p := l.batch
	if p == nil {
		return term, true
	}
	if p.rowLoop > 0 {
		return l.b.Mul(term, l.b.Scalar(p.scale, pos), pos), true
	}
	if !l.b.Subsampled(term) {
		return term, true
	}
	if p.fixed {
		l.errorf(pos, "--minibatch %s: this density's arguments read the subsampled data (%s) but its value does not: it is a prior, not a term per row, and scaling it by N/B would be wrong; minibatching needs the data only in the terms of the rows", p.size, strings.Join(p.names, ", "))
		return term, false
	}
	return l.b.ScaleSubsampled(term, p.scale, pos), true
}

// rowLoop reports whether s, in a batch build, runs over the rows: a
// bound reads N (the checker allows only 0:N).
func (l *lowerer) rowLoop(s *ast.ForStmt) bool {
	if l.batch == nil {
		return false
	}
	found := false
	for _, e := range []ast.Expr{s.Lo, s.Hi} {
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && l.info.Uses[id] == l.batch.sizeSym {
				found = true
			}
			return !found
		})
	}
	return found
}

// readsBatch reports whether a lowered value reads subsampled data.
func (l *lowerer) readsBatch(v value) bool {
	if l.batch == nil {
		return false
	}
	if v.node {
		return l.b.Subsampled(v.id)
	}
	return v.data != "" && slices.Contains(l.batch.names, v.data)
}

// Batch is a model whose log joint is the minibatch estimate (see the
// comment at the top of this file). It is not safe for concurrent use;
// Clone gives an independent copy.
type Batch struct {
	Size string // the subsampled size name
	N, B int    // its full size and the batch size
	// Data are the subsampled data declarations, in declaration order.
	Data []string

	prog  *autodiff.Program
	src   [][]float64 // per SubData slot: the full data, row-major
	width []int       // per slot: values per row
	pcg   *rand.PCG
	rng   *rand.Rand
	stamp []uint32 // stamp[i] == gen: row i is in the batch being drawn
	gen   uint32
	rows  []int // the batch's rows, increasing
	err   error // of the last Refresh
	// gathers are the program's indices read from subsampled int data
	// (u[g], u[g[i]]): per autodiff.GatherSub slot, the full data.
	gathers []batchGather
}

// batchGather is one autodiff.GatherSub slot: index k is the value at
// offset offs[k] of the batch of the full data src, w values a row.
type batchGather struct {
	src    []float64
	w      int
	offs   []int32
	rows   int // an index must be in [0, rows)
	stride int // index k is cell k·stride + the value (autodiff.GatherSlot)
	name   string
	pos    ast.Pos
}

// Minibatch compiles the batch model of m for the size name size and b
// rows per evaluation (1 ≤ b < N). It refuses, with positioned errors,
// what subsampling would get wrong: params sized by N (per-row local
// latents), data sized by N other than along its first dimension,
// missing values of the subsampled data, the data entering a prior, an
// operation that mixes rows (a sum, mean, transpose or covariance of the
// data outside the top of a target +=, a vector density over N), and data
// the compiler fixes in the tape (an index, a branch, a loop bound).
func (m *Model) Minibatch(size string, b int) (*Batch, error) {
	if m.predict != nil {
		panic("compile: Minibatch of a predict model")
	}
	info := m.info
	var sizeVar *check.DataVar
	var sizes []string
	for _, dv := range info.Data {
		if dv.Elem == check.Int && len(dv.Dims) == 0 && sizesData(info, dv.Name) {
			sizes = append(sizes, dv.Name)
			if dv.Name == size {
				sizeVar = dv
			}
		}
	}
	if sizeVar == nil {
		if len(sizes) == 0 {
			return nil, fmt.Errorf("--minibatch %s: the model has no size name to subsample (a name in a data declaration's dimensions, like N in data y: real[N])", size)
		}
		return nil, fmt.Errorf("--minibatch %s: %s is not a size of the model's data (its sizes: %s)", size, size, strings.Join(sizes, ", "))
	}
	full := m.data[size]
	if full == nil || len(full.Values) != 1 {
		return nil, fmt.Errorf("--minibatch %s: no value bound for %s", size, size)
	}
	n := int(full.Values[0])
	if b < 1 || b >= n {
		return nil, fmt.Errorf("--minibatch %s=%d: the batch size must be from 1 to %d (N − 1)", size, b, n-1)
	}
	var errs ast.ErrorList
	plan := &batchPlan{size: size, scale: float64(n) / float64(b), sizeSym: sizeVar.Symbol}
	bound := make(map[string]*data.Array, len(m.data))
	for k, v := range m.data {
		bound[k] = v
	}
	bsz := *full
	bsz.Values = []float64{float64(b)}
	bound[size] = &bsz
	for _, dv := range info.Data {
		lead := false
		for i, d := range dv.Dims {
			switch {
			case d.Name == size && !d.Derived && i == 0:
				lead = true
			case d.Name == size || d.Derived && mentions(d.Name, size):
				errs.Add(dv.Pos, "--minibatch %s: data %s is sized by %s other than by its rows (dimension %d is %s): only data whose first dimension is %s can be subsampled", size, dv.Name, size, i+1, d.Name, size)
			}
		}
		if !lead {
			continue
		}
		a := m.data[dv.Name]
		if a == nil {
			continue
		}
		if cells := m.leftOut[dv.Name]; cells != nil {
			// a batch's rows would need their own masks: refused
			errs.Add(dv.Pos, "--minibatch %s: %s has %d missing %s, left out of the likelihood, which a minibatch fit does not do: drop the rows or fit the full data", size, dv.Name, len(cells), map[bool]string{true: "value", false: "values"}[len(cells) == 1])
			continue
		}
		if len(a.Missing) > 0 {
			errs.Add(dv.Pos, "--minibatch %s: %s has missing values, which the fit makes latents %s%s, one per missing cell: per-row latents need local updates, which minibatch SGVB does not do; drop the rows or fit the full data", size, dv.Name, dv.Name, MissingSuffix)
			continue
		}
		plan.names = append(plan.names, dv.Name)
		ba := *a
		ba.Shape = slices.Clone(a.Shape)
		ba.Shape[0] = b
		ba.Values = slices.Clone(a.Values[:len(a.Values)/n*b])
		ba.Missing = nil
		bound[dv.Name] = &ba
	}
	if len(plan.names) == 0 && len(errs) == 0 {
		errs.Add(sizeVar.Pos, "--minibatch %s: no data is sized by %s along its rows", size, size)
	}
	checkRows(m.file, info, plan, &errs)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	bm := &Model{file: m.file, info: info, data: bound, batch: plan, leftOut: m.leftOut} // data not subsampled keeps its cells left out
	prog, _, err := bm.build(buildJoint)
	if err != nil {
		return nil, err
	}
	for i, lat := range bm.Latents {
		full := m.Latents[i]
		switch {
		case lat.Size != full.Size:
			errs.Add(lat.Pos, "--minibatch %s: param %s is sized by %s: per-row latents (local variables such as factor scores) need local updates, which minibatch SGVB does not do; marginalise them out (as examples/gpfa.gpp does) or fit the full data", size, lat.Name, size)
		case lat.Loc != full.Loc || lat.Scale != full.Scale || !slices.Equal(lat.LocV, full.LocV) || !slices.Equal(lat.ScaleV, full.ScaleV):
			errs.Add(lat.Pos, "--minibatch %s: the bounds of param %s are computed from the subsampled data: a batch's would differ from the full data's; compute them from data not sized by %s, or fit the full data", size, lat.Name, size)
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	bt := &Batch{Size: size, N: n, B: b, Data: plan.names, prog: prog}
	seen := map[ast.Pos]bool{} // an unrolled loop's copies: one error
	for _, slot := range prog.SubData() {
		a := m.data[slot.Name]
		w := len(a.Values) / n
		if slot.Shape.Len() != b*w || slot.Shape.Rows != b {
			if seen[slot.Pos] {
				continue
			}
			seen[slot.Pos] = true
			errs.Add(slot.Pos, "--minibatch %s: %s is indexed by row here, which fixes its rows when the model compiles: write the model on whole columns (vectorised), or fit the full data", size, slot.Name)
			continue
		}
		bt.src = append(bt.src, a.Values)
		bt.width = append(bt.width, w)
	}
	for _, slot := range prog.SubGathers() {
		a := m.data[slot.Name]
		bt.gathers = append(bt.gathers, batchGather{src: a.Values, w: len(a.Values) / n, offs: slot.Offs, rows: slot.Rows, stride: slot.Stride, name: slot.Name, pos: slot.Pos})
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	bt.init()
	if err := bt.verify(m, bound, plan); err != nil {
		return nil, err
	}
	return bt, nil
}

// DataValues is the number of values in the model's data: a measure,
// fixed for the data, of what one evaluation of its log joint reads.
func (m *Model) DataValues() int {
	n := 0
	for _, a := range m.data {
		n += len(a.Values)
	}
	return n
}

// Size returns the value of the model's size name (or int data scalar)
// name, and whether there is one.
func (m *Model) Size(name string) (int, bool) {
	a := m.data[name]
	if a == nil || len(a.Values) != 1 || len(a.Shape) != 0 {
		return 0, false
	}
	return int(a.Values[0]), true
}

// verify builds the batch model again from a second batch, its last B
// rows, and compares it with the first one refreshed with those rows: any
// difference is data that the build fixed outside the nodes Refresh
// evaluates again (an index or a loop bound read from the data, a branch
// on it), which a minibatch would leave stale.
func (bt *Batch) verify(m *Model, bound map[string]*data.Array, plan *batchPlan) error {
	second := make(map[string]*data.Array, len(bound))
	for k, v := range bound {
		second[k] = v
	}
	for _, name := range plan.names {
		a := *bound[name]
		w := len(m.data[name].Values) / bt.N
		a.Values = slices.Clone(m.data[name].Values[(bt.N-bt.B)*w:])
		second[name] = &a
	}
	prog2, _, err := (&Model{file: m.file, info: m.info, data: second, batch: plan, leftOut: m.leftOut}).build(buildJoint)
	if err != nil {
		return err
	}
	for i := range bt.rows {
		bt.rows[i] = bt.N - bt.B + i
	}
	bt.fill()
	if bt.err != nil {
		return bt.err
	}
	if pos, same := autodiff.FirstDifference(bt.prog, prog2); !same {
		return ast.Errorf(pos, "--minibatch %s: the model's structure depends on the values of the subsampled data here (an index, a loop bound or a condition read from %s): a minibatch cannot change it between steps; write the model on whole columns, or fit the full data", plan.size, strings.Join(plan.names, ", "))
	}
	return nil
}

// init allocates the batch's buffers.
func (bt *Batch) init() {
	bt.pcg = rand.NewPCG(0, 0)
	bt.rng = rand.New(bt.pcg)
	bt.stamp = make([]uint32, bt.N)
	bt.rows = make([]int, bt.B)
	for i := range bt.rows {
		bt.rows[i] = i
	}
}

// SetBatch draws the B rows of the next evaluations from the seed (hi,
// lo), without replacement (Floyd's algorithm, O(B)), writes them into
// the batch model and refreshes what was computed from them. It
// allocates nothing.
func (bt *Batch) SetBatch(hi, lo uint64) {
	bt.pcg.Seed(hi, lo)
	bt.gen++
	if bt.gen == 0 {
		clear(bt.stamp)
		bt.gen = 1
	}
	k := 0
	for j := bt.N - bt.B; j < bt.N; j++ {
		t := bt.rng.IntN(j + 1)
		if bt.stamp[t] == bt.gen {
			t = j
		}
		bt.stamp[t] = bt.gen
		bt.rows[k] = t
		k++
	}
	slices.Sort(bt.rows) // the rows in data order: the copies read memory forwards
	bt.fill()
}

// fill copies the rows into the program and refreshes it.
func (bt *Batch) fill() {
	for k, src := range bt.src {
		dst, w := bt.prog.SubValues(k), bt.width[k]
		for r, i := range bt.rows {
			copy(dst[r*w:(r+1)*w], src[i*w:(i+1)*w])
		}
	}
	for k := range bt.gathers {
		g := &bt.gathers[k]
		idx := bt.prog.SubIndices(k)
		for e, off := range g.offs {
			r, c := int(off)/g.w, int(off)%g.w
			v := int(g.src[bt.rows[r]*g.w+c])
			if v < 0 || v >= g.rows { // the full model's build checked them all
				bt.err = ast.Errorf(g.pos, "--minibatch: %s's row %d holds %d, out of range [0, %d) as an index", g.name, bt.rows[r], v, g.rows)
				return
			}
			idx[e] = e*g.stride + v
		}
	}
	bt.err = bt.prog.Refresh()
}

// Rows returns the rows of the current batch (increasing); the slice is
// reused.
func (bt *Batch) Rows() []int { return bt.rows }

// LogJoint returns the minibatch estimate of the log joint at x and its
// gradient, as Model.LogJoint.
func (bt *Batch) LogJoint(x, grad []float64) (float64, error) {
	if bt.err != nil {
		return math.NaN(), bt.err
	}
	return bt.prog.LogJoint(x, grad)
}

// LogJointValue returns the minibatch estimate of the log joint at x
// without its gradient, as Model.LogJointValue.
func (bt *Batch) LogJointValue(x []float64) (float64, error) {
	if bt.err != nil {
		return math.NaN(), bt.err
	}
	return bt.prog.ForwardJoint(x)
}

// SetTeam lends the batch model's larger products the goroutines of t.
func (bt *Batch) SetTeam(t par.Team) { bt.prog.SetTeam(t) }

// Clone returns an independent copy with its own buffers and stream.
func (bt *Batch) Clone() *Batch {
	c := *bt
	c.prog = bt.prog.Clone()
	c.init()
	copy(c.rows, bt.rows)
	c.fill()
	return &c
}

// sizesData reports whether size is the leading or another dimension of
// some data declaration.
func sizesData(info *check.Info, size string) bool {
	for _, dv := range info.Data {
		for _, d := range dv.Dims {
			if d.Name == size || d.Derived && mentions(d.Name, size) {
				return true
			}
		}
	}
	return false
}

// mentions reports whether the text of a derived size uses name.
func mentions(text, name string) bool {
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if f == name {
			return true
		}
	}
	return false
}

// batchInts is the node of subsampled int data picked by row in a batch
// build (y[i] of int data in a loop over the rows, as the value of a
// Poisson or Bernoulli): a gather from the whole batch's constant, which
// each batch rewrites, not a constant of its own that would fix the
// rows the model compiled with.
func (l *lowerer) batchInts(v value, pos ast.Pos) autodiff.ID {
	a := l.data[v.data]
	whole := l.b.DataConst(v.data, a.Values, shapeOf(a.Shape), pos, a.Locate)
	n := len(a.Values)
	if len(v.rows) == n && len(v.shape) == len(a.Shape) && slices.Equal(v.shape, a.Shape) && isIdentity(v.rows) {
		return whole
	}
	g := l.b.Gather(l.b.Reshape(whole, autodiff.Vector(n), pos), v.rows, pos)
	if len(v.shape) == 0 {
		return l.b.Elem(g, 0, pos)
	}
	return l.b.Reshape(g, shapeOf(v.shape), pos)
}

// isIdentity reports whether rows[k] == k for every k.
func isIdentity(rows []int) bool {
	for k, r := range rows {
		if r != k {
			return false
		}
	}
	return true
}

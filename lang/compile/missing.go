package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

// Missing data (check.DataVar.Missing): the missing cells of data that
// the model only observes are the latent vector NAME_missing, laid out
// after the params, and the data's value is a mixed node: its observed
// cells constants and its missing cells that latent's elements, in their
// places. The ~ statements on the data are then the missing values'
// prior, as with PyMC's masked observations.

// MissingSuffix ends the name of the latent of a data declaration's
// missing values: y's are y_missing (PyMC's name).
const MissingSuffix = "_missing"

// MissingName reports whether name is that of the latent of the missing
// values of data of the model (NAME_missing for data NAME whose missing
// values it fits, check.DataVar.Missing), with or without missing cells
// in this compilation's data.
func (m *Model) MissingName(name string) bool {
	base, ok := strings.CutSuffix(name, MissingSuffix)
	d := m.info.DataVar(base)
	return ok && d != nil && d.Missing != nil
}

// MissingCells returns, for each data declaration whose missing cells the
// model fits as a latent, its shape and the row-major indices of those
// cells (nil: none). PSIS-LOO leaves them out of a log_lik of that shape:
// an imputed value is no observation.
func (m *Model) MissingCells() map[string]MissingCells {
	var out map[string]MissingCells
	for _, d := range m.info.Data {
		a := m.data[d.Name]
		if a == nil || len(a.Missing) == 0 || d.Missing == nil || m.predict != nil { // cells summed out are filled in m.data
			continue
		}
		if out == nil {
			out = map[string]MissingCells{}
		}
		out[d.Name] = MissingCells{Shape: a.Shape, Cells: a.Missing}
	}
	return out
}

// Info returns the checked file the model was lowered from: Compile's
// info, or, when the data have missing cells in covariates whose missing
// values the model fits, that file checked again with them typed as
// changing with the fit (check.Info.Imputing), whose types then say which
// expressions change with the draws.
func (m *Model) Info() *check.Info { return m.info }

// ImputedCells returns the row-major cells of the output out, of that
// shape, that are at missing values the model fits (MissingCells) or
// leaves out of the likelihood (LeftOut), which PSIS-LOO leaves out of a
// log_lik: an imputed value, or a missing count, is no observation.
// Those of a covariate (data read in an expression, check.DataVar.ReadAt)
// are left out only when out reads no other data of its shape that a ~
// observes, a response: a log_lik over y, whose mean reads x, has an
// observation at each y, x imputed or not — also where y is read in an
// expression too (an autoregression's y[t-1], a let, an output).
func (m *Model) ImputedCells(out string, shape []int) map[int]bool {
	cells := map[int]bool{}
	var reads map[string]bool
	for name, mc := range m.MissingCells() {
		if !slices.Equal(mc.Shape, shape) {
			continue
		}
		if d := m.info.DataVar(name); d.ReadAt.IsValid() {
			if reads == nil {
				reads = m.readsData(out)
			}
			if m.readsResponse(reads, name, shape) {
				continue
			}
		}
		for _, c := range mc.Cells {
			cells[c] = true
		}
	}
	for _, mc := range m.LeftOut() { // no observation there either (leftout.go)
		if slices.Equal(mc.Shape, shape) {
			for _, c := range mc.Cells {
				cells[c] = true
			}
		}
	}
	return cells
}

// readsResponse reports whether reads holds data other than name of that
// shape that a ~ observes.
func (m *Model) readsResponse(reads map[string]bool, name string, shape []int) bool {
	for r := range reads {
		d, a := m.info.DataVar(r), m.data[r]
		if r != name && d != nil && a != nil && d.Observed && slices.Equal(a.Shape, shape) {
			return true
		}
	}
	return false
}

// readsData returns the data that the top-level let or output name reads,
// through the lets and outputs it reads.
func (m *Model) readsData(name string) map[string]bool {
	reads := map[string]bool{}
	outs := map[*check.Symbol]bool{} // walked already
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		m.info.VisitReads(n, true, func(sym *check.Symbol) bool {
			switch {
			case sym.Kind == check.Data:
				reads[sym.Name] = true
			case sym.Kind == check.Output && sym.Decl != nil && !outs[sym]:
				outs[sym] = true
				walk(sym.Decl)
			}
			return false
		})
	}
	if s := m.info.Lookup(name); s != nil && s.Decl != nil {
		outs[s] = true
		walk(s.Decl)
	}
	return reads
}

// MissingCells are a data value's shape and its missing cells, row-major.
type MissingCells struct {
	Shape []int
	Cells []int
}

// imputing returns info, or, when bound has missing cells in covariates
// whose missing values the model fits (check.DataVar.ReadAt), the Info of
// f checked with them typed as changing with the fit: every expression
// that reads one is then lowered as a node of the params, recomputed at
// each draw, where data-only values are computed once. Without such cells
// the lowering is the same as without this feature.
func imputing(f *ast.File, info *check.Info, bound map[string]*data.Array) (*check.Info, error) {
	var names []string
	for _, d := range info.Data {
		if a := bound[d.Name]; a != nil && len(a.Missing) > 0 && d.Fitted(a.Shape, a.Missing) && d.ReadAt.IsValid() {
			names = append(names, d.Name)
		}
	}
	if len(names) == 0 {
		return info, nil
	}
	return info.Imputing(f, names)
}

// missing lays out the latent of each data declaration's missing cells
// and binds the data's name to its mixed value.
func (l *lowerer) missing() error {
	for _, d := range l.info.Data {
		a := l.data[d.Name]
		if a == nil || len(a.Missing) == 0 || d.Missing == nil && l.predict == nil {
			continue
		}
		name := d.Name + MissingSuffix
		n := len(a.Missing)
		if l.predict != nil {
			// Nothing is fitted: data that predict reads must be whole,
			// and the rest is not read (observed data's missing cells
			// are drawn, an int count's too: data.BindCoded).
			if s := l.predict.reads[d.Symbol]; s != nil {
				what := "a missing value"
				if n > 1 {
					what = fmt.Sprintf("%d missing values", n)
				}
				fitted := ""
				if d.Missing != nil {
					fitted = fmt.Sprintf(" (gpp fit's draws of them are the columns %s[k] of its draws.csv)", name)
				}
				return ast.Errorf(a.Locate(a.Missing[0]), "`%s` has %s, and gpp predict reads it for %s (%s) but fits nothing: give it without missing values%s",
					d.Name, what, predictWhat(s), s.Pos(), fitted)
			}
			continue
		}
		if s := l.info.Lookup(name); s != nil {
			return ast.Errorf(d.Pos, "the missing values of `%s` are fitted as the latent `%s`, but the model declares that name at %s: rename it", d.Name, name, s.Pos)
		}
		lat := d.MissingLatent(n)
		if err := l.addLatent(lat, []int{n}); err != nil {
			return err
		}
		l.lats[len(l.lats)-1].Init = missingInit(lat, a, l.skipped[d.Name])
		if l.track[d.Name] {
			if l.missRead == nil {
				l.missRead = map[*check.Symbol][]bool{}
			}
			l.missRead[d.Symbol] = make([]bool, len(a.Values))
		}
		l.env[d.Symbol] = value{id: l.mixed(a, l.env[lat.Symbol].id, d.Pos), node: true}
	}
	return nil
}

// mixed returns the node of a's values with the missing cells (a.Missing,
// in order) taken from the vector z: the observed cells are a data
// constant, located at their cells, and a gather puts both in place.
func (l *lowerer) mixed(a *data.Array, z autodiff.ID, pos ast.Pos) autodiff.ID {
	n := len(a.Values)
	obs := make([]int, 0, n-len(a.Missing)) // element of each observed value
	perm := make([]int, n)                  // element i is perm[i] of (observed, z)
	m := 0
	for i := range n {
		if m < len(a.Missing) && a.Missing[m] == i {
			perm[i] = n - len(a.Missing) + m
			m++
			continue
		}
		perm[i] = len(obs)
		obs = append(obs, i)
	}
	all := z
	if len(obs) > 0 {
		vals := make([]float64, len(obs))
		for k, i := range obs {
			vals[k] = a.Values[i]
		}
		c := l.b.DataConst(a.Name, vals, autodiff.Vector(len(obs)), pos, func(k int) ast.Pos { return a.Locate(obs[k]) })
		all = l.b.Gather(l.b.Concat(c, z, false, pos), perm, pos)
	}
	switch len(a.Shape) {
	case 0:
		return l.b.Elem(all, 0, pos)
	case 2:
		return l.b.Reshape(all, autodiff.Matrix(a.Shape[0], a.Shape[1]), pos)
	}
	return all
}

// missingInit starts every missing value at the mean of the observed ones
// (mapped to the latent's support, as Latent.Init is), or leaves the
// engine's default start (nil) when none is observed. The cells skipped
// (Model.Skipped), whose values are stand-ins, are not observed ones.
func missingInit(lat *check.Latent, a *data.Array, skipped []int) []float64 {
	var sum float64
	k := 0
	for _, v := range a.Values {
		if !math.IsNaN(v) { // only missing cells are NaN
			sum += v
			k++
		}
	}
	for _, i := range skipped { // numbers, not observed (0: exactly as if left out)
		sum -= a.Values[i]
		k--
	}
	mean := sum / float64(k)
	if r := lat.Range(); k == 0 || !(mean > r.Lo && mean < r.Hi) {
		return nil
	}
	if loc, scale := lat.Affine(); scale != 0 {
		mean = (mean - loc) / scale
	}
	init := make([]float64, len(a.Missing))
	for i := range init {
		init[i] = mean
	}
	return init
}

// missingSpec draws the missing values of one data declaration from the
// ~ that observes it whole, at the draw of the params (prior draws): an
// ancestral draw, as PyMC's prior predictive draws masked observations.
type missingSpec struct {
	sp   priorSpec // the ~'s family and arguments, broadcast to the data's elements
	lat  int       // the latent's index in Model.Latents
	cell []int     // the data element of each missing value
}

// missingSpecs prepares the draws of each latent of missing values after
// the params (Model.Latents from first on). The one ~ on the data, whole
// and of an elementwise family, is drawn from; any other shape is an error
// at the data's declaration.
func (m *Model) missingSpecs(first int) ([]missingSpec, []*ast.TildeStmt, error) {
	var specs []missingSpec
	var tildes []*ast.TildeStmt
	var errs ast.ErrorList
	for i := first; i < len(m.Latents); i++ {
		ml := &m.Latents[i]
		d := m.info.DataVar(strings.TrimSuffix(ml.Name, MissingSuffix))
		a := m.data[d.Name]
		var on []*ast.TildeStmt
		ast.Inspect(m.file, func(n ast.Node) bool {
			if s, ok := n.(*ast.TildeStmt); ok && m.info.Uses[check.ObservedIdent(s.LHS)] == d.Symbol {
				on = append(on, s)
			}
			return true
		})
		errf := func(format string, args ...any) {
			errs.Add(d.Pos, "the missing values of `%s` (the latent %s) cannot be drawn from their prior: %s", d.Name, ml.Name, fmt.Sprintf(format, args...))
		}
		if len(on) != 1 {
			errf("%d ~ statements observe `%s`, and gpp draws missing values from one ~ on the whole data (%s ~ D(...))", len(on), d.Name, d.Name)
			continue
		}
		t := on[0]
		if _, whole := ast.Unparen(t.LHS).(*ast.Ident); !whole || !slices.Contains(m.file.Stmts, ast.Stmt(t)) {
			errf("the ~ at %s observes `%s`, and gpp draws missing values from one ~ on the whole data, outside loops and ifs (%s ~ D(...))", t.Pos(), ast.FormatExpr(t.LHS), d.Name)
			continue
		}
		dd := m.info.Dists[t.Dist]
		u, ok := dist.LookupUnivariate(dd.Name)
		if !ok || dd.Shape != stdlib.DistElementwise {
			errf("gpp draws them from an elementwise family, not %s (at %s)", dd.Name, t.Dist.Fun.Pos())
			continue
		}
		lat := d.MissingLatent(ml.Size)
		n := len(a.Values)
		sp := priorSpec{lat: lat, call: t.Dist, name: dd.Name, u: u, dims: a.Shape, buf: make([][]float64, len(t.Dist.Args)),
			bnds: make([]check.Interval, n), aff: make([][2]float64, n)}
		for k := range sp.buf {
			sp.buf[k] = make([]float64, n)
		}
		loc, scale := ml.AffineAt(0)
		for k := range n {
			sp.bnds[k] = elemRange(lat, ml, 0)
			sp.aff[k] = [2]float64{loc, scale}
		}
		specs = append(specs, missingSpec{sp: sp, lat: i, cell: a.Missing})
		tildes = append(tildes, t)
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	return specs, tildes, nil
}

// draw draws the missing values into their coordinates xs and values zs,
// from the arguments' values in p.
func (ms *missingSpec) draw(rng *rand.Rand, p *autodiff.Program, ml *Latent, xs, zs []float64) error {
	sp := &ms.sp
	if err := sp.readArgs(p); err != nil {
		return err
	}
	for k, i := range ms.cell {
		v, err := sp.drawElem(rng, i, sp.bnds[i])
		if err != nil {
			return err
		}
		zs[k], xs[k] = v, sp.coord(ml.Support, i, v)
	}
	return nil
}

// predictWhat names the statement that predict reads data for: "output
// m", "param b".
func predictWhat(s ast.Stmt) string {
	switch s := s.(type) {
	case *ast.OutputStmt:
		return "output " + s.Name.Name
	case *ast.ParamDecl:
		return "param " + s.Name.Name
	case *ast.TildeStmt:
		return "the draw of " + ast.FormatExpr(s.LHS)
	}
	return "a statement"
}

// MissingSampler draws the missing values of data at a draw of the params
// from the ~ that observes the data (as the prior draws do), for PSIS-LOO:
// a draw whose missing values come from their model given the params has
// the weight p(params, observed data)/q(params), the missing values'
// density canceling, where q's own draws of them (independent of the
// params under a mean-field q) leave p(missing | params)/q(missing) in
// the weight, noisier and biasing elpd_loo. It is not safe for concurrent
// use.
type MissingSampler struct {
	m       *Model
	prog    *autodiff.Program
	missing []missingSpec
	drop    []bool // the coordinates of missing values
}

// NewMissingSampler prepares the draws of the missing values, or returns
// nil when the model fits none or one cannot be drawn: a ~ other than one
// of an elementwise family on the whole data (missingSpecs), or data whose
// declared bounds truncate a family without a CDF in gpp.
func (m *Model) NewMissingSampler() *MissingSampler {
	if m.predict != nil || len(m.Latents) == len(m.info.Latents) {
		return nil
	}
	missing, tildes, err := m.missingSpecs(len(m.info.Latents))
	if err != nil || len(missing) == 0 {
		return nil
	}
	prog, args, err := m.build(buildPrior, tildes...)
	if err != nil {
		return nil
	}
	n := 0
	for i := range missing {
		n += len(missing[i].sp.call.Args)
	}
	if len(args) < n {
		return nil
	}
	args = args[len(args)-n:] // the tildes' arguments come last
	s := &MissingSampler{m: m, prog: prog, missing: missing, drop: make([]bool, m.Dim)}
	for i := range missing {
		sp := &missing[i].sp
		k := len(sp.call.Args)
		sp.args, args = args[:k], args[k:]
		ones := make([]float64, k)
		for a := range ones {
			ones[a] = 1
		}
		for _, c := range missing[i].cell {
			if r := sp.bnds[c]; !fullSupport(sp.u.Support, r) {
				if _, ok := logIntervalMass(sp.name, ones, r.Lo, r.Hi); !ok {
					return nil
				}
			}
		}
		ml := &m.Latents[missing[i].lat]
		for j := ml.Offset; j < ml.Offset+ml.Size; j++ {
			s.drop[j] = true
		}
	}
	return s
}

// fullSupport reports whether r holds all of a family's support s, so that
// the family needs no truncation to r.
func fullSupport(s dist.Support, r check.Interval) bool {
	switch {
	case math.IsInf(r.Lo, -1) && math.IsInf(r.Hi, 1):
		return true
	case s == dist.Positive:
		return r.Lo <= 0 && math.IsInf(r.Hi, 1)
	case s == dist.Unit:
		return r.Lo <= 0 && r.Hi >= 1
	}
	return false
}

// Coords marks the coordinates of the missing values (indexed like the
// coordinates x of a draw).
func (s *MissingSampler) Coords() []bool { return s.drop }

// Draw replaces the missing values' coordinates in x by a draw from their
// ~ at the params of x, and returns the draw's log density (of the values,
// natural scale; truncated to the data's declared bounds where they cut
// the family's support). An argument outside its support, or a truncation
// that leaves too little mass to draw from, is an error.
func (s *MissingSampler) Draw(rng *rand.Rand, x []float64) (float64, error) {
	s.prog.ForwardAll(x)
	lq := 0.0
	for i := range s.missing {
		ms := &s.missing[i]
		sp := &ms.sp
		ml := &s.m.Latents[ms.lat]
		if err := sp.readArgs(s.prog); err != nil {
			return 0, err
		}
		xs := x[ml.Offset : ml.Offset+ml.Size]
		for k, c := range ms.cell {
			r := sp.bnds[c]
			v, err := sp.drawElem(rng, c, r)
			if err != nil {
				return 0, err
			}
			xs[k] = sp.coord(ml.Support, c, v)
			lp, _ := sp.u.Kernel(v, sp.p, nil) // sp.p: drawElem's arguments of c
			if !fullSupport(sp.u.Support, r) {
				lz, _ := logIntervalMass(sp.name, sp.p, r.Lo, r.Hi)
				lp -= lz
			}
			lq += lp
		}
	}
	return lq, nil
}

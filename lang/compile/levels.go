package compile

// New levels: gpp predict --new-levels, brms's allow_new_levels with
// sample_new_levels = "gaussian". A param whose shape new data make larger
// than the fit's (a varying intercept of a site the fit did not see) keeps
// the fit's draws for its first elements, and each new element is drawn,
// at each draw of the other params, from the param's own prior: the prior
// draws of gpp fit --prior (PriorSampler's priorSpec), restricted to the
// new elements and conditioned on the draw's params.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

// LevelSampler draws the new elements of params whose shape the data make
// larger than a fit's. It is not safe for concurrent use.
type LevelSampler struct {
	m     *Model
	prog  *autodiff.Program
	specs []priorSpec
	lats  []int   // each spec's latent
	order []int   // the specs in the order they are drawn
	fresh [][]int // each spec's new elements (row-major in the latent)
	grown []Grown
}

// Grown describes a param with new elements, for a note.
type Grown struct {
	Name       string
	Shape, Fit []int   // its shape here and in the fit
	New        int     // its new elements
	Prior      string  // the prior statement, as written
	PriorPos   ast.Pos // where it is
	OldIndices []int   // per element of the fit's shape (row-major), its element here
}

// NewLevelSampler prepares the draws of the new elements of the params
// that fit names, each with its shape in the fit: a shape of the same
// rank, no axis shorter and one longer than the param's here. Only a
// param of real, positive or bounded real values whose prior (declared or
// one ~ on the whole param) is elementwise, its arguments not reading the
// param, can be drawn so: a new element of any other is not independent
// of the old ones given the other params (a multivariate prior, a
// sum_to_zero_vector, a simplex or an ordered param over the groups), or
// has no distribution (no prior). Such a param is an error at its
// declaration saying why.
func (m *Model) NewLevelSampler(fit map[string][]int) (*LevelSampler, error) {
	s := &LevelSampler{m: m}
	var errs ast.ErrorList
	for i, lat := range m.info.Latents {
		fs, ok := fit[lat.Name]
		if !ok {
			continue
		}
		ml := &m.Latents[i]
		if !containsShape(ml.Shape, fs) { // OldIndices would index past the param
			errs = append(errs, ast.Errorf(lat.Pos, "--new-levels: param `%s` is %s here, %s in the fit: not the fit's shape with axes made longer",
				lat.Name, shapeWords(ml.Shape), shapeWords(fs)))
			continue
		}
		rows, err := m.levelsDrawable(i, fs)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var sp priorSpec
		if rows != nil {
			sp = m.rowSpec(i, rows)
		} else if sp, err = m.priorSpec(i, lat); err != nil {
			errs = append(errs, ast.Errorf(err.Pos, "--new-levels: %s", err.Msg))
			continue
		}
		if slices.Contains(sp.deps, i) {
			errs = append(errs, ast.Errorf(lat.Pos, "--new-levels: param `%s` cannot have new elements drawn: its prior's arguments read the param itself", lat.Name))
			continue
		}
		old := OldIndices(ml.Shape, fs)
		isOld := make([]bool, ml.Size)
		for _, e := range old {
			isOld[e] = true
		}
		var fresh []int
		for k, o := range isOld {
			if !o {
				fresh = append(fresh, k)
			}
		}
		s.specs = append(s.specs, sp)
		s.lats = append(s.lats, i)
		s.fresh = append(s.fresh, fresh)
		s.grown = append(s.grown, Grown{Name: lat.Name, Shape: ml.Shape, Fit: fs, New: len(fresh),
			Prior: ast.FormatExpr(sp.call), PriorPos: sp.call.Pos(), OldIndices: old})
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	prog, args, err := m.build(buildPrior)
	if err != nil {
		return nil, err
	}
	s.prog = prog
	// build keeps every latent's prior arguments in the latents' order
	at := 0
	for i, n := range m.priorArgN {
		if k := slices.Index(s.lats, i); k >= 0 {
			if n != len(s.specs[k].call.Args) || at+n > len(args) {
				return nil, ast.Errorf(s.specs[k].lat.Pos, "compile: no prior arguments of `%s`", s.specs[k].lat.Name)
			}
			s.specs[k].args = args[at : at+n]
		}
		at += n
	}
	// a spec reads the others' new elements when its arguments read them
	deps := make([]priorSpec, len(s.specs))
	for k := range s.specs {
		deps[k] = s.specs[k]
		deps[k].deps = nil
		for _, d := range s.specs[k].deps {
			if j := slices.Index(s.lats, d); j >= 0 {
				deps[k].deps = append(deps[k].deps, j)
			}
		}
	}
	lats := make([]*check.Latent, len(s.lats))
	for k, i := range s.lats {
		lats[k] = m.info.Latents[i]
	}
	order, err := priorOrder(deps, lats)
	if err != nil {
		return nil, err
	}
	s.order = order
	return s, nil
}

// NewLevelsSupport reports whether a param of support s can have new
// elements drawn independently of the old ones (real, positive or unit
// values); the jointly constrained types (sum_to_zero, simplex, ordered,
// correlation and covariance matrices) cannot.
func NewLevelsSupport(s dist.Support) bool {
	return s == dist.Real || s == dist.Positive || s == dist.Unit
}

// wholeTildeArgs is the number of prior arguments that a build keeps for
// latent i without a declared prior: those of its one ~ on the whole
// param, if its first ~ is one.
func (m *Model) wholeTildeArgs(i int) int {
	lat := m.info.Latents[i]
	t := lat.Tildes[0]
	id, whole := ast.Unparen(t.LHS).(*ast.Ident)
	if !whole || m.info.Uses[id] != lat.Symbol || t.Trunc != nil || m.info.UserDensities[t.Dist] != nil {
		return 0
	}
	return len(t.Dist.Args)
}

// levelsDrawable checks that latent i, of the fit's shape fs, can have
// new elements drawn from its prior, and says why not. A matrix whose
// rows are independent multivariate normals (real[J, K] ~ MvNormal(mu,
// Sigma) or MvNormalCholesky(mu, L)), longer only in its rows, has its
// new rows drawn whole: its prior's call is returned.
func (m *Model) levelsDrawable(i int, fs []int) (*ast.CallExpr, *ast.Error) {
	lat := m.info.Latents[i]
	ml := &m.Latents[i]
	fitShape, hereShape := fs, ml.Shape
	if lat.Support == dist.SumToZero || lat.Support == dist.SumToZeroMatrix {
		// named by its values' shape, as declared: its coordinates are
		// one fewer on each axis
		fitShape, hereShape = make([]int, len(fs)), ml.Value
		for k, n := range fs {
			fitShape[k] = n + 1
		}
	}
	errf := func(format string, args ...any) (*ast.CallExpr, *ast.Error) {
		return nil, ast.Errorf(lat.Pos, "--new-levels: param `%s` (%s in the fit, %s here) cannot have new elements drawn: %s",
			lat.Name, shapeWords(fitShape), shapeWords(hereShape), fmt.Sprintf(format, args...))
	}
	switch {
	case NewLevelsSupport(lat.Support):
	case lat.Support == dist.SumToZero || lat.Support == dist.SumToZeroMatrix:
		return errf("%s's elements sum to zero, so a new one would change the old ones; give it a Normal prior on a real vector (as brms's varying effects are)", ast.Article(lat.Support.String()))
	default:
		return errf("%s param's elements are constrained jointly, so new ones are not drawn independently of the old ones", ast.Article(lat.Support.String()))
	}
	if ml.ScaleV != nil {
		return errf("its bounds differ element by element; new elements would need their own")
	}
	call := lat.Prior
	if call == nil && len(lat.Tildes) == 1 && m.wholeTildeArgs(i) > 0 {
		call = lat.Tildes[0].Dist
	}
	if call == nil {
		return nil, nil // priorSpec says why (no prior, a ~ on some elements)
	}
	d := m.info.Dists[call]
	if d == nil || d.Shape == stdlib.DistElementwise {
		return nil, nil
	}
	rowWise := d.Shape == stdlib.DistMvNormal || d.Shape == stdlib.DistMvNormalRows || d.Shape == stdlib.DistMvNormalChol
	switch {
	case rowWise && len(fs) == 2 && fs[1] != ml.Shape[1]:
		return errf("its prior %s at %s is multivariate over each row, and the rows are longer here: a new column's distribution depends on the old ones (the conditional given them)",
			ast.FormatExpr(call), call.Pos())
	case rowWise && len(fs) == 2 && lat.Support == dist.Real && !ml.Bounded():
		return call, nil
	}
	return errf("its prior %s at %s is multivariate over its elements, so a new element's distribution depends on the old ones (it would be the conditional given them); only an elementwise prior, as Normal(0, sigma), or independent multivariate normal rows of a matrix draw new elements from the prior alone",
		ast.FormatExpr(call), call.Pos())
}

// mvRows is how the new rows of a matrix param with independent
// multivariate normal rows are drawn.
type mvRows struct {
	chol bool // the second argument is the covariance's lower factor
	k    int  // a row's length
	w    *dist.MvWork
	mean []float64 // a row's mean
	z    []float64 // standard normal draws
}

// rowSpec is the priorSpec of latent i whose prior call draws whole rows
// (levelsDrawable): its arguments and the params they read.
func (m *Model) rowSpec(i int, call *ast.CallExpr) priorSpec {
	ml := &m.Latents[i]
	k := ml.Shape[1]
	d := m.info.Dists[call]
	return priorSpec{lat: m.info.Latents[i], call: call, name: d.Name, dims: ml.Shape,
		deps: paramDeps(m.info, call.Args),
		mv:   &mvRows{chol: d.Shape == stdlib.DistMvNormalChol, k: k, w: dist.NewMvWork(k), mean: make([]float64, k), z: make([]float64, k)}}
}

// drawRows draws the rows of the elements fresh (whole rows) into xs and
// zs (a real param: its coordinates are its values) from the arguments'
// values in p.
func (sp *priorSpec) drawRows(p *autodiff.Program, rng *rand.Rand, xs, zs []float64, fresh []int) error {
	mv := sp.mv
	k := mv.k
	mu, s := p.Value(sp.args[0]), p.Value(sp.args[1])
	errf := func(a int, format string, args ...any) error {
		arg := sp.call.Args[a]
		return ast.Errorf(arg.Pos(), "--new-levels: %s's argument `%s` %s at a draw of the params it reads",
			sp.name, ast.FormatExpr(arg), fmt.Sprintf(format, args...))
	}
	if len(s) != k*k {
		return errf(1, "is not [%d, %d]", k, k)
	}
	for j := 0; j < len(fresh); j += k {
		r := fresh[j] / k
		m := mv.mean
		for c := range k {
			switch len(mu) {
			case 1:
				m[c] = mu[0]
			case k:
				m[c] = mu[c]
			case sp.dims[0] * k:
				m[c] = mu[r*k+c]
			default:
				return errf(0, "has %d elements, which do not broadcast to a row of %d", len(mu), k)
			}
		}
		row := zs[r*k : (r+1)*k]
		if mv.chol {
			for c := range k {
				if v := s[c*k+c]; !(v > 0) || math.IsInf(v, 0) {
					return errf(1, "must be a lower Cholesky factor, its diagonal > 0 and finite (got %g at [%d, %d])", v, c, c)
				}
			}
			for c := range k {
				mv.z[c] = rng.NormFloat64()
			}
			for a := range k { // mu + L z, L's upper triangle ignored
				v := m[a]
				for b := 0; b <= a; b++ {
					v += s[a*k+b] * mv.z[b]
				}
				row[a] = v
			}
		} else if _, err := (dist.MvNormal{Mu: m, Sigma: s}).Rand(row, mv.w, rng); err != nil {
			return errf(1, "must be positive definite: %v", err)
		}
		copy(xs[r*k:(r+1)*k], row)
	}
	return nil
}

// shapeWords writes a shape as [30] or [30, 2] (a scalar: []).
func shapeWords(s []int) string {
	return fmt.Sprint(s)
}

// containsShape reports whether a value of shape holds one of shape fit
// in its leading elements: the same rank, no axis shorter.
func containsShape(shape, fit []int) bool {
	if len(shape) != len(fit) {
		return false
	}
	for a, n := range fit {
		if n < 0 || n > shape[a] {
			return false
		}
	}
	return true
}

// Grown lists the params with new elements, in declaration order.
func (s *LevelSampler) Grown() []Grown { return s.grown }

// OldIndices returns, for each element of a value of shape fit
// (row-major), its row-major index in a value of shape, which is as long
// or longer on every axis: the elements that a fit saw.
func OldIndices(shape, fit []int) []int {
	n := ShapeLen(fit)
	out := make([]int, n)
	idx := make([]int, len(fit))
	for e := range n {
		k := 0
		for a, d := range shape {
			k = k*d + idx[a]
		}
		out[e] = k
		for a := len(idx) - 1; a >= 0; a-- { // the last index varies fastest
			idx[a]++
			if idx[a] < fit[a] {
				break
			}
			idx[a] = 0
		}
	}
	return out
}

// Draw draws the new elements of each grown param with rng, given the
// other coordinates in x (of length Dim, as LogJoint takes them): it
// writes their coordinates into x and their values into z. An argument
// outside its parameter's support at this draw is an *ast.Error at the
// prior.
func (s *LevelSampler) Draw(rng *rand.Rand, x, z []float64) error {
	for k, i := range s.lats {
		ml := &s.m.Latents[i]
		for _, e := range s.fresh[k] {
			x[ml.Offset+e] = math.NaN()
		}
	}
	fresh := false
	for _, k := range s.order {
		sp := &s.specs[k]
		ml := &s.m.Latents[s.lats[k]]
		if !fresh {
			s.prog.ForwardAll(x) // its error is of the elements not drawn yet
			fresh = true
		}
		xs, zs := x[ml.Offset:ml.Offset+ml.Size], z[ml.Offset:ml.Offset+ml.Size]
		if sp.mv != nil {
			if err := sp.drawRows(s.prog, rng, xs, zs, s.fresh[k]); err != nil {
				return err
			}
			fresh = false
			continue
		}
		if err := sp.readArgs(s.prog); err != nil {
			return err
		}
		if err := sp.drawElems(rng, ml, xs, zs, s.fresh[k]); err != nil {
			return err
		}
		fresh = false
	}
	return nil
}

// wholeParamPrior reports whether the ~ s is a prior on a whole param
// (mu ~ Normal(0, 5)), which a predict-mode build of the priors lowers
// for its arguments (LevelSampler).
func (l *lowerer) wholeParamPrior(s *ast.TildeStmt) bool {
	id, ok := ast.Unparen(s.LHS).(*ast.Ident)
	if !ok || s.Trunc != nil || l.info.UserDensities[s.Dist] != nil {
		return false
	}
	sym := l.info.Uses[id]
	return sym != nil && sym.Kind == check.Param
}

// LiteralSize reports whether axis a of param name's declared shape is a
// number (real[3]), not a size that data or a const give (real[J]): an
// edited model's, which new data cannot make longer.
func (m *Model) LiteralSize(name string, a int) bool {
	_, lit := m.declaredSize(name, a).(*ast.NumberLit)
	return lit
}

// ConstSize reports whether axis a of param name's declared shape is a
// number or a const (positive[N, K] with const K: axis 1), not a size
// that data give: the axis of a model's exchangeable components (a gamma
// process's communities, a factor model's factors), which the fit's
// collapse check compares.
func (m *Model) ConstSize(name string, a int) bool {
	switch d := m.declaredSize(name, a).(type) {
	case *ast.NumberLit:
		return true
	case *ast.Ident:
		sym := m.info.Uses[d]
		return sym != nil && sym.Kind == check.Const
	}
	return false
}

// declaredSize returns the size expression of axis a of param name's
// declaration, parentheses removed; nil where it has none.
func (m *Model) declaredSize(name string, a int) ast.Expr {
	for _, lat := range m.info.Latents {
		if lat.Name != name || lat.Decl == nil || lat.Decl.Type == nil || a >= len(lat.Decl.Type.Dims) {
			continue
		}
		return ast.Unparen(lat.Decl.Type.Dims[a])
	}
	return nil
}

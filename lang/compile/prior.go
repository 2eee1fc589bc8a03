package compile

// Prior draws: the params drawn from their priors by ancestral sampling,
// the likelihood left out (gpp fit --prior, PyMC's sample_prior_predictive).

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

// Limits of the draws of a truncated prior, by rejection: a prior that
// puts less than minPriorMass of its mass on the param's values is drawn
// by inversion of its log CDF instead (dist.TruncInvert, as truncated
// replicates are), and an element is tried at most maxPriorTries times
// (with the mass at least minPriorMass, all of them fail with a
// probability below e⁻¹⁰⁰), then inverted; an inverted draw on an end of
// the open interval is drawn again, at most maxInvertTries times.
const (
	minPriorMass   = 1e-4
	maxPriorTries  = 1_000_000
	maxInvertTries = 100
)

// PriorSampler draws the params of a model from their priors, each after
// the params its prior's arguments read, and ignores everything else in the
// model: a ~ whose left side is data, truncated data and target +=. A
// prior is the distribution of the param's declaration (param mu: real ~
// Normal(0, 5)) or of one ~ statement whose left side is the whole param
// (mu ~ Normal(0, 5)); a support narrower than the prior's (a positive
// param with a Normal prior, real<lower=0, upper=1>) truncates it. It is
// not safe for concurrent use.
type PriorSampler struct {
	m     *Model
	prog  *autodiff.Program
	order []int // latent indices in the order they are drawn
	specs []priorSpec
	// missing draws the missing values of data after the params.
	missing []missingSpec
	x       []float64 // the coordinates of the draw under way
}

// priorSpec is how one latent is drawn.
type priorSpec struct {
	lat  *check.Latent // with the values of bounds of data
	call *ast.CallExpr
	name string           // the distribution
	u    *dist.Univariate // an elementwise prior, or nil
	args []autodiff.ID    // the argument nodes in prog
	deps []int            // latents the arguments read
	dims []int            // the latent's shape
	buf  [][]float64      // argument values broadcast to the elements
	bnds []check.Interval // each element's values (RangeAt)
	aff  [][2]float64     // each element's loc, scale (bounded) or 0, 0
	p    []float64        // one element's arguments
	wish *wishartPrior    // a Wishart-family prior, or nil
	mv   *mvRows          // new rows of a matrix of multivariate normal rows (levels.go), or nil
}

// wishartPrior is the state of a Wishart-family prior on a cov_matrix[K]
// or cholesky_factor_cov[K] param: the argument values at a draw and the
// sampler's scratch.
type wishartPrior struct {
	form dist.WishartForm // Inverse; Chol when the argument is L_S, not S
	k    int
	nu   float64
	ls   []float64 // the scale matrix's lower factor L_S (K×K)
	l    []float64 // the draw's lower factor (K×K)
	t, u []float64 // dist.WishartRand's scratch
}

// NewPriorSampler prepares prior draws. A param that cannot be drawn is an
// error at its declaration: one without a prior (a flat prior, improper
// unless it is bounded), one whose density is given by a ~ on some of its
// elements or by more than one ~, one whose prior has no sampler here (an
// prior of per-element arguments on an ordered param).
func (m *Model) NewPriorSampler() (*PriorSampler, error) {
	s := &PriorSampler{m: m, x: make([]float64, m.Dim)}
	var errs ast.ErrorList
	for i, lat := range m.info.Latents {
		sp, err := m.priorSpec(i, lat)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.specs = append(s.specs, sp)
	}
	missing, tildes, err := m.missingSpecs(len(m.info.Latents))
	if err != nil {
		errs = append(errs, err.(ast.ErrorList)...)
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	s.missing = missing
	prog, args, err := m.build(buildPrior, tildes...)
	if err != nil {
		return nil, err
	}
	s.prog = prog
	// the argument nodes, each latent's after the one's before
	for i := range s.specs {
		n := len(s.specs[i].call.Args)
		if len(args) < n {
			return nil, ast.Errorf(s.specs[i].lat.Pos, "compile: no prior arguments of `%s`", s.specs[i].lat.Name)
		}
		s.specs[i].args, args = args[:n], args[n:]
	}
	for i := range s.missing {
		sp := &s.missing[i].sp
		n := len(sp.call.Args)
		if len(args) < n {
			return nil, ast.Errorf(sp.call.Pos(), "compile: no arguments of the ~ on `%s`", sp.lat.Name)
		}
		sp.args, args = args[:n], args[n:]
	}
	order, err := priorOrder(s.specs, m.info.Latents)
	if err != nil {
		return nil, err
	}
	s.order = order
	return s, nil
}

// priorSpec finds the prior of latent i and checks that it can be drawn.
func (m *Model) priorSpec(i int, lat *check.Latent) (priorSpec, *ast.Error) {
	ml := &m.Latents[i]
	sp := priorSpec{lat: lat, call: lat.Prior, dims: ml.Shape}
	errf := func(format string, args ...any) (priorSpec, *ast.Error) {
		return sp, ast.Errorf(lat.Pos, "param `%s` cannot be drawn from its prior: %s", lat.Name, fmt.Sprintf(format, args...))
	}
	tildes := lat.Tildes
	if sp.call == nil {
		if len(tildes) == 0 {
			return errf("it has none (%s); give it one, as in `param %s: %s ~ %s`",
				flatWords(lat), lat.Name, ast.FormatType(lat.Decl.Type), flatSuggestion(lat))
		}
		t := tildes[0]
		id, whole := ast.Unparen(t.LHS).(*ast.Ident)
		if !whole || m.info.Uses[id] != lat.Symbol || t.Trunc != nil {
			return errf("the ~ at %s has it on its left side in `%s`, not as the whole param; gpp draws a param from its declared prior or one ~ on the whole param",
				t.Pos(), ast.FormatExpr(t.LHS))
		}
		if len(tildes) > 1 {
			return errf("it has %d ~ statements (at %s and %s), whose product has no sampler", len(tildes), t.Pos(), tildes[1].Pos())
		}
		sp.call = t.Dist
	} else if len(tildes) > 0 {
		return errf("besides its declared prior, the ~ at %s gives it a density; their product has no sampler", tildes[0].Pos())
	}
	d := m.info.Dists[sp.call]
	if call := m.info.UserDensities[sp.call]; call != nil {
		return errf("its prior %s is a user density (the function %s), which has no sampler; give it a built-in distribution to draw it",
			ast.FormatExpr(sp.call), call.Fun.Name)
	}
	if d == nil {
		return errf("its prior is not a distribution")
	}
	sp.name = d.Name
	switch lat.Support {
	case dist.Real, dist.Positive, dist.Unit:
		u, ok := dist.LookupUnivariate(d.Name)
		if !ok || d.Shape != stdlib.DistElementwise {
			return errf("gpp has no prior draws of %s on %s param", d.Name, ast.Article(lat.Support.String()))
		}
		sp.u = u
	case dist.Ordered, dist.PositiveOrdered:
		u, ok := dist.LookupUnivariate(d.Name)
		if !ok || d.Shape != stdlib.DistElementwise || !lat.OrderedIID {
			return errf("an %s param is drawn as the sorted draws of a prior with scalar arguments (iid elements), not %s", lat.Support, ast.FormatExpr(sp.call))
		}
		sp.u = u
	case dist.Simplex:
		if d.Name != "Dirichlet" {
			return errf("a simplex param is drawn from a Dirichlet prior, not %s", ast.FormatExpr(sp.call))
		}
	case dist.SumToZero, dist.SumToZeroMatrix:
		// iid Normal(mu, s) restricted to the zero-sum plane is ∝
		// exp(−|z|²/2s²) there whatever the scalar mu (z ⊥ 1), so its
		// isometric coordinates are iid Normal(0, s)
		scalar := d.Name == "Normal"
		for _, a := range sp.call.Args {
			if t, ok := m.info.Types[a]; !ok || t.Shape.Rank() != 0 {
				scalar = false
			}
		}
		u, ok := dist.LookupUnivariate(d.Name)
		if !scalar || !ok {
			return errf("a %s param is drawn from a Normal prior with scalar arguments (its isometric coordinates iid Normal(0, s)), not %s", lat.Support, ast.FormatExpr(sp.call))
		}
		sp.u = u // the arguments' supports
	case dist.CholCorr, dist.CorrMatrix:
		if d.Shape != stdlib.DistLKJ {
			return errf("a %s param is drawn from an LKJ prior, not %s", lat.Support, ast.FormatExpr(sp.call))
		}
		sp.dims = []int{ml.Value[0]}
	case dist.CholCov, dist.CovMatrix:
		if d.Shape != stdlib.DistWishart || d.Support != lat.Support {
			return errf("a %s param is drawn from %s, not %s", lat.Support, covPriorWords(lat.Support), ast.FormatExpr(sp.call))
		}
		k := ml.Value[0]
		sp.dims = []int{k}
		buf := make([]float64, 4*k*k)
		sp.wish = &wishartPrior{
			form: dist.WishartForm{Inverse: strings.HasPrefix(d.Name, "Inv"), Chol: strings.HasSuffix(d.Name, "Cholesky")},
			k:    k, ls: buf[:k*k], l: buf[k*k : 2*k*k], t: buf[2*k*k : 3*k*k], u: buf[3*k*k:],
		}
	default:
		return errf("gpp has no prior draws of %s param", ast.Article(lat.Support.String()))
	}
	sp.deps = paramDeps(m.info, sp.call.Args)
	if slices.Contains(sp.deps, i) {
		return errf("its prior's arguments read the param itself")
	}
	sp.bnds = make([]check.Interval, ml.Size)
	sp.aff = make([][2]float64, ml.Size)
	for k := range ml.Size {
		loc, scale := ml.AffineAt(k)
		sp.aff[k] = [2]float64{loc, scale}
		sp.bnds[k] = elemRange(lat, ml, k)
	}
	sp.buf = make([][]float64, len(sp.call.Args))
	for a := range sp.buf {
		sp.buf[a] = make([]float64, ml.Size)
	}
	return sp, nil
}

// elemRange is element k's values: the latent's bounds, or its support's.
func elemRange(lat *check.Latent, ml *Latent, k int) check.Interval {
	if !ml.Bounded() {
		return lat.Range()
	}
	loc, scale := ml.AffineAt(k)
	ends := [2]float64{loc, math.Inf(1)}
	if lat.Support == dist.Unit {
		ends[1] = loc + scale
	} else if scale < 0 {
		ends[1] = math.Inf(-1)
	}
	lo, hi := min(ends[0], ends[1]), max(ends[0], ends[1])
	return check.Interval{Lo: lo, Hi: hi, Known: true}
}

// flatWords says what a flat prior on the latent's values is, for an
// error: improper on an unbounded support ("a flat prior on the real line,
// improper, which has no distribution to draw from"), proper but not drawn
// on a bounded one ("a flat prior on (0, 1), uniform, which gpp draws only
// when it is stated").
func flatWords(lat *check.Latent) string {
	switch lat.Support {
	case dist.Simplex, dist.CholCorr, dist.CorrMatrix:
		return fmt.Sprintf("a flat prior on the %s values, uniform, which gpp draws only when it is stated", lat.Support)
	case dist.CholCov, dist.CovMatrix:
		return fmt.Sprintf("a flat prior on the %s values, improper, which has no distribution to draw from", lat.Support)
	}
	words := supportWords(lat)
	if strings.HasSuffix(words, "improper") {
		return "a flat prior on " + words + ", which has no distribution to draw from"
	}
	return "a flat prior on " + words + ", uniform, which gpp draws only when it is stated"
}

// flatSuggestion is a prior to suggest in place of a flat one: the same
// density where the flat prior is proper (Uniform on the bounds,
// Dirichlet(1), LKJ(1)), an inverse Wishart of mean I on a covariance
// matrix, else a normal (half-normal on a positive param).
func flatSuggestion(lat *check.Latent) string {
	switch lat.Support {
	case dist.CovMatrix, dist.CholCov:
		// InvWishart(K + 2, I(K)), of mean I(K)/(ν − K − 1) = I(K)
		name := "InvWishart"
		if lat.Support == dist.CholCov {
			name = "InvWishartCholesky"
		}
		k, nu := "K", "K + 2"
		if t := lat.Decl.Type; t != nil && len(t.Dims) == 1 {
			k = ast.FormatExpr(t.Dims[0])
			nu = k + " + 2"
			if n, err := strconv.Atoi(k); err == nil {
				nu = strconv.Itoa(n + 2)
			}
		}
		return name + "(" + nu + ", I(" + k + "))"
	case dist.Simplex:
		return "Dirichlet(1)"
	case dist.CholCorr:
		return "LKJCorrCholesky(1)"
	case dist.CorrMatrix:
		return "LKJCorr(1)"
	}
	if t := lat.Decl.Type; t != nil && t.Lower != nil && t.Upper != nil {
		return "Uniform(" + ast.FormatExpr(t.Lower) + ", " + ast.FormatExpr(t.Upper) + ")"
	}
	if lat.Support == dist.Unit {
		return "Uniform(0, 1)"
	}
	return "Normal(0, 1)"
}

// covPriorWords names the priors a cov_matrix or cholesky_factor_cov param
// is drawn from.
func covPriorWords(s dist.Support) string {
	if s == dist.CholCov {
		return "a WishartCholesky or InvWishartCholesky prior"
	}
	return "a Wishart or InvWishart prior"
}

// supportWords describes a flat prior's domain for an error: "(0, 1)",
// "(0, ∞), improper".
func supportWords(lat *check.Latent) string {
	r := lat.Range()
	if math.IsInf(r.Lo, -1) && math.IsInf(r.Hi, 1) {
		return "the real line, improper"
	}
	end := func(v float64) string {
		switch {
		case math.IsInf(v, 1):
			return "∞"
		case math.IsInf(v, -1):
			return "−∞"
		}
		return fmt.Sprintf("%g", v)
	}
	text := "(" + end(r.Lo) + ", " + end(r.Hi) + ")"
	if math.IsInf(r.Lo, 0) || math.IsInf(r.Hi, 0) {
		text += ", improper"
	}
	return text
}

// paramDeps returns the latents (by index) that exprs read, through lets.
func paramDeps(info *check.Info, exprs []ast.Expr) []int {
	var deps []int
	for _, e := range exprs {
		info.VisitReads(e, true, func(sym *check.Symbol) bool {
			if sym.Kind == check.Param {
				for i, lat := range info.Latents {
					if lat.Symbol == sym && !slices.Contains(deps, i) {
						deps = append(deps, i)
					}
				}
			}
			return false
		})
	}
	return deps
}

// priorOrder sorts the latents so that each comes after those its prior
// reads, in declaration order otherwise; a cycle is an error at the first
// latent on it.
func priorOrder(specs []priorSpec, lats []*check.Latent) ([]int, error) {
	done := make([]bool, len(specs))
	var order []int
	for len(order) < len(specs) {
		progress := false
		for i := range specs {
			if done[i] {
				continue
			}
			ready := true
			for _, d := range specs[i].deps {
				ready = ready && done[d]
			}
			if ready {
				done[i], progress = true, true
				order = append(order, i)
			}
		}
		if !progress {
			var names []string
			first := -1
			for i := range specs {
				if !done[i] {
					names = append(names, "`"+lats[i].Name+"`")
					if first < 0 {
						first = i
					}
				}
			}
			return nil, ast.Errorf(lats[first].Pos, "params %s cannot be drawn from their priors: each one's prior reads another of them", strings.Join(names, ", "))
		}
	}
	return order, nil
}

// Draw draws every param from its prior with rng: it writes the
// coordinates into x (as LogJoint takes them, of length Dim) and the
// values into z (natural scale, element by element as the coordinates),
// and returns the log prior density at the draw. An argument outside its
// parameter's support at this draw, or a truncated prior with too little
// mass on its param's values, is an *ast.Error at the prior.
func (s *PriorSampler) Draw(rng *rand.Rand, x, z []float64) (float64, error) {
	for i := range s.x {
		s.x[i] = math.NaN()
	}
	fresh := false // prog's values are of the current s.x
	for _, i := range s.order {
		sp := &s.specs[i]
		ml := &s.m.Latents[i]
		if !fresh {
			s.prog.ForwardAll(s.x) // its error is of the params not drawn yet
			fresh = true
		}
		if err := sp.readArgs(s.prog); err != nil {
			return 0, err
		}
		xs, zs := s.x[ml.Offset:ml.Offset+ml.Size], z[ml.Offset:ml.Offset+ml.Size]
		if err := sp.draw(rng, ml, xs, zs); err != nil {
			return 0, err
		}
		fresh = false
	}
	for i := range s.missing {
		ms := &s.missing[i]
		ml := &s.m.Latents[ms.lat]
		if !fresh {
			s.prog.ForwardAll(s.x)
			fresh = true
		}
		if err := ms.draw(rng, s.prog, ml, s.x[ml.Offset:ml.Offset+ml.Size], z[ml.Offset:ml.Offset+ml.Size]); err != nil {
			return 0, err
		}
	}
	lp, _ := s.prog.ForwardAll(s.x)
	copy(x, s.x)
	return lp, nil
}

// readArgs broadcasts the prior's argument values to the latent's elements
// and checks them against the distribution's parameter supports.
func (sp *priorSpec) readArgs(p *autodiff.Program) error {
	if sp.wish != nil {
		return sp.readWishart(p)
	}
	for a, id := range sp.args {
		v, sh := p.Value(id), p.Shape(id)
		dst := sp.buf[a]
		arg := sp.call.Args[a]
		switch {
		case len(v) == 1:
			for k := range dst {
				dst[k] = v[0]
			}
		case sp.name == "Dirichlet" && len(sp.dims) == 2 && sh.Rank == 1 && len(v) == sp.dims[1]:
			// alpha [K] for every row of a simplex[N, K], as the
			// density reads it (never one alpha per row)
			for k := range dst {
				dst[k] = v[k%sp.dims[1]]
			}
		case len(v) == len(dst) && (len(sp.dims) < 2 || sh.Rank == 2 && sh.Rows == sp.dims[0]):
			copy(dst, v)
		case len(sp.dims) == 2 && sh.Rank >= 1 && len(v) == sp.dims[0] && (sh.Rank == 1 || sh.Cols == 1):
			for k := range dst {
				dst[k] = v[k/sp.dims[1]]
			}
		case len(sp.dims) == 2 && sh.Rank == 2 && sh.Rows == 1 && len(v) == sp.dims[1]:
			for k := range dst {
				dst[k] = v[k%sp.dims[1]]
			}
		default:
			return ast.Errorf(arg.Pos(), "prior draws: the argument `%s` has shape %s, which does not broadcast to the %d elements of `%s`",
				ast.FormatExpr(arg), sh, len(dst), sp.lat.Name)
		}
		var ps dist.Support = dist.Positive
		if sp.u != nil {
			ps = sp.u.Params[a].Support
		}
		for k, x := range dst {
			if need, ok := ps.Admits(x); !ok {
				where := ""
				if len(dst) > 1 && len(v) > 1 {
					where = fmt.Sprintf(" at element %d", k)
				}
				return ast.Errorf(arg.Pos(), "prior draws: %s's argument `%s` must be %s (got %g%s) at a draw of the params it reads",
					sp.name, ast.FormatExpr(arg), need, x, where)
			}
		}
	}
	return nil
}

// draw draws the latent's elements into its coordinates xs and values zs.
func (sp *priorSpec) draw(rng *rand.Rand, ml *Latent, xs, zs []float64) error {
	switch ml.Support {
	case dist.CholCov, dist.CovMatrix:
		if err := sp.wishartDraw(rng, xs); err != nil {
			return err
		}
		copy(zs, xs) // reported as the K×K values of these coordinates
		return nil
	case dist.CholCorr, dist.CorrMatrix:
		lkjDraw(xs, sp.buf[0][0], sp.dims[0], rng)
		copy(zs, xs) // reported as the K×K values of these coordinates
		return nil
	case dist.Simplex:
		// a simplex[K], or each row of a simplex[N, K] (row-major)
		K := ml.Shape[len(ml.Shape)-1]
		for r := 0; r < len(zs); r += K {
			dist.Dirichlet{Alpha: sp.buf[0][r : r+K]}.Rand(zs[r:r+K], rng)
		}
		for k, v := range zs {
			xs[k] = math.Log(max(v, math.SmallestNonzeroFloat64))
		}
		return nil
	case dist.SumToZero, dist.SumToZeroMatrix:
		for k := range xs {
			xs[k] = sp.buf[1][k] * rng.NormFloat64()
		}
		copy(zs, xs) // reported as the values of these coordinates
		return nil
	case dist.Ordered, dist.PositiveOrdered:
		lo := check.Interval{Lo: math.Inf(-1), Hi: math.Inf(1)}
		if ml.Support == dist.PositiveOrdered {
			lo.Lo = 0
		}
		for k := range zs {
			v, err := sp.drawElem(rng, k, lo)
			if err != nil {
				return err
			}
			zs[k] = v
		}
		g := 1 // ordered[G, K]: each row sorted
		if len(ml.Shape) == 2 {
			g = ml.Shape[0]
		}
		kk := len(zs) / g
		for r := range g {
			slices.Sort(zs[r*kk : (r+1)*kk])
		}
		dist.OrderedRowsCoords(xs, zs, g, ml.Support == dist.PositiveOrdered)
		for k, v := range xs {
			if math.IsInf(v, -1) { // a tie: the least gap
				xs[k] = math.Log(math.SmallestNonzeroFloat64)
			}
		}
		return nil
	}
	return sp.drawElems(rng, ml, xs, zs, nil)
}

// drawElems draws the elements ks of an elementwise prior (nil: every
// element, in order) into xs and zs.
func (sp *priorSpec) drawElems(rng *rand.Rand, ml *Latent, xs, zs []float64, ks []int) error {
	logScale := ml.Support == dist.Positive && !ml.Bounded()
	n := len(ks)
	if ks == nil {
		n = len(zs)
	}
	for j := range n {
		k := j
		if ks != nil {
			k = ks[j]
		}
		if logScale {
			if lx, ok := sp.logDraw(rng, k); ok {
				// a positive param's coordinate is log z, finite where z
				// underflows (Gamma(1e-30, 1), whose draws are mostly
				// below 1e-308) or overflows
				xs[k], zs[k] = lx, math.Exp(lx)
				continue
			}
		}
		v, err := sp.drawElem(rng, k, sp.bnds[k])
		if err != nil {
			return err
		}
		zs[k], xs[k] = v, sp.coord(ml.Support, k, v)
	}
	return nil
}

// coord returns the coordinate of a draw v of element k of a latent of
// support s: v less its affine map (sp.aff), then its log (positive) or
// logit (unit), as a fit's coordinates are.
func (sp *priorSpec) coord(s dist.Support, k int, v float64) float64 {
	b := v
	if loc, scale := sp.aff[k][0], sp.aff[k][1]; scale != 0 {
		b = (v - loc) / scale
	}
	switch s {
	case dist.Positive:
		return math.Log(b)
	case dist.Unit:
		return math.Log(b) - math.Log1p(-b)
	}
	return b
}

// logDraw draws the log of element k from a prior on (0, ∞) that has a
// sampler in log space (Gamma, InvGamma, LogNormal); ok is false for
// another prior.
func (sp *priorSpec) logDraw(rng *rand.Rand, k int) (lx float64, ok bool) {
	arg := func(a int) float64 { return sp.buf[a][k] }
	switch sp.name {
	case "Gamma":
		return dist.SampleGammaLog(arg(0), rng) - math.Log(arg(1)), true
	case "InvGamma":
		return math.Log(arg(1)) - dist.SampleGammaLog(arg(0), rng), true
	case "LogNormal":
		return dist.Normal{Mu: arg(0), Sigma: arg(1)}.Rand(rng), true
	}
	return 0, false
}

// lkjDraw draws the coordinates y of a K×K correlation matrix (or its
// Cholesky factor) from LKJ(eta), as Stan's lkj_corr_cholesky_rng does: the
// canonical partial correlation z = tanh(y) of entry (i, j), i > j, is the
// partial correlation of variables i and j given 0 … j−1, which under LKJ
// is 2·Beta(b_j, b_j) − 1 with b_j = eta + (K − 2 − j)/2 (Lewandowski,
// Kurowicka and Joe 2009, the C-vine). y is row by row, as the coordinates
// (L[1,0], L[2,0], L[2,1], …).
func lkjDraw(y []float64, eta float64, k int, rng *rand.Rand) {
	n := 0
	for i := 1; i < k; i++ {
		for j := range i {
			b := eta + float64(k-2-j)/2
			u := dist.Beta{A: b, B: b}.Rand(rng)
			z := 2*u - 1
			// kept inside (−1, 1), where atanh is finite
			z = max(min(z, math.Nextafter(1, 0)), math.Nextafter(-1, 0))
			y[n] = math.Atanh(z)
			n++
		}
	}
}

// drawElem draws element k of an elementwise prior inside r (open), by
// rejection when the prior's support is wider than r.
func (sp *priorSpec) drawElem(rng *rand.Rand, k int, r check.Interval) (float64, error) {
	if sp.p == nil {
		sp.p = make([]float64, len(sp.buf))
	}
	p := sp.p
	for a := range sp.buf {
		p[a] = sp.buf[a][k]
	}
	inside := func(v float64) bool { return v > r.Lo && v < r.Hi }
	v := sp.u.Rand(p, rng)
	if inside(v) {
		return v, nil
	}
	logP, ok := logIntervalMass(sp.name, p, r.Lo, r.Hi)
	if !ok {
		return 0, ast.Errorf(sp.call.Fun.Pos(), "prior draws: %s has no CDF in gpp to truncate it to the values of `%s`, (%g, %g)", sp.name, sp.lat.Name, r.Lo, r.Hi)
	}
	if logP >= math.Log(minPriorMass) {
		for range maxPriorTries {
			if v = sp.u.Rand(p, rng); inside(v) {
				return v, nil
			}
		}
	}
	// too little mass for rejection: the truncated draw of replicates,
	// by inversion of the log CDF (an end, which inversion may give once
	// in 2⁵³, is outside the open interval: drawn again)
	for range maxInvertTries {
		v, err := dist.TruncInvert(sp.u, p, r.Lo, r.Hi, rng)
		if err != nil {
			return 0, ast.Errorf(sp.call.Fun.Pos(), "prior draws: %s puts %.3g of its mass on the values of `%s`, (%g, %g), at a draw: %v",
				priorText(sp.name, p), math.Exp(logP), sp.lat.Name, r.Lo, r.Hi, err)
		}
		if inside(v) {
			return v, nil
		}
	}
	return 0, ast.Errorf(sp.call.Fun.Pos(), "prior draws: no draw of %s fell inside the values of `%s`, (%g, %g)", priorText(sp.name, p), sp.lat.Name, r.Lo, r.Hi)
}

// priorText writes a distribution with its argument values: "Normal(0, 1)".
func priorText(name string, p []float64) string {
	parts := make([]string, len(p))
	for i, v := range p {
		parts[i] = fmt.Sprintf("%g", v)
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

// readWishart reads a Wishart-family prior's arguments: nu, which must be
// finite and > K − 1, and the scale matrix, factored into L_S: S must be
// symmetric (to 1e-8 of √(S_ii·S_jj), as the density takes it) and
// positive definite, a Cholesky form's L_S have a positive finite
// diagonal (its upper triangle is ignored).
func (sp *priorSpec) readWishart(p *autodiff.Program) error {
	w := sp.wish
	k := w.k
	errf := func(a int, format string, args ...any) error {
		arg := sp.call.Args[a]
		return ast.Errorf(arg.Pos(), "prior draws: %s's argument `%s` %s at a draw of the params it reads",
			sp.name, ast.FormatExpr(arg), fmt.Sprintf(format, args...))
	}
	nv, sv := p.Value(sp.args[0]), p.Value(sp.args[1])
	if len(nv) != 1 || len(sv) != k*k {
		return ast.Errorf(sp.call.Pos(), "prior draws: %s's arguments have shapes %s and %s; for `%s` they must be a scalar and [%d, %d]",
			sp.name, p.Shape(sp.args[0]), p.Shape(sp.args[1]), sp.lat.Name, k, k)
	}
	w.nu = nv[0]
	if !(w.nu > float64(k-1)) || math.IsInf(w.nu, 1) {
		return errf(0, "must be finite and > K − 1 = %d (got %g)", k-1, w.nu)
	}
	for i := range k {
		for j := range k {
			v := sv[i*k+j]
			if j > i {
				v = 0 // L_S's upper triangle is ignored, S's is checked below
			}
			w.ls[i*k+j] = v
		}
	}
	if w.form.Chol {
		for i := range k {
			for j := 0; j <= i; j++ {
				v := w.ls[i*k+j]
				if math.IsNaN(v) || math.IsInf(v, 0) || i == j && !(v > 0) {
					return errf(1, "must be a lower Cholesky factor, its diagonal > 0 and its entries finite (got %g at [%d, %d])", v, i, j)
				}
			}
		}
		return nil
	}
	for i := range k {
		for j := range i {
			x, y := sv[i*k+j], sv[j*k+i]
			scale := max(math.Sqrt(math.Abs(sv[i*k+i]*sv[j*k+j])), math.Abs(x), math.Abs(y))
			if !(math.Abs(x-y) <= 1e-8*scale) {
				return errf(1, "must be symmetric (got %g at [%d, %d] and %g at [%d, %d])", x, i, j, y, j, i)
			}
			w.ls[i*k+j] = 0.5 * (x + y)
		}
	}
	if j := dist.CholLower(w.ls, k); j > 0 {
		return errf(1, "must be positive definite (its leading %d×%d minor is not)", j, j)
	}
	return nil
}

// wishartDraw draws the lower factor L of a Wishart-family draw with
// dist.WishartRand (Bartlett's decomposition, as a replicate is drawn),
// and writes its coordinates into y: row by row, L[i, j] below the
// diagonal and log L[i, i] on it, as dist.CholCovValues reads them. A
// cov_matrix param's value L L' is then the draw. A draw that is not
// finite, or an inverse Wishart draw that is not positive definite in
// floating point, is an error at the prior.
func (sp *priorSpec) wishartDraw(rng *rand.Rand, y []float64) error {
	w := sp.wish
	k := w.k
	// the factor of the draw: L_S T, or for the inverse Wishart the
	// Cholesky factor of the draw
	dist.WishartRand(dist.WishartForm{Inverse: w.form.Inverse, Chol: true}, w.l, w.ls, k, w.nu, w.t, w.u, rng)
	c := 0
	for i := range k {
		for j := 0; j <= i; j++ {
			v := w.l[i*k+j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return ast.Errorf(sp.call.Fun.Pos(), "prior draws: a draw of %s(%g, ·) for `%s` is not a finite positive definite matrix in floating point",
					sp.name, w.nu, sp.lat.Name)
			}
			if j == i {
				// a diagonal that underflows (K = 1, nu near 0) is kept
				// at the smallest double, its log finite
				v = math.Log(max(v, math.SmallestNonzeroFloat64))
			}
			y[c+j] = v
		}
		c += i + 1
	}
	return nil
}

package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
)

// walkParam is a param whose elements a ~ statement makes a chain along
// its last axis: a random walk or an AR(p) process written centred, as
// x[1:] ~ Normal(x[:T-1], s), x[:, 1:] ~ Normal(x[:, :W-1], s) or, in a
// loop, x[t] ~ Normal(rho * x[t-1], s). Given the rest, its posterior is
// (nearly) a Gaussian with a precision of bandwidth band over the
// elements in row-major order, the family of a banded factor
// (--fullrank NAME --band K), which a mean-field q cannot follow.
type walkParam struct {
	lat  *check.Latent
	stmt *ast.TildeStmt // the first ~ that makes the chain
	// band is the bandwidth in row-major order that holds the chain: its
	// largest lag over the param's chain statements, times the width of
	// a row for a chain along a matrix's first axis (rows)
	band int
	lag  int  // the largest lag in steps of the chain
	rows int  // for a chain along a matrix's first axis, the row's width; 0 otherwise
	walk bool // the statement's location is the lagged element itself
	// data, for a chain over data with missing cells: the data's name
	// (lat is then its NAME_missing latent, whose elements, the missing
	// cells in order, a banded factor ties as it does a param's)
	data string
	// coords says that q's factor of the param is over coordinates that
	// are not its elements (a sum_to_zero_vector's K − 1 isometric ones, a
	// sum_to_zero_matrix's; a simplex or a matrix support such as
	// cholesky_factor_corr has them too, but the checker refuses the ~ on
	// its parts that a chain needs, no such distribution having its
	// support, and an ordered param is left out above): the chain's
	// precision is banded over the elements, not over those coordinates,
	// so a banded factor does not hold it (a Lee–Carter k, a random walk
	// of 30 as a sum_to_zero_vector: --fullrank k --band 1 ended at ELBO
	// −2793.3 against the mean-field fit's −2792.2), while a full-rank one,
	// which holds any linear map of the coordinates, does
	coords bool
	// step is the statement's step sd where it is a param (sigma_k in
	// k[1:] ~ Normal(k[:T-1] + drift, sigma_k)), "" otherwise
	step string
	// linear says that every ~ that reads the param (directly or through
	// lets) is a Normal whose value and location are linear in it and
	// whose scale does not read it: a linear-Gaussian state space, whose
	// states GaussianDLMObs integrates out
	linear bool
}

// walkParams returns the params of file that a ~ statement makes a
// chain (walkParam), in declaration order, then the data vectors so
// chained whose missing cells the fit makes a latent (missing, by the
// data's name: an AR(1) series with a gap of days); nil for a nil info.
func walkParams(file *ast.File, info *check.Info, missing map[string]bool) []walkParam {
	if file == nil || info == nil {
		return nil
	}
	var out []walkParam
	chain := func(lat *check.Latent, tildes []*ast.TildeStmt) (walkParam, bool) {
		p := walkParam{lat: lat}
		for _, s := range tildes {
			if info.UserDensities[s.Dist] != nil {
				continue
			}
			lag, rows, walk := chainLag(s, lat, info)
			if lag == 0 {
				continue
			}
			if p.stmt == nil {
				p.stmt, p.walk, p.step = s, walk, stepParam(s, info)
			}
			p.lag, p.rows = max(p.lag, lag), max(p.rows, rows)
			p.band = max(p.band, lag*max(rows, 1))
		}
		return p, p.stmt != nil && p.band <= sgvb.MaxBand
	}
	for _, lat := range info.Latents {
		if lat.Dims.Rank() < 1 || lat.Dims.Rank() > 2 || lat.Support.IsOrdered() || sgvb.CheckFullRank(lat.Support, 1) != nil {
			continue
		}
		if p, ok := chain(lat, withLetTildes(file, info, lat)); ok {
			p.coords = lat.Support.IsCoords()
			p.linear = linearGaussian(file, info, lat)
			out = append(out, p)
		}
	}
	for _, d := range info.Data {
		if !missing[d.Name] || d.Missing == nil || d.Dims.Rank() != 1 {
			continue
		}
		// the ~ on the data's parts, read as a param's would be
		var tildes []*ast.TildeStmt
		ast.Inspect(file, func(n ast.Node) bool {
			if s, ok := n.(*ast.TildeStmt); ok {
				if ix, ok := ast.Unparen(s.LHS).(*ast.IndexExpr); ok {
					if id, ok := ast.Unparen(ix.X).(*ast.Ident); ok && info.Uses[id] == d.Symbol {
						tildes = append(tildes, s)
					}
				}
			}
			return true
		})
		lat := d.MissingLatent(0)
		pseudo := &check.Latent{Name: d.Name, Symbol: d.Symbol, Dims: d.Dims, Support: lat.Support}
		if p, ok := chain(pseudo, tildes); ok {
			p.lat, p.data = lat, d.Name
			out = append(out, p)
		}
	}
	return out
}

// withLetTildes returns lat's ~ statements and those on a part of a let
// that reads lat (the velocities v = x[1:] - x[:T-1], v[1:] ~ Normal(beta
// * v[:T-2], s)), in source order.
func withLetTildes(file *ast.File, info *check.Info, lat *check.Latent) []*ast.TildeStmt {
	out := slices.Clone(lat.Tildes)
	r := chainReader{lat: lat, info: info}
	added := false
	ast.Inspect(file, func(n ast.Node) bool {
		if s, ok := n.(*ast.TildeStmt); ok {
			if ix, ok := ast.Unparen(s.LHS).(*ast.IndexExpr); ok && r.letOf(ix.X) != nil {
				out, added = append(out, s), true
			}
		}
		return true
	})
	if added {
		slices.SortStableFunc(out, func(a, b *ast.TildeStmt) int {
			pa, pb := a.Pos(), b.Pos()
			if pa.Line != pb.Line {
				return pa.Line - pb.Line
			}
			return pa.Col - pb.Col
		})
	}
	return out
}

// linearGaussian reports whether every ~ of file that reads lat
// (directly or through lets) is a Normal whose value and location are
// linear in lat and whose scale does not read it, and no target
// statement reads it.
func linearGaussian(file *ast.File, info *check.Info, lat *check.Latent) bool {
	reads := func(e ast.Expr) bool { return readsLatent(e, lat, info, chainLetDepth) }
	ok := true
	ast.Inspect(file, func(n ast.Node) bool {
		if !ok {
			return false
		}
		switch s := n.(type) {
		case *ast.TildeStmt:
			if !reads(s.LHS) && !slices.ContainsFunc(s.Dist.Args, reads) {
				return true
			}
			ok = s.Dist.Fun.Name == "Normal" && len(s.Dist.Args) == 2 && info.UserDensities[s.Dist] == nil &&
				linearIn(s.LHS, lat, info, chainLetDepth) && linearIn(s.Dist.Args[0], lat, info, chainLetDepth) && !reads(s.Dist.Args[1])
		case *ast.TargetStmt:
			ok = !reads(s.Value)
		}
		return true
	})
	return ok
}

// linearIn reports whether e is linear in lat: sums, differences,
// negations, products and quotients by terms that do not read it, parts
// of it and lets linear in it.
func linearIn(e ast.Expr, lat *check.Latent, info *check.Info, depth int) bool {
	if !readsLatent(e, lat, info, depth) {
		return true
	}
	lin := func(e ast.Expr) bool { return linearIn(e, lat, info, depth) }
	free := func(e ast.Expr) bool { return !readsLatent(e, lat, info, depth) }
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		if info.Uses[e] == lat.Symbol {
			return true
		}
		if sym := info.Uses[e]; sym != nil && sym.Kind == check.Let && depth > 0 {
			if let, ok := sym.Decl.(*ast.LetStmt); ok {
				return linearIn(let.Value, lat, info, depth-1)
			}
		}
	case *ast.IndexExpr:
		return lin(e.X) && !slices.ContainsFunc(e.Indices, func(x ast.Expr) bool { return !free(x) })
	case *ast.UnaryExpr:
		return e.Op == ast.Neg && lin(e.X)
	case *ast.BinaryExpr:
		switch e.Op {
		case ast.Add, ast.Sub:
			return lin(e.X) && lin(e.Y)
		case ast.Mul, ast.EMul:
			return free(e.X) && lin(e.Y) || lin(e.X) && free(e.Y)
		case ast.Div:
			return lin(e.X) && free(e.Y)
		}
	}
	return false
}

// stepParam returns the name of the param that is the step sd of chain
// statement s (the sd of a Normal or LogNormal), "" where it is no param.
func stepParam(s *ast.TildeStmt, info *check.Info) string {
	if f := s.Dist.Fun.Name; (f != "Normal" && f != "LogNormal") || len(s.Dist.Args) != 2 {
		return ""
	}
	id, ok := ast.Unparen(s.Dist.Args[1]).(*ast.Ident)
	if !ok {
		return ""
	}
	for _, l := range info.Latents {
		if info.Uses[id] == l.Symbol {
			return l.Name
		}
	}
	return ""
}

// missingLatents returns the names of the data whose missing cells model
// m fits as a latent NAME_missing.
func missingLatents(m *compile.Model) map[string]bool {
	if m == nil {
		return nil
	}
	var out map[string]bool
	for _, l := range m.Latents {
		if name, ok := strings.CutSuffix(l.Name, compile.MissingSuffix); ok {
			if out == nil {
				out = map[string]bool{}
			}
			out[name] = true
		}
	}
	return out
}

// chainLag returns the largest lag by which s reads lat along a chain:
// s is a ~ on a shifted part of lat, or of a let linear in such parts
// (the velocities v = x[1:] - x[:T-1] of a movement model), whose
// distribution's arguments read lat only in parts shifted back (x[k:]
// and x[j:] with j < k, x[..., t+k] and x[..., t+j] for a loop variable
// t, the other indices the same), directly or through such lets; the lag
// is the span of the offsets the statement reads (v[1:] ~ Normal(beta *
// v[:T-2], s) reads x at offsets 0 to 2: an AR(2) chain of x). The chain
// runs along lat's last axis, or along the first axis of a matrix of
// known width (rows as time steps: x: real[T, 2], x[1:] ~ Normal(x[:T-1],
// s)), then rows says the width (0 otherwise), the band in row-major
// order being lag·rows. 0 when s is no such statement. walk says that
// the distribution's first argument is the lagged part of lat alone (a
// random walk, not an AR chain).
func chainLag(s *ast.TildeStmt, lat *check.Latent, info *check.Info) (lag, rows int, walk bool) {
	lag = chainSpan(s, lat, info, lat.Dims.Rank()-1)
	if lag == 0 && lat.Dims.Rank() == 2 && lat.Dims[1].Known() && lat.Dims[1].N > 1 {
		if lag = chainSpan(s, lat, info, 0); lag > 0 {
			rows = lat.Dims[1].N
		}
	}
	if lag == 0 {
		return 0, 0, false
	}
	if len(s.Dist.Args) > 0 {
		if loc, ok := ast.Unparen(s.Dist.Args[0]).(*ast.IndexExpr); ok && refersTo(loc.X, lat, info) {
			walk = true
		}
	}
	return lag, rows, walk
}

// chainSpan returns the span of the offsets along axis (0 or lat's last)
// at which s reads lat, where s is a chain statement along that axis
// (chainLag), else 0.
func chainSpan(s *ast.TildeStmt, lat *check.Latent, info *check.Info, axis int) int {
	lhs := chainReader{lat: lat, info: info, axis: axis}
	if !lhs.part(s.LHS) {
		return 0
	}
	lhs.read(s.LHS, nil, 0, 0)
	rhs := chainReader{lat: lat, info: info, axis: axis, others: lhs.others, othersSet: true}
	rhs.read(s.Dist, nil, 0, 0)
	if lhs.bad || rhs.bad || len(lhs.offs) == 0 || (len(rhs.offs) > 0 && (rhs.base != lhs.base || slices.Max(rhs.offs) >= slices.Max(lhs.offs))) {
		return 0
	}
	all := append(slices.Clone(lhs.offs), rhs.offs...)
	return slices.Max(all) - slices.Min(all)
}

// chainReader collects the offsets along axis at which an expression
// reads lat, directly or through lets, all relative to one loop variable
// (base) or to none (slices), with the same other indices (others, their
// text); bad says that it reads lat otherwise.
type chainReader struct {
	lat       *check.Latent
	info      *check.Info
	axis      int
	base      *check.Symbol
	baseSet   bool
	others    string
	othersSet bool
	offs      []int
	bad       bool
}

// chainLetDepth bounds the lets a chain is followed through.
const chainLetDepth = 8

// part reports whether e is a part of lat or of a let that reads lat.
func (r *chainReader) part(e ast.Expr) bool {
	ix, ok := ast.Unparen(e).(*ast.IndexExpr)
	return ok && (refersTo(ix.X, r.lat, r.info) || r.letOf(ix.X) != nil)
}

// letOf returns the let that e names where its value reads lat (through
// other lets too), else nil.
func (r *chainReader) letOf(e ast.Expr) *ast.LetStmt {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return nil
	}
	sym := r.info.Uses[id]
	if sym == nil || sym.Kind != check.Let || sym.Fn != nil {
		return nil
	}
	let, ok := sym.Decl.(*ast.LetStmt)
	if !ok || !readsLatent(let.Value, r.lat, r.info, chainLetDepth) {
		return nil
	}
	return let
}

// read walks e, whose parts of lat lie shift along the axis from where
// they are written, relative to loop variable base (nil: none).
func (r *chainReader) read(e ast.Node, base *check.Symbol, shift, depth int) {
	ast.Inspect(e, func(nd ast.Node) bool {
		if r.bad {
			return false
		}
		switch e := nd.(type) {
		case *ast.IndexExpr:
			let := r.letOf(e.X)
			if !refersTo(e.X, r.lat, r.info) && let == nil {
				return true
			}
			r.index(e.Indices, let, base, shift, depth)
			return false
		case *ast.Ident:
			if r.info.Uses[e] == r.lat.Symbol { // a use of lat that is not a lagged part of it
				r.bad = true
			} else if let := r.letOf(e); let != nil { // a whole let: its own parts as they are
				r.follow(let, base, shift, depth)
			}
		}
		return true
	})
}

// follow reads the value of let at shift.
func (r *chainReader) follow(let *ast.LetStmt, base *check.Symbol, shift, depth int) {
	if depth >= chainLetDepth {
		r.bad = true
		return
	}
	r.read(let.Value, base, shift, depth+1)
}

// index reads the indices of a part of lat (let nil) or of let.
func (r *chainReader) index(ix []ast.Expr, let *ast.LetStmt, base *check.Symbol, shift, depth int) {
	rank := r.lat.Dims.Rank()
	var at ast.Expr
	var others []ast.Expr
	switch {
	case r.axis == rank-1 && len(ix) == rank:
		at, others = ix[rank-1], ix[:rank-1]
	case r.axis == 0 && rank == 2 && (len(ix) == 1 || len(ix) == 2 && fullSlice(ix[1])):
		at = ix[0]
	default:
		r.bad = true
		return
	}
	for _, o := range others {
		// inside a let, or of one, the other indices must be whole (:),
		// so that they compose
		if mentionsLatent(o, r.lat, r.info) || (let != nil || depth > 0) && !fullSlice(o) {
			r.bad = true
			return
		}
	}
	if o := formatIndices(others); !r.othersSet {
		r.others, r.othersSet = o, true
	} else if o != r.others && depth == 0 {
		r.bad = true
		return
	}
	b, k, ok := chainIndex(at, r.info)
	if !ok || b != nil && base != nil {
		r.bad = true
		return
	}
	if b == nil {
		b = base
	}
	if let != nil {
		r.follow(let, b, shift+k, depth)
		return
	}
	if !r.baseSet {
		r.base, r.baseSet = b, true
	} else if b != r.base {
		r.bad = true
		return
	}
	r.offs = append(r.offs, shift+k)
}

// fullSlice reports whether e is a whole axis, `:`.
func fullSlice(e ast.Expr) bool {
	s, ok := ast.Unparen(e).(*ast.SliceExpr)
	return ok && s.Lo == nil && s.Hi == nil
}

// formatIndices returns the text of a list of indices.
func formatIndices(ix []ast.Expr) string {
	parts := make([]string, len(ix))
	for i, e := range ix {
		parts[i] = ast.FormatExpr(e)
	}
	return strings.Join(parts, ", ")
}

// readsLatent reports whether e uses lat, directly or through lets (at
// most depth deep).
func readsLatent(e ast.Expr, lat *check.Latent, info *check.Info, depth int) bool {
	found := false
	ast.Inspect(e, func(nd ast.Node) bool {
		id, ok := nd.(*ast.Ident)
		if !ok || found {
			return !found
		}
		sym := info.Uses[id]
		switch {
		case sym == lat.Symbol:
			found = true
		case sym != nil && sym.Kind == check.Let && depth > 0:
			if let, ok := sym.Decl.(*ast.LetStmt); ok && readsLatent(let.Value, lat, info, depth-1) {
				found = true
			}
		}
		return !found
	})
	return found
}

// chainIndex reads an index along a chain: a slice lo: (lo: a constant
// int or nil; base nil) or a loop variable plus or minus a constant int
// (t, t - 1, t + 2, 1 + t; base the loop variable).
func chainIndex(e ast.Expr, info *check.Info) (base *check.Symbol, off int, ok bool) {
	switch e := ast.Unparen(e).(type) {
	case *ast.SliceExpr:
		if e.Lo == nil {
			return nil, 0, true
		}
		c, ok := constInt(e.Lo, info)
		return nil, c, ok
	case *ast.Ident:
		if sym := info.Uses[e]; sym != nil {
			if _, loop := sym.Decl.(*ast.ForStmt); loop {
				return sym, 0, true
			}
		}
	case *ast.BinaryExpr:
		if e.Op != ast.Add && e.Op != ast.Sub {
			return nil, 0, false
		}
		x, c, swap := e.X, e.Y, false
		if _, isConst := constInt(x, info); isConst {
			x, c, swap = c, x, true
		}
		if swap && e.Op == ast.Sub { // 1 - t runs backwards
			return nil, 0, false
		}
		b, o, ok := chainIndex(x, info)
		v, isConst := constInt(c, info)
		if !ok || b == nil || !isConst {
			return nil, 0, false
		}
		if e.Op == ast.Sub {
			v = -v
		}
		return b, o + v, true
	}
	return nil, 0, false
}

// constInt returns e's value when the checker folded it to an integer
// constant.
func constInt(e ast.Expr, info *check.Info) (int, bool) {
	c := info.Types[e].Const
	if c == nil || *c != math.Trunc(*c) || math.Abs(*c) > 1<<30 {
		return 0, false
	}
	return int(*c), true
}

// refersTo reports whether e is a name of lat.
func refersTo(e ast.Expr, lat *check.Latent, info *check.Info) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && info.Uses[id] == lat.Symbol
}

// mentionsLatent reports whether e uses lat.
func mentionsLatent(e ast.Expr, lat *check.Latent, info *check.Info) bool {
	found := false
	ast.Inspect(e, func(nd ast.Node) bool {
		if id, ok := nd.(*ast.Ident); ok && info.Uses[id] == lat.Symbol {
			found = true
		}
		return !found
	})
	return found
}

// sameIndices reports whether two lists of indices read the same (the
// rows of a matrix's chains: x[r, t] and x[r, t-1], x[:, 1:] and
// x[:, :W-1]).
func sameIndices(a, b []ast.Expr) bool {
	return slices.EqualFunc(a, b, func(x, y ast.Expr) bool { return ast.FormatExpr(x) == ast.FormatExpr(y) })
}

// bandCovers reports whether fit settings s already give name a joint
// factor that holds a chain of bandwidth band: a full-rank one (alone,
// in a group or --fullrank all) or, unless coords (the chain is over
// elements that are not q's coordinates: walkParam), a banded one of that
// bandwidth or more with name its chain. A low-rank factor cannot (a
// chain's covariance is not low-rank).
func bandCovers(s sgvb.Settings, name string, band int, coords bool) bool {
	if coords && s.Band > 0 {
		return false
	}
	if s.Families[name] == sgvb.FamilyFullRank || s.Families["all"] == sgvb.FamilyFullRank {
		return s.Rank == 0
	}
	if s.Families[name] == sgvb.FamilyBanded {
		return s.Band >= band
	}
	for _, g := range s.FullRankGroups {
		if !slices.Contains(g, name) {
			continue
		}
		switch {
		case s.Band > 0:
			return g[0] == name && s.Band >= band
		case s.Rank == 0:
			return true
		}
	}
	return false
}

// hintedWalks returns the chains that walkHints names: for an SGVB fit
// whose Pareto k̂ raises the alarm (sgvb.ParetoAlarm), the model's
// centred chains over a param's elements (walkParams) that q fits without
// a factor that holds them (bandCovers). A mean-field q makes the states
// independent and explains the data by a larger step sd (a renewal
// model's log R_t walk: sigmaR 0.229 against NUTS's 0.052, ELBO 35 nats
// below the banded fit's); where the data pin the states down, k̂ stays
// low and the banded factor gains about a nat (docs/inference.md).
func hintedWalks(s sgvb.Settings, file *ast.File, info *check.Info, missing map[string]bool, paretoK, relESS float64) []walkParam {
	if s.Method != sgvb.SGVB || !sgvb.ParetoAlarm(paretoK, relESS) {
		return nil
	}
	var out []walkParam
	for _, p := range walkParams(file, info, missing) {
		if !bandCovers(s, p.lat.Name, p.band, p.coords) {
			out = append(out, p)
		}
	}
	return out
}

// gapWalks returns walks without the chains over data with missing cells
// (walkParam.data) none of which lies within the chain's lag of another
// along the data's last axis in model m: a lone missing cell's only
// neighbours are observed, so no banded factor over the missing cells
// ties anything (a trial's AR(2) with two NA 40 rows apart: the hint's
// --fullrank y_missing --band 2 changed nothing and hid the c/r one).
func gapWalks(walks []walkParam, m *compile.Model) []walkParam {
	if m == nil || m.Info() == nil || !slices.ContainsFunc(walks, func(p walkParam) bool { return p.data != "" }) {
		return walks
	}
	cells := m.MissingCells()
	return slices.DeleteFunc(slices.Clone(walks), func(p walkParam) bool {
		mc, ok := cells[p.data]
		return p.data != "" && ok && !missingNeighbours(mc, p.band)
	})
}

// missingNeighbours reports whether two of the missing cells mc lie in
// one row (all indices but the last the same) at most band apart.
func missingNeighbours(mc compile.MissingCells, band int) bool {
	if len(mc.Shape) == 0 || mc.Shape[len(mc.Shape)-1] == 0 {
		return false
	}
	last := mc.Shape[len(mc.Shape)-1]
	c := slices.Sorted(slices.Values(mc.Cells))
	for i := 1; i < len(c); i++ {
		if c[i]/last == c[i-1]/last && c[i]-c[i-1] <= band {
			return true
		}
	}
	return false
}

// walkHints returns one hint per chain of walks (hintedWalks), naming
// its statement and the factor that holds it (walkCure).
func walkHints(walks []walkParam) []string {
	var hints []string
	for _, p := range walks {
		name := p.lat.Name
		kind := fmt.Sprintf("an AR(%d) chain", p.lag)
		if p.lag == 1 && p.walk {
			kind = "a random walk"
		}
		if p.rows > 0 {
			kind += fmt.Sprintf(" along its rows (a band of %d × %d in row-major order)", p.lag, p.rows)
		}
		pos := p.stmt.Pos()
		where := fmt.Sprintf("%s at %d:%d makes", ast.FormatStmt(p.stmt), pos.Line, pos.Col)
		switch {
		case p.data != "":
			hints = append(hints, fmt.Sprintf("%s %s %s, whose missing cells (%s) this q cannot tie together where they neighbour one another (a gap) as the posterior does: "+
				"their sds come out too small and other params may move; %s holds them (a banded-precision normal): "+
				"keep the fit with the higher ELBO (docs/inference.md, Banded-precision factors)",
				where, p.data, kind, name, walkCure(p)))
		case p.coords:
			hints = append(hints, fmt.Sprintf("%s %s %s, whose neighbouring elements this q cannot tie together as the posterior does: %s; "+
				"%s's factor is over its free coordinates, not its elements (a %s), where a banded one does not hold the chain: a full-rank one does "+
				"(it holds any linear map of the coordinates), best with the params %s moves with: --fullrank auto refits with joint factors (the curvature's group, and all where it is within the limits), each warm-started from the mean-field fit "+
				"(or %s --init with this fit's --out directory): keep the fit with the higher ELBO (docs/inference.md, Banded-precision factors)",
				where, name, kind, walkHarm(p), name, p.lat.Support, name, walkCure(p)))
		default:
			dlm := ""
			if p.linear {
				dlm = fmt.Sprintf("; every ~ on %s is a Normal linear in it, a linear-Gaussian state space, where GaussianDLMObs integrates the states out by the Kalman filter (docs/language.md, GaussianDLMObs)", name)
			}
			hints = append(hints, fmt.Sprintf("%s %s %s, whose neighbouring elements this q cannot tie together as the posterior does: %s; "+
				"%s holds the chain (a banded-precision normal): keep the fit with the higher ELBO (docs/inference.md, Banded-precision factors)%s",
				where, name, kind, walkHarm(p), walkCure(p), dlm))
		}
	}
	return hints
}

// walkHarm says what a q that does not hold chain p gets wrong: it
// explains the data by independent states and a larger step sd (a
// renewal model's log R_t walk: sigmaR 0.229 against NUTS's 0.052), while
// the states' own sds may come out too small (a Lee–Carter k: q's sds
// 0.62–0.98× NUTS's) and other params may move.
func walkHarm(p walkParam) string {
	step := "the step sd"
	if p.step != "" {
		step += " " + p.step
	}
	return "it may overstate " + step + ", understate the sds of " + p.lat.Name + "'s elements and misplace other params"
}

// walkCure returns the flags of the factor that holds chain p: a banded
// one of its bandwidth, or a full-rank one where q's coordinates of the
// param are not its elements (coords).
func walkCure(p walkParam) string {
	if p.coords {
		return "--fullrank " + p.lat.Name
	}
	return fmt.Sprintf("--fullrank %s --band %d", p.lat.Name, p.band)
}

// walkFirst is added to a centred or non-centred hint when the model also
// has a chain that walkHints names: there the banded factor is the larger
// cure (the trial's 20 regions' random walks: 307 nats of ELBO against 3
// between the centred and non-centred forms). joint says the hint is the
// mean-field one, which names a joint factor: a chain whose factor must
// be full rank (coords) joins it instead (a Lee–Carter model: --fullrank
// a+bz+k reached NUTS's answer, ELBO −2776.0, where --fullrank k alone
// reached −2788.8 and a+bz −2778.7).
func walkFirst(walks []walkParam, joint bool) string {
	p := walks[0]
	over := p.lat.Name
	if p.data != "" {
		over = p.data + "'s missing cells"
	}
	if p.coords && joint {
		return fmt.Sprintf("; the chain over %s at %d:%d (below) needs %s in a full-rank factor too: join it to that one (+%s)",
			over, p.stmt.Pos().Line, p.stmt.Pos().Col, p.lat.Name, p.lat.Name)
	}
	return fmt.Sprintf("; but the chain over %s at %d:%d is the larger problem here: fit with %s first (below)",
		over, p.stmt.Pos().Line, p.stmt.Pos().Col, walkCure(p))
}

// heldChainHints returns, for an SGVB fit whose Pareto k̂ raises the
// alarm, a hint per centred chain that a banded factor of the fit holds
// (bandCovers, s.Band > 0) and whose step sd is a param (walkParam.step):
// no normal q holds the funnel between that sd and the spread of the
// chain's states, so its sd stays several times too small whether its
// factor is mean-field or joins the chain's (an arrowhead), and the
// curvature check, which is of mean-field fits, says nothing there (at a
// centred stochastic-volatility fit's q, −H is not positive definite).
// Measured against NUTS: sigma's sd 5–9 times too small on two SV series
// (phi's 2–5), sigma_lvl's 3–5 on two local-level ones (docs/inference.md,
// Banded-precision factors); before, such a fit had only the k̂ warning.
func heldChainHints(s sgvb.Settings, file *ast.File, info *check.Info, missing map[string]bool, paretoK, relESS float64) []string {
	if s.Method != sgvb.SGVB || s.Band == 0 || !sgvb.ParetoAlarm(paretoK, relESS) {
		return nil
	}
	var hints []string
	for _, p := range walkParams(file, info, missing) {
		if p.step == "" || p.data != "" || !bandCovers(s, p.lat.Name, p.band, p.coords) {
			continue
		}
		pos := p.stmt.Pos()
		hints = append(hints, fmt.Sprintf("the banded factor holds the chain over %s (%s at %d:%d), but no normal q holds the funnel between its step sd %s and the spread of %s's elements, "+
			"which a centred chain has: %s's sd is likely several times too small (3–9 times NUTS's on the series measured), "+
			"whether its factor is its own or the chain's (an arrowhead), and so may be the sds of the chain's other params; "+
			"gpp sample --against checks them (docs/inference.md, Banded-precision factors)",
			p.lat.Name, ast.FormatStmt(p.stmt), pos.Line, pos.Col, p.step, p.lat.Name, p.step))
	}
	return hints
}

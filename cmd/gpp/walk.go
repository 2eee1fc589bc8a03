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
	band int            // the largest lag over the param's chain statements
	walk bool           // the statement's location is the lagged element itself
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
			lag, walk := chainLag(s, lat, info)
			if lag == 0 {
				continue
			}
			if p.stmt == nil {
				p.stmt, p.walk, p.step = s, walk, stepParam(s, info)
			}
			p.band = max(p.band, lag)
		}
		return p, p.stmt != nil && p.band <= sgvb.MaxBand
	}
	for _, lat := range info.Latents {
		if lat.Dims.Rank() < 1 || lat.Dims.Rank() > 2 || lat.Support.IsOrdered() || sgvb.CheckFullRank(lat.Support, 1) != nil {
			continue
		}
		if p, ok := chain(lat, lat.Tildes); ok {
			p.coords = lat.Support.IsCoords()
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

// chainLag returns the largest lag by which the arguments of s read lat
// when s is a ~ on a shifted part of lat along its last axis and every
// use of lat in its distribution's arguments is the same part shifted
// back (x[k:] and x[j:] with j < k, or x[..., t+k] and x[..., t+j] for a
// loop variable t, the other indices the same); 0 when s is no such
// statement. walk says that the distribution's first argument is the
// lagged part alone (a random walk, not an AR chain).
func chainLag(s *ast.TildeStmt, lat *check.Latent, info *check.Info) (lag int, walk bool) {
	lhs, ok := ast.Unparen(s.LHS).(*ast.IndexExpr)
	if !ok || !refersTo(lhs.X, lat, info) || len(lhs.Indices) != lat.Dims.Rank() {
		return 0, false
	}
	n := len(lhs.Indices)
	for _, ix := range lhs.Indices[:n-1] {
		if mentionsLatent(ix, lat, info) {
			return 0, false
		}
	}
	base, k, ok := chainIndex(lhs.Indices[n-1], info)
	if !ok {
		return 0, false
	}
	bad := false
	ast.Inspect(s.Dist, func(nd ast.Node) bool {
		if bad {
			return false
		}
		switch e := nd.(type) {
		case *ast.IndexExpr:
			if !refersTo(e.X, lat, info) {
				return true
			}
			b, j, ok := chainIndex(e.Indices[len(e.Indices)-1], info)
			if len(e.Indices) != n || !ok || b != base || j >= k || !sameIndices(e.Indices[:n-1], lhs.Indices[:n-1]) {
				bad = true
				return false
			}
			lag = max(lag, k-j)
			return false
		case *ast.Ident:
			if info.Uses[e] == lat.Symbol { // a use of lat that is not a lagged part of it
				bad = true
			}
		}
		return true
	})
	if bad || lag == 0 {
		return 0, false
	}
	if len(s.Dist.Args) > 0 {
		if loc, ok := ast.Unparen(s.Dist.Args[0]).(*ast.IndexExpr); ok && refersTo(loc.X, lat, info) {
			walk = true
		}
	}
	return lag, walk
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
		kind := fmt.Sprintf("an AR(%d) chain", p.band)
		if p.band == 1 && p.walk {
			kind = "a random walk"
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
			hints = append(hints, fmt.Sprintf("%s %s %s, whose neighbouring elements this q cannot tie together as the posterior does: %s; "+
				"%s holds the chain (a banded-precision normal): keep the fit with the higher ELBO (docs/inference.md, Banded-precision factors)",
				where, name, kind, walkHarm(p), walkCure(p)))
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

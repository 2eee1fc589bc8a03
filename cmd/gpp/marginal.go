package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// normalMarginal is a normal–normal hierarchy that integrates out in
// closed form (a random-effects meta-analysis): a vector theta, a
// centred param theta ~ Normal(mu, tau) or the let theta = mu + tau * z
// of a non-centred one, whose only use in the log density is one
// observation y ~ Normal(theta, s) of theta whole, y data of theta's
// length, s reading neither theta nor z. Then y ~ Normal(mu, sqrt(s² +
// tau²)), and theta given y, mu and tau is normal.
type normalMarginal struct {
	lat     *check.Latent // theta's param: theta, or z for the non-centred form
	theta   string
	let     *ast.LetStmt   // the non-centred form's let, nil for a centred one
	prior   *ast.TildeStmt // lat's prior as a ~ statement, nil for a declared one
	loc     ast.Expr       // mu; nil for 0
	scale   ast.Expr       // tau
	obs     *ast.TildeStmt // y ~ Normal(theta, s)
	short   *ast.OutputStmt
	form    string // the marginal ~ statement
	outputs string // the lets and output that draw theta
}

// normalMarginals returns the model's normal–normal hierarchies
// (normalMarginal) in declaration order; none for a nil info.
func normalMarginals(file *ast.File, info *check.Info) []normalMarginal {
	if info == nil || file == nil {
		return nil
	}
	var out []normalMarginal
	ncs := nonCentredParams(file, info)
	for _, lat := range info.Latents {
		prior, loop, loc, scale, _, ok := normalPrior(file, info, lat)
		if !ok || loop != nil || lat.Dims.Rank() != 1 {
			continue
		}
		m := normalMarginal{lat: lat, theta: lat.Name, prior: prior, loc: loc, scale: scale}
		sym, dims := lat.Symbol, lat.Dims
		if constIs(info, loc, 0) && constIs(info, scale, 1) {
			// z ~ Normal(0, 1): the non-centred form, theta its let
			i := slices.IndexFunc(ncs, func(p nonCentredParam) bool { return p.lat == lat })
			if i < 0 || ncs[i].walk || ncs[i].let == nil || ncs[i].elem != nil {
				continue
			}
			if _, typed := info.Types[ncs[i].scale]; !typed { // a chain's scale (z .* a .* b), built anew
				continue
			}
			p := ncs[i]
			if m.loc, ok = splitLoc(p.let.Value, p.use, lat.Symbol, info); !ok || !sameDims(info.Types[p.let.Value].Shape, lat.Dims) {
				continue
			}
			m.let, m.scale, m.theta = p.let, p.scale, p.let.Name.Name
			sym = info.Lookup(m.theta)
			if sym == nil {
				continue
			}
		}
		if info.Types[m.scale].DataOnly || !m.fits(info, lat.Symbol, sym, dims) || !m.onlyUse(file, info, lat.Symbol, sym) {
			continue
		}
		m.write(file, info)
		out = append(out, m)
	}
	return out
}

// fits reports whether m's mu and tau are scalars or of theta's
// length (dims), reading neither theta (sym) nor its param lat.
func (m *normalMarginal) fits(info *check.Info, lat, sym *check.Symbol, dims check.Shape) bool {
	for _, e := range []ast.Expr{m.loc, m.scale} {
		if e == nil {
			continue
		}
		sh := info.Types[e].Shape
		if sh.Rank() != 0 && !sameDims(sh, dims) || reads(info, e, lat, true) || reads(info, e, sym, true) {
			return false
		}
	}
	return true
}

// onlyUse finds the one statement of the log density that reads theta
// (sym) or its param lat, through lets or not, leaving out lat's prior
// and theta's let; ok where it is y ~ Normal(theta, s) (normalMarginal),
// set as m.obs.
func (m *normalMarginal) onlyUse(file *ast.File, info *check.Info, lat, sym *check.Symbol) bool {
	uses := densityUses(file, info, func(s ast.Stmt) bool { return s == ast.Stmt(m.prior) || s == ast.Stmt(m.lat.Decl) }, lat, sym)
	if len(uses) != 1 {
		return false
	}
	obs, ok := uses[0].(*ast.TildeStmt)
	if !ok || obs.Trunc != nil || info.UserDensities[obs.Dist] != nil || !slices.Contains(file.Stmts, ast.Stmt(obs)) {
		return false
	}
	if d := info.Dists[obs.Dist]; d == nil || d.Name != "Normal" || len(obs.Dist.Args) != 2 {
		return false
	}
	id, ok := ast.Unparen(obs.Dist.Args[0]).(*ast.Ident)
	y := info.Types[obs.LHS]
	if !ok || info.Uses[id] != sym || !y.DataOnly || !sameDims(y.Shape, info.Types[obs.Dist.Args[0]].Shape) {
		return false
	}
	s := obs.Dist.Args[1]
	if reads(info, s, lat, true) || reads(info, s, sym, true) {
		return false
	}
	m.obs = obs
	return true
}

// write sets m's marginal and the outputs that draw theta from its
// conditional, as docs/language.md writes them, and the short output
// theta they replace, if any.
func (m *normalMarginal) write(file *ast.File, info *check.Info) {
	y, s, tau := ast.FormatExpr(m.obs.LHS), ast.FormatExpr(m.obs.Dist.Args[1]), ast.FormatExpr(m.scale)
	mu := "0"
	if m.loc != nil {
		mu = ast.FormatExpr(m.loc)
	}
	m.form = fmt.Sprintf("%s ~ Normal(%s, sqrt(square(%s) + square(%s)))", y, mu, s, tau)
	prec := "prec"
	if info.Lookup(prec) != nil {
		prec = m.theta + "_prec"
	}
	mean := fmt.Sprintf("%s / square(%s)", paren(y), s)
	if m.loc != nil && !constIs(info, m.loc, 0) {
		mean = fmt.Sprintf("(%s + %s / square(%s)) / %s", mean, paren(mu), tau, prec)
	} else {
		mean += " / " + prec
	}
	m.outputs = fmt.Sprintf("let %s = 1 / square(%s) + 1 / square(%s) and output %s ~ Normal(%s, 1 / sqrt(%s))",
		prec, s, tau, m.theta, mean, prec)
	for _, st := range file.Stmts {
		if o, ok := st.(*ast.OutputStmt); ok && o.Name.Name == m.theta && o.Value == nil && o.Dist == nil {
			m.short = o
		}
	}
}

// paren puts e in parentheses where it has an operator outside any.
func paren(e string) string {
	if strings.ContainsRune(e, ' ') {
		return "(" + e + ")"
	}
	return e
}

// replaced names what m's marginal replaces: theta's param (and its prior
// statement), the let of the non-centred form and the observation.
func (m normalMarginal) replaced() string {
	at := func(p ast.Pos) string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }
	what := "param " + m.lat.Name
	if m.prior != nil {
		what += " (and the statement at " + at(m.prior.Pos()) + ")"
	}
	if m.let != nil {
		what += ", the let at " + at(m.let.Let)
	}
	return what + " and the statement at " + at(m.obs.Pos())
}

// marginalHint is the hint on m (parameterisationHints): the marginal,
// why, and the outputs that give theta back.
func marginalHint(m normalMarginal, info *check.Info) string {
	head := m.lat.Name + "'s prior" + strings.TrimSuffix(priorPhrase(m.lat, m.prior, nil), ",")
	if m.let != nil {
		head += fmt.Sprintf(", the let %s at %d:%d", m.theta, m.let.Let.Line, m.let.Let.Col)
	}
	tau := ast.FormatExpr(m.scale)
	miss := fmt.Sprintf("cuts off %s's upper tail", tau)
	if m.loc != nil && !info.Types[m.loc].DataOnly {
		miss = fmt.Sprintf("understates %s's sd and %s", ast.FormatExpr(m.loc), miss)
	}
	short := ""
	if m.short != nil {
		short = fmt.Sprintf(" (in place of the output %s at %d:%d)", m.theta, m.short.Output.Line, m.short.Output.Col)
	}
	return fmt.Sprintf("%s and %s at %d:%d, %s's only use in the log density, make a normal–normal hierarchy that integrates out in closed form (a random-effects meta-analysis): "+
		"whether %s is centred or non-centred, q %s, which neither form mends, and --fullrank all only in part; "+
		"the marginal, %s in place of %s, leaves q without %s's elements and fits much better, "+
		"and %s draws %s from its exact conditional given the params%s; "+
		"where a small %s matters, gpp sample of the marginal is quick (docs/language.md, Random-effects meta-analysis: integrate the study effects out)",
		head, ast.FormatStmt(m.obs), m.obs.Pos().Line, m.obs.Pos().Col, m.theta,
		m.theta, miss,
		m.form, m.replaced(), m.theta,
		m.outputs, m.theta, short, tau)
}

// marginalHints returns the hints on the model's normal–normal
// hierarchies (normalMarginals) for a fit whose Pareto k̂ raises the alarm
// (sgvb.ParetoAlarm), one per hierarchy, and the params they cover, whose
// centred and non-centred hints they replace; nil otherwise.
func marginalHints(file *ast.File, info *check.Info, paretoK, relESS float64) (hints []string, covered map[*check.Latent]bool) {
	if !sgvb.ParetoAlarm(paretoK, relESS) {
		return nil, nil
	}
	for _, m := range normalMarginals(file, info) {
		if covered == nil {
			covered = map[*check.Latent]bool{}
		}
		covered[m.lat] = true
		hints = append(hints, marginalHint(m, info))
	}
	return hints, covered
}

// marginalFirst ends the mean-field hint where a marginal hint came
// before it: integrating out is the larger cure.
const marginalFirst = "; but the marginal (above) is the larger cure here: fit it first"

package check

import (
	"math"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// Truncated data: y ~ D(args) T[L, U], Stan's truncation. The density of
// each element of y is D's restricted to [L, U] and divided by D's mass
// there, log P(L ≤ y ≤ U), which the compiler computes from D's log CDF
// (dist.LogCDF). The left side must be data (a param is truncated by its
// declared bounds); the bounds may be anything real, params too, scalars
// or of y's shape; for a discrete D they are ints.

// truncation checks the T[L, U] of the ~ statement s, whose left side has
// type lt and whose distribution is d (nil when unknown); mentioned are
// the latents the left side names.
func (c *checker) truncation(s *ast.TildeStmt, lt Type, d *stdlib.Dist, mentioned []*Latent) {
	t := s.Trunc
	bounds := []struct {
		e    ast.Expr
		name string
	}{{t.Lower, "lower"}, {t.Upper, "upper"}}
	types := make([]Type, 2)
	valid := true
	for i, b := range bounds {
		if b.e == nil {
			continue
		}
		types[i] = c.expr(b.e)
		valid = valid && types[i].Valid()
	}
	steps := c.refuseSteps(t.Lower, t.Upper)
	if d == nil || !lt.Valid() {
		return
	}
	switch {
	case len(mentioned) > 0 && c.isIdentOf(s.LHS, mentioned[0]):
		lat := mentioned[0]
		c.errorf(t.T, "T[...] truncates data; `%s` is a param (declared at %s), which is truncated by its declared bounds instead: param %s: real<lower=L, upper=U> (or one of them)",
			lat.Name, lat.Pos, lat.Name)
		return
	case !lt.DataOnly:
		c.errorf(t.T, "T[...] truncates data, and the left side `%s` is not data: %s; a param is truncated by its declared bounds (real<lower=L, upper=U>)",
			exprString(s.LHS), c.paramCulprit(s.LHS))
		return
	}
	if c.truncBounds(t, types, valid && !steps, lt.Shape, d, exprString(s.LHS), "") {
		c.info.Truncations = append(c.info.Truncations, s)
	}
}

// truncBounds checks the T[L, U] t of distribution d on values of shape
// vs (named lhs in messages), whose bounds have types types (valid when
// they and their checks so far are): d is elementwise with a log CDF, t
// has a bound, a discrete d's bounds are ints, each bound is a scalar or
// of shape vs, and constant bounds are in order.
func (c *checker) truncBounds(t *ast.Truncation, types []Type, valid bool, vs Shape, d *stdlib.Dist, lhs, hint string) bool {
	switch {
	case d.Shape != stdlib.DistElementwise:
		c.errorf(t.T, "T[...] truncates an elementwise distribution; %s is not one", d.Name)
		return false
	case t.Lower == nil && t.Upper == nil:
		c.errorf(t.T, "T[, ] truncates nothing: give a lower bound, an upper bound or both (T[L, ], T[, U], T[L, U])")
		return false
	}
	bounds := []struct {
		e    ast.Expr
		name string
	}{{t.Lower, "lower"}, {t.Upper, "upper"}}
	if _, ok := dist.LogCDF(d.Name, false); !ok {
		c.errorf(t.T, "T[...] needs the log CDF of %s, which gpp does not have; it has those of %s", d.Name, strings.Join(dist.LogCDFNames(), ", "))
		return false
	}
	if dist.PointMassAtZero(d.Name) {
		c.errorf(t.T, "T[...] of %s: its point mass at 0 and density above have no truncation in gpp; its logcdf and logccdf are there for censored values, and the positive values alone are %s", d.Name, strings.TrimPrefix(d.Name, "Hurdle"))
		return false
	}
	if !valid {
		return false
	}
	for i, b := range bounds {
		if b.e == nil {
			continue
		}
		bt := types[i]
		if d.Int && bt.Elem != Int {
			c.errorf(b.e.Pos(), "%s is discrete: the %s bound of T[...] must be an int; %s", d.Name, b.name, c.describe(b.e))
			valid = false
			continue
		}
		if r := broadcast(vs, bt.Shape); r.Err != "" || r.AStretch || !sameShape(r.Shape, vs) {
			c.errorf(b.e.Pos(), "the %s bound of T[...], `%s`, is %s, which does not broadcast to the shape %s of `%s`: a bound is a scalar or one per element%s",
				b.name, exprString(b.e), bt.Shape.describe(), vs.String(), lhs, hint)
			valid = false
		}
	}
	if !valid {
		return false
	}
	if d.Name == "VonMises" { // its CDF is on [−π, π], as Stan's and scipy's
		for i, b := range bounds {
			if v := types[i].Const; b.e != nil && v != nil && (*v < -math.Pi || *v > math.Pi) {
				c.errorf(b.e.Pos(), "VonMises's CDF is on [−π, π] (as in Stan): the %s bound of T[...] must lie there; found %g", b.name, *v)
				valid = false
			}
		}
		if !valid {
			return false
		}
	}
	if t.Lower != nil && t.Upper != nil {
		if lo, hi := types[0].Const, types[1].Const; lo != nil && hi != nil && *lo >= *hi {
			c.errorf(t.Lower.Pos(), "T[L, U] needs L < U; found L = %g, U = %g", *lo, *hi)
			return false
		}
	}
	return true
}

// replicateTruncation checks the T[L, U] of the replicate output s, whose
// draws have type rt: an elementwise distribution with a log CDF, drawn
// truncated (dist.TruncRand, as PyMC's pm.Truncated), its bounds as a ~'s
// on data of the replicate's shape (which its arguments give: a bound
// does not stretch it).
func (c *checker) replicateTruncation(s *ast.OutputStmt, rt Type) {
	t := s.Trunc
	types := make([]Type, 2)
	valid := true
	for i, e := range []ast.Expr{t.Lower, t.Upper} {
		if e != nil {
			types[i] = c.expr(e)
			valid = valid && types[i].Valid()
		}
	}
	steps := c.refuseSteps(t.Lower, t.Upper)
	d := c.info.Dists[s.Dist]
	if d == nil || !rt.Valid() {
		return
	}
	c.truncBounds(t, types, valid && !steps, rt.Shape, d, s.Name.Name,
		"; a replicate has the shape of its distribution's arguments, so give one of them the bound's shape (Normal(rep(mu, N), s))")
}

// TruncationString describes the truncated distribution of s for gpp
// check, as priorString does a truncated prior's: "Normal(mu, sigma)
// truncated to [0, ∞)".
func TruncationString(s *ast.TildeStmt) string {
	lo, hi := "-∞", "∞"
	if s.Trunc.Lower != nil {
		lo = exprString(s.Trunc.Lower)
	}
	if s.Trunc.Upper != nil {
		hi = exprString(s.Trunc.Upper)
	}
	open, close := "[", "]"
	if s.Trunc.Lower == nil {
		open = "("
	}
	if s.Trunc.Upper == nil {
		close = ")"
	}
	return ast.FormatExpr(s.Dist) + " truncated to " + open + lo + ", " + hi + close
}

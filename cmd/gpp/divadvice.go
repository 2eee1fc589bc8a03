package main

import (
	"fmt"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// divAdvice is what gpp sample's divergence warning may advise for the
// model sampled (modelDivAdvice). Its zero value, for a model unknown (gpp
// summary of draws), advises every cure.
type divAdvice struct {
	noFunnel bool // no centred hierarchy (mayFunnel)
	noEdge   bool // no support moves with the params (movingSupport)
	// walk names the model's random walks with the other form of each
	// (walkForms), "" for none: a centred walk's funnel between its step
	// sd and its steps, or a non-centred one's curved ridge, diverges as a
	// hierarchy's does (a nowcast's log-intensity walk: 2 divergences
	// centred, 17 non-centred, user trial t68).
	walk string
}

// modelDivAdvice returns the divAdvice of the checked model file.
func modelDivAdvice(file *ast.File, info *check.Info) divAdvice {
	if info == nil || file == nil {
		return divAdvice{}
	}
	return divAdvice{noFunnel: !mayFunnel(file, info), noEdge: !movingSupport(file, info), walk: walkForms(file, info)}
}

// edgeArgs returns the arguments of family name, n of them, that bound its
// value's support, as dist.Univariate.Ends reads them (Uniform's lo and
// hi, Pareto's y_min, Wiener's tau, all of GEV's): where one moves with
// the params, the density has an edge the sampler can step over.
func edgeArgs(name string, n int) []int {
	u, ok := dist.LookupUnivariate(name)
	if !ok {
		return nil
	}
	var args []int
	switch {
	case u.EndsOf != nil: // the ends move with every argument
		for i := range n {
			args = append(args, i)
		}
		return args
	case u.Support == dist.Interval:
		args = append(args, 0, 1)
	}
	for _, a := range []int{u.LowerArg, u.UpperArg} {
		if a > 0 {
			args = append(args, a-1)
		}
	}
	return args
}

// movingSupport reports whether a ~, or a logpdf, logcdf or logccdf, of
// the model's density has a support that moves with the params: an edge
// argument (edgeArgs) or a truncation bound that is not data and
// constants alone.
func movingSupport(file *ast.File, info *check.Info) bool {
	moves := func(e ast.Expr) bool { return e != nil && !info.Types[e].DataOnly }
	found := false
	for _, s := range file.Stmts {
		if _, out := s.(*ast.OutputStmt); out {
			continue
		}
		ast.Inspect(s, func(n ast.Node) bool {
			if found {
				return false
			}
			var d *ast.CallExpr
			switch n := n.(type) {
			case *ast.TildeStmt:
				d = n.Dist
				if n.Trunc != nil {
					found = moves(n.Trunc.Lower) || moves(n.Trunc.Upper)
				}
			case *ast.CallExpr: // target += logpdf(y, Uniform(0, theta)), logcdf, logccdf
				if f := n.Fun.Name; (f == "logpdf" || f == "logcdf" || f == "logccdf") && len(n.Args) == 2 {
					d, _ = ast.Unparen(n.Args[1]).(*ast.CallExpr)
				}
			}
			if d != nil {
				for _, i := range edgeArgs(d.Fun.Name, len(d.Args)) {
					found = found || i < len(d.Args) && moves(d.Args[i])
				}
			}
			return !found
		})
	}
	return found
}

// walkForms names the model's random walks of a param step sd, each with
// its other form: a centred walk (walkParams) with its non-centred one
// (nonCentredWalk), a non-centred one (nonCentredParams) with its centred
// one, as gpp fit's hints write it; "" where there are none.
func walkForms(file *ast.File, info *check.Info) string {
	var parts []string
	for _, p := range walkParams(file, info, nil) {
		if !p.walk || p.band != 1 || p.step == "" || p.data != "" || p.coords || p.lat.Dims.Rank() != 1 {
			continue
		}
		pos := p.stmt.Pos()
		parts = append(parts, fmt.Sprintf("a centred random walk's funnel between its step sd and its steps (%s at %d:%d, where the data say little about each step) by its non-centred form, %s",
			ast.FormatStmt(p.stmt), pos.Line, pos.Col, nonCentredWalk(p, info)))
	}
	for _, p := range nonCentredParams(file, info) {
		if !p.walk || p.local != nil {
			continue
		}
		where := ""
		if p.let != nil {
			where = fmt.Sprintf(" in the let %s at %d:%d", p.let.Name.Name, p.let.Let.Line, p.let.Let.Col)
		}
		parts = append(parts, fmt.Sprintf("a non-centred random walk's curved ridge (%s%s, where the data pin each state down) by its centred form, %s",
			ast.FormatExpr(p.use), where, p.centred))
	}
	return strings.Join(parts, ", ")
}

// nonCentredWalk writes the non-centred form of centred walk p, x[1:] ~
// Normal(x[:T-1], s) with x[0]'s prior in a ~ of its own: param x_z:
// real[T - 1] ~ Normal(0, 1), param x_0 with x[0]'s prior and let x =
// x_0 + append_row(0, cumsum(s * x_z)); in words where x[0]'s prior is not
// such a ~.
func nonCentredWalk(p walkParam, info *check.Info) string {
	x := p.lat.Name
	var first *ast.TildeStmt
	for _, t := range p.lat.Tildes {
		if ix, ok := ast.Unparen(t.LHS).(*ast.IndexExpr); ok && len(ix.Indices) == 1 && refersTo(ix.X, p.lat, info) {
			if c, ok := constInt(ix.Indices[0], info); ok && c == 0 {
				first = t
			}
		}
	}
	z, x0 := x+"_z", x+"_0"
	steps := p.lat.Dims[0].String() + " - 1"
	if n := p.lat.Dims[0]; n.Known() {
		steps = fmt.Sprint(n.N - 1)
	}
	walk := fmt.Sprintf("let %s = %s + append_row(0, cumsum(%s * %s))", x, x0, p.step, z)
	pos := p.stmt.Pos()
	if first == nil {
		return fmt.Sprintf("param %s: real[%s] ~ Normal(0, 1) and %s, %s a param with %s[0]'s prior, in place of param %s and the statement at %d:%d (%s's uses unchanged)",
			z, steps, walk, x0, x, x, pos.Line, pos.Col, x)
	}
	fp := first.Pos()
	return fmt.Sprintf("param %s: real ~ %s, param %s: real[%s] ~ Normal(0, 1) and %s in place of param %s and the statements at %d:%d and %d:%d (%s's uses unchanged)",
		x0, ast.FormatExpr(first.Dist), z, steps, walk, x, fp.Line, fp.Col, pos.Line, pos.Col, x)
}

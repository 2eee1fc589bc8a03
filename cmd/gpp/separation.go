package main

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
)

// linkFuncs are the inverse links of a Bernoulli probability,
// Bernoulli(inv_logit(eta)), that separationWarnings looks through.
var linkFuncs = map[string]bool{"inv_logit": true, "Phi": true, "Phi_approx": true, "inv_cloglog": true}

// separationWarnings returns a positioned warning for each top-level
// y ~ BernoulliLogit(eta) on 0/1 data y whose every observation lies on
// the side of 0 that eta gives at q's mean (eta > 0 where y = 1, < 0
// where y = 0), and likewise for y ~ Bernoulli(p) with p an inverse link
// (linkFuncs) of a predictor, on the side of 1/2 that p gives. No value of the params classifies data that are not
// separated so, so such data are (completely) separated: the likelihood
// grows without bound along some direction of the params, their posterior
// there is the prior's tail, and a normal q, which cannot follow a
// Cauchy's or Student's t's tail, may be far off while its k̂ reads well
// (a logistic regression on 40 separated points with Cauchy(0, 2.5)
// slopes: q 21.8 ± 4.6 against the posterior's median 46.8 and 5–95 %
// 11.7–233, k̂ 0.61). eta is evaluated by compiling the model with it
// added as an output; nil when there is no such statement or anything
// fails (the check is advice, not part of the fit).
func separationWarnings(l *pipeline.Loaded, sets map[string]string, r *sgvb.Result) []*ast.Error {
	if l == nil || l.File == nil || l.Info == nil || l.Data == nil || r == nil {
		return nil
	}
	dataNames := map[string]bool{}
	for _, d := range l.Info.Data {
		dataNames[d.Name] = true
	}
	// a checked statement and the value of its argument between the classes
	type sepCheck struct {
		t   *ast.TildeStmt
		cut float64
	}
	var tildes []sepCheck
	stmts := append([]ast.Stmt(nil), l.File.Stmts...)
	for _, s := range l.File.Stmts {
		t, ok := s.(*ast.TildeStmt)
		if !ok || t.Trunc != nil || t.Dist == nil || len(t.Dist.Args) != 1 {
			continue
		}
		if y, ok := t.LHS.(*ast.Ident); !ok || !dataNames[y.Name] || l.Data[y.Name] == nil {
			continue
		}
		var cut float64
		switch call, _ := t.Dist.Args[0].(*ast.CallExpr); {
		case t.Dist.Fun.Name == "BernoulliLogit":
			cut = 0
		case t.Dist.Fun.Name == "Bernoulli" && call != nil && len(call.Args) == 1 && linkFuncs[call.Fun.Name]:
			// a probability through a link of a predictor that may grow
			// without bound; not a unit param, which cannot
			cut = 0.5
		default:
			continue
		}
		name := &ast.Ident{NamePos: t.Pos(), Name: fmt.Sprintf("gpp_separation_%d", len(tildes))}
		stmts = append(stmts, &ast.OutputStmt{Output: t.Pos(), Name: name, Value: t.Dist.Args[0]})
		tildes = append(tildes, sepCheck{t, cut})
	}
	if len(tildes) == 0 {
		return nil
	}
	full := &ast.File{Name: l.File.Name, Stmts: stmts}
	info, err := check.Check(full, &check.Config{Overrides: sets})
	if err != nil {
		return nil
	}
	m, err := compile.Compile(full, info, l.Data)
	if err != nil || m.Dim != r.Dim {
		return nil
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		return nil
	}
	x := make([]float64, m.Dim)
	r.Coords(x, r.Mean())
	_, outs, _ := ev.Eval(x)
	var warns []*ast.Error
	for i, c := range tildes {
		t := c.t
		eta := outs[len(outs)-len(tildes)+i]
		y := l.Data[t.LHS.(*ast.Ident).Name].Values
		if len(y) == 0 || (len(eta) != len(y) && len(eta) != 1) {
			continue
		}
		ones, sep := 0, true
		for k, v := range y {
			e := eta[0]
			if len(eta) > 1 {
				e = eta[k]
			}
			if v == 1 {
				ones++
			}
			if math.IsNaN(e) || !(v == 1 && e > c.cut || v == 0 && e < c.cut) {
				sep = false
				break
			}
		}
		if !sep {
			continue
		}
		yName, etaText := t.LHS.(*ast.Ident).Name, ast.FormatExpr(t.Dist.Args[0])
		warns = append(warns, &ast.Error{Pos: t.Pos(), Msg: fmt.Sprintf(
			"every observation of %s (%d ones, %d zeros) is on the side of %g that %s gives at q's mean: the data are separated, "+
				"so the likelihood does not bound the params along some direction and there the prior alone decides how large "+
				"they are (R's glm: fitted probabilities numerically 0 or 1); a normal q follows a Normal prior's tail but not "+
				"a heavy one (Cauchy, StudentT), whose q means and sds may be far off whatever k̂ says: use a Normal prior "+
				"on the coefficients, or leave out the predictor that separates (docs/inference.md, Full-rank factors)",
			yName, ones, len(y)-ones, c.cut, etaText)})
	}
	return warns
}

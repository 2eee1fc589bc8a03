package main

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// linkFuncs are the inverse links of a Bernoulli probability,
// Bernoulli(inv_logit(eta)), that separationWarnings looks through.
var linkFuncs = map[string]bool{"inv_logit": true, "Phi": true, "Phi_approx": true, "inv_cloglog": true}

// separationWarnings returns a positioned warning for each
// y ~ BernoulliLogit(eta), or target += logpdf(y, BernoulliLogit(eta)),
// on 0/1 data y whose every observation lies on
// the side of 0 that eta gives at q's mean (eta > 0 where y = 1, < 0
// where y = 0), and likewise for y ~ Bernoulli(p) with p an inverse link
// (linkFuncs) of a predictor, on the side of 1/2 that p gives; a ~ in a
// for loop (y[i] ~ BernoulliLogit(eta[i]), or its logpdf) is judged on
// all its iterations together. No value of the params classifies data that are
// not separated so, so such data are (completely) separated: the
// likelihood grows without bound along some direction of the params, their
// posterior there is the prior's tail, and a normal q, which cannot follow
// a Cauchy's or Student's t's tail, may be far off while its k̂ reads well
// (a logistic regression on 40 separated points with Cauchy(0, 2.5)
// slopes: q 21.8 ± 4.6 against the posterior's median 46.8 and 5–95 %
// 11.7–233, k̂ 0.61). obs are the statements' observations and arguments
// at q's mean, which the fit's evaluator kept when it wrote the mean row
// (drawSet.observed): the check compiles nothing. It is advice, not part
// of the fit, and says nothing where the values do not pair up.
func separationWarnings(obs []compile.Observed) []*ast.Error {
	var warns []*ast.Error
	for _, o := range obs {
		if o.Stmt == nil && o.Call == nil {
			continue
		}
		d := o.Dist()
		if o.Truncated() || d == nil || len(d.Args) != 1 {
			continue
		}
		var cut float64
		switch call, _ := d.Args[0].(*ast.CallExpr); {
		case d.Fun.Name == "BernoulliLogit":
			cut = 0
		case d.Fun.Name == "Bernoulli" && call != nil && len(call.Args) == 1 && linkFuncs[call.Fun.Name]:
			// a probability through a link of a predictor that may grow
			// without bound; not a unit param, which cannot
			cut = 0.5
		default:
			continue
		}
		y, eta := o.Y, o.Arg
		if len(y) == 0 || len(eta) != len(y) {
			continue
		}
		ones, sep := 0, true
		for k, v := range y {
			if v == 1 {
				ones++
			}
			if e := eta[k]; math.IsNaN(e) || !(v == 1 && e > cut || v == 0 && e < cut) {
				sep = false
				break
			}
		}
		if !sep {
			continue
		}
		yName, etaText := ast.FormatExpr(o.Value()), ast.FormatExpr(d.Args[0])
		warns = append(warns, &ast.Error{Pos: o.Pos(), Msg: fmt.Sprintf(
			"every observation of %s (%d ones, %d zeros) is on the side of %g that %s gives at q's mean: the data are separated, "+
				"so the likelihood does not bound the params along some direction and there the prior alone decides how large "+
				"they are (R's glm: fitted probabilities numerically 0 or 1); a normal q follows a Normal prior's tail but not "+
				"a heavy one (Cauchy, StudentT), whose q means and sds may be far off whatever k̂ says: use a Normal prior "+
				"on the coefficients, or leave out the predictor that separates (docs/inference.md, Full-rank factors)",
			yName, ones, len(y)-ones, cut, etaText)})
	}
	return warns
}

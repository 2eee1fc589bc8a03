package check

import (
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// probFamily is the family taking a probability (or a simplex) in place of
// the log-odds of each logit family, by name, and the logit argument's index.
var probFamily = map[string]struct {
	name string
	arg  int
}{
	"BernoulliLogit":   {"Bernoulli", 0},
	"BinomialLogit":    {"Binomial", 1},
	"CategoricalLogit": {"Categorical", 0},
	"MultinomialLogit": {"Multinomial", 0},
}

// logitProbs warns of each logit family whose log-odds argument the
// checker proves a probability: its support is unit (or simplex). A probability read as log-odds fits silently: a
// trial's duo-trio model, BinomialLogit(n, pc) with pc a psychometric
// function in (0, 1), halved d′ (0.55 against 1.09 from Binomial(n, pc)).
// A constant is left alone: it may be meant as log-odds.
func (c *checker) logitProbs() {
	ast.Inspect(c.file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || c.info.Dists[call] == nil {
			return true
		}
		pf, ok := probFamily[call.Fun.Name]
		if !ok || pf.arg >= len(call.Args) {
			return true
		}
		e := call.Args[pf.arg]
		t, ok := c.info.Types[e]
		if !ok || !t.Valid() || t.Const != nil || c.constLit(e) {
			return true
		}
		what := ""
		switch {
		case t.Support == dist.Simplex:
			what = "a simplex (each row's entries sum to 1)"
		case t.Support == dist.Unit:
			what = "a probability in (0, 1) (its support is unit)"
		default:
			return true
		}
		args := make([]string, len(call.Args))
		for i, a := range call.Args {
			args[i] = ast.FormatExpr(a)
		}
		d := c.info.Dists[call]
		c.info.Warnings = append(c.info.Warnings, ast.Errorf(e.Pos(),
			"%s takes log-odds, but its argument %d (%s) `%s` is %s: did you mean %s(%s)?",
			call.Fun.Name, pf.arg+1, d.Params[pf.arg].Name, args[pf.arg], what, pf.name, strings.Join(args, ", ")))
		return true
	})
}

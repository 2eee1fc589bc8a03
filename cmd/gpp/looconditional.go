package main

import (
	"fmt"

	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// looCondParam is a param with an element per observation that log_lik
// reads (looConditional): a latent of each observation, such as the
// gamma multiplier u of y[i] ~ Poisson(mu[i] * u[i]). Leaving y[i] out
// should leave u[i] with its prior alone, a distribution that importance
// sampling from the full posterior, where u[i] is pinned by y[i], cannot
// reweight to (Vehtari, Mononen, Tolvanen, Sivula and Winther 2016): the
// PSIS estimate of the model's elpd is unreliable and typically too
// optimistic, while the same model with u integrated out (NegBinomial)
// estimates it well.
type looCondParam struct {
	name  string
	pos   ast.Pos // the param's declaration
	llPos ast.Pos // log_lik's output statement
	// marginal is the model with the param integrated out where it is a
	// pattern whose integral gpp has (a gamma multiplier of a Poisson
	// rate: NegBinomial), else "".
	marginal string
}

// looConditional returns the params that log_lik reads and that have an
// element per observation (perObservationParams, kfold's detection: their
// shape changes when the model is compiled on one row fewer, or one more
// where data that index the rows forbid fewer), in
// declaration order; nil where the model has no log_lik vector or its
// observations' count cannot be found (kfoldSetup.findRows).
func looConditional(l *pipeline.Loaded) []looCondParam {
	if l == nil || l.Model == nil || l.Info == nil {
		return nil
	}
	su := &kfoldSetup{l: l, ll: -1}
	for i, o := range l.Model.Outputs {
		if o.Name == looOutput && len(o.Shape) == 1 {
			su.ll, su.n = i, o.Shape[0]
		}
	}
	var out *check.OutputVar
	for _, o := range l.Info.Outputs {
		if o.Name == looOutput {
			out = o
		}
	}
	if su.ll < 0 || su.n < 2 || out == nil || out.Value == nil || su.findRows() != nil {
		return nil
	}
	// The model on one row fewer; where that does not compile (other
	// data index the observations, an ICAR's edges naming the last
	// area), on one row more, the last repeated.
	rows := make([]int, su.n-1, su.n+1)
	for i := range rows {
		rows[i] = i
	}
	sub, err := su.model(rows)
	if err != nil {
		rows = append(rows, su.n-1, su.n-1)
		if sub, err = su.model(rows); err != nil {
			return nil
		}
	}
	var cond []looCondParam
	for _, i := range perObservationParams(l.Model, sub) {
		if i >= len(l.Info.Latents) {
			break // the latents of missing cells (NAME_missing), which no param names
		}
		lat := l.Info.Latents[i]
		reads := false
		l.Info.VisitReads(out.Value, true, func(s *check.Symbol) bool {
			reads = s == lat.Symbol
			return reads
		})
		if reads {
			cond = append(cond, looCondParam{name: lat.Name, pos: lat.Pos, llPos: out.Pos, marginal: gammaPoissonForm(l.File, l.Info, lat, out.Value)})
		}
	}
	return cond
}

// gammaPoissonForm returns, where lat has the prior Gamma(a, b)
// (declared, or a ~ on the whole param) and log_lik's value e reads a
// Poisson whose rate is m .* lat or lat .* m, the distribution of the
// observation with lat integrated out: NegBinomial(m, a) for a = b (gpp's
// NegBinomial is NB2: mean m, shape a), NegBinomial(m .* a / b, a)
// otherwise (m parenthesised where it is an operator's). "" for any other
// pattern.
func gammaPoissonForm(file *ast.File, info *check.Info, lat *check.Latent, e ast.Expr) string {
	prior := lat.Prior
	if prior == nil && file != nil {
		for _, s := range file.Stmts {
			if t, ok := s.(*ast.TildeStmt); ok {
				if id, ok := ast.Unparen(t.LHS).(*ast.Ident); ok && info.Uses[id] == lat.Symbol {
					prior = t.Dist
				}
			}
		}
	}
	if prior == nil || prior.Fun.Name != "Gamma" || len(prior.Args) != 2 {
		return ""
	}
	a, b := ast.FormatExpr(prior.Args[0]), ast.FormatExpr(prior.Args[1])
	form := ""
	var visit func(n ast.Node)
	visit = func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if form != "" || !ok {
				return form == ""
			}
			if c.Fun.Name != "Poisson" || len(c.Args) != 1 {
				return true
			}
			mul, ok := ast.Unparen(c.Args[0]).(*ast.BinaryExpr)
			if !ok || (mul.Op != ast.Mul && mul.Op != ast.EMul) {
				return true
			}
			for _, side := range [2][2]ast.Expr{{mul.X, mul.Y}, {mul.Y, mul.X}} {
				if id, ok := ast.Unparen(side[0]).(*ast.Ident); ok && info.Uses[id] == lat.Symbol {
					m := ast.FormatExpr(ast.Unparen(side[1]))
					if a == b {
						form = fmt.Sprintf("NegBinomial(%s, %s)", m, a)
						return false
					}
					switch ast.Unparen(side[1]).(type) {
					case *ast.Ident, *ast.NumberLit, *ast.CallExpr, *ast.IndexExpr, *ast.SliceExpr:
					default: // an operator: parenthesised under .*
						m = "(" + m + ")"
					}
					form = fmt.Sprintf("NegBinomial(%s .* %s / %s, %s)", m, a, b, a)
					return false
				}
			}
			return true
		})
	}
	visit(e)
	if form == "" {
		return ""
	}
	return fmt.Sprintf("a %s multiplier of a Poisson rate integrates out to a negative binomial: %s in place of the Poisson, without param %s (gpp's NegBinomial(mu, phi) is NB2, mean mu and shape phi)", ast.FormatExpr(prior), form, lat.Name)
}

// looConditionalWarning is the warning of a LOO estimate whose log_lik
// reads the per-observation params cond (looConditional), or "" for none.
// The estimand is the model's elpd, the same as with the params
// integrated out; its PSIS estimate is what fails. It takes the place of looWarning's advice, which
// points at q and at gpp kfold: neither helps here (K-fold and --reloo
// refuse a param per observation, and moment matching, whose moved draws
// still hold each u[i] near its posterior given observation i, made NUTS's elpd_loo of an explicit gamma–Poisson
// mixture more optimistic still: −614 to −609 against −636 for the same
// model with u integrated out), and what does is a model with the param
// integrated out.
func looConditionalWarning(cond []looCondParam) string {
	if len(cond) == 0 {
		return ""
	}
	c := cond[0]
	names := c.name
	for _, o := range cond[1:] {
		names += ", " + o.name
	}
	integrate := fmt.Sprintf("write the model with %s integrated out of each observation's distribution (its marginal likelihood)", names)
	if c.marginal != "" && len(cond) == 1 {
		integrate = "write the model with it integrated out: " + c.marginal
	}
	return fmt.Sprintf("LOO: log_lik (%s) reads %s (declared at %s), a param with an element per observation: "+
		"leaving observation i out sends %s[i] back to its prior, a change far larger than importance sampling from the full posterior, where observation i pins %s[i], can reweight, "+
		"so this elpd_loo is unreliable and typically too optimistic (loo.csv records per_observation_params, and gpp compare flags the fit); "+
		"gpp kfold and --reloo refuse such a param, and --moment-match does not mend it: "+
		"%s; PSIS-LOO of that model estimates the same elpd (Vehtari, Mononen, Tolvanen, Sivula and Winther 2016)",
		c.llPos, names, c.pos, c.name, c.name, integrate)
}

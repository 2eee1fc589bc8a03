package main

import (
	"fmt"
	"strings"

	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
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
	// index is the int data through which log_lik reads the param
	// (phi[area]: "area"), "" where it reads the param's elements whole.
	index string
	// coupled: the param's prior couples its elements (a multivariate
	// prior, a sum-to-zero constraint, a target += that reads it: an
	// ICAR's differences), so that leaving observation i out sends its
	// element back to its conditional given the others, not its prior.
	coupled bool
}

// looCondShare is the most observations an element of a param read
// through an index may have for the element to count as the observation's
// own: leaving one of at most two out changes the element's posterior
// about as much as leaving out its only one (icar_k's phi[area], one area
// per observation, has the same elpd_loo and k̂ as icar's phi). The param
// counts where at least half of the observations read such an element.
const looCondShare = 2

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
	if su.ll < 0 || su.n < 2 || out == nil || out.Value == nil {
		return nil
	}
	found := map[int]string{} // latent → its index ("" for direct)
	recompiled := false
	if su.findRows() == nil {
		// The model on one row fewer; where that does not compile
		// (other data index the observations, an ICAR's edges naming
		// the last area), on one row more, the last repeated.
		rows := make([]int, su.n-1, su.n+1)
		for i := range rows {
			rows[i] = i
		}
		sub, err := su.model(rows)
		if err != nil {
			rows = append(rows, su.n-1, su.n-1)
			sub, err = su.model(rows)
		}
		if recompiled = err == nil; recompiled {
			for _, i := range perObservationParams(l.Model, sub) {
				if i < len(l.Info.Latents) { // past them: the latents of missing cells (NAME_missing), which no param names
					found[i] = ""
				}
			}
		}
	}
	// What log_lik reads: where the rows cannot be cut (data of N × N, a
	// CAR's weights), a param of n elements read whole; and a param read
	// through int data of n values that give most observations an
	// element of their own (looCondShare).
	for i, index := range looReadsByObservation(l, out.Value, su.n, !recompiled) {
		if _, ok := found[i]; !ok {
			found[i] = index
		}
	}
	var cond []looCondParam
	for i, lat := range l.Info.Latents {
		index, ok := found[i]
		if !ok {
			continue
		}
		if reads(l.Info, out.Value, lat.Symbol, true) {
			cond = append(cond, looCondParam{name: lat.Name, pos: lat.Pos, llPos: out.Pos, marginal: gammaPoissonForm(l.File, l.Info, lat, out.Value),
				index: index, coupled: priorCouples(l.File, l.Info, lat)})
		}
	}
	return cond
}

// looReadsByObservation returns the latents (by index into Info.Latents)
// that e, log_lik's value of n elements, reads an element of per
// observation, through the lets it reads: a 1-D latent of n elements read
// whole ("", only where whole: the model could not be compiled on other
// rows, whose shapes tell better, as a K = N that is not the rows' count
// does not change), or one read as p[idx] (or p[idx[i]] in a loop) with idx int
// data of n values where at least half of the observations' values are
// shared by at most looCondShare observations (the index's name).
func looReadsByObservation(l *pipeline.Loaded, e ast.Expr, n int, whole bool) map[int]string {
	latent := map[*check.Symbol]int{}
	for i, lat := range l.Info.Latents {
		if i < len(l.Model.Latents) {
			latent[lat.Symbol] = i
		}
	}
	out := map[int]string{}
	seen := map[*check.Symbol]bool{}
	var visit func(e ast.Node)
	visit = func(e ast.Node) {
		ast.Inspect(e, func(node ast.Node) bool {
			if ix, ok := node.(*ast.IndexExpr); ok {
				if id, ok := ast.Unparen(ix.X).(*ast.Ident); ok {
					if i, ok := latent[l.Info.Uses[id]]; ok {
						if name := ownIndex(l, ix.Indices, n); name != "" {
							if _, done := out[i]; !done {
								out[i] = name
							}
						}
						for _, x := range ix.Indices {
							visit(x)
						}
						return false
					}
				}
				return true
			}
			id, ok := node.(*ast.Ident)
			if !ok {
				return true
			}
			sym := l.Info.Uses[id]
			if i, ok := latent[sym]; ok && whole {
				shape := l.Model.Latents[i].Shape
				if v := l.Model.Latents[i].Value; v != nil { // a sum_to_zero_vector's value, not its coordinates
					shape = v
				}
				if len(shape) == 1 && shape[0] == n {
					out[i] = ""
				}
			}
			if sym != nil && !seen[sym] && sym.Kind == check.Let {
				seen[sym] = true
				if ls, ok := sym.Decl.(*ast.LetStmt); ok {
					visit(ls.Value)
				}
			}
			return true
		})
	}
	visit(e)
	return out
}

// ownIndex returns the name of the int data of n values that the indices
// (one: idx, or idx[i]) are, where it gives at least half of the n
// observations an element read by at most looCondShare of them; else "".
func ownIndex(l *pipeline.Loaded, indices []ast.Expr, n int) string {
	if len(indices) != 1 {
		return ""
	}
	x := ast.Unparen(indices[0])
	if ix, ok := x.(*ast.IndexExpr); ok && len(ix.Indices) == 1 {
		x = ast.Unparen(ix.X)
	}
	id, ok := x.(*ast.Ident)
	if !ok || l.Info.Uses[id] == nil || l.Info.Uses[id].Kind != check.Data {
		return ""
	}
	a := l.Data[id.Name]
	if a == nil || !a.Int || len(a.Shape) != 1 || len(a.Values) != n {
		return ""
	}
	count := map[float64]int{}
	for _, v := range a.Values {
		count[v]++
	}
	own := 0
	for _, v := range a.Values {
		if count[v] <= looCondShare {
			own++
		}
	}
	if 2*own < n {
		return ""
	}
	return id.Name
}

// priorCouples reports whether lat's prior couples its elements: a
// sum-to-zero or simplex type, a prior (declared or a ~ on it) of a
// distribution that is not elementwise, or a target += that reads it (an
// ICAR's -0.5 * dot_self(phi[node1] - phi[node2])).
func priorCouples(file *ast.File, info *check.Info, lat *check.Latent) bool {
	if lat.Decl != nil && lat.Decl.Type != nil && (lat.Decl.Type.Kind.IsSumToZero() || lat.Decl.Type.Kind == ast.Simplex) {
		return true
	}
	if lat.PriorDist != nil && lat.PriorDist.Shape != stdlib.DistElementwise {
		return true
	}
	for _, t := range lat.Tildes {
		if d := stdlib.LookupDist(t.Dist.Fun.Name); d != nil && d.Shape != stdlib.DistElementwise {
			return true
		}
	}
	if file == nil {
		return false
	}
	for _, s := range file.Stmts {
		if t, ok := s.(*ast.TargetStmt); ok && reads(info, t.Value, lat.Symbol, false) {
			return true
		}
	}
	return false
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
// The estimand is the model's elpd; its PSIS estimate is what fails. It
// takes the place of looWarning's advice, which points at q and at
// --moment-match: that does not help here (its moved draws still hold
// each u[i] near its posterior given observation i: NUTS's elpd_loo of an
// explicit gamma–Poisson mixture went from −614 to −609, against −636
// for the same model with u integrated out). What does: the param
// integrated out where gpp has its integral (gammaPoissonForm), else
// K-fold, which a param read through an index of its own allows (icar_k:
// elpd_kfold −336.2 ± 13.7 against elpd_loo −297.1), and one with an
// element per observation does not (sameParams).
func looConditionalWarning(cond []looCondParam) string {
	if len(cond) == 0 {
		return ""
	}
	var names, decls, backs, elems []string
	direct, coupled := false, false
	for _, c := range cond {
		names = append(names, c.name)
		decls = append(decls, fmt.Sprintf("%s (declared at %s)", c.name, c.pos))
		direct = direct || c.index == ""
		coupled = coupled || c.coupled
		elem := c.name + "[i]"
		if c.index != "" {
			elem = fmt.Sprintf("%s[%s[i]]", c.name, c.index)
		}
		back := elem + " back to its prior"
		if c.coupled {
			back = elem + " back to its conditional given the other elements (for an ICAR or CAR, given its neighbours), not to its prior, as the prior couples them"
		}
		elems, backs = append(elems, elem), append(backs, back)
	}
	c := cond[0]
	var whats []string
	if direct {
		whats = append(whats, "an element per observation")
	}
	for _, o := range cond {
		if o.index != "" {
			whats = append(whats, fmt.Sprintf("read through the index %s (%s[%s]), which gives most observations an element that at most %d observations read", o.index, o.name, o.index, looCondShare))
		}
	}
	what := "a param"
	if len(cond) > 1 {
		what = "params"
	}
	if len(whats) == 1 && direct {
		what += " with " + whats[0]
	} else if direct {
		what += " with " + whats[0] + " or " + strings.Join(whats[1:], ", ")
	} else {
		what += " " + strings.Join(whats, ", ")
	}
	pins := strings.Join(elems, " and ")
	var advice string
	switch {
	case c.marginal != "" && len(cond) == 1:
		advice = "write the model with it integrated out: " + c.marginal + "; PSIS-LOO of that model estimates the same elpd (Vehtari, Mononen, Tolvanen, Sivula and Winther 2016)"
	case direct:
		integrate := fmt.Sprintf("where %s integrates out of each observation's distribution in closed form (not under a Poisson or binomial likelihood), PSIS-LOO of the model without it estimates the same elpd (Vehtari, Mononen, Tolvanen, Sivula and Winther 2016); ", strings.Join(names, ", "))
		if coupled {
			integrate = ""
		}
		var reads []string
		for _, o := range cond {
			if o.index == "" {
				reads = append(reads, o.name+"[area]")
			}
		}
		advice = fmt.Sprintf("gpp kfold and --reloo refuse a param sized by the observations' count; %s"+
			"to estimate the elpd by K-fold, index the elements apart from the observations: give each such param a size of its own (data A: int) and read it as %s, with data area: int[N] naming each observation's element (here A = N and area = 0, 1, …, N - 1); gpp kfold then keeps the elements in every fold and predicts each held-out observation from its element's posterior given the other folds' rows",
			integrate, strings.Join(reads, ", "))
	default:
		advice = fmt.Sprintf("gpp kfold estimates the elpd: it predicts each held-out observation from its element of %s given the other folds' rows", strings.Join(names, ", "))
	}
	return fmt.Sprintf("LOO: log_lik (%s) reads %s, %s: "+
		"leaving observation i out sends %s, a change far larger than importance sampling from the full posterior, where observation i pins %s, can reweight, "+
		"so this elpd_loo is unreliable and typically too optimistic (loo.csv records per_observation_params, and gpp compare flags the fit); "+
		"--moment-match does not mend it: %s",
		c.llPos, strings.Join(decls, ", "), what, strings.Join(backs, ", and "), pins, advice)
}

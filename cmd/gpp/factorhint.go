package main

import (
	"fmt"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
)

// factorRestarts is how many restarts factorHint suggests.
const factorRestarts = 4

// factorOffSDs is how many of its own sds a positive param read by a
// factor product must lie above 0 for factorCollapsed to leave it be: a
// scale whose q mean is below 2 sds reaches 0 within its draws. A
// trial's JSDM fit put d at 0.041 ± 0.038 and 0.078 ± 0.070 (truth 1.40,
// 0.62; NUTS 1.11 ± 0.30, 0.57 ± 0.24, both well clear of it).
const factorOffSDs = 2

// factorOffPrior is the fraction of its prior's mean below which such a
// scale's q mean must also lie (where the prior's mean is known): near 0
// on the prior's scale, not merely uncertain (a weak second factor of a
// small simulation, 0.3 ± 0.16 under HalfNormal(1), mean 0.8, from every
// seed alike; the trial's 0.041 is 1/20 of it).
const factorOffPrior = 0.25

// factorProduct returns the first matrix product X * Y in f's likelihood
// (its ~ statements on data and target += statements, through the lets
// they read) whose operands are both matrices that read params free to
// rotate (rotatable): a latent factor model's site scores times loadings
// (z * Lambda'). A random effect's z * diag(s) or z *
// diag_pre_multiply(tau, L)', L a Cholesky factor, only scales and
// correlates z's columns: a trial's bivariate logit put all 4 restarts
// within 0.1 nats. nil where none, or without info.
func factorProduct(f *ast.File, info *check.Info) *ast.BinaryExpr {
	if f == nil || info == nil {
		return nil
	}
	d := declsOf(f)
	types := map[string]*ast.TypeExpr{}
	ast.Inspect(f, func(n ast.Node) bool {
		if p, ok := n.(*ast.ParamDecl); ok {
			types[p.Name.Name] = p.Type
		}
		return true
	})
	params := func(e ast.Expr) bool { return d.reads(e, d.params, map[string]bool{}) }
	rot := func(e ast.Expr) bool { return d.rotatable(e, types, map[string]bool{}) }
	matrix := func(e ast.Expr) bool {
		t, ok := info.Types[e]
		return ok && t.Valid() && t.Shape.Rank() == 2
	}
	var found *ast.BinaryExpr
	seen := map[string]bool{}
	var find func(e ast.Expr)
	find = func(e ast.Expr) {
		ast.Inspect(e, func(n ast.Node) bool {
			if found != nil {
				return false
			}
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if n.Op == ast.Mul && matrix(n.X) && matrix(n.Y) && rot(n.X) && rot(n.Y) {
					found = n
					return false
				}
			case *ast.Ident:
				if v := d.lets[n.Name]; v != nil && !seen[n.Name] {
					seen[n.Name] = true
					find(v)
				}
			}
			return found == nil
		})
	}
	var lik []ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		if t, ok := n.(*ast.TildeStmt); ok && !params(t.LHS) {
			lik = append(lik, t.Dist)
		}
		return true
	})
	for _, e := range append(lik, d.targets...) {
		if find(e); found != nil {
			return found
		}
	}
	return nil
}

// rotatable reports whether e reads, directly or through lets (seen: those
// already followed), a param whose elements a rotation could mix: a
// matrix param of free elements (real, positive, ...), or a vector param
// anywhere but as the diagonal of diag, diag_pre_multiply or
// diag_post_multiply. A scalar param, a Cholesky factor, a correlation or
// covariance matrix param and such a diagonal fix a matrix's columns:
// they scale and correlate them but leave nothing to rotate.
func (d *modelDecls) rotatable(e ast.Expr, types map[string]*ast.TypeExpr, seen map[string]bool) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			var keep []ast.Expr // the args not read as a diagonal
			switch {
			case n.Fun.Name == "diag":
			case n.Fun.Name == "diag_pre_multiply" && len(n.Args) == 2:
				keep = n.Args[1:]
			case n.Fun.Name == "diag_post_multiply" && len(n.Args) == 2:
				keep = n.Args[:1]
			default:
				return true
			}
			for _, a := range keep {
				found = found || d.rotatable(a, types, seen)
			}
			return false
		case *ast.Ident:
			if t := types[n.Name]; d.params[n.Name] && t != nil {
				found = len(t.Dims) > 0 && !t.Kind.IsMatrix()
			} else if v := d.lets[n.Name]; v != nil && !seen[n.Name] {
				seen[n.Name] = true
				found = d.rotatable(v, types, seen)
			}
		}
		return !found
	})
	return found
}

// factorCollapsed names the elements of r's positive params read by the
// factor product prod whose q mean is below factorOffSDs sds and below
// factorOffPrior of the prior's mean in m ("d[0] is
// at 0.041 ± 0.038"): the scale of a factor that the fit switched off.
// Only scalars and vectors count: a matrix's elements near 0 (positive
// loadings W of a non-negative factorisation) are sparsity, not a
// factor's scale.
func factorCollapsed(f *ast.File, m *compile.Model, prod *ast.BinaryExpr, r *sgvb.Result) []string {
	if r == nil || prod == nil {
		return nil
	}
	d := declsOf(f)
	var out []string
	for i := range r.Factors {
		fa := &r.Factors[i]
		if fa.Support != dist.Positive || len(fa.Shape) > 1 || !d.reads(prod, map[string]bool{fa.Name: true}, map[string]bool{}) {
			continue
		}
		var prior []float64
		if lat := latentNamed(m, fa.Name); lat != nil && len(lat.Init) == fa.Size {
			prior = lat.Init
		}
		mean, sd := fa.Mean(), fa.SD()
		for k := range mean {
			if prior != nil && prior[k] > 0 && !(mean[k] < factorOffPrior*prior[k]) {
				continue
			}
			if mean[k] >= 0 && sd[k] > 0 && mean[k] < factorOffSDs*sd[k] {
				out = append(out, fmt.Sprintf("%s at %.2g ± %.2g", pipeline.LabelledName(fa.Name, fa.Shape, nil, k), mean[k], sd[k]))
			}
		}
	}
	return out
}

// factorHint advises a single fit (mix nil) of a latent factor model
// (factorProduct) that its ELBO has several optima, and names the
// factors it switched off (factorCollapsed): a trial's probit JSDM (25
// species, 150 sites, 2 factors) put both diagonal scales d near 0 at
// ELBO −1676.8 from seed 1, "converged", while seeds 2–4 reached −1666.4
// to −1664.5 with d[0] 0.63 to 1.01 (NUTS 1.11); nothing but --restarts
// showed it. The hint comes where a factor is off, or where the Pareto k̂
// (k, relative ESS ess) raises the alarm. "" otherwise, for restarts and
// for other methods than SGVB and MAP.
func factorHint(s sgvb.Settings, l *pipeline.Loaded, r *sgvb.Result, mix *sgvb.Mixture, k, ess float64) string {
	if mix != nil || r == nil || r.Interrupted || (s.Method != sgvb.SGVB && s.Method != sgvb.MAP) {
		return ""
	}
	prod := factorProduct(l.File, l.Info)
	if prod == nil {
		return ""
	}
	off := factorCollapsed(l.File, l.Model, prod, r)
	alarm := s.Method == sgvb.SGVB && sgvb.ParetoAlarm(k, ess)
	if len(off) == 0 && !alarm {
		return ""
	}
	text := fmt.Sprintf("the model is a latent factor model (%s at %s, a product of two param matrices): its ELBO has several optima "+
		"(a factor switched off, its loading column and its scores shrunk to 0 together; the factors' signs and rotations), "+
		"and one fit ends in the one its start leads to, which a joint q (--fullrank) does not change", ast.FormatExpr(prod), prod.Pos())
	if len(off) > 0 {
		it := "the factor it scales is"
		if len(off) > 1 {
			it = "the factors they scale are"
		}
		text += fmt.Sprintf("; here q puts %s, within %d sds of 0 and read by that product: %s switched off, "+
			"a local optimum common in factor models", joinAnd(off), factorOffSDs, it)
	} else {
		text += "; with this k̂ a fit from another start may find a better one"
	}
	return text + fmt.Sprintf(": gpp fit --restarts %d fits from %d starts and compares their optima, and the hint after them names the best one "+
		"(docs/language.md, Latent factors and JSDMs)", factorRestarts, factorRestarts)
}

// maskedParams returns the matrix params of f that an elementwise product
// with a 0/1 data matrix zero above the diagonal masks (Lraw .* Moff, a
// lower-triangular loading matrix built from masks), each with its
// mask's name: the model already fixes those loadings at 0.
func maskedParams(f *ast.File, vals map[string]*data.Array) map[string]string {
	if f == nil {
		return nil
	}
	d := declsOf(f)
	lower := func(name string) bool {
		a := vals[name]
		if !d.data[name] || a == nil || len(a.Shape) != 2 {
			return false
		}
		for i := range a.Shape[0] {
			for j := range a.Shape[1] {
				v := a.Values[i*a.Shape[1]+j]
				if v != 0 && v != 1 || j > i && v != 0 {
					return false
				}
			}
		}
		return true
	}
	out := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok || b.Op != ast.EMul {
			return true
		}
		x, xok := b.X.(*ast.Ident)
		y, yok := b.Y.(*ast.Ident)
		if !xok || !yok {
			return true
		}
		for _, pair := range [2][2]*ast.Ident{{x, y}, {y, x}} {
			if p, m := pair[0], pair[1]; d.params[p.Name] && lower(m.Name) {
				out[p.Name] = m.Name
			}
		}
		return true
	})
	return out
}

// factorRestartsOff lists, for restarts mix of a factor model, the
// restarts in which a factor is switched off (factorCollapsed), as
// "d[0] at 0.041 ± 0.038 in restart 0".
func factorRestartsOff(l *pipeline.Loaded, mix *sgvb.Mixture) []string {
	if mix == nil || l == nil {
		return nil
	}
	prod := factorProduct(l.File, l.Info)
	if prod == nil {
		return nil
	}
	var out []string
	for c, res := range mix.Components {
		if off := factorCollapsed(l.File, l.Model, prod, res); len(off) > 0 {
			out = append(out, fmt.Sprintf("%s in restart %d", strings.Join(off, ", "), mix.Restarts[c]))
		}
	}
	return out
}

package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// sensAllPriors is --prior's word for every prior, hierarchical
// population priors and non-centred innovations included (gpp
// sensitivity's default before it left those out).
const sensAllPriors = "all"

// sensLeftOut is a param whose prior gpp sensitivity's default leaves
// out of the power-scaled prior, and why.
type sensLeftOut struct {
	name, why string
}

// choosePrior sets the prior selection of a gpp sensitivity (or
// :sensitivity) of the model l where --prior gave none: the priors that
// are prior choices, as brms's lprior holds them and priorsense on a brms
// model power-scales them. It leaves out the priors of the params in
// sensHierarchy, which are the model's structure; where that leaves no
// prior (the top-level params are flat), or none is left out, the
// selection stays nil, every prior. --prior all in a model with a param
// named all is that param's prior.
func (cfg *sensConfig) choosePrior(l *pipeline.Loaded) {
	if cfg.allPriors && l != nil && l.Model != nil && latentNamed(l.Model, sensAllPriors) != nil {
		// the param all, as --fullrank all yields to a param all
		cfg.allPriors, cfg.sel.Prior = false, []string{sensAllPriors}
		return
	}
	if cfg.allPriors || cfg.sel.Prior != nil || l == nil || l.Model == nil {
		return
	}
	out := sensHierarchy(l.File, l.Info)
	if len(out) == 0 {
		return
	}
	var keep []string
	for _, n := range l.Model.PriorOwners() {
		if !slices.ContainsFunc(out, func(o sensLeftOut) bool { return o.name == n }) {
			keep = append(keep, n)
		}
	}
	if len(keep) == 0 {
		cfg.noChoice = true
		return
	}
	cfg.sel.Prior, cfg.leftOut = keep, out
}

// sensHierarchy returns the params whose priors are a hierarchy's
// structure, not a prior choice, in declaration order: a param whose
// prior's arguments read params (a population distribution, theta ~
// Gamma(alpha, beta) or theta ~ Normal(mu, tau), declared or a ~ on the
// param or its elements, as centredParams's hierarchies are), and a
// non-centred innovation (nonCentredParams: z ~ Normal(0, 1) scaled by a
// param elsewhere). brms's lprior leaves both out.
func sensHierarchy(file *ast.File, info *check.Info) []sensLeftOut {
	if file == nil || info == nil {
		return nil
	}
	nc := nonCentredParams(file, info)
	var out []sensLeftOut
	for _, lat := range info.Latents {
		if i := slices.IndexFunc(nc, func(p nonCentredParam) bool { return p.lat == lat }); i >= 0 {
			p := nc[i]
			by := "scaled"
			if p.matrix {
				by = "multiplied" // as innovationProduct says
			}
			out = append(out, sensLeftOut{lat.Name, fmt.Sprintf("Normal(0, 1), a non-centred innovation, %s by %s at %d:%d", by, ast.FormatExpr(p.scale), p.use.Pos().Line, p.use.Pos().Col)})
			continue
		}
		if use, other := innovationProduct(file, info, lat); use != nil {
			out = append(out, sensLeftOut{lat.Name, fmt.Sprintf("Normal(0, 1), a non-centred innovation, multiplied by %s at %d:%d", ast.FormatExpr(other), use.Pos().Line, use.Pos().Col)})
			continue
		}
		for _, d := range paramPriors(file, info, lat) {
			if readsParam(info, d) {
				out = append(out, sensLeftOut{lat.Name, fmt.Sprintf("%s reads params, a population distribution", ast.FormatExpr(d))})
				break
			}
		}
	}
	return out
}

// innovationProduct finds, for a param lat of prior Normal(0, 1), its
// first use as a factor of a matrix product of its own shape whose other
// factor reads params: the multivariate non-centred form where
// nonCentredParams leaves it out (it takes z * M, varying slopes' z *
// (diag(tau) * L)', not M * z, a Cholesky factor's L * z). nil otherwise.
func innovationProduct(file *ast.File, info *check.Info, lat *check.Latent) (use *ast.BinaryExpr, other ast.Expr) {
	_, _, loc, scale, _, ok := normalPrior(file, info, lat)
	if !ok || !constIs(info, loc, 0) || !constIs(info, scale, 1) {
		return nil, nil
	}
	for _, st := range file.Stmts {
		ast.Inspect(st, func(n ast.Node) bool {
			e, ok := n.(*ast.BinaryExpr)
			if use != nil || !ok || e.Op != ast.Mul {
				return use == nil
			}
			for _, side := range [2][2]ast.Expr{{e.X, e.Y}, {e.Y, e.X}} {
				id, ok := ast.Unparen(side[0]).(*ast.Ident)
				if !ok || info.Uses[id] != lat.Symbol || !sameDims(info.Types[e].Shape, info.Types[id].Shape) {
					continue // not z, or a product of another shape (a factor model's W * Z')
				}
				reads := false
				info.VisitReads(side[1], true, func(s *check.Symbol) bool {
					reads = reads || s.Kind == check.Param
					return reads
				})
				if reads {
					use, other = e, ast.Unparen(side[1])
					return false
				}
			}
			return true
		})
		if use != nil {
			break
		}
	}
	return use, other
}

// paramPriors returns the distributions of lat's prior: the declared one
// and those of the ~ statements (in for loops too) whose left side is
// lat or an element or slice of it.
func paramPriors(file *ast.File, info *check.Info, lat *check.Latent) []*ast.CallExpr {
	var ds []*ast.CallExpr
	if lat.Prior != nil {
		ds = append(ds, lat.Prior)
	}
	for _, s := range file.Stmts {
		ast.Inspect(s, func(n ast.Node) bool {
			t, ok := n.(*ast.TildeStmt)
			if !ok {
				return true
			}
			if id := check.ObservedIdent(t.LHS); id != nil && info.Uses[id] == lat.Symbol {
				ds = append(ds, t.Dist)
			}
			return false
		})
	}
	return ds
}

// readsParam reports whether some argument of the distribution d reads a
// param (through lets).
func readsParam(info *check.Info, d *ast.CallExpr) bool {
	reads := false
	for _, a := range d.Args {
		info.VisitReads(a, true, func(s *check.Symbol) bool {
			reads = reads || s.Kind == check.Param
			return reads
		})
	}
	return reads
}

// priorSelectionNote is the table's line, label included, that says
// after a default selection (choosePrior) which priors were left out and
// why, and the flag that power-scales them all, or that none was as every
// prior would have been; "" where the default is every prior.
func (cfg *sensConfig) priorSelectionNote() string {
	if cfg.noChoice {
		return "prior        every prior reads params or is a non-centred innovation (the top-level params are flat), so none is left out: power-scaled them all"
	}
	if len(cfg.leftOut) == 0 {
		return ""
	}
	parts := make([]string, len(cfg.leftOut))
	for i, o := range cfg.leftOut {
		parts[i] = fmt.Sprintf("%s (%s)", o.name, o.why)
	}
	the := "the prior of"
	if len(parts) > 1 {
		the = "the priors of"
	}
	return fmt.Sprintf("left out     %s %s: the model's structure, not a prior choice (brms's lprior leaves such priors out); --prior %s power-scales every prior",
		the, strings.Join(parts, "; "), sensAllPriors)
}

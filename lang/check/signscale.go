package check

import (
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// signScales warns of each scalar param declared real, with no bounds and a
// prior symmetric about 0 (or none), that multiplies a standard-normal
// param (prior Normal(0, 1), an array or vector) in a product: the scale of
// a non-centred effect. sd * z = (−sd) * (−z), so its sign is not
// identified: a trial's VI settled on sd_u = −0.714 ± 0.066, and NUTS
// chains split between +0.75 and −0.73 (R̂ 1.74).
func (c *checker) signScales() {
	warned := map[*Latent]bool{}
	uses := c.latentUses()
	ast.Inspect(c.file, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok || b.Op != ast.Mul && b.Op != ast.EMul {
			return true
		}
		var factors []ast.Expr
		var flatten func(e ast.Expr)
		flatten = func(e ast.Expr) {
			e = ast.Unparen(e)
			if q, ok := e.(*ast.BinaryExpr); ok && (q.Op == ast.Mul || q.Op == ast.EMul) {
				flatten(q.X)
				flatten(q.Y)
				return
			}
			factors = append(factors, e)
		}
		flatten(b)
		var scales, innovations []*Latent
		for _, f := range factors {
			if l := c.identLatent(f); l != nil && c.signFreeScale(l) {
				scales = append(scales, l)
			}
			if ix, ok := f.(*ast.IndexExpr); ok {
				f = ast.Unparen(ix.X)
			}
			if l := c.identLatent(f); l != nil && len(l.Dims) > 0 && c.standardNormal(l) {
				innovations = append(innovations, l)
			}
		}
		if len(innovations) == 0 {
			return true
		}
		for _, s := range scales {
			if warned[s] || !c.onlyTogether(s, innovations[0], uses) {
				continue
			}
			warned[s] = true
			z := innovations[0].Name
			c.info.Warnings = append(c.info.Warnings, ast.Errorf(s.Pos,
				"%s is a scale of the standard-normal %s but declared real: its sign is not identified (%s * %s = (-%s) * (-%s), so q may settle on −%s); declare it positive",
				s.Name, z, s.Name, z, s.Name, z, s.Name))
		}
		return true
	})
}

// latentUses counts each latent's names in the model (its declaration
// apart).
func (c *checker) latentUses() map[*Latent]int {
	n := map[*Latent]int{}
	ast.Inspect(c.file, func(x ast.Node) bool {
		if id, ok := x.(*ast.Ident); ok {
			if sym := c.info.Uses[id]; sym != nil && c.latents[sym] != nil {
				n[c.latents[sym]]++
			}
		}
		return true
	})
	return n
}

// onlyTogether reports whether scale s and innovation z appear only in
// products that hold both as factors: the sign flip (s, z) → (−s, −z) then
// leaves the log joint unchanged. A z read elsewhere (observed with error,
// x_obs ~ Normal(z, tau)) or an s read elsewhere pins the sign.
func (c *checker) onlyTogether(s, z *Latent, uses map[*Latent]int) bool {
	ns, nz := 0, 0
	ast.Inspect(c.file, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok || b.Op != ast.Mul && b.Op != ast.EMul {
			return true
		}
		var fs, fz int
		var walk func(e ast.Expr)
		walk = func(e ast.Expr) {
			e = ast.Unparen(e)
			if q, ok := e.(*ast.BinaryExpr); ok && (q.Op == ast.Mul || q.Op == ast.EMul) {
				walk(q.X)
				walk(q.Y)
				return
			}
			if c.identLatent(e) == s {
				fs++
			}
			if ix, ok := e.(*ast.IndexExpr); ok {
				e = ix.X
			}
			if c.identLatent(e) == z {
				fz++
			}
		}
		walk(b)
		if fs > 0 && fz > 0 {
			ns += fs
			nz += fz
		}
		return false
	})
	return ns == uses[s] && nz == uses[z]
}

// identLatent is the latent that e, a bare name, refers to, or nil.
func (c *checker) identLatent(e ast.Expr) *Latent {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return nil
	}
	sym := c.info.Uses[id]
	if sym == nil {
		return nil
	}
	return c.latents[sym]
}

// signFreeScale reports whether l is a scalar real param without bounds
// whose prior, if any, is symmetric about 0 (halfNames centred at 0).
func (c *checker) signFreeScale(l *Latent) bool {
	if l.Kind != ast.Real || l.Support != dist.Real || len(l.Dims) > 0 || l.Bounded() {
		return false
	}
	if l.Prior == nil {
		return len(l.Tildes) == 0
	}
	if !halfNames[l.Prior.Fun.Name] {
		return false
	}
	loc := 0
	if l.Prior.Fun.Name == "StudentT" {
		loc = 1
	}
	v := c.constArg(l.Prior, loc)
	return v != nil && *v == 0 && len(l.Tildes) == 0
}

// standardNormal reports whether l's declared prior is Normal(0, 1).
func (c *checker) standardNormal(l *Latent) bool {
	if l.Kind != ast.Real || l.Prior == nil || l.Prior.Fun.Name != "Normal" {
		return false
	}
	m, s := c.constArg(l.Prior, 0), c.constArg(l.Prior, 1)
	return m != nil && *m == 0 && s != nil && *s == 1
}

package sgvb

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"

	"github.com/gpplang/gpp/dist"
)

// Joint full-rank factors (Settings.FullRankGroups). A group's latents are
// one block of family FamilyFullRank whose elements are the members'
// elements in the order of the latents; the block's coords map them to the
// coordinate vector and kind marks the logs of positive latents and the
// logits of unit ones. Every other part of the engine treats it as the
// full-rank block of one latent.

// fullRankGroups checks Settings.FullRankGroups against the latents (after
// expandOrdered) and returns the group of each latent named in one, or
// nil when there are none (or the fit is MAP's).
func fullRankGroups(latents []Latent, s *Settings) (map[string]int, error) {
	if s.Method == MAP || len(s.FullRankGroups) == 0 {
		return nil, nil
	}
	if s.Rank < 0 {
		return nil, fmt.Errorf("sgvb: Rank must be ≥ 0, got %d", s.Rank)
	}
	if s.Band != 0 {
		if err := CheckBand(s.Band); err != nil {
			return nil, fmt.Errorf("sgvb: Band: %w", err)
		}
		if s.Rank > 0 {
			return nil, fmt.Errorf("sgvb: Band and Rank are not for the same fit")
		}
	}
	groupOf := map[string]int{}
	for gi, g := range s.FullRankGroups {
		if len(g) < 2 && !(s.Rank > 0 && len(g) == 1) && s.Band == 0 && !s.Method.JointNormal() && !orderedLatent(latents, g) {
			return nil, fmt.Errorf("sgvb: FullRankGroups[%d]: a group needs two or more latents, got %d (one latent: Families)", gi, len(g))
		}
		n, n0 := 0, 0
		for _, name := range g {
			if _, dup := groupOf[name]; dup {
				return nil, fmt.Errorf("sgvb: latent %s is named twice in FullRankGroups", name)
			}
			if _, ok := s.Families[name]; ok {
				return nil, fmt.Errorf("sgvb: latent %s is in FullRankGroups and in Families", name)
			}
			groupOf[name] = gi
			found := false
			for _, l := range latents {
				if l.Name != name {
					continue
				}
				if l.part != partNone && s.Band > 0 { // a full-rank or low-rank group holds the parts' coordinates
					return nil, fmt.Errorf("sgvb: latent %s: %s", name, errOrderedJoint)
				}
				if err := CheckFullRank(l.Support, 1); err != nil {
					return nil, fmt.Errorf("sgvb: latent %s: %w", name, err)
				}
				if l.Support == dist.Simplex && (s.Band > 0 || s.Rank > 0) {
					return nil, fmt.Errorf("sgvb: latent %s: %s", name, errStickJoint)
				}
				found = true
				n += latentElems(l)
				if name == g[0] {
					n0 = latentElems(l)
				}
			}
			if !found {
				return nil, fmt.Errorf("sgvb: FullRankGroups names no latent: %q", name)
			}
		}
		if s.Band > 0 {
			if n-n0 > MaxArrow {
				return nil, fmt.Errorf("sgvb: banded group %s: %d global elements after the chain %s; an arrowhead factor has at most %d (MaxArrow)", strings.Join(g, "+"), n-n0, g[0], MaxArrow)
			}
			continue
		}
		if s.Rank > 0 {
			if err := CheckLowRank(n, s.Rank); err != nil {
				return nil, fmt.Errorf("sgvb: low-rank group %s: %w", strings.Join(g, "+"), err)
			}
			continue
		}
		if s.Method.JointNormal() { // MaxLaplace, checked by laplaceSettings
			continue
		}
		if n > MaxFullRank {
			return nil, fmt.Errorf("sgvb: full-rank group %s: %d elements; a joint full-rank factor has at most %d (MaxFullRank)", strings.Join(g, "+"), n, MaxFullRank)
		}
	}
	return groupOf, nil
}

// orderedLatent reports whether group g is one ordered latent's parts
// (expandOrdered), which make a full-rank group on their own.
func orderedLatent(latents []Latent, g []string) bool {
	if len(g) != 1 {
		return false
	}
	for _, l := range latents {
		if l.Name == g[0] && l.part != partNone {
			return true
		}
	}
	return false
}

// inGroup reports whether latent name is in one of s.FullRankGroups.
func inGroup(s *Settings, name string) bool {
	for _, g := range s.FullRankGroups {
		if slices.Contains(g, name) {
			return true
		}
	}
	return false
}

// jointBlock returns the block of group gi, its parameters at poff: a
// full-rank one, or with rank > 0 a low-rank one of rank min(rank, n), or
// with band > 0 a banded one whose chain is the latent named chain (the
// group's first name), its first member, the others its globals.
func jointBlock(latents []Latent, groupOf map[string]int, gi, poff, rank, band int, chain string) block {
	b := block{fam: FamilyFullRank, support: dist.Real, poff: poff, k: 1}
	order := make([]int, 0, len(latents))
	for i := range latents {
		if band > 0 && latents[i].Name == chain {
			order = append([]int{i}, order...)
		} else {
			order = append(order, i)
		}
	}
	for _, i := range order {
		l := &latents[i]
		if g, ok := groupOf[l.Name]; !ok || g != gi {
			continue
		}
		if b.mem == nil {
			b.lat, b.off = i, l.Offset
		}
		m := latentElems(*l)
		b.mem = append(b.mem, member{name: l.Name, lat: i, lo: b.n, n: m, part: l.part})
		if l.Support == dist.Simplex {
			b.addSticks(l.Offset, l.Size, l.Shape[len(l.Shape)-1])
		} else {
			for j := range l.Size {
				b.coords = append(b.coords, l.Offset+j)
				b.kind = append(b.kind, kindOf(l.Support))
			}
		}
		b.n += m
	}
	b.name = strings.Join(b.names(), "+")
	if rank > 0 {
		b.fam, b.rank = FamilyLowRank, min(rank, b.n)
		b.lr = lowRankScratch(b.rank)
	}
	if band > 0 { // the first latent is the chain, the others its globals
		b.fam, b.band, b.glob = FamilyBanded, band, b.n-b.mem[0].n
	}
	return b
}

// names returns the names of a joint block's latents (an ordered
// latent's parts, consecutive members, once).
func (b *block) names() []string {
	var out []string
	for i, m := range b.mem {
		if i == 0 || m.part != partIncrements {
			out = append(out, m.name)
		}
	}
	return out
}

// initJoint writes a joint block's default start: each member's elements
// at its start (startCoord), L = initSD·I.
func (b *block) initJoint(latents []Latent, th []float64) {
	n := b.n
	for _, m := range b.mem {
		if l := &latents[m.lat]; l.Support == dist.Simplex {
			stickStart(l, l.Shape[len(l.Shape)-1], th[m.lo:m.lo+m.n])
			continue
		}
		for j := range m.n {
			th[m.lo+j] = startCoord(&latents[m.lat], j, 1)
		}
	}
	for i := range n {
		th[n+i] = softplusInv(initSD)
		if b.fam == FamilyBanded { // log d, d = 1/initSD
			th[n+i] = -math.Log(initSD)
		}
	}
	clear(th[2*n:])
}

// warmJoint warm-starts joint block b from r: from r's group of the same
// latents whole, else member by member from r's factors, a full-rank
// factor's mean and L as a diagonal block of the joint L, a normal's mean
// and sds, any other factor's mean.
func (e *engine) warmJoint(b *block, r *Result) {
	th := e.theta[b.poff : b.poff+b.np()]
	names := b.names()
	for _, g := range r.Groups {
		if !slices.Equal(g.Names, names) || len(g.Params) == 0 || len(g.Params[0]) != b.n {
			continue
		}
		if b.fam == FamilyFullRank && g.Rank == 0 && g.Band == 0 && len(g.Params) == b.n+1 || b.fam == FamilyLowRank && g.Rank == b.rank && len(g.Params) == b.rank+2 ||
			b.fam == FamilyBanded && g.Band == b.band && len(g.Params) == b.band+2+b.glob {
			b.thetaFrom(g.Params, th)
			return
		}
	}
	if b.fam == FamilyLowRank {
		e.warmLowRank(b, r, th)
		return
	}
	if b.fam == FamilyBanded {
		e.warmBanded(b, r, th)
		return
	}
	n := b.n
	for m, f := range b.memberFactors(r) {
		l := e.latents[m.lat]
		switch {
		case f.Family == FamilyFullRank:
			copy(th[m.lo:m.lo+m.n], f.Params[0])
			for i := range m.n {
				th[n+m.lo+i] = softplusInv(math.Max(f.Params[1+i][i], minParam))
				for j := range i {
					th[lowIdx(n, m.lo+i, m.lo+j)] = f.Params[1+j][i]
				}
			}
		case f.Family == FamilyNormal && l.Support != dist.Positive, f.Family == FamilyLognormal && l.Support == dist.Positive:
			copy(th[m.lo:m.lo+m.n], f.Params[0])
			for i := range m.n {
				th[n+m.lo+i] = softplusInv(math.Max(f.Params[1][i], minParam))
			}
		default:
			b.warmMoments(th, l, f, m)
		}
	}
}

// spreadJoint sets element i's diagonal entry of the group's L (and, for
// the log of a positive latent or the logit of a unit one, its mean) from
// the mean m and sd s of a factor of another family on the element's own
// scale (spreadFrom's too, for a normal or lognormal block): a gamma factor's
// sd carried to the log scale as sdlog √log(1 + (s/m)²), with the meanlog
// that keeps the mean; a beta factor's (the beta of mean m and sd s)
// carried to the logit scale as the mean and sd of its logit. An
// element whose mean or sd give no such spread keeps its start.
func (b *block) spreadJoint(th []float64, i int, m, s float64) {
	if !(s > 0) || !finite(s) || !finite(m) {
		return
	}
	n := b.n
	if b.logitAt(i) { // the beta of mean m and sd s: logit b has mean ψ(α) − ψ(β), sd √(ψ₁(α) + ψ₁(β))
		c := m*(1-m)/(s*s) - 1 // α + β
		if !isUnit(m) || !isPos(c) {
			return
		}
		a, bb := math.Max(m*c, minParam), math.Max((1-m)*c, minParam)
		th[i] = dist.Digamma(a) - dist.Digamma(bb)
		th[n+i] = softplusInv(math.Max(math.Sqrt(dist.Trigamma(a)+dist.Trigamma(bb)), minParam))
		return
	}
	if !b.logAt(i) {
		th[n+i] = softplusInv(math.Max(s, minParam))
		return
	}
	v := math.Log1p((s / m) * (s / m))
	if !isPos(m) || !isPos(v) {
		return
	}
	th[i], th[n+i] = math.Log(m)-v/2, softplusInv(math.Max(math.Sqrt(v), minParam))
}

// marginal returns the params (mean, columns of L) of the marginal of
// elements [lo, lo+m) under the full-rank params p: their means and the
// Cholesky factor of their block of LLᵀ.
func marginal(p [][]float64, lo, m int) [][]float64 {
	return cholMarginal(p[0][lo:lo+m], func(a, d int) float64 {
		s := 0.0
		for k := 0; k <= lo+d; k++ {
			s += p[1+k][lo+a] * p[1+k][lo+d]
		}
		return s
	})
}

// lowRankMarginal returns the full-rank params (mean, columns of L) of the
// marginal of elements [lo, lo+m) under the low-rank params p (mean, d,
// columns of B): their means and the Cholesky factor of their block of
// BBᵀ + diag(d²).
func lowRankMarginal(p [][]float64, lo, m int) [][]float64 {
	return cholMarginal(p[0][lo:lo+m], func(a, d int) float64 {
		s := 0.0
		if a == d {
			s = p[1][lo+a] * p[1][lo+a]
		}
		for _, col := range p[2:] {
			s += col[lo+a] * col[lo+d]
		}
		return s
	})
}

// cholMarginal returns the full-rank params of the normal of the given
// mean whose covariance has entries cov(a, d), d ≤ a: the mean, then the
// columns of its Cholesky factor.
func cholMarginal(mean []float64, cov func(a, d int) float64) [][]float64 {
	m := len(mean)
	out := make([][]float64, m+1)
	out[0] = append([]float64(nil), mean...)
	c := make([]float64, m*m) // the covariance, then its Cholesky factor, lower triangles
	for a := range m {
		for d := 0; d <= a; d++ {
			c[a*m+d] = cov(a, d)
		}
	}
	for j := range m {
		v := c[j*m+j]
		for k := range j {
			v -= c[j*m+k] * c[j*m+k]
		}
		c[j*m+j] = math.Sqrt(math.Max(v, minParam*minParam))
		for i := j + 1; i < m; i++ {
			s := c[i*m+j]
			for k := range j {
				s -= c[i*m+k] * c[j*m+k]
			}
			c[i*m+j] = s / c[j*m+j]
		}
	}
	for j := range m {
		col := make([]float64, m)
		for i := j; i < m; i++ {
			col[i] = c[i*m+j]
		}
		out[1+j] = col
	}
	return out
}

// groups returns the fitted joint factors.
func (e *engine) groups() []Group {
	var out []Group
	for i := range e.blocks {
		b := &e.blocks[i]
		if b.mem != nil {
			out = append(out, Group{Names: b.names(), Params: b.params(e.theta[b.poff : b.poff+b.np()]), Rank: b.rank, Band: b.band})
		}
	}
	return out
}

// groupBlock returns the block of r's group gi at poff, its members'
// coordinates from their factors; false if a member has no factor or the
// sizes disagree.
func (r *Result) groupBlock(gi, poff int) (block, bool) {
	g := r.Groups[gi]
	b := block{name: strings.Join(g.Names, "+"), fam: FamilyFullRank, support: dist.Real, poff: poff, k: 1}
	if g.Rank > 0 {
		b.fam, b.rank, b.lr = FamilyLowRank, g.Rank, lowRankScratch(g.Rank)
	}
	for _, name := range g.Names {
		f := r.Factor(name)
		if f == nil || f.Family == FamilyOrdered && g.Band > 0 {
			return block{}, false
		}
		m := f.Size
		if f.Family == FamilyOrdered { // its parts' coordinates, x_0 (or log x_0) and the log increments
			for _, p := range f.Parts {
				for j := range p.Size {
					b.coords = append(b.coords, p.Offset+j)
					b.kind = append(b.kind, kindOf(p.Support))
				}
			}
		} else if f.Support == dist.Simplex {
			if len(f.Shape) == 0 || f.Shape[len(f.Shape)-1] < 2 || g.Rank > 0 || g.Band > 0 {
				return block{}, false
			}
			k := f.Shape[len(f.Shape)-1]
			m = stickElems(f.Size, k)
			b.addSticks(f.Offset, f.Size, k)
		} else {
			for j := range f.Size {
				b.coords = append(b.coords, f.Offset+j)
				b.kind = append(b.kind, kindOf(f.Support))
			}
		}
		b.mem = append(b.mem, member{name: name, lo: b.n, n: m})
		b.n += m
	}
	want := b.n + 1
	if b.rank > 0 {
		want = b.rank + 2
	}
	if g.Band > 0 {
		b.fam, b.band, b.glob = FamilyBanded, g.Band, b.n-b.mem[0].n
		want = b.band + 2 + b.glob
	}
	if len(g.Params) != want || len(g.Params[0]) != b.n {
		return block{}, false
	}
	return b, true
}

// warmMoments starts member m of joint block b at the mean and sds of its
// factor f in r, of another family, on the coordinates (spreadJoint);
// l is the member's latent (a copy, whose Init it sets).
func (b *block) warmMoments(th []float64, l Latent, f *Factor, m member) {
	mean, sd := make([]float64, f.Size), make([]float64, f.Size)
	f.moments(mean, sd)
	for k := range mean {
		if loc, scale := f.affineAt(k); scale != 0 {
			mean[k] = (mean[k] - loc) / scale
			sd[k] /= math.Abs(scale)
		}
	}
	l.Init = mean
	for j := range m.n {
		th[m.lo+j] = startCoord(&l, j, 1)
		b.spreadJoint(th, m.lo+j, mean[j], sd[j])
	}
}

// warmLowRank warm-starts low-rank joint block b from r's factors, member
// by member: a low-rank marginal of the same rank whole (its rows of B),
// any other factor's mean and marginal sds as the group's mean and d (C
// keeps its small random start); a factor of another family starts from
// its moments as spreadJoint sets them.
func (e *engine) warmLowRank(b *block, r *Result, th []float64) {
	n, R := b.n, b.rank
	for m, f := range b.memberFactors(r) {
		l := e.latents[m.lat]
		switch {
		case f.Family == FamilyLowRank && len(f.Params) == R+2:
			copy(th[m.lo:m.lo+m.n], f.Params[0])
			for i := range m.n {
				d := math.Max(f.Params[1][i], minParam)
				th[n+m.lo+i] = softplusInv(d)
				for k := range R { // C = D⁻¹B
					th[lrIdx(n, R, m.lo+i, k)] = f.Params[2+k][i] / d
				}
			}
		case f.Family == FamilyFullRank, f.Family == FamilyLowRank,
			f.Family == FamilyNormal && l.Support != dist.Positive, f.Family == FamilyLognormal && l.Support == dist.Positive:
			copy(th[m.lo:m.lo+m.n], f.Params[0])
			sd := coordSDs(f)
			for i := range m.n {
				th[n+m.lo+i] = softplusInv(math.Max(sd[i], minParam))
			}
		default:
			b.warmMoments(th, l, f, m)
		}
	}
}

// memberFactors yields each member of joint block b with each of r's
// whole factors of the same latent and size: what a warm start of b reads.
func (b *block) memberFactors(r *Result) iter.Seq2[member, *Factor] {
	return func(yield func(member, *Factor) bool) {
		fs := flatten(r.Factors)
		for _, m := range b.mem {
			for _, ff := range fs {
				if f := ff.f; f.Name == m.name && f.Size == m.n && ff.part == m.part && !yield(m, f) {
					return
				}
			}
		}
	}
}

// warmBanded warm-starts banded block b from r's factors, member by
// member: a banded factor of one latent and the same bandwidth whole, any
// other factor's mean and marginal sds as the mean and 1/d (C = 0); a
// factor of another family from its moments as spreadJoint sets them.
func (e *engine) warmBanded(b *block, r *Result, th []float64) {
	n := b.n
	clear(th[2*n:])
	for m, f := range b.memberFactors(r) {
		l := e.latents[m.lat]
		switch {
		case b.glob == 0 && f.Family == FamilyBanded && len(f.Params) == b.band+2:
			b.bandedTheta(f.Params, th)
			return
		case f.Family == FamilyFullRank, f.Family == FamilyLowRank, f.Family == FamilyBanded,
			f.Family == FamilyNormal && l.Support != dist.Positive, f.Family == FamilyLognormal && l.Support == dist.Positive:
			copy(th[m.lo:m.lo+m.n], f.Params[0])
			for i, sd := range coordSDs(f) {
				th[n+m.lo+i] = -math.Log(math.Max(sd, minParam))
			}
		default:
			for i := m.lo; i < m.lo+m.n; i++ { // log d → spreadJoint's raw sd, and back
				th[n+i] = softplusInv(math.Max(math.Exp(-th[n+i]), minParam))
			}
			b.warmMoments(th, l, f, m)
			for i := m.lo; i < m.lo+m.n; i++ {
				th[n+i] = -math.Log(math.Max(softplus(th[n+i]), minParam))
			}
		}
	}
}

// arrowFactorParams returns the Params of member m's factor under arrowhead
// block b (glob > 0): the chain's a banded factor of the same bandwidth with
// the exact marginal means and sds and no band (the marginal of the chain
// is not banded: the group holds q), a global's the full-rank factor of its
// exact marginal (mean, the columns of its covariance's Cholesky factor).
func (b *block) arrowFactorParams(p [][]float64, m member) [][]float64 {
	cv := bandedCovOf(p, b.band)
	if m.lo == 0 { // the chain
		out := make([][]float64, b.band+2)
		out[0] = append([]float64(nil), p[0][:m.n]...)
		out[1] = make([]float64, m.n)
		for i := range m.n {
			out[1][i] = 1 / math.Sqrt(cv.at(i, i))
		}
		for k := 1; k <= b.band; k++ {
			out[1+k] = make([]float64, m.n)
		}
		return out
	}
	c := make([]float64, m.n*m.n) // the covariance's lower triangle, then its Cholesky factor
	for a := range m.n {
		for d := 0; d <= a; d++ {
			c[a*m.n+d] = cv.at(m.lo+a, m.lo+d)
		}
	}
	for j := range m.n {
		v := c[j*m.n+j]
		for k := range j {
			v -= c[j*m.n+k] * c[j*m.n+k]
		}
		c[j*m.n+j] = math.Sqrt(math.Max(v, minParam*minParam))
		for i := j + 1; i < m.n; i++ {
			s := c[i*m.n+j]
			for k := range j {
				s -= c[i*m.n+k] * c[j*m.n+k]
			}
			c[i*m.n+j] = s / c[j*m.n+j]
		}
	}
	out := make([][]float64, m.n+1)
	out[0] = append([]float64(nil), p[0][m.lo:m.lo+m.n]...)
	for j := range m.n {
		col := make([]float64, m.n)
		for i := j; i < m.n; i++ {
			col[i] = c[i*m.n+j]
		}
		out[1+j] = col
	}
	return out
}

// coordSDs returns the marginal sds on the coordinates (the logs of a
// positive latent) of a normal, lognormal, full-rank or low-rank factor.
func coordSDs(f *Factor) []float64 {
	p := f.Params
	switch f.Family {
	case FamilyBanded:
		return bandedSDs(p)
	case FamilyFullRank:
		out := make([]float64, f.Size)
		for i := range out {
			v := 0.0
			for j := 0; j <= i; j++ {
				v += p[1+j][i] * p[1+j][i]
			}
			out[i] = math.Sqrt(v)
		}
		return out
	case FamilyLowRank:
		out := make([]float64, f.Size)
		for i := range out {
			v := p[1][i] * p[1][i]
			for _, col := range p[2:] {
				v += col[i] * col[i]
			}
			out[i] = math.Sqrt(v)
		}
		return out
	}
	return p[1]
}

package autodiff

import "slices"

// A linear predictor, mu + tau * z[g] or a + b*x1 + c*x2, is built as a
// chain of elementwise nodes (a gather, a product, a sum), each a pass
// writing N values forward and one backward. Finish (fuseLinear) makes
// such a chain one pass forward and one backward on its last node, with
// no [N] intermediate: the value of each element is formed by the same
// floating-point operations in the same order, and each adjoint gets the
// same terms in the same order as the chain's nodes gave it, so that the
// numbers do not change by a bit.
//
// The chain is R_K = R_(K−1) ± T_K, …, R_1 = T_0 ± T_1, with each term T_k
// a broadcast scalar s, a vector v of the result's length, a gather
// v[idx] of a vector, or a product c * v or c * v[idx] (either order) with
// c a broadcast scalar. The nodes absorbed (R_1 … R_(K−1), the products
// and gathers) are read by nothing else and depend on an input; in the
// evaluation order from the first of them to R_K, the only others are
// copies of elements (beta[1]) that add to no adjoint the chain adds to,
// so that moving the chain's adjoint terms to R_K's place reorders no
// sum. A vector read elementwise whose adjoint is wanted appears once in
// the chain, so that each of its cells gets one contribution from it, and
// not also as a broadcast scalar or a coefficient (one element's).
//
// The absorbed nodes keep their storage: when the fused value is not
// finite (a term was), the evaluation goes on unfused from the chain's
// first node, which gives the error the chain's nodes gave (the first
// that failed, at its position); backwardError likewise replays the
// reverse pass unfused, and loopError the rest of a tape that failed in
// a loop's rows (unfuseFrom).

// linKind is the kind of a term of a linear chain.
type linKind uint8

const (
	linScalar linKind = iota // a broadcast scalar s
	linVec                   // a vector v of the result's length
	linGather                // v[idx]
)

// linTerm is one term of a fused linear chain.
type linTerm struct {
	kind linKind
	sub  bool  // subtracted: T_k of R_k = R_(k−1) − T_k
	top  bool  // a term of the last node, whose adjoint is the root's own
	base int32 // s, v, or the gathered vector
	coef int32 // c of a product c * base, or −1
	idx  []int // the gather's indices
}

// linComb is the fused form of a linear chain, on its last node.
type linComb struct {
	terms []linTerm // T_0, T_1, …, T_K
	// sums lists the scalars whose adjoints get a sum over the elements,
	// in the order the chain's reverse pass added them: term k's scalar
	// (coef false) or its coefficient (coef true).
	sums []linSum
	// start and jstart are the indices of the chain's first node in the
	// unfused evaluation orders (fullOrder, fullJorder).
	start, jstart int
}

// linSum is one adjoint sum of a fused chain's reverse pass.
type linSum struct {
	term int
	coef bool
}

// noLinFuse turns fuseLinear off, for the tests that compare the fused
// chains with their nodes.
var noLinFuse bool

// fuseLinear finds the linear chains of p.order (see above) and fuses
// each into its last node; ext are the root and the kept nodes. It sets
// p.fullOrder to the order before fusion and drops the absorbed nodes
// from p.order.
func (p *Program) fuseLinear(ext []int32) {
	if noLinFuse {
		return
	}
	uses := make([]int32, len(p.nodes))
	for _, i := range ext {
		uses[i] += 2 // never absorbed
	}
	for i := range p.nodes {
		if n := &p.nodes[i]; n.live {
			for _, a := range n.args {
				uses[a]++
			}
		}
	}
	pos := make([]int, len(p.nodes))
	for k, i := range p.order {
		pos[i] = k
	}
	absorbed := make([]bool, len(p.nodes))
	any := false
	for k := len(p.order) - 1; k >= 0; k-- {
		r := p.order[k]
		if absorbed[r] {
			continue
		}
		lc, block := p.linChain(r, uses)
		if lc == nil || len(block) == 0 {
			continue
		}
		lo := k
		for _, b := range block {
			lo = min(lo, pos[b])
			absorbed[b] = true
		}
		if !p.linSpanOK(lc, p.order[lo:k], absorbed) {
			for _, b := range block {
				absorbed[b] = false
			}
			continue
		}
		lc.start = lo
		p.nodes[r].lin = lc
		any = true
	}
	if !any {
		return
	}
	p.fullOrder, p.order = p.order, nil
	for _, i := range p.fullOrder {
		if !absorbed[i] {
			p.order = append(p.order, i)
		} else {
			p.nodes[i].fused = true
		}
	}
	p.fullJorder, p.jorder = p.jorder, nil
	jpos := make(map[int32]int, len(p.fullJorder))
	for k, i := range p.fullJorder {
		jpos[i] = k
		if !absorbed[i] {
			p.jorder = append(p.jorder, i)
		}
	}
	for _, i := range p.fullJorder {
		if lc := p.nodes[i].lin; lc != nil { // its nodes are all in fullJorder
			lc.jstart = jpos[p.fullOrder[lc.start]]
		}
	}
}

// fuse ends an evaluation that went unfused.
func (p *Program) fuse() { p.unfused = false }

// evalOrder is the order the current evaluation goes by: fullOrder once
// it has gone unfused.
func (p *Program) evalOrder() []int32 {
	if p.unfused && p.fullOrder != nil {
		return p.fullOrder
	}
	return p.order
}

// unfuseValues computes the values of the nodes that fused chains
// absorbed, from those of the last Forward, and makes the program
// evaluate unfused until fuse.
func (p *Program) unfuseValues() {
	if p.fullOrder == nil {
		return
	}
	p.unfused = true
	for _, i := range p.fullOrder {
		if n := &p.nodes[i]; n.fused {
			p.eval(n)
		}
	}
}

// unfuseFrom makes the evaluation, which went fused up to node i (no
// fused chain's), go on unfused after i: it computes the values of the
// absorbed nodes before i and returns fullOrder, so that a chain that
// loopError evaluates after i fails as its nodes did.
func (p *Program) unfuseFrom(i int32) []int32 {
	p.unfused = true
	for _, j := range p.fullOrder {
		if j == i {
			break
		}
		if n := &p.nodes[j]; n.fused {
			p.eval(n)
		}
	}
	return p.fullOrder
}

// unfuse is called when node order[k] of an evaluation fails. If it is a
// fused chain, the evaluation goes on unfused, from the chain's first
// node in the full order (of fullOrder, or with joint of fullJorder):
// unfuse returns that order and the index before that node, and true.
func (p *Program) unfuse(order []int32, k int, joint bool) ([]int32, int, bool) {
	i := order[k]
	n := &p.nodes[i]
	if n.lin == nil || p.unfused {
		return order, k, false
	}
	p.evals[i]--
	p.unfused = true
	if joint {
		return p.fullJorder, n.lin.jstart - 1, true
	}
	return p.fullOrder, n.lin.start - 1, true
}

// linSpanOK reports whether the nodes of span, the order from a chain's
// first node to its last, that the chain does not absorb let it be fused:
// copies of elements (beta[1] in a + beta[0] * x + beta[1] * w) that
// cannot fail where their operand did not and whose reverse pass adds to
// no adjoint that the chain adds to; moving the chain's terms past them
// changes no sum.
func (p *Program) linSpanOK(lc *linComb, span []int32, absorbed []bool) bool {
	for _, i := range span {
		if absorbed[i] {
			continue
		}
		y := &p.nodes[i]
		if y.op != OpSlice && y.op != OpCol && (y.op != OpGather || y.soff != nil) {
			return false
		}
		for _, t := range lc.terms {
			if y.args[0] == t.base || y.args[0] == t.coef {
				return false
			}
		}
	}
	return true
}

// linChain returns the fused form of the chain whose last node is r and
// the nodes it absorbs, or nil if r ends no chain.
func (p *Program) linChain(r int32, uses []int32) (*linComb, []int32) {
	root := &p.nodes[r]
	if !linNode(root) || root.n < 2 { // a scalar's chain gains nothing
		return nil, nil
	}
	m := root.n
	var block []int32
	// absorbable: read by the chain alone, computed from an input
	absorbable := func(i int32) bool {
		n := &p.nodes[i]
		return uses[i] == 1 && n.dyn && n.live && n.lin == nil && n.n == m
	}
	// term reads operand a of elementwise node n as a term
	term := func(n *node, a int) (linTerm, bool) {
		i := n.args[a]
		o := &p.nodes[i]
		t := linTerm{base: i, coef: -1}
		switch {
		case n.bc[2*a+1] == 0:
			t.kind = linScalar
			return t, true
		case n.bc[2*a+1] != 1 || o.n != m:
			return t, false
		}
		t.kind = linVec
		if !absorbable(i) {
			return t, true
		}
		if o.op == OpMul && o.gr == 1 && (o.bc[1] == 0) != (o.bc[3] == 0) {
			c, v := 0, 1
			if o.bc[1] != 0 {
				c, v = 1, 0
			}
			block = append(block, i)
			t.coef, t.base = o.args[c], o.args[v]
			if g := o.args[v]; p.linGatherOf(&p.nodes[g]) && absorbable(g) {
				block = append(block, g)
				t.kind, t.base, t.idx = linGather, p.nodes[g].args[0], p.nodes[g].idx
			}
			return t, true
		}
		if p.linGatherOf(o) {
			block = append(block, i)
			t.kind, t.base, t.idx = linGather, o.args[0], o.idx
		}
		return t, true
	}
	var terms []linTerm // T_K first
	cur := root
	for {
		t, ok := term(cur, 1)
		if !ok {
			return nil, nil
		}
		t.sub = cur.op == OpSub
		t.top = cur == root
		terms = append(terms, t)
		if len(terms) >= linMaxTerms {
			return nil, nil
		}
		x := cur.args[0]
		if cur.bc[1] == 1 && absorbable(x) && linNode(&p.nodes[x]) {
			block = append(block, x)
			cur = &p.nodes[x]
			continue
		}
		t, ok = term(cur, 0)
		if !ok {
			return nil, nil
		}
		t.top = cur == root
		terms = append(terms, t)
		break
	}
	slices.Reverse(terms)
	// a vector read elementwise with an adjoint appears once, and not as
	// a broadcast scalar or a coefficient too (z[g] + z with z of one
	// element), whose sums the reverse pass adds after the elements'
	seen := map[int32]bool{}
	for _, t := range terms {
		if t.kind == linScalar || !p.nodes[t.base].dyn {
			continue
		}
		if seen[t.base] {
			return nil, nil
		}
		seen[t.base] = true
	}
	for _, t := range terms {
		if (t.kind == linScalar && seen[t.base]) || (t.coef >= 0 && seen[t.coef]) {
			return nil, nil
		}
	}
	lc := &linComb{terms: terms}
	// The reverse sweep's order of the scalar sums: the chain's nodes
	// from the last, each's operands x then y. A product's coefficient
	// comes with the product node, which the tape put somewhere below
	// the sum that reads it: the nodes are taken by index.
	type event struct {
		node int32
		side int
		s    linSum
	}
	var evs []event
	cur = root
	ri := r
	for k := len(terms) - 1; k >= 0; k-- {
		t := terms[k]
		side := 1
		if k == 0 {
			side = 0
		}
		switch {
		case t.kind == linScalar:
			evs = append(evs, event{ri, side, linSum{k, false}})
		case t.coef >= 0:
			mi := p.nodes[ri].args[side]
			cs := 0
			if p.nodes[mi].args[1] == t.coef {
				cs = 1
			}
			evs = append(evs, event{mi, cs, linSum{k, true}})
		}
		if k > 1 {
			ri = p.nodes[ri].args[0]
		}
	}
	slices.SortStableFunc(evs, func(a, b event) int {
		if a.node != b.node {
			return int(b.node - a.node) // later nodes first
		}
		return a.side - b.side
	})
	for _, e := range evs {
		lc.sums = append(lc.sums, e.s)
	}
	return lc, block
}

// linNode reports whether n is a sum or difference over flat elements
// that can link a linear chain.
func linNode(n *node) bool {
	return (n.op == OpAdd || n.op == OpSub) && n.gr == 1 && n.dyn && n.live
}

// linGatherOf reports whether n gathers elements of a vector by fixed
// indices.
func (p *Program) linGatherOf(n *node) bool {
	return n.op == OpGather && n.soff == nil && p.nodes[n.args[0]].shape.Rank == 1
}

// linMaxTerms bounds the terms of a fused chain, whose reverse pass keeps
// its sums in an array on the stack.
const linMaxTerms = 16

// linMode is how a pass of evalLin combines a term t with what is there.
type linMode uint8

const (
	linSet  linMode = iota // z = t
	linAddS                // z = s + t
	linSubS                // z = s − t
	linAdd                 // z = z + t
	linSub                 // z = z − t
)

// evalLin computes a fused chain a term at a time: T_0 (with T_1 in the
// same pass when T_0 is a scalar), then each further term added or
// subtracted, every element by the operations of the chain's nodes.
func (p *Program) evalLin(n *node) {
	z := p.v(n)
	ts := n.lin.terms
	k := 1
	if ts[0].kind == linScalar {
		mode := linAddS
		if ts[1].sub {
			mode = linSubS
		}
		p.linPass(z, &ts[1], mode, p.val[p.nodes[ts[0].base].off])
		k = 2
	} else {
		p.linPass(z, &ts[0], linSet, 0)
	}
	for ; k < len(ts); k++ {
		mode := linAdd
		if ts[k].sub {
			mode = linSub
		}
		p.linPass(z, &ts[k], mode, 0)
	}
}

// linPass combines term t into z by mode (s: the scalar of linAddS and
// linSubS). A product is rounded before it is added, as its node stored it.
func (p *Program) linPass(z []float64, t *linTerm, mode linMode, s float64) {
	v := p.v(&p.nodes[t.base])
	c := 1.0
	if t.coef >= 0 {
		c = p.val[p.nodes[t.coef].off]
	}
	switch {
	case t.kind == linScalar:
		for j := range z {
			linPut(z, j, mode, s, v[0])
		}
	case t.kind == linVec && t.coef < 0:
		v = v[:len(z)]
		for j := range z {
			linPut(z, j, mode, s, v[j])
		}
	case t.kind == linVec:
		v = v[:len(z)]
		for j := range z {
			linPut(z, j, mode, s, float64(c*v[j]))
		}
	case t.coef < 0:
		idx := t.idx[:len(z)]
		for j, i := range idx {
			linPut(z, j, mode, s, v[i])
		}
	default:
		idx := t.idx[:len(z)]
		for j, i := range idx {
			linPut(z, j, mode, s, float64(c*v[i]))
		}
	}
}

// linPut sets z[j] from term value t by mode.
func linPut(z []float64, j int, mode linMode, s, t float64) {
	switch mode {
	case linSet:
		z[j] = t
	case linAddS:
		z[j] = s + t
	case linSubS:
		z[j] = s - t
	case linAdd:
		z[j] = z[j] + t
	default:
		z[j] = z[j] - t
	}
}

// gradLin is the reverse pass of a fused chain with adjoint g. Each term
// adds to its operands' adjoints what the chain's nodes added: an
// absorbed node's adjoint, cleared and added to once, is 0 + its one
// contribution; a scalar's is the sum, from 0 in element order, of its
// elements' terms. The scalars' sums are added last, in the order of the
// chain's reverse sweep (linComb.sums); every other cell gets one term
// per element and so its terms in element order, as from the nodes.
//
// Each sum is a chain of dependent additions; Σ_j (0 + g_j), a scalar
// term's, is formed in the loop of the first product, where the two
// chains overlap.
func (p *Program) gradLin(n *node, g []float64) {
	lc := n.lin
	var sums [linMaxTerms]float64
	var sumPos, sumNeg float64
	havePos, haveNeg := false, false
	wantPos := false
	for _, t := range lc.terms {
		if t.kind == linScalar && !t.sub && p.nodes[t.base].aoff >= 0 {
			wantPos = true
		}
	}
	for k := range lc.terms {
		t := &lc.terms[k]
		switch {
		case t.kind == linScalar:
		case t.coef < 0:
			if p.nodes[t.base].aoff >= 0 {
				p.linGradTerm(t, g)
			}
		case wantPos && !havePos:
			sums[k], sumPos = p.linGradProduct(t, g, true)
			havePos = true
		default:
			sums[k], _ = p.linGradProduct(t, g, false)
		}
	}
	for k := range lc.terms {
		t := &lc.terms[k]
		switch {
		case t.kind != linScalar || p.nodes[t.base].aoff < 0:
		case t.sub:
			if !haveNeg {
				sumNeg, haveNeg = linSumSigned(g, -1), true
			}
			sums[k] = sumNeg
		default:
			if !havePos {
				sumPos, havePos = linSumSigned(g, 1), true
			}
			sums[k] = sumPos
		}
	}
	for _, s := range lc.sums {
		t := &lc.terms[s.term]
		a := &p.nodes[t.base]
		if s.coef {
			a = &p.nodes[t.coef]
		}
		if a.aoff >= 0 {
			p.adj[a.aoff] += sums[s.term]
		}
	}
}

// linSumSigned returns Σ_j (0 + g_j) (sign 1) or Σ_j (0 − g_j) from 0 in
// order: a broadcast scalar's share of a sum's (difference's) adjoint.
func linSumSigned(g []float64, sign int) float64 {
	s := 0.0
	if sign > 0 {
		for _, v := range g {
			s += 0 + v
		}
		return s
	}
	for _, v := range g {
		s += 0 - v
	}
	return s
}

// linGradTerm adds the adjoint of a term without a coefficient, a vector
// or a gather, to its vector's adjoint.
func (p *Program) linGradTerm(t *linTerm, g []float64) {
	a := p.a(&p.nodes[t.base])
	if t.kind == linGather {
		idx := t.idx[:len(g)]
		if t.sub {
			for j, i := range idx {
				a[i] += 0 - g[j]
			}
			return
		}
		for j, i := range idx {
			a[i] += 0 + g[j]
		}
		return
	}
	a = a[:len(g)]
	switch {
	case t.sub && t.top:
		for j, v := range g {
			a[j] -= v
		}
	case t.sub:
		for j, v := range g {
			a[j] -= 0 + v
		}
	case t.top:
		for j, v := range g {
			a[j] += v
		}
	default:
		for j, v := range g {
			a[j] += 0 + v
		}
	}
}

// linGradProduct adds the adjoint of a product term c * v or c * v[idx]
// to v's adjoint and returns c's sum: with m_j = 0 ± g_j the product's
// adjoint, v gets m_j c per element (a gather's 0 + m_j c, scattered),
// and c gets Σ_j (0 + m_j v_j). With pos it also returns Σ_j (0 + g_j).
func (p *Program) linGradProduct(t *linTerm, g []float64, pos bool) (float64, float64) {
	b, cn := &p.nodes[t.base], &p.nodes[t.coef]
	v, c := p.v(b), p.val[cn.off]
	sign := 1.0
	if t.sub {
		sign = -1
	}
	wantC, wantV := cn.aoff >= 0, b.aoff >= 0
	var a []float64
	if wantV {
		a = p.a(b)
	}
	s, sp := 0.0, 0.0
	if t.kind == linGather {
		idx := t.idx[:len(g)]
		for j, i := range idx {
			m := linAdj(g[j], sign)
			if pos {
				sp += 0 + g[j]
			}
			if wantC {
				s += 0 + m*v[i]
			}
			if wantV {
				a[i] += 0 + m*c
			}
		}
		return s, sp
	}
	v = v[:len(g)]
	if wantV {
		a = a[:len(g)]
	}
	for j, gj := range g {
		m := linAdj(gj, sign)
		if pos {
			sp += 0 + gj
		}
		if wantC {
			s += 0 + m*v[j]
		}
		if wantV {
			a[j] += m * c
		}
	}
	return s, sp
}

// linAdj is an absorbed node's adjoint from its one contribution ±x:
// 0 + x or 0 − x.
func linAdj(x, sign float64) float64 {
	if sign > 0 {
		return 0 + x
	}
	return 0 - x
}

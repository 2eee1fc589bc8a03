package nuts

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gpplang/gpp/dist"
)

// maxDeltaH is Stan's divergence threshold on H − H0.
const maxDeltaH = 1000

// point is a state in phase space: position q, momentum p, the gradient g of
// the log density at q and the potential v = −log p(q) (+Inf where the
// density rejected q).
type point struct {
	q, p, g []float64
	v       float64
}

func newPoint(d int) point {
	b := make([]float64, 3*d)
	return point{q: b[:d:d], p: b[d : 2*d : 2*d], g: b[2*d:]}
}

func (z *point) set(y *point) {
	copy(z.q, y.q)
	copy(z.p, y.p)
	copy(z.g, y.g)
	z.v = y.v
}

// level holds the locals of one level of build_tree's recursion, so that a
// transition allocates nothing.
type level struct {
	pInitEnd, pSharpInitEnd, rhoInit    []float64
	pFinalBeg, pSharpFinalBeg, rhoFinal []float64
	proposeFinal                        point
}

// chain is one chain's sampler: Stan's base_nuts with a Euclidean metric.
type chain struct {
	dens   Density
	s      Settings
	d      int
	rng    *rand.Rand
	metric Metric

	minv    []float64 // the inverse metric: d (diag, unit) or d×d (dense)
	isd     []float64 // diag: 1/sqrt(minv)
	chol    []float64 // dense: the lower Cholesky factor of minv
	cholBuf []float64 // dense: scratch for a new factor
	tmp     []float64

	eps      float64
	firstErr error
	// evals counts the log-density evaluations, errs those that returned
	// an error (each a rejected point): Chain.Evals and Chain.Errs.
	evals, errs int
	// sampling is set at the first kept iteration; warmEvals and warmErrs
	// hold evals and errs then (Chain.WarmEvals, Chain.WarmErrs), and
	// sampleErr is the first error after it (Chain.SampleErr).
	sampling            bool
	warmEvals, warmErrs int
	sampleErr           error
	lastWarmErr         int // Chain.LastWarmErr
	// fused: a diagonal (or unit) metric's leapfrog step and tree leaf
	// make one pass over the coordinates each (leapfrogFused, leaf)
	// instead of one per operation; the same arithmetic, bit for bit
	// (TestFusedLeapfrog). The dense metric takes the plain path.
	fused bool

	// the transition's state
	z, fwd, bck, sample, propose, init           point
	pFwdFwd, pSharpFwdFwd, pFwdBck, pSharpFwdBck []float64
	pBckFwd, pSharpBckFwd, pBckBck, pSharpBckBck []float64
	rho, rhoFwd, rhoBck                          []float64
	levels                                       []level
	nLeapfrog                                    int
	sumMetro                                     float64
	divergent                                    bool
	depth                                        int
	acceptStat, energy                           float64
}

func newChain(dens Density, x0 []float64, s Settings, rng *rand.Rand) *chain {
	d := len(x0)
	c := &chain{dens: dens, s: s, d: d, rng: rng, metric: s.Metric, eps: s.StepSize, fused: s.Metric != DenseE}
	if s.Metric == DenseE {
		c.minv = make([]float64, d*d)
		c.chol = make([]float64, d*d)
		c.cholBuf = make([]float64, d*d)
		for i := 0; i < d; i++ {
			c.minv[i*d+i] = 1
			c.chol[i*d+i] = 1
		}
	} else {
		c.minv = make([]float64, d)
		c.isd = make([]float64, d)
		for i := range c.minv {
			c.minv[i] = 1
			c.isd[i] = 1
		}
	}
	c.tmp = make([]float64, d)
	for _, z := range []*point{&c.z, &c.fwd, &c.bck, &c.sample, &c.propose, &c.init} {
		*z = newPoint(d)
	}
	vecs := make([]float64, 11*d)
	vec := func() []float64 {
		v := vecs[:d:d]
		vecs = vecs[d:]
		return v
	}
	c.pFwdFwd, c.pSharpFwdFwd, c.pFwdBck, c.pSharpFwdBck = vec(), vec(), vec(), vec()
	c.pBckFwd, c.pSharpBckFwd, c.pBckBck, c.pSharpBckBck = vec(), vec(), vec(), vec()
	c.rho, c.rhoFwd, c.rhoBck = vec(), vec(), vec()
	c.levels = make([]level, s.MaxDepth+1)
	for i := range c.levels {
		b := make([]float64, 6*d)
		l := &c.levels[i]
		l.pInitEnd, l.pSharpInitEnd, l.rhoInit = b[:d:d], b[d:2*d:2*d], b[2*d:3*d:3*d]
		l.pFinalBeg, l.pSharpFinalBeg, l.rhoFinal = b[3*d:4*d:4*d], b[4*d:5*d:5*d], b[5*d:]
		l.proposeFinal = newPoint(d)
	}
	copy(c.z.q, x0)
	c.z.v = c.potential(c.z.q, c.z.g)
	return c
}

// potential returns −log p(q), writing ∇log p into g; +Inf where the density
// rejects q.
func (c *chain) potential(q, g []float64) float64 {
	lp, err := c.dens.LogDensity(q, g)
	c.evals++
	if err != nil {
		c.errs++
		if c.firstErr == nil {
			c.firstErr = err
		}
		if c.sampling && c.sampleErr == nil {
			c.sampleErr = err
		}
		return math.Inf(1)
	}
	if math.IsNaN(lp) || math.IsInf(lp, 0) {
		return math.Inf(1)
	}
	return -lp
}

// sharp writes M⁻¹p into dst.
func (c *chain) sharp(dst, p []float64) {
	d := c.d
	if c.metric == DenseE {
		for i := 0; i < d; i++ {
			row := c.minv[i*d : i*d+d]
			s := 0.0
			for j, r := range row {
				s += r * p[j]
			}
			dst[i] = s
		}
		return
	}
	for i, m := range c.minv {
		dst[i] = m * p[i]
	}
}

// hamiltonian returns H(z) = V(q) + ½ pᵀM⁻¹p, +Inf for NaN.
func (c *chain) hamiltonian(z *point) float64 {
	c.sharp(c.tmp, z.p)
	k := 0.0
	for i, v := range c.tmp {
		k += v * z.p[i]
	}
	h := z.v + 0.5*k
	if math.IsNaN(h) {
		return math.Inf(1)
	}
	return h
}

// sampleP draws p ~ N(0, M).
func (c *chain) sampleP(z *point) {
	d := c.d
	if c.metric != DenseE {
		for i := range z.p {
			z.p[i] = c.rng.NormFloat64() * c.isd[i]
		}
		return
	}
	// minv = L Lᵀ, so M = L⁻ᵀL⁻¹ and p = L⁻ᵀu has covariance M.
	for i := range z.p {
		z.p[i] = c.rng.NormFloat64()
	}
	for i := d - 1; i >= 0; i-- {
		s := z.p[i]
		for k := i + 1; k < d; k++ {
			s -= c.chol[k*d+i] * z.p[k]
		}
		z.p[i] = s / c.chol[i*d+i]
	}
}

// leapfrog moves z by one leapfrog step of size eps.
func (c *chain) leapfrog(z *point, eps float64) {
	h := 0.5 * eps
	for i, g := range z.g {
		z.p[i] += h * g
	}
	c.sharp(c.tmp, z.p)
	for i, v := range c.tmp {
		z.q[i] += eps * v
	}
	z.v = c.potential(z.q, z.g)
	for i, g := range z.g {
		z.p[i] += h * g
	}
}

// leapfrogFused is leapfrog for a diagonal metric, the half-step of p,
// M⁻¹p and the step of q in one pass.
func (c *chain) leapfrogFused(z *point, eps float64) {
	h := 0.5 * eps
	q, p, m := z.q[:len(z.g)], z.p[:len(z.g)], c.minv[:len(z.g)]
	for i, g := range z.g {
		pi := p[i] + h*g
		p[i] = pi
		q[i] += eps * (m[i] * pi)
	}
	z.v = c.potential(z.q, z.g)
}

// leaf finishes a fused leapfrog step of c.z (the second half-step of p)
// and does what buildTree's leaf does with the new state's momentum in the
// same pass: it returns H, and writes p♯ = M⁻¹p into pSharpBeg and
// pSharpEnd, p into pBeg and pEnd, and adds p to rho. The arithmetic is
// leapfrog's, hamiltonian's and sharp's, in their order.
func (c *chain) leaf(eps float64, pSharpBeg, pSharpEnd, rho, pBeg, pEnd []float64) float64 {
	h := 0.5 * eps
	z := &c.z
	d := len(z.g)
	p, m := z.p[:d], c.minv[:d]
	pSharpBeg, pSharpEnd, rho, pBeg, pEnd = pSharpBeg[:d], pSharpEnd[:d], rho[:d], pBeg[:d], pEnd[:d]
	k := 0.0
	for i, g := range z.g {
		pi := p[i] + h*g
		p[i] = pi
		s := m[i] * pi
		k += s * pi
		pSharpBeg[i], pSharpEnd[i] = s, s
		rho[i] += pi
		pBeg[i], pEnd[i] = pi, pi
	}
	hm := z.v + 0.5*k
	if math.IsNaN(hm) {
		return math.Inf(1)
	}
	return hm
}

// noUTurn is the generalised no-U-turn criterion on a trajectory made of a
// left and a right part, as Stan (≥ 2.26) checks it: over the whole
// (ρ = ρ_left + ρ_right, p♯ at its two ends), and across the junction twice,
// over the left part extended by the right part's first state and over the
// right part extended by the left part's last state, which catches a U-turn
// that neither part nor the whole shows. s* are the p♯ = M⁻¹p of the left
// part's first and last and the right part's first and last states,
// pLeftEnd and pRightBeg the momenta of the states at the junction.
func noUTurn(sBeg, sLeftEnd, sRightBeg, sEnd, rhoLeft, rhoRight, pLeftEnd, pRightBeg []float64) bool {
	return criterionSum(sBeg, sEnd, rhoLeft, rhoRight) &&
		criterionSum(sBeg, sRightBeg, rhoLeft, pRightBeg) &&
		criterionSum(sLeftEnd, sEnd, rhoRight, pLeftEnd)
}

// criterionSum is the generalised no-U-turn criterion with rho = a + b
// (not formed): both ends' p♯ point the way of rho.
func criterionSum(pSharpMinus, pSharpPlus, a, b []float64) bool {
	x, y := 0.0, 0.0
	for i, v := range a {
		r := v + b[i]
		x += pSharpPlus[i] * r
		y += pSharpMinus[i] * r
	}
	return x > 0 && y > 0
}

func zero(v []float64) {
	for i := range v {
		v[i] = 0
	}
}

func add(dst, a, b []float64) {
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}

// transition is one NUTS transition from c.z (q, g, v), as Stan's
// base_nuts::transition; it leaves the new state in c.z and its statistics
// in c's fields.
func (c *chain) transition() {
	c.sampleP(&c.z)
	c.fwd.set(&c.z)
	c.bck.set(&c.z)
	c.sample.set(&c.z)
	c.sharp(c.pSharpFwdFwd, c.z.p)
	copy(c.pFwdFwd, c.z.p)
	copy(c.pFwdBck, c.z.p)
	copy(c.pSharpFwdBck, c.pSharpFwdFwd)
	copy(c.pBckFwd, c.z.p)
	copy(c.pSharpBckFwd, c.pSharpFwdFwd)
	copy(c.pBckBck, c.z.p)
	copy(c.pSharpBckBck, c.pSharpFwdFwd)
	copy(c.rho, c.z.p)
	logSumWeight := 0.0
	h0 := c.hamiltonian(&c.z)
	c.nLeapfrog, c.sumMetro, c.depth, c.divergent = 0, 0, 0, false

	for c.depth < c.s.MaxDepth {
		zero(c.rhoFwd)
		zero(c.rhoBck)
		lswSubtree := math.Inf(-1)
		var valid bool
		if c.rng.Float64() > 0.5 {
			copy(c.rhoBck, c.rho)
			copy(c.pBckFwd, c.pFwdBck)
			copy(c.pSharpBckFwd, c.pSharpFwdBck)
			c.z.set(&c.fwd)
			valid = c.buildTree(c.depth, &c.propose, c.pSharpFwdBck, c.pSharpFwdFwd, c.rhoFwd, c.pFwdBck, c.pFwdFwd, h0, c.eps, &lswSubtree)
			c.fwd.set(&c.z)
		} else {
			copy(c.rhoFwd, c.rho)
			copy(c.pFwdBck, c.pBckFwd)
			copy(c.pSharpFwdBck, c.pSharpBckFwd)
			c.z.set(&c.bck)
			valid = c.buildTree(c.depth, &c.propose, c.pSharpBckFwd, c.pSharpBckBck, c.rhoBck, c.pBckFwd, c.pBckBck, h0, -c.eps, &lswSubtree)
			c.bck.set(&c.z)
		}
		if !valid {
			break
		}
		c.depth++
		// Biased progressive sampling: prefer the new subtree.
		if lswSubtree > logSumWeight {
			c.sample.set(&c.propose)
		} else if c.rng.Float64() < math.Exp(lswSubtree-logSumWeight) {
			c.sample.set(&c.propose)
		}
		logSumWeight = dist.LogAddExp(logSumWeight, lswSubtree)
		add(c.rho, c.rhoBck, c.rhoFwd)
		if !noUTurn(c.pSharpBckBck, c.pSharpBckFwd, c.pSharpFwdBck, c.pSharpFwdFwd, c.rhoBck, c.rhoFwd, c.pBckFwd, c.pFwdBck) {
			break
		}
	}
	c.acceptStat = c.sumMetro / float64(c.nLeapfrog)
	c.z.set(&c.sample)
	c.energy = c.hamiltonian(&c.z)
}

// buildTree builds a subtree of 2^depth leapfrog steps from c.z in the
// direction of eps's sign, as Stan's base_nuts::build_tree: uniform
// progressive (multinomial) sampling of propose within the subtree, and the
// no-U-turn criterion over the subtree and across its two halves.
func (c *chain) buildTree(depth int, propose *point, pSharpBeg, pSharpEnd, rho, pBeg, pEnd []float64, h0, eps float64, logSumWeight *float64) bool {
	if depth == 0 {
		var h float64
		if c.fused {
			c.leapfrogFused(&c.z, eps)
			h = c.leaf(eps, pSharpBeg, pSharpEnd, rho, pBeg, pEnd)
		} else {
			c.leapfrog(&c.z, eps)
			h = c.hamiltonian(&c.z)
		}
		c.nLeapfrog++
		if h-h0 > maxDeltaH {
			c.divergent = true
		}
		*logSumWeight = dist.LogAddExp(*logSumWeight, h0-h)
		if h0-h > 0 {
			c.sumMetro++
		} else {
			c.sumMetro += math.Exp(h0 - h)
		}
		propose.set(&c.z)
		if !c.fused {
			c.sharp(pSharpBeg, c.z.p)
			copy(pSharpEnd, pSharpBeg)
			for i, p := range c.z.p {
				rho[i] += p
			}
			copy(pBeg, c.z.p)
			copy(pEnd, c.z.p)
		}
		return !c.divergent
	}
	l := &c.levels[depth]
	// pInitEnd, pSharpInitEnd, pFinalBeg and pSharpFinalBeg are written by
	// the leaves before they are read; the rhos accumulate.
	lswInit := math.Inf(-1)
	zero(l.rhoInit)
	if !c.buildTree(depth-1, propose, pSharpBeg, l.pSharpInitEnd, l.rhoInit, pBeg, l.pInitEnd, h0, eps, &lswInit) {
		return false
	}
	final := &l.proposeFinal // set by the final subtree's leaves
	lswFinal := math.Inf(-1)
	zero(l.rhoFinal)
	if !c.buildTree(depth-1, final, l.pSharpFinalBeg, pSharpEnd, l.rhoFinal, l.pFinalBeg, pEnd, h0, eps, &lswFinal) {
		return false
	}
	lswSubtree := dist.LogAddExp(lswInit, lswFinal)
	*logSumWeight = dist.LogAddExp(*logSumWeight, lswSubtree)
	// Uniform progressive sampling within the subtree.
	if lswFinal > lswSubtree {
		propose.set(final)
	} else if c.rng.Float64() < math.Exp(lswFinal-lswSubtree) {
		propose.set(final)
	}
	for i, a := range l.rhoInit {
		rho[i] += a + l.rhoFinal[i]
	}
	return noUTurn(pSharpBeg, l.pSharpInitEnd, l.pSharpFinalBeg, pSharpEnd, l.rhoInit, l.rhoFinal, l.pInitEnd, l.pFinalBeg)
}

// initStepSize is Stan's init_stepsize heuristic: from c.z's position, double
// or halve the step size until one leapfrog step's acceptance
// exp(H0 − H) crosses 0.8.
func (c *chain) initStepSize() {
	if c.eps == 0 || c.eps > 1e7 || math.IsNaN(c.eps) {
		return
	}
	c.init.set(&c.z)
	step := func() float64 {
		c.z.set(&c.init)
		c.sampleP(&c.z)
		h0 := c.hamiltonian(&c.z)
		c.leapfrog(&c.z, c.eps)
		return h0 - c.hamiltonian(&c.z)
	}
	log08 := math.Log(0.8)
	direction := 1
	if !(step() > log08) {
		direction = -1
	}
	for {
		dH := step()
		if direction == 1 && !(dH > log08) {
			break
		}
		if direction == -1 && !(dH < log08) {
			break
		}
		if direction == 1 {
			c.eps *= 2
		} else {
			c.eps *= 0.5
		}
		// Stan throws here ("Posterior is improper"); the step size stays
		// at the bound and the run goes on.
		if c.eps > 1e7 || c.eps < 1e-300 {
			break
		}
	}
	c.z.set(&c.init)
}

// setMetric installs the inverse metric m (copied), returning false and
// keeping the old one when a dense m is not positive definite.
func (c *chain) setMetric(m []float64) bool {
	if c.metric == DenseE {
		copy(c.cholBuf, m)
		if dist.CholLower(c.cholBuf, c.d) != 0 {
			return false
		}
		copy(c.chol, c.cholBuf)
		copy(c.minv, m)
		return true
	}
	for i, v := range m {
		c.minv[i] = v
		c.isd[i] = 1 / math.Sqrt(v)
	}
	return true
}

// run runs the chain's warm-up and sampling into out, returning the number of
// draws kept (fewer than Draws/Thin when ctx was cancelled).
func (c *chain) run(ctx context.Context, idx int, out *Chain) int {
	s := c.s
	d := c.d
	n := s.Draws / s.Thin
	*out = newRecord(n, d)
	if s.SaveWarmup {
		w := newRecord(s.Warmup/s.Thin, d)
		w.StepSizes = make([]float64, s.Warmup/s.Thin)
		out.Warm = &w
	}
	warmRec := out.Warm
	defer func() {
		out.StepSize = c.eps
		out.InvMetric = append([]float64(nil), c.minv...)
		out.FirstErr = c.firstErr
		out.Evals, out.Errs = c.evals, c.errs
		if !c.sampling { // interrupted in warm-up: every evaluation was warm-up's
			c.warmEvals, c.warmErrs = c.evals, c.errs
		}
		out.WarmEvals, out.WarmErrs, out.SampleErr = c.warmEvals, c.warmErrs, c.sampleErr
		out.LastWarmErr = c.lastWarmErr
	}()

	start := time.Now()
	var da dualAveraging
	var win *windows
	adapt := s.Warmup > 0 && !s.NoAdapt
	if adapt {
		da = newDualAveraging(s.Delta, math.Log(10*c.eps))
		if c.metric != UnitE {
			win = newWindows(s.Warmup, d, c.metric == DenseE)
		}
		c.initStepSize()
	}
	total := s.Warmup + s.Draws
	k, kw := 0, 0
	for it := 0; it < total; it++ {
		if ctx.Err() != nil {
			break
		}
		warm := it < s.Warmup
		if !warm && !c.sampling {
			c.sampling = true
			c.warmEvals, c.warmErrs = c.evals, c.errs
		}
		if it == s.Warmup && it > 0 {
			out.Warmup = time.Since(start)
			start = time.Now()
		}
		errsBefore := c.errs
		c.transition()
		if warm && warmRec != nil && (it+1)%s.Thin == 0 && kw < len(warmRec.LogP) {
			c.record(warmRec, kw)
			warmRec.StepSizes[kw] = c.eps
			kw++
		}
		if warm && adapt {
			c.eps = da.learn(c.acceptStat)
			if win != nil {
				if m := win.learn(c.z.q); m != nil && c.setMetric(m) {
					c.initStepSize()
					da.restart(math.Log(10 * c.eps))
				}
			}
			if it == s.Warmup-1 {
				c.eps = da.final()
			}
		} else if !warm && (it-s.Warmup+1)%s.Thin == 0 && k < n {
			c.record(out, k)
			k++
		}
		if warm && c.errs > errsBefore {
			c.lastWarmErr = it + 1
		}
		if s.Tree != nil {
			s.Tree(idx, c.depth)
		}
		if s.Progress != nil {
			s.Progress(idx, it+1, warm)
		}
	}
	if warmRec != nil && kw < len(warmRec.LogP) {
		warmRec.truncate(kw, d)
	}
	if out.Warmup == 0 && s.Warmup > 0 {
		out.Warmup = time.Since(start)
	} else {
		out.Sampling = time.Since(start)
	}
	return k
}

// newRecord returns a Chain with room for n draws of d coordinates, each
// statistic 0.
func newRecord(n, d int) Chain {
	return Chain{Draws: make([]float64, n*d), LogP: make([]float64, n), Accept: make([]float64, n),
		Depth: make([]int, n), Leapfrogs: make([]int, n), Divergent: make([]bool, n), Energy: make([]float64, n)}
}

// record writes the transition just made as draw k of out.
func (c *chain) record(out *Chain, k int) {
	d := c.d
	copy(out.Draws[k*d:(k+1)*d], c.z.q)
	out.LogP[k] = -c.z.v
	out.Accept[k] = c.acceptStat
	out.Depth[k] = c.depth
	out.Leapfrogs[k] = c.nLeapfrog
	out.Divergent[k] = c.divergent
	out.Energy[k] = c.energy
}

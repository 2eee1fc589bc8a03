package autodiff

// The time-varying recursive filter, OpTVFilter: ar_filter's AR(1) with a
// coefficient per time step, per column of e:
//
//	h_0 = e_0,  h_t = a_t h_{t−1} + e_t                (forward in time)
//	g̃_{T−1} = ḡ_{T−1},  g̃_t = ḡ_t + a_{t+1} g̃_{t+1}    (backward in time)
//	ē = g̃,  ā_t = g̃_t · h_{t−1} (t ≥ 1),  ā_0 = 0
//
// the adjoint recursion of h = A⁻¹ e for the unit lower-bidiagonal A with
// −a_t below its diagonal in row t: ē = A⁻ᵀ ḡ, and dh = A⁻¹ (dA) h gives
// ā. a_0 multiplies the h_{−1} = 0 before the series and reaches nothing.
// a is [T] or e's shape [T, K]: one coefficient per step shared by the
// columns, or one per element. Forward and reverse are each one pass in
// O(T·K), with no matrix formed and nothing allocated.

// tvFilter writes to h [rows, cols] (row-major, rows = len(e)/cols) the
// filter of each column of e by a, a [rows] (shared) or [rows, cols].
func tvFilter(h, e, a []float64, cols int) {
	copy(h, e)
	if cols == 0 {
		return
	}
	rows := len(h) / cols
	if len(a) == rows { // one coefficient per step for every column
		for t := 1; t < rows; t++ {
			c, ht, hp := a[t], h[t*cols:t*cols+cols], h[(t-1)*cols:t*cols]
			for j := range ht {
				ht[j] += c * hp[j]
			}
		}
		return
	}
	for i := cols; i < len(h); i++ { // h[i−cols] is the same column a step before
		h[i] += a[i] * h[i-cols]
	}
}

// tvFilterReverse writes to gt the reverse-time filter of g by a, the
// adjoint of e: g̃_t = g_t + a_{t+1} g̃_{t+1}.
func tvFilterReverse(gt, g, a []float64, cols int) {
	copy(gt, g)
	if cols == 0 {
		return
	}
	rows := len(gt) / cols
	if len(a) == rows {
		for t := rows - 2; t >= 0; t-- {
			c, row, next := a[t+1], gt[t*cols:t*cols+cols], gt[(t+1)*cols:(t+2)*cols]
			for j := range row {
				row[j] += c * next[j]
			}
		}
		return
	}
	for i := len(gt) - cols - 1; i >= 0; i-- {
		gt[i] += a[i+cols] * gt[i+cols]
	}
}

// gradTVFilter adds the contributions of n's adjoint g to the adjoints of
// a and e.
func (p *Program) gradTVFilter(n *node, g []float64) {
	a, e := p.arg(n, 0), p.arg(n, 1)
	cols := n.shape.Cols
	gt := p.s(n)
	tvFilterReverse(gt, g, p.v(a), cols)
	p.addAdjoint(e, gt)
	if a.aoff < 0 || cols == 0 {
		return
	}
	aa, h := p.a(a), p.v(n)
	if len(aa) == n.shape.Rows && cols > 1 { // shared: ā_t = Σ_j g̃_{t,j} h_{t−1,j}
		for t := 1; t < len(aa); t++ {
			aa[t] += dot(gt[t*cols:(t+1)*cols], h[(t-1)*cols:t*cols])
		}
		return
	}
	for i := cols; i < len(gt); i++ {
		aa[i] += gt[i] * h[i-cols]
	}
}

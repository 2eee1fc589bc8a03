package autodiff

// The recursive (autoregressive) filter, OpARFilter: h = A⁻¹ e for the
// unit lower-triangular Toeplitz matrix A with −phi_{k−1} on its k-th
// subdiagonal, per column of e. Forward and reverse are each one pass in
// O(T·p·K), with no matrix formed:
//
//	h_t = e_t + Σ_{k=1..p} phi_{k−1} h_{t−k}        (forward in time)
//	g̃_t = ḡ_t + Σ_{k=1..p} phi_{k−1} g̃_{t+k}        (backward in time: A⁻ᵀ ḡ)
//	ē = g̃,  φ̄_{k−1} = Σ_t g̃_t · h_{t−k}
//
// the last from dh = A⁻¹ (dA) h with dA holding −dphi_{k−1} on the k-th
// subdiagonal. Terms reaching before t = 0 (after t = T − 1) are 0.

// arFilter writes to h [rows, cols] (row-major, rows = len(e)/cols) the
// filter of each column of e by phi.
func arFilter(h, e, phi []float64, cols int) {
	copy(h, e)
	if cols == 0 {
		return
	}
	rows := len(h) / cols
	if cols == 1 { // one series: a scalar recursion
		for t := 1; t < rows; t++ {
			s := h[t]
			for k := 1; k <= min(len(phi), t); k++ {
				s += phi[k-1] * h[t-k]
			}
			h[t] = s
		}
		return
	}
	for t := 1; t < rows; t++ {
		ht := h[t*cols : t*cols+cols]
		for k := 1; k <= min(len(phi), t); k++ {
			c, hp := phi[k-1], h[(t-k)*cols:(t-k)*cols+cols]
			for j := range ht {
				ht[j] += c * hp[j]
			}
		}
	}
}

// arFilterReverse writes to gt the reverse-time filter of g by phi,
// g̃_t = g_t + Σ_k phi_{k−1} g̃_{t+k}: the adjoint of e.
func arFilterReverse(gt, g, phi []float64, cols int) {
	copy(gt, g)
	if cols == 0 {
		return
	}
	rows := len(gt) / cols
	if cols == 1 {
		for t := rows - 2; t >= 0; t-- {
			s := gt[t]
			for k := 1; k <= min(len(phi), rows-1-t); k++ {
				s += phi[k-1] * gt[t+k]
			}
			gt[t] = s
		}
		return
	}
	for t := rows - 2; t >= 0; t-- {
		row := gt[t*cols : t*cols+cols]
		for k := 1; k <= min(len(phi), rows-1-t); k++ {
			c, next := phi[k-1], gt[(t+k)*cols:(t+k)*cols+cols]
			for j := range row {
				row[j] += c * next[j]
			}
		}
	}
}

// gradARFilter adds the contributions of n's adjoint g to the adjoints
// of phi and e.
func (p *Program) gradARFilter(n *node, g []float64) {
	phi, e := p.arg(n, 0), p.arg(n, 1)
	cols := n.shape.Cols
	gt := p.s(n)
	arFilterReverse(gt, g, p.v(phi), cols)
	p.addAdjoint(e, gt)
	if phi.aoff >= 0 && cols > 0 {
		// φ̄_{k−1} = Σ_{t ≥ k} g̃_t · h_{t−k}: rows k.. of g̃ against rows
		// ..T−k of h, contiguous in the row-major layout.
		aphi, h, rows := p.a(phi), p.v(n), n.shape.Rows
		for k := 1; k <= min(len(aphi), rows-1); k++ {
			aphi[k-1] += dot(gt[k*cols:], h[:(rows-k)*cols])
		}
	}
}

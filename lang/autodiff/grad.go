package autodiff

import (
	"math"

	"github.com/gpplang/gpp/dist"
)

// grad adds the contribution of n's adjoint to the adjoints of its
// input-dependent operands.
func (p *Program) grad(n *node) {
	g := p.a(n)
	switch op := n.op; {
	case op == OpInput:
	case n.lin != nil && !p.unfused:
		p.gradLin(n, g)
	case op.isBinary():
		p.gradBinary(n, g)
	case op.isUnary():
		x := p.arg(n, 0)
		gradUnary(op, p.a(x), g, p.v(x), p.v(n))
	case op == OpSum || op == OpMean:
		x := p.arg(n, 0)
		s := g[0]
		if op == OpMean {
			s /= float64(x.n)
		}
		ax := p.a(x)
		for i := range ax {
			ax[i] += s
		}
	case op == OpProd:
		x := p.arg(n, 0)
		gradProd(p.a(x), p.v(x), p.v(n)[0], g[0])
	case op == OpLogSumExp:
		x := p.arg(n, 0)
		ax, xv, z := p.a(x), p.v(x), p.v(n)[0]
		for i, v := range xv {
			ax[i] += g[0] * math.Exp(v-z)
		}
	case op == OpMax || op == OpMin:
		if x := p.arg(n, 0); x.shape.Len() > 0 { // else a constant ∓∞
			p.a(x)[extremeIndex(p.v(x), op == OpMax)] += g[0]
		}
	case op == OpRowLogSumExp:
		x := p.arg(n, 0)
		ax, xv, z, c := p.a(x), p.v(x), p.v(n), x.shape.Cols
		for i, gi := range g {
			for j, v := range xv[i*c : i*c+c] {
				ax[i*c+j] += gi * math.Exp(v-z[i])
			}
		}
	case op == OpRowSum:
		x := p.arg(n, 0)
		ax, c := p.a(x), x.shape.Cols
		for i, gi := range g {
			for j := range ax[i*c : i*c+c] {
				ax[i*c+j] += gi
			}
		}
	case op == OpColSum:
		x := p.arg(n, 0)
		ax, c := p.a(x), x.shape.Cols
		for i := 0; i < x.shape.Rows; i++ {
			ar := ax[i*c : i*c+c]
			for j := range ar {
				ar[j] += g[j]
			}
		}
	case op == OpCumSum: // x_j reaches every z_i with i ≥ j of its row
		x := p.arg(n, 0)
		ax, c := p.a(x), x.shape.runLen()
		for r := 0; r < len(g); r += c {
			s := 0.0
			for i := r + c - 1; i >= r; i-- {
				s += g[i]
				ax[i] += s
			}
		}
	case op == OpRowProd: // each row as Prod's
		x := p.arg(n, 0)
		ax, xv, c := p.a(x), p.v(x), x.shape.Cols
		for i, gi := range g {
			gradProd(ax[i*c:i*c+c], xv[i*c:i*c+c], p.v(n)[i], gi)
		}
	case op == OpRowMax || op == OpRowMin:
		x := p.arg(n, 0)
		ax, c, at := p.a(x), x.shape.Cols, p.s(n)
		if c > 0 {
			for i, gi := range g { // at: the forward pass's indices
				ax[i*c+int(at[i])] += gi
			}
		}
	case op == OpARFilter:
		p.gradARFilter(n, g)
	case op == OpTVFilter:
		p.gradTVFilter(n, g)
	case op == OpRenewal:
		p.gradRenewal(n, g)
	case op == OpHMMMarginal:
		p.gradHMM(n, g[0])
	case op == OpODE:
		p.gradODE(n, g)
	case op == OpAlgebraSolve:
		p.gradAlgebra(n, g)
	case op == OpIntegrate:
		p.gradIntegrate(n, g[0])
	case op == OpMatMul:
		p.gradMatMul(n, g)
	case op == OpTranspose:
		x := p.arg(n, 0)
		ax, r, c := p.a(x), x.shape.Rows, x.shape.Cols
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				ax[i*c+j] += g[j*r+i]
			}
		}
	case op == OpRowScatter: // gX = X (G + G'), row by row
		x := p.arg(n, 0)
		k := x.shape.Cols
		h := p.s(n)
		for a := 0; a < k; a++ {
			for c := 0; c < k; c++ {
				h[a*k+c] = g[a*k+c] + g[c*k+a]
			}
		}
		xv, ax := p.v(x), p.a(x)
		for r := 0; r < x.shape.Rows; r++ {
			xr, ar := xv[r*k:r*k+k], ax[r*k:r*k+k]
			for a := range ar {
				ha, s := h[a*k:a*k+k], 0.0
				for c, v := range xr {
					s += ha[c] * v
				}
				ar[a] += s
			}
		}
	case op == OpOuter:
		x, y := p.arg(n, 0), p.arg(n, 1)
		xv, yv := p.v(x), p.v(y)
		m := len(yv)
		if x.aoff >= 0 {
			ax := p.a(x)
			for i := range ax {
				ax[i] += dot(g[i*m:i*m+m], yv)
			}
		}
		if y.aoff >= 0 {
			ay := p.a(y)
			for i, xi := range xv {
				for j, gij := range g[i*m : i*m+m] {
					ay[j] += gij * xi
				}
			}
		}
	case op == OpDiagMatrix:
		ax := p.a(p.arg(n, 0))
		for i := range ax {
			ax[i] += g[i*len(ax)+i]
		}
	case op == OpDiagVector:
		ax := p.a(p.arg(n, 0))
		for i, gi := range g {
			ax[i*len(g)+i] += gi
		}
	case op == OpTrace:
		x := p.arg(n, 0)
		ax, d := p.a(x), x.shape.Rows
		for i := 0; i < d; i++ {
			ax[i*d+i] += g[0]
		}
	case op == OpChol:
		cholGrad(p.a(p.arg(n, 0)), g, p.v(n), p.s(n), n.shape.Rows)
	case op == OpLogDetChol:
		l := p.arg(n, 0)
		al, lv, d := p.a(l), p.v(l), l.shape.Rows
		for i := 0; i < d; i++ {
			al[i*d+i] += 2 * g[0] / lv[i*d+i]
		}
	case op == OpCholSolve:
		p.gradCholSolve(n, g)
	case op == OpTriSolve:
		p.gradTriSolve(n, g)
	case op == OpInverse || op == OpDeterminant || op == OpLogAbsDet:
		p.gradLU(n, g)
	case op == OpMatrixExp:
		if a := p.arg(n, 0); a.aoff >= 0 {
			gradExpm(p.a(a), g, p.v(a), a.shape.Rows, p.s(n))
		}
	case op == OpSort:
		ax, perm := p.a(p.arg(n, 0)), p.s(n)
		for i, gi := range g {
			ax[int(perm[i])] += gi
		}
	case op == OpEigvalsSym || op == OpEigvecsSym:
		p.gradEigenSym(n, g)
	case op == OpSingularVal:
		p.gradSingularValues(n, g)
	case op == OpCSRMatVec:
		p.gradCSR(n, g)
	case op == OpInterp:
		p.gradInterp(n, g)
	case op == OpQR:
		p.gradQR(n, g)
	case op == OpChol2Inv:
		p.gradChol2Inv(n, g)
	case op == OpSVDVec:
		p.gradSVDVectors(n, g)
	case op == OpGaussRowsSS:
		p.gradGaussRows(n, g[0])
	case op == OpGaussRowsLR:
		p.gradGaussRowsLR(n, g[0])
	case op == OpSlice:
		ax := p.a(p.arg(n, 0))[n.i1:]
		for i, gi := range g {
			ax[i] += gi
		}
	case op == OpCol:
		x := p.arg(n, 0)
		ax, c := p.a(x), x.shape.Cols
		for i, gi := range g {
			ax[i*c+n.i1] += gi
		}
	case op == OpGather:
		x := p.arg(n, 0)
		ax := p.a(x)
		if x.shape.Rank == 1 {
			for k, i := range n.idx {
				ax[i] += g[k]
			}
			break
		}
		c := x.shape.Cols
		for k, i := range n.idx {
			ar, gr := ax[i*c:i*c+c], g[k*c:k*c+c]
			for j, v := range gr {
				ar[j] += v
			}
		}
	case op == OpStack:
		for k, a := range n.args {
			if x := &p.nodes[a]; x.aoff >= 0 {
				p.adj[x.aoff] += g[k]
			}
		}
	case op == OpConcat && n.i0 == 1: // columns
		c := n.shape.Cols
		off := 0 // x's columns come first in each row
		for _, a := range n.args {
			x := &p.nodes[a]
			if x.aoff >= 0 {
				ax, cx := p.a(x), x.shape.Cols
				for i := 0; i < n.shape.Rows; i++ {
					for j, gi := range g[i*c+off : i*c+off+cx] {
						ax[i*cx+j] += gi
					}
				}
			}
			off += x.shape.Cols
		}
	case op == OpConcat:
		off := 0
		for _, a := range n.args {
			x := &p.nodes[a]
			if x.aoff >= 0 {
				for i, gi := range g[off : off+x.n] {
					p.adj[x.aoff+i] += gi
				}
			}
			off += x.n
		}
	case op == OpInside:
		ax := p.a(p.arg(n, 0))
		for i, gi := range g {
			ax[i] += gi
		}
	case op == OpDensity || op == OpLogPDF:
		p.gradDensity(n, g)
	case op == OpRowSumProd:
		p.gradRowSumProd(n, g)
	case op == OpCategorical:
		p.gradCategorical(n, g)
	case op == OpMultinomial:
		p.gradMultinomial(n, g)
	case op == OpPoissonBinomial:
		p.gradPoissonBinomial(n, g)
	case op == OpOrderedLogistic:
		p.gradOrderedLogistic(n, g)
	case op == OpCholCorr:
		y := p.arg(n, 0)
		dist.CholCorrGrad(p.a(y), p.v(y), p.v(n), g, n.shape.Rows)
	case op == OpCholCorrJac && n.i1 == 1:
		y := p.arg(n, 0)
		dist.CorrMatrixLogJacGrad(p.a(y), p.v(y), n.i0, g[0])
	case op == OpCholCorrJac:
		y := p.arg(n, 0)
		dist.CholCorrLogJacGrad(p.a(y), p.v(y), n.i0, g[0])
	case op == OpCorrFromChol:
		l := p.arg(n, 0)
		dist.CorrFromCholGrad(p.a(l), p.v(l), g, n.shape.Rows)
	case op == OpCholCov:
		dist.CholCovGrad(p.a(p.arg(n, 0)), p.v(n), g, n.shape.Rows)
	case op == OpCholCovJac && n.i1 == 1:
		dist.CovMatrixLogJacGrad(p.a(p.arg(n, 0)), n.i0, g[0])
	case op == OpCholCovJac:
		dist.CholCovLogJacGrad(p.a(p.arg(n, 0)), n.i0, g[0])
	case op == OpCovFromChol:
		l := p.arg(n, 0)
		dist.CovFromCholGrad(p.a(l), p.v(l), g, n.shape.Rows)
	case op == OpLKJCorrChol:
		p.gradLKJ(n, g[0])
	case op == OpMvNormalChol:
		p.gradMvNormalChol(n, g)
	case op == OpWishart:
		p.gradWishart(n, g[0])
	case op == OpSumToZero:
		p.gradSumToZero(n, g)
	case op == OpOrdered:
		x := p.arg(n, 0)
		gradOrderedRows(p.a(x), p.v(x), g, orderedRows(n.shape), n.i0 == 1)
	case op == OpHMMStateProb, op == OpHMMViterbi, op == OpSortIndex, op == OpQuantile, op == OpGatherAt:
		// No derivative: the checker lets it into the log joint only on
		// data, whose nodes have no adjoint.
	case op.isStep():
		// A step function: its derivative is zero wherever it exists, so
		// it adds nothing to its operands' adjoints.
	default:
		panic("autodiff: grad of an invalid node")
	}
}

func (p *Program) gradBinary(n *node, g []float64) {
	x, y := p.arg(n, 0), p.arg(n, 1)
	xv, yv, z := p.v(x), p.v(y), p.v(n)
	rx, cx, ry, cy := n.bc[0], n.bc[1], n.bc[2], n.bc[3]
	c := n.gc
	buf := p.s(n)
	for i := 0; i < n.gr; i++ {
		gr, zr, xr, yr := g[i*c:i*c+c], z[i*c:i*c+c], xv[i*rx:], yv[i*ry:]
		if x.aoff >= 0 {
			binaryRowGrad(n.op, 0, p.a(x)[i*rx:], cx, buf, gr, xr, cx, yr, cy, zr)
		}
		if y.aoff >= 0 {
			binaryRowGrad(n.op, 1, p.a(y)[i*ry:], cy, buf, gr, xr, cx, yr, cy, zr)
		}
	}
}

// binaryRowGrad adds one row's contribution to the adjoint a of operand
// side (0 for x, 1 for y), whose column stride is ca. An operand broadcast
// along the row (ca 0) gets the terms summed in buf first, so the loop
// never accumulates into one memory cell.
func binaryRowGrad(op Op, side int, a []float64, ca int, buf, g, xr []float64, cx int, yr []float64, cy int, z []float64) {
	d := a[:len(g)*ca]
	if ca == 0 {
		d = buf[:len(g)]
		clear(d)
	}
	switch {
	case op == OpAdd, op == OpSub && side == 0:
		for j, gj := range g {
			d[j] += gj
		}
	case op == OpSub:
		for j, gj := range g {
			d[j] -= gj
		}
	case op == OpMul && side == 0:
		for j, gj := range g {
			d[j] += gj * yr[j*cy]
		}
	case op == OpMul:
		for j, gj := range g {
			d[j] += gj * xr[j*cx]
		}
	case op == OpDiv && side == 0:
		for j, gj := range g {
			d[j] += gj / yr[j*cy]
		}
	case op == OpDiv:
		for j, gj := range g {
			d[j] -= gj * z[j] / yr[j*cy]
		}
	case op == OpPow && side == 0:
		for j, gj := range g {
			d[j] += gj * powDx(xr[j*cx], yr[j*cy], z[j])
		}
	case op == OpPow:
		for j, gj := range g {
			if z[j] != 0 && xr[j*cx] != 0 { // 0^y: see powDx
				d[j] += gj * z[j] * math.Log(xr[j*cx])
			}
		}
	case op == OpFmin || op == OpFmax:
		for j, gj := range g {
			if pickX(op, xr[j*cx], yr[j*cy]) == (side == 0) {
				d[j] += gj
			}
		}
	case op == OpLbeta:
		for j, gj := range g {
			da, db := dist.LogBetaGrad(xr[j*cx], yr[j*cy])
			if side == 0 {
				d[j] += gj * da
			} else {
				d[j] += gj * db
			}
		}
	case op == OpLogAddExp && side == 0: // exp(x − z), the weight of x
		for j, gj := range g {
			d[j] += gj * math.Exp(xr[j*cx]-z[j])
		}
	case op == OpLogAddExp:
		for j, gj := range g {
			d[j] += gj * math.Exp(yr[j*cy]-z[j])
		}
	case binaryFns[op].d != nil:
		df := binaryFns[op].d
		for j, gj := range g {
			dx, dy := df(xr[j*cx], yr[j*cy], z[j])
			if side == 0 {
				d[j] += gj * dx
			} else {
				d[j] += gj * dy
			}
		}
	}
	if ca == 0 {
		s := 0.0
		for _, v := range d {
			s += v
		}
		a[0] += s
	}
}

// powDx returns d(x^y)/dx = y x^(y-1), with z = x^y. At a base of exactly
// 0 and an exponent in [0, 1) the value is finite but the derivative is
// infinite (or 0·∞); that partial is taken as 0, the rule for every
// elementwise op at a finite boundary value (see zeroAtBoundary). An
// exponent below 0 keeps its infinite partial: its value is infinite too.
func powDx(x, y, z float64) float64 {
	if x != 0 {
		return y * z / x
	}
	if y >= 0 && y < 1 {
		return 0
	}
	return y * math.Pow(x, y-1)
}

// gradUnary adds g times the derivative at x (with value z) to ax.
func gradUnary(op Op, ax, g, x, z []float64) {
	x, z, ax = x[:len(g)], z[:len(g)], ax[:len(g)]
	switch op {
	case OpNeg:
		for i, gi := range g {
			ax[i] -= gi
		}
	case OpExp:
		for i, gi := range g {
			ax[i] += gi * z[i]
		}
	case OpLog:
		for i, gi := range g {
			ax[i] += gi / x[i]
		}
	case OpLog1p:
		for i, gi := range g {
			ax[i] += gi / (1 + x[i])
		}
	case OpExpm1:
		for i, gi := range g {
			// e^x = z + 1 loses the digits of e^x when z is near −1.
			if z[i] > -0.5 {
				ax[i] += gi * (z[i] + 1)
			} else {
				ax[i] += gi * math.Exp(x[i])
			}
		}
	case OpLog1mexp:
		for i, gi := range g {
			ax[i] += gi / math.Expm1(x[i])
		}
	case OpSoftplus:
		for i, gi := range g {
			ax[i] += gi * invLogit(x[i])
		}
	case OpSqrt:
		for i, gi := range g {
			if z[i] != 0 { // sqrt(0): see zeroAtBoundary
				ax[i] += 0.5 * gi / z[i]
			}
		}
	case OpSquare:
		for i, gi := range g {
			ax[i] += 2 * gi * x[i]
		}
	case OpAbs:
		for i, gi := range g {
			switch {
			case x[i] > 0:
				ax[i] += gi
			case x[i] < 0:
				ax[i] -= gi
			}
		}
	case OpLgamma:
		for i, gi := range g {
			ax[i] += gi * digamma(x[i])
		}
	case OpDigamma:
		for i, gi := range g {
			ax[i] += gi * trigamma(x[i])
		}
	case OpInvLogit:
		for i, gi := range g {
			// z·(1 − z), with 1 − z = inv_logit(−x) where z > ½: 1 − z
			// itself cancels (all digits lost from x ≈ 37 on).
			if x[i] > 0 {
				ax[i] += gi * z[i] * invLogit(-x[i])
			} else {
				ax[i] += gi * z[i] * (1 - z[i])
			}
		}
	case OpLog1m:
		for i, gi := range g {
			ax[i] -= gi / (1 - x[i])
		}
	case OpInvCloglog:
		for i, gi := range g {
			ax[i] += gi * dist.InvCloglogDeriv(x[i])
		}
	case OpPhi:
		for i, gi := range g {
			ax[i] += gi * dist.NormalDensity(x[i])
		}
	case OpPhiApprox:
		for i, gi := range g {
			ax[i] += gi * dist.PhiApproxDeriv(x[i])
		}
	case OpInvPhi: // 1/φ(z), which overflows only where the derivative does
		for i, gi := range g {
			ax[i] += gi / dist.NormalDensity(z[i])
		}
	case OpTanh: // 1/cosh², not 1 − z², which cancels for large |x|
		for i, gi := range g {
			c := math.Cosh(x[i])
			ax[i] += gi / (c * c)
		}
	case OpSin:
		for i, gi := range g {
			ax[i] += gi * math.Cos(x[i])
		}
	case OpCos:
		for i, gi := range g {
			ax[i] -= gi * math.Sin(x[i])
		}
	case OpAtan:
		for i, gi := range g {
			ax[i] += gi / (1 + x[i]*x[i])
		}
	default:
		if d := unaryFns[op].d; d != nil {
			for i, gi := range g {
				ax[i] += gi * d(x[i], z[i])
			}
		}
	}
}

// gradCholSolve: for X = A⁻¹B with A = L L', gB = A⁻¹ gX and
// gL = -(gB X' + X gB') L, lower triangle only (L's upper triangle is not
// read).
func (p *Program) gradCholSolve(n *node, g []float64) {
	l, rhs := p.arg(n, 0), p.arg(n, 1)
	d, m := l.shape.Rows, rhs.shape.Cols
	scr := p.s(n)
	gb, t := scr[:d*m], scr[d*m:d*m+d*d]
	copy(gb, g)
	cholSolve(p.v(l), d, gb, m)
	p.addAdjoint(rhs, gb)
	if l.aoff < 0 {
		return
	}
	x := p.v(n)
	p.gemm(false, true, d, d, m, 1, gb, m, x, m, 0, t, d)
	p.gemm(false, true, d, d, m, 1, x, m, gb, m, 1, t, d)
	trmm(true, false, p.v(l), d, t, d) // t = t L
	al := p.a(l)
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			al[i*d+j] -= t[i*d+j]
		}
	}
}

// gradGaussRows: with Sm the scatter about the mean and w = ybar - mu,
//
//	gC = g (-n/2 C⁻¹ + 1/2 C⁻¹ Sm C⁻¹)   (symmetrised)
//	gS = -g/2 C⁻¹
//	gmu = g n C⁻¹ w,  gybar = -gmu
func (p *Program) gradGaussRows(n *node, g float64) {
	c, s := p.arg(n, 0), p.arg(n, 1)
	d := c.shape.Rows
	dd := d * d
	scr := p.s(n)
	ci, t1, q := scr[dd:2*dd], scr[2*dd:3*dd], scr[3*dd:4*dd]
	sm := p.v(s)
	mean := len(n.args) > 2
	if mean {
		sm = scr[4*dd : 5*dd]
	}
	if c.aoff >= 0 {
		p.gemm(false, false, d, d, d, 1, ci, d, sm, d, 0, t1, d)
		p.gemm(false, false, d, d, d, 1, t1, d, ci, d, 0, q, d)
		ac, h := p.a(c), -0.5*n.f0*g
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				ac[i*d+j] += h*ci[i*d+j] + 0.25*g*(q[i*d+j]+q[j*d+i])
			}
		}
	}
	if s.aoff >= 0 {
		as := p.a(s)
		for i, v := range ci {
			as[i] -= 0.5 * g * v
		}
	}
	if !mean {
		return
	}
	ybar, mu := p.arg(n, 2), p.arg(n, 3)
	w := scr[5*dd : 5*dd+d]
	for i := 0; i < d; i++ {
		v := g * n.f0 * dot(ci[i*d:i*d+d], w)
		if mu.aoff >= 0 {
			p.a(mu)[i] += v
		}
		if ybar.aoff >= 0 {
			p.a(ybar)[i] -= v
		}
	}
}

// gradDensity sends a density node's adjoint through the partials its
// evaluation kept: OpDensity's one adjoint to every element, OpLogPDF's
// adjoint per element; summed where an operand broadcasts.
func (p *Program) gradDensity(n *node, g []float64) {
	if n.prep != nil {
		p.gradPrepared(n, g[0])
		return
	}
	na := n.nparams()
	m := n.i0
	scr := p.s(n)
	dxs, dps := scr[2*na:2*na+m], scr[2*na+m:]
	if n.norm != 0 { // the normaliser's partial is 1 in each element
		if o := p.arg(n, na+1); o.aoff >= 0 {
			ao := p.a(o)
			if n.norm == normOne {
				ao[0] += float64(m) * g[0]
			} else {
				for k := range ao {
					ao[k] += g[0]
				}
			}
		}
	}
	var sums uint64 // the arguments whose row sums the run path kept
	if p.densityRun(n) != nil {
		_, sums = p.densityKeep(n)
	}
	for a := range na + 1 {
		o := p.arg(n, a)
		if o.aoff < 0 {
			continue
		}
		ds := dxs
		if a > 0 {
			ds = dps[(a-1)*m : a*m]
		}
		ao, rs, cs := p.a(o), n.bc[3*a+1], n.bc[3*a+2]
		if sums&(1<<a) != 0 { // scatterDensity's sum, in the row's first cell
			for i := 0; i < n.gr; i++ {
				ao[i*rs] += g[0] * ds[i*n.gc]
			}
			continue
		}
		if n.op == OpDensity {
			scatterDensity(ao, ds, n.gr, n.gc, rs, cs, g[0])
			continue
		}
		for i := 0; i < n.gr; i++ {
			ar, dr, gr := ao[i*rs:], ds[i*n.gc:(i+1)*n.gc], g[i*n.gc:(i+1)*n.gc]
			for j, d := range dr {
				ar[j*cs] += gr[j] * d
			}
		}
	}
}

// gradMatMul: for C = op(A) op(B), g op(B)' goes to op(A) and op(A)' g to
// op(B), transposed back where an operand is read transposed. A Gram
// product X X' gives (g + g') X; X' X gives X (g + g').
func (p *Program) gradMatMul(n *node, g []float64) {
	r, k, c, lda, ldb, tA, tB := mmDims(n)
	x, y := p.arg(n, 0), p.arg(n, 1)
	if n.i0&mmGram != 0 {
		if x.aoff < 0 {
			return
		}
		s := p.s(n)
		for i := 0; i < r; i++ {
			for j := 0; j < r; j++ {
				s[i*r+j] = g[i*r+j] + g[j*r+i]
			}
		}
		if tA { // X is k×r
			p.gemm(false, false, k, r, r, 1, p.v(x), r, s, r, 1, p.a(x), r)
		} else { // X is r×k
			p.gemm(false, false, r, k, r, 1, s, r, p.v(x), k, 1, p.a(x), k)
		}
		return
	}
	a, b := p.v(x), p.v(y)
	if x.aoff >= 0 {
		if tA { // gA += op(B) g'
			p.gemm(tB, true, k, r, c, 1, b, ldb, g, c, 1, p.a(x), lda)
		} else { // gA += g op(B)'
			p.gemm(false, !tB, r, k, c, 1, g, c, b, ldb, 1, p.a(x), lda)
		}
	}
	if y.aoff >= 0 {
		if tB { // gB += g' op(A)
			p.gemm(true, tA, c, k, r, 1, g, c, a, lda, 1, p.a(y), ldb)
		} else { // gB += op(A)' g
			p.gemm(!tA, false, k, c, r, 1, a, lda, g, c, 1, p.a(y), ldb)
		}
	}
}

// gradProd adds g times the product of the other elements to each adjoint
// of a product's elements x, given the forward pass's product z: z / x_i
// when z is not 0 (no element is); else only a lone 0 gets a term (the
// product of the rest, computed here), and with two or more zeros every
// partial is 0 (as it is, z / x_i = 0, when z underflowed).
func gradProd(ax, x []float64, z, g float64) {
	if z != 0 { // no x_i is 0: z, the forward pass's product, over x_i
		for i, v := range x {
			ax[i] += g * (z / v)
		}
		return
	}
	zero, zeros := -1, 0
	prod := 1.0
	for i, v := range x {
		if v == 0 {
			zero, zeros = i, zeros+1
			continue
		}
		prod *= v
	}
	switch zeros {
	case 0:
		for i, v := range x {
			ax[i] += g * (prod / v)
		}
	case 1:
		ax[zero] += g * prod
	}
}

// gradTriSolve: for X = L⁻¹ B, B's adjoint is Ḡ = L⁻ᵀ G and L's is −Ḡ Xᵀ;
// for X = B L⁻¹ (i0 1, B [m, d]), Ḡ = G L⁻ᵀ and L's is −Xᵀ Ḡ; L's on and
// below the diagonal only (the upper triangle is not read).
func (p *Program) gradTriSolve(n *node, g []float64) {
	l, rhs := p.arg(n, 0), p.arg(n, 1)
	right := n.i0 == 1
	d, m := l.shape.Rows, rhs.shape.Cols
	if right {
		m = rhs.shape.Rows
	}
	gb := p.s(n)[:d*m]
	copy(gb, g)
	trsm(right, true, p.v(l), d, gb, m)
	p.addAdjoint(rhs, gb)
	if l.aoff < 0 {
		return
	}
	// L's [i, j] sums row i of Ḡ times row j of X (left), or column i of
	// X times column j of Ḡ (right): u's line i times w's line j.
	x, al := p.v(n), p.a(l)
	u, w, line, step := gb, x, m, 1
	if right {
		u, w, line, step = x, gb, 1, d
	}
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for k := 0; k < m; k++ {
				s += u[i*line+k*step] * w[j*line+k*step]
			}
			al[i*d+j] -= s
		}
	}
}

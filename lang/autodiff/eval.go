package autodiff

import (
	"math"

	"github.com/gpplang/gpp/dist"
)

// eval computes the value of n from its operands. It returns false when the
// op fails in a way that is not a NaN (a factorisation), with detail in
// p.fail.
func (p *Program) eval(n *node) bool {
	z := p.v(n)
	switch op := n.op; {
	case op == OpInput:
		copy(z, p.x[n.i0:n.i0+n.n])
	case op == OpConst:
	case n.lin != nil && !p.unfused:
		p.evalLin(n)
	case op.isBinary():
		p.evalBinary(n)
	case op.isUnary():
		p.evalUnaryShared(op, z, p.v(p.arg(n, 0)))
	case op == OpSum || op == OpMean:
		x := p.v(p.arg(n, 0))
		s := 0.0
		for _, v := range x {
			s += v
		}
		if op == OpMean {
			s /= float64(len(x))
		}
		z[0] = s
	case op == OpLogSumExp:
		z[0] = logSumExp(p.v(p.arg(n, 0)))
	case op == OpProd:
		s := 1.0
		for _, v := range p.v(p.arg(n, 0)) {
			s *= v
		}
		z[0] = s
	case op == OpMax || op == OpMin:
		x := p.v(p.arg(n, 0))
		switch {
		case len(x) > 0:
			z[0] = x[extremeIndex(x, op == OpMax)]
		case op == OpMax: // of no elements, as Stan's: −∞, the identity of max
			z[0] = math.Inf(-1)
		default:
			z[0] = math.Inf(1)
		}
	case op == OpRowLogSumExp:
		x := p.arg(n, 0)
		xv, c := p.v(x), x.shape.Cols
		for i := range z {
			z[i] = logSumExp(xv[i*c : i*c+c])
		}
	case op == OpRowSum:
		x := p.arg(n, 0)
		xv, c := p.v(x), x.shape.Cols
		for i := range z {
			s := 0.0
			for _, v := range xv[i*c : i*c+c] {
				s += v
			}
			z[i] = s
		}
	case op == OpColSum:
		x := p.arg(n, 0)
		xv, c := p.v(x), x.shape.Cols
		clear(z)
		for i := 0; i < x.shape.Rows; i++ {
			for j, v := range xv[i*c : i*c+c] {
				z[j] += v
			}
		}
	case op == OpCumSum:
		x := p.arg(n, 0)
		xv, c := p.v(x), x.shape.runLen()
		for r := 0; r < len(xv); r += c {
			s := 0.0
			for i, v := range xv[r : r+c] {
				s += v
				z[r+i] = s
			}
		}
	case op == OpRowProd:
		x := p.arg(n, 0)
		xv, c := p.v(x), x.shape.Cols
		for i := range z {
			s := 1.0
			for _, v := range xv[i*c : i*c+c] {
				s *= v
			}
			z[i] = s
		}
	case op == OpRowMax || op == OpRowMin:
		x := p.arg(n, 0)
		xv, c, at := p.v(x), x.shape.Cols, p.s(n)
		for i := range z {
			switch {
			case c > 0:
				k := extremeIndex(xv[i*c:i*c+c], op == OpRowMax)
				at[i] = float64(k)
				z[i] = xv[i*c+k]
			case op == OpRowMax:
				z[i] = math.Inf(-1)
			default:
				z[i] = math.Inf(1)
			}
		}
	case op == OpHMMMarginal:
		return p.evalHMM(n)
	case op == OpHMMStateProb:
		return p.evalHMMStateProb(n)
	case op == OpHMMViterbi:
		return p.evalHMMViterbi(n)
	case op == OpODE:
		return p.evalODE(n)
	case op == OpAlgebraSolve:
		return p.evalAlgebra(n)
	case op == OpIntegrate:
		return p.evalIntegrate(n)
	case op == OpARFilter:
		arFilter(z, p.v(p.arg(n, 1)), p.v(p.arg(n, 0)), n.shape.Cols)
	case op == OpTVFilter:
		tvFilter(z, p.v(p.arg(n, 1)), p.v(p.arg(n, 0)), n.shape.Cols)
	case op == OpRenewal:
		renewal(z, p.v(p.arg(n, 0)), p.v(p.arg(n, 1)), p.v(p.arg(n, 2)))
	case op == OpMatMul:
		p.evalMatMul(n)
	case op == OpTranspose:
		x := p.arg(n, 0)
		xv, r, c := p.v(x), x.shape.Rows, x.shape.Cols
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				z[j*r+i] = xv[i*c+j]
			}
		}
	case op == OpRowScatter:
		x := p.arg(n, 0)
		rowScatter(z, p.v(x), x.shape.Rows, x.shape.Cols)
	case op == OpOuter:
		xv, yv := p.v(p.arg(n, 0)), p.v(p.arg(n, 1))
		m := len(yv)
		for i, xi := range xv {
			zr := z[i*m : i*m+m]
			for j, yj := range yv {
				zr[j] = xi * yj
			}
		}
	case op == OpDiagMatrix:
		xv := p.v(p.arg(n, 0))
		clear(z)
		for i, v := range xv {
			z[i*len(xv)+i] = v
		}
	case op == OpDiagVector:
		xv := p.v(p.arg(n, 0))
		for i := range z {
			z[i] = xv[i*len(z)+i]
		}
	case op == OpTrace:
		xv := p.v(p.arg(n, 0))
		d := p.arg(n, 0).shape.Rows
		s := 0.0
		for i := 0; i < d; i++ {
			s += xv[i*d+i]
		}
		z[0] = s
	case op == OpChol:
		d := n.shape.Rows
		if i, j, ok := asymmetric(p.v(p.arg(n, 0)), d); !ok {
			p.fail = -(i*d + j + 1)
			return false
		}
		symLower(z, p.v(p.arg(n, 0)), d)
		if k := cholesky(z, d); k > 0 {
			p.fail = k
			return false
		}
	case op == OpLogDetChol:
		l := p.arg(n, 0)
		z[0] = logDetChol(p.v(l), l.shape.Rows)
	case op == OpCholSolve:
		l, rhs := p.arg(n, 0), p.arg(n, 1)
		copy(z, p.v(rhs))
		cholSolve(p.v(l), l.shape.Rows, z, rhs.shape.Cols)
	case op == OpTriSolve:
		l, rhs := p.arg(n, 0), p.arg(n, 1)
		copy(z, p.v(rhs))
		if n.i0 == 1 { // B L⁻¹, B [m, d]
			trsm(true, false, p.v(l), l.shape.Rows, z, rhs.shape.Rows)
			break
		}
		trsm(false, false, p.v(l), l.shape.Rows, z, rhs.shape.Cols)
	case op == OpInverse || op == OpDeterminant || op == OpLogAbsDet:
		return p.evalLU(n, z)
	case op == OpMatrixExp:
		a := p.arg(n, 0)
		expm(z, p.v(a), a.shape.Rows, p.s(n))
	case op == OpSort:
		x, scr := p.v(p.arg(n, 0)), p.s(n)
		perm := scr[:len(x)]
		sortPerm(perm, scr[len(x):], x, n.i0 == 1)
		for i, k := range perm {
			z[i] = x[int(k)]
		}
	case op == OpGatherAt:
		return p.evalGatherAt(n, z)
	case op == OpSortIndex:
		evalSortIndex(n, p.v(p.arg(n, 0)), p.s(n), z)
	case op == OpQuantile:
		return p.evalQuantile(n, z)
	case op == OpEigvalsSym || op == OpEigvecsSym:
		return p.evalEigenSym(n, z)
	case op == OpSingularVal:
		return p.evalSingularValues(n, z)
	case op == OpCSRMatVec:
		p.evalCSR(n, z)
	case op == OpInterp:
		p.evalInterp(n, z)
	case op == OpQR:
		return p.evalQR(n, z)
	case op == OpSVDVec:
		return p.evalSVDVectors(n, z)
	case op == OpChol2Inv:
		return p.evalChol2Inv(n, z)
	case op == OpGaussRowsSS:
		return p.evalGaussRows(n)
	case op == OpGaussRowsLR:
		return p.evalGaussRowsLR(n)
	case op == OpSlice:
		copy(z, p.v(p.arg(n, 0))[n.i1:])
	case op == OpCol:
		x := p.arg(n, 0)
		xv, c := p.v(x), x.shape.Cols
		for i := range z {
			z[i] = xv[i*c+n.i1]
		}
	case op == OpGather:
		x := p.arg(n, 0)
		xv := p.v(x)
		if x.shape.Rank == 1 {
			for k, i := range n.idx {
				z[k] = xv[i]
			}
			break
		}
		c := x.shape.Cols
		for k, i := range n.idx {
			copy(z[k*c:k*c+c], xv[i*c:i*c+c])
		}
	case op == OpStack:
		for k, a := range n.args {
			z[k] = p.val[p.nodes[a].off]
		}
	case op == OpConcat && n.i0 == 1: // columns
		xv, yv := p.v(p.arg(n, 0)), p.v(p.arg(n, 1))
		cx, c := p.arg(n, 0).shape.Cols, n.shape.Cols
		for i := 0; i < n.shape.Rows; i++ {
			copy(z[i*c:], xv[i*cx:(i+1)*cx])
			copy(z[i*c+cx:(i+1)*c], yv[i*(c-cx):])
		}
	case op == OpConcat:
		copy(z[copy(z, p.v(p.arg(n, 0))):], p.v(p.arg(n, 1)))
	case op == OpInside && n.i0 != 0: // ends per element (InsideEach)
		var lo, hi []float64
		k := 1
		if n.i0&insideLo != 0 {
			lo, k = p.v(p.arg(n, k)), k+1
		}
		if n.i0&insideHi != 0 {
			hi = p.v(p.arg(n, k))
		}
		insideEach(z, p.v(p.arg(n, 0)), lo, hi)
	case op == OpInside:
		inside(z, p.v(p.arg(n, 0)), n.f0, n.f1)
	case op == OpDensity || op == OpLogPDF:
		p.evalDensity(n)
	case op == OpRowSumProd:
		p.evalRowSumProd(n)
	case op == OpRand && n.alt:
		p.rng, p.rngAlt = p.rngAlt, p.rng
		p.evalRand(n)
		p.rng, p.rngAlt = p.rngAlt, p.rng
	case op == OpRand:
		p.evalRand(n)
	case op == OpCategorical:
		return p.evalCategorical(n)
	case op == OpMultinomial:
		return p.evalMultinomial(n)
	case op == OpPoissonBinomial:
		return p.evalPoissonBinomial(n)
	case op == OpOrderedLogistic:
		return p.evalOrderedLogistic(n)
	case op == OpCholCorr:
		dist.CholCorrValues(z, p.v(p.arg(n, 0)), n.shape.Rows)
	case op == OpCholCorrJac && n.i1 == 1:
		z[0] = dist.CorrMatrixLogJac(p.v(p.arg(n, 0)), n.i0)
	case op == OpCholCorrJac:
		z[0] = dist.CholCorrLogJac(p.v(p.arg(n, 0)), n.i0)
	case op == OpCorrFromChol:
		dist.CorrFromChol(z, p.v(p.arg(n, 0)), n.shape.Rows)
	case op == OpCholCov:
		dist.CholCovValues(z, p.v(p.arg(n, 0)), n.shape.Rows)
	case op == OpCholCovJac && n.i1 == 1:
		z[0] = dist.CovMatrixLogJac(p.v(p.arg(n, 0)), n.i0)
	case op == OpCholCovJac:
		z[0] = dist.CholCovLogJac(p.v(p.arg(n, 0)), n.i0)
	case op == OpCovFromChol:
		dist.CovFromChol(z, p.v(p.arg(n, 0)), n.shape.Rows)
	case op == OpLKJCorrChol:
		return p.evalLKJ(n, z)
	case op == OpMvNormalChol:
		return p.evalMvNormalChol(n)
	case op == OpWishart:
		return p.evalWishart(n)
	case op == OpSumToZero:
		p.evalSumToZero(n, z)
	case op == OpOrdered:
		evalOrderedRows(z, p.v(p.arg(n, 0)), orderedRows(n.shape), n.i0 == 1)
	case op == OpNot:
		for i, v := range p.v(p.arg(n, 0)) {
			z[i] = b2f(v == 0)
		}
	case op.isStepBinary():
		p.evalLogical(n)
	default:
		panic("autodiff: eval of an invalid node")
	}
	return true
}

func (p *Program) evalBinary(n *node) {
	xv, yv, z := p.v(p.arg(n, 0)), p.v(p.arg(n, 1)), p.v(n)
	rx, cx, ry, cy := n.bc[0], n.bc[1], n.bc[2], n.bc[3]
	c := n.gc
	for i := 0; i < n.gr; i++ {
		xr, yr, zr := xv[i*rx:], yv[i*ry:], z[i*c:i*c+c]
		switch n.op {
		case OpAdd:
			for j := range zr {
				zr[j] = xr[j*cx] + yr[j*cy]
			}
		case OpSub:
			for j := range zr {
				zr[j] = xr[j*cx] - yr[j*cy]
			}
		case OpMul:
			for j := range zr {
				zr[j] = xr[j*cx] * yr[j*cy]
			}
		case OpDiv:
			for j := range zr {
				zr[j] = xr[j*cx] / yr[j*cy]
			}
		case OpPow:
			for j := range zr {
				zr[j] = math.Pow(xr[j*cx], yr[j*cy])
			}
		case OpFmin, OpFmax:
			for j := range zr {
				zr[j] = yr[j*cy]
				if pickX(n.op, xr[j*cx], yr[j*cy]) {
					zr[j] = xr[j*cx]
				}
			}
		case OpLbeta:
			for j := range zr {
				zr[j] = dist.LogBeta(xr[j*cx], yr[j*cy])
			}
		case OpLogAddExp:
			for j := range zr {
				zr[j] = dist.LogAddExp(xr[j*cx], yr[j*cy])
			}
		default:
			f := binaryFns[n.op].f
			for j := range zr {
				zr[j] = f(xr[j*cx], yr[j*cy])
			}
		}
	}
}

// evalLogical evaluates a comparison, && or || with broadcasting, as
// evalBinary does arithmetic: Go's comparisons are IEEE 754's (false with
// a NaN operand, except !=).
func (p *Program) evalLogical(n *node) {
	xv, yv, z := p.v(p.arg(n, 0)), p.v(p.arg(n, 1)), p.v(n)
	rx, cx, ry, cy := n.bc[0], n.bc[1], n.bc[2], n.bc[3]
	c := n.gc
	for i := 0; i < n.gr; i++ {
		xr, yr, zr := xv[i*rx:], yv[i*ry:], z[i*c:i*c+c]
		switch n.op {
		case OpLt:
			for j := range zr {
				zr[j] = b2f(xr[j*cx] < yr[j*cy])
			}
		case OpLe:
			for j := range zr {
				zr[j] = b2f(xr[j*cx] <= yr[j*cy])
			}
		case OpGt:
			for j := range zr {
				zr[j] = b2f(xr[j*cx] > yr[j*cy])
			}
		case OpGe:
			for j := range zr {
				zr[j] = b2f(xr[j*cx] >= yr[j*cy])
			}
		case OpEq:
			for j := range zr {
				zr[j] = b2f(xr[j*cx] == yr[j*cy])
			}
		case OpNe:
			for j := range zr {
				zr[j] = b2f(xr[j*cx] != yr[j*cy])
			}
		case OpAnd:
			for j := range zr {
				zr[j] = b2f(xr[j*cx] != 0 && yr[j*cy] != 0)
			}
		case OpOr:
			for j := range zr {
				zr[j] = b2f(xr[j*cx] != 0 || yr[j*cy] != 0)
			}
		}
	}
}

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// unaryCost is the cost of an elementwise op in multiply-adds, for deciding
// whether to share it: the transcendental functions cost 10–40, the rest
// are not worth a hand-off at any size the tape sees.
func unaryCost(op Op) int {
	switch op {
	case OpExp, OpLog, OpLog1p, OpExpm1, OpLog1mexp, OpSoftplus, OpInvLogit,
		OpLog1m, OpInvCloglog, OpPhi, OpPhiApprox, OpTanh, OpSin, OpCos, OpAtan,
		OpTan, OpAsin, OpAcos, OpSinh, OpCosh, OpAsinh, OpAcosh, OpAtanh, OpErf, OpErfc, OpExp2, OpLog2, OpLog10, OpCbrt:
		return 10
	case OpLgamma, OpDigamma, OpInvPhi, OpTrigamma, OpTgamma:
		return 40
	}
	return 0
}

// evalUnaryShared is evalUnary with the elements cut into equal ranges on
// p's team when the op is costly enough (GPFA's and EPM's exp over the
// loadings, 1680 and 2340 elements). Each element is computed as it would be
// alone, so the numbers do not depend on the team.
func (p *Program) evalUnaryShared(op Op, z, x []float64) {
	p.ut = unaryTask{op: op, z: z, x: x}
	p.share(&p.ut, len(z)*unaryCost(op))
	p.ut = unaryTask{}
}

// unaryTask is an elementwise op whose parts are ranges of its elements.
type unaryTask struct {
	op   Op
	z, x []float64
}

func (t *unaryTask) RunPart(i, parts int) {
	lo, hi := i*len(t.z)/parts, (i+1)*len(t.z)/parts
	evalUnary(t.op, t.z[lo:hi], t.x[lo:hi])
}

func evalUnary(op Op, z, x []float64) {
	x = x[:len(z)]
	switch op {
	case OpNeg:
		for i, v := range x {
			z[i] = -v
		}
	case OpExp:
		for i, v := range x {
			z[i] = math.Exp(v)
		}
	case OpLog:
		for i, v := range x {
			z[i] = logx(v) // math.Log, correct for subnormal v too
		}
	case OpLog1p:
		for i, v := range x {
			z[i] = math.Log1p(v)
		}
	case OpExpm1:
		for i, v := range x {
			z[i] = math.Expm1(v)
		}
	case OpLog1mexp:
		for i, v := range x {
			z[i] = log1mexp(v)
		}
	case OpSoftplus:
		for i, v := range x {
			z[i] = softplus(v)
		}
	case OpSqrt:
		for i, v := range x {
			z[i] = math.Sqrt(v)
		}
	case OpSquare:
		for i, v := range x {
			z[i] = v * v
		}
	case OpAbs:
		for i, v := range x {
			z[i] = math.Abs(v)
		}
	case OpLgamma:
		for i, v := range x {
			z[i], _ = math.Lgamma(v)
		}
	case OpDigamma:
		for i, v := range x {
			z[i] = digamma(v)
		}
	case OpInvLogit:
		for i, v := range x {
			z[i] = invLogit(v)
		}
	case OpLog1m:
		for i, v := range x {
			z[i] = dist.Log1m(v)
		}
	case OpInvCloglog:
		for i, v := range x {
			z[i] = dist.InvCloglog(v)
		}
	case OpPhi:
		for i, v := range x {
			z[i] = dist.Phi(v)
		}
	case OpPhiApprox:
		for i, v := range x {
			z[i] = dist.PhiApprox(v)
		}
	case OpInvPhi:
		for i, v := range x {
			z[i] = dist.InvPhi(v)
		}
	case OpTanh:
		for i, v := range x {
			z[i] = math.Tanh(v)
		}
	case OpSin:
		for i, v := range x {
			z[i] = math.Sin(v)
		}
	case OpCos:
		for i, v := range x {
			z[i] = math.Cos(v)
		}
	case OpAtan:
		for i, v := range x {
			z[i] = math.Atan(v)
		}
	default:
		if u := unaryFns[op].f; u != nil {
			for i, v := range x {
				z[i] = u(v)
			}
		}
	}
}

// pickX reports whether fmin (fmax) of x and y is x: x when it is the
// smaller (larger) or they tie, or when y is NaN (C's fmin ignores a NaN
// operand; both NaN give x, a NaN). The derivative goes to the operand
// picked.
func pickX(op Op, x, y float64) bool {
	if op == OpFmin {
		return x <= y || y != y
	}
	return x >= y || y != y
}

// logSumExp returns log Σ exp(x) without overflow: m + log1p(Σ_{i≠k}
// e^(x_i−m)) with m = x_k the largest element, so that the others' small
// share keeps its digits (log Σ exp([0, −40]) is 4.2e-18, not 0).
func logSumExp(x []float64) float64 {
	m, k := math.Inf(-1), -1
	for i, v := range x {
		if math.IsNaN(v) {
			return v
		}
		if k < 0 || v > m {
			m, k = v, i
		}
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for i, v := range x {
		if i != k {
			s += math.Exp(v - m)
		}
	}
	return m + math.Log1p(s)
}

// evalDensity sums the kernel over the broadcast elements (OpDensity) or
// writes it per element (OpLogPDF), keeping each element's partials in
// scratch for the reverse sweep.
func (p *Program) evalDensity(n *node) {
	if n.prep != nil {
		p.evalPrepared(n)
		return
	}
	na := n.nparams()
	m := n.i0
	scr := p.s(n)
	par, dpar := scr[:na:na], scr[na:2*na:2*na]
	dxs, dps := scr[2*na:2*na+m], scr[2*na+m:2*na+m+m*na]
	kern := n.dist.Kernel
	bc, val := n.bc, p.val
	xo, xr, xc := bc[0], bc[1], bc[2]
	h := n.hoist
	var st []float64
	if h != nil { // the hoisted arguments are scalars: prepare them once
		st = scr[2*na+m+m*na:]
		for a := range par {
			par[a] = val[bc[3+3*a]]
		}
		h.Prepare(par, st)
	}
	dh := n.dhoist
	var ds []float64 // the elements' data states, when the value is data
	sl := 0
	if dh != nil {
		sl = dh.DataStateLen()
		ds = p.dstate[n.doff : n.doff+m*sl]
	}
	var elems []float64
	if n.op == OpLogPDF {
		elems = p.v(n)
	}
	// A normaliser (Builder.DensityNorm) is added to each element's log
	// density before the sum: nv[k*ns], ns 0 for one normaliser.
	var nv []float64
	ns := 0
	if n.norm != 0 {
		nv = p.v(p.arg(n, na+1))
		if n.norm == normEach {
			ns = 1
		}
	}
	sum := 0.0
	if run, arg := dataRunOf(dh, na); run != nil || arg != nil {
		p.dt = dataRunTask{p: p, n: n, run: run, arg: arg, elems: elems}
		p.share(&p.dt, m*dataRunElemCost)
		t := p.dt
		p.dt = dataRunTask{}
		if elems != nil {
			return
		}
		if t.whole && nv == nil { // one part: its sum is the serial loop's
			p.v(n)[0] = t.sum
			return
		}
		for k, v := range dataRunLP(n, scr) { // the parts' log densities, added in order
			if nv != nil {
				v += nv[k*ns]
			}
			sum += v
		}
		p.v(n)[0] = sum
		return
	}
	var c float64 // the normaliser for every element, or each's
	var each []float64
	if nv != nil {
		if ns == 0 {
			c = nv[0]
		} else {
			each = nv[:m]
		}
	}
	// The run path (densityRun) keeps only the partials the reverse sweep
	// reads: none of an operand without an adjoint, and of a broadcast one
	// whose partials it sums over a row, their running sum in the row's
	// first cell, added in the order of its elements as the sweep would.
	run := p.densityRun(n)
	keep, sums := ^uint64(0), uint64(0)
	if run != nil {
		keep, sums = p.densityKeep(n)
	}
	k := 0
	for i := 0; i < n.gr; i++ {
		for a := range par {
			if sums&(2<<a) != 0 {
				dps[a*m+i*n.gc] = 0
			}
		}
		for j := 0; j < n.gc; j++ {
			if run != nil {
				var done int
				sum, done = p.evalDensityRun(n, run, i, j, k, keep, sums, st, elems, sum)
				j, k = j+done, k+done
				if j == n.gc {
					break
				}
			}
			for a := range par {
				q := bc[3+3*a : 6+3*a]
				par[a] = val[q[0]+i*q[1]+j*q[2]]
			}
			var lp, dx float64
			switch {
			case dh != nil:
				lp, dx = dh.EvalData(val[xo+i*xr+j*xc], par, st, ds[k*sl:k*sl+sl], dpar)
			case h != nil:
				lp, dx = h.Eval(val[xo+i*xr+j*xc], par, st, dpar)
			default:
				lp, dx = kern(val[xo+i*xr+j*xc], par, dpar)
			}
			switch {
			case each != nil:
				sum += lp + each[k]
			case nv != nil:
				sum += lp + c
			default:
				sum += lp
			}
			if elems != nil {
				elems[k] = lp
			}
			if keep&1 != 0 {
				dxs[k] = dx
			}
			for a, d := range dpar {
				switch {
				case sums&(2<<a) != 0:
					dps[a*m+i*n.gc] += d
				case keep&(2<<a) != 0:
					dps[a*m+k] = d // argument-major, for the reverse sweep
				}
			}
			k++
		}
	}
	if elems == nil {
		p.v(n)[0] = sum
	}
}

// densityRun returns the run kernel of a density node that evaluates
// its elements a run at a time (dist.HoistedRun): one whose hoisted
// arguments are prepared once, without a data state or a normaliser, and
// with at most 63 arguments (densityKeep's masks); else nil.
func (p *Program) densityRun(n *node) dist.HoistedRun {
	if noDensityRun || n.hoist == nil || n.dhoist != nil || n.norm != 0 || n.prep != nil || n.i0 == 0 || len(n.args) > 64 {
		return nil
	}
	r, _ := n.hoist.(dist.HoistedRun)
	return r
}

// densityKeep returns, for a density node on the run path, which of its
// operands (bit a for operand a, the value 0) keep their partials per
// element — those with an adjoint — and which of those keep only their
// sum over each row: a summed density's (OpDensity) arguments that do not
// vary along a row, whose partials gradDensity would only add up
// (scatterDensity).
func (p *Program) densityKeep(n *node) (keep, sums uint64) {
	for a := range n.args[:n.nparams()+1] {
		if p.arg(n, a).aoff < 0 {
			continue
		}
		if a > 0 && n.op == OpDensity && n.bc[3*a+2] == 0 {
			sums |= 1 << a
			continue
		}
		keep |= 1 << a
	}
	return keep, sums
}

// evalDensityRun evaluates elements j, j+1, … of row i (flat element k)
// of a density node with its run kernel, as evalDensity's loop would, and
// returns the sum and the number of elements done: up to the row's end or
// the first element the kernel leaves to its Eval.
func (p *Program) evalDensityRun(n *node, run dist.HoistedRun, i, j, k int, keep, sums uint64, st, elems []float64, sum float64) (float64, int) {
	na, m, gc := n.nparams(), n.i0, n.gc
	scr := p.s(n)
	dxs, dps := scr[2*na:2*na+m], scr[2*na+m:2*na+m+m*na]
	if cap(p.runArgs) < na {
		p.runArgs = make([]dist.RunArg, na)
	}
	ra := p.runArgs[:na]
	bc, val := n.bc, p.val
	for a := range ra {
		q := bc[3+3*a : 6+3*a]
		r := dist.RunArg{V: val[q[0]+i*q[1]+j*q[2]:], C: q[2]}
		switch {
		case sums&(2<<a) != 0:
			r.Sum = &dps[a*m+i*gc]
		case keep&(2<<a) != 0:
			r.D = dps[a*m+k : a*m+k+gc-j]
		}
		ra[a] = r
	}
	var lp, dx []float64
	if elems != nil {
		lp = elems[k : k+gc-j]
	}
	if keep&1 != 0 {
		dx = dxs[k : k+gc-j]
	}
	xo, xr, xc := bc[0], bc[1], bc[2]
	sum, done := run.EvalRun(sum, gc-j, val[xo+i*xr+j*xc:], xc, ra, st, lp, dx)
	clear(ra) // hold no slices of the values between evaluations
	return sum, done
}

// evalGaussRows factors C, forms C⁻¹ and the (centred) scatter matrix, and
// evaluates the log density of the rows. A covariance of data (cfix) was
// factored by Finish: its inverse and log det are read from the scratch.
func (p *Program) evalGaussRows(n *node) bool {
	c, s := p.arg(n, 0), p.arg(n, 1)
	d := c.shape.Rows
	dd := d * d
	scr := p.s(n)
	ci := scr[dd : 2*dd]
	if !n.cfix && !p.factorCov(n) {
		return false
	}
	sm := p.v(s)
	if len(n.args) > 2 {
		sm = scr[4*dd : 5*dd]
		centredScatter(sm, scr[5*dd:5*dd+d], p.v(s), p.v(p.arg(n, 2)), p.v(p.arg(n, 3)), n.f0)
	}
	tr := 0.0
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			tr += ci[i*d+j] * sm[j*d+i]
		}
	}
	p.v(n)[0] = -0.5*n.f0*(float64(d)*log2Pi+scr[len(scr)-1]) - 0.5*tr
	return true
}

// factorCov sets the scratch of GaussRowsSS node n to the Cholesky factor
// of its covariance C, C⁻¹ and log det C (the last cell); false (p.fail
// set as for OpChol) when C is not symmetric or not positive definite.
func (p *Program) factorCov(n *node) bool {
	c := p.arg(n, 0)
	d := c.shape.Rows
	dd := d * d
	scr := p.s(n)
	l, ci := scr[:dd], scr[dd:2*dd]
	if i, j, ok := asymmetric(p.v(c), d); !ok {
		p.fail = -(i*d + j + 1)
		return false
	}
	symLower(l, p.v(c), d)
	if k := cholesky(l, d); k > 0 {
		p.fail = k
		return false
	}
	cholInverse(ci, l, d)
	scr[len(scr)-1] = logDetChol(l, d)
	return true
}

// factorDataCov factors, once, the covariance of each GaussRowsSS of the
// log joint whose covariance is data fixed for the program's life (not
// subsampled) and whose scatter changes (cfix), so that an evaluation
// costs O(d²) instead of a factorisation's O(d³). A covariance that is not
// positive definite is the error the first evaluation would have given,
// at the same node, found before any.
func (p *Program) factorDataCov() error {
	for i := range p.nodes {
		n := &p.nodes[i]
		if n.op != OpGaussRowsSS || !n.live || !n.joint || !n.dyn {
			continue
		}
		if c := p.arg(n, 0); c.dyn || c.sub {
			continue
		}
		if !p.factorCov(n) {
			return p.nodeError(int32(i), false)
		}
		n.cfix = true
	}
	return nil
}

const log2Pi = 1.8378770664093454835606594728112352797227949472755668

// centredScatter sets sm = s + n (ybar - mu)(ybar - mu)', keeping
// ybar - mu in w.
func centredScatter(sm, w, s, ybar, mu []float64, n float64) {
	d := len(w)
	for i := range w {
		w[i] = ybar[i] - mu[i]
	}
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			sm[i*d+j] = s[i*d+j] + n*w[i]*w[j]
		}
	}
}

// mmDims returns the dimensions of op(A) [r, k] op(B) [k, c] and the
// leading dimensions of the stored operands.
func mmDims(n *node) (r, k, c, lda, ldb int, tA, tB bool) {
	r, k, c = n.shape.Rows, n.i1, n.shape.Cols
	tA, tB = n.i0&mmTransA != 0, n.i0&mmTransB != 0
	lda, ldb = k, c
	if tA {
		lda = r
	}
	if tB {
		ldb = k
	}
	return
}

func (p *Program) evalMatMul(n *node) {
	r, k, c, lda, ldb, tA, tB := mmDims(n)
	a, b, z := p.v(p.arg(n, 0)), p.v(p.arg(n, 1)), p.v(n)
	if n.i0&mmGram == 0 {
		p.gemm(tA, tB, r, c, k, 1, a, lda, b, ldb, 0, z, c)
		return
	}
	if !tA && k > 0 && p.team != nil {
		p.grt = gramTask{r: r, k: k, x: a, ldx: lda, c: z}
		p.share(&p.grt, r*(r+1)/2*k)
		p.grt = gramTask{}
		return
	}
	syrk(tA, r, k, a, lda, z)
}

// extremeIndex is the index of the first largest (max) or smallest element
// of x, or of its first NaN, which then is the result.
func extremeIndex(x []float64, max bool) int {
	k := 0
	for i, v := range x {
		switch {
		case v != v:
			return i
		case max && v > x[k], !max && v < x[k]:
			k = i
		}
	}
	return k
}

// inside sets z to x with every element strictly inside (lo, hi) (OpInside).
func inside(z, x []float64, lo, hi float64) {
	for i, v := range x {
		z[i] = dist.Inside(v, lo, hi)
	}
}

// insideEach sets z to x with element i strictly inside (lo[i], hi[i])
// (OpInside with ends per element);
// lo or hi nil: no end on that side.
func insideEach(z, x, lo, hi []float64) {
	for i, v := range x {
		l, h := math.Inf(-1), math.Inf(1)
		if lo != nil {
			l = lo[i]
		}
		if hi != nil {
			h = hi[i]
		}
		z[i] = dist.Inside(v, l, h)
	}
}

// rowScatter sets z [k, k] to Σ_r x_r x_r' for the rows x_r of x [n, k]:
// the lower triangle summed row by row,
// then mirrored (x_a x_c = x_c x_a exactly).
func rowScatter(z, x []float64, n, k int) {
	clear(z)
	for r := 0; r < n; r++ {
		xr := x[r*k : r*k+k]
		for a, xa := range xr {
			za := z[a*k : a*k+a+1]
			for c := range za {
				za[c] += xa * xr[c]
			}
		}
	}
	for a := 0; a < k; a++ {
		for c := a + 1; c < k; c++ {
			z[a*k+c] = z[c*k+a]
		}
	}
}

// noDensityRun turns the run path off (densityRun returns nil), for the
// tests that compare it with the per-element loop.
var noDensityRun bool

package autodiff

import "slices"

// Known returns the value of x, evaluated now, when x depends on no input:
// a constant, data, or an elementwise, reduction, indexing or
// linear-algebra op of them. A compiler asks it for what it must know
// while it builds the tape (the condition of an if, the operands of a
// comparison); Finish evaluates such nodes again, to the same values. ok
// is false for a node that depends on an input, a placeholder, or one
// built on an op Known does not evaluate (a density, a factorisation). The
// slice is a copy.
func (b *Builder) Known(x ID) (vals []float64, ok bool) {
	if b.done {
		panic(errFinished)
	}
	i := b.index(x)
	if b.nodes[i].dyn {
		return nil, false
	}
	// The nodes x depends on that are not yet evaluated, in build order
	// (which is topological).
	var order []int32
	seen := map[int32]bool{}
	stack := []int32{i}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[j] || b.nodes[j].op == OpConst || j < int32(len(b.known)) && b.known[j] {
			continue
		}
		seen[j] = true
		if !knownOp(b.nodes[j].op) {
			return nil, false
		}
		order = append(order, j)
		stack = append(stack, b.nodes[j].args...)
	}
	slices.Sort(order)
	nscr := 0
	for _, j := range order {
		nscr = max(nscr, b.nodes[j].nscr)
	}
	// A program over the builder's nodes and values; before Finish every
	// node's scratch starts at 0, so one buffer serves each in turn.
	p := &Program{serial: b.serial, nodes: b.nodes, val: b.val, scr: make([]float64, nscr)}
	for _, j := range order {
		if !p.eval(&b.nodes[j]) {
			return nil, false
		}
		for int32(len(b.known)) <= j {
			b.known = append(b.known, false)
		}
		b.known[j] = true
	}
	n := &b.nodes[i]
	return slices.Clone(b.val[n.off : n.off+n.n]), true
}

// knownOp reports whether Known evaluates op: those whose evaluation needs
// nothing that Finish sets up.
func knownOp(op Op) bool {
	switch {
	case op == OpConst, op.isBinary(), op.isUnary(), op.isStep():
		return true
	}
	switch op {
	case OpSum, OpProd, OpMean, OpLogSumExp, OpMax, OpMin, OpRowLogSumExp, OpRowSum, OpColSum, OpCumSum, OpRowMax, OpRowMin, OpRowProd, OpARFilter, OpTVFilter, OpRenewal,
		OpMatMul, OpTranspose, OpOuter, OpRowScatter, OpDiagMatrix, OpDiagVector, OpTrace, OpMatrixExp, OpSort, OpSortIndex, OpQuantile, OpEigvalsSym, OpEigvecsSym, OpSingularVal, OpCSRMatVec, OpInterp, OpQR, OpSVDVec, OpChol2Inv,
		OpSlice, OpCol, OpGather, OpGatherAt, OpStack, OpConcat, OpInside, OpOrdered, OpCholCorr, OpCholCorrJac, OpCorrFromChol, OpCholCov, OpCholCovJac, OpCovFromChol, OpSumToZero:
		return true
	}
	return false
}
